// SPDX-License-Identifier: MIT
/*
 * The SL2VL tables of a routing part (core/routing.c): sorted (by the
 * general sort, or by node when each node's tables come in port order, as
 * the store loads them), repeats dropped with the first kept, and looked up
 * through the per-node, per-in-port index; every lookup compared with a
 * linear scan of the array. A table removed behind the index's back is not
 * found through it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fabsweep/routing.h"

#define N_NODES 24
#define N_PORTS 12

static uint32_t seed = 12345;

static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) % n;
}

/* Appends (node, in, out), its id in vl[0..1]. */
static void add(struct fab_routing *r, uint32_t node, unsigned in, unsigned out, unsigned id)
{
	struct fab_sl2vl *t = fab_routing_add_sl2vl(r);

	assert_non_null(t);
	memset(t, 0, sizeof(*t));
	t->node_idx = node;
	t->in = (uint8_t)in;
	t->out = (uint8_t)out;
	t->vl[0] = (uint8_t)(id & 255);
	t->vl[1] = (uint8_t)(id >> 8);
}

/* The table of (node, in, out) by a linear scan, NULL when none. */
static const struct fab_sl2vl *scan(const struct fab_routing *r, uint32_t node, unsigned in,
				    unsigned out)
{
	for (size_t i = 0; i < r->n_sl2vl; i++)
		if (r->sl2vl[i].node_idx == node && r->sl2vl[i].in == in && r->sl2vl[i].out == out)
			return &r->sl2vl[i];
	return NULL;
}

/* Every lookup, present or not (nodes and ports past the highest too),
 * finds what a scan finds. */
static void check_lookups(const struct fab_routing *r)
{
	for (uint32_t node = 0; node < N_NODES + 2; node++)
		for (unsigned in = 0; in < N_PORTS + 2; in++)
			for (unsigned out = 0; out < N_PORTS + 2; out++)
				assert_ptr_equal(fab_routing_sl2vl(r, node, in, out), scan(r, node, in, out));
}

static void check_sorted(const struct fab_routing *r)
{
	for (size_t i = 1; i < r->n_sl2vl; i++) {
		const struct fab_sl2vl *a = &r->sl2vl[i - 1], *b = &r->sl2vl[i];
		assert_true(a->node_idx < b->node_idx ||
			    (a->node_idx == b->node_idx &&
			     (a->in < b->in || (a->in == b->in && a->out < b->out))));
	}
}

/* Random tables in random order, repeats among them: the first of each
 * key (its id) is kept. */
static void test_any_order(void **state)
{
	struct fab_routing *r = fab_routing_new();
	static unsigned first[N_NODES][N_PORTS][N_PORTS];

	(void)state;
	memset(first, 0xff, sizeof(first));
	for (unsigned id = 0; id < 3000; id++) {
		uint32_t node = rnd(N_NODES);
		unsigned in = rnd(N_PORTS), out = rnd(N_PORTS);

		if (node % 5 == 3)
			continue; /* some nodes have none */
		add(r, node, in, out, id);
		if (first[node][in][out] == UINT32_MAX)
			first[node][in][out] = id;
	}
	fab_routing_sort_sl2vl(r);
	check_sorted(r);
	check_lookups(r);
	for (uint32_t node = 0; node < N_NODES; node++)
		for (unsigned in = 0; in < N_PORTS; in++)
			for (unsigned out = 0; out < N_PORTS; out++) {
				const struct fab_sl2vl *t = fab_routing_sl2vl(r, node, in, out);
				if (first[node][in][out] == UINT32_MAX) {
					assert_null(t);
					continue;
				}
				assert_non_null(t);
				assert_int_equal(t->vl[0] | t->vl[1] << 8, first[node][in][out]);
			}
	fab_routing_free(r);
}

/* Each node's tables in port order, the nodes not (the store's order):
 * sorted, every lookup right; then a table removed behind the index's
 * back (and the last one cut off) is not found, the others are. */
static void test_by_node(void **state)
{
	struct fab_routing *r = fab_routing_new();
	unsigned id = 0;

	(void)state;
	for (uint32_t k = 0; k < N_NODES; k++) {
		uint32_t node = (k * 7 + 5) % N_NODES;
		unsigned top = node % 4 == 1 ? N_PORTS : 1 + node % N_PORTS; /* highest in-port + 1 */

		if (node % 6 == 2)
			continue;
		for (unsigned in = 0; in < top; in++)
			for (unsigned out = 1; out < N_PORTS; out++)
				if (out != in && (in + out + node) % 3)
					add(r, node, in, out, id++);
	}
	fab_routing_sort_sl2vl(r);
	assert_int_equal(r->n_sl2vl, id);
	check_sorted(r);
	check_lookups(r);

	size_t i = r->n_sl2vl / 3;
	struct fab_sl2vl gone = r->sl2vl[i];
	memmove(&r->sl2vl[i], &r->sl2vl[i + 1], (r->n_sl2vl - i - 1) * sizeof(*r->sl2vl));
	r->n_sl2vl--;
	assert_null(fab_routing_sl2vl(r, gone.node_idx, gone.in, gone.out));
	check_lookups(r);
	r->n_sl2vl--;
	check_lookups(r);

	fab_routing_sort_sl2vl(r); /* indexed again */
	add(r, N_NODES + 1, 0, 1, id); /* appended: sorted again before it counts */
	fab_routing_sort_sl2vl(r);
	check_lookups(r);
	assert_non_null(fab_routing_sl2vl(r, N_NODES + 1, 0, 1));
	fab_routing_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_any_order),
		cmocka_unit_test(test_by_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
