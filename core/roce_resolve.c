// SPDX-License-Identifier: MIT
/*
 * Resolution of the RoCE model: every LLDP neighbour record to a system
 * and port (stubs for what was not collected), the links with both ends,
 * RDMA ports to their netdevs, and the roles from the graph.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "roce_priv.h"

/* ---- resolution ----------------------------------------------------------- */

struct resolver {
	struct fab_roce *r;
	struct fab_roce_hidx systems; /* K_CHASSIS (subtype, id), K_SYSNAME */
	struct fab_roce_hidx ports;   /* K_PORT_ID, K_IFNAME, K_MAC per system */
	struct fab_roce_hidx links;   /* K_LINK (a, b) */
};

static bool strcaseeq(const char *a, const char *b)
{
	return a && b && !strcasecmp(a, b);
}

struct key {
	const struct fab_roce *r;
	unsigned tag;
	uint32_t num;
	const char *s, *s2;
};

static bool match_system(uint32_t v, const void *ctx)
{
	const struct key *k = ctx;
	const struct fab_roce_system *s = &k->r->systems[v];

	if (k->tag == K_CHASSIS)
		return fab_roce_streq(s->chassis_id, k->s) &&
		       (!k->s2 || !s->chassis_id_subtype || fab_roce_streq(s->chassis_id_subtype, k->s2));
	return fab_roce_streq(s->name, k->s);
}

static bool match_port(uint32_t v, const void *ctx)
{
	const struct key *k = ctx;
	const struct fab_eth_port *p = &k->r->eth_ports[v];

	if (p->system_idx != k->num)
		return false;
	switch (k->tag) {
	case K_PORT_ID:
		return fab_roce_streq(p->port_id, k->s) &&
		       (!k->s2 || !p->port_id_subtype || fab_roce_streq(p->port_id_subtype, k->s2));
	case K_IFNAME:
		return fab_roce_streq(p->ifname, k->s);
	case K_MAC:
		return strcaseeq(p->mac, k->s);
	default:
		return false;
	}
}

static uint64_t chassis_hash(const char *id)
{
	return fab_roce_key_hash(K_CHASSIS, 0, id, false);
}

static int index_system(struct resolver *x, uint32_t i)
{
	const struct fab_roce_system *s = &x->r->systems[i];
	int err = 0;

	if (s->chassis_id && *s->chassis_id)
		err = fab_roce_hidx_put(&x->systems, chassis_hash(s->chassis_id), i);
	if (!err && s->name && *s->name)
		err = fab_roce_hidx_put(&x->systems, fab_roce_key_hash(K_SYSNAME, 0, s->name, false), i);
	return err;
}

static int index_port(struct resolver *x, uint32_t i)
{
	const struct fab_eth_port *p = &x->r->eth_ports[i];
	int err = 0;

	if (p->port_id && *p->port_id)
		err = fab_roce_hidx_put(&x->ports, fab_roce_key_hash(K_PORT_ID, p->system_idx, p->port_id, false), i);
	if (!err && p->ifname && *p->ifname)
		err = fab_roce_hidx_put(&x->ports, fab_roce_key_hash(K_IFNAME, p->system_idx, p->ifname, false), i);
	if (!err && p->mac && *p->mac)
		err = fab_roce_hidx_put(&x->ports, fab_roce_key_hash(K_MAC, p->system_idx, p->mac, true), i);
	return err;
}

static uint32_t find_port(struct resolver *x, uint32_t sys, unsigned tag,
			  const char *s, const char *s2)
{
	struct key k = { .r = x->r, .tag = tag, .num = sys, .s = s, .s2 = s2 };

	if (!s || !*s)
		return FAB_NONE;
	return fab_roce_hidx_get(&x->ports, fab_roce_key_hash(tag, sys, s, tag == K_MAC), match_port, &k);
}

/* The system a neighbour record describes: by chassis id, then by name. */
static uint32_t resolve_system(struct resolver *x, const struct fab_lldp_neighbor *n)
{
	struct key k = { .r = x->r, .tag = K_CHASSIS, .s = n->chassis_id,
			 .s2 = n->chassis_id_subtype };
	uint32_t s = FAB_NONE;

	if (n->chassis_id && *n->chassis_id)
		s = fab_roce_hidx_get(&x->systems, chassis_hash(n->chassis_id), match_system, &k);
	if (s == FAB_NONE && n->system_name && *n->system_name) {
		k.tag = K_SYSNAME;
		k.s = n->system_name;
		s = fab_roce_hidx_get(&x->systems, fab_roce_key_hash(K_SYSNAME, 0, n->system_name, false),
			     match_system, &k);
	}
	return s;
}

