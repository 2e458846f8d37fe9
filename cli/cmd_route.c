// SPDX-License-Identifier: MIT
/*
 * fabsweep route SRC DST [--scan ID]: the hop-by-hop path between two
 * hosts in a stored scan, as its forwarding tables send it
 * (fab_pipeline_route), with each link's width, speed and error counters.
 * Exit 0 when the route arrives, 1 when it breaks.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

static void port_name(const struct fab_snapshot *s, uint32_t p)
{
	const struct fab_node *n = &s->nodes[s->ports[p].node_idx];

	printf("%s/%u", n->desc[0] ? n->desc : "?", s->ports[p].port_num);
}

/* width, speed and the error counters of the latest sample that are not 0 */
static void link_facts(const struct fab_snapshot *s, uint32_t p)
{
	const struct fab_port *pt = &s->ports[p];
	const struct fab_counter_sample *c = fab_counter_latest(s, p);
	bool any = false;

	printf("  %s %s", pt->width_active ? fab_width_name(pt->width_active) : "-",
	       pt->speed_active ? fab_speed_name(pt->speed_active) : "-");
	for (unsigned k = 0; c && k < FAB_CTR__COUNT; k++)
		if (fab_counter_is_error(k) && (c->valid & (1u << k)) && c->v[k]) {
			printf("%s%s=%llu", any ? " " : "  ", fab_counter_name(k),
			       (unsigned long long)c->v[k]);
			any = true;
		}
	if (c && !any)
		printf("  no errors");
}

static void print_route(const struct fab_pipeline_route_result *r)
{
	const struct fab_snapshot *s = r->snap;
	const struct fab_route_path *path = &r->path;

	printf("route from ");
	port_name(s, r->src);
	printf(" to ");
	port_name(s, r->dst);
	printf(" (LID %u), scan %lld\n", r->dlid, (long long)r->scan_id);
	for (size_t i = 0; i < path->n_hops; i++) {
		uint32_t p = path->hop[i], far = s->ports[p].remote_idx;

		printf("%3zu  ", i + 1);
		port_name(s, p);
		printf(" -> ");
		if (far != FAB_NONE && far < s->n_ports)
			port_name(s, far);
		else
			printf("(nothing)");
		link_facts(s, p);
		printf("\n");
	}
	if (path->fault == FAB_ROUTE_OK) {
		printf("arrives: %zu link%s\n", path->n_hops, path->n_hops == 1 ? "" : "s");
		return;
	}
	printf("broken: %s", fab_route_fault_name(path->fault));
	if (path->at != FAB_NONE) {
		printf(" at ");
		port_name(s, path->at);
	}
	printf("\n");
}

int fab_cmd_route(int argc, char **argv)
{
	enum { O_DB = 256, O_SCAN };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "scan", required_argument, NULL, O_SCAN },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const with_arg[] = { "--db", "--scan", NULL };
	struct fab_pipeline_route job = { .db = fab_cli_default_db() };
	struct fab_pipeline_route_result res;
	char **args = fab_cli_hide_negative_ids(argc, argv, with_arg);
	int c, ret;

	if (!args)
		return fab_cli_usage_error("route", "out of memory");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, args, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: job.db = optarg; break;
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
	if (argc - optind != 2) {
		ret = fab_cli_usage_error("route", "give two hosts: 'fabsweep route SRC DST' (names, GUIDs or LIDs)");
		goto out;
	}
	job.src = fab_cli_positional(argc, argv, args[optind]);
	job.dst = fab_cli_positional(argc, argv, args[optind + 1]);
	if (fab_pipeline_route(&job, &res)) {
		ret = fab_cli_fail();
		goto out;
	}
	print_route(&res);
	ret = res.path.fault == FAB_ROUTE_OK ? FAB_EXIT_OK : FAB_EXIT_FINDINGS;
	fab_pipeline_route_free(&res);
out:
	free(args);
	return ret;
}
