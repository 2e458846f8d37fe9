// SPDX-License-Identifier: MIT
/*
 * Expected topology: the snapshot's cables against a reference (an
 * ibnetdiscover topology file or an earlier snapshot, `check --expect`).
 *
 * A link is identified by its two ends, (node GUID, port number) each.
 * Nodes are matched by GUID; a reference node whose GUID is not in the
 * snapshot is matched by description when that description names exactly
 * one node in each and the snapshot's node has a GUID the reference does not
 * know (a replaced HCA or switch keeps its name: its cables are not missing
 * and unexpected at once). Then:
 *
 *   - a reference link whose two ends are cabled to each other: as expected;
 *   - a snapshot link that is not in the reference is *miswired* when both
 *     its ends are ports of the reference and at least one of them was
 *     cabled elsewhere there (a cable in the wrong port); else *unexpected*
 *     (a new cable, or one to a node the reference does not have);
 *   - a reference link that is not in the snapshot is *missing*, unless one
 *     of its ends now carries a miswired cable (that finding explains it),
 *     or the scan could not see an end (a hole, a port whose PortInfo failed).
 *
 * A swapped pair of cables (A-B and C-D become A-D and C-B) gives two
 * miswired findings, each naming the other cable, and nothing else.
 * Cost: O(n log n) (sorting descriptions, GUID lookups).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

struct match {
	const struct fab_snapshot *s, *r; /* snapshot, reference */
	uint32_t *r2s;  /* reference node -> snapshot node, FAB_NONE */
	uint32_t *s2r;  /* snapshot node -> reference node, FAB_NONE */
	uint8_t *by_desc; /* per reference node: matched by description */
	uint8_t *s_ok;  /* per snapshot port: its link is in the reference */
	uint8_t *r_ok;  /* per reference port: its link is in the snapshot */
	uint8_t *s_mis; /* per snapshot port: an end of a miswired link */
};

static void match_free(struct match *m)
{
	free(m->r2s);
	free(m->s2r);
	free(m->by_desc);
	free(m->s_ok);
	free(m->r_ok);
	free(m->s_mis);
}

/* Sorting node indices by description (then index), per snapshot. */
static const struct fab_snapshot *desc_snap;

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(desc_snap->nodes[x].desc, desc_snap->nodes[y].desc);

	return c ? c : (x < y ? -1 : x > y);
}

/* Node indices of s sorted by description; only unique, non-empty ones are
 * kept (their count in *n). */
static uint32_t *unique_descs(const struct fab_snapshot *s, size_t *n)
{
	uint32_t *v = malloc((s->n_nodes + 1) * sizeof(*v)), *u;
	size_t k = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n_nodes; i++)
		v[i] = (uint32_t)i;
	desc_snap = s;
	qsort(v, s->n_nodes, sizeof(*v), cmp_desc);
	u = v;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const char *d = s->nodes[v[i]].desc;
		bool dup = (i > 0 && !strcmp(d, s->nodes[v[i - 1]].desc)) ||
			   (i + 1 < s->n_nodes && !strcmp(d, s->nodes[v[i + 1]].desc));
		if (*d && !dup)
			u[k++] = v[i];
	}
	*n = k;
	return v;
}

static int match_nodes(struct match *m)
{
	const struct fab_snapshot *s = m->s, *r = m->r;
	uint32_t *us = NULL, *ur = NULL;
	size_t ns = 0, nr = 0, i = 0, j = 0;

	for (size_t k = 0; k < s->n_nodes; k++)
		m->s2r[k] = FAB_NONE;
	for (size_t k = 0; k < r->n_nodes; k++) {
		uint32_t sn = fab_snapshot_find_node(s, r->nodes[k].guid);
		m->r2s[k] = sn;
		if (sn != FAB_NONE && m->s2r[sn] == FAB_NONE)
			m->s2r[sn] = (uint32_t)k;
	}
	/* description fallback, among nodes whose GUID the other side lacks */
	us = unique_descs(s, &ns);
	ur = unique_descs(r, &nr);
	if (!us || !ur) {
		free(us);
		free(ur);
		return -ENOMEM;
	}
	while (i < ns && j < nr) {
		uint32_t a = us[i], b = ur[j];
		int c = strcmp(s->nodes[a].desc, r->nodes[b].desc);
		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			if (m->r2s[b] == FAB_NONE && m->s2r[a] == FAB_NONE &&
			    fab_snapshot_find_node(r, s->nodes[a].guid) == FAB_NONE &&
			    s->nodes[a].type == r->nodes[b].type) {
				m->r2s[b] = a;
				m->s2r[a] = b;
				m->by_desc[b] = 1;
			}
			i++;
			j++;
		}
	}
	free(us);
	free(ur);
	return 0;
}

