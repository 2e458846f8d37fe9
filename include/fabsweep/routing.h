/* SPDX-License-Identifier: MIT */
/*
 * Routing: what each switch of a snapshot forwards where (its SwitchInfo and
 * LinearForwardingTable, snap->routing), and the route walk every user of
 * the tables shares: the routing rules, `fabsweep route`, `ready`.
 *
 *   - The model (core/routing.c): one struct fab_lft per switch whose
 *     tables the scan asked for, in node order.
 *   - The index (core/route_walk.c): built once per snapshot; who owns
 *     each LID, which CA ports are the ends of routes, the switches.
 *   - The walk: for one destination LID, every switch's fate at once
 *     (reaches it in n hops, or where and why the route breaks), one
 *     step per switch however many sources there are; and the trace of
 *     one path, hop by hop, with the same step.
 *   - The channel dependency graph of the routes (core/route_cdg.c): the
 *     credit loops.
 *
 * docs/routing.md describes the semantics; docs/schema.md the SQL form.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_snapshot;
struct fab_arena;

#define FAB_LFT_BLOCK 64        /* LIDs per LinearForwardingTable block (one MAD) */
#define FAB_LFT_NO_PORT 255     /* an entry that forwards nowhere */
#define FAB_LID_UNICAST_MAX 0xbfff
/* The longest path (links from the source port to the destination port)
 * a route may take; longer is a loop for every practical purpose. */
#define FAB_ROUTE_MAX_HOPS 64

/* What is known of a switch's table. */
enum fab_lft_status {
	FAB_LFT_OK = 0,   /* SwitchInfo and every block up to LinearFDBTop read */
	FAB_LFT_PARTIAL,  /* some blocks did not answer (fab_lft.missing) */
	FAB_LFT_FAILED,   /* SwitchInfo did not answer: no table at all */
	FAB_LFT__COUNT
};

/* SwitchInfo bits kept in fab_lft.enforce (issue 15 reads them). */
enum {
	FAB_SWI_PART_ENF_INB = 1 << 0,   /* PartitionEnforcementInbound */
	FAB_SWI_PART_ENF_OUTB = 1 << 1,  /* PartitionEnforcementOutbound */
	FAB_SWI_FILTER_RAW_INB = 1 << 2, /* FilterRawInbound */
	FAB_SWI_FILTER_RAW_OUTB = 1 << 3,
	FAB_SWI_ENHANCED_PORT0 = 1 << 4, /* EnhancedPort0 */
};

/* One switch's SwitchInfo and linear forwarding table. */
struct fab_lft {
	uint32_t node_idx;     /* the switch in snap->nodes */
	uint8_t status;        /* enum fab_lft_status */
	uint8_t enforce;       /* FAB_SWI_* */
	uint16_t fdb_cap;      /* LinearFDBCap: entries the switch has */
	uint16_t fdb_top;      /* LinearFDBTop: the highest LID the table routes */
	uint16_t part_enf_cap; /* PartitionEnforcementCap: P_Keys a port can enforce */
	/* MulticastFDBCap and MulticastFDBTop of the same SwitchInfo, for the
	 * scan's multicast tables (scanner/mcast.c); in memory only: 0 in a
	 * snapshot loaded from the store (which keeps them with the tables,
	 * mcast_switches) */
	uint16_t mcast_cap, mcast_top;
	uint32_t n_blocks;     /* blocks of the table: fdb_top / 64 + 1 (0 when failed) */
	/* n_blocks * 64 entries by LID (FAB_LFT_NO_PORT: none). Owned by the
	 * routing part; switches with equal tables may share one. */
	const uint8_t *port;
	/* NULL when every block was read; else n_blocks flags, non-zero for a
	 * block that did not answer (its entries are FAB_LFT_NO_PORT and mean
	 * nothing). Owned like port. */
	const uint8_t *missing;
};

#define FAB_N_SL 16   /* service levels */
#define FAB_VL_DROP 15 /* an SL mapped to VL 15 is dropped */

/* One SLtoVLMappingTable of a switch: the virtual lane a packet of each
 * service level takes when it enters by port in and leaves by port out. */
struct fab_sl2vl {
	uint32_t node_idx;     /* the switch in snap->nodes */
	uint8_t in, out;       /* its ports (in may be a CA-facing port) */
	uint8_t vl[FAB_N_SL];  /* SL -> VL (0..15) */
};

