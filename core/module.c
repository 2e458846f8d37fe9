// SPDX-License-Identifier: MIT
/*
 * Pluggable modules and cables: the model both fabrics share
 * (include/fabsweep/module.h) and the one place that judges a value against
 * a module's thresholds. No I/O.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"

static const char *const specs[] = {
	[FAB_MODSPEC_UNKNOWN] = NULL,
	[FAB_MODSPEC_SFF8472] = "sff-8472",
	[FAB_MODSPEC_SFF8636] = "sff-8636",
	[FAB_MODSPEC_CMIS] = "cmis",
	[FAB_MODSPEC_IBDIAG] = "ibdiagnet2.cables",
};
static_assert(ARRAY_SIZE(specs) == FAB_MODSPEC__COUNT, "specs");

const char *fab_module_spec_name(unsigned spec)
{
	return spec < FAB_MODSPEC__COUNT ? specs[spec] : NULL;
}

int fab_module_spec_parse(const char *s)
{
	for (unsigned i = 1; s && i < FAB_MODSPEC__COUNT; i++)
		if (!strcmp(s, specs[i]))
			return (int)i;
	return -1;
}

static const char *const mons[] = {
	[FAB_MON_TEMP] = "temperature",
	[FAB_MON_VCC] = "voltage",
	[FAB_MON_BIAS] = "tx_bias",
	[FAB_MON_TX_POWER] = "tx_power",
	[FAB_MON_RX_POWER] = "rx_power",
};
static_assert(ARRAY_SIZE(mons) == FAB_MON__COUNT, "mons");

const char *fab_module_mon_name(unsigned mon)
{
	return mon < FAB_MON__COUNT ? mons[mon] : NULL;
}

/* module.h says why these */
const struct fab_module_limits fab_module_default_limits[FAB_MON__COUNT] = {
	[FAB_MON_TEMP] = { .hi_alarm = FAB_MOD_TEMP_HI_ALARM, .lo_alarm = FAB_MOD_TEMP_LO_ALARM,
			   .hi_warn = FAB_MOD_TEMP_HI_WARN, .lo_warn = FAB_MOD_TEMP_LO_WARN },
	[FAB_MON_VCC] = { .hi_alarm = 3.6, .lo_alarm = 3.0, .hi_warn = 3.465, .lo_warn = 3.135 },
	[FAB_MON_BIAS] = { .hi_alarm = NAN, .lo_alarm = NAN, .hi_warn = NAN, .lo_warn = NAN },
	[FAB_MON_TX_POWER] = { .hi_alarm = NAN, .lo_alarm = NAN, .hi_warn = NAN, .lo_warn = NAN },
	[FAB_MON_RX_POWER] = { .hi_alarm = FAB_MOD_RX_HI_ALARM, .lo_alarm = FAB_MOD_RX_LO_ALARM,
			       .hi_warn = FAB_MOD_RX_HI_WARN, .lo_warn = FAB_MOD_RX_LO_WARN },
};

/* ---- the set --------------------------------------------------------------- */

void fab_modules_clear(struct fab_modules *set)
{
	free(set->mods);
	free(set->lanes);
	memset(set, 0, sizeof(*set));
}

struct fab_module *fab_modules_add(struct fab_modules *set, uint32_t port_idx, unsigned n_lanes)
{
	if (n_lanes > FAB_MODULE_MAX_LANES)
		return NULL;
	while (set->n_lanes + n_lanes > set->cap_lanes) {
		size_t cap = set->cap_lanes ? set->cap_lanes * 2 : 64;
		struct fab_module_lane *l = realloc(set->lanes, cap * sizeof(*l));
		if (!l)
			return NULL;
		set->lanes = l;
		set->cap_lanes = cap;
	}
	struct fab_module *m = fab_array_grow((void **)&set->mods, &set->n, &set->cap, sizeof(*m));
	if (!m)
		return NULL;
	m->port_idx = port_idx;
	m->identifier = -1;
	m->n_lanes = (uint8_t)n_lanes;
	m->lane_first = (uint32_t)set->n_lanes;
	m->length_m = m->temperature_c = m->voltage_v = NAN;
	for (unsigned k = 0; k < FAB_MON__COUNT; k++)
		m->lim[k] = (struct fab_module_limits){ NAN, NAN, NAN, NAN };
	for (unsigned k = 0; k < n_lanes; k++)
		set->lanes[set->n_lanes++] = (struct fab_module_lane){
			.lane = (uint8_t)(k + 1), .rx_mw = NAN, .tx_mw = NAN, .bias_ma = NAN };
	return m;
}

int fab_modules_reserve(struct fab_modules *set, size_t mods, size_t lanes)
{
	if (fab_array_reserve((void **)&set->mods, set->n, &set->cap, sizeof(*set->mods), mods) ||
	    fab_array_reserve((void **)&set->lanes, set->n_lanes, &set->cap_lanes, sizeof(*set->lanes), lanes))
		return -ENOMEM;
	return 0;
}

struct fab_module_lane *fab_module_lanes(const struct fab_modules *set, const struct fab_module *m)
{
	if (!m->n_lanes || m->lane_first + m->n_lanes > set->n_lanes)
		return NULL;
	return &set->lanes[m->lane_first];
}

uint32_t fab_modules_find(const struct fab_modules *set, uint32_t port_idx)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->mods[i].port_idx == port_idx)
			return (uint32_t)i;
	return FAB_NONE;
}

