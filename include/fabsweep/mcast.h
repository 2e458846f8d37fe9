/* SPDX-License-Identifier: MIT */
/*
 * Multicast: the groups the subnet administrator (SA) knows (MCMemberRecord:
 * MGID, MLID, MTU, rate, P_Key, SL, each member port and its join state)
 * and every switch's multicast forwarding table (MFT) for the MLIDs in use
 * (snap->mcast), and the trees the tables write, which the mcast.* rules,
 * `fabsweep route --mcast` and `diff` share.
 *
 *   - The model (core/mcast.c): groups in MGID order with their members,
 *     one struct fab_mft per switch whose table the scan asked for.
 *   - The tree (core/mcast_tree.c): for one MLID, where the tables send a
 *     packet of the group: which switches forward it out of which ports,
 *     which member ports it reaches from which, whether it comes back
 *     (a loop), which entries serve no member (stale).
 *
 * docs/multicast.md describes the semantics; docs/schema.md the SQL form.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_snapshot;
struct fab_arena;

#define FAB_MLID_FIRST 0xc000u  /* multicast LIDs: 0xC000 .. 0xFFFE */
#define FAB_MLID_LAST 0xfffeu
#define FAB_MFT_BLOCK 32        /* MLIDs per MulticastForwardingTable block (one MAD) */
#define FAB_MFT_POS_PORTS 16    /* ports per port-mask position (one MAD) */
#define FAB_MFT_MAX_POS 16      /* positions 0..15: ports 0..255 */
#define FAB_MFT_MAX_BLOCKS ((FAB_MLID_LAST - FAB_MLID_FIRST) / FAB_MFT_BLOCK + 1)
#define FAB_MGID_STRLEN 46      /* INET6_ADDRSTRLEN */

/* MCMemberRecord.JoinState bits. */
enum {
	FAB_MC_JOIN_FULL = 1,          /* FullMember: sends and receives */
	FAB_MC_JOIN_NON = 2,           /* NonMember: sends and receives */
	FAB_MC_JOIN_SENDONLY = 4,      /* SendOnlyNonMember: sends only */
	FAB_MC_JOIN_SENDONLY_FULL = 8, /* SendOnlyFullMember: sends only */
};
/* A member the group's packets must reach (not send-only). */
#define FAB_MC_RECEIVES(js) (((js) & (FAB_MC_JOIN_FULL | FAB_MC_JOIN_NON)) != 0)

/* One member port of a group, as the SA records it. */
struct fab_mc_member {
	uint64_t port_guid;  /* the PortGID's interface ID */
	uint64_t gid_prefix; /* the PortGID's subnet prefix */
	/* the port in snap->ports with that GUID (a CA port, or a switch's
	 * port 0), FAB_NONE when the topology has none; set by
	 * fab_mcast_resolve() */
	uint32_t port_idx;
	uint8_t join_state;  /* FAB_MC_JOIN_* */
	bool proxy;          /* ProxyJoin */
};

/* One group: MCMemberRecord's group fields as the SA answers them. */
struct fab_mc_group {
	uint8_t mgid[16];
	uint16_t mlid;
	uint16_t pkey;       /* raw: the membership bit as the SA gives it */
	uint32_t qkey;
	uint8_t mtu;         /* raw: selector (top 2 bits), MTU code (low 6: 4 = 2048) */
	uint8_t rate;        /* raw: selector, rate code (low 6: 3 = 10 Gb/s) */
	uint8_t pkt_life;    /* raw: selector, PacketLifeTime */
	uint8_t sl, tclass, hop_limit, scope;
	uint32_t flow_label;
	/* its members: mcast->members[first .. first + n), ascending port GUID */
	uint32_t first, n;
};

enum { FAB_MFT_UNREAD = 0, FAB_MFT_READ = 1, FAB_MFT_NOT_ASKED = 2 };

/* One switch's multicast forwarding table: the blocks the scan asked for.
 * status is an enum fab_lft_status (routing.h): ok, partial (a block or a
 * position did not answer), failed (nothing read). */
struct fab_mft {
	uint32_t node_idx;   /* the switch in snap->nodes */
	uint8_t status;
	uint8_t n_pos;       /* port-mask positions: num_ports / 16 + 1 */
	bool top_valid;      /* its port 0 says IsMulticastFDBTopSupported */
	uint16_t cap;        /* SwitchInfo.MulticastFDBCap: MLIDs it holds */
	uint16_t top;        /* SwitchInfo.MulticastFDBTop as read */
	uint32_t n_blocks;   /* blocks asked */
	const uint16_t *block; /* their numbers ((MLID - 0xC000) / 32), ascending */
	/* per block (index in block[]), per MLID of the block (32), per
	 * position: the port mask (bit j: port pos * 16 + j); 0 where not read */
	const uint16_t *mask;
	/* per block, per position: FAB_MFT_READ, FAB_MFT_NOT_ASKED (the
	 * position holds no Active port and not port 0: its bits could
	 * forward nothing, taken as empty), or 0: it did not answer (status
	 * partial says so) */
	const uint8_t *read;
};

