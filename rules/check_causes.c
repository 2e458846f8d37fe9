// SPDX-License-Identifier: MIT
/*
 * What the detail counters say (docs/causes.md): the cause an error
 * counter's finding names, and the lane a waiting port waits on.
 *
 *   - PortRcvErrors: PortRcvErrorDetails' six counters (physical,
 *     malformed packet, buffer overrun, DLID mapping, VL mapping, looping);
 *   - PortXmitDiscards: PortXmitDiscardDetails' four (inactive, neighbour
 *     MTU, switch lifetime, HOQ lifetime);
 *   - PortXmitWait: the VL whose PortVLXmitWait is largest, and the SLs the
 *     scan's SL2VL tables map to it on that port.
 *
 * The cause is, for a finding on an increase or a rate, the detail counter
 * that grew most between the samples it compares (when both read the
 * details); else, and for a finding on the value, the largest since the
 * counters were last cleared. It goes into the finding of the error
 * rule (port.errors, port.error_rate, port.error_increase), not a finding
 * of its own: one fault, one finding (docs/causes.md says why).
 *
 * And link.ber_high: the symbol error rate of each port's receive side
 * between two samples (the counter model's fab_counter_ber).
 */
#include <stdio.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/routing.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* One line per detail counter: its stable cause id (the evidence's
 * cause=, docs/causes.md), its name in a message and what to do. */
static const struct {
	unsigned ctr;
	const char *id, *name, *remedy;
} causes[] = {
	{ FAB_CTR_LOCAL_PHYSICAL_ERRORS, "physical", "physical errors",
	  "bad packets off the wire (CRC, symbols): the cable, a transceiver or the port; reseat "
	  "both ends, then swap the cable or transceiver, then replace the port" },
	{ FAB_CTR_MALFORMED_PACKET_ERRORS, "malformed_packet", "malformed packets",
	  "the peer builds packets wrongly: update or report the peer's firmware" },
	{ FAB_CTR_BUFFER_OVERRUN_ERRORS, "buffer_overrun", "buffer overrun",
	  "the peer sent beyond its credits: check flow control and the VL configuration "
	  "(VLCap, OperationalVLs, buffer allocation) of both ends" },
	{ FAB_CTR_DLID_MAPPING_ERRORS, "dlid_mapping", "DLID mapping",
	  "packets to LIDs this switch cannot forward: stale or incomplete forwarding tables "
	  "(see routing.unreachable); make the subnet manager sweep" },
	{ FAB_CTR_VL_MAPPING_ERRORS, "vl_mapping", "VL mapping",
	  "an SL mapped to a VL this port does not run: fix the SL2VL tables or the QoS policy" },
	{ FAB_CTR_LOOPING_ERRORS, "looping", "looping",
	  "packets that came back where they entered: a routing loop (see routing.unreachable)" },
	{ FAB_CTR_INACTIVE_DISCARDS, "inactive", "inactive discards",
	  "the port went down with traffic queued for it: see why the link dropped (port.down, "
	  "LinkDownedCounter)" },
	{ FAB_CTR_NEIGHBOR_MTU_DISCARDS, "neighbor_mtu", "neighbour MTU",
	  "packets larger than the neighbour's MTU: an MTU mismatch (see mtu.mismatch)" },
	{ FAB_CTR_SW_LIFETIME_LIMIT_DISCARDS, "sw_lifetime", "switch lifetime",
	  "packets timed out in the switch: congestion or a credit deadlock" },
	{ FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS, "hoq_lifetime", "HOQ lifetime",
	  "packets timed out at the head of the output queue: congestion or a credit deadlock" },
};

/* "VL 3 waits most (SLs 3,11)": the busiest VL of a port, the SLs the scan's
 * SL2VL tables map to it where the port is an out-port. Appends nothing
 * when no VL was read. */
