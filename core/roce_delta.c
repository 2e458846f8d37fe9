// SPDX-License-Identifier: MIT
/*
 * A merge as a delta on its keyframe (include/fabsweep/roce_delta.h): the
 * base's keys and stored indices marked before merging, then every element
 * of the merged model given its stored index and every system judged
 * written or kept. Keys: a collected system by name (merge keeps one of
 * each), a stub by chassis id and name; a port by its system, interface
 * name and port id; a neighbour record by its port and its place among the
 * port's records; an RDMA device by its system and name; a module by its
 * port. What a system derives from the others is compared as one 64-bit
 * hash per system, of per-element hashes added up (so the order its
 * elements sit in does not matter).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/roce.h"
#include "fabsweep/roce_delta.h"
#include "fabsweep/snapshot.h"
#include "roce_priv.h"

enum { K_DSYS = 40, K_DSTUB, K_DPORT, K_DNB, K_DDEV, K_DMOD, K_DNAME };

/* A base element: its key and stored index. */
struct mkey {
	uint64_t h;
	uint32_t owner; /* stored index of what it belongs to (system, port) */
	const char *s, *s2;
	uint32_t id;  /* its stored index (a neighbour record: s2 is NULL, s its ordinal's text) */
	uint32_t pos; /* its position in the base model */
};

struct mset {
	struct mkey *k;
	size_t n;
	struct fab_roce_hidx ix; /* key hash -> k[] position */
};

struct msys {
	const char *name; /* the string itself (a collected system's: see from_base) */
	uint32_t id;
	uint64_t derived;
	uint32_t n_ports, n_nbs, n_devs, n_mods;
	bool from_delta;
};

struct fab_roce_mark {
	struct msys *sys; /* by base position */
	size_t n_sys;
	struct mset sys_keys, ports, nbs, devs, mods;
	struct fab_roce_hidx names; /* collected base systems' name pointers -> position */
	uint32_t *was_hidden;       /* what a base that is a delta hid: hidden still */
	size_t n_was_hidden;
	uint32_t end[5];            /* one after the largest stored index: sys, port, nb, dev, mod */
};

enum { E_SYS, E_PORT, E_NB, E_DEV, E_MOD };

/* The hashes here are compared within one process only: a word at a time
 * (a fleet's plan hashes a few million names and numbers). */
static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t bytes_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t v;

	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&v, b, 8);
		h = mix(h, v);
	}
	v = 0;
	memcpy(&v, b, n);
	return mix(h, v ^ (uint64_t)n << 56);
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	return s ? bytes_hash(h, s, strlen(s)) : mix(h, 0x5bd1e9955bd1e995ull);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static uint64_t key_hash(unsigned tag, uint32_t owner, const char *s, const char *s2)
{
	return str_hash(str_hash(mix((uint64_t)tag << 32 | owner, 0xcbf29ce484222325ull), s), s2);
}

struct find {
	const struct mset *set;
	uint32_t owner;
	const char *s, *s2;
};

static bool match_key(uint32_t v, const void *ctx)
{
	const struct find *f = ctx;
	const struct mkey *k = &f->set->k[v];

	return k->owner == f->owner && str_eq(k->s, f->s) && str_eq(k->s2, f->s2);
}

static int put_key(struct mset *set, unsigned tag, uint32_t owner, const char *s, const char *s2,
		   uint32_t id, uint32_t pos)
{
	struct mkey *k = &set->k[set->n];

	k->h = key_hash(tag, owner, s, s2);
	k->owner = owner;
	k->s = s;
	k->s2 = s2;
	k->id = id;
	k->pos = pos;
	return fab_roce_hidx_put(&set->ix, k->h, (uint32_t)set->n++);
}

/* The base element with this key (its entry), NULL if none. */
static const struct mkey *get_key(const struct mset *set, unsigned tag, uint32_t owner, const char *s,
				  const char *s2)
{
	struct find f = { set, owner, s, s2 };
	uint32_t v = fab_roce_hidx_get(&set->ix, key_hash(tag, owner, s, s2), match_key, &f);

	return v == FAB_NONE ? NULL : &set->k[v];
}

