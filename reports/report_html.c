// SPDX-License-Identifier: MIT
/*
 * The HTML report: one self-contained page (inline CSS, script and SVG, no
 * fetches), protected by a Content-Security-Policy that allows only the
 * page's own style and script by hash. docs/reports.md describes the sections;
 * the topology is html_topology.c, the Ethernet section html_ethernet.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/diff.h"
#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "html.h"
#include "html_assets.h"
#include "htmlw.h"
#include "model.h"
#include "sha256.h"

#define MAX_CHANGE_ROWS 500   /* per kind of change; the XML has them all */
#define MAX_ERROR_ROWS 1000   /* scan errors listed */
#define MAX_OPEN_SWITCHES 12  /* switch tables open at load */


/* Natural order: "leaf2" before "leaf10". */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			size_t la = 0, lb = 0;
			while (isdigit((unsigned char)a[la]))
				la++;
			while (isdigit((unsigned char)b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int r = memcmp(a, b, la);
			if (r)
				return r;
			a += la;
			b += lb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int cmp_node_label(const void *x, const void *y, void *arg)
{
	const struct hr *r = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c;

	if (r->m->tier[a] != r->m->tier[b])
		return r->m->tier[a] > r->m->tier[b] ? -1 : 1; /* core first */
	if ((c = natcmp(r->s->nodes[a].desc, r->s->nodes[b].desc)))
		return c;
	if (r->s->nodes[a].guid != r->s->nodes[b].guid)
		return r->s->nodes[a].guid < r->s->nodes[b].guid ? -1 : 1;
	return (a > b) - (a < b);
}

/* Switches (everything but hosts) in display order: tier, then name. */
uint32_t *fab_html_sorted_switches(struct hr *r, size_t *n_out)
{
	const struct fab_snapshot *s = r->s;
	uint32_t *v = malloc((s->n_nodes + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n_nodes; i++)
		if (fab_report_is_switch(r->m, (uint32_t)i))
			v[n++] = (uint32_t)i;
	qsort_r(v, n, sizeof(*v), cmp_node_label, r);
	*n_out = n;
	return v;
}

/* ------------------------------------------------------------ pieces */

static void sev_badge(struct fab_hw *w, unsigned sev)
{
	fab_hw_fmt(w, "<span class=\"sev %s\">%s</span>", sev_name(sev), sev_name(sev));
}

void fab_html_mark_badge(struct fab_hw *w, uint8_t mark)
{
	if (mark == FAB_MARK_NONE)
		fab_hw_raw(w, "<span class=\"sev\">ok</span>");
	else
		sev_badge(w, mark - 1u);
}

static void guid_text(struct fab_hw *w, uint64_t guid)
{
	char g[FAB_GUID_STRLEN];

	fab_guid_format(guid, g);
	fab_hw_raw(w, g);
}

static void time_text(struct fab_hw *w, int64_t ms)
{
	char t[FAB_TIME_STRLEN];

	fab_time_format(ms, t);
	fab_hw_raw(w, t);
}

/* "desc" with the GUID as a tooltip. */
static void node_cell(struct fab_hw *w, const struct fab_snapshot *s, uint32_t n)
{
	char g[FAB_GUID_STRLEN], nb[FAB_NODE_NAME_CAP];

	fab_guid_format(s->nodes[n].guid, g);
	fab_hw_fmt(w, "<span title=\"%s\">", g);
	fab_hw_text(w, fab_report_node_label(s, n, nb));
	fab_hw_raw(w, "</span>");
}

/* "node/port" of a port's peer, or a dash. */
static void peer_cell(struct fab_hw *w, const struct fab_snapshot *s, const struct fab_port *p)
{
	if (p->remote_idx < s->n_ports) {
		const struct fab_port *q = &s->ports[p->remote_idx];
		node_cell(w, s, q->node_idx);
		fab_hw_fmt(w, "/%u", q->port_num);
	} else if (p->remote_guid) {
		guid_text(w, p->remote_guid);
		fab_hw_fmt(w, "/%u", p->remote_port);
	} else {
		fab_hw_raw(w, "<span class=\"muted\">-</span>");
	}
}

static void widths_text(struct fab_hw *w, unsigned mask)
{
	char b[64];

	fab_widths_format(mask, b, sizeof(b));
	fab_hw_raw(w, *b ? b : "-");
}

static void speeds_text(struct fab_hw *w, unsigned mask)
{
	char b[96];

	fab_speeds_format(mask, b, sizeof(b));
	fab_hw_raw(w, *b ? b : "-");
}

static uint64_t error_sum(const struct fab_counter_sample *c)
{
	uint64_t sum = 0;

	for (unsigned k = 0; c && k < FAB_CTR__COUNT; k++)
		if (fab_counter_is_error(k) && (c->valid & (1u << k)))
			sum += c->v[k];
	return sum;
}

static const struct fab_counter_sample *latest_sample(const struct fab_snapshot *s, uint32_t port)
{
	const struct fab_counter_sample *c = fab_snapshot_sample(s, port, 1);
	return c ? c : fab_snapshot_sample(s, port, 0);
}

/* Whether the snapshot has an InfiniBand part, an Ethernet part. A merged
 * RoCE snapshot has no InfiniBand node: its InfiniBand sections are left out. */
static bool has_ib(const struct fab_snapshot *s)
{
	return s->n_nodes || !s->roce || !s->roce->n_systems;
}

/* ------------------------------------------------------------ head, banner */

static void write_head(struct hr *r)
{
	struct fab_hw *w = &r->w;
	char css[FAB_SHA256_B64_LEN], js[FAB_SHA256_B64_LEN];

	fab_sha256_base64(fab_html_css, sizeof(fab_html_css) - 1, css);
	fab_sha256_base64(fab_html_js, sizeof(fab_html_js) - 1, js);
	fab_hw_raw(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
	fab_hw_fmt(w, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "style-src 'sha256-%s'; script-src 'sha256-%s'; img-src data:; "
		      "base-uri 'none'; form-action 'none'\">\n", css, js);
	fab_hw_raw(w, "<meta name=\"referrer\" content=\"no-referrer\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<link rel=\"icon\" href=\"data:,\">\n");
	fab_hw_fmt(w, "<title>fabsweep report: scan %lld, %s</title>\n", (long long)r->s->scan_id,
		   r->s->checked_at_ms ? fab_report_verdict_name(r->m->verdict) : "not checked");
	fab_hw_raw(w, "<style>");
	fab_hw_raw(w, fab_html_css);
	fab_hw_raw(w, "</style>\n</head>\n<body>\n");
}

static void write_header(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;

	fab_hw_fmt(w, "<header><h1>fabsweep report &middot; scan %lld", (long long)s->scan_id);
	if (s->label) {
		fab_hw_raw(w, " &middot; ");
		fab_hw_text(w, s->label);
	}
	fab_hw_raw(w, "</h1>\n<p class=\"meta\"><span>started ");
	time_text(w, s->started_at_ms);
	fab_hw_raw(w, "</span>");
	if (s->finished_at_ms > s->started_at_ms)
		fab_hw_fmt(w, "<span>took %.1f s</span>",
			   (double)(s->finished_at_ms - s->started_at_ms) / 1000.0);
	fab_hw_fmt(w, "<span>status %s</span><span>scanned from ", fab_scan_status_name(s->status));
	fab_hw_text(w, s->host ? s->host : "?");
	fab_hw_raw(w, "</span><span>source ");
	fab_hw_text(w, s->source ? s->source : "?");
	fab_hw_raw(w, "</span></p></header>\n<nav>"
		      "<a href=\"#verdict\">Verdict</a><a href=\"#findings\">Findings</a>");
	if (has_ib(s))
		fab_hw_raw(w, "<a href=\"#topology\">Topology</a>");
	if (has_eth(s))
		fab_hw_raw(w, "<a href=\"#ethernet\">Ethernet</a>");
	if (fab_report_phys_present(&r->c->ph))
		fab_hw_raw(w, "<a href=\"#physical\">Physical layer</a>");
	if (r->base)
		fab_hw_raw(w, "<a href=\"#changes\">Changes</a>");
	if (r->c->rt.present)
		fab_hw_raw(w, "<a href=\"#routing\">Routing</a>");
	if (has_ib(s))
		fab_hw_raw(w, "<a href=\"#sm\">Subnet managers</a><a href=\"#counters\">Error counters</a>"
			      "<a href=\"#switches\">Switch ports</a>");
	if (r->c->opts->trend)
		fab_hw_raw(w, "<a href=\"#trends\">Trends</a>");
	if (s->n_errors)
		fab_hw_raw(w, "<a href=\"#missed\">Missed</a>");
	fab_hw_raw(w, "</nav>\n<main>\n");
}

static void count_pill(struct fab_hw *w, unsigned n, unsigned sev, const char *one, const char *many)
{
	fab_hw_fmt(w, "<span class=\"pill %s\">%u %s</span>", n ? sev_name(sev) : "", n,
		   n == 1 ? one : many);
}

static void write_banner(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;
	const struct fab_report_model *m = r->m;
	const char *v = fab_report_verdict_name(m->verdict);
	bool checked = s->checked_at_ms != 0;

	if (checked)
		fab_hw_fmt(w, "<section id=\"verdict\" class=\"banner %s\">\n<div class=\"verdict\">%s</div>\n<div>",
			   v, v);
	else
		fab_hw_raw(w, "<section id=\"verdict\" class=\"banner unchecked\">\n"
			      "<div class=\"verdict\">not checked</div>\n<div>");
	count_pill(w, m->sev[FAB_SEV_ERROR], FAB_SEV_ERROR, "error", "errors");
	count_pill(w, m->sev[FAB_SEV_WARNING], FAB_SEV_WARNING, "warning", "warnings");
	count_pill(w, m->sev[FAB_SEV_INFO], FAB_SEV_INFO, "info", "info");
	fab_hw_raw(w, "<p class=\"facts\">");
	if (has_ib(s))
		fab_hw_fmt(w, "<b>%zu</b> switches &middot; <b>%zu</b> hosts &middot; "
			      "<b>%zu</b> of <b>%zu</b> ports active &middot; <b>%zu</b> links &middot; "
			      "<b>%zu</b> subnet managers &middot; ",
			   m->n_switches, m->n_tier[FAB_ROLE_HOST], m->n_active_ports, m->n_ext_ports,
			   s->n_links, s->n_sms);
	if (has_eth(s))
		fab_hw_fmt(w, "<b>%zu</b> Ethernet systems &middot; <b>%zu</b> Ethernet links &middot; ",
			   s->roce->n_systems, s->roce->n_links);
	fab_hw_fmt(w, "<b>%zu</b> rules with findings</p></div>\n", m->n_rules);
	if (!checked)
		fab_hw_fmt(w, "<p class=\"note\">No rule has judged this scan: <code>fabsweep check "
			      "--scan %lld</code> has not run on it, so the absence of findings means "
			      "nothing yet.</p>\n", (long long)s->scan_id);
	if (s->status != FAB_SCAN_COMPLETE || s->n_errors)
		fab_hw_fmt(w, "<p class=\"note\">This scan is <b>%s</b>: it missed %zu things "
			      "(<a href=\"#missed\">listed below</a>); what it could not see is not judged.</p>\n",
			   fab_scan_status_name(s->status), s->n_errors);
	fab_hw_raw(w, "</section>\n");
}

/* ------------------------------------------------------------ findings */

static void finding_row(struct hr *r, uint32_t fi)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;
	const struct fab_finding *f = &s->findings[fi];
	unsigned sev = f->severity < FAB_SEV__COUNT ? f->severity : FAB_SEV_ERROR;

	fab_hw_fmt(w, "<tr class=\"m%u\" data-sev=\"%s\"><td data-v=\"%u\">", sev + 1, sev_name(sev), sev);
	sev_badge(w, sev);
	fab_hw_raw(w, "</td><td>");
	fab_hw_text(w, f->subject);
	fab_hw_raw(w, "</td><td>");
	if (r->m->f_node[fi] != FAB_NONE)
		node_cell(w, s, r->m->f_node[fi]);
	else
		fab_hw_text(w, f->node);
	fab_hw_raw(w, "</td><td>");
	fab_hw_text(w, f->port);
	fab_hw_raw(w, "</td><td>");
	uint64_t guid;
	uint32_t peer = f->peer_node && !fab_guid_parse(f->peer_node, &guid) ?
				fab_snapshot_find_node(s, guid) : FAB_NONE;
	if (peer != FAB_NONE)
		node_cell(w, s, peer);
	else
		fab_hw_text(w, f->peer_node);
	if (f->peer_port) {
		fab_hw_raw(w, "/");
		fab_hw_text(w, f->peer_port);
	}
	fab_hw_raw(w, "</td><td class=\"msg\">");
	fab_hw_text(w, f->message);
	fab_hw_raw(w, "</td><td class=\"ev\">");
	fab_hw_text(w, f->evidence);
	fab_hw_raw(w, "</td></tr>\n");
}

static void write_findings(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_report_model *m = r->m;

	fab_hw_raw(w, "<section id=\"findings\">\n<h2>Findings</h2>\n");
	if (!r->s->n_findings) {
		if (r->s->checked_at_ms) {
			fab_hw_raw(w, "<p class=\"muted\">No findings: every rule that ran passed (checked ");
			time_text(w, r->s->checked_at_ms);
			fab_hw_raw(w, ").</p>\n</section>\n");
		} else {
			fab_hw_raw(w, "<p class=\"muted\">No findings, because no rule has run on this scan "
				      "(<code>fabsweep check</code>).</p>\n</section>\n");
		}
		return;
	}
	fab_hw_raw(w, "<div class=\"filters\"><span>Show:</span>"
		      "<label><input type=\"checkbox\" data-sev=\"error\" checked> errors</label>"
		      "<label><input type=\"checkbox\" data-sev=\"warning\" checked> warnings</label>"
		      "<label><input type=\"checkbox\" data-sev=\"info\" checked> info</label>"
		      "<label>rule <select id=\"f-rule\"><option value=\"\">all rules</option>");
	for (size_t i = 0; i < m->n_rules; i++) {
		fab_hw_raw(w, "<option value=\"");
		fab_hw_text(w, m->rules[i].id);
		fab_hw_raw(w, "\">");
		fab_hw_text(w, m->rules[i].id);
		fab_hw_fmt(w, " (%u)</option>", m->rules[i].total);
	}
	fab_hw_raw(w, "</select></label><label>text <input type=\"search\" id=\"f-text\" "
		      "placeholder=\"node, port, message...\"></label><span id=\"f-count\" class=\"muted\"></span></div>\n");
	for (size_t i = 0; i < m->n_rules; i++) {
		const struct fab_report_rule *ru = &m->rules[i];
		fab_hw_raw(w, "<details class=\"rule\" open data-rule=\"");
		fab_hw_text(w, ru->id);
		fab_hw_raw(w, "\"><summary>");
		sev_badge(w, ru->worst);
		fab_hw_raw(w, " <code>");
		fab_hw_text(w, ru->id);
		fab_hw_fmt(w, "</code> &middot; %u finding%s", ru->total, ru->total == 1 ? "" : "s");
		for (int sev = FAB_SEV__COUNT - 1; sev >= 0; sev--)
			if (ru->n[sev] && ru->n[sev] != ru->total)
				fab_hw_fmt(w, ", %u %s%s", ru->n[sev], sev_name((unsigned)sev),
					   ru->n[sev] > 1 && sev != FAB_SEV_INFO ? "s" : "");
		fab_hw_raw(w, "</summary>\n<table class=\"sortable\"><thead><tr><th>Severity</th><th>Subject</th>"
			      "<th>Node</th><th>Port</th><th>Peer</th><th>Message</th><th>Evidence</th></tr></thead><tbody>\n");
		for (size_t k = 0; k < ru->total && !w->err; k++)
			finding_row(r, m->order[ru->first + k]);
		fab_hw_raw(w, "</tbody></table></details>\n");
	}
	fab_hw_raw(w, "</section>\n");
}

/* ------------------------------------------------------------ SMs */

static void write_sms(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;
	unsigned masters = 0, standby = 0, failed = 0;

	fab_hw_raw(w, "<section id=\"sm\">\n<h2>Subnet managers</h2>\n");
	for (size_t i = 0; i < s->n_sms; i++) {
		masters += s->sms[i].state == 3 && !s->sms[i].failed;
		standby += s->sms[i].state == 2 && !s->sms[i].failed;
		failed += s->sms[i].failed;
	}
	fab_hw_fmt(w, "<p>%u master, %u standby", masters, standby);
	if (failed)
		fab_hw_fmt(w, ", <b>%u not answering</b>", failed);
	fab_hw_fmt(w, ". Master ActCount %u at the start of the scan, %u at the end", s->sm_act_start,
		   s->sm_act_end);
	if (s->sm_act_start != s->sm_act_end)
		fab_hw_raw(w, " <b>(the SM swept during the scan)</b>");
	fab_hw_raw(w, ".</p>\n");
	if (!s->n_sms) {
		fab_hw_raw(w, "<p class=\"muted\">No subnet manager was seen.</p></section>\n");
		return;
	}
	fab_hw_raw(w, "<table class=\"sortable\"><thead><tr><th>State</th><th class=\"num\">Priority</th>"
		      "<th class=\"num\">LID</th><th>Port GUID</th><th>Node</th><th class=\"num\">Port</th>"
		      "<th class=\"num\">ActCount</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < s->n_sms; i++) {
		const struct fab_sm *sm = &s->sms[i];
		const char *st = fab_sm_state_name(sm->state);
		fab_hw_fmt(w, "<tr%s><td>%s%s</td><td class=\"num\">%u</td><td class=\"num\">%u</td><td class=\"mono\">",
			   sm->failed ? " class=\"m3\"" : "", st ? st : "unknown",
			   sm->failed ? " (not answering SMInfo)" : "", sm->priority, sm->lid);
		guid_text(w, sm->port_guid);
		fab_hw_raw(w, "</td><td>");
		if (sm->port_idx < s->n_ports) {
			node_cell(w, s, s->ports[sm->port_idx].node_idx);
			fab_hw_fmt(w, "</td><td class=\"num\">%u", s->ports[sm->port_idx].port_num);
		} else {
			fab_hw_raw(w, "<span class=\"muted\">not in the topology</span></td><td>");
		}
		fab_hw_fmt(w, "</td><td class=\"num\">%u</td></tr>\n", sm->act_count);
	}
	fab_hw_raw(w, "</tbody></table>\n</section>\n");
}

/* ------------------------------------------------------------ counters */

static void write_counters(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;
	const struct fab_report_model *m = r->m;
	bool delta = false;

	fab_hw_raw(w, "<section id=\"counters\">\n<h2>Top error counters</h2>\n");
	if (!m->n_top) {
		fab_hw_fmt(w, "<p class=\"muted\">No error counter is above zero (%zu ports sampled).</p></section>\n",
			   m->n_sampled_ports);
		return;
	}
	for (size_t i = 0; i < m->n_top; i++)
		delta |= m->top[i].has_delta;
	fab_hw_fmt(w, "<p class=\"muted\">The largest error counter values (up to %d), from the last "
		      "sample of each port; %zu ports sampled.</p>\n", FAB_REPORT_TOP_COUNTERS, m->n_sampled_ports);
	fab_hw_raw(w, "<table class=\"sortable\"><thead><tr><th>Node</th><th class=\"num\">Port</th>"
		      "<th>Counter</th><th class=\"num\">Value</th>");
	if (delta && m->delta_from_baseline)
		fab_hw_fmt(w, "<th class=\"num\">Rose since scan %lld</th>", (long long)r->base->scan_id);
	else if (delta)
		fab_hw_raw(w, "<th class=\"num\">Rose between samples</th>");
	fab_hw_raw(w, "<th>Peer</th><th>Finding</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < m->n_top; i++) {
		const struct fab_report_top *t = &m->top[i];
		const struct fab_port *p = &s->ports[t->port];
		fab_hw_raw(w, "<tr><td>");
		node_cell(w, s, p->node_idx);
		fab_hw_fmt(w, "</td><td class=\"num\">%u</td><td>%s</td><td class=\"num\">", p->port_num,
			   fab_counter_name(t->ctr));
		fab_hw_u64(w, t->value);
		fab_hw_raw(w, "</td>");
		if (delta) {
			fab_hw_raw(w, "<td class=\"num\">");
			if (t->has_delta) {
				char inc[64];
				fab_counter_increase_text(t->delta, t->reset, t->saturated, inc, sizeof(inc));
				fab_hw_text(w, inc);
			}
			fab_hw_raw(w, "</td>");
		}
		fab_hw_raw(w, "<td>");
		peer_cell(w, s, p);
		fab_hw_fmt(w, "</td><td data-v=\"%u\">", m->port_mark[t->port]);
		fab_html_mark_badge(w, m->port_mark[t->port]);
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n</section>\n");
}

/* ------------------------------------------------------------ switch ports */

/* Closes the error counters' cell and writes the BER's (link.ber_high):
 * "&ge; 2.1e-11" for a lower bound, empty when unknown. */
static void ber_cell(struct fab_hw *w, const struct fab_report_model *m, uint32_t pi)
{
	double b = m->ber ? m->ber[pi] : -1;

	fab_hw_raw(w, "</td><td class=\"num\">");
	if (b >= 0)
		fab_hw_fmt(w, "%s%.2g", m->ber_at_least[pi] ? "&ge; " : "", b);
}

static void write_switch(struct hr *r, uint32_t n, bool open)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;
	const struct fab_node *nd = &s->nodes[n];
	unsigned active = 0, ext = 0;

	for (uint32_t k = 0; k < nd->port_count; k++) {
		const struct fab_port *p = &s->ports[nd->port_first + k];
		ext += p->port_num > 0;
		active += p->port_num > 0 && p->state == FAB_STATE_ACTIVE;
	}
	fab_hw_fmt(w, "<details%s><summary>", open ? " open" : "");
	fab_html_mark_badge(w, r->m->node_mark[n]);
	char nb[FAB_NODE_NAME_CAP];

	fab_hw_raw(w, " <b>");
	fab_hw_text(w, fab_report_node_label(s, n, nb));
	fab_hw_raw(w, "</b> <span class=\"muted mono\">");
	guid_text(w, nd->guid);
	fab_hw_fmt(w, "</span> <span class=\"muted\">%s &middot; LID %u &middot; %u of %u ports active",
		   fab_role_name(r->m->tier[n]), nd->lid, active, ext);
	if (r->node_findings[n])
		fab_hw_fmt(w, " &middot; %u finding%s", r->node_findings[n], r->node_findings[n] == 1 ? "" : "s");
	fab_hw_raw(w, "</span></summary>\n<table class=\"sortable\"><thead><tr><th class=\"num\">Port</th>"
		      "<th>State</th><th>Physical</th><th>Width</th><th>Speed</th><th class=\"num\">Gb/s</th>"
		      "<th class=\"num\">MTU</th><th>Peer</th><th class=\"num\">Error counters</th>"
		      "<th class=\"num\">BER</th><th>Finding</th></tr></thead><tbody>\n");
	for (uint32_t k = 0; k < nd->port_count && !w->err; k++) {
		uint32_t pi = nd->port_first + k;
		const struct fab_port *p = &s->ports[pi];
		const char *st = fab_state_name(p->state), *ph = fab_phys_state_name(p->phys_state);
		uint8_t mk = r->m->port_mark[pi];

		if (!p->port_num)
			continue;
		bool idle = !mk && p->state != FAB_STATE_ACTIVE && p->remote_idx == FAB_NONE;
		fab_hw_fmt(w, "<tr class=\"m%u%s\"><td class=\"num\">%u</td><td>%s</td><td>%s</td><td>", mk,
			   idle ? " muted" : "", p->port_num, st ? st : "?", ph ? ph : "?");
		widths_text(w, p->width_active);
		fab_hw_raw(w, "</td><td>");
		speeds_text(w, p->speed_active);
		fab_hw_raw(w, "</td><td class=\"num\">");
		if (p->width_active && p->speed_active)
			fab_hw_fmt(w, "%g", fab_rate_gbps(fab_width_best(p->width_active), fab_speed_best(p->speed_active)));
		fab_hw_raw(w, "</td><td class=\"num\">");
		if (fab_mtu_bytes(p->mtu_active))
			fab_hw_fmt(w, "%u", fab_mtu_bytes(p->mtu_active));
		fab_hw_raw(w, "</td><td>");
		peer_cell(w, s, p);
		const struct fab_counter_sample *c = latest_sample(s, pi);
		uint64_t errs = error_sum(c);
		fab_hw_raw(w, errs ? "</td><td class=\"num bad\">" : "</td><td class=\"num\">");
		if (c)
			fab_hw_u64(w, errs);
		ber_cell(w, r->m, pi);
		fab_hw_fmt(w, "</td><td data-v=\"%u\">", mk);
		if (mk)
			fab_html_mark_badge(w, mk);
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table></details>\n");
}

static void write_switches(struct hr *r)
{
	struct fab_hw *w = &r->w;
	size_t n = 0, opened = 0;
	uint32_t *sw = fab_html_sorted_switches(r, &n);

	fab_hw_raw(w, "<section id=\"switches\">\n<h2>Switch ports</h2>\n");
	if (!sw) {
		w->err = -ENOMEM;
		return;
	}
	fab_hw_fmt(w, "<p class=\"muted\">%zu switches; the ones with findings are open. "
		      "Error counters: the sum of the error counters of the port's last sample.</p>\n", n);
	for (size_t i = 0; i < n && !w->err; i++) {
		bool open = r->m->node_mark[sw[i]] > FAB_MARK(FAB_SEV_INFO) && opened < MAX_OPEN_SWITCHES;
		opened += open;
		write_switch(r, sw[i], open);
	}
	fab_hw_raw(w, "</section>\n");
	free(sw);
}

/* ------------------------------------------------------------ changes */

static void more_rows(struct fab_hw *w, size_t n)
{
	if (n > MAX_CHANGE_ROWS)
		fab_hw_fmt(w, "<p class=\"muted\">... and %zu more; the XML report lists all of them.</p>\n",
			   n - MAX_CHANGE_ROWS);
}

/* Change kinds for people, in the order of enum fab_change_kind. */
static const char *change_title(unsigned kind)
{
	static const char *const t[] = {
		[FAB_CHG_NODE_ADDED] = "node added",
		[FAB_CHG_NODE_REMOVED] = "node gone",
		[FAB_CHG_NODE_DESC] = "description changed",
		[FAB_CHG_LINK_ADDED] = "link added",
		[FAB_CHG_LINK_REMOVED] = "link gone",
		[FAB_CHG_LINK_WIDTH] = "link width",
		[FAB_CHG_LINK_SPEED] = "link speed",
		[FAB_CHG_LID] = "LID",
		[FAB_CHG_PORT_STATE] = "port state",
		[FAB_CHG_SM_MASTER] = "master SM moved",
		[FAB_CHG_SM_APPEARED] = "SM appeared",
		[FAB_CHG_SM_VANISHED] = "SM gone",
		[FAB_CHG_SM_STATE] = "SM state",
		[FAB_CHG_SM_PRIORITY] = "SM priority",
		[FAB_CHG_COUNTER_INCREASE] = "error counter rose",
		[FAB_CHG_COUNTER_RESET] = "counter cleared",
		[FAB_CHG_ROUTES] = "forwarding table changed",
		[FAB_CHG_PARTITION] = "partition membership",
		[FAB_CHG_PKEY_ENFORCEMENT] = "partition enforcement",
		[FAB_CHG_OP_VLS] = "operational VLs",
		[FAB_CHG_SL2VL] = "SL2VL tables",
		[FAB_CHG_VLARB] = "VL arbitration",
		[FAB_CHG_MODULE] = "module or cable changed",
		[FAB_CHG_MCAST_ADDED] = "multicast group created",
		[FAB_CHG_MCAST_REMOVED] = "multicast group deleted",
		[FAB_CHG_MCAST_TREE] = "multicast tree changed",
	};
	_Static_assert(sizeof(t) / sizeof(t[0]) == FAB_CHG__COUNT, "change titles");
	return kind < FAB_CHG__COUNT ? t[kind] : "change";
}

static void change_end_cell(struct fab_hw *w, const struct fab_change_end *e)
{
	char g[FAB_GUID_STRLEN], nb[FAB_NODE_NAME_CAP];

	if (e->system) { /* a RoCE host's interface */
		fab_hw_text(w, e->system);
		fab_hw_raw(w, "/");
		fab_hw_text(w, e->ifname ? e->ifname : "?");
		return;
	}
	if (!e->guid) {
		fab_hw_raw(w, "<span class=\"muted\">-</span>");
		return;
	}
	fab_guid_format(e->guid, g);
	fab_hw_fmt(w, "<span title=\"%s\">", g);
	fab_hw_text(w, fab_name_format(NULL, e->guid, e->desc, e->name_hex, nb, sizeof(nb)));
	fab_hw_raw(w, "</span>");
	if (e->port)
		fab_hw_fmt(w, "/%u", e->port);
}

static void fabric_change_table(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_diff *fd = r->d->fabric;
	char was[FAB_DESC_CAP + 64], now[FAB_DESC_CAP + 64];

	if (!fd->n)
		return;
	fab_hw_fmt(w, "<h3>Fabric changes (%zu)</h3>\n<table class=\"sortable\"><thead><tr><th>Change</th>"
		      "<th>Where</th><th>Other end</th><th>Was</th><th>Now</th></tr></thead><tbody>\n", fd->n);
	for (size_t i = 0; i < fd->n && i < MAX_CHANGE_ROWS && !w->err; i++) {
		const struct fab_change *c = &fd->changes[i];
		fab_report_change_values(c, was, now, sizeof(was));
		fab_hw_fmt(w, "<tr><td>%s", change_title(c->kind));
		if (c->kind == FAB_CHG_COUNTER_INCREASE || c->kind == FAB_CHG_COUNTER_RESET)
			fab_hw_fmt(w, ": %s", fab_counter_name(c->counter));
		if (c->kind == FAB_CHG_PARTITION)
			fab_hw_fmt(w, " 0x%04x", c->partition);
		if (c->kind >= FAB_CHG_MCAST_ADDED && c->kind <= FAB_CHG_MCAST_TREE) {
			char mg[FAB_MGID_STRLEN];
			fab_hw_fmt(w, " %s (MLID 0x%04x)", fab_mgid_format(c->mgid, mg), c->mlid);
		}
		fab_hw_raw(w, "</td><td>");
		change_end_cell(w, &c->subject);
		fab_hw_raw(w, "</td><td>");
		change_end_cell(w, &c->peer);
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, was);
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, now);
		if (c->kind == FAB_CHG_COUNTER_INCREASE || c->kind == FAB_CHG_COUNTER_RESET) {
			fab_counter_increase_text(c->increase, c->kind == FAB_CHG_COUNTER_RESET,
						  c->saturated, was, sizeof(was));
			fab_hw_raw(w, ", rose by ");
			fab_hw_text(w, was);
		}
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	more_rows(w, fd->n);
}

static void finding_change_table(struct hr *r, const char *title, const struct fab_snapshot *s,
				 const uint32_t *v, size_t n)
{
	struct fab_hw *w = &r->w;

	if (!n)
		return;
	fab_hw_fmt(w, "<h3>%s (%zu)</h3>\n<table class=\"sortable\"><thead><tr><th>Severity</th><th>Rule</th>"
		      "<th>Subject</th><th>Message</th></tr></thead><tbody>\n", title, n);
	for (size_t i = 0; i < n && i < MAX_CHANGE_ROWS; i++) {
		const struct fab_finding *f = &s->findings[v[i]];
		unsigned sev = f->severity < FAB_SEV__COUNT ? f->severity : FAB_SEV_ERROR;
		fab_hw_fmt(w, "<tr><td data-v=\"%u\">", sev);
		sev_badge(w, sev);
		fab_hw_raw(w, "</td><td><code>");
		fab_hw_text(w, f->rule_id);
		fab_hw_raw(w, "</code></td><td>");
		fab_hw_text(w, f->subject);
		fab_hw_raw(w, "</td><td class=\"msg\">");
		fab_hw_text(w, f->message);
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	more_rows(w, n);
}

static void write_changes(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_report_diff *d = r->d;
	const struct fab_snapshot *b = r->base;

	fab_hw_fmt(w, "<section id=\"changes\">\n<h2>Changes since scan %lld</h2>\n<p>Baseline: scan %lld, started ",
		   (long long)b->scan_id, (long long)b->scan_id);
	time_text(w, b->started_at_ms);
	if (b->label) {
		fab_hw_raw(w, ", label ");
		fab_hw_text(w, b->label);
	}
	fab_hw_fmt(w, ". <b>%zu</b> new findings, <b>%zu</b> resolved; <b>%zu</b> changes in the fabric",
		   d->n_findings_new, d->n_findings_resolved, d->fabric->n);
	for (unsigned k = 0, first = 1; k < FAB_CHG__COUNT; k++) {
		if (!d->fabric->count[k])
			continue;
		fab_hw_fmt(w, "%s%zu %s", first ? ": " : ", ", d->fabric->count[k], change_title(k));
		first = 0;
	}
	fab_hw_raw(w, ".</p>\n");
	finding_change_table(r, "New findings", r->s, d->findings_new, d->n_findings_new);
	finding_change_table(r, "Resolved findings", b, d->findings_resolved, d->n_findings_resolved);
	fabric_change_table(r);
	fab_hw_raw(w, "</section>\n");
}

/* ------------------------------------------------------------ scan errors */

static void write_missed(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;

	if (!s->n_errors)
		return;
	fab_hw_fmt(w, "<section id=\"missed\">\n<h2>What the scan missed (%zu)</h2>\n"
		      "<table class=\"sortable\"><thead><tr><th>What</th><th>Node</th><th class=\"num\">Port</th>"
		      "<th>Message</th></tr></thead><tbody>\n", s->n_errors);
	for (size_t i = 0; i < s->n_errors && i < MAX_ERROR_ROWS; i++) {
		const struct fab_scan_error *e = &s->errors[i];
		uint32_t n = e->node_guid ? fab_snapshot_find_node(s, e->node_guid) : FAB_NONE;
		fab_hw_raw(w, "<tr><td>");
		fab_hw_text(w, e->what);
		fab_hw_raw(w, "</td><td>");
		if (n != FAB_NONE)
			node_cell(w, s, n);
		else if (e->node_guid)
			guid_text(w, e->node_guid);
		fab_hw_raw(w, "</td><td class=\"num\">");
		if (e->port_num >= 0)
			fab_hw_fmt(w, "%d", e->port_num);
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, e->message);
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	if (s->n_errors > MAX_ERROR_ROWS)
		fab_hw_fmt(w, "<p class=\"muted\">... and %zu more.</p>\n", s->n_errors - MAX_ERROR_ROWS);
	fab_hw_raw(w, "</section>\n");
}

/* ------------------------------------------------------------ page */

int fab_report_render_html(const struct fab_report_ctx *c, FILE *f)
{
	struct hr r = { .s = c->snap, .base = c->base, .m = &c->m, .d = &c->d,
			.node_findings = c->node_findings, .c = c };
	struct fab_hw *w = &r.w;

	fab_hw_init(w, f);
	write_head(&r);
	write_header(&r);
	write_banner(&r);
	write_findings(&r);
	if (has_ib(r.s))
		fab_html_topology(&r);
	fab_html_ethernet(&r);
	fab_html_phys(&r);
	fab_html_trend(&r);
	if (r.base)
		write_changes(&r);
	fab_html_routing(&r);
	if (has_ib(r.s)) {
		write_sms(&r);
		write_counters(&r);
		write_switches(&r);
	}
	write_missed(&r);
	fab_hw_raw(w, "</main>\n<footer>Written by ");
	fab_hw_text(w, c->generator);
	fab_hw_raw(w, " at ");
	time_text(w, c->generated_at_ms);
	fab_hw_raw(w, " from the findings stored with the scan. Self-contained: no part of this page is "
		      "fetched from a network.</footer>\n<script>");
	fab_hw_raw(w, fab_html_js);
	fab_hw_raw(w, "</script>\n</body>\n</html>\n");
	return fab_hw_finish(w);
}

