// SPDX-License-Identifier: MIT
/*
 * fabsweep sweep: what the hourly timer runs (fab_pipeline_sweep): scan,
 * check, reports, the Prometheus file, pruning. Each step is printed as it
 * is done. docs/workflows.md, "Sweeps".
 *
 * Exit status: 3 when the scan failed (nothing written) or a later step
 * failed (each failure is printed; the steps after it still run), else as
 * check: 1 with a finding at or above fail_on, else 4 when the scan was
 * partial, else 0.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"

/* Prints a step as it is done. */
static void on_event(const struct fab_sweep_event *e, void *ctx)
{
	const bool *quiet = ctx;
	const struct fab_snapshot *s = e->snap;
	const struct fab_prune_result *r = e->pruned;
	const char *m;

	switch (e->step) {
	case FAB_SWEEP_SCANNED:
		if (!*quiet)
			printf("sweep: scan %lld: %s; %zu nodes, %zu links, %zu counter samples%s\n",
			       (long long)s->scan_id, fab_scan_status_name(s->status), s->n_nodes,
			       s->n_links, s->n_samples, s->n_errors ? " (see table scan_errors)" : "");
		break;
	case FAB_SWEEP_CHECKED:
		if (!*quiet) {
			struct fab_cli_check_summary sum = {
				.snap = s, .checked = e->checked, .cfg = e->cfg, .base = e->base,
				.reference = e->reference, .names = e->names, .limit = 20,
			};
			fab_cli_print_check(&sum);
		}
		break;
	case FAB_SWEEP_REPORTED:
		if (!*quiet)
			printf("report: %s (and latest.html), %s.xml (and latest.xml)\n", e->path, e->stem);
		break;
	case FAB_SWEEP_EXPORTED:
		if (!*quiet)
			printf("prometheus: %s\n", e->path);
		break;
	case FAB_SWEEP_PRUNED:
		if (!*quiet && r->dropped)
			printf("pruned %lld scan%s (%lld left%s)\n", (long long)r->dropped,
			       r->dropped == 1 ? "" : "s", (long long)r->remaining,
			       r->kept_baselines ? ", baselines kept" : "");
		if (r->vacuum_error[0])
			fprintf(stderr, "fabsweep sweep: space not reclaimed: %s\n", r->vacuum_error);
		break;
	case FAB_SWEEP_REPORTS_REMOVED:
		if (!*quiet && e->reports_removed)
			printf("removed %zu report file%s of pruned scans\n", e->reports_removed,
			       e->reports_removed == 1 ? "" : "s");
		break;
	case FAB_SWEEP_FAILED:
		m = fab_errmsg();
		fprintf(stderr, "fabsweep sweep: %s failed: %s\n", e->what, *m ? m : "unknown error");
		break;
	}
}

