// SPDX-License-Identifier: MIT
/*
 * The ibnetdiscover importer on small inputs written here that reproduce one
 * quirk each (made-up GUIDs); test_topo_import_real.c has the real files.
 */

#include "topo_helpers.h"

static const char basic[] =
	"#\n"
	"# Topology file: generated on Mon Dec  1 02:53:55 2025\n"
	"#\n"
	"# Initiated from node 0000000000000101 port 0000000000000102\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0xd2f0\n"
	"sysimgguid=0x1000\n"
	"switchguid=0x1000(1000)\n"
	"Switch\t8 \"S-0000000000001000\"\t\t# \"leaf-1\" enhanced port 0 lid 5 lmc 0\n"
	"[1]\t\"H-0000000000000101\"[1](102) \t\t# \"host-1 mlx5_0\" lid 7 4xHDR\n"
	"[2]\t\"H-0000000000000201\"[1](202) \t\t# \"host-2 mlx5_0\" lid 8 1xSDR\n"
	"[3]\t\"S-0000000000002000\"[1]\t\t# \"spine-1\" lid 6 4xHDR\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0xd2f0\n"
	"switchguid=0x2000(2000)\n"
	"Switch\t8 \"S-0000000000002000\"\t\t# \"spine-1\" base port 0 lid 6 lmc 0\n"
	"[1]\t\"S-0000000000001000\"[3]\t\t# \"leaf-1\" lid 5 4xHDR\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0x101b\n"
	"sysimgguid=0x103\n"
	"caguid=0x101\n"
	"Ca\t2 \"H-0000000000000101\"\t\t# \"host-1 mlx5_0\"\n"
	"[1](102) \t\"S-0000000000001000\"[1]\t\t# lid 7 lmc 0 \"leaf-1\" lid 5 4xHDR\n"
	"\n"
	"caguid=0x201\n"
	"Ca\t1 \"H-0000000000000201\"\t\t# \"host-2 mlx5_0\"\n"
	"[1](202) \t\"S-0000000000001000\"[2]\t\t# lid 8 lmc 2 \"leaf-1\" lid 5 1xSDR\n";

static void test_fields(void **state)
{
	struct fab_snapshot *s = parse(basic);
	char t[FAB_TIME_STRLEN];

	check_invariants(s);
	assert_int_equal(s->n_nodes, 4);
	assert_int_equal(s->n_ports, 4 + 2 + 1 + 1);
	assert_int_equal(s->n_links, 3);
	assert_int_equal(s->n_errors, 0);
	assert_int_equal(s->status, FAB_SCAN_COMPLETE);
	assert_string_equal(s->source, "file:t.topo");
	fab_time_format(s->started_at_ms, t);
	assert_string_equal(t, "2025-12-01T02:53:55.000Z");
	assert_int_equal(s->finished_at_ms, s->started_at_ms);
	/* file order: switches then CAs */
	assert_int_equal(s->nodes[0].guid, 0x1000);
	assert_int_equal(s->nodes[3].guid, 0x201);

	const struct fab_node *n = node(s, 0x1000);
	assert_int_equal(n->type, FAB_NODE_SWITCH);
	assert_int_equal(n->num_ports, 8);
	assert_int_equal(n->port_count, 4);
	assert_int_equal(n->vendor_id, 0x2c9);
	assert_int_equal(n->device_id, 0xd2f0);
	assert_int_equal(n->sys_guid, 0x1000);
	assert_int_equal(n->lid, 5);
	assert_int_equal(n->role, FAB_ROLE_LEAF);
	assert_int_equal(node(s, 0x2000)->role, FAB_ROLE_SPINE);
	assert_int_equal(node(s, 0x101)->role, FAB_ROLE_HOST);
	assert_int_equal(n->hops, 1);
	assert_string_equal(n->desc, "leaf-1");
	const struct fab_port *p0 = port(s, 0x1000, 0);
	assert_int_equal(p0->lid, 5);
	assert_int_equal(p0->guid, 0x1000);
	assert_int_equal(p0->state, FAB_STATE_ACTIVE);
	assert_int_equal(p0->remote_idx, FAB_NONE);
	const struct fab_port *p = port(s, 0x1000, 2);
	assert_int_equal(p->state, FAB_STATE_ACTIVE);
	assert_int_equal(p->phys_state, FAB_PHYS_LINKUP);
	assert_int_equal(p->width_active, FAB_WIDTH_1X);
	assert_int_equal(p->speed_active, FAB_SPEED_SDR);
	assert_int_equal(p->width_enabled, 0); /* not in the file */
	assert_int_equal(p->speed_supported, 0);
	assert_int_equal(p->remote_guid, 0x201);
	assert_int_equal(p->remote_port, 1);
	assert_int_equal(p->guid, 0x1000);
	assert_int_equal(p->lid, 5);
	assert_int_equal(p->flags, 0);

	n = node(s, 0x101);
	assert_int_equal(n->type, FAB_NODE_CA);
	assert_int_equal(n->num_ports, 2);
	assert_int_equal(n->lid, 7);
	assert_int_equal(n->sys_guid, 0x103);
	assert_int_equal(n->device_id, 0x101b);
	assert_int_equal(n->hops, 0);
	p = port(s, 0x101, 1);
	assert_int_equal(p->guid, 0x102);
	assert_int_equal(p->lid, 7);
	assert_int_equal(p->width_active, FAB_WIDTH_4X);
	assert_int_equal(p->speed_active, FAB_SPEED_HDR);
	assert_int_equal(port(s, 0x201, 1)->lmc, 2);
	assert_int_equal(node(s, 0x201)->vendor_id, 0); /* no vendid= line */
	assert_int_equal(node(s, 0x2000)->hops, 2);
	assert_int_equal(node(s, 0x201)->hops, 2);
	fab_snapshot_free(s);
}

