// SPDX-License-Identifier: MIT
/*
 * The physical layer in every output. On real module dumps read by
 * fabsweep's own readers (fixtures/modules: the QSFP28 without link, the
 * copper SFP, the 40G SR4 with three dark lanes), `physical --json`'s rows
 * in the order the model promises, with values worked out by hand from the
 * text `ethtool -m` printed for the SR4. Then hostile strings from a
 * module's EEPROM and a host's name, end to end through the store: the
 * HTML report holds no live markup, the XML report validates and gives the
 * sanitized text back exactly, the terminal text has no control byte, the
 * JSON and the Prometheus labels carry them escaped; and an Ethernet port's
 * bit error ratio from its NIC counters, by hand.
 */
#include "unit/reports/reportfix.h"

#include <jansson.h>
#include <math.h>

#include "fabsweep/module.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "reports/phys.h"
#include "unit/modfix.h"
#include "unit/reports/fatfab.h"

static char *render(const struct fab_snapshot *s, size_t top, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(fab_report_physical(s, NULL, NULL, top, json ? NULL : f, json ? f : NULL), 0);
	fclose(f);
	return buf;
}

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *doc = json_loads(text, 0, &e);

	if (!doc)
		fail_msg("not JSON: %s\n%s", e.text, text);
	return doc;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A value `ethtool -m` printed: "<key> : <mW> mW / ..." in dBm. */
static double text_dbm(const char *text, const char *key)
{
	return 10 * log10(mfix_value(text, key, 0));
}

static void test_real_modules(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(s);
	static uint8_t raw[1024];
	uint8_t img[640];

	(void)state;
	mfix_module(r, mfix_host(r, "nolink"), raw, mfix_dump("modules/qsfp28_mma1b00_640b.hex", raw, sizeof(raw)));
	mfix_module(r, mfix_host(r, "copper"), raw, mfix_dump("modules/sfp_netgear_agm734.hex", raw, sizeof(raw)));
	char *t = mfix_slurp("modules/qsfp_40gsr4_avago_dark_lanes.txt", NULL);
	assert_int_equal(mfix_sff8636_from_text(t, img), 0);
	mfix_module(r, mfix_host(r, "sr4"), img, sizeof(img));

	char *js = render(s, 10, true);
	json_t *doc = parse(js), *mg = json_object_get(doc, "margins");
	json_t *eth = json_object_get(json_object_get(doc, "counts"), "eth");
	/* three modules; the copper SFP has no diagnostics */
	assert_int_equal(num(eth, "modules"), 3);
	assert_int_equal(num(eth, "monitored"), 2);
	assert_int_equal(json_array_size(json_object_get(doc, "modules")), 3);
	/* the lanes without light first: the QSFP28's four, Rx then Tx (its own
	 * thresholds for both), then the SR4's three dark Rx lanes (its Tx
	 * thresholds are all zero: none) */
	assert_int_equal(json_array_size(mg), 12);
	for (size_t i = 0; i < 11; i++) {
		json_t *m = json_array_get(mg, i);
		assert_true(json_is_true(json_object_get(m, "no_light")));
		assert_true(json_is_null(json_object_get(m, "dbm")));
		assert_string_equal(str(m, "level"), "low alarm");
		assert_string_equal(str(json_object_get(m, "port"), "system"), i < 8 ? "nolink" : "sr4");
		assert_string_equal(str(m, "monitor"), i < 4 || i >= 8 ? "rx_power" : "tx_power");
		assert_int_equal(num(m, "lane"), i < 8 ? i % 4 + 1 : i - 8 + 2);
	}
	/* the SR4's lit lane, by hand from ethtool's text: nearer to the high
	 * warning (2.40 dBm) than to the low one (-9.50 dBm) */
	json_t *lit = json_array_get(mg, 11);
	double dbm = text_dbm(t, "Rcvr signal avg optical power(Channel 1)");
	double hi = text_dbm(t, "Laser rx power high warning threshold");
	double lo = text_dbm(t, "Laser rx power low warning threshold");
	assert_true(fabs(num(lit, "dbm") - dbm) < 0.001);
	assert_true(fabs(num(lit, "margin_db") - fmin(hi - dbm, dbm - lo)) < 0.01);
	assert_true(fabs(num(lit, "hi_warn_dbm") - hi) < 0.01);
	assert_string_equal(str(lit, "level"), "ok");
	assert_true(json_is_true(json_object_get(lit, "own_thresholds")));
	/* temperatures, hottest first: the SR4 at what ethtool printed */
	json_t *tp = json_object_get(doc, "temperatures");
	assert_int_equal(json_array_size(tp), 2);
	assert_string_equal(str(json_object_get(json_array_get(tp, 0), "port"), "system"), "sr4");
	assert_true(fabs(num(json_array_get(tp, 0), "celsius") - mfix_value(t, "Module temperature", 0)) < 0.01);
	assert_true(num(json_array_get(tp, 0), "celsius") > num(json_array_get(tp, 1), "celsius"));
	/* no bit error ratio without counters */
	assert_int_equal(json_array_size(json_object_get(doc, "ber")), 0);
	json_decref(doc);
	free(js);

	/* the text: the first rows of each list */
	char *txt = render(s, 2, false);
	assert_non_null(strstr(txt, "0 InfiniBand modules (0 with monitors, 0 refused); 3 RoCE host modules "
				    "(2 with monitors, 0 refused)\n"));
	assert_non_null(strstr(txt, "power margins, smallest first (2 of 12 lanes):\n"
				    "  nolink/eth0 lane 1 rx: no light, dark (low alarm; its own thresholds)\n"));
	assert_non_null(strstr(txt, "temperatures, hottest first (2 of 2 modules):\n  sr4/eth0: 42.2 C, ok"));
	assert_non_null(strstr(txt, "module inventory, most first (2 of 3 kinds):\n"
				    "  RoCE host QSFP+ AVAGO ?: 1 (1 with monitors, 0 refused)\n"));
	free(txt);
	free(t);
	fab_snapshot_free(s);
}

