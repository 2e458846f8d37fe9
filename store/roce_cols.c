// SPDX-License-Identifier: MIT
/*
 * How the RoCE part's per-priority values are written in their columns
 * (ETS priority-to-class, bandwidth and algorithm lists: "3,3,0,0,0,0,0,0",
 * "ets,strict,..."): one format, written by roce_write.c and read back by
 * roce_load.c. Relations: docs/schema.md, "RoCE and Ethernet".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/roce.h"
#include "store_priv.h"

void fab_sql_prio_list_format(const uint8_t v[FAB_PRIOS], char *buf, size_t cap)
{
	snprintf(buf, cap, "%u,%u,%u,%u,%u,%u,%u,%u", v[0], v[1], v[2], v[3], v[4],
		 v[5], v[6], v[7]);
}

bool fab_sql_prio_list_parse(const char *s, uint8_t v[FAB_PRIOS])
{
	for (unsigned i = 0; s && i < FAB_PRIOS; i++) {
		char *end;
		unsigned long x = strtoul(s, &end, 10);
		if (end == s || x > 255 || (i < FAB_PRIOS - 1 ? *end != ',' : *end != '\0'))
			return false;
		v[i] = (uint8_t)x;
		s = end + 1;
	}
	return s != NULL;
}

void fab_sql_tsa_format(const uint8_t v[FAB_PRIOS], char *buf, size_t cap)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < FAB_PRIOS && off < cap; i++) {
		const char *n = fab_tsa_name(v[i]);
		int k = n ? snprintf(buf + off, cap - off, "%s%s", i ? "," : "", n)
			  : snprintf(buf + off, cap - off, "%s%u", i ? "," : "", v[i]);
		if (k > 0)
			off += (size_t)k;
	}
}

bool fab_sql_tsa_parse(const char *s, uint8_t v[FAB_PRIOS])
{
	static const uint8_t known[] = { FAB_TSA_STRICT, FAB_TSA_CBS, FAB_TSA_ETS,
					 FAB_TSA_VENDOR };

	for (unsigned i = 0; s && i < FAB_PRIOS; i++) {
		size_t n = strcspn(s, ",");
		bool ok = false;
		for (unsigned k = 0; k < sizeof(known) && !ok; k++) {
			const char *name = fab_tsa_name(known[k]);
			if (strlen(name) == n && !strncmp(s, name, n)) {
				v[i] = known[k];
				ok = true;
			}
		}
		if (!ok) {
			char *end;
			unsigned long x = strtoul(s, &end, 10);
			if (end != s + n || x > 255)
				return false;
			v[i] = (uint8_t)x;
		}
		if ((i < FAB_PRIOS - 1) != (s[n] == ','))
			return false;
		s += n + 1;
	}
	return s != NULL;
}
