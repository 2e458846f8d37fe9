// SPDX-License-Identifier: MIT
/*
 * The module EEPROM decoders on real dumps (fixtures/modules: a QSFP28's
 * 640 and 256 bytes, its thresholds as ethtool decoded them, a copper SFP)
 * and on the values `ethtool -m` printed for a 40G SR4 with dark lanes;
 * memory images built byte by byte from SFF-8472 and CMIS (no real dump
 * with diagnostics was found) with values worked out by hand; every
 * refusal: checksums, identifiers, lengths, an empty memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/ethtool.h"
#include "fabsweep/module.h"
#include "unit/modfix.h"

#define NEAR(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static int load_dump(const char *rel, uint8_t *raw, size_t *len, struct fab_eeprom *e)
{
	size_t tl = 0;
	char *t = mfix_slurp(rel, &tl);
	int err;

	assert_non_null(t);
	err = fab_ethtool_parse_eeprom((const uint8_t *)t, tl, raw, 1024, len);
	free(t);
	return err ? err : fab_eeprom_from_flat(raw, *len, e);
}

static void decode_file(const char *rel, struct fab_module_decoded *d, size_t expect_len)
{
	static uint8_t raw[1024];
	static struct fab_eeprom e;
	size_t len;

	assert_int_equal(load_dump(rel, raw, &len, &e), 0);
	assert_int_equal(len, expect_len);
	assert_int_equal(fab_module_decode(&e, d), 0);
	assert_false(d->m.refused);
}

static void identity_mma1b00(const struct fab_module_decoded *d)
{
	assert_int_equal(d->m.spec, FAB_MODSPEC_SFF8636);
	assert_int_equal(d->m.identifier, 0x11);
	assert_string_equal(d->type, "QSFP28");
	assert_string_equal(d->vendor, "Mellanox");
	assert_string_equal(d->part_number, "MMA1B00-SS1");
	assert_string_equal(d->serial, "MT1834FT03846");
	assert_string_equal(d->revision, "A2");
	assert_string_equal(d->date_code, "2018-07-03");
	assert_string_equal(d->media, "100GBASE-SR4"); /* extended compliance 0x02 */
	assert_int_equal(d->m.media_lanes, 4);
	assert_int_equal(d->m.n_lanes, 4);
	assert_true(d->m.monitors);
	assert_true(d->m.flags_valid);
	assert_int_equal(d->m.flags, 0);
}

