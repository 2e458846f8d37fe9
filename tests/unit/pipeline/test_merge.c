// SPDX-License-Identifier: MIT
/*
 * The collect and merge pipelines: a snapshot file collected from a sysfs
 * fixture, merged with a copy of itself (the same system twice: one kept),
 * a file that is not there (a scan error, the merge goes on) and a file with
 * an InfiniBand part (a note); nothing merged is an error that writes
 * nothing, not even an empty database. Inputs from a directory, a list file
 * and a stream; the target refused as an input; merge --into reads only the
 * files that changed since the merge it builds on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/store.h"
#include "unit/rules/rulefix.h"

static char db[600], a[600], b[600], ib[600], missing[600], sysfs[600], dir[600], list[700];

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
	fabfix_path(dir, sizeof(dir), "merge_dir", "");
	snprintf(list, sizeof(list), "%s.list", dir);
	return 0;
}

static int teardown(void **state)
{
	fabfix_unlink_db(db);
	fabfix_unlink_db(a);
	fabfix_unlink_db(b);
	fabfix_unlink_db(ib);
	char p[700];
	for (const char *const *f = (const char *const[]){ "x.db", "y.db", "notes.txt", NULL }; *f; f++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *f);
		unlink(p);
	}
	rmdir(dir);
	unlink(list);
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
	assert_non_null(strstr(res.snap->errors[0].message, "does not exist: check the path"));
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

static size_t merged(const struct fab_pipeline_merge *job, struct fab_pipeline_merge_result *res)
{
	int err = fab_pipeline_merge(job, res);

	if (err)
		fail_msg("merge: %s", fab_errmsg());
	return res->merged;
}

/* Inputs from a directory (its *.db files, the target among them left out),
 * a list (comments and empty lines skipped) and a stream; the target named
 * as an input, or a list that is not there: refused; nothing usable:
 * nothing created. */
static void test_inputs(void **state)
{
	struct fab_pipeline_merge_result res;
	char x[700], y[700], notes[700];

	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(x, sizeof(x), "%s/x.db", dir);
	snprintf(y, sizeof(y), "%s/y.db", dir);
	snprintf(notes, sizeof(notes), "%s/notes.txt", dir);
	collect(x);
	collect(y);
	FILE *f = fopen(notes, "w");
	fputs("not an input\n", f);
	fclose(f);
	const char *in_dir[] = { dir };
	struct fab_pipeline_merge job = { .db = y, .files = in_dir, .n_files = 1 };
	/* y.db is the target: left out of its directory */
	assert_int_equal(merged(&job, &res), 1);
	assert_int_equal(res.inputs, 1);
	assert_string_equal(res.snap->roce->inputs[0].file, x);
	fab_snapshot_free(res.snap);
	/* named as an input: refused before anything is read */
	const char *self[] = { x, y };
	job.files = self;
	job.n_files = 2;
	assert_int_equal(fab_pipeline_merge(&job, &res), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "is the target database itself"));
	fab_snapshot_free(res.snap);

	/* a list and a stream, the same file in both read once */
	f = fopen(list, "w");
	fprintf(f, "# hosts of rack 1\n\n%s\n%s\n", x, missing);
	fclose(f);
	char stream_text[800];
	snprintf(stream_text, sizeof(stream_text), "%s\n", x);
	FILE *in = fmemopen(stream_text, strlen(stream_text), "r");
	const char *lists[] = { list, "-" };
	struct fab_pipeline_merge lj = { .db = db, .lists = lists, .n_lists = 2, .list_in = in };
	assert_int_equal(fab_pipeline_merge(&lj, &res), 0);
	fclose(in);
	assert_int_equal(res.inputs, 2); /* x (twice: once) and the missing file */
	assert_int_equal(res.merged, 1);
	size_t n_merge = 0; /* and what the collector missed (its lldpd), under x's name */
	for (size_t i = 0; i < res.snap->n_errors; i++)
		if (!strcmp(res.snap->errors[i].what, "merge")) {
			n_merge++;
			assert_non_null(strstr(res.snap->errors[i].message, missing));
		}
	assert_int_equal(n_merge, 1);
	fab_snapshot_free(res.snap);
	const char *nolist[] = { missing };
	lj.lists = nolist;
	lj.n_lists = 1;
	assert_int_equal(fab_pipeline_merge(&lj, &res), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "list '"));
	fab_snapshot_free(res.snap);

	/* nothing usable: an error, and no database made */
	char fresh[700];
	snprintf(fresh, sizeof(fresh), "%s/fresh.db", dir);
	const char *bad[] = { missing, notes };
	struct fab_pipeline_merge nj = { .db = fresh, .files = bad, .n_files = 2 };
	assert_int_equal(fab_pipeline_merge(&nj, &res), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "none of the 2 inputs could be merged"));
	assert_int_equal(res.snap->n_errors, 2);
	assert_non_null(strstr(res.snap->errors[1].message, "is not a fabsweep database"));
	assert_int_equal(access(fresh, F_OK), -1);
	fab_snapshot_free(res.snap);
}