/* snap->routing: the tables of one snapshot. */
struct fab_routing {
	struct fab_lft *lfts; /* ascending node_idx, one per switch at most */
	size_t n_lfts, cap_lfts;
	/* the SLtoVLMappingTables read (only where a credit-loop analysis
	 * needs them: docs/routing.md), ascending (node_idx, in, out) once
	 * fab_routing_sort_sl2vl ran */
	struct fab_sl2vl *sl2vl;
	size_t n_sl2vl, cap_sl2vl;
	/* Built by fab_routing_sort_sl2vl (core/routing.c index_sl2vl): per
	 * node (n_sl2vl_node - 1 of them) where its rows start in sl2vl_row,
	 * per row (a node's in-port) where its tables start in sl2vl;
	 * fab_routing_sl2vl searches a row only. Used while n_sl2vl is still
	 * sl2vl_indexed; an append clears it (n_sl2vl_node 0). */
	uint32_t *sl2vl_node, *sl2vl_row;
	size_t n_sl2vl_node, sl2vl_indexed;
	/* The scan's one-lane loops wanted this many SL2VL tables, more than
	 * fab_scan_opts.sl2vl_max, so none was read (0: not so). In memory
	 * only: the scan's note says it; routing.credit_loop's evidence
	 * (lanes=not_read) keeps it in the database. */
	size_t sl2vl_over_max;
	struct fab_arena *arena; /* the tables' memory */
};

/* A new empty routing part (owned by the caller) or NULL on ENOMEM. */
struct fab_routing *fab_routing_new(void);
/* Frees it and its tables. Accepts NULL. */
void fab_routing_free(struct fab_routing *r);
/* snap->routing, created when missing; NULL on ENOMEM. */
struct fab_routing *fab_snapshot_routing(struct fab_snapshot *snap);
/* Appends a zeroed entry (valid until the next append); entries must be
 * appended in ascending node_idx. NULL on ENOMEM. */
struct fab_lft *fab_routing_add(struct fab_routing *r);
/* n bytes of table memory owned by r, filled with fill; NULL on ENOMEM. */
uint8_t *fab_routing_alloc(struct fab_routing *r, size_t n, uint8_t fill);
/* Appends a zeroed SL2VL table; NULL on ENOMEM. Sort when done. */
struct fab_sl2vl *fab_routing_add_sl2vl(struct fab_routing *r);
/* Sorts r->sl2vl by (node_idx, in, out) (skipped when already so), drops
 * repeated pairs (the first stays) and indexes them by node. */
void fab_routing_sort_sl2vl(struct fab_routing *r);
/* The SL2VL table of (switch node_idx, in, out), NULL when not read. O(log of the
 * node's tables from in) once sorted, O(log n) before. */
const struct fab_sl2vl *fab_routing_sl2vl(const struct fab_routing *r, uint32_t node_idx,
					  unsigned in, unsigned out);
/* The table of a switch (node index), NULL when the snapshot has none. O(log n). */
const struct fab_lft *fab_routing_lft(const struct fab_snapshot *snap, uint32_t node_idx);
/* Whether the snapshot holds forwarding tables at all (the scan read them). */
bool fab_routing_present(const struct fab_snapshot *snap);
/* The entry for lid: a port number, FAB_LFT_NO_PORT, or -1 when it is
 * unknown (no table, the block was not read) or past the table's top. */
int fab_lft_entry(const struct fab_lft *l, unsigned lid);
/* "ok", "partial", "failed"; parse: the enum value or -1. */
const char *fab_lft_status_name(unsigned status);
int fab_lft_status_parse(const char *s);

/* ---- the walk (core/route_walk.c) ---------------------------------------- */

/* Why a route does not reach its destination. The order is the order of
 * findings and of the names (fab_route_fault_name). */
enum fab_route_fault {
	FAB_ROUTE_OK = 0,     /* it reaches the destination */
	FAB_ROUTE_NO_ENTRY,   /* the entry is 255: the switch drops it */
	FAB_ROUTE_PAST_TOP,   /* the LID is above the switch's LinearFDBTop */
	FAB_ROUTE_BAD_PORT,   /* the entry names a port the switch does not have,
			       * or its own port 0 for another's LID */
	FAB_ROUTE_PORT_DOWN,  /* the entry's port is not Active, its link trained
			       * or disabled (the subnet manager did not reroute) */
	FAB_ROUTE_NO_CABLE,   /* the entry's port has no link partner (Polling:
			       * no cable, or the far end is dead) */
	FAB_ROUTE_WRONG_DEST, /* it arrives at a CA or router that does not own the LID */
	FAB_ROUTE_LOOP,       /* it comes back to a switch it passed */
	FAB_ROUTE_TOO_LONG,   /* more than FAB_ROUTE_MAX_HOPS links */
	FAB_ROUTE_UNKNOWN,    /* a table or block on the way was not read, or the
			       * port leads out of what the scan saw: not judged */
	FAB_ROUTE__COUNT
};
/* "ok", "no_entry", "past_top", "bad_port", "port_down", "no_cable",
 * "wrong_destination", "loop", "too_long", "unknown". */
