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

/* Ports of the topology known to be down (port.down): each sweep reads
 * their PortInfo at their node's LID, and one that is Active again is a
 * topology change (a full scan finds its link). ports is copied. 0 or
 * -ENOMEM. */
int fab_watch_set_down(struct fab_watch *w, const uint32_t *ports, size_t n);
