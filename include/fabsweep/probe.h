/* SPDX-License-Identifier: MIT */
/*
 * Live probes of ports a snapshot already knows, without discovery, and
 * pre-job readiness built on them (`fabsweep ready`).
 *
 * A probe sends LID-routed MADs straight to the LIDs a stored snapshot
 * recorded (NodeInfo to confirm who answers there, PortInfo, PortCounters),
 * all in flight at once through the scanner's MAD window engine, with short
 * timeouts. Readiness matches host names to channel adapters of the latest
 * sweep, plans which ports to probe (each host's CA ports and the switch
 * ports they attach to), and turns the answers and the sweep's findings
 * into one line per problem. docs/workflows.md, "Pre-job readiness".
 *
 * Modules: scanner/probe.c sends MADs; scanner/ready.c is pure (snapshot and
 * answers in, verdicts out) so that it is tested without a fabric.
 */
#pragma once

struct fab_mkeys;

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/snapshot.h"

struct fab_nodemap;
struct fab_counter_limits;

/* ---- the probe (scanner/probe.c) ----------------------------------------- */

#define FAB_PROBE_DEFAULT_TIMEOUT_MS 200
#define FAB_PROBE_DEFAULT_RETRIES 2
#define FAB_PROBE_DEFAULT_WINDOW 128

struct fab_probe_opts {
	const char *ca;  /* local CA; NULL: the first with an active IB port */
	int port;        /* local port; 0: the first active one */
	int window;      /* MADs in flight (<= 0: the default) */
	int timeout_ms;  /* per MAD (<= 0: the default) */
	int retries;     /* per MAD (< 0: the default) */
	/* M_Keys for the SMPs (NodeInfo, PortInfo); NULL: key 0. Borrowed:
	 * must outlive the open probe. */
	const struct fab_mkeys *mkeys;
};

void fab_probe_opts_init(struct fab_probe_opts *o);

/*
 * One port to probe and what came back. The caller fills port_idx (an
 * external port of the snapshot passed to fab_probe_ports(), whose node
 * and LIDs say where to ask); the probe fills the rest. Errors are 0 or a
 * negative errno: -ETIMEDOUT (no answer after all tries), -EREMOTEIO
 * (answered with an error status), -EHOSTUNREACH (no LID to ask at),
 * -ECANCELED (not asked: NodeInfo showed another node at that LID).
 */
struct fab_probe_port {
	uint32_t port_idx;      /* in: the port, an index into snap->ports */
	uint16_t lid;           /* out: where it was asked (switches: the switch LID) */
	int node_err;           /* NodeInfo at lid */
	uint64_t node_guid;     /* the NodeGUID that answered at lid */
	int info_err;           /* PortInfo */
	struct fab_port live;   /* decoded PortInfo (state, widths, speeds, LID...) */
	int ctr_err;            /* PortCounters */
	struct fab_counter_sample ctr; /* error counters and XmitWait as read now */
};

struct fab_probe_stats {
	unsigned long sent, resent, answered, failed; /* MADs, from the engine */
	double open_ms;  /* opening the local MAD port (fab_probe_open) */
	double mads_ms;  /* from the first MAD sent to the last answer */
	char source[80]; /* "ib:mlx5_0/1": where the probe ran from */
};

/* An open local MAD port to probe through. */
struct fab_probe;

/*
 * Opens the local port (o->ca/o->port, else the first active InfiniBand
 * port) and a MAD window over it. o is copied. *out owned by the caller.
 * Returns 0, or a negative errno with fab_errmsg() set (no usable port,
 * the MAD device cannot be opened).
 */
int fab_probe_open(const struct fab_probe_opts *o, struct fab_probe **out);
void fab_probe_close(struct fab_probe *p); /* accepts NULL */

/*
 * The same in a thread of its own, so that opening the device (which takes
 * tens of milliseconds under the simulator's umad2sim) overlaps with other
 * work such as loading a snapshot: begin returns at once; end waits and
 * gives what fab_probe_open() would have (its message set in the caller's
 * thread). Every begin that returned 0 needs its end.
 */
struct fab_probe_pending;
int fab_probe_open_begin(const struct fab_probe_opts *o, struct fab_probe_pending **out);
int fab_probe_open_end(struct fab_probe_pending *pending, struct fab_probe **out);

