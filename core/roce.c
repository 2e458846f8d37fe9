// SPDX-License-Identifier: MIT
/*
 * The RoCE part of a snapshot: the model, the 802.1Qaz TLV decoders,
 * resolution of LLDP neighbours into links, role inference and merging of
 * several machines' views. No I/O here.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"


/* ---- 802.1Qaz decoders (pure) ----------------------------------------- */

#define ETS_INFO_LEN 21 /* flags byte, 4 bytes prio table, 8 bw, 8 tsa */
#define PFC_INFO_LEN 2

static void decode_ets_tables(const uint8_t *p, struct fab_ets *e)
{
	for (unsigned i = 0; i < 4; i++) {
		e->prio_tc[2 * i] = p[i] >> 4;
		e->prio_tc[2 * i + 1] = p[i] & 0x0f;
	}
	memcpy(e->tc_bw, p + 4, FAB_PRIOS);
	memcpy(e->tsa, p + 12, FAB_PRIOS);
}

int fab_dcbx_decode_ets_cfg(const uint8_t *info, size_t len, struct fab_ets *out)
{
	struct fab_ets e = { .valid = true };

	if (!info || len != ETS_INFO_LEN)
		return -EBADMSG;
	e.willing = info[0] >> 7 & 1;
	e.cbs = info[0] >> 6 & 1;
	e.max_tcs = info[0] & 0x07;
	if (!e.max_tcs)
		e.max_tcs = 8;
	decode_ets_tables(info + 1, &e);
	*out = e;
	return 0;
}

int fab_dcbx_decode_ets_reco(const uint8_t *info, size_t len, struct fab_ets *out)
{
	struct fab_ets e = { .valid = true };

	if (!info || len != ETS_INFO_LEN)
		return -EBADMSG;
	decode_ets_tables(info + 1, &e); /* byte 0 is reserved */
	*out = e;
	return 0;
}

int fab_dcbx_decode_pfc(const uint8_t *info, size_t len, struct fab_pfc *out)
{
	if (!info || len != PFC_INFO_LEN)
		return -EBADMSG;
	*out = (struct fab_pfc){
		.valid = true,
		.willing = info[0] >> 7 & 1,
		.mbc = info[0] >> 6 & 1,
		.cap = info[0] & 0x0f,
		.enabled = info[1],
	};
	return 0;
}

int fab_dcbx_decode_app(const uint8_t *info, size_t len,
			struct fab_app_entry *out, size_t cap, size_t *out_n)
{
	/* 1 reserved byte, then 3-byte entries: prio(7..5) sel(2..0), protocol */
	if (!info || len < 1 || (len - 1) % 3 != 0)
		return -EBADMSG;
	size_t n = (len - 1) / 3;
	for (size_t i = 0; i < n && i < cap; i++) {
		const uint8_t *e = info + 1 + 3 * i;
		out[i] = (struct fab_app_entry){
			.priority = e[0] >> 5,
			.selector = e[0] & 0x07,
			.protocol = (uint16_t)(e[1] << 8 | e[2]),
		};
	}
	*out_n = n;
	return 0;
}

/* ---- names ------------------------------------------------------------ */

static const char *const app_sels[] = {
	[FAB_APP_SEL_ETHERTYPE] = "ether", [FAB_APP_SEL_TCP] = "tcp",
	[FAB_APP_SEL_UDP] = "udp",	   [FAB_APP_SEL_PORT] = "port",
	[FAB_APP_SEL_DSCP] = "dscp",
};

size_t fab_app_format(const struct fab_app_entry *e, size_t n, char *buf,
		      size_t cap)
{
	size_t off = 0;

	if (cap)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char one[48];
		unsigned sel = e[i].selector;
		const char *name = sel < ARRAY_SIZE(app_sels) ? app_sels[sel] : NULL;
		int k;

		if (name && sel == FAB_APP_SEL_ETHERTYPE)
			k = snprintf(one, sizeof(one), "%s%s:0x%04x=%u", i ? "," : "",
				     name, e[i].protocol, e[i].priority);
		else if (name)
			k = snprintf(one, sizeof(one), "%s%s:%u=%u", i ? "," : "", name,
				     e[i].protocol, e[i].priority);
		else
			k = snprintf(one, sizeof(one), "%ssel%u:%u=%u", i ? "," : "", sel,
				     e[i].protocol, e[i].priority);
		if (k < 0)
			continue;
		if (off < cap)
			snprintf(buf + off, cap - off, "%s", one);
		off += (size_t)k;
	}
	return off;
}

