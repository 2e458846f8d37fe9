// SPDX-License-Identifier: MIT
/*
 * RoCE congestion control rules: ECN and DCQCN on the RoCE priority, the
 * DSCP and priority of CNPs, and the NICs' trust mode. They read what the
 * NICs' drivers expose (struct fab_ecn, sysfs <netdev>/ecn) and the trust
 * state derived from their DCB application table (fab_eth_port_trust());
 * what is not exposed is unknown and judged by no rule. RoCE interfaces
 * and PFC come from the shared view (rules/check_roce.c).
 */
#include <stdio.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* ---- roce.ecn_disabled ------------------------------------------------------ */

/* "0,1,3" for a point whose bitmap is known, else "unknown". */
static void ecn_points(struct rbuf *b, const struct fab_ecn *e, uint8_t flag, uint8_t bits)
{
	if (e->known & flag)
		roce_prio_list(b, bits);
	else
		rbuf_printf(b, "unknown");
}

int check_roce_ecn_disabled(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct roce_view *v = ctx->roce;
	unsigned prio = roce_priority(ctx);
	uint8_t bit = (uint8_t)(1u << prio);
	int err = 0;

	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		const struct fab_ecn *e = &r->eth_ports[i].ecn;
		uint8_t pfc;
		bool np_off = (e->known & FAB_ECN_NP) && !(e->np_enabled & bit);
		bool rp_off = (e->known & FAB_ECN_RP) && !(e->rp_enabled & bit);

		if ((!np_off && !rp_off) || !roce_port(v, (uint32_t)i))
			continue;
		/* PFC off there is roce.pfc_disabled's business */
		if (roce_port_pfc(v, (uint32_t)i, &pfc) == PFC_UNKNOWN || !(pfc & bit))
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "ecn_np_priorities=");
		ecn_points(&ctx->ev, e, FAB_ECN_NP, e->np_enabled);
		rbuf_printf(&ctx->ev, "; ecn_rp_priorities=");
		ecn_points(&ctx->ev, e, FAB_ECN_RP, e->rp_enabled);
		rbuf_printf(&ctx->ev, "; pfc_priorities=");
		roce_prio_list(&ctx->ev, pfc);
		rbuf_printf(&ctx->ev, "; roce_priority=%u", prio);
		err = rule_emit_eth(ctx, (uint32_t)i, roce_peer(v, (uint32_t)i), rbuf_str(&ctx->ev),
				    "ECN is off on the RoCE priority %u, where PFC is on: %s", prio,
				    np_off && rp_off ? "notification point (CNPs) and reaction point (DCQCN) off"
				    : np_off ? "notification point (CNPs) off"
					     : "reaction point (DCQCN) off");
	}
	return err;
}

/* ---- roce.cnp_mismatch ------------------------------------------------------- */

/* What CNPs should use: the configured value, else the one most RoCE
 * interfaces use (value -1 when two values tie for most: split). votes:
 * how many use it, of total. */
struct cnp_expect {
	int value;
	size_t votes, total;
	bool configured, split;
};

static struct cnp_expect cnp_majority(const uint32_t *count, unsigned n, double configured)
{
	struct cnp_expect x = { .value = -1 };
	size_t best = 0;

	for (unsigned k = 0; k < n; k++) {
		x.total += count[k];
		if (count[k] > best) {
			best = count[k];
			x.value = (int)k;
		} else if (count[k] == best && best) {
			x.value = -1; /* a tie so far */
		}
	}
	x.votes = best;
	x.split = x.value < 0 && best;
	if (configured >= 0) {
		x.value = (int)configured;
		x.configured = true;
		x.split = false;
		x.votes = x.value < (int)n ? count[x.value] : 0;
	}
	return x;
}

static void cnp_expected_ev(struct rbuf *b, const char *name, const struct cnp_expect *x)
{
	if (x->value < 0)
		rbuf_printf(b, "; expected_%s=none (no majority of %zu)", name, x->total);
	else if (x->configured)
		rbuf_printf(b, "; expected_%s=%d (configured)", name, x->value);
	else
		rbuf_printf(b, "; expected_%s=%d (%zu of %zu)", name, x->value, x->votes, x->total);
}

/* One problem of one value, appended to b ("DSCP 46 (2 of 3 RoCE
 * interfaces use 48)"); false when it has none. */
