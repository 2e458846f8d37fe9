// SPDX-License-Identifier: MIT
/*
 * topology.asymmetric: a switch is compared with the switches that play
 * the same part in the structure (its group), never with one fabric-wide
 * majority per role; docs/rules/topology.asymmetric.md works through NVIDIA
 * Selene's compute fabric.
 *
 *   1. Levels: the distance over switch-to-switch links to the nearest
 *      leaf (0 leaves, 1 spines, 2 and more cores).
 *   2. The key of a switch: the switches one level down it is cabled to,
 *      with how many links to each (a leaf: one level up, its spines), so
 *      spines cabled to the same leaves share a key, and leaves cabled to
 *      the same spines (a pod). Switches of a level with the same key are a
 *      class: sorted by a hash of the key, then compared.
 *   3. A switch with a cable out has a key of its own: its class joins the
 *      largest class whose links it has at least half of (their overlap),
 *      found through the classes that share a neighbour with it, never by
 *      comparing all pairs. Less than half is another design (a leaf built
 *      with fewer uplinks), unless both are named alike: the system names
 *      (MF0;<system>:..., digits aside) are a hint only there, where the
 *      structure leaves it open.
 *   4. A switch alone in its group (a management leaf on two spines) or
 *      cabled to nothing a level down is atypical: its links are in no
 *      pattern, its own are judged by nobody.
 *   5. In each group of at least min_peers switches, the number of links
 *      to switches of each role (atypical ones aside) that a strict
 *      majority shares is the pattern; a member that differs breaks it. The
 *      finding names the neighbours it has fewer links to than its group.
 *
 * Every step is a pass over the ports or a sort: O(ports log ports).
 *
 * node.unresponsive: what the scan could not see, from node and port flags
 * and the scan's error list.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

#define N_SW_ROLES 3 /* leaf, spine, core */
#define UNSEEN UINT32_MAX
#define MAX_SHORT 4 /* neighbours named in one finding's message */

static int sw_role(unsigned role)
{
	return role == FAB_ROLE_LEAF ? 0 : role == FAB_ROLE_SPINE ? 1 : role == FAB_ROLE_CORE ? 2 : -1;
}

static const char *const plural[N_SW_ROLES] = { "leaves", "spines", "cores" };
static const char *const singular[N_SW_ROLES] = { "leaf", "spine", "core" };

/* One neighbour in a key: a node and the links to it. */
struct nb {
	uint32_t node, links;
};

/* A class: switches of one level with one key (members[first .. first+size)). */
struct cls {
	uint32_t first, size;
	uint32_t rep;    /* its first member (lowest node index) */
	uint32_t total;  /* links in the key */
	uint32_t parent; /* the class it joined, or itself */
	uint32_t rank;   /* position in the order classes are looked at */
	uint32_t gsize;  /* a root: members of all classes that joined it */
	uint32_t group;  /* a root: its group id */
};

/* An entry of the inverse index: class c has `links` links to node. */
struct inv {
	uint32_t node, c, links;
};

struct topo {
	const struct fab_snapshot *s;
	uint32_t *level;  /* per node: UNSEEN when not judged */
	uint32_t *kfirst, *klen, *total; /* per node: its key in keys[] */
	uint64_t *hash;
	struct nb *keys;
	size_t n_keys;
	uint32_t *group;  /* per node: group id, FAB_NONE */
	uint8_t *atyp;    /* per node */
	/* groups */
	uint32_t n_groups;
	uint32_t *gsize, *grep; /* per group: members, its root class's first member */
	uint32_t *scratch; /* n_nodes + 1 */
};

static int role_of_level(uint32_t l)
{
	return l < 2 ? (int)l : 2;
}

