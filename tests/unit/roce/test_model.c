// SPDX-License-Identifier: MIT
/*
 * The RoCE model: merging several machines' views, resolving neighbours into
 * links with both ends (stubs for what was not collected), roles, and a
 * round trip through the store.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/counter.h"
#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include <sqlite3.h>

#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

static const uint8_t PFC3[] = { 0x08, 0x08 }, PFC4[] = { 0x08, 0x10 };
static const uint8_t APP[] = { 0x00, 0x63, 0x12, 0xb7, 0x65, 0x00, 0x1a };

/* One machine's view, as collect makes it. */
static struct fab_roce *machine(const char *name, const char *chassis, unsigned caps,
				int64_t when)
{
	struct fab_roce *r = fab_roce_new();
	struct fab_roce_system *s = fab_roce_add_system(r);

	s->name = fab_roce_strdup(r, name);
	s->chassis_id = fab_roce_strdup(r, chassis);
	s->chassis_id_subtype = "mac";
	s->has_caps = true;
	s->cap_available = 0x94;
	s->cap_enabled = (uint16_t)caps;
	s->collected = s->lldp = true;
	s->collected_at_ms = when;
	s->source = "lldp:test";
	return r;
}

static uint32_t add_port(struct fab_roce *r, const char *ifname, const char *mac,
			 unsigned mtu, const uint8_t *pfc)
{
	struct fab_eth_port *p = fab_roce_add_eth_port(r, 0);
	uint32_t i = (uint32_t)r->n_eth_ports - 1;

	p->ifname = fab_roce_strdup(r, ifname);
	p->mac = fab_roce_strdup(r, mac);
	p->port_id = p->mac;
	p->port_id_subtype = "mac";
	p->mtu = mtu;
	p->flags = FAB_ETH_F_SYSFS | FAB_ETH_F_LLDP;
	p->tlv_first = (uint32_t)r->n_tlvs;
	if (pfc) {
		fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_PFC, pfc, 2);
		fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_APP, APP, sizeof(APP));
		r->eth_ports[i].tlv_count = 2;
	}
	struct fab_dcbx d;
	fab_roce_decode_tlvs(r, r->eth_ports[i].tlv_first, r->eth_ports[i].tlv_count, &d);
	r->eth_ports[i].adv = d;
	return i;
}

/* What port `local` heard: a system by chassis/name, a port by id. */
static void hear(struct fab_roce *r, uint32_t local, const char *chassis, const char *name,
		 const char *port_id, const char *subtype, unsigned caps, const uint8_t *pfc)
{
	struct fab_lldp_neighbor *n = fab_roce_add_neighbor(r, local);
	uint32_t i = (uint32_t)r->n_neighbors - 1;

	n->chassis_id = fab_roce_strdup(r, chassis);
	n->chassis_id_subtype = "mac";
	n->system_name = fab_roce_strdup(r, name);
	n->port_id = fab_roce_strdup(r, port_id);
	n->port_id_subtype = subtype;
	n->port_descr = fab_roce_strdup(r, port_id);
	n->ttl = 4;
	n->has_caps = true;
	n->cap_enabled = (uint16_t)caps;
	n->tlv_first = (uint32_t)r->n_tlvs;
	if (pfc) {
		fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_PFC, pfc, 2);
		r->neighbors[i].tlv_count = 1;
	}
	struct fab_dcbx d;
	fab_roce_decode_tlvs(r, r->neighbors[i].tlv_first, r->neighbors[i].tlv_count, &d);
	r->neighbors[i].dcbx = d;
}

#define ST FAB_LLDP_CAP_STATION
#define BR FAB_LLDP_CAP_BRIDGE

/*
 * spine1 (collected), spine2 (never collected: a stub), leaf1, leaf2,
 * host1 on leaf1, host2 on leaf2 with PFC on priority 4.
 */
static struct fab_roce *fabric(size_t *out_dups)
{
	struct fab_roce *dst = fab_roce_new(), *m;
	size_t dups = 0, d;
	uint32_t p;

	m = machine("spine1", "02:00:00:00:00:01", BR, 100);
	p = add_port(m, "swp1", "02:00:00:00:01:01", 9000, PFC3);
	hear(m, p, "02:00:00:00:00:11", "leaf1", "02:00:00:00:11:51", "mac", BR, PFC3);
	p = add_port(m, "swp2", "02:00:00:00:01:02", 9000, PFC3);
	hear(m, p, "02:00:00:00:00:12", "leaf2", "02:00:00:00:12:51", "mac", BR, PFC3);
	fab_roce_merge(dst, m, "file:spine1.db", &d);
	fab_roce_free(m);

