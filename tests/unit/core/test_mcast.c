// SPDX-License-Identifier: MIT
/*
 * The multicast model and its tree (core/mcast.c, core/mcast_tree.c):
 *  - real outputs of an EDR fabric (fixtures/real/multicast/): `ibroute -M`'s
 *    table, its rows written back as the MulticastForwardingTable block a
 *    switch answers (big-endian masks), decoded and looked up again, port for
 *    port; `saquery -g`'s groups as MCMemberRecords laid out by the IBA's byte
 *    offsets here (not by fabsweep's encoder), decoded: MGID, MLID, MTU 2048,
 *    rate 10 Gb/s (code 3: 0x83 is "exactly 10", not 40), P_Key, SL;
 *  - the tree on fat trees built as OpenSM builds them (tests/fabfix):
 *    healthy, a member's port missing, a broken up-link (no path, counted per
 *    sender), a second cable that loops, a stray port, an unneeded switch, a
 *    position that did not answer (not judged), two groups on one MLID.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabfix/fabfix.h"
#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"

static FILE *open_fixture(const char *name)
{
	const char *fx = getenv("FIXTURES");
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/real/multicast/%s", fx ? fx : "fixtures", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	return f;
}

/* ---- ibroute -M ------------------------------------------------------------- */

/* ibroute -M of the MSB7700: its rows, then the same as the blocks the switch
 * would answer (position 0: ports 0-15, 1: 16-31, 2: 32-47), decoded. */
static void test_real_ibroute(void **state)
{
	FILE *f = open_fixture("ukharon_ibroute_-M_MSB7700_RECONSTRUCTED.txt");
	char line[512];
	unsigned rows = 0, dumped = 0, col0 = 0;
	/* the text's ports per MLID (port p: the character at col0 + 2p) */
	uint64_t want[FAB_MFT_BLOCK] = { 0 };
	uint8_t wire[3][64] = { { 0 } };

	(void)state;
	while (fgets(line, sizeof(line), f)) {
		unsigned mlid;
		char *x = strstr(line, "Ports: ");
		if (x) {
			col0 = (unsigned)(x - line) + 7;
			continue;
		}
		if (strstr(line, "valid mlids dumped") && sscanf(line, "%u", &dumped) == 1)
			continue;
		if (sscanf(line, "0x%x ", &mlid) != 1)
			continue;
		assert_true(col0 > 0);
		rows++;
		for (size_t c = col0; c < strlen(line); c += 2)
			if (line[c] == 'x')
				want[mlid - FAB_MLID_FIRST] |= 1ull << ((c - col0) / 2);
	}
	fclose(f);
	assert_int_equal(rows, 4);
	assert_int_equal(dumped, 4);
	/* 0xc000 has the switch itself (port 0) and ports 3, 6-8, 13, 15, 33, 34
	 * (python3: the columns of 'x' under the Ports: header, step 2) */
	assert_true(want[0] == (1ull | 1ull << 3 | 1ull << 6 | 1ull << 7 | 1ull << 8 | 1ull << 13 |
				1ull << 15 | 1ull << 33 | 1ull << 34));
	assert_true(want[4] == want[0] && want[5] == want[0]);
	assert_true(want[11] == (1ull << 13 | 1ull << 15 | 1ull << 33 | 1ull << 34));
	/* the blocks a switch sends: entry i at bytes 2i (high) and 2i + 1 */
	for (unsigned p = 0; p < 3; p++)
		for (unsigned i = 0; i < FAB_MFT_BLOCK; i++) {
			unsigned m = (unsigned)(want[i] >> (16 * p)) & 0xffff;
			wire[p][2 * i] = (uint8_t)(m >> 8);
			wire[p][2 * i + 1] = (uint8_t)m;
		}
	/* decoded into a switch of 36 ports in a snapshot */
	struct fab_snapshot *s = fab_snapshot_new();
	uint32_t sw = fabfix_node(s, FAB_NODE_SWITCH, FAB_ROLE_LEAF, 0x248a070300f88040ull,
				  "MF0;lpdswitch1:MSB7700/U1", 36);
	assert_int_equal(fabfix_mcast_init(s, FAB_MFT_BLOCK), 0);
	struct fab_mft *t = &s->mcast->mfts[0];
	assert_int_equal(t->node_idx, sw);
	assert_int_equal(t->n_pos, 3);
	for (unsigned p = 0; p < 3; p++) {
		uint16_t masks[FAB_MFT_BLOCK];
		fab_mft_block_decode(wire[p], masks);
		for (unsigned i = 0; i < FAB_MFT_BLOCK; i++)
			((uint16_t *)t->mask)[i * t->n_pos + p] = masks[i];
		((uint8_t *)t->read)[p] = FAB_MFT_READ;
	}
	for (unsigned i = 0; i < FAB_MFT_BLOCK; i++)
		for (unsigned port = 0; port <= 36; port++)
			assert_int_equal(fab_mft_has_port(t, FAB_MLID_FIRST + i, port),
					 (int)(want[i] >> port & 1));
	uint16_t *mlids;
	size_t n;
	assert_int_equal(fab_mcast_mlids(s, &mlids, &n), 0);
	assert_int_equal(n, 4); /* "4 valid mlids dumped" */
	assert_int_equal(mlids[0], 0xc000);
	assert_int_equal(mlids[3], 0xc00b);
	free(mlids);
	fab_snapshot_free(s);
}

