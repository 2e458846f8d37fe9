// SPDX-License-Identifier: MIT
/*
 * The trends of the HTML report (docs/reports.md, "Trends") from a store
 * with a full scan and several watch sweeps (fabfix): the chart data (which
 * ports, their readings, what each counter counted per bucket and over the
 * period, resets and saturation as the counter model says), the
 * errors-per-minute timeline, a window that starts inside a chain (the
 * readings before it are the starting point), the findings raised in a
 * period (report --since); the SVG is well-formed XML, and the page's
 * Content-Security-Policy is the same as without trends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>


#include "fabsweep/counter.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report.h"
#include "fabsweep/store.h"
#include "fabsweep/store_history.h"
#include "fabsweep/trend.h"
#include "unit/reports/reportfix.h"
#include "unit/snapfix.h"

#define SYM FAB_CTR_SYMBOL_ERRORS
#define RCV FAB_CTR_RCV_ERRORS

static char db[256], html[256], plain[256];
static struct fab_snapshot *topo;
static int64_t t0;
static uint32_t pa, pb, pc; /* port indices: errors, errors, a finding only */

/* A sweep of topo at t: port `port` read with counter ctr = v (others as
 * in the full scan: zero), and findings as given. */
static void sweep(struct fab_store *st, int64_t t, uint32_t port, unsigned ctr, uint64_t v,
		  const char *rule)
{
	struct fab_snapshot *sw = fab_snapshot_new();

	sw->started_at_ms = t;
	sw->finished_at_ms = t + 20;
	sw->source = fab_snapshot_strdup(sw, "fixture", SIZE_MAX);
	if (port != FAB_NONE) {
		struct fab_counter_sample *c = fab_snapshot_add_sample(sw);
		c->port_idx = port;
		c->sampled_at_ms = t + 10;
		c->valid = fab_counter_error_mask();
		c->v[ctr] = v;
	}
	if (rule) {
		char g[FAB_GUID_STRLEN], p[8];
		fab_guid_format(topo->nodes[topo->ports[port].node_idx].guid, g);
		snprintf(p, sizeof(p), "%u", topo->ports[port].port_num);
		struct fab_finding f = { .rule_id = rule, .severity = FAB_SEV_ERROR, .node = g, .port = p,
					 .subject = "a port", .message = "errors rose" };
		assert_int_equal(fab_snapshot_add_finding(sw, &f), 0);
	}
	*fab_snapshot_add_sm(sw) = topo->sms[0];
	assert_int_equal(fab_store_write_sweep(st, sw, topo), 0);
	fab_snapshot_free(sw);
}

static int setup(void **state)
{
	struct fab_store *st;
	char g[FAB_GUID_STRLEN], p[8];

	fabfix_path(db, sizeof(db), "trend", ".db");
	fabfix_path(html, sizeof(html), "trend", ".html");
	fabfix_path(plain, sizeof(plain), "trend_plain", ".html");
	fabfix_unlink_db(db);
	topo = snapfix_fat_tree(2, 4, 3);
	t0 = topo->started_at_ms;
	pa = topo->samples[0].port_idx;  /* a switch port */
	pb = topo->samples[30].port_idx; /* a host's */
	pc = topo->samples[5].port_idx;
	topo->samples[0].v[SYM] = 10;
	/* scan 1 found port c's link wanting: a finding without errors */
	fab_guid_format(topo->nodes[topo->ports[pc].node_idx].guid, g);
	snprintf(p, sizeof(p), "%u", topo->ports[pc].port_num);
	struct fab_finding f = { .rule_id = "link.width_degraded", .severity = FAB_SEV_WARNING,
				 .node = g, .port = p, .subject = "a link", .message = "1X" };
	assert_int_equal(fab_snapshot_add_finding(topo, &f), 0);
	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, topo), 0);              /* 1: Sym 10 */
	sweep(st, t0 + 60000, pa, SYM, 15, NULL);                          /* 2: +5 */
	sweep(st, t0 + 120000, pb, RCV, 7, NULL);                          /* 3: +7 */
	sweep(st, t0 + 180000, pa, SYM, 3, "port.errors");                 /* 4: cleared: 3 or more */
	sweep(st, t0 + 240000, FAB_NONE, 0, 0, NULL);                      /* 5: nothing changed */
	sweep(st, t0 + 300000, pa, SYM, 65535, "port.errors");             /* 6: saturated: 65532 or more */
	fab_store_close(st);
	*state = NULL;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fab_snapshot_free(topo);
	fabfix_unlink_db(db);
	unlink(html);
	unlink(plain);
	return 0;
}

