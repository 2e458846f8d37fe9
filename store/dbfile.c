// SPDX-License-Identifier: MIT
/*
 * Reading the tables of a finished SQLite database file from its file format
 * (dbfile.h says why and when): the 100-byte header, the b-tree pages of
 * sqlite_schema and of the tables asked for, their records. Every offset,
 * length and page number read from the file is checked before it is used;
 * every page of a scan is visited at most once (a cycle is an error, not a
 * loop).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dbfile.h"

#define MAX_DEPTH 32
#define MAX_SCHEMA 512

struct layout {
	char *sql; /* the CREATE TABLE text it was parsed from */
	struct fab_dbtable t;
};

/* A file is read whole, in one call (a host file is 150 pages of 1 KiB:
 * one read instead of one per page); a larger one than this is left to
 * SQLite. */
#define WHOLE_MAX (256u << 20)

struct fab_dbfile {
	int fd;
	uint8_t *img;                  /* the whole file */
	size_t img_cap, img_len;
	uint32_t page_size, usable;
	uint32_t n_pages;
	int64_t user_version, application_id;
	uint8_t *big;                  /* a record spread over overflow pages */
	size_t big_cap;
	uint8_t *seen;                 /* pages visited by the current scan */
	size_t seen_cap;
	struct {
		char name[64];
		uint32_t root;
		size_t sql; /* offset in sqlbuf */
	} schema[MAX_SCHEMA];
	int n_schema;
	char *sqlbuf;
	size_t sql_len, sql_cap;
	/* table layouts by CREATE TABLE text, kept across files: host files
	 * of one fabsweep version have the same ones */
	struct layout *layouts;
	size_t n_layouts;
};

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A varint at p (at most end - p bytes); its length, 0 when it runs past end. */
static size_t varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 9; i++) {
		if (p + i >= end)
			return 0;
		if (i == 8) {
			*out = v << 8 | p[i];
			return 9;
		}
		v = v << 7 | (p[i] & 0x7f);
		if (!(p[i] & 0x80)) {
			*out = v;
			return i + 1;
		}
	}
	return 0;
}

/* Page pgno. NULL: not there. */
static const uint8_t *read_page(const struct fab_dbfile *f, uint32_t pgno)
{
	if (pgno < 1 || pgno > f->n_pages)
		return NULL;
	return f->img + (size_t)(pgno - 1) * f->page_size;
}

/* ---- records ----------------------------------------------------------------- */

static size_t serial_len(uint64_t t)
{
	static const size_t fixed[] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0 };

	return t < 12 ? fixed[t] : (size_t)((t - 12) / 2);
}

/* The record header of payload into rec: types and offsets of its fields. */
static int parse_record(const uint8_t *payload, size_t len, struct fab_dbrec *rec)
{
	const uint8_t *end = payload + len;
	uint64_t hdr;
	size_t k = varint(payload, end, &hdr), body;

	if (!k || hdr < k || hdr > len)
		return -EPROTO;
	body = (size_t)hdr;
	rec->payload = payload;
	rec->len = len;
	rec->n_fields = 0;
	for (const uint8_t *p = payload + k; p < payload + hdr;) {
		uint64_t t;
		size_t n = varint(p, payload + hdr, &t);
		if (!n || t == 10 || t == 11 || rec->n_fields == FAB_DBFILE_MAX_FIELDS)
			return -EPROTO;
		size_t sl = serial_len(t);
		if (sl > len - body)
			return -EPROTO;
		rec->type[rec->n_fields] = t;
		rec->off[rec->n_fields++] = (uint32_t)body;
		body += sl;
		p += n;
	}
	return 0;
}

