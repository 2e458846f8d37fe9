// SPDX-License-Identifier: MIT
/*
 * Writing the RoCE part of a snapshot, inside fab_store_write_scan()'s
 * transaction (loading it: roce_load.c). Relations: docs/schema.md, "RoCE
 * and Ethernet".
 *
 * 802.1Qaz data is stored twice: decoded into columns for SQL users, and
 * as the raw TLVs (lldp_tlvs: a set shared by the owners that sent or heard
 * the same ones, roce_sets.c), from which loading decodes it again, so a
 * loaded snapshot is what the decoders make of the bytes. DCB data from
 * the NIC has no raw form and is read back from its columns. A port's RDMA
 * counters are one row (their names a shared set, the values a JSON array).
 */
#include <errno.h>
#include <sqlite3.h>
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
#include "store_priv.h"

/*
 * The texts of a dcbx (application entries, ETS lists) and of capabilities,
 * formatted again only when they differ from the row before: a fleet's
 * ports advertise the same few, and formatting each anew costs more than
 * the rest of the row. One per column group; bound without a copy.
 */
struct dcbx_text {
	bool set;
	struct fab_dcbx d;
	const struct fab_app_entry *apps; /* the entries d's range held */
	char *app;                        /* NULL: no table */
	size_t app_cap;
	char ets[3][64], reco[3][64];
};

struct caps_text {
	bool set;
	unsigned en;
	char text[96];
};

struct texts {
	struct dcbx_text adv, dcb, nb;
	struct caps_text sys_caps, nb_caps;
};

static void texts_free(struct texts *t)
{
	free(t->adv.app);
	free(t->dcb.app);
	free(t->nb.app);
}

static void bind_caps(sqlite3_stmt *s, int i, struct caps_text *c, bool has, unsigned avail,
		      unsigned en)
{
	if (!has)
		return;
	if (!c->set || c->en != en) {
		fab_lldp_caps_format(en, c->text, sizeof(c->text));
		c->en = en;
		c->set = true;
	}
	sqlite3_bind_text(s, i, c->text, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, i + 1, (int)avail);
	sqlite3_bind_int(s, i + 2, (int)en);
}

static void ets_text(const struct fab_ets *e, char out[3][64])
{
	fab_sql_prio_list_format(e->prio_tc, out[0], 64);
	fab_sql_prio_list_format(e->tc_bw, out[1], 64);
	fab_sql_tsa_format(e->tsa, out[2], 64);
}

/* t's texts for d (application entries of r); -EINVAL, -ENOMEM. */
static int dcbx_text(struct dcbx_text *t, const struct fab_roce *r, const struct fab_dcbx *d)
{
	if (d->app_valid && (d->app_first > r->n_apps || d->app_count > r->n_apps - d->app_first))
		return -EINVAL;
	const struct fab_app_entry *e = d->app_count ? &r->apps[d->app_first] : NULL;
	if (t->set && !memcmp(&t->d, d, sizeof(*d)) && t->apps == e)
		return 0;
	t->set = false;
	if (d->app_valid) {
		size_t need = fab_app_format(e, d->app_count, NULL, 0) + 1;
		if (need > t->app_cap) {
			char *b = realloc(t->app, need);
			if (!b)
				return -ENOMEM;
			t->app = b;
			t->app_cap = need;
		}
		fab_app_format(e, d->app_count, t->app, need);
	}
	if (d->ets.valid)
		ets_text(&d->ets, t->ets);
	if (d->ets_reco.valid)
		ets_text(&d->ets_reco, t->reco);
	memcpy(&t->d, d, sizeof(*d));
	t->apps = e;
	t->set = true;
	return 0;
}

/* willing, max_tcs, prio_tc, tc_bw, tsa at i.. (willing/max_tcs when cfg) */
static void bind_ets(sqlite3_stmt *s, int i, const struct fab_ets *e, char text[3][64], bool cfg)
{
	if (!e->valid)
		return;
	if (cfg) {
		sqlite3_bind_int(s, i++, e->willing);
		sqlite3_bind_int(s, i++, e->max_tcs);
	}
	for (int k = 0; k < 3; k++)
		sqlite3_bind_text(s, i + k, text[k], -1, SQLITE_STATIC);
}

