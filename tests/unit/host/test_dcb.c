// SPDX-License-Identifier: MIT
/*
 * rtnetlink DCB reply parsing on reply bytes: a DCB_CMD_IEEE_GET reply laid
 * out as the kernel's dcbnl_ieee_fill() writes it, replies captured from a
 * veth and lo (fixtures/dcb), and truncated / malicious variants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"

/* Little-endian fields (netlink is host order; these tests run on x86/arm64 LE). */
#define L16(x) ((x) & 0xff), (((x) >> 8) & 0xff)
#define L32(x) L16((x) & 0xffff), L16(((x) >> 16) & 0xffff)
#define L64(x) L32((x) & 0xffffffffu), L32(0)
#define Z8 0, 0, 0, 0, 0, 0, 0, 0

enum { REPLY_LEN = 272 };

/* RTM_GETDCB reply to DCB_CMD_IEEE_GET for "enp1s0f0": ETS TC0/TC3 50/50 with
 * priority 3 on TC3, PFC on priority 3, APP DSCP 26 -> 3 and UDP 4791 -> 3,
 * DCBX mode LLD_MANAGED | VER_IEEE. */
static const uint8_t reply[REPLY_LEN] = {
	/* struct nlmsghdr: len, type RTM_GETDCB (78), flags, seq 42, pid */
	L32(REPLY_LEN), L16(78), L16(0), L32(42), L32(0),
	/* struct dcbmsg: AF_UNSPEC, DCB_CMD_IEEE_GET (21), pad */
	0, 21, L16(0),
	/* DCB_ATTR_IFNAME (1): "enp1s0f0\0", 13 bytes + 3 padding */
	L16(13), L16(1), 'e', 'n', 'p', '1', 's', '0', 'f', '0', 0, 0, 0, 0,
	/* DCB_ATTR_IEEE (13), nested: 4 + 64 + 140 + 20 = 228 */
	L16(228), L16(13),
	/*   DCB_ATTR_IEEE_ETS (1): struct ieee_ets, 59 bytes + 1 padding */
	L16(63), L16(1),
	0, 8, 0,		  /* willing, ets_cap, cbs */
	50, 0, 0, 50, 0, 0, 0, 0, /* tc_tx_bw */
	Z8,			  /* tc_rx_bw */
	2, 0, 0, 2, 0, 0, 0, 0,	  /* tc_tsa: ETS, strict, strict, ETS, ... */
	0, 0, 0, 3, 0, 0, 0, 0,	  /* prio_tc */
	Z8, Z8, Z8,		  /* tc_reco_bw, tc_reco_tsa, reco_prio_tc */
	0,			  /* padding */
	/*   DCB_ATTR_IEEE_PFC (2): struct ieee_pfc, 136 bytes */
	L16(140), L16(2),
	8, 0x08, 0, 0, L16(0), 0, 0, /* pfc_cap, pfc_en, mbc, pad, delay, pad */
	L64(0), L64(0), L64(0), L64(1234), L64(0), L64(0), L64(0), L64(0), /* requests */
	L64(0), L64(0), L64(0), L64(17), L64(0), L64(0), L64(0), L64(0),   /* indications */
	/*   DCB_ATTR_IEEE_APP_TABLE (3), nested: two DCB_ATTR_IEEE_APP (1) */
	L16(20), L16(3),
	L16(8), L16(1), 5, 3, L16(26),	 /* struct dcb_app: DSCP 26 -> 3 */
	L16(8), L16(1), 3, 3, L16(4791), /* UDP 4791 -> 3 */
	/* DCB_ATTR_DCBX (14): u8 + 3 padding */
	L16(5), L16(14), 0x0a, 0, 0, 0,
};

/* Byte offsets in reply[] of things the malicious variants change. */
enum {
	OFF_IEEE = 36,
	OFF_ETS = 40,
	OFF_PFC = 104,
	OFF_APPT = 244,
	OFF_APP1 = 248,
	OFF_DCBX = 264,
};

static uint8_t *copy(const uint8_t *b, size_t len)
{
	uint8_t *h = malloc(len ? len : 1);

	memcpy(h, b, len);
	return h;
}

/* Parses an exact-size heap copy (so ASan sees any overread). */
static int parse(const uint8_t *b, size_t len, struct fab_dcb_info *out)
{
	uint8_t *h = copy(b, len);
	int rc = fab_dcb_parse_reply(h, len, out);

	free(h);
	return rc;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v & 0xff);
	p[1] = (uint8_t)(v >> 8);
}