/* The port of `to` that is port p of `from` (by node match and number). */
static uint32_t across(const struct fab_snapshot *from, const struct fab_snapshot *to,
		       const uint32_t *map, uint32_t p)
{
	const struct fab_port *fp;
	const struct fab_port *tp;
	uint32_t n;

	if (p == FAB_NONE)
		return FAB_NONE;
	fp = &from->ports[p];
	n = map[fp->node_idx];
	if (n == FAB_NONE || !(tp = fab_snapshot_port(to, n, fp->port_num)))
		return FAB_NONE;
	return (uint32_t)(tp - to->ports);
}

static uint32_t peer(const struct fab_snapshot *s, uint32_t p)
{
	return p == FAB_NONE ? FAB_NONE : rule_peer(s, p);
}

/* Whether snapshot link (x, y) counts as miswired. */
static bool miswired(const struct match *m, uint32_t x, uint32_t y)
{
	uint32_t rx = across(m->s, m->r, m->s2r, x), ry = across(m->s, m->r, m->s2r, y);

	return rx != FAB_NONE && ry != FAB_NONE &&
	       (peer(m->r, rx) != FAB_NONE || peer(m->r, ry) != FAB_NONE);
}

static int classify(struct match *m)
{
	const struct fab_snapshot *s = m->s, *r = m->r;
	int err;

	m->r2s = malloc((r->n_nodes + 1) * sizeof(*m->r2s));
	m->s2r = malloc((s->n_nodes + 1) * sizeof(*m->s2r));
	m->by_desc = calloc(r->n_nodes + 1, 1);
	m->s_ok = calloc(s->n_ports + 1, 1);
	m->r_ok = calloc(r->n_ports + 1, 1);
	m->s_mis = calloc(s->n_ports + 1, 1);
	if (!m->r2s || !m->s2r || !m->by_desc || !m->s_ok || !m->r_ok || !m->s_mis)
		return -ENOMEM;
	if ((err = match_nodes(m)))
		return err;
	for (size_t i = 0; i < r->n_links; i++) {
		const struct fab_link *l = &r->links[i];
		uint32_t a = across(r, s, m->r2s, l->a), b = across(r, s, m->r2s, l->b);

		if (a != FAB_NONE && b != FAB_NONE && peer(s, a) == b) {
			m->s_ok[a] = m->s_ok[b] = 1;
			m->r_ok[l->a] = m->r_ok[l->b] = 1;
		}
	}
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];

		if (!m->s_ok[l->a] && miswired(m, l->a, l->b))
			m->s_mis[l->a] = m->s_mis[l->b] = 1;
	}
	return 0;
}

/* "name/port" of a reference port, named as in the snapshot when its node
 * is matched there. */
static void ref_port_name(struct rbuf *b, const struct match *m, uint32_t rp)
{
	const struct fab_port *p = &m->r->ports[rp];
	uint32_t sn = m->r2s[p->node_idx];

	if (sn != FAB_NONE)
		rule_name(b, m->s, sn);
	else
		rule_name(b, m->r, p->node_idx);
	rbuf_printf(b, "/%u", p->port_num);
}

static void state_of(struct rbuf *b, const struct fab_snapshot *s, uint32_t p)
{
	const char *st = fab_state_name(s->ports[p].state);
	const char *ph = fab_phys_state_name(s->ports[p].phys_state);

	rbuf_printf(b, "%s/%s", st ? st : "unknown", ph ? ph : "unknown");
}

/* Where snapshot port p (an end of a link that is not expected) should be
 * cabled, in words: "leaf001/3 <-> spine001/1" or "no cable on leaf001/3". */
static void expected_of(struct rbuf *b, const struct match *m, uint32_t p)
{
	uint32_t rp = across(m->s, m->r, m->s2r, p), rq = peer(m->r, rp);

	if (rp == FAB_NONE) {
		rule_port_name(b, m->s, p);
		rbuf_printf(b, " not in the reference");
	} else if (rq == FAB_NONE) {
		rbuf_printf(b, "no cable on ");
		rule_port_name(b, m->s, p);
	} else {
		rule_port_name(b, m->s, p);
		rbuf_printf(b, " <-> ");
		ref_port_name(b, m, rq);
	}
}

