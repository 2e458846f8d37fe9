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
#include "fabsweep/counter.h"
#include "fabsweep/diff.h"
#include "fabsweep/names.h"
#include "fabsweep/pkey.h"
#include "fabsweep/store.h"
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

/* A document written to memory and parsed back (strict JSON). */
static json_t *parsed(char *buf, size_t len)
{
	json_error_t e;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);

	if (!doc)
		fail_msg("not JSON: %s at line %d", e.text, e.line);
	free(buf);
	return doc;
}

#define S(obj, key) json_string_value(json_object_get(obj, key))
#define I(obj, key) json_integer_value(json_object_get(obj, key))

/*
 * diff --json: one change of every kind, each field read back against the
 * value given (the integration tests reach only some kinds: a pulled
 * cable, renamed hosts). Numbers and names are the kinds' own, by hand.
 */
static void test_diff_every_kind(void **state)
{
	struct fab_snapshot *o = fab_snapshot_new(), *n = fab_snapshot_new();
	struct fab_change_end sw = { .guid = 0x10, .port = 3, .type = FAB_NODE_SWITCH, .desc = "leaf \"1\"" };
	struct fab_change_end ca = { .guid = 0x20, .port = 1, .type = FAB_NODE_CA, .desc = "host\x01" };
	struct fab_change c[FAB_CHG__COUNT] = {
		[FAB_CHG_NODE_ADDED] = { .subject = ca },
		[FAB_CHG_NODE_REMOVED] = { .subject = sw },
		[FAB_CHG_NODE_DESC] = { .subject = ca, .old_text = "h-old", .new_text = "h-new" },
		[FAB_CHG_LINK_ADDED] = { .subject = sw, .peer = ca, .width = FAB_WIDTH_4X, .speed = FAB_SPEED_HDR },
		[FAB_CHG_LINK_REMOVED] = { .subject = ca, .peer = sw, .width = FAB_WIDTH_1X, .speed = FAB_SPEED_FDR10 },
		[FAB_CHG_LINK_WIDTH] = { .subject = sw, .peer = ca, .old_value = FAB_WIDTH_4X, .new_value = FAB_WIDTH_1X },
		[FAB_CHG_LINK_SPEED] = { .subject = sw, .peer = ca, .old_value = FAB_SPEED_NDR, .new_value = FAB_SPEED_EDR },
		[FAB_CHG_LID] = { .subject = ca, .old_value = 7, .new_value = 70 },
		[FAB_CHG_PORT_STATE] = { .subject = sw, .peer = ca, .old_value = FAB_STATE_ACTIVE,
					 .new_value = FAB_STATE_DOWN, .old_phys = FAB_PHYS_LINKUP,
					 .new_phys = FAB_PHYS_POLLING },
		[FAB_CHG_SM_MASTER] = { .subject = ca, .old_value = 0, .new_value = 0x21, .sm_guid = 0x21 },
		[FAB_CHG_SM_APPEARED] = { .subject = ca, .new_value = 2, .sm_guid = 0x21 },
		[FAB_CHG_SM_VANISHED] = { .subject = sw, .old_value = 3, .sm_guid = 0x10 },
		[FAB_CHG_SM_STATE] = { .subject = ca, .old_value = 2, .new_value = 3, .sm_guid = 0x21 },
		[FAB_CHG_SM_PRIORITY] = { .subject = ca, .old_value = 1, .new_value = 14, .sm_guid = 0x21 },
		[FAB_CHG_COUNTER_INCREASE] = { .subject = sw, .peer = ca, .counter = FAB_CTR_SYMBOL_ERRORS,
					       .old_value = 65000, .new_value = 65535, .increase = 535,
					       .saturated = true, .at_least = true },
		[FAB_CHG_COUNTER_RESET] = { .subject = sw, .counter = FAB_CTR_LINK_DOWNED, .old_value = 9,
					    .new_value = 2, .increase = 2, .at_least = true },
		[FAB_CHG_ROUTES] = { .subject = sw, .old_value = 40, .new_value = 3 },
		[FAB_CHG_PARTITION] = { .subject = ca, .peer = sw, .partition = 0x0001,
					.old_value = FAB_PKEY_FULL_MEMBER, .new_value = FAB_PKEY_LIMITED },
		[FAB_CHG_PKEY_ENFORCEMENT] = { .subject = sw, .old_value = 0,
					       .new_value = FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB },
		[FAB_CHG_OP_VLS] = { .subject = sw, .peer = ca, .old_value = 4, .new_value = 3 },
		[FAB_CHG_SL2VL] = { .subject = sw, .peer = ca, .old_value = 12, .new_value = 2 },
		[FAB_CHG_VLARB] = { .subject = sw, .peer = ca, .old_value = 0xff, .new_value = 0xf7 },
		[FAB_CHG_MODULE] = { .subject = { .system = "gpu\"1\x1b", .ifname = "eth<0>", .desc = "" },
				     .old_text = "FS OSFP-SR8-800G G1", .new_text = NULL },
		[FAB_CHG_MCAST_ADDED] = { .mgid = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, [12] = 0xff, 0xff, 0xff, 0xff },
					  .mlid = 0xc000, .old_mlid = 0xc000, .new_value = 8 },
		[FAB_CHG_MCAST_REMOVED] = { .mgid = { 0xff, 0x12, [15] = 1 }, .mlid = 0xc001, .old_mlid = 0xc001,
					    .old_value = 2 },
		[FAB_CHG_MCAST_TREE] = { .mgid = { 0xff, 0x12, 0x60, 0x1b, [15] = 0x16 }, .mlid = 0xc003,
					 .old_mlid = 0xc002, .old_value = 3, .new_value = 4, .switches_changed = 2 },
	};
	struct fab_diff d = { .changes = c, .n = FAB_CHG__COUNT };
	for (unsigned k = 0; k < FAB_CHG__COUNT; k++) {
		c[k].kind = (uint8_t)k;
		d.count[k] = 1;
	}
	o->scan_id = 4;
	o->started_at_ms = 1700000000123LL;
	o->status = FAB_SCAN_PARTIAL;
	n->scan_id = 5;
	n->started_at_ms = 1700000600000LL;
	n->status = FAB_SCAN_COMPLETE;
	n->label = "after";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(fab_json_diff(f, &d, o, n, NULL), 0);
	fclose(f);
	json_t *doc = parsed(buf, len), *ch = json_object_get(doc, "changes");

	assert_string_equal(S(doc, "command"), "diff");
	assert_int_equal(I(json_object_get(doc, "old"), "id"), 4);
	assert_string_equal(S(json_object_get(doc, "old"), "started_at"), "2023-11-14T22:13:20.123Z");
	assert_string_equal(S(json_object_get(doc, "old"), "status"), "partial");
	assert_true(json_is_null(json_object_get(json_object_get(doc, "old"), "finished_at")));
	assert_string_equal(S(json_object_get(doc, "new"), "label"), "after");
	assert_int_equal(I(doc, "n_changes"), FAB_CHG__COUNT);
	assert_int_equal(json_object_size(json_object_get(doc, "counts")), FAB_CHG__COUNT);
	assert_int_equal(I(json_object_get(doc, "counts"), "partition-enforcement"), 1);
	assert_int_equal(json_array_size(ch), FAB_CHG__COUNT);
	/* kind, old, new for each: null where the kind has none */
	static const char *const want[FAB_CHG__COUNT][3] = {
		{ "node-added", NULL, NULL }, { "node-removed", NULL, NULL },
		{ "node-description", "h-old", "h-new" }, { "link-added", NULL, NULL },
		{ "link-removed", NULL, NULL }, { "link-width", "4X", "1X" }, { "link-speed", "NDR", "EDR" },
		{ "lid", "7", "70" }, { "port-state", "active", "down" },
		{ "sm-master", "none", "0x0000000000000021" }, { "sm-appeared", NULL, "standby" },
		{ "sm-vanished", "master", NULL }, { "sm-state", "standby", "master" },
		{ "sm-priority", "1", "14" }, { "counter-increase", "65000", "65535" },
		{ "counter-reset", "9", "2" }, { "routes", "40", "3" }, { "partition", "full", "limited" },
		{ "partition-enforcement", "none", "inbound+outbound" }, { "op-vls", "VL0-7", "VL0-3" },
		{ "sl2vl", "12", "2" }, { "vlarb", "0-7", "0-2,4-7" },
		{ "module", "FS OSFP-SR8-800G G1", "none" },
		{ "mcast-group-added", NULL, "8" }, { "mcast-group-removed", "2", NULL },
		{ "mcast-tree", "3", "4" },
	};
	for (unsigned k = 0; k < FAB_CHG__COUNT; k++) {
		json_t *x = json_array_get(ch, k);
		assert_string_equal(S(x, "kind"), want[k][0]);
		for (int i = 1; i <= 2; i++) {
			json_t *v = json_object_get(x, i == 1 ? "old" : "new");
			if (!want[k][i])
				assert_true(json_is_null(v));
			else
				assert_string_equal(json_string_value(v), want[k][i]);
		}
	}
	/* the ends: GUID, port, type, name (no map: the description), cleaned */
	json_t *e = json_object_get(json_array_get(ch, FAB_CHG_LINK_ADDED), "subject");
	assert_string_equal(S(e, "guid"), "0x0000000000000010");
	assert_int_equal(I(e, "port"), 3);
	assert_string_equal(S(e, "type"), "switch");
	assert_string_equal(S(e, "name"), "leaf \"1\"");
	e = json_object_get(json_array_get(ch, FAB_CHG_LINK_ADDED), "peer");
	assert_string_equal(S(e, "type"), "ca");
	assert_string_equal(S(e, "description"), "host\\x01");
	assert_true(json_is_null(json_object_get(json_array_get(ch, FAB_CHG_LID), "peer")));
	/* the fields of some kinds */
	json_t *x = json_array_get(ch, FAB_CHG_LINK_ADDED);
	assert_string_equal(S(x, "width"), "4X");
	assert_string_equal(S(x, "speed"), "HDR");
	x = json_array_get(ch, FAB_CHG_LINK_REMOVED);
	assert_string_equal(S(x, "width"), "1X");
	assert_string_equal(S(x, "speed"), "FDR10");
	x = json_array_get(ch, FAB_CHG_PORT_STATE);
	assert_string_equal(S(x, "old_phys"), "linkup");
	assert_string_equal(S(x, "new_phys"), "polling");
	/* sm-master names both masters in old and new, and the new one in
	 * sm_guid as every sm-* kind names its SM */
	assert_string_equal(S(json_array_get(ch, FAB_CHG_SM_MASTER), "sm_guid"), "0x0000000000000021");
	for (unsigned k = FAB_CHG_SM_APPEARED; k <= FAB_CHG_SM_PRIORITY; k++)
		assert_string_equal(S(json_array_get(ch, k), "sm_guid"),
				    k == FAB_CHG_SM_VANISHED ? "0x0000000000000010" : "0x0000000000000021");
	x = json_array_get(ch, FAB_CHG_COUNTER_INCREASE);
	assert_string_equal(S(x, "counter"), "SymbolErrorCounter");
	assert_int_equal(I(x, "increase"), 535);
	assert_true(json_is_true(json_object_get(x, "saturated")));
	assert_true(json_is_true(json_object_get(x, "at_least")));
	x = json_array_get(ch, FAB_CHG_COUNTER_RESET);
	assert_string_equal(S(x, "counter"), "LinkDownedCounter");
	assert_int_equal(I(x, "increase"), 2);
	assert_true(json_is_false(json_object_get(x, "saturated")));
	assert_true(json_is_true(json_object_get(x, "at_least")));
	assert_string_equal(S(json_array_get(ch, FAB_CHG_PARTITION), "partition"), "0x0001");
	/* a RoCE host's module: no subject, its interface instead, cleaned */
	x = json_array_get(ch, FAB_CHG_MODULE);
	assert_true(json_is_null(json_object_get(x, "subject")));
	assert_string_equal(S(json_object_get(x, "eth_port"), "system"), "gpu\"1\\x1b");
	assert_string_equal(S(json_object_get(x, "eth_port"), "ifname"), "eth<0>");
	assert_null(json_object_get(json_array_get(ch, FAB_CHG_LID), "eth_port"));
	x = json_array_get(ch, FAB_CHG_MCAST_ADDED);
	assert_string_equal(S(x, "mgid"), "ff12:401b:ffff::ffff:ffff");
	assert_string_equal(S(x, "mlid"), "0xc000");
	assert_null(json_object_get(x, "switches_changed"));
	assert_string_equal(S(json_array_get(ch, FAB_CHG_MCAST_REMOVED), "mgid"), "ff12::1");
	x = json_array_get(ch, FAB_CHG_MCAST_TREE);
	assert_string_equal(S(x, "mgid"), "ff12:601b::16");
	assert_string_equal(S(x, "mlid"), "0xc003");
	assert_string_equal(S(x, "old_mlid"), "0xc002");
	assert_int_equal(I(x, "switches_changed"), 2);
	/* no field of another kind */
	assert_null(json_object_get(json_array_get(ch, FAB_CHG_LID), "width"));
	assert_null(json_object_get(json_array_get(ch, FAB_CHG_ROUTES), "counter"));
	assert_null(json_object_get(json_array_get(ch, FAB_CHG_NODE_DESC), "sm_guid"));
	json_decref(doc);
	o->label = n->label = NULL;
	fab_snapshot_free(o);
	fab_snapshot_free(n);
}

