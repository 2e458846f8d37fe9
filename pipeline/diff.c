// SPDX-License-Identifier: MIT
/*
 * Diff (`fabsweep diff`): two stored snapshots compared (core/diff.c) and
 * rendered as text and XML (reports/diff.c) or JSON (reports/json_diff.c).
 */
#include <stdio.h>

#include "fabsweep/diff.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report.h"
#include "fabsweep/report_json.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

int fab_pipeline_diff(const struct fab_pipeline_diff *job, size_t *n_changes)
{
	int64_t ids[2] = { job->old_id, job->new_id };
	struct fab_nodemap *names = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *snaps[2] = { NULL, NULL };
	struct fab_diff *d = NULL;
	int err;

	if ((err = fab_nodemap_open(job->node_name_map, &names)) ||
	    (err = fab_store_open(job->db, FAB_STORE_READONLY, &st)))
		goto out;
	if (job->baseline && (err = fab_store_baseline_resolve(st, job->baseline, &ids[0])))
		goto out;
	for (int i = 0; i < 2; i++)
		if ((err = fab_store_resolve_scan(st, ids[i], &ids[i])) ||
		    (err = fab_store_load_scan(st, ids[i], &snaps[i])))
			goto out;
	if ((err = fab_diff_compute(snaps[0], snaps[1], &d)) ||
	    (job->text && (err = fab_report_diff_text(job->text, d, snaps[0], snaps[1], names))) ||
	    (job->json && (err = fab_json_diff(job->json, d, snaps[0], snaps[1], names))) ||
	    (job->xml && (err = fab_report_diff_xml(job->xml, d, snaps[0], snaps[1], names))))
		goto out;
	if (n_changes)
		*n_changes = d->n;
out:
	fab_diff_free(d);
	fab_snapshot_free(snaps[0]);
	fab_snapshot_free(snaps[1]);
	fab_store_close(st);
	fab_nodemap_free(names);
	return err;
}