static const struct fab_trend_chart *chart_of(const struct fab_trend *t, uint32_t port)
{
	uint64_t guid = topo->nodes[topo->ports[port].node_idx].guid;

	for (size_t i = 0; i < t->n_charts; i++)
		if (t->charts[i].node_guid == guid && t->charts[i].port_num == topo->ports[port].port_num)
			return &t->charts[i];
	return NULL;
}

/* Bucket of a time in a trend's charts. */
static size_t bucket(const struct fab_trend *t, int64_t ms)
{
	return (size_t)((ms - t->from_ms) / t->bucket_ms);
}

static void trend_of(int64_t from, int64_t to, bool since, struct fab_trend *t)
{
	struct fab_store *st;
	struct fab_snapshot *snap;

	assert_int_equal(fab_store_open(db, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 1, &snap), 0);
	assert_int_equal(fab_pipeline_trend(st, snap, from, to, since, FAB_TREND_TOP, t), 0);
	fab_snapshot_free(snap);
	fab_store_close(st);
}

/* The whole chain in the window: every reading compared with the one before. */
static void test_chart_data(void **state)
{
	struct fab_trend t;
	const struct fab_trend_chart *a, *b, *c;

	(void)state;
	trend_of(t0 - 3600000, t0 + 600000, false, &t);
	assert_int_equal(t.n_charts, 3);
	/* display order: the finding first, then by errors */
	a = chart_of(&t, pa);
	b = chart_of(&t, pb);
	c = chart_of(&t, pc);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_ptr_equal(c, &t.charts[0]);
	assert_ptr_equal(a, &t.charts[1]);
	assert_true(c->finding);
	assert_false(a->finding);
	assert_int_equal(c->errors, 0);
	/* port a: 10 -> 15 (+5) -> 3 (cleared: 3 or more) -> 65535 (saturated: +65532 or more) */
	assert_int_equal(a->n_readings, 4);
	assert_int_equal(t.n_readings, topo->n_samples + 4);
	assert_int_equal(a->total.inc[SYM], 5 + 3 + 65532);
	assert_true(a->total.reset & (1u << SYM));
	assert_true(a->total.saturated & (1u << SYM));
	assert_true(a->at_least);
	assert_int_equal(a->errors, 65540);
	assert_int_equal(a->inc[bucket(&t, t0 + 60010) * FAB_CTR__COUNT + SYM], 5);
	assert_int_equal(a->inc[bucket(&t, t0 + 180010) * FAB_CTR__COUNT + SYM], 3);
	assert_true(a->at_least_in[bucket(&t, t0 + 180010)] & (1u << SYM));
	assert_int_equal(a->inc[bucket(&t, t0 + 300010) * FAB_CTR__COUNT + SYM], 65532);
	assert_false(a->at_least_in[bucket(&t, t0 + 60010)]);
	uint64_t sum = 0;
	for (size_t i = 0; i < t.n_buckets; i++)
		sum += a->inc[i * FAB_CTR__COUNT + SYM];
	assert_int_equal(sum, a->total.inc[SYM]);
	/* the rate is the model's: the increase over the seconds between readings */
	assert_true(a->total.secs > 299.0 && a->total.secs < 300.0);
	assert_true(a->rate > 218.0 && a->rate < 219.0);
	/* port b: +7 PortRcvErrors in sweep 3 */
	assert_int_equal(b->total.inc[RCV], 7);
	assert_int_equal(b->errors, 7);
	assert_int_equal(b->inc[bucket(&t, t0 + 120010) * FAB_CTR__COUNT + RCV], 7);
	/* the timeline: per minute, over every port */
	assert_int_equal(t.minute_ms, 60000);
	assert_int_equal(t.total_errors, 65547);
	assert_int_equal(t.errors[(t0 + 60010 - t.from_ms) / 60000], 5);
	assert_int_equal(t.errors[(t0 + 120010 - t.from_ms) / 60000], 7);
	assert_int_equal(t.errors[(t0 + 180010 - t.from_ms) / 60000], 3);
	assert_true(t.errors_at_least[(t0 + 180010 - t.from_ms) / 60000]);
	assert_false(t.errors_at_least[(t0 + 120010 - t.from_ms) / 60000]);
	assert_int_equal(t.n_ports_grew, 2);
	assert_int_equal(t.n_ports, topo->n_samples);
	assert_int_equal(t.n_raised, 0); /* only a period reads them */
	fab_trend_free(&t);
}

