// SPDX-License-Identifier: MIT
/*
 * The RoCE part of a snapshot: the model (arrays that refer to each other
 * by index, strings in an arena), its names, appenders and lookups. The
 * 802.1Qaz codec is roce_dcbx.c; resolution and roles roce_resolve.c;
 * merging views roce_merge.c. No I/O here.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "fabsweep/names.h"
#include "fabsweep/counter.h"
#include "fabsweep/roce.h"
#include "fabsweep/roce_delta.h"
#include "fabsweep/snapshot.h"
#include "roce_priv.h"

void fab_lldp_caps_format(unsigned caps, char *buf, size_t cap)
{
	static const char *const names[] = { "other", "repeater", "bridge", "wlan",
					     "router", "telephone", "docsis", "station" };
	size_t off = 0;

	if (cap)
		buf[0] = '\0';
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(caps & (1u << i)) || off >= cap)
			continue;
		int k = snprintf(buf + off, cap - off, "%s%s", off ? "," : "", names[i]);
		if (k > 0)
			off += (size_t)k;
	}
}

static const char *const dcb_statuses[] = {
	[FAB_DCB_NOT_QUERIED] = NULL,
	[FAB_DCB_OK] = "ok",
	[FAB_DCB_UNSUPPORTED] = "unsupported",
	[FAB_DCB_FAILED] = "error",
};
static_assert(ARRAY_SIZE(dcb_statuses) == FAB_DCB__COUNT, "dcb_statuses");

const char *fab_dcb_status_name(unsigned st)
{
	return st < FAB_DCB__COUNT ? dcb_statuses[st] : NULL;
}

int fab_dcb_status_parse(const char *s)
{
	for (unsigned i = 1; s && i < FAB_DCB__COUNT; i++)
		if (!strcmp(s, dcb_statuses[i]))
			return (int)i;
	return -1;
}

static const char *const trusts[] = {
	[FAB_TRUST_UNKNOWN] = NULL,
	[FAB_TRUST_PCP] = "pcp",
	[FAB_TRUST_DSCP] = "dscp",
};
static_assert(ARRAY_SIZE(trusts) == FAB_TRUST__COUNT, "trusts");

const char *fab_trust_name(unsigned t)
{
	return t < FAB_TRUST__COUNT ? trusts[t] : NULL;
}

static const char *const ethtool_statuses[] = {
	[FAB_ETHTOOL_NOT_QUERIED] = NULL,
	[FAB_ETHTOOL_OK] = "ok",
	[FAB_ETHTOOL_UNSUPPORTED] = "unsupported",
	[FAB_ETHTOOL_NONE] = "none",
	[FAB_ETHTOOL_REFUSED] = "refused",
	[FAB_ETHTOOL_ERROR] = "error",
};
static_assert(ARRAY_SIZE(ethtool_statuses) == FAB_ETHTOOL__COUNT, "ethtool_statuses");

const char *fab_ethtool_status_name(unsigned st)
{
	return st < FAB_ETHTOOL__COUNT ? ethtool_statuses[st] : NULL;
}

int fab_ethtool_status_parse(const char *s)
{
	for (unsigned i = 1; s && i < FAB_ETHTOOL__COUNT; i++)
		if (!strcmp(s, ethtool_statuses[i]))
			return (int)i;
	return -1;
}

static const char *const ctr_kinds[] = {
	[FAB_RDMA_CTR_PORT] = "port",
	[FAB_RDMA_CTR_HW] = "hw",
	[FAB_RDMA_CTR_EXT] = "ext",
};
static_assert(ARRAY_SIZE(ctr_kinds) == FAB_RDMA_CTR__COUNT, "ctr_kinds");

static const char *const merge_statuses[] = {
	[FAB_MERGE_MERGED] = "merged",
	[FAB_MERGE_UNCHANGED] = "unchanged",
	[FAB_MERGE_FAILED] = "failed",
};
static_assert(ARRAY_SIZE(merge_statuses) == FAB_MERGE__COUNT, "merge_statuses");

const char *fab_merge_status_name(unsigned st)
{
	return st < FAB_MERGE__COUNT ? merge_statuses[st] : NULL;
}

int fab_merge_status_parse(const char *s)
{
	for (unsigned i = 0; s && i < FAB_MERGE__COUNT; i++)
		if (!strcmp(s, merge_statuses[i]))
			return (int)i;
	return -1;
}

const char *fab_rdma_ctr_kind_name(unsigned kind)
{
	return kind < FAB_RDMA_CTR__COUNT ? ctr_kinds[kind] : NULL;
}

int fab_rdma_ctr_kind_parse(const char *s)
{
	for (unsigned i = 0; s && i < FAB_RDMA_CTR__COUNT; i++)
		if (!strcmp(s, ctr_kinds[i]))
			return (int)i;
	return -1;
}

/* ---- the model ---------------------------------------------------------- */

