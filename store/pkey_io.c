// SPDX-License-Identifier: MIT
/*
 * The partition part of a snapshot (snap->pkeys, include/fabsweep/pkey.h)
 * in the database, inside the writer's and the loader's transactions.
 * Relations: store/schema.sql.h step 5 -> 6, docs/schema.md "Partitions".
 *
 * Content-addressed like the forwarding tables (store/routing_io.c, the
 * same fab_sql_intern): a P_Key table (its entries) in pkey_tables, with
 * its non-empty entries as rows of pkey_table_entries once; a fabric's
 * partitions (every port's GUID, number, status, enforcement bits, size
 * and table id) in pkey_sets. A scan whose tables did not change since any
 * earlier scan adds one scan_pkeys row and nothing else.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/pkey.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "store_priv.h"

#define PORT_KEY 17 /* bytes per port in pkey_sets.content */
#define WHAT "P_Key tables"

enum { TAB_INS, TAB_GET, ENT_INS, SET_INS, SET_GET, PORT_INS, SCAN_INS, N_STMTS };

static const char *const stmt_sql[N_STMTS] = {
	[TAB_INS] = "INSERT OR IGNORE INTO pkey_tables(pkeys) VALUES (?1)",
	[TAB_GET] = "SELECT table_id FROM pkey_tables WHERE pkeys = ?1",
	[ENT_INS] = "INSERT INTO pkey_table_entries(table_id, idx, pkey) VALUES (?,?,?)",
	[SET_INS] = "INSERT OR IGNORE INTO pkey_sets(content) VALUES (?1)",
	[SET_GET] = "SELECT set_id FROM pkey_sets WHERE content = ?1",
	[PORT_INS] = "INSERT INTO pkey_set_ports(set_id, node_guid, port_num, status, pkey_cap,"
		     " enforce, table_id) VALUES (?,?,?,?,?,?,?)",
	[SCAN_INS] = "INSERT INTO scan_pkeys(scan_id, set_id) VALUES (?,?)",
};

struct prow {
	uint64_t guid;
	uint8_t port;
	const struct fab_port_pkeys *t;
	int64_t table_id;
};

static int cmp_prow(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->port != y->port)
		return (int)x->port - (int)y->port;
	return x->t->port_idx < y->t->port_idx ? -1 : x->t->port_idx > y->t->port_idx;
}

/* One port's table: its id in pkey_tables (0 when none was read). */
static int write_table(struct fab_store *st, sqlite3_stmt **q, const struct fab_port_pkeys *t,
		       uint8_t *key, int64_t *table_id)
{
	bool fresh;
	int err;

	*table_id = 0;
	if (t->status == FAB_LFT_FAILED)
		return 0;
	for (size_t i = 0; i < t->n; i++)
		fab_sql_put_le(key + 2 * i, t->pkey[i], 2);
	if ((err = fab_sql_intern(st, q[TAB_INS], q[TAB_GET], WHAT, key, 2 * (size_t)t->n, table_id,
				  &fresh)))
		return err;
	for (size_t i = 0; fresh && i < t->n; i++) {
		if (!t->pkey[i])
			continue;
		sqlite3_bind_int64(q[ENT_INS], 1, *table_id);
		sqlite3_bind_int(q[ENT_INS], 2, (int)i);
		sqlite3_bind_int(q[ENT_INS], 3, t->pkey[i]);
		if ((err = fab_sql_step(st, q[ENT_INS], "a P_Key table")))
			return err;
	}
	return 0;
}

