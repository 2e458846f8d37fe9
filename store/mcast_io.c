// SPDX-License-Identifier: MIT
/*
 * The multicast part of a snapshot (snap->mcast, include/fabsweep/mcast.h)
 * in the database, inside the writer's and the loader's transactions.
 * Relations: store/schema.sql.h (the multicast step), docs/schema.md
 * "Multicast".
 *
 * Content-addressed like the forwarding tables (store/routing_io.c), each
 * level looked up by its exact content:
 *   - a group: its fields and members (mcast_group_rows.content; the
 *     columns and mcast_member_rows are written once, for the views);
 *   - a fabric's groups: whether the members were read, then the group ids
 *     (mcast_group_sets);
 *   - a switch's table: its blocks as read (mft_tables.content; the ports
 *     of each MLID once in mft_table_entries, for the view);
 *   - a fabric's tables: every switch's GUID, table id and SwitchInfo
 *     (mft_sets).
 * A scan whose groups and tables did not change adds one scan_mcast row.
 * The loader reads the content blobs (the columns are for SQL users).
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "store_priv.h"

#define WHAT "multicast groups and tables"
#define GROUP_HEAD 36 /* bytes of a group's fields in its content */
#define MEMBER_KEY 18 /* bytes per member */
#define SW_KEY 22     /* bytes per switch in mft_sets.content */

enum { G_INS, G_GET, G_UPD, M_INS, GS_INS, GS_GET, SG_INS, T_INS, T_GET, E_INS, TS_INS, TS_GET,
       SW_INS, SCAN_INS, N_STMTS };

static const char *const stmt_sql[N_STMTS] = {
	[G_INS] = "INSERT OR IGNORE INTO mcast_group_rows(content) VALUES (?1)",
	[G_GET] = "SELECT group_id FROM mcast_group_rows WHERE content = ?1",
	[G_UPD] = "UPDATE mcast_group_rows SET mgid = ?2, mlid = ?3, qkey = ?4, pkey = ?5, mtu = ?6,"
		  " rate = ?7, pkt_life = ?8, sl = ?9, tclass = ?10, flow_label = ?11, hop_limit = ?12,"
		  " scope = ?13, n_members = ?14 WHERE group_id = ?1",
	[M_INS] = "INSERT INTO mcast_member_rows(group_id, port_guid, gid_prefix, join_state,"
		  " proxy_join) VALUES (?,?,?,?,?)",
	[GS_INS] = "INSERT OR IGNORE INTO mcast_group_sets(content) VALUES (?1)",
	[GS_GET] = "SELECT set_id FROM mcast_group_sets WHERE content = ?1",
	[SG_INS] = "INSERT OR IGNORE INTO mcast_set_groups(set_id, group_id) VALUES (?,?)",
	[T_INS] = "INSERT OR IGNORE INTO mft_tables(content) VALUES (?1)",
	[T_GET] = "SELECT table_id FROM mft_tables WHERE content = ?1",
	[E_INS] = "INSERT OR IGNORE INTO mft_table_entries(table_id, mlid, port) VALUES (?,?,?)",
	[TS_INS] = "INSERT OR IGNORE INTO mft_sets(content) VALUES (?1)",
	[TS_GET] = "SELECT set_id FROM mft_sets WHERE content = ?1",
	[SW_INS] = "INSERT INTO mft_set_switches(set_id, node_guid, status, mcast_cap, mcast_top,"
		   " top_valid, table_id) VALUES (?,?,?,?,?,?,?)",
	[SCAN_INS] = "INSERT INTO scan_mcast(scan_id, group_set_id, mft_set_id) VALUES (?,?,?)",
};

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* ---- writing ----------------------------------------------------------------- */

