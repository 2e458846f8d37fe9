/* SPDX-License-Identifier: MIT */
/*
 * ibdiagnet2 output imported into a snapshot (import/ibdiag_import.c,
 * docs/imports.md): the sections of ibdiagnet2.db_csv that fabsweep's model
 * holds (NODES, PORTS, LINKS, SWITCHES, SM_INFO, PM_INFO, NODES_INFO for the
 * firmware, RUN_INFO), so that
 * check, report, diff and SQL work on archived ibdiagnet runs.
 */
#pragma once

#include <stddef.h>

struct fab_snapshot;

/* A message for the user that is not an error (sections skipped). */
typedef void (*fab_ibdiag_note_fn)(const char *msg, void *ctx);

/* A line longer than this (bytes, without its newline) is an error. */
#define FAB_IBDIAG_LINE_MAX (64 * 1024)
/* fab_ibdiag_import_dir() refuses a db_csv larger than this. */
#define FAB_IBDIAG_FILE_MAX ((size_t)1 << 31)

/*
 * Parses len bytes of ibdiagnet2.db_csv text (borrowed, any bytes) into
 * snap, which must be empty. name (borrowed, may be NULL) names the input in
 * messages. Reads the text once, line by line, keeping one record per node,
 * port, link, SM and counter row; then resolves them through sorted arrays
 * (O(n log n)). Sections it does not read are skipped: note (may be NULL)
 * hears one line listing them. A run made with --skip gets status partial
 * and a scan error ("import") naming the stages skipped.
 *
 * Fills nodes, ports, links, SMs, one counter sample per port PM_INFO has,
 * the run's time, status and source ("ibdiagnet2:<name>"). Returns 0, or a
 * negative errno with fab_errmsg() set to one line "NAME:LINE: what is
 * wrong" (-EINVAL malformed, -ENOMEM); on failure snap is left empty.
 */
int fab_ibdiag_import(const char *text, size_t len, const char *name,
		      fab_ibdiag_note_fn note, void *note_ctx, struct fab_snapshot *snap);

/* Reads DIR/ibdiagnet2.db_csv and imports it; snap->source becomes
 * "ibdiagnet2:DIR". dir is borrowed. */
int fab_ibdiag_import_dir(const char *dir, fab_ibdiag_note_fn note, void *note_ctx,
			  struct fab_snapshot *snap);
