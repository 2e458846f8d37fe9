// SPDX-License-Identifier: MIT
/*
 * Operations without a fabric: the [sweep] section of the config
 * file, durations, node names in output (core/nodemap_apply.c), and the
 * expected-topology check (rules/expect.c) on cases the rule fixtures do not
 * reach: a moved end, an absent node, a hole, ambiguous descriptions.
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

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/rules.h"
#include "unit/snapfix.h"

/* ---- [sweep] ------------------------------------------------------------------------ */

static struct fab_config *conf_ok(const char *text)
{
	struct fab_config *c = NULL;

	if (fab_config_parse(text, strlen(text), "f.conf", &c))
		fail_msg("'%s': %s", text, fab_errmsg());
	return c;
}

static void conf_bad(const char *text, const char *msg)
{
	struct fab_config *c = NULL;

	assert_int_equal(fab_config_parse(text, strlen(text), "f.conf", &c), -EINVAL);
	assert_null(c);
	if (strcmp(fab_errmsg(), msg))
		fail_msg("'%s': got '%s', want '%s'", text, fab_errmsg(), msg);
}

static void test_sweep_config(void **state)
{
	struct fab_config *c;
	unsigned line;

	(void)state;
	c = conf_ok("[rules]\nsm.no_standby = off\n\n[sweep]\nreport_dir = /srv/www/fabric\n"
		    "prometheus = /var/lib/prometheus/node-exporter/fabsweep.prom\nkeep = 720\n"
		    "older_than = 30d\nfail_on = warning\nbaseline = after-maint\n"
		    "expect = /etc/fabsweep/fabric.topo\nnode_name_map = none\ninterval = 0\n");
	assert_string_equal(fab_config_sweep(c, FAB_SWEEP_REPORT_DIR, &line), "/srv/www/fabric");
	assert_int_equal(line, 5);
	assert_string_equal(fab_config_sweep(c, FAB_SWEEP_KEEP, NULL), "720");
	assert_string_equal(fab_config_sweep(c, FAB_SWEEP_OLDER_THAN, NULL), "30d");
	assert_string_equal(fab_config_sweep(c, FAB_SWEEP_BASELINE, NULL), "after-maint");
	assert_string_equal(fab_config_sweep(c, FAB_SWEEP_NODE_NAME_MAP, &line), "none");
	assert_int_equal(line, 12);
	fab_config_free(c);
	c = conf_ok("[sweep]\nbaseline = previous\n");
	assert_null(fab_config_sweep(c, FAB_SWEEP_KEEP, &line));
	assert_int_equal(line, 0);
	assert_null(fab_config_sweep(c, FAB_SWEEP__COUNT, NULL));
	fab_config_free(c);
	assert_null(fab_config_sweep(NULL, FAB_SWEEP_KEEP, NULL));
	assert_string_equal(fab_config_sweep_key_name(FAB_SWEEP_OLDER_THAN), "older_than");
	assert_null(fab_config_sweep_key_name(FAB_SWEEP__COUNT));

	/* [watch]: its own keys; [sweep]'s are not its */
	c = conf_ok("[sweep]\ninterval = 5\n[watch]\ninterval = 500ms\nhold = 2m\nrescan = 1h\n");
	assert_string_equal(fab_config_sweep(c, FAB_SWEEP_INTERVAL, NULL), "5");
	assert_string_equal(fab_config_sweep(c, FAB_WATCH_INTERVAL, &line), "500ms");
	assert_int_equal(line, 4);
	assert_string_equal(fab_config_sweep(c, FAB_WATCH_HOLD, NULL), "2m");
	assert_string_equal(fab_config_sweep(c, FAB_WATCH_RESCAN, NULL), "1h");
	fab_config_free(c);
	conf_bad("[watch]\nhold = 2\n", "f.conf:2: 'hold' in [watch] takes a duration such as 10m, 30s or 1h, not '2'");
	conf_bad("[watch]\nkeep = 3\n", "f.conf:2: unknown key 'keep' in [watch]; known: interval, rescan, hold, data_interval, keep_raw, prometheus, link_probe, link_probe_share, events, alertmanager, alert_resend");
	/* link events and alerts (docs/watch.md) */
	c = conf_ok("[watch]\nlink_probe = off\nevents = off\nalertmanager = http://localhost:9093\n"
		    "alert_resend = 30s\n");
	assert_string_equal(fab_config_sweep(c, FAB_WATCH_LINK_PROBE, NULL), "off");
	assert_string_equal(fab_config_sweep(c, FAB_WATCH_EVENTS, NULL), "off");
	assert_string_equal(fab_config_sweep(c, FAB_WATCH_ALERTMANAGER, NULL), "http://localhost:9093");
	fab_config_free(c);
	conf_bad("[watch]\nlink_probe = 500ms\n", "f.conf:2: 'link_probe' in [watch] takes a duration of a second or more such as 30s or 2m, or off, not '500ms'");
	/* the probe's cost bound: a fraction or a percentage, above 0, at most all */
	c = conf_ok("[watch]\nlink_probe_share = 10%\n");
	assert_string_equal(fab_config_sweep(c, FAB_WATCH_LINK_PROBE_SHARE, &line), "10%");
	assert_int_equal(line, 2);
	fab_config_free(c);
	fab_config_free(conf_ok("[watch]\nlink_probe_share = 0.25\n"));
	fab_config_free(conf_ok("[watch]\nlink_probe_share = 1\n"));
	{
		static const struct {
			const char *s;
			double want; /* < 0: refused */
		} shares[] = { { "0.1", 0.1 }, { "10%", 0.1 }, { "2.5%", 0.025 }, { "1", 1.0 },
			       { "100%", 1.0 }, { ".5", 0.5 }, { "0", -1 }, { "0%", -1 },
			       { "1.01", -1 }, { "101%", -1 }, { "-0.1", -1 }, { "+0.1", -1 },
			       { " 0.1", -1 }, { "0.1 ", -1 }, { "1e-1", -1 }, { "nan", -1 },
			       { "inf", -1 }, { "%", -1 }, { "10%%", -1 }, { "", -1 },
			       { "0x0.1", -1 }, { "10 %", -1 } };
		for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
			double f = -2;
			int rc = fab_share_parse(shares[i].s, &f);
			if (shares[i].want < 0) {
				assert_int_equal(rc, -EINVAL);
				assert_true(f == -2); /* untouched */
			} else {
				assert_int_equal(rc, 0);
				assert_true(f > shares[i].want - 1e-12 && f < shares[i].want + 1e-12);
			}
		}
	}
	conf_bad("[watch]\nlink_probe_share = 0\n", "f.conf:2: 'link_probe_share' in [watch] takes a fraction above 0 and at most 1 such as 0.1, or a percentage such as 10%, not '0'");
	conf_bad("[watch]\nlink_probe_share = 150%\n", "f.conf:2: 'link_probe_share' in [watch] takes a fraction above 0 and at most 1 such as 0.1, or a percentage such as 10%, not '150%'");
	conf_bad("[watch]\nlink_probe_share = 30s\n", "f.conf:2: 'link_probe_share' in [watch] takes a fraction above 0 and at most 1 such as 0.1, or a percentage such as 10%, not '30s'");
	conf_bad("[watch]\nevents = yes\n", "f.conf:2: 'events' in [watch] takes on or off, not 'yes'");
	conf_bad("[watch]\nalertmanager = localhost:9093\n", "f.conf:2: 'alertmanager' in [watch] takes Alertmanager's URL, such as http://localhost:9093, not 'localhost:9093'");
	conf_bad("[watch]\nalertmanager = http://a b\n", "f.conf:2: 'alertmanager' in [watch] takes Alertmanager's URL, such as http://localhost:9093, not 'http://a b'");
	conf_bad("[sweep]\nhold = 2m\n", "f.conf:2: unknown key 'hold' in [sweep]; known: report_dir, prometheus, keep, older_than, fail_on, baseline, expect, node_name_map, interval");
	conf_bad("[watch]\nhold = 2m\nhold = 3m\n", "f.conf:3: 'hold' is set twice in [watch] (first at line 2); keep one");
	conf_bad("[sweep]\nkeep = 0\n", "f.conf:2: 'keep' in [sweep] takes a whole number of scans from 1 to 1000000, not '0'");
	conf_bad("[sweep]\nkeep = 10 scans\n", "f.conf:2: 'keep' in [sweep] takes a whole number of scans from 1 to 1000000, not '10 scans'");
	conf_bad("[sweep]\nolder_than = 30\n", "f.conf:2: 'older_than' in [sweep] takes a duration such as 30d, 12h, 2w or 1d12h, not '30'");
	conf_bad("[sweep]\nreport_dir = reports\n", "f.conf:2: 'report_dir' in [sweep] takes an absolute directory path, not 'reports'");
	conf_bad("[sweep]\nprometheus = /tmp/fabsweep.txt\n",
		 "f.conf:2: 'prometheus' in [sweep] takes an absolute path ending in .prom (the textfile collector reads *.prom), not '/tmp/fabsweep.txt'");
	conf_bad("[sweep]\nfail_on = fatal\n", "f.conf:2: 'fail_on' in [sweep] takes error, warning, info or never, not 'fatal'");
	conf_bad("[sweep]\nbaseline = 1st\n", "f.conf:2: 'baseline' in [sweep] takes previous, none, a scan id or a baseline name, not '1st'");
	conf_bad("[sweep]\ninterval = 3601\n", "f.conf:2: 'interval' in [sweep] takes seconds from 0 to 3600 (0: one sample), not '3601'");
	conf_bad("[sweep]\nnode_name_map = map.txt\n", "f.conf:2: 'node_name_map' in [sweep] takes an absolute path, or none, not 'map.txt'");
	conf_bad("[sweep]\nkeep = 1\nkeep = 2\n", "f.conf:3: 'keep' is set twice in [sweep] (first at line 2); keep one");
	conf_bad("[sweep]\nreportdir = /x\n",
		 "f.conf:2: unknown key 'reportdir' in [sweep]; known: report_dir, prometheus, keep, older_than, fail_on, baseline, expect, node_name_map, interval");
	conf_bad("keep = 3\n", "f.conf:1: 'keep' is outside any section; start one with [thresholds], [rates], [expect], [rules] or [suppress]");
}

