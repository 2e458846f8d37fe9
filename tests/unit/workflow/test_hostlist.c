// SPDX-License-Identifier: MIT
/* Slurm host lists: expansion, padding, products, limits and strict errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"

/* Expands expr and compares with the space-separated expected hosts. */
static void expect_hosts(const char *expr, const char *expected)
{
	struct fab_hostlist *hl;
	char buf[4096] = "";
	size_t off = 0;

	assert_int_equal(fab_hostlist_new(&hl), 0);
	int err = fab_hostlist_add(hl, expr, SIZE_MAX);
	if (err)
		fail_msg("'%s': %s", expr, fab_errmsg());
	for (size_t i = 0; i < fab_hostlist_count(hl); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "",
					fab_hostlist_get(hl, i));
	if (strcmp(buf, expected))
		fail_msg("'%s' expanded to '%s', expected '%s'", expr, buf, expected);
	assert_null(fab_hostlist_get(hl, fab_hostlist_count(hl)));
	fab_hostlist_free(hl);
}

/* expr must fail with err, the message containing part; the list unchanged. */
static void expect_error(const char *expr, int err, const char *part)
{
	struct fab_hostlist *hl;

	assert_int_equal(fab_hostlist_new(&hl), 0);
	assert_int_equal(fab_hostlist_add(hl, "keep[1-2]", SIZE_MAX), 0);
	int got = fab_hostlist_add(hl, expr, SIZE_MAX);
	if (got != err)
		fail_msg("'%s': expected %d, got %d (%s)", expr, err, got, fab_errmsg());
	if (part && !strstr(fab_errmsg(), part))
		fail_msg("'%s': message '%s' lacks '%s'", expr, fab_errmsg(), part);
	assert_int_equal(fab_hostlist_count(hl), 2);
	assert_string_equal(fab_hostlist_get(hl, 1), "keep2");
	/* still usable after a failure */
	assert_int_equal(fab_hostlist_add(hl, "x", SIZE_MAX), 0);
	assert_string_equal(fab_hostlist_get(hl, 2), "x");
	fab_hostlist_free(hl);
}

static void test_plain(void **state)
{
	expect_hosts("node1", "node1");
	expect_hosts("a,b,c", "a b c");
	expect_hosts("gpu-a01.cluster_x", "gpu-a01.cluster_x");
	expect_hosts("a,a", "a a"); /* duplicates kept */
	expect_hosts("7", "7");
}

static void test_ranges(void **state)
{
	expect_hosts("node[1-3]", "node1 node2 node3");
	expect_hosts("node[001-003,020]", "node001 node002 node003 node020");
	expect_hosts("n[08-11]", "n08 n09 n10 n11");
	expect_hosts("n[9-11]", "n9 n10 n11");
	expect_hosts("n[001-16]", "n001 n002 n003 n004 n005 n006 n007 n008 n009 n010 "
				   "n011 n012 n013 n014 n015 n016");
	expect_hosts("n[098-101]", "n098 n099 n100 n101");
}

static void test_padding_overflow(void **state)
{
	struct fab_hostlist *hl;

	/* the lower bound's width is kept even when the upper bound is wider */
	assert_int_equal(fab_hostlist_new(&hl), 0);
	assert_int_equal(fab_hostlist_add(hl, "n[01-100]", SIZE_MAX), 0);
	assert_int_equal(fab_hostlist_count(hl), 100);
	assert_string_equal(fab_hostlist_get(hl, 0), "n01");
	assert_string_equal(fab_hostlist_get(hl, 98), "n99");
	assert_string_equal(fab_hostlist_get(hl, 99), "n100");
	fab_hostlist_free(hl);
}

