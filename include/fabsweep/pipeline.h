/* SPDX-License-Identifier: MIT */
/*
 * Pipelines: what each fabsweep command does, as library calls. A pipeline
 * strings the modules together (scanner -> store -> rules -> reports) for
 * one task: scan and commit, check, sweep, ready, collect, merge, diff,
 * report, export. The command line (cli/) only parses options into a
 * pipeline's job, calls it, prints what it returns and maps that to an exit
 * code; tests drive these functions directly.
 *
 * A pipeline never prints. What the user should hear while it runs (a note,
 * a site rule that failed, a sweep step done) goes through a callback of
 * the job; what it found comes back in a result. Errors are a negative
 * errno with fab_errmsg() set (one line), as everywhere in the library.
 *
 * Files: pipeline/common.c (configuration, site rules, scan references),
 * scan.c, check.c, sweep.c, watch.c, ready.c, collect.c, merge.c, diff.c,
 * report.c, import.c. pipeline/README.md says how to add one.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fabsweep/config.h"     /* FAB_SWEEP__COUNT */
#include "fabsweep/names.h"      /* FAB_SEV__COUNT */
#include "fabsweep/probe.h"      /* struct fab_probe_opts, fab_probe_stats */
#include "fabsweep/report.h"     /* struct fab_report_opts */
#include "fabsweep/roce_collect.h" /* struct fab_roce_opts */
#include "fabsweep/routing.h"    /* struct fab_route_path */
#include "fabsweep/rules.h"      /* struct fab_rules_result */
#include "fabsweep/scan.h"       /* struct fab_scan_opts */
#include "fabsweep/site_rules.h" /* struct fab_site_result */
#include "fabsweep/store_prune.h" /* struct fab_prune_result */

struct fab_hostlist;
struct fab_nodemap;
struct fab_site_rules;
struct fab_snapshot;
struct fab_store;

/* A message for the user that is not an error ("note: ..."), or a problem
 * that does not stop the pipeline (a broken site rule). msg is one line
 * without a newline, valid during the call. */
typedef void (*fab_note_fn)(const char *msg, void *ctx);

/* ---- shared steps (pipeline/common.c) ---------------------------------- */

/* Parses a scan id as the command line takes it: "latest" (0), a positive
 * id, or -N (N before the latest). 0 on success, else -EINVAL (no message). */
int fab_pipeline_parse_scan(const char *s, int64_t *out);

/* Loads the configuration: path, else FAB_CONFIG_DEFAULT_PATH when it
 * exists, else the defaults. *out owned by the caller. */
int fab_pipeline_load_config(const char *path, struct fab_config **out);

/*
 * Loads the site rules of dir (NULL: FAB_SITE_RULES_DIR if present) and,
 * with validate, compiles them in the sandbox. Each broken rule, and each
 * [rules] line of cfg that names a site rule no file defines, is a problem:
 * note gets its message (note may be NULL) and *n_problems (may be NULL)
 * counts them. 0, or a negative errno when the directory cannot be read.
 */
int fab_pipeline_load_site_rules(const char *dir, const struct fab_config *cfg,
				 bool validate, fab_note_fn note, void *note_ctx,
				 struct fab_site_rules **out, size_t *n_problems);

/*
 * An expected topology (--expect): an ibnetdiscover topology file when ref
 * names one (imported and indexed), else a scan of st (a reference as
 * fab_store_baseline_resolve() takes it: an id, latest, -N or a baseline
 * name; st may be NULL: files only). *out owned by the caller.
 */
int fab_pipeline_load_reference(struct fab_store *st, const char *ref,
				struct fab_snapshot **out);

/*
 * The trends of [from_ms, to_ms] (include/fabsweep/trend.h) out of st, for
 * the HTML report of snap (borrowed; its findings name ports to chart):
 * every port's readings in the period (one store query: the errors-per-
 * minute timeline and each port's error rate), then the charted ports'
 * (one query: their series). with_findings: also the findings raised in the
 * period (report --since). *out is initialised here; free it with
 * fab_trend_free in any case. pipeline/trend.c.
 */
struct fab_trend;
int fab_pipeline_trend(struct fab_store *st, const struct fab_snapshot *snap, int64_t from_ms,
		       int64_t to_ms, bool with_findings, size_t n_top, struct fab_trend *out);
/* The same for a scan's own report: the day up to the end of snap, the
 * FAB_TREND_TOP ports with the highest error rates (report, sweep). */
int fab_pipeline_trend_day(struct fab_store *st, const struct fab_snapshot *snap,
			   struct fab_trend *out);

/* Writes snap as the one scan of a new database file at path (collect's
 * files, readiness extracts): under a temporary name, then renamed, with
 * SIGINT and SIGTERM held meanwhile; a reader never sees half a file, and
 * nothing is left behind on failure. 0 or a negative errno, message set. */
