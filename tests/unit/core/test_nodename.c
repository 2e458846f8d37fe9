// SPDX-License-Identifier: MIT
/*
 * The one name of a node (core/nodename.c, docs/workflows.md "Node names"):
 * a description no other node has is the name; shared, it gains the last
 * six hex digits of the GUID, all sixteen where two sharers end alike;
 * without one, the GUID; a node-name-map name wins and gains nothing.
 * Stable: the same node keeps its name whatever the order of the scan.
 * The subjects the rules build use it, and a map renames them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/nodemap.h"
#include "fabsweep/snapshot.h"

#define Q2 "Quantum-2 Mellanox Technologies"

static void add(struct fab_snapshot *s, uint64_t guid, const char *desc)
{
	struct fab_node *n = fab_snapshot_add_node(s);

	assert_non_null(n);
	n->guid = guid;
	n->type = FAB_NODE_SWITCH;
	fab_node_set_desc(n, (const uint8_t *)desc, strlen(desc));
}

static const char *name_of(const struct fab_snapshot *s, uint64_t guid, const struct fab_nodemap *m,
			   char *buf)
{
	uint32_t i = fab_snapshot_find_node(s, guid);

	assert_int_not_equal(i, FAB_NONE);
	return fab_node_name(s, i, m, buf, FAB_NODE_NAME_CAP);
}

/* Four Quantum-2 switches (two of them ending in the same six digits),
 * a unique leaf, a node without description, in the order given. */
static struct fab_snapshot *fabric(const uint64_t *order)
{
	struct fab_snapshot *s = fab_snapshot_new();

	for (size_t i = 0; i < 6; i++) {
		uint64_t g = order[i];
		add(s, g, g == 0x10 ? "leaf01" : g == 0x20 ? "" : Q2);
	}
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_int_equal(fab_snapshot_name_nodes(s), 0);
	return s;
}

static void check_names(const struct fab_snapshot *s)
{
	char b[FAB_NODE_NAME_CAP];

	assert_string_equal(name_of(s, 0xfc6a1c030091cf00, NULL, b), Q2 " [..91cf00]");
	assert_string_equal(name_of(s, 0xb0cf0e0300e5b940, NULL, b), Q2 " [..e5b940]");
	/* these two end in 8a5c00: the whole GUID tells them apart */
	assert_string_equal(name_of(s, 0xfc6a1c03008a5c00, NULL, b), Q2 " [0xfc6a1c03008a5c00]");
	assert_string_equal(name_of(s, 0xb0cf0e03008a5c00, NULL, b), Q2 " [0xb0cf0e03008a5c00]");
	assert_string_equal(name_of(s, 0x10, NULL, b), "leaf01");
	assert_string_equal(name_of(s, 0x20, NULL, b), "0x0000000000000020");
}

static void test_names(void **state)
{
	const uint64_t a[6] = { 0xfc6a1c030091cf00, 0x10, 0xb0cf0e0300e5b940, 0x20,
				0xfc6a1c03008a5c00, 0xb0cf0e03008a5c00 };
	const uint64_t b[6] = { 0xb0cf0e03008a5c00, 0x20, 0xfc6a1c03008a5c00, 0xb0cf0e0300e5b940,
				0x10, 0xfc6a1c030091cf00 };
	struct fab_snapshot *s;

	(void)state;
	s = fabric(a);
	check_names(s);
	fab_snapshot_free(s);
	s = fabric(b); /* another order, the same names */
	check_names(s);
	/* one of them alone: its description is its name again */
	uint8_t h[2];
	const uint64_t g[2] = { 0x1, 0x2 };
	const char *d[2] = { Q2, "other" };
	assert_int_equal(fab_node_names_hex(2, g, d, h), 0);
	assert_int_equal(h[0], 0);
	assert_int_equal(h[1], 0);
	fab_snapshot_free(s);
}

static void test_map_and_subjects(void **state)
{
	const uint64_t a[6] = { 0xfc6a1c030091cf00, 0x10, 0xb0cf0e0300e5b940, 0x20,
				0xfc6a1c03008a5c00, 0xb0cf0e03008a5c00 };
	const char map_text[] = "0xfc6a1c030091cf00 \"core-a\"\n";
	struct fab_snapshot *s = fabric(a);
	struct fab_nodemap *m;
	char b[FAB_NODE_NAME_CAP], sb[1024];

	(void)state;
	assert_int_equal(fab_nodemap_parse(map_text, strlen(map_text), "map", &m), 0);
	assert_string_equal(name_of(s, 0xfc6a1c030091cf00, m, b), "core-a");
	assert_string_equal(name_of(s, 0xb0cf0e0300e5b940, m, b), Q2 " [..e5b940]");
	/* a subject the rules built (names with digits) gets the map's name */
	struct fab_finding f = {
		.rule_id = "x.y", .node = "0xfc6a1c030091cf00", .port = "5",
		.peer_node = "0xb0cf0e0300e5b940", .peer_port = "7",
		.subject = Q2 " [..91cf00]/5 <-> " Q2 " [..e5b940]/7", .message = "m",
	};
	assert_string_equal(fab_nodemap_subject(m, s, &f, sb, sizeof(sb)),
			    "core-a/5 <-> " Q2 " [..e5b940]/7");
	assert_string_equal(fab_finding_node_name(m, s, f.node, b, sizeof(b)), "core-a");
	assert_string_equal(fab_finding_node_name(m, s, "eth-sw1", b, sizeof(b)), "eth-sw1");
	assert_null(fab_finding_node_name(m, s, NULL, b, sizeof(b)));
	/* rendering with the map: the mapped node is the map's name, no digits */
	assert_int_equal(fab_nodemap_apply(m, s), 0);
	assert_string_equal(name_of(s, 0xfc6a1c030091cf00, NULL, b), "core-a");
	assert_string_equal(name_of(s, 0xb0cf0e0300e5b940, NULL, b), Q2 " [..e5b940]");
	fab_nodemap_free(m);
	fab_snapshot_free(s);
}

static void test_name_is(void **state)
{
	(void)state;
	assert_true(fab_node_name_is(Q2 " [..91cf00]", 0xfc6a1c030091cf00, Q2));
	assert_true(fab_node_name_is(Q2 " [..91CF00]", 0xfc6a1c030091cf00, Q2));
	assert_true(fab_node_name_is(Q2 " [0xfc6a1c030091cf00]", 0xfc6a1c030091cf00, Q2));
	assert_false(fab_node_name_is(Q2 " [..91cf01]", 0xfc6a1c030091cf00, Q2));
	assert_false(fab_node_name_is(Q2, 0xfc6a1c030091cf00, Q2));
	assert_false(fab_node_name_is("Quantum-2 [..91cf00]", 0xfc6a1c030091cf00, Q2));
	assert_false(fab_node_name_is(" [..000020]", 0x20, ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_map_and_subjects),
		cmocka_unit_test(test_name_is),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
