// SPDX-License-Identifier: MIT
/*
 * Credit loops (include/fabsweep/routing.h): the channel dependency graph
 * of the routes and its cycles. A channel is a switch-to-switch link in one
 * direction, named by the port it leaves by. Per destination LID (every
 * LID of each end's LMC range, fab_route_dests), one walk
 * (core/route_walk.c) gives every switch's next hop; the switches some
 * end's traffic passes are marked by following next hops from the ends'
 * switches (each switch once per destination); every marked p with
 * q = next(p) and r = next(q) adds "p->q waits for q->r". The
 * dependencies are deduplicated in a hash set; the strongly connected sets
 * are found with an iterative Tarjan (no recursion: tens of thousands of
 * channels), and in each cyclic one a cycle is followed out.
 * O(destinations x switches + dependencies).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

/* ---- building the graph ------------------------------------------------------ */

/*
 * Per destination, the dependencies are marked in a bitmap per switch q,
 * (in-port, out-port) of q: small, dense and cache-friendly (a switch of
 * 40 ports has 1,681 bits) however many destinations repeat them. A bit is
 * one distinct dependency: channel (the port into q's far end) -> (q's
 * out-port); the graph is read off the bits at the end.
 */
struct pairmap {
	size_t *first;   /* switch i: its bits start at bit first[i] */
	unsigned *width; /* switch i: num_ports + 1 */
	uint64_t *bits;
	uint16_t *dlid;  /* per bit: the destination that set it first */
};

static void pairmap_free(struct pairmap *m)
{
	free(m->first);
	free(m->width);
	free(m->bits);
	free(m->dlid);
	memset(m, 0, sizeof(*m));
}

static int collect(const struct fab_route_index *ix, struct pairmap *out)
{
	const struct fab_snapshot *s = ix->snap;
	struct fab_route_walk w;
	struct pairmap m = { 0 };
	uint32_t *used = calloc(ix->n_sw + 1, sizeof(*used)), gen = 0;
	size_t total = 0;
	int err = fab_route_walk_init(ix, &w);

	m.first = malloc((ix->n_sw + 1) * sizeof(*m.first));
	m.width = malloc((ix->n_sw + 1) * sizeof(*m.width));
	for (size_t i = 0; m.first && m.width && i < ix->n_sw; i++) {
		m.width[i] = s->nodes[ix->sw_node[i]].num_ports + 1u;
		m.first[i] = total;
		total += (size_t)m.width[i] * m.width[i];
	}
	m.bits = calloc(total / 64 + 1, sizeof(*m.bits));
	m.dlid = malloc((total + 1) * sizeof(*m.dlid));
	if (err || !used || !m.first || !m.width || !m.bits || !m.dlid) {
		err = -ENOMEM;
		goto out;
	}
	struct fab_route_dests d; /* every LID of every end's range */
	for (fab_route_dests_start(&d, s, ix->ends, ix->n_ends); fab_route_dests_next(&d);) {
		uint16_t dlid = d.lid;

		fab_route_walk_to(ix, &w, dlid);
		gen++;
		/* the switches traffic toward dlid passes: from every switch
		 * with a source on it (the destination alone is no source) */
		for (uint32_t sw = 0; sw < ix->n_sw; sw++) {
			uint32_t n_src = ix->end_first[sw + 1] - ix->end_first[sw];
			if (!n_src || (n_src == 1 && ix->end_list[ix->end_first[sw]] == d.port))
				continue;
			for (uint32_t u = sw; u != FAB_NONE && used[u] != gen; u = w.next[u])
				used[u] = gen;
		}
		for (uint32_t p = 0; p < ix->n_sw; p++) {
			uint32_t q = used[p] == gen ? w.next[p] : FAB_NONE;
			if (q == FAB_NONE || w.next[q] == FAB_NONE)
				continue;
			unsigned in = s->ports[s->ports[w.out[p]].remote_idx].port_num;
			unsigned outp = s->ports[w.out[q]].port_num;
			if (in >= m.width[q] || outp >= m.width[q])
				continue;
			size_t bit = m.first[q] + (size_t)in * m.width[q] + outp;
			if (!(m.bits[bit / 64] & (1ull << (bit % 64)))) {
				m.bits[bit / 64] |= 1ull << (bit % 64);
				m.dlid[bit] = dlid;
			}
		}
	}
out:
	free(used);
	fab_route_walk_fini(&w);
	if (err)
		pairmap_free(&m);
	else
		*out = m;
	return err;
}