static int write_group(struct fab_store *st, sqlite3_stmt **q, const struct fab_mcast *m,
		       const struct fab_mc_group *g, uint8_t *key, int64_t *id)
{
	uint8_t *c = key;
	bool fresh;
	int err;

	memcpy(c, g->mgid, 16);
	fab_sql_put_le(c + 16, g->mlid, 2);
	fab_sql_put_le(c + 18, g->qkey, 4);
	fab_sql_put_le(c + 22, g->pkey, 2);
	c[24] = g->mtu;
	c[25] = g->rate;
	c[26] = g->pkt_life;
	c[27] = g->sl;
	c[28] = g->tclass;
	c[29] = g->hop_limit;
	c[30] = g->scope;
	fab_sql_put_le(c + 31, g->flow_label, 4);
	c[35] = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		const struct fab_mc_member *mb = &m->members[g->first + i];
		uint8_t *x = c + GROUP_HEAD + (size_t)MEMBER_KEY * i;

		fab_sql_put_le(x, mb->port_guid, 8);
		fab_sql_put_le(x + 8, mb->gid_prefix, 8);
		x[16] = mb->join_state;
		x[17] = mb->proxy;
	}
	if ((err = fab_sql_intern(st, q[G_INS], q[G_GET], WHAT, key,
				  GROUP_HEAD + (size_t)MEMBER_KEY * g->n, id, &fresh)) || !fresh)
		return err;
	char mgid[FAB_MGID_STRLEN];
	sqlite3_stmt *u = q[G_UPD];
	sqlite3_bind_int64(u, 1, *id);
	sqlite3_bind_text(u, 2, fab_mgid_format(g->mgid, mgid), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(u, 3, g->mlid);
	sqlite3_bind_int64(u, 4, g->qkey);
	sqlite3_bind_int(u, 5, g->pkey);
	sqlite3_bind_int(u, 6, g->mtu);
	sqlite3_bind_int(u, 7, g->rate);
	sqlite3_bind_int(u, 8, g->pkt_life);
	sqlite3_bind_int(u, 9, g->sl);
	sqlite3_bind_int(u, 10, g->tclass);
	sqlite3_bind_int64(u, 11, g->flow_label);
	sqlite3_bind_int(u, 12, g->hop_limit);
	sqlite3_bind_int(u, 13, g->scope);
	sqlite3_bind_int64(u, 14, g->n);
	if ((err = fab_sql_step(st, u, "a multicast group")))
		return err;
	for (uint32_t i = 0; i < g->n; i++) {
		const struct fab_mc_member *mb = &m->members[g->first + i];
		sqlite3_stmt *s = q[M_INS];

		if (i && mb->port_guid == m->members[g->first + i - 1].port_guid)
			continue; /* one row per port (a damaged answer may repeat one) */
		sqlite3_bind_int64(s, 1, *id);
		fab_sql_bind_guid(s, 2, mb->port_guid);
		fab_sql_bind_guid(s, 3, mb->gid_prefix);
		sqlite3_bind_int(s, 4, mb->join_state);
		sqlite3_bind_int(s, 5, mb->proxy);
		if ((err = fab_sql_step(st, s, "a multicast group's member")))
			return err;
	}
	return 0;
}

static int write_groups(struct fab_store *st, sqlite3_stmt **q, const struct fab_mcast *m,
			int64_t *set_id)
{
	size_t max = 0;
	uint8_t *key, *content = malloc(1 + 4 * m->n_groups);
	int64_t *ids = calloc(m->n_groups + 1, sizeof(*ids));
	bool fresh;
	int err = 0;

	for (size_t i = 0; i < m->n_groups; i++)
		if (m->groups[i].n > max)
			max = m->groups[i].n;
	key = malloc(GROUP_HEAD + MEMBER_KEY * max);
	if (!key || !content || !ids) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	content[0] = m->members_read;
	for (size_t i = 0; i < m->n_groups && !err; i++) {
		err = write_group(st, q, m, &m->groups[i], key, &ids[i]);
		fab_sql_put_le(content + 1 + 4 * i, (uint64_t)ids[i], 4);
	}
	if (err || (err = fab_sql_intern(st, q[GS_INS], q[GS_GET], WHAT, content,
					 1 + 4 * m->n_groups, set_id, &fresh)))
		goto out;
	for (size_t i = 0; fresh && i < m->n_groups && !err; i++) {
		sqlite3_bind_int64(q[SG_INS], 1, *set_id);
		sqlite3_bind_int64(q[SG_INS], 2, ids[i]);
		err = fab_sql_step(st, q[SG_INS], "a fabric's multicast groups");
	}
out:
	free(key);
	free(content);
	free(ids);
	return err;
}

