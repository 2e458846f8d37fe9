/* SPDX-License-Identifier: MIT */
/* Private to core/diff*.c: appending a change, a port's end, and the
 * comparisons kept in their own files (diff_module.c, diff_mcast.c). */
#pragma once

#include <stdint.h>

#include "fabsweep/diff.h"

struct fab_snapshot;

/* A zeroed change of that kind at the end of d (counted); NULL on ENOMEM. */
struct fab_change *fab_diff_add(struct fab_diff *d, unsigned kind);
/* A copy of s that d owns (freed with it); NULL on ENOMEM. */
const char *fab_diff_strdup(struct fab_diff *d, const char *s);
/* An InfiniBand port (index in s->ports) as a change's end. */
struct fab_change_end fab_diff_port_end(const struct fab_snapshot *s, uint32_t port_idx);
/* FAB_CHG_MODULE changes of both fabrics; 0 or -ENOMEM. */
int fab_diff_modules(struct fab_diff *d, const struct fab_snapshot *os, const struct fab_snapshot *ns);
/* The multicast changes of two snapshots that both hold multicast data:
 * groups created, deleted, and those whose tree moved. 0 or -ENOMEM. */
int fab_diff_mcast(struct fab_diff *d, const struct fab_snapshot *os, const struct fab_snapshot *ns);
