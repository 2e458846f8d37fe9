// SPDX-License-Identifier: MIT
/*
 * The rule configuration file: `[section]` headers and `key = value` lines,
 * `#` comments. Strict: anything it does not understand is an error that
 * names the file and line (docs/config.md).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assert.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "rules_priv.h"

#define DAY_MS (24 * 3600 * 1000LL)

struct fab_config {
	char *path;
	size_t n_rules;
	size_t first[FAB_RULES_MAX]; /* per rule: its first slot in values */
	int8_t severity[FAB_RULES_MAX]; /* -1: disabled */
	unsigned rule_line[FAB_RULES_MAX];
	double *values;
	unsigned *value_line;
	struct fab_suppression *supp;
	size_t n_supp, cap_supp;
	char *sweep[FAB_SWEEP__COUNT]; /* [sweep] values as written */
	unsigned sweep_line[FAB_SWEEP__COUNT];
	struct fab_config_site_rule *site; /* [rules] lines naming site rules */
	size_t n_site, cap_site;
};

/* Sections that are not made of parameters. */
static const char *const special_sections[] = { "rules", "suppress", "sweep", "watch", "ready" };

void fab_config_free(struct fab_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n_supp; i++) {
		free((char *)cfg->supp[i].rule);
		free((char *)cfg->supp[i].pattern);
		free((char *)cfg->supp[i].until);
	}
	free(cfg->supp);
	for (size_t i = 0; i < FAB_SWEEP__COUNT; i++)
		free(cfg->sweep[i]);
	for (size_t i = 0; i < cfg->n_site; i++)
		free((char *)cfg->site[i].id);
	free(cfg->site);
	free(cfg->values);
	free(cfg->value_line);
	free(cfg->path);
	free(cfg);
}

int fab_config_defaults(struct fab_config **out)
{
	size_t n, total = 0;
	const struct fab_rule *t = fab_rules_table(&n);
	struct fab_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return fab_err(-ENOMEM, "out of memory");
	cfg->n_rules = n;
	for (size_t i = 0; i < n; i++) {
		cfg->first[i] = total;
		total += t[i].n_params;
		cfg->severity[i] = (int8_t)t[i].severity;
	}
	cfg->values = calloc(total + 1, sizeof(*cfg->values));
	cfg->value_line = calloc(total + 1, sizeof(*cfg->value_line));
	if (!cfg->values || !cfg->value_line) {
		fab_config_free(cfg);
		return fab_err(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].n_params; k++)
			cfg->values[cfg->first[i] + k] = t[i].params[k].def;
	*out = cfg;
	return 0;
}

const char *fab_config_path(const struct fab_config *cfg)
{
	return cfg ? cfg->path : NULL;
}

int fab_config_severity(const struct fab_config *cfg, const struct fab_rule *rule)
{
	if (!cfg)
		return rule->severity;
	return cfg->severity[fab_rule_index(rule)];
}

unsigned fab_config_rule_line(const struct fab_config *cfg, const struct fab_rule *rule)
{
	return cfg ? cfg->rule_line[fab_rule_index(rule)] : 0;
}

double fab_config_value(const struct fab_config *cfg, const struct fab_rule *rule,
			size_t i)
{
	if (!cfg)
		return rule->params[i].def;
	return cfg->values[cfg->first[fab_rule_index(rule)] + i];
}

unsigned fab_config_value_line(const struct fab_config *cfg,
			       const struct fab_rule *rule, size_t i)
{
	return cfg ? cfg->value_line[cfg->first[fab_rule_index(rule)] + i] : 0;
}

const struct fab_suppression *fab_config_suppressions(const struct fab_config *cfg,
						      size_t *n_out)
{
	*n_out = cfg ? cfg->n_supp : 0;
	return cfg ? cfg->supp : NULL;
}

const struct fab_config_site_rule *fab_config_site_rules(const struct fab_config *cfg,
							 size_t *n_out)
{
	*n_out = cfg ? cfg->n_site : 0;
	return cfg ? cfg->site : NULL;
}

