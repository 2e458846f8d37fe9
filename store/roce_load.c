// SPDX-License-Identifier: MIT
/*
 * Loading the RoCE part of a snapshot: inside the loader's read transaction
 * (store/snapshot_load.c), or from a merge's input file read directly
 * (roce_file.c); the rows come through roce_rows.h either way. The 802.1Qaz
 * data is decoded again from the raw TLVs (a set shared by the owners that
 * have the same ones, decoded once; or rows of their own: older scans, and
 * owners whose TLVs were changed by SQL); DCB data from the NIC is read back
 * from its columns; a port's RDMA counters from its row (older scans: one
 * row per counter). Relations: docs/schema.md, "RoCE and Ethernet".
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/roce_delta.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "roce_io.h"
#include "roce_rows.h"
#include "store_priv.h"

#define NOMEM() fab_err(-ENOMEM, "out of memory loading a snapshot")

/* A set of TLVs or of counter names, as loaded. */
struct tset {
	int64_t id;
	uint32_t first, count; /* TLVs: r->tlvs[first ..]; names: ld->names[first ..] */
	struct fab_dcbx dcbx;  /* TLVs: decoded once */
};

enum { M_SYS, M_PORT, M_NB, M_DEV };    /* map[] */
enum { O_PORT, O_NB, O_DEV };           /* kown[] */

/* A stored index's value (FAB_NONE: none): an array indexed by it. */
struct idmap {
	uint32_t *v;
	size_t n;
};

#define MEMO_SLOTS 1024

struct ld {
	const struct fab_rsrc *src;
	struct fab_roce *r;
	int64_t scan;
	int err;
	/* shared texts met before, by a hash of their bytes */
	const char *memo[MEMO_SLOTS];
	/* sets */
	struct tset *tsets, *csets;
	size_t n_tsets, cap_tsets, n_csets, cap_csets;
	const char **names; /* counter names (shared, with their kinds), of every counter set */
	size_t n_names, cap_names;
	/* per owner: its TLV set id (0 none) */
	int64_t *port_set, *nb_set;
	size_t cap_port_set, cap_nb_set;
	uint32_t last_ctr_port;
	bool later; /* the RDMA devices and physical layer left stored (fab_roce_system.stored_scan) */
	uint64_t *vals;
	size_t cap_vals;
	/* A delta scan (docs/schema.md, "RoCE deltas"): each table's rows of
	 * its keyframe (base) but those of the systems it hides, then its own.
	 * Stored indices are then not positions: map[] takes a stored index
	 * to its position in the model, by kind; kown[] the keyframe's port,
	 * record and device to its system (stored), to leave out what a
	 * hidden system owns. */
	int64_t base;
	bool in_base;
	uint32_t *hidden; /* stored system indices, ascending */
	size_t n_hidden, cap_hidden;
	struct idmap map[4], kown[3];
	/* what the model records of it (r->delta): by position, each element's
	 * stored index, and which systems are the delta's own rows */
	uint32_t *ids[4];
	size_t cap_ids[4];
	uint32_t *mod_ids; /* by module position (fab_roce_load_phys tells them) */
	size_t cap_mod_ids;
	bool *own;
	size_t cap_own;
};

/* A delta's stored indices stay below this: each names an element of a
 * fabric (a few million at most), and the maps are arrays indexed by them,
 * so a file that says otherwise is refused, not allocated for. */
#define MAX_STORED_IDX (1 << 26)

static int map_put(struct idmap *m, int64_t id, uint32_t v)
{
	if (id < 0 || id >= MAX_STORED_IDX)
		return -EINVAL;
	if ((size_t)id >= m->n) {
		size_t n = m->n ? m->n : 256;
		while (n <= (size_t)id)
			n *= 2;
		uint32_t *p = realloc(m->v, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		for (size_t k = m->n; k < n; k++)
			p[k] = FAB_NONE;
		m->v = p;
		m->n = n;
	}
	m->v[id] = v;
	return 0;
}

static uint32_t map_get(const struct idmap *m, int64_t id)
{
	return id >= 0 && (size_t)id < m->n ? m->v[id] : FAB_NONE;
}

static int gap(struct ld *l, const char *what)
{
	return fab_err(-EPROTO, "database '%s': scan %lld has inconsistent %s", l->src->path,
		       (long long)l->scan, what);
}

static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return arr;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = realloc(arr, c * elem);
	if (p)
		*cap = c;
	return p;
}

static bool is_hidden(const struct ld *l, int64_t sys)
{
	size_t lo = 0, hi = l->n_hidden;

	if (sys < 0)
		return false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->hidden[mid] < sys)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n_hidden && l->hidden[lo] == sys;
}

/* Whether a keyframe row owned through element id of kind o (kown[o]) is
 * left out: the delta hides its system (or it has none). False for the
 * delta's own rows. */
static bool left_out(const struct ld *l, int o, int64_t id)
{
	if (!l->in_base)
		return false;
	uint32_t sys = map_get(&l->kown[o], id);
	return sys == FAB_NONE || is_hidden(l, sys);
}

/* The position of an element of kind k at stored index id (a whole scan:
 * the index itself, when below n), -1 when there is none. */
static int64_t pos_of(const struct ld *l, int k, int64_t id, size_t n)
{
	if (!l->base)
		return id >= 0 && (size_t)id < n ? id : -1;
	uint32_t v = map_get(&l->map[k], id);
	return v == FAB_NONE ? -1 : (int64_t)v;
}

/* Whether a keyframe row owned by keyframe system sys (stored) is left
 * out: the delta hides that system. Records in kown[o] (o >= 0) that
 * element id belongs to sys. */
static int skip_base(struct ld *l, int o, int64_t id, int64_t sys, bool *skip)
{
	int err;

	*skip = false;
	if (!l->in_base)
		return 0;
	if (o >= 0 && (err = map_put(&l->kown[o], id, sys < 0 ? FAB_NONE : (uint32_t)sys)))
		return err == -ENOMEM ? NOMEM() : gap(l, "indices");
	*skip = is_hidden(l, sys);
	return 0;
}

/* An element's stored index recorded at position pos (a delta scan), or
 * checked to be its position (a whole scan). */
static int place(struct ld *l, int k, int64_t id, size_t pos, const char *what)
{
	if (!l->base)
		return id == (int64_t)pos ? 0 : gap(l, what);
	if (map_get(&l->map[k], id) != FAB_NONE && !l->in_base)
		return gap(l, what); /* a delta's own row twice */
	int err = map_put(&l->map[k], id, (uint32_t)pos);
	if (err)
		return err == -ENOMEM ? NOMEM() : gap(l, what);
	uint32_t *ids = grow(l->ids[k], &l->cap_ids[k], pos, sizeof(*ids));
	if (!ids)
		return NOMEM();
	l->ids[k] = ids;
	ids[pos] = (uint32_t)id;
	if (k == M_SYS) {
		bool *own = grow(l->own, &l->cap_own, pos, sizeof(*own));
		if (!own)
			return NOMEM();
		l->own = own;
		own[pos] = !l->in_base;
	}
	return 0;
}