/* merge --into: the files as the latest merge read them are not opened;
 * a file changed since is; one not given any more keeps its systems. */
static void test_into(void **state)
{
	struct fab_pipeline_merge_result res;

	collect(a);
	collect(b);
	const char *files[] = { a, b };
	struct fab_pipeline_merge job = { .db = db, .files = files, .n_files = 2, .into = true };
	assert_int_equal(merged(&job, &res), 2); /* no merge there yet: a full one */
	assert_int_equal(res.base_scan, 0);
	fab_snapshot_free(res.snap);
	/* nothing changed: nothing read or written, the answer is scan 1 */
	assert_int_equal(merged(&job, &res), 0);
	assert_int_equal(res.unchanged, 2);
	assert_int_equal(res.base_scan, 1);
	assert_true(res.same);
	assert_int_equal(res.snap->scan_id, 1);
	assert_null(res.snap->roce);
	fab_snapshot_free(res.snap);
	/* ... unless a label asks for a scan of its own: the same fabric */
	job.label = "again";
	assert_int_equal(merged(&job, &res), 0);
	assert_false(res.same);
	assert_int_equal(res.snap->scan_id, 2);
	assert_int_equal(res.snap->roce->n_inputs, 2);
	assert_int_equal(res.snap->roce->inputs[0].status, FAB_MERGE_UNCHANGED);
	fab_snapshot_free(res.snap);
	job.label = NULL;
	/* b collected again: read again, and only it */
	struct utimbuf later = { .actime = time(NULL) + 60, .modtime = time(NULL) + 60 };
	assert_int_equal(utime(b, &later), 0);
	assert_int_equal(merged(&job, &res), 1);
	assert_int_equal(res.unchanged, 1);
	assert_int_equal(res.base_scan, 2);
	assert_false(res.same);
	fab_snapshot_free(res.snap);
	/* the same file named from another directory, relatively: the same
	 * input (recorded absolute), not read again */
	char cwd[700], rel[700], bdir[700];
	const char *slash = strrchr(b, '/');
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(rel, sizeof(rel), "./%s", slash + 1);
	snprintf(bdir, sizeof(bdir), "%.*s", (int)(slash - b), b);
	assert_int_equal(chdir(bdir), 0);
	const char *rel_files[] = { a, rel };
	job.files = rel_files;
	assert_int_equal(merged(&job, &res), 0);
	assert_int_equal(res.unchanged, 2);
	assert_true(res.same);
	assert_int_equal(res.base_scan, 3);
	assert_int_equal(chdir(cwd), 0);
	fab_snapshot_free(res.snap);
	job.files = files;
	/* a not given: nothing changed either; in a labelled scan its system
	 * and record stay */
	const char *only_b[] = { b };
	job.files = only_b;
	job.n_files = 1;
	assert_int_equal(merged(&job, &res), 0);
	assert_true(res.same);
	fab_snapshot_free(res.snap);
	job.label = "without a";
	assert_int_equal(merged(&job, &res), 0);
	assert_int_equal(res.unchanged, 1);
	assert_int_equal(res.snap->roce->n_inputs, 2);
	bool collected = false;
	for (size_t i = 0; i < res.snap->roce->n_systems; i++)
		collected |= res.snap->roce->systems[i].collected;
	assert_true(collected);
	fab_snapshot_free(res.snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inputs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_into, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
