// SPDX-License-Identifier: MIT
/* Writing a snapshot in one transaction, and loading it back. */
#include <errno.h>
#include <stdbool.h>
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

#define V1_COUNTERS 21

/* A width or speed mask (NULL when 0) or a GUID, kept in k through the
 * writer's loop and bound without a copy. */
static void bind_kept(sqlite3_stmt *s, int i, struct fab_sql_kept *k,
		      enum fab_sql_kept_kind kind, uint64_t v)
{
	fab_sql_bind_static(s, i, v || kind == FAB_KEPT_GUID ? fab_sql_kept_text(k, kind, v) : NULL);
}

static int write_findings(struct fab_store *st, const struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO findings(scan_id, rule_id, severity, node, port, peer_node,"
		" peer_port, subject, message, evidence) VALUES (?,?,?,?,?,?,?,?,?,?)", &s);

	for (size_t i = 0; !err && i < snap->n_findings; i++) {
		const struct fab_finding *f = &snap->findings[i];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		fab_sql_bind_text(s, 2, f->rule_id);
		fab_sql_bind_text(s, 3, fab_severity_name(f->severity));
		fab_sql_bind_text(s, 4, f->node);
		fab_sql_bind_text(s, 5, f->port);
		fab_sql_bind_text(s, 6, f->peer_node);
		fab_sql_bind_text(s, 7, f->peer_port);
		fab_sql_bind_text(s, 8, f->subject);
		fab_sql_bind_text(s, 9, f->message ? f->message : "");
		fab_sql_bind_text(s, 10, f->evidence);
		err = fab_sql_step(st, s, "a finding");
	}
	sqlite3_finalize(s);
	return err;
}

static int write_scan_row(struct fab_store *st, struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_store_prepare(st,
		"INSERT INTO scans(started_at, finished_at, status, label, host, source,"
		" sm_act_start, sm_act_end, fabsweep_version) VALUES (?,?,?,?,?,?,?,?,?)", &s);

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
		"INSERT INTO nodes(scan_id, node_idx, node_guid, node_type, description,"
		" lid, num_ports, role, sys_guid, vendor_id, device_id, revision, hops,"
		" smp_failed, pma_failed, description_raw)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s);

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
		" remote_node_idx, smp_failed, pma_failed, no_remote)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s);

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
		"INSERT INTO links(scan_id, a_guid, a_port, b_guid, b_port, width, speed,"
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

static int write_samples(struct fab_store *st, const struct fab_snapshot *snap)
{
	char sql[2048];
	size_t off;
	sqlite3_stmt *s;
	int err;

	off = (size_t)snprintf(sql, sizeof(sql),
			       "INSERT INTO port_counters(scan_id, node_idx, port_num, sample,"
			       " node_guid, sampled_at, extended");
	for (unsigned c = 0; c < V1_COUNTERS; c++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", %s",
					fab_counter_name(c));
	off += (size_t)snprintf(sql + off, sizeof(sql) - off, ") VALUES (?,?,?,?,?,?,?");
	for (unsigned c = 0; c < V1_COUNTERS; c++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ",?");
	snprintf(sql + off, sizeof(sql) - off, ")");
	if ((err = fab_store_prepare(st, sql, &s)))
		return err;
	struct fab_sql_kept node_guid = { 0 }, sampled_at = { 0 };
	for (size_t i = 0; !err && i < snap->n_samples; i++) {
		const struct fab_counter_sample *c = &snap->samples[i];
		const struct fab_port *p = &snap->ports[c->port_idx];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, p->node_idx);
		sqlite3_bind_int(s, 3, p->port_num);
		sqlite3_bind_int(s, 4, c->sample);
		bind_kept(s, 5, &node_guid, FAB_KEPT_GUID, snap->nodes[p->node_idx].guid);
		if (c->sampled_at_ms) /* NOT NULL: a sample always has its time */
			fab_sql_bind_static(s, 6, fab_sql_kept_text(&sampled_at, FAB_KEPT_TIME,
								    (uint64_t)c->sampled_at_ms));
		sqlite3_bind_int(s, 7, c->extended);
		for (unsigned k = 0; k < V1_COUNTERS; k++)
			if (c->valid & (1u << k))
				sqlite3_bind_int64(s, 8 + (int)k, (int64_t)c->v[k]);
		err = fab_sql_step(st, s, "counters");
	}
	sqlite3_finalize(s);
	return err;
}

