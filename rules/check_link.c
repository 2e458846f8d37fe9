// SPDX-License-Identifier: MIT
/*
 * Link rules: degraded width or speed (one generic check), logical state,
 * MTU. Each looks at every link once (snap->links: each physical link once,
 * a before b); port 0 is never a link end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* The port's PortInfo describes a link: logical state Init or better, or
 * the physical link is up. Fields of Down ports are undefined. */
static bool port_up(const struct fab_port *p)
{
	return p->state >= FAB_STATE_INIT || p->phys_state == FAB_PHYS_LINKUP;
}

/* ---- link.width_degraded, link.speed_degraded ------------------------------------ */

#define ATTR_BITS 16

struct attr {
	const char *what; /* "width", "speed" */
	unsigned (*best)(unsigned mask);
	unsigned (*rank)(unsigned bit);
	const char *(*name)(unsigned bit);
};

static const struct attr attrs[] = {
	[LINK_WIDTH] = { "width", fab_width_best, fab_width_rank, fab_width_name },
	[LINK_SPEED] = { "speed", fab_speed_best, fab_speed_rank, fab_speed_name },
};

static unsigned active_of(const struct fab_port *p, int kind)
{
	return kind == LINK_WIDTH ? p->width_active : p->speed_active;
}

/* What a port enables and supports; 0 when it reports neither. */
static unsigned caps_of(const struct fab_port *p, int kind)
{
	unsigned en = kind == LINK_WIDTH ? p->width_enabled : p->speed_enabled;
	unsigned sup = kind == LINK_WIDTH ? p->width_supported : p->speed_supported;

	if (!en)
		return sup;
	if (!sup)
		return en;
	return en & sup;
}

/* What a port supports (hardware capability); 0 when unknown. */
static unsigned supported_of(const struct fab_port *p, int kind)
{
	return kind == LINK_WIDTH ? p->width_supported : p->speed_supported;
}

static int bit_index(unsigned bit)
{
	return bit ? __builtin_ctz(bit) : -1;
}

/* The link's running value: the slower end's when they disagree. */
static unsigned link_active(const struct fab_port *a, const struct fab_port *b,
			    const struct attr *at, int kind)
{
	unsigned x = active_of(a, kind), y = active_of(b, kind);

	if (!at->name(x))
		x = 0;
	if (!at->name(y))
		y = 0;
	if (!x)
		return y;
	if (!y)
		return x;
	return at->rank(x) <= at->rank(y) ? x : y;
}

/*
 * What a kind of device can run, where its ports do not say. A topology file
 * (or a port whose PortInfo was not read) has no supported widths or speeds;
 * then a port supports what the best up link of any device of its kind runs:
 * same node type, vendor, device ID and description with its numbers aside
 * ("ai400x-012 HCA-1" and "ai400x-031 HCA-2" are one kind, "luna-0560
 * mlx5_4" another). A whole kind running below its tier's majority (storage
 * appliances at EDR on HDR leaves, DDR-only adapters among QDR ones) is a
 * design then, not a degraded link; a device slower than its kin is still
 * found.
 */
struct kinds {
	uint32_t *of;   /* per node: its kind */
	unsigned *best; /* per kind: the best value an up link of it runs */
};

static uint64_t kind_hash(const struct fab_node *n)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	uint32_t ids[4] = { n->type, n->vendor_id, n->device_id, 0 };
	size_t len = strlen(n->desc);
	bool digits = false;

	for (size_t k = 0; k < sizeof(ids); k++)
		h = (h ^ ((const uint8_t *)ids)[k]) * 1099511628211ULL;
	while (len && n->desc[len - 1] == ' ')
		len--;
	for (size_t k = 0; k < len; k++) {
		bool d = n->desc[k] >= '0' && n->desc[k] <= '9';
		if (d && digits)
			continue; /* a run of digits counts as one '#' */
		digits = d;
		h = (h ^ (uint8_t)(d ? '#' : n->desc[k])) * 1099511628211ULL;
	}
	return h;
}

struct hash_idx {
	uint64_t h;
	uint32_t i;
};

