// SPDX-License-Identifier: MIT
/*
 * The HTML report's topology: one inline SVG, a row of boxes per tier
 * (hosts grouped under their leaf), links drawn between the rows, colours
 * from the worst finding of each node and link.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "html.h"

/* A row of boxes in the picture. */
struct row {
	unsigned tier;
	uint32_t *nodes; /* node indices, display order */
	size_t n;
	double y, h, cell, bw; /* top, box height, cell width, box width */
	bool narrow;
};

/* Hosts behind one leaf (or the ones behind no leaf). */
struct hgroup {
	uint32_t leaf; /* FAB_NONE: hosts not cabled to a leaf */
	unsigned n[FAB_SEV__COUNT + 1]; /* per FAB_MARK */
	unsigned total;
	uint8_t worst;
	uint32_t bad[3]; /* first flagged hosts */
	unsigned n_bad;
};

struct pair {
	uint32_t up, down; /* node indices */
	uint32_t n;        /* parallel links */
	uint8_t mark;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->up != y->up)
		return x->up < y->up ? -1 : 1;
	return (x->down > y->down) - (x->down < y->down);
}

static const char *tier_title(unsigned tier)
{
	switch (tier) {
	case FAB_ROLE_CORE: return "cores";
	case FAB_ROLE_SPINE: return "spines";
	case FAB_ROLE_LEAF: return "leaves";
	default: return "other switches";
	}
}

#define SVG_MIN_WIDTH 1150.0
#define SVG_MIN_CELL 16.0
#define SVG_MARGIN 16.0
#define SVG_GUTTER 96.0 /* left of the rows: tier names */
#define SVG_ROW_GAP 120.0

static void place_row(struct row *rw, double width)
{
	rw->cell = (width - SVG_GUTTER - SVG_MARGIN) / (double)(rw->n ? rw->n : 1);
	rw->bw = rw->cell - 4 > 150 ? 150 : rw->cell - 4;
	rw->narrow = rw->bw < 56;
	rw->h = rw->narrow ? 78 : 28;
}

static double cell_x(const struct row *rw, size_t i)
{
	return SVG_GUTTER + rw->cell * ((double)i + 0.5);
}

/* Tier name and count in the gutter, level with a row. */
static void tier_label(struct fab_hw *w, const char *name, size_t n, double y, double h)
{
	fab_hw_fmt(w, "<text class=\"tier\" x=\"%.0f\" y=\"%.1f\">%s</text>"
		      "<text class=\"small\" x=\"%.0f\" y=\"%.1f\">%zu</text>\n",
		   SVG_MARGIN, y + h / 2 - 1, name, SVG_MARGIN, y + h / 2 + 12, n);
}

/* The label of a node inside its box, cut to fit. */
static void box_label(struct fab_hw *w, const struct hr *r, const struct row *rw, uint32_t n, double x)
{
	char g[FAB_NODE_NAME_CAP];
	const char *label = fab_report_node_label(r->s, n, g);

	if (rw->narrow) {
		double ty = rw->y + rw->h - 6;
		fab_hw_fmt(w, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\">", x + 4,
			   ty, x + 4, ty);
		fab_hw_text_cut(w, label, 11);
	} else {
		size_t chars = (size_t)((rw->bw - 8) / 6.3);
		fab_hw_fmt(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, rw->y + 18);
		fab_hw_text_cut(w, label, chars ? chars : 1);
	}
	fab_hw_raw(w, "</text>");
}

static void node_title(struct fab_hw *w, const struct hr *r, uint32_t n)
{
	const struct fab_node *nd = &r->s->nodes[n];
	char g[FAB_GUID_STRLEN], nb[FAB_NODE_NAME_CAP];

	fab_guid_format(nd->guid, g);
	fab_hw_raw(w, "<title>");
	fab_hw_text(w, fab_report_node_label(r->s, n, nb));
	fab_hw_fmt(w, "\n%s &middot; LID %u &middot; %s", g, nd->lid, fab_role_name(r->m->tier[n]));
	if (r->m->node_mark[n])
		fab_hw_fmt(w, "\nworst finding: %s (%u naming it)", sev_name(r->m->node_mark[n] - 1u),
			   r->node_findings[n]);
	fab_hw_raw(w, "</title>");
}

