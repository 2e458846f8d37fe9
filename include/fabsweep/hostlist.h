/* SPDX-License-Identifier: MIT */
/*
 * Host lists as Slurm writes them: `node[001-016,020]`, `a[1-3]b[1-2]`,
 * lists of those separated by commas and/or blanks (space, tab, newline, CR:
 * `node1, node2`, as Slurm reads them), SLURM_JOB_NODELIST, and host files
 * (host-list expressions, usually one a line, # comments).
 *
 * Expansion keeps the order written and the zero padding of each range's
 * lower bound (`n[08-10]` is n08 n09 n10); several brackets multiply, the
 * first varying slowest (`a[1-2]b[1-2]` is a1b1 a1b2 a2b1 a2b2). Duplicates
 * are kept. Host names are letters, digits, '-', '_' and '.', at most
 * FAB_HOST_NAME_MAX bytes. A list never grows past FAB_HOSTLIST_MAX hosts:
 * the size of every expression is computed before anything is expanded, so
 * `n[0-999999999]` fails at once instead of exhausting memory.
 *
 * Everything is strict: an empty element (`a,,b`, which Slurm skips), an unclosed or nested bracket, a
 * descending range, mismatched padding (`n[1-010]`) or a stray character is
 * an error that names the column (or FILE:LINE) and leaves the list as it was.
 */
#pragma once

#include <stddef.h>

#define FAB_HOSTLIST_MAX 65536    /* hosts in one list */
#define FAB_HOST_NAME_MAX 255     /* bytes of one host name */
#define FAB_HOSTLIST_EXPR_MAX 65536 /* bytes of one expression */
#define FAB_HOSTFILE_MAX (16u << 20) /* bytes of one host file */

struct fab_hostlist;

/* A new empty list (owned by the caller) in *out; 0 or -ENOMEM. */
int fab_hostlist_new(struct fab_hostlist **out);
void fab_hostlist_free(struct fab_hostlist *hl); /* accepts NULL */

/*
 * Appends the hosts of one expression (NUL-terminated; len bytes, or up to
 * the NUL when len is SIZE_MAX). Returns 0, -EINVAL (syntax, with
 * fab_errmsg() "host list 'EXPR': column N: ..."), -E2BIG (over
 * FAB_HOSTLIST_MAX) or -ENOMEM; on error the list is unchanged.
 */
int fab_hostlist_add(struct fab_hostlist *hl, const char *expr, size_t len);

/*
 * Appends a host file's hosts: each line is blank, a # comment, or
 * expressions (a plain host name is one) separated as in a list, with an
 * optional # comment.
 * name is what errors call the input ("FILE:LINE: ..."). All or nothing.
 */
int fab_hostlist_add_text(struct fab_hostlist *hl, const char *text, size_t len,
			  const char *name);

/* Reads the file at path (at most FAB_HOSTFILE_MAX bytes) as above. */
int fab_hostlist_add_file(struct fab_hostlist *hl, const char *path);

/*
 * Appends the expression in environment variable var (e.g.
 * "SLURM_JOB_NODELIST"). -ENOENT when it is unset or empty.
 */
int fab_hostlist_add_env(struct fab_hostlist *hl, const char *var);

size_t fab_hostlist_count(const struct fab_hostlist *hl);
/* Host i (borrowed, valid until the list changes), NULL past the end. */
const char *fab_hostlist_get(const struct fab_hostlist *hl, size_t i);
