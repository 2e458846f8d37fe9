// SPDX-License-Identifier: MIT
/*
 * Credit loops (include/fabsweep/routing.h): the channel dependency graph
 * of the routes and its cycles. A channel is a switch-to-switch link in one
 * direction, named by the port it leaves by. Per destination LID (every
 * LID of each end's LMC range, fab_route_dests, in LID order), one walk
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
#include "route_cdg_priv.h"

/* ---- building the graph ------------------------------------------------------ */

/*
 * Per destination, the dependencies are marked in a bitmap per switch q,
 * (in-port, out-port) of q (struct cdg_pairmap): small, dense and
 * cache-friendly (a switch of 40 ports has 1,681 bits) however many
 * destinations repeat them. A bit is one distinct dependency: channel (the
 * port into q's far end) -> (q's out-port); the graph is read off the bits
 * at the end.
 */
static void pairmap_free(struct cdg_pairmap *m)
{
	free(m->first);
	free(m->width);
	free(m->bits);
	free(m->dlid);
	memset(m, 0, sizeof(*m));
}

void cdg_mark_used(const struct fab_route_index *ix, const struct fab_route_walk *w, uint32_t dst,
		   uint32_t *used, uint32_t gen)
{
	/* from every switch with a source on it (the destination alone is no source) */
	for (uint32_t sw = 0; sw < ix->n_sw; sw++) {
		uint32_t n_src = ix->end_first[sw + 1] - ix->end_first[sw];
		if (!n_src || (n_src == 1 && ix->end_list[ix->end_first[sw]] == dst))
			continue;
		for (uint32_t u = sw; u != FAB_NONE && used[u] != gen; u = w->next[u])
			used[u] = gen;
	}
}

/* Sets bit (in, out) of switch q; the first destination that sets it (the
 * lowest LID: collect walks in LID order) is kept. */
static void set_bit(struct cdg_pairmap *m, uint32_t q, unsigned in, unsigned out, uint16_t dlid)
{
	size_t bit;

	if (in >= m->width[q] || out >= m->width[q])
		return;
	bit = m->first[q] + (size_t)in * m->width[q] + out;
	if (!(m->bits[bit / 64] & (1ull << (bit % 64)))) {
		m->bits[bit / 64] |= 1ull << (bit % 64);
		m->dlid[bit] = dlid;
	}
}

