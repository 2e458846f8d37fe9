// SPDX-License-Identifier: MIT
/*
 * SFF-8472 (SFP, SFP+, SFP28): identity in A0h, digital diagnostics in the
 * A2h device (thresholds at 0-39, calibration constants at 56-91, live
 * values at 96-105, flags at 110-117), internally or externally
 * calibrated. One lane.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "module_priv.h"

/* A0h byte 3 bits 7-4 (10G Ethernet), byte 6 (1G Ethernet), byte 8 (cables). */
static const struct {
	uint8_t byte, bit;
	const char *name;
} codes[] = {
	{ 3, 0x10, "10GBASE-SR" }, { 3, 0x20, "10GBASE-LR" }, { 3, 0x40, "10GBASE-LRM" },
	{ 3, 0x80, "10GBASE-ER" }, { 6, 0x01, "1000BASE-SX" }, { 6, 0x02, "1000BASE-LX" },
	{ 6, 0x04, "1000BASE-CX" }, { 6, 0x08, "1000BASE-T" }, { 8, 0x04, "passive copper cable" },
	{ 8, 0x08, "active cable" },
};

static void media(const uint8_t *a0, struct fab_module_decoded *out)
{
	uint8_t lanes;
	const char *name = mod_ext_compliance(a0[36], &lanes);

	for (size_t i = 0; !name && i < sizeof(codes) / sizeof(codes[0]); i++)
		if (a0[codes[i].byte] & codes[i].bit)
			name = codes[i].name;
	if (name)
		snprintf(out->media, sizeof(out->media), "%s", name);
	out->m.media_lanes = 1;
}

static double be_float(const uint8_t *p)
{
	uint32_t u = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	float f;

	memcpy(&f, &u, sizeof(f));
	return isfinite(f) ? f : 0;
}

/* slope (unsigned 8.8) * raw + offset (signed), SFF-8472's external calibration */
static double cal(const uint8_t *a2, unsigned at, double raw)
{
	return u16be(a2 + at) / 256.0 * raw + s16be(a2 + at + 2);
}

/* A calibrated result in its unit: SFF-8472 defines it as a 16-bit value
 * (signed for the temperature); outside that range, or not a number (the
 * Rx power's coefficients are floats), it is no reading. */
static double cal_result(double x, bool is_signed, double unit)
{
	double lo = is_signed ? -32768 : 0, hi = is_signed ? 32767 : 65535;

	return x >= lo && x <= hi ? x * unit : NAN;
}

static uint32_t flag_byte(uint8_t b, unsigned mon_hi, unsigned mon_lo, bool warn)
{
	uint32_t f = 0;
	unsigned hi = warn ? FAB_MODF_HI_WARN : FAB_MODF_HI_ALARM;
	unsigned lo = warn ? FAB_MODF_LO_WARN : FAB_MODF_LO_ALARM;

	if (b & 0x80)
		f |= FAB_MODF(mon_hi, hi);
	if (b & 0x40)
		f |= FAB_MODF(mon_hi, lo);
	if (b & 0x20)
		f |= FAB_MODF(mon_lo, hi);
	if (b & 0x10)
		f |= FAB_MODF(mon_lo, lo);
	return f;
}