/*
 * Probes ports[0..n) of snap: for each distinct LID a NodeInfo (a port is
 * only trusted when the node answering at its LID has the snapshot's GUID);
 * for each port a PortInfo (attribute modifier: the port number) and a
 * PortCounters (PortSelect: the port number). Switch ports are asked at
 * the switch's LID, CA ports at their own. Everything borrowed; fills
 * ports[] and *stats (may be NULL). A port that does not answer is data,
 * not a failure. Returns 0, or a negative errno with fab_errmsg() set when
 * the MAD transport failed.
 */
int fab_probe_ports(struct fab_probe *p, const struct fab_snapshot *snap,
		    struct fab_probe_port *ports, size_t n,
		    struct fab_probe_stats *stats);

/*
 * Forensic scans (`scan --forensic`): reads PortCounters of every external
 * port of snap that has no counter sample yet (a normal scan reads active
 * ports only: this adds down, polling and disabled ports, and ports whose
 * PortInfo failed) wherever the node has a LID to ask at: the switch LID,
 * or for a CA the LID of one of its active ports. The samples get sample
 * number 0 and the time they were read. A port whose counters cannot be
 * read gets a scan error ("pma", "forensic: ...") and FAB_F_PMA_FAILED.
 * *n_read (may be NULL) = ports read. The snapshot's source
 * ("ib:CA/PORT") says which local port to use when o->ca is NULL.
 * Returns 0 or a negative errno with fab_errmsg() set.
 */
int fab_probe_unsampled_counters(const struct fab_probe_opts *o,
				 struct fab_snapshot *snap, size_t *n_read);

/* ---- readiness (scanner/ready.c, pure) ------------------------------------- */

/*
 * Whether a node description (or a node-name-map name) names host: its
 * first word (up to a blank) is host, ignoring case, or host followed by a
 * '.' and a domain ("host0001.cluster.example HCA-1" names host0001).
 */
bool fab_ready_name_matches(const char *host, const char *desc);

/* The hosts a readiness check is about, indexed for matching. */
struct fab_ready_hosts;

/* Indexes names[0..n) (borrowed: keep them alive); duplicates are merged.
 * *out owned by the caller. 0 or -ENOMEM. */
int fab_ready_hosts_new(const char *const *names, size_t n,
			struct fab_ready_hosts **out);
void fab_ready_hosts_free(struct fab_ready_hosts *h); /* accepts NULL */
/* Distinct hosts, in the order first given. */
size_t fab_ready_hosts_count(const struct fab_ready_hosts *h);
const char *fab_ready_hosts_name(const struct fab_ready_hosts *h, size_t i);
/* Index of the host that desc (a description or mapped name) names, or
 * (size_t)-1. O(log n). */
size_t fab_ready_hosts_find(const struct fab_ready_hosts *h, const char *desc);
/* Whether a CA with this GUID and description belongs to one of the hosts,
 * by its description or, when map is given, its mapped name. */
bool fab_ready_hosts_want(const struct fab_ready_hosts *h,
			  const struct fab_nodemap *map, uint64_t guid,
			  const char *desc);

enum fab_ready_verdict {
	FAB_READY_OK = 0,
	FAB_READY_NOT_READY, /* a problem was seen */
	FAB_READY_UNKNOWN,   /* could not be checked */
	FAB_READY__COUNT
};

struct fab_ready_problem {
	size_t host;     /* index in the hosts */
	uint8_t verdict; /* FAB_READY_NOT_READY or FAB_READY_UNKNOWN */
	char *text;      /* one line, not naming the host (owned) */
};

struct fab_ready {
	/* the plan: what to probe (fab_probe_ports() fills the answers) */
	struct fab_probe_port *ports;
	size_t n_ports;
	/* the outcome (fab_ready_evaluate()) */
	uint8_t *verdict; /* per host, enum fab_ready_verdict */
	size_t n_hosts;
	struct fab_ready_problem *problems; /* in host order */
	size_t n_problems;
	/* private */
	uint32_t *ca_of;     /* per node of the view: host index + 1, 0 none */
	uint32_t *target_of; /* per port of the view: index in ports, FAB_NONE */
	size_t n_nodes, n_view_ports;
};

/*
 * Plans a readiness check of hosts over view: a snapshot of the latest
 * sweep, whole or the part around the hosts (fab_store_load_view()).
 * Every port of a host's CAs that had a link in the view is probed, with
 * the port at the other end. view and map (may be NULL) are borrowed and
 * must outlive *out. *out owned by the caller (fab_ready_free).
 */
int fab_ready_plan(const struct fab_snapshot *view, const struct fab_ready_hosts *hosts,
		   const struct fab_nodemap *map, struct fab_ready **out);

