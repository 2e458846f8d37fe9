// SPDX-License-Identifier: MIT
/*
 * Merging views of the RoCE model (`fabsweep merge`): the collected
 * systems of one model copied into another, the newest view of a system
 * kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "roce_priv.h"

/* ---- merge ---------------------------------------------------------------- */

struct copier {
	struct fab_roce *dst;
	const struct fab_roce *src;
	const struct fab_roce_sysindex *ix;
	uint32_t *mod_of_port; /* src eth port -> its module in src, FAB_NONE; NULL: none */
};

/* ---- where each system's elements are ------------------------------------ */

/* Per system, its elements in order (CSR: the k-th system's are
 * list[off[k] .. off[k+1])). */
struct fab_roce_sysindex {
	size_t n_systems;
	uint32_t *port_off, *ports; /* its own eth ports (not stubs) */
	uint32_t *nb_off, *nbs;     /* the neighbour records heard on them */
	uint32_t *dev_off, *devs;   /* its RDMA devices */
	uint32_t *rank;             /* per eth port: its place among its system's own ports */
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
	free(ix);
}

/* An element's system, FAB_NONE when it is left out. */
typedef uint32_t (*owner_fn)(const struct fab_roce *r, size_t i);

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

/* Counting sort of n elements by owner into *off and *list. */
static int csr(const struct fab_roce *r, size_t n, owner_fn owner, uint32_t **off,
	       uint32_t **list)
{
	size_t ns = r->n_systems;
	uint32_t *o = calloc(ns + 2, sizeof(*o)), *l = malloc((n + 1) * sizeof(*l));

	if (!o || !l) {
		free(o);
		free(l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = owner(r, i);
		if (s < ns)
			o[s + 2]++;
	}
	for (size_t k = 0; k < ns; k++)
		o[k + 2] += o[k + 1];
	for (size_t i = 0; i < n; i++) {
		uint32_t s = owner(r, i);
		if (s < ns)
			l[o[s + 1]++] = (uint32_t)i;
	}
	*off = o; /* the fill moved each start one place down: o[k] .. o[k + 1] */
	*list = l;
	return 0;
}

int fab_roce_sysindex_build(const struct fab_roce *r, struct fab_roce_sysindex **out)
{
	struct fab_roce_sysindex *ix = calloc(1, sizeof(*ix));
	int err;

	if (!ix)
		return -ENOMEM;
	ix->n_systems = r->n_systems;
	if ((err = csr(r, r->n_eth_ports, port_owner, &ix->port_off, &ix->ports)) ||
	    (err = csr(r, r->n_neighbors, nb_owner, &ix->nb_off, &ix->nbs)) ||
	    (err = csr(r, r->n_devices, dev_owner, &ix->dev_off, &ix->devs)) ||
	    !(ix->rank = malloc((r->n_eth_ports + 1) * sizeof(*ix->rank)))) {
		fab_roce_sysindex_free(ix);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_eth_ports; i++)
		ix->rank[i] = FAB_NONE;
	for (size_t s = 0; s < r->n_systems; s++)
		for (uint32_t k = ix->port_off[s]; k < ix->port_off[s + 1]; k++)
			ix->rank[ix->ports[k]] = k - ix->port_off[s];
	*out = ix;
	return 0;
}

static const char *cp(struct fab_roce *dst, const char *s)
{
	return s ? fab_roce_strdup(dst, s) : NULL;
}

/* Copies a TLV range; *first gets the new start. */
static int copy_tlvs(struct copier *c, uint32_t first, uint32_t count, uint32_t *out)
{
	*out = (uint32_t)c->dst->n_tlvs;
	for (uint32_t i = first; i < first + count && i < c->src->n_tlvs; i++) {
		const struct fab_lldp_tlv *t = &c->src->tlvs[i];
		int err = fab_roce_add_tlv(c->dst, t->oui, t->subtype, t->info, t->len);
		if (err)
			return err;
	}
	return 0;
}

static int copy_dcbx(struct copier *c, const struct fab_dcbx *in, struct fab_dcbx *out)
{
	*out = *in;
	if (!in->app_count)
		return 0;
	if (in->app_first + in->app_count > c->src->n_apps)
		return -EINVAL;
	return fab_roce_add_apps(c->dst, &c->src->apps[in->app_first], in->app_count,
				 &out->app_first);
}

/* Where each src eth port's module is (none: c->mod_of_port stays NULL). */
static int map_modules(struct copier *c)
{
	const struct fab_roce *src = c->src;

	if (!src->modules.n)
		return 0;
	if (!(c->mod_of_port = malloc((src->n_eth_ports + 1) * sizeof(*c->mod_of_port))))
		return -ENOMEM;
	for (size_t i = 0; i < src->n_eth_ports; i++)
		c->mod_of_port[i] = FAB_NONE;
	for (size_t i = 0; i < src->modules.n; i++)
		if (src->modules.mods[i].port_idx < src->n_eth_ports)
			c->mod_of_port[src->modules.mods[i].port_idx] = (uint32_t)i;
	return 0;
}

/* Module mi of src for dst port dp. */
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
	n->type = cp(dst, m->type);
	n->vendor = cp(dst, m->vendor);
	n->part_number = cp(dst, m->part_number);
	n->serial = cp(dst, m->serial);
	n->revision = cp(dst, m->revision);
	n->date_code = cp(dst, m->date_code);
	n->media = cp(dst, m->media);
	n->note = cp(dst, m->note);
	if (l)
		memcpy(&dst->modules.lanes[lf], l, m->n_lanes * sizeof(*l));
	return 0;
}

