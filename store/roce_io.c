// SPDX-License-Identifier: MIT
/*
 * The RoCE part of a snapshot in the store: written inside
 * fab_store_write_scan()'s transaction, loaded inside fab_store_load_scan()'s
 * read transaction. Relations: docs/schema.md, "RoCE and Ethernet".
 *
 * 802.1Qaz data is stored twice: decoded into columns for SQL users, and
 * as the raw TLVs (lldp_tlvs), from which loading decodes it again, so a
 * loaded snapshot is what the decoders make of the bytes. DCB data from
 * the NIC has no raw form and is read back from its columns.
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

/* ---- value formats ------------------------------------------------------ */

static void u8list_format(const uint8_t v[FAB_PRIOS], char *buf, size_t cap)
{
	snprintf(buf, cap, "%u,%u,%u,%u,%u,%u,%u,%u", v[0], v[1], v[2], v[3], v[4],
		 v[5], v[6], v[7]);
}

static bool u8list_parse(const char *s, uint8_t v[FAB_PRIOS])
{
	for (unsigned i = 0; s && i < FAB_PRIOS; i++) {
		char *end;
		unsigned long x = strtoul(s, &end, 10);
		if (end == s || x > 255 || (i < FAB_PRIOS - 1 ? *end != ',' : *end != '\0'))
			return false;
		v[i] = (uint8_t)x;
		s = end + 1;
	}
	return s != NULL;
}

static void tsa_format(const uint8_t v[FAB_PRIOS], char *buf, size_t cap)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < FAB_PRIOS && off < cap; i++) {
		const char *n = fab_tsa_name(v[i]);
		int k = n ? snprintf(buf + off, cap - off, "%s%s", i ? "," : "", n)
			  : snprintf(buf + off, cap - off, "%s%u", i ? "," : "", v[i]);
		if (k > 0)
			off += (size_t)k;
	}
}

static bool tsa_parse(const char *s, uint8_t v[FAB_PRIOS])
{
	static const uint8_t known[] = { FAB_TSA_STRICT, FAB_TSA_CBS, FAB_TSA_ETS,
					 FAB_TSA_VENDOR };

	for (unsigned i = 0; s && i < FAB_PRIOS; i++) {
		size_t n = strcspn(s, ",");
		bool ok = false;
		for (unsigned k = 0; k < sizeof(known) && !ok; k++) {
			const char *name = fab_tsa_name(known[k]);
			if (strlen(name) == n && !strncmp(s, name, n)) {
				v[i] = known[k];
				ok = true;
			}
		}
		if (!ok) {
			char *end;
			unsigned long x = strtoul(s, &end, 10);
			if (end != s + n || x > 255)
				return false;
			v[i] = (uint8_t)x;
		}
		if ((i < FAB_PRIOS - 1) != (s[n] == ','))
			return false;
		s += n + 1;
	}
	return s != NULL;
}

/* ---- writing ------------------------------------------------------------ */

static void bind_caps(sqlite3_stmt *s, int i, bool has, unsigned avail, unsigned en)
{
	char buf[96];

	if (!has)
		return;
	fab_lldp_caps_format(en, buf, sizeof(buf));
	sqlite3_bind_text(s, i, buf, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, i + 1, (int)avail);
	sqlite3_bind_int(s, i + 2, (int)en);
}

/* Application entries as text; NULL when there was no table. */
static int bind_apps(sqlite3_stmt *s, int i, const struct fab_roce *r,
		     const struct fab_dcbx *d)
{
	if (!d->app_valid)
		return 0;
	if (d->app_first + d->app_count > r->n_apps)
		return -EINVAL;
	const struct fab_app_entry *e = d->app_count ? &r->apps[d->app_first] : NULL;
	size_t need = fab_app_format(e, d->app_count, NULL, 0) + 1;
	char *buf = malloc(need);
	if (!buf)
		return -ENOMEM;
	fab_app_format(e, d->app_count, buf, need);
	sqlite3_bind_text(s, i, buf, -1, SQLITE_TRANSIENT);
	free(buf);
	return 0;
}

/* willing, max_tcs, prio_tc, tc_bw, tsa at i.. (willing/max_tcs when cfg) */
static void bind_ets(sqlite3_stmt *s, int i, const struct fab_ets *e, bool cfg)
{
	char buf[64];

	if (!e->valid)
		return;
	if (cfg) {
		sqlite3_bind_int(s, i++, e->willing);
		sqlite3_bind_int(s, i++, e->max_tcs);
	}
	u8list_format(e->prio_tc, buf, sizeof(buf));
	sqlite3_bind_text(s, i++, buf, -1, SQLITE_TRANSIENT);
	u8list_format(e->tc_bw, buf, sizeof(buf));
	sqlite3_bind_text(s, i++, buf, -1, SQLITE_TRANSIENT);
	tsa_format(e->tsa, buf, sizeof(buf));
	sqlite3_bind_text(s, i, buf, -1, SQLITE_TRANSIENT);
}

