// SPDX-License-Identifier: MIT
/*
 * fabsweep check: run the health rules over a stored snapshot, store the
 * findings with it (replacing earlier ones) and summarise them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/topo.h"

#define FAIL_NEVER 100 /* --fail-on never */
#define DEFAULT_LIMIT 50

int fab_cli_load_config(const char *path, struct fab_config **out)
{
	if (path)
		return fab_config_load(path, out);
	if (access(FAB_CONFIG_DEFAULT_PATH, F_OK) == 0)
		return fab_config_load(FAB_CONFIG_DEFAULT_PATH, out);
	return fab_config_defaults(out);
}

static int parse_fail_on(const char *s)
{
	if (!strcmp(s, "never"))
		return FAIL_NEVER;
	return fab_severity_parse(s);
}

struct colours {
	const char *sev[FAB_SEV__COUNT], *dim, *off;
};

static void set_colours(struct colours *c)
{
	const char *no = getenv("NO_COLOR");

	memset(c, 0, sizeof(*c));
	c->sev[FAB_SEV_INFO] = c->sev[FAB_SEV_WARNING] = c->sev[FAB_SEV_ERROR] = "";
	c->dim = c->off = "";
	if (!fab_cli_tty(stdout) || (no && *no))
		return;
	c->sev[FAB_SEV_ERROR] = "\033[1;31m";
	c->sev[FAB_SEV_WARNING] = "\033[33m";
	c->sev[FAB_SEV_INFO] = "\033[36m";
	c->dim = "\033[2m";
	c->off = "\033[0m";
}

