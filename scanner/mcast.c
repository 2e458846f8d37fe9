// SPDX-License-Identifier: MIT
/*
 * Multicast: the groups from the SA (scanner/mcast_sa.c), then every
 * switch's MulticastForwardingTable (0x1B) for the MLIDs in use, into
 * snap->mcast (include/fabsweep/mcast.h, docs/multicast.md).
 *
 * A block is 32 MLIDs of one port-mask position (16 ports); the attribute
 * modifier is position << 28 | block. A switch is asked for:
 *   - the blocks that hold a group's MLID, and, when its port 0 says
 *     IsMulticastFDBTopSupported, every block up to its MulticastFDBTop
 *     (what the SM says it uses: a stale MLID there is seen too); never a
 *     block past its MulticastFDBCap;
 *   - of each such block, the positions that hold port 0 or an Active
 *     port: a port that is not Active forwards nothing, whatever its bit.
 * SwitchInfo (MulticastFDBCap, MulticastFDBTop) comes from the forwarding
 * tables' read when the scan made it, else it is asked here.
 *
 * Directed route along discovery's paths (LID-routed without one), round
 * robin over the switches, a few MADs in flight to each, as the unicast
 * tables are read (scanner/routes.c). Failures are data: a block that does
 * not answer leaves its position unread (status partial), a switch that
 * does not answer at all is failed, after a time-out the rest of its table
 * is not asked; one scan_errors row ("mcast") per such switch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/error.h"
#include "fabsweep/mcast.h"
#include "fabsweep/mkey.h"
#include "fabsweep/routing.h"
#include "scanner/scan_priv.h"

#define PER_SWITCH 4             /* MADs in flight to one switch */
#define CAP_MFT_TOP 0x40000000u  /* PortInfo.CapabilityMask: IsMulticastFDBTopSupported */

enum { MJ_SWINFO = 1, MJ_BLOCK };

struct msw {
	uint32_t node, wn;
	uint16_t lid, cap, top;
	bool have_swinfo, top_valid, dead, asked;
	uint8_t n_pos;
	uint16_t pos_mask;     /* positions to read */
	uint32_t n_blocks;     /* blocks asked */
	uint16_t *block;
	uint16_t *mask;        /* n_blocks * 32 * n_pos */
	uint8_t *read;         /* n_blocks * n_pos */
	uint32_t next;         /* next (block, position) to send: block * 16 + pos */
	uint16_t in_flight;
	uint32_t n_failed;
	int first_err;
};

struct mscan {
	struct fab_snapshot *s;
	const struct wt *w;
	const struct fab_scan_opts *o;
	struct fab_mcast *m;
	struct msw *sw;
	size_t n_sw, si_next, rr;
	bool swinfo_phase;
	unsigned long done, total;
	int err;
};

static void req_for(const struct mscan *c, const struct msw *x, struct fab_mad_req *req)
{
	fab_scan_switch_req(c->w, c->o, &c->s->nodes[x->node], x->wn, x->lid, req);
}

/* The next (block, position) of x to ask, false when none is left. */
static bool next_pair(struct msw *x, uint32_t *b, unsigned *p)
{
	while (!x->dead && x->next < x->n_blocks * FAB_MFT_MAX_POS) {
		uint32_t k = x->next++;
		*b = k / FAB_MFT_MAX_POS;
		*p = k % FAB_MFT_MAX_POS;
		if (*p < x->n_pos && (x->pos_mask >> *p & 1))
			return true;
	}
	return false;
}

static int next(void *ctx, struct fab_mad_req *req)
{
	struct mscan *c = ctx;

	if (c->err)
		return c->err;
	if (c->swinfo_phase) {
		while (c->si_next < c->n_sw) {
			struct msw *x = &c->sw[c->si_next++];
			if (x->have_swinfo || (x->wn == FAB_NONE && !x->lid))
				continue;
			req_for(c, x, req);
			req->attr_id = IB_ATTR_SWITCH_INFO;
			req->cookie = (uint64_t)MJ_SWINFO << 56 | (uint32_t)(x - c->sw);
			return 1;
		}
		return 0;
	}
	for (size_t tries = c->n_sw; tries; tries--) {
		if (c->rr >= c->n_sw)
			c->rr = 0;
		struct msw *x = &c->sw[c->rr++];
		uint32_t b;
		unsigned p;

		if (x->in_flight >= PER_SWITCH || !next_pair(x, &b, &p))
			continue;
		req_for(c, x, req);
		req->attr_id = IB_ATTR_MULTICASTFORWTBL;
		req->attr_mod = (uint32_t)p << 28 | x->block[b];
		req->cookie = (uint64_t)MJ_BLOCK << 56 | (uint64_t)(b * FAB_MFT_MAX_POS + p) << 32 |
			      (uint32_t)(x - c->sw);
		x->in_flight++;
		x->asked = true;
		return 1;
	}
	return 0;
}

