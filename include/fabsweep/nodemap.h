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
 * Used by diff, export (and check and report) through fab_node_name().
 *
 * The name of a node in every output (core/nodename.c; docs/workflows.md
 * "Node names") is, in this order: its node-name-map name; its
 * description when no other node of the scan has that description; the
 * description and the last six hex digits of its node GUID,
 * "Quantum-2 Mellanox Technologies [..91cf00]", when others share it (the
 * whole GUID, "... [0xfc6a1c030091cf00]", when another node of that
 * description ends in the same six digits); its GUID when it has no
 * description.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where ibdiags (rdma-core) looks for the map by default. */
#define FAB_NODEMAP_DEFAULT_PATH "/etc/rdma/ib-node-name-map"
#define FAB_NODEMAP_NAME_MAX 256        /* bytes of one name */
#define FAB_NODEMAP_LINE_MAX 1024       /* bytes of one line, newline excluded */
#define FAB_NODEMAP_ENTRIES_MAX 1000000 /* entries of one file */
#define FAB_NODEMAP_FILE_MAX (64u << 20) /* bytes of one file */

struct fab_nodemap;
struct fab_snapshot;
struct fab_finding;

#define FAB_NAME_HEX_SHORT 6  /* GUID digits of a shared description's name */
#define FAB_NAME_HEX_FULL 16  /* when two of them end alike */
/* Bytes of a name fab_node_name() writes: a description (FAB_DESC_CAP with
 * its NUL), " [0x" 16 digits "]". */
#define FAB_NODE_NAME_CAP 280

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
 * The name of node `node` of snap (see the top of this file): map's name
 * when map (may be NULL) has its GUID, else its description, with GUID
 * digits when snap's nodes were named (fab_snapshot_name_nodes) and the
 * description is shared, else its GUID. Never NULL: borrowed from map or
 * the snapshot, or written into buf (len bytes; FAB_NODE_NAME_CAP holds
 * any). The digits are as fab_snapshot_name_nodes() last set them.
 */
const char *fab_node_name(const struct fab_snapshot *snap, uint32_t node,
			  const struct fab_nodemap *map, char *buf, size_t len);

/* The same from its parts: guid, its description (NULL as ""), the digits
 * of its name (fab_node.name_hex). */
const char *fab_name_format(const struct fab_nodemap *map, uint64_t guid, const char *desc,
			    unsigned name_hex, char *buf, size_t len);

/*
 * Sets every node's name_hex from the descriptions of all of snap's nodes
 * (sorting them: O(n log n)). 0 or -ENOMEM.
 */
int fab_snapshot_name_nodes(struct fab_snapshot *snap);

/*
 * The same over n (guid, description) pairs: hex[i] for each, 0 for a
 * description no other pair has (or an empty one). For the store's
 * partial loads, which ask the whole scan for the shared descriptions.
 * 0 or -ENOMEM.
 */
int fab_node_names_hex(size_t n, const uint64_t *guids, const char *const *descs,
		       uint8_t *hex);

/*
 * Whether text names the node (guid, desc) by the form fab_node_name()
 * gives a shared description: desc, " [..", its GUID's last
 * FAB_NAME_HEX_SHORT hex digits, "]" (or " [0x" and all 16). For what users
 * type (route's ends).
 */
bool fab_node_name_is(const char *text, uint64_t guid, const char *desc);

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
const char *fab_nodemap_subject(const struct fab_nodemap *map, const struct fab_snapshot *snap,
				const struct fab_finding *f, char *buf, size_t len);

/*
 * The name of the node a finding field names (f->node or f->peer_node:
 * a GUID, or an Ethernet system's name): fab_node_name() of that node when
 * snap has it, else the text itself; NULL for NULL. Borrowed from map,
 * snap, text or buf (len bytes).
 */
const char *fab_finding_node_name(const struct fab_nodemap *map, const struct fab_snapshot *snap,
				  const char *text, char *buf, size_t len);
int fab_nodemap_apply(const struct fab_nodemap *map, struct fab_snapshot *snap);
