// SPDX-License-Identifier: MIT
/*
 * topology.asymmetric: switches of one role (leaf, spine, core) are cabled
 * alike in a fat tree or spine-leaf fabric. For every role and every peer
 * role, the number of links most switches of that role have to switches of
 * that peer role is the pattern (when a strict majority of at least
 * min_peers switches share it); a switch that differs breaks it.
 *
 * node.unresponsive: what the scan could not see, from node and port flags
 * and the scan's error list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

#define N_SW_ROLES 3 /* leaf, spine, core */
#define MAX_LINKS 256

static int sw_role(unsigned role)
{
	return role == FAB_ROLE_LEAF ? 0 : role == FAB_ROLE_SPINE ? 1 : role == FAB_ROLE_CORE ? 2 : -1;
}

static const char *const plural[N_SW_ROLES] = { "leaves", "spines", "cores" };
static const char *const singular[N_SW_ROLES] = { "leaf", "spine", "core" };

int check_topology_asymmetric(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	size_t min_peers = (size_t)rule_param(ctx, 0);
	size_t group[N_SW_ROLES] = { 0 };
	int mode[N_SW_ROLES][N_SW_ROLES];
	uint16_t (*cnt)[N_SW_ROLES] = NULL;
	uint32_t *hist = NULL;
	int err = 0;

	for (size_t i = 0; i < s->n_nodes; i++) {
		int r = sw_role(s->nodes[i].role);
		if (s->nodes[i].type == FAB_NODE_SWITCH && r >= 0)
			group[r]++;
	}
	if (!group[0] || !group[1])
		return 0; /* not a fat tree or spine-leaf fabric */
	cnt = calloc(s->n_nodes + 1, sizeof(*cnt));
	hist = calloc(MAX_LINKS, sizeof(*hist));
	if (!cnt || !hist) {
		err = fab_err(-ENOMEM, "out of memory checking the topology");
		goto out;
	}
	/* links of each switch to switches of each role (loopback cables aside) */
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *p = &s->ports[i];
		uint32_t peer = rule_peer(s, (uint32_t)i);
		const struct fab_node *me = &s->nodes[p->node_idx];

		if (peer == FAB_NONE || me->type != FAB_NODE_SWITCH || sw_role(me->role) < 0)
			continue;
		const struct fab_node *other = &s->nodes[s->ports[peer].node_idx];
		int q = sw_role(other->role);
		if (q < 0 || other->type != FAB_NODE_SWITCH || s->ports[peer].node_idx == p->node_idx)
			continue;
		if (cnt[p->node_idx][q] < MAX_LINKS - 1)
			cnt[p->node_idx][q]++;
	}
	/* the pattern: a strict majority of at least min_peers switches */
	for (int r = 0; r < N_SW_ROLES; r++)
		for (int q = 0; q < N_SW_ROLES; q++) {
			uint32_t best = 0;
			mode[r][q] = -1;
			if (group[r] < min_peers)
				continue;
			memset(hist, 0, MAX_LINKS * sizeof(*hist));
			for (size_t i = 0; i < s->n_nodes; i++)
				if (s->nodes[i].type == FAB_NODE_SWITCH && sw_role(s->nodes[i].role) == r)
					hist[cnt[i][q]]++;
			for (int c = 0; c < MAX_LINKS; c++)
				if (hist[c] > best) {
					best = hist[c];
					mode[r][q] = c;
				}
			if (best * 2 <= group[r])
				mode[r][q] = -1; /* no clear pattern */
		}
	for (size_t i = 0; i < s->n_nodes && !err; i++) {
		int r = sw_role(s->nodes[i].role);

		if (s->nodes[i].type != FAB_NODE_SWITCH || r < 0)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_reset(&ctx->tmp);
		rbuf_printf(&ctx->ev, "role=%s; peers=%zu", singular[r], group[r]);
		bool off = false;
		for (int q = 0; q < N_SW_ROLES; q++) {
			if (mode[r][q] < 0 || cnt[i][q] == mode[r][q])
				continue;
			off = true;
			rbuf_printf(&ctx->ev, "; links_to_%s=%u; expected_to_%s=%d", singular[q],
				    cnt[i][q], singular[q], mode[r][q]);
			rbuf_sep(&ctx->tmp, "; ");
			rbuf_printf(&ctx->tmp, "%u link%s to %s where most %s have %d", cnt[i][q],
				    cnt[i][q] == 1 ? "" : "s", plural[q], plural[r], mode[r][q]);
		}
		if (off)
			err = rule_emit_node(ctx, (uint32_t)i, rbuf_str(&ctx->ev), "%s %s",
					     singular[r], rbuf_str(&ctx->tmp));
	}
out:
	free(cnt);
	free(hist);
	return err;
}

/* ---- node.unresponsive ---------------------------------------------------------------- */

enum { M_SMP = 1, M_PMA = 2, M_HOLE = 4 };

static unsigned mark_of(const char *what)
{
	if (!what)
		return 0;
	if (!strcmp(what, "smp"))
		return M_SMP;
	if (!strcmp(what, "pma"))
		return M_PMA;
	if (!strcmp(what, "hole"))
		return M_HOLE;
	return 0;
}