/* The 640-byte dump against the thresholds ethtool decoded from it. */
static void test_qsfp28_640(void **state)
{
	struct fab_module_decoded d;
	char *ref = mfix_slurp("modules/qsfp28_mma1b00_thresholds.txt", NULL);

	(void)state;
	decode_file("modules/qsfp28_mma1b00_640b.hex", &d, 640);
	identity_mma1b00(&d);
	NEAR(d.m.temperature_c, 0x2779 / 256.0, 1e-9); /* bytes 22-23 */
	NEAR(d.m.voltage_v, 0x82c5 / 10000.0, 1e-9);   /* bytes 26-27 */
	/* no link: every lane reads 0, and the module latched what that means:
	 * byte 3 0xff (Rx and Tx loss of signal on all four), bytes 9-10 0x55
	 * (each lane's Rx power low alarm and low warning) */
	for (int k = 0; k < 4; k++) {
		assert_true(d.lanes[k].rx_mw == 0 && d.lanes[k].tx_mw == 0 && d.lanes[k].bias_ma == 0);
		assert_int_equal(d.lanes[k].flags, FAB_MODF(FAB_MON_RX_POWER, FAB_MODF_LO_ALARM) |
							   FAB_MODF(FAB_MON_RX_POWER, FAB_MODF_LO_WARN) |
							   FAB_LANEF_RX_LOS | FAB_LANEF_TX_LOS);
	}
	assert_string_equal(d.note, "");
	assert_non_null(ref);
	const struct fab_module_limits *b = &d.m.lim[FAB_MON_BIAS], *t = &d.m.lim[FAB_MON_TEMP];
	const struct fab_module_limits *v = &d.m.lim[FAB_MON_VCC], *tx = &d.m.lim[FAB_MON_TX_POWER];
	NEAR(b->hi_alarm, mfix_value(ref, "Laser bias current high alarm threshold", 0), 5e-4);
	NEAR(b->lo_alarm, mfix_value(ref, "Laser bias current low alarm threshold", 0), 5e-4);
	NEAR(b->hi_warn, mfix_value(ref, "Laser bias current high warning threshold", 0), 5e-4);
	NEAR(b->lo_warn, mfix_value(ref, "Laser bias current low warning threshold", 0), 5e-4);
	/* power thresholds are kept in dBm: back to the mW ethtool printed */
	NEAR(pow(10, tx->hi_alarm / 10), mfix_value(ref, "Laser output power high alarm threshold", 0), 5e-5);
	NEAR(pow(10, tx->lo_alarm / 10), mfix_value(ref, "Laser output power low alarm threshold", 0), 5e-5);
	NEAR(pow(10, tx->hi_warn / 10), mfix_value(ref, "Laser output power high warning threshold", 0), 5e-5);
	NEAR(pow(10, tx->lo_warn / 10), mfix_value(ref, "Laser output power low warning threshold", 0), 5e-5);
	NEAR(t->hi_alarm, mfix_value(ref, "Module temperature high alarm threshold", 0), 5e-3);
	NEAR(t->lo_alarm, mfix_value(ref, "Module temperature low alarm threshold", 0), 5e-3);
	NEAR(t->hi_warn, mfix_value(ref, "Module temperature high warning threshold", 0), 5e-3);
	NEAR(t->lo_warn, mfix_value(ref, "Module temperature low warning threshold", 0), 5e-3);
	NEAR(v->hi_alarm, mfix_value(ref, "Module voltage high alarm threshold", 0), 5e-5);
	NEAR(v->lo_alarm, mfix_value(ref, "Module voltage low alarm threshold", 0), 5e-5);
	/* the excerpt stops there; the Rx thresholds by hand: 0x8771 0x01d3 0x43e2 0x03a5 */
	NEAR(d.m.lim[FAB_MON_RX_POWER].lo_alarm, 10 * log10(0x01d3 / 10000.0), 1e-9);
	NEAR(d.m.lim[FAB_MON_RX_POWER].hi_warn, 10 * log10(0x43e2 / 10000.0), 1e-9);
	free(ref);
}

/* The same module before the driver fix: no page 03h although it is paged. */
static void test_qsfp28_256(void **state)
{
	struct fab_module_decoded d;

	(void)state;
	decode_file("modules/qsfp28_mma1b00_256b.hex", &d, 256);
	identity_mma1b00(&d);
	NEAR(d.m.temperature_c, 0x2a90 / 256.0, 1e-9); /* a warmer moment */
	NEAR(d.m.voltage_v, 0x82ae / 10000.0, 1e-9);
	for (int k = 0; k < FAB_MON__COUNT; k++)
		assert_true(isnan(d.m.lim[k].hi_alarm) && isnan(d.m.lim[k].lo_warn));
	assert_non_null(strstr(d.note, "256 bytes stops before page 03h: no thresholds"));
}

static void test_sfp_copper(void **state)
{
	struct fab_module_decoded d;

	(void)state;
	decode_file("modules/sfp_netgear_agm734.hex", &d, 256);
	assert_int_equal(d.m.spec, FAB_MODSPEC_SFF8472);
	assert_string_equal(d.type, "SFP");
	assert_string_equal(d.vendor, "NETGEAR");
	assert_string_equal(d.part_number, "AGM734");
	assert_string_equal(d.serial, "181604100347");
	assert_string_equal(d.revision, "0000");
	assert_string_equal(d.date_code, "2018-04-25");
	assert_string_equal(d.media, "1000BASE-T");
	assert_int_equal(d.m.n_lanes, 1);
	assert_false(d.m.monitors); /* byte 92: no diagnostics */
	assert_true(isnan(d.m.temperature_c));
	assert_string_equal(d.note, "");
}

