// SPDX-License-Identifier: MIT
/*
 * What watch's link events and alerts keep in the store (docs/schema.md
 * "Events", "Alerts"): a sweep's events written and loaded back; a
 * port.down hold a sweep no longer has ends at it, one still open is what
 * a restarted watch takes up; the alerts table through raise, delivery,
 * re-send, clear and a failed delivery.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/alert.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_alerts.h"
#include "fabfix/fabfix_db.h"
#include "unit/snapfix.h"

static char dbpath[256];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dbpath, sizeof(dbpath), "%s/test_watch_io_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	unlink(dbpath);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fabfix_unlink_db(dbpath);
	return 0;
}

/* A topology in the store, and a sweep of it (empty, the caller fills it). */
static struct fab_snapshot *topology(void)
{
	struct fab_snapshot *t = snapfix_fat_tree(1, 2, 2);

	t->started_at_ms = 1000000;
	fabfix_db_write(dbpath, t);
	return t;
}

static int64_t write_sweep(struct fab_snapshot *topo, struct fab_snapshot *sw)
{
	struct fab_store *st;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	sw->checked_at_ms = sw->started_at_ms;
	assert_int_equal(fab_store_write_sweep(st, sw, topo), 0);
	fab_store_close(st);
	return sw->scan_id;
}

static void test_events_roundtrip(void **state)
{
	struct fab_snapshot *topo = topology(), *sw = fab_snapshot_new(), *back;
	struct fab_event notice = { .at_ms = 2000123, .kind = FAB_EVENT_NOTICE, .trap = 128, .lid = 5,
				    .node_guid = 0x1000, .detail = "link state change at switch LID 5" };
	struct fab_event port = { .at_ms = 2000456, .kind = FAB_EVENT_PORT, .cause = FAB_CAUSE_TRAP,
				  .node_guid = 0x2000, .port_num = 3, .state = FAB_STATE_DOWN,
				  .phys_state = FAB_PHYS_POLLING, .was = FAB_STATE_ACTIVE };
	struct fab_store *st;

	(void)state;
	sw->started_at_ms = 2000000;
	assert_int_equal(fab_snapshot_add_event(sw, &notice), 0);
	assert_int_equal(fab_snapshot_add_event(sw, &port), 0);
	int64_t id = write_sweep(topo, sw);
	assert_int_equal(fabfix_db_count(dbpath, "SELECT count(*) FROM events WHERE kind = 'notice'"
				       " AND trap = 128 AND lid = 5 AND cause IS NULL AND state IS NULL"
				       " AND at = '1970-01-01T00:33:20.123Z'"), 1);
	assert_int_equal(fabfix_db_count(dbpath, "SELECT count(*) FROM events WHERE kind = 'port'"
				       " AND cause = 'trap' AND trap IS NULL AND state = 'down'"
				       " AND phys_state = 'polling' AND was_state = 'active'"
				       " AND node_guid = '0x0000000000002000' AND port_num = 3"), 1);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, id, &back), 0);
	assert_int_equal(back->n_events, 2);
	assert_int_equal(back->events[0].kind, FAB_EVENT_NOTICE);
	assert_int_equal(back->events[0].at_ms, notice.at_ms);
	assert_int_equal(back->events[0].trap, 128);
	assert_int_equal(back->events[0].node_guid, 0x1000);
	assert_string_equal(back->events[0].detail, notice.detail);
	assert_int_equal(back->events[1].kind, FAB_EVENT_PORT);
	assert_int_equal(back->events[1].cause, FAB_CAUSE_TRAP);
	assert_int_equal(back->events[1].port_num, 3);
	assert_int_equal(back->events[1].state, FAB_STATE_DOWN);
	assert_int_equal(back->events[1].phys_state, FAB_PHYS_POLLING);
	assert_int_equal(back->events[1].was, FAB_STATE_ACTIVE);
	fab_snapshot_free(back);
	fab_store_close(st);
	fab_snapshot_free(sw);
	fab_snapshot_free(topo);
}

static const struct fab_finding down = {
	.rule_id = "port.down", .severity = FAB_SEV_ERROR, .node = "0x0000000000002000", .port = "3",
	.subject = "leaf/3", .message = "the port is down", .evidence = "state=down; read=x",
	.held_since_ms = 2000000, .held_until_ms = INT64_MAX,
	.held_evidence = "state=down; read=x; since=1970-01-01T00:33:20.000Z",
};

static size_t open_holds(void)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_store *st;
	size_t n;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_open_holds(st, s), 0);
	n = s->n_findings;
	if (n) {
		assert_string_equal(s->findings[0].rule_id, "port.down");
		assert_string_equal(s->findings[0].evidence, "state=down; read=x"); /* as raised */
		assert_int_equal(s->findings[0].held_since_ms, 2000000);
	}
	fab_store_close(st);
	fab_snapshot_free(s);
	return n;
}

