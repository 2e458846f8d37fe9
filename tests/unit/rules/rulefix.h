/* SPDX-License-Identifier: MIT */
/*
 * The base fabric of the rule fixtures (fixtures/rules/README.md describes
 * it): a healthy 2-spine, 4-leaf, 8-host fat tree with two subnet managers
 * and two counter samples, built in memory. Rule fixtures are SQL applied
 * on top of it once it is in a store. Header-only, private to tests/unit/rules.
 */
#pragma once

#include <stdio.h>
#include <string.h>

#include "fabsweep/snapshot.h"

#define RF_T0 1772359200000LL /* 2026-03-01T10:00:00.000Z */
#define RF_SPINE(i) (0x0002c90300a00000ull + (i))
#define RF_LEAF(i) (0x0002c90300b00000ull + (i))
#define RF_HOST(i) (0x0002c90300c00000ull + (i))
#define RF_HOST_PORT(i) (0x0002c90300c10000ull + (i))
#define RF_SWITCH_PORTS 8
#define RF_SAMPLE_GAP_MS 10000

static inline uint32_t rf_node(struct fab_snapshot *s, uint8_t type, uint8_t role,
			       uint64_t guid, const char *desc, unsigned nports)
{
	struct fab_node *n = fab_snapshot_add_node(s);
	uint32_t idx = (uint32_t)(s->n_nodes - 1);

	n->guid = n->sys_guid = guid;
	n->type = type;
	n->role = role;
	n->num_ports = (uint8_t)nports;
	n->lid = (uint16_t)(idx + 1);
	n->vendor_id = 0x2c9;
	n->device_id = type == FAB_NODE_SWITCH ? 0xd2f0 : 0x101b;
	n->hops = type == FAB_NODE_SWITCH ? 1 : 2;
	fab_node_set_desc(n, (const uint8_t *)desc, strlen(desc));
	for (unsigned p = type == FAB_NODE_SWITCH ? 0 : 1; p <= nports; p++) {
		struct fab_port *pt = fab_snapshot_add_port(s);
		s->nodes[idx].port_count++;
		pt->node_idx = idx;
		pt->port_num = (uint8_t)p;
		pt->guid = type == FAB_NODE_SWITCH ? guid : RF_HOST_PORT(guid & 0xffff);
		pt->lid = (uint16_t)(idx + 1);
		pt->sm_lid = 7;
		pt->state = p == 0 ? FAB_STATE_ACTIVE : FAB_STATE_DOWN;
		pt->phys_state = p == 0 ? FAB_PHYS_LINKUP : FAB_PHYS_POLLING;
		if (p == 0 || type != FAB_NODE_SWITCH) {
			pt->width_enabled = pt->width_supported = FAB_WIDTH_1X | FAB_WIDTH_4X;
			pt->speed_enabled = pt->speed_supported =
				FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR | FAB_SPEED_FDR |
				FAB_SPEED_EDR | FAB_SPEED_HDR;
		}
		pt->mtu_cap = 5;
		pt->op_vls = 4;
	}
	return idx;
}

static inline void rf_link(struct fab_snapshot *s, uint32_t a, unsigned pa, uint32_t b,
			   unsigned pb)
{
	struct fab_port *x = fab_snapshot_port(s, a, pa), *y = fab_snapshot_port(s, b, pb);

	x->remote_idx = (uint32_t)(y - s->ports);
	y->remote_idx = (uint32_t)(x - s->ports);
	x->remote_guid = s->nodes[b].guid;
	x->remote_port = (uint8_t)pb;
	y->remote_guid = s->nodes[a].guid;
	y->remote_port = (uint8_t)pa;
	for (struct fab_port *p = x;; p = y) {
		p->state = FAB_STATE_ACTIVE;
		p->phys_state = FAB_PHYS_LINKUP;
		p->width_enabled = p->width_supported = FAB_WIDTH_1X | FAB_WIDTH_4X;
		p->speed_enabled = p->speed_supported = FAB_SPEED_SDR | FAB_SPEED_DDR |
							FAB_SPEED_QDR | FAB_SPEED_FDR |
							FAB_SPEED_EDR | FAB_SPEED_HDR;
		p->width_active = FAB_WIDTH_4X;
		p->speed_active = FAB_SPEED_HDR;
		p->mtu_active = 5;
		if (p == y)
			break;
	}
}

