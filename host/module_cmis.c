// SPDX-License-Identifier: MIT
/*
 * CMIS (QSFP-DD, OSFP, QSFP112; CMIS 4.0 and 5.x): module-level monitors
 * and flags in the lower page, identity in upper page 00h, the monitors
 * implemented in page 01h, thresholds in page 02h, the lanes' flags and
 * monitors in page 11h (bank 0: lanes 1-8). A flat module has the lower
 * page and page 00h only.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "module_priv.h"

/* Upper page 00h byte 212: media interface technology. */
static const char *const tech[] = {
	"850 nm VCSEL", "1310 nm VCSEL", "1550 nm VCSEL", "1310 nm FP", "1310 nm DFB",
	"1550 nm DFB", "1310 nm EML", "1550 nm EML", "other", "1490 nm DFB",
	"copper cable, unequalized", "copper cable, passive equalized",
	"copper cable, near and far end limiting active equalizers",
	"copper cable, far end limiting active equalizers",
	"copper cable, near end limiting active equalizers",
	"copper cable, linear active equalizers",
};

/* A flag byte of page 11h: bit k is lane k + 1. */
static void lane_bits(struct fab_module_decoded *out, uint8_t b, uint32_t flag)
{
	for (unsigned k = 0; k < 8; k++)
		if (b & (1u << k))
			out->lanes[k].flags |= flag;
}

/* Four consecutive flag bytes: high alarm, low alarm, high warning, low warning. */
static void lane_flags4(struct fab_module_decoded *out, const uint8_t *p, unsigned mon)
{
	lane_bits(out, p[0], FAB_MODF(mon, FAB_MODF_HI_ALARM));
	lane_bits(out, p[1], FAB_MODF(mon, FAB_MODF_LO_ALARM));
	lane_bits(out, p[2], FAB_MODF(mon, FAB_MODF_HI_WARN));
	lane_bits(out, p[3], FAB_MODF(mon, FAB_MODF_LO_WARN));
}

static void lanes(const struct fab_eeprom *e, struct fab_module_decoded *out)
{
	const uint8_t *adv = e->have[1] ? e->upper[1] : NULL;
	unsigned mon = adv ? adv[160 - 128] : 0x07; /* without page 01h: assume all */
	unsigned shift = (mon >> 3) & 3;            /* Tx bias multiplier 1, 2, 4; 3 reserved */

	out->m.n_lanes = 8;
	if ((mon & 0x01) && shift == 3) {
		mon &= ~0x01u; /* a multiplier the specification does not define: no bias */
		mod_note(out, "page 01h byte 160: reserved Tx bias multiplier, bias not decoded");
	}
	for (unsigned k = 0; k < 8; k++) {
		struct fab_module_lane *l = &out->lanes[k];
		if (mon & 0x01)
			l->bias_ma = bias_ma(u16be(up(e, 0x11, 170 + 2 * k))) * (1u << shift);
		if (mon & 0x02)
			l->tx_mw = power_mw(u16be(up(e, 0x11, 154 + 2 * k)));
		if (mon & 0x04)
			l->rx_mw = power_mw(u16be(up(e, 0x11, 186 + 2 * k)));
	}
	out->m.flags_valid = true;
	lane_bits(out, *up(e, 0x11, 135), FAB_LANEF_TX_FAULT);
	lane_bits(out, *up(e, 0x11, 136), FAB_LANEF_TX_LOS);
	lane_flags4(out, up(e, 0x11, 139), FAB_MON_TX_POWER);
	lane_flags4(out, up(e, 0x11, 143), FAB_MON_BIAS);
	lane_bits(out, *up(e, 0x11, 147), FAB_LANEF_RX_LOS);
	lane_flags4(out, up(e, 0x11, 149), FAB_MON_RX_POWER);
	if (adv && !(adv[151 - 128] & 0x10))
		mod_note(out, "Rx power is OMA, not average power");
}

