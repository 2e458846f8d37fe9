// SPDX-License-Identifier: MIT
/* M_Key parsing, the guid2mkey file parser and lookup (core/mkey.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/mkey.h"

static int parse(const char *s, uint64_t *out)
{
	return fab_mkey_parse(s, strlen(s), out);
}

static void test_parse_key(void **state)
{
	uint64_t k = 1;

	(void)state;
	assert_int_equal(parse("0", &k), 0);
	assert_true(k == 0);
	assert_int_equal(parse("0x0123456789abcdef", &k), 0);
	assert_true(k == 0x0123456789abcdefULL);
	assert_int_equal(parse("0XFFFFFFFFFFFFFFFF", &k), 0);
	assert_true(k == UINT64_MAX);
	assert_int_equal(parse("18446744073709551615", &k), 0);
	assert_true(k == UINT64_MAX);
	assert_int_equal(parse("81985529216486895", &k), 0);
	assert_true(k == 0x0123456789abcdefULL);
	k = 7;
	assert_int_equal(parse("18446744073709551616", &k), -ERANGE);
	assert_true(k == 7); /* untouched on error */
	static const char *const bad[] = {
		"", "0x", "0x10000000000000000", "-1", "+1", " 1", "1 ", "0x12g4",
		"12a", "abc", "0b101", "1e5", "0x-1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(parse(bad[i], &k), 0);
		assert_true(k == 7);
	}
	/* bytes after a NUL count (found by fuzz_mkey) */
	assert_int_equal(fab_mkey_parse("0x1\0\0\x12", 7, &k), -EINVAL);
	assert_true(k == 7);
	/* len bounds the text: "12" of "123" */
	assert_int_equal(fab_mkey_parse("123", 2, &k), 0);
	assert_true(k == 12);
}

static const char file_ok[] =
	"# guid2mkey, as OpenSM writes it\n"
	"0x0002c90300000001 0x1111111111111111\n"
	"\n"
	"   0002c90300000002\t12345   # decimal key, bare GUID\n"
	"0x0002C90300000003 0xffffffffffffffff\r\n"
	"0x0002c90300000004 0";

static void test_file(void **state)
{
	struct fab_mkeys *k = fab_mkeys_new();

	(void)state;
	assert_non_null(k);
	assert_true(fab_mkeys_lookup(k, 0x0002c90300000001ULL, 0) == 0); /* empty */
	assert_int_equal(fab_mkeys_parse(k, file_ok, sizeof(file_ok) - 1, "g2m"), 0);
	assert_int_equal(fab_mkeys_count(k), 4);
	assert_true(fab_mkeys_lookup(k, 0x0002c90300000001ULL, 0) == 0x1111111111111111ULL);
	assert_true(fab_mkeys_lookup(k, 0, 0x0002c90300000002ULL) == 12345);
	assert_true(fab_mkeys_lookup(k, 0x0002c90300000003ULL, 0) == UINT64_MAX);
	assert_true(fab_mkeys_lookup(k, 0x0002c90300000004ULL, 0) == 0);
	/* port GUID first, then node GUID, then the fallback */
	assert_true(fab_mkeys_lookup(k, 0x0002c90300000002ULL, 0x0002c90300000001ULL) == 12345);
	assert_true(fab_mkeys_lookup(k, 0x99, 0x0002c90300000001ULL) == 0x1111111111111111ULL);
	assert_true(fab_mkeys_lookup(k, 0x99, 0x98) == 0);
	fab_mkeys_set_default(k, 0xabc);
	assert_true(fab_mkeys_lookup(k, 0x99, 0x98) == 0xabc);
	assert_true(fab_mkeys_lookup(k, 0, 0) == 0xabc);
	assert_true(fab_mkeys_lookup(k, 0x0002c90300000004ULL, 0) == 0); /* listed as 0 */
	assert_true(fab_mkeys_lookup(NULL, 1, 2) == 0);
	fab_mkeys_free(k);
	fab_mkeys_free(NULL);
}

