// SPDX-License-Identifier: MIT
/*
 * Merging views of the RoCE model (`fabsweep merge`): the collected
 * systems of one model copied into another, the newest view of a system
 * kept; and the model's shared pieces (strings, TLV and application entry
 * ranges many ports have alike) stored once.
 *
 * Everything here is linear in the size of what is copied: a model's ports,
 * neighbours and devices are bucketed by system once per call, so a source
 * that is itself a merge of thousands of systems costs what its elements
 * cost, not systems times elements.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "roce_priv.h"

/* ---- what the model shares ------------------------------------------------ */

/*
 * Kept with the model across calls (merge is called once per file: a fresh
 * index per call would make merging n files O(n^2)): the collected systems
 * by name, and the pools of shared pieces. Systems are only appended
 * between calls; compaction (roce_resolve.c) drops the system index.
 */
struct fab_roce_names {
	struct fab_roce_hidx sys;
	size_t n_indexed; /* systems[0 .. n_indexed) are in sys */
	struct fab_roce_hidx strs;
	const char **str;
	size_t n_str, cap_str;
	struct fab_roce_hidx tlvs; /* tlv_first of ranges, by content */
	struct fab_roce_hidx apps; /* app_first of ranges, by content */
};

void fab_roce_names_free(struct fab_roce_names *x)
{
	if (x) {
		fab_roce_hidx_free(&x->sys);
		fab_roce_hidx_free(&x->strs);
		fab_roce_hidx_free(&x->tlvs);
		fab_roce_hidx_free(&x->apps);
		free(x->str);
		free(x);
	}
}

static struct fab_roce_names *names_of(struct fab_roce *r)
{
	if (!r->names)
		r->names = calloc(1, sizeof(*r->names));
	return r->names;
}

void fab_roce_forget_systems(struct fab_roce *r)
{
	if (r->names) {
		fab_roce_hidx_free(&r->names->sys);
		r->names->n_indexed = 0;
	}
}

struct str_key {
	const struct fab_roce_names *x;
	const char *s;
};

static bool match_str(uint32_t v, const void *ctx)
{
	const struct str_key *k = ctx;

	return !strcmp(k->x->str[v], k->s);
}

const char *fab_roce_intern(struct fab_roce *r, const char *s)
{
	struct fab_roce_names *x;

	if (!s)
		return NULL;
	if (!(x = names_of(r)))
		return NULL;
	struct str_key k = { x, s };
	uint64_t h = fab_roce_key_hash(0, 0, s, false);
	uint32_t v = fab_roce_hidx_get(&x->strs, h, match_str, &k);
	if (v != FAB_NONE)
		return x->str[v];
	if (x->n_str == x->cap_str) {
		size_t cap = x->cap_str ? x->cap_str * 2 : 64;
		const char **n = realloc(x->str, cap * sizeof(*n));
		if (!n)
			return NULL;
		x->str = n;
		x->cap_str = cap;
	}
	const char *copy = fab_roce_strdup(r, s);
	if (!copy || fab_roce_hidx_put(&x->strs, h, (uint32_t)x->n_str))
		return NULL;
	x->str[x->n_str++] = copy;
	return copy;
}

static uint64_t tlv_range_hash(const struct fab_lldp_tlv *t, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t head[3] = { t[i].oui, t[i].subtype, t[i].len };
		h = fab_roce_fnv(h, head, sizeof(head));
		h = fab_roce_fnv(h, t[i].info, t[i].len);
	}
	return h;
}

struct range_key {
	const struct fab_roce *r;
	const void *elems;
	uint32_t n;
};

static bool tlv_eq(const struct fab_lldp_tlv *a, const struct fab_lldp_tlv *b)
{
	return a->oui == b->oui && a->subtype == b->subtype && a->len == b->len &&
	       (!a->len || !memcmp(a->info, b->info, a->len));
}

static bool match_tlvs(uint32_t v, const void *ctx)
{
	const struct range_key *k = ctx;
	const struct fab_lldp_tlv *t = k->elems;

	if (v > k->r->n_tlvs || k->n > k->r->n_tlvs - v)
		return false;
	for (uint32_t i = 0; i < k->n; i++)
		if (!tlv_eq(&k->r->tlvs[v + i], &t[i]))
			return false;
	return true;
}