const char *fab_route_fault_name(unsigned fault);

/*
 * What the walk needs of a snapshot, built once (O(nodes + ports)). All
 * arrays owned by the index; the snapshot is borrowed and must outlive it.
 */
struct fab_route_index {
	const struct fab_snapshot *snap;
	size_t n_sw;
	uint32_t *sw_node;           /* switch i: its node index */
	const struct fab_lft **sw_lft; /* switch i: its table, NULL when none */
	uint32_t *node_sw;           /* node index: its switch index, FAB_NONE */
	/* LID 0..FAB_LID_UNICAST_MAX: the port that owns it (a CA port, LMC
	 * range included, or a switch's port 0), FAB_NONE. The first owner
	 * wins when two claim one (lid.duplicate says so). */
	uint32_t *lid_owner;
	/* The ends of routes: CA ports that are Active, have a LID and are
	 * cabled to a switch (port indices, ascending). */
	uint32_t *ends;
	size_t n_ends;
	/* The ends grouped by the switch they are cabled to: switch i's are
	 * end_list[end_first[i] .. end_first[i + 1]) (port indices). */
	uint32_t *end_first;
	uint32_t *end_list;
	/* What each switch's ports lead to, worked out once so that a step of
	 * the walk is a table look: switch i's entry e (1..num_ports) is
	 * hop[hop_first[i] + e], e past hop_first[i + 1] a port it does not
	 * have; sw_port0[i] its port 0 (FAB_NONE when the scan has none). */
	struct fab_route_hop {
		uint32_t out;  /* the port (index), FAB_NONE when there is none */
		uint32_t next; /* the switch it leads to, FAB_NONE */
		uint32_t ca;   /* the CA or router port it leads to, FAB_NONE */
		uint8_t fault; /* where next and ca are FAB_NONE: why it goes nowhere;
				* where ca is set: FAB_ROUTE_WRONG_DEST unless ca owns the LID */
	} *hop;
	uint32_t *hop_first;
	uint32_t *sw_port0;
};

/* Builds the index of snap (indexed, with its routing part or without:
 * then every switch is FAB_ROUTE_UNKNOWN). 0 or -ENOMEM. */
int fab_route_index_build(const struct fab_snapshot *snap, struct fab_route_index *out);
void fab_route_index_free(struct fab_route_index *ix); /* accepts a zeroed one */
/* The switch (index) a route from CA port `port` enters first, FAB_NONE. */
uint32_t fab_route_first_switch(const struct fab_route_index *ix, uint32_t port);
/* The LIDs a port answers to: *first and *count (LMC range); 0 when it has none. */
unsigned fab_route_port_lids(const struct fab_snapshot *snap, uint32_t port, uint16_t *first);

/*
 * The destinations of a set of ports: every LID of each port's range
 * (base .. base + 2^LMC - 1, as fab_route_port_lids gives it), port by
 * port in the order given, LID by LID. Every per-destination loop (the
 * routing rules, the credit-loop graph, every pair, ready's hops) walks
 * these: with LMC n a port is 2^n destinations, each routed on its own.
 * Ports that are FAB_NONE or have no LID are skipped.
 *
 *	struct fab_route_dests d;
 *	for (fab_route_dests_start(&d, snap, ports, n); fab_route_dests_next(&d);)
 *		fab_route_walk_to(ix, &w, d.lid);   (d.port, d.idx, d.lid - d.base)
 */
struct fab_route_dests {
	uint32_t port;  /* the current destination's port (index) */
	size_t idx;     /* its place in ports[] */
	uint16_t lid;   /* the current destination LID */
	uint16_t base;  /* its port's base LID: lid - base is the offset */
	unsigned count; /* LIDs of the port's range */
	/* private */
	const struct fab_snapshot *snap;
	const uint32_t *ports;
	size_t n, next;
};
void fab_route_dests_start(struct fab_route_dests *d, const struct fab_snapshot *snap,
			   const uint32_t *ports, size_t n);
