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
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/watch.h"
#include "pipeline/watch_priv.h"

#define DEFAULT_INTERVAL_MS 10000
#define DEFAULT_RESCAN_MS (3600 * 1000)
#define DEFAULT_HOLD_MS (600 * 1000)
#define DEFAULT_DATA_MS (60 * 1000)
#define DEFAULT_KEEP_RAW_MS (86400 * 1000LL)
#define ROLLUP_EVERY_MS (60 * 1000) /* how often watch looks for sweeps to roll up */
#define DEFAULT_LINK_PROBE_MS (30 * 1000)

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
}

static void emit(const struct fab_pipeline_watch *job, struct fab_watch_event *e)
{
	if (job->event)
		job->event(e, job->event_ctx);
}

void wpipe_emit(const struct wstate *ws, struct fab_watch_event *e)
{
	emit(ws->job, e);
}

void wpipe_note(const struct wstate *ws, bool warn, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	struct fab_watch_event e = { .step = FAB_WATCH_NOTE, .note = line, .warn = warn };
	emit(ws->job, &e);
}

/* Whether SIGINT or SIGTERM asked watch to stop. */
bool wpipe_stopping(void)
{
	return stop_requested;
}

int64_t wpipe_mono_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static int64_t mono_ms(void)
{
	return wpipe_mono_ms();
}

/* Every rule over a full scan, with the topology before it (its counters as
 * the sweeps left them; none for the first) as the baseline, the counter
 * and port.down findings held; stored with the scan. */
static int judge_scan(struct fab_store *st, struct wstate *ws, struct fab_snapshot *snap)
{
	int64_t now = fab_now_ms();
	int err;

	if ((err = fab_rules_run(ws->cfg, snap, ws->topo, now, NULL)) ||
	    (err = fab_rules_hold_apply(ws->hold, snap, now)))
		return err;
	snap->checked_at_ms = now;
	return fab_store_replace_findings(st, snap);
}

/* The switch ports the topology's port.down findings name: each sweep
 * reads their PortInfo, so one that comes up makes a full scan at once. */
static int probe_down(struct wstate *ws)
{
	const struct fab_snapshot *t = ws->topo;
	uint32_t *v = calloc(t->n_findings + 1, sizeof(*v));
	size_t n = 0;
	int err;

	if (!v)
		return fab_err(-ENOMEM, "out of memory");
	for (size_t i = 0; i < t->n_findings; i++) {
		const struct fab_finding *f = &t->findings[i];
		const struct fab_port *p;
		uint64_t g;
		uint32_t ni;

		if (strcmp(f->rule_id, "port.down") || !f->node || !f->port ||
		    fab_guid_parse(f->node, &g) || (ni = fab_snapshot_find_node(t, g)) == FAB_NONE ||
		    t->nodes[ni].type != FAB_NODE_SWITCH)
			continue;
		if ((p = fab_snapshot_port(t, ni, (unsigned)strtoul(f->port, NULL, 10))))
			v[n++] = (uint32_t)(p - t->ports);
	}
	err = fab_watch_set_down(ws->w, v, n);
	free(v);
	return err;
}

/* A full scan: the new topology, judged. */
static int full_scan(struct fab_store *st, struct wstate *ws, struct fab_pipeline_watch_result *out)
{
	const struct fab_pipeline_watch *job = ws->job;
	struct fab_snapshot **topo = &ws->topo;
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
	if ((err = judge_scan(st, ws, snap))) {
		fab_snapshot_free(snap);
		return err;
	}
	fab_snapshot_free(*topo);
	*topo = snap;
	out->full_scans++;
	out->last_scan_id = snap->scan_id;
	struct fab_watch_event e = { .step = FAB_WATCH_SCANNED, .snap = snap };
	emit(job, &e);
	wal_commit(st, ws, snap, true);
	return 0;
}

/* Rewrites the Prometheus textfile: the topology with each port's value as
 * of t (a full scan's own samples when t is 0; after a complete sweep every
 * port's value is that of the sweep: a port the sweep did not read again
 * did not change, the switch's sum said so), its rates against the last
 * write of the same topology. A write that fails is reported and watch
 * goes on: the collector keeps the file before it. */
