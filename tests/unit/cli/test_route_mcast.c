// SPDX-License-Identifier: MIT
/*
 * fabsweep route --mcast, run as a user runs it, on the rules' base fabric
 * (its IPoIB broadcast group: every host, the tree rooted at spine01;
 * fixtures/rules/README.md): each line of the tree read back against the
 * database (the switch's entry in mcast_forwarding, what the port is cabled
 * to in links), each member's line against mcast_members; by MGID and by
 * MLID (hex and decimal) alike; a member cut off by its leaf's entry and a
 * looping entry (as the rule fixtures make them) exit 1 and are named;
 * usage errors exit 2, a group the scan lacks exits 3.
 */
#include "unit/cli/runcli.h"
#include "unit/site_rules/sitefix.h"
#include "fabfix/fabfix_db.h"

#define BC "ff12:401b:ffff::ffff:ffff"

static char db[512];

static int setup(void **state)
{
	(void)state;
	sf_path(db, sizeof(db), "cli_route_mcast.db");
	sf_make_db(db);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sf_unlink_db(db);
	return 0;
}

static int64_t count(const char *fmt, ...)
{
	char sql[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	return fabfix_db_count(db, sql);
}

/* A leaf's or spine's table as a tree line says it: "leaf01: 1 -> host01 HCA-1/1, ..." */
static void tree_line_matches_db(const char *line)
{
	char sw[64];
	const char *p = strchr(line, ':');

	assert_non_null(p);
	snprintf(sw, sizeof(sw), "%.*s", (int)(p - line - 2), line + 2);
	p++;
	size_t n = 0;
	while (*p == ' ') {
		unsigned port, far_port;
		char far[64];
		int used = 0;
		assert_int_equal(sscanf(p, " %u -> %63[^/]/%u%n", &port, far, &far_port, &used), 3);
		p += used;
		if (*p == ',')
			p++;
		n++;
		/* the switch's entry names the port, and the port is cabled to far/far_port */
		assert_int_equal(count("SELECT count(*) FROM mcast_forwarding f JOIN nodes n USING (scan_id, node_guid)"
				       " WHERE f.scan_id = 2 AND n.description = '%s' AND f.mlid = 49152 AND f.port = %u",
				       sw, port), 1);
		assert_int_equal(count("SELECT count(*) FROM ports p JOIN nodes a USING (scan_id, node_guid)"
				       " JOIN nodes b ON b.scan_id = p.scan_id AND b.node_guid = p.remote_guid"
				       " WHERE p.scan_id = 2 AND a.description = '%s' AND p.port_num = %u"
				       " AND b.description = '%s' AND p.remote_port = %u", sw, port, far, far_port), 1);
	}
	assert_int_equal(count("SELECT count(*) FROM mcast_forwarding f JOIN nodes n USING (scan_id, node_guid)"
			       " WHERE f.scan_id = 2 AND n.description = '%s' AND f.mlid = 49152", sw), (int64_t)n);
}

/* The line at *p (its newline cut), *p moved past it; NULL at the end. */
static char *next_line(char **p)
{
	char *l = *p, *nl;

	if (!l || !*l)
		return NULL;
	nl = strchr(l, '\n');
	if (nl)
		*nl = 0;
	*p = nl ? nl + 1 : l + strlen(l);
	return l;
}

static void test_healthy(void **state)
{
	static char first[sizeof(cli_out)];

	(void)state;
	assert_int_equal(cli_run("route", "--db", db, "--mcast", BC, NULL), FAB_EXIT_OK);
	memcpy(first, cli_out, sizeof(first));
	char *next = first, *line = next_line(&next);
	assert_string_equal(line, "multicast group " BC " (MLID 0xc000), scan 2: P_Key 0xffff, MTU 2048, "
			    "rate 10 Gb/s, SL 0, 8 members");
	line = next_line(&next);
	assert_string_equal(line, "tree: 5 switches");
	size_t trees = 0, members = 0;
	while ((line = next_line(&next)) && strcmp(line, "members:")) {
		tree_line_matches_db(line);
		trees++;
	}
	assert_int_equal(trees, count("SELECT count(DISTINCT node_guid) FROM mcast_forwarding WHERE scan_id = 2"));
	while ((line = next_line(&next)) && !strncmp(line, "  ", 2)) {
		char host[64], sw[64];
		unsigned port;
		assert_int_equal(sscanf(line, "  %63[^/]/1 (full) on %63[^/]/%u: reached by every other member",
					host, sw, &port), 3);
		assert_int_equal(count("SELECT count(*) FROM mcast_members m JOIN nodes n USING (scan_id, node_guid)"
				       " JOIN ports p ON p.scan_id = m.scan_id AND p.node_guid = m.node_guid"
				       " AND p.port_num = m.port_num JOIN nodes s ON s.scan_id = p.scan_id"
				       " AND s.node_guid = p.remote_guid WHERE m.scan_id = 2 AND n.description = '%s'"
				       " AND m.join_state = 'full' AND s.description = '%s' AND p.remote_port = %u",
				       host, sw, port), 1);
		members++;
	}
	assert_int_equal(members, 8);
	assert_string_equal(line, "every member is reached; no loop");
	/* by MLID, hex or decimal, and in the older scan: the same */
	assert_int_equal(cli_run("route", "--db", db, "--mcast", "0xc000", NULL), FAB_EXIT_OK);
	memcpy(first, cli_out, sizeof(first));
	assert_int_equal(cli_run("route", "--db", db, "--mcast", "49152", NULL), FAB_EXIT_OK);
	assert_string_equal(cli_out, first);
	assert_int_equal(cli_run("route", "--db", db, "--scan", "1", "--mcast", BC, NULL), FAB_EXIT_OK);
	assert_non_null(strstr(cli_out, "(MLID 0xc000), scan 1:"));
	assert_string_equal(cli_err, "");
}

static void test_broken(void **state)
{
	(void)state;
	/* leaf02's entry loses port 1 (host03), as fixtures/rules/mcast.unreached_member/fires.sql */
	sf_sql(db, "INSERT INTO mft_tables(content) SELECT CAST(substr(content, 1, 4) || X'84' ||"
		   " substr(content, 6) AS BLOB) FROM mft_tables WHERE table_id = (SELECT table_id FROM"
		   " mft_set_switches WHERE node_guid = '0x0002c90300b00002');"
		   "UPDATE mft_set_switches SET table_id = last_insert_rowid() WHERE node_guid = '0x0002c90300b00002'");
	assert_int_equal(cli_run("route", "--db", db, "--mcast", BC, NULL), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(cli_out, "\n  leaf02: 2 -> host04 HCA-1/1, 7 -> spine01/2\n"));
	assert_non_null(strstr(cli_out, "\n  host03 HCA-1/1 (full) on leaf02/1: NOT reached by 7 other members "
				       "(the switch's entry lacks its port)\n"));
	assert_non_null(strstr(cli_out, "\nsome members are not reached; no loop\n"));
	/* and a loop: leaf01 also to spine02 (port 8), spine02 to leaf01 and leaf02 */
	sf_sql(db, "INSERT INTO mft_tables(content) SELECT CAST(substr(content, 1, 4) || X'8601' ||"
		   " substr(content, 7) AS BLOB) FROM mft_tables WHERE table_id = (SELECT table_id FROM"
		   " mft_set_switches WHERE node_guid = '0x0002c90300b00001');"
		   "UPDATE mft_set_switches SET table_id = last_insert_rowid() WHERE node_guid = '0x0002c90300b00001';"
		   "INSERT INTO mft_tables(content) SELECT CAST(substr(content, 1, 4) || X'06' ||"
		   " substr(content, 6) AS BLOB) FROM mft_tables WHERE table_id = (SELECT table_id FROM"
		   " mft_set_switches WHERE node_guid = '0x0002c90300a00002');"
		   "UPDATE mft_set_switches SET table_id = last_insert_rowid() WHERE node_guid = '0x0002c90300a00002'");
	assert_int_equal(cli_run("route", "--db", db, "--mcast", BC, NULL), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(cli_out, "\nloop: spine01/1 -> leaf01/8 -> spine02/2 -> leaf02/7 -> back to spine01/1\n"));
	assert_non_null(strstr(cli_out, "the tables loop"));
}

static void test_usage(void **state)
{
	(void)state;
	assert_int_equal(cli_run("route", "--db", db, "--mcast", "ff12::zz", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "'ff12::zz' is neither an MGID"));
	assert_int_equal(cli_run("route", "--db", db, "--mcast", "0xbfff", NULL), FAB_EXIT_USAGE);
	assert_int_equal(cli_run("route", "--db", db, "--mcast", BC, "--all-pairs", NULL), FAB_EXIT_USAGE);
	assert_int_equal(cli_run("route", "--db", db, "--mcast", BC, "host01", NULL), FAB_EXIT_USAGE);
	assert_string_equal(cli_out, "");
	assert_int_equal(cli_run("route", "--db", db, "--mcast", "ff12::1", NULL), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(cli_err, "scan 2 has no multicast group ff12::1"));
	assert_int_equal(cli_run("route", "--db", db, "--mcast", "0xc005", NULL), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(cli_err, "no multicast group with MLID 0xc005, and no table names it"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_healthy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
