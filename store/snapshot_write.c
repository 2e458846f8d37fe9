// SPDX-License-Identifier: MIT
/* Writing a snapshot in one transaction (loading it back: snapshot_load.c). */
#include <errno.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "store_priv.h"

/* A width or speed mask (NULL when 0) or a GUID, kept in k through the
 * writer's loop and bound without a copy. */
static void bind_kept(sqlite3_stmt *s, int i, struct fab_sql_kept *k,
		      enum fab_sql_kept_kind kind, uint64_t v)
{
	fab_sql_bind_static(s, i, v || kind == FAB_KEPT_GUID ? fab_sql_kept_text(k, kind, v) : NULL);
}

/* A finding's columns from rule_id to evidence, bound from index i on. */
static void bind_finding(sqlite3_stmt *s, int i, const struct fab_finding *f, const char *evidence)
{
	fab_sql_bind_text(s, i, f->rule_id);
	fab_sql_bind_text(s, i + 1, fab_severity_name(f->severity));
	fab_sql_bind_text(s, i + 2, f->node);
	fab_sql_bind_text(s, i + 3, f->port);
	fab_sql_bind_text(s, i + 4, f->peer_node);
	fab_sql_bind_text(s, i + 5, f->peer_port);
	fab_sql_bind_text(s, i + 6, f->subject);
	fab_sql_bind_text(s, i + 7, f->message ? f->message : "");
	fab_sql_bind_text(s, i + 8, evidence);
}

/* The hold of a finding watch holds (docs/watch.md "Findings"): one
 * finding_holds row in the chain of the full scan chain, shown from scan
 * from on. A raised finding's hold ends an open one of the same rule, node
 * and port in the chain (the scans after it show the new one). */
static int write_hold(struct fab_store *st, sqlite3_stmt *close, sqlite3_stmt *ins,
		      int64_t scan_id, int64_t chain, int64_t from, const struct fab_finding *f)
{
	int err;

	sqlite3_bind_int64(close, 1, scan_id);
	sqlite3_bind_int64(close, 2, chain);
	fab_sql_bind_text(close, 3, f->rule_id);
	fab_sql_bind_text(close, 4, f->node);
	fab_sql_bind_text(close, 5, f->port);
	if ((err = fab_sql_step(st, close, "the end of a hold")))
		return err;
	sqlite3_bind_int64(ins, 1, chain);
	sqlite3_bind_int64(ins, 2, from);
	fab_sql_bind_time(ins, 3, f->held_since_ms);
	if (f->held_until_ms != INT64_MAX)
		fab_sql_bind_time(ins, 4, f->held_until_ms);
	bind_finding(ins, 5, f, f->held_evidence ? f->held_evidence : f->evidence);
	return fab_sql_step(st, ins, "a hold");
}

/* Whether snap has a finding of rule on node and port. */
static bool has_finding(const struct fab_snapshot *snap, const char *rule, const char *node,
			const char *port)
{
	for (size_t i = 0; i < snap->n_findings; i++) {
		const struct fab_finding *f = &snap->findings[i];
		if (!strcmp(f->rule_id, rule) && !strcmp(f->node ? f->node : "", node ? node : "") &&
		    !strcmp(f->port ? f->port : "", port ? port : ""))
			return true;
	}
	return false;
}

/* A watch sweep holds every finding still held: an open hold of its chain
 * without a time limit (a port that was down) that the sweep does not
 * have ended before it (watch read the port Active again). */
static int close_ended_holds(struct fab_store *st, const struct fab_snapshot *snap, int64_t chain)
{
	sqlite3_stmt *q, *close = NULL;
	int rc, err = fab_store_prepare(st,
		"SELECT hold_id, rule_id, node, port FROM finding_holds WHERE scan_id = ?1"
		" AND to_scan_id IS NULL AND held_until IS NULL AND from_scan_id < ?2", &q);

	if (!err)
		err = fab_store_prepare(st, "UPDATE finding_holds SET to_scan_id = ?1 WHERE hold_id = ?2",
					&close);
	if (err) {
		sqlite3_finalize(q);
		return err;
	}
	sqlite3_bind_int64(q, 1, chain);
	sqlite3_bind_int64(q, 2, snap->scan_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW && !err) {
		if (has_finding(snap, fab_sql_text(q, 1), fab_sql_text(q, 2), fab_sql_text(q, 3)))
			continue;
		sqlite3_bind_int64(close, 1, snap->scan_id);
		sqlite3_bind_int64(close, 2, sqlite3_column_int64(q, 0));
		err = fab_sql_step(st, close, "the end of a hold");
	}
	sqlite3_finalize(close);
	return fab_sql_done(st, q, rc, err);
}