static void test_single_and_zero(void **state)
{
	expect_hosts("n[5]", "n5");
	expect_hosts("n[05]", "n05");
	expect_hosts("n[0]", "n0");
	expect_hosts("n[0-2]", "n0 n1 n2");
	expect_hosts("n[00-02]", "n00 n01 n02");
	expect_hosts("n[3,1,2]", "n3 n1 n2"); /* order as written */
	expect_hosts("[1-2]", "1 2");
	expect_hosts("[1-2]x", "1x 2x");
}

static void test_products(void **state)
{
	expect_hosts("a[1-3]b[1-2]", "a1b1 a1b2 a2b1 a2b2 a3b1 a3b2");
	expect_hosts("rack[1-2]-node[01-02]", "rack1-node01 rack1-node02 rack2-node01 rack2-node02");
	expect_hosts("x[1,3][7]y", "x17y x37y");
	expect_hosts("a[1-2],b,c[3]d[4-5]", "a1 a2 b c3d4 c3d5");
}

static void test_env_and_text(void **state)
{
	struct fab_hostlist *hl;

	assert_int_equal(fab_hostlist_new(&hl), 0);
	unsetenv("FAB_TEST_NODELIST");
	assert_int_equal(fab_hostlist_add_env(hl, "FAB_TEST_NODELIST"), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "FAB_TEST_NODELIST"));
	setenv("FAB_TEST_NODELIST", "", 1);
	assert_int_equal(fab_hostlist_add_env(hl, "FAB_TEST_NODELIST"), -ENOENT);
	setenv("FAB_TEST_NODELIST", "cn[01-04,07]", 1);
	assert_int_equal(fab_hostlist_add_env(hl, "FAB_TEST_NODELIST"), 0);
	assert_int_equal(fab_hostlist_count(hl), 5);
	assert_string_equal(fab_hostlist_get(hl, 4), "cn07");

	static const char file[] =
		"# the GPU partition\n"
		"\n"
		"gpu01\n"
		"  gpu[02-03]   # two more\r\n"
		"\t# indented comment\n"
		"login1,login2\n"
		"last";
	assert_int_equal(fab_hostlist_add_text(hl, file, sizeof(file) - 1, "hosts.txt"), 0);
	assert_int_equal(fab_hostlist_count(hl), 5 + 6);
	assert_string_equal(fab_hostlist_get(hl, 5), "gpu01");
	assert_string_equal(fab_hostlist_get(hl, 7), "gpu03");
	assert_string_equal(fab_hostlist_get(hl, 10), "last");

	/* errors name the file, line and column; nothing of the file is kept */
	static const char bad[] = "ok1\nok2\n  bad[1-\n";
	assert_int_equal(fab_hostlist_add_text(hl, bad, sizeof(bad) - 1, "h.txt"), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "h.txt:3: column 9:"));
	assert_int_equal(fab_hostlist_count(hl), 11);
	static const char nul[] = "a\nb\0c\n";
	assert_int_equal(fab_hostlist_add_text(hl, nul, sizeof(nul) - 1, "n.txt"), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "n.txt:2: column 2: NUL"));
	static const char semi[] = "a b;c\n";
	assert_int_equal(fab_hostlist_add_text(hl, semi, sizeof(semi) - 1, "s.txt"), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "s.txt:1: column 4: unexpected character ';'"));
	assert_int_equal(fab_hostlist_count(hl), 11);
	/* blanks separate hosts on a line too, as in a list */
	static const char blanks[] = "  a  b[1-2], c # three\n";
	assert_int_equal(fab_hostlist_add_text(hl, blanks, sizeof(blanks) - 1, "b.txt"), 0);
	assert_int_equal(fab_hostlist_count(hl), 15);
	assert_string_equal(fab_hostlist_get(hl, 11), "a");
	assert_string_equal(fab_hostlist_get(hl, 13), "b2");
	assert_string_equal(fab_hostlist_get(hl, 14), "c");
	fab_hostlist_free(hl);
}

