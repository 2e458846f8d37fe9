// SPDX-License-Identifier: MIT
/*
 * Watch's link events (docs/watch.md, "Link events"): the subscription to
 * the SM's traps, the notices it brings and what each one starts.
 *
 *   - After each full scan watch takes the SA's Reports on its port and
 *     subscribes at the master SM the scan found (a new master after a
 *     failover knows no subscription; the sweep that sees the master change
 *     makes that full scan). A subscription refused or not answered is said
 *     once and tried again every few seconds; the link probe reads the
 *     links meanwhile (and always: a Report is lost when the SM's route to
 *     this port crossed the link that went down).
 *   - In the pause between sweeps it waits for Reports. A trap 128 names a
 *     switch: both ends of its links are read at once by directed route and
 *     the run is committed as a sweep (port.down raised or cleared, the
 *     counter rules on the ports that changed). Traps 64, 65 and 145 change
 *     the topology: a full scan. Any other notice (144, the security traps
 *     256-259) is stored at once with the run it starts.
 *   - At the end the subscription is ended.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/watch.h"
#include "pipeline/watch_priv.h"

#define SUB_RETRY_MS 5000   /* a subscription refused or not answered: tried again */
#define PROBE_WITH_TRAPS 10 /* with traps the probe reads each link this many times less often */
#define WAIT_SLICE_MS 1000  /* the pause looks at retries at least this often */

int wev_init(struct wstate *ws)
{
	const char *v = fab_config_sweep(ws->cfg, FAB_WATCH_EVENTS, NULL);

	ws->events = ws->job->events ? ws->job->events > 0 : !(v && !strcmp(v, "off"));
	if (!(ws->pending = fab_snapshot_new()))
		return fab_err(-ENOMEM, "out of memory");
	return 0;
}

void wev_free(struct wstate *ws)
{
	fab_snapshot_free(ws->pending);
	ws->pending = NULL;
}

/* The SA's LID: the master SM the full scan found, else the SM LID of the
 * port watch scanned from. */
static uint16_t sa_lid(const struct fab_snapshot *t)
{
	for (size_t i = 0; i < t->n_sms; i++)
		if (!t->sms[i].failed && t->sms[i].state == 3 && t->sms[i].lid)
			return t->sms[i].lid;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].hops == 0)
			for (uint32_t k = 0; k < t->nodes[i].port_count; k++)
				if (t->ports[t->nodes[i].port_first + k].sm_lid)
					return t->ports[t->nodes[i].port_first + k].sm_lid;
	return 0;
}

/* The link probe's period: [watch] link_probe while no trap can come (no
 * subscription, or no Report reaches this port); with traps, a safety net
 * for the Reports that get lost, PROBE_WITH_TRAPS times slower. */
static void probe_period(struct wstate *ws)
{
	bool traps = ws->sub == SUB_OK && fab_watch_hears_reports(ws->w);

	fab_watch_set_link_probe(ws->w, traps ? ws->link_probe_ms * PROBE_WITH_TRAPS : ws->link_probe_ms);
}

/* ms as seconds: whole ones, else (under 10 s) to a tenth. */
static const char *secs(double ms, char *buf, size_t cap)
{
	double s = ms / 1000.0;

	if (s < 9.95 && s != (double)(long long)s)
		snprintf(buf, cap, "%.1f s", s);
	else
		snprintf(buf, cap, "%.0f s", s);
	return buf;
}

