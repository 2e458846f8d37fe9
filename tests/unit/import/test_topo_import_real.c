// SPDX-License-Identifier: MIT
/*
 * The ibnetdiscover importer on real fabrics' files (fixtures/real/, see its
 * README for where each comes from). test_topo_import.c has the small inputs
 * written by hand that reproduce one quirk each.
 *
 * Expected numbers for the real files were derived without the importer,
 * with this awk program (CRs stripped; nodes counted by header keyword;
 * links = distinct unordered {(node, port), (remote, port)} pairs; rates =
 * last field of the port lines, i.e. two per link):
 *
 *   { sub(/\r+$/, ""); sub(/^\r+/, "") }
 *   /^Switch/ { sw++; match($0, /"[SH]-[0-9a-f]+"/); cur = substr($0, RSTART+1, RLENGTH-2); next }
 *   /^Ca/     { ca++; match($0, /"[SH]-[0-9a-f]+"/); cur = substr($0, RSTART+1, RLENGTH-2); next }
 *   /^\[[0-9]+\]/ { match($0, /^\[[0-9]+\]/); lp = substr($0, 2, RLENGTH-2)
 *     match($0, /"[SH]-[0-9a-f]+"\[[0-9]+\]/); r = substr($0, RSTART+1, RLENGTH-1); sub(/"/, "", r)
 *     a = cur "/" lp; b = r; sub(/\[/, "/", b); sub(/\]/, "", b)
 *     k = (a < b) ? a " " b : b " " a; if (!(k in seen)) { seen[k] = 1; links++ }
 *     n = split($0, f, /[ \t]+/); rate[f[n]]++ }
 *   END { print sw, ca, links; for (r in rate) print r, rate[r] }
 */

#include "topo_helpers.h"

/* man ibnetdiscover's example: a 1X link between the two Voltaire
 * switches. awk: 2 switches, 4 CAs, 7 links; rates 4xSDR=12 1xSDR=2. */
static void test_jabl_1_one_x_links(void **state)
{
	struct fab_snapshot *s = load("jabl_1.topo");
	char t[FAB_TIME_STRLEN];

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 2);
	assert_int_equal(count_type(s, FAB_NODE_CA), 4);
	assert_int_equal(s->n_links, 7);
	assert_int_equal(s->n_errors, 0);
	assert_int_equal(s->status, FAB_SCAN_COMPLETE);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_SDR), 5);
	/* The file's two 1xSDR lines are the ends of two links whose other
	 * ends say 4xSDR: each port keeps what its own line says. */
	const struct fab_port *p = port(s, 0x0008f10400410015, 1);
	assert_int_equal(p->width_active, FAB_WIDTH_1X);
	assert_int_equal(p->speed_active, FAB_SPEED_SDR);
	assert_int_equal(guid_of(s, peer(s, p)), 0x005442ba00003080);
	assert_int_equal(peer(s, p)->port_num, 10);
	assert_int_equal(peer(s, p)->width_active, FAB_WIDTH_4X);
	p = port(s, 0x0008f10403960558, 1);
	assert_int_equal(p->width_active, FAB_WIDTH_1X);
	assert_int_equal(p->guid, 0x8f10403960559);
	assert_int_equal(p->lid, 10);
	assert_int_equal(p->lmc, 1);
	assert_int_equal(peer(s, p)->port_num, 12);
	/* dual-port HCA, both ports cabled; its LID is its first port's */
	assert_int_equal(node(s, 0x0008f10403960558)->port_count, 2);
	assert_int_equal(node(s, 0x0008f10403960558)->lid, 10);
	assert_int_equal(port(s, 0x0008f10403960558, 2)->guid, 0x8f1040396055a);
	/* switch header: description, port 0, LID, sysimgguid */
	const struct fab_node *n = node(s, 0x005442ba00003080);
	assert_string_equal(n->desc, "ISR9024 Voltaire");
	assert_int_equal(n->num_ports, 24);
	assert_int_equal(n->lid, 6);
	assert_int_equal(n->sys_guid, 0x5442ba00003000);
	assert_int_equal(n->vendor_id, 0x8f1);
	assert_int_equal(n->device_id, 0x5a06);
	assert_int_equal(port(s, 0x005442ba00003080, 0)->lid, 6);
	assert_int_equal(port(s, 0x005442ba00003080, 0)->guid, 0x5442ba00003080);
	/* hops from "Initiated from node 0008f10403960558" */
	assert_int_equal(node(s, 0x0008f10403960558)->hops, 0);
	assert_int_equal(n->hops, 1);
	assert_int_equal(node(s, 0x0008f10403960984)->hops, 3);
	fab_time_format(s->started_at_ms, t);
	assert_string_equal(t, "2007-06-05T14:15:10.000Z");
	assert_int_equal(strncmp(s->source, "file:", 5), 0);
	fab_snapshot_free(s);
}

