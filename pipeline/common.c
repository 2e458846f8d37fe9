// SPDX-License-Identifier: MIT
/*
 * Steps several pipelines share: the configuration, the site rules, scan
 * references, the expected topology, the database's directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/topo.h"

int fab_pipeline_parse_scan(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "latest")) {
		*out = 0;
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < -1000000 || v > (1LL << 40))
		return -EINVAL;
	*out = v;
	return 0;
}

int fab_pipeline_load_config(const char *path, struct fab_config **out)
{
	if (path)
		return fab_config_load(path, out);
	if (access(FAB_CONFIG_DEFAULT_PATH, F_OK) == 0)
		return fab_config_load(FAB_CONFIG_DEFAULT_PATH, out);
	return fab_config_defaults(out);
}

/* A broken rule that has an id (a duplicate, or a query that does not
 * compile) still counts as defined for the config check: its own error
 * says what is wrong. */
static bool site_id_known(struct fab_site_rules *rs, const char *id)
{
	size_t n;
	const struct fab_site_rule *v = fab_site_rules_list(rs, &n);

	for (size_t i = 0; i < n; i++)
		if (v[i].id && !strcmp(v[i].id, id))
			return true;
	return false;
}

int fab_pipeline_load_site_rules(const char *dir, const struct fab_config *cfg,
				 bool validate, fab_note_fn note, void *note_ctx,
				 struct fab_site_rules **out, size_t *n_problems)
{
	struct fab_site_rules *rs;
	size_t n, n_cfg, bad = 0;
	int err = fab_site_rules_load(dir, &rs);

	if (err)
		return err;
	if (validate && (err = fab_site_rules_validate(rs)) < 0) {
		fab_site_rules_free(rs);
		return err;
	}
	const struct fab_site_rule *v = fab_site_rules_list(rs, &n);
	for (size_t i = 0; i < n; i++)
		if (v[i].status == FAB_SITE_BROKEN) {
			if (note)
				note(v[i].error, note_ctx);
			bad++;
		}
	const struct fab_config_site_rule *c = fab_config_site_rules(cfg, &n_cfg);
	for (size_t i = 0; i < n_cfg; i++) {
		if (site_id_known(rs, c[i].id))
			continue;
		bad++;
		if (!note)
			continue;
		char *msg = NULL;
		if (asprintf(&msg, "%s:%u: [rules] names the site rule '%s', which no file in %s defines",
			     fab_config_path(cfg), c[i].line, c[i].id,
			     fab_site_rules_dir(rs) ? fab_site_rules_dir(rs) : FAB_SITE_RULES_DIR) < 0) {
			fab_site_rules_free(rs);
			return fab_err(-ENOMEM, "out of memory");
		}
		note(msg, note_ctx);
		free(msg);
	}
	if (n_problems)
		*n_problems = bad;
	*out = rs;
	return 0;
}

