/* SPDX-License-Identifier: MIT */
/*
 * The command line (private to the fabsweep executable): the command table,
 * the exit codes and the helpers commands share to parse and to print. The
 * work is in the library (include/fabsweep/pipeline.h); docs/architecture.md,
 * "Adding a command".
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct fab_config;
struct fab_nodemap;
struct fab_pipeline_checked;
struct fab_snapshot;

/* Exit codes (documented in README.md and by 'fabsweep help'). */
enum {
	FAB_EXIT_OK = 0,       /* success */
	FAB_EXIT_FINDINGS = 1, /* findings at or above --fail-on (check, sweep); not ready (ready) */
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

/* The table (cli/main.c), terminated by an entry with name NULL. */
extern const struct fab_cmd fab_commands[];

int fab_cmd_scan(int argc, char **argv);
int fab_cmd_scans(int argc, char **argv);
int fab_cmd_db(int argc, char **argv);
int fab_cmd_diff(int argc, char **argv);
int fab_cmd_route(int argc, char **argv);
int fab_cmd_export(int argc, char **argv);
int fab_cmd_import(int argc, char **argv);
int fab_cmd_check(int argc, char **argv);
int fab_cmd_rules(int argc, char **argv);
int fab_cmd_report(int argc, char **argv);
int fab_cmd_collect(int argc, char **argv);
int fab_cmd_merge(int argc, char **argv);
int fab_cmd_sweep(int argc, char **argv);
int fab_cmd_watch(int argc, char **argv);
int fab_cmd_ready(int argc, char **argv);
/* ready --local (cli/cmd_ready_local.c), called by fab_cmd_ready */
int fab_cmd_ready_local(int argc, char **argv);
int fab_cmd_physical(int argc, char **argv);

/* ---- parsing (cli/common.c) ---------------------------------------------- */

/* Default database path: $FABSWEEP_DB, FAB_CLI_ROOT_DB as root, else
 * ./fabsweep.db. Borrowed static string. */
#define FAB_CLI_ROOT_DB "/var/lib/fabsweep/fabsweep.db"
const char *fab_cli_default_db(void);
/* Whether db is the built-in default for root, whose directory a writing
 * command creates (fab_pipeline_make_db_dir). */
bool fab_cli_is_root_db(const char *db);
/* Parses an integer in [min,max]; 0 on success. */
int fab_cli_parse_int(const char *s, long min, long max, long *out);
/* The MAD options of the commands that send MADs, one wording for all:
 * --port, --timeout, --retries, --window. Sets *out and returns -1, or
 * prints a usage error naming cmd and returns FAB_EXIT_USAGE. */
enum fab_cli_mad_opt { FAB_CLI_PORT, FAB_CLI_TIMEOUT, FAB_CLI_RETRIES, FAB_CLI_WINDOW };
int fab_cli_mad_opt(const char *cmd, enum fab_cli_mad_opt which, const char *arg, int *out);
/* The options of the commands that read this machine's RoCE view (collect,
 * ready --local), one wording for all: FAB_CLI_ROCE_OPTIONS in their
 * getopt table; fab_cli_roce_opt() takes option c when it is one of them
 * (an --lldp-socket is appended to socks, room for argc) and returns -1,
 * 0 when c is none of them, or prints a usage error naming cmd and returns
 * FAB_EXIT_USAGE; fab_cli_roce_check() then checks that the directories
 * given can be read (-1, or FAB_EXIT_USAGE after the message). */
enum {
	FAB_CLI_O_LLDP = 1000, FAB_CLI_O_SYSFS, FAB_CLI_O_NODCB, FAB_CLI_O_DCBDIR, FAB_CLI_O_RTIMEOUT,
	FAB_CLI_O_ETHDIR, FAB_CLI_O_NOETH
};
#define FAB_CLI_ROCE_OPTIONS \
	{ "lldp-socket", required_argument, NULL, FAB_CLI_O_LLDP }, \
	{ "sysfs-root", required_argument, NULL, FAB_CLI_O_SYSFS }, \
	{ "no-dcb", no_argument, NULL, FAB_CLI_O_NODCB }, \
	{ "dcb-dir", required_argument, NULL, FAB_CLI_O_DCBDIR }, \
	{ "timeout", required_argument, NULL, FAB_CLI_O_RTIMEOUT }, \
	{ "ethtool-dir", required_argument, NULL, FAB_CLI_O_ETHDIR }, \
	{ "no-ethtool", no_argument, NULL, FAB_CLI_O_NOETH }
struct fab_roce_opts;
int fab_cli_roce_opt(const char *cmd, int c, const char *arg, struct fab_roce_opts *ro,
		     const char **socks);
int fab_cli_roce_check(const char *cmd, const struct fab_roce_opts *ro);
/* getopt takes "-1" for an option. Returns a copy of argv (free() it) in
 * which such negative scan ids, outside option arguments (with_arg: the
 * options that take one, NULL-terminated) and before "--", lose their '-';
 * fab_cli_positional() gives the word as written back. NULL on ENOMEM. */
char **fab_cli_hide_negative_ids(int argc, char **argv, const char *const *with_arg);
const char *fab_cli_positional(int argc, char **argv, const char *arg);

/* ---- printing (cli/common.c) --------------------------------------------- */

/* Prints "fabsweep CMD: MSG" for a usage error and returns FAB_EXIT_USAGE. */
int fab_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "fabsweep: <last error>" and returns FAB_EXIT_RUNTIME. */
int fab_cli_fail(void);
/* Whether stdout / stderr is a terminal (colour, progress). */
int fab_cli_tty(FILE *f);
/* fab_note_fn callbacks: "fabsweep: note: MSG" and "fabsweep: MSG" on stderr. */
void fab_cli_note(const char *msg, void *ctx);
void fab_cli_problem(const char *msg, void *ctx);
/* A scan's progress on stderr (a fab_scan_opts.progress callback). */
void fab_cli_progress(const char *phase, unsigned long done, unsigned long total, void *ctx);
/* "fabsweep: warning: M_Key file ..." when an M_Key file is readable by others. */
void fab_cli_mkey_warning(const char *file);
/* The RoCE summary line; the items a scan missed (at most 20). */
void fab_cli_roce_summary(FILE *f, const struct fab_snapshot *snap);
void fab_cli_print_errors(FILE *f, const struct fab_snapshot *snap);
/* "fabsweep: scan N committed as partial: ..." on stderr. */
void fab_cli_partial(const struct fab_snapshot *snap);

/* ---- what `fabsweep watch` prints (cli/print_watch.c) --------------------- */
struct fab_watch_event;
/* The job's event callback; ctx: a bool, quiet (only failures printed). */
void fab_cli_watch_event(const struct fab_watch_event *e, void *ctx);

/* ---- the summary of a check (cli/print_check.c), check and sweep ---------- */

struct fab_cli_check_summary {
	const struct fab_snapshot *snap;      /* checked, with its findings */
	const struct fab_pipeline_checked *checked;
	const struct fab_config *cfg;
	const struct fab_snapshot *base;      /* NULL: none */
	const struct fab_snapshot *reference; /* NULL: none */
	const struct fab_nodemap *names;      /* NULL: none */
	size_t limit;                         /* findings listed (nodes with summary); 0 all */
	bool summary;                         /* by rule and by node, not each finding */
};
void fab_cli_print_check(const struct fab_cli_check_summary *s);

/* ---- what `fabsweep route` prints (cli/print_route.c) -------------------- */

struct fab_pipeline_route_result;
/* The path, hop by hop, and how it ends. */
void fab_cli_print_route(const struct fab_pipeline_route_result *r);
/* --all-pairs: the hosts missing, the pairs that break (sorted by source in
 * place), the counts. */
void fab_cli_print_route_pairs(struct fab_pipeline_route_result *r);
/* --mcast: the group's tree, its members and what the tables do wrong
 * (cli/print_mcast.c); returns whether every receiving member is reached
 * and there is no loop. */
struct fab_pipeline_route_mcast_result;
bool fab_cli_print_route_mcast(const struct fab_pipeline_route_mcast_result *r);

/* ---- what `fabsweep rules` prints (cli/print_rules.c) -------------------- */

struct fab_rule;
struct fab_site_rule;
struct fab_site_rules;

/* The built-in rules: id, severity (starred when cfg sets it), category, title. */
void fab_cli_list_rules(const struct fab_config *cfg);
/* The site rules of rs, or why there are none. */
void fab_cli_list_site_rules(const struct fab_config *cfg, struct fab_site_rules *rs);
/* One rule explained: rationale, parameters and their values, remediation. */
void fab_cli_show_rule(const struct fab_config *cfg, const struct fab_rule *r);
void fab_cli_show_site_rule(const struct fab_config *cfg, const struct fab_site_rule *r);
/* A site rule by id, broken ones too (shown with their error), or NULL. */
const struct fab_site_rule *fab_cli_site_rule_named(struct fab_site_rules *rs, const char *id);

/* ---- fabsweep db (cli/cmd_db.c, cmd_db_baseline.c) ----------------------- */

struct fab_cli_db_args {
	const char *db;
	long keep;
	int64_t older_ms;
	const char *name;
	bool dry_run, no_vacuum, json;
	bool has_keep, has_older, has_name;
	int npos;
	const char **pos; /* positional words after "db", as written */
};
/* db baseline set|list|clear; an exit code. */
int fab_cli_db_baseline(const struct fab_cli_db_args *a);

/* cli/print_ready.c: ready's pairs of hosts (failing ones, the partition,
 * hosts without tables, or why pairs were not checked). */
struct fab_pipeline_ready_result;
void fab_cli_print_ready_pairs(const struct fab_pipeline_ready_result *res);
/* The exit code of a readiness verdict: 0 ready, 1 not ready, 3 could not check. */
struct fab_ready;
int fab_cli_ready_exit(const struct fab_ready *r);
