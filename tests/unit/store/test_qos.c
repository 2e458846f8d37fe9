// SPDX-License-Identifier: MIT
/*
 * The VL tables in the store (store/qos_io.c, store/sl2vl_io.c): a scan
 * that read them (a QoS policy) keeps why, its VLArbitration tables and
 * its SL2VL tables (CA ports' with in-port 0) without forwarding tables
 * too; read back equal; content-addressed across unchanged scans; the
 * public views vlarb and qos_scans say the same; pruned with the scans.
 * And node names: a partial view (ready's, route's) names a node as the
 * whole scan does.
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

#include "fabsweep/nodemap.h"
#include "fabsweep/qos.h"
#include "fabsweep/routing.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/store_view.h"
#include "unit/snapfix.h"
#include "fabfix/fabfix_db.h"

static char dbpath[256];

static int setup(void **state)
{
	(void)state;
	fabfix_path(dbpath, sizeof(dbpath), "test_qos", ".db");
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

static struct fab_snapshot *load(int64_t id)
{
	return fabfix_db_load(dbpath, id);
}

/* The first cabled port of the first node of a type. */
static uint32_t first_port(const struct fab_snapshot *s, unsigned type)
{
	for (size_t i = 0; i < s->n_ports; i++)
		if (s->nodes[s->ports[i].node_idx].type == type && s->ports[i].port_num &&
		    s->ports[i].remote_idx != FAB_NONE)
			return (uint32_t)i;
	fail();
	return FAB_NONE;
}

static void add_vlarb(struct fab_snapshot *s, uint32_t port, unsigned salt)
{
	struct fab_vlarb *v = fab_qos_add_vlarb(s->qos);

	assert_non_null(v);
	v->port_idx = port;
	v->n_high = 8;
	v->n_low = 3;
	for (unsigned i = 0; i < 8; i++)
		v->high[i] = (struct fab_vlarb_entry){ (uint8_t)i, (uint8_t)(i ? 0 : 4) };
	for (unsigned i = 0; i < 3; i++)
		v->low[i] = (struct fab_vlarb_entry){ (uint8_t)(i + 1), (uint8_t)(salt + i) };
}

static void test_roundtrip(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(2, 4, 3), *back;
	struct fab_store *st;

	(void)state;
	fabfix_db_write(dbpath, snap); /* scan 1: no VL tables (no QoS policy) */
	assert_int_equal(count("SELECT count(*) FROM qos_scans"), 0);
	assert_int_equal(count("SELECT count(*) FROM vlarb"), 0);
	back = load(1);
	assert_null(back->qos);
	assert_null(back->routing);
	fab_snapshot_free(back);

	/* scan 2: read for a policy, no forwarding tables (--no-routes) */
	uint32_t ca = first_port(snap, FAB_NODE_CA), sw = first_port(snap, FAB_NODE_SWITCH);
	assert_non_null(fab_snapshot_qos(snap));
	snap->qos->reason = FAB_QOS_POLICY;
	add_vlarb(snap, sw, 5);
	add_vlarb(snap, ca, 9);
	fab_qos_sort(snap->qos);
	struct fab_sl2vl *t = fab_routing_add_sl2vl(fab_snapshot_routing(snap));
	*t = (struct fab_sl2vl){ .node_idx = snap->ports[ca].node_idx, .in = 0,
				 .out = snap->ports[ca].port_num };
	for (unsigned sl = 0; sl < FAB_N_SL; sl++)
		t->vl[sl] = (uint8_t)(sl == 3 ? 15 : sl % 8);
	fab_routing_sort_sl2vl(snap->routing);
	fabfix_db_write(dbpath, snap);
	assert_int_equal(count("SELECT count(*) FROM qos_scans WHERE scan_id = 2 AND reason = 'qos'"), 1);
	assert_int_equal(count("SELECT count(*) FROM vlarb WHERE scan_id = 2"), 2 * (8 + 3));
	/* the view, entry by entry: the CA port's low table, third entry */
	char sql[512];
	snprintf(sql, sizeof(sql),
		 "SELECT vl * 100 + weight FROM vlarb WHERE scan_id = 2 AND node_guid = '0x%016llx'"
		 " AND port_num = %u AND priority = 'low' AND idx = 2",
		 (unsigned long long)snap->nodes[snap->ports[ca].node_idx].guid, snap->ports[ca].port_num);
	assert_int_equal(count(sql), 3 * 100 + 9 + 2);
	assert_int_equal(count("SELECT vl FROM sl2vl WHERE scan_id = 2 AND in_port = 0 AND sl = 3"), 15);
	back = load(2);
	assert_non_null(back->qos);
	assert_int_equal(back->qos->reason, FAB_QOS_POLICY);
	assert_int_equal(back->qos->n_vlarb, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct fab_vlarb *a = &snap->qos->vlarb[i], *b = &back->qos->vlarb[i];
		assert_int_equal(a->port_idx, b->port_idx);
		assert_int_equal(a->n_high, b->n_high);
		assert_int_equal(a->n_low, b->n_low);
		assert_memory_equal(a->high, b->high, a->n_high * sizeof(*a->high));
		assert_memory_equal(a->low, b->low, a->n_low * sizeof(*a->low));
	}
	assert_non_null(back->routing); /* the SL2VL tables without forwarding tables */
	assert_false(fab_routing_present(back));
	assert_int_equal(back->routing->n_sl2vl, 1);
	assert_int_equal(back->routing->sl2vl[0].vl[3], 15);
	fab_snapshot_free(back);

	/* scan 3 unchanged: one set; scan 4 one weight moved: a second */
	fabfix_db_write(dbpath, snap);
	assert_int_equal(count("SELECT count(*) FROM vlarb_sets"), 1);
	snap->qos->vlarb[1].low[0].weight = 1;
	snap->qos->reason = FAB_QOS_FORENSIC;
	fabfix_db_write(dbpath, snap);
	assert_int_equal(count("SELECT count(*) FROM vlarb_sets"), 2);
	assert_int_equal(count("SELECT count(*) FROM qos_scans WHERE reason = 'forensic'"), 1);
	back = load(4);
	assert_int_equal(back->qos->reason, FAB_QOS_FORENSIC); /* read back, not assumed */
	assert_int_equal(back->qos->vlarb[1].low[0].weight, 1);
	fab_snapshot_free(back);

	struct fab_prune_opts po = { .keep = 1, .no_vacuum = true };
	struct fab_prune_result pr;
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_prune(st, &po, NULL, NULL, &pr), 0);
	fab_store_close(st);
	assert_int_equal(count("SELECT count(*) FROM vlarb_sets"), 1);
	assert_int_equal(count("SELECT count(*) FROM vlarb_set_ports"), 2);
	assert_int_equal(count("SELECT count(*) FROM vlarb WHERE scan_id = 4"), 2 * (8 + 3));
	fab_snapshot_free(snap);
}

