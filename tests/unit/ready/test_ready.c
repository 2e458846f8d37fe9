// SPDX-License-Identifier: MIT
/*
 * Readiness without a fabric (scanner/ready.c): host names, the plan, and
 * every verdict from probe answers made up here; the partial snapshot loader
 * (store/view_io.c) against the whole-snapshot loader.
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
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/probe.h"
#include "fabsweep/routing.h"
#include "fabsweep/rules.h"
#include "fabsweep/store.h"
#include "fabsweep/store_view.h"
#include "unit/snapfix.h"

/* 2 spines, 2 leaves x 3 hosts: host0001-0003 on leaf001 ports 1-3. */
static struct fab_snapshot *fabric(void)
{
	struct fab_snapshot *s = snapfix_fat_tree(2, 2, 3);

	s->scan_id = 7;
	return s;
}

static uint32_t node_named(const struct fab_snapshot *s, const char *desc)
{
	for (uint32_t i = 0; i < s->n_nodes; i++)
		if (!strcmp(s->nodes[i].desc, desc))
			return i;
	fail_msg("no node '%s'", desc);
	return FAB_NONE;
}

static uint32_t port_of(const struct fab_snapshot *s, const char *desc, unsigned num)
{
	return (uint32_t)(fab_snapshot_port(s, node_named(s, desc), num) - s->ports);
}

/* ---- names -------------------------------------------------------------------------- */

static void test_name_matches(void **state)
{
	(void)state;
	assert_true(fab_ready_name_matches("host0001", "host0001 HCA-1"));
	assert_true(fab_ready_name_matches("host0001", "host0001"));
	assert_true(fab_ready_name_matches("HOST0001", "host0001 mlx5_0"));
	assert_true(fab_ready_name_matches("host0001", "host0001.cluster.example HCA-1"));
	assert_false(fab_ready_name_matches("host0001", "host00011 HCA-1"));
	assert_false(fab_ready_name_matches("host000", "host0001 HCA-1"));
	assert_false(fab_ready_name_matches("host0001", "x host0001"));
	assert_false(fab_ready_name_matches("", "host0001"));
	assert_false(fab_ready_name_matches("host0001", ""));
}

static void test_hosts_index(void **state)
{
	const char *names[] = { "node3", "node1", "Node3", "node2", "node1" };
	struct fab_ready_hosts *h;

	(void)state;
	assert_int_equal(fab_ready_hosts_new(names, 5, &h), 0);
	assert_int_equal(fab_ready_hosts_count(h), 3); /* repeats merged, first kept */
	assert_string_equal(fab_ready_hosts_name(h, 0), "node3");
	assert_string_equal(fab_ready_hosts_name(h, 1), "node1");
	assert_string_equal(fab_ready_hosts_name(h, 2), "node2");
	assert_null(fab_ready_hosts_name(h, 3));
	assert_int_equal(fab_ready_hosts_find(h, "node2 HCA-1"), 2);
	assert_int_equal(fab_ready_hosts_find(h, "NODE1 mlx5_0"), 1);
	assert_int_equal(fab_ready_hosts_find(h, "node3.cluster HCA-2"), 0);
	assert_int_equal(fab_ready_hosts_find(h, "node4 HCA-1"), (size_t)-1);
	assert_int_equal(fab_ready_hosts_find(h, "node HCA-1"), (size_t)-1);
	assert_int_equal(fab_ready_hosts_find(h, ""), (size_t)-1);
	assert_int_equal(fab_ready_hosts_find(h, " node1"), (size_t)-1);
	/* a map name counts too */
	struct fab_nodemap *m;
	const char *text = "0x0000000000000042 \"node2 (row B)\"\n";
	assert_int_equal(fab_nodemap_parse(text, strlen(text), "map", &m), 0);
	assert_true(fab_ready_hosts_want(h, m, 0x42, "MT4123 ConnectX6 Mellanox Technologies"));
	assert_false(fab_ready_hosts_want(h, m, 0x43, "MT4123 ConnectX6 Mellanox Technologies"));
	assert_false(fab_ready_hosts_want(h, NULL, 0x42, "MT4123 ConnectX6 Mellanox Technologies"));
	fab_nodemap_free(m);
	fab_ready_hosts_free(h);
}

