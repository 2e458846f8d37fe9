// SPDX-License-Identifier: MIT
/*
 * The route pipeline (`fabsweep route SRC DST`) on the base fabric
 * (tests/unit/rules/rulefix.h, routed min-hop): the path, hop by hop; the
 * ways to name a host; a broken entry; a scan without tables; every pair
 * of a host list (--all-pairs) against a trace of each pair.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"
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

/* The route of job, its hops as (node GUID, port number) pairs. */
static size_t hops_of(const struct fab_pipeline_route_result *r, uint64_t *guid, unsigned *num)
{
	assert_int_equal(r->path.fault, FAB_ROUTE_OK);
	for (size_t k = 0; k < r->path.n_hops; k++) {
		const struct fab_port *p = &r->snap->ports[r->path.hop[k]];
		guid[k] = r->snap->nodes[p->node_idx].guid;
		num[k] = p->port_num;
	}
	return r->path.n_hops;
}

/* Named by description or by LIDs, a route is read over views that grow
 * along the path (a part of the scan); --all-lids reads the whole scan:
 * the same path for every pair of hosts, hop by hop. */
static void test_view_equals_whole(void **state)
{
	char a[16], b[16], la[8], lb[8];

	for (unsigned i = 1; i <= 8; i++)
		for (unsigned j = 1; j <= 8; j++) {
			struct fab_pipeline_route_result v, l, w;
			uint64_t gv[FAB_ROUTE_MAX_HOPS], gl[FAB_ROUTE_MAX_HOPS], gw[FAB_ROUTE_MAX_HOPS];
			unsigned nv[FAB_ROUTE_MAX_HOPS], nl[FAB_ROUTE_MAX_HOPS], nw[FAB_ROUTE_MAX_HOPS];
			if (i == j)
				continue;
			snprintf(a, sizeof(a), "host%02u", i);
			snprintf(b, sizeof(b), "host%02u", j);
			assert_int_equal(route(a, b, &v), 0);
			snprintf(la, sizeof(la), "%u", v.snap->ports[v.src].lid);
			snprintf(lb, sizeof(lb), "%u", v.dlid);
			assert_int_equal(route(la, lb, &l), 0);
			struct fab_pipeline_route all = { .db = db, .src = la, .dst = lb, .all_lids = true };
			assert_int_equal(fab_pipeline_route(&all, &w), 0);
			/* a part: the views */
			assert_true(v.snap->n_nodes < w.snap->n_nodes);
			assert_true(l.snap->n_nodes < w.snap->n_nodes);
			size_t n = hops_of(&w, gw, nw);
			assert_int_equal(hops_of(&v, gv, nv), n);
			assert_int_equal(hops_of(&l, gl, nl), n);
			for (size_t k = 0; k < n; k++) {
				assert_int_equal(gv[k], gw[k]);
				assert_int_equal(gl[k], gw[k]);
				assert_int_equal(nv[k], nw[k]);
				assert_int_equal(nl[k], nw[k]);
			}
			fab_pipeline_route_free(&v);
			fab_pipeline_route_free(&l);
			fab_pipeline_route_free(&w);
		}
}

/* --lid-offset: past the range of DST's LIDs (LMC 0: one LID), or with a
 * DST that is a LID already: refused, saying why */
static void test_lid_offset(void **state)
{
	struct fab_pipeline_route_result r;
	struct fab_pipeline_route job = { .db = db, .src = "host01", .dst = "host08", .lid_offset = 1 };

	assert_int_equal(fab_pipeline_route(&job, &r), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "'host08' answers to 1 LID (14 to 14): --lid-offset 1 is "
					     "past its range"));
	job.dst = "14";
	assert_int_equal(fab_pipeline_route(&job, &r), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "--lid-offset goes with a DST named by name or GUID"));
	job.lid_offset = 0; /* offset 0 is the base LID: the route */
	job.dst = "host08";
	assert_int_equal(fab_pipeline_route(&job, &r), 0);
	assert_int_equal(r.dlid, 14);
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

