/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: the JSON writer over jansson. Every string goes
 * through fab_jw_str() (cleaned by text.c, then escaped by jansson with
 * JSON_ENSURE_ASCII), the one place JSON strings are made; every document
 * is written by fab_jw_write(). Builders return NULL when memory runs out;
 * a NULL anywhere makes the enclosing json_pack() fail, so a document is
 * complete or not written at all.
 */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "text.h"

/* Version of the documents' structure (docs/json/README.md): raised when a
 * field changes meaning or goes away, never for a new field. */
#define FAB_JSON_FORMAT 1

struct fab_snapshot;

/* A JSON string of s made valid and inert: control bytes, invalid UTF-8,
 * bidi overrides as "\xNN" (text.c); jansson escapes quotes, backslashes,
 * '/' and everything outside ASCII (U+2028 becomes "\u2028"). s NULL: null. */
json_t *fab_jw_str(struct fab_report_text *t, const char *s);
/* A GUID as "0x0002c90300001234" (a string: JSON numbers lose 64-bit precision). */
json_t *fab_jw_guid(uint64_t guid);
/* An unsigned integer; above INT64_MAX (only an all-ones 64-bit counter)
 * it is written as INT64_MAX. */
json_t *fab_jw_uint(uint64_t v);
/* A Unix-epoch millisecond time as "2026-12-01T02:53:55.123Z"; 0: null. */
json_t *fab_jw_time(int64_t ms);
/* The envelope every document starts with: {"format": FAB_JSON_FORMAT,
 * "generator": "fabsweep VERSION", "command": command}. */
json_t *fab_jw_doc(const char *command);
/* The scan a document is about: id, times, status, source, label, host. */
json_t *fab_jw_scan(struct fab_report_text *t, const struct fab_snapshot *snap);
/* Appends v (stolen) to arr; -ENOMEM when v is NULL or the append failed. */
int fab_jw_append(json_t *arr, json_t *v);
/* Sets key of obj to v (stolen); -ENOMEM when v is NULL or it failed. */
int fab_jw_set(json_t *obj, const char *key, json_t *v);
/* A new empty array or object set as key of obj, which owns it: the
 * result is borrowed, NULL when memory ran out. */
json_t *fab_jw_add_array(json_t *obj, const char *key);
json_t *fab_jw_add_object(json_t *obj, const char *key);
/* Writes doc (taken: freed in any case; NULL means memory ran out) to f
 * with a final newline. 0, -ENOMEM or -EIO, message set. */
int fab_jw_write(json_t *doc, FILE *f);
/* The end of every document: frees t's scratch, then writes doc unless
 * err (a negative errno while building it: then doc is only freed). */
int fab_jw_finish(json_t *doc, int err, struct fab_report_text *t, FILE *f);