/* ---- plans and verdicts ------------------------------------------------------------------ */

struct run {
	struct fab_snapshot *s;
	struct fab_ready_hosts *h;
	struct fab_ready *r;
};

static void plan(struct run *x, const char *const *names, size_t n)
{
	x->s = fabric();
	assert_int_equal(fab_ready_hosts_new(names, n, &x->h), 0);
	assert_int_equal(fab_ready_plan(x->s, x->h, NULL, &x->r), 0);
}

/* What a healthy fabric answers: every node at its LID, PortInfo as in the
 * snapshot, counters as in its sample. */
static void answer_healthy(struct run *x)
{
	for (size_t i = 0; i < x->r->n_ports; i++) {
		struct fab_probe_port *t = &x->r->ports[i];
		const struct fab_port *p = &x->s->ports[t->port_idx];
		const struct fab_node *n = &x->s->nodes[p->node_idx];

		t->lid = n->type == FAB_NODE_SWITCH ? n->lid : p->lid;
		t->node_err = t->info_err = t->ctr_err = 0;
		t->node_guid = n->guid;
		t->live = *p;
		memset(&t->ctr, 0, sizeof(t->ctr));
		t->ctr.port_idx = t->port_idx;
		t->ctr.valid = (1u << 12) - 1; /* the error counters, all 0 as sampled */
	}
}

static struct fab_probe_port *target(struct run *x, uint32_t port)
{
	for (size_t i = 0; i < x->r->n_ports; i++)
		if (x->r->ports[i].port_idx == port)
			return &x->r->ports[i];
	fail_msg("port %u is not planned", port);
	return NULL;
}

/* The limits `fabsweep ready` uses: the rules' increase parameters, as the
 * config text (NULL: the defaults) sets them. */
static void limits_of(const char *conf, struct fab_counter_limits *out)
{
	struct fab_config *cfg = NULL;

	if (conf)
		assert_int_equal(fab_config_parse(conf, strlen(conf), "test.conf", &cfg), 0);
	fab_rules_increase_limits(cfg, out);
	fab_config_free(cfg);
}

static void evaluate_with(struct run *x, const char *conf, unsigned fail_on)
{
	struct fab_counter_limits lim;

	limits_of(conf, &lim);
	assert_int_equal(fab_ready_evaluate(x->r, x->s, x->h, NULL, &lim, fail_on), 0);
}

static void evaluate(struct run *x, unsigned fail_on)
{
	evaluate_with(x, NULL, fail_on);
}

static void done(struct run *x)
{
	fab_ready_free(x->r);
	fab_ready_hosts_free(x->h);
	fab_snapshot_free(x->s);
}

static void expect_problem(const struct run *x, size_t i, size_t host, uint8_t verdict,
			   const char *text)
{
	assert_true(i < x->r->n_problems);
	assert_int_equal(x->r->problems[i].host, host);
	assert_int_equal(x->r->problems[i].verdict, verdict);
	assert_string_equal(x->r->problems[i].text, text);
}

static void test_plan(void **state)
{
	const char *names[] = { "host0002", "host0005", "host0099" };
	struct run x;

	(void)state;
	plan(&x, names, 3);
	/* two CA ports and the two leaf ports they attach to */
	assert_int_equal(x.r->n_ports, 4);
	assert_int_equal(x.r->n_hosts, 3);
	assert_int_equal(x.r->ca_of[node_named(x.s, "host0002 HCA-1")], 1);
	assert_int_equal(x.r->ca_of[node_named(x.s, "host0005 HCA-1")], 2);
	target(&x, port_of(x.s, "leaf001", 2));
	target(&x, port_of(x.s, "leaf002", 2));
	done(&x);
}