static void test_duration(void **state)
{
	int64_t ms = 0;

	(void)state;
	assert_int_equal(fab_duration_parse("30d", &ms), 0);
	assert_true(ms == 30LL * 86400 * 1000);
	assert_int_equal(fab_duration_parse("1d12h", &ms), 0);
	assert_true(ms == 36LL * 3600 * 1000);
	assert_int_equal(fab_duration_parse("90s", &ms), 0);
	assert_true(ms == 90000);
	assert_int_equal(fab_duration_parse("500ms", &ms), 0);
	assert_true(ms == 500);
	assert_int_equal(fab_duration_parse("1m30s250ms", &ms), 0);
	assert_true(ms == 90250);
	assert_int_equal(fab_duration_parse("5mss", &ms), -EINVAL);
	assert_int_equal(fab_duration_parse("30", &ms), -EINVAL);
	assert_int_equal(fab_duration_parse("", &ms), -EINVAL);
	assert_int_equal(fab_duration_parse("0d", &ms), -EINVAL);
	assert_int_equal(fab_duration_parse("d", &ms), -EINVAL);
	assert_int_equal(fab_duration_parse("101000w", &ms), -EINVAL); /* over a century */
	assert_int_equal(fab_duration_parse("1y", &ms), -EINVAL);
}