static void prom_write(struct wstate *ws, int64_t t)
{
	const struct fab_snapshot *topo = ws->topo;
	struct fab_counter_pairs *p = &ws->prom_pairs;
	struct fab_counter_sample *swap;
	int64_t t_prev = 0;

	if (!ws->prom)
		return;
	p->n_pairs = 0;
	for (uint32_t i = 0; i < topo->n_ports; i++) {
		const struct fab_counter_sample *l = fab_counter_latest(topo, i);

		p->latest[i] = p->earlier[i] = NULL;
		if (!l)
			continue;
		ws->cur[i] = *l;
		if (t > l->sampled_at_ms)
			ws->cur[i].sampled_at_ms = t;
		p->latest[i] = &ws->cur[i];
		if (ws->have_prev && ws->prev[i].valid) {
			p->earlier[i] = &ws->prev[i];
			if (!p->n_pairs++)
				t_prev = ws->prev[i].sampled_at_ms;
		}
	}
	p->secs = p->n_pairs && t > t_prev ? (double)(t - t_prev) / 1000.0 : 0;
	if (fab_export_prometheus_pairs_file(topo, p, NULL, ws->prom)) {
		struct fab_watch_event e = { .step = FAB_WATCH_EXPORT_FAILED, .snap = topo };
		emit(ws->job, &e);
		fab_err_clear();
	}
	swap = ws->prev;
	ws->prev = ws->cur;
	ws->cur = swap;
	for (uint32_t i = 0; i < topo->n_ports; i++)
		ws->cur[i].valid = 0;
	ws->have_prev = true;
}

/* The textfile's state sized for a new topology: no rates in its first write. */
static int prom_reset(struct wstate *ws)
{
	size_t n = ws->topo->n_ports + 1;
	struct fab_counter_pairs *p = &ws->prom_pairs;

	if (!ws->prom)
		return 0;
	free(ws->prev);
	free(ws->cur);
	free(p->latest);
	free(p->earlier);
	ws->have_prev = false;
	ws->prev = calloc(n, sizeof(*ws->prev));
	ws->cur = calloc(n, sizeof(*ws->cur));
	p->latest = calloc(n, sizeof(*p->latest));
	p->earlier = calloc(n, sizeof(*p->earlier));
	p->n_ports = ws->topo->n_ports;
	if (!ws->prev || !ws->cur || !p->latest || !p->earlier)
		return fab_err(-ENOMEM, "out of memory");
	prom_write(ws, 0);
	return 0;
}

/* Pairs sized for the topology, empty. */
static int pairs_for(struct wstate *ws)
{
	struct fab_counter_pairs *p = &ws->pairs;

	fab_counter_pairs_free(p);
	memset(p, 0, sizeof(*p));
	p->latest = calloc(ws->topo->n_ports + 1, sizeof(*p->latest));
	p->earlier = calloc(ws->topo->n_ports + 1, sizeof(*p->earlier));
	p->n_ports = ws->topo->n_ports;
	return p->latest && p->earlier ? 0 : fab_err(-ENOMEM, "out of memory");
}

/* The counter rules over the sweep's changed ports (each compared with its
 * value before), then the findings held from earlier sweeps. */
static int judge(struct wstate *ws, struct fab_snapshot *sw)
{
	struct fab_counter_pairs *p = &ws->pairs;
	int64_t now = fab_now_ms();
	int err;

	for (size_t i = 0; i < sw->n_samples; i++) {
		uint32_t pi = sw->samples[i].port_idx;
		p->latest[pi] = &sw->samples[i];
		p->earlier[pi] = fab_counter_latest(ws->topo, pi);
	}
	p->n_pairs = sw->n_samples;
	err = fab_rules_run_counters(ws->cfg, ws->topo, p, sw, now);
	if (!err) /* port.down from the ports read, the SM's security notices */
		err = fab_rules_run_events(ws->cfg, ws->topo, sw, now);
	for (size_t i = 0; i < sw->n_samples; i++) {
		uint32_t pi = sw->samples[i].port_idx;
		p->latest[pi] = p->earlier[pi] = NULL;
	}
	p->n_pairs = 0;
	if (!err)
		err = fab_rules_hold_apply(ws->hold, sw, now);
	sw->checked_at_ms = now;
	return err;
}

/* One run of the watch port committed as a sweep: a counter sweep, or
 * (react) the reads a trap asked for; with the notices pending and the
 * port states the run found changed as its events; its counter changes
 * put into topo. *again says the topology changed (nothing committed). */
int wpipe_sweep(struct fab_store *st, struct wstate *ws, bool *again,
		struct fab_pipeline_watch_result *out, bool react)
{
	const struct fab_pipeline_watch *job = ws->job;
	struct fab_watch *w = ws->w;
	struct fab_snapshot *topo = ws->topo;
	struct fab_snapshot *sw = fab_snapshot_new();
	struct fab_watch_result res;
	int err;

