/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the site rule tests: a store holding the rule fixtures' base
 * fabric (tests/unit/rules/rulefix.h) as scans 1 and 2, SQL applied to it,
 * rule files in a temporary directory. Header-only, private to
 * tests/unit/site_rules; include after cmocka.h.
 */
#pragma once

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/store.h"
#include "unit/rules/rulefix.h"

/* A path under $TMPDIR unique to this process: "<tmp>/site_<pid>_<tag>". */
static inline void sf_path(char *buf, size_t len, const char *tag)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/site_%d_%s", tmp ? tmp : "/tmp", (int)getpid(), tag);
}

static inline void sf_unlink_db(const char *path)
{
	fabfix_unlink_db(path);
}

/* A store with the base fabric as scan 1 (an hour earlier) and scan 2. */
static inline void sf_make_db(const char *path)
{
	struct fab_store *st;

	sf_unlink_db(path);
	assert_int_equal(fab_store_open(path, FAB_STORE_WRITE, &st), 0);
	for (int i = 0; i < 2; i++) {
		struct fab_snapshot *s = rf_base(i == 0 ? -3600 * 1000LL : 0);
		assert_int_equal(fab_store_write_scan(st, s), 0);
		assert_int_equal(s->scan_id, i + 1);
		fab_snapshot_free(s);
	}
	fab_store_close(st);
}

static inline void sf_sql(const char *dbp, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(dbp, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
	sqlite3_close(db);
}

/* One integer from a query on the file (not through the sandbox). */
static inline long long sf_count(const char *dbp, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	long long v = -1;

	assert_int_equal(sqlite3_open_v2(dbp, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

static inline void sf_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static inline char *sf_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* A fresh empty directory; rm_dir removes it and the files in it. */
static inline void sf_mkdir(const char *dir)
{
	char cmd[1300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
}

static inline void sf_rmdir(const char *dir)
{
	char cmd[1300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A rule file "<dir>/<name>" with a valid header for id and the query. */
static inline void sf_rule(const char *dir, const char *name, const char *id,
			   const char *severity, const char *query)
{
	char path[1300], text[8192];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(text, sizeof(text),
		 "-- id: %s\n-- severity: %s\n-- title: Test rule %s\n"
		 "-- remediation: Nothing to do, it is a test.\n\n%s\n",
		 id, severity, id, query);
	sf_write(path, text);
}

/* The six columns, for queries written in tests. */
#define SF_COLS "node, port, peer_node, peer_port, subject, message"