static void test_layout(void **state)
{
	/* the offsets above point where they say */
	assert_int_equal(reply[OFF_IEEE + 2], 13);
	assert_int_equal(reply[OFF_ETS + 2], 1);
	assert_int_equal(reply[OFF_PFC + 2], 2);
	assert_int_equal(reply[OFF_APPT + 2], 3);
	assert_int_equal(reply[OFF_APP1 + 2], 1);
	assert_int_equal(reply[OFF_DCBX + 2], 14);
	assert_int_equal(BYTE_ORDER, LITTLE_ENDIAN);
}

static void test_reply(void **state)
{
	struct fab_dcb_info *d = malloc(sizeof(*d));
	char text[64];

	assert_int_equal(parse(reply, sizeof(reply), d), 0);
	assert_int_equal(d->error, 0);
	assert_string_equal(d->ifname, "enp1s0f0");
	assert_true(d->pfc.valid);
	assert_int_equal(d->pfc.enabled, 0x08);
	assert_int_equal(d->pfc.cap, 8);
	assert_false(d->pfc.mbc);
	assert_true(d->ets.valid);
	assert_int_equal(d->ets.max_tcs, 8);
	assert_int_equal(d->ets.prio_tc[3], 3);
	assert_int_equal(d->ets.prio_tc[0], 0);
	assert_int_equal(d->ets.tc_bw[0], 50);
	assert_int_equal(d->ets.tc_bw[3], 50);
	assert_int_equal(d->ets.tsa[3], FAB_TSA_ETS);
	assert_int_equal(d->ets.tsa[1], FAB_TSA_STRICT);
	assert_true(d->app_table);
	assert_int_equal(d->n_apps, 2);
	fab_app_format(d->apps, d->n_apps, text, sizeof(text));
	assert_string_equal(text, "dscp:26=3,udp:4791=3");
	assert_int_equal(d->dcbx_mode, 0x0a);
	free(d);
}

/* Cut anywhere: the header's length no longer fits, always refused. */
static void test_truncated(void **state)
{
	struct fab_dcb_info *d = malloc(sizeof(*d));

	for (size_t len = 0; len < sizeof(reply); len++)
		assert_int_equal(parse(reply, len, d), -EBADMSG);
	/* cut, with the header's length claiming only what is there: never
	 * reads past it; either refused or a partial, consistent answer */
	uint8_t b[REPLY_LEN];
	for (size_t len = 16; len < sizeof(reply); len++) {
		memcpy(b, reply, sizeof(b));
		b[0] = (uint8_t)len;
		b[1] = (uint8_t)(len >> 8);
		int rc = parse(b, len, d);
		assert_true(rc == 0 || rc == -EBADMSG);
		if (rc == 0)
			assert_true(d->n_apps <= 2);
	}
	free(d);
}

static void expect_bad(const uint8_t *b)
{
	struct fab_dcb_info *d = malloc(sizeof(*d));

	assert_int_equal(parse(b, REPLY_LEN, d), -EBADMSG);
	free(d);
}

static void test_malicious(void **state)
{
	uint8_t b[REPLY_LEN];

	/* nested length beyond the message */
	memcpy(b, reply, sizeof(b));
	put16(b + OFF_IEEE, 4000);
	expect_bad(b);
	/* attribute lengths that would loop forever or underflow */
	memcpy(b, reply, sizeof(b));
	put16(b + OFF_ETS, 0);
	expect_bad(b);
	memcpy(b, reply, sizeof(b));
	put16(b + OFF_ETS, 3);
	expect_bad(b);
	/* ETS shorter than the fields we read */
	memcpy(b, reply, sizeof(b));
	put16(b + OFF_ETS, 4 + 20);
	expect_bad(b);
	/* PFC with a 1-byte payload */
	memcpy(b, reply, sizeof(b));
	put16(b + OFF_PFC, 5);
	expect_bad(b);
	/* an application entry of 2 bytes */
	memcpy(b, reply, sizeof(b));
	put16(b + OFF_APP1, 6);
	expect_bad(b);
	/* an application entry longer than its table */
	memcpy(b, reply, sizeof(b));
	put16(b + OFF_APP1, 200);
	expect_bad(b);
	/* an interface name of 20 bytes without NUL (IFNAMSIZ is 16) */
	{
		uint8_t c[16 + 4 + 24] = { 0 };
		c[0] = sizeof(c);
		put16(c + 4, 78);
		c[17] = 21;
		put16(c + 20, 4 + 20);
		put16(c + 22, 1);
		memset(c + 24, 'x', 20);
		struct fab_dcb_info *d = malloc(sizeof(*d));
		assert_int_equal(parse(c, sizeof(c), d), -EBADMSG);
		/* 12 characters are a fine name */
		put16(c + 20, 4 + 12);
		c[0] = 16 + 4 + 16;
		assert_int_equal(parse(c, 36, d), 0);
		assert_string_equal(d->ifname, "xxxxxxxxxxxx");
		free(d);
	}
	/* an empty DCBX attribute */
	memcpy(b, reply, sizeof(b));
	put16(b + OFF_DCBX, 4);
	expect_bad(b);
	/* not a DCB reply at all */
	memcpy(b, reply, sizeof(b));
	put16(b + 4, 16); /* RTM_NEWLINK */
	expect_bad(b);
	memcpy(b, reply, sizeof(b));
	b[17] = 3; /* another DCB command */
	expect_bad(b);
	/* header length smaller than a header */
	memcpy(b, reply, sizeof(b));
	b[0] = 8;
	b[1] = 0;
	expect_bad(b);
	/* entries with priority or selector out of 802.1Qaz range are skipped */
	memcpy(b, reply, sizeof(b));
	b[OFF_APP1 + 5] = 9; /* priority 9 */
	struct fab_dcb_info *d = malloc(sizeof(*d));
	assert_int_equal(parse(b, REPLY_LEN, d), 0);
	assert_int_equal(d->n_apps, 1);
	free(d);
}

