// SPDX-License-Identifier: MIT
/*
 * The check pipeline (what `fabsweep check` and the check step of a sweep
 * run): what it loads, what it finds and stores, --fail-on, baselines,
 * site rules and their problems, and its errors. (What the command prints:
 * tests/unit/cli/test_check.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "unit/site_rules/sitefix.h"

static char db[512], conf[512], dir[512];

struct notes {
	int n;
	char last[512];
};

static void on_note(const char *msg, void *ctx)
{
	struct notes *n = ctx;

	n->n++;
	snprintf(n->last, sizeof(n->last), "%s", msg);
}

static int setup(void **state)
{
	sf_path(db, sizeof(db), "check.db");
	sf_path(conf, sizeof(conf), "check.conf");
	sf_path(dir, sizeof(dir), "rules.d");
	sf_make_db(db);
	sf_write(conf, "# defaults\n");
	sf_mkdir(dir);
	return 0;
}

static int teardown(void **state)
{
	sf_unlink_db(db);
	unlink(conf);
	sf_rmdir(dir);
	return 0;
}

static struct fab_pipeline_check job_for(unsigned fail_on)
{
	return (struct fab_pipeline_check){ .db = db, .config = conf, .rules_dir = dir,
					    .node_name_map = "", .fail_on = fail_on };
}

static void test_findings(void **state)
{
	struct fab_pipeline_check job = job_for(FAB_SEV_ERROR);
	struct fab_pipeline_check_result *r = NULL;

	assert_int_equal(fab_pipeline_check(&job, &r), 0);
	assert_int_equal(r->snap->scan_id, 2);
	assert_int_equal(r->snap->n_findings, 0);
	assert_false(r->checked.failed);
	assert_string_equal(r->checked.rules.delta_source, "samples");
	assert_true(r->checked.rules.delta_seconds == 10.0);
	assert_null(r->base);
	assert_null(r->reference);
	assert_null(r->names);
	fab_pipeline_check_free(r);

	/* a degraded link (error) and old symbol errors (warning), stored */
	sf_sql(db, "UPDATE port_rows SET width_active='1X' WHERE scan_id=2 AND node_guid IN"
		   " ('0x0002c90300b00003','0x0002c90300c00005') AND port_num=1;"
		   "UPDATE port_counters SET SymbolErrorCounter=77 WHERE scan_id=2"
		   " AND node_guid='0x0002c90300b00002' AND port_num=7;");
	assert_int_equal(fab_pipeline_check(&job, &r), 0);
	assert_true(r->checked.failed);
	assert_int_equal(r->snap->n_findings, 2);
	assert_int_equal(r->checked.rules.by_severity[FAB_SEV_ERROR], 1);
	assert_int_equal(r->checked.rules.by_severity[FAB_SEV_WARNING], 1);
	assert_string_equal(r->snap->findings[0].rule_id, "link.width_degraded");
	assert_string_equal(r->snap->findings[0].message,
			    "link runs at width 1X; both ends could run 4X");
	fab_pipeline_check_free(r);
	assert_int_equal(sf_count(db, "SELECT count(*) FROM findings WHERE scan_id=2"), 2);

	/* checking again replaces, never duplicates; --fail-on */
	job = job_for(FAB_FAIL_NEVER);
	assert_int_equal(fab_pipeline_check(&job, &r), 0);
	assert_false(r->checked.failed);
	fab_pipeline_check_free(r);
	assert_int_equal(sf_count(db, "SELECT count(*) FROM findings WHERE scan_id=2"), 2);
	sf_write(conf, "[rules]\nlink.width_degraded = off\n");
	job = job_for(FAB_SEV_ERROR);
	assert_int_equal(fab_pipeline_check(&job, &r), 0);
	assert_false(r->checked.failed);
	assert_int_equal(r->checked.rules.status[fab_rule_index(fab_rule_find("link.width_degraded"))],
			 FAB_RULE_DISABLED);
	fab_pipeline_check_free(r);
	job = job_for(FAB_SEV_WARNING);
	assert_int_equal(fab_pipeline_check(&job, &r), 0);
	assert_true(r->checked.failed);
	fab_pipeline_check_free(r);
	assert_int_equal(sf_count(db, "SELECT count(*) FROM findings WHERE scan_id=2"), 1);

	/* another scan */
	job.scan_id = 1;
	assert_int_equal(fab_pipeline_check(&job, &r), 0);
	assert_int_equal(r->snap->scan_id, 1);
	assert_false(r->checked.failed);
	fab_pipeline_check_free(r);
	assert_int_equal(sf_count(db, "SELECT count(*) FROM findings WHERE scan_id=1"), 0);
}

