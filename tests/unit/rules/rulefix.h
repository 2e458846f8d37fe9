/* SPDX-License-Identifier: MIT */
/*
 * The base fabric of the rule fixtures (fixtures/rules/README.md describes
 * it): a healthy 2-spine, 4-leaf, 8-host fat tree with two subnet managers
 * and two counter samples, built in memory with tests/fabfix/fabfix.h. Rule
 * fixtures are SQL applied on top of it once it is in a store. Header-only.
 */
#pragma once

#include <stdio.h>
#include <string.h>

#include "fabfix/fabfix.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"

#define RF_T0 1772359200000LL /* 2026-03-01T10:00:00.000Z */
#define RF_SPINE(i) (0x0002c90300a00000ull + (i))
#define RF_LEAF(i) (0x0002c90300b00000ull + (i))
#define RF_HOST(i) (0x0002c90300c00000ull + (i))
#define RF_HOST_PORT(i) (0x0002c90300c10000ull + (i))
#define RF_SWITCH_PORTS 8
#define RF_SAMPLE_GAP_MS 10000

/* A node of the base fabric: host ports numbered from RF_HOST_PORT, the SM
 * (host01) at LID 7 as every port knows it. */
static inline uint32_t rf_node(struct fab_snapshot *s, uint8_t type, uint8_t role,
			       uint64_t guid, const char *desc, unsigned nports)
{
	uint32_t idx = fabfix_node(s, type, role, guid, desc, nports);

	if (type != FAB_NODE_SWITCH)
		fabfix_port_guids(s, idx, RF_HOST_PORT(guid & 0xffff));
	for (uint32_t p = 0; p < s->nodes[idx].port_count; p++)
		s->ports[s->nodes[idx].port_first + p].sm_lid = 7;
	return idx;
}

static inline void rf_link(struct fab_snapshot *s, uint32_t a, unsigned pa, uint32_t b,
			   unsigned pb)
{
	fabfix_cable(s, a, pa, b, pb, FAB_WIDTH_4X, FAB_SPEED_HDR);
}

/* ---- the RoCE part: 2 spines, 2 leaves, 4 hosts (README "The RoCE part") ---- */

/* 802.1Qaz information strings (after OUI and subtype), as sent on the wire. */
static const uint8_t RF_PFC3[] = { 0x08, 0x08 }; /* cap 8, PFC on priority 3 */
static const uint8_t RF_APP[] = { 0x00, 0x63, 0x12, 0xb7, 0x65, 0x00, 0x1a }; /* udp:4791=3,dscp:26=3 */
static const uint8_t RF_ETS[] = { 0x00, 0x00, 0x03, 0x00, 0x00, 50, 0, 0, 50, 0, 0, 0, 0,
				  2, 0, 0, 2, 0, 0, 0, 0 }; /* priority 3 on TC3, TC0/TC3 50/50 */
#define RF_ROCE_COUNTERS 5
static const char *const rf_roce_counters[RF_ROCE_COUNTERS] = {
	"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "out_of_sequence",
	"packet_seq_err",
};

static inline uint32_t rf_system(struct fab_roce *r, const char *name, unsigned n, bool sw,
				 int64_t t0)
{
	struct fab_roce_system *y = fab_roce_add_system(r);
	char buf[32];

	y->name = fab_roce_strdup(r, name);
	snprintf(buf, sizeof(buf), "02:00:00:00:00:%02x", n);
	y->chassis_id = fab_roce_strdup(r, buf);
	y->chassis_id_subtype = "mac";
	y->description = sw ? "SONiC 202405" : "Debian GNU/Linux 12";
	y->has_caps = true;
	y->cap_available = FAB_LLDP_CAP_BRIDGE | FAB_LLDP_CAP_ROUTER | FAB_LLDP_CAP_STATION;
	y->cap_enabled = sw ? FAB_LLDP_CAP_BRIDGE | FAB_LLDP_CAP_ROUTER : FAB_LLDP_CAP_STATION;
	y->collected = y->lldp = true;
	y->hostname = y->name;
	y->source = "lldp:/run/lldpd.socket";
	y->collected_at_ms = t0 + 2000;
	return (uint32_t)(r->n_systems - 1);
}

