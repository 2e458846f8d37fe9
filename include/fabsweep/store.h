/* SPDX-License-Identifier: MIT */
/*
 * The snapshot store: one SQLite file holds many snapshots. This module is
 * the only code that sees sqlite3; the public SQL interface it maintains is
 * documented in docs/schema.md.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_snapshot;
struct fab_store;

enum {
	FAB_STORE_READONLY = 0,   /* readers: never writes, never migrates */
	FAB_STORE_WRITE = 1 << 0, /* create if missing, migrate if older */
	/* with WRITE, a new file to be copied elsewhere (collect's files,
	 * readiness extracts): 1 KiB pages, a rollback journal (a reader needs
	 * no -shm beside it), no syncs: the writer syncs the finished file
	 * once (fab_pipeline_write_file) */
	FAB_STORE_EXPORT = 1 << 1,
	/* with READONLY: a file nobody writes any more (SQLite's immutable=1:
	 * no lock, nothing created beside it, a -wal ignored) */
	FAB_STORE_IMMUTABLE = 1 << 2,
	/* with READONLY: an older schema is read as it is (not refused) */
	FAB_STORE_ANY_VERSION = 1 << 3,
	/* with WRITE: a file that exists (a missing one is not created: said so) */
	FAB_STORE_EXISTING = 1 << 4,
};

/* Current schema version (PRAGMA user_version). */
#define FAB_SCHEMA_VERSION 19
/* PRAGMA application_id: "FABS" */
#define FAB_APPLICATION_ID 0x46414253

/*
 * Opens a database. A newer or foreign database is refused (-EPROTO /
 * -ENOTSUP) and left untouched; an older one is migrated when opened for
 * writing. *out is set only on success; close with fab_store_close().
 */
int fab_store_open(const char *path, unsigned flags, struct fab_store **out);
void fab_store_close(struct fab_store *st); /* accepts NULL */

/*
 * The bytes of a new, empty database of this schema version in the export
 * format (FAB_STORE_EXPORT): a writer of many small files writes them to
 * each new file before fab_store_open(WRITE | EXPORT), which then has no
 * schema to create (that costs more than a small scan's rows). *out
 * (malloc'd) owned by the caller; 0 or a negative errno, message set.
 */
int fab_store_empty_image(unsigned char **out, size_t *len);

/*
 * Writes snap as a new snapshot in one transaction: it is there completely
 * or not at all. Sets snap->scan_id on success. Findings in snap are stored
 * too. The snapshot is borrowed.
 */
int fab_store_write_scan(struct fab_store *st, struct fab_snapshot *snap);

/*
 * Writes a watch sweep (docs/watch.md) in one transaction: a scan that
 * shares the nodes, ports and links of topo (a stored full scan, or a
 * loaded sweep of one) and holds only what the sweep read that changed.
 * sweep has no nodes or ports of its own: the port_idx of its samples and
 * SMs are topo's. Its SMs, scan errors and findings are stored as a scan's.
 * Sets sweep->scan_id and sweep->topology_scan_id on success.
 */
int fab_store_write_sweep(struct fab_store *st, struct fab_snapshot *sweep,
			  const struct fab_snapshot *topo);

/*
 * Resolves a scan id: id > 0 must exist; id == 0 means the latest; id < 0
 * means that many before the latest (-1 = the one before). *out = the id.
 */
int fab_store_resolve_scan(struct fab_store *st, int64_t id, int64_t *out);

/* The latest scan `fabsweep merge` wrote (its source "merge:..."); -ENOENT none. */
int fab_store_latest_merge(struct fab_store *st, int64_t *out);

/* Whether merge scan_id can be the keyframe of a delta (docs/schema.md,
 * "RoCE deltas"): a whole merge whose rows are all in the form this
 * version writes (none kept one per counter, lane or TLV: older scans, or
 * rows SQL changed). 0 or a negative errno with the message set. */
int fab_store_keyframe_ok(struct fab_store *st, int64_t scan_id, bool *ok);

struct fab_roce;
struct fab_roce_input;
/* The files merge scan_id read or carried over (merge_inputs), in strcmp
 * order of their paths: fn for each (its strings valid during the call);
 * stops early when fn returns non-zero, which is then returned. */
int fab_store_merge_inputs(struct fab_store *st, int64_t scan_id,
			   int (*fn)(const struct fab_roce_input *in, void *ctx), void *ctx);

/* Loads a whole snapshot (findings included). *out owned by the caller. */
int fab_store_load_scan(struct fab_store *st, int64_t scan_id,
			struct fab_snapshot **out);

