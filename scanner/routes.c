// SPDX-License-Identifier: MIT
/*
 * Forwarding tables: every switch's SwitchInfo (0x12: LinearFDBCap,
 * LinearFDBTop, the partition and raw-filter enforcement bits), then its
 * LinearForwardingTable (0x19) block by block up to LinearFDBTop, 64 LIDs
 * per block (the block number is the attribute modifier), all through one
 * MAD window, into snap->routing (include/fabsweep/routing.h).
 *
 * Directed route along the path discovery found (a stale forwarding table,
 * which is what this reads to find, must not keep the MADs from arriving),
 * LID-routed to the switch's LID when no path is known. The blocks are sent
 * round-robin over the switches, at most PER_SWITCH at a time to one
 * switch: a switch's management CPU answers SMPs one by one.
 *
 * Failures are data: a switch whose SwitchInfo does not answer gets status
 * "failed", a block that does not answer is marked missing (status
 * "partial") and once one block got no answer after all retries the rest
 * of that switch's table is not asked (bounded time); one scan_errors row
 * ("routing") per such switch names the blocks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/routing.h"
#include "scanner/scan_priv.h"

#define PER_SWITCH 4 /* blocks in flight to one switch */

enum { RJ_SWINFO = 1, RJ_BLOCK };
#define RJ(kind, sw, block) ((uint64_t)(kind) << 56 | (uint64_t)(block) << 32 | (uint32_t)(sw))
#define RJ_KIND(j) ((unsigned)((j) >> 56))
#define RJ_BLK(j) ((uint32_t)((j) >> 32) & 0xffffff)
#define RJ_SW(j) ((uint32_t)(j))

struct rsw {
	uint32_t lft;      /* its entry in routing->lfts */
	uint32_t wn;       /* its node in the working topology, FAB_NONE: LID-routed */
	uint16_t lid;
	uint32_t next_block, n_blocks, n_missing;
	uint16_t in_flight;
	bool dead;         /* a block got no answer: ask no more */
	int first_err;     /* of the first block that failed */
	uint8_t *port, *missing;
};

struct routes {
	struct fab_snapshot *s;
	const struct wt *w;
	const struct fab_scan_opts *o;
	struct fab_routing *r;
	struct rsw *sw;
	size_t n_sw, si_next;
	uint32_t *active; /* switches with blocks left to ask */
	size_t n_active, rr;
	unsigned long done, total;
	int err;
};

static const char *why(int err)
{
	return err == -ETIMEDOUT ? "got no answer after retries"
	       : err == -EREMOTEIO ? "was answered with an error status"
				   : "failed";
}

uint32_t fab_scan_switch_path(const struct wt *w, const struct fab_node *n)
{
	uint32_t wn = w ? wt_find(w, n->guid) : FAB_NONE;

	return wn != FAB_NONE && w->nodes[wn].path_valid ? wn : FAB_NONE;
}

void fab_scan_switch_req(const struct wt *w, const struct fab_scan_opts *o, const struct fab_node *n,
			 uint32_t wn, uint16_t lid, struct fab_mad_req *req)
{
	req->method = FAB_MAD_GET;
	req->mkey = fab_mkeys_lookup(o->mkeys, n->guid, n->guid);
	if (wn != FAB_NONE) {
		const struct wt_node *x = &w->nodes[wn];

		req->mgmt_class = FAB_MAD_CLASS_SMI_DR;
		req->dr_hops = x->hops;
		memcpy(req->dr_path, x->path, sizeof(req->dr_path));
	} else {
		req->mgmt_class = FAB_MAD_CLASS_SMI;
		req->dlid = lid;
	}
}

static void fill_req(const struct routes *c, uint32_t i, struct fab_mad_req *req)
{
	const struct rsw *x = &c->sw[i];

	fab_scan_switch_req(c->w, c->o, &c->s->nodes[c->r->lfts[x->lft].node_idx], x->wn, x->lid, req);
}

