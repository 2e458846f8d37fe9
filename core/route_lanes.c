// SPDX-License-Identifier: MIT
/*
 * Credit loops per virtual lane (include/fabsweep/routing.h). A cycle among
 * (channel, VL) pairs projects onto a cycle of the one-lane channel
 * dependency graph (core/route_cdg.c), so lanes only matter inside its
 * cyclic strongly connected sets: a healthy tree has none and needs no
 * SL2VL table at all.
 *
 * Inside those sets the analysis is path by path: a packet of service level
 * s that entered switch p by port i and leaves by o takes VL
 * sl2vl_p[i][o][s] on channel (p, o). Per destination, the walk gives each
 * switch's next hop; every route that enters p by i, leaves by o (channel
 * c) and then q by o' (channel c', both in one set) is a "triple" (i, c,
 * o'), a bit in c's bitmap however many destinations repeat it. Each
 * triple and service level then adds (c, sl2vl_p[i][o][s]) -> (c',
 * sl2vl_q[in][o'][s]), in being the port c arrives by; in-ports whose
 * tables agree give the same edges and are taken once. Service levels
 * whose columns agree in every table held give the same edges: each
 * distinct one is taken once. All service levels' edges form one graph (a
 * lane's buffers are shared by every SL mapped to it); its cycles are
 * found as the one-lane ones are. O(destinations x switches + channels x
 * in-ports x out-ports + edges), no hashing. When every table held maps
 * the SLs alike (a QoS policy set the same on every port), that graph is a
 * copy of the one-lane graph per lane: the one-lane cycles, copied to each
 * lane, are its cycles, and no triple is collected (alike_cycles).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "route_cdg_priv.h"

/* Calls fn on every (switch node, in, out) table the channels of cyclic sets
 * need; want[comp] says which sets (NULL: every cyclic one). */
typedef int (*pair_fn)(void *ctx, uint32_t comp, uint32_t node, unsigned in, unsigned out);

static int each_pair(const struct fab_route_index *ix, const struct cdg_one_lane *st,
		     const uint8_t *cyclic, pair_fn fn, void *ctx)
{
	const struct fab_snapshot *s = ix->snap;
	int err = 0;

	for (size_t k = 0; k < st->g.n && !err; k++) {
		if (!cyclic[st->comp[k]])
			continue;
		const struct fab_port *op = &s->ports[st->g.port[k]];
		uint32_t node = op->node_idx, sw = ix->node_sw[node];
		unsigned o = op->port_num;

		for (unsigned in = 1; in < st->m.width[sw] && !err; in++)
			if (cdg_bit(&st->m, sw, in, o))
				err = fn(ctx, st->comp[k], node, in, o);
		if (!cdg_bit(&st->m, sw, 0, o))
			continue;
		for (uint32_t e = ix->end_first[sw]; e < ix->end_first[sw + 1] && !err; e++)
			err = fn(ctx, st->comp[k], node, s->ports[s->ports[ix->end_list[e]].remote_idx].port_num, o);
	}
	return err;
}

/* Per cyclic set (by its id): 1. NULL when the graph has none. */
static uint8_t *cyclic_sets(const struct cdg_one_lane *st)
{
	uint8_t *c = calloc(st->g.n + 1, 1);

	for (size_t i = 0; c && i < st->cdg.n_cycles; i++)
		c[st->cycle_comp[i]] = 1;
	return c;
}

/* ---- which tables ------------------------------------------------------------ */

struct wants {
	struct fab_sl2vl_want *v;
	size_t n, cap;
};

