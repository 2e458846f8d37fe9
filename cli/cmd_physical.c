// SPDX-License-Identifier: MIT
/*
 * fabsweep physical [--scan ID] [--top N] [--json]: the physical layer of a
 * stored scan (modules and cables of both fabrics, bit error ratios), worst
 * first: fab_pipeline_physical. Exit 0, or 2/3 on usage or failure.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "fabsweep/pipeline.h"

int fab_cmd_physical(int argc, char **argv)
{
	enum { O_DB = 256, O_SCAN, O_TOP, O_MAP, O_JSON };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "scan", required_argument, NULL, O_SCAN },
		{ "top", required_argument, NULL, O_TOP },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const with_arg[] = { "--db", "--scan", "--top", "--node-name-map", NULL };
	struct fab_pipeline_physical job = { .db = fab_cli_default_db(), .top = 10, .text = stdout };
	char **args = fab_cli_hide_negative_ids(argc, argv, with_arg);
	int c, ret = FAB_EXIT_OK;

	if (!args)
		return fab_cli_usage_error("physical", "out of memory");
	optind = 1;
	opterr = 0;
	while (ret == FAB_EXIT_OK && (c = getopt_long(argc, args, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
		case O_MAP: job.node_name_map = optarg; break;
		case O_JSON: job.json = stdout; job.text = NULL; break;
		case O_SCAN:
			if (fab_pipeline_parse_scan(optarg, &job.scan_id))
				ret = fab_cli_usage_error("physical", "--scan takes a scan id (a number, 'latest',"
							  " or -N for N before the latest), not '%s'", optarg);
			break;
		case O_TOP: {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || !n || n > 1000000)
				ret = fab_cli_usage_error("physical", "--top takes a number of rows, 1 to 1000000,"
							  " not '%s'", optarg);
			job.top = n;
			break;
		}
		default:
			ret = fab_cli_usage_error("physical", "unknown option '%s'; 'fabsweep help physical'"
						  " lists them", args[optind - 1]);
		}
	}
	if (ret == FAB_EXIT_OK && argc > optind)
		ret = fab_cli_usage_error("physical", "unexpected argument '%s'",
					  fab_cli_positional(argc, argv, args[optind]));
	free(args);
	if (ret != FAB_EXIT_OK)
		return ret;
	return fab_pipeline_physical(&job) ? fab_cli_fail() : FAB_EXIT_OK;
}
