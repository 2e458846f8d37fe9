// SPDX-License-Identifier: MIT
/*
 * fabsweep sweep: what the hourly timer runs. One scan (as `scan`), checked
 * (as `check`, counters compared with the previous sweep), rendered into a
 * report directory (timestamped HTML and XML, plus latest.html and
 * latest.xml), exported for Prometheus, and old snapshots pruned with their
 * reports (as `db prune`). Every step is the library call its own command
 * makes; nothing is shelled out. docs/workflows.md, "Sweeps".
 *
 * Exit status: 3 when the scan failed (nothing written) or a later step
 * failed (each failure is printed; the steps after it still run), else as
 * check: 1 with a finding at or above fail_on, else 4 when the scan was
 * partial, else 0.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/export.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/report.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

#define FAIL_NEVER 100 /* as check's --fail-on never */

struct sweep_args {
	const char *db, *config, *rules_dir;
	/* as given on the command line; NULL: the config's [sweep], then the default */
	const char *v[FAB_SWEEP__COUNT];
	struct fab_cli_scan scan;
};

/* A setting: the command line, else the config file, else dflt. */
static const char *setting(const struct sweep_args *a, const struct fab_config *cfg,
			   unsigned key, const char *dflt)
{
	const char *v = a->v[key];

	if (!v)
		v = fab_config_sweep(cfg, key, NULL);
	return v ? v : dflt;
}

/* ---- the report directory ------------------------------------------------------ */

/* Points DIR/latest.EXT at the file just written: a hard link under a
 * temporary name, renamed over the old one (atomic, like the reports). */
static int link_latest(const char *dir, const char *file, const char *ext)
{
	char tmp[4096], dst[4096];

	snprintf(dst, sizeof(dst), "%s/latest.%s", dir, ext);
	snprintf(tmp, sizeof(tmp), "%s/.latest.%s.tmp%ld", dir, ext, (long)getpid());
	unlink(tmp);
	if (link(file, tmp) != 0)
		return fab_err(-errno, "cannot link '%s' to '%s': %s", file, tmp, strerror(errno));
	if (rename(tmp, dst) != 0) {
		int e = errno;
		unlink(tmp);
		return fab_err(-e, "cannot rename '%s' to '%s': %s", tmp, dst, strerror(e));
	}
	return 0;
}

/* "fabsweep-20261201T025355Z-scan42" */
static void report_stem(const struct fab_snapshot *snap, char *buf, size_t len)
{
	char t[FAB_TIME_STRLEN], compact[32];
	size_t k = 0;

	fab_time_format(snap->started_at_ms, t); /* 2026-12-01T02:53:55.123Z */
	for (size_t i = 0; t[i] && t[i] != '.' && k + 1 < sizeof(compact); i++)
		if (t[i] != '-' && t[i] != ':')
			compact[k++] = t[i];
	compact[k] = '\0';
	snprintf(buf, len, "fabsweep-%sZ-scan%lld", compact, (long long)snap->scan_id);
}

static int write_reports(const char *dir, const struct fab_snapshot *snap,
			 const struct fab_snapshot *base, bool quiet)
{
	struct fab_report_opts o;
	char stem[128], html[4096], xml[4096];
	int err;

	fab_report_opts_init(&o);
	report_stem(snap, stem, sizeof(stem));
	snprintf(html, sizeof(html), "%s/%s.html", dir, stem);
	snprintf(xml, sizeof(xml), "%s/%s.xml", dir, stem);
	if ((err = fab_report_write(snap, base, &o, xml, html)) ||
	    (err = link_latest(dir, html, "html")) || (err = link_latest(dir, xml, "xml")))
		return err;
	if (!quiet)
		printf("report: %s (and latest.html), %s.xml (and latest.xml)\n", html, stem);
	return 0;
}

/* Removes DIR/fabsweep-*-scanID.{html,xml} of the scans pruning dropped. */
static void remove_reports(const char *dir, const int64_t *ids, size_t n, bool quiet)
{
	struct dirent *e;
	DIR *d;
	size_t removed = 0;

	if (!n || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		const char *s = strstr(e->d_name, "-scan");
		char *end;
		long long id;

		if (strncmp(e->d_name, "fabsweep-", 9) || !s)
			continue;
		id = strtoll(s + 5, &end, 10);
		if (strcmp(end, ".html") && strcmp(end, ".xml"))
			continue;
		for (size_t i = 0; i < n; i++)
			if (ids[i] == id) {
				char path[4096];
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
				removed += unlink(path) == 0;
				break;
			}
	}
	closedir(d);
	if (!quiet && removed)
		printf("removed %zu report file%s of pruned scans\n", removed, removed == 1 ? "" : "s");
}

