/* SPDX-License-Identifier: MIT */
/*
 * Private to store/roce_*.c: rows of the RoCE tables from either source the
 * loader reads, SQLite (the database of a command) or the file format read
 * directly (a merge's input files, dbfile.h), so that one loader
 * (roce_load.c) decodes them. A query names its table and columns; a
 * column the file's schema does not have (an older fabsweep wrote it) reads
 * as NULL, a table it does not have as no rows.
 */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "dbfile.h"

struct fab_store;

/* Where rows come from: st, or f (then st is NULL). */
struct fab_rsrc {
	struct fab_store *st;
	struct fab_dbfile *f;
	const char *path; /* for messages */
};

/* One row of a query, valid during the callback. */
struct fab_rrow {
	sqlite3_stmt *stmt;           /* SQLite: the columns in query order */
	const struct fab_dbrec *rec;  /* the file: a record of tab */
	const struct fab_dbtable *tab;
	const int *col;               /* the file: query column -> tab column, -1 absent */
	char *text;                   /* scratch for NUL-terminated texts of a record */
	size_t text_cap;
};

struct fab_rquery {
	const char *table;
	const char *const *cols; /* NULL-terminated */
	const char *order;       /* SQLite's ORDER BY: the table's key order */
	bool by_scan;            /* only the rows of one scan (WHERE scan_id = ?) */
	/* SQLite only, with by_scan: a further condition on the key (a
	 * prefix SQLite can seek by); the callback checks it again for the
	 * file read directly, which reads every row */
	const char *and_where;
};

bool fab_rrow_null(const struct fab_rrow *r, int i);
int64_t fab_rrow_int(const struct fab_rrow *r, int i);
double fab_rrow_double(const struct fab_rrow *r, int i);
/* NUL-terminated text (a blob's bytes are not); NULL for NULL. Valid until
 * the next call for another column of a file's row. */
const char *fab_rrow_text(struct fab_rrow *r, int i);
const void *fab_rrow_blob(const struct fab_rrow *r, int i, int *len);

/* Runs q for scan (when q->by_scan), calling fn per row in key order; stops
 * at fn's first non-zero return. 0 or a negative errno with the message set. */
int fab_rquery_run(const struct fab_rsrc *src, const struct fab_rquery *q, int64_t scan,
		   int (*fn)(struct fab_rrow *row, void *ctx), void *ctx);
/* Whether the source's schema has a table (a column) of that name. */
bool fab_rsrc_has(const struct fab_rsrc *src, const char *table, const char *col);

/* The RoCE part of scan from src into snap->roce (roce_load.c). */
/* later (src->st only): the RDMA devices left stored (fab_roce_system.stored_scan) */
int fab_roce_load(const struct fab_rsrc *src, struct fab_snapshot *snap, bool later);
/* A scan's Ethernet modules and NIC counters into r, its eth ports loaded
 * (phys_io.c). */
struct fab_roce;
/* Where a delta's rows go (roce_load.c): a stored port index to its
 * position, FAB_NONE for a row left out (its keyframe's, of a system it
 * hides); each module's stored index told. NULL for a whole scan. */
struct fab_roce_place {
	uint32_t (*port)(void *ctx, int64_t stored);
	int (*module)(void *ctx, int64_t stored, uint32_t pos);
	void *ctx;
	/* SQLite only: the rows of some ports, read by these conditions on
	 * module_rows (its Ethernet rows) and on nic_counter_ports; NULL: all */
	const char *mod_where, *nic_where;
};
int fab_roce_load_phys(const struct fab_rsrc *src, struct fab_roce *r, int64_t scan,
		       const struct fab_roce_place *place);