/* An error line before the header; switch ports cabled to each other.
 * awk: 2 switches, 6 CAs, 10 links; 4xQDR=4 4xSDR=2 4xFDR=6 4xEDR=8. */
static void test_jabl_3_stderr_line_and_loopbacks(void **state)
{
	struct fab_snapshot *s = load("jabl_3.topo");

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 2);
	assert_int_equal(count_type(s, FAB_NODE_CA), 6);
	assert_int_equal(s->n_links, 10);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_EDR), 4);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_FDR), 3);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_QDR), 2);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_SDR), 1);
	const struct fab_port *p = port(s, 0xe41d2d030003e470, 19);
	assert_int_equal(guid_of(s, peer(s, p)), 0xe41d2d030003e470);
	assert_int_equal(peer(s, p)->port_num, 21);
	assert_string_equal(node(s, 0xf4521403005764b0)->desc,
			    "MF0;switch-de779e:SX6012/U1");
	fab_snapshot_free(s);
}

/* A whitespace-only line between blocks. awk: 1 switch, 1 CA, 1 link. */
static void test_jabl_4_whitespace_line(void **state)
{
	struct fab_snapshot *s = load("jabl_4.topo");

	check_invariants(s);
	assert_int_equal(s->n_nodes, 2);
	assert_int_equal(s->n_links, 1);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_QDR), 1);
	assert_int_equal(port(s, 0x0003ba000100e388, 2)->lid, 14);
	fab_snapshot_free(s);
}

/* CRLF; two HCAs at 4xSDR on HDR switches; switch self-loops.
 * awk: 60 switches, 2 CAs, 807 links; 4xSDR=4 4xHDR=1610. */
static void test_topo3_sdr_hcas_crlf(void **state)
{
	struct fab_snapshot *s = load("hyungkwang_Topo.3.txt");

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 60);
	assert_int_equal(count_type(s, FAB_NODE_CA), 2);
	assert_int_equal(s->n_links, 807);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_HDR), 805);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_SDR), 2);
	const struct fab_port *p = port(s, 0x98039b030067261c, 1);
	assert_string_equal(node(s, 0x98039b030067261c)->desc, "fit101 HCA-1");
	assert_int_equal(p->width_active, FAB_WIDTH_4X);
	assert_int_equal(p->speed_active, FAB_SPEED_SDR);
	assert_int_equal(guid_of(s, peer(s, p)), 0x98039b0300866890);
	assert_int_equal(peer(s, p)->speed_active, FAB_SPEED_SDR);
	p = port(s, 0x98039b0300672824, 1);
	assert_string_equal(node(s, 0x98039b0300672824)->desc, "fit26 HCA-3");
	assert_int_equal(p->speed_active, FAB_SPEED_SDR);
	assert_int_equal(guid_of(s, peer(s, p)), 0x98039b03008668b0);
	/* no CR left in any description */
	assert_int_equal(count_descs_ending(s, '\r'), 0);
	for (size_t i = 0; i < s->n_nodes; i++)
		assert_null(strchr(s->nodes[i].desc, '\\'));
	/* a switch cabled to itself, port 19 <-> 20 */
	p = port(s, 0x98039b030096aa24, 19);
	assert_int_equal(guid_of(s, peer(s, p)), 0x98039b030096aa24);
	assert_int_equal(peer(s, p)->port_num, 20);
	fab_snapshot_free(s);
}

