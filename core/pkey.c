// SPDX-License-Identifier: MIT
/*
 * The partition part of a snapshot (include/fabsweep/pkey.h): one P_Key
 * table per port the scan read, the tables in the part's own arena, and
 * the membership questions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "fabsweep/pkey.h"
#include "fabsweep/snapshot.h"

struct fab_pkeys *fab_pkeys_new(void)
{
	struct fab_pkeys *k = calloc(1, sizeof(*k));

	if (k && !(k->arena = fab_arena_new())) {
		free(k);
		return NULL;
	}
	return k;
}

void fab_pkeys_free(struct fab_pkeys *k)
{
	if (!k)
		return;
	free(k->ports);
	fab_arena_free(k->arena);
	free(k);
}

struct fab_pkeys *fab_snapshot_pkeys(struct fab_snapshot *snap)
{
	if (!snap->pkeys)
		snap->pkeys = fab_pkeys_new();
	return snap->pkeys;
}

struct fab_port_pkeys *fab_pkeys_add(struct fab_pkeys *k)
{
	return fab_array_grow((void **)&k->ports, &k->n, &k->cap, sizeof(*k->ports));
}

uint16_t *fab_pkeys_alloc(struct fab_pkeys *k, size_t n)
{
	uint16_t *p = fab_arena_alloc(k->arena, n ? n * sizeof(*p) : sizeof(*p));

	if (p)
		memset(p, 0, n * sizeof(*p));
	return p;
}

bool fab_pkeys_present(const struct fab_snapshot *snap)
{
	return snap->pkeys && snap->pkeys->n;
}

const struct fab_port_pkeys *fab_pkeys_of(const struct fab_snapshot *snap, uint32_t port_idx)
{
	const struct fab_pkeys *k = snap->pkeys;
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->ports[mid].port_idx < port_idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return k && lo < k->n && k->ports[lo].port_idx == port_idx ? &k->ports[lo] : NULL;
}

enum fab_pkey_member fab_pkeys_member(const struct fab_port_pkeys *t, unsigned partition)
{
	enum fab_pkey_member m = FAB_PKEY_NONE;

	partition &= FAB_PKEY_MASK;
	for (size_t i = 0; t && i < t->n; i++) {
		unsigned k = t->pkey[i];

		/* an empty entry is 0; 0x0000 and 0x8000 are invalid P_Keys */
		if (!(k & FAB_PKEY_MASK) || (k & FAB_PKEY_MASK) != partition)
			continue;
		if (k & FAB_PKEY_FULL)
			return FAB_PKEY_FULL_MEMBER;
		m = FAB_PKEY_LIMITED;
	}
	return m;
}

static int cmp_pkey(const void *a, const void *b)
{
	unsigned x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	/* by partition, the full membership first */
	if ((x & FAB_PKEY_MASK) != (y & FAB_PKEY_MASK))
		return (x & FAB_PKEY_MASK) < (y & FAB_PKEY_MASK) ? -1 : 1;
	return (int)(y & FAB_PKEY_FULL) - (int)(x & FAB_PKEY_FULL);
}

size_t fab_pkeys_memberships(const struct fab_port_pkeys *t, uint16_t *out)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; t && i < t->n; i++)
		if (t->pkey[i] & FAB_PKEY_MASK)
			out[n++] = t->pkey[i];
	qsort(out, n, sizeof(*out), cmp_pkey);
	for (size_t i = 0; i < n; i++)
		if (!k || (out[k - 1] & FAB_PKEY_MASK) != (out[i] & FAB_PKEY_MASK))
			out[k++] = out[i];
	return k;
}

int fab_pkeys_shared(const struct fab_port_pkeys *a, const struct fab_port_pkeys *b,
		     unsigned want, bool *limited_only)
{
	bool lim = false;

	if (limited_only)
		*limited_only = false;
	if (want) {
		enum fab_pkey_member x = fab_pkeys_member(a, want), y = fab_pkeys_member(b, want);
		if (x && y && (x == FAB_PKEY_FULL_MEMBER || y == FAB_PKEY_FULL_MEMBER))
			return (int)(want & FAB_PKEY_MASK);
		if (limited_only)
			*limited_only = x && y;
		return -1;
	}
	for (size_t i = 0; a && i < a->n; i++) {
		unsigned p = a->pkey[i] & FAB_PKEY_MASK;

		if (!p)
			continue;
		enum fab_pkey_member x = fab_pkeys_member(a, p), y = fab_pkeys_member(b, p);
		if (!y)
			continue;
		if (x == FAB_PKEY_FULL_MEMBER || y == FAB_PKEY_FULL_MEMBER)
			return (int)p;
		lim = true;
	}
	if (limited_only)
		*limited_only = lim;
	return -1;
}

const char *fab_pkey_format(unsigned pkey, char *buf)
{
	snprintf(buf, 7, "0x%04x", pkey & 0xffffu);
	return buf;
}

int fab_pkey_parse(const char *s)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		v = strtoul(s + 2, &end, 16);
	else
		v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v > 0xffff || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && !s[2]))
		return -1;
	return (int)v;
}
