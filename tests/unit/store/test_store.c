// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/counter.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/store_view.h"
#include "unit/snapfix.h"
#include "fabfix/fabfix_db.h"
#include "unit/rules/rulefix.h"
#include "unit/store/roce_same.h"
#include "unit/store/schema_undo.h"

/* The modules view's columns after its scan_id as schema step 12 -> 13 made
 * them (store/schema.sql.h MODULE_COLS): to undo step 16 -> 17. */

static char dbpath[256];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dbpath, sizeof(dbpath), "%s/test_store_%d.db", tmp ? tmp : "/tmp",
		 (int)getpid());
	unlink(dbpath);
	return 0;
}

static int teardown(void **state)
{
	fabfix_unlink_db(dbpath);
	return 0;
}

static int64_t count(const char *sql)
{
	return fabfix_db_count(dbpath, sql);
}

static void write_one(struct fab_snapshot *snap)
{
	fabfix_db_write(dbpath, snap);
}

/* What schema 3 added (the forwarding tables): dropped to take a database
 * back to an older version. */
static void test_roundtrip(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(2, 4, 3);
	struct fab_snapshot *back;
	struct fab_store *st;

	snap->samples[0].v[FAB_CTR_SYMBOL_ERRORS] = 500;
	snap->samples[0].v[FAB_CTR_XMIT_DATA] = 1ull << 40;
	/* a port with details, per-VL waits and an attribute its PMA lacks */
	struct fab_counter_sample *dt = &snap->samples[1];
	dt->valid |= fab_counter_details_of(FAB_CTR_RCV_ERRORS);
	dt->v[FAB_CTR_DLID_MAPPING_ERRORS] = 77;
	dt->unsupported = FAB_PMA_XMIT_DISCARD_DETAILS;
	dt->vl_valid = 0xffff;
	dt->vl_xmit_wait[3] = 65535;
	fab_snapshot_add_error(snap, 0x2001, 7, "pma", "PortCounters timed out");
	struct fab_finding f = { .rule_id = "port.errors", .severity = FAB_SEV_ERROR,
				 .node = "0x0000000000002001", .port = "7",
				 .subject = "leaf002/7", .message = "SymbolErrorCounter 500 > 10" };
	fab_snapshot_add_finding(snap, &f);
	write_one(snap);
	assert_int_equal(snap->scan_id, 1);

	/* the public relations */
	assert_int_equal(count("SELECT count(*) FROM nodes"), 2 + 4 + 12);
	assert_int_equal(count("SELECT count(*) FROM nodes WHERE node_type='switch'"), 6);
	assert_int_equal(count("SELECT count(*) FROM ports WHERE state='active'"), 2 * (12 + 8));
	assert_int_equal(count("SELECT count(*) FROM ports WHERE port_num=0"), 0);
	assert_int_equal(count("SELECT count(*) FROM mgmt_ports"), 6);
	assert_int_equal(count("SELECT count(*) FROM links"), 12 + 8);
	assert_int_equal(count("SELECT count(*) FROM links WHERE width='4X' AND speed='HDR' AND rate_gbps=200"), 20);
	assert_int_equal(count("SELECT value FROM counters WHERE counter='SymbolErrorCounter' AND value>0"), 500);
	assert_int_equal(count("SELECT value FROM counters WHERE counter='PortXmitData' AND value>0"), 1ll << 40);
	assert_int_equal(count("SELECT value FROM counters WHERE counter='PortDLIDMappingErrors'"), 77);
	assert_int_equal(count("SELECT count(*) FROM counters WHERE counter='PortLoopingErrors'"), 1);
	assert_int_equal(count("SELECT count(*) FROM counters WHERE counter='PortInactiveDiscards'"), 0);
	assert_int_equal(count("SELECT count(*) FROM vl_xmit_wait"), 16);
	assert_int_equal(count("SELECT vl FROM vl_xmit_wait WHERE value=65535"), 3);
	assert_int_equal(count("SELECT count(*) FROM pma_unsupported WHERE attribute='PortXmitDiscardDetails'"), 1);
	assert_int_equal(count("SELECT count(*) FROM pma_unsupported"), 1);
	assert_int_equal(count("SELECT count(*) FROM sms WHERE state='master' AND priority=15"), 1);
	assert_int_equal(count("SELECT count(*) FROM findings WHERE rule_id='port.errors'"), 1);
	assert_int_equal(count("SELECT count(*) FROM scan_errors WHERE what='pma' AND port_num=7"), 1);
	assert_int_equal(count("SELECT count(*) FROM ports WHERE width_enabled='1X,4X' AND speed_supported='SDR,DDR,QDR,FDR,EDR,HDR'"), 6 * 36 + 12);
	assert_int_equal(count("SELECT count(*) FROM nodes WHERE node_guid='0x0000000000001000' AND description='spine001' AND role='unknown'"), 1);
	assert_int_equal(count("PRAGMA application_id"), FAB_APPLICATION_ID);
	assert_int_equal(count("PRAGMA user_version"), FAB_SCHEMA_VERSION);

	/* loading gives the same snapshot back */
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 0, &back), 0);
	assert_int_equal(back->scan_id, 1);
	assert_int_equal(back->n_nodes, snap->n_nodes);
	assert_int_equal(back->n_ports, snap->n_ports);
	assert_int_equal(back->n_links, snap->n_links);
	assert_int_equal(back->n_samples, snap->n_samples);
	assert_int_equal(back->n_sms, 1);
	assert_int_equal(back->n_errors, 1);
	assert_int_equal(back->n_findings, 1);
	assert_int_equal(back->started_at_ms, snap->started_at_ms);
	for (size_t i = 0; i < snap->n_ports; i++) {
		assert_int_equal(back->ports[i].remote_idx, snap->ports[i].remote_idx);
		assert_int_equal(back->ports[i].width_active, snap->ports[i].width_active);
		assert_int_equal(back->ports[i].speed_enabled, snap->ports[i].speed_enabled);
		assert_int_equal(back->ports[i].mtu_active, snap->ports[i].mtu_active);
	}
	for (size_t i = 0; i < snap->n_links; i++) {
		assert_int_equal(back->links[i].a, snap->links[i].a);
		assert_int_equal(back->links[i].b, snap->links[i].b);
	}
	const struct fab_counter_sample *c = fab_snapshot_sample(back, snap->samples[0].port_idx, 0);
	assert_non_null(c);
	assert_int_equal(c->v[FAB_CTR_SYMBOL_ERRORS], 500);
	assert_int_equal(c->valid, snap->samples[0].valid);
	c = fab_snapshot_sample(back, dt->port_idx, 0);
	assert_non_null(c);
	assert_int_equal(c->valid, dt->valid);
	assert_int_equal(c->v[FAB_CTR_DLID_MAPPING_ERRORS], 77);
	assert_int_equal(c->unsupported, FAB_PMA_XMIT_DISCARD_DETAILS);
	assert_int_equal(c->vl_valid, 0xffff);
	assert_int_equal(c->vl_xmit_wait[3], 65535);
	assert_int_equal(back->sms[0].port_idx, snap->sms[0].port_idx);
	assert_string_equal(back->findings[0].message, "SymbolErrorCounter 500 > 10");
	assert_string_equal(back->nodes[5].desc, snap->nodes[5].desc);

	/* findings are replaced, never duplicated */
	fab_snapshot_clear_findings(back);
	fab_snapshot_add_finding(back, &f);
	fab_snapshot_add_finding(back, &f);
	fab_store_close(st);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_replace_findings(st, back), 0);
	assert_int_equal(fab_store_replace_findings(st, back), 0);
	fab_store_close(st);
	assert_int_equal(count("SELECT count(*) FROM findings"), 2);

	fab_snapshot_free(back);
	fab_snapshot_free(snap);
}

