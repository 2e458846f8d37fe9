// SPDX-License-Identifier: MIT
/*
 * mcjoin: joins a port to a multicast group, or takes it out, with an
 * MCMemberRecord SubnAdmSet (SubnAdmDelete) to the SA, through libibmad,
 * as a host's IPoIB or an MPI library would (no infiniband-diags tool sends
 * one). The port is given by GUID: the SA takes the join from our port as
 * a proxy join when they share a partition (OpenSM does), so one client
 * joins every simulated host.
 *   mcjoin join PORTGUID MGID [full|non|sendonly] [create MTU RATE PKEY [QKEY [SL]]]
 *   mcjoin leave PORTGUID MGID [full|non|sendonly]
 *   mcjoin -f FILE     the same, a request a line ("join PORTGUID MGID ..."),
 *                      through one open port (thousands of joins for bench/)
 * create: the group is made by this join (the SA's implicit create): MTU
 * and RATE are IBTA codes (4 = 2048 bytes, 3 = 10 Gb/s), PKEY the group's
 * P_Key (0xffff), QKEY default 0x0b1b (IPoIB's), SL default 0. The record
 * is encoded with libibmad's field table (not fabsweep's), so the test
 * reads back through an encoder of its own. Prints the SA's answer's MLID.
 * Used by tests/integration/test_mcast_sim.sh and bench/bench_mcast.sh
 * under umad2sim.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#define CM_MGID (1ull << 0)
#define CM_PORTGID (1ull << 1)
#define CM_QKEY (1ull << 2)
#define CM_MTU_SEL (1ull << 4)
#define CM_MTU (1ull << 5)
#define CM_TCLASS (1ull << 6)
#define CM_PKEY (1ull << 7)
#define CM_RATE_SEL (1ull << 8)
#define CM_RATE (1ull << 9)
#define CM_SL (1ull << 12)
#define CM_FLOW (1ull << 13)
#define CM_JOIN (1ull << 16)

static int die(const char *m)
{
	fprintf(stderr, "mcjoin: %s\n", m);
	return 1;
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "mcjoin: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

/* One request (argv[0] join|leave, then its arguments); 0 or 1. */
static int one(struct ibmad_port *mp, ib_portid_t *sm, int argc, char **argv)
{
	uint8_t rec[IB_SA_DATA_SIZE] = { 0 }, buf[1024] = { 0 };
	uint8_t mgid[16], gid[16] = { 0xfe, 0x80 };
	ib_sa_call_t sa = { 0 };
	unsigned js = 1;
	int a = 3;

	if (argc < 3 || (strcmp(argv[0], "join") && strcmp(argv[0], "leave")))
		return die("usage: mcjoin join|leave PORTGUID MGID [full|non|sendonly] "
			   "[create MTU RATE PKEY [QKEY [SL]]] | mcjoin -f FILE");
	uint64_t guid = num(argv[1]);
	if (inet_pton(AF_INET6, argv[2], mgid) != 1)
		return die("MGID is not an IPv6-style GID");
	if (argc > a && strcmp(argv[a], "create")) {
		js = !strcmp(argv[a], "full") ? 1 : !strcmp(argv[a], "non") ? 2
			: !strcmp(argv[a], "sendonly") ? 4 : 0;
		if (!js)
			return die("join state: full, non or sendonly");
		a++;
	}
	for (int i = 0; i < 8; i++)
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	mad_set_array(rec, 0, IB_SA_MCM_MGID_F, mgid);
	mad_set_array(rec, 0, IB_SA_MCM_PORTGID_F, gid);
	mad_set_field(rec, 0, IB_SA_MCM_JOIN_STATE_F, js);
	sa.mask = CM_MGID | CM_PORTGID | CM_JOIN;
	if (argc > a && !strcmp(argv[a], "create")) {
		if (argc < a + 4)
			return die("create needs MTU RATE PKEY");
		/* libibmad's fields are the 6-bit values; the selectors (2:
		 * exactly) are the top bits of bytes 38 and 42 */
		mad_set_field(rec, 0, IB_SA_MCM_MTU_F, (unsigned)num(argv[a + 1]));
		mad_set_field(rec, 0, IB_SA_MCM_RATE_F, (unsigned)num(argv[a + 2]));
		rec[38] |= 2u << 6;
		rec[42] |= 2u << 6;
		mad_set_field(rec, 0, IB_SA_MCM_PKEY_F, (unsigned)num(argv[a + 3]));
		mad_set_field(rec, 0, IB_SA_MCM_QKEY_F, argc > a + 4 ? (unsigned)num(argv[a + 4]) : 0x0b1b);
		mad_set_field(rec, 0, IB_SA_MCM_SL_F, argc > a + 5 ? (unsigned)num(argv[a + 5]) : 0);
		sa.mask |= CM_QKEY | CM_MTU_SEL | CM_MTU | CM_TCLASS | CM_PKEY | CM_RATE_SEL | CM_RATE |
			   CM_SL | CM_FLOW;
	}
	sa.attrid = IB_SA_ATTR_MCRECORD;
	sa.method = !strcmp(argv[0], "join") ? IB_MAD_METHOD_SET : IB_MAD_METHOD_DELETE;
	memcpy(buf, rec, sizeof(rec));
	if (!sa_rpc_call(mp, buf, sm, &sa, 2000))
		return die("the SA refused it or did not answer (OpenSM's log says why: "
			   "a port below the group's rate or MTU, not in its partition, ...)");
	printf("mlid 0x%04x\n", mad_get_field(buf, 0, IB_SA_MCM_MLID_F));
	return 0;
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS };
	ib_portid_t sm = { 0 };
	struct ibmad_port *mp;
	int rc = 0;

	if (argc < 3)
		return one(NULL, NULL, 0, NULL);
	if (!(mp = mad_rpc_open_port(NULL, 0, classes, 3)))
		return die("cannot open the local port");
	if (ib_resolve_smlid_via(&sm, 1000, mp) < 0)
		return die("no SM LID (is the subnet up?)");
	sm.qp = 1;
	sm.qkey = IB_DEFAULT_QP1_QKEY;
	if (strcmp(argv[1], "-f")) {
		rc = one(mp, &sm, argc - 1, argv + 1);
	} else {
		FILE *f = fopen(argv[2], "r");
		char line[512];
		if (!f)
			return die("cannot open the request file");
		while (!rc && fgets(line, sizeof(line), f)) {
			char *av[16], *p = line;
			int ac = 0;
			while (*p && ac < 16) { /* the words of the line */
				p += strspn(p, " \t\n");
				if (!*p)
					break;
				av[ac++] = p;
				p += strcspn(p, " \t\n");
				if (*p)
					*p++ = 0;
			}
			if (ac)
				rc = one(mp, &sm, ac, av);
		}
		fclose(f);
	}
	mad_rpc_close_port(mp);
	return rc;
}