static void test_file_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "0x1 0x2\nzz 0x3\n", "g2m:2: the GUID is not" },
		{ "0x0 0x3\n", "g2m:1: the GUID is not" },
		{ "0x1\n", "g2m:1: no M_Key" },
		{ "0x1 0x5ec12e7\n0x2 5ec12e7\n", "g2m:2: the M_Key is not" },
		{ "0x1 99999999999999999999\n", "g2m:1: the M_Key is not" },
		{ "0x1 0x2 extra\n", "g2m:1: unexpected text" },
		{ "0x1 0x2\n0x01 0x3\n", "g2m:2: GUID listed twice (also on line 1)" },
		{ "0x1 0x2\n0x2 0x3\0\n", "g2m:2: NUL byte" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fab_mkeys *k = fab_mkeys_new();
		size_t len = strlen(cases[i].text);
		if (strstr(cases[i].msg, "NUL"))
			len += 2;
		assert_int_not_equal(fab_mkeys_parse(k, cases[i].text, len, "g2m"), 0);
		if (!strstr(fab_errmsg(), cases[i].msg))
			fail_msg("case %zu: '%s'", i, fab_errmsg());
		/* never the key, in any spelling */
		assert_null(strstr(fab_errmsg(), "5ec12e7"));
		assert_null(strstr(fab_errmsg(), "99999"));
		assert_int_equal(fab_mkeys_count(k), 0); /* nothing added */
		fab_mkeys_free(k);
	}
	/* a line too long */
	char *big = malloc(FAB_MKEY_FILE_LINE_MAX + 10);
	assert_non_null(big);
	memset(big, ' ', FAB_MKEY_FILE_LINE_MAX + 10);
	struct fab_mkeys *k = fab_mkeys_new();
	assert_int_not_equal(fab_mkeys_parse(k, big, FAB_MKEY_FILE_LINE_MAX + 10, "g2m"), 0);
	assert_non_null(strstr(fab_errmsg(), "g2m:1: line longer"));
	free(big);
	/* two files: a GUID in both is an error, the second adds nothing */
	assert_int_equal(fab_mkeys_parse(k, "0x1 0x2\n", 8, "a"), 0);
	assert_int_not_equal(fab_mkeys_parse(k, "0x3 0x4\n0x1 0x5\n", 16, "b"), 0);
	assert_int_equal(fab_mkeys_count(k), 1);
	fab_mkeys_free(k);
}

static void test_options(void **state)
{
	struct fab_mkeys *k = (void *)1;
	char path[] = "/tmp/test_mkey_XXXXXX";
	bool loose = true;
	int fd;

	(void)state;
	assert_int_equal(fab_mkeys_from_options(NULL, NULL, NULL, &k, &loose), 0);
	assert_null(k);
	assert_false(loose);
	assert_int_equal(fab_mkeys_from_options("0x5ec12e7", "1", NULL, &k, NULL), 0);
	assert_true(fab_mkeys_lookup(k, 1, 2) == 0x5ec12e7); /* the option beats the variable */
	fab_mkeys_free(k);
	assert_int_equal(fab_mkeys_from_options(NULL, "99", NULL, &k, NULL), 0);
	assert_true(fab_mkeys_lookup(k, 1, 2) == 99);
	fab_mkeys_free(k);
	assert_int_equal(fab_mkeys_from_options("0x5ec12e7zz", NULL, NULL, &k, NULL), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "--m-key takes"));
	assert_null(strstr(fab_errmsg(), "5ec12e7"));
	assert_int_equal(fab_mkeys_from_options(NULL, "-5ec12e7", NULL, &k, NULL), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "FABSWEEP_MKEY takes"));
	assert_null(strstr(fab_errmsg(), "5ec12e7"));

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0x7 0x5ec12e7\n", 14), 14);
	close(fd);
	chmod(path, 0600);
	assert_int_equal(fab_mkeys_from_options("3", NULL, path, &k, &loose), 0);
	assert_false(loose);
	assert_true(fab_mkeys_lookup(k, 7, 0) == 0x5ec12e7);
	assert_true(fab_mkeys_lookup(k, 8, 0) == 3);
	fab_mkeys_free(k);
	chmod(path, 0644);
	assert_int_equal(fab_mkeys_from_options(NULL, NULL, path, &k, &loose), 0);
	assert_true(loose);
	fab_mkeys_free(k);
	unlink(path);
	assert_int_not_equal(fab_mkeys_from_options(NULL, NULL, path, &k, &loose), 0);
	assert_non_null(strstr(fab_errmsg(), "cannot open M_Key file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_key),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