/* A window that starts after sweep 3: the chain's rows before it are where
 * the counters stood, so sweep 4's 3 (after 15) is a clear, not +3 from 0
 * nor nothing. */
static void test_window_inside_chain(void **state)
{
	struct fab_trend t;
	const struct fab_trend_chart *a;

	(void)state;
	trend_of(t0 + 150000, t0 + 600000, true, &t);
	a = chart_of(&t, pa);
	assert_non_null(a);
	assert_int_equal(a->n_readings, 2);
	assert_int_equal(a->total.inc[SYM], 3 + 65532);
	assert_true(a->total.reset & (1u << SYM));
	assert_null(chart_of(&t, pb)); /* its errors were before the window */
	assert_int_equal(t.total_errors, 65535);
	/* the findings raised in the period: port.errors at a, once, from two sweeps */
	assert_int_equal(t.n_raised, 1);
	assert_string_equal(t.period->findings[t.raised[0].finding].rule_id, "port.errors");
	assert_int_equal(t.raised[0].n_scans, 2);
	assert_int_equal(t.raised[0].first_ms, t0 + 180000);
	assert_int_equal(t.raised[0].last_ms, t0 + 300000);
	assert_int_equal(t.raised[0].last_scan_id, 6);
	fab_trend_free(&t);
}

/* No scan in the window: an empty trend, no error. */
static void test_empty_window(void **state)
{
	struct fab_trend t;

	(void)state;
	trend_of(t0 + 3600000, t0 + 7200000, true, &t);
	assert_int_equal(t.total_errors, 0);
	assert_int_equal(t.n_readings, 0);
	assert_int_equal(t.n_raised, 0);
	assert_int_equal(t.n_charts, 1); /* the scan's finding still names port c */
	fab_trend_free(&t);
}

/* The Content-Security-Policy of a page, copied. */
static char *csp_of(const char *page)
{
	const char *p = strstr(page, "http-equiv=\"Content-Security-Policy\" content=\""), *e;

	assert_non_null(p);
	p += strlen("http-equiv=\"Content-Security-Policy\" content=\"");
	e = strchr(p, '"');
	return strndup(p, (size_t)(e - p));
}

/* The report: the trend section draws well-formed SVG (the timeline and a
 * chart per charted port, a line per counter that grew), no script and no
 * style attribute, and the same CSP as without trends. */
