// SPDX-License-Identifier: MIT
/*
 * `ready --local`'s judgement (pipeline/ready_roce.c) on the RoCE part of
 * the rule fixtures' base fabric (tests/unit/rules/rulefix.h: 2 spines, 2
 * leaves, 4 hosts with mlx5_0 on eth0, DCB and ECN on priority 3): the
 * merge is that fabric, a host's view is what its own collect reads (its
 * system alone, its neighbours as stubs), changed where a case says. Each
 * branch of the host's own questions, the rules' findings about it and no
 * other, the majorities of the whole fabric from an extract's votes, what
 * could not be read and [ready] require, [ready] roce_ports, --fail-on.
 * The physical layer: NIC counters from a real ConnectX-4 Lx `ethtool -S`
 * (fixtures/ethtool) through the same reader as collect's, the values a
 * case says changed; modules from a real module's readings (modfix.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/probe.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/store.h"
#include "unit/modfix.h"
#include "unit/rules/rulefix.h"

#define LATER (RF_T0 + 3600 * 1000LL)

/* The merge: the base fabric's RoCE part as one scan. */
static struct fab_snapshot *merged(void)
{
	struct fab_snapshot *s = fab_snapshot_new();

	s->scan_id = 7;
	s->started_at_ms = RF_T0;
	s->finished_at_ms = RF_T0 + 5000;
	s->status = FAB_SCAN_COMPLETE;
	s->source = "merge:8 files";
	rf_roce(s, RF_T0, 0);
	return s;
}

/* What host's own collect reads an hour later: its system, alone. */
static struct fab_snapshot *live_of(const struct fab_snapshot *m, const char *host)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_roce_sysindex *ix = NULL;
	uint32_t h = fab_roce_find_system(m->roce, host);

	assert_int_not_equal(h, FAB_NONE);
	assert_non_null(fab_snapshot_roce(s));
	assert_int_equal(fab_roce_sysindex_build(m->roce, &ix), 0);
	assert_int_equal(fab_roce_copy_systems(s->roce, m->roce, ix, &h, 1, NULL), 0);
	fab_roce_sysindex_free(ix);
	s->roce->systems[0].collected_at_ms = LATER;
	s->started_at_ms = LATER;
	assert_int_equal(fab_roce_resolve(s->roce), 0);
	return s;
}

static struct fab_eth_port *eth0(struct fab_snapshot *s, const char *sys)
{
	uint32_t i = fab_roce_find_eth_port(s->roce, fab_roce_find_system(s->roce, sys), "eth0");

	assert_int_not_equal(i, FAB_NONE);
	return &s->roce->eth_ports[i];
}

static struct fab_rdma_port *rdma0(struct fab_snapshot *s)
{
	assert_true(s->roce->n_rdma_ports > 0);
	return &s->roce->rdma_ports[0];
}

static struct fab_config *conf(const char *text)
{
	struct fab_config *c = NULL;

	if (fab_config_parse(text, strlen(text), "t.conf", &c))
		fail_msg("%s", fab_errmsg());
	return c;
}

/* The judgement; ref and live are taken. */
static struct fab_pipeline_ready_local_result *judge_as(struct fab_snapshot *ref,
							 struct fab_snapshot *live, const char *cfg,
							 unsigned fail_on, const char *name)
{
	struct fab_config *c = cfg ? conf(cfg) : NULL;
	struct fab_pipeline_ready_local_result *res = NULL;
	struct fab_ready_roce_in in = { .ref = ref, .live = live, .cfg = c, .name = name,
					.fail_on = fail_on };

	if (fab_ready_roce_judge(&in, &res))
		fail_msg("%s", fab_errmsg());
	fab_config_free(c);
	return res;
}

static struct fab_pipeline_ready_local_result *judge(struct fab_snapshot *ref,
						     struct fab_snapshot *live, const char *cfg)
{
	return judge_as(ref, live, cfg, FAB_SEV_WARNING, NULL);
}

/* Its problems, one a line. */
static const char *said(const struct fab_pipeline_ready_local_result *res)
{
	static char buf[4096];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < res->r->n_problems; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? "\n" : "",
					res->r->problems[i].text);
	return buf;
}

static bool noted(const struct fab_pipeline_ready_local_result *res, const char *text)
{
	for (size_t i = 0; i < res->n_notes; i++)
		if (strstr(res->notes[i], text))
			return true;
	return false;
}

static void verdict(const struct fab_pipeline_ready_local_result *res, unsigned v, const char *want)
{
	if (strcmp(said(res), want))
		fail_msg("got:\n%s\nwant:\n%s", said(res), want);
	assert_int_equal(res->r->verdict[0], v);
	assert_int_equal(fab_ready_overall(res->r), v);
}

