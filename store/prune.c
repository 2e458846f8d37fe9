// SPDX-License-Identifier: MIT
/*
 * Retention (fab_store_prune) and baselines. Scans to drop are chosen and
 * deleted in one IMMEDIATE transaction, so a scan committed meanwhile is
 * never half-seen; space is reclaimed afterwards, outside it.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "store_priv.h"

static int db_err(struct fab_store *st, const char *what)
{
	int rc = sqlite3_errcode(st->db);
	int code = rc == SQLITE_FULL ? -ENOSPC
		 : rc == SQLITE_READONLY ? -EROFS
		 : rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? -EBUSY
		 : rc == SQLITE_NOMEM ? -ENOMEM
		 : -EIO;

	return fab_err(code, "database '%s': %s: %s", st->path, what,
		       sqlite3_errmsg(st->db));
}

static int need_writable(struct fab_store *st)
{
	if (!st->writable)
		return fab_err(-EROFS, "database '%s' was opened read-only", st->path);
	return 0;
}

/* One integer from a query with up to two bound integers; *out untouched
 * when there is no row. */
static int query_i64(struct fab_store *st, const char *sql, int nbind,
		     int64_t a, int64_t b, int64_t *out)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_err(st, "read");
	if (nbind > 0)
		sqlite3_bind_int64(s, 1, a);
	if (nbind > 1)
		sqlite3_bind_int64(s, 2, b);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, "read");
}

/* Databases made by pre-release builds of schema 1 lack the table. */
static int have_baselines(struct fab_store *st, bool *out)
{
	int64_t n = 0;
	int err = query_i64(st, "SELECT count(*) FROM sqlite_master"
				" WHERE type='table' AND name='baselines'", 0, 0, 0, &n);

	if (!err)
		*out = n > 0;
	return err;
}

static int require_baselines(struct fab_store *st)
{
	bool have = false;
	int err = have_baselines(st, &have);

	if (err)
		return err;
	if (!have)
		return fab_err(-EPROTO, "database '%s' was made by a pre-release fabsweep without"
			       " baselines; start a new database", st->path);
	return 0;
}

bool fab_baseline_name_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > FAB_BASELINE_NAME_MAX)
		return false;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* A scan id written as digits only; 0 when ref is not one. */
static int64_t ref_as_id(const char *ref)
{
	int64_t v = 0;

	if (!ref || !*ref || strspn(ref, "0123456789") != strlen(ref) || strlen(ref) > 15)
		return 0;
	for (const char *p = ref; *p; p++)
		v = v * 10 + (*p - '0');
	return v;
}

static int bad_name(const char *name)
{
	return fab_err(-EINVAL, "'%.80s' is not a baseline name: use 1 to %d letters, digits,"
		       " '.', '_' or '-', starting with a letter", name, FAB_BASELINE_NAME_MAX);
}

int fab_store_baseline_set(struct fab_store *st, int64_t scan_id, const char *name,
			   int64_t *out_previous)
{
	int64_t found = 0, prev = 0;
	char now[FAB_TIME_STRLEN];
	sqlite3_stmt *s = NULL;
	int err;

	if ((err = need_writable(st)) || (err = require_baselines(st)))
		return err;
	if (name && !fab_baseline_name_valid(name))
		return bad_name(name);
	if ((err = fab_store_begin(st)))
		return err;
	if ((err = query_i64(st, "SELECT scan_id FROM scans WHERE scan_id=?1", 1, scan_id, 0,
			     &found)))
		goto out;
	if (!found) {
		err = fab_err(-ENOENT, "database '%s' has no scan %lld; 'fabsweep scans' lists them",
			      st->path, (long long)scan_id);
		goto out;
	}
	if (name) {
		if (sqlite3_prepare_v2(st->db, "SELECT scan_id FROM baselines WHERE name=?1"
					       " AND scan_id<>?2", -1, &s, NULL) != SQLITE_OK) {
			err = db_err(st, "read baselines");
			goto out;
		}
		sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 2, scan_id);
		if (sqlite3_step(s) == SQLITE_ROW)
			prev = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		s = NULL;
		if (prev && sqlite3_prepare_v2(st->db, "UPDATE baselines SET name=NULL WHERE name=?1",
					       -1, &s, NULL) == SQLITE_OK) {
			sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(s) != SQLITE_DONE)
				err = db_err(st, "move the baseline name");
			sqlite3_finalize(s);
			s = NULL;
			if (err)
				goto out;
		}
	}
	if (sqlite3_prepare_v2(st->db, "DELETE FROM baselines WHERE scan_id=?1", -1, &s,
			       NULL) != SQLITE_OK) {
		err = db_err(st, "update baselines");
		goto out;
	}
	sqlite3_bind_int64(s, 1, scan_id);
	if (sqlite3_step(s) != SQLITE_DONE)
		err = db_err(st, "update baselines");
	sqlite3_finalize(s);
	s = NULL;
	if (err)
		goto out;
	if (sqlite3_prepare_v2(st->db, "INSERT INTO baselines(scan_id, name, created_at)"
				       " VALUES (?1, ?2, ?3)", -1, &s, NULL) != SQLITE_OK) {
		err = db_err(st, "mark the baseline");
		goto out;
	}
	fab_time_format(fab_now_ms(), now);
	sqlite3_bind_int64(s, 1, scan_id);
	if (name)
		sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 3, now, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) != SQLITE_DONE)
		err = db_err(st, "mark the baseline");
	sqlite3_finalize(s);