int fab_dbrec_get(const struct fab_dbrec *rec, const struct fab_dbtable *t, int c,
		  struct fab_dbval *out)
{
	memset(out, 0, sizeof(*out));
	if (c < 0 || c >= t->n_cols)
		return -EPROTO;
	int fi = t->field[c];
	if (fi < 0) { /* the rowid (INTEGER PRIMARY KEY) */
		out->type = FAB_DBV_INT;
		out->i = rec->rowid;
		return 0;
	}
	if (fi >= rec->n_fields) { /* a column added after the record was written */
		if (t->has_default[c]) {
			out->type = FAB_DBV_INT;
			out->i = t->def[c];
		}
		return 0;
	}
	uint64_t st = rec->type[fi];
	const uint8_t *p = rec->payload + rec->off[fi];
	switch (st) {
	case 0:
		return 0;
	case 8:
	case 9:
		out->type = FAB_DBV_INT;
		out->i = (int64_t)(st - 8);
		return 0;
	case 7: {
		uint64_t u = 0;
		for (int i = 0; i < 8; i++)
			u = u << 8 | p[i];
		out->type = FAB_DBV_FLOAT;
		memcpy(&out->f, &u, sizeof(u));
		return 0;
	}
	default:
		break;
	}
	if (st < 7) {
		size_t n = serial_len(st);
		uint64_t u = p[0] & 0x80 ? UINT64_MAX : 0; /* sign-extended big-endian */
		for (size_t i = 0; i < n; i++)
			u = u << 8 | p[i];
		out->type = FAB_DBV_INT;
		out->i = (int64_t)u;
		return 0;
	}
	out->type = st & 1 ? FAB_DBV_TEXT : FAB_DBV_BLOB;
	out->p = p;
	out->len = serial_len(st);
	return 0;
}

/* ---- b-trees ----------------------------------------------------------------- */

struct scan {
	struct fab_dbfile *f;
	bool index; /* an index b-tree: a WITHOUT ROWID table, keys in the cells */
	int (*fn)(const struct fab_dbrec *rec, void *ctx);
	void *ctx;
	struct fab_dbrec rec;
};

/* A cell's payload: on the page, or gathered from its overflow chain. */
static int payload(struct scan *s, const uint8_t *page, const uint8_t *cell, uint64_t total,
		   bool table_leaf, const uint8_t **out)
{
	struct fab_dbfile *f = s->f;
	uint32_t u = f->usable;
	uint64_t x = table_leaf ? u - 35 : (uint64_t)(u - 12) * 64 / 255 - 23;
	uint64_t m = (uint64_t)(u - 12) * 32 / 255 - 23, local;
	const uint8_t *page_end = page + u;

	if (total <= x) {
		if (cell + total > page_end)
			return -EPROTO;
		*out = cell;
		return 0;
	}
	local = m + (total - m) % (u - 4);
	if (local > x)
		local = m;
	if (total > (uint64_t)f->n_pages * f->page_size || cell + local + 4 > page_end)
		return -EPROTO;
	if (total > f->big_cap) {
		uint8_t *b = realloc(f->big, (size_t)total);
		if (!b)
			return -ENOMEM;
		f->big = b;
		f->big_cap = (size_t)total;
	}
	memcpy(f->big, cell, (size_t)local);
	size_t have = (size_t)local;
	uint32_t next = be32(cell + local);
	for (uint32_t hops = 0; have < total; hops++) {
		const uint8_t *o;
		if (hops > f->n_pages || !(o = read_page(f, next)))
			return -EPROTO;
		size_t n = total - have < u - 4 ? (size_t)(total - have) : u - 4;
		memcpy(f->big + have, o + 4, n);
		have += n;
		next = be32(o);
	}
	*out = f->big;
	return 0;
}

static int emit(struct scan *s, const uint8_t *p, uint64_t len, int64_t rowid)
{
	int err = parse_record(p, (size_t)len, &s->rec);

	if (err)
		return err;
	s->rec.rowid = rowid;
	return s->fn(&s->rec, s->ctx);
}

