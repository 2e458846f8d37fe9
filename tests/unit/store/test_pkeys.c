// SPDX-License-Identifier: MIT
/*
 * P_Key tables in the store (store/pkey_io.c): written content-addressed,
 * read back equal (whole and in ready's partial view), deduplicated across
 * scans, what the public views say, pruned with the scans.
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
#include <unistd.h>

#include "fabsweep/pkey.h"
#include "fabsweep/routing.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/store_view.h"
#include "unit/snapfix.h"
#include "fabfix/fabfix_db.h"

static char dbpath[256];

static int setup(void **state)
{
	fabfix_path(dbpath, sizeof(dbpath), "test_pkeys", ".db");
	fabfix_unlink_db(dbpath);
	return 0;
}

static int teardown(void **state)
{
	fabfix_unlink_db(dbpath);
	return 0;
}

static int64_t count(const char *sql)
{
	return fabfix_db_count(dbpath, sql);
}

static void write_one(struct fab_snapshot *snap)
{
	fabfix_db_write(dbpath, snap);
}

static int64_t pkey_rows(void)
{
	return count("SELECT (SELECT count(*) FROM pkey_tables) + (SELECT count(*) FROM"
		     " pkey_table_entries) + (SELECT count(*) FROM pkey_sets) + (SELECT count(*)"
		     " FROM pkey_set_ports)");
}

static void same_tables(const struct fab_snapshot *a, const struct fab_snapshot *b)
{
	assert_non_null(b->pkeys);
	assert_int_equal(a->pkeys->n, b->pkeys->n);
	for (size_t i = 0; i < a->pkeys->n; i++) {
		const struct fab_port_pkeys *x = &a->pkeys->ports[i], *y = &b->pkeys->ports[i];
		assert_int_equal(x->port_idx, y->port_idx);
		assert_int_equal(x->status, y->status);
		assert_int_equal(x->enforce, y->enforce);
		assert_int_equal(x->cap, y->cap);
		assert_int_equal(x->n, y->n);
		if (x->n)
			assert_memory_equal(x->pkey, y->pkey, x->n * sizeof(*x->pkey));
	}
}

static bool want_first(uint64_t guid, const char *desc, void *ctx)
{
	(void)guid;
	return !strcmp(desc, (const char *)ctx);
}

static void test_pkeys(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(2, 4, 3), *back;
	const uint16_t extra[] = { 0x8001, 0x0002 };
	struct fab_store *st;

	assert_int_equal(fabfix_pkeys_default(snap, extra, 2), 0);
	struct fab_pkeys *k = snap->pkeys;
	/* a switch port that enforces, a failed port, a partial one with a hole */
	for (size_t i = 0; i < k->n; i++) {
		const struct fab_port *p = &snap->ports[k->ports[i].port_idx];
		if (snap->nodes[p->node_idx].type == FAB_NODE_SWITCH) {
			k->ports[i].enforce = FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB;
			break;
		}
	}
	k->ports[1] = (struct fab_port_pkeys){ .port_idx = k->ports[1].port_idx,
					       .status = FAB_LFT_FAILED, .cap = 64 };
	uint16_t *hole = fab_pkeys_alloc(k, 40);
	hole[0] = 0xffff;
	hole[39] = 0x8003;
	k->ports[2].pkey = hole;
	k->ports[2].n = 40;
	k->ports[2].status = FAB_LFT_PARTIAL;
	write_one(snap);
	int64_t rows = pkey_rows();
	/* three distinct tables: the default's, the hole's, and none for the failed */
	assert_int_equal(count("SELECT count(*) FROM pkey_tables"), 2);
	assert_int_equal(count("SELECT count(*) FROM port_pkey_tables WHERE scan_id = 1"), k->n);
	assert_int_equal(count("SELECT count(*) FROM port_pkey_tables WHERE part_enf_inbound"), 1);
	assert_int_equal(count("SELECT count(*) FROM port_partitions WHERE scan_id = 1"
			       " AND partition_hex = '0x0001' AND membership = 'full'"), k->n - 2);
	assert_int_equal(count("SELECT count(*) FROM port_partitions WHERE scan_id = 1"
			       " AND partition = 2 AND membership = 'limited'"), k->n - 2);
	assert_int_equal(count("SELECT idx FROM port_partitions WHERE pkey = '0x8003'"), 39);

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 1, &back), 0);
	same_tables(snap, back);
	fab_snapshot_free(back);
	/* ready's view: the host's port and the switch port it is cabled to */
	uint32_t h = FAB_NONE;
	for (size_t i = 0; i < snap->n_nodes && h == FAB_NONE; i++)
		if (snap->nodes[i].type == FAB_NODE_CA)
			h = (uint32_t)i;
	assert_int_equal(fab_store_load_view(st, 1, want_first, snap->nodes[h].desc, &back), 0);
	fab_store_close(st);
	assert_true(fab_pkeys_present(back));
	assert_int_equal(back->pkeys->n, 2);
	for (size_t i = 0; i < back->pkeys->n; i++)
		assert_int_equal(fab_pkeys_member(&back->pkeys->ports[i], 1), FAB_PKEY_FULL_MEMBER);
	fab_snapshot_free(back);

	write_one(snap); /* unchanged: one scan_pkeys row more, nothing else */
	assert_int_equal(pkey_rows(), rows);
	assert_int_equal(count("SELECT count(DISTINCT set_id) FROM scan_pkeys"), 1);
	hole[5] = 0x8004; /* one table changed: a table, its entries, a set, its ports */
	write_one(snap);
	assert_int_equal(pkey_rows(), rows + 1 + 3 + 1 + (int64_t)k->n);
	struct fab_prune_opts po = { .keep = 1, .no_vacuum = true };
	struct fab_prune_result pr;
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_prune(st, &po, NULL, NULL, &pr), 0);
	fab_store_close(st);
	/* the first set and the old hole table went with the first two scans;
	 * the new hole table has one entry more */
	assert_int_equal(pkey_rows(), rows + 1);
	assert_int_equal(count("SELECT count(*) FROM port_partitions WHERE pkey = '0x8004'"), 1);
	fab_snapshot_free(snap);
}

