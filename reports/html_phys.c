// SPDX-License-Identifier: MIT
/*
 * The HTML report's physical layer section (snapshots with modules,
 * cables or bit error ratios): the worst bit error ratios and power
 * margins first, then temperatures, the dumps that were refused, and the
 * module inventory. Worked out by model_phys.c (reports/phys.h).
 */
#include <math.h>
#include <stdio.h>

#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "html.h"
#include "phys.h"


static void port_cell(struct hr *r, unsigned fabric, uint32_t port)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;
	char g[FAB_GUID_STRLEN], nb[FAB_NODE_NAME_CAP];

	fab_hw_raw(w, "<td>");
	if (fabric == FAB_PHYS_ETH) {
		const struct fab_roce *ro = s->roce;
		const struct fab_eth_port *p = ro && port < ro->n_eth_ports ? &ro->eth_ports[port] : NULL;
		fab_hw_text(w, p && p->system_idx < ro->n_systems ? ro->systems[p->system_idx].name : "?");
		fab_hw_raw(w, "/");
		fab_hw_text(w, p && p->ifname ? p->ifname : "?");
	} else if (port < s->n_ports) {
		const struct fab_port *p = &s->ports[port];
		fab_guid_format(s->nodes[p->node_idx].guid, g);
		fab_hw_fmt(w, "<span title=\"%s\">", g);
		fab_hw_text(w, fab_report_node_label(s, p->node_idx, nb));
		fab_hw_fmt(w, "</span>/%u", p->port_num);
	}
	fab_hw_raw(w, "</td>");
}

static void level_cell(struct fab_hw *w, unsigned level)
{
	const char *cls = level == FAB_LEVEL_ALARM_LOW || level == FAB_LEVEL_ALARM_HIGH ? "error"
			  : level == FAB_LEVEL_WARN_LOW || level == FAB_LEVEL_WARN_HIGH ? "warning" : NULL;

	fab_hw_fmt(w, "<td data-v=\"%u\">", level);
	if (cls)
		fab_hw_fmt(w, "<span class=\"sev %s\">%s</span>", cls, fab_mon_level_name(level));
	else
		fab_hw_fmt(w, "%s", fab_mon_level_name(level));
	fab_hw_raw(w, "</td>");
}

static void num_cell(struct fab_hw *w, double v, const char *fmt_unit)
{
	if (isnan(v))
		fab_hw_raw(w, "<td class=\"num\" data-v=\"\">?</td>");
	else if (fmt_unit[0] == 'e')
		fab_hw_fmt(w, "<td class=\"num\" data-v=\"%g\">%.2e</td>", v, v);
	else
		fab_hw_fmt(w, "<td class=\"num\" data-v=\"%g\">%.1f%s</td>", v, v, fmt_unit);
}

static void more(struct fab_hw *w, size_t n)
{
	if (n > FAB_PHYS_HTML_ROWS)
		fab_hw_fmt(w, "<p class=\"muted\">... and %zu more (the XML report and <code>fabsweep physical "
			      "--json</code> have them all).</p>\n", n - FAB_PHYS_HTML_ROWS);
}