/* 15 columns: pfc (enabled, willing, mbc, cap), apps, ets cfg (5), reco (3), bad */
static int bind_lldp_dcbx(sqlite3_stmt *s, int i, const struct fab_roce *r,
			  const struct fab_dcbx *d)
{
	if (d->pfc.valid) {
		sqlite3_bind_int(s, i, d->pfc.enabled);
		sqlite3_bind_int(s, i + 1, d->pfc.willing);
		sqlite3_bind_int(s, i + 2, d->pfc.mbc);
		sqlite3_bind_int(s, i + 3, d->pfc.cap);
	}
	bind_ets(s, i + 5, &d->ets, true);
	bind_ets(s, i + 10, &d->ets_reco, false);
	sqlite3_bind_int(s, i + 13, d->bad_tlvs);
	return bind_apps(s, i + 4, r, d);
}

static int write_systems(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO systems(scan_id, system_idx, system, chassis_id,"
		" chassis_id_subtype, description, mgmt_address, role, capabilities,"
		" cap_available, cap_enabled, collected, lldp, hostname, source, collected_at)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < r->n_systems; i++) {
		const struct fab_roce_system *y = &r->systems[i];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		fab_sql_bind_text(s, 3, y->name ? y->name : "?");
		fab_sql_bind_text(s, 4, y->chassis_id);
		fab_sql_bind_text(s, 5, y->chassis_id_subtype);
		fab_sql_bind_text(s, 6, y->description);
		fab_sql_bind_text(s, 7, y->mgmt_address);
		fab_sql_bind_text(s, 8, fab_role_name(y->role));
		bind_caps(s, 9, y->has_caps, y->cap_available, y->cap_enabled);
		sqlite3_bind_int(s, 12, y->collected);
		sqlite3_bind_int(s, 13, y->lldp);
		fab_sql_bind_text(s, 14, y->hostname);
		fab_sql_bind_text(s, 15, y->source);
		fab_sql_bind_time(s, 16, y->collected_at_ms);
		err = fab_sql_step(st, s, "a system");
	}
	sqlite3_finalize(s);
	return err;
}

static const char *sysname(const struct fab_roce *r, uint32_t i)
{
	return i < r->n_systems && r->systems[i].name ? r->systems[i].name : "?";
}

static int write_eth_ports(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO eth_port_rows(scan_id, port_idx, system_idx, system, ifname,"
		" mac, mtu, speed_mbps, state, sysfs, lldp, stub, port_id, port_id_subtype,"
		" port_descr, lldp_pfc_enabled, lldp_pfc_willing, lldp_pfc_mbc, lldp_pfc_cap,"
		" lldp_app_entries, lldp_ets_willing, lldp_ets_max_tcs, lldp_ets_prio_tc,"
		" lldp_ets_tc_bw, lldp_ets_tsa, lldp_reco_prio_tc, lldp_reco_tc_bw,"
		" lldp_reco_tsa, lldp_bad_tlvs, dcb_status, dcbx_mode, dcb_pfc_enabled,"
		" dcb_pfc_cap, dcb_pfc_mbc, dcb_app_entries, dcb_ets_willing, dcb_ets_max_tcs,"
		" dcb_ets_prio_tc, dcb_ets_tc_bw, dcb_ets_tsa, rdma_device, rdma_port)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		"?,?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		sqlite3_bind_int64(s, 3, p->system_idx);
		fab_sql_bind_text(s, 4, sysname(r, p->system_idx));
		fab_sql_bind_text(s, 5, p->ifname ? p->ifname : "?");
		fab_sql_bind_text(s, 6, p->mac);
		if (p->mtu)
			sqlite3_bind_int64(s, 7, p->mtu);
		if (p->speed_mbps >= 0)
			sqlite3_bind_int(s, 8, p->speed_mbps);
		fab_sql_bind_text(s, 9, p->state);
		sqlite3_bind_int(s, 10, !!(p->flags & FAB_ETH_F_SYSFS));
		sqlite3_bind_int(s, 11, !!(p->flags & FAB_ETH_F_LLDP));
		sqlite3_bind_int(s, 12, !!(p->flags & FAB_ETH_F_STUB));
		fab_sql_bind_text(s, 13, p->port_id);
		fab_sql_bind_text(s, 14, p->port_id_subtype);
		fab_sql_bind_text(s, 15, p->port_descr);
		if ((err = bind_lldp_dcbx(s, 16, r, &p->adv)))
			break;
		fab_sql_bind_text(s, 30, fab_dcb_status_name(p->dcb_status));
		if (p->dcbx_mode >= 0)
			sqlite3_bind_int(s, 31, p->dcbx_mode);
		if (p->dcb_status == FAB_DCB_OK) {
			if (p->dcb.pfc.valid) {
				sqlite3_bind_int(s, 32, p->dcb.pfc.enabled);
				sqlite3_bind_int(s, 33, p->dcb.pfc.cap);
				sqlite3_bind_int(s, 34, p->dcb.pfc.mbc);
			}
			if ((err = bind_apps(s, 35, r, &p->dcb)))
				break;
			bind_ets(s, 36, &p->dcb.ets, true);
		}
		if (p->rdma_port_idx < r->n_rdma_ports) {
			const struct fab_rdma_port *q = &r->rdma_ports[p->rdma_port_idx];
			fab_sql_bind_text(s, 41, r->devices[q->device_idx].name);
			sqlite3_bind_int(s, 42, q->port_num);
		}
		err = fab_sql_step(st, s, "an Ethernet port");
	}
	if (err == -EINVAL || err == -ENOMEM)
		err = fab_err(err, "snapshot has inconsistent application entries");
	sqlite3_finalize(s);
	return err;
}

