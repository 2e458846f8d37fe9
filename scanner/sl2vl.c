// SPDX-License-Identifier: MIT
/*
 * SL2VL tables: after the forwarding tables, the SLtoVLMappingTables (0x17)
 * the per-lane credit-loop analysis needs (fab_sl2vl_wanted,
 * core/route_lanes.c): only on switches whose links form a cycle of the
 * one-lane channel dependency graph, for each in-port whose traffic leaves
 * by such a link. A healthy tree has none: no MAD at all.
 *
 * One MAD per (switch, in-port, out-port): attribute modifier in << 8 | out,
 * 8 bytes, SL 2k's VL in the high nibble of byte k, SL 2k + 1's in the low.
 * Directed route along discovery's path (LID-routed when none), round-robin
 * over the switches, at most PER_SWITCH in flight to one, through the same
 * MAD window as the other reads. A table that does not answer is left out
 * (the analysis judges its loops on one lane) and named in scan_errors,
 * one row per switch; after a timeout the rest of that switch's tables are
 * not asked. When the loops want more than fab_scan_opts.sl2vl_max tables,
 * none is asked (docs/scan.md, "SL2VL tables").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/names.h"
#include "fabsweep/routing.h"
#include "scanner/scan_priv.h"

#define PER_SWITCH 4 /* tables in flight to one switch */

struct ssw {
	uint32_t node, wn;
	uint16_t lid;
	size_t first, end, next; /* its wants: want[first .. end), next to ask */
	uint16_t in_flight;
	bool dead;
	uint32_t n_failed;
	int first_err;
	uint8_t fail_in, fail_out; /* the first pair that failed */
};

struct slscan {
	struct fab_snapshot *s;
	const struct wt *w;
	const struct fab_scan_opts *o;
	struct fab_routing *r;
	struct fab_sl2vl_want *want;
	size_t n_want;
	struct ssw *sw;
	size_t n_sw, rr, n_left;
	unsigned long done;
	int err;
};

static int next(void *ctx, struct fab_mad_req *req)
{
	struct slscan *c = ctx;

	if (c->err)
		return c->err;
	for (size_t tries = c->n_sw; tries && c->n_left; tries--) {
		struct ssw *x = &c->sw[c->rr];

		c->rr = (c->rr + 1) % c->n_sw;
		if (x->next >= x->end || x->in_flight >= PER_SWITCH)
			continue;
		fab_scan_switch_req(c->w, c->o, &c->s->nodes[x->node], x->wn, x->lid, req);
		req->attr_id = IB_ATTR_SLVL_TABLE;
		req->attr_mod = (uint32_t)c->want[x->next].in << 8 | c->want[x->next].out;
		req->cookie = x->next;
		x->next++;
		x->in_flight++;
		c->n_left--;
		return 1;
	}
	return 0;
}

static void done(void *ctx, const struct fab_mad_req *req, int err, const uint8_t *resp)
{
	struct slscan *c = ctx;
	size_t i = (size_t)req->cookie;
	const struct fab_sl2vl_want *wt = &c->want[i];
	struct ssw *x = NULL;

	/* its switch: the wants are in switch order, the switches too */
	size_t lo = 0, hi = c->n_sw;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->sw[mid].end <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	x = &c->sw[lo];
	x->in_flight--;
	c->done++;
	if (!err) {
		struct fab_sl2vl *t = fab_routing_add_sl2vl(c->r);
		const uint8_t *d = resp + FAB_MAD_DATA_OFFS;
		if (!t) {
			c->err = -ENOMEM;
			return;
		}
		t->node_idx = wt->node_idx;
		t->in = wt->in;
		t->out = wt->out;
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			t->vl[sl] = sl % 2 ? d[sl / 2] & 0xf : d[sl / 2] >> 4;
		return;
	}
	if (!x->n_failed++) {
		x->first_err = err;
		x->fail_in = wt->in;
		x->fail_out = wt->out;
	}
	if (err == -ETIMEDOUT && !x->dead) { /* the rest is not asked */
		x->dead = true;
		x->n_failed += (uint32_t)(x->end - x->next);
		c->n_left -= x->end - x->next;
		c->done += x->end - x->next;
		x->next = x->end;
	}
}

static int report(struct slscan *c)
{
	char who[FAB_SCAN_LABEL_CAP];

	for (size_t i = 0; i < c->n_sw && !c->err; i++) {
		const struct ssw *x = &c->sw[i];
		const struct fab_node *n = &c->s->nodes[x->node];

		if (!x->n_failed)
			continue;
		c->err = fab_snapshot_add_error(
			c->s, n->guid, -1, "routing",
			"%s (LID %u): SLtoVLMappingTable of %u of its %zu in/out port pairs not read "
			"(the first, in %u out %u, %s%s): its credit loops are judged on one lane",
			fab_scan_node_label(n, who, sizeof(who)), x->lid, x->n_failed, x->end - x->first,
			x->fail_in, x->fail_out,
			x->first_err == -ETIMEDOUT ? "got no answer after retries"
			: x->first_err == -EREMOTEIO ? "was answered with an error status" : "failed",
			x->dead ? ", and the rest was not asked" : "");
	}
	return c->err;
}

int fab_scan_sl2vl(struct fab_snapshot *s, const struct wt *w, struct fab_madwin *mw,
		   const struct fab_scan_opts *o)
{
	struct slscan c = { .s = s, .w = w, .o = o };
	struct fab_route_index ix;
	int rc;

	if (!(c.r = fab_snapshot_routing(s)))
		return -ENOMEM;
	if ((rc = fab_route_index_build(s, &ix)))
		return rc;
	rc = fab_sl2vl_wanted(&ix, o->sl2vl_max, &c.want, &c.n_want);
	fab_route_index_free(&ix);
	if (rc || !c.n_want)
		goto out;
	if (c.n_want > o->sl2vl_max) {
		/* a loop through most of a large fabric: its lanes would cost
		 * more MADs than the rest of the scan; judged on one lane */
		c.r->sl2vl_over_max = c.n_want;
		fab_scan_progress(o, "sl2vl", 0, 0);
		goto out;
	}
	if (!(c.sw = calloc(c.n_want, sizeof(*c.sw)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c.n_want; i++) {
		if (c.n_sw && c.sw[c.n_sw - 1].node == c.want[i].node_idx) {
			c.sw[c.n_sw - 1].end = i + 1;
			continue;
		}
		const struct fab_node *n = &s->nodes[c.want[i].node_idx];
		c.sw[c.n_sw++] = (struct ssw){
			.node = c.want[i].node_idx, .wn = fab_scan_switch_path(w, n),
			.lid = (n->flags & FAB_F_LID_UNKNOWN) ? 0 : n->lid,
			.first = i, .end = i + 1, .next = i,
		};
	}
	c.n_left = c.n_want;
	fab_scan_progress(o, "sl2vl", 0, c.n_want);
	rc = fab_madwin_run(mw, next, done, &c);
	if (!rc)
		rc = c.err;
	if (!rc)
		rc = report(&c);
	fab_routing_sort_sl2vl(c.r);
	fab_scan_progress(o, "sl2vl", c.done, c.n_want);
out:
	free(c.want);
	free(c.sw);
	return rc;
}