int fab_app_parse(const char *s, struct fab_app_entry *out, size_t cap,
		  size_t *out_n)
{
	size_t n = 0;

	if (!s)
		return -EINVAL;
	while (*s) {
		const char *colon = strchr(s, ':');
		unsigned long sel = 0, proto, prio;
		char *end;

		if (!colon)
			return -EINVAL;
		size_t nl = (size_t)(colon - s);
		bool found = false;
		for (unsigned k = 0; k < ARRAY_SIZE(app_sels); k++)
			if (app_sels[k] && strlen(app_sels[k]) == nl &&
			    !strncmp(s, app_sels[k], nl)) {
				sel = k;
				found = true;
			}
		if (!found) {
			if (nl < 4 || strncmp(s, "sel", 3))
				return -EINVAL;
			sel = strtoul(s + 3, &end, 10);
			if (end != colon || sel > 7)
				return -EINVAL;
		}
		proto = strtoul(colon + 1, &end, 0);
		if (end == colon + 1 || *end != '=' || proto > 0xffff)
			return -EINVAL;
		s = end + 1;
		prio = strtoul(s, &end, 10);
		if (end == s || prio > 7 || (*end && (*end != ',' || !end[1])))
			return -EINVAL;
		if (n < cap)
			out[n] = (struct fab_app_entry){ .priority = (uint8_t)prio,
							 .selector = (uint8_t)sel,
							 .protocol = (uint16_t)proto };
		n++;
		s = *end ? end + 1 : end;
	}
	*out_n = n;
	return 0;
}

const char *fab_tsa_name(unsigned tsa)
{
	switch (tsa) {
	case FAB_TSA_STRICT: return "strict";
	case FAB_TSA_CBS: return "cbs";
	case FAB_TSA_ETS: return "ets";
	case FAB_TSA_VENDOR: return "vendor";
	default: return NULL;
	}
}

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

static const char *const ctr_kinds[] = {
	[FAB_RDMA_CTR_PORT] = "port",
	[FAB_RDMA_CTR_HW] = "hw",
	[FAB_RDMA_CTR_EXT] = "ext",
};
static_assert(ARRAY_SIZE(ctr_kinds) == FAB_RDMA_CTR__COUNT, "ctr_kinds");

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

struct fab_roce_names;
static void names_free(struct fab_roce_names *x);

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
	fab_arena_free(r->arena);
	names_free(r->names);
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

