// SPDX-License-Identifier: MIT
/*
 * Merge (`fabsweep merge`): assembles snapshot files made by `fabsweep
 * collect` on every host and switch (or by other merges: per rack, then
 * the racks) into one snapshot of the whole Ethernet fabric: neighbours
 * resolved into links with both ends, roles inferred, written as one new
 * scan with the files it was made of (merge_inputs). A file that cannot be
 * read is recorded (scan_errors, what "merge") and the merge goes on; the
 * scan is then partial. With `into`, the latest merge in the target is the
 * start: its systems, and of the inputs only the files that changed since
 * it read them; when none changed, nothing is written (the latest merge
 * is still the fabric as the files say); else the merge is written as a
 * delta on the last whole merge when few systems changed (core/roce_delta.c,
 * docs/schema.md "RoCE deltas"). Inputs are only read (fab_store_read_input): nothing is
 * written beside them; the target is created only when there is something
 * to write.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/roce.h"
#include "fabsweep/roce_delta.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "merge_priv.h"

static void missed(struct fab_snapshot *snap, const char *msg)
{
	fab_snapshot_add_error(snap, 0, -1, "merge", "%s", msg);
	snap->status = FAB_SCAN_PARTIAL;
}

static int64_t mtime_ns(const struct stat *sb)
{
	return (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
}

/* Whether file is as an earlier merge read it (was, its record there): the
 * same modification time and size; a file that failed is read again. */
static bool as_read(const struct fab_roce_input *was, const char *file)
{
	struct stat sb;

	return was->status != FAB_MERGE_FAILED && !stat(file, &sb) && was->mtime_ns == mtime_ns(&sb) &&
	       was->size == (int64_t)sb.st_size;
}

/* Merges one file into snap->roce; 0, or -ENOMEM (everything else is data). */
static int merge_one(const struct fab_pipeline_merge *job, struct fab_store_reader *rd,
		     struct fab_snapshot *snap, const char *file, struct fab_pipeline_merge_result *res)
{
	struct fab_snapshot *sub = NULL;
	struct fab_store_input info;
	int err;