/* Levels: breadth-first from the leaves over links between judged switches. */
static void levels(struct topo *t)
{
	const struct fab_snapshot *s = t->s;
	uint32_t *queue = t->scratch;
	size_t head = 0, tail = 0;

	for (size_t i = 0; i < s->n_nodes; i++) {
		t->level[i] = UNSEEN;
		if (s->nodes[i].type == FAB_NODE_SWITCH && sw_role(s->nodes[i].role) == 0) {
			t->level[i] = 0;
			queue[tail++] = (uint32_t)i;
		}
	}
	while (head < tail) {
		uint32_t ni = queue[head++];
		const struct fab_node *n = &s->nodes[ni];

		for (uint32_t k = 0; k < n->port_count; k++) {
			uint32_t peer = rule_peer(s, n->port_first + k);
			uint32_t r = peer == FAB_NONE ? FAB_NONE : s->ports[peer].node_idx;
			if (r == FAB_NONE || t->level[r] != UNSEEN ||
			    s->nodes[r].type != FAB_NODE_SWITCH || sw_role(s->nodes[r].role) < 0)
				continue;
			t->level[r] = t->level[ni] + 1;
			queue[tail++] = r;
		}
	}
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* The key of switch i at level lv: its links to the switches of level kl
 * (atypical ones aside when looking down), sorted by node. */
static void build_key(struct topo *t, uint32_t i, uint32_t kl, bool down)
{
	const struct fab_snapshot *s = t->s;
	const struct fab_node *n = &s->nodes[i];
	uint32_t *v = t->scratch, m = 0;
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (uint32_t k = 0; k < n->port_count; k++) {
		uint32_t peer = rule_peer(s, n->port_first + k);
		uint32_t r = peer == FAB_NONE ? FAB_NONE : s->ports[peer].node_idx;
		if (r != FAB_NONE && r != i && t->level[r] == kl && !(down && t->atyp[r]))
			v[m++] = r;
	}
	qsort(v, m, sizeof(*v), cmp_u32);
	t->kfirst[i] = (uint32_t)t->n_keys;
	t->total[i] = m;
	for (uint32_t a = 0; a < m;) {
		uint32_t b = a + 1;
		while (b < m && v[b] == v[a])
			b++;
		t->keys[t->n_keys++] = (struct nb){ .node = v[a], .links = b - a };
		h = (h ^ v[a]) * 1099511628211ULL;
		h = (h ^ (b - a)) * 1099511628211ULL;
		a = b;
	}
	t->klen[i] = (uint32_t)t->n_keys - t->kfirst[i];
	t->hash[i] = h;
}

static int cmp_key(const struct topo *t, uint32_t a, uint32_t b)
{
	if (t->hash[a] != t->hash[b])
		return t->hash[a] < t->hash[b] ? -1 : 1;
	if (t->klen[a] != t->klen[b])
		return t->klen[a] < t->klen[b] ? -1 : 1;
	for (uint32_t k = 0; k < t->klen[a]; k++) {
		const struct nb *x = &t->keys[t->kfirst[a] + k], *y = &t->keys[t->kfirst[b] + k];
		if (x->node != y->node)
			return x->node < y->node ? -1 : 1;
		if (x->links != y->links)
			return x->links < y->links ? -1 : 1;
	}
	return 0;
}

/* Members of a level: by key, then by node. */
static int cmp_member(const void *x, const void *y, void *arg)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = cmp_key(arg, a, b);

	return c ? c : a < b ? -1 : a > b;
}

/* The order classes are looked at: larger first, then more links, then by node. */
static int cmp_cls(const void *x, const void *y)
{
	const struct cls *a = x, *b = y;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return a->rep < b->rep ? -1 : a->rep > b->rep;
}

static int cmp_inv(const void *x, const void *y)
{
	const struct inv *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->c < b->c ? -1 : a->c > b->c;
}

/* The system name of an MF0 description ("MF0;CSPINE3-07:MQM8700/U1"):
 * its start and length, or NULL. */
static const char *mf0_system(const char *desc, size_t *len)
{
	const char *colon;

	if (strncmp(desc, "MF0;", 4) || !(colon = strchr(desc + 4, ':')))
		return NULL;
	*len = (size_t)(colon - desc - 4);
	return desc + 4;
}

/* Both switches have system names that differ in their numbers only
 * (LG01-07 and LG14-07; not MLG01-02 and LG01-02). */