static int cmp_hash_idx(const void *x, const void *y)
{
	const struct hash_idx *a = x, *b = y;

	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Builds k when some up link has an end that reports no capability; leaves it
 * empty otherwise. 0 or -ENOMEM. */
static int kinds_init(struct kinds *k, const struct fab_snapshot *s, const struct attr *at,
		      int kind)
{
	struct hash_idx *v;
	uint32_t n_kinds = 0;
	bool needed = false;

	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < s->n_links && !needed; i++) {
		const struct fab_port *a = &s->ports[s->links[i].a], *b = &s->ports[s->links[i].b];
		needed = port_up(a) && port_up(b) && (!supported_of(a, kind) || !supported_of(b, kind));
	}
	if (!needed)
		return 0;
	v = malloc((s->n_nodes + 1) * sizeof(*v));
	k->of = malloc((s->n_nodes + 1) * sizeof(*k->of));
	k->best = calloc(s->n_nodes + 1, sizeof(*k->best));
	if (!v || !k->of || !k->best) {
		free(v);
		free(k->of);
		free(k->best);
		memset(k, 0, sizeof(*k));
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		v[i] = (struct hash_idx){ .h = kind_hash(&s->nodes[i]), .i = (uint32_t)i };
	qsort(v, s->n_nodes, sizeof(*v), cmp_hash_idx);
	for (size_t i = 0; i < s->n_nodes; i++) {
		if (i && v[i].h != v[i - 1].h)
			n_kinds++;
		k->of[v[i].i] = n_kinds;
	}
	free(v);
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_port *a = &s->ports[s->links[i].a], *b = &s->ports[s->links[i].b];
		unsigned act;

		if (!port_up(a) || !port_up(b) || !(act = link_active(a, b, at, kind)))
			continue;
		for (int e = 0; e < 2; e++) {
			unsigned *best = &k->best[k->of[(e ? b : a)->node_idx]];
			if (at->rank(act) > at->rank(*best))
				*best = act;
		}
	}
	return 0;
}

static void kinds_fini(struct kinds *k)
{
	free(k->of);
	free(k->best);
}

/* What port p supports: its own mask, else every value up to its kind's best. */
static unsigned supported_or_kind(const struct fab_port *p, const struct kinds *k,
				  const struct attr *at, int kind)
{
	unsigned sup = supported_of(p, kind), best, mask = 0;

	if (sup || !k->of || !(best = k->best[k->of[p->node_idx]]))
		return sup;
	for (unsigned b = 0; b < ATTR_BITS; b++)
		if (at->name(1u << b) && at->rank(1u << b) <= at->rank(best))
			mask |= 1u << b;
	return mask;
}

static int link_tier(const struct fab_snapshot *s, const struct fab_link *l)
{
	return fab_tier(s->nodes[s->ports[l->a].node_idx].role,
			s->nodes[s->ports[l->b].node_idx].role);
}

/* Appends "key=<Gb/s>" for the link running `value` of kind. */
static void append_rate(struct rbuf *ev, const struct fab_port *a, int kind,
			unsigned value, const char *key)
{
	unsigned w = kind == LINK_WIDTH ? value : a->width_active;
	unsigned sp = kind == LINK_SPEED ? value : a->speed_active;
	double g;

	if ((g = fab_rate_gbps(w, sp)) > 0) {
		rbuf_sep(ev, "; ");
		rbuf_printf(ev, "%s=%g", key, g);
	}
}