/* ---- the healthy host, and what the rules say of others ------------------------------- */

static void test_healthy(void **state)
{
	(void)state;
	struct fab_snapshot *m = merged();
	struct fab_pipeline_ready_local_result *res = judge(m, live_of(m, "host1"), NULL);

	verdict(res, FAB_READY_OK, "");
	assert_string_equal(res->name, "host1");
	/* DCB, ECN and LLDP all read; the fixture fabric has no NIC statistics */
	assert_int_equal(res->n_notes, 1);
	assert_string_equal(res->notes[0], "NIC counters of eth0 not read: not asked");
	assert_int_equal(res->n_ports, 1);
	assert_string_equal(res->ports[0].device, "mlx5_0");
	assert_true(res->ports[0].merged && res->ports[0].present);
	assert_int_equal(res->n_links, 1);
	assert_string_equal(res->links[0].want_port, "swp1");
	assert_string_equal(res->links[0].heard_system, "leaf1");
	assert_string_equal(res->links[0].heard_port, "swp1");
	fab_pipeline_ready_local_free(res);

	/* host3's PFC off in the merge is host3's, not host1's */
	m = merged();
	eth0(m, "host3")->dcb.pfc.enabled = 0;
	res = judge(m, live_of(m, "host1"), NULL);
	verdict(res, FAB_READY_OK, "");
	fab_pipeline_ready_local_free(res);
}

/* ---- the rules about it -------------------------------------------------------------- */

static void test_rules(void **state)
{
	(void)state;
	struct fab_snapshot *m = merged(), *l = live_of(m, "host2");
	struct fab_pipeline_ready_local_result *res;

	eth0(l, "host2")->dcb.pfc.enabled = 0x10; /* now on 4, not 3 */
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY,
		"roce.pfc_disabled host2/eth0 <-> leaf1/swp2: PFC is not enabled on the RoCE priority 3 (enabled: 4)\n"
		"roce.pfc_mismatch host2/eth0 <-> leaf1/swp2: the ends enable PFC on different priorities (4 and 3)");
	assert_int_equal(res->n_findings, 2);
	assert_true(res->findings[0].counts);
	fab_pipeline_ready_local_free(res);

	/* --fail-on error: the warnings are notes, the errors still count */
	m = merged();
	l = live_of(m, "host2");
	eth0(l, "host2")->ecn.np_enabled = 0;
	res = judge_as(m, l, NULL, FAB_SEV_ERROR, NULL);
	verdict(res, FAB_READY_OK, "");
	assert_true(noted(res, "warning roce.ecn_disabled host2/eth0 <-> leaf1/swp2: ECN is off on the RoCE priority 3"));
	assert_false(res->findings[0].counts);
	fab_pipeline_ready_local_free(res);

	/* its NIC's PCIe link trained at a lower speed than it can (sysfs
	 * current_link_speed below max_link_speed) */
	m = merged();
	l = live_of(m, "host2");
	l->roce->devices[0].pcie_speed_gts = 8.0;
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY,
		"pcie.degraded host2/mlx5_0: PCIe link runs x16 at 8 GT/s, below the device's x16 at 16 GT/s");
	fab_pipeline_ready_local_free(res);

	/* the switch port facing it is its business too */
	m = merged();
	l = live_of(m, "host4");
	uint32_t sw = fab_roce_find_eth_port(m->roce, fab_roce_find_system(m->roce, "leaf2"), "swp2");
	m->roce->eth_ports[sw].adv.pfc.enabled = 0;
	res = judge(m, l, NULL);
	assert_string_equal(said(res), "roce.pfc_disabled leaf2/swp2 <-> host4/eth0: PFC is not enabled on the RoCE priority 3 (enabled: none)\n"
				       "roce.pfc_mismatch host4/eth0 <-> leaf2/swp2: the ends enable PFC on different priorities (3 and none)");
	fab_pipeline_ready_local_free(res);
}

/* ---- the RDMA ports ------------------------------------------------------------------------ */

