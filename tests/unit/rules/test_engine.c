// SPDX-License-Identifier: MIT
/*
 * The engine and the generic checks, on in-memory snapshots: what the
 * fixtures do not reach (simulator quirks, configured expectations,
 * overrides, suppressions, counter deltas, skipped rules).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "rules/rules_priv.h"
#include "fabsweep/routing.h"
#include "unit/rules/rulefix.h"

#define NOW (RF_T0 + 3600 * 1000LL)

static char path[512];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/test_engine_%d.conf", tmp ? tmp : "/tmp", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static struct fab_config *config(const char *text)
{
	struct fab_config *cfg;
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	if (fab_config_load(path, &cfg))
		fail_msg("%s", fab_errmsg());
	return cfg;
}

static size_t count(const struct fab_snapshot *s, const char *rule)
{
	return fabfix_count_findings(s, rule);
}

static const struct fab_finding *first(const struct fab_snapshot *s, const char *rule)
{
	const struct fab_finding *f = fabfix_finding(s, rule);

	if (!f)
		fail_msg("no finding of %s", rule);
	return f;
}

static void run(const struct fab_config *cfg, struct fab_snapshot *s,
		const struct fab_snapshot *base, struct fab_rules_result *res)
{
	if (fab_rules_run(cfg, s, base, NOW, res))
		fail_msg("%s", fab_errmsg());
}

static void dump(const struct fab_snapshot *s)
{
	for (size_t i = 0; i < s->n_findings; i++)
		fprintf(stderr, "  %s %s: %s [%s]\n", s->findings[i].rule_id, s->findings[i].subject,
			s->findings[i].message, s->findings[i].evidence ? s->findings[i].evidence : "");
}

static struct fab_port *port(struct fab_snapshot *s, uint64_t guid, unsigned num)
{
	uint32_t n = fab_snapshot_find_node(s, guid);

	assert_int_not_equal(n, FAB_NONE);
	return fab_snapshot_port(s, n, num);
}

static struct fab_counter_sample *sample(struct fab_snapshot *s, struct fab_port *p, unsigned which)
{
	for (size_t i = 0; i < s->n_samples; i++)
		if (s->samples[i].port_idx == (uint32_t)(p - s->ports) && s->samples[i].sample == which)
			return &s->samples[i];
	fail_msg("no sample");
	return NULL;
}

/* ibsim: every width and speed "supported", enabled 1X,4X, links 4X HDR. */
static void test_ibsim_supported_everything(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_rules_result res;

	for (size_t i = 0; i < s->n_ports; i++) {
		s->ports[i].width_supported = 0x1f;
		s->ports[i].speed_supported = (1u << FAB_SPEED__BITS) - 1;
	}
	run(NULL, s, NULL, &res);
	dump(s);
	assert_int_equal(s->n_findings, 0);
	assert_int_equal(res.by_severity[FAB_SEV_ERROR], 0);

	/* ibsim's w=1 on both ends of one link: enabled 1X, active 1X, all
	 * widths "supported": only the tier comparison can see it */
	struct fab_port *a = port(s, RF_LEAF(2), 8), *b = port(s, RF_SPINE(2), 2);
	a->width_enabled = b->width_enabled = FAB_WIDTH_1X;
	a->width_active = b->width_active = FAB_WIDTH_1X;
	run(NULL, s, NULL, &res);
	dump(s);
	assert_int_equal(s->n_findings, 1);
	assert_int_equal(count(s, "link.width_degraded"), 1);
	assert_non_null(strstr(first(s, "link.width_degraded")->evidence, "tier_source=majority"));
	assert_int_equal(res.n_findings[fab_rule_index(fab_rule_find("link.width_degraded"))], 1);
	fab_snapshot_free(s);
}

/* Hosts whose adapters top out at EDR: fine by the majority, flagged when the
 * config expects HDR. */
