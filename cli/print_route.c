// SPDX-License-Identifier: MIT
/*
 * What `fabsweep route` prints: one path hop by hop, with each link's
 * width, speed and error counters; or, for --all-pairs, the pairs that
 * break and the counts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

static void port_name(const struct fab_snapshot *s, uint32_t p)
{
	char nb[FAB_NODE_NAME_CAP];

	printf("%s/%u", fab_node_name(s, s->ports[p].node_idx, NULL, nb, sizeof(nb)),
	       s->ports[p].port_num);
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

static void print_path(const struct fab_pipeline_route_result *r, const struct fab_route_path *path,
		       unsigned dlid)
{
	const struct fab_snapshot *s = r->snap;

	printf("route from ");
	port_name(s, r->src);
	printf(" to ");
	port_name(s, r->dst);
	if (dlid > r->base_lid && dlid < r->base_lid + r->n_lids) /* LMC > 0: not the base */
		printf(" (LID %u = base %u + %u), scan %lld\n", dlid, r->base_lid, dlid - r->base_lid,
		       (long long)r->scan_id);
	else
		printf(" (LID %u), scan %lld\n", dlid, (long long)r->scan_id);
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

void fab_cli_print_route(const struct fab_pipeline_route_result *r)
{
	if (!r->n_paths) {
		print_path(r, &r->path, r->dlid);
		return;
	}
	for (size_t k = 0; k < r->n_paths; k++) /* --all-lids */
		print_path(r, &r->paths[k], r->base_lid + (unsigned)k);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct fab_route_pair *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

void fab_cli_print_route_pairs(struct fab_pipeline_route_result *r)
{
	const struct fab_snapshot *s = r->snap;
	const struct fab_route_pairs *p = &r->pairs;

	for (size_t i = 0; i < r->n_missed; i++)
		printf("%s: %s\n", r->missed[i].host,
		       r->missed[i].no_port ? "no Active, cabled port with a LID: its pairs are not checked"
					    : "not in the scan: its pairs are not checked");
	if (p->n_bad)
		qsort(p->bad, p->n_bad, sizeof(*p->bad), cmp_pair);
	for (size_t i = 0; i < p->n_bad; i++) {
		const struct fab_route_pair *b = &p->bad[i];

		port_name(s, b->src);
		printf(" (LID %u) -> ", s->ports[b->src].lid);
		port_name(s, b->dst);
		printf(" (LID %u): %s %s", b->dlid, b->fault == FAB_ROUTE_UNKNOWN ? "not judged:" : "broken:",
		       fab_route_fault_name(b->fault));
		if (b->at != FAB_NONE) {
			printf(" at ");
			port_name(s, b->at);
		}
		printf("\n");
	}
	printf("all pairs of %zu host%s (%zu port%s), scan %lld: %llu pair%s checked",
	       r->n_hosts, r->n_hosts == 1 ? "" : "s", r->n_ends, r->n_ends == 1 ? "" : "s",
	       (long long)r->scan_id, (unsigned long long)p->n_pairs, p->n_pairs == 1 ? "" : "s");
	/* with LMC > 0 each pair is a route per LID of the destination's range */
	if (p->n_routes != p->n_pairs)
		printf(" (%llu routes: every LID of each destination)", (unsigned long long)p->n_routes);
	printf(", %llu broken, %llu not judged%s\n", (unsigned long long)p->n_broken,
	       (unsigned long long)p->n_unknown,
	       r->n_missed ? ", some hosts missing (above)" : "");
}
