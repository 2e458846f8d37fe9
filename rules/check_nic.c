// SPDX-License-Identifier: MIT
/*
 * The NIC counter rules (roce.pause_storm, roce.pause_unexpected,
 * eth.discards, eth.fec_uncorrectable, eth.ber_high) over the Ethernet
 * ports' NIC counters (ethtool, canonical names: core/nic_counter.c). Each
 * judges what a counter counted since the earlier reading (the second
 * sample of collect --interval, else the baseline's: check --baseline),
 * resets included, by the counter model; a port with no earlier reading is
 * judged by what its counters hold, counted since they were last cleared
 * (the driver's load), and the finding says so.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* " since the baseline (3600 s)" / " in the 1 s between two samples" / " since the counters were cleared" */
static void period(struct rbuf *b, const struct fab_nic_view *v)
{
	if (!v->any_inc)
		rbuf_printf(b, " since the counters were last cleared");
	else if (v->baseline)
		rbuf_printf(b, " in the %.0f s since the baseline", v->secs);
	else
		rbuf_printf(b, " in the %g s between two samples", v->secs);
}

static void ev_amount(struct rbuf *b, const char *name, int prio, const struct fab_nic_amount *a)
{
	rbuf_sep(b, "; ");
	if (prio >= 0)
		rbuf_printf(b, "%s_prio%d%s=%llu%s", name, prio, a->since_clear ? "" : "_increase",
			    (unsigned long long)a->n, a->at_least ? "+" : "");
	else
		rbuf_printf(b, "%s%s=%llu%s", name, a->since_clear ? "" : "_increase", (unsigned long long)a->n,
			    a->at_least ? "+" : "");
}

/* Runs fn for every Ethernet port with NIC counters, with its view. */
static int each_port(struct fab_rule_ctx *ctx,
		     int (*fn)(struct fab_rule_ctx *ctx, uint32_t port, const struct fab_nic_view *v))
{
	const struct fab_roce *r = ctx->snap->roce;
	struct fab_nic_base base;
	struct fab_nic_view *v = malloc(sizeof(*v));
	int err = 0;

	if (!v || fab_nic_base_init(ctx->base ? ctx->base->roce : NULL, &base)) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		if (!r->eth_ports[i].nic_count)
			continue;
		fab_nic_view(r, (uint32_t)i, &base, v);
		err = fn(ctx, (uint32_t)i, v);
	}
	fab_nic_base_free(&base);
	free(v);
	return err;
}

static int emit(struct fab_rule_ctx *ctx, uint32_t port, const char *ev, const char *msg)
{
	return rule_emit_eth(ctx, port, ctx->roce ? roce_peer(ctx->roce, port) : FAB_NONE, ev, "%s", msg);
}

/* ---- roce.pause_storm ------------------------------------------------------------- */

static int pause_storm(struct fab_rule_ctx *ctx, uint32_t port, const struct fab_nic_view *v)
{
	double max_events = rule_param(ctx, 0), share = rule_param(ctx, 1);
	struct fab_nic_amount warn = fab_nic_amount(v, FAB_NIC_PAUSE_STORM_WARNING, 0);
	struct fab_nic_amount err = fab_nic_amount(v, FAB_NIC_PAUSE_STORM_ERROR, 0);
	bool bad = false;

	rbuf_reset(&ctx->tmp);
	rbuf_reset(&ctx->ev);
	if (max_events >= 0 && (warn.known || err.known) && (double)(warn.n + err.n) > max_events) {
		rbuf_printf(&ctx->tmp, "pause storm: %llu%s stall-prevention event%s (errors, where it stopped honouring pauses: %llu; warnings: %llu)",
			    (unsigned long long)(warn.n + err.n), warn.at_least || err.at_least ? " or more" : "",
			    warn.n + err.n == 1 ? "" : "s", (unsigned long long)err.n, (unsigned long long)warn.n);
		period(&ctx->tmp, v);
		if (warn.known)
			ev_amount(&ctx->ev, "pause_storm_warning_events", -1, &warn);
		if (err.known)
			ev_amount(&ctx->ev, "pause_storm_error_events", -1, &err);
		bad = true;
	}
	/* time paused per priority (slot 0: 802.3x pause): needs an interval */
	for (unsigned s = 0; share >= 0 && v->secs > 0 && s < FAB_NIC_SLOTS; s++) {
		for (int dir = 0; dir < 2; dir++) {
			unsigned ctr = dir ? FAB_NIC_TX_PAUSE_DURATION : FAB_NIC_RX_PAUSE_DURATION;
			if (!v->have_inc[ctr][s])
				continue;
			double f = (double)v->inc[ctr][s] / 1e6 / v->secs;
			if (f <= share)
				continue;
			rbuf_sep(&ctx->tmp, "; ");
			if (s)
				rbuf_printf(&ctx->tmp, "priority %u: ", s - 1);
			else
				rbuf_printf(&ctx->tmp, "link-level (802.3x) pause: ");
			rbuf_printf(&ctx->tmp, dir ? "it paused its peer %.0f%% of the time" : "its peer paused it %.0f%% of the time",
				    100 * f);
			period(&ctx->tmp, v);
			struct fab_nic_amount a = { .known = true, .n = v->inc[ctr][s], .at_least = v->reset[ctr][s] };
			ev_amount(&ctx->ev, fab_nic_ctr_name(ctr), (int)s - 1, &a);
			bad = true;
		}
	}
	if (!bad)
		return 0;
	if (v->secs > 0)
		rbuf_printf(&ctx->ev, "; seconds=%.0f", v->secs);
	return emit(ctx, port, rbuf_str(&ctx->ev), rbuf_str(&ctx->tmp));
}