/* The findings of snap, stored as scan chain's (its topology scan; snap's
 * own id for a full scan): those raised as rows of their own, each held one
 * as its hold. A held finding of a sweep is shown by the hold its raise
 * wrote; a full scan starts a chain, so the holds it carries are written. */
static int write_findings(struct fab_store *st, const struct fab_snapshot *snap, int64_t chain)
{
	sqlite3_stmt *s, *close = NULL, *ins = NULL;
	int err = fab_store_prepare(st,
		"INSERT INTO finding_rows(scan_id, rule_id, severity, node, port, peer_node,"
		" peer_port, subject, message, evidence) VALUES (?,?,?,?,?,?,?,?,?,?)", &s);

	if (!err)
		err = fab_store_prepare(st,
			"UPDATE finding_holds SET to_scan_id = ?1 WHERE scan_id = ?2 AND rule_id = ?3"
			" AND node IS ?4 AND port IS ?5 AND to_scan_id IS NULL", &close);
	if (!err)
		err = fab_store_prepare(st,
			"INSERT INTO finding_holds(scan_id, from_scan_id, raised_at, held_until,"
			" rule_id, severity, node, port, peer_node, peer_port, subject, message,"
			" evidence) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", &ins);
	for (size_t i = 0; !err && i < snap->n_findings; i++) {
		const struct fab_finding *f = &snap->findings[i];

		if (f->held && f->held_since_ms) {
			if (chain == snap->scan_id)
				err = write_hold(st, close, ins, snap->scan_id, chain, snap->scan_id, f);
			continue;
		}
		sqlite3_bind_int64(s, 1, snap->scan_id);
		bind_finding(s, 2, f, f->evidence);
		err = fab_sql_step(st, s, "a finding");
		if (!err && f->held_since_ms)
			err = write_hold(st, close, ins, snap->scan_id, chain, snap->scan_id + 1, f);
	}
	sqlite3_finalize(s);
	sqlite3_finalize(close);
	sqlite3_finalize(ins);
	return err;
}

/* topology_scan_id: 0 for a scan with its own topology, else the scan whose
 * nodes, ports and links a watch sweep shares. */
static int write_scan_row(struct fab_store *st, struct fab_snapshot *snap,
			  int64_t topology_scan_id)
{
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO scans(started_at, finished_at, status, label, host, source,"
		" sm_act_start, sm_act_end, fabsweep_version, topology_scan_id)"
		" VALUES (?,?,?,?,?,?,?,?,?,?)", &s);

	if (err)
		return err;
	fab_sql_bind_time(s, 1, snap->started_at_ms ? snap->started_at_ms : fab_now_ms());
	fab_sql_bind_time(s, 2, snap->finished_at_ms);
	fab_sql_bind_text(s, 3, fab_scan_status_name(snap->status));
	fab_sql_bind_text(s, 4, snap->label);
	fab_sql_bind_text(s, 5, snap->host);
	fab_sql_bind_text(s, 6, snap->source);
	sqlite3_bind_int64(s, 7, snap->sm_act_start);
	sqlite3_bind_int64(s, 8, snap->sm_act_end);
	fab_sql_bind_text(s, 9, FABSWEEP_VERSION);
	if (topology_scan_id)
		sqlite3_bind_int64(s, 10, topology_scan_id);
	err = fab_sql_step(st, s, "the scan");
	if (!err)
		snap->scan_id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	return err;
}