static int add_want(void *ctx, uint32_t comp, uint32_t node, unsigned in, unsigned out)
{
	struct wants *w = ctx;

	(void)comp;
	struct fab_sl2vl_want *v = fab_array_grow((void **)&w->v, &w->n, &w->cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	*v = (struct fab_sl2vl_want){ node, (uint8_t)in, (uint8_t)out };
	return 0;
}

static uint64_t want_key(const struct fab_sl2vl_want *w)
{
	return (uint64_t)w->node_idx << 16 | (unsigned)w->in << 8 | w->out;
}

static int cmp_want(const void *a, const void *b)
{
	uint64_t x = want_key(a), y = want_key(b);

	return x < y ? -1 : x > y;
}

static int count_want(void *ctx, uint32_t comp, uint32_t node, unsigned in, unsigned out)
{
	(void)comp, (void)node, (void)in, (void)out;
	++*(size_t *)ctx;
	return 0;
}

int fab_sl2vl_wanted(const struct fab_route_index *ix, size_t max, struct fab_sl2vl_want **out,
		     size_t *n)
{
	struct cdg_one_lane st;
	struct wants w = { 0 };
	uint8_t *cyclic;
	size_t count = 0;
	int err;

	*out = NULL;
	*n = 0;
	if ((err = cdg_one_lane(ix, &st, NULL, NULL)))
		return err;
	if (!st.cdg.n_cycles) {
		cdg_one_lane_free(&st);
		return 0;
	}
	if (!(cyclic = cyclic_sets(&st)))
		err = -ENOMEM;
	/* counted first: a fabric-wide loop wants hundreds of thousands of
	 * tables that will not be read (over max), and listing and sorting
	 * them cost a third of the decision on Selene */
	if (!err)
		err = each_pair(ix, &st, cyclic, count_want, &count);
	if (!err && count <= max)
		err = each_pair(ix, &st, cyclic, add_want, &w);
	free(cyclic);
	cdg_one_lane_free(&st);
	if (err) {
		free(w.v);
		return err;
	}
	if (count > max) {
		*n = count;
		return 0;
	}
	size_t k = 0;
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), cmp_want);
	for (size_t i = 0; i < w.n; i++)
		if (!k || want_key(&w.v[k - 1]) != want_key(&w.v[i]))
			w.v[k++] = w.v[i];
	*out = w.v;
	*n = k;
	return 0;
}

/* ---- per lane ---------------------------------------------------------------- */

/*
 * Per channel c = (p, o) (a switch port cabled to a switch q): a bitmap over
 * (in-port i of p, out-port o' of q): some route entered p by i (0: from
 * p's own CAs), left by o, then q by o'. Each distinct triple is one bit
 * however many destinations repeat it (as the one-lane graph's pairs are);
 * a (c, o') column keeps the first destination that set it. Filled during
 * the one-lane pass (its hook), for every channel: the sets are not known
 * yet, and a second walk over every destination would cost as much again.
 */
struct lanes {
	const struct fab_route_index *ix;
	const struct cdg_one_lane *st;
	const struct fab_routing *r;
	uint32_t *local;   /* per channel of st->g: its local number, FAB_NONE */
	uint32_t *lport;   /* local number -> the channel's port index */
	size_t n_local;
	struct lport *pi;  /* per port index: its channel's place in the bitmaps */
	/* per port index: its number, and the number of the port it is cabled
	 * to (0: none); the hook reads them for every switch of every
	 * destination, and the ports themselves are many cache lines apart */
	uint8_t *num, *rnum;
	uint64_t *tbits;
	uint16_t *tdlid;
	size_t *pbit, *pcol; /* the hook's scratch: two per switch */
};

/* A channel's place in the bitmaps (one struct: the hook reads all of it
 * for every switch of every destination). */
struct lport {
	size_t tfirst;   /* its bits start at tbits' bit tfirst, SIZE_MAX: none */
	uint32_t ofirst; /* its columns' destinations at tdlid[ofirst] */
	uint16_t wp, wq; /* rows (p's ports + 1), columns (q's ports + 1) */
};

/* The local channel of the port a switch leaves by, FAB_NONE. */
static uint32_t lchan(const struct lanes *L, uint32_t port)
{
	uint32_t k = port == FAB_NONE ? FAB_NONE : L->st->chan[port];

	return k == FAB_NONE ? FAB_NONE : L->local[k];
}

static unsigned rows_of(const struct lanes *L, uint32_t port)
{
	const struct fab_snapshot *s = L->ix->snap;

	return s->nodes[s->ports[port].node_idx].num_ports + 1u;
}

