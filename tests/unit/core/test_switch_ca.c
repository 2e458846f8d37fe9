// SPDX-License-Identifier: MIT
/* fab_node_in_switch(): which channel adapters are part of a switch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabsweep/snapshot.h"
#include "unit/snapfix.h"

static void test_aggregation_node_by_description(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	uint32_t sw = snapfix_node(s, FAB_NODE_SWITCH, 0x100, "MF0;LG01-01:MQM8700/U1", 41);
	/* Selene's own text; its own SystemImageGUID (snapfix: its GUID) */
	uint32_t an = snapfix_node(s, FAB_NODE_CA, 0x108, "Mellanox Technologies Aggregation Node", 1);
	uint32_t sp = snapfix_node(s, FAB_NODE_CA, 0x208, "Mellanox Technologies Aggregation Node  ", 1);
	uint32_t other = snapfix_node(s, FAB_NODE_CA, 0x308, "Aggregation Node of host7 mlx5_0", 1);

	snapfix_link(s, sw, 41, an, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw, 40, sp, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw, 39, other, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	assert_true(fab_node_in_switch(s, an));
	assert_true(fab_node_in_switch(s, sp)); /* trailing blanks */
	assert_false(fab_node_in_switch(s, other)); /* the text must end the description */
	assert_false(fab_node_in_switch(s, sw));    /* a switch is not a CA */
	assert_false(fab_node_in_switch(s, 99));
	fab_snapshot_free(s);
}

static void test_ca_of_the_switch_system(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	uint32_t sw = snapfix_node(s, FAB_NODE_SWITCH, 0x100, "sw", 41);
	uint32_t sw2 = snapfix_node(s, FAB_NODE_SWITCH, 0x200, "sw2", 41);
	uint32_t in = snapfix_node(s, FAB_NODE_CA, 0x108, "gateway", 1);
	uint32_t host = snapfix_node(s, FAB_NODE_CA, 0x300, "host01 HCA-1", 1);
	uint32_t two = snapfix_node(s, FAB_NODE_CA, 0x400, "two-legged", 2);
	uint32_t lone = snapfix_node(s, FAB_NODE_CA, 0x500, "uncabled", 1);
	uint32_t zero = snapfix_node(s, FAB_NODE_CA, 0x600, "zero", 1);
	uint32_t sw0 = snapfix_node(s, FAB_NODE_SWITCH, 0x700, "sw0", 8);

	s->nodes[in].sys_guid = s->nodes[sw].sys_guid;
	s->nodes[two].sys_guid = s->nodes[sw].sys_guid;
	s->nodes[lone].sys_guid = s->nodes[sw].sys_guid;
	s->nodes[zero].sys_guid = s->nodes[sw0].sys_guid = 0;
	snapfix_link(s, sw, 41, in, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw, 1, host, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw, 2, two, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw2, 2, two, 2, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, sw0, 1, zero, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	assert_true(fab_node_in_switch(s, in));
	assert_false(fab_node_in_switch(s, host)); /* a system of its own */
	assert_false(fab_node_in_switch(s, two));  /* one leg to another system */
	assert_false(fab_node_in_switch(s, lone)); /* no cable: nothing says where it is */
	assert_false(fab_node_in_switch(s, zero)); /* SystemImageGUID 0 is no system */
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregation_node_by_description),
		cmocka_unit_test(test_ca_of_the_switch_system),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
