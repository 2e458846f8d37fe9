// SPDX-License-Identifier: MIT
/*
 * `fabsweep ready --local` (docs/roce.md, "Readiness"): a RoCE host reads
 * itself as collect does, loads the merge it is compared with (the fabric's
 * database, or its own extract), and judges (pipeline/ready_roce.c).
 * Nothing is written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

static double clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* What the collection says (lldpd not running, DCB not asked ...). */
struct notes {
	char **v;
	size_t n, cap;
	bool nomem;
};

static void gather(const char *msg, void *ctx)
{
	struct notes *x = ctx;
	char *t;

	if (x->n == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 4;
		char **p = realloc(x->v, nc * sizeof(*p));
		if (!p) {
			x->nomem = true;
			return;
		}
		x->v = p;
		x->cap = nc;
	}
	if (!(t = strdup(msg)))
		x->nomem = true;
	else
		x->v[x->n++] = t;
}

/* This host as collect reads it, into a new snapshot. */
static int read_here(const struct fab_pipeline_ready_local *job, struct notes *notes,
		     struct fab_snapshot **out)
{
	struct fab_snapshot *live = fab_snapshot_new();
	struct fab_roce_opts ro = job->ro;
	int err;

	if (!live)
		return fab_err(-ENOMEM, "out of memory");
	ro.note = gather;
	ro.note_ctx = notes;
	/* the RoCE interfaces' statistics, one sample; their modules only
	 * when asked (an EEPROM is read over I2C: tens of ms a module) */
	ro.ethtool_roce_only = true;
	ro.no_modules = !job->modules;
	ro.interval_ms = 0;
	live->started_at_ms = fab_now_ms();
	live->status = FAB_SCAN_COMPLETE;
	live->source = fab_snapshot_strdup(live, "ready --local", SIZE_MAX);
	if ((err = fab_roce_collect(&ro, live)) || (notes->nomem && (err = fab_err(-ENOMEM, "out of memory")))) {
		fab_snapshot_free(live);
		return err;
	}
	/* what the collection missed is said, not a failure */
	for (size_t i = 0; i < live->n_errors; i++)
		gather(live->errors[i].message, notes);
	live->finished_at_ms = fab_now_ms();
	*out = live;
	return 0;
}

int fab_pipeline_ready_local(const struct fab_pipeline_ready_local *job,
			     struct fab_pipeline_ready_local_result **out)
{
	double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID), t1, t2;
	struct fab_config *cfg = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *ref = NULL, *live = NULL;
	struct notes notes = { 0 };
	int err;

	if ((err = fab_pipeline_load_config(job->config, &cfg)))
		goto out;
	if (access(job->db, F_OK) != 0) {
		err = fab_err(-ENOENT, "database '%s' does not exist: ready --local compares this host with the last merge (the fabric's database, or this host's extract from 'merge --ready-dir'; pass --db)",
			      job->db);
		goto out;
	}
	if ((err = fab_store_open(job->db, FAB_STORE_READONLY, &st)) ||
	    (err = fab_store_load_roce_scan(st, job->scan_id, &ref)))
		goto out;
	fab_store_close(st);
	st = NULL;
	t1 = clock_ms(CLOCK_MONOTONIC);
	if ((err = read_here(job, &notes, &live)))
		goto out;
	t2 = clock_ms(CLOCK_MONOTONIC);
	struct fab_ready_roce_in in = { .ref = ref, .live = live, .cfg = cfg, .name = job->system,
					.fail_on = job->fail_on, .notes = (const char *const *)notes.v,
					.n_notes = notes.n };
	ref = live = NULL; /* the judge takes them */
	if ((err = fab_ready_roce_judge(&in, out)))
		goto out;
	(*out)->load_ms = t1 - t0;
	(*out)->collect_ms = t2 - t1;
	(*out)->judge_ms = clock_ms(CLOCK_MONOTONIC) - t2;
	(*out)->total_ms = clock_ms(CLOCK_MONOTONIC) - t0;
	(*out)->cpu_ms = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
out:
	for (size_t i = 0; i < notes.n; i++)
		free(notes.v[i]);
	free(notes.v);
	fab_snapshot_free(ref);
	fab_snapshot_free(live);
	fab_store_close(st);
	fab_config_free(cfg);
	return err;
}