/* PuTTY log: banner, CR CR LF, tabs stripped ("Switch8", "]# "), LID 65535,
 * the next shell prompt at the end. */
static void test_putty_tabs_stripped(void **state)
{
	static const char text[] =
		"=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2025.12.01 02:53:55 =~=~=~=~=~=~=~=~=~=~=~=\r\n"
		"\r\r\n"
		"#\r\n"
		"# Topology file: generated on Mon Dec  1 02:53:55 2025\r\n"
		"#\r\n"
		"vendid=0x2c9\r\n"
		"switchguid=0x1000(1000)\r\n"
		"Switch8 \"S-0000000000001000\"# \"MF0;leaf-1:MQM8700/U1\" enhanced port 0 lid 3894 lmc 0\r\n"
		"[1]\"H-0000000000000101\"[1](101) # \"host-1 ibp11s0f0\" lid 65535 4xHDR\r\n"
		"[2]\"S-0000000000001000\"[3]# \"MF0;leaf-1:MQM8700/U1\" lid 3894 4xHDR\r\n"
		"[3]\"S-0000000000001000\"[2]# \"MF0;leaf-1:MQM8700/U1\" lid 3894 4xHDR\r\n"
		"\r\n"
		"caguid=0x101\r\n"
		"Ca  1 \"H-0000000000000101\"# \"host-1 ibp11s0f0\"\r\n"
		"[1](101) \"S-0000000000001000\"[1]# lid 65535 lmc 0 \"MF0;leaf-1:MQM8700/U1\" lid 3894 4xHDR\r\n"
		"\r\r\n"
		"\rleaf-1-ufm [ mgmt-ha-active ] (config) # ";
	struct fab_snapshot *s = parse(text);

	check_invariants(s);
	assert_int_equal(s->n_nodes, 2);
	assert_int_equal(s->n_links, 2);
	assert_string_equal(node(s, 0x1000)->desc, "MF0;leaf-1:MQM8700/U1");
	assert_int_equal(node(s, 0x1000)->lid, 3894);
	assert_int_equal(node(s, 0x1000)->num_ports, 8);
	assert_string_equal(node(s, 0x101)->desc, "host-1 ibp11s0f0");
	/* 65535 is what the port reported (no LID assigned): kept as is */
	assert_int_equal(port(s, 0x101, 1)->lid, 65535);
	assert_int_equal(node(s, 0x101)->lid, 65535);
	assert_int_equal(port(s, 0x1000, 1)->speed_active, FAB_SPEED_HDR);
	fab_snapshot_free(s);
}

/* UTF-8 BOM, a shell prompt, CRLF, no blank lines, no final newline. */
static void test_bom_prompt_no_blank_lines(void **state)
{
	static const char text[] =
		"\xef\xbb\xbf[root@ufm01 ~]# ibnetdiscover \r\n"
		"#\r\n"
		"# Topology file: generated on Wed Aug 10 17:02:44 2022\r\n"
		"#\r\n"
		"# Initiated from node 0000000000000101 port 0000000000000101\r\n"
		"vendid=0x2c9\r\n"
		"switchguid=0x1000(1000)\r\n"
		"Switch  41 \"S-0000000000001000\"         # \"sp01.qm8790\" base port 0 lid 15 lmc 0\r\n"
		"[1]     \"H-0000000000000101\"[1](101)                # \"h1 HCA-1\" lid 1 4xHDR\r\n"
		"vendid=0x2c9\r\n"
		"caguid=0x101\r\n"
		"Ca      1 \"H-0000000000000101\"          # \"h1 HCA-1\"\r\n"
		"[1](101)   \"S-0000000000001000\"[1]                # lid 1 lmc 0 \"sp01.qm8790\" lid 15 4xHDR";
	struct fab_snapshot *s = parse(text);

	check_invariants(s);
	assert_int_equal(s->n_nodes, 2);
	assert_int_equal(s->n_links, 1);
	assert_string_equal(node(s, 0x1000)->desc, "sp01.qm8790");
	assert_int_equal(port(s, 0x101, 1)->speed_active, FAB_SPEED_HDR);
	assert_int_equal(node(s, 0x1000)->hops, 1);
	fab_snapshot_free(s);
}

/* Blank LIDs ("lid  lmc 0", "lid  4xHDR"), "??x???", "4x???", no rate, no
 * comment at all. */
