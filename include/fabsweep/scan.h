/* SPDX-License-Identifier: MIT */
/*
 * InfiniBand discovery: fills a snapshot from the live fabric (MADs through
 * libibumad) or from an ibnetdiscover cache file. Never touches the store.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct fab_snapshot;
struct fab_mkeys;

struct fab_scan_opts {
	const char *ca;         /* --ca NAME; NULL: first CA with an active port */
	int port;               /* --port N; 0: first active port */
	int smps;               /* --smps N: SMPs in flight during discovery */
	int window;             /* PMA/SMInfo MADs in flight */
	int timeout_ms;         /* --timeout MS: per MAD */
	int retries;            /* --retries N */
	int interval_s;         /* --interval S: second counter sample; 0: none */
	bool reset_counters;    /* --reset-counters (the only Set MAD sent) */
	bool no_counters;       /* topology and SMs only */
	bool no_routes;         /* --no-routes: no SwitchInfo, no forwarding tables */
	bool no_pkeys;          /* --no-pkeys: no P_Key tables (docs/partitions.md) */
	bool no_mcast;          /* --no-mcast: no multicast groups or tables (docs/multicast.md) */
	/* The SM_Key of the SA's trusted MCMemberRecord queries (its members);
	 * 0: $FABSWEEP_SA_KEY, else 1 (OpenSM's default sa_key). Never stored
	 * or printed. */
	uint64_t sa_key;
	/* The P_Key table of every cabled switch external port, enforcing or
	 * not (--forensic); false: of the switch ports that enforce partitions
	 * only (every cabled CA port either way). docs/partitions.md. */
	bool all_pkeys;
	/* Every SL2VL and VLArbitration table of the cabled ports whatever
	 * the samples say (--forensic); false: only where a sampled SL2VL
	 * table shows a QoS policy (docs/scan.md "VL and QoS tables"). */
	bool all_qos;
	/* At most this many SLtoVLMappingTables (--sl2vl-max N): when the
	 * one-lane credit loops want more, none is read and they are judged on
	 * one lane (the finding says lanes=not_read). --forensic: no limit. */
	uint32_t sl2vl_max;
	const char *load_cache; /* --load-cache FILE: offline, no MADs at all */
	/* Discover with fabsweep's own MAD window engine (the default from
	 * fab_scan_opts_init: fewer SMPs, user-space retries and deadlines);
	 * false: libibnetdisc (--discovery ibnetdisc). See docs/scan.md.
	 * FABSWEEP_DISCOVERY=native|ibnetdisc overrides it. */
	bool native_discovery;
	/* M_Keys for the SMPs (--m-key, --m-key-file, FABSWEEP_MKEY); NULL:
	 * key 0. Borrowed. Never stored or printed (docs/security.md). */
	const struct fab_mkeys *mkeys;
	/* Progress callback (may be NULL): phase name and counts. */
	void (*progress)(const char *phase, unsigned long done,
			 unsigned long total, void *ctx);
	void *progress_ctx;
};

/* Defaults chosen for real fabrics; see docs/scan.md. */
#define FAB_SCAN_DEFAULT_SMPS 16
#define FAB_SCAN_DEFAULT_WINDOW 64
#define FAB_SCAN_DEFAULT_TIMEOUT_MS 500
#define FAB_SCAN_DEFAULT_RETRIES 3
#define FAB_SCAN_DEFAULT_SL2VL_MAX 16384 /* ~a tenth of a 4,096-host tree's other MADs */

void fab_scan_opts_init(struct fab_scan_opts *o);

/*
 * Discovers the fabric into snap (which the caller created and owns).
 * Returns 0 when a snapshot worth keeping was made: snap->status is
 * FAB_SCAN_COMPLETE or FAB_SCAN_PARTIAL (with snap->errors saying what was
 * missed). Returns a negative errno, with fab_errmsg() set, when nothing
 * usable was seen (no device, the local port down, discovery failed).
 */
int fab_scan_ib(const struct fab_scan_opts *o, struct fab_snapshot *snap);

/* With FABSWEEP_SCAN_DEBUG set: one stderr line "scan: PHASE N ms ..." for
 * the time since *t0 (and the CPU since the scan's previous such line), then
 * *t0 = now. fab_scan_ib prints its own phases; callers add theirs (the
 * commit). */
void fab_scan_debug_phase(const char *phase, int64_t *t0);

/*
 * Classifies switches as leaf, spine or core by their distance to the
 * switches with hosts (a spine with hosts on it stays a spine) and marks CAs
 * as hosts, except CAs inside a switch (fab_node_in_switch()). Pure: works on
 * any snapshot with links. docs/scan.md, "Roles".
 */
void fab_topology_assign_roles(struct fab_snapshot *snap);
