// SPDX-License-Identifier: MIT
/* `fabsweep check --json` (docs/json/check.schema.json). */
#include <errno.h>

#include "fabsweep/config.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/report.h"
#include "fabsweep/report_json.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "jsonw.h"

static json_t *finding(struct fab_report_text *t, const struct fab_json_check *in,
		       const struct fab_finding *f)
{
	char sb[1024], nb[FAB_NODE_NAME_CAP], pb[FAB_NODE_NAME_CAP];
	const char *subject = fab_nodemap_subject(in->names, in->snap, f, sb, sizeof(sb));

	return json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "rule", fab_jw_str(t, f->rule_id),
			 "severity", fab_severity_name(f->severity),
			 "subject", fab_jw_str(t, subject),
			 "node", fab_jw_str(t, f->node),
			 "node_name", fab_jw_str(t, fab_finding_node_name(in->names, in->snap, f->node,
									  nb, sizeof(nb))),
			 "port", fab_jw_str(t, f->port),
			 "peer_node", fab_jw_str(t, f->peer_node),
			 "peer_name", fab_jw_str(t, fab_finding_node_name(in->names, in->snap,
									  f->peer_node, pb, sizeof(pb))),
			 "peer_port", fab_jw_str(t, f->peer_port),
			 "message", fab_jw_str(t, f->message),
			 "evidence", fab_jw_str(t, f->evidence));
}

/* The worst first, each severity in rule order, as the terminal shows them. */
static json_t *findings(struct fab_report_text *t, const struct fab_json_check *in)
{
	const struct fab_snapshot *snap = in->snap;
	json_t *arr = json_array();

	for (int sev = FAB_SEV_ERROR; arr && sev >= FAB_SEV_INFO; sev--)
		for (size_t i = 0; i < snap->n_findings; i++)
			if (snap->findings[i].severity == sev &&
			    fab_jw_append(arr, finding(t, in, &snap->findings[i]))) {
				json_decref(arr);
				return NULL;
			}
	return arr;
}

/* Rules by what happened to them: counts, and the skipped ones with why. */
static json_t *rules(const struct fab_json_check *in)
{
	const struct fab_rules_result *res = in->rules;
	const struct fab_site_result *site = in->site;
	size_t n_rules, ran = 0, disabled = 0;
	const struct fab_rule *tab = fab_rules_table(&n_rules);
	json_t *skipped = json_array();

	for (size_t i = 0; skipped && i < n_rules && i < FAB_RULES_MAX; i++) {
		ran += res->status[i] == FAB_RULE_RAN;
		disabled += res->status[i] == FAB_RULE_DISABLED;
		if (res->status[i] == FAB_RULE_SKIPPED &&
		    fab_jw_append(skipped, json_pack("{s:s, s:s?}", "rule", tab[i].id, "why",
						     res->why_skipped[i]))) {
			json_decref(skipped);
			return NULL;
		}
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}",
			 "ran", (json_int_t)ran, "disabled", (json_int_t)disabled,
			 "site_ran", (json_int_t)site->n_ran,
			 "site_failed", (json_int_t)(site->n_failed + site->n_broken),
			 "site_disabled", (json_int_t)site->n_disabled, "skipped", skipped);
}

static json_t *deltas(const struct fab_json_check *in)
{
	const struct fab_rules_result *res = in->rules;

	if (!res->delta_source)
		return json_null();
	return json_pack("{s:s, s:o, s:f}", "since", res->delta_source,
			 "baseline_scan", in->base ? json_integer(in->base->scan_id) : json_null(),
			 "seconds", res->delta_seconds);
}

/* --summary: the findings by rule and by node (reports/summary.c), as the
 * terminal lists them. */