static const char *dup_text(struct ld *l, struct fab_rrow *w, int i)
{
	return fab_roce_strdup(l->r, fab_rrow_text(w, i));
}

/* The same for a text many rows repeat (interface names, states, firmware):
 * one copy, and no lookup in the model's when met before. */
static const char *shared_text(struct ld *l, struct fab_rrow *w, int i)
{
	const char *t = fab_rrow_text(w, i);
	uint32_t h = 2166136261u;

	if (!t)
		return NULL;
	for (const unsigned char *c = (const unsigned char *)t; *c; c++)
		h = (h ^ *c) * 16777619u;
	const char **m = &l->memo[(h ^ h >> 16) & (MEMO_SLOTS - 1)];
	if (!*m || strcmp(*m, t))
		*m = fab_roce_intern(l->r, t);
	return *m;
}

static void row_caps(struct fab_rrow *w, int i, bool *has, uint16_t *avail, uint16_t *en)
{
	*has = !fab_rrow_null(w, i + 1);
	*avail = (uint16_t)fab_rrow_int(w, i + 1);
	*en = (uint16_t)fab_rrow_int(w, i + 2);
}

/* ---- systems ------------------------------------------------------------------ */

static int system_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	struct fab_roce_system *y;
	int64_t id = fab_rrow_int(w, 0);
	bool skip;
	int err;

	if ((err = skip_base(l, -1, id, id, &skip)) || skip)
		return err;
	if ((err = place(l, M_SYS, id, r->n_systems, "systems")))
		return err;
	if (!(y = fab_roce_add_system(r)))
		return NOMEM();
	y->name = dup_text(l, w, 1);
	y->chassis_id = dup_text(l, w, 2);
	y->chassis_id_subtype = shared_text(l, w, 3);
	y->description = shared_text(l, w, 4);
	y->mgmt_address = dup_text(l, w, 5);
	int role = fab_role_parse(fab_rrow_text(w, 6));
	y->role = (uint8_t)(role < 0 ? 0 : role);
	row_caps(w, 7, &y->has_caps, &y->cap_available, &y->cap_enabled);
	y->collected = fab_rrow_int(w, 10);
	y->lldp = fab_rrow_int(w, 11);
	y->hostname = dup_text(l, w, 12);
	y->source = dup_text(l, w, 13);
	if (!fab_rrow_null(w, 14))
		fab_time_parse(fab_rrow_text(w, 14), &y->collected_at_ms);
	if (l->later) {
		y->stored_scan = l->in_base ? l->base : l->scan;
		y->stored_sys = (uint32_t)id;
	}
	return 0;
}

/* ---- Ethernet ports and neighbours ----------------------------------------------- */

/* DCB columns back into a dcbx (pfc at i: enabled, cap, mbc; apps i+3; ets i+4..) */
static int row_dcb(struct ld *l, struct fab_rrow *w, int i, struct fab_dcbx *d)
{
	memset(d, 0, sizeof(*d));
	if (!fab_rrow_null(w, i)) {
		d->pfc.valid = true;
		d->pfc.enabled = (uint8_t)fab_rrow_int(w, i);
		d->pfc.cap = (uint8_t)fab_rrow_int(w, i + 1);
		d->pfc.mbc = fab_rrow_int(w, i + 2) != 0;
	}
	if (!fab_rrow_null(w, i + 3)) {
		struct fab_app_entry apps[FAB_DCB_MAX_APPS];
		size_t n;
		if (fab_app_parse(fab_rrow_text(w, i + 3), apps, FAB_DCB_MAX_APPS, &n) == 0) {
			if (n > FAB_DCB_MAX_APPS)
				n = FAB_DCB_MAX_APPS;
			if (fab_roce_add_apps_shared(l->r, apps, (uint32_t)n, &d->app_first))
				return -ENOMEM;
			d->app_count = (uint32_t)n;
			d->app_valid = true;
		}
	}
	if (!fab_rrow_null(w, i + 6)) {
		uint8_t prio_tc[FAB_PRIOS], tc_bw[FAB_PRIOS], tsa[FAB_PRIOS];
		if (fab_sql_prio_list_parse(fab_rrow_text(w, i + 6), prio_tc) &&
		    fab_sql_prio_list_parse(fab_rrow_text(w, i + 7), tc_bw) &&
		    fab_sql_tsa_parse(fab_rrow_text(w, i + 8), tsa)) {
			memcpy(d->ets.prio_tc, prio_tc, sizeof(prio_tc));
			memcpy(d->ets.tc_bw, tc_bw, sizeof(tc_bw));
			memcpy(d->ets.tsa, tsa, sizeof(tsa));
			d->ets.valid = true;
			d->ets.willing = fab_rrow_int(w, i + 4) != 0;
			d->ets.max_tcs = (uint8_t)fab_rrow_int(w, i + 5);
		}
	}
	return 0;
}

/* ECN columns (np, rp, cnp_dscp, cnp_priority at i..); out of range: unknown */
static void row_ecn(struct fab_rrow *w, int i, struct fab_ecn *e)
{
	static const struct { uint8_t flag; int max; } cols[] = {
		{ FAB_ECN_NP, 255 }, { FAB_ECN_RP, 255 }, { FAB_ECN_CNP_DSCP, 63 },
		{ FAB_ECN_CNP_PRIO, FAB_PRIOS - 1 },
	};
	uint8_t *const field[] = { &e->np_enabled, &e->rp_enabled, &e->cnp_dscp, &e->cnp_prio };

	memset(e, 0, sizeof(*e));
	for (int k = 0; k < (int)ARRAY_SIZE(cols); k++) {
		if (fab_rrow_null(w, i + k))
			continue;
		int64_t v = fab_rrow_int(w, i + k);
		if (v < 0 || v > cols[k].max)
			continue;
		*field[k] = (uint8_t)v;
		e->known |= cols[k].flag;
	}
}

static int set_of(int64_t **sets, size_t i, size_t *cap, struct fab_rrow *w, int col)
{
	if (i >= *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		int64_t *p = realloc(*sets, c * sizeof(*p));
		if (!p)
			return NOMEM();
		*sets = p;
		*cap = c;
	}
	(*sets)[i] = fab_rrow_null(w, col) ? 0 : fab_rrow_int(w, col);
	return 0;
}