/* The real QSFP28 dump with hostile identity bytes (check code fixed). */
static void hostile_module(struct fab_roce *r, uint32_t port)
{
	static uint8_t raw[1024];
	size_t n = mfix_dump("modules/qsfp28_mma1b00_640b.hex", raw, sizeof(raw));
	static const char vendor[16] = "<script>\"'&\x1b[31m", serial[16] = "\xff\xfe</td><b>x\x07";
	unsigned sum = 0;

	memcpy(raw + 148, vendor, 16);
	memcpy(raw + 196, serial, 16);
	for (int i = 128; i < 191; i++)
		sum += raw[i];
	raw[191] = (uint8_t)sum;
	sum = 0;
	for (int i = 192; i < 223; i++)
		sum += raw[i];
	raw[223] = (uint8_t)sum;
	mfix_module(r, port, raw, n);
}

static void test_hostile(void **state)
{
	char db[512], html[512], xml[512];
	struct fab_snapshot *s = fab_snapshot_new(), *back = NULL;
	struct fab_roce *r = fab_snapshot_roce(s);
	struct fab_store *st;
	size_t len;

	(void)state;
	rfix_path(db, sizeof(db), "test_phys", ".db");
	rfix_path(html, sizeof(html), "test_phys", ".html");
	rfix_path(xml, sizeof(xml), "test_phys", ".xml");
	uint32_t p = mfix_host(r, "gpu01");
	r->systems[0].name = fab_roce_strdup_safe(r, "<b>gpu01</b>\x1b]0;x\x07");
	hostile_module(r, p);
	/* a pre-FEC bit error ratio: 50 corrected bits of 10^12, since the counters were cleared */
	mfix_stats(r, p, "mlx5_core", NULL, "NIC statistics:\n     rx_corrected_bits_phy: 50\n     rx_bits_phy: 1000000000000\n");
	const struct fab_module *m = &r->modules.mods[0];
	assert_string_equal(m->vendor, "<script>\"'&\\x1b[31m");
	assert_string_equal(m->serial, "\\xff\\xfe</td><b>x\\x07");

	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	assert_int_equal(fab_store_load_scan(st, s->scan_id, &back), 0);
	fab_store_close(st);

	/* terminal text and JSON of the stored scan */
	char *txt = render(back, 10, false);
	assert_true(rfix_clean_text(txt, strlen(txt)));
	assert_non_null(strstr(txt, "  <b>gpu01</b>\\x1b]0;x\\x07/eth0: 5.00e-11 before FEC\n"));
	assert_non_null(strstr(txt, "  RoCE host QSFP28 <script>\"'&\\x1b[31m MMA1B00-SS1: 1"));
	free(txt);
	char *js = render(back, 10, true);
	for (const char *c = js; *c; c++)
		assert_true((unsigned char)*c >= 0x20 || *c == '\n');
	json_t *doc = parse(js), *mod = json_array_get(json_object_get(doc, "modules"), 0);
	assert_string_equal(str(mod, "vendor"), "<script>\"'&\\x1b[31m");
	assert_string_equal(str(mod, "serial"), "\\xff\\xfe</td><b>x\\x07");
	assert_string_equal(str(json_object_get(mod, "port"), "system"), "<b>gpu01</b>\\x1b]0;x\\x07");
	json_t *ber = json_array_get(json_object_get(doc, "ber"), 0);
	assert_true(fabs(num(ber, "raw") - 50e-12) < 1e-20);
	json_decref(doc);
	free(js);

	/* Prometheus: the one escaping of label values */
	char *prom = NULL;
	FILE *f = open_memstream(&prom, &len);
	assert_int_equal(fab_export_prometheus(back, NULL, NULL, f), 0);
	fclose(f);
	assert_non_null(strstr(prom, "vendor=\"<script>\\\"'&\\\\x1b[31m\""));
	assert_non_null(strstr(prom, "serial=\"\\\\xff\\\\xfe</td><b>x\\\\x07\""));
	assert_non_null(strstr(prom, "fabsweep_eth_port_pre_fec_bit_error_ratio{system=\"<b>gpu01</b>\\\\x1b]0;x\\\\x07\","
				     "ifname=\"eth0\"} 5e-11\n"));
	assert_non_null(strstr(prom, "fabsweep_eth_port_nic_total{system=\"<b>gpu01</b>\\\\x1b]0;x\\\\x07\","
				     "ifname=\"eth0\",counter=\"fec_corrected_bits\"} 50\n"));
	assert_true(rfix_clean_text(prom, len));
	free(prom);

	/* the reports */
	struct fab_pipeline_report job = { .db = db, .html = html, .xml = xml };
	struct fab_pipeline_report_result res;
	fab_report_opts_init(&job.opts);
	job.no_trends = true;
	assert_int_equal(fab_pipeline_report(&job, &res), 0);
	char *page = rfix_slurp(html, &len);
	struct rfix_live l = rfix_html_live(html, NULL);
	assert_int_equal(l.scripts, 1);
	assert_int_equal(l.handlers, 0);
	assert_int_equal(l.fetchers, 0);
	assert_true(rfix_clean_text(page, len));
	assert_null(strstr(page, "<script>\""));
	assert_null(strstr(page, "<b>gpu01"));
	assert_non_null(strstr(page, "<section id=\"physical\">"));
	assert_non_null(strstr(page, "&lt;script&gt;&quot;&#39;&amp;\\x1b[31m"));
	assert_non_null(strstr(page, "\\xff\\xfe&lt;/td&gt;&lt;b&gt;x\\x07"));
	assert_non_null(strstr(page, "&lt;b&gt;gpu01&lt;/b&gt;\\x1b]0;x\\x07/eth0"));
	free(page);
	xmlDocPtr x = rfix_xml_valid(xml);
	assert_int_equal(rfix_count(x, "//r:physical/r:module[@vendor=concat('<script>\"', \"'\", '&\\x1b[31m')]"), 1);
	assert_int_equal(rfix_count(x, "//r:physical/r:module[@serial='\\xff\\xfe</td><b>x\\x07' and "
				      "@system='<b>gpu01</b>\\x1b]0;x\\x07' and @ifname='eth0']"), 1);
	assert_int_equal(rfix_count(x, "//r:physical/r:ber[@fabric='eth' and @raw='5e-11']"), 1);
	assert_int_equal(rfix_count(x, "//r:physical/r:margin[@no-light='true']"), 8);
	xmlFreeDoc(x);
	char *xt = rfix_slurp(xml, &len);
	assert_non_null(strstr(xt, "vendor=\"&lt;script&gt;&quot;'&amp;\\x1b[31m\""));
	assert_true(rfix_clean_text(xt, len));
	free(xt);

	unlink(html);
	unlink(xml);
	fabfix_unlink_db(db);
	fab_snapshot_free(back);
	fab_snapshot_free(s);
}

