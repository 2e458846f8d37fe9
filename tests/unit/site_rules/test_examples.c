// SPDX-License-Identifier: MIT
/*
 * The example site rules (the .sql files of docs/examples/site-rules) on their fixtures
 * (fixtures/site_rules/<id>/), and the consistency of examples, fixtures and
 * docs/site-rules.md (house style 24).
 *
 * A fixture is SQL applied to the rule fixtures' base fabric (scans 1 and 2,
 * fixtures/rules/README.md); then `fabsweep check` is done as the command
 * does it (built-in rules, store, site rules, store) with the examples'
 * directory, and the site findings loaded back must be exactly those of the
 * .expected file (same format as fixtures/rules). FIXTURES_UPDATE=1
 * rewrites the .expected files (review the diff).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "unit/site_rules/sitefix.h"

#define NOW_MS (RF_T0 + 2 * 3600 * 1000LL)

static char fixtures[1024], examples[1100], doc[1100];

static const char *const kinds[] = { "fires", "silent" };

static void format_finding(const struct fab_finding *f, char *buf, size_t len)
{
#define F(x) ((x) ? (x) : "-")
	snprintf(buf, len, "%s | %s | %s | %s | %s | %s | %s | %s | %s", f->rule_id,
		 fab_severity_name(f->severity), F(f->node), F(f->port), F(f->peer_node),
		 F(f->peer_port), F(f->subject), F(f->message), F(f->evidence));
#undef F
}

/* Runs check on scan 2 of dbp with the example rules; site findings only. */
static struct fab_snapshot *run_check(const char *dbp)
{
	struct fab_site_rules *rs;
	struct fab_store *st;
	struct fab_snapshot *snap, *back;
	struct fab_site_result res;

	assert_int_equal(fab_site_rules_load(examples, &rs), 0);
	assert_int_equal(fab_store_open(dbp, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 2, &snap), 0);
	assert_int_equal(fab_rules_run(NULL, snap, NULL, NOW_MS, NULL), 0);
	assert_int_equal(fab_store_replace_findings(st, snap), 0);
	if (fab_site_rules_run(rs, NULL, st, snap, 0, NOW_MS, &res))
		fail_msg("%s", fab_errmsg());
	if (res.n_failed || res.n_broken) {
		size_t n;
		const struct fab_site_rule *v = fab_site_rules_list(rs, &n);
		for (size_t i = 0; i < n; i++)
			if (v[i].error)
				fprintf(stderr, "%s\n", v[i].error);
		fail_msg("an example rule failed");
	}
	assert_int_equal(res.n_ran, 3);
	assert_int_equal(fab_store_replace_findings(st, snap), 0);
	assert_int_equal(fab_store_load_scan(st, 2, &back), 0);
	/* keep the site rules' findings */
	size_t k = 0;
	for (size_t i = 0; i < back->n_findings; i++)
		if (!strncmp(back->findings[i].rule_id, FAB_SITE_ID_PREFIX, 5))
			back->findings[k++] = back->findings[i];
	back->n_findings = k;
	fab_snapshot_free(snap);
	fab_store_close(st);
	fab_site_rules_free(rs);
	return back;
}

struct example {
	char id[FAB_SITE_ID_MAX + 1];
	const char *kind;
	char name[128];
};

static void test_case(void **state)
{
	const struct example *ex = *state;
	char sqlp[1300], expp[1300], dbp[1300], tag[160], line[4096];
	char *sql, *exp;
	size_t n_exp = 0, of_rule = 0;

	snprintf(sqlp, sizeof(sqlp), "%s/site_rules/%s/%s.sql", fixtures, ex->id, ex->kind);
	snprintf(expp, sizeof(expp), "%s/site_rules/%s/%s.expected", fixtures, ex->id, ex->kind);
	snprintf(tag, sizeof(tag), "%s_%s.db", ex->id, ex->kind);
	sf_path(dbp, sizeof(dbp), tag);
	if (!(sql = sf_slurp(sqlp)))
		fail_msg("missing fixture %s", sqlp);
	sf_make_db(dbp);
	sf_sql(dbp, sql);
	struct fab_snapshot *got = run_check(dbp);

	if (getenv("FIXTURES_UPDATE") && *getenv("FIXTURES_UPDATE") == '1') {
		FILE *f = fopen(expp, "w");
		assert_non_null(f);
		fprintf(f, "# rule | severity | node | port | peer_node | peer_port | subject | message | evidence\n");
		for (size_t i = 0; i < got->n_findings; i++) {
			format_finding(&got->findings[i], line, sizeof(line));
			fprintf(f, "%s\n", line);
		}
		fclose(f);
	}
	if (!(exp = sf_slurp(expp)))
		fail_msg("missing %s", expp);
	bool same = true;
	for (char *l = exp, *next; l && *l; l = next) {
		if ((next = strchr(l, '\n')))
			*next++ = '\0';
		if (!*l || *l == '#')
			continue;
		if (n_exp < got->n_findings) {
			format_finding(&got->findings[n_exp], line, sizeof(line));
			if (strcmp(l, line)) {
				fprintf(stderr, "%s: finding %zu\n  want %s\n  got  %s\n", expp, n_exp, l, line);
				same = false;
			}
		}
		n_exp++;
	}
	for (size_t i = 0; i < got->n_findings; i++) {
		of_rule += !strcmp(got->findings[i].rule_id, ex->id);
		if (i >= n_exp) {
			format_finding(&got->findings[i], line, sizeof(line));
			fprintf(stderr, "%s: unexpected finding: %s\n", expp, line);
		}
	}
	if (!same || n_exp != got->n_findings)
		fail_msg("%s/%s: findings differ from %s (%zu expected, %zu found)", ex->id, ex->kind,
			 expp, n_exp, got->n_findings);
	if (!strcmp(ex->kind, "fires") && !of_rule)
		fail_msg("%s: the fires fixture yields no finding of the rule", ex->id);
	if (!strcmp(ex->kind, "silent") && of_rule)
		fail_msg("%s: the silent fixture yields a finding of the rule", ex->id);
	free(exp);
	free(sql);
	fab_snapshot_free(got);
	sf_unlink_db(dbp);
}

