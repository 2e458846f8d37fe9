// SPDX-License-Identifier: MIT
/*
 * Running site rules (rules/site_run.c) beside the built-in ones: rows
 * become findings like any other (subject derived from GUIDs, text made
 * safe), the config's severities, disabling and suppressions apply by id, a
 * rule that fails or is refused records nothing while the others run, a
 * rule that returns too many rows is cut with one info finding, and site
 * rules see the built-in findings of the scan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "unit/site_rules/sitefix.h"

#define NOW_MS (RF_T0 + 2 * 3600 * 1000LL)

static char dbp[1024], dir[1024];

static int setup(void **state)
{
	sf_path(dbp, sizeof(dbp), "run.db");
	sf_path(dir, sizeof(dir), "run.d");
	sf_make_db(dbp);
	/* a built-in finding: port.errors on leaf02/7 */
	sf_sql(dbp, "UPDATE port_counters SET SymbolErrorCounter = 500 WHERE scan_id = 2"
		    " AND node_guid = '0x0002c90300b00002' AND port_num = 7");
	return 0;
}

static int teardown(void **state)
{
	sf_unlink_db(dbp);
	sf_rmdir(dir);
	return 0;
}

/* What `fabsweep check` does: built-in rules, store, site rules, store.
 * Returns scan 2 as loaded back. */
static struct fab_snapshot *check(struct fab_site_rules *rs, const struct fab_config *cfg,
				  struct fab_site_result *res)
{
	struct fab_store *st;
	struct fab_snapshot *snap, *back;

	assert_int_equal(fab_store_open(dbp, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 2, &snap), 0);
	assert_int_equal(fab_rules_run(cfg, snap, NULL, NOW_MS, NULL), 0);
	assert_int_equal(fab_store_replace_findings(st, snap), 0);
	if (fab_site_rules_run(rs, cfg, st, snap, 0, NOW_MS, res))
		fail_msg("%s", fab_errmsg());
	assert_int_equal(fab_store_replace_findings(st, snap), 0);
	assert_int_equal(fab_store_load_scan(st, 2, &back), 0);
	assert_int_equal(back->n_findings, snap->n_findings);
	fab_snapshot_free(snap);
	fab_store_close(st);
	return back;
}

static void line_of(const struct fab_finding *f, char *buf, size_t len)
{
#define F(x) ((x) ? (x) : "-")
	snprintf(buf, len, "%s | %s | %s | %s | %s | %s | %s | %s", f->rule_id,
		 fab_severity_name(f->severity), F(f->node), F(f->port), F(f->peer_node),
		 F(f->peer_port), F(f->subject), f->message);
#undef F
}

/* The findings of site rules, each as a line, against want (NULL-ended). */
static void expect(const struct fab_snapshot *s, const char *const *want)
{
	char line[2048];
	size_t k = 0;

	for (size_t i = 0; i < s->n_findings; i++) {
		if (strncmp(s->findings[i].rule_id, "site.", 5))
			continue;
		line_of(&s->findings[i], line, sizeof(line));
		if (!want[k])
			fail_msg("unexpected finding: %s", line);
		if (strcmp(line, want[k]))
			fail_msg("finding %zu:\n  got  %s\n  want %s", k, line, want[k]);
		k++;
	}
	if (want[k])
		fail_msg("missing finding: %s", want[k]);
}

static const struct fab_site_rule *rule(struct fab_site_rules *rs, const char *file)
{
	size_t n;
	struct fab_site_rule *v = fab_site_rules_list(rs, &n);

	for (size_t i = 0; i < n; i++)
		if (strstr(v[i].path, file))
			return &v[i];
	fail_msg("no rule file %s", file);
	return NULL;
}

#define ROW(node, port, peer, peer_port, subject, message) \
	"SELECT " node " AS node, " port " AS port, " peer " AS peer_node, " peer_port \
	" AS peer_port, " subject " AS subject, " message " AS message"