static void ber_table(struct hr *r, const struct fab_report_phys *p)
{
	struct fab_hw *w = &r->w;

	if (!p->n_ber)
		return;
	fab_hw_raw(w, "<h3>Bit error ratios, highest first</h3>\n<table class=\"sortable\"><thead><tr>"
		      "<th>Port</th><th class=\"num\">Before FEC</th><th class=\"num\">After FEC</th>"
		      "<th class=\"num\">Symbol</th><th>Measured by</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < p->n_ber && i < FAB_PHYS_HTML_ROWS; i++) {
		const struct fab_phys_ber *b = &p->ber[i];
		fab_hw_raw(w, "<tr>");
		port_cell(r, b->fabric, b->port);
		num_cell(w, b->raw, "e");
		num_cell(w, b->effective, "e");
		num_cell(w, b->symbol, "e");
		fab_hw_fmt(w, "<td>%s</td></tr>\n", !b->from_counters ? (b->fabric == FAB_PHYS_IB ? "the device (PHY_DB16)"
										: "the NIC (corrected bits)")
				: b->at_least ? "SymbolErrorCounter, at least (cleared in between)" : "SymbolErrorCounter");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	more(w, p->n_ber);
}

static void margin_table(struct hr *r, const struct fab_report_phys *p)
{
	struct fab_hw *w = &r->w;

	if (!p->n_margins)
		return;
	fab_hw_raw(w, "<h3>Optical power margins, smallest first</h3>\n<table class=\"sortable\"><thead><tr>"
		      "<th>Port</th><th class=\"num\">Lane</th><th>Signal</th><th class=\"num\">Power</th>"
		      "<th class=\"num\">Margin</th><th>Level</th><th>Thresholds</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < fab_phys_held(p, p->n_margins) && i < FAB_PHYS_HTML_ROWS; i++) {
		const struct fab_phys_margin *g = &p->margins[i];
		fab_hw_raw(w, "<tr>");
		port_cell(r, g->fabric, fab_phys_module_port(r->s, g->fabric, g->module));
		fab_hw_fmt(w, "<td class=\"num\">%u</td><td>%s</td>", g->lane,
			   g->mon == FAB_MON_RX_POWER ? "received" : "transmitted");
		if (isinf(g->dbm))
			fab_hw_raw(w, "<td class=\"num\" data-v=\"-999\">no light</td><td class=\"num\" data-v=\"-999\">dark</td>");
		else {
			num_cell(w, g->dbm, " dBm");
			num_cell(w, g->margin, " dB");
		}
		level_cell(w, g->level);
		fab_hw_fmt(w, "<td>%s</td></tr>\n", g->own ? "the module's" : "defaults");
	}
	fab_hw_raw(w, "</tbody></table>\n<p class=\"muted\">Margin: dB to the nearer warning threshold, "
		      "negative beyond it; the lanes each module's media uses (a one-lane module in a four-lane "
		      "cage: lane 1).</p>\n");
	more(w, p->n_margins);
}

static void module_name(struct fab_hw *w, const struct fab_module *m)
{
	fab_hw_text(w, m->vendor ? m->vendor : "?");
	fab_hw_raw(w, " ");
	fab_hw_text(w, m->part_number ? m->part_number : "?");
	fab_hw_raw(w, " <span class=\"muted\">");
	fab_hw_text(w, m->serial ? m->serial : "?");
	fab_hw_raw(w, "</span>");
}

static void temp_table(struct hr *r, const struct fab_report_phys *p)
{
	struct fab_hw *w = &r->w;

	if (!p->n_temps)
		return;
	fab_hw_raw(w, "<h3>Module temperatures, hottest first</h3>\n<table class=\"sortable\"><thead><tr>"
		      "<th>Port</th><th>Module</th><th class=\"num\">Temperature</th><th>Level</th>"
		      "<th class=\"num\">High warning</th><th>Thresholds</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < fab_phys_held(p, p->n_temps) && i < FAB_PHYS_HTML_ROWS; i++) {
		const struct fab_phys_temp *t = &p->temps[i];
		const struct fab_modules *set = fab_phys_modules(r->s, t->fabric);
		fab_hw_raw(w, "<tr>");
		port_cell(r, t->fabric, set->mods[t->module].port_idx);
		fab_hw_raw(w, "<td>");
		module_name(w, &set->mods[t->module]);
		fab_hw_raw(w, "</td>");
		num_cell(w, t->celsius, " &deg;C");
		level_cell(w, t->level);
		num_cell(w, t->hi_warn, " &deg;C");
		fab_hw_fmt(w, "<td>%s</td></tr>\n", t->own ? "the module's" : "defaults");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	more(w, p->n_temps);
}

static void refused_table(struct hr *r, const struct fab_report_phys *p)
{
	struct fab_hw *w = &r->w;
	size_t shown = 0, n = p->n_refused[FAB_PHYS_IB] + p->n_refused[FAB_PHYS_ETH];

	if (!n)
		return;
	fab_hw_raw(w, "<h3>Module data refused</h3>\n<table><thead><tr><th>Port</th><th>Why</th></tr>"
		      "</thead><tbody>\n");
	for (unsigned f = 0; f < FAB_PHYS__FABRICS; f++) {
		const struct fab_modules *set = fab_phys_modules(r->s, f);
		for (size_t i = 0; set && i < set->n && shown < FAB_PHYS_HTML_ROWS; i++) {
			if (!set->mods[i].refused)
				continue;
			fab_hw_raw(w, "<tr>");
			port_cell(r, f, set->mods[i].port_idx);
			fab_hw_raw(w, "<td>");
			fab_hw_text(w, set->mods[i].note ? set->mods[i].note : "");
			fab_hw_raw(w, "</td></tr>\n");
			shown++;
		}
	}
	fab_hw_raw(w, "</tbody></table>\n<p class=\"muted\">A dump that does not decode consistently is "
		      "not turned into numbers.</p>\n");
	more(w, n);
}

static void inventory_table(struct hr *r, const struct fab_report_phys *p)
{
	struct fab_hw *w = &r->w;

	if (!p->n_groups)
		return;
	fab_hw_raw(w, "<h3>Module inventory</h3>\n<table class=\"sortable\"><thead><tr><th>Fabric</th>"
		      "<th>Type</th><th>Vendor</th><th>Part number</th><th class=\"num\">Modules</th>"
		      "<th class=\"num\">With monitors</th><th class=\"num\">Refused</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < p->n_groups && i < FAB_PHYS_HTML_ROWS; i++) {
		const struct fab_phys_group *g = &p->groups[i];
		fab_hw_fmt(w, "<tr><td>%s</td><td>", g->fabric == FAB_PHYS_IB ? "InfiniBand" : "Ethernet");
		fab_hw_text(w, g->type ? g->type : "?");
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, g->vendor ? g->vendor : "?");
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, g->part_number ? g->part_number : "?");
		fab_hw_fmt(w, "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>\n",
			   g->n, g->n_monitored, g->n_refused);
	}
	fab_hw_raw(w, "</tbody></table>\n");
	more(w, p->n_groups);
}

void fab_html_phys(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_report_phys *p = &r->c->ph;

	if (!fab_report_phys_present(p))
		return;
	fab_hw_fmt(w, "<section id=\"physical\">\n<h2>Physical layer</h2>\n<p><b>%zu</b> InfiniBand cables and "
		      "modules (%zu with monitors, %zu refused) &middot; <b>%zu</b> modules on RoCE hosts (%zu "
		      "with monitors, %zu refused) &middot; <b>%zu</b> ports with a bit error ratio.</p>\n",
		   p->n_modules[FAB_PHYS_IB], p->n_monitored[FAB_PHYS_IB], p->n_refused[FAB_PHYS_IB],
		   p->n_modules[FAB_PHYS_ETH], p->n_monitored[FAB_PHYS_ETH], p->n_refused[FAB_PHYS_ETH], p->n_ber);
	ber_table(r, p);
	margin_table(r, p);
	temp_table(r, p);
	refused_table(r, p);
	inventory_table(r, p);
	fab_hw_raw(w, "</section>\n");
}
