// SPDX-License-Identifier: MIT
/*
 * Routing rules on the forwarding tables (snap->routing; the model and the
 * walk: include/fabsweep/routing.h, docs/routing.md). Per destination,
 * never per source/destination pair: one walk per destination LID (every
 * LID of each end's LMC range, fab_route_dests) gives every switch's fate
 * toward it, and the sources on a switch share it.
 *
 *   routing.unreachable  routes that do not arrive, one finding per cause
 *                        and place (switch port, or the switch for an entry)
 *   routing.credit_loop  cycles of the channel dependency graph
 *   routing.imbalance    switches whose up-ports carry uneven destination counts
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/routing.h"
#include "rules_priv.h"

#define N_EXAMPLES 3

/* ---- routing.unreachable ------------------------------------------------------ */

struct cause {
	uint8_t fault;
	uint32_t at;          /* port index (a switch's port 0 for an entry) */
	uint64_t pairs;       /* source/destination pairs it breaks */
	uint32_t n_dst, last_dst; /* destination LIDs it breaks; the last one's number */
	uint32_t ex_src[N_EXAMPLES], ex_dst[N_EXAMPLES];
	uint16_t ex_lid[N_EXAMPLES], ex_base[N_EXAMPLES];
	uint8_t n_ex;
};

struct causes {
	struct cause *v;
	size_t n, cap;   /* v is an open-addressing table of cap slots */
};

static size_t cause_slot(uint8_t fault, uint32_t at, size_t cap)
{
	uint64_t k = ((uint64_t)fault << 32 | at) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 20) & (cap - 1);
}

static struct cause *cause_get(struct causes *c, uint8_t fault, uint32_t at)
{
	if (2 * (c->n + 1) > c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct cause *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; i < c->cap; i++) {
			if (!c->v[i].fault)
				continue;
			size_t j = cause_slot(c->v[i].fault, c->v[i].at, cap);
			while (v[j].fault)
				j = (j + 1) & (cap - 1);
			v[j] = c->v[i];
		}
		free(c->v);
		c->v = v;
		c->cap = cap;
	}
	size_t j = cause_slot(fault, at, c->cap);
	while (c->v[j].fault && (c->v[j].fault != fault || c->v[j].at != at))
		j = (j + 1) & (c->cap - 1);
	if (!c->v[j].fault) {
		c->v[j] = (struct cause){ .fault = fault, .at = at, .last_dst = FAB_NONE };
		c->n++;
	}
	return &c->v[j];
}

static int cmp_cause(const void *a, const void *b)
{
	const struct cause *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->fault > y->fault) - (x->fault < y->fault);
}

static const char *cause_text(unsigned fault)
{
	switch (fault) {
	case FAB_ROUTE_NO_ENTRY: return "has no forwarding entry (255) for";
	case FAB_ROUTE_PAST_TOP: return "has no entry (above its LinearFDBTop) for";
	case FAB_ROUTE_BAD_PORT: return "forwards to a port it does not have for";
	case FAB_ROUTE_PORT_DOWN:
		return "forwards out of a port that is not Active (the subnet manager did not reroute)";
	case FAB_ROUTE_NO_CABLE:
		return "forwards out of a port with no cable or a dead far end (the subnet manager did not reroute)";
	case FAB_ROUTE_WRONG_DEST: return "delivers to a node that does not own the LID";
	case FAB_ROUTE_LOOP: return "is on a routing loop";
	case FAB_ROUTE_TOO_LONG: return "starts a path longer than 64 hops";
	default: return "cannot forward";
	}
}

static void name_port(struct rbuf *b, const struct fab_snapshot *s, uint32_t port)
{
	rule_name(b, s, s->ports[port].node_idx);
}

static int emit_cause(struct fab_rule_ctx *ctx, const struct cause *c)
{
	const struct fab_snapshot *s = ctx->snap;
	bool entry = s->ports[c->at].port_num == 0;
	const char *what = cause_text(c->fault);

	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->ev, "cause=%s; destinations=%u; pairs=%llu; e.g. ",
		    fab_route_fault_name(c->fault), c->n_dst, (unsigned long long)c->pairs);
	for (unsigned k = 0; k < c->n_ex; k++) {
		if (k)
			rbuf_printf(&ctx->ev, ", ");
		name_port(&ctx->ev, s, c->ex_src[k]);
		rbuf_printf(&ctx->ev, " -> ");
		name_port(&ctx->ev, s, c->ex_dst[k]);
		if (c->ex_lid[k] == c->ex_base[k])
			rbuf_printf(&ctx->ev, " (LID %u)", c->ex_lid[k]);
		else /* LMC > 0: another LID of the destination's range */
			rbuf_printf(&ctx->ev, " (LID %u = base %u + %u)", c->ex_lid[k], c->ex_base[k],
				    c->ex_lid[k] - c->ex_base[k]);
	}
	if (entry)
		return rule_emit_node(ctx, s->ports[c->at].node_idx, rbuf_str(&ctx->ev),
				      "the switch %s %u destination%s: %llu source/destination pair%s "
				      "cannot reach them", what, c->n_dst, c->n_dst == 1 ? "" : "s",
				      (unsigned long long)c->pairs, c->pairs == 1 ? "" : "s");
	return rule_emit_port(ctx, c->at, rule_peer(s, c->at), rbuf_str(&ctx->ev),
			      "the route to %u destination%s %s: %llu source/destination pair%s "
			      "cannot reach them", c->n_dst, c->n_dst == 1 ? "" : "s", what,
			      (unsigned long long)c->pairs, c->pairs == 1 ? "" : "s");
}

