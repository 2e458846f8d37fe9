// SPDX-License-Identifier: MIT
/*
 * Loading the RoCE part of a snapshot, inside the loader's read transaction
 * (store/snapshot_load.c). The 802.1Qaz data is decoded again from the raw
 * TLVs (lldp_tlvs); DCB data from the NIC is read back from its columns.
 * Relations: docs/schema.md, "RoCE and Ethernet".
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "store_priv.h"

#define NOMEM() fab_err(-ENOMEM, "out of memory loading a snapshot")

static bool col_null(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL;
}

static const char *col_dup(struct fab_roce *r, sqlite3_stmt *s, int i)
{
	return col_null(s, i) ? NULL : fab_roce_strdup(r, fab_sql_text(s, i));
}

static int gap(struct fab_store *st, int64_t scan, const char *what)
{
	return fab_err(-EPROTO, "database '%s': scan %lld has inconsistent %s",
		       fab_store_path(st), (long long)scan, what);
}

static void col_caps(sqlite3_stmt *s, int i, bool *has, uint16_t *avail, uint16_t *en)
{
	*has = !col_null(s, i + 1);
	*avail = (uint16_t)sqlite3_column_int(s, i + 1);
	*en = (uint16_t)sqlite3_column_int(s, i + 2);
}

static int load_systems(struct fab_store *st, struct fab_roce *r, int64_t scan)
{
	sqlite3_stmt *s;
	int rc, err = fab_sql_scan_query(st,
		"SELECT system_idx, system, chassis_id, chassis_id_subtype, description,"
		" mgmt_address, role, capabilities, cap_available, cap_enabled, collected,"
		" lldp, hostname, source, collected_at FROM systems WHERE scan_id=?1"
		" ORDER BY system_idx", scan, &s);

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_roce_system *y;

		if (sqlite3_column_int64(s, 0) != (int64_t)r->n_systems) {
			err = gap(st, scan, "systems");
			break;
		}
		if (!(y = fab_roce_add_system(r))) {
			err = NOMEM();
			break;
		}
		y->name = col_dup(r, s, 1);
		y->chassis_id = col_dup(r, s, 2);
		y->chassis_id_subtype = col_dup(r, s, 3);
		y->description = col_dup(r, s, 4);
		y->mgmt_address = col_dup(r, s, 5);
		int role = fab_role_parse(fab_sql_text(s, 6));
		y->role = (uint8_t)(role < 0 ? 0 : role);
		col_caps(s, 7, &y->has_caps, &y->cap_available, &y->cap_enabled);
		y->collected = sqlite3_column_int(s, 10);
		y->lldp = sqlite3_column_int(s, 11);
		y->hostname = col_dup(r, s, 12);
		y->source = col_dup(r, s, 13);
		if (!col_null(s, 14))
			fab_time_parse(fab_sql_text(s, 14), &y->collected_at_ms);
	}
	return fab_sql_done(st, s, rc, err);
}

/* DCB columns back into a dcbx (pfc at i: enabled, cap, mbc; apps i+3; ets i+4..) */
static int col_dcb(struct fab_roce *r, sqlite3_stmt *s, int i, struct fab_dcbx *d)
{
	memset(d, 0, sizeof(*d));
	if (!col_null(s, i)) {
		d->pfc.valid = true;
		d->pfc.enabled = (uint8_t)sqlite3_column_int(s, i);
		d->pfc.cap = (uint8_t)sqlite3_column_int(s, i + 1);
		d->pfc.mbc = sqlite3_column_int(s, i + 2) != 0;
	}
	if (!col_null(s, i + 3)) {
		struct fab_app_entry apps[FAB_DCB_MAX_APPS];
		size_t n;
		if (fab_app_parse(fab_sql_text(s, i + 3), apps, FAB_DCB_MAX_APPS, &n) == 0) {
			if (n > FAB_DCB_MAX_APPS)
				n = FAB_DCB_MAX_APPS;
			if (fab_roce_add_apps(r, apps, n, &d->app_first))
				return -ENOMEM;
			d->app_count = (uint32_t)n;
			d->app_valid = true;
		}
	}
	if (!col_null(s, i + 6) && fab_sql_prio_list_parse(fab_sql_text(s, i + 6), d->ets.prio_tc) &&
	    fab_sql_prio_list_parse(fab_sql_text(s, i + 7), d->ets.tc_bw) &&
	    fab_sql_tsa_parse(fab_sql_text(s, i + 8), d->ets.tsa)) {
		d->ets.valid = true;
		d->ets.willing = sqlite3_column_int(s, i + 4) != 0;
		d->ets.max_tcs = (uint8_t)sqlite3_column_int(s, i + 5);
	}
	return 0;
}

