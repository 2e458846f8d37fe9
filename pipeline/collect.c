// SPDX-License-Identifier: MIT
/*
 * Collect (`fabsweep collect`): this machine's own RoCE view (its lldpd,
 * sysfs and DCB) into a snapshot file, a fabsweep database holding one
 * scan, for `fabsweep merge` to assemble with every other machine's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

int fab_pipeline_collect(const struct fab_pipeline_collect *job, struct fab_snapshot **out)
{
	struct fab_snapshot *snap = fab_snapshot_new();
	char host[256] = "";
	int err;

	if (!snap)
		return fab_err(-ENOMEM, "out of memory");
	gethostname(host, sizeof(host) - 1);
	snap->host = fab_snapshot_strdup(snap, host, SIZE_MAX);
	snap->label = job->label ? fab_snapshot_strdup(snap, job->label, SIZE_MAX) : NULL;
	snap->source = fab_snapshot_strdup(snap, "collect", SIZE_MAX);
	snap->started_at_ms = fab_now_ms();
	snap->status = FAB_SCAN_COMPLETE;
	if (!(err = fab_roce_collect(&job->ro, snap))) {
		snap->finished_at_ms = fab_now_ms();
		err = fab_pipeline_write_file(job->out, snap);
	}
	if (err) {
		fab_snapshot_free(snap);
		return err;
	}
	*out = snap;
	return 0;
}
