// SPDX-License-Identifier: MIT
/*
 * Slurm host-list expressions, expanded with a hard cap. Each element of a
 * list (separated by a comma, blanks, or both, as Slurm separates them) is
 * parsed into literal and bracket segments first; its size and longest name
 * are computed from the ranges before a single host is written.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h" /* fab_array_grow */
#include "readfile.h"

#define NUM_DIGITS_MAX 18 /* fits uint64_t with room to spare */

struct fab_hostlist {
	char *pool; /* NUL-terminated names back to back */
	size_t pool_len, pool_cap;
	size_t *off; /* host i starts at pool + off[i] */
	size_t n, cap;
};

struct range {
	uint64_t lo, hi;
	unsigned width; /* zero padding (digits of the lower bound), 0: none */
};

struct seg {
	bool bracket;
	size_t start, len;       /* literal: bytes of the expression */
	size_t r_first, r_count; /* bracket: its ranges */
};

/* Scratch space for one expression, sized by its length. */
struct parse {
	const char *s;
	size_t len;
	struct seg *segs;
	struct range *ranges;
	size_t n_segs, n_ranges;
	/* error: message and 1-based column within s */
	char msg[160];
	size_t col;
};

int fab_hostlist_new(struct fab_hostlist **out)
{
	struct fab_hostlist *hl = calloc(1, sizeof(*hl));

	if (!hl)
		return fab_err(-ENOMEM, "out of memory");
	*out = hl;
	return 0;
}

void fab_hostlist_free(struct fab_hostlist *hl)
{
	if (!hl)
		return;
	free(hl->pool);
	free(hl->off);
	free(hl);
}

size_t fab_hostlist_count(const struct fab_hostlist *hl)
{
	return hl ? hl->n : 0;
}

const char *fab_hostlist_get(const struct fab_hostlist *hl, size_t i)
{
	return hl && i < hl->n ? hl->pool + hl->off[i] : NULL;
}

static int append(struct fab_hostlist *hl, const char *name, size_t len)
{
	if (hl->pool_len + len + 1 > hl->pool_cap) {
		size_t ncap = hl->pool_cap ? hl->pool_cap : 1024;
		while (ncap < hl->pool_len + len + 1)
			ncap *= 2;
		char *p = realloc(hl->pool, ncap);
		if (!p)
			return -ENOMEM;
		hl->pool = p;
		hl->pool_cap = ncap;
	}
	size_t *off = fab_array_grow((void **)&hl->off, &hl->n, &hl->cap, sizeof(*off));
	if (!off)
		return -ENOMEM;
	*off = hl->pool_len;
	memcpy(hl->pool + hl->pool_len, name, len);
	hl->pool[hl->pool_len + len] = '\0';
	hl->pool_len += len + 1;
	return 0;
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/* Separates elements like ',': Slurm splits at "\t, "; newlines and CRs
 * too, for lists pasted from files. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_blanks(const struct parse *p, size_t i)
{
	while (i < p->len && is_blank(p->s[i]))
		i++;
	return i;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static unsigned digits_of(uint64_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* Records an error at byte offset pos; returns -EINVAL. */
__attribute__((format(printf, 3, 4)))
static int perr(struct parse *p, size_t pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	p->col = pos + 1;
	return -EINVAL;
}

/* Describes the byte at pos for a message: 'x' or \xNN. */
static const char *show_char(const struct parse *p, size_t pos, char buf[8])
{
	unsigned char c = (unsigned char)p->s[pos];

	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "\\x%02x", c);
	return buf;
}

/* Parses a number at *pos: digits, at most NUM_DIGITS_MAX of them. */
static int parse_num(struct parse *p, size_t *pos, uint64_t *v, size_t *ndig)
{
	size_t i = *pos;
	uint64_t x = 0;

	while (i < p->len && is_digit(p->s[i])) {
		if (i - *pos == NUM_DIGITS_MAX)
			return perr(p, *pos, "number longer than %d digits", NUM_DIGITS_MAX);
		x = x * 10 + (uint64_t)(p->s[i] - '0');
		i++;
	}
	if (i == *pos) {
		char b[8];
		if (i == p->len)
			return perr(p, i, "expected a number before the end");
		return perr(p, i, "expected a number, found %s", show_char(p, i, b));
	}
	*ndig = i - *pos;
	*v = x;
	*pos = i;
	return 0;
}