static void test_file(void **state)
{
	char path[256];
	const char *tmp = getenv("TMPDIR");
	struct fab_hostlist *hl;

	snprintf(path, sizeof(path), "%s/hosts_%d.txt", tmp ? tmp : "/tmp", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("n[1-3]\n# x\nm1\n", f);
	fclose(f);
	assert_int_equal(fab_hostlist_new(&hl), 0);
	assert_int_equal(fab_hostlist_add_file(hl, path), 0);
	assert_int_equal(fab_hostlist_count(hl), 4);
	unlink(path);
	assert_true(fab_hostlist_add_file(hl, path) < 0);
	assert_non_null(strstr(fab_errmsg(), "cannot open host file"));
	assert_int_equal(fab_hostlist_count(hl), 4);
	fab_hostlist_free(hl);
}

/* Blanks and newlines separate hosts as commas do (Slurm: "\t, "). */
static void test_blank_separators(void **state)
{
	expect_hosts("node1, node2", "node1 node2");
	expect_hosts("node1 node2", "node1 node2");
	expect_hosts("a\tb", "a b");
	expect_hosts("  node[1-2] ,\tgpu[08-09]  ", "node1 node2 gpu08 gpu09");
	/* a list pasted with newlines, CRLF and a trailing newline included */
	expect_hosts("n1\nn2\r\nn[3-4],\nn5\n", "n1 n2 n3 n4 n5");
	expect_hosts("a[1-2]b[1-2]\nc", "a1b1 a1b2 a2b1 a2b2 c");

	/* columns count the blanks */
	expect_error("ok  n[1-", -EINVAL, "column 9: expected a number before the end");
	/* limits hold across blank-separated elements and roll back */
	expect_error("x n[1-65536]", -E2BIG, "more than 65536 hosts");
}

static void test_syntax_errors(void **state)
{
	expect_error("", -EINVAL, "empty host list");
	expect_error(" \n\t", -EINVAL, "column 1: empty host list");
	expect_error(",a", -EINVAL, "column 1: empty element");
	expect_error("a,", -EINVAL, "column 2: trailing ','");
	expect_error("a,,b", -EINVAL, "column 3: empty element");
	/* stricter than Slurm, which skips any run of separators */
	expect_error("a, ,b", -EINVAL, "column 4: empty element");
	expect_error("a , \n", -EINVAL, "column 3: trailing ','");
	expect_error(", a", -EINVAL, "column 1: empty element");
	expect_error("n[1-3", -EINVAL, "never closed");
	expect_error("n[", -EINVAL, "expected a number");
	expect_error("n[]", -EINVAL, "column 3: expected a number, found ']'");
	expect_error("n[1,]", -EINVAL, "found ']'");
	expect_error("n[,1]", -EINVAL, "found ','");
	expect_error("n[1-]", -EINVAL, "found ']'");
	expect_error("n[-1]", -EINVAL, "found '-'");
	expect_error("n[1-2-3]", -EINVAL, "expected ',', '-' or ']'");
	expect_error("n[[1]]", -EINVAL, "found '['");
	expect_error("n[1[2]]", -EINVAL, "found '['");
	expect_error("n]1", -EINVAL, "column 2: ']' without '['");
	expect_error("n[3-1]", -EINVAL, "goes down");
	expect_error("n[a-b]", -EINVAL, "found 'a'");
	expect_error("n[1-010]", -EINVAL, "zero padding");
	expect_error("n[ 1]", -EINVAL, "found ' '");
	expect_error("n[1 -2]", -EINVAL, "column 4: expected ',', '-' or ']' in brackets, found ' '");
	expect_error("n[1,\n2]", -EINVAL, "found \\x0a");
	expect_error("a\vb", -EINVAL, "column 2: unexpected character \\x0b");
	expect_error("n\xc3\xa9", -EINVAL, "\\xc3");
	expect_error("n;rm", -EINVAL, "';'");
	expect_error("-n1", -EINVAL, "cannot start with '-'");
	expect_error("a,.b", -EINVAL, "column 3: host names cannot start with '.'");
	expect_error("n[1234567890123456789]", -EINVAL, "longer than 18 digits");
}

static void test_limits(void **state)
{
	char big[600];

	expect_error("n[0-65536]", -E2BIG, "'n[0-65536]' expands to more than 65536 hosts");
	expect_error("n[0-999999999999]", -E2BIG, "more than 65536 hosts");
	expect_error("a[1-1000]b[1-1000]", -E2BIG, "more than 65536 hosts");
	expect_error("a[1-300]b[1-300]c[1-300]d[1-300]", -E2BIG, NULL);

	/* exactly the cap is fine, one more is not, across elements too */
	struct fab_hostlist *hl;
	assert_int_equal(fab_hostlist_new(&hl), 0);
	assert_int_equal(fab_hostlist_add(hl, "n[1-65536]", SIZE_MAX), 0);
	assert_int_equal(fab_hostlist_count(hl), FAB_HOSTLIST_MAX);
	assert_string_equal(fab_hostlist_get(hl, 65535), "n65536");
	assert_int_equal(fab_hostlist_add(hl, "one", SIZE_MAX), -E2BIG);
	assert_int_equal(fab_hostlist_count(hl), FAB_HOSTLIST_MAX);
	fab_hostlist_free(hl);
	assert_int_equal(fab_hostlist_new(&hl), 0);
	assert_int_equal(fab_hostlist_add(hl, "a[1-40000]", SIZE_MAX), 0);
	assert_int_equal(fab_hostlist_add(hl, "b[1-20000],c[1-10000]", SIZE_MAX), -E2BIG);
	assert_int_equal(fab_hostlist_count(hl), 40000); /* rolled back */
	fab_hostlist_free(hl);

	/* names: 255 bytes are fine, 256 are not, also through padding */
	memset(big, 'x', 255);
	big[255] = '\0';
	expect_hosts(big, big);
	big[255] = 'y';
	big[256] = '\0';
	expect_error(big, -EINVAL, "longer than 255 bytes");
	memset(big, 'x', 250);
	snprintf(big + 250, sizeof(big) - 250, "[000001-000002]");
	expect_error(big, -EINVAL, "longer than 255 bytes");

	/* length-bounded input: stops at len, a NUL inside is an error */
	assert_int_equal(fab_hostlist_new(&hl), 0);
	assert_int_equal(fab_hostlist_add(hl, "ab,cd", 2), 0);
	assert_int_equal(fab_hostlist_count(hl), 1);
	assert_string_equal(fab_hostlist_get(hl, 0), "ab");
	assert_int_equal(fab_hostlist_add(hl, "a\0b", 3), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), "NUL"));
	fab_hostlist_free(hl);
}

/* Every range [lo-hi] with 0 <= lo <= hi < 120, padded and not: counts and ends. */
static void test_exhaustive_ranges(void **state)
{
	char expr[64], want[16];
	struct fab_hostlist *hl;

	for (unsigned lo = 0; lo < 120; lo++)
		for (unsigned hi = lo; hi < 120; hi++)
			for (int pad = 0; pad < 2; pad++) {
				assert_int_equal(fab_hostlist_new(&hl), 0);
				snprintf(expr, sizeof(expr), pad ? "h[%03u-%03u]" : "h[%u-%u]", lo, hi);
				assert_int_equal(fab_hostlist_add(hl, expr, SIZE_MAX), 0);
				assert_int_equal(fab_hostlist_count(hl), hi - lo + 1);
				for (unsigned v = lo; v <= hi; v++) {
					snprintf(want, sizeof(want), pad ? "h%03u" : "h%u", v);
					assert_string_equal(fab_hostlist_get(hl, v - lo), want);
				}
				fab_hostlist_free(hl);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_padding_overflow),
		cmocka_unit_test(test_single_and_zero),
		cmocka_unit_test(test_products),
		cmocka_unit_test(test_env_and_text),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_blank_separators),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_exhaustive_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