int fab_pipeline_write_file(const char *path, struct fab_snapshot *snap);

/*
 * Many such files at once (`merge --ready-dir`): each written from an empty
 * database's image (no schema to create) under a temporary name without a
 * sync; commit syncs their file system once, then renames them all (the
 * files of one batch are in one directory). What is not committed is
 * removed by free. 0 or a negative errno, message set.
 */
struct fab_pipeline_files;
int fab_pipeline_files_new(struct fab_pipeline_files **out);
int fab_pipeline_files_add(struct fab_pipeline_files *b, const char *path, struct fab_snapshot *snap);
int fab_pipeline_files_commit(struct fab_pipeline_files *b);
void fab_pipeline_files_free(struct fab_pipeline_files *b); /* accepts NULL */

/* The database's directory is created (one level, mode 0750) when missing:
 * for the built-in default path, which nothing else creates. */
void fab_pipeline_make_db_dir(const char *db);

/* ---- scan and commit (pipeline/scan.c) -------------------------------- */

struct fab_pipeline_scan {
	const char *db;       /* the database to commit into (fab_pipeline_scan) */
	bool make_db_dir;     /* create db's directory first (the default path) */
	struct fab_scan_opts so;  /* the InfiniBand part; so.progress as the caller likes */
	struct fab_roce_opts ro;  /* the RoCE part; ro.note also gets the pipeline's notes */
	const char *lldp_socks[64]; /* ro.lldp_sockets points here */
	const char *label;    /* NULL: none */
	bool no_ib;           /* skip InfiniBand */
	bool forensic;        /* counters of every port, not only active ones */
	/* Exit status of the process when SIGINT or SIGTERM arrives before the
	 * commit started (nothing was written). Default 3. */
	int signal_exit;
};

void fab_pipeline_scan_init(struct fab_pipeline_scan *job);

/*
 * Makes a snapshot as `fabsweep scan` does and commits it into st: the
 * InfiniBand part (skipped with a note when the machine has no InfiniBand
 * device and none was asked for), with forensic the counters of every port,
 * then the RoCE part (lldpd sockets, sysfs) when asked for or when there is
 * no InfiniBand. SIGINT and SIGTERM end the process at once (job->signal_exit,
 * a line on stderr) until the commit starts, then wait for it; the previous
 * handlers are back on return. FABSWEEP_MKEY applies when so.mkeys is NULL.
 * On success *out is the committed snapshot (owned by the caller). Returns
 * 0, or a negative errno: nothing was written, or (-EINTR) the scan was
 * committed and then interrupted.
 */
int fab_pipeline_scan_commit(struct fab_store *st, const struct fab_pipeline_scan *job,
			     struct fab_snapshot **out);

/* The same into job->db, opened first (a bad database fails before any MAD
 * is sent) and closed after. */
int fab_pipeline_scan(const struct fab_pipeline_scan *job, struct fab_snapshot **out);

/* ---- check (pipeline/check.c) ----------------------------------------- */

/* What the rules are run with, once the snapshot is loaded. Borrowed. */
struct fab_pipeline_check_with {
	const struct fab_config *cfg;
	struct fab_site_rules *site;          /* may be NULL */
	const struct fab_snapshot *base;      /* counter baseline or NULL */
	const struct fab_snapshot *reference; /* expected topology or NULL */
	unsigned fail_on;   /* enum fab_severity, or FAB_FAIL_NEVER */
	fab_note_fn note;   /* site rules that failed (may be NULL) */
	void *note_ctx;
};

/* What a check found, for the summary. */
struct fab_pipeline_checked {
	struct fab_rules_result rules; /* by_severity and n_suppressed include the site rules */
	struct fab_site_result site;
	bool failed;                   /* a finding at or above fail_on */
};

/*
 * Runs the rules over snap (with the expected topology when a reference is
 * given), stores the findings with the scan (replacing earlier ones), then
 * runs the site rules, which see those findings, and stores theirs too.
 * A site rule that fails records nothing and is told through note.
 */
int fab_pipeline_check_snapshot(struct fab_store *st, struct fab_snapshot *snap,
				const struct fab_pipeline_check_with *with,
				struct fab_pipeline_checked *out);

struct fab_pipeline_check {
	const char *db;
	int64_t scan_id;           /* 0 latest, -N */
	const char *config;        /* NULL: the default */
	const char *rules_dir;     /* NULL: the default */
	const char *baseline;      /* counter baseline (fab_store_baseline_resolve), or NULL */
	const char *expect;        /* expected topology: a file or a reference, or NULL */
	const char *node_name_map; /* NULL: the default map if present; "": none */
	unsigned fail_on;          /* enum fab_severity, or FAB_FAIL_NEVER */
	fab_note_fn note;          /* site rule problems (may be NULL) */
	void *note_ctx;
};