static int write_nodes(struct fab_store *st, const struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO node_rows(scan_id, node_idx, node_guid, node_type, description,"
		" lid, num_ports, role, sys_guid, vendor_id, device_id, revision, hops,"
		" smp_failed, pma_failed, description_raw, fw_version, psid)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s);

	struct fab_sql_kept guid = { 0 }, sys_guid = { 0 };

	for (size_t i = 0; !err && i < snap->n_nodes; i++) {
		const struct fab_node *n = &snap->nodes[i];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		bind_kept(s, 3, &guid, FAB_KEPT_GUID, n->guid);
		fab_sql_bind_static(s, 4, fab_node_type_name(n->type));
		fab_sql_bind_static(s, 5, n->desc);
		if (!(n->flags & FAB_F_LID_UNKNOWN)) /* else NULL: not 0 */
			sqlite3_bind_int(s, 6, n->lid);
		sqlite3_bind_int(s, 7, n->num_ports);
		fab_sql_bind_static(s, 8, fab_role_name(n->role));
		bind_kept(s, 9, &sys_guid, FAB_KEPT_GUID, n->sys_guid);
		sqlite3_bind_int64(s, 10, n->vendor_id);
		sqlite3_bind_int64(s, 11, n->device_id);
		sqlite3_bind_int64(s, 12, n->revision);
		if (n->hops >= 0)
			sqlite3_bind_int(s, 13, n->hops);
		sqlite3_bind_int(s, 14, !!(n->flags & FAB_F_SMP_FAILED));
		sqlite3_bind_int(s, 15, !!(n->flags & FAB_F_PMA_FAILED));
		if (n->desc_raw_len)
			sqlite3_bind_blob(s, 16, n->desc_raw, n->desc_raw_len, SQLITE_TRANSIENT);
		if (n->fw_version)
			fab_sql_bind_static(s, 17, n->fw_version);
		if (n->psid)
			fab_sql_bind_static(s, 18, n->psid);
		err = fab_sql_step(st, s, "a node");
	}
	sqlite3_finalize(s);
	return err;
}

static int write_ports(struct fab_store *st, const struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO port_rows(scan_id, node_idx, port_num, node_guid, port_guid,"
		" lid, lmc, sm_lid, state, phys_state, width_active, width_enabled,"
		" width_supported, speed_active, speed_enabled, speed_supported, rate_gbps,"
		" mtu_active, mtu_cap, op_vls, cap_mask, remote_guid, remote_port,"
		" remote_node_idx, smp_failed, pma_failed, no_remote, vl_cap, vl_high_limit,"
		" vlarb_high_cap, vlarb_low_cap)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s);

	struct fab_sql_kept node_guid = { 0 }, port_guid = { 0 }, remote_guid = { 0 }, mask[6] = { 0 };

	for (size_t i = 0; !err && i < snap->n_ports; i++) {
		const struct fab_port *p = &snap->ports[i];
		double rate = fab_rate_gbps(p->width_active, p->speed_active);

		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, p->node_idx);
		sqlite3_bind_int(s, 3, p->port_num);
		bind_kept(s, 4, &node_guid, FAB_KEPT_GUID, snap->nodes[p->node_idx].guid);
		if (p->guid)
			bind_kept(s, 5, &port_guid, FAB_KEPT_GUID, p->guid);
		/* What was not read is NULL (unknown), never 0. */
		bool read = !(p->flags & FAB_F_SMP_FAILED);
		if (!(p->flags & FAB_F_LID_UNKNOWN))
			sqlite3_bind_int(s, 6, p->lid);
		if (read) {
			sqlite3_bind_int(s, 7, p->lmc);
			sqlite3_bind_int(s, 8, p->sm_lid);
		}
		fab_sql_bind_static(s, 9, fab_state_name(p->state));
		fab_sql_bind_static(s, 10, fab_phys_state_name(p->phys_state));
		bind_kept(s, 11, &mask[0], FAB_KEPT_WIDTHS, p->width_active);
		bind_kept(s, 12, &mask[1], FAB_KEPT_WIDTHS, p->width_enabled);
		bind_kept(s, 13, &mask[2], FAB_KEPT_WIDTHS, p->width_supported);
		bind_kept(s, 14, &mask[3], FAB_KEPT_SPEEDS, p->speed_active);
		bind_kept(s, 15, &mask[4], FAB_KEPT_SPEEDS, p->speed_enabled);
		bind_kept(s, 16, &mask[5], FAB_KEPT_SPEEDS, p->speed_supported);
		if (rate > 0 && p->state >= FAB_STATE_INIT)
			sqlite3_bind_double(s, 17, rate);
		if (p->mtu_active)
			sqlite3_bind_int(s, 18, (int)fab_mtu_bytes(p->mtu_active));
		if (p->mtu_cap)
			sqlite3_bind_int(s, 19, (int)fab_mtu_bytes(p->mtu_cap));
		if (read) {
			sqlite3_bind_int(s, 20, p->op_vls);
			sqlite3_bind_int64(s, 21, p->cap_mask);
			sqlite3_bind_int(s, 28, p->vl_cap);
			sqlite3_bind_int(s, 29, p->vl_high_limit);
			sqlite3_bind_int(s, 30, p->vlarb_high_cap);
			sqlite3_bind_int(s, 31, p->vlarb_low_cap);
		}
		if (p->remote_guid) {
			bind_kept(s, 22, &remote_guid, FAB_KEPT_GUID, p->remote_guid);
			sqlite3_bind_int(s, 23, p->remote_port);
		}
		if (p->remote_idx != FAB_NONE && p->remote_idx < snap->n_ports)
			sqlite3_bind_int64(s, 24, snap->ports[p->remote_idx].node_idx);
		sqlite3_bind_int(s, 25, !!(p->flags & FAB_F_SMP_FAILED));
		sqlite3_bind_int(s, 26, !!(p->flags & FAB_F_PMA_FAILED));
		sqlite3_bind_int(s, 27, !!(p->flags & FAB_F_NO_REMOTE));
		err = fab_sql_step(st, s, "a port");
	}
	sqlite3_finalize(s);
	return err;
}

static int write_links(struct fab_store *st, const struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO link_rows(scan_id, a_guid, a_port, b_guid, b_port, width, speed,"
		" rate_gbps, a_node_idx, b_node_idx) VALUES (?,?,?,?,?,?,?,?,?,?)", &s);

	struct fab_sql_kept a_guid = { 0 }, b_guid = { 0 }, width = { 0 }, speed = { 0 };

	for (size_t i = 0; !err && i < snap->n_links; i++) {
		const struct fab_port *a = &snap->ports[snap->links[i].a];
		const struct fab_port *b = &snap->ports[snap->links[i].b];
		/* A link runs at what both ends agree on; take a's view. */
		double rate = fab_rate_gbps(a->width_active, a->speed_active);

		sqlite3_bind_int64(s, 1, snap->scan_id);
		bind_kept(s, 2, &a_guid, FAB_KEPT_GUID, snap->nodes[a->node_idx].guid);
		sqlite3_bind_int(s, 3, a->port_num);
		bind_kept(s, 4, &b_guid, FAB_KEPT_GUID, snap->nodes[b->node_idx].guid);
		sqlite3_bind_int(s, 5, b->port_num);
		bind_kept(s, 6, &width, FAB_KEPT_WIDTHS, a->width_active);
		bind_kept(s, 7, &speed, FAB_KEPT_SPEEDS, a->speed_active);
		if (rate > 0)
			sqlite3_bind_double(s, 8, rate);
		sqlite3_bind_int64(s, 9, a->node_idx);
		sqlite3_bind_int64(s, 10, b->node_idx);
		err = fab_sql_step(st, s, "a link");
	}
	sqlite3_finalize(s);
	return err;
}

/* The samples of snap, whose port_idx refer to the ports of topo (snap
 * itself, or the topology a watch sweep shares). */
static int write_samples(struct fab_store *st, const struct fab_snapshot *snap,
			 const struct fab_snapshot *topo)
{
	char sql[4096];
	size_t off;
	sqlite3_stmt *s;
	int err;

	off = (size_t)snprintf(sql, sizeof(sql),
			       "INSERT INTO port_counters(scan_id, node_idx, port_num, sample,"
			       " node_guid, sampled_at, extended");
	off += fab_sql_counter_cols(sql + off, sizeof(sql) - off, false);
	off += fab_sql_vl_cols(sql + off, sizeof(sql) - off, false);
	off += (size_t)snprintf(sql + off, sizeof(sql) - off, ") VALUES (?,?,?,?,?,?,?");
	off += fab_sql_counter_cols(sql + off, sizeof(sql) - off, true);
	off += fab_sql_vl_cols(sql + off, sizeof(sql) - off, true);
	snprintf(sql + off, sizeof(sql) - off, ")");
	if ((err = fab_store_prepare(st, sql, &s)))
		return err;
	struct fab_sql_kept node_guid = { 0 }, sampled_at = { 0 };
	for (size_t i = 0; !err && i < snap->n_samples; i++) {
		const struct fab_counter_sample *c = &snap->samples[i];
		const struct fab_port *p = &topo->ports[c->port_idx];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, p->node_idx);
		sqlite3_bind_int(s, 3, p->port_num);
		sqlite3_bind_int(s, 4, c->sample);
		bind_kept(s, 5, &node_guid, FAB_KEPT_GUID, topo->nodes[p->node_idx].guid);
		if (c->sampled_at_ms) /* NOT NULL: a sample always has its time */
			fab_sql_bind_static(s, 6, fab_sql_kept_text(&sampled_at, FAB_KEPT_TIME,
								    (uint64_t)c->sampled_at_ms));
		sqlite3_bind_int(s, 7, c->extended);
		for (unsigned k = 0; k < FAB_SQL_COUNTERS; k++)
			if (c->valid & (1u << k))
				sqlite3_bind_int64(s, 8 + (int)k, (int64_t)c->v[k]);
		fab_sql_bind_vl(s, 8 + FAB_SQL_COUNTERS, c);
		err = fab_sql_step(st, s, "counters");
	}
	sqlite3_finalize(s);
	return err;
}

