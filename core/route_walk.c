// SPDX-License-Identifier: MIT
/*
 * The route walk (include/fabsweep/routing.h): one step says what a switch
 * does with a packet for a LID; the walk applies it to every switch toward
 * one destination, memoized, so each switch is stepped once per
 * destination (O(switches), never per source/destination pair); the trace
 * follows one path with the same step.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

#define N_LIDS (FAB_LID_UNICAST_MAX + 1)

static bool is_switch(const struct fab_snapshot *s, uint32_t node)
{
	return s->nodes[node].type == FAB_NODE_SWITCH;
}

unsigned fab_route_port_lids(const struct fab_snapshot *snap, uint32_t port, uint16_t *first)
{
	const struct fab_port *p = &snap->ports[port];
	const struct fab_node *n = &snap->nodes[p->node_idx];
	unsigned lid, lmc, count;

	if (n->type == FAB_NODE_SWITCH) {
		/* a switch answers at port 0's LID */
		if (p->port_num != 0 || (n->flags & FAB_F_LID_UNKNOWN) || !n->lid)
			return 0;
		lid = n->lid;
	} else {
		/* PortInfo of a Down port means nothing */
		if ((p->flags & (FAB_F_LID_UNKNOWN | FAB_F_SMP_FAILED)) || !p->lid ||
		    p->state < FAB_STATE_INIT || p->state >= FAB_STATE__COUNT)
			return 0;
		lid = p->lid;
	}
	lmc = p->lmc > 7 ? 7 : p->lmc;
	if (lid > FAB_LID_UNICAST_MAX)
		return 0;
	count = 1u << lmc;
	if (lid + count - 1 > FAB_LID_UNICAST_MAX)
		count = FAB_LID_UNICAST_MAX - lid + 1;
	*first = (uint16_t)lid;
	return count;
}

void fab_route_dests_start(struct fab_route_dests *d, const struct fab_snapshot *snap,
			   const uint32_t *ports, size_t n)
{
	*d = (struct fab_route_dests){ .port = FAB_NONE, .snap = snap, .ports = ports, .n = n };
}

bool fab_route_dests_next(struct fab_route_dests *d)
{
	if (d->count && d->lid - d->base + 1u < d->count) {
		d->lid++;
		return true;
	}
	while (d->next < d->n) {
		uint32_t p = d->ports[d->next++];

		if (p == FAB_NONE || p >= d->snap->n_ports ||
		    !(d->count = fab_route_port_lids(d->snap, p, &d->base)))
			continue;
		d->port = p;
		d->idx = d->next - 1;
		d->lid = d->base;
		return true;
	}
	d->count = 0;
	return false;
}

struct lid_end {
	uint32_t lid, port;
};