/* Everything a check loaded and found (owned; fab_pipeline_check_free). */
struct fab_pipeline_check_result {
	struct fab_config *cfg;
	struct fab_site_rules *site;
	struct fab_snapshot *snap;      /* the scan checked, with its findings */
	struct fab_snapshot *base;      /* NULL without a baseline */
	struct fab_snapshot *reference; /* NULL without --expect */
	struct fab_nodemap *names;      /* NULL without a map */
	struct fab_pipeline_checked checked;
};

/*
 * `fabsweep check`: loads the configuration and site rules, the scan, the
 * baseline (which must be older than the scan) and the expected topology,
 * then checks (fab_pipeline_check_snapshot). The database must exist.
 */
int fab_pipeline_check(const struct fab_pipeline_check *job,
		       struct fab_pipeline_check_result **out);
void fab_pipeline_check_free(struct fab_pipeline_check_result *r); /* accepts NULL */

/* ---- sweep (pipeline/sweep.c) ----------------------------------------- */

enum fab_sweep_step {
	FAB_SWEEP_SCANNED,     /* scan: the committed snapshot */
	FAB_SWEEP_CHECKED,     /* check: the checked snapshot and what was found */
	FAB_SWEEP_REPORTED,    /* reports written: path (HTML) and stem */
	FAB_SWEEP_EXPORTED,    /* the Prometheus file written: path */
	FAB_SWEEP_PRUNED,      /* retention: pruned (vacuum_error: space not reclaimed) */
	FAB_SWEEP_REPORTS_REMOVED, /* report files of pruned scans: reports_removed */
	FAB_SWEEP_FAILED,      /* a step failed (what; fab_errmsg() says why); the next steps run */
};

/* One step of a sweep done. Everything borrowed, valid during the call. */
struct fab_sweep_event {
	enum fab_sweep_step step;
	const struct fab_snapshot *snap;   /* SCANNED, CHECKED */
	const struct fab_pipeline_checked *checked; /* CHECKED */
	const struct fab_snapshot *base;   /* CHECKED: the counter baseline or NULL */
	const struct fab_snapshot *reference; /* CHECKED: expected topology or NULL */
	const struct fab_nodemap *names;   /* CHECKED */
	const struct fab_config *cfg;      /* CHECKED */
	const char *path, *stem;           /* REPORTED, EXPORTED */
	const struct fab_prune_result *pruned; /* PRUNED */
	size_t reports_removed;            /* REPORTS_REMOVED */
	const char *what;                  /* FAILED: "check", "the reports", ... */
};

struct fab_pipeline_sweep {
	const char *db, *config, *rules_dir;
	bool make_db_dir;
	/* Settings from the command line; NULL: the config's [sweep], then
	 * the default. Values as the config file writes them. */
	const char *v[FAB_SWEEP__COUNT];
	struct fab_pipeline_scan scan; /* db, make_db_dir and label are the sweep's */
	void (*event)(const struct fab_sweep_event *e, void *ctx); /* may be NULL */
	void *event_ctx;
	fab_note_fn note;              /* site rule problems (may be NULL) */
	void *note_ctx;
};

struct fab_pipeline_sweep_result {
	int64_t scan_id;
	uint8_t scan_status;   /* enum fab_scan_status */
	bool failed_step;      /* a step after the scan failed */
	bool findings;         /* a finding at or above fail_on */
};

/*
 * `fabsweep sweep`: everything that can be wrong with the setup fails first
 * (a negative errno, nothing sent); then one scan (as fab_pipeline_scan),
 * checked (counters compared with the previous sweep by default), rendered
 * into the report directory (fabsweep-<time>-scan<ID>.html/.xml, and
 * latest.html/.xml linked to them), exported for Prometheus, and old scans
 * pruned with their report files. A failing step after the scan is an
 * event and result->failed_step; the steps after it still run. Returns 0
 * once the scan is committed; a negative errno when the setup or the scan
 * failed.
 */
int fab_pipeline_sweep(const struct fab_pipeline_sweep *job,
		       struct fab_pipeline_sweep_result *out);

/* "fabsweep-20261201T025355Z-scan42": the stem of a sweep's report files. */
void fab_pipeline_report_stem(const struct fab_snapshot *snap, char *buf, size_t len);

/* ---- watch (pipeline/watch.c) ----------------------------------------- */

struct fab_watch_result;

