// SPDX-License-Identifier: MIT
/*
 * The VL and QoS tables a scan reads (scanner/qos.c): one sampled SL2VL
 * table (the scanning CA's switch's; the CA's own without a switch) and
 * nothing more when it is the default; every SL2VL and VLArbitration table
 * of the cabled ports when it is not (a QoS policy) or with all_qos
 * (--forensic); what each MAD asks (attribute modifiers)
 * and how its answer is stored; a table that does not answer left out and
 * named. On a working topology and a transport that answers at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/qos.h"
#include "fabsweep/routing.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "scanner/scan_priv.h"
#include "unit/scanner/wt_cable.h"
#include "unit/scanner/fake_smp.h"

/* The default SL2VL table: SL n to VL n, SL 15 to VL 7 (ibsim, OpenSM without -Q). */
static const uint8_t identity[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xe7 };
/* A policy's: SL n and n + 8 to VL n but SL 1 and 9 dropped (VL 15). */
static const uint8_t policy[8] = { 0x0f, 0x23, 0x45, 0x67, 0x0f, 0x23, 0x45, 0x67 };

struct fake {
	bool policy_at_ca;   /* the scanning CA's own table is the policy's */
	bool policy_at_sw;   /* the tables of the switch one hop away are */
	int n_sl2vl_ca;      /* SL2VL MADs to the scanning CA itself */
	uint64_t fail_dr;    /* VLArbitration MADs along this path's last port fail */
	int n_sl2vl, n_vlarb;
	uint32_t mods[256];  /* SL2VL modifiers asked of the switch one hop away */
	int n_mods;
	struct fake_smp_inbox in;
};

static int f_send(void *ctx, const uint8_t *mad, const struct fab_mad_req *req, int timeout_ms)
{
	struct fake *f = ctx;
	uint8_t *d = fake_smp_answer(&f->in, mad);

	(void)timeout_ms;
	if (req->attr_id == IB_ATTR_SLVL_TABLE) {
		f->n_sl2vl++;
		if (req->dr_hops == 1 && f->n_mods < 256)
			f->mods[f->n_mods++] = req->attr_mod;
		f->n_sl2vl_ca += req->dr_hops == 0;
		memcpy(d, (req->dr_hops == 0 && f->policy_at_ca) || (req->dr_hops == 1 && f->policy_at_sw) ?
			  policy : identity, 8);
	}
	if (req->attr_id == IB_ATTR_VL_ARBITRATION) {
		unsigned block = req->attr_mod >> 16;

		f->n_vlarb++;
		if (f->fail_dr && req->dr_hops == 2) { /* the far switch: an error status */
			mad_set_field(d - FAB_MAD_DATA_OFFS, 0, IB_DRSMP_STATUS_F, 0);
			mad_set_field(d - FAB_MAD_DATA_OFFS, 0, IB_MAD_STATUS_F, 0x1c);
		}
		/* low: VL i weight 4 (VL0 weight 0); high: VL0 weight 4 */
		for (unsigned i = 0; i < 8; i++) {
			d[2 * i] = (uint8_t)(block == 3 ? 0 : i);
			d[2 * i + 1] = (uint8_t)(block == 3 ? (i ? 0 : 4) : (i ? 4 : 0));
		}
	}
	return 0;
}

static int f_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	(void)wait_ms;
	return fake_smp_recv(&((struct fake *)ctx)->in, mad, status);
}

/* VL0-7 and arb entries in each arbitration table */
static void set_pi(struct wt *w, uint32_t n, unsigned p, unsigned state, unsigned lid, unsigned arb)
{
	uint8_t *pi = wt_test_pi(w, n, p, state, lid);

	mad_set_field(pi, 0, IB_PORT_OPER_VLS_F, 4);
	mad_set_field(pi, 0, IB_PORT_VL_CAP_F, 4);
	mad_set_field(pi, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, arb);
	mad_set_field(pi, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, arb);
}


/*
 * CA 0x10 (the scanning port, port GUID 0x11) on switch 0x20 port 1, CA
 * 0x30 on its port 2, switch 0x40 port 1 on its port 3 (two hops away),
 * port 4 down. Every port runs VL0-7 with 8-entry arbitration tables but
 * 0x30's, which has none (one VL's worth: nothing to arbitrate). With
 * back_to_back, CA 0x10 is cabled to CA 0x30 and the switches to nothing.
 */
static struct fab_snapshot *scan_qos_on(struct fake *f, bool all, bool back_to_back)
{
	struct fab_mad_transport tr = { .send = f_send, .recv = f_recv, .ctx = f };
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_scan_opts o;
	struct fab_madwin *mw;
	struct wt w = { 0 };

