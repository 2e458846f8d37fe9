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
 * c'), collected once however many destinations repeat it. Each triple and
 * service level then adds (c, sl2vl_p[i][o][s]) -> (c', sl2vl_q[in][o'][s]),
 * in being the port c arrives by. Service levels whose columns agree in
 * every table held give the same edges: each distinct one is taken once.
 * All service levels' edges form one graph (a lane's buffers are shared by
 * every SL mapped to it); its cycles are found as the one-lane ones are.
 * O(destinations x switches + triples x distinct SLs).
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

int fab_sl2vl_wanted(const struct fab_route_index *ix, struct fab_sl2vl_want **out, size_t *n)
{
	struct cdg_one_lane st;
	struct wants w = { 0 };
	uint8_t *cyclic;
	int err;

	*out = NULL;
	*n = 0;
	if ((err = cdg_one_lane(ix, &st)))
		return err;
	if (!st.cdg.n_cycles) {
		cdg_one_lane_free(&st);
		return 0;
	}
	if (!(cyclic = cyclic_sets(&st)))
		err = -ENOMEM;
	if (!err)
		err = each_pair(ix, &st, cyclic, add_want, &w);
	free(cyclic);
	cdg_one_lane_free(&st);
	if (err) {
		free(w.v);
		return err;
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

/* An open-addressing set of 64-bit keys (never ~0) with a payload each. */
struct kset {
	uint64_t *key;
	uint32_t *val;
	size_t n, cap;
};

/* Inserts k (val kept from the first insertion); *fresh says whether it
 * was new. The index of its slot, or SIZE_MAX on ENOMEM. */
static size_t kset_put(struct kset *s, uint64_t k, uint32_t val, bool *fresh)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		uint64_t *key = malloc(cap * sizeof(*key));
		uint32_t *v = malloc(cap * sizeof(*v));
		if (!key || !v) {
			free(key);
			free(v);
			return SIZE_MAX;
		}
		memset(key, 0xff, cap * sizeof(*key));
		for (size_t i = 0; i < s->cap; i++) {
			if (s->key[i] == UINT64_MAX)
				continue;
			size_t j = fab_hash_slot(s->key[i], cap);
			while (key[j] != UINT64_MAX)
				j = (j + 1) & (cap - 1);
			key[j] = s->key[i];
			v[j] = s->val[i];
		}
		free(s->key);
		free(s->val);
		s->key = key;
		s->val = v;
		s->cap = cap;
	}
	size_t j = fab_hash_slot(k, s->cap);
	while (s->key[j] != UINT64_MAX && s->key[j] != k)
		j = (j + 1) & (s->cap - 1);
	*fresh = s->key[j] == UINT64_MAX;
	if (*fresh) {
		s->key[j] = k;
		s->val[j] = val;
		s->n++;
	}
	return j;
}

static void kset_free(struct kset *s)
{
	free(s->key);
	free(s->val);
	memset(s, 0, sizeof(*s));
}

/* A route's step through two channels of one set: entered p by in_port,
 * left by channel c (local number), then by c'. */
struct triple {
	uint32_t in_port;       /* port index of p it entered by */
	uint32_t c, c2;         /* local channel numbers */
	uint16_t dlid;          /* a destination whose routes take it */
	const struct fab_sl2vl *t1, *t2; /* sl2vl_p[in][o], sl2vl_q[in'][o'] */
};

struct lanes {
	const struct fab_route_index *ix;
	const struct cdg_one_lane *st;
	uint32_t *local;   /* per channel of st->g: its local number, FAB_NONE */
	uint32_t *lport;   /* local number -> the channel's port index */
	size_t n_local;
	struct kset tset;  /* triple key -> index in tr */
	struct triple *tr;
	size_t n_tr, cap_tr;
};

static int add_triple(struct lanes *L, uint32_t in_port, uint32_t c, uint32_t c2, uint16_t dlid)
{
	/* a switch has at most 255 ports: in_port's number, c and c2 fit in 64 bits */
	uint64_t k = ((uint64_t)L->ix->snap->ports[in_port].port_num << 56) ^
		     ((uint64_t)c << 28) ^ c2;
	bool fresh;

	/* the key must be exact: c and c2 below 2^28 (checked by the caller) */
	if (kset_put(&L->tset, k, (uint32_t)L->n_tr, &fresh) == SIZE_MAX)
		return -ENOMEM;
	if (!fresh)
		return 0;
	struct triple *t = fab_array_grow((void **)&L->tr, &L->n_tr, &L->cap_tr, sizeof(*t));
	if (!t)
		return -ENOMEM;
	*t = (struct triple){ .in_port = in_port, .c = c, .c2 = c2, .dlid = dlid };
	return 0;
}

