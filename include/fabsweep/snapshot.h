/* SPDX-License-Identifier: MIT */
/*
 * The snapshot: everything one scan saw, in memory.
 *
 * scanner/ fills one, store/ writes and reads it, rules/ add findings to it,
 * reports/ render it. It is the contract between the modules: nothing
 * downstream of the scanner ever talks to a fabric.
 *
 * Layout: arrays of plain structs that refer to each other by index.
 * Ports of one node are contiguous in `ports` (node->port_first,
 * node->port_count) and ordered by port number, port 0 first when present.
 * Strings live in the snapshot's arena and are freed with it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/module.h"

#define FAB_NONE UINT32_MAX /* "no index" */

/* NodeDescription: 64 raw bytes on the wire; shown escaped (see fab_text_sanitize). */
#define FAB_DESC_RAW 64
#define FAB_DESC_CAP (FAB_DESC_RAW * 4 + 1)

enum fab_node_type {
	FAB_NODE_UNKNOWN = 0,
	FAB_NODE_CA = 1, /* values as in NodeInfo.NodeType */
	FAB_NODE_SWITCH = 2,
	FAB_NODE_ROUTER = 3,
	FAB_NODE__COUNT
};

enum fab_role {
	FAB_ROLE_UNKNOWN = 0,
	FAB_ROLE_HOST,
	FAB_ROLE_LEAF,
	FAB_ROLE_SPINE,
	FAB_ROLE_CORE,
	FAB_ROLE__COUNT
};

/* PortInfo.PortState */
enum fab_port_state {
	FAB_STATE_UNKNOWN = 0,
	FAB_STATE_DOWN = 1,
	FAB_STATE_INIT = 2,
	FAB_STATE_ARMED = 3,
	FAB_STATE_ACTIVE = 4,
	FAB_STATE__COUNT
};

/* PortInfo.PortPhysicalState */
enum fab_phys_state {
	FAB_PHYS_UNKNOWN = 0,
	FAB_PHYS_SLEEP = 1,
	FAB_PHYS_POLLING = 2,
	FAB_PHYS_DISABLED = 3,
	FAB_PHYS_TRAINING = 4,
	FAB_PHYS_LINKUP = 5,
	FAB_PHYS_ERROR_RECOVERY = 6,
	FAB_PHYS_PHYTEST = 7,
	FAB_PHYS__COUNT
};

/* Link widths: the PortInfo bitmask as is. */
enum {
	FAB_WIDTH_1X = 1,
	FAB_WIDTH_4X = 2,
	FAB_WIDTH_8X = 4,
	FAB_WIDTH_12X = 8,
	FAB_WIDTH_2X = 16,
};

/* Link speeds: one bit per generation, base and extended speeds merged. */
enum {
	FAB_SPEED_SDR = 1 << 0,
	FAB_SPEED_DDR = 1 << 1,
	FAB_SPEED_QDR = 1 << 2,
	FAB_SPEED_FDR10 = 1 << 3,
	FAB_SPEED_FDR = 1 << 4,
	FAB_SPEED_EDR = 1 << 5,
	FAB_SPEED_HDR = 1 << 6,
	FAB_SPEED_NDR = 1 << 7,
	FAB_SPEED_XDR = 1 << 8,
	FAB_SPEED__BITS = 9
};

enum fab_scan_status {
	FAB_SCAN_COMPLETE = 0,
	FAB_SCAN_PARTIAL,
	FAB_SCAN_FAILED,
	FAB_SCAN__COUNT
};

enum fab_severity {
	FAB_SEV_INFO = 0,
	FAB_SEV_WARNING,
	FAB_SEV_ERROR,
	FAB_SEV__COUNT
};