/* Moves to the next destination; false after the last. */
bool fab_route_dests_next(struct fab_route_dests *d);
/*
 * The index's ends (ix->ends) in the order of their base LIDs: walked in
 * this order, consecutive destinations read the same cache lines of every
 * switch's forwarding table (Selene's credit-loop pass: a quarter less
 * time than in port order). malloc'd, ix->n_ends of them; NULL: no memory.
 */
uint32_t *fab_route_ends_by_lid(const struct fab_route_index *ix);

/* Every switch's fate toward one destination LID (fab_route_walk_to). The
 * arrays have one entry per switch of the index; owned by the walk. */
struct fab_route_walk {
	uint16_t dlid;
	uint32_t dest;     /* the port that owns dlid, FAB_NONE */
	uint8_t *fault;    /* enum fab_route_fault */
	uint8_t *hops;     /* FAB_ROUTE_OK: links from the switch to the destination port */
	uint32_t *out;     /* the port (index) the switch's entry names, FAB_NONE */
	uint32_t *next;    /* the switch that port leads to, FAB_NONE */
	/* Not OK: where the route breaks, a port index: the faulting switch's
	 * entry port (PORT_DOWN, NO_CABLE, WRONG_DEST, BAD_PORT when the port
	 * exists, LOOP: the loop's first switch's, TOO_LONG), or its port 0
	 * (NO_ENTRY, PAST_TOP, BAD_PORT beyond its ports); FAB_NONE for UNKNOWN. */
	uint32_t *at;
	/* private */
	uint32_t *mark, *stack, gen;
	size_t n_sw;
};

int fab_route_walk_init(const struct fab_route_index *ix, struct fab_route_walk *w);
void fab_route_walk_fini(struct fab_route_walk *w); /* accepts a zeroed one */
/* Follows every switch's entry for dlid: O(switches). */
void fab_route_walk_to(const struct fab_route_index *ix, struct fab_route_walk *w, uint16_t dlid);

/* One path, hop by hop. */
struct fab_route_path {
	/* The ports the packet leaves by: the source port, then each switch's
	 * entry port; the last reaches the destination when fault is OK. */
	uint32_t hop[FAB_ROUTE_MAX_HOPS + 1];
	size_t n_hops;
	uint8_t fault;  /* enum fab_route_fault */
	uint32_t at;    /* as fab_route_walk.at */
	uint32_t dest;  /* the port that owns the LID, FAB_NONE */
};
/*
 * The path from port src (a CA port; a switch's port 0 starts at that
 * switch) to dlid, as the tables forward it. Pure; O(path). 0, or -EINVAL
 * when src is not a port that can send (not cabled, no LID).
 */
int fab_route_trace(const struct fab_route_index *ix, uint32_t src, uint16_t dlid,
		    struct fab_route_path *out);

/* ---- every pair of a set of ends (core/route_pairs.c) --------------------- */

/* A pair whose route does not arrive (or is not judged: FAB_ROUTE_UNKNOWN). */
struct fab_route_pair {
	uint32_t src, dst; /* port indices */
	uint16_t dlid;     /* the LID of dst's range the route is to */
	uint8_t fault;     /* enum fab_route_fault, never OK */
	uint32_t at;       /* where it breaks, as fab_route_walk.at */
};
struct fab_route_pairs {
	uint64_t n_pairs;   /* ordered pairs (of ports) checked */
	/* routes checked: one per pair and LID of the destination's range
	 * (n_pairs when every LMC is 0) */
	uint64_t n_routes;
	uint64_t n_broken;  /* of them, routes that break */
	uint64_t n_unknown; /* of them, routes not judged (a table not read) */
	/* the routes that arrive, by links from source port to destination
	 * port (2: through one switch) */
	uint64_t hops[FAB_ROUTE_MAX_HOPS + 1];
	/* with keep_bad: the broken and the unknown ones, by destination (in
	 * the order of ends), then by source switch; owned */
	struct fab_route_pair *bad;
	size_t n_bad, cap_bad;
};
/*
 * Checks every ordered pair (a, b), a != b, of ends[0..n): distinct ends of
 * the index (CA ports in ix->ends), the route to every LID of b's range
 * (LMC), counting them and the links of those that arrive; the routes that
 * do not are kept when keep_bad (`route --all-pairs`; the reports' hop
 * histogram only counts). One walk per destination LID: O(n x 2^LMC x
 * switches + broken routes), never a trace per pair. 0,
 * -EINVAL (a port that is no end) or -ENOMEM; *out set on success, free it
 * with fab_route_pairs_free().
 */
