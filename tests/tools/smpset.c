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
 *   smpset mft LID MLID PORT on|off  one port of a switch's MulticastForwardingTable
 *                                    entry for MLID (its block and position read,
 *                                    the bit set or cleared, written back)
 *   smpset trap SMLID ISSUER TRAP LID1 LID2 KEY
 *                                    a Trap(Notice) to the SM at SMLID as the port
 *                                    at LID ISSUER sends one that saw a bad P_Key
 *                                    (TRAP 257) or Q_Key (258): KEY from LID1 to LID2
 * PORT is the switch port (the attribute modifier); for a CA give 0.
 * Used by tests/integration/test_partitions_sim.sh, test_routing_sim.sh,
 * test_mcast_sim.sh and test_watch_events.sh under umad2sim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

static int die(const char *m)
{
	fprintf(stderr, "smpset: %s\n", m);
	return 1;
}

/* A Trap(Notice) to the SM (QP0), raw through libibumad: no answer awaited
 * (the SM's TrapRepress is not read). */
static int trap(int argc, char **argv)
{
	uint8_t *m, *n;
	void *umad;
	int fd, agent;

	if (argc < 8)
		return die("trap needs SMLID ISSUER TRAP LID1 LID2 KEY");
	if (umad_init() < 0 || (fd = umad_open_port(NULL, 0)) < 0)
		return die("cannot open the local port");
	if ((agent = umad_register(fd, IB_SMI_CLASS, 1, 0, NULL)) < 0 ||
	    !(umad = calloc(1, umad_size() + IB_MAD_SIZE)))
		return die("cannot register an SMI agent");
	m = umad_get_mad(umad);
	mad_set_field(m, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, IB_SMI_CLASS);
	mad_set_field(m, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_field(m, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP);
	mad_set_field64(m, 0, IB_MAD_TRID_F, 0x5157);
	mad_set_field(m, 0, IB_MAD_ATTRID_F, 0x0002); /* Notice */
	/* the Notice: generic, security, from a channel adapter */
	n = m + IB_SMP_DATA_OFFS;
	mad_set_field(n, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(n, 0, IB_NOTICE_TYPE_F, 2);
	mad_set_field(n, 0, IB_NOTICE_PRODUCER_F, 1);
	mad_set_field(n, 0, IB_NOTICE_TRAP_NUMBER_F, (unsigned)strtoul(argv[4], NULL, 0));
	mad_set_field(n, 0, IB_NOTICE_ISSUER_LID_F, (unsigned)strtoul(argv[3], NULL, 0));
	/* DataDetails (from byte 10): reserved, LID1, LID2, the key */
	unsigned l1 = (unsigned)strtoul(argv[5], NULL, 0), l2 = (unsigned)strtoul(argv[6], NULL, 0);
	unsigned key = (unsigned)strtoul(argv[7], NULL, 0);
	n[12] = (uint8_t)(l1 >> 8), n[13] = (uint8_t)l1;
	n[14] = (uint8_t)(l2 >> 8), n[15] = (uint8_t)l2;
	for (int i = 0; i < 4; i++)
		n[16 + i] = (uint8_t)(key >> (24 - 8 * i));
	umad_set_addr(umad, (int)strtol(argv[2], NULL, 0), 0, 0, 0);
	if (umad_send(fd, agent, umad, IB_MAD_SIZE, 100, 0) < 0)
		return die("Trap send failed");
	/* the SM's TrapRepress (or the send's timeout) before the port closes */
	int len = IB_MAD_SIZE;
	umad_recv(fd, umad, &len, 1000);
	free(umad);
	umad_close_port(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	ib_portid_t id = { 0 };
	struct ibmad_port *mp;

	if (argc < 5 || (strcmp(argv[1], "enforce") && strcmp(argv[1], "pkey") &&
			 strcmp(argv[1], "lft") && strcmp(argv[1], "sl2vl") && strcmp(argv[1], "vlarb") &&
			 strcmp(argv[1], "mft") && strcmp(argv[1], "trap")))
		return die("usage: smpset enforce LID PORT on|off | pkey LID PORT INDEX PKEY | "
			   "lft LID DLID PORT | sl2vl LID IN OUT VLS | vlarb LID PORT low|high VL:W,... | "
			   "mft LID MLID PORT on|off | trap SMLID ISSUER TRAP LID1 LID2 KEY");
	if (!(mp = mad_rpc_open_port(NULL, 0, classes, 2)))
		return die("cannot open the local port");
	if (!strcmp(argv[1], "trap")) {
		mad_rpc_close_port(mp);
		return trap(argc, argv);
	}
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
	} else if (!strcmp(argv[1], "mft")) {
		/* port is the MLID here */
		if (argc < 6 || port < 0xc000 || port > 0xfffe)
			return die("mft needs an MLID (0xc000..0xfffe), a PORT and on|off");
		unsigned mp_port = (unsigned)strtoul(argv[4], NULL, 0), on = !strcmp(argv[5], "on");
		unsigned blk = (port - 0xc000) / 32, slot = (port - 0xc000) % 32;
		unsigned mod = (mp_port / 16) << 28 | blk, bit = mp_port % 16;
		if (!smp_query_via(buf, &id, IB_ATTR_MULTICASTFORWTBL, mod, 0, mp))
			return die("MulticastForwardingTable Get failed");
		unsigned m = (unsigned)buf[2 * slot] << 8 | buf[2 * slot + 1];
		m = on ? m | 1u << bit : m & ~(1u << bit);
		buf[2 * slot] = (uint8_t)(m >> 8);
		buf[2 * slot + 1] = (uint8_t)m;
		if (!smp_set_via(buf, &id, IB_ATTR_MULTICASTFORWTBL, mod, 0, mp))
			return die("MulticastForwardingTable Set failed");
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
