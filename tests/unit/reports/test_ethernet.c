// SPDX-License-Identifier: MIT
/*
 * The Ethernet part of the reports: a merged RoCE snapshot (no InfiniBand
 * node) shows its systems, links and RDMA devices, marks the link a finding
 * names by system and interface, and leaves out the InfiniBand sections; the
 * XML validates against the schema.
 */
#include "unit/reports/reportfix.h"

#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"

static char xml[512], html[512];

static int setup(void **state)
{
	rfix_path(xml, sizeof(xml), "test_ethernet", ".xml");
	rfix_path(html, sizeof(html), "test_ethernet", ".html");
	return 0;
}

static int teardown(void **state)
{
	unlink(xml);
	unlink(html);
	return 0;
}

static uint32_t add_port(struct fab_roce *r, uint32_t sys, const char *ifname, uint32_t mtu,
			 int32_t mbps, uint8_t pfc)
{
	struct fab_eth_port *p = fab_roce_add_eth_port(r, sys);

	assert_non_null(p);
	p->ifname = fab_roce_strdup(r, ifname);
	p->mtu = mtu;
	p->speed_mbps = mbps;
	p->state = "up";
	p->flags = FAB_ETH_F_SYSFS | FAB_ETH_F_LLDP;
	p->adv.pfc = (struct fab_pfc){ .valid = true, .cap = 8, .enabled = pfc };
	return (uint32_t)(p - r->eth_ports);
}

/* leaf "sw<b>1" and host1, one link between them (host1 at MTU 1500, PFC on
 * priority 4), a second healthy host; host1's HCA at x8 of x16. */
static struct fab_snapshot *roce_fabric(void)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(s);
	const char *names[] = { "host1", "host2", "sw<b>1</b>" };
	const uint8_t roles[] = { FAB_ROLE_HOST, FAB_ROLE_HOST, FAB_ROLE_LEAF };

	assert_non_null(r);
	s->host = "h";
	s->source = "merge:3 files";
	for (unsigned i = 0; i < 3; i++) {
		struct fab_roce_system *sy = fab_roce_add_system(r);
		assert_non_null(sy);
		sy->name = fab_roce_strdup(r, names[i]);
		sy->role = roles[i];
		sy->collected = sy->lldp = true;
	}
	uint32_t h1 = add_port(r, 0, "eth0", 1500, 100000, 0x10);
	uint32_t h2 = add_port(r, 1, "eth0", 9000, 100000, 0x08);
	uint32_t s1 = add_port(r, 2, "swp1", 9000, 100000, 0x08);
	uint32_t s2 = add_port(r, 2, "swp2", 9000, 100000, 0x08);
	const uint32_t ends[2][2] = { { h1, s1 }, { h2, s2 } };
	for (unsigned i = 0; i < 2; i++) {
		struct fab_eth_link *l = fab_roce_add_link(r);
		assert_non_null(l);
		*l = (struct fab_eth_link){ ends[i][0], ends[i][1],
					    FAB_LINK_A_HEARD_B | (i ? FAB_LINK_B_HEARD_A : 0) };
	}
	struct fab_rdma_device *d = fab_roce_add_device(r, 0);
	assert_non_null(d);
	d->name = "mlx5_0";
	d->hca_type = "MT4129";
	d->fw_ver = "28.39.1002";
	d->pcie_width = 8;
	d->pcie_max_width = 16;
	d->pcie_speed_gts = d->pcie_max_speed_gts = 16.0;
	struct fab_rdma_port *rp = fab_roce_add_rdma_port(r, 0);
	assert_non_null(rp);
	rp->port_num = 1;
	rp->state = FAB_STATE_ACTIVE;
	rp->netdev = "eth0";
	assert_int_equal(fab_roce_add_counter(r, 0, FAB_RDMA_CTR_HW, "np_ecn_marked_roce_packets", 42), 0);
	/* host1's NIC: ECN on priority 3 for the notification point only, CNPs
	 * on DSCP 48 / priority 6, no DCB (trust unknown); host2's: no ecn
	 * directory, DCB with an empty application table (trust pcp) */
	rp->eth_port_idx = h1;
	r->eth_ports[h1].rdma_port_idx = 0;
	r->eth_ports[h1].ecn = (struct fab_ecn){ .known = FAB_ECN_NP | FAB_ECN_RP | FAB_ECN_CNP_DSCP |
								FAB_ECN_CNP_PRIO,
						 .np_enabled = 0x08, .cnp_dscp = 48, .cnp_prio = 6 };
	r->eth_ports[h2].dcb_status = FAB_DCB_OK;
	r->eth_ports[h2].dcb.app_valid = true;
	struct fab_finding f = { .rule_id = "roce.mtu_mismatch", .severity = FAB_SEV_WARNING,
				 .node = "host1", .port = "eth0", .peer_node = "sw<b>1</b>",
				 .peer_port = "swp1", .subject = "host1/eth0 <-> sw<b>1</b>/swp1",
				 .message = "MTU 1500 is below the expected 9000" };
	assert_int_equal(fab_snapshot_add_finding(s, &f), 0);
	assert_int_equal(fab_snapshot_index(s), 0);
	return s;
}

