// SPDX-License-Identifier: MIT
/*
 * A small index for the RoCE model's resolution and merge: 64-bit hashes
 * (FNV-1a) of keys to element indices, open addressing; the caller's match
 * function settles collisions. And the model's elements bucketed by system
 * (fab_roce_csr), which merge and the delta plan share.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "roce_priv.h"

uint64_t fab_roce_fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t fab_roce_key_hash(unsigned tag, uint32_t num, const char *s, bool fold)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char c;

	h = fab_roce_fnv(h, &tag, sizeof(tag));
	h = fab_roce_fnv(h, &num, sizeof(num));
	for (; s && *s; s++) {
		c = (unsigned char)*s;
		if (fold && c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		h = fab_roce_fnv(h, &c, 1);
	}
	return h;
}

void fab_roce_hidx_free(struct fab_roce_hidx *x)
{
	free(x->hash);
	free(x->val);
	memset(x, 0, sizeof(*x));
}

/* A table of cap slots (a power of two) with what x holds. */
static int rehash(struct fab_roce_hidx *x, size_t cap)
{
	struct fab_roce_hidx old = *x;

	x->hash = malloc(cap * sizeof(*x->hash));
	x->val = malloc(cap * sizeof(*x->val));
	if (!x->hash || !x->val) {
		free(x->hash);
		free(x->val);
		*x = old;
		return -ENOMEM;
	}
	x->cap = cap;
	x->n = 0;
	memset(x->val, 0xff, cap * sizeof(*x->val)); /* FAB_NONE */
	for (size_t i = 0; i < old.cap; i++)
		if (old.val[i] != FAB_NONE)
			fab_roce_hidx_put(x, old.hash[i], old.val[i]);
	free(old.hash);
	free(old.val);
	return 0;
}

int fab_roce_hidx_reserve(struct fab_roce_hidx *x, size_t n)
{
	size_t cap = x->cap ? x->cap : 256;

	while (n * 2 > cap)
		cap *= 2;
	return cap == x->cap ? 0 : rehash(x, cap);
}

int fab_roce_hidx_put(struct fab_roce_hidx *x, uint64_t h, uint32_t v)
{
	if ((x->n + 1) * 2 > x->cap && rehash(x, x->cap ? x->cap * 2 : 256))
		return -ENOMEM;
	size_t i = (size_t)h & (x->cap - 1);
	while (x->val[i] != FAB_NONE)
		i = (i + 1) & (x->cap - 1);
	x->hash[i] = h;
	x->val[i] = v;
	x->n++;
	return 0;
}

uint32_t fab_roce_hidx_get(const struct fab_roce_hidx *x, uint64_t h,
			   bool (*match)(uint32_t v, const void *ctx), const void *ctx)
{
	if (!x->cap)
		return FAB_NONE;
	for (size_t i = (size_t)h & (x->cap - 1); x->val[i] != FAB_NONE;
	     i = (i + 1) & (x->cap - 1))
		if (x->hash[i] == h && match(x->val[i], ctx))
			return x->val[i];
	return FAB_NONE;
}

uint64_t fab_roce_pair_hash(uint32_t a, uint32_t b)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
	uint64_t h = 0xcbf29ce484222325ull;

	h = fab_roce_fnv(h, &lo, sizeof(lo));
	return fab_roce_fnv(h, &hi, sizeof(hi));
}

int fab_roce_csr(const struct fab_roce *r, size_t n, fab_roce_owner_fn owner, uint32_t **off,
		 uint32_t **list)
{
	size_t ns = r->n_systems;
	uint32_t *o = calloc(ns + 3, sizeof(*o)), *l = malloc((n + 1) * sizeof(*l));

	if (!o || !l) {
		free(o);
		free(l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = owner(r, i);
		o[(s < ns ? s : ns) + 2]++;
	}
	for (size_t s = 0; s < ns + 1; s++)
		o[s + 2] += o[s + 1];
	for (size_t i = 0; i < n; i++) {
		uint32_t s = owner(r, i);
		l[o[(s < ns ? s : ns) + 1]++] = (uint32_t)i;
	}
	*off = o;
	*list = l;
	return 0;
}
