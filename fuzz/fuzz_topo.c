// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ibnetdiscover importer: arbitrary bytes in,
 * either an error or a snapshot whose indexes are consistent. Build and run:
 * fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fabsweep/snapshot.h"
#include "fabsweep/topo.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_snapshot *s = fab_snapshot_new();

	if (!s)
		return 0;
	if (fab_topo_import((const char *)data, size, "fuzz", s) == 0)
		fuzz_check_snapshot(s);
	fab_snapshot_free(s);
	return 0;
}