/* The module of src port sp (if any) for dst port dp. */
static int copy_module(struct copier *c, uint32_t sp, uint32_t dp)
{
	uint32_t mi = c->mod_of_port ? c->mod_of_port[sp] : FAB_NONE;

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

	c->dst->eth_ports[qi].driver = cp(c->dst, p->driver);
	c->dst->eth_ports[qi].nic_first = c->dst->eth_ports[qi].nic_count = 0;
	for (uint32_t k = 0; !err && k < p->nic_count && p->nic_first + k < src->n_nic_counters; k++) {
		const struct fab_nic_counter *t = &src->nic_counters[p->nic_first + k];
		err = fab_roce_add_nic_counter(c->dst, qi, t->ctr, t->prio, t->sample, t->value, t->at_ms,
					       t->source);
	}
	return err ? err : copy_module(c, sp, qi);
}

static int copy_system(struct copier *c, uint32_t si, const char *source)
{
	struct fab_roce *dst = c->dst;
	const struct fab_roce *src = c->src;
	const struct fab_roce_system *s = &src->systems[si];
	struct fab_roce_system *d = fab_roce_add_system(dst);
	uint32_t di = (uint32_t)dst->n_systems - 1;
	int err = 0;

	if (!d)
		return -ENOMEM;
	*d = *s;
	d->name = cp(dst, s->name);
	d->chassis_id = cp(dst, s->chassis_id);
	d->chassis_id_subtype = cp(dst, s->chassis_id_subtype);
	d->description = cp(dst, s->description);
	d->mgmt_address = cp(dst, s->mgmt_address);
	d->hostname = cp(dst, s->hostname);
	d->source = cp(dst, source ? source : s->source);

	const struct fab_roce_sysindex *ix = c->ix;
	uint32_t port_base = (uint32_t)dst->n_eth_ports;

	for (uint32_t k = ix->port_off[si]; !err && k < ix->port_off[si + 1]; k++) {
		const struct fab_eth_port *p = &src->eth_ports[ix->ports[k]];
		struct fab_eth_port *q;

		if (!(q = fab_roce_add_eth_port(dst, di)))
			return -ENOMEM;
		uint32_t qi = (uint32_t)dst->n_eth_ports - 1;
		*q = *p;
		q->system_idx = di;
		q->rdma_port_idx = FAB_NONE;
		q->ifname = cp(dst, p->ifname);
		q->mac = cp(dst, p->mac);
		q->state = cp(dst, p->state);
		q->port_id = cp(dst, p->port_id);
		q->port_id_subtype = cp(dst, p->port_id_subtype);
		q->port_descr = cp(dst, p->port_descr);
		q->master = cp(dst, p->master);
		if ((err = copy_phys(c, ix->ports[k], qi)))
			break;
		uint32_t tf;
		struct fab_dcbx adv, dcb;
		if ((err = copy_tlvs(c, p->tlv_first, p->tlv_count, &tf)) ||
		    (err = copy_dcbx(c, &p->adv, &adv)) || (err = copy_dcbx(c, &p->dcb, &dcb)))
			break;
		q = &dst->eth_ports[qi];
		q->tlv_first = tf;
		q->adv = adv;
		q->dcb = dcb;
	}
	for (uint32_t k = ix->nb_off[si]; !err && k < ix->nb_off[si + 1]; k++) {
		const struct fab_lldp_neighbor *n = &src->neighbors[ix->nbs[k]];
		struct fab_lldp_neighbor *m;

		if (!(m = fab_roce_add_neighbor(dst, port_base + ix->rank[n->port_idx])))
			return -ENOMEM;
		uint32_t mi = (uint32_t)dst->n_neighbors - 1;
		uint32_t pi = m->port_idx;
		*m = *n;
		m->port_idx = pi;
		m->remote_system_idx = m->remote_port_idx = FAB_NONE;
		m->chassis_id = cp(dst, n->chassis_id);
		m->chassis_id_subtype = cp(dst, n->chassis_id_subtype);
		m->system_name = cp(dst, n->system_name);
		m->system_descr = cp(dst, n->system_descr);
		m->mgmt_address = cp(dst, n->mgmt_address);
		m->port_id = cp(dst, n->port_id);
		m->port_id_subtype = cp(dst, n->port_id_subtype);
		m->port_descr = cp(dst, n->port_descr);
		uint32_t tf;
		struct fab_dcbx dx;
		if ((err = copy_tlvs(c, n->tlv_first, n->tlv_count, &tf)) ||
		    (err = copy_dcbx(c, &n->dcbx, &dx)))
			break;
		m = &dst->neighbors[mi];
		m->tlv_first = tf;
		m->dcbx = dx;
	}
	for (uint32_t x = ix->dev_off[si]; !err && x < ix->dev_off[si + 1]; x++) {
		const struct fab_rdma_device *v = &src->devices[ix->devs[x]];
		struct fab_rdma_device *w;

		if (!(w = fab_roce_add_device(dst, di)))
			return -ENOMEM;
		uint32_t wi = (uint32_t)dst->n_devices - 1;
		*w = *v;
		w->system_idx = di;
		w->port_count = 0;
		w->port_first = (uint32_t)dst->n_rdma_ports;
		w->name = cp(dst, v->name);
		w->node_desc = cp(dst, v->node_desc);
		w->fw_ver = cp(dst, v->fw_ver);
		w->hca_type = cp(dst, v->hca_type);
		w->board_id = cp(dst, v->board_id);
		w->pci_address = cp(dst, v->pci_address);
		for (uint32_t k = 0; !err && k < v->port_count; k++) {
			const struct fab_rdma_port *p = &src->rdma_ports[v->port_first + k];
			struct fab_rdma_port *q = fab_roce_add_rdma_port(dst, wi);
			if (!q)
				return -ENOMEM;
			uint32_t qi = (uint32_t)dst->n_rdma_ports - 1;
			uint32_t cf = q->ctr_first;
			*q = *p;
			q->device_idx = wi;
			q->eth_port_idx = FAB_NONE;
			q->ctr_first = cf;
			q->ctr_count = 0;
			q->rate = cp(dst, p->rate);
			q->link_layer = cp(dst, p->link_layer);
			q->netdev = cp(dst, p->netdev);
			for (uint32_t j = 0; !err && j < p->ctr_count; j++) {
				const struct fab_rdma_counter *t = &src->counters[p->ctr_first + j];
				err = fab_roce_add_counter(dst, qi, t->kind, t->name, t->value);
			}
		}
	}
	return err;
}