/* The base fabric alone: no example fires. */
static void test_base_is_silent(void **state)
{
	char dbp[1300];

	sf_path(dbp, sizeof(dbp), "examples_base.db");
	sf_make_db(dbp);
	struct fab_snapshot *got = run_check(dbp);
	assert_int_equal(got->n_findings, 0);
	fab_snapshot_free(got);
	sf_unlink_db(dbp);
}

/* Examples, fixtures and docs/site-rules.md agree. */
static void test_consistent(void **state)
{
	struct fab_site_rules *rs;
	size_t n;
	char path[1300], line[4096];
	char *text = sf_slurp(doc);

	if (!text)
		fail_msg("missing %s", doc);
	assert_int_equal(fab_site_rules_load(examples, &rs), 0);
	assert_int_equal(fab_site_rules_validate(rs), 0);
	const struct fab_site_rule *v = fab_site_rules_list(rs, &n);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		const char *file = strrchr(v[i].path, '/') + 1;

		assert_int_equal(v[i].status, FAB_SITE_LOADED);
		/* the file is named after the id */
		snprintf(path, sizeof(path), "%s.sql", v[i].id + 5);
		assert_string_equal(file, path);
		for (size_t k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "%s/site_rules/%s/%s.sql", fixtures, v[i].id, kinds[k]);
			if (access(path, R_OK))
				fail_msg("example %s has no fixture %s", v[i].id, path);
			snprintf(path, sizeof(path), "%s/site_rules/%s/%s.expected", fixtures, v[i].id, kinds[k]);
			if (access(path, R_OK))
				fail_msg("example %s has no %s", v[i].id, path);
		}
		/* documented: named, and its first fires finding as check prints it */
		snprintf(path, sizeof(path), "examples/site-rules/%s", file);
		if (!strstr(text, path) || !strstr(text, v[i].id))
			fail_msg("docs/site-rules.md does not explain %s (%s)", v[i].id, path);
		snprintf(path, sizeof(path), "%s/site_rules/%s/fires.expected", fixtures, v[i].id);
		char *exp = sf_slurp(path), *l = exp;
		while (l && (*l == '#' || *l == '\n'))
			l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
		assert_non_null(l);
		*strchr(l, '\n') = '\0';
		/* rule | severity | node | port | peer | peer_port | subject | message | evidence */
		char *f[9] = { 0 };
		for (int k = 0; k < 9 && l; k++) {
			f[k] = l;
			if ((l = strstr(l, " | ")))
				*l = '\0', l += 3;
		}
		assert_non_null(f[7]);
		snprintf(line, sizeof(line), "%-7s %-22s %s: %s", f[1], f[0], f[6], f[7]);
		if (!strstr(text, line))
			fail_msg("docs/site-rules.md lacks the example finding of %s:\n%s", v[i].id, line);
		free(exp);
	}
	/* no fixture for a rule that is not an example */
	snprintf(path, sizeof(path), "%s/site_rules", fixtures);
	DIR *d = opendir(path);
	struct dirent *e;
	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "README.md") &&
		    !fab_site_rules_find(rs, e->d_name))
			fail_msg("fixtures/site_rules/%s names no example rule", e->d_name);
	closedir(d);
	fab_site_rules_free(rs);
	free(text);
}

int main(void)
{
	const char *fx = getenv("FIXTURES");
	struct fab_site_rules *rs;
	size_t n;

	snprintf(fixtures, sizeof(fixtures), "%s", fx ? fx : "fixtures");
	snprintf(examples, sizeof(examples), "%s/../docs/examples/site-rules", fixtures);
	snprintf(doc, sizeof(doc), "%s/../docs/site-rules.md", fixtures);
	if (fab_site_rules_load(examples, &rs)) {
		fprintf(stderr, "%s\n", fab_errmsg());
		return 1;
	}
	const struct fab_site_rule *v = fab_site_rules_list(rs, &n);
	struct CMUnitTest *tests = calloc(2 * n + 2, sizeof(*tests));
	struct example *cases = calloc(2 * n + 1, sizeof(*cases));
	size_t k = 0;

	tests[k++] = (struct CMUnitTest){ .name = "consistent", .test_func = test_consistent };
	tests[k++] = (struct CMUnitTest){ .name = "base_is_silent", .test_func = test_base_is_silent };
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < 2; j++) {
			struct example *ex = &cases[2 * i + j];
			snprintf(ex->id, sizeof(ex->id), "%s", v[i].id ? v[i].id : "?");
			ex->kind = kinds[j];
			snprintf(ex->name, sizeof(ex->name), "%s/%s", ex->id, ex->kind);
			tests[k++] = (struct CMUnitTest){ .name = ex->name, .test_func = test_case,
							  .initial_state = ex };
		}
	int rc = _cmocka_run_group_tests("site_rule_examples", tests, k, NULL, NULL);
	free(tests);
	free(cases);
	fab_site_rules_free(rs);
	return rc;
}