static void test_baseline(void **state)
{
	struct fab_pipeline_check job = job_for(FAB_SEV_ERROR);
	struct fab_pipeline_check_result *r = NULL;
	const char *ok[] = { "1", "-1" };

	for (size_t i = 0; i < 2; i++) {
		job.baseline = ok[i];
		assert_int_equal(fab_pipeline_check(&job, &r), 0);
		assert_non_null(r->base);
		assert_int_equal(r->base->scan_id, 1);
		assert_string_equal(r->checked.rules.delta_source, "baseline");
		assert_true(r->checked.rules.delta_seconds == 3600.0);
		fab_pipeline_check_free(r);
	}
	job.baseline = "2";
	assert_int_equal(fab_pipeline_check(&job, &r), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "is the scan being checked"));
	job.scan_id = 1;
	assert_int_equal(fab_pipeline_check(&job, &r), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "newer than the scan checked"));
	job.scan_id = 0;
	job.baseline = "golden";
	assert_int_equal(fab_pipeline_check(&job, &r), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "no baseline is named 'golden'"));
	assert_int_equal(sf_count(db, "SELECT count(*) FROM findings"), 0);
}

static void test_site_rules(void **state)
{
	struct notes notes = { 0 };
	struct fab_pipeline_check job = job_for(FAB_SEV_WARNING);
	struct fab_pipeline_check_result *r = NULL;

	job.note = on_note;
	job.note_ctx = &notes;
	/* one that fires; one broken, one the config names that is not there,
	 * one that fails when it runs: each told, the others run */
	sf_rule(dir, "a.sql", "site.hosts", "warning",
		"SELECT node_guid AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port,"
		" NULL AS subject, 'a host' AS message FROM nodes WHERE scan_id = :scan_id"
		" AND node_type = 'ca' LIMIT 2");
	sf_rule(dir, "c.sql", "site.fails", "error",
		"SELECT node_guid AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port,"
		" NULL AS subject, NULL AS message FROM nodes WHERE no_such_column = 1");
	sf_write(conf, "[rules]\nsite.nowhere = error\n");
	char bad[600];
	snprintf(bad, sizeof(bad), "%s/b.sql", dir);
	sf_write(bad, "-- id: site.broken\n");
	assert_int_equal(fab_pipeline_check(&job, &r), 0);
	assert_int_equal(notes.n, 3);
	assert_non_null(strstr(notes.last, "site rule '"));
	assert_non_null(strstr(notes.last, "c.sql': does not compile: no such column: no_such_column"));
	assert_int_equal(r->checked.site.n_ran, 1);
	assert_int_equal(r->checked.site.n_failed, 1);
	assert_int_equal(r->checked.site.n_broken, 1);
	assert_int_equal(r->checked.rules.by_severity[FAB_SEV_WARNING], 2);
	assert_true(r->checked.failed);
	fab_pipeline_check_free(r);
	assert_int_equal(sf_count(db, "SELECT count(*) FROM findings WHERE rule_id='site.hosts'"), 2);
}

static void test_errors(void **state)
{
	struct fab_pipeline_check job = job_for(FAB_SEV_ERROR);
	struct fab_pipeline_check_result *r = NULL;

	sf_write(conf, "[thresholds]\nSymbolErrorCounter = lots\n");
	assert_int_equal(fab_pipeline_check(&job, &r), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), ":2: 'SymbolErrorCounter' in [thresholds] takes a whole number or 'off', not 'lots'"));
	sf_write(conf, "# defaults\n");
	job.scan_id = 9;
	assert_int_equal(fab_pipeline_check(&job, &r), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "has no scan 9"));
	job.scan_id = 0;
	job.expect = "nonesuch";
	assert_int_equal(fab_pipeline_check(&job, &r), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "--expect 'nonesuch' is neither a file nor a scan"));
	job.expect = NULL;
	job.db = "/nonexistent/x.db";
	assert_int_equal(fab_pipeline_check(&job, &r), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "does not exist"));
	assert_int_equal(access("/nonexistent/x.db", F_OK), -1);
	assert_null(r);
	assert_int_equal(sf_count(db, "SELECT count(*) FROM findings"), 0);
}

/* --expect with a scan: the expected-topology rules run against it. */
static void test_expect(void **state)
{
	struct fab_pipeline_check job = job_for(FAB_SEV_ERROR);
	struct fab_pipeline_check_result *r = NULL;

	sf_sql(db, "UPDATE port_rows SET remote_guid=NULL, remote_port=NULL, remote_node_idx=NULL,"
		   " state='down', phys_state='polling' WHERE scan_id=2 AND node_guid IN"
		   " ('0x0002c90300b00003','0x0002c90300c00005') AND port_num=1;"
		   "DELETE FROM link_rows WHERE scan_id=2 AND (a_guid='0x0002c90300b00003' OR"
		   " b_guid='0x0002c90300b00003') AND (a_guid='0x0002c90300c00005' OR"
		   " b_guid='0x0002c90300c00005')");
	job.expect = "1";
	assert_int_equal(fab_pipeline_check(&job, &r), 0);
	assert_non_null(r->reference);
	assert_int_equal(r->reference->scan_id, 1);
	assert_int_equal(r->checked.rules.status[fab_rule_index(fab_rule_find("topology.missing_link"))],
			 FAB_RULE_RAN);
	assert_true(r->checked.rules.n_findings[fab_rule_index(fab_rule_find("topology.missing_link"))] >= 1);
	fab_pipeline_check_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_findings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_site_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expect, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
