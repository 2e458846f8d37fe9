// SPDX-License-Identifier: MIT
/*
 * JSON documents (reports/json_*.c) with hostile strings from the fabric:
 * node descriptions and finding texts with quotes, backslashes, control
 * bytes, invalid UTF-8, U+2028 and a bidi override. The document must be
 * strict JSON in printable ASCII, and each string must parse back to the
 * text the sanitizer makes of it (fab_text_sanitize), nothing more or less.
 * (tests/integration/test_json_sim.sh validates every command's document
 * against docs/json/ on a simulated fabric and on imported ibdiagnet runs.)
 */
#include "unit/reports/reportfix.h"

#include <jansson.h>

#include "fabsweep/config.h"
#include "fabsweep/names.h"
#include "fabsweep/report_json.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "unit/reports/fatfab.h"

static const char *const hostile[] = {
	"say \"hi\" \\ back\\slash \\\"",
	"ctl \x01\x1b[31m\x7f tab\tnl\n",
	"bad \xff\xfe\xc3\x28 utf8 \xed\xa0\x80",
	"line\xe2\x80\xa8sep\xe2\x80\xa9para",
	"rtl \xe2\x80\xae" "gnp.exe",
	"</script><!-- \"}]",
};
#define N_HOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* What a string should come back as: the sanitizer's text. */
static void clean(const char *raw, char *buf, size_t cap)
{
	fab_text_sanitize((const uint8_t *)raw, strlen(raw), buf, cap);
}

static json_t *check_doc(struct fab_snapshot *s, char **text)
{
	struct fab_config *cfg = NULL;
	struct fab_rules_result res = { 0 };
	struct fab_site_result site = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(fab_config_defaults(&cfg), 0);
	res.by_severity[FAB_SEV_WARNING] = s->n_findings;
	struct fab_json_check in = { .snap = s, .rules = &res, .site = &site, .cfg = cfg,
				     .fail_on = FAB_SEV_ERROR };
	assert_non_null(f);
	assert_int_equal(fab_json_check(f, &in), 0);
	fclose(f);
	fab_config_free(cfg);
	json_error_t e;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
	if (!doc)
		fail_msg("not JSON: %s at line %d", e.text, e.line);
	*text = buf;
	return doc;
}

static void test_hostile_strings(void **state)
{
	struct fab_snapshot *s = fatfab_build(1, 2, 4, true);
	char *text;

	for (size_t i = 0; i < N_HOSTILE; i++) {
		fab_node_set_desc(&s->nodes[i], (const uint8_t *)hostile[i], strlen(hostile[i]));
		struct fab_finding f = {
			.rule_id = "port.errors", .severity = FAB_SEV_WARNING, .node = "0x1",
			.subject = s->nodes[i].desc, .message = hostile[i], .evidence = hostile[(i + 1) % N_HOSTILE],
		};
		assert_int_equal(fab_snapshot_add_finding(s, &f), 0);
	}
	s->label = fab_snapshot_strdup(s, hostile[0], SIZE_MAX);
	json_t *doc = check_doc(s, &text);

	/* printable ASCII only: U+2028 and invalid bytes cannot reach a reader raw */
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if (*p != '\n' && (*p < 0x20 || *p > 0x7e))
			fail_msg("byte 0x%02x at %td", *p, (const char *)p - text);
	assert_non_null(strstr(text, "\\u2028"));
	assert_non_null(strstr(text, "<\\/script>")); /* '/' escaped: inert inside HTML too */

	json_t *fs = json_object_get(doc, "findings");
	assert_int_equal(json_array_size(fs), N_HOSTILE);
	for (size_t i = 0; i < N_HOSTILE; i++) {
		char want[FAB_DESC_CAP], want_ev[FAB_DESC_CAP];
		json_t *f = json_array_get(fs, i);

		clean(hostile[i], want, sizeof(want));
		clean(hostile[(i + 1) % N_HOSTILE], want_ev, sizeof(want_ev));
		assert_string_equal(json_string_value(json_object_get(f, "subject")), want);
		assert_string_equal(json_string_value(json_object_get(f, "message")), want);
		assert_string_equal(json_string_value(json_object_get(f, "evidence")), want_ev);
		assert_true(json_is_null(json_object_get(f, "port")));
	}
	/* quotes and backslashes come back as themselves */
	assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 0), "message")),
			    "say \"hi\" \\ back\\slash \\\"");
	/* U+2028 and U+2029 survive as characters (escaped on the wire) */
	assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 3), "message")),
			    "line\xe2\x80\xa8sep\xe2\x80\xa9para");
	/* control bytes and invalid UTF-8 become the four characters \xNN */
	assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 2), "message")),
			    "bad \\xff\\xfe\\xc3( utf8 \\xed\\xa0\\x80");
	char want_label[FAB_DESC_CAP];
	clean(hostile[0], want_label, sizeof(want_label));
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "scan"), "label")),
			    want_label);
	json_decref(doc);
	free(text);
	fab_snapshot_free(s);
}

/* The envelope and the verdict fields a script reads first. */
static void test_numbers(void **state)
{
	struct fab_snapshot *s = fatfab_build(1, 1, 1, true);
	char *text;
	struct fab_finding f = { .rule_id = "port.errors", .severity = FAB_SEV_ERROR,
				 .subject = "x", .message = "m" };

	assert_int_equal(fab_snapshot_add_finding(s, &f), 0);
	json_t *doc = check_doc(s, &text);
	assert_string_equal(json_string_value(json_object_get(doc, "command")), "check");
	assert_int_equal(json_integer_value(json_object_get(doc, "format")), 1);
	assert_true(json_is_false(json_object_get(doc, "failed")));
	assert_string_equal(json_string_value(json_object_get(doc, "fail_on")), "error");
	json_decref(doc);
	free(text);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_strings),
		cmocka_unit_test(test_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