/* Every byte of the reply set to a few values: never crashes, never
 * reports more than it can hold. */
static void test_mutations(void **state)
{
	static const uint8_t vals[] = { 0x00, 0x01, 0x03, 0x04, 0x7f, 0x80, 0xff };
	struct fab_dcb_info *d = malloc(sizeof(*d));
	uint8_t b[REPLY_LEN];

	for (size_t i = 0; i < sizeof(reply); i++)
		for (size_t v = 0; v < sizeof(vals); v++) {
			memcpy(b, reply, sizeof(b));
			b[i] = vals[v];
			if (parse(b, sizeof(b), d) == 0) {
				assert_true(d->n_apps <= FAB_DCB_MAX_APPS);
				assert_true(strlen(d->ifname) < sizeof(d->ifname));
			}
		}
	free(d);
}

/* A table with more entries than we keep: kept up to the cap, flagged. */
static void test_many_apps(void **state)
{
	size_t n = 200, tbl = 4 + n * 8, ieee = 4 + tbl, total = 16 + 4 + ieee;
	uint8_t *b = calloc(1, total);
	struct fab_dcb_info *d = malloc(sizeof(*d));

	b[0] = (uint8_t)total;
	b[1] = (uint8_t)(total >> 8);
	put16(b + 4, 78);
	b[17] = 21;
	put16(b + 20, (unsigned)ieee);
	put16(b + 22, 13);
	put16(b + 24, (unsigned)tbl);
	put16(b + 26, 3 | 0x8000); /* NLA_F_NESTED is ignored */
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = b + 28 + i * 8;
		put16(e, 8);
		put16(e + 2, 1);
		e[4] = 5;
		e[5] = (uint8_t)(i % 8);
		put16(e + 6, (unsigned)(i % 64));
	}
	assert_int_equal(parse(b, total, d), 0);
	assert_int_equal(d->n_apps, FAB_DCB_MAX_APPS);
	assert_true(d->apps_truncated);
	assert_false(d->pfc.valid);
	assert_int_equal(d->dcbx_mode, -1);
	free(d);
	free(b);
}