int fab_roce_add_tlvs_shared(struct fab_roce *r, const struct fab_lldp_tlv *t, uint32_t n,
			     uint32_t *out_first)
{
	struct fab_roce_names *x = names_of(r);
	struct range_key k = { r, t, n };
	int err;

	if (!x)
		return -ENOMEM;
	if (!n) {
		*out_first = (uint32_t)r->n_tlvs;
		return 0;
	}
	uint64_t h = tlv_range_hash(t, n);
	uint32_t v = fab_roce_hidx_get(&x->tlvs, h, match_tlvs, &k);
	if (v != FAB_NONE) {
		*out_first = v;
		return 0;
	}
	uint32_t first = (uint32_t)r->n_tlvs;
	for (uint32_t i = 0; i < n; i++)
		if ((err = fab_roce_add_tlv(r, t[i].oui, t[i].subtype, t[i].info, t[i].len)))
			return err;
	if (fab_roce_hidx_put(&x->tlvs, h, first))
		return -ENOMEM;
	*out_first = first;
	return 0;
}

static bool match_apps(uint32_t v, const void *ctx)
{
	const struct range_key *k = ctx;

	return v <= k->r->n_apps && k->n <= k->r->n_apps - v &&
	       !memcmp(&k->r->apps[v], k->elems, k->n * sizeof(struct fab_app_entry));
}

int fab_roce_add_apps_shared(struct fab_roce *r, const struct fab_app_entry *e, uint32_t n,
			     uint32_t *out_first)
{
	struct fab_roce_names *x = names_of(r);
	struct range_key k = { r, e, n };

	if (!x)
		return -ENOMEM;
	if (!n) {
		*out_first = (uint32_t)r->n_apps;
		return 0;
	}
	uint64_t h = fab_roce_fnv(0xcbf29ce484222325ull ^ n, e, n * sizeof(*e));
	uint32_t v = fab_roce_hidx_get(&x->apps, h, match_apps, &k);
	if (v != FAB_NONE) {
		*out_first = v;
		return 0;
	}
	if (fab_roce_add_apps(r, e, n, out_first) || fab_roce_hidx_put(&x->apps, h, *out_first))
		return -ENOMEM;
	return 0;
}

/* ---- where each system's elements are ------------------------------------ */

/* Per system, its elements in order (CSR: the k-th system's are
 * list[off[k] .. off[k+1])). */
struct fab_roce_sysindex {
	size_t n_systems;
	uint32_t *port_off, *ports; /* its own eth ports (not stubs) */
	uint32_t *nb_off, *nbs;     /* the neighbour records heard on them */
	uint32_t *dev_off, *devs;   /* its RDMA devices */
	uint32_t *rank;             /* per eth port: its place among its system's own ports */
	uint32_t *mod;              /* per eth port: its module, FAB_NONE; NULL: no modules */
};

void fab_roce_sysindex_free(struct fab_roce_sysindex *ix)
{
	if (!ix)
		return;
	free(ix->port_off);
	free(ix->ports);
	free(ix->nb_off);
	free(ix->nbs);
	free(ix->dev_off);
	free(ix->devs);
	free(ix->rank);
	free(ix->mod);
	free(ix);
}

static uint32_t port_owner(const struct fab_roce *r, size_t i)
{
	const struct fab_eth_port *p = &r->eth_ports[i];

	return p->flags & FAB_ETH_F_STUB ? FAB_NONE : p->system_idx;
}

static uint32_t nb_owner(const struct fab_roce *r, size_t i)
{
	uint32_t p = r->neighbors[i].port_idx;

	return p < r->n_eth_ports ? port_owner(r, p) : FAB_NONE;
}

static uint32_t dev_owner(const struct fab_roce *r, size_t i)
{
	return r->devices[i].system_idx;
}


