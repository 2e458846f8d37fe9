/* SPDX-License-Identifier: MIT */
/*
 * The one-lane channel dependency graph (core/route_cdg.c) as the per-lane
 * analysis (core/route_lanes.c) reuses it: the dependency bitmap, the
 * graph, its strongly connected sets, Tarjan. Private to core/.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/routing.h"

/*
 * Per switch q, a bitmap over (in-port, out-port) of q: bit (i, o), i > 0,
 * is the dependency "the channel into q's port i -> q's out-port o"; row
 * i = 0 marks the out-ports by which traffic from q's own CAs leaves toward
 * another switch (their first switch-to-switch channel).
 */
struct cdg_pairmap {
	size_t *first;   /* switch i: its bits start at bit first[i] */
	unsigned *width; /* switch i: num_ports + 1 */
	uint64_t *bits;
	uint16_t *dlid;  /* per bit: the destination that set it first */
};

static inline bool cdg_bit(const struct cdg_pairmap *m, uint32_t sw, unsigned in, unsigned out)
{
	size_t bit = m->first[sw] + (size_t)in * m->width[sw] + out;

	return in < m->width[sw] && out < m->width[sw] && (m->bits[bit / 64] >> (bit % 64) & 1);
}

struct cdg_graph {
	size_t n;        /* nodes (channels) */
	size_t n_edges;  /* dependencies */
	uint32_t *port;  /* node -> its key: the channel's port index (one lane) */
	size_t *first;   /* CSR: node i's edges are edge[first[i] .. first[i + 1]) */
	uint32_t *edge;  /* target node */
	uint16_t *edlid; /* per edge: a destination that adds it */
	uint8_t *esl;    /* per edge: a service level that adds it, or NULL */
};

/* The one-lane analysis, with what the per-lane one needs of it. */
struct cdg_one_lane {
	struct cdg_pairmap m;
	struct cdg_graph g;
	uint32_t *comp;   /* per channel: its strongly connected set */
	uint32_t *chan;   /* per port index: its channel, FAB_NONE */
	struct fab_cdg cdg;   /* the cycles: one per cyclic set, unsorted */
	uint32_t *cycle_comp; /* per cycle of cdg: its set's id */
};

/* Called per destination of the one-lane pass, once the walk w toward it
 * (end dst) is done and used[u] == gen marks the switches its traffic passes. */
typedef void (*cdg_hook)(void *ctx, const struct fab_route_walk *w, uint32_t dst,
			 const uint32_t *used, uint32_t gen);
/* The one-lane analysis; hook (may be NULL) sees every destination's walk. */
int cdg_one_lane(const struct fab_route_index *ix, struct cdg_one_lane *st, cdg_hook hook,
		 void *hook_ctx);
void cdg_one_lane_free(struct cdg_one_lane *st);
/* Marks used[u] = gen for every switch u that traffic toward w->dlid from
 * some end other than dst passes. */
void cdg_mark_used(const struct fab_route_index *ix, const struct fab_route_walk *w, uint32_t dst,
		   uint32_t *used, uint32_t gen);
/* Tarjan on g: one cycle per cyclic set into out (unsorted), and, when
 * comp_out, every node's set id (owned by the caller). 0 or -ENOMEM. */
int cdg_find_cycles(const struct cdg_graph *g, struct fab_cdg *out, uint32_t **comp_out,
		    uint32_t **cycle_comp);
/* Sorts each node's edges by target (deterministic cycles). */
void cdg_sort_edges(struct cdg_graph *g);
void cdg_graph_free(struct cdg_graph *g);
/* Sorts the cycles by their first channel's port (the findings' order). */
void cdg_sort_cycles(struct fab_cdg *g);
