// SPDX-License-Identifier: MIT
/*
 * Findings as Alertmanager alerts (include/fabsweep/alert.h): the API v2
 * body through the JSON writer (every string cleaned and escaped there),
 * posted with libcurl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "fabsweep/alert.h"
#include "fabsweep/error.h"
#include "fabsweep/rules.h"
#include "jsonw.h"

static char *dup_or_null(const char *s, bool *nomem)
{
	char *d;

	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		*nomem = true;
	return d;
}

static void alert_free(struct fab_alert *a)
{
	/* the list's own copies (fab_alert_list_add) */
	free((char *)a->fingerprint);
	free((char *)a->rule_id);
	free((char *)a->severity);
	free((char *)a->node);
	free((char *)a->node_name);
	free((char *)a->port);
	free((char *)a->peer);
	free((char *)a->subject);
	free((char *)a->message);
}

int fab_alert_list_add(struct fab_alert_list *l, const struct fab_alert *a)
{
	struct fab_alert *d;
	bool nomem = false;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		void *v = realloc(l->v, cap * sizeof(*l->v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	d = &l->v[l->n];
	*d = (struct fab_alert){
		.fingerprint = dup_or_null(a->fingerprint, &nomem),
		.rule_id = dup_or_null(a->rule_id, &nomem),
		.severity = dup_or_null(a->severity, &nomem),
		.node = dup_or_null(a->node, &nomem),
		.node_name = dup_or_null(a->node_name, &nomem),
		.port = dup_or_null(a->port, &nomem),
		.peer = dup_or_null(a->peer, &nomem),
		.subject = dup_or_null(a->subject, &nomem),
		.message = dup_or_null(a->message, &nomem),
		.starts_ms = a->starts_ms,
		.ends_ms = a->ends_ms,
		.sent_ms = a->sent_ms,
	};
	if (nomem) {
		alert_free(d);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

void fab_alert_list_free(struct fab_alert_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		alert_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A label or annotation, left out when it has no value (Alertmanager
 * treats an empty label as none). */
static int set_opt(struct fab_report_text *t, json_t *obj, const char *key, const char *v)
{
	return v && *v ? fab_jw_set(obj, key, fab_jw_str(t, v)) : 0;
}

static json_t *one(struct fab_report_text *t, const struct fab_alert *a, int64_t now_ms,
		   int64_t valid_ms)
{
	const struct fab_rule *r = fab_rule_find(a->rule_id);
	json_t *o = json_object(), *labels = fab_jw_add_object(o, "labels"),
	       *ann = fab_jw_add_object(o, "annotations");
	int err = !o || !labels || !ann ? -ENOMEM : 0;

	if (!err)
		err = fab_jw_set(labels, "alertname", fab_jw_str(t, a->rule_id));
	if (!err)
		err = fab_jw_set(labels, "job", json_string("fabsweep"));
	if (!err)
		err = set_opt(t, labels, "severity", a->severity);
	if (!err)
		err = set_opt(t, labels, "node", a->node_name);
	if (!err)
		err = set_opt(t, labels, "node_guid", a->node);
	if (!err)
		err = set_opt(t, labels, "port", a->port);
	if (!err)
		err = set_opt(t, labels, "peer", a->peer);
	if (!err)
		err = set_opt(t, ann, "summary", a->message);
	if (!err)
		err = set_opt(t, ann, "subject", a->subject);
	if (!err && r)
		err = set_opt(t, ann, "description", r->title);
	if (!err && r)
		err = set_opt(t, ann, "remedy", r->remediation);
	if (!err)
		err = fab_jw_set(o, "startsAt", fab_jw_time(a->starts_ms));
	if (!err)
		err = fab_jw_set(o, "endsAt", fab_jw_time(a->ends_ms ? a->ends_ms : now_ms + valid_ms));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int fab_alertmanager_body(const struct fab_alert *a, size_t n, int64_t now_ms, int64_t valid_ms,
			  char **out)
{
	struct fab_report_text t = { 0 };
	json_t *arr = json_array();
	int err = arr ? 0 : -ENOMEM;
	char *s = NULL;

	for (size_t i = 0; i < n && !err; i++)
		err = fab_jw_append(arr, one(&t, &a[i], now_ms, valid_ms));
	if (!err && !(s = json_dumps(arr, JSON_COMPACT | JSON_ENSURE_ASCII)))
		err = -ENOMEM;
	json_decref(arr);
	fab_report_text_free(&t);
	if (err)
		return fab_err(err, "out of memory making the alerts");
	*out = s;
	return 0;
}

/* The start of Alertmanager's answer, for the message when it refuses. */
struct answer {
	char text[160];
	size_t n;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *ctx)
{
	struct answer *a = ctx;
	size_t len = size * nmemb;

	for (size_t i = 0; i < len && a->n + 1 < sizeof(a->text); i++)
		a->text[a->n++] = (unsigned char)p[i] >= ' ' && p[i] != 0x7f ? p[i] : ' ';
	a->text[a->n] = '\0';
	return len;
}

int fab_alertmanager_post(const char *url, const char *body, int timeout_ms)
{
	static bool inited;
	struct answer ans = { { 0 }, 0 };
	struct curl_slist *hdr = NULL;
	char full[1100];
	size_t l = strlen(url);
	long code = 0;
	CURLcode rc;
	CURL *c = NULL;
	int err = 0;

	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return fab_err(-ENOMEM, "cannot initialise libcurl");
		inited = true;
	}
	snprintf(full, sizeof(full), "%.*s/api/v2/alerts", (int)(l && url[l - 1] == '/' ? l - 1 : l),
		 url);
	if (!(c = curl_easy_init()) ||
	    !(hdr = curl_slist_append(NULL, "Content-Type: application/json"))) {
		err = fab_err(-ENOMEM, "out of memory posting alerts");
		goto out;
	}
	curl_easy_setopt(c, CURLOPT_URL, full);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &ans);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		err = fab_err(rc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -ECONNREFUSED,
			      "cannot post alerts to '%s': %s", full, curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200)
		err = fab_err(-EPROTO, "Alertmanager at '%s' answered HTTP %ld: %s", full, code,
			      ans.text);
out:
	curl_slist_free_all(hdr);
	if (c)
		curl_easy_cleanup(c);
	return err;
}