static int walk(struct scan *s, uint32_t pgno, int depth)
{
	struct fab_dbfile *f = s->f;
	const uint8_t *page;
	int err;

	if (depth > MAX_DEPTH || pgno < 1 || pgno > f->n_pages || (f->seen[pgno >> 3] & (1u << (pgno & 7))))
		return -EPROTO;
	f->seen[pgno >> 3] |= (uint8_t)(1u << (pgno & 7));
	if (!(page = read_page(f, pgno)))
		return -EPROTO;
	const uint8_t *h = page + (pgno == 1 ? 100 : 0), *end = page + f->usable;
	uint8_t type = h[0];
	bool interior = type == 0x02 || type == 0x05, leaf = type == 0x0a || type == 0x0d;
	bool index = type == 0x02 || type == 0x0a;
	if ((!interior && !leaf) || index != s->index)
		return -EPROTO;
	uint32_t n = be16(h + 3), hsize = interior ? 12 : 8;
	const uint8_t *ptrs = h + hsize;
	if (ptrs + 2 * (size_t)n > end)
		return -EPROTO;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = be16(ptrs + 2 * i);
		const uint8_t *c = page + off, *p;
		uint64_t len, rowid = 0;
		size_t k;

		if (off < (uint32_t)(ptrs + 2 * n - page) || c >= end)
			return -EPROTO;
		if (interior) {
			if (c + 4 > end || (err = walk(s, be32(c), depth + 1)))
				return err ? err : -EPROTO;
			if (!index)
				continue; /* a table's interior cell holds only a key */
			c += 4;
		}
		if (!(k = varint(c, end, &len)))
			return -EPROTO;
		c += k;
		if (type == 0x0d) {
			if (!(k = varint(c, end, &rowid)))
				return -EPROTO;
			c += k;
		}
		if ((err = payload(s, page, c, len, type == 0x0d, &p)) ||
		    (err = emit(s, p, len, (int64_t)rowid)))
			return err;
	}
	if (interior)
		return walk(s, be32(h + 8), depth + 1);
	return 0;
}

int fab_dbfile_scan(struct fab_dbfile *f, const struct fab_dbtable *t,
		    int (*fn)(const struct fab_dbrec *rec, void *ctx), void *ctx)
{
	struct scan s = { .f = f, .index = t->without_rowid, .fn = fn, .ctx = ctx };

	memset(f->seen, 0, f->n_pages / 8 + 1);
	return walk(&s, t->root, 0);
}

/* ---- the schema -------------------------------------------------------------- */

struct schema_ctx {
	struct fab_dbfile *f;
};

static int schema_row(const struct fab_dbrec *rec, void *ctx)
{
	struct fab_dbfile *f = ((struct schema_ctx *)ctx)->f;
	/* sqlite_schema(type, name, tbl_name, rootpage, sql) */
	static const struct fab_dbtable master = { .n_cols = 5, .field = { 0, 1, 2, 3, 4 } };
	struct fab_dbval type, name, root, sql;

	if (fab_dbrec_get(rec, &master, 0, &type) || fab_dbrec_get(rec, &master, 1, &name) ||
	    fab_dbrec_get(rec, &master, 3, &root) || fab_dbrec_get(rec, &master, 4, &sql))
		return -EPROTO;
	if (type.type != FAB_DBV_TEXT || type.len != 5 || memcmp(type.p, "table", 5))
		return 0; /* indexes, views, triggers: not read here */
	if (name.type != FAB_DBV_TEXT || name.len >= sizeof(f->schema[0].name))
		return 0; /* a longer name than fabsweep uses: not a table asked for */
	if (f->n_schema == MAX_SCHEMA || root.type != FAB_DBV_INT || sql.type != FAB_DBV_TEXT)
		return -EPROTO;
	if (f->sql_len + sql.len + 1 > f->sql_cap) {
		size_t cap = f->sql_cap ? f->sql_cap : 16384;
		while (cap < f->sql_len + sql.len + 1)
			cap *= 2;
		char *b = realloc(f->sqlbuf, cap);
		if (!b)
			return -ENOMEM;
		f->sqlbuf = b;
		f->sql_cap = cap;
	}
	int i = f->n_schema++;
	memcpy(f->schema[i].name, name.p, name.len);
	f->schema[i].name[name.len] = '\0';
	f->schema[i].root = root.i > 0 && root.i <= UINT32_MAX ? (uint32_t)root.i : 0;
	f->schema[i].sql = f->sql_len;
	memcpy(f->sqlbuf + f->sql_len, sql.p, sql.len);
	f->sqlbuf[f->sql_len + sql.len] = '\0';
	f->sql_len += sql.len + 1;
	return 0;
}

