// SPDX-License-Identifier: MIT
/*
 * Hostile strings from the fabric, end to end through the store and the
 * report pipeline (what `fabsweep report` runs): node descriptions with markup, quotes, control bytes,
 * terminal escapes, invalid UTF-8 and 64 bytes without a NUL, and findings
 * and labels that carry them. The HTML report must hold no live markup and
 * the XML report must stay valid and give the text back exactly.
 * (tests/integration/test_report_browser.sh loads such a page in Chromium.)
 */
#include "unit/reports/reportfix.h"

#include <errno.h>
#include <sys/stat.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "unit/reports/fatfab.h"

static char db[512], html[512], xml[512];

static int setup(void **state)
{
	rfix_path(db, sizeof(db), "test_hostile", ".db");
	rfix_path(html, sizeof(html), "test_hostile", ".html");
	rfix_path(xml, sizeof(xml), "test_hostile", ".xml");
	return 0;
}

static int teardown(void **state)
{
	unlink(html);
	unlink(xml);
	fabfix_unlink_db(db);
	return 0;
}

/* Raw NodeDescriptions as a switch or HCA could send them. */
static const char *const hostile[] = {
	"<script>alert(1)</script>",
	"\"><img src=x onerror=alert(2)>",
	"' onmouseover='alert(3)' x='",
	"\x1b]0;pwned\x07\x1b[2J\x1b[31mred",
	"bad \xff\xfe\xc3\x28 utf8 \xed\xa0\x80",
	"</style></script><!-- ]]> &amp; &lt;b&gt;",
	"rtl \xe2\x80\xae" "gnp.exe",
	"javascript:alert(6)",
};

static void set_raw(struct fab_node *n, const char *s)
{
	fab_node_set_desc(n, (const uint8_t *)s, strlen(s));
}

static struct fab_snapshot *hostile_fabric(const char *label)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);
	size_t nh = sizeof(hostile) / sizeof(hostile[0]);

	for (size_t i = 0; i < nh; i++)
		set_raw(&s->nodes[i], hostile[i]);
	/* 64 bytes and no NUL: the description ends where the buffer ends */
	uint8_t raw[80];
	memset(raw, 'A', sizeof(raw));
	memcpy(raw, "<svg onload=alert(7)>", 21);
	fab_node_set_desc(&s->nodes[nh], raw, FAB_DESC_RAW);
	s->label = fab_snapshot_strdup(s, label, SIZE_MAX);
	s->host = fab_snapshot_strdup(s, "<b>host</b>\x1b[0m", SIZE_MAX);
	for (size_t i = 0; i < nh; i++) {
		char g[FAB_GUID_STRLEN];
		fab_guid_format(s->nodes[i].guid, g);
		struct fab_finding f = {
			.rule_id = i ? "port.errors" : "x\"><script>alert(8)</script>",
			.severity = (uint8_t)(i % 3), .node = g, .port = "1",
			.peer_node = "<i>peer</i>", .peer_port = "\"2\"",
			.subject = hostile[i], .message = hostile[(i + 1) % nh],
			.evidence = "k=<b onclick=alert(9)>v</b>; \x01\x02",
		};
		fab_snapshot_add_finding(s, &f);
	}
	fab_snapshot_add_error(s, s->nodes[0].guid, 1, "pma", "%s", hostile[3]);
	return s;
}

/* fabsweep report --db DB --html HTML --xml XML [--scan SCAN] [--baseline BASELINE] */
static int run_report(const char *scan, const char *baseline)
{
	struct fab_pipeline_report job = { .db = db, .html = html, .xml = xml, .baseline = baseline };
	struct fab_pipeline_report_result r;

	fab_report_opts_init(&job.opts);
	if (scan)
		assert_int_equal(fab_pipeline_parse_scan(scan, &job.scan_id), 0);
	return fab_pipeline_report(&job, &r);
}

