// SPDX-License-Identifier: MIT
/* IEEE 802.1Qaz TLV decoders on TLVs cut from real frames (fixtures/lldp). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/roce.h"

static size_t load(const char *name, uint8_t *buf, size_t cap)
{
	const char *dir = getenv("FIXTURES");
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/lldp/%s", dir ? dir : "fixtures", name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

/* tcpdump lldp-app-priority.pcap: "Willing: 0, MBC: 0, PFC cap:1", PFC on 4 */
static void test_pfc_bcf(void **state)
{
	uint8_t b[16];
	size_t n = load("bcf_leaf0b_pfc.bin", b, sizeof(b));
	struct fab_pfc p;

	assert_int_equal(n, 2);
	assert_int_equal(fab_dcbx_decode_pfc(b, n, &p), 0);
	assert_true(p.valid);
	assert_false(p.willing);
	assert_false(p.mbc);
	assert_int_equal(p.cap, 1);
	assert_int_equal(p.enabled, 0x10);
}

/* "Priority: 4, RES: 0, Sel: 4, Protocol ID: 3260" */
static void test_app_bcf(void **state)
{
	uint8_t b[16];
	size_t n = load("bcf_leaf0b_app.bin", b, sizeof(b)), k;
	struct fab_app_entry e[4];
	char text[64];

	assert_int_equal(fab_dcbx_decode_app(b, n, e, 4, &k), 0);
	assert_int_equal(k, 1);
	assert_int_equal(e[0].priority, 4);
	assert_int_equal(e[0].selector, 4);
	assert_int_equal(e[0].protocol, 3260);
	fab_app_format(e, k, text, sizeof(text));
	assert_string_equal(text, "port:3260=4");
}

/* Juniper QFX3500: all priorities on TC 7, TC 7 has 100 %, TSA ETS */
static void test_ets_juniper(void **state)
{
	uint8_t b[64];
	size_t n = load("juniper_qfx3500_ets_cfg.bin", b, sizeof(b));
	struct fab_ets e, r;

	assert_int_equal(n, 21);
	assert_int_equal(fab_dcbx_decode_ets_cfg(b, n, &e), 0);
	assert_true(e.valid);
	assert_false(e.willing);
	assert_false(e.cbs);
	assert_int_equal(e.max_tcs, 3);
	for (int i = 0; i < FAB_PRIOS; i++) {
		assert_int_equal(e.prio_tc[i], 7);
		assert_int_equal(e.tc_bw[i], i == 7 ? 100 : 0);
		assert_int_equal(e.tsa[i], FAB_TSA_ETS);
	}
	n = load("juniper_qfx3500_ets_reco.bin", b, sizeof(b));
	assert_int_equal(fab_dcbx_decode_ets_reco(b, n, &r), 0);
	assert_true(r.valid);
	assert_int_equal(r.max_tcs, 0); /* the first byte is reserved there */
	assert_memory_equal(r.prio_tc, e.prio_tc, FAB_PRIOS);
	assert_memory_equal(r.tc_bw, e.tc_bw, FAB_PRIOS);
}

/* PFC cap 8 but enabled on no priority */
static void test_pfc_juniper(void **state)
{
	uint8_t b[16];
	size_t n = load("juniper_qfx3500_pfc.bin", b, sizeof(b));
	struct fab_pfc p;

	assert_int_equal(fab_dcbx_decode_pfc(b, n, &p), 0);
	assert_int_equal(p.cap, 8);
	assert_int_equal(p.enabled, 0);
	assert_false(p.willing);
}

static void test_app_juniper(void **state)
{
	uint8_t b[16];
	size_t n = load("juniper_qfx3500_app.bin", b, sizeof(b)), k;
	struct fab_app_entry e[4];
	char text[64];

	assert_int_equal(fab_dcbx_decode_app(b, n, e, 4, &k), 0);
	assert_int_equal(k, 2);
	fab_app_format(e, k, text, sizeof(text));
	assert_string_equal(text, "port:50001=1,port:50000=2");
}

/* The CVE-2017-12997 regression frame: a long table of garbage decodes,
 * bounded by cap, without reading past len. */
static void test_app_fuzzed(void **state)
{
	uint8_t b[600];
	size_t n = load("fuzzed_loop_app.bin", b, sizeof(b)), k = 0;
	struct fab_app_entry e[8];

	assert_int_equal(n, 259);
	assert_int_equal(fab_dcbx_decode_app(b, n, e, 8, &k), 0);
	assert_int_equal(k, 86);
	for (int i = 0; i < 8; i++) {
		assert_true(e[i].priority <= 7);
		assert_true(e[i].selector <= 7);
	}
	/* exactly-sized heap copy: ASan catches any read past the end */
	uint8_t *h = malloc(n);
	memcpy(h, b, n);
	struct fab_app_entry *all = calloc(86, sizeof(*all));
	assert_int_equal(fab_dcbx_decode_app(h, n, all, 86, &k), 0);
	assert_int_equal(all[6].priority, 4);
	assert_int_equal(all[6].protocol, 49676);
	free(all);
	free(h);
}

