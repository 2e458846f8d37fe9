// SPDX-License-Identifier: MIT
/*
 * The sweep pipeline without a fabric: the scan is the RoCE part of a sysfs
 * fixture (no InfiniBand, an lldpd socket that is not there: a partial
 * scan), then check, the report directory with its latest.* links, the
 * Prometheus file, retention with the report files of pruned scans; the
 * events in order; a failing step; a setup that fails before the scan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/stat.h>

#include "fabfix/fabfix.h"
#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/store.h"

static char dir[512], db[600], reports[600], prom[600], sysfs[600];

struct seen {
	int n[FAB_SWEEP_FAILED + 1];
	char order[32];
	size_t len;
	int64_t base_id;       /* of the last check: 0 none */
	size_t removed;
	char failed[64];
	char stem[128];
};

static void on_event(const struct fab_sweep_event *e, void *ctx)
{
	struct seen *s = ctx;

	s->n[e->step]++;
	if (s->len + 1 < sizeof(s->order))
		s->order[s->len++] = (char)('0' + e->step);
	if (e->step == FAB_SWEEP_CHECKED)
		s->base_id = e->base ? e->base->scan_id : 0;
	if (e->step == FAB_SWEEP_REPORTED)
		snprintf(s->stem, sizeof(s->stem), "%s", e->stem);
	if (e->step == FAB_SWEEP_REPORTS_REMOVED)
		s->removed = e->reports_removed;
	if (e->step == FAB_SWEEP_FAILED)
		snprintf(s->failed, sizeof(s->failed), "%s", e->what);
}

static int setup(void **state)
{
	fabfix_path(dir, sizeof(dir), "sweep", NULL);
	snprintf(db, sizeof(db), "%s/fab.db", dir);
	snprintf(reports, sizeof(reports), "%s/reports", dir);
	snprintf(prom, sizeof(prom), "%s/fabsweep.prom", dir);
	snprintf(sysfs, sizeof(sysfs), "%s/sysfs/h100_roce", getenv("FIXTURES"));
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void job_init(struct fab_pipeline_sweep *job, struct seen *seen)
{
	static char sock[600];

	memset(job, 0, sizeof(*job));
	memset(seen, 0, sizeof(*seen));
	fab_pipeline_scan_init(&job->scan);
	snprintf(sock, sizeof(sock), "%s/no-lldpd.socket", dir);
	job->db = db;
	job->config = "/dev/null";
	job->rules_dir = dir; /* no *.sql in it */
	job->v[FAB_SWEEP_REPORT_DIR] = reports;
	job->v[FAB_SWEEP_PROMETHEUS] = prom;
	job->v[FAB_SWEEP_KEEP] = "2";
	job->v[FAB_SWEEP_NODE_NAME_MAP] = "none";
	job->scan.no_ib = true;
	job->scan.ro.sysfs_root = sysfs;
	job->scan.lldp_socks[0] = sock;
	job->scan.ro.n_lldp_sockets = 1;
	job->event = on_event;
	job->event_ctx = seen;
}

static bool exists(const char *d, const char *name)
{
	char p[900];
	struct stat sb;

	snprintf(p, sizeof(p), "%s/%s", d, name);
	return stat(p, &sb) == 0;
}

static void test_sweeps(void **state)
{
	struct fab_pipeline_sweep job;
	struct fab_pipeline_sweep_result res;
	struct seen seen;
	char first[128], name[160];

	job_init(&job, &seen);
	assert_int_equal(fab_pipeline_sweep(&job, &res), 0);
	assert_int_equal(res.scan_id, 1);
	assert_int_equal(res.scan_status, FAB_SCAN_PARTIAL); /* the lldpd socket */
	assert_false(res.failed_step);
	assert_false(res.findings);
	/* scanned, checked, exported (before the reports rename nodes in memory),
	 * reported, pruned (nothing), reports removed */
	assert_string_equal(seen.order, "013245");
	assert_int_equal(seen.base_id, 0); /* the first sweep has no previous scan */
	assert_int_equal(seen.removed, 0);
	snprintf(first, sizeof(first), "%s", seen.stem);
	assert_non_null(strstr(first, "-scan1"));
	snprintf(name, sizeof(name), "%s.html", first);
	assert_true(exists(reports, name));
	assert_true(exists(reports, "latest.html"));
	assert_true(exists(reports, "latest.xml"));
	assert_true(exists(dir, "fabsweep.prom"));

	/* the second compares with the first; the third prunes it, reports too */
	job_init(&job, &seen);
	assert_int_equal(fab_pipeline_sweep(&job, &res), 0);
	assert_int_equal(seen.base_id, 1);
	assert_int_equal(seen.removed, 0);
	job_init(&job, &seen);
	assert_int_equal(fab_pipeline_sweep(&job, &res), 0);
	assert_int_equal(res.scan_id, 3);
	assert_int_equal(seen.base_id, 2);
	assert_int_equal(seen.removed, 2);
	assert_false(exists(reports, name));
	snprintf(name, sizeof(name), "%s.html", seen.stem);
	assert_true(exists(reports, name));
}

static void test_failures(void **state)
{
	struct fab_pipeline_sweep job;
	struct fab_pipeline_sweep_result res = { 0 };
	struct seen seen;
	char bad[700], notdir[700];

	/* a step that fails is an event; the steps after it run */
	snprintf(bad, sizeof(bad), "%s/missing/fabsweep.prom", dir);
	job_init(&job, &seen);
	job.v[FAB_SWEEP_PROMETHEUS] = bad;
	assert_int_equal(fab_pipeline_sweep(&job, &res), 0);
	assert_true(res.failed_step);
	assert_string_equal(seen.failed, "the Prometheus export");
	assert_int_equal(seen.n[FAB_SWEEP_PRUNED], 1);

	/* a setup that cannot work fails before anything is scanned */
	snprintf(notdir, sizeof(notdir), "%s/fabsweep.prom", dir);
	FILE *f = fopen(notdir, "w");
	assert_non_null(f);
	fclose(f);
	job_init(&job, &seen);
	job.v[FAB_SWEEP_REPORT_DIR] = notdir;
	assert_int_equal(fab_pipeline_sweep(&job, &res), -ENOTDIR);
	assert_non_null(strstr(fab_errmsg(), "is not a directory"));
	assert_int_equal(seen.len, 0);
	job_init(&job, &seen);
	job.v[FAB_SWEEP_INTERVAL] = "3601";
	assert_int_equal(fab_pipeline_sweep(&job, &res), -EINVAL);
	assert_int_equal(seen.len, 0);

	struct fab_store *st;
	int64_t id;
	assert_int_equal(fab_store_open(db, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_resolve_scan(st, 0, &id), 0);
	assert_int_equal(id, 1); /* only the first sweep scanned */
	fab_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sweeps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