static int lanes_alloc(struct lanes *L)
{
	const struct fab_snapshot *s = L->ix->snap;
	size_t bits = 0, cols = 0;

	L->pi = calloc(s->n_ports + 1, sizeof(*L->pi));
	L->num = calloc(s->n_ports + 1, 1);
	L->rnum = calloc(s->n_ports + 1, 1);
	L->pbit = malloc((2 * L->ix->n_sw + 1) * sizeof(*L->pbit));
	L->pcol = malloc((2 * L->ix->n_sw + 1) * sizeof(*L->pcol));
	if (!L->pi || !L->num || !L->rnum || !L->pbit || !L->pcol)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *op = &s->ports[i];
		L->pi[i].tfirst = SIZE_MAX;
		L->num[i] = op->port_num;
		if (op->remote_idx < s->n_ports)
			L->rnum[i] = s->ports[op->remote_idx].port_num;
		if (op->port_num == 0 || op->remote_idx == FAB_NONE || op->remote_idx >= s->n_ports ||
		    s->nodes[op->node_idx].type != FAB_NODE_SWITCH ||
		    s->nodes[s->ports[op->remote_idx].node_idx].type != FAB_NODE_SWITCH)
			continue;
		struct lport *x = &L->pi[i];
		x->wq = (uint16_t)(s->nodes[s->ports[op->remote_idx].node_idx].num_ports + 1u);
		x->wp = (uint16_t)rows_of(L, (uint32_t)i);
		x->tfirst = bits;
		x->ofirst = (uint32_t)cols;
		bits += (size_t)x->wp * x->wq;
		cols += x->wq;
		if (cols > UINT32_MAX)
			return -EOVERFLOW;
	}
	L->tbits = calloc(bits / 64 + 1, sizeof(*L->tbits));
	L->tdlid = calloc(cols + 1, sizeof(*L->tdlid));
	return L->tbits && L->tdlid ? 0 : -ENOMEM;
}

static void lanes_free(struct lanes *L)
{
	free(L->local);
	free(L->lport);
	free(L->pi);
	free(L->num);
	free(L->rnum);
	free(L->pbit);
	free(L->pcol);
	free(L->tbits);
	free(L->tdlid);
}

static bool tbit(const struct lanes *L, uint32_t port, unsigned i, unsigned o2)
{
	size_t bit = L->pi[port].tfirst + (size_t)i * L->pi[port].wq + o2;

	return L->tbits[bit / 64] >> (bit % 64) & 1;
}

/* Bits from .. from + n - 1 of bits (n at most 64) as one word, the first
 * the lowest. */
static uint64_t bits_at(const uint64_t *bits, size_t from, unsigned n)
{
	unsigned sh = from % 64;
	uint64_t w = bits[from / 64] >> sh;

	if (sh && sh + n > 64)
		w |= bits[from / 64 + 1] << (64 - sh);
	return n < 64 ? w & ((1ull << n) - 1) : w;
}

/* A route through switch p entered by in-port number i: the bit (i, o') of
 * its channel out of p, o' the next switch's out-port (*col: its column's
 * place in tdlid). SIZE_MAX: none. */
static size_t triple_bit(const struct lanes *L, const struct fab_route_walk *w, uint32_t p,
			 unsigned i, size_t *col)
{
	uint32_t q = w->next[p];

	if (q == FAB_NONE || w->next[q] == FAB_NONE)
		return SIZE_MAX;
	uint32_t c = w->out[p];
	unsigned o2 = L->num[w->out[q]];
	const struct lport *x = &L->pi[c];
	if (x->tfirst == SIZE_MAX || i >= x->wp || o2 >= x->wq)
		return SIZE_MAX;
	*col = x->ofirst + o2;
	return x->tfirst + (size_t)i * x->wq + o2;
}

/* The one-lane pass's hook: the triples of one destination's routes. Their
 * bits are found first, each word prefetched, then set: the bitmaps are
 * megabytes (a channel per switch port, 41 x 41 bits each on Selene) and
 * one miss after the other cost most of the hook. The order of the sets
 * does not matter (one destination). */