/* ---- saquery -g --------------------------------------------------------------- */

static unsigned hexval(const char *line)
{
	const char *p = strrchr(line, '.');
	return p ? (unsigned)strtoul(p + 1, NULL, 16) : 0;
}

/* saquery -g's groups as the SA sends them: an MCMemberRecord laid out by the
 * IBA's offsets (MGID 0, MLID 36, MTU 38, P_Key 40, Rate 42, SL the top
 * nibble of 44), decoded by fab_mc_record_decode, formatted and named. */
static void test_real_saquery(void **state)
{
	FILE *f = open_fixture("ukharon_saquery_-g_excerpt_RECONSTRUCTED.txt");
	char line[512], mgid_text[2][64] = { { 0 } };
	uint8_t rec[2][FAB_MC_RECORD_SIZE] = { { 0 } };
	int n = -1;

	(void)state;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strstr(line, "group dump")) {
			n++;
			continue;
		}
		if (n < 0 || n > 1)
			continue;
		uint8_t *r = rec[n];
		unsigned v = hexval(line);
		if (strstr(line, "MGID")) {
			snprintf(mgid_text[n], sizeof(mgid_text[n]), "%s", strrchr(line, '.') + 1);
			assert_int_equal(fab_mgid_parse(mgid_text[n], r), 0);
		} else if (strstr(line, "Mlid")) {
			r[36] = (uint8_t)(v >> 8), r[37] = (uint8_t)v;
		} else if (strstr(line, "Mtu")) {
			r[38] = (uint8_t)v;
		} else if (strstr(line, "pkey")) {
			r[40] = (uint8_t)(v >> 8), r[41] = (uint8_t)v;
		} else if (strstr(line, "Rate")) {
			r[42] = (uint8_t)v;
		} else if (strstr(line, "SL")) {
			r[44] = (uint8_t)(v << 4);
		}
	}
	fclose(f);
	assert_int_equal(n, 1);
	static const unsigned mlid[2] = { 0xc004, 0xc006 };
	for (int i = 0; i < 2; i++) {
		struct fab_mc_group g;
		struct fab_mc_member mb;
		char back[FAB_MGID_STRLEN];

		assert_int_equal(fab_mc_record_decode(rec[i], sizeof(rec[i]), &g, &mb), 0);
		assert_string_equal(fab_mgid_format(g.mgid, back), mgid_text[i]);
		assert_int_equal(g.mlid, mlid[i]);
		assert_int_equal(g.mtu, 0x84);
		assert_int_equal(fab_mc_selector(g.mtu), 2);       /* exactly */
		assert_int_equal(fab_mc_mtu_bytes(g.mtu), 2048);
		assert_int_equal(g.rate, 0x83);
		assert_true(fab_mc_rate_gbps(g.rate) == 10.0);    /* code 3: 10 Gb/s */
		assert_int_equal(g.pkey, 0xffff);
		assert_int_equal(g.sl, 0);
		assert_int_equal(mb.port_guid, 0); /* an untrusted query: members zeroed */
		assert_int_equal(mb.join_state, 0);
		/* encoded again, the same bytes */
		uint8_t again[FAB_MC_RECORD_SIZE];
		fab_mc_record_encode(&g, &mb, again);
		assert_memory_equal(again, rec[i], FAB_MC_RECORD_SIZE);
	}
	uint8_t m[16];
	uint16_t pk = 0;
	assert_int_equal(fab_mgid_parse("ff12:401b:ffff::1", m), 0);
	assert_true(fab_mgid_ipoib(m, &pk)); /* IPv4 all-hosts, mapped: an IPoIB group */
	assert_int_equal(pk, 0xffff);
	assert_false(fab_mgid_ipoib_broadcast(m, NULL));
	assert_int_equal(fab_mgid_parse("ff12:401b:8001::ffff:ffff", m), 0);
	assert_true(fab_mgid_ipoib_broadcast(m, &pk));
	assert_int_equal(pk, 0x8001);
	assert_int_equal(fab_mgid_parse("ff15:401b:ffff::ffff:ffff", m), 0); /* site-local scope */
	assert_true(fab_mgid_ipoib_broadcast(m, NULL));
	assert_int_equal(fab_mgid_parse("ff12:601b:ffff::ffff:ffff", m), 0); /* IPv6: no broadcast */
	assert_false(fab_mgid_ipoib_broadcast(m, NULL));
	assert_int_equal(fab_mgid_parse("0xc000", m), -EINVAL);
	/* the rate codes IBTA gives (ibv_rate) */
	assert_true(fab_mc_rate_gbps(2) == 2.5 && fab_mc_rate_gbps(7) == 40 &&
		    fab_mc_rate_gbps(12) == 56 && fab_mc_rate_gbps(16) == 100 &&
		    fab_mc_rate_gbps(21) == 400 && fab_mc_rate_gbps(0x80 | 24) == 1200);
	assert_true(fab_mc_rate_gbps(0) == 0 && fab_mc_rate_gbps(1) == 0 && fab_mc_rate_gbps(25) == 0);
	assert_int_equal(fab_mc_mtu_bytes(5), 4096);
	assert_int_equal(fab_mc_mtu_bytes(6), 0);
}

