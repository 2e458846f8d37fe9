// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ibnetdiscover importer: arbitrary bytes in,
 * either an error or a snapshot whose indexes are consistent. Build and run:
 * fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fabsweep/snapshot.h"
#include "fabsweep/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What every imported snapshot must satisfy; abort() shows as a crash. */
static void check(const struct fab_snapshot *s)
{
	size_t ports = 0;

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];

		if (n->port_first != ports || n->port_count > s->n_ports - ports)
			abort();
		ports += n->port_count;
		for (uint32_t k = 0; k < n->port_count; k++) {
			const struct fab_port *p = &s->ports[n->port_first + k];

			if (p->node_idx != i ||
			    (k && p->port_num <= p[-1].port_num) ||
			    p->port_num > n->num_ports)
				abort();
		}
	}
	if (ports != s->n_ports)
		abort();
	for (size_t i = 0; i < s->n_ports; i++) {
		uint32_t r = s->ports[i].remote_idx;

		if (r != FAB_NONE &&
		    (r >= s->n_ports || s->ports[r].remote_idx != i))
			abort();
	}
	for (size_t i = 0; i < s->n_links; i++)
		if (s->links[i].a >= s->n_ports || s->links[i].b >= s->n_ports ||
		    s->ports[s->links[i].a].remote_idx != s->links[i].b)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_snapshot *s = fab_snapshot_new();

	if (!s)
		return 0;
	if (fab_topo_import((const char *)data, size, "fuzz", s) == 0)
		check(s);
	fab_snapshot_free(s);
	return 0;
}