static void test_configured_expectation(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	unsigned edr = FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR | FAB_SPEED_FDR | FAB_SPEED_EDR;
	struct fab_rules_result res;

	for (unsigned h = 1; h <= 8; h++) {
		struct fab_port *p = port(s, RF_HOST(h), 1), *r = &s->ports[p->remote_idx];
		p->speed_supported = p->speed_enabled = (uint16_t)edr;
		p->speed_active = r->speed_active = FAB_SPEED_EDR;
	}
	run(NULL, s, NULL, &res);
	dump(s);
	assert_int_equal(s->n_findings, 0);

	struct fab_config *cfg = config("[expect]\nspeed.host-leaf = HDR\n");
	run(cfg, s, NULL, &res);
	assert_int_equal(count(s, "link.speed_degraded"), 8);
	assert_int_equal(s->n_findings, 8);
	const struct fab_finding *f = first(s, "link.speed_degraded");
	assert_string_equal(f->message, "link runs at speed EDR; host-leaf links are expected to run HDR");
	assert_non_null(strstr(f->evidence, "tier_source=config"));
	assert_non_null(strstr(f->evidence, "rate_gbps=100; expected_gbps=200"));
	fab_config_free(cfg);

	/* half the hosts at HDR, half at EDR though capable of HDR: a tie goes to
	 * the faster, the slower half is flagged */
	for (unsigned h = 1; h <= 8; h++) {
		struct fab_port *p = port(s, RF_HOST(h), 1), *r = &s->ports[p->remote_idx];
		p->speed_supported = p->speed_enabled = r->speed_enabled;
		p->speed_active = r->speed_active = h <= 4 ? FAB_SPEED_EDR : FAB_SPEED_HDR;
	}
	run(NULL, s, NULL, &res);
	assert_int_equal(count(s, "link.speed_degraded"), 4);
	fab_snapshot_free(s);
}

