// SPDX-License-Identifier: MIT
/*
 * Schema 17's physical layer (store/phys_io.c): a port's NIC counters one
 * row per run with a shared counter set, an Ethernet module's lanes a JSON
 * array in its row. Hosts fed through fabsweep's own readers from the real
 * fixtures (`ethtool -S` of a ConnectX-4 Lx and a bnxt_en, a QSFP28 dump,
 * the `ethtool -m` text of a 40G SR4 with dark lanes) are written; the
 * public views give the fixtures' numbers (each counter's value by its
 * source's statistic in the fixture text, each lane's power and bias as
 * `ethtool -m` printed them, decibels as 10 log10 of the milliwatts); the
 * model loads back as it was, read with SQLite and straight from the file.
 * The same scan stored in schema 16's long form (one row per counter and
 * per lane) gives the same view rows, is read straight from the file as a
 * schema-16 host file, migrates, and loads as the same model; INSERT,
 * UPDATE and DELETE through nic_counters still change exactly the rows
 * named. A module row in the long form among rows naming descriptions
 * loads whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabfix/fabfix.h"
#include "fabfix/fabfix_db.h"
#include "fabsweep/counter.h"
#include "fabsweep/ethtool.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "unit/modfix.h"
#include "unit/store/roce_same.h"
#include "unit/store/schema_undo.h"

/* The modules view's columns after its scan_id as schema step 12 -> 13 made
 * them (store/schema.sql.h MODULE_COLS): to undo step 16 -> 17. */
/* module_descs' columns after desc_id (store/schema.sql.h, step 16 -> 17) */
#define DESC_COLS \
	"spec, identifier, type, vendor, part_number, revision, date_code, media, length_m," \
	" media_lanes, temp_hi_alarm, temp_lo_alarm, temp_hi_warn, temp_lo_warn, vcc_hi_alarm," \
	" vcc_lo_alarm, vcc_hi_warn, vcc_lo_warn, bias_hi_alarm_ma, bias_lo_alarm_ma," \
	" bias_hi_warn_ma, bias_lo_warn_ma, tx_power_hi_alarm_dbm, tx_power_lo_alarm_dbm," \
	" tx_power_hi_warn_dbm, tx_power_lo_warn_dbm, rx_power_hi_alarm_dbm," \
	" rx_power_lo_alarm_dbm, rx_power_hi_warn_dbm, rx_power_lo_warn_dbm"

#define T0 1700000000000LL /* 2023-11-14T22:13:20.000Z */

static char dbpath[600], journal[700];

static int setup(void **state)
{
	(void)state;
	fabfix_path(dbpath, sizeof(dbpath), "phys_store", ".db");
	snprintf(journal, sizeof(journal), "%s-journal", dbpath);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fabfix_unlink_db(dbpath);
	unlink(journal);
	return 0;
}

