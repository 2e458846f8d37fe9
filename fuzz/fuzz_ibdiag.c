// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ibdiagnet2.db_csv importer (import/ibdiag_*.c):
 * arbitrary bytes in, either an error or a snapshot whose indexes are
 * consistent and whose descriptions are safe text. Build and run:
 * fuzz/README.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/ibdiag.h"
#include "fabsweep/snapshot.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_snapshot *s = fab_snapshot_new();

	if (!s)
		return 0;
	if (fab_ibdiag_import((const char *)data, size, "fuzz", NULL, NULL, s) == 0) {
		fuzz_check_snapshot(s);
		for (size_t i = 0; i < s->n_nodes; i++)
			FUZZ_REQUIRE(fuzz_text_is_safe(s->nodes[i].desc));
		for (size_t i = 0; i < s->n_samples; i++)
			FUZZ_REQUIRE(s->samples[i].port_idx < s->n_ports);
		/* PHY_DB16's bit error ratios: of ports it has, unknown or not negative */
		for (size_t i = 0; i < s->n_ber; i++) {
			const struct fab_port_ber *b = &s->ber[i];
			FUZZ_REQUIRE(b->port_idx < s->n_ports);
			FUZZ_REQUIRE((isnan(b->raw) || b->raw >= 0) && (isnan(b->effective) || b->effective >= 0) &&
				     (isnan(b->symbol) || b->symbol >= 0));
		}
	}
	fab_snapshot_free(s);
	return 0;
}