static void test_run(void **state)
{
	struct fab_site_rules *rs;
	struct fab_config *cfg;
	struct fab_site_result res;
	char path[1200];
	static const char conf[] =
		"[rules]\n"
		"site.sev = info\n"
		"site.off = off\n"
		"site.on = on\n"
		"[suppress]\n"
		"site.supp = host05* until 2099-12-31\n"
		"site.* = 0x0002c90300c00008 until 2099-12-31\n";

	sf_mkdir(dir);
	/* a GUID, a port and its peer: the subject is derived from names; no
	 * message: the title */
	sf_rule(dir, "10-guid.sql", "site.guid", "warning",
		ROW("'0x0002c90300c00005'", "1", "'0x0002c90300b00003'", "1", "NULL", "NULL") " UNION ALL "
		ROW("'0x0002c90300c00006'", "NULL", "NULL", "NULL", "NULL", "'one node'") " UNION ALL "
		ROW("'0x00000000deadbeef'", "2", "NULL", "NULL", "NULL", "'not in the scan'") " UNION ALL "
		ROW("NULL", "NULL", "NULL", "NULL", "NULL", "'the fabric'") " UNION ALL "
		ROW("'0x0002c90300c00008'", "1", "NULL", "NULL", "NULL", "'suppressed by site.*'"));
	/* names that are not GUIDs, a subject given, control bytes made safe */
	sf_rule(dir, "20-text.sql", "site.text", "info",
		ROW("'roce-host-1'", "'eth0'", "'tor-3'", "'Ethernet12'", "NULL", "'mtu ' || 1500") " UNION ALL "
		ROW("'x'", "''", "NULL", "NULL", "'my subject'", "'bell' || char(7) || ' esc' || char(27) || '[2J ' || char(10) || 'nl'"));
	/* severities from the config */
	sf_rule(dir, "30-sev.sql", "site.sev", "error", ROW("'a'", "NULL", "NULL", "NULL", "NULL", "'was error'"));
	sf_rule(dir, "31-off.sql", "site.off", "error", ROW("'a'", "NULL", "NULL", "NULL", "NULL", "'never'"));
	sf_rule(dir, "32-on.sql", "site.on", "warning", ROW("'a'", "NULL", "NULL", "NULL", "NULL", "'default'"));
	/* a suppression by node name */
	sf_rule(dir, "40-supp.sql", "site.supp", "warning",
		"SELECT node_guid AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port,"
		" NULL AS subject, 'host' AS message FROM nodes WHERE scan_id = :scan_id"
		" AND node_guid IN ('0x0002c90300c00004', '0x0002c90300c00005') ORDER BY node_guid");
	/* rows, then a long search: the time limit stops it; nothing recorded */
	snprintf(path, sizeof(path), "%s/50-slow.sql", dir);
	sf_write(path, "-- id: site.slow\n-- severity: error\n-- title: Slow\n-- remediation: R\n"
		       "-- time-limit: 0.3\n"
		       "WITH RECURSIVE f(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM f)\n"
		       "SELECT x AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port,"
		       " NULL AS subject, 'row' AS message FROM f WHERE x < 3 OR x > 4000000000000\n");
	/* refused: a write */
	sf_rule(dir, "60-write.sql", "site.write", "error", "DELETE FROM baselines");
	/* broken: the header */
	snprintf(path, sizeof(path), "%s/70-broken.sql", dir);
	sf_write(path, "-- id: site.broken\n-- severity: fatal\n");
	/* builds on the built-in findings of this scan */
	sf_rule(dir, "80-findings.sql", "site.findings", "info",
		"SELECT node, port, peer_node, peer_port, NULL AS subject,"
		" 'built-in ' || rule_id || ': ' || message AS message FROM findings"
		" WHERE scan_id = :scan_id");
	/* too many rows: cut, with one info finding */
	sf_rule(dir, "90-many.sql", "site.many", "warning",
		"WITH RECURSIVE f(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM f WHERE x < 10005)"
		" SELECT 'n' || x AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port,"
		" NULL AS subject, 'row ' || x AS message FROM f");

	assert_int_equal(fab_config_parse(conf, sizeof(conf) - 1, "test.conf", &cfg), 0);
	assert_int_equal(fab_site_rules_load(dir, &rs), 0);
	struct fab_snapshot *s = check(rs, cfg, &res);

	/* the built-in finding comes first, site rules after it in file order */
	assert_string_equal(s->findings[0].rule_id, "port.errors");
	assert_int_equal(s->n_findings, 1 + 4 + 2 + 1 + 1 + 1 + 1 + FAB_SITE_ROWS_MAX + 1);
	static const char *const want[] = {
		"site.guid | warning | 0x0002c90300c00005 | 1 | 0x0002c90300b00003 | 1 | host05 HCA-1/1 <-> leaf03/1 | Test rule site.guid",
		"site.guid | warning | 0x0002c90300c00006 | - | - | - | host06 HCA-1 | one node",
		"site.guid | warning | 0x00000000deadbeef | 2 | - | - | 0x00000000deadbeef/2 | not in the scan",
		"site.guid | warning | - | - | - | - | - | the fabric",
		"site.text | info | roce-host-1 | eth0 | tor-3 | Ethernet12 | roce-host-1/eth0 <-> tor-3/Ethernet12 | mtu 1500",
		"site.text | info | x | - | - | - | my subject | bell\\x07 esc\\x1b[2J \\x0anl",
		"site.sev | info | a | - | - | - | a | was error",
		"site.on | warning | a | - | - | - | a | default",
		"site.supp | warning | 0x0002c90300c00004 | - | - | - | host04 HCA-1 | host",
		"site.findings | info | 0x0002c90300b00002 | 7 | 0x0002c90300a00001 | 2 | leaf02/7 <-> spine01/2 | built-in port.errors: SymbolErrorCounter 500 > 10",
		"site.many | warning | n1 | - | - | - | n1 | row 1",
		NULL,
	};
	/* compare all but the 9,999 rows after "row 1" */
	struct fab_snapshot cut = *s;
	size_t first_many = 1 + 10;
	cut.n_findings = first_many + 1;
	expect(&cut, want);
	char line[2048];
	line_of(&s->findings[s->n_findings - 2], line, sizeof(line));
	assert_string_equal(line, "site.many | warning | n10000 | - | - | - | n10000 | row 10000");
	line_of(&s->findings[s->n_findings - 1], line, sizeof(line));
	assert_non_null(strstr(line, "site.many | info | - | - | - | - | site.many | stopped after 10000 findings: the query returns more rows; narrow it ("));
	assert_non_null(strstr(line, "/90-many.sql)"));

	/* statuses and counts */
	assert_int_equal(res.n_ran, 7);
	assert_int_equal(res.n_failed, 2);
	assert_int_equal(res.n_broken, 1);
	assert_int_equal(res.n_disabled, 1);
	assert_int_equal(res.n_suppressed, 2);
	assert_int_equal(res.by_severity[FAB_SEV_ERROR], 0);
	assert_int_equal(res.by_severity[FAB_SEV_WARNING], 4 + 1 + 1 + FAB_SITE_ROWS_MAX);
	assert_int_equal(res.by_severity[FAB_SEV_INFO], 2 + 1 + 1 + 1);
	const struct fab_site_rule *r = rule(rs, "50-slow.sql");
	assert_int_equal(r->status, FAB_SITE_FAILED);
	assert_int_equal(r->err, -ETIME);
	assert_int_equal(r->n_findings, 0);
	assert_non_null(strstr(r->error, "/50-slow.sql': stopped after 0.3 s, its time limit"));
	r = rule(rs, "60-write.sql");
	assert_int_equal(r->status, FAB_SITE_FAILED);
	assert_int_equal(r->err, -EPERM);
	assert_non_null(strstr(r->error, "/60-write.sql': refused: it writes (DELETE from 'baselines')"));
	assert_int_equal(rule(rs, "70-broken.sql")->status, FAB_SITE_BROKEN);
	assert_int_equal(rule(rs, "31-off.sql")->status, FAB_SITE_DISABLED);
	r = rule(rs, "10-guid.sql");
	assert_int_equal(r->status, FAB_SITE_RAN);
	assert_int_equal(r->n_findings, 4);
	assert_null(r->error);
	assert_true(rule(rs, "90-many.sql")->truncated);
	assert_int_equal(rule(rs, "90-many.sql")->n_findings, FAB_SITE_ROWS_MAX + 1);
	fab_snapshot_free(s);

	/* checking again gives the same: site rules see this check's built-in
	 * findings, never their own earlier ones */
	struct fab_site_result res2;
	s = check(rs, cfg, &res2);
	cut = *s;
	cut.n_findings = first_many + 1;
	expect(&cut, want);
	assert_int_equal(s->n_findings, 1 + 4 + 2 + 1 + 1 + 1 + 1 + FAB_SITE_ROWS_MAX + 1);
	assert_memory_equal(&res, &res2, sizeof(res));
	fab_snapshot_free(s);

	/* the database was only read */
	assert_int_equal(sf_count(dbp, "SELECT count(*) FROM findings WHERE scan_id = 2"),
			 (long long)(1 + 11 + FAB_SITE_ROWS_MAX));
	fab_site_rules_free(rs);
	fab_config_free(cfg);
}

