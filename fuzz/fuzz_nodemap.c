// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the node-name-map parser (core/nodemap.c): arbitrary
 * bytes in; either an error with a "NAME:LINE:" message, or a map whose
 * names are all non-empty printable text within the limits. Build and run:
 * docs/workflows.md, "Fuzzing the parsers".
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/nodemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_nodemap *m = NULL;
	int err = fab_nodemap_parse((const char *)data, size, "fuzz", &m);

	if (err) {
		if (m || strncmp(fab_errmsg(), "fuzz", 4))
			abort();
		return 0;
	}
	if (fab_nodemap_count(m) > FAB_NODEMAP_ENTRIES_MAX)
		abort();
	/* probe GUIDs taken from the input: any hit is a sane name */
	for (size_t i = 0; i + 8 <= size; i += 8) {
		uint64_t g;
		memcpy(&g, data + i, 8);
		const char *n = fab_nodemap_lookup(m, g);
		if (n && (!*n || strlen(n) > FAB_NODEMAP_NAME_MAX || strchr(n, '"') ||
			  strchr(n, '\n')))
			abort();
	}
	fab_nodemap_free(m);
	return 0;
}
