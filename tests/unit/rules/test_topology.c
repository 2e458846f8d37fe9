// SPDX-License-Identifier: MIT
/*
 * topology.asymmetric on hand-built fabrics: groups of switches cabled alike,
 * parts built differently by design, damaged members, the MF0 name hint.
 * The fabric: two pods under four cores.
 *
 *   pod A: spines a1..a4, leaves LA1..LA4, two links from every leaf to every
 *          spine (8 uplinks a leaf, 8 leaf links a spine);
 *   pod B: spines b1..b4, leaves LB1..LB3, one link from every leaf to every
 *          spine (built smaller and thinner: 4 uplinks, 3 leaf links);
 *   cores c1..c4: one link to every spine (8 spine links a core, 4 core
 *          links a spine); two hosts on every leaf.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "unit/snapfix.h"

#define NPORTS 64

struct fab {
	struct fab_snapshot *s;
	unsigned next[128]; /* per node: next free port */
	uint32_t a[4], b[4], c[4], la[4], lb[3];
	uint64_t guid;
};

static uint32_t fab_switch(struct fab *f, const char *name)
{
	uint32_t i = snapfix_node(f->s, FAB_NODE_SWITCH, ++f->guid << 8, name, NPORTS);

	f->next[i] = 1;
	return i;
}

/* n cables between switches x and y, on their next free ports. */
static void cable(struct fab *f, uint32_t x, uint32_t y, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		snapfix_link(f->s, x, f->next[x]++, y, f->next[y]++, FAB_WIDTH_4X, FAB_SPEED_HDR);
}

static void hosts(struct fab *f, uint32_t leaf, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		char name[32];
		snprintf(name, sizeof(name), "host%llu HCA-1", (unsigned long long)f->guid);
		uint32_t h = snapfix_node(f->s, FAB_NODE_CA, ++f->guid << 8, name, 1);
		snapfix_link(f->s, leaf, f->next[leaf]++, h, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	}
}

/* The fabric above; mf0: leaves of pod A named "MF0;LA01-0N:MQM8700/U1". */
static void build(struct fab *f, bool mf0)
{
	char name[64];

	memset(f, 0, sizeof(*f));
	f->s = fab_snapshot_new();
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "a%u", i + 1);
		f->a[i] = fab_switch(f, name);
		snprintf(name, sizeof(name), "b%u", i + 1);
		f->b[i] = fab_switch(f, name);
		snprintf(name, sizeof(name), "c%u", i + 1);
		f->c[i] = fab_switch(f, name);
		if (mf0)
			snprintf(name, sizeof(name), "MF0;LA01-0%u:MQM8700/U1", i + 1);
		else
			snprintf(name, sizeof(name), "LA%u", i + 1);
		f->la[i] = fab_switch(f, name);
		hosts(f, f->la[i], 2);
	}
	for (unsigned i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "LB%u", i + 1);
		f->lb[i] = fab_switch(f, name);
		hosts(f, f->lb[i], 2);
	}
}

/* Cables the pods and cores; cut(leaf, spine) says how many of the
 * cables between them to leave out (cut may be NULL). */
static void wire(struct fab *f, unsigned (*cut)(const struct fab *, uint32_t, uint32_t))
{
	for (unsigned s = 0; s < 4; s++) {
		for (unsigned l = 0; l < 4; l++)
			cable(f, f->la[l], f->a[s], 2 - (cut ? cut(f, f->la[l], f->a[s]) : 0));
		for (unsigned l = 0; l < 3; l++)
			cable(f, f->lb[l], f->b[s], 1);
		for (unsigned c = 0; c < 4; c++) {
			cable(f, f->a[s], f->c[c], 1);
			cable(f, f->b[s], f->c[c], 1);
		}
	}
}

static void run(struct fab *f)
{
	struct fab_rules_result res;

	fab_snapshot_build_links(f->s);
	fab_snapshot_index(f->s);
	fab_topology_assign_roles(f->s);
	assert_int_equal(fab_rules_run(NULL, f->s, NULL, 0, &res), 0);
}

static size_t count(const struct fab *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->s->n_findings; i++)
		n += !strcmp(f->s->findings[i].rule_id, "topology.asymmetric");
	return n;
}

/* The message of the finding about node i (the test fails without one). */
static const char *finding(const struct fab *f, uint32_t i)
{
	char g[FAB_GUID_STRLEN];

	fab_guid_format(f->s->nodes[i].guid, g);
	for (size_t k = 0; k < f->s->n_findings; k++)
		if (!strcmp(f->s->findings[k].rule_id, "topology.asymmetric") &&
		    !strcmp(f->s->findings[k].node, g))
			return f->s->findings[k].message;
	fail_msg("no finding about %s", f->s->nodes[i].desc);
	return NULL;
}

static void dump(const struct fab *f)
{
	for (size_t k = 0; k < f->s->n_findings; k++)
		print_message("  %s %s: %s\n", f->s->findings[k].rule_id, f->s->findings[k].subject,
			      f->s->findings[k].message);
}