/* ---- what a system derives ------------------------------------------------ */

/* A model's elements with their stored indices, and per system its ports,
 * neighbour records and owned links (CSR). */
struct view {
	const struct fab_roce *r;
	const uint32_t *sys, *port, *nb; /* NULL: positions */
	uint32_t *off[3], *list[3];      /* ports, neighbour records, links */
};

static void view_free(struct view *v)
{
	for (int i = 0; i < 3; i++) {
		free(v->off[i]);
		free(v->list[i]);
	}
}

static uint32_t port_system(const struct fab_roce *r, size_t i)
{
	return r->eth_ports[i].system_idx;
}

static uint32_t nb_system(const struct fab_roce *r, size_t i)
{
	uint32_t p = r->neighbors[i].port_idx;

	return p < r->n_eth_ports ? r->eth_ports[p].system_idx : FAB_NONE;
}

static uint32_t link_owner(const struct fab_roce *r, size_t i)
{
	uint32_t a = r->links[i].a;

	return a < r->n_eth_ports ? r->eth_ports[a].system_idx : FAB_NONE;
}

/* Elements 0..n-1 by their owner system: list[off[s] .. off[s + 1]). */
static int csr(const struct fab_roce *r, size_t n, uint32_t (*owner)(const struct fab_roce *, size_t),
	       uint32_t **off, uint32_t **list)
{
	size_t ns = r->n_systems;
	uint32_t *o = calloc(ns + 3, sizeof(*o)), *l = malloc((n + 1) * sizeof(*l));

	if (!o || !l) {
		free(o);
		free(l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = owner(r, i);
		o[(s < ns ? s : ns) + 2]++;
	}
	for (size_t s = 0; s < ns + 1; s++)
		o[s + 2] += o[s + 1];
	for (size_t i = 0; i < n; i++) {
		uint32_t s = owner(r, i);
		l[o[(s < ns ? s : ns) + 1]++] = (uint32_t)i;
	}
	*off = o;
	*list = l;
	return 0;
}

static int view_init(struct view *v, const struct fab_roce *r, const uint32_t *sys,
		     const uint32_t *port, const uint32_t *nb)
{
	*v = (struct view){ .r = r, .sys = sys, .port = port, .nb = nb };
	if (csr(r, r->n_eth_ports, port_system, &v->off[0], &v->list[0]) ||
	    csr(r, r->n_neighbors, nb_system, &v->off[1], &v->list[1]) ||
	    csr(r, r->n_links, link_owner, &v->off[2], &v->list[2])) {
		view_free(v);
		return -ENOMEM;
	}
	return 0;
}

static uint32_t id_of(const uint32_t *ids, size_t n, uint32_t pos)
{
	if (pos >= n)
		return FAB_NONE;
	return ids ? ids[pos] : pos;
}

static uint64_t dcbx_hash(uint64_t h, const struct fab_roce *r, const struct fab_dcbx *d)
{
	h = bytes_hash(h, &d->pfc, sizeof(d->pfc));
	h = bytes_hash(h, &d->ets, sizeof(d->ets));
	h = bytes_hash(h, &d->ets_reco, sizeof(d->ets_reco));
	h = mix(h, (uint64_t)d->app_valid << 8 | d->bad_tlvs);
	if (d->app_valid && d->app_count <= r->n_apps && d->app_first <= r->n_apps - d->app_count)
		h = bytes_hash(h, &r->apps[d->app_first], d->app_count * sizeof(*r->apps));
	return h;
}

static uint64_t tlvs_hash(uint64_t h, const struct fab_roce *r, uint32_t first, uint32_t count)
{
	h = mix(h, count);
	for (uint32_t k = 0; k < count && first + k < r->n_tlvs; k++) {
		const struct fab_lldp_tlv *t = &r->tlvs[first + k];
		h = mix(h, (uint64_t)t->oui << 24 | (uint64_t)t->subtype << 16 | t->len);
		h = bytes_hash(h, t->info, t->len);
	}
	return h;
}

/* A stub's port as it is stored: all of it comes from what was heard. */
static uint64_t stub_port_hash(const struct view *v, uint32_t p)
{
	const struct fab_roce *r = v->r;
	const struct fab_eth_port *e = &r->eth_ports[p];
	uint64_t h = mix(0xcbf29ce484222325ull, id_of(v->port, r->n_eth_ports, p));

	h = mix(h, e->flags);
	h = str_hash(str_hash(str_hash(h, e->ifname), e->mac), e->port_id);
	h = str_hash(str_hash(h, e->port_id_subtype), e->port_descr);
	h = dcbx_hash(h, r, &e->adv);
	return tlvs_hash(h, r, e->tlv_first, e->tlv_count);
}

/*
 * What system s of v derives from the other systems, as written: its role;
 * per neighbour record where it resolved (stored indices, the remote
 * port's name and whether its system was collected); per link it owns (its
 * a side) both ends, their names and who heard whom; for a stub, all of it
 * (its fields and ports come from the records that heard it).
 */
static uint64_t derived(const struct view *v, uint32_t s)
{
	const struct fab_roce *r = v->r;
	const struct fab_roce_system *y = &r->systems[s];
	uint64_t h = mix(0xcbf29ce484222325ull, y->role), sum = 0;

	for (uint32_t k = v->off[1][s]; k < v->off[1][s + 1]; k++) {
		uint32_t i = v->list[1][k];
		const struct fab_lldp_neighbor *n = &r->neighbors[i];
		uint64_t e = mix(0x84222325cbf29ce4ull, id_of(v->nb, r->n_neighbors, i));
		e = mix(e, id_of(v->port, r->n_eth_ports, n->port_idx));
		e = mix(e, id_of(v->sys, r->n_systems, n->remote_system_idx));
		e = mix(e, id_of(v->port, r->n_eth_ports, n->remote_port_idx));
		if (n->remote_port_idx < r->n_eth_ports) {
			const struct fab_eth_port *q = &r->eth_ports[n->remote_port_idx];
			e = str_hash(e, q->ifname);
			e = mix(e, q->system_idx < r->n_systems && r->systems[q->system_idx].collected);
		}
		sum += e;
	}
	for (uint32_t k = v->off[2][s]; k < v->off[2][s + 1]; k++) {
		const struct fab_eth_link *l = &r->links[v->list[2][k]];
		const struct fab_eth_port *b = &r->eth_ports[l->b];
		uint64_t e = mix(0x1b3cbf29ce484222ull, id_of(v->port, r->n_eth_ports, l->a));
		e = mix(mix(e, id_of(v->port, r->n_eth_ports, l->b)), l->heard);
		e = str_hash(e, b->ifname);
		e = str_hash(e, b->system_idx < r->n_systems ? r->systems[b->system_idx].name : NULL);
		sum += e;
	}
	if (!y->collected) {
		h = str_hash(str_hash(str_hash(h, y->name), y->chassis_id), y->chassis_id_subtype);
		h = str_hash(str_hash(h, y->description), y->mgmt_address);
		h = mix(h, (uint64_t)y->has_caps << 32 | (uint64_t)y->cap_available << 16 | y->cap_enabled);
		for (uint32_t k = v->off[0][s]; k < v->off[0][s + 1]; k++)
			sum += stub_port_hash(v, v->list[0][k]);
	}
	return mix(h, sum);
}

/* ---- keys ------------------------------------------------------------------ */

static const char *sys_key(const struct fab_roce_system *y, unsigned *tag, const char **s2)
{
	if (y->collected) {
		*tag = K_DSYS;
		*s2 = NULL;
		return y->name;
	}
	*tag = K_DSTUB;
	*s2 = y->name;
	return y->chassis_id;
}

/* A neighbour record's key text: its place among its port's records. */
static const char *ordinal(uint32_t k)
{
	static const char *const small[] = { "0", "1", "2", "3", "4", "5", "6", "7" };

	return k < 8 ? small[k] : "8+";
}

static uint32_t mod_port(const struct fab_roce *r, size_t i)
{
	uint32_t p = r->modules.mods[i].port_idx;

	return p < r->n_eth_ports ? p : FAB_NONE;
}

/* ---- marking the base ----------------------------------------------------- */

void fab_roce_mark_free(struct fab_roce_mark *m)
{
	if (!m)
		return;
	struct mset *sets[] = { &m->sys_keys, &m->ports, &m->nbs, &m->devs, &m->mods };
	for (size_t i = 0; i < sizeof(sets) / sizeof(*sets); i++) {
		free(sets[i]->k);
		fab_roce_hidx_free(&sets[i]->ix);
	}
	fab_roce_hidx_free(&m->names);
	free(m->was_hidden);
	free(m->sys);
	free(m);
}

static uint64_t ptr_hash(const void *p)
{
	return mix(0xcbf29ce484222325ull, (uint64_t)(uintptr_t)p);
}

static int alloc_set(struct mset *set, size_t n)
{
	set->k = malloc((n + 1) * sizeof(*set->k));
	return set->k ? 0 : -ENOMEM;
}

static void bump(uint32_t *end, uint32_t id)
{
	if (id != FAB_NONE && id >= *end)
		*end = id + 1;
}

int fab_roce_mark_base(const struct fab_roce *b, const struct fab_roce_delta *stored,
		       const bool *from_delta, struct fab_roce_mark **out)
{
	struct fab_roce_mark *m = calloc(1, sizeof(*m));
	const uint32_t *ps = stored ? stored->port : NULL, *ss = stored ? stored->sys : NULL;
	const uint32_t *ns = stored ? stored->nb : NULL, *ds = stored ? stored->dev : NULL;
	const uint32_t *ms = stored ? stored->mod : NULL;
	uint32_t *seen = NULL;
	struct view v = { 0 };
	int err = -ENOMEM;

	*out = NULL;
	if (!m || !(m->sys = calloc(b->n_systems + 1, sizeof(*m->sys))) ||
	    alloc_set(&m->sys_keys, b->n_systems) || alloc_set(&m->ports, b->n_eth_ports) ||
	    alloc_set(&m->nbs, b->n_neighbors) || alloc_set(&m->devs, b->n_devices) ||
	    alloc_set(&m->mods, b->modules.n) || !(seen = calloc(b->n_eth_ports + 1, sizeof(*seen))) ||
	    view_init(&v, b, ss, ps, ns))
		goto out;
	m->n_sys = b->n_systems;
	if (stored && stored->n_hidden) {
		if (!(m->was_hidden = malloc(stored->n_hidden * sizeof(*m->was_hidden))))
			goto out;
		memcpy(m->was_hidden, stored->hidden, stored->n_hidden * sizeof(*m->was_hidden));
		m->n_was_hidden = stored->n_hidden;
	}
	err = 0;
	for (size_t i = 0; !err && i < b->n_systems; i++) {
		const struct fab_roce_system *y = &b->systems[i];
		unsigned tag;
		const char *s2, *s = sys_key(y, &tag, &s2);
		uint32_t id = id_of(ss, b->n_systems, (uint32_t)i);

		m->sys[i].name = y->name;
		m->sys[i].id = id;
		m->sys[i].from_delta = from_delta && from_delta[i];
		m->sys[i].derived = derived(&v, (uint32_t)i);
		bump(&m->end[E_SYS], id);
		err = put_key(&m->sys_keys, tag, 0, s, s2, id, (uint32_t)i);
		if (!err && y->collected)
			err = fab_roce_hidx_put(&m->names, ptr_hash(y->name), (uint32_t)i);
	}
	for (size_t i = 0; !err && i < b->n_eth_ports; i++) {
		const struct fab_eth_port *p = &b->eth_ports[i];
		uint32_t id = id_of(ps, b->n_eth_ports, (uint32_t)i);
		if (p->system_idx < b->n_systems)
			m->sys[p->system_idx].n_ports++;
		bump(&m->end[E_PORT], id);
		err = put_key(&m->ports, K_DPORT, id_of(ss, b->n_systems, p->system_idx), p->ifname,
			      p->port_id, id, (uint32_t)i);
	}
	for (size_t i = 0; !err && i < b->n_neighbors; i++) {
		const struct fab_lldp_neighbor *n = &b->neighbors[i];
		uint32_t id = id_of(ns, b->n_neighbors, (uint32_t)i), s = nb_system(b, i);
		if (s < b->n_systems)
			m->sys[s].n_nbs++;
		bump(&m->end[E_NB], id);
		if (n->port_idx < b->n_eth_ports)
			err = put_key(&m->nbs, K_DNB, id_of(ps, b->n_eth_ports, n->port_idx),
				      ordinal(seen[n->port_idx]++), NULL, id, (uint32_t)i);
	}
	for (size_t i = 0; !err && i < b->n_devices; i++) {
		const struct fab_rdma_device *d = &b->devices[i];
		uint32_t id = id_of(ds, b->n_devices, (uint32_t)i);
		if (d->system_idx < b->n_systems)
			m->sys[d->system_idx].n_devs++;
		bump(&m->end[E_DEV], id);
		err = put_key(&m->devs, K_DDEV, id_of(ss, b->n_systems, d->system_idx), d->name, NULL, id,
			      (uint32_t)i);
	}
	for (size_t i = 0; !err && i < b->modules.n; i++) {
		uint32_t id = id_of(ms, b->modules.n, (uint32_t)i), p = mod_port(b, i);
		if (p != FAB_NONE && b->eth_ports[p].system_idx < b->n_systems)
			m->sys[b->eth_ports[p].system_idx].n_mods++;
		bump(&m->end[E_MOD], id);
		err = put_key(&m->mods, K_DMOD, id_of(ps, b->n_eth_ports, p), NULL, NULL, id, (uint32_t)i);
	}
out:
	view_free(&v);
	free(seen);
	if (err) {
		fab_roce_mark_free(m);
		return err;
	}
	*out = m;
	return 0;
}

/* ---- the plan -------------------------------------------------------------- */

void fab_roce_delta_free(struct fab_roce_delta *d)
{
	if (!d)
		return;
	free(d->sys);
	free(d->port);
	free(d->nb);
	free(d->dev);
	free(d->mod);
	free(d->write);
	free(d->hidden);
	free(d);
}

struct ptr_key {
	const struct fab_roce_mark *m;
	const char *name;
};

static bool match_ptr(uint32_t v, const void *ctx)
{
	const struct ptr_key *k = ctx;

	return k->m->sys[v].name == k->name;
}

/* Whether collected system y of the merged model is one the base had: its
 * name is the very string the base loaded (a file merged again brings its
 * own copy, core/roce_merge.c). */
static bool from_base(const struct fab_roce_mark *m, const struct fab_roce_system *y)
{
	struct ptr_key k = { m, y->name };

	return fab_roce_hidx_get(&m->names, ptr_hash(y->name), match_ptr, &k) != FAB_NONE;
}

struct planner {
	const struct fab_roce *r;
	const struct fab_roce_mark *m;
	struct fab_roce_delta *d;
	uint32_t end[5];
	bool *taken[5];     /* by base key entry: matched already */
	uint32_t *base_pos; /* by system position: the base system matched, FAB_NONE */
	bool *fresh;        /* by system position: one of its elements is new */
	uint32_t *count[4]; /* by system position: ports, records, devices, modules */
};

/* The stored index of an element with base entry k (NULL: none), its
 * system at position s: the base's, unless another element took it. */
static uint32_t assign(struct planner *x, int e, const struct mset *set, const struct mkey *k,
		       uint32_t s)
{
	if (k && !x->taken[e][k - set->k]) {
		x->taken[e][k - set->k] = true;
		return k->id;
	}
	if (s != FAB_NONE && s < x->r->n_systems)
		x->fresh[s] = true;
	return x->end[e]++;
}

static int assign_all(struct planner *x)
{
	const struct fab_roce *r = x->r;
	const struct fab_roce_mark *m = x->m;
	struct fab_roce_delta *d = x->d;
	uint32_t *seen = calloc(r->n_eth_ports + 1, sizeof(*seen));

	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_systems; i++) {
		unsigned tag;
		const char *s2, *s = sys_key(&r->systems[i], &tag, &s2);
		const struct mkey *k = get_key(&m->sys_keys, tag, 0, s, s2);
		bool had = k && !x->taken[E_SYS][k - m->sys_keys.k];
		d->sys[i] = assign(x, E_SYS, &m->sys_keys, k, FAB_NONE);
		x->base_pos[i] = had ? k->pos : FAB_NONE;
	}
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];
		uint32_t s = p->system_idx < r->n_systems ? p->system_idx : FAB_NONE;
		const struct mkey *k = s == FAB_NONE ? NULL
				       : get_key(&m->ports, K_DPORT, d->sys[s], p->ifname, p->port_id);
		d->port[i] = assign(x, E_PORT, &m->ports, k, s);
		if (s != FAB_NONE)
			x->count[0][s]++;
	}
	for (size_t i = 0; i < r->n_neighbors; i++) {
		uint32_t p = r->neighbors[i].port_idx, s = nb_system(r, i);
		const struct mkey *k = p < r->n_eth_ports
					       ? get_key(&m->nbs, K_DNB, d->port[p], ordinal(seen[p]++), NULL)
					       : NULL;
		d->nb[i] = assign(x, E_NB, &m->nbs, k, s);
		if (s < r->n_systems)
			x->count[1][s]++;
	}
	for (size_t i = 0; i < r->n_devices; i++) {
		const struct fab_rdma_device *v = &r->devices[i];
		uint32_t s = v->system_idx < r->n_systems ? v->system_idx : FAB_NONE;
		const struct mkey *k = s == FAB_NONE ? NULL : get_key(&m->devs, K_DDEV, d->sys[s], v->name, NULL);
		d->dev[i] = assign(x, E_DEV, &m->devs, k, s);
		if (s != FAB_NONE)
			x->count[2][s]++;
	}
	for (size_t i = 0; i < r->modules.n; i++) {
		uint32_t p = mod_port(r, i), s = p == FAB_NONE ? FAB_NONE : r->eth_ports[p].system_idx;
		const struct mkey *k = p == FAB_NONE ? NULL : get_key(&m->mods, K_DMOD, d->port[p], NULL, NULL);
		d->mod[i] = assign(x, E_MOD, &m->mods, k, s);
		if (s < r->n_systems)
			x->count[3][s]++;
	}
	free(seen);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Which systems are written, and the base's hidden ones. */
