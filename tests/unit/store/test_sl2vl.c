// SPDX-License-Identifier: MIT
/*
 * SL2VL tables in the store (store/sl2vl_io.c): written content-addressed,
 * read back equal (the same tables as the view's rows), deduplicated
 * across unchanged scans, what the public view sl2vl says, pruned with the scans; a scan that read none stores
 * none; a version 8 database migrates with its scans readable.
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

#include "fabsweep/routing.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "unit/snapfix.h"
#include "fabfix/fabfix_db.h"

static char dbpath[256];

static int setup(void **state)
{
	(void)state;
	fabfix_path(dbpath, sizeof(dbpath), "test_sl2vl", ".db");
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

static void write_one(struct fab_snapshot *snap)
{
	fabfix_db_write(dbpath, snap);
}

static struct fab_snapshot *load(int64_t id)
{
	return fabfix_db_load(dbpath, id);
}

static int64_t sl2vl_rows(void)
{
	return count("SELECT (SELECT count(*) FROM sl2vl_sets) + (SELECT count(*) FROM sl2vl_set_tables)");
}

static void add_table(struct fab_routing *r, uint32_t node, unsigned in, unsigned out, unsigned shift)
{
	struct fab_sl2vl *t = fab_routing_add_sl2vl(r);

	assert_non_null(t);
	*t = (struct fab_sl2vl){ .node_idx = node, .in = (uint8_t)in, .out = (uint8_t)out };
	for (unsigned sl = 0; sl < FAB_N_SL; sl++)
		t->vl[sl] = (uint8_t)((sl + shift) % 16);
}

static void test_sl2vl(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(2, 4, 3), *back;
	struct fab_store *st;

	(void)state;
	assert_int_equal(fabfix_route_minhop(snap), 0);
	write_one(snap); /* scan 1: tables read, none needed */
	assert_int_equal(sl2vl_rows(), 0);
	assert_int_equal(count("SELECT count(*) FROM scan_sl2vl"), 0);

	struct fab_routing *r = snap->routing;
	uint32_t sw0 = r->lfts[0].node_idx, sw1 = r->lfts[1].node_idx;
	add_table(r, sw1, 3, 19, 1);
	add_table(r, sw0, 19, 1, 0);
	add_table(r, sw0, 1, 19, 2);
	fab_routing_sort_sl2vl(r);
	write_one(snap); /* scan 2 */
	assert_int_equal(sl2vl_rows(), 1 + 3);
	/* the view: "on switch S, SL s entering by i and leaving by o uses VL" */
	assert_int_equal(count("SELECT count(*) FROM sl2vl WHERE scan_id = 2"), 3 * 16);
	assert_int_equal(count("SELECT vl FROM sl2vl v JOIN nodes n USING (scan_id, node_guid)"
			       " WHERE v.scan_id = 2 AND n.node_idx = 0 AND in_port = 1"
			       " AND out_port = 19 AND sl = 15"), (15 + 2) % 16);
	back = load(2);
	assert_non_null(back->routing);
	assert_int_equal(back->routing->n_sl2vl, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct fab_sl2vl *a = &r->sl2vl[i], *b = &back->routing->sl2vl[i];
		assert_int_equal(a->node_idx, b->node_idx);
		assert_int_equal(a->in, b->in);
		assert_int_equal(a->out, b->out);
		assert_memory_equal(a->vl, b->vl, FAB_N_SL);
	}
	assert_non_null(fab_routing_sl2vl(back->routing, sw1, 3, 19));
	assert_null(fab_routing_sl2vl(back->routing, sw1, 19, 3));
	fab_snapshot_free(back);

	write_one(snap); /* scan 3: unchanged, one row more */
	assert_int_equal(sl2vl_rows(), 1 + 3);
	assert_int_equal(count("SELECT count(*) FROM scan_sl2vl"), 2);
	r->sl2vl[0].vl[4] = 9; /* one SL moved */
	write_one(snap); /* scan 4 */
	assert_int_equal(count("SELECT count(DISTINCT set_id) FROM scan_sl2vl"), 2);
	assert_int_equal(sl2vl_rows(), 2 * (1 + 3));

	/* a whole snapshot loads the same tables as the view's rows (each VL
	 * weighted by its place, summed) */
	back = load(4);
	int64_t sum = 0;
	for (size_t i = 0; i < back->routing->n_sl2vl; i++) {
		const struct fab_sl2vl *t = &back->routing->sl2vl[i];
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			sum += (int64_t)(1000 * t->node_idx + 50 * t->in + 17 * t->out + sl + 1) * t->vl[sl];
	}
	assert_int_equal(back->routing->n_sl2vl * FAB_N_SL,
			 count("SELECT count(*) FROM sl2vl WHERE scan_id = 4"));
	assert_int_equal(sum, count("SELECT sum((1000 * n.node_idx + 50 * in_port + 17 * out_port + sl + 1) * vl)"
				    " FROM sl2vl v JOIN nodes n USING (scan_id, node_guid) WHERE v.scan_id = 4"));
	fab_snapshot_free(back);
	/* pruning all but the last scan drops the first set */
	struct fab_prune_opts po = { .keep = 1, .no_vacuum = true };
	struct fab_prune_result pr;
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_prune(st, &po, NULL, NULL, &pr), 0);
	fab_store_close(st);
	assert_int_equal(sl2vl_rows(), 1 + 3);
	assert_int_equal(count("SELECT vl FROM sl2vl WHERE scan_id = 4 AND sl = 4 AND vl = 9"), 9);
	fab_snapshot_free(snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sl2vl, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
