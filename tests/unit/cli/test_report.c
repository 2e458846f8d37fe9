// SPDX-License-Identifier: MIT
/*
 * fabsweep report, run as a user runs it: usage errors exit 2 and write
 * nothing, a runtime failure exits 3 with one line, and the summary it
 * prints. (What the reports hold: tests/unit/reports/.)
 */
#include "unit/cli/runcli.h"

#include <sys/stat.h>

#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "unit/reports/fatfab.h"

static char db[512], xml[512], html[512];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct fab_snapshot *s = fatfab_build(1, 1, 1, true);
	struct fab_store *st;

	snprintf(db, sizeof(db), "%s/cli_report_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	snprintf(xml, sizeof(xml), "%s/cli_report_%d.xml", tmp ? tmp : "/tmp", (int)getpid());
	snprintf(html, sizeof(html), "%s/cli_report_%d.html", tmp ? tmp : "/tmp", (int)getpid());
	unlink(db);
	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	fab_store_close(st);
	fab_snapshot_free(s);
	return 0;
}

static int teardown(void **state)
{
	fabfix_unlink_db(db);
	unlink(xml);
	unlink(html);
	return 0;
}

static void test_usage(void **state)
{
	struct stat sb;

	assert_int_equal(cli_run("report", "--db", db, NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "nothing to write: give --html FILE and/or --xml FILE"));
	assert_int_equal(cli_run("report", "--db", db, "--pdf", "x", NULL), FAB_EXIT_USAGE);
	assert_int_equal(cli_run("report", "--db", db, "--scan", "x7", "--xml", xml, NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "bad --scan 'x7'"));
	assert_int_equal(cli_run("report", "--db", db, "--xml", xml, "--html", xml, NULL), FAB_EXIT_USAGE);
	assert_int_equal(cli_run("report", "--db", db, "--xml", xml, "stray", NULL), FAB_EXIT_USAGE);
	assert_int_equal(cli_run("report", "--db", db, "--xml", NULL), FAB_EXIT_USAGE);
	assert_int_equal(cli_run("report", "--db", db, "--baseline", "", "--xml", xml, NULL), FAB_EXIT_USAGE);
	assert_string_equal(cli_out, "");
	assert_int_equal(stat(xml, &sb), -1);
}

static void test_run(void **state)
{
	struct stat sb;

	assert_int_equal(cli_run("report", "--db", db, "--scan", "42", "--xml", xml, NULL), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(cli_err, "fabsweep: database '"));
	assert_non_null(strstr(cli_err, "has no scan 42"));
	assert_int_equal(strchr(cli_err, '\n') - cli_err, (long)strlen(cli_err) - 1);
	assert_int_equal(stat(xml, &sb), -1);

	assert_int_equal(cli_run("report", "--db", db, "--xml", xml, "--html", html, "--baseline", "-1", NULL),
			 FAB_EXIT_OK);
	assert_non_null(strstr(cli_out, "scan 2: "));
	assert_non_null(strstr(cli_out, ", compared with scan 1\n"));
	char want[1200];
	snprintf(want, sizeof(want), "wrote %s\nwrote %s\n", html, xml);
	assert_non_null(strstr(cli_out, want));
	assert_int_equal(stat(xml, &sb), 0);
	assert_int_equal(stat(html, &sb), 0);
	assert_non_null(strstr(cli_out, "trends: "));

	/* a period: the latest scan, the trends and the findings raised in it */
	assert_int_equal(cli_run("report", "--db", db, "--html", html, "--since", "30d", NULL), FAB_EXIT_OK);
	assert_non_null(strstr(cli_out, "scan 2: "));
	assert_non_null(strstr(cli_out, " findings raised in the period\n"));
	assert_int_equal(cli_run("report", "--db", db, "--html", html, "--no-trends", NULL), FAB_EXIT_OK);
	assert_null(strstr(cli_out, "trends: "));
}

static void test_since_usage(void **state)
{
	(void)state;
	assert_int_equal(cli_run("report", "--db", db, "--html", html, "--since", "soon", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "bad --since 'soon'"));
	assert_int_equal(cli_run("report", "--db", db, "--html", html, "--since", "1h", "--scan", "1", NULL),
			 FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "not both"));
	assert_int_equal(cli_run("report", "--db", db, "--html", html, "--since", "1h", "--no-trends", NULL),
			 FAB_EXIT_USAGE);
	assert_string_equal(cli_out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_since_usage, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
