// SPDX-License-Identifier: MIT
/* Snapshot diff: exact change records from hand-built snapshots, text and
 * XML rendering (validated against docs/fabsweep-diff.xsd). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xmlschemas.h>

#include "fabsweep/report.h"
#include "fabsweep/diff.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/module.h"
#include "fabsweep/pkey.h"
#include "fabsweep/qos.h"
#include "fabsweep/roce.h"
#include "fabsweep/routing.h"
#include "unit/snapfix.h"

static uint32_t port_of(struct fab_snapshot *s, uint64_t guid, unsigned port)
{
	uint32_t n = fab_snapshot_find_node(s, guid);

	assert_int_not_equal(n, FAB_NONE);
	struct fab_port *p = fab_snapshot_port(s, n, port);
	assert_non_null(p);
	return (uint32_t)(p - s->ports);
}

static struct fab_counter_sample *sample_of(struct fab_snapshot *s, uint64_t guid,
					    unsigned port)
{
	const struct fab_counter_sample *c = fab_snapshot_sample(s, port_of(s, guid, port), 0);

	assert_non_null(c);
	return (struct fab_counter_sample *)c;
}

static void unlink_ports(struct fab_snapshot *s, uint64_t ga, unsigned pa)
{
	fabfix_uncable(s, fab_snapshot_find_node(s, ga), pa);
}

static void reindex(struct fab_snapshot *s)
{
	assert_int_equal(fab_snapshot_build_links(s), 0);
	assert_int_equal(fab_snapshot_index(s), 0);
}

static void expect(const struct fab_change *c, unsigned kind, uint64_t guid, unsigned port,
		   uint64_t peer_guid, unsigned peer_port, uint64_t old_v, uint64_t new_v)
{
	if (c->kind != kind)
		fail_msg("kind %s, expected %s", fab_change_kind_name(c->kind),
			 fab_change_kind_name(kind));
	assert_int_equal(c->subject.guid, guid);
	assert_int_equal(c->subject.port, port);
	assert_int_equal(c->peer.guid, peer_guid);
	assert_int_equal(c->peer.port, peer_port);
	assert_int_equal(c->old_value, old_v);
	assert_int_equal(c->new_value, new_v);
}

/* The scenario of the issue: a link removed, a width change, an SM priority
 * change, a counter increase and a reset. */
