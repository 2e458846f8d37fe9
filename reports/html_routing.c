// SPDX-License-Identifier: MIT
/*
 * The HTML report's routing section (scans with forwarding tables; the
 * numbers: reports/model_routing.c): the hop-count histogram of every
 * CA-to-CA route as <meter> bars (no style attribute: the page's CSP), the
 * routing findings by rule, and the switches whose tables changed since the
 * baseline (listed in the Changes section, kind "routes").
 */
#include "fabsweep/roce.h"
#include "html.h"

void fab_html_routing(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_report_routing *rt = &r->c->rt;
	uint64_t most = 0;

	if (!rt->present)
		return;
	fab_hw_fmt(w, "<section id=\"routing\">\n<h2>Routing</h2>\n<p><b>%llu</b> routes between "
		      "<b>%zu</b> channel adapter ports (every ordered pair): <b>%llu</b> arrive, "
		      "<b>%llu</b> break, <b>%llu</b> not judged (a table not read).",
		   (unsigned long long)rt->pairs.n_routes, rt->n_ends,
		   (unsigned long long)(rt->pairs.n_routes - rt->pairs.n_broken - rt->pairs.n_unknown),
		   (unsigned long long)rt->pairs.n_broken, (unsigned long long)rt->pairs.n_unknown);
	if (rt->compared)
		fab_hw_fmt(w, " Forwarding tables changed since the baseline: <b>%zu</b> switch%s%s.",
			   rt->n_changed, rt->n_changed == 1 ? "" : "es",
			   rt->n_changed ? " (see <a href=\"#changes\">Changes</a>, kind routes)" : "");
	fab_hw_raw(w, "</p>\n");
	for (unsigned k = 0; k <= FAB_ROUTE_MAX_HOPS; k++)
		if (rt->pairs.hops[k] > most)
			most = rt->pairs.hops[k];
	if (most) {
		fab_hw_raw(w, "<table><thead><tr><th class=\"num\">Links</th><th class=\"num\">Routes</th>"
			      "<th>Share</th></tr></thead><tbody>\n");
		for (unsigned k = 1; k <= rt->max_links; k++)
			fab_hw_fmt(w, "<tr><td class=\"num\">%u</td><td class=\"num\">%llu</td><td><meter "
				      "min=\"0\" max=\"%llu\" value=\"%llu\"></meter></td></tr>\n",
				   k, (unsigned long long)rt->pairs.hops[k], (unsigned long long)most,
				   (unsigned long long)rt->pairs.hops[k]);
		fab_hw_raw(w, "</tbody></table>\n");
	}
	if (!rt->n_rules) {
		fab_hw_raw(w, "<p>No routing finding.</p>\n");
	} else {
		fab_hw_raw(w, "<p>Routing findings (in <a href=\"#findings\">Findings</a>):");
		for (size_t i = 0; i < rt->n_rules; i++) {
			fab_hw_raw(w, i ? ", " : " ");
			fab_hw_text(w, rt->rules[i].rule);
			fab_hw_fmt(w, " %zu", rt->rules[i].count);
		}
		fab_hw_raw(w, ".</p>\n");
	}
	fab_hw_raw(w, "</section>\n");
}