static void busiest_vl(struct fab_rule_ctx *ctx, uint32_t port, const struct fab_counter_sample *c,
		       bool growth)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_port *p = &s->ports[port];
	const struct fab_counter_sample *e =
		growth && port < ctx->pairs->n_ports ? ctx->pairs->earlier[port] : NULL;
	uint64_t amount = 0;
	bool at_least = false, grew = false;
	int vl = fab_counter_vl_busiest(e, c, &amount, &at_least, &grew);
	unsigned sls = 0;

	if (vl < 0)
		return;
	for (size_t i = 0; s->routing && i < s->routing->n_sl2vl; i++) {
		const struct fab_sl2vl *t = &s->routing->sl2vl[i];
		if (t->node_idx != p->node_idx || t->out != p->port_num)
			continue;
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			if (t->vl[sl] == vl)
				sls |= 1u << sl;
	}
	rbuf_printf(&ctx->tmp, "; VL %d waits most (PortVLXmitWait %s %llu%s)", vl,
		    grew ? "rose by" : "at", (unsigned long long)amount, at_least ? " or more" : "");
	rbuf_sep(&ctx->ev, "; ");
	rbuf_printf(&ctx->ev, "vl=%d; PortVLXmitWait%d%s=%llu%s", vl, vl, grew ? "_increase" : "",
		    (unsigned long long)amount, at_least ? "+" : "");
	if (!sls)
		return;
	rbuf_printf(&ctx->tmp, ", SL%s", sls & (sls - 1) ? "s" : "");
	rbuf_printf(&ctx->ev, "; sls=");
	for (unsigned sl = 0, n = 0; sl < FAB_N_SL; sl++)
		if (sls >> sl & 1) {
			rbuf_printf(&ctx->tmp, "%s%u", n ? "," : " ", sl);
			rbuf_printf(&ctx->ev, "%s%u", n++ ? "," : "", sl);
		}
	rbuf_printf(&ctx->tmp, " on it");
}

/* What the port and its peer run, for the causes that depend on it: inside
 * the cause's parentheses. */
static void cause_context(struct fab_rule_ctx *ctx, uint32_t port, unsigned ctr)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_port *p = &s->ports[port];
	uint32_t peer = rule_peer(s, port);

	if (ctr == FAB_CTR_VL_MAPPING_ERRORS && p->op_vls)
		rbuf_printf(&ctx->tmp, "; OperationalVLs %u here", p->op_vls);
	if (ctr == FAB_CTR_NEIGHBOR_MTU_DISCARDS && peer != FAB_NONE &&
	    fab_mtu_bytes(p->mtu_active) && fab_mtu_bytes(s->ports[peer].mtu_active))
		rbuf_printf(&ctx->tmp, "; MTU %u here, %u at the peer", fab_mtu_bytes(p->mtu_active),
			    fab_mtu_bytes(s->ports[peer].mtu_active));
}