/* An interface; dcbx: advertises PFC (and APP) on priority 3 over LLDP. */
static inline uint32_t rf_eth(struct fab_roce *r, uint32_t sys, const char *ifname,
			      unsigned mtu, int mbps, bool lldp, bool app)
{
	struct fab_eth_port *p = fab_roce_add_eth_port(r, sys);
	uint32_t i = (uint32_t)(r->n_eth_ports - 1);
	struct fab_dcbx d;

	p->ifname = fab_roce_strdup(r, ifname);
	p->mtu = mtu;
	p->speed_mbps = mbps;
	p->state = "up";
	p->flags = FAB_ETH_F_SYSFS | (lldp ? FAB_ETH_F_LLDP : 0);
	p->dcb_status = FAB_DCB_NOT_QUERIED;
	p->dcbx_mode = -1;
	if (!lldp)
		return i;
	p->port_id = p->ifname;
	p->port_id_subtype = "ifname";
	p->tlv_first = (uint32_t)r->n_tlvs;
	fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_ETS_CFG, RF_ETS, sizeof(RF_ETS));
	fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_PFC, RF_PFC3, sizeof(RF_PFC3));
	if (app)
		fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_APP, RF_APP, sizeof(RF_APP));
	r->eth_ports[i].tlv_count = (uint32_t)r->n_tlvs - r->eth_ports[i].tlv_first;
	fab_roce_decode_tlvs(r, r->eth_ports[i].tlv_first, r->eth_ports[i].tlv_count, &d);
	r->eth_ports[i].adv = d;
	return i;
}

/* What port `at` heard from port `from` (which must advertise over LLDP). */
static inline void rf_hear(struct fab_roce *r, uint32_t at, uint32_t from)
{
	const struct fab_eth_port *f = &r->eth_ports[from];
	const struct fab_roce_system *y = &r->systems[f->system_idx];
	struct fab_lldp_neighbor *n = fab_roce_add_neighbor(r, at);
	uint32_t i = (uint32_t)(r->n_neighbors - 1), first = f->tlv_first, count = f->tlv_count;
	struct fab_dcbx d;

	n->chassis_id = y->chassis_id;
	n->chassis_id_subtype = y->chassis_id_subtype;
	n->system_name = y->name;
	n->system_descr = y->description;
	n->port_id = f->port_id;
	n->port_id_subtype = f->port_id_subtype;
	n->port_descr = f->ifname;
	n->ttl = 120;
	n->has_caps = true;
	n->cap_available = y->cap_available;
	n->cap_enabled = y->cap_enabled;
	n->tlv_first = (uint32_t)r->n_tlvs;
	for (uint32_t k = 0; k < count; k++) {
		struct fab_lldp_tlv t = r->tlvs[first + k];
		fab_roce_add_tlv(r, t.oui, t.subtype, t.info, t.len);
	}
	r->neighbors[i].tlv_count = count;
	fab_roce_decode_tlvs(r, r->neighbors[i].tlv_first, count, &d);
	r->neighbors[i].dcbx = d;
}

static inline void rf_eth_link(struct fab_roce *r, uint32_t a, uint32_t b)
{
	rf_hear(r, a, b);
	rf_hear(r, b, a);
}

/* A host's RoCE NIC: DCB as configured, mlx5_0 on top with its counters. */
static inline void rf_rdma(struct fab_roce *r, uint32_t sys, uint32_t eth, unsigned n,
			   int64_t shift_ms)
{
	static const struct fab_app_entry apps[] = {
		{ .priority = 3, .selector = FAB_APP_SEL_UDP, .protocol = 4791 },
		{ .priority = 3, .selector = FAB_APP_SEL_DSCP, .protocol = 26 },
	};
	struct fab_eth_port *p = &r->eth_ports[eth];
	struct fab_rdma_device *d;
	struct fab_rdma_port *rp;
	char buf[32];

	p->mac = NULL;
	p->dcb_status = FAB_DCB_OK;
	p->dcbx_mode = 0x09; /* host, IEEE */
	p->dcb.pfc = (struct fab_pfc){ .valid = true, .cap = 8, .enabled = 0x08 };
	p->dcb.ets = r->eth_ports[eth].adv.ets;
	p->dcb.ets.willing = false;
	fab_roce_add_apps(r, apps, 2, &r->eth_ports[eth].dcb.app_first);
	r->eth_ports[eth].dcb.app_count = 2;
	r->eth_ports[eth].dcb.app_valid = true;
	/* ECN and DCQCN on priority 3, CNPs on DSCP 48, priority 6 */
	r->eth_ports[eth].ecn = (struct fab_ecn){
		.known = FAB_ECN_NP | FAB_ECN_RP | FAB_ECN_CNP_DSCP | FAB_ECN_CNP_PRIO,
		.np_enabled = 0x08, .rp_enabled = 0x08, .cnp_dscp = 48, .cnp_prio = 6 };

	d = fab_roce_add_device(r, sys);
	d->name = "mlx5_0";
	d->node_guid = 0x0002c90300d00000ull + n;
	d->sys_image_guid = d->node_guid;
	snprintf(buf, sizeof(buf), "host%u mlx5_0", n);
	d->node_desc = fab_roce_strdup(r, buf);
	d->fw_ver = "20.39.1002";
	d->hca_type = "MT4123";
	d->board_id = "MT_0000000223";
	d->pci_address = "0000:03:00.0";
	d->pcie_width = d->pcie_max_width = 16;
	d->pcie_speed_gts = d->pcie_max_speed_gts = 16.0;
	rp = fab_roce_add_rdma_port(r, (uint32_t)(r->n_devices - 1));
	rp->port_num = 1;
	rp->state = FAB_STATE_ACTIVE;
	rp->phys_state = FAB_PHYS_LINKUP;
	rp->rate = "100 Gb/sec (2X HDR)";
	rp->rate_gbps = 100;
	rp->link_layer = "Ethernet";
	rp->netdev = "eth0";
	/* slow, steady growth: one of each per second since a common origin */
	for (unsigned k = 0; k < RF_ROCE_COUNTERS; k++)
		fab_roce_add_counter(r, (uint32_t)(r->n_rdma_ports - 1), FAB_RDMA_CTR_HW,
				     rf_roce_counters[k],
				     (uint64_t)(1000000 + 100000 * k + 1000 * n +
						(7200000 + shift_ms) / 1000));
}