/* Makes room for n more elements; 0 or -ENOMEM. */
static int reserve(void **arr, size_t n, size_t *cap, size_t elem, size_t more)
{
	if (n + more <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < n + more)
		ncap *= 2;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

#define RESERVE(r, name, n, cap, more) \
	reserve((void **)&(r)->name, (r)->n, &(r)->cap, sizeof(*(r)->name), more)

/* Grows an array by one zeroed element. */
#define GROW(r, name, n, cap) \
	(RESERVE(r, name, n, cap, 1) ? NULL \
	 : memset(&(r)->name[(r)->n++], 0, sizeof(*(r)->name)))

static void dcbx_init(struct fab_dcbx *d)
{
	memset(d, 0, sizeof(*d));
}

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
		p->rdma_port_idx = FAB_NONE;
		dcbx_init(&p->adv);
		dcbx_init(&p->dcb);
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

int fab_roce_add_counter(struct fab_roce *r, uint32_t port_idx, unsigned kind,
			 const char *name, uint64_t value)
{
	struct fab_rdma_counter *c;
	const char *n = fab_roce_strdup(r, name);

	assert(port_idx < r->n_rdma_ports);
	if (!n || !(c = GROW(r, counters, n_counters, cap_counters)))
		return -ENOMEM;
	struct fab_rdma_port *p = &r->rdma_ports[port_idx];
	if (!p->ctr_count)
		p->ctr_first = (uint32_t)(r->n_counters - 1);
	p->ctr_count++;
	c->port_idx = port_idx;
	c->kind = (uint8_t)kind;
	c->name = n;
	c->value = value;
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

int fab_roce_decode_tlvs(struct fab_roce *r, uint32_t first, uint32_t count,
			 struct fab_dcbx *out)
{
	struct fab_dcbx d;
	struct fab_app_entry apps[170]; /* (511 - 4 - 1) / 3 entries at most */

	dcbx_init(&d);
	for (uint32_t i = first; i < first + count && i < r->n_tlvs; i++) {
		const struct fab_lldp_tlv *t = &r->tlvs[i];
		int bad = 0;
		size_t n;

		if (t->oui != FAB_OUI_8021)
			continue;
		switch (t->subtype) {
		case FAB_8021_ETS_CFG:
			bad = fab_dcbx_decode_ets_cfg(t->info, t->len, &d.ets);
			break;
		case FAB_8021_ETS_RECO:
			bad = fab_dcbx_decode_ets_reco(t->info, t->len, &d.ets_reco);
			break;
		case FAB_8021_PFC:
			bad = fab_dcbx_decode_pfc(t->info, t->len, &d.pfc);
			break;
		case FAB_8021_APP:
			bad = fab_dcbx_decode_app(t->info, t->len, apps, ARRAY_SIZE(apps), &n);
			if (bad)
				break;
			if (n > ARRAY_SIZE(apps))
				n = ARRAY_SIZE(apps);
			/* a second APP TLV continues the first one's table */
			if (d.app_valid && d.app_first + d.app_count == r->n_apps) {
				uint32_t f;
				if (fab_roce_add_apps(r, apps, n, &f))
					return -ENOMEM;
				d.app_count += (uint32_t)n;
			} else if (!d.app_valid) {
				if (fab_roce_add_apps(r, apps, n, &d.app_first))
					return -ENOMEM;
				d.app_count = (uint32_t)n;
				d.app_valid = true;
			}
			break;
		default:
			continue;
		}
		if (bad && d.bad_tlvs < UINT8_MAX)
			d.bad_tlvs++;
	}
	*out = d;
	return 0;
}

const struct fab_pfc *fab_eth_port_pfc(const struct fab_eth_port *p)
{
	return p->dcb_status == FAB_DCB_OK && p->dcb.pfc.valid ? &p->dcb.pfc : &p->adv.pfc;
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

/* ---- a small string-keyed index (FNV-1a, open addressing) --------------- */

struct hidx {
	uint64_t *hash;
	uint32_t *val; /* FAB_NONE: empty slot */
	size_t cap, n;
};

static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Key: a tag, a number and a string (case-folded when fold). */
static uint64_t key_hash(unsigned tag, uint32_t num, const char *s, bool fold)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char c;

	h = fnv(h, &tag, sizeof(tag));
	h = fnv(h, &num, sizeof(num));
	for (; s && *s; s++) {
		c = (unsigned char)*s;
		if (fold && c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		h = fnv(h, &c, 1);
	}
	return h;
}

static void hidx_free(struct hidx *x)
{
	free(x->hash);
	free(x->val);
	memset(x, 0, sizeof(*x));
}

static int hidx_put(struct hidx *x, uint64_t h, uint32_t v);

static int hidx_grow(struct hidx *x)
{
	struct hidx old = *x;
	size_t cap = old.cap ? old.cap * 2 : 256;

	x->hash = malloc(cap * sizeof(*x->hash));
	x->val = malloc(cap * sizeof(*x->val));
	if (!x->hash || !x->val) {
		free(x->hash);
		free(x->val);
		*x = old;
		return -ENOMEM;
	}
	x->cap = cap;
	x->n = 0;
	for (size_t i = 0; i < cap; i++)
		x->val[i] = FAB_NONE;
	for (size_t i = 0; i < old.cap; i++)
		if (old.val[i] != FAB_NONE)
			hidx_put(x, old.hash[i], old.val[i]);
	free(old.hash);
	free(old.val);
	return 0;
}

static int hidx_put(struct hidx *x, uint64_t h, uint32_t v)
{
	if ((x->n + 1) * 2 > x->cap && hidx_grow(x))
		return -ENOMEM;
	size_t i = (size_t)h & (x->cap - 1);
	while (x->val[i] != FAB_NONE)
		i = (i + 1) & (x->cap - 1);
	x->hash[i] = h;
	x->val[i] = v;
	x->n++;
	return 0;
}

/* Calls match(v, ctx) for every value stored under h until one says yes. */
static uint32_t hidx_get(const struct hidx *x, uint64_t h,
			 bool (*match)(uint32_t v, const void *ctx), const void *ctx)
{
	if (!x->cap)
		return FAB_NONE;
	for (size_t i = (size_t)h & (x->cap - 1); x->val[i] != FAB_NONE;
	     i = (i + 1) & (x->cap - 1))
		if (x->hash[i] == h && match(x->val[i], ctx))
			return x->val[i];
	return FAB_NONE;
}

/* ---- resolution ----------------------------------------------------------- */

enum { K_CHASSIS = 1, K_SYSNAME, K_PORT_ID, K_IFNAME, K_MAC, K_LINK };

struct resolver {
	struct fab_roce *r;
	struct hidx systems; /* K_CHASSIS (subtype, id), K_SYSNAME */
	struct hidx ports;   /* K_PORT_ID, K_IFNAME, K_MAC per system */
	struct hidx links;   /* K_LINK (a, b) */
};

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

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
		return streq(s->chassis_id, k->s) &&
		       (!k->s2 || !s->chassis_id_subtype || streq(s->chassis_id_subtype, k->s2));
	return streq(s->name, k->s);
}

static bool match_port(uint32_t v, const void *ctx)
{
	const struct key *k = ctx;
	const struct fab_eth_port *p = &k->r->eth_ports[v];

	if (p->system_idx != k->num)
		return false;
	switch (k->tag) {
	case K_PORT_ID:
		return streq(p->port_id, k->s) &&
		       (!k->s2 || !p->port_id_subtype || streq(p->port_id_subtype, k->s2));
	case K_IFNAME:
		return streq(p->ifname, k->s);
	case K_MAC:
		return strcaseeq(p->mac, k->s);
	default:
		return false;
	}
}

static uint64_t chassis_hash(const char *id)
{
	return key_hash(K_CHASSIS, 0, id, false);
}

static int index_system(struct resolver *x, uint32_t i)
{
	const struct fab_roce_system *s = &x->r->systems[i];
	int err = 0;

	if (s->chassis_id && *s->chassis_id)
		err = hidx_put(&x->systems, chassis_hash(s->chassis_id), i);
	if (!err && s->name && *s->name)
		err = hidx_put(&x->systems, key_hash(K_SYSNAME, 0, s->name, false), i);
	return err;
}

static int index_port(struct resolver *x, uint32_t i)
{
	const struct fab_eth_port *p = &x->r->eth_ports[i];
	int err = 0;

	if (p->port_id && *p->port_id)
		err = hidx_put(&x->ports, key_hash(K_PORT_ID, p->system_idx, p->port_id, false), i);
	if (!err && p->ifname && *p->ifname)
		err = hidx_put(&x->ports, key_hash(K_IFNAME, p->system_idx, p->ifname, false), i);
	if (!err && p->mac && *p->mac)
		err = hidx_put(&x->ports, key_hash(K_MAC, p->system_idx, p->mac, true), i);
	return err;
}

static uint32_t find_port(struct resolver *x, uint32_t sys, unsigned tag,
			  const char *s, const char *s2)
{
	struct key k = { .r = x->r, .tag = tag, .num = sys, .s = s, .s2 = s2 };

	if (!s || !*s)
		return FAB_NONE;
	return hidx_get(&x->ports, key_hash(tag, sys, s, tag == K_MAC), match_port, &k);
}

/* The system a neighbour record describes: by chassis id, then by name. */
static uint32_t resolve_system(struct resolver *x, const struct fab_lldp_neighbor *n)
{
	struct key k = { .r = x->r, .tag = K_CHASSIS, .s = n->chassis_id,
			 .s2 = n->chassis_id_subtype };
	uint32_t s = FAB_NONE;

	if (n->chassis_id && *n->chassis_id)
		s = hidx_get(&x->systems, chassis_hash(n->chassis_id), match_system, &k);
	if (s == FAB_NONE && n->system_name && *n->system_name) {
		k.tag = K_SYSNAME;
		k.s = n->system_name;
		s = hidx_get(&x->systems, key_hash(K_SYSNAME, 0, n->system_name, false),
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
	if (streq(st, "mac"))
		p = find_port(x, sys, K_MAC, n->port_id, NULL);
	else if (streq(st, "ifname") || streq(st, "local") || streq(st, "ifalias"))
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
	if (streq(st, "ifname") || streq(st, "local"))
		p->ifname = n->port_id;
	else if (n->port_descr && *n->port_descr)
		p->ifname = n->port_descr;
	else
		p->ifname = n->port_id ? n->port_id : "?";
	if (streq(st, "mac"))
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

static uint64_t link_hash(uint32_t a, uint32_t b)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, &lo, sizeof(lo));
	return fnv(h, &hi, sizeof(hi));
}

/* Records that port `from` heard port `to`. */
static int add_link(struct resolver *x, uint32_t from, uint32_t to)
{
	struct fab_roce *r = x->r;
	struct link_key k = { r, from, to };
	uint64_t h = link_hash(from, to);
	uint32_t l = hidx_get(&x->links, h, match_link, &k);

	if (l == FAB_NONE) {
		struct fab_eth_link *nl = GROW(r, links, n_links, cap_links);
		if (!nl)
			return -ENOMEM;
		nl->a = from;
		nl->b = to;
		l = (uint32_t)(r->n_links - 1);
		if (hidx_put(&x->links, h, l))
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

/* RDMA port <-> eth port by the netdev name, within one system. */
static void map_rdma_netdevs(struct resolver *x)
{
	struct fab_roce *r = x->r;

	for (size_t i = 0; i < r->n_eth_ports; i++)
		r->eth_ports[i].rdma_port_idx = FAB_NONE;
	for (size_t i = 0; i < r->n_rdma_ports; i++) {
		struct fab_rdma_port *p = &r->rdma_ports[i];
		uint32_t sys = r->devices[p->device_idx].system_idx;

		p->eth_port_idx = FAB_NONE;
		if (!p->netdev)
			continue;
		uint32_t e = find_port(x, sys, K_IFNAME, p->netdev, NULL);
		if (e != FAB_NONE) {
			p->eth_port_idx = e;
			r->eth_ports[e].rdma_port_idx = (uint32_t)i;
		}
	}
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

/* Keeps only collected systems and their own ports: rebuild by merging. */
static int compact(struct fab_roce *r)
{
	struct fab_roce *n = fab_roce_new();
	int err;

	if (!n)
		return -ENOMEM;
	if ((err = fab_roce_merge(n, r, NULL, NULL))) {
		fab_roce_free(n);
		return err;
	}
	roce_free_arrays(r);
	*r = *n;
	free(n);
	return 0;
}

int fab_roce_resolve(struct fab_roce *r)
{
	struct resolver x = { .r = r };
	int err = 0;

	if (has_stubs(r) && (err = compact(r)))
		return err;
	r->n_links = 0;
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
		map_rdma_netdevs(&x); /* through the port index: linear */
	}
	hidx_free(&x.systems);
	hidx_free(&x.ports);
	hidx_free(&x.links);
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

/* ---- merge ---------------------------------------------------------------- */

struct copier {
	struct fab_roce *dst;
	const struct fab_roce *src;
	uint32_t *port_map; /* src eth port -> dst, FAB_NONE */
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
	struct hidx h;
	size_t n_indexed; /* systems[0 .. n_indexed) are in h */
};

static void names_free(struct fab_roce_names *x)
{
	if (x) {
		hidx_free(&x->h);
		free(x);
	}
}

static bool match_collected(uint32_t v, const void *ctx)
{
	const struct key *k = ctx;

	return k->r->systems[v].collected && streq(k->r->systems[v].name, k->s);
}

/* The collected system of dst named name, FAB_NONE if none; indexes the
 * systems appended since the last call first. */
static int find_collected(struct fab_roce *dst, const char *name, uint32_t *out)
{
	struct key k = { .r = dst, .tag = K_SYSNAME, .s = name };
	struct fab_roce_names *x = dst->names;

	if (!x && !(x = dst->names = calloc(1, sizeof(*x))))
		return -ENOMEM;
	for (; x->n_indexed < dst->n_systems; x->n_indexed++) {
		const struct fab_roce_system *s = &dst->systems[x->n_indexed];
		if (s->collected && s->name &&
		    hidx_put(&x->h, key_hash(K_SYSNAME, 0, s->name, false), (uint32_t)x->n_indexed))
			return -ENOMEM;
	}
	*out = name ? hidx_get(&x->h, key_hash(K_SYSNAME, 0, name, false), match_collected, &k)
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
	if (out_dups)
		*out_dups = dups;
	return err;
}