static void test_blank_lids_unknown_rates(void **state)
{
	static const char text[] =
		"switchguid=0x1000(1000)\n"
		"Switch\t4 \"S-0000000000001000\"\t\t# \"sw\" base port 0 lid  lmc 0\n"
		"[1]\t\"H-0000000000000101\"[1](101) \t\t# \"h1\" lid  4xHDR\n"
		"[2]\t\"H-0000000000000201\"[1](201) \t\t# \"h2\" lid 9 ??x???\n"
		"[3]\t\"H-0000000000000301\"[1](301) \t\t# \"h3\" lid 10 4x???\n"
		"[4]\t\"H-0000000000000401\"[1](401)\n"
		"caguid=0x101\n"
		"Ca\t1 \"H-0000000000000101\"\t\t# \"h1\"\n"
		"[1](101) \t\"S-0000000000001000\"[1]\t\t# lid  lmc 0 \"sw\" lid  4xHDR\n"
		"caguid=0x201\n"
		"Ca\t1 \"H-0000000000000201\"\t\t# \"h2\"\n"
		"[1](201) \t\"S-0000000000001000\"[2]\t\t# lid 9 lmc 0 \"sw\" lid 0\n"
		"caguid=0x301\n"
		"Ca\t1 \"H-0000000000000301\"\t\t# \"h3\"\n"
		"[1](301) \t\"S-0000000000001000\"[3]\t\t# lid 10 lmc 0 \"sw\" lid 0 12xXDR\n"
		"caguid=0x401\n"
		"Ca\t1 \"H-0000000000000401\"\n"
		"[1](401) \t\"S-0000000000001000\"[4]\n";
	struct fab_snapshot *s = parse(text);

	check_invariants(s);
	assert_int_equal(s->n_links, 4);
	assert_int_equal(node(s, 0x1000)->lid, 0);
	assert_int_equal(port(s, 0x1000, 0)->lid, 0);
	assert_int_equal(port(s, 0x1000, 1)->width_active, FAB_WIDTH_4X);
	assert_int_equal(port(s, 0x1000, 1)->speed_active, FAB_SPEED_HDR);
	assert_int_equal(port(s, 0x101, 1)->lid, 0);
	assert_int_equal(port(s, 0x101, 1)->speed_active, FAB_SPEED_HDR);
	assert_int_equal(port(s, 0x1000, 2)->width_active, 0);
	assert_int_equal(port(s, 0x1000, 2)->speed_active, 0);
	assert_int_equal(port(s, 0x201, 1)->width_active, 0);
	assert_int_equal(port(s, 0x201, 1)->speed_active, 0);
	assert_int_equal(port(s, 0x1000, 3)->width_active, FAB_WIDTH_4X);
	assert_int_equal(port(s, 0x1000, 3)->speed_active, 0);
	assert_int_equal(port(s, 0x301, 1)->width_active, FAB_WIDTH_12X);
	assert_int_equal(port(s, 0x301, 1)->speed_active, FAB_SPEED_XDR);
	assert_int_equal(port(s, 0x1000, 4)->speed_active, 0);
	assert_string_equal(node(s, 0x401)->desc, "");
	assert_int_equal(s->started_at_ms, 0); /* no date in the file */
	fab_snapshot_free(s);
}

/* ibdiagnet and group-mode syntax: labels, "[ext N]", chassis lines,
 * "switchguid=<system GUID>(<node GUID>)", 2X width, time zone offset. */
static void test_labels_ext_ports_chassis(void **state)
{
	static const char text[] =
		"# This database file was automatically generated by IBDIAG\n"
		"# Running timestamp : 2025-03-31 23:43:18 KST +0900\n"
		"\n"
		"Chassis 1 (guid 0x9999)\n"
		"\n"
		"# Spine Nodes\n"
		"vendid=0x000002c9\n"
		"sysimgguid=0x9999\t\t# Chassis 1 (leaf)\n"
		"switchguid=0x9999(1000)\t# MCS8500 Leaf 1\n"
		"Switch  65 \"S-0000000000001000\"      # \"MF0;sw:MCS8500/L01/U1\" enhanced port 0 lid 180 lmc 0\n"
		"[1](1/1/1) \"S-0000000000002000\"[63]      # \"sw2\" lid 13 4xNDR\n"
		"[2][ext 7] \"H-0000000000000101\"[1](101)      # \"h1\" lid 14 2xNDR\n"
		"\n"
		"Non-Chassis Nodes\n"
		"\n"
		"switchguid=0x2000(2000)\n"
		"Switch  65 \"S-0000000000002000\"      # \"sw2\" base port 0 lid 13 lmc 0\n"
		"[63](32/2/1) \"S-0000000000001000\"[1]      # \"MF0;sw:MCS8500/L01/U1\" lid 180 4xNDR\n"
		"\n"
		"caguid=0x101\n"
		"Ca  1 \"H-0000000000000101\"      # \"h1\"\n"
		"[1](B9D0F0/0/0/1)(101) \"S-0000000000001000\"[2][ext 7] # lid 14 lmc 0 \"MF0;sw:MCS8500/L01/U1\" lid 180 2xNDR\n";
	struct fab_snapshot *s = parse(text);
	char t[FAB_TIME_STRLEN];

	check_invariants(s);
	assert_int_equal(s->n_nodes, 3);
	assert_int_equal(s->n_links, 2);
	fab_time_format(s->started_at_ms, t);
	assert_string_equal(t, "2025-03-31T14:43:18.000Z");
	/* the id wins over switchguid=; the system GUID is kept */
	assert_int_equal(node(s, 0x1000)->sys_guid, 0x9999);
	assert_int_equal(node(s, 0x1000)->vendor_id, 0x2c9);
	assert_int_equal(fab_snapshot_find_node(s, 0x9999), FAB_NONE);
	assert_int_equal(port(s, 0x101, 1)->guid, 0x101);
	assert_int_equal(port(s, 0x1000, 2)->width_active, FAB_WIDTH_2X);
	assert_int_equal(port(s, 0x1000, 2)->speed_active, FAB_SPEED_NDR);
	assert_int_equal(guid_of(s, peer(s, port(s, 0x2000, 63))), 0x1000);
	fab_snapshot_free(s);
}

