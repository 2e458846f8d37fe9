// SPDX-License-Identifier: MIT
/*
 * The rule fixtures and the consistency test (house style 24).
 *
 * For every rule of the table: docs/rules/<id>.md exists and documents its
 * parameters; fixtures/rules/<id>/{fires,silent}.{sql,expected} exist; on
 * the "fires" fixture the check yields exactly the expected findings (and
 * at least one of the rule), on the "silent" one none of the rule (and
 * exactly what silent.expected lists, usually nothing). Variants
 * fires-NAME and silent-NAME (a threshold the other way, a parameter at a
 * non-default value) are judged the same way. A fixture is SQL
 * applied to a store holding the base fabric (rulefix.h) as scan 1 (an hour
 * earlier) and scan 2 (checked); fixtures/rules/README.md has the details.
 *
 * FIXTURES_UPDATE=1 rewrites the .expected files from what the rules find
 * (review the diff before committing it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/store.h"
#include "unit/rules/rulefix.h"

#define NOW_MS (RF_T0 + 2 * 3600 * 1000LL) /* suppressions expire against this */

static char fixtures[1024], docs[1100];

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void db_path(char *buf, size_t len, const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(buf, len, "%s/rulefix_%d_%s.db", tmp ? tmp : "/tmp", (int)getpid(), tag);
}

static void unlink_db(const char *path)
{
	fabfix_unlink_db(path);
}

/* A store with the base fabric as scan 1 (an hour earlier) and scan 2:
 * written once through the store (the template), then copied for each case
 * (the schema's migrations and the two scans cost more than the rules). */
static char tmpl[1200];
static void make_base_db(const char *path)
{
	char buf[1 << 16];
	struct fab_store *st;
	FILE *in, *out;
	size_t n;

	if (!*tmpl) {
		db_path(tmpl, sizeof(tmpl), "template");
		unlink_db(tmpl);
		assert_int_equal(fab_store_open(tmpl, FAB_STORE_WRITE, &st), 0);
		for (int i = 0; i < 2; i++) {
			struct fab_snapshot *s = rf_base(i == 0 ? -3600 * 1000LL : 0);
			assert_int_equal(fab_store_write_scan(st, s), 0);
			assert_int_equal(s->scan_id, i + 1);
			fab_snapshot_free(s);
		}
		fab_store_close(st); /* checkpoints: the whole database in the file */
	}
	unlink_db(path);
	assert_non_null(in = fopen(tmpl, "rb"));
	assert_non_null(out = fopen(path, "wb"));
	while ((n = fread(buf, 1, sizeof(buf), in)))
		assert_int_equal(fwrite(buf, 1, n, out), n);
	assert_int_equal(fclose(out), 0);
	fclose(in);
}

static void apply_sql(const char *dbp, const char *sql, const char *what)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(dbp, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", what, msg ? msg : "?");
	sqlite3_close(db);
}

/* Each line "-- with: FILE" of sql: FILE (fixtures/rules/FILE: a part several
 * fixtures share, such as a QoS policy's tables) applied first, in order. */
static void apply_withs(const char *dbp, const char *sql, const char *what)
{
	for (const char *w = strstr(sql, "-- with: "); w; w = strstr(w + 1, "-- with: ")) {
		char name[256], path[1400];
		size_t len = strcspn(w + 9, "\n");

		if (len >= sizeof(name))
			fail_msg("%s: a -- with: name too long", what);
		snprintf(name, sizeof(name), "%.*s", (int)len, w + 9);
		snprintf(path, sizeof(path), "%s/rules/%s", fixtures, name);
		char *part = slurp(path);
		if (!part)
			fail_msg("%s: -- with: %s: no such file", what, path);
		apply_sql(dbp, part, path);
		free(part);
	}
}

/* One finding as a line of an .expected file. */
static void format_finding(const struct fab_finding *f, char *buf, size_t len)
{
#define F(x) ((x) ? (x) : "-")
	snprintf(buf, len, "%s | %s | %s | %s | %s | %s | %s | %s | %s", f->rule_id,
		 fab_severity_name(f->severity), F(f->node), F(f->port), F(f->peer_node),
		 F(f->peer_port), F(f->subject), F(f->message), F(f->evidence));
#undef F
}

/* Non-comment, non-blank lines of an .expected file. */
static size_t expected_lines(char *text, char ***out)
{
	size_t n = 0, cap = 16;
	char **v = malloc(cap * sizeof(*v));

	for (char *line = text, *next; line && *line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (!*line || *line == '#')
			continue;
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = line;
	}
	*out = v;
	return n;
}

