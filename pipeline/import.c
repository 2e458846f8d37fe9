// SPDX-License-Identifier: MIT
/*
 * Import (`fabsweep import`): a saved run of another tool (an ibdiagnet2
 * output directory, an ibnetdiscover file) into a new stored snapshot, so
 * that check, report, diff and SQL work on it (docs/imports.md). The file
 * is read and checked completely before the database is opened for
 * writing: malformed input writes nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/ibdiag.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/topo.h"

static const char *const kinds[] = {
	[FAB_IMPORT_IBDIAGNET2] = "ibdiagnet2",
	[FAB_IMPORT_IBNETDISCOVER] = "ibnetdiscover",
};
_Static_assert(ARRAY_SIZE(kinds) == FAB_IMPORT__COUNT, "kinds");

int fab_import_kind_parse(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(s, kinds[i]))
			return (int)i;
	return -1;
}

/* The snapshot of the input, not stored yet. */
static int read_input(const struct fab_pipeline_import *job, struct fab_snapshot *snap)
{
	int err;

	if (job->kind == FAB_IMPORT_IBDIAGNET2)
		return fab_ibdiag_import_dir(job->path, job->note, job->note_ctx, snap);
	if ((err = fab_topo_import_file(job->path, snap)))
		return err;
	/* "file:" is what check --expect calls a topology file; a stored
	 * import says which tool wrote it (the rules treat both alike) */
	snap->source = fab_snapshot_printf(snap, "ibnetdiscover:%s", job->path);
	return snap->source ? 0 : fab_err(-ENOMEM, "out of memory");
}

int fab_pipeline_import(const struct fab_pipeline_import *job, struct fab_snapshot **out)
{
	struct fab_snapshot *snap = fab_snapshot_new();
	struct fab_store *st = NULL;
	int err;

	if (!snap)
		return fab_err(-ENOMEM, "out of memory");
	if (job->kind >= FAB_IMPORT__COUNT) {
		err = fab_err(-EINVAL, "unknown kind of import");
		goto out;
	}
	if ((err = read_input(job, snap)))
		goto out;
	/* an ibnetdiscover file without its own time is stored as of now */
	if (!snap->started_at_ms)
		snap->started_at_ms = snap->finished_at_ms = fab_now_ms();
	if (job->label && !(snap->label = fab_snapshot_strdup(snap, job->label, SIZE_MAX))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	if (job->make_db_dir)
		fab_pipeline_make_db_dir(job->db);
	if ((err = fab_store_open(job->db, FAB_STORE_WRITE, &st)) ||
	    (err = fab_store_write_scan(st, snap)))
		goto out;
	*out = snap;
	snap = NULL;
out:
	fab_store_close(st);
	fab_snapshot_free(snap);
	return err;
}