static void raw_exec(const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

static int64_t count(const char *sql)
{
	return fabfix_db_count(dbpath, sql);
}

/* `ethtool -S` of a fixture recorded as sample `sample` of port, each value
 * plus add (a second sample that counted on). */
static void stats(struct fab_roce *r, uint32_t port, const char *driver, const char *file,
		  unsigned sample, int64_t at, uint64_t add)
{
	static struct fab_ethtool_stat st[2048];
	size_t len = 0;
	char *t = mfix_slurp(file, &len);

	assert_non_null(t);
	size_t n = fab_ethtool_parse_stats(t, len, st, 2048);
	for (size_t i = 0; i < n; i++)
		st[i].value += add;
	assert_int_equal(fab_ethtool_record(r, port, driver, st, n, sample, at), 0);
	free(t);
}

static void dump_of(struct fab_roce *r, uint32_t port, const char *file)
{
	static uint8_t raw[1024];

	mfix_module(r, port, raw, mfix_dump(file, raw, sizeof(raw)));
}

/* Five hosts: two with NIC counters (the ConnectX with a second sample read
 * 5 s later, after the other host's: runs of ports interleaved), three with
 * modules. */
static struct fab_snapshot *hosts(void)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(s);
	uint8_t img[640];

	s->started_at_ms = T0;
	s->finished_at_ms = T0 + 6000;
	s->status = FAB_SCAN_COMPLETE;
	s->host = fab_snapshot_strdup(s, "healthy", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "collect", SIZE_MAX);
	uint32_t cx = mfix_host(r, "healthy"), bnxt = mfix_host(r, "bnxt");
	stats(r, cx, "mlx5_core", "ethtool/mlx5_connectx4lx.stats", 0, T0, 0);
	stats(r, bnxt, "bnxt_en", "ethtool/bnxt_en.stats", 0, T0 + 1000, 0);
	stats(r, cx, "mlx5_core", "ethtool/mlx5_connectx4lx.stats", 1, T0 + 5000, 7);
	assert_int_equal(fab_roce_group_nic_counters(r), 0);
	char *t = mfix_slurp("modules/qsfp_40gsr4_avago_dark_lanes.txt", NULL);
	assert_non_null(t);
	assert_int_equal(mfix_sff8636_from_text(t, img), 0);
	free(t);
	mfix_module(r, mfix_host(r, "sr4"), img, sizeof(img));
	dump_of(r, mfix_host(r, "nolink"), "modules/qsfp28_mma1b00_640b.hex");
	dump_of(r, mfix_host(r, "copper"), "modules/sfp_netgear_agm734.hex");
	return s;
}