static void build_pair(struct fab_snapshot **o, struct fab_snapshot **n)
{
	struct fab_snapshot *a = snapfix_fat_tree(2, 2, 2), *b = snapfix_fat_tree(2, 2, 2);

	a->scan_id = 3;
	b->scan_id = 5;
	b->started_at_ms += 3600 * 1000;
	unlink_ports(b, 0x2000, 2); /* leaf001/2 <-> host0002 */
	b->ports[port_of(b, 0x1000, 1)].width_active = FAB_WIDTH_1X; /* spine001/1 <-> leaf001/19 */
	b->ports[port_of(b, 0x2000, 19)].width_active = FAB_WIDTH_1X;
	b->sms[0].priority = 10;
	sample_of(a, 0x2001, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 5;
	sample_of(b, 0x2001, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 500;
	sample_of(a, 0x3020, 1)->v[FAB_CTR_LINK_DOWNED] = 7;
	sample_of(b, 0x3020, 1)->v[FAB_CTR_LINK_DOWNED] = 2;
	/* data counters grow all the time: never a change */
	sample_of(b, 0x2001, 1)->v[FAB_CTR_XMIT_DATA] = 123456;
	reindex(b);
	*o = a;
	*n = b;
}

static void test_issue_scenario(void **state)
{
	struct fab_snapshot *a, *b;
	struct fab_diff *d;

	build_pair(&a, &b);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->old_scan, 3);
	assert_int_equal(d->new_scan, 5);
	assert_int_equal(d->n, 7);
	expect(&d->changes[0], FAB_CHG_LINK_REMOVED, 0x2000, 2, 0x3010, 1, 0, 0);
	assert_int_equal(d->changes[0].width, FAB_WIDTH_4X);
	assert_int_equal(d->changes[0].speed, FAB_SPEED_HDR);
	assert_string_equal(d->changes[0].subject.desc, "leaf001");
	assert_string_equal(d->changes[0].peer.desc, "host0002 HCA-1");
	expect(&d->changes[1], FAB_CHG_LINK_WIDTH, 0x1000, 1, 0x2000, 19, FAB_WIDTH_4X, FAB_WIDTH_1X);
	/* both ends went down; the peer is where the cable used to go */
	expect(&d->changes[2], FAB_CHG_PORT_STATE, 0x2000, 2, 0x3010, 1, FAB_STATE_ACTIVE,
	       FAB_STATE_DOWN);
	assert_int_equal(d->changes[2].old_phys, FAB_PHYS_LINKUP);
	assert_int_equal(d->changes[2].new_phys, FAB_PHYS_POLLING);
	expect(&d->changes[3], FAB_CHG_PORT_STATE, 0x3010, 1, 0x2000, 2, FAB_STATE_ACTIVE,
	       FAB_STATE_DOWN);
	expect(&d->changes[4], FAB_CHG_SM_PRIORITY, 0x3000, 1, 0, 0, 15, 10);
	assert_int_equal(d->changes[4].sm_guid, 0x3001);
	expect(&d->changes[5], FAB_CHG_COUNTER_INCREASE, 0x2001, 1, 0x3020, 1, 5, 500);
	assert_int_equal(d->changes[5].counter, FAB_CTR_SYMBOL_ERRORS);
	assert_false(d->changes[5].saturated);
	assert_int_equal(d->changes[5].increase, 495);
	assert_false(d->changes[5].at_least);
	expect(&d->changes[6], FAB_CHG_COUNTER_RESET, 0x3020, 1, 0x2001, 1, 7, 2);
	assert_int_equal(d->changes[6].counter, FAB_CTR_LINK_DOWNED);
	assert_int_equal(d->changes[6].increase, 2); /* since the reset */
	assert_true(d->changes[6].at_least);
	assert_int_equal(d->count[FAB_CHG_PORT_STATE], 2);
	assert_int_equal(d->count[FAB_CHG_LINK_REMOVED], 1);
	assert_int_equal(d->count[FAB_CHG_NODE_ADDED], 0);
	fab_diff_free(d);

	/* the other way round: the link is added back, the counter "reset" */
	assert_int_equal(fab_diff_compute(b, a, &d), 0);
	assert_int_equal(d->n, 7);
	expect(&d->changes[0], FAB_CHG_LINK_ADDED, 0x2000, 2, 0x3010, 1, 0, 0);
	expect(&d->changes[5], FAB_CHG_COUNTER_INCREASE, 0x3020, 1, 0x2001, 1, 2, 7);
	expect(&d->changes[6], FAB_CHG_COUNTER_RESET, 0x2001, 1, 0x3020, 1, 500, 5);
	fab_diff_free(d);

	/* a snapshot against itself */
	assert_int_equal(fab_diff_compute(a, a, &d), 0);
	assert_int_equal(d->n, 0);
	fab_diff_free(d);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

static void test_nodes_lids_sms(void **state)
{
	struct fab_snapshot *a = snapfix_fat_tree(2, 2, 2), *b = snapfix_fat_tree(2, 2, 2);
	struct fab_diff *d;

	/* an HCA swapped: host0004 (0x3030 on leaf002/2) becomes 0x9990 */
	uint32_t h = fab_snapshot_find_node(b, 0x3030);
	b->nodes[h].guid = 0x9990;
	b->ports[b->nodes[h].port_first].guid = 0x9991;
	b->ports[port_of(b, 0x2001, 2)].remote_guid = 0x9990;
	fab_node_set_desc(&b->nodes[fab_snapshot_find_node(b, 0x2001)],
			  (const uint8_t *)"leaf002-rack7", 13);
	b->nodes[fab_snapshot_find_node(b, 0x1001)].lid = 42;
	b->ports[port_of(b, 0x3010, 1)].lid = 77;
	b->ports[port_of(b, 0x1001, 2)].speed_active = FAB_SPEED_EDR; /* spine002/2 <-> leaf002/20 */
	b->ports[port_of(b, 0x2001, 20)].speed_active = FAB_SPEED_EDR;
	/* the master moves from 0x3001 to a new SM on host0003 */
	b->sms[0].state = 2;
	struct fab_sm *sm = fab_snapshot_add_sm(b);
	sm->port_guid = 0x3021;
	sm->state = 3;
	sm->priority = 15;
	sm->port_idx = port_of(b, 0x3020, 1);
	/* a standby on leaf001 vanishes */
	sm = fab_snapshot_add_sm(a);
	sm->port_guid = 0x2000;
	sm->state = 2;
	sm->port_idx = port_of(a, 0x2000, 0);
	reindex(b);

	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->n, 12);
	const struct fab_change *c = d->changes;
	expect(c++, FAB_CHG_NODE_ADDED, 0x9990, 0, 0, 0, 0, 0);
	expect(c++, FAB_CHG_NODE_REMOVED, 0x3030, 0, 0, 0, 0, 0);
	assert_string_equal(d->changes[1].subject.desc, "host0004 HCA-1");
	expect(c, FAB_CHG_NODE_DESC, 0x2001, 0, 0, 0, 0, 0);
	assert_string_equal(c->old_text, "leaf002");
	assert_string_equal(c->new_text, "leaf002-rack7");
	c++;
	expect(c++, FAB_CHG_LINK_ADDED, 0x2001, 2, 0x9990, 1, 0, 0);
	expect(c++, FAB_CHG_LINK_REMOVED, 0x2001, 2, 0x3030, 1, 0, 0);
	expect(c++, FAB_CHG_LINK_SPEED, 0x1001, 2, 0x2001, 20, FAB_SPEED_HDR, FAB_SPEED_EDR);
	expect(c++, FAB_CHG_LID, 0x1001, 0, 0, 0, 2, 42);
	expect(c++, FAB_CHG_LID, 0x3010, 1, 0, 0, 6, 77);
	expect(c, FAB_CHG_SM_MASTER, 0x3020, 1, 0x3000, 1, 0x3001, 0x3021);
	c++;
	expect(c, FAB_CHG_SM_APPEARED, 0x3020, 1, 0, 0, 3, 3);
	assert_int_equal(c->sm_guid, 0x3021);
	c++;
	expect(c, FAB_CHG_SM_VANISHED, 0x2000, 0, 0, 0, 2, 2);
	c++;
	expect(c, FAB_CHG_SM_STATE, 0x3000, 1, 0, 0, 3, 2);
	fab_diff_free(d);

	/* no master at all any more */
	b->n_sms = 0;
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_SM_MASTER], 1);
	assert_int_equal(d->count[FAB_CHG_SM_VANISHED], 2);
	for (size_t i = 0; i < d->n; i++)
		if (d->changes[i].kind == FAB_CHG_SM_MASTER) {
			assert_int_equal(d->changes[i].new_value, 0);
			assert_int_equal(d->changes[i].subject.guid, 0);
		}
	fab_diff_free(d);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

