// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "htmlw.h"

void fab_hw_init(struct fab_hw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

int fab_hw_finish(struct fab_hw *w)
{
	fab_report_text_free(&w->clean);
	if (!w->err && ferror(w->f))
		w->err = -EIO;
	return w->err;
}

static void put(struct fab_hw *w, const char *s, size_t len)
{
	if (w->err || !len)
		return;
	if (fwrite(s, 1, len, w->f) != len)
		w->err = errno ? -errno : -EIO;
}

void fab_hw_raw(struct fab_hw *w, const char *markup)
{
	put(w, markup, strlen(markup));
}

void fab_hw_fmt(struct fab_hw *w, const char *fmt, ...)
{
	va_list ap;

	if (w->err)
		return;
	va_start(ap, fmt);
	if (vfprintf(w->f, fmt, ap) < 0)
		w->err = -EIO;
	va_end(ap);
}

void fab_hw_u64(struct fab_hw *w, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(w, p, (size_t)(buf + sizeof(buf) - p));
}

/* The escaping, for text and quoted attribute values alike. */
static void escape(struct fab_hw *w, const char *s, size_t len)
{
	size_t run = 0;

	for (size_t i = 0; i < len; i++) {
		const char *rep;

		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: continue;
		}
		put(w, s + run, i - run);
		put(w, rep, strlen(rep));
		run = i + 1;
	}
	put(w, s + run, len - run);
}

void fab_hw_text_cut(struct fab_hw *w, const char *s, size_t max_chars)
{
	int cut = 0;

	s = fab_report_text_clean(&w->clean, s);
	if (!s)
		return;
	size_t len = max_chars ? fab_report_text_prefix(s, max_chars, &cut) : strlen(s);
	escape(w, s, len);
	if (cut)
		put(w, "\xe2\x80\xa6", 3); /* U+2026 */
}

void fab_hw_text(struct fab_hw *w, const char *s)
{
	fab_hw_text_cut(w, s, 0);
}