/* The local channel of the port a switch leaves by, FAB_NONE. */
static uint32_t lchan(const struct lanes *L, uint32_t port)
{
	uint32_t k = port == FAB_NONE ? FAB_NONE : L->st->chan[port];

	return k == FAB_NONE ? FAB_NONE : L->local[k];
}

/* One walk per destination: the triples inside the sets judged by lane. */
static int collect_triples(struct lanes *L)
{
	const struct fab_route_index *ix = L->ix;
	const struct fab_snapshot *s = ix->snap;
	const struct cdg_one_lane *st = L->st;
	struct fab_route_walk w;
	uint32_t *used = calloc(ix->n_sw + 1, sizeof(*used)), gen = 0;
	int err = fab_route_walk_init(ix, &w);

	if (!used)
		err = -ENOMEM;
	for (size_t e = 0; !err && e < ix->n_ends; e++) {
		uint32_t dst = ix->ends[e];
		uint16_t dlid;

		if (!fab_route_port_lids(s, dst, &dlid))
			continue;
		fab_route_walk_to(ix, &w, dlid);
		cdg_mark_used(ix, &w, dst, used, ++gen);
		for (uint32_t p = 0; p < ix->n_sw && !err; p++) {
			uint32_t q = used[p] == gen ? w.next[p] : FAB_NONE;
			if (q == FAB_NONE || w.next[q] == FAB_NONE)
				continue;
			uint32_t c = lchan(L, w.out[p]), c2 = lchan(L, w.out[q]);
			if (c == FAB_NONE || c2 == FAB_NONE ||
			    st->comp[L->st->chan[w.out[p]]] != st->comp[L->st->chan[w.out[q]]])
				continue;
			/* entered p from each used switch u with next(u) = p: found
			 * from u's side below; here p's own CAs */
			for (uint32_t k = ix->end_first[p]; k < ix->end_first[p + 1] && !err; k++)
				if (ix->end_list[k] != dst)
					err = add_triple(L, s->ports[ix->end_list[k]].remote_idx, c, c2, dlid);
		}
		for (uint32_t u = 0; u < ix->n_sw && !err; u++) {
			uint32_t p = used[u] == gen ? w.next[u] : FAB_NONE;
			uint32_t q = p == FAB_NONE ? FAB_NONE : w.next[p];
			if (q == FAB_NONE || w.next[q] == FAB_NONE)
				continue;
			uint32_t c = lchan(L, w.out[p]), c2 = lchan(L, w.out[q]);
			if (c == FAB_NONE || c2 == FAB_NONE ||
			    st->comp[L->st->chan[w.out[p]]] != st->comp[L->st->chan[w.out[q]]])
				continue;
			err = add_triple(L, s->ports[w.out[u]].remote_idx, c, c2, dlid);
		}
	}
	free(used);
	fab_route_walk_fini(&w);
	return err;
}

/* Service levels of sls whose VL columns differ in some held table from
 * every lower one's: the ones worth a pass. */
static uint16_t distinct_sls(const struct fab_routing *r, uint16_t sls)
{
	uint16_t reps = 0;

	for (unsigned s = 0; s < FAB_N_SL; s++) {
		if (!(sls >> s & 1))
			continue;
		bool same = false;
		for (unsigned t = 0; t < s && !same; t++) {
			if (!(reps >> t & 1))
				continue;
			same = true;
			for (size_t i = 0; i < r->n_sl2vl && same; i++)
				same = r->sl2vl[i].vl[s] == r->sl2vl[i].vl[t];
		}
		if (!same)
			reps |= (uint16_t)(1u << s);
	}
	return reps;
}

struct ledge {
	uint32_t from, to; /* keys: local channel << 4 | VL */
	uint16_t dlid;
	uint8_t sl;
};