static void test_counter_rules(void **state)
{
	struct fab_snapshot *a = snapfix_fat_tree(1, 1, 1), *b = snapfix_fat_tree(1, 1, 1);
	struct fab_diff *d;

	/* a 16-bit counter at all ones is saturated; the newest sample is used */
	sample_of(b, 0x3000, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 0xffff;
	sample_of(b, 0x3000, 1)->extended = false;
	struct fab_counter_sample *s1 = fab_snapshot_add_sample(b);
	*s1 = *sample_of(b, 0x2000, 1);
	s1->sample = 1;
	s1->v[FAB_CTR_RCV_ERRORS] = 9;
	/* a counter missing on either side is no change */
	sample_of(a, 0x3000, 1)->valid &= ~(1u << FAB_CTR_VL15_DROPPED);
	sample_of(b, 0x3000, 1)->v[FAB_CTR_VL15_DROPPED] = 3;
	reindex(b);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->n, 2);
	expect(&d->changes[0], FAB_CHG_COUNTER_INCREASE, 0x2000, 1, 0x3000, 1, 0, 9);
	assert_int_equal(d->changes[0].counter, FAB_CTR_RCV_ERRORS);
	expect(&d->changes[1], FAB_CHG_COUNTER_INCREASE, 0x3000, 1, 0x2000, 1, 0, 0xffff);
	assert_true(d->changes[1].saturated);
	assert_int_equal(d->changes[1].increase, 0xffff);
	assert_true(d->changes[1].at_least);
	fab_diff_free(d);

	/* unindexed snapshots are refused, not compared slowly */
	struct fab_snapshot *raw = fab_snapshot_new();
	snapfix_node(raw, FAB_NODE_CA, 0x77, "x", 1);
	assert_int_equal(fab_diff_compute(a, raw, &d), -EINVAL);
	fab_snapshot_free(raw);
	fab_snapshot_free(a);
	fab_snapshot_free(b);

	assert_string_equal(fab_change_kind_name(FAB_CHG_SM_MASTER), "sm-master");
	assert_int_equal(fab_change_kind_parse("counter-reset"), FAB_CHG_COUNTER_RESET);
	assert_int_equal(fab_change_kind_parse("nope"), -1);
	assert_null(fab_change_kind_name(FAB_CHG__COUNT));
}

/* Big fabric, every host's HCA swapped and every link re-cabled: the diff
 * must finish quickly (nothing quadratic) and count exactly. */
static void test_large(void **state)
{
	struct fab_snapshot *a = snapfix_fat_tree(18, 36, 18), *b = snapfix_fat_tree(18, 36, 18);
	struct fab_diff *d;
	size_t hosts = 36 * 18;

	for (size_t i = 0; i < b->n_nodes; i++)
		if (b->nodes[i].type == FAB_NODE_CA) {
			uint32_t p = b->nodes[i].port_first;
			b->nodes[i].guid |= 1ull << 40;
			b->ports[b->ports[p].remote_idx].remote_guid = b->nodes[i].guid;
		}
	reindex(b);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_NODE_ADDED], hosts);
	assert_int_equal(d->count[FAB_CHG_NODE_REMOVED], hosts);
	assert_int_equal(d->count[FAB_CHG_LINK_ADDED], hosts);
	assert_int_equal(d->count[FAB_CHG_LINK_REMOVED], hosts);
	assert_int_equal(d->count[FAB_CHG_SM_MASTER], 0); /* SM port GUID unchanged */
	assert_int_equal(d->n, 4 * hosts);
	fab_diff_free(d);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

static char *render_text(const struct fab_diff *d, const struct fab_snapshot *a,
			 const struct fab_snapshot *b, const struct fab_nodemap *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(fab_report_diff_text(f, d, a, b, m), 0);
	fclose(f);
	return buf;
}