/* Descriptions: unquoted, with '#' and '"' inside, trailing spaces,
 * longer than a NodeDescription. */
static void test_descriptions(void **state)
{
	static const char text[] =
		"switchguid=0x1000(1000)\n"
		"Switch\t4 \"S-0000000000001000\"\t\t# MF0;sw:SX6036/U1 enhanced port 0 lid 4 lmc 0\n"
		"[1]\t\"H-0000000000000101\"[1](101) \t\t# host-1 HCA-1 lid 7 4xFDR\n"
		"[2]\t\"H-0000000000000201\"[1](201) \t\t# \"Voltaire 4036 # \"X\" 1\" lid 8 4xFDR\n"
		"[3]\t\"H-0000000000000301\"[1](301) \t\t# \"h3\" lid 9 4xFDR\n"
		"caguid=0x101\n"
		"Ca\t1 \"H-0000000000000101\"\t\t# host-1 HCA-1  \n"
		"[1](101) \t\"S-0000000000001000\"[1]\t\t# lid 7 lmc 0 MF0;sw:SX6036/U1 lid 4 4xFDR\n"
		"caguid=0x201\n"
		"Ca\t1 \"H-0000000000000201\"\t\t# \"Voltaire 4036 # \"X\" 1\"\n"
		"[1](201) \t\"S-0000000000001000\"[2]\t\t# lid 8 lmc 0 \"MF0;sw:SX6036/U1\" lid 4 4xFDR\n"
		"caguid=0x301\n"
		"Ca\t1 \"H-0000000000000301\"\t\t# \"a-very-long-node-description-that-goes-on-0123456789-0123456789-END  \"\n"
		"[1](301) \t\"S-0000000000001000\"[3]\t\t# lid 9 lmc 0 \"MF0;sw:SX6036/U1\" lid 4 4xFDR\n";
	struct fab_snapshot *s = parse(text);

	check_invariants(s);
	assert_int_equal(s->n_links, 3);
	assert_string_equal(node(s, 0x1000)->desc, "MF0;sw:SX6036/U1");
	assert_int_equal(node(s, 0x1000)->lid, 4);
	assert_string_equal(node(s, 0x101)->desc, "host-1 HCA-1");
	assert_int_equal(port(s, 0x101, 1)->lid, 7);
	assert_int_equal(port(s, 0x101, 1)->speed_active, FAB_SPEED_FDR);
	assert_int_equal(port(s, 0x1000, 1)->speed_active, FAB_SPEED_FDR);
	assert_string_equal(node(s, 0x201)->desc, "Voltaire 4036 # \"X\" 1");
	assert_int_equal(port(s, 0x1000, 2)->speed_active, FAB_SPEED_FDR);
	/* NodeDescription is 64 bytes: the rest is cut */
	assert_int_equal(node(s, 0x301)->desc_raw_len, FAB_DESC_RAW);
	assert_int_equal(strlen(node(s, 0x301)->desc), FAB_DESC_RAW);
	fab_snapshot_free(s);
}

/* A port cabled to itself, CA to CA back to back, a router. */
static void test_self_loop_back_to_back_router(void **state)
{
	static const char text[] =
		"switchguid=0x1000(1000)\n"
		"Switch\t4 \"S-0000000000001000\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n"
		"[3]\t\"S-0000000000001000\"[3]\t\t# \"sw\" lid 1 4xEDR\n"
		"[4]\t\"R-0000000000000301\"[1](302) \t\t# \"rt\" lid 9 4xEDR\n"
		"caguid=0x101\n"
		"Ca\t1 \"H-0000000000000101\"\t\t# \"a\"\n"
		"[1](102) \t\"H-0000000000000201\"[1] (202) \t\t# lid 2 lmc 0 \"b\" lid 3 4xQDR\n"
		"caguid=0x201\n"
		"Ca\t1 \"H-0000000000000201\"\t\t# \"b\"\n"
		"[1](202) \t\"H-0000000000000101\"[1] (102) \t\t# lid 3 lmc 0 \"a\" lid 2 4xQDR\n"
		"rtguid=0x301\n"
		"Rt\t1 \"R-0000000000000301\"\t\t# \"rt\"\n"
		"[1](302) \t\"S-0000000000001000\"[4]\t\t# lid 9 lmc 0 \"sw\" lid 1 4xEDR\n";
	struct fab_snapshot *s = parse(text);

	check_invariants(s);
	assert_int_equal(s->n_links, 3);
	const struct fab_port *p = port(s, 0x1000, 3);
	assert_int_equal(p->remote_idx, (uint32_t)(p - s->ports));
	assert_int_equal(guid_of(s, peer(s, port(s, 0x101, 1))), 0x201);
	assert_int_equal(port(s, 0x201, 1)->guid, 0x202);
	assert_int_equal(node(s, 0x301)->type, FAB_NODE_ROUTER);
	assert_int_equal(node(s, 0x301)->lid, 9);
	assert_int_equal(port(s, 0x301, 1)->guid, 0x302);
	assert_int_equal(count_type(s, FAB_NODE_ROUTER), 1);
	fab_snapshot_free(s);
}