/* A rule that fails records nothing, even the rows it gave before. */
static void test_failed_leaves_nothing(void **state)
{
	struct fab_site_rules *rs;
	struct fab_site_result res;
	char path[1200];

	sf_mkdir(dir);
	snprintf(path, sizeof(path), "%s/a.sql", dir);
	sf_write(path, "-- id: site.toobig\n-- severity: error\n-- title: T\n-- remediation: R\n"
		       "WITH RECURSIVE f(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM f WHERE x < 5)\n"
		       "SELECT x AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port, NULL AS subject,\n"
		       " iif(x < 4, 'ok', printf('%.*c', 60000, 'x') || printf('%.*c', 60000, 'x')) AS message FROM f\n");
	sf_rule(dir, "b.sql", "site.fine", "info", ROW("'n'", "NULL", "NULL", "NULL", "NULL", "'fine'"));
	assert_int_equal(fab_site_rules_load(dir, &rs), 0);
	struct fab_snapshot *s = check(rs, NULL, &res);
	static const char *const want[] = {
		"site.fine | info | n | - | - | - | n | fine",
		NULL,
	};
	expect(s, want);
	assert_int_equal(res.n_failed, 1);
	assert_int_equal(rule(rs, "a.sql")->err, -E2BIG);
	fab_snapshot_free(s);
	fab_site_rules_free(rs);

	/* no rules at all: nothing changes */
	sf_mkdir(dir);
	assert_int_equal(fab_site_rules_load(dir, &rs), 0);
	s = check(rs, NULL, &res);
	assert_int_equal(s->n_findings, 1);
	assert_int_equal(res.n_ran + res.n_failed + res.n_broken + res.n_disabled, 0);
	fab_snapshot_free(s);
	fab_site_rules_free(rs);

	/* a database the sandbox cannot open (the file went away under the
	 * store): an error, nothing appended */
	char gone[600];
	struct fab_store *st;
	sf_path(gone, sizeof(gone), "gone.db");
	sf_unlink_db(gone);
	assert_int_equal(fab_store_open(gone, FAB_STORE_WRITE, &st), 0);
	sf_unlink_db(gone);
	sf_rule(dir, "b.sql", "site.fine", "info", ROW("'n'", "NULL", "NULL", "NULL", "NULL", "'fine'"));
	assert_int_equal(fab_site_rules_load(dir, &rs), 0);
	struct fab_snapshot *empty = fab_snapshot_new();
	assert_true(fab_site_rules_run(rs, NULL, st, empty, 0, NOW_MS, &res) < 0);
	assert_int_equal(empty->n_findings, 0);
	fab_snapshot_free(empty);
	fab_site_rules_free(rs);
	fab_store_close(st);
	sf_unlink_db(gone);
}

