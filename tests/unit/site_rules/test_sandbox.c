// SPDX-License-Identifier: MIT
/*
 * The site rule sandbox (store/site_query.c): what a query may do (SELECT
 * over the public relations, harmless functions), what it may not (write,
 * attach, PRAGMA, load an extension, read internal tables or the schema),
 * its shape (one statement, six named columns, two parameters) and its
 * limits (time, length, memory), each refusal naming the rule's file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "fabsweep/error.h"
#include "fabsweep/store_site.h"
#include "unit/site_rules/sitefix.h"

static char dbp[1024];

static int setup(void **state)
{
	sf_path(dbp, sizeof(dbp), "sandbox.db");
	sf_make_db(dbp);
	return 0;
}

static int teardown(void **state)
{
	sf_unlink_db(dbp);
	return 0;
}

struct rows {
	size_t n;
	char first[FAB_SITE_COL__COUNT][128];
	bool null[FAB_SITE_COL__COUNT];
};

static int collect(void *ctx, const char *const *cols)
{
	struct rows *r = ctx;

	if (!r->n++)
		for (int i = 0; i < FAB_SITE_COL__COUNT; i++) {
			r->null[i] = !cols[i];
			snprintf(r->first[i], sizeof(r->first[i]), "%s", cols[i] ? cols[i] : "");
		}
	return 0;
}

/* The time limit of a query that must not be stopped by it: the longest a
 * site rule may ask for, so that a busy machine (and the sanitizers) cannot
 * turn a pass into -ETIME. Only the time-limit test itself uses 1 s. */
#define NO_HURRY 60

/* Runs sql on scan 2 with a time limit of seconds; *rows may be NULL. */
static int run(struct fab_site_db *db, const char *sql, double seconds, struct rows *rows)
{
	struct rows dummy;

	memset(rows ? rows : &dummy, 0, sizeof(dummy));
	return fab_site_db_query(db, "/etc/fabsweep/rules.d/t.sql", sql, seconds, 2, 0, collect,
				 rows ? rows : &dummy);
}

/* sql is refused with code, and a message naming the file and want. */
static void refused_in(struct fab_site_db *db, double seconds, const char *sql, int code,
		       const char *want)
{
	int err = run(db, sql, seconds, NULL);

	if (err != code)
		fail_msg("'%s': %d, not %d (%s)", sql, err, code, fab_errmsg());
	if (strncmp(fab_errmsg(), "site rule '/etc/fabsweep/rules.d/t.sql': ", 41) ||
	    !strstr(fab_errmsg(), want))
		fail_msg("'%s': message '%s' lacks '%s'", sql, fab_errmsg(), want);
}

static void refused(struct fab_site_db *db, const char *sql, int code, const char *want)
{
	refused_in(db, NO_HURRY, sql, code, want);
}

#define SEL(expr) "SELECT " expr " AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port, NULL AS subject, 'm' AS message"

/* The database's journal mode, read outside the sandbox. */
static void assert_journal_mode(const char *want)
{
	sqlite3 *db;
	sqlite3_stmt *s;

	assert_int_equal(sqlite3_open_v2(dbp, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0), want);
	sqlite3_finalize(s);
	sqlite3_close(db);
}