static int write_sms(struct fab_store *st, const struct fab_snapshot *snap)
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
		if (sm->port_idx != FAB_NONE && sm->port_idx < snap->n_ports) {
			const struct fab_port *p = &snap->ports[sm->port_idx];
			fab_sql_bind_guid(s, 7, snap->nodes[p->node_idx].guid);
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
	err = write_scan_row(st, snap);
	if (!err)
		err = write_nodes(st, snap);
	if (!err)
		err = write_ports(st, snap);
	if (!err)
		err = write_links(st, snap);
	if (!err)
		err = write_samples(st, snap);
	if (!err)
		err = write_sms(st, snap);
	if (!err)
		err = write_errors(st, snap);
	if (!err)
		err = write_findings(st, snap);
	if (!err)
		err = write_check(st, snap);
	if (!err)
		err = fab_store_write_roce(st, snap); /* RoCE part (store/roce_io.c) */
	err = fab_store_finish(st, err);
	if (err)
		snap->scan_id = old_id;
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
	snprintf(sql, sizeof(sql), "DELETE FROM findings WHERE scan_id=%lld",
		 (long long)snap->scan_id);
	err = fab_store_exec(st, sql, "delete old findings");
	if (!err)
		err = write_findings(st, snap);
	if (!err)
		err = write_check(st, snap);
	return fab_store_finish(st, err);
}

/* ---- loading ---------------------------------------------------------- */

/*
 * Most rows of a snapshot repeat the same widths, speeds and sample times:
 * remember the last text seen in a column and what it parsed to.
 */
struct memo {
	char text[64];
	int64_t value;
	bool valid;
};

static int64_t memo_mask(struct memo *m, const char *t, int (*parse)(const char *))
{
	size_t l;

	if (!t)
		return 0;
	l = strlen(t);
	if (m->valid && l < sizeof(m->text) && !memcmp(m->text, t, l + 1))
		return m->value;
	int v = parse(t);
	if (v < 0)
		v = 0;
	if (l < sizeof(m->text)) {
		memcpy(m->text, t, l + 1);
		m->value = v;
		m->valid = true;
	}
	return v;
}

static int64_t memo_time(struct memo *m, sqlite3_stmt *s, int i)
{
	const char *t = fab_sql_text(s, i);
	int64_t ms = 0;
	size_t l;

	if (!t)
		return 0;
	l = strlen(t);
	if (m->valid && l < sizeof(m->text) && !memcmp(m->text, t, l + 1))
		return m->value;
	fab_time_parse(t, &ms);
	if (l < sizeof(m->text)) {
		memcpy(m->text, t, l + 1);
		m->value = ms;
		m->valid = true;
	}
	return ms;
}

static int parse_or(int v, int dflt)
{
	return v < 0 ? dflt : v;
}

#define NOMEM() fab_err(-ENOMEM, "out of memory loading a snapshot")

static int load_scan_row(struct fab_store *st, struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(st,
		"SELECT started_at, finished_at, status, label, host, source,"
		" sm_act_start, sm_act_end,"
		" (SELECT checked_at FROM checks c WHERE c.scan_id = scans.scan_id)"
		" FROM scans WHERE scan_id=?1", snap->scan_id, &s);
	int rc;

	if (err)
		return err;
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(s);
		return fab_err(-ENOENT, "database '%s' has no scan %lld", st->path,
			       (long long)snap->scan_id);
	}
	snap->started_at_ms = fab_sql_time(s, 0);
	snap->finished_at_ms = fab_sql_time(s, 1);
	snap->status = (uint8_t)parse_or(fab_scan_status_parse(fab_sql_text(s, 2)),
					 FAB_SCAN_FAILED);
	snap->label = fab_snapshot_strdup(snap, fab_sql_text(s, 3), SIZE_MAX);
	snap->host = fab_snapshot_strdup(snap, fab_sql_text(s, 4), SIZE_MAX);
	snap->source = fab_snapshot_strdup(snap, fab_sql_text(s, 5), SIZE_MAX);
	snap->sm_act_start = (uint32_t)sqlite3_column_int64(s, 6);
	snap->sm_act_end = (uint32_t)sqlite3_column_int64(s, 7);
	snap->checked_at_ms = fab_sql_time(s, 8);
	sqlite3_finalize(s);
	return 0;
}

