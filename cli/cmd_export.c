// SPDX-License-Identifier: MIT
/*
 * fabsweep export prometheus --out FILE [--scan ID] [--baseline ID]: a
 * snapshot as a Prometheus textfile (reports/prometheus.c), written
 * atomically for node_exporter's textfile collector; counter increases
 * against the baseline when given, as `check --baseline` compares.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/export.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

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
	const char *db = fab_cli_default_db(), *out = NULL, *map_path = NULL, *baseline = NULL;
	int64_t scan = 0, base_id = 0;
	int c, quiet = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case O_OUT: out = optarg; break;
		case O_MAP: map_path = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_BASELINE: baseline = optarg; break;
		case O_SCAN:
			if (fab_cli_parse_scan(optarg, &scan))
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

	struct fab_nodemap *names = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *snap = NULL, *base = NULL;
	int ret = FAB_EXIT_RUNTIME;

	if (fab_nodemap_open(map_path, &names) || fab_store_open(db, FAB_STORE_READONLY, &st) ||
	    fab_store_resolve_scan(st, scan, &scan) || fab_store_load_scan(st, scan, &snap) ||
	    (baseline && (fab_cli_resolve_baseline(st, baseline, &base_id) ||
			  fab_store_load_baseline(st, base_id, &base))))
		goto out;
	if (!strcmp(out, "-")) {
		if (fab_export_prometheus(snap, base, names, stdout) || fflush(stdout))
			goto out;
	} else {
		if (fab_export_prometheus_file(snap, base, names, out))
			goto out;
		if (!quiet)
			printf("scan %lld exported to %s\n", (long long)scan, out);
	}
	ret = FAB_EXIT_OK;
out:
	if (ret == FAB_EXIT_RUNTIME)
		fab_cli_fail();
	fab_snapshot_free(snap);
	fab_snapshot_free(base);
	fab_store_close(st);
	fab_nodemap_free(names);
	return ret;
}