static void test_text(void **state)
{
	struct fab_snapshot *a, *b;
	struct fab_nodemap *m;
	struct fab_diff *d;
	static const char map[] = "0x2001 \"L2 (row 3)\"\n";

	build_pair(&a, &b);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(fab_nodemap_parse(map, sizeof(map) - 1, "map", &m), 0);
	char *t = render_text(d, a, b, m);
	static const char *const want[] = {
		"scan 3 (2025-12-01T02:53:55.000Z) -> scan 5 (2025-12-01T03:53:55.000Z): 7 changes\n",
		"links removed (1):\n"
		"  \"leaf001\" 0x0000000000002000 port 2 <-> \"host0002 HCA-1\" 0x0000000000003010 port 1 (4X HDR)\n",
		"link widths changed (1):\n"
		"  \"spine001\" 0x0000000000001000 port 1 <-> \"leaf001\" 0x0000000000002000 port 19: 4X -> 1X\n",
		"port states changed (2):\n"
		"  \"leaf001\" 0x0000000000002000 port 2: active/linkup -> down/polling (cabled to \"host0002 HCA-1\" 0x0000000000003010 port 1)\n",
		"subnet manager priorities changed (1):\n"
		"  SM 0x0000000000003001 on \"host0001 HCA-1\" 0x0000000000003000 port 1: priority 15 -> 10\n",
		"error counters increased (1):\n"
		"  \"L2 (row 3)\" 0x0000000000002001 port 1 SymbolErrorCounter: 5 -> 500 (+495)\n",
		"  \"host0003 HCA-1\" 0x0000000000003020 port 1 LinkDownedCounter: 7 -> 2 (reset; 2 since)\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(t, want[i]))
			fail_msg("text lacks:\n%s\n--- got:\n%s", want[i], t);
	free(t);
	fab_diff_free(d);

	assert_int_equal(fab_diff_compute(a, a, &d), 0);
	t = render_text(d, a, a, NULL);
	assert_non_null(strstr(t, "scan 3 (2025-12-01T02:53:55.000Z) -> scan 3 (2025-12-01T02:53:55.000Z): no changes\n"));
	free(t);
	fab_diff_free(d);
	fab_nodemap_free(m);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

/* Parses path and validates it against docs/fabsweep-diff.xsd. */
static void validate(const char *path)
{
	char xsd[1024];
	const char *fx = getenv("FIXTURES");

	assert_non_null(fx);
	snprintf(xsd, sizeof(xsd), "%s/../docs/fabsweep-diff.xsd", fx);
	xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(xsd);
	xmlSchemaPtr schema = xmlSchemaParse(pc);
	assert_non_null(schema);
	xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
	xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	assert_int_equal(xmlSchemaValidateDoc(vc, doc), 0);
	xmlFreeDoc(doc);
	xmlSchemaFreeValidCtxt(vc);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pc);

	/* and with xmllint, as operators would */
	if (system("command -v xmllint >/dev/null 2>&1") == 0) {
		char cmd[3000];
		snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s' '%s' 2>/dev/null", xsd, path);
		assert_int_equal(system(cmd), 0);
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return buf;
}

/* Forwarding tables: a switch whose entries moved is one change, with how
 * many LIDs moved of how many compared; a table only one scan has, or an
 * unchanged one, is none. */
static void test_routes(void **state)
{
	struct fab_snapshot *a = snapfix_fat_tree(2, 2, 2), *b = snapfix_fat_tree(2, 2, 2);
	struct fab_diff *d;

	assert_int_equal(fabfix_route_minhop(a), 0);
	assert_int_equal(fabfix_route_minhop(b), 0);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_ROUTES], 0);
	fab_diff_free(d);
	/* leaf 1 (node 2) sends two LIDs elsewhere */
	uint8_t *t = (uint8_t *)b->routing->lfts[2].port;
	t[5] = t[5] == 3 ? 4 : 3;
	t[6] = FAB_LFT_NO_PORT;
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_ROUTES], 1);
	const struct fab_change *c = NULL;
	for (size_t i = 0; i < d->n; i++)
		if (d->changes[i].kind == FAB_CHG_ROUTES)
			c = &d->changes[i];
	assert_non_null(c);
	assert_int_equal(c->subject.guid, b->nodes[b->routing->lfts[2].node_idx].guid);
	assert_int_equal(c->new_value, 2);
	assert_int_equal(c->old_value, b->routing->lfts[2].fdb_top);
	char *txt = render_text(d, a, b, NULL);
	assert_non_null(strstr(txt, "forwarding tables changed (1):\n"));
	assert_non_null(strstr(txt, ": 2 of 8 LIDs leave by another port\n"));
	free(txt);
	fab_diff_free(d);
	/* no tables in the old scan: nothing to compare */
	fab_routing_free(a->routing);
	a->routing = NULL;
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_ROUTES], 0);
	fab_diff_free(d);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