static unsigned flags_mark(unsigned flags)
{
	return (flags & FAB_F_SMP_FAILED ? M_SMP : 0) | (flags & FAB_F_PMA_FAILED ? M_PMA : 0) |
	       (flags & FAB_F_NO_REMOTE ? M_HOLE : 0);
}

/* Appends "<sep><text> <ports>" listing the node's ports marked with bit:
 * the port numbers, comma-joined; nothing when none is. */
static void port_list(struct rbuf *b, const struct fab_snapshot *s, const struct fab_node *n,
		      const uint8_t *pm, unsigned bit, const char *sep, const char *text)
{
	bool first = true;

	for (uint32_t k = 0; k < n->port_count; k++) {
		if (!(pm[n->port_first + k] & bit))
			continue;
		if (first) {
			rbuf_sep(b, sep);
			rbuf_printf(b, "%s", text);
		}
		rbuf_printf(b, "%s%u", first ? "" : ",", s->ports[n->port_first + k].port_num);
		first = false;
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

int check_node_unresponsive(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	uint8_t *nm = calloc(s->n_nodes + 1, 1), *pm = calloc(s->n_ports + 1, 1);
	uint64_t *unknown = calloc(s->n_errors + 1, sizeof(*unknown));
	size_t n_unknown = 0;
	int err = 0;

	if (!nm || !pm || !unknown) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		nm[i] = (uint8_t)(flags_mark(s->nodes[i].flags) & (M_SMP | M_PMA));
	for (size_t i = 0; i < s->n_ports; i++)
		pm[i] = (uint8_t)flags_mark(s->ports[i].flags);
	for (size_t i = 0; i < s->n_errors; i++) {
		const struct fab_scan_error *e = &s->errors[i];
		unsigned m = mark_of(e->what);
		uint32_t ni;

		if (!m || !e->node_guid)
			continue;
		if ((ni = fab_snapshot_find_node(s, e->node_guid)) == FAB_NONE) {
			unknown[n_unknown++] = e->node_guid;
			continue;
		}
		const struct fab_port *p = e->port_num >= 0 ? fab_snapshot_port(s, ni, (unsigned)e->port_num) : NULL;
		if (p)
			pm[p - s->ports] |= (uint8_t)m;
		else
			nm[ni] |= (uint8_t)(m & (M_SMP | M_PMA));
	}
	for (size_t i = 0; i < s->n_nodes && !err; i++) {
		const struct fab_node *n = &s->nodes[i];
		unsigned any = 0, nports = 0;
		uint32_t one = FAB_NONE;

		for (uint32_t k = 0; k < n->port_count; k++)
			if (pm[n->port_first + k]) {
				any |= pm[n->port_first + k];
				nports++;
				one = n->port_first + k;
			}
		if (!nm[i] && !any)
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_reset(&ctx->tmp);
		if (nm[i] & M_SMP) {
			rbuf_printf(&ctx->ev, "smp_failed=1");
			rbuf_printf(&ctx->tmp, "did not answer SMPs");
		}
		if (nm[i] & M_PMA) {
			rbuf_sep(&ctx->ev, "; ");
			rbuf_printf(&ctx->ev, "pma_failed=1");
			rbuf_sep(&ctx->tmp, "; ");
			rbuf_printf(&ctx->tmp, "did not answer PerfMgt queries");
		}
		port_list(&ctx->ev, s, n, pm, M_SMP, "; ", "smp_failed_ports=");
		port_list(&ctx->ev, s, n, pm, M_PMA, "; ", "pma_failed_ports=");
		port_list(&ctx->ev, s, n, pm, M_HOLE, "; ", "no_remote_ports=");
		port_list(&ctx->tmp, s, n, pm, M_SMP, "; ", "PortInfo could not be read on port ");
		if (!(nm[i] & M_PMA))
			port_list(&ctx->tmp, s, n, pm, M_PMA, "; ",
				  "counters could not be read on port ");
		port_list(&ctx->tmp, s, n, pm, M_HOLE, "; ",
			  "nothing answered behind LinkUp port ");
		if (!nm[i] && nports == 1)
			err = rule_emit_port(ctx, one, FAB_NONE, rbuf_str(&ctx->ev), "%s", rbuf_str(&ctx->tmp));
		else
			err = rule_emit_node(ctx, (uint32_t)i, rbuf_str(&ctx->ev), "%s", rbuf_str(&ctx->tmp));
	}
	/* devices known only from the error list */
	qsort(unknown, n_unknown, sizeof(*unknown), cmp_u64);
	for (size_t i = 0; i < n_unknown && !err; i++) {
		char g[FAB_GUID_STRLEN], subject[64];
		if (i && unknown[i] == unknown[i - 1])
			continue;
		fab_guid_format(unknown[i], g);
		snprintf(subject, sizeof(subject), "%s (not in the topology)", g);
		err = rule_emit_raw(ctx, g, NULL, NULL, NULL, subject, NULL,
				    "device did not answer during the scan (see scan_errors)");
	}
out:
	free(nm);
	free(pm);
	free(unknown);
	return err;
}
