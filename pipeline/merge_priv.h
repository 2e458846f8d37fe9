/* SPDX-License-Identifier: MIT */
/* Private to pipeline/merge*.c: the inputs of a merge, expanded. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct fab_pipeline_merge;

struct merge_paths {
	char **path; /* distinct (absolute), in the order given */
	size_t n, cap;
	size_t *slot, slot_cap; /* hash of path: index + 1, 0 empty */
	char **problem;         /* inputs that are not there to read (a directory without *.db) */
	size_t n_problems;
	struct stat target;     /* the target database, when it exists */
	char cwd[4096];         /* relative paths are made absolute with it */
	bool target_exists;
};

/* job's files, directories and lists into l; *skipped counts the target
 * found in a directory of inputs (left out). -EINVAL: the target given as
 * an input, or a list that cannot be read; -ENOMEM. Message set. */
int fab_merge_paths_expand(const struct fab_pipeline_merge *job, struct merge_paths *l,
			   size_t *skipped);
void fab_merge_paths_free(struct merge_paths *l);
