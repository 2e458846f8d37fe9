// SPDX-License-Identifier: MIT
/*
 * The SQLite snapshot store. The only file that includes sqlite3.h besides
 * its private helpers in store/.
 */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "schema.sql.h"
#include "store_priv.h"

#define BUSY_TIMEOUT_MS 60000

static int sql_err(struct fab_store *st, int rc, const char *what)
{
	int code = rc == SQLITE_FULL ? -ENOSPC
		 : rc == SQLITE_READONLY ? -EROFS
		 : rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? -EBUSY
		 : rc == SQLITE_NOMEM ? -ENOMEM
		 : rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? -EPROTO
		 : -EIO;

	/* what to do (house style 11), where SQLite's words do not say it */
	const char *hint = rc == SQLITE_FULL ? "; free space on its file system or choose another --db"
			 : rc == SQLITE_NOTADB ? "; is --db the right file?"
			 : rc == SQLITE_CORRUPT ? "; restore it from a backup or choose another --db"
			 : "";

	return fab_err(code, "database '%s': %s: %s%s", st->path, what,
		       st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc), hint);
}

int fab_store_exec(struct fab_store *st, const char *sql, const char *what)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sql_err(st, rc, what);
}

int fab_store_prepare(struct fab_store *st, const char *sql, sqlite3_stmt **out)
{
	int rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				    out, NULL);

	return rc == SQLITE_OK ? 0 : sql_err(st, rc, "prepare");
}

/* Runs a query returning one integer; *out untouched when it has no row. */
static int query_int(struct fab_store *st, const char *sql, int64_t *out)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return sql_err(st, rc, "read");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_err(st, rc, "read");
}

static int create_counters_view(struct fab_store *st)
{
	char sql[16384];
	size_t off = 0;

	off += (size_t)snprintf(sql, sizeof(sql), "%s", FAB_COUNTERS_VIEW_PREFIX);
	for (unsigned c = 0; c < FAB_SQL_COUNTERS; c++) {
		const char *n = fab_counter_name(c);
		off += (size_t)snprintf(sql + off, sizeof(sql) - off,
			"%sSELECT scan_id, node_guid, port_num, sampled_at, '%s' AS counter,"
			" %s AS value, sample, extended FROM port_counters WHERE %s IS NOT NULL",
			c ? " UNION ALL " : "", n, n, n);
	}
	return fab_store_exec(st, sql, "create the counters view");
}

/* Brings the schema to FAB_SCHEMA_VERSION inside one transaction. */
static int migrate(struct fab_store *st, int64_t from)
{
	int err = fab_store_exec(st, "BEGIN IMMEDIATE", "begin migration");

	if (err)
		return err;
	for (int64_t v = from; v < FAB_SCHEMA_VERSION; v++)
		if ((err = fab_store_exec(st, migrations[v], "migrate the schema")))
			goto out;
	/* the long form follows the counter columns as they are now */
	if ((err = fab_store_exec(st, "DROP VIEW IF EXISTS counters", "migrate the schema")) ||
	    (err = create_counters_view(st)))
		goto out;
	char sql[96];
	snprintf(sql, sizeof(sql), "PRAGMA application_id=%d; PRAGMA user_version=%d",
		 FAB_APPLICATION_ID, FAB_SCHEMA_VERSION);
	err = fab_store_exec(st, sql, "set the schema version");
out:
	if (err) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	return fab_store_exec(st, "COMMIT", "commit migration");
}