int fab_pipeline_load_reference(struct fab_store *st, const char *ref, struct fab_snapshot **out)
{
	struct fab_snapshot *r;
	struct stat sb;
	int64_t id;
	int err;

	if (!ref || !*ref)
		return fab_err(-EINVAL, "an empty --expect: give an ibnetdiscover file or a scan");
	if (stat(ref, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
		if (!(r = fab_snapshot_new()))
			return fab_err(-ENOMEM, "out of memory");
		if ((err = fab_topo_import_file(ref, r)) || (err = fab_snapshot_index(r))) {
			fab_snapshot_free(r);
			return err == -ENOMEM ? fab_err(err, "out of memory") : err;
		}
		*out = r;
		return 0;
	}
	if (!st)
		return fab_err(-ENOENT, "--expect '%s' is no file (and there is no database to find a scan in)", ref);
	if (fab_store_baseline_resolve(st, ref, &id))
		return fab_err(-ENOENT, "--expect '%s' is neither a file nor a scan (an id, latest, -N or a baseline name)",
			       ref);
	return fab_store_load_scan(st, id, out);
}

void fab_pipeline_make_db_dir(const char *db)
{
	char dir[4096];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", db);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (access(dir, F_OK) != 0)
		mkdir(dir, 0750);
}

/* Writes snap into a new database at path: a temporary name, then rename. */
static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0 || fsync(fd) != 0)
		err = fab_err(-errno, "cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}

int fab_pipeline_write_file(const char *path, struct fab_snapshot *snap)
{
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	struct fab_store *st = NULL;
	sigset_t block, old;
	int err;

	if (!tmp)
		return fab_err(-ENOMEM, "out of memory");
	snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
	unlink(tmp);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!(err = fab_store_open(tmp, FAB_STORE_WRITE | FAB_STORE_EXPORT, &st)))
		err = fab_store_write_scan(st, snap);
	fab_store_close(st);
	if (!err)
		err = sync_file(tmp); /* written without syncs: once, whole, before it is renamed */
	if (!err && rename(tmp, path) != 0)
		err = fab_err(-errno, "cannot write '%s': %s", path, strerror(errno));
	if (err) {
		char side[4096];
		unlink(tmp);
		snprintf(side, sizeof(side), "%s-wal", tmp);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", tmp);
		unlink(side);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
	return err;
}

/* ---- many small files, synced once (readiness extracts) ------------------------ */

struct fab_pipeline_files {
	unsigned char *image; /* an empty database (fab_store_empty_image) */
	size_t len;
	char **tmp, **path;   /* written, not yet renamed */
	size_t n, cap;
};

int fab_pipeline_files_new(struct fab_pipeline_files **out)
{
	struct fab_pipeline_files *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return fab_err(-ENOMEM, "out of memory");
	if ((err = fab_store_empty_image(&b->image, &b->len))) {
		free(b);
		return err;
	}
	*out = b;
	return 0;
}

void fab_pipeline_files_free(struct fab_pipeline_files *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		unlink(b->tmp[i]); /* not committed */
		free(b->tmp[i]);
		free(b->path[i]);
	}
	free(b->tmp);
	free(b->path);
	free(b->image);
	free(b);
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -(errno ? errno : EIO);
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int fab_pipeline_files_add(struct fab_pipeline_files *b, const char *path, struct fab_snapshot *snap)
{
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len), *keep = strdup(path);
	struct fab_store *st = NULL;
	int fd, err;

	if (!tmp || !keep)
		goto nomem;
	if (b->n == b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 64;
		char **t = realloc(b->tmp, nc * sizeof(*t)), **p;
		if (!t)
			goto nomem;
		b->tmp = t;
		if (!(p = realloc(b->path, nc * sizeof(*p))))
			goto nomem;
		b->path = p;
		b->cap = nc;
	}
	snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0 ||
	    (err = write_all(fd, b->image, b->len)) || close(fd)) {
		err = fab_err(-errno, "cannot write '%s': %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		goto out;
	}
	if (!(err = fab_store_open(tmp, FAB_STORE_WRITE | FAB_STORE_EXPORT, &st)))
		err = fab_store_write_scan(st, snap);
	fab_store_close(st);
	if (err) {
		unlink(tmp);
		goto out;
	}
	b->tmp[b->n] = tmp;
	b->path[b->n++] = keep;
	return 0;
nomem:
	err = fab_err(-ENOMEM, "out of memory");
out:
	free(tmp);
	free(keep);
	return err;
}

/* The directory path is in: open, for syncfs() and fsync(). */
static int open_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	free(dir);
	return fd;
}

int fab_pipeline_files_commit(struct fab_pipeline_files *b)
{
	int fd = b->n ? open_dir_of(b->path[0]) : -1, err = 0;
	sigset_t block, old;

	if (!b->n)
		return 0;
	/* one sync for all: the file system's, not one per file */
	if (fd < 0 || syncfs(fd) != 0)
		err = fab_err(-errno, "cannot sync the files written beside '%s': %s", b->path[0],
			      strerror(errno));
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	size_t i = 0;
	for (; !err && i < b->n; i++)
		if (rename(b->tmp[i], b->path[i]) != 0)
			err = fab_err(-errno, "cannot write '%s': %s", b->path[i], strerror(errno));
	/* what was renamed is done; the rest is removed by free */
	for (size_t k = 0; k < i; k++) {
		free(b->tmp[k]);
		free(b->path[k]);
	}
	memmove(b->tmp, b->tmp + i, (b->n - i) * sizeof(*b->tmp));
	memmove(b->path, b->path + i, (b->n - i) * sizeof(*b->path));
	b->n -= i;
	if (!err && fd >= 0 && fsync(fd) != 0)
		err = fab_err(-errno, "cannot sync the directory of '%s': %s", b->n ? b->path[0] : "the files",
			      strerror(errno));
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd >= 0)
		close(fd);
	return err;
}
