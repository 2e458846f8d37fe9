/* SPDX-License-Identifier: MIT */
/*
 * The sandbox site rules run in (store/site_query.c; the rules themselves:
 * fabsweep/site_rules.h; docs/site-rules.md). A separate read-only
 * connection with an authorizer that allows only SELECT over the public
 * relations and a list of harmless functions, with time, memory and length
 * limits: the only place site SQL touches SQLite.
 */
#pragma once

#include <stdint.h>

struct fab_store;

/* Longest query compiled (a rule file is at most that long). */
#define FAB_SITE_SQL_MAX (64 * 1024)

/* The result columns every site rule returns, in this order. */
enum {
	FAB_SITE_COL_NODE = 0,
	FAB_SITE_COL_PORT,
	FAB_SITE_COL_PEER_NODE,
	FAB_SITE_COL_PEER_PORT,
	FAB_SITE_COL_SUBJECT,
	FAB_SITE_COL_MESSAGE,
	FAB_SITE_COL__COUNT
};
/* "node", "port", ... */
const char *fab_site_column_name(unsigned col);

/* Default and largest time limit of one rule, seconds. */
#define FAB_SITE_TIME_DEFAULT 2.0
#define FAB_SITE_TIME_MAX 60.0
/* Memory one rule may use, on top of what SQLite used before it started. */
#define FAB_SITE_HEAP_BYTES (256LL * 1024 * 1024)
/*
 * Longest string or blob a query may build (SQLITE_LIMIT_LENGTH), and LIKE
 * or GLOB pattern. The time limit is checked between the steps of a query;
 * one function call is one step, and its cost grows with the length of its
 * arguments (instr() over 1 MB strings takes 10 s): these bound it (0.1 s).
 */
#define FAB_SITE_LENGTH_MAX 100000
#define FAB_SITE_PATTERN_MAX 1000

struct fab_site_db;

/*
 * Opens path read-only for site rules (a second connection besides the
 * store's; it never writes, not even temporary files). path NULL: an empty
 * in-memory database with the current schema, to check rules without data.
 * *out owned by the caller; 0 or a negative errno with fab_errmsg() set.
 */
int fab_site_db_open(const char *path, struct fab_site_db **out);
/* The same on the database st has open (st NULL: the empty one). */
int fab_store_site_open(const struct fab_store *st, struct fab_site_db **out);
void fab_site_db_close(struct fab_site_db *db); /* accepts NULL */

/* One result row: FAB_SITE_COL__COUNT values as text, each may be NULL.
 * Valid during the call only. Non-zero stops the query and is returned. */
typedef int (*fab_site_row_fn)(void *ctx, const char *const *cols);

/*
 * Compiles sql (borrowed) in the sandbox and, when row is not NULL, runs it
 * with :scan_id and :baseline_id bound (baseline_id 0: NULL), calling row
 * for each result row. name (a file path) names the rule in messages.
 * seconds: its time limit (compiling included).
 *
 * Returns 0; row's non-zero value; or a negative errno with fab_errmsg()
 * "site rule 'NAME': why; what to do":
 *   -EPERM   refused by the sandbox (writes, ATTACH, PRAGMA, a function or
 *            relation that is not allowed)
 *   -EINVAL  not exactly one SELECT, wrong result columns, an unknown
 *            parameter, or an SQL error
 *   -ETIME   ran longer than its time limit
 *   -E2BIG   built a string or blob longer than FAB_SITE_LENGTH_MAX
 *   -ENOMEM  needed more than FAB_SITE_HEAP_BYTES
 *   -EIO     the database failed
 *
 * The memory limit is SQLite's process-wide hard heap limit, raised to
 * what SQLite uses plus FAB_SITE_HEAP_BYTES for the duration of the call and
 * restored after it: do not run SQLite on other threads meanwhile (fabsweep
 * runs site rules one at a time, on one thread).
 */
int fab_site_db_query(struct fab_site_db *db, const char *name, const char *sql,
		      double seconds, int64_t scan_id, int64_t baseline_id,
		      fab_site_row_fn row, void *ctx);
