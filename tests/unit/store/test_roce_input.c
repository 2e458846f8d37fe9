// SPDX-License-Identifier: MIT
/*
 * A merge's input files (fab_store_read_input): read straight from the SQLite
 * file format (store/dbfile.c) they give what SQLite reads from them (the
 * same reader forced onto SQLite by a -journal beside the file) and what the
 * store's own loader gives, element by element: the rule fixtures' RoCE
 * fabric (TLV sets, counters, DCB, ECN), a fabric large enough for interior
 * pages of every table (b-trees of rows and of WITHOUT ROWID keys) with
 * records spread over overflow pages, and the rows an older fabsweep wrote
 * (tests/unit/store/test_store.c, test_migrate_roce). Damaged files are an
 * error or a consistent model, never a crash; nothing is written beside any
 * input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "unit/rules/rulefix.h"
#include "unit/store/roce_same.h"
#include "store/dbfile.h"
#include <sqlite3.h>

static char db[600], side[700], bad[600];

static int setup(void **state)
{
	fabfix_path(db, sizeof(db), "roce_input", ".db");
	fabfix_path(bad, sizeof(bad), "roce_input_bad", ".db");
	snprintf(side, sizeof(side), "%s-journal", db);
	return 0;
}

static int teardown(void **state)
{
	fabfix_unlink_db(db);
	fabfix_unlink_db(bad);
	unlink(side);
	return 0;
}

/* The file read three ways: directly, with SQLite (a -journal beside it
 * makes the direct reader step aside), with the store's loader. */
static void three_ways(const char *path, struct fab_snapshot **direct_out)
{
	struct fab_snapshot *d = NULL, *q = NULL, *l = NULL;
	struct fab_store_input di, qi;
	struct fab_store *st;
	FILE *f;

	assert_int_equal(fab_store_read_input(NULL, path, &d, &di), 0);
	assert_true(di.direct);
	assert_int_equal(access(side, F_OK), -1); /* nothing written beside it */
	assert_non_null(f = fopen(side, "w"));
	fclose(f);
	assert_int_equal(fab_store_read_input(NULL, path, &q, &qi), 0);
	assert_false(qi.direct);
	unlink(side);
	assert_int_equal(di.mtime_ns, qi.mtime_ns);
	assert_int_equal(di.size, qi.size);
	assert_false(di.has_ib);
	assert_int_equal(fab_store_open(path, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 0, &l), 0);
	fab_store_close(st);
	assert_int_equal(d->scan_id, l->scan_id);
	assert_int_equal(d->started_at_ms, l->started_at_ms);
	assert_int_equal(d->finished_at_ms, l->finished_at_ms);
	assert_int_equal(d->status, l->status);
	assert_string_equal(d->source, l->source);
	assert_int_equal(d->n_errors, l->n_errors);
	same_model(d->roce, q->roce);
	same_model(d->roce, l->roce);
	fab_snapshot_free(q);
	fab_snapshot_free(l);
	*direct_out = d;
}

