// SPDX-License-Identifier: MIT
/*
 * The roll-up of old watch sweeps (include/fabsweep/store_prune.h,
 * docs/watch.md "Retention"), like an RRD: a chain (a full scan and its
 * sweeps) whose sweeps are all older than the raw window is replaced by
 * what its counter rows said per port, hour and counter that moved: the
 * total increase and the highest rate between two samples (counter_rollups,
 * the view counter_hourly). The chain goes whole, its full scan (watch's
 * own) with its findings and holds, as `prune` drops chains. One chain per
 * call, in one transaction: the time a call takes grows with that chain's
 * changed rows, not with the database.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "store_priv.h"

#define HOUR_MS (3600 * 1000LL)
#define FIRST_COUNTER 3 /* node_guid, port_num, sampled_at, then the counters */

/* One port's hour being summed. */
struct bucket {
	uint64_t guid;
	int port;
	int64_t hour_ms;
	uint64_t inc[FAB_CTR__COUNT];
	double max_rate[FAB_CTR__COUNT];
	uint32_t intervals[FAB_CTR__COUNT], resets[FAB_CTR__COUNT];
};

struct rollup {
	struct fab_store *st;
	sqlite3_stmt *put;
	struct bucket b;
	struct fab_rollup_result *r;
};

/* The oldest chain with sweeps, all started before cutoff, that is not the
 * newest chain and holds no baseline; 0 when none. */
static int pick_chain(struct fab_store *st, const char *cutoff, int64_t *chain)
{
	sqlite3_stmt *s;
	int rc, err = fab_store_prepare(st,
		"SELECT t.scan_id FROM scans t WHERE t.topology_scan_id IS NULL"
		" AND t.scan_id < (SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL)"
		" AND EXISTS (SELECT 1 FROM scans w WHERE coalesce(w.topology_scan_id, w.scan_id) = t.scan_id"
		"  AND w.scan_id <> t.scan_id)"
		" AND NOT EXISTS (SELECT 1 FROM scans w WHERE coalesce(w.topology_scan_id, w.scan_id) = t.scan_id"
		"  AND w.scan_id <> t.scan_id AND w.started_at >= ?1)"
		" AND NOT EXISTS (SELECT 1 FROM baselines b JOIN scans w ON w.scan_id = b.scan_id"
		"  WHERE coalesce(w.topology_scan_id, w.scan_id) = t.scan_id)"
		" ORDER BY t.scan_id LIMIT 1", &s);

	if (err)
		return err;
	*chain = 0;
	fab_sql_bind_text(s, 1, cutoff);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*chain = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		err = fab_err(-EIO, "database '%s': pick a chain to roll up: %s", st->path,
			      sqlite3_errmsg(st->db));
	sqlite3_finalize(s);
	return err;
}

/* Writes the bucket's counters that moved (adding to what an earlier call
 * put in the same hour), then empties it. */
static int flush(struct rollup *u)
{
	struct bucket *b = &u->b;
	char guid[FAB_GUID_STRLEN], hour[FAB_TIME_STRLEN];
	int err = 0;

	if (!b->guid)
		return 0;
	fab_guid_format(b->guid, guid);
	fab_time_format(b->hour_ms, hour);
	for (unsigned k = 0; k < FAB_CTR__COUNT && !err; k++) {
		if (!b->inc[k] && !b->resets[k])
			continue;
		fab_sql_bind_text(u->put, 1, guid);
		sqlite3_bind_int(u->put, 2, b->port);
		fab_sql_bind_text(u->put, 3, hour);
		fab_sql_bind_text(u->put, 4, fab_counter_name(k));
		sqlite3_bind_int64(u->put, 5, (int64_t)b->inc[k]);
		sqlite3_bind_double(u->put, 6, b->max_rate[k]);
		sqlite3_bind_int(u->put, 7, (int)b->intervals[k]);
		sqlite3_bind_int(u->put, 8, (int)b->resets[k]);
		if (!(err = fab_sql_step(u->st, u->put, "a roll-up")))
			u->r->rows++;
	}
	memset(b, 0, sizeof(*b));
	return err;
}

/* The counters rolled up: the error counters, PortXmitWait and the two data
 * counters (bytes each way); the packet counters are left out, as they move
 * on every port of a busy fabric every hour (docs/watch.md, the budget). */
static uint32_t rolled_up(void)
{
	return fab_counter_error_mask() | fab_counter_detail_mask() | 1u << FAB_CTR_XMIT_WAIT | 1u << FAB_CTR_XMIT_DATA |
	       1u << FAB_CTR_RCV_DATA;
}