struct fab_roce *fab_roce_new(void)
{
	struct fab_roce *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (!(r->arena = fab_arena_new())) {
		free(r);
		return NULL;
	}
	return r;
}

static void roce_free_arrays(struct fab_roce *r)
{
	free(r->systems);
	free(r->eth_ports);
	free(r->neighbors);
	free(r->links);
	free(r->devices);
	free(r->rdma_ports);
	free(r->counters);
	free(r->apps);
	free(r->tlvs);
	free(r->inputs);
	free(r->nic_counters);
	fab_modules_clear(&r->modules);
	fab_arena_free(r->arena);
	fab_roce_names_free(r->names);
	fab_roce_votes_free(r->outside);
	fab_roce_delta_free(r->delta);
}

void fab_roce_free(struct fab_roce *r)
{
	if (!r)
		return;
	roce_free_arrays(r);
	free(r);
}

struct fab_roce *fab_snapshot_roce(struct fab_snapshot *snap)
{
	if (!snap->roce)
		snap->roce = fab_roce_new();
	return snap->roce;
}

/* Makes room for more elements; 0 or -ENOMEM. */
#define RESERVE(r, name, n, cap, more) \
	fab_array_reserve((void **)&(r)->name, (r)->n, &(r)->cap, sizeof(*(r)->name), more)

/* Grows an array by one zeroed element. */
#define GROW(r, name, n, cap) \
	(RESERVE(r, name, n, cap, 1) ? NULL \
	 : memset(&(r)->name[(r)->n++], 0, sizeof(*(r)->name)))

struct fab_roce_system *fab_roce_add_system(struct fab_roce *r)
{
	return GROW(r, systems, n_systems, cap_systems);
}

struct fab_eth_port *fab_roce_add_eth_port(struct fab_roce *r, uint32_t system_idx)
{
	struct fab_eth_port *p = GROW(r, eth_ports, n_eth_ports, cap_eth_ports);

	if (p) {
		p->system_idx = system_idx;
		p->speed_mbps = -1;
		p->dcbx_mode = -1;
		p->rdma_port_idx = FAB_NONE; /* adv and dcb: zeroed, nothing known */
	}
	return p;
}

struct fab_lldp_neighbor *fab_roce_add_neighbor(struct fab_roce *r, uint32_t port_idx)
{
	struct fab_lldp_neighbor *n = GROW(r, neighbors, n_neighbors, cap_neighbors);

	if (n) {
		n->port_idx = port_idx;
		n->remote_system_idx = FAB_NONE;
		n->remote_port_idx = FAB_NONE;
	}
	return n;
}

struct fab_eth_link *fab_roce_add_link(struct fab_roce *r)
{
	return GROW(r, links, n_links, cap_links);
}

struct fab_rdma_device *fab_roce_add_device(struct fab_roce *r, uint32_t system_idx)
{
	struct fab_rdma_device *d = GROW(r, devices, n_devices, cap_devices);

	if (d) {
		d->system_idx = system_idx;
		d->port_first = (uint32_t)r->n_rdma_ports;
	}
	return d;
}

struct fab_rdma_port *fab_roce_add_rdma_port(struct fab_roce *r, uint32_t device_idx)
{
	struct fab_rdma_port *p;

	assert(device_idx < r->n_devices);
	if (!(p = GROW(r, rdma_ports, n_rdma_ports, cap_rdma_ports)))
		return NULL;
	struct fab_rdma_device *d = &r->devices[device_idx];
	if (!d->port_count)
		d->port_first = (uint32_t)(r->n_rdma_ports - 1);
	d->port_count++;
	p->device_idx = device_idx;
	p->eth_port_idx = FAB_NONE;
	p->ctr_first = (uint32_t)r->n_counters;
	return p;
}

int fab_roce_add_counters(struct fab_roce *r, uint32_t port_idx, uint32_t n,
			  const char *const *names, const uint64_t *values)
{
	assert(port_idx < r->n_rdma_ports);
	if (!n)
		return 0;
	if (RESERVE(r, counters, n_counters, cap_counters, n))
		return -ENOMEM;
	struct fab_rdma_port *p = &r->rdma_ports[port_idx];
	if (!p->ctr_count)
		p->ctr_first = (uint32_t)r->n_counters;
	for (uint32_t k = 0; k < n; k++) {
		if (!names[k])
			return -ENOMEM;
		r->counters[r->n_counters + k] = (struct fab_rdma_counter){ .name = names[k],
									     .value = values[k] };
	}
	r->n_counters += n;
	p->ctr_count += n;
	return 0;
}