/* No blank lines between blocks; one 4xDDR ISL among 4xEDR.
 * awk: 6 switches, 96 CAs, 144 links; 4xDDR=2 4xEDR=286. */
static void test_switchib_ddr_isl(void **state)
{
	struct fab_snapshot *s = load("switchib_edr_6switch_ddr_isl.txt");

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 6);
	assert_int_equal(count_type(s, FAB_NODE_CA), 96);
	assert_int_equal(s->n_links, 144);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_EDR), 143);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_DDR), 1);
	const struct fab_port *p = port(s, 0xec0d9a0300ec8480, 11);
	assert_int_equal(p->width_active, FAB_WIDTH_4X);
	assert_int_equal(p->speed_active, FAB_SPEED_DDR);
	assert_int_equal(guid_of(s, peer(s, p)), 0xec0d9a0300ec8200);
	assert_int_equal(peer(s, p)->port_num, 11);
	assert_int_equal(peer(s, p)->speed_active, FAB_SPEED_DDR);
	assert_int_equal(fab_rate_gbps(p->width_active, p->speed_active), 20);
	assert_string_equal(node(s, 0x506b4b030043f9e2)->desc, "controller mlx5_0");
	/* roles as a scan assigns them; awk: 4 switches have "H-" port lines */
	size_t leaves = 0, spines = 0;
	for (size_t i = 0; i < s->n_nodes; i++) {
		leaves += s->nodes[i].role == FAB_ROLE_LEAF;
		spines += s->nodes[i].role == FAB_ROLE_SPINE;
	}
	assert_int_equal(leaves, 4);
	assert_int_equal(spines, 2);
	fab_snapshot_free(s);
}

/* The scale test: NVIDIA Selene compute fabric (2.8 MB). SOURCES.md and
 * awk: 666 switches, 4,341 CAs, 12,852 links, all 4xHDR (25,704 lines).
 * grep '^Ca' | grep -c ' "$': 6 descriptions end with a space. */
static void test_selene_compute_scale(void **state)
{
	struct fab_snapshot *s = load("selene.compute.txt");

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 666);
	assert_int_equal(count_type(s, FAB_NODE_CA), 4341);
	assert_int_equal(s->n_links, 12852);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_HDR), 12852);
	assert_int_equal(s->n_errors, 0);
	assert_int_equal(s->status, FAB_SCAN_COMPLETE);
	/* switch ports 0 + listed ports + CA ports = ports */
	assert_int_equal(s->n_ports, 666 + 2 * 12852);
	assert_string_equal(node(s, 0x1c34da0300608908)->desc,
			    "selene-cache-02 mlx5_1 ");
	assert_int_equal(node(s, 0x1c34da0300608908)->desc_raw_len, 23);
	assert_int_equal(count_descs_ending(s, ' '), 6);
	assert_string_equal(node(s, 0x1c34da0300728866)->desc,
			    "MF0;MLG01-02:MQM8700/U1");
	assert_int_equal(node(s, 0x1c34da0300728866)->lid, 1600);
	assert_int_equal(node(s, 0x1c34da0300728866)->num_ports, 41);
	assert_int_equal(port(s, 0x1c34da0300608908, 1)->lid, 256);
	fab_snapshot_free(s);
}

/* 2 switches, FDR10 and self-loops. awk: 2 switches, 13 CAs, 16 links;
 * 4xFDR10=2 4xFDR=24 4xHDR=2 4xEDR=4. */
static void test_ufm_small_self_loops_fdr10(void **state)
{
	struct fab_snapshot *s = load("ufm_small_topo_file");

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 2);
	assert_int_equal(count_type(s, FAB_NODE_CA), 13);
	assert_int_equal(s->n_links, 16);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_FDR10), 1);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_FDR), 12);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_EDR), 2);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_HDR), 1);
	const struct fab_port *p = port(s, 0x0002c903007b78b0, 25);
	assert_int_equal(p->speed_active, FAB_SPEED_FDR10);
	assert_int_equal(guid_of(s, peer(s, p)), 0x0002c903007b78b0);
	assert_int_equal(peer(s, p)->port_num, 26);
	fab_snapshot_free(s);
}

