/* SPDX-License-Identifier: MIT */
/* Private to core/'s diff (core/diff.c, core/diff_mcast.c). */
#pragma once

#include "fabsweep/diff.h"

/* Appends a zeroed change of kind to d (counted); NULL on ENOMEM. */
struct fab_change *fab_diff_add(struct fab_diff *d, unsigned kind);
/* The multicast changes of two snapshots that both hold multicast data:
 * groups created, deleted, and those whose tree moved. 0 or -ENOMEM. */
int fab_diff_mcast(struct fab_diff *d, const struct fab_snapshot *os, const struct fab_snapshot *ns);
