// SPDX-License-Identifier: MIT
/*
 * A merge's input file (fab_store_read_input, store.h): read straight from
 * the SQLite file format (dbfile.h) when it can be, else with SQLite opened
 * so that nothing is written beside the file. Either way through the rows of
 * roce_rows.h and the one RoCE loader (roce_load.c). The messages are for
 * merge: they name the file and say what to do with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "roce_rows.h"
#include "store_priv.h"

struct latest {
	struct fab_snapshot *snap;
	int64_t id;
	bool any;
};

static int scan_row(struct fab_rrow *w, void *ctx)
{
	struct latest *x = ctx;
	struct fab_snapshot *s = x->snap;
	int64_t id = fab_rrow_int(w, 0);

	if (x->any && id < x->id)
		return 0;
	x->any = true;
	x->id = s->scan_id = id;
	s->started_at_ms = s->finished_at_ms = 0;
	if (!fab_rrow_null(w, 1))
		fab_time_parse(fab_rrow_text(w, 1), &s->started_at_ms);
	if (!fab_rrow_null(w, 2))
		fab_time_parse(fab_rrow_text(w, 2), &s->finished_at_ms);
	int st = fab_scan_status_parse(fab_rrow_text(w, 3));
	s->status = (uint8_t)(st < 0 ? FAB_SCAN_PARTIAL : st);
	const char *t;
	s->label = (t = fab_rrow_text(w, 4)) ? fab_snapshot_strdup(s, t, SIZE_MAX) : NULL;
	s->host = (t = fab_rrow_text(w, 5)) ? fab_snapshot_strdup(s, t, SIZE_MAX) : NULL;
	s->source = (t = fab_rrow_text(w, 6)) ? fab_snapshot_strdup(s, t, SIZE_MAX) : NULL;
	return 0;
}

static int error_row(struct fab_rrow *w, void *ctx)
{
	struct fab_snapshot *s = ctx;
	uint64_t guid = 0;
	const char *g = fab_rrow_text(w, 0);
	char what[64];

	if (g)
		fab_guid_parse(g, &guid);
	int port = fab_rrow_null(w, 1) ? -1 : (int)fab_rrow_int(w, 1);
	snprintf(what, sizeof(what), "%s", fab_rrow_text(w, 2) ? fab_rrow_text(w, 2) : "?");
	const char *msg = fab_rrow_text(w, 3);
	return fab_snapshot_add_error(s, guid, port, what, "%s", msg ? msg : "?");
}

static int any_row(struct fab_rrow *w, void *ctx)
{
	(void)w;
	*(bool *)ctx = true;
	return 1; /* one is enough */
}

/* The latest scan of src into *out. */
static int read_src(const struct fab_rsrc *src, struct fab_snapshot **out, bool *has_ib)
{
	static const char *const scan_cols[] = { "scan_id", "started_at", "finished_at", "status",
						 "label", "host", "source", NULL };
	static const char *const err_cols[] = { "node_guid", "port_num", "what", "message", NULL };
	static const char *const node_cols[] = { "scan_id", NULL };
	static const struct fab_rquery scans = { "scans", scan_cols, "scan_id", false, NULL };
	static const struct fab_rquery errors = { "scan_errors", err_cols, "rowid", true, NULL };
	/* schema 4 renamed nodes (then a table) to node_rows */
	struct fab_rquery nodes = { "node_rows", node_cols, "scan_id", true, NULL };
	struct latest x = { .snap = fab_snapshot_new() };
	bool ib = false;
	int err;

	if (!x.snap)
		return fab_err(-ENOMEM, "out of memory");
	if (!fab_rsrc_has(src, nodes.table, NULL))
		nodes.table = "nodes";
	if ((err = fab_rquery_run(src, &scans, 0, scan_row, &x)))
		goto out;
	if (!x.any) {
		err = fab_err(-ENODATA, "'%s' holds no snapshot: 'fabsweep collect' did not finish there;"
					" collect again on that host", src->path);
		goto out;
	}
	if ((err = fab_rquery_run(src, &errors, x.id, error_row, x.snap)) ||
	    ((err = fab_rquery_run(src, &nodes, x.id, any_row, &ib)) && err != 1) ||
	    (err = fab_roce_load(src, x.snap, false)))
		goto out;
	err = 0;
	if (has_ib)
		*has_ib = ib;
	*out = x.snap;
	return 0;
out:
	fab_snapshot_free(x.snap);
	return err;
}

static int check_ids(const char *path, int64_t app, int64_t ver)
{
	if (app != FAB_APPLICATION_ID)
		return fab_err(-ENOTSUP, "'%s' is not a fabsweep database (application_id 0x%llx): pass the"
					 " files 'fabsweep collect' wrote", path, (unsigned long long)app);
	if (ver > FAB_SCHEMA_VERSION)
		return fab_err(-ERANGE, "'%s' was written by a newer fabsweep (schema %lld, this one reads up"
					" to %d): upgrade fabsweep on this machine", path, (long long)ver,
			       FAB_SCHEMA_VERSION);
	return 0;
}

