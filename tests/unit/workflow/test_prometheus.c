// SPDX-License-Identifier: MIT
/*
 * The Prometheus textfile: every line is parsed back strictly (text format
 * 0.0.4: HELP/TYPE before a family's samples, families contiguous, unique
 * series, label values escaped with \\ \" \n only, valid UTF-8, no
 * timestamps), with hostile node descriptions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/report.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "unit/snapfix.h"

/* ---- a strict parser of the text format --------------------------------- */

struct series {
	char *key; /* name, then "|label=value" per label, values decoded */
	double value;
};

struct parsed {
	struct series *s;
	size_t n, cap;
	char families[128][96]; /* in order of their TYPE lines */
	char types[128][16];
	size_t n_families;
};

static bool utf8_valid(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			   : (c & 0xf8) == 0xf0 ? 4 : 0;
		if (!len || i + len > n || (len == 2 && c < 0xc2))
			return false;
		for (size_t k = 1; k < len; k++)
			if (((unsigned char)s[i + k] & 0xc0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

static bool name_char(char c, bool first, bool colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

/* Reads a name at *p; returns its length (0: none). */
static size_t take_name(const char **p, bool colon)
{
	const char *s = *p;

	if (!name_char(*s, true, colon))
		return 0;
	while (name_char(*s, false, colon))
		s++;
	size_t n = (size_t)(s - *p);
	*p = s;
	return n;
}

static void append_key(char **key, size_t *len, const char *s, size_t n)
{
	*key = realloc(*key, *len + n + 1);
	memcpy(*key + *len, s, n);
	*len += n;
	(*key)[*len] = '\0';
}

#define BAD(...) fail_msg("line %u: " __VA_ARGS__)

static void parse_sample(struct parsed *ps, const char *line, unsigned ln)
{
	const char *p = line;
	size_t nlen = take_name(&p, true), klen = 0;
	char *key = NULL, names[16][64];
	size_t n_labels = 0;

	if (!nlen)
		BAD("no metric name: '%s'", ln, line);
	if (strncmp(line, "fabsweep_", 9))
		BAD("metric outside the fabsweep_ namespace: '%s'", ln, line);
	append_key(&key, &klen, line, nlen);
	/* the sample belongs to the family of the last TYPE line */
	if (!ps->n_families)
		BAD("sample before any TYPE line", ln);
	const char *fam = ps->families[ps->n_families - 1];
	if (strlen(fam) != nlen || strncmp(fam, line, nlen))
		BAD("sample '%.*s' outside its family (current: %s)", ln, (int)nlen, line, fam);
	if (*p == '{') {
		p++;
		while (*p != '}') {
			const char *ls = p;
			size_t l = take_name(&p, false);
			if (!l)
				BAD("bad label name at '%s'", ln, ls);
			if (l >= 2 && ls[0] == '_' && ls[1] == '_')
				BAD("reserved label name", ln);
			assert_true(n_labels < 16 && l < 64);
			snprintf(names[n_labels], 64, "%.*s", (int)l, ls);
			for (size_t k = 0; k < n_labels; k++)
				if (!strcmp(names[k], names[n_labels]))
					BAD("label %s twice", ln, names[k]);
			n_labels++;
			if (*p++ != '=' || *p++ != '"')
				BAD("expected =\" after label %.*s", ln, (int)l, ls);
			append_key(&key, &klen, "|", 1);
			append_key(&key, &klen, ls, l);
			append_key(&key, &klen, "=", 1);
			char val[8192];
			size_t vn = 0;
			for (;;) {
				if (!*p)
					BAD("unterminated label value", ln);
				if (*p == '"')
					break;
				if (*p == '\\') {
					p++;
					if (*p == '\\' || *p == '"')
						val[vn++] = *p;
					else if (*p == 'n')
						val[vn++] = '\n';
					else
						BAD("bad escape \\%c", ln, *p);
					p++;
					continue;
				}
				val[vn++] = *p++;
				assert_true(vn < sizeof(val));
			}
			if (!utf8_valid(val, vn))
				BAD("label value is not UTF-8", ln);
			append_key(&key, &klen, val, vn);
			p++; /* closing quote */
			if (*p == ',')
				p++;
			else if (*p != '}')
				BAD("expected , or } after a label value at '%s'", ln, p);
		}
		p++;
	}
	if (*p++ != ' ')
		BAD("expected one space before the value", ln);
	char *end;
	double v = strtod(p, &end);
	if (end == p || *end)
		BAD("value '%s' is not a number alone (timestamps are not allowed)", ln, p);
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 256;
		ps->s = realloc(ps->s, ps->cap * sizeof(*ps->s));
	}
	ps->s[ps->n++] = (struct series){ .key = key, .value = v };
}

static int cmp_series(const void *a, const void *b)
{
	return strcmp(((const struct series *)a)->key, ((const struct series *)b)->key);
}

/* Parses a copy of text into ps; fails the test at the first bad line. */
static void parse_all(const char *orig, struct parsed *ps)
{
	char *text = strdup(orig);
	unsigned ln = 0;
	char help_for[96] = "";

	memset(ps, 0, sizeof(*ps));
	assert_true(strlen(text) > 0);
	assert_int_equal(text[strlen(text) - 1], '\n');
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		ln++;
		if (!*line)
			BAD("empty line", ln);
		if (!strncmp(line, "# HELP ", 7)) {
			const char *p = line + 7;
			size_t n = take_name(&p, true);
			if (!n || *p != ' ' || !p[1])
				BAD("bad HELP line '%s'", ln, line);
			for (const char *c = p + 1; *c; c++)
				if (*c == '\\' && c[1] != '\\' && c[1] != 'n')
					BAD("bad escape in HELP", ln);
				else if (*c == '\\')
					c++;
			snprintf(help_for, sizeof(help_for), "%.*s", (int)n, line + 7);
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			const char *p = line + 7;
			size_t n = take_name(&p, true);
			if (!n || *p != ' ')
				BAD("bad TYPE line '%s'", ln, line);
			p++;
			if (strcmp(p, "counter") && strcmp(p, "gauge") && strcmp(p, "untyped"))
				BAD("type '%s'", ln, p);
			char fam[96];
			snprintf(fam, sizeof(fam), "%.*s", (int)n, line + 7);
			if (strcmp(fam, help_for))
				BAD("TYPE of %s not right after its HELP", ln, fam);
			for (size_t k = 0; k < ps->n_families; k++)
				if (!strcmp(ps->families[k], fam))
					BAD("family %s declared twice", ln, fam);
			if (!strcmp(p, "counter") && (n < 6 || strcmp(fam + n - 6, "_total")))
				BAD("counter %s does not end in _total", ln, fam);
			assert_true(ps->n_families < 128);
			snprintf(ps->families[ps->n_families], 96, "%s", fam);
			snprintf(ps->types[ps->n_families++], 16, "%s", p);
			continue;
		}
		if (line[0] == '#')
			BAD("unexpected comment '%s'", ln, line);
		parse_sample(ps, line, ln);
	}
	free(text);
	qsort(ps->s, ps->n, sizeof(*ps->s), cmp_series);
	for (size_t i = 1; i < ps->n; i++)
		if (!strcmp(ps->s[i].key, ps->s[i - 1].key))
			fail_msg("series twice: %s", ps->s[i].key);
}

static void free_parsed(struct parsed *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->s[i].key);
	free(ps->s);
}

/* The value of a series given as "name|label=value|...", or NAN. */
static double get(const struct parsed *ps, const char *key)
{
	struct series k = { .key = (char *)key };
	const struct series *s = bsearch(&k, ps->s, ps->n, sizeof(*ps->s), cmp_series);

	return s ? s->value : NAN;
}

static void want_value(const struct parsed *ps, const char *key, double v)
{
	double got = get(ps, key);

	if (isnan(got))
		fail_msg("no series %s", key);
	if (fabs(got - v) > 1e-9 * fmax(1, fabs(v)))
		fail_msg("%s = %.17g, expected %.17g", key, got, v);
}

static size_t count_prefix(const struct parsed *ps, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++)
		n += !strncmp(ps->s[i].key, prefix, strlen(prefix));
	return n;
}

