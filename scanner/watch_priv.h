/* SPDX-License-Identifier: MIT */
/*
 * Private to scanner/watch*.c: the state of an open watch port and of one
 * run of the MAD window over it. watch.c makes the counter sweeps,
 * watch_links.c reads ports' states (the link probe, a trap's switch, a
 * LinkDownedCounter that moved, the ports known down) by directed route,
 * watch_events.c takes the SM's Reports (docs/watch.md).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/counter.h"
#include "fabsweep/watch.h"
#include "scanner/scan_priv.h"

/* J_RED and after: a changed port's detail counters (C_IDX: its candidate) */
enum wjob { J_SUM = 1, J_PC, J_NI, J_PI, J_LINK, J_DRNI, J_RED, J_XDD, J_VLW };
/* kind in bits 32-39, a port read's cause (enum fab_event_cause) in 40-47 */
#define COOKIE(k, i) ((uint64_t)(k) << 32 | (uint32_t)(i))
#define COOKIE_CAUSE(k, i, c) (COOKIE(k, i) | (uint64_t)(c) << 40)
#define C_KIND(c) ((unsigned)((c) >> 32) & 0xff)
#define C_CAUSE(c) ((unsigned)((c) >> 40) & 0xff)
#define C_IDX(c) ((uint32_t)(c))

#define PORT_STATE_ACTIVE 4

struct wnode {
	struct fab_counter_sample sum; /* the last AllPortSelect answer */
	bool have_sum;
	uint64_t xmit_wait; /* the sum's PortXmitWait at the last data sweep */
	bool no_allport;  /* AllPortSelect answered with an error status */
	uint8_t verify;   /* V_*: NodeInfo this sweep */
	uint8_t unsup;    /* FAB_PMA_*: optional attributes its PMA does not have */
	uint8_t dr_check; /* its LID did not answer: NodeInfo by directed route asked */
	/* directed route from the local node (watch_links.c) */
	uint32_t via;     /* the port (topology index) of its parent it is reached by; FAB_NONE: none */
	uint8_t hops;     /* 0: the local node */
	bool reached;
};

/* What watch_links.c keeps per port of the topology. */
struct wport {
	uint8_t state, phys;  /* as last read (the topology's at first) */
	uint8_t want;         /* a read asked for the next run: its cause, 0 none */
	uint8_t read;         /* this run: 0 not asked, 1 asked, 2 read */
};

struct fab_watch {
	struct fab_mport m;
	const struct fab_mkeys *mkeys;
	unsigned verify_every;
	unsigned data_every;
	unsigned long sweeps;   /* of this topology */
	uint32_t *down;         /* ports (of the topology) probed for coming up */
	size_t n_down;
	int64_t topo_id;        /* the topology the sums are of */
	size_t n_nodes, n_ports;
	struct wnode *nodes;
	struct wport *ports;
	/* the link probe: one end of each switch-to-switch link, read in turn */
	uint32_t *probe;
	size_t n_probe, probe_next;
	int64_t probe_ms;       /* every end read at least this often; 0: no probe */
	int64_t probe_last;     /* monotonic ms of the last slice */
	double probe_owed;      /* reads owed, fractions carried over */
	double probe_share;     /* a slice at most this share of a sweep's MADs (>= 1: no cap) */
	unsigned long probe_base; /* the fewest MADs of this topology's sweeps without PortInfo; 0: none */
	uint32_t local;         /* the node watch sends from (FAB_NONE: unknown) */
	bool paths_stale;       /* a port's state changed since the routes were made */
	/* a run's changes */
	struct fab_watch_change *changes;
	size_t n_changes, cap_changes;
	/* the SM's Reports (watch_events.c) */
	struct fab_snapshot *inbox; /* events only: the notices not taken yet */
	uint32_t seen_tid[32];      /* the last Reports' TIDs: a resend is no new notice */
	unsigned n_seen;
	uint64_t port_guid;         /* ours: the simulator path's SMInfo answer */
	bool hears;                 /* a Report can reach us (fab_watch_hears_reports) */
	unsigned long reports, dropped;
};

/* One run's work. */
struct wsweep {
	struct fab_watch *w;
	const struct fab_snapshot *t;
	struct fab_snapshot *out;
	struct fab_watch_result *res;
	struct fab_jobq q;
	uint32_t mask; /* the counters whose moving is a change this sweep */
	bool data;     /* a data sweep: PortXmitWait moving is a change too */
	bool react;    /* a trap's run: port reads and their counters only */
	unsigned long learnt; /* a topology's first sweep: its per-port reads of switches with no sum yet */
	struct fab_counter_sample *cand; /* changed ports, before NodeInfo confirms them */
	size_t n_cand, cap_cand;
	/* the LIDs that did not answer, asked by directed route: what the
	 * topology change would say if the node does not answer there either */
	struct { uint32_t node; char why[200]; } *silent;
	size_t n_silent, cap_silent;
	int err;
};

void wsweep_push(struct wsweep *ws, enum wjob k, uint32_t i, unsigned cause);
void wsweep_changed_topology(struct wsweep *ws, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *wsweep_why(int err);
/* In a trap's run: read the PortCounters of port pi (its state changed). */
void wsweep_counters_of(struct wsweep *ws, uint32_t pi);
/* Sizes the watch's state for topology t (kept while t is the same). */
int wsweep_adopt(struct fab_watch *w, const struct fab_snapshot *t);

/* watch_links.c */
/* The port state and routes of a new topology (after the nodes are sized). */
int wlinks_adopt(struct fab_watch *w, const struct fab_snapshot *t);
/* A run's start: no changes yet; its port reads queued (wlinks_queue) and,
 * on a sweep, the probe's slice. */
void wlinks_begin(struct wsweep *ws);
/* Queues the port reads asked for and (not in a trap's run) the linked
 * ports known not Active; each port once a run. */
void wlinks_queue(struct wsweep *ws);
/* Asks for a read of every linked port of switch ni (cause). */
void wlinks_want_switch(struct fab_watch *w, const struct fab_snapshot *t, uint32_t ni,
			unsigned cause);
/* Fills a directed-route PortInfo request for port pi of the topology. */
void wlinks_request(struct wsweep *ws, uint32_t pi, struct fab_mad_req *req);
/* The directed route to node ni along links known up (else its LID): req's
 * class, hops and path, or dlid. */
void wlinks_route(struct wsweep *ws, uint32_t ni, struct fab_mad_req *req);
/* A port read's answer. */
void wlinks_done(struct wsweep *ws, uint32_t pi, unsigned cause, int err, const uint8_t *d);
/* After the run: the other end of each link seen going down that was not
 * read, and the changes into the result. */
int wlinks_finish(struct wsweep *ws);

/* watch_events.c */
int wevents_open(struct fab_watch *w);
void wevents_close(struct fab_watch *w);
