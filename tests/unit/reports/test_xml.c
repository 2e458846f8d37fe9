// SPDX-License-Identifier: MIT
/* The XML report: valid against docs/fabsweep-report.xsd, and complete. */
#include "unit/reports/reportfix.h"

#include <errno.h>
#include <sys/stat.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "unit/reports/fatfab.h"
#include "unit/snapfix.h"

static char out[512];

static int setup(void **state)
{
	rfix_path(out, sizeof(out), "test_xml", ".xml");
	unlink(out);
	return 0;
}

static int teardown(void **state)
{
	unlink(out);
	return 0;
}

/* leaves 2..5 of fatfab(2, 4, 3) */
#define LEAF(i) ((uint32_t)(2 + (i)))

static struct fab_snapshot *checked_fabric(void)
{
	struct fab_snapshot *s = fatfab_build(2, 4, 3, true);
	char g[FAB_GUID_STRLEN], pg[FAB_GUID_STRLEN];

	fab_guid_format(s->nodes[LEAF(1)].guid, g);
	fab_guid_format(s->nodes[0].guid, pg);
	struct fab_finding f = { .rule_id = "port.errors", .severity = FAB_SEV_ERROR, .node = g,
				 .port = "4", .peer_node = pg, .peer_port = "2",
				 .subject = "leaf002/4", .message = "SymbolErrorCounter 500 > 10",
				 .evidence = "SymbolErrorCounter=500; threshold=10" };
	fab_snapshot_add_finding(s, &f);
	fatfab_finding(s, "link.width", FAB_SEV_WARNING, LEAF(0), 1, "leaf001/1", "1X, could be 4X");
	fatfab_finding(s, "sm.single", FAB_SEV_INFO, 0, 0, "fabric", "one SM");
	uint32_t p = fab_snapshot_port(s, LEAF(1), 4) - s->ports;
	struct fab_counter_sample *c = (struct fab_counter_sample *)fab_snapshot_sample(s, p, 0);
	c->v[FAB_CTR_SYMBOL_ERRORS] = 500;
	c->valid &= ~(1u << FAB_CTR_VL15_DROPPED); /* a counter the port did not report */
	fab_snapshot_add_error(s, s->nodes[LEAF(3)].guid, 7, "pma", "PortCounters timed out");
	s->status = FAB_SCAN_PARTIAL;
	s->label = fab_snapshot_strdup(s, "nightly", SIZE_MAX);
	return s;
}

