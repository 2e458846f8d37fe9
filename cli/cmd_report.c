// SPDX-License-Identifier: MIT
/* fabsweep report: render a checked snapshot as HTML and/or XML. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

struct report_args {
	struct fab_common_opts common;
	const char *html, *xml;
	const char *baseline; /* as given: scan id, "latest", -N, or a baseline name */
	const char *node_name_map; /* --node-name-map: NULL the default, "" none */
	struct fab_report_opts opts;
};

/* Parses the command line; returns -1 to go on, else an exit code. */
static int parse(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "scan", required_argument, NULL, 's' },
		{ "html", required_argument, NULL, 'h' },
		{ "xml", required_argument, NULL, 'x' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "all-counters", no_argument, NULL, 'a' },
		{ "node-name-map", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			a->common.db = optarg;
			break;
		case 's':
			if (fab_cli_parse_scan(optarg, &a->common.scan_id))
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
		default:
			return fab_cli_usage_error("report", "unknown or incomplete option '%s'; "
							     "'fabsweep help report' lists them", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (!a->html && !a->xml)
		return fab_cli_usage_error("report", "nothing to write: give --html FILE and/or --xml FILE");
	if (a->html && a->xml && !strcmp(a->html, a->xml))
		return fab_cli_usage_error("report", "--html and --xml name the same file '%s'", a->html);
	return -1;
}

int fab_cmd_report(int argc, char **argv)
{
	struct report_args a = { .common = { .db = fab_cli_default_db() } };
	struct fab_snapshot *snap = NULL, *base = NULL;
	struct fab_store *st = NULL;
	int64_t id, base_id;
	int ret;

	fab_report_opts_init(&a.opts);
	if ((ret = parse(argc, argv, &a)) >= 0)
		return ret;
	if (fab_store_open(a.common.db, FAB_STORE_READONLY, &st) ||
	    fab_store_resolve_scan(st, a.common.scan_id, &id) ||
	    fab_store_load_scan(st, id, &snap)) {
		ret = fab_cli_fail();
		goto out;
	}
	if (a.baseline && (fab_cli_resolve_baseline(st, a.baseline, &base_id) ||
			   fab_store_load_scan(st, base_id, &base))) {
		ret = fab_cli_fail();
		goto out;
	}
	fab_store_close(st);
	st = NULL;
	/* node-name-map names replace descriptions in the rendered report */
	struct fab_nodemap *names = NULL;
	fab_err_clear();
	if (fab_nodemap_open(a.node_name_map, &names) || fab_nodemap_apply(names, snap) ||
	    (base && fab_nodemap_apply(names, base))) {
		if (!fab_errmsg()[0])
			fab_err(-ENOMEM, "out of memory");
		fab_nodemap_free(names);
		ret = fab_cli_fail();
		goto out;
	}
	fab_nodemap_free(names);
	if (fab_report_write(snap, base, &a.opts, a.xml, a.html)) {
		ret = fab_cli_fail();
		goto out;
	}
	size_t n[FAB_SEV__COUNT] = { 0 };
	for (size_t i = 0; i < snap->n_findings; i++)
		n[snap->findings[i].severity < FAB_SEV__COUNT ? snap->findings[i].severity : FAB_SEV_ERROR]++;
	printf("scan %lld: %s (%zu errors, %zu warnings, %zu info)", (long long)snap->scan_id,
	       fab_report_verdict_name(fab_report_verdict(snap)), n[FAB_SEV_ERROR],
	       n[FAB_SEV_WARNING], n[FAB_SEV_INFO]);
	if (base)
		printf(", compared with scan %lld", (long long)base->scan_id);
	printf("\n");
	if (a.html)
		printf("wrote %s\n", a.html);
	if (a.xml)
		printf("wrote %s\n", a.xml);
	ret = FAB_EXIT_OK;
out:
	fab_snapshot_free(snap);
	fab_snapshot_free(base);
	fab_store_close(st);
	return ret;
}