/* Severity overrides and disabled rules. */
static void test_overrides(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_rules_result res;
	struct fab_port *p = port(s, RF_LEAF(1), 7);

	sample(s, p, 0)->v[FAB_CTR_SYMBOL_ERRORS] = 50;
	sample(s, p, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 50;
	fab_node_set_desc(&s->nodes[fab_snapshot_find_node(s, RF_HOST(2))], (const uint8_t *)"host01 HCA-1", 12);
	run(NULL, s, NULL, &res);
	assert_int_equal(first(s, "port.errors")->severity, FAB_SEV_WARNING);
	assert_int_equal(count(s, "nodedesc.duplicate"), 1);
	assert_int_equal(res.by_severity[FAB_SEV_WARNING], 2);

	struct fab_config *cfg = config("[rules]\nport.errors = error\nnodedesc.duplicate = off\n");
	run(cfg, s, NULL, &res);
	assert_int_equal(s->n_findings, 1);
	assert_int_equal(first(s, "port.errors")->severity, FAB_SEV_ERROR);
	assert_int_equal(res.by_severity[FAB_SEV_ERROR], 1);
	assert_int_equal(res.by_severity[FAB_SEV_WARNING], 0);
	assert_int_equal(res.status[fab_rule_index(fab_rule_find("nodedesc.duplicate"))], FAB_RULE_DISABLED);
	fab_config_free(cfg);

	/* thresholds: 50 is not above 50; it is above 49 */
	cfg = config("[thresholds]\nSymbolErrorCounter = 50\n");
	run(cfg, s, NULL, &res);
	assert_int_equal(count(s, "port.errors"), 0);
	fab_config_free(cfg);
	cfg = config("[thresholds]\nSymbolErrorCounter = 49\n");
	run(cfg, s, NULL, &res);
	assert_int_equal(count(s, "port.errors"), 1);
	fab_config_free(cfg);
	fab_snapshot_free(s);
}

/* A suppression matches either end by name or GUID, with or without the
 * port, or the subject; it stops at the end of its day. */
static void test_suppressions(void **state)
{
	static const struct {
		const char *conf;
		size_t kept;
	} cases[] = {
		{ "port.errors = leaf01/7 until 2026-03-01", 0 },
		{ "port.errors = spine01/1 until 2026-03-01", 0 },        /* the peer */
		{ "port.errors = leaf01 until 2026-03-01", 0 },           /* node, any port */
		{ "port.errors = 0x0002c90300b00001/* until 2026-03-01", 0 },
		{ "port.* = leaf0[1-3]/? until 2026-03-01", 0 },
		{ "port.errors = leaf01/7 <-> spine01/1 until 2026-03-01", 0 }, /* subject */
		{ "port.errors = leaf01/7 until 2026-02-28", 1 },         /* expired */
		{ "port.errors = leaf01/8 until 2026-03-01", 1 },
		{ "port.error_rate = leaf01/7 until 2026-03-01", 1 },
		{ "port.errors = leaf01/ until 2026-03-01", 1 },
	};
	struct fab_snapshot *s = rf_base(0);
	struct fab_port *p = port(s, RF_LEAF(1), 7);
	struct fab_rules_result res;
	char text[256];

	sample(s, p, 0)->v[FAB_CTR_SYMBOL_ERRORS] = 50;
	sample(s, p, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 50;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[suppress]\n%s\n", cases[i].conf);
		struct fab_config *cfg = config(text);
		run(cfg, s, NULL, &res);
		if (s->n_findings != cases[i].kept)
			fail_msg("'%s': %zu findings, wanted %zu", cases[i].conf, s->n_findings, cases[i].kept);
		assert_int_equal(res.n_suppressed, 1 - cases[i].kept);
		fab_config_free(cfg);
	}
	/* a fabric-wide finding is suppressed by its subject */
	s->n_sms = 0;
	struct fab_config *cfg = config("[suppress]\nsm.none = subnet until 2026-03-01\n");
	run(cfg, s, NULL, &res);
	assert_int_equal(count(s, "sm.none"), 0);
	assert_int_equal(res.n_suppressed, 1);
	fab_config_free(cfg);
	fab_snapshot_free(s);
}

/* Ethernet findings: suppressions match the system and interface names of
 * either end, or the subject; [roce] keys are shared between rules. */
static void test_roce_names_and_keys(void **state)
{
	static const struct {
		const char *conf;
		size_t kept;
	} cases[] = {
		{ "[suppress]\nroce.mtu_mismatch = host2/eth0 until 2026-03-01", 0 },
		{ "[suppress]\nroce.mtu_mismatch = leaf1/swp2 until 2026-03-01", 0 }, /* the peer */
		{ "[suppress]\nroce.mtu_mismatch = host2 until 2026-03-01", 0 },
		{ "[suppress]\nroce.* = host[12]/* until 2026-03-01", 0 },
		{ "[suppress]\nroce.mtu_mismatch = host2/eth0 <-> leaf1/swp2 until 2026-03-01", 0 },
		{ "[suppress]\nroce.mtu_mismatch = host2/eno1 until 2026-03-01", 1 },
		{ "[suppress]\nroce.pfc_disabled = host2/eth0 until 2026-03-01", 1 },
		{ "[roce]\nmtu = 1500", 0 },
	};
	struct fab_snapshot *s = rf_base(0);
	struct fab_roce *r = s->roce;
	uint32_t e = fab_roce_find_eth_port(r, fab_roce_find_system(r, "host2"), "eth0");
	struct fab_rules_result res;
	struct fab_config *cfg;

	assert_int_not_equal(e, FAB_NONE);
	r->eth_ports[e].mtu = 1500;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfg = config(cases[i].conf);
		run(cfg, s, NULL, &res);
		if (s->n_findings != cases[i].kept)
			fail_msg("'%s': %zu findings, wanted %zu", cases[i].conf, s->n_findings, cases[i].kept);
		if (cases[i].kept) {
			assert_string_equal(s->findings[0].node, "host2");
			assert_string_equal(s->findings[0].port, "eth0");
			assert_string_equal(s->findings[0].peer_node, "leaf1");
			assert_string_equal(s->findings[0].peer_port, "swp2");
			assert_string_equal(s->findings[0].subject, "host2/eth0 <-> leaf1/swp2");
		}
		fab_config_free(cfg);
	}
	/* another RoCE priority: PFC on 3 is now off on every RoCE link end
	 * (8 links x 2), and roce.dscp_mapping reads the same key (4 hosts and
	 * the 4 leaf ports facing them map DSCP 26 and UDP 4791 to 3) */
	r->eth_ports[e].mtu = 9000;
	cfg = config("[roce]\npriority = 4\n");
	run(cfg, s, NULL, &res);
	assert_int_equal(count(s, "roce.pfc_disabled"), 16);
	assert_int_equal(count(s, "roce.dscp_mapping"), 8);
	assert_int_equal(s->n_findings, 24);
	fab_config_free(cfg);
	fab_snapshot_free(s);
}