	fab_scan_opts_init(&o);
	o.all_qos = all;
	uint32_t a = wt_test_node(&w, 0x10, FAB_NODE_CA, 1, 0);
	uint32_t sw = wt_test_node(&w, 0x20, FAB_NODE_SWITCH, 4, 1);
	uint32_t b = wt_test_node(&w, 0x30, FAB_NODE_CA, 1, 2);
	uint32_t t = wt_test_node(&w, 0x40, FAB_NODE_SWITCH, 2, 2);
	w.nodes[a].entry_guid = 0x11;
	set_pi(&w, a, 1, FAB_STATE_ACTIVE, 9, 8);
	set_pi(&w, b, 1, FAB_STATE_ACTIVE, 10, 0);
	set_pi(&w, sw, 0, FAB_STATE_ACTIVE, 7, 0);
	for (unsigned p = 1; p <= 3; p++)
		set_pi(&w, sw, p, FAB_STATE_ACTIVE, 0, 8);
	set_pi(&w, sw, 4, FAB_STATE_DOWN, 0, 8);
	set_pi(&w, t, 0, FAB_STATE_ACTIVE, 8, 0);
	set_pi(&w, t, 1, FAB_STATE_ACTIVE, 0, 8);
	set_pi(&w, t, 2, FAB_STATE_DOWN, 0, 8);
	wt_port(&w, a, 1)->guid = 0x11;
	wt_port(&w, b, 1)->guid = 0x31;
	if (back_to_back) {
		wt_cable(&w, a, 1, b, 1);
	} else {
		wt_cable(&w, sw, 1, a, 1);
		wt_cable(&w, sw, 2, b, 1);
		wt_cable(&w, sw, 3, t, 1);
	}
	assert_int_equal(wt_to_snapshot(&w, s), 0);
	assert_int_equal(fab_madwin_new(&tr, 4, 100, 0, &mw), 0);
	assert_int_equal(fab_scan_qos(s, &w, mw, &o), 0);
	fab_madwin_free(mw);
	wt_free(&w);
	return s;
}

static struct fab_snapshot *scan_qos(struct fake *f, bool all)
{
	return scan_qos_on(f, all, false);
}

static uint32_t port_of(const struct fab_snapshot *s, uint64_t guid, unsigned num)
{
	uint32_t n = fab_snapshot_find_node(s, guid);
	const struct fab_port *p = n == FAB_NONE ? NULL : fab_snapshot_port(s, n, num);

	assert_non_null(p);
	return (uint32_t)(p - s->ports);
}

static void test_default_reads_one(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct fab_snapshot *s;

	(void)state;
	s = scan_qos(f, false);
	assert_int_equal(f->n_sl2vl, 1);    /* its switch's */
	assert_int_equal(f->n_sl2vl_ca, 0);
	assert_int_equal(f->n_vlarb, 0);    /* no VLArbitration MAD */
	assert_int_equal(f->n_mods, 1);
	assert_int_equal(f->mods[0], 1 << 8 | 2); /* in: the port facing us, out: the next cabled one */
	assert_null(s->qos);
	assert_null(s->routing);            /* nothing of the sample kept */
	fab_snapshot_free(s);
	free(f);
}

/* A policy on the CA ports only is not seen by the switch's sample (the
 * documented limit: --forensic reads it). */
static void test_ca_only_policy_not_seen(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct fab_snapshot *s;

	(void)state;
	f->policy_at_ca = true;
	s = scan_qos(f, false);
	assert_int_equal(f->n_sl2vl, 1);
	assert_int_equal(f->n_vlarb, 0);
	assert_null(s->qos);
	fab_snapshot_free(s);
	free(f);
}

/* No switch: the scanning CA's own table is the sample; a policy there is
 * seen and every table read. */
static void test_back_to_back(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct fab_snapshot *s;

	(void)state;
	s = scan_qos_on(f, false, true);
	assert_int_equal(f->n_sl2vl, 1);
	assert_int_equal(f->n_sl2vl_ca, 1);
	assert_null(s->qos);
	fab_snapshot_free(s);
	memset(f, 0, sizeof(*f));
	f->policy_at_ca = true;
	s = scan_qos_on(f, false, true);
	assert_non_null(s->qos);
	assert_int_equal(s->qos->reason, FAB_QOS_POLICY);
	assert_int_equal(f->n_sl2vl, 2);    /* the sample, then the other CA's (its own not again) */
	assert_int_equal(f->n_sl2vl_ca, 1);
	assert_int_equal(s->routing->n_sl2vl, 2);
	fab_snapshot_free(s);
	free(f);
}

