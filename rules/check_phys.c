// SPDX-License-Identifier: MIT
/*
 * The module rules (module.temperature, module.rx_power, module.tx_bias,
 * module.dark_lane) over both fabrics' modules: a RoCE host's (decoded
 * from its EEPROM) and an InfiniBand fabric's (ibdiagnet2.cables). Values
 * are judged against the module's own thresholds where it has sane ones,
 * else the rule's parameters (core/module.c: fab_module_limits_for, the
 * one judge the reports use too). What a module does not monitor is
 * unknown and judged by no rule; a refused EEPROM is judged by none.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/module.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* One module and where it sits, and what the rule judges every module by
 * (worked out once a run). */
struct where {
	const struct fab_modules *set;
	bool eth;
	struct fab_module_limits d; /* the rule's limit parameters (defaults()) */
	double dark;                /* module.dark_lane's dark_dbm */
};

static int emit(struct fab_rule_ctx *ctx, const struct where *w, const struct fab_module *m,
		const char *ev, const char *msg)
{
	if (w->eth)
		return rule_emit_eth(ctx, m->port_idx, ctx->roce ? roce_peer(ctx->roce, m->port_idx) : FAB_NONE,
				     ev, "%s", msg);
	return rule_emit_port(ctx, m->port_idx, rule_peer(ctx->snap, m->port_idx), ev, "%s", msg);
}

static void defaults(struct fab_rule_ctx *ctx, size_t first, struct fab_module_limits *out);

/* Calls fn for every module of both fabrics that decoded; limits: the rule
 * has the four limit parameters (defaults()) from its first. */
static int each_module(struct fab_rule_ctx *ctx, bool limits,
		       int (*fn)(struct fab_rule_ctx *ctx, const struct where *w, const struct fab_module *m))
{
	const struct fab_snapshot *s = ctx->snap;
	struct where ib = { .set = &s->ib_modules }, eth = { .eth = true };
	int err = 0;

	if (limits)
		defaults(ctx, 0, &ib.d);
	ib.dark = rule_shared(ctx, rule_param_dark_dbm);
	eth.d = ib.d;
	eth.dark = ib.dark;

	for (size_t i = 0; !err && i < s->ib_modules.n; i++)
		if (!s->ib_modules.mods[i].refused && s->ib_modules.mods[i].port_idx < s->n_ports)
			err = fn(ctx, &ib, &s->ib_modules.mods[i]);
	if (s->roce) {
		eth.set = &s->roce->modules;
		for (size_t i = 0; !err && i < eth.set->n; i++)
			if (!eth.set->mods[i].refused && eth.set->mods[i].port_idx < s->roce->n_eth_ports)
				err = fn(ctx, &eth, &eth.set->mods[i]);
	}
	return err;
}

/* The rule's four limit parameters (high alarm, low alarm, high warning,
 * low warning, in that order from first) as defaults; off is none. */
static void defaults(struct fab_rule_ctx *ctx, size_t first, struct fab_module_limits *out)
{
	double v[4];

	for (size_t k = 0; k < 4; k++) {
		v[k] = rule_param(ctx, first + k);
		if (v[k] == FAB_PARAM_REAL_OFF)
			v[k] = NAN;
	}
	*out = (struct fab_module_limits){ v[0], v[1], v[2], v[3] };
}

/* "; sn=..." and the module's identity, for evidence */
static void identity(struct rbuf *b, const struct fab_module *m)
{
	if (m->vendor)
		rbuf_printf(b, "; vendor=%s", m->vendor);
	if (m->part_number)
		rbuf_printf(b, "; pn=%s", m->part_number);
	if (m->serial)
		rbuf_printf(b, "; sn=%s", m->serial);
}

/* "low warning -12 dBm (the module's own)" */
static void limit_text(struct rbuf *b, enum fab_mon_level lv, const struct fab_module_limits *l,
		       const char *unit, bool own)
{
	double v = lv == FAB_LEVEL_ALARM_HIGH ? l->hi_alarm : lv == FAB_LEVEL_ALARM_LOW ? l->lo_alarm
		 : lv == FAB_LEVEL_WARN_HIGH ? l->hi_warn : l->lo_warn;
	bool high = lv == FAB_LEVEL_ALARM_HIGH || lv == FAB_LEVEL_WARN_HIGH;

	rbuf_printf(b, "%s its %s threshold %g %s (%s)", high ? "above" : "below",
		    fab_mon_level_name(lv), v, unit, own ? "the module's own" : "the rule's parameter");
}

/* "; rx_power_limits=-14,-12,3,4 (default)": low alarm, low warning, high
 * warning, high alarm; "-" where none */