int fab_config_site_severity(const struct fab_config *cfg, const char *id, int def,
			     unsigned *line_out)
{
	size_t n;
	const struct fab_config_site_rule *v = fab_config_site_rules(cfg, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].id, id)) {
			if (line_out)
				*line_out = v[i].line;
			return v[i].severity == FAB_CONFIG_SITE_ON ? def : v[i].severity;
		}
	if (line_out)
		*line_out = 0;
	return def;
}

/* ---- [sweep] and [watch] ------------------------------------------------------ */

enum sweep_kind { SW_DIR, SW_PROM, SW_COUNT, SW_DURATION, SW_FAIL_ON, SW_BASELINE,
		  SW_TEXT, SW_MAP, SW_SECONDS, SW_DURATION_OFF, SW_ONOFF, SW_URL, SW_PORTS, SW_REQUIRE,
		  SW_SHARE };

static const struct {
	const char *key;
	uint8_t kind;
	const char *expect; /* what the value must be, for the error message */
	const char *section; /* NULL: [sweep] */
} sweep_keys[] = {
	[FAB_SWEEP_REPORT_DIR] = { "report_dir", SW_DIR, "an absolute directory path" },
	[FAB_SWEEP_PROMETHEUS] = { "prometheus", SW_PROM,
				   "an absolute path ending in .prom (the textfile collector reads *.prom)" },
	[FAB_SWEEP_KEEP] = { "keep", SW_COUNT, "a whole number of scans from 1 to 1000000" },
	[FAB_SWEEP_OLDER_THAN] = { "older_than", SW_DURATION,
				   "a duration such as 30d, 12h, 2w or 1d12h" },
	[FAB_SWEEP_FAIL_ON] = { "fail_on", SW_FAIL_ON, "error, warning, info or never" },
	[FAB_SWEEP_BASELINE] = { "baseline", SW_BASELINE,
				 "previous, none, a scan id or a baseline name" },
	[FAB_SWEEP_EXPECT] = { "expect", SW_TEXT,
			       "an ibnetdiscover topology file or a scan (id or baseline name)" },
	[FAB_SWEEP_NODE_NAME_MAP] = { "node_name_map", SW_MAP, "an absolute path, or none" },
	[FAB_SWEEP_INTERVAL] = { "interval", SW_SECONDS, "seconds from 0 to 3600 (0: one sample)" },
	[FAB_WATCH_INTERVAL] = { "interval", SW_DURATION, "a duration such as 10s, 1s or 500ms", "watch" },
	[FAB_WATCH_RESCAN] = { "rescan", SW_DURATION, "a duration such as 1h or 30m", "watch" },
	[FAB_WATCH_HOLD] = { "hold", SW_DURATION, "a duration such as 10m, 30s or 1h", "watch" },
	[FAB_WATCH_DATA] = { "data_interval", SW_DURATION, "a duration such as 1m or 30s", "watch" },
	[FAB_WATCH_RAW] = { "keep_raw", SW_DURATION, "a duration such as 1d, 12h or 2h", "watch" },
	[FAB_WATCH_PROMETHEUS] = { "prometheus", SW_PROM,
				   "an absolute path ending in .prom (the textfile collector reads *.prom)", "watch" },
	[FAB_WATCH_LINK_PROBE] = { "link_probe", SW_DURATION_OFF,
				   "a duration of a second or more such as 30s or 2m, or off", "watch" },
	[FAB_WATCH_LINK_PROBE_SHARE] = { "link_probe_share", SW_SHARE,
					 "a fraction above 0 and at most 1 such as 0.1, or a percentage such as 10%", "watch" },
	[FAB_WATCH_EVENTS] = { "events", SW_ONOFF, "on or off", "watch" },
	[FAB_WATCH_ALERTMANAGER] = { "alertmanager", SW_URL,
				     "Alertmanager's URL, such as http://localhost:9093", "watch" },
	[FAB_WATCH_ALERT_RESEND] = { "alert_resend", SW_DURATION,
				     "a duration of a second or more such as 1m or 30s", "watch" },
	[FAB_READY_ROCE_PORTS] = { "roce_ports", SW_PORTS,
				   "a number of RoCE ports from 1 to 1024, or RDMA ports as DEVICE/PORT separated by commas (mlx5_0/1, mlx5_1/1)",
				   "ready" },
	[FAB_READY_REQUIRE] = { "require", SW_REQUIRE,
				"what must be readable, separated by commas: lldp, dcb, ecn, ethtool (or none)", "ready" },
};
static_assert(ARRAY_SIZE(sweep_keys) == FAB_SWEEP__COUNT, "sweep keys");

