// SPDX-License-Identifier: MIT
/*
 * The routing part of a snapshot (snap->routing, include/fabsweep/routing.h)
 * in the database, inside the writer's and the loader's transactions.
 * Relations: store/schema.sql.h step 2 -> 3, docs/schema.md "Forwarding
 * tables".
 *
 * Content-addressed at three levels, each looked up by its exact content:
 * a block (64 entries) in lft_blocks, a table (its block ids) in
 * lft_tables, a fabric's routing (every switch's GUID, SwitchInfo and
 * table id) in routing_sets. A scan whose tables did not change since any
 * earlier scan adds one scan_routing row and nothing else.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "store_priv.h"

#define SW_KEY 24 /* bytes per switch in routing_sets.content */

enum { BLK_INS, BLK_GET, TAB_INS, TAB_GET, TB_INS, SET_INS, SET_GET, SW_INS, SCAN_INS, N_STMTS };

static const char *const stmt_sql[N_STMTS] = {
	[BLK_INS] = "INSERT OR IGNORE INTO lft_blocks(ports) VALUES (?1)",
	[BLK_GET] = "SELECT block_id FROM lft_blocks WHERE ports = ?1",
	[TAB_INS] = "INSERT OR IGNORE INTO lft_tables(blocks) VALUES (?1)",
	[TAB_GET] = "SELECT table_id FROM lft_tables WHERE blocks = ?1",
	[TB_INS] = "INSERT INTO lft_table_blocks(table_id, block_num, block_id) VALUES (?,?,?)",
	[SET_INS] = "INSERT OR IGNORE INTO routing_sets(content) VALUES (?1)",
	[SET_GET] = "SELECT set_id FROM routing_sets WHERE content = ?1",
	[SW_INS] = "INSERT INTO routing_set_switches(set_id, node_guid, status, fdb_cap, fdb_top,"
		   " part_enf_cap, enforce, table_id) VALUES (?,?,?,?,?,?,?,?)",
	[SCAN_INS] = "INSERT INTO scan_routing(scan_id, set_id) VALUES (?,?)",
};

struct stmts {
	sqlite3_stmt *v[N_STMTS];
};


/*
 * The blocks interned so far in this write, by content (the snapshot's own
 * bytes): the switches of a fabric share most blocks (Selene's compute
 * fabric: 62,604 read, 29,262 distinct; the 4,096-host tree: 10,720 and
 * 1,292), so each is looked up in the database once. Open addressing over
 * cap slots, a power of two at least twice the blocks.
 */
struct blk_seen {
	const uint8_t **key;
	int64_t *id;
	size_t cap;
};

static uint64_t blk_hash(const uint8_t *p)
{
	uint64_t h = 0;

	for (unsigned i = 0; i < FAB_LFT_BLOCK; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	return h;
}

/* p's slot: holding p's id, or the empty one for it. */
static size_t blk_slot(const struct blk_seen *b, const uint8_t *p)
{
	size_t j = fab_hash_slot(blk_hash(p), b->cap);

	while (b->key[j] && memcmp(b->key[j], p, FAB_LFT_BLOCK))
		j = (j + 1) & (b->cap - 1);
	return j;
}

/* One switch's table: its id in lft_tables (0 when it has none). */
static int write_table(struct fab_store *st, struct stmts *q, struct blk_seen *seen,
		       const struct fab_lft *l, uint8_t *key, int64_t *table_id)
{
	int64_t id;
	bool fresh;
	int err;

	*table_id = 0;
	if (l->status == FAB_LFT_FAILED || !l->n_blocks)
		return 0;
	for (uint32_t b = 0; b < l->n_blocks; b++) {
		const uint8_t *blk = l->port + (size_t)b * FAB_LFT_BLOCK;
		size_t j = blk_slot(seen, blk);

		id = 0;
		if (l->missing && l->missing[b]) {
			/* not read: no block */
		} else if (seen->key[j]) {
			id = seen->id[j];
		} else {
			if ((err = fab_sql_intern(st, q->v[BLK_INS], q->v[BLK_GET], "forwarding tables",
						  blk, FAB_LFT_BLOCK, &id, &fresh)))
				return err;
			seen->key[j] = blk;
			seen->id[j] = id;
		}
		fab_sql_put_le(key + 4 * (size_t)b, (uint64_t)id, 4);
	}
	if ((err = fab_sql_intern(st, q->v[TAB_INS], q->v[TAB_GET], "forwarding tables", key,
				  4 * (size_t)l->n_blocks, table_id, &fresh)))
		return err;
	for (uint32_t b = 0; fresh && b < l->n_blocks; b++) {
		uint32_t bid = (uint32_t)key[4 * b] | (uint32_t)key[4 * b + 1] << 8 |
			       (uint32_t)key[4 * b + 2] << 16 | (uint32_t)key[4 * b + 3] << 24;
		if (!bid)
			continue; /* not read: no row */
		sqlite3_bind_int64(q->v[TB_INS], 1, *table_id);
		sqlite3_bind_int(q->v[TB_INS], 2, (int)b);
		sqlite3_bind_int64(q->v[TB_INS], 3, bid);
		if ((err = fab_sql_step(st, q->v[TB_INS], "a forwarding table")))
			return err;
	}
	return 0;
}

struct swrow {
	uint64_t guid;
	const struct fab_lft *l;
	int64_t table_id;
};

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct swrow *)a)->guid, y = ((const struct swrow *)b)->guid;

	return x < y ? -1 : x > y;
}