/* A baseline load: topology identity and each port's latest sample only. */
static void test_load_baseline(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(2, 4, 3), *back;
	struct fab_store *st;
	size_t with_samples = snap->n_samples;
	uint32_t port = snap->samples[0].port_idx;
	struct fab_counter_sample *later = fab_snapshot_add_sample(snap);

	assert_non_null(later);
	*later = snap->samples[0];
	later->sample = 1;
	later->sampled_at_ms += 10000;
	later->v[FAB_CTR_SYMBOL_ERRORS] = 77;
	fab_snapshot_add_error(snap, 0x2001, 7, "pma", "PortCounters timed out");
	write_one(snap);

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_baseline(st, 0, &back), 0);
	assert_int_equal(back->n_nodes, snap->n_nodes);
	assert_int_equal(back->n_ports, snap->n_ports);
	assert_int_equal(back->n_samples, with_samples);
	assert_int_equal(back->n_links, 0);
	assert_int_equal(back->n_sms, 0);
	assert_int_equal(back->n_errors, 0);
	assert_int_equal(back->started_at_ms, snap->started_at_ms);
	for (size_t i = 0; i < snap->n_nodes; i++)
		assert_int_equal(back->nodes[i].guid, snap->nodes[i].guid);
	for (size_t i = 0; i < snap->n_ports; i++) {
		assert_int_equal(back->ports[i].port_num, snap->ports[i].port_num);
		assert_int_equal(back->ports[i].node_idx, snap->ports[i].node_idx);
	}
	assert_null(fab_snapshot_sample(back, port, 0));
	const struct fab_counter_sample *c = fab_snapshot_sample(back, port, 1);
	assert_non_null(c);
	assert_int_equal(c->v[FAB_CTR_SYMBOL_ERRORS], 77);
	assert_int_equal(c->sampled_at_ms, later->sampled_at_ms);
	fab_store_close(st);
	fab_snapshot_free(back);
	fab_snapshot_free(snap);
}

/* Takes a database of this version back to version 2 (before watch
 * sweeps): the topology tables under their old names, the old views. */
