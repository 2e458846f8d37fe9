/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: makes any string safe to hand to a format's escaper.
 * Both writers (htmlw.c, xmlw.c) pass every string through it; escaping of
 * markup characters stays in the writers.
 */
#pragma once

#include <stddef.h>

/* Longest string a report shows, in bytes after cleaning; longer ones are cut. */
#define FAB_REPORT_TEXT_CAP (64u * 1024)

struct fab_report_text {
	char *buf; /* scratch (owned) */
	size_t cap;
};

/*
 * Returns s itself when it is already printable ASCII, else a cleaned copy
 * in t's scratch buffer (valid within the next call): valid UTF-8 kept,
 * control bytes, invalid bytes, bidi overrides and the non-characters
 * U+FFFE/U+FFFF written as "\xNN". NULL for NULL; "" when memory runs out.
 */
const char *fab_report_text_clean(struct fab_report_text *t, const char *s);
void fab_report_text_free(struct fab_report_text *t);

/* Byte length of the first max_chars characters of valid UTF-8 s. */
size_t fab_report_text_prefix(const char *s, size_t max_chars, int *cut);
