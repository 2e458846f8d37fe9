// SPDX-License-Identifier: MIT
/*
 * Channel adapters that are part of a switch, not hosts: the SHARP
 * aggregation node an NVIDIA Quantum (and Switch-IB 2, Quantum-2) switch
 * exposes behind a virtual port. The one answer to "is this CA inside a
 * switch", used by role assignment (scanner/roles.c: not a host, does not
 * make its switch a leaf) and by the rules (nodedesc.duplicate: the shared
 * description is the vendor's, by design).
 */
#include <string.h>

#include "fabsweep/snapshot.h"

/* The description ends in "Aggregation Node" (trailing blanks aside):
 * "Mellanox Technologies Aggregation Node" on every Quantum switch. */
static bool aggregation_desc(const char *desc)
{
	static const char tag[] = "Aggregation Node";
	size_t len = strlen(desc);

	while (len && desc[len - 1] == ' ')
		len--;
	return len >= sizeof(tag) - 1 &&
	       !memcmp(desc + len - (sizeof(tag) - 1), tag, sizeof(tag) - 1);
}

/* Every cabled port leads to a switch of the same system (SystemImageGUID):
 * the CA sits in that switch's chassis. */
static bool same_system_as_its_switch(const struct fab_snapshot *s, const struct fab_node *n)
{
	const struct fab_port *p = fab_node_ports(s, n);
	bool any = false;

	if (!n->sys_guid)
		return false;
	for (uint32_t k = 0; k < n->port_count; k++) {
		if (p[k].remote_idx == FAB_NONE || p[k].remote_idx >= s->n_ports)
			continue;
		uint32_t r = s->ports[p[k].remote_idx].node_idx;
		if (r >= s->n_nodes || s->nodes[r].type != FAB_NODE_SWITCH ||
		    s->nodes[r].sys_guid != n->sys_guid)
			return false;
		any = true;
	}
	return any;
}

bool fab_node_in_switch(const struct fab_snapshot *s, uint32_t node)
{
	const struct fab_node *n;

	if (node >= s->n_nodes)
		return false;
	n = &s->nodes[node];
	return n->type == FAB_NODE_CA &&
	       (aggregation_desc(n->desc) || same_system_as_its_switch(s, n));
}
