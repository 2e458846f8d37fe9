/* SPDX-License-Identifier: MIT */
/*
 * Private to scanner/: PortInfo decoding, the working topology that sits
 * between libibnetdisc and the snapshot, and the PMA/SMInfo collectors.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/nodemap.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "scanner/madwin.h"

/* PortInfo.CapabilityMask bits (host order, as mad_get_field returns). */
#define FAB_PI_CAP_IS_SM 0x00000002u
#define FAB_PI_CAP_HAS_EXT_SPEEDS 0x00004000u

/* PerfMgt ClassPortInfo.CapabilityMask bits. */
#define FAB_PM_CAP_ALL_PORT_SELECT 0x0100u
#define FAB_PM_CAP_EXT_WIDTH 0x0200u        /* IsExtendedWidthSupported */
#define FAB_PM_CAP_EXT_WIDTH_NOIETF 0x0400u /* ... without the IETF counters */
#define FAB_PM_CAP_XMIT_WAIT 0x1000u        /* PortCounters.PortXmitWait valid */
/* CapabilityMask2 (the 27-bit field). */
#define FAB_PM_CAP2_ADDL_PORT_CTRS_EXT 0x0002u /* IsAddlPortCtrsExtSup */

/*
 * Decodes a raw 64-byte PortInfo into p (everything but node_idx,
 * port_num, flags, guid and the remote fields). cap_info is the PortInfo
 * whose CapabilityMask says whether extended speeds are valid: the port
 * itself for CAs, port 0 for switches; NULL when unknown (extended speeds
 * are then ignored). mlnx_ext is the Mellanox ExtendedPortInfo (FDR10), or
 * NULL. A Down port keeps only its state and physical state.
 */
void fab_scan_decode_portinfo(struct fab_port *p, const uint8_t *info,
			      const uint8_t *cap_info, const uint8_t *mlnx_ext);

/* Merges the three PortInfo speed encodings into a FAB_SPEED_* mask. */
unsigned fab_scan_speed_mask(unsigned base, unsigned fdr10, unsigned ext);

/*
 * Working topology: what libibnetdisc found plus what the repair pass
 * adds, indexed by node and port number, before it becomes a snapshot.
 */
struct wt_port {
	uint8_t info[64];  /* raw PortInfo, valid when have_info */
	uint8_t fdr10_sup, fdr10_en, fdr10_act; /* Mellanox ExtPortInfo bit 0 */
	bool exists;       /* seen (a switch has all its ports) */
	bool have_info;
	bool probed;       /* the repair pass asked for the node behind it */
	uint64_t dup_of;   /* the node behind answered with this GUID, seen elsewhere */
	uint64_t guid;
	uint32_t rnode;    /* remote node index, FAB_NONE when unknown */
	uint8_t rport;
};

struct wt_node {
	uint64_t guid;
	uint8_t node_info[64];
	uint8_t desc[64];
	uint8_t type, num_ports;
	bool have_desc;
	bool path_valid;
	bool dup_guid;         /* another device answered with this GUID */ /* false for a cache file */
	uint8_t hops;          /* directed-route hops from the scanning port */
	uint8_t path[64];      /* directed route: ports at [1..hops] */
	uint64_t entry_guid;   /* GUID of the port our SMPs enter by, 0: unknown */
	uint32_t port_first;   /* num_ports + 1 slots in wt.ports */
};

struct wt {
	struct wt_node *nodes;
	size_t n_nodes, cap_nodes;
	struct wt_port *ports;
	size_t n_ports, cap_ports;
	uint32_t *hash; /* open addressing GUID -> node index + 1 */
	size_t hash_cap;
};

static inline struct wt_port *wt_port(const struct wt *w, uint32_t node,
				      unsigned port)
{
	return &w->ports[w->nodes[node].port_first + port];
}

/* "3, 7-9, 12" of the blocks marked in missing[0..n) (", ..." when cut at
 * cap): the forwarding and P_Key tables' blocks not read (routes.c). */
void fab_scan_block_list(const uint8_t *missing, uint32_t n, char *buf, size_t cap);

/* The LID a port's PMA answers at: a switch's (port 0's) for every port of
 * it, else the port's own. For the scan's counters, the probe and watch. */
static inline uint16_t fab_scan_port_dlid(const struct fab_snapshot *s,
					  const struct fab_port *p)
{
	const struct fab_node *n = &s->nodes[p->node_idx];

	return n->type == FAB_NODE_SWITCH ? n->lid : p->lid;
}

#define WT_MAX_HOPS 63 /* directed-route hops (the path has 64 bytes) */

