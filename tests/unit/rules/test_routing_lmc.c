// SPDX-License-Identifier: MIT
/*
 * The routing analysis with LMC > 0 (docs/routing.md): on the base fabric
 * (tests/unit/rules/rulefix.h) with every CA port given LMC 2 (4 LIDs,
 * fabfix_lmc) and routed min-hop over every LID (the LIDs of a range take
 * different spines), every LID of a range is a destination of its own:
 *  - healthy: no routing finding; every pair is 4 routes, all arrive;
 *  - one stale entry for an offset LID only: routing.unreachable names that
 *    LID (base + offset), `route --all-pairs` lists exactly its routes;
 *  - routes to offset LIDs alone that chain into a cycle: routing.credit_loop;
 *  - routing.imbalance counts every LID of a range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/routing.h"
#include "fabsweep/rules.h"
#include "unit/rules/rulefix.h"

#define NOW (RF_T0 + 3600 * 1000LL)
#define LMC 2

/* The base fabric with LMC 2 on every CA port, routed again. */
static struct fab_snapshot *lmc_fabric(void)
{
	struct fab_snapshot *s = rf_base(0);

	fabfix_lmc(s, LMC);
	assert_int_equal(fabfix_route_minhop(s), 0);
	assert_int_equal(fab_snapshot_index(s), 0);
	return s;
}

static void run(struct fab_snapshot *s)
{
	struct fab_rules_result res;

	if (fab_rules_run(NULL, s, NULL, NOW, &res))
		fail_msg("%s", fab_errmsg());
}

static size_t count(const struct fab_snapshot *s, const char *rule)
{
	if (strcmp(rule, "routing."))
		return fabfix_count_findings(s, rule);
	return fabfix_count_findings(s, "routing.unreachable") +
	       fabfix_count_findings(s, "routing.credit_loop") +
	       fabfix_count_findings(s, "routing.imbalance");
}

static const struct fab_finding *first(const struct fab_snapshot *s, const char *rule)
{
	const struct fab_finding *f = fabfix_finding(s, rule);

	assert_non_null(f);
	return f;
}

static uint32_t node_of(const struct fab_snapshot *s, uint64_t guid)
{
	uint32_t n = fab_snapshot_find_node(s, guid);

	assert_int_not_equal(n, FAB_NONE);
	return n;
}

/* A switch's table entry for lid, writable (the fixture owns the tables). */
static uint8_t *entry(struct fab_snapshot *s, uint64_t sw, unsigned lid)
{
	const struct fab_lft *l = fab_routing_lft(s, node_of(s, sw));

	assert_non_null(l);
	assert_true(lid <= l->fdb_top);
	return (uint8_t *)&l->port[lid];
}

/* host h's base LID (hosts 1..8: host01..host08 on leaf01..leaf04, two each) */
static unsigned host_lid(struct fab_snapshot *s, unsigned h)
{
	return fab_snapshot_port(s, node_of(s, RF_HOST(h)), 1)->lid;
}

static void dump(const struct fab_snapshot *s)
{
	for (size_t i = 0; i < s->n_findings; i++)
		if (!strncmp(s->findings[i].rule_id, "routing.", 8))
			fprintf(stderr, "  %s %s: %s [%s]\n", s->findings[i].rule_id,
				s->findings[i].subject, s->findings[i].message,
				s->findings[i].evidence ? s->findings[i].evidence : "");
}

static void test_healthy(void **state)
{
	struct fab_snapshot *s = lmc_fabric();
	struct fab_route_index ix;
	struct fab_route_pairs p;
	struct fab_route_dests d;
	size_t n_dests = 0;

	(void)state;
	/* the ranges: aligned, 4 LIDs each, switch port 0 keeps LMC 0 */
	assert_int_equal(host_lid(s, 1) % 4, 0);
	assert_int_equal(fab_snapshot_port(s, node_of(s, RF_HOST(1)), 1)->lmc, LMC);
	assert_int_equal(fab_snapshot_port(s, node_of(s, RF_LEAF(1)), 0)->lmc, 0);
	/* multipath: leaf01 sends the LIDs of host08's range up both spines */
	bool up7 = false, up8 = false;
	for (unsigned k = 0; k < 4; k++) {
		up7 |= *entry(s, RF_LEAF(1), host_lid(s, 8) + k) == 7;
		up8 |= *entry(s, RF_LEAF(1), host_lid(s, 8) + k) == 8;
	}
	assert_true(up7 && up8);

	run(s);
	dump(s);
	assert_int_equal(count(s, "routing."), 0);

	assert_int_equal(fab_route_index_build(s, &ix), 0);
	assert_int_equal(ix.n_ends, 8);
	for (fab_route_dests_start(&d, s, ix.ends, ix.n_ends); fab_route_dests_next(&d); n_dests++) {
		assert_int_equal(d.port, ix.ends[d.idx]);
		assert_true(d.lid - d.base < 4);
		assert_int_equal(ix.lid_owner[d.lid], d.port);
	}
	assert_int_equal(n_dests, 8 * 4);
	assert_int_equal(fab_route_pairs_check(&ix, ix.ends, ix.n_ends, true, &p), 0);
	assert_int_equal(p.n_pairs, 8 * 7);
	assert_int_equal(p.n_routes, 8 * 7 * 4);
	assert_int_equal(p.n_broken + p.n_unknown, 0);
	/* 2 links on a leaf (8 x 4 routes), 4 through a spine */
	assert_int_equal(p.hops[2], 8 * 4);
	assert_int_equal(p.hops[4], 8 * 6 * 4);
	fab_route_pairs_free(&p);
	fab_route_index_free(&ix);
	fab_snapshot_free(s);
}