out:
	err = fab_store_finish(st, err);
	if (!err && out_previous)
		*out_previous = prev;
	return err;
}

/* The scan a baseline reference names among the marked baselines, or 0. */
static int find_baseline(struct fab_store *st, const char *ref, int64_t *out)
{
	int64_t id = ref_as_id(ref), found = 0;
	sqlite3_stmt *s;
	int rc;

	if (id)
		return query_i64(st, "SELECT scan_id FROM baselines WHERE scan_id=?1 LIMIT 1",
				 1, id, 0, out);
	if (sqlite3_prepare_v2(st->db, "SELECT scan_id FROM baselines WHERE name=?1", -1, &s,
			       NULL) != SQLITE_OK)
		return db_err(st, "read baselines");
	sqlite3_bind_text(s, 1, ref, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		found = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, "read baselines");
	*out = found;
	return 0;
}

int fab_store_baseline_clear(struct fab_store *st, const char *ref, int64_t *out_scan)
{
	int64_t scan = 0;
	sqlite3_stmt *s;
	int err;

	if ((err = need_writable(st)) || (err = require_baselines(st)))
		return err;
	if ((err = fab_store_begin(st)))
		return err;
	if ((err = find_baseline(st, ref, &scan)))
		goto out;
	if (!scan) {
		err = fab_err(-ENOENT, "'%.80s' is not a baseline in '%s'; 'fabsweep db baseline list'"
			      " shows them", ref, st->path);
		goto out;
	}
	if (sqlite3_prepare_v2(st->db, "DELETE FROM baselines WHERE scan_id=?1", -1, &s,
			       NULL) != SQLITE_OK) {
		err = db_err(st, "clear the baseline");
		goto out;
	}
	sqlite3_bind_int64(s, 1, scan);
	if (sqlite3_step(s) != SQLITE_DONE)
		err = db_err(st, "clear the baseline");
	sqlite3_finalize(s);
out:
	err = fab_store_finish(st, err);
	if (!err && out_scan)
		*out_scan = scan;
	return err;
}

int fab_store_baseline_list(struct fab_store *st,
			    int (*fn)(const struct fab_baseline_row *row, void *ctx),
			    void *ctx)
{
	sqlite3_stmt *s;
	bool have = false;
	int rc, ret = 0;

	if ((ret = have_baselines(st, &have)) || !have)
		return ret;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT b.scan_id, b.name, b.created_at, s.started_at, s.label"
			       " FROM baselines b LEFT JOIN scans s USING (scan_id)"
			       " ORDER BY b.scan_id", -1, &s, NULL) != SQLITE_OK)
		return db_err(st, "read baselines");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_baseline_row r = {
			.scan_id = sqlite3_column_int64(s, 0),
			.name = (const char *)sqlite3_column_text(s, 1),
			.created_at = (const char *)sqlite3_column_text(s, 2),
			.started_at = (const char *)sqlite3_column_text(s, 3),
			.label = (const char *)sqlite3_column_text(s, 4),
		};
		if ((ret = fn(&r, ctx)))
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_err(st, "read baselines");
	sqlite3_finalize(s);
	return ret;
}