static void raw_exec(const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/*
 * Takes the database back (from the version it has) to schema version `to`,
 * as an older fabsweep left it: undo[v] reverts migration step v -> v + 1 (store/schema.sql.h). A new
 * step adds its undo here.
 */
static void downgrade(int to)
{
	static const char *const undo[] = {
		[1] = "DROP TABLE checks;",
		[2] = "DROP VIEW eth_ports;"
		      "ALTER TABLE eth_port_rows DROP COLUMN ecn_np_enabled;"
		      "ALTER TABLE eth_port_rows DROP COLUMN ecn_rp_enabled;"
		      "ALTER TABLE eth_port_rows DROP COLUMN cnp_dscp;"
		      "ALTER TABLE eth_port_rows DROP COLUMN cnp_priority;"
		      "ALTER TABLE eth_port_rows DROP COLUMN trust;"
		      "CREATE VIEW eth_ports AS SELECT scan_id, system, ifname FROM eth_port_rows;",
		[3] = "DROP VIEW nodes; DROP VIEW ports; DROP VIEW mgmt_ports; DROP VIEW links;"
		      " DROP INDEX scans_by_topology; ALTER TABLE scans DROP COLUMN topology_scan_id;"
		      " ALTER TABLE node_rows RENAME TO nodes; ALTER TABLE link_rows RENAME TO links;"
		      " CREATE VIEW ports AS SELECT * FROM port_rows WHERE port_num > 0;"
		      " CREATE VIEW mgmt_ports AS SELECT * FROM port_rows WHERE port_num = 0;",
		[4] = "DROP VIEW forwarding; DROP VIEW lft_entries; DROP VIEW switch_tables;"
		      " DROP TABLE lft_slots; DROP TABLE scan_routing; DROP TABLE routing_set_switches;"
		      " DROP TABLE routing_sets; DROP TABLE lft_table_blocks; DROP TABLE lft_tables;"
		      " DROP TABLE lft_blocks;",
		[5] = "DROP VIEW counter_hourly; DROP TABLE counter_rollups;"
		      " DROP TRIGGER findings_insert; DROP VIEW findings; DROP VIEW held_findings; DROP TABLE finding_holds;"
		      " ALTER TABLE finding_rows RENAME TO findings;",
		[6] = "DROP VIEW nodes; ALTER TABLE node_rows DROP COLUMN fw_version;"
		      " ALTER TABLE node_rows DROP COLUMN psid;"
		      " CREATE VIEW nodes AS SELECT s.scan_id AS scan_id, n.node_idx, n.node_guid,"
		      " n.node_type, n.description, n.lid, n.num_ports, n.role, n.sys_guid,"
		      " n.vendor_id, n.device_id, n.revision, n.hops, n.smp_failed, n.pma_failed,"
		      " n.description_raw"
		      " FROM scans s JOIN node_rows n ON n.scan_id = coalesce(s.topology_scan_id, s.scan_id);",
		[7] = "DROP VIEW port_partitions; DROP VIEW port_pkey_tables; DROP TABLE scan_pkeys;"
		      " DROP TABLE pkey_set_ports; DROP TABLE pkey_sets; DROP TABLE pkey_table_entries;"
		      " DROP TABLE pkey_tables;",
		[8] = "DROP VIEW sl2vl; DROP TABLE scan_sl2vl; DROP TABLE sl2vl_set_tables;"
		      " DROP TABLE sl2vl_sets;",
		[9] = "DROP VIEW IF EXISTS counters; DROP VIEW vl_xmit_wait; DROP VIEW pma_unsupported;"
		      " ALTER TABLE port_counters DROP COLUMN PortLocalPhysicalErrors;"
		      " ALTER TABLE port_counters DROP COLUMN PortMalformedPacketErrors;"
		      " ALTER TABLE port_counters DROP COLUMN PortBufferOverrunErrors;"
		      " ALTER TABLE port_counters DROP COLUMN PortDLIDMappingErrors;"
		      " ALTER TABLE port_counters DROP COLUMN PortVLMappingErrors;"
		      " ALTER TABLE port_counters DROP COLUMN PortLoopingErrors;"
		      " ALTER TABLE port_counters DROP COLUMN PortInactiveDiscards;"
		      " ALTER TABLE port_counters DROP COLUMN PortNeighborMTUDiscards;"
		      " ALTER TABLE port_counters DROP COLUMN PortSwLifetimeLimitDiscards;"
		      " ALTER TABLE port_counters DROP COLUMN PortSwHOQLifetimeLimitDiscards;"
		      " ALTER TABLE port_counters DROP COLUMN unsupported;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait0;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait1;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait2;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait3;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait4;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait5;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait6;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait7;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait8;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait9;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait10;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait11;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait12;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait13;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait14;"
		      " ALTER TABLE port_counters DROP COLUMN VLXmitWait15;",
		[10] = "DROP TABLE roce_votes;",
		[11] = "DROP VIEW vlarb; DROP VIEW qos_scans; DROP TABLE vlarb_set_ports;"
		      " DROP TABLE vlarb_sets; DROP TABLE scan_qos; DROP VIEW ports;"
		      " ALTER TABLE port_rows DROP COLUMN vl_cap; ALTER TABLE port_rows DROP COLUMN vl_high_limit;"
		      " ALTER TABLE port_rows DROP COLUMN vlarb_high_cap;"
		      " ALTER TABLE port_rows DROP COLUMN vlarb_low_cap;"
		      " CREATE VIEW ports AS SELECT s.scan_id AS scan_id, p.node_guid, p.port_num,"
		      " p.port_guid, p.lid, p.lmc, p.sm_lid, p.state, p.phys_state, p.width_active,"
		      " p.width_enabled, p.width_supported, p.speed_active, p.speed_enabled,"
		      " p.speed_supported, p.rate_gbps, p.mtu_active, p.mtu_cap, p.op_vls,"
		      " p.cap_mask, p.remote_guid, p.remote_port, p.smp_failed, p.pma_failed,"
		      " p.no_remote"
		      " FROM scans s JOIN port_rows p ON p.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
		      " WHERE p.port_num > 0;",
		[12] = "DROP VIEW eth_ports; DROP VIEW port_ber; DROP VIEW module_lanes;"
		       " DROP VIEW modules; DROP TABLE port_ber_rows; DROP TABLE nic_counters;"
		       " DROP TABLE module_lane_rows; DROP TABLE module_rows;"
		       " ALTER TABLE eth_port_rows DROP COLUMN driver;"
		       " ALTER TABLE eth_port_rows DROP COLUMN stats_status;"
		       " ALTER TABLE eth_port_rows DROP COLUMN module_status;"
		       " CREATE VIEW eth_ports AS SELECT scan_id, system, ifname FROM eth_port_rows;",
		[13] = "DROP VIEW mcast_forwarding; DROP VIEW mcast_switch_tables; DROP VIEW mcast_members;"
		       " DROP VIEW mcast_groups; DROP TABLE mcast_rate_codes; DROP TABLE scan_mcast;"
		       " DROP TABLE mft_set_switches; DROP TABLE mft_sets; DROP TABLE mft_table_entries;"
		       " DROP TABLE mft_tables; DROP TABLE mcast_set_groups; DROP TABLE mcast_group_sets;"
		       " DROP TABLE mcast_member_rows; DROP TABLE mcast_group_rows;",
		[14] = "DROP TABLE alerts; DROP TABLE events;",
		[15] = "DROP TABLE merge_inputs;"
		       " DROP TRIGGER lldp_tlvs_insert; DROP TRIGGER lldp_tlvs_delete;"
		       " DROP TRIGGER lldp_tlvs_update; DROP TRIGGER lldp_tlv_owner_copy_rows;"
		       " DROP TABLE lldp_tlv_owner_copy; DROP VIEW lldp_tlvs;"
		       " ALTER TABLE lldp_neighbors DROP COLUMN tlv_set;"
		       " ALTER TABLE eth_port_rows DROP COLUMN tlv_set;"
		       " DROP TABLE lldp_tlv_set_entries; DROP TABLE lldp_tlv_sets;"
		       " ALTER TABLE lldp_tlv_rows RENAME TO lldp_tlvs;"
		       " DROP TRIGGER rdma_counters_update; DROP VIEW rdma_counters;"
		       " ALTER TABLE rdma_port_rows DROP COLUMN counter_values;"
		       " ALTER TABLE rdma_port_rows DROP COLUMN counter_set;"
		       " DROP TABLE rdma_counter_names; DROP TABLE rdma_counter_sets;"
		       " ALTER TABLE rdma_counter_rows RENAME TO rdma_counters;",
		[16] = UNDO_STEP_17,
		[17] = UNDO_STEP_18,
		[18] = UNDO_STEP_19,
	};
	char sql[64];
	int from = (int)count("PRAGMA user_version");

	static_assert(ARRAY_SIZE(undo) == FAB_SCHEMA_VERSION, "an undo per migration step");
	for (int v = from - 1; v >= to && v >= 1; v--)
		raw_exec(undo[v]);
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", to);
	raw_exec(sql);
}

static bool want_guid(uint64_t guid, const char *desc, void *ctx)
{
	(void)desc;
	return guid == *(const uint64_t *)ctx;
}

/* One loader: the part around a CA reads its rows as the whole load does
 * (the same code with a filter), and both agree on what they do not know. */
static void test_one_loader(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(1, 2, 2), *all, *view;
	struct fab_finding f = { .rule_id = "port.errors", .severity = FAB_SEV_WARNING,
				 .node = "0x0000000000003010", .port = "1",
				 .subject = "host", .message = "m" };
	struct fab_store *st;
	uint64_t host = 0x3010;

	fab_snapshot_add_finding(snap, &f);
	f.node = "0x0000000000001000"; /* a spine: not in the view */
	fab_snapshot_add_finding(snap, &f);
	write_one(snap);
	/* a severity the store does not know (a newer writer), a LID not read */
	raw_exec("PRAGMA ignore_check_constraints=ON;"
		 "UPDATE finding_rows SET severity='critical';"
		 "UPDATE node_rows SET lid=NULL WHERE node_guid='0x0000000000003010'");
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 0, &all), 0);
	assert_int_equal(fab_store_load_view(st, 0, want_guid, &host, &view), 0);
	assert_int_equal(all->n_findings, 2);
	assert_int_equal(all->findings[0].severity, FAB_SEV_ERROR);
	assert_int_equal(view->n_findings, 1);
	assert_int_equal(view->findings[0].severity, FAB_SEV_ERROR);
	/* the host, its leaf's port cabled to it and port 0: as the whole load has them */
	uint32_t hv = fab_snapshot_find_node(view, host), ha = fab_snapshot_find_node(all, host);
	assert_true(view->nodes[hv].flags & FAB_F_LID_UNKNOWN);
	assert_int_equal(view->nodes[hv].flags, all->nodes[ha].flags);
	assert_int_equal(view->n_nodes, 2);
	assert_int_equal(view->n_ports, 1 + 2);
	for (size_t i = 0; i < view->n_ports; i++) {
		const struct fab_port *p = &view->ports[i];
		uint32_t an = fab_snapshot_find_node(all, view->nodes[p->node_idx].guid);
		const struct fab_port *q = fab_snapshot_port(all, an, p->port_num);
		assert_non_null(q);
		assert_int_equal(p->guid, q->guid);
		assert_int_equal(p->state, q->state);
		assert_int_equal(p->width_active, q->width_active);
		assert_int_equal(p->lid, q->lid);
		const struct fab_counter_sample *a = fab_snapshot_sample(view, (uint32_t)i, 0);
		const struct fab_counter_sample *b = fab_snapshot_sample(all, (uint32_t)(q - all->ports), 0);
		assert_true(!a == !b);
		if (a)
			assert_memory_equal(a->v, b->v, sizeof(a->v));
	}
	assert_int_equal(view->n_links, 1);
	fab_snapshot_free(view);
	/* nothing picked: an empty view, not the whole scan */
	host = 0x4242;
	assert_int_equal(fab_store_load_view(st, 0, want_guid, &host, &view), 0);
	assert_int_equal(view->n_nodes, 0);
	assert_int_equal(view->n_findings, 0);
	fab_snapshot_free(view);
	fab_snapshot_free(all);
	fab_store_close(st);
	fab_snapshot_free(snap);
}

/* The counters view (the long form of port_counters) follows the counter
 * columns: it is rebuilt after every migration. */
static void test_counters_view(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(1, 1, 1);
	struct fab_store *st;

	write_one(snap);
	int64_t rows = count("SELECT count(*) FROM counters");
	int per_sample = __builtin_popcount(snap->samples[0].valid);
	assert_int_equal(rows, (int64_t)snap->n_samples * per_sample);
	assert_int_equal(count("SELECT count(DISTINCT counter) FROM counters"), per_sample);
	raw_exec("DROP VIEW counters");
	downgrade(1);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	fab_store_close(st);
	assert_int_equal(count("SELECT count(*) FROM counters"), rows);
	fab_snapshot_free(snap);
}