/* ECN columns (np, rp, cnp_dscp, cnp_priority at i..); out of range: unknown */
static void col_ecn(sqlite3_stmt *s, int i, struct fab_ecn *e)
{
	static const struct { uint8_t flag; int max; } cols[] = {
		{ FAB_ECN_NP, 255 }, { FAB_ECN_RP, 255 }, { FAB_ECN_CNP_DSCP, 63 },
		{ FAB_ECN_CNP_PRIO, FAB_PRIOS - 1 },
	};
	uint8_t *const field[] = { &e->np_enabled, &e->rp_enabled, &e->cnp_dscp, &e->cnp_prio };

	memset(e, 0, sizeof(*e));
	for (int k = 0; k < (int)ARRAY_SIZE(cols); k++) {
		int64_t v = sqlite3_column_int64(s, i + k);

		if (col_null(s, i + k) || v < 0 || v > cols[k].max)
			continue;
		*field[k] = (uint8_t)v;
		e->known |= cols[k].flag;
	}
}

static int load_eth_ports(struct fab_store *st, struct fab_roce *r, int64_t scan)
{
	sqlite3_stmt *s;
	int rc, err = fab_sql_scan_query(st,
		"SELECT port_idx, system_idx, ifname, mac, mtu, speed_mbps, state, sysfs, lldp,"
		" stub, port_id, port_id_subtype, port_descr, dcb_status, dcbx_mode,"
		" dcb_pfc_enabled, dcb_pfc_cap, dcb_pfc_mbc, dcb_app_entries, dcb_ets_willing,"
		" dcb_ets_max_tcs, dcb_ets_prio_tc, dcb_ets_tc_bw, dcb_ets_tsa,"
		" ecn_np_enabled, ecn_rp_enabled, cnp_dscp, cnp_priority, driver, stats_status,"
		" module_status FROM eth_port_rows WHERE scan_id=?1 ORDER BY port_idx", scan, &s);

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t sys = sqlite3_column_int64(s, 1);
		struct fab_eth_port *p;
		struct fab_dcbx dcb;

		if (sqlite3_column_int64(s, 0) != (int64_t)r->n_eth_ports || sys < 0 ||
		    (size_t)sys >= r->n_systems) {
			err = gap(st, scan, "Ethernet ports");
			break;
		}
		if (col_dcb(r, s, 15, &dcb) || !(p = fab_roce_add_eth_port(r, (uint32_t)sys))) {
			err = NOMEM();
			break;
		}
		p->ifname = col_dup(r, s, 2);
		p->mac = col_dup(r, s, 3);
		p->mtu = col_null(s, 4) ? 0 : (uint32_t)sqlite3_column_int64(s, 4);
		p->speed_mbps = col_null(s, 5) ? -1 : sqlite3_column_int(s, 5);
		p->state = col_dup(r, s, 6);
		p->flags = (uint8_t)((sqlite3_column_int(s, 7) ? FAB_ETH_F_SYSFS : 0) |
				     (sqlite3_column_int(s, 8) ? FAB_ETH_F_LLDP : 0) |
				     (sqlite3_column_int(s, 9) ? FAB_ETH_F_STUB : 0));
		p->port_id = col_dup(r, s, 10);
		p->port_id_subtype = col_dup(r, s, 11);
		p->port_descr = col_dup(r, s, 12);
		int ds = fab_dcb_status_parse(fab_sql_text(s, 13));
		p->dcb_status = (uint8_t)(ds < 0 ? FAB_DCB_NOT_QUERIED : ds);
		p->dcbx_mode = col_null(s, 14) ? -1 : (int16_t)sqlite3_column_int(s, 14);
		if (p->dcb_status == FAB_DCB_OK)
			p->dcb = dcb;
		col_ecn(s, 24, &p->ecn);
		p->driver = col_dup(r, s, 28);
		int es = fab_ethtool_status_parse(fab_sql_text(s, 29));
		p->stats_status = (uint8_t)(es < 0 ? FAB_ETHTOOL_NOT_QUERIED : es);
		es = fab_ethtool_status_parse(fab_sql_text(s, 30));
		p->module_status = (uint8_t)(es < 0 ? FAB_ETHTOOL_NOT_QUERIED : es);
	}
	return fab_sql_done(st, s, rc, err);
}