/* How many rows of table the scan has (to size an array once). */
static int count_rows(struct fab_store *st, const char *table, int64_t scan_id,
		      size_t *out)
{
	char sql[128];
	sqlite3_stmt *s;
	int err, rc;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE scan_id=?1", table);
	if ((err = fab_sql_scan_query(st, sql, scan_id, &s)))
		return err;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*out = (size_t)sqlite3_column_int64(s, 0);
	return fab_sql_done(st, s, rc == SQLITE_ROW ? SQLITE_DONE : rc, 0);
}

/* light: only what a counter baseline needs (index, GUID, type, description). */
static int load_nodes(struct fab_store *st, struct fab_snapshot *snap, bool light)
{
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(st, light
		? "SELECT node_idx, node_guid, node_type, description FROM nodes"
		  " WHERE scan_id=?1 ORDER BY node_idx"
		: "SELECT node_idx, node_guid, node_type, description, lid, num_ports, role,"
		  " sys_guid, vendor_id, device_id, revision, hops, smp_failed, pma_failed,"
		  " description_raw FROM nodes WHERE scan_id=?1 ORDER BY node_idx",
		snap->scan_id, &s);
	size_t rows = 0;
	int rc;

	if (err)
		return err;
	if ((err = count_rows(st, "nodes", snap->scan_id, &rows)) ||
	    (err = fab_snapshot_reserve(snap, rows, 0, 0) ? NOMEM() : 0)) {
		sqlite3_finalize(s);
		return err;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_node *n;

		if (sqlite3_column_int64(s, 0) != (int64_t)snap->n_nodes) {
			err = fab_err(-EPROTO, "database '%s': scan %lld has a gap in its nodes",
				      st->path, (long long)snap->scan_id);
			break;
		}
		if (!(n = fab_snapshot_add_node(snap))) {
			err = NOMEM();
			break;
		}
		n->guid = fab_sql_guid(s, 1);
		n->type = (uint8_t)parse_or(fab_node_type_parse(fab_sql_text(s, 2)), 0);
		const char *d = fab_sql_text(s, 3);
		snprintf(n->desc, sizeof(n->desc), "%s", d ? d : "");
		if (light)
			continue;
		n->lid = (uint16_t)sqlite3_column_int(s, 4);
		if (sqlite3_column_type(s, 4) == SQLITE_NULL)
			n->flags |= FAB_F_LID_UNKNOWN; /* not read: not LID 0 */
		n->num_ports = (uint8_t)sqlite3_column_int(s, 5);
		n->role = (uint8_t)parse_or(fab_role_parse(fab_sql_text(s, 6)), 0);
		n->sys_guid = fab_sql_guid(s, 7);
		n->vendor_id = (uint32_t)sqlite3_column_int64(s, 8);
		n->device_id = (uint32_t)sqlite3_column_int64(s, 9);
		n->revision = (uint32_t)sqlite3_column_int64(s, 10);
		n->hops = sqlite3_column_type(s, 11) == SQLITE_NULL
				  ? -1 : (int16_t)sqlite3_column_int(s, 11);
		if (sqlite3_column_int(s, 12))
			n->flags |= FAB_F_SMP_FAILED;
		if (sqlite3_column_int(s, 13))
			n->flags |= FAB_F_PMA_FAILED;
		int rl = sqlite3_column_bytes(s, 14);
		if (rl > 0 && rl <= FAB_DESC_RAW) {
			memcpy(n->desc_raw, sqlite3_column_blob(s, 14), (size_t)rl);
			n->desc_raw_len = (uint8_t)rl;
		}
	}
	return fab_sql_done(st, s, rc, err);
}