int check_link_degraded(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const int kind = ctx->rule->arg;
	const struct attr *at = &attrs[kind];
	uint32_t counts[FAB_TIER_COUNT][ATTR_BITS] = { { 0 } };
	uint32_t total[FAB_TIER_COUNT] = { 0 };
	unsigned majority[FAB_TIER_COUNT] = { 0 }, configured[FAB_TIER_COUNT] = { 0 };
	char tier_name[32];
	struct kinds kinds;
	int err = 0;

	if (kinds_init(&kinds, s, at, kind))
		return fab_err(-ENOMEM, "out of memory checking link %ss", at->what);
	/* What the links of each tier run, and the configured expectations. */
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];
		const struct fab_port *a = &s->ports[l->a], *b = &s->ports[l->b];
		unsigned act;

		if (!port_up(a) || !port_up(b) || !(act = link_active(a, b, at, kind)))
			continue;
		counts[link_tier(s, l)][bit_index(act)]++;
		total[link_tier(s, l)]++;
	}
	for (int t = 0; t < FAB_TIER_COUNT; t++) {
		uint32_t best = 0;
		for (unsigned k = 0; k < ATTR_BITS; k++) {
			unsigned bit = 1u << k;
			if (!counts[t][k])
				continue;
			/* the most common value; a tie goes to the better one */
			if (counts[t][k] > best ||
			    (counts[t][k] == best && at->rank(bit) > at->rank(majority[t]))) {
				best = counts[t][k];
				majority[t] = bit;
			}
		}
	}
	for (size_t k = 0; k < ctx->rule->n_params; k++) {
		const struct fab_rule_param *p = &ctx->rule->params[k];
		double v = rule_param(ctx, k);
		if (p->arg >= 0 && p->arg < FAB_TIER_COUNT && v > 0)
			configured[p->arg] = (unsigned)v;
	}

	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];
		const struct fab_port *a = &s->ports[l->a], *b = &s->ports[l->b];
		unsigned act, ca, cb, common, could, sa, sb, can, expect;
		bool by_caps, by_tier;
		int tier = link_tier(s, l);

		if (!port_up(a) || !port_up(b) || !(act = link_active(a, b, at, kind)))
			continue;
		ca = caps_of(a, kind);
		cb = caps_of(b, kind);
		common = ca && cb ? ca & cb : ca | cb;
		could = at->best(common);
		by_caps = could && at->rank(act) < at->rank(could);
		/* the best both ends' hardware supports, whatever is enabled */
		sa = supported_or_kind(a, &kinds, at, kind);
		sb = supported_or_kind(b, &kinds, at, kind);
		can = at->best(sa && sb ? sa & sb : sa | sb);

		expect = configured[tier] ? configured[tier] : majority[tier];
		by_tier = expect && at->rank(act) < at->rank(expect) &&
			  /* a majority the hardware cannot reach is not its to meet
			   * (an EDR adapter among HDR hosts); a configured
			   * expectation always counts */
			  (configured[tier] || !can || at->rank(can) >= at->rank(expect));
		if (!by_caps && !by_tier)
			continue;

		fab_tier_name(tier, tier_name, sizeof(tier_name));
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "active=%s", at->name(act));
		if (could)
			rbuf_printf(&ctx->ev, "; best_enabled=%s", at->name(could));
		rbuf_printf(&ctx->ev, "; tier=%s", tier_name);
		if (expect)
			rbuf_printf(&ctx->ev, "; tier_expected=%s; tier_source=%s",
				    at->name(expect), configured[tier] ? "config" : "majority");
		if (!configured[tier])
			rbuf_printf(&ctx->ev, "; tier_links=%u", total[tier]);
		append_rate(&ctx->ev, a, kind, act, "rate_gbps");
		{
			unsigned better = by_caps ? could : expect;
			if (by_tier && at->rank(expect) > at->rank(better))
				better = expect;
			append_rate(&ctx->ev, a, kind, better, "expected_gbps");
		}

		rbuf_reset(&ctx->tmp);
		if (by_caps)
			rbuf_printf(&ctx->tmp, "both ends could run %s", at->name(could));
		if (by_tier && (!by_caps || at->rank(expect) != at->rank(could))) {
			rbuf_sep(&ctx->tmp, "; ");
			if (configured[tier])
				rbuf_printf(&ctx->tmp, "%s links are expected to run %s",
					    tier_name, at->name(expect));
			else
				rbuf_printf(&ctx->tmp, "most %s links run %s", tier_name,
					    at->name(expect));
		}
		err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev), "link runs at %s %s; %s",
				     at->what, at->name(act), rbuf_str(&ctx->tmp));
		if (err)
			break;
	}
	kinds_fini(&kinds);
	return err;
}

/* ---- port.not_active --------------------------------------------------------------- */

static bool half_up(const struct fab_port *p)
{
	return p->phys_state == FAB_PHYS_LINKUP &&
	       (p->state == FAB_STATE_INIT || p->state == FAB_STATE_ARMED);
}

static const char *state_or(unsigned st)
{
	const char *n = fab_state_name(st);
	return n ? n : "unknown";
}

static const char *phys_or(unsigned st)
{
	const char *n = fab_phys_state_name(st);
	return n ? n : "unknown";
}

int check_port_not_active(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	int err;

	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];
		const struct fab_port *a = &s->ports[l->a], *b = &s->ports[l->b];
		bool differ = a->state && b->state && a->state != b->state;

		if (!half_up(a) && !half_up(b) && !differ)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "state=%s; phys_state=%s; peer_state=%s; peer_phys_state=%s",
			    state_or(a->state), phys_or(a->phys_state), state_or(b->state),
			    phys_or(b->phys_state));
		if (a->state == b->state)
			err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					     "both ends are %s with the physical link up",
					     state_or(a->state));
		else
			err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					     "the ends disagree: %s at one end, %s at the other",
					     state_or(a->state), state_or(b->state));
		if (err)
			return err;
	}
	/* ports whose peer is unknown: no link to report them with */
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *p = &s->ports[i];

		if (p->port_num == 0 || rule_peer(s, (uint32_t)i) != FAB_NONE || !half_up(p))
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "state=%s; phys_state=%s", state_or(p->state),
			    phys_or(p->phys_state));
		if ((err = rule_emit_port(ctx, (uint32_t)i, FAB_NONE, rbuf_str(&ctx->ev),
					  "physical link up but the port is %s",
					  state_or(p->state))))
			return err;
	}
	return 0;
}

/* ---- mtu.mismatch -------------------------------------------------------------------- */

