// SPDX-License-Identifier: MIT
/* What both report formats show: verdict, grouping, marks, tiers, top
 * counters, and the comparison with a baseline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "fabsweep/diff.h"
#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "reports/model.h"
#include "unit/reports/fatfab.h"

/* fatfab(2, 4, 3, ...): spines 0-1, leaves 2-5, hosts 6-17 (3 per leaf). */
#define SPINE(i) ((uint32_t)(i))
#define LEAF(i) ((uint32_t)(2 + (i)))
#define HOST(i) ((uint32_t)(6 + (i)))

static void test_verdict(void **state)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);

	assert_int_equal(fab_report_verdict(s), FAB_VERDICT_HEALTHY);
	fatfab_finding(s, "x.info", FAB_SEV_INFO, LEAF(0), 1, "a", "m");
	assert_int_equal(fab_report_verdict(s), FAB_VERDICT_HEALTHY);
	fatfab_finding(s, "x.warn", FAB_SEV_WARNING, LEAF(0), 1, "a", "m");
	assert_int_equal(fab_report_verdict(s), FAB_VERDICT_DEGRADED);
	fatfab_finding(s, "x.err", FAB_SEV_ERROR, LEAF(0), 1, "a", "m");
	assert_int_equal(fab_report_verdict(s), FAB_VERDICT_FAILING);
	assert_string_equal(fab_report_verdict_name(FAB_VERDICT_DEGRADED), "degraded");
	assert_null(fab_report_verdict_name(FAB_VERDICT__COUNT));
	fab_snapshot_free(s);
}

static void test_grouping_and_marks(void **state)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);
	struct fab_report_model m;

	fatfab_finding(s, "b.rule", FAB_SEV_WARNING, LEAF(1), 2, "zeta", "m");
	fatfab_finding(s, "a.rule", FAB_SEV_INFO, HOST(0), 1, "alpha", "m");
	fatfab_finding(s, "b.rule", FAB_SEV_ERROR, LEAF(1), 4, "beta", "m");
	fatfab_finding(s, "c.rule", FAB_SEV_WARNING, SPINE(1), 0, "node-level", "m");
	fatfab_finding(s, "b.rule", FAB_SEV_WARNING, LEAF(1), 2, "alpha", "m");
	/* a finding whose node is no GUID: listed, marks nothing */
	struct fab_finding f = { .rule_id = "a.rule", .severity = FAB_SEV_INFO, .node = "not-a-guid",
				 .subject = "odd", .message = "m" };
	fab_snapshot_add_finding(s, &f);

	assert_int_equal(fab_report_model_build(s, NULL, &m), 0);
	assert_int_equal(m.verdict, FAB_VERDICT_FAILING);
	assert_int_equal(m.sev[FAB_SEV_ERROR], 1);
	assert_int_equal(m.sev[FAB_SEV_WARNING], 3);
	assert_int_equal(m.sev[FAB_SEV_INFO], 2);
	/* rules: worst first, then by id */
	assert_int_equal(m.n_rules, 3);
	assert_string_equal(m.rules[0].id, "b.rule");
	assert_string_equal(m.rules[1].id, "c.rule");
	assert_string_equal(m.rules[2].id, "a.rule");
	assert_int_equal(m.rules[0].total, 3);
	assert_int_equal(m.rules[0].n[FAB_SEV_WARNING], 2);
	assert_int_equal(m.rules[0].first, 0);
	assert_int_equal(m.rules[1].first, 3);
	assert_int_equal(m.rules[2].first, 4);
	/* within a rule: worst first, then by subject */
	assert_int_equal(m.order[0], 2); /* b.rule error "beta" */
	assert_int_equal(m.order[1], 4); /* b.rule warning "alpha" */
	assert_int_equal(m.order[2], 0); /* b.rule warning "zeta" */
	assert_int_equal(m.order[3], 3);
	/* marks */
	uint32_t p2 = fab_snapshot_port(s, LEAF(1), 2) - s->ports;
	uint32_t p4 = fab_snapshot_port(s, LEAF(1), 4) - s->ports;
	assert_int_equal(m.port_mark[p2], FAB_MARK(FAB_SEV_WARNING));
	assert_int_equal(m.port_mark[p4], FAB_MARK(FAB_SEV_ERROR));
	assert_int_equal(m.node_mark[LEAF(1)], FAB_MARK(FAB_SEV_ERROR));
	assert_int_equal(m.node_mark[SPINE(1)], FAB_MARK(FAB_SEV_WARNING)); /* node-level */
	assert_int_equal(m.node_mark[HOST(0)], FAB_MARK(FAB_SEV_INFO));
	assert_int_equal(m.node_mark[LEAF(0)], FAB_MARK_NONE);
	assert_int_equal(m.f_node[5], FAB_NONE);
	assert_int_equal(m.f_port[3], FAB_NONE);
	assert_int_equal(m.f_node[3], SPINE(1));
	/* counts */
	assert_int_equal(m.n_tier[FAB_ROLE_HOST], 12);
	assert_int_equal(m.n_tier[FAB_ROLE_LEAF], 4);
	assert_int_equal(m.n_tier[FAB_ROLE_SPINE], 2);
	assert_int_equal(m.n_ext_ports, 2 * 4 + 4 * 5 + 12);
	assert_int_equal(m.n_active_ports, 2 * (12 + 8));
	fab_report_model_free(&m);
	fab_snapshot_free(s);
}

