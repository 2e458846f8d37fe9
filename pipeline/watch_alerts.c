// SPDX-License-Identifier: MIT
/*
 * Watch's alerts (docs/watch.md, "Alerts"): after every commit the
 * findings raised now (a full scan's; after a sweep, the sweep's, held ones
 * included, and the last full scan's that sweeps do not hold) are brought
 * into the alerts table (store/alert_io.c), and what is pending is posted
 * to Alertmanager: new and changed alerts, those cleared (with their end),
 * and the firing ones again every alert_resend (each posted valid for four
 * of those: Alertmanager resolves one that stops coming). A post that
 * fails leaves everything pending in the database; it is tried again after
 * 1, 2, 4 ... 60 s, and by a restarted watch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/alert.h"
#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store_alerts.h"
#include "pipeline/watch_priv.h"

#define DEFAULT_RESEND_MS (60 * 1000)
#define POST_TIMEOUT_MS 2000
#define MAX_BACKOFF_MS (60 * 1000)
#define MAX_PER_POST 1000

int wal_init(struct wstate *ws)
{
	const char *v = fab_config_sweep(ws->cfg, FAB_WATCH_ALERT_RESEND, NULL);
	int64_t ms;

	ws->am_url = ws->job->alertmanager ? ws->job->alertmanager
					   : fab_config_sweep(ws->cfg, FAB_WATCH_ALERTMANAGER, NULL);
	ws->am_resend_ms = v && !fab_duration_parse(v, &ms) && ms >= 1000 ? ms : DEFAULT_RESEND_MS;
	return 0;
}

void wal_free(struct wstate *ws)
{
	fab_alert_list_free(&ws->scan_only);
}

/* "name/port" of a node and port of the topology (the GUID when the
 * topology does not have the node). */
static void port_label(const struct fab_snapshot *t, const char *node, const char *port, char *buf,
		       size_t len)
{
	char nb[FAB_NODE_NAME_CAP];
	uint64_t g;
	uint32_t n;

	if (node && !fab_guid_parse(node, &g) && (n = fab_snapshot_find_node(t, g)) != FAB_NONE)
		node = fab_node_name(t, n, NULL, nb, sizeof(nb));
	snprintf(buf, len, "%s%s%s", node ? node : "", port ? "/" : "", port ? port : "");
}

/* The other end of a port, from the topology's link (the finding names
 * none: port.down). */
static void peer_of(const struct fab_snapshot *t, const struct fab_finding *f, char *buf, size_t len)
{
	const struct fab_port *p, *r;
	uint64_t g;
	uint32_t n;
	char num[8], nb[FAB_NODE_NAME_CAP];

	buf[0] = '\0';
	if (f->peer_node) {
		port_label(t, f->peer_node, f->peer_port, buf, len);
		return;
	}
	if (!f->node || !f->port || fab_guid_parse(f->node, &g) ||
	    (n = fab_snapshot_find_node(t, g)) == FAB_NONE ||
	    !(p = fab_snapshot_port(t, n, (unsigned)strtoul(f->port, NULL, 10))) ||
	    p->remote_idx >= t->n_ports)
		return;
	r = &t->ports[p->remote_idx];
	snprintf(num, sizeof(num), "%u", r->port_num);
	snprintf(buf, len, "%s/%s", fab_node_name(t, r->node_idx, NULL, nb, sizeof(nb)), num);
}

static int add_finding(struct fab_alert_list *l, const struct fab_snapshot *t,
		       const struct fab_finding *f, int64_t now_ms)
{
	char fp[600], name[FAB_NODE_NAME_CAP], nb[FAB_NODE_NAME_CAP], peer[FAB_NODE_NAME_CAP + 8];
	uint64_t g;
	uint32_t n = FAB_NONE;

	snprintf(fp, sizeof(fp), "%s\x1f%s\x1f%s", f->rule_id, f->node ? f->node : "",
		 f->port ? f->port : "");
	name[0] = '\0';
	if (f->node && !fab_guid_parse(f->node, &g) && (n = fab_snapshot_find_node(t, g)) != FAB_NONE)
		snprintf(name, sizeof(name), "%s", fab_node_name(t, n, NULL, nb, sizeof(nb)));
	peer_of(t, f, peer, sizeof(peer));
	struct fab_alert a = {
		.fingerprint = fp,
		.rule_id = f->rule_id,
		.severity = fab_severity_name(f->severity),
		.node = f->node,
		.node_name = name[0] ? name : NULL,
		.port = f->port,
		.peer = peer[0] ? peer : NULL,
		.subject = f->subject,
		.message = f->message,
		.starts_ms = f->held_since_ms ? f->held_since_ms : now_ms,
	};
	return fab_alert_list_add(l, &a);
}