static void test_select(void **state)
{
	struct fab_site_db *db;
	struct rows r;

	assert_int_equal(fab_site_db_open(dbp, &db), 0);
	/* a view (ports) and what it reads, tables, joins, functions */
	assert_int_equal(run(db,
			     "SELECT p.node_guid AS node, p.port_num AS port, p.remote_guid AS peer_node,"
			     " p.remote_port AS peer_port, upper(n.description) AS subject,"
			     " printf('%s at %s', p.width_active, p.speed_active) AS message"
			     " FROM ports p JOIN nodes n USING (scan_id, node_guid)"
			     " WHERE p.scan_id = :scan_id AND p.state = 'active' ORDER BY p.node_guid, p.port_num",
			     1, &r), 0);
	assert_int_equal(r.n, 32); /* 16 links, both ends */
	assert_string_equal(r.first[0], "0x0002c90300a00001");
	assert_string_equal(r.first[1], "1");
	assert_string_equal(r.first[2], "0x0002c90300b00001");
	assert_string_equal(r.first[3], "7");
	assert_string_equal(r.first[4], "SPINE01");
	assert_string_equal(r.first[5], "4X at HDR");
	/* every public relation, and :baseline_id bound to NULL */
	static const char *const rel[] = { "scans", "nodes", "ports", "mgmt_ports", "links", "counters",
					   "sms", "scan_errors", "findings", "baselines", "systems",
					   "eth_ports", "lldp_neighbors", "eth_links", "lldp_tlvs",
					   "rdma_devices", "rdma_ports", "rdma_counters", "roce_votes",
					   "switch_tables", "forwarding", "mcast_groups", "mcast_members",
					   "mcast_switch_tables", "mcast_forwarding" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char sql[512];
		snprintf(sql, sizeof(sql), SEL("count(*)") " FROM %s WHERE scan_id = :scan_id OR :baseline_id IS NOT NULL", rel[i]);
		if (run(db, sql, NO_HURRY, &r))
			fail_msg("%s: %s", rel[i], fab_errmsg());
		assert_int_equal(r.n, 1);
	}
	/* the values of a port's counters row through the view (json_each inside it) */
	assert_int_equal(run(db, SEL("counter || '=' || value") " FROM rdma_counters WHERE scan_id = :scan_id"
				 " AND counter = 'np_cnp_sent' ORDER BY system", NO_HURRY, &r), 0);
	assert_true(r.n > 0);
	assert_non_null(strstr(r.first[0], "np_cnp_sent="));
	assert_int_equal(run(db, SEL("owner || ' ' || subtype || ' ' || hex(info)") " FROM lldp_tlvs"
				 " WHERE scan_id = :scan_id AND subtype = 11 ORDER BY system", NO_HURRY, &r), 0);
	assert_true(r.n > 0);
	/* mcast_members reads the ports of the scan's topology through its view */
	assert_int_equal(run(db, SEL("count(*)") " FROM mcast_members m JOIN mcast_groups g"
				 " USING (scan_id, mgid) WHERE m.scan_id = :scan_id AND m.node_guid IS NOT NULL"
				 " AND g.partition = 32767", NO_HURRY, &r), 0);
	assert_string_equal(r.first[0], "8");
	assert_int_equal(run(db, SEL("count(*)") " FROM counters WHERE scan_id = :scan_id", NO_HURRY, &r), 0);
	assert_string_equal(r.first[0], "1344"); /* 32 ports x 21 counters x 2 samples */
	assert_int_equal(run(db, SEL(":baseline_id"), NO_HURRY, &r), 0);
	assert_true(r.null[0]);
	memset(&r, 0, sizeof(r));
	assert_int_equal(fab_site_db_query(db, "t.sql", SEL(":baseline_id || '/' || :scan_id"), NO_HURRY, 7, 1,
					   collect, &r), 0);
	assert_string_equal(r.first[0], "1/7");
	/* CTEs (recursive too), window functions, dates, a harmless mix */
	assert_int_equal(run(db,
			     "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5)"
			     " SELECT group_concat(x, ',') AS node, sum(x) AS port, max(x) AS peer_node,"
			     " date('2026-03-01', '+1 day') AS peer_port, typeof(1.5) AS subject,"
			     " coalesce(NULL, hex('A')) || iif(1, 'y', 'n') AS message FROM n",
			     1, &r), 0);
	assert_string_equal(r.first[0], "1,2,3,4,5");
	assert_string_equal(r.first[1], "15");
	assert_string_equal(r.first[3], "2026-03-02");
	assert_string_equal(r.first[4], "real");
	assert_string_equal(r.first[5], "41y");
	assert_int_equal(run(db,
			     "SELECT node_guid AS node, row_number() OVER (ORDER BY node_guid) AS port,"
			     " lag(node_guid) OVER (ORDER BY node_guid) AS peer_node, NULL AS peer_port,"
			     " NULL AS subject, 'm' AS message FROM nodes WHERE scan_id = :scan_id"
			     " AND description LIKE 'spine%' AND node_guid GLOB '0x*'",
			     1, &r), 0);
	assert_int_equal(r.n, 2);
	/* a CTE named after a view still reads only that view's table */
	assert_int_equal(run(db, "WITH ports AS (SELECT * FROM port_rows) " SEL("count(port_num)") " FROM ports", NO_HURRY, &r), 0);
	assert_string_equal(r.first[0], "124"); /* 6 switches x 9 ports + 8 host ports, 2 scans */
	fab_site_db_close(db);
}

