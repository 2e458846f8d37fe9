// SPDX-License-Identifier: MIT
/*
 * The votes of the majority rules (include/fabsweep/roce.h, struct
 * fab_roce_votes): adding and subtracting them. Counting them is the
 * rules' (rules/roce_votes.c): what a vote is, is theirs to say.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/roce.h"

void fab_roce_votes_free(struct fab_roce_votes *v)
{
	if (!v)
		return;
	free(v->speeds);
	free(v);
}

static int cmp_speed(const struct fab_roce_speed_vote *a, const struct fab_roce_speed_vote *b)
{
	if (a->role_a != b->role_a)
		return a->role_a < b->role_a ? -1 : 1;
	if (a->role_b != b->role_b)
		return a->role_b < b->role_b ? -1 : 1;
	return a->mbps < b->mbps ? -1 : a->mbps > b->mbps;
}

static uint32_t combine(uint32_t x, uint32_t y, int sign)
{
	if (sign > 0)
		return x > UINT32_MAX - y ? UINT32_MAX : x + y;
	return x > y ? x - y : 0;
}

/* a + sign * b, both sorted speed lists merged in one pass. */
static int combine_votes(const struct fab_roce_votes *a, const struct fab_roce_votes *b, int sign,
			 struct fab_roce_votes **out)
{
	static const struct fab_roce_votes none;
	struct fab_roce_votes *v = calloc(1, sizeof(*v));

	if (!a)
		a = &none;
	if (!b)
		b = &none;
	if (!v || !(v->speeds = malloc((a->n_speeds + b->n_speeds + 1) * sizeof(*v->speeds)))) {
		fab_roce_votes_free(v);
		return -ENOMEM;
	}
	for (size_t k = 0; k < FAB_TRUST__COUNT; k++)
		v->trust[k] = combine(a->trust[k], b->trust[k], sign);
	for (size_t k = 0; k < 64; k++)
		v->cnp_dscp[k] = combine(a->cnp_dscp[k], b->cnp_dscp[k], sign);
	for (size_t k = 0; k < FAB_PRIOS; k++)
		v->cnp_prio[k] = combine(a->cnp_prio[k], b->cnp_prio[k], sign);
	size_t i = 0, j = 0;
	while (i < a->n_speeds || j < b->n_speeds) {
		int c = i == a->n_speeds ? 1 : j == b->n_speeds ? -1 : cmp_speed(&a->speeds[i], &b->speeds[j]);
		struct fab_roce_speed_vote x = c <= 0 ? a->speeds[i] : b->speeds[j];

		x.links = c < 0 ? a->speeds[i].links
			  : c > 0 ? combine(0, b->speeds[j].links, sign)
				  : combine(a->speeds[i].links, b->speeds[j].links, sign);
		i += c <= 0;
		j += c >= 0;
		if (x.links)
			v->speeds[v->n_speeds++] = x;
	}
	*out = v;
	return 0;
}

int fab_roce_votes_add(const struct fab_roce_votes *a, const struct fab_roce_votes *b,
		       struct fab_roce_votes **out)
{
	return combine_votes(a, b, 1, out);
}

int fab_roce_votes_sub(const struct fab_roce_votes *a, const struct fab_roce_votes *b,
		       struct fab_roce_votes **out)
{
	return combine_votes(a, b, -1, out);
}