void rule_counter_cause(struct fab_rule_ctx *ctx, uint32_t port, unsigned ctr,
			const struct fab_counter_sample *c, bool growth)
{
	uint32_t mask = fab_counter_details_of(ctr);
	unsigned attr = ctr == FAB_CTR_RCV_ERRORS ? FAB_PMA_RCV_ERROR_DETAILS
						  : FAB_PMA_XMIT_DISCARD_DETAILS;
	struct fab_counter_delta d;
	bool by_delta, at_least = false;
	int best = -1;
	uint64_t top = 0;

	if (ctr == FAB_CTR_XMIT_WAIT) {
		busiest_vl(ctx, port, c, growth);
		return;
	}
	if (!mask)
		return;
	if (c->unsupported & attr) {
		rbuf_printf(&ctx->tmp, "; cause unknown: %s not supported by its PMA",
			    fab_pma_attr_name(attr));
		rbuf_sep(&ctx->ev, "; ");
		rbuf_printf(&ctx->ev, "%s=unsupported", fab_pma_attr_name(attr));
		return;
	}
	if ((c->valid & mask) != mask)
		return; /* not read (an import, an older scan) */
	/* for a finding on growth, the details' growth when both samples have
	 * them; else (or for one on the value) their totals */
	by_delta = growth && rule_delta(ctx, port, mask, &d) && (d.valid & mask) == mask;
	rbuf_sep(&ctx->ev, "; ");
	for (unsigned k = 0, n = 0; k < FAB_CTR__COUNT; k++) {
		if (!(mask >> k & 1))
			continue;
		uint64_t x = by_delta ? d.inc[k] : c->v[k];
		bool lb = by_delta ? (d.at_least >> k & 1) : fab_counter_saturated(c, k);
		rbuf_printf(&ctx->ev, "%s%s%s=%llu%s", n++ ? "; " : "", fab_counter_name(k),
			    by_delta ? "_increase" : "", (unsigned long long)x, lb ? "+" : "");
		if (x > top) {
			top = x;
			best = (int)k;
			at_least = lb;
		}
	}
	if (best < 0) {
		rbuf_printf(&ctx->tmp, "; its details (%s) are all 0%s", fab_pma_attr_name(attr),
			    by_delta ? " over the interval" : "");
		rbuf_printf(&ctx->ev, "; cause=none");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(causes); i++) {
		if (causes[i].ctr != (unsigned)best)
			continue;
		rbuf_printf(&ctx->tmp, "; cause: %s (%s %s %llu%s", causes[i].name,
			    fab_counter_name((unsigned)best), by_delta ? "rose by" : "at",
			    (unsigned long long)top, at_least ? " or more" : "");
		cause_context(ctx, port, (unsigned)best);
		rbuf_printf(&ctx->tmp, "): %s", causes[i].remedy);
		rbuf_printf(&ctx->ev, "; cause=%s", causes[i].id);
	}
	/* a lifetime discard: which lane waits */
	if (best == FAB_CTR_SW_LIFETIME_LIMIT_DISCARDS || best == FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS) {
		if (c->vl_valid)
			busiest_vl(ctx, port, c, by_delta);
		else
			rbuf_printf(&ctx->tmp, "; %s", c->unsupported & FAB_PMA_VL_XMIT_WAIT
							  ? "per-VL waits not supported by its PMA"
							  : "per-VL waits not read");
	}
}

int check_link_ber(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const double limit = rule_param(ctx, 0);
	int err = 0;

	if (limit < 0)
		return 0;
	for (uint32_t i = 0; i < s->n_ports && !err; i++) {
		const struct fab_port *p = &s->ports[i];
		struct fab_counter_delta d;
		double ber;
		bool at_least;

		if (!p->port_num || p->state != FAB_STATE_ACTIVE ||
		    !rule_delta(ctx, i, 1u << FAB_CTR_SYMBOL_ERRORS, &d) ||
		    !fab_counter_ber(&d, p->width_active, p->speed_active, &ber, &at_least) ||
		    ber <= limit)
			continue;
		char w[16], sp[16], amount[64];
		fab_widths_format(p->width_active, w, sizeof(w));
		fab_speeds_format(p->speed_active, sp, sizeof(sp));
		fab_counter_increase_text(d.inc[FAB_CTR_SYMBOL_ERRORS],
					  d.reset >> FAB_CTR_SYMBOL_ERRORS & 1,
					  d.saturated >> FAB_CTR_SYMBOL_ERRORS & 1, amount, sizeof(amount));
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "ber=%.3g%s; SymbolErrorCounter_increase=%llu%s; interval_s=%g; "
			    "lanes=%u; lane_gbps=%g", ber, at_least ? "+" : "",
			    (unsigned long long)d.inc[FAB_CTR_SYMBOL_ERRORS], at_least ? "+" : "",
			    d.secs, fab_width_lanes(p->width_active),
			    fab_speed_lane_gbaud(p->speed_active));
		err = rule_emit_port(ctx, i, rule_peer(s, i), rbuf_str(&ctx->ev),
				     "symbol error rate %s%.3g > %g (%s symbol errors in %gs at %s %s)",
				     at_least ? "at least " : "", ber, limit, amount, d.secs, w, sp);
	}
	return err;
}