/* The 40G SR4 of the netdev report: its values into an SFF-8636 image,
 * decoded back; lanes 2-4 dark, every alarm flag off, no Tx power thresholds. */
static void test_sr4_dark_lanes(void **state)
{
	char *t = mfix_slurp("modules/qsfp_40gsr4_avago_dark_lanes.txt", NULL);
	uint8_t img[640];
	struct fab_eeprom e;
	struct fab_module_decoded d;
	char key[96];

	(void)state;
	assert_non_null(t);
	assert_int_equal(mfix_sff8636_from_text(t, img), 0);
	assert_int_equal(fab_eeprom_from_flat(img, sizeof(img), &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), 0);
	assert_string_equal(d.vendor, "AVAGO");
	assert_string_equal(d.media, "40GBASE-SR4");
	assert_int_equal(d.m.media_lanes, 4);
	NEAR(d.m.temperature_c, mfix_value(t, "Module temperature", 0), 0.005);
	NEAR(d.m.voltage_v, mfix_value(t, "Module voltage", 0), 0.00005);
	for (int lane = 1; lane <= 4; lane++) {
		snprintf(key, sizeof(key), "Laser tx bias current (Channel %d)", lane);
		NEAR(d.lanes[lane - 1].bias_ma, mfix_value(t, key, 0), 0.0005);
		snprintf(key, sizeof(key), "Rcvr signal avg optical power(Channel %d)", lane);
		NEAR(d.lanes[lane - 1].rx_mw, mfix_value(t, key, 0), 0.00005);
		snprintf(key, sizeof(key), "Transmit avg optical power (Channel %d)", lane);
		NEAR(d.lanes[lane - 1].tx_mw, mfix_value(t, key, 0), 0.00005);
		assert_true(lane == 1 ? d.lanes[0].rx_mw > 0.7 : d.lanes[lane - 1].rx_mw == 0);
		assert_int_equal(d.lanes[lane - 1].flags, 0);
	}
	NEAR(d.m.lim[FAB_MON_RX_POWER].lo_alarm, -13.51, 0.01);
	NEAR(d.m.lim[FAB_MON_RX_POWER].lo_warn, -9.50, 0.01);
	assert_true(isnan(d.m.lim[FAB_MON_TX_POWER].hi_alarm)); /* all four 0: none */
	NEAR(d.m.lim[FAB_MON_TEMP].hi_alarm, 75, 0.005);
	free(t);
}

/* Every refusal, each with a note naming its reason. */
static void test_refused(void **state)
{
	static uint8_t raw[1024];
	struct fab_eeprom e;
	struct fab_module_decoded d;
	size_t len;

	(void)state;
	assert_int_equal(load_dump("modules/qsfp28_mma1b00_640b.hex", raw, &len, &e), 0);
	e.upper[0][150 - 128] ^= 0x01; /* 'l' of "Mellanox" becomes 'm': one more */
	assert_int_equal(fab_module_decode(&e, &d), -EBADMSG);
	assert_true(d.m.refused);
	assert_non_null(strstr(d.note, "CC_BASE is 0x05, the bytes add up to 0x06"));
	e.upper[0][150 - 128] ^= 0x01;
	e.upper[0][200 - 128] ^= 0x10; /* a serial-number byte: CC_EXT */
	assert_int_equal(fab_module_decode(&e, &d), -EBADMSG);
	assert_non_null(strstr(d.note, "CC_EXT"));
	e.upper[0][200 - 128] ^= 0x10;
	assert_int_equal(fab_module_decode(&e, &d), 0);
	e.upper[0][0] = 0x0d; /* the upper page says QSFP+ */
	assert_int_equal(fab_module_decode(&e, &d), -EBADMSG);
	assert_non_null(strstr(d.note, "identifier 0x11 in the lower page, 0x0d in upper page 00h"));
	e.upper[0][0] = 0x11;
	e.lower[0] = 0x42;
	assert_int_equal(fab_module_decode(&e, &d), -EBADMSG);
	assert_non_null(strstr(d.note, "identifier 0x42: not a module this decoder knows"));
	memset(e.lower, 0xff, sizeof(e.lower));
	assert_int_equal(fab_module_decode(&e, &d), -EBADMSG);
	assert_non_null(strstr(d.note, "all 0xff"));
	/* lengths a layout cannot have */
	assert_int_equal(fab_eeprom_from_flat(raw, 384, &e), -EBADMSG); /* QSFP: 256 or 640 */
	assert_int_equal(fab_eeprom_from_flat(raw, 200, &e), -EBADMSG); /* not whole pages */
	raw[0] = 0x03;
	assert_int_equal(fab_eeprom_from_flat(raw, 640, &e), -EBADMSG); /* SFP: 256 or 512 */
	raw[0] = 0x19;
	assert_int_equal(fab_eeprom_from_flat(raw, 512, &e), -EBADMSG); /* CMIS: 256 or 768 */
}