enum fab_watch_step {
	FAB_WATCH_SCANNED,  /* a full scan committed: snap */
	FAB_WATCH_SWEPT,    /* a counter sweep committed: snap (the sweep), res */
	FAB_WATCH_TOPOLOGY, /* a sweep saw the topology change (res->why): a full scan follows */
	FAB_WATCH_ROLLED,   /* old sweeps rolled up (retention): rollup */
	FAB_WATCH_EXPORT_FAILED, /* the Prometheus file was not written: fab_errmsg() */
	FAB_WATCH_REACTED,  /* notices or a trap's port reads committed as a sweep: snap, res */
	FAB_WATCH_NOTE,     /* the subscription or Alertmanager changed state: note */
};

struct fab_rollup_result;

/* One step of a watch. Everything borrowed, valid during the call. */
struct fab_watch_event {
	enum fab_watch_step step;
	const struct fab_snapshot *snap;
	const struct fab_watch_result *res; /* SWEPT, TOPOLOGY, REACTED */
	const struct fab_snapshot *topo;    /* SWEPT, REACTED: the topology res's ports index */
	unsigned long sweep;                /* SWEPT: sweeps so far, this one included */
	const struct fab_rollup_result *rollup; /* ROLLED */
	const char *note;                   /* NOTE: one line */
	bool warn;                          /* NOTE: something does not work (else news) */
};

struct fab_pipeline_watch {
	const char *db;
	const char *config;            /* the rules' config and its [watch]; NULL: the default */
	bool make_db_dir;
	struct fab_pipeline_scan scan; /* the full scans (their db and make_db_dir are the watch's) */
	struct fab_probe_opts probe;   /* the sweeps' MADs; ca, port and M_Keys from scan.so */
	/* 0: the config's [watch] value, else the default */
	int64_t interval_ms;           /* from the start of one sweep to the next (10 s);
					* -1: back to back, no pause */
	int64_t rescan_ms;             /* a full scan at least this often (1 h): links
					* that came up, which counters do not show */
	int64_t hold_ms;               /* a counter finding stays this long after it was
					* last raised (10 min) */
	unsigned long max_sweeps;      /* stop after that many sweeps; 0: when stopped */
	unsigned verify_every;         /* fab_watch_set_verify_every(); 0: its default */
	int64_t keep_raw_ms;           /* sweeps kept raw this long, then rolled up
					* (fab_store_rollup); 0: [watch] keep_raw, else 1 day */
	const char *prometheus;        /* textfile rewritten after each full scan and
					* complete sweep; NULL: [watch] prometheus, else none */
	/* Link events (docs/watch.md): 0 the config's [watch] value, else the default */
	int64_t link_probe_ms;         /* every switch-to-switch link read this often (30 s);
					* -1: no probe */
	double link_probe_share;       /* its reads a sweep at most this share of the
					* sweep's MADs (0.10; fab_watch_set_link_probe_share) */
	int events;                    /* subscribe to the SM's traps: 1 yes, -1 no,
					* 0 [watch] events, else yes */
	const char *alertmanager;      /* Alertmanager's URL (http://host:9093); NULL:
					* [watch] alertmanager, else none */
	void (*event)(const struct fab_watch_event *e, void *ctx); /* may be NULL */
	void *event_ctx;
};

void fab_pipeline_watch_init(struct fab_pipeline_watch *job);

struct fab_pipeline_watch_result {
	unsigned long sweeps, full_scans;
	unsigned long reactions;  /* sweeps made at once for notices (not in sweeps) */
	int64_t last_scan_id;  /* the last scan or sweep committed */
	bool stopped;          /* by SIGINT or SIGTERM */
};

/*
 * `fabsweep watch` (docs/watch.md): a full scan (as fab_pipeline_scan),
 * then counter sweeps of its topology (fab_watch_sweep) every interval,
 * each judged by the counter rules over its changed ports
 * (fab_rules_run_counters) with the findings held for the hold time
 * (fab_rules_hold_apply) and committed as a sweep (fab_store_write_sweep)
 * that stores what changed; a sweep that sees the topology change is
 * dropped and a full scan follows. SIGINT and SIGTERM end it after the sweep in progress is
 * committed (during a full scan: at once, with job->scan.signal_exit, as
 * a scan does). Returns 0 when max_sweeps were made or a signal stopped
 * it; a negative errno when a scan, a sweep's MADs or the store failed.
 */
int fab_pipeline_watch(const struct fab_pipeline_watch *job,
		       struct fab_pipeline_watch_result *out);

/* ---- ready (pipeline/ready.c) ----------------------------------------- */

struct fab_pipeline_ready {
	const char *db;
	int64_t scan_id;           /* the sweep to compare with: 0 latest */
	const struct fab_hostlist *hosts; /* borrowed; not empty */
	const char *node_name_map; /* NULL: the default map if present; "": none */
	struct fab_probe_opts probe; /* local port, timeouts, M_Keys */
	unsigned fail_on;          /* enum fab_severity, or FAB_FAIL_NEVER */
	const char *config;        /* the rules' config: the counter increases a link may
				    * show since the sweep ([increase], [port.link_flapping]);
				    * NULL: the default file if present */
	unsigned pkey;             /* --pkey: the partition every pair must share (15
				    * bits; the membership bit is ignored); 0: any in
				    * which one of the two is a full member */
};