static int port_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	int64_t id = fab_rrow_int(w, 0), sys = fab_rrow_int(w, 1);
	struct fab_eth_port *p;
	struct fab_dcbx dcb;
	bool skip;
	int err;

	if ((err = skip_base(l, O_PORT, id, sys, &skip)) || skip)
		return err;
	if ((sys = pos_of(l, M_SYS, sys, r->n_systems)) < 0)
		return gap(l, "Ethernet ports");
	if ((err = place(l, M_PORT, id, r->n_eth_ports, "Ethernet ports")))
		return err;
	if (row_dcb(l, w, 15, &dcb) || set_of(&l->port_set, r->n_eth_ports, &l->cap_port_set, w, 28) ||
	    !(p = fab_roce_add_eth_port(r, (uint32_t)sys)))
		return NOMEM();
	p->ifname = shared_text(l, w, 2);
	p->mac = dup_text(l, w, 3);
	p->mtu = fab_rrow_null(w, 4) ? 0 : (uint32_t)fab_rrow_int(w, 4);
	p->speed_mbps = fab_rrow_null(w, 5) ? -1 : (int32_t)fab_rrow_int(w, 5);
	p->state = shared_text(l, w, 6);
	p->flags = (uint8_t)((fab_rrow_int(w, 7) ? FAB_ETH_F_SYSFS : 0) |
			     (fab_rrow_int(w, 8) ? FAB_ETH_F_LLDP : 0) |
			     (fab_rrow_int(w, 9) ? FAB_ETH_F_STUB : 0));
	p->port_id = dup_text(l, w, 10);
	if (p->port_id && p->mac && !strcmp(p->port_id, p->mac))
		p->port_id = p->mac;
	p->port_id_subtype = shared_text(l, w, 11);
	p->port_descr = shared_text(l, w, 12);
	int ds = fab_dcb_status_parse(fab_rrow_text(w, 13));
	p->dcb_status = (uint8_t)(ds < 0 ? FAB_DCB_NOT_QUERIED : ds);
	p->dcbx_mode = fab_rrow_null(w, 14) ? -1 : (int16_t)fab_rrow_int(w, 14);
	if (p->dcb_status == FAB_DCB_OK)
		p->dcb = dcb;
	row_ecn(w, 24, &p->ecn);
	p->driver = shared_text(l, w, 29);
	p->stored_idx = (uint32_t)id;
	int es = fab_ethtool_status_parse(fab_rrow_text(w, 30));
	p->stats_status = (uint8_t)(es < 0 ? FAB_ETHTOOL_NOT_QUERIED : es);
	es = fab_ethtool_status_parse(fab_rrow_text(w, 31));
	p->module_status = (uint8_t)(es < 0 ? FAB_ETHTOOL_NOT_QUERIED : es);
	return 0;
}

static int neighbor_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	int64_t id = fab_rrow_int(w, 0), port = fab_rrow_int(w, 1);
	struct fab_lldp_neighbor *n;
	bool skip;
	int err;

	if (l->in_base) {
		uint32_t sys = map_get(&l->kown[O_PORT], port);
		if ((err = skip_base(l, O_NB, id, sys == FAB_NONE ? -1 : (int64_t)sys, &skip)) || skip)
			return err;
	}
	if ((port = pos_of(l, M_PORT, port, r->n_eth_ports)) < 0)
		return gap(l, "LLDP neighbours");
	if ((err = place(l, M_NB, id, r->n_neighbors, "LLDP neighbours")))
		return err;
	if (set_of(&l->nb_set, r->n_neighbors, &l->cap_nb_set, w, 16) ||
	    !(n = fab_roce_add_neighbor(r, (uint32_t)port)))
		return NOMEM();
	/* what the hosts below a switch hear of it is alike: shared */
	n->chassis_id = shared_text(l, w, 2);
	n->chassis_id_subtype = shared_text(l, w, 3);
	n->system_name = shared_text(l, w, 4);
	n->system_descr = shared_text(l, w, 5);
	n->port_id = dup_text(l, w, 6);
	n->port_id_subtype = shared_text(l, w, 7);
	n->port_descr = shared_text(l, w, 8);
	n->mgmt_address = shared_text(l, w, 9);
	n->ttl = (uint32_t)fab_rrow_int(w, 10);
	row_caps(w, 11, &n->has_caps, &n->cap_available, &n->cap_enabled);
	int64_t rs = fab_rrow_null(w, 14) ? -1 : pos_of(l, M_SYS, fab_rrow_int(w, 14), r->n_systems);
	int64_t rp = fab_rrow_null(w, 15) ? -1 : pos_of(l, M_PORT, fab_rrow_int(w, 15), r->n_eth_ports);
	if (rs >= 0 && (size_t)rs < r->n_systems && rp >= 0 && (size_t)rp < r->n_eth_ports) {
		n->remote_system_idx = (uint32_t)rs;
		n->remote_port_idx = (uint32_t)rp;
	}
	return 0;
}

/* ---- TLVs ------------------------------------------------------------------------ */

static int parse_oui(const char *s, uint32_t *out)
{
	unsigned v = 0;

	for (int i = 0; i < 8; i++) {
		char c = s ? s[i] : 0;
		if (i == 2 || i == 5) {
			if (c != '-')
				return -EINVAL;
			continue;
		}
		int d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
		if (d < 0)
			return -EINVAL;
		v = v << 4 | (unsigned)d;
	}
	if (s[8])
		return -EINVAL;
	*out = v;
	return 0;
}

/* A set's entry (set_id, pos, oui, subtype, info), sets in order. */
static int tset_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	int64_t id = fab_rrow_int(w, 0), pos = fab_rrow_int(w, 1);
	uint32_t oui;
	int len;

	if (!l->n_tsets || l->tsets[l->n_tsets - 1].id != id) {
		if (pos != 0 || (l->n_tsets && l->tsets[l->n_tsets - 1].id > id))
			return gap(l, "LLDP TLV sets");
		struct tset *t = grow(l->tsets, &l->cap_tsets, l->n_tsets, sizeof(*t));
		if (!t)
			return NOMEM();
		l->tsets = t;
		t[l->n_tsets++] = (struct tset){ .id = id, .first = (uint32_t)r->n_tlvs };
	}
	struct tset *t = &l->tsets[l->n_tsets - 1];
	if (pos != t->count || parse_oui(fab_rrow_text(w, 2), &oui))
		return gap(l, "LLDP TLV sets");
	const void *info = fab_rrow_blob(w, 4, &len);
	int err = fab_roce_add_tlv(r, oui, (unsigned)fab_rrow_int(w, 3), info ? info : "",
				   info ? (size_t)len : 0);
	if (err)
		return err == -ENOMEM ? NOMEM() : gap(l, "LLDP TLV sets");
	t->count++;
	return 0;
}

/* Rows of one owner are consecutive (an older scan's, or an owner whose TLVs
 * SQL changed: docs/schema.md, lldp_tlvs). */
static int tlv_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	const char *owner = fab_rrow_text(w, 0);
	bool port = owner && !strcmp(owner, "port");
	int64_t idx = fab_rrow_int(w, 1);
	uint32_t oui, *first, *count;
	int len;

	if (left_out(l, port ? O_PORT : O_NB, idx))
		return 0;
	idx = pos_of(l, port ? M_PORT : M_NB, idx, port ? r->n_eth_ports : r->n_neighbors);
	if (idx < 0 || (port ? (size_t)idx >= r->n_eth_ports : (size_t)idx >= r->n_neighbors) ||
	    parse_oui(fab_rrow_text(w, 2), &oui))
		return gap(l, "LLDP TLVs");
	if (port) {
		first = &r->eth_ports[idx].tlv_first;
		count = &r->eth_ports[idx].tlv_count;
	} else {
		first = &r->neighbors[idx].tlv_first;
		count = &r->neighbors[idx].tlv_count;
	}
	if (!*count)
		*first = (uint32_t)r->n_tlvs;
	else if (*first + *count != r->n_tlvs)
		return gap(l, "LLDP TLVs");
	const void *info = fab_rrow_blob(w, 4, &len);
	int err = fab_roce_add_tlv(r, oui, (unsigned)fab_rrow_int(w, 3), info ? info : "",
				   info ? (size_t)len : 0);
	if (err)
		return err == -ENOMEM ? NOMEM() : gap(l, "LLDP TLVs");
	(*count)++;
	return 0;
}