static void collect_triples(void *ctx, const struct fab_route_walk *w, uint32_t dst,
			    const uint32_t *used, uint32_t gen)
{
	struct lanes *L = ctx;
	const struct fab_route_index *ix = L->ix;
	size_t n = 0;

	for (uint32_t u = 0; u < ix->n_sw; u++) {
		if (used[u] != gen || w->next[u] == FAB_NONE)
			continue;
		/* u's own CAs (not the destination alone) */
		uint32_t n_src = ix->end_first[u + 1] - ix->end_first[u];
		if (n_src > 1 || (n_src == 1 && ix->end_list[ix->end_first[u]] != dst))
			if ((L->pbit[n] = triple_bit(L, w, u, 0, &L->pcol[n])) != SIZE_MAX)
				__builtin_prefetch(&L->tbits[L->pbit[n++] / 64], 1);
		/* u's traffic entering its next switch */
		if ((L->pbit[n] = triple_bit(L, w, w->next[u], L->rnum[w->out[u]], &L->pcol[n])) != SIZE_MAX)
			__builtin_prefetch(&L->tbits[L->pbit[n++] / 64], 1);
	}
	for (size_t k = 0; k < n; k++) {
		uint64_t *word = &L->tbits[L->pbit[k] / 64], b = 1ull << (L->pbit[k] % 64);
		if (*word & b)
			continue; /* had: its column has its destination (a LID is never 0) */
		*word |= b;
		if (!L->tdlid[L->pcol[k]])
			L->tdlid[L->pcol[k]] = w->dlid;
	}
}

/* A table's VLs, 4 bits per SL (SL s at bits 4s..4s+3). */
static uint64_t packed(const struct fab_sl2vl *t)
{
	uint64_t v = 0;

	for (unsigned sl = 0; sl < FAB_N_SL; sl++)
		v |= (uint64_t)(t->vl[sl] & 15) << (4 * sl);
	return v;
}

/* Service levels of sls whose VL columns differ in some held table from
 * every lower one's: the ones worth a pass. One pass over the tables
 * (a table like the one before it changes nothing): same[s] has bit t when
 * SLs s and t share a VL in every table. */
static uint16_t distinct_sls(const struct fab_routing *r, uint16_t sls)
{
	uint16_t same[FAB_N_SL], reps = 0;
	const uint8_t *prev = NULL;

	for (unsigned s = 0; s < FAB_N_SL; s++)
		same[s] = 0xffff;
	for (size_t i = 0; i < r->n_sl2vl; i++) {
		const uint8_t *vl = r->sl2vl[i].vl;
		uint16_t on[16] = { 0 }; /* per VL: the SLs on it */

		if (prev && !memcmp(vl, prev, FAB_N_SL))
			continue;
		prev = vl;
		for (unsigned s = 0; s < FAB_N_SL; s++)
			on[vl[s] & 15] |= (uint16_t)(1u << s);
		for (unsigned s = 0; s < FAB_N_SL; s++)
			same[s] &= on[vl[s] & 15];
	}
	for (unsigned s = 0; s < FAB_N_SL; s++)
		if ((sls >> s & 1) && !(same[s] & reps))
			reps |= (uint16_t)(1u << s);
	return reps;
}

struct ledge {
	uint32_t from, to; /* keys: local channel << 4 | VL */
	uint16_t dlid;
	uint8_t sl;
};

struct edges {
	struct ledge *v;
	size_t n, cap;
};

/* Adds t1's distinct value to set[*n] (a few: usually one). */
static void add_distinct(uint64_t *set, size_t *n, uint64_t t1)
{
	for (size_t k = 0; k < *n; k++)
		if (set[k] == t1)
			return;
	set[(*n)++] = t1;
}

/* Room for n more edges in g (cap: its arrays' capacity), the three per-edge
 * arrays grown together. */
static int reserve_edges(struct cdg_graph *g, size_t *cap, size_t n)
{
	size_t want = *cap ? *cap : 1024;

	while (want < g->n_edges + n)
		want *= 2;
	if (want == *cap)
		return 0;
	uint32_t *edge = realloc(g->edge, want * sizeof(*edge));
	if (edge)
		g->edge = edge;
	uint16_t *edlid = edge ? realloc(g->edlid, want * sizeof(*edlid)) : NULL;
	if (edlid)
		g->edlid = edlid;
	uint8_t *esl = edlid ? realloc(g->esl, want) : NULL;
	if (!esl)
		return -ENOMEM;
	g->esl = esl;
	*cap = want;
	return 0;
}