static void test_xml_complete_and_valid(void **state)
{
	struct fab_snapshot *s = checked_fabric();
	struct fab_report_opts o;

	fab_report_opts_init(&o);
	o.generated_at_ms = 1764558000000;
	o.generator = "fabsweep test";
	assert_int_equal(fab_report_xml(s, NULL, &o, out), 0);
	xmlDocPtr doc = rfix_xml_valid(out);
	char *v;

	/* metadata */
	assert_int_equal(rfix_count(doc, "/r:fabsweep-report[@format-version='1' and "
					 "@generator='fabsweep test' and @generated-at='2025-12-01T03:00:00.000Z']"), 1);
	assert_int_equal(rfix_count(doc, "/r:fabsweep-report/r:scan[@id='1' and @status='partial' and "
					 "@label='nightly' and @host='mgmt01' and @source='ib:mlx5_0/1' and "
					 "@started-at='2025-12-01T02:53:55.000Z' and @sm-act-end='4242']"), 1);
	assert_int_equal(rfix_count(doc, "//r:baseline | //r:changes | //r:routing"), 0); /* no tables */
	/* counts by severity and rule */
	assert_int_equal(rfix_count(doc, "//r:summary[@verdict='failing' and @nodes='18' and @switches='6' "
					 "and @hosts='12' and @links='20' and @findings='3' and @scan-errors='1']"), 1);
	assert_int_equal(rfix_count(doc, "//r:summary/r:severity"), 3);
	assert_int_equal(rfix_count(doc, "//r:summary/r:severity[@name='warning' and @count='1']"), 1);
	v = rfix_string(doc, "string(//r:summary/r:rule[1]/@id)");
	assert_string_equal(v, "port.errors"); /* the worst first */
	free(v);
	assert_int_equal(rfix_count(doc, "//r:summary/r:rule[@id='sm.single' and @total='1' and @info='1']"), 1);
	/* every finding, with every field */
	assert_int_equal(rfix_count(doc, "//r:findings[@count='3']/r:finding"), 3);
	assert_int_equal(rfix_count(doc, "//r:finding[@rule='port.errors' and @severity='error' and "
					 "@node='0x0002c90300200001' and @port='4' and @peer-node='0x0002c90300100000' "
					 "and @peer-port='2'][r:subject='leaf002/4' and "
					 "r:message='SymbolErrorCounter 500 > 10' and "
					 "r:evidence='SymbolErrorCounter=500; threshold=10']"), 1);
	assert_int_equal(rfix_count(doc, "//r:finding[@rule='sm.single' and not(@port)]"), 1);
	/* nodes, ports with state, width and speed */
	assert_int_equal(rfix_count(doc, "//r:nodes[@count='18']/r:node"), 18);
	assert_int_equal(rfix_count(doc, "//r:node[@type='switch']/r:port[@num='0']"), 6);
	assert_int_equal(rfix_count(doc, "//r:port[@state='active' and @num!='0']"), 40);
	assert_int_equal(rfix_count(doc, "//r:port[@width='4X' and @speed='HDR' and @rate-gbps='200']"), 40);
	assert_int_equal(rfix_count(doc, "//r:node[@role='host' and @leaf='0x0002c90300200000']"), 3);
	assert_int_equal(rfix_count(doc, "//r:node[@description='leaf002' and @worst-severity='error']"
					 "/r:port[@num='4' and @worst-severity='error' and @peer-port]"), 1);
	/* links, subnet managers, scan errors */
	assert_int_equal(rfix_count(doc, "//r:links[@count='20']/r:link"), 20);
	assert_int_equal(rfix_count(doc, "//r:link[@worst-severity='error']"), 1);
	assert_int_equal(rfix_count(doc, "//r:sm[@state='master' and @priority='14' and @act-count='4242' "
					 "and @node-description='node00001 HCA-1']"), 1);
	assert_int_equal(rfix_count(doc, "//r:scan-error[@what='pma' and @port='7' and .='PortCounters timed out']"), 1);
	/* counters: only of the ports the findings name (leaf002/4, its peer
	 * spine001/2, leaf001/1); not reported counters are left out */
	assert_int_equal(rfix_count(doc, "//r:counters[@scope='ports-with-findings']/r:port-counters"), 3);
	assert_int_equal(rfix_count(doc, "//r:port-counters[@port='4' and @SymbolErrorCounter='500' and "
					 "not(@VL15Dropped) and @PortXmitData]"), 1);
	xmlFreeDoc(doc);

	/* --all-counters: every sampled port */
	o.all_counters = true;
	assert_int_equal(fab_report_xml(s, NULL, &o, out), 0);
	doc = rfix_xml_valid(out);
	assert_int_equal(rfix_count(doc, "//r:counters[@scope='all']/r:port-counters"), (long)s->n_samples);
	xmlFreeDoc(doc);
	fab_snapshot_free(s);
}

static void test_xml_baseline(void **state)
{
	struct fab_snapshot *base = checked_fabric(), *s = checked_fabric();

	base->scan_id = 7;
	s->scan_id = 8;
	/* leaf004 port 3 went down since the baseline */
	struct fab_port *p = fab_snapshot_port(s, LEAF(3), 3);
	s->ports[p->remote_idx].remote_idx = FAB_NONE;
	s->ports[p->remote_idx].state = FAB_STATE_DOWN;
	p->remote_idx = FAB_NONE;
	p->state = FAB_STATE_DOWN;
	fab_snapshot_build_links(s);
	fatfab_finding(s, "port.down", FAB_SEV_ERROR, LEAF(3), 3, "leaf004/3", "port down");
	assert_int_equal(fab_report_xml(s, base, NULL, out), 0);
	xmlDocPtr doc = rfix_xml_valid(out);
	assert_int_equal(rfix_count(doc, "/r:fabsweep-report/r:baseline[@id='7']"), 1);
	assert_int_equal(rfix_count(doc, "//r:changes[@baseline='7' and @findings-new='1' and "
					 "@findings-resolved='0']"), 1);
	assert_int_equal(rfix_count(doc, "//r:changes/r:change[@kind='link-removed' and @width='4X' and "
					 "@speed='HDR']/r:subject[@guid='0x0002c90300200003' and @port='3']"), 1);
	assert_int_equal(rfix_count(doc, "//r:changes/r:change[@kind='port-state' and @was='active (linkup)' "
					 "and starts-with(@now, 'down')]"), 2);
	assert_int_equal(rfix_count(doc, "//r:changes/r:finding-new[@rule='port.down']"), 1);
	assert_int_equal(rfix_count(doc, "//r:changes/r:finding-resolved | //r:change[@kind='node-added']"), 0);
	xmlFreeDoc(doc);
	fab_snapshot_free(base);
	fab_snapshot_free(s);
}