struct fixture_case {
	const struct fab_rule *rule;
	const char *kind; /* "fires", "silent": what the rule must do */
	char file[64];	  /* the fixture's name: kind, or kind-variant */
	char name[160];
};

/* Runs the rules on scan 2 of a fixture db: returns the findings as loaded
 * back from the store (checking replaces, so it runs twice). */
static struct fab_snapshot *run_case(const char *dbp, const char *sql, const char *conf)
{
	struct fab_config *cfg = NULL;
	struct fab_snapshot *snap, *base = NULL, *back;
	struct fab_store *st;
	const char *b = strstr(sql, "-- baseline:");
	const char *x = strstr(sql, "-- expect:"); /* a reference topology (check --expect) */
	struct fab_snapshot *ref = NULL;
	struct fab_rules_result res;

	if (conf && exists(conf)) {
		if (fab_config_load(conf, &cfg))
			fail_msg("%s", fab_errmsg());
	}
	assert_int_equal(fab_store_open(dbp, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 2, &snap), 0);
	if (b)
		assert_int_equal(fab_store_load_scan(st, strtol(b + 12, NULL, 10), &base), 0);
	if (x)
		assert_int_equal(fab_store_load_scan(st, strtol(x + 10, NULL, 10), &ref), 0);
	for (int round = 0; round < 2; round++) {
		if (fab_rules_run_ref(cfg, snap, base, ref, NOW_MS, &res))
			fail_msg("rules: %s", fab_errmsg());
		assert_int_equal(fab_store_replace_findings(st, snap), 0);
	}
	assert_int_equal(fab_store_load_scan(st, 2, &back), 0);
	assert_int_equal(back->n_findings, snap->n_findings);
	fab_snapshot_free(snap);
	fab_snapshot_free(base);
	fab_snapshot_free(ref);
	fab_store_close(st);
	fab_config_free(cfg);
	return back;
}