static void done(void *ctx, const struct fab_mad_req *req, int err, const uint8_t *resp)
{
	struct mscan *c = ctx;
	struct msw *x = &c->sw[(uint32_t)req->cookie];
	const uint8_t *d = resp ? resp + FAB_MAD_DATA_OFFS : NULL;

	c->done++;
	if ((unsigned)(req->cookie >> 56) == MJ_SWINFO) {
		if (err) {
			x->first_err = err;
			return;
		}
		x->have_swinfo = true;
		x->cap = (uint16_t)mad_get_field((void *)d, 0, IB_SW_MCAST_FDB_CAP_F);
		x->top = (uint16_t)mad_get_field((void *)d, 0, IB_SW_MCAST_FDB_TOP_F);
		return;
	}
	uint32_t k = (uint32_t)(req->cookie >> 32) & 0xffffff;
	uint32_t b = k / FAB_MFT_MAX_POS;
	unsigned p = k % FAB_MFT_MAX_POS;
	x->in_flight--;
	if (err) {
		if (!x->n_failed++)
			x->first_err = err;
		if (err == -ETIMEDOUT)
			x->dead = true; /* the rest is not asked */
		return;
	}
	uint16_t masks[FAB_MFT_BLOCK];
	fab_mft_block_decode(d, masks);
	for (unsigned i = 0; i < FAB_MFT_BLOCK; i++)
		x->mask[((size_t)b * FAB_MFT_BLOCK + i) * x->n_pos + p] = masks[i];
	x->read[(size_t)b * x->n_pos + p] = FAB_MFT_READ;
	if ((c->done & 1023) == 0)
		fab_scan_progress(c->o, "mcast", c->done, c->total);
}

/* The blocks each switch is asked for, and its positions. */
static int plan(struct mscan *c)
{
	const struct fab_mcast *m = c->m;
	uint8_t *want = calloc(FAB_MFT_MAX_BLOCKS, 1);

	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_groups; i++)
		if (m->groups[i].mlid >= FAB_MLID_FIRST && m->groups[i].mlid <= FAB_MLID_LAST)
			want[(m->groups[i].mlid - FAB_MLID_FIRST) / FAB_MFT_BLOCK] = 1;
	for (size_t i = 0; i < c->n_sw; i++) {
		struct msw *x = &c->sw[i];
		const struct fab_node *n = &c->s->nodes[x->node];
		unsigned top_blocks = 0;

		if (!x->have_swinfo)
			continue;
		x->n_pos = (uint8_t)(n->num_ports / FAB_MFT_POS_PORTS + 1);
		if (x->n_pos > FAB_MFT_MAX_POS)
			x->n_pos = FAB_MFT_MAX_POS;
		const struct fab_port *p0 = fab_snapshot_port(c->s, x->node, 0);
		x->top_valid = p0 && (p0->cap_mask & CAP_MFT_TOP);
		if (x->top_valid && x->top >= FAB_MLID_FIRST)
			top_blocks = (x->top - FAB_MLID_FIRST) / FAB_MFT_BLOCK + 1u;
		unsigned cap_blocks = (x->cap + FAB_MFT_BLOCK - 1) / FAB_MFT_BLOCK;
		x->pos_mask = 1; /* port 0 */
		for (uint32_t k = 0; k < n->port_count; k++) {
			const struct fab_port *p = &c->s->ports[n->port_first + k];
			if (p->state == FAB_STATE_ACTIVE && p->port_num / FAB_MFT_POS_PORTS < x->n_pos)
				x->pos_mask |= (uint16_t)(1u << (p->port_num / FAB_MFT_POS_PORTS));
		}
		for (unsigned b = 0; b < cap_blocks && b < FAB_MFT_MAX_BLOCKS; b++)
			x->n_blocks += want[b] || b < top_blocks;
		x->block = fab_mcast_alloc(c->m, (x->n_blocks + 1) * sizeof(*x->block));
		x->mask = fab_mcast_alloc(c->m, (size_t)x->n_blocks * FAB_MFT_BLOCK * x->n_pos *
					  sizeof(*x->mask) + 1);
		x->read = fab_mcast_alloc(c->m, (size_t)x->n_blocks * x->n_pos + 1);
		if (!x->block || !x->mask || !x->read) {
			free(want);
			return -ENOMEM;
		}
		uint32_t j = 0;
		for (unsigned b = 0; b < cap_blocks && b < FAB_MFT_MAX_BLOCKS; b++)
			if (want[b] || b < top_blocks)
				x->block[j++] = (uint16_t)b;
		for (uint32_t b = 0; b < x->n_blocks; b++)
			for (unsigned p = 0; p < x->n_pos; p++) {
				c->total += x->pos_mask >> p & 1;
				if (!(x->pos_mask >> p & 1))
					x->read[(size_t)b * x->n_pos + p] = FAB_MFT_NOT_ASKED;
			}
	}
	free(want);
	return 0;
}

static const char *why(int err)
{
	return err == -ETIMEDOUT ? "got no answer after retries"
	       : err == -EREMOTEIO ? "was answered with an error status"
				   : "failed";
}

