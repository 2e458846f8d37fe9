// SPDX-License-Identifier: MIT
/*
 * The RoCE rules on the in-memory base fabric (rulefix.h): the edge cases
 * the fixtures do not reach (stubs, lone interfaces, ties, self loops).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "unit/rules/rulefix.h"

#define NOW (RF_T0 + 3600 * 1000LL)

static void run(struct fab_snapshot *s)
{
	if (fab_rules_run(NULL, s, NULL, NOW, NULL))
		fail_msg("%s", fab_errmsg());
}

static size_t count(const struct fab_snapshot *s, const char *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_findings; i++)
		n += !strcmp(s->findings[i].rule_id, rule);
	return n;
}

/* The only finding, of rule, about node/port. */
static void only(const struct fab_snapshot *s, const char *rule, const char *node,
		 const char *port)
{
	for (size_t i = 0; i < s->n_findings; i++)
		fprintf(stderr, "  %s %s: %s\n", s->findings[i].rule_id, s->findings[i].subject,
			s->findings[i].message);
	assert_int_equal(s->n_findings, 1);
	assert_string_equal(s->findings[0].rule_id, rule);
	assert_string_equal(s->findings[0].node, node);
	assert_string_equal(s->findings[0].port, port);
}

static struct fab_eth_port *eth(struct fab_snapshot *s, const char *sys, const char *ifname)
{
	uint32_t i = fab_roce_find_eth_port(s->roce, fab_roce_find_system(s->roce, sys), ifname);

	assert_int_not_equal(i, FAB_NONE);
	return &s->roce->eth_ports[i];
}

static struct fab_rdma_device *dev(struct fab_snapshot *s, const char *sys)
{
	uint32_t y = fab_roce_find_system(s->roce, sys);

	for (size_t i = 0; i < s->roce->n_devices; i++)
		if (s->roce->devices[i].system_idx == y)
			return &s->roce->devices[i];
	fail_msg("no device on %s", sys);
	return NULL;
}

/* A stub switch port: judged by what its neighbour heard. No PFC TLV heard
 * while its other ports send one is PFC off; a stub that sends none anywhere
 * has unknown PFC. */
static void test_stub_pfc(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_roce *r = s->roce;
	uint32_t y = fab_roce_find_system(r, "leaf2");

	r->systems[y].collected = r->systems[y].lldp = false;
	for (size_t i = 0; i < r->n_eth_ports; i++)
		if (r->eth_ports[i].system_idx == y) {
			r->eth_ports[i].flags = FAB_ETH_F_STUB;
			r->eth_ports[i].mtu = 0;
			r->eth_ports[i].speed_mbps = -1;
		}
	run(s);
	assert_int_equal(s->n_findings, 0);
	/* host3 heard no PFC from leaf2's swp1; leaf2's other ports were heard with it */
	eth(s, "leaf2", "swp1")->adv.pfc.valid = false;
	run(s);
	only(s, "roce.pfc_disabled", "leaf2", "swp1");
	assert_string_equal(s->findings[0].peer_node, "host3");
	/* nothing heard from leaf2 carries PFC: unknown, not off */
	for (size_t i = 0; i < r->n_eth_ports; i++)
		if (r->eth_ports[i].system_idx == y)
			r->eth_ports[i].adv.pfc.valid = false;
	run(s);
	assert_int_equal(s->n_findings, 0);
	fab_snapshot_free(s);
}

/* An interface on no link: a RoCE one (an RDMA port on it) is held to the
 * jumbo MTU and the RoCE priority alone; a management NIC is not. */
