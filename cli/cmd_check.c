// SPDX-License-Identifier: MIT
/*
 * fabsweep check: run the health rules over a stored snapshot, store the
 * findings with it (replacing earlier ones) and summarise them
 * (fab_pipeline_check).
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report_json.h"

#define DEFAULT_LIMIT 50

int fab_cmd_check(int argc, char **argv)
{
	enum { O_DB = 256, O_SCAN, O_CONFIG, O_FAIL_ON, O_BASELINE, O_LIMIT, O_QUIET, O_RULES_DIR,
	       O_EXPECT, O_MAP, O_JSON, O_SUMMARY };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "scan", required_argument, NULL, O_SCAN },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "fail-on", required_argument, NULL, O_FAIL_ON },
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "limit", required_argument, NULL, O_LIMIT },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "rules-dir", required_argument, NULL, O_RULES_DIR },
		{ "expect", required_argument, NULL, O_EXPECT },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ "json", no_argument, NULL, O_JSON },
		{ "summary", no_argument, NULL, O_SUMMARY },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_pipeline_check job = {
		.db = fab_cli_default_db(), .fail_on = FAB_SEV_ERROR, .note = fab_cli_problem,
	};
	struct fab_pipeline_check_result *r = NULL;
	int quiet = 0, json = 0, summary = 0, c, fail_on;
	long limit = DEFAULT_LIMIT;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
		case O_CONFIG: job.config = optarg; break;
		case O_BASELINE: job.baseline = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_JSON: json = 1; break;
		case O_SUMMARY: summary = 1; break;
		case O_RULES_DIR: job.rules_dir = optarg; break;
		case O_EXPECT: job.expect = optarg; break;
		case O_MAP: job.node_name_map = optarg; break;
		case O_SCAN:
			if (fab_pipeline_parse_scan(optarg, &job.scan_id))
				return fab_cli_usage_error("check", "--scan takes a scan id, 'latest' or -N, not '%s'",
							   optarg);
			break;
		case O_FAIL_ON:
			if ((fail_on = fab_fail_on_parse(optarg)) < 0)
				return fab_cli_usage_error("check", "--fail-on takes error, warning, info or never, not '%s'",
							   optarg);
			job.fail_on = (unsigned)fail_on;
			break;
		case O_LIMIT:
			if (fab_cli_parse_int(optarg, 0, 1000000000, &limit))
				return fab_cli_usage_error("check", "--limit takes a whole number (0: no limit), not '%s'",
							   optarg);
			break;
		default:
			return fab_cli_usage_error("check", "unknown option '%s'; 'fabsweep help check' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("check", "unexpected argument '%s'", argv[optind]);

	if (fab_pipeline_check(&job, &r))
		return fab_cli_fail();
	int ret = r->checked.failed ? FAB_EXIT_FINDINGS : FAB_EXIT_OK;
	if (json) {
		struct fab_json_check in = {
			.snap = r->snap, .rules = &r->checked.rules, .site = &r->checked.site,
			.cfg = r->cfg, .base = r->base, .reference = r->reference, .names = r->names,
			.fail_on = job.fail_on, .failed = r->checked.failed, .summary = summary,
		};
		if (fab_json_check(stdout, &in))
			ret = fab_cli_fail();
	} else if (!quiet) {
		struct fab_cli_check_summary s = {
			.snap = r->snap, .checked = &r->checked, .cfg = r->cfg, .base = r->base,
			.reference = r->reference, .names = r->names, .limit = (size_t)limit,
			.summary = summary,
		};
		fab_cli_print_check(&s);
	}
	fab_pipeline_check_free(r);
	return ret;
}