void wt_free(struct wt *w);
/* Adds a node (num_ports + 1 port slots); returns its index or FAB_NONE. */
uint32_t wt_add_node(struct wt *w, uint64_t guid, unsigned type,
		     unsigned num_ports);
/* The same; with dup, also when the GUID is known already (another device
 * that answers with it: wt_find still returns the first). */
uint32_t wt_add_node_dup(struct wt *w, uint64_t guid, unsigned type,
			 unsigned num_ports, bool dup);
uint32_t wt_find(const struct wt *w, uint64_t guid);
/* A field (enum MAD_FIELDS) of a raw PortInfo. */
unsigned wt_pi_get(const uint8_t *info, int field);

/* libibnetdisc -> working topology (scanner/topo.c); repair and native
 * discovery (scanner/topo_repair.c). */
struct ibnd_fabric;
int wt_from_ibnd(struct wt *w, struct ibnd_fabric *f, bool paths_valid);
/* Re-asks, with retries, what discovery missed: directed-route SMPs only. */
int wt_repair(struct wt *w, struct fab_madwin *mw, const struct fab_scan_opts *o,
	      unsigned long *out_mads);
/* Discovery of our own, from the local node, with the same engine. */
int wt_discover(struct wt *w, struct fab_madwin *mw, const struct fab_scan_opts *o);
/* Whether two devices answered with one GUID (a node has dup_guid). */
bool wt_has_dup(const struct wt *w);
/* Working topology -> snapshot nodes, ports, links, holes, SMP errors. */
int wt_to_snapshot(const struct wt *w, struct fab_snapshot *snap);

/* PMA counters (scanner/counters.c) and SMInfo (scanner/sminfo.c). */
/* A PortCounters answer (the 32-bit attribute, MAD data d) into smp: the
 * twelve error counters when errors, PortXmitWait when xmit_wait, the four
 * data and packet counters when data, each marked valid. The one table of
 * PortCounters fields, for the scan and the probe. */
/* PortRcvErrorDetails, PortXmitDiscardDetails or PortVLXmitWaitCounters
 * (attr: its attribute id) answer data -> the sample's detail counters or
 * per-VL waits (scanner/counters.c; the watch's sweeps too). */
void fab_scan_decode_details(struct fab_counter_sample *smp, const uint8_t *d, unsigned attr);
void fab_scan_decode_pc(struct fab_counter_sample *smp, const uint8_t *d, bool errors,
			bool xmit_wait, bool data);
int fab_scan_counters(struct fab_snapshot *snap, struct fab_madwin *mw,
		      const struct fab_scan_opts *o);
/* Queries SMInfo at lid with M_Key mkey; returns 0 and fills *out, or a
 * negative errno. */
int fab_scan_sminfo_one(struct fab_madwin *mw, uint16_t lid, uint64_t mkey,
			struct fab_sm *out);
int fab_scan_sms(struct fab_snapshot *snap, struct fab_madwin *mw,
		 const struct fab_scan_opts *o);

/* Forwarding tables (scanner/routes.c): SwitchInfo and the linear
 * forwarding table of every switch into snap->routing, directed route along
 * w's paths (w may be NULL: LID-routed). 0 or a negative errno (only when
 * the engine or memory failed; what did not answer is in scan_errors). */
int fab_scan_routes(struct fab_snapshot *snap, const struct wt *w, struct fab_madwin *mw,
		    const struct fab_scan_opts *o);

/* A switch's node in w whose directed route is known, FAB_NONE (w NULL, or
 * no valid path: ask it LID-routed). */
uint32_t fab_scan_switch_path(const struct wt *w, const struct fab_node *n);
/* A Get to switch n: directed route along w's node wn, or LID-routed to lid
 * when wn is FAB_NONE; its M_Key from o. The attribute is the caller's. */
void fab_scan_switch_req(const struct wt *w, const struct fab_scan_opts *o, const struct fab_node *n,
			 uint32_t wn, uint16_t lid, struct fab_mad_req *req);

/* SL2VL tables (scanner/sl2vl.c): after fab_scan_routes, the
 * SLtoVLMappingTables the per-lane credit-loop analysis needs
 * (fab_sl2vl_wanted: none when the one-lane graph has no cycle) into
 * snap->routing, one MAD per (switch, in-port, out-port). 0 or a negative
 * errno (engine or memory only; what did not answer is in scan_errors). */
int fab_scan_sl2vl(struct fab_snapshot *snap, const struct wt *w, struct fab_madwin *mw,
		   const struct fab_scan_opts *o);