int fab_store_write_routing(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_routing *r = snap->routing;
	struct stmts q = { 0 };
	struct swrow *rows = NULL;
	struct blk_seen seen = { .cap = 16 };
	uint8_t *key = NULL, *content = NULL;
	size_t n = 0, max_blocks = 0, all_blocks = 0;
	int64_t set_id;
	bool fresh;
	int err;

	if (!fab_routing_present(snap))
		return 0;
	if ((err = fab_sql_prepare_all(st, stmt_sql, N_STMTS, q.v)))
		goto out;
	for (size_t i = 0; i < r->n_lfts; i++) {
		if (r->lfts[i].n_blocks > max_blocks)
			max_blocks = r->lfts[i].n_blocks;
		all_blocks += r->lfts[i].n_blocks;
	}
	while (seen.cap < 2 * all_blocks)
		seen.cap *= 2;
	seen.key = calloc(seen.cap, sizeof(*seen.key));
	seen.id = malloc(seen.cap * sizeof(*seen.id));
	rows = calloc(r->n_lfts, sizeof(*rows));
	key = malloc(4 * max_blocks + 4);
	content = malloc(SW_KEY * r->n_lfts);
	if (!rows || !key || !content || !seen.key || !seen.id) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->n_lfts; i++) {
		const struct fab_lft *l = &r->lfts[i];

		if (l->node_idx >= snap->n_nodes)
			continue;
		rows[n] = (struct swrow){ .guid = snap->nodes[l->node_idx].guid, .l = l };
		if ((err = write_table(st, &q, &seen, l, key, &rows[n].table_id)))
			goto out;
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_guid);
	for (size_t i = 0; i < n; i++) {
		uint8_t *c = content + SW_KEY * i;
		const struct fab_lft *l = rows[i].l;

		fab_sql_put_le(c, rows[i].guid, 8);
		fab_sql_put_le(c + 8, (uint64_t)rows[i].table_id, 8);
		c[16] = l->status;
		c[17] = l->enforce;
		fab_sql_put_le(c + 18, l->fdb_cap, 2);
		fab_sql_put_le(c + 20, l->fdb_top, 2);
		fab_sql_put_le(c + 22, l->part_enf_cap, 2);
	}
	if ((err = fab_sql_intern(st, q.v[SET_INS], q.v[SET_GET], "forwarding tables", content,
				  SW_KEY * n, &set_id, &fresh)))
		goto out;
	for (size_t i = 0; fresh && i < n; i++) {
		const struct fab_lft *l = rows[i].l;
		sqlite3_stmt *s = q.v[SW_INS];

		sqlite3_bind_int64(s, 1, set_id);
		fab_sql_bind_guid(s, 2, rows[i].guid);
		fab_sql_bind_text(s, 3, fab_lft_status_name(l->status));
		if (l->status != FAB_LFT_FAILED) {
			sqlite3_bind_int(s, 4, l->fdb_cap);
			sqlite3_bind_int(s, 5, l->fdb_top);
			sqlite3_bind_int(s, 6, l->part_enf_cap);
			sqlite3_bind_int(s, 7, l->enforce);
			sqlite3_bind_int64(s, 8, rows[i].table_id);
		}
		err = fab_sql_step(st, s, "a switch's forwarding table");
		sqlite3_clear_bindings(s);
		if (err)
			goto out;
	}
	sqlite3_bind_int64(q.v[SCAN_INS], 1, snap->scan_id);
	sqlite3_bind_int64(q.v[SCAN_INS], 2, set_id);
	err = fab_sql_step(st, q.v[SCAN_INS], "the scan's forwarding tables");
out:
	fab_sql_finalize_all(q.v, N_STMTS);
	free(seen.key);
	free(seen.id);
	free(rows);
	free(key);
	free(content);
	return err;
}

/* ---- loading ---------------------------------------------------------------- */

static int load_table(struct fab_store *st, sqlite3_stmt *blocks, struct fab_routing *r,
		      struct fab_lft *l, int64_t table_id)
{
	uint8_t *port = fab_routing_alloc(r, (size_t)l->n_blocks * FAB_LFT_BLOCK, FAB_LFT_NO_PORT);
	uint8_t *missing = fab_routing_alloc(r, l->n_blocks, 1);
	uint32_t n_read = 0;
	int rc;

