// SPDX-License-Identifier: MIT
/* The HTML report: self-contained, locked down by its CSP, complete, and
 * drawn aggregated for large fabrics. */
#include "unit/reports/reportfix.h"

#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "reports/sha256.h"
#include "unit/reports/fatfab.h"

static char out[512];

static int setup(void **state)
{
	rfix_path(out, sizeof(out), "test_html", ".html");
	unlink(out);
	return 0;
}

static int teardown(void **state)
{
	unlink(out);
	return 0;
}

#define LEAF(spines, i) ((uint32_t)((spines) + (i)))

static size_t count_str(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The text between the first `open` and the following `close`. */
static char *between(const char *s, const char *open, const char *close)
{
	const char *a = strstr(s, open);
	assert_non_null(a);
	a += strlen(open);
	const char *b = strstr(a, close);
	assert_non_null(b);
	return strndup(a, (size_t)(b - a));
}

static void test_html_locked_down(void **state)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);

	fatfab_finding(s, "port.errors", FAB_SEV_ERROR, LEAF(2, 1), 4, "leaf002/4", "SymbolErrorCounter 500 > 10");
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	char *html = rfix_slurp(out, NULL);
	struct rfix_live l = rfix_html_live(out, NULL);

	/* one script, one style: ours; nothing else that runs or fetches */
	assert_int_equal(l.scripts, 1);
	assert_int_equal(l.styles, 1);
	assert_int_equal(l.handlers, 0);
	assert_int_equal(l.fetchers, 0);
	assert_int_equal(l.js_urls, 0);
	assert_int_equal(l.style_attrs, 0);
	assert_int_equal(l.src_attrs, 0);
	assert_int_equal(l.csp_meta, 1);
	/* the only URL is the SVG namespace */
	assert_int_equal(count_str(html, "http://") + count_str(html, "https://"),
			 count_str(html, "xmlns=\"http://www.w3.org/2000/svg\""));
	/* the CSP allows exactly the inline style and script, by hash */
	char *csp = between(html, "http-equiv=\"Content-Security-Policy\" content=\"", "\"");
	char *css = between(html, "<style>", "</style>");
	char *js = between(html, "<script>", "</script>");
	char h[FAB_SHA256_B64_LEN], want[128];
	assert_non_null(strstr(csp, "default-src 'none'"));
	assert_null(strstr(csp, "unsafe"));
	fab_sha256_base64(css, strlen(css), h);
	snprintf(want, sizeof(want), "style-src 'sha256-%s'", h);
	assert_non_null(strstr(csp, want));
	fab_sha256_base64(js, strlen(js), h);
	snprintf(want, sizeof(want), "script-src 'sha256-%s'", h);
	assert_non_null(strstr(csp, want));
	assert_null(strstr(js, "innerHTML"));
	assert_null(strstr(js, "eval("));
	free(csp);
	free(css);
	free(js);
	free(html);
	fab_snapshot_free(s);
}

static void test_html_sections(void **state)
{
	struct fab_snapshot *base = fatfab_build(2, 4, 3, true), *s = fatfab_build(2, 4, 3, true);

	base->scan_id = 3;
	s->scan_id = 4;
	fatfab_finding(s, "port.errors", FAB_SEV_ERROR, LEAF(2, 1), 4, "leaf002/4", "SymbolErrorCounter 500 > 10");
	fatfab_finding(s, "port.errors", FAB_SEV_WARNING, LEAF(2, 1), 5, "leaf002/5", "LinkDownedCounter 3 > 0");
	fatfab_finding(s, "link.width", FAB_SEV_WARNING, LEAF(2, 0), 1, "leaf001/1", "1X");
	fatfab_finding(base, "sm.single", FAB_SEV_INFO, 0, 0, "fabric", "one SM");
	uint32_t p = fab_snapshot_port(s, LEAF(2, 1), 4) - s->ports;
	((struct fab_counter_sample *)fab_snapshot_sample(s, p, 0))->v[FAB_CTR_SYMBOL_ERRORS] = 500;
	assert_int_equal(fab_report_html(s, base, NULL, out), 0);
	char *html = rfix_slurp(out, NULL);

	assert_non_null(strstr(html, "<section id=\"verdict\" class=\"banner failing\">"));
	assert_non_null(strstr(html, "<span class=\"pill error\">1 error</span>"));
	assert_non_null(strstr(html, "<span class=\"pill warning\">2 warnings</span>"));
	for (const char *const *id = (const char *const[]){ "findings", "topology", "sm", "counters",
							    "switches", "changes", NULL }; *id; id++) {
		char want[64];
		snprintf(want, sizeof(want), "<section id=\"%s\">", *id);
		assert_non_null(strstr(html, want));
	}
	assert_null(strstr(html, "<section id=\"missed\">")); /* nothing missed */
	/* findings grouped by rule, worst rule first, filterable and sortable */
	assert_int_equal(count_str(html, "<details class=\"rule\""), 2);
	assert_true(strstr(html, "data-rule=\"port.errors\"") < strstr(html, "data-rule=\"link.width\""));
	assert_int_equal(count_str(html, "data-sev=\"warning\"><td"), 2);
	assert_non_null(strstr(html, "<option value=\"port.errors\">port.errors (2)</option>"));
	assert_non_null(strstr(html, "id=\"f-text\""));
	assert_true(count_str(html, "<table class=\"sortable\">") >= 3);
	/* the error link is drawn red; the warning link to a spine and the
	 * line to leaf001's hosts amber */
	assert_int_equal(count_str(html, "<line class=\"l3\""), 1);
	assert_int_equal(count_str(html, "<line class=\"l2\""), 2);
	/* top counters, SM panel, switch tables, changes */
	assert_non_null(strstr(html, "<td>SymbolErrorCounter</td><td class=\"num\">500</td>"));
	assert_non_null(strstr(html, "<td>master</td><td class=\"num\">14</td>"));
	assert_int_equal(count_str(html, "<details><summary>") + count_str(html, "<details open><summary>"), 6);
	assert_non_null(strstr(html, "<h2>Changes since scan 3</h2>"));
	assert_non_null(strstr(html, "<h3>New findings (3)</h3>"));
	assert_non_null(strstr(html, "<h3>Resolved findings (1)</h3>"));
	free(html);
	fab_snapshot_free(base);
	fab_snapshot_free(s);
}

