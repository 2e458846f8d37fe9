// SPDX-License-Identifier: MIT
/*
 * bench_mcast: the multicast rules on a 4,096-host fat tree with 64 groups
 * against their target (issue 33): the five mcast.* rules together in under
 * 0.2 s.
 *
 *   bench_mcast [--db FILE [--scan ID]] [--runs N] [--seed S]
 *
 * Without --db the snapshot is made as bench/bench_scan.sh's "4k" fabric is
 * (128 leaves x 32 hosts, 32 spines, 128-port switches) with the groups of
 * bench/bench_mcast.sh: the IPoIB broadcast group of the default partition
 * with every host, and 63 groups of 4 to 64 members on random leaves (seed
 * S), each tree rooted at a spine as OpenSM roots them (fabfix_mcast_group),
 * every host a full member of the default partition; with --db a stored
 * scan (bench_mcast.sh keeps the one it scanned from the simulator). Every
 * rule runs N times (default 5); printed: each mcast rule's median time, their
 * sum, the findings (none on a healthy fabric), peak memory. Exit 1 when the
 * sum's median is 0.2 s or more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fabsweep/error.h"
#include "fabsweep/mcast.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabfix/fabfix.h"

#define TARGET_S 0.2
#define MAX_RUNS 50

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct fab_snapshot *synthetic(unsigned seed)
{
	struct fabfix_tree t = { .spines = 32, .leaves = 128, .hosts_per_leaf = 32, .switch_ports = 128,
				 .spine_guid = 0x0002c90200100000ull, .leaf_guid = 0x0002c90200200000ull,
				 .host_guid = 0x0002c90100000000ull, .host_step = 0x10,
				 .spine = { "spine", 3 }, .leaf = { "leaf", 3 }, .host = { "host", 4 },
				 .roles = true };
	struct fab_snapshot *s = fabfix_fat_tree(&t);
	uint32_t *hp = malloc(4096 * sizeof(*hp)), pick[64];
	uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, [12] = 0xff, 0xff, 0xff, 0xff };

	if (!s || !hp || fab_snapshot_index(s) || fabfix_pkeys_default(s, NULL, 0) ||
	    fabfix_mcast_init(s, 64)) {
		fprintf(stderr, "bench_mcast: out of memory\n");
		exit(1);
	}
	for (unsigned i = 0; i < 4096; i++)
		hp[i] = (uint32_t)(fab_snapshot_port(s, 160 + i, 1) - s->ports);
	if (fabfix_mcast_group(s, mgid, 0xc000, 3, 4, 0, hp, 4096))
		exit(1);
	srand(seed);
	for (unsigned g = 1; g < 64; g++) {
		unsigned n = 4 + (unsigned)rand() % 61;
		for (unsigned i = 0; i < n; i++) { /* distinct hosts */
			uint32_t p;
			bool dup;
			do {
				p = hp[(unsigned)rand() % 4096];
				dup = false;
				for (unsigned k = 0; k < i; k++)
					dup |= pick[k] == p;
			} while (dup);
			pick[i] = p;
		}
		uint8_t m[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, [14] = (uint8_t)(g >> 8), (uint8_t)g };
		if (fabfix_mcast_group(s, m, (uint16_t)(0xc000 + g), 3, 4, (uint32_t)(g % 32), pick, n))
			exit(1);
	}
	if (fab_mcast_sort(s->mcast) || fab_mcast_resolve(s))
		exit(1);
	free(hp);
	return s;
}

int main(int argc, char **argv)
{
	const char *db = NULL;
	int64_t scan = 0;
	int runs = 5;
	unsigned seed = 33;
	struct fab_snapshot *s;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			db = argv[++i];
		else if (!strcmp(argv[i], "--scan") && i + 1 < argc)
			scan = strtoll(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = (unsigned)strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_mcast [--db FILE [--scan ID]] [--runs N] [--seed S]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > MAX_RUNS)
		runs = 5;
	if (db) {
		struct fab_store *st;
		if (fab_store_open(db, FAB_STORE_READONLY, &st) || fab_store_load_scan(st, scan, &s)) {
			fprintf(stderr, "bench_mcast: %s\n", fab_errmsg());
			return 1;
		}
		fab_store_close(st);
	} else {
		s = synthetic(seed);
	}
	if (!s->mcast) {
		fprintf(stderr, "bench_mcast: the snapshot has no multicast data\n");
		return 1;
	}
	size_t n_rules, members = s->mcast->n_members;
	const struct fab_rule *t = fab_rules_table(&n_rules);
	double per[FAB_RULES_MAX][MAX_RUNS] = { { 0 } }, sum[MAX_RUNS];
	struct fab_rules_result res;
	for (int r = 0; r < runs; r++) {
		if (fab_rules_run(NULL, s, NULL, 0, &res)) {
			fprintf(stderr, "bench_mcast: %s\n", fab_errmsg());
			return 1;
		}
		sum[r] = 0;
		for (size_t i = 0; i < n_rules; i++)
			if (!strncmp(t[i].id, "mcast.", 6)) {
				if (res.status[i] != FAB_RULE_RAN) {
					fprintf(stderr, "bench_mcast: %s did not run: %s\n", t[i].id,
						res.why_skipped[i] ? res.why_skipped[i] : "?");
					return 1;
				}
				per[i][r] = res.seconds[i];
				sum[r] += res.seconds[i];
			}
	}
	printf("%s: %zu nodes, %zu groups, %zu members, %zu switch tables; %d runs\n",
	       db ? db : "4,096-host fat tree (synthetic)", s->n_nodes, s->mcast->n_groups, members,
	       s->mcast->n_mfts, runs);
	for (size_t i = 0; i < n_rules; i++) {
		if (strncmp(t[i].id, "mcast.", 6))
			continue;
		qsort(per[i], (size_t)runs, sizeof(double), cmp_d);
		printf("  %-24s median %.4f s (min %.4f, max %.4f), %u findings\n", t[i].id, per[i][runs / 2],
		       per[i][0], per[i][runs - 1], res.n_findings[i]);
	}
	qsort(sum, (size_t)runs, sizeof(double), cmp_d);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("  the five together: median %.4f s (min %.4f, max %.4f); target under %.1f s: %s\n",
	       sum[runs / 2], sum[0], sum[runs - 1], TARGET_S, sum[runs / 2] < TARGET_S ? "met" : "MISSED");
	printf("  peak memory %.1f MB\n", ru.ru_maxrss / 1024.0);
	fab_snapshot_free(s);
	return sum[runs / 2] < TARGET_S ? 0 : 1;
}