int check_roce_pause_storm(struct fab_rule_ctx *ctx)
{
	return each_port(ctx, pause_storm);
}

/* ---- roce.pause_unexpected ---------------------------------------------------------- */

static int pause_unexpected(struct fab_rule_ctx *ctx, uint32_t port, const struct fab_nic_view *v)
{
	double max = rule_param(ctx, 0);
	uint8_t pfc = 0;

	if (max < 0 || roce_port_pfc(ctx->roce, port, &pfc) == PFC_UNKNOWN)
		return 0; /* without the port's PFC configuration nothing is unexpected */
	rbuf_reset(&ctx->tmp);
	rbuf_reset(&ctx->ev);
	for (unsigned s = 0; s < FAB_NIC_SLOTS; s++) {
		struct fab_nic_amount rx = fab_nic_amount(v, FAB_NIC_RX_PAUSE, s), tx = fab_nic_amount(v, FAB_NIC_TX_PAUSE, s);
		uint64_t n = (rx.known ? rx.n : 0) + (tx.known ? tx.n : 0);
		if (!n || (double)n <= max)
			continue;
		if (s && (pfc & (1u << (s - 1))))
			continue; /* PFC is on there: pauses are its job */
		if (!s && !pfc)
			continue; /* 802.3x pause without PFC: a lossless setup of its own */
		rbuf_sep(&ctx->tmp, "; ");
		if (s)
			rbuf_printf(&ctx->tmp, "priority %u: %llu pause frames (%llu received, %llu sent), PFC is off there",
				    s - 1, (unsigned long long)n, (unsigned long long)rx.n, (unsigned long long)tx.n);
		else
			rbuf_printf(&ctx->tmp, "%llu link-level (802.3x) pause frames (%llu received, %llu sent) while PFC is on",
				    (unsigned long long)n, (unsigned long long)rx.n, (unsigned long long)tx.n);
		if (rx.known)
			ev_amount(&ctx->ev, "rx_pause", (int)s - 1, &rx);
		if (tx.known)
			ev_amount(&ctx->ev, "tx_pause", (int)s - 1, &tx);
	}
	if (!*rbuf_str(&ctx->tmp))
		return 0;
	period(&ctx->tmp, v);
	rbuf_printf(&ctx->ev, "; pfc_priorities=");
	roce_prio_list(&ctx->ev, pfc);
	return emit(ctx, port, rbuf_str(&ctx->ev), rbuf_str(&ctx->tmp));
}

int check_roce_pause_unexpected(struct fab_rule_ctx *ctx)
{
	return each_port(ctx, pause_unexpected);
}

/* ---- eth.discards ------------------------------------------------------------------- */

