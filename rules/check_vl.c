// SPDX-License-Identifier: MIT
/*
 * Virtual lane rules (docs/rules/vl.*.md; the model: include/fabsweep/qos.h):
 *
 *   vl.op_vls_mismatch  the two ends of a link run different OperationalVLs,
 *                       or a switch-to-switch link runs fewer VLs than most
 *                       links of its tier;
 *   vl.sl_dropped       an SL traffic may use is mapped, on some port, to
 *                       VL 15 or to a VL the port does not run: its packets
 *                       are dropped there (VLMappingErrors);
 *   vl.starved          an operational data VL an SL in use reaches has no
 *                       weight in either VLArbitration table of the port
 *                       that sends on it: it is never sent.
 *
 * The SLs traffic may use are the [routing] sls parameter's (what the
 * credit-loop analysis assumes) that some CA port maps to one of its own
 * operational data VLs (fab_qos_sls_in_use: a host cannot send an SL its
 * port drops). Each pass is linear in the ports and the tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/qos.h"
#include "fabsweep/routing.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* "0-3,5": a set of SLs or VLs (fab_lanes_text). */
static void mask_list(struct rbuf *b, unsigned mask)
{
	char buf[48];

	rbuf_printf(b, "%s", fab_lanes_text(mask, buf, sizeof(buf)));
}

static bool up(const struct fab_port *p)
{
	return p->state >= FAB_STATE_INIT || p->phys_state == FAB_PHYS_LINKUP;
}

/* ---- vl.op_vls_mismatch ----------------------------------------------------- */

static bool switch_link(const struct fab_snapshot *s, const struct fab_link *l)
{
	return s->nodes[s->ports[l->a].node_idx].type == FAB_NODE_SWITCH &&
	       s->nodes[s->ports[l->b].node_idx].type == FAB_NODE_SWITCH;
}

static int link_tier(const struct fab_snapshot *s, const struct fab_link *l)
{
	return fab_tier(s->nodes[s->ports[l->a].node_idx].role,
			s->nodes[s->ports[l->b].node_idx].role);
}

/* The VLs a link runs: the smaller end's count; 0 when unknown. */
static unsigned link_vls(const struct fab_port *a, const struct fab_port *b)
{
	unsigned x = fab_vls_count(a->op_vls), y = fab_vls_count(b->op_vls);

	if (!x || !y)
		return x | y;
	return x < y ? x : y;
}

int check_vl_op_vls(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	unsigned min_links = (unsigned)rule_param(ctx, 0);
	uint32_t counts[FAB_TIER_COUNT][16] = { { 0 } }, total[FAB_TIER_COUNT] = { 0 };
	unsigned majority[FAB_TIER_COUNT] = { 0 };
	char va[16], vb[16], tier_name[32];
	int err;

	/* what the switch-to-switch links of each tier run */
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];
		const struct fab_port *a = &s->ports[l->a], *b = &s->ports[l->b];
		unsigned n = link_vls(a, b);

		if (!up(a) || !up(b) || !n || !switch_link(s, l))
			continue;
		counts[link_tier(s, l)][n]++;
		total[link_tier(s, l)]++;
	}
	for (int t = 0; t < FAB_TIER_COUNT; t++) {
		uint32_t best = 0;
		for (unsigned n = 1; n < 16; n++)
			if (counts[t][n] >= best && counts[t][n]) { /* a tie: the more VLs */
				best = counts[t][n];
				majority[t] = n;
			}
		if (total[t] < min_links)
			majority[t] = 0;
	}
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];
		const struct fab_port *a = &s->ports[l->a], *b = &s->ports[l->b];
		unsigned n = link_vls(a, b), tier = (unsigned)link_tier(s, l);
		bool differ = fab_vls_count(a->op_vls) && fab_vls_count(b->op_vls) &&
			      a->op_vls != b->op_vls;
		bool below = switch_link(s, l) && majority[tier] && n && n < majority[tier];

		if (!up(a) || !up(b) || (!differ && !below))
			continue;
		fab_tier_name((int)tier, tier_name, sizeof(tier_name));
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "op_vls=%s; peer_op_vls=%s", fab_vls_name(a->op_vls, va, sizeof(va)),
			    fab_vls_name(b->op_vls, vb, sizeof(vb)));
		rbuf_printf(&ctx->ev, "; vl_cap=%s", fab_vls_name(a->vl_cap, va, sizeof(va)));
		rbuf_printf(&ctx->ev, "; peer_vl_cap=%s", fab_vls_name(b->vl_cap, vb, sizeof(vb)));
		if (switch_link(s, l) && majority[tier])
			rbuf_printf(&ctx->ev, "; tier=%s; tier_vls=%u; tier_links=%u", tier_name,
				    majority[tier], total[tier]);
		fab_vls_name(a->op_vls, va, sizeof(va));
		fab_vls_name(b->op_vls, vb, sizeof(vb));
		if (differ && below)
			err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					     "the ends run different virtual lanes (%s and %s); most %s links "
					     "run %u", va, vb, tier_name, majority[tier]);
		else if (differ)
			err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					     "the ends run different virtual lanes (%s and %s)", va, vb);
		else
			err = rule_emit_port(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					     "link runs %u virtual lanes (%s) where most %s links run %u", n,
					     va, tier_name, majority[tier]);
		if (err)
			return err;
	}
	return 0;
}