const char *fab_config_sweep_key_name(unsigned key)
{
	return key < FAB_SWEEP__COUNT ? sweep_keys[key].key : NULL;
}

const char *fab_config_sweep(const struct fab_config *cfg, unsigned key, unsigned *line_out)
{
	const char *v = cfg && key < FAB_SWEEP__COUNT ? cfg->sweep[key] : NULL;

	if (line_out)
		*line_out = v ? cfg->sweep_line[key] : 0;
	return v;
}

static bool whole_number(const char *s, long long lo, long long hi)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	return !errno && !*end && v >= lo && v <= hi;
}

bool fab_url_ok(const char *url)
{
	size_t n = strncmp(url, "http://", 7) == 0 ? 7 : strncmp(url, "https://", 8) == 0 ? 8 : 0;

	if (!n || !url[n] || strlen(url) > 1024)
		return false;
	for (const char *c = url; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return false;
	return true;
}

int fab_share_parse(const char *s, double *out)
{
	size_t l = strlen(s);
	bool pct = l > 1 && s[l - 1] == '%';
	char *end;
	double v;

	/* digits and one point only: no sign, space, exponent, inf or nan */
	if (!l || l > 32 || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	for (size_t i = 0; i < l - pct; i++)
		if (!isdigit((unsigned char)s[i]) && s[i] != '.')
			return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != s + l - pct)
		return -EINVAL;
	if (pct)
		v /= 100.0;
	if (!(v > 0.0 && v <= 1.0))
		return -EINVAL;
	*out = v;
	return 0;
}

bool fab_prom_file_name_ok(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t l;

	base = base ? base + 1 : path;
	l = strlen(base);
	return l > 5 && !strcmp(base + l - 5, ".prom");
}

/* ---- [ready] -------------------------------------------------------------- */

static const char *const ready_needs[] = { "lldp", "dcb", "ecn", "ethtool" };

const char *fab_ready_need_name(unsigned bit)
{
	for (unsigned k = 0; k < ARRAY_SIZE(ready_needs); k++)
		if (bit == 1u << k)
			return ready_needs[k];
	return NULL;
}

/* The next item of a comma-separated list, blanks trimmed: its start and
 * length; *s moves past it. false at the end. */
static bool next_item(const char **s, const char **item, size_t *len)
{
	const char *p = *s;

	if (!*p)
		return false;
	size_t n = strcspn(p, ",");
	*s = p[n] ? p + n + 1 : p + n;
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	*item = p;
	*len = n;
	return true;
}

int fab_ready_require_parse(const char *s)
{
	const char *item;
	size_t len;
	int mask = 0;

	if (!s)
		return -1;
	if (!strcmp(s, "none"))
		return 0;
	while (next_item(&s, &item, &len)) {
		unsigned k;
		for (k = 0; k < ARRAY_SIZE(ready_needs); k++)
			if (len == strlen(ready_needs[k]) && !strncmp(item, ready_needs[k], len))
				break;
		if (k == ARRAY_SIZE(ready_needs))
			return -1;
		mask |= 1 << k;
	}
	return mask ? mask : -1;
}

int fab_ready_ports_parse(const char *s, unsigned *count, char (*names)[FAB_READY_PORT_NAME_MAX],
			  size_t cap, size_t *n_names)
{
	const char *item;
	size_t len, n = 0;

	if (!s)
		return -EINVAL;
	if (whole_number(s, 1, 1024)) {
		*count = (unsigned)strtoul(s, NULL, 10);
		*n_names = 0;
		return 0;
	}
	while (next_item(&s, &item, &len)) {
		const char *slash = memchr(item, '/', len);
		size_t dev = slash ? (size_t)(slash - item) : 0;

		/* DEVICE/PORT: a device name of letters, digits, '_', '-', '.'; a port 1..255 */
		if (!slash || !dev || len >= FAB_READY_PORT_NAME_MAX || len - dev < 2 || len - dev > 4)
			return -EINVAL;
		for (size_t i = 0; i < dev; i++)
			if (!isalnum((unsigned char)item[i]) && !strchr("_-.", item[i]))
				return -EINVAL;
		unsigned port = 0;
		for (size_t i = dev + 1; i < len; i++) {
			if (item[i] < '0' || item[i] > '9')
				return -EINVAL;
			port = port * 10 + (unsigned)(item[i] - '0');
		}
		if (port < 1 || port > 255)
			return -EINVAL;
		if (n < cap) {
			memcpy(names[n], item, len);
			names[n][len] = '\0';
		}
		n++;
	}
	if (!n)
		return -EINVAL;
	*count = 0;
	*n_names = n;
	return 0;
}

static bool sweep_value_ok(unsigned kind, const char *v)
{
	size_t l = strlen(v);
	int64_t ms;

	switch (kind) {
	case SW_DIR:
		return v[0] == '/';
	case SW_PROM:
		return v[0] == '/' && fab_prom_file_name_ok(v);
	case SW_MAP:
		return v[0] == '/' || !strcmp(v, "none");
	case SW_COUNT:
		return whole_number(v, 1, 1000000);
	case SW_SECONDS:
		return whole_number(v, 0, 3600);
	case SW_DURATION:
		return fab_duration_parse(v, &ms) == 0;
	case SW_DURATION_OFF:
		return !strcmp(v, "off") || (fab_duration_parse(v, &ms) == 0 && ms >= 1000);
	case SW_ONOFF:
		return !strcmp(v, "on") || !strcmp(v, "off");
	case SW_URL:
		return fab_url_ok(v);
	case SW_SHARE: {
		double f;
		return fab_share_parse(v, &f) == 0;
	}
	case SW_FAIL_ON:
		return fab_fail_on_parse(v) >= 0;
	case SW_REQUIRE:
		return fab_ready_require_parse(v) >= 0;
	case SW_PORTS: {
		unsigned count;
		size_t n;
		return fab_ready_ports_parse(v, &count, NULL, 0, &n) == 0;
	}
	case SW_BASELINE:
		if (!strcmp(v, "previous") || !strcmp(v, "none") || whole_number(v, 1, INT64_MAX))
			return true;
		/* a baseline name: a letter, then letters, digits, '.', '_', '-' */
		if (l > 64 || !isalpha((unsigned char)v[0]))
			return false;
		for (size_t i = 0; i < l; i++)
			if (!isalnum((unsigned char)v[i]) && !strchr("._-", v[i]))
				return false;
		return true;
	default:
		return l > 0;
	}
}

/* ---- parsing --------------------------------------------------------------- */

struct parser {
	struct fab_config *cfg;
	const char *path;
	unsigned line;
	char section[128];
	bool in_section;
};

#define PERR(ps, ...) perr(ps, __VA_ARGS__)

static int perr(const struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(const struct parser *ps, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_err(-EINVAL, "%s:%u: %s", ps->path, ps->line, msg);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* Cuts a comment: '#' at the start or after whitespace. */
static void cut_comment(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			return;
		}
}

static bool section_has_params(const char *sec)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].n_params; k++)
			if (!strcmp(t[i].params[k].section, sec))
				return true;
	return false;
}

