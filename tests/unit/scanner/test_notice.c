// SPDX-License-Identifier: MIT
/*
 * The SA's event MADs (scanner/notice.c) on real bytes: the InformInfo Set
 * a client sent and OpenSM accepted, the Reports OpenSM forwarded for traps
 * 128, 64, 65, 144 and 257, and the SMInfo Get it sends to a port with
 * IsSM (fixtures/mads/, captured under ibsim + OpenSM). The other security
 * traps, which nothing here sends, are built byte by byte from the
 * specification's Notice layout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scanner/madwin.h"
#include "scanner/notice.h"

static void load(const char *name, uint8_t mad[FAB_MAD_SIZE])
{
	char path[512], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/mads/%s.hex", getenv("FIXTURES"), name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		if (line[0] == '#')
			continue;
		for (unsigned long v; (v = strtoul(p, &end, 16)), end != p; p = end) {
			assert_true(n < FAB_MAD_SIZE);
			mad[n++] = (uint8_t)v;
		}
	}
	fclose(f);
	assert_int_equal(n, FAB_MAD_SIZE);
}

/* The subscription watch sends is byte for byte the one OpenSM accepted,
 * header included (the MAD window's encoder, class SA). */
static void test_informinfo_as_captured(void **state)
{
	uint8_t want[FAB_MAD_SIZE], got[FAB_MAD_SIZE];
	struct fab_mad_req r = { .mgmt_class = FAB_MAD_CLASS_SA, .method = FAB_MAD_SET,
				 .attr_id = FAB_SA_ATTR_INFORMINFO };

	(void)state;
	load("informinfo_set", want);
	fab_inform_encode(r.data, true);
	fab_mad_encode(got, &r, 0x31001);
	assert_memory_equal(got, want, FAB_MAD_SIZE);
	load("informinfo_unsubscribe", want);
	fab_inform_encode(r.data, false);
	fab_mad_encode(got, &r, 0x31002);
	assert_memory_equal(got, want, FAB_MAD_SIZE);
	/* the SM_Key goes to bytes 36-43 of the SA header */
	r.mkey = 0x0102030405060708ull;
	fab_mad_encode(got, &r, 1);
	assert_int_equal(got[36], 1);
	assert_int_equal(got[43], 8);
	assert_int_equal(got[56 + 16], 0xff); /* the data still at 56 */
}

static void test_informinfo_answer(void **state)
{
	uint8_t m[FAB_MAD_SIZE];
	unsigned status;

	(void)state;
	load("informinfo_resp", m);
	assert_int_equal(fab_inform_check(m, true, &status), 0);
	assert_int_equal(status, 0);
	/* an echo of a subscription is not the answer to its end */
	assert_int_equal(fab_inform_check(m, false, &status), -EPROTO);
	m[4] = 0x02; /* status 0x0200: a field OpenSM refused */
	assert_int_equal(fab_inform_check(m, true, &status), -EREMOTEIO);
	assert_int_equal(status, 0x0200);
	load("informinfo_set", m); /* a request, not an answer */
	assert_int_equal(fab_inform_check(m, true, &status), -EPROTO);
}

static void test_trap128(void **state)
{
	uint8_t m[FAB_MAD_SIZE];
	struct fab_notice n;
	char d[200];

	(void)state;
	load("report_trap128_spine", m);
	assert_int_equal(fab_notice_decode(m, &n), 0);
	assert_true(n.generic);
	assert_int_equal(n.type, 1);     /* urgent */
	assert_int_equal(n.producer, 2); /* switch */
	assert_int_equal(n.trap, 128);
	assert_int_equal(n.issuer_lid, 5);
	assert_int_equal(n.lid, 5);
	assert_int_equal(n.issuer_guid, 0x0002c90300000020ull); /* spine002 */
	assert_int_equal(n.tid, 0x02dab002);
	fab_notice_describe(&n, d, sizeof(d));
	assert_string_equal(d, "link state change at switch LID 5 (0x0002c90300000020)");
}

static void test_traps_64_65_144(void **state)
{
	uint8_t m[FAB_MAD_SIZE];
	struct fab_notice n;
	char d[200];

	(void)state;
	load("report_trap65", m);
	assert_int_equal(fab_notice_decode(m, &n), 0);
	assert_int_equal(n.trap, 65);
	assert_int_equal(n.type, 3);     /* subnet management */
	assert_int_equal(n.producer, 4); /* class manager: OpenSM's own */
	assert_int_equal(n.issuer_lid, 1);
	assert_int_equal(n.guid, 0x0002c90100000021ull); /* host0002's port, junk before it */
	fab_notice_describe(&n, d, sizeof(d));
	assert_string_equal(d, "port 0x0002c90100000021 out of service");
	load("report_trap64", m);
	assert_int_equal(fab_notice_decode(m, &n), 0);
	assert_int_equal(n.trap, 64);
	assert_int_equal(n.guid, 0x0002c90100000021ull);
	load("report_trap144", m);
	assert_int_equal(fab_notice_decode(m, &n), 0);
	assert_int_equal(n.trap, 144);
	assert_int_equal(n.lid, 7);
	assert_int_equal(n.cap_mask, 0x0050c04a); /* IsSM set */
	assert_int_equal(n.issuer_guid, 0x0002c90100000031ull);
}

/* A Notice in a Report, built from the specification (IBA 14.2.5.1): the
 * simulator sends no security traps. */