/* 2014 cluster: FDR10 ISLs, QDR HCAs, dual-port HCAs cabled on port 2.
 * awk: 8 switches, 144 CAs, 192 links; 4xFDR10=94 4xQDR=290. */
static void test_loginoff_fdr10_dual_port(void **state)
{
	struct fab_snapshot *s = load("loginoff_sx6036.ibnetdiscover");
	size_t isl_fdr10 = 0;

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 8);
	assert_int_equal(count_type(s, FAB_NODE_CA), 144);
	assert_int_equal(s->n_links, 192);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_FDR10), 47);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_QDR), 145);
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_port *a = &s->ports[s->links[i].a];
		const struct fab_port *b = &s->ports[s->links[i].b];
		isl_fdr10 += a->speed_active == FAB_SPEED_FDR10 &&
			     s->nodes[a->node_idx].type == FAB_NODE_SWITCH &&
			     s->nodes[b->node_idx].type == FAB_NODE_SWITCH;
	}
	assert_int_equal(isl_fdr10, 47);
	const struct fab_node *n = node(s, 0x24be05ffff98bb40);
	assert_string_equal(n->desc, "booster2 mlx4_0");
	assert_int_equal(n->num_ports, 2);
	assert_int_equal(n->port_count, 1); /* port 1 is not cabled */
	assert_null(fab_snapshot_port(s, (uint32_t)(n - s->nodes), 1));
	const struct fab_port *p = port(s, 0x24be05ffff98bb40, 2);
	assert_int_equal(p->guid, 0x24be05ffff98bb42);
	assert_int_equal(p->lid, 147);
	assert_int_equal(n->lid, 147);
	assert_int_equal(guid_of(s, peer(s, p)), 0xf4521403001167a0);
	assert_int_equal(peer(s, p)->port_num, 1);
	fab_snapshot_free(s);
}

/* Voltaire descriptions with '#' inside; DDR HCAs on QDR switches.
 * awk: 11 switches, 89 CAs, 159 links; 4xQDR=272 4xDDR=46. */
static void test_psmn_x5_voltaire(void **state)
{
	struct fab_snapshot *s = load("psmn_X5.topofile");
	size_t ddr_host = 0;

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 11);
	assert_int_equal(count_type(s, FAB_NODE_CA), 89);
	assert_int_equal(s->n_links, 159);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_QDR), 136);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_DDR), 23);
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_port *b = &s->ports[s->links[i].b];
		const struct fab_port *a = &s->ports[s->links[i].a];
		ddr_host += a->speed_active == FAB_SPEED_DDR &&
			    (s->nodes[a->node_idx].type == FAB_NODE_CA ||
			     s->nodes[b->node_idx].type == FAB_NODE_CA);
	}
	assert_int_equal(ddr_host, 23);
	assert_string_equal(node(s, 0x0008f10500108c5c)->desc,
			    "Voltaire 4036 # 4036-8C5C");
	assert_string_equal(node(s, 0x0008f10500200b50)->desc,
			    "Voltaire 4036 - 36 QDR ports switch");
	assert_int_equal(node(s, 0x0008f10500200b50)->sys_guid, 0x8f10500200b51);
	fab_snapshot_free(s);
}

/* ibdiagnet2.ibnetdiscover: "[1](1/1/1)" labels, "[1](label)(guid)" CA
 * ports, ibdiagnet's timestamp. awk: 9 switches, 263 CAs, 271 links;
 * 4xNDR=542. */