static void write_boxes(struct hr *r, const struct row *rw)
{
	struct fab_hw *w = &r->w;

	for (size_t i = 0; i < rw->n && !w->err; i++) {
		uint32_t n = rw->nodes[i];
		double x = cell_x(rw, i);
		fab_hw_fmt(w, "<g><rect class=\"n%u\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\"/>",
			   r->m->node_mark[n], x - rw->bw / 2, rw->y, rw->bw, rw->h);
		box_label(w, r, rw, n, x - (rw->narrow ? 0 : 0));
		node_title(w, r, n);
		fab_hw_raw(w, "</g>\n");
	}
}

static void write_group(struct hr *r, const struct row *rw, size_t i, const struct hgroup *g, double y)
{
	struct fab_hw *w = &r->w;
	double x = cell_x(rw, i), bw = rw->bw, h = rw->narrow ? 64 : 22;
	static const unsigned order[] = { 3, 2, 1, 0 }; /* worst on top / left */

	fab_hw_fmt(w, "<g><rect class=\"hg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"2\"/>",
		   x - bw / 2, y, bw, h);
	double at = 0, len = rw->narrow ? h - 2 : bw - 2;
	for (size_t k = 0; k < 4; k++) {
		unsigned mk = order[k];
		if (!g->n[mk] || !g->total)
			continue;
		double seg = len * g->n[mk] / g->total;
		if (mk && seg < 3)
			seg = 3; /* one flagged host among many stays visible */
		if (!mk || seg > len - at)
			seg = len - at; /* hosts without findings: what is left */
		if (seg <= 0)
			continue;
		if (rw->narrow)
			fab_hw_fmt(w, "<rect class=\"b%u\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
				   mk, x - bw / 2 + 1, y + 1 + at, bw - 2, seg);
		else
			fab_hw_fmt(w, "<rect class=\"b%u\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
				   mk, x - bw / 2 + 1 + at, y + 1, seg, h - 2);
		at += seg;
	}
	if (rw->narrow)
		fab_hw_fmt(w, "<text class=\"small\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%u</text>", x,
			   y + h + 11, g->total);
	else
		fab_hw_fmt(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%u host%s%s</text>", x, y + 15,
			   g->total, g->total == 1 ? "" : "s", g->leaf == FAB_NONE ? ", no leaf" : "");
	fab_hw_raw(w, "<title>");
	if (g->leaf != FAB_NONE) {
		char gb[FAB_NODE_NAME_CAP];
		fab_hw_raw(w, "behind ");
		fab_hw_text(w, fab_report_node_label(r->s, g->leaf, gb));
	} else {
		fab_hw_raw(w, "hosts not cabled to a leaf");
	}
	fab_hw_fmt(w, ": %u host%s, %u without findings", g->total, g->total == 1 ? "" : "s", g->n[0]);
	for (unsigned mk = 3; mk >= 1; mk--)
		if (g->n[mk])
			fab_hw_fmt(w, ", %u %s", g->n[mk], sev_name(mk - 1));
	for (unsigned k = 0; k < g->n_bad; k++) {
		char gb[FAB_NODE_NAME_CAP];
		fab_hw_raw(w, k ? ", " : "\nflagged: ");
		fab_hw_text(w, fab_report_node_label(r->s, g->bad[k], gb));
	}
	if (g->n_bad < g->total - g->n[0])
		fab_hw_raw(w, ", ...");
	fab_hw_raw(w, "</title></g>\n");
}

