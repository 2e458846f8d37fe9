// SPDX-License-Identifier: MIT
/*
 * fabsweep rules: list the rules, or explain one (`rules show ID`): why it
 * matters, its parameters with their current values, what to do. With
 * --config it shows the values that file sets (and so validates it).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"

#define WRAP 76

/* Prints text wrapped at WRAP columns, each line indented. */
static void wrap(const char *text, const char *indent)
{
	size_t col = 0;

	while (*text) {
		size_t w = strcspn(text, " ");
		if (col && col + 1 + w > WRAP) {
			putchar('\n');
			col = 0;
		}
		if (!col) {
			col = (size_t)printf("%s", indent);
		} else {
			putchar(' ');
			col++;
		}
		col += (size_t)printf("%.*s", (int)w, text);
		text += w;
		while (*text == ' ')
			text++;
	}
	if (col)
		putchar('\n');
}

static const char *sev_or_off(int sev)
{
	return sev < 0 ? "off" : fab_severity_name((unsigned)sev);
}

static void needs_text(unsigned needs, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (needs & FAB_NEED_COUNTERS)
		off += (size_t)snprintf(buf + off, len - off, "counter samples");
	if ((needs & FAB_NEED_DELTAS) && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%stwo samples (scan --interval) or check --baseline",
					off ? ", " : "");
	if ((needs & FAB_NEED_SMINFO) && off < len)
		snprintf(buf + off, len - off, "%ssubnet manager data (a live scan)", off ? ", " : "");
	if (!buf[0])
		snprintf(buf, len, "topology and port state only");
}

static void list_rules(const struct fab_config *cfg)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);
	bool changed = false;

	printf("%-22s %-9s %-11s %s\n", "ID", "SEVERITY", "CATEGORY", "TITLE");
	for (size_t i = 0; i < n; i++) {
		const struct fab_rule *r = &t[i];
		int sev = fab_config_severity(cfg, r);
		bool mine = fab_config_rule_line(cfg, r) != 0;
		char s[16];

		if (r->retired)
			continue;
		snprintf(s, sizeof(s), "%s%s", sev_or_off(sev), mine ? "*" : "");
		changed |= mine;
		printf("%-22s %-9s %-11s %s\n", r->id, s, fab_rule_category_name(r->category),
		       r->title);
	}
	if (changed)
		printf("\n* set in %s\n", fab_config_path(cfg));
	printf("\n'fabsweep rules show ID' explains one; docs/rules/ID.md documents it.\n");
}

static void show_rule(const struct fab_config *cfg, const struct fab_rule *r)
{
	int sev = fab_config_severity(cfg, r);
	unsigned line = fab_config_rule_line(cfg, r);
	char needs[160];

	printf("%s: %s\n\n", r->id, r->title);
	printf("severity:  %s", sev_or_off(sev));
	if (line)
		printf(" (default %s; set at %s:%u)", fab_severity_name(r->severity),
		       fab_config_path(cfg), line);
	printf("\ncategory:  %s\n", fab_rule_category_name(r->category));
	needs_text(r->needs, needs, sizeof(needs));
	printf("needs:     %s\n", needs);
	if (r->retired)
		printf("status:    retired (kept for its id; never runs)\n");
	printf("\nWhy it matters:\n");
	wrap(r->rationale, "  ");
	printf("\nParameters");
	if (!r->n_params) {
		printf(": none\n");
	} else {
		printf(" (config file: [section] key = value):\n");
		for (size_t i = 0; i < r->n_params; i++) {
			const struct fab_rule_param *p = &r->params[i];
			char cur[48], def[48], where[64] = "";
			unsigned vl = fab_config_value_line(cfg, r, i);

			fab_param_format(p, fab_config_value(cfg, r, i), cur, sizeof(cur));
			fab_param_format(p, p->def, def, sizeof(def));
			if (vl)
				snprintf(where, sizeof(where), ", set at line %u", vl);
			printf("  [%s] %s = %s  (default %s%s)\n", p->section, p->key, cur, def, where);
			wrap(p->help, "      ");
		}
	}
	printf("\nWhat to do:\n");
	wrap(r->remediation, "  ");
	printf("\nMore: docs/rules/%s.md\n", r->id);
}

int fab_cmd_rules(int argc, char **argv)
{
	enum { O_CONFIG = 256 };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, O_CONFIG },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL;
	struct fab_config *cfg = NULL;
	int c, ret = FAB_EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != O_CONFIG)
			return fab_cli_usage_error("rules", "unknown option '%s'; 'fabsweep help rules' lists them",
						   argv[optind - 1]);
		config = optarg;
	}
	if (optind < argc && strcmp(argv[optind], "show"))
		return fab_cli_usage_error("rules", "unknown action '%s'; use 'fabsweep rules' or 'fabsweep rules show ID'",
					   argv[optind]);
	if (optind < argc && optind + 2 != argc)
		return fab_cli_usage_error("rules", "'rules show' takes one rule id");
	const struct fab_rule *r = NULL;
	if (optind < argc && !(r = fab_rule_find(argv[optind + 1])))
		return fab_cli_usage_error("rules", "unknown rule '%s'; 'fabsweep rules' lists them",
					   argv[optind + 1]);
	if (fab_cli_load_config(config, &cfg))
		return fab_cli_fail();
	if (r)
		show_rule(cfg, r);
	else
		list_rules(cfg);
	fab_config_free(cfg);
	return ret;
}
