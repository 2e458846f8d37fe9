// SPDX-License-Identifier: MIT
/*
 * `check --summary` (reports/summary.c): findings counted by rule and by
 * node, worst first, then the most findings; each node named as every
 * output names it (two switches described alike told apart); a finding
 * without a node in a group of its own; an Ethernet system by its name.
 * The counts are checked against a count of the findings made here.
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
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"

#define Q2 "Quantum-2 Mellanox Technologies"

static void add_node(struct fab_snapshot *s, uint64_t guid, const char *desc)
{
	struct fab_node *n = fab_snapshot_add_node(s);

	n->guid = guid;
	fab_node_set_desc(n, (const uint8_t *)desc, strlen(desc));
}

static void add_finding(struct fab_snapshot *s, const char *rule, unsigned sev, const char *node)
{
	struct fab_finding f = { .rule_id = rule, .severity = (uint8_t)sev, .node = node,
				 .subject = "x", .message = "m" };

	assert_int_equal(fab_snapshot_add_finding(s, &f), 0);
}

static void test_summary(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_check_summary *sum;
	struct {
		const char *rule;
		unsigned sev;
		const char *node;
	} in[] = {
		{ "port.errors", FAB_SEV_WARNING, "0xfc6a1c030091cf00" },
		{ "port.errors", FAB_SEV_WARNING, "0xfc6a1c030091cf00" },
		{ "port.congestion", FAB_SEV_INFO, "0xfc6a1c030091cf00" },
		{ "port.errors", FAB_SEV_WARNING, "0xfc6a1c03008a4dc0" },
		{ "vl.sl_dropped", FAB_SEV_ERROR, "0xfc6a1c03008a4dc0" },
		{ "port.congestion", FAB_SEV_INFO, "0x0000000000000010" },
		{ "port.congestion", FAB_SEV_INFO, "0x0000000000000010" },
		{ "port.congestion", FAB_SEV_INFO, "0x0000000000000010" },
		{ "sm.none", FAB_SEV_ERROR, NULL },
		{ "roce.mtu_mismatch", FAB_SEV_WARNING, "leaf1" },
	};

	(void)state;
	add_node(s, 0xfc6a1c030091cf00, Q2);
	add_node(s, 0xfc6a1c03008a4dc0, Q2);
	add_node(s, 0x10, "host01 HCA-1");
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_int_equal(fab_snapshot_name_nodes(s), 0);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		add_finding(s, in[i].rule, in[i].sev, in[i].node);
	assert_int_equal(fab_report_summary(s, NULL, &sum), 0);

	/* by rule: errors first (sm.none, vl.sl_dropped: 1 each, by id), then
	 * warnings (port.errors 3 on 2 nodes, roce.mtu_mismatch), then info */
	const char *rules[] = { "sm.none", "vl.sl_dropped", "port.errors", "roce.mtu_mismatch",
				"port.congestion" };
	const size_t nf[] = { 1, 1, 3, 1, 4 }, nn[] = { 0, 1, 2, 1, 2 };
	assert_int_equal(sum->n_rules, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(sum->rules[i].rule_id, rules[i]);
		assert_int_equal(sum->rules[i].findings, nf[i]);
		assert_int_equal(sum->rules[i].nodes, nn[i]);
		size_t by = 0;
		for (size_t k = 0; k < sizeof(in) / sizeof(in[0]); k++)
			by += !strcmp(in[k].rule, rules[i]) && in[k].sev == sum->rules[i].worst;
		assert_int_equal(sum->rules[i].by_severity[sum->rules[i].worst], by);
	}
	/* by node: the two groups with an error (the one with more findings
	 * first), then the warnings', then the info's */
	assert_int_equal(sum->n_nodes, 5);
	assert_string_equal(sum->nodes[0].name, Q2 " [..8a4dc0]");
	assert_int_equal(sum->nodes[0].worst, FAB_SEV_ERROR);
	assert_int_equal(sum->nodes[0].findings, 2);
	assert_string_equal(sum->counts[sum->nodes[0].first].rule_id, "vl.sl_dropped");
	assert_null(sum->nodes[1].node); /* sm.none: about no node */
	assert_null(sum->nodes[1].name);
	assert_string_equal(sum->nodes[2].name, Q2 " [..91cf00]");
	assert_int_equal(sum->nodes[2].findings, 3);
	assert_int_equal(sum->nodes[2].n_rules, 2);
	assert_string_equal(sum->counts[sum->nodes[2].first].rule_id, "port.errors");
	assert_int_equal(sum->counts[sum->nodes[2].first].findings, 2);
	assert_int_equal(sum->nodes[2].by_severity[FAB_SEV_INFO], 1);
	assert_string_equal(sum->nodes[3].name, "leaf1"); /* an Ethernet system */
	assert_string_equal(sum->nodes[4].name, "host01 HCA-1");
	assert_int_equal(sum->nodes[4].findings, 3);
	size_t total = 0;
	for (size_t i = 0; i < sum->n_nodes; i++)
		total += sum->nodes[i].findings;
	assert_int_equal(total, s->n_findings);
	fab_report_summary_free(sum);

	/* with a map: the mapped name */
	const char map_text[] = "0xfc6a1c030091cf00 \"spine-a\"\n";
	struct fab_nodemap *m;
	assert_int_equal(fab_nodemap_parse(map_text, strlen(map_text), "map", &m), 0);
	assert_int_equal(fab_report_summary(s, m, &sum), 0);
	assert_string_equal(sum->nodes[2].name, "spine-a");
	fab_report_summary_free(sum);
	fab_nodemap_free(m);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
