/* SPDX-License-Identifier: MIT */
/*
 * Fat trees of any size for report tests and the report benchmark
 * (bench/bench_report.c): `spines` spines, `leaves` leaves, `hpl` hosts per
 * leaf, every leaf cabled once to every spine, all links 4X HDR. Unlike
 * snapfix.h it has no size limit below the 255 ports of a switch, sets roles
 * (unless roles is false), and gives every active port a counter sample.
 * Header-only. GUIDs: spines 0x0002c90300100000+i, leaves ...200000+i,
 * hosts ...300000+2h.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/snapshot.h"

static inline uint32_t fatfab_node(struct fab_snapshot *s, uint8_t type, uint64_t guid,
				   const char *desc, unsigned nports)
{
	struct fab_node *n = fab_snapshot_add_node(s);
	uint32_t idx = (uint32_t)(s->n_nodes - 1);

	n->guid = n->sys_guid = guid;
	n->type = type;
	n->num_ports = (uint8_t)nports;
	n->lid = (uint16_t)(idx + 1);
	n->vendor_id = 0x2c9;
	n->device_id = type == FAB_NODE_SWITCH ? 54000 : 4123;
	n->hops = type == FAB_NODE_SWITCH ? 1 : 2;
	fab_node_set_desc(n, (const uint8_t *)desc, strlen(desc));
	for (unsigned p = type == FAB_NODE_SWITCH ? 0 : 1; p <= nports; p++) {
		struct fab_port *pt = fab_snapshot_add_port(s);
		s->nodes[idx].port_count++;
		pt->node_idx = idx;
		pt->port_num = (uint8_t)p;
		pt->guid = type == FAB_NODE_SWITCH ? guid : guid + p;
		pt->lid = (uint16_t)(idx + 1);
		pt->state = p == 0 ? FAB_STATE_ACTIVE : FAB_STATE_DOWN;
		pt->phys_state = p == 0 ? FAB_PHYS_LINKUP : FAB_PHYS_POLLING;
		pt->width_enabled = pt->width_supported = FAB_WIDTH_1X | FAB_WIDTH_4X;
		pt->speed_enabled = pt->speed_supported = FAB_SPEED_SDR | FAB_SPEED_EDR | FAB_SPEED_HDR;
		pt->mtu_cap = 5;
		pt->op_vls = 4;
	}
	return idx;
}

static inline void fatfab_cable(struct fab_snapshot *s, uint32_t a, unsigned pa, uint32_t b,
				unsigned pb)
{
	struct fab_port *x = fab_snapshot_port(s, a, pa), *y = fab_snapshot_port(s, b, pb);

	x->remote_idx = (uint32_t)(y - s->ports);
	y->remote_idx = (uint32_t)(x - s->ports);
	x->remote_guid = s->nodes[b].guid;
	x->remote_port = (uint8_t)pb;
	y->remote_guid = s->nodes[a].guid;
	y->remote_port = (uint8_t)pa;
	x->state = y->state = FAB_STATE_ACTIVE;
	x->phys_state = y->phys_state = FAB_PHYS_LINKUP;
	x->width_active = y->width_active = FAB_WIDTH_4X;
	x->speed_active = y->speed_active = FAB_SPEED_HDR;
	x->mtu_active = y->mtu_active = 5;
}

/* Returns an indexed snapshot (owned by the caller), NULL when too large. */
static inline struct fab_snapshot *fatfab_build(unsigned spines, unsigned leaves, unsigned hpl,
						bool roles)
{
	struct fab_snapshot *s;
	uint32_t *sp, *lf;
	char name[64];

	if (!spines || !leaves || leaves > 255 || hpl + spines > 255)
		return NULL;
	s = fab_snapshot_new();
	sp = calloc(spines, sizeof(*sp));
	lf = calloc(leaves, sizeof(*lf));
	s->started_at_ms = 1764557635000;
	s->finished_at_ms = s->started_at_ms + 2500;
	s->checked_at_ms = s->finished_at_ms + 500; /* as if fabsweep check ran */
	s->scan_id = 1;
	s->host = fab_snapshot_strdup(s, "mgmt01", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "ib:mlx5_0/1", SIZE_MAX);
	s->sm_act_start = s->sm_act_end = 4242;
	for (unsigned i = 0; i < spines; i++) {
		snprintf(name, sizeof(name), "spine%03u", i + 1);
		sp[i] = fatfab_node(s, FAB_NODE_SWITCH, 0x0002c90300100000ull + i, name, leaves);
		s->nodes[sp[i]].role = roles ? FAB_ROLE_SPINE : FAB_ROLE_UNKNOWN;
	}
	for (unsigned i = 0; i < leaves; i++) {
		snprintf(name, sizeof(name), "leaf%03u", i + 1);
		lf[i] = fatfab_node(s, FAB_NODE_SWITCH, 0x0002c90300200000ull + i, name, hpl + spines);
		s->nodes[lf[i]].role = roles ? FAB_ROLE_LEAF : FAB_ROLE_UNKNOWN;
	}
	for (unsigned i = 0, h = 0; i < leaves; i++) {
		for (unsigned j = 0; j < hpl; j++, h++) {
			snprintf(name, sizeof(name), "node%05u HCA-1", h + 1);
			uint32_t c = fatfab_node(s, FAB_NODE_CA, 0x0002c90300300000ull + (uint64_t)h * 2,
						 name, 1);
			s->nodes[c].role = roles ? FAB_ROLE_HOST : FAB_ROLE_UNKNOWN;
			fatfab_cable(s, lf[i], j + 1, c, 1);
		}
		for (unsigned k = 0; k < spines; k++)
			fatfab_cable(s, lf[i], hpl + 1 + k, sp[k], i + 1);
	}
	fab_snapshot_build_links(s);
	for (size_t i = 0; i < s->n_ports; i++) {
		if (!s->ports[i].port_num || s->ports[i].state != FAB_STATE_ACTIVE)
			continue;
		struct fab_counter_sample *c = fab_snapshot_add_sample(s);
		c->port_idx = (uint32_t)i;
		c->sampled_at_ms = s->started_at_ms + 1000;
		c->extended = true;
		c->valid = (1u << FAB_CTR__COUNT) - 1;
		c->v[FAB_CTR_XMIT_DATA] = (uint64_t)i * 1000;
		c->v[FAB_CTR_RCV_DATA] = (uint64_t)i * 900;
	}
	struct fab_sm *sm = fab_snapshot_add_sm(s);
	uint32_t host0 = spines + leaves;
	sm->port_guid = s->nodes[host0].guid + 1;
	sm->lid = s->nodes[host0].lid;
	sm->state = 3;
	sm->priority = 14;
	sm->act_count = 4242;
	sm->port_idx = s->nodes[host0].port_first;
	fab_snapshot_index(s);
	free(sp);
	free(lf);
	return s;
}

/* Adds a finding on port `port` of node `node` (GUID text made here). */
static inline void fatfab_finding(struct fab_snapshot *s, const char *rule, unsigned sev,
				  uint32_t node, unsigned port, const char *subject,
				  const char *message)
{
	char g[32], p[8];

	snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)s->nodes[node].guid);
	snprintf(p, sizeof(p), "%u", port);
	struct fab_finding f = { .rule_id = rule, .severity = (uint8_t)sev, .node = g,
				 .port = port ? p : NULL, .subject = subject, .message = message };
	fab_snapshot_add_finding(s, &f);
}