static int next(void *ctx, struct fab_mad_req *req)
{
	struct routes *c = ctx;

	if (c->err)
		return c->err;
	while (c->si_next < c->n_sw) {
		uint32_t i = (uint32_t)c->si_next++;

		if (c->sw[i].wn == FAB_NONE && !c->sw[i].lid)
			continue;

		fill_req(c, i, req);
		req->attr_id = IB_ATTR_SWITCH_INFO;
		req->cookie = RJ(RJ_SWINFO, i, 0);
		return 1;
	}
	/* round-robin over the switches with blocks left; one turn at most */
	for (size_t tries = c->n_active; tries; tries--) {
		if (c->rr >= c->n_active)
			c->rr = 0;
		uint32_t i = c->active[c->rr];
		struct rsw *x = &c->sw[i];

		if (x->dead || x->next_block >= x->n_blocks) { /* done: drop it */
			c->active[c->rr] = c->active[--c->n_active];
			continue;
		}
		c->rr++;
		if (x->in_flight >= PER_SWITCH)
			continue;
		fill_req(c, i, req);
		req->attr_id = IB_ATTR_LINEARFORWTBL;
		req->attr_mod = x->next_block;
		req->cookie = RJ(RJ_BLOCK, i, x->next_block);
		x->next_block++;
		x->in_flight++;
		return 1;
	}
	return 0;
}

static void node_err(struct routes *c, const struct rsw *x, const char *msg)
{
	const struct fab_node *n = &c->s->nodes[c->r->lfts[x->lft].node_idx];
	char who[FAB_SCAN_LABEL_CAP];
	int rc;

	rc = fab_snapshot_add_error(c->s, n->guid, -1, "routing", "%s (LID %u): %s",
				    fab_scan_node_label(n, who, sizeof(who)), x->lid, msg);
	if (rc && !c->err)
		c->err = rc;
}

static void swinfo_done(struct routes *c, uint32_t i, int err, const uint8_t *resp)
{
	struct rsw *x = &c->sw[i];
	struct fab_lft *l = &c->r->lfts[x->lft];
	const uint8_t *d = resp ? resp + FAB_MAD_DATA_OFFS : NULL;

	if (err) {
		char msg[128];
		snprintf(msg, sizeof(msg), "SwitchInfo %s: its forwarding table was not read",
			 why(err));
		node_err(c, x, msg);
		return;
	}
	unsigned top = mad_get_field((void *)d, 0, IB_SW_LINEAR_FDB_TOP_F);
	l->fdb_cap = (uint16_t)mad_get_field((void *)d, 0, IB_SW_LINEAR_FDB_CAP_F);
	l->fdb_top = (uint16_t)(top > FAB_LID_UNICAST_MAX ? FAB_LID_UNICAST_MAX : top);
	l->part_enf_cap = (uint16_t)mad_get_field((void *)d, 0, IB_SW_PARTITION_ENFORCE_CAP_F);
	l->mcast_cap = (uint16_t)mad_get_field((void *)d, 0, IB_SW_MCAST_FDB_CAP_F);
	l->mcast_top = (uint16_t)mad_get_field((void *)d, 0, IB_SW_MCAST_FDB_TOP_F);
	l->enforce = (uint8_t)(
		(mad_get_field((void *)d, 0, IB_SW_PARTITION_ENF_INB_F) ? FAB_SWI_PART_ENF_INB : 0) |
		(mad_get_field((void *)d, 0, IB_SW_PARTITION_ENF_OUTB_F) ? FAB_SWI_PART_ENF_OUTB : 0) |
		(mad_get_field((void *)d, 0, IB_SW_FILTER_RAW_INB_F) ? FAB_SWI_FILTER_RAW_INB : 0) |
		(mad_get_field((void *)d, 0, IB_SW_FILTER_RAW_OUTB_F) ? FAB_SWI_FILTER_RAW_OUTB : 0) |
		(mad_get_field((void *)d, 0, IB_SW_ENHANCED_PORT0_F) ? FAB_SWI_ENHANCED_PORT0 : 0));
	x->n_blocks = l->fdb_top / FAB_LFT_BLOCK + 1u;
	x->port = fab_routing_alloc(c->r, (size_t)x->n_blocks * FAB_LFT_BLOCK, FAB_LFT_NO_PORT);
	x->missing = fab_routing_alloc(c->r, x->n_blocks, 0);
	if (!x->port || !x->missing) {
		c->err = -ENOMEM;
		return;
	}
	l->status = FAB_LFT_OK;
	l->n_blocks = x->n_blocks;
	l->port = x->port;
	c->active[c->n_active++] = i;
	c->total += x->n_blocks;
}

