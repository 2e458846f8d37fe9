// SPDX-License-Identifier: MIT
/*
 * The routing part of a snapshot (include/fabsweep/routing.h): one
 * SwitchInfo and linear forwarding table per switch, the tables in the
 * part's own arena.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "fabsweep/names.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

struct fab_routing *fab_routing_new(void)
{
	struct fab_routing *r = calloc(1, sizeof(*r));

	if (r && !(r->arena = fab_arena_new())) {
		free(r);
		return NULL;
	}
	return r;
}

void fab_routing_free(struct fab_routing *r)
{
	if (!r)
		return;
	free(r->lfts);
	free(r->sl2vl);
	free(r->sl2vl_node);
	free(r->sl2vl_row);
	fab_arena_free(r->arena);
	free(r);
}

struct fab_routing *fab_snapshot_routing(struct fab_snapshot *snap)
{
	if (!snap->routing)
		snap->routing = fab_routing_new();
	return snap->routing;
}

struct fab_lft *fab_routing_add(struct fab_routing *r)
{
	if (r->n_lfts == r->cap_lfts) {
		size_t cap = r->cap_lfts ? r->cap_lfts * 2 : 64;
		struct fab_lft *p = realloc(r->lfts, cap * sizeof(*p));

		if (!p)
			return NULL;
		r->lfts = p;
		r->cap_lfts = cap;
	}
	struct fab_lft *l = &r->lfts[r->n_lfts++];
	memset(l, 0, sizeof(*l));
	return l;
}

struct fab_sl2vl *fab_routing_add_sl2vl(struct fab_routing *r)
{
	r->n_sl2vl_node = 0; /* the per-node index no longer holds */
	return fab_array_grow((void **)&r->sl2vl, &r->n_sl2vl, &r->cap_sl2vl, sizeof(*r->sl2vl));
}

static uint64_t sl2vl_key(uint32_t node, unsigned in, unsigned out)
{
	return (uint64_t)node << 16 | in << 8 | out;
}

static uint64_t table_key(const struct fab_sl2vl *t)
{
	return sl2vl_key(t->node_idx, t->in, t->out);
}

static int cmp_sl2vl(const void *a, const void *b)
{
	uint64_t kx = table_key(a), ky = table_key(b);

	return kx < ky ? -1 : kx > ky;
}

/* Indexes the sorted r->sl2vl by node and in-port (the rows): node n's
 * rows are sl2vl_row[sl2vl_node[n] .. sl2vl_node[n + 1]), one per in-port
 * up to its highest and one more (the end of its tables); row k's tables
 * are sl2vl[sl2vl_row[k] .. sl2vl_row[k + 1]). O(tables + rows). Left out
 * (n_sl2vl_node 0) on ENOMEM or past 2^32 tables: lookups then search the
 * whole array. */
static void index_sl2vl(struct fab_routing *r)
{
	size_t n = r->n_sl2vl, n_nodes = n ? r->sl2vl[n - 1].node_idx + 1u : 0, rows = 0;
	uint32_t *node, *row;

	r->n_sl2vl_node = 0;
	if (!n_nodes || n > UINT32_MAX)
		return;
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || r->sl2vl[i + 1].node_idx != r->sl2vl[i].node_idx)
			rows += r->sl2vl[i].in + 2u; /* the node's last table: its highest in-port */
	if (!(node = realloc(r->sl2vl_node, (n_nodes + 1) * sizeof(*node))))
		return;
	r->sl2vl_node = node;
	if (!(row = realloc(r->sl2vl_row, rows * sizeof(*row))))
		return;
	r->sl2vl_row = row;
	size_t k = 0, i = 0;
	for (size_t v = 0; v < n_nodes; v++) {
		size_t j = i; /* node v's tables: [i, j) */

		node[v] = (uint32_t)k;
		while (j < n && r->sl2vl[j].node_idx == v)
			j++;
		if (j == i)
			continue; /* none: no row */
		for (unsigned in = 0, top = r->sl2vl[j - 1].in; in <= top + 1u; in++) {
			while (i < j && r->sl2vl[i].in < in)
				i++;
			row[k++] = (uint32_t)i; /* in = top + 1: j, the end */
		}
		i = j;
	}
	node[n_nodes] = (uint32_t)k;
	r->n_sl2vl_node = n_nodes + 1;
	r->sl2vl_indexed = n;
}

/* Orders r->sl2vl by node, keeping the order within each node (a counting
 * sort: O(tables + nodes)). Left as it was on ENOMEM. */
static void order_by_node(struct fab_routing *r)
{
	size_t n_nodes = 0;

	for (size_t i = 0; i < r->n_sl2vl; i++)
		if (r->sl2vl[i].node_idx + 1u > n_nodes)
			n_nodes = r->sl2vl[i].node_idx + 1u;
	size_t *at = calloc(n_nodes + 1, sizeof(*at));
	struct fab_sl2vl *v = malloc(r->cap_sl2vl * sizeof(*v));
	if (!at || !v) {
		free(at);
		free(v);
		return;
	}
	for (size_t i = 0; i < r->n_sl2vl; i++)
		at[r->sl2vl[i].node_idx + 1]++;
	for (size_t n = 0; n < n_nodes; n++)
		at[n + 1] += at[n];
	for (size_t i = 0; i < r->n_sl2vl; i++)
		v[at[r->sl2vl[i].node_idx]++] = r->sl2vl[i];
	free(at);
	free(r->sl2vl);
	r->sl2vl = v;
}

