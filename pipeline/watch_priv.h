/* SPDX-License-Identifier: MIT */
/*
 * Private to pipeline/watch*.c: what the sweeps of one watch share.
 * watch.c: full scans, sweeps, retention, the Prometheus file;
 * watch_events.c: the SM's traps (subscription, notices, the runs they
 * start); watch_alerts.c: Alertmanager (docs/watch.md).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "fabsweep/alert.h"
#include "fabsweep/counter.h"
#include "fabsweep/pipeline.h"

struct fab_config;
struct fab_rules_hold;
struct fab_snapshot;
struct fab_store;
struct fab_watch;

enum { SUB_NONE = 0, SUB_OK, SUB_FAILED };

struct wstate {
	const struct fab_pipeline_watch *job;
	struct fab_config *cfg;
	struct fab_rules_hold *hold;
	struct fab_watch *w;
	struct fab_snapshot *topo;
	/* the changed ports' pairs for the counter rules: latest the sweep's
	 * sample, earlier the value before; cleared after each sweep */
	struct fab_counter_pairs pairs;
	int64_t keep_raw_ms, next_rollup; /* retention; next_rollup: monotonic ms */
	/* the Prometheus textfile: every port's value at the last write (prev)
	 * and now (cur), as pairs for the counter model's rates */
	const char *prom;
	struct fab_counter_sample *prev, *cur;
	bool have_prev;
	struct fab_counter_pairs prom_pairs;
	/* link events (watch_events.c) */
	bool events;
	int64_t link_probe_ms;
	double link_probe_share;
	int64_t interval_ms;          /* from one sweep to the next (0: back to back) */
	double probe_said_ms;         /* the probe's period watch last said (0: none) */
	bool probe_said_long;         /* ... stretched by the cap */
	struct fab_snapshot *pending; /* notices taken, not stored yet (events only) */
	int sub;                      /* SUB_*: the subscription's state */
	uint16_t sub_lid;             /* the SA it is (or was last tried) at */
	int64_t sub_retry;            /* monotonic ms: try again then (SUB_FAILED) */
	/* alerts (watch_alerts.c) */
	const char *am_url;
	int64_t am_resend_ms;
	struct fab_alert_list scan_only; /* the last full scan's findings sweeps do not hold */
	int64_t am_retry;             /* monotonic ms: after a failed post, the next try */
	int64_t am_look;              /* monotonic ms: the pause looks for re-sends due then */
	unsigned am_failures;
};

/* Emits a watch event to the job's callback. */
void wpipe_emit(const struct wstate *ws, struct fab_watch_event *e);
/* A one-line NOTE event. */
void wpipe_note(const struct wstate *ws, bool warn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Whether SIGINT or SIGTERM asked watch to stop. */
bool wpipe_stopping(void);
/* Monotonic milliseconds. */
int64_t wpipe_mono_ms(void);
/* One run committed as a sweep (react: a trap's run, fab_watch_react);
 * *again: the topology changed (nothing committed), a full scan next. */
int wpipe_sweep(struct fab_store *st, struct wstate *ws, bool *again,
		struct fab_pipeline_watch_result *out, bool react);

/* watch_events.c */
int wev_init(struct wstate *ws);
void wev_free(struct wstate *ws);
/* After the watch port opened on a topology: take Reports, subscribe. */
int wev_start(struct wstate *ws);
/* Before the port closes (a full scan): keep the notices not taken. */
int wev_before_close(struct wstate *ws);
/* At the end: end the subscription. */
void wev_stop(struct wstate *ws);
/* Takes the notices received into ws->pending and asks for what they
 * need: a trap 128's switch read in the next run; *again for a port
 * in or out of service or a new system image GUID (a full scan). */
int wev_take(struct wstate *ws, bool *again);
/* The pause between sweeps until the monotonic time until_ms: waits for
 * Reports and reacts to them at once (a committed run), retries the
 * subscription and the alerts that are due. *again: a full scan now. */
int wev_pause(struct fab_store *st, struct wstate *ws, int64_t until_ms,
	      struct fab_pipeline_watch_result *out, bool *again);
/* After a counter sweep: the link probe's period, said when its cost
 * bound stretches it (and again when that changes by more than a fifth). */
void wev_probe_note(struct wstate *ws, const struct fab_watch_result *res);
/* The sweep's events: the notices pending, then the changes the run found. */
int wev_fill(struct wstate *ws, struct fab_snapshot *sw, const struct fab_watch_result *res);

/* watch_alerts.c */
int wal_init(struct wstate *ws);
void wal_free(struct wstate *ws);
/* After a commit (full: a full scan): the alerts table brought to the
 * findings raised now, and what is pending posted when due. */
void wal_commit(struct fab_store *st, struct wstate *ws, const struct fab_snapshot *snap, bool full);
/* Between sweeps: posts what is pending when due (re-sends, retries). */
void wal_retry(struct fab_store *st, struct wstate *ws);