static bool named_alike(const struct fab_snapshot *s, uint32_t x, uint32_t y)
{
	size_t la = 0, lb = 0, i = 0, j = 0;
	const char *a = mf0_system(s->nodes[x].desc, &la), *b = mf0_system(s->nodes[y].desc, &lb);

	if (!a || !b)
		return false;
	while (i < la && j < lb) {
		bool da = isdigit((unsigned char)a[i]), db = isdigit((unsigned char)b[j]);
		if (da != db)
			return false;
		if (da) {
			while (i < la && isdigit((unsigned char)a[i]))
				i++;
			while (j < lb && isdigit((unsigned char)b[j]))
				j++;
			continue;
		}
		if (a[i++] != b[j++])
			return false;
	}
	return i == la && j == lb;
}

/* Groups the switches of level lv (members[0..m)): classes, then damaged
 * classes joined to the class they are a damaged copy of. */
static int group_level(struct topo *t, uint32_t *members, uint32_t m)
{
	const struct fab_snapshot *s = t->s;
	struct cls *c = NULL;
	struct inv *inv = NULL;
	uint32_t *ov = NULL, *touched = NULL, nc = 0, ninv = 0;
	int err = 0;

	qsort_r(members, m, sizeof(*members), cmp_member, t);
	c = calloc(m + 1, sizeof(*c));
	if (!c) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t a = 0; a < m;) {
		uint32_t b = a + 1;
		while (b < m && !cmp_key(t, members[a], members[b]))
			b++;
		c[nc] = (struct cls){ .first = a, .size = b - a, .rep = members[a],
				      .total = t->total[members[a]] };
		nc++;
		a = b;
	}
	qsort(c, nc, sizeof(*c), cmp_cls);
	for (uint32_t k = 0; k < nc; k++) {
		c[k].rank = k;
		c[k].parent = k;
		ninv += t->klen[c[k].rep];
	}
	inv = malloc((ninv + 1) * sizeof(*inv));
	ov = calloc(nc + 1, sizeof(*ov));
	touched = malloc((nc + 1) * sizeof(*touched));
	if (!inv || !ov || !touched) {
		err = -ENOMEM;
		goto out;
	}
	ninv = 0;
	for (uint32_t k = 0; k < nc; k++)
		for (uint32_t q = 0; q < t->klen[c[k].rep]; q++) {
			const struct nb *e = &t->keys[t->kfirst[c[k].rep] + q];
			inv[ninv++] = (struct inv){ .node = e->node, .c = k, .links = e->links };
		}
	qsort(inv, ninv, sizeof(*inv), cmp_inv);

	/* classes in order: each may join an earlier class that joined none */
	for (uint32_t k = 0; k < nc; k++) {
		uint32_t nt = 0, best = FAB_NONE;
		bool best_struct = false;

		for (uint32_t q = 0; q < t->klen[c[k].rep]; q++) {
			const struct nb *e = &t->keys[t->kfirst[c[k].rep] + q];
			struct inv probe = { .node = e->node, .c = 0 };
			size_t lo = 0, hi = ninv;
			/* the first entry of e->node */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (cmp_inv(&inv[mid], &probe) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < ninv && inv[lo].node == e->node && inv[lo].c < k; lo++) {
				uint32_t o = inv[lo].c;
				if (c[o].parent != o)
					continue;
				if (!ov[o])
					touched[nt++] = o;
				ov[o] += e->links < inv[lo].links ? e->links : inv[lo].links;
			}
		}
		for (uint32_t q = 0; q < nt; q++) {
			uint32_t o = touched[q];
			bool structural = (uint64_t)ov[o] * 2 >= c[o].total;
			if (!structural && !named_alike(s, c[k].rep, c[o].rep))
				continue;
			/* structure beats a name; then the larger share of the
			 * group's links; then the earlier (larger) class */
			if (best == FAB_NONE || (structural && !best_struct) ||
			    (structural == best_struct &&
			     (uint64_t)ov[o] * c[best].total > (uint64_t)ov[best] * c[o].total) ||
			    (structural == best_struct &&
			     (uint64_t)ov[o] * c[best].total == (uint64_t)ov[best] * c[o].total &&
			     o < best)) {
				best = o;
				best_struct = structural;
			}
		}
		for (uint32_t q = 0; q < nt; q++)
			ov[touched[q]] = 0;
		if (best != FAB_NONE && c[k].total)
			c[k].parent = best;
	}
	for (uint32_t k = 0; k < nc; k++)
		c[c[k].parent].gsize += c[k].size;
	for (uint32_t k = 0; k < nc; k++) {
		struct cls *root = &c[c[k].parent];
		if (root == &c[k]) {
			root->group = t->n_groups++;
			t->gsize[root->group] = root->gsize;
			t->grep[root->group] = root->rep;
		}
	}
	for (uint32_t k = 0; k < nc; k++) {
		const struct cls *root = &c[c[k].parent];
		for (uint32_t q = 0; q < c[k].size; q++) {
			uint32_t i = members[c[k].first + q];
			t->group[i] = root->group;
			t->atyp[i] = root->gsize == 1 || !t->total[i];
		}
	}