static int collect(const struct fab_route_index *ix, struct cdg_pairmap *out, cdg_hook hook,
		   void *hook_ctx)
{
	const struct fab_snapshot *s = ix->snap;
	struct fab_route_walk w;
	struct cdg_pairmap m = { 0 };
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
	uint32_t *ends = fab_route_ends_by_lid(ix);
	if (!ends) {
		err = -ENOMEM;
		goto out;
	}
	struct fab_route_dests d; /* every LID of every end's range, in LID order */
	for (fab_route_dests_start(&d, s, ends, ix->n_ends); fab_route_dests_next(&d);) {
		uint16_t dlid = d.lid;

		fab_route_walk_to(ix, &w, dlid);
		gen++;
		cdg_mark_used(ix, &w, d.port, used, gen);
		if (hook)
			hook(hook_ctx, &w, d.port, used, gen);
		for (uint32_t p = 0; p < ix->n_sw; p++) {
			uint32_t q = used[p] == gen ? w.next[p] : FAB_NONE;
			if (q == FAB_NONE)
				continue;
			/* p's own CAs leave by this port (row 0): not when the
			 * destination is p's only end */
			uint32_t n_src = ix->end_first[p + 1] - ix->end_first[p];
			if (n_src > 1 || (n_src == 1 && ix->end_list[ix->end_first[p]] != d.port))
				set_bit(&m, p, 0, s->ports[w.out[p]].port_num, dlid);
			if (w.next[q] == FAB_NONE)
				continue;
			set_bit(&m, q, s->ports[s->ports[w.out[p]].remote_idx].port_num,
				s->ports[w.out[q]].port_num, dlid);
		}
	}
	free(ends);
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

/* Calls fn(ctx, from, to, bit) on every dependency of the map (channel
 * from -> channel to, as the ports they leave by; bit its place in the
 * map), switch by switch, in-port by in-port, out-port by out-port. */
static void each_dep(const struct fab_route_index *ix, const struct cdg_pairmap *m,
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
	struct cdg_graph *g;
	const struct cdg_pairmap *m;
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

void cdg_sort_edges(struct cdg_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		for (size_t a = g->first[i] + 1; a < g->first[i + 1]; a++)
			for (size_t b = a; b > g->first[i] && g->edge[b - 1] > g->edge[b]; b--) {
				uint32_t t = g->edge[b];
				uint16_t u = g->edlid[b];
				g->edge[b] = g->edge[b - 1];
				g->edlid[b] = g->edlid[b - 1];
				g->edge[b - 1] = t;
				g->edlid[b - 1] = u;
				if (g->esl) {
					uint8_t v = g->esl[b];
					g->esl[b] = g->esl[b - 1];
					g->esl[b - 1] = v;
				}
			}
}

/* The graph of the map's dependencies; channels numbered in port order;
 * *chan_out: port index -> channel (FAB_NONE), owned by the caller. */
static int build_graph(const struct fab_route_index *ix, const struct cdg_pairmap *m,
		       struct cdg_graph *g, uint32_t **chan_out)
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
	cdg_sort_edges(g); /* deterministic cycles */
	*chan_out = bd.chan;
	bd.chan = NULL;
	err = 0;
out:
	free(bd.chan);
	free(bd.cur);
	return err;
}

void cdg_graph_free(struct cdg_graph *g)
{
	free(g->port);
	free(g->first);
	free(g->edge);
	free(g->edlid);
	free(g->esl);
	memset(g, 0, sizeof(*g));
}

/* One cycle inside the strongly connected set `comp` (every member has an
 * edge to another member): follow the first such edge until a channel
 * repeats. */
static int add_cycle(const struct cdg_graph *g, const uint32_t *comp, uint32_t id, uint32_t start,
		     size_t size, size_t *pos, struct fab_cdg *out)
{
	uint32_t *path = malloc((size + 1) * sizeof(*path));
	size_t *via = malloc((size + 1) * sizeof(*via)); /* the edge taken */
	size_t n = 0;
	uint32_t v = start;

	if (!path || !via) {
		free(path);
		free(via);
		return -ENOMEM;
	}
	while (pos[v] == SIZE_MAX) {
		pos[v] = n;
		path[n] = v;
		for (size_t k = g->first[v]; k < g->first[v + 1]; k++)
			if (comp[g->edge[k]] == id) {
				via[n] = k;
				v = g->edge[k];
				break;
			}
		n++;
	}
	size_t from = pos[v];
	struct fab_cdg_cycle *c = &out->cycles[out->n_cycles];
	c->n_chan = n - from;
	c->chan = malloc(c->n_chan * sizeof(*c->chan));
	if (g->esl)
		c->sl = malloc(c->n_chan);
	if (!c->chan || (g->esl && !c->sl)) {
		free(path);
		free(via);
		return -ENOMEM;
	}
	for (size_t k = 0; k < c->n_chan; k++) {
		c->chan[k] = g->port[path[from + k]];
		if (g->esl)
			c->sl[k] = g->esl[via[from + k]];
	}
	c->dlid = g->edlid[via[from]];
	for (size_t k = 0; k < n; k++)
		pos[path[k]] = SIZE_MAX;
	c->scc_size = size;
	c->scc_deps = id; /* the set's id until find_cycles counts its dependencies */
	out->n_cycles++;
	free(path);
	free(via);
	return 0;
}

int cdg_find_cycles(const struct cdg_graph *g, struct fab_cdg *out, uint32_t **comp_out,
		    uint32_t **cycle_comp)
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
	if (cycle_comp && !(*cycle_comp = malloc((out->n_cycles + 1) * sizeof(**cycle_comp)))) {
		free(deps);
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < out->n_cycles; i++) {
		if (cycle_comp)
			(*cycle_comp)[i] = (uint32_t)out->cycles[i].scc_deps;
		out->cycles[i].scc_deps = deps[out->cycles[i].scc_deps];
	}
	free(deps);
	if (comp_out) {
		*comp_out = comp;
		comp = NULL;
	}
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

int cdg_one_lane(const struct fab_route_index *ix, struct cdg_one_lane *st, cdg_hook hook,
		 void *hook_ctx)
{
	int err;

	memset(st, 0, sizeof(*st));
	err = collect(ix, &st->m, hook, hook_ctx);
	if (!err)
		err = build_graph(ix, &st->m, &st->g, &st->chan);
	if (!err) {
		st->cdg.n_chan = st->g.n;
		st->cdg.n_deps = st->g.n_edges;
		err = cdg_find_cycles(&st->g, &st->cdg, &st->comp, &st->cycle_comp);
	}
	if (err)
		cdg_one_lane_free(st);
	return err;
}

void cdg_one_lane_free(struct cdg_one_lane *st)
{
	pairmap_free(&st->m);
	cdg_graph_free(&st->g);
	free(st->comp);
	free(st->chan);
	free(st->cycle_comp);
	fab_cdg_free(&st->cdg);
	memset(st, 0, sizeof(*st));
}

static int cmp_cycle(const void *a, const void *b)
{
	const struct fab_cdg_cycle *x = a, *y = b;

	if (x->chan[0] != y->chan[0])
		return x->chan[0] < y->chan[0] ? -1 : 1;
	if (x->vl && y->vl) /* per lane: the lower lane first */
		return (x->vl[0] > y->vl[0]) - (x->vl[0] < y->vl[0]);
	return 0;
}

void cdg_sort_cycles(struct fab_cdg *g)
{
	if (g->n_cycles > 1)
		qsort(g->cycles, g->n_cycles, sizeof(*g->cycles), cmp_cycle);
}

int fab_cdg_find(const struct fab_route_index *ix, struct fab_cdg *out)
{
	struct cdg_one_lane st;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = cdg_one_lane(ix, &st, NULL, NULL)))
		return err;
	*out = st.cdg; /* handed over */
	memset(&st.cdg, 0, sizeof(st.cdg));
	cdg_one_lane_free(&st);
	cdg_sort_cycles(out);
	return 0;
}

void fab_cdg_free(struct fab_cdg *g)
{
	for (size_t i = 0; i < g->n_cycles; i++) {
		free(g->cycles[i].chan);
		free(g->cycles[i].vl);
		free(g->cycles[i].sl);
	}
	free(g->cycles);
	memset(g, 0, sizeof(*g));
}
