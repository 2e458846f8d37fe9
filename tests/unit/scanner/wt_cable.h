/* SPDX-License-Identifier: MIT */
/*
 * Working-topology helpers for the scanner's unit tests: a node with a
 * valid directed route, a port's PortInfo, a cable between port ap of node
 * a and port bp of node b (both ends). Header-only; include cmocka first.
 */
#pragma once

#include <string.h>

#include <infiniband/mad.h>

#include "scanner/scan_priv.h"

/* A node hops away along ports 1 then 3 (a fake transport ignores the route). */
static inline uint32_t wt_test_node(struct wt *w, uint64_t guid, unsigned type, unsigned np,
				    unsigned hops)
{
	uint32_t n = wt_add_node(w, guid, type, np);

	assert_int_not_equal(n, FAB_NONE);
	w->nodes[n].have_desc = true;
	w->nodes[n].path_valid = true;
	w->nodes[n].hops = (uint8_t)hops;
	w->nodes[n].path[1] = 1;
	w->nodes[n].path[2] = 3;
	return n;
}

/* Port p's PortInfo read: state (its physical state to match), LID; the
 * rest zero for the caller to set. Returns the raw PortInfo. */
static inline uint8_t *wt_test_pi(struct wt *w, uint32_t n, unsigned p, unsigned state, unsigned lid)
{
	struct wt_port *wp = wt_port(w, n, p);

	memset(wp->info, 0, sizeof(wp->info));
	mad_set_field(wp->info, 0, IB_PORT_STATE_F, state);
	mad_set_field(wp->info, 0, IB_PORT_PHYS_STATE_F,
		      state == FAB_STATE_DOWN ? FAB_PHYS_POLLING : FAB_PHYS_LINKUP);
	mad_set_field(wp->info, 0, IB_PORT_LID_F, lid);
	wp->have_info = true;
	wp->exists = true;
	return wp->info;
}

static inline void wt_cable(struct wt *w, uint32_t a, unsigned ap, uint32_t b, unsigned bp)
{
	wt_port(w, a, ap)->rnode = b;
	wt_port(w, a, ap)->rport = (uint8_t)bp;
	wt_port(w, b, bp)->rnode = a;
	wt_port(w, b, bp)->rport = (uint8_t)ap;
}