/* Adds the step from a to b (one port, in time order) to b's hour. */
static int add(struct rollup *u, uint64_t guid, int port, const struct fab_counter_sample *a,
	       const struct fab_counter_sample *b)
{
	struct bucket *k = &u->b;
	int64_t hour = b->sampled_at_ms - b->sampled_at_ms % HOUR_MS;
	double secs = (double)(b->sampled_at_ms - a->sampled_at_ms) / 1000.0;
	struct fab_counter_delta d;
	int err;

	if (k->guid != guid || k->port != port || k->hour_ms != hour) {
		if ((err = flush(u)))
			return err;
		k->guid = guid;
		k->port = port;
		k->hour_ms = hour;
	}
	fab_counter_delta(a, b, rolled_up(), &d);
	for (unsigned c = 0; c < FAB_CTR__COUNT; c++) {
		if (!(d.valid & (1u << c)))
			continue;
		k->inc[c] += d.inc[c];
		k->resets[c] += !!(d.reset & (1u << c));
		k->intervals[c]++;
		if (secs > 0 && (double)d.inc[c] / secs > k->max_rate[c])
			k->max_rate[c] = (double)d.inc[c] / secs;
	}
	return 0;
}

/* Walks the chain's counter rows, per port (by GUID: the next full scan
 * numbers nodes its own way) in time order. */
static int sum_chain(struct rollup *u, int64_t chain)
{
	char sql[2048];
	size_t off;
	sqlite3_stmt *s;
	struct fab_counter_sample prev = { 0 }, cur;
	uint64_t prev_guid = 0;
	int prev_port = -1, rc, err;

	off = (size_t)snprintf(sql, sizeof(sql), "SELECT node_guid, port_num, sampled_at");
	off += fab_sql_counter_cols(sql + off, sizeof(sql) - off, false);
	/* and the next full scan's first sample: the step from the chain's last
	 * value to it belongs to no chain otherwise */
	snprintf(sql + off, sizeof(sql) - off,
		 " FROM port_counters WHERE scan_id IN (SELECT scan_id FROM scans"
		 " WHERE coalesce(topology_scan_id, scan_id) = ?1)"
		 " OR (scan_id = (SELECT min(scan_id) FROM scans WHERE topology_scan_id IS NULL"
		 "  AND scan_id > ?1) AND sample = 0)"
		 " ORDER BY node_guid, port_num, scan_id, sample");
	if ((err = fab_sql_scan_query(u->st, sql, chain, &s)))
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t guid = fab_sql_guid(s, 0);
		int port = sqlite3_column_int(s, 1);

		memset(&cur, 0, sizeof(cur));
		cur.sampled_at_ms = fab_sql_time(s, 2);
		for (unsigned k = 0; k < FAB_SQL_COUNTERS; k++) {
			if (sqlite3_column_type(s, FIRST_COUNTER + (int)k) == SQLITE_NULL)
				continue;
			cur.valid |= 1u << k;
			cur.v[k] = (uint64_t)sqlite3_column_int64(s, FIRST_COUNTER + (int)k);
		}
		u->r->samples++;
		if (guid == prev_guid && port == prev_port && (err = add(u, guid, port, &prev, &cur)))
			break;
		prev = cur;
		prev_guid = guid;
		prev_port = port;
	}
	if (!err)
		err = flush(u);
	return fab_sql_done(u->st, s, rc, err);
}

int fab_store_rollup(struct fab_store *st, int64_t before_ms, struct fab_rollup_result *out)
{
	struct rollup u = { .st = st, .r = out };
	char cutoff[FAB_TIME_STRLEN];
	int64_t chain;
	int err;

	memset(out, 0, sizeof(*out));
	if (!st->writable)
		return fab_err(-EROFS, "database '%s' was opened read-only", st->path);
	fab_time_format(before_ms, cutoff);
	if ((err = fab_store_begin(st)))
		return err;
	if ((err = pick_chain(st, cutoff, &chain)) || !chain)
		return fab_store_finish(st, err);
	out->chain = chain;
	err = fab_store_prepare(st,
		"INSERT INTO counter_rollups(node_guid, port_num, hour, counter, increase,"
		" max_rate, intervals, resets) VALUES (?,?,?,?,?,?,?,?)"
		" ON CONFLICT(node_guid, port_num, hour, counter) DO UPDATE SET"
		" increase = increase + excluded.increase,"
		" max_rate = max(max_rate, excluded.max_rate),"
		" intervals = intervals + excluded.intervals, resets = resets + excluded.resets",
		&u.put);
	if (!err)
		err = sum_chain(&u, chain);
	sqlite3_finalize(u.put);
	if (!err)
		err = fab_store_exec(st, "CREATE TEMP TABLE IF NOT EXISTS fab_prune(scan_id INTEGER"
				     " PRIMARY KEY); DELETE FROM temp.fab_prune", "list the chain");
	sqlite3_stmt *ls = NULL;
	if (!err)
		err = fab_store_prepare(st, "INSERT INTO temp.fab_prune SELECT scan_id FROM scans"
					" WHERE coalesce(topology_scan_id, scan_id) = ?1", &ls);
	if (!err) {
		sqlite3_bind_int64(ls, 1, chain);
		if (!(err = fab_sql_step(st, ls, "the chain's scans")))
			out->sweeps = (int64_t)sqlite3_changes(st->db);
	}
	sqlite3_finalize(ls);
	if (!err)
		err = fab_store_delete_listed(st, &out->rows_deleted);
	return fab_store_finish(st, err);
}