int fab_store_baseline_resolve(struct fab_store *st, const char *ref, int64_t *out)
{
	int64_t id = ref_as_id(ref), found = 0;
	bool have = false;
	int err;

	if (id)
		return fab_store_resolve_scan(st, id, out);
	if (ref && !strcmp(ref, "latest"))
		return fab_store_resolve_scan(st, 0, out);
	if (ref && ref[0] == '-' && (id = ref_as_id(ref + 1)))
		return fab_store_resolve_scan(st, -id, out);
	if (!fab_baseline_name_valid(ref))
		return bad_name(ref ? ref : "");
	if ((err = have_baselines(st, &have)))
		return err;
	if (have && (err = find_baseline(st, ref, &found)))
		return err;
	if (!found)
		return fab_err(-ENOENT, "no baseline is named '%s' in '%s'; 'fabsweep db baseline"
			       " list' shows them", ref, st->path);
	*out = found;
	return 0;
}

/* ---- pruning ------------------------------------------------------------ */

static int64_t db_bytes(struct fab_store *st)
{
	int64_t pages = 0, size = 0;

	if (query_i64(st, "PRAGMA page_count", 0, 0, 0, &pages) ||
	    query_i64(st, "PRAGMA page_size", 0, 0, 0, &size))
		return 0;
	return pages * size;
}

/* Fills temp.fab_prune with the scans to drop; calls fn for those and for
 * the baselines that the rules would have dropped. */
static int select_scans(struct fab_store *st, const struct fab_prune_opts *o,
			bool have_bl,
			int (*fn)(const struct fab_prune_scan *, void *), void *ctx,
			struct fab_prune_result *r)
{
	char cutoff[FAB_TIME_STRLEN] = "9999";
	sqlite3_stmt *s;
	int rc, err = 0;

