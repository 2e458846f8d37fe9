// SPDX-License-Identifier: MIT
/*
 * The ibdiagnet2.db_csv importer (import/ibdiag_*.c) on small inputs:
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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * The branches the real runs do not reach (their PM_INFO rows all have the
 * extended columns, their firmware the extended version, every port is
 * cabled): a run without --skip, a dual-port CA whose first port is down, a
 * LinkUp port with no LINKS row, a router, ibdiagnet's speed bits one by
 * one (FDR10 0x10000, EDR 0x200, XDR 0x1000), a PM row with N/A and no
 * extended columns, the old firmware fields, firmware not reported, a PSID
 * longer than 16 bytes, an SM on a port PORTS does not list. Every value
 * below is read off the text by hand.
 */
static const char branches[] =
	"START_RUN_INFO\n"
	"Date,Args\n"
	"\"2024-02-29 12:00:01\",\"-o /tmp/x --pc\"\n"
	"END_RUN_INFO\n"
	"START_NODES\n"
	"NodeDesc,NumPorts,NodeType,NodeGUID,SystemImageGUID,VendorID,DeviceID,revision\n"
	"\"sw\",4,2,0x100,0x1ff,0x2c9,0xcf08,0xa0\n"
	"\"ca dual\",2,1,0x200,0x200,713,4123,0\n"
	"\"rtr\",1,3,0x300,0x300,713,1,0\n"
	"END_NODES\n"
	"START_PORTS\n"
	"NodeGuid,PortGuid,PortNum,LID,MSMLID,LMC,LinkWidthActv,LinkWidthSup,LinkWidthEn,LinkSpeedEn,"
	"LinkSpeedActv,LinkSpeedSup,PortPhyState,PortState,NMTU,MTUCap,OpVLs,CapMsk\n"
	"0x100,0x100,0,5,1,0,1,1,1,1,1,1,5,4,4,4,1,0x10\n"
	"0x100,0x100,1,0,1,0,16,17,1,0x10000,0x10000,0x10007,5,4,4,5,4,0\n"
	"0x100,0x100,2,0,1,0,8,15,8,0x200,0x200,0x207,5,4,3,5,8,0\n"
	"0x100,0x100,3,0,1,0,4,31,4,0x1000,0x1000,0x1f07,5,4,5,5,2,0\n"
	"0x100,0x100,4,0,1,0,2,3,3,2,2,7,5,4,2,5,2,0\n"
	"0x200,0x201,1,21,1,2,1,3,3,1,1,1,2,1,N/A,N/A,N/A,N/A\n"
	"0x200,0x202,2,22,1,0,16,17,17,0x10000,0x10000,0x10000,5,4,4,4,4,0x2651a48\n"
	"0x300,0x301,1,30,1,0,8,15,15,0x200,0x200,0x200,5,4,3,5,8,0\n"
	"END_PORTS\n"
	"START_LINKS\n"
	"NodeGuid1,PortNum1,NodeGuid2,PortNum2\n"
	"0x100,1,0x200,2\n"
	"0x300,1,0x100,2\n"
	"END_LINKS\n"
	"START_SM_INFO\n"
	"NodeGUID,PortGUID,PortNumber,ActCount,SmState,Priority\n"
	"0x200,0x202,2,7,2,5\n"
	"0x999,0x998,1,9,3,15\n"
	"END_SM_INFO\n"
	"START_PM_INFO\n"
	"NodeGUID,PortNumber,SymbolErrorCounter,LinkDownedCounter,PortXmitData,PortRcvData,PortXmitPkts,"
	"PortRcvPkts,PortXmitWait,PortUniCastXmitPkts,PortXmitDataExtended\n"
	"0x200,2,7,N/A,4294967295,12,13,14,N/A,99,N/A\n"
	"END_PM_INFO\n"
	"START_NODES_INFO\n"
	"NodeGUID,FWInfo_Major,FWInfo_Minor,FWInfo_SubMinor,FWInfo_Extended_Major,FWInfo_Extended_Minor,"
	"FWInfo_Extended_SubMinor,FWInfo_PSID\n"
	"0x200,0x14,0x23,0x7d0,0,0,0,MT_0000000222_LONGER_THAN_16\n"
	"0x300,0,0,0,0,0,0,\n"
	"END_NODES_INFO\n";

