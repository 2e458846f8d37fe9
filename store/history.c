// SPDX-License-Identifier: MIT
/*
 * A period of history (include/fabsweep/store_history.h): the counter
 * samples of some ports over a time window in one query, and the findings
 * raised in it, for the report's trend charts. Never one load per scan: a
 * day of one-second sweeps is tens of thousands of scans. The samples are
 * read along port_counters' primary key (scan_id first), so the rows of a
 * window are one range of the table whatever the ports asked for.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/store.h"
#include "fabsweep/store_history.h"
#include "store_priv.h"

int fab_port_key_cmp(const void *a, const void *b)
{
	const struct fab_port_key *x = a, *y = b;

	if (x->node_guid != y->node_guid)
		return x->node_guid < y->node_guid ? -1 : 1;
	return (int)x->port_num - (int)y->port_num;
}

/* One integer out of a query with ?1, ?2 bound to the window; *out = 0 when NULL. */
static int window_int(struct fab_store *st, const char *sql, int64_t a, int64_t b, bool times,
		      int64_t *out)
{
	sqlite3_stmt *s;
	int err, rc;

	if ((err = fab_store_prepare(st, sql, &s)))
		return err;
	if (times) {
		fab_sql_bind_time(s, 1, a);
		fab_sql_bind_time(s, 2, b);
	} else {
		sqlite3_bind_int64(s, 1, a);
	}
	*out = 0;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	return fab_sql_done(st, s, rc == SQLITE_ROW ? SQLITE_DONE : rc, 0);
}

/* The scans started in the window: ids lo..hi (0, 0: none); and where the
 * chain before the window begins (its topology scan), lo when none. */
static int window_scans(struct fab_store *st, int64_t from_ms, int64_t to_ms, int64_t *lo,
			int64_t *hi, int64_t *chain)
{
	int err;

	if ((err = window_int(st, "SELECT min(scan_id) FROM scans WHERE started_at >= ?1"
				  " AND started_at <= ?2", from_ms, to_ms, true, lo)) ||
	    (err = window_int(st, "SELECT max(scan_id) FROM scans WHERE started_at >= ?1"
				  " AND started_at <= ?2", from_ms, to_ms, true, hi)))
		return err;
	if (!*lo)
		return 0;
	if ((err = window_int(st, "SELECT coalesce(topology_scan_id, scan_id) FROM scans"
				  " WHERE scan_id < ?1 ORDER BY scan_id DESC LIMIT 1", *lo, 0, false,
			      chain)))
		return err;
	if (!*chain || *chain > *lo)
		*chain = *lo;
	return 0;
}

/* A text column parsed again only when it differs from the row before's
 * (the rows of a node share its GUID, those of a scan mostly their time). */
struct memo {
	char text[40];
	int64_t v;
};

static int64_t memo_parse(struct memo *m, sqlite3_stmt *s, int col, bool guid)
{
	const char *t = fab_sql_text(s, col);
	size_t l = t ? strlen(t) : 0;

	if (!t || l >= sizeof(m->text))
		return guid ? (int64_t)fab_sql_guid(s, col) : fab_sql_time(s, col);
	if (memcmp(m->text, t, l + 1)) {
		memcpy(m->text, t, l + 1);
		m->v = guid ? (int64_t)fab_sql_guid(s, col) : fab_sql_time(s, col);
	}
	return m->v;
}