static void test_hostile_end_to_end(void **state)
{
	struct fab_snapshot *s1 = hostile_fabric("before <maint>"), *s2 = hostile_fabric("'after' & \"maint\"");
	struct fab_store *st;
	size_t len;

	/* the second scan lost one finding and gained a hostile one */
	s2->n_findings--;
	struct fab_finding f = { .rule_id = "new.<rule>", .severity = FAB_SEV_ERROR,
				 .subject = "<iframe src=//evil>", .message = "\xff<x>" };
	fab_snapshot_add_finding(s2, &f);
	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s1), 0);
	assert_int_equal(fab_store_write_scan(st, s2), 0);
	fab_store_close(st);

	assert_int_equal(run_report(NULL, "-1"), 0);

	/* HTML: no live markup at all; only our one script and style */
	char *page = rfix_slurp(html, &len);
	struct rfix_live l = rfix_html_live(html, NULL);
	assert_int_equal(l.scripts, 1);
	assert_int_equal(l.styles, 1);
	assert_int_equal(l.handlers, 0);
	assert_int_equal(l.fetchers, 0);
	assert_int_equal(l.js_urls, 0);
	assert_int_equal(l.style_attrs, 0);
	assert_int_equal(l.src_attrs, 0);
	assert_int_equal(l.csp_meta, 1);
	assert_true(rfix_clean_text(page, len));
	assert_null(strstr(page, "<script>alert"));
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "<svg onload"));
	assert_null(strstr(page, "<iframe"));
	assert_null(strstr(page, "<b onclick"));
	assert_null(strstr(page, "\x1b"));
	/* the text is there, escaped once */
	assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(page, "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"));
	assert_non_null(strstr(page, "&#39; onmouseover=&#39;alert(3)&#39; x=&#39;"));
	assert_non_null(strstr(page, "\\x1b]0;pwned\\x07\\x1b[2J"));
	assert_non_null(strstr(page, "&amp;amp; &amp;lt;b&amp;gt;"));
	assert_non_null(strstr(page, "data-rule=\"x&quot;&gt;&lt;script&gt;alert(8)&lt;/script&gt;\""));
	assert_non_null(strstr(page, "&lt;iframe src=//evil&gt;"));
	/* the 64-byte description ends after 64 bytes */
	assert_non_null(strstr(page, "&lt;svg onload=alert(7)&gt;AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA<"));
	free(page);

	/* XML: valid, and every string comes back exactly as sanitized */
	xmlDocPtr doc = rfix_xml_valid(xml);
	assert_int_equal(rfix_count(doc, "//r:node[@description='<script>alert(1)</script>']"), 1);
	assert_int_equal(rfix_count(doc, "//r:node[@description='\"><img src=x onerror=alert(2)>']"), 1);
	assert_int_equal(rfix_count(doc, "//r:node[@description=\"' onmouseover='alert(3)' x='\"]"), 1);
	assert_int_equal(rfix_count(doc, "//r:node[@description='\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred']"), 1);
	assert_int_equal(rfix_count(doc, "//r:node[@description='bad \\xff\\xfe\\xc3( utf8 \\xed\\xa0\\x80']"), 1);
	assert_int_equal(rfix_count(doc, "//r:node[@description='rtl \\xe2\\x80\\xaegnp.exe']"), 1);
	assert_int_equal(rfix_count(doc, "//r:node[string-length(@description)=64 and "
					 "starts-with(@description, '<svg onload=alert(7)>AAA')]"), 1);
	assert_int_equal(rfix_count(doc, "//r:finding[@rule='x\"><script>alert(8)</script>' and "
					 "@peer-node='<i>peer</i>' and @peer-port='\"2\"']"
					 "[r:subject='<script>alert(1)</script>' and "
					 "r:evidence='k=<b onclick=alert(9)>v</b>; \\x01\\x02']"), 1);
	assert_int_equal(rfix_count(doc, "//r:scan[starts-with(@label, \"'after' & \")]"), 1);
	assert_int_equal(rfix_count(doc, "//r:scan[@host='<b>host</b>\\x1b[0m']"), 1);
	assert_int_equal(rfix_count(doc, "//r:changes/r:finding-new[@rule='new.<rule>'][r:message='\\xff<x>']"), 1);
	assert_int_equal(rfix_count(doc, "//r:changes/r:finding-resolved"), 1);
	assert_int_equal(rfix_count(doc, "//r:scan-error[.='\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred']"), 1);
	xmlFreeDoc(doc);
	char *x = rfix_slurp(xml, &len);
	assert_true(rfix_clean_text(x, len));
	free(x);
	fab_snapshot_free(s1);
	fab_snapshot_free(s2);
}

/* Failures write nothing; a named baseline; --all-counters. (The command
 * line's usage errors: tests/unit/cli/test_report.c.) */
static void test_errors(void **state)
{
	struct fab_snapshot *s = fatfab_build(1, 1, 1, true);
	struct fab_pipeline_report job = { .db = db, .xml = xml };
	struct fab_pipeline_report_result r;
	struct fab_store *st;
	struct stat sb;

	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	fab_store_close(st);
	fab_snapshot_free(s);
	fab_report_opts_init(&job.opts);

	/* runtime failures write nothing */
	job.scan_id = 42;
	assert_int_equal(fab_pipeline_report(&job, &r), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "has no scan 42"));
	job.scan_id = 0;
	job.baseline = "-5";
	assert_int_equal(fab_pipeline_report(&job, &r), -ENOENT);
	char missing[600];
	snprintf(missing, sizeof(missing), "%s.missing", db);
	job.baseline = NULL;
	job.db = missing;
	assert_true(fab_pipeline_report(&job, &r) < 0);
	assert_int_equal(stat(xml, &sb), -1);
	assert_int_equal(stat(missing, &sb), -1); /* a reader never creates a database */
	/* a named baseline (fabsweep db baseline set 1 --name golden) */
	job.db = db;
	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_baseline_set(st, 1, "golden", NULL), 0);
	fab_store_close(st);
	job.baseline = "golden";
	assert_int_equal(fab_pipeline_report(&job, &r), 0);
	assert_int_equal(r.scan_id, 1);
	assert_int_equal(r.base_id, 1);
	xmlDocPtr bdoc = rfix_xml_valid(xml);
	assert_int_equal(rfix_count(bdoc, "//r:changes[@baseline='1']"), 1);
	xmlFreeDoc(bdoc);
	job.baseline = "silver";
	assert_int_equal(fab_pipeline_report(&job, &r), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "no baseline is named 'silver'"));
	/* and the good case, with --all-counters and the latest scan */
	job.baseline = NULL;
	job.opts.all_counters = true;
	assert_int_equal(fab_pipeline_report(&job, &r), 0);
	xmlDocPtr doc = rfix_xml_valid(xml);
	assert_int_equal(rfix_count(doc, "//r:counters[@scope='all']/r:port-counters"), 4);
	xmlFreeDoc(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hostile_end_to_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