static void sum_into(uint8_t *p, size_t from, size_t to, size_t at)
{
	unsigned s = 0;
	for (size_t i = from; i < to; i++)
		s += p[i];
	p[at] = (uint8_t)s;
}

/* SFF-8472 with diagnostics, internally then externally calibrated. */
static void test_sff8472_diagnostics(void **state)
{
	uint8_t img[512];
	struct fab_eeprom e;
	struct fab_module_decoded d;
	uint8_t *a2 = img + 256;

	(void)state;
	memset(img, 0, sizeof(img));
	img[0] = 0x03, img[1] = 0x04, img[2] = 0x07, img[3] = 0x10; /* SFP, LC, 10GBASE-SR */
	memcpy(img + 20, "FINISAR CORP.   ", 16);
	memcpy(img + 40, "FTLX8571D3BCL   ", 16);
	memcpy(img + 68, "ABC1234         ", 16);
	memcpy(img + 84, "21063000", 8);
	img[92] = 0x68; /* diagnostics, internally calibrated, average power */
	sum_into(img, 0, 63, 63);
	sum_into(img, 64, 95, 95);
	mfix_put16(a2 + 0, 75 * 256), mfix_put16(a2 + 2, -5 * 256); /* temp alarms */
	mfix_put16(a2 + 4, 70 * 256), mfix_put16(a2 + 6, 0);
	mfix_put16(a2 + 32, 10000), mfix_put16(a2 + 34, 400); /* Rx: 1 mW, 0.04 mW */
	mfix_put16(a2 + 36, 7943), mfix_put16(a2 + 38, 631);  /* 0.7943, 0.0631 mW */
	mfix_put16(a2 + 96, 0x1980); /* 25.5 C */
	mfix_put16(a2 + 98, 33000);  /* 3.3 V */
	mfix_put16(a2 + 100, 3000);  /* 6 mA */
	mfix_put16(a2 + 102, 5000);  /* 0.5 mW */
	mfix_put16(a2 + 104, 3162);  /* 0.3162 mW */
	a2[110] = 0x02;             /* Rx LOS */
	a2[112] = 0x88;             /* temperature high alarm, bias high alarm */
	a2[113] = 0x70;             /* Rx power low alarm, and reserved bits 5-4 */
	a2[116] = 0x02;             /* Tx power high warning */
	sum_into(a2, 0, 95, 95);
	assert_int_equal(fab_eeprom_from_flat(img, 512, &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), 0);
	assert_string_equal(d.vendor, "FINISAR CORP.");
	assert_string_equal(d.media, "10GBASE-SR");
	assert_string_equal(d.date_code, "2021-06-30");
	assert_true(d.m.monitors);
	NEAR(d.m.temperature_c, 25.5, 1e-9);
	NEAR(d.m.voltage_v, 3.3, 1e-9);
	NEAR(d.lanes[0].bias_ma, 6.0, 1e-9);
	NEAR(d.lanes[0].tx_mw, 0.5, 1e-9);
	NEAR(d.lanes[0].rx_mw, 0.3162, 1e-9);
	NEAR(d.m.lim[FAB_MON_TEMP].lo_alarm, -5, 1e-9);
	NEAR(d.m.lim[FAB_MON_RX_POWER].hi_alarm, 0, 1e-9); /* 1 mW = 0 dBm */
	NEAR(d.m.lim[FAB_MON_RX_POWER].lo_alarm, -13.98, 0.01);
	assert_int_equal(d.m.flags, FAB_MODF(FAB_MON_TEMP, FAB_MODF_HI_ALARM));
	assert_int_equal(d.lanes[0].flags, FAB_MODF(FAB_MON_BIAS, FAB_MODF_HI_ALARM) |
						   FAB_MODF(FAB_MON_RX_POWER, FAB_MODF_LO_ALARM) |
						   FAB_MODF(FAB_MON_TX_POWER, FAB_MODF_HI_WARN) |
						   FAB_LANEF_RX_LOS);
	/* externally calibrated: T slope 1, offset +256 (1 C); Rx = 2 * raw */
	img[92] = 0x58;
	sum_into(img, 64, 95, 95);
	mfix_put16(a2 + 84, 0x0100), mfix_put16(a2 + 86, 0x0100);
	mfix_put16(a2 + 88, 0x0100), mfix_put16(a2 + 76, 0x0100), mfix_put16(a2 + 80, 0x0100);
	a2[68] = 0x40; /* Rx_PWR(1) = 2.0f: 0x40000000 */
	sum_into(a2, 0, 95, 95);
	assert_int_equal(fab_eeprom_from_flat(img, 512, &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), 0);
	NEAR(d.m.temperature_c, 26.5, 1e-9);
	NEAR(d.lanes[0].rx_mw, 0.6324, 1e-9);
	NEAR(d.lanes[0].bias_ma, 6.0, 1e-9);
	/* A2h's own check code */
	a2[10] ^= 1; /* a voltage threshold: CC_DMI covers bytes 0-94 */
	assert_int_equal(fab_eeprom_from_flat(img, 512, &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), -EBADMSG);
	assert_non_null(strstr(d.note, "CC_DMI"));
}