/* Deltas: saturated counters, resets, and the baseline. */
static void test_deltas(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_rules_result res;
	struct fab_port *p = port(s, RF_HOST(3), 1);

	/* 8-bit LinkDownedCounter 250 -> 255: saturated, at least 5 */
	sample(s, p, 0)->v[FAB_CTR_LINK_DOWNED] = 250;
	sample(s, p, 1)->v[FAB_CTR_LINK_DOWNED] = 255;
	run(NULL, s, NULL, &res);
	dump(s);
	assert_string_equal(res.delta_source, "samples");
	assert_true(res.delta_seconds == 10);
	const struct fab_finding *f = first(s, "port.link_flapping");
	assert_string_equal(f->message, "LinkDownedCounter rose by 5 or more (saturated) (allowed 0)");
	assert_string_equal(f->evidence, "LinkDownedCounter_increase=5+; interval_s=10");
	assert_string_equal(first(s, "port.errors")->message,
			    "LinkDownedCounter 255 (saturated) > 10");
	fab_snapshot_free(s);
}

static void test_deltas_baseline(void **state)
{
	struct fab_snapshot *s = rf_base(0), *b = rf_base(-3600 * 1000LL);
	struct fab_rules_result res;
	struct fab_port *p = port(s, RF_HOST(3), 1), *bp = port(b, RF_HOST(3), 1);

	/* cleared since the baseline: 9000 then, 40 now: at least 40 */
	sample(b, bp, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 9000;
	sample(s, p, 0)->v[FAB_CTR_SYMBOL_ERRORS] = 40;
	sample(s, p, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 40;
	struct fab_config *cfg = config("[rates]\nSymbolErrorCounter = 0.001\n");
	run(cfg, s, b, &res);
	dump(s);
	assert_string_equal(res.delta_source, "baseline");
	assert_true(res.delta_seconds == 3600);
	const struct fab_finding *f = first(s, "port.error_rate");
	assert_non_null(strstr(f->message, "rose by 40 or more (cleared in between) in 3600s"));
	/* within the scan (no baseline) nothing moved */
	run(cfg, s, NULL, &res);
	assert_int_equal(count(s, "port.error_rate"), 0);
	fab_config_free(cfg);

	/* a newer baseline is refused */
	assert_int_equal(fab_rules_run(NULL, b, s, NOW, &res), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "newer"));
	assert_int_equal(b->n_findings, 0);

	/* a baseline that shares no port with the snapshot: nothing to compare */
	for (size_t i = 0; i < b->n_nodes; i++)
		b->nodes[i].guid += 0x1000000;
	s->n_samples /= 2; /* keep sample 0 only: no delta within the scan */
	for (size_t i = 0; i < s->n_samples; i++)
		assert_int_equal(s->samples[i].sample, 0);
	run(NULL, s, b, &res);
	assert_null(res.delta_source);
	assert_int_equal(res.status[fab_rule_index(fab_rule_find("port.error_rate"))], FAB_RULE_SKIPPED);
	assert_non_null(strstr(res.why_skipped[fab_rule_index(fab_rule_find("port.error_rate"))],
			       "--baseline"));
	fab_snapshot_free(s);
	fab_snapshot_free(b);
}

/* roce.congestion compares the RDMA counters with a baseline's: skipped
 * without one, run with one (the base fabric rises slowly: no finding). */
static void test_roce_baseline(void **state)
{
	struct fab_snapshot *s = rf_base(0), *b = rf_base(-3600 * 1000LL);
	struct fab_rules_result res;
	size_t i = fab_rule_index(fab_rule_find("roce.congestion"));

	run(NULL, s, NULL, &res);
	assert_int_equal(res.status[i], FAB_RULE_SKIPPED);
	assert_non_null(strstr(res.why_skipped[i], "baseline"));
	run(NULL, s, b, &res);
	assert_int_equal(res.status[i], FAB_RULE_RAN);
	assert_int_equal(s->n_findings, 0);
	/* 100 out-of-sequence packets a second on host2's port, matched by name */
	struct fab_roce *r = s->roce;
	for (size_t p = 0; p < r->n_rdma_ports; p++)
		for (uint32_t k = 0; k < r->rdma_ports[p].ctr_count; k++) {
			struct fab_rdma_counter *c = &r->counters[r->rdma_ports[p].ctr_first + k];
			if (!strcmp(c->name, "out_of_sequence") &&
			    !strcmp(r->systems[r->devices[r->rdma_ports[p].device_idx].system_idx].name, "host2"))
				c->value += 360000;
		}
	run(NULL, s, b, &res);
	assert_int_equal(s->n_findings, 1);
	assert_string_equal(s->findings[0].rule_id, "roce.congestion");
	assert_string_equal(s->findings[0].node, "host2");
	assert_string_equal(s->findings[0].port, "eth0");
	/* a baseline without a RoCE part: skipped again */
	fab_roce_free(b->roce);
	b->roce = NULL;
	run(NULL, s, b, &res);
	assert_int_equal(res.status[i], FAB_RULE_SKIPPED);
	fab_snapshot_free(s);
	fab_snapshot_free(b);
}

/* Rules whose data is missing are skipped, not run. */
static void test_skips(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_rules_result res;
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	s->n_samples = 0;
	s->n_sms = 0;
	s->source = "file:fabric.topo";
	fab_roce_free(s->roce); /* a pure InfiniBand snapshot: RoCE rules skipped */
	s->roce = NULL;
	fab_routing_free(s->routing); /* no forwarding tables: routing rules skipped */
	s->routing = NULL;
	fab_pkeys_free(s->pkeys); /* no P_Key tables: partition rules skipped */
	s->pkeys = NULL;
	fab_mcast_free(s->mcast); /* no multicast: the mcast rules skipped */
	s->mcast = NULL;
	run(NULL, s, NULL, &res);
	assert_int_equal(s->n_findings, 0);
	assert_int_equal(res.n_rules, n);
	for (size_t i = 0; i < n; i++) {
		bool skip = t[i].needs != 0;
		if (t[i].needs & FAB_NEED_REFERENCE) { /* no --expect: not asked for */
			assert_int_equal(res.status[i], FAB_RULE_NOT_REQUESTED);
			continue;
		}
		assert_int_equal(res.status[i], skip ? FAB_RULE_SKIPPED : FAB_RULE_RAN);
		if (skip)
			assert_non_null(res.why_skipped[i]);
	}
	/* a live scan without any SM: the fabric has none */
	s->source = "ib:mlx5_0/1";
	run(NULL, s, NULL, &res);
	assert_int_equal(s->n_findings, 1);
	assert_int_equal(count(s, "sm.none"), 1);
	fab_snapshot_free(s);
}

/* Every need a rule can have says what it asks for (`fabsweep rules show`). */
static void test_need_texts(void **state)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	for (unsigned bit = 1; bit <= FAB_NEED__LAST; bit <<= 1)
		assert_non_null(fab_rule_need_text(bit));
	assert_null(fab_rule_need_text(FAB_NEED__LAST << 1));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t[i].needs & ~((FAB_NEED__LAST << 1) - 1), 0);
}

