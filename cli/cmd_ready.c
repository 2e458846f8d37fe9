// SPDX-License-Identifier: MIT
/*
 * fabsweep ready: is the fabric ready for a job on these hosts?
 * (fab_pipeline_ready). One line per problem, naming the host; exit 0
 * ready, 1 not ready, 3 could not check. docs/workflows.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/pkey.h"
#include "fabsweep/probe.h"
#include "fabsweep/report_json.h"
#include "fabsweep/snapshot.h"

static void print_result(const struct fab_pipeline_ready_result *res, int quiet, int verbose)
{
	const struct fab_ready *r = res->r;
	const struct fab_snapshot *view = res->view;
	const struct fab_probe_stats *ps = &res->ps;
	size_t n[FAB_READY__COUNT] = { 0 };

	for (size_t i = 0; i < r->n_problems; i++)
		printf("%s: %s\n", fab_ready_hosts_name(res->hosts, r->problems[i].host),
		       r->problems[i].text);
	fab_cli_print_ready_pairs(res);
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
		fprintf(stderr, "ready: open the database %.1f ms, load %.1f ms (CPU %.1f ms; %u reads: %zu nodes, %zu ports of scan %lld); probe from %s: "
			"open %.1f ms, %lu MADs (%lu resent, %lu unanswered) in %.1f ms; %zu hops, %llu pairs; total %.1f ms (CPU %.1f ms)\n",
			res->open_ms, res->load_ms, res->load_cpu_ms, res->load_rounds, view->n_nodes, view->n_ports, (long long)view->scan_id,
			r->n_ports ? ps->source : "-", r->n_ports ? ps->open_ms : 0.0,
			r->n_ports ? ps->sent : 0, r->n_ports ? ps->resent : 0, r->n_ports ? ps->failed : 0,
			r->n_ports ? ps->mads_ms : 0.0, res->hops.n_hops,
			(unsigned long long)res->pairs.n_pairs, res->total_ms, res->cpu_ms);
}

int fab_cmd_ready(int argc, char **argv)
{
	enum { O_DB = 256, O_SCAN, O_HOSTS, O_HOSTFILE, O_CA, O_PORT, O_TIMEOUT, O_RETRIES,
	       O_FAIL_ON, O_MAP, O_QUIET, O_VERBOSE, O_WINDOW, O_MKEY, O_MKEY_FILE, O_CONFIG, O_JSON, O_PKEY };
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
		{ "json", no_argument, NULL, O_JSON },
		{ "pkey", required_argument, NULL, O_PKEY },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_pipeline_ready job = { .db = fab_cli_default_db(), .fail_on = FAB_SEV_ERROR };
	struct fab_probe_opts *po = &job.probe;
	const char *host_expr = NULL, *hostfile = NULL;
	const char *mkey_text = NULL, *mkey_file = NULL;
	int c, quiet = 0, verbose = 0, json = 0;
	long v;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--local"))
			return fab_cmd_ready_local(argc, argv); /* a RoCE host: cli/cmd_ready_local.c */
	fab_probe_opts_init(po);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
		case O_HOSTS: host_expr = optarg; break;
		case O_HOSTFILE: hostfile = optarg; break;
		case O_CA: po->ca = optarg; break;
		case O_MAP: job.node_name_map = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_VERBOSE: verbose = 1; break;
		case O_JSON: json = 1; break;
		case O_MKEY: mkey_text = optarg; break;
		case O_MKEY_FILE: mkey_file = optarg; break;
		case O_CONFIG: job.config = optarg; break;
		case O_PKEY: {
			int k = fab_pkey_parse(optarg);
			if (k < 0 || !(k & 0x7fff))
				return fab_cli_usage_error("ready", "--pkey takes a P_Key such as 0x8001 or 0x7fff, not '%s'",
							   optarg);
			job.pkey = (unsigned)k & 0x7fff;
			break;
		}
		case O_SCAN:
			if (fab_pipeline_parse_scan(optarg, &job.scan_id))
				return fab_cli_usage_error("ready", "--scan takes a scan id, 'latest' or -N, not '%s'",
							   optarg);
			break;
		case O_FAIL_ON: {
			int s = fab_fail_on_parse(optarg);
			if (s < 0)
				return fab_cli_usage_error("ready", "--fail-on takes error, warning, info or never, not '%s'",
							   optarg);
			job.fail_on = (unsigned)s;
			break;
		}
		case O_PORT:
			if (fab_cli_parse_int(optarg, 1, 254, &v))
				return fab_cli_usage_error("ready", "--port takes a port number from 1 to 254, not '%s'", optarg);
			po->port = (int)v;
			break;
		case O_TIMEOUT:
			if (fab_cli_parse_int(optarg, 1, 60000, &v))
				return fab_cli_usage_error("ready", "--timeout takes milliseconds from 1 to 60000, not '%s'", optarg);
			po->timeout_ms = (int)v;
			break;
		case O_WINDOW:
			if (fab_cli_parse_int(optarg, 1, 1024, &v))
				return fab_cli_usage_error("ready", "--window takes a whole number from 1 to 1024, not '%s'", optarg);
			po->window = (int)v;
			break;
		case O_RETRIES:
			if (fab_cli_parse_int(optarg, 0, 20, &v))
				return fab_cli_usage_error("ready", "--retries takes a whole number from 0 to 20, not '%s'", optarg);
			po->retries = (int)v;
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

	/* the hosts and the M_Keys are options: a problem with them is a usage error */
	struct fab_hostlist *hl = NULL;
	struct fab_mkeys *mkeys = NULL;
	int err;

	if (fab_hostlist_new(&hl)) {
		fab_err(-ENOMEM, "out of memory");
		return fab_cli_fail();
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
		fab_cli_mkey_warning(mkey_file);
	po->mkeys = mkeys;
	job.hosts = hl;

	struct fab_pipeline_ready_result *res = NULL;
	int ret = FAB_EXIT_RUNTIME;
	if (fab_pipeline_ready(&job, &res)) {
		fab_cli_fail();
		goto out;
	}
	if (json && fab_json_ready(stdout, res->r, res->hosts, res->view,
				   &res->pairs, &res->hops)) {
		fab_cli_fail();
		goto out;
	}
	if (!json)
		print_result(res, quiet, verbose);
	ret = fab_cli_ready_exit(res->r);
out:
	fab_pipeline_ready_free(res);
	fab_hostlist_free(hl);
	fab_mkeys_free(mkeys);
	return ret;
}
