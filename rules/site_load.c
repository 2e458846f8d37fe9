// SPDX-License-Identifier: MIT
/*
 * Site rule files (docs/site-rules.md): a directory of "*.sql" files, each a
 * header of "-- key: value" comment lines and one SELECT. The header is read
 * strictly (an unknown key, a key set twice, a bad value is an error naming
 * the file and line); a file that is not a valid rule is kept as broken, so
 * that one operator's mistake never stops the other rules.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

#define TEXT_MAX 2000 /* longest title, remediation, rationale */

struct fab_site_rules {
	char *dir;
	struct fab_site_rule *v;
	size_t n;
};

enum key { K_ID, K_SEVERITY, K_TITLE, K_REMEDIATION, K_RATIONALE, K_TIME_LIMIT, K__COUNT };

static const struct {
	const char *name;
	bool required, paragraph; /* paragraph: continuation lines allowed */
} keys[] = {
	[K_ID] = { "id", true, false },
	[K_SEVERITY] = { "severity", true, false },
	[K_TITLE] = { "title", true, false },
	[K_REMEDIATION] = { "remediation", true, true },
	[K_RATIONALE] = { "rationale", false, true },
	[K_TIME_LIMIT] = { "time-limit", false, false },
};
_Static_assert(ARRAY_SIZE(keys) == K__COUNT, "a name per key");

static char *dup_err(void)
{
	return strdup(fab_errmsg());
}

static void free_rule(struct fab_site_rule *r)
{
	free((char *)r->path);
	free((char *)r->id);
	free((char *)r->title);
	free((char *)r->remediation);
	free((char *)r->rationale);
	free((char *)r->text);
	free((char *)r->error);
}

void fab_site_rules_free(struct fab_site_rules *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->n; i++)
		free_rule(&rs->v[i]);
	free(rs->v);
	free(rs->dir);
	free(rs);
}

const char *fab_site_rules_dir(const struct fab_site_rules *rs)
{
	return rs ? rs->dir : NULL;
}

struct fab_site_rule *fab_site_rules_list(struct fab_site_rules *rs, size_t *n_out)
{
	*n_out = rs ? rs->n : 0;
	return rs ? rs->v : NULL;
}

const struct fab_site_rule *fab_site_rules_find(const struct fab_site_rules *rs,
						const char *id)
{
	for (size_t i = 0; rs && i < rs->n; i++)
		if (rs->v[i].status != FAB_SITE_BROKEN && rs->v[i].id && !strcmp(rs->v[i].id, id))
			return &rs->v[i];
	return NULL;
}

/* ---- the header ------------------------------------------------------------ */

struct hdr {
	const char *path;
	unsigned line;
	struct rbuf val[K__COUNT];
	unsigned at[K__COUNT]; /* line that set each key, 0 none */
	int last;              /* key a continuation line extends, -1 none */
};

