// SPDX-License-Identifier: MIT
/*
 * The ibdiagnet2.db_csv importer (scanner/ibdiag_*.c) on small inputs:
 * columns found by name in any order, quoted fields with "" and commas,
 * CRLF, N/A, ibdiagnet's speed words, links both ways, SMs, counters with
 * their extended values, firmware; and malformed input: one message naming
 * the line, the snapshot left empty. (tests/integration/test_import_cli.sh
 * imports the real runs.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/ibdiag.h"
#include "fabsweep/snapshot.h"

/* A switch (port 0 at LID 7, ports 1 and 2) and a CA cabled to port 1;
 * NODES' columns in another order than ibdiagnet 2.10 writes them. */
static const char good[] =
	"# INDEX_TABLE offset: 1\r\n"
	"\r\n"
	"START_RUN_INFO\r\n"
	"Date,Args\r\n"
	"\"2025-03-31 23:43:18 UTC +0000\",\"--skip pm\"\r\n"
	"END_RUN_INFO\r\n"
	"START_NODES\r\n"
	"NodeGUID,NodeType,NumPorts,NodeDesc,SystemImageGUID,VendorID,DeviceID,revision\r\n"
	"0x10,2,2,\"leaf \"\"one\"\", rack 3\",0x10,713,54002,160\r\n"
	"0x20,1,1,\"host01 mlx5_0\",0x20,713,4129,0\r\n"
	"END_NODES\r\n"
	"START_SOMETHING_NEW\r\n"
	"A,B\r\n"
	"this row, is not even looked at\"\r\n"
	"END_SOMETHING_NEW\r\n"
	"START_PORTS\r\n"
	"NodeGuid,PortGuid,PortNum,LID,MSMLID,LMC,LinkWidthActv,LinkWidthSup,LinkWidthEn,LinkSpeedEn,"
	"LinkSpeedActv,LinkSpeedSup,PortPhyState,PortState,NMTU,MTUCap,OpVLs,CapMsk\r\n"
	"0x10,0x10,0,7,7,0,2,3,3,1,1,1,5,4,5,5,1,0\r\n"
	"0x10,0x10,1,0,0,0,2,19,19,3845,2052,3845,5,4,5,5,3,0\r\n"
	"0x10,0x10,2,0,0,0,1,19,19,3845,1,3845,2,1,N/A,5,0,0\r\n"
	"0x20,0x21,1,9,7,0,2,19,19,3841,2048,3841,5,4,5,5,3,0\r\n"
	"END_PORTS\r\n"
	"START_LINKS\r\n"
	"NodeGuid1,PortNum1,NodeGuid2,PortNum2\r\n"
	"0x20,1,0x10,1\r\n"
	"END_LINKS\r\n"
	"START_SM_INFO\r\n"
	"NodeGUID,PortGUID,PortNumber,GUID,Sm_Key,ActCount,SmState,Priority\r\n"
	"0x10,0x10,0,0x10,0x1,42,3,12\r\n"
	"END_SM_INFO\r\n"
	"START_PM_INFO\r\n"
	"NodeGUID,PortGUID,PortNumber,SymbolErrorCounter,PortXmitData,PortXmitDataExtended,"
	"PortRcvDataExtended,PortXmitPktsExtended,PortRcvPktsExtended,PortUniCastXmitPkts\r\n"
	"0x20,0x21,1,65535,4294967295,299195507523,5,6,7,8\r\n"
	"END_PM_INFO\r\n"
	"START_NODES_INFO\r\n"
	"NodeGUID,FWInfo_Extended_Major,FWInfo_Extended_Minor,FWInfo_Extended_SubMinor,FWInfo_PSID\r\n"
	"0x10,0x1f,0x7dc,0x42c,MT_0000000579\r\n"
	"END_NODES_INFO\r\n";

static char noted[512];

static void note(const char *msg, void *ctx)
{
	(void)ctx;
	snprintf(noted, sizeof(noted), "%s", msg);
}