static const struct tset *find_set(const struct tset *v, size_t n, int64_t id)
{
	_Static_assert(offsetof(struct tset, id) == 0, "fab_find_by_id reads the id first");
	return fab_find_by_id(v, n, sizeof(*v), id);
}

/* An owner's TLVs and what they advertise: its set's (decoded once), else
 * its own rows decoded. */
static int owner_tlvs(struct ld *l, int64_t set, uint32_t *first, uint32_t *count,
		      struct fab_dcbx *out)
{
	if (set) {
		const struct tset *t = find_set(l->tsets, l->n_tsets, set);
		if (!t || *count)
			return gap(l, "LLDP TLV sets");
		*first = t->first;
		*count = t->count;
		*out = t->dcbx;
		return 0;
	}
	return fab_roce_decode_tlvs(l->r, *first, *count, out) ? NOMEM() : 0;
}

/* A delta's physical-layer rows (fab_roce_place): a keyframe row's port
 * left out when the delta hides its system. */
static uint32_t place_port(void *ctx, int64_t stored)
{
	struct ld *l = ctx;

	if (left_out(l, O_PORT, stored))
		return FAB_NONE;
	return map_get(&l->map[M_PORT], stored);
}

static int place_module(void *ctx, int64_t stored, uint32_t pos)
{
	struct ld *l = ctx;
	uint32_t *ids = grow(l->mod_ids, &l->cap_mod_ids, pos, sizeof(*ids));

	if (!ids)
		return -ENOMEM;
	l->mod_ids = ids;
	ids[pos] = (uint32_t)stored;
	return 0;
}

/* The physical layer's rows: for a delta, its keyframe's first. */
static int load_phys(struct ld *l)
{
	const struct fab_roce_place place = { .port = place_port, .module = place_module, .ctx = l };
	int err = 0;

	if (!l->base)
		return fab_roce_load_phys(l->src, l->r, l->scan, NULL);
	l->in_base = true;
	err = fab_roce_load_phys(l->src, l->r, l->base, &place);
	l->in_base = false;
	return err ? err : fab_roce_load_phys(l->src, l->r, l->scan, &place);
}

/* Runs q for the scan: for a delta, its keyframe's rows first. */
static int run(struct ld *l, const struct fab_rquery *q, int (*fn)(struct fab_rrow *, void *))
{
	int err = 0;

	if (l->base) {
		l->in_base = true;
		err = fab_rquery_run(l->src, q, l->base, fn, l);
		l->in_base = false;
	}
	return err ? err : fab_rquery_run(l->src, q, l->scan, fn, l);
}

static int load_tlvs(struct ld *l)
{
	static const char *const set_cols[] = { "set_id", "pos", "oui", "subtype", "info", NULL };
	static const char *const row_cols[] = { "owner", "owner_idx", "oui", "subtype", "info", NULL };
	static const struct fab_rquery sets = { "lldp_tlv_set_entries", set_cols, "set_id, pos", false, NULL };
	/* schema step 15 -> 16 renamed the table of rows; older files have it as lldp_tlvs */
	struct fab_rquery rows = { "lldp_tlv_rows", row_cols, "rowid", true, NULL };
	struct fab_roce *r = l->r;
	int err;

	if (!fab_rsrc_has(l->src, rows.table, NULL))
		rows.table = "lldp_tlvs";
	if ((err = fab_rquery_run(l->src, &sets, l->scan, tset_row, l)) ||
	    (err = run(l, &rows, tlv_row)))
		return err;
	for (size_t i = 0; i < l->n_tsets; i++)
		if (fab_roce_decode_tlvs(r, l->tsets[i].first, l->tsets[i].count, &l->tsets[i].dcbx))
			return NOMEM();
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		struct fab_eth_port *p = &r->eth_ports[i];
		struct fab_dcbx d;
		if ((err = owner_tlvs(l, l->port_set[i], &p->tlv_first, &p->tlv_count, &d)))
			return err;
		r->eth_ports[i].adv = d;
	}
	for (size_t i = 0; i < r->n_neighbors; i++) {
		struct fab_lldp_neighbor *n = &r->neighbors[i];
		struct fab_dcbx d;
		if ((err = owner_tlvs(l, l->nb_set[i], &n->tlv_first, &n->tlv_count, &d)))
			return err;
		r->neighbors[i].dcbx = d;
	}
	return 0;
}

/* ---- links ----------------------------------------------------------------------- */

static int link_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	int64_t a = fab_rrow_int(w, 0), b = fab_rrow_int(w, 1);

	if (left_out(l, O_PORT, a)) /* a link is its a side's */
		return 0;
	a = pos_of(l, M_PORT, a, r->n_eth_ports);
	b = pos_of(l, M_PORT, b, r->n_eth_ports);
	if (a < 0 || b < 0)
		return gap(l, "Ethernet links");
	struct fab_eth_link *k = fab_roce_add_link(r);
	if (!k)
		return NOMEM();
	k->a = (uint32_t)a;
	k->b = (uint32_t)b;
	k->heard = (uint8_t)((fab_rrow_int(w, 2) ? FAB_LINK_A_HEARD_B : 0) |
			     (fab_rrow_int(w, 3) ? FAB_LINK_B_HEARD_A : 0));
	return 0;
}

/* ---- RDMA devices, ports, counters ------------------------------------------------- */

static void device_fields(struct ld *l, struct fab_rrow *w, struct fab_rdma_device *d);

static int device_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	int64_t id = fab_rrow_int(w, 0), sys = fab_rrow_int(w, 1);
	struct fab_rdma_device *d;
	bool skip;
	int err;

	if ((err = skip_base(l, O_DEV, id, sys, &skip)) || skip)
		return err;
	if ((sys = pos_of(l, M_SYS, sys, r->n_systems)) < 0)
		return gap(l, "RDMA devices");
	if ((err = place(l, M_DEV, id, r->n_devices, "RDMA devices")))
		return err;
	if (!(d = fab_roce_add_device(r, (uint32_t)sys)))
		return NOMEM();
	device_fields(l, w, d);
	return 0;
}