static void test_branches(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();

	noted[0] = '\0';
	assert_int_equal(fab_ibdiag_import(branches, sizeof(branches) - 1, "b.csv", note, NULL, s), 0);
	assert_string_equal(noted, ""); /* every section read */
	assert_int_equal(s->status, FAB_SCAN_COMPLETE); /* Args without --skip */
	assert_int_equal(s->n_errors, 0);
	assert_int_equal(s->started_at_ms, 1709208001000LL); /* 2024-02-29 12:00:01 UTC, no offset */
	assert_int_equal(s->finished_at_ms, s->started_at_ms);
	assert_int_equal(s->n_nodes, 3);
	assert_int_equal(s->n_ports, 8);
	assert_int_equal(s->n_links, 2);

	uint32_t swi = fab_snapshot_find_node(s, 0x100), cai = fab_snapshot_find_node(s, 0x200);
	uint32_t rti = fab_snapshot_find_node(s, 0x300);
	const struct fab_node *sw = &s->nodes[swi], *ca = &s->nodes[cai], *rt = &s->nodes[rti];
	assert_int_equal(sw->sys_guid, 0x1ff);
	assert_int_equal(sw->vendor_id, 0x2c9);
	assert_int_equal(sw->device_id, 0xcf08);
	assert_int_equal(sw->revision, 0xa0);
	assert_int_equal(sw->num_ports, 4);
	assert_null(sw->fw_version); /* no NODES_INFO row */
	assert_int_equal(rt->type, FAB_NODE_ROUTER);
	/* firmware: the old fields when the extended ones are zero; all zero:
	 * not reported; a PSID's first 16 bytes; an empty PSID: none */
	assert_string_equal(ca->fw_version, "20.35.2000");
	assert_string_equal(ca->psid, "MT_0000000222_LO");
	assert_null(rt->fw_version);
	assert_null(rt->psid);
	/* a CA's LID is its first active port's: port 1 is down */
	assert_int_equal(ca->lid, 22);
	assert_int_equal(rt->lid, 30);

	/* ibdiagnet's speed and width words, one bit each */
	const struct fab_port *p1 = fab_snapshot_port(s, swi, 1), *p2 = fab_snapshot_port(s, swi, 2);
	const struct fab_port *p3 = fab_snapshot_port(s, swi, 3), *p4 = fab_snapshot_port(s, swi, 4);
	assert_int_equal(p1->speed_active, FAB_SPEED_FDR10);
	assert_int_equal(p1->speed_supported, FAB_SPEED_FDR10 | FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR);
	assert_int_equal(p1->width_active, FAB_WIDTH_2X);
	assert_int_equal(p1->width_supported, FAB_WIDTH_2X | FAB_WIDTH_1X);
	assert_int_equal(p1->width_enabled, FAB_WIDTH_1X);
	assert_int_equal(p1->op_vls, 4);
	assert_int_equal(p1->mtu_active, 4);
	assert_int_equal(p1->mtu_cap, 5);
	assert_int_equal(p2->speed_active, FAB_SPEED_EDR);
	assert_int_equal(p2->width_active, FAB_WIDTH_12X);
	assert_int_equal(p3->speed_active, FAB_SPEED_XDR);
	assert_int_equal(p3->speed_supported, FAB_SPEED_XDR | FAB_SPEED_HDR | FAB_SPEED_NDR | FAB_SPEED_EDR |
						  FAB_SPEED_FDR | FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR);
	assert_int_equal(p3->width_active, FAB_WIDTH_8X);
	assert_int_equal(p4->speed_active, FAB_SPEED_DDR);
	assert_int_equal(p4->speed_enabled, FAB_SPEED_DDR);
	/* every switch port at port 0's LID; port 0's CapabilityMask */
	assert_int_equal(p4->lid, 5);
	assert_int_equal(fab_snapshot_port(s, swi, 0)->cap_mask, 0x10);
	assert_int_equal(fab_snapshot_port(s, swi, 0)->sm_lid, 1);
	/* cabled: port 1 to the CA's port 2, port 2 to the router */
	assert_int_equal(p1->remote_guid, 0x200);
	assert_int_equal(p1->remote_port, 2);
	assert_int_equal(p2->remote_guid, 0x300);
	assert_int_equal(p2->remote_port, 1);
	/* LinkUp without a LINKS row: a hole; Down without one: not */
	assert_true(p3->flags & FAB_F_NO_REMOTE);
	assert_true(p4->flags & FAB_F_NO_REMOTE);
	assert_false(p1->flags & FAB_F_NO_REMOTE);
	assert_false(fab_snapshot_port(s, swi, 0)->flags & FAB_F_NO_REMOTE);
	const struct fab_port *c1 = fab_snapshot_port(s, cai, 1), *c2 = fab_snapshot_port(s, cai, 2);
	assert_int_equal(c1->state, FAB_STATE_DOWN);
	assert_int_equal(c1->phys_state, FAB_PHYS_POLLING);
	assert_false(c1->flags & FAB_F_NO_REMOTE);
	assert_int_equal(c1->lid, 21);
	assert_int_equal(c1->lmc, 2);
	assert_int_equal(c1->guid, 0x201);
	/* N/A: unknown, 0 */
	assert_int_equal(c1->mtu_active, 0);
	assert_int_equal(c1->mtu_cap, 0);
	assert_int_equal(c1->op_vls, 0);
	assert_int_equal(c1->cap_mask, 0);
	assert_int_equal(c2->cap_mask, 0x2651a48);
	assert_int_equal(c2->remote_guid, 0x100);
	assert_int_equal(c2->remote_port, 1);

	/* SMs: one on a listed port, one on a port PORTS does not list */
	assert_int_equal(s->n_sms, 2);
	const struct fab_sm *a = s->sms[0].port_guid == 0x202 ? &s->sms[0] : &s->sms[1];
	const struct fab_sm *b = a == &s->sms[0] ? &s->sms[1] : &s->sms[0];
	assert_int_equal(a->port_guid, 0x202);
	assert_int_equal(a->state, 2);
	assert_int_equal(a->priority, 5);
	assert_int_equal(a->act_count, 7);
	assert_int_equal(a->lid, 22);
	assert_int_equal(a->port_idx, (uint32_t)(c2 - s->ports));
	assert_int_equal(b->port_guid, 0x998);
	assert_int_equal(b->state, 3);
	assert_int_equal(b->priority, 15);
	assert_int_equal(b->lid, 0);
	assert_int_equal(b->port_idx, FAB_NONE);

	/* counters without the extended columns: the 32-bit values, no
	 * unicast/multicast; N/A: not read */
	assert_int_equal(s->n_samples, 1);
	const struct fab_counter_sample *c = &s->samples[0];
	assert_int_equal(c->port_idx, (uint32_t)(c2 - s->ports));
	assert_false(c->extended);
	assert_int_equal(c->sampled_at_ms, 1709208001000LL);
	assert_int_equal(c->v[FAB_CTR_SYMBOL_ERRORS], 7);
	assert_int_equal(c->v[FAB_CTR_XMIT_DATA], 4294967295ULL);
	assert_int_equal(c->v[FAB_CTR_RCV_DATA], 12);
	assert_int_equal(c->v[FAB_CTR_XMIT_PKTS], 13);
	assert_int_equal(c->v[FAB_CTR_RCV_PKTS], 14);
	assert_int_equal(c->valid, (1u << FAB_CTR_SYMBOL_ERRORS) | (1u << FAB_CTR_XMIT_DATA) |
					   (1u << FAB_CTR_RCV_DATA) | (1u << FAB_CTR_XMIT_PKTS) |
					   (1u << FAB_CTR_RCV_PKTS));
	fab_snapshot_free(s);
}

