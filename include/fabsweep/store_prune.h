/* SPDX-License-Identifier: MIT */
/*
 * Retention and baselines of the snapshot store.
 *
 * A baseline is a scan an operator marked as "known good" (optionally with a
 * name such as "golden" or "after-maint-2026-03"). `fabsweep diff --baseline`
 * compares against one, and pruning never drops one. Baselines live in the
 * table `baselines(scan_id, name, created_at)` (docs/schema.md).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct fab_store;

#define FAB_BASELINE_NAME_MAX 64

/*
 * Whether s is a valid baseline name: 1..FAB_BASELINE_NAME_MAX bytes of
 * letters, digits, '.', '_' and '-', starting with a letter (so that it can
 * never be mistaken for a scan id).
 */
bool fab_baseline_name_valid(const char *s);

/*
 * Marks scan_id (which must exist) as a baseline, with name (may be NULL).
 * Marking a scan again replaces its name. A name names one scan: when name
 * already named another scan, it moves, and *out_previous (may be NULL) is
 * set to that scan id (else 0). One transaction.
 */
int fab_store_baseline_set(struct fab_store *st, int64_t scan_id,
			   const char *name, int64_t *out_previous);

/*
 * Unmarks a baseline given by ref: a scan id ("12") or a name. Sets
 * *out_scan (may be NULL) to the scan it unmarked. -ENOENT when ref is no
 * baseline.
 */
int fab_store_baseline_clear(struct fab_store *st, const char *ref,
			     int64_t *out_scan);

struct fab_baseline_row {
	int64_t scan_id;
	const char *name;       /* NULL when unnamed */
	const char *created_at; /* when it was marked */
	const char *started_at; /* when its scan started */
	const char *label;      /* the scan's label, or NULL */
};

/* Calls fn for each baseline, oldest scan first; stops when fn returns
 * non-zero (returned). Row strings are valid during the call only. */
int fab_store_baseline_list(struct fab_store *st,
			    int (*fn)(const struct fab_baseline_row *row, void *ctx),
			    void *ctx);

/*
 * The scan a --baseline argument means: digits are a scan id (any stored
 * scan, marked or not), "latest" and "-N" as fab_store_resolve_scan(),
 * anything else a baseline name. *out on success; -ENOENT when none.
 */
int fab_store_baseline_resolve(struct fab_store *st, const char *ref,
			       int64_t *out);

struct fab_prune_opts {
	int64_t keep;          /* keep the newest N scans; 0: no count rule */
	int64_t older_than_ms; /* drop scans that started this long before
				* now; 0: no age rule */
	int64_t now_ms;        /* 0: the wall clock (tests set it) */
	bool dry_run;          /* report, change nothing */
	bool no_vacuum;        /* do not reclaim space afterwards */
};

/* A scan the prune looked at: dropped, or kept because it is a baseline. */
struct fab_prune_scan {
	int64_t scan_id;
	const char *started_at;
	const char *label;  /* NULL when none */
	bool is_baseline;   /* kept although the rules would drop it */
};

struct fab_prune_result {
	int64_t dropped;         /* scans deleted (or that would be, dry run) */
	int64_t kept_baselines;  /* scans the rules selected but baselines kept */
	int64_t remaining;       /* scans left */
	int64_t bytes_before, bytes_after; /* database file size (pages) */
	int64_t rows_deleted;    /* rows over all per-scan tables */
	bool vacuumed;           /* space reclaimed */
	char vacuum_error[160];  /* why not, when it was tried and failed */
};

/*
 * Drops old snapshots. A scan is dropped when every given rule selects it:
 * it is not among the newest `keep`, and it started more than older_than_ms
 * ago. At least one rule must be given. Never dropped: the newest scan, and
 * any baseline. Deletes from every per-scan table (every table with a
 * scan_id column, so tables added by later schema versions are covered) in
 * one transaction, then checkpoints the WAL and VACUUMs unless no_vacuum. A
 * VACUUM that fails (e.g. a reader holds the database) is not an error:
 * out->vacuum_error says why. fn (may be NULL) is called for each scan
 * dropped or kept as a baseline, oldest first, before anything is deleted.
 */
int fab_store_prune(struct fab_store *st, const struct fab_prune_opts *opts,
		    int (*fn)(const struct fab_prune_scan *scan, void *ctx),
		    void *ctx, struct fab_prune_result *out);

/* What fab_store_rollup did. */
struct fab_rollup_result {
	int64_t chain;        /* the full scan whose sweeps were rolled up; 0: none due */
	int64_t sweeps;       /* scans deleted: the full scan and its sweeps */
	int64_t samples;      /* counter rows read */
	int64_t rows;         /* counter_rollups rows written or added to */
	int64_t rows_deleted; /* rows over all per-scan tables */
};

/*
 * Retention of watch sweeps (docs/watch.md "Retention"): rolls up the oldest
 * chain (a full scan and its sweeps) whose sweeps all started before
 * before_ms, that is not the newest chain and has no baseline: per port,
 * hour and counter that moved, the total increase and the highest rate
 * between two samples go into counter_rollups (view counter_hourly), added
 * to what is there for that hour; then the chain is deleted (its full
 * scan, sweeps, findings and holds). One chain per call, in one
 * transaction; no VACUUM (the pages are reused by later sweeps). 0 with
 * out->chain 0 when none is due, or a negative errno.
 */
int fab_store_rollup(struct fab_store *st, int64_t before_ms, struct fab_rollup_result *out);
