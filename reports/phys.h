/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: the physical layer of a snapshot worked out once
 * (model_phys.c) for every output that shows it: the HTML and XML reports,
 * `fabsweep physical` (text and JSON). Bit error ratios of both fabrics,
 * the power margins of every lane its module's media uses, temperatures
 * and the module inventory, each list worst first. Modules are judged by
 * core/module.c against their own thresholds, else the built-in defaults
 * (fab_module_default_limits), as the module.* rules are by default.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fab_modules;
struct fab_nodemap;
struct fab_snapshot;

/* Which fabric a row belongs to: an InfiniBand port (snap->ports,
 * snap->ib_modules) or a RoCE host's interface (roce->eth_ports,
 * roce->modules). */
enum { FAB_PHYS_IB = 0, FAB_PHYS_ETH = 1, FAB_PHYS__FABRICS };
const char *fab_phys_fabric_name(unsigned fabric); /* "ib", "eth" */

/* A port's bit error ratios; NAN unknown. key: what it is ranked by, the
 * ratio before FEC (an InfiniBand port's raw BER, an Ethernet port's
 * pre-FEC BER from its NIC counters), else the effective one, else the
 * symbol error rate. An InfiniBand port without the device's own figures
 * (PHY_DB16) has, when its SymbolErrorCounter grew between the samples
 * compared, the counter model's symbol error rate (fab_counter_ber, what
 * link.ber_high judges): from_counters, and at_least after a reset. */
struct fab_phys_ber {
	uint8_t fabric;
	bool from_counters, at_least;
	uint32_t port;
	double key, raw, effective, symbol;
};

/* A lane's optical power against its limits (dBm). */
struct fab_phys_margin {
	uint8_t fabric;
	uint8_t mon;   /* FAB_MON_RX_POWER, FAB_MON_TX_POWER */
	uint8_t lane;  /* 1-based */
	uint8_t level; /* enum fab_mon_level */
	bool own;      /* the module's own thresholds (else the defaults) */
	uint32_t module; /* index in its fabric's module set */
	double dbm;    /* -INFINITY: no light */
	double margin; /* dB to the nearer warning limit, negative beyond it */
	double lo_warn, hi_warn; /* the limits compared with (NAN: none) */
};

/* A module's temperature against its limits (degrees C). */
struct fab_phys_temp {
	uint8_t fabric, level;
	bool own;
	uint32_t module;
	double celsius, margin, hi_warn;
};

/* Modules of one fabric, type, vendor and part number. */
struct fab_phys_group {
	uint8_t fabric;
	const char *type, *vendor, *part_number; /* NULL unknown */
	size_t n, n_refused, n_monitored;
};

struct fab_report_phys {
	size_t n_modules[FAB_PHYS__FABRICS];
	size_t n_refused[FAB_PHYS__FABRICS];   /* dumps that did not decode */
	size_t n_monitored[FAB_PHYS__FABRICS]; /* with live values (not passive copper) */
	struct fab_phys_ber *ber;              /* highest key first */
	size_t n_ber;
	/* margins and temps: n_* rows in all, the first min(n_*, keep) of
	 * them held (fab_phys_held) */
	struct fab_phys_margin *margins;       /* smallest margin first (dark lanes first) */
	size_t n_margins;
	struct fab_phys_temp *temps;           /* hottest first */
	size_t n_temps;
	size_t keep;
	struct fab_phys_group *groups;         /* by fabric, then most modules first */
	size_t n_groups;
};

/* Rows of the HTML report's tables (each list's first; the XML report and
 * `physical --json` have them all). */
#define FAB_PHYS_HTML_ROWS 50
/*
 * Builds *out for snap (indexed); base (may be NULL) gives the Ethernet
 * counters an earlier reading. Of the margins and temperatures it holds
 * the first keep rows (SIZE_MAX: all), chosen without sorting the others
 * (a fleet has a million lanes; the HTML report shows 50), and counts
 * them all. 0 or -ENOMEM (message set).
 */
int fab_report_phys_build(const struct fab_snapshot *snap, const struct fab_snapshot *base, size_t keep,
			  struct fab_report_phys *out);
/* The rows of a list of n the model holds: min(n, p->keep). */
static inline size_t fab_phys_held(const struct fab_report_phys *p, size_t n)
{
	return n < p->keep ? n : p->keep;
}
void fab_report_phys_free(struct fab_report_phys *p); /* accepts a zeroed one */
/* Whether there is anything to show: a module or a bit error ratio. */
bool fab_report_phys_present(const struct fab_report_phys *p);

/* A fabric's module set (NULL when the snapshot has none of it). */
const struct fab_modules *fab_phys_modules(const struct fab_snapshot *s, unsigned fabric);
/* Where a port is, for people: "name" 0xGUID port N, or system/ifname.
 * Unescaped: each format escapes it. */
void fab_phys_where(const struct fab_snapshot *s, const struct fab_nodemap *names, unsigned fabric,
		    uint32_t port, char *buf, size_t len);
/* A module's port (its fabric's port index). */
uint32_t fab_phys_module_port(const struct fab_snapshot *s, unsigned fabric, uint32_t module);

/* `fabsweep physical`: the lists as text (the first top rows of each) and
 * as the JSON document (docs/json/physical.schema.json, every row). */
int fab_report_phys_text(FILE *f, const struct fab_snapshot *snap, const struct fab_report_phys *p,
			 const struct fab_nodemap *names, size_t top);
int fab_report_phys_json(FILE *f, const struct fab_snapshot *snap, const struct fab_report_phys *p,
			 const struct fab_nodemap *names);
