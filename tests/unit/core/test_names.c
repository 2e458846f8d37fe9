// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "fabsweep/names.h"
#include "unit/snapfix.h"

static void test_sanitize(void **state)
{
	char buf[FAB_DESC_CAP];
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "leaf01 HCA-1", 12, "leaf01 HCA-1" },
		{ "trailing ", 9, "trailing " },
		{ "a\x1b[2Jb", 6, "a\\x1b[2Jb" },      /* terminal escape */
		{ "\xff\xfe", 2, "\\xff\\xfe" },       /* invalid UTF-8 */
		{ "caf\xc3\xa9", 5, "caf\xc3\xa9" },   /* valid UTF-8 kept */
		{ "\xc3", 1, "\\xc3" },                /* truncated sequence */
		{ "\xc0\xaf", 2, "\\xc0\\xaf" },       /* overlong */
		{ "\xc2\x9b" "1m", 4, "\\xc2\\x9b1m" }, /* C1 CSI */
		{ "\xe2\x80\xae" "x", 4, "\\xe2\\x80\\xaex" }, /* bidi override */
		{ "ab\0cd", 5, "ab" },                 /* stops at NUL */
		{ "tab\there\x7f", 9, "tab\\x09here\\x7f" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fab_text_sanitize((const uint8_t *)cases[i].in, cases[i].len, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].out);
	}
	/* 64 bytes of escapes fit the cap exactly */
	uint8_t raw[64];
	memset(raw, 0x01, sizeof(raw));
	assert_int_equal(fab_text_sanitize(raw, 64, buf, sizeof(buf)), 256);
	/* a small buffer truncates on a boundary */
	char small[6];
	fab_text_sanitize((const uint8_t *)"\x01\x02", 2, small, sizeof(small));
	assert_string_equal(small, "\\x01");
}

static void test_masks(void **state)
{
	char buf[64];

	fab_widths_format(FAB_WIDTH_1X | FAB_WIDTH_4X | FAB_WIDTH_12X | FAB_WIDTH_2X, buf, sizeof(buf));
	assert_string_equal(buf, "1X,2X,4X,12X");
	assert_int_equal(fab_widths_parse(buf), FAB_WIDTH_1X | FAB_WIDTH_4X | FAB_WIDTH_12X | FAB_WIDTH_2X);
	fab_speeds_format(FAB_SPEED_SDR | FAB_SPEED_FDR10 | FAB_SPEED_NDR, buf, sizeof(buf));
	assert_string_equal(buf, "SDR,FDR10,NDR");
	assert_int_equal(fab_speeds_parse("SDR,FDR10,NDR"), FAB_SPEED_SDR | FAB_SPEED_FDR10 | FAB_SPEED_NDR);
	assert_int_equal(fab_speeds_parse("SDR,BOGUS"), -1);
	assert_int_equal(fab_speeds_parse(""), 0);
	assert_int_equal(fab_width_best(FAB_WIDTH_1X | FAB_WIDTH_2X | FAB_WIDTH_4X), FAB_WIDTH_4X);
	assert_int_equal(fab_width_best(FAB_WIDTH_12X | FAB_WIDTH_8X), FAB_WIDTH_12X);
	assert_int_equal(fab_speed_best(FAB_SPEED_EDR | FAB_SPEED_HDR), FAB_SPEED_HDR);
	assert_true(fab_speed_rank(FAB_SPEED_FDR) > fab_speed_rank(FAB_SPEED_FDR10));
	assert_true(fab_rate_gbps(FAB_WIDTH_4X, FAB_SPEED_HDR) == 200.0);
	assert_true(fab_rate_gbps(FAB_WIDTH_4X, FAB_SPEED_FDR) == 56.0);
	assert_true(fab_rate_gbps(FAB_WIDTH_1X, FAB_SPEED_SDR) == 2.5);
	assert_null(fab_width_name(FAB_WIDTH_1X | FAB_WIDTH_4X));
}

static void test_guid_time(void **state)
{
	char g[FAB_GUID_STRLEN], t[FAB_TIME_STRLEN];
	uint64_t v;
	int64_t ms;

	fab_guid_format(0x0002c90300a1b2c3ull, g);
	assert_string_equal(g, "0x0002c90300a1b2c3");
	assert_int_equal(fab_guid_parse(g, &v), 0);
	assert_true(v == 0x0002c90300a1b2c3ull);
	assert_int_equal(fab_guid_parse("ec0d9a0300ec8480", &v), 0);
	assert_int_equal(fab_guid_parse("0x", &v), -EINVAL);
	assert_int_equal(fab_guid_parse("0x12345678901234567", &v), -EINVAL);
	assert_int_equal(fab_guid_parse("0xzz", &v), -EINVAL);
	fab_time_format(1764557635123, t);
	assert_string_equal(t, "2025-12-01T02:53:55.123Z");
	assert_int_equal(fab_time_parse(t, &ms), 0);
	assert_true(ms == 1764557635123);
	assert_int_equal(fab_time_parse("2025-12-01T02:53:55Z", &ms), 0);
	assert_true(ms == 1764557635000);
	assert_int_equal(fab_time_parse("yesterday", &ms), -EINVAL);
}

static void test_enums(void **state)
{
	assert_string_equal(fab_phys_state_name(FAB_PHYS_LINKUP), "linkup");
	assert_int_equal(fab_state_parse("armed"), FAB_STATE_ARMED);
	assert_int_equal(fab_sm_state_parse("standby"), 2);
	assert_int_equal(fab_mtu_bytes(5), 4096);
	assert_int_equal(fab_mtu_from_bytes(2048), 4);
}

static void test_snapshot_lookup(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(2, 3, 2);

	assert_int_equal(s->n_links, 3 * 2 + 3 * 2);
	assert_int_equal(fab_snapshot_find_node(s, 0x2001), 3);
	assert_int_equal(fab_snapshot_find_node(s, 0x9999), FAB_NONE);
	struct fab_port *p = fab_snapshot_port(s, 3, 19);
	assert_non_null(p);
	assert_int_equal(p->port_num, 19);
	assert_int_equal(s->ports[p->remote_idx].node_idx, 0);
	assert_null(fab_snapshot_port(s, 3, 37));
	/* every link once, a before b */
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_port *a = &s->ports[s->links[i].a], *b = &s->ports[s->links[i].b];
		assert_true(s->nodes[a->node_idx].guid <= s->nodes[b->node_idx].guid);
		assert_int_equal(a->remote_idx, s->links[i].b);
	}
	assert_non_null(fab_snapshot_sample(s, (uint32_t)(p - s->ports), 0));
	assert_null(fab_snapshot_sample(s, (uint32_t)(p - s->ports), 1));
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_masks),
		cmocka_unit_test(test_guid_time),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_snapshot_lookup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