/* The value of statistic stat in a fixture's `ethtool -S` text. */
static uint64_t fixture_stat(const char *file, const char *stat)
{
	char *t = mfix_slurp(file, NULL), key[80];
	const char *p = t;
	uint64_t v = 0;
	bool found = false;

	assert_non_null(t);
	snprintf(key, sizeof(key), "%s:", stat);
	while ((p = strstr(p, key))) {
		if ((p == t || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n')) {
			v = strtoull(p + strlen(key), NULL, 10);
			found = true;
			break;
		}
		p++;
	}
	free(t);
	if (!found)
		fail_msg("%s has no statistic %s", file, stat);
	return v;
}

/* Every view row against the fixtures: a counter's value is its source's
 * statistic in the fixture text (plus 7 in the second sample), its name and
 * priority the mapping table's for that statistic, its time the sample's. */
static void counters_are_the_fixtures(int64_t scan, size_t n_model)
{
	sqlite3 *db;
	sqlite3_stmt *q;
	char sql[300];
	size_t n = 0;

	snprintf(sql, sizeof(sql), "SELECT system, ifname, sample, sampled_at, counter, priority, value,"
				   " source, port_idx FROM nic_counters WHERE scan_id = %lld", (long long)scan);
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *sys = (const char *)sqlite3_column_text(q, 0);
		const char *src = (const char *)sqlite3_column_text(q, 7);
		int sample = sqlite3_column_int(q, 2);
		bool cx = !strcmp(sys, "healthy");
		const char *colon = src ? strchr(src, ':') : NULL;
		unsigned ctr;
		int prio;

		assert_non_null(colon);
		assert_string_equal((const char *)sqlite3_column_text(q, 1), "eth0");
		assert_int_equal(sqlite3_column_int(q, 8), cx ? 0 : 1);
		assert_true(cx || sample == 0);
		assert_int_equal(strncmp(src, cx ? "mlx5_core:" : "bnxt_en:", (size_t)(colon - src)), 0);
		uint64_t want = fixture_stat(cx ? "ethtool/mlx5_connectx4lx.stats" : "ethtool/bnxt_en.stats",
					     colon + 1) + (sample ? 7 : 0);
		assert_int_equal((uint64_t)sqlite3_column_int64(q, 6), want);
		assert_true(fab_nic_map(cx ? "mlx5_core" : "bnxt_en", colon + 1, &ctr, &prio));
		assert_string_equal((const char *)sqlite3_column_text(q, 4), fab_nic_ctr_name(ctr));
		if (prio < 0)
			assert_int_equal(sqlite3_column_type(q, 5), SQLITE_NULL);
		else
			assert_int_equal(sqlite3_column_int(q, 5), prio);
		assert_string_equal((const char *)sqlite3_column_text(q, 3),
				    !cx ? "2023-11-14T22:13:21.000Z"
				    : sample ? "2023-11-14T22:13:25.000Z" : "2023-11-14T22:13:20.000Z");
		n++;
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	assert_true(n > 20);
	assert_int_equal(n, n_model);
}

/* The SR4's lanes against its `ethtool -m` text (0.1 uW and 2 uA steps),
 * every module's lanes against the model exactly, decibels from the
 * milliwatts (NULL for a dark lane: 0 mW). */
static void lanes_are_the_fixtures(int64_t scan, const struct fab_roce *r)
{
	static const char *const key[3] = { "Rcvr signal avg optical power(Channel ",
					    "Transmit avg optical power (Channel ",
					    "Laser tx bias current (Channel " };
	char *t = mfix_slurp("modules/qsfp_40gsr4_avago_dark_lanes.txt", NULL), k[96], sql[400];
	sqlite3 *db;
	sqlite3_stmt *q;
	size_t n = 0, dark = 0, want = 0;

	assert_non_null(t);
	snprintf(sql, sizeof(sql), "SELECT system, lane, rx_power_mw, rx_power_dbm, tx_power_mw,"
				   " tx_power_dbm, tx_bias_ma, flags, fabric, module_idx, ifname, serial_number"
				   " FROM module_lanes WHERE scan_id = %lld", (long long)scan);
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *sys = (const char *)sqlite3_column_text(q, 0);
		int lane = sqlite3_column_int(q, 1);
		int64_t mi = sqlite3_column_int64(q, 9);
		double v[3] = { sqlite3_column_double(q, 2), sqlite3_column_double(q, 4),
				sqlite3_column_double(q, 6) };

		assert_string_equal((const char *)sqlite3_column_text(q, 8), "eth");
		assert_string_equal((const char *)sqlite3_column_text(q, 10), "eth0");
		assert_true(mi >= 0 && (size_t)mi < r->modules.n);
		const struct fab_module *m = &r->modules.mods[mi];
		const struct fab_module_lane *l = fab_module_lanes(&r->modules, m);
		assert_string_equal(sys, r->systems[r->eth_ports[m->port_idx].system_idx].name);
		assert_true(lane >= 1 && lane <= m->n_lanes);
		assert_int_equal(l[lane - 1].lane, lane);
		/* the model's doubles, exactly */
		for (int c = 0; c < 3; c++) {
			double x = c == 0 ? l[lane - 1].rx_mw : c == 1 ? l[lane - 1].tx_mw : l[lane - 1].bias_ma;
			int col = c == 0 ? 2 : c == 1 ? 4 : 6;
			if (isnan(x))
				assert_int_equal(sqlite3_column_type(q, col), SQLITE_NULL);
			else
				assert_true(v[c] == x);
		}
		for (int c = 0; c < 2; c++) {
			double mw = v[c];
			int col = c ? 5 : 3;
			if (sqlite3_column_type(q, c ? 4 : 2) == SQLITE_NULL || mw <= 0) {
				assert_int_equal(sqlite3_column_type(q, col), SQLITE_NULL);
				dark += mw == 0;
			} else {
				assert_true(fabs(sqlite3_column_double(q, col) - 10.0 * log10(mw)) < 1e-12);
			}
		}
		if (m->flags_valid)
			assert_int_equal(sqlite3_column_int64(q, 7), l[lane - 1].flags);
		else
			assert_int_equal(sqlite3_column_type(q, 7), SQLITE_NULL);
		if (!strcmp(sys, "sr4"))
			for (int c = 0; c < 3; c++) {
				snprintf(k, sizeof(k), "%s%d)", key[c], lane);
				assert_true(fabs(v[c] - mfix_value(t, k, 0)) < 1e-9);
			}
		n++;
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	free(t);
	for (size_t i = 0; i < r->modules.n; i++)
		want += fab_module_lanes(&r->modules, &r->modules.mods[i]) ? r->modules.mods[i].n_lanes : 0;
	assert_int_equal(n, want);
	assert_true(n >= 8);
	assert_true(dark > 0); /* the SR4's dark lanes */
}

/* The rows of nic_counters and module_lanes of a scan as text, sorted,
 * scan_id left out. */
static char *phys_rows(int64_t scan)
{
	static const char *const sql[] = {
		"SELECT 'n|'||port_idx||'|'||system||'|'||ifname||'|'||sample||'|'||quote(sampled_at)||'|'"
		"||counter||'|'||quote(priority)||'|'||quote(value)||'|'||quote(source) AS x"
		" FROM nic_counters WHERE scan_id = ?1 ORDER BY x",
		"SELECT 'l|'||fabric||'|'||module_idx||'|'||quote(node_guid)||'|'||quote(port_num)||'|'"
		"||quote(system)||'|'||quote(ifname)||'|'||quote(serial_number)||'|'||lane||'|'"
		"||quote(rx_power_mw)||'|'||quote(rx_power_dbm)||'|'||quote(tx_power_mw)||'|'"
		"||quote(tx_power_dbm)||'|'||quote(tx_bias_ma)||'|'||quote(flags) AS x"
		" FROM module_lanes WHERE scan_id = ?1 ORDER BY x",
		"SELECT 'm|'||quote(fabric)||'|'||module_idx||'|'||quote(system)||'|'||quote(ifname)||'|'"
		"||quote(spec)||'|'||refused||'|'||quote(note)||'|'||quote(identifier)||'|'||quote(type)||'|'"
		"||quote(vendor)||'|'||quote(part_number)||'|'||quote(serial_number)||'|'||quote(revision)"
		"||'|'||quote(date_code)||'|'||quote(media)||'|'||quote(length_m)||'|'||quote(media_lanes)"
		"||'|'||lanes||'|'||monitors||'|'||flags_valid||'|'||quote(flags)||'|'||quote(temperature_c)"
		"||'|'||quote(voltage_v)||'|'||quote(temp_hi_alarm)||'|'||quote(temp_lo_warn)||'|'"
		"||quote(vcc_hi_warn)||'|'||quote(bias_lo_alarm_ma)||'|'||quote(tx_power_hi_alarm_dbm)||'|'"
		"||quote(rx_power_lo_warn_dbm)||'|'||quote(rx_power_hi_warn_dbm)||'|'||quote(node_guid)"
		" AS x FROM modules WHERE scan_id = ?1 ORDER BY x",
		"SELECT 't|'||typeof(value)||typeof(priority)||typeof(sample) AS x FROM nic_counters"
		" WHERE scan_id = ?1 GROUP BY x ORDER BY x",
		"SELECT 'u|'||typeof(rx_power_mw)||typeof(rx_power_dbm)||typeof(tx_bias_ma)"
		"||typeof(flags)||typeof(lane) AS x FROM module_lanes WHERE scan_id = ?1 GROUP BY x ORDER BY x",
	};
	sqlite3 *db;
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *s;
		assert_int_equal(sqlite3_prepare_v2(db, sql[i], -1, &s, NULL), SQLITE_OK);
		sqlite3_bind_int64(s, 1, scan);
		rows_append(s, &out, &len, &cap);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return out;
}

static struct fab_snapshot *load_id(int64_t id)
{
	return load_scan_at(dbpath, id);
}

/* The file read as a merge reads its inputs: straight from the file, then
 * with SQLite (a -journal beside it makes the direct reader step aside). */
static void read_both_ways(const struct fab_roce *want)
{
	struct fab_snapshot *s = NULL;
	struct fab_store_input info;

	assert_int_equal(fab_store_read_input(NULL, dbpath, &s, &info), 0);
	assert_true(info.direct);
	same_model(s->roce, want);
	fab_snapshot_free(s);
	FILE *f = fopen(journal, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(fab_store_read_input(NULL, dbpath, &s, &info), 0);
	unlink(journal);
	assert_false(info.direct);
	same_model(s->roce, want);
	fab_snapshot_free(s);
}

/* Schemas 18 and 17 undone (what test_store.c's downgrade does for them). */
static const char undo_17[] = UNDO_STEP_19 " " UNDO_STEP_18 " " UNDO_STEP_17 " PRAGMA user_version = 16;";

static void test_views_and_migration(void **state)
{
	struct fab_snapshot *fx = hosts(), *back;
	const struct fab_roce *r = fx->roce;
	struct fab_store *st;

	(void)state;
	fabfix_db_write(dbpath, fx);
	/* the new form: a row per run (3), no row per counter or lane */
	assert_int_equal(count("SELECT count(*) FROM nic_counter_ports"), 3);
	assert_int_equal(count("SELECT count(*) FROM nic_counter_rows"), 0);
	assert_int_equal(count("SELECT count(*) FROM module_lane_rows"), 0);
	assert_int_equal(count("SELECT count(*) FROM module_rows WHERE lane_values IS NOT NULL"), 3);
	/* the ConnectX's two samples share a set, the bnxt has its own */
	assert_int_equal(count("SELECT count(*) FROM nic_counter_sets"), 2);
	counters_are_the_fixtures(1, r->n_nic_counters);
	lanes_are_the_fixtures(1, r);
	back = load_id(1);
	same_model(back->roce, r);
	fab_snapshot_free(back);
	read_both_ways(r);
	char *before = phys_rows(1);

	/* scan 1 as schema 16 stored it: a row per counter and per lane */
	raw_exec("INSERT INTO nic_counter_rows(scan_id, port_idx, system, ifname, sample, sampled_at,"
		 " counter, priority, value, source)"
		 " SELECT p.scan_id, p.port_idx, p.system, p.ifname, p.sample, p.sampled_at, n.counter,"
		 " n.priority, v.value, n.source FROM nic_counter_ports p"
		 " JOIN nic_counter_names n ON n.set_id = p.counter_set"
		 " JOIN json_each(p.counter_values) v ON v.key = n.pos ORDER BY p.port_idx, p.run, n.pos;"
		 "DELETE FROM nic_counter_ports; DELETE FROM nic_counter_names; DELETE FROM nic_counter_sets;"
		 "INSERT INTO module_lane_rows SELECT scan_id, fabric, module_idx, lane, rx_power_mw,"
		 " rx_power_dbm, tx_power_mw, tx_power_dbm, tx_bias_ma, flags FROM module_lanes;"
		 "UPDATE module_rows SET lane_values = NULL;"
		 "UPDATE module_rows SET (" DESC_COLS ") = (SELECT " DESC_COLS " FROM module_descs d"
		 " WHERE d.desc_id = module_rows.desc_id), desc_id = NULL WHERE desc_id IS NOT NULL;"
		 "DELETE FROM module_descs;");
	char *old_form = phys_rows(1);
	assert_string_equal(old_form, before);
	raw_exec(undo_17);
	assert_int_equal(count("PRAGMA user_version"), 16);
	assert_int_equal(count("SELECT count(*) FROM nic_counters"), (int64_t)r->n_nic_counters);
	/* a schema-16 host file, as collect wrote it until now: read both ways */
	read_both_ways(r);

	/* migrated: the same rows, the same model; scan 2 in the new form */
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, fx), 0);
	fab_store_close(st);
	assert_int_equal(count("PRAGMA user_version"), FAB_SCHEMA_VERSION);
	char *migrated = phys_rows(1), *now = phys_rows(2);
	assert_string_equal(migrated, before);
	assert_string_equal(now, before);
	assert_int_equal(count("SELECT count(*) FROM nic_counter_rows WHERE scan_id = 2"), 0);
	assert_int_equal(count("SELECT count(*) FROM module_lane_rows WHERE scan_id = 2"), 0);
	for (int64_t id = 1; id <= 2; id++) {
		back = load_id(id);
		same_model(back->roce, r);
		fab_snapshot_free(back);
		counters_are_the_fixtures(id, r->n_nic_counters);
		lanes_are_the_fixtures(id, r);
	}
	free(before);
	free(old_form);
	free(migrated);
	free(now);
	fab_snapshot_free(fx);
}

