// SPDX-License-Identifier: MIT
/*
 * Readiness of pairs of hosts (include/fabsweep/probe.h): whether every
 * two hosts of a job share a partition they can talk in, from the P_Key
 * tables of the latest sweep (include/fabsweep/pkey.h). Pure.
 *
 * Hosts whose tables are equal (the store loads each distinct table once,
 * so equal tables are one pointer; a scan's are compared by content) form
 * a group; groups are compared pairwise, so a job of thousands of hosts
 * with a handful of distinct tables costs a handful of comparisons.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/pkey.h"
#include "fabsweep/probe.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

struct hrow {
	uint32_t host;
	const struct fab_port_pkeys *t;
};

static int cmp_table(const void *a, const void *b)
{
	const struct fab_port_pkeys *x = ((const struct hrow *)a)->t, *y = ((const struct hrow *)b)->t;
	int c;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	if ((c = memcmp(x->pkey, y->pkey, x->n * sizeof(*x->pkey))))
		return c;
	return ((const struct hrow *)a)->host < ((const struct hrow *)b)->host ? -1 : 1;
}

static bool same_table(const struct fab_port_pkeys *x, const struct fab_port_pkeys *y)
{
	return x->n == y->n && !memcmp(x->pkey, y->pkey, x->n * sizeof(*x->pkey));
}

int fab_ready_pairs_add(struct fab_ready_pairs *out, const struct fab_ready_pair *x)
{
	if (x->hop != FAB_NONE || x->fault)
		out->n_route_failing++;
	else
		out->n_failing++;
	if (out->n_listed == FAB_READY_PAIRS_LISTED)
		return 0;
	if (!out->failing && !(out->failing = calloc(FAB_READY_PAIRS_LISTED, sizeof(*out->failing))))
		return -ENOMEM;
	out->failing[out->n_listed++] = *x;
	return 0;
}

static int add_pair(struct fab_ready_pairs *out, uint32_t a, uint32_t b, bool lim)
{
	struct fab_ready_pair x = { .a = a < b ? a : b, .b = a < b ? b : a,
				    .verdict = FAB_READY_NOT_READY, .limited_only = lim,
				    .hop = FAB_NONE, .at = FAB_NONE };

	return fab_ready_pairs_add(out, &x);
}

void fab_ready_pairs_free(struct fab_ready_pairs *p)
{
	if (p) {
		free(p->failing);
		p->failing = NULL;
		p->n_listed = 0;
	}
}

int fab_ready_pairs(struct fab_ready *r, const struct fab_snapshot *v, unsigned want,
		    struct fab_ready_pairs *out)
{
	const struct fab_port_pkeys **tab = NULL;
	struct hrow *h = NULL;
	size_t n = 0, *gfirst = NULL, n_groups = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->want = want & FAB_PKEY_MASK;
	if (!fab_pkeys_present(v)) {
		out->note = "the sweep has no P_Key tables (scan --no-pkeys, or a scan before "
			    "partitions were read): pairs of hosts were not checked for a shared partition";
		return 0;
	}
	out->judged = true;
	tab = calloc(r->n_hosts + 1, sizeof(*tab));
	h = malloc((r->n_hosts + 1) * sizeof(*h));
	gfirst = malloc((r->n_hosts + 2) * sizeof(*gfirst));
	if (!tab || !h || !gfirst) {
		err = -ENOMEM;
		goto out;
	}
	/* each host's table: its first cabled port's with one */
	for (size_t i = 0; i < v->n_ports; i++) {
		const struct fab_port *p = &v->ports[i];
		uint32_t host = p->node_idx < r->n_nodes ? r->ca_of[p->node_idx] : 0;
		const struct fab_port_pkeys *t;

		if (!host || tab[host - 1] || !p->port_num || p->remote_idx == FAB_NONE ||
		    !(t = fab_pkeys_of(v, (uint32_t)i)) || t->status == FAB_LFT_FAILED)
			continue;
		tab[host - 1] = t;
	}
	for (size_t i = 0; i < r->n_hosts; i++) {
		if (tab[i])
			h[n++] = (struct hrow){ (uint32_t)i, tab[i] };
		else
			out->n_no_table++;
	}
	out->n_pairs = (uint64_t)n * (n ? n - 1 : 0) / 2;
	qsort(h, n, sizeof(*h), cmp_table);
	for (size_t i = 0; i < n; i++)
		if (!i || !same_table(h[i - 1].t, h[i].t))
			gfirst[n_groups++] = i;
	gfirst[n_groups] = n;
	for (size_t g = 0; g < n_groups && !err; g++)
		for (size_t k = g; k < n_groups && !err; k++) {
			bool lim;

			if (k == g && gfirst[g + 1] - gfirst[g] < 2)
				continue;
			if (fab_pkeys_shared(h[gfirst[g]].t, h[gfirst[k]].t, out->want, &lim) >= 0)
				continue;
			for (size_t x = gfirst[g]; x < gfirst[g + 1] && !err; x++) {
				r->verdict[h[x].host] = FAB_READY_NOT_READY;
				for (size_t y = k == g ? x + 1 : gfirst[k]; y < gfirst[k + 1] && !err; y++) {
					r->verdict[h[y].host] = FAB_READY_NOT_READY;
					err = add_pair(out, h[x].host, h[y].host, lim);
				}
			}
		}
out:
	free(tab);
	free(h);
	free(gfirst);
	if (err)
		fab_ready_pairs_free(out);
	return err;
}