/* An InfiniBand fabric with bit error ratios (as PHY_DB16 gives them) and
 * a one-lane module in a four-lane cage: ranked worst first, the lanes its
 * media does not use left out of the margins, the XML valid, the
 * Prometheus families by hand. */
static void test_ib(void **state)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);
	uint32_t ports[3] = { FAB_NONE, FAB_NONE, FAB_NONE };
	size_t k = 0;

	(void)state;
	for (uint32_t i = 0; i < s->n_ports && k < 3; i++)
		if (s->ports[i].port_num > 0)
			ports[k++] = i;
	static const double ber[3][3] = { { 1e-9, 1e-15, NAN }, { 2.5e-5, 1e-12, 1e-14 }, { NAN, 3e-7, NAN } };
	for (int i = 0; i < 3; i++) {
		struct fab_port_ber *b = fab_array_grow((void **)&s->ber, &s->n_ber, &s->cap_ber, sizeof(*b));
		*b = (struct fab_port_ber){ ports[i], ber[i][0], ber[i][1], ber[i][2] };
	}
	struct fab_module *m = fab_modules_add(&s->ib_modules, ports[0], 4);
	assert_non_null(m);
	m->monitors = true;
	m->media_lanes = 1;
	m->vendor = "HUAWEI";
	struct fab_module_lane *l = fab_module_lanes(&s->ib_modules, m);
	l[0].rx_mw = 0.1;  /* -10 dBm: 2 dB above the default low warning (-12) */
	for (int i = 1; i < 4; i++)
		l[i].rx_mw = 0.0001; /* -40 dBm: unused lanes */

	/* a fourth port without PHY_DB16 figures whose SymbolErrorCounter grew by
	 * 500 in 10 s: the counters' symbol error rate, by hand over 4 lanes of
	 * HDR's 53.125 GBd */
	uint32_t q = FAB_NONE;
	for (uint32_t i = ports[2] + 1; i < s->n_ports && q == FAB_NONE; i++)
		if (fab_snapshot_sample(s, i, 0))
			q = i;
	assert_int_not_equal(q, FAB_NONE);
	assert_int_equal(s->ports[q].width_active, FAB_WIDTH_4X);
	assert_int_equal(s->ports[q].speed_active, FAB_SPEED_HDR);
	const struct fab_counter_sample *first = fab_snapshot_sample(s, q, 0);
	struct fab_counter_sample *c = fabfix_sample(s, q, 1, first->sampled_at_ms + 10000);
	c->v[FAB_CTR_SYMBOL_ERRORS] = 500;
	assert_int_equal(fab_snapshot_index(s), 0);
	const double by_hand = 500 / (4 * 53.125e9 * 10);

	char *js = render(s, 10, true);
	json_t *doc = parse(js), *b = json_object_get(doc, "ber"), *mg = json_object_get(doc, "margins");
	assert_int_equal(json_array_size(b), 4);
	json_t *est = json_array_get(b, 3);
	assert_string_equal(str(est, "source"), "counters");
	assert_true(fabs(num(est, "symbol") - by_hand) < by_hand * 1e-9);
	assert_true(json_is_null(json_object_get(est, "raw")));
	assert_string_equal(str(json_array_get(b, 0), "source"), "device");
	/* ranked by the ratio before FEC, else the effective one */
	assert_true(num(json_array_get(b, 0), "raw") == 2.5e-5);
	assert_true(json_is_null(json_object_get(json_array_get(b, 1), "raw")));
	assert_true(num(json_array_get(b, 1), "effective") == 3e-7);
	assert_true(num(json_array_get(b, 2), "raw") == 1e-9);
	assert_int_equal(json_array_size(mg), 1);
	assert_true(fabs(num(json_array_get(mg, 0), "margin_db") - 2.0) < 1e-9);
	assert_false(json_is_true(json_object_get(json_array_get(mg, 0), "own_thresholds")));
	json_decref(doc);
	free(js);

	char *prom = NULL, g[FAB_GUID_STRLEN], want[256];
	size_t len;
	FILE *f = open_memstream(&prom, &len);
	assert_int_equal(fab_export_prometheus(s, NULL, NULL, f), 0);
	fclose(f);
	fab_guid_format(s->nodes[s->ports[ports[1]].node_idx].guid, g);
	snprintf(want, sizeof(want), "fabsweep_port_bit_error_ratio{node_guid=\"%s\",port=\"%u\",kind=\"raw\"} 2.5e-05\n",
		 g, s->ports[ports[1]].port_num);
	assert_non_null(strstr(prom, want));
	fab_guid_format(s->nodes[s->ports[ports[0]].node_idx].guid, g);
	snprintf(want, sizeof(want), "fabsweep_module_lane_rx_power_watts{node_guid=\"%s\",port=\"%u\",lane=\"1\"} 0.0001\n",
		 g, s->ports[ports[0]].port_num);
	assert_non_null(strstr(prom, want));
	assert_null(strstr(prom, "fabsweep_eth_port_nic_total"));
	/* the counters' estimate is fabsweep_port_ber's, not this family's */
	fab_guid_format(s->nodes[s->ports[q].node_idx].guid, g);
	snprintf(want, sizeof(want), "fabsweep_port_bit_error_ratio{node_guid=\"%s\",port=\"%u\"", g, s->ports[q].port_num);
	assert_null(strstr(prom, want));
	free(prom);
	fab_snapshot_free(s);
}

