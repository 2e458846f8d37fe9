/* SPDX-License-Identifier: MIT */
/*
 * Node names: an ibdiags-style node-name-map, read strictly.
 *
 * The file maps node GUIDs to the names operators use:
 *
 *     # comment
 *     0x0002c90300a1b2c3 "leaf01"
 *     0x0002c90300a1b2c4 "leaf02"   # trailing comment
 *
 * One entry a line: a 0x-prefixed GUID (1 to 16 hex digits), blanks, a name
 * in double quotes (1..FAB_NODEMAP_NAME_MAX bytes of printable UTF-8, no '"'),
 * then only blanks or a comment. Anything else, a GUID listed twice or a
 * file over the limits below is an error "FILE:LINE: ..." and nothing is
 * loaded: a typo must not silently rename nothing.
 *
 * Used by diff, export (and check and report) through fab_nodemap_name().
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Where ibdiags (rdma-core) looks for the map by default. */
#define FAB_NODEMAP_DEFAULT_PATH "/etc/rdma/ib-node-name-map"
#define FAB_NODEMAP_NAME_MAX 256        /* bytes of one name */
#define FAB_NODEMAP_LINE_MAX 1024       /* bytes of one line, newline excluded */
#define FAB_NODEMAP_ENTRIES_MAX 1000000 /* entries of one file */
#define FAB_NODEMAP_FILE_MAX (64u << 20) /* bytes of one file */

struct fab_nodemap;

/*
 * Parses len bytes of map text. name is what errors call the input (a path).
 * *out (owned by the caller, free with fab_nodemap_free) is set only on
 * success. Returns 0, -EINVAL with fab_errmsg() "NAME:LINE: ...", -E2BIG
 * over a limit, or -ENOMEM.
 */
int fab_nodemap_parse(const char *text, size_t len, const char *name,
		      struct fab_nodemap **out);

/* Reads and parses the file at path (as fab_nodemap_parse()). */
int fab_nodemap_load(const char *path, struct fab_nodemap **out);

/*
 * The map a command should use: path when given (it must exist), else
 * FAB_NODEMAP_DEFAULT_PATH when that file exists, else none: *out = NULL and
 * 0 (every lookup then falls back to the description). An empty path ("")
 * means none, even when the default exists.
 */
int fab_nodemap_open(const char *path, struct fab_nodemap **out);

void fab_nodemap_free(struct fab_nodemap *map); /* accepts NULL */

/* Number of entries. 0 for NULL. */
size_t fab_nodemap_count(const struct fab_nodemap *map);

/* The mapped name of guid, or NULL. map may be NULL. Borrowed from the map. */
const char *fab_nodemap_lookup(const struct fab_nodemap *map, uint64_t guid);

/*
 * The name to show for a node: the mapped name when the map has the GUID,
 * else fallback_desc (a snapshot's sanitized description), else "". Never
 * NULL. The result is borrowed from the map or from fallback_desc.
 */
const char *fab_nodemap_name(const struct fab_nodemap *map, uint64_t guid,
			     const char *fallback_desc);

/*
 * Mapped names where output shows a stored finding or a snapshot
 * (core/nodemap_apply.c; used by check, ready, report and sweep).
 *
 * fab_nodemap_subject: the subject of finding f (of snap) with mapped node
 * names, when the stored subject has the form the rules build from
 * descriptions ("desc", "desc/port", "desc/port <-> desc/port") and map
 * names one of its nodes; else the stored subject. Writes into buf (len
 * bytes) when it renames; the result is borrowed from buf or from f.
 *
 * fab_nodemap_apply: renames snap in memory for rendering: each mapped
 * node's description becomes its name, and finding subjects follow (as
 * above). The database is not touched. 0 or -ENOMEM.
 */
struct fab_snapshot;
struct fab_finding;
const char *fab_nodemap_subject(const struct fab_nodemap *map, const struct fab_snapshot *snap,
				const struct fab_finding *f, char *buf, size_t len);
int fab_nodemap_apply(const struct fab_nodemap *map, struct fab_snapshot *snap);
