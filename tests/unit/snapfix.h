/* SPDX-License-Identifier: MIT */
/*
 * Builds small in-memory snapshots for unit tests: a 2-level fat tree of
 * CAs, leaves and spines, all links 4X HDR and active, with counters.
 * Header-only so each test executable gets its own copy.
 */
#pragma once

#include <stdio.h>
#include <string.h>

#include "fabsweep/snapshot.h"

/* Adds a node with ports 0..nports (switch) or 1..nports (CA). */
static inline uint32_t snapfix_node(struct fab_snapshot *s, uint8_t type,
				    uint64_t guid, const char *desc,
				    unsigned nports)
{
	struct fab_node *n = fab_snapshot_add_node(s);
	uint32_t idx = (uint32_t)(s->n_nodes - 1);

	n->guid = guid;
	n->sys_guid = guid;
	n->type = type;
	n->num_ports = (uint8_t)nports;
	n->lid = (uint16_t)(idx + 1);
	n->vendor_id = 0x2c9;
	n->hops = 1;
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
		pt->speed_enabled = pt->speed_supported =
			FAB_SPEED_SDR | FAB_SPEED_EDR | FAB_SPEED_HDR;
		pt->mtu_cap = 5;
		pt->op_vls = 4;
	}
	return idx;
}

/* Cables port pa of node a to port pb of node b, active at width/speed. */
static inline void snapfix_link(struct fab_snapshot *s, uint32_t a, unsigned pa,
				uint32_t b, unsigned pb, uint8_t width,
				uint16_t speed)
{
	struct fab_port *x = fab_snapshot_port(s, a, pa);
	struct fab_port *y = fab_snapshot_port(s, b, pb);

	x->remote_idx = (uint32_t)(y - s->ports);
	y->remote_idx = (uint32_t)(x - s->ports);
	x->remote_guid = s->nodes[b].guid;
	x->remote_port = (uint8_t)pb;
	y->remote_guid = s->nodes[a].guid;
	y->remote_port = (uint8_t)pa;
	x->state = y->state = FAB_STATE_ACTIVE;
	x->phys_state = y->phys_state = FAB_PHYS_LINKUP;
	x->width_active = y->width_active = width;
	x->speed_active = y->speed_active = speed;
	x->mtu_active = y->mtu_active = 5;
}

/*
 * leaves x hosts_per_leaf hosts, every leaf cabled once to every spine.
 * GUIDs: spines 0x1000+i, leaves 0x2000+i, hosts 0x3000+i*16.
 * Each active port gets one counter sample with all counters zero.
 */
static inline struct fab_snapshot *snapfix_fat_tree(unsigned spines,
						    unsigned leaves,
						    unsigned hosts_per_leaf)
{
	struct fab_snapshot *s = fab_snapshot_new();
	uint32_t sp[64], lf[64];
	char name[64];
	unsigned h = 0;

	s->started_at_ms = 1764557635000;
	s->finished_at_ms = s->started_at_ms + 1500;
	s->host = fab_snapshot_strdup(s, "testhost", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "fixture", SIZE_MAX);
	for (unsigned i = 0; i < spines; i++) {
		snprintf(name, sizeof(name), "spine%03u", i + 1);
		sp[i] = snapfix_node(s, FAB_NODE_SWITCH, 0x1000 + i, name, 36);
	}
	for (unsigned i = 0; i < leaves; i++) {
		snprintf(name, sizeof(name), "leaf%03u", i + 1);
		lf[i] = snapfix_node(s, FAB_NODE_SWITCH, 0x2000 + i, name, 36);
	}
	for (unsigned i = 0; i < leaves; i++) {
		for (unsigned j = 0; j < hosts_per_leaf; j++, h++) {
			snprintf(name, sizeof(name), "host%04u HCA-1", h + 1);
			uint32_t c = snapfix_node(s, FAB_NODE_CA, 0x3000 + h * 16, name, 1);
			snapfix_link(s, lf[i], j + 1, c, 1, FAB_WIDTH_4X, FAB_SPEED_HDR);
		}
		for (unsigned k = 0; k < spines; k++)
			snapfix_link(s, lf[i], 19 + k, sp[k], i + 1, FAB_WIDTH_4X,
				     FAB_SPEED_HDR);
	}
	for (size_t i = 0; i < s->n_ports; i++) {
		if (s->ports[i].port_num == 0 || s->ports[i].state != FAB_STATE_ACTIVE)
			continue;
		struct fab_counter_sample *c = fab_snapshot_add_sample(s);
		c->port_idx = (uint32_t)i;
		c->sampled_at_ms = s->started_at_ms + 500;
		c->valid = (1u << FAB_CTR__COUNT) - 1;
		c->extended = true;
	}
	struct fab_sm *sm = fab_snapshot_add_sm(s);
	sm->port_guid = 0x3001;
	sm->lid = s->nodes[spines + leaves].lid;
	sm->state = 3;
	sm->priority = 15;
	sm->act_count = 1000;
	sm->port_idx = fab_snapshot_port(s, spines + leaves, 1) - s->ports;
	fab_snapshot_build_links(s);
	fab_snapshot_index(s);
	return s;
}