void fab_html_topology(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_snapshot *s = r->s;
	const struct fab_report_model *m = r->m;
	/* the order of fab_html_sorted_switches(); switches without a tier come last and
	 * are drawn below the hosts */
	static const unsigned tiers[] = { FAB_ROLE_CORE, FAB_ROLE_SPINE, FAB_ROLE_LEAF, FAB_ROLE_UNKNOWN };
	struct row rows[4] = { 0 };
	size_t n_sw = 0, n_rows = 0, n_pairs = 0, n_groups = 0;
	uint32_t *sw = fab_html_sorted_switches(r, &n_sw);
	uint32_t *group_of = malloc((s->n_nodes + 1) * sizeof(*group_of)); /* leaf -> group */
	double *xs = malloc((s->n_nodes + 1) * sizeof(*xs));
	int8_t *row_of = malloc(s->n_nodes + 1);
	struct hgroup *groups = calloc(m->n_tier[FAB_ROLE_LEAF] + 2, sizeof(*groups));
	struct pair *pairs = malloc((s->n_links + 1) * sizeof(*pairs));

	fab_hw_raw(w, "<section id=\"topology\">\n<h2>Topology</h2>\n");
	if (!sw || !group_of || !xs || !row_of || !groups || !pairs) {
		w->err = -ENOMEM;
		goto out;
	}
	memset(row_of, -1, s->n_nodes + 1);
	for (size_t t = 0, at = 0; t < 4; t++) {
		struct row *rw = &rows[n_rows];
		rw->tier = tiers[t];
		rw->nodes = sw + at;
		while (at < n_sw && m->tier[sw[at]] == tiers[t])
			at++, rw->n++;
		if (rw->n)
			n_rows++;
	}
	/* host groups, one per leaf in leaf order, then the rest */
	struct row *leaves = NULL, *others = NULL;
	for (size_t i = 0; i < n_rows; i++) {
		if (rows[i].tier == FAB_ROLE_LEAF)
			leaves = &rows[i];
		if (rows[i].tier == FAB_ROLE_UNKNOWN)
			others = &rows[i];
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		group_of[i] = FAB_NONE;
	for (size_t i = 0; leaves && i < leaves->n; i++) {
		groups[n_groups].leaf = leaves->nodes[i];
		group_of[leaves->nodes[i]] = (uint32_t)n_groups++;
	}
	size_t other = n_groups;
	groups[other].leaf = FAB_NONE;
	for (size_t i = 0; i < s->n_nodes; i++) {
		if (m->tier[i] != FAB_ROLE_HOST)
			continue;
		uint32_t gi = m->leaf_of[i] != FAB_NONE ? group_of[m->leaf_of[i]] : (uint32_t)other;
		struct hgroup *g = &groups[gi];
		uint8_t mk = m->node_mark[i];
		const struct fab_node *nd = &s->nodes[i];
		for (uint32_t p = 0; p < nd->port_count; p++) {
			uint32_t rp = s->ports[nd->port_first + p].remote_idx;
			if (rp < s->n_ports)
				mk = max8(mk, m->port_mark[rp]);
		}
		g->n[mk]++;
		g->total++;
		g->worst = max8(g->worst, mk);
		if (mk && g->n_bad < 3)
			g->bad[g->n_bad++] = (uint32_t)i;
	}
	size_t n_cells_leaf = n_groups + (groups[other].total ? 1 : 0);
	if (!n_rows && !groups[other].total) {
		fab_hw_raw(w, "<p class=\"muted\">The snapshot holds no nodes.</p>\n");
		goto out;
	}

	/* geometry */
	size_t widest = n_cells_leaf;
	for (size_t i = 0; i < n_rows; i++)
		if (rows[i].n > widest)
			widest = rows[i].n;
	double width = (double)widest * SVG_MIN_CELL + SVG_GUTTER + SVG_MARGIN;
	if (width < SVG_MIN_WIDTH)
		width = SVG_MIN_WIDTH;
	double y = 20;
	for (size_t i = 0; i < n_rows; i++) {
		struct row *rw = &rows[i];
		size_t cells = rw == leaves ? n_cells_leaf : rw->n;
		size_t n = rw->n;
		rw->n = cells;
		place_row(rw, width);
		rw->n = n;
		if (rw != others) {
			rw->y = y;
			y += rw->h + SVG_ROW_GAP;
		}
		for (size_t k = 0; k < rw->n; k++) {
			xs[rw->nodes[k]] = cell_x(rw, k);
			row_of[rw->nodes[k]] = (int8_t)i;
		}
	}
	struct row hrow = { .tier = FAB_ROLE_HOST, .n = n_cells_leaf ? n_cells_leaf : 1 };
	place_row(&hrow, width);
	if (leaves) {
		hrow = *leaves; /* host groups sit under their leaves */
		y = leaves->y + leaves->h + 36;
	}
	double hosts_y = y, group_h = hrow.narrow ? 64 : 22;
	double height = hosts_y + group_h + (hrow.narrow ? 22 : 14);
	if (others) {
		others->y = height + 40;
		height = others->y + others->h + 14;
	}

	/* links between switches, one line per pair of switches */
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];
		uint32_t a = s->ports[l->a].node_idx, b = s->ports[l->b].node_idx;
		if (row_of[a] < 0 || row_of[b] < 0 || a == b)
			continue;
		bool a_up = m->tier[a] > m->tier[b] || (m->tier[a] == m->tier[b] && a < b);
		pairs[n_pairs++] = (struct pair){ a_up ? a : b, a_up ? b : a, 1,
						  max8(m->port_mark[l->a], m->port_mark[l->b]) };
	}
	qsort(pairs, n_pairs, sizeof(*pairs), cmp_pair);
	size_t np = 0;
	for (size_t i = 0; i < n_pairs; i++) {
		if (np && pairs[np - 1].up == pairs[i].up && pairs[np - 1].down == pairs[i].down) {
			pairs[np - 1].n++;
			pairs[np - 1].mark = max8(pairs[np - 1].mark, pairs[i].mark);
		} else {
			pairs[np++] = pairs[i];
		}
	}
	n_pairs = np;

	fab_hw_raw(w, "<div class=\"legend\"><span><span class=\"sw\"></span>link without findings</span>"
		      "<span><span class=\"sw s1\"></span>info</span><span><span class=\"sw s2\"></span>warning</span>"
		      "<span><span class=\"sw s3\"></span>error</span><span><span class=\"sw h0\"></span>hosts without findings</span>"
		      "<span>Boxes are switches, coloured by the worst finding on them; bars under a leaf are its hosts. "
		      "Hover for names and counts.</span></div>\n<div class=\"svgwrap\">");
	fab_hw_fmt(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		      "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"fabric topology\">\n",
		   width, height, width, height);
	for (size_t i = 0; i < n_rows; i++) /* top to bottom */
		if (&rows[i] != others)
			tier_label(w, tier_title(rows[i].tier), rows[i].n, rows[i].y, rows[i].h);
	tier_label(w, "hosts", m->n_tier[FAB_ROLE_HOST], hosts_y, group_h);
	if (others)
		tier_label(w, tier_title(others->tier), others->n, others->y, others->h);
	/* lines, the worst drawn last so that they stay visible */
	for (unsigned mk = 0; mk <= FAB_SEV__COUNT; mk++) {
		for (size_t i = 0; i < n_pairs && !w->err; i++) {
			const struct pair *p = &pairs[i];
			if (p->mark != mk)
				continue;
			const struct row *ru = &rows[row_of[p->up]], *rd = &rows[row_of[p->down]];
			double y1 = ru == rd ? ru->y + ru->h / 2 : ru->y + ru->h, y2 = ru == rd ? rd->y + rd->h / 2 : rd->y;
			fab_hw_fmt(w, "<line class=\"l%u\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", mk,
				   xs[p->up], y1, xs[p->down], y2);
			if (!mk) {
				fab_hw_raw(w, "/>\n");
				continue;
			}
			char g[FAB_NODE_NAME_CAP];
			fab_hw_raw(w, "><title>");
			fab_hw_text(w, fab_report_node_label(s, p->up, g));
			fab_hw_raw(w, " \xe2\x80\x94 ");
			fab_hw_text(w, fab_report_node_label(s, p->down, g));
			fab_hw_fmt(w, ": %u link%s, worst finding %s</title></line>\n", p->n, p->n == 1 ? "" : "s",
				   sev_name(mk - 1u));
		}
	}
	for (size_t i = 0; i < n_cells_leaf && leaves; i++) {
		const struct hgroup *g = &groups[i];
		if (g->leaf == FAB_NONE || !g->total)
			continue;
		double x = cell_x(&hrow, i);
		fab_hw_fmt(w, "<line class=\"l%u\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", g->worst, x,
			   leaves->y + leaves->h, x, hosts_y);
	}
	for (size_t i = 0; i < n_rows; i++)
		write_boxes(r, &rows[i]);
	for (size_t i = 0; i < n_cells_leaf && !w->err; i++)
		if (groups[i].total)
			write_group(r, &hrow, i, &groups[i], hosts_y);
	fab_hw_raw(w, "</svg></div>\n");
out:
	fab_hw_raw(w, "</section>\n");
	free(sw);
	free(group_of);
	free(xs);
	free(row_of);
	free(groups);
	free(pairs);
}