/* Each bad input: its error names the line, and the snapshot stays empty. */
#define NODE_A "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",2,1,0x1\nEND_NODES\n"
#define PORT_A1 "START_PORTS\nNodeGuid,PortGuid,PortNum\n0x1,0x1,1\nEND_PORTS\n"
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
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,0,0x1\nEND_NODES\n",
		  "b.csv:3: NodeType 0 is not a node type" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,4,0x1\nEND_NODES\n",
		  "b.csv:3: NodeType 4 is out of range" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1\nEND_NODES\n",
		  "b.csv:3: 3 fields where the NODES header has 4" },
		{ NODE_A "START_PORTS\nNodeGuid,PortGuid,PortNum,LID\n0x1,0x1,1,0x1g\nEND_PORTS\n",
		  "b.csv:7: LID '0x1g' is not a number" },
		{ NODE_A "START_PORTS\nNodeGuid,PortGuid,PortNum,LID\n0x1,0x1,1,70000\nEND_PORTS\n",
		  "b.csv:7: LID 70000 is out of range" },
		{ NODE_A "START_PORTS\nNodeGuid,PortGuid,PortNum,PortState\n0x1,0x1,1,6\nEND_PORTS\n",
		  "b.csv:7: PortState 6 is out of range" },
		{ NODE_A PORT_A1 PORT_A1, "b.csv:11: port 1 of node 0x0000000000000001 again (first at line 7)" },
		{ NODE_A PORT_A1 "START_LINKS\nNodeGuid1,PortNum1,NodeGuid2,PortNum2\n0x1,1,0x1,255\nEND_LINKS\n",
		  "b.csv:11: PortNum2 255 is out of range" },
		{ NODE_A PORT_A1 "START_LINKS\nNodeGuid1,PortNum1,NodeGuid2,PortNum2\n0x1,1,0x1,1\nEND_LINKS\n",
		  "b.csv:11: port 1 of 0x0000000000000001 is cabled twice" },
		{ NODE_A "START_SWITCHES\nNodeGUID\nN/A\nEND_SWITCHES\n", "b.csv:7: a switch without a NodeGUID" },
		{ NODE_A "START_SWITCHES\nNodeGUID\n0x1\nEND_SWITCHES\n",
		  "b.csv: SWITCHES lists 0x0000000000000001, which NODES says is no switch" },
		{ NODE_A "START_SWITCHES\nNodeGUID\n0x2\nEND_SWITCHES\n",
		  "b.csv: SWITCHES lists 0x0000000000000002, which NODES does not list" },
		{ NODE_A "START_SM_INFO\nNodeGUID,PortGUID,PortNumber,ActCount,SmState,Priority\n0x1,0x1,1,1,4,1\nEND_SM_INFO\n",
		  "b.csv:7: SmState 4 is out of range" },
		{ NODE_A "START_SM_INFO\nNodeGUID,PortGUID,PortNumber,ActCount,SmState\n0x1,0x1,1,1,3\nEND_SM_INFO\n",
		  "b.csv:6: section SM_INFO has no column Priority" },
		{ NODE_A "START_PM_INFO\nNodeGUID,PortNumber\n0x1,255\nEND_PM_INFO\n", "b.csv:7: PortNumber 255 is out of range" },
		{ NODE_A "START_PM_INFO\nNodeGUID,PortNumber,SymbolErrorCounter\n0x1,1,-5\nEND_PM_INFO\n",
		  "b.csv:7: SymbolErrorCounter '-5' is not a number" },
		{ NODE_A "START_PM_INFO\nNodeGUID,PortNumber\n0x1,1\nEND_PM_INFO\n",
		  "b.csv:7: counters of port 1 of 0x0000000000000001, which PORTS does not list" },
		{ NODE_A "START_NODES_INFO\nNodeGUID,FWInfo_Major\n0x2,1\nEND_NODES_INFO\n",
		  "b.csv:7: firmware of node 0x0000000000000002, which NODES does not list" },
		{ NODE_A "START_NODES_INFO\nNodeGUID,FWInfo_Major\n0x1,0x100000000\nEND_NODES_INFO\n",
		  "b.csv:7: FWInfo_Major 4294967296 is out of range" },
		{ NODE_A "START_NODES_INFO\nNodeGUID,FWInfo_Minor\n0x1,0xq\nEND_NODES_INFO\n",
		  "b.csv:7: FWInfo_Minor '0xq' is not a number" },
		{ "START_RUN_INFO\nDate\n\"31.03.2025\"\nEND_RUN_INFO\n", "b.csv:3: Date '31.03.2025' is not YYYY-MM-DD HH:MM:SS" },
		{ "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\0\",1,1,0x1\nEND_NODES\n", "b.csv:3: a NUL byte" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fab_snapshot *s = fab_snapshot_new();
		/* (the NUL byte's input is measured past its NUL) */
		size_t len = strlen(bad[i].text);
		if (strstr(bad[i].msg, "NUL"))
			len += 1 + strlen(bad[i].text + len + 1);
		int rc = fab_ibdiag_import(bad[i].text, len, "b.csv", NULL, NULL, s);

		if (rc != -EINVAL || strncmp(fab_errmsg(), bad[i].msg, strlen(bad[i].msg)))
			fail_msg("input %zu: rc %d, message '%s', want '%s'", i, rc, fab_errmsg(), bad[i].msg);
		assert_int_equal(s->n_nodes + s->n_ports + s->n_links + s->n_samples + s->n_sms, 0);
		fab_snapshot_free(s);
	}
}