const char *fab_roce_counter_name(struct fab_roce *r, unsigned kind, const char *name)
{
	/* interned as kind + 1 (never NUL) and the name; the name is the rest */
	size_t n = strlen(name ? name : "?");
	char small[128], *key = n + 2 <= sizeof(small) ? small : malloc(n + 2);
	const char *s;

	if (!key)
		return NULL;
	key[0] = (char)(kind < FAB_RDMA_CTR__COUNT ? kind + 1 : 1);
	memcpy(key + 1, name ? name : "?", n + 1);
	s = fab_roce_intern(r, key);
	if (key != small)
		free(key);
	return s ? s + 1 : NULL;
}

int fab_roce_add_counter(struct fab_roce *r, uint32_t port_idx, unsigned kind,
			 const char *name, uint64_t value)
{
	const char *n = fab_roce_counter_name(r, kind, name);

	return fab_roce_add_counters(r, port_idx, 1, &n, &value);
}

int fab_roce_add_nic_counter(struct fab_roce *r, uint32_t port_idx, unsigned ctr, int prio,
			     unsigned sample, uint64_t value, int64_t at_ms, const char *source)
{
	struct fab_nic_counter *c;
	const char *src = fab_roce_intern(r, source); /* a driver's few names, every port */

	assert(port_idx < r->n_eth_ports);
	if ((source && !src) || !(c = GROW(r, nic_counters, n_nic_counters, cap_nic_counters)))
		return -ENOMEM;
	struct fab_eth_port *p = &r->eth_ports[port_idx];
	if (!p->nic_count)
		p->nic_first = (uint32_t)(r->n_nic_counters - 1);
	p->nic_count++;
	c->port_idx = port_idx;
	c->ctr = (uint8_t)ctr;
	c->prio = (int8_t)prio;
	c->sample = (uint8_t)sample;
	c->value = value;
	c->at_ms = at_ms;
	c->source = src;
	return 0;
}

int fab_roce_add_nic_counters(struct fab_roce *r, uint32_t port_idx, unsigned sample, int64_t at_ms,
			      size_t n, const struct fab_nic_counter *names, const uint64_t *values)
{
	size_t k = 0;

	assert(port_idx < r->n_eth_ports);
	if (RESERVE(r, nic_counters, n_nic_counters, cap_nic_counters, n))
		return -ENOMEM;
	struct fab_eth_port *p = &r->eth_ports[port_idx];
	for (size_t i = 0; i < n; i++) {
		if (names[i].ctr >= FAB_NIC__COUNT)
			continue; /* a counter this version does not know */
		struct fab_nic_counter *c = &r->nic_counters[r->n_nic_counters + k++];
		*c = names[i];
		c->port_idx = port_idx;
		c->sample = (uint8_t)sample;
		c->value = values[i];
		c->at_ms = at_ms;
	}
	if (k && !p->nic_count)
		p->nic_first = (uint32_t)r->n_nic_counters;
	p->nic_count += (uint32_t)k;
	r->n_nic_counters += k;
	return 0;
}

int fab_roce_reserve_nic_counters(struct fab_roce *r, size_t more)
{
	return fab_array_reserve((void **)&r->nic_counters, r->n_nic_counters, &r->cap_nic_counters,
				 sizeof(*r->nic_counters), more);
}

int fab_roce_group_nic_counters(struct fab_roce *r)
{
	size_t n = r->n_nic_counters;
	struct fab_nic_counter *out = malloc((n + 1) * sizeof(*out));
	uint32_t *start = calloc(r->n_eth_ports + 1, sizeof(*start));

	if (!out || !start) {
		free(out);
		free(start);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) /* a counting sort: stable, linear */
		start[r->nic_counters[i].port_idx + 1]++;
	for (size_t p = 0; p < r->n_eth_ports; p++) {
		r->eth_ports[p].nic_first = start[p];
		r->eth_ports[p].nic_count = start[p + 1];
		start[p + 1] += start[p];
	}
	for (size_t i = 0; i < n; i++)
		out[start[r->nic_counters[i].port_idx]++] = r->nic_counters[i];
	free(r->nic_counters);
	r->nic_counters = out;
	r->cap_nic_counters = n + 1;
	free(start);
	return 0;
}

int fab_roce_add_apps(struct fab_roce *r, const struct fab_app_entry *e,
		      size_t n, uint32_t *out_first)
{
	if (RESERVE(r, apps, n_apps, cap_apps, n))
		return -ENOMEM;
	*out_first = (uint32_t)r->n_apps;
	if (n)
		memcpy(&r->apps[r->n_apps], e, n * sizeof(*e));
	r->n_apps += n;
	return 0;
}