/* Renders d as XML into path, validates it and checks it holds want[0..n). */
static void xml_has(const char *path, const struct fab_diff *d, const struct fab_snapshot *a,
		    const struct fab_snapshot *b, const char *const *want, size_t n)
{
	assert_int_equal(fab_report_diff_xml(path, d, a, b, NULL), 0);
	validate(path);
	char *x = slurp(path);
	for (size_t i = 0; i < n; i++)
		if (!strstr(x, want[i]))
			fail_msg("XML lacks:\n%s\n--- got:\n%s", want[i], x);
	free(x);
}

/* A port's table in the new scan (a fresh one of n entries). */
static void set_table(struct fab_snapshot *s, uint64_t guid, unsigned port, const uint16_t *pk,
		      size_t n)
{
	struct fab_port_pkeys *t = (struct fab_port_pkeys *)fab_pkeys_of(s, port_of(s, guid, port));
	uint16_t *tab = fab_pkeys_alloc(s->pkeys, n);

	assert_non_null(t);
	assert_non_null(tab);
	memcpy(tab, pk, n * sizeof(*tab));
	t->pkey = tab;
	t->n = (uint16_t)n;
}

/* Partitions joined, left, full -> limited, enforcement switched on; a
 * reordered table and a partly read one are no change; many ports joining
 * one partition are one line of text. */
static void test_partitions(void **state)
{
	struct fab_snapshot *a = snapfix_fat_tree(2, 2, 4), *b = snapfix_fat_tree(2, 2, 4);
	static const uint16_t p1 = 0x8001;
	struct fab_diff *d;

	(void)state;
	assert_int_equal(fabfix_pkeys_default(a, &p1, 1), 0);
	assert_int_equal(fabfix_pkeys_default(b, &p1, 1), 0);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->n, 0);
	fab_diff_free(d);

	set_table(b, 0x3000, 1, (const uint16_t[]){ 0xffff, 0x8002 }, 2); /* host0001: 1 -> 2 */
	set_table(b, 0x3010, 1, (const uint16_t[]){ 0xffff, 0x0001 }, 2); /* host0002: limited */
	set_table(b, 0x3020, 1, (const uint16_t[]){ 0x8001, 0xffff }, 2); /* reordered */
	set_table(b, 0x3030, 1, (const uint16_t[]){ 0xffff }, 1);         /* partial: not judged */
	((struct fab_port_pkeys *)fab_pkeys_of(b, port_of(b, 0x3030, 1)))->status = FAB_LFT_PARTIAL;
	((struct fab_port_pkeys *)fab_pkeys_of(b, port_of(b, 0x2000, 1)))->enforce =
		FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB;
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->n, 4);
	assert_int_equal(d->count[FAB_CHG_PARTITION], 3);
	assert_int_equal(d->count[FAB_CHG_PKEY_ENFORCEMENT], 1);
	/* by partition, then change, then port */
	expect(&d->changes[0], FAB_CHG_PARTITION, 0x3000, 1, 0x2000, 1, FAB_PKEY_FULL_MEMBER, FAB_PKEY_NONE);
	assert_int_equal(d->changes[0].partition, 1);
	expect(&d->changes[1], FAB_CHG_PARTITION, 0x3010, 1, 0x2000, 2, FAB_PKEY_FULL_MEMBER, FAB_PKEY_LIMITED);
	expect(&d->changes[2], FAB_CHG_PARTITION, 0x3000, 1, 0x2000, 1, FAB_PKEY_NONE, FAB_PKEY_FULL_MEMBER);
	assert_int_equal(d->changes[2].partition, 2);
	expect(&d->changes[3], FAB_CHG_PKEY_ENFORCEMENT, 0x2000, 1, 0x3000, 1, 0,
	       FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB);
	char *t = render_text(d, a, b, NULL);
	static const char *const want[] = {
		"partition memberships changed (3):\n"
		"  partition 0x0001: full -> none at 1 port: \"host0001 HCA-1\" 0x0000000000003000 port 1\n"
		"  partition 0x0001: full -> limited at 1 port: \"host0002 HCA-1\" 0x0000000000003010 port 1\n"
		"  partition 0x0002: none -> full at 1 port: \"host0001 HCA-1\" 0x0000000000003000 port 1\n",
		"partition enforcement changed (switch ports) (1):\n"
		"  none -> inbound+outbound at 1 port: \"leaf001\" 0x0000000000002000 port 1\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(t, want[i]))
			fail_msg("text lacks:\n%s\n--- got:\n%s", want[i], t);
	free(t);
	char path[256];
	fabfix_path(path, sizeof(path), "diff_pkeys", ".xml");
	static const char *const xml[] = {
		"<change kind=\"partition\" old=\"full\" new=\"limited\" partition=\"0x0001\">",
		"<change kind=\"partition-enforcement\" old=\"none\" new=\"inbound+outbound\">",
	};
	xml_has(path, d, a, b, xml, 2);
	unlink(path);
	fab_diff_free(d);

	/* every cabled port joins partition 3: one line, five named */
	static const uint16_t p13[] = { 0x8001, 0x0003 };
	assert_int_equal(fabfix_pkeys_default(b, p13, 2), 0);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	size_t n = d->count[FAB_CHG_PARTITION];
	assert_true(n > 5);
	assert_int_equal(d->n, n);
	t = render_text(d, a, b, NULL);
	char line[128];
	snprintf(line, sizeof(line), "  partition 0x0003: none -> limited at %zu ports: ", n);
	assert_non_null(strstr(t, line));
	snprintf(line, sizeof(line), " and %zu more\n", n - 5);
	assert_non_null(strstr(t, line));
	free(t);
	fab_diff_free(d);
	/* no tables in the old scan (--no-pkeys): nothing to compare */
	fab_pkeys_free(a->pkeys);
	a->pkeys = NULL;
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->n, 0);
	fab_diff_free(d);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