/* ---- cycles: Tarjan, iteratively ------------------------------------------- */

struct graph {
	size_t n;        /* channels */
	size_t n_edges;  /* dependencies */
	uint32_t *port;  /* channel -> its port index, ascending */
	size_t *first;   /* CSR: channel i's edges are edge[first[i] .. first[i + 1]) */
	uint32_t *edge;  /* target channel */
	uint16_t *edlid; /* per edge: a destination that adds it */
};

/* Calls fn(ctx, from, to, bit) on every dependency of the map (channel
 * from -> channel to, as the ports they leave by; bit its place in the
 * map), switch by switch, in-port by in-port, out-port by out-port. */
static void each_dep(const struct fab_route_index *ix, const struct pairmap *m,
		     void (*fn)(void *ctx, uint32_t from, uint32_t to, size_t bit), void *ctx)
{
	const struct fab_snapshot *s = ix->snap;

	for (uint32_t q = 0; q < ix->n_sw; q++)
		for (unsigned in = 1; in < m->width[q]; in++) {
			const struct fab_port *ip = fab_snapshot_port(s, ix->sw_node[q], in);
			size_t row = m->first[q] + (size_t)in * m->width[q];

			if (!ip || ip->remote_idx == FAB_NONE)
				continue;
			for (unsigned o = 1; o < m->width[q]; o++) {
				size_t bit = row + o;
				if (!(m->bits[bit / 64] & (1ull << (bit % 64))))
					continue;
				const struct fab_port *op = fab_snapshot_port(s, ix->sw_node[q], o);
				if (op)
					fn(ctx, ip->remote_idx, (uint32_t)(op - s->ports), bit);
			}
		}
}

struct build {
	struct graph *g;
	const struct pairmap *m;
	uint32_t *chan; /* port -> channel */
	size_t *cur;    /* per channel: its next edge */
};

static void mark_chan(void *ctx, uint32_t from, uint32_t to, size_t bit)
{
	struct build *b = ctx;

	(void)bit;
	b->chan[from] = b->chan[to] = 0;
	b->g->n_edges++;
}

static void count_edge(void *ctx, uint32_t from, uint32_t to, size_t bit)
{
	struct build *b = ctx;

	(void)to;
	(void)bit;
	b->g->first[b->chan[from] + 1]++;
}

static void put_edge(void *ctx, uint32_t from, uint32_t to, size_t bit)
{
	struct build *b = ctx;
	size_t k = b->cur[b->chan[from]]++;

	b->g->edge[k] = b->chan[to];
	b->g->edlid[k] = b->m->dlid[bit];
}