/* 15 columns: pfc (enabled, willing, mbc, cap), apps, ets cfg (5), reco (3), bad */
static int bind_lldp_dcbx(sqlite3_stmt *s, int i, struct dcbx_text *t, const struct fab_roce *r,
			  const struct fab_dcbx *d)
{
	int err = dcbx_text(t, r, d);

	if (err)
		return err;
	if (d->pfc.valid) {
		sqlite3_bind_int(s, i, d->pfc.enabled);
		sqlite3_bind_int(s, i + 1, d->pfc.willing);
		sqlite3_bind_int(s, i + 2, d->pfc.mbc);
		sqlite3_bind_int(s, i + 3, d->pfc.cap);
	}
	if (d->app_valid)
		sqlite3_bind_text(s, i + 4, t->app, -1, SQLITE_STATIC);
	bind_ets(s, i + 5, &d->ets, t->ets, true);
	bind_ets(s, i + 10, &d->ets_reco, t->reco, false);
	sqlite3_bind_int(s, i + 13, d->bad_tlvs);
	return 0;
}

/* 4 columns: ECN np and rp bitmaps, CNP DSCP and priority; NULL unknown */
static void bind_ecn(sqlite3_stmt *s, int i, const struct fab_ecn *e)
{
	if (e->known & FAB_ECN_NP)
		sqlite3_bind_int(s, i, e->np_enabled);
	if (e->known & FAB_ECN_RP)
		sqlite3_bind_int(s, i + 1, e->rp_enabled);
	if (e->known & FAB_ECN_CNP_DSCP)
		sqlite3_bind_int(s, i + 2, e->cnp_dscp);
	if (e->known & FAB_ECN_CNP_PRIO)
		sqlite3_bind_int(s, i + 3, e->cnp_prio);
}

/*
 * A model is written whole, or as a delta on its keyframe (r->delta,
 * fabsweep/roce_delta.h): then only the rows of the systems it writes, each
 * element under its stored index, not its position.
 */
static int64_t stored(const uint32_t *ids, uint32_t pos)
{
	return ids ? (int64_t)ids[pos] : (int64_t)pos;
}

#define SYS_ID(r, i) stored((r)->delta ? (r)->delta->sys : NULL, (i))
#define PORT_ID(r, i) stored((r)->delta ? (r)->delta->port : NULL, (i))
#define NB_ID(r, i) stored((r)->delta ? (r)->delta->nb : NULL, (i))
#define DEV_ID(r, i) stored((r)->delta ? (r)->delta->dev : NULL, (i))

int64_t fab_roce_port_id(const struct fab_roce *r, uint32_t pos)
{
	return PORT_ID(r, pos);
}

int64_t fab_roce_module_id(const struct fab_roce *r, uint32_t pos)
{
	return stored(r->delta ? r->delta->mod : NULL, pos);
}

/* Whether the rows of system sys stand as the keyframe has them. */
bool fab_roce_kept(const struct fab_roce *r, uint32_t sys)
{
	return r->delta && sys < r->delta->n_sys && !r->delta->write[sys];
}

