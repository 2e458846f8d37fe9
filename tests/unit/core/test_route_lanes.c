// SPDX-License-Identifier: MIT
/*
 * Credit loops per virtual lane (core/route_lanes.c): a ring of five
 * switches routed min-hop has a cycle each way round on one lane; which
 * SL2VL tables that needs, and what a dateline (a lane change on one
 * switch) does to the cycles, per service level. Also the LID order the
 * per-destination passes walk the ends in (fab_route_ends_by_lid).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabsweep/routing.h"
#include "unit/snapfix.h"

#define N_RING 5

/* r1..rn (nodes 0..n-1, n_ports each): port 1 a host, port next the next
 * switch, port prev the previous one; h1..hn (nodes n..2n-1). Routed
 * min-hop. */
static struct fab_snapshot *ring_of(unsigned n, unsigned n_ports, unsigned next, unsigned prev)
{
	struct fab_snapshot *s = fab_snapshot_new();
	char name[16];

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "r%u", i + 1);
		snapfix_node(s, FAB_NODE_SWITCH, 0x100 + i, name, n_ports);
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "h%u", i + 1);
		uint32_t h = snapfix_node(s, FAB_NODE_CA, 0x1000 + 16 * i, name, 1);
		snapfix_link(s, i, 1, h, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
	}
	for (unsigned i = 0; i < n; i++)
		snapfix_link(s, i, next, (i + 1) % n, prev, FAB_WIDTH_4X, FAB_SPEED_HDR);
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_int_equal(fabfix_route_minhop(s), 0);
	return s;
}

/* Five switches, port 2 the next switch, port 3 the previous one, 8 ports. */
static struct fab_snapshot *ring(void)
{
	return ring_of(N_RING, 8, 2, 3);
}

/* Every table the analysis wants, all SLs on VL vl. */
static size_t add_wanted(struct fab_snapshot *s, uint8_t vl)
{
	struct fab_route_index ix;
	struct fab_sl2vl_want *w;
	size_t n;

	assert_int_equal(fab_route_index_build(s, &ix), 0);
	assert_int_equal(fab_sl2vl_wanted(&ix, SIZE_MAX, &w, &n), 0);
	if (n) { /* over max: counted, not listed */
		struct fab_sl2vl_want *none = (void *)1;
		size_t count = 0;
		assert_int_equal(fab_sl2vl_wanted(&ix, n - 1, &none, &count), 0);
		assert_null(none);
		assert_int_equal(count, n);
		assert_int_equal(fab_sl2vl_wanted(&ix, n, &none, &count), 0);
		assert_non_null(none);
		assert_int_equal(count, n);
		free(none);
	}
	for (size_t i = 0; i < n; i++) {
		struct fab_sl2vl *t = fab_routing_add_sl2vl(s->routing);
		assert_non_null(t);
		*t = (struct fab_sl2vl){ .node_idx = w[i].node_idx, .in = w[i].in, .out = w[i].out };
		memset(t->vl, vl, sizeof(t->vl));
	}
	fab_routing_sort_sl2vl(s->routing);
	free(w);
	fab_route_index_free(&ix);
	return n;
}

/* Sets SL sl of (switch, in, out) to vl. */
static void set_vl(struct fab_snapshot *s, uint32_t sw, unsigned in, unsigned out, unsigned sl,
		   uint8_t vl)
{
	struct fab_sl2vl *t = (struct fab_sl2vl *)fab_routing_sl2vl(s->routing, sw, in, out);

	assert_non_null(t);
	t->vl[sl] = vl;
}

static struct fab_cdg lanes(const struct fab_snapshot *s, uint16_t sls)
{
	struct fab_route_index ix;
	struct fab_cdg g;

	assert_int_equal(fab_route_index_build(s, &ix), 0);
	assert_int_equal(fab_cdg_find_lanes(&ix, sls, &g), 0);
	fab_route_index_free(&ix);
	return g;
}