/* Owned; fab_pipeline_ready_free. */
struct fab_pipeline_ready_result {
	struct fab_ready_hosts *hosts;
	struct fab_snapshot *view;  /* the part of the sweep around the hosts */
	struct fab_ready *r;        /* plan, answers, verdicts, problems */
	struct fab_probe_stats ps;  /* valid when r->n_ports */
	/* pairs of hosts: a shared partition (include/fabsweep/probe.h); the
	 * failing pairs' verdicts, their hosts NOT_READY in r->verdict */
	struct fab_ready_pairs pairs;
	/* the switch-to-switch links of the routes between the hosts, each
	 * with its verdict; pairs whose route crosses a bad one are in pairs */
	struct fab_ready_hops hops;
	double open_ms, load_ms, total_ms; /* opening the database, loading, all */
	double load_cpu_ms, cpu_ms;         /* CPU time: loading (this thread's), all (the process's) */
	unsigned load_rounds;       /* reads of the sweep: the hosts', then along the routes */
	/* private */
	struct fab_nodemap *map;
	const char **names;
};

/*
 * `fabsweep ready`: matches the hosts to channel adapters of the sweep,
 * probes live their ports and the switch ports they attach to, and both
 * ends of every switch-to-switch link the sweep's forwarding tables route
 * their traffic over (the local MAD port opens while the sweep loads), and
 * judges them with the sweep's findings at or above fail_on; every pair of
 * hosts must share a partition (job->pkey) and have a route whose hops are
 * healthy. fab_ready_overall(result->r) is the answer.
 */
int fab_pipeline_ready(const struct fab_pipeline_ready *job,
		       struct fab_pipeline_ready_result **out);
void fab_pipeline_ready_free(struct fab_pipeline_ready_result *r); /* accepts NULL */

/*
 * The view `ready` judges: the hosts' part of scan scan_id (0: the latest)
 * grown along the routes between them. First the CAs of the hosts, the
 * ports cabled to them and the switches there whole with their tables;
 * then each round the switches the routes reach without their table
 * (fab_ready_hops_missing), whole, until none is missing; then once more
 * with the findings, the P_Key tables and the counter samples of the ports
 * to probe (fab_store_load_paths_view). A path of h switches costs about
 * h + 1 small reads, never the whole scan; the routes walked per
 * destination. *reads counts the reads (added to). map may be NULL. 0 or a
 * negative errno with fab_errmsg() set.
 */
int fab_pipeline_ready_view(struct fab_store *st, int64_t scan_id,
			    const struct fab_ready_hosts *hosts, const struct fab_nodemap *map,
			    struct fab_snapshot **view, unsigned *reads);

/* ---- ready on a RoCE host (pipeline/ready_local.c, ready_roce.c) -------- */

/*
 * `fabsweep ready --local`: a RoCE host judges itself against the last
 * merge of the fabric (docs/roce.md, "Readiness"). It reads its own view
 * as collect does (job->ro) without writing it anywhere, puts it in place
 * of its system in the reference (the fabric's merged snapshot, or this
 * host's extract of it: `merge --ready-dir`), and asks the rules `check`
 * runs about it, with the majorities of the whole fabric; then its own
 * questions: the RDMA ports it should have, the cabling its LLDP shows,
 * the counters since the merge, what could not be read.
 */
struct fab_pipeline_ready_local {
	const char *db;          /* the fabric's database, or this host's extract */
	int64_t scan_id;         /* the merge to compare with: 0 the latest */
	const char *config;      /* the rules' configuration and [ready]; NULL: the default file if present */
	const char *system;      /* this host's name in the merge; NULL: as collect names it */
	struct fab_roce_opts ro; /* how to read this host (its notes are gathered, ro.note is not called;
				  * ethtool reads the RoCE interfaces' statistics, and their modules
				  * only with `modules`) */
	unsigned fail_on;        /* the rules' findings at or above it make the host not ready
				  * (enum fab_severity, FAB_FAIL_NEVER: none) */
	bool modules;            /* read the modules now (slow: I2C); else the merge's are judged */
};