static bool section_known(const char *sec)
{
	for (size_t i = 0; i < ARRAY_SIZE(special_sections); i++)
		if (!strcmp(special_sections[i], sec))
			return true;
	return section_has_params(sec);
}

/* "thresholds, rates, expect, rules, suppress, port.link_flapping, ..." */
static void known_sections(char *buf, size_t len)
{
	size_t n, off = 0;
	const struct fab_rule *t = fab_rules_table(&n);

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].n_params; k++) {
			const char *sec = t[i].params[k].section;
			bool seen = false;
			/* list each section once, in table order */
			for (size_t j = 0; j <= i && !seen; j++)
				for (size_t m = 0; m < t[j].n_params; m++) {
					if (j == i && m == k)
						break;
					if (!strcmp(t[j].params[m].section, sec)) {
						seen = true;
						break;
					}
				}
			if (!seen && off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s[%s]",
							off ? ", " : "", sec);
		}
	for (size_t i = 0; i < ARRAY_SIZE(special_sections) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, ", [%s]", special_sections[i]);
}

/* Keys of a parameter section, for the error message. */
static void known_keys(const char *sec, char *buf, size_t len)
{
	size_t n, off = 0;
	const struct fab_rule *t = fab_rules_table(&n);

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].n_params; k++) {
			if (strcmp(t[i].params[k].section, sec) || off >= len)
				continue;
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
						t[i].params[k].key);
		}
}