static void test_wanted(void **state)
{
	struct fab_snapshot *s = ring(), *tree = snapfix_fat_tree(2, 4, 3);
	struct fab_route_index ix;
	struct fab_sl2vl_want *w;
	size_t n;

	(void)state;
	assert_int_equal(fab_route_index_build(s, &ix), 0);
	assert_int_equal(fab_sl2vl_wanted(&ix, SIZE_MAX, &w, &n), 0);
	/* per switch: (from the previous switch, to the next), (its host, to
	 * the next), and the same the other way round */
	assert_int_equal(n, 4 * N_RING);
	for (size_t i = 0; i < n; i++) {
		unsigned k = i % 4;
		static const uint8_t in[4] = { 1, 1, 2, 3 }, out[4] = { 2, 3, 3, 2 };
		assert_int_equal(w[i].node_idx, i / 4);
		assert_int_equal(w[i].in, in[k]);
		assert_int_equal(w[i].out, out[k]);
	}
	free(w);
	fab_route_index_free(&ix);

	/* a healthy fat tree: no cycle, no table */
	assert_int_equal(fab_snapshot_index(tree), 0);
	assert_int_equal(fabfix_route_minhop(tree), 0);
	assert_int_equal(fab_route_index_build(tree, &ix), 0);
	assert_int_equal(fab_sl2vl_wanted(&ix, SIZE_MAX, &w, &n), 0);
	assert_int_equal(n, 0);
	assert_null(w);
	fab_route_index_free(&ix);
	fab_snapshot_free(tree);
	fab_snapshot_free(s);
}

/* The ends in the order of their LIDs, not of their ports. */
static void test_ends_by_lid(void **state)
{
	struct fab_snapshot *s = ring();
	struct fab_route_index ix;
	uint32_t *ends;

	(void)state;
	/* h1..h5 (nodes 5..9) get LIDs 50, 40, 30, 20, 10: port order reversed */
	for (unsigned i = 0; i < N_RING; i++) {
		const struct fab_port *p = fab_snapshot_port(s, N_RING + i, 1);
		assert_non_null(p);
		s->ports[p - s->ports].lid = (uint16_t)(50 - 10 * i);
	}
	assert_int_equal(fab_route_index_build(s, &ix), 0);
	assert_int_equal(ix.n_ends, N_RING);
	ends = fab_route_ends_by_lid(&ix);
	assert_non_null(ends);
	for (unsigned i = 0; i < N_RING; i++) {
		assert_int_equal(s->ports[ends[i]].lid, 10 + 10 * i);
		assert_int_equal(s->ports[ends[i]].node_idx, 2 * N_RING - 1 - i);
	}
	free(ends);
	fab_route_index_free(&ix);
	fab_snapshot_free(s);
}

static void test_one_lane_without_tables(void **state)
{
	struct fab_snapshot *s = ring();
	struct fab_cdg g = lanes(s, 0x7fff);

	(void)state;
	assert_int_equal(g.n_cycles, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(g.cycles[i].n_chan, N_RING);
		assert_int_equal(g.cycles[i].lanes, FAB_CDG_ONE_LANE);
		assert_int_equal(g.cycles[i].lanes_missing, 2 * N_RING);
		assert_null(g.cycles[i].vl);
	}
	fab_cdg_free(&g);
	fab_snapshot_free(s);
}

static void test_default_tables_keep_the_loops(void **state)
{
	struct fab_snapshot *s = ring();

	(void)state;
	add_wanted(s, 0);
	struct fab_cdg g = lanes(s, 0x7fff);
	assert_int_equal(g.n_cycles, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct fab_cdg_cycle *c = &g.cycles[i];
		assert_int_equal(c->lanes, FAB_CDG_LANES);
		assert_int_equal(c->n_chan, N_RING);
		assert_int_equal(c->scc_size, N_RING);
		for (size_t k = 0; k < c->n_chan; k++) {
			assert_int_equal(c->vl[k], 0);
			assert_int_equal(c->sl[k], 0); /* all SLs alike: the first stands for them */
		}
	}
	/* clockwise: leaves each switch by port 2 */
	assert_int_equal(s->ports[g.cycles[0].chan[0]].port_num, 2);
	assert_int_equal(s->nodes[s->ports[g.cycles[0].chan[0]].node_idx].guid, 0x100);
	fab_cdg_free(&g);
	fab_snapshot_free(s);
}

