// SPDX-License-Identifier: MIT
/* The sysfs reader on trees copied from real machines (fixtures/sysfs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"

struct ctx {
	struct fab_snapshot *snap;
	struct fab_roce *r;
};

static struct ctx collect(const char *tree)
{
	const char *dir = getenv("FIXTURES");
	char root[512];
	struct ctx c;

	snprintf(root, sizeof(root), "%s/sysfs/%s", dir ? dir : "fixtures", tree);
	c.snap = fab_snapshot_new();
	c.r = fab_snapshot_roce(c.snap);
	struct fab_roce_system *s = fab_roce_add_system(c.r);
	s->name = "node1";
	s->collected = true;
	assert_int_equal(fab_roce_collect_sysfs(c.r, c.snap, 0, root), 0);
	assert_int_equal(fab_roce_resolve(c.r), 0);
	return c;
}

static const struct fab_eth_port *port(const struct fab_roce *r, const char *ifname)
{
	uint32_t i = fab_roce_find_eth_port(r, 0, ifname);

	assert_int_not_equal(i, FAB_NONE);
	return &r->eth_ports[i];
}

static const struct fab_rdma_device *device(const struct fab_roce *r, const char *name)
{
	for (size_t i = 0; i < r->n_devices; i++)
		if (!strcmp(r->devices[i].name, name))
			return &r->devices[i];
	fail_msg("no device %s", name);
	return NULL;
}

static const struct fab_rdma_counter *counter(const struct fab_roce *r,
					      const struct fab_rdma_port *p,
					      const char *name)
{
	for (uint32_t i = 0; i < p->ctr_count; i++)
		if (!strcmp(r->counters[p->ctr_first + i].name, name))
			return &r->counters[p->ctr_first + i];
	return NULL;
}

/* H100 node: 8x CX-7 InfiniBand (one kept) + a BlueField-3 RoCE LAG. */
static void test_h100_roce(void **state)
{
	struct ctx c = collect("h100_roce");
	const struct fab_roce *r = c.r;

	assert_int_equal(c.snap->n_errors, 0);
	/* IPoIB (type 32) is not an Ethernet port */
	assert_int_equal(r->n_eth_ports, 3);
	assert_int_equal(fab_roce_find_eth_port(r, 0, "ibp26s0"), FAB_NONE);
	const struct fab_eth_port *bond = port(r, "bond0");
	assert_string_equal(bond->mac, "a0:88:c2:0d:4e:10");
	assert_int_equal(bond->mtu, 9000);
	assert_int_equal(bond->speed_mbps, 400000);
	assert_string_equal(bond->state, "up");
	assert_true(bond->flags & FAB_ETH_F_SYSFS);
	assert_int_equal(port(r, "enp154s0f1np1")->speed_mbps, 200000);

	assert_int_equal(r->n_devices, 2);
	const struct fab_rdma_device *ib = device(r, "mlx5_0");
	assert_int_equal(ib->node_guid, 0xb83fd20300a1b2c3ull);
	assert_string_equal(ib->fw_ver, "28.41.1000");
	assert_string_equal(ib->pci_address, "0000:1a:00.0"); /* from uevent */
	assert_int_equal(ib->pcie_width, 16);
	assert_true(ib->pcie_speed_gts == 32.0);
	assert_int_equal(ib->port_count, 1);
	const struct fab_rdma_port *ibp = &r->rdma_ports[ib->port_first];
	assert_string_equal(ibp->link_layer, "InfiniBand");
	assert_int_equal(ibp->state, FAB_STATE_ACTIVE);
	assert_int_equal(ibp->phys_state, FAB_PHYS_LINKUP);
	assert_true(ibp->rate_gbps == 400.0);
	assert_null(ibp->netdev);

	const struct fab_rdma_device *bf = device(r, "mlx5_bond_0");
	assert_string_equal(bf->hca_type, "MT41692");
	assert_string_equal(bf->fw_ver, "32.38.3056");
	assert_string_equal(bf->pci_address, "0000:9a:00.0"); /* from the symlink */
	assert_int_equal(bf->pcie_width, 8); /* trained x8 ... */
	assert_int_equal(bf->pcie_max_width, 16); /* ... of x16 */
	assert_true(bf->pcie_speed_gts == 16.0);
	assert_true(bf->pcie_max_speed_gts == 32.0);
	const struct fab_rdma_port *rp = &r->rdma_ports[bf->port_first];
	assert_string_equal(rp->link_layer, "Ethernet");
	assert_string_equal(rp->rate, "200 Gb/sec (2X NDR)");
	assert_true(rp->rate_gbps == 200.0);
	/* the GID table names the bond, not a slave */
	assert_string_equal(rp->netdev, "bond0");
	assert_int_equal(rp->eth_port_idx, fab_roce_find_eth_port(r, 0, "bond0"));
	assert_int_equal(bond->rdma_port_idx, (uint32_t)(rp - r->rdma_ports));
	/* the bond's ports (their "master" link) carry its RoCE traffic */
	assert_null(bond->master);
	assert_string_equal(port(r, "enp154s0f0np0")->master, "bond0");
	assert_string_equal(port(r, "enp154s0f1np1")->master, "bond0");
	for (const char *const *n = (const char *const[]){ "bond0", "enp154s0f0np0", "enp154s0f1np1", NULL }; *n; n++)
		assert_true(fab_roce_is_roce_iface(r, fab_roce_find_eth_port(r, 0, *n)));
	/* counters and hw_counters, long form */
	assert_int_equal(rp->ctr_count, 21 + 28);
	const struct fab_rdma_counter *k = counter(r, rp, "np_ecn_marked_roce_packets");
	assert_non_null(k);
	assert_int_equal(fab_rdma_counter_kind(k), FAB_RDMA_CTR_HW);
	assert_int_equal(k->value, 48213);
	assert_int_equal(counter(r, rp, "rp_cnp_handled")->value, 1877);
	assert_int_equal(counter(r, rp, "out_of_sequence")->value, 0);
	assert_non_null(counter(r, rp, "packet_seq_err"));
	assert_non_null(counter(r, rp, "local_ack_timeout_err"));
	k = counter(r, rp, "port_rcv_errors");
	assert_int_equal(fab_rdma_counter_kind(k), FAB_RDMA_CTR_PORT);
	assert_int_equal(k->value, 14);
	assert_int_equal(counter(r, rp, "port_xmit_wait")->value, 2489603687ull);
	/* a system with RDMA devices is a host */
	assert_int_equal(r->systems[0].role, FAB_ROLE_HOST);
	fab_snapshot_free(c.snap);
}

