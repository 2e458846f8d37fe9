/* SPDX-License-Identifier: MIT */
/*
 * Counter sweeps of a known topology (scanner/watch.c), what `fabsweep
 * watch` runs between full scans (docs/watch.md): LID-routed PerfMgt
 * queries to the ports a snapshot holds, no discovery, all in flight
 * through the scanner's MAD window engine.
 *
 * Per switch one PortCounters with AllPortSelect (the sum of its ports'
 * counters, as ibqueryerrors reads it) and, only where that sum's error
 * counters changed or saturated (or on the first sweep of a topology), the
 * PortCounters of each of its active ports; per channel adapter port its
 * own PortCounters. A port whose error counters differ from the topology's
 * latest sample of it is a change. Before a change is reported, NodeInfo at
 * its LID confirms who answers there; a slice of the LIDs is confirmed on
 * every sweep too, and the master SM's SMInfo is read, so a changed
 * topology is noticed instead of counters being read from the wrong port.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_probe_opts;
struct fab_snapshot;

/* An open local MAD port and what earlier sweeps learnt (each switch's
 * last sum). */
struct fab_watch;

/* Opens the local port: o->ca/o->port, else the one source names
 * ("ib:CA/PORT", the full scan's), else the first active one. o is copied.
 * 0 or a negative errno with the message set. */
int fab_watch_open(const struct fab_probe_opts *o, const char *source, struct fab_watch **out);
void fab_watch_close(struct fab_watch *w); /* accepts NULL */

/* A port whose state a run found different from the last known (its
 * state in the topology until a run read it). */
struct fab_watch_change {
	uint32_t port_idx;    /* in the topology */
	uint8_t was, state, phys_state; /* enum fab_port_state, fab_phys_state */
	uint8_t cause;        /* enum fab_event_cause: why it was read */
	bool inferred;        /* not read (no route to it answered): the other end of
				* its link was read down, so is this one */
	int64_t at_ms;        /* when it was read, Unix epoch ms */
};

struct fab_watch_result {
	/* The topology is not the one swept any more: a LID did not answer,
	 * another GUID answered at a LID, the master SM changed. why says
	 * which (one line). The sweep's samples must not be used. */
	bool topology_changed;
	char why[256];
	size_t changed;         /* ports whose error counters moved: samples added */
	unsigned long sums;     /* AllPortSelect PortCounters sent */
	unsigned long ports;    /* per-port PortCounters sent */
	unsigned long verified; /* NodeInfo sent */
	unsigned long probed;   /* PortInfo of down ports sent */
	unsigned long links;    /* PortInfo of linked ports sent (probe, traps, LinkDownedCounter) */
	unsigned long probe;    /* the link probe's slice among links */
	unsigned long unrouted; /* nodes whose LID did not answer but who did by directed route
				 * (the SM has not rerouted around a link yet): read next sweep */
	/* ports whose state differs from the last known (owned by the watch,
	 * valid until its next run) */
	const struct fab_watch_change *changes;
	size_t n_changes;
	unsigned long details;  /* detail counters asked: PortRcvErrorDetails, PortXmitDiscardDetails, PortVLXmitWaitCounters */
	bool data;              /* a data sweep: PortXmitWait moving was a change */
	unsigned long mads;     /* MADs sent, resends included */
	unsigned long failed;   /* queries that got no answer */
	double ms;              /* from the first MAD to the last answer */
};

/*
 * One counter sweep of topo: an indexed snapshot whose latest sample of each
 * port is the value last known (the full scan's, updated with each sweep's
 * changes: fab_snapshot_put_sample). Appends to sweep (a snapshot without
 * nodes or ports, made by the caller) one sample per changed port (port_idx
 * into topo; the error counters and PortXmitWait, sampled_at set) and the master SM's SMInfo
 * (port_idx into topo). When topo is another snapshot than the previous
 * sweep's, every switch's ports are read once (the sums are learnt anew).
 * Returns 0 (a topology change is a result, not an error) or a negative
 * errno with the message set when the MAD transport failed.
 */
int fab_watch_sweep(struct fab_watch *w, const struct fab_snapshot *topo,
		    struct fab_snapshot *sweep, struct fab_watch_result *res);

/* How many sweeps it takes to confirm every LID's GUID once (a slice of
 * 1/n of them per sweep, besides the LIDs of changes); default 16. */
void fab_watch_set_verify_every(struct fab_watch *w, unsigned n);

/* Every n-th sweep of a topology (the first included) is a data sweep:
 * a port whose PortXmitWait moved since its last stored value is a change
 * then, so a congested port writes a row once in n sweeps at most, not on
 * every sweep (docs/watch.md); default 6. */
void fab_watch_set_data_every(struct fab_watch *w, unsigned n);

