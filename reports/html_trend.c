// SPDX-License-Identifier: MIT
/*
 * The HTML report's trend section (docs/reports.md, "Trends"): the period's
 * errors per minute over the whole fabric, a small chart per charted port
 * of what each error counter counted over the period, and, for a period
 * (report --since), the findings raised in it. Inline SVG drawn here from
 * the trend model (include/fabsweep/trend.h, whose numbers are the counter
 * model's): no script, no style attribute, classes styled by the page's
 * stylesheet, so the Content-Security-Policy stays as it is.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "fabsweep/roce.h"
#include "fabsweep/trend.h"
#include "html.h"

#define TL_W 960.0 /* the timeline's plot area */
#define TL_H 90.0
#define CH_W 300.0 /* a port's chart */
#define CH_H 80.0
#define PAD_L 46.0 /* room for the y labels */
#define PAD_B 16.0 /* and the time labels */
#define LINES 4    /* counters drawn per chart, most grown first */

static void time_text(struct fab_hw *w, int64_t ms)
{
	char t[FAB_TIME_STRLEN];

	fab_time_format(ms, t);
	fab_hw_raw(w, t);
}

/* "HH:MM" (a day or less) or "MM-DD HH:MM" of a time, for axis labels. */
static void axis_time(char *buf, size_t len, int64_t ms, bool long_period)
{
	char t[FAB_TIME_STRLEN];

	fab_time_format(ms, t);
	snprintf(buf, len, "%.*s", long_period ? 11 : 5, long_period ? t + 5 : t + 11);
	if (long_period)
		buf[5] = ' ';
}