static void test_ports(void **state)
{
	(void)state;
	struct fab_snapshot *m = merged(), *l = live_of(m, "host1");
	struct fab_pipeline_ready_local_result *res;

	rdma0(l)->state = FAB_STATE_DOWN;
	rdma0(l)->phys_state = FAB_PHYS_DISABLED;
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY, "RDMA port mlx5_0/1 (eth0) is down/disabled, not active");
	assert_int_equal(res->ports[0].verdict, FAB_READY_NOT_READY);
	fab_pipeline_ready_local_free(res);

	m = merged();
	l = live_of(m, "host1");
	rdma0(l)->rate_gbps = 50;
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY, "RDMA port mlx5_0/1 (eth0) runs 50 Gb/s (100 Gb/s at the merge)");
	fab_pipeline_ready_local_free(res);

	/* gone: the device is not there now (named differently) */
	m = merged();
	l = live_of(m, "host1");
	l->roce->devices[0].name = "mlx5_9";
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY, "RDMA port mlx5_0/1 (eth0) is missing (the merge had it)");
	assert_int_equal(res->n_ports, 2); /* mlx5_9/1 is present, not expected */
	fab_pipeline_ready_local_free(res);

	/* [ready] roce_ports: by name, by count */
	m = merged();
	res = judge(m, live_of(m, "host1"), "[ready]\nroce_ports = mlx5_0/1, mlx5_1/1\n");
	verdict(res, FAB_READY_NOT_READY, "RDMA port mlx5_1/1 is missing ([ready] roce_ports names it)");
	fab_pipeline_ready_local_free(res);
	m = merged();
	res = judge(m, live_of(m, "host1"), "[ready]\nroce_ports = 2\n");
	verdict(res, FAB_READY_NOT_READY, "1 of its 1 RoCE ports are active; [ready] roce_ports expects 2");
	fab_pipeline_ready_local_free(res);
	m = merged();
	res = judge(m, live_of(m, "host1"), "[ready]\nroce_ports = 1\n");
	verdict(res, FAB_READY_OK, "");
	fab_pipeline_ready_local_free(res);
}

/* ---- the cabling ------------------------------------------------------------------------------ */

static void test_cabling(void **state)
{
	(void)state;
	struct fab_snapshot *m = merged(), *l = live_of(m, "host1");
	struct fab_pipeline_ready_local_result *res;

	/* it hears leaf1's swp2 now, where host2 was */
	l->roce->neighbors[0].port_id = "swp2";
	l->roce->neighbors[0].port_descr = "swp2";
	assert_int_equal(fab_roce_resolve(l->roce), 0);
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY, "eth0 is cabled to leaf1/swp2, not to leaf1/swp1 as at the merge");
	assert_string_equal(res->links[0].heard_port, "swp2");
	fab_pipeline_ready_local_free(res);

	/* it hears nobody, up: lldp.no_neighbor says it, once */
	m = merged();
	l = live_of(m, "host1");
	l->roce->n_neighbors = 0;
	assert_int_equal(fab_roce_resolve(l->roce), 0);
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY,
		"lldp.no_neighbor host1/eth0: up and running LLDP, but hears no neighbour");
	fab_pipeline_ready_local_free(res);

	/* down and deaf: the rule says nothing of a down port; readiness does */
	m = merged();
	l = live_of(m, "host1");
	l->roce->n_neighbors = 0;
	eth0(l, "host1")->state = "down";
	assert_int_equal(fab_roce_resolve(l->roce), 0);
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY, "eth0 hears no LLDP neighbour (leaf1/swp1 at the merge); it is down");
	fab_pipeline_ready_local_free(res);

	/* no lldpd: said, not checked, not a failure unless required */
	for (int req = 0; req < 2; req++) {
		m = merged();
		l = live_of(m, "host1");
		l->roce->systems[0].lldp = false;
		l->roce->n_neighbors = 0;
		eth0(l, "host1")->flags &= (uint8_t)~FAB_ETH_F_LLDP;
		assert_int_equal(fab_roce_resolve(l->roce), 0);
		res = judge(m, l, req ? "[ready]\nrequire = lldp\n" : NULL);
		if (req)
			verdict(res, FAB_READY_NOT_READY, "lldpd did not answer here, and [ready] require has lldp");
		else
			verdict(res, FAB_READY_OK, "");
		assert_true(noted(res, "the cabling is not checked: lldpd did not answer here"));
		assert_false(res->links[0].lldp);
		fab_pipeline_ready_local_free(res);
	}
}

/* ---- the counters since the merge ---------------------------------------------------------- */

/* Makes host's first RDMA counter its link_downed file, at value v. */
static void link_downed(struct fab_snapshot *s, const char *host, uint64_t v)
{
	uint32_t h = fab_roce_find_system(s->roce, host);

	for (size_t d = 0; d < s->roce->n_devices; d++) {
		const struct fab_rdma_device *x = &s->roce->devices[d];
		if (x->system_idx != h)
			continue;
		struct fab_rdma_counter *c = &s->roce->counters[s->roce->rdma_ports[x->port_first].ctr_first];
		c->name = fab_roce_counter_name(s->roce, FAB_RDMA_CTR_PORT, "link_downed");
		c->value = v;
		return;
	}
	fail_msg("no device on %s", host);
}

