/* SPDX-License-Identifier: MIT */
/*
 * Virtual lanes and QoS (core/qos.c; docs/routing.md "Virtual lanes and
 * QoS"): which VLs a port runs (PortInfo OperationalVLs, fab_port.op_vls),
 * the SLtoVLMappingTables (snap->routing->sl2vl, include/fabsweep/routing.h:
 * a switch's per (in, out) port pair; a CA port's with in 0 and out its
 * port) and the VLArbitrationTables (snap->qos) the scan read where a QoS
 * policy is in use (an SL2VL table that is not the default), or with
 * --forensic. The vl.* rules and the diff ask here.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_snapshot;
struct fab_routing;

#define FAB_VLARB_MAX 64   /* entries of one VLArbitrationTable (two blocks of 32) */
#define FAB_VLARB_BLOCK 32 /* entries per MAD */
#define FAB_VL_DATA_MAX 15 /* data VLs are 0..14; VL 15 carries subnet management */

/* Why a scan read the VL tables (scan_qos.reason). */
enum fab_qos_reason {
	FAB_QOS_NOT_READ = 0, /* no QoS policy seen: only a credit loop's SL2VL tables */
	FAB_QOS_POLICY,       /* an SL2VL table was not the default: a policy in use */
	FAB_QOS_FORENSIC,     /* scan --forensic reads them whatever they hold */
	FAB_QOS__COUNT
};

struct fab_vlarb_entry {
	uint8_t vl;     /* 0..14 (15: not a data VL, such an entry sends nothing) */
	uint8_t weight; /* 64-byte units a turn; 0: the entry is skipped */
};

/* One port's VLArbitrationTables, as many entries as its PortInfo's
 * VLArbitrationHighCap and LowCap say. */
struct fab_vlarb {
	uint32_t port_idx; /* in snap->ports: a CA port or a switch external port */
	uint8_t n_high, n_low;
	struct fab_vlarb_entry high[FAB_VLARB_MAX], low[FAB_VLARB_MAX];
};

/* snap->qos: present when the scan read the VL tables (reason), even if
 * none answered. */
struct fab_qos {
	uint8_t reason;          /* enum fab_qos_reason */
	struct fab_vlarb *vlarb; /* ascending port_idx once fab_qos_sort ran */
	size_t n_vlarb, cap_vlarb;
};

struct fab_qos *fab_qos_new(void);      /* NULL on ENOMEM */
void fab_qos_free(struct fab_qos *q);  /* accepts NULL */
/* snap->qos, created when missing; NULL on ENOMEM. */
struct fab_qos *fab_snapshot_qos(struct fab_snapshot *snap);
/* A zeroed table appended (valid until the next append); NULL on ENOMEM. */
struct fab_vlarb *fab_qos_add_vlarb(struct fab_qos *q);
/* Sorts by port and drops repeats (one of them stays). */
void fab_qos_sort(struct fab_qos *q);
/* The tables of a port (index), NULL when not read. O(log n). */
const struct fab_vlarb *fab_qos_vlarb(const struct fab_qos *q, uint32_t port_idx);
/* "qos", "forensic" (NULL for the others); parse: the value or -1. */
const char *fab_qos_reason_name(unsigned reason);
int fab_qos_reason_parse(const char *s);

/*
 * The number of VLs an OperationalVLs or VLCap value means: 1 VL0, 2 VL0-1,
 * 3 VL0-3, 4 VL0-7, 5 VL0-14; 0 for 0 (unknown) and the reserved codes.
 * A port sends data on VLs below it.
 */
unsigned fab_vls_count(unsigned code);
/* "VL0-7", "VL0" (an OperationalVLs or VLCap code), "unknown" for 0 and
 * reserved codes. Writes buf (len bytes, 16 hold any) and returns it. */
const char *fab_vls_name(unsigned code, char *buf, size_t len);
/* "0-3,5,7": the set bits of a 16-bit mask of SLs or VLs as numbers and
 * ranges, "none" for 0. Writes buf (len bytes, 48 hold any); returns it. */
const char *fab_lanes_text(unsigned mask, char *buf, size_t len);
/* The data VLs a port's VLArbitration tables give weight (in either):
 * a bit per VL. */
unsigned fab_vlarb_weighted(const struct fab_vlarb *v);

/*
 * Whether an SL2VL table (16 VLs, SL 0 first) is what a port holds when no
 * QoS policy programmed it: SL n to VL n for every SL below 15 (what OpenSM
 * without -Q leaves and ibsim starts with; SL 15 maps anywhere), or to VL n
 * modulo 8, 4 or 2 (the identity folded onto the VLs a port runs: a
 * device's own default, or OpenSM -Q's default policy on a port of 8, 4 or
 * 2 VLs), or every SL to VL 0.
 */
bool fab_sl2vl_is_default(const uint8_t vl[16]);

/*
 * The service levels traffic may use: those some CA port's own SL2VL table
 * (in 0) maps to one of its operational data VLs (below its
 * OperationalVLs, not 15). A host cannot send on an SL its own port drops,
 * so the SLs no CA maps are none of the fabric's concern. A bit per SL; 0
 * when the snapshot has no CA table.
 */
uint16_t fab_qos_sls_in_use(const struct fab_snapshot *snap);