static bool cnp_problem(struct rbuf *b, const char *what, unsigned value,
			const struct cnp_expect *x, unsigned roce)
{
	if (value != roce && !x->split && (x->value < 0 || value == (unsigned)x->value))
		return false;
	rbuf_sep(b, " and ");
	if (value == roce)
		rbuf_printf(b, "%s %u (the RoCE %s itself)", what, value, what);
	else if (x->split)
		rbuf_printf(b, "%s %u (the RoCE interfaces disagree and no %s is used by most: set [roce] cnp_%s)",
			    what, value, what, !strcmp(what, "DSCP") ? "dscp" : "priority");
	else if (x->configured)
		rbuf_printf(b, "%s %u (the configured CNP %s is %d)", what, value, what, x->value);
	else
		rbuf_printf(b, "%s %u (%zu of %zu RoCE interfaces use %d)", what, value, x->votes,
			    x->total, x->value);
	return true;
}

int check_roce_cnp_mismatch(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct roce_view *v = ctx->roce;
	unsigned prio = roce_priority(ctx), dscp = (unsigned)rule_shared(ctx, rule_param_roce_dscp);
	int err = 0;

	/* the RoCE interfaces' votes (rules/roce_votes.c), the fabric's when
	 * this is part of one */
	struct cnp_expect xd = cnp_majority(v->votes->cnp_dscp, 64, rule_param(ctx, 0));
	struct cnp_expect xp = cnp_majority(v->votes->cnp_prio, FAB_PRIOS, rule_param(ctx, 1));

	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		const struct fab_ecn *e = &r->eth_ports[i].ecn;
		bool bad = false;

		if (!(e->known & (FAB_ECN_CNP_DSCP | FAB_ECN_CNP_PRIO)) || !roce_port(v, (uint32_t)i))
			continue;
		rbuf_reset(&ctx->tmp);
		if (e->known & FAB_ECN_CNP_DSCP)
			bad |= cnp_problem(&ctx->tmp, "DSCP", e->cnp_dscp, &xd, dscp);
		if (e->known & FAB_ECN_CNP_PRIO)
			bad |= cnp_problem(&ctx->tmp, "priority", e->cnp_prio, &xp, prio);
		if (!bad)
			continue; /* the evidence only for a finding: a fleet has 100,000s of ports */
		rbuf_reset(&ctx->ev);
		if (e->known & FAB_ECN_CNP_DSCP) {
			rbuf_printf(&ctx->ev, "cnp_dscp=%u", e->cnp_dscp);
			cnp_expected_ev(&ctx->ev, "cnp_dscp", &xd);
		}
		if (e->known & FAB_ECN_CNP_PRIO) {
			rbuf_sep(&ctx->ev, "; ");
			rbuf_printf(&ctx->ev, "cnp_priority=%u", e->cnp_prio);
			cnp_expected_ev(&ctx->ev, "cnp_priority", &xp);
		}
		rbuf_printf(&ctx->ev, "; roce_dscp=%u; roce_priority=%u", dscp, prio);
		err = rule_emit_eth(ctx, (uint32_t)i, roce_peer(v, (uint32_t)i), rbuf_str(&ctx->ev),
				    "CNPs are sent with %s", rbuf_str(&ctx->tmp));
	}
	return err;
}

/* ---- roce.trust_mismatch ----------------------------------------------------- */

int check_roce_trust_mismatch(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct roce_view *v = ctx->roce;
	const uint32_t *votes = v->votes->trust; /* the fabric's, rules/roce_votes.c */
	size_t known;
	unsigned fabric;
	int err = 0;

	known = (size_t)votes[FAB_TRUST_DSCP] + votes[FAB_TRUST_PCP];
	if (votes[FAB_TRUST_DSCP] == votes[FAB_TRUST_PCP])
		return 0; /* no majority (or nothing known): nobody to call the odd one out */
	fabric = votes[FAB_TRUST_DSCP] > votes[FAB_TRUST_PCP] ? FAB_TRUST_DSCP : FAB_TRUST_PCP;

	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		unsigned t;

		if (!roce_port(v, (uint32_t)i) ||
		    (t = fab_eth_port_trust(r, &r->eth_ports[i])) == FAB_TRUST_UNKNOWN || t == fabric)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "trust=%s; fabric_trust=%s (%u of %zu)", fab_trust_name(t),
			    fab_trust_name(fabric), votes[fabric], known);
		if (t == FAB_TRUST_PCP)
			err = rule_emit_eth(ctx, (uint32_t)i, roce_peer(v, (uint32_t)i), rbuf_str(&ctx->ev),
					    "trusts PCP while %u of %zu RoCE NICs trust DSCP: DSCP-marked RoCE traffic does not reach priority %u here",
					    votes[fabric], known, roce_priority(ctx));
		else
			err = rule_emit_eth(ctx, (uint32_t)i, roce_peer(v, (uint32_t)i), rbuf_str(&ctx->ev),
					    "trusts DSCP while %u of %zu RoCE NICs trust PCP: its priorities come from a DSCP table the fabric does not use",
					    votes[fabric], known);
	}
	return err;
}
