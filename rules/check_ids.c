// SPDX-License-Identifier: MIT
/*
 * Addressing rules: LIDs that are missing, and one generic duplicate check
 * (LIDs, GUIDs, node descriptions) by sorting keys and scanning for runs of
 * equal ones: O(n log n), never pairwise.
 *
 * Who owns a LID: every channel adapter or router port, and a switch as a
 * whole through its port 0 (external switch ports have no LID of their own).
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

#define MAX_LISTED 8 /* owners named in one finding's evidence */
#define LID_MULTICAST 0xc000

static bool lid_valid(unsigned lid)
{
	return lid != 0 && lid < LID_MULTICAST;
}

static bool any_active(const struct fab_snapshot *s, const struct fab_node *n)
{
	const struct fab_port *p = fab_node_ports(s, n);

	for (uint32_t k = 0; k < n->port_count; k++)
		if (p[k].port_num && p[k].state == FAB_STATE_ACTIVE)
			return true;
	return false;
}

/* ---- lid.unassigned ----------------------------------------------------------- */

int check_lid_unassigned(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	int err;

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		const struct fab_port *p = fab_node_ports(s, n);

		if (n->type == FAB_NODE_SWITCH) {
			const struct fab_port *p0 = fab_snapshot_port(s, (uint32_t)i, 0);
			unsigned lid = p0 ? p0->lid : n->lid;
			bool unknown = p0 ? p0->flags & FAB_F_LID_UNKNOWN : n->flags & FAB_F_LID_UNKNOWN;

			/* unknown: port 0's PortInfo was not read (node.unresponsive) */
			if (lid_valid(lid) || unknown || !any_active(s, n))
				continue;
			rbuf_reset(&ctx->ev);
			rbuf_printf(&ctx->ev, "lid=%u", lid);
			if (p0)
				err = rule_emit_port(ctx, (uint32_t)(p0 - s->ports), FAB_NONE,
						     rbuf_str(&ctx->ev),
						     "active switch has no valid LID on port 0 (LID %u)", lid);
			else
				err = rule_emit_node(ctx, (uint32_t)i, rbuf_str(&ctx->ev),
						     "active switch has no valid LID (LID %u)", lid);
			if (err)
				return err;
			continue;
		}
		for (uint32_t k = 0; k < n->port_count; k++) {
			uint32_t pi = n->port_first + k;

			if (!p[k].port_num || p[k].state != FAB_STATE_ACTIVE || lid_valid(p[k].lid) ||
			    (p[k].flags & FAB_F_LID_UNKNOWN))
				continue;
			rbuf_reset(&ctx->ev);
			rbuf_printf(&ctx->ev, "lid=%u; state=active", p[k].lid);
			if ((err = rule_emit_port(ctx, pi, rule_peer(s, pi), rbuf_str(&ctx->ev),
						  "active port has no valid LID (LID %u)", p[k].lid)))
				return err;
		}
	}
	return 0;
}

/* ---- duplicates ------------------------------------------------------------------- */

struct key {
	uint64_t k;       /* LID range start, or GUID */
	uint64_t hi;      /* LID range end (inclusive) */
	const char *text; /* node description */
	uint32_t node, port; /* port: index in ports, FAB_NONE when node-wide */
};

static int cmp_num(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->port < b->port ? -1 : a->port > b->port;
}

static int cmp_text(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = strcmp(a->text, b->text);

	if (c)
		return c;
	return a->node < b->node ? -1 : a->node > b->node;
}

static void owner(struct fab_rule_ctx *ctx, const struct key *k, size_t nth)
{
	const struct fab_snapshot *s = ctx->snap;

	rbuf_printf(&ctx->ev, "; owner%zu=", nth);
	if (k->port != FAB_NONE)
		rule_port_name(&ctx->ev, s, k->port);
	else
		rule_name(&ctx->ev, s, k->node);
	rbuf_printf(&ctx->ev, " (0x%016llx)", (unsigned long long)s->nodes[k->node].guid);
}

/* Fields of a key as finding node/port. */
static void fields(const struct fab_snapshot *s, const struct key *k,
		   char guid[FAB_GUID_STRLEN], char port[8], const char **pf)
{
	fab_guid_format(s->nodes[k->node].guid, guid);
	*pf = NULL;
	if (k->port != FAB_NONE) {
		snprintf(port, 8, "%u", s->ports[k->port].port_num);
		*pf = port;
	}
}

