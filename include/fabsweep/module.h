/* SPDX-License-Identifier: MIT */
/*
 * Pluggable modules and cables (core/module.c): one model for the optics and
 * cables of both fabrics. A RoCE host's modules are decoded from their
 * EEPROM (SFF-8472, SFF-8636, CMIS: host/module_*.c) and live in
 * snap->roce->modules, owned by Ethernet ports; an InfiniBand fabric's
 * cables come from an ibdiagnet2 run's ibdiagnet2.cables (import/) and live
 * in snap->ib_modules, owned by InfiniBand ports. Both are one SQL table
 * (`modules`, `module_lanes`: docs/schema.md), judged by one set of rules
 * (module.*) through the functions below, which the reports and the
 * Prometheus export ask too. docs/roce.md and docs/imports.md say where the
 * values come from.
 *
 * Units: temperature degrees C, supply voltage V, laser bias mA, optical
 * power mW (and dBm where a threshold is compared). NAN is "unknown" for
 * every double: a module that does not monitor something leaves it NAN,
 * never 0. Strings live in the owner's arena (the snapshot's or the RoCE
 * model's) and were made safe with fab_text_sanitize(): EEPROM bytes and
 * ibdiagnet2 text are untrusted.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Lanes of one module row: a CMIS bank has 8 (an OSFP's first bank). */
#define FAB_MODULE_MAX_LANES 8

/* What a module's data was decoded from. */
enum fab_module_spec {
	FAB_MODSPEC_UNKNOWN = 0,
	FAB_MODSPEC_SFF8472, /* "sff-8472": SFP, SFP+, SFP28 */
	FAB_MODSPEC_SFF8636, /* "sff-8636": QSFP+, QSFP28, QSFP56 (and SFF-8436) */
	FAB_MODSPEC_CMIS,    /* "cmis": QSFP-DD, OSFP, QSFP112 */
	FAB_MODSPEC_IBDIAG,  /* "ibdiagnet2.cables": as ibdiagnet decoded it */
	FAB_MODSPEC__COUNT
};
const char *fab_module_spec_name(unsigned spec); /* NULL when out of range */
int fab_module_spec_parse(const char *s);        /* -1 when unknown */

/* What a module monitors, each with four thresholds. */
enum fab_module_mon {
	FAB_MON_TEMP = 0, /* degrees C */
	FAB_MON_VCC,      /* V */
	FAB_MON_BIAS,     /* mA, per lane */
	FAB_MON_TX_POWER, /* dBm, per lane */
	FAB_MON_RX_POWER, /* dBm, per lane */
	FAB_MON__COUNT
};
const char *fab_module_mon_name(unsigned mon); /* "temperature", "voltage", "tx_bias", "tx_power", "rx_power" */

/* Thresholds of one monitor; NAN where the module has none. */
struct fab_module_limits {
	double hi_alarm, lo_alarm, hi_warn, lo_warn;
};

/*
 * Alarm and warning flags as the module raised them, one bit per monitor
 * and kind: FAB_MODF(mon, kind). Module-level flags use FAB_MON_TEMP and
 * FAB_MON_VCC, a lane's the other three; a lane's FAB_LANEF_* add what its
 * signal does.
 */
enum { FAB_MODF_HI_ALARM = 0, FAB_MODF_LO_ALARM, FAB_MODF_HI_WARN, FAB_MODF_LO_WARN };
#define FAB_MODF(mon, kind) (1u << ((mon) * 4 + (kind)))
enum {
	FAB_LANEF_RX_LOS = 1u << 20,   /* Rx loss of signal */
	FAB_LANEF_TX_LOS = 1u << 21,   /* Tx loss of signal (host side) */
	FAB_LANEF_TX_FAULT = 1u << 22, /* transmitter fault */
};

/* Per-lane measurements: NAN unknown. Power 0 mW is darkness, not unknown. */
struct fab_module_lane {
	double rx_mw, tx_mw, bias_ma;
	uint32_t flags;  /* FAB_MODF(FAB_MON_BIAS.., kind) | FAB_LANEF_* */
	uint8_t lane;    /* 1-based */
	/* (in this order: 32 bytes, not 40; a fleet has a million lanes) */
};

struct fab_module {
	uint32_t port_idx;   /* the owner's port (snap->ports or roce->eth_ports) */
	uint8_t spec;        /* enum fab_module_spec */
	bool refused;        /* the data did not decode consistently: only note holds */
	bool monitors;       /* it reports live values (digital diagnostics) */
	bool flags_valid;    /* its alarm and warning flags were read */
	int16_t identifier;  /* SFF-8024 identifier (0x11 QSFP28 ...), -1 unknown */
	uint8_t media_lanes; /* lanes its media side uses (a 100G LR1: 1); 0 unknown */
	uint8_t n_lanes;     /* lane rows, lanes[lane_first ..] */
	uint32_t lane_first;
	const char *type;    /* "QSFP28", "OSFP", "SFP" (the identifier's name) */
	const char *vendor, *part_number, *serial, *revision, *date_code;
	const char *media;   /* "100GBASE-SR4", "850 nm VCSEL", "Copper cable- unequalized" */
	const char *note;    /* why refused, or what is missing ("no page 03h: no thresholds") */
	double length_m;     /* cable or reach length, NAN unknown */
	double temperature_c, voltage_v;
	struct fab_module_limits lim[FAB_MON__COUNT];
	uint32_t flags;      /* module-level FAB_MODF() bits */
};