/* Node and port flags: what went wrong while looking at them. */
enum {
	FAB_F_SMP_FAILED = 1 << 0,   /* did not answer SMPs (NodeInfo/PortInfo) */
	FAB_F_PMA_FAILED = 1 << 1,   /* did not answer PerfMgt queries */
	FAB_F_NO_REMOTE = 1 << 2,    /* LinkUp but no remote end was discovered */
	FAB_F_SMINFO_FAILED = 1 << 3, /* advertises IsSM but SMInfo failed */
	FAB_F_DUP_GUID = 1 << 4,     /* GUID seen on more than one device */
	/* The LID is unknown (lid 0 is no value; stored as NULL): the port's
	 * PortInfo, or for a switch port 0's, was not read. */
	FAB_F_LID_UNKNOWN = 1 << 5,
};

/*
 * Port counters, named as infiniband-diags names them. The order is part of
 * the public SQL interface (columns of port_counters): append, never reorder.
 */
enum fab_counter {
	FAB_CTR_SYMBOL_ERRORS = 0,
	FAB_CTR_LINK_ERROR_RECOVERY,
	FAB_CTR_LINK_DOWNED,
	FAB_CTR_RCV_ERRORS,
	FAB_CTR_RCV_REMOTE_PHYS_ERRORS,
	FAB_CTR_RCV_SWITCH_RELAY_ERRORS,
	FAB_CTR_XMIT_DISCARDS,
	FAB_CTR_XMIT_CONSTRAINT_ERRORS,
	FAB_CTR_RCV_CONSTRAINT_ERRORS,
	FAB_CTR_LOCAL_LINK_INTEGRITY_ERRORS,
	FAB_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	FAB_CTR_VL15_DROPPED,
	FAB_CTR_XMIT_WAIT,
	FAB_CTR_XMIT_DATA,
	FAB_CTR_RCV_DATA,
	FAB_CTR_XMIT_PKTS,
	FAB_CTR_RCV_PKTS,
	FAB_CTR_UNICAST_XMIT_PKTS,
	FAB_CTR_UNICAST_RCV_PKTS,
	FAB_CTR_MULTICAST_XMIT_PKTS,
	FAB_CTR_MULTICAST_RCV_PKTS,
	/* PortRcvErrorDetails (PMA 0x0015): what PortRcvErrors counted,
	 * read only for ports whose PortRcvErrors is non-zero or moved. */
	FAB_CTR_LOCAL_PHYSICAL_ERRORS,
	FAB_CTR_MALFORMED_PACKET_ERRORS,
	FAB_CTR_BUFFER_OVERRUN_ERRORS,
	FAB_CTR_DLID_MAPPING_ERRORS,
	FAB_CTR_VL_MAPPING_ERRORS,
	FAB_CTR_LOOPING_ERRORS,
	/* PortXmitDiscardDetails (0x0016): what PortXmitDiscards counted. */
	FAB_CTR_INACTIVE_DISCARDS,
	FAB_CTR_NEIGHBOR_MTU_DISCARDS,
	FAB_CTR_SW_LIFETIME_LIMIT_DISCARDS,
	FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS,
	FAB_CTR__COUNT
};

/* Optional PMA attributes a sample may lack because the port's PMA does
 * not support them (fab_counter_sample.unsupported): never read as 0s. */
enum {
	FAB_PMA_RCV_ERROR_DETAILS = 1 << 0,    /* PortRcvErrorDetails, 0x0015 */
	FAB_PMA_XMIT_DISCARD_DETAILS = 1 << 1, /* PortXmitDiscardDetails, 0x0016 */
	FAB_PMA_VL_XMIT_WAIT = 1 << 2,         /* PortVLXmitWaitCounters, 0x001C */
	FAB_PMA__BITS = 3
};

#define FAB_N_VLS 16 /* virtual lanes: PortVLXmitWaitCounters has one per VL */

