// SPDX-License-Identifier: MIT
/* Roles from fabric shape, on hand-built snapshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabsweep/scan.h"
#include "unit/snapfix.h"

static uint8_t role_of(const struct fab_snapshot *s, uint64_t guid)
{
	uint32_t i = fab_snapshot_find_node(s, guid);

	assert_int_not_equal(i, FAB_NONE);
	return s->nodes[i].role;
}

static void test_two_level(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(2, 3, 4);

	for (size_t i = 0; i < s->n_nodes; i++)
		s->nodes[i].role = FAB_ROLE_CORE; /* garbage to overwrite */
	fab_topology_assign_roles(s);
	assert_int_equal(role_of(s, 0x1000), FAB_ROLE_SPINE);
	assert_int_equal(role_of(s, 0x1001), FAB_ROLE_SPINE);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(role_of(s, 0x2000 + i), FAB_ROLE_LEAF);
	for (unsigned h = 0; h < 12; h++)
		assert_int_equal(role_of(s, 0x3000 + h * 16), FAB_ROLE_HOST);
	fab_snapshot_free(s);
}

static void test_three_level_and_island(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(2, 2, 1);
	uint32_t core = snapfix_node(s, FAB_NODE_SWITCH, 0x4000, "core01", 36);
	uint32_t lone = snapfix_node(s, FAB_NODE_SWITCH, 0x5000, "lonely", 36);
	uint32_t lone2 = snapfix_node(s, FAB_NODE_SWITCH, 0x5001, "lonely2", 36);
	uint32_t rtr = snapfix_node(s, FAB_NODE_ROUTER, 0x6000, "router", 2);

	/* Spines (indices 0, 1) up to one core; an island of two switches
	 * with no CA anywhere; a router hanging off a leaf. */
	snapfix_link(s, 0, 30, core, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, 1, 30, core, 2, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, lone, 1, lone2, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, 2, 30, rtr, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);
	fab_topology_assign_roles(s);
	assert_int_equal(role_of(s, 0x4000), FAB_ROLE_CORE);
	assert_int_equal(role_of(s, 0x1000), FAB_ROLE_SPINE);
	assert_int_equal(role_of(s, 0x2000), FAB_ROLE_LEAF);
	assert_int_equal(role_of(s, 0x5000), FAB_ROLE_UNKNOWN);
	assert_int_equal(role_of(s, 0x5001), FAB_ROLE_UNKNOWN);
	assert_int_equal(role_of(s, 0x6000), FAB_ROLE_UNKNOWN);
	fab_snapshot_free(s);
}

static void test_ca_on_spine_keeps_it_spine(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(1, 2, 1);
	uint32_t sm = snapfix_node(s, FAB_NODE_CA, 0x7000, "smhost", 1);

	snapfix_link(s, 0, 30, sm, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);
	fab_topology_assign_roles(s);
	/* The spine has a host, but it is cabled to two switches with hosts
	 * (the leaves) and each of them to one: a hub, so a spine. */
	assert_int_equal(role_of(s, 0x1000), FAB_ROLE_SPINE);
	assert_int_equal(role_of(s, 0x2000), FAB_ROLE_LEAF);
	assert_int_equal(role_of(s, 0x2001), FAB_ROLE_LEAF);
	assert_int_equal(role_of(s, 0x7000), FAB_ROLE_HOST);
	fab_snapshot_free(s);
}

static void test_leaves_back_to_back_and_in_a_ring(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	uint32_t sw[5], ca[5];

	/* sw0 <-> sw1: two leaves cabled to each other; sw2, sw3, sw4: a ring
	 * of leaves. Each has a host; none is a hub (no switch is cabled to
	 * more leaves than its neighbours are). */
	for (unsigned i = 0; i < 5; i++) {
		sw[i] = snapfix_node(s, FAB_NODE_SWITCH, 0x100 + i, "sw", 8);
		ca[i] = snapfix_node(s, FAB_NODE_CA, 0x200 + i, "ca", 1);
		snapfix_link(s, sw[i], 1, ca[i], 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	}
	snapfix_link(s, sw[0], 2, sw[1], 2, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw[2], 2, sw[3], 3, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw[3], 2, sw[4], 3, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw[4], 2, sw[2], 3, FAB_WIDTH_4X, FAB_SPEED_HDR);
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);
	fab_topology_assign_roles(s);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(role_of(s, 0x100 + i), FAB_ROLE_LEAF);
	fab_snapshot_free(s);
}

static void test_empty_and_dangling(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();

	fab_topology_assign_roles(s); /* no nodes: nothing to do */
	uint32_t a = snapfix_node(s, FAB_NODE_CA, 0x1, "ca", 1);
	/* remote_idx out of range must be ignored, not followed */
	fab_snapshot_port(s, a, 1)->remote_idx = 12345;
	fab_topology_assign_roles(s);
	assert_int_equal(s->nodes[a].role, FAB_ROLE_HOST);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_level),
		cmocka_unit_test(test_three_level_and_island),
		cmocka_unit_test(test_ca_on_spine_keeps_it_spine),
		cmocka_unit_test(test_leaves_back_to_back_and_in_a_ring),
		cmocka_unit_test(test_empty_and_dangling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