/* The (channel, VL) edges out of local channel c, appended to g (its CSR
 * arrays, keys as nodes) by source key (tmp: a scratch list; cset,
 * n_cset, set and ca_t1 scratch arrays). */
static int channel_edges(struct lanes *L, uint32_t c, uint16_t reps, uint64_t *cset, size_t *n_cset,
			 uint64_t *set, uint64_t *ca_t1, struct edges *tmp, struct cdg_graph *g,
			 size_t *cap)
{
	const struct fab_snapshot *s = L->ix->snap;
	const struct fab_route_index *ix = L->ix;
	uint32_t P = L->lport[c];
	const struct fab_port *op = &s->ports[P];
	const struct fab_port *ip = &s->ports[op->remote_idx]; /* where c arrives at q */
	uint32_t p = op->node_idx, q = ip->node_idx, sw = ix->node_sw[p], comp = L->st->comp[L->st->chan[P]];
	unsigned wp = rows_of(L, P), wq = L->pi[P].wq;

	tmp->n = 0;
	/* the distinct tables of p's own CAs toward o (each enters by its own
	 * port), looked up once for every column */
	size_t n_ca = 0;
	for (uint32_t k = ix->end_first[sw]; k < ix->end_first[sw + 1]; k++) {
		const struct fab_sl2vl *t = fab_routing_sl2vl(L->r, p, L->rnum[ix->end_list[k]], op->port_num);
		if (t)
			add_distinct(ca_t1, &n_ca, packed(t));
	}
	/* per column o2, the distinct tables toward o of the in-ports some
	 * route entered by (cset[o2 * wp ..], in-port order): row by row, a
	 * word of bits at a time (most are 0) */
	memset(n_cset, 0, wq * sizeof(*n_cset));
	for (unsigned i = 1; i < wp; i++) {
		size_t row = L->pi[P].tfirst + (size_t)i * wq;
		const struct fab_sl2vl *t = NULL;
		uint64_t t1 = 0;

		for (unsigned o0 = 0; o0 < wq; o0 += 64) {
			uint64_t m = bits_at(L->tbits, row + o0, wq - o0 < 64 ? wq - o0 : 64);
			if (!o0)
				m &= ~1ull; /* column 0: no out-port */
			if (m && !t) {
				if (!(t = fab_routing_sl2vl(L->r, p, i, op->port_num)))
					break; /* not held: the row adds nothing */
				t1 = packed(t);
			}
			for (; m; m &= m - 1) {
				unsigned o2 = o0 + (unsigned)__builtin_ctzll(m);
				add_distinct(&cset[(size_t)o2 * wp], &n_cset[o2], t1);
			}
		}
	}
	for (unsigned o2 = 1; o2 < wq; o2++) {
		size_t n_set = n_cset[o2];

		memcpy(set, &cset[(size_t)o2 * wp], n_set * sizeof(*set));
		if (tbit(L, P, 0, o2)) /* p's CAs */
			for (size_t k = 0; k < n_ca; k++)
				add_distinct(set, &n_set, ca_t1[k]);
		if (!n_set)
			continue;
		const struct fab_port *op2 = fab_snapshot_port(s, q, o2);
		uint32_t P2 = op2 ? (uint32_t)(op2 - s->ports) : FAB_NONE;
		uint32_t c2 = lchan(L, P2);
		if (c2 == FAB_NONE || L->st->comp[L->st->chan[P2]] != comp)
			continue; /* leaves the set: no cycle through it */
		const struct fab_sl2vl *t2 = fab_routing_sl2vl(L->r, q, ip->port_num, o2);
		if (!t2)
			continue;
		uint64_t v2s = packed(t2), seen[4] = { 0 }; /* (v, v2) pairs of this c -> c2 */
		for (size_t k = 0; k < n_set; k++)
			for (unsigned sl = 0; sl < FAB_N_SL; sl++) {
				unsigned v = set[k] >> (4 * sl) & 15, v2 = v2s >> (4 * sl) & 15;
				if (!(reps >> sl & 1) || v >= FAB_VL_DROP || v2 >= FAB_VL_DROP ||
				    (seen[(v << 4 | v2) / 64] >> ((v << 4 | v2) % 64) & 1))
					continue; /* not asked, dropped, or had */
				seen[(v << 4 | v2) / 64] |= 1ull << ((v << 4 | v2) % 64);
				struct ledge *e = fab_array_grow((void **)&tmp->v, &tmp->n, &tmp->cap,
								 sizeof(*e));
				if (!e)
					return -ENOMEM;
				*e = (struct ledge){ c << 4 | v, c2 << 4 | v2,
						     L->tdlid[L->pi[P].ofirst + o2], (uint8_t)sl };
			}
	}
	/* by source lane (a counting sort: the targets stay in column order) */
	size_t at[17] = { 0 };
	if (reserve_edges(g, cap, tmp->n))
		return -ENOMEM;
	for (size_t k = 0; k < tmp->n; k++)
		at[(tmp->v[k].from & 15) + 1]++;
	for (unsigned v = 0; v < 16; v++)
		at[v + 1] += at[v];
	for (size_t k = 0; k < tmp->n; k++) {
		const struct ledge *e = &tmp->v[k];
		size_t to = g->n_edges + at[e->from & 15]++;
		g->first[e->from + 1]++;
		g->edge[to] = e->to;
		g->edlid[to] = e->dlid;
		g->esl[to] = e->sl;
	}
	g->n_edges += tmp->n;
	return 0;
}

