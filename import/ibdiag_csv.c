// SPDX-License-Identifier: MIT
/*
 * The ibdiagnet2.db_csv reader: START_<NAME> / header / rows / END_<NAME>
 * sections, comma-separated, fields optionally in double quotes with ""
 * for a quote. One pass over the text, one line at a time; a row's fields
 * are unquoted into one scratch buffer that the next line reuses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/ibdiag.h"
#include "import/ibdiag_priv.h"

struct ibd_reader {
	const char *name;
	size_t line;
	char *scratch; /* unquoted fields of the current line */
	const char *f[IBD_FIELDS_MAX];
	size_t n;
	int col[IBD_COLS_MAX];
};

int ibd_err(struct ibd_reader *r, size_t line, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_err(err, "%s:%zu: %s", r->name, line, msg);
}

/* Splits [p, end) into r->f. Quoted fields may hold commas and "". */
static int split(struct ibd_reader *r, const char *p, const char *end)
{
	char *o = r->scratch;

	r->n = 0;
	for (;;) {
		if (r->n == IBD_FIELDS_MAX)
			return ibd_err(r, r->line, -EINVAL, "more than %d fields", IBD_FIELDS_MAX);
		r->f[r->n++] = o;
		if (p < end && *p == '"') {
			for (p++;; p++) {
				if (p == end)
					return ibd_err(r, r->line, -EINVAL, "a quoted field is not closed");
				if (*p == '"' && p + 1 < end && p[1] == '"')
					*o++ = *p++;
				else if (*p == '"')
					break;
				else
					*o++ = *p;
			}
			p++;
			if (p < end && *p != ',')
				return ibd_err(r, r->line, -EINVAL, "text after a closing quote");
		} else {
			while (p < end && *p != ',')
				*o++ = *p++;
		}
		*o++ = '\0';
		if (p == end)
			return 0;
		p++; /* the comma */
	}
}

/* The columns sec asks for, found by name in the header now in r->f. */
static int map_header(struct ibd_reader *r, const struct ibd_section *sec)
{
	for (size_t k = 0; k < sec->n_cols; k++) {
		r->col[k] = -1;
		for (size_t i = 0; i < r->n; i++)
			/* (ibdiagnet pads some names with a blank: " max_retransmission_rate") */
			if (!strcmp(r->f[i] + strspn(r->f[i], " "), sec->cols[k])) {
				r->col[k] = (int)i;
				break;
			}
		if (r->col[k] < 0 && (sec->required & (1u << k)))
			return ibd_err(r, r->line, -EINVAL, "section %s has no column %s", sec->name,
				       sec->cols[k]);
	}
	return 0;
}

static void add_skipped(char *skipped, size_t cap, const char *name, size_t len)
{
	size_t have = strlen(skipped);

	if (have + len + 3 < cap)
		snprintf(skipped + have, cap - have, "%s%.*s", have ? ", " : "", (int)len, name);
}

int ibd_read(const char *text, size_t len, const char *name, const struct ibd_section *secs,
	     size_t n_secs, void *ctx, char *skipped, size_t cap)
{
	struct ibd_reader r = { .name = name };
	const char *p = text, *end = text + len;
	const struct ibd_section *sec = NULL;
	char sname[128] = "";
	size_t started = 0, ncols = 0, at = 0;
	bool in = false, header = false;
	int err = 0;

	skipped[0] = '\0';
	if (!(r.scratch = malloc(FAB_IBDIAG_LINE_MAX + 1)))
		return fab_err(-ENOMEM, "%s: out of memory", name);
	for (const char *next; p < end && !err; p = next) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;

		next = nl ? nl + 1 : end;
		r.line = ++at;
		if (le > p && le[-1] == '\r')
			le--;
		if (le - p > FAB_IBDIAG_LINE_MAX) {
			err = ibd_err(&r, at, -EINVAL, "line longer than %d bytes: not ibdiagnet2.db_csv",
				      FAB_IBDIAG_LINE_MAX);
			break;
		}
		size_t ll = (size_t)(le - p);
		if (memchr(p, '\0', ll)) {
			err = ibd_err(&r, at, -EINVAL, "a NUL byte: not ibdiagnet2.db_csv");
			break;
		}
		if (!in) {
			if (ll && *p != '#' && strspn(p, " \t") < ll) {
				if (ll < 7 || memcmp(p, "START_", 6) || ll - 6 >= sizeof(sname)) {
					err = ibd_err(&r, at, -EINVAL, "expected START_<SECTION>: not ibdiagnet2.db_csv");
					break;
				}
				memcpy(sname, p + 6, ll - 6);
				sname[ll - 6] = '\0';
				sec = NULL;
				for (size_t i = 0; i < n_secs; i++)
					if (!strcmp(secs[i].name, sname))
						sec = &secs[i];
				if (!sec)
					add_skipped(skipped, cap, sname, ll - 6);
				in = header = true;
				started = at;
			}
		} else if (ll > 4 && !memcmp(p, "END_", 4)) {
			if (ll - 4 != strlen(sname) || memcmp(p + 4, sname, ll - 4)) {
				err = ibd_err(&r, at, -EINVAL, "END_%.*s inside section %s (started at line %zu)",
					      (int)(ll - 4 > 64 ? 64 : ll - 4), p + 4, sname, started);
				break;
			}
			in = false;
		} else if (sec) {
			if ((err = split(&r, p, le)))
				break;
			if (header) {
				err = map_header(&r, sec);
				ncols = r.n;
				header = false;
			} else if (r.n != ncols) {
				err = ibd_err(&r, at, -EINVAL, "%zu fields where the %s header has %zu",
					      r.n, sec->name, ncols);
			} else {
				struct ibd_row row = { .f = r.f, .n = r.n, .col = r.col,
						       .names = sec->cols, .line = at };
				err = sec->row(ctx, &r, &row);
			}
		} else {
			header = false; /* a section we skip: its rows are not looked at */
		}
	}
	if (!err && in)
		err = ibd_err(&r, started, -EINVAL, "section %s has no END_%s", sname, sname);
	free(r.scratch);
	return err;
}

const char *ibd_text(const struct ibd_row *row, size_t k)
{
	return row->col[k] < 0 ? NULL : row->f[row->col[k]];
}

int ibd_u64(struct ibd_reader *r, const struct ibd_row *row, size_t k, uint64_t *out)
{
	const char *s = ibd_text(row, k);
	char *e;

	if (!s || !strcmp(s, "N/A"))
		return 1;
	errno = 0;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long v = strtoull(hex ? s + 2 : s, &e, hex ? 16 : 10);
	if (!*s || *s == '-' || *s == '+' || *s == ' ' || e == (hex ? s + 2 : s) || *e || errno)
		return ibd_err(r, row->line, -EINVAL, "%s '%.40s' is not a number", row->names[k], s);
	*out = v;
	return 0;
}
