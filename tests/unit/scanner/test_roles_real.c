// SPDX-License-Identifier: MIT
/* Roles on real fabrics: NVIDIA Selene's compute fabric, whose Quantum
 * switches each expose a SHARP aggregation node (a CA) on a virtual port. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/topo.h"

static void count_roles(const struct fab_snapshot *s, size_t out[FAB_ROLE__COUNT])
{
	memset(out, 0, sizeof(size_t) * FAB_ROLE__COUNT);
	for (size_t i = 0; i < s->n_nodes; i++)
		out[s->nodes[i].role]++;
}

static void test_selene_roles(void **state)
{
	char path[512];
	struct fab_snapshot *s = fab_snapshot_new();
	size_t roles[FAB_ROLE__COUNT], an = 0, an_hosts = 0, leaf_with_host = 0;

	snprintf(path, sizeof(path), "%s/real/ibnetdiscover/selene.compute.txt",
		 getenv("FIXTURES"));
	assert_int_equal(fab_topo_import_file(path, s), 0);
	fab_topology_assign_roles(s);
	count_roles(s, roles);
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		if (n->type == FAB_NODE_CA && strstr(n->desc, "Aggregation Node")) {
			an++;
			an_hosts += n->role == FAB_ROLE_HOST;
		}
	}
	/* Every one of the 666 switches carries an aggregation node; none is a host. */
	assert_int_equal(an, 666);
	assert_int_equal(an_hosts, 0);
	assert_int_equal(roles[FAB_ROLE_HOST], 4341 - 666);
	/* Every leaf really has a host behind it; spines and cores exist. */
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		const struct fab_port *p = fab_node_ports(s, n);
		int has_host = 0;

		if (n->role != FAB_ROLE_LEAF)
			continue;
		for (uint32_t k = 0; k < n->port_count; k++)
			if (p[k].remote_idx != FAB_NONE &&
			    s->nodes[s->ports[p[k].remote_idx].node_idx].role == FAB_ROLE_HOST)
				has_host = 1;
		leaf_with_host += has_host;
	}
	assert_int_equal(leaf_with_host, roles[FAB_ROLE_LEAF]);
	assert_true(roles[FAB_ROLE_LEAF] > 0 && roles[FAB_ROLE_LEAF] < 666);
	assert_true(roles[FAB_ROLE_SPINE] > 0);
	print_message("selene: %zu leaves, %zu spines, %zu cores, %zu hosts, %zu unknown\n",
		      roles[FAB_ROLE_LEAF], roles[FAB_ROLE_SPINE], roles[FAB_ROLE_CORE],
		      roles[FAB_ROLE_HOST], roles[FAB_ROLE_UNKNOWN]);
	assert_int_equal(roles[FAB_ROLE_LEAF] + roles[FAB_ROLE_SPINE] + roles[FAB_ROLE_CORE] +
				 roles[FAB_ROLE_UNKNOWN] - an, 666);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selene_roles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