int mod_decode_cmis(const struct fab_eeprom *e, struct fab_module_decoded *out)
{
	const uint8_t *lo = e->lower;
	struct fab_module *m = &out->m;

	m->spec = FAB_MODSPEC_CMIS;
	const uint8_t *p0 = mod_page00(e, out);
	if (!p0 || mod_check_code(p0, 0, 94, "page 00h check code", out))
		return -EBADMSG;
	mod_ascii(out->vendor, sizeof(out->vendor), up(e, 0, 129), 16);
	mod_ascii(out->part_number, sizeof(out->part_number), up(e, 0, 148), 16);
	mod_ascii(out->revision, sizeof(out->revision), up(e, 0, 164), 2);
	mod_ascii(out->serial, sizeof(out->serial), up(e, 0, 166), 16);
	mod_date(out->date_code, sizeof(out->date_code), up(e, 0, 182));
	unsigned t = *up(e, 0, 212);
	snprintf(out->media, sizeof(out->media), "%s",
		 t < sizeof(tech) / sizeof(tech[0]) ? tech[t] : "unknown");
	unsigned len = *up(e, 0, 202); /* bits 7-6: 0.1, 1, 10, 100 m; bits 5-0: value */
	static const double mult[4] = { 0.1, 1, 10, 100 };
	if (len & 0x3f)
		m->length_m = (len & 0x3f) * mult[len >> 6];
	/* the first application: how many media lanes it uses */
	if (lo[86] != 0xff && lo[86] != 0 && (lo[88] & 0x0f) <= FAB_MODULE_MAX_LANES)
		m->media_lanes = lo[88] & 0x0f; /* more than a bank has: unknown */

	/* module-level monitors (bytes 14-17) and flags (byte 9) */
	int temp = s16be(lo + 14);
	if (temp != 0 && temp != -1) {
		m->monitors = true;
		m->temperature_c = temp_c(temp);
		m->voltage_v = vcc_v(u16be(lo + 16));
	}
	m->flags_valid = true;
	uint8_t f = lo[9];
	if (f & 0x01)
		m->flags |= FAB_MODF(FAB_MON_TEMP, FAB_MODF_HI_ALARM);
	if (f & 0x02)
		m->flags |= FAB_MODF(FAB_MON_TEMP, FAB_MODF_LO_ALARM);
	if (f & 0x04)
		m->flags |= FAB_MODF(FAB_MON_TEMP, FAB_MODF_HI_WARN);
	if (f & 0x08)
		m->flags |= FAB_MODF(FAB_MON_TEMP, FAB_MODF_LO_WARN);
	if (f & 0x10)
		m->flags |= FAB_MODF(FAB_MON_VCC, FAB_MODF_HI_ALARM);
	if (f & 0x20)
		m->flags |= FAB_MODF(FAB_MON_VCC, FAB_MODF_LO_ALARM);
	if (f & 0x40)
		m->flags |= FAB_MODF(FAB_MON_VCC, FAB_MODF_HI_WARN);
	if (f & 0x80)
		m->flags |= FAB_MODF(FAB_MON_VCC, FAB_MODF_LO_WARN);

	if (lo[2] & 0x80) {
		mod_note(out, "flat memory: no thresholds or lane monitors");
		return 0;
	}
	if (e->have[2]) {
		mod_limits(up(e, 2, 128), TH_TEMP, &m->lim[FAB_MON_TEMP]);
		mod_limits(up(e, 2, 136), TH_VCC, &m->lim[FAB_MON_VCC]);
		mod_limits(up(e, 2, 176), TH_POWER, &m->lim[FAB_MON_TX_POWER]);
		mod_limits(up(e, 2, 184), TH_BIAS, &m->lim[FAB_MON_BIAS]);
		mod_limits(up(e, 2, 192), TH_POWER, &m->lim[FAB_MON_RX_POWER]);
	} else {
		mod_note(out, "page 02h not read: no thresholds");
	}
	if (e->have[0x11])
		lanes(e, out);
	else
		mod_note(out, "page 11h not read: no lane monitors");
	if (m->media_lanes > m->n_lanes && m->n_lanes)
		m->media_lanes = m->n_lanes;
	return 0;
}