static void write_expected(const char *path, const struct fab_snapshot *s)
{
	FILE *f = fopen(path, "w");
	char line[4096];

	assert_non_null(f);
	fprintf(f, "# rule | severity | node | port | peer_node | peer_port | subject | message | evidence\n");
	for (size_t i = 0; i < s->n_findings; i++) {
		format_finding(&s->findings[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	fclose(f);
}

static void test_case(void **state)
{
	const struct fixture_case *fc = *state;
	char sqlp[1200], expp[1200], confp[1200], dbp[1200], tag[128], line[4096];
	char *sql, *exp, **lines;
	size_t n_exp, of_rule = 0;

	snprintf(sqlp, sizeof(sqlp), "%s/rules/%s/%s.sql", fixtures, fc->rule->id, fc->file);
	snprintf(expp, sizeof(expp), "%s/rules/%s/%s.expected", fixtures, fc->rule->id, fc->file);
	snprintf(confp, sizeof(confp), "%s/rules/%s/%s.conf", fixtures, fc->rule->id, fc->file);
	snprintf(tag, sizeof(tag), "%s_%s", fc->rule->id, fc->file);
	db_path(dbp, sizeof(dbp), tag);
	if (!(sql = slurp(sqlp)))
		fail_msg("missing fixture %s", sqlp);
	make_base_db(dbp);
	apply_withs(dbp, sql, sqlp);
	apply_sql(dbp, sql, sqlp);
	struct fab_snapshot *got = run_case(dbp, sql, confp);

	if (getenv("FIXTURES_UPDATE") && *getenv("FIXTURES_UPDATE") == '1')
		write_expected(expp, got);
	if (!(exp = slurp(expp)))
		fail_msg("missing %s", expp);
	n_exp = expected_lines(exp, &lines);
	bool same = n_exp == got->n_findings;
	for (size_t i = 0; i < got->n_findings; i++) {
		format_finding(&got->findings[i], line, sizeof(line));
		of_rule += !strcmp(got->findings[i].rule_id, fc->rule->id);
		if (i < n_exp && strcmp(lines[i], line))
			same = false;
	}
	if (!same) {
		fprintf(stderr, "%s: expected %zu findings:\n", expp, n_exp);
		for (size_t i = 0; i < n_exp; i++)
			fprintf(stderr, "  %s\n", lines[i]);
		fprintf(stderr, "got %zu:\n", got->n_findings);
		for (size_t i = 0; i < got->n_findings; i++) {
			format_finding(&got->findings[i], line, sizeof(line));
			fprintf(stderr, "  %s\n", line);
		}
		fail_msg("%s/%s: findings differ from %s", fc->rule->id, fc->file, expp);
	}
	if (!strcmp(fc->kind, "fires") && !of_rule)
		fail_msg("%s: the %s fixture yields no finding of the rule", fc->rule->id, fc->file);
	if (!strcmp(fc->kind, "silent") && of_rule)
		fail_msg("%s: the %s fixture yields a finding of the rule", fc->rule->id, fc->file);
	free(lines);
	free(exp);
	free(sql);
	fab_snapshot_free(got);
	unlink_db(dbp);
}

/* The base fabric alone is healthy: no finding at all. */
static void test_base_is_healthy(void **state)
{
	char dbp[1200];
	struct fab_snapshot *got;

	db_path(dbp, sizeof(dbp), "base");
	make_base_db(dbp);
	got = run_case(dbp, "", NULL);
	for (size_t i = 0; i < got->n_findings; i++)
		fprintf(stderr, "unexpected: %s %s %s\n", got->findings[i].rule_id,
			got->findings[i].subject, got->findings[i].message);
	assert_int_equal(got->n_findings, 0);
	fab_snapshot_free(got);
	/* and with the baseline too */
	struct fab_store *st;
	struct fab_snapshot *s, *b;
	assert_int_equal(fab_store_open(dbp, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 2, &s), 0);
	assert_int_equal(fab_store_load_scan(st, 1, &b), 0);
	assert_int_equal(fab_rules_run(NULL, s, b, NOW_MS, NULL), 0);
	assert_int_equal(s->n_findings, 0);
	/* and with the earlier scan as the expected topology */
	assert_int_equal(fab_rules_run_ref(NULL, s, b, b, NOW_MS, NULL), 0);
	assert_int_equal(s->n_findings, 0);
	fab_snapshot_free(s);
	fab_snapshot_free(b);
	fab_store_close(st);
	unlink_db(dbp);
}

/* ---- consistency: table, docs and fixtures agree ------------------------------- */

static void test_table_consistent(void **state)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	assert_true(n > 0 && n <= FAB_RULES_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct fab_rule *r = &t[i];

		assert_non_null(r->id);
		assert_ptr_equal(fab_rule_find(r->id), r);
		assert_int_equal(fab_rule_index(r), i);
		/* ids: lower-case "category.name" */
		assert_non_null(strchr(r->id, '.'));
		assert_int_equal(strspn(r->id, "abcdefghijklmnopqrstuvwxyz0123456789._"), strlen(r->id));
		assert_true(r->severity < FAB_SEV__COUNT);
		assert_true(r->category < FAB_CAT__COUNT);
		assert_non_null(r->check);
		assert_true(r->title && *r->title && r->title[strlen(r->title) - 1] != '.');
		assert_true(r->rationale && strlen(r->rationale) > 40);
		assert_true(r->remediation && strlen(r->remediation) > 40);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(t[j].id, r->id);
		for (size_t k = 0; k < r->n_params; k++) {
			const struct fab_rule_param *p = &r->params[k];
			char buf[64];
			double v;

			assert_true(p->section && p->key && p->help && p->type < FAB_PARAM__COUNT);
			/* the default prints as a value the parser accepts back */
			fab_param_format(p, p->def, buf, sizeof(buf));
			assert_int_equal(fab_param_parse(p, buf, &v), 0);
			assert_true(v == p->def);
			/* counter parameters are named as infiniband-diags names them
			 * (RoCE rules: as the RDMA counter files are named) */
			if ((p->type == FAB_PARAM_COUNT || p->type == FAB_PARAM_RATE ||
			     p->type == FAB_PARAM_INCREASE) && !(r->needs & FAB_NEED_ROCE))
				assert_string_equal(p->key, fab_counter_name((unsigned)p->arg));
			/* (section, key) names one parameter of one rule */
			for (size_t j = 0; j <= i; j++)
				for (size_t m = 0; m < t[j].n_params; m++) {
					if (j == i && m == k)
						continue;
					assert_false(!strcmp(t[j].params[m].section, p->section) &&
						     !strcmp(t[j].params[m].key, p->key));
				}
			/* a section is shared, or named after its rule */
			if (strcmp(p->section, "thresholds") && strcmp(p->section, "rates") &&
			    strcmp(p->section, "expect") && strcmp(p->section, "roce") &&
			    strcmp(p->section, "increase") && strcmp(p->section, "routing"))
				assert_string_equal(p->section, r->id);
		}
	}
}

/* The first line of the code block under "## Example finding" is
 * "SEVERITY RULE SUBJECT: MESSAGE", a finding of the rule's fires fixture. */
static void check_example(const struct fab_rule *r, const char *doc, const char *path)
{
	char expp[1200], line[4096];
	const char *sec = strstr(doc, "## Example finding"), *code, *end;

	code = sec ? strstr(sec, "```\n") : NULL;
	if (!code)
		fail_msg("%s: no code block under '## Example finding'", path);
	code += 4;
	end = strchr(code, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(end ? end - code : 0), code);
	/* "severity rule " then "subject: message" */
	const char *p = line + strcspn(line, " ");
	p += strspn(p, " ");
	if (strncmp(p, r->id, strlen(r->id)))
		fail_msg("%s: the example is not a finding of %s: '%s'", path, r->id, line);
	p += strlen(r->id);
	p += strspn(p, " ");

	snprintf(expp, sizeof(expp), "%s/rules/%s/fires.expected", fixtures, r->id);
	char *exp = slurp(expp), **lines;
	if (!exp)
		fail_msg("missing %s", expp);
	size_t n = expected_lines(exp, &lines);
	bool found = false;
	for (size_t i = 0; i < n && !found; i++) {
		/* rule | severity | node | port | peer_node | peer_port | subject | message | ... */
		char *f[9] = { 0 }, *q = lines[i];
		for (int k = 0; k < 9 && q; k++) {
			f[k] = q;
			if ((q = strstr(q, " | ")))
				*q = '\0', q += 3;
		}
		char want[2048];
		if (!f[7])
			continue;
		snprintf(want, sizeof(want), "%s: %s", f[6], f[7]);
		found = !strcmp(f[0], r->id) && !strcmp(want, p) &&
			!strncmp(line, f[1], strlen(f[1]));
	}
	if (!found)
		fail_msg("%s: the example '%s' is not in %s", path, line, expp);
	free(lines);
	free(exp);
}

static void test_docs_and_fixtures_exist(void **state)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);
	char path[1200], head[600];
	static const char *const sections[] = { "## What it checks", "## Why it matters",
						"## Parameters", "## Example finding",
						"## Remediation" };

	for (size_t i = 0; i < n; i++) {
		const struct fab_rule *r = &t[i];
		char *doc;

		snprintf(path, sizeof(path), "%s/rules/%s.md", docs, r->id);
		if (!(doc = slurp(path)))
			fail_msg("rule %s has no documentation %s", r->id, path);
		snprintf(head, sizeof(head), "# %s\n", r->id);
		if (strncmp(doc, head, strlen(head)))
			fail_msg("%s must start with '# %s'", path, r->id);
		for (size_t k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
			if (!strstr(doc, sections[k]))
				fail_msg("%s lacks a '%s' section", path, sections[k]);
		for (size_t k = 0; k < r->n_params; k++)
			if (!strstr(doc, r->params[k].key))
				fail_msg("%s does not document parameter '%s'", path, r->params[k].key);
		/* the title and default severity are the table's */
		snprintf(head, sizeof(head), "# %s\n\n%s.\n", r->id, r->title);
		if (strncmp(doc, head, strlen(head)))
			fail_msg("%s: the second paragraph must be the title '%s.'", path, r->title);
		snprintf(head, sizeof(head), "| default severity | %s |", fab_severity_name(r->severity));
		if (!strstr(doc, head))
			fail_msg("%s does not say '%s'", path, head);
		/* its example is a real finding of its fires fixture */
		if (!r->retired)
			check_example(r, doc, path);
		free(doc);
		if (r->retired)
			continue;
		static const char *const files[] = { "fires.sql", "fires.expected", "silent.sql",
						     "silent.expected" };
		for (size_t k = 0; k < 4; k++) {
			snprintf(path, sizeof(path), "%s/rules/%s/%s", fixtures, r->id, files[k]);
			if (!exists(path))
				fail_msg("rule %s has no fixture %s", r->id, path);
		}
	}
}

/* Nothing in docs/rules/ or fixtures/rules/ that the table does not know. */
static void test_no_strays(void **state)
{
	char path[1200];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/rules", docs);
	assert_non_null(d = opendir(path));
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md"))
			continue;
		if (l < 4 || strcmp(e->d_name + l - 3, ".md"))
			fail_msg("unexpected file docs/rules/%s", e->d_name);
		char id[256];
		snprintf(id, sizeof(id), "%.*s", (int)(l - 3), e->d_name);
		if (!fab_rule_find(id))
			fail_msg("docs/rules/%s documents no rule of the table", e->d_name);
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s/rules", fixtures);
	assert_non_null(d = opendir(path));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md"))
			continue;
		if (!fab_rule_find(e->d_name))
			fail_msg("fixtures/rules/%s is not a rule of the table", e->d_name);
	}
	closedir(d);
	/* docs/config.md names every parameter section */
	snprintf(path, sizeof(path), "%s/config.md", docs);
	char *cfgdoc = slurp(path);
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);
	if (!cfgdoc)
		fail_msg("docs/config.md is missing");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].n_params; k++) {
			char sec[160];
			snprintf(sec, sizeof(sec), "[%s]", t[i].params[k].section);
			if (!strstr(cfgdoc, sec))
				fail_msg("docs/config.md does not mention section %s", sec);
		}
	free(cfgdoc);
}

