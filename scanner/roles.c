// SPDX-License-Identifier: MIT
/*
 * Roles from the shape of the fabric, nothing else (no names, no config):
 *
 *   - a CA is a host, except an in-switch SHARP aggregation node (a CA
 *     whose NodeDescription ends in "Aggregation Node": NVIDIA Quantum
 *     switches expose one behind a virtual port of every switch), which is
 *     unknown: it is not a host and does not make its switch a leaf;
 *   - a switch with a link to a host is a leaf (distance 0);
 *   - other switches get their distance, over switch-to-switch links, to
 *     the nearest leaf: 1 = spine, 2 or more = core;
 *   - a switch with no path to any CA is unknown, and so are routers and
 *     nodes of unknown type.
 *
 * One multi-source breadth-first search over the links: linear in ports.
 * A switch that serves as leaf and spine at once (a CA cabled to a spine,
 * e.g. the SM's host) counts as a leaf: distance wins.
 */
#include <stdlib.h>
#include <string.h>

#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"

#define UNSEEN UINT32_MAX

static const struct fab_node *peer_node(const struct fab_snapshot *s,
					const struct fab_port *p)
{
	if (p->port_num == 0 || p->remote_idx == FAB_NONE ||
	    p->remote_idx >= s->n_ports)
		return NULL;
	uint32_t n = s->ports[p->remote_idx].node_idx;
	return n < s->n_nodes ? &s->nodes[n] : NULL;
}

static int is_aggregation_node(const struct fab_node *n)
{
	static const char tag[] = "Aggregation Node";
	size_t len = strlen(n->desc);

	while (len && n->desc[len - 1] == ' ')
		len--;
	return n->type == FAB_NODE_CA && len >= sizeof(tag) - 1 &&
	       !memcmp(n->desc + len - (sizeof(tag) - 1), tag, sizeof(tag) - 1);
}

void fab_topology_assign_roles(struct fab_snapshot *s)
{
	uint32_t *dist = NULL, *queue = NULL;
	size_t head = 0, tail = 0;

	for (size_t i = 0; i < s->n_nodes; i++)
		s->nodes[i].role = s->nodes[i].type == FAB_NODE_CA &&
						   !is_aggregation_node(&s->nodes[i])
					   ? FAB_ROLE_HOST
					   : FAB_ROLE_UNKNOWN;
	if (!s->n_nodes)
		return;
	dist = malloc(s->n_nodes * sizeof(*dist));
	queue = malloc(s->n_nodes * sizeof(*queue));
	if (!dist || !queue)
		goto out; /* roles stay host/unknown: harmless */
	for (size_t i = 0; i < s->n_nodes; i++)
		dist[i] = UNSEEN;

	/* Sources: switches one link away from a host. */
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		const struct fab_port *p = fab_node_ports(s, n);

		if (n->role != FAB_ROLE_HOST)
			continue;
		for (uint32_t k = 0; k < n->port_count; k++) {
			const struct fab_node *r = peer_node(s, &p[k]);
			if (!r || r->type != FAB_NODE_SWITCH)
				continue;
			uint32_t ri = (uint32_t)(r - s->nodes);
			if (dist[ri] == UNSEEN) {
				dist[ri] = 0;
				queue[tail++] = ri;
			}
		}
	}
	while (head < tail) {
		uint32_t ni = queue[head++];
		const struct fab_node *n = &s->nodes[ni];
		const struct fab_port *p = fab_node_ports(s, n);

		for (uint32_t k = 0; k < n->port_count; k++) {
			const struct fab_node *r = peer_node(s, &p[k]);
			if (!r || r->type != FAB_NODE_SWITCH)
				continue;
			uint32_t ri = (uint32_t)(r - s->nodes);
			if (dist[ri] == UNSEEN) {
				dist[ri] = dist[ni] + 1;
				queue[tail++] = ri;
			}
		}
	}
	for (size_t i = 0; i < s->n_nodes; i++) {
		struct fab_node *n = &s->nodes[i];

		if (n->type != FAB_NODE_SWITCH || dist[i] == UNSEEN)
			continue;
		n->role = dist[i] == 0 ? FAB_ROLE_LEAF
			: dist[i] == 1 ? FAB_ROLE_SPINE
				       : FAB_ROLE_CORE;
	}
out:
	free(dist);
	free(queue);
}