/* A member record's PortGID, JoinState and ProxyJoin (as OpenSM writes it:
 * the low bit of byte 49; the IBA's top bit read too). */
static void test_member_fields(void **state)
{
	uint8_t r[FAB_MC_RECORD_SIZE] = { 0xff, 0x12 };
	struct fab_mc_group g;
	struct fab_mc_member mb;

	(void)state;
	r[16] = 0xfe, r[17] = 0x80;
	r[24] = 0x00, r[25] = 0x02, r[26] = 0xc9, r[31] = 0x11;
	r[44] = 0x5f, r[45] = 0xff, r[46] = 0xf0, r[47] = 0x40; /* SL 5, flow 0xffff0, hop 64 */
	r[48] = 0x21; /* scope 2, full member */
	r[49] = 0x01;
	assert_int_equal(fab_mc_record_decode(r, sizeof(r), &g, &mb), 0);
	assert_true(mb.gid_prefix == 0xfe80000000000000ull);
	assert_true(mb.port_guid == 0x0002c90000000011ull);
	assert_int_equal(mb.join_state, FAB_MC_JOIN_FULL);
	assert_true(mb.proxy);
	assert_int_equal(g.sl, 5);
	assert_int_equal(g.flow_label, 0xffff0);
	assert_int_equal(g.hop_limit, 64);
	assert_int_equal(g.scope, 2);
	r[49] = 0x80;
	assert_int_equal(fab_mc_record_decode(r, sizeof(r), &g, &mb), 0);
	assert_true(mb.proxy);
	assert_int_equal(fab_mc_record_decode(r, FAB_MC_RECORD_SIZE - 1, &g, &mb), -EINVAL);
}