/* Checks what kind of database this is; migrates when allowed. */
static int check_schema(struct fab_store *st, unsigned flags)
{
	int64_t app = 0, ver = 0, objects = 0;
	int err;

	if ((err = query_int(st, "PRAGMA application_id", &app)) ||
	    (err = query_int(st, "PRAGMA user_version", &ver)) ||
	    (err = query_int(st, "SELECT count(*) FROM sqlite_master", &objects)))
		return err;
	if (app == 0 && ver == 0 && objects == 0) {
		if (!(flags & FAB_STORE_WRITE))
			return fab_err(-ENOENT, "database '%s' holds no snapshots yet; run 'fabsweep scan' first",
				       st->path);
		return migrate(st, 0);
	}
	if (app != FAB_APPLICATION_ID)
		return fab_err(-ENOTSUP, "'%s' is not a fabsweep database (application_id 0x%llx); choose another --db",
			       st->path, (unsigned long long)app);
	if (ver > FAB_SCHEMA_VERSION)
		return fab_err(-EPROTO, "database '%s' has schema version %lld, newer than this fabsweep understands (%d); upgrade fabsweep",
			       st->path, (long long)ver, FAB_SCHEMA_VERSION);
	if (ver < FAB_SCHEMA_VERSION && !(flags & FAB_STORE_ANY_VERSION)) {
		if (!(flags & FAB_STORE_WRITE))
			return fab_err(-EPROTO, "database '%s' has the old schema version %lld; run 'fabsweep db migrate' or any writing command",
				       st->path, (long long)ver);
		return migrate(st, ver);
	}
	return 0;
}

/* Whether path's -shm file is missing and cannot be created (a reader of
 * a WAL database in a read-only directory or on a read-only mount). */
static bool shm_unwritable(const char *path)
{
	char shm[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (snprintf(shm, sizeof(shm), "%s-shm", path) >= (int)sizeof(shm) || access(shm, F_OK) == 0)
		return false;
	if (!slash)
		return access(".", W_OK) != 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) + (slash == path), path);
	return access(dir, W_OK) != 0;
}

/* "file:PATH?immutable=1", the path percent-encoded where a URI needs it. */
static char *immutable_uri(const char *path)
{
	static const char tail[] = "?immutable=1";
	size_t n = strlen(path);
	char *u = malloc(5 + 3 * n + sizeof(tail)), *p = u;

	if (!u)
		return NULL;
	memcpy(p, "file:", 5);
	p += 5;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (*c == '%' || *c == '?' || *c == '#' || *c <= ' ' || *c >= 0x7f) {
			snprintf(p, 4, "%%%02X", *c);
			p += 3;
		} else {
			*p++ = (char)*c;
		}
	}
	memcpy(p, tail, sizeof(tail));
	return u;
}

int fab_store_open(const char *path, unsigned flags, struct fab_store **out)
{
	struct fab_store *st;
	int rc, err;

	if ((!(flags & FAB_STORE_WRITE) || (flags & FAB_STORE_EXISTING)) && access(path, F_OK) != 0)
		return fab_err(-ENOENT, "database '%s' does not exist; run 'fabsweep scan' first or pass --db",
			       path);
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		return fab_err(-ENOMEM, "out of memory");
	}
	if (!(flags & FAB_STORE_WRITE) && (flags & FAB_STORE_IMMUTABLE)) {
		char *uri = immutable_uri(path);
		rc = uri ? sqlite3_open_v2(uri, &st->db,
					   SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL)
			 : SQLITE_NOMEM;
		free(uri);
	} else {
		rc = sqlite3_open_v2(path, &st->db,
				     (flags & FAB_STORE_WRITE)
					     ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
					     : SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
				     NULL);
	}
	if (rc != SQLITE_OK) {
		err = sql_err(st, rc, "open");
		goto fail;
	}
	/* SQLite opens a file it cannot write read-only without a word: say
	 * so now, not after a whole scan at the commit. */
	if ((flags & FAB_STORE_WRITE) && sqlite3_db_readonly(st->db, "main") == 1) {
		err = fab_err(-EROFS, "database '%s' is read-only here (file mode, owner or a read-only mount); give write access "
			      "to the file and its directory, or choose another --db", path);
		goto fail;
	}
	st->writable = flags & FAB_STORE_WRITE;
	sqlite3_extended_result_codes(st->db, 0);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	/* before the schema: the page size of a new file is set by its first table */
	if (st->writable && (flags & FAB_STORE_EXPORT) &&
	    (err = fab_store_exec(st, "PRAGMA page_size=1024; PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF",
				  "set up a file to copy")))
		goto fail;
	if ((err = check_schema(st, flags))) {
		if (!(flags & FAB_STORE_WRITE) && (err == -EROFS || err == -EIO) && shm_unwritable(path))
			err = fab_err(err, "cannot read database '%s': a WAL database needs '%s-shm' "
				      "beside it, and that directory is not writable; make it writable "
				      "or copy the database elsewhere", path, path);
		goto fail;
	}
	if (st->writable && !(flags & FAB_STORE_EXPORT)) {
		/* WAL: readers never block a scan; NORMAL is durable across a
		 * process crash, which is what a kill mid-scan is. */
		if ((err = fab_store_exec(st, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
					  "set WAL mode")))
			goto fail;
	}
	*out = st;
	return 0;
