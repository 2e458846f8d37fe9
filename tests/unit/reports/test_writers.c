// SPDX-License-Identifier: MIT
/* The pieces under both reports: SHA-256, text cleaning, HTML escaping,
 * the XML writer and atomic files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "reports/atomic.h"
#include "reports/htmlw.h"
#include "reports/sha256.h"
#include "reports/text.h"
#include "reports/xmlw.h"

static void hex(const uint8_t *d, char *out)
{
	for (int i = 0; i < FAB_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_sha256_vectors(void **state)
{
	uint8_t d[FAB_SHA256_LEN];
	char h[2 * FAB_SHA256_LEN + 1], b64[FAB_SHA256_B64_LEN];
	char *million = malloc(1000000);

	fab_sha256("", 0, d);
	hex(d, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	fab_sha256("abc", 3, d);
	hex(d, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 56 bytes: the padding needs a second block */
	fab_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, d);
	hex(d, h);
	assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	fab_sha256(million, 1000000, d);
	hex(d, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	fab_sha256_base64("abc", 3, b64);
	assert_string_equal(b64, "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
	free(million);
}

static void test_text_clean(void **state)
{
	struct fab_report_text t = { 0 };
	const char *plain = "leaf01 port 3";

	assert_ptr_equal(fab_report_text_clean(&t, plain), plain); /* no copy */
	assert_null(fab_report_text_clean(&t, NULL));
	assert_string_equal(fab_report_text_clean(&t, "a\x1b[31mb\x01\x7f"), "a\\x1b[31mb\\x01\\x7f");
	assert_string_equal(fab_report_text_clean(&t, "bad \xff\xfe utf8 \xc3"), "bad \\xff\\xfe utf8 \\xc3");
	assert_string_equal(fab_report_text_clean(&t, "caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");
	/* U+FFFE and U+FFFF are not XML characters */
	assert_string_equal(fab_report_text_clean(&t, "x\xef\xbf\xbey\xef\xbf\xbfz\xef\xbf\xbd"),
			    "x\\xef\\xbf\\xbey\\xef\\xbf\\xbfz\xef\xbf\xbd");
	/* bidi override U+202E */
	assert_string_equal(fab_report_text_clean(&t, "a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb");
	/* long strings are cut at the cap */
	size_t n = FAB_REPORT_TEXT_CAP + 100;
	char *big = malloc(n + 1);
	memset(big, 'x', n);
	big[n] = '\0';
	assert_int_equal(strlen(fab_report_text_clean(&t, big)), FAB_REPORT_TEXT_CAP);
	free(big);
	fab_report_text_free(&t);

	int cut;
	assert_int_equal(fab_report_text_prefix("h\xc3\xa9llo", 2, &cut), 3);
	assert_true(cut);
	assert_int_equal(fab_report_text_prefix("abc", 3, &cut), 3);
	assert_false(cut);
}

/* Runs fn on an HTML writer over a memory stream; returns the text. */
static char *html_of(void (*fn)(struct fab_hw *w, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct fab_hw w;

	fab_hw_init(&w, f);
	fn(&w, arg);
	assert_int_equal(fab_hw_finish(&w), 0);
	fclose(f);
	return buf;
}

static void emit_text(struct fab_hw *w, const void *arg)
{
	fab_hw_text(w, arg);
}

static void emit_cut(struct fab_hw *w, const void *arg)
{
	fab_hw_text_cut(w, arg, 4);
}

static void emit_num(struct fab_hw *w, const void *arg)
{
	fab_hw_u64(w, *(const uint64_t *)arg);
}

static void test_html_escape(void **state)
{
	char *s = html_of(emit_text, "<script>alert(\"x\" & 'y')</script>\x1b[2J\xff");
	assert_string_equal(s, "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;\\x1b[2J\\xff");
	free(s);
	s = html_of(emit_cut, "a<b>cdef");
	assert_string_equal(s, "a&lt;b&gt;\xe2\x80\xa6");
	free(s);
	s = html_of(emit_text, NULL);
	assert_string_equal(s, "");
	free(s);
	uint64_t v = 18446744073709551615ull;
	s = html_of(emit_num, &v);
	assert_string_equal(s, "18446744073709551615");
	free(s);
}

static void test_xml_writer(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct fab_xw x;

	assert_int_equal(fab_xw_open(&x, f, " "), 0);
	fab_xw_start(&x, "r");
	fab_xw_attr(&x, "a", "<\"&'>\x01\xff");
	fab_xw_attr(&x, "skipped", NULL);
	fab_xw_attr_guid(&x, "g", 0x2c90300a1b2c3ull);
	fab_xw_attr_u64(&x, "n", 0);
	fab_xw_attr_i64(&x, "i", -5);
	fab_xw_elem_text(&x, "t", "a<b>&c\x1b]0;x\x07");
	fab_xw_end(&x);
	assert_int_equal(fab_xw_close(&x), 0);
	fclose(f);
	assert_non_null(strstr(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
	assert_non_null(strstr(buf, "a=\"&lt;&quot;&amp;'&gt;\\x01\\xff\""));
	assert_null(strstr(buf, "skipped"));
	assert_non_null(strstr(buf, "g=\"0x0002c90300a1b2c3\" n=\"0\" i=\"-5\""));
	assert_non_null(strstr(buf, "<t>a&lt;b&gt;&amp;c\\x1b]0;x\\x07</t>"));
	free(buf);
}

static char dir[256];

static int count_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_atomic_file(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char path[300], buf[64] = { 0 };
	struct fab_report_file rf;
	struct stat st;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/test_atomic_%d", tmp ? tmp : "/tmp", (int)getpid());
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/out.html", dir);

	/* commit: the target appears whole, no temporary is left */
	assert_int_equal(fab_report_file_open(path, &rf), 0);
	fputs("first", rf.f);
	assert_int_equal(stat(path, &st), -1); /* not there before the commit */
	assert_int_equal(count_entries(), 1);  /* only the temporary */
	assert_int_equal(fab_report_file_commit(&rf), 0);
	assert_int_equal(count_entries(), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	/* abort: the old file stays as it was */
	assert_int_equal(fab_report_file_open(path, &rf), 0);
	fputs("second, never seen", rf.f);
	fab_report_file_abort(&rf);
	fab_report_file_abort(&rf); /* idempotent */
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "first");
	assert_int_equal(count_entries(), 1);

	/* a directory that does not exist: an error that names the file */
	char bad[400];
	snprintf(bad, sizeof(bad), "%s/missing/out.xml", dir);
	assert_int_equal(fab_report_file_open(bad, &rf), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "missing/out.xml.tmp"));

	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_text_clean),
		cmocka_unit_test(test_html_escape),
		cmocka_unit_test(test_xml_writer),
		cmocka_unit_test(test_atomic_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
