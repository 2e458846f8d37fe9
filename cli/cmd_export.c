// SPDX-License-Identifier: MIT
/*
 * fabsweep export prometheus --out FILE [--scan ID] [--baseline ID]: a
 * snapshot as a Prometheus textfile, written atomically for node_exporter's
 * textfile collector (fab_pipeline_export); counter increases against the
 * baseline when given, as `check --baseline` compares.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/pipeline.h"

int fab_cmd_export(int argc, char **argv)
{
	enum { O_DB = 256, O_OUT, O_SCAN, O_MAP, O_QUIET, O_BASELINE };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "out", required_argument, NULL, O_OUT },
		{ "scan", required_argument, NULL, O_SCAN },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_pipeline_export job = { .db = fab_cli_default_db() };
	const char *out = NULL;
	int64_t scan = 0;
	int c, quiet = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
		case O_OUT: out = optarg; break;
		case O_MAP: job.node_name_map = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_BASELINE: job.baseline = optarg; break;
		case O_SCAN:
			if (fab_pipeline_parse_scan(optarg, &job.scan_id))
				return fab_cli_usage_error("export", "--scan takes a scan id, 'latest' or -N,"
							   " not '%s'", optarg);
			break;
		default:
			return fab_cli_usage_error("export", "unknown option '%s'; 'fabsweep help export'"
						   " lists them", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return fab_cli_usage_error("export", "which format? 'fabsweep export prometheus --out FILE'");
	if (strcmp(argv[optind], "prometheus"))
		return fab_cli_usage_error("export", "unknown format '%s'; the formats are: prometheus",
					   argv[optind]);
	if (optind + 1 < argc)
		return fab_cli_usage_error("export", "unexpected argument '%s'", argv[optind + 1]);
	if (!out)
		return fab_cli_usage_error("export", "--out FILE is required (node_exporter reads"
					   " *.prom files from its --collector.textfile.directory;"
					   " '-' writes to stdout)");

	if (strcmp(out, "-"))
		job.out = out;
	else
		job.stream = stdout;
	if (fab_pipeline_export(&job, &scan))
		return fab_cli_fail();
	if (job.out && !quiet)
		printf("scan %lld exported to %s\n", (long long)scan, out);
	return FAB_EXIT_OK;
}