int fab_store_write_pkeys(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_pkeys *k = snap->pkeys;
	sqlite3_stmt *q[N_STMTS] = { 0 };
	struct prow *rows = NULL;
	uint8_t *key = NULL, *content = NULL;
	size_t n = 0;
	int64_t set_id;
	bool fresh;
	int err;

	if (!fab_pkeys_present(snap))
		return 0;
	if ((err = fab_sql_prepare_all(st, stmt_sql, N_STMTS, q)))
		goto out;
	rows = calloc(k->n, sizeof(*rows));
	key = malloc(2 * (size_t)UINT16_MAX + 2);
	content = malloc(PORT_KEY * k->n + 1);
	if (!rows || !key || !content) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < k->n; i++) {
		const struct fab_port_pkeys *t = &k->ports[i];

		if (t->port_idx >= snap->n_ports)
			continue;
		const struct fab_port *p = &snap->ports[t->port_idx];
		rows[n] = (struct prow){ .guid = snap->nodes[p->node_idx].guid, .port = p->port_num,
					 .t = t };
		if ((err = write_table(st, q, t, key, &rows[n].table_id)))
			goto out;
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_prow);
	/* devices that share a GUID (guid.duplicate): the rows are keyed by
	 * GUID and port, so the first device's table is kept, as the loader
	 * finds the first node of a GUID */
	size_t k2 = 0;
	for (size_t i = 0; i < n; i++)
		if (!k2 || rows[i].guid != rows[k2 - 1].guid || rows[i].port != rows[k2 - 1].port)
			rows[k2++] = rows[i];
	n = k2;
	for (size_t i = 0; i < n; i++) {
		uint8_t *c = content + PORT_KEY * i;
		const struct fab_port_pkeys *t = rows[i].t;

		fab_sql_put_le(c, rows[i].guid, 8);
		c[8] = rows[i].port;
		c[9] = t->status;
		c[10] = t->enforce;
		fab_sql_put_le(c + 11, t->cap, 2);
		fab_sql_put_le(c + 13, (uint64_t)rows[i].table_id, 4);
	}
	if ((err = fab_sql_intern(st, q[SET_INS], q[SET_GET], WHAT, content, PORT_KEY * n, &set_id,
				  &fresh)))
		goto out;
	for (size_t i = 0; fresh && i < n; i++) {
		const struct fab_port_pkeys *t = rows[i].t;
		sqlite3_stmt *s = q[PORT_INS];

		sqlite3_bind_int64(s, 1, set_id);
		fab_sql_bind_guid(s, 2, rows[i].guid);
		sqlite3_bind_int(s, 3, rows[i].port);
		fab_sql_bind_text(s, 4, fab_lft_status_name(t->status));
		sqlite3_bind_int(s, 5, t->cap);
		sqlite3_bind_int(s, 6, t->enforce);
		if (rows[i].table_id)
			sqlite3_bind_int64(s, 7, rows[i].table_id);
		err = fab_sql_step(st, s, "a port's P_Key table");
		sqlite3_clear_bindings(s);
		if (err)
			goto out;
	}
	sqlite3_bind_int64(q[SCAN_INS], 1, snap->scan_id);
	sqlite3_bind_int64(q[SCAN_INS], 2, set_id);
	err = fab_sql_step(st, q[SCAN_INS], "the scan's P_Key tables");
out:
	fab_sql_finalize_all(q, N_STMTS);
	free(rows);
	free(key);
	free(content);
	return err;
}

/* ---- loading ---------------------------------------------------------------- */

struct lrow {
	uint32_t port;
	uint8_t status, enforce;
	uint16_t cap;
	int64_t table_id;
};

static int cmp_table(const void *a, const void *b)
{
	int64_t x = ((const struct lrow *)a)->table_id, y = ((const struct lrow *)b)->table_id;

	return x < y ? -1 : x > y;
}

static int cmp_port(const void *a, const void *b)
{
	uint32_t x = ((const struct fab_port_pkeys *)a)->port_idx;
	uint32_t y = ((const struct fab_port_pkeys *)b)->port_idx;

	return x < y ? -1 : x > y;
}

/* A row of the query (node_guid, port_num, status, pkey_cap, enforce,
 * table_id) for a loaded port: appended to *rows. */
static int take_row(struct fab_snapshot *snap, sqlite3_stmt *s, struct lrow **rows, size_t *n,
		    size_t *cap)
{
	uint32_t node = fab_snapshot_find_node(snap, fab_sql_guid(s, 0));
	const struct fab_port *p = node == FAB_NONE ? NULL
				   : fab_snapshot_port(snap, node, (unsigned)sqlite3_column_int(s, 1));
	int status = fab_lft_status_parse(fab_sql_text(s, 2));

	if (!p || status < 0)
		return 0; /* not loaded (a partial load), or not ours to read */
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct lrow *r = realloc(*rows, nc * sizeof(*r));
		if (!r)
			return fab_err(-ENOMEM, "out of memory");
		*rows = r;
		*cap = nc;
	}
	(*rows)[(*n)++] = (struct lrow){
		.port = (uint32_t)(p - snap->ports), .status = (uint8_t)status,
		.cap = (uint16_t)sqlite3_column_int(s, 3),
		.enforce = (uint8_t)sqlite3_column_int(s, 4),
		.table_id = sqlite3_column_int64(s, 5),
	};
	return 0;
}

/* One stored table into k's memory: *out and *n. */
static int load_table(struct fab_store *st, sqlite3_stmt *ent, struct fab_pkeys *k,
		      int64_t table_id, const uint16_t **out, uint16_t *n)
{
	uint16_t buf[FAB_PKEY_MAX_ENTRIES] = { 0 };
	unsigned len = 0;
	int rc;

	sqlite3_bind_int64(ent, 1, table_id);
	while ((rc = sqlite3_step(ent)) == SQLITE_ROW) {
		int64_t i = sqlite3_column_int64(ent, 0);
		if (i < 0 || i >= FAB_PKEY_MAX_ENTRIES)
			continue;
		buf[i] = (uint16_t)sqlite3_column_int(ent, 1);
		if ((unsigned)i + 1 > len)
			len = (unsigned)i + 1;
	}
	sqlite3_reset(ent);
	if (rc != SQLITE_DONE)
		return fab_err(-EIO, "cannot read P_Key tables from '%s': %s", st->path,
			       sqlite3_errmsg(st->db));
	uint16_t *p = fab_pkeys_alloc(k, len);
	if (!p)
		return fab_err(-ENOMEM, "out of memory");
	memcpy(p, buf, len * sizeof(*p));
	*out = p;
	*n = (uint16_t)len;
	return 0;
}

