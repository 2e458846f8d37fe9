// SPDX-License-Identifier: MIT
/*
 * The physical layer of an ibdiagnet2 run on small inputs (the real run's
 * cables are tests/integration/test_import_cli.sh's): PHY_DB16's BER from
 * mantissa and exponent, by column name; ibdiagnet2.cables records by
 * switch node GUID and by a CA's port GUID, "-999.999 mW", "inf mW", "N/A"
 * unknown, dBm thresholds as signed 16-bit numbers, a passive cable
 * without monitors, hostile strings made safe, a second record of a port
 * and a record of an unknown port skipped and said, a header without its
 * GUID refused naming the line.
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
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/ibdiag.h"
#include "fabsweep/module.h"
#include "fabsweep/snapshot.h"

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * (1 + fabs((double)(b))))

/* A switch 0x10 (ports 1, 2) and a CA 0x20 whose port 1 has GUID 0x21. */
static const char db_csv[] =
	"START_NODES\n"
	"NodeDesc,NumPorts,NodeType,NodeGUID\n"
	"\"sw\",2,2,0x10\n"
	"\"host01 mlx5_0\",1,1,0x20\n"
	"END_NODES\n"
	"START_PORTS\n"
	"NodeGuid,PortGuid,PortNum,LID,PortState,PortPhyState,LinkWidthActv,LinkSpeedActv\n"
	"0x10,0x10,1,7,4,5,2,2048\n"
	"0x10,0x10,2,7,4,5,2,2048\n"
	"0x20,0x21,1,9,4,5,2,2048\n"
	"END_PORTS\n"
	"START_PHY_DB16\n"
	"field17,NodeGuid,PortGuid,PortNum,field12,field13,field14,field15,field16,field0\n"
	"14,0x10,0x10,1,15,9,0,255,3,x\n"
	"N/A,0x20,0x21,1,2,7,1,12,N/A,x\n"
	"14,0x30,0x30,1,1,1,1,1,1,x\n"
	"END_PHY_DB16\n";

static const char cables[] =
	"# Running timestamp : 2025-03-15 06:54:44 UTC +0000\n"
	"-------------------------------------------------------\n"
	"Port=1 Lid=0x0007 GUID=0x0000000000000010 Port Name=sw/P1\n"
	"-------------------------------------------------------\n"
	"Identifier: OSFP (0x08)\n"
	"Vendor: EVIL\x1b[2J\n"
	"PN: OSFP-SR8-800G\n"
	"SN: G123\n"
	"Rev: A1\n"
	"Length: NA\n"
	"Type: 850 nm VCSEL\n"
	"Temperature: 58C\n"
	"RX1 Power: 1.585 mW, 2.000 dBm\n"
	"RX2 Power: -999.999 mW, 0.000 dBm\n"
	"RX3 Power: inf mW, 65496.000 dBm\n"
	"RX4 Power: 0.000 mW, -inf dBm\n"
	"TX1 Bias: 7.242 mA\nTX2 Bias: 7.304 mA\nTX3 Bias: 0.000 mA\nTX4 Bias: 7.3 mA\n"
	"TX1 Power: 1.585 mW, 2.000 dBm\n"
	"TX Bias Alarm and Warning:  0x3333\n"
	"Supply Voltage Reporting: 3303400uV\n"
	"AlarmTemperatureHighThresh: 80C\nAlarmTemperatureLowThresh: -5C\n"
	"WarnTemperatureHighThresh: N/A\nWarnTemperatureLowThresh: N/A\n"
	"RXPowerHighThresh: 4\nRXPowerLowThresh: 65530\n"
	"TXBiasHighThresh: 6500\nTXBiasLowThresh: 1500\n"
	"DateCode: 24-01-18\n"
	"\n"
	"Port=1 Lid=0x0007 GUID=0x0000000000000010 Port Name=sw/P1 again\n"
	"Vendor: SECOND\n"
	"Port=2 Lid=0x0007 GUID=0x10 Port Name=sw/P2\n"
	"Identifier: OSFP (0x08)\n"
	"Type: Copper cable- unequalized\n"
	"Length: 2 m\n"
	"Temperature: 0C\n"
	"Supply Voltage Reporting: 0uV\n"
	"RX1 Power: -999.999 mW, 0.000 dBm\nTX1 Bias: 0.000 mA\n"
	"AlarmTemperatureHighThresh: 0C\nAlarmTemperatureLowThresh: 0C\n"
	"RXPowerHighThresh: 0\nRXPowerLowThresh: 0\n"
	"Port=1 Lid=0x0009 GUID=0x21 Port Name=host01\n"
	"Vendor: NVIDIA\n"
	"Temperature: 41C\n"
	"Supply Voltage Reporting: 3300000uV\n"
	"Port=3 Lid=0x0009 GUID=0x99 Port Name=elsewhere\n"
	"Vendor: NOBODY\n";

static char dir[256], noted[8][600];
static int n_noted;