	if ((err = fab_store_read_input(rd, file, &sub, &info))) {
		if (err == -ENOMEM)
			return err;
		missed(snap, fab_errmsg());
		return fab_roce_add_input(snap->roce, file, info.mtime_ns, info.size, FAB_MERGE_FAILED);
	}
	int64_t mt = info.mtime_ns, size = info.size;
	bool ib = info.has_ib, direct = info.direct;
	res->via_sqlite += !direct;
	if (!sub->roce || !sub->roce->n_systems) {
		char msg[4200];
		snprintf(msg, sizeof(msg), "'%s' holds no RoCE data: it was not made by 'fabsweep collect'"
					   " (or a merge); leave it out", file);
		missed(snap, msg);
		fab_snapshot_free(sub);
		return fab_roce_add_input(snap->roce, file, mt, size, FAB_MERGE_FAILED);
	}
	char *msg = NULL;
	if (ib && job->note && asprintf(&msg, "the InfiniBand part of '%s' is not merged", file) >= 0) {
		job->note(msg, job->note_ctx);
		free(msg);
	}
	/* a merged input keeps its systems' sources (the files they came from) */
	bool merged = sub->source && !strncmp(sub->source, "merge:", 6);
	const char *base = strrchr(file, '/');
	size_t len = strlen(file) + 8, d = 0;
	char *source = malloc(len);
	if (!source) {
		fab_snapshot_free(sub);
		return -ENOMEM;
	}
	snprintf(source, len, "file:%s", base ? base + 1 : file);
	err = fab_roce_merge(snap->roce, sub->roce, merged ? NULL : source, &d);
	free(source);
	if (!err)
		err = fab_roce_add_input(snap->roce, file, mt, size, FAB_MERGE_MERGED);
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

/* ---- into: the latest merge and what changed since ------------------------- */

/* The base merge's input records by file (an index into base->inputs). */
struct base {
	struct fab_snapshot *snap;
	int64_t id;              /* its scan */
	int64_t keyframe;        /* the whole merge a delta of it would change */
	struct fab_roce_mark *mark;
	const struct fab_roce_input **sorted;
	size_t n;
};

static int cmp_input(const void *a, const void *b)
{
	return strcmp((*(const struct fab_roce_input *const *)a)->file,
		      (*(const struct fab_roce_input *const *)b)->file);
}

static const struct fab_roce_input *base_input(const struct base *b, const char *file)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(b->sorted[mid]->file, file);
		if (!c)
			return b->sorted[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Loads merge id of st, the start of the new one: its model (moved later),
 * its times, the errors about files it is not going to read again. */
static int load_base(struct fab_store *st, int64_t id, const char *ready_dir, struct base *b,
		     struct fab_pipeline_merge_result *res)
{
	int err;

	/* the counters as stored, unless the extracts need them read */
	if ((err = ready_dir ? fab_store_load_scan(st, id, &b->snap) : fab_store_load_merge_base(st, id, &b->snap)))
		return err;
	res->base_scan = b->id = id;
	const struct fab_roce *r = b->snap->roce;
	b->n = r ? r->n_inputs : 0;
	if (b->n && !(b->sorted = malloc(b->n * sizeof(*b->sorted))))
		return fab_err(-ENOMEM, "out of memory");
	for (size_t i = 0; i < b->n; i++)
		b->sorted[i] = &r->inputs[i];
	qsort(b->sorted, b->n, sizeof(*b->sorted), cmp_input);
	return 0;
}

/* The share of a fabric's systems above which a merge --into is written
 * whole (the next keyframe) rather than as a delta on the last one: a
 * delta's rows are read with its keyframe's, so a delta much larger than
 * that costs every later load. */
#define DELTA_MAX_SHARE 0.25

/* Before files are merged into the base model r: what a delta needs to
 * know of it (core/roce_delta.c), when its keyframe can carry one
 * (fab_store_keyframe_ok). A base that is itself a delta keeps its
 * keyframe and its stored indices. */
static int mark_base(struct base *b, struct fab_store *st, struct fab_roce *r)
{
	struct fab_roce_delta *was = r->delta;
	bool ok;
	int err;

	r->delta = NULL;
	b->keyframe = was ? was->base_scan : b->id;
	if (!(err = fab_store_keyframe_ok(st, b->keyframe, &ok)) && ok &&
	    (err = fab_roce_mark_base(r, was, was ? was->write : NULL, &b->mark)))
		err = fab_err(err, "out of memory");
	fab_roce_delta_free(was);
	return err;
}

/* After resolving r: a delta on the keyframe, when it is worth one. */
static int plan_delta(struct base *b, struct fab_roce *r)
{
	int err;

	if ((err = fab_roce_delta_plan(r, b->mark, DELTA_MAX_SHARE, &r->delta)))
		return fab_err(err, "out of memory");
	if (r->delta)
		r->delta->base_scan = b->keyframe;
	return 0;
}

/* Whether a base error is about file (its messages start "'file'" or "file:"). */
static bool about(const char *msg, const char *file)
{
	size_t n = strlen(file);

	if (msg[0] == '\'')
		return !strncmp(msg + 1, file, n) && msg[n + 1] == '\'';
	return !strncmp(msg, file, n) && msg[n] == ':';
}

/* What a directory given without *.db files is said to be (merge_inputs). */
#define NO_DB_DIR_AT "directory '"
#define NO_DB_DIR NO_DB_DIR_AT "%s' holds no *.db file: give the directory the collected files are in"

/* The base's times with the files', and its errors about the files not read again
 * (reread[k]: base input k was); not those about directories given: this
 * merge expands what it is given again and says so itself. */
static int start_from_base(struct fab_snapshot *snap, const struct fab_snapshot *bs,
			   const struct fab_roce_input *carried, size_t n, const bool *reread)
{
	int err = 0;

	/* the base's span and the files read now: from the earliest to the latest */
	if (!snap->started_at_ms || (bs->started_at_ms && bs->started_at_ms < snap->started_at_ms))
		snap->started_at_ms = bs->started_at_ms;
	if (bs->finished_at_ms > snap->finished_at_ms)
		snap->finished_at_ms = bs->finished_at_ms;
	for (size_t i = 0; !err && i < bs->n_errors; i++) {
		const struct fab_scan_error *e = &bs->errors[i];
		bool drop = !strncmp(e->message, NO_DB_DIR_AT, sizeof(NO_DB_DIR_AT) - 1);
		for (size_t k = 0; k < n && !drop; k++)
			drop = reread[k] && about(e->message, carried[k].file);
		if (drop)
			continue;
		err = fab_snapshot_add_error(snap, e->node_guid, e->port_num, e->what, "%s", e->message);
		snap->status = FAB_SCAN_PARTIAL;
	}
	return err;
}

/* ---- into, when nothing changed ------------------------------------------ */

/* The inputs given, in strcmp order, against the base's records of them. */
struct same {
	const char **given;
	size_t n, next;
	bool same;
};

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int same_input(const struct fab_roce_input *was, void *ctx)
{
	struct same *x = ctx;

	while (x->next < x->n) {
		int c = strcmp(x->given[x->next], was->file);
		if (c > 0)
			return 0; /* a file of the base not given: its systems stay */
		if (c < 0) {
			x->same = false; /* given, not in the base: new */
			return 1;
		}
		x->next++;
		x->same = as_read(was, was->file);
		return !x->same;
	}
	return 1; /* every input given is accounted for */
}

/*
 * Whether a merge --into of in would write the base merge again: every
 * input given is a file the base read (or found unchanged) and is as it
 * was then (modification time and size). Files of the base not given keep
 * their systems either way; a file that failed is always read again.
 */
static int nothing_changed(struct fab_store *st, int64_t base, const struct merge_paths *in, bool *out)
{
	struct same x = { .n = in->n, .same = true };
	int err;

	*out = false;
	if (in->n_problems || !in->n)
		return 0;
	if (!(x.given = malloc(in->n * sizeof(*x.given))))
		return fab_err(-ENOMEM, "out of memory");
	memcpy(x.given, in->path, in->n * sizeof(*x.given));
	qsort(x.given, x.n, sizeof(*x.given), cmp_path);
	err = fab_store_merge_inputs(st, base, same_input, &x);
	*out = err >= 0 && x.same && x.next == x.n;
	free(x.given);
	return err < 0 ? err : 0;
}

/* The base as this merge's result, nothing written; its readiness extracts
 * when asked (they are the base's own). */
static int keep_base(const struct fab_pipeline_merge *job, struct fab_store *st, int64_t base,
		     struct fab_pipeline_merge_result *res)
{
	int err;

	fab_snapshot_free(res->snap);
	res->snap = NULL;
	res->base_scan = base;
	res->unchanged = res->inputs;
	res->same = true;
	if (!job->ready_dir)
		return fab_store_load_header(st, base, &res->snap);
	if ((err = fab_store_load_scan(st, base, &res->snap)))
		return err;
	return fab_pipeline_ready_extract(res->snap, job->ready_dir, job->note, job->note_ctx,
					  &res->extracts);
}

/* ---- the merge ------------------------------------------------------------- */

/* The target: opened when it exists (a bad --db fails before any input is
 * read), else only checked to be creatable: it is created at the end, when
 * there is something to write. */
static int open_target(const char *db, struct fab_store **st)
{
	struct stat sb;
	char dir[4096];
	const char *slash = strrchr(db, '/');

	if (!stat(db, &sb))
		return fab_store_open(db, FAB_STORE_WRITE, st);
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - db) + (slash == db), db);
	else
		snprintf(dir, sizeof(dir), ".");
	if (access(dir, W_OK))
		return fab_err(-errno, "database '%s' cannot be created in '%s' (%s): choose another --db",
			       db, dir, strerror(errno));
	return 0;
}