/* The fixtures of a rule: fires.sql and silent.sql, and any variant
 * fires-NAME.sql or silent-NAME.sql (a threshold crossed the other way, a
 * parameter at a non-default value), each with its .expected and optional
 * .conf. Appends a case for each to cases; returns how many. */
static size_t rule_cases(const struct fab_rule *r, struct fixture_case **cases, size_t *n, size_t *cap)
{
	char path[1200];
	struct dirent *e;
	DIR *d;
	size_t added = 0;

	snprintf(path, sizeof(path), "%s/rules/%s", fixtures, r->id);
	if (!(d = opendir(path)))
		fail_msg("no fixture directory %s", path);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		const char *kind = NULL;

		if (l < 5 || strcmp(e->d_name + l - 4, ".sql") || !strncmp(e->d_name, "with-", 5))
			continue; /* with-NAME.sql: a part fixtures apply first (-- with:) */
		if (!strncmp(e->d_name, "fires", 5) && (l == 9 || e->d_name[5] == '-'))
			kind = "fires";
		else if (!strncmp(e->d_name, "silent", 6) && (l == 10 || e->d_name[6] == '-'))
			kind = "silent";
		else
			fail_msg("fixtures/rules/%s/%s: a fixture is fires[-NAME].sql or silent[-NAME].sql",
				 r->id, e->d_name);
		if (l - 4 >= sizeof((*cases)->file))
			fail_msg("fixtures/rules/%s/%s: name too long", r->id, e->d_name);
		if (*n == *cap)
			*cases = realloc(*cases, (*cap *= 2) * sizeof(**cases));
		struct fixture_case *fc = &(*cases)[(*n)++];
		memset(fc, 0, sizeof(*fc));
		fc->rule = r;
		fc->kind = kind;
		snprintf(fc->file, sizeof(fc->file), "%.*s", (int)(l - 4), e->d_name);
		snprintf(fc->name, sizeof(fc->name), "%s/%s", r->id, fc->file);
		added++;
	}
	closedir(d);
	return added;
}

