// SPDX-License-Identifier: MIT
/*
 * `fabsweep physical`: one stored scan's physical layer, rendered by
 * reports/ (model_phys.c, phys_text.c, json_phys.c) as text or JSON.
 */
#include <stdio.h>

#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

int fab_pipeline_physical(const struct fab_pipeline_physical *job)
{
	struct fab_nodemap *names = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *snap = NULL;
	int64_t id = job->scan_id;
	int err;

	if (!(err = fab_nodemap_open(job->node_name_map, &names)) &&
	    !(err = fab_store_open(job->db, FAB_STORE_READONLY, &st)) &&
	    !(err = fab_store_resolve_scan(st, id, &id)) && !(err = fab_store_load_scan(st, id, &snap)))
		err = fab_report_physical(snap, NULL, names, job->top, job->text, job->json);
	fab_snapshot_free(snap);
	fab_store_close(st);
	fab_nodemap_free(names);
	return err;
}