	for (int l = 1; l <= 2; l++) {
		char name[16], ch[32], mac[32], hmac[32], hch[32], host[16], smac[32];
		snprintf(name, sizeof(name), "leaf%d", l);
		snprintf(ch, sizeof(ch), "02:00:00:00:00:1%d", l);
		m = machine(name, ch, BR, 100);
		snprintf(mac, sizeof(mac), "02:00:00:00:1%d:51", l);
		snprintf(smac, sizeof(smac), "02:00:00:00:01:0%d", l);
		p = add_port(m, "swp51", mac, 9000, PFC3);
		hear(m, p, "02:00:00:00:00:01", "spine1", smac, "mac", BR, PFC3);
		p = add_port(m, "swp52", "02:00:00:00:99:99", 9000, PFC3);
		/* spine2 is known only from here: ifname port ids */
		hear(m, p, "02:00:00:00:00:02", "spine2", l == 1 ? "swp1" : "swp2", "ifname", BR,
		     PFC3);
		snprintf(mac, sizeof(mac), "02:00:00:00:1%d:01", l);
		snprintf(hmac, sizeof(hmac), "02:00:00:00:2%d:00", l);
		snprintf(hch, sizeof(hch), "02:00:00:00:00:2%d", l);
		snprintf(host, sizeof(host), "host%d", l);
		p = add_port(m, "swp1", mac, 9000, PFC3);
		hear(m, p, hch, host, hmac, "mac", ST, l == 2 ? PFC4 : PFC3);
		fab_roce_merge(dst, m, NULL, &d);
		fab_roce_free(m);
	}
	for (int h = 1; h <= 2; h++) {
		char name[16], ch[32], mac[32], lch[32], lmac[32];
		snprintf(name, sizeof(name), "host%d", h);
		snprintf(ch, sizeof(ch), "02:00:00:00:00:2%d", h);
		snprintf(mac, sizeof(mac), "02:00:00:00:2%d:00", h);
		snprintf(lch, sizeof(lch), "02:00:00:00:00:1%d", h);
		snprintf(lmac, sizeof(lmac), "02:00:00:00:1%d:01", h);
		/* host1 twice: an old view (MTU 1500) and a newer one (9000) */
		for (int copy = 0; copy < (h == 1 ? 2 : 1); copy++) {
			m = machine(name, ch, ST, copy ? 200 : 150);
			p = add_port(m, "eth0", mac, copy || h == 2 ? 9000 : 1500,
				     h == 2 ? PFC4 : PFC3);
			hear(m, p, lch, h == 1 ? "leaf1" : "leaf2", lmac, "mac", BR, PFC3);
			/* NIC counters and a module: the view's own (when and which copy) */
			int64_t when = copy ? 200 : 150;
			assert_int_equal(fab_roce_add_nic_counter(m, p, FAB_NIC_RX_PAUSE, 3, 0, (uint64_t)when, when,
								  "mlx5_core:rx_prio3_pause"), 0);
			assert_int_equal(fab_roce_add_nic_counter(m, p, FAB_NIC_TX_FRAMES, -1, 0, (uint64_t)h, when,
								  "mlx5_core:tx_packets_phy"), 0);
			struct fab_module *mod = fab_modules_add(&m->modules, p, 1);
			assert_non_null(mod);
			char serial[32];
			snprintf(serial, sizeof(serial), "SN%d-%lld", h, (long long)when);
			mod->serial = fab_roce_strdup(m, serial);
			m->modules.lanes[mod->lane_first].rx_mw = (double)when;
			fab_roce_merge(dst, m, NULL, &d);
			dups += d;
			fab_roce_free(m);
		}
	}
	*out_dups = dups;
	return dst;
}

static const char *link_text(const struct fab_roce *r, size_t i, char *buf, size_t cap)
{
	const struct fab_eth_link *l = &r->links[i];
	const struct fab_eth_port *a = &r->eth_ports[l->a], *b = &r->eth_ports[l->b];

	snprintf(buf, cap, "%s:%s-%s:%s", r->systems[a->system_idx].name, a->ifname,
		 r->systems[b->system_idx].name, b->ifname);
	return buf;
}