static int herr(const struct hdr *h, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int herr(const struct hdr *h, unsigned line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_err(-EINVAL, "%s:%u: %s", h->path, line, msg);
}

static const char *known_keys(void)
{
	return "id, severity, title, remediation, rationale, time-limit";
}

/* "site." then lower-case words of letters, digits and '_', joined by '.' */
static bool valid_id(const char *id)
{
	size_t len = strlen(id), pre = strlen(FAB_SITE_ID_PREFIX);

	if (len <= pre || len > FAB_SITE_ID_MAX || strncmp(id, FAB_SITE_ID_PREFIX, pre))
		return false;
	if (strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789_.") != len)
		return false;
	return id[len - 1] != '.' && !strstr(id, "..");
}

/* "2", "0.5", "10s": seconds in (0, FAB_SITE_TIME_MAX]. */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isdigit((unsigned char)*s))
		return -EINVAL;
	if (*end == 's')
		end++;
	if (*end || !(v > 0) || v > FAB_SITE_TIME_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/* One header line: text after "--" (len bytes, no newline). */
static int header_line(struct hdr *h, const char *s, size_t len)
{
	char line[FAB_SITE_FILE_MAX / 16];
	size_t ws = 0;

	if (len >= sizeof(line))
		return herr(h, h->line, "header line longer than %zu bytes", sizeof(line) - 1);
	memcpy(line, s, len);
	line[len] = '\0';
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		line[--len] = '\0';
	while (line[ws] == ' ' || line[ws] == '\t')
		ws++;
	if (!line[ws]) { /* "--" alone: a blank line of the header */
		h->last = -1;
		return 0;
	}
	bool indented = ws >= 2 || line[0] == '\t';
	for (size_t i = 0; i < len; i++) /* values are shown: no tabs */
		if (line[i] == '\t')
			line[i] = ' ';
	/* indented: continues the paragraph above */
	if (indented) {
		if (h->last < 0 || !keys[h->last].paragraph)
			return herr(h, h->line, "an indented header line continues remediation or rationale only; a key is '-- key: value'");
		rbuf_printf(&h->val[h->last], " %s", line + ws);
		return 0;
	}
	char *key = line + ws, *colon = strchr(key, ':');
	size_t klen = colon ? (size_t)(colon - key) : 0;
	if (!colon || !klen || strspn(key, "abcdefghijklmnopqrstuvwxyz-") != klen)
		return herr(h, h->line, "expected '-- key: value' in the header (keys: %s); put other comments after a blank line",
			    known_keys());
	*colon = '\0';
	int k = -1;
	for (int i = 0; i < K__COUNT; i++)
		if (!strcmp(keys[i].name, key))
			k = i;
	if (k < 0)
		return herr(h, h->line, "unknown key '%s' in the header; known: %s", key, known_keys());
	if (h->at[k])
		return herr(h, h->line, "'%s' is set twice (first at line %u); keep one", key, h->at[k]);
	const char *val = colon + 1;
	val += strspn(val, " \t");
	if (!*val)
		return herr(h, h->line, "'%s' has no value", key);
	h->at[k] = h->line;
	h->last = k;
	rbuf_printf(&h->val[k], "%s", val);
	return 0;
}

/* Checks the values; fills r. */
static int header_values(struct hdr *h, struct fab_site_rule *r)
{
	for (int k = 0; k < K__COUNT; k++) {
		if (keys[k].required && !h->at[k])
			return herr(h, 1, "the header has no '-- %s:' line; a rule file starts with -- id:, -- severity:, -- title: and -- remediation: (docs/site-rules.md)",
				    keys[k].name);
		if (h->val[k].nomem)
			return fab_err(-ENOMEM, "out of memory");
		if (h->at[k] && h->val[k].len > TEXT_MAX)
			return herr(h, h->at[k], "'%s' is longer than %d bytes", keys[k].name, TEXT_MAX);
	}
	const char *id = rbuf_str(&h->val[K_ID]);
	if (!valid_id(id))
		return herr(h, h->at[K_ID], "'%s' is not a site rule id: it starts with '%s', then lower-case letters, digits, '_' and '.' (at most %d bytes), like site.edr_host",
			    id, FAB_SITE_ID_PREFIX, FAB_SITE_ID_MAX);
	int sev = fab_severity_parse(rbuf_str(&h->val[K_SEVERITY]));
	if (sev < 0)
		return herr(h, h->at[K_SEVERITY], "severity is error, warning or info, not '%s'",
			    rbuf_str(&h->val[K_SEVERITY]));
	r->time_limit = FAB_SITE_TIME_DEFAULT;
	if (h->at[K_TIME_LIMIT] && parse_seconds(rbuf_str(&h->val[K_TIME_LIMIT]), &r->time_limit))
		return herr(h, h->at[K_TIME_LIMIT], "time-limit is seconds above 0 and at most %g ('5', '0.5'), not '%s'",
			    FAB_SITE_TIME_MAX, rbuf_str(&h->val[K_TIME_LIMIT]));
	r->severity = (uint8_t)sev;
	if (!(r->id = strdup(id)) || !(r->title = strdup(rbuf_str(&h->val[K_TITLE]))) ||
	    !(r->remediation = strdup(rbuf_str(&h->val[K_REMEDIATION]))) ||
	    (h->at[K_RATIONALE] && !(r->rationale = strdup(rbuf_str(&h->val[K_RATIONALE])))))
		return fab_err(-ENOMEM, "out of memory");
	return 0;
}

/*
 * What is shown is what runs: the file is UTF-8 text without control
 * characters (but tab, and CR before LF) and without bidirectional overrides
 * (which make text read differently from what it is, in SQL as anywhere).
 * The sanitizer of node descriptions decides; a line it changes is refused.
 */
static int check_text(struct hdr *h, const char *t, size_t len)
{
	char *in = malloc(len + 1), *out = malloc(4 * len + 1);
	unsigned line = 1;
	int err = 0;

	if (!in || !out) {
		err = fab_err(-ENOMEM, "out of memory");
		goto done;
	}
	for (size_t off = 0; off < len && !err; line++) {
		const char *nl = memchr(t + off, '\n', len - off);
		size_t full = nl ? (size_t)(nl - (t + off)) : len - off, l = full, w;

		memcpy(in, t + off, l);
		if (l && in[l - 1] == '\r')
			l--; /* CRLF */
		for (size_t i = 0; i < l; i++)
			if (in[i] == '\t')
				in[i] = ' ';
		w = fab_text_sanitize((const uint8_t *)in, l, out, 4 * l + 1);
		if (w != l || memcmp(in, out, l)) {
			size_t i = 0;
			while (i < l && i < w && in[i] == out[i])
				i++;
			err = herr(h, line, "byte 0x%02x at column %zu: a rule file is UTF-8 text without control characters or bidirectional overrides",
				   (unsigned char)t[off + i], i + 1);
		}
		off += full + (nl ? 1 : 0);
	}
done:
	free(in);
	free(out);
	return err;
}

/* Reads the header of r->text; sets r->sql and r->sql_line. */
static int parse_text(struct fab_site_rule *r, size_t len)
{
	struct hdr h = { .path = r->path, .last = -1 };
	const char *t = r->text, *p = t;
	int err = 0;

	for (int k = 0; k < K__COUNT; k++)
		rbuf_init(&h.val[k]);
	if ((err = check_text(&h, t, len)))
		goto out;
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3; /* a UTF-8 byte-order mark */
	for (h.line = 1; p < t + len && p[0] == '-' && p[1] == '-'; h.line++) {
		const char *nl = memchr(p, '\n', (size_t)(t + len - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(t + len - p);

		if ((err = header_line(&h, p + 2, l - 2)))
			goto out;
		p += l + (nl ? 1 : 0);
	}
	if ((err = header_values(&h, r)))
		goto out;
	r->sql = p;
	r->sql_line = h.line;
out:
	for (int k = 0; k < K__COUNT; k++)
		rbuf_free(&h.val[k]);
	return err;
}

/* ---- the set -------------------------------------------------------------- */

static int add_rule(struct fab_site_rules *rs, const char *path, struct fab_site_rule **out)
{
	struct fab_site_rule *v = realloc(rs->v, (rs->n + 1) * sizeof(*v));

	if (!v)
		return fab_err(-ENOMEM, "out of memory");
	rs->v = v;
	*out = memset(&v[rs->n], 0, sizeof(*v));
	if (!(v[rs->n].path = strdup(path)))
		return fab_err(-ENOMEM, "out of memory");
	rs->n++;
	return 0;
}

/* A file that is not a valid rule: kept, with why. err < 0, message set. */
static int broken(struct fab_site_rule *r, int err)
{
	if (err == -ENOMEM)
		return err;
	r->status = FAB_SITE_BROKEN;
	r->err = err;
	free((char *)r->error);
	return (r->error = dup_err()) ? 0 : fab_err(-ENOMEM, "out of memory");
}

static int parse_into(struct fab_site_rule *r, const char *text, size_t len)
{
	char *copy = malloc(len + 1);
	int err;

	if (!copy)
		return fab_err(-ENOMEM, "out of memory");
	memcpy(copy, text, len);
	copy[len] = '\0';
	r->text = copy;
	if (memchr(text, '\0', len))
		return broken(r, fab_err(-EINVAL, "%s: a NUL byte: a rule file is text", r->path));
	if ((err = parse_text(r, len)))
		return broken(r, err);
	return 0;
}

/* Two files that define the same id: both are broken (which one is meant?). */
static int mark_duplicates(struct fab_site_rules *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		for (size_t j = i + 1; j < rs->n; j++) {
			struct fab_site_rule *a = &rs->v[i], *b = &rs->v[j];
			int err = 0;

			if (!a->id || !b->id || strcmp(a->id, b->id))
				continue;
			if (a->status != FAB_SITE_BROKEN || a->err != -EEXIST)
				err = broken(a, fab_err(-EEXIST, "%s: rule id '%s' is also defined by %s; ids are unique: rename one",
							a->path, a->id, b->path));
			if (!err)
				err = broken(b, fab_err(-EEXIST, "%s: rule id '%s' is also defined by %s; ids are unique: rename one",
							b->path, b->id, a->path));
			if (err)
				return err;
		}
	return 0;
}

int fab_site_rules_parse(const char *text, size_t len, const char *path,
			 struct fab_site_rules **out)
{
	struct fab_site_rules *rs = calloc(1, sizeof(*rs));
	struct fab_site_rule *r = NULL;
	int err;

	if (!rs)
		return fab_err(-ENOMEM, "out of memory");
	if ((err = add_rule(rs, path, &r)))
		goto fail;
	if (len > FAB_SITE_FILE_MAX)
		err = broken(r, fab_err(-EFBIG, "%s: larger than %d bytes; a rule file is one query",
					path, FAB_SITE_FILE_MAX));
	else
		err = parse_into(r, text, len);
	if (err)
		goto fail;
	*out = rs;
	return 0;
fail:
	fab_site_rules_free(rs);
	return err;
}

static int read_file(struct fab_site_rule *r)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(r->path, "rb");
	int err = 0;

	if (!f)
		return broken(r, fab_err(-errno, "%s: cannot read it: %s", r->path, strerror(errno)));
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		err = broken(r, fab_err(-EINVAL, "%s: not a regular file", r->path));
		goto out;
	}
	if (st.st_size > FAB_SITE_FILE_MAX) {
		err = broken(r, fab_err(-EFBIG, "%s: larger than %d bytes; a rule file is one query",
					r->path, FAB_SITE_FILE_MAX));
		goto out;
	}
	if (!(buf = malloc(FAB_SITE_FILE_MAX + 1))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	len = fread(buf, 1, FAB_SITE_FILE_MAX + 1, f);
	if (ferror(f))
		err = broken(r, fab_err(-EIO, "%s: cannot read it", r->path));
	else if (len > FAB_SITE_FILE_MAX)
		err = broken(r, fab_err(-EFBIG, "%s: larger than %d bytes; a rule file is one query",
					r->path, FAB_SITE_FILE_MAX));
	else
		err = parse_into(r, buf, len);
out:
	free(buf);
	fclose(f);
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_rule_file(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 4 && !strcmp(name + len - 4, ".sql");
}

/* The rule files of dir, sorted; *out and its strings owned by the caller. */
static int list_dir(const char *dir, char ***out, size_t *n_out)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	int err = 0;

	if (!d)
		return fab_err(-errno, "cannot read the site rules directory '%s': %s", dir,
			       strerror(errno));
	if (!(names = calloc(FAB_SITE_FILES_MAX, sizeof(*names)))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	while ((e = readdir(d))) {
		if (!is_rule_file(e->d_name))
			continue;
		if (n == FAB_SITE_FILES_MAX) {
			err = fab_err(-E2BIG, "the site rules directory '%s' has more than %d rule files",
				      dir, FAB_SITE_FILES_MAX);
			goto out;
		}
		if (!(names[n++] = strdup(e->d_name))) {
			err = fab_err(-ENOMEM, "out of memory");
			goto out;
		}
	}
	qsort(names, n, sizeof(*names), cmp_names);
out:
	closedir(d);
	if (err) {
		for (size_t i = 0; names && i < n; i++)
			free(names[i]);
		free(names);
		return err;
	}
	*out = names;
	*n_out = n;
	return 0;
}

int fab_site_rules_load(const char *dir, struct fab_site_rules **out)
{
	struct fab_site_rules *rs = calloc(1, sizeof(*rs));
	struct stat st;
	char **names = NULL, path[4096];
	size_t n = 0;
	int err = 0;

	if (!rs)
		return fab_err(-ENOMEM, "out of memory");
	if (!dir) {
		dir = FAB_SITE_RULES_DIR;
		if (stat(dir, &st) && errno == ENOENT)
			goto done; /* the default directory is optional */
	}
	if (stat(dir, &st)) {
		err = fab_err(-errno, "site rules directory '%s': %s", dir, strerror(errno));
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		err = fab_err(-ENOTDIR, "site rules directory '%s' is not a directory", dir);
		goto fail;
	}
	if (!(rs->dir = strdup(dir))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto fail;
	}
	if ((err = list_dir(dir, &names, &n)))
		goto fail;
	for (size_t i = 0; i < n && !err; i++) {
		struct fab_site_rule *r = NULL;

		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", dir,
				     dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]) >= sizeof(path))
			err = fab_err(-ENAMETOOLONG, "site rule path too long in '%s'", dir);
		else if (!(err = add_rule(rs, path, &r)))
			err = read_file(r);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (err || (err = mark_duplicates(rs)))
		goto fail;
done:
	*out = rs;
	return 0;
fail:
	fab_site_rules_free(rs);
	return err;
}