static int cmp_lid_end(const void *a, const void *b)
{
	const struct lid_end *x = a, *y = b;

	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

uint32_t *fab_route_ends_by_lid(const struct fab_route_index *ix)
{
	struct lid_end *v = malloc((ix->n_ends + 1) * sizeof(*v));
	uint32_t *out = malloc((ix->n_ends + 1) * sizeof(*out));

	if (!v || !out) {
		free(v);
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < ix->n_ends; i++) {
		uint16_t base = 0; /* every end has one (is_end) */

		fab_route_port_lids(ix->snap, ix->ends[i], &base);
		v[i] = (struct lid_end){ .lid = base, .port = ix->ends[i] };
	}
	qsort(v, ix->n_ends, sizeof(*v), cmp_lid_end);
	for (size_t i = 0; i < ix->n_ends; i++)
		out[i] = v[i].port;
	free(v);
	return out;
}

void fab_route_index_free(struct fab_route_index *ix)
{
	free(ix->sw_node);
	free(ix->sw_lft);
	free(ix->node_sw);
	free(ix->lid_owner);
	free(ix->ends);
	free(ix->end_first);
	free(ix->end_list);
	free(ix->hop);
	free(ix->hop_first);
	free(ix->sw_port0);
	memset(ix, 0, sizeof(*ix));
}

uint32_t fab_route_first_switch(const struct fab_route_index *ix, uint32_t port)
{
	const struct fab_snapshot *s = ix->snap;
	uint32_t r;

	if (port >= s->n_ports)
		return FAB_NONE;
	if (is_switch(s, s->ports[port].node_idx))
		return ix->node_sw[s->ports[port].node_idx];
	r = s->ports[port].remote_idx;
	if (r == FAB_NONE || r >= s->n_ports || !is_switch(s, s->ports[r].node_idx))
		return FAB_NONE;
	return ix->node_sw[s->ports[r].node_idx];
}

/* A CA port that routes start from and lead to. */
static bool is_end(const struct fab_snapshot *s, uint32_t pi)
{
	const struct fab_port *p = &s->ports[pi];
	uint16_t lid;

	return s->nodes[p->node_idx].type == FAB_NODE_CA && p->port_num > 0 &&
	       p->state == FAB_STATE_ACTIVE && fab_route_port_lids(s, pi, &lid) &&
	       p->remote_idx != FAB_NONE && p->remote_idx < s->n_ports &&
	       is_switch(s, s->ports[p->remote_idx].node_idx);
}

static int build_hops(const struct fab_snapshot *s, struct fab_route_index *ix);

int fab_route_index_build(const struct fab_snapshot *s, struct fab_route_index *ix)
{
	const struct fab_routing *r = s->routing;
	size_t n_sw = 0;

	memset(ix, 0, sizeof(*ix));
	ix->snap = s;
	for (size_t i = 0; i < s->n_nodes; i++)
		n_sw += is_switch(s, (uint32_t)i);
	ix->n_sw = n_sw;
	ix->sw_node = malloc((n_sw + 1) * sizeof(*ix->sw_node));
	ix->sw_lft = calloc(n_sw + 1, sizeof(*ix->sw_lft));
	ix->node_sw = malloc((s->n_nodes + 1) * sizeof(*ix->node_sw));
	ix->lid_owner = malloc(N_LIDS * sizeof(*ix->lid_owner));
	ix->ends = malloc((s->n_ports + 1) * sizeof(*ix->ends));
	ix->end_first = calloc(n_sw + 2, sizeof(*ix->end_first));
	ix->end_list = malloc((s->n_ports + 1) * sizeof(*ix->end_list));
	if (!ix->sw_node || !ix->sw_lft || !ix->node_sw || !ix->lid_owner || !ix->ends ||
	    !ix->end_first || !ix->end_list) {
		fab_route_index_free(ix);
		return -ENOMEM;
	}
	n_sw = 0;
	for (size_t i = 0; i < s->n_nodes; i++) {
		ix->node_sw[i] = is_switch(s, (uint32_t)i) ? (uint32_t)n_sw : FAB_NONE;
		if (is_switch(s, (uint32_t)i))
			ix->sw_node[n_sw++] = (uint32_t)i;
	}
	for (size_t i = 0; r && i < r->n_lfts; i++)
		if (r->lfts[i].node_idx < s->n_nodes && ix->node_sw[r->lfts[i].node_idx] != FAB_NONE)
			ix->sw_lft[ix->node_sw[r->lfts[i].node_idx]] = &r->lfts[i];
	if (build_hops(s, ix)) {
		fab_route_index_free(ix);
		return -ENOMEM;
	}

	/* who owns each LID: the first claim wins */
	memset(ix->lid_owner, 0xff, N_LIDS * sizeof(*ix->lid_owner));
	for (size_t i = 0; i < s->n_ports; i++) {
		uint16_t first;
		unsigned n = fab_route_port_lids(s, (uint32_t)i, &first);

		for (unsigned k = 0; k < n; k++)
			if (ix->lid_owner[first + k] == FAB_NONE)
				ix->lid_owner[first + k] = (uint32_t)i;
	}
	/* the ends, then grouped by their switch (a counting sort) */
	uint32_t *cursor = malloc((ix->n_sw + 1) * sizeof(*cursor));
	if (!cursor) {
		fab_route_index_free(ix);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_ports; i++)
		if (is_end(s, (uint32_t)i)) {
			ix->ends[ix->n_ends++] = (uint32_t)i;
			ix->end_first[fab_route_first_switch(ix, (uint32_t)i) + 1]++;
		}
	for (size_t k = 0; k < ix->n_sw; k++) {
		ix->end_first[k + 1] += ix->end_first[k];
		cursor[k] = ix->end_first[k];
	}
	for (size_t i = 0; i < ix->n_ends; i++)
		ix->end_list[cursor[fab_route_first_switch(ix, ix->ends[i])]++] = ix->ends[i];
	free(cursor);
	return 0;
}

/* ---- one step ------------------------------------------------------------- */

static uint32_t port0(const struct fab_snapshot *s, uint32_t node)
{
	const struct fab_port *p = fab_snapshot_port(s, node, 0);

	return p ? (uint32_t)(p - s->ports) : FAB_NONE;
}

/* Where a switch's entry port pp (not 0) leads, whatever the LID. */
static struct fab_route_hop port_hop(const struct fab_snapshot *s, const struct fab_route_index *ix,
				     const struct fab_port *pp)
{
	struct fab_route_hop h = { .out = FAB_NONE, .next = FAB_NONE, .ca = FAB_NONE,
				   .fault = FAB_ROUTE_BAD_PORT };

	if (!pp)
		return h;
	h.out = (uint32_t)(pp - s->ports);
	if (pp->flags & FAB_F_SMP_FAILED) {
		h.fault = FAB_ROUTE_UNKNOWN;
		return h;
	}
	if (pp->state != FAB_STATE_ACTIVE) {
		bool partner = pp->phys_state == FAB_PHYS_LINKUP || pp->phys_state == FAB_PHYS_DISABLED ||
			       pp->phys_state == FAB_PHYS_TRAINING ||
			       pp->phys_state == FAB_PHYS_ERROR_RECOVERY ||
			       (pp->phys_state == FAB_PHYS_UNKNOWN && pp->remote_idx != FAB_NONE);
		h.fault = partner ? FAB_ROUTE_PORT_DOWN : FAB_ROUTE_NO_CABLE;
		return h;
	}
	if (pp->remote_idx == FAB_NONE || pp->remote_idx >= s->n_ports) {
		h.fault = FAB_ROUTE_UNKNOWN;
		return h;
	}
	uint32_t rn = s->ports[pp->remote_idx].node_idx;
	if (is_switch(s, rn))
		h.next = ix->node_sw[rn];
	else
		h.ca = pp->remote_idx;
	h.fault = FAB_ROUTE_WRONG_DEST;
	return h;
}

/* The hop table of the index (fab_route_index.hop). 0 or -ENOMEM. */
static int build_hops(const struct fab_snapshot *s, struct fab_route_index *ix)
{
	size_t total = 0;

	ix->hop_first = malloc((ix->n_sw + 1) * sizeof(*ix->hop_first));
	ix->sw_port0 = malloc((ix->n_sw + 1) * sizeof(*ix->sw_port0));
	if (!ix->hop_first || !ix->sw_port0)
		return -ENOMEM;
	for (size_t i = 0; i < ix->n_sw; i++) {
		ix->hop_first[i] = (uint32_t)total;
		total += s->nodes[ix->sw_node[i]].num_ports + 1u;
	}
	ix->hop_first[ix->n_sw] = (uint32_t)total;
	if (!(ix->hop = malloc((total + 1) * sizeof(*ix->hop))))
		return -ENOMEM;
	for (size_t i = 0; i < ix->n_sw; i++) {
		uint32_t node = ix->sw_node[i];
		struct fab_route_hop *h = &ix->hop[ix->hop_first[i]];

		ix->sw_port0[i] = port0(s, node);
		h[0] = (struct fab_route_hop){ FAB_NONE, FAB_NONE, FAB_NONE, FAB_ROUTE_BAD_PORT };
		for (unsigned e = 1; e <= s->nodes[node].num_ports; e++)
			h[e] = port_hop(s, ix, fab_snapshot_port(s, node, e));
	}
	return 0;
}

struct step {
	uint8_t fault; /* meaningful when next is FAB_NONE */
	uint8_t hops;  /* FAB_ROUTE_OK at this step: 0 (the switch itself) or 1 */
	uint32_t out, next, at;
};

/* What switch sw does with a packet for dlid, owned by port dest. */
static void step(const struct fab_route_index *ix, uint32_t sw, uint16_t dlid, uint32_t dest,
		 struct step *st)
{
	const struct fab_lft *l = ix->sw_lft[sw];
	unsigned b = dlid / FAB_LFT_BLOCK, e;

	*st = (struct step){ .out = FAB_NONE, .next = FAB_NONE, .at = ix->sw_port0[sw] };
	if (!l || l->status == FAB_LFT_FAILED) {
		st->fault = FAB_ROUTE_UNKNOWN;
		st->at = FAB_NONE;
		return;
	}
	if (dlid > l->fdb_top || b >= l->n_blocks) {
		st->fault = FAB_ROUTE_PAST_TOP;
		return;
	}
	if (l->missing && l->missing[b]) {
		st->fault = FAB_ROUTE_UNKNOWN;
		st->at = FAB_NONE;
		return;
	}
	e = l->port[dlid];
	if (e == FAB_LFT_NO_PORT) {
		st->fault = FAB_ROUTE_NO_ENTRY;
		return;
	}
	if (e == 0) {
		st->fault = dest != FAB_NONE && dest == st->at ? FAB_ROUTE_OK : FAB_ROUTE_BAD_PORT;
		return;
	}
	if (e >= ix->hop_first[sw + 1] - ix->hop_first[sw]) {
		st->fault = FAB_ROUTE_BAD_PORT; /* beyond its ports: named at port 0 */
		return;
	}
	const struct fab_route_hop *h = &ix->hop[ix->hop_first[sw] + e];
	if (h->out == FAB_NONE) {
		st->fault = h->fault; /* a port number it does not have */
		return;
	}
	st->out = st->at = h->out;
	st->next = h->next;
	if (h->next != FAB_NONE)
		return;
	if (h->ca != FAB_NONE && dest != FAB_NONE && h->ca == dest) {
		st->fault = FAB_ROUTE_OK;
		st->hops = 1;
		return;
	}
	st->fault = h->fault;
	if (h->fault == FAB_ROUTE_UNKNOWN)
		st->at = FAB_NONE;
}

/* ---- the walk toward one destination -------------------------------------- */

int fab_route_walk_init(const struct fab_route_index *ix, struct fab_route_walk *w)
{
	size_t n = ix->n_sw + 1;

	memset(w, 0, sizeof(*w));
	w->n_sw = ix->n_sw;
	w->fault = malloc(n);
	w->hops = malloc(n);
	w->out = malloc(n * sizeof(*w->out));
	w->next = malloc(n * sizeof(*w->next));
	w->at = malloc(n * sizeof(*w->at));
	w->mark = calloc(n, sizeof(*w->mark));
	w->stack = malloc(n * sizeof(*w->stack));
	if (!w->fault || !w->hops || !w->out || !w->next || !w->at || !w->mark || !w->stack) {
		fab_route_walk_fini(w);
		return -ENOMEM;
	}
	return 0;
}

void fab_route_walk_fini(struct fab_route_walk *w)
{
	free(w->fault);
	free(w->hops);
	free(w->out);
	free(w->next);
	free(w->at);
	free(w->mark);
	free(w->stack);
	memset(w, 0, sizeof(*w));
}

/* Resolves u from its next switch t (resolved): same fate, one hop more. */
static void inherit(struct fab_route_walk *w, uint32_t u, uint32_t t)
{
	w->fault[u] = w->fault[t];
	w->at[u] = w->at[t];
	w->hops[u] = 0;
	if (w->fault[t] != FAB_ROUTE_OK)
		return;
	if (w->hops[t] + 1 >= FAB_ROUTE_MAX_HOPS) {
		w->fault[u] = FAB_ROUTE_TOO_LONG;
		w->at[u] = w->out[u];
		return;
	}
	w->hops[u] = (uint8_t)(w->hops[t] + 1);
}

void fab_route_walk_to(const struct fab_route_index *ix, struct fab_route_walk *w, uint16_t dlid)
{
	uint32_t pending, done;
	struct step st;

	w->dlid = dlid;
	w->dest = dlid <= FAB_LID_UNICAST_MAX ? ix->lid_owner[dlid] : FAB_NONE;
	if (w->gen >= UINT32_MAX - 2) { /* marks are generations: start over */
		memset(w->mark, 0, (w->n_sw + 1) * sizeof(*w->mark));
		w->gen = 0;
	}
	w->gen += 2;
	pending = w->gen;
	done = w->gen + 1;
	for (uint32_t s0 = 0; s0 < ix->n_sw; s0++) {
		size_t sp = 0;
		uint32_t cur = s0;

		if (w->mark[s0] == pending || w->mark[s0] == done)
			continue;
		for (;;) {
			step(ix, cur, dlid, w->dest, &st);
			w->out[cur] = st.out;
			w->next[cur] = st.next;
			if (st.next == FAB_NONE) { /* the route ends here */
				w->fault[cur] = st.fault;
				w->hops[cur] = st.hops;
				w->at[cur] = st.at;
				w->mark[cur] = done;
				break;
			}
			w->mark[cur] = pending;
			w->at[cur] = (uint32_t)sp; /* its place on the stack, while pending */
			w->stack[sp++] = cur;
			uint32_t t = st.next;
			if (w->mark[t] == done)
				break;
			if (w->mark[t] == pending) {
				/* a loop: stack[at[t]..] is the cycle; it and what leads
				 * into it loop, named by the cycle's lowest switch */
				uint32_t low = t;
				for (size_t k = w->at[t]; k < sp; k++)
					if (w->stack[k] < low)
						low = w->stack[k];
				uint32_t at = w->out[low];
				while (sp) {
					uint32_t u = w->stack[--sp];
					w->fault[u] = FAB_ROUTE_LOOP;
					w->hops[u] = 0;
					w->at[u] = at;
					w->mark[u] = done;
				}
				break;
			}
			cur = t;
		}
		while (sp) {
			uint32_t u = w->stack[--sp];
			inherit(w, u, w->next[u]);
			w->mark[u] = done;
		}
	}
}

/* ---- one path ------------------------------------------------------------- */

int fab_route_trace(const struct fab_route_index *ix, uint32_t src, uint16_t dlid,
		    struct fab_route_path *out)
{
	const struct fab_snapshot *s = ix->snap;
	struct fab_route_path path = { .fault = FAB_ROUTE_UNKNOWN, .at = FAB_NONE };
	uint32_t sw, first, cur;
	size_t k = 0; /* switches stepped */
	struct step st;
	uint16_t lid;

	if (src >= s->n_ports)
		return -EINVAL;
	path.dest = dlid <= FAB_LID_UNICAST_MAX ? ix->lid_owner[dlid] : FAB_NONE;
	if (is_switch(s, s->ports[src].node_idx)) {
		sw = ix->node_sw[s->ports[src].node_idx];
	} else {
		const struct fab_port *p = &s->ports[src];
		if (p->port_num == 0 || p->state != FAB_STATE_ACTIVE || !fab_route_port_lids(s, src, &lid) ||
		    p->remote_idx == FAB_NONE || p->remote_idx >= s->n_ports)
			return -EINVAL;
		if (path.dest == src) { /* to itself */
			path.fault = FAB_ROUTE_OK;
			*out = path;
			return 0;
		}
		path.hop[path.n_hops++] = src;
		sw = fab_route_first_switch(ix, src);
		if (sw == FAB_NONE) { /* cabled to another CA */
			path.fault = p->remote_idx == path.dest ? FAB_ROUTE_OK : FAB_ROUTE_WRONG_DEST;
			path.at = path.fault ? src : FAB_NONE;
			*out = path;
			return 0;
		}
	}
	first = cur = sw;
	for (;;) {
		step(ix, cur, dlid, path.dest, &st);
		if (st.out != FAB_NONE && path.n_hops < FAB_ROUTE_MAX_HOPS + 1)
			path.hop[path.n_hops++] = st.out;
		k++;
		if (st.next == FAB_NONE) {
			path.fault = st.fault;
			path.at = st.at;
			break;
		}
		if (k > ix->n_sw) {
			/* more switches than there are: cur is on a loop; name it
			 * by its lowest switch, as the walk does */
			uint32_t low = cur, u = cur;
			do {
				step(ix, u, dlid, path.dest, &st);
				u = st.next;
				if (u < low)
					low = u;
			} while (u != cur);
			step(ix, low, dlid, path.dest, &st);
			path.fault = FAB_ROUTE_LOOP;
			path.at = st.out;
			break;
		}
		cur = st.next;
	}
	/* k switches: the first is k - 1 + (OK hops of the last) links from the
	 * destination; a route too long is named where the walk names it, at
	 * the switch FAB_ROUTE_MAX_HOPS links away */
	size_t links = path.fault == FAB_ROUTE_OK ? k - 1 + st.hops : 0;
	if (path.fault == FAB_ROUTE_OK && links >= FAB_ROUTE_MAX_HOPS) {
		size_t i = links - FAB_ROUTE_MAX_HOPS; /* that switch's place on the path */
		cur = first;
		for (size_t j = 0; j < i; j++) {
			step(ix, cur, dlid, path.dest, &st);
			cur = st.next;
		}
		step(ix, cur, dlid, path.dest, &st);
		path.fault = FAB_ROUTE_TOO_LONG;
		path.at = st.out;
	}
	*out = path;
	return 0;
}