static bool same_reason(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static void print_summary(const struct fab_snapshot *snap, const struct fab_nodemap *names,
			  const struct fab_rules_result *res,
			  const struct fab_site_result *site, const struct fab_config *cfg,
			  int64_t base_id, size_t limit)
{
	size_t n_rules, ran = site->n_ran, skipped = 0, disabled = site->n_disabled, shown = 0;
	size_t site_failed = site->n_failed + site->n_broken;
	const struct fab_rule *t = fab_rules_table(&n_rules);
	char when[FAB_TIME_STRLEN];
	struct colours c;

	set_colours(&c);
	for (size_t i = 0; i < n_rules; i++) {
		ran += res->status[i] == FAB_RULE_RAN;
		skipped += res->status[i] == FAB_RULE_SKIPPED;
		disabled += res->status[i] == FAB_RULE_DISABLED;
	}
	fab_time_format(snap->started_at_ms, when);
	printf("scan %lld (%s, %s): %zu rules run", (long long)snap->scan_id, when,
	       snap->source ? snap->source : "-", ran);
	if (site->n_ran)
		printf(" (%zu site)", site->n_ran);
	if (site_failed)
		printf(", %zu site rule%s failed", site_failed, site_failed == 1 ? "" : "s");
	if (skipped)
		printf(", %zu skipped", skipped);
	if (disabled)
		printf(", %zu disabled", disabled);
	printf("; %zu finding%s: %zu error%s, %zu warning%s, %zu info\n", snap->n_findings,
	       snap->n_findings == 1 ? "" : "s", res->by_severity[FAB_SEV_ERROR],
	       res->by_severity[FAB_SEV_ERROR] == 1 ? "" : "s", res->by_severity[FAB_SEV_WARNING],
	       res->by_severity[FAB_SEV_WARNING] == 1 ? "" : "s", res->by_severity[FAB_SEV_INFO]);
	if (res->delta_source) {
		if (base_id)
			printf("counter deltas: since the baseline, scan %lld (%gs)\n",
			       (long long)base_id, res->delta_seconds);
		else
			printf("counter deltas: between the scan's two samples (%gs)\n",
			       res->delta_seconds);
	}
	/* the worst first, each severity in rule order */
	for (int sev = FAB_SEV_ERROR; sev >= FAB_SEV_INFO; sev--)
		for (size_t i = 0; i < snap->n_findings; i++) {
			const struct fab_finding *f = &snap->findings[i];
			if (f->severity != sev)
				continue;
			if (limit && shown >= limit) {
				shown++;
				continue;
			}
			char sb[1024];
			const char *subject = fab_nodemap_subject(names, snap, f, sb, sizeof(sb));
			printf("%s%-7s%s %-22s %s: %s\n", c.sev[sev], fab_severity_name((unsigned)sev),
			       c.off, f->rule_id, subject ? subject : "-", f->message);
			shown++;
		}
	if (limit && shown > limit)
		printf("... and %zu more: fabsweep report, or sqlite3 -readonly DB 'SELECT * FROM findings WHERE scan_id=%lld'\n",
		       shown - limit, (long long)snap->scan_id);
	/* One line per reason: "skipped ID: why", or "skipped N rules (why):
	 * ID, ID, ..." (an InfiniBand scan skips every RoCE rule alike). */
	bool told[FAB_RULES_MAX] = { false };
	for (size_t i = 0; i < n_rules && i < FAB_RULES_MAX; i++) {
		size_t same = 0;

		if (res->status[i] != FAB_RULE_SKIPPED || told[i])
			continue;
		for (size_t j = i; j < n_rules && j < FAB_RULES_MAX; j++)
			same += res->status[j] == FAB_RULE_SKIPPED &&
				same_reason(res->why_skipped[j], res->why_skipped[i]);
		if (same == 1) {
			printf("%sskipped %s: %s%s\n", c.dim, t[i].id,
			       res->why_skipped[i] ? res->why_skipped[i] : "?", c.off);
			continue;
		}
		printf("%sskipped %zu rules (%s):", c.dim, same,
		       res->why_skipped[i] ? res->why_skipped[i] : "?");
		for (size_t j = i, k = 0; j < n_rules && j < FAB_RULES_MAX; j++)
			if (res->status[j] == FAB_RULE_SKIPPED &&
			    same_reason(res->why_skipped[j], res->why_skipped[i])) {
				printf("%s %s", k++ ? "," : "", t[j].id);
				told[j] = true;
			}
		printf("%s\n", c.off);
	}
	if (res->n_suppressed)
		printf("%s%zu finding%s suppressed by %s%s\n", c.dim, res->n_suppressed,
		       res->n_suppressed == 1 ? "" : "s", fab_config_path(cfg), c.off);
	size_t n_supp;
	const struct fab_suppression *sp = fab_config_suppressions(cfg, &n_supp);
	int64_t now = fab_now_ms();
	for (size_t i = 0; i < n_supp; i++)
		if (now >= sp[i].until_ms)
			printf("note: %s:%u: the suppression of %s for '%s' expired on %s\n",
			       fab_config_path(cfg), sp[i].line, sp[i].rule, sp[i].pattern, sp[i].until);
}

/* Shared with sweep (cli.h). */
int fab_cli_load_reference(struct fab_store *st, const char *ref, struct fab_snapshot **out)
{
	struct fab_snapshot *r;
	struct stat sb;
	int64_t id;
	int err;

	if (!ref || !*ref)
		return fab_err(-EINVAL, "an empty --expect: give an ibnetdiscover file or a scan");
	if (stat(ref, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
		if (!(r = fab_snapshot_new()))
			return fab_err(-ENOMEM, "out of memory");
		if ((err = fab_topo_import_file(ref, r)) || (err = fab_snapshot_index(r))) {
			fab_snapshot_free(r);
			return err == -ENOMEM ? fab_err(err, "out of memory") : err;
		}
		*out = r;
		return 0;
	}
	if (!st)
		return fab_err(-ENOENT, "--expect '%s' is no file (and there is no database to find a scan in)", ref);
	if (fab_cli_parse_scan(ref, &id) ? fab_store_baseline_resolve(st, ref, &id)
					 : fab_store_resolve_scan(st, id, &id))
		return fab_err(-ENOENT, "--expect '%s' is neither a file nor a scan (an id, latest, -N or a baseline name)",
			       ref);
	return fab_store_load_scan(st, id, out);
}

/* Shared with sweep (cli.h): everything `check` does once the snapshot is loaded. */
int fab_cli_check_snapshot(struct fab_store *st, struct fab_snapshot *snap,
			   const struct fab_cli_check *a, int *exit_out)
{
	struct fab_rules_result res;
	struct fab_site_result sres = { 0 };
	size_t n_site;

	if (fab_rules_run_ref(a->cfg, snap, a->base, a->reference, 0, &res) ||
	    fab_store_replace_findings(st, snap))
		return -EIO;
	/* site rules see the built-in findings just stored (docs/site-rules.md);
	 * one that fails is reported and records nothing, the others run */
	fab_site_rules_list(a->site, &n_site);
	if (n_site) {
		if (fab_site_rules_run(a->site, a->cfg, a->db, snap, a->base ? a->base->scan_id : 0, 0, &sres) ||
		    fab_store_replace_findings(st, snap))
			return -EIO;
		fab_cli_print_site_failures(stderr, a->site);
		for (int i = 0; i < FAB_SEV__COUNT; i++)
			res.by_severity[i] += sres.by_severity[i];
		res.n_suppressed += sres.n_suppressed;
	}
	if (!a->quiet) {
		print_summary(snap, a->names, &res, &sres, a->cfg, a->base ? a->base->scan_id : 0, a->limit);
		if (a->reference)
			printf("expected topology: %s (%zu nodes, %zu links)\n",
			       a->reference->scan_id ? fab_snapshot_printf(snap, "scan %lld", (long long)a->reference->scan_id)
						     : a->reference->source ? a->reference->source : "-",
			       a->reference->n_nodes, a->reference->n_links);
	}
	*exit_out = FAB_EXIT_OK;
	for (size_t i = 0; a->fail_on != FAIL_NEVER && i < snap->n_findings; i++)
		if (snap->findings[i].severity >= a->fail_on)
			*exit_out = FAB_EXIT_FINDINGS;
	return 0;
}

int fab_cmd_check(int argc, char **argv)
{
	enum { O_DB = 256, O_SCAN, O_CONFIG, O_FAIL_ON, O_BASELINE, O_LIMIT, O_QUIET, O_RULES_DIR,
	       O_EXPECT, O_MAP /* ops */ };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "scan", required_argument, NULL, O_SCAN },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "fail-on", required_argument, NULL, O_FAIL_ON },
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "limit", required_argument, NULL, O_LIMIT },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "rules-dir", required_argument, NULL, O_RULES_DIR },
		{ "expect", required_argument, NULL, O_EXPECT },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ NULL, 0, NULL, 0 },
	};
	const char *expect = NULL, *map_path = NULL;
	struct fab_snapshot *reference = NULL;
	struct fab_nodemap *names = NULL;
	const char *db = fab_cli_default_db(), *config = NULL, *baseline = NULL, *rules_dir = NULL;
	int64_t scan_id = 0, base_id = 0;
	int fail_on = FAB_SEV_ERROR, quiet = 0, c, ret = FAB_EXIT_RUNTIME;
	long limit = DEFAULT_LIMIT;
	struct fab_config *cfg = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *snap = NULL, *base = NULL;
	struct fab_site_rules *site = NULL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case O_CONFIG: config = optarg; break;
		case O_BASELINE: baseline = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_RULES_DIR: rules_dir = optarg; break;
		case O_EXPECT: expect = optarg; break;
		case O_MAP: map_path = optarg; break;
		case O_SCAN:
			if (fab_cli_parse_scan(optarg, &scan_id))
				return fab_cli_usage_error("check", "--scan takes a scan id, 'latest' or -N, not '%s'",
							   optarg);
			break;
		case O_FAIL_ON:
			if ((fail_on = parse_fail_on(optarg)) < 0)
				return fab_cli_usage_error("check", "--fail-on takes error, warning, info or never, not '%s'",
							   optarg);
			break;
		case O_LIMIT:
			if (fab_cli_parse_int(optarg, 0, 1000000000, &limit))
				return fab_cli_usage_error("check", "--limit takes a whole number (0: no limit), not '%s'",
							   optarg);
			break;
		default:
			return fab_cli_usage_error("check", "unknown option '%s'; 'fabsweep help check' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("check", "unexpected argument '%s'", argv[optind]);

	if (fab_cli_load_config(config, &cfg) ||
	    fab_cli_load_site_rules(rules_dir, cfg, false, &site, NULL))
		goto fail;
	if (access(db, F_OK) != 0) {
		fab_err(-ENOENT, "database '%s' does not exist; run 'fabsweep scan' first or pass --db", db);
		goto fail;
	}
	if (fab_store_open(db, FAB_STORE_WRITE, &st) || fab_store_load_scan(st, scan_id, &snap))
		goto fail;
	if (baseline) {
		if (fab_cli_resolve_baseline(st, baseline, &base_id))
			goto fail;
		if (base_id == snap->scan_id) {
			fab_err(-EINVAL, "--baseline %s is the scan being checked (%lld); pass an earlier scan",
				baseline, (long long)base_id);
			goto fail;
		}
		if (base_id > snap->scan_id) {
			fab_err(-EINVAL, "--baseline %s (scan %lld) is newer than the scan checked (%lld); pass an earlier scan",
				baseline, (long long)base_id, (long long)snap->scan_id);
			goto fail;
		}
		if (fab_store_load_baseline(st, base_id, &base))
			goto fail;
	}
	if ((expect && fab_cli_load_reference(st, expect, &reference)) ||
	    fab_nodemap_open(map_path, &names))
		goto fail;
	struct fab_cli_check ck = { .cfg = cfg, .site = site, .db = db, .base = base,
				    .reference = reference, .names = names, .fail_on = fail_on,
				    .limit = (size_t)limit, .quiet = quiet };
	if (fab_cli_check_snapshot(st, snap, &ck, &ret))
		goto fail;
	goto out;
fail:
	ret = fab_cli_fail();
out:
	fab_snapshot_free(snap);
	fab_snapshot_free(base);
	fab_snapshot_free(reference);
	fab_nodemap_free(names);
	fab_store_close(st);
	fab_config_free(cfg);
	fab_site_rules_free(site);
	return ret;
}
