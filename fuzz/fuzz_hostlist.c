// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the Slurm host-list parser (core/hostlist.c):
 * arbitrary bytes as one expression and as a host file. Either an error that
 * leaves the list as it was, or hosts that are all valid names within the
 * limits. Build and run: docs/workflows.md, "Fuzzing the parsers".
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_hosts(const struct fab_hostlist *hl, size_t from)
{
	size_t n = fab_hostlist_count(hl);

	if (n > FAB_HOSTLIST_MAX || fab_hostlist_get(hl, n))
		abort();
	for (size_t i = from; i < n; i++) {
		const char *h = fab_hostlist_get(hl, i);
		size_t len = h ? strlen(h) : 0;

		if (!len || len > FAB_HOST_NAME_MAX || h[0] == '-' || h[0] == '.')
			abort();
		if (strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789-_.") != len)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_hostlist *hl;
	const char *s = (const char *)data;

	if (fab_hostlist_new(&hl))
		return 0;
	/* a first expression, so that rollback to a non-empty list is checked */
	if (fab_hostlist_add(hl, "seed[1-2]", SIZE_MAX))
		abort();
	int err = fab_hostlist_add(hl, s, size);
	if (err && fab_hostlist_count(hl) != 2)
		abort();
	check_hosts(hl, 2);
	/* a plain comma list without brackets expands to its elements */
	if (!err && !memchr(data, '[', size)) {
		size_t commas = 0;
		for (size_t i = 0; i < size; i++)
			commas += data[i] == ',';
		if (fab_hostlist_count(hl) != 2 + commas + 1)
			abort();
	}
	size_t before = fab_hostlist_count(hl);
	err = fab_hostlist_add_text(hl, s, size, "fuzz");
	if (err && fab_hostlist_count(hl) != before)
		abort();
	check_hosts(hl, before);
	fab_hostlist_free(hl);
	return 0;
}