static json_t *summary(struct fab_report_text *t, const struct fab_json_check *in)
{
	struct fab_check_summary *s = NULL;
	json_t *rules = json_array(), *nodes = json_array(), *out = NULL;

	if (!rules || !nodes || fab_report_summary(in->snap, in->names, &s))
		goto out;
	for (size_t i = 0; i < s->n_rules; i++) {
		const struct fab_summary_rule *r = &s->rules[i];
		if (fab_jw_append(rules, json_pack("{s:o, s:s, s:I, s:I, s:I, s:I, s:I}",
						   "rule", fab_jw_str(t, r->rule_id),
						   "worst", fab_severity_name(r->worst),
						   "findings", (json_int_t)r->findings,
						   "nodes", (json_int_t)r->nodes,
						   "error", (json_int_t)r->by_severity[FAB_SEV_ERROR],
						   "warning", (json_int_t)r->by_severity[FAB_SEV_WARNING],
						   "info", (json_int_t)r->by_severity[FAB_SEV_INFO])))
			goto out;
	}
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_summary_node *nd = &s->nodes[i];
		json_t *by = json_array();

		for (size_t k = 0; by && k < nd->n_rules; k++) {
			const struct fab_summary_count *c = &s->counts[nd->first + k];
			if (fab_jw_append(by, json_pack("{s:o, s:s, s:I}", "rule", fab_jw_str(t, c->rule_id),
							"worst", fab_severity_name(c->worst),
							"findings", (json_int_t)c->findings))) {
				json_decref(by);
				by = NULL;
			}
		}
		if (!by ||
		    fab_jw_append(nodes, json_pack("{s:o, s:o, s:s, s:I, s:I, s:I, s:I, s:o}",
						   "node", fab_jw_str(t, nd->node),
						   "name", fab_jw_str(t, nd->name),
						   "worst", fab_severity_name(nd->worst),
						   "findings", (json_int_t)nd->findings,
						   "error", (json_int_t)nd->by_severity[FAB_SEV_ERROR],
						   "warning", (json_int_t)nd->by_severity[FAB_SEV_WARNING],
						   "info", (json_int_t)nd->by_severity[FAB_SEV_INFO],
						   "rules", by)))
			goto out;
	}
	out = json_pack("{s:O, s:O}", "by_rule", rules, "by_node", nodes);
out:
	json_decref(rules);
	json_decref(nodes);
	fab_report_summary_free(s);
	return out;
}

static json_t *expected(struct fab_report_text *t, const struct fab_snapshot *ref)
{
	if (!ref)
		return json_null();
	return json_pack("{s:o, s:o, s:I, s:I}",
			 "scan", ref->scan_id ? json_integer(ref->scan_id) : json_null(),
			 "source", fab_jw_str(t, ref->source),
			 "nodes", (json_int_t)ref->n_nodes, "links", (json_int_t)ref->n_links);
}

static json_t *suppressions(struct fab_report_text *t, const struct fab_json_check *in)
{
	size_t n;
	const struct fab_suppression *sp = fab_config_suppressions(in->cfg, &n);
	int64_t now = fab_now_ms();
	json_t *expired = json_array();

	for (size_t i = 0; expired && i < n; i++)
		if (now >= sp[i].until_ms &&
		    fab_jw_append(expired, json_pack("{s:o, s:I, s:o, s:o, s:o}",
						     "file", fab_jw_str(t, fab_config_path(in->cfg)),
						     "line", (json_int_t)sp[i].line,
						     "rule", fab_jw_str(t, sp[i].rule),
						     "pattern", fab_jw_str(t, sp[i].pattern),
						     "until", fab_jw_str(t, sp[i].until)))) {
			json_decref(expired);
			return NULL;
		}
	return json_pack("{s:I, s:o}", "suppressed", (json_int_t)in->rules->n_suppressed,
			 "expired", expired);
}

int fab_json_check(FILE *f, const struct fab_json_check *in)
{
	const size_t *by = in->rules->by_severity;
	struct fab_report_text t = { 0 };
	json_t *doc = fab_jw_doc("check");
	const char *fail_on = in->fail_on >= FAB_FAIL_NEVER ? "never" : fab_severity_name(in->fail_on);

	if (doc &&
	    (fab_jw_set(doc, "scan", fab_jw_scan(&t, in->snap)) ||
	     fab_jw_set(doc, "fail_on", json_string(fail_on)) ||
	     fab_jw_set(doc, "failed", json_boolean(in->failed)) ||
	     fab_jw_set(doc, "counts", json_pack("{s:I, s:I, s:I, s:I}",
						 "findings", (json_int_t)in->snap->n_findings,
						 "error", (json_int_t)by[FAB_SEV_ERROR],
						 "warning", (json_int_t)by[FAB_SEV_WARNING],
						 "info", (json_int_t)by[FAB_SEV_INFO])) ||
	     fab_jw_set(doc, "rules", rules(in)) ||
	     fab_jw_set(doc, "suppressions", suppressions(&t, in)) ||
	     fab_jw_set(doc, "counter_deltas", deltas(in)) ||
	     fab_jw_set(doc, "expected_topology", expected(&t, in->reference)) ||
	     fab_jw_set(doc, "findings", findings(&t, in)) ||
	     (in->summary && fab_jw_set(doc, "summary", summary(&t, in)))))
		return fab_jw_finish(doc, -ENOMEM, &t, f);
	return fab_jw_finish(doc, doc ? 0 : -ENOMEM, &t, f);
}
