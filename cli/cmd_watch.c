// SPDX-License-Identifier: MIT
/*
 * fabsweep watch: a full scan, then counter sweeps of its topology every
 * interval until stopped (fab_pipeline_watch; docs/watch.md). One line per
 * sweep. SIGTERM or SIGINT: the sweep in progress is committed, exit 0.
 *
 * Exit status: 0 when stopped or --count sweeps were made; 3 when a scan,
 * a sweep or the store failed.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/watch.h"

static int parse(int argc, char **argv, struct fab_pipeline_watch *a, bool *quiet)
{
	enum { O_DB = 256, O_CONFIG, O_HOLD, O_INTERVAL, O_RESCAN, O_COUNT, O_LABEL, O_CA, O_PORT, O_TIMEOUT, O_RETRIES,
	       O_WINDOW, O_VERIFY, O_QUIET, O_KEEP_RAW, O_PROM, O_AM, O_PROBE, O_PROBE_SHARE, O_NO_EVENTS };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "hold", required_argument, NULL, O_HOLD },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "rescan", required_argument, NULL, O_RESCAN },
		{ "count", required_argument, NULL, O_COUNT },
		{ "label", required_argument, NULL, O_LABEL },
		{ "ca", required_argument, NULL, O_CA },
		{ "port", required_argument, NULL, O_PORT },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "verify-every", required_argument, NULL, O_VERIFY },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "keep-raw", required_argument, NULL, O_KEEP_RAW },
		{ "prometheus", required_argument, NULL, O_PROM },
		{ "alertmanager", required_argument, NULL, O_AM },
		{ "link-probe", required_argument, NULL, O_PROBE },
		{ "link-probe-share", required_argument, NULL, O_PROBE_SHARE },
		{ "no-events", no_argument, NULL, O_NO_EVENTS },
		{ NULL, 0, NULL, 0 },
	};
	int64_t ms;
	long v;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: a->db = optarg; break;
		case O_CONFIG: a->config = optarg; break;
		case O_HOLD:
			if (fab_duration_parse(optarg, &ms))
				return fab_cli_usage_error("watch", "--hold takes a duration such as 10m, 30s or 1h, not '%s'", optarg);
			a->hold_ms = ms;
			break;
		case O_KEEP_RAW:
			if (fab_duration_parse(optarg, &ms) || ms <= 0)
				return fab_cli_usage_error("watch", "--keep-raw takes a duration such as 1d, 12h or 10m, not '%s'", optarg);
			a->keep_raw_ms = ms;
			break;
		case O_PROM:
			if (!fab_prom_file_name_ok(optarg))
				return fab_cli_usage_error("watch", "--prometheus takes a file ending in .prom (the textfile collector reads *.prom), not '%s'", optarg);
			a->prometheus = optarg;
			break;
		case O_AM:
			if (!fab_url_ok(optarg))
				return fab_cli_usage_error("watch", "--alertmanager takes Alertmanager's URL, such as http://localhost:9093, not '%s'", optarg);
			a->alertmanager = optarg;
			break;
		case O_PROBE:
			if (!strcmp(optarg, "off"))
				ms = -1;
			else if (fab_duration_parse(optarg, &ms) || ms < 1000)
				return fab_cli_usage_error("watch", "--link-probe takes a duration of a second or more, such as 30s, or off, not '%s'", optarg);
			a->link_probe_ms = ms;
			break;
		case O_PROBE_SHARE:
			if (fab_share_parse(optarg, &a->link_probe_share))
				return fab_cli_usage_error("watch", "--link-probe-share takes a fraction above 0 and at most 1, such as 0.1, or a percentage such as 10%%, not '%s'", optarg);
			break;
		case O_NO_EVENTS: a->events = -1; break;
		case O_LABEL: a->scan.label = optarg; break;
		case O_CA: a->scan.so.ca = optarg; break;
		case O_QUIET: *quiet = true; break;
		case O_INTERVAL:
			if (!strcmp(optarg, "0"))
				ms = 0;
			else if (fab_duration_parse(optarg, &ms) || ms < 100 || ms > 86400000)
				return fab_cli_usage_error("watch", "--interval takes 0 (back to back) or a duration from 100ms to 1d, such as 10s or 500ms, not '%s'", optarg);
			a->interval_ms = ms ? ms : -1; /* -1: back to back */
			break;
		case O_RESCAN:
			if (fab_duration_parse(optarg, &ms) || ms < 1000)
				return fab_cli_usage_error("watch", "--rescan takes a duration of a second or more, such as 1h or 30m, not '%s'", optarg);
			a->rescan_ms = ms;
			break;
		case O_COUNT:
			if (fab_cli_parse_int(optarg, 1, 100000000, &v))
				return fab_cli_usage_error("watch", "--count takes a number of sweeps from 1 to 100000000, not '%s'", optarg);
			a->max_sweeps = (unsigned long)v;
			break;
		case O_PORT:
			if ((ret = fab_cli_mad_opt("watch", FAB_CLI_PORT, optarg, &a->scan.so.port)) >= 0)
				return ret;
			break;
		case O_TIMEOUT:
			if ((ret = fab_cli_mad_opt("watch", FAB_CLI_TIMEOUT, optarg, &a->probe.timeout_ms)) >= 0)
				return ret;
			a->scan.so.timeout_ms = a->probe.timeout_ms;
			break;
		case O_RETRIES:
			if ((ret = fab_cli_mad_opt("watch", FAB_CLI_RETRIES, optarg, &a->probe.retries)) >= 0)
				return ret;
			a->scan.so.retries = a->probe.retries;
			break;
		case O_WINDOW:
			if ((ret = fab_cli_mad_opt("watch", FAB_CLI_WINDOW, optarg, &a->probe.window)) >= 0)
				return ret;
			break;
		case O_VERIFY:
			if (fab_cli_parse_int(optarg, 1, 1000000, &v))
				return fab_cli_usage_error("watch", "--verify-every takes a number of sweeps from 1 to 1000000, not '%s'", optarg);
			a->verify_every = (unsigned)v;
			break;
		default:
			return fab_cli_usage_error("watch", "unknown option '%s'; 'fabsweep help watch' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("watch", "unexpected argument '%s'", argv[optind]);
	return -1;
}

int fab_cmd_watch(int argc, char **argv)
{
	struct fab_pipeline_watch a;
	struct fab_pipeline_watch_result res;
	bool quiet = false;
	int ret;

	fab_pipeline_watch_init(&a);
	a.db = a.scan.db = fab_cli_default_db();
	/* a signal during a full scan ends watch at once: a stop, not a failure */
	a.scan.signal_exit = FAB_EXIT_OK;
	a.scan.label = "watch";
	if ((ret = parse(argc, argv, &a, &quiet)) >= 0)
		return ret;
	a.scan.db = a.db;
	a.scan.ro.note = quiet ? NULL : fab_cli_note;
	a.make_db_dir = fab_cli_is_root_db(a.db);
	a.event = fab_cli_watch_event;
	a.event_ctx = &quiet;
	if (fab_pipeline_watch(&a, &res))
		return fab_cli_fail();
	if (!quiet && res.stopped)
		printf("watch: stopped after %lu sweep%s and %lu full scan%s; last scan %lld\n",
		       res.sweeps, res.sweeps == 1 ? "" : "s", res.full_scans,
		       res.full_scans == 1 ? "" : "s", (long long)res.last_scan_id);
	return FAB_EXIT_OK;
}