static void block_done(struct routes *c, uint32_t i, uint32_t b, int err, const uint8_t *resp)
{
	struct rsw *x = &c->sw[i];

	x->in_flight--;
	if (!err) {
		memcpy(x->port + (size_t)b * FAB_LFT_BLOCK, resp + FAB_MAD_DATA_OFFS, FAB_LFT_BLOCK);
		return;
	}
	if (!x->n_missing)
		x->first_err = err;
	x->missing[b] = 1;
	x->n_missing++;
	if (err == -ETIMEDOUT && !x->dead) { /* the rest is not asked */
		x->dead = true;
		for (uint32_t k = x->next_block; k < x->n_blocks; k++)
			x->missing[k] = 1;
		x->n_missing += x->n_blocks - x->next_block;
		c->done += x->n_blocks - x->next_block;
		x->next_block = x->n_blocks;
	}
}

static void done(void *ctx, const struct fab_mad_req *req, int err, const uint8_t *resp)
{
	struct routes *c = ctx;
	uint64_t j = req->cookie;

	if (RJ_KIND(j) == RJ_SWINFO)
		swinfo_done(c, RJ_SW(j), err, resp);
	else
		block_done(c, RJ_SW(j), RJ_BLK(j), err, resp);
	c->done++;
	if ((c->done & 1023) == 0)
		fab_scan_progress(c->o, "routes", c->done, c->total);
}

void fab_scan_block_list(const uint8_t *missing, uint32_t n, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = 0;
	for (uint32_t b = 0; b < n && len + 24 < cap; b++) {
		if (!missing[b])
			continue;
		uint32_t e = b;
		while (e + 1 < n && missing[e + 1])
			e++;
		len += (size_t)snprintf(buf + len, cap - len, e > b ? "%s%u-%u" : "%s%u",
					len ? ", " : "", b, e);
		b = e;
	}
	if (len + 24 >= cap)
		snprintf(buf + len, cap - len, ", ...");
}

static int finish(struct routes *c)
{
	char list[256], msg[512];

	for (size_t i = 0; i < c->n_sw && !c->err; i++) {
		struct rsw *x = &c->sw[i];
		struct fab_lft *l = &c->r->lfts[x->lft];

		if (l->status != FAB_LFT_OK || !x->n_missing)
			continue;
		l->status = FAB_LFT_PARTIAL;
		l->missing = x->missing;
		fab_scan_block_list(x->missing, x->n_blocks, list, sizeof(list));
		snprintf(msg, sizeof(msg), "LinearForwardingTable blocks %s (%u of its %u) were "
			 "not read: the first that failed %s%s", list, x->n_missing, x->n_blocks,
			 why(x->first_err), x->first_err == -ETIMEDOUT ? ", and the rest "
			 "of its table was not asked" : "");
		node_err(c, x, msg);
	}
	return c->err;
}

int fab_scan_routes(struct fab_snapshot *s, const struct wt *w, struct fab_madwin *mw,
		    const struct fab_scan_opts *o)
{
	struct routes c = { .s = s, .w = w, .o = o };
	size_t n_sw = 0;
	int rc;

	for (size_t i = 0; i < s->n_nodes; i++)
		n_sw += s->nodes[i].type == FAB_NODE_SWITCH;
	if (!(c.r = fab_snapshot_routing(s)))
		return -ENOMEM;
	c.sw = calloc(n_sw + 1, sizeof(*c.sw));
	c.active = malloc((n_sw + 1) * sizeof(*c.active));
	if (!c.sw || !c.active) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];

		if (n->type != FAB_NODE_SWITCH)
			continue;
		struct fab_lft *l = fab_routing_add(c.r);
		if (!l) {
			rc = -ENOMEM;
			goto out;
		}
		l->node_idx = (uint32_t)i;
		l->status = FAB_LFT_FAILED; /* until SwitchInfo answers */
		struct rsw *x = &c.sw[c.n_sw++];
		x->lft = (uint32_t)(c.r->n_lfts - 1);
		x->lid = (n->flags & FAB_F_LID_UNKNOWN) ? 0 : n->lid;
		x->wn = fab_scan_switch_path(w, n);
	}
	/* a switch with neither a path nor a LID cannot be asked */
	for (size_t i = 0; i < c.n_sw; i++)
		if (c.sw[i].wn == FAB_NONE && !c.sw[i].lid)
			node_err(&c, &c.sw[i], "no directed route and no LID to ask its "
				 "forwarding table at: it was not read");
	c.total = c.n_sw;
	fab_scan_progress(o, "routes", 0, c.total);
	rc = c.err ? c.err : fab_madwin_run(mw, next, done, &c);
	if (!rc)
		rc = finish(&c);
	fab_scan_progress(o, "routes", c.done, c.total);
out:
	free(c.sw);
	free(c.active);
	return rc;
}
