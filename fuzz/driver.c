// SPDX-License-Identifier: MIT
/*
 * A standalone main() for the fuzz targets, so that their seed corpora run
 * as ordinary tests in every build (gcc included), without libFuzzer:
 *
 *   fuzzrun_<name> DIR_OR_FILE...
 *
 * Every regular file under the arguments (directories one level deep) goes
 * through LLVMFuzzerTestOneInput() from an exact-size heap copy, so that a
 * sanitizer build sees any read past the end; then its first half and all
 * but its last byte, which exercise the truncation paths of the parsers.
 * The target's own checks abort() on a violated invariant. Exits 1 when no
 * file was found (a corpus that went missing must not pass silently).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Corpus files are small; a larger one is a mistake, not a seed. */
#define SEED_MAX (4u << 20)

static size_t inputs;

static void one(const uint8_t *data, size_t len)
{
	uint8_t *copy = calloc(1, len ? len : 1); /* zeroed: -O3 cannot tell a copy of 0 bytes is never read */

	if (!copy) {
		fprintf(stderr, "fuzzrun: out of memory\n");
		exit(2);
	}
	if (len)
		memcpy(copy, data, len);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	inputs++;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;
	int rc = -1;

	if (!f) {
		fprintf(stderr, "fuzzrun: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	if ((unsigned long)len > SEED_MAX) {
		fprintf(stderr, "fuzzrun: '%s' is larger than %u bytes; seeds must be small\n",
			path, SEED_MAX);
		goto out;
	}
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		goto out;
	one(buf, (size_t)len);
	if (len > 1) {
		one(buf, (size_t)len / 2);
		one(buf, (size_t)len - 1);
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "fuzzrun: cannot read '%s'\n", path);
	free(buf);
	fclose(f);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir, in name order (reproducible output). */
static int run_dir(const char *dir, size_t *files)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "fuzzrun: cannot open '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **p = realloc(names, cap * sizeof(*p));
			if (!p) {
				rc = -1;
				break;
			}
			names = p;
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		if (!(names[n] = malloc(len))) {
			rc = -1;
			break;
		}
		snprintf(names[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (!rc && !stat(names[i], &sb) && S_ISREG(sb.st_mode)) {
			rc = run_file(names[i]);
			(*files)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t files = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	one((const uint8_t *)"", 0);
	for (int i = 1; i < argc; i++) {
		struct stat sb;

		if (stat(argv[i], &sb)) {
			fprintf(stderr, "fuzzrun: '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(sb.st_mode) ? run_dir(argv[i], &files) : (files++, run_file(argv[i])))
			return 1;
	}
	if (!files) {
		fprintf(stderr, "fuzzrun: no corpus file under the arguments\n");
		return 1;
	}
	printf("fuzzrun: %zu files, %zu inputs, no invariant violated\n", files, inputs);
	return 0;
}
