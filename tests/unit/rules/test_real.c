// SPDX-License-Identifier: MIT
/*
 * The rules on real fabrics' topology files (fixtures/real/ibnetdiscover/,
 * provenance in fixtures/real/README.md), imported with the ibnetdiscover
 * importer and passed through the store as `fabsweep check` sees them.
 * The first tests' numbers are derived from the files with grep, as each test
 * says, not from the code under test. Then every file against its expected
 * findings (fixtures/real/expected/), reviewed by hand: the verdicts are in
 * their comments and in docs/real-fabrics.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/topo.h"
#include "fabfix/fabfix.h"

static char dbpath[512], confpath[512];

static int teardown(void **state)
{
	fabfix_unlink_db(dbpath);
	unlink(confpath);
	return 0;
}

/* Imports fixtures/real/ibnetdiscover/NAME, stores it, loads it back. */
static struct fab_snapshot *load_real(const char *name)
{
	const char *fx = getenv("FIXTURES"), *tmp = getenv("TMPDIR");
	char path[1200];
	struct fab_snapshot *s = fab_snapshot_new(), *back;
	struct fab_store *st;

	snprintf(path, sizeof(path), "%s/real/ibnetdiscover/%s", fx ? fx : "fixtures", name);
	snprintf(dbpath, sizeof(dbpath), "%s/test_real_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	snprintf(confpath, sizeof(confpath), "%s/test_real_%d.conf", tmp ? tmp : "/tmp", (int)getpid());
	if (fab_topo_import_file(path, s))
		fail_msg("import %s: %s", path, fab_errmsg());
	unlink(dbpath);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	assert_int_equal(fab_store_load_scan(st, 0, &back), 0);
	fab_store_close(st);
	fab_snapshot_free(s);
	return back;
}

static struct fab_config *config(const char *text)
{
	struct fab_config *cfg;
	FILE *f = fopen(confpath, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	if (fab_config_load(confpath, &cfg))
		fail_msg("%s", fab_errmsg());
	return cfg;
}

static size_t count(const struct fab_snapshot *s, const char *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_findings; i++)
		n += !strcmp(s->findings[i].rule_id, rule);
	return n;
}

/* Whether a finding of rule names (guid, port) as one end of it. */
static bool names(const struct fab_snapshot *s, const char *rule, const char *guid,
		  const char *port)
{
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *f = &s->findings[i];
		if (strcmp(f->rule_id, rule))
			continue;
		if ((f->node && !strcmp(f->node, guid) && (!port || (f->port && !strcmp(f->port, port)))) ||
		    (f->peer_node && !strcmp(f->peer_node, guid) &&
		     (!port || (f->peer_port && !strcmp(f->peer_port, port)))))
			return true;
	}
	return false;
}

static void dump(const struct fab_snapshot *s, const char *rule)
{
	for (size_t i = 0; i < s->n_findings; i++)
		if (!rule || !strcmp(s->findings[i].rule_id, rule))
			fprintf(stderr, "  %s %s %s: %s\n", s->findings[i].rule_id, s->findings[i].node,
				s->findings[i].subject, s->findings[i].message);
}

/*
 * Topo.3: 60 Quantum (HDR) switches and two HCAs, both at 4xSDR
 * (grep -n 4xSDR: lines 1021 and 1956, "fit101 HCA-1" and "fit26 HCA-3").
 * With only two host links both SDR, the host-leaf majority is SDR itself:
 * the defect shows once the fabric's speed is stated.
 */
static void test_topo3_sdr_hosts(void **state)
{
	struct fab_snapshot *s = load_real("hyungkwang_Topo.3.txt");
	struct fab_rules_result res;

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, &res), 0);
	assert_int_equal(count(s, "link.speed_degraded"), 0);
	/* the file has no SMInfo and no counters: those rules are skipped */
	assert_int_equal(res.status[fab_rule_index(fab_rule_find("sm.none"))], FAB_RULE_SKIPPED);
	assert_int_equal(res.status[fab_rule_index(fab_rule_find("port.errors"))], FAB_RULE_SKIPPED);
	/* "S-98039b030087668e" ... "base port 0 lid 0" (grep -n '^Switch.*lid 0 ', line 1909) */
	assert_int_equal(count(s, "lid.unassigned"), 1);
	assert_true(names(s, "lid.unassigned", "0x98039b030087668e", "0"));

	struct fab_config *cfg = config("[expect]\nspeed.host-leaf = HDR\n");
	assert_int_equal(fab_rules_run(cfg, s, NULL, 0, &res), 0);
	dump(s, "link.speed_degraded");
	assert_int_equal(count(s, "link.speed_degraded"), 2);
	assert_true(names(s, "link.speed_degraded", "0x98039b030067261c", "1"));
	assert_true(names(s, "link.speed_degraded", "0x98039b0300672824", "1"));
	for (size_t i = 0; i < s->n_findings; i++)
		if (!strcmp(s->findings[i].rule_id, "link.speed_degraded"))
			assert_non_null(strstr(s->findings[i].evidence,
					       "active=SDR; tier=host-leaf; tier_expected=HDR; tier_source=config"));
	fab_config_free(cfg);
	fab_snapshot_free(s);
}