	if (!sw)
		return fab_err(-ENOMEM, "out of memory");
	if ((err = wev_take(ws, again)) || *again)
		goto out; /* a port in or out of service: the full scan first */
	sw->started_at_ms = fab_now_ms();
	sw->host = topo->host;
	sw->source = topo->source;
	sw->label = job->scan.label;
	if ((err = react ? fab_watch_react(w, topo, sw, &res) : fab_watch_sweep(w, topo, sw, &res)))
		goto out;
	sw->finished_at_ms = fab_now_ms();
	if (res.topology_changed) {
		struct fab_watch_event e = { .step = FAB_WATCH_TOPOLOGY, .snap = topo, .res = &res };
		emit(job, &e);
		*again = true;
		goto out;
	}
	sw->status = sw->n_errors ? FAB_SCAN_PARTIAL : FAB_SCAN_COMPLETE;
	if ((err = wev_fill(ws, sw, &res)) || (err = judge(ws, sw)) ||
	    (err = fab_store_write_sweep(st, sw, topo)))
		goto out;
	fab_snapshot_free(ws->pending); /* stored */
	if (!(ws->pending = fab_snapshot_new())) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < sw->n_samples && !err; i++)
		if ((err = fab_snapshot_put_sample(topo, &sw->samples[i])))
			err = fab_err(err, "out of memory");
	if (!err && !react && sw->status == FAB_SCAN_COMPLETE) /* a partial sweep: the file stays */
		prom_write(ws, sw->finished_at_ms);
	if (react)
		out->reactions++;
	else
		out->sweeps++;
	out->last_scan_id = sw->scan_id;
	struct fab_watch_event e = { .step = react ? FAB_WATCH_REACTED : FAB_WATCH_SWEPT, .snap = sw,
				     .res = &res, .topo = topo, .sweep = out->sweeps };
	emit(job, &e);
	if (!react)
		wev_probe_note(ws, &res);
	if (!err)
		wal_commit(st, ws, sw, false);
out:
	sw->host = sw->source = sw->label = NULL; /* borrowed */
	fab_snapshot_free(sw);
	return err;
}

/* Retention in the pause between sweeps: one chain rolled up when one is
 * due (then another in the next pause), else a look once a minute (a
 * quarter of the raw window when that is shorter). */
static int retain(struct fab_store *st, struct wstate *ws)
{
	struct fab_rollup_result r;
	int64_t now = mono_ms();
	int err;

	if (now < ws->next_rollup)
		return 0;
	if ((err = fab_store_rollup(st, fab_now_ms() - ws->keep_raw_ms, &r)))
		return err;
	ws->next_rollup = r.chain ? now
			  : now + (ws->keep_raw_ms / 4 < ROLLUP_EVERY_MS ? ws->keep_raw_ms / 4
									 : ROLLUP_EVERY_MS);
	if (r.chain) {
		struct fab_watch_event e = { .step = FAB_WATCH_ROLLED, .rollup = &r };
		emit(ws->job, &e);
	}
	return 0;
}

/* A duration: the job's, else the config's [watch] key, else dflt. */
static int64_t setting(const struct wstate *ws, int64_t job_ms, unsigned key, int64_t dflt)
{
	const char *v = fab_config_sweep(ws->cfg, key, NULL);
	int64_t ms;

	if (job_ms > 0)
		return job_ms;
	return v && !fab_duration_parse(v, &ms) ? ms : dflt;
}

/* [watch] link_probe: the job's, else the config's ("off": none), else 30 s. */
static int64_t link_probe(const struct wstate *ws)
{
	const char *v = fab_config_sweep(ws->cfg, FAB_WATCH_LINK_PROBE, NULL);
	int64_t ms;

	if (ws->job->link_probe_ms)
		return ws->job->link_probe_ms < 0 ? 0 : ws->job->link_probe_ms;
	if (v && !strcmp(v, "off"))
		return 0;
	return v && !fab_duration_parse(v, &ms) ? ms : DEFAULT_LINK_PROBE_MS;
}

/* [watch] link_probe_share: the job's, else the config's, else 10%. */
static double link_probe_share(const struct wstate *ws)
{
	const char *v = fab_config_sweep(ws->cfg, FAB_WATCH_LINK_PROBE_SHARE, NULL);
	double f;

	if (ws->job->link_probe_share > 0)
		return ws->job->link_probe_share;
	return v && !fab_share_parse(v, &f) ? f : FAB_WATCH_PROBE_SHARE;
}

