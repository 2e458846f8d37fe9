// SPDX-License-Identifier: MIT
/*
 * Multicast rules on the groups and trees of snap->mcast (the model and
 * the tree: include/fabsweep/mcast.h, docs/multicast.md). Each MLID's tree
 * is built once per rule (fab_mc_tree_build: O(member switches x tree)).
 *
 *   mcast.unreached_member  a member the tree does not bring another member's packets to
 *   mcast.loop              the tables send a group's packets round a cycle
 *   mcast.stale_entry       entries for an MLID without a group, for switches
 *                           no member's packets need, or toward a port no member has
 *   mcast.rate_mtu          a group's rate or MTU above what a member's link runs
 *   mcast.ipoib_broadcast   a partition's IPoIB broadcast group missing, or not
 *                           joined by host ports of the partition
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pkey.h"
#include "rules_priv.h"

#define N_EXAMPLES 3

/* "group ff12:401b:ffff::ffff:ffff (MLID 0xc000)" of a tree's first group,
 * or "MLID 0xc000" when it has none, into b. */
static void group_name(struct rbuf *b, const struct fab_mcast *m, const struct fab_mc_tree *t)
{
	char g[FAB_MGID_STRLEN];

	if (t->n_groups)
		rbuf_printf(b, "group %s (MLID 0x%04x", fab_mgid_format(m->groups[t->groups[0]].mgid, g),
			    t->mlid);
	else
		rbuf_printf(b, "(MLID 0x%04x", t->mlid);
	if (t->n_groups > 1)
		rbuf_printf(b, ", with %zu other groups", t->n_groups - 1);
	rbuf_printf(b, ")");
}

static void ev_group(struct rbuf *b, const struct fab_mcast *m, const struct fab_mc_tree *t)
{
	char g[FAB_MGID_STRLEN];

	rbuf_printf(b, "mlid=0x%04x", t->mlid);
	if (t->n_groups)
		rbuf_printf(b, "; mgid=%s", fab_mgid_format(m->groups[t->groups[0]].mgid, g));
}

/* Calls fn for the tree of every MLID a group or a table names. */
static int each_tree(struct fab_rule_ctx *ctx,
		     int (*fn)(struct fab_rule_ctx *ctx, const struct fab_mc_tree *t))
{
	uint16_t *mlids;
	size_t n;
	int err = fab_mcast_mlids(ctx->snap, &mlids, &n);

	for (size_t i = 0; !err && i < n; i++) {
		struct fab_mc_tree t;

		if ((err = fab_mc_tree_build(ctx->snap, mlids[i], &t)))
			break;
		err = fn(ctx, &t);
		fab_mc_tree_free(&t);
	}
	free(mlids);
	return err;
}

/* ---- mcast.unreached_member ------------------------------------------------- */

static int unreached(struct fab_rule_ctx *ctx, const struct fab_mc_tree *t)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_mcast *m = s->mcast;

	for (size_t i = 0; i < t->n_reach; i++) {
		const struct fab_mc_reach *r = &t->reach[i];
		const struct fab_port *p = &s->ports[r->port];
		uint32_t peer = r->sw == FAB_NONE || !p->port_num ? FAB_NONE : p->remote_idx;

		if (!r->receives || !r->unreached_from)
			continue;
		rbuf_reset(&ctx->tmp);
		group_name(&ctx->tmp, m, t);
		rbuf_reset(&ctx->ev);
		ev_group(&ctx->ev, m, t);
		rbuf_printf(&ctx->ev, "; unreached_from=%u; cause=%s", r->unreached_from,
			    r->sw == FAB_NONE ? "not_cabled" : r->bit_missing ? "no_entry" : "no_path");
		if (r->example != FAB_NONE && m->members[r->example].port_idx != FAB_NONE) {
			rbuf_printf(&ctx->ev, "; example=");
			rule_port_name(&ctx->ev, s, m->members[r->example].port_idx);
		}
		int err;
		if (r->sw == FAB_NONE) {
			err = rule_emit_port(ctx, r->port, peer, rbuf_str(&ctx->ev),
					     "member of %s, but its port is not Active and cabled to a "
					     "switch: no member's packets reach it", rbuf_str(&ctx->tmp));
		} else if (r->bit_missing) {
			char nb[FAB_NODE_NAME_CAP];
			err = rule_emit_port(ctx, r->port, peer, rbuf_str(&ctx->ev),
					     "member of %s, but %s's entry for the MLID lacks port %u toward "
					     "it: the packets of its %u other members do not reach it",
					     rbuf_str(&ctx->tmp), fab_node_name(s, r->sw, NULL, nb, sizeof(nb)),
					     p->port_num ? s->ports[p->remote_idx].port_num : 0u,
					     r->unreached_from);
		} else {
			err = rule_emit_port(ctx, r->port, peer, rbuf_str(&ctx->ev),
					     "member of %s, but the tables do not carry the packets of %u of "
					     "its other members to its switch", rbuf_str(&ctx->tmp),
					     r->unreached_from);
		}
		if (err)
			return err;
	}
	return 0;
}