static void test_validate(void **state)
{
	struct fab_site_rules *rs;

	sf_mkdir(dir);
	sf_rule(dir, "a.sql", "site.a", "info", ROW("node_guid", "NULL", "NULL", "NULL", "NULL", "'m'") " FROM nodes");
	sf_rule(dir, "b.sql", "site.b", "info", ROW("x", "NULL", "NULL", "NULL", "NULL", "'m'") " FROM nodes");
	sf_rule(dir, "c.sql", "site.c", "info", "PRAGMA user_version");
	sf_rule(dir, "d.sql", "site.d", "info", "-- nothing");
	assert_int_equal(fab_site_rules_load(dir, &rs), 0);
	assert_int_equal(fab_site_rules_validate(rs), 3);
	assert_int_equal(rule(rs, "a.sql")->status, FAB_SITE_LOADED);
	assert_int_equal(rule(rs, "b.sql")->status, FAB_SITE_BROKEN);
	assert_non_null(strstr(rule(rs, "b.sql")->error, "/b.sql': does not compile: no such column: x"));
	assert_non_null(strstr(rule(rs, "c.sql")->error, "/c.sql': refused: it runs PRAGMA user_version"));
	assert_non_null(strstr(rule(rs, "d.sql")->error, "/d.sql': holds no SQL statement"));
	/* broken by validation: not run */
	struct fab_site_result res;
	struct fab_snapshot *s = check(rs, NULL, &res);
	assert_int_equal(res.n_ran, 1);
	assert_int_equal(res.n_broken, 3);
	fab_snapshot_free(s);
	fab_site_rules_free(rs);
}