/* The ports an earlier watch left down (port.down held until seen Active):
 * held on from when they were first seen down, so that a restart loses
 * nothing (the first full scan has no baseline to raise them again). */
static int restore_holds(struct fab_store *st, struct wstate *ws)
{
	struct fab_snapshot *s = fab_snapshot_new();
	int err;

	if (!s)
		return fab_err(-ENOMEM, "out of memory");
	err = fab_store_open_holds(st, s);
	if (!err)
		err = fab_rules_hold_restore(ws->hold, s->findings, s->n_findings);
	fab_snapshot_free(s);
	return err;
}

/* Opens the sweeps' MAD port on the new topology. */
static int open_port(struct wstate *ws, const struct fab_probe_opts *po, int64_t interval,
		     int64_t data)
{
	const struct fab_pipeline_watch *job = ws->job;
	int err;

	if ((err = pairs_for(ws)) || (err = prom_reset(ws)) ||
	    (err = fab_watch_open(po, ws->topo->source, &ws->w)) || (err = probe_down(ws)))
		return err;
	if (job->verify_every)
		fab_watch_set_verify_every(ws->w, job->verify_every);
	fab_watch_set_data_every(ws->w, (unsigned)(interval > 0 && data > interval ? data / interval : 1));
	fab_watch_set_link_probe(ws->w, ws->link_probe_ms);
	fab_watch_set_link_probe_share(ws->w, ws->link_probe_share);
	return wev_start(ws);
}

int fab_pipeline_watch(const struct fab_pipeline_watch *job, struct fab_pipeline_watch_result *out)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct fab_probe_opts po = job->probe;
	struct wstate ws = { .job = job };
	struct fab_store *st = NULL;
	int64_t interval, rescan, data, scanned = 0;
	bool need_scan = true;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = fab_pipeline_load_config(job->config, &ws.cfg)))
		return err;
	interval = job->interval_ms < 0 ? 0
		   : setting(&ws, job->interval_ms, FAB_WATCH_INTERVAL, DEFAULT_INTERVAL_MS);
	rescan = setting(&ws, job->rescan_ms, FAB_WATCH_RESCAN, DEFAULT_RESCAN_MS);
	data = setting(&ws, 0, FAB_WATCH_DATA, DEFAULT_DATA_MS);
	ws.keep_raw_ms = setting(&ws, job->keep_raw_ms, FAB_WATCH_RAW, DEFAULT_KEEP_RAW_MS);
	ws.prom = job->prometheus ? job->prometheus : fab_config_sweep(ws.cfg, FAB_WATCH_PROMETHEUS, NULL);
	ws.link_probe_ms = link_probe(&ws);
	ws.link_probe_share = link_probe_share(&ws);
	ws.interval_ms = interval;
	if ((err = fab_rules_hold_new(setting(&ws, job->hold_ms, FAB_WATCH_HOLD, DEFAULT_HOLD_MS),
				      &ws.hold)) ||
	    (err = wev_init(&ws)) || (err = wal_init(&ws)))
		goto out;
	if (job->make_db_dir)
		fab_pipeline_make_db_dir(job->db);
	if ((err = fab_store_open(job->db, FAB_STORE_WRITE, &st)) || (err = restore_holds(st, &ws)))
		goto out;
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
			if ((err = wev_before_close(&ws)))
				break;
			fab_watch_close(ws.w);
			ws.w = NULL;
			if ((err = full_scan(st, &ws, out)))
				break;
			scanned = mono_ms();
			if (stop_requested)
				break;
			need_scan = false;
			if ((err = open_port(&ws, &po, interval, data)))
				break;
		}
		if ((err = wpipe_sweep(st, &ws, &need_scan, out, false)))
			break;
		if (need_scan || (job->max_sweeps && out->sweeps >= job->max_sweeps))
			continue; /* a full scan now, or done */
		if ((err = retain(st, &ws)))
			break;
		if ((err = wev_pause(st, &ws, t0 + interval, out, &need_scan)))
			break;
	}
	out->stopped = stop_requested;
	wev_stop(&ws);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	fab_watch_close(ws.w);
	fab_snapshot_free(ws.topo);
	fab_counter_pairs_free(&ws.pairs);
	fab_counter_pairs_free(&ws.prom_pairs);
	free(ws.prev);
	free(ws.cur);
	fab_rules_hold_free(ws.hold);
	wev_free(&ws);
	wal_free(&ws);
	fab_config_free(ws.cfg);
	fab_store_close(st);
	return err;
}