/*
 * What merge --into starts from: the scan row, scan errors and RoCE part,
 * the systems' RDMA devices left where they are (fab_roce_system.stored_scan:
 * a model only this database may be written from, once
 * fab_store_load_later has read those of the systems written again).
 * *out owned by the caller.
 */
int fab_store_load_merge_base(struct fab_store *st, int64_t scan_id, struct fab_snapshot **out);

/*
 * Reads into r, loaded by fab_store_load_merge_base from st, the RDMA
 * devices (ports, counters) left stored of its systems that which[] marks
 * (by position; NULL: all of them), and of no other: what merge --into
 * writes again. r's delta, if any, gives them their stored device indices.
 * 0, or a negative errno with the message set.
 */
int fab_store_load_later(struct fab_store *st, struct fab_roce *r, const bool *which);

/* Loads the scan row and its scan errors, no more. *out owned by the caller. */
int fab_store_load_header(struct fab_store *st, int64_t scan_id, struct fab_snapshot **out);

/*
 * Loads the scan row and the RoCE part (with the votes of what it leaves
 * out) and no more: no counter samples, SMs, scan errors, findings or
 * tables (`ready --local`). *out owned by the caller.
 */
int fab_store_load_roce_scan(struct fab_store *st, int64_t scan_id,
			     struct fab_snapshot **out);

/*
 * Loads what a counter baseline needs and no more, for check --baseline: the
 * scan row, nodes (index, GUID, type, description), ports (numbers and
 * GUIDs; no PortInfo, no remote ends, so no links), every counter sample,
 * the RoCE part and the forwarding tables (the reports show which switches'
 * tables changed since the baseline). No SMs, scan errors or findings.
 * About half the cost of fab_store_load_scan on a large fabric.
 */
int fab_store_load_baseline(struct fab_store *st, int64_t scan_id,
			    struct fab_snapshot **out);

/*
 * The holds without a time limit (port.down: a port down until it is seen
 * Active) that watch left open in the newest chain (docs/watch.md
 * "Findings"), appended to into's findings: each with the evidence it was
 * raised with and held_since_ms its raise. What a restarted watch carries
 * on (fab_rules_hold_restore). 0 or a negative errno with the message set.
 */
int fab_store_open_holds(struct fab_store *st, struct fab_snapshot *into);

/* Replaces the findings of a stored scan with snap's, in one transaction. */
int fab_store_replace_findings(struct fab_store *st,
			       const struct fab_snapshot *snap);

struct fab_scan_row {
	int64_t scan_id;
	const char *started_at, *finished_at, *status, *label, *host, *source;
	int64_t n_nodes, n_ports, n_links, n_findings, n_errors;
	bool checked; /* fabsweep check has run on it (else n_findings says nothing) */
};
/* Calls fn for every scan, oldest first; stops early when fn returns non-zero
 * (that value is returned). Row strings are valid during the call only. */
int fab_store_list_scans(struct fab_store *st,
			 int (*fn)(const struct fab_scan_row *row, void *ctx),
			 void *ctx);

struct fab_store_info {
	int schema_version;
	int64_t n_scans;
	int64_t page_size, page_count, freelist_count;
	char journal_mode[16];
	int64_t first_scan, last_scan;
};
int fab_store_info(struct fab_store *st, struct fab_store_info *out);

/*
 * Reads files `fabsweep collect` (or a merge) wrote, for `fabsweep merge`:
 * the latest scan's row (times, status, host, source, label), scan errors
 * and RoCE part. Nothing is written beside a file (no -wal, no -shm: a
 * read-only directory works): it is read straight from the SQLite file
 * format when it can be, else with SQLite opened immutable, or, when a -wal
 * beside it holds its last transactions, as SQLite reads such a file. Files
 * of older schema versions are read as they are. Errors name the file and
 * say what to do. A reader keeps its buffers from file to file.
 */
struct fab_store_reader;
int fab_store_reader_new(struct fab_store_reader **out);
void fab_store_reader_free(struct fab_store_reader *rd); /* accepts NULL */

struct fab_store_input {
	bool has_ib;      /* the scan has an InfiniBand part (not read) */
	bool direct;      /* read straight from the file format, not with SQLite */
	int64_t mtime_ns; /* the file's, when it was read; -1 unknown */
	int64_t size;     /* bytes; -1 unknown */
};
/* rd may be NULL (a reader for this one file). *out owned by the caller. */
int fab_store_read_input(struct fab_store_reader *rd, const char *path,
			 struct fab_snapshot **out, struct fab_store_input *info);

/* Path as opened (borrowed). */
const char *fab_store_path(const struct fab_store *st);