static void test_peer_marks(void **state)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);
	struct fab_report_model m;
	char g[FAB_GUID_STRLEN], pg[FAB_GUID_STRLEN];

	fab_guid_format(s->nodes[LEAF(2)].guid, g);
	fab_guid_format(s->nodes[SPINE(0)].guid, pg);
	struct fab_finding f = { .rule_id = "link.x", .severity = FAB_SEV_ERROR, .node = g, .port = "4",
				 .peer_node = pg, .peer_port = "3", .subject = "s", .message = "m" };
	fab_snapshot_add_finding(s, &f);
	assert_int_equal(fab_report_model_build(s, NULL, &m), 0);
	assert_int_equal(m.port_mark[fab_snapshot_port(s, SPINE(0), 3) - s->ports], FAB_MARK(FAB_SEV_ERROR));
	assert_int_equal(m.node_mark[SPINE(0)], FAB_MARK(FAB_SEV_ERROR));
	fab_report_model_free(&m);
	fab_snapshot_free(s);
}

static void test_tiers_inferred(void **state)
{
	/* no roles: leaves are switches cabled to hosts, spines the rest */
	struct fab_snapshot *s = fatfab_build(2, 4, 3, false);
	struct fab_report_model m;

	assert_int_equal(fab_report_model_build(s, NULL, &m), 0);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(m.tier[SPINE(i)], FAB_ROLE_SPINE);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(m.tier[LEAF(i)], FAB_ROLE_LEAF);
	for (unsigned i = 0; i < 12; i++) {
		assert_int_equal(m.tier[HOST(i)], FAB_ROLE_HOST);
		assert_int_equal(m.leaf_of[HOST(i)], LEAF(i / 3));
	}
	assert_int_equal(m.leaf_of[LEAF(0)], FAB_NONE);
	fab_report_model_free(&m);

	/* a host unplugged from its leaf belongs to no leaf */
	struct fab_port *hp = fab_snapshot_port(s, HOST(4), 1);
	s->ports[hp->remote_idx].remote_idx = FAB_NONE;
	hp->remote_idx = FAB_NONE;
	assert_int_equal(fab_report_model_build(s, NULL, &m), 0);
	assert_int_equal(m.leaf_of[HOST(4)], FAB_NONE);
	fab_report_model_free(&m);
	fab_snapshot_free(s);
}