/* ---- retention ---------------------------------------------------------------- */

struct dropped {
	int64_t *ids;
	size_t n, cap;
};

static int note_dropped(const struct fab_prune_scan *p, void *ctx)
{
	struct dropped *d = ctx;

	if (p->is_baseline)
		return 0;
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 64;
		int64_t *v = realloc(d->ids, ncap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		d->ids = v;
		d->cap = ncap;
	}
	d->ids[d->n++] = p->scan_id;
	return 0;
}

static int prune(struct fab_store *st, const char *keep, const char *older, const char *dir,
		 bool quiet)
{
	struct fab_prune_opts o = { 0 };
	struct fab_prune_result r;
	struct dropped d = { 0 };
	int err;

	if (keep)
		o.keep = strtoll(keep, NULL, 10); /* checked when parsed */
	if (older && fab_duration_parse(older, &o.older_than_ms))
		return fab_err(-EINVAL, "older_than '%s' is not a duration", older);
	if ((err = fab_store_prune(st, &o, note_dropped, &d, &r))) {
		free(d.ids);
		return err;
	}
	if (!quiet && r.dropped)
		printf("pruned %lld scan%s (%lld left%s)\n", (long long)r.dropped,
		       r.dropped == 1 ? "" : "s", (long long)r.remaining,
		       r.kept_baselines ? ", baselines kept" : "");
	if (r.vacuum_error[0])
		fprintf(stderr, "fabsweep sweep: space not reclaimed: %s\n", r.vacuum_error);
	if (dir)
		remove_reports(dir, d.ids, d.n, quiet);
	free(d.ids);
	return 0;
}

/* ---- the command --------------------------------------------------------------- */

static int parse(int argc, char **argv, struct sweep_args *a)
{
	enum { O_DB = 256, O_CONFIG, O_RULES_DIR, O_REPORT_DIR, O_PROM, O_KEEP, O_OLDER,
	       O_FAIL_ON, O_BASELINE, O_EXPECT, O_MAP, O_INTERVAL, O_LABEL, O_CA, O_PORT,
	       O_TIMEOUT, O_RETRIES, O_QUIET };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "rules-dir", required_argument, NULL, O_RULES_DIR },
		{ "report-dir", required_argument, NULL, O_REPORT_DIR },
		{ "prometheus", required_argument, NULL, O_PROM },
		{ "keep", required_argument, NULL, O_KEEP },
		{ "older-than", required_argument, NULL, O_OLDER },
		{ "fail-on", required_argument, NULL, O_FAIL_ON },
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "expect", required_argument, NULL, O_EXPECT },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "label", required_argument, NULL, O_LABEL },
		{ "ca", required_argument, NULL, O_CA },
		{ "port", required_argument, NULL, O_PORT },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_scan_opts *so = &a->scan.so;
	int64_t ms;
	long v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: a->db = optarg; break;
		case O_CONFIG: a->config = optarg; break;
		case O_RULES_DIR: a->rules_dir = optarg; break;
		case O_REPORT_DIR: a->v[FAB_SWEEP_REPORT_DIR] = optarg; break;
		case O_PROM: a->v[FAB_SWEEP_PROMETHEUS] = optarg; break;
		case O_EXPECT: a->v[FAB_SWEEP_EXPECT] = optarg; break;
		case O_MAP: a->v[FAB_SWEEP_NODE_NAME_MAP] = optarg; break;
		case O_LABEL: a->scan.label = optarg; break;
		case O_CA: so->ca = optarg; break;
		case O_QUIET: a->scan.quiet = true; break;
		case O_KEEP:
			if (fab_cli_parse_int(optarg, 1, 1000000, &v))
				return fab_cli_usage_error("sweep", "--keep takes a number of scans from 1 to 1000000, not '%s'", optarg);
			a->v[FAB_SWEEP_KEEP] = optarg;
			break;
		case O_OLDER:
			if (fab_duration_parse(optarg, &ms))
				return fab_cli_usage_error("sweep", "--older-than takes a duration such as 30d, 12h, 2w or 1d12h, not '%s'", optarg);
			a->v[FAB_SWEEP_OLDER_THAN] = optarg;
			break;
		case O_FAIL_ON:
			if (strcmp(optarg, "never") && fab_severity_parse(optarg) < 0)
				return fab_cli_usage_error("sweep", "--fail-on takes error, warning, info or never, not '%s'", optarg);
			a->v[FAB_SWEEP_FAIL_ON] = optarg;
			break;
		case O_BASELINE:
			if (!*optarg)
				return fab_cli_usage_error("sweep", "empty --baseline: give previous, none, a scan id or a baseline name");
			a->v[FAB_SWEEP_BASELINE] = optarg;
			break;
		case O_INTERVAL:
			if (fab_cli_parse_int(optarg, 0, 3600, &v))
				return fab_cli_usage_error("sweep", "--interval takes seconds from 0 to 3600, not '%s'", optarg);
			a->v[FAB_SWEEP_INTERVAL] = optarg;
			break;
		case O_PORT:
			if (fab_cli_parse_int(optarg, 1, 254, &v))
				return fab_cli_usage_error("sweep", "--port takes a port number from 1 to 254, not '%s'", optarg);
			so->port = (int)v;
			break;
		case O_TIMEOUT:
			if (fab_cli_parse_int(optarg, 1, 60000, &v))
				return fab_cli_usage_error("sweep", "--timeout takes milliseconds from 1 to 60000, not '%s'", optarg);
			so->timeout_ms = (int)v;
			break;
		case O_RETRIES:
			if (fab_cli_parse_int(optarg, 0, 20, &v))
				return fab_cli_usage_error("sweep", "--retries takes a whole number from 0 to 20, not '%s'", optarg);
			so->retries = (int)v;
			break;
		default:
			return fab_cli_usage_error("sweep", "unknown option '%s'; 'fabsweep help sweep' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("sweep", "unexpected argument '%s'", argv[optind]);
	return -1;
}

