// SPDX-License-Identifier: MIT
/* fabsweep scans: list snapshots. (fabsweep db lives in cmd_db.c.) */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/report_json.h"
#include "fabsweep/store.h"

/* Parses --db and --json; returns -1 on success or an exit code. */
static int parse_db_only(const char *cmd, int argc, char **argv, const char **db, int *json)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j')
			*json = 1;
		else if (c == 'd')
			*db = optarg;
		else
			return fab_cli_usage_error(cmd, "unknown option '%s'; 'fabsweep help %s' lists them",
						   argv[optind - 1], cmd);
	}
	return -1;
}

static int print_row(const struct fab_scan_row *r, void *ctx)
{
	int *count = ctx;
	/* A label is text from whoever ran the scan: no terminal escapes. */
	size_t len = r->label ? strlen(r->label) : 0;
	char *label = malloc(4 * len + 1);

	if (!label)
		return fab_err(-ENOMEM, "out of memory");
	fab_text_sanitize((const uint8_t *)(r->label ? r->label : ""), len, label, 4 * len + 1);
	if (!(*count)++)
		printf("%-6s %-24s %-8s %7s %8s %7s %8s %6s  %s\n", "SCAN", "STARTED",
		       "STATUS", "NODES", "PORTS", "LINKS", "FINDINGS", "MISSED", "LABEL");
	/* FINDINGS "-": never checked, which is not the same as none */
	char findings[24] = "-";
	if (r->checked)
		snprintf(findings, sizeof(findings), "%lld", (long long)r->n_findings);
	printf("%-6lld %-24s %-8s %7lld %8lld %7lld %8s %6lld  %s\n",
	       (long long)r->scan_id, r->started_at ? r->started_at : "-",
	       r->status ? r->status : "-", (long long)r->n_nodes,
	       (long long)r->n_ports, (long long)r->n_links,
	       findings, (long long)r->n_errors, label);
	free(label);
	return 0;
}

int fab_cmd_scans(int argc, char **argv)
{
	const char *db = fab_cli_default_db();
	struct fab_store *st;
	struct fab_json_scans *js = NULL;
	int count = 0, json = 0, ret = parse_db_only("scans", argc, argv, &db, &json);

	if (ret >= 0)
		return ret;
	if (optind < argc)
		return fab_cli_usage_error("scans", "unexpected argument '%s'", argv[optind]);
	if (fab_store_open(db, FAB_STORE_READONLY, &st))
		return fab_cli_fail();
	if (json) {
		ret = fab_json_scans_new(db, &js) ? -1 : fab_store_list_scans(st, fab_json_scans_row, js);
		if (!ret)
			ret = fab_json_scans_write(js, stdout);
		else if (js)
			fab_json_scans_write(js, NULL);
		ret = ret ? fab_cli_fail() : FAB_EXIT_OK;
		fab_store_close(st);
		return ret;
	}
	ret = fab_store_list_scans(st, print_row, &count) ? fab_cli_fail() : FAB_EXIT_OK;
	if (!ret && !count)
		printf("no scans in %s\n", db);
	fab_store_close(st);
	return ret;
}
