/* SPDX-License-Identifier: MIT */
/*
 * The rule engine: one static table of health rules, each a pure check over
 * a snapshot that appends findings to it. docs/adding-a-rule.md explains how
 * to add one; docs/rules/<id>.md documents each.
 *
 * Rule ids are stable: users and scripts depend on them. A rule that is no
 * longer wanted is marked retired, never removed or renumbered, and its id is
 * never reused.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_config;
struct fab_snapshot;
struct fab_rule_ctx; /* private to rules/: what a check reads and emits into */

/* Upper bound on the table size (fixed arrays in struct fab_rules_result). */
#define FAB_RULES_MAX 64

enum fab_rule_category {
	FAB_CAT_LINK = 0,   /* width, speed, state, MTU of links */
	FAB_CAT_COUNTERS,   /* port counters: errors, rates, flapping, congestion */
	FAB_CAT_SM,         /* subnet managers */
	FAB_CAT_ADDRESSING, /* LIDs, GUIDs, node descriptions */
	FAB_CAT_TOPOLOGY,   /* the shape of the fabric */
	FAB_CAT_SCAN,       /* what the scan could not see */
	FAB_CAT_ROCE,       /* Ethernet / RoCE: DCB (PFC, APP), MTU, speed, LLDP */
	FAB_CAT_HOST,       /* RDMA devices of hosts: PCIe link, firmware */
	FAB_CAT_ROUTING,    /* forwarding tables: reachability, credit loops, balance */
	FAB_CAT_PHYSICAL,   /* modules and cables, NIC pause, discards, FEC, BER */
	FAB_CAT__COUNT
};

/* What a rule needs in the snapshot; a rule whose needs are not met is
 * skipped (reported as such), never run on missing data. */
enum {
	FAB_NEED_COUNTERS = 1 << 0, /* at least one counter sample */
	FAB_NEED_DELTAS = 1 << 1,   /* two samples, or a baseline with samples */
	FAB_NEED_SMINFO = 1 << 2,   /* the scan asked for SMInfo (live scans) */
	FAB_NEED_REFERENCE = 1 << 3, /* a reference topology (check --expect); without
				      * one the rule is not asked for (not "skipped") */
	FAB_NEED_ROCE = 1 << 4,      /* a RoCE part (collect, merge, scan --no-ib) */
	FAB_NEED_ROCE_BASELINE = 1 << 5, /* a baseline whose RoCE part has RDMA
					  * counters (check --baseline) */
	FAB_NEED_PORT_STATE = 1 << 6, /* port states and MTUs as PortInfo says them:
				       * not a topology file (ibnetdiscover lists
				       * linked ports only, with no state or MTU) */
	FAB_NEED_ROCE_ECN = 1 << 7,   /* some interface's ECN settings (sysfs ecn/) */
	FAB_NEED_ROCE_TRUST = 1 << 8, /* some NIC's trust state (its DCB answered) */
	FAB_NEED_ROUTES = 1 << 9,     /* forwarding tables (a live scan without --no-routes) */
	FAB_NEED_BASELINE = 1 << 10,  /* an earlier snapshot (check --baseline; watch's last full scan) */
	FAB_NEED_PKEYS = 1 << 11,     /* P_Key tables (a live scan without --no-pkeys) */
	FAB_NEED_QOS = 1 << 12,       /* the VL tables (a QoS policy seen, or scan --forensic) */
	FAB_NEED_MODULES = 1 << 13,   /* some module or cable (collect on RoCE hosts, ibdiagnet2.cables) */
	FAB_NEED_NIC_COUNTERS = 1 << 14, /* some NIC counter (collect on RoCE hosts) */
	FAB_NEED_MCAST = 1 << 15,     /* multicast groups, members and tables (a live scan
				       * without --no-mcast whose SA answered) */
	FAB_NEED__LAST = FAB_NEED_MCAST
};

/* What one FAB_NEED_* bit asks of a snapshot, as `fabsweep rules show`
 * says it ("counter samples", "a reference topology (check --expect)");
 * NULL for a bit that is no need. Static text. */
const char *fab_rule_need_text(unsigned need);

/* Kinds of parameter values: how they parse, print and compare. */
enum fab_param_type {
	FAB_PARAM_COUNT = 0, /* counter value threshold: fires when value > it */
	FAB_PARAM_INCREASE,  /* allowed increase of a counter between samples */
	FAB_PARAM_RATE,      /* counter increase per second threshold */
	FAB_PARAM_WIDTH,     /* one link width ("4X"), 0 = the tier's majority */
	FAB_PARAM_SPEED,     /* one link speed ("HDR"), 0 = the tier's majority */
	FAB_PARAM_MTU,       /* IB MTU enum 1..5, written in bytes */
	FAB_PARAM_INT,       /* a plain whole number */
	FAB_PARAM_INT_AUTO,  /* a whole number, or FAB_PARAM_AUTO: what most of the fabric uses */
	FAB_PARAM_SLS,       /* a set of service levels ("0-14", "0,2,4-7"): a 16-bit mask */
	FAB_PARAM_RATIO,     /* a plain number, written like 1e-12 (a bit error rate) */
	FAB_PARAM_REAL,      /* a number, negative allowed ("-12", "2.5", "1e-6"), or 'off' (FAB_PARAM_REAL_OFF) */
	FAB_PARAM__COUNT
};