/* The SMs of snap; port_idx refer to the ports of topo. */
static int write_sms(struct fab_store *st, const struct fab_snapshot *snap,
		     const struct fab_snapshot *topo)
{
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO sms(scan_id, port_guid, lid, state, priority, act_count,"
		" node_guid, port_num, failed) VALUES (?,?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < snap->n_sms; i++) {
		const struct fab_sm *sm = &snap->sms[i];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		fab_sql_bind_guid(s, 2, sm->port_guid);
		sqlite3_bind_int(s, 3, sm->lid);
		if (!sm->failed) {
			fab_sql_bind_text(s, 4, fab_sm_state_name(sm->state));
			sqlite3_bind_int(s, 5, sm->priority);
			sqlite3_bind_int64(s, 6, sm->act_count);
		}
		if (sm->port_idx != FAB_NONE && sm->port_idx < topo->n_ports) {
			const struct fab_port *p = &topo->ports[sm->port_idx];
			fab_sql_bind_guid(s, 7, topo->nodes[p->node_idx].guid);
			sqlite3_bind_int(s, 8, p->port_num);
		}
		sqlite3_bind_int(s, 9, sm->failed);
		err = fab_sql_step(st, s, "a subnet manager");
	}
	sqlite3_finalize(s);
	return err;
}