static int judge(struct planner *x, size_t *n_written)
{
	const struct fab_roce *r = x->r;
	const struct fab_roce_mark *m = x->m;
	struct fab_roce_delta *d = x->d;
	bool *kept = calloc(m->n_sys + 1, sizeof(*kept));
	struct view v;
	int err;

	if (!kept)
		return -ENOMEM;
	if ((err = view_init(&v, r, d->sys, d->port, d->nb))) {
		free(kept);
		return err;
	}
	*n_written = 0;
	for (size_t i = 0; i < r->n_systems; i++) {
		const struct fab_roce_system *y = &r->systems[i];
		uint32_t b = x->base_pos[i];
		const struct msys *was = b == FAB_NONE ? NULL : &m->sys[b];
		bool same = was && !was->from_delta && !x->fresh[i] && (!y->collected || from_base(m, y)) &&
			    x->count[0][i] == was->n_ports && x->count[1][i] == was->n_nbs &&
			    x->count[2][i] == was->n_devs && x->count[3][i] == was->n_mods &&
			    derived(&v, (uint32_t)i) == was->derived;
		d->write[i] = !same;
		*n_written += !same;
		if (same)
			kept[b] = true;
	}
	view_free(&v);
	/* the keyframe's systems not kept: those of the base not kept, and
	 * those a base delta hid (they are not in the base at all) */
	size_t n = m->n_was_hidden;
	for (size_t b = 0; b < m->n_sys; b++)
		n += !kept[b];
	if (!(d->hidden = malloc((n + 1) * sizeof(*d->hidden)))) {
		free(kept);
		return -ENOMEM;
	}
	for (size_t b = 0; b < m->n_sys; b++)
		if (!kept[b])
			d->hidden[d->n_hidden++] = m->sys[b].id;
	for (size_t k = 0; k < m->n_was_hidden; k++)
		d->hidden[d->n_hidden++] = m->was_hidden[k];
	qsort(d->hidden, d->n_hidden, sizeof(*d->hidden), cmp_u32);
	size_t u = 0; /* each once (a system a base delta wrote is in both) */
	for (size_t k = 0; k < d->n_hidden; k++)
		if (!u || d->hidden[k] != d->hidden[u - 1])
			d->hidden[u++] = d->hidden[k];
	d->n_hidden = u;
	free(kept);
	return 0;
}

