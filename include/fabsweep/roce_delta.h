/* SPDX-License-Identifier: MIT */
/*
 * A merge stored as a delta on an earlier whole merge, its keyframe
 * (`merge --into`; docs/schema.md "RoCE deltas"): the delta scan holds the
 * rows of the systems that differ from the keyframe's, and names the
 * keyframe's systems it replaces or drops; every other system's rows are
 * the keyframe's. For that, an element of the new model keeps the stored
 * index (system_idx, port_idx, neighbor_idx, device_idx, module_idx) the
 * same element has in the keyframe, so the rows that point at it stay true.
 *
 * How: before files are merged into the base model (the latest merge as
 * loaded), fab_roce_mark_base() keeps its elements' keys and stored
 * indices and what each system derives from the others (its role, where its
 * neighbour records resolve, the links it owns; for a stub, all of it).
 * After merging and resolving, fab_roce_delta_plan() gives every element of
 * the new model its stored index (the base's for the same key, else one
 * after the largest) and says which systems are written. A system is
 * written when it was read again, differs from the keyframe already (it
 * came from the base's delta rows), is new, changed shape (an element new
 * or gone) or derives something else now. Linear in the model's size.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_roce;
struct fab_roce_mark;

struct fab_roce_delta {
	int64_t base_scan; /* the keyframe (set by the caller) */
	/* the stored index of each element of the model, by position */
	uint32_t *sys, *port, *nb, *dev, *mod;
	/* by system position (n_sys of them): its rows are written in the delta */
	bool *write;
	size_t n_sys;
	/* the keyframe's systems (stored indices) whose rows the delta hides:
	 * replaced by written ones or dropped; ascending */
	uint32_t *hidden;
	size_t n_hidden;
};

/*
 * Marks base, a model as loaded, before anything is merged into it:
 * stored, the stored index of each of its elements (NULL: their positions,
 * as in a whole merge); from_delta (NULL: none), by system position, the
 * systems whose rows are the base's delta rows rather than its keyframe's.
 * The mark refers to base's strings: base (or the model it becomes) must
 * outlive it. 0, or -ENOMEM.
 */
int fab_roce_mark_base(const struct fab_roce *base, const struct fab_roce_delta *stored,
		       const bool *from_delta, struct fab_roce_mark **out);
void fab_roce_mark_free(struct fab_roce_mark *m);

/*
 * The delta of r (the marked base with files merged and resolved) on the
 * keyframe: *out owned by the caller. *out is NULL when more than
 * max_share of r's systems would be written (a whole merge is then the
 * better keyframe for the next). 0, or -ENOMEM.
 */
int fab_roce_delta_plan(const struct fab_roce *r, const struct fab_roce_mark *m, double max_share,
			struct fab_roce_delta **out);
void fab_roce_delta_free(struct fab_roce_delta *d);