/* A switch's table: its id in mft_tables (0 when it has none). */
static int write_table(struct fab_store *st, sqlite3_stmt **q, const struct fab_mft *t,
		       int64_t *table_id)
{
	size_t per = 2 + t->n_pos + (size_t)FAB_MFT_BLOCK * t->n_pos * 2;
	uint8_t *c;
	bool fresh;
	int err;

	*table_id = 0;
	if (t->status == FAB_LFT_FAILED)
		return 0;
	if (!(c = malloc(1 + per * t->n_blocks)))
		return fab_err(-ENOMEM, "out of memory");
	c[0] = t->n_pos;
	for (uint32_t b = 0; b < t->n_blocks; b++) {
		uint8_t *x = c + 1 + per * b;

		fab_sql_put_le(x, t->block[b], 2);
		memcpy(x + 2, t->read + (size_t)b * t->n_pos, t->n_pos);
		for (size_t i = 0; i < (size_t)FAB_MFT_BLOCK * t->n_pos; i++)
			fab_sql_put_le(x + 2 + t->n_pos + 2 * i, t->mask[(size_t)b * FAB_MFT_BLOCK * t->n_pos + i], 2);
	}
	err = fab_sql_intern(st, q[T_INS], q[T_GET], WHAT, c, 1 + per * t->n_blocks, table_id, &fresh);
	for (uint32_t b = 0; !err && fresh && b < t->n_blocks; b++)
		for (unsigned sl = 0; !err && sl < FAB_MFT_BLOCK; sl++)
			for (unsigned p = 0; !err && p < t->n_pos; p++) {
				if (t->read[(size_t)b * t->n_pos + p] != FAB_MFT_READ)
					continue;
				uint16_t mask = t->mask[((size_t)b * FAB_MFT_BLOCK + sl) * t->n_pos + p];
				for (unsigned j = 0; !err && mask && j < FAB_MFT_POS_PORTS; j++) {
					if (!(mask >> j & 1))
						continue;
					sqlite3_bind_int64(q[E_INS], 1, *table_id);
					sqlite3_bind_int(q[E_INS], 2, (int)(FAB_MLID_FIRST + t->block[b] * FAB_MFT_BLOCK + sl));
					sqlite3_bind_int(q[E_INS], 3, (int)(p * FAB_MFT_POS_PORTS + j));
					err = fab_sql_step(st, q[E_INS], "a multicast table entry");
				}
			}
	free(c);
	return err;
}

struct swrow {
	uint64_t guid;
	const struct fab_mft *t;
	int64_t table_id;
};

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct swrow *)a)->guid, y = ((const struct swrow *)b)->guid;

	return x < y ? -1 : x > y;
}

static int write_tables(struct fab_store *st, sqlite3_stmt **q, const struct fab_snapshot *snap,
			int64_t *set_id)
{
	const struct fab_mcast *m = snap->mcast;
	struct swrow *rows = calloc(m->n_mfts + 1, sizeof(*rows));
	uint8_t *content = malloc(SW_KEY * m->n_mfts + 1);
	size_t n = 0;
	bool fresh;
	int err = 0;

	if (!rows || !content) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m->n_mfts && !err; i++) {
		const struct fab_mft *t = &m->mfts[i];
		if (t->node_idx >= snap->n_nodes)
			continue;
		rows[n] = (struct swrow){ .guid = snap->nodes[t->node_idx].guid, .t = t };
		err = write_table(st, q, t, &rows[n++].table_id);
	}
	if (err)
		goto out;
	qsort(rows, n, sizeof(*rows), cmp_guid);
	for (size_t i = 0; i < n; i++) {
		uint8_t *c = content + SW_KEY * i;
		fab_sql_put_le(c, rows[i].guid, 8);
		fab_sql_put_le(c + 8, (uint64_t)rows[i].table_id, 8);
		c[16] = rows[i].t->status;
		fab_sql_put_le(c + 17, rows[i].t->cap, 2);
		fab_sql_put_le(c + 19, rows[i].t->top, 2);
		c[21] = rows[i].t->top_valid;
	}
	if ((err = fab_sql_intern(st, q[TS_INS], q[TS_GET], WHAT, content, SW_KEY * n, set_id, &fresh)))
		goto out;
	for (size_t i = 0; fresh && i < n && !err; i++) {
		const struct fab_mft *t = rows[i].t;
		sqlite3_stmt *s = q[SW_INS];

		sqlite3_bind_int64(s, 1, *set_id);
		fab_sql_bind_guid(s, 2, rows[i].guid);
		fab_sql_bind_text(s, 3, fab_lft_status_name(t->status));
		if (t->status != FAB_LFT_FAILED) {
			sqlite3_bind_int(s, 4, t->cap);
			sqlite3_bind_int(s, 5, t->top);
			sqlite3_bind_int(s, 6, t->top_valid);
			sqlite3_bind_int64(s, 7, rows[i].table_id);
		}
		err = fab_sql_step(st, s, "a switch's multicast table");
		sqlite3_clear_bindings(s);
	}
out:
	free(rows);
	free(content);
	return err;
}