static void test_refused(void **state)
{
	struct fab_site_db *db;

	assert_int_equal(fab_site_db_open(dbp, &db), 0);
	/* writes of any kind */
	refused(db, "INSERT INTO baselines(scan_id, name) VALUES (2, 'x')",
		-EPERM, "refused: it writes (INSERT into 'baselines'); a site rule only reads");
	refused(db, "UPDATE baselines SET name = 'x'", -EPERM, "refused: it writes (UPDATE of 'baselines')");
	/* findings is a view (held findings stored once: docs/watch.md) */
	refused(db, "UPDATE findings SET message = 'x'", -EINVAL, "cannot modify findings");
	refused(db, "DELETE FROM scans", -EPERM, "refused: it writes (DELETE from 'scans')");
	refused(db, "CREATE TABLE t(x)", -EPERM, "refused: it changes the schema");
	refused(db, "CREATE TEMP TABLE t(x)", -EPERM, "refused: it changes the schema");
	refused(db, "CREATE TEMP VIEW v AS SELECT 1", -EPERM, "refused: it changes the schema");
	refused(db, "DROP TABLE scans", -EPERM, "refused: it changes the schema");
	refused(db, "DROP VIEW ports", -EPERM, "refused: it changes the schema");
	refused(db, "ALTER TABLE scans ADD COLUMN x", -EPERM, "refused:");
	refused(db, "CREATE INDEX i ON scans(label)", -EPERM, "refused: it changes the schema");
	refused(db, "REPLACE INTO baselines VALUES (1, 'x', 'y')", -EPERM, "refused: it writes (INSERT into 'baselines')");
	refused(db, "WITH x AS (SELECT 1) DELETE FROM scans", -EPERM, "refused: it writes (DELETE from 'scans')");
	refused(db, "VACUUM", -EPERM, "refused:");
	refused(db, "VACUUM INTO '/tmp/copy.db'", -EPERM, "refused:");
	refused(db, "ANALYZE", -EPERM, "refused:");
	refused(db, "REINDEX", -EPERM, "refused:");
	refused(db, "BEGIN", -EPERM, "refused: it controls transactions");
	refused(db, "SAVEPOINT a", -EPERM, "refused: it controls transactions");
	/* other databases and files */
	refused(db, "ATTACH '/tmp/other.db' AS o", -EPERM, "refused: it attaches or detaches a database");
	refused(db, "DETACH main", -EPERM, "refused: it attaches or detaches");
	/* PRAGMA in every form */
	refused(db, "PRAGMA journal_mode = DELETE", -EPERM, "refused: it runs PRAGMA journal_mode");
	refused(db, "PRAGMA user_version", -EPERM, "refused: it runs PRAGMA user_version");
	refused(db, "PRAGMA query_only = 0", -EPERM, "refused: it runs PRAGMA query_only");
	refused(db, SEL("name") " FROM pragma_table_info('scans')", -EPERM,
		"refused: it uses a table-valued function or virtual table");
	/* rdma_counters reads json_each; a query of one's own does not, even
	 * when it names itself so (the authorizer cannot tell a CTE from a view) */
	refused(db, "WITH rdma_counters AS (SELECT value FROM json_each('[1]')) " SEL("value")
		" FROM rdma_counters", -EPERM, "refused: it uses a table-valued function or virtual table");
	refused(db, "WITH rdma_counters AS (SELECT name FROM pragma_table_info('scans')) " SEL("name")
		" FROM rdma_counters", -EPERM, "refused:");
	refused(db, SEL("value") " FROM json_each('[1]')", -EPERM,
		"refused: it uses a table-valued function or virtual table");
	/* extensions and functions that are not harmless */
	refused(db, SEL("load_extension('/tmp/evil.so')"), -EPERM,
		"refused: it calls load_extension(), which site rules may not use");
	refused(db, SEL("LOAD_EXTENSION('/tmp/evil.so')"), -EPERM, "it calls load_extension()");
	refused(db, SEL("random()"), -EPERM, "refused: it calls random()");
	refused(db, SEL("randomblob(10)"), -EPERM, "it calls randomblob()");
	refused(db, SEL("zeroblob(10)"), -EPERM, "it calls zeroblob()");
	refused(db, SEL("sqlite_version()"), -EPERM, "it calls sqlite_version()");
	refused(db, SEL("changes()"), -EPERM, "it calls changes()");
	refused(db, SEL("readfile('/etc/shadow')"), -EINVAL, "no such function: readfile");
	refused(db, SEL("count(*)") " FROM json_each('[1,2]')", -EPERM, "table-valued function");
	refused(db, SEL("count(*)") " FROM dbstat", -EPERM, "table-valued function or virtual table");
	refused(db, SEL("count(*)") " FROM sqlite_stmt", -EPERM, "table-valued function or virtual table");
	refused(db, SEL("count(*)") " FROM pragma_database_list", -EPERM, "table-valued function or virtual table");
	refused(db, "CREATE VIRTUAL TABLE t USING fts5(x)", -EPERM, "refused:");
	/* the schema and the tables behind the views */
	refused(db, SEL("sql") " FROM sqlite_master", -EPERM,
		"refused: it reads 'sqlite_master', which is not a relation of the public SQL interface (docs/schema.md)");
	refused(db, SEL("sql") " FROM sqlite_schema", -EPERM, "it reads 'sqlite_master'");
	refused(db, SEL("count(*)") " FROM sqlite_temp_master", -EPERM, "it reads 'sqlite_temp_master'");
	refused(db, SEL("count(*)") " FROM port_rows", -EPERM, "it reads 'port_rows'");
	refused(db, SEL("count(*)") " FROM port_counters", -EPERM, "it reads 'port_counters'");
	refused(db, SEL("count(*)") " FROM eth_port_rows", -EPERM, "it reads 'eth_port_rows'");
	refused(db, SEL("count(*)") " FROM mcast_member_rows", -EPERM, "it reads 'mcast_member_rows'");
	refused(db, SEL("mgid") " FROM mcast_group_rows", -EPERM, "it reads 'mcast_group_rows'");
	refused(db, SEL("port") " FROM mft_table_entries", -EPERM, "it reads 'mft_table_entries'");
	refused(db, "WITH ports AS (SELECT * FROM port_counters) " SEL("count(*)") " FROM ports",
		-EPERM, "it reads 'port_counters'");
	refused(db, SEL("count(*)") " FROM main.port_rows", -EPERM, "it reads 'port_rows'");
	refused(db, SEL("count(*)") " FROM sqlite_dbpage", -EINVAL, "no such table");

	/* the database is as it was */
	fab_site_db_close(db);
	assert_int_equal(sf_count(dbp, "SELECT count(*) FROM scans"), 2);
	assert_int_equal(sf_count(dbp, "SELECT count(*) FROM findings"), 0);
	assert_journal_mode("wal"); /* 'PRAGMA journal_mode = DELETE' was refused */
	assert_int_equal(sf_count(dbp, "SELECT count(*) FROM sqlite_master WHERE name IN ('t', 'v', 'i')"), 0);
}