/* Parses `[r,r-r,...]` starting at the '[' at *pos into a bracket segment. */
static int parse_bracket(struct parse *p, size_t *pos, struct seg *sg)
{
	size_t i = *pos + 1, open = *pos;
	char b[8];
	int err;

	sg->bracket = true;
	sg->r_first = p->n_ranges;
	sg->r_count = 0;
	for (;;) {
		struct range r;
		size_t at = i, dlo, dhi;

		if ((err = parse_num(p, &i, &r.lo, &dlo)))
			return err;
		r.hi = r.lo;
		r.width = dlo > 1 && p->s[at] == '0' ? (unsigned)dlo : 0;
		if (i < p->len && p->s[i] == '-') {
			size_t hat = ++i;
			if ((err = parse_num(p, &i, &r.hi, &dhi)))
				return err;
			if (dhi > 1 && p->s[hat] == '0' && dhi != dlo)
				return perr(p, hat, "zero padding of %.*s does not match %.*s",
					    (int)dhi, p->s + hat, (int)dlo, p->s + at);
			if (r.hi < r.lo)
				return perr(p, at, "range %.*s-%.*s goes down", (int)dlo,
					    p->s + at, (int)dhi, p->s + hat);
		}
		p->ranges[p->n_ranges++] = r;
		sg->r_count++;
		if (i == p->len)
			return perr(p, open, "'[' is never closed");
		if (p->s[i] == ']')
			break;
		if (p->s[i] != ',')
			return perr(p, i, "expected ',', '-' or ']' in brackets, found %s",
				    show_char(p, i, b));
		i++;
	}
	*pos = i + 1;
	return 0;
}

/*
 * Parses one element (up to a top-level ',', a blank or the end) starting at *pos into
 * p->segs; computes its host count (capped by room) and longest name.
 */
static int parse_elem(struct parse *p, size_t *pos, size_t room, size_t *count)
{
	size_t i = *pos, maxlen = 0;
	uint64_t total = 1;
	char b[8];
	int err;

	p->n_segs = 0;
	p->n_ranges = 0;
	if (i == p->len || p->s[i] == ',')
		return perr(p, i, "empty element");
	if (p->s[i] == '-' || p->s[i] == '.')
		return perr(p, i, "host names cannot start with %s", show_char(p, i, b));
	while (i < p->len && p->s[i] != ',' && !is_blank(p->s[i])) {
		struct seg *sg = &p->segs[p->n_segs++];

		if (is_name_char(p->s[i])) {
			sg->bracket = false;
			sg->start = i;
			while (i < p->len && is_name_char(p->s[i]))
				i++;
			sg->len = i - sg->start;
			maxlen += sg->len;
		} else if (p->s[i] == '[') {
			sg->start = i;
			if ((err = parse_bracket(p, &i, sg)))
				return err;
			uint64_t n = 0;
			unsigned w = 0;
			for (size_t r = sg->r_first; r < sg->r_first + sg->r_count; r++) {
				const struct range *rg = &p->ranges[r];
				unsigned d = digits_of(rg->hi);
				n += rg->hi - rg->lo + 1;
				if (n > FAB_HOSTLIST_MAX)
					return -E2BIG;
				if (d < rg->width)
					d = rg->width;
				if (d > w)
					w = d;
			}
			maxlen += w;
			total *= n; /* both <= FAB_HOSTLIST_MAX: no overflow */
			if (total > room)
				return -E2BIG;
		} else if (p->s[i] == ']') {
			return perr(p, i, "']' without '['");
		} else {
			return perr(p, i, "unexpected character %s", show_char(p, i, b));
		}
		if (maxlen > FAB_HOST_NAME_MAX)
			return perr(p, *pos, "host names longer than %d bytes", FAB_HOST_NAME_MAX);
	}
	if (total > room)
		return -E2BIG;
	*count = (size_t)total;
	*pos = i;
	return 0;
}