/* The tables into snap->mcast, a scan_errors row per switch that missed some. */
static int keep(struct mscan *c)
{
	for (size_t i = 0; i < c->n_sw; i++) {
		struct msw *x = &c->sw[i];
		struct fab_mft *t = fab_mcast_add_mft(c->m);
		const struct fab_node *n = &c->s->nodes[x->node];
		char who[FAB_DESC_CAP + 8];
		unsigned unread = 0;
		int rc = 0;

		if (!t)
			return -ENOMEM;
		*t = (struct fab_mft){ .node_idx = x->node, .status = FAB_LFT_FAILED };
		fab_scan_node_label(n, who, sizeof(who));
		if (!x->have_swinfo) {
			rc = fab_snapshot_add_error(c->s, n->guid, -1, "mcast",
				"%s (LID %u): %s: its multicast forwarding table was not read", who, x->lid,
				x->wn == FAB_NONE && !x->lid ? "no directed route and no LID to ask it at"
							     : "SwitchInfo got no answer");
			if (rc)
				return rc;
			continue;
		}
		t->n_pos = x->n_pos;
		t->cap = x->cap;
		t->top = x->top;
		t->top_valid = x->top_valid;
		t->n_blocks = x->n_blocks;
		t->block = x->block;
		t->mask = x->mask;
		t->read = x->read;
		for (uint32_t b = 0; b < x->n_blocks; b++)
			for (unsigned p = 0; p < x->n_pos; p++)
				unread += x->read[(size_t)b * x->n_pos + p] == FAB_MFT_UNREAD;
		t->status = !unread ? FAB_LFT_OK : unread < x->n_blocks * (unsigned)__builtin_popcount(x->pos_mask)
						 ? FAB_LFT_PARTIAL : FAB_LFT_FAILED;
		if (unread)
			rc = fab_snapshot_add_error(c->s, n->guid, -1, "mcast",
				"%s (LID %u): %u of its %u MulticastForwardingTable blocks were not read: "
				"the first that failed %s%s", who, x->lid, unread,
				x->n_blocks * (unsigned)__builtin_popcount(x->pos_mask), why(x->first_err),
				x->dead ? ", and the rest of its table was not asked" : "");
		if (rc)
			return rc;
	}
	return 0;
}

int fab_scan_mcast(struct fab_snapshot *s, const struct wt *w, struct fab_madwin *smp_win,
		   struct fab_madwin *sa_win, const struct fab_scan_opts *o, uint16_t sa_lid)
{
	struct mscan c = { .s = s, .w = w, .o = o };
	unsigned top_hint = 0;
	uint64_t key = o->sa_key;
	int rc;

	if (!key) {
		const char *env = getenv("FABSWEEP_SA_KEY");
		key = 1; /* OpenSM's default sa_key */
		if (env && *env && fab_mkey_parse(env, strlen(env), &key))
			return fab_err(-EINVAL, "FABSWEEP_SA_KEY is not a key (0x and up to 16 hex "
				       "digits, or a decimal number)");
	}
	if (!sa_lid)
		return 0; /* no master SM, no SA: no group exists (snap->mcast stays NULL) */
	/* the switches, and their SwitchInfo where the forwarding tables read it */
	size_t n_sw = 0;
	for (size_t i = 0; i < s->n_nodes; i++)
		n_sw += s->nodes[i].type == FAB_NODE_SWITCH;
	if (!(c.sw = calloc(n_sw + 1, sizeof(*c.sw))))
		return -ENOMEM;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		if (n->type != FAB_NODE_SWITCH)
			continue;
		struct msw *x = &c.sw[c.n_sw++];
		const struct fab_lft *l = fab_routing_lft(s, (uint32_t)i);
		x->node = (uint32_t)i;
		x->lid = (n->flags & FAB_F_LID_UNKNOWN) ? 0 : n->lid;
		x->wn = fab_scan_switch_path(w, n);
		if (l && l->status != FAB_LFT_FAILED) {
			x->have_swinfo = true;
			x->cap = l->mcast_cap;
			x->top = l->mcast_top;
		}
	}
	c.swinfo_phase = true;
	if ((rc = fab_madwin_run(smp_win, next, done, &c)) || (rc = c.err))
		goto out;
	c.swinfo_phase = false;
	for (size_t i = 0; i < c.n_sw; i++) {
		const struct fab_port *p0 = fab_snapshot_port(s, c.sw[i].node, 0);
		if (c.sw[i].have_swinfo && p0 && (p0->cap_mask & CAP_MFT_TOP) && c.sw[i].top > top_hint)
			top_hint = c.sw[i].top;
	}
	fab_scan_progress(o, "mcast", 0, 0);
	if ((rc = fab_scan_mcast_sa(s, sa_win, sa_lid, key, top_hint)) || !s->mcast)
		goto out; /* no SA answer: nothing to read the tables for */
	c.m = s->mcast;
	if ((rc = plan(&c)) || (rc = fab_madwin_run(smp_win, next, done, &c)) || (rc = c.err) ||
	    (rc = keep(&c)))
		goto out;
	rc = fab_mcast_resolve(s);
	fab_scan_progress(o, "mcast", c.done, c.total);
out:
	free(c.sw);
	return rc;
}