static void test_counters(void **state)
{
	(void)state;
	struct fab_snapshot *m = merged(), *l = live_of(m, "host1");
	struct fab_pipeline_ready_local_result *res;

	assert_int_equal(fab_counter_sysfs_parse("link_downed"), FAB_CTR_LINK_DOWNED);
	assert_int_equal(fab_counter_sysfs_parse("port_rcv_errors"), FAB_CTR_RCV_ERRORS);
	assert_int_equal(fab_counter_sysfs_parse("np_cnp_sent"), -1);
	assert_string_equal(fab_counter_sysfs_name(FAB_CTR_VL15_DROPPED), "VL15_dropped");
	link_downed(m, "host1", 4);
	link_downed(l, "host1", 7);
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY,
		"RDMA port mlx5_0/1 (eth0) error counters rose since the merge: LinkDownedCounter +3 (4 -> 7)");
	fab_pipeline_ready_local_free(res);

	/* the configured increase: [port.link_flapping] LinkDownedCounter */
	m = merged();
	l = live_of(m, "host1");
	link_downed(m, "host1", 4);
	link_downed(l, "host1", 7);
	res = judge(m, l, "[port.link_flapping]\nLinkDownedCounter = 3\n");
	verdict(res, FAB_READY_OK, "");
	fab_pipeline_ready_local_free(res);

	/* cleared in between (a reboot): what it counted since, at least */
	m = merged();
	l = live_of(m, "host1");
	link_downed(m, "host1", 40);
	link_downed(l, "host1", 2);
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY,
		"RDMA port mlx5_0/1 (eth0) error counters rose since the merge: LinkDownedCounter +2 or more (40 -> 2, cleared in between)");
	fab_pipeline_ready_local_free(res);
}

/* ---- the physical layer: NIC counters and modules since the merge ------------------------ */

/* The eth port ifname of host in s (its index). */
static uint32_t port_of(struct fab_snapshot *s, const char *host, const char *ifname)
{
	uint32_t i = fab_roce_find_eth_port(s->roce, fab_roce_find_system(s->roce, host), ifname);

	assert_int_not_equal(i, FAB_NONE);
	return i;
}

/* host's ifname as read at at_ms: the real ConnectX-4 Lx `ethtool -S`
 * (every pause, discard and link counter 0), the statistics named in the
 * NULL-terminated (name, unsigned long long value) pairs changed or added,
 * recorded by collect's reader (the mlx5_core lines of the mapping table). */
static void nic_at(struct fab_snapshot *s, const char *host, const char *ifname, int64_t at_ms, ...)
{
	static struct fab_ethtool_stat st[1024];
	size_t len = 0, n;
	char *t = mfix_slurp("ethtool/mlx5_connectx4lx.stats", &len);
	uint32_t pi = port_of(s, host, ifname);
	va_list ap;

	assert_non_null(t);
	n = fab_ethtool_parse_stats(t, len, st, 1000);
	assert_int_equal(n, 751);
	va_start(ap, at_ms);
	for (const char *name; (name = va_arg(ap, const char *));) {
		unsigned long long v = va_arg(ap, unsigned long long);
		size_t k = 0;
		while (k < n && strcmp(st[k].name, name))
			k++;
		if (k == n)
			snprintf(st[n++].name, sizeof(st[0].name), "%s", name);
		st[k].value = v;
	}
	va_end(ap);
	s->roce->eth_ports[pi].stats_status = FAB_ETHTOOL_OK;
	assert_int_equal(fab_ethtool_record(s->roce, pi, "mlx5_core", st, n, 0, at_ms), 0);
	free(t);
}
#define NIC_MERGE(s, ...) nic_at(s, "host1", "eth0", RF_T0, __VA_ARGS__, NULL)
#define NIC_NOW(s, ...) nic_at(s, "host1", "eth0", LATER, __VA_ARGS__, NULL)