/* The one SL -> VL mapping of every table held (a QoS policy set alike on
 * every port), NULL when they differ. */
static const uint8_t *one_mapping(const struct fab_routing *r)
{
	for (size_t i = 1; i < r->n_sl2vl; i++)
		if (memcmp(r->sl2vl[i].vl, r->sl2vl[0].vl, FAB_N_SL))
			return NULL;
	return r->n_sl2vl ? r->sl2vl[0].vl : NULL;
}

/* Appends to lc (cap: its capacity) a copy of one-lane cycle from, on lane
 * vl with service level sl at every channel. 0 or -ENOMEM. */
static int copy_cycle(struct fab_cdg *lc, size_t *cap, const struct fab_cdg_cycle *from, uint8_t vl,
		      uint8_t sl)
{
	struct fab_cdg_cycle *to = fab_array_grow((void **)&lc->cycles, &lc->n_cycles, cap, sizeof(*to));

	if (!to)
		return -ENOMEM;
	*to = (struct fab_cdg_cycle){ .n_chan = from->n_chan, .scc_size = from->scc_size,
				      .scc_deps = from->scc_deps, .dlid = from->dlid,
				      .lanes = FAB_CDG_LANES };
	to->chan = malloc(from->n_chan * sizeof(*to->chan) + 1);
	to->vl = malloc(from->n_chan + 1);
	to->sl = malloc(from->n_chan + 1);
	if (!to->chan || !to->vl || !to->sl)
		return -ENOMEM; /* lc's to free */
	memcpy(to->chan, from->chan, from->n_chan * sizeof(*to->chan));
	memset(to->vl, vl, from->n_chan);
	memset(to->sl, sl, from->n_chan);
	return 0;
}

/*
 * Every table alike (one mapping m, as a QoS policy set alike on every
 * port makes them): the lane cycles without the (channel, VL) graph. Its
 * edges are then (c, m[s]) -> (c', m[s]), s a representative SL (one per
 * lane: the lowest of those on it), for every one-lane dependency c -> c'
 * of a set judged by lane (a triple (i, c, o') is set by exactly the
 * routes, so the destinations, that set the dependency: a switch a route
 * enters from another is on the used paths as a source switch is), in the
 * same order (the next switch's out-port's). So the graph is one copy of
 * the one-lane graph per lane, and Tarjan finds in each copy the set's
 * one-lane cycle (the same channels, first edge, set size and
 * dependencies), on that lane with its SL. The triples are not collected
 * at all. by_lane: per one-lane set, 1 when judged by lane.
 */
static int alike_cycles(const struct cdg_one_lane *st, const uint8_t *by_lane, const uint8_t *m,
			uint16_t reps, struct fab_cdg *lc)
{
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; i < st->cdg.n_cycles && !err; i++)
		for (unsigned sl = 0; sl < FAB_N_SL && !err && by_lane[st->cycle_comp[i]]; sl++)
			if ((reps >> sl & 1) && (m[sl] & 15) < FAB_VL_DROP)
				err = copy_cycle(lc, &cap, &st->cdg.cycles[i], m[sl] & 15, (uint8_t)sl);
	return err;
}

