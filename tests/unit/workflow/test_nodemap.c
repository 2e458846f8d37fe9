// SPDX-License-Identifier: MIT
/* The node-name-map parser: format, strictness, limits, lookups. */
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
#include "fabsweep/nodemap.h"

static struct fab_nodemap *parse_ok(const char *text)
{
	struct fab_nodemap *m = NULL;

	if (fab_nodemap_parse(text, strlen(text), "map", &m))
		fail_msg("'%s': %s", text, fab_errmsg());
	return m;
}

static void expect_bad(const char *text, size_t len, int err, const char *part)
{
	struct fab_nodemap *m = (struct fab_nodemap *)&m; /* must stay untouched */

	if (len == SIZE_MAX)
		len = strlen(text);
	int got = fab_nodemap_parse(text, len, "nm.txt", &m);
	if (got != err)
		fail_msg("'%s': expected %d got %d (%s)", text, err, got, fab_errmsg());
	if (!strstr(fab_errmsg(), part))
		fail_msg("'%s': message '%s' lacks '%s'", text, fab_errmsg(), part);
	assert_ptr_equal(m, (struct fab_nodemap *)&m);
}

static void test_parse(void **state)
{
	struct fab_nodemap *m = parse_ok(
		"# ibdiags node name map\n"
		"\n"
		"0x0002c90300a1b2c3 \"leaf01\"\n"
		"   0X0002C90300A1B2C4\t\"leaf 02 (row B)\"   # trailing comment\r\n"
		"0x1 \"tiny\"\n"
		"0xffffffffffffffff \"max\"#no blank before the comment\n"
		"0x0002c90300000010 \"caf\xc3\xa9-\\\\-'<x>'\"\n"
		"\t# indented comment");

	assert_int_equal(fab_nodemap_count(m), 5);
	assert_string_equal(fab_nodemap_lookup(m, 0x0002c90300a1b2c3ull), "leaf01");
	assert_string_equal(fab_nodemap_lookup(m, 0x0002c90300a1b2c4ull), "leaf 02 (row B)");
	assert_string_equal(fab_nodemap_lookup(m, 1), "tiny");
	assert_string_equal(fab_nodemap_lookup(m, UINT64_MAX), "max");
	assert_string_equal(fab_nodemap_lookup(m, 0x0002c90300000010ull), "caf\xc3\xa9-\\\\-'<x>'");
	assert_null(fab_nodemap_lookup(m, 2));
	assert_null(fab_nodemap_lookup(m, 0));
	assert_string_equal(fab_nodemap_name(m, 1, "desc"), "tiny");
	assert_string_equal(fab_nodemap_name(m, 2, "desc"), "desc");
	assert_string_equal(fab_nodemap_name(m, 2, NULL), "");
	assert_string_equal(fab_nodemap_name(NULL, 1, "desc"), "desc");
	assert_null(fab_nodemap_lookup(NULL, 1));
	assert_int_equal(fab_nodemap_count(NULL), 0);
	fab_nodemap_free(m);
	fab_nodemap_free(NULL);

	m = parse_ok("");
	assert_int_equal(fab_nodemap_count(m), 0);
	assert_null(fab_nodemap_lookup(m, 1));
	fab_nodemap_free(m);
}

static void test_errors(void **state)
{
	expect_bad("0x1 \"a\"\nleaf01 0x2\n", SIZE_MAX, -EINVAL, "nm.txt:2: expected a GUID");
	expect_bad("1234 \"a\"\n", SIZE_MAX, -EINVAL, "nm.txt:1: expected a GUID");
	expect_bad("0x \"a\"", SIZE_MAX, -EINVAL, "no hex digits");
	expect_bad("0x12345678901234567 \"a\"", SIZE_MAX, -EINVAL, "longer than 16 hex digits");
	expect_bad("0x12g \"a\"", SIZE_MAX, -EINVAL, "after the GUID at column 5");
	expect_bad("0x12\"a\"", SIZE_MAX, -EINVAL, "after the GUID");
	expect_bad("0x0 \"a\"", SIZE_MAX, -EINVAL, "GUID 0");
	expect_bad("0x12", SIZE_MAX, -EINVAL, "expected a name in double quotes");
	expect_bad("0x12 leaf01", SIZE_MAX, -EINVAL, "expected a name in double quotes");
	expect_bad("0x12 \"leaf01", SIZE_MAX, -EINVAL, "no closing double quote");
	expect_bad("0x12 \"\"", SIZE_MAX, -EINVAL, "empty name");
	expect_bad("0x12 \"a\" b", SIZE_MAX, -EINVAL, "unexpected text after the name at column 10");
	expect_bad("0x12 \"a\" \"b\"", SIZE_MAX, -EINVAL, "unexpected text after the name");
	expect_bad("0x12 \"a\x1b[31m\"", SIZE_MAX, -EINVAL, "control characters");
	expect_bad("0x12 \"a\xff\"", SIZE_MAX, -EINVAL, "\\xff");
	expect_bad("0x12 \"a\tb\"", SIZE_MAX, -EINVAL, "control characters");
	expect_bad("0x12 \"a\"\n0x13 \"b\"\n0x012 \"c\"\n", SIZE_MAX, -EINVAL,
		   "nm.txt:3: GUID 0x0000000000000012 is already named on line 1");
	expect_bad("0x12 \"a\0b\"", 10, -EINVAL, "nm.txt:1: NUL byte");
}

