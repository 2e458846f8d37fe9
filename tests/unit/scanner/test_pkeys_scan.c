// SPDX-License-Identifier: MIT
/*
 * Which P_Key tables a scan reads (scanner/pkeys.c): every cabled CA port;
 * a cabled switch external port only where its PortInfo says it enforces
 * partitions (inbound or outbound), every cabled one with all_pkeys
 * (--forensic). ibsim keeps no enforcement bits, so the enforcing case is
 * proven here, on a working topology and a transport that answers at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/pkey.h"
#include "fabsweep/routing.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "scanner/scan_priv.h"
#include "unit/scanner/wt_cable.h"
#include "unit/scanner/fake_smp.h"

/* Answers SwitchInfo with PartitionEnforcementCap 32 and every P_KeyTable
 * block with 0xffff first, counting the P_KeyTable MADs. */
struct fake {
	int n_pkey_mads;
	struct fake_smp_inbox in;
};

static int f_send(void *ctx, const uint8_t *mad, const struct fab_mad_req *req, int timeout_ms)
{
	struct fake *f = ctx;
	uint8_t *d = fake_smp_answer(&f->in, mad);

	(void)timeout_ms;
	if (req->attr_id == IB_ATTR_SWITCH_INFO)
		mad_set_field(d, 0, IB_SW_PARTITION_ENFORCE_CAP_F, 32);
	if (req->attr_id == IB_ATTR_PKEY_TBL) {
		f->n_pkey_mads++;
		d[0] = 0xff;
		d[1] = 0xff;
	}
	return 0;
}

static int f_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	(void)wait_ms;
	return fake_smp_recv(&((struct fake *)ctx)->in, mad, status);
}

static void set_pi(struct wt *w, uint32_t n, unsigned p, unsigned state, unsigned lid,
		   bool enf_in, bool enf_out)
{
	uint8_t *pi = wt_test_pi(w, n, p, state, lid);

	mad_set_field(pi, 0, IB_PORT_PART_EN_INB_F, enf_in);
	mad_set_field(pi, 0, IB_PORT_PART_EN_OUTB_F, enf_out);
}


/*
 * Switch 0x20: port 1 -> CA 0x10 (enforces inbound), port 2 -> CA 0x30
 * (does not enforce), port 3 -> switch 0x40 port 1 (enforces outbound),
 * port 4 down. Switch 0x40 enforces nothing. Returns the number of tables
 * read and sets *mads.
 */
static size_t scan_pkeys(bool all, int *mads, struct fab_snapshot **out)
{
	static struct fake f;
	struct fab_mad_transport tr = { .send = f_send, .recv = f_recv, .ctx = &f };
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_scan_opts o;
	struct fab_madwin *mw;
	struct wt w = { 0 };

	memset(&f, 0, sizeof(f));
	fab_scan_opts_init(&o);
	o.all_pkeys = all;
	uint32_t sw = wt_test_node(&w, 0x20, FAB_NODE_SWITCH, 4, 0);
	uint32_t a = wt_test_node(&w, 0x10, FAB_NODE_CA, 1, 1);
	uint32_t b = wt_test_node(&w, 0x30, FAB_NODE_CA, 1, 1);
	uint32_t t = wt_test_node(&w, 0x40, FAB_NODE_SWITCH, 2, 1);
	set_pi(&w, sw, 0, FAB_STATE_ACTIVE, 7, false, false);
	set_pi(&w, sw, 1, FAB_STATE_ACTIVE, 0, true, false);
	set_pi(&w, sw, 2, FAB_STATE_ACTIVE, 0, false, false);
	set_pi(&w, sw, 3, FAB_STATE_ACTIVE, 0, false, true);
	set_pi(&w, sw, 4, FAB_STATE_DOWN, 0, true, true);
	set_pi(&w, a, 1, FAB_STATE_ACTIVE, 9, false, false);
	set_pi(&w, b, 1, FAB_STATE_ACTIVE, 10, false, false);
	set_pi(&w, t, 0, FAB_STATE_ACTIVE, 8, false, false);
	set_pi(&w, t, 1, FAB_STATE_ACTIVE, 0, false, false);
	set_pi(&w, t, 2, FAB_STATE_DOWN, 0, false, false);
	wt_port(&w, a, 1)->guid = 0x11;
	wt_port(&w, b, 1)->guid = 0x31;
	wt_cable(&w, sw, 1, a, 1);
	wt_cable(&w, sw, 2, b, 1);
	wt_cable(&w, sw, 3, t, 1);
	assert_int_equal(wt_to_snapshot(&w, s), 0);
	assert_int_equal(fab_madwin_new(&tr, 4, 100, 0, &mw), 0);
	assert_int_equal(fab_scan_pkeys(s, &w, mw, &o), 0);
	fab_madwin_free(mw);
	wt_free(&w);
	*mads = f.n_pkey_mads;
	*out = s;
	return s->pkeys ? s->pkeys->n : 0;
}

/* Whether node guid's port has a table that was read (status ok). */
static bool read_ok(const struct fab_snapshot *s, uint64_t guid, unsigned port)
{
	for (size_t i = 0; i < s->n_nodes; i++) {
		if (s->nodes[i].guid != guid)
			continue;
		const struct fab_port *p = fab_snapshot_port(s, (uint32_t)i, port);
		const struct fab_port_pkeys *t = p ? fab_pkeys_of(s, (uint32_t)(p - s->ports)) : NULL;
		return t && t->status == FAB_LFT_OK && t->n == 1 && t->pkey[0] == 0xffff;
	}
	return false;
}

static void test_enforcing_switch_ports_only(void **state)
{
	struct fab_snapshot *s;
	int mads;

	(void)state;
	assert_int_equal(scan_pkeys(false, &mads, &s), 4);
	assert_true(read_ok(s, 0x10, 1)); /* CA ports always */
	assert_true(read_ok(s, 0x30, 1));
	assert_true(read_ok(s, 0x20, 1)); /* enforces inbound */
	assert_true(read_ok(s, 0x20, 3)); /* enforces outbound */
	assert_false(read_ok(s, 0x20, 2)); /* enforces nothing: not read */
	assert_false(read_ok(s, 0x40, 1));
	assert_false(read_ok(s, 0x20, 4)); /* down, though its bits are set */
	assert_int_equal(mads, 4);          /* one block each (cap 32) */
	const struct fab_port *p = fab_snapshot_port(s, 1, 1); /* 0x20 sorts second */
	assert_non_null(p);
	assert_int_equal(fab_pkeys_of(s, (uint32_t)(p - s->ports))->enforce, FAB_PKEY_ENF_INB);
	fab_snapshot_free(s);
}

static void test_all_pkeys(void **state)
{
	struct fab_snapshot *s;
	int mads;

	(void)state;
	assert_int_equal(scan_pkeys(true, &mads, &s), 6);
	assert_true(read_ok(s, 0x20, 2));
	assert_true(read_ok(s, 0x40, 1));
	assert_false(read_ok(s, 0x20, 4));
	assert_int_equal(mads, 6);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enforcing_switch_ports_only),
		cmocka_unit_test(test_all_pkeys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
