// SPDX-License-Identifier: MIT
/*
 * fabsweep route, run as a user runs it: usage errors exit 2, --all-pairs
 * prints only the pairs that break and the counts, and exits 1 when one
 * breaks, 0 when none does. Each hop's line read back field by field
 * against the database: the port it leaves by and the one it reaches (the
 * cable), the switch's forwarding entry for the LID, the port's width,
 * speed and the error counters of its latest sample that are not 0; for
 * many pairs of hosts, by name, LID and GUID, in either scan (--scan), and
 * to another LID of a range (--lid-offset, --all-lids). (What the pipeline
 * finds: tests/unit/pipeline/test_route.c.)
 */
#include "unit/cli/runcli.h"
#include "unit/site_rules/sitefix.h"

static char db[512], hopdb[512];

static int setup(void **state)
{
	sf_path(db, sizeof(db), "cli_route.db");
	sf_make_db(db);
	/* leaf01 drops host08's LID (14) */
	sf_sql(db, "UPDATE lft_blocks SET ports = CAST(substr(ports, 1, 14) || X'FF' || substr(ports, 16) AS BLOB)"
		   " WHERE block_id = (SELECT tb.block_id FROM switch_tables t JOIN nodes n USING (scan_id, node_guid)"
		   " JOIN lft_table_blocks tb ON tb.table_id = t.table_id WHERE t.scan_id = 2"
		   " AND n.description = 'leaf01')");
	return 0;
}

static int teardown(void **state)
{
	sf_unlink_db(db);
	return 0;
}

static void test_usage(void **state)
{
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "--all-pairs needs --hosts LIST or --hostfile FILE"));
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "host[01-", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "host list 'host[01-'"));
	assert_int_equal(cli_run("route", "--db", db, "--hosts", "host01", "host01", "host02", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "go with --all-pairs"));
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "host01", "host02", NULL),
			 FAB_EXIT_USAGE);
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "a", "--hostfile", "f", NULL),
			 FAB_EXIT_USAGE);
	assert_string_equal(cli_out, "");
}

static void test_all_pairs(void **state)
{
	/* leaf01's and leaf02's hosts: every route arrives */
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "host[01-04]", NULL), FAB_EXIT_OK);
	assert_string_equal(cli_out, "all pairs of 4 hosts (4 ports), scan 2: 12 pairs checked, 0 broken, "
				     "0 not judged\n");
	/* with host08: host01 and host02 (on leaf01) cannot reach it */
	assert_int_equal(cli_run("route", "--db", db, "--all-pairs", "--hosts", "host[01-08],gone", NULL),
			 FAB_EXIT_FINDINGS);
	assert_string_equal(cli_out,
			    "gone: not in the scan: its pairs are not checked\n"
			    "host01 HCA-1/1 (LID 7) -> host08 HCA-1/1 (LID 14): broken: no_entry at leaf01/0\n"
			    "host02 HCA-1/1 (LID 8) -> host08 HCA-1/1 (LID 14): broken: no_entry at leaf01/0\n"
			    "all pairs of 9 hosts (8 ports), scan 2: 56 pairs checked, 2 broken, 0 not judged, "
			    "some hosts missing (above)\n");
	assert_string_equal(cli_err, "");
}

/* ---- each hop's fields against the database ----------------------------- */

/* hopdb, read-only, while a hop test runs */
static sqlite3 *hdb;

/* The first row of sql (printf-style) on hopdb as text, "" when there is no
 * row; NULL columns as "-". Columns are joined by single spaces. */