/* A collected-looking file: the fixtures' RoCE fabric alone, two scans. */
static void write_file(const char *path, struct fab_roce *r, int64_t t)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_store *st;

	s->started_at_ms = t;
	s->finished_at_ms = t + 2000;
	s->status = FAB_SCAN_PARTIAL;
	s->host = fab_snapshot_strdup(s, "host1", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "lldp:/run/lldpd.socket", SIZE_MAX);
	s->roce = r;
	fab_snapshot_add_error(s, 0, -1, "lldp", "lldpd did not answer: %s", "a test");
	assert_int_equal(fab_store_open(path, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	fab_store_close(st);
	s->roce = NULL;
	fab_snapshot_free(s);
	/* a writer's -wal and -shm are gone once it closed the file */
	char p[700];
	snprintf(p, sizeof(p), "%s-wal", path);
	assert_int_equal(access(p, F_OK), -1);
}

static void test_fixture_fabric(void **state)
{
	struct fab_snapshot *fx = rf_base(0), *d;

	/* an older scan first: the latest is what is read */
	write_file(db, fx->roce, RF_T0 - 3600000);
	write_file(db, fx->roce, RF_T0);
	three_ways(db, &d);
	assert_int_equal(d->scan_id, 2);
	assert_int_equal(d->started_at_ms, RF_T0);
	assert_int_equal(d->n_errors, 1);
	assert_string_equal(d->errors[0].what, "lldp");
	same_model(d->roce, fx->roce);
	fab_snapshot_free(d);
	fab_snapshot_free(fx);
}

/* Interior pages in every table (2,000 systems), records over overflow
 * pages (a 3,000-byte description, 1,500-byte TLV, long port names). */
static void test_large(void **state)
{
	struct fab_roce *r = fab_roce_new();
	static uint8_t big[1500];
	char name[64], descr[3001];
	struct fab_snapshot *d;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	memset(descr, 'd', sizeof(descr) - 1);
	descr[sizeof(descr) - 1] = '\0';
	for (unsigned i = 0; i < 2000; i++) {
		struct fab_roce_system *s = fab_roce_add_system(r);
		snprintf(name, sizeof(name), "host%05u", i);
		s->name = fab_roce_strdup(r, name);
		s->chassis_id = fab_roce_strdup(r, name);
		s->description = i % 97 ? "a host" : descr;
		s->collected = true;
		s->collected_at_ms = RF_T0 + i;
		uint32_t si = (uint32_t)r->n_systems - 1;
		for (unsigned k = 0; k < 2; k++) {
			struct fab_eth_port *p = fab_roce_add_eth_port(r, si);
			snprintf(name, sizeof(name), "eth%u-%s", k, i % 13 ? "" : "a-long-interface-name");
			p->ifname = fab_roce_strdup(r, name);
			p->mtu = 9000;
			p->flags = FAB_ETH_F_LLDP | FAB_ETH_F_SYSFS;
			uint32_t pi = (uint32_t)r->n_eth_ports - 1, first = (uint32_t)r->n_tlvs;
			fab_roce_add_tlv(r, FAB_OUI_8021, FAB_8021_PFC, RF_PFC3, sizeof(RF_PFC3));
			if (i % 50 == 0)
				fab_roce_add_tlv(r, 0x00120f, 1, big, sizeof(big));
			r->eth_ports[pi].tlv_first = first;
			r->eth_ports[pi].tlv_count = (uint32_t)r->n_tlvs - first;
			struct fab_lldp_neighbor *n = fab_roce_add_neighbor(r, pi);
			snprintf(name, sizeof(name), "leaf%03u", i / 16);
			n->system_name = fab_roce_strdup(r, name);
			n->chassis_id = n->system_name;
			snprintf(name, sizeof(name), "swp%u", i % 16 * 2 + k + 1);
			n->port_id = fab_roce_strdup(r, name);
			n->port_id_subtype = "ifname";
		}
		struct fab_rdma_device *v = fab_roce_add_device(r, si);
		v->name = "mlx5_0";
		v->node_guid = 0x0002c90300e00000ull + i;
		struct fab_rdma_port *q = fab_roce_add_rdma_port(r, (uint32_t)r->n_devices - 1);
		q->port_num = 1;
		q->netdev = "eth0-";
		for (unsigned k = 0; k < 3; k++) {
			snprintf(name, sizeof(name), "counter_%u", k);
			fab_roce_add_counter(r, (uint32_t)r->n_rdma_ports - 1, k % FAB_RDMA_CTR__COUNT, name,
					     (uint64_t)i * 1000 + k + (k == 2 ? 0x8000000000000000ull : 0));
		}
	}
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		struct fab_dcbx dx;
		fab_roce_decode_tlvs(r, r->eth_ports[i].tlv_first, r->eth_ports[i].tlv_count, &dx);
		r->eth_ports[i].adv = dx;
	}
	assert_int_equal(fab_roce_resolve(r), 0);
	write_file(db, r, RF_T0);
	three_ways(db, &d);
	same_model(d->roce, r);
	fab_snapshot_free(d);
	fab_roce_free(r);
}

/* Damaged copies: cut short, or a byte changed here and there. Each read
 * ends in an error or in a model whose references stay inside it. */
