// SPDX-License-Identifier: MIT
/*
 * The votes of the rules that compare a port with what most of the fabric
 * does (include/fabsweep/roce.h, struct fab_roce_votes): the trust state
 * and the CNP DSCP and priority of each RoCE interface (roce.trust_mismatch,
 * roce.cnp_mismatch), the speed of each link of a tier (eth.speed_mismatch).
 * Counted once per run into the shared view, with the votes of what a part
 * of a fabric leaves out added (a readiness extract), and for the extract's
 * writer (fab_rules_roce_votes).
 */
#include <errno.h>
#include <stdlib.h>

#include "fabsweep/error.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

unsigned roce_sys_role(const struct fab_roce *r, uint32_t port)
{
	uint32_t s = r->eth_ports[port].system_idx;

	return s < r->n_systems ? r->systems[s].role : FAB_ROLE_UNKNOWN;
}

bool roce_link_speed(const struct fab_roce *r, const struct fab_eth_link *l, int32_t *mbps)
{
	const struct fab_eth_port *a = &r->eth_ports[l->a], *b = &r->eth_ports[l->b];

	if (a->speed_mbps <= 0 || b->speed_mbps <= 0 || (a->flags & FAB_ETH_F_STUB) ||
	    (b->flags & FAB_ETH_F_STUB))
		return false;
	*mbps = a->speed_mbps < b->speed_mbps ? a->speed_mbps : b->speed_mbps;
	return true;
}

static int cmp_speed_vote(const void *x, const void *y)
{
	const struct fab_roce_speed_vote *a = x, *b = y;

	if (a->role_a != b->role_a)
		return a->role_a < b->role_a ? -1 : 1;
	if (a->role_b != b->role_b)
		return a->role_b < b->role_b ? -1 : 1;
	return a->mbps < b->mbps ? -1 : a->mbps > b->mbps;
}

/* The view's own votes (not the outside's) into a new *out. */
static int count_own(const struct roce_view *v, struct fab_roce_votes **out)
{
	const struct fab_roce *r = v->r;
	struct fab_roce_votes *x = calloc(1, sizeof(*x));
	size_t n = 0;

	if (!x || !(x->speeds = malloc((r->n_links + 1) * sizeof(*x->speeds)))) {
		fab_roce_votes_free(x);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		const struct fab_ecn *e = &r->eth_ports[i].ecn;

		if (!roce_port(v, (uint32_t)i))
			continue;
		x->trust[fab_eth_port_trust(r, &r->eth_ports[i])]++;
		if ((e->known & FAB_ECN_CNP_DSCP) && e->cnp_dscp < 64)
			x->cnp_dscp[e->cnp_dscp]++;
		if ((e->known & FAB_ECN_CNP_PRIO) && e->cnp_prio < FAB_PRIOS)
			x->cnp_prio[e->cnp_prio]++;
	}
	x->trust[FAB_TRUST_UNKNOWN] = 0; /* not a vote */
	for (size_t i = 0; i < r->n_links; i++) {
		unsigned ra = roce_sys_role(r, r->links[i].a), rb = roce_sys_role(r, r->links[i].b);
		int32_t mbps;

		if (!roce_link_speed(r, &r->links[i], &mbps))
			continue;
		if (ra >= FAB_ROLE__COUNT)
			ra = FAB_ROLE_UNKNOWN;
		if (rb >= FAB_ROLE__COUNT)
			rb = FAB_ROLE_UNKNOWN;
		x->speeds[n++] = (struct fab_roce_speed_vote){ (uint8_t)(ra < rb ? ra : rb),
							       (uint8_t)(ra < rb ? rb : ra), mbps, 1 };
	}
	qsort(x->speeds, n, sizeof(*x->speeds), cmp_speed_vote);
	/* runs of equal (tier, speed) into one vote each */
	for (size_t i = 0; i < n; i++) {
		if (x->n_speeds && !cmp_speed_vote(&x->speeds[x->n_speeds - 1], &x->speeds[i]))
			x->speeds[x->n_speeds - 1].links++;
		else
			x->speeds[x->n_speeds++] = x->speeds[i];
	}
	*out = x;
	return 0;
}

int roce_votes(const struct roce_view *v, bool with_outside, struct fab_roce_votes **out)
{
	struct fab_roce_votes *own = NULL;
	int err;

	if ((err = count_own(v, &own)))
		return err;
	if (!with_outside || !v->r->outside) {
		*out = own;
		return 0;
	}
	err = fab_roce_votes_add(own, v->r->outside, out);
	fab_roce_votes_free(own);
	return err;
}

int fab_rules_roce_votes(const struct fab_snapshot *s, struct fab_roce_votes **out)
{
	struct roce_view v;
	int err;

	if (!s->roce)
		return fab_err(-EINVAL, "the snapshot has no RoCE part");
	if ((err = roce_view_init(s, &v)))
		return err;
	err = count_own(&v, out);
	roce_view_fini(&v);
	return err ? fab_err(err, "out of memory counting the RoCE votes") : 0;
}