/* The port of system sys a neighbour record describes. */
static uint32_t resolve_port(struct resolver *x, uint32_t sys,
			     const struct fab_lldp_neighbor *n)
{
	const char *st = n->port_id_subtype;
	uint32_t p = find_port(x, sys, K_PORT_ID, n->port_id, st);

	if (p != FAB_NONE)
		return p;
	if (fab_roce_streq(st, "mac"))
		p = find_port(x, sys, K_MAC, n->port_id, NULL);
	else if (fab_roce_streq(st, "ifname") || fab_roce_streq(st, "local") || fab_roce_streq(st, "ifalias"))
		p = find_port(x, sys, K_IFNAME, n->port_id, NULL);
	if (p == FAB_NONE)
		p = find_port(x, sys, K_IFNAME, n->port_descr, NULL);
	return p;
}

static int add_stub_system(struct resolver *x, const struct fab_lldp_neighbor *n,
			   uint32_t *out)
{
	struct fab_roce *r = x->r;
	struct fab_roce_system *s = fab_roce_add_system(r);

	if (!s)
		return -ENOMEM;
	/* strings are shared with the neighbour record: same arena */
	s->name = n->system_name && *n->system_name ? n->system_name : n->chassis_id;
	s->chassis_id = n->chassis_id;
	s->chassis_id_subtype = n->chassis_id_subtype;
	s->description = n->system_descr;
	s->mgmt_address = n->mgmt_address;
	s->has_caps = n->has_caps;
	s->cap_available = n->cap_available;
	s->cap_enabled = n->cap_enabled;
	if (!s->name)
		s->name = "?";
	*out = (uint32_t)(r->n_systems - 1);
	return index_system(x, *out);
}

static int add_stub_port(struct resolver *x, uint32_t sys,
			 const struct fab_lldp_neighbor *n, uint32_t *out)
{
	struct fab_roce *r = x->r;
	struct fab_eth_port *p = fab_roce_add_eth_port(r, sys);
	const char *st = n->port_id_subtype;

	if (!p)
		return -ENOMEM;
	p->flags = FAB_ETH_F_STUB;
	if (fab_roce_streq(st, "ifname") || fab_roce_streq(st, "local"))
		p->ifname = n->port_id;
	else if (n->port_descr && *n->port_descr)
		p->ifname = n->port_descr;
	else
		p->ifname = n->port_id ? n->port_id : "?";
	if (fab_roce_streq(st, "mac"))
		p->mac = n->port_id;
	p->port_id = n->port_id;
	p->port_id_subtype = n->port_id_subtype;
	p->port_descr = n->port_descr;
	p->adv = n->dcbx; /* what it advertised, as heard */
	p->tlv_first = n->tlv_first;
	p->tlv_count = n->tlv_count;
	*out = (uint32_t)(r->n_eth_ports - 1);
	return index_port(x, *out);
}

struct link_key {
	const struct fab_roce *r;
	uint32_t a, b;
};

static bool match_link(uint32_t v, const void *ctx)
{
	const struct link_key *k = ctx;
	const struct fab_eth_link *l = &k->r->links[v];

	return (l->a == k->a && l->b == k->b) || (l->a == k->b && l->b == k->a);
}

