/* SPDX-License-Identifier: MIT */
/*
 * Private to the HTML report: the renderer's state and the pieces its
 * sections share. report_html.c writes the page; html_topology.c the SVG
 * topology, html_ethernet.c the Ethernet section, html_routing.c the routing
 * section.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "htmlw.h"
#include "model.h"

struct hr {
	struct fab_hw w;
	const struct fab_snapshot *s, *base;
	const struct fab_report_model *m;
	const struct fab_report_diff *d;
	const uint32_t *node_findings; /* per node: findings naming it */
	const struct fab_report_ctx *c;
};

static inline const char *sev_name(unsigned sev)
{
	const char *n = fab_severity_name(sev < FAB_SEV__COUNT ? sev : FAB_SEV_ERROR);
	return n ? n : "error";
}

static inline uint8_t max8(uint8_t a, uint8_t b)
{
	return a > b ? a : b;
}

static inline bool has_eth(const struct fab_snapshot *s)
{
	return s->roce && s->roce->n_systems;
}

/* Switches (everything but hosts) in display order: tier, then name.
 * Owned by the caller; NULL on ENOMEM. */
uint32_t *fab_html_sorted_switches(struct hr *r, size_t *n_out);
/* "ok", or the worst severity of a mark. */
void fab_html_mark_badge(struct fab_hw *w, uint8_t mark);

/* Sections. */
void fab_html_topology(struct hr *r);
void fab_html_ethernet(struct hr *r);
void fab_html_trend(struct hr *r); /* html_trend.c: opts->trend, when given */
void fab_html_routing(struct hr *r); /* html_routing.c */
void fab_html_phys(struct hr *r);    /* html_phys.c: modules, cables, bit error ratios */
