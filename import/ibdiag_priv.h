/* SPDX-License-Identifier: MIT */
/*
 * Private to import/ibdiag_*.c: the db_csv reader (ibdiag_csv.c) hands
 * each row of a section to the importer (ibdiag_import.c) with the columns
 * the section's table asked for already found by name.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IBD_FIELDS_MAX 512 /* columns in a row */
#define IBD_COLS_MAX 32    /* columns one section reads */

struct ibd_reader;

/* One row: its fields (unquoted, NUL-terminated, in the reader's scratch)
 * and, per column the section asked for, the field index or -1. */
struct ibd_row {
	const char *const *f;
	size_t n;
	const int *col;
	const char *const *names; /* the section's column names */
	size_t line;
};

/* A section the importer reads: the columns by name (required ones must
 * be in its header) and what to do with each row. */
struct ibd_section {
	const char *name;
	const char *const *cols;
	size_t n_cols;
	uint32_t required; /* bit k: cols[k] must be present */
	int (*row)(void *ctx, struct ibd_reader *r, const struct ibd_row *row);
};

/* Reads text section by section, calling the handler of each section of
 * secs[0..n) for every row; the names of sections not in secs are joined
 * into skipped (cap bytes, "" when none). 0 or -EINVAL/-ENOMEM, message
 * "NAME:LINE: ..." set. */
int ibd_read(const char *text, size_t len, const char *name, const struct ibd_section *secs,
	     size_t n, void *ctx, char *skipped, size_t cap);

/* Column k of row as a number (decimal, or 0x hex): 0, 1 when the column
 * is absent or "N/A", else -EINVAL with "NAME:LINE: COLUMN '...' is not a number". */
int ibd_u64(struct ibd_reader *r, const struct ibd_row *row, size_t k, uint64_t *out);
/* Column k as text, NULL when absent. */
const char *ibd_text(const struct ibd_row *row, size_t k);
/* An error about the row: "NAME:LINE: " and the message. */
int ibd_err(struct ibd_reader *r, size_t line, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
