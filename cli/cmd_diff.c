// SPDX-License-Identifier: MIT
/*
 * fabsweep diff: what changed between two snapshots, as text (stdout) and
 * optionally as XML (--xml FILE, valid against docs/fabsweep-diff.xsd):
 * fab_pipeline_diff.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/store_prune.h"

static int diff_main(int argc, char **argv, char **args);

int fab_cmd_diff(int argc, char **argv)
{
	static const char *const with_arg[] = { "--db", "--baseline", "--xml",
						"--node-name-map", NULL };
	char **args = fab_cli_hide_negative_ids(argc, argv, with_arg);

	if (!args)
		return fab_cli_usage_error("diff", "out of memory");
	int ret = diff_main(argc, argv, args);
	free(args);
	return ret;
}

/* argv as given; args as getopt may permute (negative scan ids hidden). */
static int diff_main(int argc, char **argv, char **args)
{
	enum { O_DB = 256, O_BASE, O_XML, O_MAP, O_EXIT, O_QUIET, O_JSON };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "baseline", required_argument, NULL, O_BASE },
		{ "xml", required_argument, NULL, O_XML },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ "exit-code", no_argument, NULL, O_EXIT },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_pipeline_diff job = { .db = fab_cli_default_db() };
	bool exit_code = false, quiet = false, json = false;
	int64_t ids[2] = { 0, 0 };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, args, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
		case O_BASE: job.baseline = optarg; break;
		case O_XML: job.xml = optarg; break;
		case O_MAP: job.node_name_map = optarg; break;
		case O_EXIT: exit_code = true; break;
		case O_QUIET: quiet = true; break;
		case O_JSON: json = true; break;
		default:
			return fab_cli_usage_error("diff", "unknown option '%s'; 'fabsweep help diff' lists them",
						   args[optind - 1]);
		}
	}
	int npos = argc - optind, want = job.baseline ? 1 : 2;
	if (npos > want)
		return fab_cli_usage_error("diff", "unexpected argument '%s'",
					   fab_cli_positional(argc, argv, args[optind + want]));
	if (!job.baseline && npos < 2)
		return fab_cli_usage_error("diff", "which scans? 'fabsweep diff OLD NEW' or"
					   " 'fabsweep diff --baseline ID|NAME [NEW]'");
	for (int i = 0; i < npos; i++) {
		const char *a = fab_cli_positional(argc, argv, args[optind + i]);
		if (fab_pipeline_parse_scan(a, &ids[job.baseline ? 1 : i]))
			return fab_cli_usage_error("diff", "'%s' is not a scan id (a number, 'latest',"
						   " or -N for N before the latest)", a);
	}
	int64_t probe;
	if (job.baseline && !fab_baseline_name_valid(job.baseline) &&
	    fab_pipeline_parse_scan(job.baseline, &probe))
		return fab_cli_usage_error("diff", "--baseline takes a scan id or a baseline name,"
					   " not '%s'", job.baseline);

	size_t n_changes = 0;
	job.old_id = ids[0];
	job.new_id = ids[1];
	job.text = quiet || json ? NULL : stdout;
	job.json = json ? stdout : NULL;
	if (fab_pipeline_diff(&job, &n_changes))
		return fab_cli_fail();
	return exit_code && n_changes ? FAB_EXIT_FINDINGS : FAB_EXIT_OK;
}