#define BREAK_LEAF01_TO_HOST08                                                                   \
	"UPDATE lft_blocks SET ports = CAST(substr(ports, 1, 14) || X'FF' || substr(ports, 16) AS BLOB)" \
	" WHERE block_id = (SELECT tb.block_id FROM switch_tables t JOIN nodes n USING (scan_id, node_guid)" \
	" JOIN lft_table_blocks tb ON tb.table_id = t.table_id WHERE t.scan_id = 2"                   \
	" AND n.description = 'leaf01')"

/* leaf01 drops host08's LID: the path ends there, at its port 0 */
static void test_broken(void **state)
{
	struct fab_pipeline_route_result r;

	sf_sql(db, BREAK_LEAF01_TO_HOST08);
	assert_int_equal(route("host01", "host08", &r), 0);
	assert_int_equal(r.path.fault, FAB_ROUTE_NO_ENTRY);
	assert_int_equal(r.path.n_hops, 1);
	assert_string_equal(desc_of(r.snap, r.path.at), "leaf01");
	assert_int_equal(r.snap->ports[r.path.at].port_num, 0);
	fab_pipeline_route_free(&r);
}

/* The pair (src, dst) among the broken ones, NULL when it is not there. */
static const struct fab_route_pair *bad_pair(const struct fab_route_pairs *p, uint32_t src, uint32_t dst)
{
	for (size_t i = 0; i < p->n_bad; i++)
		if (p->bad[i].src == src && p->bad[i].dst == dst)
			return &p->bad[i];
	return NULL;
}

/* leaf01 drops host08's LID, host05's port is down, 'nohost' is no host:
 * every other ordered pair of host01..host08 is judged as a trace of it
 * judges it, and only the two from leaf01's hosts to host08 break */
static void test_all_pairs(void **state)
{
	struct fab_hostlist *hl;
	struct fab_pipeline_route_result r;

	sf_sql(db, BREAK_LEAF01_TO_HOST08);
	sf_sql(db, "UPDATE port_rows SET state = 'down' WHERE scan_id = 2 AND port_num = 1 AND node_idx ="
		   " (SELECT node_idx FROM nodes WHERE scan_id = 2 AND description = 'host05 HCA-1')");
	assert_int_equal(fab_hostlist_new(&hl), 0);
	assert_int_equal(fab_hostlist_add(hl, "host[01-08],nohost,host01", SIZE_MAX), 0);
	struct fab_pipeline_route job = { .db = db, .hosts = hl };
	assert_int_equal(fab_pipeline_route(&job, &r), 0);
	assert_int_equal(r.n_hosts, 9);
	assert_int_equal(r.n_ends, 7);
	assert_int_equal(r.n_missed, 2);
	assert_string_equal(r.missed[0].host, "host05");
	assert_true(r.missed[0].no_port);
	assert_string_equal(r.missed[1].host, "nohost");
	assert_false(r.missed[1].no_port);
	assert_int_equal(r.pairs.n_pairs, 7 * 6);
	assert_int_equal(r.pairs.n_broken, 2);
	assert_int_equal(r.pairs.n_unknown, 0);
	assert_int_equal(r.pairs.n_bad, 2);
	/* the oracle: a trace of every pair */
	unsigned n_broken = 0;
	for (size_t a = 0; a < r.index->n_ends; a++)
		for (size_t b = 0; b < r.index->n_ends; b++) {
			uint32_t src = r.index->ends[a], dst = r.index->ends[b];
			struct fab_route_path path;
			uint16_t dlid;
			if (a == b)
				continue;
			assert_int_not_equal(fab_route_port_lids(r.snap, dst, &dlid), 0);
			assert_int_equal(fab_route_trace(r.index, src, dlid, &path), 0);
			const struct fab_route_pair *p = bad_pair(&r.pairs, src, dst);
			if (path.fault == FAB_ROUTE_OK) {
				assert_null(p);
				continue;
			}
			n_broken++;
			assert_non_null(p);
			assert_int_equal(p->fault, path.fault);
			assert_int_equal(p->at, path.at);
			assert_int_equal(p->dlid, dlid);
			assert_string_equal(desc_of(r.snap, dst), "host08 HCA-1");
			assert_string_equal(desc_of(r.snap, p->at), "leaf01");
		}
	assert_int_equal(n_broken, 2);
	fab_pipeline_route_free(&r);
	fab_hostlist_free(hl);
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
		cmocka_unit_test_setup_teardown(test_view_equals_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lid_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_tables, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
