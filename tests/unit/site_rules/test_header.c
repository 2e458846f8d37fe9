// SPDX-License-Identifier: MIT
/*
 * Site rule files (rules/site_load.c): the header is read strictly (an
 * unknown key, a key set twice, a bad value is an error naming file:line),
 * a broken file is kept as broken, and a directory is read in name order
 * with duplicate ids refused in both files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "fabsweep/error.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "unit/site_rules/sitefix.h"

#define HEAD "-- id: site.edr_host\n-- severity: warning\n-- title: A title\n" \
	     "-- remediation: Do this.\n"
#define QUERY "SELECT 1 AS node, 2 AS port, 3 AS peer_node, 4 AS peer_port, 5 AS subject, 6 AS message\n"

/* Parses text as file "x.sql": the one rule. */
static struct fab_site_rules *parse(const char *text, struct fab_site_rule **out)
{
	struct fab_site_rules *rs;
	size_t n;

	assert_int_equal(fab_site_rules_parse(text, strlen(text), "x.sql", &rs), 0);
	*out = fab_site_rules_list(rs, &n);
	assert_int_equal(n, 1);
	return rs;
}

/* text is broken, with an error that contains want. */
static void assert_broken(const char *text, const char *want)
{
	struct fab_site_rule *r;
	struct fab_site_rules *rs = parse(text, &r);

	if (r->status != FAB_SITE_BROKEN)
		fail_msg("not refused: %s", text);
	if (!strstr(r->error, want))
		fail_msg("error '%s' lacks '%s'", r->error, want);
	assert_null(fab_site_rules_find(rs, "site.edr_host"));
	fab_site_rules_free(rs);
}

static void test_valid(void **state)
{
	struct fab_site_rule *r;
	struct fab_site_rules *rs = parse(
		"-- id: site.edr_host\n"
		"-- severity: info\n"
		"-- title: Host at EDR\n"
		"-- rationale: First line\n"
		"--   and its continuation.\n"
		"--\n"
		"-- remediation: Replace the\n"
		"--\tcable.\n"
		"-- time-limit: 0.5s\n"
		"\n"
		"-- id: not a header line any more: a comment of the query\n" QUERY,
		&r);

	assert_int_equal(r->status, FAB_SITE_LOADED);
	assert_null(r->error);
	assert_string_equal(r->path, "x.sql");
	assert_string_equal(r->id, "site.edr_host");
	assert_int_equal(r->severity, FAB_SEV_INFO);
	assert_string_equal(r->title, "Host at EDR");
	assert_string_equal(r->rationale, "First line and its continuation.");
	assert_string_equal(r->remediation, "Replace the cable.");
	assert_true(r->time_limit == 0.5);
	assert_int_equal(r->sql_line, 10);
	assert_string_equal(r->sql, "\n-- id: not a header line any more: a comment of the query\n" QUERY);
	assert_ptr_equal(fab_site_rules_find(rs, "site.edr_host"), r);
	assert_null(fab_site_rules_find(rs, "site.other"));
	fab_site_rules_free(rs);

	/* defaults; no rationale; CRLF line ends and a byte-order mark */
	rs = parse("\xef\xbb\xbf-- id: site.a.b_2\r\n-- severity: error\r\n-- title: T\r\n"
		   "-- remediation: R\r\n" QUERY, &r);
	assert_int_equal(r->status, FAB_SITE_LOADED);
	assert_string_equal(r->id, "site.a.b_2");
	assert_string_equal(r->title, "T");
	assert_null(r->rationale);
	assert_true(r->time_limit == FAB_SITE_TIME_DEFAULT);
	assert_string_equal(r->sql, QUERY);
	assert_int_equal(r->sql_line, 5);
	fab_site_rules_free(rs);

	/* tabs in values become spaces: they are shown */
	rs = parse("-- id: site.t\n-- severity:\tinfo\n-- title: a\tb\n-- remediation: R\n" QUERY, &r);
	assert_int_equal(r->status, FAB_SITE_LOADED);
	assert_string_equal(r->title, "a b");
	fab_site_rules_free(rs);

	/* time limits */
	rs = parse(HEAD "-- time-limit: 60\n" QUERY, &r);
	assert_true(r->time_limit == 60);
	fab_site_rules_free(rs);
	rs = parse(HEAD "-- time-limit: 5s\n" QUERY, &r);
	assert_true(r->time_limit == 5);
	fab_site_rules_free(rs);
}