static bool sidefile(const char *path, const char *suffix)
{
	char p[4096];
	struct stat sb;

	return snprintf(p, sizeof(p), "%s%s", path, suffix) < (int)sizeof(p) && stat(p, &sb) == 0 &&
	       (sb.st_size > 0 || !strcmp(suffix, "-journal"));
}

struct fab_dbfile *fab_dbfile_new(void)
{
	struct fab_dbfile *f = calloc(1, sizeof(*f));

	if (f)
		f->fd = -1;
	return f;
}

/* The file into f->img; -EAGAIN when it is larger than WHOLE_MAX. */
static int read_whole(struct fab_dbfile *f, const struct stat *sb)
{
	size_t size = (size_t)sb->st_size, at = 0;

	if (sb->st_size < 0 || (uint64_t)sb->st_size > WHOLE_MAX)
		return -EAGAIN;
	if (size > f->img_cap) {
		uint8_t *p = realloc(f->img, size);
		if (!p)
			return -ENOMEM;
		f->img = p;
		f->img_cap = size;
	}
	while (at < size) {
		ssize_t n = pread(f->fd, f->img + at, size - at, (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		at += (size_t)n;
	}
	f->img_len = at;
	return 0;
}

static void unload(struct fab_dbfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->n_schema = 0;
	f->sql_len = 0;
	f->n_pages = 0;
}

int fab_dbfile_load(struct fab_dbfile *f, const char *path, struct stat *sb_out)
{
	uint8_t hdr[100];
	struct stat sb;
	int err = 0;

	unload(f);
	if (sidefile(path, "-wal") || sidefile(path, "-journal"))
		return -EAGAIN;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &sb)) {
		err = -errno;
		goto fail;
	}
	if (sb_out)
		*sb_out = sb;
	if (!S_ISREG(sb.st_mode) || pread(f->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, "SQLite format 3", 16)) {
		err = -EPROTO;
		goto fail;
	}
	if ((err = read_whole(f, &sb)))
		goto fail;
	f->page_size = be16(hdr + 16) == 1 ? 65536 : be16(hdr + 16);
	/* page size a power of two 512..65536; a text encoding of UTF-8; the
	 * payload fractions SQLite requires; schema format 1..4 */
	if (f->page_size < 512 || (f->page_size & (f->page_size - 1)) || hdr[20] > 32 ||
	    hdr[21] != 64 || hdr[22] != 32 || hdr[23] != 32 || be32(hdr + 56) > 1 ||
	    be32(hdr + 44) < 1 || be32(hdr + 44) > 4 ||
	    (uint64_t)sb.st_size / f->page_size > UINT32_MAX / 2) {
		err = -EPROTO;
		goto fail;
	}
	f->usable = f->page_size - hdr[20];
	f->n_pages = (uint32_t)(sb.st_size / f->page_size);
	if (f->n_pages > f->img_len / f->page_size)
		f->n_pages = (uint32_t)(f->img_len / f->page_size); /* it shrank while read */
	f->user_version = (int32_t)be32(hdr + 60);
	f->application_id = (int32_t)be32(hdr + 68);
	if (f->n_pages / 8 + 1 > f->seen_cap) {
		uint8_t *p = realloc(f->seen, f->n_pages / 8 + 1);
		if (!p) {
			err = -ENOMEM;
			goto fail;
		}
		f->seen = p;
		f->seen_cap = f->n_pages / 8 + 1;
	}
	struct fab_dbtable master = { .root = 1 };
	struct schema_ctx sc = { f };
	if (f->n_pages < 1 || (err = fab_dbfile_scan(f, &master, schema_row, &sc)))
		goto fail;
	return 0;
fail:
	unload(f);
	return err ? err : -EPROTO;
}

