// SPDX-License-Identifier: MIT
/*
 * The route pipeline (`fabsweep route SRC DST`) on the base fabric
 * (tests/unit/rules/rulefix.h, routed min-hop): the path, hop by hop; the
 * ways to name a host; a broken entry; a scan without tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "unit/site_rules/sitefix.h"

static char db[512];

static int setup(void **state)
{
	sf_path(db, sizeof(db), "route.db");
	sf_make_db(db);
	return 0;
}

static int teardown(void **state)
{
	sf_unlink_db(db);
	return 0;
}

static int route(const char *src, const char *dst, struct fab_pipeline_route_result *r)
{
	struct fab_pipeline_route job = { .db = db, .src = src, .dst = dst };

	return fab_pipeline_route(&job, r);
}

static const char *desc_of(const struct fab_snapshot *s, uint32_t port)
{
	return s->nodes[s->ports[port].node_idx].desc;
}

/* host01 (leaf01) to host08 (leaf04): up to a spine and down, 4 links */
static void test_path(void **state)
{
	struct fab_pipeline_route_result r;

	assert_int_equal(route("host01", "host08 HCA-1", &r), 0);
	const struct fab_snapshot *s = r.snap;
	assert_int_equal(r.scan_id, 2);
	assert_int_equal(r.path.fault, FAB_ROUTE_OK);
	assert_int_equal(r.dlid, 14);
	assert_int_equal(r.path.n_hops, 4);
	assert_int_equal(r.path.hop[0], r.src);
	assert_string_equal(desc_of(s, r.path.hop[1]), "leaf01");
	assert_true(s->ports[r.path.hop[1]].port_num == 7 || s->ports[r.path.hop[1]].port_num == 8);
	assert_int_equal(strncmp(desc_of(s, r.path.hop[2]), "spine0", 6), 0);
	assert_string_equal(desc_of(s, r.path.hop[3]), "leaf04");
	assert_int_equal(s->ports[r.path.hop[3]].remote_idx, r.dst);
	fab_pipeline_route_free(&r);
	/* on one leaf: 2 links */
	assert_int_equal(route("host01", "host02", &r), 0);
	assert_int_equal(r.path.n_hops, 2);
	fab_pipeline_route_free(&r);
}

/* a LID, a port GUID, a node GUID and a description name the same host */
static void test_names(void **state)
{
	static const char *const names[] = { "14", "0xe", "0x0002c90300c10008", "0x0002c90300c00008",
					     "host08 HCA-1", "host08" };
	struct fab_pipeline_route_result r;

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		assert_int_equal(route("host01", names[i], &r), 0);
		assert_string_equal(desc_of(r.snap, r.dst), "host08 HCA-1");
		fab_pipeline_route_free(&r);
	}
	assert_int_equal(route("host0", "host08", &r), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "'host0'"));
	assert_int_equal(route("host01", "99", &r), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "LID 99"));
	assert_int_equal(route("host01", "0x0002c90300ffffff", &r), -ENOENT);
	/* two nodes whose descriptions start with that word */
	sf_sql(db, "UPDATE node_rows SET description = 'host01 HCA-2' WHERE description = 'host02 HCA-1'");
	assert_int_equal(route("host01", "host08", &r), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "names 2 nodes"));
}

/* leaf01 drops host08's LID: the path ends there, at its port 0 */
static void test_broken(void **state)
{
	struct fab_pipeline_route_result r;

	sf_sql(db, "UPDATE lft_blocks SET ports = CAST(substr(ports, 1, 14) || X'FF' || substr(ports, 16) AS BLOB)"
		   " WHERE block_id = (SELECT tb.block_id FROM switch_tables t JOIN nodes n USING (scan_id, node_guid)"
		   " JOIN lft_table_blocks tb ON tb.table_id = t.table_id WHERE t.scan_id = 2"
		   " AND n.description = 'leaf01')");
	assert_int_equal(route("host01", "host08", &r), 0);
	assert_int_equal(r.path.fault, FAB_ROUTE_NO_ENTRY);
	assert_int_equal(r.path.n_hops, 1);
	assert_string_equal(desc_of(r.snap, r.path.at), "leaf01");
	assert_int_equal(r.snap->ports[r.path.at].port_num, 0);
	fab_pipeline_route_free(&r);
}

static void test_no_tables(void **state)
{
	struct fab_pipeline_route_result r;

	sf_sql(db, "DELETE FROM scan_routing");
	assert_int_equal(route("host01", "host08", &r), -ENODATA);
	assert_non_null(strstr(fab_errmsg(), "no forwarding tables"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_tables, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