static void test_ethernet_xml(void **state)
{
	struct fab_snapshot *s = roce_fabric();

	assert_int_equal(fab_report_xml(s, NULL, NULL, xml), 0);
	xmlDocPtr doc = rfix_xml_valid(xml);
	assert_int_equal(rfix_count(doc, "//r:ethernet[@systems='3' and @ports='4' and @links='2'"
					 " and @rdma-devices='1']"), 1);
	assert_int_equal(rfix_count(doc, "//r:ethernet/r:system[@name='sw<b>1</b>' and @role='leaf'"
					 " and @collected='true']"), 1);
	/* the link the finding names carries its severity; the other none */
	assert_int_equal(rfix_count(doc, "//r:ethernet/r:link[@a-system='host1' and @a-mtu='1500'"
					 " and @b-mtu='9000' and @a-pfc-enabled='16' and @b-pfc-enabled='8'"
					 " and @a-heard-b='true' and not(@b-heard-a)"
					 " and @worst-severity='warning']"), 1);
	assert_int_equal(rfix_count(doc, "//r:ethernet/r:link[@a-system='host2' and not(@worst-severity)"
					 " and @b-heard-a='true']"), 1);
	assert_int_equal(rfix_count(doc, "//r:rdma-device[@system='host1' and @name='mlx5_0'"
					 " and @pcie-width='8' and @pcie-max-width='16' and @fw-ver='28.39.1002']"), 1);
	/* the RoCE NIC ports: what is unknown is left out */
	assert_int_equal(rfix_count(doc, "//r:roce-port"), 2);
	assert_int_equal(rfix_count(doc, "//r:roce-port[@system='host1' and @ifname='eth0'"
					 " and @rdma-device='mlx5_0' and @rdma-port='1' and not(@trust)"
					 " and @ecn-np-enabled='8' and @ecn-rp-enabled='0' and @cnp-dscp='48'"
					 " and @cnp-priority='6' and @worst-severity='warning']"), 1);
	assert_int_equal(rfix_count(doc, "//r:roce-port[@system='host2' and @trust='pcp'"
					 " and not(@ecn-np-enabled) and not(@cnp-dscp) and not(@rdma-device)"
					 " and not(@worst-severity)]"), 1);
	xmlFreeDoc(doc);
	fab_snapshot_free(s);
}