/*
 * What the other tests do not reach: node headers without a "S-<guid>" id
 * (older ibnetdiscover: the GUID line says, the name in quotes is skipped),
 * an unquoted switch description ending in "base port 0", a date that is
 * not one (no time; the ISO timestamp after it is taken, a negative
 * offset), port lines before the first node, an 8X link, a blank LMC, the
 * discovery started from a node the file does not describe, and holes
 * whose far end the file describes as a CA or a router. Every value is
 * read off the text by hand.
 */
static void test_old_headers_and_odd_lines(void **state)
{
	static const char text[] =
		"[1] junk before any node: a pasted prompt\n"
		"# Topology file: generated on Mon Foo 12 10:00:00 2020\n"
		"# Initiated from node 0000000000009999 port 0000000000009999\n"
		"# Timestamp: 2021-06-01 10:00:00 -0530\n"
		"sysimgguid=0x5fff\n"
		"switchguid=0x5000(5001)\n"
		"Switch\t8 \"leaf-a\"\t\t# \"leaf one\" enhanced port 0 lid 4 lmc 1\n"
		"[1]\t\"H-0000000000006000\"[1](6001) \t\t# \"host six\" lid 5 8xNDR\n"
		"[2]\t\"S-0000000000008000\"[2]\t\t# leaf unquoted lid 7 1xSDR\n"
		"[3]\t\"S-0000000000006000\"[1]\t\t# \"host six\" lid 5 4xHDR\n"
		"[4]\t\"S-0000000000007000\"[1]\t\t# \"rtr\" lid 9 4xHDR\n"
		"caguid=0x6000\n"
		"Ca\t2 \"host-six\"\t\t# \"host six\"\n"
		"[1](6001) \t\"S-0000000000005000\"[1]\t\t# lid 5 lmc \"leaf one\" lid 4 8xNDR\n"
		"switchguid=0x8000(8000)\n"
		"Switch\t8 \"S-0000000000008000\"\t\t# leaf unquoted base port 0 lid 7 lmc 0\n"
		"[2]\t\"S-0000000000005000\"[2]\t\t# \"leaf one\" lid 4 1xSDR\n"
		"rtguid=0x7000\n"
		"Rt\t1 \"R-0000000000007000\"\t\t# \"rtr\"\n";
	struct fab_snapshot *s = parse(text);
	char t[FAB_TIME_STRLEN];

	check_invariants(s);
	assert_int_equal(s->n_nodes, 4);
	/* no "S-<guid>" id: the GUID line's node and port GUIDs */
	const struct fab_node *a = node(s, 0x5000);
	assert_int_equal(a->type, FAB_NODE_SWITCH);
	assert_string_equal(a->desc, "leaf one");
	assert_int_equal(a->sys_guid, 0x5fff);
	assert_int_equal(a->lid, 4);
	assert_int_equal(port(s, 0x5000, 0)->guid, 0x5001);
	assert_int_equal(port(s, 0x5000, 0)->lmc, 1);
	assert_int_equal(port(s, 0x5000, 3)->guid, 0x5001);
	assert_int_equal(node(s, 0x6000)->type, FAB_NODE_CA);
	assert_string_equal(node(s, 0x6000)->desc, "host six");
	/* unquoted, up to "base port 0" */
	assert_string_equal(node(s, 0x8000)->desc, "leaf unquoted");
	assert_int_equal(node(s, 0x8000)->lid, 7);
	/* "Mon Foo 12" is no date; the ISO time is, 5:30 behind UTC */
	fab_time_format(s->started_at_ms, t);
	assert_string_equal(t, "2021-06-01T15:30:00.000Z");
	/* 8X NDR both ends; a blank LMC is 0, the LID is kept */
	const struct fab_port *p = port(s, 0x5000, 1);
	assert_int_equal(p->width_active, FAB_WIDTH_8X);
	assert_int_equal(p->speed_active, FAB_SPEED_NDR);
	assert_int_equal(guid_of(s, peer(s, p)), 0x6000);
	assert_int_equal(peer(s, p)->lid, 5);
	assert_int_equal(peer(s, p)->lmc, 0);
	assert_int_equal(peer(s, p)->guid, 0x6001);
	assert_int_equal(node(s, 0x6000)->lid, 5);
	assert_int_equal(port(s, 0x5000, 2)->width_active, FAB_WIDTH_1X);
	assert_int_equal(port(s, 0x5000, 2)->speed_active, FAB_SPEED_SDR);
	assert_int_equal(guid_of(s, peer(s, port(s, 0x5000, 2))), 0x8000);
	/* the discovery's start is not in the file: no hops */
	for (size_t i = 0; i < s->n_nodes; i++)
		assert_int_equal(s->nodes[i].hops, -1);
	/* ports 3 and 4 name a CA and a router as switches: holes */
	assert_int_equal(s->status, FAB_SCAN_PARTIAL);
	assert_int_equal(s->n_links, 2);
	assert_int_equal(s->n_errors, 2);
	assert_string_equal(s->errors[0].message,
			    "t.topo:10: S-0000000000005000 port 3 is cabled to S-0000000000006000 port 1,"
			    " but the file describes that node as a CA");
	assert_string_equal(s->errors[1].message,
			    "t.topo:11: S-0000000000005000 port 4 is cabled to S-0000000000007000 port 1,"
			    " but the file describes that node as a router");
	assert_true(port(s, 0x5000, 4)->flags & FAB_F_NO_REMOTE);
	assert_int_equal(port(s, 0x5000, 4)->remote_guid, 0x7000);
	fab_snapshot_free(s);
}

