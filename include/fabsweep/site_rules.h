/* SPDX-License-Identifier: MIT */
/*
 * Site rules: checks an operator writes as one SQL SELECT over the public
 * SQL interface (docs/schema.md), one file per rule in a rules directory,
 * without writing C. docs/site-rules.md describes the file format, what a
 * query may use and the limits it runs under.
 *
 * This header is rules/'s part (rules/site_load.c, site_run.c): the rule
 * files (directory, strict header), and running them over a stored scan so
 * that their rows become ordinary findings (severity overrides, disabling
 * and suppressions of the config apply). They run in store/'s sandbox
 * (fabsweep/store_site.h), reached through the store's handle.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/store_site.h" /* the sandbox's limits */

struct fab_config;
struct fab_snapshot;
struct fab_store;

#define FAB_SITE_RULES_DIR "/etc/fabsweep/rules.d"
/* Every site rule id starts with this: a site rule never shadows a built-in. */
#define FAB_SITE_ID_PREFIX "site."
#define FAB_SITE_ID_MAX 64
/* Largest rule file (its query is at most that long), and most rule files
 * read from a directory. */
#define FAB_SITE_FILE_MAX FAB_SITE_SQL_MAX
#define FAB_SITE_FILES_MAX 256

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
 * database st has open (in the sandbox, fab_store_site_open), in file order, appending their findings to snap
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
		       struct fab_store *st, struct fab_snapshot *snap,
		       int64_t baseline_id, int64_t now_ms,
		       struct fab_site_result *out);
