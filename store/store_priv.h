/* SPDX-License-Identifier: MIT */
/* Private to store/: the handle and helpers shared by its files. */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

struct fab_store {
	sqlite3 *db;
	char *path;
	bool writable;
};

/* Each returns 0 or a negative errno with the message set. */
int fab_store_exec(struct fab_store *st, const char *sql, const char *what);
int fab_store_prepare(struct fab_store *st, const char *sql, sqlite3_stmt **out);
int fab_store_begin(struct fab_store *st);
/* Commits when err is 0, else rolls back; returns err or the commit's error. */
int fab_store_finish(struct fab_store *st, int err);

/* store/sql.c: helpers every store file uses. A NULL text, a 0 time and a
 * 0 GUID given to _opt bind SQL NULL. */
void fab_sql_bind_text(sqlite3_stmt *s, int i, const char *v);
void fab_sql_bind_guid(sqlite3_stmt *s, int i, uint64_t guid);
void fab_sql_bind_guid_opt(sqlite3_stmt *s, int i, uint64_t guid);
void fab_sql_bind_time(sqlite3_stmt *s, int i, int64_t ms);
/* Text bound without a copy: it must stay as it is until the statement's
 * next step has run (a constant, the snapshot's own strings, a kept text).
 * NULL binds SQL NULL. */
void fab_sql_bind_static(sqlite3_stmt *s, int i, const char *v);
/*
 * A column's text kept through a writer's loop, for fab_sql_bind_static:
 * formatted again only when the value changes (neighbouring rows mostly
 * share their node's GUID and their width and speed masks). A bulk insert
 * of a large snapshot copies and formats a few hundred thousand texts
 * otherwise (docs/scan.md, Performance).
 */
enum fab_sql_kept_kind { FAB_KEPT_WIDTHS, FAB_KEPT_SPEEDS, FAB_KEPT_GUID, FAB_KEPT_TIME };
struct fab_sql_kept {
	uint64_t v;
	bool set;
	char text[96];
};
const char *fab_sql_kept_text(struct fab_sql_kept *k, enum fab_sql_kept_kind kind,
			      uint64_t v);
/* Steps an insert and resets it for the next row. */
int fab_sql_step(struct fab_store *st, sqlite3_stmt *s, const char *what);
const char *fab_sql_text(sqlite3_stmt *s, int i);
/* A GUID or time column; 0 when NULL (or not parseable). */
uint64_t fab_sql_guid(sqlite3_stmt *s, int i);
int64_t fab_sql_time(sqlite3_stmt *s, int i);
/* Prepares a per-scan query with the scan id bound as ?1. */
int fab_sql_scan_query(struct fab_store *st, const char *sql, int64_t scan_id,
		       sqlite3_stmt **out);
/* Finalizes a read loop: err, or an error when rc is not SQLITE_DONE. */
int fab_sql_done(struct fab_store *st, sqlite3_stmt *s, int rc, int err);