/* Running again replaces the findings; the order is fixed. */
static void test_rerun(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_rules_result res;
	char first_msgs[16][256];

	s->n_sms = 0;
	fab_mcast_free(s->mcast); /* host05's MTU would be below the group's too */
	s->mcast = NULL;
	port(s, RF_HOST(4), 1)->lid = 0;
	port(s, RF_HOST(5), 1)->mtu_active = 3;
	run(NULL, s, NULL, &res);
	size_t n = s->n_findings;
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		snprintf(first_msgs[i], sizeof(first_msgs[i]), "%s %s", s->findings[i].rule_id,
			 s->findings[i].message);
	/* table order: sm.none, lid.unassigned, mtu.mismatch */
	assert_string_equal(s->findings[0].rule_id, "sm.none");
	assert_string_equal(s->findings[1].rule_id, "lid.unassigned");
	assert_string_equal(s->findings[2].rule_id, "mtu.mismatch");
	for (int k = 0; k < 3; k++) {
		run(NULL, s, NULL, &res);
		assert_int_equal(s->n_findings, n);
		for (size_t i = 0; i < n; i++) {
			char m[256];
			snprintf(m, sizeof(m), "%s %s", s->findings[i].rule_id, s->findings[i].message);
			assert_string_equal(m, first_msgs[i]);
		}
	}
	fab_snapshot_free(s);
}