static void test_xml(void **state)
{
	struct fab_snapshot *a, *b, *c, *e;
	struct fab_diff *d;
	char path[256];
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/diff_%d.xml", tmp ? tmp : "/tmp", (int)getpid());
	build_pair(&a, &b);
	/* hostile description on the SM's node: markup, a quote, an escape
	 * sequence, and U+FFFE (valid UTF-8, not an XML character) */
	static const uint8_t evil[] = "<x a=\"1\">&amp;\x1b[31m\xef\xbf\xbe'";
	for (int i = 0; i < 2; i++)
		fab_node_set_desc(&(i ? b : a)->nodes[fab_snapshot_find_node(i ? b : a, 0x3000)],
				  evil, sizeof(evil) - 1);
	b->label = "after \"maintenance\" <3";
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(fab_report_diff_xml(path, d, a, b, NULL), 0);
	validate(path);
	char *x = slurp(path);
	assert_non_null(strstr(x, "<fabsweep-diff version=\"1\""));
	assert_non_null(strstr(x, "<summary changes=\"7\">"));
	assert_non_null(strstr(x, "<count kind=\"port-state\" n=\"2\"/>"));
	assert_non_null(strstr(x, "<change kind=\"link-width\" old=\"4X\" new=\"1X\">"));
	assert_non_null(strstr(x, "<change kind=\"counter-reset\" old=\"7\" new=\"2\" counter=\"LinkDownedCounter\" increase=\"2\" at-least=\"true\">"));
	assert_non_null(strstr(x, "<change kind=\"sm-priority\" old=\"15\" new=\"10\" sm-guid=\"0x0000000000003001\">"));
	assert_non_null(strstr(x, "name=\"&lt;x a=&quot;1&quot;&gt;&amp;amp;\\x1b[31m\\xef\\xbf\\xbe'\""));
	assert_non_null(strstr(x, "label=\"after &quot;maintenance&quot; &lt;3\""));
	free(x);
	fab_diff_free(d);

	/* the second scenario covers the other kinds */
	c = snapfix_fat_tree(2, 2, 2);
	e = snapfix_fat_tree(2, 2, 2);
	fab_node_set_desc(&e->nodes[0], (const uint8_t *)"renamed", 7);
	e->sms[0].state = 2;
	e->nodes[fab_snapshot_find_node(e, 0x1001)].lid = 42;
	reindex(e);
	assert_int_equal(fab_diff_compute(c, e, &d), 0);
	static const char *const other[] = {
		"<change kind=\"node-description\" old=\"spine001\" new=\"renamed\">",
		"<change kind=\"sm-master\" old=\"0x0000000000003001\" new=\"none\">",
	};
	xml_has(path, d, c, e, other, 2);
	fab_diff_free(d);

	/* an unwritable target: error, nothing left behind */
	assert_int_not_equal(fab_report_diff_xml("/nonexistent-dir/x.xml", d = NULL, c, e, NULL), 0);
	unlink(path);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
	fab_snapshot_free(c);
	fab_snapshot_free(e);
}

/* A module on port (guid, port) of s (InfiniBand) or on eth port eidx of
 * s->roce (guid 0). */
static void plug(struct fab_snapshot *s, uint64_t guid, unsigned port, uint32_t eidx,
		 const char *vendor, const char *pn, const char *sn)
{
	struct fab_modules *set = guid ? &s->ib_modules : &s->roce->modules;
	struct fab_module *m = fab_modules_add(set, guid ? port_of(s, guid, port) : eidx, 4);

	assert_non_null(m);
	m->vendor = vendor;
	m->part_number = pn;
	m->serial = sn;
}

/* One host with two interfaces, as collect stores it. */
static void add_host(struct fab_snapshot *s, const char *name)
{
	assert_non_null(s->roce = fab_roce_new());
	struct fab_roce_system *sys = fab_roce_add_system(s->roce);
	assert_non_null(sys);
	sys->name = name;
	for (int i = 0; i < 2; i++) {
		struct fab_eth_port *p = fab_roce_add_eth_port(s->roce, 0);
		assert_non_null(p);
		p->ifname = i ? "ens2f1np1" : "ens2f0np0";
	}
}

