// SPDX-License-Identifier: MIT
/* Retention and baselines of the store: keep N, older-than, baselines kept,
 * every per-scan table emptied, integrity after; the duration parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "unit/snapfix.h"

#define DAY (86400LL * 1000)
static const int64_t NOW = 1764557635000LL + 100 * DAY;
static char dbpath[256];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dbpath, sizeof(dbpath), "%s/test_prune_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	unlink(dbpath);
	return 0;
}

static int teardown(void **state)
{
	fabfix_unlink_db(dbpath);
	return 0;
}

static int64_t q(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

static void exec(const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void integrity_ok(void)
{
	sqlite3 *db;
	sqlite3_stmt *s;

	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0), "ok");
	sqlite3_finalize(s);
	sqlite3_close(db);
}

/* Writes n scans of a small fat tree (with findings and a scan error), the
 * i-th started ages_days[i] days before NOW (or all at NOW - 1 day). */
static void write_scans(unsigned n, const int *ages_days)
{
	struct fab_snapshot *snap = snapfix_fat_tree(2, 4, 3);
	struct fab_store *st;
	struct fab_finding f = { .rule_id = "port.errors", .severity = FAB_SEV_ERROR,
				 .message = "m" };

	fab_snapshot_add_finding(snap, &f);
	fab_snapshot_add_error(snap, 0x2001, 3, "pma", "timeout");
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	for (unsigned i = 0; i < n; i++) {
		snap->scan_id = 0;
		snap->started_at_ms = NOW - (ages_days ? ages_days[i] : 1) * DAY;
		snap->finished_at_ms = snap->started_at_ms + 1000;
		assert_int_equal(fab_store_write_scan(st, snap), 0);
	}
	fab_store_close(st);
	fab_snapshot_free(snap);
}

struct seen {
	int64_t ids[64];
	bool baseline[64];
	size_t n;
};

static int record(const struct fab_prune_scan *p, void *ctx)
{
	struct seen *s = ctx;

	assert_non_null(p->started_at);
	s->baseline[s->n] = p->is_baseline;
	s->ids[s->n++] = p->scan_id;
	return 0;
}

static int prune(const struct fab_prune_opts *o, struct seen *seen, struct fab_prune_result *r)
{
	struct fab_store *st;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	memset(seen, 0, sizeof(*seen));
	int err = fab_store_prune(st, o, record, seen, r);
	fab_store_close(st);
	return err;
}

/* No row of any per-scan table belongs to a scan that is not in scans. */
static void no_orphans(void)
{
	static const char *const tables[] = { "nodes", "port_rows", "links", "port_counters",
					      "sms", "scan_errors", "findings" };
	char sql[200];

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM %s WHERE scan_id NOT IN (SELECT scan_id FROM scans)",
			 tables[i]);
		if (q(sql) != 0)
			fail_msg("%s has rows of dropped scans", tables[i]);
	}
	integrity_ok();
}

static void test_keep(void **state)
{
	struct fab_prune_opts o = { .keep = 2, .now_ms = NOW };
	struct fab_prune_result r;
	struct seen seen;

	write_scans(6, NULL);
	int64_t rows_per_scan = q("SELECT count(*) FROM port_rows WHERE scan_id=1");
	assert_true(rows_per_scan > 0);
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 4);
	assert_int_equal(r.remaining, 2);
	assert_int_equal(r.kept_baselines, 0);
	assert_int_equal(seen.n, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(seen.ids[i], i + 1);
	assert_int_equal(q("SELECT group_concat(scan_id) = '5,6' FROM scans"), 1);
	assert_int_equal(q("SELECT count(*) FROM port_rows"), 2 * rows_per_scan);
	assert_int_equal(q("SELECT count(*) FROM findings"), 2);
	assert_int_equal(q("SELECT count(*) FROM scan_errors"), 2);
	assert_true(r.rows_deleted > 4 * rows_per_scan);
	assert_true(r.vacuumed);
	assert_true(r.bytes_after < r.bytes_before);
	assert_int_equal(q("PRAGMA freelist_count"), 0);
	no_orphans();

	/* keeping more than there are drops nothing */
	o.keep = 10;
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 0);
	assert_int_equal(r.remaining, 2);
}