static int write_systems(struct fab_store *st, struct texts *tx, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO system_rows(scan_id, system_idx, system, chassis_id,"
		" chassis_id_subtype, description, mgmt_address, role, capabilities,"
		" cap_available, cap_enabled, collected, lldp, hostname, source, collected_at)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < r->n_systems; i++) {
		const struct fab_roce_system *y = &r->systems[i];

		if (fab_roce_kept(r, (uint32_t)i))
			continue;
		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, SYS_ID(r, (uint32_t)i));
		fab_sql_bind_static(s, 3, y->name ? y->name : "?");
		fab_sql_bind_static(s, 4, y->chassis_id);
		fab_sql_bind_static(s, 5, y->chassis_id_subtype);
		fab_sql_bind_static(s, 6, y->description);
		fab_sql_bind_static(s, 7, y->mgmt_address);
		fab_sql_bind_static(s, 8, fab_role_name(y->role));
		bind_caps(s, 9, &tx->sys_caps, y->has_caps, y->cap_available, y->cap_enabled);
		sqlite3_bind_int(s, 12, y->collected);
		sqlite3_bind_int(s, 13, y->lldp);
		fab_sql_bind_static(s, 14, y->hostname);
		fab_sql_bind_static(s, 15, y->source);
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

static int write_eth_ports(struct fab_store *st, struct fab_roce_sets *sets, struct texts *tx,
			   const struct fab_snapshot *snap)
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
		" dcb_ets_prio_tc, dcb_ets_tc_bw, dcb_ets_tsa, rdma_device, rdma_port,"
		" ecn_np_enabled, ecn_rp_enabled, cnp_dscp, cnp_priority, trust,"
		" driver, stats_status, module_status, tlv_set)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		"?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];

		if (fab_roce_kept(r, p->system_idx))
			continue;
		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, PORT_ID(r, (uint32_t)i));
		sqlite3_bind_int64(s, 3, SYS_ID(r, p->system_idx));
		fab_sql_bind_static(s, 4, sysname(r, p->system_idx));
		fab_sql_bind_static(s, 5, p->ifname ? p->ifname : "?");
		fab_sql_bind_static(s, 6, p->mac);
		if (p->mtu)
			sqlite3_bind_int64(s, 7, p->mtu);
		if (p->speed_mbps >= 0)
			sqlite3_bind_int(s, 8, p->speed_mbps);
		fab_sql_bind_static(s, 9, p->state);
		sqlite3_bind_int(s, 10, !!(p->flags & FAB_ETH_F_SYSFS));
		sqlite3_bind_int(s, 11, !!(p->flags & FAB_ETH_F_LLDP));
		sqlite3_bind_int(s, 12, !!(p->flags & FAB_ETH_F_STUB));
		fab_sql_bind_static(s, 13, p->port_id);
		fab_sql_bind_static(s, 14, p->port_id_subtype);
		fab_sql_bind_static(s, 15, p->port_descr);
		if ((err = bind_lldp_dcbx(s, 16, &tx->adv, r, &p->adv)))
			break;
		fab_sql_bind_static(s, 30, fab_dcb_status_name(p->dcb_status));
		if (p->dcbx_mode >= 0)
			sqlite3_bind_int(s, 31, p->dcbx_mode);
		if (p->dcb_status == FAB_DCB_OK) {
			if ((err = dcbx_text(&tx->dcb, r, &p->dcb)))
				break;
			if (p->dcb.pfc.valid) {
				sqlite3_bind_int(s, 32, p->dcb.pfc.enabled);
				sqlite3_bind_int(s, 33, p->dcb.pfc.cap);
				sqlite3_bind_int(s, 34, p->dcb.pfc.mbc);
			}
			if (p->dcb.app_valid)
				sqlite3_bind_text(s, 35, tx->dcb.app, -1, SQLITE_STATIC);
			bind_ets(s, 36, &p->dcb.ets, tx->dcb.ets, true);
		}
		if (p->rdma_port_idx < r->n_rdma_ports) {
			const struct fab_rdma_port *q = &r->rdma_ports[p->rdma_port_idx];
			fab_sql_bind_static(s, 41, r->devices[q->device_idx].name);
			sqlite3_bind_int(s, 42, q->port_num);
		}
		bind_ecn(s, 43, &p->ecn);
		fab_sql_bind_static(s, 47, fab_trust_name(fab_eth_port_trust(r, p)));
		fab_sql_bind_static(s, 48, p->driver);
		fab_sql_bind_static(s, 49, fab_ethtool_status_name(p->stats_status));
		fab_sql_bind_static(s, 50, fab_ethtool_status_name(p->module_status));
		int64_t set;
		if ((err = fab_roce_tlv_set(sets, r, p->tlv_first, p->tlv_count, &set)))
			break;
		if (set)
			sqlite3_bind_int64(s, 51, set);
		err = fab_sql_step(st, s, "an Ethernet port");
	}
	if (err == -EINVAL || err == -ENOMEM)
		err = fab_err(err, "snapshot has inconsistent application entries");
	sqlite3_finalize(s);
	return err;
}

