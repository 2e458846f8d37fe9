/* SPDX-License-Identifier: MIT */
/*
 * The configuration of the rule engine: parameter values, severity
 * overrides, disabled rules and suppressions. The file format is in
 * docs/config.md; parsing is strict (an unknown section, key or a bad value
 * is an error naming the file and line).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_rule;
struct fab_config;

#define FAB_CONFIG_DEFAULT_PATH "/etc/fabsweep/fabsweep.conf"
/* Longest line, and largest file, accepted. */
#define FAB_CONFIG_LINE_MAX 4096
#define FAB_CONFIG_FILE_MAX (1 << 20)

/* The defaults of every rule. *out is owned by the caller. */
int fab_config_defaults(struct fab_config **out);

/*
 * The defaults overlaid with the file at path. On error *out is untouched
 * and fab_errmsg() is "PATH:LINE: what is wrong; what to do" (-EINVAL) or
 * says why the file cannot be read (-ENOENT, -EACCES, ...).
 */
int fab_config_load(const char *path, struct fab_config **out);

/*
 * The same from len bytes of text (borrowed; any bytes, need not be
 * NUL-terminated); name (borrowed, may be NULL) names it in messages and
 * becomes fab_config_path().
 */
int fab_config_parse(const char *text, size_t len, const char *name,
		     struct fab_config **out);

void fab_config_free(struct fab_config *cfg); /* accepts NULL */

/* The file it was read from (borrowed), NULL for the defaults. */
const char *fab_config_path(const struct fab_config *cfg);

/* Effective severity of a rule (enum fab_severity), or -1 when disabled. */
int fab_config_severity(const struct fab_config *cfg, const struct fab_rule *rule);
/* Line that overrode the rule's severity or disabled it; 0 if none. */
unsigned fab_config_rule_line(const struct fab_config *cfg,
			      const struct fab_rule *rule);

/* Current value of rule->params[i]; the line that set it (0: default). */
double fab_config_value(const struct fab_config *cfg, const struct fab_rule *rule,
			size_t i);
unsigned fab_config_value_line(const struct fab_config *cfg,
			       const struct fab_rule *rule, size_t i);

/* A finding is dropped when its rule matches `rule` and one of its names
 * matches `pattern` (fnmatch globs), until the end of the expiry day. */
struct fab_suppression {
	const char *rule;    /* rule id or glob ("port.*") */
	const char *pattern; /* "leaf003/5", "host01*", a GUID, ... */
	int64_t until_ms;    /* first millisecond after the expiry day (UTC) */
	const char *until;   /* "YYYY-MM-DD" as written */
	unsigned line;
};

/* The suppressions in file order (borrowed). */
const struct fab_suppression *fab_config_suppressions(const struct fab_config *cfg,
						      size_t *n_out);

/*
 * [sweep]: settings of `fabsweep sweep` (docs/config.md), checked when the
 * file is read like everything else in it; [watch]: those of `fabsweep
 * watch`; [ready]: those of `fabsweep ready --local`. The command line
 * overrides them.
 */
enum fab_sweep_key {
	FAB_SWEEP_REPORT_DIR = 0, /* absolute directory path */
	FAB_SWEEP_PROMETHEUS,     /* absolute path of a .prom file */
	FAB_SWEEP_KEEP,           /* retention: newest N scans (1..1000000) */
	FAB_SWEEP_OLDER_THAN,     /* retention: a duration (fab_duration_parse) */
	FAB_SWEEP_FAIL_ON,        /* error, warning, info, never */
	FAB_SWEEP_BASELINE,       /* previous, none, a scan id or a baseline name */
	FAB_SWEEP_EXPECT,         /* expected topology: a file or a scan */
	FAB_SWEEP_NODE_NAME_MAP,  /* absolute path, or none */
	FAB_SWEEP_INTERVAL,       /* seconds between two counter samples, 0..3600 */
	/* [watch]: settings of `fabsweep watch` (docs/watch.md), read the same way */
	FAB_WATCH_INTERVAL,       /* from one sweep to the next: a duration */
	FAB_WATCH_RESCAN,         /* a full scan at least this often: a duration */
	FAB_WATCH_HOLD,           /* how long a counter finding stays after its last change */
	FAB_WATCH_DATA,           /* PortXmitWait changes are stored at most this often: a duration */
	FAB_WATCH_RAW,            /* raw sweeps kept this long, older ones rolled up: a duration */
	FAB_WATCH_PROMETHEUS,     /* the textfile rewritten after every sweep: an absolute *.prom path */
	FAB_WATCH_LINK_PROBE,     /* every switch-to-switch link read this often: a duration, or off */
	FAB_WATCH_LINK_PROBE_SHARE, /* the probe's reads per sweep at most this share of the sweep's MADs (fab_share_parse) */
	FAB_WATCH_EVENTS,         /* subscribe to the SM's traps: on or off */
	FAB_WATCH_ALERTMANAGER,   /* Alertmanager's base URL: http:// or https:// */
	FAB_WATCH_ALERT_RESEND,   /* firing alerts posted again this often: a duration */
	/* [ready]: what `fabsweep ready --local` expects of a RoCE host (docs/roce.md, "Readiness") */
	FAB_READY_ROCE_PORTS,     /* a count of RoCE ports, or DEVICE/PORT names (fab_ready_ports_parse) */
	FAB_READY_REQUIRE,        /* what must be readable: lldp, dcb, ecn, ethtool (fab_ready_require_parse) */
	FAB_SWEEP__COUNT
};

