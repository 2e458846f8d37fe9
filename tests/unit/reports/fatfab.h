/* SPDX-License-Identifier: MIT */
/*
 * Fat trees of any size for report tests and the report benchmark
 * (bench/bench_report.c): `spines` spines, `leaves` leaves, `hpl` hosts per
 * leaf, every leaf cabled once to every spine, all links 4X HDR. Unlike
 * snapfix.h it has no size limit below the 254 ports of a switch, sets roles
 * (unless roles is false), and gives every active port a counter sample
 * with traffic. The data of tests/fabfix/fabfix.h's builders. GUIDs: spines
 * 0x0002c90300100000+i, leaves ...200000+i, hosts ...300000+2h.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "fabfix/fabfix.h"

/* A node, and a 4X HDR cable, as fabfix makes them. */
static inline uint32_t fatfab_node(struct fab_snapshot *s, uint8_t type, uint64_t guid,
				   const char *desc, unsigned nports)
{
	return fabfix_node(s, type, FAB_ROLE_UNKNOWN, guid, desc, nports);
}

static inline void fatfab_cable(struct fab_snapshot *s, uint32_t a, unsigned pa, uint32_t b,
				unsigned pb)
{
	fabfix_cable(s, a, pa, b, pb, FAB_WIDTH_4X, FAB_SPEED_HDR);
}

/* The fat tree fatfab_build() makes. */
static inline struct fabfix_tree fatfab_tree(unsigned spines, unsigned leaves, unsigned hpl,
					     bool roles)
{
	return (struct fabfix_tree){
		.spines = spines, .leaves = leaves, .hosts_per_leaf = hpl,
		.spine_guid = 0x0002c90300100000ull, .leaf_guid = 0x0002c90300200000ull,
		.host_guid = 0x0002c90300300000ull, .host_step = 2,
		.spine = { "spine", 3 }, .leaf = { "leaf", 3 }, .host = { "node", 5, " HCA-1" },
		.roles = roles,
	};
}

/* Returns an indexed snapshot (owned by the caller), NULL when too large. */
static inline struct fab_snapshot *fatfab_build(unsigned spines, unsigned leaves, unsigned hpl,
						bool roles)
{
	const struct fabfix_tree t = fatfab_tree(spines, leaves, hpl, roles);
	struct fab_snapshot *s = fabfix_fat_tree(&t);

	if (!s)
		return NULL;
	s->started_at_ms = 1764557635000;
	s->finished_at_ms = s->started_at_ms + 2500;
	s->checked_at_ms = s->finished_at_ms + 500; /* as if fabsweep check ran */
	s->scan_id = 1;
	s->host = fab_snapshot_strdup(s, "mgmt01", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "ib:mlx5_0/1", SIZE_MAX);
	s->sm_act_start = s->sm_act_end = 4242;
	for (size_t i = 0; i < s->n_ports; i++) {
		if (!fabfix_sampled(s, i))
			continue;
		struct fab_counter_sample *c = fabfix_sample(s, i, 0, s->started_at_ms + 1000);
		c->v[FAB_CTR_XMIT_DATA] = (uint64_t)i * 1000;
		c->v[FAB_CTR_RCV_DATA] = (uint64_t)i * 900;
	}
	fabfix_sm(s, fabfix_first_host(&t), 3, 14)->act_count = 4242;
	fab_snapshot_index(s);
	return s;
}

/* Adds a finding on port `port` of node `node` (GUID text made here). */
static inline void fatfab_finding(struct fab_snapshot *s, const char *rule, unsigned sev,
				  uint32_t node, unsigned port, const char *subject,
				  const char *message)
{
	char g[32], p[8];

	snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)s->nodes[node].guid);
	snprintf(p, sizeof(p), "%u", port);
	struct fab_finding f = { .rule_id = rule, .severity = (uint8_t)sev, .node = g,
				 .port = port ? p : NULL, .subject = subject, .message = message };
	fab_snapshot_add_finding(s, &f);
}
