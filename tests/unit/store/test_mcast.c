// SPDX-License-Identifier: MIT
/*
 * Multicast in the store (store/mcast_io.c): groups, members and every
 * switch's table written content-addressed and read back equal (masks, read
 * flags, SwitchInfo, members resolved to the ports); an unchanged second
 * scan adds one scan_mcast row and nothing else; the public views
 * (mcast_groups, mcast_members, mcast_forwarding, mcast_switch_tables) say
 * what the snapshot holds; pruning the scans removes every row; a scan
 * without multicast loads without it; a damaged table blob is an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/mcast.h"
#include "fabsweep/routing.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabfix/fabfix.h"
#include "fabfix/fabfix_db.h"

static char dbpath[256];

static int setup(void **state)
{
	(void)state;
	fabfix_path(dbpath, sizeof(dbpath), "test_store_mcast", ".db");
	fabfix_unlink_db(dbpath);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fabfix_unlink_db(dbpath);
	return 0;
}

static int64_t count(const char *sql)
{
	return fabfix_db_count(dbpath, sql);
}

static const uint8_t BC[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, [12] = 0xff, 0xff, 0xff, 0xff };
static const uint8_t G1[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, [15] = 0xa1 };

/* 2 spines, 3 leaves x 2 hosts (hosts: nodes 5..10), the broadcast group
 * with every host, G1 with hosts 0, 3, 5 (host 5 send-only, proxy), a
 * position of leaf 2 that did not answer. */
static struct fab_snapshot *fabric(void)
{
	struct fabfix_tree t = { .spines = 2, .leaves = 3, .hosts_per_leaf = 2, .spine_guid = 0x100,
				 .leaf_guid = 0x200, .host_guid = 0x1000, .host_step = 0x10,
				 .spine = { "spine", 2 }, .leaf = { "leaf", 2 }, .host = { "host", 2 },
				 .roles = true };
	struct fab_snapshot *s = fabfix_fat_tree(&t);
	uint32_t all[6], some[3];

	assert_non_null(s);
	s->started_at_ms = 1772359200000LL;
	s->status = FAB_SCAN_COMPLETE;
	assert_int_equal(fab_snapshot_index(s), 0);
	for (unsigned i = 0; i < 6; i++)
		all[i] = (uint32_t)(fab_snapshot_port(s, 5 + i, 1) - s->ports);
	some[0] = all[0], some[1] = all[3], some[2] = all[5];
	assert_int_equal(fabfix_mcast_init(s, 2 * FAB_MFT_BLOCK), 0); /* two blocks */
	assert_int_equal(fabfix_mcast_group(s, BC, 0xc000, 3, 4, 0, all, 6), 0);
	assert_int_equal(fabfix_mcast_group(s, G1, 0xc021, 16, 5, 0, some, 3), 0);
	s->mcast->members[s->mcast->n_members - 1].join_state = FAB_MC_JOIN_SENDONLY;
	s->mcast->members[s->mcast->n_members - 1].proxy = true;
	struct fab_mft *l2 = (struct fab_mft *)fab_mcast_mft(s->mcast, 4);
	((uint8_t *)l2->read)[1 * l2->n_pos + 0] = FAB_MFT_UNREAD;
	l2->status = FAB_LFT_PARTIAL;
	l2->top = 0xc03f;
	l2->top_valid = true;
	assert_int_equal(fab_mcast_sort(s->mcast), 0);
	assert_int_equal(fab_mcast_resolve(s), 0);
	return s;
}

static struct fab_snapshot *load(int64_t id)
{
	struct fab_store *st;
	struct fab_snapshot *s;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, id, &s), 0);
	fab_store_close(st);
	return s;
}