static int write_neighbors(struct fab_store *st, struct fab_roce_sets *sets, struct texts *tx,
			   const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO lldp_neighbor_rows(scan_id, neighbor_idx, port_idx, system, ifname,"
		" chassis_id, chassis_id_subtype, neighbor_system, neighbor_descr,"
		" neighbor_port_id, neighbor_port_id_subtype, neighbor_port_descr,"
		" mgmt_address, ttl, capabilities, cap_available, cap_enabled,"
		" pfc_enabled, pfc_willing, pfc_mbc, pfc_cap, app_entries, ets_willing,"
		" ets_max_tcs, ets_prio_tc, ets_tc_bw, ets_tsa, reco_prio_tc, reco_tc_bw,"
		" reco_tsa, bad_tlvs, neighbor_ifname, neighbor_collected,"
		" remote_system_idx, remote_port_idx, tlv_set)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		&s);

	for (size_t i = 0; !err && i < r->n_neighbors; i++) {
		const struct fab_lldp_neighbor *n = &r->neighbors[i];
		const struct fab_eth_port *p = &r->eth_ports[n->port_idx];

		if (fab_roce_kept(r, p->system_idx))
			continue;
		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, NB_ID(r, (uint32_t)i));
		sqlite3_bind_int64(s, 3, PORT_ID(r, n->port_idx));
		fab_sql_bind_static(s, 4, sysname(r, p->system_idx));
		fab_sql_bind_static(s, 5, p->ifname ? p->ifname : "?");
		fab_sql_bind_static(s, 6, n->chassis_id);
		fab_sql_bind_static(s, 7, n->chassis_id_subtype);
		fab_sql_bind_static(s, 8, n->system_name);
		fab_sql_bind_static(s, 9, n->system_descr);
		fab_sql_bind_static(s, 10, n->port_id);
		fab_sql_bind_static(s, 11, n->port_id_subtype);
		fab_sql_bind_static(s, 12, n->port_descr);
		fab_sql_bind_static(s, 13, n->mgmt_address);
		sqlite3_bind_int64(s, 14, n->ttl);
		bind_caps(s, 15, &tx->nb_caps, n->has_caps, n->cap_available, n->cap_enabled);
		if ((err = bind_lldp_dcbx(s, 18, &tx->nb, r, &n->dcbx)))
			break;
		if (n->remote_port_idx < r->n_eth_ports) {
			const struct fab_eth_port *q = &r->eth_ports[n->remote_port_idx];
			fab_sql_bind_static(s, 32, q->ifname);
			sqlite3_bind_int(s, 33, r->systems[q->system_idx].collected);
			sqlite3_bind_int64(s, 34, SYS_ID(r, n->remote_system_idx));
			sqlite3_bind_int64(s, 35, PORT_ID(r, n->remote_port_idx));
		}
		int64_t set;
		if ((err = fab_roce_tlv_set(sets, r, n->tlv_first, n->tlv_count, &set)))
			break;
		if (set)
			sqlite3_bind_int64(s, 36, set);
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
		"INSERT INTO eth_link_rows(scan_id, a_system, a_ifname, b_system, b_ifname,"
		" a_heard_b, b_heard_a, a_port_idx, b_port_idx) VALUES (?,?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];
		const struct fab_eth_port *a = &r->eth_ports[l->a], *b = &r->eth_ports[l->b];

		if (fab_roce_kept(r, a->system_idx)) /* a link is its a side's */
			continue;
		sqlite3_bind_int64(s, 1, snap->scan_id);
		fab_sql_bind_static(s, 2, sysname(r, a->system_idx));
		fab_sql_bind_static(s, 3, a->ifname ? a->ifname : "?");
		fab_sql_bind_static(s, 4, sysname(r, b->system_idx));
		fab_sql_bind_static(s, 5, b->ifname ? b->ifname : "?");
		sqlite3_bind_int(s, 6, !!(l->heard & FAB_LINK_A_HEARD_B));
		sqlite3_bind_int(s, 7, !!(l->heard & FAB_LINK_B_HEARD_A));
		sqlite3_bind_int64(s, 8, PORT_ID(r, l->a));
		sqlite3_bind_int64(s, 9, PORT_ID(r, l->b));
		err = fab_sql_step(st, s, "an Ethernet link");
	}
	sqlite3_finalize(s);
	return err;
}