static void diagnostics(const uint8_t *a2, bool external, struct fab_module_decoded *out)
{
	struct fab_module *m = &out->m;
	struct fab_module_lane *l = &out->lanes[0];
	int t = s16be(a2 + 96);
	unsigned v = u16be(a2 + 98), b = u16be(a2 + 100), tx = u16be(a2 + 102), rx = u16be(a2 + 104);

	m->monitors = true;
	if (external) {
		double r = rx, pw = 0, x = 1;
		/* Rx_PWR(0) at 72 ... Rx_PWR(4) at 56: a polynomial of the raw value */
		for (int k = 0; k <= 4; k++, x *= r)
			pw += be_float(a2 + 72 - 4 * k) * x;
		m->temperature_c = cal_result(cal(a2, 84, t), true, temp_c(1));
		m->voltage_v = cal_result(cal(a2, 88, v), false, vcc_v(1));
		l->bias_ma = cal_result(cal(a2, 76, b), false, bias_ma(1));
		l->tx_mw = cal_result(cal(a2, 80, tx), false, power_mw(1));
		l->rx_mw = cal_result(pw, false, power_mw(1));
	} else {
		m->temperature_c = temp_c(t);
		m->voltage_v = vcc_v(v);
		l->bias_ma = bias_ma(b);
		l->tx_mw = power_mw(tx);
		l->rx_mw = power_mw(rx);
	}
	mod_limits(a2 + 0, TH_TEMP, &m->lim[FAB_MON_TEMP]);
	mod_limits(a2 + 8, TH_VCC, &m->lim[FAB_MON_VCC]);
	mod_limits(a2 + 16, TH_BIAS, &m->lim[FAB_MON_BIAS]);
	mod_limits(a2 + 24, TH_POWER, &m->lim[FAB_MON_TX_POWER]);
	mod_limits(a2 + 32, TH_POWER, &m->lim[FAB_MON_RX_POWER]);
	m->flags_valid = true;
	m->flags = flag_byte(a2[112], FAB_MON_TEMP, FAB_MON_VCC, false) |
		   flag_byte(a2[116], FAB_MON_TEMP, FAB_MON_VCC, true);
	l->flags = (flag_byte((uint8_t)(a2[112] << 4), FAB_MON_BIAS, FAB_MON_TX_POWER, false) |
		    flag_byte((uint8_t)(a2[116] << 4), FAB_MON_BIAS, FAB_MON_TX_POWER, true) |
		    /* byte 113: bits 7-6 only (5-0 are reserved) */
		    flag_byte(a2[113] & 0xc0, FAB_MON_RX_POWER, FAB_MON_RX_POWER, false) |
		    flag_byte(a2[117] & 0xc0, FAB_MON_RX_POWER, FAB_MON_RX_POWER, true));
	if (a2[110] & 0x02)
		l->flags |= FAB_LANEF_RX_LOS;
	if (a2[110] & 0x04)
		l->flags |= FAB_LANEF_TX_FAULT;
}

int mod_decode_sff8472(const struct fab_eeprom *e, struct fab_module_decoded *out)
{
	uint8_t a0[256];
	struct fab_module *m = &out->m;

	m->spec = FAB_MODSPEC_SFF8472;
	if (!e->have[0])
		return mod_refuse(out, "only %d bytes of A0h: no identity", FAB_EEPROM_PAGE);
	memcpy(a0, e->lower, 128);
	memcpy(a0 + 128, e->upper[0], 128);
	if (a0[1] != 0x04)
		return mod_refuse(out, "extended identifier 0x%02x (an SFP's is 0x04)", a0[1]);
	if (mod_check_code(a0, 0, 63, "check code CC_BASE", out) ||
	    mod_check_code(a0, 64, 95, "check code CC_EXT", out))
		return -EBADMSG;
	m->n_lanes = 1;
	mod_ascii(out->vendor, sizeof(out->vendor), a0 + 20, 16);
	mod_ascii(out->part_number, sizeof(out->part_number), a0 + 40, 16);
	mod_ascii(out->revision, sizeof(out->revision), a0 + 56, 4);
	mod_ascii(out->serial, sizeof(out->serial), a0 + 68, 16);
	mod_date(out->date_code, sizeof(out->date_code), a0 + 84);
	media(a0, out);
	if ((a0[8] & 0x0c) && a0[18])
		m->length_m = a0[18]; /* a cable's length, m */

	if (!(a0[92] & 0x40))
		return 0; /* no digital diagnostics */
	if (!e->have_a2) {
		mod_note(out, "the diagnostics (A2h) were not read");
		return 0;
	}
	if (mod_check_code(e->a2, 0, 95, "check code CC_DMI of A2h", out))
		return -EBADMSG;
	diagnostics(e->a2, a0[92] & 0x10, out);
	if (!(a0[92] & 0x08))
		mod_note(out, "Rx power is OMA, not average power");
	return 0;
}