int check_mtu_mismatch(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	double exp_v = rule_param(ctx, 0);
	unsigned expect = exp_v > 0 ? (unsigned)exp_v : 0;
	int err;

	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];
		const struct fab_port *a = &s->ports[l->a], *b = &s->ports[l->b];
		unsigned ma = port_up(a) ? a->mtu_active : 0, mb = port_up(b) ? b->mtu_active : 0;
		unsigned low = ma && mb ? (ma < mb ? ma : mb) : ma | mb;
		bool differ = ma && mb && ma != mb;
		bool below = expect && low && low < expect;

		if (!differ && !below)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "mtu=%u; peer_mtu=%u", fab_mtu_bytes(ma), fab_mtu_bytes(mb));
		if (expect)
			rbuf_printf(&ctx->ev, "; expected=%u", fab_mtu_bytes(expect));
		if (differ && below)
			err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					     "the ends run different MTUs (%u and %u), below the expected %u",
					     fab_mtu_bytes(ma), fab_mtu_bytes(mb), fab_mtu_bytes(expect));
		else if (differ)
			err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					     "the ends run different MTUs (%u and %u)",
					     fab_mtu_bytes(ma), fab_mtu_bytes(mb));
		else
			err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					     "link runs MTU %u, below the expected %u",
					     fab_mtu_bytes(low), fab_mtu_bytes(expect));
		if (err)
			return err;
	}
	return 0;
}

int rule_emit_port_down(struct fab_rule_ctx *ctx, uint32_t port, uint32_t peer, unsigned state,
			unsigned phys, const char *was)
{
	char head[128];

	/* what ctx->ev holds already (a read's time and cause) goes last */
	snprintf(head, sizeof(head), "state=%s; phys_state=%s; last_active=%s%s", state_or(state),
		 phys_or(phys), was, rbuf_str(&ctx->ev)[0] ? "; " : "");
	rbuf_reset(&ctx->tmp);
	rbuf_printf(&ctx->tmp, "%s%s", head, rbuf_str(&ctx->ev));
	return rule_emit_port(ctx, port, peer, rbuf_str(&ctx->tmp),
			      "the port is %s; it was Active with a link at %s", state_or(state), was);
}

/* port.down: each port that was Active with a known peer in the baseline and
 * is not Active now, or whose node no longer answers (docs/rules/port.down.md),
 * then each that watch read down (check_port_down_events). One pass over the
 * baseline's ports, each found by GUID: O(ports). */
int check_port_down(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap, *b = ctx->base;
	char was[FAB_TIME_STRLEN], g[FAB_GUID_STRLEN], pg[FAB_GUID_STRLEN], num[8], pnum[8];
	int err;

	fab_time_format(b->started_at_ms, was);
	for (size_t i = 0; i < b->n_ports; i++) {
		const struct fab_port *p = &b->ports[i];
		uint32_t peer = rule_peer(b, (uint32_t)i);

		if (p->port_num == 0 || p->state != FAB_STATE_ACTIVE || peer == FAB_NONE)
			continue;
		uint64_t guid = b->nodes[p->node_idx].guid;
		uint32_t n = fab_snapshot_find_node(s, guid);
		const struct fab_port *q = n == FAB_NONE ? NULL : fab_snapshot_port(s, n, p->port_num);
		if (q && q->state == FAB_STATE_ACTIVE)
			continue;
		if (q) {
			/* the other end it had, when the snapshot has it */
			const struct fab_port *pp = &b->ports[peer];
			uint32_t pn = fab_snapshot_find_node(s, b->nodes[pp->node_idx].guid);
			const struct fab_port *r = pn == FAB_NONE ? NULL : fab_snapshot_port(s, pn, pp->port_num);

			rbuf_reset(&ctx->ev);
			err = rule_emit_port_down(ctx, (uint32_t)(q - s->ports),
						  r ? (uint32_t)(r - s->ports) : FAB_NONE, q->state,
						  q->phys_state, was);
		} else {
			rbuf_reset(&ctx->ev);
			rbuf_printf(&ctx->ev, "state=unknown; phys_state=unknown; last_active=%s", was);
			const struct fab_port *pp = &b->ports[peer];
			fab_guid_format(guid, g);
			fab_guid_format(b->nodes[pp->node_idx].guid, pg);
			snprintf(num, sizeof(num), "%u", p->port_num);
			snprintf(pnum, sizeof(pnum), "%u", pp->port_num);
			rbuf_reset(&ctx->tmp);
			rule_port_name(&ctx->tmp, b, (uint32_t)i);
			err = rule_emit_raw(ctx, g, num, pg, pnum, rbuf_str(&ctx->tmp), rbuf_str(&ctx->ev),
					    "its node did not answer the scan; the port was Active"
					    " with a link at %s", was);
		}
		if (err)
			return err;
	}
	return check_port_down_events(ctx);
}
