// SPDX-License-Identifier: MIT
/*
 * The alerts table (include/fabsweep/store_alerts.h): what watch posts to
 * Alertmanager, kept so that nothing is lost while it is down or watch
 * restarts. A handful of rows (the findings raised now), read whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/alert.h"
#include "fabsweep/error.h"
#include "fabsweep/store_alerts.h"
#include "store/store_priv.h"

#define COLUMNS "fingerprint, rule_id, severity, node, node_name, port, peer, subject, message," \
		" starts_at, ends_at, sent_at"

static int read_rows(struct fab_store *st, const char *where, int64_t t,
		     struct fab_alert_list *out)
{
	char sql[256];
	sqlite3_stmt *s;
	int rc, err;

	snprintf(sql, sizeof(sql), "SELECT " COLUMNS " FROM alerts%s ORDER BY fingerprint", where);
	if ((err = fab_store_prepare(st, sql, &s)))
		return err;
	if (t)
		fab_sql_bind_time(s, 1, t);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_alert a = {
			.fingerprint = fab_sql_text(s, 0),
			.rule_id = fab_sql_text(s, 1),
			.severity = fab_sql_text(s, 2),
			.node = fab_sql_text(s, 3),
			.node_name = fab_sql_text(s, 4),
			.port = fab_sql_text(s, 5),
			.peer = fab_sql_text(s, 6),
			.subject = fab_sql_text(s, 7),
			.message = fab_sql_text(s, 8),
			.starts_ms = fab_sql_time(s, 9),
			.ends_ms = fab_sql_time(s, 10),
			.sent_ms = fab_sql_time(s, 11),
		};
		if (fab_alert_list_add(out, &a)) {
			err = fab_err(-ENOMEM, "out of memory reading the alerts");
			break;
		}
	}
	return fab_sql_done(st, s, rc, err);
}

int fab_store_alerts_pending(struct fab_store *st, int64_t resend_before_ms,
			     struct fab_alert_list *pending)
{
	return read_rows(st, " WHERE ends_at IS NOT NULL OR sent_at IS NULL OR sent_at < ?1",
			 resend_before_ms ? resend_before_ms : 1, pending);
}

static int cmp_fp(const void *a, const void *b)
{
	return strcmp(((const struct fab_alert *)a)->fingerprint,
		      ((const struct fab_alert *)b)->fingerprint);
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Whether the annotations are as stored. The labels (severity, names)
 * stay as the alert was first raised: Alertmanager tells alerts apart by
 * their labels, and one whose labels changed would be another alert while
 * the first stays until it expires. */
static bool text_same(const struct fab_alert *a, const struct fab_alert *b)
{
	return same(a->subject, b->subject) && same(a->message, b->message);
}

static void bind_text(sqlite3_stmt *s, const struct fab_alert *a)
{
	fab_sql_bind_text(s, 1, a->fingerprint);
	fab_sql_bind_text(s, 2, a->rule_id);
	fab_sql_bind_text(s, 3, a->severity);
	fab_sql_bind_text(s, 4, a->node);
	fab_sql_bind_text(s, 5, a->node_name);
	fab_sql_bind_text(s, 6, a->port);
	fab_sql_bind_text(s, 7, a->peer);
	fab_sql_bind_text(s, 8, a->subject);
	fab_sql_bind_text(s, 9, a->message);
}

static int cmp_ptr(const void *a, const void *b)
{
	return cmp_fp(*(const struct fab_alert *const *)a, *(const struct fab_alert *const *)b);
}

