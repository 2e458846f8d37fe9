// SPDX-License-Identifier: MIT
/*
 * Merge (`fabsweep merge`): assembles snapshot files made by `fabsweep
 * collect` on every host and switch into one snapshot of the whole
 * Ethernet fabric: neighbours resolved into links with both ends, roles
 * inferred, written as one new scan. A file that cannot be read is recorded
 * (scan_errors, what "merge") and the merge goes on; the scan is then
 * partial.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

static void missed(struct fab_snapshot *snap, const char *file, const char *msg)
{
	fab_snapshot_add_error(snap, 0, -1, "merge", "'%s': %s", file, msg);
	snap->status = FAB_SCAN_PARTIAL;
}

/* Merges one file into snap->roce; 0, or -ENOMEM (everything else is data). */
static int merge_one(const struct fab_pipeline_merge *job, struct fab_snapshot *snap,
		     const char *file, struct fab_pipeline_merge_result *res)
{
	struct fab_store *st = NULL;
	struct fab_snapshot *sub = NULL;
	int err;

	fab_err_clear();
	if ((err = fab_store_open(file, FAB_STORE_READONLY, &st)) ||
	    (err = fab_store_load_scan(st, 0, &sub))) {
		missed(snap, file, fab_errmsg());
		fab_store_close(st);
		return err == -ENOMEM ? err : 0;
	}
	fab_store_close(st);
	if (!sub->roce || !sub->roce->n_systems) {
		missed(snap, file, "holds no RoCE data (not made by 'fabsweep collect'?)");
		fab_snapshot_free(sub);
		return 0;
	}
	char *msg = NULL;
	if (sub->n_nodes && job->note &&
	    asprintf(&msg, "the InfiniBand part of '%s' is not merged", file) >= 0) {
		job->note(msg, job->note_ctx);
		free(msg);
	}
	const char *base = strrchr(file, '/');
	size_t len = strlen(file) + 8, d = 0;
	char *source = malloc(len);
	if (!source) {
		fab_snapshot_free(sub);
		return -ENOMEM;
	}
	snprintf(source, len, "file:%s", base ? base + 1 : file);
	err = fab_roce_merge(snap->roce, sub->roce, source, &d);
	free(source);
	if (!err) {
		res->dups += d;
		res->merged++;
		if (!snap->started_at_ms || (sub->started_at_ms && sub->started_at_ms < snap->started_at_ms))
			snap->started_at_ms = sub->started_at_ms;
		if (sub->finished_at_ms > snap->finished_at_ms)
			snap->finished_at_ms = sub->finished_at_ms;
		/* what the collector missed stays recorded, under the file's name */
		for (size_t i = 0; !err && i < sub->n_errors; i++)
			err = fab_snapshot_add_error(snap, sub->errors[i].node_guid,
						     sub->errors[i].port_num, sub->errors[i].what,
						     "%s: %s", file, sub->errors[i].message);
		if (sub->status != FAB_SCAN_COMPLETE)
			snap->status = FAB_SCAN_PARTIAL;
	}
	fab_snapshot_free(sub);
	return err;
}

int fab_pipeline_merge(const struct fab_pipeline_merge *job,
		       struct fab_pipeline_merge_result *out)
{
	struct fab_pipeline_merge_result res = { 0 };
	struct fab_store *st = NULL;
	char host[256] = "";
	int err;

	/* Open the target first: a bad --db fails before any file is read. */
	if ((err = fab_store_open(job->db, FAB_STORE_WRITE, &st)))
		goto out;
	if (!(res.snap = fab_snapshot_new()) || !fab_snapshot_roce(res.snap)) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	struct fab_snapshot *snap = res.snap;
	gethostname(host, sizeof(host) - 1);
	snap->host = fab_snapshot_strdup(snap, host, SIZE_MAX);
	snap->label = job->label ? fab_snapshot_strdup(snap, job->label, SIZE_MAX) : NULL;
	snap->status = FAB_SCAN_COMPLETE;
	for (size_t i = 0; !err && i < job->n_files; i++)
		err = merge_one(job, snap, job->files[i], &res);
	if (err) {
		err = fab_err(err, "out of memory");
		goto out;
	}
	if (!res.merged) {
		err = fab_err(-ENOENT, "none of the %zu file%s could be merged; nothing was written",
			      job->n_files, job->n_files == 1 ? "" : "s");
		goto out;
	}
	snap->source = fab_snapshot_printf(snap, "merge:%zu file%s", res.merged,
					   res.merged == 1 ? "" : "s");
	if (!snap->started_at_ms)
		snap->started_at_ms = fab_now_ms();
	if (!snap->finished_at_ms)
		snap->finished_at_ms = fab_now_ms();
	if ((err = fab_roce_resolve(snap->roce))) {
		err = fab_err(err, "out of memory");
		goto out;
	}
	if ((err = fab_store_write_scan(st, snap)))
		goto out;
	if (job->ready_dir)
		err = fab_pipeline_ready_extract(snap, job->ready_dir, job->note, job->note_ctx,
						 &res.extracts);
out:
	fab_store_close(st);
	*out = res;
	return err;
}