/* Records that port `from` heard port `to`. */
static int add_link(struct resolver *x, uint32_t from, uint32_t to)
{
	struct fab_roce *r = x->r;
	struct link_key k = { r, from, to };
	uint64_t h = fab_roce_pair_hash(from, to);
	uint32_t l = fab_roce_hidx_get(&x->links, h, match_link, &k);

	if (l == FAB_NONE) {
		struct fab_eth_link *nl = fab_roce_add_link(r);
		if (!nl)
			return -ENOMEM;
		nl->a = from;
		nl->b = to;
		l = (uint32_t)(r->n_links - 1);
		if (fab_roce_hidx_put(&x->links, h, l))
			return -ENOMEM;
	}
	struct fab_eth_link *e = &r->links[l];
	e->heard |= e->a == from ? FAB_LINK_A_HEARD_B : FAB_LINK_B_HEARD_A;
	if (from == to)
		e->heard |= FAB_LINK_A_HEARD_B | FAB_LINK_B_HEARD_A;
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_port(const struct fab_roce *r, uint32_t a, uint32_t b)
{
	const struct fab_eth_port *pa = &r->eth_ports[a], *pb = &r->eth_ports[b];
	int c = cmp_str(r->systems[pa->system_idx].name, r->systems[pb->system_idx].name);

	if (!c)
		c = cmp_str(pa->ifname, pb->ifname);
	if (!c)
		c = a < b ? -1 : a > b;
	return c;
}

static const struct fab_roce *sort_roce; /* qsort has no context */

static int cmp_links(const void *x, const void *y)
{
	const struct fab_eth_link *a = x, *b = y;
	int c = cmp_port(sort_roce, a->a, b->a);

	return c ? c : cmp_port(sort_roce, a->b, b->b);
}

static void sort_links(struct fab_roce *r)
{
	for (size_t i = 0; i < r->n_links; i++) {
		struct fab_eth_link *l = &r->links[i];
		if (cmp_port(r, l->a, l->b) > 0) {
			uint32_t t = l->a;
			l->a = l->b;
			l->b = t;
			l->heard = (uint8_t)((l->heard & FAB_LINK_A_HEARD_B ? FAB_LINK_B_HEARD_A : 0) |
					     (l->heard & FAB_LINK_B_HEARD_A ? FAB_LINK_A_HEARD_B : 0));
		}
	}
	if (!r->n_links)
		return;
	sort_roce = r;
	qsort(r->links, r->n_links, sizeof(*r->links), cmp_links);
	sort_roce = NULL;
}

static uint32_t port_owner(const struct fab_roce *r, size_t i)
{
	return r->eth_ports[i].system_idx;
}

int fab_roce_map_netdevs(struct fab_roce *r, size_t from)
{
	uint32_t *off, *list;

	if (fab_roce_csr(r, r->n_eth_ports, port_owner, &off, &list))
		return -ENOMEM;
	for (size_t i = 0; !from && i < r->n_eth_ports; i++)
		r->eth_ports[i].rdma_port_idx = FAB_NONE;
	for (size_t i = from; i < r->n_rdma_ports; i++) {
		struct fab_rdma_port *p = &r->rdma_ports[i];
		uint32_t sys = r->devices[p->device_idx].system_idx;

		p->eth_port_idx = FAB_NONE;
		if (!p->netdev || !*p->netdev || sys >= r->n_systems)
			continue;
		for (uint32_t k = off[sys]; k < off[sys + 1]; k++) {
			uint32_t e = list[k];
			if (fab_roce_streq(r->eth_ports[e].ifname, p->netdev)) {
				p->eth_port_idx = e;
				r->eth_ports[e].rdma_port_idx = (uint32_t)i;
				break;
			}
		}
	}
	free(off);
	free(list);
	return 0;
}

static bool has_stubs(const struct fab_roce *r)
{
	for (size_t i = 0; i < r->n_systems; i++)
		if (!r->systems[i].collected)
			return true;
	for (size_t i = 0; i < r->n_eth_ports; i++)
		if (r->eth_ports[i].flags & FAB_ETH_F_STUB)
			return true;
	return false;
}

/* Moves the counters of the kept RDMA ports (rpmap[i] != FAB_NONE) to the
 * front, in port order; in place when they are stored in port order (as every
 * builder appends them), else through a new array. */
static int compact_counters(struct fab_roce *r, const uint32_t *rpmap, size_t nrp)
{
	struct fab_rdma_counter *to = r->counters;
	size_t at = 0, last_end = 0;
	bool ordered = true;

	for (size_t i = 0; i < nrp && ordered; i++) {
		const struct fab_rdma_port *p = &r->rdma_ports[i];
		if (p->ctr_count && (p->ctr_first < last_end || p->ctr_first > r->n_counters ||
				     p->ctr_count > r->n_counters - p->ctr_first))
			ordered = false;
		else if (p->ctr_count)
			last_end = p->ctr_first + p->ctr_count;
	}
	if (!ordered && !(to = malloc((r->n_counters + 1) * sizeof(*to))))
		return -ENOMEM;
	for (size_t i = 0; i < nrp; i++) {
		struct fab_rdma_port *p = &r->rdma_ports[i];
		uint32_t n = p->ctr_count;

		if (rpmap[i] == FAB_NONE)
			continue;
		if (n > r->n_counters || p->ctr_first > r->n_counters - n)
			n = 0;
		if (n)
			memmove(&to[at], &r->counters[p->ctr_first], n * sizeof(*to));
		p->ctr_first = (uint32_t)at;
		p->ctr_count = n;
		at += n;
	}
	if (!ordered) {
		free(r->counters);
		r->counters = to;
		r->cap_counters = r->n_counters + 1;
	}
	r->n_counters = at;
	return 0;
}

/* The NIC counters and modules of the kept eth ports (pmap[i] != FAB_NONE,
 * the ports already moved to pmap[i]) renumbered and moved to the front, in
 * order; a module's lanes stay where they are. */
static int compact_phys(struct fab_roce *r, const uint32_t *pmap, size_t np)
{
	struct fab_nic_counter *to = r->nic_counters;
	size_t at = 0, last_end = 0, k = 0;
	bool ordered = true;

	for (size_t i = 0; i < r->n_eth_ports && ordered; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];
		if (p->nic_count && (p->nic_first < last_end || p->nic_first > r->n_nic_counters ||
				     p->nic_count > r->n_nic_counters - p->nic_first))
			ordered = false;
		else if (p->nic_count)
			last_end = p->nic_first + p->nic_count;
	}
	if (!ordered && !(to = malloc((r->n_nic_counters + 1) * sizeof(*to))))
		return -ENOMEM;
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		struct fab_eth_port *p = &r->eth_ports[i];
		uint32_t n = p->nic_count;

		if (n > r->n_nic_counters || p->nic_first > r->n_nic_counters - n)
			n = 0;
		if (n)
			memmove(&to[at], &r->nic_counters[p->nic_first], n * sizeof(*to));
		for (uint32_t j = 0; j < n; j++)
			to[at + j].port_idx = (uint32_t)i;
		p->nic_first = (uint32_t)at;
		p->nic_count = n;
		at += n;
	}
	if (!ordered) {
		free(r->nic_counters);
		r->nic_counters = to;
		r->cap_nic_counters = r->n_nic_counters + 1;
	}
	r->n_nic_counters = at;
	for (size_t i = 0; i < r->modules.n; i++) {
		struct fab_module m = r->modules.mods[i];
		if (m.port_idx >= np || pmap[m.port_idx] == FAB_NONE)
			continue;
		m.port_idx = pmap[m.port_idx];
		r->modules.mods[k++] = m;
	}
	r->modules.n = k;
	return 0;
}