static void test_lone_ports(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_roce *r = s->roce;
	struct fab_eth_port *p = eth(s, "host1", "eno1");

	/* the management NIC: DCB with PFC off, MTU 1500, no link */
	p->dcb_status = FAB_DCB_OK;
	p->dcb.pfc = (struct fab_pfc){ .valid = true, .cap = 8, .enabled = 0 };
	run(s);
	assert_int_equal(s->n_findings, 0);
	/* an RDMA port moves onto it: now a RoCE interface */
	for (size_t i = 0; i < r->n_rdma_ports; i++)
		if (r->rdma_ports[i].eth_port_idx == (uint32_t)(eth(s, "host1", "eth0") - r->eth_ports)) {
			eth(s, "host1", "eth0")->rdma_port_idx = FAB_NONE;
			r->rdma_ports[i].eth_port_idx = (uint32_t)(p - r->eth_ports);
			p->rdma_port_idx = (uint32_t)i;
		}
	run(s);
	assert_int_equal(count(s, "roce.pfc_disabled"), 1);
	assert_int_equal(count(s, "roce.mtu_mismatch"), 1);
	assert_int_equal(count(s, "roce.dscp_mapping"), 0); /* no table: unknown */
	for (size_t i = 0; i < s->n_findings; i++) {
		assert_string_equal(s->findings[i].subject, "host1/eno1");
		assert_null(s->findings[i].peer_node);
	}
	/* down: not judged */
	p->state = "down";
	run(s);
	assert_int_equal(s->n_findings, 0);
	fab_snapshot_free(s);
}

/* fw.mismatch: on a tie the newer firmware is the usual one, compared by
 * numbers (20.10 is newer than 20.9). */
static void test_fw_tie(void **state)
{
	struct fab_snapshot *s = rf_base(0);

	dev(s, "host1")->fw_ver = "20.9.1000";
	dev(s, "host2")->fw_ver = "20.9.1000";
	dev(s, "host3")->fw_ver = "20.10.1000";
	dev(s, "host4")->fw_ver = "20.10.1000";
	run(s);
	assert_int_equal(count(s, "fw.mismatch"), 2);
	assert_int_equal(s->n_findings, 2);
	assert_string_equal(s->findings[0].node, "host1");
	assert_string_equal(s->findings[1].node, "host2");
	assert_non_null(strstr(s->findings[0].message, "2 of the 4 MT4123"));
	/* a device without an HCA type is not compared */
	dev(s, "host1")->hca_type = NULL;
	dev(s, "host2")->hca_type = NULL;
	run(s);
	assert_int_equal(s->n_findings, 0);
	fab_snapshot_free(s);
}

/* eth.speed_mismatch: a tier split evenly expects the faster speed. */
static void test_speed_tie(void **state)
{
	struct fab_snapshot *s = rf_base(0);

	eth(s, "host1", "eth0")->speed_mbps = eth(s, "leaf1", "swp1")->speed_mbps = 25000;
	eth(s, "host2", "eth0")->speed_mbps = eth(s, "leaf1", "swp2")->speed_mbps = 25000;
	run(s);
	assert_int_equal(count(s, "eth.speed_mismatch"), 2);
	assert_int_equal(s->n_findings, 2);
	assert_non_null(strstr(s->findings[0].message, "most host-leaf links run 100 Gb/s"));
	fab_snapshot_free(s);
}

/* A link with both ends below the MTU, or whose ends differ and are both
 * hosts: one finding per link. */
static void test_mtu_cases(void **state)
{
	struct fab_snapshot *s = rf_base(0);

	eth(s, "host1", "eth0")->mtu = 1500;
	eth(s, "leaf1", "swp1")->mtu = 1500;
	run(s);
	only(s, "roce.mtu_mismatch", "host1", "eth0");
	/* a host larger than its switch: the switch drops its frames */
	eth(s, "host1", "eth0")->mtu = 9216;
	eth(s, "leaf1", "swp1")->mtu = 9000;
	run(s);
	only(s, "roce.mtu_mismatch", "leaf1", "swp1");
	assert_non_null(strstr(s->findings[0].message, "9000 here, 9216 at the other end"));
	fab_snapshot_free(s);
}

static struct fab_config *conf(const char *text)
{
	struct fab_config *cfg = NULL;

	if (fab_config_parse(text, strlen(text), "test.conf", &cfg))
		fail_msg("%s", fab_errmsg());
	return cfg;
}

static size_t with_text(const struct fab_snapshot *s, const char *rule, const char *text)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_findings; i++)
		n += !strcmp(s->findings[i].rule_id, rule) && strstr(s->findings[i].message, text);
	return n;
}

/* CNP DSCPs split two against two: no majority, every one is reported as
 * a disagreement; with [roce] cnp_dscp set, only those that differ. */
