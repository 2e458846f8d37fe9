/* SPDX-License-Identifier: MIT */
/* A bump allocator for the strings of one snapshot (private to core/). */
#pragma once

#include <stddef.h>

struct fab_arena;

struct fab_arena *fab_arena_new(void);
void fab_arena_free(struct fab_arena *a); /* accepts NULL */
/* len bytes, aligned to 8; NULL on ENOMEM. Freed with the arena. */
void *fab_arena_alloc(struct fab_arena *a, size_t len);
