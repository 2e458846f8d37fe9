// SPDX-License-Identifier: MIT
/*
 * What `fabsweep route --mcast` prints: the group, the tree as the tables
 * write it (each switch's entry: the ports and what each leads to), the
 * members and whom the others' packets reach, and what is wrong (a loop,
 * entries the tree does not need).
 *
 *   multicast group ff12:601b:ffff::1234 (MLID 0xc001), scan 2: P_Key 0xffff, MTU 2048, rate 10 Gb/s, SL 0, 5 members
 *   tree: 3 switches
 *     leaf001: 1 -> host0001/1, 3 -> host0003/1, 5 -> spine001/1
 *   members:
 *     host0001/1 (full) on leaf001/1: reached by all 4 others
 *   every member is reached; no loop
 */
#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/pkey.h"
#include "fabsweep/snapshot.h"

static void node_name(const struct fab_snapshot *s, uint32_t n)
{
	char nb[FAB_NODE_NAME_CAP];

	printf("%s", fab_node_name(s, n, NULL, nb, sizeof(nb)));
}

static void port_name(const struct fab_snapshot *s, uint32_t p)
{
	node_name(s, s->ports[p].node_idx);
	printf("/%u", s->ports[p].port_num);
}

static const char *join_text(unsigned js)
{
	static const char *const t[16] = {
		[1] = "full", [2] = "non", [3] = "full,non", [4] = "sendonly", [8] = "sendonly_full",
	};
	return t[js & 15] ? t[js & 15] : "mixed";
}

static void group_line(const struct fab_pipeline_route_mcast_result *r)
{
	const struct fab_mcast *m = r->snap->mcast;
	const struct fab_mc_tree *t = r->tree;
	uint32_t gi = r->group != FAB_NONE ? r->group : t->n_groups ? t->groups[0] : FAB_NONE;
	char mg[FAB_MGID_STRLEN], pk[8];

	if (gi == FAB_NONE) {
		printf("MLID 0x%04x, scan %lld: no multicast group has it\n", t->mlid, (long long)r->scan_id);
		return;
	}
	const struct fab_mc_group *g = &m->groups[gi];
	printf("multicast group %s (MLID 0x%04x), scan %lld: P_Key %s, MTU %u, rate %g Gb/s, SL %u, "
	       "%u member%s\n", fab_mgid_format(g->mgid, mg), g->mlid, (long long)r->scan_id,
	       fab_pkey_format(g->pkey, pk), fab_mc_mtu_bytes(g->mtu), fab_mc_rate_gbps(g->rate), g->sl,
	       g->n, g->n == 1 ? "" : "s");
	for (size_t i = 0; i < t->n_groups; i++)
		if (t->groups[i] != gi)
			printf("  MLID shared with group %s (%u members)\n",
			       fab_mgid_format(m->groups[t->groups[i]].mgid, mg), m->groups[t->groups[i]].n);
}

static void tree_lines(const struct fab_snapshot *s, const struct fab_mc_tree *t)
{
	printf("tree: %zu switch%s\n", t->n_hops, t->n_hops == 1 ? "" : "es");
	for (size_t h = 0; h < t->n_hops; h++) {
		const struct fab_mc_hop *hp = &t->hops[h];

		printf("  ");
		node_name(s, hp->node);
		printf(":");
		for (uint32_t k = 0; k < hp->n; k++) {
			const struct fab_port *p = &s->ports[t->ports[hp->first + k]];
			printf("%s %u -> ", k ? "," : "", p->port_num);
			if (!p->port_num)
				printf("itself");
			else if (p->state != FAB_STATE_ACTIVE || p->remote_idx == FAB_NONE)
				printf("(not Active)");
			else
				port_name(s, p->remote_idx);
		}
		if (hp->unknown)
			printf(" (entry not read whole)");
		if (!hp->fwd || !hp->bwd)
			printf(" [not needed: %s]", !hp->fwd ? "no member's packets reach it"
							     : "leads to no receiving member");
		printf("\n");
	}
}

bool fab_cli_print_route_mcast(const struct fab_pipeline_route_mcast_result *r)
{
	const struct fab_snapshot *s = r->snap;
	const struct fab_mcast *m = s->mcast;
	const struct fab_mc_tree *t = r->tree;
	size_t unreached = 0, unknown = 0;

	group_line(r);
	tree_lines(s, t);
	if (t->n_reach || t->n_absent)
		printf("members:\n");
	for (size_t i = 0; i < t->n_reach; i++) {
		const struct fab_mc_reach *x = &t->reach[i];
		const struct fab_port *p = &s->ports[x->port];

		printf("  ");
		port_name(s, x->port);
		printf(" (%s)", join_text(m->members[x->member].join_state));
		if (x->sw != FAB_NONE) {
			printf(" on ");
			if (p->port_num)
				port_name(s, p->remote_idx);
			else
				node_name(s, x->sw);
		}
		if (!x->receives)
			printf(": sends only\n");
		else if (x->unknown)
			printf(": not judged (a table on the way was not read)\n"), unknown++;
		else if (!x->unreached_from)
			printf(": reached by every other member\n");
		else {
			unreached++;
			printf(": NOT reached by %u other member%s", x->unreached_from,
			       x->unreached_from == 1 ? "" : "s");
			if (x->sw == FAB_NONE)
				printf(" (its port is not Active and cabled to a switch)");
			else if (x->bit_missing)
				printf(" (the switch's entry lacks its port)");
			else if (x->example != FAB_NONE && m->members[x->example].port_idx != FAB_NONE) {
				printf(" (e.g. ");
				port_name(s, m->members[x->example].port_idx);
				printf(")");
			}
			printf("\n");
		}
	}
	if (t->n_absent)
		printf("  and %zu member%s not in the scan's topology\n", t->n_absent,
		       t->n_absent == 1 ? "" : "s");
	for (size_t i = 0; i < t->n_stray; i++) {
		printf("stray: ");
		port_name(s, t->stray[i]);
		printf(" forwards the group to a port that is no member\n");
	}
	if (t->n_loop) {
		printf("loop:");
		for (size_t i = 0; i < t->n_loop; i++) {
			printf(" ");
			port_name(s, t->loop[i]);
			printf(" ->");
		}
		printf(" back to ");
		port_name(s, t->loop[0]);
		printf("\n");
	}
	printf("%s; %s%s\n", unreached ? "some members are not reached" : "every member is reached",
	       t->n_loop ? "the tables loop" : "no loop",
	       unknown ? "; some members not judged" : "");
	return !unreached && !t->n_loop;
}