/* The checks relation: written when the rules ran, loaded back; a version 1
 * database gets it on migration, backfilled for scans that have findings. */
static void test_checks(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(1, 2, 1), *back;
	struct fab_store *st;
	struct fab_finding f = { .rule_id = "sm.no_standby", .severity = FAB_SEV_WARNING,
				 .subject = "fabric", .message = "one SM" };

	write_one(snap); /* scan 1: never checked */
	snap->checked_at_ms = snap->started_at_ms + 60000;
	fab_snapshot_add_finding(snap, &f);
	write_one(snap); /* scan 2: checked when written (a sweep) */
	assert_int_equal(count("SELECT count(*) FROM checks"), 1);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 1, &back), 0);
	assert_int_equal(back->checked_at_ms, 0);
	back->checked_at_ms = snap->started_at_ms + 120000; /* fabsweep check */
	assert_int_equal(fab_store_replace_findings(st, back), 0);
	assert_int_equal(fab_store_replace_findings(st, back), 0);
	fab_snapshot_free(back);
	assert_int_equal(fab_store_load_scan(st, 1, &back), 0);
	assert_int_equal(back->checked_at_ms, snap->started_at_ms + 120000);
	fab_snapshot_free(back);
	assert_int_equal(fab_store_load_scan(st, 2, &back), 0);
	assert_int_equal(back->checked_at_ms, snap->checked_at_ms);
	fab_snapshot_free(back);
	fab_store_close(st);
	assert_int_equal(count("SELECT count(*) FROM checks"), 2);

	/* back to version 1: no checks relation; scan 2 has findings */
	downgrade(1);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), -EPROTO);
	assert_non_null(strstr(fab_errmsg(), "run 'fabsweep db migrate'"));
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	fab_store_close(st);
	assert_int_equal(count("PRAGMA user_version"), FAB_SCHEMA_VERSION);
	assert_int_equal(count("SELECT count(*) FROM checks"), 1);
	assert_int_equal(count("SELECT scan_id FROM checks WHERE checked_at ="
			       " (SELECT finished_at FROM scans WHERE scan_id = 2)"), 2);
	fab_snapshot_free(snap);
}

/* Version 2 -> 3: the ECN columns arrive empty (not collected: unknown);
 * trust is derived from the NIC's application table where DCB answered. */
static void test_migrate_ecn(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(1, 1, 1);
	struct fab_store *st;

	write_one(snap);
	downgrade(2);
	raw_exec("INSERT INTO eth_port_rows(scan_id, port_idx, system_idx, system, ifname, sysfs,"
		 " lldp, stub, dcb_status, dcb_app_entries) VALUES"
		 " (1, 0, 0, 'h1', 'eth0', 1, 1, 0, 'ok', 'udp:4791=3,dscp:26=3'),"
		 " (1, 1, 0, 'h1', 'eth1', 1, 1, 0, 'ok', 'udp:4791=3'),"
		 " (1, 2, 0, 'h1', 'eth2', 1, 1, 0, 'ok', ''),"
		 " (1, 3, 0, 'h1', 'eth3', 1, 1, 0, 'unsupported', NULL),"
		 " (1, 4, 0, 'h1', 'eth4', 1, 1, 0, 'ok', NULL)");
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	fab_store_close(st);
	assert_int_equal(count("PRAGMA user_version"), FAB_SCHEMA_VERSION);
	assert_int_equal(count("SELECT count(*) FROM eth_ports WHERE ecn_np_enabled IS NULL AND"
			       " ecn_rp_enabled IS NULL AND cnp_dscp IS NULL AND cnp_priority IS NULL"),
			 5);
	assert_int_equal(count("SELECT count(*) FROM eth_ports WHERE"
			       " (ifname = 'eth0' AND trust = 'dscp') OR"
			       " (ifname IN ('eth1', 'eth2') AND trust = 'pcp') OR"
			       " (ifname IN ('eth3', 'eth4') AND trust IS NULL)"),
			 5);
	fab_snapshot_free(snap);
}

static int64_t table_rows(void)
{
	return count("SELECT (SELECT count(*) FROM lft_blocks) + (SELECT count(*) FROM lft_tables) +"
		     " (SELECT count(*) FROM lft_table_blocks) + (SELECT count(*) FROM routing_sets) +"
		     " (SELECT count(*) FROM routing_set_switches)");
}

/* Forwarding tables: written content-addressed, read back equal (a block
 * not read stays unknown, a switch without SwitchInfo stays failed); an
 * unchanged second snapshot adds no table rows, a changed entry adds one
 * block, one table and one routing; the public view says what the tables
 * say; a version 2 database keeps its scans readable (they have no tables). */
static void test_routing(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(2, 4, 3), *back;
	struct fab_store *st;

	assert_int_equal(fabfix_route_minhop(snap), 0);
	struct fab_routing *r = snap->routing;
	assert_int_equal(r->n_lfts, 6);
	uint8_t *miss = fab_routing_alloc(r, r->lfts[1].n_blocks, 0);
	miss[0] = 1;
	r->lfts[1].missing = miss;
	r->lfts[1].status = FAB_LFT_PARTIAL;
	r->lfts[2] = (struct fab_lft){ .node_idx = r->lfts[2].node_idx, .status = FAB_LFT_FAILED };
	write_one(snap);
	int64_t rows = table_rows();
	assert_true(rows > 0);
	/* the view: every entry of the tables that were read, 255 included */
	int64_t n = 0;
	for (size_t i = 0; i < r->n_lfts; i++)
		for (unsigned lid = 0; lid <= r->lfts[i].fdb_top; lid++)
			n += fab_lft_entry(&r->lfts[i], lid) >= 0;
	assert_int_equal(count("SELECT count(*) FROM forwarding WHERE scan_id = 1"), n);
	assert_int_equal(count("SELECT port FROM forwarding f JOIN nodes n USING (scan_id, node_guid)"
			       " WHERE n.node_idx = 0 AND f.lid = 7"),
			 fab_lft_entry(&r->lfts[0], 7));

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 1, &back), 0);
	fab_store_close(st);
	assert_non_null(back->routing);
	assert_int_equal(back->routing->n_lfts, r->n_lfts);
	for (size_t i = 0; i < r->n_lfts; i++) {
		const struct fab_lft *a = &r->lfts[i], *b = &back->routing->lfts[i];
		assert_int_equal(a->node_idx, b->node_idx);
		assert_int_equal(a->status, b->status);
		assert_int_equal(a->fdb_top, b->fdb_top);
		assert_int_equal(a->fdb_cap, b->fdb_cap);
		assert_int_equal(a->n_blocks, b->n_blocks);
		for (unsigned lid = 0; lid < 64u * a->n_blocks; lid++)
			assert_int_equal(fab_lft_entry(a, lid), fab_lft_entry(b, lid));
	}
	assert_int_equal(fab_lft_entry(&back->routing->lfts[1], 3), -1); /* not read */
	fab_snapshot_free(back);

	write_one(snap); /* unchanged */
	assert_int_equal(table_rows(), rows);
	assert_int_equal(count("SELECT count(DISTINCT set_id) FROM scan_routing"), 1);
	assert_int_equal(count("SELECT count(*) FROM scan_routing"), 2);
	((uint8_t *)r->lfts[0].port)[7] ^= 1; /* one entry moved */
	write_one(snap);
	assert_int_equal(count("SELECT count(DISTINCT set_id) FROM scan_routing"), 2);
	assert_int_equal(table_rows(), rows + 1 + 1 + (int64_t)r->lfts[0].n_blocks + 1 + 6);
	/* pruning the first two scans drops what only they used: the first
	 * routing, its switch rows, the table that changed, its old block */
	int64_t fwd = count("SELECT count(*) FROM forwarding WHERE scan_id = 3");
	struct fab_prune_opts po = { .keep = 1, .no_vacuum = true };
	struct fab_prune_result pr;
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_prune(st, &po, NULL, NULL, &pr), 0);
	fab_store_close(st);
	assert_int_equal(table_rows(), rows);
	assert_int_equal(count("SELECT count(*) FROM routing_sets"), 1);
	assert_int_equal(count("SELECT count(*) FROM forwarding WHERE scan_id = 3"), fwd);

	/* a version 2 database: migrated, its scans readable, with no tables */
	raw_exec("DELETE FROM scan_routing");
	downgrade(4);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 3, &back), 0);
	fab_store_close(st);
	assert_null(back->routing);
	assert_int_equal(count("PRAGMA user_version"), FAB_SCHEMA_VERSION);
	assert_int_equal(count("SELECT count(*) FROM lft_slots"), 64);
	fab_snapshot_free(back);
	fab_snapshot_free(snap);
}

