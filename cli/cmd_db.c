// SPDX-License-Identifier: MIT
/*
 * fabsweep db: database maintenance.
 *   db info
 *   db migrate
 *   db prune --keep N | --older-than DURATION [--dry-run] [--no-vacuum]
 *   db baseline set ID [--name NAME] | list | clear ID|NAME
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/report_json.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

static int cmd_info(const struct fab_cli_db_args *a)
{
	struct fab_store_info info;
	struct fab_store *st;
	int ret;

	if (fab_store_open(a->db, FAB_STORE_READONLY, &st))
		return fab_cli_fail();
	if (fab_store_info(st, &info)) {
		ret = fab_cli_fail();
	} else if (a->json) {
		ret = fab_json_db_info(stdout, a->db, &info) ? fab_cli_fail() : FAB_EXIT_OK;
	} else {
		printf("database:       %s\n", a->db);
		printf("schema version: %d\n", info.schema_version);
		printf("journal mode:   %s\n", info.journal_mode);
		printf("snapshots:      %lld", (long long)info.n_scans);
		if (info.n_scans)
			printf(" (scan %lld to %lld)", (long long)info.first_scan,
			       (long long)info.last_scan);
		printf("\nsize:           %lld bytes (%lld free)\n",
		       (long long)(info.page_size * info.page_count),
		       (long long)(info.page_size * info.freelist_count));
		ret = FAB_EXIT_OK;
	}
	fab_store_close(st);
	return ret;
}

/* Brings an existing database to this version's schema (what every writing
 * command does first; read-only ones refuse an older file and say to). */
static int cmd_migrate(const struct fab_cli_db_args *a)
{
	struct fab_store_info info;
	struct fab_store *st;
	int ret = FAB_EXIT_OK;

	if (fab_store_open(a->db, FAB_STORE_WRITE | FAB_STORE_EXISTING, &st))
		return fab_cli_fail();
	if (fab_store_info(st, &info))
		ret = fab_cli_fail();
	else
		printf("database %s: schema version %d\n", a->db, info.schema_version);
	fab_store_close(st);
	return ret;
}

static int print_pruned(const struct fab_prune_scan *p, void *ctx)
{
	const bool *dry = ctx;

	printf("%s scan %lld (started %s%s%s%s)\n",
	       p->is_baseline ? "keep" : *dry ? "would drop" : "drop",
	       (long long)p->scan_id, p->started_at ? p->started_at : "-",
	       p->label ? ", label '" : "", p->label ? p->label : "", p->label ? "'" : "");
	if (p->is_baseline)
		printf("     (a baseline; 'fabsweep db baseline clear %lld' lets it go)\n",
		       (long long)p->scan_id);
	return 0;
}

static int cmd_prune(const struct fab_cli_db_args *a)
{
	struct fab_prune_opts o = { .keep = a->keep, .older_than_ms = a->older_ms,
				    .dry_run = a->dry_run, .no_vacuum = a->no_vacuum };
	struct fab_prune_result r;
	struct fab_store *st;
	bool dry = a->dry_run;
	int ret = FAB_EXIT_OK;

	if (!a->has_keep && !a->has_older)
		return fab_cli_usage_error("db", "prune needs --keep N or --older-than DURATION");
	if (fab_store_open(a->db, FAB_STORE_WRITE, &st))
		return fab_cli_fail();
	if (fab_store_prune(st, &o, print_pruned, &dry, &r)) {
		ret = fab_cli_fail();
		goto out;
	}
	printf("%s %lld scan%s, kept %lld baseline%s; %lld scan%s remain\n",
	       dry ? "would drop" : "dropped", (long long)r.dropped, r.dropped == 1 ? "" : "s",
	       (long long)r.kept_baselines, r.kept_baselines == 1 ? "" : "s",
	       (long long)(dry ? r.remaining - r.dropped : r.remaining),
	       (dry ? r.remaining - r.dropped : r.remaining) == 1 ? "" : "s");
	if (!dry && r.dropped) {
		printf("deleted %lld rows; database %lld -> %lld bytes%s\n",
		       (long long)r.rows_deleted, (long long)r.bytes_before,
		       (long long)r.bytes_after,
		       r.vacuumed ? "" : a->no_vacuum ? " (not vacuumed)" : "");
		if (r.vacuum_error[0])
			fprintf(stderr, "fabsweep: scans were dropped but space was not reclaimed"
				" (VACUUM: %s); run 'fabsweep db prune' again when the database is idle\n",
				r.vacuum_error);
	}
out:
	fab_store_close(st);
	return ret;
}