static int emit_miswired(struct fab_rule_ctx *ctx, const struct match *m, uint32_t x, uint32_t y)
{
	const struct fab_snapshot *s = m->s;
	uint32_t rx = across(s, m->r, m->s2r, x), ry = across(s, m->r, m->s2r, y);
	uint32_t ex = across(m->r, s, m->r2s, peer(m->r, rx)); /* where x should go */
	uint32_t ey = across(m->r, s, m->r2s, peer(m->r, ry));
	char ga[FAB_GUID_STRLEN];

	rbuf_reset(&ctx->tmp);
	rbuf_printf(&ctx->tmp, "cabled to the wrong port: the reference has ");
	expected_of(&ctx->tmp, m, x);
	rbuf_printf(&ctx->tmp, " and ");
	expected_of(&ctx->tmp, m, y);
	/* a swapped pair: the other cable joins the ports these two should reach */
	if (ex != FAB_NONE && ey != FAB_NONE && peer(s, ex) == ey) {
		rbuf_printf(&ctx->tmp, "; swapped with the cable ");
		rule_port_name(&ctx->tmp, s, ex);
		rbuf_printf(&ctx->tmp, " <-> ");
		rule_port_name(&ctx->tmp, s, ey);
	}
	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->ev, "expected_peer=");
	if (peer(m->r, rx) != FAB_NONE) {
		const struct fab_port *q = &m->r->ports[peer(m->r, rx)];
		fab_guid_format(m->r->nodes[q->node_idx].guid, ga);
		rbuf_printf(&ctx->ev, "%s/%u", ga, q->port_num);
	} else {
		rbuf_printf(&ctx->ev, "none");
	}
	rbuf_printf(&ctx->ev, "; peer_expected_peer=");
	if (peer(m->r, ry) != FAB_NONE) {
		const struct fab_port *q = &m->r->ports[peer(m->r, ry)];
		fab_guid_format(m->r->nodes[q->node_idx].guid, ga);
		rbuf_printf(&ctx->ev, "%s/%u", ga, q->port_num);
	} else {
		rbuf_printf(&ctx->ev, "none");
	}
	if (ex != FAB_NONE && ey != FAB_NONE && peer(s, ex) == ey) {
		rbuf_printf(&ctx->ev, "; swapped_with=");
		rule_port_name(&ctx->ev, s, ex);
		rbuf_printf(&ctx->ev, " <-> ");
		rule_port_name(&ctx->ev, s, ey);
	}
	return rule_emit_port(ctx, x, y, rbuf_str(&ctx->ev), "%s", rbuf_str(&ctx->tmp));
}

/* "reference=scan 12" or "reference=file:fabric.topo" */
static void reference_evidence(struct rbuf *b, const struct fab_snapshot *r)
{
	if (r->scan_id)
		rbuf_printf(b, "reference=scan %lld", (long long)r->scan_id);
	else
		rbuf_printf(b, "reference=%s", r->source ? r->source : "-");
}

static int emit_unexpected(struct fab_rule_ctx *ctx, const struct match *m, uint32_t x, uint32_t y)
{
	const struct fab_snapshot *s = m->s;
	uint32_t rx = across(s, m->r, m->s2r, x), ry = across(s, m->r, m->s2r, y);

	rbuf_reset(&ctx->tmp);
	rbuf_printf(&ctx->tmp, "not in the reference: ");
	for (int k = 0; k < 2; k++) {
		uint32_t p = k ? y : x, rp = k ? ry : rx;
		const struct fab_node *n = &s->nodes[s->ports[p].node_idx];
		if (k)
			rbuf_printf(&ctx->tmp, "; ");
		if (m->s2r[s->ports[p].node_idx] == FAB_NONE) {
			rule_name(&ctx->tmp, s, s->ports[p].node_idx);
			rbuf_printf(&ctx->tmp, " (%s) is a node the reference does not have",
				    fab_node_type_name(n->type));
		} else if (rp == FAB_NONE) {
			rule_port_name(&ctx->tmp, s, p);
			rbuf_printf(&ctx->tmp, " is a port the reference does not have");
		} else {
			rule_port_name(&ctx->tmp, s, p);
			rbuf_printf(&ctx->tmp, " had no cable there");
		}
	}
	rbuf_reset(&ctx->ev);
	reference_evidence(&ctx->ev, m->r);
	return rule_emit_port(ctx, x, y, rbuf_str(&ctx->ev), "%s", rbuf_str(&ctx->tmp));
}

