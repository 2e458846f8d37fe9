/* SPDX-License-Identifier: MIT */
/*
 * Private to core/: reads a small regular file (a host list, a
 * node-name-map) whole, with one-line errors that name it ("host file
 * '/etc/x'"). Refuses what is not a regular file and what is larger than max.
 */
#pragma once

#include <stddef.h>

/*
 * *out (malloc'd, NUL-terminated, owned by the caller) and *len on success;
 * else a negative errno with fab_errmsg() set: "cannot open <what> '<path>':
 * ...", "<what> '<path>' is not a regular file", "... is larger than N bytes".
 */
int fab_read_small_file(const char *path, const char *what, size_t max, char **out,
			size_t *len);