static void limits_ev(struct rbuf *b, const char *name, const struct fab_module_limits *l, bool own,
		      bool own_bad)
{
	const double v[4] = { l->lo_alarm, l->lo_warn, l->hi_warn, l->hi_alarm };

	rbuf_printf(b, "; %s_limits=", name);
	for (int k = 0; k < 4; k++) {
		if (isnan(v[k]))
			rbuf_printf(b, "%s-", k ? "," : "");
		else
			rbuf_printf(b, "%s%g", k ? "," : "", v[k]);
	}
	rbuf_printf(b, " (%s)", own ? "module" : own_bad ? "parameters: the module's contradict each other" : "parameters");
}

/* ---- module.temperature ---------------------------------------------------------- */

static int temperature(struct fab_rule_ctx *ctx, const struct where *w, const struct fab_module *m)
{
	struct fab_module_limits l;
	bool own, bad;

	if (!m->monitors || isnan(m->temperature_c))
		return 0;
	fab_module_limits_for(m, FAB_MON_TEMP, &w->d, &l, &own, &bad);
	enum fab_mon_level lv = fab_mon_judge(m->temperature_c, &l, NULL);
	if (lv == FAB_LEVEL_OK || lv == FAB_LEVEL_UNKNOWN)
		return 0;
	rbuf_reset(&ctx->tmp);
	rbuf_printf(&ctx->tmp, "module temperature %.1f C is ", m->temperature_c);
	limit_text(&ctx->tmp, lv, &l, "C", own);
	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->ev, "temperature_c=%.2f", m->temperature_c);
	limits_ev(&ctx->ev, "temperature", &l, own, bad);
	identity(&ctx->ev, m);
	return emit(ctx, w, m, rbuf_str(&ctx->ev), rbuf_str(&ctx->tmp));
}

int check_module_temperature(struct fab_rule_ctx *ctx)
{
	return each_module(ctx, true, temperature);
}

/* ---- module.rx_power, module.tx_bias ------------------------------------------------- */

/* The used lanes' values of one monitor against the limits, one finding a
 * module listing the lanes out of them; lanes without light are
 * module.dark_lane's (and all dark is a link that is down). */
static int lanes_judged(struct fab_rule_ctx *ctx, const struct where *w, const struct fab_module *m,
			unsigned mon)
{
	const struct fab_module_lane *l = fab_module_lanes(w->set, m);
	struct fab_module_limits lim;
	bool own, bad, any = false;
	double dark = w->dark;
	const char *unit = mon == FAB_MON_RX_POWER ? "dBm" : "mA";

	if (!m->monitors || !l)
		return 0;
	fab_module_limits_for(m, mon, &w->d, &lim, &own, &bad);
	rbuf_reset(&ctx->tmp);
	rbuf_reset(&ctx->ev);
	for (unsigned k = 0; k < fab_module_lanes_used(m); k++) {
		double v = mon == FAB_MON_RX_POWER ? fab_mw_to_dbm(l[k].rx_mw) : l[k].bias_ma;
		if (isnan(v) || (mon == FAB_MON_RX_POWER ? fab_lane_rx_dark(&l[k], dark)
							 : fab_lane_tx_dark(&l[k], dark)))
			continue;
		enum fab_mon_level lv = fab_mon_judge(v, &lim, NULL);
		if (lv == FAB_LEVEL_OK || lv == FAB_LEVEL_UNKNOWN)
			continue;
		rbuf_sep(&ctx->tmp, "; ");
		rbuf_printf(&ctx->tmp, "lane %u at %.2f %s, ", l[k].lane, v, unit);
		limit_text(&ctx->tmp, lv, &lim, unit, own);
		rbuf_sep(&ctx->ev, "; ");
		rbuf_printf(&ctx->ev, "lane%u_%s=%.2f", l[k].lane, mon == FAB_MON_RX_POWER ? "rx_dbm" : "bias_ma", v);
		any = true;
	}
	if (!any)
		return 0;
	limits_ev(&ctx->ev, mon == FAB_MON_RX_POWER ? "rx_power" : "tx_bias", &lim, own, bad);
	identity(&ctx->ev, m);
	char msg[RBUF_CAP < 4096 ? RBUF_CAP : 4096];
	snprintf(msg, sizeof(msg), "%s: %s", mon == FAB_MON_RX_POWER ? "received optical power" : "laser bias current",
		 rbuf_str(&ctx->tmp));
	return emit(ctx, w, m, rbuf_str(&ctx->ev), msg);
}

static int rx_power(struct fab_rule_ctx *ctx, const struct where *w, const struct fab_module *m)
{
	return lanes_judged(ctx, w, m, FAB_MON_RX_POWER);
}

