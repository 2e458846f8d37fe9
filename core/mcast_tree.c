// SPDX-License-Identifier: MIT
/*
 * The tree of one MLID as the switches' multicast forwarding tables write
 * it (include/fabsweep/mcast.h, docs/multicast.md): the rules, `route
 * --mcast` and diff all ask fab_mc_tree_build.
 *
 * A switch that receives a packet of the MLID on port i sends it out of
 * every port its entry names but i. Switches with a non-empty entry are the
 * hops; an entry port leads to another switch (an edge), to a CA port or
 * the switch's own port 0 (a delivery), or nowhere (not Active). Every
 * member sends (send-only ones too) into the switch its port hangs off;
 * the receiving members (full and non-members) must get what the others
 * send. One breadth-first walk per switch that has members gives what
 * reaches what: O(member switches x (hops + edges)); the members are then
 * counted per switch, never per pair.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/mcast.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

struct work {
	const struct fab_snapshot *s;
	const struct fab_mcast *m;
	struct fab_mc_tree *t;
	uint16_t mlid;
	/* per entry port k (tree->ports[k]) */
	uint32_t *dest;  /* the hop it leads to, FAB_NONE */
	uint32_t *arr;   /* the port (index) the packet arrives by there */
	uint32_t *ca;    /* the CA port or port 0 it delivers to, FAB_NONE */
	uint8_t *unk;    /* it leads to a switch whose entry is not known */
	uint32_t *hop_of_k;
};

static void *zalloc(size_t n, size_t sz)
{
	return calloc(n ? n : 1, sz);
}

/* The hop (index) of a switch, FAB_NONE. */
static uint32_t hop_of(const struct fab_mc_tree *t, uint32_t node)
{
	size_t lo = 0, hi = t->n_hops;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->hops[mid].node < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n_hops && t->hops[lo].node == node ? (uint32_t)lo : FAB_NONE;
}

static bool port_active(const struct fab_port *p)
{
	return p->state == FAB_STATE_ACTIVE;
}

/* Whether a switch's entry for the MLID is not known: no table, a failed
 * one, its block not asked (within its MulticastFDBCap), or a position
 * that did not answer. */
static bool entry_unknown(const struct work *w, uint32_t node)
{
	const struct fab_mft *t = fab_mcast_mft(w->m, node);
	uint16_t masks[FAB_MFT_MAX_POS];
	int rc;

	if (!t || t->status == FAB_LFT_FAILED)
		return true;
	rc = fab_mft_entry(t, w->mlid, masks);
	if (rc < 0) /* not asked: unknown, unless the switch cannot hold it */
		return (unsigned)(w->mlid - FAB_MLID_FIRST) < t->cap;
	return rc == 0;
}

static int push(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	uint32_t *p = fab_array_grow((void **)v, n, cap, sizeof(**v));

	if (!p)
		return -ENOMEM;
	*p = x;
	return 0;
}

/* The hops: every switch whose entry names a port; their ports. */
static int find_hops(struct work *w)
{
	struct fab_mc_tree *t = w->t;
	size_t cap_h = 0, cap_p = 0;

	for (size_t i = 0; i < w->m->n_mfts; i++) {
		const struct fab_mft *mf = &w->m->mfts[i];
		uint16_t masks[FAB_MFT_MAX_POS];
		size_t first = t->n_ports;

		if (mf->node_idx >= w->s->n_nodes || fab_mft_entry(mf, w->mlid, masks) < 0)
			continue;
		for (unsigned p = 0; p < mf->n_pos; p++)
			for (unsigned j = 0; masks[p] && j < FAB_MFT_POS_PORTS; j++) {
				if (!(masks[p] >> j & 1))
					continue;
				const struct fab_port *pt =
					fab_snapshot_port(w->s, mf->node_idx, p * FAB_MFT_POS_PORTS + j);
				if (pt && push(&t->ports, &t->n_ports, &cap_p,
					       (uint32_t)(pt - w->s->ports)))
					return -ENOMEM;
			}
		if (t->n_ports == first)
			continue;
		struct fab_mc_hop *h = fab_array_grow((void **)&t->hops, &t->n_hops, &cap_h,
						      sizeof(*h));
		if (!h)
			return -ENOMEM;
		h->node = mf->node_idx;
		h->first = (uint32_t)first;
		h->n = (uint32_t)(t->n_ports - first);
		h->unknown = entry_unknown(w, mf->node_idx);
	}
	return 0;
}