static void consistent(const struct fab_snapshot *s)
{
	const struct fab_roce *r = s->roce;

	if (!r)
		return;
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		assert_true(r->eth_ports[i].system_idx < r->n_systems);
		assert_true(r->eth_ports[i].tlv_first + (uint64_t)r->eth_ports[i].tlv_count <= r->n_tlvs ||
			    !r->eth_ports[i].tlv_count);
	}
	for (size_t i = 0; i < r->n_neighbors; i++)
		assert_true(r->neighbors[i].port_idx < r->n_eth_ports);
	for (size_t i = 0; i < r->n_links; i++)
		assert_true(r->links[i].a < r->n_eth_ports && r->links[i].b < r->n_eth_ports);
	for (size_t i = 0; i < r->n_rdma_ports; i++)
		assert_true(r->rdma_ports[i].ctr_first + (uint64_t)r->rdma_ports[i].ctr_count <= r->n_counters ||
			    !r->rdma_ports[i].ctr_count);
}

static void test_damaged(void **state)
{
	struct fab_snapshot *fx = rf_base(0), *s;
	struct stat sb;
	FILE *f;

	write_file(db, fx->roce, RF_T0);
	assert_int_equal(stat(db, &sb), 0);
	size_t n = (size_t)sb.st_size;
	uint8_t *data = malloc(n);
	assert_non_null(f = fopen(db, "rb"));
	assert_int_equal(fread(data, 1, n, f), n);
	fclose(f);
	struct fab_store_reader *rd;
	assert_int_equal(fab_store_reader_new(&rd), 0);
	unsigned errors = 0, models = 0;
	for (size_t at = 0; at < n; at += 211) {
		for (int cut = 0; cut < 2; cut++) {
			assert_non_null(f = fopen(bad, "wb"));
			if (cut) {
				fwrite(data, 1, at, f);
			} else {
				uint8_t keep = data[at];
				data[at] ^= (uint8_t)(0x5a + at);
				fwrite(data, 1, n, f);
				data[at] = keep;
			}
			fclose(f);
			s = NULL;
			if (fab_store_read_input(rd, bad, &s, NULL)) {
				assert_non_null(strstr(fab_errmsg(), bad)); /* names the file */
				errors++;
			} else {
				consistent(s);
				models++;
			}
			fab_snapshot_free(s);
			fabfix_unlink_db(bad);
		}
	}
	fab_store_reader_free(rd);
	assert_true(errors > 0 && models > 0);
	free(data);
	fab_snapshot_free(fx);
}

/*
 * The file format reader on its own (store/dbfile.c), against SQLite reading
 * the same file: a WITHOUT ROWID table whose key is not its first columns
 * (the record holds the key first), a rowid table whose INTEGER PRIMARY KEY
 * is the rowid, a column added later with a DEFAULT (older records lack it),
 * every serial type (NULL, 0, 1, 8- to 64-bit integers, reals, text, blobs),
 * records over overflow pages in both kinds of b-tree, interior pages.
 */
struct cmp_ctx {
	sqlite3_stmt *q; /* the same rows, from SQLite, in key order */
	const struct fab_dbtable *t;
	int rows;
};

static int cmp_row(const struct fab_dbrec *rec, void *ctx)
{
	struct cmp_ctx *x = ctx;

	assert_int_equal(sqlite3_step(x->q), SQLITE_ROW);
	for (int c = 0; c < x->t->n_cols; c++) {
		struct fab_dbval v;
		assert_int_equal(fab_dbrec_get(rec, x->t, c, &v), 0);
		switch (sqlite3_column_type(x->q, c)) {
		case SQLITE_NULL:
			assert_int_equal(v.type, FAB_DBV_NULL);
			break;
		case SQLITE_INTEGER:
			assert_int_equal(v.type, FAB_DBV_INT);
			assert_int_equal(v.i, sqlite3_column_int64(x->q, c));
			break;
		case SQLITE_FLOAT: /* a REAL column keeps whole numbers as integers on disk */
			assert_true(v.type == FAB_DBV_FLOAT ? v.f == sqlite3_column_double(x->q, c)
				    : v.type == FAB_DBV_INT && (double)v.i == sqlite3_column_double(x->q, c));
			break;
		default: {
			const void *b = sqlite3_column_blob(x->q, c);
			assert_int_equal(v.type, sqlite3_column_type(x->q, c) == SQLITE_TEXT ? FAB_DBV_TEXT
											     : FAB_DBV_BLOB);
			assert_int_equal(v.len, sqlite3_column_bytes(x->q, c));
			assert_memory_equal(v.p, b, v.len);
		}
		}
	}
	x->rows++;
	return 0;
}

