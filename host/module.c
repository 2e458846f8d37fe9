// SPDX-License-Identifier: MIT
/*
 * Pluggable module EEPROMs: a flat dump into pages, the decoder an
 * identifier calls for (module_sff8472.c, module_sff8636.c, module_cmis.c),
 * what they share, and a decoded module into the RoCE model. Pure but for
 * the last; every offset is checked against what was read.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "module_priv.h"

/* SFF-8024 identifiers by the memory map they use. */
static bool is_sfp(unsigned id)
{
	return id == 0x03 || id == 0x0b; /* SFP/SFP+/SFP28, DWDM-SFP */
}

static bool is_qsfp(unsigned id)
{
	return id == 0x0c || id == 0x0d || id == 0x11; /* QSFP, QSFP+, QSFP28 */
}

static bool is_cmis(unsigned id)
{
	return id == 0x18 || id == 0x19 || id == 0x1b || id == 0x1e || id == 0x1f || id == 0x20;
}

int fab_eeprom_from_flat(const uint8_t *buf, size_t len, struct fab_eeprom *out)
{
	static const uint8_t cmis_pages[] = { 0x00, 0x01, 0x02, 0x10, 0x11 };

	memset(out, 0, sizeof(*out));
	out->flat_len = len;
	if (len < FAB_EEPROM_PAGE || len % FAB_EEPROM_PAGE)
		return fab_err(-EBADMSG, "a module EEPROM of %zu bytes (not whole pages of 128)", len);
	memcpy(out->lower, buf, FAB_EEPROM_PAGE);
	out->have_lower = true;
	unsigned id = buf[0];
	if (is_sfp(id)) {
		if (len != 256 && len != 512)
			return fab_err(-EBADMSG, "an SFP EEPROM of %zu bytes (256 or 512)", len);
		memcpy(out->upper[0], buf + 128, FAB_EEPROM_PAGE);
		out->have[0] = true;
		if (len == 512) {
			memcpy(out->a2, buf + 256, sizeof(out->a2));
			out->have_a2 = true;
		}
		return 0;
	}
	if (is_qsfp(id)) {
		if (len != 256 && len != 640)
			return fab_err(-EBADMSG, "a QSFP EEPROM of %zu bytes (256 or 640)", len);
		for (size_t p = 0; (p + 2) * FAB_EEPROM_PAGE <= len; p++) {
			memcpy(out->upper[p], buf + (p + 1) * FAB_EEPROM_PAGE, FAB_EEPROM_PAGE);
			out->have[p] = true;
		}
		return 0;
	}
	if (is_cmis(id)) {
		if (len != 256 && len != 768)
			return fab_err(-EBADMSG, "a CMIS EEPROM of %zu bytes (256 or 768)", len);
		for (size_t k = 0; k < ARRAY_SIZE(cmis_pages) && (k + 2) * FAB_EEPROM_PAGE <= len; k++) {
			memcpy(out->upper[cmis_pages[k]], buf + (k + 1) * FAB_EEPROM_PAGE, FAB_EEPROM_PAGE);
			out->have[cmis_pages[k]] = true;
		}
		return 0;
	}
	/* an identifier no layout is known for: keep page 0, the decoder refuses */
	if (len >= 256) {
		memcpy(out->upper[0], buf + 128, FAB_EEPROM_PAGE);
		out->have[0] = true;
	}
	return 0;
}