/* Posts up to MAX_PER_POST of pending; records what was delivered. */
static void post(struct fab_store *st, struct wstate *ws, const struct fab_alert_list *pending)
{
	struct fab_alert_list part = *pending;
	int64_t now = fab_now_ms();
	char *body = NULL;
	int err;

	if (part.n > MAX_PER_POST)
		part.n = MAX_PER_POST; /* the rest with the next post */
	err = fab_alertmanager_body(part.v, part.n, now, 4 * ws->am_resend_ms, &body);
	if (!err)
		err = fab_alertmanager_post(ws->am_url, body, POST_TIMEOUT_MS);
	free(body);
	if (!err)
		err = fab_store_alerts_sent(st, &part, now);
	if (err) {
		int64_t wait = 1000ll << (ws->am_failures < 6 ? ws->am_failures : 6);

		if (!ws->am_failures)
			wpipe_note(ws, true, "%s; %zu alert%s pending, kept in the database", fab_errmsg(),
				   pending->n, pending->n == 1 ? "" : "s");
		fab_err_clear();
		ws->am_failures++;
		ws->am_retry = wpipe_mono_ms() + (wait < MAX_BACKOFF_MS ? wait : MAX_BACKOFF_MS);
		return;
	}
	if (ws->am_failures)
		wpipe_note(ws, false, "Alertmanager at %s takes alerts again: %zu delivered", ws->am_url,
			   part.n);
	ws->am_failures = 0;
	ws->am_retry = 0;
	/* the rest of a long list at once, else a look for re-sends later */
	ws->am_look = wpipe_mono_ms() + (part.n < pending->n ? 0 : ws->am_resend_ms / 4);
}

void wal_commit(struct fab_store *st, struct wstate *ws, const struct fab_snapshot *snap, bool full)
{
	struct fab_alert_list cur = { 0 }, pending = { 0 };
	int64_t now = fab_now_ms();
	int err = 0;

	if (!ws->am_url)
		return;
	if (full)
		fab_alert_list_free(&ws->scan_only);
	for (size_t i = 0; i < ws->scan_only.n && !err; i++)
		err = fab_alert_list_add(&cur, &ws->scan_only.v[i]);
	for (size_t i = 0; i < snap->n_findings && !err; i++) {
		const struct fab_finding *f = &snap->findings[i];

		err = add_finding(&cur, ws->topo, f, now);
		if (!err && full && !fab_rules_held_by_watch(f->rule_id))
			err = add_finding(&ws->scan_only, ws->topo, f, now);
	}
	if (!err)
		err = fab_store_alerts_sync(st, &cur, now, now - ws->am_resend_ms, &pending);
	if (err) {
		wpipe_note(ws, true, "alerts: %s", fab_errmsg());
		fab_err_clear();
	} else if (pending.n && wpipe_mono_ms() >= ws->am_retry) {
		post(st, ws, &pending); /* what changed goes out at once, unless backing off */
	}
	fab_alert_list_free(&cur);
	fab_alert_list_free(&pending);
}

void wal_retry(struct fab_store *st, struct wstate *ws)
{
	struct fab_alert_list pending = { 0 };
	int64_t now = wpipe_mono_ms();

	if (!ws->am_url || now < ws->am_retry || (!ws->am_failures && now < ws->am_look))
		return;
	if (fab_store_alerts_pending(st, fab_now_ms() - ws->am_resend_ms, &pending)) {
		fab_err_clear();
		ws->am_look = now + 1000;
	} else if (pending.n) {
		post(st, ws, &pending);
	} else {
		ws->am_look = now + ws->am_resend_ms / 4;
	}
	fab_alert_list_free(&pending);
}
