// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the guard every string from the fabric passes:
 * fab_text_sanitize() (core/names.c) and fab_node_set_desc() (core/snapshot.c),
 * which turn a NodeDescription (64 raw bytes, no NUL required), an LLDP
 * system name or a port description into text that is safe on a terminal,
 * in HTML, XML and Prometheus labels. Checked: the output is valid UTF-8
 * with no control byte, C1 control or bidi override (fuzz/fuzzcheck.h, an
 * independent checker), its length is what the function returns and fits
 * the buffer at every capacity, nothing is lost when the buffer is big
 * enough (every input byte shows, as itself or as \xNN), printable ASCII
 * stays as it is, and the raw bytes are kept as received.
 *
 * Input: 1 byte capacity (0..255), then the raw bytes. Seeds:
 * fuzz/corpus/text/. Build and run: fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fab_node node;
	if (!size)
		return 0;
	size_t cap = data[0];
	const uint8_t *raw = data + 1;
	size_t len = size - 1;
	const uint8_t *nul = len ? memchr(raw, 0, len) : NULL;
	size_t text = nul ? (size_t)(nul - raw) : len; /* bytes before the NUL */
	char *out = malloc(4 * len + 1);

	if (!out)
		return 0;
	/* any capacity: fits, NUL-terminated, safe */
	if (cap) {
		char *small = malloc(cap);
		if (small) {
			size_t n = fab_text_sanitize(raw, len, small, cap);
			FUZZ_REQUIRE(n < cap && strlen(small) == n && fuzz_text_is_safe(small));
			free(small);
		}
	}
	/* enough room: nothing cut */
	size_t n = fab_text_sanitize(raw, len, out, 4 * len + 1);
	FUZZ_REQUIRE(strlen(out) == n && fuzz_text_is_safe(out));
	FUZZ_REQUIRE(n >= text && n <= 4 * text);
	bool plain = true;
	for (size_t i = 0; i < text; i++)
		plain = plain && raw[i] >= 0x20 && raw[i] < 0x7f;
	if (plain)
		FUZZ_REQUIRE(n == text && !memcmp(out, raw, text));

	/* as a NodeDescription: at most 64 raw bytes, kept as received */
	memset(&node, 0xa5, sizeof(node));
	fab_node_set_desc(&node, raw, len);
	size_t want = text < FAB_DESC_RAW ? text : FAB_DESC_RAW;
	FUZZ_REQUIRE(node.desc_raw_len == want && !memcmp(node.desc_raw, raw, want));
	FUZZ_REQUIRE(memchr(node.desc, 0, sizeof(node.desc)) && fuzz_text_is_safe(node.desc));
	FUZZ_REQUIRE(strlen(node.desc) >= want); /* nothing cut at FAB_DESC_CAP */
	free(out);
	return 0;
}