/* snap->mcast. */
struct fab_mcast {
	struct fab_mc_group *groups;   /* ascending MGID */
	size_t n_groups, cap_groups;
	struct fab_mc_member *members; /* by group, see fab_mc_group.first */
	size_t n_members, cap_members;
	/* the member records were read (the SA answered the trusted
	 * queries): a group with n == 0 has no member; false: members unknown */
	bool members_read;
	struct fab_mft *mfts;          /* ascending node_idx, one per switch at most */
	size_t n_mfts, cap_mfts;
	/* the groups (indices) by MLID, then MGID: built by fab_mcast_sort */
	uint32_t *by_mlid;
	struct fab_arena *arena;       /* the tables' memory */
};

/* A new empty part (owned by the caller), NULL on ENOMEM; free accepts NULL. */
struct fab_mcast *fab_mcast_new(void);
void fab_mcast_free(struct fab_mcast *m);
/* snap->mcast, created when missing; NULL on ENOMEM. */
struct fab_mcast *fab_snapshot_mcast(struct fab_snapshot *snap);
/* Whether the snapshot holds multicast data (the scan read it). */
bool fab_mcast_present(const struct fab_snapshot *snap);
/* Appends a zeroed group / member / table (valid until the next append of
 * its kind). NULL on ENOMEM. */
struct fab_mc_group *fab_mcast_add_group(struct fab_mcast *m);
struct fab_mc_member *fab_mcast_add_member(struct fab_mcast *m);
struct fab_mft *fab_mcast_add_mft(struct fab_mcast *m);
/* n bytes of zeroed memory owned by m; NULL on ENOMEM. */
void *fab_mcast_alloc(struct fab_mcast *m, size_t n);
/* Sorts the groups by MGID and each group's members by port GUID (the
 * builders may add them in any order, each group's members contiguous).
 * 0 or -ENOMEM. */
int fab_mcast_sort(struct fab_mcast *m);
/* Sets every member's port_idx from the snapshot's ports (indexed or not):
 * O((ports + members) log ports). 0 or -ENOMEM. */
int fab_mcast_resolve(struct fab_snapshot *snap);

/* The groups with this MLID: *first (index in by_mlid) and the count.
 * O(log n); needs fab_mcast_sort. */
size_t fab_mcast_groups_of(const struct fab_mcast *m, unsigned mlid, size_t *first);
/* The group with this MGID, NULL. O(log n). */
const struct fab_mc_group *fab_mcast_group(const struct fab_mcast *m, const uint8_t mgid[16]);
/* The table of a switch (node index), NULL. O(log n). */
const struct fab_mft *fab_mcast_mft(const struct fab_mcast *m, uint32_t node_idx);
/*
 * A switch's entry for an MLID: masks[0 .. t->n_pos) (bit j of masks[p]:
 * port p * 16 + j). Returns 1 when it is known (every position read or
 * not asked), 0 when a position did not answer (its mask is 0), -1 when
 * the MLID's block was not asked or the MLID is past the table (masks all
 * 0).
 */
int fab_mft_entry(const struct fab_mft *t, unsigned mlid, uint16_t masks[FAB_MFT_MAX_POS]);
/* Whether port is in the switch's entry for mlid: 1, 0, or -1 unknown (not
 * read). */
int fab_mft_has_port(const struct fab_mft *t, unsigned mlid, unsigned port);

/* "ff12:401b:ffff::ffff:ffff" (as saquery prints it) into buf. */
const char *fab_mgid_format(const uint8_t mgid[16], char buf[FAB_MGID_STRLEN]);
/* Parses an MGID (IPv6 text); 0 or -EINVAL. */
int fab_mgid_parse(const char *s, uint8_t out[16]);
/* Whether an MGID is the IPoIB broadcast group of a partition (any scope):
 * ff1S:401b:PPPP::ffff:ffff; *pkey (may be NULL) set to its P_Key PPPP. */
bool fab_mgid_ipoib_broadcast(const uint8_t mgid[16], uint16_t *pkey);
/* Whether an MGID is an IPoIB group (IPv4 401b or IPv6 601b signature) of
 * some partition; *pkey (may be NULL) its P_Key. */
bool fab_mgid_ipoib(const uint8_t mgid[16], uint16_t *pkey);
/* A rate code (the low 6 bits of MCMemberRecord.Rate, PathRecord's) in Gb/s,
 * 0 for a code IBTA does not define (2 = 2.5, 3 = 10, ... 16 = 100, 21 = 400). */