int fab_roce_sysindex_build(const struct fab_roce *r, struct fab_roce_sysindex **out)
{
	struct fab_roce_sysindex *ix = calloc(1, sizeof(*ix));
	int err;

	if (!ix)
		return -ENOMEM;
	ix->n_systems = r->n_systems;
	if ((err = fab_roce_csr(r, r->n_eth_ports, port_owner, &ix->port_off, &ix->ports)) ||
	    (err = fab_roce_csr(r, r->n_neighbors, nb_owner, &ix->nb_off, &ix->nbs)) ||
	    (err = fab_roce_csr(r, r->n_devices, dev_owner, &ix->dev_off, &ix->devs)) ||
	    !(ix->rank = malloc((r->n_eth_ports + 1) * sizeof(*ix->rank)))) {
		fab_roce_sysindex_free(ix);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_eth_ports; i++)
		ix->rank[i] = FAB_NONE;
	for (size_t s = 0; s < r->n_systems; s++)
		for (uint32_t k = ix->port_off[s]; k < ix->port_off[s + 1]; k++)
			ix->rank[ix->ports[k]] = k - ix->port_off[s];
	if (r->modules.n) {
		if (!(ix->mod = malloc((r->n_eth_ports + 1) * sizeof(*ix->mod)))) {
			fab_roce_sysindex_free(ix);
			return -ENOMEM;
		}
		for (size_t i = 0; i < r->n_eth_ports; i++)
			ix->mod[i] = FAB_NONE;
		for (size_t i = 0; i < r->modules.n; i++)
			if (r->modules.mods[i].port_idx < r->n_eth_ports)
				ix->mod[r->modules.mods[i].port_idx] = (uint32_t)i;
	}
	*out = ix;
	return 0;
}

/* ---- copying systems ------------------------------------------------------ */

#define CTR_CACHE 128

struct copier {
	struct fab_roce *dst;
	const struct fab_roce *src;
	const struct fab_roce_sysindex *ix;
	uint32_t port_base;    /* dst's first port of the system being copied */
	const char *ctr_src[CTR_CACHE], *ctr_dst[CTR_CACHE];
};

/* Shared strings: the ones many elements repeat. Unique ones are copied. */
#define SHARED(c, s) ((s) ? fab_roce_intern((c)->dst, (s)) : NULL)
#define OWN(c, s) ((s) ? fab_roce_strdup((c)->dst, (s)) : NULL)

static int copy_tlvs(struct copier *c, uint32_t first, uint32_t count, uint32_t *out)
{
	if (!count || first > c->src->n_tlvs || count > c->src->n_tlvs - first) {
		*out = (uint32_t)c->dst->n_tlvs;
		return 0;
	}
	return fab_roce_add_tlvs_shared(c->dst, &c->src->tlvs[first], count, out);
}

static int copy_dcbx(struct copier *c, const struct fab_dcbx *in, struct fab_dcbx *out)
{
	*out = *in;
	if (!in->app_count)
		return 0;
	if (in->app_first > c->src->n_apps || in->app_count > c->src->n_apps - in->app_first)
		return -EINVAL;
	return fab_roce_add_apps_shared(c->dst, &c->src->apps[in->app_first], in->app_count,
					&out->app_first);
}

/* Module mi of src for dst port dp (the strings many modules share, once). */
static int copy_module_at(struct fab_roce *dst, const struct fab_roce *src, uint32_t mi, uint32_t dp)
{
	const struct fab_modules *from = &src->modules;
	const struct fab_module *m = &from->mods[mi];
	const struct fab_module_lane *l = fab_module_lanes(from, m);
	struct fab_module *n = fab_modules_add(&dst->modules, dp, l ? m->n_lanes : 0);
	if (!n)
		return -ENOMEM;
	uint32_t lf = n->lane_first;
	*n = *m;
	n->port_idx = dp;
	n->lane_first = lf;
	n->n_lanes = l ? m->n_lanes : 0;
	n->type = fab_roce_intern(dst, m->type);
	n->vendor = fab_roce_intern(dst, m->vendor);
	n->part_number = fab_roce_intern(dst, m->part_number);
	n->serial = m->serial ? fab_roce_strdup(dst, m->serial) : NULL;
	n->revision = fab_roce_intern(dst, m->revision);
	n->date_code = fab_roce_intern(dst, m->date_code);
	n->media = fab_roce_intern(dst, m->media);
	n->note = fab_roce_intern(dst, m->note);
	if (l)
		memcpy(&dst->modules.lanes[lf], l, m->n_lanes * sizeof(*l));
	return 0;
}