/* ---- names in output ----------------------------------------------------------------- */

static void test_names(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(1, 1, 2);
	struct fab_nodemap *m;
	const char *text = "0x0000000000002000 \"leaf-A\"\n0x0000000000003000 \"gpu1\"\n";
	char buf[256];

	(void)state;
	assert_int_equal(fab_nodemap_parse(text, strlen(text), "map", &m), 0);
	struct fab_finding f[] = {
		{ .rule_id = "a", .node = "0x0000000000002000", .port = "1", .peer_node = "0x0000000000003000",
		  .peer_port = "1", .subject = "leaf001/1 <-> host0001 HCA-1/1", .message = "m" },
		{ .rule_id = "b", .node = "0x0000000000002000", .subject = "leaf001", .message = "m" },
		{ .rule_id = "c", .node = "0x0000000000003010", .port = "1", .subject = "host0002 HCA-1/1", .message = "m" },
		{ .rule_id = "d", .node = "0x0000000000002000", .subject = "leaf001 and friends", .message = "m" },
		{ .rule_id = "e", .subject = "fabric", .message = "m" },
		{ .rule_id = "f", .node = "0x0000000000009999", .subject = "gone", .message = "m" },
	};
	const char *want[] = { "leaf-A/1 <-> gpu1/1", "leaf-A", "host0002 HCA-1/1", "leaf001 and friends",
			       "fabric", "gone" };
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		assert_string_equal(fab_nodemap_subject(m, s, &f[i], buf, sizeof(buf)), want[i]);
	assert_ptr_equal(fab_nodemap_subject(NULL, s, &f[0], buf, sizeof(buf)), f[0].subject);
	/* a buffer too small: the stored subject */
	assert_ptr_equal(fab_nodemap_subject(m, s, &f[0], buf, 5), f[0].subject);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		assert_int_equal(fab_snapshot_add_finding(s, &f[i]), 0);
	assert_int_equal(fab_nodemap_apply(m, s), 0);
	assert_string_equal(s->nodes[fab_snapshot_find_node(s, 0x2000)].desc, "leaf-A");
	assert_string_equal(s->nodes[fab_snapshot_find_node(s, 0x3000)].desc, "gpu1");
	assert_string_equal(s->nodes[fab_snapshot_find_node(s, 0x3010)].desc, "host0002 HCA-1");
	for (size_t i = 0; i < s->n_findings; i++)
		assert_string_equal(s->findings[i].subject, want[i]);
	assert_int_equal(fab_nodemap_apply(NULL, s), 0);
	fab_nodemap_free(m);
	fab_snapshot_free(s);
}

