// SPDX-License-Identifier: MIT
/*
 * The inputs of `fabsweep merge`: files given on the command line,
 * directories (their *.db files, in name order), and lists of paths (one a
 * line, from files or standard input), expanded into one list of distinct
 * paths. Nothing here opens an input: merge.c reads them.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "merge_priv.h"

static int add_abs(struct merge_paths *l, const char *path);

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Index of path in l, or -1; the hash table is l->slot (cap a power of 2). */
static long find(const struct merge_paths *l, const char *path, uint64_t h)
{
	if (!l->slot_cap)
		return -1;
	for (size_t i = h & (l->slot_cap - 1); l->slot[i]; i = (i + 1) & (l->slot_cap - 1))
		if (!strcmp(l->path[l->slot[i] - 1], path))
			return (long)l->slot[i] - 1;
	return -1;
}

static int rehash(struct merge_paths *l)
{
	size_t cap = l->slot_cap ? l->slot_cap * 2 : 1024;
	size_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t k = 0; k < l->n; k++) {
		size_t i = hash_str(l->path[k]) & (cap - 1);
		while (slot[i])
			i = (i + 1) & (cap - 1);
		slot[i] = k + 1;
	}
	free(l->slot);
	l->slot = slot;
	l->slot_cap = cap;
	return 0;
}

/* Appends path unless it is there already; a relative path made absolute
 * (merge_inputs records it: a later merge --into run from another
 * directory finds it). */
static int add_path(struct merge_paths *l, const char *given)
{
	char *abs = NULL;
	const char *path = given;

	if (given[0] != '/' && l->cwd[0]) {
		while (given[0] == '.' && given[1] == '/')
			given += 2;
		if (asprintf(&abs, "%s%s%s", l->cwd, strcmp(l->cwd, "/") ? "/" : "", given) < 0)
			return -ENOMEM;
		path = abs;
	}
	int err = add_abs(l, path);
	free(abs);
	return err;
}

static int add_abs(struct merge_paths *l, const char *path)
{
	uint64_t h = hash_str(path);

	if (find(l, path, h) >= 0)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		char **p = realloc(l->path, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->path = p;
		l->cap = cap;
	}
	if ((l->n + 1) * 2 > l->slot_cap && rehash(l))
		return -ENOMEM;
	if (!(l->path[l->n] = strdup(path)))
		return -ENOMEM;
	size_t i = h & (l->slot_cap - 1);
	while (l->slot[i])
		i = (i + 1) & (l->slot_cap - 1);
	l->slot[i] = ++l->n;
	return 0;
}

void fab_merge_paths_free(struct merge_paths *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->path[i]);
	for (size_t i = 0; i < l->n_problems; i++)
		free(l->problem[i]);
	free(l->path);
	free(l->slot);
	free(l->problem);
	memset(l, 0, sizeof(*l));
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_target(const struct merge_paths *l, const struct stat *sb)
{
	return l->target_exists && sb->st_dev == l->target.st_dev && sb->st_ino == l->target.st_ino;
}

/* The *.db files of a directory, in name order; the target itself left out. */
static int add_dir(struct merge_paths *l, const char *dir, size_t *skipped)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat ds;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	/* the target, when it is in this directory: by inode, without a stat per file */
	bool here = d && l->target_exists && !fstat(dirfd(d), &ds) && ds.st_dev == l->target.st_dev;

	if (!d)
		return fab_err(-errno, "directory '%s' cannot be read (%s): give its files instead, or"
				       " give this user access to it", dir, strerror(errno));
	while (!err && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".db") || e->d_name[0] == '.')
			continue;
		if (here && e->d_ino == l->target.st_ino) {
			++*skipped; /* the target in the directory of its inputs */
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			char **p = realloc(names, cap * sizeof(*p));
			if (!p) {
				err = -ENOMEM;
				break;
			}
			names = p;
		}
		size_t need = strlen(dir) + len + 2;
		if (!(names[n] = malloc(need)))
			err = -ENOMEM;
		else
			snprintf(names[n++], need, "%s%s%s", dir,
				 dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
	}
	closedir(d);
	if (!err && !n) {
		char **p = realloc(l->problem, (l->n_problems + 1) * sizeof(*p));
		if (!p || !(p[l->n_problems] = strdup(dir)))
			err = -ENOMEM;
		if (p) {
			l->problem = p;
			l->n_problems += !err;
		}
	}
	if (!err && n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n; i++) {
		if (!err && add_path(l, names[i]))
			err = -ENOMEM;
		free(names[i]);
	}
	free(names);
	return err == -ENOMEM ? fab_err(err, "out of memory") : err;
}

/* An input as given: a directory is its *.db files; the target is refused. */
static int add_arg(struct merge_paths *l, const char *path, size_t *skipped)
{
	struct stat sb;

	if (!stat(path, &sb)) {
		if (S_ISDIR(sb.st_mode))
			return add_dir(l, path, skipped);
		if (is_target(l, &sb))
			return fab_err(-EINVAL, "'%s' is the target database itself: give the files to"
						" merge (merge --into DB builds on DB's latest merge)", path);
	}
	/* a path that is not there is an input error of its own, later */
	return add_path(l, path) ? fab_err(-ENOMEM, "out of memory") : 0;
}

/* Paths one a line; empty lines and lines starting with # are skipped. */
static int add_list(struct merge_paths *l, FILE *f, const char *name, size_t *skipped)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	while (!err && (n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		err = add_arg(l, line, skipped);
	}
	if (!err && ferror(f))
		err = fab_err(-EIO, "list '%s' cannot be read (%s): give a file with one path a line",
			      name, strerror(errno));
	free(line);
	return err;
}

int fab_merge_paths_expand(const struct fab_pipeline_merge *job, struct merge_paths *l,
			   size_t *skipped)
{
	int err = 0;
	bool stdin_used = false;

	*skipped = 0;
	l->target_exists = job->db && !stat(job->db, &l->target);
	if (!getcwd(l->cwd, sizeof(l->cwd)))
		l->cwd[0] = '\0'; /* relative paths stay as given */
	for (size_t i = 0; !err && i < job->n_lists; i++) {
		const char *name = job->lists[i];
		if (!strcmp(name, "-")) {
			if (!stdin_used && job->list_in)
				err = add_list(l, job->list_in, "standard input", skipped);
			stdin_used = true;
			continue;
		}
		FILE *f = fopen(name, "r");
		if (!f)
			return fab_err(-EINVAL, "list '%s' cannot be read (%s): give a file with one path a line",
				       name, strerror(errno));
		err = add_list(l, f, name, skipped);
		fclose(f);
	}
	for (size_t i = 0; !err && i < job->n_files; i++) {
		if (!strcmp(job->files[i], "-")) {
			if (!stdin_used && job->list_in)
				err = add_list(l, job->list_in, "standard input", skipped);
			stdin_used = true;
		} else {
			err = add_arg(l, job->files[i], skipped);
		}
	}
	return err;
}