/* light: port numbers and GUIDs only (no PortInfo, no remote ends). */
static int load_ports(struct fab_store *st, struct fab_snapshot *snap, bool light)
{
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(st, light
		? "SELECT node_idx, port_num, port_guid FROM port_rows WHERE scan_id=?1"
		  " ORDER BY node_idx, port_num"
		: "SELECT node_idx, port_num, port_guid, lid, lmc, sm_lid, state, phys_state,"
		" width_active, width_enabled, width_supported, speed_active, speed_enabled,"
		" speed_supported, mtu_active, mtu_cap, op_vls, cap_mask, remote_guid,"
		" remote_port, remote_node_idx, smp_failed, pma_failed, no_remote"
		" FROM port_rows WHERE scan_id=?1 ORDER BY node_idx, port_num",
		snap->scan_id, &s);
	uint32_t *remote_node;
	struct memo memo[6] = { 0 };
	size_t rows = 0;
	int rc;

	if (err)
		return err;
	if ((err = count_rows(st, "port_rows", snap->scan_id, &rows)) ||
	    (err = fab_snapshot_reserve(snap, 0, rows, 0) ? NOMEM() : 0)) {
		sqlite3_finalize(s);
		return err;
	}
	/* remote node index per port, resolved to a port index once all are in */
	size_t cap = rows > 1024 ? rows : 1024;
	remote_node = malloc(cap * sizeof(*remote_node));
	if (!remote_node) {
		sqlite3_finalize(s);
		return NOMEM();
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t ni = sqlite3_column_int64(s, 0);
		struct fab_port *p;

		if (ni < 0 || (size_t)ni >= snap->n_nodes) {
			err = fab_err(-EPROTO, "database '%s': scan %lld has a port of an unknown node",
				      st->path, (long long)snap->scan_id);
			break;
		}
		if (snap->n_ports == cap) {
			uint32_t *r = realloc(remote_node, cap * 2 * sizeof(*r));
			if (!r) {
				err = NOMEM();
				break;
			}
			remote_node = r;
			cap *= 2;
		}
		struct fab_node *n = &snap->nodes[ni];
		if (!n->port_count)
			n->port_first = (uint32_t)snap->n_ports;
		n->port_count++;
		if (!(p = fab_snapshot_add_port(snap))) {
			err = NOMEM();
			break;
		}
		p->node_idx = (uint32_t)ni;
		p->port_num = (uint8_t)sqlite3_column_int(s, 1);
		p->guid = fab_sql_guid(s, 2);
		remote_node[snap->n_ports - 1] = FAB_NONE;
		if (light)
			continue;
		p->lid = (uint16_t)sqlite3_column_int(s, 3);
		if (sqlite3_column_type(s, 3) == SQLITE_NULL)
			p->flags |= FAB_F_LID_UNKNOWN;
		p->lmc = (uint8_t)sqlite3_column_int(s, 4);
		p->sm_lid = (uint16_t)sqlite3_column_int(s, 5);
		p->state = (uint8_t)parse_or(fab_state_parse(fab_sql_text(s, 6)), 0);
		p->phys_state = (uint8_t)parse_or(fab_phys_state_parse(fab_sql_text(s, 7)), 0);
		p->width_active = (uint8_t)memo_mask(&memo[0], fab_sql_text(s, 8), fab_widths_parse);
		p->width_enabled = (uint8_t)memo_mask(&memo[1], fab_sql_text(s, 9), fab_widths_parse);
		p->width_supported = (uint8_t)memo_mask(&memo[2], fab_sql_text(s, 10), fab_widths_parse);
		p->speed_active = (uint16_t)memo_mask(&memo[3], fab_sql_text(s, 11), fab_speeds_parse);
		p->speed_enabled = (uint16_t)memo_mask(&memo[4], fab_sql_text(s, 12), fab_speeds_parse);
		p->speed_supported = (uint16_t)memo_mask(&memo[5], fab_sql_text(s, 13), fab_speeds_parse);
		p->mtu_active = (uint8_t)parse_or(fab_mtu_from_bytes((unsigned)sqlite3_column_int(s, 14)), 0);
		p->mtu_cap = (uint8_t)parse_or(fab_mtu_from_bytes((unsigned)sqlite3_column_int(s, 15)), 0);
		p->op_vls = (uint8_t)sqlite3_column_int(s, 16);
		p->cap_mask = (uint32_t)sqlite3_column_int64(s, 17);
		p->remote_guid = fab_sql_guid(s, 18);
		p->remote_port = (uint8_t)sqlite3_column_int(s, 19);
		remote_node[snap->n_ports - 1] =
			sqlite3_column_type(s, 20) == SQLITE_NULL
				? FAB_NONE : (uint32_t)sqlite3_column_int64(s, 20);
		if (sqlite3_column_int(s, 21))
			p->flags |= FAB_F_SMP_FAILED;
		if (sqlite3_column_int(s, 22))
			p->flags |= FAB_F_PMA_FAILED;
		if (sqlite3_column_int(s, 23))
			p->flags |= FAB_F_NO_REMOTE;
	}
	err = fab_sql_done(st, s, rc, err);
	for (size_t i = 0; !err && i < snap->n_ports; i++) {
		struct fab_port *p = &snap->ports[i];
		if (remote_node[i] != FAB_NONE && remote_node[i] < snap->n_nodes) {
			struct fab_port *r = fab_snapshot_port(snap, remote_node[i], p->remote_port);
			if (r)
				p->remote_idx = (uint32_t)(r - snap->ports);
		}
	}
	free(remote_node);
	return err;
}