int check_mcast_unreached(struct fab_rule_ctx *ctx)
{
	return each_tree(ctx, unreached);
}

/* ---- mcast.loop --------------------------------------------------------------- */

static int loop(struct fab_rule_ctx *ctx, const struct fab_mc_tree *t)
{
	const struct fab_snapshot *s = ctx->snap;

	if (!t->n_loop)
		return 0;
	rbuf_reset(&ctx->tmp);
	group_name(&ctx->tmp, s->mcast, t);
	rbuf_reset(&ctx->ev);
	ev_group(&ctx->ev, s->mcast, t);
	rbuf_printf(&ctx->ev, "; length=%zu; loop=", t->n_loop);
	for (size_t i = 0; i < t->n_loop; i++) {
		if (i)
			rbuf_printf(&ctx->ev, ",");
		rule_port_name(&ctx->ev, s, t->loop[i]);
	}
	return rule_emit_port(ctx, t->loop[0], s->ports[t->loop[0]].remote_idx, rbuf_str(&ctx->ev),
			      "the multicast tables send the packets of %s round a loop of %zu links "
			      "and back out of this port: they circle and multiply until dropped",
			      rbuf_str(&ctx->tmp), t->n_loop);
}

int check_mcast_loop(struct fab_rule_ctx *ctx)
{
	return each_tree(ctx, loop);
}

/* ---- mcast.stale_entry ----------------------------------------------------------- */

/* "1,3,5": the ports of a hop's entry. */
static void hop_ports(struct rbuf *b, const struct fab_snapshot *s, const struct fab_mc_tree *t,
		      const struct fab_mc_hop *h)
{
	for (uint32_t k = 0; k < h->n; k++)
		rbuf_printf(b, "%s%u", k ? "," : "", s->ports[t->ports[h->first + k]].port_num);
}

static int stale(struct fab_rule_ctx *ctx, const struct fab_mc_tree *t)
{
	const struct fab_snapshot *s = ctx->snap;
	int err = 0;

	if (!t->n_hops)
		return 0;
	if (!t->n_groups) { /* no group has the MLID: every entry is stale */
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "mlid=0x%04x; switches=%zu; e.g. ", t->mlid, t->n_hops);
		for (size_t i = 0; i < t->n_hops && i < N_EXAMPLES; i++) {
			if (i)
				rbuf_printf(&ctx->ev, ", ");
			rule_name(&ctx->ev, s, t->hops[i].node);
			rbuf_printf(&ctx->ev, "[");
			hop_ports(&ctx->ev, s, t, &t->hops[i]);
			rbuf_printf(&ctx->ev, "]");
		}
		return rule_emit_node(ctx, t->hops[0].node, rbuf_str(&ctx->ev),
				      "no multicast group has MLID 0x%04x, yet %zu switch%s forward it: "
				      "an entry the subnet manager left behind", t->mlid, t->n_hops,
				      t->n_hops == 1 ? "'s table" : "es' tables");
	}
	for (size_t i = 0; i < t->n_hops && !err; i++) {
		const struct fab_mc_hop *h = &t->hops[i];

		if (h->unknown || (h->fwd && h->bwd))
			continue;
		rbuf_reset(&ctx->tmp);
		group_name(&ctx->tmp, s->mcast, t);
		rbuf_reset(&ctx->ev);
		ev_group(&ctx->ev, s->mcast, t);
		rbuf_printf(&ctx->ev, "; ports=");
		hop_ports(&ctx->ev, s, t, h);
		rbuf_printf(&ctx->ev, "; reached=%s; leads_to_member=%s", h->fwd ? "yes" : "no",
			    h->bwd ? "yes" : "no");
		err = rule_emit_node(ctx, h->node, rbuf_str(&ctx->ev),
				     "the switch's entry for %s forwards out of %u ports, but %s: the "
				     "tree does not need it", rbuf_str(&ctx->tmp), h->n,
				     !h->fwd ? "no member's packets reach it"
					     : "it leads to no member that receives");
	}
	for (size_t i = 0; i < t->n_stray && !err; i++) {
		const struct fab_port *p = &s->ports[t->stray[i]];
		uint32_t far = p->port_num ? p->remote_idx : FAB_NONE;

		rbuf_reset(&ctx->tmp);
		group_name(&ctx->tmp, s->mcast, t);
		rbuf_reset(&ctx->ev);
		ev_group(&ctx->ev, s->mcast, t);
		err = rule_emit_port(ctx, t->stray[i], far, rbuf_str(&ctx->ev),
				     "the switch's entry for %s sends its packets out of this port to %s "
				     "that is no member of it", rbuf_str(&ctx->tmp),
				     p->port_num ? "a port" : "the switch's own port 0,");
	}
	return err;
}

