// SPDX-License-Identifier: MIT
/*
 * The corpora of the host-list and node-name-map fuzz targets, run as a
 * plain test: every file of fuzz/corpus/{hostlist,nodemap}/ goes through the
 * same target code (whose checks abort on a violated invariant).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LLVMFuzzerTestOneInput fuzz_hostlist_one
#include "fuzz/fuzz_hostlist.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_nodemap_one
#include "fuzz/fuzz_nodemap.c"
#undef LLVMFuzzerTestOneInput

static size_t run_corpus(const char *name, int (*one)(const uint8_t *, size_t))
{
	const char *fx = getenv("FIXTURES");
	char dir[1024], path[1400];
	size_t files = 0;

	assert_non_null(fx);
	snprintf(dir, sizeof(dir), "%s/../fuzz/corpus/%s", fx, name);
	DIR *d = opendir(dir);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		struct stat sb;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &sb) || !S_ISREG(sb.st_mode))
			continue;
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		uint8_t *buf = malloc((size_t)sb.st_size + 1);
		assert_int_equal(fread(buf, 1, (size_t)sb.st_size, f), (size_t)sb.st_size);
		fclose(f);
		one(buf, (size_t)sb.st_size);
		free(buf);
		files++;
	}
	closedir(d);
	return files;
}

static void test_hostlist_corpus(void **state)
{
	assert_true(run_corpus("hostlist", fuzz_hostlist_one) >= 10);
}

static void test_nodemap_corpus(void **state)
{
	assert_true(run_corpus("nodemap", fuzz_nodemap_one) >= 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostlist_corpus),
		cmocka_unit_test(test_nodemap_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
