// SPDX-License-Identifier: MIT
/*
 * Durations as people write them in retention settings: "30d", "12h", "2w",
 * "1d12h" (db prune --older-than, sweep older_than), "500ms" (watch
 * --interval). One parser for the
 * command line and the config file.
 */
#include <errno.h>
#include <stdint.h>

#include "fabsweep/names.h"

int fab_duration_parse(const char *s, int64_t *out_ms)
{
	static const struct { char unit; int64_t ms; } units[] = {
		{ 's', 1000 }, { 'm', 60 * 1000 }, { 'h', 3600 * 1000 },
		{ 'd', 86400 * 1000 }, { 'w', 7 * 86400 * 1000 },
	};
	const int64_t max = 100LL * 366 * 86400 * 1000; /* a century */
	int64_t total = 0;

	if (!s || !*s)
		return -EINVAL;
	while (*s) {
		int64_t v = 0;
		size_t digits = 0, k;

		for (; *s >= '0' && *s <= '9'; s++, digits++) {
			if (digits == 9)
				return -EINVAL;
			v = v * 10 + (*s - '0');
		}
		if (!digits)
			return -EINVAL;
		if (s[0] == 'm' && s[1] == 's') { /* milliseconds: watch intervals */
			s += 2;
			total += v;
			if (total > max)
				return -EINVAL;
			continue;
		}
		for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
			if (*s == units[k].unit)
				break;
		if (k == sizeof(units) / sizeof(units[0]))
			return -EINVAL; /* a unit is required: "30" is ambiguous */
		s++;
		total += v * units[k].ms;
		if (total > max)
			return -EINVAL;
	}
	if (!total)
		return -EINVAL;
	*out_ms = total;
	return 0;
}