static void test_ethernet_html(void **state)
{
	struct fab_snapshot *s = roce_fabric();
	htmlDocPtr doc;

	assert_int_equal(fab_report_html(s, NULL, NULL, html), 0);
	char *page = rfix_slurp(html, NULL);
	struct rfix_live live = rfix_html_live(html, &doc);
	assert_int_equal(live.scripts, 1); /* the report's own; no markup from names */
	assert_non_null(strstr(page, "<section id=\"ethernet\">"));
	assert_non_null(strstr(page, "sw&lt;b&gt;1&lt;/b&gt;/swp1"));
	assert_non_null(strstr(page, "1500 / 9000"));
	assert_non_null(strstr(page, "<td>4 / 3</td>"));
	assert_non_null(strstr(page, "<b>x8 16 GT/s</b>"));
	assert_non_null(strstr(page, "<b>3</b> Ethernet systems"));
	assert_non_null(strstr(page, "<h3>RoCE congestion control</h3>"));
	assert_non_null(strstr(page, "<td>host1</td><td>eth0</td><td>mlx5_0/1</td><td>?</td><td>3</td>"
				     "<td>none</td><td class=\"num\">48</td><td class=\"num\">6</td>"));
	assert_non_null(strstr(page, "<td>host2</td><td>eth0</td><td></td><td>pcp</td><td>?</td>"
				     "<td>?</td><td class=\"num\">?</td><td class=\"num\">?</td>"));
	/* no InfiniBand node: no InfiniBand sections */
	assert_null(strstr(page, "id=\"topology\""));
	assert_null(strstr(page, "id=\"sm\""));
	assert_null(strstr(page, "id=\"switches\""));
	assert_null(strstr(page, "subnet managers &middot;"));
	xmlFreeDoc(doc);
	free(page);
	fab_snapshot_free(s);
}

/* A fleet's tables: 2,100 hosts, each one link to a stub port of leaf1
 * (its MTU unknown) and one RDMA device; the last host's link and device
 * named by findings. Each table shows 2,000 rows, says so, and puts the
 * rows with findings first; an unknown MTU shows as unknown. */
static void test_ethernet_html_cap(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(s);
	char name[32];

	s->host = "h";
	s->source = "merge:2100 files";
	struct fab_roce_system *leaf = fab_roce_add_system(r);
	leaf->name = "leaf1";
	leaf->role = FAB_ROLE_LEAF;
	for (unsigned i = 0; i < 2100; i++) {
		struct fab_roce_system *h = fab_roce_add_system(r);
		snprintf(name, sizeof(name), "host%05u", i);
		h->name = fab_roce_strdup(r, name);
		h->role = FAB_ROLE_HOST;
		h->collected = true;
		uint32_t hp = add_port(r, i + 1, "eth0", 9000, 100000, 0x08);
		snprintf(name, sizeof(name), "swp%u", i + 1);
		uint32_t lp = add_port(r, 0, name, 0, -1, 0x08);
		r->eth_ports[lp].flags = FAB_ETH_F_STUB;
		struct fab_eth_link *l = fab_roce_add_link(r);
		*l = (struct fab_eth_link){ hp, lp, FAB_LINK_A_HEARD_B };
		struct fab_rdma_device *d = fab_roce_add_device(r, i + 1);
		d->name = "mlx5_0";
		d->pcie_width = d->pcie_max_width = 16;
	}
	struct fab_finding f = { .rule_id = "roce.pfc_mismatch", .severity = FAB_SEV_ERROR,
				 .node = "host02099", .port = "eth0", .peer_node = "leaf1",
				 .peer_port = "swp2100", .subject = "host02099/eth0 <-> leaf1/swp2100",
				 .message = "PFC differs" };
	struct fab_finding g = { .rule_id = "pcie.degraded", .severity = FAB_SEV_WARNING,
				 .node = "host02098", .port = "mlx5_0", .subject = "host02098 mlx5_0",
				 .message = "x8 of x16" };
	assert_int_equal(fab_snapshot_add_finding(s, &f), 0);
	assert_int_equal(fab_snapshot_add_finding(s, &g), 0);
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_int_equal(fab_report_html(s, NULL, NULL, html), 0);
	char *page = rfix_slurp(html, NULL);
	char *links = strstr(page, "<h3>Links</h3>"), *devs = strstr(page, "<h3>RDMA devices</h3>");
	assert_non_null(links);
	assert_non_null(devs);
	assert_non_null(strstr(links, "<caption>2,000 of 2,100 links (those with findings first); all in"
				      " the XML report and the database</caption>"));
	/* the last host's link first, then the others in order */
	char *first = strstr(links, "<tbody>\n<tr><td>");
	assert_non_null(first);
	assert_int_equal(strncmp(first, "<tbody>\n<tr><td>host02099/eth0</td><td>leaf1/swp2100</td>", 57), 0);
	assert_non_null(strstr(first, "</tr>\n<tr><td>host00000/eth0</td>"));
	assert_non_null(strstr(links, "<td class=\"num\">9000 / ?</td>"));
	size_t rows = 0;
	for (char *p = links; p && p < devs; p = strstr(p + 1, "<tr><td>"))
		rows += p != links;
	assert_int_equal(rows, 2000);
	assert_null(strstr(links, "host01999/eth0</td>")); /* the one left out */
	assert_non_null(strstr(devs, "<caption>2,000 of 2,100 RDMA devices"));
	assert_non_null(strstr(devs, "<tbody>\n<tr><td>host02098</td><td>mlx5_0</td>"));
	free(page);
	fab_snapshot_free(s);
}