static void same(const struct fab_snapshot *sa, const struct fab_snapshot *sb)
{
	const struct fab_mcast *x = sa->mcast, *y = sb->mcast;

	assert_non_null(y);
	assert_int_equal(x->members_read, y->members_read);
	assert_int_equal(x->n_groups, y->n_groups);
	assert_int_equal(x->n_members, y->n_members);
	for (size_t i = 0; i < x->n_groups; i++) {
		const struct fab_mc_group *g = &x->groups[i], *h = &y->groups[i];
		assert_memory_equal(g->mgid, h->mgid, 16);
		assert_int_equal(g->mlid, h->mlid);
		assert_int_equal(g->mtu, h->mtu);
		assert_int_equal(g->rate, h->rate);
		assert_int_equal(g->pkey, h->pkey);
		assert_int_equal(g->qkey, h->qkey);
		assert_int_equal(g->scope, h->scope);
		assert_int_equal(g->n, h->n);
		for (uint32_t j = 0; j < g->n; j++) {
			const struct fab_mc_member *m = &x->members[g->first + j], *n = &y->members[h->first + j];
			assert_true(m->port_guid == n->port_guid);
			assert_true(m->gid_prefix == n->gid_prefix);
			assert_int_equal(m->join_state, n->join_state);
			assert_int_equal(m->proxy, n->proxy);
			assert_int_equal(m->port_idx, n->port_idx); /* the same nodes, in order */
		}
	}
	assert_int_equal(x->n_mfts, y->n_mfts);
	for (size_t i = 0; i < x->n_mfts; i++) {
		const struct fab_mft *t = &x->mfts[i], *u = &y->mfts[i];
		assert_int_equal(t->node_idx, u->node_idx);
		assert_int_equal(t->status, u->status);
		assert_int_equal(t->cap, u->cap);
		assert_int_equal(t->top, u->top);
		assert_int_equal(t->top_valid, u->top_valid);
		assert_int_equal(t->n_pos, u->n_pos);
		assert_int_equal(t->n_blocks, u->n_blocks);
		assert_memory_equal(t->block, u->block, t->n_blocks * sizeof(*t->block));
		assert_memory_equal(t->read, u->read, (size_t)t->n_blocks * t->n_pos);
		/* masks: equal where read (where not, nothing is known) */
		for (uint32_t b = 0; b < t->n_blocks; b++)
			for (unsigned sl = 0; sl < FAB_MFT_BLOCK; sl++)
				for (unsigned p = 0; p < t->n_pos; p++)
					if (t->read[b * t->n_pos + p] == FAB_MFT_READ)
						assert_int_equal(t->mask[(b * FAB_MFT_BLOCK + sl) * t->n_pos + p],
								 u->mask[(b * FAB_MFT_BLOCK + sl) * t->n_pos + p]);
	}
}

