// SPDX-License-Identifier: MIT
/* fabsweep report: render a checked snapshot as HTML and/or XML
 * (fab_pipeline_report). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report.h"

/* Parses the command line; returns -1 to go on, else an exit code. */
static int parse(int argc, char **argv, struct fab_pipeline_report *a)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "scan", required_argument, NULL, 's' },
		{ "html", required_argument, NULL, 'h' },
		{ "xml", required_argument, NULL, 'x' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "all-counters", no_argument, NULL, 'a' },
		{ "node-name-map", required_argument, NULL, 'n' },
		{ "since", required_argument, NULL, 'S' },
		{ "no-trends", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	bool scan = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			a->db = optarg;
			break;
		case 's':
			scan = true;
			if (fab_pipeline_parse_scan(optarg, &a->scan_id))
				return fab_cli_usage_error("report", "bad --scan '%s': give a scan id, "
							   "'latest' or -N (that many before the latest)", optarg);
			break;
		case 'h':
			a->html = optarg;
			break;
		case 'x':
			a->xml = optarg;
			break;
		case 'b':
			if (!*optarg)
				return fab_cli_usage_error("report", "empty --baseline: give a scan id or a baseline name");
			a->baseline = optarg;
			break;
		case 'a':
			a->opts.all_counters = true;
			break;
		case 'n':
			a->node_name_map = optarg;
			break;
		case 'S':
			if (fab_duration_parse(optarg, &a->since_ms) || a->since_ms <= 0)
				return fab_cli_usage_error("report", "bad --since '%s': give a duration "
							   "such as 24h, 90m or 7d", optarg);
			break;
		case 'T':
			a->no_trends = true;
			break;
		default:
			return fab_cli_usage_error("report", "unknown or incomplete option '%s'; "
							     "'fabsweep help report' lists them", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (scan && a->since_ms)
		return fab_cli_usage_error("report", "--since renders the latest scan and the period before "
						     "now: give it or --scan, not both");
	if (a->since_ms && a->no_trends)
		return fab_cli_usage_error("report", "--since draws the trends of a period: not with --no-trends");
	if (!a->html && !a->xml)
		return fab_cli_usage_error("report", "nothing to write: give --html FILE and/or --xml FILE");
	if (a->html && a->xml && !strcmp(a->html, a->xml))
		return fab_cli_usage_error("report", "--html and --xml name the same file '%s'", a->html);
	return -1;
}

int fab_cmd_report(int argc, char **argv)
{
	struct fab_pipeline_report a = { .db = fab_cli_default_db() };
	struct fab_pipeline_report_result r;
	int ret;

	fab_report_opts_init(&a.opts);
	if ((ret = parse(argc, argv, &a)) >= 0)
		return ret;
	if (fab_pipeline_report(&a, &r))
		return fab_cli_fail();
	printf("scan %lld: %s (%zu errors, %zu warnings, %zu info)", (long long)r.scan_id,
	       fab_report_verdict_name(r.verdict), r.by_severity[FAB_SEV_ERROR],
	       r.by_severity[FAB_SEV_WARNING], r.by_severity[FAB_SEV_INFO]);
	if (r.base_id)
		printf(", compared with scan %lld", (long long)r.base_id);
	printf("\n");
	if (a.html)
		printf("wrote %s\n", a.html);
	if (a.xml)
		printf("wrote %s\n", a.xml);
	if (a.html && !a.no_trends)
		printf("trends: %zu charts%s", r.n_charts, a.since_ms ? "" : "\n");
	if (a.html && a.since_ms)
		printf(", %zu findings raised in the period\n", r.n_raised);
	return FAB_EXIT_OK;
}