out:
	free(c);
	free(inv);
	free(ov);
	free(touched);
	return err;
}

/* A spine alone in its group that the leaves of a group of at least
 * min_peers all reach (the only spine of a small fabric) is no odd switch:
 * their cables to it are part of their pattern. Leaf groups are the first
 * n_leaf_groups. */
static void keep_lone_spines(struct topo *t, uint32_t n_leaf_groups, size_t min_peers)
{
	for (uint32_t g = 0; g < n_leaf_groups; g++) {
		uint32_t rep = t->grep[g];

		if (t->gsize[g] < min_peers)
			continue;
		for (uint32_t k = 0; k < t->klen[rep]; k++) {
			uint32_t sp = t->keys[t->kfirst[rep] + k].node;
			if (t->atyp[sp] && t->total[sp])
				t->atyp[sp] = 0;
		}
	}
}

/* Appends the neighbours of switch i one level down (a leaf: up) that it
 * has fewer links to than its group's first class: to the message (names,
 * the first MAX_SHORT) and the evidence (GUIDs). */
static void short_of(struct fab_rule_ctx *ctx, const struct topo *t, uint32_t i)
{
	const struct fab_snapshot *s = t->s;
	uint32_t rep = t->grep[t->group[i]], a = 0, n_short = 0;
	const struct nb *mine = &t->keys[t->kfirst[i]];

	for (uint32_t k = 0; k < t->klen[rep]; k++) {
		const struct nb *want = &t->keys[t->kfirst[rep] + k];
		uint32_t have = 0;

		while (a < t->klen[i] && mine[a].node < want->node)
			a++;
		if (a < t->klen[i] && mine[a].node == want->node)
			have = mine[a].links;
		if (have >= want->links)
			continue;
		rbuf_printf(&ctx->ev, "%s0x%016llx:%u/%u", n_short ? "," : "; short_of=",
			    (unsigned long long)s->nodes[want->node].guid, have, want->links);
		if (n_short < MAX_SHORT) {
			rbuf_printf(&ctx->tmp, "; %u link%s to ", have, have == 1 ? "" : "s");
			rule_name(&ctx->tmp, s, want->node); /* GUID digits when shared */
			rbuf_printf(&ctx->tmp, " where they have %u", want->links);
		}
		n_short++;
	}
	if (n_short > MAX_SHORT)
		rbuf_printf(&ctx->tmp, "; fewer to %u more", n_short - MAX_SHORT);
}

/* The value a strict majority of the group's members has, or -1. */
static int64_t majority(const uint32_t *members, uint32_t n, const uint32_t (*cnt)[N_SW_ROLES],
			int q)
{
	uint32_t cand = 0, votes = 0, agree = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t v = cnt[members[k]][q];
		if (!votes)
			cand = v;
		votes += v == cand ? 1 : (uint32_t)-1;
	}
	for (uint32_t k = 0; k < n; k++)
		agree += cnt[members[k]][q] == cand;
	return (uint64_t)agree * 2 > n ? (int64_t)cand : -1;
}

static void topo_free(struct topo *t)
{
	free(t->level);
	free(t->kfirst);
	free(t->klen);
	free(t->total);
	free(t->hash);
	free(t->keys);
	free(t->group);
	free(t->atyp);
	free(t->gsize);
	free(t->grep);
	free(t->scratch);
}