/* The export of s against base (NULL: s's own samples), names from m. */
static char *render_base(const struct fab_snapshot *s, const struct fab_snapshot *base,
			 const struct fab_nodemap *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(fab_export_prometheus(s, base, m, f), 0);
	fclose(f);
	return buf;
}

static char *render(const struct fab_snapshot *s, const struct fab_nodemap *m)
{
	return render_base(s, NULL, m);
}

/* ---- tests -------------------------------------------------------------- */

static uint32_t port_of(struct fab_snapshot *s, uint64_t guid, unsigned port)
{
	return (uint32_t)(fab_snapshot_port(s, fab_snapshot_find_node(s, guid), port) - s->ports);
}

static struct fab_snapshot *scenario(void)
{
	struct fab_snapshot *s = snapfix_fat_tree(2, 2, 2);
	uint32_t p = port_of(s, 0x2001, 1);
	struct fab_counter_sample *c0 = (struct fab_counter_sample *)fab_snapshot_sample(s, p, 0);

	s->scan_id = 42;
	s->status = FAB_SCAN_PARTIAL;
	s->finished_at_ms = s->started_at_ms + 12345;
	fab_snapshot_add_error(s, 0x3010, 1, "pma", "timed out");
	c0->v[FAB_CTR_SYMBOL_ERRORS] = 10;
	c0->v[FAB_CTR_LINK_DOWNED] = 5;
	c0->v[FAB_CTR_XMIT_DATA] = 1000;
	c0->v[FAB_CTR_RCV_PKTS] = 77;
	/* a second sample two seconds later: +20 symbol errors, a reset */
	struct fab_counter_sample *c1 = fab_snapshot_add_sample(s);
	*c1 = *(struct fab_counter_sample *)fab_snapshot_sample(s, p, 0);
	c1->sample = 1;
	c1->sampled_at_ms += 2000;
	c1->v[FAB_CTR_SYMBOL_ERRORS] = 30;
	c1->v[FAB_CTR_LINK_DOWNED] = 1;
	c1->v[FAB_CTR_RCV_ERRORS] = 0xffff; /* saturated 16-bit counter */
	c1->v[FAB_CTR_XMIT_DATA] = 3000;    /* 2000 x 4 bytes in 2 s */
	c1->v[FAB_CTR_RCV_PKTS] = 177;      /* 100 packets in 2 s */
	/* an HDR link degraded to 1X EDR */
	s->ports[port_of(s, 0x1000, 1)].width_active = FAB_WIDTH_1X;
	s->ports[port_of(s, 0x1000, 1)].speed_active = FAB_SPEED_EDR;
	/* findings of a check */
	struct fab_finding f = { .rule_id = "port.errors", .severity = FAB_SEV_ERROR,
				 .message = "x" };
	fab_snapshot_add_finding(s, &f);
	fab_snapshot_add_finding(s, &f);
	f.rule_id = "link.width";
	f.severity = FAB_SEV_WARNING;
	fab_snapshot_add_finding(s, &f);
	/* a second SM record for the same port, and a failed one */
	*fab_snapshot_add_sm(s) = s->sms[0];
	struct fab_sm *sm = fab_snapshot_add_sm(s);
	sm->port_guid = 0x2000;
	sm->failed = true;
	sm->port_idx = port_of(s, 0x2000, 0);
	/* a device that shares a GUID with host0001 */
	snapfix_node(s, FAB_NODE_CA, 0x3000, "impostor", 1);
	fab_snapshot_index(s);
	return s;
}