struct fab_node {
	uint64_t guid;
	uint64_t sys_guid;
	uint8_t type;  /* enum fab_node_type */
	uint8_t role;  /* enum fab_role */
	uint8_t num_ports;
	uint8_t flags; /* FAB_F_* */
	uint32_t vendor_id;
	uint32_t device_id;
	uint32_t revision;
	uint16_t lid;  /* switch: port 0 LID; CA: LID of its first active port */
	int16_t hops;  /* from the scanning port; -1 unknown */
	uint32_t port_first; /* index of its first port in snapshot->ports */
	uint32_t port_count;
	char desc[FAB_DESC_CAP]; /* escaped, valid UTF-8, no control bytes */
	uint8_t desc_raw[FAB_DESC_RAW]; /* as received */
	uint8_t desc_raw_len;
	/* How its name shows the GUID (core/nodename.c, fab_node_name): 0 its
	 * description is its own; FAB_NAME_HEX_SHORT or FAB_NAME_HEX_FULL
	 * hex digits when another node of the scan has that description too.
	 * Set by fab_snapshot_name_nodes() (the store's loader, the rule
	 * engine, the scanner), or for a partial view by the loader from the
	 * whole scan. */
	uint8_t name_hex;
	/* Firmware "31.2012.1068" and its PSID "MT_0000000579" where the
	 * source has them (an ibdiagnet2 import's NODES_INFO); arena, NULL
	 * when unknown. */
	const char *fw_version, *psid;
};

struct fab_port {
	uint32_t node_idx;
	uint8_t port_num; /* 0 is a switch's management port, never a link end */
	uint8_t flags;    /* FAB_F_* */
	uint8_t state;    /* enum fab_port_state */
	uint8_t phys_state; /* enum fab_phys_state */
	uint64_t guid;
	uint16_t lid;
	uint8_t lmc;
	uint16_t sm_lid;
	uint8_t width_active, width_enabled, width_supported; /* FAB_WIDTH_* masks */
	uint16_t speed_active, speed_enabled, speed_supported; /* FAB_SPEED_* masks */
	uint8_t mtu_active, mtu_cap; /* IB MTU enum: 1=256 .. 5=4096; 0 unknown */
	/* PortInfo's virtual lanes: OperationalVLs and VLCap as encoded (1
	 * VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14; 0 unknown: core/qos.h
	 * fab_vls_count), VLHighLimit, and the entries of its
	 * VLArbitrationTables (VLArbitrationHighCap, LowCap). */
	uint8_t op_vls, vl_cap, vl_high_limit, vlarb_high_cap, vlarb_low_cap;
	uint32_t cap_mask;
	uint64_t remote_guid; /* 0: none */
	uint8_t remote_port;
	uint32_t remote_idx; /* index in ports, FAB_NONE when unknown */
};

struct fab_link {
	uint32_t a, b; /* port indices; a's (guid, port) sorts before b's */
};

/* One sample of one port's counters. */
struct fab_counter_sample {
	uint32_t port_idx;
	uint8_t sample;   /* 0 first, 1 second (scan --interval) */
	bool extended;    /* values from PortCountersExtended where it has them */
	int64_t sampled_at_ms; /* Unix epoch, milliseconds */
	uint32_t valid;   /* bit n set: counter n present */
	uint8_t unsupported; /* FAB_PMA_*: asked, and the PMA does not have it */
	uint16_t vl_valid;   /* bit n: vl_xmit_wait[n] read (PortVLXmitWaitCounters) */
	uint64_t v[FAB_CTR__COUNT];
	/* PortVLXmitWait per VL (16-bit counters), read only for ports whose
	 * PortXmitWait grew or that discarded packets for their lifetime */
	uint16_t vl_xmit_wait[FAB_N_VLS];
};

struct fab_sm {
	uint64_t port_guid;
	uint16_t lid;
	uint8_t state; /* SMInfo: 0 notactive 1 discovering 2 standby 3 master */
	uint8_t priority;
	uint32_t act_count;
	uint32_t port_idx; /* FAB_NONE when not in the topology */
	bool failed;       /* advertised IsSM, SMInfo did not answer */
};