/*
 * Judges every host from the probe's answers in r->ports and from the
 * view's findings at or above fail_on (enum fab_severity; FAB_SEV__COUNT:
 * findings never count): link state, width and speed against the view,
 * counters against the view's latest samples (an increase over limits,
 * which are the rules' increase parameters: fab_rules_increase_limits()),
 * who answers at each LID. Fills r->verdict and r->problems (replacing
 * earlier ones). limits borrowed. 0 or -ENOMEM.
 */
int fab_ready_evaluate(struct fab_ready *r, const struct fab_snapshot *view,
		       const struct fab_ready_hosts *hosts,
		       const struct fab_nodemap *map,
		       const struct fab_counter_limits *limits, unsigned fail_on);

/*
 * The counters that rose more than limits allow from old to now (the
 * counter model: a reset or a saturated counter is "or more"), as ready
 * says them: "LinkDownedCounter +2 (0 -> 2), PortRcvErrors +7 or more
 * (40 -> 7, cleared in between)" into line (cap bytes, cut there). The
 * length written; 0 when none did. The InfiniBand probe and the RoCE
 * host's own check (`ready --local`) both judge their counters with it.
 */
size_t fab_ready_counter_rise(const struct fab_counter_sample *old,
			      const struct fab_counter_sample *now,
			      const struct fab_counter_limits *limits, char *line, size_t cap);

/* The verdict of them all: not ready if any host is, else unknown if any
 * host could not be checked, else ready. */
enum fab_ready_verdict fab_ready_overall(const struct fab_ready *r);

void fab_ready_free(struct fab_ready *r); /* accepts NULL */

/* ---- a RoCE host's own readiness (`ready --local`, pipeline/ready_roce.c) ---- */

/* An RDMA port (RoCE: link layer Ethernet) the host should have, or has. */
struct fab_ready_roce_port {
	const char *device;       /* "mlx5_0" */
	unsigned port;
	const char *netdev;       /* now, else at the merge; NULL unknown */
	bool merged;              /* the merge had it */
	bool named;               /* [ready] roce_ports names it */
	bool present;             /* read here now */
	uint8_t state, phys_state; /* now (enum fab_port_state, fab_phys_state) */
	double rate_gbps, merged_rate_gbps; /* now, at the merge; 0 unknown */
	uint8_t verdict;          /* enum fab_ready_verdict */
};

/* An interface's cabling: the other end at the merge, what it hears now. */
struct fab_ready_roce_link {
	const char *ifname;
	const char *want_system, *want_port;   /* at the merge; NULL: no link there */
	const char *heard_system, *heard_port; /* now; NULL: hears nobody */
	bool lldp;                /* LLDP runs on it now (else not checked) */
	uint8_t verdict;
};

/* A finding of the rules about this host (or the port facing it). */
struct fab_ready_roce_finding {
	uint32_t finding;         /* index in judged->findings */
	bool counts;              /* at or above fail_on: the host is not ready */
};

/* ---- pairs of hosts: partitions (scanner/ready_pairs.c, pure) ---------------- */

/* A pair of hosts (indices in the hosts) that cannot talk, and why: no
 * shared partition (hop FAB_NONE, fault 0), a hop of the route from a to b
 * that is down, degraded or erroring (hop: index in fab_ready_hops.hops), or
 * a route the forwarding tables break (fault: enum fab_route_fault, at: the
 * view's port where it breaks). */
struct fab_ready_pair {
	uint32_t a, b;      /* partitions: a < b; routes: from a to b */
	uint8_t verdict;    /* FAB_READY_NOT_READY */
	bool limited_only;  /* they share a partition, as limited members both */
	uint8_t fault;      /* enum fab_route_fault (routing.h), 0 when the route arrives */
	uint32_t hop;       /* index in fab_ready_hops.hops, FAB_NONE */
	uint32_t at;        /* fault: the view's port where the route breaks, FAB_NONE */
};

struct fab_ready_pairs {
	bool judged;          /* the view has P_Key tables; else note says why not */
	const char *note;     /* static text, NULL when judged */
	unsigned want;        /* the partition asked for (15 bits), 0: any */
	uint64_t n_pairs;     /* pairs of hosts with tables, judged */
	uint64_t n_failing;   /* of them, pairs that share no usable partition */
	uint64_t n_route_failing; /* ordered pairs whose route breaks or crosses a bad hop */
	size_t n_no_table;    /* hosts without a P_Key table in the view: their pairs not judged */
	struct fab_ready_pair *failing; /* the first FAB_READY_PAIRS_LISTED failing pairs (owned) */
	size_t n_listed;
};
#define FAB_READY_PAIRS_LISTED 256