static uint32_t sys(const struct fab_roce *r, const char *name)
{
	uint32_t s = fab_roce_find_system(r, name);

	assert_int_not_equal(s, FAB_NONE);
	return s;
}

static void check_fabric(const struct fab_roce *r)
{
	static const char *const want[] = {
		"host1:eth0-leaf1:swp1", "host2:eth0-leaf2:swp1",
		"leaf1:swp51-spine1:swp1", "leaf1:swp52-spine2:swp1",
		"leaf2:swp51-spine1:swp2", "leaf2:swp52-spine2:swp2",
	};
	char buf[128];

	assert_int_equal(r->n_systems, 6);
	assert_int_equal(r->n_links, 6);
	for (size_t i = 0; i < r->n_links; i++)
		assert_string_equal(link_text(r, i, buf, sizeof(buf)), want[i]);
	/* both ends heard each other, except spine2 which said nothing */
	for (size_t i = 0; i < r->n_links; i++) {
		bool stub = r->links[i].b < r->n_eth_ports &&
			    (r->eth_ports[r->links[i].b].flags & FAB_ETH_F_STUB);
		assert_int_equal(r->links[i].heard,
				 stub ? FAB_LINK_A_HEARD_B : (FAB_LINK_A_HEARD_B | FAB_LINK_B_HEARD_A));
	}
	assert_int_equal(r->systems[sys(r, "host1")].role, FAB_ROLE_HOST);
	assert_int_equal(r->systems[sys(r, "host2")].role, FAB_ROLE_HOST);
	assert_int_equal(r->systems[sys(r, "leaf1")].role, FAB_ROLE_LEAF);
	assert_int_equal(r->systems[sys(r, "leaf2")].role, FAB_ROLE_LEAF);
	assert_int_equal(r->systems[sys(r, "spine1")].role, FAB_ROLE_SPINE);
	assert_int_equal(r->systems[sys(r, "spine2")].role, FAB_ROLE_SPINE);
	assert_false(r->systems[sys(r, "spine2")].collected);
	/* the stub's ports carry what it advertised, as heard */
	uint32_t sp = fab_roce_find_eth_port(r, sys(r, "spine2"), "swp2");
	assert_int_not_equal(sp, FAB_NONE);
	assert_true(r->eth_ports[sp].flags & FAB_ETH_F_STUB);
	assert_true(r->eth_ports[sp].adv.pfc.valid);
	assert_int_equal(r->eth_ports[sp].adv.pfc.enabled, 0x08);
	/* the newer host1 view won, with its NIC counters and module */
	uint32_t h1 = fab_roce_find_eth_port(r, sys(r, "host1"), "eth0");
	assert_int_equal(r->eth_ports[h1].mtu, 9000);
	assert_int_equal(r->n_nic_counters, 4);
	assert_int_equal(r->modules.n, 2);
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		const struct fab_eth_port *q = &r->eth_ports[i];
		bool host = r->systems[q->system_idx].role == FAB_ROLE_HOST;
		assert_int_equal(q->nic_count, host ? 2 : 0);
		for (uint32_t k = 0; k < q->nic_count; k++)
			assert_int_equal(r->nic_counters[q->nic_first + k].port_idx, i);
		uint32_t mi = fab_modules_find(&r->modules, (uint32_t)i);
		assert_int_equal(mi == FAB_NONE, !host);
	}
	const struct fab_eth_port *e1 = &r->eth_ports[h1];
	assert_int_equal(r->nic_counters[e1->nic_first].value, 200);
	assert_int_equal(r->nic_counters[e1->nic_first].prio, 3);
	assert_int_equal(r->nic_counters[e1->nic_first + 1].value, 1);
	const struct fab_module *m1 = &r->modules.mods[fab_modules_find(&r->modules, h1)];
	assert_string_equal(m1->serial, "SN1-200");
	assert_true(fab_module_lanes(&r->modules, m1)[0].rx_mw == 200.0);
	/* per link, both ends resolvable: host2's PFC 4 vs leaf2's PFC 3 */
	uint32_t h2 = fab_roce_find_eth_port(r, sys(r, "host2"), "eth0");
	assert_int_equal(r->eth_ports[h2].adv.pfc.enabled, 0x10);
	for (size_t i = 0; i < r->n_neighbors; i++) {
		const struct fab_lldp_neighbor *n = &r->neighbors[i];
		assert_int_not_equal(n->remote_port_idx, FAB_NONE);
		assert_int_equal(r->eth_ports[n->remote_port_idx].system_idx, n->remote_system_idx);
		if (n->port_idx == h2)
			assert_int_equal(n->dcbx.pfc.enabled, 0x08);
	}
}

