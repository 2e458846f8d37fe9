// SPDX-License-Identifier: MIT
/*
 * fabsweep route, run as a user runs it: usage errors exit 2, --all-pairs
 * prints only the pairs that break and the counts, and exits 1 when one
 * breaks, 0 when none does. (What the pipeline finds:
 * tests/unit/pipeline/test_route.c.)
 */
#include "unit/cli/runcli.h"
#include "unit/site_rules/sitefix.h"

static char db[512];

static int setup(void **state)
{
	sf_path(db, sizeof(db), "cli_route.db");
	sf_make_db(db);
	/* leaf01 drops host08's LID (14) */
	sf_sql(db, "UPDATE lft_blocks SET ports = CAST(substr(ports, 1, 14) || X'FF' || substr(ports, 16) AS BLOB)"
		   " WHERE block_id = (SELECT tb.block_id FROM switch_tables t JOIN nodes n USING (scan_id, node_guid)"
		   " JOIN lft_table_blocks tb ON tb.table_id = t.table_id WHERE t.scan_id = 2"
		   " AND n.description = 'leaf01')");
	return 0;
}

static int teardown(void **state)
{
	sf_unlink_db(db);
	return 0;
}

static void test_usage(void **state)
{
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "--all-pairs needs --hosts LIST or --hostfile FILE"));
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "host[01-", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "host list 'host[01-'"));
	assert_int_equal(cli_run("route", "--db", db, "--hosts", "host01", "host01", "host02", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "go with --all-pairs"));
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "host01", "host02", NULL),
			 FAB_EXIT_USAGE);
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "a", "--hostfile", "f", NULL),
			 FAB_EXIT_USAGE);
	assert_string_equal(cli_out, "");
}

static void test_all_pairs(void **state)
{
	/* leaf01's and leaf02's hosts: every route arrives */
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "host[01-04]", NULL), FAB_EXIT_OK);
	assert_string_equal(cli_out, "all pairs of 4 hosts (4 ports), scan 2: 12 pairs checked, 0 broken, "
				     "0 not judged\n");
	/* with host08: host01 and host02 (on leaf01) cannot reach it */
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "host[01-08],gone", NULL),
			 FAB_EXIT_FINDINGS);
	assert_string_equal(cli_out,
			    "gone: not in the scan: its pairs are not checked\n"
			    "host01 HCA-1/1 (LID 7) -> host08 HCA-1/1 (LID 14): broken: no_entry at leaf01/0\n"
			    "host02 HCA-1/1 (LID 8) -> host08 HCA-1/1 (LID 14): broken: no_entry at leaf01/0\n"
			    "all pairs of 9 hosts (8 ports), scan 2: 56 pairs checked, 2 broken, 0 not judged, "
			    "some hosts missing (above)\n");
	assert_string_equal(cli_err, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_all_pairs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
