// SPDX-License-Identifier: MIT
/*
 * `check --summary` (include/fabsweep/report.h): a checked snapshot's
 * findings counted by rule and by node, for the terminal (cli/print_check.c)
 * and --json (reports/json_check.c) alike. A real fabric's run gives
 * hundreds of findings; these say which rules and which nodes they are
 * about. One sort of the findings by (node, rule): O(F log F).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"

static int strcmp0(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL); /* no node (fabric-wide) first */
	return strcmp(a, b);
}

struct sort_ctx {
	const struct fab_finding *f;
};

static int cmp_node_rule(const void *x, const void *y, void *arg)
{
	const struct fab_finding *f = ((const struct sort_ctx *)arg)->f;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = strcmp0(f[a].node, f[b].node);

	if (!c)
		c = strcmp0(f[a].rule_id, f[b].rule_id);
	return c ? c : (a > b) - (a < b);
}

static int cmp_rule(const void *x, const void *y, void *arg)
{
	const struct fab_finding *f = ((const struct sort_ctx *)arg)->f;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = strcmp0(f[a].rule_id, f[b].rule_id);

	if (!c)
		c = strcmp0(f[a].node, f[b].node);
	return c ? c : (a > b) - (a < b);
}

/* worst first, then the most findings, then the name */
static int cmp_group(unsigned wa, size_t na, const char *ia, unsigned wb, size_t nb, const char *ib)
{
	if (wa != wb)
		return wa > wb ? -1 : 1;
	if (na != nb)
		return na > nb ? -1 : 1;
	return strcmp0(ia, ib);
}

static int cmp_rules(const void *x, const void *y)
{
	const struct fab_summary_rule *a = x, *b = y;

	return cmp_group(a->worst, a->findings, a->rule_id, b->worst, b->findings, b->rule_id);
}

static int cmp_nodes(const void *x, const void *y)
{
	const struct fab_summary_node *a = x, *b = y;
	int c = cmp_group(a->worst, a->findings, a->name, b->worst, b->findings, b->name);

	return c ? c : strcmp0(a->node, b->node);
}

static int cmp_counts(const void *x, const void *y)
{
	const struct fab_summary_count *a = x, *b = y;

	return cmp_group(a->worst, a->findings, a->rule_id, b->worst, b->findings, b->rule_id);
}

void fab_report_summary_free(struct fab_check_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_nodes; i++)
		free(s->nodes[i].name_buf);
	free(s->rules);
	free(s->nodes);
	free(s->counts);
	free(s);
}

/* The rules: one pass over the findings sorted by rule, then node. */
static void by_rule(struct fab_check_summary *s, const struct fab_finding *f, const uint32_t *v,
		    size_t n)
{
	for (size_t i = 0; i < n;) {
		struct fab_summary_rule *r = &s->rules[s->n_rules++];
		size_t j = i;

		*r = (struct fab_summary_rule){ .rule_id = f[v[i]].rule_id };
		for (; j < n && !strcmp0(f[v[j]].rule_id, r->rule_id); j++) {
			const struct fab_finding *x = &f[v[j]];
			r->findings++;
			if (x->severity < FAB_SEV__COUNT)
				r->by_severity[x->severity]++;
			if (x->severity > r->worst)
				r->worst = x->severity;
			if (x->node && (j == i || strcmp0(f[v[j - 1]].node, x->node)))
				r->nodes++;
		}
		i = j;
	}
	qsort(s->rules, s->n_rules, sizeof(*s->rules), cmp_rules);
}

/* The nodes and each one's rules: one pass over the findings sorted by
 * node, then rule. */
static int by_node(struct fab_check_summary *s, const struct fab_snapshot *snap,
		   const struct fab_nodemap *map, const uint32_t *v, size_t n)
{
	const struct fab_finding *f = snap->findings;

	for (size_t i = 0; i < n;) {
		struct fab_summary_node *nd = &s->nodes[s->n_nodes++];
		char nb[FAB_NODE_NAME_CAP];
		const char *name;
		size_t j = i;

		*nd = (struct fab_summary_node){ .node = f[v[i]].node, .first = s->n_counts };
		name = fab_finding_node_name(map, snap, nd->node, nb, sizeof(nb));
		if (name == nb) {
			if (!(nd->name_buf = strdup(nb)))
				return -ENOMEM;
			name = nd->name_buf;
		}
		nd->name = name;
		while (j < n && !strcmp0(f[v[j]].node, nd->node)) {
			struct fab_summary_count *c = &s->counts[s->n_counts++];

			*c = (struct fab_summary_count){ .rule_id = f[v[j]].rule_id };
			for (; j < n && !strcmp0(f[v[j]].node, nd->node) &&
			       !strcmp0(f[v[j]].rule_id, c->rule_id);
			     j++) {
				const struct fab_finding *x = &f[v[j]];
				c->findings++;
				if (x->severity > c->worst)
					c->worst = x->severity;
				if (x->severity < FAB_SEV__COUNT)
					nd->by_severity[x->severity]++;
			}
			nd->findings += c->findings;
			if (c->worst > nd->worst)
				nd->worst = c->worst;
			nd->n_rules++;
		}
		qsort(s->counts + nd->first, nd->n_rules, sizeof(*s->counts), cmp_counts);
		i = j;
	}
	qsort(s->nodes, s->n_nodes, sizeof(*s->nodes), cmp_nodes);
	return 0;
}

int fab_report_summary(const struct fab_snapshot *snap, const struct fab_nodemap *map,
		       struct fab_check_summary **out)
{
	size_t n = snap->n_findings;
	struct fab_check_summary *s = calloc(1, sizeof(*s));
	uint32_t *v = malloc((n + 1) * sizeof(*v));
	struct sort_ctx c = { snap->findings };
	int err = 0;

	if (s) {
		s->rules = calloc(n + 1, sizeof(*s->rules));
		s->nodes = calloc(n + 1, sizeof(*s->nodes));
		s->counts = calloc(n + 1, sizeof(*s->counts));
	}
	if (!s || !v || !s->rules || !s->nodes || !s->counts) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	qsort_r(v, n, sizeof(*v), cmp_rule, &c);
	by_rule(s, snap->findings, v, n);
	qsort_r(v, n, sizeof(*v), cmp_node_rule, &c);
	err = by_node(s, snap, map, v, n);
out:
	free(v);
	if (err) {
		fab_report_summary_free(s);
		return fab_err(err, "out of memory summarising the findings");
	}
	*out = s;
	return 0;
}