/* latest_only: keep each port's last sample only (a baseline's): read
 * backwards along the primary key, so the first row of a port is its latest
 * and the others are skipped without decoding them. */
static int load_samples(struct fab_store *st, struct fab_snapshot *snap,
			bool latest_only)
{
	char sql[1024];
	size_t off, rows = 0;
	sqlite3_stmt *s;
	struct memo when = { 0 };
	int err, rc;

	if ((err = count_rows(st, "port_counters", snap->scan_id, &rows)))
		return err;
	if (fab_snapshot_reserve(snap, 0, 0, latest_only && rows > snap->n_ports
					      ? snap->n_ports : rows))
		return NOMEM();

	off = (size_t)snprintf(sql, sizeof(sql),
			       "SELECT node_idx, port_num, sample, sampled_at, extended");
	for (unsigned c = 0; c < V1_COUNTERS; c++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", %s",
					fab_counter_name(c));
	snprintf(sql + off, sizeof(sql) - off,
		 latest_only ? " FROM port_counters WHERE scan_id=?1"
			       " ORDER BY node_idx DESC, port_num DESC, sample DESC"
			     : " FROM port_counters WHERE scan_id=?1 ORDER BY node_idx, port_num, sample");
	if ((err = fab_sql_scan_query(st, sql, snap->scan_id, &s)))
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t ni = sqlite3_column_int64(s, 0);
		struct fab_port *p;
		struct fab_counter_sample *c;

		if (ni < 0 || (size_t)ni >= snap->n_nodes ||
		    !(p = fab_snapshot_port(snap, (uint32_t)ni,
					    (unsigned)sqlite3_column_int(s, 1))))
			continue;
		uint32_t pi = (uint32_t)(p - snap->ports);
		if (latest_only && snap->n_samples &&
		    snap->samples[snap->n_samples - 1].port_idx == pi)
			continue; /* an earlier sample of the port just read */
		if (!(c = fab_snapshot_add_sample(snap))) {
			err = NOMEM();
			break;
		}
		c->port_idx = pi;
		c->sample = (uint8_t)sqlite3_column_int(s, 2);
		c->sampled_at_ms = memo_time(&when, s, 3);
		c->extended = sqlite3_column_int(s, 4);
		for (unsigned k = 0; k < V1_COUNTERS; k++) {
			if (sqlite3_column_type(s, 5 + (int)k) == SQLITE_NULL)
				continue;
			c->valid |= 1u << k;
			c->v[k] = (uint64_t)sqlite3_column_int64(s, 5 + (int)k);
		}
	}
	return fab_sql_done(st, s, rc, err);
}

static uint32_t port_by_guid(const struct fab_snapshot *snap, uint64_t node_guid,
			     int port_num)
{
	uint32_t n = fab_snapshot_find_node(snap, node_guid);
	struct fab_port *p;

	if (n == FAB_NONE || port_num < 0 ||
	    !(p = fab_snapshot_port(snap, n, (unsigned)port_num)))
		return FAB_NONE;
	return (uint32_t)(p - snap->ports);
}