static void test_shape(void **state)
{
	struct fab_site_db *db;

	assert_int_equal(fab_site_db_open(dbp, &db), 0);
	refused(db, SEL("1") "; " SEL("2"), -EINVAL,
		"holds more than one statement; a site rule is exactly one SELECT");
	refused(db, SEL("1") "; DELETE FROM scans", -EINVAL, "holds more than one statement");
	refused(db, "-- only a comment\n/* and another */ ;", -EINVAL, "holds no SQL statement");
	refused(db, "", -EINVAL, "holds no SQL statement");
	refused(db, "SELECT 1 AS node", -EINVAL, "returns 1 column; a site rule returns node, port, peer_node, peer_port, subject, message (in this order)");
	refused(db, "SELECT 1 AS node, 2 AS port, 3 AS peer, 4 AS peer_port, 5 AS subject, 6 AS message",
		-EINVAL, "result column 3 is 'peer', not 'peer_node'");
	refused(db, "SELECT 1 AS port, 2 AS node, 3 AS peer_node, 4 AS peer_port, 5 AS subject, 6 AS message",
		-EINVAL, "result column 1 is 'port', not 'node'");
	refused(db, "SELECT 1, 2, 3, 4, 5, 6", -EINVAL, "result column 1 is '1', not 'node'");
	refused(db, SEL("1") " FROM scans WHERE scan_id = :scan", -EINVAL,
		"uses the parameter ':scan'; only :scan_id and :baseline_id are bound");
	refused(db, SEL("1") " FROM scans WHERE scan_id = ?", -EINVAL, "uses the parameter '?'");
	refused(db, SEL("1") " FROM scans WHERE scan_id = $scan_id", -EINVAL, "uses the parameter '$scan_id'");
	refused(db, "SELEC 1", -EINVAL, "does not compile: near \"SELEC\": syntax error");
	refused(db, SEL("nope") " FROM scans", -EINVAL, "does not compile: no such column: nope");
	refused(db, SEL("1") " FROM nope", -EINVAL, "does not compile: no such table: nope");
	refused(db, "EXPLAIN " SEL("1"), -EINVAL, "returns 8 columns");
	/* allowed around the one statement: comments, semicolons, blank lines */
	assert_int_equal(run(db, "-- a comment\n" SEL("1") ";\n;\n/* done */\n-- really\n", NO_HURRY, NULL), 0);
	fab_site_db_close(db);
}

