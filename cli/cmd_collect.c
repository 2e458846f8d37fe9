// SPDX-License-Identifier: MIT
/*
 * fabsweep collect: this machine's own RoCE view into a snapshot file for
 * `fabsweep merge` (fab_pipeline_collect).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"

int fab_cmd_collect(int argc, char **argv)
{
	enum { O_OUT = 256, O_LABEL, O_QUIET, O_NOMOD, O_INTERVAL };
	static const struct option opts[] = {
		{ "out", required_argument, NULL, O_OUT },
		FAB_CLI_ROCE_OPTIONS,
		{ "label", required_argument, NULL, O_LABEL },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "no-modules", no_argument, NULL, O_NOMOD },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_pipeline_collect job = { .ro = { .note = fab_cli_note } };
	struct fab_roce_opts *ro = &job.ro;
	const char **socks = calloc((size_t)argc + 1, sizeof(*socks));
	struct fab_snapshot *snap = NULL;
	int c, quiet = 0, ret = FAB_EXIT_RUNTIME;
	int64_t ms;

	if (!socks)
		return fab_cli_usage_error("collect", "out of memory");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		int r = fab_cli_roce_opt("collect", c, optarg, ro, socks);

		if (r > 0) {
			free(socks);
			return r;
		}
		if (r < 0)
			continue;
		switch (c) {
		case O_OUT: job.out = optarg; break;
		case O_LABEL: job.label = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_NOMOD: ro->no_modules = true; break;
		case O_INTERVAL:
			if (fab_duration_parse(optarg, &ms) || ms > 60000) {
				free(socks);
				return fab_cli_usage_error("collect", "--interval takes a duration up to 60s (500ms, 5s), not '%s'",
							   optarg);
			}
			ro->interval_ms = (int)ms;
			break;
		default:
			free(socks);
			return fab_cli_usage_error("collect", "unknown option '%s'; 'fabsweep help collect' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc || !job.out) {
		free(socks);
		return optind < argc
			       ? fab_cli_usage_error("collect", "unexpected argument '%s'", argv[optind])
			       : fab_cli_usage_error("collect", "where to? --out FILE is required");
	}
	if (fab_cli_roce_check("collect", ro) > 0) {
		free(socks);
		return FAB_EXIT_USAGE;
	}
	ro->lldp_sockets = socks;
	if (quiet)
		ro->note = NULL;

	if (fab_pipeline_collect(&job, &snap)) {
		fab_cli_fail();
		goto out;
	}
	ret = snap->status == FAB_SCAN_COMPLETE ? FAB_EXIT_OK : FAB_EXIT_PARTIAL;
	if (!quiet) {
		fab_cli_roce_summary(stdout, snap);
		fab_cli_print_errors(stdout, snap);
		printf("snapshot file: %s\n", job.out);
	}
	if (ret == FAB_EXIT_PARTIAL)
		fprintf(stderr, "fabsweep: collected as partial: %zu item%s missed (see table scan_errors)\n",
			snap->n_errors, snap->n_errors == 1 ? "" : "s");
out:
	fab_snapshot_free(snap);
	free(socks);
	return ret;
}