void fab_dbfile_free(struct fab_dbfile *f)
{
	if (!f)
		return;
	unload(f);
	for (size_t i = 0; i < f->n_layouts; i++)
		free(f->layouts[i].sql);
	free(f->layouts);
	free(f->sqlbuf);
	free(f->big);
	free(f->seen);
	free(f->img);
	free(f);
}

int64_t fab_dbfile_user_version(const struct fab_dbfile *f)
{
	return f->user_version;
}

int64_t fab_dbfile_application_id(const struct fab_dbfile *f)
{
	return f->application_id;
}

/* ---- CREATE TABLE ------------------------------------------------------------ */

static bool word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && !strncasecmp(p, w, n);
}

/* The next word or quoted identifier at *p (advanced past it); its text in buf. */
static size_t next_word(const char **p, const char *end, char *buf, size_t cap)
{
	const char *s = *p;
	size_t n = 0;

	while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	if (s < end && (*s == '"' || *s == '`' || *s == '[')) {
		char close = *s == '[' ? ']' : *s;
		for (s++; s < end && *s != close; s++)
			if (n + 1 < cap)
				buf[n++] = *s;
		s += s < end;
	} else {
		for (; s < end && (*s == '_' || (*s >= '0' && *s <= '9') || ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z')); s++)
			if (n + 1 < cap)
				buf[n++] = *s;
	}
	buf[n] = '\0';
	*p = s;
	return n;
}

static int col_index(const struct fab_dbtable *t, const char *name)
{
	for (int i = 0; i < t->n_cols; i++)
		if (!strcasecmp(t->names[i], name))
			return i;
	return -1;
}

int fab_dbtable_col(const struct fab_dbtable *t, const char *name)
{
	return col_index(t, name);
}

/* One column definition ("name TYPE NOT NULL DEFAULT 0 PRIMARY KEY"). */
static int column_def(struct fab_dbtable *t, const char *s, const char *end, bool *rowid_alias)
{
	char w[64], type[64] = "";
	int c = t->n_cols;

	if (c == FAB_DBFILE_MAX_COLS || !next_word(&s, end, w, sizeof(w)) || strlen(w) >= sizeof(t->names[0]))
		return -EPROTO;
	memcpy(t->names[c], w, strlen(w) + 1); /* its length checked above */
	t->n_cols++;
	next_word(&s, end, type, sizeof(type));
	for (char prev[64] = ""; s < end;) {
		if (!next_word(&s, end, w, sizeof(w))) {
			s++;
			continue;
		}
		if (!strcasecmp(prev, "PRIMARY") && !strcasecmp(w, "KEY"))
			*rowid_alias = !strcasecmp(type, "INTEGER");
		if (!strcasecmp(w, "DEFAULT")) {
			while (s < end && *s == ' ')
				s++;
			char *e;
			long long v = strtoll(s, &e, 10);
			if (e != s) {
				t->has_default[c] = true;
				t->def[c] = v;
			}
		}
		snprintf(prev, sizeof(prev), "%s", w);
	}
	return 0;
}

static int parse_create(const char *sql, struct fab_dbtable *t)
{
	const char *open = strchr(sql, '('), *p, *item;
	char pk[FAB_DBFILE_MAX_COLS][40];
	int n_pk = 0, depth = 0, rowid_col = -1;

	if (!open)
		return -EPROTO;
	for (p = item = open + 1; *p; p++) {
		if (*p == '(') {
			depth++;
			continue;
		}
		if (*p == '\'' || *p == '"') { /* a literal or quoted name: skip it */
			char q = *p;
			for (p++; *p && *p != q; p++)
				;
			if (!*p)
				return -EPROTO;
			continue;
		}
		if ((*p != ',' && *p != ')') || (*p == ')' && depth-- > 0) || (*p == ',' && depth > 0))
			continue;
		/* an item from item to p */
		const char *s = item;
		char w[64], w2[64];
		next_word(&s, p, w, sizeof(w));
		if (word_is(w, strlen(w), "PRIMARY")) {
			const char *l = strchr(s, '(');
			for (const char *q = l ? l + 1 : p; q < p && n_pk < FAB_DBFILE_MAX_COLS;) {
				if (!next_word(&q, p, w2, sizeof(w2))) {
					q++;
					continue;
				}
				if (!strcasecmp(w2, "ASC") || !strcasecmp(w2, "DESC"))
					continue;
				if (strlen(w2) >= sizeof(pk[0]))
					return -EPROTO;
				memcpy(pk[n_pk++], w2, strlen(w2) + 1);
			}
		} else if (!word_is(w, strlen(w), "UNIQUE") && !word_is(w, strlen(w), "CHECK") &&
			   !word_is(w, strlen(w), "FOREIGN") && !word_is(w, strlen(w), "CONSTRAINT")) {
			bool alias = false;
			if (column_def(t, item, p, &alias))
				return -EPROTO;
			if (alias) {
				rowid_col = t->n_cols - 1;
				if (!n_pk)
					snprintf(pk[n_pk++], sizeof(pk[0]), "%s", t->names[rowid_col]);
			}
		}
		item = p + 1;
		if (*p == ')')
			break;
	}
	if (!*p)
		return -EPROTO;
	char w[64];
	const char *rest = p + 1, *end = rest + strlen(rest);
	next_word(&rest, end, w, sizeof(w));
	t->without_rowid = !strcasecmp(w, "WITHOUT");
	if (t->without_rowid) {
		/* the record: the primary key's columns, then the others in order */
		int at = 0;
		bool in_pk[FAB_DBFILE_MAX_COLS] = { false };
		if (!n_pk)
			return -EPROTO;
		for (int k = 0; k < n_pk; k++) {
			int c = col_index(t, pk[k]);
			if (c < 0 || in_pk[c])
				return -EPROTO;
			in_pk[c] = true;
			t->field[c] = at++;
		}
		for (int c = 0; c < t->n_cols; c++)
			if (!in_pk[c])
				t->field[c] = at++;
	} else {
		for (int c = 0; c < t->n_cols; c++)
			t->field[c] = c;
		if (rowid_col >= 0)
			t->field[rowid_col] = -1;
	}
	return 0;
}

int fab_dbfile_table(struct fab_dbfile *f, const char *name, struct fab_dbtable *out)
{
	for (int i = 0; i < f->n_schema; i++) {
		if (strcmp(f->schema[i].name, name))
			continue;
		const char *sql = f->sqlbuf + f->schema[i].sql;
		uint32_t root = f->schema[i].root;
		if (!root)
			return -EPROTO;
		for (size_t k = 0; k < f->n_layouts; k++)
			if (!strcmp(f->layouts[k].sql, sql)) {
				*out = f->layouts[k].t;
				out->root = root;
				return 0;
			}
		memset(out, 0, sizeof(*out));
		if (parse_create(sql, out))
			return -EPROTO;
		out->root = root;
		struct layout *l = realloc(f->layouts, (f->n_layouts + 1) * sizeof(*l));
		if (l) {
			f->layouts = l;
			if ((l[f->n_layouts].sql = strdup(sql)))
				l[f->n_layouts++].t = *out;
		}
		return 0;
	}
	return -ENOENT;
}
