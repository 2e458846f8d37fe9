// SPDX-License-Identifier: MIT
/*
 * The SL2VL tables of a snapshot (snap->routing->sl2vl,
 * include/fabsweep/routing.h) in the database, inside the writer's and the
 * loader's transactions, with the forwarding tables (store/routing_io.c
 * calls these). Relations: store/schema.sql.h step 8 -> 9, docs/schema.md
 * "SL2VL tables".
 *
 * Content-addressed as the forwarding tables are: a fabric's tables (26
 * bytes each: switch GUID, in-port, out-port, the 16 SLs' VLs, in GUID and
 * port order) are one sl2vl_sets row, looked up by that content; a scan
 * whose tables did not change adds one scan_sl2vl row. A scan that read no
 * table (no credit loop needed them, or --no-routes) adds nothing.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "store_priv.h"

#define TAB_KEY 26 /* bytes per table in sl2vl_sets.content */
#define WHAT "SL2VL tables"

enum { SET_INS, SET_GET, TAB_INS, SCAN_INS, N_STMTS };

static const char *const stmt_sql[N_STMTS] = {
	[SET_INS] = "INSERT OR IGNORE INTO sl2vl_sets(content) VALUES (?1)",
	[SET_GET] = "SELECT set_id FROM sl2vl_sets WHERE content = ?1",
	[TAB_INS] = "INSERT OR IGNORE INTO sl2vl_set_tables(set_id, node_guid, in_port, out_port, vls)"
		    " VALUES (?,?,?,?,?)",
	[SCAN_INS] = "INSERT INTO scan_sl2vl(scan_id, set_id) VALUES (?,?)",
};

struct trow {
	uint64_t guid;
	const struct fab_sl2vl *t;
};

static int cmp_trow(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->t->in != y->t->in)
		return x->t->in < y->t->in ? -1 : 1;
	return (x->t->out > y->t->out) - (x->t->out < y->t->out);
}

int fab_store_write_sl2vl(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_routing *r = snap->routing;
	sqlite3_stmt *q[N_STMTS] = { 0 };
	struct trow *rows = NULL;
	uint8_t *content = NULL;
	size_t n = 0;
	int64_t set_id;
	bool fresh;
	int err;

	if (!r || !r->n_sl2vl)
		return 0;
	if ((err = fab_sql_prepare_all(st, stmt_sql, N_STMTS, q)))
		goto out;
	rows = calloc(r->n_sl2vl, sizeof(*rows));
	content = malloc(TAB_KEY * r->n_sl2vl);
	if (!rows || !content) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->n_sl2vl; i++)
		if (r->sl2vl[i].node_idx < snap->n_nodes)
			rows[n++] = (struct trow){ snap->nodes[r->sl2vl[i].node_idx].guid, &r->sl2vl[i] };
	qsort(rows, n, sizeof(*rows), cmp_trow);
	/* devices that share a GUID: the first one's table is kept */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || cmp_trow(&rows[k - 1], &rows[i]))
			rows[k++] = rows[i];
	n = k;
	for (size_t i = 0; i < n; i++) {
		uint8_t *c = content + TAB_KEY * i;

		fab_sql_put_le(c, rows[i].guid, 8);
		c[8] = rows[i].t->in;
		c[9] = rows[i].t->out;
		memcpy(c + 10, rows[i].t->vl, FAB_N_SL);
	}
	if ((err = fab_sql_intern(st, q[SET_INS], q[SET_GET], WHAT, content, TAB_KEY * n, &set_id,
				  &fresh)))
		goto out;
	for (size_t i = 0; fresh && i < n; i++) {
		sqlite3_stmt *s = q[TAB_INS];

		sqlite3_bind_int64(s, 1, set_id);
		fab_sql_bind_guid(s, 2, rows[i].guid);
		sqlite3_bind_int(s, 3, rows[i].t->in);
		sqlite3_bind_int(s, 4, rows[i].t->out);
		sqlite3_bind_blob(s, 5, rows[i].t->vl, FAB_N_SL, SQLITE_STATIC);
		if ((err = fab_sql_step(st, s, "an SL2VL table")))
			goto out;
	}
	sqlite3_bind_int64(q[SCAN_INS], 1, snap->scan_id);
	sqlite3_bind_int64(q[SCAN_INS], 2, set_id);
	err = fab_sql_step(st, q[SCAN_INS], "the scan's SL2VL tables");