/*
 * Six SwitchIB switches, all links 4xEDR but one inter-switch link at 4xDDR,
 * reported by both ends (grep -n DDR: line 61 in the block of
 * S-ec0d9a0300ec8480 port 11, line 143 in S-ec0d9a0300ec8200 port 11).
 */
static void test_ddr_isl(void **state)
{
	struct fab_snapshot *s = load_real("switchib_edr_6switch_ddr_isl.txt");
	struct fab_rules_result res;

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, &res), 0);
	dump(s, NULL);
	assert_int_equal(count(s, "link.speed_degraded"), 1);
	assert_true(names(s, "link.speed_degraded", "0xec0d9a0300ec8480", "11"));
	assert_true(names(s, "link.speed_degraded", "0xec0d9a0300ec8200", "11"));
	for (size_t i = 0; i < s->n_findings; i++)
		if (!strcmp(s->findings[i].rule_id, "link.speed_degraded")) {
			assert_string_equal(s->findings[i].message,
					    "link runs at speed DDR; most leaf-spine links run EDR");
			assert_int_equal(s->findings[i].severity, 2);
		}
	assert_int_equal(count(s, "link.width_degraded"), 0);
	/* nothing else at error */
	assert_int_equal(res.by_severity[2], 1);
	fab_snapshot_free(s);
}

/*
 * The 2007 Voltaire fabric of `man ibnetdiscover`: two link ends report 1xSDR
 * (grep -c 1xSDR = 2): SW-6IB4 port 1 towards ISR9024 port 10 (line 26), and
 * the HCA 0x0008f10403960558 port 1 towards ISR9024 port 12 (line 52); every
 * other end reports 4xSDR.
 */
static void test_1x_links(void **state)
{
	struct fab_snapshot *s = load_real("jabl_1.topo");
	struct fab_rules_result res;

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, &res), 0);
	dump(s, NULL);
	assert_int_equal(count(s, "link.width_degraded"), 2);
	assert_true(names(s, "link.width_degraded", "0x0008f10400410015", "1"));
	assert_true(names(s, "link.width_degraded", "0x005442ba00003080", "10"));
	assert_true(names(s, "link.width_degraded", "0x0008f10403960558", "1"));
	assert_true(names(s, "link.width_degraded", "0x005442ba00003080", "12"));
	assert_int_equal(count(s, "link.speed_degraded"), 0);
	fab_snapshot_free(s);
}

/* ---- every real topology against its reviewed findings ---------------------------- */

/*
 * fixtures/real/expected/<file>.expected: every finding `check` makes on the
 * imported file and every rule it skips, reviewed by hand (the verdicts are
 * in its comments and in docs/real-fabrics.md). Lines are compared as sets.
 */
static const char *const fabrics[] = {
	"selene.compute.txt",
	"selene.storage.txt",
	"ufm_director.txt",
	"ufm_small_topo_file",
	"hyungkwang_Topo.3.txt",
	"hyungkwang_Topo.5.txt",
	"hyungkwang_Topo6_CS7500.txt",
	"hyungkwang_Topo.6_CS8500.txt",
	"switchib_edr_6switch_ddr_isl.txt",
	"loginoff_sx6036.ibnetdiscover",
	"psmn_X5.topofile",
	"sequoia_ndr.ibdiagnet2.ibnetdiscover",
	"jabl_1.topo",
	"jabl_2.topo",
	"jabl_3.topo",
	"jabl_4.topo",
	"infiniscale_iv_qdr_5host.txt",
};

#define D(x) ((x) ? (x) : "-")

static int cmp_line(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void push(char ***v, size_t *n, size_t *cap, char *line)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = realloc(*v, *cap * sizeof(**v));
		assert_non_null(*v);
	}
	(*v)[(*n)++] = line;
}

