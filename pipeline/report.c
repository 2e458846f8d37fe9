// SPDX-License-Identifier: MIT
/*
 * Report and export (`fabsweep report`, `fabsweep export prometheus`): a
 * stored scan rendered by reports/, node names mapped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/trend.h"

int fab_pipeline_report(const struct fab_pipeline_report *job,
			struct fab_pipeline_report_result *out)
{
	struct fab_pipeline_report_result res = { 0 };
	struct fab_snapshot *snap = NULL, *base = NULL;
	struct fab_nodemap *names = NULL;
	struct fab_store *st = NULL;
	struct fab_report_opts opts = job->opts;
	struct fab_trend trend = { 0 };
	int64_t now = job->now_ms ? job->now_ms : fab_now_ms();
	int err;

	if (job->since_ms < 0)
		return fab_err(-EINVAL, "a negative period");
	if ((err = fab_store_open(job->db, FAB_STORE_READONLY, &st)) ||
	    (err = fab_store_resolve_scan(st, job->since_ms ? 0 : job->scan_id, &res.scan_id)) ||
	    (err = fab_store_load_scan(st, res.scan_id, &snap)) ||
	    (job->baseline && ((err = fab_store_baseline_resolve(st, job->baseline, &res.base_id)) ||
			       (err = fab_store_load_scan(st, res.base_id, &base)))))
		goto out;
	/* the period: the one asked for up to now, else the day before the scan */
	if (!job->no_trends) {
		if ((err = job->since_ms ? fab_pipeline_trend(st, snap, now - job->since_ms, now, true,
							      FAB_TREND_TOP, &trend)
					 : fab_pipeline_trend_day(st, snap, &trend)))
			goto out;
		opts.trend = &trend;
		res.n_charts = trend.n_steps ? trend.n_charts : 0; /* none drawn without a step */
		res.n_raised = trend.n_raised;
	}
	fab_store_close(st);
	st = NULL;
	/* node-name-map names replace descriptions in the rendered report */
	fab_err_clear();
	if ((err = fab_nodemap_open(job->node_name_map, &names)) ||
	    (err = fab_nodemap_apply(names, snap)) ||
	    (base && (err = fab_nodemap_apply(names, base)))) {
		if (!fab_errmsg()[0])
			fab_err(err, "out of memory");
		goto out;
	}
	if ((err = fab_report_write(snap, base, &opts, job->xml, job->html)))
		goto out;
	res.verdict = fab_report_verdict(snap);
	for (size_t i = 0; i < snap->n_findings; i++) {
		unsigned sev = snap->findings[i].severity;
		res.by_severity[sev < FAB_SEV__COUNT ? sev : FAB_SEV_ERROR]++;
	}
	*out = res;
out:
	fab_trend_free(&trend);
	fab_nodemap_free(names);
	fab_snapshot_free(snap);
	fab_snapshot_free(base);
	fab_store_close(st);
	return err;
}

int fab_pipeline_export(const struct fab_pipeline_export *job, int64_t *scan_id)
{
	struct fab_nodemap *names = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *snap = NULL, *base = NULL;
	int64_t id, base_id;
	int err;

	if ((err = fab_nodemap_open(job->node_name_map, &names)) ||
	    (err = fab_store_open(job->db, FAB_STORE_READONLY, &st)) ||
	    (err = fab_store_resolve_scan(st, job->scan_id, &id)) ||
	    (err = fab_store_load_scan(st, id, &snap)) ||
	    (job->baseline && ((err = fab_store_baseline_resolve(st, job->baseline, &base_id)) ||
			       (err = fab_store_load_baseline(st, base_id, &base)))))
		goto out;
	if (job->out)
		err = fab_export_prometheus_file(snap, base, names, job->out);
	else if (!(err = fab_export_prometheus(snap, base, names, job->stream)) && fflush(job->stream))
		err = fab_err(-EIO, "cannot write the export: %s", strerror(errno));
	if (!err && scan_id)
		*scan_id = id;
out:
	fab_snapshot_free(snap);
	fab_snapshot_free(base);
	fab_store_close(st);
	fab_nodemap_free(names);
	return err;
}