static void test_values(void **state)
{
	struct fab_snapshot *s = scenario();
	struct parsed ps;
	char *text = render(s, NULL);

	parse_all(text, &ps);
	want_value(&ps, "fabsweep_scan_id", 42);
	want_value(&ps, "fabsweep_scan_timestamp_seconds", 1764557635.0);
	want_value(&ps, "fabsweep_scan_duration_seconds", 12.345);
	assert_non_null(strstr(text, "\nfabsweep_scan_duration_seconds 12.345\n"));
	want_value(&ps, "fabsweep_scan_status|status=partial", 1);
	want_value(&ps, "fabsweep_scan_status|status=complete", 0);
	want_value(&ps, "fabsweep_scan_missed_items", 1);
	want_value(&ps, "fabsweep_nodes|type=switch", 4);
	want_value(&ps, "fabsweep_nodes|type=ca", 5);
	want_value(&ps, "fabsweep_links", 8);

	want_value(&ps, "fabsweep_build_info|version=" FABSWEEP_VERSION, 1);
	/* names once per node, joined on node_guid; the impostor is left out */
	want_value(&ps, "fabsweep_node_info|node_guid=0x0000000000002001|node=leaf002"
			"|description=leaf002|type=switch", 1);
	want_value(&ps, "fabsweep_node_info|node_guid=0x0000000000003000|node=host0001 HCA-1"
			"|description=host0001 HCA-1|type=ca", 1);
	assert_int_equal(count_prefix(&ps, "fabsweep_node_info|"), 2 + 2 + 4);
	const char *L2 = "|node_guid=0x0000000000002001|port=1";
	char k[256];
#define KEY(fmt, ...) (snprintf(k, sizeof(k), fmt, ##__VA_ARGS__), k)
	want_value(&ps, KEY("fabsweep_port_errors_total%s|counter=SymbolErrorCounter", L2), 30);
	want_value(&ps, KEY("fabsweep_port_errors_total%s|counter=LinkDownedCounter", L2), 1);
	want_value(&ps, KEY("fabsweep_port_error_rate_per_second%s|counter=SymbolErrorCounter", L2), 10);
	/* a decrease is a reset: the second value over the interval */
	want_value(&ps, KEY("fabsweep_port_error_rate_per_second%s|counter=LinkDownedCounter", L2), 0.5);
	want_value(&ps, KEY("fabsweep_port_error_rate_per_second%s|counter=PortRcvErrors", L2), 0xffff / 2.0);
	want_value(&ps, KEY("fabsweep_port_error_saturated%s|counter=PortRcvErrors", L2), 1);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_error_saturated|"), 1);
	/* rates only where there are two samples: 12 error counters of one port */
	assert_int_equal(count_prefix(&ps, "fabsweep_port_error_rate_per_second|"), 12);
	/* increases as the counter model has them: a reset counts the new value */
	want_value(&ps, KEY("fabsweep_port_error_increase%s|counter=SymbolErrorCounter", L2), 20);
	want_value(&ps, KEY("fabsweep_port_error_increase%s|counter=LinkDownedCounter", L2), 1);
	want_value(&ps, KEY("fabsweep_port_error_increase%s|counter=PortRcvErrors", L2), 0xffff);
	want_value(&ps, KEY("fabsweep_port_error_reset%s|counter=LinkDownedCounter", L2), 1);
	want_value(&ps, KEY("fabsweep_port_error_reset%s|counter=SymbolErrorCounter", L2), 0);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_error_increase|"), 12);
	want_value(&ps, KEY("fabsweep_port_data_bytes_total%s|direction=xmit", L2), 12000);
	want_value(&ps, KEY("fabsweep_port_packets_total%s|direction=rcv", L2), 177);
	/* data and packet rates of the same pair of samples, through the counter model */
	want_value(&ps, KEY("fabsweep_port_data_rate_bytes_per_second%s|direction=xmit", L2), 4000);
	want_value(&ps, KEY("fabsweep_port_data_rate_bytes_per_second%s|direction=rcv", L2), 0);
	want_value(&ps, KEY("fabsweep_port_packet_rate_per_second%s|direction=rcv", L2), 50);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_data_rate_bytes_per_second|"), 2);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_packet_rate_per_second|"), 2);
	want_value(&ps, KEY("fabsweep_port_xmit_wait_total%s", L2), 0);
	want_value(&ps, KEY("fabsweep_port_state%s", L2), 4);
	want_value(&ps, KEY("fabsweep_port_phys_state%s", L2), 5);
	want_value(&ps, KEY("fabsweep_port_link_width_lanes%s", L2), 4);
	want_value(&ps, KEY("fabsweep_port_link_lane_speed_bytes_per_second%s", L2), 50e9 / 8);
	want_value(&ps, KEY("fabsweep_port_link_rate_bytes_per_second%s", L2), 200e9 / 8);
	const char *S1 = "|node_guid=0x0000000000001000|port=1";
	want_value(&ps, KEY("fabsweep_port_link_width_lanes%s", S1), 1);
	want_value(&ps, KEY("fabsweep_port_link_rate_bytes_per_second%s", S1), 25e9 / 8);
	/* a down port has a state but no width */
	const char *S5 = "|node_guid=0x0000000000001000|port=5";
	want_value(&ps, KEY("fabsweep_port_state%s", S5), 1);
	assert_true(isnan(get(&ps, KEY("fabsweep_port_link_width_lanes%s", S5))));
	/* 2 spines x 36 + 2 leaves x 36 + 4 hosts; the impostor is left out */
	assert_int_equal(count_prefix(&ps, "fabsweep_port_state|"), 4 * 36 + 4);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_state|node_guid=0x0000000000003000|"), 1);
	/* one series per error counter of every sampled port: 16 active ports */
	assert_int_equal(count_prefix(&ps, "fabsweep_port_errors_total|"), 16 * 12);

	want_value(&ps, "fabsweep_sm_state|port_guid=0x0000000000003001|node_guid=0x0000000000003000", 3);
	want_value(&ps, "fabsweep_sm_priority|port_guid=0x0000000000003001|node_guid=0x0000000000003000", 15);
	want_value(&ps, "fabsweep_sm_failed|port_guid=0x0000000000002000|node_guid=0x0000000000002000", 1);
	want_value(&ps, "fabsweep_sm_failed|port_guid=0x0000000000003001|node_guid=0x0000000000003000", 0);
	assert_true(isnan(get(&ps, "fabsweep_sm_state|port_guid=0x0000000000002000|node_guid=0x0000000000002000")));
	want_value(&ps, "fabsweep_sm_masters", 1);
	want_value(&ps, "fabsweep_findings|rule=port.errors|severity=error", 2);
	want_value(&ps, "fabsweep_findings|rule=link.width|severity=warning", 1);
	want_value(&ps, "fabsweep_findings_by_severity|severity=error", 2);
	want_value(&ps, "fabsweep_findings_by_severity|severity=warning", 1);
	want_value(&ps, "fabsweep_findings_by_severity|severity=info", 0);

	/* the families, as docs/workflows.md lists them */
	static const char *const fams[] = {
		"fabsweep_build_info", "fabsweep_scan_id", "fabsweep_scan_timestamp_seconds",
		"fabsweep_scan_duration_seconds", "fabsweep_scan_status",
		"fabsweep_scan_missed_items", "fabsweep_scan_checked", "fabsweep_nodes",
		"fabsweep_links", "fabsweep_node_info",
		"fabsweep_port_state", "fabsweep_port_phys_state",
		"fabsweep_port_link_width_lanes", "fabsweep_port_link_lane_speed_bytes_per_second",
		"fabsweep_port_link_rate_bytes_per_second", "fabsweep_port_errors_total",
		"fabsweep_port_error_saturated", "fabsweep_port_error_increase",
		"fabsweep_port_error_reset", "fabsweep_port_error_rate_per_second",
		"fabsweep_port_xmit_wait_total", "fabsweep_port_data_bytes_total",
		"fabsweep_port_packets_total", "fabsweep_port_data_rate_bytes_per_second",
		"fabsweep_port_packet_rate_per_second", "fabsweep_port_error_details_total",
		"fabsweep_port_vl_xmit_wait_total", "fabsweep_port_pma_unsupported",
		"fabsweep_port_ber", "fabsweep_port_ber_at_least", "fabsweep_sm_state", "fabsweep_sm_priority",
		"fabsweep_sm_failed", "fabsweep_sm_masters", "fabsweep_findings",
		"fabsweep_findings_by_severity",
	};
	assert_int_equal(ps.n_families, sizeof(fams) / sizeof(fams[0]));
	for (size_t i = 0; i < ps.n_families; i++)
		assert_string_equal(ps.families[i], fams[i]);
	free_parsed(&ps);
	free(text);
	fab_snapshot_free(s);
}

