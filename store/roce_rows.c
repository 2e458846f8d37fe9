// SPDX-License-Identifier: MIT
/*
 * Rows of the RoCE tables from SQLite or from the file read directly
 * (roce_rows.h): the one query runner and column accessors the loader
 * (roce_load.c) uses for both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/store.h"
#include "roce_rows.h"
#include "store_priv.h"

#define MAX_QCOLS 64

static struct fab_dbval val(const struct fab_rrow *r, int i)
{
	struct fab_dbval v = { .type = FAB_DBV_NULL };

	if (r->col[i] >= 0)
		fab_dbrec_get(r->rec, r->tab, r->col[i], &v); /* malformed: NULL */
	return v;
}

bool fab_rrow_null(const struct fab_rrow *r, int i)
{
	if (r->stmt)
		return sqlite3_column_type(r->stmt, i) == SQLITE_NULL;
	return val(r, i).type == FAB_DBV_NULL;
}

int64_t fab_rrow_int(const struct fab_rrow *r, int i)
{
	if (r->stmt)
		return sqlite3_column_int64(r->stmt, i);
	struct fab_dbval v = val(r, i);
	/* what sqlite3_column_int64 makes of the other types */
	if (v.type == FAB_DBV_FLOAT)
		return (int64_t)v.f;
	if (v.type == FAB_DBV_TEXT) {
		char buf[32];
		size_t n = v.len < sizeof(buf) - 1 ? v.len : sizeof(buf) - 1;
		memcpy(buf, v.p, n);
		buf[n] = '\0';
		return strtoll(buf, NULL, 10);
	}
	return v.type == FAB_DBV_INT ? v.i : 0;
}

double fab_rrow_double(const struct fab_rrow *r, int i)
{
	if (r->stmt)
		return sqlite3_column_double(r->stmt, i);
	struct fab_dbval v = val(r, i);
	return v.type == FAB_DBV_FLOAT ? v.f : v.type == FAB_DBV_INT ? (double)v.i : 0;
}

const char *fab_rrow_text(struct fab_rrow *r, int i)
{
	if (r->stmt)
		return (const char *)sqlite3_column_text(r->stmt, i);
	struct fab_dbval v = val(r, i);
	char buf[32];
	const void *p = v.p;
	size_t n = v.len;

	if (v.type == FAB_DBV_NULL)
		return NULL;
	if (v.type == FAB_DBV_INT || v.type == FAB_DBV_FLOAT) {
		n = (size_t)(v.type == FAB_DBV_INT ? snprintf(buf, sizeof(buf), "%lld", (long long)v.i)
						   : snprintf(buf, sizeof(buf), "%.17g", v.f));
		p = buf;
	}
	if (n + 1 > r->text_cap) {
		char *t = realloc(r->text, n + 1);
		if (!t)
			return NULL;
		r->text = t;
		r->text_cap = n + 1;
	}
	memcpy(r->text, p, n);
	r->text[n] = '\0';
	return r->text;
}

const void *fab_rrow_blob(const struct fab_rrow *r, int i, int *len)
{
	if (r->stmt) {
		*len = sqlite3_column_bytes(r->stmt, i);
		return sqlite3_column_blob(r->stmt, i);
	}
	struct fab_dbval v = val(r, i);
	*len = v.type == FAB_DBV_BLOB || v.type == FAB_DBV_TEXT ? (int)v.len : 0;
	return *len ? v.p : NULL;
}

bool fab_rsrc_has(const struct fab_rsrc *src, const char *table, const char *col)
{
	if (src->f) {
		struct fab_dbtable t;
		return !fab_dbfile_table(src->f, table, &t) && (!col || fab_dbtable_col(&t, col) >= 0);
	}
	return sqlite3_table_column_metadata(src->st->db, "main", table, col, NULL, NULL, NULL, NULL,
					     NULL) == SQLITE_OK;
}

