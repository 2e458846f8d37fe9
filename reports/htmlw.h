/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: the HTML writer. Every string that did not come from
 * this program's own source goes through fab_hw_text(), the one place where
 * HTML is escaped. fab_hw_raw() and fab_hw_fmt() are for markup literals and
 * numbers only.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "text.h"

struct fab_hw {
	FILE *f;   /* borrowed */
	int err;   /* first error (negative errno); later writes are skipped */
	struct fab_report_text clean;
};

void fab_hw_init(struct fab_hw *w, FILE *f);
/* Frees scratch memory; returns w->err. */
int fab_hw_finish(struct fab_hw *w);

/* Trusted markup, written as is. */
void fab_hw_raw(struct fab_hw *w, const char *markup);
/* Trusted printf: markup literals and numbers, never a string from data. */
void fab_hw_fmt(struct fab_hw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Untrusted text, safe both as element content and inside a double- or
 * single-quoted attribute value: made valid UTF-8 without control characters,
 * then & < > " ' escaped. NULL writes nothing. max_chars > 0 cuts the text
 * after that many characters and appends an ellipsis.
 */
void fab_hw_text(struct fab_hw *w, const char *s);
void fab_hw_text_cut(struct fab_hw *w, const char *s, size_t max_chars);
void fab_hw_u64(struct fab_hw *w, uint64_t v);