static int write_rdma(struct fab_store *st, struct fab_roce_sets *sets,
		      const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *d = NULL, *p = NULL;
	int err = fab_store_prepare(st,
		"INSERT INTO rdma_device_rows(scan_id, device_idx, system_idx, system, device,"
		" node_guid, sys_image_guid, node_desc, fw_ver, hca_type, board_id,"
		" pci_address, pcie_speed_gts, pcie_width, pcie_max_speed_gts,"
		" pcie_max_width) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &d);

	if (!err)
		err = fab_store_prepare(st,
			"INSERT INTO rdma_port_rows(scan_id, device_idx, port_num, system, device,"
			" state, phys_state, rate, rate_gbps, link_layer, netdev, eth_port_idx,"
			" counter_set, counter_values) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &p);
	for (size_t i = 0; !err && i < r->n_devices; i++) {
		const struct fab_rdma_device *v = &r->devices[i];
		const char *sys = sysname(r, v->system_idx);

		if (fab_roce_kept(r, v->system_idx))
			continue;
		sqlite3_bind_int64(d, 1, snap->scan_id);
		sqlite3_bind_int64(d, 2, DEV_ID(r, (uint32_t)i));
		sqlite3_bind_int64(d, 3, SYS_ID(r, v->system_idx));
		fab_sql_bind_static(d, 4, sys);
		fab_sql_bind_static(d, 5, v->name ? v->name : "?");
		fab_sql_bind_guid_opt(d, 6, v->node_guid);
		fab_sql_bind_guid_opt(d, 7, v->sys_image_guid);
		fab_sql_bind_static(d, 8, v->node_desc);
		fab_sql_bind_static(d, 9, v->fw_ver);
		fab_sql_bind_static(d, 10, v->hca_type);
		fab_sql_bind_static(d, 11, v->board_id);
		fab_sql_bind_static(d, 12, v->pci_address);
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
			sqlite3_bind_int64(p, 2, DEV_ID(r, (uint32_t)i));
			sqlite3_bind_int(p, 3, q->port_num);
			fab_sql_bind_static(p, 4, sys);
			fab_sql_bind_static(p, 5, v->name ? v->name : "?");
			fab_sql_bind_static(p, 6, fab_state_name(q->state));
			fab_sql_bind_static(p, 7, fab_phys_state_name(q->phys_state));
			fab_sql_bind_static(p, 8, q->rate);
			if (q->rate_gbps > 0)
				sqlite3_bind_double(p, 9, q->rate_gbps);
			fab_sql_bind_static(p, 10, q->link_layer);
			fab_sql_bind_static(p, 11, q->netdev);
			if (q->eth_port_idx != FAB_NONE)
				sqlite3_bind_int64(p, 12, PORT_ID(r, q->eth_port_idx));
			/* the counters: one row, values in the order of their set's names */
			int64_t set;
			if ((err = fab_roce_ctr_set(sets, r, q, &set))) {
				break;
			} else if (set) {
				const char *vals = fab_roce_ctr_values(sets, r, q);
				if (!vals) {
					err = fab_err(-ENOMEM, "out of memory");
					break;
				}
				sqlite3_bind_int64(p, 13, set);
				fab_sql_bind_static(p, 14, vals);
			}
			err = fab_sql_step(st, p, "an RDMA port");
		}
	}
	sqlite3_finalize(d);
	sqlite3_finalize(p);
	return err;
}

/* The files a merge read (merge_inputs): what the next merge --into
 * compares. A merge --into's base's rows copied as unchanged first, then
 * every record that is not (read again, new, or carried with another
 * status) written over them. */
static int write_inputs(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	sqlite3_stmt *s;
	int err;

	if (!r->n_inputs)
		return 0;
	if (r->inputs_base) {
		if ((err = fab_store_prepare(st, "INSERT INTO merge_inputs(scan_id, file, mtime_ns, size,"
						 " status) SELECT ?1, file, mtime_ns, size, 'unchanged'"
						 " FROM merge_inputs WHERE scan_id = ?2", &s)))
			return err;
		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, r->inputs_base);
		err = fab_sql_step(st, s, "the merge inputs unchanged");
		sqlite3_finalize(s);
		if (err)
			return err;
	}
	/* (each file is once in r->inputs: a copied row is replaced) */
	if ((err = fab_store_prepare(st, "INSERT OR REPLACE INTO merge_inputs(scan_id, file, mtime_ns,"
					 " size, status) VALUES (?,?,?,?,?)", &s)))
		return err;
	for (size_t i = 0; !err && i < r->n_inputs; i++) {
		const struct fab_roce_input *in = &r->inputs[i];

		if (r->inputs_base && in->status == FAB_MERGE_UNCHANGED)
			continue; /* copied above */
		sqlite3_bind_int64(s, 1, snap->scan_id);
		fab_sql_bind_static(s, 2, in->file);
		if (in->mtime_ns >= 0)
			sqlite3_bind_int64(s, 3, in->mtime_ns);
		if (in->size >= 0)
			sqlite3_bind_int64(s, 4, in->size);
		fab_sql_bind_static(s, 5, fab_merge_status_name(in->status));
		err = fab_sql_step(st, s, "a merge input");
	}
	sqlite3_finalize(s);
	return err;
}