static void test_svg(void **state)
{
	struct fab_pipeline_report job = { .db = db, .html = html, .node_name_map = "",
					   .since_ms = 3600000, .now_ms = t0 + 600000 };
	struct fab_pipeline_report_result res;
	size_t n_svg = 0, n_lines = 0, n_bars = 0;

	(void)state;
	fab_report_opts_init(&job.opts);
	job.opts.generated_at_ms = t0;
	assert_int_equal(fab_pipeline_report(&job, &res), 0);
	assert_int_equal(res.scan_id, 6);
	assert_int_equal(res.n_charts, 3);
	assert_int_equal(res.n_raised, 2); /* scan 1's and the sweeps' */
	job.since_ms = 0;
	job.no_trends = true;
	job.html = plain;
	assert_int_equal(fab_pipeline_report(&job, &res), 0);

	char *page = rfix_slurp(html, NULL), *nop = rfix_slurp(plain, NULL);
	char *csp = csp_of(page), *csp0 = csp_of(nop);
	assert_string_equal(csp, csp0);
	assert_non_null(strstr(csp, "default-src 'none'; style-src 'sha256-"));
	assert_null(strstr(csp, "unsafe"));
	assert_null(strstr(nop, "id=\"trends\""));
	const char *sec = strstr(page, "<section id=\"trends\">"), *end = strstr(sec, "</section>");
	assert_non_null(sec);
	assert_non_null(end);
	/* nothing that runs or fetches but the page's own script and style */
	struct rfix_live l = rfix_html_live(html, NULL);
	assert_int_equal(l.scripts, 1);
	assert_int_equal(l.styles, 1);
	assert_int_equal(l.handlers + l.fetchers + l.js_urls + l.style_attrs + l.src_attrs, 0);
	assert_non_null(strstr(page, "<a href=\"#trends\">Trends</a>"));
	assert_non_null(strstr(sec, "Findings raised in the period"));
	assert_non_null(strstr(sec, "port.errors"));
	/* every svg of the section parses as XML on its own */
	for (const char *p = sec; (p = strstr(p, "<svg")) && p < end; p++) {
		const char *q = strstr(p, "</svg>");
		xmlDocPtr doc;

		assert_non_null(q);
		q += strlen("</svg>");
		doc = xmlReadMemory(p, (int)(q - p), "trend.svg", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
		assert_non_null(doc);
		assert_string_equal((const char *)xmlDocGetRootElement(doc)->name, "svg");
		for (xmlNodePtr n = xmlDocGetRootElement(doc)->children; n; n = n->next) {
			if (n->type != XML_ELEMENT_NODE)
				continue;
			n_lines += !strcmp((const char *)n->name, "polyline");
			n_bars += !strcmp((const char *)n->name, "rect");
			assert_true(strcmp((const char *)n->name, "script"));
		}
		xmlFreeDoc(doc);
		n_svg++;
	}
	/* the timeline and three charts; in the last hour: lines of a's
	 * SymbolErrorCounter and b's PortRcvErrors; bars in 4 minutes */
	assert_int_equal(n_svg, 4);
	assert_int_equal(n_lines, 2);
	assert_int_equal(n_bars, 4);
	assert_non_null(strstr(sec, "data-counter=\"SymbolErrorCounter\""));
	assert_non_null(strstr(sec, "65540 or more errors"));
	free(csp);
	free(csp0);
	free(page);
	free(nop);
}

/* A period in which no port was read twice: one line saying so, no chart
 * drawn and none counted (a lone scan's report showed empty axes). */
static void test_nothing_to_draw(void **state)
{
	struct fab_pipeline_report job = { .db = db, .html = html, .node_name_map = "",
					   .since_ms = 60000, .now_ms = t0 + 7200000 };
	struct fab_pipeline_report_result res;

	(void)state;
	fab_report_opts_init(&job.opts);
	job.opts.generated_at_ms = t0;
	assert_int_equal(fab_pipeline_report(&job, &res), 0);
	assert_int_equal(res.n_charts, 0);

	char *page = rfix_slurp(html, NULL);
	const char *sec = strstr(page, "<section id=\"trends\">");
	assert_non_null(sec);
	assert_non_null(strstr(sec, "No port was read twice in the period"));
	assert_null(strstr(sec, "<svg"));
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chart_data),
		cmocka_unit_test(test_window_inside_chain),
		cmocka_unit_test(test_empty_window),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_nothing_to_draw),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