/* The model's questions. */
static void test_membership(void **state)
{
	uint16_t a_t[] = { 0xffff, 0x8001, 0, 0x0002 }, b_t[] = { 0x7fff, 0x0001, 0x0002 };
	struct fab_port_pkeys a = { .n = 4, .pkey = a_t }, b = { .n = 3, .pkey = b_t };
	bool lim;

	assert_int_equal(fab_pkeys_member(&a, 0x7fff), FAB_PKEY_FULL_MEMBER);
	assert_int_equal(fab_pkeys_member(&b, 0x7fff), FAB_PKEY_LIMITED);
	assert_int_equal(fab_pkeys_member(&a, 3), FAB_PKEY_NONE);
	assert_int_equal(fab_pkeys_member(&a, 0), FAB_PKEY_NONE); /* empty entries are no partition */
	assert_int_equal(fab_pkeys_shared(&a, &b, 0, &lim), 0x7fff);
	assert_int_equal(fab_pkeys_shared(&a, &b, 1, &lim), 1);
	assert_int_equal(fab_pkeys_shared(&a, &b, 2, &lim), -1);
	assert_true(lim);
	assert_int_equal(fab_pkeys_shared(&a, &b, 5, &lim), -1);
	assert_false(lim);
	b_t[0] = 0x0003;
	b_t[1] = 0x0002;
	assert_int_equal(fab_pkeys_shared(&a, &b, 0, &lim), -1);
	assert_true(lim);
	assert_int_equal(fab_pkey_parse("0x8001"), 0x8001);
	assert_int_equal(fab_pkey_parse("32767"), 0x7fff);
	assert_int_equal(fab_pkey_parse("0x"), -1);
	assert_int_equal(fab_pkey_parse("0x10000"), -1);
	assert_int_equal(fab_pkey_parse("-1"), -1);
	assert_int_equal(fab_pkey_parse("12ab"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pkeys, setup, teardown),
		cmocka_unit_test(test_membership),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