/* Where each entry port leads. */
static int find_edges(struct work *w)
{
	struct fab_mc_tree *t = w->t;
	size_t n = t->n_ports;

	w->dest = zalloc(n, sizeof(*w->dest));
	w->arr = zalloc(n, sizeof(*w->arr));
	w->ca = zalloc(n, sizeof(*w->ca));
	w->unk = zalloc(n, 1);
	w->hop_of_k = zalloc(n, sizeof(*w->hop_of_k));
	if (!w->dest || !w->arr || !w->ca || !w->unk || !w->hop_of_k)
		return -ENOMEM;
	for (size_t h = 0; h < t->n_hops; h++)
		for (uint32_t k = t->hops[h].first; k < t->hops[h].first + t->hops[h].n; k++)
			w->hop_of_k[k] = (uint32_t)h;
	for (size_t k = 0; k < n; k++) {
		const struct fab_port *p = &w->s->ports[t->ports[k]];

		w->dest[k] = w->arr[k] = w->ca[k] = FAB_NONE;
		if (p->port_num == 0) { /* the switch itself */
			w->ca[k] = t->ports[k];
			continue;
		}
		if (!port_active(p) || p->remote_idx == FAB_NONE || p->remote_idx >= w->s->n_ports)
			continue; /* nowhere */
		const struct fab_port *r = &w->s->ports[p->remote_idx];
		const struct fab_node *rn = &w->s->nodes[r->node_idx];
		if (rn->type != FAB_NODE_SWITCH) {
			w->ca[k] = p->remote_idx;
			continue;
		}
		w->arr[k] = p->remote_idx;
		w->dest[k] = hop_of(t, r->node_idx);
		if (w->dest[k] == FAB_NONE)
			w->unk[k] = entry_unknown(w, r->node_idx);
		else
			w->unk[k] = t->hops[w->dest[k]].unknown;
	}
	return 0;
}

/* The member entries: every member of the MLID's groups that is in the
 * topology, with the switch it hangs off and whether that switch's entry
 * names its port. */