/*
 * The margins and temperatures the model holds when a report shows only
 * the first rows (keep): the first keep rows of the whole sorted list, the
 * same values, chosen without sorting the rest; every row counted. Many
 * modules with equal values (the order then falls to module and lane),
 * dark lanes, unknown values; against the list built whole (qsort). And
 * the inventory of modules of three kinds in runs, counted by hand.
 */
static bool same_dbl(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static bool same_margin(const struct fab_phys_margin *a, const struct fab_phys_margin *b)
{
	return a->fabric == b->fabric && a->mon == b->mon && a->lane == b->lane && a->level == b->level &&
	       a->own == b->own && a->module == b->module && same_dbl(a->dbm, b->dbm) &&
	       same_dbl(a->margin, b->margin) && same_dbl(a->lo_warn, b->lo_warn) && same_dbl(a->hi_warn, b->hi_warn);
}

static bool same_temp(const struct fab_phys_temp *a, const struct fab_phys_temp *b)
{
	return a->fabric == b->fabric && a->level == b->level && a->own == b->own && a->module == b->module &&
	       same_dbl(a->celsius, b->celsius) && same_dbl(a->margin, b->margin) && same_dbl(a->hi_warn, b->hi_warn);
}

static void test_first_rows(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(s);
	struct fab_report_phys all, top;
	static const size_t keeps[] = { 0, 1, 2, 7, 50, 999, 5000 };
	uint32_t seed = 12345;
	const char *vendors[3];

	(void)state;
	vendors[0] = fab_roce_strdup(r, "A");
	vendors[1] = fab_roce_strdup(r, "B");
	vendors[2] = NULL;
	for (unsigned i = 0; i < 600; i++) {
		char name[32];
		snprintf(name, sizeof(name), "h%u", i);
		struct fab_module *m = fab_modules_add(&r->modules, mfix_host(r, name), 4);
		assert_non_null(m);
		m->monitors = true;
		m->vendor = vendors[(i / 3 + i / 7) % 3]; /* runs of one kind, and kinds again later */
		m->refused = i % 11 == 0;
		seed = seed * 1103515245u + 12345u;
		m->temperature_c = (seed >> 16) % 7 ? 30 + (double)((seed >> 8) % 40) : NAN;
		struct fab_module_lane *l = fab_module_lanes(&r->modules, m);
		for (unsigned k = 0; k < 4; k++) {
			seed = seed * 1103515245u + 12345u;
			unsigned v = (seed >> 16) % 10;
			l[k].rx_mw = v == 0 ? 0 : v == 1 ? NAN : 0.05 * (double)v;
			l[k].tx_mw = v == 2 ? 0 : 0.1 * (double)((seed >> 8) % 5 + 1);
		}
	}
	assert_int_equal(fab_report_phys_build(s, NULL, SIZE_MAX, &all), 0);
	assert_true(all.n_margins > 1500 && all.n_temps > 300);
	/* the inventory: one group a vendor, each module counted, by hand */
	assert_int_equal(all.n_groups, 3);
	for (size_t g = 0; g < all.n_groups; g++) {
		size_t n = 0, refused = 0;
		for (size_t i = 0; i < r->modules.n; i++)
			if (r->modules.mods[i].vendor == all.groups[g].vendor) {
				n++;
				refused += r->modules.mods[i].refused;
			}
		assert_int_equal(all.groups[g].n, n);
		assert_int_equal(all.groups[g].n_refused, refused);
		assert_int_equal(all.groups[g].n_monitored, n - refused);
	}
	for (size_t i = 0; i < sizeof(keeps) / sizeof(keeps[0]); i++) {
		assert_int_equal(fab_report_phys_build(s, NULL, keeps[i], &top), 0);
		assert_int_equal(top.n_margins, all.n_margins);
		assert_int_equal(top.n_temps, all.n_temps);
		size_t nm = fab_phys_held(&top, top.n_margins), nt = fab_phys_held(&top, top.n_temps);
		assert_int_equal(nm, keeps[i] < all.n_margins ? keeps[i] : all.n_margins);
		assert_int_equal(nt, keeps[i] < all.n_temps ? keeps[i] : all.n_temps);
		for (size_t k = 0; k < nm; k++)
			assert_true(same_margin(&top.margins[k], &all.margins[k]));
		for (size_t k = 0; k < nt; k++)
			assert_true(same_temp(&top.temps[k], &all.temps[k]));
		assert_int_equal(top.n_groups, all.n_groups);
		fab_report_phys_free(&top);
	}
	fab_report_phys_free(&all);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_modules),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_ib),
		cmocka_unit_test(test_first_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