	if (!port || !missing)
		return fab_err(-ENOMEM, "out of memory");
	sqlite3_bind_int64(blocks, 1, table_id);
	while ((rc = sqlite3_step(blocks)) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(blocks, 0);
		const void *p = sqlite3_column_blob(blocks, 1);

		if (b < 0 || b >= l->n_blocks || !p || sqlite3_column_bytes(blocks, 1) != FAB_LFT_BLOCK)
			continue;
		memcpy(port + b * FAB_LFT_BLOCK, p, FAB_LFT_BLOCK);
		missing[b] = 0;
		n_read++;
	}
	sqlite3_reset(blocks);
	if (rc != SQLITE_DONE)
		return fab_err(-EIO, "cannot read forwarding tables from '%s': %s", st->path,
			       sqlite3_errmsg(st->db));
	l->port = port;
	l->missing = n_read == l->n_blocks ? NULL : missing;
	return 0;
}

struct ldrow {
	uint32_t node;
	uint8_t status, enforce;
	uint16_t cap, top, pec;
	int64_t table_id;
};

static int cmp_node(const void *a, const void *b)
{
	uint32_t x = ((const struct ldrow *)a)->node, y = ((const struct ldrow *)b)->node;

	return x < y ? -1 : x > y;
}

int fab_store_load_routing(struct fab_store *st, struct fab_snapshot *snap, const bool *whole)
{
	sqlite3_stmt *s = NULL, *blocks = NULL;
	struct ldrow *rows = NULL;
	size_t n = 0, cap = 0;
	int rc, err;

	err = fab_sql_scan_query(st, "SELECT w.node_guid, w.status, w.fdb_cap, w.fdb_top,"
				 " w.part_enf_cap, w.enforce, w.table_id FROM scan_routing r"
				 " JOIN routing_set_switches w USING (set_id) WHERE r.scan_id = ?1",
				 /* a watch sweep's tables are those of the full scan it follows */
				 snap->topology_scan_id ? snap->topology_scan_id : snap->scan_id, &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint32_t node = fab_snapshot_find_node(snap, fab_sql_guid(s, 0));
		int status = fab_lft_status_parse(fab_sql_text(s, 1));

		if (node == FAB_NONE || status < 0 || (whole && !whole[node]))
			continue; /* not loaded (a partial load), or not ours to read */
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct ldrow *p = realloc(rows, nc * sizeof(*p));
			if (!p) {
				err = fab_err(-ENOMEM, "out of memory");
				break;
			}
			rows = p;
			cap = nc;
		}
		rows[n++] = (struct ldrow){
			.node = node, .status = (uint8_t)status,
			.cap = (uint16_t)sqlite3_column_int(s, 2),
			.top = (uint16_t)sqlite3_column_int(s, 3),
			.pec = (uint16_t)sqlite3_column_int(s, 4),
			.enforce = (uint8_t)sqlite3_column_int(s, 5),
			.table_id = sqlite3_column_int64(s, 6),
		};
	}
	err = fab_sql_done(st, s, rc, err);
	if (err || !n)
		goto out;
	qsort(rows, n, sizeof(*rows), cmp_node);
	struct fab_routing *r = fab_snapshot_routing(snap);
	if (!r) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	if ((err = fab_store_prepare(st, "SELECT tb.block_num, b.ports FROM lft_table_blocks tb"
				     " JOIN lft_blocks b USING (block_id) WHERE tb.table_id = ?1",
				     &blocks)))
		goto out;
	for (size_t i = 0; i < n && !err; i++) {
		struct fab_lft *l = fab_routing_add(r);

		if (!l) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		l->node_idx = rows[i].node;
		l->status = rows[i].status;
		if (l->status == FAB_LFT_FAILED)
			continue;
		l->enforce = rows[i].enforce;
		l->fdb_cap = rows[i].cap;
		l->fdb_top = rows[i].top > FAB_LID_UNICAST_MAX ? FAB_LID_UNICAST_MAX : rows[i].top;
		l->part_enf_cap = rows[i].pec;
		l->n_blocks = l->fdb_top / FAB_LFT_BLOCK + 1u;
		err = load_table(st, blocks, r, l, rows[i].table_id);
	}
out:
	sqlite3_finalize(blocks);
	free(rows);
	return err;
}

/* ---- pruning ------------------------------------------------------------------ */

int fab_store_prune_routing(struct fab_store *st, int64_t *rows)
{
	static const char *const sql[] = {
		"DELETE FROM routing_sets WHERE set_id NOT IN (SELECT set_id FROM scan_routing)",
		"DELETE FROM routing_set_switches WHERE set_id NOT IN (SELECT set_id FROM routing_sets)",
		"DELETE FROM lft_tables WHERE table_id NOT IN"
		" (SELECT table_id FROM routing_set_switches WHERE table_id IS NOT NULL)",
		"DELETE FROM lft_table_blocks WHERE table_id NOT IN (SELECT table_id FROM lft_tables)",
		"DELETE FROM lft_blocks WHERE block_id NOT IN (SELECT block_id FROM lft_table_blocks)",
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && !err; i++)
		if (!(err = fab_store_exec(st, sql[i], "delete unused forwarding tables")))
			*rows += sqlite3_changes(st->db);
	if (!err)
		err = fab_store_prune_sl2vl(st, rows); /* store/sl2vl_io.c */
	return err;
}
