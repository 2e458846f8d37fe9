/* SPDX-License-Identifier: MIT */
/*
 * Findings as Prometheus Alertmanager alerts (reports/alertmanager.c;
 * docs/watch.md, "Alerts"): `fabsweep watch --alertmanager URL` posts each
 * finding raised and each one cleared to Alertmanager's API v2
 * (POST /api/v2/alerts), the state kept in the database
 * (include/fabsweep/store_alerts.h) so that nothing is lost while
 * Alertmanager is down or watch restarts.
 *
 * Labels (what an operator routes on): alertname (the rule id), severity,
 * node (its description), node_guid, port, peer ("name/port" of the
 * other end), job="fabsweep". Annotations: summary (the finding's text),
 * subject, remedy (the rule's remediation), description (title).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* One alert: in a list, its strings are the list's own copies. */
struct fab_alert {
	const char *fingerprint; /* "rule\x1fnode\x1fport": one alert per finding key */
	const char *rule_id, *severity, *node, *node_name, *port, *peer, *subject, *message;
	int64_t starts_ms; /* first raised */
	int64_t ends_ms;   /* cleared at; 0 while firing */
	int64_t sent_ms;   /* last delivered to Alertmanager; 0 never */
};

struct fab_alert_list {
	struct fab_alert *v;
	size_t n, cap;
};

/* Appends a copy of a (every string copied; NULL strings stay NULL).
 * 0 or -ENOMEM. */
int fab_alert_list_add(struct fab_alert_list *l, const struct fab_alert *a);
/* Frees the strings and the array; the list is empty after. */
void fab_alert_list_free(struct fab_alert_list *l);

/*
 * The API v2 body for alerts (a JSON array, returned in *out: the caller
 * frees it): each with its labels and annotations, startsAt, and endsAt:
 * the clear time when cleared, else now_ms + valid_ms (Alertmanager
 * resolves an alert that is not posted again before then). Remote strings
 * (node descriptions) are escaped by the JSON writer. 0 or -ENOMEM.
 */
int fab_alertmanager_body(const struct fab_alert *a, size_t n, int64_t now_ms, int64_t valid_ms,
			  char **out);

/*
 * POSTs body to url + "/api/v2/alerts" with libcurl within timeout_ms.
 * 0 when Alertmanager answered 200; else a negative errno with the message
 * set: -ECONNREFUSED, -ETIMEDOUT (could not reach it), -EPROTO (another
 * HTTP status: the message has it and the start of the answer).
 */
int fab_alertmanager_post(const char *url, const char *body, int timeout_ms);