/* The module of src port sp (if any) for dst port dp. */
static int copy_module(struct copier *c, uint32_t sp, uint32_t dp)
{
	uint32_t mi = c->ix->mod ? c->ix->mod[sp] : FAB_NONE;

	return mi == FAB_NONE ? 0 : copy_module_at(c->dst, c->src, mi, dp);
}

int fab_roce_copy_module(struct fab_roce *dst, uint32_t dst_port, const struct fab_roce *src,
			 uint32_t src_port)
{
	uint32_t mi = fab_modules_find(&src->modules, src_port);

	return mi == FAB_NONE ? 0 : copy_module_at(dst, src, mi, dst_port);
}

/* The NIC counters and the module of src port sp for dst port qi. */
static int copy_phys(struct copier *c, uint32_t sp, uint32_t qi)
{
	const struct fab_roce *src = c->src;
	const struct fab_eth_port *p = &src->eth_ports[sp];
	int err = 0;

	c->dst->eth_ports[qi].driver = SHARED(c, p->driver);
	c->dst->eth_ports[qi].nic_first = c->dst->eth_ports[qi].nic_count = 0;
	for (uint32_t k = 0; !err && k < p->nic_count && p->nic_first + k < src->n_nic_counters; k++) {
		const struct fab_nic_counter *t = &src->nic_counters[p->nic_first + k];
		err = fab_roce_add_nic_counter(c->dst, qi, t->ctr, t->prio, t->sample, t->value, t->at_ms,
					       t->source);
	}
	return err ? err : copy_module(c, sp, qi);
}

static int copy_port(struct copier *c, uint32_t i, uint32_t di)
{
	struct fab_roce *dst = c->dst;
	const struct fab_eth_port *p = &c->src->eth_ports[i];
	struct fab_eth_port *q = fab_roce_add_eth_port(dst, di);
	uint32_t qi = (uint32_t)dst->n_eth_ports - 1, tf;
	struct fab_dcbx adv, dcb;
	int err;

	if (!q)
		return -ENOMEM;
	*q = *p;
	q->system_idx = di;
	q->rdma_port_idx = FAB_NONE;
	q->ifname = SHARED(c, p->ifname);
	q->mac = OWN(c, p->mac);
	q->state = SHARED(c, p->state);
	q->port_id = p->port_id && p->mac && !strcmp(p->port_id, p->mac) ? q->mac : OWN(c, p->port_id);
	q->port_id_subtype = SHARED(c, p->port_id_subtype);
	q->port_descr = SHARED(c, p->port_descr);
	q->master = SHARED(c, p->master);
	if ((err = copy_phys(c, i, qi)) || (err = copy_tlvs(c, p->tlv_first, p->tlv_count, &tf)) ||
	    (err = copy_dcbx(c, &p->adv, &adv)) || (err = copy_dcbx(c, &p->dcb, &dcb)))
		return err;
	q = &dst->eth_ports[qi];
	q->tlv_first = tf;
	q->adv = adv;
	q->dcb = dcb;
	return 0;
}

static int copy_neighbor(struct copier *c, uint32_t i)
{
	struct fab_roce *dst = c->dst;
	const struct fab_lldp_neighbor *n = &c->src->neighbors[i];
	struct fab_lldp_neighbor *m;
	uint32_t tf;
	struct fab_dcbx dx;
	int err;

	/* the ports of the system were appended from port_base in index order */
	if (!(m = fab_roce_add_neighbor(dst, c->port_base + c->ix->rank[n->port_idx])))
		return -ENOMEM;
	uint32_t mi = (uint32_t)dst->n_neighbors - 1, pi = m->port_idx;
	*m = *n;
	m->port_idx = pi;
	m->remote_system_idx = m->remote_port_idx = FAB_NONE;
	/* a neighbour (a leaf) is heard alike by all the hosts below it */
	m->chassis_id = SHARED(c, n->chassis_id);
	m->chassis_id_subtype = SHARED(c, n->chassis_id_subtype);
	m->system_name = SHARED(c, n->system_name);
	m->system_descr = SHARED(c, n->system_descr);
	m->mgmt_address = SHARED(c, n->mgmt_address);
	m->port_id = OWN(c, n->port_id);
	m->port_id_subtype = SHARED(c, n->port_id_subtype);
	m->port_descr = SHARED(c, n->port_descr);
	if ((err = copy_tlvs(c, n->tlv_first, n->tlv_count, &tf)) || (err = copy_dcbx(c, &n->dcbx, &dx)))
		return err;
	m = &dst->neighbors[mi];
	m->tlv_first = tf;
	m->dcbx = dx;
	return 0;
}

