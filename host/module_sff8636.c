// SPDX-License-Identifier: MIT
/*
 * SFF-8636 (QSFP+, QSFP28; SFF-8436 before it): the lower page's live
 * values and flags, upper page 00h's identity, upper page 03h's
 * thresholds (paged modules only: a flat module has none, a dump that
 * stops at 256 bytes lacks them).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "module_priv.h"

/* Upper page 00h, byte 131: the base Ethernet compliance bits. */
static const struct {
	uint8_t bit;
	const char *name;
} base_codes[] = {
	{ 0x04, "40GBASE-SR4" }, { 0x02, "40GBASE-LR4" }, { 0x08, "40GBASE-CR4" },
	{ 0x01, "40G active cable" }, { 0x10, "10GBASE-SR" }, { 0x20, "10GBASE-LR" },
	{ 0x40, "10GBASE-LRM" },
};

/* Byte 147 bits 7-4: transmitter technology. */
static const char *const tx_tech[16] = {
	"850 nm VCSEL", "1310 nm VCSEL", "1550 nm VCSEL", "1310 nm FP", "1310 nm DFB",
	"1550 nm DFB", "1310 nm EML", "1550 nm EML", "other", "1490 nm DFB",
	"copper cable, unequalized", "copper cable, passive equalized",
	"copper cable, near and far end limiting active equalizers",
	"copper cable, far end limiting active equalizers",
	"copper cable, near end limiting active equalizers",
	"copper cable, linear active equalizers",
};

static void media(const struct fab_eeprom *e, struct fab_module_decoded *out)
{
	unsigned eth = *up(e, 0, 131);
	uint8_t lanes = 0;
	const char *name = NULL;

	if (eth & 0x80)
		name = mod_ext_compliance(*up(e, 0, 192), &lanes);
	for (size_t i = 0; !name && i < sizeof(base_codes) / sizeof(base_codes[0]); i++)
		if (eth & base_codes[i].bit) {
			name = base_codes[i].name;
			lanes = 4;
		}
	if (!name)
		name = tx_tech[*up(e, 0, 147) >> 4];
	snprintf(out->media, sizeof(out->media), "%s", name);
	out->m.media_lanes = lanes;
}

/* Two lanes' four flags in one byte: lane a in bits 7-4, lane a+1 in 3-0,
 * as high alarm, low alarm, high warning, low warning. */
static void lane_flags(struct fab_module_decoded *out, unsigned mon, uint8_t b, unsigned a)
{
	for (unsigned half = 0; half < 2; half++) {
		unsigned v = half ? b & 0x0f : b >> 4;
		struct fab_module_lane *l = &out->lanes[a + half];
		if (v & 8)
			l->flags |= FAB_MODF(mon, FAB_MODF_HI_ALARM);
		if (v & 4)
			l->flags |= FAB_MODF(mon, FAB_MODF_LO_ALARM);
		if (v & 2)
			l->flags |= FAB_MODF(mon, FAB_MODF_HI_WARN);
		if (v & 1)
			l->flags |= FAB_MODF(mon, FAB_MODF_LO_WARN);
	}
}

static uint32_t module_flags(uint8_t b, unsigned mon)
{
	uint32_t f = 0;

	if (b & 0x80)
		f |= FAB_MODF(mon, FAB_MODF_HI_ALARM);
	if (b & 0x40)
		f |= FAB_MODF(mon, FAB_MODF_LO_ALARM);
	if (b & 0x20)
		f |= FAB_MODF(mon, FAB_MODF_HI_WARN);
	if (b & 0x10)
		f |= FAB_MODF(mon, FAB_MODF_LO_WARN);
	return f;
}