/* ---- the tree --------------------------------------------------------------------- */

static const uint8_t G1[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, [15] = 0xa1 };
static const uint8_t G2[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, [15] = 0xb2 };

/* 2 spines, 4 leaves x 2 hosts; nodes: spines 0-1, leaves 2-5, hosts 6-13. */
static struct fab_snapshot *fabric(void)
{
	struct fabfix_tree t = { .spines = 2, .leaves = 4, .hosts_per_leaf = 2, .spine_guid = 0x100,
				 .leaf_guid = 0x200, .host_guid = 0x1000, .host_step = 0x10,
				 .spine = { "spine", 2 }, .leaf = { "leaf", 2 }, .host = { "host", 2 },
				 .roles = true };
	struct fab_snapshot *s = fabfix_fat_tree(&t);

	assert_non_null(s);
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_int_equal(fabfix_mcast_init(s, FAB_MFT_BLOCK), 0);
	return s;
}

static uint32_t hport(const struct fab_snapshot *s, unsigned host)
{
	return (uint32_t)(fab_snapshot_port(s, 6 + host, 1) - s->ports);
}

/* hosts h[0..n) in a group of MLID mlid, tree rooted at spine 0 */
static void group(struct fab_snapshot *s, const uint8_t *mgid, uint16_t mlid, const unsigned *h, size_t n)
{
	uint32_t p[16];

	for (size_t i = 0; i < n; i++)
		p[i] = hport(s, h[i]);
	assert_int_equal(fabfix_mcast_group(s, mgid, mlid, 3, 4, 0, p, n), 0);
}

static void done(struct fab_snapshot *s)
{
	assert_int_equal(fab_mcast_sort(s->mcast), 0);
	assert_int_equal(fab_mcast_resolve(s), 0);
}

static const struct fab_mc_reach *reach_of(const struct fab_mc_tree *t, const struct fab_snapshot *s,
					   unsigned host)
{
	for (size_t i = 0; i < t->n_reach; i++)
		if (t->reach[i].port == hport(s, host))
			return &t->reach[i];
	fail_msg("host %u is no member", host);
	return NULL;
}

static void test_tree_healthy(void **state)
{
	struct fab_snapshot *s = fabric();
	static const unsigned h[] = { 0, 3, 5, 6 }; /* leaves 0, 1, 2, 3 */
	struct fab_mc_tree t;

	(void)state;
	group(s, G1, 0xc001, h, 4);
	done(s);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	assert_int_equal(t.n_groups, 1);
	assert_int_equal(t.n_hops, 5); /* spine00 and the four leaves */
	assert_int_equal(t.n_reach, 4);
	assert_int_equal(t.n_loop, 0);
	assert_int_equal(t.n_stray, 0);
	for (size_t i = 0; i < t.n_reach; i++) {
		assert_true(t.reach[i].receives);
		assert_int_equal(t.reach[i].unreached_from, 0);
		assert_false(t.reach[i].unknown);
	}
	for (size_t i = 0; i < t.n_hops; i++)
		assert_true(t.hops[i].fwd && t.hops[i].bwd);
	fab_mc_tree_free(&t);
	/* an MLID nothing has: an empty tree */
	assert_int_equal(fab_mc_tree_build(s, 0xc005, &t), 0);
	assert_int_equal(t.n_hops + t.n_groups + t.n_reach, 0);
	fab_mc_tree_free(&t);
	fab_snapshot_free(s);
}