/* dst's copy of a counter's shared name: ports list the same names in the
 * same order, so the previous port's answer at position j is usually it. */
static const char *ctr_name(struct copier *c, uint32_t j, const struct fab_rdma_counter *t)
{
	if (j < CTR_CACHE && c->ctr_src[j] == t->name)
		return c->ctr_dst[j];
	const char *d = fab_roce_counter_name(c->dst, fab_rdma_counter_kind(t), t->name);
	if (j < CTR_CACHE) {
		c->ctr_src[j] = t->name;
		c->ctr_dst[j] = d;
	}
	return d;
}

static int copy_device(struct copier *c, uint32_t i, uint32_t di)
{
	struct fab_roce *dst = c->dst;
	const struct fab_roce *src = c->src;
	const struct fab_rdma_device *v = &src->devices[i];
	struct fab_rdma_device *w;
	int err = 0;

	if (!(w = fab_roce_add_device(dst, di)))
		return -ENOMEM;
	uint32_t wi = (uint32_t)dst->n_devices - 1;
	*w = *v;
	w->system_idx = di;
	w->port_count = 0;
	w->port_first = (uint32_t)dst->n_rdma_ports;
	w->name = SHARED(c, v->name);
	w->node_desc = SHARED(c, v->node_desc);
	w->fw_ver = SHARED(c, v->fw_ver);
	w->hca_type = SHARED(c, v->hca_type);
	w->board_id = SHARED(c, v->board_id);
	w->pci_address = SHARED(c, v->pci_address);
	for (uint32_t k = 0; !err && k < v->port_count && v->port_first + k < src->n_rdma_ports; k++) {
		const struct fab_rdma_port *p = &src->rdma_ports[v->port_first + k];
		struct fab_rdma_port *q = fab_roce_add_rdma_port(dst, wi);
		if (!q)
			return -ENOMEM;
		uint32_t qi = (uint32_t)dst->n_rdma_ports - 1, cf = q->ctr_first;
		*q = *p;
		q->device_idx = wi;
		q->eth_port_idx = FAB_NONE;
		q->ctr_first = cf;
		q->ctr_count = 0;
		q->rate = SHARED(c, p->rate);
		q->link_layer = SHARED(c, p->link_layer);
		q->netdev = SHARED(c, p->netdev);
		uint32_t n = p->ctr_first <= src->n_counters ? p->ctr_count : 0;
		if (n > src->n_counters - p->ctr_first)
			n = (uint32_t)(src->n_counters - p->ctr_first);
		for (uint32_t j = 0; j < n && !err; j += CTR_CACHE) {
			uint32_t m = n - j < CTR_CACHE ? n - j : CTR_CACHE;
			const char *names[CTR_CACHE];
			uint64_t values[CTR_CACHE];
			for (uint32_t x = 0; x < m; x++) {
				const struct fab_rdma_counter *t = &src->counters[p->ctr_first + j + x];
				names[x] = ctr_name(c, j + x, t);
				values[x] = t->value;
			}
			err = fab_roce_add_counters(dst, qi, m, names, values);
		}
	}
	return err;
}