static size_t load(const char *name, uint8_t *buf, size_t cap)
{
	const char *dir = getenv("FIXTURES");
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/dcb/%s", dir ? dir : "fixtures", name);
	assert_non_null(f = fopen(path, "rb"));
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

/* What a veth and lo really answer: EOPNOTSUPP, with our request echoed. */
static void test_captured(void **state)
{
	uint8_t b[256], req[64];
	struct fab_dcb_info *d = malloc(sizeof(*d));
	size_t n = load("reply_veth_eopnotsupp.bin", b, sizeof(b));

	assert_int_equal(parse(b, n, d), 0);
	assert_int_equal(d->error, -EOPNOTSUPP);
	/* the echoed request is byte for byte what we build */
	int len = fab_dcb_build_request("lxa0", 42, req, sizeof(req));
	assert_int_equal(len, 32);
	assert_int_equal(n, 20 + 32);
	assert_memory_equal(b + 20, req, 32);

	n = load("reply_lo_eopnotsupp.bin", b, sizeof(b));
	assert_int_equal(parse(b, n, d), 0);
	assert_int_equal(d->error, -EOPNOTSUPP);
	/* an ACK (error 0) is not an answer */
	b[16] = b[17] = b[18] = b[19] = 0;
	assert_int_equal(parse(b, n, d), -EBADMSG);
	/* an error message too short for its error code */
	n = load("reply_lo_eopnotsupp.bin", b, sizeof(b));
	b[0] = 18;
	assert_int_equal(parse(b, 18, d), -EBADMSG);
	free(d);
}

static void put_file(const char *dir, const char *name, const uint8_t *b, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

/* collect --dcb-dir: the same answers from files, applied as the kernel's
 * are; a missing file is not asked, a bad one is a scan error. */
static void test_dcb_dir(void **state)
{
	static const char *const ifs[] = { "enp1s0f0", "lxa0", "eth1", "eth2", "eth3" };
	char dir[] = "/tmp/fabsweep-dcbdir-XXXXXX", text[64], path[512];
	struct fab_snapshot *snap = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(snap);
	struct fab_roce_system *y = fab_roce_add_system(r);
	uint8_t b[256];
	size_t n;

	y->name = "host1";
	y->collected = true;
	for (size_t i = 0; i < 5; i++) {
		struct fab_eth_port *p = fab_roce_add_eth_port(r, 0);
		p->ifname = ifs[i];
		p->flags = FAB_ETH_F_SYSFS;
	}
	assert_non_null(mkdtemp(dir));
	put_file(dir, "enp1s0f0.bin", reply, sizeof(reply));
	n = load("reply_veth_eopnotsupp.bin", b, sizeof(b));
	put_file(dir, "lxa0.bin", b, n);
	put_file(dir, "eth2.bin", (const uint8_t *)"not a netlink message", 21);
	put_file(dir, "eth3.bin", reply, sizeof(reply)); /* the answer for enp1s0f0 */
	assert_int_equal(fab_roce_collect_dcb_dir(r, snap, 0, dir), 0);

	const struct fab_eth_port *p = &r->eth_ports[0];
	assert_int_equal(p->dcb_status, FAB_DCB_OK);
	assert_int_equal(p->dcb.pfc.enabled, 0x08);
	assert_int_equal(p->dcbx_mode, 0x0a);
	fab_app_format(&r->apps[p->dcb.app_first], p->dcb.app_count, text, sizeof(text));
	assert_string_equal(text, "dscp:26=3,udp:4791=3");
	assert_int_equal(fab_eth_port_trust(r, p), FAB_TRUST_DSCP);
	assert_int_equal(r->eth_ports[1].dcb_status, FAB_DCB_UNSUPPORTED);
	assert_int_equal(r->eth_ports[2].dcb_status, FAB_DCB_NOT_QUERIED); /* no file */
	assert_int_equal(r->eth_ports[3].dcb_status, FAB_DCB_FAILED);
	assert_int_equal(r->eth_ports[4].dcb_status, FAB_DCB_FAILED);
	assert_int_equal(snap->status, FAB_SCAN_PARTIAL);
	assert_int_equal(snap->n_errors, 2);
	assert_string_equal(snap->errors[0].what, "dcb");
	snprintf(path, sizeof(path), "host1: '%s/eth2.bin' is not a DCB_CMD_IEEE_GET reply for 'eth2'", dir);
	assert_string_equal(snap->errors[0].message, path);
	snprintf(path, sizeof(path), "host1: '%s/eth3.bin' is not a DCB_CMD_IEEE_GET reply for 'eth3'", dir);
	assert_string_equal(snap->errors[1].message, path);
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%s.bin", dir, ifs[i]);
		unlink(path);
	}
	rmdir(dir);
	fab_snapshot_free(snap);
}

static void test_request(void **state)
{
	uint8_t b[64];

	assert_int_equal(fab_dcb_build_request("", 1, b, sizeof(b)), -EINVAL);
	assert_int_equal(fab_dcb_build_request(NULL, 1, b, sizeof(b)), -EINVAL);
	assert_int_equal(fab_dcb_build_request("sixteen-chars-xx", 1, b, sizeof(b)), -EINVAL);
	assert_int_equal(fab_dcb_build_request("eth0", 1, b, 20), -EINVAL);
	assert_int_equal(fab_dcb_build_request("fifteen-chars-x", 7, b, sizeof(b)), 16 + 4 + 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),	   cmocka_unit_test(test_reply),
		cmocka_unit_test(test_truncated),  cmocka_unit_test(test_malicious),
		cmocka_unit_test(test_mutations),  cmocka_unit_test(test_many_apps),
		cmocka_unit_test(test_captured),   cmocka_unit_test(test_request),
		cmocka_unit_test(test_dcb_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