static void test_hostile_names(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(1, 1, 2);
	struct fab_nodemap *m;
	struct parsed ps;
	char k[1024];

	/* straight into desc, bypassing the sanitizer: the writer must not trust it */
	struct fab_node *n = &s->nodes[fab_snapshot_find_node(s, 0x3000)];
	snprintf(n->desc, sizeof(n->desc), "%s", "a\"b\\c\nd} x{y=\"1\"}\n# TYPE evil counter\n\xff\xfe");
	/* through the sanitizer, as the scanner does */
	static const uint8_t raw[] = "leaf \"one\"\\\x1b[31m\n\xc3\x28";
	fab_node_set_desc(&s->nodes[fab_snapshot_find_node(s, 0x2000)], raw, sizeof(raw) - 1);
	s->findings = NULL;
	struct fab_finding f = { .rule_id = "odd\"rule\\\nid", .severity = FAB_SEV_INFO, .message = "m" };
	fab_snapshot_add_finding(s, &f);
	char *text = render(s, NULL);
	parse_all(text, &ps);
	/* decoded back exactly: quote, backslash, newlines; bad bytes as \xNN */
	snprintf(k, sizeof(k), "fabsweep_node_info|node_guid=0x0000000000003000|node=%s|description=%s|type=ca",
		 "a\"b\\c\nd} x{y=\"1\"}\n# TYPE evil counter\n\\xff\\xfe",
		 "a\"b\\c\nd} x{y=\"1\"}\n# TYPE evil counter\n\\xff\\xfe");
	want_value(&ps, k, 1);
	snprintf(k, sizeof(k), "fabsweep_node_info|node_guid=0x0000000000002000|node=%s|description=%s|type=switch",
		 s->nodes[fab_snapshot_find_node(s, 0x2000)].desc, s->nodes[fab_snapshot_find_node(s, 0x2000)].desc);
	want_value(&ps, k, 1);
	want_value(&ps, "fabsweep_port_state|node_guid=0x0000000000003000|port=1", 4);
	assert_string_equal(s->nodes[fab_snapshot_find_node(s, 0x2000)].desc,
			    "leaf \"one\"\\\\x1b[31m\\x0a\\xc3(");
	want_value(&ps, "fabsweep_findings|rule=odd\"rule\\\nid|severity=info", 1);
	/* the raw text has the escapes of the format and nothing else */
	assert_non_null(strstr(text, "node=\"a\\\"b\\\\c\\nd} x{y=\\\"1\\\"}\\n# TYPE evil counter\\n\\\\xff\\\\xfe\""));
	free_parsed(&ps);
	free(text);

	/* node-name-map names replace descriptions in the node label */
	static const char map[] = "0x3010 \"gpu\\\\node-7 'x'\"\n";
	assert_int_equal(fab_nodemap_parse(map, sizeof(map) - 1, "map", &m), 0);
	text = render(s, m);
	parse_all(text, &ps);
	want_value(&ps, "fabsweep_node_info|node_guid=0x0000000000003010|node=gpu\\\\node-7 'x'"
			"|description=host0002 HCA-1|type=ca", 1);
	assert_non_null(strstr(text, "node=\"gpu\\\\\\\\node-7 'x'\""));
	free_parsed(&ps);
	free(text);
	fab_nodemap_free(m);
	fab_snapshot_free(s);
}

