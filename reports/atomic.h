/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: a file that appears complete or not at all. Writes go
 * to "<path>.tmpXXXXXX" in the target's directory; commit flushes, fsyncs and
 * renames it over the target, abort removes it.
 */
#pragma once

#include <stdio.h>

struct fab_report_file {
	FILE *f;   /* write here (buffered) */
	char *tmp; /* temporary name (owned) */
	char *path; /* target (owned copy) */
};

/* Creates the temporary file. *out is set only on success. */
int fab_report_file_open(const char *path, struct fab_report_file *out);
/* Flushes, fsyncs, renames the file to its target and frees rf's memory.
 * On failure the temporary file is removed and the target left alone. */
int fab_report_file_commit(struct fab_report_file *rf);
/* Closes and removes the temporary file; frees rf's memory. Idempotent. */
void fab_report_file_abort(struct fab_report_file *rf);