static int load_neighbors(struct fab_store *st, struct fab_roce *r, int64_t scan)
{
	sqlite3_stmt *s;
	int rc, err = fab_sql_scan_query(st,
		"SELECT neighbor_idx, port_idx, chassis_id, chassis_id_subtype, neighbor_system,"
		" neighbor_descr, neighbor_port_id, neighbor_port_id_subtype,"
		" neighbor_port_descr, mgmt_address, ttl, capabilities, cap_available,"
		" cap_enabled, remote_system_idx, remote_port_idx FROM lldp_neighbors"
		" WHERE scan_id=?1 ORDER BY neighbor_idx", scan, &s);

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t port = sqlite3_column_int64(s, 1);
		struct fab_lldp_neighbor *n;

		if (sqlite3_column_int64(s, 0) != (int64_t)r->n_neighbors || port < 0 ||
		    (size_t)port >= r->n_eth_ports) {
			err = gap(st, scan, "LLDP neighbours");
			break;
		}
		if (!(n = fab_roce_add_neighbor(r, (uint32_t)port))) {
			err = NOMEM();
			break;
		}
		n->chassis_id = col_dup(r, s, 2);
		n->chassis_id_subtype = col_dup(r, s, 3);
		n->system_name = col_dup(r, s, 4);
		n->system_descr = col_dup(r, s, 5);
		n->port_id = col_dup(r, s, 6);
		n->port_id_subtype = col_dup(r, s, 7);
		n->port_descr = col_dup(r, s, 8);
		n->mgmt_address = col_dup(r, s, 9);
		n->ttl = (uint32_t)sqlite3_column_int64(s, 10);
		col_caps(s, 11, &n->has_caps, &n->cap_available, &n->cap_enabled);
		int64_t rs = col_null(s, 14) ? -1 : sqlite3_column_int64(s, 14);
		int64_t rp = col_null(s, 15) ? -1 : sqlite3_column_int64(s, 15);
		if (rs >= 0 && (size_t)rs < r->n_systems && rp >= 0 && (size_t)rp < r->n_eth_ports) {
			n->remote_system_idx = (uint32_t)rs;
			n->remote_port_idx = (uint32_t)rp;
		}
	}
	return fab_sql_done(st, s, rc, err);
}

/* Raw TLVs back to their owners (rows of one owner are consecutive), then decode. */
static int load_tlvs(struct fab_store *st, struct fab_roce *r, int64_t scan)
{
	sqlite3_stmt *s;
	int rc, err = fab_sql_scan_query(st,
		"SELECT owner, owner_idx, oui, subtype, info FROM lldp_tlvs WHERE scan_id=?1"
		" ORDER BY rowid", scan, &s);

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		bool port = !strcmp(fab_sql_text(s, 0) ? fab_sql_text(s, 0) : "", "port");
		int64_t idx = sqlite3_column_int64(s, 1);
		unsigned a, b, c;
		uint32_t *first, *count;

		if (idx < 0 || (port ? (size_t)idx >= r->n_eth_ports : (size_t)idx >= r->n_neighbors) ||
		    !fab_sql_text(s, 2) || sscanf(fab_sql_text(s, 2), "%x-%x-%x", &a, &b, &c) != 3) {
			err = gap(st, scan, "LLDP TLVs");
			break;
		}
		if (port) {
			first = &r->eth_ports[idx].tlv_first;
			count = &r->eth_ports[idx].tlv_count;
		} else {
			first = &r->neighbors[idx].tlv_first;
			count = &r->neighbors[idx].tlv_count;
		}
		if (!*count)
			*first = (uint32_t)r->n_tlvs;
		else if (*first + *count != r->n_tlvs) {
			err = gap(st, scan, "LLDP TLVs");
			break;
		}
		int len = sqlite3_column_bytes(s, 4);
		const void *info = sqlite3_column_blob(s, 4);
		if ((err = fab_roce_add_tlv(r, (a & 0xff) << 16 | (b & 0xff) << 8 | (c & 0xff),
					    (unsigned)sqlite3_column_int(s, 3),
					    info ? info : "", info ? (size_t)len : 0))) {
			err = err == -ENOMEM ? NOMEM() : gap(st, scan, "LLDP TLVs");
			break;
		}
		(*count)++;
	}
	if ((err = fab_sql_done(st, s, rc, err)))
		return err;
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		struct fab_dcbx d;
		if (fab_roce_decode_tlvs(r, r->eth_ports[i].tlv_first, r->eth_ports[i].tlv_count, &d))
			return NOMEM();
		r->eth_ports[i].adv = d;
	}
	for (size_t i = 0; i < r->n_neighbors; i++) {
		struct fab_dcbx d;
		if (fab_roce_decode_tlvs(r, r->neighbors[i].tlv_first, r->neighbors[i].tlv_count, &d))
			return NOMEM();
		r->neighbors[i].dcbx = d;
	}
	return 0;
}

