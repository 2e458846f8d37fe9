// SPDX-License-Identifier: MIT
/*
 * The reports' routing section, worked out once for both formats
 * (reports/model.h): every CA-to-CA route counted by its links
 * (core/route_pairs.c, one walk per destination), the routing findings by
 * rule, and the switches whose tables changed since the baseline, as the
 * diff found them (core/diff.c: the same "routes" changes `fabsweep diff`
 * and the Changes section show).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/diff.h"
#include "fabsweep/error.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "model.h"

static void count_rules(const struct fab_snapshot *s, struct fab_report_routing *r)
{
	for (size_t i = 0; i < s->n_findings; i++) {
		const char *id = s->findings[i].rule_id;
		size_t k = 0;

		if (!id || strncmp(id, "routing.", 8))
			continue;
		while (k < r->n_rules && strcmp(r->rules[k].rule, id))
			k++;
		if (k == r->n_rules) {
			if (k == FAB_REPORT_ROUTING_RULES)
				continue;
			r->rules[r->n_rules++].rule = id;
		}
		r->rules[k].count++;
	}
	/* by id: the same order in every report */
	for (size_t a = 1; a < r->n_rules; a++)
		for (size_t b = a; b > 0 && strcmp(r->rules[b - 1].rule, r->rules[b].rule) > 0; b--) {
			const char *t = r->rules[b].rule;
			size_t c = r->rules[b].count;
			r->rules[b] = r->rules[b - 1];
			r->rules[b - 1].rule = t;
			r->rules[b - 1].count = c;
		}
}

int fab_report_routing_build(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			     const struct fab_report_diff *d, struct fab_report_routing *out)
{
	struct fab_route_index ix;
	int err;

	memset(out, 0, sizeof(*out));
	count_rules(snap, out);
	if (!(out->present = fab_routing_present(snap)))
		return 0;
	out->compared = base && fab_routing_present(base) && d->fabric;
	if (out->compared)
		out->n_changed = d->fabric->count[FAB_CHG_ROUTES];
	if ((err = fab_route_index_build(snap, &ix)))
		return fab_err(err, "out of memory building the report");
	out->n_ends = ix.n_ends;
	err = fab_route_pairs_check(&ix, ix.ends, ix.n_ends, false, &out->pairs);
	fab_route_index_free(&ix);
	if (err)
		return fab_err(err, "out of memory building the report");
	for (unsigned k = 0; k <= FAB_ROUTE_MAX_HOPS; k++)
		if (out->pairs.hops[k])
			out->max_links = k;
	return 0;
}

void fab_report_routing_free(struct fab_report_routing *r)
{
	fab_route_pairs_free(&r->pairs);
	memset(r, 0, sizeof(*r));
}