/* Ports of the topology known to be down (port.down: Down in the full
 * scan): each sweep reads their PortInfo, and one that is Active again is
 * a topology change (a full scan finds its link). ports is copied. 0 or
 * -ENOMEM. */
int fab_watch_set_down(struct fab_watch *w, const uint32_t *ports, size_t n);

/*
 * Link states between full scans (docs/watch.md, "Link events"). Every
 * port the topology has Active with a link is known to be Active until a
 * run reads it otherwise. Ports are read by directed route along the
 * topology's links that are not known down (LID routes may still cross a
 * link that just went down), and a read that gets no answer tells
 * nothing. What a run finds different is in the result's changes; a
 * linked port not Active is read again on every sweep until it is Active.
 */
/* The link probe: one end of each switch-to-switch link (the one nearer
 * this port) is read at least every period_ms, a slice per sweep (the
 * share of the period since the slice before); 0: no probe. */
void fab_watch_set_link_probe(struct fab_watch *w, int64_t period_ms);
/* The probe's cost bound: a sweep's slice is at most max(1, floor(share x
 * M)) links, M a steady counter sweep's MADs: the fewest of the
 * topology's sweeps so far, each without its PortInfo reads (the probe's,
 * the ports known down read again; a topology's first sweep also without
 * its reads of every switch port); reads owed beyond it carry over, so
 * each link is still read in turn, less often than the period. share >= 1:
 * no cap.
 * Default FAB_WATCH_PROBE_SHARE. */
#define FAB_WATCH_PROBE_SHARE 0.10
void fab_watch_set_link_probe_share(struct fab_watch *w, double share);
/* The probe as it goes: what watch says of its period (docs/watch.md). */
struct fab_watch_probe_cost {
	size_t links;        /* the switch-to-switch links it reads (one end each) */
	int64_t period_ms;   /* the period asked for (0: no probe) */
	double share;        /* fab_watch_set_link_probe_share */
	unsigned long base;  /* M: a steady counter sweep's MADs without PortInfo (0: none yet) */
	unsigned long cap;   /* reads a sweep at most; 0: no cap (share >= 1) */
};
void fab_watch_link_probe_cost(const struct fab_watch *w, struct fab_watch_probe_cost *out);
/* Reads, in the next run, both ends of every link of switch node_idx of
 * topo (a trap named it). 0 or -ENOMEM. */
int fab_watch_want_switch(struct fab_watch *w, const struct fab_snapshot *topo, uint32_t node_idx);
/* A run for the reads asked for (fab_watch_want_switch) only, not a
 * counter sweep: their PortInfo, then the PortCounters of the ports that
 * changed (samples into sweep, as fab_watch_sweep; a counter read that
 * fails is skipped). 0 or a negative errno (the transport). */
int fab_watch_react(struct fab_watch *w, const struct fab_snapshot *topo,
		    struct fab_snapshot *sweep, struct fab_watch_result *res);

/*
 * The SM's traps (docs/watch.md): watch takes the Reports the SA forwards
 * to this port (answering each with a ReportResp), through the open port
 * between and during runs.
 */
/* Takes the SA's Reports on this port. 0 or a negative errno with the
 * message set. */
int fab_watch_listen(struct fab_watch *w);
/* Under ibsim, whether the simulator's Report path is preloaded
 * (docs/watch.md): without it a simulated client hears no Report. */
bool fab_watch_sim_reports(void);
/* InformInfo Set to the SA at sm_lid: subscribe (or end the
 * subscription to) every trap, SM_Key sm_key. 0 accepted; -EREMOTEIO
 * refused (*status: the MAD status); -ETIMEDOUT no answer; other negative
 * errnos: the transport. The message is set on failure. */
int fab_watch_subscribe(struct fab_watch *w, uint16_t sm_lid, uint64_t sm_key, bool subscribe,
			unsigned *status);
/* The master SM's LID as this port knows it now (its PortInfo's
 * MasterSMLID: a new master writes it into every port). 0 or a negative
 * errno with the message set. */
int fab_watch_master_lid(struct fab_watch *w, uint16_t *out);
/* Waits up to wait_ms for Reports (returns early on the first). The
 * number of notices waiting, or a negative errno. */
int fab_watch_wait(struct fab_watch *w, int wait_ms);
/* Whether a Report can reach this port: it takes them, and outside the
 * simulator or through its Report path (under umad2sim otherwise ibsim
 * drops every Report, docs/watch.md). */
bool fab_watch_hears_reports(const struct fab_watch *w);
/* Moves the notices received (FAB_EVENT_NOTICE events, in arrival order)
 * to into's events. 0 or -ENOMEM. */
int fab_watch_take_notices(struct fab_watch *w, struct fab_snapshot *into);
/* Reports received (resends not counted) and dropped (not understood). */
void fab_watch_report_counts(const struct fab_watch *w, unsigned long *received,
			     unsigned long *dropped);
