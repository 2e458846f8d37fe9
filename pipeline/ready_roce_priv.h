// SPDX-License-Identifier: MIT
/*
 * What the files of `ready --local`'s judgement share (pipeline/ready_roce.c,
 * ready_roce_phys.c): the judgement in progress and how a problem or a
 * note is said.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/counter.h"

struct fab_config;
struct fab_pipeline_ready_local_result;
struct fab_roce;

/* One RoCE interface of this host (fab_roce_is_roce_iface) and what its
 * physical layer allows to judge. */
struct rr_iface {
	uint32_t jport;      /* in the judged view */
	uint32_t rport;      /* in the merge, FAB_NONE */
	const char *nic_verb, *nic_why; /* its NIC counters are not judged: "not <verb>: <why>";
					 * NULL: judged */
	bool upper;          /* a bond over other RoCE interfaces: their counters are its */
	bool module_merged;  /* its module is the merge's reading (not read now) */
};

struct judge {
	struct fab_pipeline_ready_local_result *res;
	const struct fab_config *cfg;
	const struct fab_roce *ref, *live; /* NULL when absent */
	struct fab_roce *j;                /* res->judged->roce */
	uint32_t ref_sys, live_sys, sys;   /* this host in ref, live and judged */
	size_t cap_problems, cap_notes, cap_ports, cap_links;
	struct rr_iface *ifaces;           /* this host's RoCE interfaces */
	size_t n_ifaces;
	struct fab_nic_base base;          /* the merge's NIC counters by system and interface */
	int err;
};

/* Room for one more of *arr (n used, *cap allocated); false on ENOMEM (g->err set). */
bool rr_grow(struct judge *g, void **arr, size_t n, size_t *cap, size_t elem);
/* A problem line (verdict FAB_READY_NOT_READY or _UNKNOWN), or a note. */
void rr_problem(struct judge *g, uint8_t verdict, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rr_note(struct judge *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What could not be read or compared: a note, or a problem when [ready]
 * require (need) has bit: "<what> of <ifname> not <verb>: <why>". */
void rr_unread(struct judge *g, int need, unsigned bit, const char *what, const char *verb,
	       const char *ifname, const char *why);

/* ---- the physical layer (ready_roce_phys.c) ---- */

/* After the judged view is built: this host's RoCE interfaces; the NIC
 * counters of those the merge has none of dropped from the judged view
 * (the rules would judge them since they were cleared); the merge's module
 * in the judged view for those whose module was not read now. */
void rr_phys_prepare(struct judge *g);
/* Whether a rule's finding about this host's port ifname is one of its
 * RoCE interfaces' (the physical rules answer for those only), and
 * whether its module is the merge's reading. */
bool rr_phys_iface(const struct judge *g, const char *ifname, bool *module_merged);
/* Each RoCE interface's link-down events (the NIC's link_down_events)
 * since the merge against the increase limits. */
void rr_phys_link_down(struct judge *g, const struct fab_counter_limits *limits);
/* What could not be read or compared of their NIC counters and modules. */
void rr_phys_readable(struct judge *g, int need);
void rr_phys_free(struct judge *g);