/* A routed fat tree: the routing section with the hop histogram as
 * <meter> bars (nothing the CSP forbids), and a nav link; none without
 * tables. */
static void test_html_routing(void **state)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);

	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	char *html = rfix_slurp(out, NULL);
	assert_null(strstr(html, "id=\"routing\""));
	free(html);
	assert_int_equal(fabfix_route_minhop(s), 0);
	fatfab_finding(s, "routing.credit_loop", FAB_SEV_WARNING, LEAF(2, 0), 7, "leaf001/7", "a loop");
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	struct rfix_live l = rfix_html_live(out, NULL);
	assert_non_null(strstr(html, "<a href=\"#routing\">Routing</a>"));
	assert_non_null(strstr(html, "<section id=\"routing\">"));
	assert_non_null(strstr(html, "<b>132</b> routes between <b>12</b> channel adapter ports"));
	assert_non_null(strstr(html, "<tr><td class=\"num\">2</td><td class=\"num\">24</td><td><meter "
				     "min=\"0\" max=\"108\" value=\"24\"></meter></td></tr>"));
	assert_non_null(strstr(html, "<tr><td class=\"num\">4</td><td class=\"num\">108</td>"));
	assert_non_null(strstr(html, "routing.credit_loop 1"));
	assert_int_equal(l.style_attrs, 0);
	assert_int_equal(l.handlers, 0);
	assert_int_equal(l.scripts, 1);
	free(html);
	fab_snapshot_free(s);
}

static void test_html_verdicts(void **state)
{
	struct fab_snapshot *s = fatfab_build(1, 1, 1, true);
	char *html;

	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_non_null(strstr(html, "class=\"banner healthy\">\n<div class=\"verdict\">healthy</div>"));
	free(html);
	fatfab_finding(s, "x", FAB_SEV_WARNING, 0, 1, "s", "m");
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_non_null(strstr(html, "class=\"banner degraded\">\n<div class=\"verdict\">degraded</div>"));
	free(html);
	/* a partial scan says so and lists what it missed */
	s->status = FAB_SCAN_PARTIAL;
	fab_snapshot_add_error(s, s->nodes[0].guid, 3, "pma", "no answer");
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_non_null(strstr(html, "This scan is <b>partial</b>"));
	assert_non_null(strstr(html, "<section id=\"missed\">"));
	free(html);
	/* never checked: no verdict from the absence of findings */
	fab_snapshot_clear_findings(s);
	s->checked_at_ms = 0;
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_non_null(strstr(html, "class=\"banner unchecked\">\n<div class=\"verdict\">not checked</div>"));
	assert_non_null(strstr(html, "<code>fabsweep check --scan"));
	assert_non_null(strstr(html, "no rule has run on this scan"));
	assert_null(strstr(html, "healthy"));
	free(html);
	fab_snapshot_free(s);
}