/* leaf01 forgets host08's base + 1 (a stale entry nobody rerouted): the
 * base LID and the other offsets still arrive. */
static void test_offset_stale(void **state)
{
	struct fab_snapshot *s = lmc_fabric();
	unsigned base = host_lid(s, 8);
	struct fab_route_index ix;
	struct fab_route_pairs p;
	char want[64];

	(void)state;
	*entry(s, RF_LEAF(1), base + 1) = FAB_LFT_NO_PORT;
	run(s);
	dump(s);
	assert_int_equal(count(s, "routing."), 1);
	const struct fab_finding *f = first(s, "routing.unreachable");
	assert_string_equal(f->subject, "leaf01");
	/* the two hosts of leaf01 cannot reach that one LID */
	assert_non_null(strstr(f->evidence, "cause=no_entry; destinations=1; pairs=2; e.g. "));
	snprintf(want, sizeof(want), "(LID %u = base %u + 1)", base + 1, base);
	assert_non_null(strstr(f->evidence, want));

	assert_int_equal(fab_route_index_build(s, &ix), 0);
	assert_int_equal(fab_route_pairs_check(&ix, ix.ends, ix.n_ends, true, &p), 0);
	assert_int_equal(p.n_routes, 8 * 7 * 4);
	assert_int_equal(p.n_broken, 2);
	assert_int_equal(p.n_bad, 2);
	for (size_t i = 0; i < p.n_bad; i++) {
		assert_int_equal(p.bad[i].dlid, base + 1);
		assert_int_equal(p.bad[i].fault, FAB_ROUTE_NO_ENTRY);
		assert_int_equal(s->ports[p.bad[i].dst].lid, base);
	}
	fab_route_pairs_free(&p);
	fab_route_index_free(&ix);
	fab_snapshot_free(s);
}

/*
 * Routes to offset LIDs only (their base LIDs stay min-hop) that chain
 * four links into a cycle: A = spine01->leaf02, B = leaf02->spine02,
 * C = spine02->leaf03, D = leaf03->spine01.
 *   host07 + 1: leaf01 -> spine01 -> leaf02 -> spine02 -> leaf04  (A waits for B)
 *   host08 + 1: leaf02 -> spine02 -> leaf03 -> spine01 -> leaf04  (B for C, C for D)
 *   host03 + 1: leaf03 -> spine01 -> leaf02                       (D for A)
 * Every route arrives; only the offsets' dependencies close the cycle.
 */
static void test_offset_credit_loop(void **state)
{
	struct fab_snapshot *s = lmc_fabric();
	unsigned h7 = host_lid(s, 7) + 1, h8 = host_lid(s, 8) + 1, h3 = host_lid(s, 3) + 1;

	(void)state;
	run(s);
	assert_int_equal(count(s, "routing.credit_loop"), 0);
	/* leaf ports 7, 8: spine01, spine02; spine port i: leaf0i */
	*entry(s, RF_LEAF(1), h7) = 7;
	*entry(s, RF_SPINE(1), h7) = 2;
	*entry(s, RF_LEAF(2), h7) = 8;
	*entry(s, RF_SPINE(2), h7) = 4;
	*entry(s, RF_LEAF(2), h8) = 8;
	*entry(s, RF_SPINE(2), h8) = 3;
	*entry(s, RF_LEAF(3), h8) = 7;
	*entry(s, RF_SPINE(1), h8) = 4;
	*entry(s, RF_LEAF(3), h3) = 7;
	*entry(s, RF_SPINE(1), h3) = 2;
	run(s);
	dump(s);
	assert_int_equal(count(s, "routing.unreachable"), 0);
	assert_int_equal(count(s, "routing.credit_loop"), 1);
	const struct fab_finding *f = first(s, "routing.credit_loop");
	assert_non_null(strstr(f->evidence, "links_in_cycle_set=4"));
	fab_snapshot_free(s);
}

/* leaf01 sends every LID of every remote host up spine01: 6 hosts x 4
 * LIDs on port 7, none on port 8. */
static void test_imbalance_counts_lids(void **state)
{
	struct fab_snapshot *s = lmc_fabric();

	(void)state;
	for (unsigned h = 3; h <= 8; h++)
		for (unsigned k = 0; k < 4; k++)
			*entry(s, RF_LEAF(1), host_lid(s, h) + k) = 7;
	run(s);
	dump(s);
	assert_int_equal(count(s, "routing.imbalance"), 1);
	const struct fab_finding *f = first(s, "routing.imbalance");
	assert_string_equal(f->subject, "leaf01");
	assert_non_null(strstr(f->evidence, "destinations per up-port: 7=24 8=0;"));
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_offset_stale),
		cmocka_unit_test(test_offset_credit_loop),
		cmocka_unit_test(test_imbalance_counts_lids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