static int discards(struct fab_rule_ctx *ctx, uint32_t port, const struct fab_nic_view *v)
{
	static const struct {
		unsigned ctr, frames;
		const char *what;
	} kinds[] = {
		{ FAB_NIC_RX_DISCARDS_PHY, FAB_NIC_RX_FRAMES, "dropped at the port for lack of buffer" },
		{ FAB_NIC_RX_OUT_OF_BUFFER, FAB_NIC_RX_FRAMES, "dropped for lack of receive descriptors (the host did not keep up)" },
		{ FAB_NIC_TX_DISCARDS_PHY, FAB_NIC_TX_FRAMES, "dropped on transmit" },
	};
	double ratio = rule_param(ctx, 0), min = rule_param(ctx, 1);
	bool framed[FAB_NIC__COUNT] = { false }; /* frames already in the evidence */

	rbuf_reset(&ctx->tmp);
	rbuf_reset(&ctx->ev);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct fab_nic_amount d = fab_nic_amount(v, kinds[k].ctr, 0), f = fab_nic_amount(v, kinds[k].frames, 0);
		if (!d.known || !d.n || (min >= 0 && (double)d.n <= min))
			continue;
		if (ratio >= 0 && f.known && f.n && (double)d.n <= ratio * (double)f.n)
			continue;
		rbuf_sep(&ctx->tmp, "; ");
		rbuf_printf(&ctx->tmp, "%llu%s frames %s", (unsigned long long)d.n, d.at_least ? " or more" : "",
			    kinds[k].what);
		if (f.known && f.n)
			rbuf_printf(&ctx->tmp, " (%.3g of %llu)", (double)d.n / (double)f.n, (unsigned long long)f.n);
		ev_amount(&ctx->ev, fab_nic_ctr_name(kinds[k].ctr), -1, &d);
		if (f.known && !framed[kinds[k].frames])
			ev_amount(&ctx->ev, fab_nic_ctr_name(kinds[k].frames), -1, &f);
		framed[kinds[k].frames] = true;
	}
	if (!*rbuf_str(&ctx->tmp))
		return 0;
	period(&ctx->tmp, v);
	return emit(ctx, port, rbuf_str(&ctx->ev), rbuf_str(&ctx->tmp));
}

int check_eth_discards(struct fab_rule_ctx *ctx)
{
	return each_port(ctx, discards);
}

/* ---- eth.fec_uncorrectable --------------------------------------------------------- */

static int fec_uncorrectable(struct fab_rule_ctx *ctx, uint32_t port, const struct fab_nic_view *v)
{
	struct fab_nic_amount u = fab_nic_amount(v, FAB_NIC_FEC_UNCORRECTABLE, 0), c = fab_nic_amount(v, FAB_NIC_FEC_CORRECTED, 0);
	double max = rule_param(ctx, 0);

	if (!u.known || max < 0 || (double)u.n <= max)
		return 0;
	rbuf_reset(&ctx->tmp);
	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->tmp, "%llu%s FEC blocks could not be corrected (frames lost on the link)",
		    (unsigned long long)u.n, u.at_least ? " or more" : "");
	period(&ctx->tmp, v);
	ev_amount(&ctx->ev, "fec_uncorrectable_blocks", -1, &u);
	if (c.known)
		ev_amount(&ctx->ev, "fec_corrected_blocks", -1, &c);
	return emit(ctx, port, rbuf_str(&ctx->ev), rbuf_str(&ctx->tmp));
}

int check_eth_fec_uncorrectable(struct fab_rule_ctx *ctx)
{
	return each_port(ctx, fec_uncorrectable);
}

/* ---- eth.ber_high ---------------------------------------------------------------------- */

static int ber_high(struct fab_rule_ctx *ctx, uint32_t port, const struct fab_nic_view *v)
{
	struct fab_nic_amount cb, rb;
	double max = rule_param(ctx, 0), ber;

	if (max < 0 || !fab_nic_pre_fec_ber(v, &ber, &cb, &rb) || ber <= max) /* off */
		return 0;
	rbuf_reset(&ctx->tmp);
	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->tmp, "pre-FEC bit error ratio %.2e is above %g (%llu corrected bits of %llu)", ber, max,
		    (unsigned long long)cb.n, (unsigned long long)rb.n);
	period(&ctx->tmp, v);
	rbuf_printf(&ctx->ev, "pre_fec_ber=%.3e", ber);
	ev_amount(&ctx->ev, "fec_corrected_bits", -1, &cb);
	ev_amount(&ctx->ev, "rx_bits", -1, &rb);
	return emit(ctx, port, rbuf_str(&ctx->ev), rbuf_str(&ctx->tmp));
}

int check_eth_ber_high(struct fab_rule_ctx *ctx)
{
	return each_port(ctx, ber_high);
}