/* Emits one finding for the run v[0..n) of owners of one value. */
static int emit_group(struct fab_rule_ctx *ctx, const struct key *v, size_t n,
		      const char *subject, const char *what)
{
	const struct fab_snapshot *s = ctx->snap;
	char ga[FAB_GUID_STRLEN], gb[FAB_GUID_STRLEN], pa[8], pb[8];
	const char *fa, *fb;

	fields(s, &v[0], ga, pa, &fa);
	fields(s, &v[1], gb, pb, &fb);
	rbuf_printf(&ctx->ev, "; owners=%zu", n);
	for (size_t i = 0; i < n && i < MAX_LISTED; i++)
		owner(ctx, &v[i], i + 1);
	rbuf_reset(&ctx->tmp);
	for (size_t i = 0; i < n && i < 3; i++) {
		rbuf_sep(&ctx->tmp, ", ");
		if (v[i].port != FAB_NONE)
			rule_port_name(&ctx->tmp, s, v[i].port);
		else
			rule_name(&ctx->tmp, s, v[i].node);
	}
	if (n > 3)
		rbuf_printf(&ctx->tmp, " and %zu more", n - 3);
	return rule_emit_raw(ctx, ga, fa, gb, fb, subject, rbuf_str(&ctx->ev), "%s %s: %s",
			     what, n == 2 ? "shared by two" : "shared by several", rbuf_str(&ctx->tmp));
}

static int dup_lids(struct fab_rule_ctx *ctx, struct key *v)
{
	const struct fab_snapshot *s = ctx->snap;
	size_t n = 0;
	char subject[32], what[40];

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *nd = &s->nodes[i];
		const struct fab_port *p = fab_node_ports(s, nd);

		for (uint32_t k = 0; k < nd->port_count; k++) {
			bool sw = nd->type == FAB_NODE_SWITCH;
			if ((sw && p[k].port_num != 0) || (!sw && p[k].port_num == 0) ||
			    !lid_valid(p[k].lid) || (!sw && p[k].state < FAB_STATE_INIT))
				continue;
			unsigned span = p[k].lmc <= 7 ? 1u << p[k].lmc : 1;
			v[n++] = (struct key){ .k = p[k].lid, .hi = p[k].lid + span - 1,
					       .node = (uint32_t)i, .port = nd->port_first + k };
		}
		/* a switch known without its port 0 (topology files) */
		if (nd->type == FAB_NODE_SWITCH && lid_valid(nd->lid) &&
		    !fab_snapshot_port(s, (uint32_t)i, 0))
			v[n++] = (struct key){ .k = nd->lid, .hi = nd->lid, .node = (uint32_t)i,
					       .port = FAB_NONE };
	}
	qsort(v, n, sizeof(*v), cmp_num);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		uint64_t hi = v[i].hi;
		/* a run of overlapping LID ranges */
		while (j < n && v[j].k <= hi) {
			if (v[j].hi > hi)
				hi = v[j].hi;
			j++;
		}
		if (j - i > 1) {
			int err;
			snprintf(subject, sizeof(subject), "LID %llu", (unsigned long long)v[i].k);
			snprintf(what, sizeof(what), "LID %llu is", (unsigned long long)v[i].k);
			rbuf_reset(&ctx->ev);
			rbuf_printf(&ctx->ev, "lid=%llu", (unsigned long long)v[i].k);
			if ((err = emit_group(ctx, &v[i], j - i, subject, what)))
				return err;
		}
		i = j;
	}
	return 0;
}

