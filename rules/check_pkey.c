// SPDX-License-Identifier: MIT
/*
 * Partition rules on the P_Key tables (snap->pkeys; the model:
 * include/fabsweep/pkey.h, docs/partitions.md). Linear: each port's table
 * once, each partition's members counted in one pass.
 *
 *   pkey.enforcement_drop  a host port's partition its switch port filters out
 *   pkey.limited_pair      a host-to-host partition whose hosts are limited members
 *   pkey.default_missing   a port without the default partition
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/pkey.h"
#include "fabsweep/routing.h"
#include "rules_priv.h"

#define N_EXAMPLES 3

int check_pkey_enforcement_drop(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_pkeys *k = s->pkeys;
	char a[8];

	for (size_t i = 0; k && i < k->n; i++) {
		const struct fab_port_pkeys *h = &k->ports[i];
		uint32_t pi = h->port_idx, peer;
		const struct fab_port_pkeys *sw;

		if (!rule_host_port(s, pi) || h->status == FAB_LFT_FAILED)
			continue;
		peer = s->ports[pi].remote_idx;
		if (s->nodes[s->ports[peer].node_idx].type != FAB_NODE_SWITCH ||
		    !(sw = fab_pkeys_of(s, peer)) || sw->status != FAB_LFT_OK ||
		    !(sw->enforce & (FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB)))
			continue;
		unsigned n_drop = 0;
		rbuf_reset(&ctx->ev);
		for (size_t e = 0; e < h->n; e++) {
			unsigned p = h->pkey[e] & FAB_PKEY_MASK;

			if (!p || fab_pkeys_member(sw, p))
				continue;
			rbuf_printf(&ctx->ev, "%s%s", n_drop ? "," : "dropped=", fab_pkey_format(p, a));
			n_drop++;
		}
		if (!n_drop)
			continue;
		rbuf_printf(&ctx->ev, "; enforcement=%s", (sw->enforce & FAB_PKEY_ENF_INB) ?
			    ((sw->enforce & FAB_PKEY_ENF_OUTB) ? "in,out" : "in") : "out");
		int err = rule_emit_port(ctx, pi, peer, rbuf_str(&ctx->ev),
					 "the switch port enforces partitions and filters out %u of the "
					 "host port's partitions: its traffic in them is dropped", n_drop);
		if (err)
			return err;
	}
	return 0;
}

int check_pkey_limited_pair(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_pkeys *k = s->pkeys;
	char a[8];

	for (size_t pi = 0; pi < ctx->rule->n_params; pi++) {
		unsigned part = (unsigned)rule_param(ctx, pi);
		uint32_t n_full = 0, n_lim = 0, ex[N_EXAMPLES];

		if (!part)
			continue;
		for (size_t i = 0; k && i < k->n; i++) {
			if (!rule_host_port(s, k->ports[i].port_idx))
				continue;
			enum fab_pkey_member m = fab_pkeys_member(&k->ports[i], part);
			if (m == FAB_PKEY_FULL_MEMBER)
				n_full++;
			else if (m == FAB_PKEY_LIMITED && n_lim++ < N_EXAMPLES)
				ex[n_lim - 1] = k->ports[i].port_idx;
		}
		if (n_lim < 2)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "partition=%s; limited=%u; full=%u; e.g. ", fab_pkey_format(part, a),
			    n_lim, n_full);
		for (uint32_t e = 0; e < n_lim && e < N_EXAMPLES; e++) {
			if (e)
				rbuf_printf(&ctx->ev, ", ");
			rule_port_name(&ctx->ev, s, ex[e]);
		}
		int err = rule_emit_raw(ctx, NULL, NULL, NULL, NULL, fab_pkey_format(part, a),
					rbuf_str(&ctx->ev),
					"%u host ports are limited members of partition %s, meant for "
					"host-to-host traffic: no two of them can talk to each other",
					n_lim, fab_pkey_format(part, a));
		if (err)
			return err;
	}
	return 0;
}

int check_pkey_default_missing(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_pkeys *k = s->pkeys;
	unsigned where = (unsigned)rule_param(ctx, 0); /* 0 off, 1 hosts, 2 hosts and switches */

	for (size_t i = 0; where && k && i < k->n; i++) {
		const struct fab_port_pkeys *t = &k->ports[i];
		uint32_t pi = t->port_idx;
		bool sw = s->nodes[s->ports[pi].node_idx].type == FAB_NODE_SWITCH;

		if (t->status != FAB_LFT_OK || (sw ? where < 2 : !rule_host_port(s, pi)))
			continue;
		if (fab_pkeys_member(t, FAB_PKEY_DEFAULT))
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "entries=%u", t->n);
		int err = rule_emit_port(ctx, pi, s->ports[pi].remote_idx, rbuf_str(&ctx->ev),
					 "the port is not a member of the default partition (0x7fff): "
					 "the subnet manager and IPoIB's default interface cannot reach it");
		if (err)
			return err;
	}
	return 0;
}