/*
 * Keeps only collected systems and their own ports, neighbours, devices,
 * counters, NIC counters and modules, in place and in order (no copy of the
 * model: a merge that superseded a system, or a merged model resolved
 * again, costs one pass).
 * TLVs and application entries stay where they are; what only dropped
 * elements referred to is left unused.
 */
static int compact(struct fab_roce *r)
{
	size_t ns = r->n_systems, np = r->n_eth_ports, nd = r->n_devices, nrp = r->n_rdma_ports, k;
	uint32_t *smap = malloc((ns + 1) * sizeof(*smap)), *pmap = malloc((np + 1) * sizeof(*pmap));
	uint32_t *dmap = malloc((nd + 1) * sizeof(*dmap)), *rpmap = malloc((nrp + 1) * sizeof(*rpmap));
	int err = 0;

	if (!smap || !pmap || !dmap || !rpmap) {
		err = -ENOMEM;
		goto out;
	}
	k = 0;
	for (size_t i = 0; i < ns; i++) {
		smap[i] = r->systems[i].collected ? (uint32_t)k : FAB_NONE;
		if (smap[i] != FAB_NONE)
			r->systems[k++] = r->systems[i];
	}
	r->n_systems = k;
	k = 0;
	for (size_t i = 0; i < np; i++) {
		struct fab_eth_port p = r->eth_ports[i];
		pmap[i] = FAB_NONE;
		if ((p.flags & FAB_ETH_F_STUB) || p.system_idx >= ns || smap[p.system_idx] == FAB_NONE)
			continue;
		p.system_idx = smap[p.system_idx];
		p.rdma_port_idx = FAB_NONE;
		pmap[i] = (uint32_t)k;
		r->eth_ports[k++] = p;
	}
	r->n_eth_ports = k;
	if ((err = compact_phys(r, pmap, np)))
		goto out;
	k = 0;
	for (size_t i = 0; i < r->n_neighbors; i++) {
		struct fab_lldp_neighbor n = r->neighbors[i];
		if (n.port_idx >= np || pmap[n.port_idx] == FAB_NONE)
			continue;
		n.port_idx = pmap[n.port_idx];
		n.remote_system_idx = n.remote_port_idx = FAB_NONE;
		r->neighbors[k++] = n;
	}
	r->n_neighbors = k;
	k = 0;
	for (size_t i = 0; i < nd; i++) {
		const struct fab_rdma_device *d = &r->devices[i];
		dmap[i] = d->system_idx < ns && smap[d->system_idx] != FAB_NONE ? (uint32_t)k++ : FAB_NONE;
	}
	k = 0;
	for (size_t i = 0; i < nrp; i++) {
		uint32_t d = r->rdma_ports[i].device_idx;
		rpmap[i] = d < nd && dmap[d] != FAB_NONE ? (uint32_t)k++ : FAB_NONE;
	}
	if ((err = compact_counters(r, rpmap, nrp)))
		goto out;
	k = 0;
	for (size_t i = 0; i < nrp; i++) {
		struct fab_rdma_port p = r->rdma_ports[i];
		if (rpmap[i] == FAB_NONE)
			continue;
		p.device_idx = dmap[p.device_idx];
		p.eth_port_idx = FAB_NONE;
		r->rdma_ports[k++] = p;
	}
	r->n_rdma_ports = k;
	k = 0;
	for (size_t i = 0; i < nd; i++) {
		struct fab_rdma_device d = r->devices[i];
		if (dmap[i] == FAB_NONE)
			continue;
		d.system_idx = smap[d.system_idx];
		uint32_t first = FAB_NONE, count = 0;
		for (uint32_t j = 0; j < d.port_count && d.port_first + j < nrp; j++)
			if (rpmap[d.port_first + j] != FAB_NONE) {
				if (first == FAB_NONE)
					first = rpmap[d.port_first + j];
				count++;
			}
		d.port_first = first == FAB_NONE ? (uint32_t)r->n_rdma_ports : first;
		d.port_count = count;
		r->devices[k++] = d;
	}
	r->n_devices = k;
	r->n_links = 0;
	fab_roce_forget_systems(r);
out:
	free(smap);
	free(pmap);
	free(dmap);
	free(rpmap);
	return err;
}