/* ---- vl.sl_dropped, vl.starved ------------------------------------------------ */

/* The SLs judged: the [routing] sls that some CA maps to a VL it runs. */
static uint16_t sls_judged(const struct fab_rule_ctx *ctx)
{
	return (uint16_t)((unsigned)rule_shared(ctx, rule_param_routing_sls) &
			  fab_qos_sls_in_use(ctx->snap));
}

/* The in-port of the table before: the tables come by switch and in-port,
 * so each in-port is looked up once (a fabric's tables are a million). */
struct in_seen {
	uint32_t node; /* FAB_NONE: none yet */
	unsigned in;
	bool ok;       /* 0, or a port that is up */
};

/* The port (index) a table's packets leave by, FAB_NONE when the table
 * does not count: that port or its in-port (not 0) is not up. */
static uint32_t out_port(const struct fab_snapshot *s, const struct fab_sl2vl *t, struct in_seen *c)
{
	if (t->node_idx != c->node || t->in != c->in) {
		const struct fab_port *in = t->in ? fab_snapshot_port(s, t->node_idx, t->in) : NULL;
		*c = (struct in_seen){ t->node_idx, t->in, !t->in || (in && up(in)) };
	}
	const struct fab_port *out = fab_snapshot_port(s, t->node_idx, t->out);

	if (!out || !t->out || !up(out) || !c->ok)
		return FAB_NONE;
	return (uint32_t)(out - s->ports);
}

struct dropped {
	uint16_t sls;          /* SLs dropped leaving by the port */
	uint16_t in_ports;     /* tables that drop some (saturating) */
	uint8_t vl[FAB_N_SL];  /* the VL each is mapped to (the first table's) */
	uint8_t first_in;
};

int check_vl_sl_dropped(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_routing *r = s->routing;
	uint16_t judged = sls_judged(ctx);
	struct dropped *d;
	char va[16];
	int err = 0;

	if (!r || !judged)
		return 0;
	if (!(d = calloc(s->n_ports + 1, sizeof(*d))))
		return fab_err(-ENOMEM, "out of memory checking SL2VL tables");
	struct in_seen seen = { .node = FAB_NONE };
	for (size_t i = 0; i < r->n_sl2vl; i++) {
		const struct fab_sl2vl *t = &r->sl2vl[i];
		uint32_t pi = t->node_idx < s->n_nodes ? out_port(s, t, &seen) : FAB_NONE;
		unsigned vls = pi == FAB_NONE ? 0 : fab_vls_count(s->ports[pi].op_vls);
		uint16_t bad = 0;

		if (!vls)
			continue; /* the port's VLs are unknown: nothing to compare with */
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			if ((judged >> sl & 1) && (t->vl[sl] == FAB_VL_DROP || t->vl[sl] >= vls))
				bad |= (uint16_t)(1u << sl);
		if (!bad)
			continue;
		if (!d[pi].in_ports)
			d[pi].first_in = t->in;
		if (d[pi].in_ports < UINT16_MAX)
			d[pi].in_ports++;
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			if ((bad >> sl & 1) && !(d[pi].sls >> sl & 1))
				d[pi].vl[sl] = t->vl[sl];
		d[pi].sls |= bad;
	}
	for (size_t pi = 0; pi < s->n_ports && !err; pi++) {
		const struct dropped *x = &d[pi];
		const struct fab_port *p = &s->ports[pi];
		bool sw = s->nodes[p->node_idx].type == FAB_NODE_SWITCH;

		if (!x->sls)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_reset(&ctx->tmp);
		rbuf_printf(&ctx->ev, "sls=");
		mask_list(&ctx->ev, x->sls);
		rbuf_printf(&ctx->ev, "; vls=");
		for (unsigned sl = 0, k = 0; sl < FAB_N_SL; sl++)
			if (x->sls >> sl & 1) {
				rbuf_printf(&ctx->ev, "%s%u", k ? "," : "", x->vl[sl]);
				rbuf_printf(&ctx->tmp, "%sSL%u to VL%u", k++ ? ", " : "", sl, x->vl[sl]);
			}
		rbuf_printf(&ctx->ev, "; op_vls=%s; sls_in_use=", fab_vls_name(p->op_vls, va, sizeof(va)));
		mask_list(&ctx->ev, judged);
		if (sw)
			rbuf_printf(&ctx->ev, "; in_ports=%u; first_in_port=%u", x->in_ports, x->first_in);
		if (sw)
			err = rule_emit_port(ctx, (uint32_t)pi, rule_peer(s, (uint32_t)pi), rbuf_str(&ctx->ev),
					     "%s leaving here (from %u in-port%s; the port runs %s): those "
					     "packets are dropped", rbuf_str(&ctx->tmp), x->in_ports,
					     x->in_ports == 1 ? "" : "s", va);
		else
			err = rule_emit_port(ctx, (uint32_t)pi, rule_peer(s, (uint32_t)pi), rbuf_str(&ctx->ev),
					     "the host maps %s (its port runs %s): it cannot send on those SLs",
					     rbuf_str(&ctx->tmp), va);
	}
	free(d);
	return err;
}

