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

/* ---- the physical layer (ibdiag_phys.c) ------------------------------------ */

struct fab_snapshot;

/* PHY_DB16's columns: the port, then mantissa and exponent of the raw,
 * effective and symbol BER. */
enum { IBD_BER_NODE, IBD_BER_PORT, IBD_BER_RAW_M, IBD_BER_RAW_E, IBD_BER_EFF_M, IBD_BER_EFF_E,
       IBD_BER_SYM_M, IBD_BER_SYM_E, IBD_BER__COUNT };
extern const char *const ibd_ber_cols[IBD_BER__COUNT];

struct ibd_ber {
	uint64_t node_guid;
	uint8_t port;
	size_t line;
	double ber[3]; /* raw, effective, symbol; NAN unknown */
};

struct ibd_phys {
	struct ibd_ber *ber;
	size_t n_ber, cap_ber;
};

/* A PHY_DB16 row into p; 0, -EINVAL (message set) or -ENOMEM. */
int ibd_ber_row(struct ibd_phys *p, struct ibd_reader *r, const struct ibd_row *row);
/* p's rows onto snap's ports (snap indexed); *unmatched: rows of ports
 * the snapshot does not have. 0 or -ENOMEM. */
int ibd_ber_fill(struct ibd_phys *p, struct fab_snapshot *snap, size_t *unmatched);
void ibd_phys_free(struct ibd_phys *p);

/* What reading ibdiagnet2.cables did. */
struct ibd_cables {
	size_t records;    /* modules added to snap->ib_modules */
	size_t unmatched;  /* records of ports snap does not have */
	size_t duplicates; /* second records of a port (the first is kept) */
	char timestamp[64]; /* "# Running timestamp" of the file */
	/* private */
	bool *seen;
	uint32_t *port_by_guid;
};

/* Reads ibdiagnet2.cables text into snap->ib_modules (snap imported and
 * indexed). 0, or -EINVAL with "NAME:LINE: ..." set, or -ENOMEM. */
int ibd_cables_read(const char *text, size_t len, const char *name, struct fab_snapshot *snap,
		    struct ibd_cables *out);

/* A file mapped read-only (ibd_map: 0, or a negative errno with "cannot
 * read 'PATH': ...WHAT" set). */
struct ibd_map {
	void *addr;
	size_t len;
};
int ibd_map(const char *path, const char *what, struct ibd_map *m);
void ibd_unmap(struct ibd_map *m);

#include "fabsweep/ibdiag.h" /* fab_ibdiag_note_fn */
/* DIR/ibdiagnet2.cables, when there is one, into snap (imported, indexed);
 * notes for records of other ports, duplicates, and a file from another
 * run than the db_csv. 0 (no file is no error) or a negative errno. */
int ibd_cables_dir(const char *dir, struct fab_snapshot *snap, fab_ibdiag_note_fn note, void *note_ctx);
