// SPDX-License-Identifier: MIT
/* Binding, stepping and reading helpers shared by store/'s files. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/store.h"
#include "store_priv.h"

void fab_sql_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

void fab_sql_bind_static(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

const char *fab_sql_kept_text(struct fab_sql_kept *k, enum fab_sql_kept_kind kind,
			      uint64_t v)
{
	if (k->set && k->v == v)
		return k->text;
	switch (kind) {
	case FAB_KEPT_WIDTHS:
		fab_widths_format((unsigned)v, k->text, sizeof(k->text));
		break;
	case FAB_KEPT_SPEEDS:
		fab_speeds_format((unsigned)v, k->text, sizeof(k->text));
		break;
	case FAB_KEPT_GUID:
		fab_guid_format(v, k->text);
		break;
	case FAB_KEPT_TIME:
		fab_time_format((int64_t)v, k->text);
		break;
	}
	k->v = v;
	k->set = true;
	return k->text;
}

void fab_sql_bind_guid(sqlite3_stmt *s, int i, uint64_t guid)
{
	char buf[FAB_GUID_STRLEN];

	fab_guid_format(guid, buf);
	sqlite3_bind_text(s, i, buf, -1, SQLITE_TRANSIENT);
}

void fab_sql_bind_guid_opt(sqlite3_stmt *s, int i, uint64_t guid)
{
	if (guid)
		fab_sql_bind_guid(s, i, guid);
	else
		sqlite3_bind_null(s, i);
}

void fab_sql_bind_time(sqlite3_stmt *s, int i, int64_t ms)
{
	char buf[FAB_TIME_STRLEN];

	if (!ms) {
		sqlite3_bind_null(s, i);
		return;
	}
	fab_time_format(ms, buf);
	sqlite3_bind_text(s, i, buf, -1, SQLITE_TRANSIENT);
}

int fab_sql_step(struct fab_store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc == SQLITE_DONE)
		return 0;
	return fab_err(rc == SQLITE_FULL ? -ENOSPC : -EIO, "database '%s': write %s: %s",
		       fab_store_path(st), what, sqlite3_errmsg(st->db));
}

const char *fab_sql_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

uint64_t fab_sql_guid(sqlite3_stmt *s, int i)
{
	uint64_t g = 0;

	if (sqlite3_column_type(s, i) != SQLITE_NULL)
		fab_guid_parse(fab_sql_text(s, i), &g);
	return g;
}

int64_t fab_sql_time(sqlite3_stmt *s, int i)
{
	int64_t ms = 0;

	if (sqlite3_column_type(s, i) != SQLITE_NULL)
		fab_time_parse(fab_sql_text(s, i), &ms);
	return ms;
}

int fab_sql_scan_query(struct fab_store *st, const char *sql, int64_t scan_id,
		       sqlite3_stmt **out)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK)
		return fab_err(-EIO, "database '%s': read: %s", fab_store_path(st),
			       sqlite3_errmsg(st->db));
	sqlite3_bind_int64(*out, 1, scan_id);
	return 0;
}

int fab_sql_done(struct fab_store *st, sqlite3_stmt *s, int rc, int err)
{
	sqlite3_finalize(s);
	if (err)
		return err;
	if (rc != SQLITE_DONE)
		return fab_err(-EIO, "database '%s': read: %s", fab_store_path(st),
			       sqlite3_errmsg(st->db));
	return 0;
}

size_t fab_sql_counter_cols(char *buf, size_t cap, bool params)
{
	size_t off = 0;

	for (unsigned c = 0; c < FAB_SQL_COUNTERS && off < cap; c++) {
		int n = params ? snprintf(buf + off, cap - off, ",?")
			       : snprintf(buf + off, cap - off, ", %s", fab_counter_name(c));
		if (n < 0)
			break;
		off += (size_t)n < cap - off ? (size_t)n : cap - off - 1;
	}
	return off;
}

size_t fab_sql_vl_cols(char *buf, size_t cap, bool params)
{
	size_t off = 0;
	int n = params ? snprintf(buf, cap, ",?") : snprintf(buf, cap, ", unsupported");

	off = n > 0 && (size_t)n < cap ? (size_t)n : 0;
	for (unsigned v = 0; v < FAB_N_VLS && off < cap; v++) {
		n = params ? snprintf(buf + off, cap - off, ",?")
			   : snprintf(buf + off, cap - off, ", VLXmitWait%u", v);
		if (n < 0)
			break;
		off += (size_t)n < cap - off ? (size_t)n : cap - off - 1;
	}
	return off;
}

void fab_sql_bind_vl(sqlite3_stmt *s, int first, const struct fab_counter_sample *c)
{
	if (c->unsupported)
		sqlite3_bind_int(s, first, c->unsupported);
	for (unsigned v = 0; v < FAB_N_VLS; v++)
		if (c->vl_valid & (1u << v))
			sqlite3_bind_int(s, first + 1 + (int)v, c->vl_xmit_wait[v]);
}

void fab_sql_read_vl(sqlite3_stmt *s, int first, struct fab_counter_sample *c)
{
	if (sqlite3_column_type(s, first) != SQLITE_NULL)
		c->unsupported = (uint8_t)sqlite3_column_int(s, first);
	for (unsigned v = 0; v < FAB_N_VLS; v++) {
		int col = first + 1 + (int)v;

		if (sqlite3_column_type(s, col) == SQLITE_NULL)
			continue;
		c->vl_valid |= (uint16_t)(1u << v);
		c->vl_xmit_wait[v] = (uint16_t)sqlite3_column_int(s, col);
	}
}

void fab_sql_read_counters(sqlite3_stmt *s, int first, struct fab_counter_sample *c)
{
	for (unsigned k = 0; k < FAB_SQL_COUNTERS; k++) {
		int col = first + (int)k;

		if (sqlite3_column_type(s, col) == SQLITE_NULL)
			continue;
		c->valid |= 1u << k;
		c->v[k] = (uint64_t)sqlite3_column_int64(s, col);
	}
}

void fab_sql_read_finding(sqlite3_stmt *s, int first, struct fab_finding *f)
{
	int sev = fab_severity_parse(fab_sql_text(s, first + 1));

	*f = (struct fab_finding){
		.rule_id = fab_sql_text(s, first),
		/* a severity the store does not know reads as an error: never
		 * quieter than what was stored */
		.severity = (uint8_t)(sev < 0 ? FAB_SEV_ERROR : sev),
		.node = fab_sql_text(s, first + 2),
		.port = fab_sql_text(s, first + 3),
		.peer_node = fab_sql_text(s, first + 4),
		.peer_port = fab_sql_text(s, first + 5),
		.subject = fab_sql_text(s, first + 6),
		.message = fab_sql_text(s, first + 7),
		.evidence = fab_sql_text(s, first + 8),
	};
}