/* The files to read and the records of what was not read again. */
static int merge_inputs(const struct fab_pipeline_merge *job, struct fab_pipeline_merge_result *res,
			const struct merge_paths *in, struct base *b, struct fab_store *st,
			struct fab_store_reader *rd)
{
	struct fab_snapshot *snap = res->snap;
	struct fab_roce_input *carried = NULL;
	size_t n_carried = 0;
	bool *reread = NULL, *given = NULL;
	int err = 0;

	if (b->snap && b->snap->roce) {
		/* the base's model is the start; its input records are rebuilt */
		fab_roce_free(snap->roce);
		snap->roce = b->snap->roce;
		b->snap->roce = NULL;
		if ((err = mark_base(b, st, snap->roce)))
			goto out;
		carried = snap->roce->inputs;
		n_carried = snap->roce->n_inputs;
		snap->roce->inputs = NULL;
		snap->roce->n_inputs = snap->roce->cap_inputs = 0;
		snap->roce->inputs_base = b->id; /* every record of it is given again */
	}
	if (n_carried && (!(reread = calloc(n_carried, 1)) || !(given = calloc(n_carried, 1)))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < in->n_problems; i++) {
		char msg[4200];
		snprintf(msg, sizeof(msg), NO_DB_DIR, in->problem[i]);
		missed(snap, msg);
	}
	for (size_t i = 0; !err && i < in->n; i++) {
		const char *file = in->path[i];
		const struct fab_roce_input *was = b->n ? base_input(b, file) : NULL;

		if (was)
			given[was - carried] = true;
		if (was && as_read(was, file)) {
			res->unchanged++;
			err = fab_roce_add_input(snap->roce, file, was->mtime_ns, was->size,
						 FAB_MERGE_UNCHANGED);
			continue;
		}
		if (was)
			reread[was - carried] = true;
		err = merge_one(job, rd, snap, file, res);
	}
	/* the base's files not given this time: their systems stay, so do they */
	for (size_t k = 0; !err && k < n_carried; k++)
		if (!given[k])
			err = fab_roce_add_input(snap->roce, carried[k].file, carried[k].mtime_ns,
						 carried[k].size, carried[k].status);
	if (!err && b->snap)
		err = start_from_base(snap, b->snap, carried, n_carried, reread);
out:
	free(carried);
	free(reread);
	free(given);
	return err == -ENOMEM ? fab_err(err, "out of memory") : err;
}

