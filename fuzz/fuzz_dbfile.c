// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for a merge's input files (fab_store_read_input: the
 * SQLite file format read directly, store/dbfile.c, and SQLite when that
 * reader steps aside): the bytes are written to a file and read as `fabsweep
 * merge` reads each input. Either an error whose message names the file, or
 * a snapshot whose RoCE model refers only to its own elements. Seeds:
 * fuzz/corpus/dbfile/, files `fabsweep collect` wrote (bench/roce_host.sh's
 * host, with --ethtool: NIC counters and modules) as schema 16 and as
 * schema 15 wrote them, and one of schema 10, copied to 512-byte pages
 * (VACUUM INTO) so that records spill into overflow pages.
 *
 *   build-fuzz/fuzz/fuzz_dbfile -max_len=200000 -max_total_time=300 CORPUS_COPY
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void consistent(const struct fab_roce *r)
{
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];
		FUZZ_REQUIRE(p->system_idx < r->n_systems);
		FUZZ_REQUIRE(!p->tlv_count || p->tlv_first + (uint64_t)p->tlv_count <= r->n_tlvs);
		FUZZ_REQUIRE(!p->adv.app_count || p->adv.app_first + (uint64_t)p->adv.app_count <= r->n_apps);
		FUZZ_REQUIRE(p->rdma_port_idx == FAB_NONE || p->rdma_port_idx < r->n_rdma_ports);
	}
	for (size_t i = 0; i < r->n_neighbors; i++) {
		const struct fab_lldp_neighbor *n = &r->neighbors[i];
		FUZZ_REQUIRE(n->port_idx < r->n_eth_ports);
		FUZZ_REQUIRE(!n->tlv_count || n->tlv_first + (uint64_t)n->tlv_count <= r->n_tlvs);
		FUZZ_REQUIRE(n->remote_port_idx == FAB_NONE || n->remote_port_idx < r->n_eth_ports);
	}
	for (size_t i = 0; i < r->n_links; i++)
		FUZZ_REQUIRE(r->links[i].a < r->n_eth_ports && r->links[i].b < r->n_eth_ports);
	for (size_t i = 0; i < r->n_devices; i++)
		FUZZ_REQUIRE(r->devices[i].system_idx < r->n_systems);
	for (size_t i = 0; i < r->n_rdma_ports; i++) {
		const struct fab_rdma_port *p = &r->rdma_ports[i];
		FUZZ_REQUIRE(p->device_idx < r->n_devices);
		FUZZ_REQUIRE(!p->ctr_count || p->ctr_first + (uint64_t)p->ctr_count <= r->n_counters);
	}
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];
		FUZZ_REQUIRE(!p->nic_count || p->nic_first + (uint64_t)p->nic_count <= r->n_nic_counters);
		for (uint32_t k = 0; k < p->nic_count; k++)
			FUZZ_REQUIRE(r->nic_counters[p->nic_first + k].port_idx == i);
	}
	for (size_t i = 0; i < r->modules.n; i++) {
		const struct fab_module *m = &r->modules.mods[i];
		FUZZ_REQUIRE(m->port_idx < r->n_eth_ports);
		FUZZ_REQUIRE(!m->n_lanes || m->lane_first + (uint64_t)m->n_lanes <= r->modules.n_lanes);
	}
	for (size_t i = 0; i < r->n_counters; i++)
		FUZZ_REQUIRE(r->counters[i].name && fab_rdma_counter_kind(&r->counters[i]) < FAB_RDMA_CTR__COUNT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fab_store_reader *rd;
	static char path[256];
	struct fab_snapshot *s = NULL;
	FILE *f;

	if (!rd) {
		const char *tmp = getenv("TMPDIR");
		FUZZ_REQUIRE(fab_store_reader_new(&rd) == 0); /* kept for the process */
		snprintf(path, sizeof(path), "%s/fuzz_dbfile_%d.db", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	}
	FUZZ_REQUIRE((f = fopen(path, "wb")) && fwrite(data, 1, size, f) == size && !fclose(f));
	if (fab_store_read_input(rd, path, &s, NULL)) {
		FUZZ_REQUIRE(!s && strstr(fab_errmsg(), path));
	} else {
		FUZZ_REQUIRE(s);
		if (s->roce)
			consistent(s->roce);
		fab_snapshot_free(s);
	}
	unlink(path);
	return 0;
}
