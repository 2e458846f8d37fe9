/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: what both formats show, worked out once from a
 * snapshot: severity counts and the verdict, findings grouped by rule, the
 * worst finding of every port and node, topology tiers, hosts per leaf, the
 * top error counters, and the changes from a baseline. Everything is O(n log n)
 * or better in the size of the snapshot.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/report.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "phys.h"

/* "Mark" of a port or node: 0 no finding, else 1 + worst enum fab_severity. */
#define FAB_MARK_NONE 0
#define FAB_MARK(sev) ((uint8_t)((sev) + 1))

struct fab_report_rule {
	const char *id;             /* borrowed from the snapshot */
	unsigned n[FAB_SEV__COUNT]; /* findings per severity */
	unsigned total;
	uint8_t worst;              /* enum fab_severity */
	size_t first;               /* its first finding in model->order */
};

struct fab_report_top {
	uint32_t port;   /* port index */
	uint8_t ctr;     /* enum fab_counter */
	uint8_t sample;  /* the sample value is from */
	uint64_t value;
	bool has_delta;  /* an earlier sample to compare with (core/counter.c) */
	uint64_t delta;  /* the increase since; a lower bound when reset or saturated */
	bool reset, saturated;
};

#define FAB_REPORT_TOP_COUNTERS 25

struct fab_report_model {
	const struct fab_snapshot *snap; /* borrowed */
	unsigned sev[FAB_SEV__COUNT];
	enum fab_verdict verdict;
	struct fab_report_rule *rules; /* worst first, then by id */
	size_t n_rules;
	uint32_t *order;   /* finding indices: by rule (rules' order), severity
			      (worst first), subject */
	uint32_t *f_node;  /* per finding: node it names, FAB_NONE */
	uint32_t *f_port;  /* per finding: port it names, FAB_NONE */
	uint8_t *port_mark; /* per port: FAB_MARK of findings naming it (as port or peer) */
	uint8_t *node_mark; /* per node: worst of its own findings and its ports' */
	uint8_t *tier;      /* per node: enum fab_role (inferred when the snapshot
			       has no roles at all) */
	uint32_t *leaf_of;  /* per node: for hosts, the leaf their first linked
			       port reaches, else FAB_NONE */
	size_t n_tier[FAB_ROLE__COUNT];
	size_t n_switches; /* nodes of type switch */
	size_t n_ext_ports;    /* ports numbered 1..N */
	size_t n_active_ports; /* of those, state active */
	size_t n_sampled_ports; /* ports with a counter sample */
	/* per port: the symbol error rate between the samples compared
	 * (fab_counter_ber, link.ber_high), < 0 when unknown; ber_at_least: a
	 * lower bound. NULL when no port has two samples. */
	double *ber;
	uint8_t *ber_at_least;
	struct fab_report_top top[FAB_REPORT_TOP_COUNTERS]; /* largest first */
	size_t n_top;
	bool delta_from_baseline; /* top[].delta compares with the baseline */
	/* Ethernet (snap->roce; all zero/NULL without it) */
	uint8_t *eth_mark;  /* per eth port: FAB_MARK of findings naming it
			       (system as node and ifname as port, or as peer) */
	uint8_t *dev_mark;  /* per RDMA device: of findings naming it (system as
			       node, device or device/port as port) or its ports' netdevs */
	size_t n_eth_role[FAB_ROLE__COUNT]; /* systems per role */
	size_t n_eth_heard_both;            /* links each end hears */
	/* RoCE NIC ports for the congestion-control listing: eth port indices
	 * with an RDMA port on top, ECN settings or a known trust state, in
	 * port order */
	uint32_t *roce_cc;
	size_t n_roce_cc;
};

/* Whether a node is drawn and listed as a switch: not a host, not a CA. */
static inline bool fab_report_is_switch(const struct fab_report_model *m, uint32_t node)
{
	return m->tier[node] != FAB_ROLE_HOST && m->snap->nodes[node].type != FAB_NODE_CA;
}

/* Builds the model of snap (borrowed; must be indexed); counter increases
 * compare it with base (borrowed, may be NULL: the scan's own samples). */
int fab_report_model_build(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			   struct fab_report_model *out);
void fab_report_model_free(struct fab_report_model *m);

struct fab_change;
struct fab_diff;

/* What changed from a baseline: the fabric's changes as `fabsweep diff`
 * computes them (core/diff.c), and the findings that are new or gone. */