/* The graph of the map's dependencies; channels numbered in port order. */
static int build_graph(const struct fab_route_index *ix, const struct pairmap *m, struct graph *g)
{
	size_t n_ports = ix->snap->n_ports;
	struct build bd = { .g = g, .m = m };
	int err = -ENOMEM;

	memset(g, 0, sizeof(*g));
	if (!(bd.chan = malloc((n_ports + 1) * sizeof(*bd.chan))))
		return -ENOMEM;
	memset(bd.chan, 0xff, (n_ports + 1) * sizeof(*bd.chan));
	each_dep(ix, m, mark_chan, &bd); /* the channels' ports, the dependencies counted */
	for (size_t p = 0; p < n_ports; p++)
		if (!bd.chan[p])
			g->n++;
	g->port = malloc((g->n + 1) * sizeof(*g->port));
	g->first = calloc(g->n + 2, sizeof(*g->first));
	g->edge = malloc((g->n_edges + 1) * sizeof(*g->edge));
	g->edlid = malloc((g->n_edges + 1) * sizeof(*g->edlid));
	bd.cur = malloc((g->n + 1) * sizeof(*bd.cur));
	if (!g->port || !g->first || !g->edge || !g->edlid || !bd.cur)
		goto out;
	for (size_t p = 0, k = 0; p < n_ports; p++)
		if (!bd.chan[p]) {
			bd.chan[p] = (uint32_t)k;
			g->port[k++] = (uint32_t)p;
		}
	each_dep(ix, m, count_edge, &bd);
	for (size_t i = 0; i < g->n; i++)
		g->first[i + 1] += g->first[i];
	memcpy(bd.cur, g->first, g->n * sizeof(*bd.cur));
	each_dep(ix, m, put_edge, &bd);
	/* each channel's edges in target order: deterministic cycles */
	for (size_t i = 0; i < g->n; i++)
		for (size_t a = g->first[i] + 1; a < g->first[i + 1]; a++)
			for (size_t b = a; b > g->first[i] && g->edge[b - 1] > g->edge[b]; b--) {
				uint32_t t = g->edge[b];
				uint16_t u = g->edlid[b];
				g->edge[b] = g->edge[b - 1];
				g->edlid[b] = g->edlid[b - 1];
				g->edge[b - 1] = t;
				g->edlid[b - 1] = u;
			}
	err = 0;
out:
	free(bd.chan);
	free(bd.cur);
	return err;
}

static void graph_free(struct graph *g)
{
	free(g->port);
	free(g->first);
	free(g->edge);
	free(g->edlid);
}

/* One cycle inside the strongly connected set `comp` (every member has an
 * edge to another member): follow the first such edge until a channel
 * repeats. */
static int add_cycle(const struct graph *g, const uint32_t *comp, uint32_t id, uint32_t start,
		     size_t size, size_t *pos, struct fab_cdg *out)
{
	uint32_t *path = malloc((size + 1) * sizeof(*path));
	uint16_t *dl = malloc((size + 1) * sizeof(*dl));
	size_t n = 0;
	uint32_t v = start;

	if (!path || !dl) {
		free(path);
		free(dl);
		return -ENOMEM;
	}
	while (pos[v] == SIZE_MAX) {
		pos[v] = n;
		path[n] = v;
		for (size_t k = g->first[v]; k < g->first[v + 1]; k++)
			if (comp[g->edge[k]] == id) {
				dl[n] = g->edlid[k];
				v = g->edge[k];
				break;
			}
		n++;
	}
	size_t from = pos[v];
	struct fab_cdg_cycle *c = &out->cycles[out->n_cycles];
	c->n_chan = n - from;
	c->chan = malloc(c->n_chan * sizeof(*c->chan));
	if (!c->chan) {
		free(path);
		free(dl);
		return -ENOMEM;
	}
	for (size_t k = 0; k < c->n_chan; k++)
		c->chan[k] = g->port[path[from + k]];
	c->dlid = dl[from];
	for (size_t k = 0; k < n; k++)
		pos[path[k]] = SIZE_MAX;
	c->scc_size = size;
	c->scc_deps = id; /* the set's id until find_cycles counts its dependencies */
	out->n_cycles++;
	free(path);
	free(dl);
	return 0;
}