/* VL and QoS tables (scanner/qos.c): two sampled SL2VL tables (the
 * scanning CA port's, its switch's); where one is not the default, or with
 * o->all_qos, every SL2VL and VLArbitration table of the cabled ports into
 * snap->routing->sl2vl and snap->qos (none otherwise). 0 or a negative
 * errno (engine or memory only; what did not answer is in scan_errors). */
int fab_scan_qos(struct fab_snapshot *snap, const struct wt *w, struct fab_madwin *mw,
		 const struct fab_scan_opts *o);

/* Partitions (scanner/pkeys.c): the P_Key table of every cabled CA port and
 * switch external port, and the switch ports' PortInfo enforcement bits,
 * into snap->pkeys, directed route along w's paths; after
 * fab_scan_routes when the scan reads the tables (their SwitchInfo gives
 * the switches' sizes). 0 or a negative errno (engine or memory only). */
int fab_scan_pkeys(struct fab_snapshot *snap, const struct wt *w, struct fab_madwin *mw,
		   const struct fab_scan_opts *o);

/* Multicast (scanner/mcast.c, mcast_sa.c): the groups and members from the
 * SA at sa_lid (0: no master SM, nothing read; sa_win: its queries), then every switch's multicast
 * forwarding table for the MLIDs in use (smp_win, directed route along w's
 * paths), into snap->mcast; after fab_scan_routes when the scan reads the
 * tables (their SwitchInfo is used). 0 or a negative errno (engine, memory,
 * a bad FABSWEEP_SA_KEY); what did not answer is in scan_errors. */
int fab_scan_mcast(struct fab_snapshot *snap, const struct wt *w, struct fab_madwin *smp_win,
		   struct fab_madwin *sa_win, const struct fab_scan_opts *o, uint16_t sa_lid);
/* The SA part alone: MCMemberRecords of the SA at lid, SM_Key key for the
 * trusted queries, top_hint the highest MulticastFDBTop a switch gives (for
 * the MLID probe when answers arrive cut). Leaves snap->mcast NULL when the
 * SA does not answer. */
int fab_scan_mcast_sa(struct fab_snapshot *snap, struct fab_madwin *mw, uint16_t lid, uint64_t key,
		      unsigned top_hint);

/*
 * A FIFO of packed 64-bit jobs (the collectors' work lists): amortised
 * O(1), memory proportional to what is queued.
 */
struct fab_jobq {
	uint64_t *v;
	size_t head, n, cap;
};
int fab_jobq_push(struct fab_jobq *q, uint64_t job);
bool fab_jobq_pop(struct fab_jobq *q, uint64_t *out);
void fab_jobq_free(struct fab_jobq *q);

/* A local port opened for LID-routed MADs with a window over it
 * (scanner/probe.c): the probe, the forensic pass and watch sweeps. */
struct fab_probe_opts;
struct fab_umad;
struct fab_mport {
	struct fab_umad *um;
	struct fab_madwin *mw;
	char ca[FAB_UMAD_CA_NAME_LEN];
	int port;
	double open_ms;
};
/* Opens o->ca/o->port, else the port src_hint names ("ib:CA/PORT", a
 * snapshot's source; may be NULL), else the first active InfiniBand port;
 * o's window, timeout and retries (defaults when unset). 0 or a negative
 * errno with the message set. */
int fab_mport_open(const struct fab_probe_opts *o, const char *src_hint,
		   struct fab_mport *m);
void fab_mport_close(struct fab_mport *m); /* accepts a zeroed one */

/* "name" (quoted: fab_node_name's, its description with GUID digits when
 * shared) or, without a description, the GUID: names a node in scan_errors
 * messages. buf needs FAB_SCAN_LABEL_CAP bytes (FAB_DESC_CAP + 8, what older
 * callers give, holds all but the longest shared descriptions). */
#define FAB_SCAN_LABEL_CAP (FAB_NODE_NAME_CAP + 2)

/* How SMPs about port p reach it (pkeys.c): a switch, or a CA discovery
 * entered by that port, by discovery's path; another CA port by
 * discovery's path to the switch it is cabled to and that switch's port (a
 * CA answers for the port an SMP arrives at); else LID-routed. Sets req's method (Get), class,
 * route and M_Key; -1 when there is no way (no path, no LID). */
int fab_scan_port_route(const struct fab_snapshot *s, const struct wt *w,
			const struct fab_scan_opts *o, const struct fab_port *p, struct fab_mad_req *req);
const char *fab_scan_node_label(const struct fab_node *n, char *buf, size_t len);

/* Progress helper: calls o->progress when set. */
void fab_scan_progress(const struct fab_scan_opts *o, const char *phase,
		       unsigned long done, unsigned long total);