int fab_roce_resolve(struct fab_roce *r)
{
	struct resolver x = { .r = r };
	int err = 0;

	if (has_stubs(r) && (err = compact(r)))
		return err;
	r->n_links = 0;
	/* each system's keys, each port's and each record's stub port's, a link a record */
	if (fab_roce_hidx_reserve(&x.systems, 2 * r->n_systems) ||
	    fab_roce_hidx_reserve(&x.ports, 3 * (r->n_eth_ports + r->n_neighbors)) ||
	    fab_roce_hidx_reserve(&x.links, r->n_neighbors))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < r->n_systems; i++)
		err = index_system(&x, (uint32_t)i);
	for (size_t i = 0; !err && i < r->n_eth_ports; i++)
		err = index_port(&x, (uint32_t)i);
	for (size_t i = 0; !err && i < r->n_neighbors; i++) {
		struct fab_lldp_neighbor *n = &r->neighbors[i];
		uint32_t s = resolve_system(&x, n), p = FAB_NONE;

		if (s == FAB_NONE)
			err = add_stub_system(&x, n, &s);
		if (!err && (p = resolve_port(&x, s, n)) == FAB_NONE)
			err = add_stub_port(&x, s, n, &p);
		if (err)
			break;
		n = &r->neighbors[i]; /* arrays may have moved */
		n->remote_system_idx = s;
		n->remote_port_idx = p;
		err = add_link(&x, n->port_idx, p);
	}
	if (!err) {
		sort_links(r);
		err = fab_roce_map_netdevs(r, 0);
	}
	fab_roce_hidx_free(&x.systems);
	fab_roce_hidx_free(&x.ports);
	fab_roce_hidx_free(&x.links);
	if (err)
		return err;
	fab_roce_assign_roles(r);
	return 0;
}