/* CMIS: an OSFP with eight lanes, the Tx bias multiplier, page 11h flags. */
static void test_cmis(void **state)
{
	uint8_t img[768];
	uint8_t *p0 = img + 128, *p1 = img + 256, *p2 = img + 384, *p11 = img + 640;
	struct fab_eeprom e;
	struct fab_module_decoded d;

	(void)state;
	memset(img, 0, sizeof(img));
	img[0] = p0[0] = 0x19; /* OSFP */
	img[1] = 0x50;          /* CMIS 5.0; paged (byte 2 bit 7 clear) */
	mfix_put16(img + 14, 0x2d00); /* 45 C */
	mfix_put16(img + 16, 32500);  /* 3.25 V */
	img[9] = 0x04;                /* temperature high warning */
	img[86] = 0x11, img[87] = 0x0e, img[88] = 0x44; /* first application: 4 host, 4 media lanes */
	memcpy(p0 + 1, "NVIDIA          ", 16);
	memcpy(p0 + 20, "MMA4Z00-NS      ", 16);
	memcpy(p0 + 38, "MT2330FT00001   ", 16);
	memcpy(p0 + 54, "230725  ", 8);
	p0[202 - 128] = 0x43; /* 3 m */
	sum_into(p0, 0, 94, 94);
	p1[160 - 128] = 0x0f; /* bias, Tx, Rx power monitored; bias multiplier 2 */
	p1[151 - 128] = 0x10; /* average Rx power */
	mfix_put16(p2 + 0, 80 * 256), mfix_put16(p2 + 2, -5 * 256);
	mfix_put16(p2 + 4, 75 * 256), mfix_put16(p2 + 6, 0);
	for (int k = 0; k < 8; k++) {
		mfix_put16(p11 + 154 - 128 + 2 * k, 8000 + k);  /* Tx 0.8 mW */
		mfix_put16(p11 + 170 - 128 + 2 * k, 3000);      /* 3000 * 2 uA * 2 = 12 mA */
		mfix_put16(p11 + 186 - 128 + 2 * k, k == 5 ? 0 : 6000); /* lane 6 dark */
	}
	p11[147 - 128] = 0x20; /* Rx LOS lane 6 */
	p11[139 - 128] = 0x02; /* Tx power high alarm lane 2 */
	assert_int_equal(fab_eeprom_from_flat(img, 768, &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), 0);
	assert_int_equal(d.m.spec, FAB_MODSPEC_CMIS);
	assert_string_equal(d.type, "OSFP");
	assert_string_equal(d.vendor, "NVIDIA");
	assert_string_equal(d.serial, "MT2330FT00001");
	assert_string_equal(d.date_code, "2023-07-25");
	NEAR(d.m.length_m, 3, 1e-9);
	assert_int_equal(d.m.n_lanes, 8);
	assert_int_equal(d.m.media_lanes, 4);
	NEAR(d.m.temperature_c, 45, 1e-9);
	NEAR(d.m.voltage_v, 3.25, 1e-9);
	assert_int_equal(d.m.flags, FAB_MODF(FAB_MON_TEMP, FAB_MODF_HI_WARN));
	NEAR(d.m.lim[FAB_MON_TEMP].hi_warn, 75, 1e-9);
	NEAR(d.lanes[3].tx_mw, 0.8003, 1e-9);
	NEAR(d.lanes[0].bias_ma, 12, 1e-9);
	assert_true(d.lanes[5].rx_mw == 0 && d.lanes[4].rx_mw == 0.6);
	assert_int_equal(d.lanes[5].flags, FAB_LANEF_RX_LOS);
	assert_int_equal(d.lanes[1].flags, FAB_MODF(FAB_MON_TX_POWER, FAB_MODF_HI_ALARM));
	/* the reserved bias multiplier (bits 4-3 = 11; the fuzzer's find): no bias, a note */
	p1[160 - 128] = 0x1f;
	assert_int_equal(fab_eeprom_from_flat(img, 768, &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), 0);
	assert_true(isnan(d.lanes[0].bias_ma) && d.lanes[0].tx_mw > 0);
	assert_non_null(strstr(d.note, "reserved Tx bias multiplier"));
	p1[160 - 128] = 0x0f;
	/* a dump of page 00h only: identity and module monitors, no lanes */
	assert_int_equal(fab_eeprom_from_flat(img, 256, &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), 0);
	assert_int_equal(d.m.n_lanes, 0);
	assert_non_null(strstr(d.note, "page 02h not read"));
	p0[148 - 128] ^= 0xff; /* a part-number byte: the check code fails */
	assert_int_equal(fab_eeprom_from_flat(img, 768, &e), 0);
	assert_int_equal(fab_module_decode(&e, &d), -EBADMSG);
}

