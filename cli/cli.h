/* SPDX-License-Identifier: MIT */
/* The command line: a static command table and the helpers commands share. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fabsweep/roce.h" /* struct fab_cli_scan */
#include "fabsweep/scan.h"

/* Exit codes (documented in README.md and docs/cli.md). */
enum {
	FAB_EXIT_OK = 0,       /* success */
	FAB_EXIT_FINDINGS = 1, /* findings at or above --fail-on (check, ready) */
	FAB_EXIT_USAGE = 2,    /* bad command line */
	FAB_EXIT_RUNTIME = 3,  /* runtime failure; nothing written */
	FAB_EXIT_PARTIAL = 4,  /* scan committed but partial */
};

struct fab_cmd {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;
	const char *usage; /* options, one per line, shown by 'help CMD' */
};

/* The table, terminated by an entry with name NULL. */
extern const struct fab_cmd fab_commands[];

/* Options every command that reads or writes a database understands. */
struct fab_common_opts {
	const char *db;  /* --db PATH */
	int64_t scan_id; /* --scan ID: 0 latest, negative = that many back */
};

/* Default database path: $FABSWEEP_DB, /var/lib/fabsweep/fabsweep.db as
 * root, else ./fabsweep.db. Borrowed static string. */
const char *fab_cli_default_db(void);
/* Parses a --scan value ("latest", "7", "-1"); 0 on success. */
int fab_cli_parse_scan(const char *s, int64_t *out);
struct fab_store;
/* Resolves --baseline: a scan as --scan takes it (id, latest, -N), else a
 * baseline's name (fabsweep db baseline). 0 or a negative errno, message set. */
int fab_cli_resolve_baseline(struct fab_store *st, const char *ref, int64_t *out);
/* Parses an integer in [min,max]; 0 on success. */
int fab_cli_parse_int(const char *s, long min, long max, long *out);
/* Prints "fabsweep CMD: MSG" for a usage error and returns FAB_EXIT_USAGE. */
int fab_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "fabsweep: <last error>" and returns FAB_EXIT_RUNTIME. */
int fab_cli_fail(void);
/* Whether stdout / stderr is a terminal (colour, progress). */
int fab_cli_tty(FILE *f);

int fab_cmd_scan(int argc, char **argv);
int fab_cmd_scans(int argc, char **argv);
int fab_cmd_db(int argc, char **argv);
int fab_cmd_report(int argc, char **argv); /* cli/cmd_report.c */

/* rules: fabsweep check and fabsweep rules (cli/cmd_check.c, cmd_rules.c). */
struct fab_config;
int fab_cmd_check(int argc, char **argv);
int fab_cmd_rules(int argc, char **argv);
/* Loads --config FILE, else /etc/fabsweep/fabsweep.conf when it exists, else
 * the defaults. *out owned by the caller; fab_errmsg() set on failure. */
int fab_cli_load_config(const char *path, struct fab_config **out);
/* Site rules (docs/site-rules.md, cli/cmd_rules.c): loads --rules-dir DIR
 * (NULL: /etc/fabsweep/rules.d if present) and, with validate, compiles
 * them. Prints a line on stderr for each broken rule and each [rules] line
 * of cfg naming a site rule that is not there; *n_problems (may be NULL)
 * counts them. 0, or a negative errno (message set) when the directory
 * cannot be read. print_site_failures: the rules a run refused or failed. */
struct fab_site_rules;
int fab_cli_load_site_rules(const char *dir, const struct fab_config *cfg, int validate,
			    struct fab_site_rules **out, size_t *n_problems);
void fab_cli_print_site_failures(FILE *f, struct fab_site_rules *rs);

/* workflows: fabsweep diff and export (cli/cmd_diff.c, cmd_export.c); db
 * prune and db baseline are in cli/cmd_db.c. */
struct fab_diff;
struct fab_nodemap;
struct fab_snapshot;
int fab_cmd_diff(int argc, char **argv);
int fab_cmd_export(int argc, char **argv);
/* getopt takes "-1" for an option. Returns a copy of argv (free() it) in
 * which such negative scan ids, outside option arguments (with_arg: the
 * options that take one, NULL-terminated) and before "--", lose their '-';
 * fab_cli_positional() gives the word as written back. NULL on ENOMEM. */