static int copy_system(struct copier *c, uint32_t si, const char *source)
{
	struct fab_roce *dst = c->dst;
	const struct fab_roce_system *s = &c->src->systems[si];
	const struct fab_roce_sysindex *ix = c->ix;
	struct fab_roce_system *d = fab_roce_add_system(dst);
	uint32_t di = (uint32_t)dst->n_systems - 1;
	int err = 0;

	if (!d)
		return -ENOMEM;
	*d = *s;
	d->stored_scan = 0; /* what the source left stored is not copied */
	d->name = OWN(c, s->name);
	d->chassis_id = OWN(c, s->chassis_id);
	d->chassis_id_subtype = SHARED(c, s->chassis_id_subtype);
	d->description = SHARED(c, s->description);
	d->mgmt_address = OWN(c, s->mgmt_address);
	d->hostname = s->hostname && s->name && !strcmp(s->hostname, s->name) ? d->name
										 : OWN(c, s->hostname);
	d->source = source ? OWN(c, source) : OWN(c, s->source);
	c->port_base = (uint32_t)dst->n_eth_ports;
	for (uint32_t k = ix->port_off[si]; !err && k < ix->port_off[si + 1]; k++)
		err = copy_port(c, ix->ports[k], di);
	for (uint32_t k = ix->nb_off[si]; !err && k < ix->nb_off[si + 1]; k++)
		err = copy_neighbor(c, ix->nbs[k]);
	for (uint32_t k = ix->dev_off[si]; !err && k < ix->dev_off[si + 1]; k++)
		err = copy_device(c, ix->devs[k], di);
	return err;
}

struct named {
	const struct fab_roce *r;
	const char *name;
};

static bool match_collected(uint32_t v, const void *ctx)
{
	const struct named *k = ctx;

	return k->r->systems[v].collected && fab_roce_streq(k->r->systems[v].name, k->name);
}

/* The collected system of dst named name, FAB_NONE if none; indexes the
 * systems appended since the last call first. */
static int find_collected(struct fab_roce *dst, const char *name, uint32_t *out)
{
	struct named k = { .r = dst, .name = name };
	struct fab_roce_names *x = names_of(dst);

	if (!x)
		return -ENOMEM;
	for (; x->n_indexed < dst->n_systems; x->n_indexed++) {
		const struct fab_roce_system *s = &dst->systems[x->n_indexed];
		if (s->collected && s->name &&
		    fab_roce_hidx_put(&x->sys, fab_roce_key_hash(K_SYSNAME, 0, s->name, false),
				      (uint32_t)x->n_indexed))
			return -ENOMEM;
	}
	*out = name ? fab_roce_hidx_get(&x->sys, fab_roce_key_hash(K_SYSNAME, 0, name, false),
					match_collected, &k)
		    : FAB_NONE;
	return 0;
}

int fab_roce_merge(struct fab_roce *dst, const struct fab_roce *src,
		   const char *source, size_t *out_dups)
{
	struct copier c = { .dst = dst, .src = src };
	struct fab_roce_sysindex *ix = NULL;
	size_t dups = 0;
	int err = 0;

	if ((err = fab_roce_sysindex_build(src, &ix)))
		return err;
	c.ix = ix;
	for (size_t i = 0; !err && i < src->n_systems; i++) {
		const struct fab_roce_system *s = &src->systems[i];

		if (!s->collected)
			continue;
		uint32_t old;
		if ((err = find_collected(dst, s->name, &old)))
			break;
		if (old != FAB_NONE) {
			dups++;
			if (s->collected_at_ms <= dst->systems[old].collected_at_ms)
				continue;
			/* newer: the old copy is dropped at the next resolve */
			dst->systems[old].collected = false;
		}
		err = copy_system(&c, (uint32_t)i, source);
	}
	fab_roce_sysindex_free(ix);
	if (out_dups)
		*out_dups = dups;
	return err;
}

int fab_roce_copy_systems(struct fab_roce *dst, const struct fab_roce *src,
			  const struct fab_roce_sysindex *ix, const uint32_t *systems, size_t n,
			  const char *source)
{
	struct copier c = { .dst = dst, .src = src, .ix = ix };
	int err = 0;

	if (ix->n_systems != src->n_systems)
		return -EINVAL; /* built on another model */
	for (size_t i = 0; !err && i < n; i++)
		err = systems[i] < src->n_systems && src->systems[systems[i]].collected
			      ? copy_system(&c, systems[i], source)
			      : -EINVAL;
	return err;
}