static void entries(struct rbuf *b, const struct fab_vlarb_entry *e, unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		if (e[i].weight)
			rbuf_printf(b, "%s%u:%u", k++ ? "," : "", e[i].vl, e[i].weight);
	if (!k)
		rbuf_printf(b, "none");
}

int check_vl_starved(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_routing *r = s->routing;
	uint16_t judged = sls_judged(ctx);
	uint16_t *reached, *by; /* per port: VLs reached; per port x VL: the SLs */
	char va[16];
	int err = 0;

	if (!r || !judged || !s->qos)
		return 0;
	reached = calloc(s->n_ports + 1, sizeof(*reached));
	by = calloc((s->n_ports + 1) * FAB_N_SL, sizeof(*by));
	if (!reached || !by) {
		free(reached);
		free(by);
		return fab_err(-ENOMEM, "out of memory checking VL arbitration");
	}
	/* a table's VLs reached and by which SLs: worked out again only when
	 * its VLs or its port's differ from the table before's */
	struct in_seen seen = { .node = FAB_NONE };
	const uint8_t *last = NULL;
	unsigned last_vls = 0;
	uint16_t t_reached = 0, t_by[FAB_N_SL];
	for (size_t i = 0; i < r->n_sl2vl; i++) {
		const struct fab_sl2vl *t = &r->sl2vl[i];
		uint32_t pi = t->node_idx < s->n_nodes ? out_port(s, t, &seen) : FAB_NONE;
		unsigned vls = pi == FAB_NONE ? 0 : fab_vls_count(s->ports[pi].op_vls);

		if (!vls)
			continue;
		if (!last || vls != last_vls || memcmp(t->vl, last, FAB_N_SL)) {
			last = t->vl;
			last_vls = vls;
			t_reached = 0;
			memset(t_by, 0, sizeof(t_by));
			for (unsigned sl = 0; sl < FAB_N_SL; sl++) {
				unsigned vl = t->vl[sl];
				if (!(judged >> sl & 1) || vl >= vls || vl == FAB_VL_DROP)
					continue; /* dropped, not starved: vl.sl_dropped's */
				t_reached |= (uint16_t)(1u << vl);
				t_by[vl] |= (uint16_t)(1u << sl);
			}
		}
		reached[pi] |= t_reached;
		for (unsigned vl = 0; vl < FAB_N_SL; vl++)
			if (t_reached >> vl & 1)
				by[(size_t)pi * FAB_N_SL + vl] |= t_by[vl];
	}
	for (size_t i = 0; i < s->qos->n_vlarb && !err; i++) {
		const struct fab_vlarb *v = &s->qos->vlarb[i];
		uint32_t pi = v->port_idx;
		uint16_t starved, sls = 0;

		if (pi >= s->n_ports || !reached[pi])
			continue;
		starved = (uint16_t)(reached[pi] & ~fab_vlarb_weighted(v));
		for (unsigned vl = 0; vl < FAB_VL_DATA_MAX; vl++)
			if (starved >> vl & 1)
				sls |= by[(size_t)pi * FAB_N_SL + vl];
		if (!starved)
			continue;
		const struct fab_port *p = &s->ports[pi];
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "starved_vls=");
		mask_list(&ctx->ev, starved);
		rbuf_printf(&ctx->ev, "; sls=");
		mask_list(&ctx->ev, sls);
		rbuf_printf(&ctx->ev, "; op_vls=%s; vl_high_limit=%u; high=",
			    fab_vls_name(p->op_vls, va, sizeof(va)), p->vl_high_limit);
		entries(&ctx->ev, v->high, v->n_high);
		rbuf_printf(&ctx->ev, "; low=");
		entries(&ctx->ev, v->low, v->n_low);
		bool many = starved & (starved - 1);
		rbuf_reset(&ctx->tmp);
		rbuf_printf(&ctx->tmp, "VL%s ", many ? "s" : "");
		mask_list(&ctx->tmp, starved);
		rbuf_printf(&ctx->tmp, " (SL%s ", sls & (sls - 1) ? "s" : "");
		mask_list(&ctx->tmp, sls);
		err = rule_emit_port(ctx, pi, rule_peer(s, pi), rbuf_str(&ctx->ev),
				     "%s) %s no weight in either VLArbitration table: the port never "
				     "sends what is queued on %s", rbuf_str(&ctx->tmp),
				     many ? "have" : "has", many ? "them" : "it");
	}
	free(reached);
	free(by);
	return err;
}