char **fab_cli_hide_negative_ids(int argc, char **argv, const char *const *with_arg);
const char *fab_cli_positional(int argc, char **argv, const char *arg);
/* Parses a duration: one or more <number><unit> with units s, m, h, d, w
 * ("30d", "12h", "2w", "1d12h"); at most a century. 0 on success. */
int fab_cli_parse_duration(const char *s, int64_t *out_ms);
/* Renders a diff as text to f / as XML to path (atomically; valid against
 * docs/fabsweep-diff.xsd). Node names through names (may be NULL). */
int fab_cli_diff_text(FILE *f, const struct fab_diff *d,
		      const struct fab_snapshot *old_snap,
		      const struct fab_snapshot *new_snap,
		      const struct fab_nodemap *names);
int fab_cli_diff_xml(const char *path, const struct fab_diff *d,
		     const struct fab_snapshot *old_snap,
		     const struct fab_snapshot *new_snap,
		     const struct fab_nodemap *names);

/* RoCE: fabsweep collect and merge (cli/cmd_collect.c, cli/cmd_merge.c). */
int fab_cmd_collect(int argc, char **argv);
int fab_cmd_merge(int argc, char **argv);
/* Shared by scan, collect and merge: print a RoCE note on stderr (a
 * fab_roce_opts.note callback), the RoCE summary line, the missed items. */
void fab_cli_roce_note(const char *msg, void *ctx);
void fab_cli_roce_summary(FILE *f, const struct fab_snapshot *snap);
void fab_cli_print_errors(FILE *f, const struct fab_snapshot *snap);

/* Operations (issue 7): fabsweep sweep and ready (cli/cmd_sweep.c,
 * cli/cmd_ready.c). */
int fab_cmd_sweep(int argc, char **argv);
int fab_cmd_ready(int argc, char **argv);

/*
 * A scan as `fabsweep scan` makes and commits one, shared with sweep
 * (cli/cmd_scan.c): SIGINT/SIGTERM lose nothing before the commit and wait
 * for it once it started; progress on stderr when it is a terminal and not
 * quiet; the InfiniBand part (with forensic: the counters of every port,
 * not only active ones), then the RoCE part. On success *out is the
 * committed snapshot (owned by the caller). Returns 0, or a negative errno
 * with fab_errmsg() set: nothing was written, or (-EINTR) the scan was
 * committed and then interrupted.
 */
struct fab_store;
struct fab_cli_scan {
	struct fab_scan_opts so;
	struct fab_roce_opts ro;  /* lldp_sockets points at lldp_socks */
	const char *lldp_socks[64];
	const char *label;
	bool no_ib, forensic, quiet;
};
void fab_cli_scan_init(struct fab_cli_scan *a);
int fab_cli_scan_commit(struct fab_store *st, struct fab_cli_scan *a,
			struct fab_snapshot **out);

/*
 * The checking of `fabsweep check` once a snapshot is loaded, shared with
 * sweep (cli/cmd_check.c): the rules (with the expected topology when a
 * reference is given) and the site rules, the findings stored with the
 * scan, the summary on stdout unless quiet (subjects with mapped names).
 * *exit_out: FAB_EXIT_OK or FAB_EXIT_FINDINGS (a finding at or above
 * fail_on; 100 never). Returns 0 or a negative errno with fab_errmsg() set.
 */
struct fab_site_rules;
struct fab_cli_check {
	const struct fab_config *cfg;
	struct fab_site_rules *site; /* may be NULL */
	const char *db;
	const struct fab_snapshot *base;      /* counter baseline or NULL */
	const struct fab_snapshot *reference; /* expected topology or NULL */
	const struct fab_nodemap *names;      /* may be NULL */
	int fail_on;
	size_t limit;
	bool quiet;
};
int fab_cli_check_snapshot(struct fab_store *st, struct fab_snapshot *snap,
			   const struct fab_cli_check *a, int *exit_out);
/* --expect FILE|SCAN: an ibnetdiscover topology file when ref names a file
 * (imported, indexed), else a scan of st (an id, latest, -N, a baseline
 * name). *out owned by the caller. */
int fab_cli_load_reference(struct fab_store *st, const char *ref, struct fab_snapshot **out);

/* Operations (issue 7): fabsweep sweep and ready (cli/cmd_sweep.c,
 * cli/cmd_ready.c). */
int fab_cmd_sweep(int argc, char **argv);
int fab_cmd_ready(int argc, char **argv);