static int parse(int argc, char **argv, struct fab_pipeline_sweep *a, bool *quiet)
{
	enum { O_DB = 256, O_CONFIG, O_RULES_DIR, O_REPORT_DIR, O_PROM, O_KEEP, O_OLDER,
	       O_FAIL_ON, O_BASELINE, O_EXPECT, O_MAP, O_INTERVAL, O_LABEL, O_CA, O_PORT,
	       O_TIMEOUT, O_RETRIES, O_QUIET };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "rules-dir", required_argument, NULL, O_RULES_DIR },
		{ "report-dir", required_argument, NULL, O_REPORT_DIR },
		{ "prometheus", required_argument, NULL, O_PROM },
		{ "keep", required_argument, NULL, O_KEEP },
		{ "older-than", required_argument, NULL, O_OLDER },
		{ "fail-on", required_argument, NULL, O_FAIL_ON },
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "expect", required_argument, NULL, O_EXPECT },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "label", required_argument, NULL, O_LABEL },
		{ "ca", required_argument, NULL, O_CA },
		{ "port", required_argument, NULL, O_PORT },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_scan_opts *so = &a->scan.so;
	int64_t ms;
	long v;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: a->db = optarg; break;
		case O_CONFIG: a->config = optarg; break;
		case O_RULES_DIR: a->rules_dir = optarg; break;
		case O_REPORT_DIR: a->v[FAB_SWEEP_REPORT_DIR] = optarg; break;
		case O_PROM:
			if (!fab_prom_file_name_ok(optarg))
				return fab_cli_usage_error("sweep", "--prometheus takes a file ending in .prom (the textfile collector reads *.prom), not '%s'", optarg);
			a->v[FAB_SWEEP_PROMETHEUS] = optarg;
			break;
		case O_EXPECT: a->v[FAB_SWEEP_EXPECT] = optarg; break;
		case O_MAP: a->v[FAB_SWEEP_NODE_NAME_MAP] = optarg; break;
		case O_LABEL: a->scan.label = optarg; break;
		case O_CA: so->ca = optarg; break;
		case O_QUIET: *quiet = true; break;
		case O_KEEP:
			if (fab_cli_parse_int(optarg, 1, 1000000, &v))
				return fab_cli_usage_error("sweep", "--keep takes a number of scans from 1 to 1000000, not '%s'", optarg);
			a->v[FAB_SWEEP_KEEP] = optarg;
			break;
		case O_OLDER:
			if (fab_duration_parse(optarg, &ms))
				return fab_cli_usage_error("sweep", "--older-than takes a duration such as 30d, 12h, 2w or 1d12h, not '%s'", optarg);
			a->v[FAB_SWEEP_OLDER_THAN] = optarg;
			break;
		case O_FAIL_ON:
			if (fab_fail_on_parse(optarg) < 0)
				return fab_cli_usage_error("sweep", "--fail-on takes error, warning, info or never, not '%s'", optarg);
			a->v[FAB_SWEEP_FAIL_ON] = optarg;
			break;
		case O_BASELINE:
			if (!*optarg)
				return fab_cli_usage_error("sweep", "empty --baseline: give previous, none, a scan id or a baseline name");
			a->v[FAB_SWEEP_BASELINE] = optarg;
			break;
		case O_INTERVAL:
			if (fab_cli_parse_int(optarg, 0, 3600, &v))
				return fab_cli_usage_error("sweep", "--interval takes seconds from 0 to 3600, not '%s'", optarg);
			a->v[FAB_SWEEP_INTERVAL] = optarg;
			break;
		case O_PORT:
			if ((ret = fab_cli_mad_opt("sweep", FAB_CLI_PORT, optarg, &so->port)) >= 0)
				return ret;
			break;
		case O_TIMEOUT:
			if ((ret = fab_cli_mad_opt("sweep", FAB_CLI_TIMEOUT, optarg, &so->timeout_ms)) >= 0)
				return ret;
			break;
		case O_RETRIES:
			if ((ret = fab_cli_mad_opt("sweep", FAB_CLI_RETRIES, optarg, &so->retries)) >= 0)
				return ret;
			break;
		default:
			return fab_cli_usage_error("sweep", "unknown option '%s'; 'fabsweep help sweep' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("sweep", "unexpected argument '%s'", argv[optind]);
	return -1;
}

int fab_cmd_sweep(int argc, char **argv)
{
	struct fab_pipeline_sweep a = { .db = fab_cli_default_db(), .note = fab_cli_problem };
	struct fab_pipeline_sweep_result res;
	bool quiet = false;
	int ret;

	fab_pipeline_scan_init(&a.scan);
	a.scan.signal_exit = FAB_EXIT_RUNTIME;
	if ((ret = parse(argc, argv, &a, &quiet)) >= 0)
		return ret;
	if (!quiet && fab_cli_tty(stderr))
		a.scan.so.progress = fab_cli_progress;
	a.scan.ro.note = quiet ? NULL : fab_cli_note;
	a.make_db_dir = fab_cli_is_root_db(a.db);
	a.event = on_event;
	a.event_ctx = &quiet;
	if (fab_pipeline_sweep(&a, &res))
		return fab_cli_fail();
	if (res.failed_step)
		return FAB_EXIT_RUNTIME;
	if (res.findings)
		return FAB_EXIT_FINDINGS;
	return res.scan_status == FAB_SCAN_COMPLETE ? FAB_EXIT_OK : FAB_EXIT_PARTIAL;
}