static void test_tree_faults(void **state)
{
	struct fab_snapshot *s = fabric();
	static const unsigned h[] = { 0, 1, 3, 5, 6 }; /* leaf0 twice, leaves 1, 2, 3 */
	struct fab_mc_tree t;

	(void)state;
	group(s, G1, 0xc001, h, 5);
	done(s);
	/* host 3's port missing from leaf 1's entry: unreached from the 4 others */
	fabfix_mft_set(s, 3, 0xc001, 2, false);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	const struct fab_mc_reach *r = reach_of(&t, s, 3);
	assert_true(r->bit_missing);
	assert_int_equal(r->unreached_from, 4);
	assert_int_equal(reach_of(&t, s, 0)->unreached_from, 0);
	fab_mc_tree_free(&t);
	fabfix_mft_set(s, 3, 0xc001, 2, true);
	/* leaf 0's up-link (port 3, to spine 0) gone from its entry: its two
	 * members' packets stay there; the three others do not get them, and
	 * each is counted once per sender (2), never per pair visited */
	fabfix_mft_set(s, 2, 0xc001, 3, false);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	assert_int_equal(reach_of(&t, s, 0)->unreached_from, 0);
	assert_int_equal(reach_of(&t, s, 1)->unreached_from, 0);
	for (unsigned k = 3; k <= 6; k += k == 3 ? 2 : 1) {
		r = reach_of(&t, s, k);
		assert_false(r->bit_missing);
		assert_int_equal(r->unreached_from, 2);
		assert_true(r->example == s->mcast->groups[0].first ||
			    r->example == s->mcast->groups[0].first + 1);
	}
	fab_mc_tree_free(&t);
	fabfix_mft_set(s, 2, 0xc001, 3, true);
	/* a position of leaf 2 (host 5's) that did not answer: not judged there */
	const struct fab_mft *m2 = fab_mcast_mft(s->mcast, 4);
	((uint8_t *)m2->read)[0] = FAB_MFT_UNREAD;
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	r = reach_of(&t, s, 5);
	assert_true(r->unknown);
	assert_int_equal(r->unreached_from, 0);
	assert_int_equal(t.n_loop, 0);
	fab_mc_tree_free(&t);
	((uint8_t *)m2->read)[0] = FAB_MFT_READ;
	fab_snapshot_free(s);
}

static void test_tree_loop_stale(void **state)
{
	struct fab_snapshot *s = fabric();
	static const unsigned h[] = { 0, 2 };
	struct fab_mc_tree t;

	(void)state;
	group(s, G1, 0xc001, h, 2);
	done(s);
	/* leaf 0 also sends to spine 1 (port 4), which sends to leaves 0 and 1
	 * (its ports 1, 2): leaf0 -> spine1 -> leaf1 -> spine0 -> leaf0 -> ... */
	fabfix_mft_set(s, 2, 0xc001, 4, true);
	fabfix_mft_set(s, 1, 0xc001, 1, true);
	fabfix_mft_set(s, 1, 0xc001, 2, true);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	assert_int_equal(t.n_loop, 4);
	for (size_t i = 0; i < t.n_loop; i++) /* each a switch port toward a switch */
		assert_int_equal(s->nodes[s->ports[t.loop[i]].node_idx].type, FAB_NODE_SWITCH);
	fab_mc_tree_free(&t);
	/* leaf 0 no longer sends to spine 1: no loop; spine 1 is reached by
	 * nobody, its entry is not needed */
	fabfix_mft_set(s, 2, 0xc001, 4, false);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	assert_int_equal(t.n_loop, 0);
	bool seen = false;
	for (size_t i = 0; i < t.n_hops; i++)
		if (t.hops[i].node == 1) {
			assert_false(t.hops[i].fwd);
			assert_true(t.hops[i].bwd);
			seen = true;
		} else {
			assert_true(t.hops[i].fwd && t.hops[i].bwd);
		}
	assert_true(seen);
	fab_mc_tree_free(&t);
	/* leaf 0 sends to host 1, no member: a stray port */
	fabfix_mft_set(s, 1, 0xc001, 1, false);
	fabfix_mft_set(s, 1, 0xc001, 2, false);
	fabfix_mft_set(s, 2, 0xc001, 2, true);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	assert_int_equal(t.n_stray, 1);
	assert_int_equal(t.stray[0], (uint32_t)(fab_snapshot_port(s, 2, 2) - s->ports));
	fab_mc_tree_free(&t);
	fab_snapshot_free(s);
}