/* Time labels under a plot of width pw starting at x0. */
static void time_axis(struct hr *r, const struct fab_trend *t, double x0, double y, double pw)
{
	bool lng = t->to_ms - t->from_ms > FAB_TREND_DAY_MS;
	char a[24], b[24];

	axis_time(a, sizeof(a), t->from_ms, lng);
	axis_time(b, sizeof(b), t->to_ms, lng);
	fab_hw_fmt(&r->w, "<text class=\"small\" x=\"%.1f\" y=\"%.1f\">%s</text>"
			  "<text class=\"small\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		   x0, y, a, x0 + pw, y, b);
}

/* "desc/port" of a port by GUID and number: the scan's names when it has
 * the node, else the GUID. */
static void port_label(struct hr *r, uint64_t guid, unsigned port)
{
	const struct fab_snapshot *s = r->s;
	uint32_t n = fab_snapshot_find_node(s, guid);
	char g[FAB_GUID_STRLEN], nb[FAB_NODE_NAME_CAP];

	fab_guid_format(guid, g);
	fab_hw_fmt(&r->w, "<span title=\"%s\">", g);
	fab_hw_text(&r->w, n == FAB_NONE ? g : fab_report_node_label(s, n, nb));
	fab_hw_fmt(&r->w, "</span>/%u", port);
}

/* The port's peer in the scan, " to desc/port", when known. */
static void peer_label(struct hr *r, uint64_t guid, unsigned port)
{
	const struct fab_snapshot *s = r->s;
	uint32_t n = fab_snapshot_find_node(s, guid);
	const struct fab_port *p = n == FAB_NONE ? NULL : fab_snapshot_port(s, n, port);

	if (!p || p->remote_idx >= s->n_ports)
		return;
	const struct fab_port *q = &s->ports[p->remote_idx];
	fab_hw_raw(&r->w, " &harr; ");
	port_label(r, s->nodes[q->node_idx].guid, q->port_num);
}

/* ---- the timeline ------------------------------------------------------------ */

static void write_timeline(struct hr *r, const struct fab_trend *t)
{
	struct fab_hw *w = &r->w;
	uint64_t max = 0;
	double bw = TL_W / (double)t->n_minutes;

	for (size_t m = 0; m < t->n_minutes; m++)
		if (t->errors[m] > max)
			max = t->errors[m];
	fab_hw_fmt(w, "<h3>Errors per %s, whole fabric</h3>\n",
		   t->minute_ms == 60000 ? "minute" : "interval");
	if (t->minute_ms != 60000)
		fab_hw_fmt(w, "<p class=\"muted\">Each bar is %" PRId64 " minutes.</p>\n",
			   t->minute_ms / 60000);
	fab_hw_raw(w, "<div class=\"svgwrap\">");
	fab_hw_fmt(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend timeline\" width=\"%.0f\" "
		      "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">",
		   PAD_L + TL_W + 8, TL_H + PAD_B + 12, PAD_L + TL_W + 8, TL_H + PAD_B + 12);
	fab_hw_fmt(w, "<title>Errors per minute from %" PRIu64 " errors counted in the period</title>\n",
		   t->total_errors);
	fab_hw_fmt(w, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PAD_L,
		   TL_H + 6, PAD_L + TL_W, TL_H + 6);
	fab_hw_fmt(w, "<text class=\"small\" x=\"%.1f\" y=\"12\" text-anchor=\"end\">%" PRIu64 "</text>"
		      "<text class=\"small\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>\n",
		   PAD_L - 4, max, PAD_L - 4, TL_H + 6);
	for (size_t m = 0; m < t->n_minutes && max; m++) {
		double h;

		if (!t->errors[m] && !t->errors_at_least[m])
			continue;
		h = (double)t->errors[m] / (double)max * (TL_H - 6);
		if (h < 2)
			h = 2; /* a minute with errors is never invisible */
		fab_hw_fmt(w, "<rect class=\"tb%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">"
			      "<title>", t->errors_at_least[m] ? " al" : "",
			   PAD_L + (double)m * bw, TL_H + 6 - h, bw > 1.5 ? bw - 0.5 : bw, h);
		time_text(w, t->from_ms + (int64_t)m * t->minute_ms);
		fab_hw_fmt(w, ": %" PRIu64 "%s errors</title></rect>\n", t->errors[m],
			   t->errors_at_least[m] ? " or more" : "");
	}
	time_axis(r, t, PAD_L, TL_H + PAD_B + 6, TL_W);
	fab_hw_raw(w, "</svg></div>\n");
}

/* ---- a port's chart ------------------------------------------------------------ */

/* The error counters of a chart that grew, most first (up to LINES). */
static size_t chart_lines(const struct fab_trend_chart *ch, unsigned out[LINES])
{
	size_t n = 0;

	for (unsigned k = 0; k < FAB_CTR__COUNT; k++) {
		if (!fab_counter_is_error(k) || !(ch->total.valid & (1u << k)) || !ch->total.inc[k])
			continue;
		size_t at = n < LINES ? n++ : LINES;
		while (at > 0 && ch->total.inc[out[at - 1]] < ch->total.inc[k]) {
			if (at < LINES)
				out[at] = out[at - 1];
			at--;
		}
		if (at < LINES)
			out[at] = k;
	}
	return n;
}

static void write_chart(struct hr *r, const struct fab_trend *t, const struct fab_trend_chart *ch)
{
	struct fab_hw *w = &r->w;
	unsigned lines[LINES];
	size_t nl = chart_lines(ch, lines);
	uint64_t max = 0;
	double bw = CH_W / (double)t->n_buckets;
	char amount[32];

	for (size_t i = 0; i < nl; i++)
		if (ch->total.inc[lines[i]] > max)
			max = ch->total.inc[lines[i]];
	fab_hw_raw(w, "<figure class=\"chart\"><figcaption>");
	port_label(r, ch->node_guid, ch->port_num);
	peer_label(r, ch->node_guid, ch->port_num);
	fab_counter_amount(ch->errors, ch->at_least, amount, sizeof(amount));
	fab_hw_fmt(w, "<br><span class=\"muted\">%s errors", amount);
	if (ch->total.secs > 0)
		fab_hw_fmt(w, ", %.3g/s over the %.0f s its readings span", ch->rate, ch->total.secs);
	fab_hw_fmt(w, "%s</span></figcaption>\n", ch->finding ? "; named by a finding" : "");
	fab_hw_fmt(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend\" width=\"%.0f\" "
		      "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">",
		   PAD_L + CH_W + 8, CH_H + PAD_B + 12, PAD_L + CH_W + 8, CH_H + PAD_B + 12);
	uint32_t n = fab_snapshot_find_node(r->s, ch->node_guid);
	char g[FAB_GUID_STRLEN], nb[FAB_NODE_NAME_CAP];
	fab_guid_format(ch->node_guid, g);
	fab_hw_raw(w, "<title>Error counters of ");
	fab_hw_text(w, n == FAB_NONE ? g : fab_report_node_label(r->s, n, nb));
	fab_hw_fmt(w, " port %u, counted since the start of the period</title>\n", ch->port_num);
	fab_hw_fmt(w, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PAD_L,
		   CH_H + 6, PAD_L + CH_W, CH_H + 6);
	fab_hw_fmt(w, "<text class=\"small\" x=\"%.1f\" y=\"12\" text-anchor=\"end\">%" PRIu64 "</text>"
		      "<text class=\"small\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>\n",
		   PAD_L - 4, max, PAD_L - 4, CH_H + 6);
	/* each counter: what it counted since the period began, bucket by bucket */
	for (size_t i = 0; i < nl && max; i++) {
		unsigned k = lines[i];
		uint64_t cum = 0;

		fab_hw_fmt(w, "<polyline class=\"c%zu\" data-counter=\"%s\" points=\"%.1f,%.1f", i,
			   fab_counter_name(k), PAD_L, CH_H + 6);
		for (size_t b = 0; b < t->n_buckets; b++) {
			uint64_t inc = ch->inc[b * FAB_CTR__COUNT + k];
			double x = PAD_L + (double)(b + 1) * bw;

			if (!inc && b + 1 < t->n_buckets)
				continue;
			/* a step: flat until the bucket, then up */
			fab_hw_fmt(w, " %.1f,%.1f", x - bw, CH_H + 6 - (double)cum / (double)max * (CH_H - 6));
			cum += inc;
			fab_hw_fmt(w, " %.1f,%.1f", x, CH_H + 6 - (double)cum / (double)max * (CH_H - 6));
		}
		fab_hw_raw(w, "\"/>\n");
		/* lower bounds (a reset or a saturation in that bucket) marked */
		cum = 0;
		for (size_t b = 0; b < t->n_buckets; b++) {
			cum += ch->inc[b * FAB_CTR__COUNT + k];
			if (ch->at_least_in[b] & (1u << k))
				fab_hw_fmt(w, "<circle class=\"al c%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\">"
					      "<title>%s: %s</title></circle>\n",
					   i, PAD_L + (double)(b + 1) * bw,
					   CH_H + 6 - (double)cum / (double)max * (CH_H - 6),
					   fab_counter_name(k),
					   ch->total.reset & (1u << k) ? "cleared in between: or more"
									: "saturated: or more");
		}
	}
	if (!max)
		fab_hw_fmt(w, "<text class=\"small\" x=\"%.1f\" y=\"%.1f\">no error counted in %zu readings</text>\n",
			   PAD_L + 8, CH_H / 2, ch->n_readings);
	time_axis(r, t, PAD_L, CH_H + PAD_B + 6, CH_W);
	fab_hw_raw(w, "</svg>\n<div class=\"legend\">");
	for (size_t i = 0; i < nl; i++) {
		char inc[64];

		fab_counter_increase_text(ch->total.inc[lines[i]], ch->total.reset & (1u << lines[i]),
					  ch->total.saturated & (1u << lines[i]), inc, sizeof(inc));
		fab_hw_fmt(w, "<span><span class=\"sw k%zu\"></span>%s +", i, fab_counter_name(lines[i]));
		fab_hw_text(w, inc);
		fab_hw_raw(w, "</span>");
	}
	fab_hw_raw(w, "</div></figure>\n");
}

/* ---- findings of the period ---------------------------------------------------- */

static void write_raised(struct hr *r, const struct fab_trend *t)
{
	struct fab_hw *w = &r->w;

	fab_hw_fmt(w, "<h3>Findings raised in the period</h3>\n<p class=\"muted\">%zu findings "
		      "(rule, node and port), each once however many scans raised it.</p>\n", t->n_raised);
	if (!t->n_raised)
		return;
	fab_hw_raw(w, "<table class=\"sortable\"><thead><tr><th>Severity</th><th>Rule</th><th>Subject</th>"
		      "<th>Message</th><th>First raised</th><th>Last raised</th><th class=\"num\">Scans</th>"
		      "</tr></thead><tbody>\n");
	for (size_t i = 0; i < t->n_raised; i++) {
		const struct fab_trend_finding *h = &t->raised[i];
		const struct fab_finding *f = &t->period->findings[h->finding];

		fab_hw_fmt(w, "<tr><td><span class=\"sev %s\">%s</span></td><td>", sev_name(f->severity),
			   sev_name(f->severity));
		fab_hw_text(w, f->rule_id ? f->rule_id : "");
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, f->subject ? f->subject : "");
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, f->message ? f->message : "");
		fab_hw_raw(w, "</td><td>");
		time_text(w, h->first_ms);
		fab_hw_raw(w, "</td><td>");
		time_text(w, h->last_ms);
		fab_hw_fmt(w, "</td><td class=\"num\">%" PRId64 "</td></tr>\n", h->n_scans);
	}
	fab_hw_raw(w, "</tbody></table>\n");
}