static void test_resolve(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(1, 1, 1);
	struct fab_store *st;
	int64_t id;

	write_one(snap);
	write_one(snap);
	write_one(snap);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_resolve_scan(st, 0, &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(fab_store_resolve_scan(st, -1, &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(fab_store_resolve_scan(st, 2, &id), 0);
	assert_int_equal(fab_store_resolve_scan(st, 9, &id), -ENOENT);
	assert_non_null(strstr(fab_errmsg(), "no scan 9"));
	assert_int_equal(fab_store_resolve_scan(st, -3, &id), -ENOENT);
	fab_store_close(st);
	fab_snapshot_free(snap);
}

/* Reads a whole file into a malloc'd buffer. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

static void expect_refused(int expected_err, const char *msg_part)
{
	struct fab_store *st = NULL;
	size_t l1, l2;
	char *before = slurp(dbpath, &l1);

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), expected_err);
	assert_null(st);
	assert_non_null(strstr(fab_errmsg(), msg_part));
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), expected_err);
	char *after = slurp(dbpath, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(before, after, l1);
	free(before);
	free(after);
}

static void test_foreign_refused(void **state)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	expect_refused(-ENOTSUP, "not a fabsweep database");
}

static void test_newer_refused(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(1, 1, 1);
	sqlite3 *db;

	write_one(snap);
	fab_snapshot_free(snap);
	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA user_version=99",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	expect_refused(-EPROTO, "newer than this fabsweep");
}

static void test_garbage_refused(void **state)
{
	FILE *f = fopen(dbpath, "wb");

	for (int i = 0; i < 300; i++)
		fputs("this is not a database at all\n", f);
	fclose(f);
	expect_refused(-EPROTO, "database");
}

static void test_readonly_missing(void **state)
{
	struct fab_store *st = NULL;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), -ENOENT);
	assert_null(st);
	assert_int_equal(access(dbpath, F_OK), -1); /* a reader creates nothing */
}

static void test_hostile_description(void **state)
{
	struct fab_snapshot *snap = snapfix_fat_tree(1, 1, 1);
	static const uint8_t raw[64] = "<script>\x1b[31m\xff\xfe\"'&\x07"
				       "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrs";
	struct fab_snapshot *back;
	struct fab_store *st;

	fab_node_set_desc(&snap->nodes[0], raw, sizeof(raw));
	write_one(snap);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, 0, &back), 0);
	assert_string_equal(back->nodes[0].desc,
			    "<script>\\x1b[31m\\xff\\xfe\"'&\\x07abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrs");
	assert_int_equal(back->nodes[0].desc_raw_len, 64);
	assert_memory_equal(back->nodes[0].desc_raw, raw, 64);
	fab_snapshot_free(back);
	fab_store_close(st);
	fab_snapshot_free(snap);
}

/* ---- watch sweeps (docs/watch.md): a sweep shares its topology scan's
 * nodes, ports and links, stores only the counter rows that changed, and
 * loads back as a whole snapshot whose every port has its latest sample of
 * the chain; the public views give it its topology; pruning keeps a chain
 * whole. ---- */

/* A sweep of topo at t: the given ports read with SymbolErrorCounter = v. */
static struct fab_snapshot *sweep_of(const struct fab_snapshot *topo, int64_t t,
				     const uint32_t *ports, const uint64_t *v, size_t n)
{
	struct fab_snapshot *sw = fab_snapshot_new();

	assert_non_null(sw);
	sw->started_at_ms = t;
	sw->finished_at_ms = t + 20;
	sw->source = fab_snapshot_strdup(sw, "fixture", SIZE_MAX);
	for (size_t i = 0; i < n; i++) {
		struct fab_counter_sample *c = fab_snapshot_add_sample(sw);
		assert_non_null(c);
		c->port_idx = ports[i];
		c->sampled_at_ms = t + 10;
		c->valid = fab_counter_error_mask();
		c->v[FAB_CTR_SYMBOL_ERRORS] = v[i];
	}
	*fab_snapshot_add_sm(sw) = topo->sms[0];
	return sw;
}

static void write_sweep(struct fab_store *st, const struct fab_snapshot *topo, int64_t t,
			const uint32_t *ports, const uint64_t *v, size_t n, int64_t want_id)
{
	struct fab_snapshot *sw = sweep_of(topo, t, ports, v, n);

	assert_int_equal(fab_store_write_sweep(st, sw, topo), 0);
	assert_int_equal(sw->scan_id, want_id);
	assert_int_equal(sw->topology_scan_id, 1);
	fab_snapshot_free(sw);
}