/* A leaf whose table was lost (the scan could not read it): an entry
 * toward it may lead to its members, and its members' packets may come
 * out of it into every hop whose entry leads back; no hop is called
 * unneeded for want of its table, no member unreached through it. */
static void test_tree_lost_table(void **state)
{
	struct fab_snapshot *s = fabric();
	static const unsigned h[] = { 0, 3 }; /* leaf 0 (node 2), leaf 1 (node 3) */
	struct fab_mc_tree t;

	(void)state;
	group(s, G1, 0xc001, h, 2);
	done(s);
	struct fab_mft *lost = (struct fab_mft *)fab_mcast_mft(s->mcast, 3);
	uint32_t n_blocks = lost->n_blocks;
	lost->status = FAB_LFT_FAILED;
	lost->n_blocks = 0;
	/* host 0 only sends: the receiver is behind the lost table */
	for (uint32_t j = 0; j < s->mcast->n_members; j++)
		if (s->mcast->members[j].port_idx == hport(s, 0))
			s->mcast->members[j].join_state = FAB_MC_JOIN_SENDONLY;
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	assert_int_equal(t.n_hops, 2); /* spine 0 and leaf 0 */
	for (size_t i = 0; i < t.n_hops; i++)
		assert_true(t.hops[i].fwd && t.hops[i].bwd);
	assert_true(reach_of(&t, s, 3)->unknown);
	fab_mc_tree_free(&t);
	/* both receive, and leaf 0 does not send up: spine 0 gets only what
	 * comes out of the lost leaf, and may */
	for (uint32_t j = 0; j < s->mcast->n_members; j++)
		s->mcast->members[j].join_state = FAB_MC_JOIN_FULL;
	fabfix_mft_set(s, 2, 0xc001, 3, false);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	for (size_t i = 0; i < t.n_hops; i++)
		if (t.hops[i].node == 0)
			assert_true(t.hops[i].fwd && t.hops[i].bwd);
	assert_true(reach_of(&t, s, 0)->unknown); /* from host 3, behind the lost table */
	fab_mc_tree_free(&t);
	lost->n_blocks = n_blocks;
	fab_snapshot_free(s);
}

/* Two groups on one MLID (OpenSM's IPv6 solicited-node groups can share
 * one): one tree, each group's members judged against its own senders. */
static void test_tree_shared_mlid(void **state)
{
	struct fab_snapshot *s = fabric();
	static const unsigned a[] = { 0, 2 }, b[] = { 4, 6 };
	struct fab_mc_tree t;

	(void)state;
	group(s, G1, 0xc001, a, 2);
	group(s, G2, 0xc001, b, 2);
	done(s);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	assert_int_equal(t.n_groups, 2);
	assert_int_equal(t.n_reach, 4);
	for (size_t i = 0; i < t.n_reach; i++)
		assert_int_equal(t.reach[i].unreached_from, 0);
	fab_mc_tree_free(&t);
	/* host 4 cut off: unreached by its one fellow member (host 6), not by 3 */
	fabfix_mft_set(s, 4, 0xc001, 1, false);
	assert_int_equal(fab_mc_tree_build(s, 0xc001, &t), 0);
	assert_int_equal(reach_of(&t, s, 4)->unreached_from, 1);
	assert_int_equal(s->mcast->members[reach_of(&t, s, 4)->example].port_idx, hport(s, 6));
	fab_mc_tree_free(&t);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_ibroute),
		cmocka_unit_test(test_real_saquery),
		cmocka_unit_test(test_member_fields),
		cmocka_unit_test(test_tree_healthy),
		cmocka_unit_test(test_tree_faults),
		cmocka_unit_test(test_tree_loop_stale),
		cmocka_unit_test(test_tree_lost_table),
		cmocka_unit_test(test_tree_shared_mlid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