void fab_html_trend(struct hr *r)
{
	const struct fab_trend *t = r->c->opts->trend;
	struct fab_hw *w = &r->w;

	if (!t)
		return;
	fab_hw_raw(w, "<section id=\"trends\">\n<h2>Trends</h2>\n<p class=\"muted\">From ");
	time_text(w, t->from_ms);
	fab_hw_raw(w, " to ");
	time_text(w, t->to_ms);
	fab_hw_fmt(w, ": %zu counter readings of %zu ports stored by the scans and watch sweeps of the period "
		      "(a sweep stores a port's counters only when they changed); "
		      "%zu ports counted %" PRIu64 " errors.</p>\n",
		   t->n_readings, t->n_ports, t->n_ports_grew, t->total_errors);
	if (!t->n_steps) {
		/* one reading per port: there is nothing to draw a line through */
		fab_hw_raw(w, "<p class=\"muted\">No port was read twice in the period: the charts need a "
			      "second scan or watch sweep (docs/watch.md).</p>\n");
		goto raised;
	}
	write_timeline(r, t);
	fab_hw_raw(w, "<h3>Ports with findings, and the highest error rates</h3>\n");
	if (!t->n_charts)
		fab_hw_raw(w, "<p class=\"muted\">No port named by a finding, and no error counted.</p>\n");
	else
		fab_hw_raw(w, "<p class=\"muted\">What each error counter counted since the start of the "
			      "period (the counter model: a counter cleared in between counts from its clear, "
			      "marked with a dot).</p>\n<div class=\"charts\">\n");
	for (size_t i = 0; i < t->n_charts; i++)
		write_chart(r, t, &t->charts[i]);
	if (t->n_charts)
		fab_hw_raw(w, "</div>\n");
	if (t->n_more)
		fab_hw_fmt(w, "<p class=\"muted\">... and %zu more ports with findings or errors.</p>\n",
			   t->n_more);
raised:
	if (t->since)
		write_raised(r, t);
	fab_hw_raw(w, "</section>\n");
}
