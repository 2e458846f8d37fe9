// SPDX-License-Identifier: MIT
/*
 * fabsweep rules: list the rules, or explain one (`rules show ID`). With
 * --config it shows the values that file sets (and so validates it); the
 * site rules of --rules-dir are compiled, and a broken one is an error.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/report_json.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"

int fab_cmd_rules(int argc, char **argv)
{
	enum { O_CONFIG = 256, O_RULES_DIR, O_JSON };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, O_CONFIG },
		{ "rules-dir", required_argument, NULL, O_RULES_DIR },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *rules_dir = NULL, *id = NULL;
	struct fab_config *cfg = NULL;
	struct fab_site_rules *site = NULL;
	size_t problems = 0;
	int c, ret = FAB_EXIT_OK;
	bool json = false;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == O_CONFIG)
			config = optarg;
		else if (c == O_RULES_DIR)
			rules_dir = optarg;
		else if (c == O_JSON)
			json = true;
		else
			return fab_cli_usage_error("rules", "unknown option '%s'; 'fabsweep help rules' lists them",
						   argv[optind - 1]);
	}
	if (optind < argc && strcmp(argv[optind], "show"))
		return fab_cli_usage_error("rules", "unknown action '%s'; use 'fabsweep rules' or 'fabsweep rules show ID'",
					   argv[optind]);
	if (optind < argc && optind + 2 != argc)
		return fab_cli_usage_error("rules", "'rules show' takes one rule id");
	const struct fab_rule *r = NULL;
	if (optind < argc) {
		id = argv[optind + 1];
		/* a site rule's id is known once its directory is read */
		if (!(r = fab_rule_find(id)) && strncmp(id, FAB_SITE_ID_PREFIX, strlen(FAB_SITE_ID_PREFIX)))
			return fab_cli_usage_error("rules", "unknown rule '%s'; 'fabsweep rules' lists them", id);
	}
	if (fab_pipeline_load_config(config, &cfg) ||
	    fab_pipeline_load_site_rules(rules_dir, cfg, true, fab_cli_problem, NULL, &site, &problems)) {
		ret = fab_cli_fail();
		goto out;
	}
	const struct fab_site_rule *sr = !r && id ? fab_cli_site_rule_named(site, id) : NULL;
	if (id && !r && !sr) {
		ret = fab_cli_usage_error("rules", "unknown rule '%s'; 'fabsweep rules' lists them", id);
		goto out;
	}
	if (json) {
		if (fab_json_rules(stdout, cfg, site, r, sr))
			ret = fab_cli_fail();
		else if ((sr && sr->status == FAB_SITE_BROKEN) || (!id && problems))
			ret = FAB_EXIT_RUNTIME;
	} else if (r) {
		fab_cli_show_rule(cfg, r);
	} else if (sr) {
		fab_cli_show_site_rule(cfg, sr);
		if (sr->status == FAB_SITE_BROKEN)
			ret = FAB_EXIT_RUNTIME;
	} else {
		fab_cli_list_rules(cfg);
		fab_cli_list_site_rules(cfg, site);
		printf("\n'fabsweep rules show ID' explains one; docs/rules/ID.md documents a built-in rule, docs/site-rules.md site rules.\n");
		if (problems)
			ret = FAB_EXIT_RUNTIME;
	}
out:
	fab_site_rules_free(site);
	fab_config_free(cfg);
	return ret;
}
