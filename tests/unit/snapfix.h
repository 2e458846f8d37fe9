/* SPDX-License-Identifier: MIT */
/*
 * Small in-memory snapshots for unit tests: a 2-level fat tree of CAs,
 * leaves and spines with 36-port switches, all links 4X HDR and active,
 * with counters. The data of tests/fabfix/fabfix.h's builders.
 */
#pragma once

#include "fabfix/fabfix.h"

/* A node with ports 0..nports (switch) or 1..nports (CA); no role. */
static inline uint32_t snapfix_node(struct fab_snapshot *s, uint8_t type,
				    uint64_t guid, const char *desc,
				    unsigned nports)
{
	return fabfix_node(s, type, FAB_ROLE_UNKNOWN, guid, desc, nports);
}

/* Cables port pa of node a to port pb of node b, active at width/speed. */
static inline void snapfix_link(struct fab_snapshot *s, uint32_t a, unsigned pa,
				uint32_t b, unsigned pb, uint8_t width,
				uint16_t speed)
{
	fabfix_cable(s, a, pa, b, pb, width, speed);
}

/*
 * leaves x hosts_per_leaf hosts, every leaf cabled once to every spine
 * (hosts on leaf ports 1.., spines on 19..). GUIDs: spines 0x1000+i,
 * leaves 0x2000+i, hosts 0x3000+i*16. No roles. Each active port gets one
 * counter sample with all counters zero; the master SM is on the first host.
 */
static inline struct fab_snapshot *snapfix_fat_tree(unsigned spines,
						    unsigned leaves,
						    unsigned hosts_per_leaf)
{
	const struct fabfix_tree t = {
		.spines = spines, .leaves = leaves, .hosts_per_leaf = hosts_per_leaf,
		.spine_guid = 0x1000, .leaf_guid = 0x2000, .host_guid = 0x3000, .host_step = 16,
		.spine = { "spine", 3 }, .leaf = { "leaf", 3 }, .host = { "host", 4, " HCA-1" },
		.switch_ports = 36, .uplink = 19,
	};
	struct fab_snapshot *s = fabfix_fat_tree(&t);

	s->started_at_ms = 1764557635000;
	s->finished_at_ms = s->started_at_ms + 1500;
	s->host = fab_snapshot_strdup(s, "testhost", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "fixture", SIZE_MAX);
	for (size_t i = 0; i < s->n_ports; i++)
		if (fabfix_sampled(s, i))
			fabfix_sample(s, i, 0, s->started_at_ms + 500);
	fabfix_sm(s, fabfix_first_host(&t), 3, 15)->act_count = 1000;
	fab_snapshot_index(s);
	return s;
}
