// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdlib.h>

#include "arena.h"

#define CHUNK_MIN (64 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(8) unsigned char data[];
};

struct fab_arena {
	struct chunk *head;
};

struct fab_arena *fab_arena_new(void)
{
	return calloc(1, sizeof(struct fab_arena));
}

void fab_arena_free(struct fab_arena *a)
{
	if (!a)
		return;
	for (struct chunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

void *fab_arena_alloc(struct fab_arena *a, size_t len)
{
	struct chunk *c = a->head;

	len = (len + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < len) {
		size_t cap = len > CHUNK_MIN ? len : CHUNK_MIN;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += len;
	return p;
}
