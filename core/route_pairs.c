// SPDX-License-Identifier: MIT
/*
 * Every pair of a set of ends (include/fabsweep/routing.h,
 * fab_route_pairs_check): one walk per destination LID (every LID of each
 * destination port's LMC range, fab_route_dests) gives every switch's
 * fate toward it (core/route_walk.c); the sources are grouped by the switch
 * they are cabled to, so a destination costs one step per switch plus one
 * look per switch that has a source, and a pair is touched only when it is
 * broken. 1,000 hosts (a million ordered pairs) on Selene's 666 switches are
 * 1,000 walks, never a million traces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

void fab_route_pairs_free(struct fab_route_pairs *p)
{
	free(p->bad);
	memset(p, 0, sizeof(*p));
}

static int keep(struct fab_route_pairs *p, uint32_t src, uint32_t dst, uint16_t dlid,
		const struct fab_route_walk *w, uint32_t sw)
{
	if (p->n_bad == p->cap_bad) {
		size_t cap = p->cap_bad ? 2 * p->cap_bad : 64;
		struct fab_route_pair *v = realloc(p->bad, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->bad = v;
		p->cap_bad = cap;
	}
	p->bad[p->n_bad++] = (struct fab_route_pair){
		.src = src, .dst = dst, .dlid = dlid, .fault = w->fault[sw], .at = w->at[sw],
	};
	return 0;
}

int fab_route_pairs_check(const struct fab_route_index *ix, const uint32_t *ends, size_t n,
			  bool keep_bad, struct fab_route_pairs *out)
{
	const struct fab_snapshot *s = ix->snap;
	struct fab_route_pairs p = { 0 };
	struct fab_route_walk w = { 0 };
	/* the sources grouped by their switch: first[k]..first[k + 1] of src
	 * belong to used[k] */
	uint32_t *at_sw = calloc(ix->n_sw + 1, sizeof(*at_sw));
	uint32_t *used = malloc((n + 1) * sizeof(*used)), n_used = 0;
	uint32_t *first = malloc((n + 2) * sizeof(*first));
	uint32_t *src = malloc((n + 1) * sizeof(*src)), *cur = NULL;
	int err = fab_route_walk_init(ix, &w);

	memset(out, 0, sizeof(*out));
	if (err || !at_sw || !used || !first || !src) {
		err = -ENOMEM;
		goto out;
	}
	/* at_sw[sw]: 1 + the switch's place in used[], 0 when it has none */
	for (size_t i = 0; i < n; i++) {
		uint32_t sw = fab_route_first_switch(ix, ends[i]);
		uint16_t lid;
		if (sw == FAB_NONE || !fab_route_port_lids(s, ends[i], &lid)) {
			err = -EINVAL; /* not an end of the index */
			goto out;
		}
		if (!at_sw[sw]) {
			used[n_used] = sw;
			at_sw[sw] = ++n_used;
		}
	}
	memset(first, 0, (n_used + 2) * sizeof(*first));
	for (size_t i = 0; i < n; i++)
		first[at_sw[fab_route_first_switch(ix, ends[i])]]++;
	for (uint32_t k = 0; k < n_used; k++)
		first[k + 1] += first[k];
	if (!(cur = malloc((n_used + 1) * sizeof(*cur)))) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(cur, first, n_used * sizeof(*cur));
	for (size_t i = 0; i < n; i++)
		src[cur[at_sw[fab_route_first_switch(ix, ends[i])] - 1]++] = ends[i];

	/* every LID of each destination's range is a destination of its own */
	struct fab_route_dests d;
	for (fab_route_dests_start(&d, s, ends, n); fab_route_dests_next(&d);) {
		uint32_t dst = d.port, dst_sw = fab_route_first_switch(ix, dst);
		uint16_t dlid = d.lid;

		if (dlid == d.base)
			p.n_pairs += n - 1;
		fab_route_walk_to(ix, &w, dlid);
		for (uint32_t k = 0; k < n_used; k++) {
			uint32_t sw = used[k], a = first[k], b = first[k + 1];
			uint8_t f = w.fault[sw];

			if (f == FAB_ROUTE_OK) { /* the usual case: count, touch no pair */
				uint32_t c = b - a - (sw == dst_sw);
				p.n_routes += c;
				/* the source's link to its switch, then the switch's */
				p.hops[w.hops[sw] + 1u > FAB_ROUTE_MAX_HOPS ? FAB_ROUTE_MAX_HOPS
									    : w.hops[sw] + 1u] += c;
				continue;
			}
			for (uint32_t i = a; i < b; i++) {
				if (src[i] == dst)
					continue;
				p.n_routes++;
				if (f == FAB_ROUTE_UNKNOWN)
					p.n_unknown++;
				else
					p.n_broken++;
				if (keep_bad && (err = keep(&p, src[i], dst, dlid, &w, sw)))
					goto out;
			}
		}
	}
out:
	free(at_sw);
	free(used);
	free(first);
	free(src);
	free(cur);
	fab_route_walk_fini(&w);
	if (err)
		fab_route_pairs_free(&p);
	else
		*out = p;
	return err;
}