/* The sources on switch sw that send toward end dst (not dst itself): how
 * many, and the first of them in *first. O(1): dst is at most one of them. */
static uint32_t sources_on(const struct fab_route_index *ix, uint32_t sw, uint32_t dst,
			   uint32_t *first)
{
	uint32_t a = ix->end_first[sw], b = ix->end_first[sw + 1];

	if (a == b || (b - a == 1 && ix->end_list[a] == dst))
		return 0;
	*first = ix->end_list[a] != dst ? ix->end_list[a] : ix->end_list[a + 1];
	return b - a - (fab_route_first_switch(ix, dst) == sw);
}

int check_routing_unreachable(struct fab_rule_ctx *ctx)
{
	struct fab_route_index ix;
	struct fab_route_walk w = { 0 };
	struct causes cs = { 0 };
	uint32_t *ends = NULL;
	int err = fab_route_index_build(ctx->snap, &ix);

	if (!err)
		err = fab_route_walk_init(&ix, &w);
	if (!err && !(ends = fab_route_ends_by_lid(&ix)))
		err = -ENOMEM;
	/* every LID of every end's range is a destination (LMC), in LID order */
	struct fab_route_dests d;
	uint32_t seq = 0; /* the destination's number */
	fab_route_dests_start(&d, ctx->snap, ends, ends ? ix.n_ends : 0);
	for (; !err && fab_route_dests_next(&d); seq++) {
		uint32_t dst = d.port;

		fab_route_walk_to(&ix, &w, d.lid);
		for (uint32_t sw = 0; sw < ix.n_sw; sw++) {
			uint8_t f = w.fault[sw];
			uint32_t src, n;

			if (f == FAB_ROUTE_OK || f == FAB_ROUTE_UNKNOWN || w.at[sw] == FAB_NONE ||
			    !(n = sources_on(&ix, sw, dst, &src)))
				continue;
			struct cause *c = cause_get(&cs, f, w.at[sw]);
			if (!c) {
				err = -ENOMEM;
				break;
			}
			c->pairs += n;
			if (c->last_dst != seq) {
				c->last_dst = seq;
				c->n_dst++;
				/* an example per destination port: its first LID broken here */
				if (c->n_ex < N_EXAMPLES && (!c->n_ex || c->ex_dst[c->n_ex - 1] != dst)) {
					c->ex_src[c->n_ex] = src;
					c->ex_lid[c->n_ex] = d.lid;
					c->ex_base[c->n_ex] = d.base;
					c->ex_dst[c->n_ex++] = dst;
				}
			}
		}
	}
	/* compact, sort, emit */
	size_t n = 0;
	for (size_t i = 0; i < cs.cap; i++)
		if (cs.v[i].fault)
			cs.v[n++] = cs.v[i];
	if (n)
		qsort(cs.v, n, sizeof(*cs.v), cmp_cause);
	for (size_t i = 0; !err && i < n; i++)
		err = emit_cause(ctx, &cs.v[i]);
	free(cs.v);
	free(ends);
	fab_route_walk_fini(&w);
	fab_route_index_free(&ix);
	return err;
}

/* ---- routing.credit_loop ------------------------------------------------------ */