static void test_strict(void **state)
{
	/* unknown key, with file:line and the known keys */
	assert_broken("-- id: site.edr_host\n-- sevrity: warning\n", "x.sql:2: unknown key 'sevrity' in the header; known: id, severity");
	assert_broken(HEAD "-- evidence: x\n" QUERY, "x.sql:5: unknown key 'evidence'");
	/* a key twice */
	assert_broken(HEAD "-- title: Again\n" QUERY, "x.sql:5: 'title' is set twice (first at line 3)");
	/* a line that is no key: free text belongs after a blank line */
	assert_broken("-- This rule finds EDR hosts\n" HEAD QUERY, "x.sql:1: expected '-- key: value'");
	assert_broken("-- ----------\n" HEAD QUERY, "x.sql:1: expected '-- key: value'");
	assert_broken("-- ID: site.x\n" QUERY, "x.sql:1: expected '-- key: value'");
	/* continuation of a one-line key, or of nothing */
	assert_broken("-- id: site.edr_host\n-- title: A\n--   title goes on\n", "x.sql:3: an indented header line continues remediation or rationale only");
	assert_broken("--   floating\n" HEAD QUERY, "x.sql:1: an indented header line");
	/* no value */
	assert_broken("-- id: site.edr_host\n-- severity:\n", "x.sql:2: 'severity' has no value");
	/* required keys */
	assert_broken("-- severity: warning\n-- title: T\n-- remediation: R\n" QUERY, "x.sql:1: the header has no '-- id:' line");
	assert_broken("-- id: site.edr_host\n-- title: T\n-- remediation: R\n" QUERY, "the header has no '-- severity:' line");
	assert_broken("-- id: site.edr_host\n-- severity: info\n-- remediation: R\n" QUERY, "the header has no '-- title:' line");
	assert_broken("-- id: site.edr_host\n-- severity: info\n-- title: T\n" QUERY, "the header has no '-- remediation:' line");
	assert_broken(QUERY, "x.sql:1: the header has no '-- id:' line");
	assert_broken("", "the header has no '-- id:' line");
	/* a blank line ends the header: what follows is the query's */
	assert_broken("-- id: site.edr_host\n\n-- severity: info\n-- title: T\n-- remediation: R\n" QUERY,
		      "no '-- severity:' line");
}

static void test_values(void **state)
{
	static const char *const bad_ids[] = {
		"edr_host", "port.errors", "site.", "site", "site.EDR", "site.a..b",
		"site.a.", "site.edr-host", "site.a b", "Site.x",
		"site.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	char text[512];

	for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		snprintf(text, sizeof(text), "-- id: %s\n-- severity: info\n-- title: T\n-- remediation: R\n" QUERY,
			 bad_ids[i]);
		assert_broken(text, "x.sql:1: '");
		assert_broken(text, "is not a site rule id: it starts with 'site.'");
	}
	assert_broken("-- id: site.x\n-- severity: critical\n-- title: T\n-- remediation: R\n" QUERY,
		      "x.sql:2: severity is error, warning or info, not 'critical'");
	assert_broken("-- id: site.x\n-- severity: Warning\n-- title: T\n-- remediation: R\n" QUERY,
		      "not 'Warning'");
	static const char *const bad_limits[] = { "0", "-1", "61", "abc", "2 s", "1e9", ".5", "nan", "inf", "5m" };
	for (size_t i = 0; i < sizeof(bad_limits) / sizeof(bad_limits[0]); i++) {
		snprintf(text, sizeof(text), HEAD "-- time-limit: %s\n" QUERY, bad_limits[i]);
		assert_broken(text, "x.sql:5: time-limit is seconds above 0 and at most 60");
	}
	/* a title longer than the limit */
	char *big = malloc(8192);
	snprintf(big, 8192, "-- id: site.x\n-- severity: info\n-- title: %02100d\n-- remediation: R\n", 0);
	assert_broken(big, "x.sql:3: 'title' is longer than");
	free(big);
}

static void test_not_text(void **state)
{
	struct fab_site_rules *rs;
	struct fab_site_rule *r;
	size_t n;

	assert_broken(HEAD "SELECT '\x1b[2J' AS node\n", "x.sql:5: byte 0x1b at column 9: a rule file is UTF-8 text without control characters or bidirectional overrides");
	assert_broken(HEAD "\x7f\n", "x.sql:5: byte 0x7f at column 1");
	assert_broken("-- id: site.x\r\r\n", "x.sql:1: byte 0x0d at column 14");
	assert_broken("-- id: site.x\n-- title: caf\xe9\n", "x.sql:2: byte 0xe9 at column 14"); /* Latin-1 */
	assert_broken("-- id: site.x\n-- title: \xc2\x9b\n", "x.sql:2: byte 0xc2 at column 11"); /* C1 CSI */
	/* Trojan Source: a right-to-left override inside a comment or string */
	assert_broken(HEAD "SELECT 1 AS node -- \xe2\x80\xae ;)\n", "x.sql:5: byte 0xe2 at column 21");
	assert_broken(HEAD "SELECT '\xe2\x81\xa6' AS node\n", "x.sql:5: byte 0xe2 at column 9");
	/* UTF-8 text and tabs are fine */
	struct fab_site_rule *ok;
	rs = parse("-- id: site.x\n-- severity: info\n-- title: Caf\xc3\xa9 \xe2\x86\x92 r\xc3\xa9seau\n"
		   "-- remediation: R\n\tSELECT 1\n", &ok);
	assert_int_equal(ok->status, FAB_SITE_LOADED);
	assert_string_equal(ok->title, "Caf\xc3\xa9 \xe2\x86\x92 r\xc3\xa9seau");
	fab_site_rules_free(rs);
	/* a NUL byte */
	static const char nul[] = "-- id: site.x\n\0SELECT 1";
	assert_int_equal(fab_site_rules_parse(nul, sizeof(nul) - 1, "x.sql", &rs), 0);
	r = fab_site_rules_list(rs, &n);
	assert_int_equal(r->status, FAB_SITE_BROKEN);
	assert_non_null(strstr(r->error, "x.sql: a NUL byte"));
	fab_site_rules_free(rs);
	/* larger than a rule file may be */
	char *big = malloc(FAB_SITE_FILE_MAX + 2);
	memset(big, ' ', FAB_SITE_FILE_MAX + 1);
	big[FAB_SITE_FILE_MAX + 1] = '\0';
	assert_int_equal(fab_site_rules_parse(big, FAB_SITE_FILE_MAX + 1, "x.sql", &rs), 0);
	r = fab_site_rules_list(rs, &n);
	assert_int_equal(r->status, FAB_SITE_BROKEN);
	assert_int_equal(r->err, -EFBIG);
	assert_non_null(strstr(r->error, "x.sql: larger than 65536 bytes"));
	fab_site_rules_free(rs);
	free(big);
}