/* scans --json: null where the database has nothing, a never-checked
 * scan's findings null (not 0); db info's sizes from the page counts. */
static void test_scans_and_db_info(void **state)
{
	struct fab_json_scans *l = NULL;
	struct fab_scan_row r[2] = {
		{ .scan_id = 1, .started_at = "2026-01-02T03:04:05.006Z", .finished_at = "2026-01-02T03:04:06.000Z",
		  .status = "complete", .label = "lab\x1b[1m", .host = "h", .source = "ib:mlx5_0/1",
		  .n_nodes = 3, .n_ports = 10, .n_links = 2, .n_findings = 4, .n_errors = 1, .checked = true },
		{ .scan_id = 9, .status = "partial", .n_nodes = 1, .n_findings = 0 },
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(fab_json_scans_new("/d/f.db", &l), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(fab_json_scans_row(&r[i], l), 0);
	assert_int_equal(fab_json_scans_write(l, f), 0);
	fclose(f);
	json_t *doc = parsed(buf, len), *s = json_object_get(doc, "scans");
	assert_string_equal(S(doc, "database"), "/d/f.db");
	assert_int_equal(json_array_size(s), 2);
	json_t *a = json_array_get(s, 0), *b = json_array_get(s, 1);
	assert_int_equal(I(a, "id"), 1);
	assert_string_equal(S(a, "started_at"), "2026-01-02T03:04:05.006Z");
	assert_string_equal(S(a, "finished_at"), "2026-01-02T03:04:06.000Z");
	assert_string_equal(S(a, "label"), "lab\\x1b[1m");
	assert_string_equal(S(a, "host"), "h");
	assert_string_equal(S(a, "source"), "ib:mlx5_0/1");
	assert_int_equal(I(a, "nodes"), 3);
	assert_int_equal(I(a, "ports"), 10);
	assert_int_equal(I(a, "links"), 2);
	assert_int_equal(I(a, "findings"), 4);
	assert_int_equal(I(a, "scan_errors"), 1);
	assert_true(json_is_true(json_object_get(a, "checked")));
	assert_int_equal(I(b, "id"), 9);
	assert_true(json_is_null(json_object_get(b, "findings")));
	assert_true(json_is_false(json_object_get(b, "checked")));
	assert_true(json_is_null(json_object_get(b, "started_at")));
	assert_true(json_is_null(json_object_get(b, "label")));
	json_decref(doc);

	struct fab_store_info info = { .schema_version = 9, .n_scans = 3, .page_size = 4096,
				       .page_count = 61, .freelist_count = 5, .journal_mode = "wal",
				       .first_scan = 7, .last_scan = 9 };
	f = open_memstream(&buf, &len);
	assert_int_equal(fab_json_db_info(f, "x.db", &info), 0);
	fclose(f);
	doc = parsed(buf, len);
	json_t *d = json_object_get(doc, "database");
	assert_string_equal(S(doc, "command"), "db info");
	assert_string_equal(S(d, "path"), "x.db");
	assert_int_equal(I(d, "schema_version"), 9);
	assert_string_equal(S(d, "journal_mode"), "wal");
	assert_int_equal(I(d, "scans"), 3);
	assert_int_equal(I(d, "first_scan"), 7);
	assert_int_equal(I(d, "last_scan"), 9);
	assert_int_equal(I(d, "size_bytes"), 61 * 4096);
	assert_int_equal(I(d, "free_bytes"), 5 * 4096);
	json_decref(doc);
	/* an empty database: no first or last scan */
	info.n_scans = 0;
	f = open_memstream(&buf, &len);
	assert_int_equal(fab_json_db_info(f, "x.db", &info), 0);
	fclose(f);
	doc = parsed(buf, len);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "database"), "first_scan")));
	assert_true(json_is_null(json_object_get(json_object_get(doc, "database"), "last_scan")));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_strings),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_diff_every_kind),
		cmocka_unit_test(test_scans_and_db_info),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