/* prometheus/procfs fixture: whitespace, no node_guid newline, odd states. */
static void test_procfs(void **state)
{
	struct ctx c = collect("procfs");
	const struct fab_roce *r = c.r;

	assert_int_equal(c.snap->n_errors, 0);
	assert_int_equal(r->n_devices, 3);
	const struct fab_rdma_device *m5 = device(r, "mlx5_0");
	assert_int_equal(m5->node_guid, 0x0a7fbc1245efd23bull);
	assert_null(m5->pci_address);
	assert_int_equal(m5->pcie_width, 0);
	const struct fab_rdma_port *p = &r->rdma_ports[m5->port_first];
	assert_true(p->rate_gbps == 25.0);
	assert_int_equal(p->phys_state, 4); /* "4: ACTIVE" as the fixture says */
	assert_int_equal(counter(r, p, "local_ack_timeout_err")->value, 131);
	assert_int_equal(counter(r, p, "out_of_sequence")->value, 1);
	assert_int_equal(counter(r, p, "packet_seq_err")->value, 1);
	assert_int_equal(counter(r, p, "port_xmit_data")->value, 2880761508848ull);
	const struct fab_rdma_device *m4 = device(r, "mlx4_0");
	assert_int_equal(m4->port_count, 2);
	/* "InfiniBand\n\n" trimmed; ports in numeric order */
	assert_string_equal(r->rdma_ports[m4->port_first + 1].link_layer, "InfiniBand");
	assert_int_equal(r->rdma_ports[m4->port_first + 1].port_num, 2);
	assert_null(device(r, "hfi1_0")->hca_type);
	assert_int_equal(r->n_eth_ports, 1);
	const struct fab_eth_port *e = port(r, "eth0");
	assert_int_equal(e->mtu, 1500);
	assert_int_equal(e->speed_mbps, 1000);
	assert_string_equal(e->mac, "01:01:01:01:01:01");
	/* ecn/roce_np/enable: on for 0,1,3,4,6,7; roce_rp/enable: 0,1,3,4,6 */
	assert_int_equal(e->ecn.known,
			 FAB_ECN_NP | FAB_ECN_RP | FAB_ECN_CNP_DSCP | FAB_ECN_CNP_PRIO);
	assert_int_equal(e->ecn.np_enabled, 0xdb);
	assert_int_equal(e->ecn.rp_enabled, 0x5b);
	assert_int_equal(e->ecn.cnp_dscp, 48);
	assert_int_equal(e->ecn.cnp_prio, 6);
	fab_snapshot_free(c.snap);
}