/* The same loops however wide the switches and wherever their ring ports:
 * the triples of a channel's in-port are read a word of bits at a time,
 * and these rows start anywhere in a word (and past 64 columns, take two).
 * Seven switches (routes of three hops: some enter a switch from the ring
 * and leave its next one by the ring); traffic going round moves to VL 1
 * (the hosts' stays on VL 0): the loops are on VL 1, through the rows of
 * the ring's in-ports only. */
static void test_wide_switches(void **state)
{
	(void)state;
	for (unsigned w = 4; w <= 80; w++) {
		struct fab_snapshot *s = ring_of(7, w, w - 1, w);

		add_wanted(s, 0);
		for (unsigned i = 0; i < 7; i++)
			for (unsigned sl = 0; sl < FAB_N_SL; sl++) {
				set_vl(s, i, w, w - 1, sl, 1);
				set_vl(s, i, w - 1, w, sl, 1);
			}
		struct fab_cdg g = lanes(s, 0x7fff);
		assert_int_equal(g.n_cycles, 2);
		for (size_t i = 0; i < 2; i++) {
			assert_int_equal(g.cycles[i].lanes, FAB_CDG_LANES);
			assert_int_equal(g.cycles[i].n_chan, 7);
			for (size_t k = 0; k < 7; k++)
				assert_int_equal(g.cycles[i].vl[k], 1);
		}
		fab_cdg_free(&g);
		fab_snapshot_free(s);
	}
}

/* ibsim's default tables: SL s on VL s. Each SL loops on its own lane:
 * one finding per one-lane set still, its lanes summed up. */
static void test_each_sl_its_lane(void **state)
{
	struct fab_snapshot *s = ring();

	(void)state;
	add_wanted(s, 0);
	for (size_t i = 0; i < s->routing->n_sl2vl; i++)
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			s->routing->sl2vl[i].vl[sl] = (uint8_t)(sl < 15 ? sl : 7);
	struct fab_cdg g = lanes(s, 0x7fff);
	assert_int_equal(g.n_cycles, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(g.cycles[i].vl_mask, 0x7fff);
		assert_int_equal(g.cycles[i].vl[0], 0); /* the lowest lane's */
		assert_int_equal(g.cycles[i].scc_size, N_RING);
	}
	fab_cdg_free(&g);
	g = lanes(s, 1u << 3 | 1u << 9);
	assert_int_equal(g.n_cycles, 2);
	assert_int_equal(g.cycles[0].vl_mask, 1u << 3 | 1u << 9);
	assert_int_equal(g.cycles[0].sl[0], 3);
	fab_cdg_free(&g);
	fab_snapshot_free(s);
}

/* Traffic crossing r1 from one neighbour to the other moves to VL 1: a
 * dateline. Each route is two ring links at most, so a route that moved to
 * VL 1 never comes round again: no cycle, although a graph that merged the
 * lanes of a channel over all routes would have one. */
static void test_dateline(void **state)
{
	struct fab_snapshot *s = ring();

	(void)state;
	add_wanted(s, 0);
	for (unsigned sl = 0; sl < FAB_N_SL; sl++) {
		set_vl(s, 0, 3, 2, sl, 1);
		set_vl(s, 0, 2, 3, sl, 1);
	}
	struct fab_cdg g = lanes(s, 0x7fff);
	assert_int_equal(g.n_cycles, 0);
	fab_cdg_free(&g);

	/* one way round only: the other loop stays, on VL 0 */
	for (unsigned sl = 0; sl < FAB_N_SL; sl++)
		set_vl(s, 0, 2, 3, sl, 0);
	g = lanes(s, 0x7fff);
	assert_int_equal(g.n_cycles, 1);
	assert_int_equal(s->ports[g.cycles[0].chan[0]].port_num, 3);
	fab_cdg_free(&g);
	fab_snapshot_free(s);
}