int mod_refuse(struct fab_module_decoded *out, const char *fmt, ...)
{
	va_list ap;

	out->m.refused = true;
	va_start(ap, fmt);
	vsnprintf(out->note, sizeof(out->note), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

void mod_note(struct fab_module_decoded *out, const char *fmt, ...)
{
	size_t n = strlen(out->note);
	va_list ap;

	if (n && n + 2 < sizeof(out->note)) {
		memcpy(out->note + n, "; ", 3);
		n += 2;
	}
	if (n + 1 >= sizeof(out->note))
		return;
	va_start(ap, fmt);
	vsnprintf(out->note + n, sizeof(out->note) - n, fmt, ap);
	va_end(ap);
}

unsigned mod_checksum(const uint8_t *p, size_t from, size_t to)
{
	unsigned sum = 0;

	for (size_t i = from; i < to; i++)
		sum += p[i];
	return sum & 0xff;
}

void mod_ascii(char *dst, size_t cap, const uint8_t *p, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, p, len);
	while (len && (dst[len - 1] == ' ' || dst[len - 1] == '\0'))
		len--;
	dst[len] = '\0';
}

void mod_date(char *dst, size_t cap, const uint8_t *p)
{
	for (int i = 0; i < 6; i++)
		if (p[i] < '0' || p[i] > '9') {
			mod_ascii(dst, cap, p, 8);
			return;
		}
	snprintf(dst, cap, "20%c%c-%c%c-%c%c", p[0], p[1], p[2], p[3], p[4], p[5]);
}

static double to_unit(const uint8_t *p, int unit)
{
	switch (unit) {
	case TH_TEMP:
		return temp_c(s16be(p));
	case TH_VCC:
		return vcc_v(u16be(p));
	case TH_BIAS:
		return bias_ma(u16be(p));
	default: /* power thresholds are compared in dBm */
		return fab_mw_to_dbm(power_mw(u16be(p)));
	}
}

void mod_limits(const uint8_t *p, int unit, struct fab_module_limits *out)
{
	bool any = false;

	for (int i = 0; i < 8; i++)
		any |= p[i] != 0;
	if (!any) {
		*out = (struct fab_module_limits){ NAN, NAN, NAN, NAN };
		return;
	}
	out->hi_alarm = to_unit(p, unit);
	out->lo_alarm = to_unit(p + 2, unit);
	out->hi_warn = to_unit(p + 4, unit);
	out->lo_warn = to_unit(p + 6, unit);
}

/* SFF-8024 Table 4-4, the codes fabrics use; lanes: media lanes of the
 * interface (a single-wavelength 100G is one). */
static const struct {
	uint8_t code, lanes;
	const char *name;
} ext_codes[] = {
	{ 0x01, 4, "100G AOC" },        { 0x02, 4, "100GBASE-SR4" },   { 0x03, 4, "100GBASE-LR4" },
	{ 0x04, 4, "100GBASE-ER4" },    { 0x05, 10, "100GBASE-SR10" }, { 0x06, 4, "100G CWDM4" },
	{ 0x07, 4, "100G PSM4" },       { 0x08, 4, "100G ACC" },       { 0x09, 4, "100G CWDM4" },
	{ 0x0b, 4, "100GBASE-CR4" },    { 0x0c, 1, "25GBASE-CR CA-S" }, { 0x0d, 1, "25GBASE-CR CA-N" },
	{ 0x10, 4, "40GBASE-ER4" },     { 0x11, 4, "4x10GBASE-SR" },   { 0x12, 4, "40G PSM4" },
	{ 0x17, 4, "100G CLR4" },       { 0x18, 4, "100G AOC" },       { 0x19, 4, "100G ACC" },
	{ 0x1f, 4, "40G SWDM4" },       { 0x20, 4, "100G SWDM4" },     { 0x25, 1, "100GBASE-DR" },
	{ 0x26, 1, "100G-FR" },         { 0x27, 1, "100G-LR" },        { 0x40, 4, "200GBASE-CR4" },
	{ 0x41, 4, "200GBASE-SR4" },    { 0x42, 4, "200GBASE-DR4" },   { 0x43, 4, "200GBASE-FR4" },
	{ 0x44, 4, "200G PSM4" },       { 0x46, 4, "200GBASE-LR4" },
};

const uint8_t *mod_page00(const struct fab_eeprom *e, struct fab_module_decoded *out)
{
	if (!e->have[0]) {
		mod_refuse(out, "no upper page 00h: no identity");
		return NULL;
	}
	if (e->upper[0][0] != e->lower[0]) {
		mod_refuse(out, "identifier 0x%02x in the lower page, 0x%02x in upper page 00h", e->lower[0],
			   e->upper[0][0]);
		return NULL;
	}
	return e->upper[0];
}

int mod_check_code(const uint8_t *p0, size_t from, size_t at, const char *name,
		   struct fab_module_decoded *out)
{
	unsigned sum = mod_checksum(p0, from, at);

	return sum == p0[at] ? 0
			     : mod_refuse(out, "%s is 0x%02x, the bytes add up to 0x%02x", name, p0[at], sum);
}

const char *mod_ext_compliance(unsigned code, uint8_t *lanes)
{
	for (size_t i = 0; i < ARRAY_SIZE(ext_codes); i++)
		if (ext_codes[i].code == code) {
			*lanes = ext_codes[i].lanes;
			return ext_codes[i].name;
		}
	*lanes = 0;
	return NULL;
}

static void init(struct fab_module_decoded *out, unsigned n_lanes)
{
	memset(out, 0, sizeof(*out));
	out->m.identifier = -1;
	out->m.length_m = out->m.temperature_c = out->m.voltage_v = NAN;
	out->m.n_lanes = (uint8_t)n_lanes;
	for (unsigned k = 0; k < FAB_MON__COUNT; k++)
		out->m.lim[k] = (struct fab_module_limits){ NAN, NAN, NAN, NAN };
	for (unsigned k = 0; k < FAB_MODULE_MAX_LANES; k++)
		out->lanes[k] = (struct fab_module_lane){ .lane = (uint8_t)(k + 1), .rx_mw = NAN,
							  .tx_mw = NAN, .bias_ma = NAN };
}

int fab_module_decode(const struct fab_eeprom *e, struct fab_module_decoded *out)
{
	init(out, 0);
	if (!e->have_lower)
		return mod_refuse(out, "no lower page read");
	unsigned id = e->lower[0];
	out->m.identifier = (int16_t)id;
	const char *t = fab_module_type_name((int)id);
	if (t)
		snprintf(out->type, sizeof(out->type), "%s", t);
	bool blank = true;
	for (size_t i = 0; i < FAB_EEPROM_PAGE && blank; i++)
		blank = e->lower[i] == 0 || e->lower[i] == 0xff;
	if (blank)
		return mod_refuse(out, "the lower page is all 0x%02x: no module data", e->lower[0]);
	if (is_sfp(id))
		return mod_decode_sff8472(e, out);
	if (is_qsfp(id))
		return mod_decode_sff8636(e, out);
	if (is_cmis(id))
		return mod_decode_cmis(e, out);
	return mod_refuse(out, "identifier 0x%02x: not a module this decoder knows", id);
}

/* the decoders set n_lanes; init left the lanes unknown */
int fab_module_add_decoded(struct fab_roce *r, uint32_t port_idx, const struct fab_module_decoded *d)
{
	unsigned n = d->m.refused ? 0 : d->m.n_lanes;
	struct fab_module *m = fab_modules_add(&r->modules, port_idx, n);

	if (!m)
		return -ENOMEM;
	uint32_t lf = m->lane_first;
	*m = d->m;
	m->port_idx = port_idx;
	m->lane_first = lf;
	m->n_lanes = (uint8_t)n;
	m->type = *d->type ? fab_roce_strdup_safe(r, d->type) : NULL;
	m->vendor = *d->vendor ? fab_roce_strdup_safe(r, d->vendor) : NULL;
	m->part_number = *d->part_number ? fab_roce_strdup_safe(r, d->part_number) : NULL;
	m->serial = *d->serial ? fab_roce_strdup_safe(r, d->serial) : NULL;
	m->revision = *d->revision ? fab_roce_strdup_safe(r, d->revision) : NULL;
	m->date_code = *d->date_code ? fab_roce_strdup_safe(r, d->date_code) : NULL;
	m->media = *d->media ? fab_roce_strdup_safe(r, d->media) : NULL;
	m->note = *d->note ? fab_roce_strdup_safe(r, d->note) : NULL;
	if (n)
		memcpy(&r->modules.lanes[lf], d->lanes, n * sizeof(d->lanes[0]));
	return 0;
}
