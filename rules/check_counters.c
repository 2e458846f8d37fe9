// SPDX-License-Identifier: MIT
/*
 * One generic counter check for port.errors, port.error_rate,
 * port.link_flapping and port.congestion: each parameter names a counter
 * (param->arg) and how to compare it (param->type):
 *
 *   FAB_PARAM_COUNT     the latest value  > threshold
 *   FAB_PARAM_INCREASE  increase between samples (or since the baseline) > allowed
 *   FAB_PARAM_RATE      that increase per second > threshold
 *
 * One finding per port, naming every counter over its limit, and for
 * PortRcvErrors, PortXmitDiscards and PortXmitWait what the detail counters
 * say caused it (rules/check_causes.c, docs/causes.md). Increases,
 * resets and saturation are the counter model's (core/counter.c): a counter
 * at its all-ones value is saturated (at least that much); one that went
 * down was cleared in between and rose at least its new value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* Whether the rule has a rate parameter for counter k. */
static bool has_rate_param(const struct fab_rule *r, int k)
{
	for (size_t i = 0; i < r->n_params; i++)
		if (r->params[i].type == FAB_PARAM_RATE && r->params[i].arg == k)
			return true;
	return false;
}

static void fmt_num(char *buf, size_t len, double v)
{
	if (v >= 100 || v == (double)(long long)v)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

int check_counters(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_rule *r = ctx->rule;
	double *limits = calloc(r->n_params + 1, sizeof(*limits));
	uint32_t want_delta = 0; /* the counters compared between samples */
	int err = 0;

	if (!limits)
		return fab_err(-ENOMEM, "out of memory");
	for (size_t k = 0; k < r->n_params; k++) {
		limits[k] = rule_param(ctx, k);
		if (r->params[k].type != FAB_PARAM_COUNT)
			want_delta |= 1u << r->params[k].arg;
	}

	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *c = ctx->pairs->latest[i];
		struct fab_counter_delta dd;
		const struct fab_counter_delta *d =
			want_delta && rule_delta(ctx, (uint32_t)i, want_delta, &dd) ? &dd : NULL;
		bool used_delta = false;
		unsigned hits = 0;

		if (s->ports[i].port_num == 0 || !c)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_reset(&ctx->tmp);
		for (size_t k = 0; k < r->n_params; k++) {
			const struct fab_rule_param *p = &r->params[k];
			const int ctr = p->arg;
			const char *name = fab_counter_name((unsigned)ctr);
			const uint32_t bit = 1u << ctr;
			double lim = limits[k];
			char a[32], b[32], amount[64];

			if (lim < 0)
				continue; /* off */
			if (p->type == FAB_PARAM_COUNT) {
				if (!(c->valid & bit))
					continue;
				if (r->arg == COUNTERS_RATE_FIRST && d && (d->valid & bit) &&
				    d->secs > 0 && has_rate_param(r, ctr))
					continue; /* judged by its rate */
				if ((double)c->v[ctr] <= lim)
					continue;
				bool sat = fab_counter_saturated(c, (unsigned)ctr);
				fmt_num(b, sizeof(b), lim);
				rbuf_sep(&ctx->tmp, ", ");
				rbuf_printf(&ctx->tmp, "%s %llu%s > %s", name,
					    (unsigned long long)c->v[ctr], sat ? " (saturated)" : "", b);
				rbuf_sep(&ctx->ev, "; ");
				rbuf_printf(&ctx->ev, "%s=%llu%s", name, (unsigned long long)c->v[ctr],
					    sat ? "+" : "");
				rule_counter_cause(ctx, (uint32_t)i, (unsigned)ctr, c, false);
				hits++;
				continue;
			}
			if (!d || !(d->valid & bit))
				continue;
			uint64_t inc = d->inc[ctr];
			double rate;
			if (p->type == FAB_PARAM_INCREASE) {
				if (!fab_counter_over(d, (unsigned)ctr, lim))
					continue;
				fab_counter_increase_text(inc, d->reset & bit, d->saturated & bit, amount,
							  sizeof(amount));
				fmt_num(b, sizeof(b), lim);
				rbuf_sep(&ctx->tmp, ", ");
				rbuf_printf(&ctx->tmp, "%s rose by %s (allowed %s)", name, amount, b);
			} else if (p->type == FAB_PARAM_RATE) {
				if (!fab_counter_rate(d, (unsigned)ctr, &rate) || rate <= lim)
					continue;
				fab_counter_increase_text(inc, d->reset & bit, d->saturated & bit, amount,
							  sizeof(amount));
				fmt_num(a, sizeof(a), rate);
				fmt_num(b, sizeof(b), lim);
				rbuf_sep(&ctx->tmp, ", ");
				rbuf_printf(&ctx->tmp, "%s rose by %s in %gs (%s/s > %s/s)", name,
					    amount, d->secs, a, b);
				rbuf_sep(&ctx->ev, "; ");
				rbuf_printf(&ctx->ev, "%s_per_s=%s", name, a);
			} else {
				continue;
			}
			rbuf_sep(&ctx->ev, "; ");
			rbuf_printf(&ctx->ev, "%s_increase=%llu%s", name, (unsigned long long)inc,
				    d->at_least & bit ? "+" : "");
			rule_counter_cause(ctx, (uint32_t)i, (unsigned)ctr, c, true);
			used_delta = true;
			hits++;
		}
		if (!hits)
			continue;
		if (used_delta)
			rbuf_printf(&ctx->ev, "; interval_s=%g", d->secs);
		if ((err = rule_emit_port(ctx, (uint32_t)i, rule_peer(s, (uint32_t)i),
					  rbuf_str(&ctx->ev), "%s", rbuf_str(&ctx->tmp))))
			break;
	}
	free(limits);
	return err;
}