int check_mcast_stale(struct fab_rule_ctx *ctx)
{
	return each_tree(ctx, stale);
}

/* ---- mcast.rate_mtu ----------------------------------------------------------------- */

/* What a member's own link runs: its rate in Gb/s and MTU in bytes (0
 * unknown). The one judgement of a port against a group, for both rules. */
static void link_runs(const struct fab_port *p, double *gbps, unsigned *mtu)
{
	bool up = p->port_num && p->state == FAB_STATE_ACTIVE;

	*gbps = up ? fab_rate_gbps(p->width_active, p->speed_active) : 0;
	*mtu = up ? fab_mtu_bytes(p->mtu_active) : 0;
}

/* Appends to b what of the group the link cannot carry ("rate 40 Gb/s above
 * the link's 10 Gb/s (4X SDR)"); false when nothing. */
static bool above_link(struct rbuf *b, const struct fab_port *p, const struct fab_mc_group *g)
{
	double gbps, want = fab_mc_rate_gbps(g->rate);
	unsigned mtu, want_mtu = fab_mc_mtu_bytes(g->mtu);
	bool any = false;

	link_runs(p, &gbps, &mtu);
	if (gbps > 0 && want > gbps + 1e-9) {
		rbuf_printf(b, "rate %g Gb/s is above its link's %g Gb/s (%s %s)", want, gbps,
			    fab_width_name(p->width_active) ? fab_width_name(p->width_active) : "?",
			    fab_speed_name(p->speed_active) ? fab_speed_name(p->speed_active) : "?");
		any = true;
	}
	if (mtu && want_mtu > mtu) {
		rbuf_printf(b, "%sMTU %u is above its link's %u", any ? " and " : "", want_mtu, mtu);
		any = true;
	}
	return any;
}

