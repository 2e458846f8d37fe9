/* SPDX-License-Identifier: MIT */
/*
 * Test helpers for pluggable modules (tests/unit/host/test_module.c,
 * tests/unit/rules/test_phys_real.c, tests/unit/reports/test_phys.c):
 * fixture files, the values `ethtool -m` printed, an SFF-8636 memory image
 * built from them, and RoCE hosts fed through fabsweep's own readers (the
 * includer has cmocka). The builder is
 * written from SFF-8636 itself (byte offsets and units), independently of
 * host/module_sff8636.c, so decoding its image and comparing with the text
 * checks the decoder on values a real module reported.
 */
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/ethtool.h"
#include "fabsweep/roce.h"

static inline char *mfix_slurp(const char *rel, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", getenv("FIXTURES"), rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b) {
		b[n] = '\0';
		if (len)
			*len = (size_t)n;
	}
	return b;
}

/* The value of the line "<key> ... : <number>" of ethtool's decoded output
 * (the first number after the colon; "-inf" is -INFINITY); NAN when absent.
 * nth: the nth (0-based) line whose key starts with key. */
static inline double mfix_value(const char *text, const char *key, int nth)
{
	const char *p = text;
	size_t kl = strlen(key);

	while ((p = strstr(p, key))) {
		const char *bol = p;
		while (bol > text && bol[-1] != '\n')
			bol--;
		const char *k = bol;
		while (*k == ' ' || *k == '\t')
			k++;
		if (k == p && nth-- == 0) {
			const char *c = strchr(p + kl, ':');
			const char *eol = strchr(p, '\n');
			if (!c || (eol && c > eol))
				return NAN;
			c++;
			while (*c == ' ')
				c++;
			if (!strncmp(c, "-inf", 4))
				return -INFINITY;
			return strtod(c, NULL);
		}
		p += kl;
	}
	return NAN;
}

/* The text after "<key> ... : " up to the end of the line, into buf. */
static inline const char *mfix_text(const char *text, const char *key, char *buf, size_t cap)
{
	const char *p = strstr(text, key), *c, *eol;

	buf[0] = '\0';
	if (!p || !(c = strchr(p, ':')) || !(eol = strchr(p, '\n')) || c > eol)
		return buf;
	for (c++; *c == ' '; c++)
		;
	snprintf(buf, cap, "%.*s", (int)(eol - c), c);
	return buf;
}

