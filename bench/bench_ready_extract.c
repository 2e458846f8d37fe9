// SPDX-License-Identifier: MIT
/*
 * bench_ready_extract: what `merge --ready-dir` costs on a large RoCE
 * fabric: the readiness extract of every host (pipeline/ready_extract.c),
 * each a small database of its own, written under a temporary name, synced
 * once and renamed. The fabric is built in memory as the rule fixtures' RoCE
 * part is (tests/unit/rules/rulefix.h), at scale: LEAVES leaves of HOSTS
 * hosts each, 8 spines, every host one RoCE NIC with PFC, ETS, APP, DCB, ECN
 * and 80 RDMA counters, every link heard from both ends.
 *
 * Usage: bench_ready_extract [LEAVES [HOSTS_PER_LEAF [DIR]]]  (default 32 x 32: 1,024 hosts)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "bench/benchclock.h"
#include "unit/rules/rulefix.h"


int main(int argc, char **argv)
{
	unsigned leaves = argc > 1 ? (unsigned)atoi(argv[1]) : 32, hpl = argc > 2 ? (unsigned)atoi(argv[2]) : 32;
	char tmpl[] = "/tmp/fabsweep-bench-extract-XXXXXX", name[64];
	const char *dir = argc > 3 ? argv[3] : mkdtemp(tmpl);
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(s);
	uint32_t sp[8], spp[8][256];
	unsigned n = 0;
	size_t written = 0;

	if (!dir || !leaves || !hpl || leaves > 256 || hpl > 64) {
		fprintf(stderr, "usage: bench_ready_extract [LEAVES (1-256) [HOSTS_PER_LEAF (1-64) [DIR]]]\n");
		return 2;
	}
	s->scan_id = 1;
	s->started_at_ms = RF_T0;
	s->source = "merge:bench";
	double t0 = now_s();
	for (unsigned i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "spine%u", i + 1);
		sp[i] = rf_system(r, name, ++n & 0xff, true, RF_T0);
		for (unsigned l = 0; l < leaves; l++) {
			snprintf(name, sizeof(name), "swp%u", l + 1);
			spp[i][l] = rf_eth(r, sp[i], name, 9216, 400000, true, false);
		}
	}
	for (unsigned l = 0; l < leaves; l++) {
		uint32_t lf, up[8], hp[64];
		snprintf(name, sizeof(name), "leaf%u", l + 1);
		lf = rf_system(r, name, ++n & 0xff, true, RF_T0);
		for (unsigned k = 0; k < hpl; k++) {
			snprintf(name, sizeof(name), "swp%u", k + 1);
			hp[k] = rf_eth(r, lf, name, 9216, 100000, true, true);
		}
		for (unsigned i = 0; i < 8; i++) {
			snprintf(name, sizeof(name), "swp%u", 65 + i);
			up[i] = rf_eth(r, lf, name, 9216, 400000, true, false);
			rf_eth_link(r, up[i], spp[i][l]);
		}
		for (unsigned k = 0; k < hpl; k++) {
			snprintf(name, sizeof(name), "host%u-%u", l + 1, k + 1);
			uint32_t h = rf_system(r, name, ++n & 0xff, false, RF_T0);
			uint32_t e = rf_eth(r, h, "eth0", 9000, 100000, true, true);
			rf_eth_link(r, hp[k], e);
			rf_rdma(r, h, e, l * hpl + k + 1, 0);
			for (unsigned c = 0; c < 75; c++) { /* counters/ and the other hw_counters */
				snprintf(name, sizeof(name), "counter_%u", c);
				fab_roce_add_counter(r, (uint32_t)r->n_rdma_ports - 1, FAB_RDMA_CTR_PORT, name, c);
			}
		}
	}
	if (fab_roce_resolve(r)) {
		fprintf(stderr, "bench_ready_extract: out of memory\n");
		return 1;
	}
	double t1 = now_s(), c1 = cpu_s();
	if (fab_pipeline_ready_extract(s, dir, NULL, NULL, &written)) {
		fprintf(stderr, "bench_ready_extract: %s\n", fab_errmsg());
		return 1;
	}
	double t2 = now_s(), c2 = cpu_s();
	printf("fabric: %zu systems, %zu Ethernet ports, %zu links, %zu RDMA counters (built in %.2f s)\n",
	       r->n_systems, r->n_eth_ports, r->n_links, r->n_counters, t1 - t0);
	printf("merge --ready-dir: %zu extracts in %.2f s wall, %.2f s CPU: %.2f ms a host\n", written,
	       t2 - t1, c2 - c1, 1000.0 * (t2 - t1) / (double)(written ? written : 1));
	if (argc <= 3) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_ready_extract: could not remove %s\n", dir);
	}
	fab_snapshot_free(s);
	return 0;
}