static struct fab_counter_sample *latest_of(struct fab_snapshot *s, uint64_t guid, unsigned port)
{
	return (struct fab_counter_sample *)fab_counter_latest(s, port_of(s, guid, port));
}

/* Against a baseline (export --baseline, sweep): each port against the
 * baseline's sample of the same node GUID and port, over the seconds
 * between the two; the values by hand (docs/counters.md). */
static void test_baseline(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(1, 1, 2), *base = snapfix_fat_tree(1, 1, 2);
	struct fab_counter_sample *b, *c;
	struct parsed ps;
	char k[256];

	(void)state;
	for (size_t i = 0; i < base->n_samples; i++) /* the baseline: 40 s earlier */
		base->samples[i].sampled_at_ms = s->samples[i].sampled_at_ms - 40000;
	/* host0001: errors up, a reset, an 8-bit saturation; extended data */
	b = latest_of(base, 0x3000, 1), c = latest_of(s, 0x3000, 1);
	b->v[FAB_CTR_SYMBOL_ERRORS] = 100, c->v[FAB_CTR_SYMBOL_ERRORS] = 180;
	b->v[FAB_CTR_RCV_ERRORS] = 70, c->v[FAB_CTR_RCV_ERRORS] = 6;
	b->v[FAB_CTR_LINK_DOWNED] = 5, c->v[FAB_CTR_LINK_DOWNED] = 255;
	b->v[FAB_CTR_XMIT_DATA] = 5000000000ull, c->v[FAB_CTR_XMIT_DATA] = 5000000000ull + 1000000;
	b->v[FAB_CTR_RCV_PKTS] = 10, c->v[FAB_CTR_RCV_PKTS] = 4010;
	/* the leaf's uplink: PortCounters only, 32-bit data saturated */
	b = latest_of(base, 0x2000, 19), c = latest_of(s, 0x2000, 19);
	b->extended = c->extended = false;
	b->v[FAB_CTR_XMIT_DATA] = 0xfffffffful - 80000, c->v[FAB_CTR_XMIT_DATA] = 0xfffffffful;
	/* host0002 is another adapter in the baseline: no pair */
	base->nodes[fab_snapshot_find_node(base, 0x3010)].guid = 0x9999;
	latest_of(s, 0x3010, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 7;
	/* the leaf's host port: a data counter no 64 bits can hold in bytes */
	c = latest_of(s, 0x2000, 1);
	c->v[FAB_CTR_RCV_DATA] = UINT64_MAX;
	assert_int_equal(fab_snapshot_index(base), 0);

	char *text = render_base(s, base, NULL);
	parse_all(text, &ps);
	const char *H = "|node_guid=0x0000000000003000|port=1";
	want_value(&ps, KEY("fabsweep_port_error_increase%s|counter=SymbolErrorCounter", H), 80);
	want_value(&ps, KEY("fabsweep_port_error_rate_per_second%s|counter=SymbolErrorCounter", H), 2);
	want_value(&ps, KEY("fabsweep_port_error_reset%s|counter=SymbolErrorCounter", H), 0);
	want_value(&ps, KEY("fabsweep_port_error_increase%s|counter=PortRcvErrors", H), 6);
	want_value(&ps, KEY("fabsweep_port_error_reset%s|counter=PortRcvErrors", H), 1);
	want_value(&ps, KEY("fabsweep_port_error_rate_per_second%s|counter=PortRcvErrors", H), 0.15);
	want_value(&ps, KEY("fabsweep_port_error_increase%s|counter=LinkDownedCounter", H), 250);
	want_value(&ps, KEY("fabsweep_port_error_saturated%s|counter=LinkDownedCounter", H), 1);
	want_value(&ps, KEY("fabsweep_port_error_reset%s|counter=LinkDownedCounter", H), 0);
	want_value(&ps, KEY("fabsweep_port_errors_total%s|counter=LinkDownedCounter", H), 255);
	/* 1,000,000 words of 4 bytes in 40 s; above 32 bits, extended */
	want_value(&ps, KEY("fabsweep_port_data_rate_bytes_per_second%s|direction=xmit", H), 100000);
	want_value(&ps, KEY("fabsweep_port_data_bytes_total%s|direction=xmit", H), 20004000000.0);
	want_value(&ps, KEY("fabsweep_port_packet_rate_per_second%s|direction=rcv", H), 100);
	/* a saturated 32-bit data counter: the rate of what it counted, at least */
	const char *U = "|node_guid=0x0000000000002000|port=19";
	want_value(&ps, KEY("fabsweep_port_data_rate_bytes_per_second%s|direction=xmit", U), 8000);
	assert_true(isnan(get(&ps, KEY("fabsweep_port_error_saturated%s|counter=PortXmitData", U))));
	/* no pair: values, no increase */
	const char *H2 = "|node_guid=0x0000000000003010|port=1";
	want_value(&ps, KEY("fabsweep_port_errors_total%s|counter=SymbolErrorCounter", H2), 7);
	assert_true(isnan(get(&ps, KEY("fabsweep_port_error_increase%s|counter=SymbolErrorCounter", H2))));
	assert_true(isnan(get(&ps, KEY("fabsweep_port_data_rate_bytes_per_second%s|direction=xmit", H2))));
	/* bytes beyond 64 bits: written as a float, exactly 4 x (2^64 - 1) */
	want_value(&ps, KEY("fabsweep_port_data_bytes_total|node_guid=0x0000000000002000|port=1|direction=rcv"),
		   4.0 * (double)UINT64_MAX);
	/* every sampled port but host0002 has its increases: 12 error counters each */
	size_t sampled = 0;
	for (uint32_t i = 0; i < s->n_ports; i++)
		sampled += fab_counter_latest(s, i) != NULL;
	assert_int_equal(count_prefix(&ps, "fabsweep_port_error_increase|"), (sampled - 1) * 12);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_error_rate_per_second|"), (sampled - 1) * 12);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_error_reset|"), (sampled - 1) * 12);
	free_parsed(&ps);
	free(text);

	/* without the baseline: one sample each, no increase at all */
	text = render(s, NULL);
	parse_all(text, &ps);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_error_increase|"), 0);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_data_rate_bytes_per_second|"), 0);
	free_parsed(&ps);
	free(text);
	fab_snapshot_free(s);
	fab_snapshot_free(base);
}

