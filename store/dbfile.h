/* SPDX-License-Identifier: MIT */
/*
 * Private to store/: reading the tables of a finished fabsweep database file
 * straight from the SQLite file format (https://www.sqlite.org/fileformat2.html),
 * without SQLite (dbfile.c). `fabsweep merge` reads thousands of host files
 * once each; opening one with SQLite parses its whole schema (123 objects,
 * the views most of it), which costs more than everything merge does with
 * the file. This reads only the table b-trees asked for, bounds-checked;
 * anything it does not expect is an error, and the caller then reads the
 * file with SQLite (store/roce_file.c).
 *
 * Only for files nobody writes any more: a file with a non-empty -wal (its
 * last transactions are there) or a -journal beside it is refused (-EAGAIN),
 * as is one larger than 256 MiB: a file is read whole, in one call (a host
 * file's 150 pages of 1 KiB one by one cost more system time than the rest
 * of its merge).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stat;

struct fab_dbfile;

/* A table's layout, from its CREATE TABLE text in sqlite_schema. */
#define FAB_DBFILE_MAX_COLS 96
struct fab_dbtable {
	uint32_t root;          /* root page */
	bool without_rowid;
	int n_cols;
	char names[FAB_DBFILE_MAX_COLS][40];
	int field[FAB_DBFILE_MAX_COLS]; /* the record field a column is in; -1: the rowid */
	bool has_default[FAB_DBFILE_MAX_COLS];
	int64_t def[FAB_DBFILE_MAX_COLS]; /* an integer DEFAULT, for records older than the column */
};

/* One value of a record. */
enum fab_dbval_type { FAB_DBV_NULL, FAB_DBV_INT, FAB_DBV_FLOAT, FAB_DBV_TEXT, FAB_DBV_BLOB };
struct fab_dbval {
	enum fab_dbval_type type;
	int64_t i;
	double f;
	const uint8_t *p; /* TEXT, BLOB: len bytes, not NUL-terminated */
	size_t len;
};

/* One record (row) of a table, valid during the callback. */
#define FAB_DBFILE_MAX_FIELDS 128
struct fab_dbrec {
	int64_t rowid; /* rowid tables */
	int n_fields;
	const uint8_t *payload;
	size_t len;
	uint64_t type[FAB_DBFILE_MAX_FIELDS]; /* serial type of each field */
	uint32_t off[FAB_DBFILE_MAX_FIELDS];  /* where its bytes start in payload */
};

/* A reader, reused for file after file (it keeps its buffers and the table
 * layouts it parsed). NULL on ENOMEM. */
struct fab_dbfile *fab_dbfile_new(void);
void fab_dbfile_free(struct fab_dbfile *f); /* accepts NULL */
/*
 * Opens path for reading (closing the file before): checks the header (a
 * SQLite 3 file, UTF-8, a page size SQLite writes) and that nothing beside
 * it holds newer data, reads sqlite_schema. *sb (may be NULL) = its fstat.
 * -EAGAIN: a -wal or -journal is there; -EPROTO: not what it expects;
 * -errno: cannot read. No message is set (the caller falls back to SQLite,
 * whose message is the one to show).
 */
int fab_dbfile_load(struct fab_dbfile *f, const char *path, struct stat *sb);
/* PRAGMA user_version and application_id of the file. */
int64_t fab_dbfile_user_version(const struct fab_dbfile *f);
int64_t fab_dbfile_application_id(const struct fab_dbfile *f);
/* A table by name: 0, -ENOENT (no such table), -EPROTO (unreadable text). */
int fab_dbfile_table(struct fab_dbfile *f, const char *name, struct fab_dbtable *out);
/* The column named name of t: its index in t, or -1. */
int fab_dbtable_col(const struct fab_dbtable *t, const char *name);
/*
 * Calls fn for every record of t in key order (rowid, or the primary key of
 * a WITHOUT ROWID table); stops at the first non-zero return, which it
 * returns. -EPROTO when a page is not what the format says.
 */
int fab_dbfile_scan(struct fab_dbfile *f, const struct fab_dbtable *t,
		    int (*fn)(const struct fab_dbrec *rec, void *ctx), void *ctx);
/* Column c (an index in t) of rec; -EPROTO when the record is malformed. */
int fab_dbrec_get(const struct fab_dbrec *rec, const struct fab_dbtable *t, int c,
		  struct fab_dbval *out);
