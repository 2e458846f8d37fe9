// SPDX-License-Identifier: MIT
/* fabsweep db baseline set ID [--name NAME] | list | clear ID|NAME:
 * scans pruning keeps, and names for them (store/prune.c). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

static int print_baseline(const struct fab_baseline_row *r, void *ctx)
{
	int *n = ctx;

	if (!(*n)++)
		printf("%-6s %-24s %-24s %-24s %s\n", "SCAN", "NAME", "STARTED", "MARKED", "LABEL");
	printf("%-6lld %-24s %-24s %-24s %s\n", (long long)r->scan_id,
	       r->name ? r->name : "-", r->started_at ? r->started_at : "(scan gone)",
	       r->created_at ? r->created_at : "-", r->label ? r->label : "");
	return 0;
}

int fab_cli_db_baseline(const struct fab_cli_db_args *a)
{
	const char *action = a->npos > 1 ? a->pos[1] : NULL;
	struct fab_store *st;
	int ret = FAB_EXIT_OK;

	if (!action)
		return fab_cli_usage_error("db", "baseline needs an action: set, list or clear");
	bool set = !strcmp(action, "set"), list = !strcmp(action, "list"),
	     clear = !strcmp(action, "clear");
	if (!set && !list && !clear)
		return fab_cli_usage_error("db", "unknown baseline action '%s'; use set, list or clear",
					   action);
	if (a->has_name && !set)
		return fab_cli_usage_error("db", "--name goes with 'baseline set'");
	if (list && a->npos != 2)
		return fab_cli_usage_error("db", "unexpected argument '%s'", a->pos[2]);
	if (!list && a->npos != 3)
		return fab_cli_usage_error("db", a->npos < 3 ? "baseline %s needs a scan id%s"
							     : "baseline %s takes one scan id%s",
					   action, clear ? " or name" : "");
	if (a->has_name && !fab_baseline_name_valid(a->name))
		return fab_cli_usage_error("db", "'%s' is not a baseline name: 1 to %d letters, digits,"
					   " '.', '_' or '-', starting with a letter",
					   a->name, FAB_BASELINE_NAME_MAX);
	if (list) {
		int n = 0;
		if (fab_store_open(a->db, FAB_STORE_READONLY, &st))
			return fab_cli_fail();
		if (fab_store_baseline_list(st, print_baseline, &n))
			ret = fab_cli_fail();
		else if (!n)
			printf("no baselines in %s; 'fabsweep db baseline set ID' marks one\n", a->db);
		fab_store_close(st);
		return ret;
	}
	int64_t id = 0, prev = 0;
	if (set && fab_pipeline_parse_scan(a->pos[2], &id))
		return fab_cli_usage_error("db", "'%s' is not a scan id ('fabsweep scans' lists them)",
					   a->pos[2]);
	if (fab_store_open(a->db, FAB_STORE_WRITE, &st))
		return fab_cli_fail();
	if (set) {
		if (fab_store_resolve_scan(st, id, &id) ||
		    fab_store_baseline_set(st, id, a->name, &prev)) {
			ret = fab_cli_fail();
		} else {
			printf("scan %lld is a baseline%s%s%s\n", (long long)id,
			       a->name ? " named '" : "", a->name ? a->name : "", a->name ? "'" : "");
			if (prev)
				printf("the name '%s' moved from scan %lld\n", a->name, (long long)prev);
		}
	} else {
		if (fab_store_baseline_clear(st, a->pos[2], &id))
			ret = fab_cli_fail();
		else
			printf("scan %lld is no longer a baseline; pruning may drop it\n",
			       (long long)id);
	}
	fab_store_close(st);
	return ret;
}

