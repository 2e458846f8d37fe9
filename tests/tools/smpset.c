// SPDX-License-Identifier: MIT
/*
 * smpset: the SMP Sets the partition and routing tests need and no tool of
 * infiniband-diags sends (smpquery only reads), LID-routed through
 * libibmad, read-modify-write:
 *   smpset enforce LID PORT on|off   PortInfo PartitionEnforcementInbound/Outbound
 *   smpset pkey LID PORT INDEX PKEY  one entry of the port's P_KeyTable
 *   smpset lft LID DLID PORT         a switch's LinearForwardingTable entry
 *                                    for DLID (255: none)
 *   smpset sl2vl LID IN OUT VLS      a switch's SLtoVLMappingTable for (in, out)
 *                                    (a CA's: IN and OUT 0): VLS is 16 hex
 *                                    digits, SL 0's VL first
 *   smpset vlarb LID PORT low|high VL:W,...
 *                                    the first block (32 entries) of a port's
 *                                    low- or high-priority VLArbitrationTable:
 *                                    these entries, the others VL 0 weight 0
 * PORT is the switch port (the attribute modifier); for a CA give 0.
 * Used by tests/integration/test_partitions_sim.sh and test_routing_sim.sh
 * under umad2sim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

static int die(const char *m)
{
	fprintf(stderr, "smpset: %s\n", m);
	return 1;
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	ib_portid_t id = { 0 };
	struct ibmad_port *mp;

	if (argc < 5 || (strcmp(argv[1], "enforce") && strcmp(argv[1], "pkey") &&
			 strcmp(argv[1], "lft") && strcmp(argv[1], "sl2vl") && strcmp(argv[1], "vlarb")))
		return die("usage: smpset enforce LID PORT on|off | pkey LID PORT INDEX PKEY | "
			   "lft LID DLID PORT | sl2vl LID IN OUT VLS | vlarb LID PORT low|high VL:W,...");
	if (!(mp = mad_rpc_open_port(NULL, 0, classes, 2)))
		return die("cannot open the local port");
	ib_portid_set(&id, (int)strtol(argv[2], NULL, 0), 0, 0);
	unsigned port = (unsigned)strtoul(argv[3], NULL, 0);
	if (!strcmp(argv[1], "enforce")) {
		unsigned on = !strcmp(argv[4], "on");
		if (!smp_query_via(buf, &id, IB_ATTR_PORT_INFO, port, 0, mp))
			return die("PortInfo Get failed");
		/* no state change: PortState and PortPhysicalState 0 (NOP) */
		mad_set_field(buf, 0, IB_PORT_STATE_F, 0);
		mad_set_field(buf, 0, IB_PORT_PHYS_STATE_F, 0);
		mad_set_field(buf, 0, IB_PORT_PART_EN_INB_F, on);
		mad_set_field(buf, 0, IB_PORT_PART_EN_OUTB_F, on);
		if (!smp_set_via(buf, &id, IB_ATTR_PORT_INFO, port, 0, mp))
			return die("PortInfo Set failed");
	} else if (!strcmp(argv[1], "lft")) {
		/* port is the destination LID here; its block is the modifier */
		unsigned out = (unsigned)strtoul(argv[4], NULL, 0);
		if (!smp_query_via(buf, &id, IB_ATTR_LINEARFORWTBL, port / 64, 0, mp))
			return die("LinearForwardingTable Get failed");
		buf[port % 64] = (uint8_t)out;
		if (!smp_set_via(buf, &id, IB_ATTR_LINEARFORWTBL, port / 64, 0, mp))
			return die("LinearForwardingTable Set failed");
	} else if (!strcmp(argv[1], "sl2vl")) {
		if (argc < 6 || strlen(argv[5]) != 16 || strspn(argv[5], "0123456789abcdefABCDEF") != 16)
			return die("sl2vl needs OUT and 16 hex digits");
		unsigned mod = port << 8 | (unsigned)strtoul(argv[4], NULL, 0);
		for (unsigned sl = 0; sl < 16; sl++) {
			char d[2] = { argv[5][sl], 0 };
			unsigned vl = (unsigned)strtoul(d, NULL, 16);
			buf[sl / 2] = (uint8_t)(sl % 2 ? (buf[sl / 2] & 0xf0) | vl : vl << 4);
		}
		if (!smp_set_via(buf, &id, IB_ATTR_SLVL_TABLE, mod, 0, mp))
			return die("SLtoVLMappingTable Set failed");
	} else if (!strcmp(argv[1], "vlarb")) {
		unsigned block = !strcmp(argv[4], "high") ? 3 : !strcmp(argv[4], "low") ? 1 : 0;
		const char *p = argc > 5 ? argv[5] : NULL;
		if (!block || !p)
			return die("vlarb needs low or high and VL:W entries");
		for (unsigned i = 0; *p && i < 32; i++) {
			char *end;
			unsigned long vl = strtoul(p, &end, 10), w;
			if (*end != ':' || vl > 15)
				return die("vlarb entries are VL:W, VL 0..15");
			w = strtoul(end + 1, &end, 10);
			if (w > 255 || (*end && *end != ','))
				return die("vlarb entries are VL:W, W 0..255");
			buf[2 * i] = (uint8_t)vl;
			buf[2 * i + 1] = (uint8_t)w;
			p = *end ? end + 1 : end;
		}
		if (!smp_set_via(buf, &id, IB_ATTR_VL_ARBITRATION, block << 16 | port, 0, mp))
			return die("VLArbitrationTable Set failed");
	} else {
		if (argc < 6)
			return die("pkey needs INDEX and PKEY");
		unsigned idx = (unsigned)strtoul(argv[4], NULL, 0);
		unsigned mod = idx / 32 | port << 16;
		unsigned pk = (unsigned)strtoul(argv[5], NULL, 0);
		if (!smp_query_via(buf, &id, IB_ATTR_PKEY_TBL, mod, 0, mp))
			return die("P_KeyTable Get failed");
		buf[2 * (idx % 32)] = (uint8_t)(pk >> 8);
		buf[2 * (idx % 32) + 1] = (uint8_t)pk;
		if (!smp_set_via(buf, &id, IB_ATTR_PKEY_TBL, mod, 0, mp))
			return die("P_KeyTable Set failed");
	}
	mad_rpc_close_port(mp);
	return 0;
}
