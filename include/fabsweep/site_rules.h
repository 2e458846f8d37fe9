/* SPDX-License-Identifier: MIT */
/*
 * Site rules: checks an operator writes as one SQL SELECT over the public
 * SQL interface (docs/schema.md), one file per rule in a rules directory,
 * without writing C. docs/site-rules.md describes the file format, what a
 * query may use and the limits it runs under.
 *
 * Two layers, in two modules:
 *  - store/site_query.c: the sandbox. A separate read-only connection with
 *    an authorizer that allows only SELECT over the public relations and a
 *    list of harmless functions, with time, memory and length limits. The
 *    only place site SQL touches SQLite.
 *  - rules/site_*.c: the rule files (directory, strict header), and running
 *    them over a stored scan so that their rows become ordinary findings
 *    (severity overrides, disabling and suppressions of the config apply).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_config;
struct fab_snapshot;

#define FAB_SITE_RULES_DIR "/etc/fabsweep/rules.d"
/* Every site rule id starts with this: a site rule never shadows a built-in. */
#define FAB_SITE_ID_PREFIX "site."
#define FAB_SITE_ID_MAX 64
/* Largest rule file, and most rule files read from a directory. */
#define FAB_SITE_FILE_MAX (64 * 1024)
#define FAB_SITE_FILES_MAX 256

/* ==== the sandbox (store/site_query.c) ================================== */

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

/* ==== rule files (rules/site_load.c, rules/site_run.c) ================== */

enum fab_site_status {
	FAB_SITE_LOADED = 0, /* valid file, not run (yet) */
	FAB_SITE_BROKEN,     /* the file is not a valid rule: never runs */
	FAB_SITE_RAN,
	FAB_SITE_FAILED,     /* refused or failed when run; recorded nothing */
	FAB_SITE_DISABLED,   /* switched off in the config ([rules] id = off) */
};

/* One rule file. Strings are owned by the set. */
struct fab_site_rule {
	const char *path;  /* the file */
	const char *id;    /* "site.edr_host"; NULL when the file has none */
	uint8_t severity;  /* enum fab_severity, from the header */
	const char *title, *remediation; /* one paragraph each */
	const char *rationale; /* optional, NULL */
	double time_limit;     /* seconds */
	const char *text;      /* the whole file (header and query) */
	const char *sql;       /* the query: text after the header */
	unsigned sql_line;     /* line of text where sql starts */

	/* state: what loading (or the last run) found */
	uint8_t status;        /* enum fab_site_status */
	const char *error;     /* BROKEN / FAILED: one line naming the file */
	int err;               /* its negative errno */
	uint32_t n_findings;   /* kept findings of the last run */
	bool truncated;        /* it returned more than FAB_SITE_ROWS_MAX rows */
	double seconds;        /* time of the last run */
};

struct fab_site_rules;

/*
 * Reads every "*.sql" file of dir (not hidden ones), in name order. dir NULL:
 * FAB_SITE_RULES_DIR, and no directory there means no site rules; a dir
 * given that does not exist is an error (-ENOENT). A file that is not a
 * valid rule (header, id, duplicate id, size) does not fail the load: it is
 * kept with status FAB_SITE_BROKEN and its error, so the others still run.
 * *out owned by the caller; 0 or a negative errno with fab_errmsg() set.
 */
int fab_site_rules_load(const char *dir, struct fab_site_rules **out);
/* The same for one file's text (borrowed; len bytes), named path. Tests. */
int fab_site_rules_parse(const char *text, size_t len, const char *path,
			 struct fab_site_rules **out);
void fab_site_rules_free(struct fab_site_rules *rs); /* accepts NULL */

/* The directory read (borrowed), NULL when none was. */
const char *fab_site_rules_dir(const struct fab_site_rules *rs);
/* The rules in file name order (borrowed); *n_out their number. */
struct fab_site_rule *fab_site_rules_list(struct fab_site_rules *rs, size_t *n_out);
/* A valid rule by id, or NULL. */
const struct fab_site_rule *fab_site_rules_find(const struct fab_site_rules *rs,
						const char *id);

/*
 * Compiles every valid rule in the sandbox against an empty database of the
 * current schema: what `fabsweep rules` does to check a directory without
 * data. A rule that does not compile becomes FAB_SITE_BROKEN. Returns the
 * number of broken rules (0: all good), or a negative errno.
 */
int fab_site_rules_validate(struct fab_site_rules *rs);

/* Most rows taken from one rule; then one info finding says it was cut. */
#define FAB_SITE_ROWS_MAX 10000

struct fab_site_result {
	size_t n_ran, n_failed, n_broken, n_disabled;
	size_t by_severity[3]; /* kept findings per severity */
	size_t n_suppressed;
};

/*
 * Runs every valid, enabled rule of rs over scan snap->scan_id of the
 * database at db_path, in file order, appending their findings to snap
 * (after what is there: call fab_rules_run() first). A rule that is refused,
 * fails or runs too long records nothing, gets status FAB_SITE_FAILED and
 * its error, and the others still run. The findings relation the queries
 * see is what is stored for the scan: store the built-in findings first
 * (fab_store_replace_findings) so that site rules can build on them.
 *
 * cfg: NULL for the defaults; its [rules] and [suppress] apply by id.
 * baseline_id: bound to :baseline_id (0: NULL). now_ms: suppressions expire
 * against it; 0 = now. *out (may be NULL) is filled on success.
 * Returns 0 (also when rules failed: see their status), or a negative
 * errno when nothing could run (the database cannot be opened, ENOMEM).
 */
int fab_site_rules_run(struct fab_site_rules *rs, const struct fab_config *cfg,
		       const char *db_path, struct fab_snapshot *snap,
		       int64_t baseline_id, int64_t now_ms,
		       struct fab_site_result *out);