static void db_text(char *out, size_t len, const char *fmt, ...)
{
	char sql[1024];
	sqlite3_stmt *st;
	va_list ap;
	size_t off = 0;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	out[0] = '\0';
	if (sqlite3_prepare_v2(hdb, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(hdb));
	if (sqlite3_step(st) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const unsigned char *v = sqlite3_column_text(st, c);
			off += (size_t)snprintf(out + off, len - off, "%s%s", c ? " " : "", v ? (const char *)v : "-");
			assert_true(off < len);
		}
	sqlite3_finalize(st);
}

/* The port "node/num" of a route line as the SQL condition on a row of the
 * ports view joined to nodes n (node by description). */
#define PORT_IS "p.scan_id = %lld AND n.description = '%.*s' AND p.port_num = %s"

/* What route must print after the hop's names for port "node/num" of scan:
 * its width and speed, and the error counters of its latest sample that
 * are not 0 (the IBA's twelve, as perfquery lists them), else "no errors". */
static void db_facts(long long scan, const char *name, int node_len, const char *num, char *out,
		     size_t len)
{
	static const char *const errors[] = {
		"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
		"PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards",
		"PortXmitConstraintErrors", "PortRcvConstraintErrors", "LocalLinkIntegrityErrors",
		"ExcessiveBufferOverrunErrors", "VL15Dropped",
	};
	char sql[1024], row[512], sep[] = "  ";
	size_t off = 0, k = 0;

	off = (size_t)snprintf(sql, sizeof(sql), "SELECT p.width_active, p.speed_active");
	for (size_t i = 0; i < sizeof(errors) / sizeof(*errors); i++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", c.%s", errors[i]);
	snprintf(sql + off, sizeof(sql) - off, " FROM ports p JOIN nodes n USING (scan_id, node_guid)"
		 " LEFT JOIN port_counters c ON c.scan_id = p.scan_id AND c.node_guid = p.node_guid AND"
		 " c.port_num = p.port_num WHERE %s ORDER BY c.sample DESC LIMIT 1", PORT_IS);
	db_text(row, sizeof(row), sql, scan, node_len, name, num);
	assert_true(row[0]);
	/* "W S v1 v2 ... v12" */
	char *w = row, *sp = strchr(w, ' ');
	assert_non_null(sp);
	sp = strchr(sp + 1, ' ');
	assert_non_null(sp);
	off = (size_t)snprintf(out, len, "  %.*s", (int)(sp - w), w);
	for (char *v = sp + 1; v && *v; k++) {
		char *end = strchr(v, ' ');
		size_t vl = end ? (size_t)(end - v) : strlen(v);
		assert_true(k < sizeof(errors) / sizeof(*errors));
		if (!(vl == 1 && (*v == '0' || *v == '-'))) {
			off += (size_t)snprintf(out + off, len - off, "%s%s=%.*s", sep, errors[k], (int)vl, v);
			sep[1] = '\0';
		}
		v = end ? end + 1 : NULL;
	}
	if (sep[1])
		snprintf(out + off, len - off, "  no errors");
}

/* Splits "node/num" at its last '/'. */
static void port_parts(const char *s, size_t n, int *node_len, char *num, size_t num_len)
{
	const char *slash = NULL;

	for (const char *c = s; c < s + n; c++)
		if (*c == '/')
			slash = c;
	assert_non_null(slash);
	*node_len = (int)(slash - s);
	snprintf(num, num_len, "%.*s", (int)(n - (size_t)(slash - s) - 1), slash + 1);
}

/*
 * Every hop line of what route printed for one path, against scan's rows:
 * "%3u  FROM -> TO  W S  COUNTERS". FROM is where the previous hop arrived
 * (the source first) and, on a switch, the port its forwarding entry for
 * dlid names; TO is what FROM is cabled to; W S COUNTERS are db_facts of
 * FROM. Returns the number of hops; *last the last hop's TO.
 */
static unsigned hops_match_db(const char *text, long long scan, unsigned dlid, const char *src,
			      char *last, size_t last_len)
{
	char want[1024], got[1024], num[16], prev[1024];
	unsigned n = 0;

	snprintf(prev, sizeof(prev), "%s", src);
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *eol = strchr(line, '\n'), *arrow, *facts;
		unsigned idx;
		int node_len, used = 0;

		if (sscanf(line, "%3u  %n", &idx, &used) != 1 || !used || strncmp(line, "route", 5) == 0)
			continue;
		if (!eol)
			eol = line + strlen(line);
		assert_int_equal(idx, ++n);
		const char *from = line + used;
		assert_non_null(arrow = strstr(from, " -> "));
		assert_true(arrow < eol);
		const char *to = arrow + 4;
		assert_non_null(facts = strstr(to, "  "));
		/* FROM: where the route stands */
		port_parts(from, (size_t)(arrow - from), &node_len, num, sizeof(num));
		snprintf(got, sizeof(got), "%.*s", node_len, from);
		if (n > 1)
			assert_string_equal(got, prev);
		else
			assert_int_equal(strncmp(got, src, strlen(src)), 0);
		/* a switch sends dlid out of the port its table names */
		db_text(want, sizeof(want), "SELECT n.node_type FROM nodes n WHERE n.scan_id = %lld AND"
			" n.description = '%.*s'", scan, node_len, from);
		if (!strcmp(want, "switch")) {
			db_text(want, sizeof(want), "SELECT f.port FROM forwarding f JOIN nodes n USING"
				" (scan_id, node_guid) WHERE f.scan_id = %lld AND n.description = '%.*s' AND"
				" f.lid = %u", scan, node_len, from, dlid);
			assert_string_equal(num, want);
		}
		/* TO: what the port is cabled to */
		db_text(want, sizeof(want), "SELECT r.description || '/' || p.remote_port FROM ports p"
			" JOIN nodes n USING (scan_id, node_guid) JOIN nodes r ON r.scan_id = p.scan_id AND"
			" r.node_guid = p.remote_guid WHERE " PORT_IS, scan, node_len, from, num);
		snprintf(got, sizeof(got), "%.*s", (int)(facts - to), to);
		assert_string_equal(got, want);
		snprintf(prev, sizeof(prev), "%.*s", (int)(strrchr(got, '/') - got), got);
		snprintf(last, last_len, "%s", got);
		/* width, speed, counters */
		db_facts(scan, from, node_len, num, want, sizeof(want));
		snprintf(got, sizeof(got), "%.*s", (int)(eol - facts), facts);
		assert_string_equal(got, want);
	}
	return n;
}

