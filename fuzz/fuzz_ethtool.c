// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ethtool statistics readers (host/ethtool_text.c,
 * host/ethtool_nl.c) and the driver-name mapping table they feed
 * (core/nic_counter.c): the strings and values a NIC's driver hands over.
 *
 * Input: the first byte chooses the path, the rest is the data.
 *   0: an ETHTOOL_GSTRINGS table with its ETHTOOL_GSTATS values: a count
 *      byte n, then n names of 32 bytes (not always NUL-terminated), then
 *      n values of 8 bytes: fab_ethtool_stats_zip();
 *   1: `ethtool -S` text: fab_ethtool_parse_stats();
 *   2: one ethtool netlink reply (STATS_GET, PAUSE_GET, FEC_GET):
 *      fab_ethtool_nl_parse_stats();
 *   3: one MODULE_EEPROM_GET reply: fab_ethtool_nl_parse_eeprom().
 * The driver's name for the mapping is chosen by the second byte.
 *
 * The statistics: at most cap, names NUL-terminated, printable ASCII
 * without spaces. Recorded as NIC counters: canonical counters and
 * priorities only, each (counter, priority) once, every one from a name
 * the mapping table gives it; the counter model's view of the port agrees
 * with the records.
 *
 * Seeds: fuzz/corpus/ethtool/ (the real `ethtool -S` outputs of
 * fixtures/ethtool, GSTRINGS tables built from them and netlink replies:
 * mkseeds.py). Build and run: fuzz/README.md.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/ethtool.h"
#include "fabsweep/roce.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 512

static const char *const drivers[] = { "mlx5_core", "bnxt_en", "ice", "veth", "" };

static void check_stats(const struct fab_ethtool_stat *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		FUZZ_REQUIRE(memchr(st[i].name, 0, sizeof(st[i].name)));
		for (const char *c = st[i].name; *c; c++)
			FUZZ_REQUIRE(*c > ' ' && *c < 0x7f);
	}
}

/* Records the statistics on a port of a fresh model; checks the records
 * and the counter model's view of them. */
static void record(const struct fab_ethtool_stat *st, size_t n, const char *driver)
{
	struct fab_roce *r = fab_roce_new();
	static struct fab_nic_view v;

	if (!r)
		return;
	struct fab_roce_system *sys = fab_roce_add_system(r);
	struct fab_eth_port *p = sys ? fab_roce_add_eth_port(r, 0) : NULL;
	if (!p || fab_ethtool_record(r, 0, driver, st, n, 0, 1700000000000) ||
	    fab_roce_group_nic_counters(r)) {
		fab_roce_free(r);
		return;
	}
	bool seen[FAB_NIC__COUNT][FAB_NIC_SLOTS] = { { false } };
	FUZZ_REQUIRE(r->n_nic_counters <= n);
	for (size_t i = 0; i < r->n_nic_counters; i++) {
		const struct fab_nic_counter *c = &r->nic_counters[i];
		unsigned ctr;
		int prio;
		FUZZ_REQUIRE(c->port_idx == 0 && c->ctr < FAB_NIC__COUNT && c->prio >= -1 && c->prio <= 7);
		FUZZ_REQUIRE(fab_nic_ctr_per_prio(c->ctr) || c->prio == -1);
		FUZZ_REQUIRE(!seen[c->ctr][c->prio + 1]);
		seen[c->ctr][c->prio + 1] = true;
		/* it came from a statistic the table maps to it */
		bool from = false;
		for (size_t k = 0; k < n && !from; k++)
			from = (fab_nic_map(driver, st[k].name, &ctr, &prio) ||
				fab_nic_map("netlink", st[k].name, &ctr, &prio)) &&
			       ctr == c->ctr && prio == c->prio && st[k].value == c->value;
		FUZZ_REQUIRE(from);
		FUZZ_REQUIRE(!c->source || fuzz_text_is_safe(c->source));
	}
	fab_nic_view(r, 0, NULL, &v);
	for (unsigned c = 0; c < FAB_NIC__COUNT; c++)
		for (unsigned s = 0; s < FAB_NIC_SLOTS; s++)
			FUZZ_REQUIRE(v.have[c][s] == seen[c][s] && !v.have_inc[c][s]);
	double ber;
	if (fab_nic_pre_fec_ber(&v, &ber, NULL, NULL))
		FUZZ_REQUIRE(ber >= 0);
	fab_roce_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fab_ethtool_stat st[CAP];
	static uint8_t names[255 * 32], eeprom[2048];
	static uint64_t values[255];
	struct fuzz_in in = { data, size, 0 };
	uint8_t mode = fuzz_u8(&in);
	const char *driver = drivers[fuzz_u8(&in) % (sizeof(drivers) / sizeof(drivers[0]))];
	const uint8_t *rest = data + in.off;
	size_t len = size - in.off, n = 0, total;
	int rc;

	switch (mode % 4) {
	case 0: {
		size_t k = fuzz_u8(&in);
		fuzz_bytes(&in, names, k * 32);
		for (size_t i = 0; i < k; i++) {
			uint8_t b[8];
			fuzz_bytes(&in, b, 8);
			memcpy(&values[i], b, 8);
		}
		n = fab_ethtool_stats_zip(names, k, values, st, CAP);
		FUZZ_REQUIRE(n <= k);
		break;
	}
	case 1:
		total = fab_ethtool_parse_stats((const char *)rest, len, st, CAP);
		n = total < CAP ? total : CAP;
		break;
	case 2:
		rc = fab_ethtool_nl_parse_stats(rest, len, st, CAP, &total);
		FUZZ_REQUIRE(rc <= 0 && rc >= -4095);
		if (rc)
			return 0;
		n = total < CAP ? total : CAP;
		break;
	default:
		rc = fab_ethtool_nl_parse_eeprom(rest, len, eeprom, sizeof(eeprom), &n);
		FUZZ_REQUIRE(rc <= 0 && rc >= -4095);
		FUZZ_REQUIRE(rc || n <= sizeof(eeprom));
		return 0;
	}
	check_stats(st, n);
	record(st, n, driver);
	return 0;
}