int main(void)
{
	const char *fx = getenv("FIXTURES");
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	snprintf(fixtures, sizeof(fixtures), "%s", fx ? fx : "fixtures");
	snprintf(docs, sizeof(docs), "%s/../docs", fixtures);

	size_t c = 0, cap = 4 * n;
	struct fixture_case *cases = calloc(cap, sizeof(*cases));

	for (size_t i = 0; i < n; i++)
		if (!t[i].retired)
			rule_cases(&t[i], &cases, &c, &cap);
	struct CMUnitTest *tests = calloc(c + 4, sizeof(*tests));
	size_t k = 0;

	tests[k++] = (struct CMUnitTest){ .name = "table_consistent", .test_func = test_table_consistent };
	tests[k++] = (struct CMUnitTest){ .name = "docs_and_fixtures_exist",
					  .test_func = test_docs_and_fixtures_exist };
	tests[k++] = (struct CMUnitTest){ .name = "no_strays", .test_func = test_no_strays };
	tests[k++] = (struct CMUnitTest){ .name = "base_is_healthy", .test_func = test_base_is_healthy };
	for (size_t i = 0; i < c; i++)
		tests[k++] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_case,
						  .initial_state = &cases[i] };
	int rc = _cmocka_run_group_tests("rules_fixtures", tests, k, NULL, NULL);
	if (*tmpl)
		unlink_db(tmpl);
	free(tests);
	free(cases);
	return rc;
}