int check_mcast_rate_mtu(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_mcast *m = s->mcast;
	char mg[FAB_MGID_STRLEN];

	for (size_t gi = 0; gi < m->n_groups; gi++) {
		const struct fab_mc_group *g = &m->groups[gi];

		for (uint32_t j = g->first; j < g->first + g->n; j++) {
			uint32_t pi = m->members[j].port_idx;
			if (pi == FAB_NONE)
				continue;
			const struct fab_port *p = &s->ports[pi];
			rbuf_reset(&ctx->tmp);
			if (!above_link(&ctx->tmp, p, g))
				continue;
			double gbps;
			unsigned mtu;
			link_runs(p, &gbps, &mtu);
			rbuf_reset(&ctx->ev);
			rbuf_printf(&ctx->ev, "mlid=0x%04x; mgid=%s; group_rate_gbps=%g; link_gbps=%g; "
				    "group_mtu=%u; link_mtu=%u", g->mlid, fab_mgid_format(g->mgid, mg),
				    fab_mc_rate_gbps(g->rate), gbps, fab_mc_mtu_bytes(g->mtu), mtu);
			int err = rule_emit_port(ctx, pi, rule_peer(s, pi), rbuf_str(&ctx->ev),
						 "member of group %s (MLID 0x%04x), whose %s: the subnet "
						 "manager refuses such a port's join, and the group's packets "
						 "are dropped or slowed on its link", mg, g->mlid,
						 rbuf_str(&ctx->tmp));
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- mcast.ipoib_broadcast ------------------------------------------------------------ */

/* The partitions to judge: configured ones, and those in which some IPoIB
 * group has a member (IPoIB evidently runs there). want[p] = 1 auto, 2
 * configured. */
static void ipoib_partitions(struct fab_rule_ctx *ctx, uint8_t *want)
{
	const struct fab_mcast *m = ctx->snap->mcast;
	uint16_t pk;

	for (size_t i = 0; i < m->n_groups; i++)
		if (m->groups[i].n && fab_mgid_ipoib(m->groups[i].mgid, &pk))
			want[pk & FAB_PKEY_MASK] = 1;
	for (size_t i = 0; i < ctx->rule->n_params; i++) {
		unsigned p = (unsigned)rule_param(ctx, i);
		if (p)
			want[p & FAB_PKEY_MASK] = 2;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int judge_partition(struct fab_rule_ctx *ctx, unsigned part, bool configured)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_mcast *m = s->mcast;
	const struct fab_pkeys *k = s->pkeys;
	const struct fab_mc_group *bc = NULL;
	uint32_t hosts = 0, ex[N_EXAMPLES];
	char a[8], mg[FAB_MGID_STRLEN];
	uint16_t pk;
	int err = 0;

	for (size_t i = 0; i < m->n_groups && !bc; i++)
		if (fab_mgid_ipoib_broadcast(m->groups[i].mgid, &pk) && (pk & FAB_PKEY_MASK) == part)
			bc = &m->groups[i];
	/* the receiving members of the group, by port: a sorted list */
	uint32_t *mem = calloc(bc ? bc->n + 1 : 1, sizeof(*mem));
	size_t n_mem = 0;
	if (!mem)
		return -ENOMEM;
	for (uint32_t j = 0; bc && j < bc->n; j++)
		if (m->members[bc->first + j].port_idx != FAB_NONE &&
		    FAB_MC_RECEIVES(m->members[bc->first + j].join_state))
			mem[n_mem++] = m->members[bc->first + j].port_idx;
	qsort(mem, n_mem, sizeof(*mem), cmp_u32);
	for (size_t i = 0; k && i < k->n && !err; i++) {
		uint32_t pi = k->ports[i].port_idx;

		if (!rule_host_port(s, pi) || s->ports[pi].state != FAB_STATE_ACTIVE ||
		    fab_pkeys_member(&k->ports[i], part) == FAB_PKEY_NONE)
			continue;
		if (hosts < N_EXAMPLES)
			ex[hosts] = pi;
		hosts++;
		if (!bc || (!configured && !n_mem))
			continue; /* judged below, or IPoIB does not run here */
		if (bsearch(&pi, mem, n_mem, sizeof(*mem), cmp_u32))
			continue; /* joined */
		rbuf_reset(&ctx->tmp);
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "partition=%s; mgid=%s; mlid=0x%04x; members=%zu",
			    fab_pkey_format(part, a), fab_mgid_format(bc->mgid, mg), bc->mlid, n_mem);
		bool below = above_link(&ctx->tmp, &s->ports[pi], bc);
		err = rule_emit_port(ctx, pi, rule_peer(s, pi), rbuf_str(&ctx->ev),
				     "the host port is a member of partition %s but has not joined its "
				     "IPoIB broadcast group (%s, MLID 0x%04x): %s%s", a, mg, bc->mlid,
				     below ? "the group's " : "IPoIB is down on it, or its join failed",
				     below ? rbuf_str(&ctx->tmp) : "");
	}
	free(mem);
	if (err || bc || !hosts)
		return err;
	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->ev, "partition=%s; hosts=%u; judged=%s; e.g. ", fab_pkey_format(part, a), hosts,
		    configured ? "configured" : "ipoib_groups");
	for (uint32_t e = 0; e < hosts && e < N_EXAMPLES; e++) {
		if (e)
			rbuf_printf(&ctx->ev, ", ");
		rule_port_name(&ctx->ev, s, ex[e]);
	}
	return rule_emit_raw(ctx, NULL, NULL, NULL, NULL, fab_pkey_format(part, a), rbuf_str(&ctx->ev),
			     "partition %s has %u host ports but no IPoIB broadcast group "
			     "(ff12:401b:%04x::ffff:ffff): IPoIB cannot come up in it (OpenSM: "
			     "mark it ipoib in partitions.conf)", a, hosts, part | FAB_PKEY_FULL);
}

int check_mcast_ipoib(struct fab_rule_ctx *ctx)
{
	uint8_t *want = calloc(FAB_PKEY_MASK + 1, 1);
	int err = 0;

	if (!want)
		return -ENOMEM;
	ipoib_partitions(ctx, want);
	for (unsigned p = 1; p <= FAB_PKEY_MASK && !err; p++)
		if (want[p])
			err = judge_partition(ctx, p, want[p] == 2);
	free(want);
	return err;
}