int mod_decode_sff8636(const struct fab_eeprom *e, struct fab_module_decoded *out)
{
	const uint8_t *lo = e->lower;
	struct fab_module *m = &out->m;

	m->spec = FAB_MODSPEC_SFF8636;
	const uint8_t *p0 = mod_page00(e, out);
	if (!p0 || mod_check_code(p0, 0, 63, "check code CC_BASE", out))
		return -EBADMSG;
	if (mod_check_code(p0, 64, 95, "check code CC_EXT", out))
		return -EBADMSG;
	m->n_lanes = 4;
	mod_ascii(out->vendor, sizeof(out->vendor), up(e, 0, 148), 16);
	mod_ascii(out->part_number, sizeof(out->part_number), up(e, 0, 168), 16);
	mod_ascii(out->revision, sizeof(out->revision), up(e, 0, 184), 2);
	mod_ascii(out->serial, sizeof(out->serial), up(e, 0, 196), 16);
	mod_date(out->date_code, sizeof(out->date_code), up(e, 0, 212));
	media(e, out);
	if (*up(e, 0, 146))
		m->length_m = *up(e, 0, 146);

	/* Live values: a temperature of 0 or all ones is no monitoring
	 * (passive copper has none), as ethtool judges it too. */
	int t = s16be(lo + 22);
	if (t != 0 && t != -1) {
		m->monitors = true;
		m->temperature_c = temp_c(t);
		m->voltage_v = vcc_v(u16be(lo + 26));
		bool txp = *up(e, 0, 220) & 0x04; /* Tx power measured */
		for (unsigned k = 0; k < 4; k++) {
			out->lanes[k].rx_mw = power_mw(u16be(lo + 34 + 2 * k));
			out->lanes[k].bias_ma = bias_ma(u16be(lo + 42 + 2 * k));
			if (txp)
				out->lanes[k].tx_mw = power_mw(u16be(lo + 50 + 2 * k));
		}
		if (!(*up(e, 0, 220) & 0x08))
			mod_note(out, "Rx power is OMA, not average power");
	}
	/* Latched flags (bytes 3-14) */
	m->flags_valid = true;
	m->flags = module_flags(lo[6], FAB_MON_TEMP) | module_flags(lo[7], FAB_MON_VCC);
	lane_flags(out, FAB_MON_RX_POWER, lo[9], 0);
	lane_flags(out, FAB_MON_RX_POWER, lo[10], 2);
	lane_flags(out, FAB_MON_BIAS, lo[11], 0);
	lane_flags(out, FAB_MON_BIAS, lo[12], 2);
	lane_flags(out, FAB_MON_TX_POWER, lo[13], 0);
	lane_flags(out, FAB_MON_TX_POWER, lo[14], 2);
	for (unsigned k = 0; k < 4; k++) {
		if (lo[3] & (1u << k))
			out->lanes[k].flags |= FAB_LANEF_RX_LOS;
		if (lo[3] & (0x10u << k))
			out->lanes[k].flags |= FAB_LANEF_TX_LOS;
		if (lo[4] & (1u << k))
			out->lanes[k].flags |= FAB_LANEF_TX_FAULT;
	}

	/* Thresholds: upper page 03h of a paged module. */
	if (lo[2] & 0x04) {
		mod_note(out, "flat memory: no thresholds");
	} else if (!e->have[3]) {
		mod_note(out, e->flat_len ? "a dump of %zu bytes stops before page 03h: no thresholds"
					  : "page 03h not read: no thresholds",
			 e->flat_len);
	} else {
		mod_limits(up(e, 3, 128), TH_TEMP, &m->lim[FAB_MON_TEMP]);
		mod_limits(up(e, 3, 144), TH_VCC, &m->lim[FAB_MON_VCC]);
		mod_limits(up(e, 3, 176), TH_POWER, &m->lim[FAB_MON_RX_POWER]);
		mod_limits(up(e, 3, 184), TH_BIAS, &m->lim[FAB_MON_BIAS]);
		mod_limits(up(e, 3, 192), TH_POWER, &m->lim[FAB_MON_TX_POWER]);
	}
	return 0;
}