static void test_cnp_split(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_config *cfg = conf("[roce]\ncnp_dscp = 48\n");

	eth(s, "host1", "eth0")->ecn.cnp_dscp = 46;
	eth(s, "host2", "eth0")->ecn.cnp_dscp = 46;
	run(s);
	assert_int_equal(s->n_findings, 4);
	assert_int_equal(with_text(s, "roce.cnp_mismatch", "disagree and no DSCP is used by most: set [roce] cnp_dscp"), 4);
	if (fab_rules_run(cfg, s, NULL, NOW, NULL))
		fail_msg("%s", fab_errmsg());
	assert_int_equal(s->n_findings, 2);
	assert_int_equal(with_text(s, "roce.cnp_mismatch", "DSCP 46 (the configured CNP DSCP is 48)"), 2);
	/* a CNP DSCP equal to the RoCE DSCP is the RoCE priority by mapping */
	eth(s, "host1", "eth0")->ecn.cnp_dscp = 26;
	eth(s, "host2", "eth0")->ecn.cnp_dscp = 48;
	run(s);
	only(s, "roce.cnp_mismatch", "host1", "eth0");
	assert_non_null(strstr(s->findings[0].message, "DSCP 26 (the RoCE DSCP itself)"));
	fab_config_free(cfg);
	fab_snapshot_free(s);
}

/* ECN off where PFC is off too is roce.pfc_disabled's business; ECN off
 * on another priority is nothing. */
static void test_ecn_pfc_off(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_eth_port *p = eth(s, "host1", "eth0");

	p->dcb.pfc.enabled = 0x10;
	p->ecn.np_enabled = p->ecn.rp_enabled = 0x10;
	run(s);
	assert_int_equal(count(s, "roce.pfc_disabled"), 1);
	assert_int_equal(count(s, "roce.ecn_disabled"), 0);
	p->dcb.pfc.enabled = 0x18;
	run(s);
	assert_int_equal(count(s, "roce.ecn_disabled"), 1);
	fab_snapshot_free(s);
}

/* Trust split evenly: nobody is the odd one out. Without a known trust
 * anywhere the rule is skipped, and says why; so is ecn_disabled without
 * any ECN settings. */
static void test_trust_tie_and_skips(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_rules_result res;
	struct fab_roce *r = s->roce;

	eth(s, "host1", "eth0")->dcb.app_count = 0;
	eth(s, "host2", "eth0")->dcb.app_count = 0;
	run(s);
	assert_int_equal(s->n_findings, 2); /* roce.dscp_mapping: DSCP 26 not mapped */
	assert_int_equal(count(s, "roce.trust_mismatch"), 0);
	eth(s, "host3", "eth0")->dcb.app_count = 0;
	run(s);
	assert_int_equal(count(s, "roce.trust_mismatch"), 1);
	assert_non_null(strstr(s->findings[s->n_findings - 1].message,
			       "trusts DSCP while 3 of 4 RoCE NICs trust PCP"));
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		r->eth_ports[i].dcb_status = FAB_DCB_NOT_QUERIED;
		r->eth_ports[i].ecn.known = 0;
	}
	if (fab_rules_run(NULL, s, NULL, NOW, &res))
		fail_msg("%s", fab_errmsg());
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].id, "roce.trust_mismatch"))
			assert_non_null(strstr(res.why_skipped[i], "no NIC's trust state is known"));
		else if (!strcmp(t[i].id, "roce.ecn_disabled") || !strcmp(t[i].id, "roce.cnp_mismatch"))
			assert_non_null(strstr(res.why_skipped[i], "no interface exposes ECN settings"));
		else if (t[i].needs & (FAB_NEED_ROCE_ECN | FAB_NEED_ROCE_TRUST))
			fail_msg("%s: a new need, test its skip", t[i].id);
	}
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stub_pfc),
		cmocka_unit_test(test_lone_ports),
		cmocka_unit_test(test_fw_tie),
		cmocka_unit_test(test_speed_tie),
		cmocka_unit_test(test_mtu_cases),
		cmocka_unit_test(test_cnp_split),
		cmocka_unit_test(test_ecn_pfc_off),
		cmocka_unit_test(test_trust_tie_and_skips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