/* Where c of port is in r (sample, counter, priority), or -1. */
static long find_ctr(const struct fab_roce *r, uint32_t port, unsigned sample, unsigned ctr, int prio)
{
	const struct fab_eth_port *p = &r->eth_ports[port];

	for (uint32_t k = 0; k < p->nic_count; k++) {
		const struct fab_nic_counter *c = &r->nic_counters[p->nic_first + k];
		if (c->sample == sample && c->ctr == ctr && c->prio == prio)
			return (long)(p->nic_first + k);
	}
	return -1;
}

/* SQL through nic_counters, as on the table of schema 16: in both forms
 * (scan 1 long, scan 2 new) exactly the rows named change. */
static void test_sql_through_view(void **state)
{
	struct fab_snapshot *fx = hosts();
	const struct fab_roce *x = fx->roce;

	(void)state;
	fabfix_db_write(dbpath, fx);
	/* scan 1 in the long form */
	raw_exec("INSERT INTO nic_counter_rows(scan_id, port_idx, system, ifname, sample, sampled_at,"
		 " counter, priority, value, source) SELECT * FROM nic_counters;"
		 "DELETE FROM nic_counter_ports;");
	fabfix_db_write(dbpath, fx);
	for (int64_t id = 1; id <= 2; id++) {
		char sql[1200];
		snprintf(sql, sizeof(sql),
			 /* a counter a fixture adds (fixtures/rules/eth.discards) */
			 "INSERT INTO nic_counters(scan_id, port_idx, system, ifname, sample, sampled_at,"
			 " counter, priority, value, source) VALUES (%lld, 1, 'bnxt', 'eth0', 0,"
			 " '2023-11-14T22:13:21.000Z', 'pause_storm_error_events', NULL, 42, 'test');"
			 "UPDATE nic_counters SET value = value + 5 WHERE scan_id = %lld AND system = 'healthy'"
			 " AND sample = 1 AND counter = 'rx_frames' AND priority IS NULL;"
			 "DELETE FROM nic_counters WHERE scan_id = %lld AND system = 'bnxt'"
			 " AND counter = 'tx_frames';",
			 (long long)id, (long long)id, (long long)id);
		raw_exec(sql);
		struct fab_snapshot *b = load_id(id);
		const struct fab_roce *r = b->roce;
		long up = find_ctr(x, 0, 1, FAB_NIC_RX_FRAMES, -1), gone = find_ctr(x, 1, 0, FAB_NIC_TX_FRAMES, -1);
		assert_true(up >= 0 && gone >= 0);
		assert_int_equal(r->n_nic_counters, x->n_nic_counters);
		assert_int_equal(find_ctr(r, 1, 0, FAB_NIC_TX_FRAMES, -1), -1);
		long added = find_ctr(r, 1, 0, FAB_NIC_PAUSE_STORM_ERROR, -1);
		assert_true(added >= 0);
		assert_int_equal(r->nic_counters[added].value, 42);
		assert_string_equal(r->nic_counters[added].source, "test");
		/* every other counter as it was */
		for (size_t i = 0; i < x->n_nic_counters; i++) {
			const struct fab_nic_counter *c = &x->nic_counters[i];
			if ((long)i == gone)
				continue;
			long j = find_ctr(r, c->port_idx, c->sample, c->ctr, c->prio);
			assert_true(j >= 0);
			assert_int_equal(r->nic_counters[j].value, c->value + ((long)i == up ? 5 : 0));
			assert_int_equal(r->nic_counters[j].at_ms, c->at_ms);
			assert_string_equal(r->nic_counters[j].source, c->source);
		}
		fab_snapshot_free(b);
	}
	fab_snapshot_free(fx);
}

