// SPDX-License-Identifier: MIT
/*
 * merge --into as a delta on its keyframe (core/roce_delta.c): which systems
 * a merge writes, which of the base's it hides, and the stored indices its
 * elements keep. A small fleet, three hosts of two ports each cabled to two
 * leaves that are stubs (known from what the hosts hear); each case merges
 * one changed view into it, as merge --into does, and compares the plan
 * with what changed by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/roce.h"
#include "fabsweep/roce_delta.h"
#include "fabsweep/snapshot.h"

static const uint8_t PFC3[] = { 0x08, 0x08 }, PFC4[] = { 0x08, 0x10 };

/* host<h>'s view: eth0 hears leafA's swp<h>, eth1 leafB's swp<h>; pfc: what
 * eth0 hears (NULL: PFC on 3); extra: an eth2 that hears leafB's swp9 */
static struct fab_roce *host(int h, int64_t when, const uint8_t *pfc, bool extra)
{
	struct fab_roce *r = fab_roce_new();
	struct fab_roce_system *s = fab_roce_add_system(r);
	char buf[64];

	snprintf(buf, sizeof(buf), "host%d", h);
	s->name = fab_roce_strdup(r, buf);
	snprintf(buf, sizeof(buf), "0a:00:00:00:00:%02x", h);
	s->chassis_id = fab_roce_strdup(r, buf);
	s->chassis_id_subtype = "mac";
	s->has_caps = true;
	s->cap_available = s->cap_enabled = FAB_LLDP_CAP_STATION;
	s->collected = s->lldp = true;
	s->collected_at_ms = when;
	for (int k = 0; k < 2 + extra; k++) {
		struct fab_eth_port *p = fab_roce_add_eth_port(r, 0);
		uint32_t pi = (uint32_t)r->n_eth_ports - 1;
		snprintf(buf, sizeof(buf), "eth%d", k);
		p->ifname = fab_roce_strdup(r, buf);
		snprintf(buf, sizeof(buf), "0a:00:00:%02x:00:%02x", h, k);
		p->mac = p->port_id = fab_roce_strdup(r, buf);
		p->port_id_subtype = "mac";
		p->flags = FAB_ETH_F_SYSFS | FAB_ETH_F_LLDP;
		p->mtu = 9000;
		struct fab_lldp_neighbor *n = fab_roce_add_neighbor(r, pi);
		uint32_t ni = (uint32_t)r->n_neighbors - 1;
		char leaf = k == 0 ? 'A' : 'B';
		snprintf(buf, sizeof(buf), "0e:00:00:00:00:0%c", leaf);
		n->chassis_id = fab_roce_strdup(r, buf);
		n->chassis_id_subtype = "mac";
		snprintf(buf, sizeof(buf), "leaf%c", leaf);
		n->system_name = fab_roce_strdup(r, buf);
		snprintf(buf, sizeof(buf), "swp%d", k == 2 ? 9 : h);
		n->port_id = fab_roce_strdup(r, buf);
		n->port_id_subtype = "ifname";
		n->has_caps = true;
		n->cap_available = n->cap_enabled = FAB_LLDP_CAP_BRIDGE;
		n->tlv_first = (uint32_t)r->n_tlvs;
		fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_PFC, k == 0 && pfc ? pfc : PFC3, 2);
		r->neighbors[ni].tlv_count = 1;
		struct fab_dcbx d;
		fab_roce_decode_tlvs(r, r->neighbors[ni].tlv_first, 1, &d);
		r->neighbors[ni].dcbx = d;
	}
	return r;
}

/* leafA collected at last: its swp1..3 (it hears nothing itself) */
static struct fab_roce *leaf_a(int64_t when)
{
	struct fab_roce *r = fab_roce_new();
	struct fab_roce_system *s = fab_roce_add_system(r);
	char buf[64];

	s->name = "leafA";
	s->chassis_id = "0e:00:00:00:00:0A";
	s->chassis_id_subtype = "mac";
	s->has_caps = true;
	s->cap_available = s->cap_enabled = FAB_LLDP_CAP_BRIDGE;
	s->collected = s->lldp = true;
	s->collected_at_ms = when;
	for (int h = 1; h <= 3; h++) {
		struct fab_eth_port *p = fab_roce_add_eth_port(r, 0);
		snprintf(buf, sizeof(buf), "swp%d", h);
		p->ifname = p->port_id = fab_roce_strdup(r, buf);
		p->port_id_subtype = "ifname";
		p->flags = FAB_ETH_F_SYSFS | FAB_ETH_F_LLDP;
	}
	return r;
}

/* The base: hosts 1..3 merged and resolved, then marked. */
static struct fab_roce *base(struct fab_roce_mark **mark)
{
	struct fab_roce *r = fab_roce_new();

	for (int h = 1; h <= 3; h++) {
		struct fab_roce *v = host(h, 100, NULL, false);
		assert_int_equal(fab_roce_merge(r, v, NULL, NULL), 0);
		fab_roce_free(v);
	}
	assert_int_equal(fab_roce_resolve(r), 0);
	assert_int_equal(r->n_systems, 5); /* 3 hosts, 2 stub leaves */
	assert_int_equal(fab_roce_mark_base(r, NULL, NULL, mark), 0);
	return r;
}

static uint32_t find(const struct fab_roce *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_systems; i++)
		if (!strcmp(r->systems[i].name, name))
			return i;
	fail_msg("no system %s", name);
	return FAB_NONE;
}