static void test_healthy(void **state)
{
	const char *names[] = { "host0001", "host0002", "host0003", "host0004" };
	struct run x;

	(void)state;
	plan(&x, names, 4);
	answer_healthy(&x);
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 0);
	assert_int_equal(fab_ready_overall(x.r), FAB_READY_OK);
	done(&x);
}

static void test_degraded(void **state)
{
	const char *names[] = { "host0001", "host0002" };
	struct run x;

	(void)state;
	plan(&x, names, 2);
	answer_healthy(&x);
	target(&x, port_of(x.s, "host0002 HCA-1", 1))->live.width_active = FAB_WIDTH_1X;
	target(&x, port_of(x.s, "host0002 HCA-1", 1))->live.speed_active = FAB_SPEED_EDR;
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 2);
	expect_problem(&x, 0, 1, FAB_READY_NOT_READY,
		       "link host0002 HCA-1/1 <-> leaf001/2 runs 1X (4X at scan 7)");
	expect_problem(&x, 1, 1, FAB_READY_NOT_READY,
		       "link host0002 HCA-1/1 <-> leaf001/2 runs at EDR (HDR at scan 7)");
	assert_int_equal(x.r->verdict[0], FAB_READY_OK);
	assert_int_equal(x.r->verdict[1], FAB_READY_NOT_READY);
	assert_int_equal(fab_ready_overall(x.r), FAB_READY_NOT_READY);
	/* evaluating again replaces, never adds */
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 2);
	done(&x);
}

static void test_down_and_silent(void **state)
{
	const char *names[] = { "host0001", "host0002", "host0003" };
	struct run x;
	struct fab_probe_port *t;

	(void)state;
	plan(&x, names, 3);
	answer_healthy(&x);
	/* host0001: its switch port went down */
	t = target(&x, port_of(x.s, "leaf001", 1));
	t->live.state = FAB_STATE_DOWN;
	t->live.phys_state = FAB_PHYS_POLLING;
	/* host0002: its HCA does not answer, the switch port is active */
	t = target(&x, port_of(x.s, "host0002 HCA-1", 1));
	t->node_err = t->info_err = t->ctr_err = -ETIMEDOUT;
	/* host0003: the switch does not answer: could not check that end */
	t = target(&x, port_of(x.s, "leaf001", 3));
	t->info_err = t->ctr_err = -ETIMEDOUT;
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 3);
	expect_problem(&x, 0, 0, FAB_READY_NOT_READY,
		       "link host0001 HCA-1/1 <-> leaf001/1 is down/polling at leaf001/1 (active at scan 7)");
	expect_problem(&x, 1, 1, FAB_READY_NOT_READY,
		       "host0002 HCA-1/1 (LID 6) did not answer (no answer) although leaf001/2 is active");
	expect_problem(&x, 2, 2, FAB_READY_UNKNOWN,
		       "leaf001/3 (LID 3) did not answer (no answer): its end of the link is not checked");
	assert_int_equal(x.r->verdict[2], FAB_READY_UNKNOWN);
	assert_int_equal(fab_ready_overall(x.r), FAB_READY_NOT_READY);
	done(&x);
}

static void test_identity(void **state)
{
	const char *names[] = { "host0001" };
	struct run x;

	(void)state;
	plan(&x, names, 1);
	answer_healthy(&x);
	target(&x, port_of(x.s, "host0001 HCA-1", 1))->node_guid = 0x99;
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 1);
	expect_problem(&x, 0, 0, FAB_READY_UNKNOWN,
		       "LID 5 answers as 0x0000000000000099, not as host0001 HCA-1/1 (0x0000000000003000): "
		       "the LIDs changed since scan 7; run a sweep");
	assert_int_equal(fab_ready_overall(x.r), FAB_READY_UNKNOWN);
	done(&x);
}

