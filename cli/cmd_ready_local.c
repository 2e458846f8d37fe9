// SPDX-License-Identifier: MIT
/*
 * fabsweep ready --local: a RoCE host judges itself against the last merge
 * of the fabric (fab_pipeline_ready_local). One line per problem, naming the
 * host, as `ready` prints them; notes for what could not be read or checked;
 * exit 0 ready, 1 not ready, 3 could not check. docs/roce.md, "Readiness".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/probe.h"
#include "fabsweep/report_json.h"
#include "fabsweep/snapshot.h"

static void print_result(const struct fab_pipeline_ready_local_result *res, int quiet, int verbose)
{
	const struct fab_ready *r = res->r;
	const struct fab_snapshot *ref = res->ref;
	const char *v = r->verdict[0] == FAB_READY_OK ? "ready"
			: r->verdict[0] == FAB_READY_NOT_READY ? "not ready"
							       : "not checked";
	char when[FAB_TIME_STRLEN];

	for (size_t i = 0; i < r->n_problems; i++)
		printf("%s: %s\n", res->name, r->problems[i].text);
	if (!quiet) {
		for (size_t i = 0; i < res->n_notes; i++)
			printf("%s: note: %s\n", res->name, res->notes[i]);
		fab_time_format(ref->started_at_ms, when);
		printf("ready: %s: %s: %zu RoCE port%s, %zu rule finding%s (merge: scan %lld of %s)\n",
		       res->name, v, res->n_ports, res->n_ports == 1 ? "" : "s", res->n_findings,
		       res->n_findings == 1 ? "" : "s", (long long)ref->scan_id, when);
	}
	if (verbose)
		fprintf(stderr, "ready: load the merge %.1f ms, read this host %.1f ms, judge %.1f ms; total %.1f ms (CPU %.1f ms)\n",
			res->load_ms, res->collect_ms, res->judge_ms, res->total_ms, res->cpu_ms);
}

int fab_cmd_ready_local(int argc, char **argv)
{
	enum { O_LOCAL = 256, O_DB, O_SCAN, O_CONFIG, O_SYSTEM, O_FAIL_ON, O_QUIET, O_VERBOSE, O_JSON, O_MODULES };
	static const struct option opts[] = {
		{ "local", no_argument, NULL, O_LOCAL },
		{ "db", required_argument, NULL, O_DB },
		{ "scan", required_argument, NULL, O_SCAN },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "system", required_argument, NULL, O_SYSTEM },
		{ "fail-on", required_argument, NULL, O_FAIL_ON },
		FAB_CLI_ROCE_OPTIONS,
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "verbose", no_argument, NULL, O_VERBOSE },
		{ "json", no_argument, NULL, O_JSON },
		{ "modules", no_argument, NULL, O_MODULES },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_pipeline_ready_local job = { .db = fab_cli_default_db(), .fail_on = FAB_SEV_WARNING };
	const char **socks = calloc((size_t)argc + 1, sizeof(*socks));
	int c, quiet = 0, verbose = 0, json = 0, ret = FAB_EXIT_USAGE;

	if (!socks)
		return fab_cli_usage_error("ready", "out of memory");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		int r = fab_cli_roce_opt("ready", c, optarg, &job.ro, socks), s;

		if (r > 0)
			goto out;
		if (r < 0)
			continue;
		switch (c) {
		case O_LOCAL: break;
		case O_DB: job.db = optarg; break;
		case O_CONFIG: job.config = optarg; break;
		case O_SYSTEM: job.system = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_VERBOSE: verbose = 1; break;
		case O_JSON: json = 1; break;
		case O_MODULES: job.modules = true; break;
		case O_SCAN:
			if (fab_pipeline_parse_scan(optarg, &job.scan_id)) {
				fab_cli_usage_error("ready", "--scan takes a scan id, 'latest' or -N, not '%s'", optarg);
				goto out;
			}
			break;
		case O_FAIL_ON:
			if ((s = fab_fail_on_parse(optarg)) < 0) {
				fab_cli_usage_error("ready", "--fail-on takes error, warning, info or never, not '%s'",
						    optarg);
				goto out;
			}
			job.fail_on = (unsigned)s;
			break;
		default:
			fab_cli_usage_error("ready", "'%s' is not an option of ready --local; 'fabsweep help ready' lists them",
					    argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		fab_cli_usage_error("ready", "unexpected argument '%s' (ready --local judges this host only)",
				    argv[optind]);
		goto out;
	}
	if (fab_cli_roce_check("ready", &job.ro) > 0)
		goto out;

	struct fab_pipeline_ready_local_result *res = NULL;
	ret = FAB_EXIT_RUNTIME;
	if (fab_pipeline_ready_local(&job, &res)) {
		fab_cli_fail();
		goto out;
	}
	const struct fab_json_ready_local doc = {
		.r = res->r, .hosts = res->hosts, .name = res->name, .ref = res->ref,
		.judged = res->judged, .ports = res->ports, .n_ports = res->n_ports,
		.links = res->links, .n_links = res->n_links, .findings = res->findings,
		.n_findings = res->n_findings, .notes = res->notes, .n_notes = res->n_notes,
	};
	if (json && fab_json_ready_local(stdout, &doc)) {
		fab_cli_fail();
		fab_pipeline_ready_local_free(res);
		goto out;
	}
	if (!json)
		print_result(res, quiet, verbose);
	ret = fab_cli_ready_exit(res->r);
	fab_pipeline_ready_local_free(res);
out:
	free(socks);
	return ret;
}