fail:
	fab_store_close(st);
	return err;
}

int fab_store_empty_image(unsigned char **out, size_t *len)
{
	struct fab_store st = { .path = (char *)"(new database)", .writable = true };
	sqlite3_int64 size = 0;
	unsigned char *img = NULL, *copy = NULL;
	int rc, err;

	rc = sqlite3_open_v2(":memory:", &st.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			     NULL);
	if (rc != SQLITE_OK) {
		err = sql_err(&st, rc, "open");
		goto out;
	}
	/* the export format (FAB_STORE_EXPORT): 1 KiB pages; a serialized
	 * in-memory database has a rollback journal in its header */
	if ((err = fab_store_exec(&st, "PRAGMA page_size=1024", "set up a file to copy")) ||
	    (err = migrate(&st, 0)))
		goto out;
	if (!(img = sqlite3_serialize(st.db, "main", &size, 0)) || size <= 0 ||
	    !(copy = malloc((size_t)size))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	memcpy(copy, img, (size_t)size);
	*out = copy;
	*len = (size_t)size;
out:
	sqlite3_free(img);
	sqlite3_close(st.db);
	return err;
}

void fab_store_close(struct fab_store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

const char *fab_store_path(const struct fab_store *st)
{
	return st->path;
}

int fab_store_begin(struct fab_store *st)
{
	return fab_store_exec(st, "BEGIN IMMEDIATE", "begin a transaction");
}

int fab_store_finish(struct fab_store *st, int err)
{
	if (err) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	return fab_store_exec(st, "COMMIT", "commit");
}

int fab_store_resolve_scan(struct fab_store *st, int64_t id, int64_t *out)
{
	int64_t found = 0;
	char sql[160];
	int err;

	if (id > 0)
		snprintf(sql, sizeof(sql), "SELECT scan_id FROM scans WHERE scan_id=%lld",
			 (long long)id);
	else
		snprintf(sql, sizeof(sql),
			 "SELECT scan_id FROM scans ORDER BY scan_id DESC LIMIT 1 OFFSET %lld",
			 (long long)-id);
	if ((err = query_int(st, sql, &found)))
		return err;
	if (!found) {
		if (id > 0)
			return fab_err(-ENOENT, "database '%s' has no scan %lld; 'fabsweep scans' lists them",
				       st->path, (long long)id);
		return fab_err(-ENOENT, "database '%s' has %s; run 'fabsweep scan' first",
			       st->path, id == 0 ? "no scans" : "not that many scans");
	}
	*out = found;
	return 0;
}

int fab_store_latest_merge(struct fab_store *st, int64_t *out)
{
	int64_t found = 0;
	int err = query_int(st, "SELECT scan_id FROM scans WHERE source LIKE 'merge:%'"
				" ORDER BY scan_id DESC LIMIT 1", &found);

	if (err)
		return err;
	if (!found)
		return fab_err(-ENOENT, "database '%s' holds no merged scan", st->path);
	*out = found;
	return 0;
}

int fab_store_keyframe_ok(struct fab_store *st, int64_t scan_id, bool *ok)
{
	sqlite3_stmt *s;
	int rc, err;

	if ((err = fab_sql_scan_query(st,
		"SELECT (SELECT roce_base_scan_id IS NOT NULL FROM scans WHERE scan_id = ?1)"
		" OR EXISTS (SELECT 1 FROM lldp_tlv_rows WHERE scan_id = ?1) OR "
		FAB_SQL_OLD_ROCE_ROWS("= ?1"), scan_id, &s)))
		return err;
	*ok = false;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*ok = !sqlite3_column_int(s, 0);
		rc = SQLITE_DONE; /* one row */
	}
	return fab_sql_done(st, s, rc, 0);
}

int fab_store_merge_inputs(struct fab_store *st, int64_t scan_id,
			   int (*fn)(const struct fab_roce_input *in, void *ctx), void *ctx)
{
	sqlite3_stmt *s;
	int rc, err;

	if ((err = fab_sql_scan_query(st, "SELECT file, mtime_ns, size, status FROM merge_inputs"
					  " WHERE scan_id = ?1 ORDER BY file", scan_id, &s)))
		return err;
	while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int status = fab_merge_status_parse(fab_sql_text(s, 3));
		struct fab_roce_input in = {
			.file = fab_sql_text(s, 0),
			.mtime_ns = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 1),
			.size = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 2),
			.status = (uint8_t)(status < 0 ? FAB_MERGE_FAILED : status),
		};
		if (in.file)
			err = fn(&in, ctx);
	}
	return fab_sql_done(st, s, rc, err);
}