/* The (channel, VL) graph of the triples, its cycles into lc (decoded: chan
 * a port index, vl and sl set). Its nodes are the keys (local channel << 4
 * | VL) themselves, isolated ones included: the edges are appended in key
 * order straight into the CSR arrays (on Selene's fabric-wide loop 4.4
 * million of them; a list of edges sorted afterwards cost twice the memory
 * and a third of the rule's time in page faults). */
static int lane_cycles(struct lanes *L, uint16_t sls, struct fab_cdg *lc)
{
	const struct fab_snapshot *s = L->ix->snap;
	uint16_t reps = distinct_sls(L->r, sls);
	struct edges tmp = { 0 };
	struct cdg_graph g = { .n = L->n_local * 16 };
	size_t max_w = 1, cap = 0;
	int err = 0;

	for (size_t n = 0; n < s->n_nodes; n++)
		if (s->nodes[n].num_ports + 1u > max_w)
			max_w = s->nodes[n].num_ports + 1u;
	uint64_t *cset = malloc((max_w * max_w + 1) * sizeof(*cset));
	uint64_t *set = malloc((max_w + s->n_ports + 1) * sizeof(*set));
	uint64_t *ca_t1 = malloc((s->n_ports + 1) * sizeof(*ca_t1));
	size_t *n_cset = malloc((max_w + 1) * sizeof(*n_cset));
	g.port = malloc((g.n + 1) * sizeof(*g.port));
	g.first = calloc(g.n + 2, sizeof(*g.first));
	if (!cset || !set || !ca_t1 || !n_cset || !g.port || !g.first || reserve_edges(&g, &cap, 1))
		err = -ENOMEM;
	for (uint32_t c = 0; c < L->n_local && !err; c++)
		err = channel_edges(L, c, reps, cset, n_cset, set, ca_t1, &tmp, &g, &cap);
	free(tmp.v);
	free(cset);
	free(set);
	free(ca_t1);
	free(n_cset);
	if (err)
		goto out;
	for (size_t k = 0; k < g.n; k++) {
		g.port[k] = (uint32_t)k;
		g.first[k + 1] += g.first[k];
	}
	if ((err = cdg_find_cycles(&g, lc, NULL, NULL)))
		goto out;
	for (size_t i = 0; i < lc->n_cycles && !err; i++) {
		struct fab_cdg_cycle *c = &lc->cycles[i];
		if (!(c->vl = malloc(c->n_chan + 1))) {
			err = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < c->n_chan; k++) {
			c->vl[k] = (uint8_t)(c->chan[k] & 15);
			c->chan[k] = L->lport[c->chan[k] >> 4];
		}
		c->lanes = FAB_CDG_LANES;
	}
out:
	cdg_graph_free(&g);
	return err;
}

/* Counts, per cyclic set, the tables it needs that the snapshot lacks. */
struct missing {
	const struct fab_routing *r;
	size_t *n_missing; /* per set id */
	size_t *n_needed;
};

static int count_missing(void *ctx, uint32_t comp, uint32_t node, unsigned in, unsigned out)
{
	struct missing *m = ctx;

	m->n_needed[comp]++;
	m->n_missing[comp] += !fab_routing_sl2vl(m->r, node, in, out);
	return 0;
}

/* Moves cycle i of from to the end of to (cap: to's capacity). 0 or -ENOMEM. */
static int move_cycle(struct fab_cdg *from, size_t i, struct fab_cdg *to, size_t *cap)
{
	struct fab_cdg_cycle *c = fab_array_grow((void **)&to->cycles, &to->n_cycles, cap,
						 sizeof(*c));

	if (!c)
		return -ENOMEM;
	*c = from->cycles[i];
	memset(&from->cycles[i], 0, sizeof(from->cycles[i]));
	return 0;
}