/* Writes every host of the parsed element, first bracket varying slowest. */
static int expand_elem(struct fab_hostlist *hl, const struct parse *p)
{
	/* parse_elem() bounds n_segs: each segment adds a byte to a name. */
	size_t ri[FAB_HOST_NAME_MAX + 1];   /* current range per bracket */
	uint64_t val[FAB_HOST_NAME_MAX + 1]; /* current value per bracket */
	char name[FAB_HOST_NAME_MAX + 1];

	for (size_t k = 0; k < p->n_segs; k++)
		if (p->segs[k].bracket) {
			ri[k] = 0;
			val[k] = p->ranges[p->segs[k].r_first].lo;
		}
	for (;;) {
		size_t len = 0;
		for (size_t k = 0; k < p->n_segs; k++) {
			const struct seg *sg = &p->segs[k];
			if (!sg->bracket) {
				memcpy(name + len, p->s + sg->start, sg->len);
				len += sg->len;
			} else {
				const struct range *rg = &p->ranges[sg->r_first + ri[k]];
				len += (size_t)snprintf(name + len, sizeof(name) - len, "%0*llu",
							(int)rg->width, (unsigned long long)val[k]);
			}
		}
		if (append(hl, name, len))
			return -ENOMEM;
		/* odometer: the last bracket turns fastest */
		size_t k = p->n_segs;
		for (;;) {
			if (k == 0)
				return 0;
			k--;
			const struct seg *sg = &p->segs[k];
			if (!sg->bracket)
				continue;
			const struct range *rg = &p->ranges[sg->r_first + ri[k]];
			if (val[k] < rg->hi) {
				val[k]++;
				break;
			}
			if (ri[k] + 1 < sg->r_count) {
				ri[k]++;
				val[k] = p->ranges[sg->r_first + ri[k]].lo;
				break;
			}
			ri[k] = 0;
			val[k] = p->ranges[sg->r_first].lo;
		}
	}
}

/*
 * Parses and expands s[0..len). On a syntax error returns -EINVAL with p->msg
 * and p->col set; -E2BIG or -ENOMEM without a message. The caller rolls back.
 */
static int parse_expr(struct fab_hostlist *hl, struct parse *p, const char *s,
		      size_t len)
{
	size_t pos = 0, count;
	int err = 0;

	p->s = s;
	p->len = len;
	p->msg[0] = '\0';
	p->col = 0;
	if (len > FAB_HOSTLIST_EXPR_MAX)
		return perr(p, FAB_HOSTLIST_EXPR_MAX, "longer than %d bytes",
			    FAB_HOSTLIST_EXPR_MAX);
	const char *nul = memchr(s, '\0', len);
	if (nul)
		return perr(p, (size_t)(nul - s), "NUL byte");
	/* Worst cases: every byte a segment, every two bytes a range. */
	p->segs = malloc((len + 1) * sizeof(*p->segs));
	p->ranges = malloc((len / 2 + 1) * sizeof(*p->ranges));
	if (!p->segs || !p->ranges) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * Elements are separated by a comma, blanks, or a comma with blanks
	 * around it; blanks may lead and trail. Two commas are an empty
	 * element, a comma at the end a trailing one: both errors, where
	 * Slurm skips any run of separators (an empty element is usually a
	 * shell variable that expanded to nothing).
	 */
	if ((pos = skip_blanks(p, 0)) == len) {
		err = perr(p, 0, "empty host list");
		goto out;
	}
	for (;;) {
		if ((err = parse_elem(p, &pos, FAB_HOSTLIST_MAX - hl->n, &count)))
			break;
		if ((err = expand_elem(hl, p)))
			break;
		if ((pos = skip_blanks(p, pos)) == len)
			break;
		if (p->s[pos] == ',') {
			size_t comma = pos;
			if ((pos = skip_blanks(p, pos + 1)) == len) {
				err = perr(p, comma, "trailing ','");
				break;
			}
		}
	}
out:
	free(p->segs);
	free(p->ranges);
	p->segs = NULL;
	p->ranges = NULL;
	return err;
}

