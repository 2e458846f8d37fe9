/* SPDX-License-Identifier: MIT */
/*
 * Working-topology helper for the scanner's unit tests: a cable between
 * port ap of node a and port bp of node b, both ends. Header-only.
 */
#pragma once

#include "scanner/scan_priv.h"

static inline void wt_cable(struct wt *w, uint32_t a, unsigned ap, uint32_t b, unsigned bp)
{
	wt_port(w, a, ap)->rnode = b;
	wt_port(w, a, ap)->rport = (uint8_t)bp;
	wt_port(w, b, bp)->rnode = a;
	wt_port(w, b, bp)->rport = (uint8_t)ap;
}