/* ---- SQLite ------------------------------------------------------------------ */

static int run_sql(const struct fab_rsrc *src, const struct fab_rquery *q, int64_t scan,
		   int (*fn)(struct fab_rrow *row, void *ctx), void *ctx)
{
	char sql[4096];
	size_t off = 0;
	sqlite3_stmt *s;
	int rc, err = 0;

	if (!fab_rsrc_has(src, q->table, NULL))
		return 0;
	off += (size_t)snprintf(sql, sizeof(sql), "SELECT ");
	for (int i = 0; q->cols[i] && off < sizeof(sql); i++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, "%s%s", i ? ", " : "",
					fab_rsrc_has(src, q->table, q->cols[i]) ? q->cols[i] : "NULL");
	if (off < sizeof(sql))
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, " FROM %s%s%s%s ORDER BY %s", q->table,
					q->by_scan ? " WHERE scan_id=?1" : "",
					q->by_scan && q->and_where ? " AND " : "",
					q->by_scan && q->and_where ? q->and_where : "", q->order);
	if (off >= sizeof(sql))
		return fab_err(-E2BIG, "a query of %s is too long", q->table);
	if ((err = fab_sql_scan_query(src->st, sql, scan, &s)))
		return err;
	struct fab_rrow row = { .stmt = s };
	while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW)
		err = fn(&row, ctx);
	return fab_sql_done(src->st, s, err ? SQLITE_DONE : rc, err);
}

/* ---- the file ---------------------------------------------------------------- */

struct file_run {
	const struct fab_rquery *q;
	int64_t scan;
	int scan_col;
	struct fab_rrow row;
	int (*fn)(struct fab_rrow *row, void *ctx);
	void *ctx;
};

static int file_row(const struct fab_dbrec *rec, void *ctx)
{
	struct file_run *x = ctx;

	x->row.rec = rec;
	if (x->q->by_scan) {
		struct fab_dbval v;
		if (fab_dbrec_get(rec, x->row.tab, x->scan_col, &v) || v.type != FAB_DBV_INT)
			return -EPROTO;
		if (v.i != x->scan)
			return 0;
	}
	return x->fn(&x->row, x->ctx);
}

static int run_file(const struct fab_rsrc *src, const struct fab_rquery *q, int64_t scan,
		    int (*fn)(struct fab_rrow *row, void *ctx), void *ctx)
{
	struct fab_dbtable t;
	int col[MAX_QCOLS], err = fab_dbfile_table(src->f, q->table, &t);

	if (err == -ENOENT)
		return 0;
	if (err)
		return fab_err(-EPROTO, "'%s': table %s: unexpected layout", src->path, q->table);
	for (int i = 0; q->cols[i]; i++) {
		if (i == MAX_QCOLS)
			return fab_err(-E2BIG, "a query of %s has too many columns", q->table);
		col[i] = fab_dbtable_col(&t, q->cols[i]);
	}
	struct file_run x = { .q = q, .scan = scan, .scan_col = fab_dbtable_col(&t, "scan_id"),
			      .row = { .tab = &t, .col = col }, .fn = fn, .ctx = ctx };
	if (q->by_scan && x.scan_col < 0)
		return fab_err(-EPROTO, "'%s': table %s has no scan_id", src->path, q->table);
	err = fab_dbfile_scan(src->f, &t, file_row, &x);
	free(x.row.text);
	if (err == -EPROTO)
		return fab_err(err, "'%s': table %s: a page or record is not what the SQLite file "
				    "format says", src->path, q->table);
	if (err == -ENOMEM)
		return fab_err(err, "out of memory");
	return err;
}

int fab_rquery_run(const struct fab_rsrc *src, const struct fab_rquery *q, int64_t scan,
		   int (*fn)(struct fab_rrow *row, void *ctx), void *ctx)
{
	return src->f ? run_file(src, q, scan, fn, ctx) : run_sql(src, q, scan, fn, ctx);
}