/* A port flagged for SMInfo without an SM row; SMs on ports that are not
 * Active. */
static void test_sm_details(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_rules_result res;

	port(s, RF_HOST(5), 1)->flags |= FAB_F_SMINFO_FAILED;
	run(NULL, s, NULL, &res);
	assert_int_equal(count(s, "sm.unresponsive"), 1);
	assert_string_equal(first(s, "sm.unresponsive")->subject, "host05 HCA-1/1");

	port(s, RF_HOST(5), 1)->flags = 0;
	struct fab_port *p = port(s, RF_HOST(2), 1);
	p->state = s->ports[p->remote_idx].state = FAB_STATE_ARMED;
	run(NULL, s, NULL, &res);
	dump(s);
	assert_string_equal(first(s, "sm.unresponsive")->message,
			    "subnet manager's port is armed, not active");
	assert_int_equal(count(s, "port.not_active"), 1);
	assert_string_equal(first(s, "port.not_active")->message,
			    "both ends are armed with the physical link up");
	fab_snapshot_free(s);
}

/* Many owners of one description: one finding, a bounded evidence list. */
static void test_many_duplicates(void **state)
{
	struct fab_snapshot *s = rf_base(0);
	struct fab_rules_result res;

	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].type == FAB_NODE_SWITCH)
			fab_node_set_desc(&s->nodes[i], (const uint8_t *)"Quantum Mellanox Technologies", 29);
	run(NULL, s, NULL, &res);
	assert_int_equal(s->n_findings, 1);
	const struct fab_finding *f = first(s, "nodedesc.duplicate");
	assert_string_equal(f->message, "6 devices share the description \"Quantum Mellanox Technologies\"");
	assert_string_equal(f->subject, "Quantum Mellanox Technologies");
	fab_snapshot_free(s);
}


/* An empty snapshot, and one with ports but no links: nothing to say. */
static void test_empty(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_rules_result res;

	run(NULL, s, NULL, &res);
	assert_int_equal(s->n_findings, 0);
	fab_snapshot_free(s);
	s = rf_base(0);
	for (size_t i = 0; i < s->n_ports; i++)
		s->ports[i].remote_idx = FAB_NONE;
	fab_snapshot_build_links(s);
	assert_int_equal(s->n_links, 0);
	run(NULL, s, NULL, &res);
	dump(s);
	/* every switch lost its links, but no pattern to compare with */
	assert_int_equal(count(s, "topology.asymmetric"), 0);
	assert_int_equal(count(s, "link.width_degraded"), 0);
	fab_snapshot_free(s);
}

static void test_rbuf_cap(void **state)
{
	struct rbuf b;
	char chunk[1000];

	memset(chunk, 'x', sizeof(chunk) - 1);
	chunk[sizeof(chunk) - 1] = '\0';
	rbuf_init(&b);
	assert_string_equal(rbuf_str(&b), "");
	rbuf_sep(&b, "; ");
	assert_int_equal(b.len, 0);
	for (int i = 0; i < 200; i++)
		rbuf_printf(&b, "%s", chunk);
	assert_true(b.full);
	assert_true(b.len < RBUF_CAP);
	assert_int_equal(strlen(rbuf_str(&b)), b.len);
	rbuf_reset(&b);
	rbuf_printf(&b, "a=%d", 1);
	rbuf_sep(&b, "; ");
	rbuf_printf(&b, "b=%d", 2);
	assert_string_equal(rbuf_str(&b), "a=1; b=2");
	rbuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibsim_supported_everything),
		cmocka_unit_test_setup_teardown(test_configured_expectation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overrides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suppressions, setup, teardown),
		cmocka_unit_test(test_deltas),
		cmocka_unit_test_setup_teardown(test_deltas_baseline, setup, teardown),
		cmocka_unit_test(test_skips),
		cmocka_unit_test(test_roce_baseline),
		cmocka_unit_test_setup_teardown(test_roce_names_and_keys, setup, teardown),
		cmocka_unit_test(test_need_texts),
		cmocka_unit_test(test_rerun),
		cmocka_unit_test(test_sm_details),
		cmocka_unit_test(test_many_duplicates),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_rbuf_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
