// SPDX-License-Identifier: MIT
/*
 * fabsweep route SRC DST [--scan ID] [--lid-offset K | --all-lids]: the
 * hop-by-hop path between two hosts in a stored scan, as its forwarding
 * tables send it (fab_pipeline_route), with each link's width, speed and
 * error counters; to DST's base LID, base + K, or every LID of its range
 * (LMC). Exit 0 when the route (every route) arrives, 1 when one breaks.
 *
 * fabsweep route --all-pairs --hosts LIST | --hostfile FILE: every ordered
 * pair of the hosts' ports, printing only those that break and the counts.
 * Exit 0 when every pair arrives, 1 when one breaks, is not judged, or a
 * host has no port to check. Printing: cli/print_route.c.
 *
 * fabsweep route --mcast MGID|MLID: a multicast group's tree
 * (fab_pipeline_route_mcast); exit 0 when every member that receives gets
 * every other member's packets and nothing loops, 1 otherwise. Printing:
 * cli/print_mcast.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/routing.h"

/* The host list of --hosts or --hostfile into *out; an exit code on failure. */
static int host_list(const char *expr, const char *file, struct fab_hostlist **out)
{
	struct fab_hostlist *hl = NULL;
	int err;

	if (!expr && !file)
		return fab_cli_usage_error("route", "--all-pairs needs --hosts LIST or --hostfile FILE");
	if (expr && file)
		return fab_cli_usage_error("route", "give --hosts or --hostfile, not both");
	if (fab_hostlist_new(&hl)) {
		fab_err(-ENOMEM, "out of memory");
		return fab_cli_fail();
	}
	err = expr ? fab_hostlist_add(hl, expr, SIZE_MAX) : fab_hostlist_add_file(hl, file);
	if (err) {
		fab_hostlist_free(hl);
		return fab_cli_usage_error("route", "%s", fab_errmsg());
	}
	if (!fab_hostlist_count(hl)) {
		fab_hostlist_free(hl);
		return fab_cli_usage_error("route", "the host list is empty");
	}
	*out = hl;
	return FAB_EXIT_OK;
}

/* --mcast: a group's tree. */
static int route_mcast(const struct fab_pipeline_route *rj, const char *group, bool other)
{
	struct fab_pipeline_route_mcast job = { .db = rj->db, .scan_id = rj->scan_id, .group = group };
	struct fab_pipeline_route_mcast_result res;
	int ret;

	if (other)
		return fab_cli_usage_error("route", "--mcast takes a group (MGID or MLID) and --scan, --db "
					   "only");
	int err = fab_pipeline_route_mcast(&job, &res);
	if (err == -EINVAL) /* neither an MGID nor an MLID */
		return fab_cli_usage_error("route", "--mcast: %s", fab_errmsg());
	if (err)
		return fab_cli_fail();
	ret = fab_cli_print_route_mcast(&res) ? FAB_EXIT_OK : FAB_EXIT_FINDINGS;
	fab_pipeline_route_mcast_free(&res);
	return ret;
}

int fab_cmd_route(int argc, char **argv)
{
	enum { O_DB = 256, O_SCAN, O_ALL_PAIRS, O_HOSTS, O_HOSTFILE, O_LID_OFFSET, O_ALL_LIDS, O_MCAST };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "scan", required_argument, NULL, O_SCAN },
		{ "all-pairs", no_argument, NULL, O_ALL_PAIRS },
		{ "hosts", required_argument, NULL, O_HOSTS },
		{ "hostfile", required_argument, NULL, O_HOSTFILE },
		{ "lid-offset", required_argument, NULL, O_LID_OFFSET },
		{ "all-lids", no_argument, NULL, O_ALL_LIDS },
		{ "mcast", required_argument, NULL, O_MCAST },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const with_arg[] = { "--db", "--scan", "--hosts", "--hostfile",
						"--lid-offset", "--mcast", NULL };
	struct fab_pipeline_route job = { .db = fab_cli_default_db() };
	struct fab_pipeline_route_result res;
	struct fab_hostlist *hl = NULL;
	const char *hosts = NULL, *hostfile = NULL, *mcast = NULL;
	bool all_pairs = false, offset = false;
	char **args = fab_cli_hide_negative_ids(argc, argv, with_arg);
	int c, ret;

	if (!args)
		return fab_cli_usage_error("route", "out of memory");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, args, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
		case O_ALL_PAIRS: all_pairs = true; break;
		case O_HOSTS: hosts = optarg; break;
		case O_HOSTFILE: hostfile = optarg; break;
		case O_ALL_LIDS: job.all_lids = true; break;
		case O_MCAST: mcast = optarg; break;
		case O_LID_OFFSET: {
			char *end;
			unsigned long k = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || k > 127) {
				ret = fab_cli_usage_error("route", "--lid-offset takes an offset into the "
							  "destination's LID range, 0 to 127, not '%s'", optarg);
				goto out;
			}
			job.lid_offset = (unsigned)k;
			offset = true;
			break;
		}
		case O_SCAN: {
			const char *a = optarg;
			if (fab_pipeline_parse_scan(a, &job.scan_id)) {
				ret = fab_cli_usage_error("route", "--scan takes a scan id (a number, 'latest', "
							  "or -N for N before the latest), not '%s'", a);
				goto out;
			}
			break;
		}
		default:
			ret = fab_cli_usage_error("route", "unknown option '%s'; 'fabsweep help route' lists them",
						  args[optind - 1]);
			goto out;
		}
	}
	if (mcast) {
		ret = route_mcast(&job, mcast, all_pairs || offset || job.all_lids || hosts || hostfile ||
					       argc - optind);
		goto out;
	}
	if (offset && job.all_lids) {
		ret = fab_cli_usage_error("route", "give --lid-offset or --all-lids, not both");
		goto out;
	}
	if (all_pairs && (offset || job.all_lids)) {
		ret = fab_cli_usage_error("route", "--all-pairs checks every LID of each destination: "
					  "it takes no --lid-offset or --all-lids");
		goto out;
	}
	if (all_pairs) {
		if (argc - optind) {
			ret = fab_cli_usage_error("route", "--all-pairs takes no SRC DST: the hosts go after --hosts");
			goto out;
		}
		if ((ret = host_list(hosts, hostfile, &hl)))
			goto out;
		job.hosts = hl;
	} else if (hosts || hostfile) {
		ret = fab_cli_usage_error("route", "--hosts and --hostfile go with --all-pairs");
		goto out;
	} else if (argc - optind != 2) {
		ret = fab_cli_usage_error("route", "give two hosts: 'fabsweep route SRC DST' (names, GUIDs or LIDs)");
		goto out;
	} else {
		job.src = fab_cli_positional(argc, argv, args[optind]);
		job.dst = fab_cli_positional(argc, argv, args[optind + 1]);
	}
	if (fab_pipeline_route(&job, &res)) {
		ret = fab_cli_fail();
		goto out;
	}
	if (all_pairs) {
		fab_cli_print_route_pairs(&res);
		ret = res.pairs.n_bad || res.n_missed ? FAB_EXIT_FINDINGS : FAB_EXIT_OK;
	} else {
		fab_cli_print_route(&res);
		ret = res.path.fault == FAB_ROUTE_OK ? FAB_EXIT_OK : FAB_EXIT_FINDINGS;
		for (size_t k = 0; k < res.n_paths; k++) /* --all-lids: every one must arrive */
			if (res.paths[k].fault != FAB_ROUTE_OK)
				ret = FAB_EXIT_FINDINGS;
	}
	fab_pipeline_route_free(&res);
out:
	fab_hostlist_free(hl);
	free(args);
	return ret;
}