/* Pod B is built smaller and thinner than pod A: every part is cabled
 * alike inside, nothing to report (one majority per role reported all of
 * pod B's leaves and spines). */
static void test_parts_built_differently(void **state)
{
	struct fab f;

	build(&f, false);
	wire(&f, NULL);
	run(&f);
	dump(&f);
	assert_int_equal(count(&f), 0);
	fab_snapshot_free(f.s);
}

static unsigned one_out(const struct fab *f, uint32_t leaf, uint32_t spine)
{
	return leaf == f->la[1] && spine == f->a[2];
}

/* One of the two cables LA2 - a3 is out: LA2 and a3 are found, each
 * naming the other; nothing else. */
static void test_missing_cable(void **state)
{
	struct fab f;

	build(&f, false);
	wire(&f, one_out);
	run(&f);
	dump(&f);
	assert_int_equal(count(&f), 2);
	assert_string_equal(finding(&f, f.la[1]),
			    "leaf 7 links to spines where most of its group of 4 leaves have 8; "
			    "1 link to a3 where they have 2");
	assert_string_equal(finding(&f, f.a[2]),
			    "spine 7 links to leaves where most of its group of 4 spines have 8; "
			    "1 link to LA2 where they have 2");
	fab_snapshot_free(f.s);
}

/* A management leaf with one host on two links to a1: alone in its group,
 * it counts in no pattern (a1 keeps 8 leaf links in the pattern). */
static void test_management_leaf(void **state)
{
	struct fab f;

	build(&f, false);
	uint32_t m = fab_switch(&f, "mgmt-leaf");
	hosts(&f, m, 1);
	wire(&f, NULL);
	cable(&f, m, f.a[0], 2);
	run(&f);
	dump(&f);
	assert_int_equal(count(&f), 0);
	fab_snapshot_free(f.s);
}

static unsigned most_out(const struct fab *f, uint32_t leaf, uint32_t spine)
{
	if (leaf != f->la[2])
		return 0;
	return spine == f->a[0] || spine == f->a[1] ? 2 : spine == f->a[2] ? 1 : 0;
}

/* LA3 keeps 3 of its 8 uplinks: less than half of its pod's, another
 * design for the structure. Named like its pod (MF0 system names that differ
 * in numbers only) it is a damaged member and found; with plain names it is
 * left alone. The spines have no majority either way (6, 6, 7, 8 leaf links). */
static void test_name_hint(void **state)
{
	struct fab f;

	build(&f, true);
	wire(&f, most_out);
	run(&f);
	dump(&f);
	assert_int_equal(count(&f), 1);
	assert_string_equal(finding(&f, f.la[2]),
			    "leaf 3 links to spines where most of its group of 4 leaves have 8; "
			    "0 links to a1 where they have 2; 0 links to a2 where they have 2; "
			    "1 link to a3 where they have 2");
	fab_snapshot_free(f.s);

	build(&f, false);
	wire(&f, most_out);
	run(&f);
	dump(&f);
	assert_int_equal(count(&f), 0);
	fab_snapshot_free(f.s);
}

static unsigned thin(const struct fab *f, uint32_t leaf, uint32_t spine)
{
	(void)spine;
	return leaf == f->la[3];
}

/* LA4 has one link to each spine where its pod has two: the same
 * neighbours, uniformly thinner, half of the pod's links: a damaged member
 * (at least half), found. */
static void test_thinner_leaf_at_half(void **state)
{
	struct fab f;

	build(&f, false);
	wire(&f, thin);
	run(&f);
	dump(&f);
	assert_string_equal(finding(&f, f.la[3]),
			    "leaf 4 links to spines where most of its group of 4 leaves have 8; "
			    "1 link to a1 where they have 2; 1 link to a2 where they have 2; "
			    "1 link to a3 where they have 2; 1 link to a4 where they have 2");
	fab_snapshot_free(f.s);
}

/* The only spine of a small fabric is alone in its group, yet every leaf
 * reaches it: the leaves' cables to it are their pattern. */
static void test_lone_spine(void **state)
{
	struct fab f;
	char name[16];

	memset(&f, 0, sizeof(f));
	f.s = fab_snapshot_new();
	uint32_t sp = fab_switch(&f, "spine"), l = 0;
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "leaf%u", i + 1);
		l = fab_switch(&f, name);
		hosts(&f, l, 2);
		cable(&f, l, sp, i == 3 ? 2 : 3);
	}
	run(&f);
	dump(&f);
	assert_int_equal(count(&f), 1);
	assert_string_equal(finding(&f, l), /* the fourth leaf */
			    "leaf 2 links to spines where most of its group of 4 leaves have 3; "
			    "2 links to spine where they have 3");
	fab_snapshot_free(f.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_built_differently),
		cmocka_unit_test(test_missing_cable),
		cmocka_unit_test(test_management_leaf),
		cmocka_unit_test(test_name_hint),
		cmocka_unit_test(test_thinner_leaf_at_half),
		cmocka_unit_test(test_lone_spine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