struct fab_report_diff {
	const struct fab_snapshot *base, *snap; /* borrowed */
	struct fab_diff *fabric;     /* fab_diff_compute(base, snap); owned */
	uint32_t *findings_new;      /* finding indices in snap */
	size_t n_findings_new;
	uint32_t *findings_resolved; /* finding indices in base */
	size_t n_findings_resolved;
};

/* Compares base to snap (both borrowed, indexed). Findings match by rule,
 * node, port, peer and (for findings without a node) subject. */
int fab_report_diff_build(const struct fab_snapshot *base,
			  const struct fab_snapshot *snap,
			  struct fab_report_diff *out);
void fab_report_diff_free(struct fab_report_diff *d);

/*
 * The one formatter of change values: a change's old and new value as text
 * ("4X", "HDR", "active", "master", "0x...", a number; "none" for a width,
 * speed or master of none), or "" when the kind has none (an SM that
 * appeared has no old value). `fabsweep diff` shows these, as text and XML.
 * len >= FAB_GUID_STRLEN.
 */
void fab_report_change_text(const struct fab_change *c, char *old, char *new, size_t len);
/* The same as the reports' Was and Now show them: a port state with its
 * physical state ("active (linkup)"), a saturated counter marked
 * ("65535 (saturated)"). */
void fab_report_change_values(const struct fab_change *c, char *was, char *now, size_t len);
/* A change's Ethernet port (a RoCE host's module, FAB_CHG_MODULE) as an
 * <eth-port system= ifname=/> element, in both XML documents; nothing for
 * an InfiniBand end. */
struct fab_xw;
struct fab_change_end;
void fab_report_xml_eth_end(struct fab_xw *x, const struct fab_change_end *e);
/* The XML report's <physical> element (xml_phys.c); nothing without a
 * module or bit error ratio. */
struct fab_report_ctx;
void fab_report_xml_phys(struct fab_xw *x, const struct fab_report_ctx *c);
/* A width or speed mask as a change shows it: "4X", "1X,4X", "none" for 0. */
void fab_report_widths_text(unsigned mask, char *buf, size_t len);
void fab_report_speeds_text(unsigned mask, char *buf, size_t len);

/* Label of a node for people: its name in every output (fab_node_name:
 * its description, with GUID digits when another node shares it; its GUID
 * without one), maybe in buf. */
const char *fab_report_node_label(const struct fab_snapshot *snap, uint32_t node,
				  char buf[FAB_NODE_NAME_CAP]);

/* The routing section of both formats (reports/model_routing.c): the hop
 * histogram of every CA-to-CA route, the routing findings, and how many
 * switches' tables changed since the baseline (the diff's "routes"
 * changes, core/diff.c, which the Changes section lists). */
#define FAB_REPORT_ROUTING_RULES 8
struct fab_report_routing {
	bool present;                 /* the scan has forwarding tables */
	size_t n_ends;                /* CA ports routes start from and lead to */
	struct fab_route_pairs pairs; /* every ordered pair of them: counts, hops */
	unsigned max_links;           /* the longest route that arrives, 0 none */
	struct { const char *rule; size_t count; } rules[FAB_REPORT_ROUTING_RULES];
	size_t n_rules;               /* routing.* rules with findings, by id */
	bool compared;                /* a baseline with tables too */
	size_t n_changed;             /* switches whose table changed since it */
};
/* 0 or -ENOMEM (message set); d may be zeroed (no baseline). */
int fab_report_routing_build(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			     const struct fab_report_diff *d, struct fab_report_routing *out);
void fab_report_routing_free(struct fab_report_routing *r);

/* Everything a renderer reads: built once, shared by both formats. */
struct fab_report_ctx {
	const struct fab_snapshot *snap, *base; /* borrowed; base may be NULL */
	const struct fab_report_opts *opts;     /* borrowed, never NULL */
	const char *generator;                  /* opts->generator or the default */
	long long generated_at_ms;
	struct fab_report_model m;
	struct fab_report_diff d;               /* zeroed without a baseline */
	struct fab_report_routing rt;           /* the routing section */
	struct fab_report_phys ph;              /* the physical layer (phys.h) */
	uint32_t *node_findings;                /* per node: findings naming it */
};

/* Renderers: write the whole document to f; 0 or a negative errno. */
int fab_report_render_xml(const struct fab_report_ctx *c, FILE *f);
int fab_report_render_html(const struct fab_report_ctx *c, FILE *f);