static void test_older_than(void **state)
{
	static const int ages[] = { 40, 35, 31, 20, 10, 1 };
	struct fab_prune_opts o = { .older_than_ms = 30 * DAY, .now_ms = NOW };
	struct fab_prune_result r;
	struct seen seen;

	write_scans(6, ages);
	/* dry run first: reported, nothing changes */
	o.dry_run = true;
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 3);
	assert_int_equal(q("SELECT count(*) FROM scans"), 6);
	assert_false(r.vacuumed);
	/* both rules: older than 30 days AND not among the newest 4 */
	o.dry_run = false;
	o.keep = 4;
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 2);
	assert_int_equal(seen.ids[0], 1);
	assert_int_equal(seen.ids[1], 2);
	o.keep = 0;
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 1);
	assert_int_equal(seen.ids[0], 3);
	assert_int_equal(q("SELECT min(scan_id) FROM scans"), 4);
	no_orphans();

	/* the newest scan stays even when everything is old */
	o.older_than_ms = 1000;
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 2);
	assert_int_equal(r.remaining, 1);
	assert_int_equal(q("SELECT scan_id FROM scans"), 6);
	no_orphans();
}

static void test_baselines_protected(void **state)
{
	struct fab_prune_opts o = { .keep = 1, .now_ms = NOW };
	struct fab_prune_result r;
	struct fab_store *st;
	struct seen seen;
	int64_t prev = -1, id = 0;

	write_scans(5, NULL);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_baseline_set(st, 2, "golden", &prev), 0);
	assert_int_equal(prev, 0);
	assert_int_equal(fab_store_baseline_set(st, 3, NULL, NULL), 0);
	fab_store_close(st);
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 2);
	assert_int_equal(r.kept_baselines, 2);
	assert_int_equal(seen.n, 4); /* 1, 2 (kept), 3 (kept), 4 */
	assert_false(seen.baseline[0]);
	assert_true(seen.baseline[1]);
	assert_true(seen.baseline[2]);
	assert_int_equal(q("SELECT group_concat(scan_id) = '2,3,5' FROM scans"), 1);
	assert_int_equal(q("SELECT count(DISTINCT scan_id) FROM nodes"), 3);
	no_orphans();

	/* the baseline is still a full snapshot */
	struct fab_snapshot *snap;
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_baseline_resolve(st, "golden", &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(fab_store_load_scan(st, id, &snap), 0);
	assert_int_equal(snap->n_nodes, 2 + 4 + 12);
	fab_snapshot_free(snap);
	fab_store_close(st);

	/* unmarked, it goes */
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_baseline_clear(st, "golden", &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(fab_store_baseline_clear(st, "3", &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(fab_store_baseline_clear(st, "golden", &id), -ENOENT);
	fab_store_close(st);
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 2);
	assert_int_equal(q("SELECT group_concat(scan_id) FROM scans"), 5);
	no_orphans();
}

static int count_rows(const struct fab_baseline_row *r, void *ctx)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "%lld:%s;", (long long)r->scan_id, r->name ? r->name : "-");
	assert_non_null(r->created_at);
	return 0;
}