/* With SQLite: immutable unless a -wal beside the file holds its last
 * transactions (then SQLite needs its -shm, and says so when it cannot). */
static int read_sqlite(const char *path, struct fab_snapshot **out, bool *has_ib)
{
	char wal[4200];
	struct stat sb;
	bool live = snprintf(wal, sizeof(wal), "%s-wal", path) < (int)sizeof(wal) && !stat(wal, &sb) &&
		    sb.st_size > 0;
	unsigned flags = FAB_STORE_READONLY | FAB_STORE_ANY_VERSION | (live ? 0 : FAB_STORE_IMMUTABLE);
	struct fab_store *st = NULL;
	int err;

	if ((err = fab_store_open(path, flags, &st))) {
		char why[512];
		snprintf(why, sizeof(why), "%s", fab_errmsg());
		if (err == -ENOENT)
			return fab_err(-ENODATA, "'%s' holds no snapshot: 'fabsweep collect' did not finish"
						 " there; collect again on that host", path);
		if (err == -EPROTO || err == -ENOTSUP)
			return fab_err(err, "'%s' is not a fabsweep database, or it is damaged: pass the files"
					    " 'fabsweep collect' wrote, or collect again on that host", path);
		if (err == -EIO)
			return fab_err(err, "'%s' cannot be read (%s): leave it out, or collect again on that"
					    " host", path, why);
		return err; /* store.c's message names the file and what to do */
	}
	struct fab_rsrc src = { .st = st, .path = path };
	err = fab_store_exec(st, "BEGIN", "begin a read");
	if (!err) {
		err = read_src(&src, out, has_ib);
		fab_store_exec(st, "COMMIT", "end a read");
	}
	fab_store_close(st);
	return err;
}

struct fab_store_reader {
	struct fab_dbfile *f;
};

int fab_store_reader_new(struct fab_store_reader **out)
{
	struct fab_store_reader *rd = calloc(1, sizeof(*rd));

	if (!rd || !(rd->f = fab_dbfile_new())) {
		free(rd);
		return fab_err(-ENOMEM, "out of memory");
	}
	*out = rd;
	return 0;
}

void fab_store_reader_free(struct fab_store_reader *rd)
{
	if (rd) {
		fab_dbfile_free(rd->f);
		free(rd);
	}
}

static int read_input(struct fab_store_reader *rd, const char *path, struct fab_snapshot **out,
		      struct fab_store_input *info)
{
	struct stat sb;
	int err;

	*info = (struct fab_store_input){ .mtime_ns = -1, .size = -1 };
	err = fab_dbfile_load(rd->f, path, &sb);
	if (err != -EAGAIN && err != -ENOENT && err != -EACCES && err != -EPERM && err != -ENOMEM) {
		info->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
		info->size = (int64_t)sb.st_size;
		if (S_ISDIR(sb.st_mode))
			return fab_err(-EISDIR, "'%s' is a directory: give its *.db files, or the directory"
						" as an input of its own", path);
	}
	if (err == -ENOENT)
		return fab_err(err, "'%s' does not exist: check the path, or run 'fabsweep collect' on"
				    " that host", path);
	if (err == -EACCES || err == -EPERM)
		return fab_err(err, "'%s' cannot be read (%s): leave it out, or give this user read"
				    " access to it", path, strerror(-err));
	if (err == -ENOMEM)
		return fab_err(err, "out of memory");
	if (!err) {
		struct fab_rsrc src = { .f = rd->f, .path = path };
		if (!(err = check_ids(path, fab_dbfile_application_id(rd->f),
				      fab_dbfile_user_version(rd->f))))
			err = read_src(&src, out, &info->has_ib);
		info->direct = !err;
		if (err != -EPROTO)
			return err;
	}
	/* a -wal or -journal beside it, or what the file format reader did not
	 * expect: SQLite reads it (and says what is wrong, if anything) */
	if (info->mtime_ns < 0 && !stat(path, &sb)) {
		info->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
		info->size = (int64_t)sb.st_size;
	}
	return read_sqlite(path, out, &info->has_ib);
}

int fab_store_read_input(struct fab_store_reader *rd, const char *path,
			 struct fab_snapshot **out, struct fab_store_input *info)
{
	struct fab_store_reader *own = NULL;
	struct fab_store_input tmp;
	int err;

	if (!rd && (err = fab_store_reader_new(&own)))
		return err;
	fab_err_clear();
	err = read_input(rd ? rd : own, path, out, info ? info : &tmp);
	fab_store_reader_free(own);
	return err;
}