static int write_errors(struct fab_store *st, const struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO scan_errors(scan_id, node_guid, port_num, what, message)"
		" VALUES (?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < snap->n_errors; i++) {
		const struct fab_scan_error *e = &snap->errors[i];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		if (e->node_guid)
			fab_sql_bind_guid(s, 2, e->node_guid);
		if (e->port_num >= 0)
			sqlite3_bind_int(s, 3, e->port_num);
		fab_sql_bind_text(s, 4, e->what);
		fab_sql_bind_text(s, 5, e->message);
		err = fab_sql_step(st, s, "a scan error");
	}
	sqlite3_finalize(s);
	return err;
}

/* Watch's events (docs/schema.md "Events"): a row each, in arrival order. */
static int write_events(struct fab_store *st, const struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err;

	if (!snap->n_events)
		return 0;
	err = fab_store_prepare(st,
		"INSERT INTO events(scan_id, at, kind, cause, trap, lid, node_guid, port_num,"
		" state, phys_state, was_state, detail) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", &s);
	for (size_t i = 0; !err && i < snap->n_events; i++) {
		const struct fab_event *e = &snap->events[i];
		bool port = e->kind == FAB_EVENT_PORT;

		sqlite3_bind_int64(s, 1, snap->scan_id);
		fab_sql_bind_time(s, 2, e->at_ms);
		fab_sql_bind_text(s, 3, fab_event_kind_name(e->kind));
		if (port && e->cause)
			fab_sql_bind_text(s, 4, fab_event_cause_name(e->cause));
		if (!port) {
			sqlite3_bind_int(s, 5, e->trap);
			sqlite3_bind_int(s, 6, e->lid);
		}
		if (e->node_guid)
			fab_sql_bind_guid(s, 7, e->node_guid);
		if (port) {
			sqlite3_bind_int(s, 8, e->port_num);
			fab_sql_bind_text(s, 9, fab_state_name(e->state));
			fab_sql_bind_text(s, 10, fab_phys_state_name(e->phys_state));
			fab_sql_bind_text(s, 11, fab_state_name(e->was));
		}
		fab_sql_bind_text(s, 12, e->detail);
		err = fab_sql_step(st, s, "an event");
	}
	sqlite3_finalize(s);
	return err;
}