int fab_roce_add_tlv(struct fab_roce *r, uint32_t oui, unsigned subtype,
		     const uint8_t *info, size_t len)
{
	struct fab_lldp_tlv *t;
	uint8_t *copy = NULL;

	if (len > UINT16_MAX)
		return -EINVAL;
	if (len && !(copy = fab_arena_alloc(r->arena, len)))
		return -ENOMEM;
	if (len)
		memcpy(copy, info, len);
	if (!(t = GROW(r, tlvs, n_tlvs, cap_tlvs)))
		return -ENOMEM;
	t->oui = oui;
	t->subtype = (uint8_t)subtype;
	t->len = (uint16_t)len;
	t->info = copy;
	return 0;
}

int fab_roce_add_input(struct fab_roce *r, const char *file, int64_t mtime_ns, int64_t size,
		       unsigned status)
{
	struct fab_roce_input *in;
	const char *f = fab_roce_strdup(r, file ? file : "?");

	if (!f || !(in = GROW(r, inputs, n_inputs, cap_inputs)))
		return -ENOMEM;
	*in = (struct fab_roce_input){ .file = f, .mtime_ns = mtime_ns, .size = size,
				       .status = (uint8_t)status };
	return 0;
}

const char *fab_roce_strdup(struct fab_roce *r, const char *s)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	char *p = fab_arena_alloc(r->arena, len + 1);
	if (p)
		memcpy(p, s, len + 1);
	return p;
}

const char *fab_roce_strdup_safe(struct fab_roce *r, const char *s)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	/* the sanitizer writes at most 4 bytes per input byte */
	char *p = fab_arena_alloc(r->arena, len * 4 + 1);
	if (p)
		fab_text_sanitize((const uint8_t *)s, len, p, len * 4 + 1);
	return p;
}

const struct fab_pfc *fab_eth_port_pfc(const struct fab_eth_port *p)
{
	return p->dcb_status == FAB_DCB_OK && p->dcb.pfc.valid ? &p->dcb.pfc : &p->adv.pfc;
}

enum fab_trust fab_eth_port_trust(const struct fab_roce *r, const struct fab_eth_port *p)
{
	const struct fab_dcbx *d = &p->dcb;

	if (p->dcb_status != FAB_DCB_OK || !d->app_valid || d->app_first > r->n_apps ||
	    d->app_count > r->n_apps - d->app_first)
		return FAB_TRUST_UNKNOWN;
	for (uint32_t k = 0; k < d->app_count; k++)
		if (r->apps[d->app_first + k].selector == FAB_APP_SEL_DSCP)
			return FAB_TRUST_DSCP;
	return FAB_TRUST_PCP;
}

bool fab_roce_same_host(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	return !strcmp(a, b) || (la == lb && !strncmp(a, b, la));
}

uint32_t fab_roce_find_system(const struct fab_roce *r, const char *name)
{
	for (size_t i = 0; r && name && i < r->n_systems; i++)
		if (r->systems[i].name && !strcmp(r->systems[i].name, name))
			return (uint32_t)i;
	return FAB_NONE;
}

uint32_t fab_roce_find_eth_port(const struct fab_roce *r, uint32_t system_idx,
				const char *ifname)
{
	for (size_t i = 0; r && ifname && i < r->n_eth_ports; i++)
		if (r->eth_ports[i].system_idx == system_idx &&
		    r->eth_ports[i].ifname && !strcmp(r->eth_ports[i].ifname, ifname))
			return (uint32_t)i;
	return FAB_NONE;
}

/* Whether a RoCE port of system sys has netdev ifname. */
static bool roce_netdev(const struct fab_roce *r, uint32_t sys, const char *ifname)
{
	for (size_t d = 0; ifname && d < r->n_devices; d++) {
		const struct fab_rdma_device *x = &r->devices[d];

		if (x->system_idx != sys)
			continue;
		for (uint32_t k = 0; k < x->port_count && x->port_first + k < r->n_rdma_ports; k++) {
			const struct fab_rdma_port *p = &r->rdma_ports[x->port_first + k];
			if (p->netdev && !strcmp(p->netdev, ifname) &&
			    (!p->link_layer || !strcasecmp(p->link_layer, "Ethernet")))
				return true;
		}
	}
	return false;
}

bool fab_roce_is_roce_iface(const struct fab_roce *r, uint32_t port)
{
	const struct fab_eth_port *p = port < r->n_eth_ports ? &r->eth_ports[port] : NULL;

	return p && (roce_netdev(r, p->system_idx, p->ifname) || roce_netdev(r, p->system_idx, p->master));
}