static int sync_rows(struct fab_store *st, const struct fab_alert_list *cur, int64_t now_ms)
{
	static const char *const sql[] = {
		"INSERT INTO alerts(" COLUMNS ") VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,NULL,NULL)",
		/* ?2 to ?7, the labels, are bound and unused: they stay */
		"UPDATE alerts SET subject=?8, message=?9, ends_at=NULL, sent_at=NULL WHERE fingerprint=?1",
		"UPDATE alerts SET ends_at=?2 WHERE fingerprint=?1",
	};
	struct fab_alert_list have = { 0 };
	const struct fab_alert **by_fp = NULL;
	sqlite3_stmt *s[3] = { 0 };
	char *seen = NULL;
	int err = read_rows(st, "", 0, &have);

	if (!err)
		err = fab_sql_prepare_all(st, sql, 3, s);
	if (!err && (!(seen = calloc(have.n + 1, 1)) ||
		     !(by_fp = malloc((cur->n + 1) * sizeof(*by_fp)))))
		err = fab_err(-ENOMEM, "out of memory");
	for (size_t i = 0; !err && i < cur->n; i++)
		by_fp[i] = &cur->v[i];
	if (!err && cur->n)
		qsort(by_fp, cur->n, sizeof(*by_fp), cmp_ptr);
	for (size_t i = 0; !err && i < cur->n; i++) {
		const struct fab_alert *a = by_fp[i];
		struct fab_alert *h = have.n ? bsearch(a, have.v, have.n, sizeof(*a), cmp_fp) : NULL;

		if (i && !strcmp(by_fp[i - 1]->fingerprint, a->fingerprint))
			continue; /* one alert per finding key */
		if (h) {
			seen[h - have.v] = 1;
			if (!h->ends_ms && text_same(a, h))
				continue; /* firing as it was */
			bind_text(s[1], a);
			err = fab_sql_step(st, s[1], "an alert");
			continue;
		}
		bind_text(s[0], a);
		fab_sql_bind_time(s[0], 10, a->starts_ms && a->starts_ms < now_ms ? a->starts_ms : now_ms);
		err = fab_sql_step(st, s[0], "an alert");
	}
	for (size_t i = 0; !err && i < have.n; i++) {
		if (seen[i] || have.v[i].ends_ms)
			continue; /* raised now, or ended already */
		fab_sql_bind_text(s[2], 1, have.v[i].fingerprint);
		fab_sql_bind_time(s[2], 2, now_ms);
		err = fab_sql_step(st, s[2], "an alert's end");
	}
	fab_sql_finalize_all(s, 3);
	free(by_fp);
	free(seen);
	fab_alert_list_free(&have);
	return err;
}

int fab_store_alerts_sync(struct fab_store *st, const struct fab_alert_list *cur, int64_t now_ms,
			  int64_t resend_before_ms, struct fab_alert_list *pending)
{
	int err;

	if (!st->writable)
		return fab_err(-EROFS, "database '%s' was opened read-only", st->path);
	if ((err = fab_store_begin(st)))
		return err;
	err = sync_rows(st, cur, now_ms);
	if (!err)
		err = fab_store_alerts_pending(st, resend_before_ms, pending);
	return fab_store_finish(st, err);
}

int fab_store_alerts_sent(struct fab_store *st, const struct fab_alert_list *sent, int64_t now_ms)
{
	sqlite3_stmt *s[2];
	static const char *const sql[] = {
		"UPDATE alerts SET sent_at=?2 WHERE fingerprint=?1 AND ends_at IS NULL",
		"DELETE FROM alerts WHERE fingerprint=?1 AND ends_at IS NOT NULL",
	};
	int err;

	if ((err = fab_store_begin(st)))
		return err;
	err = fab_sql_prepare_all(st, sql, 2, s);
	for (size_t i = 0; !err && i < sent->n; i++) {
		const struct fab_alert *a = &sent->v[i];

		fab_sql_bind_text(s[a->ends_ms ? 1 : 0], 1, a->fingerprint);
		if (!a->ends_ms)
			fab_sql_bind_time(s[0], 2, now_ms);
		err = fab_sql_step(st, s[a->ends_ms ? 1 : 0], "an alert's delivery");
	}
	fab_sql_finalize_all(s, 2);
	return fab_store_finish(st, err);
}