int fab_store_list_scans(struct fab_store *st,
			 int (*fn)(const struct fab_scan_row *row, void *ctx),
			 void *ctx)
{
	static const char sql[] =
		"SELECT s.scan_id, started_at, finished_at, status, label, host, source,"
		" (SELECT count(*) FROM nodes n WHERE n.scan_id=s.scan_id),"
		" (SELECT count(*) FROM port_rows p WHERE p.scan_id=coalesce(s.topology_scan_id, s.scan_id)"
		" AND p.port_num>0),"
		" (SELECT count(*) FROM links l WHERE l.scan_id=s.scan_id),"
		" (SELECT count(*) FROM findings f WHERE f.scan_id=s.scan_id),"
		" (SELECT count(*) FROM scan_errors e WHERE e.scan_id=s.scan_id),"
		" EXISTS (SELECT 1 FROM checks c WHERE c.scan_id=s.scan_id)"
		" FROM scans s ORDER BY s.scan_id";
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), ret = 0;

	if (rc != SQLITE_OK)
		return sql_err(st, rc, "list scans");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_scan_row r = {
			.scan_id = sqlite3_column_int64(s, 0),
			.started_at = (const char *)sqlite3_column_text(s, 1),
			.finished_at = (const char *)sqlite3_column_text(s, 2),
			.status = (const char *)sqlite3_column_text(s, 3),
			.label = (const char *)sqlite3_column_text(s, 4),
			.host = (const char *)sqlite3_column_text(s, 5),
			.source = (const char *)sqlite3_column_text(s, 6),
			.n_nodes = sqlite3_column_int64(s, 7),
			.n_ports = sqlite3_column_int64(s, 8),
			.n_links = sqlite3_column_int64(s, 9),
			.n_findings = sqlite3_column_int64(s, 10),
			.n_errors = sqlite3_column_int64(s, 11),
			.checked = sqlite3_column_int(s, 12) != 0,
		};
		if ((ret = fn(&r, ctx)))
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = sql_err(st, rc, "list scans");
	sqlite3_finalize(s);
	return ret;
}

int fab_store_info(struct fab_store *st, struct fab_store_info *out)
{
	struct fab_store_info i = { .schema_version = FAB_SCHEMA_VERSION };
	int64_t v = 0;
	int err;
	sqlite3_stmt *s;

	if ((err = query_int(st, "SELECT count(*) FROM scans", &i.n_scans)) ||
	    (err = query_int(st, "SELECT coalesce(min(scan_id),0) FROM scans", &i.first_scan)) ||
	    (err = query_int(st, "SELECT coalesce(max(scan_id),0) FROM scans", &i.last_scan)) ||
	    (err = query_int(st, "PRAGMA page_size", &i.page_size)) ||
	    (err = query_int(st, "PRAGMA page_count", &i.page_count)) ||
	    (err = query_int(st, "PRAGMA freelist_count", &i.freelist_count)) ||
	    (err = query_int(st, "PRAGMA user_version", &v)))
		return err;
	i.schema_version = (int)v;
	if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode", -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			snprintf(i.journal_mode, sizeof(i.journal_mode), "%s",
				 (const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
	}
	*out = i;
	return 0;
}