void wev_probe_note(struct wstate *ws, const struct fab_watch_result *res)
{
	struct fab_watch_probe_cost c;
	char n[FAB_COUNT_STRLEN], m[FAB_COUNT_STRLEN], a[32], b[32];
	double iv, eff;
	bool longer;

	if (!ws->w)
		return;
	fab_watch_link_probe_cost(ws->w, &c);
	if (!c.period_ms || !c.links || !c.base)
		return;
	/* a sweep every interval (back to back: as long as this one took) */
	iv = ws->interval_ms > 0 ? (double)ws->interval_ms : res->ms > 1 ? res->ms : 1;
	/* the reads the period owes a sweep, beyond the cap: each link read
	 * every links / cap sweeps */
	eff = (double)c.period_ms;
	if (c.cap && (double)c.links * iv / (double)c.period_ms > (double)c.cap)
		eff = (double)c.links * iv / (double)c.cap;
	longer = eff > (double)c.period_ms;
	/* said already: the period as asked, or a stretched one within a fifth */
	if (longer == ws->probe_said_long &&
	    (!longer || (eff >= 0.8 * ws->probe_said_ms && eff <= 1.2 * ws->probe_said_ms)))
		return;
	ws->probe_said_ms = eff;
	ws->probe_said_long = longer;
	if (longer)
		wpipe_note(ws, false, "link probe: each of the %s switch-to-switch links read within "
			   "about %s, not %s: at most %g%% of a sweep's %s MADs ([watch] "
			   "link_probe_share)", fab_count_format(c.links, n), secs(eff, a, sizeof(a)),
			   secs((double)c.period_ms, b, sizeof(b)), c.share * 100.0,
			   fab_count_format(c.base, m));
	else
		wpipe_note(ws, false, "link probe: each of the %s switch-to-switch links read within "
			   "%s, its period: within %g%% of a sweep's %s MADs ([watch] link_probe_share)",
			   fab_count_format(c.links, n), secs((double)c.period_ms, b, sizeof(b)),
			   c.share * 100.0, fab_count_format(c.base, m));
}

static void subscribe(struct wstate *ws)
{
	uint16_t lid = 0;
	unsigned status;
	int was = ws->sub;
	uint16_t was_lid = ws->sub_lid;

	/* the master as this port knows it now (after a failover the full
	 * scan may have met the new one still standing by), else the scan's */
	if (fab_watch_master_lid(ws->w, &lid) || !lid) {
		fab_err_clear();
		lid = sa_lid(ws->topo);
	}
	if (!lid) {
		if (ws->sub != SUB_FAILED || ws->sub_lid)
			wpipe_note(ws, true, "no master SM found: no traps to subscribe to; the link "
				   "probe finds links that go down");
		ws->sub = SUB_FAILED;
		ws->sub_lid = 0;
		ws->sub_retry = wpipe_mono_ms() + SUB_RETRY_MS;
		return;
	}
	ws->sub_lid = lid;
	if (fab_watch_subscribe(ws->w, lid, 0, true, &status)) {
		if (was != SUB_FAILED || was_lid != lid)
			wpipe_note(ws, true, "%s; the link probe finds links that go down (tried again "
				   "every %d s)", fab_errmsg(), SUB_RETRY_MS / 1000);
		fab_err_clear();
		ws->sub = SUB_FAILED;
		ws->sub_retry = wpipe_mono_ms() + SUB_RETRY_MS;
		probe_period(ws);
		return;
	}
	ws->sub = SUB_OK;
	probe_period(ws);
	if (was != SUB_OK || was_lid != lid)
		wpipe_note(ws, false, "subscribed to the SM's traps at LID %u%s", lid,
			   fab_watch_sim_reports() ? " (the simulator's Report path)" : "");
}

int wev_start(struct wstate *ws)
{
	if (!ws->events)
		return 0;
	if (fab_watch_listen(ws->w)) {
		/* another process takes this port's Reports: say so, go on
		 * probing */
		if (ws->sub != SUB_FAILED)
			wpipe_note(ws, true, "%s; the link probe finds links that go down", fab_errmsg());
		fab_err_clear();
		ws->sub = SUB_FAILED;
		ws->events = false;
		return 0;
	}
	subscribe(ws);
	return 0;
}

int wev_before_close(struct wstate *ws)
{
	return ws->w && fab_watch_take_notices(ws->w, ws->pending) ? fab_err(-ENOMEM, "out of memory")
								    : 0;
}

