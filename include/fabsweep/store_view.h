/* SPDX-License-Identifier: MIT */
/*
 * Part of a stored snapshot, read in a few milliseconds: the channel
 * adapters a caller picks and what surrounds them. `fabsweep ready` needs a
 * handful of hosts out of a sweep of thousands, within its 100 ms budget;
 * loading the whole snapshot (fab_store_load_scan) takes longer than that on
 * a 4,096-host fabric. store/view_io.c picks the rows; the one snapshot
 * loader (store/snapshot_load.c) reads them, as it reads whole snapshots.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_store;
struct fab_snapshot;

/* Picks a CA by its node GUID and (sanitized) description. */
typedef bool (*fab_store_view_want_fn)(uint64_t guid, const char *desc, void *ctx);

/*
 * Loads the view of scan scan_id (0: the latest, negative: that many
 * before) around the CAs that want() picks: those CAs with all their ports;
 * the nodes at the other end of their links with port 0 (a switch's LID and
 * CapabilityMask) and the ports cabled to the picked CAs only; the counter
 * samples of every port in the view; and the stored findings that name a
 * node of the view (as node or peer). Scan fields (id, times, status,
 * label, host, source) are set; subnet managers, scan errors and RoCE data
 * are not loaded. The view is indexed and its links built. One read
 * transaction. *out owned by the caller. Returns 0, -ENOENT (no such scan)
 * or another negative errno with fab_errmsg() set.
 */
int fab_store_load_view(struct fab_store *st, int64_t scan_id,
			fab_store_view_want_fn want, void *ctx,
			struct fab_snapshot **out);

/* A port by its node's GUID and its number. */
struct fab_store_port_key {
	uint64_t guid;
	uint8_t port;
};

/* What `ready` adds to the view of its hosts to follow their routes. */
struct fab_store_paths {
	/* the CAs by node GUID instead of want() (which reads every CA's
	 * description): after the first round, those it picked */
	const uint64_t *cas;
	size_t n_cas;
	/* switches loaded whole with their forwarding tables, without the
	 * nodes beyond their ports (a GUID that is no switch adds nothing) */
	const uint64_t *switches;
	size_t n_switches;
	/* false: a step of the walk (nodes, ports and tables; no counter
	 * samples, findings or P_Key tables); true: the view to judge, with
	 * the findings and P_Key tables of fab_store_load_view() and the
	 * counter samples of the CAs' part and of the ports in
	 * sampled[0..n_sampled) (the hops to probe) only */
	bool judge;
	const struct fab_store_port_key *sampled;
	size_t n_sampled;
};

/*
 * The view of fab_store_load_view() (the CAs want() picks and the ports
 * cabled to them) with the switches of paths whole: `ready` grows it along
 * the routes between its hosts (pipeline/ready.c), a few switches at a
 * time, never the whole scan. Returns as fab_store_load_view.
 */
int fab_store_load_paths_view(struct fab_store *st, int64_t scan_id,
			      fab_store_view_want_fn want, void *ctx,
			      const struct fab_store_paths *paths, struct fab_snapshot **out);

/*
 * The view of a route (`fabsweep route`): as fab_store_load_view, the CAs
 * want() picks (none when want is NULL: then no CA is read at all), plus
 * the nodes whose GUIDs are guids[0..n_guids) (the switches of the path so far), each whole with the ports at the other end
 * of its links; and the forwarding tables of the nodes loaded whole only
 * (snap->routing), no findings. The caller traces the path, and where it
 * meets a switch that is there without its table, asks again with that
 * switch's GUID added: a path of h switches costs h + 1 small loads, never
 * the whole scan. Returns as fab_store_load_view.
 */
int fab_store_load_route_view(struct fab_store *st, int64_t scan_id,
			      fab_store_view_want_fn want, void *ctx,
			      const uint64_t *guids, size_t n_guids,
			      struct fab_snapshot **out);

/*
 * The GUID of the node one of whose ports has LID lid (within its LMC
 * range) in scan scan_id (0: the latest, negative: that many before): 0 in
 * *guid when no port has it. `route` names a host by LID and reads the
 * route's view around that node. Returns 0, -ENOENT (no such scan) or
 * another negative errno with fab_errmsg() set.
 */
int fab_store_lid_node(struct fab_store *st, int64_t scan_id, unsigned lid, uint64_t *guid);