/* The report directory: created (one level) when missing, and writable. */
static int prepare_dir(const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb) != 0) {
		if (errno != ENOENT || mkdir(dir, 0755) != 0)
			return fab_err(-errno, "cannot create the report directory '%s': %s", dir,
				       strerror(errno));
	} else if (!S_ISDIR(sb.st_mode)) {
		return fab_err(-ENOTDIR, "report directory '%s' is not a directory", dir);
	}
	if (access(dir, W_OK) != 0)
		return fab_err(-errno, "cannot write into the report directory '%s': %s", dir,
			       strerror(errno));
	return 0;
}

/* The counter baseline: previous (the scan before this one, if any), none,
 * or a scan id or baseline name (which must exist). */
static int load_baseline(struct fab_store *st, const char *ref, const struct fab_snapshot *snap,
			 struct fab_snapshot **out)
{
	int64_t id;
	int err;

	*out = NULL;
	if (!strcmp(ref, "none"))
		return 0;
	if (!strcmp(ref, "previous")) {
		err = fab_store_resolve_scan(st, -1, &id);
		if (err == -ENOENT) {
			fab_err_clear();
			return 0; /* the first sweep */
		}
		if (err)
			return err;
	} else if ((err = fab_cli_parse_scan(ref, &id) ? fab_store_baseline_resolve(st, ref, &id)
							  : fab_store_resolve_scan(st, id, &id))) {
		return err;
	}
	if (id >= snap->scan_id)
		return fab_err(-EINVAL, "baseline '%s' (scan %lld) is not older than the sweep's scan %lld",
			       ref, (long long)id, (long long)snap->scan_id);
	return fab_store_load_scan(st, id, out);
}

static void step_failed(const char *step, int *ret)
{
	const char *m = fab_errmsg();

	fprintf(stderr, "fabsweep sweep: %s failed: %s\n", step, *m ? m : "unknown error");
	*ret = FAB_EXIT_RUNTIME;
}

