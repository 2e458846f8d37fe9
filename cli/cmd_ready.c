// SPDX-License-Identifier: MIT
/*
 * fabsweep ready: is the fabric ready for a job on these hosts? Matches the
 * hosts to channel adapters of the latest sweep, probes live their ports and
 * the switch ports they attach to (scanner/probe.c), and judges them with the
 * sweep's findings (scanner/ready.c). One line per problem, naming the host;
 * exit 0 ready, 1 not ready, 3 could not check. docs/workflows.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/probe.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_view.h"

#define FAIL_NEVER FAB_SEV__COUNT

struct want_ctx {
	const struct fab_ready_hosts *hosts;
	const struct fab_nodemap *map;
};

static bool want_ca(uint64_t guid, const char *desc, void *ctx)
{
	const struct want_ctx *w = ctx;

	return fab_ready_hosts_want(w->hosts, w->map, guid, desc);
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int fab_cmd_ready(int argc, char **argv)
{
	enum { O_DB = 256, O_SCAN, O_HOSTS, O_HOSTFILE, O_CA, O_PORT, O_TIMEOUT, O_RETRIES,
	       O_FAIL_ON, O_MAP, O_QUIET, O_VERBOSE, O_WINDOW, O_MKEY, O_MKEY_FILE, O_CONFIG };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "scan", required_argument, NULL, O_SCAN },
		{ "hosts", required_argument, NULL, O_HOSTS },
		{ "hostfile", required_argument, NULL, O_HOSTFILE },
		{ "ca", required_argument, NULL, O_CA },
		{ "port", required_argument, NULL, O_PORT },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "fail-on", required_argument, NULL, O_FAIL_ON },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "verbose", no_argument, NULL, O_VERBOSE },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "m-key", required_argument, NULL, O_MKEY },
		{ "m-key-file", required_argument, NULL, O_MKEY_FILE },
		{ "config", required_argument, NULL, O_CONFIG },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = fab_cli_default_db(), *map_path = NULL;
	const char *host_expr = NULL, *hostfile = NULL;
	const char *mkey_text = NULL, *mkey_file = NULL, *config_path = NULL;
	struct fab_mkeys *mkeys = NULL;
	struct fab_probe_opts po;
	int64_t scan_id = 0;
	int c, quiet = 0, verbose = 0;
	unsigned fail_on = FAB_SEV_ERROR;
	long v;

	fab_probe_opts_init(&po);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case O_HOSTS: host_expr = optarg; break;
		case O_HOSTFILE: hostfile = optarg; break;
		case O_CA: po.ca = optarg; break;
		case O_MAP: map_path = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_VERBOSE: verbose = 1; break;
		case O_MKEY: mkey_text = optarg; break;
		case O_MKEY_FILE: mkey_file = optarg; break;
		case O_CONFIG: config_path = optarg; break;
		case O_SCAN:
			if (fab_cli_parse_scan(optarg, &scan_id))
				return fab_cli_usage_error("ready", "--scan takes a scan id, 'latest' or -N, not '%s'",
							   optarg);
			break;
		case O_FAIL_ON: {
			int s = strcmp(optarg, "never") ? fab_severity_parse(optarg) : FAIL_NEVER;
			if (s < 0)
				return fab_cli_usage_error("ready", "--fail-on takes error, warning, info or never, not '%s'",
							   optarg);
			fail_on = (unsigned)s;
			break;
		}
		case O_PORT:
			if (fab_cli_parse_int(optarg, 1, 254, &v))
				return fab_cli_usage_error("ready", "--port takes a port number from 1 to 254, not '%s'", optarg);
			po.port = (int)v;
			break;
		case O_TIMEOUT:
			if (fab_cli_parse_int(optarg, 1, 60000, &v))
				return fab_cli_usage_error("ready", "--timeout takes milliseconds from 1 to 60000, not '%s'", optarg);
			po.timeout_ms = (int)v;
			break;
		case O_WINDOW:
			if (fab_cli_parse_int(optarg, 1, 1024, &v))
				return fab_cli_usage_error("ready", "--window takes a whole number from 1 to 1024, not '%s'", optarg);
			po.window = (int)v;
			break;
		case O_RETRIES:
			if (fab_cli_parse_int(optarg, 0, 20, &v))
				return fab_cli_usage_error("ready", "--retries takes a whole number from 0 to 20, not '%s'", optarg);
			po.retries = (int)v;
			break;
		default:
			return fab_cli_usage_error("ready", "unknown option '%s'; 'fabsweep help ready' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("ready", "unexpected argument '%s' (hosts go after --hosts)", argv[optind]);
	if (host_expr && hostfile)
		return fab_cli_usage_error("ready", "give --hosts or --hostfile, not both");

	struct fab_hostlist *hl = NULL;
	struct fab_ready_hosts *hosts = NULL;
	struct fab_nodemap *map = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *view = NULL;
	struct fab_ready *r = NULL;
	struct fab_probe_pending *pending = NULL;
	struct fab_probe *probe = NULL;
	struct fab_probe_stats ps;
	struct fab_config *cfg = NULL;
	struct fab_counter_limits limits;
	const char **names = NULL;
	int ret = FAB_EXIT_RUNTIME, err;
	double t0 = mono_ms(), t_load = 0, t_open = 0;

	if (fab_hostlist_new(&hl)) {
		fab_err(-ENOMEM, "out of memory");
		goto fail;
	}
	if (host_expr)
		err = fab_hostlist_add(hl, host_expr, SIZE_MAX);
	else if (hostfile)
		err = fab_hostlist_add_file(hl, hostfile);
	else if ((err = fab_hostlist_add_env(hl, "SLURM_JOB_NODELIST")) == -ENOENT) {
		fab_hostlist_free(hl);
		return fab_cli_usage_error("ready", "which hosts? give --hosts LIST, --hostfile FILE or set SLURM_JOB_NODELIST");
	}
	if (err) {
		fab_hostlist_free(hl);
		fprintf(stderr, "fabsweep ready: %s\n", fab_errmsg());
		return FAB_EXIT_USAGE;
	}
	if (!fab_hostlist_count(hl)) {
		fab_hostlist_free(hl);
		return fab_cli_usage_error("ready", "the host list is empty");
	}
	/* M_Key for the probe's SMPs (docs/security.md): never echoed. */
	bool loose = false;
	if (fab_mkeys_from_options(mkey_text, getenv("FABSWEEP_MKEY"), mkey_file,
				   &mkeys, &loose)) {
		fab_hostlist_free(hl);
		return fab_cli_usage_error("ready", "%s", fab_errmsg());
	}
	if (loose && !quiet)
		fprintf(stderr, "fabsweep: warning: M_Key file '%s' can be read by its group "
			"or others; chmod 600 it\n", mkey_file);
	po.mkeys = mkeys;
	names = calloc(fab_hostlist_count(hl), sizeof(*names));
	if (!names) {
		fab_err(-ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < fab_hostlist_count(hl); i++)
		names[i] = fab_hostlist_get(hl, i);
	if (fab_ready_hosts_new(names, fab_hostlist_count(hl), &hosts)) {
		fab_err(-ENOMEM, "out of memory");
		goto fail;
	}
	if (fab_nodemap_open(map_path, &map) || fab_cli_load_config(config_path, &cfg))
		goto fail;
	fab_rules_increase_limits(cfg, &limits); /* what counts as a counter rise */
	if (access(db, F_OK) != 0) {
		fab_err(-ENOENT, "database '%s' does not exist: readiness needs a sweep first ('fabsweep sweep' or 'scan'; or pass --db)",
			db);
		goto fail;
	}
	/* the local MAD port opens meanwhile */
	if (fab_probe_open_begin(&po, &pending))
		goto fail;
	struct want_ctx wc = { hosts, map };
	if (fab_store_open(db, FAB_STORE_READONLY, &st))
		goto fail;
	t_open = mono_ms() - t0;
	if (fab_store_load_view(st, scan_id, want_ca, &wc, &view))
		goto fail;
	fab_store_close(st);
	st = NULL;
	t_load = mono_ms() - t0;
	if ((err = fab_ready_plan(view, hosts, map, &r))) {
		fab_err(err, "out of memory");
		goto fail;
	}
	err = fab_probe_open_end(pending, &probe);
	pending = NULL;
	if (err || (r->n_ports && fab_probe_ports(probe, view, r->ports, r->n_ports, &ps)))
		goto fail;
	if ((err = fab_ready_evaluate(r, view, hosts, map, &limits, fail_on))) {
		fab_err(err, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < r->n_problems; i++)
		printf("%s: %s\n", fab_ready_hosts_name(hosts, r->problems[i].host), r->problems[i].text);
	size_t n[FAB_READY__COUNT] = { 0 };
	for (size_t i = 0; i < r->n_hosts; i++)
		n[r->verdict[i] < FAB_READY__COUNT ? r->verdict[i] : FAB_READY_UNKNOWN]++;
	if (!quiet) {
		char when[FAB_TIME_STRLEN];
		fab_time_format(view->started_at_ms, when);
		printf("ready: %zu host%s: %zu ready, %zu not ready, %zu not checked (scan %lld of %s)\n",
		       r->n_hosts, r->n_hosts == 1 ? "" : "s", n[FAB_READY_OK], n[FAB_READY_NOT_READY],
		       n[FAB_READY_UNKNOWN], (long long)view->scan_id, when);
	}
	if (verbose)
		fprintf(stderr, "ready: open the database %.1f ms, load %.1f ms (%zu nodes, %zu ports of scan %lld); probe from %s: "
			"open %.1f ms, %lu MADs (%lu resent, %lu unanswered) in %.1f ms; total %.1f ms\n",
			t_open, t_load - t_open, view->n_nodes, view->n_ports, (long long)view->scan_id,
			r->n_ports ? ps.source : "-", r->n_ports ? ps.open_ms : 0.0,
			r->n_ports ? ps.sent : 0, r->n_ports ? ps.resent : 0, r->n_ports ? ps.failed : 0,
			r->n_ports ? ps.mads_ms : 0.0, mono_ms() - t0);
	switch (fab_ready_overall(r)) {
	case FAB_READY_OK: ret = FAB_EXIT_OK; break;
	case FAB_READY_NOT_READY: ret = FAB_EXIT_FINDINGS; break;
	default: ret = FAB_EXIT_RUNTIME; break;
	}
	goto out;
fail:
	ret = fab_cli_fail();
out:
	if (pending && !fab_probe_open_end(pending, &probe))
		fab_probe_close(probe); /* opened while something else failed */
	else if (!pending)
		fab_probe_close(probe);
	fab_ready_free(r);
	fab_snapshot_free(view);
	fab_store_close(st);
	fab_nodemap_free(map);
	fab_config_free(cfg);
	fab_ready_hosts_free(hosts);
	free(names);
	fab_hostlist_free(hl);
	fab_mkeys_free(mkeys);
	return ret;
}