/* Records that the rules ran on the scan (replacing an earlier record). */
static int write_check(struct fab_store *st, const struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err;

	if (!snap->checked_at_ms)
		return 0;
	if ((err = fab_store_prepare(st, "INSERT OR REPLACE INTO checks(scan_id, checked_at,"
					 " fabsweep_version) VALUES (?,?,?)", &s)))
		return err;
	sqlite3_bind_int64(s, 1, snap->scan_id);
	fab_sql_bind_time(s, 2, snap->checked_at_ms);
	fab_sql_bind_text(s, 3, FABSWEEP_VERSION);
	err = fab_sql_step(st, s, "the check record");
	sqlite3_finalize(s);
	return err;
}

int fab_store_write_scan(struct fab_store *st, struct fab_snapshot *snap)
{
	int64_t old_id = snap->scan_id;
	int err;

	if (!st->writable)
		return fab_err(-EROFS, "database '%s' was opened read-only", st->path);
	if ((err = fab_store_begin(st)))
		return err;
	err = write_scan_row(st, snap, 0);
	if (!err)
		err = write_nodes(st, snap);
	if (!err)
		err = write_ports(st, snap);
	if (!err)
		err = write_links(st, snap);
	if (!err)
		err = write_samples(st, snap, snap);
	if (!err)
		err = write_sms(st, snap, snap);
	if (!err)
		err = write_errors(st, snap);
	if (!err)
		err = write_events(st, snap);
	if (!err)
		err = write_findings(st, snap, snap->scan_id);
	if (!err)
		err = write_check(st, snap);
	if (!err)
		err = fab_store_write_roce(st, snap); /* RoCE part (store/roce_write.c) */
	if (!err)
		err = fab_store_write_phys(st, snap); /* modules, NIC counters, BER (store/phys_io.c) */
	if (!err)
		err = fab_store_write_roce_votes(st, snap); /* store/roce_votes.c */
	if (!err)
		err = fab_store_write_routing(st, snap); /* store/routing_io.c */
	if (!err)
		err = fab_store_write_sl2vl(st, snap); /* store/sl2vl_io.c */
	if (!err)
		err = fab_store_write_qos(st, snap); /* store/qos_io.c */
	if (!err)
		err = fab_store_write_pkeys(st, snap); /* store/pkey_io.c */
	if (!err)
		err = fab_store_write_mcast(st, snap); /* store/mcast_io.c */
	err = fab_store_finish(st, err);
	if (err)
		snap->scan_id = old_id;
	return err;
}

int fab_store_write_sweep(struct fab_store *st, struct fab_snapshot *sweep,
			  const struct fab_snapshot *topo)
{
	int64_t old_id = sweep->scan_id;
	int64_t topo_id = topo->topology_scan_id ? topo->topology_scan_id : topo->scan_id;
	int err;

	if (!st->writable)
		return fab_err(-EROFS, "database '%s' was opened read-only", st->path);
	if (topo_id <= 0)
		return fab_err(-EINVAL, "a watch sweep needs a stored topology");
	for (size_t i = 0; i < sweep->n_samples; i++)
		if (sweep->samples[i].port_idx >= topo->n_ports)
			return fab_err(-EINVAL, "a watch sweep's sample names port %u of %zu",
				       sweep->samples[i].port_idx, topo->n_ports);
	if ((err = fab_store_begin(st)))
		return err;
	err = write_scan_row(st, sweep, topo_id);
	if (!err)
		err = write_samples(st, sweep, topo);
	if (!err)
		err = write_sms(st, sweep, topo);
	if (!err)
		err = write_errors(st, sweep);
	if (!err)
		err = write_events(st, sweep);
	if (!err)
		err = write_findings(st, sweep, topo_id);
	if (!err)
		err = close_ended_holds(st, sweep, topo_id);
	if (!err)
		err = write_check(st, sweep);
	err = fab_store_finish(st, err);
	if (err)
		sweep->scan_id = old_id;
	else
		sweep->topology_scan_id = topo_id;
	return err;
}

int fab_store_replace_findings(struct fab_store *st, const struct fab_snapshot *snap)
{
	char sql[96];
	int err;

	if (!st->writable)
		return fab_err(-EROFS, "database '%s' was opened read-only", st->path);
	if ((err = fab_store_begin(st)))
		return err;
	snprintf(sql, sizeof(sql), "DELETE FROM finding_rows WHERE scan_id=%lld",
		 (long long)snap->scan_id);
	err = fab_store_exec(st, sql, "delete old findings");
	if (!err)
		err = write_findings(st, snap,
				     snap->topology_scan_id ? snap->topology_scan_id : snap->scan_id);
	if (!err)
		err = write_check(st, snap);
	return fab_store_finish(st, err);
}
