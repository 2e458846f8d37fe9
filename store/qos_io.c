// SPDX-License-Identifier: MIT
/*
 * The VL tables' part of a snapshot (snap->qos, include/fabsweep/qos.h) in
 * the database, inside the writer's and the loader's transactions:
 * why the scan read the VL tables (scan_qos.reason) and each port's
 * VLArbitrationTables. Relations: store/schema.sql.h step "11 -> 12",
 * docs/schema.md "VL and QoS tables". (The SL2VL tables the same scan read
 * are store/sl2vl_io.c's.)
 *
 * Content-addressed as the SL2VL tables are: a fabric's tables are one
 * vlarb_sets row (per port in GUID and port order: GUID, port, the two
 * lengths, the entries), looked up by that content; a scan whose tables
 * did not change adds one scan_qos row. A scan without snap->qos (no QoS
 * policy seen) adds nothing.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/qos.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "store_priv.h"

#define WHAT "VLArbitration tables"
#define HEAD 11 /* bytes of a port's key before its entries */

enum { SET_INS, SET_GET, PORT_INS, SCAN_INS, N_STMTS };

static const char *const stmt_sql[N_STMTS] = {
	[SET_INS] = "INSERT OR IGNORE INTO vlarb_sets(content) VALUES (?1)",
	[SET_GET] = "SELECT set_id FROM vlarb_sets WHERE content = ?1",
	[PORT_INS] = "INSERT OR IGNORE INTO vlarb_set_ports(set_id, node_guid, port_num, high, low)"
		     " VALUES (?,?,?,?,?)",
	[SCAN_INS] = "INSERT INTO scan_qos(scan_id, reason, vlarb_set) VALUES (?,?,?)",
};

struct vrow {
	uint64_t guid;
	uint8_t port;
	const struct fab_vlarb *v;
};

static int cmp_vrow(const void *a, const void *b)
{
	const struct vrow *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/* 2 bytes an entry: VL, weight. */
static size_t put_entries(uint8_t *p, const struct fab_vlarb_entry *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		p[2 * i] = e[i].vl;
		p[2 * i + 1] = e[i].weight;
	}
	return 2 * (size_t)n;
}

int fab_store_write_qos(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_qos *k = snap->qos;
	sqlite3_stmt *q[N_STMTS] = { 0 };
	struct vrow *rows = NULL;
	uint8_t *content = NULL, hb[2 * FAB_VLARB_MAX], lb[2 * FAB_VLARB_MAX];
	size_t n = 0, len = 0;
	int64_t set_id = 0;
	bool fresh = false;
	int err;

	if (!k || !fab_qos_reason_name(k->reason))
		return 0;
	if ((err = fab_sql_prepare_all(st, stmt_sql, N_STMTS, q)))
		goto out;
	rows = calloc(k->n_vlarb + 1, sizeof(*rows));
	content = malloc((HEAD + 4 * FAB_VLARB_MAX) * (k->n_vlarb + 1));
	if (!rows || !content) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < k->n_vlarb; i++) {
		const struct fab_vlarb *v = &k->vlarb[i];
		const struct fab_port *p = v->port_idx < snap->n_ports ? &snap->ports[v->port_idx] : NULL;

		if (p)
			rows[n++] = (struct vrow){ snap->nodes[p->node_idx].guid, p->port_num, v };
	}
	qsort(rows, n, sizeof(*rows), cmp_vrow);
	size_t m = 0; /* devices that share a GUID: the first one's */
	for (size_t i = 0; i < n; i++)
		if (!m || cmp_vrow(&rows[m - 1], &rows[i]))
			rows[m++] = rows[i];
	n = m;
	for (size_t i = 0; i < n; i++) {
		uint8_t *c = content + len;

		fab_sql_put_le(c, rows[i].guid, 8);
		c[8] = rows[i].port;
		c[9] = rows[i].v->n_high;
		c[10] = rows[i].v->n_low;
		len += HEAD;
		len += put_entries(content + len, rows[i].v->high, rows[i].v->n_high);
		len += put_entries(content + len, rows[i].v->low, rows[i].v->n_low);
	}
	if (n && (err = fab_sql_intern(st, q[SET_INS], q[SET_GET], WHAT, content, len, &set_id,
				       &fresh)))
		goto out;
	for (size_t i = 0; fresh && i < n; i++) {
		sqlite3_stmt *s = q[PORT_INS];
		const struct fab_vlarb *v = rows[i].v;

		sqlite3_bind_int64(s, 1, set_id);
		fab_sql_bind_guid(s, 2, rows[i].guid);
		sqlite3_bind_int(s, 3, rows[i].port);
		sqlite3_bind_blob(s, 4, hb, (int)put_entries(hb, v->high, v->n_high), SQLITE_TRANSIENT);
		sqlite3_bind_blob(s, 5, lb, (int)put_entries(lb, v->low, v->n_low), SQLITE_TRANSIENT);
		if ((err = fab_sql_step(st, s, "a VLArbitration table")))
			goto out;
	}
	sqlite3_bind_int64(q[SCAN_INS], 1, snap->scan_id);
	sqlite3_bind_text(q[SCAN_INS], 2, fab_qos_reason_name(k->reason), -1, SQLITE_STATIC);
	if (n)
		sqlite3_bind_int64(q[SCAN_INS], 3, set_id);
	err = fab_sql_step(st, q[SCAN_INS], "the scan's VL tables");