double fab_mc_rate_gbps(unsigned code);
/* An MTU code (low 6 bits) in bytes (4 = 2048), 0 when undefined. */
unsigned fab_mc_mtu_bytes(unsigned code);
/* The selector of a raw MTU, rate or PacketLifeTime byte (its top 2 bits:
 * 0 greater than, 1 less than, 2 exactly, 3 largest available). */
static inline unsigned fab_mc_selector(unsigned raw)
{
	return (raw >> 6) & 3;
}

/* ---- decoders of what the fabric answers (untrusted bytes) ------------- */

#define FAB_MC_RECORD_SIZE 52 /* MCMemberRecord on the wire */
/*
 * One MCMemberRecord (len bytes, at least FAB_MC_RECORD_SIZE) into a group
 * (its group fields) and a member (PortGID, JoinState, ProxyJoin). Pure.
 * -EINVAL when too short.
 */
int fab_mc_record_decode(const uint8_t *rec, size_t len, struct fab_mc_group *g,
			 struct fab_mc_member *mb);
/* The inverse (for tests and the join tool's checks): 52 bytes. */
void fab_mc_record_encode(const struct fab_mc_group *g, const struct fab_mc_member *mb,
			  uint8_t rec[FAB_MC_RECORD_SIZE]);
/* One MulticastForwardingTable block's data (64 bytes: 32 big-endian
 * masks) into masks[32]. Pure. */
void fab_mft_block_decode(const uint8_t data[64], uint16_t masks[FAB_MFT_BLOCK]);

/* ---- the tree of one MLID (core/mcast_tree.c) ---------------------------- */

/* A switch's part in a tree: the ports its entry names. */
struct fab_mc_hop {
	uint32_t node;   /* the switch (node index) */
	uint32_t first, n; /* its entry's ports: tree->ports[first .. first + n) (port indices) */
	bool unknown;    /* part of its entry was not read (or its table failed) */
	bool fwd, bwd;   /* a sender's packets reach it; it leads to a receiving member */
};

/* What one member's position in the tree is. */
struct fab_mc_reach {
	uint32_t member;     /* index in mcast->members */
	uint32_t port;       /* its port (snap->ports), FAB_NONE when not in the topology */
	uint32_t sw;         /* the switch it hangs off (node index), FAB_NONE */
	/* receiving members only: the other members whose packets do not reach
	 * it (0: reached from every one), and one of them (member index) */
	uint32_t unreached_from, example;
	bool receives;       /* FAB_MC_RECEIVES: the tree must reach it */
	bool bit_missing;    /* its switch's entry lacks its port */
	bool unknown;        /* not judged: a table on the way was not read */
};

/* The tree of one MLID as the tables write it, judged against its groups'
 * members. All arrays owned (fab_mc_tree_free). */
struct fab_mc_tree {
	uint16_t mlid;
	/* the groups with this MLID (indices in mcast->groups, ascending):
	 * usually one; OpenSM may give IPv6 solicited-node groups one MLID */
	uint32_t *groups;
	size_t n_groups;
	/* the switches whose entry for it names some port, in node order */
	struct fab_mc_hop *hops;
	size_t n_hops;
	uint32_t *ports;
	size_t n_ports;
	/* the members of its groups that are in the topology (a port in two
	 * groups of the MLID is there twice) */
	struct fab_mc_reach *reach;
	size_t n_reach;
	/* a loop: the ports (indices) a packet leaves by, round the cycle;
	 * n_loop 0 when the tables have none */
	uint32_t *loop;
	size_t n_loop;
	/* entry ports that lead to a CA port that is no member of its groups */
	uint32_t *stray;
	size_t n_stray;
	/* members whose port is not in the topology */
	size_t n_absent;
};

/*
 * What the tables do with the packets of MLID mlid (FAB_MLID_FIRST ..):
 * for each switch whose entry is read, the ports it forwards out of (a
 * packet is never sent back out of the port it came in by); the member
 * ports each member's packets reach, by every path; a cycle if there is
 * one; the switches no member's packets pass or that lead to no receiving
 * member (hop.fwd, hop.bwd). Needs snap->mcast and an indexed snapshot.
 * O(sender switches x tree + members). 0 or -ENOMEM.
 */
int fab_mc_tree_build(const struct fab_snapshot *snap, uint16_t mlid, struct fab_mc_tree *out);
void fab_mc_tree_free(struct fab_mc_tree *t); /* accepts a zeroed one */

/* The MLIDs some switch's table names a port for, or some group has,
 * ascending and distinct; *out malloc'd (free()), *n set. 0 or -ENOMEM. */
int fab_mcast_mlids(const struct fab_snapshot *snap, uint16_t **out, size_t *n);