static void test_no_answer_at_all(void **state)
{
	const char *names[] = { "host0001", "host0004" };
	struct run x;

	(void)state;
	plan(&x, names, 2);
	answer_healthy(&x);
	for (size_t i = 0; i < x.r->n_ports; i++)
		x.r->ports[i].node_err = x.r->ports[i].info_err = x.r->ports[i].ctr_err = -ETIMEDOUT;
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 2);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(x.r->problems[i].verdict, FAB_READY_UNKNOWN);
	assert_non_null(strstr(x.r->problems[0].text, "no LID answered the probe at all"));
	assert_int_equal(fab_ready_overall(x.r), FAB_READY_UNKNOWN);
	done(&x);
}

static void test_counters(void **state)
{
	const char *names[] = { "host0001", "host0002", "host0003" };
	struct run x;
	struct fab_probe_port *t;

	(void)state;
	plan(&x, names, 3);
	answer_healthy(&x);
	/* host0001: its switch port counted symbol errors and a link down */
	t = target(&x, port_of(x.s, "leaf001", 1));
	t->ctr.v[FAB_CTR_SYMBOL_ERRORS] = 25;
	t->ctr.v[FAB_CTR_LINK_DOWNED] = 1;
	/* host0002: 9 discards (limit 10) and remote physical errors (not counted) */
	t = target(&x, port_of(x.s, "host0002 HCA-1", 1));
	t->ctr.v[FAB_CTR_XMIT_DISCARDS] = 9;
	t->ctr.v[FAB_CTR_RCV_REMOTE_PHYS_ERRORS] = 500;
	/* host0003: a counter went down (cleared) to 3; another saturated */
	const struct fab_counter_sample *c0 =
		fab_snapshot_sample(x.s, port_of(x.s, "host0003 HCA-1", 1), 0);
	((struct fab_counter_sample *)c0)->v[FAB_CTR_RCV_ERRORS] = 100;
	((struct fab_counter_sample *)c0)->v[FAB_CTR_SYMBOL_ERRORS] = 70000; /* 64 bit */
	t = target(&x, port_of(x.s, "host0003 HCA-1", 1));
	t->ctr.v[FAB_CTR_RCV_ERRORS] = 3;
	t->ctr.v[FAB_CTR_SYMBOL_ERRORS] = 65535; /* saturated 16 bit: cannot tell */
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 2);
	expect_problem(&x, 0, 0, FAB_READY_NOT_READY,
		       "leaf001/1 error counters rose since scan 7: SymbolErrorCounter +25 (0 -> 25), "
		       "LinkDownedCounter +1 (0 -> 1)");
	expect_problem(&x, 1, 2, FAB_READY_NOT_READY,
		       "host0003 HCA-1/1 error counters rose since scan 7: PortRcvErrors +3 or more "
		       "(100 -> 3, cleared in between)");
	assert_int_equal(x.r->verdict[1], FAB_READY_OK);
	/* counters that cannot be read: could not check */
	t = target(&x, port_of(x.s, "host0002 HCA-1", 1));
	t->ctr_err = -EREMOTEIO;
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->verdict[1], FAB_READY_UNKNOWN);
	assert_string_equal(x.r->problems[1].text,
			    "the counters of host0002 HCA-1/1 could not be read (an error status)");
	/* the limits are the rules' parameters: the config moves them */
	t->ctr_err = 0;
	evaluate_with(&x, "[increase]\nPortXmitDiscards = 5\n[rules]\nport.link_flapping = off\n",
		      FAB_SEV_ERROR);
	assert_int_equal(x.r->verdict[1], FAB_READY_NOT_READY);
	expect_problem(&x, 0, 0, FAB_READY_NOT_READY,
		       "leaf001/1 error counters rose since scan 7: SymbolErrorCounter +25 (0 -> 25)");
	expect_problem(&x, 1, 1, FAB_READY_NOT_READY,
		       "host0002 HCA-1/1 error counters rose since scan 7: PortXmitDiscards +9 (0 -> 9)");
	struct fab_counter_limits lim;
	limits_of(NULL, &lim);
	assert_true(lim.allowed[FAB_CTR_SYMBOL_ERRORS] == 0);
	assert_true(lim.allowed[FAB_CTR_XMIT_DISCARDS] == 9);
	assert_true(lim.allowed[FAB_CTR_LINK_DOWNED] == 0); /* port.link_flapping's */
	assert_true(lim.allowed[FAB_CTR_RCV_SWITCH_RELAY_ERRORS] < 0);
	assert_true(lim.allowed[FAB_CTR_XMIT_DATA] < 0);
	done(&x);
}