/* [ready] require: a comma-separated list of FAB_READY_NEED_* names
 * ("lldp,dcb", "none"); the mask, or -1 when a name is unknown. */
enum {
	FAB_READY_NEED_LLDP = 1 << 0, /* lldpd answers here (the cabling can be checked) */
	FAB_READY_NEED_DCB = 1 << 1,  /* every RoCE interface's DCB answers (PFC, trust) */
	FAB_READY_NEED_ECN = 1 << 2,  /* every RoCE interface's ECN settings are in sysfs */
	FAB_READY_NEED_ETHTOOL = 1 << 3, /* every RoCE interface's NIC counters are read and
					  * compared with the merge's */
};
int fab_ready_require_parse(const char *s);
/* The name of one FAB_READY_NEED_* bit ("lldp"), NULL for others. */
const char *fab_ready_need_name(unsigned bit);

/* [ready] roce_ports: a whole number from 1 to 1024 (the RoCE ports a host
 * must have, *count), or RDMA ports by name, comma-separated
 * ("mlx5_0/1, mlx5_1/1": *count 0, and up to cap of them into names[],
 * *n_names how many there are). 0, or -EINVAL when it is neither. */
#define FAB_READY_PORT_NAME_MAX 64
int fab_ready_ports_parse(const char *s, unsigned *count, char (*names)[FAB_READY_PORT_NAME_MAX],
			  size_t cap, size_t *n_names);
/* Whether path names a file the textfile collector reads: a base name of
 * at least one character before ".prom". [sweep] and [watch] prometheus
 * must also be absolute (a service's working directory is not the user's);
 * on the command line a relative path is the user's to give. */
bool fab_prom_file_name_ok(const char *path);
/* Whether url is an http:// or https:// URL with a host part, no spaces or
 * control bytes, at most 1024 bytes ([watch] alertmanager, --alertmanager). */
bool fab_url_ok(const char *url);
/* A share: a fraction 0 < F <= 1 ("0.1", "1") or a percentage 0 < P <=
 * 100 ("10%", "2.5%"). 0 and *out (the fraction), or -EINVAL. */
int fab_share_parse(const char *s, double *out);
/* "report_dir", ... (the config keys); NULL when out of range. */
const char *fab_config_sweep_key_name(unsigned key);
/* The value as written (borrowed), or NULL when not set; *line_out (may be
 * NULL) is the line that set it (0 when not set). */
const char *fab_config_sweep(const struct fab_config *cfg, unsigned key, unsigned *line_out);

/*
 * [rules] lines that name site rules (ids starting with "site.",
 * docs/site-rules.md). Site rules are read from their directory, not known
 * while the config is: their lines are kept here, applied by id when they
 * run, and the command line checks that each names a rule. A [suppress]
 * key starting with "site." is accepted for the same reason.
 */
#define FAB_CONFIG_SITE_PREFIX "site."
#define FAB_CONFIG_SITE_ON (-2) /* "on": the rule's own severity */
struct fab_config_site_rule {
	const char *id;
	int severity; /* enum fab_severity, -1 off, FAB_CONFIG_SITE_ON */
	unsigned line;
};
/* In file order (borrowed). */
const struct fab_config_site_rule *fab_config_site_rules(const struct fab_config *cfg,
							 size_t *n_out);
/* Effective severity of the site rule id whose own is def: -1 when off.
 * *line_out (may be NULL): the line that set it, 0 if none. */
int fab_config_site_severity(const struct fab_config *cfg, const char *id, int def,
			     unsigned *line_out);