int fab_roce_delta_plan(const struct fab_roce *r, const struct fab_roce_mark *m, double max_share,
			struct fab_roce_delta **out)
{
	struct fab_roce_delta *d = calloc(1, sizeof(*d));
	struct planner x = { .r = r, .m = m, .d = d };
	const struct mset *sets[5] = { &m->sys_keys, &m->ports, &m->nbs, &m->devs, &m->mods };
	size_t written = 0;
	int err = -ENOMEM;

	*out = NULL;
	memcpy(x.end, m->end, sizeof(x.end));
	if (!d || !(d->sys = malloc((r->n_systems + 1) * sizeof(*d->sys))) ||
	    !(d->port = malloc((r->n_eth_ports + 1) * sizeof(*d->port))) ||
	    !(d->nb = malloc((r->n_neighbors + 1) * sizeof(*d->nb))) ||
	    !(d->dev = malloc((r->n_devices + 1) * sizeof(*d->dev))) ||
	    !(d->mod = malloc((r->modules.n + 1) * sizeof(*d->mod))) ||
	    !(d->write = calloc(r->n_systems + 1, sizeof(*d->write))) ||
	    !(x.base_pos = malloc((r->n_systems + 1) * sizeof(*x.base_pos))) ||
	    !(x.fresh = calloc(r->n_systems + 1, sizeof(*x.fresh))))
		goto out;
	for (int e = 0; e < 5; e++)
		if (!(x.taken[e] = calloc(sets[e]->n + 1, sizeof(*x.taken[e]))))
			goto out;
	for (int c = 0; c < 4; c++)
		if (!(x.count[c] = calloc(r->n_systems + 1, sizeof(*x.count[c]))))
			goto out;
	d->n_sys = r->n_systems;
	d->n_port = r->n_eth_ports;
	d->n_nb = r->n_neighbors;
	d->n_dev = r->n_devices;
	d->n_mod = r->modules.n;
	d->n_write = r->n_systems;
	if ((err = assign_all(&x)) || (err = judge(&x, &written)))
		goto out;
	if ((double)written > max_share * (double)r->n_systems) {
		fab_roce_delta_free(d); /* a whole merge: the next keyframe */
		d = NULL;
	}
	*out = d;
	d = NULL;
out:
	fab_roce_delta_free(d);
	for (int e = 0; e < 5; e++)
		free(x.taken[e]);
	for (int c = 0; c < 4; c++)
		free(x.count[c]);
	free(x.base_pos);
	free(x.fresh);
	return err;
}