/* The value of a COUNT, INCREASE, RATE or MTU parameter that is switched off. */
#define FAB_PARAM_OFF (-1.0)
/* The value of a REAL parameter that is switched off (any number is valid). */
#define FAB_PARAM_REAL_OFF (-1e300)
/* The value of an INT_AUTO parameter left to the fabric's majority ("auto"). */
#define FAB_PARAM_AUTO (-1.0)

/*
 * One tunable value of a rule. Its config key is `key` in section
 * `[section]`; sections are shared by rules ("thresholds", "rates",
 * "expect") or named after the rule itself. A (section, key) pair belongs
 * to exactly one rule.
 */
struct fab_rule_param {
	const char *section;
	const char *key;
	uint8_t type; /* enum fab_param_type */
	int arg;      /* what the value applies to: a counter, a tier ... */
	double def;   /* default; FAB_PARAM_OFF or 0 (auto) where allowed */
	double min, max; /* accepted range (INT, INCREASE, COUNT, RATE) */
	const char *help; /* one line */
};

/* A check: reads the snapshot in ctx, emits findings through it. Returns 0,
 * or a negative errno when the engine itself failed (never for a finding). */
typedef int (*fab_rule_check_fn)(struct fab_rule_ctx *ctx);

struct fab_rule {
	const char *id;       /* "link.width_degraded": stable, never reused */
	uint8_t severity;     /* default, enum fab_severity */
	uint8_t category;     /* enum fab_rule_category */
	uint32_t needs;       /* FAB_NEED_* (16 bits used: uint16_t is full) */
	bool retired;         /* kept for its id; never runs */
	const char *title;    /* one line, no final period */
	const char *rationale;   /* why it matters: a paragraph */
	const char *remediation; /* what to do: a paragraph */
	const struct fab_rule_param *params;
	size_t n_params;
	fab_rule_check_fn check;
	int arg;              /* for generic checks shared by several rules */
};

/* The table, in its stable order (borrowed, static). */
const struct fab_rule *fab_rules_table(size_t *n_out);
/* A rule by id, or NULL. */
const struct fab_rule *fab_rule_find(const char *id);
/* Position of a rule in the table. */
size_t fab_rule_index(const struct fab_rule *rule);
/* "link", "counters", "sm", "addressing", "topology", "scan", "roce", "host". */
const char *fab_rule_category_name(unsigned cat);

/*
 * Formats a parameter value as the config file writes it ("10", "off",
 * "4X", "4096", "auto", "2.5").
 */
void fab_param_format(const struct fab_rule_param *p, double v, char *buf,
		      size_t len);
/*
 * Parses a value as the config file writes it. 0 and *out on success;
 * -EINVAL (with no message) when the text is not a valid value; then
 * fab_param_expect() says what was expected ("a whole number or 'off'").
 */
int fab_param_parse(const struct fab_rule_param *p, const char *text,
		    double *out);
const char *fab_param_expect(const struct fab_rule_param *p);

enum fab_rule_status {
	FAB_RULE_RAN = 0,
	FAB_RULE_DISABLED, /* switched off in the config */
	FAB_RULE_SKIPPED,  /* the snapshot lacks what it needs */
	FAB_RULE_RETIRED,
	FAB_RULE_NOT_REQUESTED, /* needs a reference topology none was given for */
};

/* What a run did, for the terminal summary. */
struct fab_rules_result {
	size_t n_rules;                       /* entries in the table */
	uint8_t status[FAB_RULES_MAX];        /* enum fab_rule_status */
	const char *why_skipped[FAB_RULES_MAX]; /* static text, or NULL */
	uint32_t n_findings[FAB_RULES_MAX];   /* kept findings per rule */
	double seconds[FAB_RULES_MAX];        /* time each check took */
	double prepare_seconds;               /* indexes and counter deltas */
	size_t by_severity[3];                /* kept findings per severity */
	size_t n_suppressed;                  /* dropped by a suppression */
	const char *delta_source;             /* "samples", "baseline", or NULL */
	double delta_seconds;                 /* typical interval of the deltas */
};

/*
 * Runs every enabled rule over snap: first drops snap's findings, then
 * appends the new ones (rule table order, each rule's findings in a fixed
 * order), so running twice gives the same findings, never duplicates.
 *
 * cfg: NULL for the defaults. baseline: an earlier snapshot to compare
 * counters with (NULL: none; then two samples within snap are used when
 * present). now_ms: the time suppressions expire against; 0 = now.
 * Everything is borrowed; snap gets the findings (strings in its arena) and
 * is indexed if it was not. *out (may be NULL) is filled on success.
 * Returns 0 or a negative errno with fab_errmsg() set.
 */
int fab_rules_run(const struct fab_config *cfg, struct fab_snapshot *snap,
		  const struct fab_snapshot *baseline, int64_t now_ms,
		  struct fab_rules_result *out);