static void add_finding(struct fab_snapshot *s, const char *rule, uint8_t sev, const char *node,
			const char *port, const char *peer, const char *peer_port, const char *subject)
{
	struct fab_finding f = { .rule_id = rule, .severity = sev, .node = node, .port = port,
				 .peer_node = peer, .peer_port = peer_port, .subject = subject,
				 .message = "made up" };
	assert_int_equal(fab_snapshot_add_finding(s, &f), 0);
}

static void test_findings_and_unknown(void **state)
{
	const char *names[] = { "host0001", "host0002", "host0003", "host0042" };
	struct run x;

	(void)state;
	plan(&x, names, 4);
	answer_healthy(&x);
	/* about host0001's switch port (named by the port), about leaf001 as a
	 * whole (all its hosts), a warning about host0003 */
	add_finding(x.s, "port.errors", FAB_SEV_ERROR, "0x0000000000002000", "1", NULL, NULL, "leaf001/1");
	add_finding(x.s, "node.unresponsive", FAB_SEV_ERROR, "0x0000000000002000", NULL, NULL, NULL, "leaf001");
	add_finding(x.s, "port.congestion", FAB_SEV_WARNING, "0x0000000000003020", "1", NULL, NULL,
		    "host0003 HCA-1/1");
	add_finding(x.s, "port.errors", FAB_SEV_ERROR, "0x0000000000002001", "1", NULL, NULL, "leaf002/1");
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 5);
	expect_problem(&x, 0, 0, FAB_READY_NOT_READY, "scan 7: error port.errors leaf001/1: made up");
	expect_problem(&x, 1, 0, FAB_READY_NOT_READY, "scan 7: error node.unresponsive leaf001: made up");
	expect_problem(&x, 2, 1, FAB_READY_NOT_READY, "scan 7: error node.unresponsive leaf001: made up");
	expect_problem(&x, 3, 2, FAB_READY_NOT_READY, "scan 7: error node.unresponsive leaf001: made up");
	expect_problem(&x, 4, 3, FAB_READY_UNKNOWN,
		       "not in scan 7: no channel adapter whose description starts with 'host0042'");
	evaluate(&x, FAB_SEV_WARNING);
	assert_int_equal(x.r->n_problems, 6);
	evaluate(&x, FAB_SEV__COUNT); /* never */
	assert_int_equal(x.r->n_problems, 1);
	done(&x);
}

static void test_no_link(void **state)
{
	const char *names[] = { "host0001" };
	struct run x;

	(void)state;
	x.s = fabric();
	/* host0001's port was down at the sweep: no link, no LID */
	struct fab_port *p = &x.s->ports[port_of(x.s, "host0001 HCA-1", 1)];
	x.s->ports[p->remote_idx].remote_idx = FAB_NONE;
	p->remote_idx = FAB_NONE;
	assert_int_equal(fab_ready_hosts_new(names, 1, &x.h), 0);
	assert_int_equal(fab_ready_plan(x.s, x.h, NULL, &x.r), 0);
	assert_int_equal(x.r->n_ports, 0);
	evaluate(&x, FAB_SEV_ERROR);
	assert_int_equal(x.r->n_problems, 1);
	expect_problem(&x, 0, 0, FAB_READY_UNKNOWN,
		       "'host0001 HCA-1' had no link in scan 7 (its ports were down): nothing to probe; run a sweep");
	done(&x);
}

/* ---- the partial loader ------------------------------------------------------------------ */

static bool want_hosts(uint64_t guid, const char *desc, void *ctx)
{
	(void)guid;
	return fab_ready_hosts_find(ctx, desc) != (size_t)-1;
}