static int load_links(struct fab_store *st, struct fab_roce *r, int64_t scan)
{
	sqlite3_stmt *s;
	int rc, err = fab_sql_scan_query(st,
		"SELECT a_port_idx, b_port_idx, a_heard_b, b_heard_a FROM eth_links"
		" WHERE scan_id=?1 ORDER BY rowid", scan, &s);

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(s, 0), b = sqlite3_column_int64(s, 1);

		if (a < 0 || b < 0 || (size_t)a >= r->n_eth_ports || (size_t)b >= r->n_eth_ports) {
			err = gap(st, scan, "Ethernet links");
			break;
		}
		struct fab_eth_link *l = fab_roce_add_link(r);
		if (!l) {
			err = NOMEM();
			break;
		}
		l->a = (uint32_t)a;
		l->b = (uint32_t)b;
		l->heard = (uint8_t)((sqlite3_column_int(s, 2) ? FAB_LINK_A_HEARD_B : 0) |
				     (sqlite3_column_int(s, 3) ? FAB_LINK_B_HEARD_A : 0));
	}
	return fab_sql_done(st, s, rc, err);
}

static int load_rdma(struct fab_store *st, struct fab_roce *r, int64_t scan)
{
	sqlite3_stmt *s;
	int rc, err = fab_sql_scan_query(st,
		"SELECT device_idx, system_idx, device, node_guid, sys_image_guid, node_desc,"
		" fw_ver, hca_type, board_id, pci_address, pcie_speed_gts, pcie_width,"
		" pcie_max_speed_gts, pcie_max_width FROM rdma_devices WHERE scan_id=?1"
		" ORDER BY device_idx", scan, &s);

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t sys = sqlite3_column_int64(s, 1);
		struct fab_rdma_device *d;

		if (sqlite3_column_int64(s, 0) != (int64_t)r->n_devices || sys < 0 ||
		    (size_t)sys >= r->n_systems) {
			err = gap(st, scan, "RDMA devices");
			break;
		}
		if (!(d = fab_roce_add_device(r, (uint32_t)sys))) {
			err = NOMEM();
			break;
		}
		d->name = col_dup(r, s, 2);
		if (!col_null(s, 3))
			fab_guid_parse(fab_sql_text(s, 3), &d->node_guid);
		if (!col_null(s, 4))
			fab_guid_parse(fab_sql_text(s, 4), &d->sys_image_guid);
		d->node_desc = col_dup(r, s, 5);
		d->fw_ver = col_dup(r, s, 6);
		d->hca_type = col_dup(r, s, 7);
		d->board_id = col_dup(r, s, 8);
		d->pci_address = col_dup(r, s, 9);
		d->pcie_speed_gts = sqlite3_column_double(s, 10);
		d->pcie_width = (uint8_t)sqlite3_column_int(s, 11);
		d->pcie_max_speed_gts = sqlite3_column_double(s, 12);
		d->pcie_max_width = (uint8_t)sqlite3_column_int(s, 13);
	}
	if ((err = fab_sql_done(st, s, rc, err)))
		return err;

	if ((err = fab_sql_scan_query(st,
		"SELECT device_idx, port_num, state, phys_state, rate, rate_gbps, link_layer,"
		" netdev, eth_port_idx FROM rdma_port_rows WHERE scan_id=?1"
		" ORDER BY device_idx, port_num", scan, &s)))
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t dev = sqlite3_column_int64(s, 0);
		struct fab_rdma_port *p;

		if (dev < 0 || (size_t)dev >= r->n_devices ||
		    (r->n_rdma_ports && r->rdma_ports[r->n_rdma_ports - 1].device_idx > dev)) {
			err = gap(st, scan, "RDMA ports");
			break;
		}
		if (!(p = fab_roce_add_rdma_port(r, (uint32_t)dev))) {
			err = NOMEM();
			break;
		}
		p->port_num = (uint8_t)sqlite3_column_int(s, 1);
		int v = fab_state_parse(fab_sql_text(s, 2));
		p->state = (uint8_t)(v < 0 ? 0 : v);
		v = fab_phys_state_parse(fab_sql_text(s, 3));
		p->phys_state = (uint8_t)(v < 0 ? 0 : v);
		p->rate = col_dup(r, s, 4);
		p->rate_gbps = sqlite3_column_double(s, 5);
		p->link_layer = col_dup(r, s, 6);
		p->netdev = col_dup(r, s, 7);
		int64_t e = col_null(s, 8) ? -1 : sqlite3_column_int64(s, 8);
		if (e >= 0 && (size_t)e < r->n_eth_ports) {
			p->eth_port_idx = (uint32_t)e;
			r->eth_ports[e].rdma_port_idx = (uint32_t)(r->n_rdma_ports - 1);
		}
	}
	if ((err = fab_sql_done(st, s, rc, err)))
		return err;

	if ((err = fab_sql_scan_query(st,
		"SELECT device_idx, port_num, kind, counter, value FROM rdma_counters"
		" WHERE scan_id=?1 ORDER BY rowid", scan, &s)))
		return err;
	uint32_t last = FAB_NONE;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t dev = sqlite3_column_int64(s, 0);
		unsigned num = (unsigned)sqlite3_column_int(s, 1);
		uint32_t pi = FAB_NONE;

		if (dev < 0 || (size_t)dev >= r->n_devices) {
			err = gap(st, scan, "RDMA counters");
			break;
		}
		const struct fab_rdma_device *d = &r->devices[dev];
		for (uint32_t k = 0; k < d->port_count && pi == FAB_NONE; k++)
			if (r->rdma_ports[d->port_first + k].port_num == num)
				pi = d->port_first + k;
		/* counters of one port are contiguous and ports come in order */
		if (pi == FAB_NONE || (last != FAB_NONE && pi < last) ||
		    (pi != last && r->rdma_ports[pi].ctr_count)) {
			err = gap(st, scan, "RDMA counters");
			break;
		}
		last = pi;
		int kind = fab_rdma_ctr_kind_parse(fab_sql_text(s, 2));
		if ((err = fab_roce_add_counter(r, pi, (unsigned)(kind < 0 ? 0 : kind),
						fab_sql_text(s, 3) ? fab_sql_text(s, 3) : "?",
						(uint64_t)sqlite3_column_int64(s, 4)))) {
			err = NOMEM();
			break;
		}
	}
	return fab_sql_done(st, s, rc, err);
}

int fab_store_load_roce(struct fab_store *st, struct fab_snapshot *snap)
{
	struct fab_roce *r = fab_roce_new();
	int64_t scan = snap->scan_id;
	int err;

	if (!r)
		return NOMEM();
	if ((err = load_systems(st, r, scan)))
		goto out;
	if (!r->n_systems)
		goto out; /* no RoCE part */
	if ((err = load_eth_ports(st, r, scan)) || (err = load_neighbors(st, r, scan)) ||
	    (err = load_tlvs(st, r, scan)) || (err = load_links(st, r, scan)) ||
	    (err = load_rdma(st, r, scan)) || (err = fab_store_load_phys_eth(st, r, scan)))
		goto out;
	fab_roce_free(snap->roce);
	snap->roce = r;
	return 0;
out:
	fab_roce_free(r);
	return err;
}