/* The base fabric, its clock shifted by shift_ms (scan 1, the baseline, is
 * the same fabric an hour earlier). */
static inline struct fab_snapshot *rf_base(int64_t shift_ms)
{
	struct fab_snapshot *s = fab_snapshot_new();
	uint32_t sp[2], lf[4], h[8];
	char name[32];
	int64_t t0 = RF_T0 + shift_ms;

	s->started_at_ms = t0;
	s->finished_at_ms = t0 + 12000;
	s->host = fab_snapshot_strdup(s, "mgmt01", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "ib:mlx5_0/1", SIZE_MAX);
	s->status = FAB_SCAN_COMPLETE;
	s->sm_act_start = s->sm_act_end = 5000;
	for (unsigned i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "spine%02u", i + 1);
		sp[i] = rf_node(s, FAB_NODE_SWITCH, FAB_ROLE_SPINE, RF_SPINE(i + 1), name,
				RF_SWITCH_PORTS);
	}
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "leaf%02u", i + 1);
		lf[i] = rf_node(s, FAB_NODE_SWITCH, FAB_ROLE_LEAF, RF_LEAF(i + 1), name,
				RF_SWITCH_PORTS);
	}
	for (unsigned i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "host%02u HCA-1", i + 1);
		h[i] = rf_node(s, FAB_NODE_CA, FAB_ROLE_HOST, RF_HOST(i + 1), name, 1);
	}
	for (unsigned i = 0; i < 4; i++) {
		rf_link(s, lf[i], 1, h[2 * i], 1);
		rf_link(s, lf[i], 2, h[2 * i + 1], 1);
		rf_link(s, lf[i], 7, sp[0], i + 1);
		rf_link(s, lf[i], 8, sp[1], i + 1);
	}
	/* IsSM on the two SM hosts */
	fab_snapshot_port(s, h[0], 1)->cap_mask = 0x2;
	fab_snapshot_port(s, h[1], 1)->cap_mask = 0x2;
	fab_snapshot_build_links(s);
	for (unsigned smp = 0; smp < 2; smp++)
		for (size_t i = 0; i < s->n_ports; i++) {
			const struct fab_port *p = &s->ports[i];
			if (!p->port_num || p->state != FAB_STATE_ACTIVE)
				continue;
			struct fab_counter_sample *c = fab_snapshot_add_sample(s);
			c->port_idx = (uint32_t)i;
			c->sample = (uint8_t)smp;
			c->extended = true;
			c->sampled_at_ms = t0 + 1000 + smp * RF_SAMPLE_GAP_MS;
			c->valid = (1u << FAB_CTR__COUNT) - 1;
			c->v[FAB_CTR_XMIT_DATA] = 1000000 * (i + 1) + smp * 250000;
			c->v[FAB_CTR_RCV_DATA] = 900000 * (i + 1) + smp * 250000;
			c->v[FAB_CTR_XMIT_PKTS] = 4000 * (i + 1) + smp * 1000;
			c->v[FAB_CTR_RCV_PKTS] = 3600 * (i + 1) + smp * 1000;
		}
	struct fab_sm *sm = fab_snapshot_add_sm(s);
	sm->port_guid = RF_HOST_PORT(1);
	sm->lid = s->nodes[h[0]].lid;
	sm->state = 3;
	sm->priority = 14;
	sm->act_count = 5000;
	sm->port_idx = (uint32_t)(fab_snapshot_port(s, h[0], 1) - s->ports);
	sm = fab_snapshot_add_sm(s);
	sm->port_guid = RF_HOST_PORT(2);
	sm->lid = s->nodes[h[1]].lid;
	sm->state = 2;
	sm->priority = 10;
	sm->act_count = 4990;
	sm->port_idx = (uint32_t)(fab_snapshot_port(s, h[1], 1) - s->ports);
	fab_snapshot_index(s);
	return s;
}