void fab_sql_put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int fab_sql_intern(struct fab_store *st, sqlite3_stmt *ins, sqlite3_stmt *get, const char *what,
		   const void *key, size_t len, int64_t *id, bool *fresh)
{
	int rc;

	/* looked up first: a sweep's content is almost always stored already */
	sqlite3_bind_blob(get, 1, key, (int)len, SQLITE_STATIC);
	rc = sqlite3_step(get);
	*id = rc == SQLITE_ROW ? sqlite3_column_int64(get, 0) : 0;
	sqlite3_reset(get);
	if (rc == SQLITE_ROW) {
		*fresh = false;
		return 0;
	}
	if (rc != SQLITE_DONE)
		return fab_err(-EIO, "cannot read stored %s in '%s': %s", what, st->path,
			       sqlite3_errmsg(st->db));
	sqlite3_bind_blob(ins, 1, key, (int)len, SQLITE_STATIC);
	if ((rc = fab_sql_step(st, ins, what)))
		return rc; /* a full disk is -ENOSPC, as for every other write */
	if (sqlite3_changes(st->db) != 1)
		return fab_err(-EIO, "cannot store %s in '%s'", what, st->path);
	*id = sqlite3_last_insert_rowid(st->db);
	*fresh = true;
	return 0;
}

int fab_sql_prepare_all(struct fab_store *st, const char *const *sql, size_t n, sqlite3_stmt **out)
{
	int err = 0;

	memset(out, 0, n * sizeof(*out));
	for (size_t i = 0; i < n && !err; i++)
		err = fab_store_prepare(st, sql[i], &out[i]);
	return err;
}

void fab_sql_finalize_all(sqlite3_stmt **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sqlite3_finalize(v[i]);
}

const void *fab_find_by_id(const void *v, size_t n, size_t size, int64_t id)
{
	const unsigned char *b = v;
	size_t lo = 0, hi = n;
	int64_t at;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		memcpy(&at, b + mid * size, sizeof(at));
		if (at < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return NULL;
	memcpy(&at, b + lo * size, sizeof(at));
	return at == id ? b + lo * size : NULL;
}