int check_topology_asymmetric(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const size_t n = s->n_nodes;
	size_t min_peers = (size_t)rule_param(ctx, 0);
	struct topo t = { .s = s };
	uint32_t *by_level = NULL, *lfirst = NULL, *by_group = NULL, *gfirst = NULL;
	uint32_t(*cnt)[N_SW_ROLES] = NULL;
	int64_t(*mode)[N_SW_ROLES] = NULL;
	size_t have[N_SW_ROLES] = { 0 };
	uint32_t max_level = 0, n_leaf_groups = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		int r = sw_role(s->nodes[i].role);
		if (s->nodes[i].type == FAB_NODE_SWITCH && r >= 0)
			have[r]++;
	}
	if (!have[0] || !have[1])
		return 0; /* not a fat tree or spine-leaf fabric */
	t.level = malloc(n * sizeof(*t.level));
	t.kfirst = calloc(n, sizeof(*t.kfirst));
	t.klen = calloc(n, sizeof(*t.klen));
	t.total = calloc(n, sizeof(*t.total));
	t.hash = calloc(n, sizeof(*t.hash));
	t.keys = malloc((s->n_ports + 1) * sizeof(*t.keys));
	t.group = malloc(n * sizeof(*t.group));
	t.atyp = calloc(n, 1);
	t.gsize = calloc(n, sizeof(*t.gsize));
	t.grep = calloc(n, sizeof(*t.grep));
	t.scratch = malloc((n + 1) * sizeof(*t.scratch));
	by_level = malloc((n + 1) * sizeof(*by_level));
	lfirst = calloc(n + 2, sizeof(*lfirst));
	cnt = calloc(n, sizeof(*cnt));
	if (!t.level || !t.kfirst || !t.klen || !t.total || !t.hash || !t.keys || !t.group ||
	    !t.atyp || !t.gsize || !t.grep || !t.scratch || !by_level || !lfirst || !cnt) {
		err = fab_err(-ENOMEM, "out of memory checking the topology");
		goto out;
	}
	levels(&t);
	/* switches by level (a counting sort): level L is by_level[lfirst[L] .. lfirst[L+1]) */
	for (size_t i = 0; i < n; i++) {
		t.group[i] = FAB_NONE;
		if (t.level[i] == UNSEEN)
			continue;
		lfirst[t.level[i] + 1]++;
		if (t.level[i] > max_level)
			max_level = t.level[i];
	}
	for (uint32_t l = 1; l <= max_level + 1; l++)
		lfirst[l] += lfirst[l - 1];
	memcpy(t.scratch, lfirst, (max_level + 1) * sizeof(*t.scratch));
	for (size_t i = 0; i < n; i++)
		if (t.level[i] != UNSEEN)
			by_level[t.scratch[t.level[i]]++] = (uint32_t)i;
	/* groups, level by level: a level's keys leave out the atypical
	 * switches of the level below, grouped just before */
	for (uint32_t l = 0; l <= max_level && !err; l++) {
		uint32_t *members = &by_level[lfirst[l]], m = lfirst[l + 1] - lfirst[l];

		for (uint32_t k = 0; k < m; k++)
			build_key(&t, members[k], l ? l - 1 : 1, l > 0);
		if (group_level(&t, members, m))
			err = fab_err(-ENOMEM, "out of memory checking the topology");
		if (!l)
			n_leaf_groups = t.n_groups;
		else if (l == 1)
			keep_lone_spines(&t, n_leaf_groups, min_peers);
	}
	if (err)
		goto out;

	/* links of each switch to typical switches of each role (loopback cables aside) */
	for (size_t i = 0; i < n; i++) {
		const struct fab_node *nd = &s->nodes[i];

		if (t.level[i] == UNSEEN)
			continue;
		for (uint32_t k = 0; k < nd->port_count; k++) {
			uint32_t peer = rule_peer(s, nd->port_first + k);
			uint32_t r = peer == FAB_NONE ? FAB_NONE : s->ports[peer].node_idx;
			if (r == FAB_NONE || r == i || t.level[r] == UNSEEN || t.atyp[r])
				continue;
			cnt[i][sw_role(s->nodes[r].role)]++;
		}
	}
	/* members by group; each group's pattern */
	by_group = malloc((n + 1) * sizeof(*by_group));
	gfirst = calloc(t.n_groups + 2, sizeof(*gfirst));
	mode = calloc(t.n_groups + 1, sizeof(*mode));
	if (!by_group || !gfirst || !mode) {
		err = fab_err(-ENOMEM, "out of memory checking the topology");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (t.group[i] != FAB_NONE)
			gfirst[t.group[i] + 1]++;
	for (uint32_t g = 1; g <= t.n_groups + 1; g++)
		gfirst[g] += gfirst[g - 1];
	memcpy(t.scratch, gfirst, (t.n_groups + 1) * sizeof(*t.scratch));
	for (size_t i = 0; i < n; i++)
		if (t.group[i] != FAB_NONE)
			by_group[t.scratch[t.group[i]]++] = (uint32_t)i;
	for (uint32_t g = 0; g < t.n_groups; g++)
		for (int q = 0; q < N_SW_ROLES; q++)
			mode[g][q] = t.gsize[g] < min_peers
					     ? -1
					     : majority(&by_group[gfirst[g]], t.gsize[g],
							(const uint32_t(*)[N_SW_ROLES])cnt, q);

	for (size_t i = 0; i < n && !err; i++) {
		int r = sw_role(s->nodes[i].role);
		uint32_t g = t.group[i], l = t.level[i];
		bool off = false;

		if (g == FAB_NONE || t.gsize[g] < min_peers || r < 0)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_reset(&ctx->tmp);
		rbuf_printf(&ctx->ev, "role=%s; peers=%u", singular[r], t.gsize[g]);
		for (int q = 0; q < N_SW_ROLES; q++) {
			if (mode[g][q] < 0 || cnt[i][q] == mode[g][q])
				continue;
			rbuf_printf(&ctx->ev, "; links_to_%s=%u; expected_to_%s=%lld", singular[q],
				    cnt[i][q], singular[q], (long long)mode[g][q]);
			rbuf_sep(&ctx->tmp, "; ");
			rbuf_printf(&ctx->tmp, "%u link%s to %s where most ", cnt[i][q],
				    cnt[i][q] == 1 ? "" : "s", plural[q]);
			if (!off)
				rbuf_printf(&ctx->tmp, "of its group of %u %s ", t.gsize[g], plural[r]);
			rbuf_printf(&ctx->tmp, "have %lld", (long long)mode[g][q]);
			off = true;
		}
		if (!off)
			continue;
		rbuf_printf(&ctx->ev, "; group=0x%016llx; group_by=%s",
			    (unsigned long long)s->nodes[t.grep[g]].guid,
			    plural[role_of_level(l ? l - 1 : 1)]);
		short_of(ctx, &t, (uint32_t)i);
		err = rule_emit_node(ctx, (uint32_t)i, rbuf_str(&ctx->ev), "%s %s", singular[r],
				     rbuf_str(&ctx->tmp));
	}
out:
	topo_free(&t);
	free(by_level);
	free(lfirst);
	free(by_group);
	free(gfirst);
	free(cnt);
	free(mode);
	return err;
}