static void test_nic_counters(void **state)
{
	(void)state;
	struct fab_snapshot *m = merged(), *l = live_of(m, "host1");
	struct fab_pipeline_ready_local_result *res;

	/* the same readings an hour later: nothing said at all */
	NIC_MERGE(m, "tx_pause_storm_warning_events", 0ULL);
	NIC_NOW(l, "tx_pause_storm_warning_events", 0ULL);
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_OK, "");
	assert_int_equal(res->n_notes, 0);
	fab_pipeline_ready_local_free(res);

	/* since the merge: three stall-prevention events, 5,000 frames dropped
	 * of 1,000,000 received, the link down twice (the rules' default
	 * limits: none, 1e-6 of the frames, [port.link_flapping] 0) */
	m = merged();
	l = live_of(m, "host1");
	NIC_MERGE(m, "tx_pause_storm_warning_events", 0ULL);
	NIC_NOW(l, "tx_pause_storm_warning_events", 3ULL, "rx_discards_phy", 5000ULL, "rx_packets_phy",
		845715962ULL + 1000000, "link_down_events_phy", 2ULL);
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY,
		"roce.pause_storm host1/eth0 <-> leaf1/swp1: pause storm: 3 stall-prevention events (errors, where it stopped honouring pauses: 0; warnings: 3) in the 3600 s since the baseline\n"
		"eth.discards host1/eth0 <-> leaf1/swp1: 5000 frames dropped at the port for lack of buffer (0.005 of 1000000) in the 3600 s since the baseline\n"
		"eth0 link went down since the merge: link_down_events +2 (0 -> 2)");
	assert_int_equal(res->n_findings, 2);
	fab_pipeline_ready_local_free(res);

	/* ... within the configured limits: ready */
	m = merged();
	l = live_of(m, "host1");
	NIC_MERGE(m, "tx_pause_storm_warning_events", 0ULL);
	NIC_NOW(l, "tx_pause_storm_warning_events", 3ULL, "rx_discards_phy", 5000ULL, "link_down_events_phy", 2ULL);
	res = judge(m, l, "[roce.pause_storm]\nmax_storm_events = 3\n[eth.discards]\nmin_discards = 5000\n"
			  "[port.link_flapping]\nLinkDownedCounter = 2\n");
	verdict(res, FAB_READY_OK, "");
	fab_pipeline_ready_local_free(res);

	/* cleared in between (the driver reloaded): what it counted since, at least */
	m = merged();
	l = live_of(m, "host1");
	NIC_MERGE(m, "link_down_events_phy", 40ULL);
	NIC_NOW(l, "link_down_events_phy", 2ULL);
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY,
		"eth0 link went down since the merge: link_down_events +2 or more (40 -> 2, cleared in between)");
	fab_pipeline_ready_local_free(res);

	/* the merge has none of them: not judged (since the driver's load, the
	 * storm would count), said; a failure when [ready] require has ethtool */
	for (int req = 0; req < 2; req++) {
		m = merged();
		l = live_of(m, "host1");
		NIC_NOW(l, "tx_pause_storm_warning_events", 9ULL, "link_down_events_phy", 5ULL);
		res = judge(m, l, req ? "[ready]\nrequire = ethtool\n" : NULL);
		if (req)
			verdict(res, FAB_READY_NOT_READY,
				"NIC counters of eth0 not compared (the merge has no NIC counters of it), and [ready] require has ethtool");
		else
			verdict(res, FAB_READY_OK, "");
		assert_true(noted(res, "NIC counters of eth0 not compared: the merge has no NIC counters of it") == !req);
		fab_pipeline_ready_local_free(res);
	}

	/* not read now: why, per interface */
	static const struct {
		uint8_t status;
		bool counters;
		const char *why;
	} unread[] = {
		{ FAB_ETHTOOL_UNSUPPORTED, false, "its driver has no statistics" },
		{ FAB_ETHTOOL_ERROR, false, "the query failed" },
		{ FAB_ETHTOOL_NOT_QUERIED, false, "not asked" },
		{ FAB_ETHTOOL_OK, false, "none of its statistics is a counter fabsweep knows" },
	};
	for (size_t k = 0; k < sizeof(unread) / sizeof(unread[0]); k++) {
		char want[200];
		m = merged();
		l = live_of(m, "host1");
		NIC_MERGE(m, "link_down_events_phy", 0ULL);
		eth0(l, "host1")->stats_status = unread[k].status;
		res = judge(m, l, NULL);
		verdict(res, FAB_READY_OK, "");
		snprintf(want, sizeof(want), "NIC counters of eth0 not read: %s", unread[k].why);
		if (!noted(res, want))
			fail_msg("no note '%s'", want);
		fab_pipeline_ready_local_free(res);
	}

	/* what is not its RoCE interface's is not its readiness: the
	 * management port's storm (no RDMA port on eno1), the switch's in the
	 * merge's two samples (check's, not since) */
	m = merged();
	l = live_of(m, "host1");
	nic_at(m, "host1", "eno1", RF_T0, "tx_pause_storm_error_events", 0ULL, NULL);
	nic_at(l, "host1", "eno1", LATER, "tx_pause_storm_error_events", 7ULL, NULL);
	uint32_t sw = port_of(m, "leaf1", "swp1");
	for (unsigned smp = 0; smp < 2; smp++)
		fab_roce_add_nic_counter(m->roce, sw, FAB_NIC_PAUSE_STORM_ERROR, -1, smp, 4 * smp, RF_T0 + smp * 1000,
					 "mlx5_core:test");
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_OK, "");
	bool storm = false;
	for (size_t i = 0; i < res->judged->n_findings; i++)
		storm |= !strcmp(res->judged->findings[i].rule_id, "roce.pause_storm") &&
			 !strcmp(res->judged->findings[i].node, "leaf1");
	assert_true(storm); /* the rule said it, about the switch */
	assert_int_equal(res->n_findings, 0);
	fab_pipeline_ready_local_free(res);
}