int fab_store_counter_history(struct fab_store *st, int64_t from_ms, int64_t to_ms,
			      const struct fab_port_key *keys, size_t n_keys,
			      int (*fn)(const struct fab_history_row *row, void *ctx), void *ctx)
{
	struct memo guid = { .v = 0 }, time = { .v = 0 };
	int64_t lo, hi, chain;
	char sql[2048];
	size_t off;
	sqlite3_stmt *s = NULL;
	int err, rc = SQLITE_DONE;

	if (keys && !n_keys)
		return 0;
	if ((err = fab_store_exec(st, "BEGIN", "begin a read")))
		return err;
	if ((err = window_scans(st, from_ms, to_ms, &lo, &hi, &chain)) || !lo)
		goto out;
	off = (size_t)snprintf(sql, sizeof(sql),
			       "SELECT scan_id, node_guid, port_num, sampled_at, extended");
	off += fab_sql_counter_cols(sql + off, sizeof(sql) - off, false);
	snprintf(sql + off, sizeof(sql) - off,
		 " FROM port_counters WHERE scan_id BETWEEN ?1 AND ?2"
		 " ORDER BY scan_id, node_idx, port_num, sample");
	if ((err = fab_sql_scan_query(st, sql, chain, &s)))
		goto out;
	sqlite3_bind_int64(s, 2, hi);
	while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_history_row r = {
			.scan_id = sqlite3_column_int64(s, 0),
			.node_guid = (uint64_t)memo_parse(&guid, s, 1, true),
			.port_num = (uint8_t)sqlite3_column_int(s, 2),
		};
		const struct fab_port_key *k = NULL;

		if (keys && !(k = bsearch(&(struct fab_port_key){ r.node_guid, r.port_num }, keys,
					  n_keys, sizeof(*keys), fab_port_key_cmp)))
			continue; /* decoded no further */
		r.before = r.scan_id < lo;
		r.sample.port_idx = k ? (uint32_t)(k - keys) : FAB_NONE;
		r.sample.sampled_at_ms = memo_parse(&time, s, 3, false);
		r.sample.extended = sqlite3_column_int(s, 4);
		fab_sql_read_counters(s, 5, &r.sample);
		err = fn(&r, ctx);
	}
	err = fab_sql_done(st, s, err ? SQLITE_DONE : rc, err);
out:
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	return err;
}

int fab_store_findings_history(struct fab_store *st, int64_t from_ms, int64_t to_ms,
			       int (*fn)(const struct fab_history_finding *h, void *ctx),
			       void *ctx)
{
	int64_t lo, hi, chain;
	sqlite3_stmt *s = NULL;
	int err, rc = SQLITE_DONE;

	if ((err = fab_store_exec(st, "BEGIN", "begin a read")))
		return err;
	if ((err = window_scans(st, from_ms, to_ms, &lo, &hi, &chain)) || !lo)
		goto out;
	/* one row per (rule, node, port): as its latest scan raised it. The
	 * findings view (raised rows and watch's holds) has no rowid: the
	 * latest is picked by a window. */
	if ((err = fab_sql_scan_query(st,
		"WITH w AS (SELECT f.*, count(*) OVER p AS n, min(scan_id) OVER p AS first,"
		" row_number() OVER (PARTITION BY rule_id, node, port ORDER BY scan_id DESC) AS rn"
		" FROM findings f WHERE scan_id BETWEEN ?1 AND ?2"
		" WINDOW p AS (PARTITION BY rule_id, node, port))"
		" SELECT " FAB_SQL_FINDING_COLS("") ", scan_id, n,"
		" (SELECT started_at FROM scans WHERE scan_id = w.first),"
		" (SELECT started_at FROM scans WHERE scan_id = w.scan_id)"
		" FROM w WHERE rn = 1 ORDER BY first, rule_id, node, port", lo, &s)))
		goto out;
	sqlite3_bind_int64(s, 2, hi);
	while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_history_finding h = {
			.last_scan_id = sqlite3_column_int64(s, 9),
			.n_scans = sqlite3_column_int64(s, 10),
			.first_ms = fab_sql_time(s, 11),
			.last_ms = fab_sql_time(s, 12),
		};

		fab_sql_read_finding(s, 0, &h.f);
		err = fn(&h, ctx);
	}
	err = fab_sql_done(st, s, err ? SQLITE_DONE : rc, err);
out:
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	return err;
}
