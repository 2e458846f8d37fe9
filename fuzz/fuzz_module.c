// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the pluggable module decoders (host/module*.c:
 * SFF-8472, SFF-8636, CMIS) and the dump readers in front of them.
 *
 * Input: the first byte chooses the path, the rest is the dump.
 *   0: a flat dump (ETHTOOL_GMODULEEEPROM, `ethtool -m raw on`):
 *      fab_eeprom_from_flat() then fab_module_decode();
 *   1: pages as netlink MODULE_EEPROM_GET reads them: a presence byte for
 *      the lower page, the A2h device and each of the FAB_EEPROM_PAGES
 *      upper pages (bit 0), then their 128 bytes (256 for A2h) in order;
 *   2: `ethtool -m hex on` text: fab_ethtool_parse_eeprom(), then as 0.
 *
 * Either -EBADMSG (a refused dump: refused set and a note saying why) or a
 * module within the model's limits: lanes 1..n, at most
 * FAB_MODULE_MAX_LANES, powers and bias unknown or not negative, the
 * strings NUL-terminated; added to a RoCE model its strings are safe text
 * and the one judge (fab_mon_judge) agrees with its limits.
 *
 * Seeds: fuzz/corpus/module/ (the real dumps of fixtures/modules, an
 * SFF-8636 image of the 40G SR4 and hand-laid SFF-8472 and CMIS images:
 * mkseeds.py). Build and run: fuzz/README.md.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/ethtool.h"
#include "fabsweep/module.h"
#include "fabsweep/roce.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_limits(const struct fab_module_limits *l)
{
	const double v[4] = { l->hi_alarm, l->lo_alarm, l->hi_warn, l->lo_warn };

	for (int i = 0; i < 4; i++) /* -inf dBm is a 0 mW limit; nothing is +inf */
		FUZZ_REQUIRE(isnan(v[i]) || !(isinf(v[i]) && v[i] > 0));
}

static void check_decoded(const struct fab_module_decoded *d)
{
	const struct fab_module *m = &d->m;
	const char *const strs[] = { d->type, d->vendor, d->part_number, d->serial,
				     d->revision, d->date_code, d->media, d->note };
	const size_t caps[] = { sizeof(d->type), sizeof(d->vendor), sizeof(d->part_number),
				sizeof(d->serial), sizeof(d->revision), sizeof(d->date_code),
				sizeof(d->media), sizeof(d->note) };

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		FUZZ_REQUIRE(memchr(strs[i], 0, caps[i]));
	FUZZ_REQUIRE(m->n_lanes <= FAB_MODULE_MAX_LANES);
	FUZZ_REQUIRE(m->media_lanes <= FAB_MODULE_MAX_LANES);
	FUZZ_REQUIRE(fab_module_lanes_used(m) <= m->n_lanes);
	FUZZ_REQUIRE(m->spec < FAB_MODSPEC__COUNT);
	for (unsigned i = 0; i < m->n_lanes; i++) {
		const struct fab_module_lane *l = &d->lanes[i];
		FUZZ_REQUIRE(l->lane == i + 1);
		FUZZ_REQUIRE(isnan(l->rx_mw) || (l->rx_mw >= 0 && l->rx_mw < 7));   /* 16 bits of 0.1 uW */
		FUZZ_REQUIRE(isnan(l->tx_mw) || (l->tx_mw >= 0 && l->tx_mw < 7));
		FUZZ_REQUIRE(isnan(l->bias_ma) || (l->bias_ma >= 0 && l->bias_ma < 1000));
	}
	FUZZ_REQUIRE(isnan(m->temperature_c) || fabs(m->temperature_c) <= 128);
	FUZZ_REQUIRE(isnan(m->voltage_v) || (m->voltage_v >= 0 && m->voltage_v < 6.6));
	for (unsigned k = 0; k < FAB_MON__COUNT; k++)
		check_limits(&m->lim[k]);
}

/* Adds the module to a RoCE model as collect does; its strings are safe
 * and judging its values against its limits never fails. */
