// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ibdiagnet2.cables reader (ibd_cables_read,
 * import/ibdiag_phys.c): arbitrary bytes as the file, read against a
 * small imported fabric (a switch of the sequoia run with four ports and
 * a host). Either an error, or modules of ports the fabric has, at most
 * one a port, within the model's limits: lanes 1..n, powers and bias
 * unknown or not negative, limits not +inf, the strings safe text; and
 * the counts add up.
 *
 * Seeds: fuzz/corpus/cables/ (records of the real sequoia file: an
 * optic, a passive copper cable, a record of a port the fabric lacks, a
 * second record of a port; hostile strings). Build and run: fuzz/README.md.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fabsweep/ibdiag.h"
#include "fabsweep/module.h"
#include "fabsweep/snapshot.h"
#include "fuzz/fuzzcheck.h"
#include "import/ibdiag_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fabric[] =
	"START_NODES\n"
	"NodeDesc,NumPorts,NodeType,NodeGUID\n"
	"\"Quantum-2 Mellanox Technologies\",4,2,0xb0cf0e0300e5b940\n"
	"\"host1 HCA-1\",1,1,0x2\n"
	"END_NODES\n"
	"START_PORTS\n"
	"NodeGuid,PortGuid,PortNum,LID\n"
	"0xb0cf0e0300e5b940,0xb0cf0e0300e5b940,1,24\n"
	"0xb0cf0e0300e5b940,0xb0cf0e0300e5b940,2,24\n"
	"0xb0cf0e0300e5b940,0xb0cf0e0300e5b940,3,24\n"
	"0xb0cf0e0300e5b940,0xb0cf0e0300e5b940,4,24\n"
	"0x2,0x3,1,7\n"
	"END_PORTS\n"
	"START_LINKS\n"
	"NodeGuid1,PortNum1,NodeGuid2,PortNum2\n"
	"0xb0cf0e0300e5b940,1,0x2,1\n"
	"END_LINKS\n";

static void check_module(const struct fab_snapshot *s, const struct fab_module *m,
			 const struct fab_module_lane *ls)
{
	const char *const strs[] = { m->type, m->vendor, m->part_number, m->serial,
				     m->revision, m->date_code, m->media, m->note };

	FUZZ_REQUIRE(m->port_idx < s->n_ports && !m->refused && m->spec == FAB_MODSPEC_IBDIAG);
	FUZZ_REQUIRE(m->n_lanes <= FAB_MODULE_MAX_LANES && fab_module_lanes_used(m) <= m->n_lanes);
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		FUZZ_REQUIRE(!strs[i] || fuzz_text_is_safe(strs[i]));
	for (unsigned i = 0; ls && i < m->n_lanes; i++) {
		FUZZ_REQUIRE(ls[i].lane == i + 1);
		FUZZ_REQUIRE(isnan(ls[i].rx_mw) || ls[i].rx_mw >= 0);
		FUZZ_REQUIRE(isnan(ls[i].tx_mw) || ls[i].tx_mw >= 0);
		FUZZ_REQUIRE(isnan(ls[i].bias_ma) || ls[i].bias_ma >= 0);
	}
	for (unsigned k = 0; k < FAB_MON__COUNT; k++) {
		const double v[4] = { m->lim[k].hi_alarm, m->lim[k].lo_alarm, m->lim[k].hi_warn,
				      m->lim[k].lo_warn };
		for (int i = 0; i < 4; i++)
			FUZZ_REQUIRE(isnan(v[i]) || !(isinf(v[i]) && v[i] > 0));
	}
	FUZZ_REQUIRE(m->monitors || (isnan(m->temperature_c) && isnan(m->voltage_v)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct ibd_cables c;

	if (!s)
		return 0;
	FUZZ_REQUIRE(fab_ibdiag_import(fabric, sizeof(fabric) - 1, "fabric", NULL, NULL, s) == 0);
	FUZZ_REQUIRE(s->n_ports == 5);
	int rc = ibd_cables_read((const char *)data, size, "fuzz", s, &c);
	FUZZ_REQUIRE(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (!rc) {
		const struct fab_modules *set = &s->ib_modules;
		FUZZ_REQUIRE(set->n == c.records && c.records <= s->n_ports);
		FUZZ_REQUIRE(memchr(c.timestamp, 0, sizeof(c.timestamp)));
		bool seen[5] = { false };
		for (size_t i = 0; i < set->n; i++) {
			const struct fab_module *m = &set->mods[i];
			check_module(s, m, fab_module_lanes(set, m));
			FUZZ_REQUIRE(!seen[m->port_idx]);
			seen[m->port_idx] = true;
		}
	}
	fab_snapshot_free(s);
	return 0;
}
