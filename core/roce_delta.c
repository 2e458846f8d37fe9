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

enum { K_DSYS = 40, K_DSTUB };

/* A base system's key and stored index. */
struct mkey {
	const char *s, *s2;
	uint32_t id;  /* its stored index */
	uint32_t pos; /* its position in the base model */
};

struct mset {
	struct mkey *k;
	size_t n;
	struct fab_roce_hidx ix; /* key hash -> k[] position */
};

/* A base element of a system: its key and stored index. */
struct melem {
	const char *s, *s2; /* a port's interface name and port id, a device's name */
	uint32_t a, b;      /* a record's port (stored) and place among its records; a module's port */
	uint32_t id;
};

/* The base's elements of one kind by system, in model order:
 * e[off[s] .. off[s + 1]) are base system s's. */
struct mlist {
	struct melem *e;
	uint32_t *off;
};

struct msys {
	const char *name; /* the string itself (a collected system's: see from_base) */
	uint32_t id;
	uint64_t derived;
	bool from_delta;
};

struct fab_roce_mark {
	struct msys *sys; /* by base position */
	size_t n_sys;
	struct mset sys_keys;
	struct mlist el[4];         /* ports, records, devices, modules */
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

static uint64_t key_hash(unsigned tag, const char *s, const char *s2)
{
	return str_hash(str_hash(mix(tag, 0xcbf29ce484222325ull), s), s2);
}

struct find {
	const struct mset *set;
	const char *s, *s2;
};

static bool match_key(uint32_t v, const void *ctx)
{
	const struct find *f = ctx;
	const struct mkey *k = &f->set->k[v];

	return str_eq(k->s, f->s) && str_eq(k->s2, f->s2);
}

static int put_key(struct mset *set, unsigned tag, const char *s, const char *s2, uint32_t id,
		   uint32_t pos)
{
	struct mkey *k = &set->k[set->n];
	uint64_t h = key_hash(tag, s, s2);

	k->s = s;
	k->s2 = s2;
	k->id = id;
	k->pos = pos;
	return fab_roce_hidx_put(&set->ix, h, (uint32_t)set->n++);
}

/* The base system with this key (its entry), NULL if none. */
static const struct mkey *get_key(const struct mset *set, unsigned tag, const char *s, const char *s2)
{
	struct find f = { set, s, s2 };
	uint32_t v = fab_roce_hidx_get(&set->ix, key_hash(tag, s, s2), match_key, &f);

	return v == FAB_NONE ? NULL : &set->k[v];
}

/* ---- what a system derives ------------------------------------------------ */

/* A model's elements with their stored indices, and per system its ports,
 * neighbour records and owned links (CSR). */
struct view {
	const struct fab_roce *r;
	const uint32_t *sys, *port, *nb; /* NULL: positions */
	uint32_t *off[5], *list[5];      /* V_PORT .. V_MOD */
};

enum { V_PORT, V_NB, V_DEV, V_MOD, V_LINK }; /* V_PORT..V_MOD: as mark.el[] */

static void view_free(struct view *v)
{
	for (int i = 0; i < 5; i++) {
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

static uint32_t dev_system(const struct fab_roce *r, size_t i)
{
	return r->devices[i].system_idx;
}

static uint32_t mod_system(const struct fab_roce *r, size_t i)
{
	uint32_t p = r->modules.mods[i].port_idx;

	return p < r->n_eth_ports ? r->eth_ports[p].system_idx : FAB_NONE;
}

static uint32_t link_owner(const struct fab_roce *r, size_t i)
{
	uint32_t a = r->links[i].a;

	return a < r->n_eth_ports ? r->eth_ports[a].system_idx : FAB_NONE;
}

static int view_init(struct view *v, const struct fab_roce *r, const uint32_t *sys,
		     const uint32_t *port, const uint32_t *nb)
{
	*v = (struct view){ .r = r, .sys = sys, .port = port, .nb = nb };
	if (fab_roce_csr(r, r->n_eth_ports, port_system, &v->off[V_PORT], &v->list[V_PORT]) ||
	    fab_roce_csr(r, r->n_neighbors, nb_system, &v->off[V_NB], &v->list[V_NB]) ||
	    fab_roce_csr(r, r->n_devices, dev_system, &v->off[V_DEV], &v->list[V_DEV]) ||
	    fab_roce_csr(r, r->modules.n, mod_system, &v->off[V_MOD], &v->list[V_MOD]) ||
	    fab_roce_csr(r, r->n_links, link_owner, &v->off[V_LINK], &v->list[V_LINK])) {
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

	for (uint32_t k = v->off[V_NB][s]; k < v->off[V_NB][s + 1]; k++) {
		uint32_t i = v->list[V_NB][k];
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
	for (uint32_t k = v->off[V_LINK][s]; k < v->off[V_LINK][s + 1]; k++) {
		const struct fab_eth_link *l = &r->links[v->list[V_LINK][k]];
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
		for (uint32_t k = v->off[V_PORT][s]; k < v->off[V_PORT][s + 1]; k++)
			sum += stub_port_hash(v, v->list[V_PORT][k]);
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

static uint32_t mod_port(const struct fab_roce *r, size_t i)
{
	uint32_t p = r->modules.mods[i].port_idx;

	return p < r->n_eth_ports ? p : FAB_NONE;
}

/*
 * Element i of kind k of view v as a key within its system: a port by
 * interface name and port id, a record by its port (stored) and place
 * among the port's records (seen[] counts them, by port position), a
 * device by name, a module by its port (stored).
 */
static struct melem elem_key(const struct view *v, int k, uint32_t i, const uint32_t *port_ids,
			     uint32_t *seen)
{
	const struct fab_roce *r = v->r;
	struct melem e = { 0 };

	switch (k) {
	case V_PORT:
		e.s = r->eth_ports[i].ifname;
		e.s2 = r->eth_ports[i].port_id;
		break;
	case V_NB: {
		uint32_t p = r->neighbors[i].port_idx;
		e.a = p < r->n_eth_ports ? id_of(port_ids, r->n_eth_ports, p) : FAB_NONE;
		e.b = p < r->n_eth_ports ? seen[p]++ : 0;
		break;
	}
	case V_DEV:
		e.s = r->devices[i].name;
		break;
	default: {
		uint32_t p = mod_port(r, i);
		e.a = p == FAB_NONE ? FAB_NONE : id_of(port_ids, r->n_eth_ports, p);
		break;
	}
	}
	return e;
}

static bool elem_eq(const struct melem *x, const struct melem *y)
{
	return x->a == y->a && x->b == y->b && str_eq(x->s, y->s) && str_eq(x->s2, y->s2);
}

/* ---- marking the base ----------------------------------------------------- */

void fab_roce_mark_free(struct fab_roce_mark *m)
{
	if (!m)
		return;
	free(m->sys_keys.k);
	fab_roce_hidx_free(&m->sys_keys.ix);
	for (int k = 0; k < 4; k++) {
		free(m->el[k].e);
		free(m->el[k].off);
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


static void bump(uint32_t *end, uint32_t id)
{
	if (id != FAB_NONE && id >= *end)
		*end = id + 1;
}

int fab_roce_mark_base(const struct fab_roce *b, const struct fab_roce_delta *stored,
		       const bool *from_delta, struct fab_roce_mark **out)
{
	struct fab_roce_mark *m = calloc(1, sizeof(*m));
	const uint32_t *ss = stored ? stored->sys : NULL, *ps = stored ? stored->port : NULL;
	const uint32_t *ids[4] = { ps, stored ? stored->nb : NULL, stored ? stored->dev : NULL,
				   stored ? stored->mod : NULL };
	const size_t n[4] = { b->n_eth_ports, b->n_neighbors, b->n_devices, b->modules.n };
	uint32_t *seen = NULL;
	struct view v = { 0 };
	int err = -ENOMEM;

	*out = NULL;
	if (!m || !(m->sys = calloc(b->n_systems + 1, sizeof(*m->sys))) ||
	    !(m->sys_keys.k = malloc((b->n_systems + 1) * sizeof(*m->sys_keys.k))) ||
	    !(seen = calloc(b->n_eth_ports + 1, sizeof(*seen))) || view_init(&v, b, ss, ps, ids[1]))
		goto out;
	m->n_sys = b->n_systems;
	if (stored && stored->n_hidden) {
		if (!(m->was_hidden = malloc(stored->n_hidden * sizeof(*m->was_hidden))))
			goto out;
		memcpy(m->was_hidden, stored->hidden, stored->n_hidden * sizeof(*m->was_hidden));
		m->n_was_hidden = stored->n_hidden;
	}
	/* each kind's elements by system, as the view orders them */
	for (int k = 0; k < 4; k++) {
		struct mlist *l = &m->el[k];
		if (!(l->e = malloc((n[k] + 1) * sizeof(*l->e))) ||
		    !(l->off = malloc((b->n_systems + 1) * sizeof(*l->off))))
			goto out;
		memcpy(l->off, v.off[k], (b->n_systems + 1) * sizeof(*l->off));
		for (uint32_t x = 0; x < v.off[k][b->n_systems]; x++) {
			uint32_t i = v.list[k][x];
			l->e[x] = elem_key(&v, k, i, ps, seen);
			l->e[x].id = id_of(ids[k], n[k], i);
			bump(&m->end[E_PORT + k], l->e[x].id);
		}
	}
	if (b->rdma_dev_end) /* devices left stored (fab_roce_system.stored_scan) */
		bump(&m->end[E_DEV], b->rdma_dev_end - 1);
	if (b->mod_end) /* and modules */
		bump(&m->end[E_MOD], b->mod_end - 1);
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
		err = put_key(&m->sys_keys, tag, s, s2, id, (uint32_t)i);
		if (!err && y->collected)
			err = fab_roce_hidx_put(&m->names, ptr_hash(y->name), (uint32_t)i);
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
	struct view v;      /* the merged model's elements by system */
	uint32_t end[5];
	bool *taken[5];     /* by base element (mark.sys_keys.k, mark.el[]): matched already */
	uint32_t *base_pos; /* by system position: the base system matched, FAB_NONE */
	bool *fresh;        /* by system position: an element new or gone */
};

/* The base element of list l's range [lo, hi) equal to key, not taken: the
 * one at lo + j first (the same place: the usual case), FAB_NONE if none. */
static uint32_t match_elem(const struct mlist *l, const bool *taken, uint32_t lo, uint32_t hi, uint32_t j,
			   const struct melem *key)
{
	if (lo + j < hi && !taken[lo + j] && elem_eq(&l->e[lo + j], key))
		return lo + j;
	for (uint32_t t = lo; t < hi; t++)
		if (!taken[t] && elem_eq(&l->e[t], key))
			return t;
	return FAB_NONE;
}

/* Stored indices: a system by its key, its elements by theirs among its
 * base system's (no base system: all new). */
static int assign_all(struct planner *x)
{
	const struct fab_roce *r = x->r;
	const struct fab_roce_mark *m = x->m;
	struct fab_roce_delta *d = x->d;
	const struct view *v = &x->v;
	uint32_t *out[4] = { d->port, d->nb, d->dev, d->mod };
	uint32_t *seen = calloc(r->n_eth_ports + 1, sizeof(*seen));
	size_t ns = r->n_systems;

	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < ns; i++) {
		unsigned tag;
		const char *s2, *s = sys_key(&r->systems[i], &tag, &s2);
		const struct mkey *k = get_key(&m->sys_keys, tag, s, s2);
		if (k && !x->taken[E_SYS][k - m->sys_keys.k]) {
			x->taken[E_SYS][k - m->sys_keys.k] = true;
			d->sys[i] = k->id;
			x->base_pos[i] = k->pos;
		} else {
			d->sys[i] = x->end[E_SYS]++;
			x->base_pos[i] = FAB_NONE;
		}
	}
	for (int k = 0; k < 4; k++) { /* ports first: records and modules are keyed by them */
		const struct mlist *l = &m->el[k];
		for (size_t i = 0; i <= ns; i++) { /* ns: elements of no system */
			uint32_t b = i < ns ? x->base_pos[i] : FAB_NONE;
			uint32_t lo = b == FAB_NONE ? 0 : l->off[b], hi = b == FAB_NONE ? 0 : l->off[b + 1];
			uint32_t first = v->off[k][i], n = v->off[k][i + 1] - first;
			if (i < ns && n != hi - lo)
				x->fresh[i] = true;
			for (uint32_t j = 0; j < n; j++) {
				uint32_t e = v->list[k][first + j];
				struct melem key = elem_key(v, k, e, d->port, seen);
				uint32_t t = match_elem(l, x->taken[E_PORT + k], lo, hi, j, &key);
				if (t != FAB_NONE) {
					x->taken[E_PORT + k][t] = true;
					out[k][e] = l->e[t].id;
				} else {
					if (i < ns)
						x->fresh[i] = true;
					out[k][e] = x->end[E_PORT + k]++;
				}
			}
		}
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

	if (!kept)
		return -ENOMEM;
	*n_written = 0;
	for (size_t i = 0; i < r->n_systems; i++) {
		const struct fab_roce_system *y = &r->systems[i];
		uint32_t b = x->base_pos[i];
		const struct msys *was = b == FAB_NONE ? NULL : &m->sys[b];
		bool same = was && !was->from_delta && !x->fresh[i] && (!y->collected || from_base(m, y)) &&
			    derived(&x->v, (uint32_t)i) == was->derived;
		d->write[i] = !same;
		*n_written += !same;
		if (same)
			kept[b] = true;
	}
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
	const size_t n_base[5] = { m->sys_keys.n, m->el[0].off[m->n_sys], m->el[1].off[m->n_sys],
				   m->el[2].off[m->n_sys], m->el[3].off[m->n_sys] };
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
		if (!(x.taken[e] = calloc(n_base[e] + 1, sizeof(*x.taken[e]))))
			goto out;
	if (view_init(&x.v, r, NULL, NULL, NULL))
		goto out;
	x.v.sys = d->sys; /* filled in by assign_all, read by judge */
	x.v.port = d->port;
	x.v.nb = d->nb;
	d->n_sys = r->n_systems;
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
	view_free(&x.v);
	free(x.base_pos);
	free(x.fresh);
	return err;
}