static void test_tiers_trusted(void **state)
{
	/* roles assigned: unknown stays unknown (a SHARP aggregation node, an
	 * isolated switch); nothing is guessed */
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);
	struct fab_report_model m;

	uint32_t an = fatfab_node(s, FAB_NODE_CA, 0x0002c903009000aaull, "leaf001 Aggregation Node", 1);
	struct fab_port *lp = fab_snapshot_port(s, LEAF(0), 3); /* was host 2's */
	s->ports[lp->remote_idx].remote_idx = FAB_NONE;
	fatfab_cable(s, LEAF(0), 3, an, 1);
	uint32_t lone = fatfab_node(s, FAB_NODE_SWITCH, 0x0002c903009000bbull, "lonely", 4);
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);
	assert_int_equal(fab_report_model_build(s, NULL, &m), 0);
	assert_int_equal(m.tier[an], FAB_ROLE_UNKNOWN);
	assert_int_equal(m.tier[lone], FAB_ROLE_UNKNOWN);
	assert_int_equal(m.n_tier[FAB_ROLE_HOST], 12);
	assert_int_equal(m.n_switches, 2 + 4 + 1);
	assert_false(fab_report_is_switch(&m, an));
	assert_true(fab_report_is_switch(&m, lone));
	assert_false(fab_report_is_switch(&m, HOST(0)));
	fab_report_model_free(&m);
	fab_snapshot_free(s);
}

static void test_top_counters(void **state)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);
	struct fab_report_model m;

	/* 30 error values; the largest 25 are kept, largest first. PortXmitData
	 * (no error counter) never counts. */
	for (size_t i = 0; i < 30; i++)
		s->samples[i].v[FAB_CTR_SYMBOL_ERRORS] = 100 + i;
	s->samples[40].v[FAB_CTR_LINK_DOWNED] = 7;
	s->samples[41].v[FAB_CTR_XMIT_DATA] = 1ull << 50;
	/* a second sample of port samples[0]: delta */
	struct fab_counter_sample *c = fab_snapshot_add_sample(s);
	*c = s->samples[0];
	c->sample = 1;
	c->v[FAB_CTR_SYMBOL_ERRORS] = 1000;
	uint32_t p0 = c->port_idx;
	fab_snapshot_index(s);
	assert_int_equal(fab_report_model_build(s, NULL, &m), 0);
	assert_int_equal(m.n_top, FAB_REPORT_TOP_COUNTERS);
	assert_int_equal(m.top[0].port, p0);
	assert_int_equal(m.top[0].value, 1000);
	assert_true(m.top[0].has_delta);
	assert_int_equal(m.top[0].delta, 900);
	assert_int_equal(m.top[1].value, 129);
	assert_false(m.top[1].has_delta);
	assert_int_equal(m.top[FAB_REPORT_TOP_COUNTERS - 1].value, 129 - 23);
	for (size_t i = 1; i < m.n_top; i++)
		assert_true(m.top[i - 1].value >= m.top[i].value);
	assert_int_equal(m.n_sampled_ports, 40);
	fab_report_model_free(&m);
	fab_snapshot_free(s);
}