/* The plan after v (NULL: nothing) is merged into the base and resolved
 * again; *out the merged model. */
static struct fab_roce_delta *plan(struct fab_roce **out, struct fab_roce *v, double share)
{
	struct fab_roce_mark *m;
	struct fab_roce *r = base(&m);
	struct fab_roce_delta *d = NULL;

	if (v) {
		assert_int_equal(fab_roce_merge(r, v, NULL, NULL), 0);
		fab_roce_free(v);
	}
	assert_int_equal(fab_roce_resolve(r), 0);
	assert_int_equal(fab_roce_delta_plan(r, m, share, &d), 0);
	fab_roce_mark_free(m);
	*out = r;
	return d;
}

/* The names of the systems written, sorted, and of the base's hidden ones
 * by their stored index (the base's positions: host1..3, leafA, leafB). */
static void expect(const struct fab_roce *r, const struct fab_roce_delta *d, const char *written,
		   const char *hidden)
{
	static const char *const base_names[] = { "host1", "host2", "host3", "leafA", "leafB" };
	char got[256] = "", hid[256] = "";

	assert_non_null(d);
	for (size_t i = 0; i < r->n_systems; i++)
		if (d->write[i] && strlen(got) < 200)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", *got ? " " : "",
				 r->systems[i].name);
	for (size_t k = 0; k < d->n_hidden; k++)
		snprintf(hid + strlen(hid), sizeof(hid) - strlen(hid), "%s%s", *hid ? " " : "",
			 d->hidden[k] < 5 ? base_names[d->hidden[k]] : "?");
	assert_string_equal(got, written);
	assert_string_equal(hid, hidden);
}

/* Nothing merged: nothing written, nothing hidden; every index kept. */
static void test_nothing(void **state)
{
	struct fab_roce *r;
	struct fab_roce_delta *d = plan(&r, NULL, 0.25);

	(void)state;
	assert_non_null(d);
	expect(r, d, "", "");
	for (uint32_t i = 0; i < r->n_eth_ports; i++)
		assert_int_equal(d->port[i], i);
	fab_roce_delta_free(d);
	fab_roce_free(r);
}

/* host2 collected again, the same: written (its rows say when), its base
 * copy hidden, its ports, records and the leaves' ports keep their indices. */
static void test_reread(void **state)
{
	struct fab_roce *r;
	struct fab_roce_delta *d = plan(&r, host(2, 200, NULL, false), 0.25);

	(void)state;
	assert_non_null(d);
	expect(r, d, "host2", "host2");
	uint32_t h2 = find(r, "host2");
	assert_int_equal(d->sys[h2], 1);
	for (uint32_t i = 0; i < r->n_eth_ports; i++)
		if (r->eth_ports[i].system_idx == h2)
			assert_true(d->port[i] == 2 || d->port[i] == 3); /* host2's eth0, eth1 */
	for (uint32_t i = 0; i < r->n_neighbors; i++)
		if (r->eth_ports[r->neighbors[i].port_idx].system_idx == h2)
			assert_true(d->nb[i] == 2 || d->nb[i] == 3);
	fab_roce_delta_free(d);
	fab_roce_free(r);
}

/* host2 now hears PFC on 4 from leafA: leafA's stub port is what host2
 * heard, so leafA is written too; leafB is not. */
static void test_stub_content(void **state)
{
	struct fab_roce *r;
	struct fab_roce_delta *d = plan(&r, host(2, 200, PFC4, false), 1.0);

	(void)state;
	expect(r, d, "host2 leafA", "host2 leafA");
	fab_roce_delta_free(d);
	fab_roce_free(r);
}

/* host3 with a third port on leafB's swp9: leafB has a port more (written,
 * the new port after the base's largest index), leafA not. */
static void test_shape(void **state)
{
	struct fab_roce *r;
	struct fab_roce_delta *d = plan(&r, host(3, 200, NULL, true), 1.0);

	(void)state;
	expect(r, d, "host3 leafB", "host3 leafB");
	uint32_t lb = find(r, "leafB"), fresh = 0;
	for (uint32_t i = 0; i < r->n_eth_ports; i++)
		if (r->eth_ports[i].system_idx == lb && !strcmp(r->eth_ports[i].ifname, "swp9"))
			fresh = d->port[i];
	assert_int_equal(fresh, 12 + 1); /* base: 6 host ports, 6 stub ports; host3's eth2 is 12 */
	fab_roce_delta_free(d);
	fab_roce_free(r);
}

/* leafA collected at last: the hosts' records now resolve to it (not read
 * again, they derive something else: written), the stub leafA hidden. */
static void test_derived(void **state)
{
	struct fab_roce *r;
	struct fab_roce_delta *d = plan(&r, leaf_a(200), 0.25);

	(void)state;
	assert_null(d); /* 4 of 5 written: more than a quarter */
	fab_roce_free(r);
	d = plan(&r, leaf_a(200), 1.0);
	assert_non_null(d);
	expect(r, d, "host1 host2 host3 leafA", "host1 host2 host3 leafA");
	uint32_t la = find(r, "leafA");
	assert_true(r->systems[la].collected);
	assert_int_equal(d->sys[la], 5); /* a new system: after the base's */
	fab_roce_delta_free(d);
	fab_roce_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_reread),
		cmocka_unit_test(test_stub_content),
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_derived),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
