// SPDX-License-Identifier: MIT
/*
 * M_Key parsing and lookup. The parser is strict (house style 19) and its
 * messages never quote the line: it holds a secret.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "readfile.h"

struct mkey_entry {
	uint64_t guid, key;
	uint32_t line;
};

struct fab_mkeys {
	struct mkey_entry *v;
	size_t n, cap;
	uint64_t fallback;
	bool have_fallback;
};

/*
 * 1 to 16 hex digits, "0x" optional (fab_guid_parse() on a bounded copy:
 * the token is not NUL-terminated). The copy is wiped: it may be a key.
 */
static int parse_hex(const char *s, size_t len, uint64_t *out)
{
	char buf[24];
	int err;

	if (len < 1 || len > 18 || memchr(s, '\0', len))
		return -EINVAL; /* a NUL would end fab_guid_parse() early */
	memcpy(buf, s, len);
	buf[len] = '\0';
	err = fab_guid_parse(buf, out);
	explicit_bzero(buf, sizeof(buf));
	return err;
}

int fab_mkey_parse(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !len)
		return -EINVAL;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return len > 18 || memchr(s + 2, 'x', len - 2) || memchr(s + 2, 'X', len - 2)
			       ? -EINVAL : parse_hex(s, len, out);
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

struct fab_mkeys *fab_mkeys_new(void)
{
	return calloc(1, sizeof(struct fab_mkeys));
}

void fab_mkeys_free(struct fab_mkeys *k)
{
	if (!k)
		return;
	/* The keys are secrets: do not leave them in freed memory. */
	if (k->v)
		explicit_bzero(k->v, k->cap * sizeof(*k->v));
	free(k->v);
	explicit_bzero(k, sizeof(*k));
	free(k);
}

void fab_mkeys_set_default(struct fab_mkeys *k, uint64_t key)
{
	k->fallback = key;
	k->have_fallback = true;
}

size_t fab_mkeys_count(const struct fab_mkeys *k)
{
	return k ? k->n : 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct mkey_entry *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static const struct mkey_entry *find(const struct fab_mkeys *k, uint64_t guid)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->n && k->v[lo].guid == guid ? &k->v[lo] : NULL;
}