/* A device's fields from its row (device_idx, system_idx, device, ...). */
static void device_fields(struct ld *l, struct fab_rrow *w, struct fab_rdma_device *d)
{
	d->name = shared_text(l, w, 2);
	if (!fab_rrow_null(w, 3))
		fab_guid_parse(fab_rrow_text(w, 3), &d->node_guid);
	if (!fab_rrow_null(w, 4))
		fab_guid_parse(fab_rrow_text(w, 4), &d->sys_image_guid);
	d->node_desc = shared_text(l, w, 5);
	d->fw_ver = shared_text(l, w, 6);
	d->hca_type = shared_text(l, w, 7);
	d->board_id = shared_text(l, w, 8);
	d->pci_address = shared_text(l, w, 9);
	d->pcie_speed_gts = fab_rrow_double(w, 10);
	d->pcie_width = (uint8_t)fab_rrow_int(w, 11);
	d->pcie_max_speed_gts = fab_rrow_double(w, 12);
	d->pcie_max_width = (uint8_t)fab_rrow_int(w, 13);
}

/* The RDMA counter sets' names, every scan's. */
static const char *const cset_cols[] = { "set_id", "pos", "kind", "counter", NULL };
static const struct fab_rquery cset_query = { "rdma_counter_names", cset_cols, "set_id, pos", false, NULL };

/* A counter set's name (set_id, pos, kind, counter), sets in order. */
static int cset_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	int64_t id = fab_rrow_int(w, 0), pos = fab_rrow_int(w, 1);

	if (!l->n_csets || l->csets[l->n_csets - 1].id != id) {
		if (pos != 0 || (l->n_csets && l->csets[l->n_csets - 1].id > id))
			return gap(l, "RDMA counter sets");
		struct tset *t = grow(l->csets, &l->cap_csets, l->n_csets, sizeof(*t));
		if (!t)
			return NOMEM();
		l->csets = t;
		t[l->n_csets++] = (struct tset){ .id = id, .first = (uint32_t)l->n_names };
	}
	struct tset *t = &l->csets[l->n_csets - 1];
	int kind = fab_rdma_ctr_kind_parse(fab_rrow_text(w, 2));
	const char *name = fab_roce_counter_name(l->r, (unsigned)(kind < 0 ? 0 : kind), fab_rrow_text(w, 3));
	const char **names = grow(l->names, &l->cap_names, l->n_names, sizeof(*names));
	if (!names || !name)
		return NOMEM();
	l->names = names;
	if (pos != t->count)
		return gap(l, "RDMA counter sets");
	l->names[l->n_names++] = name;
	t->count++;
	return 0;
}

/* A port's counters from its row: the set's names, the JSON array's values. */
static int port_counters(struct ld *l, uint32_t pi, int64_t set, const char *json)
{
	const struct tset *t = find_set(l->csets, l->n_csets, set);
	size_t n;

	if (!t)
		return gap(l, "RDMA counters");
	if (t->count > l->cap_vals) {
		uint64_t *v = realloc(l->vals, t->count * sizeof(*v));
		if (!v)
			return NOMEM();
		l->vals = v;
		l->cap_vals = t->count;
	}
	if (fab_roce_parse_values(json, l->vals, t->count, &n) || n != t->count)
		return gap(l, "RDMA counters");
	return fab_roce_add_counters(l->r, pi, t->count, &l->names[t->first], l->vals) ? NOMEM() : 0;
}

/* An RDMA port's fields from its row at column o (device_idx, port_num,
 * state, ..., netdev at o + 7; the counters' set and values at o + 9). */
static void rdma_port_fields(struct ld *l, struct fab_rrow *w, int o, struct fab_rdma_port *p)
{
	p->port_num = (uint8_t)fab_rrow_int(w, o + 1);
	int v = fab_state_parse(fab_rrow_text(w, o + 2));
	p->state = (uint8_t)(v < 0 ? 0 : v);
	v = fab_phys_state_parse(fab_rrow_text(w, o + 3));
	p->phys_state = (uint8_t)(v < 0 ? 0 : v);
	p->rate = shared_text(l, w, o + 4);
	p->rate_gbps = fab_rrow_double(w, o + 5);
	p->link_layer = shared_text(l, w, o + 6);
	p->netdev = shared_text(l, w, o + 7);
}

/* Port pi's counters from its row's columns at o + 9 (none when NULL). */
static int rdma_port_counters(struct ld *l, struct fab_rrow *w, int o, uint32_t pi)
{
	if (fab_rrow_null(w, o + 9))
		return 0;
	return port_counters(l, pi, fab_rrow_int(w, o + 9), fab_rrow_text(w, o + 10));
}

static int rdma_port_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	int64_t dev = fab_rrow_int(w, 0);
	struct fab_rdma_port *p;

	if (left_out(l, O_DEV, dev))
		return 0;
	dev = pos_of(l, M_DEV, dev, r->n_devices);
	if (dev < 0 ||
	    (r->n_rdma_ports && r->rdma_ports[r->n_rdma_ports - 1].device_idx > dev))
		return gap(l, "RDMA ports");
	if (!(p = fab_roce_add_rdma_port(r, (uint32_t)dev)))
		return NOMEM();
	rdma_port_fields(l, w, 0, p);
	int64_t e = fab_rrow_null(w, 8) ? -1 : pos_of(l, M_PORT, fab_rrow_int(w, 8), r->n_eth_ports);
	uint32_t pi = (uint32_t)(r->n_rdma_ports - 1);
	if (e >= 0 && (size_t)e < r->n_eth_ports) {
		p->eth_port_idx = (uint32_t)e;
		r->eth_ports[e].rdma_port_idx = pi;
	}
	return rdma_port_counters(l, w, 0, pi);
}

/* One row per counter: scans written before schema 16. */
static int counter_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	struct fab_roce *r = l->r;
	int64_t dev = fab_rrow_int(w, 0);
	unsigned num = (unsigned)fab_rrow_int(w, 1);
	uint32_t pi = FAB_NONE, last = l->last_ctr_port;

	if (l->base || dev < 0 || (size_t)dev >= r->n_devices)
		return gap(l, "RDMA counters"); /* a keyframe has none (fab_store_write_roce) */
	const struct fab_rdma_device *d = &r->devices[dev];
	for (uint32_t k = 0; k < d->port_count && pi == FAB_NONE; k++)
		if (r->rdma_ports[d->port_first + k].port_num == num)
			pi = d->port_first + k;
	/* counters of one port are contiguous and ports come in order */
	if (pi == FAB_NONE || (last != FAB_NONE && pi < last) ||
	    (pi != last && r->rdma_ports[pi].ctr_count))
		return gap(l, "RDMA counters");
	l->last_ctr_port = pi;
	int kind = fab_rdma_ctr_kind_parse(fab_rrow_text(w, 2));
	const char *name = fab_rrow_text(w, 3);
	if (fab_roce_add_counter(r, pi, (unsigned)(kind < 0 ? 0 : kind), name ? name : "?",
				 (uint64_t)fab_rrow_int(w, 4)))
		return NOMEM();
	return 0;
}

