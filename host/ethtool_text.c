// SPDX-License-Identifier: MIT
/*
 * The ethtool string tables and saved outputs, pure: ETHTOOL_GSTRINGS names
 * zipped with ETHTOOL_GSTATS values, `ethtool -S` text, `ethtool -m` hex
 * and raw dumps, and statistics into NIC counters through the one mapping
 * table (core/nic_counter.c). Everything here reads bytes a driver or a
 * file chose: every length is checked, names are kept printable.
 */
#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/ethtool.h"
#include "fabsweep/roce.h"

#define GSTRING_LEN 32

/* Copies up to len bytes of a name, stopping at a NUL, keeping printable
 * ASCII only (a name is a key, never shown raw). */
static void keep_name(char *dst, const uint8_t *src, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && src[i]; i++)
		if (src[i] > 0x20 && src[i] < 0x7f)
			dst[o++] = (char)src[i];
	dst[o] = '\0';
}

size_t fab_ethtool_stats_zip(const uint8_t *strings, size_t n, const uint64_t *values,
			     struct fab_ethtool_stat *out, size_t cap)
{
	size_t w = 0;

	for (size_t i = 0; i < n && w < cap; i++) {
		keep_name(out[w].name, strings + i * GSTRING_LEN, GSTRING_LEN);
		out[w].value = values[i];
		if (out[w].name[0])
			w++;
	}
	return w;
}

size_t fab_ethtool_parse_stats(const char *text, size_t len, struct fab_ethtool_stat *out,
			       size_t cap)
{
	size_t n = 0, pos = 0;

	while (pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		pos += ll + 1;

		size_t i = 0;
		while (i < ll && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i < ll && line[i] == '[')
			continue; /* a per-queue line of bnxt_en: "[0]: rx_ucast_packets: 1" */
		size_t start = i;
		while (i < ll && line[i] != ':' && line[i] != ' ' && line[i] != '\t')
			i++;
		size_t name_len = i - start;
		if (!name_len || name_len > GSTRING_LEN || i >= ll || line[i] != ':')
			continue;
		i++;
		while (i < ll && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= ll || !isdigit((unsigned char)line[i]))
			continue; /* "NIC statistics:" and the like */
		uint64_t v = 0;
		bool over = false;
		for (; i < ll && isdigit((unsigned char)line[i]); i++) {
			unsigned d = (unsigned)(line[i] - '0');
			if (v > (UINT64_MAX - d) / 10)
				over = true;
			v = v * 10 + d;
		}
		while (i < ll && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (over || i != ll)
			continue;
		if (n < cap) {
			keep_name(out[n].name, (const uint8_t *)line + start, name_len);
			out[n].value = v;
			if (!out[n].name[0])
				continue;
		}
		n++;
	}
	return n;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Whether data looks like `ethtool -m hex on` output: its text has an
 * "0x0000:" offset before the first 256 bytes end. */
static bool is_hex_dump(const uint8_t *data, size_t len)
{
	size_t n = len < 256 ? len : 256;

	for (size_t i = 0; i + 7 <= n; i++)
		if (!memcmp(data + i, "0x0000:", 7))
			return true;
	return false;
}

int fab_ethtool_parse_eeprom(const uint8_t *data, size_t len, uint8_t *out, size_t cap,
			     size_t *out_len)
{
	size_t w = 0, pos = 0, lineno = 0;

	if (!is_hex_dump(data, len)) {
		if (len > cap)
			return fab_err(-EBADMSG, "a raw module dump of %zu bytes (at most %zu)", len, cap);
		memcpy(out, data, len);
		*out_len = len;
		return 0;
	}
	while (pos < len) {
		const uint8_t *line = data + pos;
		const uint8_t *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos, i = 0;
		pos += ll + 1;
		lineno++;
		while (i < ll && isspace(line[i]))
			i++;
		if (ll - i < 7 || line[i] != '0' || (line[i + 1] != 'x' && line[i + 1] != 'X'))
			continue; /* a header, "Offset Values", a prompt */
		size_t off = 0, digits = 0;
		int h;
		for (i += 2; i < ll && (h = hexval(line[i])) >= 0 && digits < 8; i++, digits++)
			off = off * 16 + (size_t)h;
		if (!digits || i >= ll || line[i] != ':')
			return fab_err(-EBADMSG, "module dump line %zu: no offset", lineno);
		if (off != w)
			return fab_err(-EBADMSG, "module dump line %zu: offset 0x%zx, expected 0x%zx",
				       lineno, off, w);
		for (i++; i < ll;) {
			while (i < ll && isspace(line[i]))
				i++;
			if (i >= ll)
				break;
			int hi = hexval(line[i]), lo = i + 1 < ll ? hexval(line[i + 1]) : -1;
			if (hi < 0 || lo < 0 || (i + 2 < ll && !isspace(line[i + 2])))
				return fab_err(-EBADMSG, "module dump line %zu: not a hex byte", lineno);
			if (w >= cap)
				return fab_err(-EBADMSG, "a module dump of more than %zu bytes", cap);
			out[w++] = (uint8_t)(hi << 4 | lo);
			i += 2;
		}
	}
	*out_len = w;
	return 0;
}

int fab_ethtool_record(struct fab_roce *r, uint32_t port, const char *driver,
		       const struct fab_ethtool_stat *stats, size_t n, unsigned sample, int64_t at_ms)
{
	struct fab_eth_port *p = &r->eth_ports[port];
	bool have[FAB_NIC__COUNT][FAB_NIC_SLOTS];
	char src[64];

	memset(have, 0, sizeof(have));
	for (uint32_t k = 0; k < p->nic_count; k++) {
		const struct fab_nic_counter *c = &r->nic_counters[p->nic_first + k];
		if (c->sample == sample && c->ctr < FAB_NIC__COUNT && c->prio + 1 < FAB_NIC_SLOTS)
			have[c->ctr][c->prio + 1] = true;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned ctr;
		int prio;
		if (!fab_nic_map(driver, stats[i].name, &ctr, &prio) || have[ctr][prio + 1])
			continue;
		have[ctr][prio + 1] = true;
		snprintf(src, sizeof(src), "%s:%s", driver, stats[i].name);
		int err = fab_roce_add_nic_counter(r, port, ctr, prio, sample, stats[i].value, at_ms, src);
		if (err)
			return err;
	}
	return 0;
}