/* The lines of an expected file, comments and blank lines aside. */
static char **read_expected(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char buf[4096], **v = NULL;
	size_t cap = 0;

	if (!f)
		fail_msg("cannot open %s", path);
	*n = 0;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] && buf[0] != '#')
			push(&v, n, &cap, strdup(buf));
	}
	fclose(f);
	return v;
}

/* What the run did, in the same lines. */
static char **actual(const struct fab_snapshot *s, const struct fab_rules_result *res, size_t *n)
{
	size_t nr, cap = 0;
	const struct fab_rule *t = fab_rules_table(&nr);
	char **v = NULL, *line;

	*n = 0;
	for (size_t i = 0; i < nr; i++)
		if (res->status[i] == FAB_RULE_SKIPPED) {
			assert_true(asprintf(&line, "skipped %s", t[i].id) > 0);
			push(&v, n, &cap, line);
		}
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *f = &s->findings[i];
		assert_true(asprintf(&line, "%s | %s | %s | %s | %s | %s | %s", f->rule_id,
				     fab_severity_name(f->severity), D(f->node), D(f->port),
				     D(f->peer_node), D(f->peer_port), f->message) > 0);
		push(&v, n, &cap, line);
	}
	return v;
}

static void test_fabric(void **state)
{
	const char *name = *state, *fx = getenv("FIXTURES");
	char path[1200], **want, **got;
	size_t n_want, n_got, i = 0, j = 0, bad = 0;
	struct fab_snapshot *s = load_real(name);
	struct fab_rules_result res;

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, &res), 0);
	snprintf(path, sizeof(path), "%s/real/expected/%s.expected", fx ? fx : "fixtures", name);
	want = read_expected(path, &n_want);
	got = actual(s, &res, &n_got);
	qsort(want, n_want, sizeof(*want), cmp_line);
	qsort(got, n_got, sizeof(*got), cmp_line);
	while (i < n_want || j < n_got) {
		int c = i == n_want ? 1 : j == n_got ? -1 : strcmp(want[i], got[j]);
		if (!c) {
			i++;
			j++;
			continue;
		}
		bad++;
		if (c < 0)
			print_message("expected, not found: %s\n", want[i++]);
		else
			print_message("found, not expected: %s\n", got[j++]);
	}
	for (i = 0; i < n_want; i++)
		free(want[i]);
	for (j = 0; j < n_got; j++)
		free(got[j]);
	free(want);
	free(got);
	fab_snapshot_free(s);
	if (bad)
		fail_msg("%s: %zu lines differ from %s", name, bad, path);
}

static bool listed(const char *name)
{
	for (size_t k = 0; k < sizeof(fabrics) / sizeof(*fabrics); k++)
		if (!strcmp(fabrics[k], name))
			return true;
	return false;
}

/* Every topology file held has its expected findings and is tested; every
 * expected file belongs to one. */
static void test_every_fabric_listed(void **state)
{
	const char *fx = getenv("FIXTURES");
	char path[1200];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/real/ibnetdiscover", fx ? fx : "fixtures");
	assert_non_null(d = opendir(path));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (!listed(e->d_name))
			fail_msg("fixtures/real/ibnetdiscover/%s is not in fabrics[]", e->d_name);
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s/real/expected", fx ? fx : "fixtures");
	assert_non_null(d = opendir(path));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		if (len < 10 || strcmp(e->d_name + len - 9, ".expected"))
			fail_msg("fixtures/real/expected/%s: not NAME.expected", e->d_name);
		e->d_name[len - 9] = '\0';
		if (!listed(e->d_name))
			fail_msg("fixtures/real/expected/%s.expected: no such topology", e->d_name);
	}
	closedir(d);
}

int main(void)
{
	struct CMUnitTest tests[4 + sizeof(fabrics) / sizeof(*fabrics)] = {
		cmocka_unit_test_teardown(test_topo3_sdr_hosts, teardown),
		cmocka_unit_test_teardown(test_ddr_isl, teardown),
		cmocka_unit_test_teardown(test_1x_links, teardown),
		cmocka_unit_test(test_every_fabric_listed),
	};
	for (size_t k = 0; k < sizeof(fabrics) / sizeof(*fabrics); k++)
		tests[4 + k] = (struct CMUnitTest){ .name = fabrics[k],
						    .test_func = test_fabric,
						    .teardown_func = teardown,
						    .initial_state = (void *)fabrics[k] };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
