// SPDX-License-Identifier: MIT
/*
 * The collect and merge pipelines: a snapshot file collected from a sysfs
 * fixture, merged with a copy of itself (the same system twice: one kept),
 * a file that is not there (a scan error, the merge goes on) and a file with
 * an InfiniBand part (a note); nothing merged is an error that writes
 * nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/store.h"
#include "unit/rules/rulefix.h"

static char db[600], a[600], b[600], ib[600], missing[600], sysfs[600];

struct notes {
	int n;
	char last[600];
};

static void on_note(const char *msg, void *ctx)
{
	struct notes *n = ctx;

	n->n++;
	snprintf(n->last, sizeof(n->last), "%s", msg);
}

static int setup(void **state)
{
	fabfix_path(db, sizeof(db), "merge", ".db");
	fabfix_path(a, sizeof(a), "merge_a", ".db");
	fabfix_path(b, sizeof(b), "merge_b", ".db");
	fabfix_path(ib, sizeof(ib), "merge_ib", ".db");
	fabfix_path(missing, sizeof(missing), "merge_missing", ".db");
	snprintf(sysfs, sizeof(sysfs), "%s/sysfs/h100_roce", getenv("FIXTURES"));
	return 0;
}

static int teardown(void **state)
{
	fabfix_unlink_db(db);
	fabfix_unlink_db(a);
	fabfix_unlink_db(b);
	fabfix_unlink_db(ib);
	return 0;
}

static void collect(const char *out)
{
	struct fab_pipeline_collect job = { .out = out, .label = "c" };
	static const char *const socks[] = { "/nonexistent/lldpd.socket" };
	struct fab_snapshot *snap = NULL;

	job.ro.sysfs_root = sysfs;
	job.ro.lldp_sockets = socks;
	job.ro.n_lldp_sockets = 1;
	assert_int_equal(fab_pipeline_collect(&job, &snap), 0);
	assert_non_null(snap->roce);
	assert_int_equal(snap->roce->n_systems, 1);
	assert_int_equal(snap->status, FAB_SCAN_PARTIAL); /* the socket */
	fab_snapshot_free(snap);
}

static void test_merge(void **state)
{
	struct notes notes = { 0 };
	const char *files[] = { a, b, missing, ib };
	struct fab_pipeline_merge job = { .db = db, .label = "m", .files = files, .n_files = 4,
					  .note = on_note, .note_ctx = &notes };
	struct fab_pipeline_merge_result res;
	struct fab_store *st;

	collect(a);
	collect(b);
	struct fab_snapshot *s = rf_base(0);
	assert_int_equal(fab_store_open(ib, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	fab_store_close(st);
	fab_snapshot_free(s);

	assert_int_equal(fab_pipeline_merge(&job, &res), 0);
	assert_int_equal(res.merged, 3);
	assert_int_equal(res.dups, 1); /* a and b: the same system */
	assert_int_equal(notes.n, 1);
	assert_non_null(strstr(notes.last, "the InfiniBand part of '"));
	assert_int_equal(res.snap->status, FAB_SCAN_PARTIAL);
	assert_int_equal(res.snap->scan_id, 1);
	assert_string_equal(res.snap->source, "merge:3 files");
	bool missed = false;
	for (size_t i = 0; i < res.snap->n_errors; i++)
		missed |= !strcmp(res.snap->errors[i].what, "merge") &&
			  strstr(res.snap->errors[i].message, missing);
	assert_true(missed);
	/* rulefix's 8 systems and the collected host */
	assert_int_equal(res.snap->roce->n_systems, 8 + 1);
	fab_snapshot_free(res.snap);

	/* nothing that can be merged: an error, the reasons in res.snap */
	const char *none[] = { missing };
	job.files = none;
	job.n_files = 1;
	assert_int_equal(fab_pipeline_merge(&job, &res), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "the input could not be merged; nothing was written"));
	assert_non_null(res.snap);
	assert_int_equal(res.snap->n_errors, 1);
	assert_int_equal(res.merged, 0);
	fab_snapshot_free(res.snap);
	int64_t id;
	assert_int_equal(fab_store_open(db, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_resolve_scan(st, 0, &id), 0);
	assert_int_equal(id, 1); /* nothing new was written */
	fab_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
