// SPDX-License-Identifier: MIT
/* What `fabsweep rules` prints: the rule list, and one rule explained
 * (why it matters, its parameters with their current values, what to do). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"

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
	const char *t;

	buf[0] = '\0';
	for (unsigned bit = 1; bit <= FAB_NEED__LAST && off < len; bit <<= 1)
		if ((needs & bit) && (t = fab_rule_need_text(bit)))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", t);
	if (!buf[0])
		snprintf(buf, len, "the topology only");
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void fab_cli_list_site_rules(const struct fab_config *cfg, struct fab_site_rules *rs)
{
	size_t n;
	const struct fab_site_rule *v = fab_site_rules_list(rs, &n);
	bool changed = false;

	if (!fab_site_rules_dir(rs)) {
		printf("\nNo site rules (%s does not exist; docs/site-rules.md).\n", FAB_SITE_RULES_DIR);
		return;
	}
	printf("\nSite rules in %s:\n", fab_site_rules_dir(rs));
	if (!n) {
		printf("  none (no *.sql file)\n");
		return;
	}
	printf("%-22s %-9s %-22s %s\n", "ID", "SEVERITY", "FILE", "TITLE");
	for (size_t i = 0; i < n; i++) {
		const struct fab_site_rule *r = &v[i];
		char s[16];

		if (r->status == FAB_SITE_BROKEN && !r->title) {
			printf("%-22s %-9s %-22s %s\n", r->id ? r->id : "-", "broken",
			       base_name(r->path), "(see its error on stderr)");
			continue;
		}
		unsigned line;
		int sev = fab_config_site_severity(cfg, r->id, r->severity, &line);
		snprintf(s, sizeof(s), "%s%s", r->status == FAB_SITE_BROKEN ? "broken" : sev_or_off(sev),
			 line && r->status != FAB_SITE_BROKEN ? "*" : "");
		changed |= line != 0;
		printf("%-22s %-9s %-22s %s\n", r->id, s, base_name(r->path), r->title);
	}
	if (changed)
		printf("\n* set in %s\n", fab_config_path(cfg));
}

/* Prints text line by line, indented. */
static void indent_text(const char *text, const char *indent)
{
	while (*text) {
		size_t l = strcspn(text, "\n");
		printf("%s%.*s\n", l ? indent : "", (int)l, text);
		text += l + (text[l] == '\n');
	}
}

void fab_cli_show_site_rule(const struct fab_config *cfg, const struct fab_site_rule *r)
{
	unsigned line;
	int sev = fab_config_site_severity(cfg, r->id, r->severity, &line);

	printf("%s: %s\n\n", r->id, r->title);
	printf("severity:  %s", sev_or_off(sev));
	if (line)
		printf(" (default %s; set at %s:%u)", fab_severity_name(r->severity),
		       fab_config_path(cfg), line);
	printf("\ncategory:  site\n");
	printf("origin:    %s\n", r->path);
	printf("limits:    %g s, %lld MiB, %d findings\n", r->time_limit,
	       FAB_SITE_HEAP_BYTES / (1024 * 1024), FAB_SITE_ROWS_MAX);
	if (r->status == FAB_SITE_BROKEN)
		printf("status:    broken: %s\n", r->error);
	if (r->rationale) {
		printf("\nWhy it matters:\n");
		wrap(r->rationale, "  ");
	}
	printf("\nWhat to do:\n");
	wrap(r->remediation, "  ");
	const char *q = r->sql;
	unsigned at = r->sql_line;
	for (; *q == '\n' || *q == '\r'; q++)
		at += *q == '\n';
	printf("\nQuery (%s, from line %u; :scan_id and :baseline_id are bound):\n",
	       base_name(r->path), at);
	indent_text(q, "  ");
	printf("\nMore: docs/site-rules.md\n");
}

void fab_cli_list_rules(const struct fab_config *cfg)
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
}

void fab_cli_show_rule(const struct fab_config *cfg, const struct fab_rule *r)
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

/* A site rule by id, broken ones too (they are shown with their error). */
const struct fab_site_rule *fab_cli_site_rule_named(struct fab_site_rules *rs, const char *id)
{
	size_t n;
	const struct fab_site_rule *v = fab_site_rules_list(rs, &n);

	for (size_t i = 0; i < n; i++)
		if (v[i].id && v[i].title && !strcmp(v[i].id, id))
			return &v[i];
	return NULL;
}