/* Full scan 1, sweeps 2..4 changing ports a and b; what each loads as. */
static void test_chain(void **state)
{
	struct fab_snapshot *topo = snapfix_fat_tree(2, 4, 3), *back;
	struct fab_store *st;
	uint32_t a = topo->samples[0].port_idx, b = topo->samples[5].port_idx;
	int64_t t = topo->started_at_ms;

	assert_int_equal(fabfix_route_minhop(topo), 0);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, topo), 0);
	write_sweep(st, topo, t + 10000, &a, (uint64_t[]){ 5 }, 1, 2);
	write_sweep(st, topo, t + 20000, &b, (uint64_t[]){ 7 }, 1, 3);
	write_sweep(st, topo, t + 30000, (uint32_t[]){ a }, (uint64_t[]){ 2 }, 1, 4); /* a reset */

	/* only what changed is stored; the views give each sweep its topology */
	assert_int_equal(count("SELECT count(*) FROM port_counters WHERE scan_id = 3"), 1);
	assert_int_equal(count("SELECT count(*) FROM node_rows WHERE scan_id = 3"), 0);
	assert_int_equal(count("SELECT count(*) FROM nodes WHERE scan_id = 3"), (int64_t)topo->n_nodes);
	assert_int_equal(count("SELECT count(*) FROM links WHERE scan_id = 3"), (int64_t)topo->n_links);
	assert_int_equal(count("SELECT count(*) FROM ports WHERE scan_id = 4"),
			 count("SELECT count(*) FROM ports WHERE scan_id = 1"));
	assert_int_equal(count("SELECT count(*) FROM mgmt_ports WHERE scan_id = 4"), 6);
	assert_int_equal(count("SELECT count(*) FROM counters c JOIN nodes n USING (scan_id, node_guid)"
			       " WHERE c.scan_id = 3 AND c.counter = 'SymbolErrorCounter'"), 1);
	assert_int_equal(count("SELECT topology_scan_id FROM scans WHERE scan_id = 4"), 1);
	assert_int_equal(count("SELECT count(*) FROM scans WHERE topology_scan_id IS NULL"), 1);

	/* sweep 3: a from sweep 2, b from sweep 3, the others from scan 1 */
	assert_int_equal(fab_store_load_scan(st, 3, &back), 0);
	assert_int_equal(back->topology_scan_id, 1);
	assert_int_equal(back->n_nodes, topo->n_nodes);
	assert_int_equal(back->n_ports, topo->n_ports);
	assert_int_equal(back->n_links, topo->n_links);
	assert_int_equal(back->n_samples, topo->n_samples);
	assert_int_equal(back->n_sms, 1);
	/* the forwarding tables of the full scan it follows (ready under watch) */
	assert_non_null(back->routing);
	assert_int_equal(back->routing->n_lfts, topo->routing->n_lfts);
	assert_int_equal(fab_counter_latest(back, a)->v[FAB_CTR_SYMBOL_ERRORS], 5);
	assert_int_equal(fab_counter_latest(back, a)->sampled_at_ms, t + 10010);
	assert_int_equal(fab_counter_latest(back, b)->v[FAB_CTR_SYMBOL_ERRORS], 7);
	assert_int_equal(fab_counter_latest(back, topo->samples[1].port_idx)->sampled_at_ms,
			 topo->samples[1].sampled_at_ms);
	fab_snapshot_free(back);

	/* sweep 4 against sweep 3 as the baseline: a was cleared in between */
	struct fab_snapshot *base, *snap;
	struct fab_counter_pairs pairs;
	struct fab_counter_delta d;
	assert_int_equal(fab_store_load_baseline(st, 3, &base), 0);
	assert_int_equal(base->n_samples, topo->n_samples);
	assert_int_equal(fab_store_load_scan(st, 4, &snap), 0);
	assert_int_equal(fab_counter_pairs_build(snap, base, &pairs), 0);
	assert_true(fab_counter_pairs_delta(&pairs, a, FAB_CTR_MASK_ALL, &d));
	assert_true(d.reset & (1u << FAB_CTR_SYMBOL_ERRORS));
	assert_int_equal(d.inc[FAB_CTR_SYMBOL_ERRORS], 2);
	assert_true(fab_counter_pairs_delta(&pairs, b, FAB_CTR_MASK_ALL, &d));
	assert_int_equal(d.inc[FAB_CTR_SYMBOL_ERRORS], 0);
	fab_counter_pairs_free(&pairs);
	fab_snapshot_free(base);
	fab_snapshot_free(snap);

	/* a sample of a port the topology does not have is refused */
	uint32_t bad = (uint32_t)topo->n_ports;
	struct fab_snapshot *sw = sweep_of(topo, t + 40000, &bad, (uint64_t[]){ 1 }, 1);
	assert_int_equal(fab_store_write_sweep(st, sw, topo), -EINVAL);
	fab_snapshot_free(sw);
	fab_store_close(st);
	fab_snapshot_free(topo);
}

/* Retention drops a chain (a topology scan and its sweeps) only as a whole. */
static void test_prune_keeps_chains(void **state)
{
	struct fab_snapshot *topo = snapfix_fat_tree(1, 2, 2), *later = snapfix_fat_tree(1, 2, 2);
	struct fab_store *st;
	struct fab_prune_opts o = { .keep = 2 };
	struct fab_prune_result r;
	uint32_t a = topo->samples[0].port_idx;
	int64_t t = topo->started_at_ms;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, topo), 0);                 /* 1 */
	write_sweep(st, topo, t + 10000, &a, (uint64_t[]){ 5 }, 1, 2);        /* 2 */
	write_sweep(st, topo, t + 20000, NULL, NULL, 0, 3);                   /* 3 */
	write_sweep(st, topo, t + 30000, NULL, NULL, 0, 4);                   /* 4 */
	/* keep 2 keeps 3 and 4, so their chain stays: 2 holds what 4 shows */
	assert_int_equal(fab_store_prune(st, &o, NULL, NULL, &r), 0);
	assert_int_equal(r.dropped, 0);
	struct fab_snapshot *back;
	assert_int_equal(fab_store_load_scan(st, 4, &back), 0);
	assert_int_equal(fab_counter_latest(back, a)->v[FAB_CTR_SYMBOL_ERRORS], 5);
	fab_snapshot_free(back);
	/* two full scans later the chain goes, all of it */
	later->started_at_ms = t + 40000;
	assert_int_equal(fab_store_write_scan(st, later), 0);                 /* 5 */
	later->started_at_ms = t + 50000;
	assert_int_equal(fab_store_write_scan(st, later), 0);                 /* 6 */
	assert_int_equal(fab_store_prune(st, &o, NULL, NULL, &r), 0);
	assert_int_equal(r.dropped, 4);
	fab_store_close(st);
	assert_int_equal(count("SELECT count(*) FROM scans"), 2);
	assert_int_equal(count("SELECT count(*) FROM port_counters WHERE scan_id < 5"), 0);
	fab_snapshot_free(topo);
	fab_snapshot_free(later);
}

/* A version 2 database migrates: its scans keep their topology rows under
 * the views, and sweeps can be added to them. */
static void test_migrate_from_2(void **state)
{
	struct fab_snapshot *topo = snapfix_fat_tree(1, 2, 2);
	struct fab_store *st;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, topo), 0);
	fab_store_close(st);
	int64_t nodes = count("SELECT count(*) FROM nodes WHERE scan_id = 1");
	downgrade(3);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	write_sweep(st, topo, topo->started_at_ms + 1000, NULL, NULL, 0, 2);
	fab_store_close(st);
	assert_int_equal(count("PRAGMA user_version"), FAB_SCHEMA_VERSION);
	assert_int_equal(count("SELECT count(*) FROM nodes WHERE scan_id = 1"), nodes);
	assert_int_equal(count("SELECT count(*) FROM nodes WHERE scan_id = 2"), nodes);
	fab_snapshot_free(topo);
}


/* Retention of sweeps: the oldest chain whose sweeps are all older than
 * the window is rolled up per port, hour and counter, then deleted; the
 * newest chain never is. */