static void test_directory(void **state)
{
	char dir[1024], path[1200];
	struct fab_site_rules *rs;
	struct fab_site_rule *v;
	size_t n;

	sf_path(dir, sizeof(dir), "rulesdir");
	sf_mkdir(dir);
	sf_rule(dir, "20-b.sql", "site.b", "error", QUERY);
	sf_rule(dir, "10-a.sql", "site.a", "info", QUERY);
	sf_rule(dir, "30-dup1.sql", "site.dup", "info", QUERY);
	sf_rule(dir, "31-dup2.sql", "site.dup", "info", QUERY);
	sf_rule(dir, ".hidden.sql", "site.hidden", "info", QUERY);
	sf_rule(dir, "notes.txt", "site.txt", "info", QUERY);
	sf_rule(dir, "x.sql.orig", "site.orig", "info", QUERY);
	snprintf(path, sizeof(path), "%s/40-bad.sql", dir);
	sf_write(path, "-- id: site.bad\n-- sevrity: info\n");
	snprintf(path, sizeof(path), "%s/50-dir.sql", dir);
	assert_int_equal(mkdir(path, 0755), 0);

	assert_int_equal(fab_site_rules_load(dir, &rs), 0);
	assert_string_equal(fab_site_rules_dir(rs), dir);
	v = fab_site_rules_list(rs, &n);
	assert_int_equal(n, 6);
	/* name order; ids of valid files */
	assert_non_null(strstr(v[0].path, "/10-a.sql"));
	assert_string_equal(v[0].id, "site.a");
	assert_int_equal(v[0].status, FAB_SITE_LOADED);
	assert_string_equal(v[1].id, "site.b");
	assert_int_equal(v[1].status, FAB_SITE_LOADED);
	/* a duplicate id: both files refused, each naming the other */
	assert_int_equal(v[2].status, FAB_SITE_BROKEN);
	assert_int_equal(v[3].status, FAB_SITE_BROKEN);
	assert_non_null(strstr(v[2].error, "30-dup1.sql: rule id 'site.dup' is also defined by "));
	assert_non_null(strstr(v[2].error, "31-dup2.sql; ids are unique"));
	assert_non_null(strstr(v[3].error, "31-dup2.sql: rule id 'site.dup' is also defined by "));
	assert_non_null(strstr(v[3].error, "30-dup1.sql; ids are unique"));
	assert_null(fab_site_rules_find(rs, "site.dup"));
	/* a bad header, a directory */
	assert_int_equal(v[4].status, FAB_SITE_BROKEN);
	assert_non_null(strstr(v[4].error, "40-bad.sql:2: unknown key 'sevrity'"));
	assert_int_equal(v[5].status, FAB_SITE_BROKEN);
	assert_non_null(strstr(v[5].error, "50-dir.sql: not a regular file"));
	fab_site_rules_free(rs);

	/* a trailing slash is fine */
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(fab_site_rules_load(path, &rs), 0);
	v = fab_site_rules_list(rs, &n);
	assert_int_equal(n, 6);
	assert_null(strstr(v[0].path, "//"));
	fab_site_rules_free(rs);

	/* a directory given that is not there, or not a directory: errors */
	snprintf(path, sizeof(path), "%s/nope", dir);
	assert_int_equal(fab_site_rules_load(path, &rs), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "/nope"));
	snprintf(path, sizeof(path), "%s/10-a.sql", dir);
	assert_int_equal(fab_site_rules_load(path, &rs), -ENOTDIR);
	sf_rmdir(dir);

	/* an empty directory: no rules */
	sf_mkdir(dir);
	assert_int_equal(fab_site_rules_load(dir, &rs), 0);
	fab_site_rules_list(rs, &n);
	assert_int_equal(n, 0);
	fab_site_rules_free(rs);
	sf_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_not_text),
		cmocka_unit_test(test_directory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