/*
 * The same, with the expected topology: reference (borrowed, indexed; NULL:
 * none) is what the rules that need one (FAB_NEED_REFERENCE: missing,
 * unexpected and miswired links, rules/expect.c) compare snap with: an
 * imported ibnetdiscover file or an earlier snapshot. Without a reference
 * those rules have status FAB_RULE_NOT_REQUESTED.
 */
int fab_rules_run_ref(const struct fab_config *cfg, struct fab_snapshot *snap,
		      const struct fab_snapshot *baseline,
		      const struct fab_snapshot *reference, int64_t now_ms,
		      struct fab_rules_result *out);

/*
 * The same over the rules whose ids are only[0..n_only) (no reference):
 * the others have status FAB_RULE_NOT_REQUESTED. `ready --local` asks the
 * rules about a RoCE host this way (docs/roce.md, "Readiness").
 */
int fab_rules_run_only(const struct fab_config *cfg, struct fab_snapshot *snap,
		       const struct fab_snapshot *baseline, const char *const *only,
		       size_t n_only, int64_t now_ms, struct fab_rules_result *out);

/*
 * The votes of the rules that compare a port with the fabric's majority
 * (roce.trust_mismatch, roce.cnp_mismatch, eth.speed_mismatch: struct
 * fab_roce_votes, include/fabsweep/roce.h) over s's own RoCE part, without
 * what it carries of the rest (s->roce->outside): a part's outside votes
 * are the whole's minus the part's. *out owned by the caller
 * (fab_roce_votes_free). 0 or a negative errno with fab_errmsg() set.
 */
struct fab_roce_votes;
int fab_rules_roce_votes(const struct fab_snapshot *s, struct fab_roce_votes **out);

struct fab_counter_limits;
struct fab_counter_pairs;

/*
 * The counter rules (port.errors, port.error_rate, port.link_flapping,
 * port.congestion) over the ports that have a pair in pairs only: a watch
 * sweep's changed ports, latest their new value and earlier the one before
 * (docs/watch.md). snap (indexed) names the ports; the findings are
 * appended to out (the sweep). Enabled rules only, with cfg's parameters,
 * severities and suppressions. 0 or a negative errno.
 */
int fab_rules_run_counters(const struct fab_config *cfg, const struct fab_snapshot *snap,
			   const struct fab_counter_pairs *pairs, struct fab_snapshot *out,
			   int64_t now_ms);

/*
 * The rules that judge what watch read and heard between full scans
 * (docs/watch.md, "Link events"): port.down for each port of topo (indexed)
 * that sweep's events read not Active while topo has it Active with a link,
 * sm.security_trap for each security notice the SM forwarded. The findings
 * are appended to sweep. Enabled rules only, with cfg's severities and
 * suppressions. 0 or a negative errno.
 */
int fab_rules_run_events(const struct fab_config *cfg, const struct fab_snapshot *topo,
			 struct fab_snapshot *sweep, int64_t now_ms);

/*
 * Hysteresis for watch sweeps (rules/hold.c): a finding stays raised for
 * hold_ms after it was last raised instead of blinking off with the next
 * sweep that sees no change. Keyed by rule, node and port.
 */
struct fab_rules_hold;
struct fab_finding;
int fab_rules_hold_new(int64_t hold_ms, struct fab_rules_hold **out);
void fab_rules_hold_free(struct fab_rules_hold *h); /* accepts NULL */
/* Remembers sweep's findings of the counter rules and port.down as raised at
 * now_ms (setting their held_since_ms, held_until_ms and held_evidence: the
 * store keeps one hold per raise), then appends to sweep, marked held, the
 * findings raised before that are within hold_ms and not raised again
 * (their evidence gains "held_since=<time last raised>"). A port.down is
 * held until a full scan (a sweep snapshot with ports of its own) has the
 * port Active, or sweep's events read it Active, its evidence gaining
 * "since=<time first seen down>". Other
 * rules' findings (a full scan's) are left as they are. 0 or -ENOMEM. */
int fab_rules_hold_apply(struct fab_rules_hold *h, struct fab_snapshot *sweep, int64_t now_ms);
/* Takes up the holds of an earlier watch (fab_store_open_holds): each
 * finding of f[0..n) that watch holds, as raised at its held_since_ms.
 * 0 or -ENOMEM. */
int fab_rules_hold_restore(struct fab_rules_hold *h, const struct fab_finding *f, size_t n);
/* Whether watch holds a rule's findings into its sweeps (the counter rules,
 * port.down, sm.security_trap); the other rules' stay with the full scan
 * that raised them. */
bool fab_rules_held_by_watch(const char *rule_id);

/*
 * The counter increases every enabled counter rule tolerates between two
 * samples (its FAB_PARAM_INCREASE parameters: port.error_increase,
 * port.link_flapping), as cfg (NULL: the defaults) sets them; where two
 * rules limit one counter, the stricter. What `fabsweep ready` judges a
 * host's counters since the sweep by. Fills *out.
 */
void fab_rules_increase_limits(const struct fab_config *cfg, struct fab_counter_limits *out);