/* Ends the file does not confirm: data (holes), not an error. */
static void test_unconfirmed_ends_are_holes(void **state)
{
	static const char text[] =
		"switchguid=0x1000(1000)\n"
		"Switch\t8 \"S-0000000000001000\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n"
		"[1]\t\"H-0000000000000101\"[1](101) \t\t# \"gone\" lid 2 4xEDR\n"
		"[2]\t\"S-0000000000002000\"[5]\t\t# \"sw2\" lid 3 4xEDR\n"
		"[3]\t\"S-0000000000002000\"[6]\t\t# \"sw2\" lid 3 4xEDR\n"
		"[4]\t\"H-0000000000002000\"[7](2000) \t\t# \"sw2\" lid 3 4xEDR\n"
		"[8]\t\"S-0000000000002000\"[8]\t\t# \"sw2\" lid 3 4xEDR\n"
		"switchguid=0x2000(2000)\n"
		"Switch\t8 \"S-0000000000002000\"\t\t# \"sw2\" base port 0 lid 3 lmc 0\n"
		"[5]\t\"S-0000000000001000\"[3]\t\t# \"sw\" lid 1 4xEDR\n"
		"[7]\t\"S-0000000000001000\"[4]\t\t# \"sw\" lid 1 4xEDR\n"
		"[8]\t\"S-0000000000001000\"[8]\t\t# \"sw\" lid 1 4xEDR\n";
	struct fab_snapshot *s = parse(text);

	check_invariants(s);
	assert_int_equal(s->status, FAB_SCAN_PARTIAL);
	assert_int_equal(s->n_links, 1); /* 8 <-> 8 */
	assert_int_equal(s->n_errors, 6);
	for (size_t i = 0; i < s->n_errors; i++) {
		assert_string_equal(s->errors[i].what, "hole");
		assert_int_equal(strncmp(s->errors[i].message, "t.topo:", 7), 0);
	}
	assert_string_equal(s->errors[0].message,
			    "t.topo:3: S-0000000000001000 port 1 is cabled to "
			    "H-0000000000000101 port 1, which the file does not describe");
	assert_non_null(strstr(s->errors[1].message, "which names another remote end"));
	assert_non_null(strstr(s->errors[2].message, "which does not list that port"));
	assert_non_null(strstr(s->errors[3].message, "describes that node as a switch"));
	assert_non_null(strstr(s->errors[4].message, "t.topo:10: S-0000000000002000 port 5"));
	assert_non_null(strstr(s->errors[5].message, "names this node as another type"));
	const struct fab_port *p = port(s, 0x1000, 1);
	assert_int_equal(p->remote_idx, FAB_NONE);
	assert_true(p->flags & FAB_F_NO_REMOTE);
	assert_int_equal(p->remote_guid, 0x101); /* as the file says */
	assert_int_equal(p->state, FAB_STATE_ACTIVE);
	assert_int_equal(s->errors[0].node_guid, 0x1000);
	assert_int_equal(s->errors[0].port_num, 1);
	assert_int_equal(port(s, 0x2000, 7)->remote_idx, FAB_NONE);
	assert_int_equal(port(s, 0x1000, 8)->flags, 0);
	fab_snapshot_free(s);
}

/* ------------------------------------------------------------------ */
/* Garbage                                                             */

#define SW "switchguid=0x1000(1000)\nSwitch\t4 \"S-0000000000001000\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n"