/* Owned; fab_pipeline_ready_local_free. */
struct fab_pipeline_ready_local_result {
	struct fab_ready *r;            /* one host: its verdict and problems, as `ready`'s */
	struct fab_ready_hosts *hosts;  /* its name */
	const char *name;               /* this host's name in the merge (in judged) */
	struct fab_snapshot *ref;       /* the merge (or the extract) compared with */
	struct fab_snapshot *live;      /* what was read here */
	struct fab_snapshot *judged;    /* the merge with this host as read now, and the rules' findings */
	struct fab_ready_roce_port *ports;
	size_t n_ports;
	struct fab_ready_roce_link *links;
	size_t n_links;
	struct fab_ready_roce_finding *findings;
	size_t n_findings;
	char **notes;                   /* what could not be read or checked: said, no failure */
	size_t n_notes;
	double collect_ms, load_ms, judge_ms, total_ms, cpu_ms;
};

int fab_pipeline_ready_local(const struct fab_pipeline_ready_local *job,
			     struct fab_pipeline_ready_local_result **out);
void fab_pipeline_ready_local_free(struct fab_pipeline_ready_local_result *r); /* accepts NULL */

/*
 * The judgement of ready --local, without I/O (pipeline/ready_roce.c): ref
 * (the merge, with its RoCE part) and live (this host's view, collected)
 * borrowed, and kept by *out (set in res->ref / res->live: taken, freed
 * with it); cfg borrowed (NULL: the defaults); notes[0..n_notes) what the
 * collection said (copied). name: this host's name in ref (NULL: live's
 * local system's). *out owned by the caller. 0 or a negative errno with
 * fab_errmsg() set.
 */
struct fab_ready_roce_in {
	struct fab_snapshot *ref, *live; /* taken */
	const struct fab_config *cfg;
	const char *name;
	unsigned fail_on;
	const char *const *notes;
	size_t n_notes;
};
int fab_ready_roce_judge(struct fab_ready_roce_in *in, struct fab_pipeline_ready_local_result **out);

/*
 * Per-host extracts of a merged fabric (`merge --ready-dir`,
 * pipeline/ready_extract.c): for every collected host of merged (its RoCE
 * part resolved), dir/<name>.db holds one scan with the host and the
 * systems at the other end of its links, whole, and the majority votes of
 * the rest of the fabric (fab_roce.outside): what `ready --local` on that
 * host needs of the merge, 100-150 KB. The files are written under
 * temporary names, synced once and renamed (fab_pipeline_files_*): none
 * replaces its old copy unless all were written. A host whose name is no
 * safe file name gets none (note says so; may be NULL). *n_written (may be
 * NULL) counts them. 0 or a negative errno with fab_errmsg() set.
 */
int fab_pipeline_ready_extract(const struct fab_snapshot *merged, const char *dir,
			       fab_note_fn note, void *note_ctx, size_t *n_written);

/* ---- RoCE: collect and merge (pipeline/collect.c, merge.c) ------------- */

struct fab_pipeline_collect {
	const char *out;          /* the snapshot file, replaced atomically */
	const char *label;        /* NULL: none */
	struct fab_roce_opts ro;  /* sockets, sysfs root, DCB, timeout, notes */
};

/* `fabsweep collect`: this machine's RoCE view into a new snapshot file (a
 * fabsweep database with one scan), written under a temporary name and
 * renamed; SIGINT and SIGTERM wait for it. *out: the snapshot (owned). */
int fab_pipeline_collect(const struct fab_pipeline_collect *job, struct fab_snapshot **out);

struct fab_pipeline_merge {
	const char *db;            /* the target database */
	const char *label;         /* NULL: none */
	/* inputs: files made by collect (or merges), directories (their *.db
	 * files), "-" (paths read from list_in, one per line) */
	const char *const *files;
	size_t n_files;
	const char *const *lists;  /* files listing inputs, one path per line; "-": list_in */
	size_t n_lists;
	FILE *list_in;             /* what "-" reads (the command line: standard input) */
	/* incremental: the latest merge in db, and of the inputs only those
	 * that changed since it read them (merge_inputs) */
	bool into;
	const char *ready_dir;     /* NULL, or where to write the hosts' extracts (fab_pipeline_ready_extract) */
	fab_note_fn note;          /* what is left out of a file (may be NULL) */
	void *note_ctx;
};

struct fab_pipeline_merge_result {
	struct fab_snapshot *snap; /* owned: what was merged, committed on success */
	size_t inputs;             /* input files, directories and lists expanded */
	size_t merged;             /* files read and merged */
	size_t unchanged;          /* into: files as the base merge read them (not opened) */
	size_t dups;               /* systems collected more than once (newest kept) */
	size_t via_sqlite;         /* files read with SQLite, not straight from the file */
	int64_t base_scan;         /* into: the merge this one built on; 0 none */
	bool same;                 /* into: no input changed since base_scan: nothing
				    * written, snap is base_scan's row and scan errors
				    * (all of it with ready_dir) */
	size_t extracts;           /* readiness extracts written (ready_dir) */
};