/* A real module's readings (the 40GBASE-SR4 with three dark lanes, `ethtool
 * -m` as posted) on host's eth0 of s. */
static void dark_module(struct fab_snapshot *s, const char *host)
{
	uint8_t img[640];
	char *t = mfix_slurp("modules/qsfp_40gsr4_avago_dark_lanes.txt", NULL);

	assert_non_null(t);
	assert_int_equal(mfix_sff8636_from_text(t, img), 0);
	free(t);
	mfix_module(s->roce, port_of(s, host, "eth0"), img, sizeof(img));
}

static void test_modules(void **state)
{
	(void)state;
	struct fab_snapshot *m = merged(), *l = live_of(m, "host1");
	struct fab_pipeline_ready_local_result *res;
	const char *dark = "module.dark_lane host1/eth0 <-> leaf1/swp1: lanes 2-4 receive no light while lane 1 does; "
			   "lanes 2-4 transmit nothing (laser off) while the others do (the module raised no alarm for it) "
			   "(the module as read at the merge)";

	/* not read now (the default): the merge's reading is judged, and said to be */
	NIC_MERGE(m, "link_down_events_phy", 0ULL);
	NIC_NOW(l, "link_down_events_phy", 0ULL);
	dark_module(m, "host1");
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_NOT_READY, dark);
	fab_pipeline_ready_local_free(res);

	/* read now (--modules): what it reads now */
	m = merged();
	l = live_of(m, "host1");
	dark_module(m, "host1");
	eth0(l, "host1")->module_status = FAB_ETHTOOL_NONE; /* pulled since */
	res = judge(m, l, NULL);
	assert_string_equal(said(res), "");
	fab_pipeline_ready_local_free(res);
	m = merged();
	l = live_of(m, "host1");
	dark_module(l, "host1");
	eth0(l, "host1")->module_status = FAB_ETHTOOL_OK;
	res = judge(m, l, NULL);
	assert_string_equal(said(res), "module.dark_lane host1/eth0 <-> leaf1/swp1: lanes 2-4 receive no light while lane 1 does; "
				       "lanes 2-4 transmit nothing (laser off) while the others do (the module raised no alarm for it)");
	fab_pipeline_ready_local_free(res);
}

/* ---- what could not be read, and not checked ------------------------------------------------ */

static void test_unread(void **state)
{
	(void)state;
	struct fab_snapshot *m = merged(), *l = live_of(m, "host1");
	struct fab_pipeline_ready_local_result *res;

	eth0(l, "host1")->dcb_status = FAB_DCB_UNSUPPORTED;
	eth0(l, "host1")->ecn.known = 0;
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_OK, "");
	assert_true(noted(res, "DCB of eth0 not read: its driver has no DCB; PFC is what lldpd advertises, the trust state unknown"));
	assert_true(noted(res, "ECN of eth0 not read: its driver has no sysfs ecn directory"));
	fab_pipeline_ready_local_free(res);

	m = merged();
	l = live_of(m, "host1");
	eth0(l, "host1")->dcb_status = FAB_DCB_NOT_QUERIED;
	eth0(l, "host1")->ecn.known = 0;
	res = judge(m, l, "[ready]\nrequire = dcb, ecn\n");
	verdict(res, FAB_READY_NOT_READY,
		"DCB of eth0 not read (not asked), and [ready] require has dcb\n"
		"ECN of eth0 not read (its driver has no sysfs ecn directory), and [ready] require has ecn");
	fab_pipeline_ready_local_free(res);

	/* not in the merge: could not check; under another name with --system */
	m = merged();
	l = live_of(m, "host1");
	l->roce->systems[0].name = "node-a";
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_UNKNOWN,
		"not in scan 7: no system named 'node-a' was collected there; collect on it and merge, or name it with --system");
	fab_pipeline_ready_local_free(res);
	m = merged();
	l = live_of(m, "host1");
	l->roce->systems[0].name = "node-a";
	res = judge_as(m, l, NULL, FAB_SEV_WARNING, "host1");
	verdict(res, FAB_READY_OK, "");
	fab_pipeline_ready_local_free(res);
	/* "host1.cluster" is host1 */
	m = merged();
	l = live_of(m, "host1");
	res = judge_as(m, l, NULL, FAB_SEV_WARNING, "host1.cluster.example");
	verdict(res, FAB_READY_OK, "");
	fab_pipeline_ready_local_free(res);

	/* this host's clock behind the merge's: judged all the same */
	m = merged();
	l = live_of(m, "host1");
	l->started_at_ms = RF_T0 - 3600 * 1000LL;
	res = judge(m, l, NULL);
	verdict(res, FAB_READY_OK, "");
	fab_pipeline_ready_local_free(res);

	/* a merge without a RoCE part */
	m = merged();
	l = live_of(m, "host1");
	fab_roce_free(m->roce);
	m->roce = NULL;
	res = judge(m, l, NULL);
	assert_string_equal(res->r->problems[0].text,
			    "scan 7 has no RoCE part to compare with: merge the hosts' collections (docs/roce.md)");
	assert_int_equal(res->r->verdict[0], FAB_READY_UNKNOWN);
	fab_pipeline_ready_local_free(res);
}