static void test_holds_end_and_restore(void **state)
{
	struct fab_snapshot *topo = topology(), *a = fab_snapshot_new(), *b = fab_snapshot_new(),
			    *c = fab_snapshot_new();
	struct fab_finding held = down;

	(void)state;
	a->started_at_ms = 2000000;
	assert_int_equal(fab_snapshot_add_finding(a, &down), 0); /* raised */
	int64_t ia = write_sweep(topo, a);
	assert_int_equal(open_holds(), 1);
	held.held = true;
	b->started_at_ms = 3000000;
	assert_int_equal(fab_snapshot_add_finding(b, &held), 0); /* still down */
	int64_t ib = write_sweep(topo, b);
	assert_int_equal(open_holds(), 1);
	char sql[160];
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM findings WHERE scan_id = %lld AND"
		 " rule_id = 'port.down'", (long long)ib);
	assert_int_equal(fabfix_db_count(dbpath, sql), 1);
	c->started_at_ms = 4000000; /* read Active again: the sweep does not have it */
	int64_t ic = write_sweep(topo, c);
	assert_int_equal(open_holds(), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM findings WHERE scan_id = %lld", (long long)ic);
	assert_int_equal(fabfix_db_count(dbpath, sql), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM finding_holds WHERE to_scan_id = %lld"
		 " AND from_scan_id = %lld", (long long)ic, (long long)ia + 1);
	assert_int_equal(fabfix_db_count(dbpath, sql), 1);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
	fab_snapshot_free(c);
	fab_snapshot_free(topo);
}

/* A one-alert list: rule on node/port with message. */
static void one_peer(struct fab_alert_list *l, const char *rule, const char *port, const char *msg,
		     const char *peer)
{
	char fp[128];
	struct fab_alert a = { .fingerprint = fp, .rule_id = rule, .severity = "error",
			       .node = "0x0000000000002000", .node_name = "leaf", .port = port,
			       .peer = peer, .subject = "leaf/3", .message = msg,
			       .starts_ms = 1000 };

	snprintf(fp, sizeof(fp), "%s\x1f%s\x1f%s", rule, a.node, port);
	assert_int_equal(fab_alert_list_add(l, &a), 0);
}

static void one(struct fab_alert_list *l, const char *rule, const char *port, const char *msg)
{
	one_peer(l, rule, port, msg, "spine/1");
}

static size_t sync_(struct fab_alert_list *cur, int64_t now, int64_t resend_before,
		    struct fab_alert_list *pending)
{
	struct fab_store *st;

	fab_alert_list_free(pending);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_alerts_sync(st, cur, now, resend_before, pending), 0);
	fab_store_close(st);
	return pending->n;
}

static void sent(struct fab_alert_list *l, int64_t now)
{
	struct fab_store *st;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_alerts_sent(st, l, now), 0);
	fab_store_close(st);
}

static void test_alerts(void **state)
{
	struct fab_alert_list cur = { 0 }, p = { 0 }, none = { 0 };

	(void)state;
	fab_snapshot_free(topology()); /* a database */
	one(&cur, "port.down", "3", "the port is down");
	one(&cur, "port.down", "3", "the port is down"); /* one alert per finding key */
	one(&cur, "port.errors", "4", "errors");
	assert_int_equal(sync_(&cur, 10000, 10000 - 60000, &p), 2);
	assert_int_equal(fabfix_db_count(dbpath, "SELECT count(*) FROM alerts"), 2);
	assert_int_equal(p.v[0].ends_ms, 0);
	assert_int_equal(p.v[0].sent_ms, 0);
	assert_int_equal(p.v[0].starts_ms, 1000); /* raised before now: its raise */
	assert_string_equal(p.v[0].rule_id, "port.down");
	assert_string_equal(p.v[0].peer, "spine/1");
	/* Alertmanager was down: nothing delivered, still pending */
	assert_int_equal(sync_(&cur, 11000, 11000 - 60000, &p), 2);
	sent(&p, 12000);
	/* delivered: nothing pending until the re-send is due */
	assert_int_equal(sync_(&cur, 13000, 13000 - 60000, &p), 0);
	assert_int_equal(sync_(&cur, 80000, 80000 - 60000, &p), 2);
	sent(&p, 80000);
	/* a changed text goes out at once; the labels stay as first raised
	 * (another peer would make it another alert in Alertmanager) */
	fab_alert_list_free(&cur);
	one_peer(&cur, "port.down", "3", "the port is init", NULL);
	one(&cur, "port.errors", "4", "errors");
	assert_int_equal(sync_(&cur, 81000, 81000 - 60000, &p), 1);
	assert_string_equal(p.v[0].message, "the port is init");
	assert_string_equal(p.v[0].peer, "spine/1");
	sent(&p, 81000);
	/* cleared: its end, pending until delivered, then gone */
	fab_alert_list_free(&cur);
	one(&cur, "port.errors", "4", "errors");
	assert_int_equal(sync_(&cur, 90000, 90000 - 60000, &p), 1);
	assert_string_equal(p.v[0].rule_id, "port.down");
	assert_int_equal(p.v[0].ends_ms, 90000);
	/* raised again before its end was delivered: firing again, no end,
	 * posted again at once */
	one(&cur, "port.down", "3", "the port is init");
	assert_int_equal(sync_(&cur, 91000, 91000 - 60000, &p), 1);
	assert_int_equal(p.v[0].ends_ms, 0);
	sent(&p, 91000);
	assert_int_equal(fabfix_db_count(dbpath, "SELECT count(*) FROM alerts WHERE ends_at IS NULL"), 2);
	/* all cleared and delivered: the table is empty */
	assert_int_equal(sync_(&none, 95000, 95000 - 60000, &p), 2);
	sent(&p, 95000);
	assert_int_equal(fabfix_db_count(dbpath, "SELECT count(*) FROM alerts"), 0);
	fab_alert_list_free(&cur);
	fab_alert_list_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_events_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holds_end_and_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alerts, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