int fab_pipeline_merge(const struct fab_pipeline_merge *job,
		       struct fab_pipeline_merge_result *out)
{
	struct fab_pipeline_merge_result res = { 0 };
	struct merge_paths in = { 0 };
	struct base b = { 0 };
	struct fab_store *st = NULL;
	struct fab_store_reader *rd = NULL;
	size_t skipped = 0;
	char host[256] = "";
	int err;

	if (!(res.snap = fab_snapshot_new()) || !fab_snapshot_roce(res.snap)) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	struct fab_snapshot *snap = res.snap;
	gethostname(host, sizeof(host) - 1);
	snap->host = fab_snapshot_strdup(snap, host, SIZE_MAX);
	snap->label = job->label ? fab_snapshot_strdup(snap, job->label, SIZE_MAX) : NULL;
	snap->status = FAB_SCAN_COMPLETE;
	if ((err = fab_merge_paths_expand(job, &in, &skipped)))
		goto out;
	res.inputs = in.n;
	if (skipped && job->note)
		job->note("the target database is among the inputs' directory: left out", job->note_ctx);
	if (!in.n && !in.n_problems) {
		err = fab_err(-ENOENT, "no input to merge: give files, directories of *.db files, or a list"
				       " (--list FILE; '-' reads the paths from standard input)");
		goto out;
	}
	if ((err = open_target(job->db, &st)))
		goto out;
	/* into: the latest merge is the start (none: a full merge); when no
	 * input changed since, it is the answer (unless a label asks for a
	 * scan of its own) */
	int64_t base = 0;
	bool same = false;
	if (job->into && st && fab_store_latest_merge(st, &base))
		base = 0;
	if (base && !job->label && ((err = nothing_changed(st, base, &in, &same)) || same)) {
		if (!err)
			err = keep_base(job, st, base, &res);
		goto out;
	}
	if ((base && (err = load_base(st, base, job->ready_dir, &b, &res))) || (err = fab_store_reader_new(&rd)) ||
	    (err = merge_inputs(job, &res, &in, &b, st, rd)))
		goto out;
	fab_store_reader_free(rd);
	rd = NULL;
	size_t have = res.merged + res.unchanged;
	if (!have) {
		err = in.n + in.n_problems == 1
			      ? fab_err(-ENOENT, "the input could not be merged; nothing was written")
			      : fab_err(-ENOENT, "none of the %zu inputs could be merged; nothing was written",
					in.n + in.n_problems);
		goto out;
	}
	snap->source = fab_snapshot_printf(snap, "merge:%zu file%s", have, have == 1 ? "" : "s");
	if (!snap->started_at_ms)
		snap->started_at_ms = fab_now_ms();
	if (!snap->finished_at_ms)
		snap->finished_at_ms = fab_now_ms();
	if ((err = fab_roce_resolve(snap->roce))) {
		err = fab_err(err, "out of memory");
		goto out;
	}
	if (b.mark && (err = plan_delta(&b, snap->roce)))
		goto out;
	/* what the base left stored (RDMA devices, modules, NIC counters) of the
	 * systems written again */
	if (b.snap && (err = fab_store_load_later(st, snap->roce,
						       snap->roce->delta ? snap->roce->delta->write : NULL)))
		goto out;
	if (!st && (err = fab_store_open(job->db, FAB_STORE_WRITE, &st)))
		goto out;
	if ((err = fab_store_write_scan(st, snap)))
		goto out;
	if (job->ready_dir)
		err = fab_pipeline_ready_extract(snap, job->ready_dir, job->note, job->note_ctx,
						 &res.extracts);
out:
	fab_store_reader_free(rd);
	fab_store_close(st);
	fab_merge_paths_free(&in);
	fab_snapshot_free(b.snap);
	fab_roce_mark_free(b.mark);
	free(b.sorted);
	*out = res;
	return err;
}
