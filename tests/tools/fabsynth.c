// SPDX-License-Identifier: MIT
/*
 * fabsynth: writes synthetic snapshots of a 2-level fat tree of any size into
 * a fabsweep database, through the real store. For crash-safety tests and for
 * benchmarks of check and report on large fabrics (100,000 ports and more).
 *
 *   fabsynth --db FILE [--leaves N] [--spines N] [--hosts-per-leaf N]
 *            [--scans N] [--label TEXT] [--findings N]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabfix/fabfix.h"

static struct fab_snapshot *build(unsigned leaves, unsigned spines, unsigned hpl,
				  const char *label, unsigned nfind)
{
	const struct fabfix_tree t = {
		.spines = spines, .leaves = leaves, .hosts_per_leaf = hpl,
		.spine_guid = 0x0002c90300100000ull, .leaf_guid = 0x0002c90300200000ull,
		.host_guid = 0x0002c90300300000ull, .host_step = 2,
		.spine = { "spine", 4 }, .leaf = { "leaf", 4 }, .host = { "node", 5, " HCA-1" },
		.roles = true,
	};
	struct fab_snapshot *s = fabfix_fat_tree(&t);

	if (!s)
		return NULL;
	s->started_at_ms = fab_now_ms();
	s->host = fab_snapshot_strdup(s, "fabsynth", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "synthetic", SIZE_MAX);
	s->label = label ? fab_snapshot_strdup(s, label, SIZE_MAX) : NULL;
	/* IsSM on every 997th CA, as many fabrics run a few standby SMs */
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].type == FAB_NODE_CA && i % 997 == 0)
			fab_snapshot_port(s, (uint32_t)i, 1)->cap_mask = 0x2;
	for (size_t i = 0; i < s->n_ports; i++) {
		if (!fabfix_sampled(s, i))
			continue;
		struct fab_counter_sample *c = fabfix_sample(s, i, 0, s->started_at_ms);
		c->v[FAB_CTR_XMIT_DATA] = i * 1000;
		c->v[FAB_CTR_SYMBOL_ERRORS] = i % 101 == 0 ? 50 : 0;
	}
	for (unsigned i = 0; i < nfind && s->n_links; i++) {
		const struct fab_port *a = &s->ports[s->links[i % s->n_links].a];
		char g[FAB_GUID_STRLEN], p[8];
		fab_guid_format(s->nodes[a->node_idx].guid, g);
		snprintf(p, sizeof(p), "%u", a->port_num);
		struct fab_finding f = { .rule_id = "port.errors", .severity = (uint8_t)(i % 3),
					 .node = g, .port = p, .subject = s->nodes[a->node_idx].desc,
					 .message = "synthetic finding" };
		fab_snapshot_add_finding(s, &f);
	}
	fabfix_sm(s, fabfix_first_host(&t), 3, 14);
	s->finished_at_ms = fab_now_ms();
	return s;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "leaves", required_argument, NULL, 'l' },
		{ "spines", required_argument, NULL, 's' },
		{ "hosts-per-leaf", required_argument, NULL, 'h' },
		{ "scans", required_argument, NULL, 'n' },
		{ "label", required_argument, NULL, 'L' },
		{ "findings", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned leaves = 8, spines = 4, hpl = 16, scans = 1, nfind = 0;
	const char *db = NULL, *label = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'l': leaves = (unsigned)strtoul(optarg, NULL, 10); break;
		case 's': spines = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'h': hpl = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': scans = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'L': label = optarg; break;
		case 'f': nfind = (unsigned)strtoul(optarg, NULL, 10); break;
		default: return 2;
		}
	}
	if (!db || !leaves || !spines || hpl + spines > 254 || leaves > 254) {
		fprintf(stderr, "fabsynth: need --db; leaves <= 254 and hosts-per-leaf + spines <= 254\n");
		return 2;
	}
	struct fab_snapshot *s = build(leaves, spines, hpl, label, nfind);
	struct fab_store *st = NULL;
	int ret = 0;
	if (!s) {
		fprintf(stderr, "fabsynth: out of memory\n");
		return 3;
	}
	if (fab_store_open(db, FAB_STORE_WRITE, &st)) {
		fprintf(stderr, "fabsynth: %s\n", fab_errmsg());
		ret = 3;
	}
	for (unsigned i = 0; !ret && i < scans; i++) {
		s->scan_id = 0;
		if (fab_store_write_scan(st, s)) {
			fprintf(stderr, "fabsynth: %s\n", fab_errmsg());
			ret = 3;
			break;
		}
		printf("%lld %zu %zu %zu\n", (long long)s->scan_id, s->n_nodes, s->n_ports, s->n_links);
	}
	fab_store_close(st);
	fab_snapshot_free(s);
	return ret;
}