static void rollback(struct fab_hostlist *hl, size_t n)
{
	if (hl->n > n) {
		hl->pool_len = hl->off[n];
		hl->n = n;
	}
}

/* Quotes an expression for a message: sanitized, cut at 60 bytes. */
static void quote_expr(const char *s, size_t len, char *buf, size_t cap)
{
	size_t cut = len > 60 ? 60 : len;
	size_t w = fab_text_sanitize((const uint8_t *)s, cut, buf, cap);

	if (cut < len && w + 4 < cap)
		memcpy(buf + w, "...", 4);
}

int fab_hostlist_add(struct fab_hostlist *hl, const char *expr, size_t len)
{
	struct parse p = { 0 };
	size_t n0 = hl->n;
	char q[256];
	int err;

	if (len == SIZE_MAX)
		len = strlen(expr);
	err = parse_expr(hl, &p, expr, len);
	if (!err)
		return 0;
	rollback(hl, n0);
	quote_expr(expr, len, q, sizeof(q));
	if (err == -EINVAL)
		return fab_err(err, "host list '%s': column %zu: %s", q, p.col, p.msg);
	if (err == -E2BIG)
		return fab_err(err, "host list '%s' expands to more than %d hosts",
			       q, FAB_HOSTLIST_MAX);
	return fab_err(err, "out of memory expanding host list '%s'", q);
}

int fab_hostlist_add_text(struct fab_hostlist *hl, const char *text, size_t len,
			  const char *name)
{
	size_t n0 = hl->n;
	unsigned line = 0;
	int err = 0;

	if (!name)
		name = "host file";
	if (len > FAB_HOSTFILE_MAX)
		return fab_err(-E2BIG, "%s: larger than %u bytes", name, FAB_HOSTFILE_MAX);
	for (size_t pos = 0; pos < len && !err;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *s = text + pos;
		size_t a = 0, b = end - pos;
		struct parse p = { 0 };

		line++;
		pos = end + 1;
		const char *nul = memchr(s, '\0', b);
		if (nul) {
			err = fab_err(-EINVAL, "%s:%u: column %zu: NUL byte", name, line,
				      (size_t)(nul - s) + 1);
			break;
		}
		const char *hash = memchr(s, '#', b);
		if (hash)
			b = (size_t)(hash - s);
		while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
			b--;
		while (a < b && (s[a] == ' ' || s[a] == '\t'))
			a++;
		if (a == b)
			continue;
		err = parse_expr(hl, &p, s + a, b - a);
		if (err == -EINVAL)
			err = fab_err(err, "%s:%u: column %zu: %s", name, line, a + p.col, p.msg);
		else if (err == -E2BIG)
			err = fab_err(err, "%s:%u: more than %d hosts in all", name, line,
				      FAB_HOSTLIST_MAX);
		else if (err)
			err = fab_err(err, "out of memory reading '%s'", name);
	}
	if (err)
		rollback(hl, n0);
	return err;
}

int fab_hostlist_add_file(struct fab_hostlist *hl, const char *path)
{
	char *buf;
	size_t len;
	int err = fab_read_small_file(path, "host file", FAB_HOSTFILE_MAX, &buf, &len);

	if (err)
		return err;
	err = fab_hostlist_add_text(hl, buf, len, path);
	free(buf);
	return err;
}

int fab_hostlist_add_env(struct fab_hostlist *hl, const char *var)
{
	const char *v = getenv(var);

	if (!v || !*v)
		return fab_err(-ENOENT, "environment variable %s is not set; "
			       "pass the hosts on the command line", var);
	return fab_hostlist_add(hl, v, SIZE_MAX);
}