static int write_neighbors(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO lldp_neighbors(scan_id, neighbor_idx, port_idx, system, ifname,"
		" chassis_id, chassis_id_subtype, neighbor_system, neighbor_descr,"
		" neighbor_port_id, neighbor_port_id_subtype, neighbor_port_descr,"
		" mgmt_address, ttl, capabilities, cap_available, cap_enabled,"
		" pfc_enabled, pfc_willing, pfc_mbc, pfc_cap, app_entries, ets_willing,"
		" ets_max_tcs, ets_prio_tc, ets_tc_bw, ets_tsa, reco_prio_tc, reco_tc_bw,"
		" reco_tsa, bad_tlvs, neighbor_ifname, neighbor_collected,"
		" remote_system_idx, remote_port_idx)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		&s);

	for (size_t i = 0; !err && i < r->n_neighbors; i++) {
		const struct fab_lldp_neighbor *n = &r->neighbors[i];
		const struct fab_eth_port *p = &r->eth_ports[n->port_idx];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		sqlite3_bind_int64(s, 3, n->port_idx);
		fab_sql_bind_text(s, 4, sysname(r, p->system_idx));
		fab_sql_bind_text(s, 5, p->ifname ? p->ifname : "?");
		fab_sql_bind_text(s, 6, n->chassis_id);
		fab_sql_bind_text(s, 7, n->chassis_id_subtype);
		fab_sql_bind_text(s, 8, n->system_name);
		fab_sql_bind_text(s, 9, n->system_descr);
		fab_sql_bind_text(s, 10, n->port_id);
		fab_sql_bind_text(s, 11, n->port_id_subtype);
		fab_sql_bind_text(s, 12, n->port_descr);
		fab_sql_bind_text(s, 13, n->mgmt_address);
		sqlite3_bind_int64(s, 14, n->ttl);
		bind_caps(s, 15, n->has_caps, n->cap_available, n->cap_enabled);
		if ((err = bind_lldp_dcbx(s, 18, r, &n->dcbx)))
			break;
		if (n->remote_port_idx < r->n_eth_ports) {
			const struct fab_eth_port *q = &r->eth_ports[n->remote_port_idx];
			fab_sql_bind_text(s, 32, q->ifname);
			sqlite3_bind_int(s, 33, r->systems[q->system_idx].collected);
			sqlite3_bind_int64(s, 34, n->remote_system_idx);
			sqlite3_bind_int64(s, 35, n->remote_port_idx);
		}
		err = fab_sql_step(st, s, "an LLDP neighbour");
	}
	if (err == -EINVAL || err == -ENOMEM)
		err = fab_err(err, "snapshot has inconsistent application entries");
	sqlite3_finalize(s);
	return err;
}

static int write_links(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO eth_links(scan_id, a_system, a_ifname, b_system, b_ifname,"
		" a_heard_b, b_heard_a, a_port_idx, b_port_idx) VALUES (?,?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];
		const struct fab_eth_port *a = &r->eth_ports[l->a], *b = &r->eth_ports[l->b];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		fab_sql_bind_text(s, 2, sysname(r, a->system_idx));
		fab_sql_bind_text(s, 3, a->ifname ? a->ifname : "?");
		fab_sql_bind_text(s, 4, sysname(r, b->system_idx));
		fab_sql_bind_text(s, 5, b->ifname ? b->ifname : "?");
		sqlite3_bind_int(s, 6, !!(l->heard & FAB_LINK_A_HEARD_B));
		sqlite3_bind_int(s, 7, !!(l->heard & FAB_LINK_B_HEARD_A));
		sqlite3_bind_int64(s, 8, l->a);
		sqlite3_bind_int64(s, 9, l->b);
		err = fab_sql_step(st, s, "an Ethernet link");
	}
	sqlite3_finalize(s);
	return err;
}

static int write_tlv_range(struct fab_store *st, sqlite3_stmt *s, const struct fab_snapshot *snap,
			   const char *owner, size_t idx, const struct fab_eth_port *p,
			   uint32_t first, uint32_t count)
{
	const struct fab_roce *r = snap->roce;
	int err = 0;

	for (uint32_t k = first; !err && k < first + count && k < r->n_tlvs; k++) {
		const struct fab_lldp_tlv *t = &r->tlvs[k];
		char oui[16];

		snprintf(oui, sizeof(oui), "%02x-%02x-%02x", t->oui >> 16 & 0xff,
			 t->oui >> 8 & 0xff, t->oui & 0xff);
		sqlite3_bind_int64(s, 1, snap->scan_id);
		fab_sql_bind_text(s, 2, owner);
		sqlite3_bind_int64(s, 3, (int64_t)idx);
		fab_sql_bind_text(s, 4, sysname(r, p->system_idx));
		fab_sql_bind_text(s, 5, p->ifname);
		fab_sql_bind_text(s, 6, oui);
		sqlite3_bind_int(s, 7, t->subtype);
		sqlite3_bind_blob(s, 8, t->len ? (const void *)t->info : "", t->len,
				  SQLITE_TRANSIENT);
		err = fab_sql_step(st, s, "an LLDP TLV");
	}
	return err;
}

static int write_tlvs(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO lldp_tlvs(scan_id, owner, owner_idx, system, ifname, oui,"
		" subtype, info) VALUES (?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < r->n_eth_ports; i++)
		err = write_tlv_range(st, s, snap, "port", i, &r->eth_ports[i],
				      r->eth_ports[i].tlv_first, r->eth_ports[i].tlv_count);
	for (size_t i = 0; !err && i < r->n_neighbors; i++)
		err = write_tlv_range(st, s, snap, "neighbor", i,
				      &r->eth_ports[r->neighbors[i].port_idx],
				      r->neighbors[i].tlv_first, r->neighbors[i].tlv_count);
	sqlite3_finalize(s);
	return err;
}

static int write_rdma(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *d = NULL, *p = NULL, *c = NULL;
	int err = fab_store_prepare(st,
		"INSERT INTO rdma_devices(scan_id, device_idx, system_idx, system, device,"
		" node_guid, sys_image_guid, node_desc, fw_ver, hca_type, board_id,"
		" pci_address, pcie_speed_gts, pcie_width, pcie_max_speed_gts,"
		" pcie_max_width) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &d);

	if (!err)
		err = fab_store_prepare(st,
			"INSERT INTO rdma_port_rows(scan_id, device_idx, port_num, system, device,"
			" state, phys_state, rate, rate_gbps, link_layer, netdev, eth_port_idx)"
			" VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", &p);
	if (!err)
		err = fab_store_prepare(st,
			"INSERT INTO rdma_counters(scan_id, device_idx, port_num, system, device,"
			" kind, counter, value) VALUES (?,?,?,?,?,?,?,?)", &c);
	for (size_t i = 0; !err && i < r->n_devices; i++) {
		const struct fab_rdma_device *v = &r->devices[i];
		const char *sys = sysname(r, v->system_idx);

		sqlite3_bind_int64(d, 1, snap->scan_id);
		sqlite3_bind_int64(d, 2, (int64_t)i);
		sqlite3_bind_int64(d, 3, v->system_idx);
		fab_sql_bind_text(d, 4, sys);
		fab_sql_bind_text(d, 5, v->name ? v->name : "?");
		fab_sql_bind_guid_opt(d, 6, v->node_guid);
		fab_sql_bind_guid_opt(d, 7, v->sys_image_guid);
		fab_sql_bind_text(d, 8, v->node_desc);
		fab_sql_bind_text(d, 9, v->fw_ver);
		fab_sql_bind_text(d, 10, v->hca_type);
		fab_sql_bind_text(d, 11, v->board_id);
		fab_sql_bind_text(d, 12, v->pci_address);
		if (v->pcie_speed_gts > 0)
			sqlite3_bind_double(d, 13, v->pcie_speed_gts);
		if (v->pcie_width)
			sqlite3_bind_int(d, 14, v->pcie_width);
		if (v->pcie_max_speed_gts > 0)
			sqlite3_bind_double(d, 15, v->pcie_max_speed_gts);
		if (v->pcie_max_width)
			sqlite3_bind_int(d, 16, v->pcie_max_width);
		err = fab_sql_step(st, d, "an RDMA device");
		for (uint32_t k = 0; !err && k < v->port_count; k++) {
			const struct fab_rdma_port *q = &r->rdma_ports[v->port_first + k];

			sqlite3_bind_int64(p, 1, snap->scan_id);
			sqlite3_bind_int64(p, 2, (int64_t)i);
			sqlite3_bind_int(p, 3, q->port_num);
			fab_sql_bind_text(p, 4, sys);
			fab_sql_bind_text(p, 5, v->name ? v->name : "?");
			fab_sql_bind_text(p, 6, fab_state_name(q->state));
			fab_sql_bind_text(p, 7, fab_phys_state_name(q->phys_state));
			fab_sql_bind_text(p, 8, q->rate);
			if (q->rate_gbps > 0)
				sqlite3_bind_double(p, 9, q->rate_gbps);
			fab_sql_bind_text(p, 10, q->link_layer);
			fab_sql_bind_text(p, 11, q->netdev);
			if (q->eth_port_idx != FAB_NONE)
				sqlite3_bind_int64(p, 12, q->eth_port_idx);
			err = fab_sql_step(st, p, "an RDMA port");
			for (uint32_t j = 0; !err && j < q->ctr_count; j++) {
				const struct fab_rdma_counter *t = &r->counters[q->ctr_first + j];

				sqlite3_bind_int64(c, 1, snap->scan_id);
				sqlite3_bind_int64(c, 2, (int64_t)i);
				sqlite3_bind_int(c, 3, q->port_num);
				fab_sql_bind_text(c, 4, sys);
				fab_sql_bind_text(c, 5, v->name ? v->name : "?");
				fab_sql_bind_text(c, 6, fab_rdma_ctr_kind_name(t->kind));
				fab_sql_bind_text(c, 7, t->name);
				/* stored as SQLite's signed 64-bit: values >= 2^63 wrap */
				sqlite3_bind_int64(c, 8, (int64_t)t->value);
				err = fab_sql_step(st, c, "an RDMA counter");
			}
		}
	}
	sqlite3_finalize(d);
	sqlite3_finalize(p);
	sqlite3_finalize(c);
	return err;
}

int fab_store_write_roce(struct fab_store *st, const struct fab_snapshot *snap)
{
	int err;

	if (!snap->roce)
		return 0;
	if ((err = write_systems(st, snap)) || (err = write_eth_ports(st, snap)) ||
	    (err = write_neighbors(st, snap)) || (err = write_links(st, snap)) ||
	    (err = write_tlvs(st, snap)) || (err = write_rdma(st, snap)))
		return err;
	return 0;
}

/* ---- loading ------------------------------------------------------------ */

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
	if (!col_null(s, i + 6) && u8list_parse(fab_sql_text(s, i + 6), d->ets.prio_tc) &&
	    u8list_parse(fab_sql_text(s, i + 7), d->ets.tc_bw) &&
	    tsa_parse(fab_sql_text(s, i + 8), d->ets.tsa)) {
		d->ets.valid = true;
		d->ets.willing = sqlite3_column_int(s, i + 4) != 0;
		d->ets.max_tcs = (uint8_t)sqlite3_column_int(s, i + 5);
	}
	return 0;
}

static int load_eth_ports(struct fab_store *st, struct fab_roce *r, int64_t scan)
{
	sqlite3_stmt *s;
	int rc, err = fab_sql_scan_query(st,
		"SELECT port_idx, system_idx, ifname, mac, mtu, speed_mbps, state, sysfs, lldp,"
		" stub, port_id, port_id_subtype, port_descr, dcb_status, dcbx_mode,"
		" dcb_pfc_enabled, dcb_pfc_cap, dcb_pfc_mbc, dcb_app_entries, dcb_ets_willing,"
		" dcb_ets_max_tcs, dcb_ets_prio_tc, dcb_ets_tc_bw, dcb_ets_tsa"
		" FROM eth_port_rows WHERE scan_id=?1 ORDER BY port_idx", scan, &s);

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
	    (err = load_rdma(st, r, scan)))
		goto out;
	fab_roce_free(snap->roce);
	snap->roce = r;
	return 0;
out:
	fab_roce_free(r);
	return err;
}
