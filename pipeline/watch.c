// SPDX-License-Identifier: MIT
/*
 * Watch (`fabsweep watch`, docs/watch.md): one full scan, then counter
 * sweeps of its topology every interval, each committed as a sweep that
 * stores only what changed, until stopped. A sweep that sees the topology
 * change is dropped, and a full scan replaces the topology.
 *
 * In memory: the topology (the last full scan) whose latest sample of each
 * port is the value last known; each sweep's changes are put into it
 * (fab_snapshot_put_sample) after the sweep is committed, so the next
 * sweep compares with them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/watch.h"

#define DEFAULT_INTERVAL_MS 10000
#define DEFAULT_RESCAN_MS (3600 * 1000)

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void fab_pipeline_watch_init(struct fab_pipeline_watch *job)
{
	memset(job, 0, sizeof(*job));
	fab_pipeline_scan_init(&job->scan);
	fab_probe_opts_init(&job->probe);
	job->interval_ms = DEFAULT_INTERVAL_MS;
}

static void emit(const struct fab_pipeline_watch *job, struct fab_watch_event *e)
{
	if (job->event)
		job->event(e, job->event_ctx);
}

/* Sleeps until the monotonic time t_ms, or until a stop is requested. */
static void sleep_until(int64_t t_ms)
{
	struct timespec now;

	while (!stop_requested) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t left = t_ms - ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000);
		if (left <= 0)
			return;
		struct timespec ts = { left / 1000, (left % 1000) * 1000000 };
		nanosleep(&ts, NULL); /* a signal ends it early */
	}
}

static int64_t mono_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* A full scan: the new topology. */
static int full_scan(struct fab_store *st, const struct fab_pipeline_watch *job,
		     struct fab_snapshot **topo, struct fab_pipeline_watch_result *out)
{
	struct fab_snapshot *snap = NULL;
	int err = fab_pipeline_scan_commit(st, &job->scan, &snap);

	if (err == -EINTR) { /* committed, then a signal */
		stop_requested = 1;
		fab_err_clear();
		return 0;
	}
	if (err)
		return err;
	if ((err = fab_snapshot_index(snap))) {
		fab_snapshot_free(snap);
		return fab_err(err, "out of memory");
	}
	fab_snapshot_free(*topo);
	*topo = snap;
	out->full_scans++;
	out->last_scan_id = snap->scan_id;
	struct fab_watch_event e = { .step = FAB_WATCH_SCANNED, .snap = snap };
	emit(job, &e);
	return 0;
}

/* One counter sweep of topo, committed; its changes put into topo. *again
 * says the topology changed (nothing was committed). */
static int sweep(struct fab_store *st, const struct fab_pipeline_watch *job, struct fab_watch *w,
		 struct fab_snapshot *topo, bool *again, struct fab_pipeline_watch_result *out)
{
	struct fab_snapshot *sw = fab_snapshot_new();
	struct fab_watch_result res;
	int err;

	if (!sw)
		return fab_err(-ENOMEM, "out of memory");
	sw->started_at_ms = fab_now_ms();
	sw->host = topo->host;
	sw->source = topo->source;
	sw->label = job->scan.label;
	if ((err = fab_watch_sweep(w, topo, sw, &res)))
		goto out;
	sw->finished_at_ms = fab_now_ms();
	if (res.topology_changed) {
		struct fab_watch_event e = { .step = FAB_WATCH_TOPOLOGY, .snap = topo, .res = &res };
		emit(job, &e);
		*again = true;
		goto out;
	}
	sw->status = sw->n_errors ? FAB_SCAN_PARTIAL : FAB_SCAN_COMPLETE;
	if ((err = fab_store_write_sweep(st, sw, topo)))
		goto out;
	for (size_t i = 0; i < sw->n_samples && !err; i++)
		if ((err = fab_snapshot_put_sample(topo, &sw->samples[i])))
			err = fab_err(err, "out of memory");
	out->sweeps++;
	out->last_scan_id = sw->scan_id;
	struct fab_watch_event e = { .step = FAB_WATCH_SWEPT, .snap = sw, .res = &res,
				     .sweep = out->sweeps };
	emit(job, &e);
out:
	sw->host = sw->source = sw->label = NULL; /* borrowed */
	fab_snapshot_free(sw);
	return err;
}

int fab_pipeline_watch(const struct fab_pipeline_watch *job, struct fab_pipeline_watch_result *out)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct fab_probe_opts po = job->probe;
	struct fab_snapshot *topo = NULL;
	struct fab_store *st = NULL;
	struct fab_watch *w = NULL;
	int64_t interval = job->interval_ms > 0 ? job->interval_ms : DEFAULT_INTERVAL_MS;
	int64_t rescan = job->rescan_ms > 0 ? job->rescan_ms : DEFAULT_RESCAN_MS, scanned = 0;
	bool need_scan = true;
	int err;

	memset(out, 0, sizeof(*out));
	if (job->make_db_dir)
		fab_pipeline_make_db_dir(job->db);
	if ((err = fab_store_open(job->db, FAB_STORE_WRITE, &st)))
		return err;
	stop_requested = 0;
	sigemptyset(&sa.sa_mask); /* no SA_RESTART: a signal ends the sleep */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	po.ca = job->scan.so.ca;
	po.port = job->scan.so.port;
	po.mkeys = job->scan.so.mkeys;
	while (!stop_requested && (!job->max_sweeps || out->sweeps < job->max_sweeps)) {
		int64_t t0 = mono_ms();

		if (t0 - scanned >= rescan)
			need_scan = true;
		if (need_scan) {
			/* the sweeps' MAD port is closed while the scan opens its
			 * own: under the simulator (umad2sim) a scan closing its
			 * device while another stays open in the process crashes
			 * umad2sim's thread; the sums start afresh anyway */
			fab_watch_close(w);
			w = NULL;
			if ((err = full_scan(st, job, &topo, out)))
				break;
			scanned = mono_ms();
			if (stop_requested)
				break;
			need_scan = false;
			if ((err = fab_watch_open(&po, topo->source, &w)))
				break;
			if (job->verify_every)
				fab_watch_set_verify_every(w, job->verify_every);
		}
		if ((err = sweep(st, job, w, topo, &need_scan, out)))
			break;
		if (need_scan || (job->max_sweeps && out->sweeps >= job->max_sweeps))
			continue; /* a full scan now, or done */
		sleep_until(t0 + interval);
	}
	out->stopped = stop_requested;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	fab_watch_close(w);
	fab_snapshot_free(topo);
	fab_store_close(st);
	return err;
}
