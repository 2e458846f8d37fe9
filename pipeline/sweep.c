// SPDX-License-Identifier: MIT
/*
 * Sweep (`fabsweep sweep`, what the hourly timer runs): one scan, checked
 * (counters compared with the previous sweep), rendered into a report
 * directory (timestamped HTML and XML, plus latest.html and latest.xml),
 * exported for Prometheus, and old snapshots pruned with their reports.
 * Every step is the library call its own command makes; nothing is shelled
 * out. docs/workflows.md, "Sweeps".
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/trend.h"
#include "fabsweep/report.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

struct sweep {
	const struct fab_pipeline_sweep *job;
	struct fab_config *cfg;
	struct fab_site_rules *site;
	struct fab_nodemap *names;
	struct fab_store *st;
	struct fab_snapshot *scanned, *snap, *base, *reference;
	struct fab_pipeline_sweep_result res;
};

static void emit(const struct sweep *s, struct fab_sweep_event *e)
{
	if (s->job->event)
		s->job->event(e, s->job->event_ctx);
}

static void step_failed(struct sweep *s, const char *what)
{
	struct fab_sweep_event e = { .step = FAB_SWEEP_FAILED, .what = what };

	s->res.failed_step = true;
	emit(s, &e);
}

/* A setting: the command line, else the config file, else dflt. */
static const char *setting(const struct sweep *s, unsigned key, const char *dflt)
{
	const char *v = s->job->v[key];

	if (!v)
		v = fab_config_sweep(s->cfg, key, NULL);
	return v ? v : dflt;
}

/* ---- the report directory ------------------------------------------------------ */

/* Points DIR/latest.EXT at the file just written: a hard link under a
 * temporary name, renamed over the old one (atomic, like the reports). */
static int link_latest(const char *dir, const char *file, const char *ext)
{
	char tmp[4096], dst[4096];

	snprintf(dst, sizeof(dst), "%s/latest.%s", dir, ext);
	snprintf(tmp, sizeof(tmp), "%s/.latest.%s.tmp%ld", dir, ext, (long)getpid());
	unlink(tmp);
	if (link(file, tmp) != 0)
		return fab_err(-errno, "cannot link '%s' to '%s': %s", file, tmp, strerror(errno));
	if (rename(tmp, dst) != 0) {
		int e = errno;
		unlink(tmp);
		return fab_err(-e, "cannot rename '%s' to '%s': %s", tmp, dst, strerror(e));
	}
	return 0;
}

void fab_pipeline_report_stem(const struct fab_snapshot *snap, char *buf, size_t len)
{
	char t[FAB_TIME_STRLEN], compact[32];
	size_t k = 0;

	fab_time_format(snap->started_at_ms, t); /* 2026-12-01T02:53:55.123Z */
	for (size_t i = 0; t[i] && t[i] != '.' && k + 1 < sizeof(compact); i++)
		if (t[i] != '-' && t[i] != ':')
			compact[k++] = t[i];
	compact[k] = '\0';
	snprintf(buf, len, "fabsweep-%sZ-scan%lld", compact, (long long)snap->scan_id);
}

static int write_reports(struct sweep *s, const char *dir)
{
	struct fab_report_opts o;
	struct fab_trend trend;
	char stem[128], html[4096], xml[4096];
	int err;

	fab_report_opts_init(&o);
	fab_pipeline_report_stem(s->snap, stem, sizeof(stem));
	snprintf(html, sizeof(html), "%s/%s.html", dir, stem);
	snprintf(xml, sizeof(xml), "%s/%s.xml", dir, stem);
	/* the HTML report charts the day before the scan (watch's sweeps too) */
	if (!(err = fab_pipeline_trend_day(s->st, s->snap, &trend)))
		o.trend = &trend;
	if (!err)
		err = fab_report_write(s->snap, s->base, &o, xml, html);
	fab_trend_free(&trend);
	if (err || (err = link_latest(dir, html, "html")) || (err = link_latest(dir, xml, "xml")))
		return err;
	struct fab_sweep_event e = { .step = FAB_SWEEP_REPORTED, .path = html, .stem = stem };
	emit(s, &e);
	return 0;
}

/* Removes DIR/fabsweep-*-scanID.{html,xml} of the scans pruning dropped;
 * returns how many files. */
