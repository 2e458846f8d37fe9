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
	uint32_t *port_map; /* src eth port -> dst, FAB_NONE */
	uint32_t *mod_of_port; /* src eth port -> its module in src, FAB_NONE; NULL: none */
};

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

/* The module of src port sp (if any) for dst port dp. */
static int copy_module(struct copier *c, uint32_t sp, uint32_t dp)
{
	const struct fab_modules *from = &c->src->modules;
	uint32_t mi = c->mod_of_port ? c->mod_of_port[sp] : FAB_NONE;

	if (mi == FAB_NONE)
		return 0;
	const struct fab_module *m = &from->mods[mi];
	const struct fab_module_lane *l = fab_module_lanes(from, m);
	struct fab_module *n = fab_modules_add(&c->dst->modules, dp, l ? m->n_lanes : 0);
	if (!n)
		return -ENOMEM;
	uint32_t lf = n->lane_first;
	*n = *m;
	n->port_idx = dp;
	n->lane_first = lf;
	n->n_lanes = l ? m->n_lanes : 0;
	n->type = cp(c->dst, m->type);
	n->vendor = cp(c->dst, m->vendor);
	n->part_number = cp(c->dst, m->part_number);
	n->serial = cp(c->dst, m->serial);
	n->revision = cp(c->dst, m->revision);
	n->date_code = cp(c->dst, m->date_code);
	n->media = cp(c->dst, m->media);
	n->note = cp(c->dst, m->note);
	if (l)
		memcpy(&c->dst->modules.lanes[lf], l, m->n_lanes * sizeof(*l));
	return 0;
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

	for (size_t i = 0; !err && i < src->n_eth_ports; i++) {
		const struct fab_eth_port *p = &src->eth_ports[i];
		struct fab_eth_port *q;

		if (p->system_idx != si || (p->flags & FAB_ETH_F_STUB))
			continue;
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
		q->driver = cp(dst, p->driver);
		q->nic_first = q->nic_count = 0;
		for (uint32_t k = 0; !err && k < p->nic_count && p->nic_first + k < src->n_nic_counters; k++) {
			const struct fab_nic_counter *t = &src->nic_counters[p->nic_first + k];
			err = fab_roce_add_nic_counter(dst, qi, t->ctr, t->prio, t->sample, t->value,
						       t->at_ms, t->source);
		}
		if (err || (err = copy_module(c, (uint32_t)i, qi)))
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
		c->port_map[i] = qi;
	}
	for (size_t i = 0; !err && i < src->n_neighbors; i++) {
		const struct fab_lldp_neighbor *n = &src->neighbors[i];
		struct fab_lldp_neighbor *m;

		if (n->port_idx >= src->n_eth_ports || c->port_map[n->port_idx] == FAB_NONE ||
		    src->eth_ports[n->port_idx].system_idx != si)
			continue;
		if (!(m = fab_roce_add_neighbor(dst, c->port_map[n->port_idx])))
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
	for (size_t i = 0; !err && i < src->n_devices; i++) {
		const struct fab_rdma_device *v = &src->devices[i];
		struct fab_rdma_device *w;

		if (v->system_idx != si)
			continue;
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
	size_t dups = 0;
	int err = 0;

	c.port_map = malloc((src->n_eth_ports + 1) * sizeof(*c.port_map));
	if (!c.port_map)
		return -ENOMEM;
	for (size_t i = 0; i < src->n_eth_ports; i++)
		c.port_map[i] = FAB_NONE;
	if (src->modules.n) {
		if (!(c.mod_of_port = malloc((src->n_eth_ports + 1) * sizeof(*c.mod_of_port)))) {
			free(c.port_map);
			return -ENOMEM;
		}
		for (size_t i = 0; i < src->n_eth_ports; i++)
			c.mod_of_port[i] = FAB_NONE;
		for (size_t i = 0; i < src->modules.n; i++)
			if (src->modules.mods[i].port_idx < src->n_eth_ports)
				c.mod_of_port[src->modules.mods[i].port_idx] = (uint32_t)i;
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
	free(c.port_map);
	free(c.mod_of_port);
	if (out_dups)
		*out_dups = dups;
	return err;
}