/* A site rule (docs/site-rules.md) is not known while the config is read:
 * its line is kept, applied by id when site rules run, and checked against
 * the rules directory by the command line. */
static int set_site_rule(struct parser *ps, const char *key, const char *val)
{
	struct fab_config *cfg = ps->cfg;
	int sev;

	for (size_t i = 0; i < cfg->n_site; i++)
		if (!strcmp(cfg->site[i].id, key))
			return PERR(ps, "rule '%s' is set twice in [rules] (first at line %u); keep one",
				    key, cfg->site[i].line);
	if (!strcmp(val, "off"))
		sev = -1;
	else if (!strcmp(val, "on"))
		sev = FAB_CONFIG_SITE_ON;
	else if ((sev = fab_severity_parse(val)) < 0)
		return PERR(ps, "'%s' takes on, off, error, warning or info, not '%s'", key, val);
	if (cfg->n_site == cfg->cap_site) {
		size_t ncap = cfg->cap_site ? cfg->cap_site * 2 : 8;
		struct fab_config_site_rule *v = realloc(cfg->site, ncap * sizeof(*v));
		if (!v)
			return fab_err(-ENOMEM, "out of memory");
		cfg->site = v;
		cfg->cap_site = ncap;
	}
	cfg->site[cfg->n_site] = (struct fab_config_site_rule){
		.id = strdup(key), .severity = sev, .line = ps->line,
	};
	if (!cfg->site[cfg->n_site++].id)
		return fab_err(-ENOMEM, "out of memory");
	return 0;
}

static int set_rule(struct parser *ps, const char *key, const char *val)
{
	const struct fab_rule *r = fab_rule_find(key);
	struct fab_config *cfg = ps->cfg;
	int sev;

	if (!r && !strncmp(key, FAB_CONFIG_SITE_PREFIX, strlen(FAB_CONFIG_SITE_PREFIX)))
		return set_site_rule(ps, key, val);
	if (!r)
		return PERR(ps, "unknown rule '%s' in [rules]; 'fabsweep rules' lists them", key);
	size_t i = fab_rule_index(r);
	if (cfg->rule_line[i])
		return PERR(ps, "rule '%s' is set twice in [rules] (first at line %u); keep one",
			    key, cfg->rule_line[i]);
	if (!strcmp(val, "off"))
		sev = -1;
	else if (!strcmp(val, "on"))
		sev = r->severity;
	else if ((sev = fab_severity_parse(val)) < 0)
		return PERR(ps, "'%s' takes on, off, error, warning or info, not '%s'", key, val);
	cfg->severity[i] = (int8_t)sev;
	cfg->rule_line[i] = ps->line;
	return 0;
}

static bool rule_glob_matches(const char *glob)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	for (size_t i = 0; i < n; i++)
		if (!fnmatch(glob, t[i].id, 0))
			return true;
	return false;
}

/* "YYYY-MM-DD", a real date; *out = the first millisecond after that day. */
static int parse_date(const char *s, int64_t *out)
{
	char iso[32], back[FAB_TIME_STRLEN];
	int64_t ms;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return -EINVAL;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return -EINVAL;
	snprintf(iso, sizeof(iso), "%sT00:00:00Z", s);
	if (fab_time_parse(iso, &ms))
		return -EINVAL;
	fab_time_format(ms, back); /* timegm normalises 2026-02-30: refuse it */
	if (strncmp(back, s, 10))
		return -EINVAL;
	*out = ms + DAY_MS;
	return 0;
}