static int load_rdma(struct ld *l)
{
	static const char *const dev_cols[] = {
		"device_idx", "system_idx", "device", "node_guid", "sys_image_guid", "node_desc",
		"fw_ver", "hca_type", "board_id", "pci_address", "pcie_speed_gts", "pcie_width",
		"pcie_max_speed_gts", "pcie_max_width", NULL,
	};
	static const char *const port_cols[] = {
		"device_idx", "port_num", "state", "phys_state", "rate", "rate_gbps", "link_layer",
		"netdev", "eth_port_idx", "counter_set", "counter_values", NULL,
	};
	static const char *const ctr_cols[] = { "device_idx", "port_num", "kind", "counter", "value", NULL };
	struct fab_rquery devs = { "rdma_device_rows", dev_cols, "device_idx", true, NULL };
	static const struct fab_rquery ports = { "rdma_port_rows", port_cols, "device_idx, port_num", true, NULL };
	struct fab_rquery ctrs = { "rdma_counter_rows", ctr_cols, "rowid", true, NULL };
	int err;

	if (!fab_rsrc_has(l->src, ctrs.table, NULL))
		ctrs.table = "rdma_counters";
	if (!fab_rsrc_has(l->src, devs.table, NULL))
		devs.table = "rdma_devices"; /* before schema 17 */
	l->last_ctr_port = FAB_NONE;
	if ((err = run(l, &devs, device_row)) ||
	    (err = fab_rquery_run(l->src, &cset_query, l->scan, cset_row, l)))
		return err;
	if ((err = run(l, &ports, rdma_port_row)))
		return err;
	return run(l, &ctrs, counter_row);
}

/* ---- a merge's inputs -------------------------------------------------------------- */

static int input_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	int st = fab_merge_status_parse(fab_rrow_text(w, 3));
	int64_t mtime = fab_rrow_null(w, 1) ? -1 : fab_rrow_int(w, 1);
	int64_t size = fab_rrow_null(w, 2) ? -1 : fab_rrow_int(w, 2);

	if (st < 0)
		return gap(l, "merge inputs");
	return fab_roce_add_input(l->r, fab_rrow_text(w, 0), mtime, size, (unsigned)st) ? NOMEM() : 0;
}

/* ---- the load -------------------------------------------------------------------- */

static int load_all(struct ld *l)
{
	static const char *const sys_cols[] = {
		"system_idx", "system", "chassis_id", "chassis_id_subtype", "description",
		"mgmt_address", "role", "capabilities", "cap_available", "cap_enabled", "collected",
		"lldp", "hostname", "source", "collected_at", NULL,
	};
	static const char *const port_cols[] = {
		"port_idx", "system_idx", "ifname", "mac", "mtu", "speed_mbps", "state", "sysfs", "lldp",
		"stub", "port_id", "port_id_subtype", "port_descr", "dcb_status", "dcbx_mode",
		"dcb_pfc_enabled", "dcb_pfc_cap", "dcb_pfc_mbc", "dcb_app_entries", "dcb_ets_willing",
		"dcb_ets_max_tcs", "dcb_ets_prio_tc", "dcb_ets_tc_bw", "dcb_ets_tsa",
		"ecn_np_enabled", "ecn_rp_enabled", "cnp_dscp", "cnp_priority", "tlv_set", "driver",
		"stats_status", "module_status", NULL,
	};
	static const char *const nb_cols[] = {
		"neighbor_idx", "port_idx", "chassis_id", "chassis_id_subtype", "neighbor_system",
		"neighbor_descr", "neighbor_port_id", "neighbor_port_id_subtype",
		"neighbor_port_descr", "mgmt_address", "ttl", "capabilities", "cap_available",
		"cap_enabled", "remote_system_idx", "remote_port_idx", "tlv_set", NULL,
	};
	static const char *const link_cols[] = { "a_port_idx", "b_port_idx", "a_heard_b", "b_heard_a", NULL };
	struct fab_rquery systems = { "system_rows", sys_cols, "system_idx", true, NULL };
	static const struct fab_rquery ports = { "eth_port_rows", port_cols, "port_idx", true, NULL };
	struct fab_rquery nbs = { "lldp_neighbor_rows", nb_cols, "neighbor_idx", true, NULL };
	struct fab_rquery links = { "eth_link_rows", link_cols, "rowid", true, NULL };
	int err;

	if (!fab_rsrc_has(l->src, systems.table, NULL)) { /* before schema 17: tables by these names */
		systems.table = "systems";
		nbs.table = "lldp_neighbors";
		links.table = "eth_links";
	}

	if ((err = run(l, &systems, system_row)))
		return err;
	if (!l->r->n_systems)
		return 0; /* no RoCE part */
	if ((err = run(l, &ports, port_row)))
		return err;
	if ((err = run(l, &nbs, neighbor_row)))
		return err;
	/* owners without a row above have no set */
	if (!l->port_set && !(l->port_set = calloc(1, sizeof(*l->port_set))))
		return NOMEM();
	if (!l->nb_set && !(l->nb_set = calloc(1, sizeof(*l->nb_set))))
		return NOMEM();
	static const char *const in_cols[] = { "file", "mtime_ns", "size", "status", NULL };
	static const struct fab_rquery inputs = { "merge_inputs", in_cols, "file", true, NULL };
	if ((err = load_tlvs(l)) || (err = run(l, &links, link_row)) ||
	    (!l->later && ((err = load_rdma(l)) || (err = load_phys(l)))))
		return err;
	return fab_rquery_run(l->src, &inputs, l->scan, input_row, l);
}

static int base_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	int64_t id = fab_rrow_int(w, 0);

	if (id == l->scan && !fab_rrow_null(w, 1))
		l->base = fab_rrow_int(w, 1);
	return 0;
}

static int keyframe_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;

	if (fab_rrow_int(w, 0) == l->base)
		l->in_base = true; /* found (reset before the rows are read) */
	return 0;
}

static int hidden_row(struct fab_rrow *w, void *ctx)
{
	struct ld *l = ctx;
	uint32_t *h = grow(l->hidden, &l->cap_hidden, l->n_hidden, sizeof(*h));
	int64_t sys = fab_rrow_int(w, 0);

	if (!h)
		return NOMEM();
	l->hidden = h;
	if (sys < 0 || sys >= MAX_STORED_IDX || (l->n_hidden && sys <= h[l->n_hidden - 1]))
		return gap(l, "hidden systems");
	h[l->n_hidden] = (uint32_t)sys;
	l->n_hidden++;
	return 0;
}

/* A delta scan's keyframe and the systems it hides (l->base stays 0 for a
 * whole scan, and for a database older than deltas). */