/* SFF-8024 identifiers (Table 4-1) of the modules fabrics use. */
static const struct {
	uint8_t id;
	const char *name;
} types[] = {
	{ 0x03, "SFP" },     { 0x0c, "QSFP" },  { 0x0d, "QSFP+" },   { 0x11, "QSFP28" },
	{ 0x18, "QSFP-DD" }, { 0x19, "OSFP" },  { 0x1b, "DSFP" },    { 0x1e, "QSFP112" },
	{ 0x1f, "SFP-DD" },  { 0x20, "SFP112" },
};

const char *fab_module_type_name(int identifier)
{
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (types[i].id == identifier)
			return types[i].name;
	return NULL;
}

double fab_mw_to_dbm(double mw)
{
	if (isnan(mw) || mw < 0)
		return NAN;
	if (mw == 0)
		return -INFINITY;
	return 10.0 * log10(mw);
}

/* ---- judging ---------------------------------------------------------------- */

static const char *const levels[] = {
	[FAB_LEVEL_UNKNOWN] = "unknown",
	[FAB_LEVEL_OK] = "ok",
	[FAB_LEVEL_WARN_LOW] = "low warning",
	[FAB_LEVEL_WARN_HIGH] = "high warning",
	[FAB_LEVEL_ALARM_LOW] = "low alarm",
	[FAB_LEVEL_ALARM_HIGH] = "high alarm",
};

const char *fab_mon_level_name(unsigned level)
{
	return level < ARRAY_SIZE(levels) ? levels[level] : NULL;
}

/* a <= b where both are known */
static bool le(double a, double b)
{
	return isnan(a) || isnan(b) || a <= b;
}

/* Whether the known limits are in order: lo_alarm <= lo_warn <= hi_warn <= hi_alarm
 * (and lo_alarm < hi_alarm). All zero is no thresholds at all (an SFF-8636
 * module without them leaves page 03h zeroed). */
static bool ordered(const struct fab_module_limits *l)
{
	return le(l->lo_alarm, l->lo_warn) && le(l->lo_warn, l->hi_warn) &&
	       le(l->hi_warn, l->hi_alarm) && le(l->lo_alarm, l->hi_warn) &&
	       le(l->lo_warn, l->hi_alarm) && le(l->lo_alarm, l->hi_alarm) &&
	       !(l->lo_alarm == l->hi_alarm && !isnan(l->lo_alarm));
}

static double pick(double own, double dflt, bool *used)
{
	if (!isnan(own) && !isinf(own)) {
		*used = true;
		return own;
	}
	return dflt;
}

void fab_module_limits_for(const struct fab_module *m, unsigned mon,
			   const struct fab_module_limits *dflt, struct fab_module_limits *out,
			   bool *own, bool *own_bad)
{
	const struct fab_module_limits *o = &m->lim[mon];
	bool used = false, bad = !ordered(o);

	if (bad) {
		*out = *dflt;
	} else {
		out->hi_alarm = pick(o->hi_alarm, dflt->hi_alarm, &used);
		out->lo_alarm = pick(o->lo_alarm, dflt->lo_alarm, &used);
		out->hi_warn = pick(o->hi_warn, dflt->hi_warn, &used);
		out->lo_warn = pick(o->lo_warn, dflt->lo_warn, &used);
	}
	/* a default warning beyond the module's own alarm limit moves to it */
	if (!isnan(out->hi_warn) && !isnan(out->hi_alarm) && out->hi_warn > out->hi_alarm)
		out->hi_warn = out->hi_alarm;
	if (!isnan(out->lo_warn) && !isnan(out->lo_alarm) && out->lo_warn < out->lo_alarm)
		out->lo_warn = out->lo_alarm;
	if (own)
		*own = used;
	if (own_bad)
		*own_bad = bad;
}

enum fab_mon_level fab_mon_judge(double value, const struct fab_module_limits *lim,
				 double *margin)
{
	double mg = NAN;

	if (margin)
		*margin = NAN;
	if (isnan(value))
		return FAB_LEVEL_UNKNOWN;
	if (!isnan(lim->lo_warn))
		mg = value - lim->lo_warn;
	if (!isnan(lim->hi_warn) && (isnan(mg) || lim->hi_warn - value < mg))
		mg = lim->hi_warn - value;
	if (margin)
		*margin = mg;
	if (!isnan(lim->hi_alarm) && value > lim->hi_alarm)
		return FAB_LEVEL_ALARM_HIGH;
	if (!isnan(lim->lo_alarm) && value < lim->lo_alarm)
		return FAB_LEVEL_ALARM_LOW;
	if (!isnan(lim->hi_warn) && value > lim->hi_warn)
		return FAB_LEVEL_WARN_HIGH;
	if (!isnan(lim->lo_warn) && value < lim->lo_warn)
		return FAB_LEVEL_WARN_LOW;
	if (isnan(lim->hi_alarm) && isnan(lim->lo_alarm) && isnan(lim->hi_warn) &&
	    isnan(lim->lo_warn))
		return FAB_LEVEL_UNKNOWN;
	return FAB_LEVEL_OK;
}

unsigned fab_module_lanes_used(const struct fab_module *m)
{
	if (m->media_lanes && m->media_lanes < m->n_lanes)
		return m->media_lanes;
	return m->n_lanes;
}

static bool dark_mw(double mw, double dark_dbm)
{
	return !isnan(mw) && (mw <= 0 || fab_mw_to_dbm(mw) <= dark_dbm);
}

bool fab_lane_rx_dark(const struct fab_module_lane *l, double dark_dbm)
{
	return dark_mw(l->rx_mw, dark_dbm);
}

bool fab_lane_tx_dark(const struct fab_module_lane *l, double dark_dbm)
{
	return (!isnan(l->bias_ma) && l->bias_ma <= 0) || dark_mw(l->tx_mw, dark_dbm);
}