out:
	fab_sql_finalize_all(q, N_STMTS);
	free(rows);
	free(content);
	return err;
}

/* Appends the tables a prepared query returns (node_guid, in_port,
 * out_port, vls) to snap's; rows of nodes not in the snapshot are skipped. */
static int add_tables(struct fab_store *st, struct fab_snapshot *snap, sqlite3_stmt *s)
{
	char last[32]; /* the row before's GUID ("": none): a node's rows come together */
	uint32_t node = FAB_NONE;
	int rc, err = 0;

	last[0] = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *g = (const char *)sqlite3_column_text(s, 0);

		if (!g || !*g || strcmp(g, last)) { /* parsed and looked up once per node */
			node = fab_snapshot_find_node(snap, fab_sql_guid(s, 0));
			snprintf(last, sizeof(last), "%s", g && strlen(g) < sizeof(last) ? g : "");
		}
		int in = sqlite3_column_int(s, 1), out = sqlite3_column_int(s, 2);
		const uint8_t *vls = sqlite3_column_blob(s, 3);

		if (node == FAB_NONE || in < 0 || in > 255 || out < 0 || out > 255 || !vls ||
		    sqlite3_column_bytes(s, 3) != FAB_N_SL)
			continue;
		struct fab_sl2vl *t = fab_routing_add_sl2vl(snap->routing);
		if (!t) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		t->node_idx = node;
		t->in = (uint8_t)in;
		t->out = (uint8_t)out;
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			t->vl[sl] = vls[sl] & 15;
	}
	if (!err && rc != SQLITE_DONE)
		err = fab_err(-EIO, "database '%s': read %s: %s", fab_store_path(st), WHAT,
			      sqlite3_errmsg(st->db));
	sqlite3_reset(s);
	return err;
}

/*
 * A whole snapshot reads its scan's set in one query. A view (whole: the
 * nodes loaded whole, as `route` and `ready` load a path's switches) asks
 * for those switches only, through the primary key: a fabric-wide credit
 * loop's set holds hundreds of thousands of tables, and walking them all to
 * keep a path's few cost `route` 250 ms on Selene.
 */
int fab_store_load_sl2vl(struct fab_store *st, struct fab_snapshot *snap, const bool *whole)
{
	sqlite3_stmt *s = NULL;
	int err;

	err = fab_sql_scan_query(st,
				 whole ? "SELECT t.node_guid, t.in_port, t.out_port, t.vls"
					 " FROM scan_sl2vl r JOIN sl2vl_set_tables t USING (set_id)"
					 " WHERE r.scan_id = ?1 AND t.node_guid = ?2"
				       : "SELECT t.node_guid, t.in_port, t.out_port, t.vls"
					 " FROM scan_sl2vl r JOIN sl2vl_set_tables t USING (set_id)"
					 " WHERE r.scan_id = ?1",
				 snap->topology_scan_id ? snap->topology_scan_id : snap->scan_id, &s);
	if (err)
		return err;
	if (!snap->routing && !fab_snapshot_routing(snap))
		err = fab_err(-ENOMEM, "out of memory");
	else if (!whole) {
		err = add_tables(st, snap, s);
	} else {
		for (size_t i = 0; i < snap->n_nodes && !err; i++) {
			if (!whole[i] || snap->nodes[i].type != FAB_NODE_SWITCH)
				continue;
			fab_sql_bind_guid(s, 2, snap->nodes[i].guid);
			err = add_tables(st, snap, s);
		}
	}
	sqlite3_finalize(s);
	if (snap->routing) {
		fab_routing_sort_sl2vl(snap->routing);
		if (!snap->routing->n_sl2vl && !snap->routing->n_lfts) { /* neither */
			fab_routing_free(snap->routing);
			snap->routing = NULL;
		}
	}
	return err;
}

int fab_store_prune_sl2vl(struct fab_store *st, int64_t *rows)
{
	static const char *const sql[] = {
		"DELETE FROM sl2vl_sets WHERE set_id NOT IN (SELECT set_id FROM scan_sl2vl)",
		"DELETE FROM sl2vl_set_tables WHERE set_id NOT IN (SELECT set_id FROM sl2vl_sets)",
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && !err; i++)
		if (!(err = fab_store_exec(st, sql[i], "delete unused SL2VL tables")))
			*rows += sqlite3_changes(st->db);
	return err;
}