static int load_delta(struct ld *l)
{
	static const char *const scan_cols[] = { "scan_id", "roce_base_scan_id", NULL };
	static const char *const hid_cols[] = { "system_idx", NULL };
	static const struct fab_rquery scans = { "scans", scan_cols, "scan_id", false, NULL };
	static const struct fab_rquery hid = { "roce_hidden", hid_cols, "system_idx", true, NULL };
	int err;

	if (!fab_rsrc_has(l->src, "scans", "roce_base_scan_id"))
		return 0;
	if ((err = fab_rquery_run(l->src, &scans, l->scan, base_row, l)) || !l->base)
		return err;
	if (l->base == l->scan)
		return gap(l, "keyframe");
	if ((err = fab_rquery_run(l->src, &scans, l->scan, keyframe_row, l)))
		return err;
	if (!l->in_base)
		return fab_err(-EPROTO, "database '%s': scan %lld builds on scan %lld, which is not there"
					" (deleted by hand?): it cannot be read", l->src->path,
			       (long long)l->scan, (long long)l->base);
	l->in_base = false;
	return fab_rquery_run(l->src, &hid, l->scan, hidden_row, l);
}

/* A delta's model records where its elements are stored (r->delta): what
 * merge --into builds the next delta with. The loader's records are handed
 * over (an array is NULL only for a kind the model has none of). */
static int keep_delta(struct ld *l)
{
	struct fab_roce_delta *d = calloc(1, sizeof(*d));

	if (!d)
		return NOMEM();
	l->r->delta = d;
	d->base_scan = l->base;
	d->n_sys = l->r->n_systems;
	d->sys = l->ids[M_SYS];
	d->port = l->ids[M_PORT];
	d->nb = l->ids[M_NB];
	d->dev = l->ids[M_DEV];
	d->mod = l->mod_ids;
	d->write = l->own;
	d->hidden = l->hidden;
	d->n_hidden = l->n_hidden;
	memset(l->ids, 0, sizeof(l->ids));
	l->mod_ids = NULL;
	l->own = NULL;
	l->hidden = NULL;
	return 0;
}

/* Whether the scan's RDMA devices and physical layer can be left stored:
 * none of its rows, nor its keyframe's, are in a form before schema 16 and
 * 17 (a row per RDMA counter, NIC counter or Ethernet lane: read with the
 * whole scan only); and the device and module indices past which a delta
 * on them numbers its new ones. */
static int later_ok(struct ld *l)
{
	struct fab_store *st = l->src->st;
	sqlite3_stmt *s;
	int rc, err;

	if ((err = fab_sql_scan_query(st,
		"SELECT " FAB_SQL_OLD_ROCE_ROWS("IN (?1, ?2)") ","
		" max(coalesce((SELECT max(device_idx) FROM rdma_device_rows WHERE scan_id = ?1), -1),"
		"  coalesce((SELECT max(device_idx) FROM rdma_device_rows WHERE scan_id = ?2), -1)),"
		" max(coalesce((SELECT max(module_idx) FROM module_rows WHERE scan_id = ?1 AND fabric = 'eth'), -1),"
		"  coalesce((SELECT max(module_idx) FROM module_rows WHERE scan_id = ?2 AND fabric = 'eth'), -1))",
		l->scan, &s)))
		return err;
	sqlite3_bind_int64(s, 2, l->base ? l->base : l->scan);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t dev = sqlite3_column_int64(s, 1), mod = sqlite3_column_int64(s, 2);
		l->later = !sqlite3_column_int(s, 0) && dev < MAX_STORED_IDX && mod < MAX_STORED_IDX;
		l->r->rdma_dev_end = l->later ? (uint32_t)(dev + 1) : 0;
		l->r->mod_end = l->later ? (uint32_t)(mod + 1) : 0;
		rc = SQLITE_DONE; /* one row */
	}
	return fab_sql_done(st, s, rc, 0);
}

static void ld_free(struct ld *l)
{
	free(l->hidden);
	for (int k = 0; k < 4; k++)
		free(l->ids[k]);
	free(l->mod_ids);
	free(l->own);
	for (int k = 0; k < 4; k++)
		free(l->map[k].v);
	for (int k = 0; k < 3; k++)
		free(l->kown[k].v);
	free(l->tsets);
	free(l->csets);
	free(l->names);
	free(l->port_set);
	free(l->nb_set);
	free(l->vals);
}

int fab_roce_load(const struct fab_rsrc *src, struct fab_snapshot *snap, bool later)
{
	struct ld l = { .src = src, .scan = snap->scan_id };
	int err;

	if (!(l.r = fab_roce_new()))
		return NOMEM();
	err = load_delta(&l);
	if (!err && later && src->st)
		err = later_ok(&l);
	if (!err)
		err = load_all(&l);
	if (!err && l.base && l.r->n_systems)
		err = keep_delta(&l);
	ld_free(&l);
	if (err || !l.r->n_systems) {
		fab_roce_free(l.r);
		return err;
	}
	fab_roce_free(snap->roce);
	snap->roce = l.r;
	return 0;
}

int fab_store_load_roce(struct fab_store *st, struct fab_snapshot *snap, bool later)
{
	struct fab_rsrc src = { .st = st, .path = fab_store_path(st) };

	return fab_roce_load(&src, snap, later);
}

/* ---- what was left stored, read for the systems written again ---------------------------- */

/* Where fab_store_load_later is: the system (position) whose rows it
 * reads, the stored index of the device added last, those of every device
 * it added (for a delta's records). */
struct later {
	struct ld *l;
	uint32_t sys;
	int64_t dev;
	uint32_t *ids;
	size_t n_ids, cap_ids;
};

#define LATER_PORT 14 /* the port's columns in a row of the query below */

static int later_row(struct fab_rrow *w, void *ctx)
{
	struct later *g = ctx;
	struct ld *l = g->l;
	struct fab_roce *r = l->r;
	int64_t id = fab_rrow_int(w, 0);

	if (id != g->dev) {
		struct fab_rdma_device *d = fab_roce_add_device(r, g->sys);
		uint32_t *ids = grow(g->ids, &g->cap_ids, g->n_ids, sizeof(*ids));
		if (!d || !ids)
			return NOMEM();
		device_fields(l, w, d);
		g->ids = ids;
		ids[g->n_ids++] = (uint32_t)id;
		g->dev = id;
	}
	if (fab_rrow_null(w, LATER_PORT))
		return 0; /* a device without ports */
	struct fab_rdma_port *p = fab_roce_add_rdma_port(r, (uint32_t)(r->n_devices - 1));
	if (!p)
		return NOMEM();
	rdma_port_fields(l, w, LATER_PORT, p);
	return rdma_port_counters(l, w, LATER_PORT, (uint32_t)(r->n_rdma_ports - 1));
}

/* The n elements added at first (of total now) get their stored indices
 * ids in a delta's records *v (NULL: no delta). */
static int later_ids(uint32_t **v, size_t total, size_t first, const uint32_t *ids, size_t n)
{
	if (!v || !n)
		return 0;
	uint32_t *a = realloc(*v, (total + 1) * sizeof(*a));
	if (!a)
		return NOMEM();
	*v = a;
	memcpy(&a[first], ids, n * sizeof(*a));
	return 0;
}

static bool later_wanted(const struct fab_roce *r, const bool *which, size_t i)
{
	return r->systems[i].stored_scan && (!which || which[i]);
}

/* The ports whose modules and NIC counters are read from one scan: their
 * stored indices with their positions, ascending; the stored indices of
 * the modules added, in order. */