int check_routing_credit_loop(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	struct fab_route_index ix;
	struct fab_cdg g = { 0 };
	int err = fab_route_index_build(s, &ix);

	if (!err)
		err = fab_cdg_find_lanes(&ix, (uint16_t)rule_param(ctx, 0), &g);
	for (size_t i = 0; !err && i < g.n_cycles; i++) {
		const struct fab_cdg_cycle *c = &g.cycles[i];
		bool lanes = c->lanes == FAB_CDG_LANES;

		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "cycle=");
		for (size_t k = 0; k < c->n_chan; k++) {
			rule_port_name(&ctx->ev, s, c->chan[k]);
			if (lanes)
				rbuf_printf(&ctx->ev, " (VL%u SL%u)", c->vl[k], c->sl[k]);
			rbuf_printf(&ctx->ev, " -> ");
		}
		rule_port_name(&ctx->ev, s, c->chan[0]);
		if (lanes)
			rbuf_printf(&ctx->ev, " (VL%u)", c->vl[0]);
		rbuf_printf(&ctx->ev, "; links_in_cycle_set=%zu; dependencies=%zu; e.g. dlid=%u",
			    c->scc_size, c->scc_deps, c->dlid);
		if (lanes) {
			rbuf_printf(&ctx->ev, "; lanes=sl2vl (cycles on VL");
			for (unsigned v = 0, n = 0; v < 16; v++)
				if (c->vl_mask >> v & 1)
					rbuf_printf(&ctx->ev, "%s%u", n++ ? "," : "", v);
			rbuf_printf(&ctx->ev, ")");
		} else /* judged on one lane: the tables it needs were not read */
			rbuf_printf(&ctx->ev, "; lanes=not_read (%zu SL2VL tables)", c->lanes_missing);
		err = rule_emit_port(ctx, c->chan[0], rule_peer(s, c->chan[0]), rbuf_str(&ctx->ev),
				     "the routes make a credit loop through %zu link%s%s (a cycle of "
				     "the channel dependency graph): traffic can deadlock under load",
				     c->n_chan, c->n_chan == 1 ? "" : "s",
				     lanes ? " on their virtual lanes" : "");
	}
	fab_cdg_free(&g);
	fab_route_index_free(&ix);
	return err;
}

/* ---- routing.imbalance ---------------------------------------------------------- */

/* A port toward a switch of a higher role (leaf -> spine -> core), Active. */
static bool up_port(const struct fab_snapshot *s, const struct fab_port *p)
{
	const struct fab_node *n = &s->nodes[p->node_idx];

	if (p->port_num == 0 || p->state != FAB_STATE_ACTIVE || p->remote_idx == FAB_NONE ||
	    p->remote_idx >= s->n_ports || n->role < FAB_ROLE_LEAF)
		return false;
	const struct fab_node *r = &s->nodes[s->ports[p->remote_idx].node_idx];
	return r->type == FAB_NODE_SWITCH && r->role > n->role && r->role < FAB_ROLE__COUNT;
}

int check_routing_imbalance(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_routing *r = s->routing;
	double pct = rule_param(ctx, 0) / 100.0;
	struct fab_route_index ix;
	int err = fab_route_index_build(s, &ix);

	for (size_t i = 0; !err && r && i < r->n_lfts; i++) {
		const struct fab_lft *l = &r->lfts[i];
		const struct fab_node *n = &s->nodes[l->node_idx];
		uint32_t count[256] = { 0 };
		bool up[256] = { false };
		unsigned n_up = 0;
		uint64_t total = 0;

		if (l->status != FAB_LFT_OK)
			continue;
		for (uint32_t k = 0; k < n->port_count; k++) {
			const struct fab_port *p = &s->ports[n->port_first + k];
			if (up_port(s, p)) {
				up[p->port_num] = true;
				n_up++;
			}
		}
		if (n_up < 2)
			continue;
		/* every LID of every end's range counts: with LMC > 0 the
		 * offsets are what multipath routing spreads over the up-ports */
		struct fab_route_dests d;
		for (fab_route_dests_start(&d, s, ix.ends, ix.n_ends); fab_route_dests_next(&d);) {
			int port = fab_lft_entry(l, d.lid);
			if (port > 0 && up[port]) {
				count[port]++;
				total++;
			}
		}
		double mean = (double)total / n_up;
		unsigned hi = 0, lo = 0;
		for (unsigned p = 1; p < 256; p++) {
			if (!up[p])
				continue;
			if (!hi || count[p] > count[hi])
				hi = p;
			if (!lo || count[p] < count[lo])
				lo = p;
		}
		if (!total || ((double)count[hi] <= mean * (1 + pct) + 1 &&
			       (double)count[lo] >= mean * (1 - pct) - 1))
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "destinations per up-port:");
		for (unsigned p = 1; p < 256; p++)
			if (up[p])
				rbuf_printf(&ctx->ev, " %u=%u", p, count[p]);
		rbuf_printf(&ctx->ev, "; mean=%.1f; max_deviation=%.0f%%", mean, pct * 100);
		err = rule_emit_node(ctx, l->node_idx, rbuf_str(&ctx->ev),
				     "its up-ports carry uneven numbers of destinations: port %u "
				     "carries %u, port %u carries %u (mean %.1f)",
				     hi, count[hi], lo, count[lo], mean);
	}
	fab_route_index_free(&ix);
	return err;
}