/* ---- node.unresponsive ---------------------------------------------------------------- */

enum { M_SMP = 1, M_PMA = 2, M_HOLE = 4 };

static unsigned mark_of(const char *what)
{
	if (!what)
		return 0;
	if (!strcmp(what, "smp"))
		return M_SMP;
	if (!strcmp(what, "pma"))
		return M_PMA;
	if (!strcmp(what, "hole"))
		return M_HOLE;
	return 0;
}

static unsigned flags_mark(unsigned flags)
{
	return (flags & FAB_F_SMP_FAILED ? M_SMP : 0) | (flags & FAB_F_PMA_FAILED ? M_PMA : 0) |
	       (flags & FAB_F_NO_REMOTE ? M_HOLE : 0);
}

/* Appends "<sep><text> <ports>" listing the node's ports marked with bit:
 * the port numbers, comma-joined; nothing when none is. */
static void port_list(struct rbuf *b, const struct fab_snapshot *s, const struct fab_node *n,
		      const uint8_t *pm, unsigned bit, const char *sep, const char *text)
{
	bool first = true;

	for (uint32_t k = 0; k < n->port_count; k++) {
		if (!(pm[n->port_first + k] & bit))
			continue;
		if (first) {
			rbuf_sep(b, sep);
			rbuf_printf(b, "%s", text);
		}
		rbuf_printf(b, "%s%u", first ? "" : ",", s->ports[n->port_first + k].port_num);
		first = false;
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

int check_node_unresponsive(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	uint8_t *nm = calloc(s->n_nodes + 1, 1), *pm = calloc(s->n_ports + 1, 1);
	uint64_t *unknown = calloc(s->n_errors + 1, sizeof(*unknown));
	size_t n_unknown = 0;
	int err = 0;

	if (!nm || !pm || !unknown) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		nm[i] = (uint8_t)(flags_mark(s->nodes[i].flags) & (M_SMP | M_PMA));
	for (size_t i = 0; i < s->n_ports; i++)
		pm[i] = (uint8_t)flags_mark(s->ports[i].flags);
	for (size_t i = 0; i < s->n_errors; i++) {
		const struct fab_scan_error *e = &s->errors[i];
		unsigned m = mark_of(e->what);
		uint32_t ni;

		if (!m || !e->node_guid)
			continue;
		if ((ni = fab_snapshot_find_node(s, e->node_guid)) == FAB_NONE) {
			unknown[n_unknown++] = e->node_guid;
			continue;
		}
		const struct fab_port *p = e->port_num >= 0 ? fab_snapshot_port(s, ni, (unsigned)e->port_num) : NULL;
		if (p)
			pm[p - s->ports] |= (uint8_t)m;
		else
			nm[ni] |= (uint8_t)(m & (M_SMP | M_PMA));
	}
	for (size_t i = 0; i < s->n_nodes && !err; i++) {
		const struct fab_node *n = &s->nodes[i];
		unsigned any = 0, nports = 0;
		uint32_t one = FAB_NONE;

		for (uint32_t k = 0; k < n->port_count; k++)
			if (pm[n->port_first + k]) {
				any |= pm[n->port_first + k];
				nports++;
				one = n->port_first + k;
			}
		if (!nm[i] && !any)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_reset(&ctx->tmp);
		if (nm[i] & M_SMP) {
			rbuf_printf(&ctx->ev, "smp_failed=1");
			rbuf_printf(&ctx->tmp, "did not answer SMPs");
		}
		if (nm[i] & M_PMA) {
			rbuf_sep(&ctx->ev, "; ");
			rbuf_printf(&ctx->ev, "pma_failed=1");
			rbuf_sep(&ctx->tmp, "; ");
			rbuf_printf(&ctx->tmp, "did not answer PerfMgt queries");
		}
		port_list(&ctx->ev, s, n, pm, M_SMP, "; ", "smp_failed_ports=");
		port_list(&ctx->ev, s, n, pm, M_PMA, "; ", "pma_failed_ports=");
		port_list(&ctx->ev, s, n, pm, M_HOLE, "; ", "no_remote_ports=");
		port_list(&ctx->tmp, s, n, pm, M_SMP, "; ", "PortInfo could not be read on port ");
		if (!(nm[i] & M_PMA))
			port_list(&ctx->tmp, s, n, pm, M_PMA, "; ",
				  "counters could not be read on port ");
		port_list(&ctx->tmp, s, n, pm, M_HOLE, "; ",
			  "nothing answered behind LinkUp port ");
		if (!nm[i] && nports == 1)
			err = rule_emit_port(ctx, one, FAB_NONE, rbuf_str(&ctx->ev), "%s", rbuf_str(&ctx->tmp));
		else
			err = rule_emit_node(ctx, (uint32_t)i, rbuf_str(&ctx->ev), "%s", rbuf_str(&ctx->tmp));
	}
	/* devices known only from the error list */
	qsort(unknown, n_unknown, sizeof(*unknown), cmp_u64);
	for (size_t i = 0; i < n_unknown && !err; i++) {
		char g[FAB_GUID_STRLEN], subject[64];
		if (i && unknown[i] == unknown[i - 1])
			continue;
		fab_guid_format(unknown[i], g);
		snprintf(subject, sizeof(subject), "%s (not in the topology)", g);
		err = rule_emit_raw(ctx, g, NULL, NULL, NULL, subject, NULL,
				    "device did not answer during the scan (see scan_errors)");
	}
out:
	free(nm);
	free(pm);
	free(unknown);
	return err;
}