static int dup_guids(struct fab_rule_ctx *ctx, struct key *v)
{
	const struct fab_snapshot *s = ctx->snap;
	char subject[40], what[48];
	size_t n = 0;
	int err;

	/* node GUIDs: devices kept apart although they answered with one GUID */
	for (size_t i = 0; i < s->n_nodes; i++) {
		/* the snapshot's GUID index is sorted already (GUID, then index) */
		uint32_t ni = s->guid_order ? s->guid_order[i] : (uint32_t)i;
		v[n++] = (struct key){ .k = s->nodes[ni].guid, .node = ni, .port = FAB_NONE };
	}
	if (!s->guid_order)
		qsort(v, n, sizeof(*v), cmp_num);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].k == v[i].k)
			j++;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "guid=0x%016llx", (unsigned long long)v[i].k);
		snprintf(subject, sizeof(subject), "GUID 0x%016llx", (unsigned long long)v[i].k);
		if (j - i > 1) {
			snprintf(what, sizeof(what), "node GUID 0x%016llx is", (unsigned long long)v[i].k);
			if ((err = emit_group(ctx, &v[i], j - i, subject, what)))
				return err;
		} else if (s->nodes[v[i].node].flags & FAB_F_DUP_GUID) {
			char g[FAB_GUID_STRLEN];
			fab_guid_format(v[i].k, g);
			rbuf_printf(&ctx->ev, "; owner1=");
			rule_name(&ctx->ev, s, v[i].node);
			if ((err = rule_emit_raw(ctx, g, NULL, NULL, NULL, subject, rbuf_str(&ctx->ev),
						 "node GUID %s was answered by more than one device (seen as one during discovery)",
						 g)))
				return err;
		}
		i = j;
	}
	/* port GUIDs of different devices (CA and router ports, switch port 0) */
	n = 0;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *nd = &s->nodes[i];
		const struct fab_port *p = fab_node_ports(s, nd);
		for (uint32_t k = 0; k < nd->port_count; k++) {
			bool sw = nd->type == FAB_NODE_SWITCH;
			if (!p[k].guid || (sw && p[k].port_num != 0) || (!sw && p[k].port_num == 0))
				continue;
			v[n++] = (struct key){ .k = p[k].guid, .node = (uint32_t)i,
					       .port = nd->port_first + k };
		}
	}
	qsort(v, n, sizeof(*v), cmp_num);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		bool same_node_guid = true;
		while (j < n && v[j].k == v[i].k) {
			same_node_guid &= s->nodes[v[j].node].guid == s->nodes[v[i].node].guid;
			j++;
		}
		/* owners that share their node GUID too were reported above */
		if (j - i > 1 && !same_node_guid) {
			rbuf_reset(&ctx->ev);
			rbuf_printf(&ctx->ev, "port_guid=0x%016llx", (unsigned long long)v[i].k);
			snprintf(subject, sizeof(subject), "GUID 0x%016llx", (unsigned long long)v[i].k);
			snprintf(what, sizeof(what), "port GUID 0x%016llx is", (unsigned long long)v[i].k);
			if ((err = emit_group(ctx, &v[i], j - i, subject, what)))
				return err;
		}
		i = j;
	}
	return 0;
}

static int dup_descs(struct fab_rule_ctx *ctx, struct key *v)
{
	const struct fab_snapshot *s = ctx->snap;
	size_t n = 0;
	int err;

	/* A CA inside a switch (a SHARP aggregation node) carries the vendor's
	 * description on every switch, by design: not a name to make unique. */
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].desc[0] && !fab_node_in_switch(s, (uint32_t)i))
			v[n++] = (struct key){ .text = s->nodes[i].desc, .node = (uint32_t)i,
					       .port = FAB_NONE };
	qsort(v, n, sizeof(*v), cmp_text);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !strcmp(v[j].text, v[i].text))
			j++;
		if (j - i > 1) {
			rbuf_reset(&ctx->ev);
			rbuf_printf(&ctx->ev, "description=%s", v[i].text);
			/* owners by GUID: the names are all the same */
			rbuf_printf(&ctx->ev, "; owners=%zu; guids=", j - i);
			for (size_t k = i; k < j && k - i < MAX_LISTED; k++)
				rbuf_printf(&ctx->ev, "%s0x%016llx", k > i ? "," : "",
					    (unsigned long long)s->nodes[v[k].node].guid);
			char ga[FAB_GUID_STRLEN], gb[FAB_GUID_STRLEN];
			fab_guid_format(s->nodes[v[i].node].guid, ga);
			fab_guid_format(s->nodes[v[i + 1].node].guid, gb);
			if ((err = rule_emit_raw(ctx, ga, NULL, gb, NULL, v[i].text, rbuf_str(&ctx->ev),
						 "%zu devices share the description \"%s\"", j - i,
						 v[i].text)))
				return err;
		}
		i = j;
	}
	return 0;
}

int check_duplicates(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	struct key *v = malloc((s->n_ports + s->n_nodes + 1) * sizeof(*v));
	int err;

	if (!v)
		return fab_err(-ENOMEM, "out of memory checking duplicates");
	switch (ctx->rule->arg) {
	case DUP_LID:
		err = dup_lids(ctx, v);
		break;
	case DUP_GUID:
		err = dup_guids(ctx, v);
		break;
	default:
		err = dup_descs(ctx, v);
		break;
	}
	free(v);
	return err;
}