/* The reader's limits, and the entry points' own errors. */
static void test_limits(void **state)
{
	size_t cap = FAB_IBDIAG_LINE_MAX + 64;
	char *text = malloc(cap), dir[] = "/tmp/fabsweep-ibdiag-XXXXXX", path[64];
	struct fab_snapshot *s = fab_snapshot_new();
	int n;

	assert_non_null(text);
	/* 513 fields in a row: more than a row may have */
	n = snprintf(text, cap, "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\"");
	for (int i = 0; i < 512; i++)
		n += snprintf(text + n, cap - (size_t)n, ",1");
	assert_int_equal(fab_ibdiag_import(text, (size_t)n, "l.csv", NULL, NULL, s), -EINVAL);
	assert_string_equal(fab_errmsg(), "l.csv:3: more than 512 fields");
	/* a line one byte longer than FAB_IBDIAG_LINE_MAX */
	memset(text, 'x', FAB_IBDIAG_LINE_MAX + 1);
	assert_int_equal(fab_ibdiag_import(text, FAB_IBDIAG_LINE_MAX + 1, "l.csv", NULL, NULL, s), -EINVAL);
	assert_int_equal(strncmp(fab_errmsg(), "l.csv:1: line longer than 65536 bytes", 37), 0);
	assert_int_equal(s->n_nodes + s->n_ports, 0);
	/* the smallest run: NODES alone (a run cut short after it) */
	static const char nodes_only[] = "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1,0x1\nEND_NODES\n";
	assert_int_equal(fab_ibdiag_import(nodes_only, sizeof(nodes_only) - 1, "n.csv", NULL, NULL, s), 0);
	assert_int_equal(s->n_nodes, 1);
	assert_int_equal(s->n_ports + s->n_links + s->n_samples + s->n_sms, 0);
	assert_int_equal(s->status, FAB_SCAN_COMPLETE);
	assert_int_equal(s->started_at_ms, 0); /* no RUN_INFO: the caller stores it as of now */
	assert_int_equal(s->nodes[0].lid, 0);
	fab_snapshot_free(s);
	s = fab_snapshot_new();
	/* a snapshot that already holds something is refused */
	assert_int_equal(fab_ibdiag_import(good, sizeof(good) - 1, "t.csv", NULL, NULL, s), 0);
	struct fab_snapshot *again = s;
	assert_int_equal(fab_ibdiag_import(good, sizeof(good) - 1, "t.csv", NULL, NULL, again), -EINVAL);
	assert_string_equal(fab_errmsg(), "t.csv: the snapshot to import into is not empty");
	fab_snapshot_free(s);
	/* a directory whose ibdiagnet2.db_csv is a directory; one without it */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ibdiagnet2.db_csv", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	s = fab_snapshot_new();
	assert_int_equal(fab_ibdiag_import_dir(dir, NULL, NULL, s), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "is not a regular file"));
	assert_int_equal(rmdir(path), 0);
	assert_true(fab_ibdiag_import_dir(dir, NULL, NULL, s) < 0);
	assert_non_null(strstr(fab_errmsg(), "is '"));
	assert_non_null(strstr(fab_errmsg(), "' an ibdiagnet2 output directory?"));
	/* the file read from a directory: the source names the directory */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(good, 1, sizeof(good) - 1, f), sizeof(good) - 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(fab_ibdiag_import_dir(dir, NULL, NULL, s), 0);
	char want[80];
	snprintf(want, sizeof(want), "ibdiagnet2:%s", dir);
	assert_string_equal(s->source, want);
	assert_int_equal(s->n_nodes, 2);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	fab_snapshot_free(s);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_branches),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