/* Something the scan could not see. */
struct fab_scan_error {
	uint64_t node_guid; /* 0: not tied to a node */
	int16_t port_num;   /* -1: the whole node */
	const char *what;   /* "smp", "pma", "sminfo", "hole", "scan" ... (arena) */
	const char *message; /* arena */
};

struct fab_finding {
	const char *rule_id; /* arena */
	uint8_t severity;    /* enum fab_severity */
	const char *node, *port, *peer_node, *peer_port; /* arena, may be NULL */
	const char *subject;  /* arena */
	const char *message;  /* arena */
	const char *evidence; /* arena, "key=value; ..." or NULL */
	/* Watch's hold (rules/hold.c, docs/watch.md): a finding raised at
	 * held_since_ms stays until held_until_ms (INT64_MAX: until it clears).
	 * held: this one is shown from an earlier raise; the store keeps it as
	 * one finding_holds row for the whole hold, not a row per scan. All 0
	 * for findings that are not held. */
	int64_t held_since_ms, held_until_ms;
	const char *held_evidence; /* arena: the evidence while it is held */
	bool held;
};

/*
 * What watch heard or saw between its full scans (docs/watch.md, "Link
 * events"): a notice the subnet manager forwarded (a Report of a trap), or
 * a port whose state a read found changed, with what made watch read it.
 * A sweep stores them (the events relation, each with its arrival time);
 * port.down and sm.security_trap judge them.
 */
enum fab_event_kind {
	FAB_EVENT_NOTICE = 0, /* a Report from the SM: trap, lid, node_guid, detail */
	FAB_EVENT_PORT,       /* a port read: node_guid, port_num, state, phys_state, cause */
	FAB_EVENT__COUNT
};
enum fab_event_cause {
	FAB_CAUSE_NONE = 0,
	FAB_CAUSE_TRAP,        /* a trap named its switch (128) */
	FAB_CAUSE_PROBE,       /* the link probe's slice */
	FAB_CAUSE_LINK_DOWNED, /* its switch's LinkDownedCounter sum moved */
	FAB_CAUSE_RECHECK,     /* a port known down, read again */
	FAB_CAUSE__COUNT
};
struct fab_event {
	int64_t at_ms;      /* arrival (notice) or read (port), Unix epoch ms */
	uint8_t kind;       /* enum fab_event_kind */
	uint8_t cause;      /* port: enum fab_event_cause */
	uint16_t trap;      /* notice: the trap number */
	uint16_t lid;       /* notice: IssuerLID */
	uint64_t node_guid; /* port: its node; notice: the node it names (0: unknown) */
	uint8_t port_num;   /* port */
	uint8_t state, phys_state; /* port: as read (enum fab_port_state, fab_phys_state) */
	uint8_t was;        /* port: the state known before (enum fab_port_state) */
	const char *detail; /* arena: notice: what it says, one line; may be NULL */
};

/* The bit error ratios of an InfiniBand port as the device measured them
 * (an ibdiagnet2 run's PHY_DB16: docs/imports.md); NAN unknown. */
struct fab_port_ber {
	uint32_t port_idx;
	double raw, effective, symbol; /* before FEC, after FEC, symbol errors */
};

struct fab_arena;
struct fab_roce;
struct fab_routing;
struct fab_pkeys;
struct fab_qos;
struct fab_mcast;

struct fab_snapshot {
	int64_t scan_id; /* 0 until stored */
	/* A watch sweep (docs/watch.md): the stored full scan whose nodes, ports
	 * and links it shares; 0 for a scan with a topology of its own. */
	int64_t topology_scan_id;
	int64_t started_at_ms, finished_at_ms;
	/* When the rules last ran on it (fab_rules_run; the checks relation),
	 * 0 when never: then "no findings" means "not judged", not "healthy". */
	int64_t checked_at_ms;
	uint8_t status; /* enum fab_scan_status */
	const char *label;  /* arena, may be NULL */
	const char *host;   /* arena */
	const char *source; /* arena: "ib:mlx5_0/1", "cache:FILE", ... */
	uint32_t sm_act_start, sm_act_end; /* master's ActCount at start/end */