static int cmp_ledge(const void *a, const void *b)
{
	const struct ledge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* The (channel, VL) graph of the triples, its cycles into lc (decoded: chan
 * a port index, vl and sl set). */
static int lane_cycles(struct lanes *L, uint16_t sls, struct fab_cdg *lc)
{
	const struct fab_routing *r = L->ix->snap->routing;
	uint16_t reps = distinct_sls(r, sls);
	struct kset eset = { 0 };
	struct ledge *ed = NULL;
	size_t n_ed = 0, cap_ed = 0;
	struct cdg_graph g = { 0 };
	uint32_t *node = NULL;
	int err = 0;

	for (size_t t = 0; t < L->n_tr && !err; t++) {
		const struct triple *x = &L->tr[t];
		for (unsigned sl = 0; sl < FAB_N_SL && !err; sl++) {
			if (!(reps >> sl & 1))
				continue;
			unsigned v = x->t1->vl[sl], v2 = x->t2->vl[sl];
			if (v >= FAB_VL_DROP || v2 >= FAB_VL_DROP)
				continue; /* dropped: no dependency */
			uint32_t a = x->c << 4 | v, b = x->c2 << 4 | v2;
			bool fresh;
			if (kset_put(&eset, (uint64_t)a << 32 | b, 0, &fresh) == SIZE_MAX) {
				err = -ENOMEM;
				break;
			}
			if (!fresh)
				continue;
			struct ledge *p = fab_array_grow((void **)&ed, &n_ed, &cap_ed, sizeof(*p));
			if (!p) {
				err = -ENOMEM;
				break;
			}
			*p = (struct ledge){ a, b, x->dlid, (uint8_t)sl };
		}
	}
	kset_free(&eset);
	if (err)
		goto out;
	/* nodes: the keys that occur, numbered in key order */
	size_t n_keys = L->n_local * 16;
	if (!(node = malloc((n_keys + 1) * sizeof(*node)))) {
		err = -ENOMEM;
		goto out;
	}
	memset(node, 0xff, (n_keys + 1) * sizeof(*node));
	for (size_t i = 0; i < n_ed; i++)
		node[ed[i].from] = node[ed[i].to] = 0;
	for (size_t k = 0; k < n_keys; k++)
		if (!node[k])
			node[k] = (uint32_t)g.n++;
	if (n_ed)
		qsort(ed, n_ed, sizeof(*ed), cmp_ledge);
	g.n_edges = n_ed;
	g.port = malloc((g.n + 1) * sizeof(*g.port));
	g.first = calloc(g.n + 2, sizeof(*g.first));
	g.edge = malloc((n_ed + 1) * sizeof(*g.edge));
	g.edlid = malloc((n_ed + 1) * sizeof(*g.edlid));
	g.esl = malloc(n_ed + 1);
	if (!g.port || !g.first || !g.edge || !g.edlid || !g.esl) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < n_keys; k++)
		if (node[k] != FAB_NONE)
			g.port[node[k]] = (uint32_t)k;
	/* edges sorted by source key = by source node */
	for (size_t i = 0; i < n_ed; i++) {
		g.first[node[ed[i].from] + 1]++;
		g.edge[i] = node[ed[i].to];
		g.edlid[i] = ed[i].dlid;
		g.esl[i] = ed[i].sl;
	}
	for (size_t i = 0; i < g.n; i++)
		g.first[i + 1] += g.first[i];
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
	free(ed);
	free(node);
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
	struct lanes L = { .ix = ix, .st = &st };
	struct missing ms = { .r = r };
	struct fab_cdg lc = { 0 };
	uint8_t *cyclic = NULL;
	size_t cap_out = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = cdg_one_lane(ix, &st)))
		return err;
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
	if (L.n_local) {
		if ((err = collect_triples(&L)))
			goto out;
		for (size_t t = 0; t < L.n_tr; t++) {
			struct triple *x = &L.tr[t];
			const struct fab_port *o1 = &ix->snap->ports[L.lport[x->c]];
			const struct fab_port *o2 = &ix->snap->ports[L.lport[x->c2]];
			x->t1 = fab_routing_sl2vl(r, o1->node_idx, ix->snap->ports[x->in_port].port_num,
						  o1->port_num);
			x->t2 = fab_routing_sl2vl(r, o2->node_idx,
						  ix->snap->ports[o1->remote_idx].port_num, o2->port_num);
			if (!x->t1 || !x->t2) { /* every table was counted held */
				err = -EINVAL;
				goto out;
			}
		}
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
	free(L.local);
	free(L.lport);
	kset_free(&L.tset);
	free(L.tr);
	cdg_one_lane_free(&st);
	if (err)
		fab_cdg_free(out);
	else
		cdg_sort_cycles(out);
	return err;
}
