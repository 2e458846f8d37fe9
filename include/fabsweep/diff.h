/* SPDX-License-Identifier: MIT */
/*
 * What changed between two snapshots: a pure function from (old, new) to a
 * list of change records, sorted by kind, then by GUID and port. Rendering
 * (text, XML) is the caller's business; `fabsweep diff` does both.
 *
 * Nodes are matched by GUID, ports by (node GUID, port number), links by
 * their two ends, subnet managers by port GUID, multicast groups by MGID
 * (core/diff_mcast.c). Partition changes are
 * sorted by partition and change (old, new), then by port, so that a
 * renderer can name the ports of one change together. Devices that share a GUID
 * are a fault reported elsewhere: only the first of them takes part.
 * Cost: O(n log n) in the size of the snapshots.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_snapshot;

enum fab_change_kind {
	FAB_CHG_NODE_ADDED = 0,
	FAB_CHG_NODE_REMOVED,
	FAB_CHG_NODE_DESC,      /* description: old_text -> new_text */
	FAB_CHG_LINK_ADDED,     /* subject and peer: the two ends (new) */
	FAB_CHG_LINK_REMOVED,   /* subject and peer: the two ends (old) */
	FAB_CHG_LINK_WIDTH,     /* link in both: width bit old -> new */
	FAB_CHG_LINK_SPEED,     /* link in both: speed bit old -> new */
	FAB_CHG_LID,            /* switch (port 0) or CA port: LID old -> new */
	FAB_CHG_PORT_STATE,     /* state (and old_phys/new_phys) old -> new */
	FAB_CHG_SM_MASTER,      /* master moved: port GUID old -> new, 0 = none */
	FAB_CHG_SM_APPEARED,    /* an SM port only in new */
	FAB_CHG_SM_VANISHED,    /* an SM port only in old */
	FAB_CHG_SM_STATE,       /* SMInfo state old -> new */
	FAB_CHG_SM_PRIORITY,    /* SMInfo priority old -> new */
	FAB_CHG_COUNTER_INCREASE, /* error counter grew: old -> new (increase) */
	FAB_CHG_COUNTER_RESET,  /* error counter went down: cleared in between;
				 * increase: the new value, counted since */
	FAB_CHG_ROUTES,         /* a switch's forwarding table changed (both scans
				 * have it): old_value LIDs compared, new_value
				 * LIDs whose port moved (blocks not read skipped) */
	FAB_CHG_PARTITION,      /* a port's membership in one partition (the
				 * change's partition) moved: old -> new, enum
				 * fab_pkey_member (0: not a member; joined, left,
				 * full <-> limited); both scans read its table whole */
	FAB_CHG_PKEY_ENFORCEMENT, /* a switch port's enforcement bits
				   * (FAB_PKEY_ENF_*, pkey.h): old -> new */
	FAB_CHG_OP_VLS,         /* an up port's OperationalVLs code (qos.h): old -> new */
	FAB_CHG_SL2VL,          /* the SL2VL tables of packets leaving by a port
				 * (both scans read them): old_value tables
				 * compared, new_value tables that changed */
	FAB_CHG_VLARB,          /* a port's VLArbitration tables changed (both
				 * scans read them): the data VLs they weight,
				 * a bit each, old -> new */
	FAB_CHG_MODULE,         /* the module or cable of a port changed (another
				 * serial number, vendor or part number), or one
				 * was plugged or pulled: old_text -> new_text,
				 * "VENDOR PN SN" or NULL (none; only when both
				 * snapshots have modules of that fabric).
				 * Ethernet ports: subject.system and .ifname */
	/* Multicast (both scans read it; docs/multicast.md): a group by MGID
	 * (mgid, mlid: the new scan's, the old one's when removed). */
	FAB_CHG_MCAST_ADDED,      /* a group only in new: new_value its members */
	FAB_CHG_MCAST_REMOVED,    /* a group only in old: old_value its members */
	FAB_CHG_MCAST_TREE,       /* a group in both whose tree moved: old_value,
				   * new_value the switches in its tree (entries
				   * that name a port), switches_changed those whose
				   * entry differs (read in both); old_mlid the old
				   * scan's MLID */
	FAB_CHG__COUNT
};

/* One end of what a change is about. Strings are borrowed from a snapshot. */
struct fab_change_end {
	const char *system, *ifname; /* an Ethernet port (guid 0); NULL for InfiniBand */
	uint64_t guid;    /* node GUID; 0: none (e.g. no master) */
	uint8_t port;     /* port number; 0: the node as a whole or port 0 */
	uint8_t type;     /* enum fab_node_type */
	const char *desc; /* sanitized NodeDescription; "" when unknown */
	uint8_t name_hex; /* its name's GUID digits in its snapshot (fab_name_format) */
};

struct fab_change {
	uint8_t kind;                 /* enum fab_change_kind */
	struct fab_change_end subject;
	struct fab_change_end peer;   /* links: the other end; ports: the
				       * remote end when known; SM_MASTER: the
				       * old master's node */
	uint64_t old_value, new_value; /* per kind, see the enum */
	uint64_t sm_guid;   /* SM kinds: the SM's port GUID */
	uint16_t width, speed; /* LINK_ADDED/REMOVED: as the link ran */
	uint8_t old_phys, new_phys; /* PORT_STATE: enum fab_phys_state */
	uint8_t counter;    /* COUNTER_*: enum fab_counter */
	uint16_t partition; /* PARTITION: the partition (15 bits) */
	/* COUNTER_*: what it counted from old to new, as the counter model
	 * (fabsweep/counter.h) says: new - old, or after a reset the new value;
	 * a lower bound after a reset or when saturated (new value all ones). */
	uint64_t increase;
	bool saturated;     /* the new value is all ones */
	bool at_least;      /* increase is a lower bound: a reset, or saturated */
	const char *old_text, *new_text; /* NODE_DESC (borrowed), MODULE (the
					  * diff's own); NULL: none */
	uint8_t mgid[16];   /* MCAST_*: the group */
	uint16_t mlid, old_mlid; /* MCAST_*: its MLID (new scan; old scan) */
	uint32_t switches_changed; /* MCAST_TREE */
};

struct fab_diff {
	struct fab_change *changes;
	size_t n, cap;
	size_t count[FAB_CHG__COUNT]; /* changes per kind */
	int64_t old_scan, new_scan;   /* scan ids (0 when not stored) */
	char **texts;                 /* strings the diff owns (MODULE texts) */
	size_t n_texts, cap_texts;
};

/*
 * Compares two snapshots. Both are borrowed and must have been indexed
 * (fab_snapshot_index(); the store's loader does it). The result (owned by
 * the caller, free with fab_diff_free) points into both snapshots: keep them
 * alive while it is used. Returns 0, -EINVAL (not indexed) or -ENOMEM.
 */
int fab_diff_compute(const struct fab_snapshot *old_snap,
		     const struct fab_snapshot *new_snap, struct fab_diff **out);

void fab_diff_free(struct fab_diff *d); /* accepts NULL */

/* "node-added", "link-removed", ... (the XML kind names); NULL if unknown. */
const char *fab_change_kind_name(unsigned kind);
/* Reverse of fab_change_kind_name(); -1 if unknown. */
int fab_change_kind_parse(const char *s);
