/* SPDX-License-Identifier: MIT */
/* Private to core/roce*.c: the index resolution and merge share. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fab_roce_names;

/* Hashes of keys to element indices (core/roce_index.c). */
struct fab_roce_hidx {
	uint64_t *hash;
	uint32_t *val; /* FAB_NONE: empty slot */
	size_t cap, n;
};

/* What a key names: its tag in the hash. */
enum { K_CHASSIS = 1, K_SYSNAME, K_PORT_ID, K_IFNAME, K_MAC, K_LINK };

/* FNV-1a of len bytes at p, continuing from h. */
uint64_t fab_roce_fnv(uint64_t h, const void *p, size_t len);
/* Key: a tag, a number and a string (case-folded when fold). */
uint64_t fab_roce_key_hash(unsigned tag, uint32_t num, const char *s, bool fold);
/* An unordered pair of indices (a link's two ends). */
uint64_t fab_roce_pair_hash(uint32_t a, uint32_t b);
void fab_roce_hidx_free(struct fab_roce_hidx *x);
int fab_roce_hidx_put(struct fab_roce_hidx *x, uint64_t h, uint32_t v);
/* Room for n values in all without growing again (a size known ahead). */
int fab_roce_hidx_reserve(struct fab_roce_hidx *x, size_t n);
/* Calls match(v, ctx) for every value stored under h until one says yes;
 * that value, or FAB_NONE. */
uint32_t fab_roce_hidx_get(const struct fab_roce_hidx *x, uint64_t h,
			   bool (*match)(uint32_t v, const void *ctx), const void *ctx);

/* An element's system (FAB_NONE or out of range: none). */
typedef uint32_t (*fab_roce_owner_fn)(const struct fab_roce *r, size_t i);
/* Elements 0..n-1 of r by their system, a counting sort: system s's are
 * list[off[s] .. off[s + 1]), those of none list[off[ns] .. off[ns + 1])
 * (ns = r->n_systems). *off and *list owned by the caller; 0 or -ENOMEM. */
int fab_roce_csr(const struct fab_roce *r, size_t n, fab_roce_owner_fn owner, uint32_t **off,
		 uint32_t **list);

/* Merge's index of collected system names and the pools of shared strings
 * and ranges, kept with the model across fab_roce_merge() calls and freed
 * with it (core/roce_merge.c). */
void fab_roce_names_free(struct fab_roce_names *x);
/* Drops the index of collected systems (their indices changed). */
void fab_roce_forget_systems(struct fab_roce *r);

static inline bool fab_roce_streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}