/* What a scan that reads everything asks and keeps (policy or forensic). */
static void check_all(const struct fake *f, const struct fab_snapshot *s, unsigned reason)
{
	assert_non_null(s->qos);
	assert_int_equal(s->qos->reason, reason);
	/* SL2VL: 2 CA ports; 0x20: in 0-3, out 1-3 (4 is down), in != out: 9;
	 * 0x40: in 0 -> out 1; each once (the sample is not asked again) */
	assert_int_equal(f->n_sl2vl, 12);
	assert_int_equal(s->routing->n_sl2vl, 12);
	/* VLArbitration: 2 blocks (low, high) of 0x10/1, 0x20/1-3, 0x40/1; 0x30 has none */
	assert_int_equal(f->n_vlarb, 10);
	const uint32_t want[] = { 0x0001, 0x0002, 0x0003, 0x0102, 0x0103, 0x0201, 0x0203, 0x0301, 0x0302 };
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		bool seen = false;
		for (int i = 0; i < f->n_mods; i++)
			seen |= f->mods[i] == want[k];
		assert_true(seen);
	}
	/* the CA's own table: in 0, out its port, as answered */
	uint32_t ca = fab_snapshot_find_node(s, 0x10);
	const struct fab_sl2vl *t = fab_routing_sl2vl(s->routing, ca, 0, 1);
	assert_non_null(t);
	for (unsigned sl = 0; sl < 16; sl++)
		assert_int_equal(t->vl[sl], f->policy_at_ca ? (sl % 8 == 1 ? 15 : sl % 8) : (sl == 15 ? 7 : sl));
	/* the sampled switch table, kept with the others */
	t = fab_routing_sl2vl(s->routing, fab_snapshot_find_node(s, 0x20), 1, 2);
	assert_non_null(t);
	for (unsigned sl = 0; sl < 16; sl++)
		assert_int_equal(t->vl[sl], f->policy_at_sw ? (sl % 8 == 1 ? 15 : sl % 8) : (sl == 15 ? 7 : sl));
	/* a switch port's arbitration tables, entry by entry */
	const struct fab_vlarb *v = fab_qos_vlarb(s->qos, port_of(s, 0x20, 3));
	assert_non_null(v);
	assert_int_equal(v->n_low, 8);
	assert_int_equal(v->n_high, 8);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(v->low[i].vl, i);
		assert_int_equal(v->low[i].weight, i ? 4 : 0);
		assert_int_equal(v->high[i].weight, i ? 0 : 4);
	}
	assert_int_equal(fab_vlarb_weighted(v), 0xff);
	assert_null(fab_qos_vlarb(s->qos, port_of(s, 0x30, 1))); /* no tables to read */
}

static void test_policy_reads_all(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct fab_snapshot *s;

	(void)state;
	f->policy_at_sw = true;
	s = scan_qos(f, false);
	check_all(f, s, FAB_QOS_POLICY);
	assert_int_equal(s->n_errors, 0);
	fab_snapshot_free(s);
	free(f);
}

static void test_forensic_reads_all(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct fab_snapshot *s;

	(void)state;
	s = scan_qos(f, true); /* default tables, all_qos: no sample first */
	check_all(f, s, FAB_QOS_FORENSIC);
	fab_snapshot_free(s);
	free(f);
}

static void test_unanswered_left_out(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct fab_snapshot *s;

	(void)state;
	f->policy_at_sw = true;
	f->fail_dr = 1; /* switch 0x40's VLArbitration answers with an error */
	s = scan_qos(f, false);
	assert_null(fab_qos_vlarb(s->qos, port_of(s, 0x40, 1)));
	assert_non_null(fab_qos_vlarb(s->qos, port_of(s, 0x20, 1)));
	assert_int_equal(s->qos->n_vlarb, 4);
	size_t n = 0;
	for (size_t i = 0; i < s->n_errors; i++)
		if (!strcmp(s->errors[i].what, "qos")) {
			n++;
			assert_int_equal(s->errors[i].node_guid, 0x40);
			assert_non_null(strstr(s->errors[i].message, "2 of its 3 VL tables not read"));
		}
	assert_int_equal(n, 1);
	fab_snapshot_free(s);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_reads_one),
		cmocka_unit_test(test_ca_only_policy_not_seen),
		cmocka_unit_test(test_back_to_back),
		cmocka_unit_test(test_policy_reads_all),
		cmocka_unit_test(test_forensic_reads_all),
		cmocka_unit_test(test_unanswered_left_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