static int load_sms(struct fab_store *st, struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(st,
		"SELECT port_guid, lid, state, priority, act_count, node_guid, port_num,"
		" failed FROM sms WHERE scan_id=?1 ORDER BY rowid", snap->scan_id, &s);
	int rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_sm *sm = fab_snapshot_add_sm(snap);

		if (!sm) {
			err = NOMEM();
			break;
		}
		sm->port_guid = fab_sql_guid(s, 0);
		sm->lid = (uint16_t)sqlite3_column_int(s, 1);
		sm->state = (uint8_t)parse_or(fab_sm_state_parse(fab_sql_text(s, 2)), 0);
		sm->priority = (uint8_t)sqlite3_column_int(s, 3);
		sm->act_count = (uint32_t)sqlite3_column_int64(s, 4);
		if (sqlite3_column_type(s, 5) != SQLITE_NULL)
			sm->port_idx = port_by_guid(snap, fab_sql_guid(s, 5),
						    sqlite3_column_int(s, 6));
		sm->failed = sqlite3_column_int(s, 7);
	}
	return fab_sql_done(st, s, rc, err);
}

static int load_errors(struct fab_store *st, struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(st,
		"SELECT node_guid, port_num, what, message FROM scan_errors"
		" WHERE scan_id=?1 ORDER BY rowid", snap->scan_id, &s);
	int rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int port = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1
								    : sqlite3_column_int(s, 1);
		const char *msg = fab_sql_text(s, 3);

		if ((err = fab_snapshot_add_error(snap, fab_sql_guid(s, 0), port,
						  fab_sql_text(s, 2) ? fab_sql_text(s, 2) : "",
						  "%s", msg ? msg : "")))
			break;
	}
	return fab_sql_done(st, s, rc, err);
}

static int load_findings(struct fab_store *st, struct fab_snapshot *snap)
{
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(st,
		"SELECT rule_id, severity, node, port, peer_node, peer_port, subject,"
		" message, evidence FROM findings WHERE scan_id=?1 ORDER BY rowid",
		snap->scan_id, &s);
	int rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_finding f = {
			.rule_id = fab_sql_text(s, 0),
			.severity = (uint8_t)parse_or(fab_severity_parse(fab_sql_text(s, 1)), 0),
			.node = fab_sql_text(s, 2),
			.port = fab_sql_text(s, 3),
			.peer_node = fab_sql_text(s, 4),
			.peer_port = fab_sql_text(s, 5),
			.subject = fab_sql_text(s, 6),
			.message = fab_sql_text(s, 7),
			.evidence = fab_sql_text(s, 8),
		};
		if ((err = fab_snapshot_add_finding(snap, &f)))
			break;
	}
	return fab_sql_done(st, s, rc, err);
}

/* light: a counter baseline (fab_store_load_baseline). */
static int load(struct fab_store *st, int64_t scan_id, bool light,
		struct fab_snapshot **out)
{
	struct fab_snapshot *snap;
	int err;

	if ((err = fab_store_resolve_scan(st, scan_id, &scan_id)))
		return err;
	if (!(snap = fab_snapshot_new()))
		return NOMEM();
	snap->scan_id = scan_id;
	/* One read transaction: a consistent view even while a scan commits. */
	err = fab_store_exec(st, "BEGIN", "begin a read");
	if (err)
		goto out;
	err = load_scan_row(st, snap);
	if (!err)
		err = load_nodes(st, snap, light);
	if (!err)
		err = load_ports(st, snap, light);
	if (!err)
		err = fab_snapshot_index(snap);
	if (!err && !light)
		err = fab_snapshot_build_links(snap);
	if (!err)
		err = load_samples(st, snap, light);
	if (!err && !light)
		err = load_sms(st, snap);
	if (!err && !light)
		err = load_errors(st, snap);
	if (!err && !light)
		err = load_findings(st, snap);
	if (!err)
		err = fab_store_load_roce(st, snap); /* RoCE part (store/roce_io.c) */
	if (!err)
		err = fab_snapshot_index(snap);
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
out:
	if (err) {
		fab_snapshot_free(snap);
		return err;
	}
	*out = snap;
	return 0;
}

int fab_store_load_scan(struct fab_store *st, int64_t scan_id,
			struct fab_snapshot **out)
{
	return load(st, scan_id, false, out);
}

int fab_store_load_baseline(struct fab_store *st, int64_t scan_id,
			    struct fab_snapshot **out)
{
	return load(st, scan_id, true, out);
}