/* Runs of the same length with other names, priorities or sources get
 * sets of their own; equal ones share one. */
static void test_sets_by_content(void **state)
{
	static const struct {
		const char *host;
		unsigned ctr;
		int prio;
		const char *src;
	} runs[] = {
		{ "h1", FAB_NIC_RX_PAUSE, 3, "mlx5_core:rx_prio3_pause" },
		{ "h2", FAB_NIC_RX_PAUSE, 4, "mlx5_core:rx_prio4_pause" },
		{ "h3", FAB_NIC_TX_PAUSE, 3, "mlx5_core:tx_prio3_pause" },
		{ "h4", FAB_NIC_RX_PAUSE, 3, "ice:rx_priority_3_xon.nic" },
		{ "h5", FAB_NIC_RX_PAUSE, 3, "mlx5_core:rx_prio3_pause" },
	};
	struct fab_snapshot *s = fab_snapshot_new(), *back;
	struct fab_roce *r = fab_snapshot_roce(s);

	(void)state;
	s->started_at_ms = T0;
	s->status = FAB_SCAN_COMPLETE;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		uint32_t p = mfix_host(r, runs[i].host);
		assert_int_equal(fab_roce_add_nic_counter(r, p, runs[i].ctr, runs[i].prio, 0, 10 + i, T0,
							  runs[i].src), 0);
		assert_int_equal(fab_roce_add_nic_counter(r, p, FAB_NIC_TX_FRAMES, -1, 0, 20 + i, T0,
							  "mlx5_core:tx_packets_phy"), 0);
	}
	/* modules alike but for the vendor (h2's), or but for the serial (h3's) */
	for (uint32_t p = 0; p < 3; p++) {
		struct fab_module *m = fab_modules_add(&r->modules, p, 1);
		assert_non_null(m);
		m->vendor = fab_roce_strdup(r, p == 1 ? "FINISAR" : "AVAGO");
		m->part_number = fab_roce_strdup(r, "AFBR-79EQDZ");
		m->serial = fab_roce_strdup(r, p == 2 ? "SN2" : "SN1");
		m->lim[FAB_MON_TEMP].hi_alarm = 75.0;
	}
	fabfix_db_write(dbpath, s);
	assert_int_equal(count("SELECT count(*) FROM nic_counter_sets"), 4);
	assert_int_equal(count("SELECT count(*) FROM module_descs"), 2);
	assert_int_equal(count("SELECT count(*) FROM modules WHERE system = 'h2' AND vendor = 'FINISAR'"
			       " AND serial_number = 'SN1' AND temp_hi_alarm = 75.0"), 1);
	assert_int_equal(count("SELECT count(*) FROM modules WHERE system IN ('h1', 'h3') AND vendor = 'AVAGO'"
			       " AND part_number = 'AFBR-79EQDZ' AND temp_hi_alarm = 75.0"), 2);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char sql[300];
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM nic_counters WHERE system = '%s'"
					   " AND counter = '%s' AND priority = %d AND source = '%s' AND value = %zu",
			 runs[i].host, fab_nic_ctr_name(runs[i].ctr), runs[i].prio, runs[i].src, 10 + i);
		assert_int_equal(count(sql), 1);
	}
	back = load_id(1);
	same_model(back->roce, r);
	fab_snapshot_free(back);
	/* h2's module in the long form (its description in its own row, as
	 * before schema 17) after h1's that names one: the loader, which reads
	 * such a scan without the description's columns, reads it whole */
	raw_exec("UPDATE module_rows SET (" DESC_COLS ") = (SELECT " DESC_COLS " FROM module_descs d"
		 " WHERE d.desc_id = module_rows.desc_id), desc_id = NULL WHERE fabric = 'eth' AND module_idx = 1");
	assert_int_equal(count("SELECT count(*) FROM module_rows WHERE desc_id IS NULL AND vendor = 'FINISAR'"), 1);
	back = load_id(1);
	same_model(back->roce, r);
	fab_snapshot_free(back);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_views_and_migration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sql_through_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sets_by_content, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