static void security(uint8_t m[FAB_MAD_SIZE], unsigned trap, const uint8_t *details, size_t len)
{
	uint8_t *d;

	load("report_trap128_spine", m); /* the Report's header */
	d = m + FAB_SA_DATA_OFFS;
	memset(d, 0, 80);
	d[0] = 0x80 | 2;        /* generic, security */
	d[3] = 1;               /* producer: channel adapter */
	d[4] = (uint8_t)(trap >> 8), d[5] = (uint8_t)trap;
	d[6] = 0, d[7] = 7;     /* IssuerLID 7 */
	memcpy(d + 10, details, len);
}

static void test_security_traps(void **state)
{
	uint8_t m[FAB_MAD_SIZE];
	struct fab_notice n;
	char d[200];
	/* 256: LIDADDR 9, DRSLID 0, Method 0x02, AttributeID 0x0015, modifier 1, M_Key */
	static const uint8_t t256[] = { 0, 0, 0, 9, 0, 0, 0x02, 0, 0x00, 0x15, 0, 0, 0, 1,
					0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0x2a };
	/* 257/258: LID1 9, LID2 7, key, SL/QP1, QP2 */
	static const uint8_t t257[] = { 0, 0, 0, 9, 0, 7, 0, 0, 0x80, 0x01 };
	/* 259: DataValid, LID1 9, LID2 7, P_Key 0x8002, ..., SW_LID 3 at 48, port 5 at 50 */
	uint8_t t259[51] = { 0, 0, 0, 9, 0, 7, 0x80, 0x02 };

	(void)state;
	/* a real one: OpenSM forwarding the trap 257 a port at LID 6 sent it */
	load("report_trap257", m);
	assert_int_equal(fab_notice_decode(m, &n), 0);
	assert_int_equal(n.trap, 257);
	assert_int_equal(n.type, 2);     /* security */
	assert_int_equal(n.producer, 1); /* channel adapter */
	assert_int_equal(n.issuer_lid, 6);
	assert_int_equal(n.issuer_guid, 0x0002c90100000021ull); /* OpenSM fills the GID in */
	fab_notice_describe(&n, d, sizeof(d));
	assert_string_equal(d, "bad P_Key 0x8001 from LID 9 to LID 6");
	t259[48] = 0, t259[49] = 3, t259[50] = 5;
	security(m, 256, t256, sizeof(t256));
	assert_int_equal(fab_notice_decode(m, &n), 0);
	assert_int_equal(n.trap, 256);
	assert_int_equal(n.type, 2);
	assert_int_equal(n.lid, 9);
	assert_int_equal(n.method, 2);
	assert_int_equal(n.attr_id, 0x15);
	assert_int_equal(n.mkey, 0xdeadbeef0000002aull);
	fab_notice_describe(&n, d, sizeof(d));
	assert_string_equal(d, "bad M_Key 0xdeadbeef0000002a at LID 9 (method 0x02, attribute 0x0015)");
	security(m, 257, t257, sizeof(t257));
	assert_int_equal(fab_notice_decode(m, &n), 0);
	fab_notice_describe(&n, d, sizeof(d));
	assert_string_equal(d, "bad P_Key 0x8001 from LID 9 to LID 7");
	security(m, 258, t257, sizeof(t257));
	assert_int_equal(fab_notice_decode(m, &n), 0);
	fab_notice_describe(&n, d, sizeof(d));
	assert_string_equal(d, "bad Q_Key 0x8001 from LID 9 to LID 7");
	security(m, 259, t259, sizeof(t259));
	assert_int_equal(fab_notice_decode(m, &n), 0);
	fab_notice_describe(&n, d, sizeof(d));
	assert_string_equal(d, "bad P_Key 0x8002 from LID 9 to LID 7 at switch LID 3 port 5");
}

static void test_answers(void **state)
{
	uint8_t m[FAB_MAD_SIZE], r[FAB_MAD_SIZE];
	struct fab_notice n;

	(void)state;
	load("report_trap128_spine", m);
	assert_false(fab_sminfo_is_get(m));
	fab_report_resp(m, r);
	assert_int_equal(r[3], 0x86);              /* ReportResp */
	assert_int_equal(r[4] | r[5], 0);          /* status 0 */
	assert_memory_equal(r + 8, m + 8, 8);      /* the TID as received */
	assert_memory_equal(r + 16, m + 16, 240);  /* the Notice echoed */
	assert_int_equal(fab_notice_decode(r, &n), -EPROTO); /* a response is no Report */

	load("sminfo_get_dr", m);
	assert_true(fab_sminfo_is_get(m));
	assert_int_equal(fab_notice_decode(m, &n), -EPROTO);
	fab_sminfo_notactive(m, 0x0002c90100000041ull, r);
	assert_int_equal(r[1], 0x81);
	assert_int_equal(r[3], 0x81);        /* GetResp */
	assert_int_equal(r[4], 0x80);        /* directed route, on its way back */
	assert_memory_equal(r + 8, m + 8, 8);
	assert_int_equal(r[64], 0x00);
	assert_int_equal(r[71], 0x41);       /* the port's GUID */
	assert_int_equal(r[84], 0);          /* priority 0, notactive */
	assert_memory_equal(r + 128, m + 128, 128); /* the route back */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_informinfo_as_captured),
		cmocka_unit_test(test_informinfo_answer),
		cmocka_unit_test(test_trap128),
		cmocka_unit_test(test_traps_64_65_144),
		cmocka_unit_test(test_security_traps),
		cmocka_unit_test(test_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
