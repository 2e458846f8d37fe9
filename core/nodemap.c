// SPDX-License-Identifier: MIT
/*
 * The node-name-map parser: strict and bounded. Every line either is blank,
 * a comment, or exactly `0xGUID "name"` with an optional trailing comment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "readfile.h"

struct nm_entry {
	uint64_t guid;
	uint32_t name_off; /* into names */
	uint32_t line;
};

struct fab_nodemap {
	struct nm_entry *e;
	size_t n, cap;
	char *names; /* NUL-terminated names, back to back */
	size_t names_len, names_cap;
};

void fab_nodemap_free(struct fab_nodemap *map)
{
	if (!map)
		return;
	free(map->e);
	free(map->names);
	free(map);
}

size_t fab_nodemap_count(const struct fab_nodemap *map)
{
	return map ? map->n : 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int add_entry(struct fab_nodemap *m, uint64_t guid, const char *name,
		     size_t len, uint32_t line)
{
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct nm_entry *e = realloc(m->e, ncap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->e = e;
		m->cap = ncap;
	}
	if (m->names_len + len + 1 > m->names_cap) {
		size_t ncap = m->names_cap ? m->names_cap : 1024;
		while (ncap < m->names_len + len + 1)
			ncap *= 2;
		char *p = realloc(m->names, ncap);
		if (!p)
			return -ENOMEM;
		m->names = p;
		m->names_cap = ncap;
	}
	memcpy(m->names + m->names_len, name, len);
	m->names[m->names_len + len] = '\0';
	m->e[m->n++] = (struct nm_entry){ .guid = guid,
					  .name_off = (uint32_t)m->names_len,
					  .line = line };
	m->names_len += len + 1;
	return 0;
}

#define LINE_ERR(fmt, ...) \
	fab_err(-EINVAL, "%s:%u: " fmt, name, line, ##__VA_ARGS__)

/* Parses one line (without its newline). 0, or an error with the message set. */
static int parse_line(struct fab_nodemap *m, const char *s, size_t len,
		      const char *name, unsigned line)
{
	size_t i = 0, digits = 0;
	uint64_t guid = 0;

	while (i < len && is_blank(s[i]))
		i++;
	if (i == len || s[i] == '#')
		return 0;
	if (!(len - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')))
		return LINE_ERR("expected a GUID like 0x0002c90300a1b2c3 at column %zu", i + 1);
	i += 2;
	for (; i < len && hexval(s[i]) >= 0; i++, digits++) {
		if (digits == 16)
			return LINE_ERR("GUID longer than 16 hex digits");
		guid = guid << 4 | (uint64_t)hexval(s[i]);
	}
	if (!digits)
		return LINE_ERR("GUID has no hex digits");
	if (i < len && !is_blank(s[i]))
		return LINE_ERR("unexpected character after the GUID at column %zu; "
				"separate GUID and \"name\" with blanks", i + 1);
	if (!guid)
		return LINE_ERR("GUID 0 is not a node GUID");
	while (i < len && is_blank(s[i]))
		i++;
	if (i == len || s[i] != '"')
		return LINE_ERR("expected a name in double quotes after the GUID");
	size_t start = ++i;
	while (i < len && s[i] != '"')
		i++;
	if (i == len)
		return LINE_ERR("name has no closing double quote");
	size_t nlen = i - start;
	if (!nlen)
		return LINE_ERR("empty name");
	if (nlen > FAB_NODEMAP_NAME_MAX)
		return LINE_ERR("name longer than %d bytes", FAB_NODEMAP_NAME_MAX);
	/* Printable UTF-8 only: the sanitizer must leave it unchanged. */
	char clean[FAB_NODEMAP_NAME_MAX * 4 + 1];
	size_t clen = fab_text_sanitize((const uint8_t *)s + start, nlen, clean,
					sizeof(clean));
	if (clen != nlen || memcmp(clean, s + start, nlen))
		return LINE_ERR("name has control characters, NUL or invalid UTF-8 "
				"(shown escaped: \"%.80s\")", clean);
	for (i++; i < len && is_blank(s[i]); i++)
		;
	if (i < len && s[i] != '#')
		return LINE_ERR("unexpected text after the name at column %zu; "
				"only a # comment may follow", i + 1);
	if (m->n >= FAB_NODEMAP_ENTRIES_MAX)
		return fab_err(-E2BIG, "%s:%u: more than %d entries", name, line,
			       FAB_NODEMAP_ENTRIES_MAX);
	if (add_entry(m, guid, s + start, nlen, line))
		return fab_err(-ENOMEM, "out of memory reading '%s'", name);
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct nm_entry *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int fab_nodemap_parse(const char *text, size_t len, const char *name,
		      struct fab_nodemap **out)
{
	struct fab_nodemap *m;
	unsigned line = 0;
	int err = 0;

	if (!name)
		name = "node-name-map";
	if (len > FAB_NODEMAP_FILE_MAX)
		return fab_err(-E2BIG, "%s: larger than %u bytes", name,
			       FAB_NODEMAP_FILE_MAX);
	m = calloc(1, sizeof(*m));
	if (!m)
		return fab_err(-ENOMEM, "out of memory reading '%s'", name);
	for (size_t pos = 0; pos < len && !err;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t llen = end - pos;

		line++;
		if (memchr(text + pos, '\0', llen)) {
			err = LINE_ERR("NUL byte in the line");
			break;
		}
		if (llen && text[pos + llen - 1] == '\r')
			llen--; /* CRLF files */
		if (llen > FAB_NODEMAP_LINE_MAX) {
			err = fab_err(-EINVAL, "%s:%u: line longer than %d bytes", name,
				      line, FAB_NODEMAP_LINE_MAX);
			break;
		}
		err = parse_line(m, text + pos, llen, name, line);
		pos = end + 1;
	}
	if (!err && m->n) {
		qsort(m->e, m->n, sizeof(*m->e), cmp_entry);
		for (size_t i = 1; i < m->n; i++)
			if (m->e[i].guid == m->e[i - 1].guid) {
				char g[FAB_GUID_STRLEN];
				fab_guid_format(m->e[i].guid, g);
				err = fab_err(-EINVAL, "%s:%u: GUID %s is already named on line %u",
					      name, m->e[i].line, g, m->e[i - 1].line);
				break;
			}
	}
	if (err) {
		fab_nodemap_free(m);
		return err;
	}
	*out = m;
	return 0;
}

int fab_nodemap_load(const char *path, struct fab_nodemap **out)
{
	char *buf;
	size_t len;
	int err = fab_read_small_file(path, "node-name-map", FAB_NODEMAP_FILE_MAX, &buf, &len);

	if (err)
		return err;
	err = fab_nodemap_parse(buf, len, path, out);
	free(buf);
	return err;
}

int fab_nodemap_open(const char *path, struct fab_nodemap **out)
{
	if (path && !*path) {
		*out = NULL;
		return 0;
	}
	if (!path) {
		if (access(FAB_NODEMAP_DEFAULT_PATH, F_OK) != 0) {
			*out = NULL;
			return 0;
		}
		path = FAB_NODEMAP_DEFAULT_PATH;
	}
	return fab_nodemap_load(path, out);
}

const char *fab_nodemap_lookup(const struct fab_nodemap *map, uint64_t guid)
{
	size_t lo = 0, hi;

	if (!map)
		return NULL;
	hi = map->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (map->e[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < map->n && map->e[lo].guid == guid)
		return map->names + map->e[lo].name_off;
	return NULL;
}

const char *fab_nodemap_name(const struct fab_nodemap *map, uint64_t guid,
			     const char *fallback_desc)
{
	const char *n = fab_nodemap_lookup(map, guid);

	if (n)
		return n;
	return fallback_desc ? fallback_desc : "";
}