/* hex dumps: offsets must follow each other; raw bytes are taken as they are */
static void test_dump_parser(void **state)
{
	uint8_t out[64];
	size_t n;
	static const char gap[] = "0x0000: 11 07\n0x0010: 00\n";
	static const char bad[] = "Offset Values\n0x0000: 11 0g\n";
	static const char ok[] = "$ ethtool -m x hex on\nOffset Values\n0x0000:  11 07 00\r\n0x0003: ff\n";

	(void)state;
	assert_int_equal(fab_ethtool_parse_eeprom((const uint8_t *)gap, strlen(gap), out, sizeof(out), &n), -EBADMSG);
	assert_int_equal(fab_ethtool_parse_eeprom((const uint8_t *)bad, strlen(bad), out, sizeof(out), &n), -EBADMSG);
	assert_int_equal(fab_ethtool_parse_eeprom((const uint8_t *)ok, strlen(ok), out, sizeof(out), &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(out[3], 0xff);
	static const uint8_t rawbin[3] = { 0x11, 0x00, 0x7f };
	assert_int_equal(fab_ethtool_parse_eeprom(rawbin, 3, out, sizeof(out), &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(fab_ethtool_parse_eeprom(rawbin, 3, out, 2, &n), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qsfp28_640),
		cmocka_unit_test(test_qsfp28_256),
		cmocka_unit_test(test_sfp_copper),
		cmocka_unit_test(test_sr4_dark_lanes),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_sff8472_diagnostics),
		cmocka_unit_test(test_cmis),
		cmocka_unit_test(test_dump_parser),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