/* The first i with sl2vl[i - 1] not below sl2vl[i] (n_sl2vl: none). */
static size_t sorted_to(const struct fab_routing *r)
{
	size_t i = 1;

	while (i < r->n_sl2vl && table_key(&r->sl2vl[i - 1]) < table_key(&r->sl2vl[i]))
		i++;
	return i;
}

void fab_routing_sort_sl2vl(struct fab_routing *r)
{
	size_t n = 0;

	/* The store loads each node's tables in (in, out) order but the
	 * nodes in GUID order: ordered by node they are sorted, and the
	 * general sort is skipped (on Selene's 711,000 tables it cost a
	 * tenth of `check`). */
	if (sorted_to(r) < r->n_sl2vl) {
		order_by_node(r); /* on ENOMEM the general sort does it all */
		if (sorted_to(r) < r->n_sl2vl)
			qsort(r->sl2vl, r->n_sl2vl, sizeof(*r->sl2vl), cmp_sl2vl);
	}
	for (size_t i = 0; i < r->n_sl2vl; i++)
		if (!n || cmp_sl2vl(&r->sl2vl[n - 1], &r->sl2vl[i]))
			r->sl2vl[n++] = r->sl2vl[i];
	r->n_sl2vl = n;
	index_sl2vl(r);
}

const struct fab_sl2vl *fab_routing_sl2vl(const struct fab_routing *r, uint32_t node_idx,
					  unsigned in, unsigned out)
{
	uint64_t k = sl2vl_key(node_idx, in, out);
	size_t lo = 0, hi = r ? r->n_sl2vl : 0;

	/* indexed: the tables of the node and in-port only (a few dozen, not
	 * a million) */
	if (r && r->n_sl2vl_node && r->n_sl2vl == r->sl2vl_indexed) {
		if (node_idx >= r->n_sl2vl_node - 1)
			return NULL;
		size_t b = r->sl2vl_node[node_idx], e = r->sl2vl_node[node_idx + 1];
		if (in + 1u >= e - b)
			return NULL; /* past its highest in-port (or it has none) */
		lo = r->sl2vl_row[b + in];
		hi = r->sl2vl_row[b + in + 1];
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t m = table_key(&r->sl2vl[mid]);

		if (m == k)
			return &r->sl2vl[mid];
		if (m < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint8_t *fab_routing_alloc(struct fab_routing *r, size_t n, uint8_t fill)
{
	uint8_t *p = fab_arena_alloc(r->arena, n ? n : 1);

	if (p)
		memset(p, fill, n);
	return p;
}

const struct fab_lft *fab_routing_lft(const struct fab_snapshot *snap, uint32_t node_idx)
{
	const struct fab_routing *r = snap->routing;
	size_t lo = 0, hi = r ? r->n_lfts : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->lfts[mid].node_idx < node_idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return r && lo < r->n_lfts && r->lfts[lo].node_idx == node_idx ? &r->lfts[lo] : NULL;
}

bool fab_routing_present(const struct fab_snapshot *snap)
{
	return snap->routing && snap->routing->n_lfts;
}

int fab_lft_entry(const struct fab_lft *l, unsigned lid)
{
	unsigned b = lid / FAB_LFT_BLOCK;

	if (!l || l->status == FAB_LFT_FAILED || lid > l->fdb_top || b >= l->n_blocks ||
	    (l->missing && l->missing[b]))
		return -1;
	return l->port[lid];
}

static const char *const status_names[] = {
	[FAB_LFT_OK] = "ok",
	[FAB_LFT_PARTIAL] = "partial",
	[FAB_LFT_FAILED] = "failed",
};
static_assert(ARRAY_SIZE(status_names) == FAB_LFT__COUNT, "a name per status");

const char *fab_lft_status_name(unsigned status)
{
	return status < FAB_LFT__COUNT ? status_names[status] : "?";
}

int fab_lft_status_parse(const char *s)
{
	for (unsigned i = 0; s && i < FAB_LFT__COUNT; i++)
		if (!strcmp(s, status_names[i]))
			return (int)i;
	return -1;
}

static const char *const fault_names[] = {
	[FAB_ROUTE_OK] = "ok",
	[FAB_ROUTE_NO_ENTRY] = "no_entry",
	[FAB_ROUTE_PAST_TOP] = "past_top",
	[FAB_ROUTE_BAD_PORT] = "bad_port",
	[FAB_ROUTE_PORT_DOWN] = "port_down",
	[FAB_ROUTE_NO_CABLE] = "no_cable",
	[FAB_ROUTE_WRONG_DEST] = "wrong_destination",
	[FAB_ROUTE_LOOP] = "loop",
	[FAB_ROUTE_TOO_LONG] = "too_long",
	[FAB_ROUTE_UNKNOWN] = "unknown",
};
static_assert(ARRAY_SIZE(fault_names) == FAB_ROUTE__COUNT, "a name per fault");

const char *fab_route_fault_name(unsigned fault)
{
	return fault < FAB_ROUTE__COUNT ? fault_names[fault] : "?";
}