static void test_ethernet_prometheus(void **state)
{
	struct fab_snapshot *s = roce_fabric();
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(fab_export_prometheus(s, NULL, NULL, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "fabsweep_eth_systems{role=\"leaf\"} 1\n"));
	assert_non_null(strstr(text, "fabsweep_eth_links 2\n"));
	assert_non_null(strstr(text, "fabsweep_eth_port_mtu_bytes{system=\"host1\",ifname=\"eth0\"} 1500\n"));
	assert_non_null(strstr(text, "fabsweep_eth_port_pfc_bitmap{system=\"sw<b>1</b>\",ifname=\"swp1\"} 8\n"));
	assert_non_null(strstr(text, "fabsweep_eth_port_up{system=\"host2\",ifname=\"eth0\"} 1\n"));
	assert_non_null(strstr(text, "fabsweep_eth_port_ecn_np_bitmap{system=\"host1\",ifname=\"eth0\"} 8\n"));
	assert_non_null(strstr(text, "fabsweep_eth_port_ecn_rp_bitmap{system=\"host1\",ifname=\"eth0\"} 0\n"));
	assert_non_null(strstr(text, "fabsweep_eth_port_cnp_dscp{system=\"host1\",ifname=\"eth0\"} 48\n"));
	assert_non_null(strstr(text, "fabsweep_eth_port_cnp_priority{system=\"host1\",ifname=\"eth0\"} 6\n"));
	assert_non_null(strstr(text, "fabsweep_eth_port_trust_dscp{system=\"host2\",ifname=\"eth0\"} 0\n"));
	/* unknown is absent, not 0 */
	assert_null(strstr(text, "fabsweep_eth_port_ecn_np_bitmap{system=\"host2\""));
	assert_null(strstr(text, "fabsweep_eth_port_trust_dscp{system=\"host1\""));
	assert_non_null(strstr(text, "fabsweep_rdma_pcie_width_lanes{system=\"host1\",device=\"mlx5_0\"} 8\n"));
	assert_non_null(strstr(text, "fabsweep_rdma_device_info{system=\"host1\",device=\"mlx5_0\","
				     "type=\"MT4129\",fw_ver=\"28.39.1002\"} 1\n"));
	assert_non_null(strstr(text, "fabsweep_rdma_port_sysfs_total{system=\"host1\",device=\"mlx5_0\","
				     "port=\"1\",kind=\"hw\",counter=\"np_ecn_marked_roce_packets\"} 42\n"));
	free(text);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ethernet_xml, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ethernet_html, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ethernet_html_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ethernet_prometheus, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
