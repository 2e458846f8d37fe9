// SPDX-License-Identifier: MIT
/*
 * fabsweep merge: assembles snapshot files made by `fabsweep collect` on
 * every host and switch into one snapshot of the whole Ethernet fabric:
 * neighbours resolved into links with both ends, roles inferred, written as
 * one new scan. A file that cannot be read is recorded (scan_errors, what
 * "merge") and the merge goes on; the scan is then partial.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

/* Whether a and b name the same existing file. */
static bool same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

static void missed(struct fab_snapshot *snap, const char *file, const char *msg)
{
	fab_snapshot_add_error(snap, 0, -1, "merge", "'%s': %s", file, msg);
	snap->status = FAB_SCAN_PARTIAL;
}

/* Merges one file into snap->roce; 0, or -ENOMEM (everything else is data). */
static int merge_one(struct fab_snapshot *snap, const char *file, size_t *merged,
		     size_t *dups, int quiet)
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
	if (sub->n_nodes && !quiet)
		fprintf(stderr, "fabsweep: note: the InfiniBand part of '%s' is not merged\n", file);
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
		*dups += d;
		(*merged)++;
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

int fab_cmd_merge(int argc, char **argv)
{
	enum { O_DB = 256, O_LABEL, O_QUIET };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "label", required_argument, NULL, O_LABEL },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = fab_cli_default_db(), *label = NULL;
	struct fab_snapshot *snap = NULL;
	struct fab_store *st = NULL;
	size_t merged = 0, dups = 0;
	int c, quiet = 0, ret = FAB_EXIT_RUNTIME, err = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case O_LABEL: label = optarg; break;
		case O_QUIET: quiet = 1; break;
		default:
			return fab_cli_usage_error("merge", "unknown option '%s'; 'fabsweep help merge' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return fab_cli_usage_error("merge", "which files? fabsweep merge --db DB FILE...");
	for (int i = optind; i < argc; i++)
		if (same_file(argv[i], db))
			return fab_cli_usage_error("merge", "'%s' is the target database itself", argv[i]);

	/* Open the target first: a bad --db fails before any file is read. */
	if (fab_store_open(db, FAB_STORE_WRITE, &st))
		return fab_cli_fail();
	if (!(snap = fab_snapshot_new()) || !fab_snapshot_roce(snap)) {
		fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	snap->host = fab_snapshot_strdup(snap, host, SIZE_MAX);
	snap->label = label ? fab_snapshot_strdup(snap, label, SIZE_MAX) : NULL;
	snap->status = FAB_SCAN_COMPLETE;
	for (int i = optind; !err && i < argc; i++)
		err = merge_one(snap, argv[i], &merged, &dups, quiet);
	if (err) {
		fab_err(err, "out of memory");
		goto out;
	}
	if (!merged) {
		fab_err(-ENOENT, "none of the %d file%s could be merged; nothing was written",
			argc - optind, argc - optind == 1 ? "" : "s");
		if (!quiet)
			fab_cli_print_errors(stderr, snap);
		goto out;
	}
	snap->source = fab_snapshot_printf(snap, "merge:%zu file%s", merged, merged == 1 ? "" : "s");
	if (!snap->started_at_ms)
		snap->started_at_ms = fab_now_ms();
	if (!snap->finished_at_ms)
		snap->finished_at_ms = fab_now_ms();
	if ((err = fab_roce_resolve(snap->roce))) {
		fab_err(err, "out of memory");
		goto out;
	}
	if (fab_store_write_scan(st, snap))
		goto out;
	ret = snap->status == FAB_SCAN_COMPLETE ? FAB_EXIT_OK : FAB_EXIT_PARTIAL;
	if (dups && !quiet)
		fprintf(stderr, "fabsweep: note: %zu system%s collected more than once; the newest view was kept\n",
			dups, dups == 1 ? " was" : "s were");
	if (!quiet) {
		printf("scan %lld: merged %zu of %d files\n", (long long)snap->scan_id, merged,
		       argc - optind);
		fab_cli_roce_summary(stdout, snap);
		fab_cli_print_errors(stdout, snap);
		printf("database: %s\n", db);
	}
	if (ret == FAB_EXIT_PARTIAL)
		fprintf(stderr, "fabsweep: scan %lld committed as partial: %zu item%s missed (see table scan_errors)\n",
			(long long)snap->scan_id, snap->n_errors, snap->n_errors == 1 ? "" : "s");
out:
	if (ret == FAB_EXIT_RUNTIME)
		fab_cli_fail();
	fab_snapshot_free(snap);
	fab_store_close(st);
	return ret;
}