static void test_good(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();

	assert_int_equal(fab_ibdiag_import(good, sizeof(good) - 1, "t.csv", note, NULL, s), 0);
	assert_string_equal(noted, "t.csv: sections not read (fabsweep's model has no place for them): SOMETHING_NEW");
	assert_string_equal(s->source, "ibdiagnet2:t.csv");
	assert_int_equal(s->status, FAB_SCAN_PARTIAL); /* --skip */
	assert_int_equal(s->n_errors, 1);
	assert_string_equal(s->errors[0].what, "import");
	assert_int_equal(s->started_at_ms, 1743464598000LL);
	assert_int_equal(s->n_nodes, 2);
	assert_int_equal(s->n_ports, 4);
	assert_int_equal(s->n_links, 1);
	const struct fab_node *sw = &s->nodes[fab_snapshot_find_node(s, 0x10)];
	const struct fab_node *ca = &s->nodes[fab_snapshot_find_node(s, 0x20)];
	assert_string_equal(sw->desc, "leaf \"one\", rack 3");
	assert_int_equal(sw->type, FAB_NODE_SWITCH);
	assert_int_equal(sw->lid, 7);
	assert_int_equal(sw->hops, -1);
	assert_string_equal(sw->fw_version, "31.2012.1068");
	assert_string_equal(sw->psid, "MT_0000000579");
	assert_null(ca->fw_version);
	assert_int_equal(ca->lid, 9);
	const struct fab_port *p1 = fab_snapshot_port(s, (uint32_t)(sw - s->nodes), 1);
	const struct fab_port *p2 = fab_snapshot_port(s, (uint32_t)(sw - s->nodes), 2);
	const struct fab_port *cp = fab_snapshot_port(s, (uint32_t)(ca - s->nodes), 1);
	assert_int_equal(p1->lid, 7); /* a switch port answers at port 0's LID */
	assert_int_equal(p1->speed_active, FAB_SPEED_NDR); /* 0x804: NDR over QDR */
	assert_int_equal(p1->speed_supported, FAB_SPEED_SDR | FAB_SPEED_QDR | FAB_SPEED_FDR |
						  FAB_SPEED_EDR | FAB_SPEED_HDR | FAB_SPEED_NDR);
	assert_int_equal(p1->width_supported, FAB_WIDTH_1X | FAB_WIDTH_4X | FAB_WIDTH_2X);
	assert_int_equal(p1->remote_guid, 0x20);
	assert_int_equal(p1->remote_idx, (uint32_t)(cp - s->ports));
	assert_int_equal(cp->remote_idx, (uint32_t)(p1 - s->ports));
	assert_int_equal(p2->state, FAB_STATE_DOWN);
	assert_int_equal(p2->phys_state, FAB_PHYS_POLLING);
	assert_int_equal(p2->mtu_active, 0); /* N/A */
	assert_int_equal(p2->remote_idx, FAB_NONE);
	assert_int_equal(cp->guid, 0x21);
	assert_int_equal(s->n_sms, 1);
	assert_int_equal(s->sms[0].state, 3);
	assert_int_equal(s->sms[0].priority, 12);
	assert_int_equal(s->sms[0].lid, 7);
	assert_int_equal(s->sms[0].act_count, 42);
	assert_int_equal(s->n_samples, 1);
	const struct fab_counter_sample *c = &s->samples[0];
	assert_int_equal(c->port_idx, (uint32_t)(cp - s->ports));
	assert_true(c->extended);
	assert_int_equal(c->v[FAB_CTR_SYMBOL_ERRORS], 65535);
	assert_int_equal(c->v[FAB_CTR_XMIT_DATA], 299195507523ULL); /* the 64-bit one */
	assert_int_equal(c->v[FAB_CTR_UNICAST_XMIT_PKTS], 8);
	assert_true(c->valid & (1u << FAB_CTR_RCV_PKTS));
	assert_false(c->valid & (1u << FAB_CTR_LINK_DOWNED)); /* no column: not read */
	fab_snapshot_free(s);
}

/* Each bad input: its error names the line, and the snapshot stays empty. */
static void test_bad(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "junk\n", "b.csv:1: expected START_<SECTION>" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1,0x1\n", "b.csv:1: section NODES has no END_NODES" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType\nEND_NODES\n", "b.csv:2: section NODES has no column NodeGUID" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",300,1,0x1\nEND_NODES\n",
		  "b.csv:3: NumPorts 300 is out of range" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1,0x1\n\"b\",1,1,0x1\nEND_NODES\n",
		  "b.csv:4: node 0x0000000000000001 again (first at line 3)" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\"x,1,1,0x1\nEND_NODES\n",
		  "b.csv:3: text after a closing quote" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\nEND_PORTS\n", "b.csv:3: END_PORTS inside section NODES" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1,-1\nEND_NODES\n",
		  "b.csv:3: NodeGUID '-1' is not a number" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1,0x1\nEND_NODES\n"
		  "START_LINKS\nNodeGuid1,PortNum1,NodeGuid2,PortNum2\n0x1,1,0x1,2\nEND_LINKS\n",
		  "b.csv:7: a link to port 1 of 0x0000000000000001, which PORTS does not list" },
		{ "", "b.csv: no NODES section with a node" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fab_snapshot *s = fab_snapshot_new();
		int rc = fab_ibdiag_import(bad[i].text, strlen(bad[i].text), "b.csv", NULL, NULL, s);

		if (rc != -EINVAL || strncmp(fab_errmsg(), bad[i].msg, strlen(bad[i].msg)))
			fail_msg("input %zu: rc %d, message '%s', want '%s'", i, rc, fab_errmsg(), bad[i].msg);
		assert_int_equal(s->n_nodes + s->n_ports + s->n_links + s->n_samples + s->n_sms, 0);
		fab_snapshot_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