static void test_roundtrip(void **state)
{
	struct fab_snapshot *s = fabric(), *l;

	(void)state;
	fabfix_db_write(dbpath, s);
	l = load(s->scan_id);
	same(s, l);
	fab_snapshot_free(l);
	/* the views: 2 groups, 9 members named by their ports, the tables' entries */
	assert_int_equal(count("SELECT count(*) FROM mcast_groups"), 2);
	assert_int_equal(count("SELECT members FROM mcast_groups WHERE mgid = 'ff12:601b:ffff::a1'"), 3);
	assert_int_equal(count("SELECT mlid FROM mcast_groups WHERE mgid = 'ff12:601b:ffff::a1'"), 0xc021);
	assert_int_equal(count("SELECT mtu FROM mcast_groups WHERE mgid = 'ff12:601b:ffff::a1'"), 4096);
	assert_int_equal(count("SELECT rate_gbps FROM mcast_groups WHERE mgid = 'ff12:601b:ffff::a1'"), 100);
	assert_int_equal(count("SELECT rate_gbps FROM mcast_groups WHERE mgid = 'ff12:401b:ffff::ffff:ffff'"), 10);
	assert_int_equal(count("SELECT partition FROM mcast_groups WHERE mgid = 'ff12:401b:ffff::ffff:ffff'"), 0x7fff);
	assert_int_equal(count("SELECT count(*) FROM mcast_members WHERE node_guid IS NOT NULL AND port_num = 1"), 9);
	assert_int_equal(count("SELECT count(*) FROM mcast_members WHERE join_state = 'sendonly' AND proxy_join = 1"), 1);
	assert_int_equal(count("SELECT count(*) FROM mcast_switch_tables WHERE status = 'partial' AND top_valid"), 1);
	/* every known entry bit is a row: count them in the snapshot */
	int64_t bits = 0;
	for (size_t i = 0; i < s->mcast->n_mfts; i++) {
		const struct fab_mft *t = &s->mcast->mfts[i];
		for (size_t k = 0; k < (size_t)t->n_blocks * FAB_MFT_BLOCK * t->n_pos; k++)
			if (t->read[(k / t->n_pos / FAB_MFT_BLOCK) * t->n_pos + k % t->n_pos] == FAB_MFT_READ)
				bits += __builtin_popcount(t->mask[k]);
	}
	assert_true(bits > 10);
	assert_int_equal(count("SELECT count(*) FROM mcast_forwarding"), bits);
	assert_int_equal(count("SELECT count(*) FROM mcast_forwarding WHERE mlid = 49185 AND port = 0"), 0);
	/* unchanged: one more scan_mcast row, nothing else */
	int64_t rows = count("SELECT (SELECT count(*) FROM mcast_group_rows) + (SELECT count(*) FROM"
			     " mcast_member_rows) + (SELECT count(*) FROM mcast_group_sets) + (SELECT"
			     " count(*) FROM mft_tables) + (SELECT count(*) FROM mft_table_entries) +"
			     " (SELECT count(*) FROM mft_sets) + (SELECT count(*) FROM mft_set_switches)");
	s->scan_id = 0;
	fabfix_db_write(dbpath, s);
	assert_int_equal(count("SELECT count(*) FROM scan_mcast"), 2);
	assert_int_equal(count("SELECT (SELECT count(*) FROM mcast_group_rows) + (SELECT count(*) FROM"
			       " mcast_member_rows) + (SELECT count(*) FROM mcast_group_sets) + (SELECT"
			       " count(*) FROM mft_tables) + (SELECT count(*) FROM mft_table_entries) +"
			       " (SELECT count(*) FROM mft_sets) + (SELECT count(*) FROM mft_set_switches)"),
			 rows);
	/* one member more: a new group row and set; the tables are shared */
	int64_t tables = count("SELECT count(*) FROM mft_tables");
	struct fab_mc_member *mb = fab_mcast_add_member(s->mcast);
	*mb = s->mcast->members[0];
	mb->port_guid = 0x99;
	s->mcast->groups[1].n++; /* the last group's members end the array */
	assert_int_equal(s->mcast->groups[1].first + s->mcast->groups[1].n, s->mcast->n_members);
	s->scan_id = 0;
	fabfix_db_write(dbpath, s);
	assert_int_equal(count("SELECT count(*) FROM mcast_group_sets"), 2);
	assert_int_equal(count("SELECT count(*) FROM mft_tables"), tables);
	assert_int_equal(count("SELECT count(*) FROM mcast_members WHERE port_guid = '0x0000000000000099'"
			       " AND node_guid IS NULL"), 1);
	fab_snapshot_free(s);
	/* the two older scans pruned: the old G1 row and set go, what the last
	 * scan shares stays */
	struct fab_store *st;
	struct fab_prune_opts po = { .keep = 1, .no_vacuum = true };
	struct fab_prune_result pr;
	assert_int_equal(count("SELECT count(*) FROM mcast_group_rows"), 3);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_prune(st, &po, NULL, NULL, &pr), 0);
	fab_store_close(st);
	assert_int_equal(count("SELECT count(*) FROM scans"), 1);
	assert_int_equal(count("SELECT count(*) FROM scan_mcast"), 1);
	assert_int_equal(count("SELECT count(*) FROM mcast_group_sets"), 1);
	assert_int_equal(count("SELECT count(*) FROM mcast_group_rows"), 2);
	assert_int_equal(count("SELECT count(*) FROM mcast_member_rows"), 10);
	assert_int_equal(count("SELECT count(*) FROM mft_tables"), tables);
	assert_int_equal(count("SELECT count(*) FROM mcast_forwarding"), bits);
}

/* A scan without multicast loads without it; a damaged table is an error. */
static void test_absent_and_damaged(void **state)
{
	struct fab_snapshot *s = fabric(), *l;
	struct fab_store *st;

	(void)state;
	struct fab_mcast *m = s->mcast;
	s->mcast = NULL;
	fabfix_db_write(dbpath, s);
	l = load(s->scan_id);
	assert_null(l->mcast);
	fab_snapshot_free(l);
	s->mcast = m;
	s->scan_id = 0;
	fabfix_db_write(dbpath, s);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE mft_tables SET content = X'0100' WHERE table_id = (SELECT min(table_id) FROM mft_tables)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, s->scan_id, &l), -EIO);
	fab_store_close(st);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absent_and_damaged, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