static int tx_bias(struct fab_rule_ctx *ctx, const struct where *w, const struct fab_module *m)
{
	return lanes_judged(ctx, w, m, FAB_MON_BIAS);
}

int check_module_rx_power(struct fab_rule_ctx *ctx)
{
	return each_module(ctx, true, rx_power);
}

int check_module_tx_bias(struct fab_rule_ctx *ctx)
{
	return each_module(ctx, true, tx_bias);
}

/* ---- module.dark_lane --------------------------------------------------------------- */

/* "2-4" or "2,4" */
static void lane_list(struct rbuf *b, unsigned mask)
{
	bool first = true;

	for (unsigned a = 1; a <= FAB_MODULE_MAX_LANES; a++) {
		if (!(mask & (1u << a)))
			continue;
		unsigned z = a;
		while (z < FAB_MODULE_MAX_LANES && (mask & (1u << (z + 1))))
			z++;
		rbuf_printf(b, "%s", first ? "" : ",");
		rbuf_printf(b, z > a + 1 ? "%u-%u" : z > a ? "%u,%u" : "%u", a, z);
		first = false;
		a = z;
	}
}

static int dark_lane(struct fab_rule_ctx *ctx, const struct where *w, const struct fab_module *m)
{
	const struct fab_module_lane *l = fab_module_lanes(w->set, m);
	double dark = rule_param(ctx, 0);
	unsigned used = fab_module_lanes_used(m), rx_dark = 0, tx_dark = 0, rx_lit = 0, tx_lit = 0;
	uint32_t flags = 0;

	if (!m->monitors || !l || used < 2)
		return 0; /* a one-lane module (or one lane of a four-lane cage used) has no siblings */
	for (unsigned k = 0; k < used; k++) {
		unsigned bit = 1u << l[k].lane;
		if (!isnan(l[k].rx_mw))
			*(fab_lane_rx_dark(&l[k], dark) ? &rx_dark : &rx_lit) |= bit;
		if (!isnan(l[k].bias_ma) || !isnan(l[k].tx_mw))
			*(fab_lane_tx_dark(&l[k], dark) ? &tx_dark : &tx_lit) |= bit;
		flags |= l[k].flags;
	}
	bool rx = rx_dark && rx_lit, tx = tx_dark && tx_lit;
	if (!rx && !tx)
		return 0;
	rbuf_reset(&ctx->tmp);
	rbuf_reset(&ctx->ev);
	if (rx) {
		rbuf_printf(&ctx->tmp, "lane%s ", (rx_dark & (rx_dark - 1)) ? "s" : "");
		lane_list(&ctx->tmp, rx_dark);
		rbuf_printf(&ctx->tmp, " receive%s no light while lane%s ", (rx_dark & (rx_dark - 1)) ? "" : "s",
			    (rx_lit & (rx_lit - 1)) ? "s" : "");
		lane_list(&ctx->tmp, rx_lit);
		rbuf_printf(&ctx->tmp, " do%s", (rx_lit & (rx_lit - 1)) ? "" : "es");
		rbuf_printf(&ctx->ev, "rx_dark_lanes=");
		lane_list(&ctx->ev, rx_dark);
	}
	if (tx) {
		rbuf_sep(&ctx->tmp, "; ");
		rbuf_printf(&ctx->tmp, "lane%s ", (tx_dark & (tx_dark - 1)) ? "s" : "");
		lane_list(&ctx->tmp, tx_dark);
		rbuf_printf(&ctx->tmp, " transmit%s nothing (laser off) while the others do",
			    (tx_dark & (tx_dark - 1)) ? "" : "s");
		rbuf_sep(&ctx->ev, "; ");
		rbuf_printf(&ctx->ev, "tx_dark_lanes=");
		lane_list(&ctx->ev, tx_dark);
	}
	if (m->flags_valid && !(flags & (FAB_MODF(FAB_MON_RX_POWER, FAB_MODF_LO_ALARM) | FAB_LANEF_RX_LOS)))
		rbuf_printf(&ctx->tmp, " (the module raised no alarm for it)");
	rbuf_printf(&ctx->ev, "; lanes_used=%u of %u", used, m->n_lanes);
	if (m->media)
		rbuf_printf(&ctx->ev, "; media=%s", m->media);
	identity(&ctx->ev, m);
	return emit(ctx, w, m, rbuf_str(&ctx->ev), rbuf_str(&ctx->tmp));
}

int check_module_dark_lane(struct fab_rule_ctx *ctx)
{
	return each_module(ctx, false, dark_lane);
}