/*
 * `fabsweep merge`: the latest scan of each file into one snapshot of the
 * whole Ethernet fabric: neighbours resolved into links, roles inferred,
 * written to job->db as one new scan, with the files it was made of
 * (merge_inputs). A file that cannot be read is a scan error ("merge",
 * naming the file and what to do) and the merge goes on; the scan is then
 * partial. Input files are only read: nothing is written beside them.
 * -EINVAL: an input is the target itself, or a list cannot be read.
 * -ENOENT: no input, or none could be merged: nothing written (not even an
 * empty database), out->snap says why. Free out->snap in any case.
 */
int fab_pipeline_merge(const struct fab_pipeline_merge *job,
		       struct fab_pipeline_merge_result *out);

/* ---- diff, report, export (pipeline/diff.c, report.c) ------------------ */

struct fab_pipeline_diff {
	const char *db;
	int64_t old_id, new_id;    /* as fab_pipeline_parse_scan gives them */
	const char *baseline;      /* old: fab_store_baseline_resolve(baseline); NULL: old_id */
	const char *node_name_map; /* NULL: the default map if present; "": none */
	FILE *text;                /* the text rendering goes here; NULL: none */
	FILE *json;                /* the JSON document (docs/json/diff.schema.json); NULL: none */
	const char *xml;           /* also the XML file (docs/fabsweep-diff.xsd); NULL: none */
};

/* `fabsweep diff`: what changed between two stored snapshots, rendered as
 * text, JSON and/or XML. *n_changes (may be NULL) = how many changes. */
int fab_pipeline_diff(const struct fab_pipeline_diff *job, size_t *n_changes);

/* `fabsweep physical` (pipeline/physical.c): a stored scan's physical
 * layer (modules, cables, bit error ratios) worst first. */
struct fab_pipeline_physical {
	const char *db;
	int64_t scan_id;           /* as fab_pipeline_parse_scan gives it */
	const char *node_name_map; /* NULL: the default map if present; "": none */
	size_t top;                /* text: rows per list */
	FILE *text;                /* NULL: none */
	FILE *json;                /* docs/json/physical.schema.json; NULL: none */
};
int fab_pipeline_physical(const struct fab_pipeline_physical *job);

struct fab_pipeline_report {
	const char *db;
	int64_t scan_id;           /* 0 latest, -N */
	const char *baseline;      /* also what changed since (fab_store_baseline_resolve), or NULL */
	const char *html, *xml;    /* either may be NULL, not both */
	const char *node_name_map; /* NULL: the default map if present; "": none */
	struct fab_report_opts opts;
	/* A period (report --since): the latest scan's report with the trends
	 * of the last since_ms and the findings raised in them; 0: the scan's
	 * report, with the trends of the day before it (FAB_TREND_DAY_MS). */
	int64_t since_ms;
	bool no_trends;            /* no trend section */
	int64_t now_ms;            /* the end of a period; 0: now (tests set it) */
};

struct fab_pipeline_report_result {
	int64_t scan_id, base_id;  /* base_id 0: no baseline */
	size_t n_charts;           /* trend charts drawn */
	size_t n_raised;           /* findings raised in the period (since_ms) */
	unsigned verdict;          /* enum fab_verdict */
	size_t by_severity[FAB_SEV__COUNT];
};

/* `fabsweep report`: renders a stored scan, node names mapped. */
int fab_pipeline_report(const struct fab_pipeline_report *job,
			struct fab_pipeline_report_result *out);

struct fab_pipeline_export {
	const char *db;
	int64_t scan_id;           /* 0 latest, -N */
	const char *baseline;      /* counter increases since this scan (fab_store_baseline_resolve), or NULL */
	const char *node_name_map; /* NULL: the default map if present; "": none */
	const char *out;           /* written atomically; NULL: to stream */
	FILE *stream;              /* when out is NULL */
};

/* `fabsweep export prometheus`. *scan_id (may be NULL) = the scan exported. */
int fab_pipeline_export(const struct fab_pipeline_export *job, int64_t *scan_id);

/* ---- import (pipeline/import.c) ------------------------------------------ */

enum fab_import_kind {
	FAB_IMPORT_IBDIAGNET2 = 0, /* an ibdiagnet2 output directory */
	FAB_IMPORT_IBNETDISCOVER,  /* an ibnetdiscover text file */
	FAB_IMPORT__COUNT
};

/* "ibdiagnet2", "ibnetdiscover" -> enum fab_import_kind; -1 if unknown. */
int fab_import_kind_parse(const char *s);

struct fab_pipeline_import {
	const char *db;
	bool make_db_dir;          /* create db's directory first (the default path) */
	unsigned kind;             /* enum fab_import_kind */
	const char *path;          /* the directory or file */
	const char *label;         /* NULL: none */
	fab_note_fn note;          /* sections skipped (may be NULL) */
	void *note_ctx;
};