static void test_ibdiagnet_variant_ndr(void **state)
{
	struct fab_snapshot *s = load("sequoia_ndr.ibdiagnet2.ibnetdiscover");
	char t[FAB_TIME_STRLEN];

	check_invariants(s);
	assert_int_equal(count_type(s, FAB_NODE_SWITCH), 9);
	assert_int_equal(count_type(s, FAB_NODE_CA), 263);
	assert_int_equal(s->n_links, 271);
	assert_int_equal(count_links(s, FAB_WIDTH_4X, FAB_SPEED_NDR), 271);
	assert_int_equal(node(s, 0xb0cf0e0300d33fc0)->num_ports, 65);
	assert_int_equal(node(s, 0xb0cf0e0300d33fc0)->lid, 180);
	assert_int_equal(port(s, 0x5c25730300d0dc72, 1)->guid, 0x5c25730300d0dc72);
	assert_int_equal(port(s, 0x5c25730300d0dc72, 1)->lid, 130);
	assert_string_equal(node(s, 0x5c25730300d0dc72)->desc,
			    "is-north-7-compute-1 mlx5_0");
	/* "[1](1)(b0cf0e0300e5b948)": the label is not the GUID */
	assert_int_equal(port(s, 0xb0cf0e0300e5b948, 1)->guid, 0xb0cf0e0300e5b948);
	/* "# Running timestamp : 2025-03-31 23:43:18 UTC +0000" */
	fab_time_format(s->started_at_ms, t);
	assert_string_equal(t, "2025-03-31T23:43:18.000Z");
	/* no "Initiated from" line: hops unknown */
	assert_int_equal(s->nodes[0].hops, -1);
	fab_snapshot_free(s);
}

/* The imported snapshot goes through the store like a scan. */
static void test_store_roundtrip(void **state)
{
	struct fab_snapshot *s = load("switchib_edr_6switch_ddr_isl.txt");
	const char *tmp = getenv("TMPDIR");
	struct fab_store *st;
	char db[512], path[600];
	sqlite3 *h;
	sqlite3_stmt *q;

	snprintf(db, sizeof(db), "%s/test_topo_%d.db", tmp ? tmp : "/tmp",
		 (int)getpid());
	unlink(db);
	assert_int_equal(fab_store_open(db, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	fab_store_close(st);
	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h,
		"SELECT (SELECT count(*) FROM nodes),"
		" (SELECT count(*) FROM links),"
		" (SELECT count(*) FROM links WHERE width='4X' AND speed='DDR'"
		"   AND a_guid='0xec0d9a0300ec8200' AND a_port=11"
		"   AND b_guid='0xec0d9a0300ec8480' AND b_port=11 AND rate_gbps=20),"
		" (SELECT count(*) FROM mgmt_ports),"
		" (SELECT count(*) FROM ports WHERE state='active' AND phys_state='linkup'),"
		" (SELECT source LIKE 'file:%' FROM scans)", -1, &q, NULL),
		SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(q, 0), 102);
	assert_int_equal(sqlite3_column_int(q, 1), 144);
	assert_int_equal(sqlite3_column_int(q, 2), 1);
	assert_int_equal(sqlite3_column_int(q, 3), 6);
	assert_int_equal(sqlite3_column_int(q, 4), 2 * 144);
	assert_int_equal(sqlite3_column_int(q, 5), 1);
	sqlite3_finalize(q);
	sqlite3_close(h);
	unlink(db);
	snprintf(path, sizeof(path), "%s-wal", db);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", db);
	unlink(path);
	fab_snapshot_free(s);
}

/* ------------------------------------------------------------------ */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jabl_1_one_x_links),
		cmocka_unit_test(test_jabl_3_stderr_line_and_loopbacks),
		cmocka_unit_test(test_jabl_4_whitespace_line),
		cmocka_unit_test(test_topo3_sdr_hcas_crlf),
		cmocka_unit_test(test_switchib_ddr_isl),
		cmocka_unit_test(test_selene_compute_scale),
		cmocka_unit_test(test_ufm_small_self_loops_fdr10),
		cmocka_unit_test(test_loginoff_fdr10_dual_port),
		cmocka_unit_test(test_psmn_x5_voltaire),
		cmocka_unit_test(test_ibdiagnet_variant_ndr),
		cmocka_unit_test(test_store_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