static void test_merge_resolve(void **state)
{
	size_t dups;
	struct fab_roce *r = fabric(&dups);

	assert_int_equal(dups, 1);
	assert_int_equal(fab_roce_resolve(r), 0);
	check_fabric(r);
	/* resolving again rebuilds the same thing */
	assert_int_equal(fab_roce_resolve(r), 0);
	check_fabric(r);
	fab_roce_free(r);
}

/* Roles: an RDMA device makes a host even with Router set (ip_forward);
 * a switch two hops from the leaves is core; an island is unknown. */
static void test_roles(void **state)
{
	struct fab_roce *r = machine("h", "c:h", FAB_LLDP_CAP_ROUTER | ST, 1);
	uint32_t hp = add_port(r, "eth0", "00:00:00:00:00:01", 9000, NULL);

	fab_roce_add_device(r, 0)->name = "mlx5_0";
	hear(r, hp, "c:l", "l", "p1", "ifname", BR, NULL);
	struct fab_roce *m = machine("l", "c:l", BR, 1);
	uint32_t a = add_port(m, "p1", "00:00:00:00:00:02", 9000, NULL);
	uint32_t b = add_port(m, "p2", "00:00:00:00:00:03", 9000, NULL);
	hear(m, a, "c:h", "h", "00:00:00:00:00:01", "mac", ST, NULL);
	hear(m, b, "c:s", "s", "x1", "ifname", BR, NULL);
	fab_roce_merge(r, m, NULL, NULL);
	fab_roce_free(m);
	m = machine("s", "c:s", BR, 1);
	a = add_port(m, "x1", "00:00:00:00:00:04", 9000, NULL);
	b = add_port(m, "x2", "00:00:00:00:00:05", 9000, NULL);
	hear(m, a, "c:l", "l", "p2", "ifname", BR, NULL);
	hear(m, b, "c:c", "c", "y1", "ifname", BR, NULL);
	fab_roce_merge(r, m, NULL, NULL);
	fab_roce_free(m);
	m = machine("island", "c:i", BR, 1);
	fab_roce_merge(r, m, NULL, NULL);
	fab_roce_free(m);
	assert_int_equal(fab_roce_resolve(r), 0);
	assert_int_equal(r->systems[sys(r, "h")].role, FAB_ROLE_HOST);
	assert_int_equal(r->systems[sys(r, "l")].role, FAB_ROLE_LEAF);
	assert_int_equal(r->systems[sys(r, "s")].role, FAB_ROLE_SPINE);
	assert_int_equal(r->systems[sys(r, "c")].role, FAB_ROLE_CORE);
	assert_int_equal(r->systems[sys(r, "island")].role, FAB_ROLE_UNKNOWN);
	assert_int_equal(r->n_links, 3);
	fab_roce_free(r);
}

/* Through the store and back: every relation survives. */
static void owner_tlvs(const struct fab_roce *r, size_t i, uint32_t *first, uint32_t *count)
{
	bool port = i < r->n_eth_ports;
	size_t j = port ? i : i - r->n_eth_ports;

	*first = port ? r->eth_ports[j].tlv_first : r->neighbors[j].tlv_first;
	*count = port ? r->eth_ports[j].tlv_count : r->neighbors[j].tlv_count;
}

static bool same_tlv(const struct fab_lldp_tlv *x, const struct fab_lldp_tlv *y)
{
	return x->oui == y->oui && x->subtype == y->subtype && x->len == y->len &&
	       (!x->len || !memcmp(x->info, y->info, x->len));
}

