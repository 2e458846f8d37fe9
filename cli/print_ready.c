// SPDX-License-Identifier: MIT
/* What `fabsweep ready` prints of the pairs of hosts (cli/cmd_ready.c). */
#include <stdio.h>

#include "cli/cli.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/pkey.h"
#include "fabsweep/probe.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

int fab_cli_ready_exit(const struct fab_ready *r)
{
	switch (fab_ready_overall(r)) {
	case FAB_READY_OK: return FAB_EXIT_OK;
	case FAB_READY_NOT_READY: return FAB_EXIT_FINDINGS;
	default: return FAB_EXIT_RUNTIME;
	}
}

/* The hops that are not ready, why pairs and hops were not checked, the
 * failing pairs (no shared partition, a bad hop, a broken route). */
void fab_cli_print_ready_pairs(const struct fab_pipeline_ready_result *res)
{
	const struct fab_ready_pairs *p = &res->pairs;
	char k[8];

	const struct fab_ready_hops *h = &res->hops;

	for (size_t i = 0; i < h->n_hops; i++)
		if (h->hops[i].text)
			printf("hop %zu: %s: %s\n", i + 1,
			       h->hops[i].verdict == FAB_READY_NOT_READY ? "not ready" : "not checked",
			       h->hops[i].text);
	if (!h->judged)
		printf("ready: %s\n", h->note);
	if (!p->judged)
		printf("ready: %s\n", p->note);
	for (size_t i = 0; i < p->n_listed; i++) {
		const struct fab_ready_pair *x = &p->failing[i];
		const char *a = fab_ready_hosts_name(res->hosts, x->a), *b = fab_ready_hosts_name(res->hosts, x->b);

		if (x->hop != FAB_NONE)
			printf("%s -> %s: not ready: the route crosses hop %u (%s)\n", a, b, x->hop + 1,
			       h->hops[x->hop].text);
		else if (x->fault)
			printf("%s -> %s: not ready: the forwarding tables break the route (%s)\n", a, b,
			       fab_route_fault_name(x->fault));
		else
			printf("%s <-> %s: not ready: %s\n", a, b,
			       x->limited_only ? "they share a partition only as limited members"
			       : p->want ? "they do not share the partition" : "they share no partition");
	}
	if (p->n_failing + p->n_route_failing > p->n_listed)
		printf("ready: %llu more failing pairs not listed\n",
		       (unsigned long long)(p->n_failing + p->n_route_failing - p->n_listed));
	if (h->n_bad) /* a healthy run prints only its summary line */
		printf("ready: %zu hop%s between the hosts probed, %zu not ready or not checked\n",
		       h->n_hops, h->n_hops == 1 ? "" : "s", h->n_bad);
	if (p->want && p->n_failing)
		printf("ready: partition %s: %llu of %llu pairs cannot talk in it\n",
		       fab_pkey_format(p->want, k), (unsigned long long)p->n_failing,
		       (unsigned long long)p->n_pairs);
	if (p->n_no_table)
		printf("ready: %zu host%s without a P_Key table in the sweep: %s pairs not checked\n",
		       p->n_no_table, p->n_no_table == 1 ? "" : "s", p->n_no_table == 1 ? "its" : "their");
}