int fab_cmd_sweep(int argc, char **argv)
{
	struct sweep_args a = { .db = fab_cli_default_db() };
	struct fab_config *cfg = NULL;
	struct fab_site_rules *site = NULL;
	struct fab_nodemap *names = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *scanned = NULL, *snap = NULL, *base = NULL, *reference = NULL;
	int ret, check_exit = FAB_EXIT_OK, fail_on;
	long interval;
	bool failed_step = false;

	fab_cli_scan_init(&a.scan);
	if ((ret = parse(argc, argv, &a)) >= 0)
		return ret;

	/* Everything that can be wrong with the setup fails before any MAD. */
	if (fab_cli_load_config(a.config, &cfg) ||
	    fab_cli_load_site_rules(a.rules_dir, cfg, false, &site, NULL))
		goto fail;
	const char *dir = setting(&a, cfg, FAB_SWEEP_REPORT_DIR, NULL);
	const char *prom = setting(&a, cfg, FAB_SWEEP_PROMETHEUS, NULL);
	const char *keep = setting(&a, cfg, FAB_SWEEP_KEEP, NULL);
	const char *older = setting(&a, cfg, FAB_SWEEP_OLDER_THAN, NULL);
	const char *fail = setting(&a, cfg, FAB_SWEEP_FAIL_ON, "error");
	const char *baseline = setting(&a, cfg, FAB_SWEEP_BASELINE, "previous");
	const char *expect = setting(&a, cfg, FAB_SWEEP_EXPECT, NULL);
	const char *map = setting(&a, cfg, FAB_SWEEP_NODE_NAME_MAP, NULL);
	fail_on = strcmp(fail, "never") ? fab_severity_parse(fail) : FAIL_NEVER;
	if (fab_cli_parse_int(setting(&a, cfg, FAB_SWEEP_INTERVAL, "0"), 0, 3600, &interval)) {
		fab_err(-EINVAL, "interval must be seconds from 0 to 3600");
		goto fail;
	}
	a.scan.so.interval_s = (int)interval;
	if (!a.scan.label)
		a.scan.label = "sweep";
	if (fab_nodemap_open(map && !strcmp(map, "none") ? "" : map, &names))
		goto fail;
	if (dir && prepare_dir(dir))
		goto fail;
	if (!getenv("FABSWEEP_DB") && !strcmp(a.db, "/var/lib/fabsweep/fabsweep.db"))
		mkdir("/var/lib/fabsweep", 0750); /* as scan does */
	if (fab_store_open(a.db, FAB_STORE_WRITE, &st))
		goto fail;
	/* an expected topology from a file is read before the scan, too */
	if (expect && access(expect, F_OK) == 0 && fab_cli_load_reference(st, expect, &reference))
		goto fail;

	/* 1. scan (as `scan`) */
	if (fab_cli_scan_commit(st, &a.scan, &scanned))
		goto fail;
	/* committed: from here a signal just ends the sweep, as for any command */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (!a.scan.quiet)
		printf("sweep: scan %lld: %s; %zu nodes, %zu links, %zu counter samples%s\n",
		       (long long)scanned->scan_id, fab_scan_status_name(scanned->status),
		       scanned->n_nodes, scanned->n_links, scanned->n_samples,
		       scanned->n_errors ? " (see table scan_errors)" : "");

	/* 2. check (as `check`), on the scan as stored */
	if (fab_store_load_scan(st, scanned->scan_id, &snap) ||
	    load_baseline(st, baseline, snap, &base) ||
	    (expect && !reference && fab_cli_load_reference(st, expect, &reference))) {
		step_failed("check", &ret);
		failed_step = true;
	} else {
		struct fab_cli_check ck = { .cfg = cfg, .site = site, .db = a.db, .base = base,
					    .reference = reference, .names = names,
					    .fail_on = fail_on, .limit = 20, .quiet = a.scan.quiet };
		if (fab_cli_check_snapshot(st, snap, &ck, &check_exit)) {
			step_failed("check", &ret);
			failed_step = true;
		}
	}

	/* 3. reports and the Prometheus file, with mapped names */
	if (snap && (fab_nodemap_apply(names, snap) || (base && fab_nodemap_apply(names, base)))) {
		fab_err(-ENOMEM, "out of memory");
		step_failed("naming nodes", &ret);
		failed_step = true;
	}
	if (snap && dir && write_reports(dir, snap, base, a.scan.quiet)) {
		step_failed("the reports", &ret);
		failed_step = true;
	}
	if (snap && prom) {
		if (fab_export_prometheus_file(snap, base, names, prom)) {
			step_failed("the Prometheus export", &ret);
			failed_step = true;
		} else if (!a.scan.quiet) {
			printf("prometheus: %s\n", prom);
		}
	}

	/* 4. retention (as `db prune`), reports of dropped scans with them */
	if ((keep || older) && prune(st, keep, older, dir, a.scan.quiet)) {
		step_failed("pruning", &ret);
		failed_step = true;
	}

	if (failed_step)
		ret = FAB_EXIT_RUNTIME;
	else if (check_exit != FAB_EXIT_OK)
		ret = check_exit;
	else
		ret = scanned->status == FAB_SCAN_COMPLETE ? FAB_EXIT_OK : FAB_EXIT_PARTIAL;
	goto out;
fail:
	ret = fab_cli_fail();
out:
	fab_snapshot_free(scanned);
	fab_snapshot_free(snap);
	fab_snapshot_free(base);
	fab_snapshot_free(reference);
	fab_nodemap_free(names);
	fab_store_close(st);
	fab_site_rules_free(site);
	fab_config_free(cfg);
	return ret;
}
