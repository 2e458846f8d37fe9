// SPDX-License-Identifier: MIT
/* What `fabsweep ready` prints of the pairs of hosts (cli/cmd_ready.c). */
#include <stdio.h>

#include "cli/cli.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/pkey.h"
#include "fabsweep/probe.h"

/* The pairs of hosts that share no partition they can talk in. */
void fab_cli_print_ready_pairs(const struct fab_pipeline_ready_result *res)
{
	const struct fab_ready_pairs *p = &res->pairs;
	char k[8];

	if (!p->judged) {
		printf("ready: %s\n", p->note);
		return;
	}
	for (size_t i = 0; i < p->n_listed; i++)
		printf("%s <-> %s: not ready: %s\n", fab_ready_hosts_name(res->hosts, p->failing[i].a),
		       fab_ready_hosts_name(res->hosts, p->failing[i].b),
		       p->failing[i].limited_only ? "they share a partition only as limited members"
		       : p->want ? "they do not share the partition" : "they share no partition");
	if (p->n_failing > p->n_listed)
		printf("ready: %llu more pairs share no partition\n",
		       (unsigned long long)(p->n_failing - p->n_listed));
	if (p->want)
		printf("ready: partition %s: %llu of %llu pairs cannot talk in it\n",
		       fab_pkey_format(p->want, k), (unsigned long long)p->n_failing,
		       (unsigned long long)p->n_pairs);
	if (p->n_no_table)
		printf("ready: %zu host%s without a P_Key table in the sweep: %s pairs not checked\n",
		       p->n_no_table, p->n_no_table == 1 ? "" : "s", p->n_no_table == 1 ? "its" : "their");
}