static void test_rollup(void **state)
{
	struct fab_snapshot *topo = snapfix_fat_tree(2, 4, 3), *later = snapfix_fat_tree(2, 4, 3), *back;
	struct fab_store *st;
	struct fab_rollup_result r;
	uint32_t a = topo->samples[0].port_idx, b = topo->samples[5].port_idx;
	int64_t t = topo->started_at_ms;

	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, topo), 0);
	write_sweep(st, topo, t + 10000, &a, (uint64_t[]){ 5 }, 1, 2);
	write_sweep(st, topo, t + 20000, &b, (uint64_t[]){ 7 }, 1, 3);
	write_sweep(st, topo, t + 30000, (uint32_t[]){ a }, (uint64_t[]){ 2 }, 1, 4); /* a reset */
	/* nothing older than the window yet */
	assert_int_equal(fab_store_rollup(st, t + 25000, &r), 0);
	assert_int_equal(r.chain, 0);
	/* the newest chain is never rolled up */
	assert_int_equal(fab_store_rollup(st, t + 3600000, &r), 0);
	assert_int_equal(r.chain, 0);
	later->started_at_ms = t + 40000;
	assert_int_equal(fab_store_write_scan(st, later), 0); /* 5 */
	assert_int_equal(fab_store_rollup(st, t + 3600000, &r), 0);
	assert_int_equal(r.chain, 1);
	assert_int_equal(r.sweeps, 4);
	assert_int_equal(fab_store_rollup(st, t + 3600000, &r), 0);
	assert_int_equal(r.chain, 0);
	/* the chain is gone whole; the newer one is as it was */
	assert_int_equal(fab_store_load_scan(st, 5, &back), 0);
	assert_int_equal(back->n_samples, later->n_samples);
	fab_snapshot_free(back);
	fab_store_close(st);
	assert_int_equal(count("SELECT count(*) FROM scans"), 1);
	assert_int_equal(count("SELECT count(*) FROM port_counters WHERE scan_id BETWEEN 2 AND 4"), 0);
	/* a: 0 -> 5 -> (cleared) 2 -> (cleared: the next full scan) 0; b: 0 -> 7
	 * -> (cleared) 0; nothing else moved */
	char sql[300];
	snprintf(sql, sizeof(sql), "SELECT sum(increase) * 100 + sum(resets) FROM counter_hourly"
		 " WHERE counter = 'SymbolErrorCounter' AND node_guid = '0x%016llx' AND port_num = %u",
		 (unsigned long long)topo->nodes[topo->ports[a].node_idx].guid, topo->ports[a].port_num);
	assert_int_equal(count(sql), 702);
	assert_int_equal(count("SELECT sum(increase) FROM counter_hourly"), 14);
	assert_int_equal(count("SELECT count(DISTINCT node_guid || port_num) FROM counter_hourly"), 2);
	/* the highest rate: a's 5 in 9.51 s (b: 7 in 19.51 s) */
	assert_int_equal(count("SELECT CAST(max(max_rate) * 1000 AS INTEGER) FROM counter_hourly"), 525);
	fab_snapshot_free(topo);
	fab_snapshot_free(later);
}

/* ---- held findings (docs/watch.md "Findings"): a hold is stored once, as
 * an interval, whatever the number of scans that show it ---- */

/* Judges snap at now as watch does: raises port.errors at port 1 of node
 * 0x10 if raise, then the hold; written as a full scan (topo NULL) or a
 * sweep of topo. Returns how many findings snap had, which the scan must
 * load back with the same evidence. */
static size_t judge_write(struct fab_store *st, struct fab_rules_hold *h, struct fab_snapshot *snap,
			  const struct fab_snapshot *topo, int64_t now, bool raise, int64_t want_id)
{
	struct fab_finding f = { .rule_id = "port.errors", .severity = FAB_SEV_WARNING,
				 .node = "0x0000000000000010", .port = "1", .subject = "s",
				 .message = "m", .evidence = "SymbolErrorCounter=5" };
	struct fab_snapshot *back;

	if (raise)
		assert_int_equal(fab_snapshot_add_finding(snap, &f), 0);
	assert_int_equal(fab_rules_hold_apply(h, snap, now), 0);
	snap->checked_at_ms = now;
	if (topo)
		assert_int_equal(fab_store_write_sweep(st, snap, topo), 0);
	else
		assert_int_equal(fab_store_write_scan(st, snap), 0);
	assert_int_equal(snap->scan_id, want_id);
	assert_int_equal(fab_store_load_scan(st, want_id, &back), 0);
	assert_int_equal(back->n_findings, snap->n_findings);
	for (size_t i = 0; i < snap->n_findings; i++) {
		assert_string_equal(back->findings[i].rule_id, snap->findings[i].rule_id);
		assert_string_equal(back->findings[i].evidence, snap->findings[i].evidence);
	}
	fab_snapshot_free(back);
	return snap->n_findings;
}

static void test_holds(void **state)
{
	struct fab_snapshot *topo = snapfix_fat_tree(1, 2, 2), *next = snapfix_fat_tree(1, 2, 2);
	struct fab_rules_hold *h;
	struct fab_store *st;
	int64_t t = topo->started_at_ms;
	char sql[160];

	assert_int_equal(fab_rules_hold_new(5000, &h), 0);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(judge_write(st, h, topo, NULL, t, true, 1), 1); /* raised */
	struct fab_snapshot *sw[6];
	static const struct {
		int64_t at;
		bool raise;
		size_t want;
	} sweeps[] = {
		{ 1000, false, 1 }, /* 2: held since t */
		{ 2000, true, 1 },  /* 3: raised again */
		{ 4000, false, 1 }, /* 4: held since t + 2 s */
		{ 6000, false, 1 }, /* 5: held */
	};
	for (size_t i = 0; i < ARRAY_SIZE(sweeps); i++) {
		sw[i] = sweep_of(topo, t + sweeps[i].at, NULL, NULL, 0);
		assert_int_equal(judge_write(st, h, sw[i], topo, t + sweeps[i].at, sweeps[i].raise,
					     (int64_t)i + 2), sweeps[i].want);
	}
	assert_non_null(strstr(sw[0]->findings[0].evidence, "; held_since="));
	assert_true(sw[2]->findings[0].held);
	/* a full scan carries the hold into its chain (6), and its sweeps show
	 * it until the hold time is over (7), then not (8) */
	next->started_at_ms = t + 6500;
	assert_int_equal(judge_write(st, h, next, NULL, t + 6500, false, 6), 1);
	sw[4] = sweep_of(next, t + 7000, NULL, NULL, 0);
	assert_int_equal(judge_write(st, h, sw[4], next, t + 7000, false, 7), 1);
	sw[5] = sweep_of(next, t + 7100, NULL, NULL, 0);
	assert_int_equal(judge_write(st, h, sw[5], next, t + 7100, false, 8), 0);
	fab_store_close(st);

	/* two raises are two rows; three holds (two raises, one carried) */
	assert_int_equal(count("SELECT count(*) FROM finding_rows"), 2);
	assert_int_equal(count("SELECT count(*) FROM finding_holds"), 3);
	assert_int_equal(count("SELECT count(*) FROM findings"), 7);
	for (int id = 1; id <= 8; id++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM findings WHERE scan_id = %d", id);
		assert_int_equal(count(sql), id == 8 ? 0 : 1);
	}
	/* the public view names when it was raised */
	assert_int_equal(count("SELECT count(*) FROM findings WHERE scan_id = 4 AND evidence ="
			       " 'SymbolErrorCounter=5; held_since=' ||"
			       " (SELECT checked_at FROM checks WHERE scan_id = 3)"), 1);
	/* pruning the first chain drops its holds with it */
	struct fab_prune_opts o = { .keep = 2 };
	struct fab_prune_result r;
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_prune(st, &o, NULL, NULL, &r), 0);
	fab_store_close(st);
	assert_int_equal(r.dropped, 5);
	assert_int_equal(count("SELECT count(*) FROM finding_holds"), 1);
	/* back to version 5 (no holds) and migrated again */
	downgrade(5);
	assert_int_equal(count("SELECT count(*) FROM findings"), 0);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	fab_store_close(st);
	assert_int_equal(count("SELECT count(*) FROM finding_holds"), 0);
	/* what inserted into findings itself still can */
	raw_exec("INSERT INTO findings(scan_id, rule_id, severity, message) VALUES (8, 'x', 'info', 'm')");
	assert_int_equal(count("SELECT count(*) FROM finding_rows WHERE scan_id = 8"), 1);
	for (size_t i = 0; i < 6; i++)
		fab_snapshot_free(sw[i]);
	fab_snapshot_free(topo);
	fab_snapshot_free(next);
	fab_rules_hold_free(h);
}


