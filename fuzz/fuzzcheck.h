/* SPDX-License-Identifier: MIT */
/*
 * Checks shared by the fuzz targets. Each one abort()s on a violation, which
 * libFuzzer reports as a crash and the corpus driver as a failed test.
 *
 * FUZZ_REQUIRE(cond) is the one assertion: unlike assert() it is never
 * compiled out (the corpus tests run in RelWithDebInfo builds).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/snapshot.h"

#define FUZZ_REQUIRE(cond)                                                     \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: invariant violated: %s\n",     \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/*
 * Whether s (NUL-terminated) is safe to put on a terminal, in HTML, XML and
 * a Prometheus label once escaped: valid UTF-8 (no overlong forms, no
 * surrogates), no C0 control, no DEL, no C1 control (U+0080..U+009F), no
 * bidirectional override or isolate (U+202A..U+202E, U+2066..U+2069).
 * Written independently of core/names.c, on purpose.
 */
static inline bool fuzz_text_is_safe(const char *s)
{
	const uint8_t *p = (const uint8_t *)s;

	while (*p) {
		uint32_t cp;
		size_t n;

		if (*p < 0x80) {
			if (*p < 0x20 || *p == 0x7f)
				return false;
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf) {
			n = 1;
			cp = *p & 0x1fu;
		} else if (*p >= 0xe0 && *p <= 0xef) {
			n = 2;
			cp = *p & 0x0fu;
		} else if (*p >= 0xf0 && *p <= 0xf4) {
			n = 3;
			cp = *p & 0x07u;
		} else {
			return false;
		}
		for (size_t k = 1; k <= n; k++) {
			if ((p[k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[k] & 0x3fu);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f) ||
		    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
			return false;
		p += n + 1;
	}
	return true;
}

/* A reader over the fuzzer's bytes: past the end it yields zeros. */
struct fuzz_in {
	const uint8_t *p;
	size_t len, off;
};

static inline bool fuzz_left(const struct fuzz_in *in)
{
	return in->off < in->len;
}

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	return in->off < in->len ? in->p[in->off++] : 0;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t hi = fuzz_u8(in);

	return (uint16_t)(hi << 8 | fuzz_u8(in));
}

/* Copies n bytes (zeros past the end) into out. */
static inline void fuzz_bytes(struct fuzz_in *in, uint8_t *out, size_t n)
{
	size_t have = in->len - in->off < n ? in->len - in->off : n;

	if (have)
		memcpy(out, in->p + in->off, have);
	memset(out + have, 0, n - have);
	in->off += have;
}

/* What every imported snapshot must satisfy (ports contiguous per node and
 * in order, links and remote ends agreeing); abort() shows as a crash. */
static inline void fuzz_check_snapshot(const struct fab_snapshot *s)
{
	size_t ports = 0;

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];

		if (n->port_first != ports || n->port_count > s->n_ports - ports)
			abort();
		ports += n->port_count;
		for (uint32_t k = 0; k < n->port_count; k++) {
			const struct fab_port *p = &s->ports[n->port_first + k];

			if (p->node_idx != i ||
			    (k && p->port_num <= p[-1].port_num) ||
			    p->port_num > n->num_ports)
				abort();
		}
	}
	if (ports != s->n_ports)
		abort();
	for (size_t i = 0; i < s->n_ports; i++) {
		uint32_t r = s->ports[i].remote_idx;

		if (r != FAB_NONE &&
		    (r >= s->n_ports || s->ports[r].remote_idx != i))
			abort();
	}
	for (size_t i = 0; i < s->n_links; i++)
		if (s->links[i].a >= s->n_ports || s->links[i].b >= s->n_ports ||
		    s->ports[s->links[i].a].remote_idx != s->links[i].b)
			abort();
}