/* A delta's keyframe and the keyframe's systems it hides. */
static int write_delta(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce_delta *d = snap->roce->delta;
	sqlite3_stmt *s;
	int err;

	if ((err = fab_store_prepare(st, "UPDATE scans SET roce_base_scan_id = ?1 WHERE scan_id = ?2", &s)))
		return err;
	sqlite3_bind_int64(s, 1, d->base_scan);
	sqlite3_bind_int64(s, 2, snap->scan_id);
	err = fab_sql_step(st, s, "the scan's keyframe");
	sqlite3_finalize(s);
	if (err || (err = fab_store_prepare(st, "INSERT INTO roce_hidden(scan_id, system_idx) VALUES (?,?)", &s)))
		return err;
	for (size_t i = 0; !err && i < d->n_hidden; i++) {
		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, d->hidden[i]);
		err = fab_sql_step(st, s, "a hidden system");
	}
	sqlite3_finalize(s);
	return err;
}

int fab_store_write_roce(struct fab_store *st, const struct fab_snapshot *snap)
{
	struct fab_roce_sets *sets = NULL;
	struct texts tx = { 0 };
	int err;

	if (!snap->roce)
		return 0;
	if (snap->roce->delta && (err = write_delta(st, snap)))
		return err;
	if ((err = fab_roce_sets_open(st, &sets)))
		return err;
	if (!(err = write_systems(st, &tx, snap)) && !(err = write_eth_ports(st, sets, &tx, snap)) &&
	    !(err = write_neighbors(st, sets, &tx, snap)) && !(err = write_links(st, snap)) &&
	    !(err = write_rdma(st, sets, snap)))
		err = write_inputs(st, snap);
	fab_roce_sets_close(sets);
	texts_free(&tx);
	return err;
}