static void test_baseline_api(void **state)
{
	struct fab_store *st;
	int64_t prev = -1, id = 0;
	char list[256] = "";

	write_scans(4, NULL);
	assert_true(fab_baseline_name_valid("golden"));
	assert_true(fab_baseline_name_valid("after-maint_2026.03"));
	assert_false(fab_baseline_name_valid(""));
	assert_false(fab_baseline_name_valid("12"));
	assert_false(fab_baseline_name_valid("-x"));
	assert_false(fab_baseline_name_valid("a b"));
	assert_false(fab_baseline_name_valid("a;drop"));
	char longname[80];
	memset(longname, 'a', 65);
	longname[65] = '\0';
	assert_false(fab_baseline_name_valid(longname));
	longname[64] = '\0';
	assert_true(fab_baseline_name_valid(longname));

	/* read-only handles cannot mark */
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_baseline_set(st, 1, NULL, NULL), -EROFS);
	fab_store_close(st);

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_baseline_set(st, 9, "x", NULL), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "no scan 9"));
	assert_int_equal(fab_store_baseline_set(st, 1, "bad name", NULL), -EINVAL);
	assert_int_equal(fab_store_baseline_set(st, 1, "golden", &prev), 0);
	assert_int_equal(prev, 0);
	/* the name moves */
	assert_int_equal(fab_store_baseline_set(st, 3, "golden", &prev), 0);
	assert_int_equal(prev, 1);
	/* marking again renames, never duplicates */
	assert_int_equal(fab_store_baseline_set(st, 3, "gold2", NULL), 0);
	assert_int_equal(fab_store_baseline_set(st, 3, "gold3", NULL), 0);
	assert_int_equal(fab_store_baseline_list(st, count_rows, list), 0);
	assert_string_equal(list, "1:-;3:gold3;");
	assert_int_equal(fab_store_baseline_resolve(st, "gold3", &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(fab_store_baseline_resolve(st, "2", &id), 0); /* any scan id */
	assert_int_equal(id, 2);
	assert_int_equal(fab_store_baseline_resolve(st, "latest", &id), 0);
	assert_int_equal(id, 4);
	assert_int_equal(fab_store_baseline_resolve(st, "-1", &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(fab_store_baseline_resolve(st, "golden", &id), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "no baseline is named 'golden'"));
	assert_int_equal(fab_store_baseline_resolve(st, "99", &id), -ENOENT);
	assert_int_equal(fab_store_baseline_resolve(st, "x'--", &id), -EINVAL);
	assert_int_equal(fab_store_baseline_clear(st, "4", &id), -ENOENT);
	fab_store_close(st);
	assert_int_equal(q("SELECT count(*) FROM baselines"), 2);
}

static void test_future_tables_and_old_files(void **state)
{
	struct fab_prune_opts o = { .keep = 1, .now_ms = NOW, .no_vacuum = true };
	struct fab_prune_result r;
	struct fab_store *st;
	struct seen seen;

	write_scans(3, NULL);
	/* a per-scan table added by a later schema version is pruned too */
	exec("CREATE TABLE roce_ports(scan_id INTEGER NOT NULL, x TEXT);"
	     "INSERT INTO roce_ports VALUES (1,'a'),(2,'b'),(3,'c');"
	     "CREATE TABLE \"odd \"\"name\"(scan_id INTEGER);"
	     "INSERT INTO \"odd \"\"name\" VALUES (1),(3)");
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 2);
	assert_false(r.vacuumed);
	assert_int_equal(r.vacuum_error[0], '\0');
	assert_int_equal(q("SELECT count(*) FROM roce_ports WHERE scan_id=3"), 1);
	assert_int_equal(q("SELECT count(*) FROM roce_ports"), 1);
	assert_int_equal(q("SELECT count(*) FROM \"odd \"\"name\""), 1);
	no_orphans();

	/* a file from a pre-release build, without the baselines table */
	exec("DROP TABLE baselines");
	write_scans(2, NULL);
	assert_int_equal(prune(&o, &seen, &r), 0);
	assert_int_equal(r.dropped, 2);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_baseline_set(st, 5, NULL, NULL), -EPROTO);
	assert_non_null(strstr(fab_errmsg(), "pre-release"));
	fab_store_close(st);

	/* bad options and read-only handles */
	struct fab_prune_opts none = { 0 };
	assert_int_equal(prune(&none, &seen, &r), -EINVAL);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_prune(st, &o, NULL, NULL, &r), -EROFS);
	fab_store_close(st);
	integrity_ok();
}

static void test_duration(void **state)
{
	static const struct { const char *s; int64_t ms; } ok[] = {
		{ "30d", 30 * DAY }, { "12h", 12 * 3600 * 1000LL }, { "2w", 14 * DAY },
		{ "90m", 90 * 60 * 1000LL }, { "45s", 45000 }, { "1d12h", DAY + 12 * 3600 * 1000LL },
		{ "1w1d1h1m1s", 8 * DAY + 3661000LL }, { "36500d", 36500 * DAY },
	};
	static const char *const bad[] = {
		"", "30", "d", "30x", "-1d", "+1d", "1.5d", "1d ", " 1d", "0d", "0s",
		"1000000000d", "36700d", "1dd", "1D", "5y",
	};
	int64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = -1;
		if (fab_duration_parse(ok[i].s, &v) || v != ok[i].ms)
			fail_msg("'%s' -> %lld", ok[i].s, (long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = -1;
		if (fab_duration_parse(bad[i], &v) != -EINVAL || v != -1)
			fail_msg("'%s' accepted", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_keep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_older_than, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baselines_protected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_api, setup, teardown),
		cmocka_unit_test_setup_teardown(test_future_tables_and_old_files, setup, teardown),
		cmocka_unit_test(test_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