	if (o->older_than_ms) {
		int64_t now = o->now_ms ? o->now_ms : fab_now_ms();
		fab_time_format(now - o->older_than_ms, cutoff);
	}
	if ((err = fab_store_exec(st, "CREATE TEMP TABLE IF NOT EXISTS fab_prune("
				      "scan_id INTEGER PRIMARY KEY); DELETE FROM temp.fab_prune",
				  "prepare the prune")))
		return err;
	/* ?1 keep (0: no rule), ?2 cutoff time. The newest scan always stays.
	 * A watch sweep's counters build on the sweeps before it back to its
	 * topology scan (docs/watch.md): such a chain goes as a whole, when
	 * the rules keep none of its scans, and a baseline in it keeps it all.
	 * A RoCE delta builds on its keyframe only (docs/schema.md, "RoCE
	 * deltas"): a keyframe stays while a delta on it stays. */
	char sql[2048];
	snprintf(sql, sizeof(sql),
		 "SELECT s.scan_id, s.started_at, s.label, %s FROM scans s"
		 " WHERE NOT EXISTS (SELECT 1 FROM scans w"
		 "  WHERE (coalesce(w.topology_scan_id, w.scan_id) = coalesce(s.topology_scan_id, s.scan_id)"
		 "   OR w.roce_base_scan_id = s.scan_id)"
		 "  AND (w.scan_id = (SELECT max(scan_id) FROM scans)"
		 "   OR (?1 <> 0 AND w.scan_id IN"
		 "    (SELECT scan_id FROM scans ORDER BY scan_id DESC LIMIT ?1))"
		 "   OR w.started_at >= ?2 OR w.scan_id <> s.scan_id AND %s))"
		 " ORDER BY s.scan_id",
		 have_bl ? "EXISTS (SELECT 1 FROM baselines b WHERE b.scan_id = s.scan_id)" : "0",
		 have_bl ? "EXISTS (SELECT 1 FROM baselines b WHERE b.scan_id = w.scan_id)" : "0");
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_err(st, "select scans to prune");
	sqlite3_stmt *ins;
	if (sqlite3_prepare_v2(st->db, "INSERT INTO temp.fab_prune(scan_id) VALUES (?1)", -1,
			       &ins, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return db_err(st, "select scans to prune");
	}
	sqlite3_bind_int64(s, 1, o->keep);
	sqlite3_bind_text(s, 2, cutoff, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_prune_scan p = {
			.scan_id = sqlite3_column_int64(s, 0),
			.started_at = (const char *)sqlite3_column_text(s, 1),
			.label = (const char *)sqlite3_column_text(s, 2),
			.is_baseline = sqlite3_column_int(s, 3) != 0,
		};
		if (p.is_baseline) {
			r->kept_baselines++;
		} else {
			r->dropped++;
			sqlite3_bind_int64(ins, 1, p.scan_id);
			if (sqlite3_step(ins) != SQLITE_DONE) {
				err = db_err(st, "select scans to prune");
				break;
			}
			sqlite3_reset(ins);
		}
		if (fn && (err = fn(&p, ctx)))
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_err(st, "select scans to prune");
	sqlite3_finalize(ins);
	sqlite3_finalize(s);
	return err;
}

/* Deletes the scans listed in temp.fab_prune from every table that has a
 * scan_id column (store_priv.h). */
int fab_store_delete_listed(struct fab_store *st, int64_t *rows_deleted)
{
	sqlite3_stmt *t;
	int rc, err = 0;

	if (sqlite3_prepare_v2(st->db,
			       "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p"
			       " WHERE m.type = 'table' AND p.name = 'scan_id'"
			       " AND m.name NOT IN ('scans', 'baselines')"
			       " AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name", -1, &t,
			       NULL) != SQLITE_OK)
		return db_err(st, "list per-scan tables");
	/* Collect the names first, then delete: scans goes last. */
	char names[65][128];
	size_t n = 0;
	while ((rc = sqlite3_step(t)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(t, 0);
		if (n == 64 || strlen(name) >= sizeof(names[0])) {
			err = fab_err(-E2BIG, "database '%s': too many or too long table names",
				      st->path);
			break;
		}
		snprintf(names[n++], sizeof(names[0]), "%s", name);
	}
	if (!err && rc != SQLITE_DONE)
		err = db_err(st, "list per-scan tables");
	sqlite3_finalize(t);
	snprintf(names[n++], sizeof(names[0]), "scans");
	for (size_t i = 0; !err && i < n; i++) {
		char sql[400], quoted[260];
		size_t q = 0;

		/* An identifier, not a value: quote it, doubling quotes. */
		quoted[q++] = '"';
		for (const char *c = names[i]; *c && q < sizeof(quoted) - 3; c++) {
			if (*c == '"')
				quoted[q++] = '"';
			quoted[q++] = *c;
		}
		quoted[q++] = '"';
		quoted[q] = '\0';
		snprintf(sql, sizeof(sql),
			 "DELETE FROM %s WHERE scan_id IN (SELECT scan_id FROM temp.fab_prune)",
			 quoted);
		if ((err = fab_store_exec(st, sql, "delete old scans")))
			break;
		*rows_deleted += sqlite3_changes(st->db);
	}
	if (!err)
		err = fab_store_prune_routing(st, rows_deleted); /* store/routing_io.c */
	if (!err)
		err = fab_store_prune_pkeys(st, rows_deleted); /* store/pkey_io.c */
	if (!err)
		err = fab_store_prune_qos(st, rows_deleted); /* store/qos_io.c */
	if (!err)
		err = fab_store_prune_mcast(st, rows_deleted); /* store/mcast_io.c */
	return err;
}

int fab_store_prune(struct fab_store *st, const struct fab_prune_opts *opts,
		    int (*fn)(const struct fab_prune_scan *scan, void *ctx),
		    void *ctx, struct fab_prune_result *out)
{
	struct fab_prune_result r = { 0 };
	bool have_bl = false;
	int err;

	if (opts->keep < 0 || opts->older_than_ms < 0 || (!opts->keep && !opts->older_than_ms))
		return fab_err(-EINVAL, "prune needs --keep N (N >= 1) or --older-than DURATION");
	if ((err = need_writable(st)) || (err = have_baselines(st, &have_bl)))
		return err;
	r.bytes_before = db_bytes(st);
	if ((err = fab_store_begin(st)))
		return err;
	err = select_scans(st, opts, have_bl, fn, ctx, &r);
	if (!err && !opts->dry_run && r.dropped)
		err = fab_store_delete_listed(st, &r.rows_deleted);
	if (opts->dry_run && !err) {
		fab_store_exec(st, "ROLLBACK", "end the dry run");
	} else if ((err = fab_store_finish(st, err))) {
		return err;
	}
	fab_store_exec(st, "DROP TABLE IF EXISTS temp.fab_prune", "clean up");
	if ((err = query_i64(st, "SELECT count(*) FROM scans", 0, 0, 0, &r.remaining)))
		return err;
	if (!opts->dry_run && r.dropped && !opts->no_vacuum) {
		/* Fold the WAL back first, so VACUUM works on the whole file
		 * and the -wal file shrinks too. */
		if (sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;"
					 " PRAGMA wal_checkpoint(TRUNCATE)",
				 NULL, NULL, NULL) == SQLITE_OK)
			r.vacuumed = true;
		else
			snprintf(r.vacuum_error, sizeof(r.vacuum_error), "%s",
				 sqlite3_errmsg(st->db));
	}
	r.bytes_after = db_bytes(st);
	*out = r;
	return 0;
}