static void test_store_roundtrip(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char db[256], side[300];
	size_t dups;
	struct fab_snapshot *snap = fab_snapshot_new(), *back = NULL;
	struct fab_store *st;

	snprintf(db, sizeof(db), "%s/test_roce_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	unlink(db);
	snap->roce = fabric(&dups);
	assert_int_equal(fab_roce_resolve(snap->roce), 0);
	struct fab_roce *r = snap->roce;
	/* an RDMA device with counters and a NIC with DCB on host2 */
	uint32_t h2 = sys(r, "host2");
	struct fab_rdma_device *d = fab_roce_add_device(r, h2);
	d->name = "mlx5_0";
	d->node_guid = 0x0002c90300a1b2c3ull;
	d->pci_address = "0000:3b:00.0";
	d->pcie_width = 8;
	d->pcie_max_width = 16;
	d->pcie_speed_gts = 8.0;
	d->pcie_max_speed_gts = 16.0;
	struct fab_rdma_port *rp = fab_roce_add_rdma_port(r, 0);
	rp->port_num = 1;
	rp->state = FAB_STATE_ACTIVE;
	rp->phys_state = FAB_PHYS_LINKUP;
	rp->rate = "100 Gb/sec (4X EDR)";
	rp->rate_gbps = 100;
	rp->link_layer = "Ethernet";
	rp->netdev = "eth0";
	fab_roce_add_counter(r, 0, FAB_RDMA_CTR_HW, "np_ecn_marked_roce_packets", 12345);
	fab_roce_add_counter(r, 0, FAB_RDMA_CTR_PORT, "port_xmit_wait", 4294967295ull);
	uint32_t e = fab_roce_find_eth_port(r, h2, "eth0");
	struct fab_app_entry apps[] = { { 3, FAB_APP_SEL_DSCP, 26 } };
	struct fab_eth_port *ep = &r->eth_ports[e];
	ep->dcb_status = FAB_DCB_OK;
	ep->dcbx_mode = 0x0a;
	ep->dcb.pfc = (struct fab_pfc){ .valid = true, .cap = 8, .enabled = 0x08 };
	ep->dcb.ets = (struct fab_ets){ .valid = true, .max_tcs = 8,
					.prio_tc = { 0, 0, 0, 3, 0, 0, 0, 0 },
					.tc_bw = { 50, 0, 0, 50, 0, 0, 0, 0 },
					.tsa = { 2, 0, 0, 2, 0, 0, 0, 255 } };
	fab_roce_add_apps(r, apps, 1, &r->eth_ports[e].dcb.app_first);
	r->eth_ports[e].dcb.app_count = 1;
	r->eth_ports[e].dcb.app_valid = true;
	/* ECN: both points on priority 3 only, CNPs on DSCP 48 but priority unknown */
	r->eth_ports[e].ecn = (struct fab_ecn){ .known = FAB_ECN_NP | FAB_ECN_RP | FAB_ECN_CNP_DSCP,
						.np_enabled = 0x08, .rp_enabled = 0x08,
						.cnp_dscp = 48, .cnp_prio = 5 };
	assert_int_equal(fab_roce_resolve(r), 0); /* maps the netdev */
	r = snap->roce; /* resolve rebuilt the arrays: old element pointers are stale */
	e = fab_roce_find_eth_port(r, sys(r, "host2"), "eth0");
	ep = &r->eth_ports[e];

	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, snap), 0);
	assert_int_equal(fab_store_load_scan(st, snap->scan_id, &back), 0);
	fab_store_close(st);

	/* the public relation: the bitmaps, NULL for what is unknown, trust */
	sqlite3 *sq;
	sqlite3_stmt *q;
	assert_int_equal(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(sq, "SELECT ecn_np_enabled || '|' || ecn_rp_enabled || '|' ||"
					    " cnp_dscp || '|' || ifnull(cnp_priority, '-') || '|' || trust,"
					    " (SELECT count(*) FROM eth_ports WHERE trust IS NOT NULL"
					    "  OR ecn_np_enabled IS NOT NULL)"
					    " FROM eth_ports WHERE system = 'host2' AND ifname = 'eth0'",
					    -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "8|8|48|-|dscp");
	assert_int_equal(sqlite3_column_int(q, 1), 1);
	sqlite3_finalize(q);
	sqlite3_close(sq);

	const struct fab_roce *b = back->roce;
	assert_non_null(b);
	check_fabric(b);
	assert_int_equal(b->n_eth_ports, r->n_eth_ports);
	assert_int_equal(b->n_neighbors, r->n_neighbors);
	/* every owner's TLVs come back byte for byte; owners that have the same
	 * ones share them (a set stored once, loaded once): the loaded model
	 * holds each distinct list once */
	size_t distinct = 0;
	for (size_t i = 0; i < r->n_eth_ports + r->n_neighbors; i++) {
		uint32_t xf, xn, yf, yn;
		owner_tlvs(r, i, &xf, &xn);
		owner_tlvs(b, i, &yf, &yn);
		assert_int_equal(xn, yn);
		for (uint32_t k = 0; k < xn; k++)
			assert_true(same_tlv(&r->tlvs[xf + k], &b->tlvs[yf + k]));
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++) {
			uint32_t f, n;
			owner_tlvs(b, j, &f, &n);
			seen = n == yn && (!n || f == yf);
		}
		distinct += seen ? 0 : yn;
	}
	assert_int_equal(b->n_tlvs, distinct);
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		const struct fab_eth_port *x = &r->eth_ports[i], *y = &b->eth_ports[i];
		assert_string_equal(x->ifname, y->ifname);
		assert_int_equal(x->system_idx, y->system_idx);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->mtu, y->mtu);
		assert_int_equal(x->adv.pfc.valid, y->adv.pfc.valid);
		assert_int_equal(x->adv.pfc.enabled, y->adv.pfc.enabled);
		assert_int_equal(x->adv.app_count, y->adv.app_count);
		assert_int_equal(x->dcb_status, y->dcb_status);
		assert_int_equal(x->rdma_port_idx, y->rdma_port_idx);
		if (i != e)
			assert_int_equal(y->ecn.known, 0); /* no ecn directory: unknown */
	}
	for (size_t i = 0; i < r->n_neighbors; i++) {
		assert_int_equal(r->neighbors[i].remote_port_idx, b->neighbors[i].remote_port_idx);
		assert_int_equal(r->neighbors[i].dcbx.pfc.enabled, b->neighbors[i].dcbx.pfc.enabled);
		assert_string_equal(r->neighbors[i].port_id, b->neighbors[i].port_id);
	}
	const struct fab_eth_port *be = &b->eth_ports[e];
	assert_int_equal(be->dcbx_mode, 0x0a);
	assert_true(be->dcb.pfc.valid);
	assert_int_equal(be->dcb.pfc.enabled, 0x08);
	assert_true(be->dcb.ets.valid);
	assert_memory_equal(be->dcb.ets.tsa, ep->dcb.ets.tsa, FAB_PRIOS);
	assert_memory_equal(be->dcb.ets.prio_tc, ep->dcb.ets.prio_tc, FAB_PRIOS);
	assert_int_equal(be->dcb.app_count, 1);
	assert_int_equal(b->apps[be->dcb.app_first].protocol, 26);
	assert_int_equal(be->ecn.known, FAB_ECN_NP | FAB_ECN_RP | FAB_ECN_CNP_DSCP);
	assert_int_equal(be->ecn.np_enabled, 0x08);
	assert_int_equal(be->ecn.rp_enabled, 0x08);
	assert_int_equal(be->ecn.cnp_dscp, 48);
	assert_int_equal(be->ecn.cnp_prio, 0); /* not known: not stored */
	assert_int_equal(fab_eth_port_trust(b, be), FAB_TRUST_DSCP);
	assert_int_equal(fab_eth_port_trust(b, &b->eth_ports[e ? 0 : 1]), FAB_TRUST_UNKNOWN);
	assert_int_equal(b->n_devices, 1);
	assert_int_equal(b->devices[0].node_guid, 0x0002c90300a1b2c3ull);
	assert_int_equal(b->devices[0].pcie_width, 8);
	assert_true(b->devices[0].pcie_max_speed_gts == 16.0);
	assert_int_equal(b->n_rdma_ports, 1);
	assert_int_equal(b->rdma_ports[0].eth_port_idx, e);
	assert_int_equal(b->n_counters, 2);
	assert_int_equal(b->counters[1].value, 4294967295ull);
	assert_string_equal(b->counters[0].name, "np_ecn_marked_roce_packets");

	/* a snapshot without a RoCE part loads without one */
	struct fab_snapshot *plain = fab_snapshot_new(), *pb = NULL;
	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, plain), 0);
	assert_int_equal(fab_store_load_scan(st, 0, &pb), 0);
	assert_null(pb->roce);
	fab_store_close(st);
	fab_snapshot_free(pb);
	fab_snapshot_free(plain);
	fab_snapshot_free(back);
	fab_snapshot_free(snap);
	unlink(db);
	snprintf(side, sizeof(side), "%s-wal", db);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", db);
	unlink(side);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_resolve),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_store_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