/*
 * Judges every pair of r's hosts: do they share a partition they can talk
 * in (want, or when want is 0 any in which one of them is a full member)?
 * A host's table is that of its first cabled port with one. Hosts with
 * equal tables are judged once as a group (O(hosts log hosts + groups^2)),
 * never pair by pair. Hosts of failing pairs get verdict NOT_READY in r.
 * When the view has no P_Key tables, out->judged is false and out->note
 * says so. 0 or -ENOMEM. fab_ready_pairs_free releases out's list.
 */
int fab_ready_pairs(struct fab_ready *r, const struct fab_snapshot *view, unsigned want,
		    struct fab_ready_pairs *out);
void fab_ready_pairs_free(struct fab_ready_pairs *p); /* accepts a zeroed one */
/* Counts a failing pair and lists it while fewer than FAB_READY_PAIRS_LISTED
 * are. 0 or -ENOMEM. */
int fab_ready_pairs_add(struct fab_ready_pairs *p, const struct fab_ready_pair *x);

/* ---- the hops between hosts (scanner/ready_hops.c, pure) ------------------- */

/* One switch-to-switch link some route between the hosts crosses. */
struct fab_ready_hop {
	uint32_t port, peer; /* the view's ports: the one the routes leave by, the one they enter */
	uint8_t verdict;     /* enum fab_ready_verdict */
	char *text;          /* why not OK, one line (owned); NULL when OK */
};

struct fab_ready_hops {
	bool judged;         /* the view has forwarding tables; else note says why not */
	const char *note;    /* static text, NULL when judged */
	struct fab_ready_hop *hops; /* distinct links, in the order routes first meet them */
	size_t n_hops;
	size_t n_bad;        /* hops not OK */
	/* private */
	uint32_t *hop_of;    /* per view port (the one routes leave by): its hop, FAB_NONE */
	uint32_t *host_port; /* per host: the port routes start and end at, FAB_NONE */
	size_t n_hosts;
};

/*
 * What the view lacks to follow the routes between r's hosts (r planned on
 * it): the GUIDs of the switches the routes reach that the view holds
 * without their table, and of the nodes beyond a port they leave by that
 * the view does not hold; none of have[0..n_have) (asked for already: the
 * scan has no table for it, or it is no switch). `ready` loads those and
 * asks again until nothing is missing (pipeline/ready.c,
 * fab_store_load_paths_view): a path of h switches costs h + 1 small loads.
 * One walk per destination. *out owned by the caller (NULL when *n_out is
 * 0). 0 or -ENOMEM.
 */
int fab_ready_hops_missing(const struct fab_ready *r, const struct fab_snapshot *view,
			   const uint64_t *have, size_t n_have, uint64_t **out, size_t *n_out);
/*
 * Plans the hops: the routes between every two of r's hosts in the view's
 * forwarding tables (a view holding every switch on them whole:
 * fab_ready_hops_missing() says none is missing),
 * walked per destination (core/route_walk.c), each distinct
 * switch-to-switch link once; both ends of each are added to r's probe plan
 * (r->ports). When the view has no tables, or fewer than two of the hosts
 * are cabled, out->judged is false and out->note says so; with one host
 * asked there is no route: judged, no hop, no note. 0 or -ENOMEM.
 */
int fab_ready_hops_plan(struct fab_ready *r, const struct fab_snapshot *view,
			struct fab_ready_hops *out);
/*
 * Judges each hop from the probe's answers in r->ports (active, width and
 * speed as at the sweep, counters not past limits: as a host's own link),
 * then every ordered pair of hosts by its route: the first bad hop, or the
 * fault where the tables break it; such pairs are added to pairs (their
 * hosts NOT_READY in r). map may be NULL. 0 or -ENOMEM.
 */
int fab_ready_hops_judge(struct fab_ready_hops *h, struct fab_ready *r,
			 const struct fab_snapshot *view, const struct fab_nodemap *map,
			 const struct fab_counter_limits *limits, struct fab_ready_pairs *pairs);
void fab_ready_hops_free(struct fab_ready_hops *h); /* accepts a zeroed one */
/* Adds a port of the view to r's probe plan (once). */
void fab_ready_plan_add(struct fab_ready *r, uint32_t port);