/* ---- an extract: the host's part of the merge, and the rest's votes ------------------------ */

static void test_extract(void **state)
{
	(void)state;
	char dir[] = "/tmp/fabsweep-extract-XXXXXX", path[256];
	struct fab_snapshot *m = merged(), *x = NULL, *l;
	struct fab_store *st = NULL;
	struct fab_pipeline_ready_local_result *res;
	size_t n = 0;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(fab_pipeline_ready_extract(m, dir, NULL, NULL, &n), 0);
	assert_int_equal(n, 4); /* the hosts, not the switches */
	snprintf(path, sizeof(path), "%s/host1.db", dir);
	assert_int_equal(fab_store_open(path, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_roce_scan(st, 0, &x), 0);
	fab_store_close(st);
	/* host1 and leaf1 as merged, the rest as what they heard */
	size_t collected = 0;
	for (size_t i = 0; i < x->roce->n_systems; i++)
		collected += x->roce->systems[i].collected;
	assert_int_equal(collected, 2);
	assert_int_not_equal(fab_roce_find_system(x->roce, "leaf1"), FAB_NONE);
	/* the votes of the rest: three hosts trust DSCP and send CNPs on DSCP
	 * 48, priority 6; three host links at 100 Gb/s, four leaf-spine links
	 * at 400 Gb/s (host1's own link is in the extract) */
	const struct fab_roce_votes *v = x->roce->outside;
	assert_non_null(v);
	assert_int_equal(v->trust[FAB_TRUST_DSCP], 3);
	assert_int_equal(v->trust[FAB_TRUST_PCP], 0);
	assert_int_equal(v->cnp_dscp[48], 3);
	assert_int_equal(v->cnp_prio[6], 3);
	assert_int_equal(v->n_speeds, 2);
	assert_int_equal(v->speeds[0].role_a, FAB_ROLE_HOST);
	assert_int_equal(v->speeds[0].role_b, FAB_ROLE_LEAF);
	assert_int_equal(v->speeds[0].mbps, 100000);
	assert_int_equal(v->speeds[0].links, 3);
	assert_int_equal(v->speeds[1].role_a, FAB_ROLE_LEAF);
	assert_int_equal(v->speeds[1].role_b, FAB_ROLE_SPINE);
	assert_int_equal(v->speeds[1].mbps, 400000);
	assert_int_equal(v->speeds[1].links, 4);

	/* host1 trusts PCP now: against the extract, the fabric's majority */
	l = live_of(m, "host1");
	struct fab_eth_port *p = eth0(l, "host1");
	for (uint32_t k = 0; k < p->dcb.app_count; k++)
		if (l->roce->apps[p->dcb.app_first + k].selector == FAB_APP_SEL_DSCP)
			l->roce->apps[p->dcb.app_first + k] =
				(struct fab_app_entry){ .priority = 3, .selector = FAB_APP_SEL_UDP, .protocol = 4791 };
	const char *want = "roce.dscp_mapping host1/eth0 <-> leaf1/swp1: DSCP 26 is not mapped to priority 3\n"
			   "roce.trust_mismatch host1/eth0 <-> leaf1/swp1: trusts PCP while 3 of 4 RoCE NICs trust DSCP: DSCP-marked RoCE traffic does not reach priority 3 here";
	struct fab_snapshot *l2 = live_of(l, "host1"); /* the same view, for the second judgement */
	res = judge(x, l, NULL);
	verdict(res, FAB_READY_NOT_READY, want);
	fab_pipeline_ready_local_free(res);
	/* ... and against the whole merge: the same answer */
	res = judge(m, l2, NULL);
	verdict(res, FAB_READY_NOT_READY, want);
	fab_pipeline_ready_local_free(res);
	for (const char *h = "1234"; *h; h++) {
		snprintf(path, sizeof(path), "%s/host%c.db", dir, *h);
		unlink(path);
	}
	rmdir(dir);
}

/* ---- the votes, and [ready] in the configuration --------------------------------------------- */

static void test_votes_and_config(void **state)
{
	(void)state;
	struct fab_roce_speed_vote sa[] = { { 1, 2, 100000, 3 }, { 2, 3, 400000, 4 } };
	struct fab_roce_speed_vote sb[] = { { 1, 2, 100000, 5 }, { 1, 2, 200000, 1 } };
	struct fab_roce_votes a = { .speeds = sa, .n_speeds = 2 }, b = { .speeds = sb, .n_speeds = 2 };
	struct fab_roce_votes *sum = NULL, *diff = NULL;
	char names[4][FAB_READY_PORT_NAME_MAX];
	unsigned count;
	size_t n;

	a.trust[FAB_TRUST_DSCP] = 4;
	b.trust[FAB_TRUST_DSCP] = 1;
	b.cnp_dscp[46] = 2;
	assert_int_equal(fab_roce_votes_add(&a, &b, &sum), 0);
	assert_int_equal(sum->trust[FAB_TRUST_DSCP], 5);
	assert_int_equal(sum->cnp_dscp[46], 2);
	assert_int_equal(sum->n_speeds, 3);
	assert_int_equal(sum->speeds[0].links, 8);
	assert_int_equal(sum->speeds[1].mbps, 200000);
	assert_int_equal(sum->speeds[2].links, 4);
	assert_int_equal(fab_roce_votes_sub(&a, &b, &diff), 0); /* never below 0, zeros dropped */
	assert_int_equal(diff->trust[FAB_TRUST_DSCP], 3);
	assert_int_equal(diff->cnp_dscp[46], 0);
	assert_int_equal(diff->n_speeds, 1);
	assert_int_equal(diff->speeds[0].mbps, 400000);
	fab_roce_votes_free(sum);
	fab_roce_votes_free(diff);

	assert_int_equal(fab_ready_ports_parse("8", &count, names, 4, &n), 0);
	assert_int_equal(count, 8);
	assert_int_equal(n, 0);
	assert_int_equal(fab_ready_ports_parse(" mlx5_0/1 ,mlx5_bond_0/2", &count, names, 4, &n), 0);
	assert_int_equal(count, 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "mlx5_0/1");
	assert_string_equal(names[1], "mlx5_bond_0/2");
	for (const char *const *bad = (const char *const[]){ "0", "1025", "mlx5_0", "/1", "mlx5_0/0",
							    "mlx5_0/256", "mlx5 0/1", "a/1,,b/1", "", NULL };
	     *bad; bad++)
		if (fab_ready_ports_parse(*bad, &count, names, 4, &n) != -EINVAL)
			fail_msg("roce_ports '%s' accepted", *bad);
	assert_int_equal(fab_ready_require_parse("lldp, ecn"), FAB_READY_NEED_LLDP | FAB_READY_NEED_ECN);
	assert_int_equal(fab_ready_require_parse("none"), 0);
	assert_int_equal(fab_ready_require_parse("ethtool,dcb"), FAB_READY_NEED_ETHTOOL | FAB_READY_NEED_DCB);
	assert_string_equal(fab_ready_need_name(FAB_READY_NEED_ETHTOOL), "ethtool");
	assert_int_equal(fab_ready_require_parse("lldp,pfc"), -1);
	assert_int_equal(fab_ready_require_parse(""), -1);
	struct fab_config *c = NULL;
	assert_int_equal(fab_config_parse("[ready]\nrequire = pfc\n", 22, "r.conf", &c), -EINVAL);
	assert_string_equal(fab_errmsg(), "r.conf:2: 'require' in [ready] takes what must be readable, separated by commas: lldp, dcb, ecn, ethtool (or none), not 'pfc'");
	assert_int_equal(fab_config_parse("[ready]\nroce_port = 2\n", 21, "r.conf", &c), -EINVAL);
	assert_string_equal(fab_errmsg(), "r.conf:2: unknown key 'roce_port' in [ready]; known: roce_ports, require");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_cabling),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_nic_counters),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_votes_and_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