int fab_store_load_pkeys(struct fab_store *st, struct fab_snapshot *snap, bool partial)
{
	static const char cols[] = "SELECT w.node_guid, w.port_num, w.status, w.pkey_cap, w.enforce,"
				   " w.table_id FROM scan_pkeys r JOIN pkey_set_ports w USING (set_id)"
				   " WHERE r.scan_id = ?1";
	sqlite3_stmt *s = NULL, *ent = NULL;
	struct lrow *rows = NULL;
	size_t n = 0, cap = 0;
	int rc, err;
	char sql[sizeof(cols) + 64];

	/* a partial load (ready's hosts, with or without every switch) looks
	 * up by key the ports of its CAs and the ports cabled to them: the
	 * tables ready judges */
	snprintf(sql, sizeof(sql), "%s%s", cols, partial ? " AND w.node_guid = ?2 AND w.port_num = ?3" : "");
	/* a watch sweep's partitions are those of the full scan it follows */
	if ((err = fab_sql_scan_query(st, sql, snap->topology_scan_id ? snap->topology_scan_id
								      : snap->scan_id, &s)))
		return err;
	if (!partial) {
		while ((rc = sqlite3_step(s)) == SQLITE_ROW && !err)
			err = take_row(snap, s, &rows, &n, &cap);
		err = fab_sql_done(st, s, rc == SQLITE_ROW ? SQLITE_DONE : rc, err);
		s = NULL;
	} else {
		for (size_t i = 0; i < snap->n_ports && !err; i++) {
			const struct fab_port *p = &snap->ports[i];

			if (snap->nodes[p->node_idx].type != FAB_NODE_CA &&
			    (p->remote_idx == FAB_NONE ||
			     snap->nodes[snap->ports[p->remote_idx].node_idx].type != FAB_NODE_CA))
				continue;
			fab_sql_bind_guid(s, 2, snap->nodes[p->node_idx].guid);
			sqlite3_bind_int(s, 3, p->port_num);
			while ((rc = sqlite3_step(s)) == SQLITE_ROW && !err)
				err = take_row(snap, s, &rows, &n, &cap);
			sqlite3_reset(s);
			if (!err && rc != SQLITE_DONE && rc != SQLITE_ROW)
				err = fab_err(-EIO, "cannot read P_Key tables from '%s': %s", st->path,
					      sqlite3_errmsg(st->db));
		}
	}
	if (err || !n)
		goto out;
	struct fab_pkeys *k = fab_snapshot_pkeys(snap);
	if (!k) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	if ((err = fab_store_prepare(st, "SELECT idx, pkey FROM pkey_table_entries"
				     " WHERE table_id = ?1", &ent)))
		goto out;
	/* each distinct table read once */
	qsort(rows, n, sizeof(*rows), cmp_table);
	const uint16_t *tab = NULL;
	uint16_t tn = 0;
	for (size_t i = 0; i < n && !err; i++) {
		struct fab_port_pkeys *t = fab_pkeys_add(k);

		if (!t) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		*t = (struct fab_port_pkeys){ .port_idx = rows[i].port, .status = rows[i].status,
					      .enforce = rows[i].enforce, .cap = rows[i].cap };
		if (!rows[i].table_id || t->status == FAB_LFT_FAILED)
			continue;
		if (!i || rows[i].table_id != rows[i - 1].table_id || !tab)
			err = load_table(st, ent, k, rows[i].table_id, &tab, &tn);
		t->pkey = tab;
		t->n = tn;
	}
	qsort(k->ports, k->n, sizeof(*k->ports), cmp_port);
out:
	sqlite3_finalize(s);
	sqlite3_finalize(ent);
	free(rows);
	return err;
}

/* ---- pruning ------------------------------------------------------------------ */

int fab_store_prune_pkeys(struct fab_store *st, int64_t *rows)
{
	static const char *const sql[] = {
		"DELETE FROM pkey_sets WHERE set_id NOT IN (SELECT set_id FROM scan_pkeys)",
		"DELETE FROM pkey_set_ports WHERE set_id NOT IN (SELECT set_id FROM pkey_sets)",
		"DELETE FROM pkey_tables WHERE table_id NOT IN"
		" (SELECT table_id FROM pkey_set_ports WHERE table_id IS NOT NULL)",
		"DELETE FROM pkey_table_entries WHERE table_id NOT IN (SELECT table_id FROM pkey_tables)",
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && !err; i++)
		if (!(err = fab_store_exec(st, sql[i], "delete unused P_Key tables")))
			*rows += sqlite3_changes(st->db);
	return err;
}