static void test_errors_name_file_and_line(void **state)
{
	fails("", "t.topo:1: no Switch, Ca or Rt node", NULL);
	fails("hello\nworld\n", "t.topo:2: no Switch, Ca or Rt node", NULL);
	fails("#\n# Topology file\n#\n", "t.topo:3: no Switch", NULL);
	fails("\n\nSwitch 36\n", "t.topo:3: node header has no \"S-<guid>\" id", NULL);
	fails("\n\nSwitch x\n", "t.topo:3: node header needs a port count", NULL);
	fails("Switch 0 \"S-0000000000001000\"\n", "t.topo:1: node header needs a port count", NULL);
	fails("Switch 255 \"S-0000000000001000\"\n", "t.topo:1:", "port count");
	fails("Switch 36 sw1 # \"x\"\n", "t.topo:1:", "no \"S-<guid>\" id");
	fails("Switch 36 \"H-0000000000001000\"\n", "t.topo:1:", "in a Switch header");
	fails("Ca 1 \"H-00000000000000001000\"\n", "t.topo:1:", "no \"H-<guid>\" id");
	fails("caguid=0x1000\nSwitch 36 \"S-0000000000001000\"\n", "t.topo:2:",
	      "announces another node type");
	fails("caguid=0xb8cef60300xxxxxx\n", "t.topo:1:", "after the 'caguid' value");
	fails("vendid=\n", "t.topo:1: 'vendid' needs a hex value", NULL);
	fails("vendid=0x1ffffffff\n", "t.topo:1: 'vendid' value out of range", NULL);
	fails("switchguid=0x1000(zz)\n", "t.topo:1:", "bad port GUID");
	fails(SW "[1]\t\"H-0000000000000101\n", "t.topo:3: port 1: the remote node \"\"H-0000000000000101\" is not", NULL);
	fails(SW "[1\t\"H-0000000000000101\"[1]\n", "t.topo:3: bad port number", NULL);
	fails(SW "[5]\t\"S-0000000000001000\"[1]\n", "t.topo:3: port 5 is not one", NULL);
	fails(SW "[0]\t\"S-0000000000001000\"[1]\n", "t.topo:3: port 0 is not one", NULL);
	fails(SW "[1]\t\"S-0000000000001000\"[0]\n", "t.topo:3:", "remote port 0 out of range");
	fails(SW "[1]\t\"S-0000000000001000\"[x]\n", "t.topo:3:", "bad remote port");
	fails(SW "[1](12\t\"S-0000000000001000\"[2]\n", "t.topo:3: '(' without ')'", NULL);
	fails(SW "[1][ex 2]\t\"S-0000000000001000\"[2]\n", "t.topo:3:", "unexpected '['");
	fails(SW "[1][ext x]\t\"S-0000000000001000\"[2]\n", "t.topo:3: bad '[ext N]'", NULL);
	fails(SW "[1]\t\"S-0000000000001000\"[2][ext 2\n", "t.topo:3: bad '[ext N]'", NULL);
	fails(SW "[1]\n", "t.topo:3: port 1: the remote node \"\" is not", NULL);
	fails("Ca 1 \"S-0000000000001000\"\n", "t.topo:1:", "node id \"S-...\" in a Ca header");
	fails("Rt 1 \"H-0000000000001000\"\n", "t.topo:1:", "node id \"H-...\" in a Rt header");
	fails("switchguid=0x1000\nSwitch 4 \"sw\n", "t.topo:2: node name has no closing", NULL);
	fails(SW "[1]\t\"S-0000000000001000\"[2] junk # \"sw\" lid 1 4xEDR\n", "t.topo:3:",
	      "unexpected text after the remote port");
	fails(SW "[1]\t\"S-0000000000001000\"[2]\t# \"sw lid 1 4xEDR\n", "t.topo:3:",
	      "no closing");
	fails(SW "[1]\t\"S-0000000000001000\"[2]\t# \"sw\" lid 65536 4xEDR\n", "t.topo:3:",
	      "remote LID \"65536\" out of range");
	fails(SW "[1]\t\"S-0000000000001000\"[2]\t# \"sw\" lid -4 4xEDR\n", "t.topo:3:",
	      "\"-4\" is neither a LID nor");
	fails("Switch\t4 \"S-0000000000001000\"\t\t# \"sw\" base port 0 lid 70000 lmc 0\n",
	      "t.topo:1: bad LID value", NULL);
	fails("Switch\t4 \"S-0000000000001000\"\t\t# \"sw\" base port 0 lid 1 lmc 9\n",
	      "t.topo:1: bad LMC value", NULL);
	fails("Switch\t4 \"S-0000000000001000\"\t\t# \"sw base port 0 lid 1 lmc 0\n",
	      "t.topo:1: node description has no closing", NULL);
	fails("Switch\t4 \"S-0000000000001000\" x\n", "t.topo:1: unexpected text after the node id", NULL);
	fails("Ca\t1 \"H-0000000000000101\"\n[1](101) \"S-0000000000001000\"[1] # lid 99999 lmc 0\n",
	      "t.topo:2: port 1: bad LID", NULL);
	fails("Ca\t1 \"H-0000000000000101\"\n[1](101) \"S-0000000000001000\"[1] # lid 1 lmc 8\n",
	      "t.topo:2: port 1: bad LMC", NULL);
	/* structure */
	fails(SW "\nfoo\n[1]\t\"S-0000000000001000\"[2]\n", "t.topo:5: port line outside a node block", NULL);
	fails(SW "vendid=0x2c9\n[1]\t\"S-0000000000001000\"[2]\n", "t.topo:4: port line outside", NULL);
	fails(SW "[2]\t\"S-0000000000001000\"[1]\n[1]\t\"S-0000000000001000\"[2]\n"
		 "[2]\t\"S-0000000000001000\"[1]\n",
	      "t.topo:5: port 2 of S-0000000000001000 is listed twice (also at line 3)", NULL);
	fails(SW "\n" SW, "t.topo:5: node GUID 0x0000000000001000 is described twice (also at line 2)", NULL);
	fails("Ca\t1 \"H-0000000000001000\"\n" SW, "t.topo:3: node GUID", "described twice");
}