static void test_load_view(void **state)
{
	char path[512];
	const char *tmp = getenv("TMPDIR");
	struct fab_store *st;
	struct fab_snapshot *s = fabric(), *v, *whole;
	struct fab_ready_hosts *h;
	const char *names[] = { "host0002", "host0004", "nobody" };

	(void)state;
	snprintf(path, sizeof(path), "%s/ready_view_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	unlink(path);
	s->scan_id = 0;
	add_finding(s, "port.errors", FAB_SEV_ERROR, "0x0000000000002000", "2", "0x0000000000003010", "1",
		    "leaf001/2 <-> host0002 HCA-1/1");
	add_finding(s, "sm.none", FAB_SEV_ERROR, NULL, NULL, NULL, NULL, "fabric");
	add_finding(s, "port.errors", FAB_SEV_ERROR, "0x0000000000001000", "1", NULL, NULL, "spine001/1");
	assert_int_equal(fab_store_open(path, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	assert_int_equal(fab_ready_hosts_new(names, 3, &h), 0);
	assert_int_equal(fab_store_load_view(st, 0, want_hosts, h, &v), 0);
	assert_int_equal(fab_store_load_scan(st, 0, &whole), 0);
	/* host0002, host0004, leaf001 (port 0, 2), leaf002 (port 0, 1) */
	assert_int_equal(v->n_nodes, 4);
	assert_int_equal(v->n_ports, 6);
	assert_int_equal(v->scan_id, 1);
	assert_int_equal(v->n_links, 2);
	assert_int_equal(v->n_samples, 4); /* the CA ports and the leaf ports */
	assert_int_equal(v->n_findings, 1); /* the one naming host0002 */
	assert_string_equal(v->findings[0].subject, "leaf001/2 <-> host0002 HCA-1/1");
	/* every port in the view is the whole snapshot's port */
	for (size_t i = 0; i < v->n_ports; i++) {
		const struct fab_port *p = &v->ports[i];
		uint32_t wn = fab_snapshot_find_node(whole, v->nodes[p->node_idx].guid);
		const struct fab_port *w = fab_snapshot_port(whole, wn, p->port_num);
		assert_non_null(w);
		assert_int_equal(p->lid, w->lid);
		assert_int_equal(p->state, w->state);
		assert_int_equal(p->width_active, w->width_active);
		assert_int_equal(p->speed_active, w->speed_active);
		assert_int_equal(p->cap_mask, w->cap_mask);
		assert_int_equal(p->remote_guid, w->remote_guid);
	}
	assert_int_equal(v->nodes[fab_snapshot_find_node(v, 0x2000)].lid,
			 whole->nodes[fab_snapshot_find_node(whole, 0x2000)].lid);
	/* the view plans like the whole snapshot */
	struct fab_ready *r1, *r2;
	assert_int_equal(fab_ready_plan(v, h, NULL, &r1), 0);
	assert_int_equal(fab_ready_plan(whole, h, NULL, &r2), 0);
	assert_int_equal(r1->n_ports, r2->n_ports);
	fab_ready_free(r1);
	fab_ready_free(r2);
	/* nobody picked: an empty view of the scan */
	fab_snapshot_free(v);
	const char *none[] = { "zzz" };
	struct fab_ready_hosts *h2;
	assert_int_equal(fab_ready_hosts_new(none, 1, &h2), 0);
	assert_int_equal(fab_store_load_view(st, 0, want_hosts, h2, &v), 0);
	assert_int_equal(v->n_nodes, 0);
	assert_int_equal(v->scan_id, 1);
	fab_snapshot_free(v);
	assert_int_equal(fab_store_load_view(st, 5, want_hosts, h2, &v), -ENOENT);
	fab_ready_hosts_free(h2);
	fab_ready_hosts_free(h);
	fab_snapshot_free(whole);
	fab_snapshot_free(s);
	fab_store_close(st);
	unlink(path);
	char p2[600];
	snprintf(p2, sizeof(p2), "%s-wal", path);
	unlink(p2);
	snprintf(p2, sizeof(p2), "%s-shm", path);
	unlink(p2);
}

/* ---- the view along the routes ------------------------------------------------------------ */

/* "guid/port" of a port of v, appended to buf. */
static void put_port(char *buf, size_t len, const struct fab_snapshot *v, uint32_t port)
{
	size_t n = strlen(buf);

	if (port == FAB_NONE || port >= v->n_ports)
		snprintf(buf + n, len - n, "-");
	else
		snprintf(buf + n, len - n, "%llx/%u",
			 (unsigned long long)v->nodes[v->ports[port].node_idx].guid, v->ports[port].port_num);
}

/* What ready finds on the routes between hosts h in view v, as text: each
 * hop (both ends) in order, then each pair whose route breaks (fault,
 * where). The probe's answers are left empty: the hops judge unknown. */
static void route_facts(const struct fab_snapshot *v, const struct fab_ready_hosts *h, char *buf,
			size_t len)
{
	struct fab_ready *r;
	struct fab_ready_hops hops;
	struct fab_ready_pairs pairs = { 0 };
	struct fab_counter_limits lim = { 0 };

	buf[0] = '\0';
	assert_int_equal(fab_ready_plan(v, h, NULL, &r), 0);
	assert_int_equal(fab_ready_hops_plan(r, v, &hops), 0);
	assert_true(hops.judged);
	assert_int_equal(fab_ready_hops_judge(&hops, r, v, NULL, &lim, &pairs), 0);
	for (size_t i = 0; i < hops.n_hops; i++) {
		put_port(buf, len, v, hops.hops[i].port);
		strncat(buf, ">", len - strlen(buf) - 1);
		put_port(buf, len, v, hops.hops[i].peer);
		strncat(buf, " ", len - strlen(buf) - 1);
	}
	for (size_t i = 0; i < pairs.n_listed; i++) {
		const struct fab_ready_pair *p = &pairs.failing[i];
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "| %u->%u %s at ", p->a, p->b, fab_route_fault_name(p->fault));
		put_port(buf, len, v, p->at);
	}
	fab_ready_pairs_free(&pairs);
	fab_ready_hops_free(&hops);
	fab_ready_free(r);
}

/* The hops' note: none with tables and two cabled hosts, none for one host
 * asked; "no forwarding tables" without tables; with fewer than two of the
 * hosts cabled there is no route to check, whatever the tables (a view of
 * uncabled hosts holds no switch, so no table either: that is not "the
 * sweep has none"). */
static const char *hops_note(const struct fab_snapshot *v, const char *const *names, size_t n,
			     bool *judged)
{
	struct fab_ready_hosts *h;
	struct fab_ready *r;
	struct fab_ready_hops hops;
	struct fab_ready_pairs pairs = { 0 };
	struct fab_counter_limits lim = { 0 };

	assert_int_equal(fab_ready_hosts_new(names, n, &h), 0);
	assert_int_equal(fab_ready_plan(v, h, NULL, &r), 0);
	assert_int_equal(fab_ready_hops_plan(r, v, &hops), 0);
	*judged = hops.judged;
	/* judging what was planned works whatever the note */
	assert_int_equal(fab_ready_hops_judge(&hops, r, v, NULL, &lim, &pairs), 0);
	assert_int_equal(pairs.n_route_failing, 0);
	fab_ready_pairs_free(&pairs);
	const char *note = hops.note; /* a constant */
	fab_ready_hops_free(&hops);
	fab_ready_free(r);
	fab_ready_hosts_free(h);
	return note;
}

static void note_has(const struct fab_snapshot *v, const char *const *names, size_t n,
		     const char *want)
{
	bool judged;
	const char *note = hops_note(v, names, n, &judged);

	assert_false(judged);
	assert_non_null(note);
	assert_non_null(strstr(note, want));
}

static void test_hops_note(void **state)
{
	const char *names[] = { "host0001", "host0004" };
	struct fab_snapshot *s = fabric();
	bool judged;

	(void)state;
	assert_int_equal(fabfix_route_minhop(s), 0);
	assert_null(hops_note(s, names, 2, &judged));
	assert_true(judged);
	/* one host asked (the prolog's node scope): no pair, no note */
	assert_null(hops_note(s, names, 1, &judged));
	assert_true(judged);
	/* host0004 uncabled: one host left, no route */
	struct fab_port *p4 = &s->ports[port_of(s, "host0004 HCA-1", 1)];
	uint32_t peer = p4->remote_idx;
	p4->remote_idx = FAB_NONE;
	note_has(s, names, 2, "fewer than two of the hosts");
	/* without tables as well: still no route to check */
	fab_routing_free(s->routing);
	s->routing = NULL;
	note_has(s, names, 2, "fewer than two of the hosts");
	assert_null(hops_note(s, names, 1, &judged)); /* one host, no tables: nothing to say */
	assert_true(judged);
	/* both cabled, no tables: the sweep has none */
	p4->remote_idx = peer;
	note_has(s, names, 2, "no forwarding tables");
	fab_snapshot_free(s);
}

/* The view ready grows along the routes (fab_pipeline_ready_view) gives
 * the hops and the broken routes the whole scan gives, from a few of its
 * switches: on a healthy min-hop fat tree, then with a host's LID dropped
 * by every spine and a leaf's uplink down. */
static void test_paths_view(void **state)
{
	char path[512], want[16384], got[16384];
	const char *tmp = getenv("TMPDIR");
	struct fab_snapshot *s = snapfix_fat_tree(4, 6, 4), *v, *whole;
	const char *names[] = { "host0001", "host0002", "host0006", "host0011", "host0023" };
	struct fab_ready_hosts *h;
	struct fab_store *st;

	(void)state;
	snprintf(path, sizeof(path), "%s/ready_paths_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	unlink(path);
	assert_int_equal(fabfix_route_minhop(s), 0);
	assert_int_equal(fabfix_pkeys_default(s, NULL, 0), 0);
	s->scan_id = 0;
	assert_int_equal(fab_store_open(path, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	assert_int_equal(fab_ready_hosts_new(names, 5, &h), 0);
	for (int round = 0; round < 2; round++) {
		unsigned reads = 0;

		assert_int_equal(fab_pipeline_ready_view(st, 0, h, NULL, &v, &reads), 0);
		assert_int_equal(fab_store_load_scan(st, 0, &whole), 0);
		route_facts(whole, h, want, sizeof(want));
		route_facts(v, h, got, sizeof(got));
		assert_string_equal(got, want);
		assert_non_null(strchr(want, '>'));
		/* the hosts' leaves, then the spines: 3 reads; not every node */
		assert_int_equal(reads, 3);
		assert_true(v->n_nodes < whole->n_nodes);
		if (round)
			assert_non_null(strstr(want, "no_entry"));
		fab_snapshot_free(v);
		fab_snapshot_free(whole);
		/* every spine drops host0011's LID; leaf001's first uplink goes down */
		uint32_t host = fab_snapshot_find_node(s, 0x3000 + 10 * 16);
		uint16_t lid = s->ports[s->nodes[host].port_first].lid;
		for (size_t i = 0; i < s->routing->n_lfts; i++)
			if (s->nodes[s->routing->lfts[i].node_idx].guid < 0x2000)
				((uint8_t *)s->routing->lfts[i].port)[lid] = FAB_LFT_NO_PORT;
		fabfix_uncable(s, fab_snapshot_find_node(s, 0x2000), 19);
		assert_int_equal(fab_snapshot_build_links(s), 0);
		assert_int_equal(fab_snapshot_index(s), 0);
		s->scan_id = 0;
		assert_int_equal(fab_store_write_scan(st, s), 0);
	}
	fab_ready_hosts_free(h);
	fab_store_close(st);
	fab_snapshot_free(s);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_matches),
		cmocka_unit_test(test_hosts_index),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_down_and_silent),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_no_answer_at_all),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_findings_and_unknown),
		cmocka_unit_test(test_no_link),
		cmocka_unit_test(test_load_view),
		cmocka_unit_test(test_paths_view),
		cmocka_unit_test(test_hops_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
