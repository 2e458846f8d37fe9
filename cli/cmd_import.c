// SPDX-License-Identifier: MIT
/*
 * fabsweep import ibdiagnet2 DIR | ibnetdiscover FILE: another tool's saved
 * run into a new stored snapshot (fab_pipeline_import, docs/imports.md).
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"

int fab_cmd_import(int argc, char **argv)
{
	enum { O_DB = 256, O_LABEL, O_QUIET };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "label", required_argument, NULL, O_LABEL },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_pipeline_import job = { .db = fab_cli_default_db(), .note = fab_cli_note };
	struct fab_snapshot *snap = NULL;
	int c, kind, quiet = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
		case O_LABEL: job.label = optarg; break;
		case O_QUIET: quiet = 1; break;
		default:
			return fab_cli_usage_error("import", "unknown option '%s'; 'fabsweep help import' lists them",
						   argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return fab_cli_usage_error("import", "'fabsweep import ibdiagnet2 DIR' or"
					   " 'fabsweep import ibnetdiscover FILE'");
	if ((kind = fab_import_kind_parse(argv[optind])) < 0)
		return fab_cli_usage_error("import", "unknown kind '%s': ibdiagnet2 or ibnetdiscover",
					   argv[optind]);
	job.kind = (unsigned)kind;
	job.path = argv[optind + 1];
	job.make_db_dir = fab_cli_is_root_db(job.db);
	if (quiet)
		job.note = NULL;
	if (fab_pipeline_import(&job, &snap))
		return fab_cli_fail();
	if (!quiet) {
		printf("scan %lld imported from %s: %zu nodes, %zu ports, %zu links, %zu counter samples, %zu subnet managers%s\n",
		       (long long)snap->scan_id, snap->source, snap->n_nodes, snap->n_ports, snap->n_links,
		       snap->n_samples, snap->n_sms,
		       snap->status == FAB_SCAN_PARTIAL ? " (partial)" : "");
		fab_cli_print_errors(stdout, snap);
	}
	fab_snapshot_free(snap);
	return FAB_EXIT_OK;
}