/*
 * `fabsweep import KIND PATH` (docs/imports.md): reads the input whole
 * into a snapshot (source "ibdiagnet2:DIR" or "ibnetdiscover:FILE"), then
 * commits it to job->db as a new scan. Malformed input is -EINVAL with a
 * one-line message naming the file and line, and nothing is written.
 * *out: the stored snapshot (owned by the caller).
 */
int fab_pipeline_import(const struct fab_pipeline_import *job, struct fab_snapshot **out);

/* ---- route (pipeline/route.c) ------------------------------------------- */

struct fab_pipeline_route {
	const char *db;
	int64_t scan_id;       /* 0 latest, -N */
	/* each a LID (decimal, or 0x and up to 4 hex digits), a node or port
	 * GUID (0x and 16 hex digits), or a node description (or its first word) */
	const char *src, *dst;
	/* the LID of DST's range (LMC) to trace: its base + lid_offset
	 * (--lid-offset; a DST given as a LID is traced to that LID, and
	 * takes no offset), or with all_lids (--all-lids) every LID of it */
	unsigned lid_offset;
	bool all_lids;
	/* --all-pairs: every ordered pair of these hosts' ports (borrowed;
	 * matched as `ready` matches them: the description's first word, or
	 * its short name); src and dst are then unused */
	const struct fab_hostlist *hosts;
};

struct fab_route_index;
struct fab_pipeline_route_result {
	int64_t scan_id;
	uint32_t src, dst;           /* the two ports (indices in snap->ports) */
	uint16_t dlid;               /* the LID traced (the first, with all_lids) */
	struct fab_route_path path;  /* hop by hop (include/fabsweep/routing.h) */
	uint16_t base_lid;           /* the destination's range: base_lid .. + n_lids - 1 */
	unsigned n_lids;
	/* all_lids: the path to every LID of the range, paths[k] to base_lid + k
	 * (n_paths = n_lids; path is paths[0]); owned */
	struct fab_route_path *paths;
	size_t n_paths;
	struct fab_snapshot *snap;   /* the scan the path is in: owned */
	struct fab_route_index *index; /* owned */
	/* --all-pairs */
	size_t n_hosts, n_ends;      /* distinct hosts of the list, their ports checked */
	struct fab_route_pairs pairs; /* counts, and the pairs that break, by source */
	/* hosts of the list that have no port to check: not in the scan
	 * (no_port false), or no Active, cabled port with a LID (no_port true);
	 * names borrowed from the job's list */
	struct fab_route_host_miss { const char *host; bool no_port; } *missed;
	size_t n_missed;
};

/*
 * `fabsweep route SRC DST`: the path the stored forwarding tables give from
 * SRC to DST's LID (its base LID + job->lid_offset, the LID DST names, or
 * every LID of its range). 0 (path.fault says whether it arrives),
 * -ENODATA when the scan has no tables, -ENOENT when a name matches
 * nothing, -EINVAL when it matches several or the offset is past DST's
 * range; message set. With job->hosts (`--all-pairs`): every
 * ordered pair of the hosts' ports, per destination (fab_route_pairs_check);
 * 0, the answer in pairs and missed. Free the result with
 * fab_pipeline_route_free().
 */
int fab_pipeline_route(const struct fab_pipeline_route *job, struct fab_pipeline_route_result *out);
void fab_pipeline_route_free(struct fab_pipeline_route_result *r);

/* ---- route --mcast (pipeline/route_mcast.c) ------------------------------- */

struct fab_pipeline_route_mcast {
	const char *db;
	int64_t scan_id;   /* 0 latest, -N */
	/* the group: an MGID (ff12:401b:ffff::ffff:ffff) or an MLID (0xc000,
	 * or decimal 49152) */
	const char *group;
};

struct fab_mc_tree;
struct fab_pipeline_route_mcast_result {
	int64_t scan_id;
	struct fab_snapshot *snap; /* the scan: owned */
	/* the tree of the group's MLID as the tables write it, judged against
	 * its members (include/fabsweep/mcast.h): owned */
	struct fab_mc_tree *tree;
	uint32_t group;            /* the group named (snap->mcast->groups), FAB_NONE:
				    * named by an MLID */
};

/*
 * `fabsweep route --mcast MGID|MLID`: the tree of a multicast group in a
 * stored scan: the switches whose entry names a port, the ports, the
 * members and which of them the others' packets reach, a loop. 0;
 * -EINVAL (neither an MGID nor an MLID), -ENODATA (the scan has no
 * multicast data), -ENOENT (no group and no table has it); message set.
 */
int fab_pipeline_route_mcast(const struct fab_pipeline_route_mcast *job,
			     struct fab_pipeline_route_mcast_result *out);
void fab_pipeline_route_mcast_free(struct fab_pipeline_route_mcast_result *r);