/* A set of modules with their lanes (snap->ib_modules, roce->modules). */
struct fab_modules {
	struct fab_module *mods;
	size_t n, cap;
	struct fab_module_lane *lanes;
	size_t n_lanes, cap_lanes;
};

/* Frees the arrays (the strings belong to the owner's arena); the set is
 * empty after. Accepts a zeroed set. */
void fab_modules_clear(struct fab_modules *set);
/*
 * Appends a module of port port_idx with n_lanes lanes (at most
 * FAB_MODULE_MAX_LANES, numbered 1..n), everything unknown: identifier -1,
 * every double NAN. Returns it (valid until the next append) or NULL on
 * ENOMEM or too many lanes.
 */
struct fab_module *fab_modules_add(struct fab_modules *set, uint32_t port_idx, unsigned n_lanes);
/* Room for mods more modules with lanes more lanes in all
 * (fab_array_reserve: a large room prefaulted). 0 or -ENOMEM. */
int fab_modules_reserve(struct fab_modules *set, size_t mods, size_t lanes);
/* The lanes of m (NULL when it has none). */
struct fab_module_lane *fab_module_lanes(const struct fab_modules *set, const struct fab_module *m);
/* The module of a port, FAB_NONE when it has none. Linear. */
uint32_t fab_modules_find(const struct fab_modules *set, uint32_t port_idx);

/* "QSFP28" ... for an SFF-8024 identifier; NULL for one this table lacks. */
const char *fab_module_type_name(int identifier);

/* mW to dBm: -INFINITY for 0 (no light), NAN for NAN or a negative value. */
double fab_mw_to_dbm(double mw);

/* ---- judging: one answer for the rules, the reports and the exporter ---- */

/* Where a value stands against its limits. */
enum fab_mon_level {
	FAB_LEVEL_UNKNOWN = 0, /* no value, or no limit to compare with */
	FAB_LEVEL_OK,
	FAB_LEVEL_WARN_LOW,
	FAB_LEVEL_WARN_HIGH,
	FAB_LEVEL_ALARM_LOW,
	FAB_LEVEL_ALARM_HIGH,
};
/* "ok", "low warning", "high warning", "low alarm", "high alarm", "unknown" */
const char *fab_mon_level_name(unsigned level);

/*
 * The limits a monitor of m is judged against: each of the module's own
 * thresholds where it has it, else dflt's; the module's own are dropped
 * entirely when they contradict each other (a low alarm above the low
 * warning or the high one, as a misprogrammed module has: *own_bad set).
 * A warning limit beyond the alarm limit on its side is moved to it.
 * *own (may be NULL) says whether any of the module's own was used.
 */
void fab_module_limits_for(const struct fab_module *m, unsigned mon,
			   const struct fab_module_limits *dflt, struct fab_module_limits *out,
			   bool *own, bool *own_bad);

/* The level of value against lim; *margin (may be NULL) is its distance to
 * the nearer warning limit, negative beyond it (NAN when neither is known). */
enum fab_mon_level fab_mon_judge(double value, const struct fab_module_limits *lim,
				 double *margin);

/* How many of m's lanes carry its media: media_lanes when known and fewer
 * than its lane rows (a one-lane module in a four-lane cage), else all. */
unsigned fab_module_lanes_used(const struct fab_module *m);

/* Whether a lane receives no light: Rx power known and at or below
 * dark_dbm (0 mW included). */
bool fab_lane_rx_dark(const struct fab_module_lane *l, double dark_dbm);
/* Whether a lane's transmitter is off: bias known and 0, or Tx power known
 * and at or below dark_dbm. */
bool fab_lane_tx_dark(const struct fab_module_lane *l, double dark_dbm);

/* Built-in defaults (the rules' parameters start from them; the reports and
 * the exporter use them where a module has no thresholds of its own):
 * commercial temperature range, 3.3 V +-5 %, the Rx power of common
 * short-reach optics; none for bias and Tx power (a VCSEL runs at 6 mA, a
 * DFB at 70). */
#define FAB_MOD_TEMP_HI_ALARM 75.0
#define FAB_MOD_TEMP_LO_ALARM (-5.0)
#define FAB_MOD_TEMP_HI_WARN 70.0
#define FAB_MOD_TEMP_LO_WARN 0.0
#define FAB_MOD_RX_HI_ALARM 4.0
#define FAB_MOD_RX_LO_ALARM (-14.0)
#define FAB_MOD_RX_HI_WARN 3.0
#define FAB_MOD_RX_LO_WARN (-12.0)
extern const struct fab_module_limits fab_module_default_limits[FAB_MON__COUNT];
#define FAB_MODULE_DARK_DBM (-30.0)
