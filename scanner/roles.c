// SPDX-License-Identifier: MIT
/*
 * Roles from the shape of the fabric, nothing else (no names, no config):
 *
 *   - a CA is a host, except a CA inside a switch (fab_node_in_switch(): the
 *     SHARP aggregation node NVIDIA Quantum switches expose behind a virtual
 *     port), which is unknown: it is not a host and does not make its switch
 *     a leaf;
 *   - a switch with a link to a host is a leaf (distance 0), except a hub
 *     among such switches: one cabled to two or more of them, and to more
 *     of them than each of those is (hosts cabled to a spine, e.g. the SM's
 *     host or management nodes, leave it a spine: its leaves are cabled to
 *     it and to other spines alike);
 *   - other switches get their distance, over switch-to-switch links, to
 *     the nearest leaf: 1 = spine, 2 or more = core;
 *   - a switch with no path to any CA is unknown, and so are routers and
 *     nodes of unknown type.
 *
 * One multi-source breadth-first search over the links: linear in ports.
 */
#include <stdlib.h>

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

/*
 * Among the n_src switches with a host (src[], dist 0), the hubs: a switch
 * cabled to two or more others with a host, and to more of them than each
 * of those is, loses its distance 0 (hosts cabled to a spine). Decided on
 * the counts before any change, so the order does not matter. Returns 0,
 * or -1 when out of memory (nothing changed).
 */
static int demote_hubs(const struct fab_snapshot *s, uint32_t *dist, const uint32_t *src,
		       size_t n_src)
{
	uint32_t *hd = calloc(s->n_nodes, sizeof(*hd)); /* hosted switches cabled to it */
	uint32_t *seen = malloc(s->n_nodes * sizeof(*seen)); /* last switch that counted it */
	uint8_t *hub = calloc(s->n_nodes, 1);

	if (!hd || !seen || !hub) {
		free(hd);
		free(seen);
		free(hub);
		return -1;
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		seen[i] = UNSEEN;
	for (size_t k = 0; k < n_src; k++) {
		uint32_t ni = src[k];
		const struct fab_node *n = &s->nodes[ni];
		const struct fab_port *p = fab_node_ports(s, n);

		for (uint32_t q = 0; q < n->port_count; q++) {
			const struct fab_node *r = peer_node(s, &p[q]);
			uint32_t ri = r ? (uint32_t)(r - s->nodes) : UNSEEN;
			if (!r || ri == ni || dist[ri] != 0 || seen[ri] == ni)
				continue;
			seen[ri] = ni;
			hd[ni]++;
		}
	}
	for (size_t k = 0; k < n_src; k++) {
		uint32_t ni = src[k];
		const struct fab_node *n = &s->nodes[ni];
		const struct fab_port *p = fab_node_ports(s, n);
		bool above_all = hd[ni] >= 2;

		for (uint32_t q = 0; q < n->port_count && above_all; q++) {
			const struct fab_node *r = peer_node(s, &p[q]);
			uint32_t ri = r ? (uint32_t)(r - s->nodes) : UNSEEN;
			if (r && ri != ni && dist[ri] == 0 && hd[ri] >= hd[ni])
				above_all = false;
		}
		hub[ni] = above_all;
	}
	for (size_t k = 0; k < n_src; k++)
		if (hub[src[k]])
			dist[src[k]] = UNSEEN;
	free(hd);
	free(seen);
	free(hub);
	return 0;
}

void fab_topology_assign_roles(struct fab_snapshot *s)
{
	uint32_t *dist = NULL, *queue = NULL;
	size_t head = 0, tail = 0;

	for (size_t i = 0; i < s->n_nodes; i++)
		s->nodes[i].role = s->nodes[i].type == FAB_NODE_CA &&
						   !fab_node_in_switch(s, (uint32_t)i)
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
	if (demote_hubs(s, dist, queue, tail) < 0)
		goto out;
	/* the sources left: the queue again */
	tail = 0;
	for (size_t i = 0; i < s->n_nodes; i++)
		if (dist[i] == 0)
			queue[tail++] = (uint32_t)i;
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
