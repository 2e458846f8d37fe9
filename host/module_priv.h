/* SPDX-License-Identifier: MIT */
/*
 * Private to host/module*.c: what the three decoders share. Offsets are
 * those of the specifications (SFF-8472, SFF-8636, CMIS 4/5): an upper
 * page's byte n (128..255) is page[n - 128].
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/ethtool.h"

static inline unsigned u16be(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static inline int s16be(const uint8_t *p)
{
	return (int16_t)(uint16_t)u16be(p);
}

/* byte n (128..255) of upper page pg */
static inline const uint8_t *up(const struct fab_eeprom *e, unsigned pg, unsigned n)
{
	return &e->upper[pg][n - FAB_EEPROM_PAGE];
}

/* Units of the SFF diagnostics: 1/256 degree C, 100 uV, 2 uA, 0.1 uW. */
static inline double temp_c(int raw) { return raw / 256.0; }
static inline double vcc_v(unsigned raw) { return raw / 10000.0; }
static inline double bias_ma(unsigned raw) { return raw / 500.0; }
static inline double power_mw(unsigned raw) { return raw / 10000.0; }

/* The low 8 bits of the sum of bytes [from, to) of p, an SFF check code. */
unsigned mod_checksum(const uint8_t *p, size_t from, size_t to);
/* An ASCII field (spaces and NULs trimmed at its end) into dst (cap > len). */
void mod_ascii(char *dst, size_t cap, const uint8_t *p, size_t len);
/* The date code "YYMMDD" + lot into dst: "2018-07-03" (lot dropped), or
 * the bytes as they are when they are no date. */
void mod_date(char *dst, size_t cap, const uint8_t *p);
/* Four thresholds at p (hi alarm, lo alarm, hi warn, lo warn, 2 bytes
 * each) in a unit; all four 0 is "no thresholds" (NAN). */
enum { TH_TEMP, TH_VCC, TH_BIAS, TH_POWER };
void mod_limits(const uint8_t *p, int unit, struct fab_module_limits *out);
/* The media of an SFF-8024 extended compliance code, and how many lanes
 * it uses (0 unknown). NULL for a code the table lacks. */
const char *mod_ext_compliance(unsigned code, uint8_t *lanes);
/* Sets out->m.refused and the note; returns -EBADMSG. */
int mod_refuse(struct fab_module_decoded *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends to the note ("; " between). */
void mod_note(struct fab_module_decoded *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Upper page 00h of a paged module (SFF-8636, CMIS) when it was read and
 * repeats the lower page's identifier; else NULL, out refused with why. */
const uint8_t *mod_page00(const struct fab_eeprom *e, struct fab_module_decoded *out);
/* The check code at byte `at` of p over bytes [from, at): 0, or -EBADMSG
 * with out refused ("NAME is 0x.., the bytes add up to 0x..") */
int mod_check_code(const uint8_t *p0, size_t from, size_t at, const char *name,
		   struct fab_module_decoded *out);
int mod_decode_sff8472(const struct fab_eeprom *e, struct fab_module_decoded *out);
int mod_decode_sff8636(const struct fab_eeprom *e, struct fab_module_decoded *out);
int mod_decode_cmis(const struct fab_eeprom *e, struct fab_module_decoded *out);
