/* SPDX-License-Identifier: MIT */
/*
 * Exports for other tools: the Prometheus text format (for node_exporter's
 * textfile collector), and the atomic output file every exported or rendered
 * file goes through. The metrics are listed in docs/workflows.md.
 */
#pragma once

#include <stdio.h>

struct fab_snapshot;
struct fab_nodemap;

/*
 * A file written under a temporary name beside the target ("PATH.tmpXXXXXX",
 * mode 0644) and renamed over it on commit, so a reader (the textfile
 * collector, a web server) sees the old file or the new one, never half of
 * one; the temporary name never ends in ".prom". One implementation, shared
 * with the reports (reports/atomic.c).
 */
struct fab_outfile;

/* Creates the temporary file; *out (owned, ended by commit or abort) is set
 * only on success. */
int fab_outfile_open(const char *path, struct fab_outfile **out);
/* The stream to write to (borrowed). */
FILE *fab_outfile_stream(struct fab_outfile *of);
/* Flushes, syncs and renames over the target; frees of. On error the
 * temporary file is removed and the target left as it was. */
int fab_outfile_commit(struct fab_outfile *of);
/* Removes the temporary file and frees of. Accepts NULL. */
void fab_outfile_abort(struct fab_outfile *of);

/*
 * Writes snap in the Prometheus text exposition format (version 0.0.4) to
 * f: HELP and TYPE lines, every metric named fabsweep_*, label values
 * escaped (backslash, double quote, newline; other control bytes and
 * invalid UTF-8 as \xNN). Node labels use names (may be NULL) for mapped
 * names. snap must be indexed (the store's loader does it). Counter
 * increases and rates compare snap with base (a baseline, may be NULL: then
 * the scan's own two samples), as `fabsweep check` does. No timestamps
 * on samples (the textfile collector refuses them). Everything borrowed.
 * Returns 0, -ENOMEM or -EIO.
 */
int fab_export_prometheus(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			  const struct fab_nodemap *names, FILE *f);

/* The same, written atomically to path (a fab_outfile). */
int fab_export_prometheus_file(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			       const struct fab_nodemap *names, const char *path);