/* A missing reference link (ra, rb); a, b: its ends in the snapshot. */
static int emit_missing(struct fab_rule_ctx *ctx, const struct match *m, uint32_t ra, uint32_t rb,
			uint32_t a, uint32_t b)
{
	const struct fab_snapshot *s = m->s, *r = m->r;
	char ga[FAB_GUID_STRLEN], gb[FAB_GUID_STRLEN], pa[8], pb[8];

	rbuf_reset(&ctx->tmp);
	rbuf_printf(&ctx->tmp, "the reference has this cable; now ");
	for (int k = 0; k < 2; k++) {
		uint32_t p = k ? b : a, rp = k ? rb : ra;
		const struct fab_port *rpp = &r->ports[rp];
		if (k)
			rbuf_printf(&ctx->tmp, ", ");
		if (m->r2s[rpp->node_idx] == FAB_NONE) {
			rule_name(&ctx->tmp, r, rpp->node_idx);
			rbuf_printf(&ctx->tmp, " is not in the scan");
		} else if (p == FAB_NONE) {
			ref_port_name(&ctx->tmp, m, rp);
			rbuf_printf(&ctx->tmp, " does not exist");
		} else if (peer(s, p) != FAB_NONE) {
			rule_port_name(&ctx->tmp, s, p);
			rbuf_printf(&ctx->tmp, " is cabled to ");
			rule_port_name(&ctx->tmp, s, peer(s, p));
		} else {
			rule_port_name(&ctx->tmp, s, p);
			rbuf_printf(&ctx->tmp, " is ");
			state_of(&ctx->tmp, s, p);
		}
	}
	rbuf_reset(&ctx->ev);
	reference_evidence(&ctx->ev, r);
	for (int k = 0; k < 2; k++) {
		uint32_t rn = r->ports[k ? rb : ra].node_idx;
		if (m->by_desc[rn]) {
			fab_guid_format(r->nodes[rn].guid, ga);
			rbuf_printf(&ctx->ev, "; matched_by_description=%s", ga);
		}
	}
	if (a != FAB_NONE && b != FAB_NONE)
		return rule_emit_port(ctx, a, b, rbuf_str(&ctx->ev), "%s", rbuf_str(&ctx->tmp));
	/* an end is not in the scan: named by the reference's GUIDs and names */
	rbuf_reset(&ctx->scratch);
	ref_port_name(&ctx->scratch, m, ra);
	rbuf_printf(&ctx->scratch, " <-> ");
	ref_port_name(&ctx->scratch, m, rb);
	fab_guid_format(r->nodes[r->ports[ra].node_idx].guid, ga);
	fab_guid_format(r->nodes[r->ports[rb].node_idx].guid, gb);
	snprintf(pa, sizeof(pa), "%u", r->ports[ra].port_num);
	snprintf(pb, sizeof(pb), "%u", r->ports[rb].port_num);
	return rule_emit_raw(ctx, ga, pa, gb, pb, rbuf_str(&ctx->scratch), rbuf_str(&ctx->ev),
			     "%s", rbuf_str(&ctx->tmp));
}

/* The scan could not see whether this end is cabled. */
static bool unseen(const struct fab_snapshot *s, uint32_t p)
{
	return p != FAB_NONE && (s->ports[p].flags & (FAB_F_NO_REMOTE | FAB_F_SMP_FAILED));
}

int check_expect(struct fab_rule_ctx *ctx)
{
	struct match m = { .s = ctx->snap, .r = ctx->ref };
	int err = 0;

	if (!m.r)
		return 0;
	if ((err = classify(&m))) {
		err = fab_err(err, "out of memory comparing with the reference");
		goto out;
	}
	switch (ctx->rule->arg) {
	case EXPECT_MISSING:
		for (size_t i = 0; i < m.r->n_links && !err; i++) {
			const struct fab_link *l = &m.r->links[i];
			uint32_t a, b;

			if (m.r_ok[l->a])
				continue;
			a = across(m.r, m.s, m.r2s, l->a);
			b = across(m.r, m.s, m.r2s, l->b);
			if ((a != FAB_NONE && m.s_mis[a]) || (b != FAB_NONE && m.s_mis[b]) ||
			    unseen(m.s, a) || unseen(m.s, b))
				continue;
			err = emit_missing(ctx, &m, l->a, l->b, a, b);
		}
		break;
	case EXPECT_UNEXPECTED:
	case EXPECT_MISWIRED:
		for (size_t i = 0; i < m.s->n_links && !err; i++) {
			const struct fab_link *l = &m.s->links[i];

			if (m.s_ok[l->a])
				continue;
			if (ctx->rule->arg == EXPECT_MISWIRED && m.s_mis[l->a])
				err = emit_miswired(ctx, &m, l->a, l->b);
			else if (ctx->rule->arg == EXPECT_UNEXPECTED && !m.s_mis[l->a])
				err = emit_unexpected(ctx, &m, l->a, l->b);
		}
		break;
	}
out:
	match_free(&m);
	return err;
}