int fab_store_write_mcast(struct fab_store *st, const struct fab_snapshot *snap)
{
	sqlite3_stmt *q[N_STMTS] = { 0 };
	int64_t gset = 0, tset = 0;
	int err;

	if (!fab_mcast_present(snap))
		return 0;
	if (!(err = fab_sql_prepare_all(st, stmt_sql, N_STMTS, q)) &&
	    !(err = write_groups(st, q, snap->mcast, &gset)) &&
	    !(err = write_tables(st, q, snap, &tset))) {
		sqlite3_bind_int64(q[SCAN_INS], 1, snap->scan_id);
		sqlite3_bind_int64(q[SCAN_INS], 2, gset);
		sqlite3_bind_int64(q[SCAN_INS], 3, tset);
		err = fab_sql_step(st, q[SCAN_INS], "the scan's multicast groups and tables");
	}
	fab_sql_finalize_all(q, N_STMTS);
	return err;
}

/* ---- loading ------------------------------------------------------------------- */

static int damaged(struct fab_store *st)
{
	return fab_err(-EIO, "the multicast groups or tables stored in '%s' are damaged", st->path);
}

static int load_groups(struct fab_store *st, struct fab_mcast *m, int64_t set_id)
{
	sqlite3_stmt *s = NULL;
	int rc, err = fab_store_prepare(st, "SELECT g.content FROM mcast_set_groups sg"
					" JOIN mcast_group_rows g ON g.group_id = sg.group_id"
					" WHERE sg.set_id = ?1", &s);

	if (err)
		return err;
	sqlite3_bind_int64(s, 1, set_id);
	while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const uint8_t *c = sqlite3_column_blob(s, 0);
		size_t len = (size_t)sqlite3_column_bytes(s, 0);

		if (!c || len < GROUP_HEAD || (len - GROUP_HEAD) % MEMBER_KEY) {
			err = damaged(st);
			break;
		}
		struct fab_mc_group *g = fab_mcast_add_group(m);
		if (!g) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		memcpy(g->mgid, c, 16);
		g->mlid = (uint16_t)get_le(c + 16, 2);
		g->qkey = (uint32_t)get_le(c + 18, 4);
		g->pkey = (uint16_t)get_le(c + 22, 2);
		g->mtu = c[24];
		g->rate = c[25];
		g->pkt_life = c[26];
		g->sl = c[27];
		g->tclass = c[28];
		g->hop_limit = c[29];
		g->scope = c[30];
		g->flow_label = (uint32_t)get_le(c + 31, 4);
		g->first = (uint32_t)m->n_members;
		g->n = (uint32_t)((len - GROUP_HEAD) / MEMBER_KEY);
		for (uint32_t i = 0; i < g->n; i++) {
			const uint8_t *x = c + GROUP_HEAD + (size_t)MEMBER_KEY * i;
			struct fab_mc_member *mb = fab_mcast_add_member(m);
			if (!mb) {
				err = fab_err(-ENOMEM, "out of memory");
				break;
			}
			mb->port_guid = get_le(x, 8);
			mb->gid_prefix = get_le(x + 8, 8);
			mb->join_state = x[16];
			mb->proxy = x[17] != 0;
		}
	}
	return fab_sql_done(st, s, rc, err);
}

static int load_tables(struct fab_store *st, struct fab_snapshot *snap, struct fab_mcast *m,
		       int64_t set_id)
{
	sqlite3_stmt *s = NULL;
	int rc, err = fab_store_prepare(st, "SELECT w.node_guid, w.status, w.mcast_cap, w.mcast_top,"
					" w.top_valid, t.content FROM mft_set_switches w"
					" LEFT JOIN mft_tables t ON t.table_id = w.table_id"
					" WHERE w.set_id = ?1", &s);

	if (err)
		return err;
	sqlite3_bind_int64(s, 1, set_id);
	while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint32_t node = fab_snapshot_find_node(snap, fab_sql_guid(s, 0));
		int status = fab_lft_status_parse(fab_sql_text(s, 1));
		const uint8_t *c = sqlite3_column_blob(s, 5);
		size_t len = (size_t)sqlite3_column_bytes(s, 5);

		if (node == FAB_NONE || status < 0)
			continue; /* not in this (part of the) scan */
		struct fab_mft *t = fab_mcast_add_mft(m);
		if (!t) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		*t = (struct fab_mft){ .node_idx = node, .status = (uint8_t)status,
				       .cap = (uint16_t)sqlite3_column_int(s, 2),
				       .top = (uint16_t)sqlite3_column_int(s, 3),
				       .top_valid = sqlite3_column_int(s, 4) != 0 };
		if (status == FAB_LFT_FAILED)
			continue;
		if (!c || !len || !c[0] || c[0] > FAB_MFT_MAX_POS) {
			err = damaged(st);
			break;
		}
		t->n_pos = c[0];
		size_t per = 2 + t->n_pos + (size_t)FAB_MFT_BLOCK * t->n_pos * 2;
		if ((len - 1) % per) {
			err = damaged(st);
			break;
		}
		t->n_blocks = (uint32_t)((len - 1) / per);
		uint16_t *block = fab_mcast_alloc(m, (t->n_blocks + 1) * sizeof(*block));
		uint16_t *mask = fab_mcast_alloc(m, (size_t)t->n_blocks * FAB_MFT_BLOCK * t->n_pos * 2 + 2);
		uint8_t *read = fab_mcast_alloc(m, (size_t)t->n_blocks * t->n_pos + 1);
		if (!block || !mask || !read) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		for (uint32_t b = 0; b < t->n_blocks; b++) {
			const uint8_t *x = c + 1 + per * b;

			block[b] = (uint16_t)get_le(x, 2);
			if (block[b] >= FAB_MFT_MAX_BLOCKS || (b && block[b] <= block[b - 1])) {
				err = damaged(st);
				break;
			}
			memcpy(read + (size_t)b * t->n_pos, x + 2, t->n_pos);
			for (size_t i = 0; i < (size_t)FAB_MFT_BLOCK * t->n_pos; i++)
				mask[(size_t)b * FAB_MFT_BLOCK * t->n_pos + i] =
					(uint16_t)get_le(x + 2 + t->n_pos + 2 * i, 2);
		}
		t->block = block;
		t->mask = mask;
		t->read = read;
	}
	return fab_sql_done(st, s, rc, err);
}