static void test_empty_snapshot(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct parsed ps;

	fab_snapshot_index(s);
	char *text = render(s, NULL);
	parse_all(text, &ps);
	want_value(&ps, "fabsweep_sm_masters", 0);
	want_value(&ps, "fabsweep_links", 0);
	assert_int_equal(count_prefix(&ps, "fabsweep_port_"), 0);
	free_parsed(&ps);
	free(text);
	fab_snapshot_free(s);
}

static void test_atomic_file(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256], path[300];
	struct fab_snapshot *s = scenario();
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s/prom_%d", tmp ? tmp : "/tmp", (int)getpid());
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/fabsweep.prom", dir);
	FILE *f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	assert_int_equal(fab_export_prometheus_file(s, NULL, NULL, path), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	f = fopen(path, "r");
	char first[128];
	assert_non_null(fgets(first, sizeof(first), f));
	fclose(f);
	assert_string_equal(first, "# HELP fabsweep_build_info 1, with the version of fabsweep that wrote the file.\n");
	/* nothing else is left in the directory */
	DIR *d = opendir(dir);
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' || strchr(e->d_name, 't'))
			files += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	assert_int_equal(files, 1);
	/* a directory that does not exist: an error, no file */
	snprintf(path, sizeof(path), "%s/missing/fabsweep.prom", dir);
	assert_true(fab_export_prometheus_file(s, NULL, NULL, path) < 0);
	assert_non_null(strstr(fab_errmsg(), "missing"));
	snprintf(path, sizeof(path), "%s/fabsweep.prom", dir);
	unlink(path);
	rmdir(dir);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_empty_snapshot),
		cmocka_unit_test(test_atomic_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