static size_t remove_reports(const char *dir, const int64_t *ids, size_t n)
{
	struct dirent *e;
	DIR *d;
	size_t removed = 0;

	if (!n || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		const char *s = strstr(e->d_name, "-scan");
		char *end;
		long long id;

		if (strncmp(e->d_name, "fabsweep-", 9) || !s)
			continue;
		id = strtoll(s + 5, &end, 10);
		if (strcmp(end, ".html") && strcmp(end, ".xml"))
			continue;
		for (size_t i = 0; i < n; i++)
			if (ids[i] == id) {
				char path[4096];
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
				removed += unlink(path) == 0;
				break;
			}
	}
	closedir(d);
	return removed;
}

/* ---- retention ---------------------------------------------------------------- */

struct dropped {
	int64_t *ids;
	size_t n, cap;
};

static int note_dropped(const struct fab_prune_scan *p, void *ctx)
{
	struct dropped *d = ctx;

	if (p->is_baseline)
		return 0;
	int64_t *id = fab_array_grow((void **)&d->ids, &d->n, &d->cap, sizeof(*id));
	if (!id)
		return -ENOMEM;
	*id = p->scan_id;
	return 0;
}

static int prune(struct sweep *s, const char *keep, const char *older, const char *dir)
{
	struct fab_prune_opts o = { 0 };
	struct fab_prune_result r;
	struct dropped d = { 0 };
	int err;

	if (keep)
		o.keep = strtoll(keep, NULL, 10); /* checked when parsed */
	if (older && fab_duration_parse(older, &o.older_than_ms))
		return fab_err(-EINVAL, "older_than '%s' is not a duration", older);
	if ((err = fab_store_prune(s->st, &o, note_dropped, &d, &r))) {
		free(d.ids);
		return err;
	}
	struct fab_sweep_event e = { .step = FAB_SWEEP_PRUNED, .pruned = &r };
	emit(s, &e);
	if (dir) {
		e.step = FAB_SWEEP_REPORTS_REMOVED;
		e.reports_removed = remove_reports(dir, d.ids, d.n);
		emit(s, &e);
	}
	free(d.ids);
	return 0;
}

/* ---- setup ---------------------------------------------------------------------- */

/* The report directory: created (one level) when missing, and writable. */
static int prepare_dir(const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb) != 0) {
		if (errno != ENOENT || mkdir(dir, 0755) != 0)
			return fab_err(-errno, "cannot create the report directory '%s': %s", dir,
				       strerror(errno));
	} else if (!S_ISDIR(sb.st_mode)) {
		return fab_err(-ENOTDIR, "report directory '%s' is not a directory", dir);
	}
	if (access(dir, W_OK) != 0)
		return fab_err(-errno, "cannot write into the report directory '%s': %s", dir,
			       strerror(errno));
	return 0;
}

/* The counter baseline: previous (the scan before this one, if any), none,
 * or a scan id or baseline name (which must exist). */
static int load_baseline(struct sweep *s, const char *ref)
{
	int64_t id;
	int err;

	if (!strcmp(ref, "none"))
		return 0;
	if (!strcmp(ref, "previous")) {
		err = fab_store_resolve_scan(s->st, -1, &id);
		if (err == -ENOENT) {
			fab_err_clear();
			return 0; /* the first sweep */
		}
		if (err)
			return err;
	} else if ((err = fab_store_baseline_resolve(s->st, ref, &id))) {
		return err;
	}
	if (id >= s->snap->scan_id)
		return fab_err(-EINVAL, "baseline '%s' (scan %lld) is not older than the sweep's scan %lld",
			       ref, (long long)id, (long long)s->snap->scan_id);
	return fab_store_load_scan(s->st, id, &s->base);
}

/* ---- the sweep -------------------------------------------------------------------- */