static void test_line_and_encoding_limits(void **state)
{
	size_t n = FAB_TOPO_LINE_MAX + 1;
	char *big = malloc(n + sizeof(SW) + 2);
	struct fab_snapshot *s;

	assert_non_null(big);
	/* the longest line allowed is fine ... */
	memset(big, ' ', n - 1);
	big[n - 1] = '\n';
	memcpy(big + n, SW, sizeof(SW));
	s = parse_len(big, strlen(big));
	assert_int_equal(s->n_nodes, 1);
	fab_snapshot_free(s);
	/* ... one more byte is not */
	memset(big, 'a', n);
	big[n] = '\n';
	memcpy(big + n + 1, SW, sizeof(SW));
	parse_fails(big, strlen(big), -EINVAL, "t.topo:1: line longer than 8192 bytes", NULL);
	free(big);

	parse_fails("\xff\xfe#\0\n\0", 6, -EINVAL, "t.topo:1: UTF-16 text", NULL);
	/* NUL bytes are data like any other */
	static const char nul[] = SW "[1]\t\"S-0000000000001000\"[2]\t# \"s\0w\" lid 1 4xEDR\n"
				  "[2]\t\"S-0000000000001000\"[1]\t# \"sw\" lid 1 4x\0EDR\n";
	s = parse_len(nul, sizeof(nul) - 1);
	assert_int_equal(s->n_links, 1);
	assert_int_equal(port(s, 0x1000, 1)->speed_active, FAB_SPEED_EDR);
	assert_int_equal(port(s, 0x1000, 2)->speed_active, 0);
	fab_snapshot_free(s);
	/* a node description with a NUL stops there, control bytes escaped */
	static const char ctl[] = "Ca\t1 \"H-0000000000000101\"\t# \"a\x01" "b\0c\"\n";
	s = parse_len(ctl, sizeof(ctl) - 1);
	assert_string_equal(s->nodes[0].desc, "a\\x01b");
	fab_snapshot_free(s);
}

static void test_api_misuse_and_files(void **state)
{
	struct fab_snapshot *s = parse(basic);

	/* importing into a snapshot that already holds nodes */
	assert_int_equal(fab_topo_import(basic, strlen(basic), "again", s), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "not empty"));
	assert_int_equal(s->n_nodes, 4);
	fab_snapshot_free(s);

	s = fab_snapshot_new();
	assert_int_equal(fab_topo_import(NULL, 5, "x", s), -EINVAL);
	assert_int_equal(fab_topo_import(NULL, 0, NULL, s), -EINVAL);
	assert_string_equal(fab_errmsg(),
			    "<input>:1: no Switch, Ca or Rt node found: not ibnetdiscover output");
	assert_int_equal(fab_topo_import_file("/nonexistent/x.topo", s), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "'/nonexistent/x.topo'"));
	assert_int_equal(fab_topo_import_file("/dev/null", s), -EINVAL);
	assert_int_equal(strncmp(fab_errmsg(), "/dev/null:1: ", 13), 0);
	fab_snapshot_free(s);
}

/* The fuzz target's seeds run here too (house style 25): each imports, and
 * the result keeps the snapshot's invariants. */
static void test_fuzz_corpus(void **state)
{
	const char *fx = getenv("FIXTURES");
	char dir[4096], path[8192];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/../fuzz/corpus/topo", fx ? fx : "fixtures");
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		struct fab_snapshot *s;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		s = fab_snapshot_new();
		if (fab_topo_import_file(path, s))
			print_message("%s\n", fab_errmsg());
		assert_true(s->n_nodes > 0);
		check_invariants(s);
		fab_snapshot_free(s);
		n++;
	}
	closedir(d);
	assert_true(n >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_putty_tabs_stripped),
		cmocka_unit_test(test_bom_prompt_no_blank_lines),
		cmocka_unit_test(test_blank_lids_unknown_rates),
		cmocka_unit_test(test_labels_ext_ports_chassis),
		cmocka_unit_test(test_descriptions),
		cmocka_unit_test(test_self_loop_back_to_back_router),
		cmocka_unit_test(test_old_headers_and_odd_lines),
		cmocka_unit_test(test_unconfirmed_ends_are_holes),
		cmocka_unit_test(test_errors_name_file_and_line),
		cmocka_unit_test(test_line_and_encoding_limits),
		cmocka_unit_test(test_api_misuse_and_files),
		cmocka_unit_test(test_fuzz_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