static inline void rf_roce(struct fab_snapshot *s, int64_t t0, int64_t shift_ms)
{
	struct fab_roce *r = fab_snapshot_roce(s);
	uint32_t sp[2], lf[2], h[4], lport[2][4], sport[2][2], heth[4];
	char name[32];
	unsigned n = 0;

	for (unsigned i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "spine%u", i + 1);
		sp[i] = rf_system(r, name, ++n, true, t0);
		for (unsigned k = 0; k < 2; k++) {
			snprintf(name, sizeof(name), "swp%u", k + 1);
			sport[i][k] = rf_eth(r, sp[i], name, 9216, 400000, true, false);
		}
	}
	for (unsigned i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "leaf%u", i + 1);
		lf[i] = rf_system(r, name, ++n, true, t0);
		lport[i][0] = rf_eth(r, lf[i], "swp1", 9216, 100000, true, true);
		lport[i][1] = rf_eth(r, lf[i], "swp2", 9216, 100000, true, true);
		lport[i][2] = rf_eth(r, lf[i], "swp51", 9216, 400000, true, false);
		lport[i][3] = rf_eth(r, lf[i], "swp52", 9216, 400000, true, false);
	}
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "host%u", i + 1);
		h[i] = rf_system(r, name, ++n, false, t0);
		heth[i] = rf_eth(r, h[i], "eth0", 9000, 100000, true, true);
		rf_eth(r, h[i], "eno1", 1500, 1000, false, false); /* management, no LLDP */
		r->eth_ports[r->n_eth_ports - 1].dcb_status = FAB_DCB_UNSUPPORTED;
	}
	for (unsigned i = 0; i < 4; i++)
		rf_eth_link(r, lport[i / 2][i % 2], heth[i]);
	for (unsigned i = 0; i < 2; i++)
		for (unsigned k = 0; k < 2; k++)
			rf_eth_link(r, lport[i][2 + k], sport[k][i]);
	for (unsigned i = 0; i < 4; i++)
		rf_rdma(r, h[i], heth[i], i + 1, shift_ms);
	fab_roce_resolve(r);
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
			if (!fabfix_sampled(s, i))
				continue;
			struct fab_counter_sample *c =
				fabfix_sample(s, i, smp, t0 + 1000 + smp * RF_SAMPLE_GAP_MS);
			c->v[FAB_CTR_XMIT_DATA] = 1000000 * (i + 1) + smp * 250000;
			c->v[FAB_CTR_RCV_DATA] = 900000 * (i + 1) + smp * 250000;
			c->v[FAB_CTR_XMIT_PKTS] = 4000 * (i + 1) + smp * 1000;
			c->v[FAB_CTR_RCV_PKTS] = 3600 * (i + 1) + smp * 1000;
		}
	fabfix_sm(s, h[0], 3, 14)->act_count = 5000;
	fabfix_sm(s, h[1], 2, 10)->act_count = 4990;
	rf_roce(s, t0, shift_ms);
	fabfix_route_minhop(s);
	fabfix_pkeys_default(s, NULL, 0);
	/* the IPoIB broadcast group of the default partition, every host a
	 * member, its tree rooted at spine01 (fixtures/rules/README.md) */
	static const uint8_t bcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					   0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	uint32_t hp[8];
	for (unsigned i = 0; i < 8; i++)
		hp[i] = (uint32_t)(fab_snapshot_port(s, h[i], 1) - s->ports);
	fabfix_mcast_init(s, FAB_MFT_BLOCK);
	fabfix_mcast_group(s, bcast, 0xc000, 3 /* 10 Gb/s */, 4 /* 2048 */, sp[0], hp, 8);
	fab_mcast_sort(s->mcast);
	fab_mcast_resolve(s);
	fab_snapshot_index(s);
	return s;
}