/* Steps 2 to 4, after the scan; a failed step is an event, the next runs. */
static void after_scan(struct sweep *s, const char *dir, const char *prom, const char *keep,
		       const char *older, const char *baseline, const char *expect,
		       unsigned fail_on)
{
	const struct fab_pipeline_sweep *job = s->job;
	struct fab_pipeline_checked checked;

	/* 2. check (as `check`), on the scan as stored */
	if (fab_store_load_scan(s->st, s->scanned->scan_id, &s->snap) || load_baseline(s, baseline) ||
	    (expect && !s->reference && fab_pipeline_load_reference(s->st, expect, &s->reference))) {
		step_failed(s, "check");
	} else {
		struct fab_pipeline_check_with with = {
			.cfg = s->cfg, .site = s->site, .base = s->base, .reference = s->reference,
			.fail_on = fail_on, .note = job->note, .note_ctx = job->note_ctx,
		};
		if (fab_pipeline_check_snapshot(s->st, s->snap, &with, &checked)) {
			step_failed(s, "check");
		} else {
			struct fab_sweep_event e = {
				.step = FAB_SWEEP_CHECKED, .snap = s->snap, .checked = &checked,
				.base = s->base, .reference = s->reference, .names = s->names,
				.cfg = s->cfg,
			};
			s->res.findings = checked.failed;
			emit(s, &e);
		}
	}

	/* 3. the Prometheus file (the map names its node label; the
	 * description label stays the NodeDescription, as export's), then the
	 * reports with mapped names */
	if (s->snap && prom) {
		if (fab_export_prometheus_file(s->snap, s->base, s->names, prom)) {
			step_failed(s, "the Prometheus export");
		} else {
			struct fab_sweep_event e = { .step = FAB_SWEEP_EXPORTED, .path = prom };
			emit(s, &e);
		}
	}
	if (s->snap && (fab_nodemap_apply(s->names, s->snap) ||
			(s->base && fab_nodemap_apply(s->names, s->base)))) {
		fab_err(-ENOMEM, "out of memory");
		step_failed(s, "naming nodes");
	}
	if (s->snap && dir && write_reports(s, dir))
		step_failed(s, "the reports");

	/* 4. retention (as `db prune`), reports of dropped scans with them */
	if ((keep || older) && prune(s, keep, older, dir))
		step_failed(s, "pruning");
}

int fab_pipeline_sweep(const struct fab_pipeline_sweep *job,
		       struct fab_pipeline_sweep_result *out)
{
	struct sweep s = { .job = job };
	struct fab_pipeline_scan scan = job->scan;
	long interval;
	int err;

	/* Everything that can be wrong with the setup fails before any MAD. */
	if ((err = fab_pipeline_load_config(job->config, &s.cfg)) ||
	    (err = fab_pipeline_load_site_rules(job->rules_dir, s.cfg, false, job->note,
						job->note_ctx, &s.site, NULL)))
		goto out;
	const char *dir = setting(&s, FAB_SWEEP_REPORT_DIR, NULL);
	const char *prom = setting(&s, FAB_SWEEP_PROMETHEUS, NULL);
	const char *keep = setting(&s, FAB_SWEEP_KEEP, NULL);
	const char *older = setting(&s, FAB_SWEEP_OLDER_THAN, NULL);
	const char *baseline = setting(&s, FAB_SWEEP_BASELINE, "previous");
	const char *expect = setting(&s, FAB_SWEEP_EXPECT, NULL);
	const char *map = setting(&s, FAB_SWEEP_NODE_NAME_MAP, NULL);
	int fail_on = fab_fail_on_parse(setting(&s, FAB_SWEEP_FAIL_ON, "error"));
	const char *iv = setting(&s, FAB_SWEEP_INTERVAL, "0");
	char *end;

	errno = 0;
	interval = strtol(iv, &end, 10);
	if (errno || !*iv || *end || interval < 0 || interval > 3600) {
		err = fab_err(-EINVAL, "interval must be seconds from 0 to 3600");
		goto out;
	}
	if (fail_on < 0) {
		err = fab_err(-EINVAL, "fail_on takes error, warning, info or never");
		goto out;
	}
	scan.so.interval_s = (int)interval;
	scan.label = job->scan.label ? job->scan.label : "sweep";
	if ((err = fab_nodemap_open(map && !strcmp(map, "none") ? "" : map, &s.names)) ||
	    (dir && (err = prepare_dir(dir))))
		goto out;
	if (job->make_db_dir)
		fab_pipeline_make_db_dir(job->db);
	if ((err = fab_store_open(job->db, FAB_STORE_WRITE, &s.st)))
		goto out;
	/* an expected topology from a file is read before the scan, too */
	if (expect && access(expect, F_OK) == 0 &&
	    (err = fab_pipeline_load_reference(s.st, expect, &s.reference)))
		goto out;

	/* 1. scan (as `scan`) */
	if ((err = fab_pipeline_scan_commit(s.st, &scan, &s.scanned)))
		goto out;
	s.res.scan_id = s.scanned->scan_id;
	s.res.scan_status = s.scanned->status;
	struct fab_sweep_event e = { .step = FAB_SWEEP_SCANNED, .snap = s.scanned };
	emit(&s, &e);
	after_scan(&s, dir, prom, keep, older, baseline, expect, (unsigned)fail_on);
	*out = s.res;
out:
	fab_snapshot_free(s.scanned);
	fab_snapshot_free(s.snap);
	fab_snapshot_free(s.base);
	fab_snapshot_free(s.reference);
	fab_nodemap_free(s.names);
	fab_store_close(s.st);
	fab_site_rules_free(s.site);
	fab_config_free(s.cfg);
	return err;
}