/* A routed fat tree (min-hop): 12 hosts, 132 routes, 24 through one leaf
 * (2 links), 108 over a spine (4 links). Since the baseline, leaf001 drops
 * node00004's LID: its 3 hosts' routes to it break, one table changed. */
static void test_xml_routing(void **state)
{
	struct fab_snapshot *base = checked_fabric(), *s = checked_fabric();
	const struct fab_node *dst = &s->nodes[fab_snapshot_find_node(s, 0x0002c90300300006ull)];

	assert_int_equal(fabfix_route_minhop(base), 0);
	assert_int_equal(fabfix_route_minhop(s), 0);
	base->scan_id = 7;
	s->scan_id = 8;
	uint16_t lid = s->ports[dst->port_first + 1].lid;
	assert_string_equal(dst->desc, "node00004 HCA-1");
	assert_true(lid > 0);
	((uint8_t *)fab_routing_lft(s, LEAF(0))->port)[lid] = FAB_LFT_NO_PORT;
	fatfab_finding(s, "routing.unreachable", FAB_SEV_ERROR, LEAF(0), 0, "leaf001", "drops it");
	assert_int_equal(fab_report_xml(s, NULL, NULL, out), 0);
	xmlDocPtr doc = rfix_xml_valid(out);
	assert_int_equal(rfix_count(doc, "/r:fabsweep-report/r:routing[@ends='12' and @pairs='132' and "
					 "@broken='3' and @not-judged='0' and not(@tables-changed)]"), 1);
	assert_int_equal(rfix_count(doc, "//r:routing/r:hops"), 2);
	assert_int_equal(rfix_count(doc, "//r:routing/r:hops[@links='2' and @pairs='24']"), 1);
	assert_int_equal(rfix_count(doc, "//r:routing/r:hops[@links='4' and @pairs='105']"), 1);
	assert_int_equal(rfix_count(doc, "//r:routing/r:rule-findings[@rule='routing.unreachable' and "
					 "@count='1']"), 1);
	xmlFreeDoc(doc);
	/* with the baseline: the changed table, here and in the changes */
	assert_int_equal(fab_report_xml(s, base, NULL, out), 0);
	doc = rfix_xml_valid(out);
	assert_int_equal(rfix_count(doc, "//r:routing[@tables-changed='1']"), 1);
	assert_int_equal(rfix_count(doc, "//r:changes/r:change[@kind='routes']/r:subject[@guid='0x0002c90300200000']"), 1);
	xmlFreeDoc(doc);
	fab_snapshot_free(base);
	fab_snapshot_free(s);
}

static void test_xml_empty_snapshot(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();

	s->host = "h";
	fab_snapshot_index(s);
	assert_int_equal(fab_report_xml(s, NULL, NULL, out), 0);
	xmlDocPtr doc = rfix_xml_valid(out);
	assert_int_equal(rfix_count(doc, "//r:summary[@verdict='healthy' and @nodes='0']"), 1);
	xmlFreeDoc(doc);
	fab_snapshot_free(s);
}

static void test_xml_snapfix_roles_unknown(void **state)
{
	/* snapfix leaves roles unknown: the report infers tiers */
	struct fab_snapshot *s = snapfix_fat_tree(2, 3, 2);

	assert_int_equal(fab_report_xml(s, NULL, NULL, out), 0);
	xmlDocPtr doc = rfix_xml_valid(out);
	assert_int_equal(rfix_count(doc, "//r:node[@role='unknown' and @tier='leaf']"), 3);
	assert_int_equal(rfix_count(doc, "//r:node[@role='unknown' and @tier='spine']"), 2);
	assert_int_equal(rfix_count(doc, "//r:node[@tier='host']"), 6);
	xmlFreeDoc(doc);
	fab_snapshot_free(s);
}

static void test_xml_failure_keeps_old_file(void **state)
{
	struct fab_snapshot *s = checked_fabric();
	char bad[600];
	struct stat st;

	/* a target in a missing directory: error, message names it */
	snprintf(bad, sizeof(bad), "%s.d/none/report.xml", out);
	assert_int_equal(fab_report_xml(s, NULL, NULL, bad), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "none/report.xml"));
	/* both formats: a bad HTML path leaves the XML target untouched */
	FILE *f = fopen(out, "w");
	fputs("old", f);
	fclose(f);
	assert_int_equal(fab_report_write(s, NULL, NULL, out, bad), -ENOENT);
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_size, 3);
	assert_int_equal(fab_report_write(s, NULL, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(fab_report_write(s, NULL, NULL, out, out), -EINVAL);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_xml_complete_and_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xml_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xml_routing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xml_empty_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xml_snapfix_roles_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xml_failure_keeps_old_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