static int find_members(struct work *w)
{
	struct fab_mc_tree *t = w->t;
	size_t n = 0;

	for (size_t i = 0; i < t->n_groups; i++)
		n += w->m->groups[t->groups[i]].n;
	if (!(t->reach = zalloc(n, sizeof(*t->reach))))
		return -ENOMEM;
	for (size_t i = 0; i < t->n_groups; i++) {
		const struct fab_mc_group *g = &w->m->groups[t->groups[i]];

		for (uint32_t j = g->first; j < g->first + g->n; j++) {
			const struct fab_mc_member *mb = &w->m->members[j];
			struct fab_mc_reach *r;
			unsigned on_port;

			if (mb->port_idx == FAB_NONE || mb->port_idx >= w->s->n_ports) {
				t->n_absent++;
				continue;
			}
			r = &t->reach[t->n_reach++];
			r->member = j;
			r->port = mb->port_idx;
			r->sw = r->example = FAB_NONE;
			r->receives = FAB_MC_RECEIVES(mb->join_state);
			const struct fab_port *p = &w->s->ports[mb->port_idx];
			if (w->s->nodes[p->node_idx].type == FAB_NODE_SWITCH) {
				r->sw = p->node_idx; /* its port 0 */
				on_port = 0;
			} else if (port_active(p) && p->remote_idx < w->s->n_ports &&
				   w->s->nodes[w->s->ports[p->remote_idx].node_idx].type == FAB_NODE_SWITCH) {
				r->sw = w->s->ports[p->remote_idx].node_idx;
				on_port = w->s->ports[p->remote_idx].port_num;
			} else {
				continue;
			}
			int has = fab_mft_has_port(fab_mcast_mft(w->m, r->sw), w->mlid, on_port);
			if (has < 0 && !entry_unknown(w, r->sw))
				has = 0; /* beyond what the switch holds */
			r->bit_missing = has == 0;
			r->unknown = has < 0;
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static size_t find_u32(const uint32_t *v, size_t n, uint32_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x ? lo : SIZE_MAX;
}

/*
 * Members on a switch whose entry is not known (its table lost) may send
 * into every hop whose entry leads back to that switch: those hops, and
 * what they lead to, count as reached (hop.fwd), so that no entry is called
 * unneeded for want of a table. queue: n_hops entries of scratch.
 */
static void unknown_senders(struct work *w, const uint32_t *msw, size_t nm, const uint8_t *unk,
			    uint32_t *queue)
{
	struct fab_mc_tree *t = w->t;
	size_t qh = 0, qt = 0;

	for (size_t k = 0; k < t->n_ports; k++) {
		uint32_t h = w->hop_of_k[k];

		if (w->dest[k] != FAB_NONE || !w->unk[k] || w->arr[k] == FAB_NONE || t->hops[h].fwd)
			continue;
		size_t si = find_u32(msw, nm, w->s->ports[w->arr[k]].node_idx);
		if (si == SIZE_MAX || !unk[si])
			continue;
		t->hops[h].fwd = true;
		queue[qt++] = h;
	}
	while (qh < qt) {
		const struct fab_mc_hop *h = &t->hops[queue[qh++]];

		for (uint32_t k = h->first; k < h->first + h->n; k++)
			if (w->dest[k] != FAB_NONE && !t->hops[w->dest[k]].fwd) {
				t->hops[w->dest[k]].fwd = true;
				queue[qt++] = w->dest[k];
			}
	}
}

/*
 * What reaches what: a walk from each switch with members; then per group
 * and receiving member the members whose packets do not reach it. Marks
 * hop.fwd (some member's packets pass it).
 */
static int judge_reach(struct work *w)
{
	struct fab_mc_tree *t = w->t;
	size_t nm = 0, nh = t->n_hops;
	uint32_t *msw = zalloc(t->n_reach, sizeof(*msw));
	uint32_t *queue = zalloc(nh, sizeof(*queue)), *mark = zalloc(nh, sizeof(*mark));
	uint8_t *reached = NULL, *unk = NULL;
	uint32_t *cnt = NULL, *ex = NULL;
	int err = -ENOMEM;

	if (!msw || !queue || !mark)
		goto out;
	for (size_t i = 0; i < t->n_reach; i++)
		if (t->reach[i].sw != FAB_NONE)
			msw[nm++] = t->reach[i].sw;
	qsort(msw, nm, sizeof(*msw), cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < nm; i++)
		if (!u || msw[u - 1] != msw[i])
			msw[u++] = msw[i];
	nm = u;
	reached = zalloc(nm * nm, 1);
	unk = zalloc(nm, 1);
	cnt = zalloc(nm, sizeof(*cnt));
	ex = zalloc(nm, sizeof(*ex));
	if (!reached || !unk || !cnt || !ex)
		goto out;
	for (size_t si = 0; si < nm; si++) {
		uint32_t h0 = hop_of(t, msw[si]);
		size_t qh = 0, qt = 0;

		if (h0 == FAB_NONE) {
			unk[si] = entry_unknown(w, msw[si]);
			continue;
		}
		if (t->hops[h0].unknown)
			unk[si] = 1;
		mark[h0] = (uint32_t)si + 1;
		queue[qt++] = h0;
		while (qh < qt) {
			const struct fab_mc_hop *h = &t->hops[queue[qh++]];

			for (uint32_t k = h->first; k < h->first + h->n; k++) {
				if (w->unk[k])
					unk[si] = 1;
				if (w->dest[k] != FAB_NONE && mark[w->dest[k]] != si + 1) {
					mark[w->dest[k]] = (uint32_t)si + 1;
					queue[qt++] = w->dest[k];
				}
			}
		}
		for (size_t i = 0; i < qt; i++)
			t->hops[queue[i]].fwd = true;
		for (size_t xi = 0; xi < nm; xi++) {
			uint32_t hx = hop_of(t, msw[xi]);
			reached[si * nm + xi] = hx != FAB_NONE && mark[hx] == si + 1;
		}
	}
	unknown_senders(w, msw, nm, unk, queue);
	/* per group: senders per switch, then each receiving member */
	size_t r0 = 0;
	for (size_t gi = 0; gi < t->n_groups; gi++) {
		const struct fab_mc_group *g = &w->m->groups[t->groups[gi]];
		size_t r1 = r0, senders = 0;

		while (r1 < t->n_reach && t->reach[r1].member < g->first + g->n)
			r1++;
		memset(cnt, 0, nm * sizeof(*cnt));
		for (size_t i = r0; i < r1; i++) {
			size_t si = t->reach[i].sw == FAB_NONE ? SIZE_MAX
							       : find_u32(msw, nm, t->reach[i].sw);
			if (si == SIZE_MAX)
				continue;
			if (!cnt[si]++)
				ex[si] = t->reach[i].member;
			senders++;
		}
		for (size_t i = r0; i < r1; i++) {
			struct fab_mc_reach *r = &t->reach[i];

			if (!r->receives)
				continue;
			if (r->sw == FAB_NONE || r->bit_missing) {
				/* not cabled to a switch, or its switch's entry lacks
				 * it: nobody else's packets reach it */
				r->unreached_from = (uint32_t)(senders - (r->sw != FAB_NONE));
				for (size_t j = r0; j < r1 && r->example == FAB_NONE; j++)
					if (j != i && t->reach[j].sw != FAB_NONE)
						r->example = t->reach[j].member;
				continue;
			}
			size_t xi = find_u32(msw, nm, r->sw);
			if (r->unknown)
				continue;
			for (size_t si = 0; si < nm; si++) {
				if (!cnt[si] || reached[si * nm + xi])
					continue;
				if (unk[si]) {
					r->unknown = true;
					continue;
				}
				if (r->example == FAB_NONE)
					r->example = ex[si];
				r->unreached_from += cnt[si];
			}
		}
		r0 = r1;
	}
	err = 0;
out:
	free(msw);
	free(queue);
	free(mark);
	free(reached);
	free(unk);
	free(cnt);
	free(ex);
	return err;
}

/* hop.bwd (it leads to a receiving member) and the stray entry ports (to a
 * CA port or port 0 that is no member). */
static int judge_need(struct work *w)
{
	struct fab_mc_tree *t = w->t;
	size_t nh = t->n_hops, nr = 0, na = 0, cap_s = 0;
	uint32_t *recv = zalloc(t->n_reach, sizeof(*recv)), *all = zalloc(t->n_reach, sizeof(*all));
	uint32_t *rfirst = zalloc(nh + 1, sizeof(*rfirst)), *rlist = zalloc(t->n_ports, sizeof(*rlist));
	uint32_t *queue = zalloc(nh, sizeof(*queue));
	int err = -ENOMEM;

	if (!recv || !all || !rfirst || !rlist || !queue)
		goto out;
	for (size_t i = 0; i < t->n_reach; i++) {
		all[na++] = t->reach[i].port;
		if (t->reach[i].receives)
			recv[nr++] = t->reach[i].port;
	}
	qsort(recv, nr, sizeof(*recv), cmp_u32);
	qsort(all, na, sizeof(*all), cmp_u32);
	/* reverse edges: hop -> the hops whose entry leads to it */
	for (size_t k = 0; k < t->n_ports; k++)
		if (w->dest[k] != FAB_NONE)
			rfirst[w->dest[k] + 1]++;
	for (size_t h = 0; h < nh; h++)
		rfirst[h + 1] += rfirst[h];
	uint32_t *fill = queue; /* borrowed as the fill cursor, then reset */
	memcpy(fill, rfirst, nh * sizeof(*fill));
	for (size_t k = 0; k < t->n_ports; k++)
		if (w->dest[k] != FAB_NONE)
			rlist[fill[w->dest[k]]++] = w->hop_of_k[k];
	size_t qt = 0, qh = 0;
	for (size_t h = 0; h < nh; h++) {
		const struct fab_mc_hop *hp = &t->hops[h];
		for (uint32_t k = hp->first; k < hp->first + hp->n; k++) {
			if (w->ca[k] == FAB_NONE)
				continue;
			if (find_u32(all, na, w->ca[k]) == SIZE_MAX) {
				if (push(&t->stray, &t->n_stray, &cap_s, t->ports[k]))
					goto out;
			} else if (find_u32(recv, nr, w->ca[k]) != SIZE_MAX && !t->hops[h].bwd) {
				t->hops[h].bwd = true;
			}
		}
	}
	/* an entry port toward a switch whose entry is not known may lead
	 * to a receiving member: not judged unneeded */
	for (size_t k = 0; k < t->n_ports; k++)
		if (w->dest[k] == FAB_NONE && w->unk[k])
			t->hops[w->hop_of_k[k]].bwd = true;
	for (size_t h = 0; h < nh; h++)
		if (t->hops[h].bwd)
			queue[qt++] = (uint32_t)h;
	while (qh < qt) {
		uint32_t h = queue[qh++];
		for (uint32_t i = rfirst[h]; i < rfirst[h + 1]; i++)
			if (!t->hops[rlist[i]].bwd) {
				t->hops[rlist[i]].bwd = true;
				queue[qt++] = rlist[i];
			}
	}
	err = 0;
out:
	free(recv);
	free(all);
	free(rfirst);
	free(rlist);
	free(queue);
	return err;
}

/*
 * A loop: channels are the entry ports that lead to a hop; channel k is
 * followed by every entry port of its hop but the one it arrived by. A
 * cycle of that graph is a packet that comes round for ever. Iterative
 * depth-first search, the first cycle found (channels in port order).
 */
static int find_loop(struct work *w)
{
	struct fab_mc_tree *t = w->t;
	size_t n = t->n_ports, sp = 0;
	uint8_t *color = zalloc(n, 1);
	uint32_t *stk = zalloc(n, sizeof(*stk)), *it = zalloc(n, sizeof(*it));
	int err = -ENOMEM;

	if (!color || !stk || !it)
		goto out;
	for (size_t k0 = 0; k0 < n && !t->n_loop; k0++) {
		if (w->dest[k0] == FAB_NONE || color[k0])
			continue;
		color[k0] = 1;
		stk[0] = (uint32_t)k0;
		it[0] = t->hops[w->dest[k0]].first;
		sp = 1;
		while (sp && !t->n_loop) {
			uint32_t k = stk[sp - 1];
			const struct fab_mc_hop *h = &t->hops[w->dest[k]];
			uint32_t nx = FAB_NONE;

			while (it[sp - 1] < h->first + h->n) {
				uint32_t c = it[sp - 1]++;
				if (w->dest[c] != FAB_NONE && t->ports[c] != w->arr[k] && color[c] != 2) {
					nx = c;
					break;
				}
			}
			if (nx == FAB_NONE) {
				color[k] = 2;
				sp--;
				continue;
			}
			if (color[nx] == 1) { /* back to a channel on the stack: the cycle */
				size_t from = sp;
				while (from && stk[from - 1] != nx)
					from--;
				from = from ? from - 1 : 0;
				if (!(t->loop = zalloc(sp - from, sizeof(*t->loop))))
					goto out;
				for (size_t i = from; i < sp; i++)
					t->loop[t->n_loop++] = t->ports[stk[i]];
				break;
			}
			color[nx] = 1;
			stk[sp] = nx;
			it[sp] = t->hops[w->dest[nx]].first;
			sp++;
		}
	}
	err = 0;
out:
	free(color);
	free(stk);
	free(it);
	return err;
}

int fab_mc_tree_build(const struct fab_snapshot *s, uint16_t mlid, struct fab_mc_tree *out)
{
	struct fab_mc_tree t = { .mlid = mlid };
	struct work w = { .s = s, .m = s->mcast, .t = &t, .mlid = mlid };
	size_t first, ng;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!w.m)
		return 0;
	ng = fab_mcast_groups_of(w.m, mlid, &first);
	if (!(t.groups = zalloc(ng, sizeof(*t.groups))))
		goto fail;
	for (size_t i = 0; i < ng; i++)
		t.groups[t.n_groups++] = w.m->by_mlid[first + i];
	qsort(t.groups, t.n_groups, sizeof(*t.groups), cmp_u32);
	if ((err = find_hops(&w)) || (err = find_edges(&w)) || (err = find_members(&w)) ||
	    (err = judge_reach(&w)) || (err = judge_need(&w)) || (err = find_loop(&w)))
		goto fail;
	err = 0;
	*out = t;
	goto done;
fail:
	fab_mc_tree_free(&t);
done:
	free(w.dest);
	free(w.arr);
	free(w.ca);
	free(w.unk);
	free(w.hop_of_k);
	return err;
}

void fab_mc_tree_free(struct fab_mc_tree *t)
{
	if (!t)
		return;
	free(t->groups);
	free(t->hops);
	free(t->ports);
	free(t->reach);
	free(t->loop);
	free(t->stray);
	memset(t, 0, sizeof(*t));
}

int fab_mcast_mlids(const struct fab_snapshot *s, uint16_t **out, size_t *n)
{
	const struct fab_mcast *m = s->mcast;
	const size_t span = FAB_MLID_LAST - FAB_MLID_FIRST + 1;
	uint8_t *seen = calloc(span, 1);
	uint16_t *v;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; m && i < m->n_groups; i++)
		if (m->groups[i].mlid >= FAB_MLID_FIRST && m->groups[i].mlid <= FAB_MLID_LAST)
			seen[m->groups[i].mlid - FAB_MLID_FIRST] = 1;
	for (size_t i = 0; m && i < m->n_mfts; i++) {
		const struct fab_mft *t = &m->mfts[i];

		for (uint32_t b = 0; b < t->n_blocks; b++)
			for (unsigned sl = 0; sl < FAB_MFT_BLOCK; sl++) {
				size_t mlid = (size_t)t->block[b] * FAB_MFT_BLOCK + sl;
				for (unsigned p = 0; p < t->n_pos && mlid < span; p++)
					if (t->mask[((size_t)b * FAB_MFT_BLOCK + sl) * t->n_pos + p])
						seen[mlid] = 1;
			}
	}
	for (size_t i = 0; i < span; i++)
		k += seen[i];
	if (!(v = malloc((k ? k : 1) * sizeof(*v)))) {
		free(seen);
		return -ENOMEM;
	}
	k = 0;
	for (size_t i = 0; i < span; i++)
		if (seen[i])
			v[k++] = (uint16_t)(FAB_MLID_FIRST + i);
	free(seen);
	*out = v;
	*n = k;
	return 0;
}