static int add_suppression(struct parser *ps, const char *key, char *val)
{
	struct fab_config *cfg = ps->cfg;
	char *until, *date, *pattern;
	int64_t until_ms;

	if (!rule_glob_matches(key) &&
	    strncmp(key, FAB_CONFIG_SITE_PREFIX, strlen(FAB_CONFIG_SITE_PREFIX)))
		return PERR(ps, "'%s' in [suppress] matches no rule; 'fabsweep rules' lists them", key);
	/* PATTERN until YYYY-MM-DD: the pattern may contain spaces */
	until = NULL;
	for (char *p = strstr(val, "until"); p; p = strstr(p + 1, "until"))
		if ((p == val || p[-1] == ' ' || p[-1] == '\t') && (p[5] == ' ' || p[5] == '\t'))
			until = p;
	if (!until)
		return PERR(ps, "a suppression needs an expiry date: '%s = PATTERN until YYYY-MM-DD'", key);
	date = trim(until + 5);
	*until = '\0';
	pattern = trim(val);
	if (!*pattern)
		return PERR(ps, "a suppression needs a node/port pattern before 'until' (like leaf003/5 or host01*)");
	if (parse_date(date, &until_ms))
		return PERR(ps, "'%s' is not a date; write the expiry as YYYY-MM-DD", date);
	if (cfg->n_supp == cfg->cap_supp) {
		size_t ncap = cfg->cap_supp ? cfg->cap_supp * 2 : 8;
		struct fab_suppression *s = realloc(cfg->supp, ncap * sizeof(*s));
		if (!s)
			return fab_err(-ENOMEM, "out of memory");
		cfg->supp = s;
		cfg->cap_supp = ncap;
	}
	struct fab_suppression *s = &cfg->supp[cfg->n_supp];
	s->rule = strdup(key);
	s->pattern = strdup(pattern);
	s->until = strdup(date);
	s->until_ms = until_ms;
	s->line = ps->line;
	cfg->n_supp++;
	if (!s->rule || !s->pattern || !s->until)
		return fab_err(-ENOMEM, "out of memory");
	return 0;
}

static int set_param(struct parser *ps, const char *key, const char *val)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);
	struct fab_config *cfg = ps->cfg;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].n_params; k++) {
			const struct fab_rule_param *p = &t[i].params[k];
			size_t slot = cfg->first[i] + k;
			double v;

			if (strcmp(p->section, ps->section) || strcmp(p->key, key))
				continue;
			if (cfg->value_line[slot])
				return PERR(ps, "'%s' is set twice in [%s] (first at line %u); keep one",
					    key, ps->section, cfg->value_line[slot]);
			if (fab_param_parse(p, val, &v)) {
				char range[64] = ""; /* plain numbers say their bounds */
				if (p->type == FAB_PARAM_INT || p->type == FAB_PARAM_INT_AUTO)
					snprintf(range, sizeof(range), " from %g to %g", p->min, p->max);
				return PERR(ps, "'%s' in [%s] takes %s%s, not '%s'", key,
					    ps->section, fab_param_expect(p), range, val);
			}
			cfg->values[slot] = v;
			cfg->value_line[slot] = ps->line;
			return 0;
		}
	char keys[600];
	known_keys(ps->section, keys, sizeof(keys));
	return PERR(ps, "unknown key '%s' in [%s]; known: %s", key, ps->section, keys);
}

static bool in_section(unsigned i, const char *sec)
{
	return !strcmp(sweep_keys[i].section ? sweep_keys[i].section : "sweep", sec);
}

/* A key of [sweep], [watch] or [ready] (ps->section). */
static int set_sweep(struct parser *ps, const char *key, const char *val)
{
	struct fab_config *cfg = ps->cfg;
	const char *sec = ps->section;

	for (unsigned i = 0; i < FAB_SWEEP__COUNT; i++) {
		if (!in_section(i, sec) || strcmp(sweep_keys[i].key, key))
			continue;
		if (cfg->sweep[i])
			return PERR(ps, "'%s' is set twice in [%s] (first at line %u); keep one",
				    key, sec, cfg->sweep_line[i]);
		if (!sweep_value_ok(sweep_keys[i].kind, val))
			return PERR(ps, "'%s' in [%s] takes %s, not '%s'", key, sec,
				    sweep_keys[i].expect, val);
		if (!(cfg->sweep[i] = strdup(val)))
			return fab_err(-ENOMEM, "out of memory");
		cfg->sweep_line[i] = ps->line;
		return 0;
	}
	char keys[400];
	size_t off = 0;
	for (unsigned i = 0; i < FAB_SWEEP__COUNT && off < sizeof(keys); i++)
		if (in_section(i, sec))
			off += (size_t)snprintf(keys + off, sizeof(keys) - off, "%s%s",
						off ? ", " : "", sweep_keys[i].key);
	return PERR(ps, "unknown key '%s' in [%s]; known: %s", key, sec, keys);
}