static int db_main(int argc, char **argv, char **args, const char **pos);

int fab_cmd_db(int argc, char **argv)
{
	static const char *const with_arg[] = { "--db", "--keep", "--older-than", "--name", NULL };
	char **args = fab_cli_hide_negative_ids(argc, argv, with_arg);
	const char **pos = calloc((size_t)argc + 1, sizeof(*pos));
	int ret;

	if (!args || !pos)
		ret = fab_cli_usage_error("db", "out of memory");
	else
		ret = db_main(argc, argv, args, pos);
	free(args);
	free(pos);
	return ret;
}

/* argv as given; args for getopt (negative scan ids hidden); pos: room for
 * the positional words. */
static int db_main(int argc, char **argv, char **args, const char **pos)
{
	enum { O_DB = 256, O_KEEP, O_OLDER, O_DRY, O_NOVAC, O_NAME, O_JSON };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "keep", required_argument, NULL, O_KEEP },
		{ "older-than", required_argument, NULL, O_OLDER },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "no-vacuum", no_argument, NULL, O_NOVAC },
		{ "name", required_argument, NULL, O_NAME },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_cli_db_args a = { .db = fab_cli_default_db() };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, args, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: a.db = optarg; break;
		case O_DRY: a.dry_run = true; break;
		case O_NOVAC: a.no_vacuum = true; break;
		case O_JSON: a.json = true; break;
		case O_NAME: a.name = optarg; a.has_name = true; break;
		case O_KEEP:
			if (fab_cli_parse_int(optarg, 1, 1000000000L, &a.keep))
				return fab_cli_usage_error("db", "--keep takes a whole number of scans"
							   " (1 or more), not '%s'", optarg);
			a.has_keep = true;
			break;
		case O_OLDER:
			if (fab_duration_parse(optarg, &a.older_ms))
				return fab_cli_usage_error("db", "--older-than takes a duration such as"
							   " 30d, 12h, 2w or 1d12h, not '%s'", optarg);
			a.has_older = true;
			break;
		default:
			return fab_cli_usage_error("db", "unknown option '%s'; 'fabsweep help db' lists them",
						   args[optind - 1]);
		}
	}
	a.npos = argc - optind;
	for (int i = 0; i < a.npos; i++)
		pos[i] = fab_cli_positional(argc, argv, args[optind + i]);
	a.pos = pos;
	if (a.npos < 1)
		return fab_cli_usage_error("db", "which action? 'fabsweep help db' lists them");
	const char *action = a.pos[0];
	bool prune = !strcmp(action, "prune"), baseline = !strcmp(action, "baseline");
	bool info = !strcmp(action, "info"), migrate = !strcmp(action, "migrate");
	if ((a.has_keep || a.has_older || a.dry_run || a.no_vacuum) && !prune)
		return fab_cli_usage_error("db", "--keep, --older-than, --dry-run and --no-vacuum go with 'db prune'");
	if (a.json && !info)
		return fab_cli_usage_error("db", "--json goes with 'db info'");
	if (info || migrate || prune) {
		if (a.has_name)
			return fab_cli_usage_error("db", "--name goes with 'db baseline set'");
		if (a.npos > 1)
			return fab_cli_usage_error("db", "unexpected argument '%s'", a.pos[1]);
		return info ? cmd_info(&a) : migrate ? cmd_migrate(&a) : cmd_prune(&a);
	}
	if (baseline)
		return fab_cli_db_baseline(&a);
	return fab_cli_usage_error("db", "unknown action '%s'; 'fabsweep help db' lists them",
				   action);
}