static inline void mfix_put16(uint8_t *p, long v)
{
	p[0] = (uint8_t)((unsigned long)v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * SFF-8636 memory (640 bytes: lower page, upper pages 00h-03h) of a module
 * as `ethtool -m` described it in text: identifier, transceiver code byte
 * 131, vendor, temperature (1/256 C), voltage (100 uV), per lane bias (2 uA),
 * Tx and Rx power (0.1 uW), and page 03h's thresholds in the same units;
 * check codes computed. Returns 0, or -1 when the text lacks a value.
 */
static inline int mfix_sff8636_from_text(const char *t, uint8_t img[640])
{
	static const char *const lanes_key[3] = { "Laser tx bias current (Channel ",
						  "Transmit avg optical power (Channel ",
						  "Rcvr signal avg optical power(Channel " };
	static const double unit[3] = { 0.002, 0.0001, 0.0001 }; /* mA, mW per count */
	char key[96], vendor[32];

	memset(img, 0, 640);
	img[0] = img[128] = (uint8_t)mfix_value(t, "Identifier", 0);
	img[131] = (uint8_t)mfix_value(t, "Transceiver codes", 0);
	img[220] = 0x0c; /* average Rx power, Tx power measured */
	mfix_text(t, "Vendor name", vendor, sizeof(vendor));
	memset(img + 148, ' ', 16);
	memcpy(img + 148, vendor, strlen(vendor) < 16 ? strlen(vendor) : 16);
	double temp = mfix_value(t, "Module temperature", 0), vcc = mfix_value(t, "Module voltage", 0);
	if (isnan(temp) || isnan(vcc))
		return -1;
	mfix_put16(img + 22, lround(temp * 256));
	mfix_put16(img + 26, lround(vcc * 10000));
	for (int k = 0; k < 3; k++) {
		for (int lane = 1; lane <= 4; lane++) {
			snprintf(key, sizeof(key), "%s%d)", lanes_key[k], lane);
			double v = mfix_value(t, key, 0);
			if (isnan(v))
				return -1;
			mfix_put16(img + (k == 0 ? 42 : k == 1 ? 50 : 34) + 2 * (lane - 1), lround(v / unit[k]));
		}
	}
	/* page 03h (at 512): thresholds, high alarm, low alarm, high warning, low warning */
	static const struct {
		const char *what;
		int at;
		double per_count;
	} th[] = {
		{ "Module temperature", 128, 1.0 / 256 }, { "Module voltage", 144, 0.0001 },
		{ "Laser rx power", 176, 0.0001 },        { "Laser bias current", 184, 0.002 },
		{ "Laser output power", 192, 0.0001 },
	};
	static const char *const kinds[4] = { "high alarm threshold", "low alarm threshold",
					      "high warning threshold", "low warning threshold" };
	for (size_t i = 0; i < sizeof(th) / sizeof(th[0]); i++)
		for (int k = 0; k < 4; k++) {
			snprintf(key, sizeof(key), "%s %s", th[i].what, kinds[k]);
			double v = mfix_value(t, key, 0);
			if (isnan(v))
				return -1;
			mfix_put16(img + 512 + th[i].at - 128 + 2 * k, lround(v / th[i].per_count));
		}
	unsigned sum = 0;
	for (int i = 128; i < 191; i++)
		sum += img[i];
	img[191] = (uint8_t)sum;
	sum = 0;
	for (int i = 192; i < 223; i++)
		sum += img[i];
	img[223] = (uint8_t)sum;
	return 0;
}

/* A collected host `name` with one interface eth0; its eth port index. */
static inline uint32_t mfix_host(struct fab_roce *r, const char *name)
{
	struct fab_roce_system *s = fab_roce_add_system(r);
	assert_non_null(s);
	s->name = fab_roce_strdup(r, name);
	s->collected = true;
	s->collected_at_ms = 1700000000000;
	struct fab_eth_port *p = fab_roce_add_eth_port(r, (uint32_t)(r->n_systems - 1));
	assert_non_null(p);
	p->ifname = fab_roce_strdup(r, "eth0");
	p->flags = FAB_ETH_F_SYSFS;
	p->stats_status = FAB_ETHTOOL_OK;
	return (uint32_t)(r->n_eth_ports - 1);
}

/* `ethtool -S` text (fixture file, or text when file is NULL) recorded as
 * port's NIC counters. */
static inline void mfix_stats(struct fab_roce *r, uint32_t port, const char *driver, const char *file,
			      const char *text)
{
	static struct fab_ethtool_stat st[2048];
	size_t len = 0;
	char *t = file ? mfix_slurp(file, &len) : strdup(text);

	assert_non_null(t);
	if (!file)
		len = strlen(t);
	size_t n = fab_ethtool_parse_stats(t, len, st, 2048);
	assert_int_equal(fab_ethtool_record(r, port, driver, st, n, 0, 1700000000000), 0);
	free(t);
}

/* A flat module memory decoded and given to port. */
static inline void mfix_module(struct fab_roce *r, uint32_t port, const uint8_t *img, size_t len)
{
	static struct fab_eeprom e;
	static struct fab_module_decoded d;

	assert_int_equal(fab_eeprom_from_flat(img, len, &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), 0);
	assert_int_equal(fab_module_add_decoded(r, port, &d), 0);
}

/* An `ethtool -m` dump file (hex or raw) into buf (cap); its length. */
static inline size_t mfix_dump(const char *file, uint8_t *buf, size_t cap)
{
	size_t len = 0, n = 0;
	char *t = mfix_slurp(file, &len);

	assert_non_null(t);
	assert_int_equal(fab_ethtool_parse_eeprom((const uint8_t *)t, len, buf, cap, &n), 0);
	free(t);
	return n;
}
