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
	return fab_array_grow((void **)&r->sl2vl, &r->n_sl2vl, &r->cap_sl2vl, sizeof(*r->sl2vl));
}

static uint64_t sl2vl_key(uint32_t node, unsigned in, unsigned out)
{
	return (uint64_t)node << 16 | in << 8 | out;
}

static int cmp_sl2vl(const void *a, const void *b)
{
	const struct fab_sl2vl *x = a, *y = b;
	uint64_t kx = sl2vl_key(x->node_idx, x->in, x->out), ky = sl2vl_key(y->node_idx, y->in, y->out);

	return kx < ky ? -1 : kx > ky;
}

void fab_routing_sort_sl2vl(struct fab_routing *r)
{
	size_t n = 0;

	if (r->n_sl2vl > 1)
		qsort(r->sl2vl, r->n_sl2vl, sizeof(*r->sl2vl), cmp_sl2vl);
	for (size_t i = 0; i < r->n_sl2vl; i++)
		if (!n || cmp_sl2vl(&r->sl2vl[n - 1], &r->sl2vl[i]))
			r->sl2vl[n++] = r->sl2vl[i];
	r->n_sl2vl = n;
}

const struct fab_sl2vl *fab_routing_sl2vl(const struct fab_routing *r, uint32_t node_idx,
					  unsigned in, unsigned out)
{
	uint64_t k = sl2vl_key(node_idx, in, out);
	size_t lo = 0, hi = r ? r->n_sl2vl : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t m = sl2vl_key(r->sl2vl[mid].node_idx, r->sl2vl[mid].in, r->sl2vl[mid].out);

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