/* Modules of both fabrics: a swapped serial number, one pulled, one
 * plugged (only when both snapshots have modules of that fabric), in every
 * output; a refused dump is no evidence. */
static void test_modules(void **state)
{
	struct fab_snapshot *a = snapfix_fat_tree(2, 2, 2), *b = snapfix_fat_tree(2, 2, 2);
	struct fab_diff *d;
	char path[256];
	const char *tmp = getenv("TMPDIR");

	/* modules only in the new scan (the old import had no cables file): nothing */
	plug(b, 0x2000, 1, 0, "Mellanox", "MMA4Z00-NS", "MT2301FT00001");
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_MODULE], 0);
	fab_diff_free(d);

	plug(a, 0x2000, 1, 0, "Mellanox", "MMA4Z00-NS", "MT2301FT00001"); /* same */
	plug(a, 0x2000, 2, 0, "Mellanox", "MMA4Z00-NS", "MT2301FT00002"); /* swapped */
	plug(b, 0x2000, 2, 0, "Mellanox", "MMA4Z00-NS", "MT2301FT09999");
	plug(a, 0x2001, 1, 0, "FS", "OSFP-SR8-800G", "G2430283435"); /* pulled */
	plug(b, 0x2001, 2, 0, "FS", "OSFP-SR8-800G", "G2430283436"); /* plugged */
	plug(a, 0x2001, 3, 0, "FS", "X", "Y");
	plug(b, 0x2001, 3, 0, "FS", "X", "Y");
	b->ib_modules.mods[b->ib_modules.n - 1].refused = true; /* unreadable now: no change */
	add_host(a, "gpu<01>");
	add_host(b, "gpu<01>");
	plug(a, 0, 0, 0, "Amphenol", "NDAQGF-F305", "APF2312003A");
	plug(b, 0, 0, 0, "Amphenol", "NDAQGF-F305", "APF2312003B");
	plug(a, 0, 0, 1, "Amphenol", "NDAQGF-F305", "APF2312003C");
	plug(b, 0, 0, 1, "Amphenol", "NDAQGF-F305", "APF2312003C");
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_MODULE], 4);
	assert_int_equal(d->n, 4);
	const struct fab_change *c = d->changes; /* sorted: Ethernet (no GUID) first */
	assert_int_equal(c[0].subject.guid, 0);
	assert_string_equal(c[0].subject.system, "gpu<01>");
	assert_string_equal(c[0].subject.ifname, "ens2f0np0");
	assert_int_equal(c[1].subject.guid, 0x2000);
	assert_int_equal(c[1].subject.port, 2);
	assert_string_equal(c[1].old_text, "Mellanox MMA4Z00-NS MT2301FT00002");
	assert_string_equal(c[1].new_text, "Mellanox MMA4Z00-NS MT2301FT09999");
	assert_int_equal(c[2].subject.port, 1);
	assert_null(c[2].new_text);
	assert_int_equal(c[3].subject.port, 2);
	assert_null(c[3].old_text);
	assert_string_equal(c[3].new_text, "FS OSFP-SR8-800G G2430283436");

	char *t = render_text(d, a, b, NULL);
	static const char *const want[] = {
		"modules or cables changed (vendor, part or serial number), plugged or pulled (4):\n",
		"  \"leaf001\" 0x0000000000002000 port 2: Mellanox MMA4Z00-NS MT2301FT00002 -> Mellanox MMA4Z00-NS MT2301FT09999\n",
		" port 1: FS OSFP-SR8-800G G2430283435 -> none\n",
		" port 2: none -> FS OSFP-SR8-800G G2430283436\n",
		"  gpu<01>/ens2f0np0: Amphenol NDAQGF-F305 APF2312003A -> Amphenol NDAQGF-F305 APF2312003B\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(t, want[i]))
			fail_msg("text lacks:\n%s\n--- got:\n%s", want[i], t);
	free(t);
	snprintf(path, sizeof(path), "%s/diffmod_%d.xml", tmp ? tmp : "/tmp", (int)getpid());
	static const char *const xml[] = {
		"<count kind=\"module\" n=\"4\"/>",
		"<change kind=\"module\" old=\"Amphenol NDAQGF-F305 APF2312003A\" new=\"Amphenol NDAQGF-F305 APF2312003B\">\n"
		"    <eth-port system=\"gpu&lt;01&gt;\" ifname=\"ens2f0np0\"/>",
		"<change kind=\"module\" old=\"none\" new=\"FS OSFP-SR8-800G G2430283436\">",
	};
	xml_has(path, d, a, b, xml, sizeof(xml) / sizeof(xml[0]));
	unlink(path);
	fab_diff_free(d);

	/* the other fabric alone: Ethernet modules only in the new scan */
	fab_modules_clear(&a->roce->modules);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_MODULE], 3);
	fab_diff_free(d);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

/* A port's VLArbitration tables: low 1:4 .. 7:4 and VL0 weight 4 high,
 * less the VL `drop` (none: 15). */