/* Every public RoCE relation of a scan as text, rows sorted, scan_id left out. */
static char *roce_rows(int64_t scan)
{
	static const char *const rel[] = { "systems", "eth_ports", "lldp_neighbors", "eth_links",
					   "lldp_tlvs", "rdma_devices", "rdma_ports", "rdma_counters" };
	sqlite3 *db;
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);

	assert_non_null(out);
	out[0] = '\0';
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		char sql[2048], cols[1500] = "";
		sqlite3_stmt *q;
		size_t off = 0;
		snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('%s') WHERE name <> 'scan_id'"
					   " AND name <> 'tlv_set'", rel[i]);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
		while (sqlite3_step(q) == SQLITE_ROW)
			off += (size_t)snprintf(cols + off, sizeof(cols) - off, "%squote(%s)", off ? "||'|'||" : "",
						(const char *)sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
		snprintf(sql, sizeof(sql), "SELECT '%s|'||%s AS x FROM %s WHERE scan_id = %lld ORDER BY x", rel[i],
			 cols, rel[i], (long long)scan);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
		rows_append(q, &out, &len, &cap);
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	return out;
}

static struct fab_snapshot *load_id(int64_t id)
{
	return load_scan_at(dbpath, id);
}

/*
 * Schema 16's RoCE storage (a port's counters one row, TLV sets shared):
 * a scan an older fabsweep wrote (one row per TLV and per counter) is read
 * straight from the file and with SQLite as it is (schema 15; then 14 down
 * to 10 straight from the file), migrates, and loads as
 * the same model; the public relations give the same rows for it and for
 * the same snapshot written now; UPDATE and DELETE on lldp_tlvs and
 * rdma_counters change exactly the rows named (a TLV set shared by many
 * owners stays as it was for the others).
 */
static void test_migrate_roce(void **state)
{
	struct fab_snapshot *fx = rf_base(0), *s, *back;
	struct fab_store *st;

	write_one(fx);
	char *before = roce_rows(1);
	/* scan 1 as schema 15 stored it: rows of their own */
	raw_exec("INSERT INTO lldp_tlv_rows(scan_id, owner, owner_idx, system, ifname, oui, subtype, info)"
		 " SELECT p.scan_id, 'port', p.port_idx, p.system, p.ifname, e.oui, e.subtype, e.info"
		 " FROM eth_port_rows p JOIN lldp_tlv_set_entries e ON e.set_id = p.tlv_set"
		 " ORDER BY p.port_idx, e.pos;"
		 "INSERT INTO lldp_tlv_rows(scan_id, owner, owner_idx, system, ifname, oui, subtype, info)"
		 " SELECT n.scan_id, 'neighbor', n.neighbor_idx, n.system, n.ifname, e.oui, e.subtype, e.info"
		 " FROM lldp_neighbors n JOIN lldp_tlv_set_entries e ON e.set_id = n.tlv_set"
		 " ORDER BY n.neighbor_idx, e.pos;"
		 "UPDATE eth_port_rows SET tlv_set = NULL; UPDATE lldp_neighbors SET tlv_set = NULL;"
		 "INSERT INTO rdma_counter_rows(scan_id, device_idx, port_num, system, device, kind, counter, value)"
		 " SELECT p.scan_id, p.device_idx, p.port_num, p.system, p.device, n.kind, n.counter, v.value"
		 " FROM rdma_port_rows p JOIN rdma_counter_names n ON n.set_id = p.counter_set"
		 " JOIN json_each(p.counter_values) v ON v.key = n.pos ORDER BY p.device_idx, p.port_num, n.pos;"
		 "UPDATE rdma_port_rows SET counter_set = NULL, counter_values = NULL;"
		 "DELETE FROM lldp_tlv_set_entries; DELETE FROM lldp_tlv_sets;"
		 "DELETE FROM rdma_counter_names; DELETE FROM rdma_counter_sets;");
	char *old_form = roce_rows(1);
	assert_string_equal(old_form, before);
	downgrade(15);
	assert_int_equal(count("PRAGMA user_version"), 15);
	/* a merge reads the old file as it is, both ways */
	struct fab_store_input info;
	char journal[300];
	assert_int_equal(fab_store_read_input(NULL, dbpath, &s, &info), 0);
	assert_true(info.direct);
	same_model(s->roce, fx->roce);
	fab_snapshot_free(s);
	snprintf(journal, sizeof(journal), "%s-journal", dbpath);
	fclose(fopen(journal, "w"));
	assert_int_equal(fab_store_read_input(NULL, dbpath, &s, &info), 0);
	unlink(journal);
	assert_false(info.direct);
	same_model(s->roce, fx->roce);
	fab_snapshot_free(s);
	/* the files of older versions still: a merge reads every host's file as it is */
	for (int v = 14; v >= 10; v--) {
		downgrade(v);
		assert_int_equal(count("PRAGMA user_version"), v);
		assert_int_equal(fab_store_read_input(NULL, dbpath, &s, &info), 0);
		assert_true(info.direct);
		same_model(s->roce, fx->roce);
		fab_snapshot_free(s);
	}
	/* migrated: the same rows, the same model */
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	fab_snapshot_free(fx);
	fx = rf_base(0);
	assert_int_equal(fab_store_write_scan(st, fx), 0); /* scan 2: the new form */
	fab_store_close(st);
	char *migrated = roce_rows(1), *now = roce_rows(2);
	assert_string_equal(migrated, before);
	assert_string_equal(now, before);
	assert_int_equal(count("SELECT count(*) FROM rdma_counter_rows WHERE scan_id = 2"), 0);
	assert_int_equal(count("SELECT count(*) FROM lldp_tlv_rows WHERE scan_id = 2"), 0);
	back = load_id(1);
	same_model(back->roce, fx->roce);
	fab_snapshot_free(back);
	back = load_id(2);
	same_model(back->roce, fx->roce);
	fab_snapshot_free(back);

	/* SQL changes through the views, as on the tables of schema 15 */
	for (int64_t id = 1; id <= 2; id++) {
		char sql[600];
		snprintf(sql, sizeof(sql),
			 "UPDATE rdma_counters SET value = value + 5 WHERE scan_id = %lld AND system = 'host2'"
			 " AND counter = 'out_of_sequence';"
			 "UPDATE lldp_tlvs SET info = X'0810' WHERE scan_id = %lld AND subtype = 11"
			 " AND owner = 'port' AND system = 'host3' AND ifname = 'eth0';"
			 "DELETE FROM lldp_tlvs WHERE scan_id = %lld AND owner = 'neighbor' AND system = 'host1';",
			 (long long)id, (long long)id, (long long)id);
		raw_exec(sql);
		back = load_id(id);
		const struct fab_roce *r = back->roce, *x = fx->roce;
		for (size_t i = 0; i < r->n_counters; i++)
			assert_int_equal(r->counters[i].value,
					 x->counters[i].value + (!strcmp(r->counters[i].name, "out_of_sequence") &&
								 r->rdma_ports[1].ctr_first <= i &&
								 i < r->rdma_ports[1].ctr_first + r->rdma_ports[1].ctr_count
							 ? 5 : 0));
		for (size_t i = 0; i < r->n_eth_ports; i++) {
			const struct fab_eth_port *p = &r->eth_ports[i];
			bool h3 = !strcmp(r->systems[p->system_idx].name, "host3") && !strcmp(p->ifname, "eth0");
			assert_int_equal(p->adv.pfc.enabled, h3 ? 0x10 : x->eth_ports[i].adv.pfc.enabled);
		}
		for (size_t i = 0; i < r->n_neighbors; i++) {
			bool h1 = !strcmp(r->systems[r->eth_ports[r->neighbors[i].port_idx].system_idx].name, "host1");
			assert_int_equal(r->neighbors[i].tlv_count, h1 ? 0 : x->neighbors[i].tlv_count);
		}
		fab_snapshot_free(back);
	}
	free(before);
	free(old_form);
	free(migrated);
	free(now);
	fab_snapshot_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_loader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_ecn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_routing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_description, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_keeps_chains, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_roce, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
