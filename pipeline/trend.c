// SPDX-License-Identifier: MIT
/*
 * The trends of a period for the HTML report (fab_pipeline_trend): the
 * store's history (store/history.c) fed to the trend model (core/trend.c)
 * in two queries, the first over every port, the second over the ports
 * charted. Shared by `report` and `sweep`.
 */
#include <errno.h>
#include <stdlib.h>

#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store_history.h"
#include "fabsweep/trend.h"

static int on_raised(const struct fab_history_finding *h, void *ctx)
{
	return fab_trend_add_finding(ctx, &h->f, h->first_ms, h->last_ms, h->last_scan_id, h->n_scans);
}

static int on_tally(const struct fab_history_row *r, void *ctx)
{
	return fab_trend_tally(ctx, r->node_guid, r->port_num, r->before, &r->sample);
}

static int on_series(const struct fab_history_row *r, void *ctx)
{
	fab_trend_series(ctx, r->sample.port_idx, r->before, &r->sample);
	return 0;
}

int fab_pipeline_trend(struct fab_store *st, const struct fab_snapshot *snap, int64_t from_ms,
		       int64_t to_ms, bool with_findings, size_t n_top, struct fab_trend *out)
{
	struct fab_port_key *keys = NULL;
	int err;

	if ((err = fab_trend_init(out, from_ms, to_ms)) ||
	    ((out->since = with_findings) && (err = fab_store_findings_history(st, from_ms, to_ms, on_raised, out))) ||
	    (err = fab_store_counter_history(st, from_ms, to_ms, NULL, 0, on_tally, out)) ||
	    (err = fab_trend_pick(out, snap, n_top)))
		return err;
	/* the charts are in key order: a row's key index is its chart */
	if (out->n_charts && !(keys = calloc(out->n_charts, sizeof(*keys))))
		return fab_err(-ENOMEM, "out of memory building the trends");
	for (size_t i = 0; i < out->n_charts; i++)
		keys[i] = (struct fab_port_key){ out->charts[i].node_guid, out->charts[i].port_num };
	if (out->n_charts)
		err = fab_store_counter_history(st, from_ms, to_ms, keys, out->n_charts, on_series, out);
	free(keys);
	if (!err)
		fab_trend_finish(out);
	return err;
}

int fab_pipeline_trend_day(struct fab_store *st, const struct fab_snapshot *snap,
			   struct fab_trend *out)
{
	int64_t to = snap->finished_at_ms > snap->started_at_ms ? snap->finished_at_ms
								: snap->started_at_ms + 1;

	return fab_pipeline_trend(st, snap, to - FAB_TREND_DAY_MS, to, false, FAB_TREND_TOP, out);
}
