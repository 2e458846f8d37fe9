// SPDX-License-Identifier: MIT
/*
 * The VL model (core/qos.c): which SL2VL tables are a default (no QoS
 * policy), what OperationalVLs codes mean, the lanes' text, the lanes an
 * arbitration table weights, and the SLs traffic may use (those a CA maps
 * to a lane it runs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fabsweep/qos.h"
#include "fabsweep/routing.h"
#include "unit/snapfix.h"

static bool dflt(const char *hex16)
{
	uint8_t v[16];

	for (unsigned i = 0; i < 16; i++) {
		char c = hex16[i];
		v[i] = (uint8_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	return fab_sl2vl_is_default(v);
}

static void test_default(void **state)
{
	(void)state;
	assert_true(dflt("0123456789abcde7"));  /* ibsim, OpenSM without -Q */
	assert_true(dflt("0123456789abcdef"));  /* SL 15 anywhere */
	assert_true(dflt("0123456701234567"));  /* folded on 8 VLs */
	assert_true(dflt("0123012301230123"));  /* ... on 4 */
	assert_true(dflt("0101010101010101"));  /* ... on 2 */
	assert_true(dflt("0000000000000000"));  /* one lane */
	assert_false(dflt("0f23456701234567")); /* SL 1 dropped: a policy */
	assert_false(dflt("1234567012345670")); /* shifted */
	assert_false(dflt("0123456701234570")); /* SL 14 folded wrong */
}

static void test_names(void **state)
{
	char b[48];
	const unsigned n[] = { 0, 1, 2, 4, 8, 15, 0, 0 };

	(void)state;
	for (unsigned c = 0; c < 8; c++)
		assert_int_equal(fab_vls_count(c), n[c]);
	assert_string_equal(fab_vls_name(4, b, sizeof(b)), "VL0-7");
	assert_string_equal(fab_vls_name(1, b, sizeof(b)), "VL0");
	assert_string_equal(fab_vls_name(6, b, sizeof(b)), "unknown");
	assert_string_equal(fab_lanes_text(0x00f7, b, sizeof(b)), "0-2,4-7");
	assert_string_equal(fab_lanes_text(0x8a02, b, sizeof(b)), "1,9,11,15");
	assert_string_equal(fab_lanes_text(0, b, sizeof(b)), "none");
}

static void test_weighted(void **state)
{
	struct fab_vlarb v = { .n_high = 2, .n_low = 3 };

	(void)state;
	v.high[0] = (struct fab_vlarb_entry){ 0, 4 };
	v.high[1] = (struct fab_vlarb_entry){ 5, 0 };  /* weight 0: skipped */
	v.low[0] = (struct fab_vlarb_entry){ 1, 1 };
	v.low[1] = (struct fab_vlarb_entry){ 15, 9 };  /* VL 15 sends no data */
	v.low[2] = (struct fab_vlarb_entry){ 3, 2 };
	v.high[2] = (struct fab_vlarb_entry){ 6, 9 };  /* past n_high: not an entry */
	assert_int_equal(fab_vlarb_weighted(&v), 0x000b);
}

static void add_table(struct fab_snapshot *s, uint32_t node, unsigned in, unsigned out, const uint8_t *vl)
{
	struct fab_sl2vl *t = fab_routing_add_sl2vl(fab_snapshot_routing(s));

	*t = (struct fab_sl2vl){ .node_idx = node, .in = (uint8_t)in, .out = (uint8_t)out };
	memcpy(t->vl, vl, 16);
}

static void test_sls_in_use(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(2, 2, 2);
	uint8_t a[16], b[16];
	uint32_t h1 = fab_snapshot_find_node(s, 0x3000), h2 = fab_snapshot_find_node(s, 0x3010);
	uint32_t leaf = fab_snapshot_find_node(s, 0x2000);

	(void)state;
	assert_int_equal(fab_qos_sls_in_use(s), 0); /* no table */
	for (unsigned sl = 0; sl < 16; sl++) {
		a[sl] = (uint8_t)(sl < 4 ? sl : 15);  /* SL 0-3 on VL 0-3, the rest dropped */
		b[sl] = (uint8_t)(sl == 9 ? 7 : 15);  /* SL 9 on VL 7 */
	}
	add_table(s, leaf, 0, 1, b); /* a switch's table says nothing of use */
	add_table(s, h1, 0, 1, a);
	fab_routing_sort_sl2vl(s->routing);
	assert_int_equal(fab_qos_sls_in_use(s), 0x000f);
	add_table(s, h2, 0, 1, b);
	fab_routing_sort_sl2vl(s->routing);
	assert_int_equal(fab_qos_sls_in_use(s), 0x020f);
	/* host 2 runs VL0-3 only: VL 7 is none of its lanes */
	fab_snapshot_port(s, h2, 1)->op_vls = 3;
	assert_int_equal(fab_qos_sls_in_use(s), 0x000f);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_weighted),
		cmocka_unit_test(test_sls_in_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