static void test_malformed(void **state)
{
	uint8_t b[32] = { 0 };
	struct fab_pfc p = { .cap = 99 };
	struct fab_ets e = { .max_tcs = 99 };
	struct fab_app_entry a[2];
	size_t k = 77;

	/* every length but the right one is refused and out is untouched */
	for (size_t len = 0; len < sizeof(b); len++) {
		if (len != 2)
			assert_int_equal(fab_dcbx_decode_pfc(b, len, &p), -EBADMSG);
		if (len != 21) {
			assert_int_equal(fab_dcbx_decode_ets_cfg(b, len, &e), -EBADMSG);
			assert_int_equal(fab_dcbx_decode_ets_reco(b, len, &e), -EBADMSG);
		}
		if (len == 0 || (len - 1) % 3)
			assert_int_equal(fab_dcbx_decode_app(b, len, a, 2, &k), -EBADMSG);
	}
	assert_int_equal(p.cap, 99);
	assert_int_equal(e.max_tcs, 99);
	assert_int_equal(k, 77);
	assert_int_equal(fab_dcbx_decode_pfc(NULL, 2, &p), -EBADMSG);
	assert_int_equal(fab_dcbx_decode_app(NULL, 4, a, 2, &k), -EBADMSG);
	/* an empty table is valid */
	assert_int_equal(fab_dcbx_decode_app(b, 1, a, 2, &k), 0);
	assert_int_equal(k, 0);
	/* all bits set: fields stay in range, max_tcs 7 */
	memset(b, 0xff, sizeof(b));
	assert_int_equal(fab_dcbx_decode_pfc(b, 2, &p), 0);
	assert_true(p.willing && p.mbc);
	assert_int_equal(p.cap, 15);
	assert_int_equal(p.enabled, 0xff);
	assert_int_equal(fab_dcbx_decode_ets_cfg(b, 21, &e), 0);
	assert_int_equal(e.max_tcs, 7);
	assert_int_equal(e.prio_tc[0], 15);
}

static void test_app_text(void **state)
{
	const struct fab_app_entry in[] = {
		{ .priority = 3, .selector = FAB_APP_SEL_UDP, .protocol = 4791 },
		{ .priority = 3, .selector = FAB_APP_SEL_DSCP, .protocol = 26 },
		{ .priority = 3, .selector = FAB_APP_SEL_ETHERTYPE, .protocol = 0x8906 },
		{ .priority = 6, .selector = 0, .protocol = 65535 },
		{ .priority = 0, .selector = 7, .protocol = 0 },
	};
	struct fab_app_entry out[8];
	char text[128];
	size_t n;

	size_t need = fab_app_format(in, 5, text, sizeof(text));
	assert_string_equal(text, "udp:4791=3,dscp:26=3,ether:0x8906=3,sel0:65535=6,sel7:0=0");
	assert_int_equal(need, strlen(text));
	assert_int_equal(fab_app_format(in, 5, text, 8), need); /* truncated, same length */
	assert_int_equal(strlen(text), 7);
	assert_int_equal(fab_app_parse("udp:4791=3,dscp:26=3,ether:0x8906=3,sel0:65535=6,sel7:0=0",
				       out, 8, &n), 0);
	assert_int_equal(n, 5);
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(fab_app_parse("", out, 8, &n), 0);
	assert_int_equal(n, 0);
	static const char *const bad[] = { "udp", "udp:4791", "udp:4791=8", "xyz:1=1",
					   "udp:70000=1", "udp:1=1,", "sel8:1=1", "udp:=1",
					   "udp:1=1x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fab_app_parse(bad[i], out, 8, &n), -EINVAL);
	fab_lldp_caps_format(FAB_LLDP_CAP_BRIDGE | FAB_LLDP_CAP_ROUTER, text, sizeof(text));
	assert_string_equal(text, "bridge,router");
	assert_string_equal(fab_tsa_name(FAB_TSA_ETS), "ets");
	assert_null(fab_tsa_name(77));
}

/* A TLV list as lldpd hands it over: other OUIs skipped, bad ones counted,
 * a second APP TLV continues the table. */
static void test_decode_list(void **state)
{
	struct fab_roce *r = fab_roce_new();
	static const uint8_t pfc[] = { 0x08, 0x08 }, app1[] = { 0, 0x63, 0x12, 0xb7 },
			     app2[] = { 0, 0x65, 0x00, 0x1a }, bad[] = { 1, 2, 3 },
			     cee[] = { 1, 2, 3, 4 };
	struct fab_dcbx d;
	char text[64];

	fab_roce_add_tlv(r, 0x001b21, 2, cee, sizeof(cee)); /* CEE DCBX: not ours */
	fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_PFC, pfc, sizeof(pfc));
	fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_APP, app1, sizeof(app1));
	fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_ETS_CFG, bad, sizeof(bad));
	fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_APP, app2, sizeof(app2));
	fab_roce_add_tlv(r, FAB_OUI_8021, 1, bad, sizeof(bad)); /* PVID: not ours */
	assert_int_equal(fab_roce_decode_tlvs(r, 0, (uint32_t)r->n_tlvs, &d), 0);
	assert_true(d.pfc.valid);
	assert_int_equal(d.pfc.enabled, 0x08);
	assert_int_equal(d.pfc.cap, 8);
	assert_false(d.ets.valid);
	assert_int_equal(d.bad_tlvs, 1);
	assert_true(d.app_valid);
	fab_app_format(&r->apps[d.app_first], d.app_count, text, sizeof(text));
	assert_string_equal(text, "udp:4791=3,dscp:26=3");
	/* no TLVs at all: nothing valid */
	assert_int_equal(fab_roce_decode_tlvs(r, 0, 0, &d), 0);
	assert_false(d.pfc.valid || d.app_valid || d.ets.valid);
	fab_roce_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pfc_bcf),	    cmocka_unit_test(test_app_bcf),
		cmocka_unit_test(test_ets_juniper), cmocka_unit_test(test_pfc_juniper),
		cmocka_unit_test(test_app_juniper), cmocka_unit_test(test_app_fuzzed),
		cmocka_unit_test(test_malformed),   cmocka_unit_test(test_app_text),
		cmocka_unit_test(test_decode_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