static void test_config(void **state)
{
	struct fab_config *cfg;
	size_t n;
	unsigned line;
	static const char good[] = "[rules]\nsite.a = off\nport.errors = info\nsite.b = error\nsite.c = on\n"
				   "[suppress]\nsite.a = x until 2030-01-01\nsite.* = y until 2030-01-01\n";

	assert_int_equal(fab_config_parse(good, sizeof(good) - 1, "c.conf", &cfg), 0);
	const struct fab_config_site_rule *v = fab_config_site_rules(cfg, &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].id, "site.a");
	assert_int_equal(v[0].line, 2);
	assert_int_equal(fab_config_site_severity(cfg, "site.a", FAB_SEV_WARNING, &line), -1);
	assert_int_equal(line, 2);
	assert_int_equal(fab_config_site_severity(cfg, "site.b", FAB_SEV_WARNING, &line), FAB_SEV_ERROR);
	assert_int_equal(line, 4);
	assert_int_equal(fab_config_site_severity(cfg, "site.c", FAB_SEV_INFO, &line), FAB_SEV_INFO);
	assert_int_equal(line, 5);
	assert_int_equal(fab_config_site_severity(cfg, "site.d", FAB_SEV_INFO, &line), FAB_SEV_INFO);
	assert_int_equal(line, 0);
	assert_int_equal(fab_config_severity(cfg, fab_rule_find("port.errors")), FAB_SEV_INFO);
	fab_config_suppressions(cfg, &n);
	assert_int_equal(n, 2);
	fab_config_free(cfg);
	assert_int_equal(fab_config_site_severity(NULL, "site.d", FAB_SEV_ERROR, NULL), FAB_SEV_ERROR);

	/* strict as for built-in rules */
	static const char twice[] = "[rules]\nsite.a = off\nsite.a = on\n";
	assert_int_equal(fab_config_parse(twice, sizeof(twice) - 1, "c.conf", &cfg), -EINVAL);
	assert_string_equal(fab_errmsg(), "c.conf:3: rule 'site.a' is set twice in [rules] (first at line 2); keep one");
	static const char bad[] = "[rules]\nsite.a = loud\n";
	assert_int_equal(fab_config_parse(bad, sizeof(bad) - 1, "c.conf", &cfg), -EINVAL);
	assert_string_equal(fab_errmsg(), "c.conf:2: 'site.a' takes on, off, error, warning or info, not 'loud'");
	static const char other[] = "[rules]\nlocal.a = off\n";
	assert_int_equal(fab_config_parse(other, sizeof(other) - 1, "c.conf", &cfg), -EINVAL);
	static const char supp[] = "[suppress]\nlocal.* = x until 2030-01-01\n";
	assert_int_equal(fab_config_parse(supp, sizeof(supp) - 1, "c.conf", &cfg), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_failed_leaves_nothing),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_config),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