static void check_added(const struct fab_module_decoded *d)
{
	struct fab_roce *r = fab_roce_new();

	if (!r)
		return;
	struct fab_roce_system *sys = fab_roce_add_system(r);
	struct fab_eth_port *p = sys ? fab_roce_add_eth_port(r, 0) : NULL;
	if (p && fab_module_add_decoded(r, 0, d) == 0) {
		const struct fab_module *m = &r->modules.mods[0];
		const char *const strs[] = { m->type, m->vendor, m->part_number, m->serial,
					     m->revision, m->date_code, m->media, m->note };
		for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
			FUZZ_REQUIRE(!strs[i] || fuzz_text_is_safe(strs[i]));
		const struct fab_module_lane *ls = fab_module_lanes(&r->modules, m);
		for (unsigned k = 0; k < FAB_MON__COUNT; k++) {
			struct fab_module_limits lim;
			double margin;
			fab_module_limits_for(m, k, &fab_module_default_limits[k], &lim, NULL, NULL);
			/* a warning limit never lies beyond its alarm limit */
			FUZZ_REQUIRE(isnan(lim.hi_warn) || isnan(lim.hi_alarm) || lim.hi_warn <= lim.hi_alarm);
			FUZZ_REQUIRE(isnan(lim.lo_warn) || isnan(lim.lo_alarm) || lim.lo_warn >= lim.lo_alarm);
			double v = k == FAB_MON_TEMP ? m->temperature_c : k == FAB_MON_VCC ? m->voltage_v
				 : !ls ? NAN : k == FAB_MON_BIAS ? ls[0].bias_ma
				 : fab_mw_to_dbm(k == FAB_MON_RX_POWER ? ls[0].rx_mw : ls[0].tx_mw);
			unsigned lv = fab_mon_judge(v, &lim, &margin);
			FUZZ_REQUIRE(lv <= FAB_LEVEL_ALARM_HIGH);
			FUZZ_REQUIRE(!isnan(v) || lv == FAB_LEVEL_UNKNOWN);
		}
		for (unsigned i = 0; ls && i < m->n_lanes; i++)
			FUZZ_REQUIRE(!fab_lane_rx_dark(&ls[i], FAB_MODULE_DARK_DBM) || ls[i].rx_mw <= 0.001);
	}
	fab_roce_free(r);
}

static void decode(const struct fab_eeprom *e)
{
	static struct fab_module_decoded d;

	memset(&d, 0xa5, sizeof(d));
	int rc = fab_module_decode(e, &d);
	FUZZ_REQUIRE(rc == 0 || rc == -EBADMSG);
	FUZZ_REQUIRE(!rc == !d.m.refused);
	if (rc) {
		FUZZ_REQUIRE(memchr(d.note, 0, sizeof(d.note)) && d.note[0]);
		FUZZ_REQUIRE(fuzz_text_is_safe(d.note));
		return;
	}
	check_decoded(&d);
	check_added(&d);
}

static void flat(const uint8_t *buf, size_t len)
{
	static struct fab_eeprom e;
	int rc = fab_eeprom_from_flat(buf, len, &e);

	FUZZ_REQUIRE(rc == 0 || rc == -EBADMSG);
	if (!rc) {
		FUZZ_REQUIRE(e.have_lower && e.flat_len == len);
		decode(&e);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fab_eeprom e;
	static uint8_t out[2048];
	struct fuzz_in in = { data, size, 0 };
	uint8_t mode = fuzz_u8(&in);
	size_t n = 0;

	switch (mode % 3) {
	case 0:
		flat(data + in.off, size - in.off);
		break;
	case 1: {
		uint8_t lower = fuzz_u8(&in), a2 = fuzz_u8(&in), have[FAB_EEPROM_PAGES];
		fuzz_bytes(&in, have, sizeof(have));
		memset(&e, 0, sizeof(e));
		e.have_lower = lower & 1;
		e.have_a2 = a2 & 1;
		if (e.have_lower)
			fuzz_bytes(&in, e.lower, sizeof(e.lower));
		if (e.have_a2)
			fuzz_bytes(&in, e.a2, sizeof(e.a2));
		for (unsigned pg = 0; pg < FAB_EEPROM_PAGES; pg++)
			if ((e.have[pg] = have[pg] & 1))
				fuzz_bytes(&in, e.upper[pg], sizeof(e.upper[pg]));
		decode(&e);
		break;
	}
	default: {
		int rc = fab_ethtool_parse_eeprom(data + in.off, size - in.off, out, sizeof(out), &n);
		FUZZ_REQUIRE(rc == 0 || rc == -EBADMSG);
		if (!rc) {
			FUZZ_REQUIRE(n <= sizeof(out));
			flat(out, n);
		}
	}
	}
	return 0;
}