/* The dateline for SL 0 only: SL 1 stays on VL 0 everywhere. Judged for
 * SL 0 alone there is no loop; SL 1's traffic shares VL 0 and loops. */
static void test_service_levels(void **state)
{
	struct fab_snapshot *s = ring();

	(void)state;
	add_wanted(s, 0);
	set_vl(s, 0, 3, 2, 0, 1);
	set_vl(s, 0, 2, 3, 0, 1);
	struct fab_cdg g = lanes(s, 1u << 0);
	assert_int_equal(g.n_cycles, 0);
	fab_cdg_free(&g);
	g = lanes(s, 1u << 0 | 1u << 1);
	assert_int_equal(g.n_cycles, 2);
	/* on VL 0; the dependency across r1 only SL 1 adds (SL 0's moves to
	 * VL 1 there); the others both add, and the lower SL names them */
	unsigned n_sl1 = 0;
	for (size_t k = 0; k < g.cycles[0].n_chan; k++) {
		assert_int_equal(g.cycles[0].vl[k], 0);
		n_sl1 += g.cycles[0].sl[k] == 1;
	}
	assert_int_equal(n_sl1, 1);
	fab_cdg_free(&g);
	/* SL 1 dropped (VL 15) where it would cross r1: no loop of its own */
	set_vl(s, 0, 3, 2, 1, FAB_VL_DROP);
	set_vl(s, 0, 2, 3, 1, FAB_VL_DROP);
	g = lanes(s, 1u << 0 | 1u << 1);
	assert_int_equal(g.n_cycles, 0);
	fab_cdg_free(&g);
	fab_snapshot_free(s);
}

/* A table of one loop's set not read: that set stays judged on one lane
 * (its loop reported, saying so); the other set is judged by lane. */
static void test_a_table_missing(void **state)
{
	struct fab_snapshot *s = ring();
	struct fab_routing *r;

	(void)state;
	add_wanted(s, 0);
	for (unsigned sl = 0; sl < FAB_N_SL; sl++) {
		set_vl(s, 0, 3, 2, sl, 1);
		set_vl(s, 0, 2, 3, sl, 1);
	}
	/* drop (r3, in 3, out 2): clockwise */
	r = s->routing;
	const struct fab_sl2vl *t = fab_routing_sl2vl(r, 2, 3, 2);
	assert_non_null(t);
	size_t i = (size_t)(t - r->sl2vl);
	memmove(&r->sl2vl[i], &r->sl2vl[i + 1], (r->n_sl2vl - i - 1) * sizeof(*r->sl2vl));
	r->n_sl2vl--;
	struct fab_cdg g = lanes(s, 0x7fff);
	assert_int_equal(g.n_cycles, 1);
	assert_int_equal(g.cycles[0].lanes, FAB_CDG_ONE_LANE);
	assert_int_equal(g.cycles[0].lanes_missing, 1);
	assert_int_equal(s->ports[g.cycles[0].chan[0]].port_num, 2);
	fab_cdg_free(&g);
	fab_snapshot_free(s);
}

/* Every table alike but one missing: its loop stays on one lane (the
 * table counted missing), the other is judged by lane. */
static void test_alike_a_table_missing(void **state)
{
	struct fab_snapshot *s = ring();
	struct fab_routing *r;

	(void)state;
	add_wanted(s, 0);
	r = s->routing;
	const struct fab_sl2vl *t = fab_routing_sl2vl(r, 2, 3, 2); /* clockwise */
	assert_non_null(t);
	size_t i = (size_t)(t - r->sl2vl);
	memmove(&r->sl2vl[i], &r->sl2vl[i + 1], (r->n_sl2vl - i - 1) * sizeof(*r->sl2vl));
	r->n_sl2vl--;
	struct fab_cdg g = lanes(s, 0x7fff);
	assert_int_equal(g.n_cycles, 2);
	unsigned one = g.cycles[0].lanes == FAB_CDG_ONE_LANE ? 0 : 1;
	assert_int_equal(g.cycles[one].lanes, FAB_CDG_ONE_LANE);
	assert_int_equal(g.cycles[one].lanes_missing, 1);
	assert_int_equal(s->ports[g.cycles[one].chan[0]].port_num, 2);
	assert_int_equal(g.cycles[1 - one].lanes, FAB_CDG_LANES);
	assert_int_equal(g.cycles[1 - one].vl_mask, 1);
	fab_cdg_free(&g);
	fab_snapshot_free(s);
}