int fab_cdg_find_lanes(const struct fab_route_index *ix, uint16_t sls, struct fab_cdg *out)
{
	const struct fab_routing *r = ix->snap->routing;
	struct cdg_one_lane st;
	struct lanes L = { .ix = ix, .st = &st, .r = r };
	struct missing ms = { .r = r };
	struct fab_cdg lc = { 0 };
	uint8_t *cyclic = NULL;
	size_t cap_out = 0;
	int err;

	memset(out, 0, sizeof(*out));
	/* the triples are collected in the one-lane pass when lanes can be
	 * judged at all (the snapshot holds tables), and the tables differ
	 * (alike_cycles needs none; below 2^27 ports every channel of a set
	 * judged by lane is numbered) */
	bool any = r && r->n_sl2vl;
	const uint8_t *m = any && ix->snap->n_ports < (1u << 27) ? one_mapping(r) : NULL;
	if ((any && !m && (err = lanes_alloc(&L))) ||
	    (err = cdg_one_lane(ix, &st, any && !m ? collect_triples : NULL, &L))) {
		lanes_free(&L);
		return err;
	}
	out->n_chan = st.cdg.n_chan;
	out->n_deps = st.cdg.n_deps;
	if (!st.cdg.n_cycles)
		goto out;
	cyclic = cyclic_sets(&st);
	ms.n_missing = calloc(st.g.n + 1, sizeof(*ms.n_missing));
	ms.n_needed = calloc(st.g.n + 1, sizeof(*ms.n_needed));
	L.local = malloc((st.g.n + 1) * sizeof(*L.local));
	L.lport = malloc((st.g.n + 1) * sizeof(*L.lport));
	if (!cyclic || !ms.n_missing || !ms.n_needed || !L.local || !L.lport) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = each_pair(ix, &st, cyclic, count_missing, &ms)))
		goto out;
	/* the sets judged by lane: every table they need is held */
	for (size_t k = 0; k < st.g.n; k++) {
		uint32_t c = st.comp[k];
		bool by_lane = cyclic[c] && ms.n_needed[c] && !ms.n_missing[c];
		L.local[k] = by_lane && L.n_local < (1u << 27) ? (uint32_t)L.n_local : FAB_NONE;
		if (L.local[k] != FAB_NONE)
			L.lport[L.n_local++] = st.g.port[k];
	}
	if (L.n_local && m) {
		for (size_t c = 0; c <= st.g.n; c++) /* now: per set, judged by lane */
			cyclic[c] = cyclic[c] && ms.n_needed[c] && !ms.n_missing[c];
		if ((err = alike_cycles(&st, cyclic, m, distinct_sls(r, sls), &lc)))
			goto out;
	} else if (L.n_local) {
		if ((err = lane_cycles(&L, sls, &lc)))
			goto out;
	}
	/* the cycles: per one-lane set, its first cycle on lanes (its lanes
	 * summed up), then the one-lane ones of the other sets */
	cdg_sort_cycles(&lc);
	for (size_t k = 0; k < st.g.n; k++)
		L.local[k] = FAB_NONE; /* now: per one-lane set, its cycle in out */
	for (size_t i = 0; i < lc.n_cycles && !err; i++) {
		struct fab_cdg_cycle *y = &lc.cycles[i];
		uint32_t c = st.comp[st.chan[y->chan[0]]];
		uint16_t mask = 0;

		for (size_t k = 0; k < y->n_chan; k++)
			mask |= (uint16_t)(1u << y->vl[k]);
		if (L.local[c] != FAB_NONE) {
			out->cycles[L.local[c]].vl_mask |= mask;
			continue;
		}
		y->vl_mask = mask;
		L.local[c] = (uint32_t)out->n_cycles;
		err = move_cycle(&lc, i, out, &cap_out);
	}
	for (size_t i = 0; i < st.cdg.n_cycles && !err; i++) {
		uint32_t c = st.cycle_comp[i];
		if (ms.n_needed[c] && !ms.n_missing[c])
			continue; /* judged by lane above */
		st.cdg.cycles[i].lanes_missing = ms.n_missing[c];
		err = move_cycle(&st.cdg, i, out, &cap_out);
	}
out:
	fab_cdg_free(&lc);
	free(cyclic);
	free(ms.n_missing);
	free(ms.n_needed);
	lanes_free(&L);
	cdg_one_lane_free(&st);
	if (err)
		fab_cdg_free(out);
	else
		cdg_sort_cycles(out);
	return err;
}
