// SPDX-License-Identifier: MIT
/*
 * Working topology -> snapshot: port order and numbering, remote links,
 * holes (LinkUp with no remote), ports whose PortInfo never came, and the
 * guarded GUID table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/snapshot.h"
#include "scanner/scan_priv.h"
#include "unit/scanner/wt_cable.h"

static void set_pi(struct wt *w, uint32_t n, unsigned p, unsigned state,
		   unsigned phys, unsigned lid)
{
	struct wt_port *wp = wt_port(w, n, p);

	memset(wp->info, 0, sizeof(wp->info));
	mad_set_field(wp->info, 0, IB_PORT_STATE_F, state);
	mad_set_field(wp->info, 0, IB_PORT_PHYS_STATE_F, phys);
	mad_set_field(wp->info, 0, IB_PORT_LID_F, lid);
	mad_set_field(wp->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
	mad_set_field(wp->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);
	wp->have_info = true;
	wp->exists = true;
}

static uint32_t node(struct wt *w, uint64_t guid, unsigned type, unsigned np,
		     const char *desc)
{
	uint32_t n = wt_add_node(w, guid, type, np);

	assert_int_not_equal(n, FAB_NONE);
	memcpy(w->nodes[n].desc, desc, strlen(desc) + 1); /* short literals */
	w->nodes[n].have_desc = true;
	w->nodes[n].path_valid = true;
	w->nodes[n].hops = 1;
	return n;
}

static size_t count_errors(const struct fab_snapshot *s, const char *what,
			   uint64_t guid, int port)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_errors; i++)
		n += !strcmp(s->errors[i].what, what) && s->errors[i].node_guid == guid &&
		     s->errors[i].port_num == port;
	return n;
}

static void test_topology(void **state)
{
	struct wt w = { 0 };
	struct fab_snapshot *s = fab_snapshot_new();

	/* Added in an order unlike GUID order: the snapshot sorts by GUID. */
	uint32_t sw = node(&w, 0x20, FAB_NODE_SWITCH, 4, "sw");
	uint32_t ca = node(&w, 0x10, FAB_NODE_CA, 2, "ca");
	uint32_t ca2 = node(&w, 0x30, FAB_NODE_CA, 1, "ca2");

	assert_int_equal(wt_find(&w, 0x10), ca);
	assert_int_equal(wt_add_node(&w, 0x10, FAB_NODE_CA, 1), FAB_NONE); /* dup */
	set_pi(&w, sw, 0, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP, 7);
	set_pi(&w, sw, 1, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP, 0);
	set_pi(&w, sw, 2, FAB_STATE_INIT, FAB_PHYS_LINKUP, 0); /* hole */
	/* port 3: PortInfo never came */
	set_pi(&w, sw, 4, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP, 0);
	set_pi(&w, ca, 1, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP, 9);
	wt_port(&w, ca, 1)->guid = 0x11;
	/* ca port 2 never seen: not in the snapshot */
	set_pi(&w, ca2, 1, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP, 12);
	wt_port(&w, ca2, 1)->guid = 0x31;
	wt_cable(&w, sw, 1, ca, 1);
	wt_cable(&w, sw, 4, ca2, 1);

	assert_int_equal(wt_to_snapshot(&w, s), 0);
	assert_int_equal(s->n_nodes, 3);
	assert_int_equal(s->nodes[0].guid, 0x10);
	assert_int_equal(s->nodes[1].guid, 0x20);
	assert_int_equal(s->nodes[2].guid, 0x30);

	const struct fab_node *nsw = &s->nodes[1], *nca = &s->nodes[0];
	assert_int_equal(nsw->port_count, 5); /* 0..4 */
	assert_int_equal(nca->port_count, 1); /* only the port seen */
	const struct fab_port *p = fab_node_ports(s, nsw);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(p[i].port_num, i);
		assert_int_equal(p[i].node_idx, 1);
		assert_int_equal(p[i].guid, 0x20);
	}
	assert_int_equal(nsw->lid, 7);
	assert_int_equal(p[1].lid, 7); /* external ports carry the switch LID */
	assert_int_equal(nca->lid, 9);

	/* link sw[1] <-> ca[1] */
	const struct fab_port *cp = fab_snapshot_port(s, 0, 1);
	assert_int_equal(p[1].remote_idx, (uint32_t)(cp - s->ports));
	assert_int_equal(cp->remote_idx, (uint32_t)(&p[1] - s->ports));
	assert_int_equal(p[1].remote_guid, 0x10); /* the remote node GUID, not its port GUID 0x11 */
	assert_int_equal(cp->remote_guid, 0x20);
	assert_int_equal(cp->remote_port, 1);

	/* hole on sw[2], SMP failure on sw[3] */
	assert_true(p[2].flags & FAB_F_NO_REMOTE);
	assert_int_equal(count_errors(s, "hole", 0x20, 2), 1);
	assert_true(p[3].flags & FAB_F_SMP_FAILED);
	assert_int_equal(p[3].state, FAB_STATE_UNKNOWN);
	assert_true(nsw->flags & FAB_F_SMP_FAILED);
	assert_int_equal(count_errors(s, "smp", 0x20, 3), 1);
	assert_false(p[1].flags & (FAB_F_NO_REMOTE | FAB_F_SMP_FAILED));
	/* port 0 is never a hole even though it is LinkUp without remote */
	assert_false(p[0].flags & FAB_F_NO_REMOTE);
	assert_int_equal(s->n_errors, 2);

	assert_int_equal(s->n_links, 2);
	assert_int_equal(s->nodes[s->ports[s->links[0].a].node_idx].guid, 0x10);
	fab_snapshot_free(s);
	wt_free(&w);
}

static void test_guid_table_grows(void **state)
{
	struct wt w = { 0 };

	for (uint64_t g = 1; g <= 5000; g++)
		assert_int_equal(wt_add_node(&w, g * 0x1000193, FAB_NODE_CA, 1),
				 (uint32_t)(g - 1));
	for (uint64_t g = 1; g <= 5000; g++)
		assert_int_equal(wt_find(&w, g * 0x1000193), (uint32_t)(g - 1));
	assert_int_equal(wt_find(&w, 7), FAB_NONE);
	assert_int_equal(w.n_ports, 5000 * 2);
	wt_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_guid_table_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