static void test_diff(void **state)
{
	struct fab_snapshot *base = fatfab_build(2, 4, 3, true);
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);
	struct fab_report_diff d;
	char was[64], now[64];

	fatfab_finding(base, "old.rule", FAB_SEV_WARNING, LEAF(0), 1, "gone", "m");
	fatfab_finding(base, "same.rule", FAB_SEV_ERROR, LEAF(1), 2, "stays", "m");
	fatfab_finding(s, "same.rule", FAB_SEV_ERROR, LEAF(1), 2, "stays", "m (reworded)");
	fatfab_finding(s, "new.rule", FAB_SEV_ERROR, LEAF(2), 3, "new", "m");
	/* a finding without a node is told apart by its subject */
	fatfab_finding(base, "sm.x", FAB_SEV_INFO, 0, 0, "a", "m");
	s->findings[s->n_findings - 1].node = NULL;
	struct fab_finding f = { .rule_id = "sm.none", .severity = FAB_SEV_ERROR, .subject = "fabric",
				 .message = "no SM" };
	fab_snapshot_add_finding(s, &f);
	/* a link trained at 1X */
	struct fab_port *wp = fab_snapshot_port(s, LEAF(0), 4);
	wp->width_active = s->ports[wp->remote_idx].width_active = FAB_WIDTH_1X;
	/* a new host */
	fatfab_node(s, FAB_NODE_CA, 0x0002c903009999aaull, "newbie", 1);
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);

	assert_int_equal(fab_report_diff_build(base, s, &d), 0);
	/* the fabric's changes are core/diff.c's */
	assert_non_null(d.fabric);
	assert_int_equal(d.fabric->count[FAB_CHG_NODE_ADDED], 1);
	assert_int_equal(d.fabric->count[FAB_CHG_LINK_WIDTH], 1);
	for (size_t i = 0; i < d.fabric->n; i++) {
		if (d.fabric->changes[i].kind != FAB_CHG_LINK_WIDTH)
			continue;
		fab_report_change_values(&d.fabric->changes[i], was, now, sizeof(was));
		assert_string_equal(was, "4X");
		assert_string_equal(now, "1X");
	}
	/* findings */
	assert_int_equal(d.n_findings_new, 2);
	assert_string_equal(s->findings[d.findings_new[0]].rule_id, "new.rule");
	assert_string_equal(s->findings[d.findings_new[1]].rule_id, "sm.none");
	assert_int_equal(d.n_findings_resolved, 2);
	assert_string_equal(base->findings[d.findings_resolved[0]].rule_id, "old.rule");
	assert_string_equal(base->findings[d.findings_resolved[1]].rule_id, "sm.x");
	fab_report_diff_free(&d);
	fab_report_diff_free(&d); /* idempotent */
	fab_snapshot_free(base);
	fab_snapshot_free(s);
}

static void test_change_values(void **state)
{
	char was[64], now[64];
	struct fab_change c = { .kind = FAB_CHG_PORT_STATE, .old_value = FAB_STATE_ACTIVE,
				.new_value = FAB_STATE_DOWN, .old_phys = FAB_PHYS_LINKUP,
				.new_phys = FAB_PHYS_POLLING };

	fab_report_change_values(&c, was, now, sizeof(was));
	assert_string_equal(was, "active (linkup)");
	assert_string_equal(now, "down (polling)");
	c = (struct fab_change){ .kind = FAB_CHG_SM_MASTER, .old_value = 0x10, .new_value = 0 };
	fab_report_change_values(&c, was, now, sizeof(was));
	assert_string_equal(was, "0x0000000000000010");
	assert_string_equal(now, "none");
	c = (struct fab_change){ .kind = FAB_CHG_COUNTER_INCREASE, .old_value = 3, .new_value = 65535,
				 .saturated = true };
	fab_report_change_values(&c, was, now, sizeof(was));
	assert_string_equal(was, "3");
	assert_string_equal(now, "65535"); /* the increase is the formats' business */
	c = (struct fab_change){ .kind = FAB_CHG_NODE_ADDED };
	fab_report_change_values(&c, was, now, sizeof(was));
	assert_string_equal(was, "");
	assert_string_equal(now, "");
}

static void test_not_indexed(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_report_model m;

	fab_snapshot_add_node(s);
	assert_int_equal(fab_report_model_build(s, NULL, &m), -EINVAL);
	fab_snapshot_index(s);
	assert_int_equal(fab_report_model_build(s, NULL, &m), 0);
	fab_report_model_free(&m);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_grouping_and_marks),
		cmocka_unit_test(test_peer_marks),
		cmocka_unit_test(test_tiers_inferred),
		cmocka_unit_test(test_tiers_trusted),
		cmocka_unit_test(test_top_counters),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_change_values),
		cmocka_unit_test(test_not_indexed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