	struct fab_node *nodes;
	size_t n_nodes, cap_nodes;
	struct fab_port *ports;
	size_t n_ports, cap_ports;
	struct fab_link *links;
	size_t n_links, cap_links;
	struct fab_counter_sample *samples;
	size_t n_samples, cap_samples;
	struct fab_sm *sms;
	size_t n_sms, cap_sms;
	struct fab_scan_error *errors;
	size_t n_errors, cap_errors;
	struct fab_finding *findings;
	size_t n_findings, cap_findings;
	struct fab_event *events; /* watch's: in arrival order */
	size_t n_events, cap_events;

	struct fab_arena *arena;

	/* RoCE / Ethernet part (include/fabsweep/roce.h): owned, may be NULL. */
	struct fab_roce *roce;

	/* Forwarding tables (include/fabsweep/routing.h): owned; NULL when
	 * the scan did not read them. */
	struct fab_routing *routing;

	/* P_Key tables and enforcement bits (include/fabsweep/pkey.h): owned;
	 * NULL when the scan did not read them. */
	struct fab_pkeys *pkeys;

	/* VLArbitration tables and why the VL tables were read
	 * (include/fabsweep/qos.h): owned; NULL when the scan did not read
	 * them (no QoS policy seen). */
	struct fab_qos *qos;
	/* Multicast groups and forwarding tables (include/fabsweep/mcast.h):
	 * owned; NULL when the scan did not read them. */
	struct fab_mcast *mcast;

	/* The physical layer of InfiniBand ports (an ibdiagnet2 import): the
	 * cables and modules by port (include/fabsweep/module.h; a RoCE host's
	 * are in roce->modules), and the ports' bit error ratios. Owned. */
	struct fab_modules ib_modules;
	struct fab_port_ber *ber;
	size_t n_ber, cap_ber;

	/* Private: lookup indexes built by fab_snapshot_index(). */
	uint32_t *guid_order;     /* node indices sorted by GUID */
	uint32_t *port_sample[2]; /* per port: sample index or FAB_NONE */
};

/* Returns a new empty snapshot (owned by the caller) or NULL on ENOMEM. */
struct fab_snapshot *fab_snapshot_new(void);
/* Grows an array of elem-sized elements by one zeroed element (doubling its
 * capacity when full); returns it, or NULL on ENOMEM or when *n reached the
 * uint32_t indices' limit. For the snapshot's arrays and its builders'. */
void *fab_array_grow(void **arr, size_t *n, size_t *cap, size_t elem);
/* Room for more elements after the n of such an array (its capacity
 * doubled as often as needed), the room prefaulted in one call when it is
 * 1 MiB or more (fresh memory faulted a page at a time costs most of a
 * large load on a virtual machine). 0 or -ENOMEM. */
int fab_array_reserve(void **arr, size_t n, size_t *cap, size_t elem, size_t more);
/* The first slot for key in an open-addressing table of cap slots (a power
 * of two): the key's bits mixed (MurmurHash3's finalizer), then masked. */
size_t fab_hash_slot(uint64_t key, size_t cap);
/* Frees the snapshot and everything in its arena. Accepts NULL. */
void fab_snapshot_free(struct fab_snapshot *snap);

/*
 * Appenders: return a pointer to a zeroed new element (valid until the next
 * append to the same array) or NULL on ENOMEM.
 */
