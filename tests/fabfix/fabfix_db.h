// SPDX-License-Identifier: MIT
/*
 * fabfix_db.h - what unit tests ask a database file directly, beside the
 * store's API (tests/fabfix/fabfix.h is free of SQLite; this is not).
 */
#ifndef FABFIX_DB_H
#define FABFIX_DB_H

#include <stdint.h>

#include <sqlite3.h>

#include "fabsweep/store.h"

/* The first column of the first row of sql on the database at path, opened
 * read-only; -1 when there is no row. Fails the test when the file cannot
 * be opened or sql does not prepare. */
static inline int64_t fabfix_db_count(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

/* Writes snap as one scan into the database at path (created when missing);
 * fails the test when the store refuses it. */
static inline void fabfix_db_write(const char *path, struct fab_snapshot *snap)
{
	struct fab_store *st;

	assert_int_equal(fab_store_open(path, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, snap), 0);
	fab_store_close(st);
}

/* Scan id of the database at path, loaded whole (fab_store_load_scan);
 * fails the test when it cannot be. Owned by the caller. */
static inline struct fab_snapshot *fabfix_db_load(const char *path, int64_t id)
{
	struct fab_store *st;
	struct fab_snapshot *s;

	assert_int_equal(fab_store_open(path, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_load_scan(st, id, &s), 0);
	fab_store_close(st);
	return s;
}

#endif