static void note(const char *msg, void *ctx)
{
	(void)ctx;
	if (n_noted < 8)
		snprintf(noted[n_noted++], sizeof(noted[0]), "%s", msg);
}

static void write_file(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const struct fab_module *module_of(const struct fab_snapshot *s, uint64_t guid, unsigned port)
{
	const struct fab_port *p = fab_snapshot_port(s, fab_snapshot_find_node(s, guid), port);
	uint32_t mi = p ? fab_modules_find(&s->ib_modules, (uint32_t)(p - s->ports)) : FAB_NONE;
	return mi == FAB_NONE ? NULL : &s->ib_modules.mods[mi];
}

static void test_phys(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();

	(void)state;
	snprintf(dir, sizeof(dir), "%s/ibdphys.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	write_file("ibdiagnet2.db_csv", db_csv);
	write_file("ibdiagnet2.cables", cables);
	n_noted = 0;
	assert_int_equal(fab_ibdiag_import_dir(dir, note, NULL, s), 0);

	/* PHY_DB16: 15e-9, 0e-255 (a BER of 0), 3e-14; the CA: 2e-7, 1e-12, unknown */
	assert_int_equal(s->n_ber, 2);
	NEAR(s->ber[0].raw, 15e-9);
	assert_true(s->ber[0].effective == 0);
	NEAR(s->ber[0].symbol, 3e-14);
	NEAR(s->ber[1].raw, 2e-7);
	NEAR(s->ber[1].effective, 1e-12);
	assert_true(isnan(s->ber[1].symbol));
	bool ber_note = false;
	for (int i = 0; i < n_noted; i++)
		ber_note |= strstr(noted[i], "1 PHY_DB16 row name ports PORTS does not list: skipped") != NULL;
	assert_true(ber_note);

	/* the switch's first port: the first record, hostile vendor made safe */
	assert_int_equal(s->ib_modules.n, 3);
	const struct fab_module *m = module_of(s, 0x10, 1);
	assert_non_null(m);
	assert_string_equal(m->vendor, "EVIL\\x1b[2J");
	assert_string_equal(m->type, "OSFP");
	assert_int_equal(m->identifier, 0x19); /* SFF-8024's OSFP, not ibdiagnet's 0x08 */
	assert_string_equal(m->date_code, "2024-01-18");
	assert_true(isnan(m->length_m));
	assert_true(m->monitors);
	NEAR(m->temperature_c, 58);
	NEAR(m->voltage_v, 3.3034);
	NEAR(m->lim[FAB_MON_TEMP].hi_alarm, 80);
	NEAR(m->lim[FAB_MON_TEMP].lo_alarm, -5);
	assert_true(isnan(m->lim[FAB_MON_TEMP].hi_warn));
	NEAR(m->lim[FAB_MON_RX_POWER].lo_alarm, -6); /* 65530 */
	NEAR(m->lim[FAB_MON_BIAS].hi_alarm, 13);     /* 6500 x 2 uA */
	assert_false(m->flags_valid);
	assert_non_null(strstr(m->note, "Tx bias 0x3333"));
	const struct fab_module_lane *l = fab_module_lanes(&s->ib_modules, m);
	assert_int_equal(m->n_lanes, 4);
	NEAR(l[0].rx_mw, 1.585);
	assert_true(isnan(l[1].rx_mw) && isnan(l[2].rx_mw)); /* -999.999 and inf: unknown */
	assert_true(l[3].rx_mw == 0);                        /* 0 mW: dark, known */
	assert_true(l[2].bias_ma == 0);
	assert_true(isnan(l[1].tx_mw));

	/* the passive cable: no monitors, no thresholds, its length */
	m = module_of(s, 0x10, 2);
	assert_false(m->monitors);
	assert_true(isnan(m->temperature_c) && isnan(m->voltage_v));
	assert_true(isnan(m->lim[FAB_MON_TEMP].hi_alarm) && isnan(m->lim[FAB_MON_RX_POWER].lo_alarm));
	assert_true(isnan(fab_module_lanes(&s->ib_modules, m)[0].bias_ma));
	NEAR(m->length_m, 2);
	/* the CA, by its port GUID */
	m = module_of(s, 0x20, 1);
	assert_non_null(m);
	assert_string_equal(m->vendor, "NVIDIA");
	bool said = false;
	for (int i = 0; i < n_noted; i++)
		said |= strstr(noted[i], "1 record of ports the run does not list, 1 second record of a port") != NULL;
	assert_true(said);

	/* a record header without its GUID: refused, naming the line */
	fab_snapshot_free(s);
	s = fab_snapshot_new();
	write_file("ibdiagnet2.cables", "Port=1 Lid=0x7 Port Name=x\nVendor: A\n");
	assert_int_equal(fab_ibdiag_import_dir(dir, NULL, NULL, s), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "ibdiagnet2.cables:1: a record header without its port and GUID"));
	fab_snapshot_free(s);
	char path[512];
	snprintf(path, sizeof(path), "%s/ibdiagnet2.db_csv", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ibdiagnet2.cables", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_phys) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