static void set_vlarb(struct fab_snapshot *s, uint32_t port, unsigned drop)
{
	struct fab_vlarb *v = fab_qos_add_vlarb(fab_snapshot_qos(s));

	v->port_idx = port;
	v->n_high = v->n_low = 8;
	for (unsigned i = 0; i < 8; i++) {
		v->high[i] = (struct fab_vlarb_entry){ (uint8_t)i, (uint8_t)(i ? 0 : 4) };
		v->low[i] = (struct fab_vlarb_entry){ (uint8_t)i, (uint8_t)(i && i != drop ? 4 : 0) };
	}
}

static void add_sl2vl(struct fab_snapshot *s, uint64_t guid, unsigned in, unsigned out, unsigned sl1_vl)
{
	struct fab_sl2vl *t = fab_routing_add_sl2vl(fab_snapshot_routing(s));

	*t = (struct fab_sl2vl){ .node_idx = fab_snapshot_find_node(s, guid), .in = (uint8_t)in,
				 .out = (uint8_t)out };
	for (unsigned sl = 0; sl < FAB_N_SL; sl++)
		t->vl[sl] = (uint8_t)(sl == 1 ? sl1_vl : sl % 8);
}

/* op-vls, sl2vl and vlarb: what changed, the ports named, the values. */
static void test_vl(void **state)
{
	struct fab_snapshot *a = snapfix_fat_tree(2, 2, 2), *b = snapfix_fat_tree(2, 2, 2);
	struct fab_diff *d;

	(void)state;
	b->ports[port_of(b, 0x2000, 19)].op_vls = 3; /* leaf001/19: VL0-7 -> VL0-3 */
	b->ports[port_of(b, 0x2000, 20)].op_vls = 3; /* ... and a Down port: none */
	b->ports[port_of(b, 0x2000, 20)].state = FAB_STATE_DOWN;
	for (int k = 0; k < 2; k++) {
		struct fab_snapshot *s = k ? b : a;
		set_vlarb(s, port_of(s, 0x1000, 1), k ? 3 : 15); /* spine001/1 loses VL3 */
		set_vlarb(s, port_of(s, 0x1000, 2), 15);        /* unchanged */
		add_sl2vl(s, 0x2000, 1, 19, 1);
		add_sl2vl(s, 0x2000, 2, 19, k ? 15 : 1);        /* one of leaf001/19's tables */
		add_sl2vl(s, 0x2000, 0, 19, k ? 15 : 1);        /* ... and another */
		add_sl2vl(s, 0x3000, 0, 1, 1);                  /* host0001's own: unchanged */
		fab_routing_sort_sl2vl(s->routing);
		fab_qos_sort(s->qos);
	}
	add_sl2vl(b, 0x2001, 1, 19, 15); /* only in the new scan: not compared */
	fab_routing_sort_sl2vl(b->routing);
	assert_int_equal(fab_diff_compute(a, b, &d), 0);
	assert_int_equal(d->count[FAB_CHG_OP_VLS], 1);
	assert_int_equal(d->count[FAB_CHG_SL2VL], 1);
	assert_int_equal(d->count[FAB_CHG_VLARB], 1);
	for (size_t i = 0; i < d->n; i++) {
		const struct fab_change *c = &d->changes[i];
		if (c->kind == FAB_CHG_OP_VLS)
			expect(c, FAB_CHG_OP_VLS, 0x2000, 19, 0x1000, 1, 4, 3);
		if (c->kind == FAB_CHG_SL2VL)
			expect(c, FAB_CHG_SL2VL, 0x2000, 19, 0x1000, 1, 3, 2);
		if (c->kind == FAB_CHG_VLARB)
			expect(c, FAB_CHG_VLARB, 0x1000, 1, 0x2000, 19, 0xff, 0xf7); /* VL0: the high table */
	}
	char *txt = render_text(d, a, b, NULL);
	assert_non_null(strstr(txt, "operational virtual lanes changed (1):\n"));
	assert_non_null(strstr(txt, "port 19: VL0-7 -> VL0-3\n"));
	assert_non_null(strstr(txt, "port 19: 2 of 3 tables of packets leaving here map an SL to another VL\n"));
	assert_non_null(strstr(txt, "port 1: weighted VLs 0-7 -> 0-2,4-7\n"));
	free(txt);
	const char *want[] = { "kind=\"op-vls\" old=\"VL0-7\" new=\"VL0-3\"",
			       "kind=\"sl2vl\" old=\"3\" new=\"2\"",
			       "kind=\"vlarb\" old=\"0-7\" new=\"0-2,4-7\"" };
	xml_has("test_diff_vl.xml", d, a, b, want, 3);
	fab_diff_free(d);
	fab_snapshot_free(a);
	fab_snapshot_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_scenario),
		cmocka_unit_test(test_nodes_lids_sms),
		cmocka_unit_test(test_counter_rules),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_partitions),
		cmocka_unit_test(test_vl),
		cmocka_unit_test(test_xml),
		cmocka_unit_test(test_modules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
