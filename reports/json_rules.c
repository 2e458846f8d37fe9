// SPDX-License-Identifier: MIT
/* `fabsweep rules --json` and `rules show ID --json`
 * (docs/json/rules.schema.json): the rule table as a configuration sets it. */
#include <errno.h>

#include "fabsweep/config.h"
#include "fabsweep/names.h"
#include "fabsweep/report_json.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "jsonw.h"

static const char *const site_status[] = {
	[FAB_SITE_LOADED] = "loaded", [FAB_SITE_BROKEN] = "broken", [FAB_SITE_RAN] = "ran",
	[FAB_SITE_FAILED] = "failed", [FAB_SITE_DISABLED] = "disabled",
};

/* A severity as configured: "error", "warning", "info" or "off" (-1). */
static json_t *sev(int s)
{
	return json_string(s < 0 ? "off" : fab_severity_name((unsigned)s));
}

static json_t *params(struct fab_report_text *t, const struct fab_config *cfg,
		      const struct fab_rule *r)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < r->n_params; i++) {
		const struct fab_rule_param *p = &r->params[i];
		char cur[48], def[48];
		unsigned line = fab_config_value_line(cfg, r, i);

		fab_param_format(p, fab_config_value(cfg, r, i), cur, sizeof(cur));
		fab_param_format(p, p->def, def, sizeof(def));
		if (fab_jw_append(arr, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}",
						 "section", p->section, "key", p->key,
						 "value", cur, "default", def,
						 "set_at_line", line ? json_integer(line) : json_null(),
						 "help", fab_jw_str(t, p->help)))) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *needs(unsigned mask)
{
	json_t *arr = json_array();
	const char *text;

	for (unsigned bit = 1; arr && bit <= FAB_NEED__LAST; bit <<= 1)
		if ((mask & bit) && (text = fab_rule_need_text(bit)) &&
		    fab_jw_append(arr, json_string(text))) {
			json_decref(arr);
			return NULL;
		}
	return arr;
}

static json_t *rule(struct fab_report_text *t, const struct fab_config *cfg,
		    const struct fab_rule *r)
{
	unsigned line = fab_config_rule_line(cfg, r);

	return json_pack("{s:s, s:s, s:o, s:s, s:s?, s:b, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "id", r->id, "title", r->title,
			 "severity", sev(fab_config_severity(cfg, r)),
			 "default_severity", fab_severity_name(r->severity),
			 "category", fab_rule_category_name(r->category),
			 "retired", r->retired,
			 "set_at_line", line ? json_integer(line) : json_null(),
			 "needs", needs(r->needs),
			 "rationale", fab_jw_str(t, r->rationale),
			 "remediation", fab_jw_str(t, r->remediation),
			 "parameters", params(t, cfg, r),
			 "doc", json_sprintf("docs/rules/%s.md", r->id));
}

/* A site rule: its file is text an operator wrote, cleaned like any string. */
static json_t *site_rule(struct fab_report_text *t, const struct fab_config *cfg,
			 const struct fab_site_rule *r)
{
	unsigned line = 0;
	bool broken = r->status == FAB_SITE_BROKEN;
	int s = broken && !r->title ? -1 : fab_config_site_severity(cfg, r->id, r->severity, &line);

	return json_pack("{s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:f}",
			 "id", fab_jw_str(t, r->id), "title", fab_jw_str(t, r->title),
			 "severity", broken ? json_null() : sev(s),
			 "status", r->status < ARRAY_SIZE(site_status) ? site_status[r->status] : "broken",
			 "error", fab_jw_str(t, r->error),
			 "file", fab_jw_str(t, r->path),
			 "set_at_line", line ? json_integer(line) : json_null(),
			 "rationale", fab_jw_str(t, r->rationale),
			 "remediation", fab_jw_str(t, r->remediation),
			 "time_limit_seconds", r->time_limit);
}

int fab_json_rules(FILE *f, const struct fab_config *cfg, struct fab_site_rules *rs,
		   const struct fab_rule *only, const struct fab_site_rule *only_site)
{
	struct fab_report_text t = { 0 };
	json_t *doc = fab_jw_doc("rules"), *rules = NULL, *site = NULL;
	bool one = only || only_site;
	size_t n;
	int err = 0;

	if (!doc || fab_jw_set(doc, "config", fab_jw_str(&t, fab_config_path(cfg))) ||
	    fab_jw_set(doc, "site_rules_dir", fab_jw_str(&t, rs ? fab_site_rules_dir(rs) : NULL)) ||
	    !(rules = fab_jw_add_array(doc, "rules")) || !(site = fab_jw_add_array(doc, "site_rules")))
		err = -ENOMEM;
	const struct fab_rule *tab = fab_rules_table(&n);
	for (size_t i = 0; !err && i < n; i++)
		if (!one || only == &tab[i])
			err = fab_jw_append(rules, rule(&t, cfg, &tab[i]));
	const struct fab_site_rule *v = rs ? fab_site_rules_list(rs, &n) : NULL;
	for (size_t i = 0; !err && v && i < n; i++)
		if (!one || only_site == &v[i])
			err = fab_jw_append(site, site_rule(&t, cfg, &v[i]));
	return fab_jw_finish(doc, err, &t, f);
}