static void test_limits(void **state)
{
	char line[2100];
	struct fab_nodemap *m;

	/* a name of exactly the maximum, one byte more */
	int n = snprintf(line, sizeof(line), "0x12 \"");
	memset(line + n, 'n', FAB_NODEMAP_NAME_MAX);
	snprintf(line + n + FAB_NODEMAP_NAME_MAX, sizeof(line) - (size_t)n - FAB_NODEMAP_NAME_MAX, "\"");
	m = parse_ok(line);
	assert_int_equal(strlen(fab_nodemap_lookup(m, 0x12)), FAB_NODEMAP_NAME_MAX);
	fab_nodemap_free(m);
	memset(line + n, 'n', FAB_NODEMAP_NAME_MAX + 1);
	snprintf(line + n + FAB_NODEMAP_NAME_MAX + 1, 8, "\"");
	expect_bad(line, SIZE_MAX, -EINVAL, "name longer than 256 bytes");

	/* a comment line longer than the line limit */
	memset(line, '#', FAB_NODEMAP_LINE_MAX + 1);
	line[FAB_NODEMAP_LINE_MAX + 1] = '\0';
	expect_bad(line, SIZE_MAX, -EINVAL, "nm.txt:1: line longer than 1024 bytes");
	line[FAB_NODEMAP_LINE_MAX] = '\0';
	m = parse_ok(line);
	fab_nodemap_free(m);

	/* the file size limit is checked before anything is read */
	expect_bad("", (size_t)FAB_NODEMAP_FILE_MAX + 1, -E2BIG, "larger than");
}

static void test_many(void **state)
{
	size_t cap = 20000 * 40, off = 0;
	char *text = malloc(cap);
	struct fab_nodemap *m;

	/* written in descending order: lookups must not depend on file order */
	for (unsigned i = 20000; i > 0; i--)
		off += (size_t)snprintf(text + off, cap - off, "0x%016x \"n%05u\"\n", i * 7, i);
	assert_int_equal(fab_nodemap_parse(text, off, "big", &m), 0);
	assert_int_equal(fab_nodemap_count(m), 20000);
	for (unsigned i = 1; i <= 20000; i++) {
		char want[16];
		snprintf(want, sizeof(want), "n%05u", i);
		assert_string_equal(fab_nodemap_lookup(m, i * 7), want);
		assert_null(fab_nodemap_lookup(m, i * 7 + 1));
	}
	fab_nodemap_free(m);
	free(text);
}

static void test_files(void **state)
{
	char path[256];
	const char *tmp = getenv("TMPDIR");
	struct fab_nodemap *m = NULL;

	snprintf(path, sizeof(path), "%s/nodemap_%d.txt", tmp ? tmp : "/tmp", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("0xabc \"spine-1\"\n0xabd spine-2\n", f);
	fclose(f);
	assert_int_equal(fab_nodemap_load(path, &m), -EINVAL);
	char want[300];
	snprintf(want, sizeof(want), "%s:2: expected a name", path);
	assert_non_null(strstr(fab_errmsg(), want));
	f = fopen(path, "w");
	fputs("0xabc \"spine-1\"\n", f);
	fclose(f);
	assert_int_equal(fab_nodemap_open(path, &m), 0);
	assert_string_equal(fab_nodemap_name(m, 0xabc, "x"), "spine-1");
	fab_nodemap_free(m);
	/* "" means no map at all, even if the default file exists */
	m = (struct fab_nodemap *)&m;
	assert_int_equal(fab_nodemap_open("", &m), 0);
	assert_null(m);
	unlink(path);
	assert_int_equal(fab_nodemap_open(path, &m), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "cannot open node-name-map"));
	/* a directory is refused */
	assert_int_equal(fab_nodemap_load(tmp ? tmp : "/tmp", &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