int fab_route_pairs_check(const struct fab_route_index *ix, const uint32_t *ends, size_t n,
			  bool keep_bad, struct fab_route_pairs *out);
void fab_route_pairs_free(struct fab_route_pairs *p); /* accepts a zeroed one */

/* ---- credit loops (core/route_cdg.c) -------------------------------------- */

/*
 * The channel dependency graph of the routes toward every end's LIDs: a
 * channel is a switch-to-switch link in one direction (named by the port
 * index it leaves by); a route p -> q -> r makes channel p->q wait for
 * q->r. Only switches some end's traffic passes are counted (a stale
 * entry nobody routes through cannot deadlock). All traffic is taken to
 * travel on one virtual lane (docs/routing.md says when that is too strict).
 */
/* How a cycle's lanes were judged. */
enum fab_cdg_lanes {
	FAB_CDG_ONE_LANE = 0, /* one lane: the SL2VL tables its links need were not read */
	FAB_CDG_LANES,        /* per virtual lane, from the SL2VL tables read */
};
struct fab_cdg_cycle {
	uint32_t *chan;   /* the cycle, as the ports its channels leave by, in order */
	size_t n_chan;
	size_t scc_size;  /* channels (channel-lane pairs with lanes) in its strongly connected set */
	size_t scc_deps;  /* dependencies among them */
	uint16_t dlid;    /* a destination whose routes add one of its dependencies */
	uint8_t lanes;    /* enum fab_cdg_lanes */
	/* FAB_CDG_LANES: per channel, its virtual lane, and the service level
	 * of a route that adds the dependency on the next channel; NULL else */
	uint8_t *vl, *sl;
	/* FAB_CDG_LANES: the lanes of every cycle found in the one-lane set this
	 * cycle projects onto (one cycle is reported per such set: the one
	 * through the lowest channel, on the lowest lane), bit v for VL v */
	uint16_t vl_mask;
	/* FAB_CDG_ONE_LANE from fab_cdg_find_lanes: the SL2VL tables its
	 * strongly connected set needs that the snapshot does not hold */
	size_t lanes_missing;
};
struct fab_cdg {
	size_t n_chan, n_deps;        /* channels with a dependency, dependencies */
	struct fab_cdg_cycle *cycles; /* one per cyclic strongly connected set, by
				       * their first channel's port index */
	size_t n_cycles;
};
/* Builds the graph and finds its cycles: O(destinations x switches +
 * dependencies). 0 or -ENOMEM. */
int fab_cdg_find(const struct fab_route_index *ix, struct fab_cdg *out);
void fab_cdg_free(struct fab_cdg *g); /* accepts a zeroed one */

/* ---- credit loops per virtual lane (core/route_lanes.c) ------------------- */

/* An SLtoVLMappingTable a credit-loop analysis needs: (switch, in, out). */
struct fab_sl2vl_want {
	uint32_t node_idx;
	uint8_t in, out;
};
/*
 * The SL2VL tables the per-lane analysis needs: for every channel (switch
 * p, out-port o) of a cyclic strongly connected set of the one-lane graph,
 * every in-port of p whose traffic leaves by o (switch-to-switch, and the
 * ports of p's CAs). None when the one-lane graph has no cycle (a healthy
 * tree). Ascending (node_idx, in, out); *out owned by the caller (free()).
 * When they are more than max, only their number: *n set, *out NULL.
 * 0 or -ENOMEM.
 */
int fab_sl2vl_wanted(const struct fab_route_index *ix, size_t max, struct fab_sl2vl_want **out,
		     size_t *n);
/*
 * fab_cdg_find, then per virtual lane where the snapshot holds the SL2VL
 * tables: a node is (channel, VL); each route of service level s (s in the
 * mask sls) adds (c, v) -> (c', v') along its path, v taken from the
 * table of the switch c leaves by for the port the route entered it,
 * path by path (a lane change on the way, a dateline, breaks a cycle).
 * Traffic of every service level shares one graph (lanes are shared
 * buffers). A cyclic set whose tables are not all held stays as fab_cdg_find
 * judges it (FAB_CDG_ONE_LANE). 0 or -ENOMEM.
 */
int fab_cdg_find_lanes(const struct fab_route_index *ix, uint16_t sls, struct fab_cdg *out);
