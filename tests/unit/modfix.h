/* SPDX-License-Identifier: MIT */
/*
 * Test helpers for pluggable modules (tests/unit/host/test_module.c,
 * tests/unit/rules/test_phys_real.c): fixture files, the values `ethtool -m`
 * printed, and an SFF-8636 memory image built from them. The builder is
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