static void test_limits(void **state)
{
	struct fab_site_db *db;
	struct rows r;
	sqlite3_int64 hard = sqlite3_hard_heap_limit64(-1);
	sqlite3_int64 soft = sqlite3_soft_heap_limit64(-1);

	assert_int_equal(fab_site_db_open(dbp, &db), 0);
	/* a recursive CTE that never ends: the time limit stops it */
	refused_in(db, 1, "WITH RECURSIVE f(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM f) " SEL("max(x)") " FROM f",
		-ETIME, "stopped after 1 s, its time limit; make the query cheaper, or raise '-- time-limit:' (at most 60 s)");
	/* a string longer than a query may build */
	refused(db, SEL("length(printf('%.*c', 60000, 'x') || printf('%.*c', 60000, 'y'))"), -E2BIG,
		"stopped: it builds a string or blob longer than 100000 bytes");
	refused(db, "WITH RECURSIVE f(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM f WHERE x < 20000) "
		    SEL("length(group_concat(printf('%.*c', 100, 'x')))") " FROM f",
		-E2BIG, "longer than 100000 bytes");
	refused(db, SEL("'a' LIKE printf('%.*c', 1001, '%')"), -EINVAL, "LIKE or GLOB pattern too complex");
	assert_int_equal(run(db, SEL("'a' LIKE printf('%.*c', 1000, '%')"), NO_HURRY, NULL), 0);
	/* memory: 3,000 rows of 99 kB held for sorting is more than the budget */
	refused_in(db, 60, "WITH RECURSIVE f(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM f WHERE x < 3000),"
		    " big(s) AS (SELECT replace(printf('%.*c', 990, 'x'), 'x', printf('%.*c', 100, 'y')))"
		    " SELECT s || x AS node, x AS port, NULL AS peer_node, NULL AS peer_port,"
		    " NULL AS subject, 'm' AS message FROM f, big ORDER BY x DESC",
		-ENOMEM, "stopped: it needs more than 256 MiB of memory");
	/* the process-wide heap limits are restored */
	assert_true(sqlite3_hard_heap_limit64(-1) == hard);
	assert_true(sqlite3_soft_heap_limit64(-1) == soft);
	/* and the connection still works */
	assert_int_equal(run(db, SEL("count(*)") " FROM nodes WHERE scan_id = :scan_id", NO_HURRY, &r), 0);
	assert_string_equal(r.first[0], "14");
	fab_site_db_close(db);
}

static int stop_at_3(void *ctx, const char *const *cols)
{
	return ++*(int *)ctx == 3 ? 42 : 0;
}

static void test_callback_and_schema_only(void **state)
{
	struct fab_site_db *db;
	int n = 0;

	assert_int_equal(fab_site_db_open(dbp, &db), 0);
	assert_int_equal(fab_site_db_query(db, "t.sql", SEL("node_guid") " FROM nodes", NO_HURRY, 2, 0,
					   stop_at_3, &n), 42);
	assert_int_equal(n, 3);
	fab_site_db_close(db);

	/* no database: compiles against the current schema, runs nothing */
	assert_int_equal(fab_site_db_open(NULL, &db), 0);
	assert_int_equal(fab_site_db_query(db, "t.sql", SEL("node_guid") " FROM nodes WHERE scan_id = :scan_id",
					   NO_HURRY, 0, 0, NULL, NULL), 0);
	assert_int_equal(fab_site_db_query(db, "t.sql", "DELETE FROM baselines", NO_HURRY, 0, 0, NULL, NULL), -EPERM);
	assert_int_equal(fab_site_db_query(db, "t.sql", SEL("1") " FROM port_rows", NO_HURRY, 0, 0, NULL, NULL), -EPERM);
	assert_int_equal(fab_site_db_query(db, "t.sql", SEL("x") " FROM nodes", NO_HURRY, 0, 0, NULL, NULL), -EINVAL);
	fab_site_db_close(db);

	/* a file that is not a fabsweep database */
	char other[1024];
	sf_path(other, sizeof(other), "other.db");
	sf_unlink_db(other);
	sf_sql(other, "CREATE TABLE x(y)");
	assert_int_equal(fab_site_db_open(other, &db), -EPROTO);
	assert_non_null(strstr(fab_errmsg(), "is not a fabsweep database"));
	sf_unlink_db(other);
	assert_true(fab_site_db_open("/nonexistent/x.db", &db) < 0);
	fab_site_db_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_callback_and_schema_only),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
