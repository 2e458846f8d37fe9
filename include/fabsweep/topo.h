/* SPDX-License-Identifier: MIT */
/*
 * Topology files: imports the text `ibnetdiscover` prints (its default
 * output, and the ibdiagnet2.ibnetdiscover variant) into a snapshot, so that
 * rules, reports and the expected-topology check work on a saved fabric, and
 * tests run on real fabrics' files without a simulator.
 *
 * What is accepted, the quirks of real files that are handled and how each
 * field maps to the snapshot: docs/topology-files.md.
 */
#pragma once

#include <stddef.h>

struct fab_snapshot;

/* A line longer than this (in bytes, without its newline) is an error. */
#define FAB_TOPO_LINE_MAX 8192
/* fab_topo_import_file() refuses files larger than this. */
#define FAB_TOPO_FILE_MAX ((size_t)1 << 30)

/*
 * Parses len bytes of ibnetdiscover text (borrowed; need not be
 * NUL-terminated and may hold any bytes) into snap, which must be empty (no
 * nodes, no ports): fresh from fab_snapshot_new(), possibly with a label or
 * host set. name (borrowed, may be NULL) names the input in messages and in
 * snap->source ("file:<name>").
 *
 * Fills nodes, ports (switch port 0 and every port the file lists), links,
 * the scan time when the file has one, status and source. A listed port whose
 * other end the file does not confirm keeps remote_idx FAB_NONE, gets
 * FAB_F_NO_REMOTE and a scan error ("hole"), and the status is
 * FAB_SCAN_PARTIAL: that is data, not a failure.
 *
 * Returns 0, or a negative errno with fab_errmsg() set to one line
 * "NAME:LINE: what is wrong" (-EINVAL for malformed input or a file with no
 * node in it, -ENOMEM). On failure snap is left as it was.
 */
int fab_topo_import(const char *text, size_t len, const char *name,
		    struct fab_snapshot *snap);

/* Reads a whole file (at most FAB_TOPO_FILE_MAX bytes) and imports it, with
 * path as the name. path is borrowed. */
int fab_topo_import_file(const char *path, struct fab_snapshot *snap);