/* ---- roles ---------------------------------------------------------------- */

void fab_roce_assign_roles(struct fab_roce *r)
{
	size_t ns = r->n_systems;
	uint32_t *deg_off = NULL, *adj = NULL, *dist = NULL, *queue = NULL;
	bool *host = NULL;
	size_t head = 0, tail = 0;

	for (size_t i = 0; i < ns; i++)
		r->systems[i].role = FAB_ROLE_UNKNOWN;
	if (!ns)
		return;
	deg_off = calloc(ns + 1, sizeof(*deg_off));
	adj = malloc((2 * r->n_links + 1) * sizeof(*adj));
	dist = malloc(ns * sizeof(*dist));
	queue = malloc(ns * sizeof(*queue));
	host = calloc(ns, sizeof(*host));
	if (!deg_off || !adj || !dist || !queue || !host)
		goto out; /* roles stay unknown: harmless */

	/* Hosts: an RDMA device, or Station without Bridge and Router. */
	for (size_t i = 0; i < r->n_devices; i++)
		if (r->devices[i].system_idx < ns)
			host[r->devices[i].system_idx] = true;
	for (size_t i = 0; i < ns; i++) {
		const struct fab_roce_system *s = &r->systems[i];
		if (s->has_caps && (s->cap_enabled & FAB_LLDP_CAP_STATION) &&
		    !(s->cap_enabled & (FAB_LLDP_CAP_BRIDGE | FAB_LLDP_CAP_ROUTER)))
			host[i] = true;
	}

	/* Adjacency between systems (CSR), self-loops left out. */
	for (size_t i = 0; i < r->n_links; i++) {
		uint32_t a = r->eth_ports[r->links[i].a].system_idx;
		uint32_t b = r->eth_ports[r->links[i].b].system_idx;
		if (a != b) {
			deg_off[a + 1]++;
			deg_off[b + 1]++;
		}
	}
	for (size_t i = 0; i < ns; i++)
		deg_off[i + 1] += deg_off[i];
	{
		uint32_t *fill = calloc(ns, sizeof(*fill));
		if (!fill)
			goto out;
		for (size_t i = 0; i < r->n_links; i++) {
			uint32_t a = r->eth_ports[r->links[i].a].system_idx;
			uint32_t b = r->eth_ports[r->links[i].b].system_idx;
			if (a == b)
				continue;
			adj[deg_off[a] + fill[a]++] = b;
			adj[deg_off[b] + fill[b]++] = a;
		}
		free(fill);
	}

	/* Leaves: non-hosts next to a host. Then BFS over non-hosts. */
	for (size_t i = 0; i < ns; i++)
		dist[i] = UINT32_MAX;
	for (size_t i = 0; i < ns; i++) {
		if (host[i]) {
			r->systems[i].role = FAB_ROLE_HOST;
			continue;
		}
		for (uint32_t k = deg_off[i]; k < deg_off[i + 1]; k++)
			if (host[adj[k]]) {
				dist[i] = 0;
				queue[tail++] = (uint32_t)i;
				break;
			}
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		for (uint32_t k = deg_off[u]; k < deg_off[u + 1]; k++) {
			uint32_t v = adj[k];
			if (host[v] || dist[v] != UINT32_MAX)
				continue;
			dist[v] = dist[u] + 1;
			queue[tail++] = v;
		}
	}
	for (size_t i = 0; i < ns; i++) {
		if (host[i] || dist[i] == UINT32_MAX)
			continue;
		r->systems[i].role = dist[i] == 0   ? FAB_ROLE_LEAF
				     : dist[i] == 1 ? FAB_ROLE_SPINE
						    : FAB_ROLE_CORE;
	}
out:
	free(deg_off);
	free(adj);
	free(dist);
	free(queue);
	free(host);
}

