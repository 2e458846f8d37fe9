// SPDX-License-Identifier: MIT
/*
 * Collect (`fabsweep collect`): this machine's own RoCE view (its lldpd,
 * sysfs and DCB) into a snapshot file, a fabsweep database holding one
 * scan, for `fabsweep merge` to assemble with every other machine's.
 */
#include <errno.h>
#include <signal.h>
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

/* Writes snap into a new database at path: a temporary name, then rename. */
static int write_file(const char *path, struct fab_snapshot *snap)
{
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	struct fab_store *st = NULL;
	sigset_t block, old;
	int err;

	if (!tmp)
		return fab_err(-ENOMEM, "out of memory");
	snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
	unlink(tmp);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!(err = fab_store_open(tmp, FAB_STORE_WRITE, &st)))
		err = fab_store_write_scan(st, snap);
	fab_store_close(st);
	if (!err && rename(tmp, path) != 0)
		err = fab_err(-errno, "cannot write '%s': %s", path, strerror(errno));
	if (err) {
		char side[4096];
		unlink(tmp);
		snprintf(side, sizeof(side), "%s-wal", tmp);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", tmp);
		unlink(side);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
	return err;
}

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
		err = write_file(job->out, snap);
	}
	if (err) {
		fab_snapshot_free(snap);
		return err;
	}
	*out = snap;
	return 0;
}