void wev_stop(struct wstate *ws)
{
	unsigned status;

	if (ws->w && ws->sub == SUB_OK && fab_watch_subscribe(ws->w, ws->sub_lid, 0, false, &status))
		fab_err_clear(); /* the SM drops it with this port anyway */
	ws->sub = SUB_NONE;
}

/* The switch a trap 128 names: by GUID (IssuerGID), else by LID. */
static uint32_t trap_switch(const struct fab_snapshot *t, const struct fab_event *e)
{
	uint32_t n = e->node_guid ? fab_snapshot_find_node(t, e->node_guid) : FAB_NONE;

	for (uint32_t i = 0; n == FAB_NONE && i < t->n_nodes; i++)
		if (t->nodes[i].lid == e->lid && t->nodes[i].type == FAB_NODE_SWITCH)
			n = i;
	return n != FAB_NONE && t->nodes[n].type == FAB_NODE_SWITCH ? n : FAB_NONE;
}

int wev_take(struct wstate *ws, bool *again)
{
	size_t from = ws->pending->n_events;
	int err;

	if (!ws->w)
		return 0;
	if (fab_watch_take_notices(ws->w, ws->pending))
		return fab_err(-ENOMEM, "out of memory");
	for (size_t i = from; i < ws->pending->n_events; i++) {
		const struct fab_event *e = &ws->pending->events[i];
		uint32_t n;

		switch (e->trap) {
		case 128:
			if ((n = trap_switch(ws->topo, e)) != FAB_NONE &&
			    (err = fab_watch_want_switch(ws->w, ws->topo, n)))
				return err;
			break;
		case 64:
		case 65:
		case 145:
			/* as a sweep that sees the topology change */
			if (!*again)
				wpipe_note(ws, false, "trap %u from LID %u (%s): full scan", e->trap, e->lid,
					   e->detail ? e->detail : "");
			*again = true;
			break;
		}
	}
	return 0;
}

int wev_fill(struct wstate *ws, struct fab_snapshot *sw, const struct fab_watch_result *res)
{
	const struct fab_snapshot *t = ws->topo;

	for (size_t i = 0; i < ws->pending->n_events; i++)
		if (fab_snapshot_add_event(sw, &ws->pending->events[i]))
			return fab_err(-ENOMEM, "out of memory");
	for (size_t i = 0; i < res->n_changes; i++) {
		const struct fab_watch_change *c = &res->changes[i];
		const struct fab_port *p = &t->ports[c->port_idx];
		struct fab_event e = {
			.at_ms = c->at_ms,
			.kind = FAB_EVENT_PORT,
			.cause = c->cause,
			.node_guid = t->nodes[p->node_idx].guid,
			.port_num = p->port_num,
			.state = c->state,
			.phys_state = c->phys_state,
			.was = c->was,
		};
		if (fab_snapshot_add_event(sw, &e))
			return fab_err(-ENOMEM, "out of memory");
	}
	return 0;
}

int wev_pause(struct fab_store *st, struct wstate *ws, int64_t until_ms,
	      struct fab_pipeline_watch_result *out, bool *again)
{
	int64_t now;
	int n, err;

	while (!wpipe_stopping() && !*again && (now = wpipe_mono_ms()) < until_ms) {
		int64_t left = until_ms - now, wait = left < WAIT_SLICE_MS ? left : WAIT_SLICE_MS;

		if (!fab_watch_hears_reports(ws->w)) { /* nothing to wait for: sleep */
			struct timespec ts = { wait / 1000, (wait % 1000) * 1000000 };
			nanosleep(&ts, NULL); /* a signal ends it early */
			n = 0;
		} else if ((n = fab_watch_wait(ws->w, (int)wait)) < 0) {
			return fab_err(n, "waiting for the SM's Reports: %s", strerror(-n));
		}
		if (n > 0 && (err = wpipe_sweep(st, ws, again, out, true)))
			return err;
		if (ws->events && ws->sub == SUB_FAILED && wpipe_mono_ms() >= ws->sub_retry)
			subscribe(ws);
		wal_retry(st, ws);
	}
	return 0;
}
