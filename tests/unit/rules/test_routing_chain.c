// SPDX-License-Identifier: MIT
/*
 * routing.unreachable's too_long on a chain of switches (s001 ... sNNN,
 * port 1 to the one before, port 2 to the one after), a host at each end
 * (h1 on s001, h2 on the last, port 3), routed min-hop: a route of 64 links
 * arrives; one of 65 breaks at the switch 64 links from its destination,
 * each way, and a trace of the path (fab_route_trace, `fabsweep route`)
 * names the same place.
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
#include "unit/snapfix.h"

static struct fab_snapshot *chain(unsigned n)
{
	struct fab_snapshot *s = fab_snapshot_new();
	char name[16];

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "s%03u", i + 1);
		snapfix_node(s, FAB_NODE_SWITCH, 0x100 + i, name, 3);
	}
	for (unsigned i = 0; i + 1 < n; i++)
		snapfix_link(s, i, 2, i + 1, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	uint32_t h1 = snapfix_node(s, FAB_NODE_CA, 0x10000, "h1", 1);
	uint32_t h2 = snapfix_node(s, FAB_NODE_CA, 0x20000, "h2", 1);
	snapfix_link(s, h1, 1, 0, 3, FAB_WIDTH_4X, FAB_SPEED_HDR);
	snapfix_link(s, h2, 1, n - 1, 3, FAB_WIDTH_4X, FAB_SPEED_HDR);
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_int_equal(fabfix_route_minhop(s), 0);
	return s;
}

static uint32_t host_port(const struct fab_snapshot *s, const char *desc)
{
	for (uint32_t i = 0; i < s->n_nodes; i++)
		if (!strcmp(s->nodes[i].desc, desc))
			return (uint32_t)(fab_snapshot_port(s, i, 1) - s->ports);
	fail_msg("no node %s", desc);
	return FAB_NONE;
}

/* The trace from host a to host b has fault and links, and breaks at
 * "node/port" at (when it breaks). */
static void expect_trace(const struct fab_snapshot *s, const char *a, const char *b, uint8_t fault,
			 size_t links, const char *at)
{
	struct fab_route_index ix;
	struct fab_route_path p;
	uint32_t dst = host_port(s, b);
	char where[300];

	assert_int_equal(fab_route_index_build(s, &ix), 0);
	assert_int_equal(fab_route_trace(&ix, host_port(s, a), s->ports[dst].lid, &p), 0);
	fab_route_index_free(&ix);
	assert_int_equal(p.fault, fault);
	assert_int_equal(p.n_hops, links);
	if (!at)
		return;
	assert_int_not_equal(p.at, FAB_NONE);
	snprintf(where, sizeof(where), "%s/%u", s->nodes[s->ports[p.at].node_idx].desc,
		 s->ports[p.at].port_num);
	assert_string_equal(where, at);
}

static void run(struct fab_snapshot *s)
{
	struct fab_rules_result res;

	if (fab_rules_run(NULL, s, NULL, 0, &res))
		fail_msg("%s", fab_errmsg());
}

/* 63 switches: h1 -> h2 is 64 links, the most a route may have */
static void test_64_links_arrive(void **state)
{
	struct fab_snapshot *s = chain(63);

	(void)state;
	expect_trace(s, "h1", "h2", FAB_ROUTE_OK, 64, NULL);
	expect_trace(s, "h2", "h1", FAB_ROUTE_OK, 64, NULL);
	run(s);
	assert_int_equal(fabfix_count_findings(s, "routing.unreachable"), 0);
	assert_int_equal(fabfix_count_findings(s, "routing.credit_loop"), 0);
	fab_snapshot_free(s);
}

/* 64 switches: 65 links; each way the route is named at the first switch
 * (64 links from the destination), by the port it leaves by */
static void test_65_links_too_long(void **state)
{
	struct fab_snapshot *s = chain(64);

	(void)state;
	/* the source's link and the 64 from the first switch */
	expect_trace(s, "h1", "h2", FAB_ROUTE_TOO_LONG, 65, "s001/2");
	expect_trace(s, "h2", "h1", FAB_ROUTE_TOO_LONG, 65, "s064/1");
	run(s);
	assert_int_equal(fabfix_count_findings(s, "routing.unreachable"), 2);
	const char *want[][2] = {
		{ "s001/2 <-> s002/1", "cause=too_long; destinations=1; pairs=1; e.g. h1 -> h2 (LID 66)" },
		{ "s064/1 <-> s063/2", "cause=too_long; destinations=1; pairs=1; e.g. h2 -> h1 (LID 65)" },
	};
	size_t k = 0;
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *f = &s->findings[i];
		if (strcmp(f->rule_id, "routing.unreachable"))
			continue;
		assert_true(k < 2);
		assert_string_equal(f->subject, want[k][0]);
		assert_string_equal(f->evidence, want[k][1]);
		assert_string_equal(f->message, "the route to 1 destination starts a path longer than 64 hops: "
						 "1 source/destination pair cannot reach them");
		k++;
	}
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_64_links_arrive),
		cmocka_unit_test(test_65_links_too_long),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