static bool want_host1(uint64_t guid, const char *desc, void *ctx)
{
	(void)guid;
	(void)ctx;
	return !strncmp(desc, "host0001", 8);
}

/* Two leaves described alike: every load names them with their digits,
 * the whole scan's and a view that loads only one of them. */
static void test_view_names(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(2, 4, 3), *back, *view;
	struct fab_store *st;
	char nb[FAB_NODE_NAME_CAP], want[FAB_NODE_NAME_CAP];
	uint32_t leaf = FAB_NONE, other = FAB_NONE;

	(void)state;
	for (size_t i = 0; i < snap->n_nodes && leaf == FAB_NONE; i++)
		if (want_host1(0, snap->nodes[i].desc, NULL)) { /* host0001's leaf */
			const struct fab_port *p = fab_snapshot_port(snap, (uint32_t)i, 1);
			leaf = snap->ports[p->remote_idx].node_idx;
		}
	for (size_t i = 0; i < snap->n_nodes && other == FAB_NONE; i++)
		if ((snap->nodes[i].guid >> 12) == 2 && i != leaf) /* leaves are 0x2000 + i */
			other = (uint32_t)i;
	assert_int_not_equal(leaf, FAB_NONE);
	assert_int_not_equal(other, FAB_NONE);
	fab_node_set_desc(&snap->nodes[other], (const uint8_t *)snap->nodes[leaf].desc,
			  strlen(snap->nodes[leaf].desc));
	fabfix_db_write(dbpath, snap);
	snprintf(want, sizeof(want), "%s [..%06llx]", snap->nodes[leaf].desc,
		 (unsigned long long)(snap->nodes[leaf].guid & 0xffffff));

	back = load(1);
	assert_string_equal(fab_node_name(back, fab_snapshot_find_node(back, snap->nodes[leaf].guid),
					  NULL, nb, sizeof(nb)), want);
	fab_snapshot_free(back);

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_view(st, 1, want_host1, NULL, &view), 0);
	fab_store_close(st);
	uint32_t v = fab_snapshot_find_node(view, snap->nodes[leaf].guid);
	assert_int_not_equal(v, FAB_NONE); /* host0001's leaf, at the other end of its link */
	assert_int_equal(fab_snapshot_find_node(view, snap->nodes[other].guid), FAB_NONE);
	assert_string_equal(fab_node_name(view, v, NULL, nb, sizeof(nb)), want);
	fab_snapshot_free(view);
	fab_snapshot_free(snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_view_names, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