/* host01's route to host07 (LID 13, odd: leaf01 port 8, spine02, leaf04
 * port 8) made to differ link by link: widths and speeds, error counters
 * on either end of a link, the latest sample's and the one before. */
static int setup_hops(void **state)
{
	sf_path(hopdb, sizeof(hopdb), "cli_route_hops.db");
	sf_make_db(hopdb);
#define PORT_OF(node, num) \
	"(node_guid = (SELECT node_guid FROM nodes WHERE scan_id = 2 AND description = '" node "')" \
	" AND port_num = " #num ")"
	/* every port but the route's: the latest sample's errors by node and
	 * port, the one before's not */
	sf_sql(hopdb, "UPDATE port_counters SET SymbolErrorCounter = sample * ((node_idx + port_num) % 3),"
		      " PortRcvRemotePhysicalErrors = (1 - sample) * 5 WHERE scan_id = 2 AND"
		      " (SELECT description FROM nodes n WHERE n.scan_id = 2 AND n.node_guid ="
		      " port_counters.node_guid) || '/' || port_num NOT IN ('host01 HCA-1/1', 'leaf01/1',"
		      " 'leaf01/8', 'spine02/1', 'spine02/4', 'leaf04/8', 'leaf04/1', 'host07 HCA-1/1')");
	sf_sql(hopdb, "UPDATE port_rows SET width_active = '8X', speed_active = 'NDR' WHERE scan_id = 2 AND ("
		      PORT_OF("leaf03", 7) " OR " PORT_OF("spine01", 3) ")");
	sf_sql(hopdb, "UPDATE port_rows SET width_active = '1X', speed_active = 'EDR' WHERE scan_id = 2 AND ("
		      PORT_OF("leaf01", 8) " OR " PORT_OF("spine02", 1) ")");
	sf_sql(hopdb, "UPDATE port_rows SET width_active = '2X', speed_active = 'FDR' WHERE scan_id = 2 AND ("
		      PORT_OF("spine02", 4) " OR " PORT_OF("leaf04", 8) ")");
	sf_sql(hopdb, "UPDATE port_rows SET speed_active = 'QDR' WHERE scan_id = 2 AND ("
		      PORT_OF("leaf04", 1) " OR " PORT_OF("host07 HCA-1", 1) ")");
	/* the latest sample (1) and the one before (0) */
	sf_sql(hopdb, "UPDATE port_counters SET SymbolErrorCounter = 1 + sample * 2 WHERE scan_id = 2 AND "
		      PORT_OF("host01 HCA-1", 1));
	sf_sql(hopdb, "UPDATE port_counters SET PortRcvErrors = 4 + sample, LinkDownedCounter = 2 * sample,"
		      " PortXmitDiscards = 9 * (1 - sample) WHERE scan_id = 2 AND " PORT_OF("leaf01", 8));
	sf_sql(hopdb, "UPDATE port_counters SET VL15Dropped = 7 WHERE scan_id = 2 AND " PORT_OF("spine02", 1));
	sf_sql(hopdb, "UPDATE port_counters SET PortXmitWait = 1000 * sample WHERE scan_id = 2 AND "
		      PORT_OF("spine02", 4));
	sf_sql(hopdb, "UPDATE port_counters SET ExcessiveBufferOverrunErrors = 1 WHERE scan_id = 2 AND "
		      PORT_OF("leaf04", 8));
	sf_sql(hopdb, "UPDATE port_counters SET LocalLinkIntegrityErrors = 2, PortXmitConstraintErrors = 1"
		      " WHERE scan_id = 2 AND sample = 1 AND " PORT_OF("leaf04", 1));
	/* host08 answers LIDs 14 and 15 (LMC 1); 15 is above the tables' LinearFDBTop */
	sf_sql(hopdb, "UPDATE port_rows SET lmc = 1 WHERE scan_id = 2 AND " PORT_OF("host08 HCA-1", 1));
#undef PORT_OF
	assert_int_equal(sqlite3_open_v2(hopdb, &hdb, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return 0;
}

static int teardown_hops(void **state)
{
	sqlite3_close(hdb);
	hdb = NULL;
	sf_unlink_db(hopdb);
	return 0;
}

/* The route above, as computed by hand from the rows set in setup_hops. */
static void test_hop_fields(void **state)
{
	char last[1024];

	assert_int_equal(cli_run("route", "--db", hopdb, "host01", "host07", NULL), FAB_EXIT_OK);
	assert_string_equal(cli_out,
			    "route from host01 HCA-1/1 to host07 HCA-1/1 (LID 13), scan 2\n"
			    "  1  host01 HCA-1/1 -> leaf01/1  4X HDR  SymbolErrorCounter=3\n"
			    "  2  leaf01/8 -> spine02/1  1X EDR  LinkDownedCounter=2 PortRcvErrors=5\n"
			    "  3  spine02/4 -> leaf04/8  2X FDR  no errors\n"
			    "  4  leaf04/1 -> host07 HCA-1/1  4X QDR  PortXmitConstraintErrors=1 "
			    "LocalLinkIntegrityErrors=2\n"
			    "arrives: 4 links\n");
	assert_string_equal(cli_err, "");
	/* the same against the rows */
	assert_int_equal(hops_match_db(cli_out, 2, 13, "host01 HCA-1", last, sizeof(last)), 4);
	assert_string_equal(last, "host07 HCA-1/1");
	/* scan 1 shares the tables, not the ports' rows and samples */
	assert_int_equal(cli_run("route", "--db", hopdb, "--scan", "1", "host01", "host07", NULL), FAB_EXIT_OK);
	assert_non_null(strstr(cli_out, "(LID 13), scan 1\n"));
	assert_non_null(strstr(cli_out, "  2  leaf01/8 -> spine02/1  4X HDR  no errors\n"));
	assert_int_equal(hops_match_db(cli_out, 1, 13, "host01 HCA-1", last, sizeof(last)), 4);
}

/* Each host to the hosts 1, 3 and 5 after it (host08 to host01, ...): on
 * its leaf and across the spines, each up-port, by description (the path's
 * views of the scan); to the host 3 after it by LIDs (views too) and by
 * port GUID (the whole scan); to the next one in scan 1: every hop as the
 * rows say. */
static void test_hops_many_pairs(void **state)
{
	char a[16], b[16], la[8], lb[8], guid[24], last[1024], want[64], src[16];

	for (unsigned i = 1; i <= 8; i++)
		for (unsigned d = 1; d <= 5; d += 2) {
			unsigned j = (i - 1 + d) % 8 + 1;
			snprintf(a, sizeof(a), "host%02u", i);
			snprintf(b, sizeof(b), "host%02u HCA-1", j);
			snprintf(la, sizeof(la), "%u", 6 + i);
			snprintf(lb, sizeof(lb), "%u", 6 + j);
			snprintf(guid, sizeof(guid), "0x0002c90300c1%04x", i);
			snprintf(src, sizeof(src), "host%02u HCA-1", i);
			snprintf(want, sizeof(want), "%s/1", b);
			const char *how[][3] = { { a, b, "2" }, { la, lb, "2" }, { guid, b, "2" }, { a, b, "1" } };
			for (size_t k = 0; k < 4; k++) {
				/* the pair's hops: 2 on one leaf, else 4 */
				unsigned hops = (i + 1) / 2 == (j + 1) / 2 ? 2 : 4;
				if ((k == 1 || k == 2) && d != 3)
					continue;
				if (k == 3 && d != 1)
					continue;
				assert_int_equal(cli_run("route", "--db", hopdb, "--scan", how[k][2], how[k][0],
							 how[k][1], NULL), FAB_EXIT_OK);
				assert_int_equal(hops_match_db(cli_out, *how[k][2] - '0', 6 + j, src, last,
							       sizeof(last)), hops);
				assert_string_equal(last, want);
			}
		}
}

/* Another LID of a range: --lid-offset 1 is host08's LID 15, above every
 * table's LinearFDBTop (14): it breaks at leaf01, while the base LID
 * arrives; --all-lids traces both. */
static void test_lid_offset(void **state)
{
	char last[1024];

	assert_int_equal(cli_run("route", "--db", hopdb, "--lid-offset", "1", "host01", "host08", NULL),
			 FAB_EXIT_FINDINGS);
	assert_string_equal(cli_out, "route from host01 HCA-1/1 to host08 HCA-1/1 (LID 15 = base 14 + 1), scan 2\n"
				     "  1  host01 HCA-1/1 -> leaf01/1  4X HDR  SymbolErrorCounter=3\n"
				     "broken: past_top at leaf01/0\n");
	assert_int_equal(cli_run("route", "--db", hopdb, "--lid-offset", "0", "host01", "host08", NULL),
			 FAB_EXIT_OK);
	assert_non_null(strstr(cli_out, " (LID 14), scan 2\n"));
	assert_int_equal(hops_match_db(cli_out, 2, 14, "host01 HCA-1", last, sizeof(last)), 4);
	assert_string_equal(last, "host08 HCA-1/1");
	assert_int_equal(cli_run("route", "--db", hopdb, "--lid-offset", "2", "host01", "host08", NULL),
			 FAB_EXIT_RUNTIME);
	assert_non_null(strstr(cli_err, "answers to 2 LIDs (14 to 15): --lid-offset 2 is past its range"));
	assert_int_equal(cli_run("route", "--db", hopdb, "--all-lids", "host01", "host08", NULL),
			 FAB_EXIT_FINDINGS);
	const char *second = strstr(cli_out, "route from host01 HCA-1/1 to host08 HCA-1/1 (LID 15 = base 14 + 1)");
	assert_non_null(second);
	const char *head = "route from host01 HCA-1/1 to host08 HCA-1/1 (LID 14), scan 2\n";
	assert_int_equal(strncmp(cli_out, head, strlen(head)), 0);
	assert_non_null(strstr(cli_out, "arrives: 4 links\nroute from"));
	assert_string_equal(second + strcspn(second, "\n") + 1,
			    "  1  host01 HCA-1/1 -> leaf01/1  4X HDR  SymbolErrorCounter=3\n"
			    "broken: past_top at leaf01/0\n");
	/* --all-lids LID 14's hops */
	char first[4096];
	snprintf(first, sizeof(first), "%.*s", (int)(second - cli_out), cli_out);
	assert_int_equal(hops_match_db(first, 2, 14, "host01 HCA-1", last, sizeof(last)), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_all_pairs),
	};
	/* they only read the database: one for them all */
	const struct CMUnitTest hop_tests[] = {
		cmocka_unit_test(test_hop_fields),
		cmocka_unit_test(test_hops_many_pairs),
		cmocka_unit_test(test_lid_offset),
	};
	int failed = cmocka_run_group_tests(tests, setup, teardown);

	return failed + cmocka_run_group_tests(hop_tests, setup_hops, teardown_hops);
}