/* node_exporter fixture: counters_ext, a saturated counter, bonding files. */
static void test_node_exporter(void **state)
{
	struct ctx c = collect("node_exporter");
	const struct fab_roce *r = c.r;

	assert_int_equal(c.snap->n_errors, 0);
	/* bonding_masters is a file, not an interface; eth0 is a symlink */
	assert_int_equal(r->n_eth_ports, 4);
	assert_int_equal(port(r, "eth0")->mtu, 1500);
	assert_int_equal(port(r, "bond0")->speed_mbps, -1); /* "-1": unknown */
	/* no ecn directory: unknown, not off */
	assert_int_equal(port(r, "bond0")->ecn.known, 0);
	assert_int_equal(port(r, "eth0")->ecn.known, 0);
	const struct fab_rdma_device *m4 = device(r, "mlx4_0");
	const struct fab_rdma_port *p = &r->rdma_ports[m4->port_first];
	const struct fab_rdma_counter *k = counter(r, p, "port_xmit_wait");
	assert_int_equal(k->value, 4294967295ull);
	k = counter(r, p, "port_rcv_data_64");
	assert_non_null(k);
	assert_int_equal(fab_rdma_counter_kind(k), FAB_RDMA_CTR_EXT);
	assert_true(fab_roce_have_ib_devices(NULL) == fab_roce_have_ib_devices("/sys"));
	fab_snapshot_free(c.snap);
}

static void test_have_ib(void **state)
{
	const char *dir = getenv("FIXTURES");
	char root[512];

	snprintf(root, sizeof(root), "%s/sysfs/h100_roce", dir ? dir : "fixtures");
	assert_true(fab_roce_have_ib_devices(root));
	snprintf(root, sizeof(root), "%s/sysfs/nowhere", dir ? dir : "fixtures");
	assert_false(fab_roce_have_ib_devices(root));
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[768], cmd[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ECN all off is known and off; a point with a missing priority file, or
 * a CNP DSCP out of range, is unknown. */
static void test_ecn_partial(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char root[512], rel[128], cmd[600];

	snprintf(root, sizeof(root), "%s/test_sysfs_ecn_%d", tmp ? tmp : "/tmp", (int)getpid());
	put(root, "class/net/eth9/type", "1\n");
	put(root, "class/net/eth9/mtu", "9000\n");
	for (unsigned k = 0; k < 8; k++) {
		snprintf(rel, sizeof(rel), "class/net/eth9/ecn/roce_np/enable/%u", k);
		put(root, rel, "0\n");
		snprintf(rel, sizeof(rel), "class/net/eth9/ecn/roce_rp/enable/%u", k);
		if (k != 5)
			put(root, rel, "1\n");
	}
	put(root, "class/net/eth9/ecn/roce_np/cnp_dscp", "64\n");
	put(root, "class/net/eth9/ecn/roce_np/cnp_802p_prio", "7\n");

	struct fab_snapshot *snap = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(snap);
	fab_roce_add_system(r)->name = "node1";
	assert_int_equal(fab_roce_collect_sysfs(r, snap, 0, root), 0);
	assert_int_equal(snap->n_errors, 0);
	const struct fab_eth_port *e = port(r, "eth9");
	assert_int_equal(e->ecn.known, FAB_ECN_NP | FAB_ECN_CNP_PRIO);
	assert_int_equal(e->ecn.np_enabled, 0);
	assert_int_equal(e->ecn.cnp_prio, 7);
	fab_snapshot_free(snap);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* A missing tree is nothing, not an error. */
static void test_missing_root(void **state)
{
	struct ctx c = collect("nowhere");

	assert_int_equal(c.r->n_eth_ports, 0);
	assert_int_equal(c.r->n_devices, 0);
	assert_int_equal(c.snap->n_errors, 0);
	fab_snapshot_free(c.snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h100_roce),   cmocka_unit_test(test_procfs),
		cmocka_unit_test(test_node_exporter), cmocka_unit_test(test_have_ib),
		cmocka_unit_test(test_missing_root), cmocka_unit_test(test_ecn_partial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