/*
 * Collected systems of a model by name, kept across fab_roce_merge() calls
 * (merge is called once per file: a fresh index per call, or a scan, would
 * make merging n files O(n^2)). Systems are only appended between calls;
 * the arrays are rebuilt only by compact(), which starts a new model.
 */
struct fab_roce_names {
	struct fab_roce_hidx h;
	size_t n_indexed; /* systems[0 .. n_indexed) are in h */
};

void fab_roce_names_free(struct fab_roce_names *x)
{
	if (x) {
		fab_roce_hidx_free(&x->h);
		free(x);
	}
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
	struct fab_roce_names *x = dst->names;

	if (!x && !(x = dst->names = calloc(1, sizeof(*x))))
		return -ENOMEM;
	for (; x->n_indexed < dst->n_systems; x->n_indexed++) {
		const struct fab_roce_system *s = &dst->systems[x->n_indexed];
		if (s->collected && s->name &&
		    fab_roce_hidx_put(&x->h, fab_roce_key_hash(K_SYSNAME, 0, s->name, false), (uint32_t)x->n_indexed))
			return -ENOMEM;
	}
	*out = name ? fab_roce_hidx_get(&x->h, fab_roce_key_hash(K_SYSNAME, 0, name, false), match_collected, &k)
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
	if ((err = map_modules(&c))) {
		fab_roce_sysindex_free(ix);
		return err;
	}
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
	free(c.mod_of_port);
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
	if ((err = map_modules(&c)))
		return err;
	for (size_t i = 0; !err && i < n; i++)
		err = systems[i] < src->n_systems && src->systems[systems[i]].collected
			      ? copy_system(&c, systems[i], source)
			      : -EINVAL;
	free(c.mod_of_port);
	return err;
}
