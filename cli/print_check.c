// SPDX-License-Identifier: MIT
/* The summary `check` and `sweep` print of a check: counts, the findings
 * (worst first), the rules skipped, suppressions. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"

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

static void print_counts(const struct fab_cli_check_summary *s)
{
	const struct fab_rules_result *res = &s->checked->rules;
	const struct fab_site_result *site = &s->checked->site;
	const struct fab_snapshot *snap = s->snap;
	size_t n_rules, ran = site->n_ran, skipped = 0, disabled = site->n_disabled;
	size_t site_failed = site->n_failed + site->n_broken;
	char when[FAB_TIME_STRLEN];

	fab_rules_table(&n_rules);
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
		if (s->base)
			printf("counter deltas: since the baseline, scan %lld (%gs)\n",
			       (long long)s->base->scan_id, res->delta_seconds);
		else
			printf("counter deltas: between the scan's two samples (%gs)\n",
			       res->delta_seconds);
	}
}

/* The worst first, each severity in rule order. */
static void print_findings(const struct fab_cli_check_summary *s, const struct colours *c)
{
	const struct fab_snapshot *snap = s->snap;
	size_t shown = 0;

	for (int sev = FAB_SEV_ERROR; sev >= FAB_SEV_INFO; sev--)
		for (size_t i = 0; i < snap->n_findings; i++) {
			const struct fab_finding *f = &snap->findings[i];
			if (f->severity != sev)
				continue;
			if (s->limit && shown >= s->limit) {
				shown++;
				continue;
			}
			char sb[1024];
			const char *subject = fab_nodemap_subject(s->names, snap, f, sb, sizeof(sb));
			printf("%s%-7s%s %-22s %s: %s\n", c->sev[sev], fab_severity_name((unsigned)sev),
			       c->off, f->rule_id, subject ? subject : "-", f->message);
			shown++;
		}
	if (s->limit && shown > s->limit)
		printf("... and %zu more: fabsweep report, or sqlite3 -readonly DB 'SELECT * FROM findings WHERE scan_id=%lld'\n",
		       shown - s->limit, (long long)snap->scan_id);
}

/* --summary: the findings by rule, then by node (reports/summary.c), worst
 * first; --limit caps the nodes listed. */
static void print_summary(const struct fab_cli_check_summary *s, const struct colours *c)
{
	struct fab_check_summary *sum = NULL;
	size_t shown = 0;

	if (fab_report_summary(s->snap, s->names, &sum)) {
		fab_cli_problem(fab_errmsg(), NULL);
		return;
	}
	if (sum->n_rules)
		printf("findings by rule:\n");
	for (size_t i = 0; i < sum->n_rules; i++) {
		const struct fab_summary_rule *r = &sum->rules[i];
		printf("  %s%-7s%s %-26s %5zu on %zu node%s\n", c->sev[r->worst],
		       fab_severity_name(r->worst), c->off, r->rule_id, r->findings, r->nodes,
		       r->nodes == 1 ? "" : "s");
	}
	if (sum->n_nodes)
		printf("findings by node:\n");
	for (size_t i = 0; i < sum->n_nodes; i++, shown++) {
		const struct fab_summary_node *nd = &sum->nodes[i];

		if (s->limit && shown >= s->limit)
			continue;
		printf("  %s%-7s%s %s: %zu (", c->sev[nd->worst], fab_severity_name(nd->worst), c->off,
		       nd->name ? nd->name : "(fabric)", nd->findings);
		for (size_t k = 0; k < nd->n_rules; k++) {
			const struct fab_summary_count *ct = &sum->counts[nd->first + k];
			printf("%s%s %zu", k ? ", " : "", ct->rule_id, ct->findings);
		}
		printf(")\n");
	}
	if (s->limit && shown > s->limit)
		printf("... and %zu more nodes: --limit 0 lists them all\n", shown - s->limit);
	fab_report_summary_free(sum);
}

/* One line per reason: "skipped ID: why", or "skipped N rules (why): ID,
 * ID, ..." (an InfiniBand scan skips every RoCE rule alike). */
static void print_skipped(const struct fab_rules_result *res, const struct colours *c)
{
	size_t n_rules;
	const struct fab_rule *t = fab_rules_table(&n_rules);
	bool told[FAB_RULES_MAX] = { false };

	for (size_t i = 0; i < n_rules && i < FAB_RULES_MAX; i++) {
		size_t same = 0;

		if (res->status[i] != FAB_RULE_SKIPPED || told[i])
			continue;
		for (size_t j = i; j < n_rules && j < FAB_RULES_MAX; j++)
			same += res->status[j] == FAB_RULE_SKIPPED &&
				same_reason(res->why_skipped[j], res->why_skipped[i]);
		if (same == 1) {
			printf("%sskipped %s: %s%s\n", c->dim, t[i].id,
			       res->why_skipped[i] ? res->why_skipped[i] : "?", c->off);
			continue;
		}
		printf("%sskipped %zu rules (%s):", c->dim, same,
		       res->why_skipped[i] ? res->why_skipped[i] : "?");
		for (size_t j = i, k = 0; j < n_rules && j < FAB_RULES_MAX; j++)
			if (res->status[j] == FAB_RULE_SKIPPED &&
			    same_reason(res->why_skipped[j], res->why_skipped[i])) {
				printf("%s %s", k++ ? "," : "", t[j].id);
				told[j] = true;
			}
		printf("%s\n", c->off);
	}
}

static void print_suppressions(const struct fab_cli_check_summary *s, const struct colours *c)
{
	const struct fab_rules_result *res = &s->checked->rules;
	size_t n_supp;
	const struct fab_suppression *sp = fab_config_suppressions(s->cfg, &n_supp);
	int64_t now = fab_now_ms();

	if (res->n_suppressed)
		printf("%s%zu finding%s suppressed by %s%s\n", c->dim, res->n_suppressed,
		       res->n_suppressed == 1 ? "" : "s", fab_config_path(s->cfg), c->off);
	for (size_t i = 0; i < n_supp; i++)
		if (now >= sp[i].until_ms)
			printf("note: %s:%u: the suppression of %s for '%s' expired on %s\n",
			       fab_config_path(s->cfg), sp[i].line, sp[i].rule, sp[i].pattern, sp[i].until);
}

void fab_cli_print_check(const struct fab_cli_check_summary *s)
{
	const struct fab_snapshot *ref = s->reference;
	struct colours c;

	set_colours(&c);
	print_counts(s);
	if (s->summary)
		print_summary(s, &c);
	else
		print_findings(s, &c);
	print_skipped(&s->checked->rules, &c);
	print_suppressions(s, &c);
	if (ref) {
		if (ref->scan_id)
			printf("expected topology: scan %lld (%zu nodes, %zu links)\n",
			       (long long)ref->scan_id, ref->n_nodes, ref->n_links);
		else
			printf("expected topology: %s (%zu nodes, %zu links)\n",
			       ref->source ? ref->source : "-", ref->n_nodes, ref->n_links);
	}
}
