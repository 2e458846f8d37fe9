// SPDX-License-Identifier: MIT
/*
 * fabsweep check and fabsweep rules, run as a user runs them: exit codes,
 * what they print, and that findings are stored and replaced. (What check
 * finds is tested on the library: tests/unit/pipeline/test_check.c.)
 */
#include "unit/cli/runcli.h"

#include <sqlite3.h>

#include "fabsweep/rules.h"
#include "fabsweep/store.h"
#include "unit/rules/rulefix.h"

static char db[512], conf[512];
#define out cli_out
#define err cli_err

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct fab_store *st;

	snprintf(db, sizeof(db), "%s/test_cmd_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	snprintf(conf, sizeof(conf), "%s/test_cmd_%d.conf", tmp ? tmp : "/tmp", (int)getpid());
	unlink(db);
	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	for (int i = 0; i < 2; i++) {
		struct fab_snapshot *s = rf_base(i ? 0 : -3600 * 1000LL);
		assert_int_equal(fab_store_write_scan(st, s), 0);
		fab_snapshot_free(s);
	}
	fab_store_close(st);
	return 0;
}

static int teardown(void **state)
{
	fabfix_unlink_db(db);
	unlink(conf);
	return 0;
}

static void sql(const char *q)
{
	sqlite3 *h;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, q, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

static long long count(const char *q)
{
	sqlite3 *h;
	sqlite3_stmt *s;
	long long v = -1;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, q, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(h);
	return v;
}

static void write_conf(const char *text)
{
	FILE *f = fopen(conf, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* What `check` says it ran on the base fabric: every rule but those needing
 * a reference (not asked for) or a baseline (skipped). less: rules
 * disabled. */
static const char *ran_text(size_t less, const char *rest)
{
	static char buf[256];
	size_t n, run = 0, skipped = 0;
	const struct fab_rule *t = fab_rules_table(&n);

	for (size_t i = 0; i < n; i++) {
		if (t[i].retired || (t[i].needs & FAB_NEED_REFERENCE))
			continue;
		if (t[i].needs & (FAB_NEED_ROCE_BASELINE | FAB_NEED_BASELINE | FAB_NEED_QOS |
				   FAB_NEED_MODULES | FAB_NEED_NIC_COUNTERS))
			skipped++;
		else
			run++;
	}
	char sk[32];
	snprintf(sk, sizeof(sk), ", %zu skipped", skipped);
	snprintf(buf, sizeof(buf), "%zu rules run%s%s", run - less, skipped ? sk : "", rest);
	return buf;
}

#define CHECK(...) cli_run("check", "--db", db, "--config", conf, __VA_ARGS__, (char *)NULL)

static void test_check(void **state)
{
	write_conf("# defaults\n");
	assert_int_equal(CHECK("--scan", "latest"), FAB_EXIT_OK);
	assert_non_null(strstr(out, "scan 2 (2026-03-01T10:00:00.000Z, ib:mlx5_0/1): "));
	assert_non_null(strstr(out, ran_text(0, "; 0 findings")));
	assert_non_null(strstr(out, "counter deltas: between the scan's two samples (10s)"));
	assert_string_equal(err, "");

	/* a degraded link (error) and old symbol errors (warning) */
	sql("UPDATE port_rows SET width_active='1X' WHERE scan_id=2 AND node_guid IN"
	    " ('0x0002c90300b00003','0x0002c90300c00005') AND port_num=1;"
	    "UPDATE port_counters SET SymbolErrorCounter=77 WHERE scan_id=2"
	    " AND node_guid='0x0002c90300b00002' AND port_num=7;");
	assert_int_equal(CHECK("--limit", "0"), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(out, "2 findings: 1 error, 1 warning, 0 info"));
	assert_non_null(strstr(out, "error   link.width_degraded    leaf03/1 <-> host05 HCA-1/1: link runs at width 1X; both ends could run 4X\n"));
	assert_non_null(strstr(out, "warning port.errors            leaf02/7 <-> spine01/2: SymbolErrorCounter 77 > 10\n"));
	/* the worst first */
	assert_true(strstr(out, "error   link") < strstr(out, "warning port"));
	assert_int_equal(count("SELECT count(*) FROM findings WHERE scan_id=2"), 2);

	/* --summary: by rule, then by node (the node of leaf03/1 <-> host05 is leaf03) */
	assert_int_equal(CHECK("--summary"), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(out, "findings by rule:\n"
				    "  error   link.width_degraded            1 on 1 node\n"
				    "  warning port.errors                    1 on 1 node\n"
				    "findings by node:\n"
				    "  error   leaf03: 1 (link.width_degraded 1)\n"
				    "  warning leaf02: 1 (port.errors 1)\n"));
	assert_null(strstr(out, "SymbolErrorCounter 77")); /* no finding listed */
	assert_int_equal(CHECK("--summary", "--limit", "1"), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(out, "  error   leaf03: 1 (link.width_degraded 1)\n"
				    "... and 1 more nodes: --limit 0 lists them all\n"));
	assert_int_equal(CHECK("--summary", "--json"), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(out, "  \"summary\": {\n    \"by_rule\": [\n      {\n"
				    "        \"rule\": \"link.width_degraded\",\n"
				    "        \"worst\": \"error\",\n        \"findings\": 1,\n"
				    "        \"nodes\": 1,\n"));
	assert_non_null(strstr(out, "        \"node\": \"0x0002c90300b00002\",\n"
				    "        \"name\": \"leaf02\",\n        \"worst\": \"warning\",\n"
				    "        \"findings\": 1,\n"));
	assert_non_null(strstr(out, "\"node_name\": \"leaf03\""));
	assert_non_null(strstr(out, "\"peer_name\": \"host05 HCA-1\""));
	assert_int_equal(CHECK("--json"), FAB_EXIT_FINDINGS);
	assert_null(strstr(out, "\"summary\""));

	/* checking again replaces, never duplicates */
	assert_int_equal(CHECK("--quiet"), FAB_EXIT_FINDINGS);
	assert_string_equal(out, "");
	assert_int_equal(count("SELECT count(*) FROM findings WHERE scan_id=2"), 2);
	assert_int_equal(count("SELECT count(*) FROM findings WHERE scan_id=2 AND rule_id='link.width_degraded'"
			       " AND severity='error' AND node='0x0002c90300b00003' AND port='1'"
			       " AND peer_node='0x0002c90300c00005' AND peer_port='1'"
			       " AND evidence LIKE 'active=1X; best_enabled=4X;%'"), 1);

	/* --fail-on */
	assert_int_equal(CHECK("--fail-on", "never"), FAB_EXIT_OK);
	assert_int_equal(CHECK("--fail-on", "warning"), FAB_EXIT_FINDINGS);
	write_conf("[rules]\nlink.width_degraded = off\n");
	assert_int_equal(CHECK("--fail-on", "error"), FAB_EXIT_OK);
	assert_non_null(strstr(out, ran_text(1, ", 1 disabled; 1 finding: 0 errors, 1 warning, 0 info")));
	assert_int_equal(CHECK("--fail-on", "warning"), FAB_EXIT_FINDINGS);
	assert_int_equal(CHECK("--fail-on", "info"), FAB_EXIT_FINDINGS);
	assert_int_equal(count("SELECT count(*) FROM findings WHERE scan_id=2"), 1);

	/* --limit, suppressions */
	write_conf("[rules]\nport.errors = error\n");
	assert_int_equal(CHECK("--limit", "1"), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(out, "... and 1 more"));
	write_conf("[suppress]\nport.errors = leaf02/7 until 2099-12-31\n"
		   "link.* = host05* until 2020-01-01\n");
	assert_int_equal(CHECK("--fail-on", "warning"), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(out, "1 finding suppressed by"));
	assert_non_null(strstr(out, ":3: the suppression of link.* for 'host05*' expired on 2020-01-01"));

	/* another scan, a baseline */
	assert_int_equal(CHECK("--scan", "1"), FAB_EXIT_OK);
	assert_non_null(strstr(out, "scan 1 ("));
	assert_int_equal(count("SELECT count(*) FROM findings WHERE scan_id=1"), 0);
	write_conf("# defaults\n");
	assert_int_equal(CHECK("--baseline", "1", "--fail-on", "never"), FAB_EXIT_OK);
	assert_non_null(strstr(out, "counter deltas: since the baseline, scan 1 (3600s)"));
	assert_int_equal(CHECK("--baseline", "-1", "--fail-on", "never"), FAB_EXIT_OK);
	assert_non_null(strstr(out, "since the baseline, scan 1"));
}

/* roce.congestion through the CLI: skipped without --baseline, run with one
 * (the baseline is loaded light, RoCE part included). */
static void test_check_roce_baseline(void **state)
{
	write_conf("# defaults\n");
	sql("UPDATE rdma_counters SET value = value + 360000 WHERE scan_id = 2"
	    " AND system = 'host2' AND counter = 'out_of_sequence';");
	assert_int_equal(CHECK("--scan", "2"), FAB_EXIT_OK);
	assert_non_null(strstr(out, "skipped roce.congestion: needs a baseline with RDMA counters (check --baseline)\n"));
	assert_int_equal(CHECK("--scan", "2", "--baseline", "1", "--fail-on", "warning"), FAB_EXIT_FINDINGS);
	assert_null(strstr(out, "skipped roce.congestion"));
	assert_non_null(strstr(out, "warning roce.congestion        host2/eth0: RDMA counters rise faster than their limits: out_of_sequence 101.0/s > 10/s\n"));
	assert_int_equal(count("SELECT count(*) FROM findings WHERE scan_id=2 AND rule_id='roce.congestion'"
			       " AND node='host2' AND port='eth0' AND peer_node IS NULL"), 1);
	assert_int_equal(count("SELECT count(*) FROM findings WHERE scan_id=2"), 1);
}

static void test_check_errors(void **state)
{
	write_conf("# defaults\n");
	/* usage: exit 2, nothing on stdout */
	assert_int_equal(CHECK("--fail-on", "critical"), FAB_EXIT_USAGE);
	assert_non_null(strstr(err, "--fail-on takes error, warning, info or never, not 'critical'"));
	assert_int_equal(CHECK("--scan", "x"), FAB_EXIT_USAGE);
	assert_int_equal(CHECK("--bogus"), FAB_EXIT_USAGE);
	assert_int_equal(CHECK("extra"), FAB_EXIT_USAGE);
	assert_int_equal(CHECK("--limit", "-3"), FAB_EXIT_USAGE);
	assert_string_equal(out, "");

	/* runtime: exit 3, one line, nothing stored */
	write_conf("[thresholds]\nSymbolErrorCounter = lots\n");
	assert_int_equal(CHECK("--scan", "2"), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(err, ":2: 'SymbolErrorCounter' in [thresholds] takes a whole number or 'off', not 'lots'"));
	assert_non_null(strstr(err, conf));
	assert_int_equal(strchr(err, '\n') - err, (long)strlen(err) - 1);
	write_conf("# defaults\n");
	assert_int_equal(CHECK("--scan", "9"), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(err, "has no scan 9"));
	assert_int_equal(CHECK("--baseline", "2"), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(err, "is the scan being checked"));
	assert_int_equal(CHECK("--scan", "1", "--baseline", "2"), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(err, "newer than the scan checked"));
	assert_int_equal(CHECK("--baseline", "golden"), FAB_EXIT_RUNTIME);
	assert_int_equal(cli_run("check", "--db", "/nonexistent/x.db", "--config", conf,
			      (char *)NULL), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(err, "does not exist"));
	assert_int_equal(cli_run("check", "--db", db, "--config", "/nonexistent.conf",
			      (char *)NULL), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(err, "cannot read config file '/nonexistent.conf'"));
	assert_int_equal(count("SELECT count(*) FROM findings"), 0);
	assert_int_equal(access("/nonexistent/x.db", F_OK), -1);
}

static void test_rules(void **state)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	write_conf("# defaults\n");
	assert_int_equal(cli_run("rules", "--config", conf, (char *)NULL), FAB_EXIT_OK);
	for (size_t i = 0; i < n; i++)
		assert_non_null(strstr(out, t[i].id));
	assert_non_null(strstr(out, "port.errors            warning   counters    Error counters above their thresholds\n"));

	assert_int_equal(cli_run("rules", "show", "port.errors", "--config", conf,
			      (char *)NULL), FAB_EXIT_OK);
	assert_non_null(strstr(out, "port.errors: Error counters above their thresholds\n"));
	assert_non_null(strstr(out, "severity:  warning\n"));
	assert_non_null(strstr(out, "Why it matters:\n"));
	assert_non_null(strstr(out, "What to do:\n"));
	assert_non_null(strstr(out, "  [thresholds] SymbolErrorCounter = 10  (default 10)\n"));

	write_conf("[rules]\nport.errors = error\n[thresholds]\nSymbolErrorCounter = 100\n");
	assert_int_equal(cli_run("rules", "--config", conf, (char *)NULL), FAB_EXIT_OK);
	assert_non_null(strstr(out, "port.errors            error*"));
	assert_int_equal(cli_run("rules", "show", "port.errors", "--config", conf,
			      (char *)NULL), FAB_EXIT_OK);
	assert_non_null(strstr(out, "severity:  error (default warning; set at "));
	assert_non_null(strstr(out, "  [thresholds] SymbolErrorCounter = 100  (default 10, set at line 4)\n"));

	assert_int_equal(cli_run("rules", "show", "port.nope", (char *)NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown rule 'port.nope'"));
	assert_int_equal(cli_run("rules", "show", (char *)NULL), FAB_EXIT_USAGE);
	assert_int_equal(cli_run("rules", "list", (char *)NULL), FAB_EXIT_USAGE);
	write_conf("[rules]\nport.errors = loud\n");
	assert_int_equal(cli_run("rules", "--config", conf, (char *)NULL), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(err, ":2: 'port.errors' takes on, off, error, warning or info, not 'loud'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_roce_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
