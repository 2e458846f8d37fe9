/* SPDX-License-Identifier: MIT */
/*
 * Private to rules/: the context a check runs in, the helpers checks use to
 * emit findings, and the shared derived data (counter samples to compare, tiers)
 * the engine computes once per run.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h" /* ARRAY_SIZE */
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"

/* ---- growable text with a hard cap (house style 14) -------------------- */

#define RBUF_CAP (64 * 1024)

struct rbuf {
	char *p;
	size_t len, cap;
	bool full; /* text was cut at RBUF_CAP */
	bool nomem;
};

void rbuf_init(struct rbuf *b);
void rbuf_free(struct rbuf *b);
void rbuf_reset(struct rbuf *b);
void rbuf_printf(struct rbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "; " between evidence items, ", " between list items: adds sep unless empty. */
void rbuf_sep(struct rbuf *b, const char *sep);
/* The text so far ("" when empty); valid until the next append. */
const char *rbuf_str(const struct rbuf *b);

/* ---- link tiers -------------------------------------------------------- */

/* Tier of a link: the unordered pair of its ends' roles. */
#define FAB_TIER_COUNT (FAB_ROLE__COUNT * FAB_ROLE__COUNT)
static inline int fab_tier(unsigned r1, unsigned r2)
{
	if (r1 >= FAB_ROLE__COUNT)
		r1 = FAB_ROLE_UNKNOWN;
	if (r2 >= FAB_ROLE__COUNT)
		r2 = FAB_ROLE_UNKNOWN;
	return r1 <= r2 ? (int)(r1 * FAB_ROLE__COUNT + r2)
			: (int)(r2 * FAB_ROLE__COUNT + r1);
}
/* "leaf-spine" */
void fab_tier_name(int tier, char *buf, size_t len);

/* ---- the context of one check ----------------------------------------- */

struct fab_config;
struct fab_suppression;
struct roce_view;

struct fab_rule_ctx {
	/* what the check reads */
	const struct fab_rule *rule;
	const struct fab_config *cfg;
	const struct fab_snapshot *snap;
	const struct fab_snapshot *base; /* baseline or NULL */
	const struct fab_snapshot *ref;  /* expected topology (check --expect) or NULL */
	/* the RoCE part's per-port view (rules/check_roce.c); NULL when the
	 * snapshot has none (rules that need one do not run then) */
	const struct roce_view *roce;
	/* per port (index in snap->ports): the latest counter sample
	 * (pairs->latest) and the earlier one it is compared with (the first
	 * sample, or the baseline's: core/counter.c); rule_delta() compares them. */
	const struct fab_counter_pairs *pairs;
	/* watch's events (docs/watch.md): the snapshot's (a stored sweep), or
	 * those of the sweep watch judges (fab_rules_run_events) */
	const struct fab_event *events;
	size_t n_events;
	/* scratch text for checks (evidence, lists); reset before use */
	struct rbuf ev, tmp;

	/* private to the engine */
	struct fab_snapshot *out;
	uint8_t severity;
	int64_t now_ms;
	const struct fab_suppression *supp;
	size_t n_supp;
	size_t n_emitted, n_suppressed;
	struct rbuf subject, scratch;
};

/*
 * The engine's side of a context, for fab_rules_run() and for rules that are
 * not in the table (site rules, rules/site_run.c). init: emit into snap
 * (borrowed), suppressions of cfg expiring against now_ms (0: now); 0 or
 * -ENOMEM. use: the rule (borrowed) whose findings follow, at severity, with
 * the suppressions that apply to it; resets the counts. nomem: whether a
 * scratch buffer ran out of memory. fini: frees (after a failed init too).
 */
int rule_ctx_init(struct fab_rule_ctx *ctx, const struct fab_config *cfg,
		  struct fab_snapshot *snap, int64_t now_ms);
void rule_ctx_use(struct fab_rule_ctx *ctx, const struct fab_rule *rule, int severity);
bool rule_ctx_nomem(const struct fab_rule_ctx *ctx);
void rule_ctx_fini(struct fab_rule_ctx *ctx);

/* How the port's counters in want (a mask) moved between earlier and
 * latest (the counter model, include/fabsweep/counter.h); false (and *out
 * untouched) when there is nothing to compare. */
bool rule_delta(const struct fab_rule_ctx *ctx, uint32_t port, uint32_t want,
		struct fab_counter_delta *out);
/* Appends to ctx->tmp (the message) and ctx->ev (the evidence) what the
 * detail counters of port's latest sample c say about counter ctr
 * (PortRcvErrors, PortXmitDiscards: the cause; PortXmitWait: the VL that
 * waits most); nothing for other counters (rules/check_causes.c). growth:
 * the finding is on the counter's increase (the details' increase names the
 * cause), not its value (their totals do). */
void rule_counter_cause(struct fab_rule_ctx *ctx, uint32_t port, unsigned ctr,
			const struct fab_counter_sample *c, bool growth);


/* A rule parameter's current value. */
double rule_param(const struct fab_rule_ctx *ctx, size_t i);

/*
 * Parameters several rules read: each belongs to (and `fabsweep rules show`
 * lists it under) one rule; the others read it through rule_shared(), never
 * by another rule's id. Defined in rules/table.c.
 */
extern const struct fab_rule_param *const rule_param_roce_priority; /* [roce] priority */
extern const struct fab_rule_param *const rule_param_roce_dscp;     /* [roce] dscp */
extern const struct fab_rule_param *const rule_param_dark_dbm;      /* [module.dark_lane] dark_dbm */
extern const struct fab_rule_param *const rule_param_routing_sls;   /* [routing] sls */
/* The current value of a shared parameter (one of the above). */
double rule_shared(const struct fab_rule_ctx *ctx, const struct fab_rule_param *p);

/*
 * Emits a finding about port `port` (index in snap->ports) and, when not
 * FAB_NONE, the other end of its link `peer`. node/port/peer fields and the
 * subject ("leaf003/5 <-> spine001/3") are derived. evidence may be NULL.
 * Returns 0 or -ENOMEM.
 */
int rule_emit_port(struct fab_rule_ctx *ctx, uint32_t port, uint32_t peer,
		   const char *evidence, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* About a node as a whole (no port). */
int rule_emit_node(struct fab_rule_ctx *ctx, uint32_t node, const char *evidence,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* About the fabric, or something not in the topology: explicit fields
 * (each may be NULL) and a subject. */
int rule_emit_raw(struct fab_rule_ctx *ctx, const char *node, const char *port,
		  const char *peer_node, const char *peer_port, const char *subject,
		  const char *evidence, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

/*
 * Emits a finding about an Ethernet port (index in snap->roce->eth_ports)
 * and, when not FAB_NONE, the other end of its link: node and peer node
 * are system names, port and peer port interface names; the subject is
 * "host3/eth0 <-> leaf2/swp3". Returns 0 or -ENOMEM.
 */
int rule_emit_eth(struct fab_rule_ctx *ctx, uint32_t port, uint32_t peer,
		  const char *evidence, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* About an RDMA device (index in snap->roce->devices): node is its system,
 * port `port` when not NULL (a netdev, "mlx5_0/1"), else the device name. */
int rule_emit_rdma(struct fab_rule_ctx *ctx, uint32_t dev, const char *port,
		   const char *evidence, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Appends a node's name: its description, or its GUID when it has none. */
void rule_name(struct rbuf *b, const struct fab_snapshot *s, uint32_t node);
/* Appends "name/port" for a port (index in s->ports). */
void rule_port_name(struct rbuf *b, const struct fab_snapshot *s, uint32_t port);
/* Whether a port can be a link end: a real port (> 0) that has a peer. */
static inline uint32_t rule_peer(const struct fab_snapshot *s, uint32_t port)
{
	const struct fab_port *p = &s->ports[port];

	if (p->port_num == 0 || p->remote_idx == FAB_NONE ||
	    p->remote_idx >= s->n_ports)
		return FAB_NONE;
	return p->remote_idx;
}

/* A host port: a cabled port of a CA that is not part of a switch (the
 * pkey and mcast rules' hosts). */
static inline bool rule_host_port(const struct fab_snapshot *s, uint32_t i)
{
	const struct fab_port *p = &s->ports[i];
	const struct fab_node *n = &s->nodes[p->node_idx];

	return n->type == FAB_NODE_CA && p->port_num && p->remote_idx != FAB_NONE &&
	       !fab_node_in_switch(s, p->node_idx);
}

/* ---- the checks (rules/check_*.c), referenced by the table ------------- */

/* Generic, parametrised by rule->arg. */
enum { LINK_WIDTH = 0, LINK_SPEED = 1 };
int check_link_degraded(struct fab_rule_ctx *ctx);
/* rule->arg: COUNTERS_RATE_FIRST uses a rate parameter when the port has a
 * delta and the value threshold only when it has none. */
enum { COUNTERS_ALL = 0, COUNTERS_RATE_FIRST = 1 };
int check_counters(struct fab_rule_ctx *ctx);
/* link.ber_high: symbol error rate per port between two samples (check_causes.c) */
int check_link_ber(struct fab_rule_ctx *ctx);
enum { DUP_LID = 0, DUP_GUID = 1, DUP_NODEDESC = 2 };
int check_duplicates(struct fab_rule_ctx *ctx);
enum { SM_NONE = 0, SM_MULTIPLE_MASTERS, SM_PRIORITY_INVERSION, SM_NO_STANDBY,
       SM_UNRESPONSIVE };
int check_sm(struct fab_rule_ctx *ctx);

int check_port_not_active(struct fab_rule_ctx *ctx);
int check_port_down(struct fab_rule_ctx *ctx);
/* port.down's second source (rules/check_events.c): the ports watch read
 * down (ctx->events) that the snapshot has Active with a link. */
int check_port_down_events(struct fab_rule_ctx *ctx);
/* "the port is Down; it was Active with a link at ..." with its evidence
 * in ctx->ev, and the other end it had (peer, FAB_NONE: not in the
 * snapshot): port.down's one wording, for both of its sources. */
int rule_emit_port_down(struct fab_rule_ctx *ctx, uint32_t port, uint32_t peer, unsigned state,
			unsigned phys, const char *was);
int check_security_trap(struct fab_rule_ctx *ctx);
int check_mtu_mismatch(struct fab_rule_ctx *ctx);
int check_lid_unassigned(struct fab_rule_ctx *ctx);
int check_topology_asymmetric(struct fab_rule_ctx *ctx);
int check_node_unresponsive(struct fab_rule_ctx *ctx);
/* Expected topology against ctx->ref (rules/expect.c); rule->arg says which. */
enum { EXPECT_MISSING = 0, EXPECT_UNEXPECTED = 1, EXPECT_MISWIRED = 2 };
int check_expect(struct fab_rule_ctx *ctx);

/* ---- RoCE and Ethernet (rules/check_roce.c, check_roce_cc.c, check_eth.c) -- */

struct fab_roce;
struct fab_eth_port;
struct fab_eth_link;
struct fab_roce_votes;

/* What the RoCE checks need per Ethernet port, built in one pass, once per
 * run: the engine builds it when the snapshot has a RoCE part and hands it
 * to every check in ctx->roce. */
struct roce_view {
	const struct fab_roce *r;
	uint32_t *link_of; /* per port: a link it is an end of, FAB_NONE */
	uint32_t *heard;   /* per port: neighbour records heard on it */
	bool *sys_pfc;     /* per system: advertises a PFC TLV on some port */
	bool *sys_app;     /* per system: advertises an APP TLV on some port */
	bool *roce;        /* per port: a RoCE interface (roce_port()) */
	/* the majority rules' votes: this part's and what it leaves out
	 * (r->outside), rules/roce_votes.c */
	struct fab_roce_votes *votes;
};
/* Builds the view of s->roce (must be non-NULL); 0 or -ENOMEM. */
int roce_view_init(const struct fab_snapshot *s, struct roce_view *v);
void roce_view_fini(struct roce_view *v);
/* Its operational state is "up". */
bool roce_is_up(const struct fab_eth_port *p);
/* The other end of the port's link, FAB_NONE when it has none. */
uint32_t roce_peer(const struct roce_view *v, uint32_t port);
/* Whether an RDMA port runs on it, or it is set up for RoCE (PFC on some
 * priority, or an application entry for UDP 4791). */
bool roce_port(const struct roce_view *v, uint32_t port);
/* Where a port's PFC bitmap comes from. */
enum pfc_src {
	PFC_UNKNOWN = 0, /* nothing says */
	PFC_DCB,         /* the NIC's configuration */
	PFC_LLDP,        /* its PFC TLV (for a stub: as heard) */
	PFC_NOT_SENT,    /* no PFC TLV on it, while its system sends some elsewhere */
};
/* The PFC priorities a port runs into *bits (0 unless known): DCB first,
 * then LLDP; a port without a PFC TLV whose system sends one elsewhere has
 * none (PFC_NOT_SENT). */
enum pfc_src roce_port_pfc(const struct roce_view *v, uint32_t port, uint8_t *bits);
/* Appends priorities of a bitmap: "3", "0,3", "none". */
void roce_prio_list(struct rbuf *b, uint8_t bits);
/* [roce] priority, the priority RoCE runs on (a shared parameter). */
unsigned roce_priority(const struct fab_rule_ctx *ctx);
/* rules/roce_votes.c: the votes of v's own ports and links, plus those of
 * what the part leaves out (v->r->outside) when with_outside; *out owned
 * (fab_roce_votes_free). 0 or -ENOMEM. */
int roce_votes(const struct roce_view *v, bool with_outside, struct fab_roce_votes **out);
/* The role of the system a port belongs to. */
unsigned roce_sys_role(const struct fab_roce *r, uint32_t port);
/* The speed a link runs (its slower end) into *mbps: false unless both ends
 * are collected and their speeds known. */
bool roce_link_speed(const struct fab_roce *r, const struct fab_eth_link *l, int32_t *mbps);

int check_roce_pfc_disabled(struct fab_rule_ctx *ctx);
int check_roce_pfc_mismatch(struct fab_rule_ctx *ctx);
int check_roce_dscp_mapping(struct fab_rule_ctx *ctx);
int check_roce_mtu_mismatch(struct fab_rule_ctx *ctx);
int check_roce_congestion(struct fab_rule_ctx *ctx);
/* rules/check_roce_cc.c: congestion control (ECN, CNPs, trust) */
int check_roce_ecn_disabled(struct fab_rule_ctx *ctx);
int check_roce_cnp_mismatch(struct fab_rule_ctx *ctx);
int check_roce_trust_mismatch(struct fab_rule_ctx *ctx);
int check_lldp_no_neighbor(struct fab_rule_ctx *ctx);
int check_lldp_asymmetric(struct fab_rule_ctx *ctx);
int check_eth_speed_mismatch(struct fab_rule_ctx *ctx);
int check_pcie_degraded(struct fab_rule_ctx *ctx);
int check_fw_mismatch(struct fab_rule_ctx *ctx);
/* rules/check_routing.c */
int check_routing_unreachable(struct fab_rule_ctx *ctx);
int check_routing_credit_loop(struct fab_rule_ctx *ctx);
int check_routing_imbalance(struct fab_rule_ctx *ctx);

/* rules/check_phys.c: modules and cables of both fabrics */
int check_module_temperature(struct fab_rule_ctx *ctx);
int check_module_rx_power(struct fab_rule_ctx *ctx);
int check_module_tx_bias(struct fab_rule_ctx *ctx);
int check_module_dark_lane(struct fab_rule_ctx *ctx);
/* rules/check_nic.c: NIC counters of Ethernet ports */
int check_roce_pause_storm(struct fab_rule_ctx *ctx);
int check_roce_pause_unexpected(struct fab_rule_ctx *ctx);
int check_eth_discards(struct fab_rule_ctx *ctx);
int check_eth_fec_uncorrectable(struct fab_rule_ctx *ctx);
int check_eth_ber_high(struct fab_rule_ctx *ctx);

/* rules/check_pkey.c */
int check_pkey_enforcement_drop(struct fab_rule_ctx *ctx);
int check_pkey_limited_pair(struct fab_rule_ctx *ctx);
int check_pkey_default_missing(struct fab_rule_ctx *ctx);

/* rules/check_vl.c: virtual lanes (include/fabsweep/qos.h) */
int check_vl_op_vls(struct fab_rule_ctx *ctx);
int check_vl_sl_dropped(struct fab_rule_ctx *ctx);
int check_vl_starved(struct fab_rule_ctx *ctx);
/* rules/check_mcast.c */
int check_mcast_unreached(struct fab_rule_ctx *ctx);
int check_mcast_loop(struct fab_rule_ctx *ctx);
int check_mcast_stale(struct fab_rule_ctx *ctx);
int check_mcast_rate_mtu(struct fab_rule_ctx *ctx);
int check_mcast_ipoib(struct fab_rule_ctx *ctx);
