// SPDX-License-Identifier: MIT
/*
 * Findings as Alertmanager alerts (reports/alertmanager.c): the API v2
 * body, parsed back, carries the labels an operator routes on and the
 * annotations (summary, subject, the rule's title and remedy), startsAt,
 * endsAt (the clear time, or now + the validity while firing); a hostile
 * node description is cleaned and escaped (strict JSON in printable
 * ASCII); a post to a port nothing listens on fails with a message and
 * no hang. (tests/integration/test_watch_events.sh posts to a real
 * Alertmanager and reads its alerts back.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fabsweep/alert.h"
#include "fabsweep/error.h"
#include "fabsweep/rules.h"

static const char *str(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(json_object_get(o, a), b);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void test_body(void **state)
{
	struct fab_alert a[2] = {
		{ .fingerprint = "port.down\x1f" "0x0002c90200000010\x1f" "4", .rule_id = "port.down",
		  .severity = "error", .node = "0x0002c90200000010", .node_name = "leaf001", .port = "4",
		  .peer = "spine002/1", .subject = "leaf001/4", .message = "the port is down; ...",
		  .starts_ms = 1796418000000 },
		{ .fingerprint = "x", .rule_id = "sm.none", .severity = "error", .subject = "subnet",
		  .message = "no subnet manager is master", .starts_ms = 1796418000000,
		  .ends_ms = 1796418060000 },
	};
	char *body = NULL;
	json_error_t je;
	json_t *doc, *x;

	(void)state;
	assert_int_equal(fab_alertmanager_body(a, 2, 1796418030000, 240000, &body), 0);
	doc = json_loads(body, JSON_REJECT_DUPLICATES, &je);
	assert_non_null(doc);
	assert_int_equal(json_array_size(doc), 2);
	x = json_array_get(doc, 0);
	assert_string_equal(str(x, "labels", "alertname"), "port.down");
	assert_string_equal(str(x, "labels", "job"), "fabsweep");
	assert_string_equal(str(x, "labels", "severity"), "error");
	assert_string_equal(str(x, "labels", "node"), "leaf001");
	assert_string_equal(str(x, "labels", "node_guid"), "0x0002c90200000010");
	assert_string_equal(str(x, "labels", "port"), "4");
	assert_string_equal(str(x, "labels", "peer"), "spine002/1");
	assert_string_equal(str(x, "annotations", "summary"), "the port is down; ...");
	assert_string_equal(str(x, "annotations", "subject"), "leaf001/4");
	assert_string_equal(str(x, "annotations", "remedy"), fab_rule_find("port.down")->remediation);
	assert_string_equal(str(x, "annotations", "description"), fab_rule_find("port.down")->title);
	assert_string_equal(json_string_value(json_object_get(x, "startsAt")), "2026-12-04T21:00:00.000Z");
	/* firing: valid for 240 s from now, re-sent before then */
	assert_string_equal(json_string_value(json_object_get(x, "endsAt")), "2026-12-04T21:04:30.000Z");
	x = json_array_get(doc, 1);
	/* no node, port, peer: no such labels (an empty label is none) */
	assert_null(json_object_get(json_object_get(x, "labels"), "node"));
	assert_null(json_object_get(json_object_get(x, "labels"), "port"));
	assert_null(json_object_get(json_object_get(x, "labels"), "peer"));
	/* cleared: its end */
	assert_string_equal(json_string_value(json_object_get(x, "endsAt")), "2026-12-04T21:01:00.000Z");
	json_decref(doc);
	free(body);
}

static void test_hostile_name(void **state)
{
	struct fab_alert a = { .fingerprint = "f", .rule_id = "port.errors", .severity = "warning",
			       .node_name = "say \"hi\" \x01\x1b[31m \xff\xfe rtl \xe2\x80\xae" "x",
			       .message = "m", .starts_ms = 1 };
	char *body = NULL;
	json_error_t je;
	json_t *doc;

	(void)state;
	assert_int_equal(fab_alertmanager_body(&a, 1, 2, 1000, &body), 0);
	for (const char *c = body; *c; c++)
		assert_true(*c >= ' ' && *c < 0x7f);
	doc = json_loads(body, 0, &je);
	assert_non_null(doc);
	const char *n = str(json_array_get(doc, 0), "labels", "node");
	assert_non_null(n);
	assert_null(strchr(n, '\x1b'));
	assert_null(strstr(n, "\xe2\x80\xae"));
	assert_non_null(strstr(n, "say \"hi\""));
	json_decref(doc);
	free(body);
}

static void test_post_refused(void **state)
{
	(void)state;
	/* port 1 on loopback: nothing listens, the connection is refused at once */
	assert_int_equal(fab_alertmanager_post("http://127.0.0.1:1/", "[]", 2000), -ECONNREFUSED);
	assert_non_null(strstr(fab_errmsg(), "cannot post alerts to 'http://127.0.0.1:1/api/v2/alerts'"));
	fab_err_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body),
		cmocka_unit_test(test_hostile_name),
		cmocka_unit_test(test_post_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