/* Gives every table SL s -> vl[s] (the VL numbers shifted by shift, mod 8
 * below 8: the same SLs share a lane). */
static void map_all(struct fab_snapshot *s, const uint8_t *vl, unsigned shift)
{
	for (size_t i = 0; i < s->routing->n_sl2vl; i++)
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			s->routing->sl2vl[i].vl[sl] = vl[sl] < 8 ? (uint8_t)((vl[sl] + shift) % 8) : vl[sl];
}

/* Every table alike: the graph of one lane, its cycles copied to the others,
 * says what the graph of every lane says. The reference is the same fabric
 * with one table more (a pair no route takes) mapping the SLs to other lanes
 * alike (the same SLs share one): the whole graph is built then, and its
 * cycles must be the same, field by field. */
static void test_one_mapping(void **state)
{
	static const uint8_t vl[FAB_N_SL] = { 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 15, 15, 5, 15 };
	struct fab_snapshot *a = ring(), *b = ring();

	(void)state;
	add_wanted(a, 0);
	add_wanted(b, 0);
	map_all(a, vl, 0);
	struct fab_sl2vl *t = fab_routing_add_sl2vl(b->routing);
	assert_non_null(t);
	*t = (struct fab_sl2vl){ .node_idx = 0, .in = 7, .out = 6 };
	fab_routing_sort_sl2vl(b->routing);
	map_all(b, vl, 0);
	t = (struct fab_sl2vl *)fab_routing_sl2vl(b->routing, 0, 7, 6);
	for (unsigned sl = 0; sl < FAB_N_SL; sl++)
		t->vl[sl] = vl[sl] < 8 ? (uint8_t)((vl[sl] + 3) % 8) : vl[sl];

	for (unsigned pass = 0; pass < 2; pass++) {
		uint16_t sls = pass ? 0x0ff2 : 0x7fff;
		struct fab_cdg x = lanes(a, sls), y = lanes(b, sls);

		assert_int_equal(x.n_cycles, y.n_cycles);
		assert_int_equal(x.n_cycles, 2);
		for (size_t i = 0; i < x.n_cycles; i++) {
			const struct fab_cdg_cycle *c = &x.cycles[i], *d = &y.cycles[i];
			assert_int_equal(c->lanes, FAB_CDG_LANES);
			assert_int_equal(c->lanes, d->lanes);
			assert_int_equal(c->n_chan, d->n_chan);
			assert_int_equal(c->scc_size, d->scc_size);
			assert_int_equal(c->scc_deps, d->scc_deps);
			assert_int_equal(c->dlid, d->dlid);
			assert_int_equal(c->vl_mask, d->vl_mask);
			assert_memory_equal(c->chan, d->chan, c->n_chan * sizeof(*c->chan));
			assert_memory_equal(c->vl, d->vl, c->n_chan);
			assert_memory_equal(c->sl, d->sl, c->n_chan);
		}
		/* SLs 0-11 and 14 on lanes 0-7 (all of them: 0xff); SLs 1, 4-11 on 0-7 too */
		assert_int_equal(x.cycles[0].vl_mask, 0xff);
		fab_cdg_free(&x);
		fab_cdg_free(&y);
	}
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wanted),
		cmocka_unit_test(test_ends_by_lid),
		cmocka_unit_test(test_one_lane_without_tables),
		cmocka_unit_test(test_default_tables_keep_the_loops),
		cmocka_unit_test(test_wide_switches),
		cmocka_unit_test(test_each_sl_its_lane),
		cmocka_unit_test(test_dateline),
		cmocka_unit_test(test_service_levels),
		cmocka_unit_test(test_a_table_missing),
		cmocka_unit_test(test_one_mapping),
		cmocka_unit_test(test_alike_a_table_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
