/* SPDX-License-Identifier: MIT */
/*
 * M_Keys: the management keys a subnet manager may set on ports so that
 * only who knows them can change (and, at the higher protection levels,
 * read) the subnet's configuration. fabsweep only sends them, in the
 * header of its SMPs; it never stores, logs or prints one
 * (docs/security.md). Messages from here name the option or the file and
 * line, never the key.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_MKEY_FILE_MAX_ENTRIES (1u << 20)
#define FAB_MKEY_FILE_LINE_MAX 1024

/*
 * Parses one key of len bytes: "0x" and 1 to 16 hex digits, or a decimal
 * number up to 2^64 - 1; nothing else (no sign, no space). 0 and *out set,
 * or -EINVAL (-ERANGE for a decimal that does not fit), no message.
 */
int fab_mkey_parse(const char *s, size_t len, uint64_t *out);

/* The keys of one scan: per port or node GUID from guid2mkey files, and
 * one fallback for everything else. */
struct fab_mkeys;

/* An empty set (no fallback: key 0). NULL when out of memory. */
struct fab_mkeys *fab_mkeys_new(void);
/* Accepts NULL; wipes the keys before freeing them. */
void fab_mkeys_free(struct fab_mkeys *k);

/* The key sent to devices no file names, and before a device's GUID is
 * known. */
void fab_mkeys_set_default(struct fab_mkeys *k, uint64_t key);

/*
 * Adds the lines of a guid2mkey file (OpenSM's format): blank lines,
 * '#' comments, and "<GUID> <M_Key>" lines, the GUID in hex (0x optional)
 * and the key as fab_mkey_parse() takes it. The GUID is a port GUID or a
 * node GUID (a switch's are the same). A GUID listed twice, or more than
 * FAB_MKEY_FILE_MAX_ENTRIES lines, is an error. name is used in messages
 * ("NAME:LINE: ..."). On error nothing is added.
 */
int fab_mkeys_parse(struct fab_mkeys *k, const char *text, size_t len,
		    const char *name);

/*
 * Reads and parses the file at path. *out_loose (may be NULL) is set when
 * the file is readable or writable by its group or others, which the
 * caller should warn about.
 */
int fab_mkeys_load(struct fab_mkeys *k, const char *path, bool *out_loose);

/* Number of GUIDs from files. */
size_t fab_mkeys_count(const struct fab_mkeys *k);

/*
 * The key for a device: the entry for port_guid, else for node_guid, else
 * the fallback. A GUID 0 (not known yet) matches no entry. k may be NULL
 * (key 0).
 */
uint64_t fab_mkeys_lookup(const struct fab_mkeys *k, uint64_t port_guid,
			  uint64_t node_guid);

/*
 * The keys a command line asks for: opt_key (--m-key TEXT), else env_key
 * (the FABSWEEP_MKEY variable's text), as the fallback; file (--m-key-file)
 * for per-GUID keys. Any may be NULL. *out is NULL when none is given,
 * else a set the caller frees. *out_loose as for fab_mkeys_load(). Errors
 * name the option, variable or file:line, never the key.
 */
int fab_mkeys_from_options(const char *opt_key, const char *env_key,
			   const char *file, struct fab_mkeys **out,
			   bool *out_loose);