struct later_phys {
	struct later_port {
		uint32_t stored, pos;
	} *ports;
	size_t n, cap;
	uint32_t *mods;
	size_t n_mods, cap_mods;
};

static int cmp_later_port(const void *a, const void *b)
{
	uint32_t x = ((const struct later_port *)a)->stored, y = ((const struct later_port *)b)->stored;

	return (x > y) - (x < y);
}

static uint32_t later_port(void *ctx, int64_t stored)
{
	const struct later_phys *g = ctx;
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->ports[mid].stored < stored)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->ports[lo].stored == stored ? g->ports[lo].pos : FAB_NONE;
}

static int later_module(void *ctx, int64_t stored, uint32_t pos)
{
	struct later_phys *g = ctx;
	uint32_t *m = grow(g->mods, &g->cap_mods, g->n_mods, sizeof(*m));

	(void)pos; /* the next one: modules are added in order */
	if (!m)
		return -ENOMEM;
	g->mods = m;
	m[g->n_mods++] = (uint32_t)stored;
	return 0;
}

/* The modules and NIC counters of the wanted systems' ports from scan,
 * through the stored port indices put in temp.later_ports. */
static int later_phys_of(struct fab_store *st, const struct fab_rsrc *src, struct fab_roce *r,
			 const bool *which, int64_t scan, sqlite3_stmt *ins, struct later_phys *g)
{
	const struct fab_roce_place place = {
		.port = later_port, .module = later_module, .ctx = g,
		.mod_where = "fabric = 'eth' AND eth_port_idx IN (SELECT idx FROM temp.later_ports)",
		.nic_where = "port_idx IN (SELECT idx FROM temp.later_ports)",
	};
	int err;

	g->n = 0;
	if ((err = fab_store_exec(st, "DELETE FROM temp.later_ports", "choose the ports to read")))
		return err;
	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];
		if (p->system_idx >= r->n_systems || !later_wanted(r, which, p->system_idx) ||
		    r->systems[p->system_idx].stored_scan != scan)
			continue;
		struct later_port *e = grow(g->ports, &g->cap, g->n, sizeof(*e));
		if (!e)
			return NOMEM();
		g->ports = e;
		e[g->n++] = (struct later_port){ p->stored_idx, (uint32_t)i };
		sqlite3_bind_int64(ins, 1, p->stored_idx);
		err = fab_sql_step(st, ins, "a port to read");
	}
	if (err || !g->n)
		return err;
	qsort(g->ports, g->n, sizeof(*g->ports), cmp_later_port);
	return fab_roce_load_phys(src, r, scan, &place);
}

/* The physical layer of the wanted systems, from each scan they were left in. */
static int later_phys(struct fab_store *st, const struct fab_rsrc *src, struct fab_roce *r,
		      const bool *which)
{
	struct later_phys g = { 0 };
	size_t first = r->modules.n, n_done = 0, cap_done = 0;
	int64_t *done = NULL;
	sqlite3_stmt *ins = NULL;
	int err;

	if ((err = fab_store_exec(st, "CREATE TEMP TABLE IF NOT EXISTS later_ports(idx INTEGER PRIMARY KEY)",
				  "choose the ports to read")) ||
	    (err = fab_store_prepare(st, "INSERT OR IGNORE INTO temp.later_ports(idx) VALUES (?)", &ins)))
		goto out;
	/* each scan the systems were left in once (a delta's: it and its keyframe) */
	for (size_t i = 0; !err && i < r->n_systems; i++) {
		int64_t scan = r->systems[i].stored_scan, *d;
		bool seen = false;
		if (!later_wanted(r, which, i))
			continue;
		for (size_t k = 0; k < n_done && !seen; k++)
			seen = done[k] == scan;
		if (seen)
			continue;
		if (!(d = grow(done, &cap_done, n_done, sizeof(*d)))) {
			err = NOMEM();
			break;
		}
		done = d;
		done[n_done++] = scan;
		err = later_phys_of(st, src, r, which, scan, ins, &g);
	}
	if (!err)
		err = later_ids(r->delta ? &r->delta->mod : NULL, r->modules.n, first, g.mods, g.n_mods);
out:
	sqlite3_finalize(ins);
	if (!err)
		err = fab_store_exec(st, "DROP TABLE IF EXISTS temp.later_ports", "choose the ports to read");
	free(g.ports);
	free(g.mods);
	free(done);
	return err;
}

int fab_store_load_later(struct fab_store *st, struct fab_roce *r, const bool *which)
{
	struct fab_rsrc src = { .st = st, .path = fab_store_path(st) };
	struct ld l = { .src = &src, .r = r };
	struct later g = { .l = &l };
	size_t first = r->n_devices, first_port = r->n_rdma_ports;
	sqlite3_stmt *s = NULL;
	int rc = SQLITE_DONE, err;

	if ((err = fab_rquery_run(&src, &cset_query, 0, cset_row, &l)) ||
	    (err = fab_store_prepare(st,
		"SELECT d.device_idx, d.system_idx, d.device, d.node_guid, d.sys_image_guid,"
		" d.node_desc, d.fw_ver, d.hca_type, d.board_id, d.pci_address, d.pcie_speed_gts,"
		" d.pcie_width, d.pcie_max_speed_gts, d.pcie_max_width, p.device_idx, p.port_num,"
		" p.state, p.phys_state, p.rate, p.rate_gbps, p.link_layer, p.netdev, p.eth_port_idx,"
		" p.counter_set, p.counter_values FROM rdma_device_rows d LEFT JOIN rdma_port_rows p"
		" ON p.scan_id = d.scan_id AND p.device_idx = d.device_idx"
		" WHERE d.scan_id = ?1 AND d.system_idx = ?2 ORDER BY d.device_idx, p.port_num", &s)))
		goto out;
	for (size_t i = 0; !err && i < r->n_systems; i++) {
		struct fab_roce_system *y = &r->systems[i];

		if (!later_wanted(r, which, i))
			continue;
		sqlite3_bind_int64(s, 1, y->stored_scan);
		sqlite3_bind_int64(s, 2, y->stored_sys);
		g.sys = (uint32_t)i;
		g.dev = -1;
		while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW) {
			struct fab_rrow w = { .stmt = s };
			err = later_row(&w, &g);
		}
		if (!err && rc != SQLITE_DONE)
			break;
		sqlite3_reset(s);
	}
	err = fab_sql_done(st, s, rc, err);
	s = NULL;
	if (!err)
		err = later_ids(r->delta ? &r->delta->dev : NULL, r->n_devices, first, g.ids, g.n_ids);
	if (!err && fab_roce_map_netdevs(r, first_port))
		err = NOMEM();
	if (!err)
		err = later_phys(st, &src, r, which);
	for (size_t i = 0; !err && i < r->n_systems; i++)
		if (later_wanted(r, which, i))
			r->systems[i].stored_scan = 0;
out:
	sqlite3_finalize(s);
	ld_free(&l);
	free(g.ids);
	return err;
}