uint64_t fab_mkeys_lookup(const struct fab_mkeys *k, uint64_t port_guid,
			  uint64_t node_guid)
{
	const struct mkey_entry *e = NULL;

	if (!k)
		return 0;
	if (port_guid)
		e = find(k, port_guid);
	if (!e && node_guid)
		e = find(k, node_guid);
	return e ? e->key : k->have_fallback ? k->fallback : 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next blank-separated token of s[*pos..len). */
static size_t token(const char *s, size_t len, size_t *pos, const char **out)
{
	size_t i = *pos, start;

	while (i < len && is_blank(s[i]))
		i++;
	start = i;
	while (i < len && !is_blank(s[i]))
		i++;
	*pos = i;
	*out = s + start;
	return i - start;
}

#define LINE_ERR(code, fmt, ...) \
	fab_err(code, "%s:%u: " fmt, name, line, ##__VA_ARGS__)

/* One line (without its newline): 0 (nothing), 1 (*out set) or an error. */
static int parse_line(const char *s, size_t len, const char *name,
		      unsigned line, struct mkey_entry *out)
{
	const char *tok;
	size_t pos = 0, n;
	uint64_t guid, key;

	for (size_t i = 0; i < len; i++)
		if (s[i] == '#') {
			len = i;
			break;
		}
	n = token(s, len, &pos, &tok);
	if (!n)
		return 0;
	if (parse_hex(tok, n, &guid) || !guid)
		return LINE_ERR(-EINVAL, "the GUID is not a non-zero 64-bit hex number "
				"(\"<GUID> <M_Key>\" expected)");
	n = token(s, len, &pos, &tok);
	if (!n)
		return LINE_ERR(-EINVAL, "no M_Key after the GUID (\"<GUID> <M_Key>\" expected)");
	if (fab_mkey_parse(tok, n, &key))
		return LINE_ERR(-EINVAL, "the M_Key is not a 64-bit number (0x and up to "
				"16 hex digits, or decimal; the value is not shown)");
	n = token(s, len, &pos, &tok);
	if (n)
		return LINE_ERR(-EINVAL, "unexpected text after the M_Key (\"<GUID> <M_Key>\" expected)");
	*out = (struct mkey_entry){ .guid = guid, .key = key, .line = line };
	return 1;
}

int fab_mkeys_parse(struct fab_mkeys *k, const char *text, size_t len,
		    const char *name)
{
	struct mkey_entry *v = NULL, e;
	size_t n = 0, cap = 0, pos = 0;
	unsigned line = 0;
	int err = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - (text + pos)) : len - pos;

		line++;
		if (memchr(text + pos, '\0', llen)) {
			err = LINE_ERR(-EINVAL, "NUL byte in the line");
			goto out;
		}
		if (llen > FAB_MKEY_FILE_LINE_MAX) {
			err = LINE_ERR(-EINVAL, "line longer than %d bytes",
				       FAB_MKEY_FILE_LINE_MAX);
			goto out;
		}
		err = parse_line(text + pos, llen, name, line, &e);
		if (err < 0)
			goto out;
		pos += llen + (nl != NULL);
		if (!err)
			continue;
		err = 0;
		if (k->n + n >= FAB_MKEY_FILE_MAX_ENTRIES) {
			err = LINE_ERR(-E2BIG, "more than %u entries",
				       FAB_MKEY_FILE_MAX_ENTRIES);
			goto out;
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct mkey_entry *p = calloc(nc, sizeof(*p));
			if (!p) {
				err = fab_err(-ENOMEM, "out of memory reading '%s'", name);
				goto out;
			}
			if (v) {
				memcpy(p, v, n * sizeof(*v));
				explicit_bzero(v, cap * sizeof(*v));
				free(v);
			}
			v = p;
			cap = nc;
		}
		v[n++] = e;
	}
	/* Merge with what is there, sorted, and refuse a GUID listed twice. */
	size_t total = k->n + n;
	struct mkey_entry *all = calloc(total ? total : 1, sizeof(*all));
	if (!all) {
		err = fab_err(-ENOMEM, "out of memory reading '%s'", name);
		goto out;
	}
	if (k->n)
		memcpy(all, k->v, k->n * sizeof(*all));
	if (n)
		memcpy(all + k->n, v, n * sizeof(*all));
	qsort(all, total, sizeof(*all), cmp_entry);
	for (size_t i = 1; i < total; i++) {
		if (all[i].guid == all[i - 1].guid) {
			line = all[i].line;
			err = LINE_ERR(-EINVAL, "GUID listed twice (also on line %u)",
				       all[i - 1].line);
			explicit_bzero(all, total * sizeof(*all));
			free(all);
			goto out;
		}
	}
	if (k->v) {
		explicit_bzero(k->v, k->cap * sizeof(*k->v));
		free(k->v);
	}
	k->v = all;
	k->n = k->cap = total;
out:
	if (v) {
		explicit_bzero(v, cap * sizeof(*v));
		free(v);
	}
	explicit_bzero(&e, sizeof(e));
	return err;
}

int fab_mkeys_load(struct fab_mkeys *k, const char *path, bool *out_loose)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int err;

	err = fab_read_small_file(path, "M_Key file", (size_t)FAB_MKEY_FILE_MAX_ENTRIES * 64,
				  &buf, &len);
	if (err)
		return err;
	err = fab_mkeys_parse(k, buf, len, path);
	if (!err && out_loose)
		*out_loose = stat(path, &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO));
	explicit_bzero(buf, len);
	free(buf);
	return err;
}

int fab_mkeys_from_options(const char *opt_key, const char *env_key,
			   const char *file, struct fab_mkeys **out,
			   bool *out_loose)
{
	const char *text = opt_key ? opt_key : env_key;
	const char *what = opt_key ? "--m-key" : "FABSWEEP_MKEY";
	struct fab_mkeys *k;
	uint64_t key;
	int err;

	*out = NULL;
	if (out_loose)
		*out_loose = false;
	if (!text && !file)
		return 0;
	if (text && fab_mkey_parse(text, strlen(text), &key))
		return fab_err(-EINVAL, "%s takes a 64-bit M_Key: 0x and 1 to 16 hex "
			       "digits, or a decimal number (the value given is not "
			       "shown)", what);
	k = fab_mkeys_new();
	if (!k)
		return fab_err(-ENOMEM, "out of memory");
	if (text)
		fab_mkeys_set_default(k, key);
	explicit_bzero(&key, sizeof(key));
	if (file && (err = fab_mkeys_load(k, file, out_loose))) {
		fab_mkeys_free(k);
		return err;
	}
	*out = k;
	return 0;
}
