// SPDX-License-Identifier: MIT
/*
 * fabsweep physical, run as a user runs it: usage errors exit 2 with one
 * line and nothing on stdout; a scan without modules or bit error ratios
 * says so; --scan picks another scan; --json is one document. (What the
 * lists hold: tests/unit/reports/test_phys.c; on the real sequoia cables:
 * tests/integration/test_import_cli.sh.)
 */
#include "unit/cli/runcli.h"
#include "unit/site_rules/sitefix.h"

static char db[512];

static int setup(void **state)
{
	sf_path(db, sizeof(db), "cli_physical.db");
	sf_make_db(db);
	return 0;
}

static int teardown(void **state)
{
	sf_unlink_db(db);
	return 0;
}

static void test_usage(void **state)
{
	static const char *const bad[][3] = {
		{ "--top", "0", "--top takes a number of rows, 1 to 1000000, not '0'" },
		{ "--top", "ten", "not 'ten'" },
		{ "--scan", "x", "--scan takes a scan id" },
		{ "--what", NULL, "unknown option '--what'" },
		{ "extra", NULL, "unexpected argument 'extra'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cli_run("physical", "--db", db, bad[i][0], bad[i][1], NULL), FAB_EXIT_USAGE);
		if (!strstr(cli_err, bad[i][2]))
			fail_msg("stderr lacks '%s': %s", bad[i][2], cli_err);
		assert_string_equal(cli_out, "");
	}
	assert_int_equal(cli_run("physical", "--db", db, "--scan", "99", NULL), FAB_EXIT_RUNTIME);
	assert_string_equal(cli_out, "");
}

static void test_empty(void **state)
{
	assert_int_equal(cli_run("physical", "--db", db, NULL), FAB_EXIT_OK);
	assert_non_null(strstr(cli_out, "scan 2: no module, cable or bit error ratio recorded"));
	assert_int_equal(cli_run("physical", "--db", db, "--scan", "-1", NULL), FAB_EXIT_OK);
	assert_non_null(strstr(cli_out, "scan 1: no module"));
	assert_int_equal(cli_run("physical", "--db", db, "--json", NULL), FAB_EXIT_OK);
	assert_non_null(strstr(cli_out, "\"command\": \"physical\""));
	assert_non_null(strstr(cli_out, "\"modules\": []"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