/* ---- expected topology --------------------------------------------------------------- */

static uint32_t port_of(const struct fab_snapshot *s, uint64_t guid, unsigned num)
{
	const struct fab_port *p = fab_snapshot_port(s, fab_snapshot_find_node(s, guid), num);

	assert_non_null(p);
	return (uint32_t)(p - s->ports);
}

/* Recables: a's cable now goes to b (both become active ends of one link);
 * whatever they were cabled to is left without a remote end. */
static void recable(struct fab_snapshot *s, uint32_t a, uint32_t b)
{
	uint32_t ends[2] = { a, b };

	for (int k = 0; k < 2; k++) {
		struct fab_port *p = &s->ports[ends[k]];
		if (p->remote_idx != FAB_NONE) {
			s->ports[p->remote_idx].remote_idx = FAB_NONE;
			s->ports[p->remote_idx].state = FAB_STATE_DOWN;
		}
	}
	for (int k = 0; k < 2; k++) {
		struct fab_port *p = &s->ports[ends[k]], *q = &s->ports[ends[1 - k]];
		p->remote_idx = ends[1 - k];
		p->remote_guid = s->nodes[q->node_idx].guid;
		p->remote_port = q->port_num;
		p->state = FAB_STATE_ACTIVE;
	}
	assert_int_equal(fab_snapshot_build_links(s), 0);
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

static struct fab_config *only_expect(void)
{
	const char *t = "[rules]\nsm.no_standby = off\nport.not_active = off\ntopology.asymmetric = off\n";
	return conf_ok(t);
}

static void test_expect(void **state)
{
	struct fab_snapshot *ref = snapfix_fat_tree(2, 2, 2), *s;
	struct fab_config *cfg = only_expect();
	struct fab_rules_result res;
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	(void)state;
	/* without a reference the rules are not asked for */
	s = snapfix_fat_tree(2, 2, 2);
	assert_int_equal(fab_rules_run(cfg, s, NULL, 0, &res), 0);
	for (size_t i = 0; i < n; i++)
		if (t[i].needs & FAB_NEED_REFERENCE)
			assert_int_equal(res.status[i], FAB_RULE_NOT_REQUESTED);
	/* the same fabric: nothing */
	assert_int_equal(fab_rules_run_ref(cfg, s, NULL, ref, 0, &res), 0);
	assert_int_equal(s->n_findings, 0);
	assert_int_equal(res.status[fab_rule_index(fab_rule_find("topology.miswired"))], FAB_RULE_RAN);

	/* one end moved to a free port of the same switch: miswired, its old
	 * peer's cable explained, not missing */
	recable(s, port_of(s, 0x2000, 1), port_of(s, 0x3000, 1)); /* as before */
	recable(s, port_of(s, 0x3000, 1), port_of(s, 0x2000, 5));
	assert_int_equal(fab_rules_run_ref(cfg, s, NULL, ref, 0, &res), 0);
	assert_int_equal(count(s, "topology.miswired"), 1);
	assert_int_equal(count(s, "topology.missing_link"), 0);
	assert_int_equal(count(s, "topology.unexpected_link"), 0);
	assert_string_equal(first(s, "topology.miswired")->message,
			    "cabled to the wrong port: the reference has no cable on leaf001/5 and "
			    "host0001 HCA-1/1 <-> leaf001/1");
	fab_snapshot_free(s);

	/* a host gone from the scan: missing, named by the reference */
	s = snapfix_fat_tree(2, 2, 2);
	uint32_t h2 = fab_snapshot_find_node(s, 0x3010);
	s->nodes[h2].guid = 0x7777; /* not in the reference */
	snprintf(s->nodes[h2].desc, FAB_DESC_CAP, "%s", "host0001 HCA-1");
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_int_equal(fab_rules_run_ref(cfg, s, NULL, ref, 0, &res), 0);
	/* its description is not unique any more: no match by description */
	assert_int_equal(count(s, "topology.missing_link"), 1);
	assert_int_equal(count(s, "topology.unexpected_link"), 1);
	const struct fab_finding *f = first(s, "topology.missing_link");
	assert_string_equal(f->subject, "leaf001/2 <-> host0002 HCA-1/1");
	assert_string_equal(f->message, "the reference has this cable; now leaf001/2 is cabled to host0001 HCA-1 [..007777]/1, "
					"host0002 HCA-1 is not in the scan");
	assert_string_equal(f->node, "0x0000000000002000");
	assert_string_equal(f->peer_node, "0x0000000000003010");
	assert_string_equal(first(s, "topology.unexpected_link")->message,
			    "not in the reference: leaf001/2 had no cable there; host0001 HCA-1 [..007777] (ca) is a node the reference does not have");
	/* ... whereas a unique description matches */
	snprintf(s->nodes[h2].desc, FAB_DESC_CAP, "%s", "host0002 HCA-1");
	assert_int_equal(fab_rules_run_ref(cfg, s, NULL, ref, 0, &res), 0);
	assert_int_equal(s->n_findings, 0);
	fab_snapshot_free(s);

	/* a hole: the port is LinkUp but its remote end was not seen: silent */
	s = snapfix_fat_tree(2, 2, 2);
	uint32_t p = port_of(s, 0x2001, 19), q = s->ports[p].remote_idx;
	s->ports[p].remote_idx = s->ports[q].remote_idx = FAB_NONE;
	s->ports[p].flags |= FAB_F_NO_REMOTE;
	assert_int_equal(fab_snapshot_build_links(s), 0);
	assert_int_equal(fab_rules_run_ref(cfg, s, NULL, ref, 0, &res), 0);
	assert_int_equal(count(s, "topology.missing_link"), 0); /* node.unresponsive says it */
	assert_int_equal(count(s, "node.unresponsive"), 1);
	/* the same cable simply down: missing */
	s->ports[p].flags &= (uint8_t)~FAB_F_NO_REMOTE;
	s->ports[p].state = s->ports[q].state = FAB_STATE_DOWN;
	assert_int_equal(fab_rules_run_ref(cfg, s, NULL, ref, 0, &res), 0);
	assert_int_equal(count(s, "topology.missing_link"), 1);
	fab_snapshot_free(s);

	/* an unindexed reference is ignored rather than misread */
	s = snapfix_fat_tree(2, 2, 2);
	struct fab_snapshot *raw = fab_snapshot_new();
	assert_int_equal(fab_rules_run_ref(cfg, s, NULL, raw, 0, &res), 0);
	assert_int_equal(res.status[fab_rule_index(fab_rule_find("topology.missing_link"))],
			 FAB_RULE_NOT_REQUESTED);
	fab_snapshot_free(raw);
	fab_snapshot_free(s);
	fab_snapshot_free(ref);
	fab_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_config),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_expect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
