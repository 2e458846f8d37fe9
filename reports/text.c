// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "text.h"

static int grow(struct fab_report_text *t, size_t need)
{
	if (need <= t->cap)
		return 0;
	size_t cap = t->cap ? t->cap : 256;
	while (cap < need)
		cap *= 2;
	char *p = realloc(t->buf, cap);
	if (!p)
		return -1;
	t->buf = p;
	t->cap = cap;
	return 0;
}

const char *fab_report_text_clean(struct fab_report_text *t, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	if (!s)
		return NULL;
	for (len = 0; p[len]; len++)
		if (p[len] < 0x20 || p[len] >= 0x7f)
			goto slow;
	if (len <= FAB_REPORT_TEXT_CAP)
		return s;
slow:
	len += strlen(s + len);
	if (len > FAB_REPORT_TEXT_CAP)
		len = FAB_REPORT_TEXT_CAP;
	/* every byte may become "\xNN"; three more for the non-characters */
	if (grow(t, len * 4 + 1))
		return "";
	size_t n = fab_text_sanitize(p, len, t->buf, t->cap);
	/* U+FFFE and U+FFFF are valid UTF-8 but not XML characters */
	char *q = t->buf;
	while ((q = memmem(q, n - (size_t)(q - t->buf), "\xef\xbf", 2))) {
		size_t at = (size_t)(q - t->buf);
		if (at + 2 < n && ((unsigned char)q[2] == 0xbe || (unsigned char)q[2] == 0xbf)) {
			if (grow(t, n + 10))
				return "";
			q = t->buf + at;
			static const char hex[] = "0123456789abcdef";
			unsigned char last = (unsigned char)q[2];
			memmove(q + 12, q + 3, n - at - 3 + 1);
			memcpy(q, "\\xef\\xbf\\x", 10);
			q[10] = hex[last >> 4];
			q[11] = hex[last & 15];
			n += 9;
			q += 12;
		} else {
			q += 2;
		}
	}
	return t->buf;
}

void fab_report_text_free(struct fab_report_text *t)
{
	free(t->buf);
	t->buf = NULL;
	t->cap = 0;
}

size_t fab_report_text_prefix(const char *s, size_t max_chars, int *cut)
{
	size_t i = 0, chars = 0;

	*cut = 0;
	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (chars == max_chars) {
			*cut = 1;
			return i;
		}
		chars++;
	}
	return i;
}