static int find_cycles(const struct graph *g, struct fab_cdg *out)
{
	size_t n = g->n, idx = 0, sp = 0, cs = 0;
	uint32_t *index = malloc((n + 1) * sizeof(*index)), *low = malloc((n + 1) * sizeof(*low));
	uint32_t *comp = malloc((n + 1) * sizeof(*comp)), *stack = malloc((n + 1) * sizeof(*stack));
	uint32_t *call = malloc((n + 1) * sizeof(*call)); /* the DFS's own stack */
	size_t *edge_at = malloc((n + 1) * sizeof(*edge_at)), *pos = malloc((n + 1) * sizeof(*pos));
	bool *on = calloc(n + 1, sizeof(*on));
	uint32_t n_comp = 0;
	int err = 0;

	if (!index || !low || !comp || !stack || !call || !edge_at || !pos || !on) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		index[i] = UINT32_MAX;
		comp[i] = UINT32_MAX;
		pos[i] = SIZE_MAX;
	}
	for (size_t root = 0; root < n; root++) {
		if (index[root] != UINT32_MAX)
			continue;
		call[cs++] = (uint32_t)root;
		index[root] = low[root] = (uint32_t)idx++;
		edge_at[root] = g->first[root];
		stack[sp++] = (uint32_t)root;
		on[root] = true;
		while (cs) {
			uint32_t v = call[cs - 1];
			if (edge_at[v] < g->first[v + 1]) {
				uint32_t w = g->edge[edge_at[v]++];
				if (index[w] == UINT32_MAX) {
					index[w] = low[w] = (uint32_t)idx++;
					edge_at[w] = g->first[w];
					stack[sp++] = w;
					on[w] = true;
					call[cs++] = w;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			cs--;
			if (cs && low[v] < low[call[cs - 1]])
				low[call[cs - 1]] = low[v];
			if (low[v] != index[v])
				continue;
			size_t size = 0;
			uint32_t w, first = UINT32_MAX;
			do {
				w = stack[--sp];
				on[w] = false;
				comp[w] = n_comp;
				size++;
				if (w < first)
					first = w;
			} while (w != v);
			if (size > 1) {
				struct fab_cdg_cycle *c = realloc(out->cycles,
								  (out->n_cycles + 1) * sizeof(*c));
				if (!c) {
					err = -ENOMEM;
					goto out;
				}
				out->cycles = c;
				memset(&c[out->n_cycles], 0, sizeof(*c));
				if ((err = add_cycle(g, comp, n_comp, first, size, pos, out)))
					goto out;
			}
			n_comp++;
		}
	}
	/* dependencies inside each cyclic set, in one pass */
	size_t *deps = calloc(n_comp + 1, sizeof(*deps));
	if (!deps) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = g->first[i]; k < g->first[i + 1]; k++)
			deps[comp[i]] += comp[g->edge[k]] == comp[i];
	for (size_t i = 0; i < out->n_cycles; i++)
		out->cycles[i].scc_deps = deps[out->cycles[i].scc_deps];
	free(deps);
out:
	free(index);
	free(low);
	free(comp);
	free(stack);
	free(call);
	free(edge_at);
	free(pos);
	free(on);
	return err;
}

static int cmp_cycle(const void *a, const void *b)
{
	const struct fab_cdg_cycle *x = a, *y = b;

	return x->chan[0] < y->chan[0] ? -1 : x->chan[0] > y->chan[0];
}

int fab_cdg_find(const struct fab_route_index *ix, struct fab_cdg *out)
{
	struct pairmap m = { 0 };
	struct graph g = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	err = collect(ix, &m);
	if (!err)
		err = build_graph(ix, &m, &g);
	if (!err) {
		out->n_chan = g.n;
		out->n_deps = g.n_edges;
		err = find_cycles(&g, out);
	}
	if (!err && out->n_cycles)
		qsort(out->cycles, out->n_cycles, sizeof(*out->cycles), cmp_cycle);
	pairmap_free(&m);
	graph_free(&g);
	if (err)
		fab_cdg_free(out);
	return err;
}

void fab_cdg_free(struct fab_cdg *g)
{
	for (size_t i = 0; i < g->n_cycles; i++)
		free(g->cycles[i].chan);
	free(g->cycles);
	memset(g, 0, sizeof(*g));
}