struct fab_node *fab_snapshot_add_node(struct fab_snapshot *snap);
struct fab_port *fab_snapshot_add_port(struct fab_snapshot *snap);
struct fab_link *fab_snapshot_add_link(struct fab_snapshot *snap);
struct fab_counter_sample *fab_snapshot_add_sample(struct fab_snapshot *snap);
/* Makes room for at least that many nodes, ports and samples in all (a
 * loader that knows the counts fills each array once instead of regrowing
 * it, and large arrays are prefaulted in one go). 0 or -ENOMEM. */
int fab_snapshot_reserve(struct fab_snapshot *snap, size_t nodes, size_t ports,
			 size_t samples);
struct fab_sm *fab_snapshot_add_sm(struct fab_snapshot *snap);
/* Records what the scan missed. what and the message are copied. */
int fab_snapshot_add_error(struct fab_snapshot *snap, uint64_t node_guid,
			   int port_num, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Copies every string of f into the arena. */
int fab_snapshot_add_finding(struct fab_snapshot *snap,
			     const struct fab_finding *f);
/* Appends a copy of e (its detail copied into the arena). 0 or -ENOMEM. */
int fab_snapshot_add_event(struct fab_snapshot *snap, const struct fab_event *e);
/* Drops all findings (before a rule run replaces them). */
void fab_snapshot_clear_findings(struct fab_snapshot *snap);

/* Copies a string (len bytes, or up to NUL when len is SIZE_MAX) into the arena. */
const char *fab_snapshot_strdup(struct fab_snapshot *snap, const char *s,
				size_t len);
const char *fab_snapshot_printf(struct fab_snapshot *snap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Sets node->desc and node->desc_raw from len raw bytes (stops at the
 * first NUL, at most FAB_DESC_RAW bytes).
 */
void fab_node_set_desc(struct fab_node *node, const uint8_t *raw, size_t len);

/*
 * Rebuilds the links array from ports' remote_idx (each link once, sorted by
 * a's GUID and port) after ports and their remote_idx are final.
 */
int fab_snapshot_build_links(struct fab_snapshot *snap);

/* Ports of a node; NULL when it has none. */
static inline struct fab_port *fab_node_ports(const struct fab_snapshot *snap,
					      const struct fab_node *node)
{
	return node->port_count ? &snap->ports[node->port_first] : NULL;
}

/*
 * Whether the node is a channel adapter inside a switch (core/switch_ca.c),
 * not a host: its description ends in "Aggregation Node" (the SHARP
 * aggregation node of NVIDIA Quantum switches), or every cabled port of it
 * leads to a switch with its own SystemImageGUID (a CA in that switch's
 * chassis). Roles and rules ask this one function.
 */
bool fab_node_in_switch(const struct fab_snapshot *snap, uint32_t node_idx);

/* The port with this number on a node, or NULL. */
struct fab_port *fab_snapshot_port(const struct fab_snapshot *snap,
				   uint32_t node_idx, unsigned port_num);

/* Node index by GUID (first match), FAB_NONE if absent. O(log n) after
 * fab_snapshot_index(); O(n) before. */
uint32_t fab_snapshot_find_node(const struct fab_snapshot *snap, uint64_t guid);
/* Builds the lookup indexes (GUID -> node, port -> sample). Call again
 * after adding nodes or samples. */
int fab_snapshot_index(struct fab_snapshot *snap);

/* Puts c as its port's newest value (a watch sweep's, docs/watch.md) into an
 * indexed snapshot, which stays indexed: it replaces the port's latest
 * sample (keeping that sample's number; the counters c does not have keep
 * their value, so a sweep that reads the error counters leaves the data
 * counters as the full scan read them) or, when the port has none, is
 * added as sample 0. 0, -EINVAL (not indexed, no such port) or -ENOMEM. */
int fab_snapshot_put_sample(struct fab_snapshot *s, const struct fab_counter_sample *c);

/* Latest sample of a port (sample number `which`), or NULL. */
const struct fab_counter_sample *
fab_snapshot_sample(const struct fab_snapshot *snap, uint32_t port_idx,
		    unsigned which);