static void test_html_large_fabric_aggregated(void **state)
{
	/* 4,096 hosts behind 128 leaves and 16 spines */
	struct fab_snapshot *s = fatfab_build(16, 128, 32, true);

	fatfab_finding(s, "host.down", FAB_SEV_ERROR, 16 + 128 + 40, 1, "node00041", "down");
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	char *html = rfix_slurp(out, NULL);
	char *svg = between(html, "<svg", "</svg>");

	/* switches are boxes; hosts are one group per leaf, never a box each */
	assert_int_equal(count_str(svg, "<rect class=\"n"), 16 + 128);
	assert_int_equal(count_str(svg, "<rect class=\"hg\""), 128);
	assert_int_equal(count_str(svg, "node00"), 1); /* only the flagged host is named (tooltip) */
	/* one line per spine-leaf pair and one per leaf to its hosts */
	assert_int_equal(count_str(svg, "<line "), 16 * 128 + 128);
	/* the flagged host's group shows an error segment */
	assert_int_equal(count_str(svg, "<rect class=\"b3\""), 1);
	assert_non_null(strstr(svg, ">hosts</text><text class=\"small\""));
	assert_non_null(strstr(svg, ">4096</text>"));
	free(svg);
	free(html);
	fab_snapshot_free(s);
}

/* No coordinate in the picture is negative or not a number. */
static void assert_sane_svg(const char *html)
{
	char *svg = between(html, "<svg", "</svg>");

	assert_null(strstr(svg, "=\"-"));
	assert_null(strstr(svg, "nan"));
	assert_null(strstr(svg, "inf\""));
	free(svg);
}

static void test_html_odd_fabrics(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	char *html;

	/* two hosts cabled back to back: no switch at all */
	uint32_t a = fatfab_node(s, FAB_NODE_CA, 0x10, "hostA", 1);
	uint32_t b = fatfab_node(s, FAB_NODE_CA, 0x20, "hostB", 1);
	fatfab_cable(s, a, 1, b, 1);
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_sane_svg(html);
	assert_int_equal(count_str(html, "<rect class=\"hg\""), 1); /* one group: hosts behind no leaf */
	assert_non_null(strstr(html, "hosts not cabled to a leaf"));
	free(html);
	fab_snapshot_free(s);

	/* one switch, no hosts; and one switch with hosts and roles unknown */
	s = fab_snapshot_new();
	fatfab_node(s, FAB_NODE_SWITCH, 0x30, "lonely", 8);
	fab_snapshot_index(s);
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_sane_svg(html);
	free(html);
	uint32_t h = fatfab_node(s, FAB_NODE_CA, 0x40, "h1", 1);
	fatfab_cable(s, 0, 1, h, 1);
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_sane_svg(html);
	assert_non_null(strstr(html, ">leaves</text>"));
	free(html);
	fab_snapshot_free(s);

	/* roles assigned, two isolated switches cabled to each other and an
	 * aggregation node: an "other switches" row below the hosts, the
	 * aggregation node drawn nowhere */
	s = fatfab_build(1, 2, 2, true);
	uint32_t x1 = fatfab_node(s, FAB_NODE_SWITCH, 0x0002c903009000b1ull, "island1", 4);
	uint32_t x2 = fatfab_node(s, FAB_NODE_SWITCH, 0x0002c903009000b2ull, "island2", 4);
	fatfab_cable(s, x1, 1, x2, 1);
	uint32_t an = fatfab_node(s, FAB_NODE_CA, 0x0002c903009000aaull, "leaf001 Aggregation Node", 1);
	struct fab_port *lp = fab_snapshot_port(s, 1, 2); /* leaf001/2 was host 2's */
	s->ports[lp->remote_idx].remote_idx = FAB_NONE;
	fatfab_cable(s, 1, 2, an, 1);
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_sane_svg(html);
	char *svg = between(html, "<svg", "</svg>");
	assert_non_null(strstr(svg, ">other switches</text>"));
	assert_int_equal(count_str(svg, "<rect class=\"n"), 1 + 2 + 2);
	assert_null(strstr(svg, "Aggregation Node"));
	assert_true(strstr(svg, ">hosts</text>") < strstr(svg, ">other switches</text>"));
	free(svg);
	assert_non_null(strstr(html, "<b>5</b> switches &middot; <b>4</b> hosts"));
	free(html);
	fab_snapshot_free(s);

	/* nothing at all */
	s = fab_snapshot_new();
	fab_snapshot_index(s);
	assert_int_equal(fab_report_html(s, NULL, NULL, out), 0);
	html = rfix_slurp(out, NULL);
	assert_non_null(strstr(html, "The snapshot holds no nodes."));
	free(html);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_html_locked_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_routing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_verdicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_large_fabric_aggregated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_odd_fabrics, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