out:
	fab_sql_finalize_all(q, N_STMTS);
	free(rows);
	free(content);
	return err;
}

/* A port's table from its two blobs; false when they do not fit. */
static bool decode(struct fab_vlarb *v, const uint8_t *high, int nh, const uint8_t *low, int nl)
{
	if (nh < 0 || nl < 0 || nh % 2 || nl % 2 || nh > 2 * FAB_VLARB_MAX || nl > 2 * FAB_VLARB_MAX ||
	    (nh && !high) || (nl && !low))
		return false;
	v->n_high = (uint8_t)(nh / 2);
	v->n_low = (uint8_t)(nl / 2);
	for (int i = 0; i < nh / 2; i++)
		v->high[i] = (struct fab_vlarb_entry){ high[2 * i] & 15, high[2 * i + 1] };
	for (int i = 0; i < nl / 2; i++)
		v->low[i] = (struct fab_vlarb_entry){ low[2 * i] & 15, low[2 * i + 1] };
	return true;
}

static int add_rows(struct fab_store *st, struct fab_snapshot *snap, sqlite3_stmt *s)
{
	int rc, err = 0;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint32_t node = fab_snapshot_find_node(snap, fab_sql_guid(s, 0));
		int port = sqlite3_column_int(s, 1);
		const struct fab_port *p = node == FAB_NONE || port < 1 || port > 255
						   ? NULL : fab_snapshot_port(snap, node, (unsigned)port);
		struct fab_vlarb v = { 0 };

		if (!p || !decode(&v, sqlite3_column_blob(s, 2), sqlite3_column_bytes(s, 2),
				  sqlite3_column_blob(s, 3), sqlite3_column_bytes(s, 3)))
			continue; /* not loaded (a partial load), or not ours to read */
		struct fab_vlarb *t = fab_qos_add_vlarb(snap->qos);
		if (!t) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		v.port_idx = (uint32_t)(p - snap->ports);
		*t = v;
	}
	if (!err && rc != SQLITE_DONE)
		err = fab_err(-EIO, "database '%s': read %s: %s", fab_store_path(st), WHAT,
			      sqlite3_errmsg(st->db));
	sqlite3_reset(s);
	return err;
}

int fab_store_load_qos(struct fab_store *st, struct fab_snapshot *snap, const bool *whole)
{
	int64_t scan = snap->topology_scan_id ? snap->topology_scan_id : snap->scan_id;
	sqlite3_stmt *s = NULL;
	int rc, reason = -1, err;

	err = fab_sql_scan_query(st, "SELECT reason FROM scan_qos WHERE scan_id = ?1", scan, &s);
	if (err)
		return err;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		reason = fab_qos_reason_parse(fab_sql_text(s, 0));
	err = fab_sql_done(st, s, rc == SQLITE_ROW ? SQLITE_DONE : rc, 0);
	if (err || reason < 0)
		return err; /* the scan did not read them */
	if (!fab_snapshot_qos(snap))
		return fab_err(-ENOMEM, "out of memory");
	snap->qos->reason = (uint8_t)reason;
	err = fab_sql_scan_query(st,
				 whole ? "SELECT t.node_guid, t.port_num, t.high, t.low FROM scan_qos r"
					 " JOIN vlarb_set_ports t ON t.set_id = r.vlarb_set"
					 " WHERE r.scan_id = ?1 AND t.node_guid = ?2"
				       : "SELECT t.node_guid, t.port_num, t.high, t.low FROM scan_qos r"
					 " JOIN vlarb_set_ports t ON t.set_id = r.vlarb_set"
					 " WHERE r.scan_id = ?1",
				 scan, &s);
	if (err)
		return err;
	if (!whole)
		err = add_rows(st, snap, s);
	for (size_t i = 0; whole && i < snap->n_nodes && !err; i++) {
		if (!whole[i])
			continue;
		fab_sql_bind_guid(s, 2, snap->nodes[i].guid);
		err = add_rows(st, snap, s);
	}
	sqlite3_finalize(s);
	fab_qos_sort(snap->qos);
	return err;
}

int fab_store_prune_qos(struct fab_store *st, int64_t *rows)
{
	static const char *const sql[] = {
		"DELETE FROM vlarb_sets WHERE set_id NOT IN"
		" (SELECT vlarb_set FROM scan_qos WHERE vlarb_set IS NOT NULL)",
		"DELETE FROM vlarb_set_ports WHERE set_id NOT IN (SELECT set_id FROM vlarb_sets)",
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && !err; i++)
		if (!(err = fab_store_exec(st, sql[i], "delete unused VLArbitration tables")))
			*rows += sqlite3_changes(st->db);
	return err;
}