static int parse_line(struct parser *ps, char *line)
{
	char *s, *eq, *key, *val;

	cut_comment(line);
	s = trim(line);
	if (!*s)
		return 0;
	if (*s == '[') {
		char *end = strchr(s, ']');
		if (!end || *trim(end + 1))
			return PERR(ps, "a section header is '[name]' alone on its line");
		*end = '\0';
		char *name = trim(s + 1);
		if (!section_known(name)) {
			char known[600];
			known_sections(known, sizeof(known));
			return PERR(ps, "unknown section [%s]; known: %s", name, known);
		}
		snprintf(ps->section, sizeof(ps->section), "%s", name);
		ps->in_section = true;
		return 0;
	}
	eq = strchr(s, '=');
	if (!eq)
		return PERR(ps, "expected 'key = value' or '[section]', not '%.60s'", s);
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	if (!*key)
		return PERR(ps, "a line has a value but no key");
	if (!*val)
		return PERR(ps, "'%s' has no value", key);
	if (!ps->in_section) {
		if (fab_counter_parse(key) >= 0)
			return PERR(ps, "'%s' is outside any section; counter thresholds go under [thresholds] (rates under [rates])",
				    key);
		return PERR(ps, "'%s' is outside any section; start one with [thresholds], [rates], [expect], [rules] or [suppress]",
			    key);
	}
	if (!strcmp(ps->section, "rules"))
		return set_rule(ps, key, val);
	if (!strcmp(ps->section, "suppress"))
		return add_suppression(ps, key, val);
	if (!strcmp(ps->section, "sweep") || !strcmp(ps->section, "watch") ||
	    !strcmp(ps->section, "ready"))
		return set_sweep(ps, key, val);
	return set_param(ps, key, val);
}

int fab_config_parse(const char *text, size_t len, const char *name,
		     struct fab_config **out)
{
	struct parser ps = { .path = name ? name : "config" };
	char *line = malloc(FAB_CONFIG_LINE_MAX + 2);
	size_t off = 0;
	int err;

	if (!line)
		return fab_err(-ENOMEM, "out of memory");
	if ((err = fab_config_defaults(&ps.cfg)))
		goto out;
	if (name && !(ps.cfg->path = strdup(name))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		off = 3; /* a UTF-8 byte-order mark */
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t l = nl ? (size_t)(nl - (text + off)) : len - off;

		ps.line++;
		if (l > FAB_CONFIG_LINE_MAX) {
			err = PERR(&ps, "line longer than %d bytes", FAB_CONFIG_LINE_MAX);
			goto out;
		}
		if (memchr(text + off, '\0', l)) {
			err = PERR(&ps, "a NUL byte: this is not a text file");
			goto out;
		}
		memcpy(line, text + off, l);
		line[l] = '\0';
		if ((err = parse_line(&ps, line)))
			goto out;
		off += l + (nl ? 1 : 0);
	}
out:
	free(line);
	if (err) {
		fab_config_free(ps.cfg);
		return err;
	}
	*out = ps.cfg;
	return 0;
}

int fab_config_load(const char *path, struct fab_config **out)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int err = 0;

	f = fopen(path, "rb");
	if (!f)
		return fab_err(-errno, "cannot read config file '%s': %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			if (cap >= FAB_CONFIG_FILE_MAX) {
				err = fab_err(-EFBIG, "config file '%s' is larger than %d bytes; is it the right file?",
					      path, FAB_CONFIG_FILE_MAX);
				break;
			}
			cap = cap ? cap * 2 : 4096;
			char *t = realloc(text, cap + 1);
			if (!t) {
				err = fab_err(-ENOMEM, "out of memory");
				break;
			}
			text = t;
		}
		size_t n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				err = fab_err(-EIO, "cannot read config file '%s'", path);
			break;
		}
	}
	fclose(f);
	if (!err)
		err = fab_config_parse(text ? text : "", len, path, out);
	free(text);
	return err;
}