static void test_dbfile_layouts(void **state)
{
	sqlite3 *q;
	char big[5000], sql[256];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(sqlite3_open(db, &q), SQLITE_OK);
	assert_int_equal(sqlite3_exec(q,
		"PRAGMA page_size = 1024;"
		"CREATE TABLE k(a INTEGER NOT NULL, b TEXT, c BLOB NOT NULL, d REAL, PRIMARY KEY (c, a)) WITHOUT ROWID;"
		"CREATE TABLE r(id INTEGER PRIMARY KEY, x TEXT, y INTEGER);", NULL, NULL, NULL), SQLITE_OK);
	static const int64_t ints[] = { 0, 1, -1, 127, -128, 300, -40000, 8388607, -8388608, 2147483647,
					-2147483648LL, 140737488355327LL, INT64_MAX, INT64_MIN };
	sqlite3_stmt *k, *r;
	assert_int_equal(sqlite3_prepare_v2(q, "INSERT INTO k VALUES (?,?,?,?)", -1, &k, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(q, "INSERT INTO r(x, y) VALUES (?,?)", -1, &r, NULL), SQLITE_OK);
	sqlite3_exec(q, "BEGIN", NULL, NULL, NULL);
	for (int i = 0; i < 600; i++) {
		int64_t v = ints[i % (int)ARRAY_SIZE(ints)];
		unsigned char key[8] = { (unsigned char)(i >> 8), (unsigned char)i, 1, 2 };
		sqlite3_bind_int64(k, 1, v);
		if (i % 7)
			sqlite3_bind_text(k, 2, i % 41 ? "text" : big, -1, SQLITE_STATIC);
		sqlite3_bind_blob(k, 3, key, i % 5 ? 4 : 8, SQLITE_STATIC);
		if (i % 3)
			sqlite3_bind_double(k, 4, i * 0.25 - 3);
		assert_int_equal(sqlite3_step(k), SQLITE_DONE);
		sqlite3_reset(k);
		sqlite3_clear_bindings(k);
		sqlite3_bind_text(r, 1, i % 53 ? "r" : big, -1, SQLITE_STATIC);
		sqlite3_bind_int64(r, 2, v);
		assert_int_equal(sqlite3_step(r), SQLITE_DONE);
		sqlite3_reset(r);
	}
	sqlite3_exec(q, "COMMIT", NULL, NULL, NULL);
	sqlite3_finalize(k);
	sqlite3_finalize(r);
	/* a column added with a default: the records above do not have it */
	assert_int_equal(sqlite3_exec(q, "ALTER TABLE r ADD COLUMN z INTEGER NOT NULL DEFAULT 5;"
					 "INSERT INTO r(x, y, z) VALUES ('new', 1, 9);", NULL, NULL, NULL), SQLITE_OK);
	struct fab_dbfile *f = fab_dbfile_new();
	assert_non_null(f);
	assert_int_equal(fab_dbfile_load(f, db, NULL), 0);
	static const char *const order[][2] = { { "k", "c, a" }, { "r", "id" } };
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		struct fab_dbtable t;
		assert_int_equal(fab_dbfile_table(f, order[i][0], &t), 0);
		assert_int_equal(t.without_rowid, !i);
		snprintf(sql, sizeof(sql), "SELECT %s FROM %s ORDER BY %s",
			 i == 0 ? "a, b, c, d" : "id, x, y, z", order[i][0], order[i][1]);
		struct cmp_ctx x = { .t = &t };
		assert_int_equal(sqlite3_prepare_v2(q, sql, -1, &x.q, NULL), SQLITE_OK);
		assert_int_equal(fab_dbfile_scan(f, &t, cmp_row, &x), 0);
		assert_int_equal(sqlite3_step(x.q), SQLITE_DONE); /* no row left out */
		sqlite3_finalize(x.q);
		assert_int_equal(x.rows, i == 0 ? 600 : 601);
	}
	struct fab_dbtable t;
	assert_int_equal(fab_dbfile_table(f, "nothing", &t), -ENOENT);
	fab_dbfile_free(f);
	sqlite3_close(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dbfile_layouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixture_fabric, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
