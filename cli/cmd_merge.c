// SPDX-License-Identifier: MIT
/*
 * fabsweep merge: assembles snapshot files made by `fabsweep collect` (or by
 * other merges) into one fabric-wide snapshot (fab_pipeline_merge).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"

#define MAX_LISTS 64

int fab_cmd_merge(int argc, char **argv)
{
	enum { O_DB = 256, O_INTO, O_LIST, O_LABEL, O_QUIET, O_READY_DIR };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "into", required_argument, NULL, O_INTO },
		{ "list", required_argument, NULL, O_LIST },
		{ "ready-dir", required_argument, NULL, O_READY_DIR },
		{ "label", required_argument, NULL, O_LABEL },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_pipeline_merge job = { .db = fab_cli_default_db(), .note = fab_cli_note,
					  .list_in = stdin };
	struct fab_pipeline_merge_result res;
	const char *lists[MAX_LISTS];
	int c, quiet = 0, ret = FAB_EXIT_RUNTIME, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
		case O_INTO:
			job.db = optarg;
			job.into = true;
			break;
		case O_LIST:
			if (job.n_lists == MAX_LISTS)
				return fab_cli_usage_error("merge", "at most %d --list options", MAX_LISTS);
			lists[job.n_lists++] = optarg;
			break;
		case O_LABEL: job.label = optarg; break;
		case O_READY_DIR: job.ready_dir = optarg; break;
		case O_QUIET: quiet = 1; break;
		default:
			return fab_cli_usage_error("merge", "unknown option '%s'; 'fabsweep help merge' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind >= argc && !job.n_lists)
		return fab_cli_usage_error("merge", "which files? fabsweep merge --db DB FILE|DIR|-... "
					   "[--list FILE]");
	if (job.ready_dir && access(job.ready_dir, W_OK | X_OK) != 0)
		return fab_cli_usage_error("merge", "cannot write into --ready-dir '%s': %s", job.ready_dir,
					   strerror(errno));
	job.files = (const char *const *)argv + optind;
	job.n_files = (size_t)(argc - optind);
	job.lists = lists;
	if (quiet)
		job.note = NULL;

	err = fab_pipeline_merge(&job, &res);
	if (err == -EINVAL) {
		ret = fab_cli_usage_error("merge", "%s", fab_errmsg());
		goto out;
	}
	if (err == -ENOENT && res.snap && res.snap->n_errors && !quiet)
		fab_cli_print_errors(stderr, res.snap); /* why no file could be merged */
	if (err && res.snap && res.snap->scan_id > 0) /* committed, the extracts failed */
		fprintf(stderr, "fabsweep: scan %lld committed to %s; %zu readiness extracts written, then:\n",
			(long long)res.snap->scan_id, job.db, res.extracts);
	if (err) {
		fab_cli_fail();
		goto out;
	}
	struct fab_snapshot *snap = res.snap;
	ret = snap->status == FAB_SCAN_COMPLETE ? FAB_EXIT_OK : FAB_EXIT_PARTIAL;
	if (res.dups && !quiet)
		fprintf(stderr, "fabsweep: note: %zu system%s collected more than once; the newest view was kept\n",
			res.dups, res.dups == 1 ? " was" : "s were");
	if (!quiet) {
		if (res.same) {
			printf("scan %lld: no file changed since that merge read them (%zu files); nothing written\n",
			       (long long)snap->scan_id, res.inputs);
		} else {
			printf("scan %lld: merged %zu of %zu files", (long long)snap->scan_id, res.merged,
			       res.inputs);
			if (res.base_scan)
				printf(" (%zu unchanged since scan %lld)", res.unchanged, (long long)res.base_scan);
			printf("\n");
			fab_cli_roce_summary(stdout, snap);
		}
		fab_cli_print_errors(stdout, snap);
		printf("database: %s\n", job.db);
		if (job.ready_dir)
			printf("readiness extracts: %zu in %s\n", res.extracts, job.ready_dir);
	}
	if (ret == FAB_EXIT_PARTIAL)
		fab_cli_partial(snap);
out:
	fab_snapshot_free(res.snap);
	return ret;
}