static int cmp_mft(const void *a, const void *b)
{
	uint32_t x = ((const struct fab_mft *)a)->node_idx, y = ((const struct fab_mft *)b)->node_idx;

	return x < y ? -1 : x > y;
}

int fab_store_load_mcast(struct fab_store *st, struct fab_snapshot *snap)
{
	sqlite3_stmt *s = NULL;
	int64_t gset = 0, tset = 0;
	bool found = false, members_read = false;
	int rc, err;

	err = fab_sql_scan_query(st, "SELECT r.group_set_id, r.mft_set_id, gs.content FROM scan_mcast r"
				 " JOIN mcast_group_sets gs ON gs.set_id = r.group_set_id WHERE r.scan_id = ?1",
				 /* a watch sweep's are those of the full scan it follows */
				 snap->topology_scan_id ? snap->topology_scan_id : snap->scan_id, &s);
	if (err)
		return err;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const uint8_t *c = sqlite3_column_blob(s, 2);
		found = true;
		gset = sqlite3_column_int64(s, 0);
		tset = sqlite3_column_int64(s, 1);
		members_read = c && sqlite3_column_bytes(s, 2) > 0 && c[0];
		rc = SQLITE_DONE;
	}
	if ((err = fab_sql_done(st, s, rc, 0)) || !found)
		return err;
	struct fab_mcast *m = fab_snapshot_mcast(snap);
	if (!m)
		return fab_err(-ENOMEM, "out of memory");
	m->members_read = members_read;
	if ((err = load_groups(st, m, gset)) || (err = load_tables(st, snap, m, tset)))
		return err;
	if (m->n_mfts)
		qsort(m->mfts, m->n_mfts, sizeof(*m->mfts), cmp_mft);
	if (fab_mcast_sort(m) || fab_mcast_resolve(snap))
		return fab_err(-ENOMEM, "out of memory");
	return 0;
}

/* ---- pruning ------------------------------------------------------------------- */

int fab_store_prune_mcast(struct fab_store *st, int64_t *rows)
{
	static const char *const sql[] = {
		"DELETE FROM mcast_group_sets WHERE set_id NOT IN (SELECT group_set_id FROM scan_mcast)",
		"DELETE FROM mcast_set_groups WHERE set_id NOT IN (SELECT set_id FROM mcast_group_sets)",
		"DELETE FROM mcast_group_rows WHERE group_id NOT IN (SELECT group_id FROM mcast_set_groups)",
		"DELETE FROM mcast_member_rows WHERE group_id NOT IN (SELECT group_id FROM mcast_group_rows)",
		"DELETE FROM mft_sets WHERE set_id NOT IN (SELECT mft_set_id FROM scan_mcast)",
		"DELETE FROM mft_set_switches WHERE set_id NOT IN (SELECT set_id FROM mft_sets)",
		"DELETE FROM mft_tables WHERE table_id NOT IN"
		" (SELECT table_id FROM mft_set_switches WHERE table_id IS NOT NULL)",
		"DELETE FROM mft_table_entries WHERE table_id NOT IN (SELECT table_id FROM mft_tables)",
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && !err; i++)
		if (!(err = fab_store_exec(st, sql[i], "delete unused multicast groups and tables")))
			*rows += sqlite3_changes(st->db);
	return err;
}
