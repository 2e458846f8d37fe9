/* SPDX-License-Identifier: MIT */
/*
 * The schema, version by version. migrations[v] takes a database from
 * user_version v to v + 1; a fresh database runs them all. Never edit a
 * released step: append one. docs/schema.md documents the public relations.
 */
#pragma once

/* The eth_ports view's columns as schema version 1 made them; later steps
 * that add columns recreate the view with these first. */
#define ETH_PORTS_VIEW_V1 \
	"CREATE VIEW eth_ports AS SELECT scan_id, system, ifname, mac, mtu," \
	" speed_mbps, state, rdma_device, rdma_port," \
	" CASE WHEN dcb_status = 'ok' AND dcb_pfc_enabled IS NOT NULL" \
	"  THEN dcb_pfc_enabled ELSE lldp_pfc_enabled END AS pfc_enabled," \
	" lldp_pfc_willing AS pfc_willing, dcb_status," \
	" CASE WHEN dcb_status = 'ok' AND dcb_pfc_enabled IS NOT NULL THEN 'dcb'" \
	"  WHEN lldp_pfc_enabled IS NOT NULL THEN 'lldp' END AS pfc_source," \
	" CASE WHEN dcb_status = 'ok' AND dcb_app_entries IS NOT NULL" \
	"  THEN dcb_app_entries ELSE lldp_app_entries END AS app_entries," \
	" sysfs, lldp, stub, port_id, port_id_subtype, port_descr," \
	" lldp_pfc_enabled, lldp_pfc_willing, lldp_pfc_mbc, lldp_pfc_cap," \
	" lldp_app_entries, lldp_ets_willing, lldp_ets_max_tcs, lldp_ets_prio_tc," \
	" lldp_ets_tc_bw, lldp_ets_tsa, lldp_reco_prio_tc, lldp_reco_tc_bw," \
	" lldp_reco_tsa, lldp_bad_tlvs, dcbx_mode, dcb_pfc_enabled, dcb_pfc_cap," \
	" dcb_pfc_mbc, dcb_app_entries, dcb_ets_willing, dcb_ets_max_tcs," \
	" dcb_ets_prio_tc, dcb_ets_tc_bw, dcb_ets_tsa, port_idx, system_idx"

/* The modules view's columns after its scan_id (schema step 12 -> 13). */
#define MODULE_COLS \
	"m.fabric, m.module_idx, m.node_guid, m.port_num, m.system," \
	" m.ifname, m.spec, m.refused, m.note, m.identifier, m.type," \
	" m.vendor, m.part_number, m.serial_number, m.revision," \
	" m.date_code, m.media, m.length_m, m.media_lanes, m.lanes," \
	" m.monitors, m.flags_valid, m.flags, m.temperature_c, m.voltage_v," \
	" m.temp_hi_alarm, m.temp_lo_alarm, m.temp_hi_warn, m.temp_lo_warn," \
	" m.vcc_hi_alarm, m.vcc_lo_alarm, m.vcc_hi_warn, m.vcc_lo_warn," \
	" m.bias_hi_alarm_ma, m.bias_lo_alarm_ma, m.bias_hi_warn_ma," \
	" m.bias_lo_warn_ma, m.tx_power_hi_alarm_dbm," \
	" m.tx_power_lo_alarm_dbm, m.tx_power_hi_warn_dbm," \
	" m.tx_power_lo_warn_dbm, m.rx_power_hi_alarm_dbm," \
	" m.rx_power_lo_alarm_dbm, m.rx_power_hi_warn_dbm," \
	" m.rx_power_lo_warn_dbm"

/* Schema step 17 -> 18 (RoCE deltas): whether a row of part v (a row of
 * roce_scan_parts) owned by system SYS is in v's scan: always its own
 * scan's, a keyframe's unless the delta hides SYS. */
#define ROCE_VISIBLE(SYS) \
	"(NOT v.base OR NOT EXISTS (SELECT 1 FROM roce_hidden h" \
	" WHERE h.scan_id = v.scan_id AND h.system_idx = " SYS "))"
/* the system of a port (of a device) of a part's rows */
#define ROCE_PORT_SYSTEM(SCAN, PORT) \
	"(SELECT o.system_idx FROM eth_port_rows o WHERE o.scan_id = " SCAN \
	" AND o.port_idx = " PORT ")"
#define ROCE_DEVICE_SYSTEM(SCAN, DEV) \
	"(SELECT o.system_idx FROM rdma_device_rows o WHERE o.scan_id = " SCAN \
	" AND o.device_idx = " DEV ")"
/* UPDATE and DELETE through VIEW, on the rows of TABLE of the scan whose
 * key is KEY (OLD's): SET assigns every column but scan_id. */
#define ROCE_ROWS_TRIGGERS(VIEW, TABLE, KEY, SET) \
	"CREATE TRIGGER " VIEW "_update INSTEAD OF UPDATE ON " VIEW " BEGIN" \
	" UPDATE " TABLE " SET " SET " WHERE scan_id = OLD.scan_id AND " KEY "; END;" \
	"CREATE TRIGGER " VIEW "_delete INSTEAD OF DELETE ON " VIEW " BEGIN" \
	" DELETE FROM " TABLE " WHERE scan_id = OLD.scan_id AND " KEY "; END;"

/* MODULE_COLS of a module stored with a shared description (schema 17:
 * module_descs d), the rest from its module_rows row m. */
#define MODULE_DESC_COLS \
	"m.fabric, m.module_idx, m.node_guid, m.port_num, m.system," \
	" m.ifname, d.spec, m.refused, m.note, d.identifier, d.type," \
	" d.vendor, d.part_number, m.serial_number, d.revision," \
	" d.date_code, d.media, d.length_m, d.media_lanes, m.lanes," \
	" m.monitors, m.flags_valid, m.flags, m.temperature_c, m.voltage_v," \
	" d.temp_hi_alarm, d.temp_lo_alarm, d.temp_hi_warn, d.temp_lo_warn," \
	" d.vcc_hi_alarm, d.vcc_lo_alarm, d.vcc_hi_warn, d.vcc_lo_warn," \
	" d.bias_hi_alarm_ma, d.bias_lo_alarm_ma, d.bias_hi_warn_ma," \
	" d.bias_lo_warn_ma, d.tx_power_hi_alarm_dbm," \
	" d.tx_power_lo_alarm_dbm, d.tx_power_hi_warn_dbm," \
	" d.tx_power_lo_warn_dbm, d.rx_power_hi_alarm_dbm," \
	" d.rx_power_lo_alarm_dbm, d.rx_power_hi_warn_dbm," \
	" d.rx_power_lo_warn_dbm"

/* Every byte value in order: instr(FAB_SQL_BYTES, substr(blob, i, 1)) - 1
 * is the number byte i of a blob holds. */
#define FAB_SQL_BYTES \
	"X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF'"

/* The INSTEAD OF triggers of views that later steps make again (dropping a
 * view drops its triggers): rdma_counters and lldp_tlvs (step 15 -> 16),
 * nic_counters (16 -> 17); the RoCE deltas' step makes all three again. */
#define TRIGGER_RDMA_COUNTERS_UPDATE \
	"CREATE TRIGGER rdma_counters_update INSTEAD OF UPDATE OF value ON rdma_counters BEGIN" \
	" UPDATE rdma_counter_rows SET value = NEW.value WHERE scan_id = OLD.scan_id" \
	"  AND device_idx = OLD.device_idx AND port_num = OLD.port_num AND kind = OLD.kind" \
	"  AND counter = OLD.counter;" \
	" UPDATE rdma_port_rows SET counter_values = json_replace(counter_values, '$[' ||" \
	"  (SELECT n.pos FROM rdma_counter_names n WHERE n.set_id = rdma_port_rows.counter_set" \
	"   AND n.kind = OLD.kind AND n.counter = OLD.counter) || ']', NEW.value)" \
	"  WHERE scan_id = OLD.scan_id AND device_idx = OLD.device_idx AND port_num = OLD.port_num" \
	"  AND counter_set IS NOT NULL;" \
	" END;"

#define TRIGGER_LLDP_TLVS_UPDATE \
	"CREATE TRIGGER lldp_tlvs_update INSTEAD OF UPDATE ON lldp_tlvs BEGIN" \
	" INSERT INTO lldp_tlv_owner_copy VALUES (OLD.scan_id, OLD.owner, OLD.owner_idx);" \
	" UPDATE lldp_tlv_rows SET owner = NEW.owner, owner_idx = NEW.owner_idx, system = NEW.system," \
	"  ifname = NEW.ifname, oui = NEW.oui, subtype = NEW.subtype, info = NEW.info" \
	"  WHERE rowid = (SELECT rowid FROM lldp_tlv_rows WHERE scan_id = OLD.scan_id" \
	"   AND owner = OLD.owner AND owner_idx = OLD.owner_idx AND oui = OLD.oui" \
	"   AND subtype = OLD.subtype AND info IS OLD.info ORDER BY rowid LIMIT 1);" \
	" END;"

#define TRIGGER_LLDP_TLVS_DELETE \
	"CREATE TRIGGER lldp_tlvs_delete INSTEAD OF DELETE ON lldp_tlvs BEGIN" \
	" INSERT INTO lldp_tlv_owner_copy VALUES (OLD.scan_id, OLD.owner, OLD.owner_idx);" \
	" DELETE FROM lldp_tlv_rows WHERE rowid = (SELECT rowid FROM lldp_tlv_rows" \
	"  WHERE scan_id = OLD.scan_id AND owner = OLD.owner AND owner_idx = OLD.owner_idx" \
	"  AND oui = OLD.oui AND subtype = OLD.subtype AND info IS OLD.info ORDER BY rowid LIMIT 1);" \
	" END;"

#define TRIGGER_LLDP_TLVS_INSERT \
	"CREATE TRIGGER lldp_tlvs_insert INSTEAD OF INSERT ON lldp_tlvs BEGIN" \
	" INSERT INTO lldp_tlv_owner_copy VALUES (NEW.scan_id, NEW.owner, NEW.owner_idx);" \
	" INSERT INTO lldp_tlv_rows(scan_id, owner, owner_idx, system, ifname, oui, subtype, info)" \
	"  VALUES (NEW.scan_id, NEW.owner, NEW.owner_idx, NEW.system, NEW.ifname, NEW.oui," \
	"  NEW.subtype, NEW.info);" \
	" END;"

#define TRIGGER_NIC_COUNTERS_INSERT \
	"CREATE TRIGGER nic_counters_insert INSTEAD OF INSERT ON nic_counters BEGIN" \
	" INSERT INTO nic_counter_rows(scan_id, port_idx, system, ifname, sample, sampled_at," \
	"  counter, priority, value, source) VALUES (NEW.scan_id, NEW.port_idx, NEW.system," \
	"  NEW.ifname, NEW.sample, NEW.sampled_at, NEW.counter, NEW.priority, NEW.value, NEW.source);" \
	" END;"

#define TRIGGER_NIC_COUNTERS_UPDATE \
	"CREATE TRIGGER nic_counters_update INSTEAD OF UPDATE OF value ON nic_counters BEGIN" \
	" UPDATE nic_counter_rows SET value = NEW.value WHERE scan_id = OLD.scan_id" \
	"  AND port_idx = OLD.port_idx AND sample = OLD.sample AND counter = OLD.counter" \
	"  AND priority IS OLD.priority AND source IS OLD.source;" \
	" UPDATE nic_counter_ports SET counter_values = json_replace(counter_values, '$[' ||" \
	"  (SELECT n.pos FROM nic_counter_names n WHERE n.set_id = nic_counter_ports.counter_set" \
	"   AND n.counter = OLD.counter AND n.priority IS OLD.priority AND n.source IS OLD.source)" \
	"  || ']', NEW.value)" \
	"  WHERE scan_id = OLD.scan_id AND port_idx = OLD.port_idx AND sample = OLD.sample" \
	"  AND sampled_at IS OLD.sampled_at AND EXISTS (SELECT 1 FROM nic_counter_names n" \
	"   WHERE n.set_id = nic_counter_ports.counter_set AND n.counter = OLD.counter" \
	"   AND n.priority IS OLD.priority AND n.source IS OLD.source);" \
	" END;"

#define TRIGGER_NIC_COUNTERS_DELETE \
	"CREATE TRIGGER nic_counters_delete INSTEAD OF DELETE ON nic_counters BEGIN" \
	" DELETE FROM nic_counter_rows WHERE scan_id = OLD.scan_id AND port_idx = OLD.port_idx" \
	"  AND sample = OLD.sample AND counter = OLD.counter AND priority IS OLD.priority" \
	"  AND source IS OLD.source;" \
	/* a run that loses a counter: its rows out of the set, that one left out */ \
	" INSERT INTO nic_counter_rows(scan_id, port_idx, system, ifname, sample, sampled_at," \
	"  counter, priority, value, source)" \
	"  SELECT p.scan_id, p.port_idx, p.system, p.ifname, p.sample, p.sampled_at, n.counter," \
	"  n.priority, v.value, n.source FROM nic_counter_ports p" \
	"  JOIN nic_counter_names n ON n.set_id = p.counter_set" \
	"  JOIN json_each(p.counter_values) v ON v.key = n.pos" \
	"  WHERE p.scan_id = OLD.scan_id AND p.port_idx = OLD.port_idx AND p.sample = OLD.sample" \
	"  AND p.sampled_at IS OLD.sampled_at AND NOT (n.counter = OLD.counter" \
	"  AND n.priority IS OLD.priority AND n.source IS OLD.source)" \
	"  AND EXISTS (SELECT 1 FROM nic_counter_names k WHERE k.set_id = p.counter_set" \
	"   AND k.counter = OLD.counter AND k.priority IS OLD.priority AND k.source IS OLD.source)" \
	"  ORDER BY p.run, n.pos;" \
	" DELETE FROM nic_counter_ports WHERE scan_id = OLD.scan_id AND port_idx = OLD.port_idx" \
	"  AND sample = OLD.sample AND sampled_at IS OLD.sampled_at" \
	"  AND EXISTS (SELECT 1 FROM nic_counter_names k WHERE k.set_id = nic_counter_ports.counter_set" \
	"   AND k.counter = OLD.counter AND k.priority IS OLD.priority AND k.source IS OLD.source);" \
	" END;"

static const char *const migrations[] = {
	/* 0 -> 1: the first schema. */
	"CREATE TABLE scans("
	" scan_id INTEGER PRIMARY KEY,"
	" started_at TEXT NOT NULL,"
	" finished_at TEXT,"
	" status TEXT NOT NULL CHECK (status IN ('complete','partial','failed')),"
	" label TEXT,"
	" host TEXT,"
	" source TEXT,"
	" sm_act_start INTEGER,"
	" sm_act_end INTEGER,"
	" fabsweep_version TEXT);"

	"CREATE TABLE nodes("
	" scan_id INTEGER NOT NULL,"
	" node_idx INTEGER NOT NULL,"
	" node_guid TEXT NOT NULL,"
	" node_type TEXT NOT NULL,"
	" description TEXT NOT NULL,"
	" lid INTEGER,"
	" num_ports INTEGER,"
	" role TEXT NOT NULL,"
	" sys_guid TEXT,"
	" vendor_id INTEGER,"
	" device_id INTEGER,"
	" revision INTEGER,"
	" hops INTEGER,"
	" smp_failed INTEGER NOT NULL DEFAULT 0,"
	" pma_failed INTEGER NOT NULL DEFAULT 0,"
	" description_raw BLOB,"
	" PRIMARY KEY (scan_id, node_idx)) WITHOUT ROWID;"
	"CREATE INDEX nodes_by_guid ON nodes(scan_id, node_guid);"

	/* All ports, switch port 0 included; the public views split them. */
	"CREATE TABLE port_rows("
	" scan_id INTEGER NOT NULL,"
	" node_idx INTEGER NOT NULL,"
	" port_num INTEGER NOT NULL,"
	" node_guid TEXT NOT NULL,"
	" port_guid TEXT,"
	" lid INTEGER, lmc INTEGER, sm_lid INTEGER,"
	" state TEXT, phys_state TEXT,"
	" width_active TEXT, width_enabled TEXT, width_supported TEXT,"
	" speed_active TEXT, speed_enabled TEXT, speed_supported TEXT,"
	" rate_gbps REAL,"
	" mtu_active INTEGER, mtu_cap INTEGER, op_vls INTEGER, cap_mask INTEGER,"
	" remote_guid TEXT, remote_port INTEGER, remote_node_idx INTEGER,"
	" smp_failed INTEGER NOT NULL DEFAULT 0,"
	" pma_failed INTEGER NOT NULL DEFAULT 0,"
	" no_remote INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY (scan_id, node_idx, port_num)) WITHOUT ROWID;"
	"CREATE INDEX port_rows_by_guid ON port_rows(scan_id, node_guid, port_num);"
	"CREATE VIEW ports AS SELECT scan_id, node_guid, port_num, port_guid, lid,"
	" lmc, sm_lid, state, phys_state, width_active, width_enabled,"
	" width_supported, speed_active, speed_enabled, speed_supported,"
	" rate_gbps, mtu_active, mtu_cap, op_vls, cap_mask, remote_guid,"
	" remote_port, smp_failed, pma_failed, no_remote"
	" FROM port_rows WHERE port_num > 0;"
	"CREATE VIEW mgmt_ports AS SELECT scan_id, node_guid, port_guid, lid, lmc,"
	" sm_lid, cap_mask FROM port_rows WHERE port_num = 0;"

	"CREATE TABLE links("
	" scan_id INTEGER NOT NULL,"
	" a_guid TEXT NOT NULL, a_port INTEGER NOT NULL,"
	" b_guid TEXT NOT NULL, b_port INTEGER NOT NULL,"
	" width TEXT, speed TEXT, rate_gbps REAL,"
	" a_node_idx INTEGER NOT NULL, b_node_idx INTEGER NOT NULL);"
	"CREATE INDEX links_by_scan ON links(scan_id);"

	/* One row per port and sample; the counters view is the long form. */
	"CREATE TABLE port_counters("
	" scan_id INTEGER NOT NULL,"
	" node_idx INTEGER NOT NULL,"
	" port_num INTEGER NOT NULL,"
	" sample INTEGER NOT NULL,"
	" node_guid TEXT NOT NULL,"
	" sampled_at TEXT NOT NULL,"
	" extended INTEGER NOT NULL,"
	" SymbolErrorCounter INTEGER, LinkErrorRecoveryCounter INTEGER,"
	" LinkDownedCounter INTEGER, PortRcvErrors INTEGER,"
	" PortRcvRemotePhysicalErrors INTEGER, PortRcvSwitchRelayErrors INTEGER,"
	" PortXmitDiscards INTEGER, PortXmitConstraintErrors INTEGER,"
	" PortRcvConstraintErrors INTEGER, LocalLinkIntegrityErrors INTEGER,"
	" ExcessiveBufferOverrunErrors INTEGER, VL15Dropped INTEGER,"
	" PortXmitWait INTEGER, PortXmitData INTEGER, PortRcvData INTEGER,"
	" PortXmitPkts INTEGER, PortRcvPkts INTEGER, PortUnicastXmitPkts INTEGER,"
	" PortUnicastRcvPkts INTEGER, PortMulticastXmitPkts INTEGER,"
	" PortMulticastRcvPkts INTEGER,"
	" PRIMARY KEY (scan_id, node_idx, port_num, sample)) WITHOUT ROWID;"

	"CREATE TABLE sms("
	" scan_id INTEGER NOT NULL,"
	" port_guid TEXT NOT NULL,"
	" lid INTEGER,"
	" state TEXT,"
	" priority INTEGER,"
	" act_count INTEGER,"
	" node_guid TEXT,"
	" port_num INTEGER,"
	" failed INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX sms_by_scan ON sms(scan_id);"

	"CREATE TABLE scan_errors("
	" scan_id INTEGER NOT NULL,"
	" node_guid TEXT,"
	" port_num INTEGER,"
	" what TEXT NOT NULL,"
	" message TEXT NOT NULL);"
	"CREATE INDEX scan_errors_by_scan ON scan_errors(scan_id);"

	"CREATE TABLE findings("
	" scan_id INTEGER NOT NULL,"
	" rule_id TEXT NOT NULL,"
	" severity TEXT NOT NULL CHECK (severity IN ('error','warning','info')),"
	" node TEXT, port TEXT, peer_node TEXT, peer_port TEXT,"
	" subject TEXT, message TEXT NOT NULL,"
	" evidence TEXT);"
	"CREATE INDEX findings_by_scan ON findings(scan_id);"

	/* Scans marked as baselines: pruning keeps them (store/prune.c). */
	"CREATE TABLE baselines(scan_id INTEGER NOT NULL, name TEXT, created_at TEXT);"

	/* ---- RoCE / Ethernet (store/roce_write.c, roce_load.c; docs/schema.md "RoCE") ---- */
	"CREATE TABLE systems("
	" scan_id INTEGER NOT NULL, system_idx INTEGER NOT NULL,"
	" system TEXT NOT NULL, chassis_id TEXT, chassis_id_subtype TEXT,"
	" description TEXT, mgmt_address TEXT, role TEXT NOT NULL,"
	" capabilities TEXT, cap_available INTEGER, cap_enabled INTEGER,"
	" collected INTEGER NOT NULL, lldp INTEGER NOT NULL,"
	" hostname TEXT, source TEXT, collected_at TEXT,"
	" PRIMARY KEY (scan_id, system_idx)) WITHOUT ROWID;"

	"CREATE TABLE eth_port_rows("
	" scan_id INTEGER NOT NULL, port_idx INTEGER NOT NULL,"
	" system_idx INTEGER NOT NULL, system TEXT NOT NULL, ifname TEXT NOT NULL,"
	" mac TEXT, mtu INTEGER, speed_mbps INTEGER, state TEXT,"
	" sysfs INTEGER NOT NULL, lldp INTEGER NOT NULL, stub INTEGER NOT NULL,"
	" port_id TEXT, port_id_subtype TEXT, port_descr TEXT,"
	" lldp_pfc_enabled INTEGER, lldp_pfc_willing INTEGER, lldp_pfc_mbc INTEGER,"
	" lldp_pfc_cap INTEGER, lldp_app_entries TEXT,"
	" lldp_ets_willing INTEGER, lldp_ets_max_tcs INTEGER, lldp_ets_prio_tc TEXT,"
	" lldp_ets_tc_bw TEXT, lldp_ets_tsa TEXT,"
	" lldp_reco_prio_tc TEXT, lldp_reco_tc_bw TEXT, lldp_reco_tsa TEXT,"
	" lldp_bad_tlvs INTEGER NOT NULL DEFAULT 0,"
	" dcb_status TEXT, dcbx_mode INTEGER,"
	" dcb_pfc_enabled INTEGER, dcb_pfc_cap INTEGER, dcb_pfc_mbc INTEGER,"
	" dcb_app_entries TEXT, dcb_ets_willing INTEGER, dcb_ets_max_tcs INTEGER,"
	" dcb_ets_prio_tc TEXT, dcb_ets_tc_bw TEXT, dcb_ets_tsa TEXT,"
	" rdma_device TEXT, rdma_port INTEGER,"
	" PRIMARY KEY (scan_id, port_idx)) WITHOUT ROWID;"
	ETH_PORTS_VIEW_V1
	" FROM eth_port_rows;"

	"CREATE TABLE lldp_neighbors("
	" scan_id INTEGER NOT NULL, neighbor_idx INTEGER NOT NULL,"
	" port_idx INTEGER NOT NULL, system TEXT NOT NULL, ifname TEXT NOT NULL,"
	" chassis_id TEXT, chassis_id_subtype TEXT, neighbor_system TEXT,"
	" neighbor_descr TEXT, neighbor_port_id TEXT, neighbor_port_id_subtype TEXT,"
	" neighbor_port_descr TEXT, mgmt_address TEXT, ttl INTEGER,"
	" capabilities TEXT, cap_available INTEGER, cap_enabled INTEGER,"
	" pfc_enabled INTEGER, pfc_willing INTEGER, pfc_mbc INTEGER, pfc_cap INTEGER,"
	" app_entries TEXT, ets_willing INTEGER, ets_max_tcs INTEGER,"
	" ets_prio_tc TEXT, ets_tc_bw TEXT, ets_tsa TEXT,"
	" reco_prio_tc TEXT, reco_tc_bw TEXT, reco_tsa TEXT,"
	" bad_tlvs INTEGER NOT NULL DEFAULT 0,"
	" neighbor_ifname TEXT, neighbor_collected INTEGER,"
	" remote_system_idx INTEGER, remote_port_idx INTEGER,"
	" PRIMARY KEY (scan_id, neighbor_idx)) WITHOUT ROWID;"

	"CREATE TABLE eth_links("
	" scan_id INTEGER NOT NULL,"
	" a_system TEXT NOT NULL, a_ifname TEXT NOT NULL,"
	" b_system TEXT NOT NULL, b_ifname TEXT NOT NULL,"
	" a_heard_b INTEGER NOT NULL, b_heard_a INTEGER NOT NULL,"
	" a_port_idx INTEGER NOT NULL, b_port_idx INTEGER NOT NULL);"
	"CREATE INDEX eth_links_by_scan ON eth_links(scan_id);"

	/* Raw organisationally specific TLVs: owner 'port' (sent) or 'neighbor'. */
	"CREATE TABLE lldp_tlvs("
	" scan_id INTEGER NOT NULL, owner TEXT NOT NULL, owner_idx INTEGER NOT NULL,"
	" system TEXT, ifname TEXT, oui TEXT NOT NULL, subtype INTEGER NOT NULL,"
	" info BLOB);"
	"CREATE INDEX lldp_tlvs_by_scan ON lldp_tlvs(scan_id);"

	"CREATE TABLE rdma_devices("
	" scan_id INTEGER NOT NULL, device_idx INTEGER NOT NULL,"
	" system_idx INTEGER NOT NULL, system TEXT NOT NULL, device TEXT NOT NULL,"
	" node_guid TEXT, sys_image_guid TEXT, node_desc TEXT, fw_ver TEXT,"
	" hca_type TEXT, board_id TEXT, pci_address TEXT,"
	" pcie_speed_gts REAL, pcie_width INTEGER,"
	" pcie_max_speed_gts REAL, pcie_max_width INTEGER,"
	" PRIMARY KEY (scan_id, device_idx)) WITHOUT ROWID;"

	"CREATE TABLE rdma_port_rows("
	" scan_id INTEGER NOT NULL, device_idx INTEGER NOT NULL,"
	" port_num INTEGER NOT NULL, system TEXT NOT NULL, device TEXT NOT NULL,"
	" state TEXT, phys_state TEXT, rate TEXT, rate_gbps REAL,"
	" link_layer TEXT, netdev TEXT, eth_port_idx INTEGER,"
	" PRIMARY KEY (scan_id, device_idx, port_num)) WITHOUT ROWID;"
	"CREATE VIEW rdma_ports AS SELECT p.scan_id, p.system, p.device,"
	" p.port_num, p.state, p.phys_state, p.rate, p.rate_gbps, p.link_layer,"
	" p.netdev, d.node_guid, d.fw_ver, d.pci_address, d.pcie_speed_gts,"
	" d.pcie_width, d.pcie_max_speed_gts, d.pcie_max_width"
	" FROM rdma_port_rows p JOIN rdma_devices d USING (scan_id, device_idx);"

	"CREATE TABLE rdma_counters("
	" scan_id INTEGER NOT NULL, device_idx INTEGER NOT NULL,"
	" port_num INTEGER NOT NULL, system TEXT NOT NULL, device TEXT NOT NULL,"
	" kind TEXT NOT NULL, counter TEXT NOT NULL, value INTEGER NOT NULL);"
	"CREATE INDEX rdma_counters_by_scan ON rdma_counters(scan_id);",

	/* 1 -> 2: when each scan was last checked. Scans that have findings
	 * were checked (when is not known: their end); the others cannot be
	 * told from clean ones and stay unchecked. */
	"CREATE TABLE checks("
	" scan_id INTEGER PRIMARY KEY,"
	" checked_at TEXT NOT NULL,"
	" fabsweep_version TEXT);"
	"INSERT INTO checks(scan_id, checked_at)"
	" SELECT s.scan_id, coalesce(s.finished_at, s.started_at) FROM scans s"
	" WHERE EXISTS (SELECT 1 FROM findings f WHERE f.scan_id = s.scan_id);",

	/* 2 -> 3: RoCE congestion control per Ethernet port: ECN notification
	 * and reaction point per priority and the CNPs' DSCP and priority
	 * (sysfs <netdev>/ecn; NULL: the driver has none), and the NIC's trust
	 * state. trust is derived from dcb_app_entries (fab_eth_port_trust():
	 * a DSCP entry is trust dscp, none pcp); older scans get it the same
	 * way. The eth_ports view gains the five columns at its end. */
	"ALTER TABLE eth_port_rows ADD COLUMN ecn_np_enabled INTEGER;"
	"ALTER TABLE eth_port_rows ADD COLUMN ecn_rp_enabled INTEGER;"
	"ALTER TABLE eth_port_rows ADD COLUMN cnp_dscp INTEGER;"
	"ALTER TABLE eth_port_rows ADD COLUMN cnp_priority INTEGER;"
	"ALTER TABLE eth_port_rows ADD COLUMN trust TEXT;"
	"UPDATE eth_port_rows SET trust = CASE"
	" WHEN (',' || dcb_app_entries) LIKE '%,dscp:%' THEN 'dscp' ELSE 'pcp' END"
	" WHERE dcb_status = 'ok' AND dcb_app_entries IS NOT NULL;"
	"DROP VIEW eth_ports;"
	ETH_PORTS_VIEW_V1 ","
	" ecn_np_enabled, ecn_rp_enabled, cnp_dscp, cnp_priority, trust"
	" FROM eth_port_rows;",

	/* 3 -> 4: watch sweeps (docs/watch.md). A sweep is a scan that shares
	 * the nodes, ports and links of an earlier full scan (its
	 * topology_scan_id) and stores only the counter rows that changed. The
	 * topology tables are renamed and the public relations become views
	 * that give every scan, sweep or not, its topology rows. */
	"ALTER TABLE scans ADD COLUMN topology_scan_id INTEGER;"
	"CREATE INDEX scans_by_topology ON scans(coalesce(topology_scan_id, scan_id));"
	"ALTER TABLE nodes RENAME TO node_rows;"
	"ALTER TABLE links RENAME TO link_rows;"
	"DROP VIEW ports;"
	"DROP VIEW mgmt_ports;"
	"CREATE VIEW nodes AS SELECT s.scan_id AS scan_id, n.node_idx, n.node_guid,"
	" n.node_type, n.description, n.lid, n.num_ports, n.role, n.sys_guid,"
	" n.vendor_id, n.device_id, n.revision, n.hops, n.smp_failed, n.pma_failed,"
	" n.description_raw"
	" FROM scans s JOIN node_rows n ON n.scan_id = coalesce(s.topology_scan_id, s.scan_id);"
	"CREATE VIEW ports AS SELECT s.scan_id AS scan_id, p.node_guid, p.port_num,"
	" p.port_guid, p.lid, p.lmc, p.sm_lid, p.state, p.phys_state, p.width_active,"
	" p.width_enabled, p.width_supported, p.speed_active, p.speed_enabled,"
	" p.speed_supported, p.rate_gbps, p.mtu_active, p.mtu_cap, p.op_vls,"
	" p.cap_mask, p.remote_guid, p.remote_port, p.smp_failed, p.pma_failed,"
	" p.no_remote"
	" FROM scans s JOIN port_rows p ON p.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	" WHERE p.port_num > 0;"
	"CREATE VIEW mgmt_ports AS SELECT s.scan_id AS scan_id, p.node_guid, p.port_guid,"
	" p.lid, p.lmc, p.sm_lid, p.cap_mask"
	" FROM scans s JOIN port_rows p ON p.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	" WHERE p.port_num = 0;"
	"CREATE VIEW links AS SELECT s.scan_id AS scan_id, l.a_guid, l.a_port, l.b_guid,"
	" l.b_port, l.width, l.speed, l.rate_gbps, l.a_node_idx, l.b_node_idx"
	" FROM scans s JOIN link_rows l ON l.scan_id = coalesce(s.topology_scan_id, s.scan_id);",

	/* 4 -> 5: forwarding tables (store/routing_io.c; docs/schema.md
	 * "Forwarding tables"). Content-addressed: a block of 64 entries, a
	 * table (its blocks) and a fabric's routing (its switches' tables) are
	 * each stored once however many scans saw them; a scan only points at
	 * its routing (scan_routing). lft_tables.blocks and routing_sets.content
	 * are the exact keys (no hash): the block ids, 4 bytes little-endian
	 * each (0: not read), and 24 bytes per switch in GUID order. */
	"CREATE TABLE lft_blocks(block_id INTEGER PRIMARY KEY, ports BLOB NOT NULL UNIQUE);"
	"CREATE TABLE lft_tables(table_id INTEGER PRIMARY KEY, blocks BLOB NOT NULL UNIQUE);"
	"CREATE TABLE lft_table_blocks("
	" table_id INTEGER NOT NULL, block_num INTEGER NOT NULL, block_id INTEGER NOT NULL,"
	" PRIMARY KEY (table_id, block_num)) WITHOUT ROWID;"
	"CREATE TABLE routing_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE routing_set_switches("
	" set_id INTEGER NOT NULL, node_guid TEXT NOT NULL,"
	" status TEXT NOT NULL CHECK (status IN ('ok','partial','failed')),"
	" fdb_cap INTEGER, fdb_top INTEGER, part_enf_cap INTEGER, enforce INTEGER,"
	" table_id INTEGER,"
	" PRIMARY KEY (set_id, node_guid)) WITHOUT ROWID;"
	"CREATE TABLE scan_routing(scan_id INTEGER PRIMARY KEY, set_id INTEGER NOT NULL);"
	"CREATE TABLE lft_slots(slot INTEGER NOT NULL);"
	"WITH RECURSIVE k(slot) AS (SELECT 0 UNION ALL SELECT slot + 1 FROM k WHERE slot < 63)"
	" INSERT INTO lft_slots SELECT slot FROM k;"
	"CREATE VIEW switch_tables AS SELECT r.scan_id, w.node_guid, w.status, w.fdb_cap,"
	" w.fdb_top, w.part_enf_cap,"
	" (w.enforce & 1) <> 0 AS part_enf_inbound, (w.enforce & 2) <> 0 AS part_enf_outbound,"
	" (w.enforce & 4) <> 0 AS filter_raw_inbound, (w.enforce & 8) <> 0 AS filter_raw_outbound,"
	" (w.enforce & 16) <> 0 AS enhanced_port0, w.table_id"
	" FROM scan_routing r JOIN routing_set_switches w USING (set_id);"
	/* a byte of a blob as a number: its place in the blob of all 256 bytes */
	"CREATE VIEW lft_entries AS SELECT tb.table_id, tb.block_num * 64 + k.slot AS lid,"
	" instr(X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF', substr(b.ports, k.slot + 1, 1)) - 1 AS port"
	" FROM lft_table_blocks tb, lft_blocks b, lft_slots k WHERE b.block_id = tb.block_id;"
	"CREATE VIEW forwarding AS SELECT t.scan_id, t.node_guid, e.lid, e.port"
	" FROM switch_tables t JOIN lft_entries e ON e.table_id = t.table_id"
	" WHERE e.lid <= t.fdb_top;",

	/* 5 -> 6: watch's held findings stored once, as intervals (docs/watch.md
	 * "Findings", docs/schema.md "findings"). The findings a scan's rules
	 * raised stay rows (finding_rows); a finding watch holds after it was
	 * raised is one finding_holds row for the whole hold: in the chain of
	 * the full scan scan_id (it and its sweeps), shown by the scans from
	 * from_scan_id up to, not including, to_scan_id (NULL: open; set when
	 * it is raised again), that were checked no later than held_until
	 * (NULL: until to_scan_id, a port that is down); its evidence is the
	 * held finding's ("...; held_since=<raised_at>"). findings is the
	 * union of both, as every scan's findings were before. */
	"ALTER TABLE findings RENAME TO finding_rows;"
	"CREATE TABLE finding_holds("
	" hold_id INTEGER PRIMARY KEY,"
	" scan_id INTEGER NOT NULL,"
	" from_scan_id INTEGER NOT NULL,"
	" to_scan_id INTEGER,"
	" raised_at TEXT NOT NULL,"
	" held_until TEXT,"
	" rule_id TEXT NOT NULL,"
	" severity TEXT NOT NULL CHECK (severity IN ('error','warning','info')),"
	" node TEXT, port TEXT, peer_node TEXT, peer_port TEXT,"
	" subject TEXT, message TEXT NOT NULL,"
	" evidence TEXT);"
	"CREATE INDEX finding_holds_by_key ON finding_holds(scan_id, rule_id, node, port);"
	"CREATE VIEW held_findings AS SELECT s.scan_id AS scan_id, h.hold_id, h.rule_id,"
	" h.severity, h.node, h.port, h.peer_node, h.peer_port, h.subject, h.message,"
	" h.evidence, h.raised_at, h.held_until"
	" FROM scans s JOIN finding_holds h ON h.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	"  AND s.scan_id >= h.from_scan_id AND (h.to_scan_id IS NULL OR s.scan_id < h.to_scan_id)"
	" JOIN checks c ON c.scan_id = s.scan_id"
	" WHERE h.held_until IS NULL OR c.checked_at <= h.held_until;"
	"CREATE VIEW findings AS SELECT scan_id, rule_id, severity, node, port, peer_node,"
	" peer_port, subject, message, evidence FROM finding_rows"
	" UNION ALL SELECT scan_id, rule_id, severity, node, port, peer_node,"
	" peer_port, subject, message, evidence FROM held_findings;"
	/* what wrote findings itself before keeps working */
	"CREATE TRIGGER findings_insert INSTEAD OF INSERT ON findings BEGIN"
	" INSERT INTO finding_rows(scan_id, rule_id, severity, node, port, peer_node,"
	" peer_port, subject, message, evidence) VALUES (NEW.scan_id, NEW.rule_id,"
	" NEW.severity, NEW.node, NEW.port, NEW.peer_node, NEW.peer_port, NEW.subject,"
	" NEW.message, NEW.evidence); END;"
	/* ... and the hourly roll-up of watch sweeps older than [watch] keep_raw
	 * (store/rollup.c): per port, hour and counter that moved, its total
	 * increase and its highest rate between two samples, per second. The
	 * public relation is the view counter_hourly. */
	"CREATE TABLE counter_rollups("
	" node_guid TEXT NOT NULL, port_num INTEGER NOT NULL,"
	" hour TEXT NOT NULL, counter TEXT NOT NULL,"
	" increase INTEGER NOT NULL, max_rate REAL NOT NULL, intervals INTEGER NOT NULL,"
	" resets INTEGER NOT NULL,"
	" PRIMARY KEY (node_guid, port_num, hour, counter)) WITHOUT ROWID;"
	"CREATE INDEX counter_rollups_by_hour ON counter_rollups(hour);"
	"CREATE VIEW counter_hourly AS SELECT node_guid, port_num, hour, counter, increase,"
	" max_rate, intervals, resets FROM counter_rollups;",

	/* 6 -> 7: a node's firmware version and PSID where the source has
	 * them (an ibdiagnet2 import's NODES_INFO; docs/imports.md); NULL
	 * when unknown. The nodes view gains both at its end. */
	"ALTER TABLE node_rows ADD COLUMN fw_version TEXT;"
	"ALTER TABLE node_rows ADD COLUMN psid TEXT;"
	"DROP VIEW nodes;"
	"CREATE VIEW nodes AS SELECT s.scan_id AS scan_id, n.node_idx, n.node_guid,"
	" n.node_type, n.description, n.lid, n.num_ports, n.role, n.sys_guid,"
	" n.vendor_id, n.device_id, n.revision, n.hops, n.smp_failed, n.pma_failed,"
	" n.description_raw, n.fw_version, n.psid"
	" FROM scans s JOIN node_rows n ON n.scan_id = coalesce(s.topology_scan_id, s.scan_id);",

	/* 7 -> 8: partitions (store/pkey_io.c; docs/schema.md "Partitions").
	 * Content-addressed like the forwarding tables: a P_Key table (its
	 * entries, 2 bytes little-endian each, trailing empty ones dropped) and
	 * a fabric's partitions (17 bytes per port in GUID, port order) are each
	 * stored once; a scan points at its set (scan_pkeys). */
	"CREATE TABLE pkey_tables(table_id INTEGER PRIMARY KEY, pkeys BLOB NOT NULL UNIQUE);"
	"CREATE TABLE pkey_table_entries("
	" table_id INTEGER NOT NULL, idx INTEGER NOT NULL, pkey INTEGER NOT NULL,"
	" PRIMARY KEY (table_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE pkey_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE pkey_set_ports("
	" set_id INTEGER NOT NULL, node_guid TEXT NOT NULL, port_num INTEGER NOT NULL,"
	" status TEXT NOT NULL CHECK (status IN ('ok','partial','failed')),"
	" pkey_cap INTEGER, enforce INTEGER, table_id INTEGER,"
	" PRIMARY KEY (set_id, node_guid, port_num)) WITHOUT ROWID;"
	"CREATE TABLE scan_pkeys(scan_id INTEGER PRIMARY KEY, set_id INTEGER NOT NULL);"
	"CREATE VIEW port_pkey_tables AS SELECT r.scan_id, w.node_guid, w.port_num, w.status,"
	" w.pkey_cap, (w.enforce & 1) <> 0 AS part_enf_inbound, (w.enforce & 2) <> 0 AS part_enf_outbound,"
	" (w.enforce & 4) <> 0 AS filter_raw_inbound, (w.enforce & 8) <> 0 AS filter_raw_outbound,"
	" w.table_id FROM scan_pkeys r JOIN pkey_set_ports w USING (set_id);"
	"CREATE VIEW port_partitions AS SELECT r.scan_id, w.node_guid, w.port_num, e.idx,"
	" e.pkey & 32767 AS partition, printf('0x%04x', e.pkey & 32767) AS partition_hex,"
	" CASE WHEN e.pkey & 32768 THEN 'full' ELSE 'limited' END AS membership,"
	" printf('0x%04x', e.pkey) AS pkey"
	" FROM scan_pkeys r JOIN pkey_set_ports w USING (set_id)"
	" JOIN pkey_table_entries e ON e.table_id = w.table_id;",

	/* 8 -> 9: SL2VL tables (store/sl2vl_io.c; docs/schema.md "SL2VL
	 * tables"), read only where a credit-loop analysis needs them. A
	 * fabric's set of tables (26 bytes per table: GUID, in-port, out-port,
	 * the 16 SLs' VLs, in GUID and port order) is stored once; a scan
	 * points at its set (scan_sl2vl). The view sl2vl has a row per SL. */
	"CREATE TABLE sl2vl_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE sl2vl_set_tables("
	" set_id INTEGER NOT NULL, node_guid TEXT NOT NULL,"
	" in_port INTEGER NOT NULL, out_port INTEGER NOT NULL, vls BLOB NOT NULL,"
	" PRIMARY KEY (set_id, node_guid, in_port, out_port)) WITHOUT ROWID;"
	"CREATE TABLE scan_sl2vl(scan_id INTEGER PRIMARY KEY, set_id INTEGER NOT NULL);"
	"CREATE VIEW sl2vl AS SELECT r.scan_id, t.node_guid, t.in_port, t.out_port, k.slot AS sl,"
	" instr(X'000102030405060708090A0B0C0D0E0F', substr(t.vls, k.slot + 1, 1)) - 1 AS vl"
	" FROM scan_sl2vl r JOIN sl2vl_set_tables t USING (set_id)"
	" JOIN lft_slots k ON k.slot < 16;",

	/* 9 -> 10: the detail counters (docs/counters.md "Detail counters"):
	 * PortRcvErrorDetails' six and PortXmitDiscardDetails' four fields,
	 * appended to port_counters and so to the counters view (which the
	 * migration rebuilds); per-VL PortXmitWait (PortVLXmitWaitCounters) as
	 * sixteen columns, long form in the view vl_xmit_wait; and the optional
	 * attributes a port's PMA said it does not support (bits: 1
	 * PortRcvErrorDetails, 2 PortXmitDiscardDetails, 4
	 * PortVLXmitWaitCounters), one row per attribute in the view
	 * pma_unsupported: asked and not supported, never stored as zeros. */
	"ALTER TABLE port_counters ADD COLUMN PortLocalPhysicalErrors INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortMalformedPacketErrors INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortBufferOverrunErrors INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortDLIDMappingErrors INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortVLMappingErrors INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortLoopingErrors INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortInactiveDiscards INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortNeighborMTUDiscards INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortSwLifetimeLimitDiscards INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN PortSwHOQLifetimeLimitDiscards INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN unsupported INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait0 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait1 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait2 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait3 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait4 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait5 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait6 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait7 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait8 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait9 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait10 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait11 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait12 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait13 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait14 INTEGER;"
	"ALTER TABLE port_counters ADD COLUMN VLXmitWait15 INTEGER;"
	"CREATE VIEW vl_xmit_wait AS"
	" SELECT scan_id, node_guid, port_num, sample, sampled_at, 0 AS vl,"
	" VLXmitWait0 AS value FROM port_counters WHERE VLXmitWait0 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 1 AS vl,"
	" VLXmitWait1 AS value FROM port_counters WHERE VLXmitWait1 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 2 AS vl,"
	" VLXmitWait2 AS value FROM port_counters WHERE VLXmitWait2 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 3 AS vl,"
	" VLXmitWait3 AS value FROM port_counters WHERE VLXmitWait3 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 4 AS vl,"
	" VLXmitWait4 AS value FROM port_counters WHERE VLXmitWait4 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 5 AS vl,"
	" VLXmitWait5 AS value FROM port_counters WHERE VLXmitWait5 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 6 AS vl,"
	" VLXmitWait6 AS value FROM port_counters WHERE VLXmitWait6 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 7 AS vl,"
	" VLXmitWait7 AS value FROM port_counters WHERE VLXmitWait7 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 8 AS vl,"
	" VLXmitWait8 AS value FROM port_counters WHERE VLXmitWait8 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 9 AS vl,"
	" VLXmitWait9 AS value FROM port_counters WHERE VLXmitWait9 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 10 AS vl,"
	" VLXmitWait10 AS value FROM port_counters WHERE VLXmitWait10 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 11 AS vl,"
	" VLXmitWait11 AS value FROM port_counters WHERE VLXmitWait11 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 12 AS vl,"
	" VLXmitWait12 AS value FROM port_counters WHERE VLXmitWait12 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 13 AS vl,"
	" VLXmitWait13 AS value FROM port_counters WHERE VLXmitWait13 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 14 AS vl,"
	" VLXmitWait14 AS value FROM port_counters WHERE VLXmitWait14 IS NOT NULL"
	" UNION ALL SELECT scan_id, node_guid, port_num, sample, sampled_at, 15 AS vl,"
	" VLXmitWait15 AS value FROM port_counters WHERE VLXmitWait15 IS NOT NULL;"
	"CREATE VIEW pma_unsupported AS SELECT c.scan_id, c.node_guid, c.port_num, c.sample,"
	" c.sampled_at, a.attribute FROM port_counters c JOIN (SELECT 1 AS bit,"
	" 'PortRcvErrorDetails' AS attribute UNION ALL SELECT 2, 'PortXmitDiscardDetails'"
	" UNION ALL SELECT 4, 'PortVLXmitWaitCounters') a ON (c.unsupported & a.bit) <> 0"
	" WHERE c.unsupported IS NOT NULL;",

	/* 10 -> 11: the votes of the rules that compare a port with the
	 * fabric's majority, for what a scan leaves out of a fabric (a
	 * readiness extract written by `merge --ready-dir`; docs/roce.md,
	 * "Readiness"; store/roce_votes.c). question: 'trust' (value 'dscp' or
	 * 'pcp'), 'cnp_dscp' (a DSCP), 'cnp_priority' (a priority) or 'speed'
	 * (value Mb/s, tier the link's roles as 'host-leaf'); votes: RoCE
	 * interfaces (links, for speeds) that use the value. */
	"CREATE TABLE roce_votes(scan_id INTEGER NOT NULL, question TEXT NOT NULL, tier TEXT,"
	" value TEXT NOT NULL, votes INTEGER NOT NULL);",

	/* 11 -> 12: VL and QoS tables
	 * (store/qos_io.c; docs/schema.md "VL and QoS tables"). The ports view
	 * gains PortInfo's VLCap, VLHighLimit, VLArbitrationHighCap and
	 * LowCap. A scan that read the VL tables (a QoS policy in use, or
	 * --forensic: every SL2VL table, CA ports' with in_port 0, in the
	 * sl2vl relations of 8 -> 9) has a scan_qos row saying why, and its
	 * VLArbitrationTables are a content-addressed set (vlarb_sets.content:
	 * per port in GUID and port order its GUID (8 bytes), port number, the
	 * two tables' lengths, then their entries, 2 bytes each: VL, weight);
	 * the view vlarb has a row per entry. */
	"ALTER TABLE port_rows ADD COLUMN vl_cap INTEGER;"
	"ALTER TABLE port_rows ADD COLUMN vl_high_limit INTEGER;"
	"ALTER TABLE port_rows ADD COLUMN vlarb_high_cap INTEGER;"
	"ALTER TABLE port_rows ADD COLUMN vlarb_low_cap INTEGER;"
	"DROP VIEW ports;"
	"CREATE VIEW ports AS SELECT s.scan_id AS scan_id, p.node_guid, p.port_num,"
	" p.port_guid, p.lid, p.lmc, p.sm_lid, p.state, p.phys_state, p.width_active,"
	" p.width_enabled, p.width_supported, p.speed_active, p.speed_enabled,"
	" p.speed_supported, p.rate_gbps, p.mtu_active, p.mtu_cap, p.op_vls,"
	" p.cap_mask, p.remote_guid, p.remote_port, p.smp_failed, p.pma_failed,"
	" p.no_remote, p.vl_cap, p.vl_high_limit, p.vlarb_high_cap, p.vlarb_low_cap"
	" FROM scans s JOIN port_rows p ON p.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	" WHERE p.port_num > 0;"
	"CREATE TABLE scan_qos(scan_id INTEGER PRIMARY KEY,"
	" reason TEXT NOT NULL CHECK (reason IN ('qos','forensic')),"
	" vlarb_set INTEGER);"
	"CREATE TABLE vlarb_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE vlarb_set_ports("
	" set_id INTEGER NOT NULL, node_guid TEXT NOT NULL, port_num INTEGER NOT NULL,"
	" high BLOB NOT NULL, low BLOB NOT NULL,"
	" PRIMARY KEY (set_id, node_guid, port_num)) WITHOUT ROWID;"
	"CREATE VIEW qos_scans AS SELECT s.scan_id AS scan_id, q.reason"
	" FROM scans s JOIN scan_qos q ON q.scan_id = coalesce(s.topology_scan_id, s.scan_id);"
	"CREATE VIEW vlarb AS SELECT s.scan_id AS scan_id, t.node_guid, t.port_num,"
	" 'high' AS priority, k.slot AS idx,"
	" instr(" FAB_SQL_BYTES ", substr(t.high, 2 * k.slot + 1, 1)) - 1 AS vl,"
	" instr(" FAB_SQL_BYTES ", substr(t.high, 2 * k.slot + 2, 1)) - 1 AS weight"
	" FROM scans s JOIN scan_qos q ON q.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	" JOIN vlarb_set_ports t ON t.set_id = q.vlarb_set"
	" JOIN lft_slots k ON 2 * k.slot < length(t.high)"
	" UNION ALL SELECT s.scan_id, t.node_guid, t.port_num, 'low', k.slot,"
	" instr(" FAB_SQL_BYTES ", substr(t.low, 2 * k.slot + 1, 1)) - 1,"
	" instr(" FAB_SQL_BYTES ", substr(t.low, 2 * k.slot + 2, 1)) - 1"
	" FROM scans s JOIN scan_qos q ON q.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	" JOIN vlarb_set_ports t ON t.set_id = q.vlarb_set"
	" JOIN lft_slots k ON 2 * k.slot < length(t.low);",

	/* 12 -> 13: the physical layer (docs/schema.md "Physical layer").
	 * Pluggable modules and cables of both fabrics in one relation: a RoCE
	 * host's (fabric 'eth', decoded from their EEPROM by `collect`) and an
	 * InfiniBand fabric's (fabric 'ib', from an ibdiagnet2 run's
	 * ibdiagnet2.cables); their lanes; the NIC counters of Ethernet ports
	 * (canonical names, core/nic_counter.c); the bit error ratios of
	 * InfiniBand ports (an ibdiagnet2 run's PHY_DB16). The InfiniBand rows
	 * belong to the topology, so the views give a watch sweep its full
	 * scan's. eth_port_rows gains the driver and what its statistics and
	 * module queries said; the eth_ports view gains the three at its end. */
	"CREATE TABLE module_rows("
	" scan_id INTEGER NOT NULL, fabric TEXT NOT NULL CHECK (fabric IN ('ib','eth')),"
	" module_idx INTEGER NOT NULL,"
	" node_guid TEXT, port_num INTEGER, system TEXT, ifname TEXT, eth_port_idx INTEGER,"
	" spec TEXT, refused INTEGER NOT NULL, note TEXT,"
	" identifier INTEGER, type TEXT, vendor TEXT, part_number TEXT, serial_number TEXT,"
	" revision TEXT, date_code TEXT, media TEXT, length_m REAL, media_lanes INTEGER,"
	" lanes INTEGER NOT NULL, monitors INTEGER NOT NULL, flags_valid INTEGER NOT NULL,"
	" flags INTEGER, temperature_c REAL, voltage_v REAL,"
	" temp_hi_alarm REAL, temp_lo_alarm REAL, temp_hi_warn REAL, temp_lo_warn REAL,"
	" vcc_hi_alarm REAL, vcc_lo_alarm REAL, vcc_hi_warn REAL, vcc_lo_warn REAL,"
	" bias_hi_alarm_ma REAL, bias_lo_alarm_ma REAL, bias_hi_warn_ma REAL, bias_lo_warn_ma REAL,"
	" tx_power_hi_alarm_dbm REAL, tx_power_lo_alarm_dbm REAL, tx_power_hi_warn_dbm REAL,"
	" tx_power_lo_warn_dbm REAL,"
	" rx_power_hi_alarm_dbm REAL, rx_power_lo_alarm_dbm REAL, rx_power_hi_warn_dbm REAL,"
	" rx_power_lo_warn_dbm REAL,"
	" PRIMARY KEY (scan_id, fabric, module_idx)) WITHOUT ROWID;"
	"CREATE TABLE module_lane_rows("
	" scan_id INTEGER NOT NULL, fabric TEXT NOT NULL, module_idx INTEGER NOT NULL,"
	" lane INTEGER NOT NULL, rx_power_mw REAL, rx_power_dbm REAL, tx_power_mw REAL,"
	" tx_power_dbm REAL, tx_bias_ma REAL, flags INTEGER,"
	" PRIMARY KEY (scan_id, fabric, module_idx, lane)) WITHOUT ROWID;"
	/* an InfiniBand port's module rows are its topology scan's, an Ethernet
	 * port's its own scan's */
	"CREATE VIEW modules AS SELECT s.scan_id AS scan_id, " MODULE_COLS
	" FROM scans s JOIN module_rows m ON m.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	"  AND m.fabric = 'ib'"
	" UNION ALL SELECT m.scan_id, " MODULE_COLS " FROM module_rows m WHERE m.fabric = 'eth';"
	"CREATE VIEW module_lanes AS SELECT m.scan_id, m.fabric, m.module_idx,"
	" m.node_guid, m.port_num, m.system, m.ifname, m.serial_number, l.lane, l.rx_power_mw,"
	" l.rx_power_dbm, l.tx_power_mw, l.tx_power_dbm, l.tx_bias_ma, l.flags"
	" FROM modules m JOIN scans s ON s.scan_id = m.scan_id"
	" JOIN module_lane_rows l ON l.fabric = m.fabric AND l.module_idx = m.module_idx"
	"  AND l.scan_id = CASE m.fabric WHEN 'ib' THEN coalesce(s.topology_scan_id, s.scan_id)"
	"  ELSE s.scan_id END;"
	"CREATE TABLE nic_counters("
	" scan_id INTEGER NOT NULL, port_idx INTEGER NOT NULL, system TEXT NOT NULL,"
	" ifname TEXT NOT NULL, sample INTEGER NOT NULL, sampled_at TEXT, counter TEXT NOT NULL,"
	" priority INTEGER, value INTEGER NOT NULL, source TEXT);"
	"CREATE INDEX nic_counters_by_scan ON nic_counters(scan_id, port_idx);"
	"CREATE TABLE port_ber_rows("
	" scan_id INTEGER NOT NULL, node_guid TEXT NOT NULL, port_num INTEGER NOT NULL,"
	" raw_ber REAL, effective_ber REAL, symbol_ber REAL,"
	" PRIMARY KEY (scan_id, node_guid, port_num)) WITHOUT ROWID;"
	"CREATE VIEW port_ber AS SELECT s.scan_id AS scan_id, b.node_guid, b.port_num,"
	" b.raw_ber, b.effective_ber, b.symbol_ber"
	" FROM scans s JOIN port_ber_rows b ON b.scan_id = coalesce(s.topology_scan_id, s.scan_id);"
	"ALTER TABLE eth_port_rows ADD COLUMN driver TEXT;"
	"ALTER TABLE eth_port_rows ADD COLUMN stats_status TEXT;"
	"ALTER TABLE eth_port_rows ADD COLUMN module_status TEXT;"
	"DROP VIEW eth_ports;"
	ETH_PORTS_VIEW_V1 ","
	" ecn_np_enabled, ecn_rp_enabled, cnp_dscp, cnp_priority, trust,"
	" driver, stats_status, module_status"
	" FROM eth_port_rows;",
	/* 13 -> 14: multicast (store/mcast_io.c; docs/schema.md "Multicast").
	 * Content-addressed like the forwarding tables: a group (its fields
	 * and members: mcast_group_rows.content) and a fabric's groups (the
	 * group ids, 4 bytes little-endian each, after a byte that says
	 * whether the members were read) are stored once; a switch's multicast
	 * table (its blocks as read) and a fabric's tables (26 bytes per switch
	 * in GUID order) too. A scan points at both sets (scan_mcast). */
	"CREATE TABLE mcast_group_rows(group_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE,"
	" mgid TEXT, mlid INTEGER, qkey INTEGER, pkey INTEGER, mtu INTEGER, rate INTEGER,"
	" pkt_life INTEGER, sl INTEGER, tclass INTEGER, flow_label INTEGER, hop_limit INTEGER,"
	" scope INTEGER, n_members INTEGER);"
	"CREATE TABLE mcast_member_rows("
	" group_id INTEGER NOT NULL, port_guid TEXT NOT NULL, gid_prefix TEXT,"
	" join_state INTEGER NOT NULL, proxy_join INTEGER NOT NULL,"
	" PRIMARY KEY (group_id, port_guid)) WITHOUT ROWID;"
	"CREATE TABLE mcast_group_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE mcast_set_groups(set_id INTEGER NOT NULL, group_id INTEGER NOT NULL,"
	" PRIMARY KEY (set_id, group_id)) WITHOUT ROWID;"
	"CREATE TABLE mft_tables(table_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE mft_table_entries(table_id INTEGER NOT NULL, mlid INTEGER NOT NULL,"
	" port INTEGER NOT NULL, PRIMARY KEY (table_id, mlid, port)) WITHOUT ROWID;"
	"CREATE TABLE mft_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE mft_set_switches("
	" set_id INTEGER NOT NULL, node_guid TEXT NOT NULL,"
	" status TEXT NOT NULL CHECK (status IN ('ok','partial','failed')),"
	" mcast_cap INTEGER, mcast_top INTEGER, top_valid INTEGER, table_id INTEGER,"
	" PRIMARY KEY (set_id, node_guid)) WITHOUT ROWID;"
	"CREATE TABLE scan_mcast(scan_id INTEGER PRIMARY KEY, group_set_id INTEGER NOT NULL,"
	" mft_set_id INTEGER NOT NULL);"
	/* IBTA rate codes (MCMemberRecord.Rate, PathRecord.Rate) in Gb/s */
	"CREATE TABLE mcast_rate_codes(code INTEGER PRIMARY KEY, gbps REAL NOT NULL);"
	"INSERT INTO mcast_rate_codes VALUES (2, 2.5), (3, 10), (4, 30), (5, 5), (6, 20), (7, 40),"
	" (8, 60), (9, 80), (10, 120), (11, 14), (12, 56), (13, 112), (14, 168), (15, 25),"
	" (16, 100), (17, 200), (18, 300), (19, 28), (20, 50), (21, 400), (22, 600), (23, 800),"
	" (24, 1200);"
	"CREATE VIEW mcast_groups AS SELECT r.scan_id, g.mgid, g.mlid,"
	" g.pkey & 32767 AS partition, printf('0x%04x', g.pkey) AS pkey, g.qkey,"
	" CASE WHEN g.mtu & 63 BETWEEN 1 AND 5 THEN 128 << (g.mtu & 63) END AS mtu,"
	" c.gbps AS rate_gbps, g.sl, g.tclass, g.flow_label, g.hop_limit, g.scope,"
	" g.n_members AS members, g.mtu AS mtu_raw, g.rate AS rate_raw, g.pkt_life AS pkt_life_raw"
	" FROM scan_mcast r JOIN mcast_set_groups sg ON sg.set_id = r.group_set_id"
	" JOIN mcast_group_rows g ON g.group_id = sg.group_id"
	" LEFT JOIN mcast_rate_codes c ON c.code = g.rate & 63;"
	"CREATE VIEW mcast_members AS SELECT r.scan_id, g.mgid, g.mlid, m.port_guid,"
	" (SELECT p.node_guid FROM scans s JOIN port_rows p ON p.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	"  JOIN node_rows n ON n.scan_id = p.scan_id AND n.node_idx = p.node_idx"
	"  WHERE s.scan_id = r.scan_id AND p.port_guid = m.port_guid"
	"  AND (n.node_type <> 'switch' OR p.port_num = 0) LIMIT 1) AS node_guid,"
	" (SELECT p.port_num FROM scans s JOIN port_rows p ON p.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	"  JOIN node_rows n ON n.scan_id = p.scan_id AND n.node_idx = p.node_idx"
	"  WHERE s.scan_id = r.scan_id AND p.port_guid = m.port_guid"
	"  AND (n.node_type <> 'switch' OR p.port_num = 0) LIMIT 1) AS port_num,"
	" trim(CASE WHEN m.join_state & 1 THEN 'full,' ELSE '' END ||"
	" CASE WHEN m.join_state & 2 THEN 'non,' ELSE '' END ||"
	" CASE WHEN m.join_state & 4 THEN 'sendonly,' ELSE '' END ||"
	" CASE WHEN m.join_state & 8 THEN 'sendonly_full,' ELSE '' END, ',') AS join_state,"
	" m.join_state AS join_state_raw, m.proxy_join, m.gid_prefix"
	" FROM scan_mcast r JOIN mcast_set_groups sg ON sg.set_id = r.group_set_id"
	" JOIN mcast_group_rows g ON g.group_id = sg.group_id"
	" JOIN mcast_member_rows m ON m.group_id = g.group_id;"
	"CREATE VIEW mcast_switch_tables AS SELECT r.scan_id, w.node_guid, w.status, w.mcast_cap,"
	" w.mcast_top, w.top_valid, w.table_id"
	" FROM scan_mcast r JOIN mft_set_switches w ON w.set_id = r.mft_set_id;"
	"CREATE VIEW mcast_forwarding AS SELECT r.scan_id, w.node_guid, e.mlid, e.port"
	" FROM scan_mcast r JOIN mft_set_switches w ON w.set_id = r.mft_set_id"
	" JOIN mft_table_entries e ON e.table_id = w.table_id;",

	/* 14 -> 15: watch's link events and its
	 * alerts (docs/schema.md "Events", "Alerts"; docs/watch.md). events: a
	 * row per notice the SM forwarded and per port whose state a read
	 * found changed, with its arrival time, stored with the sweep that
	 * judged it (pruned and rolled up with it). alerts: what watch posts to
	 * Alertmanager, one row per finding (rule, node, port) that is firing
	 * or whose end is not delivered yet; not tied to a scan. */
	"CREATE TABLE events(event_id INTEGER PRIMARY KEY, scan_id INTEGER NOT NULL,"
	" at TEXT NOT NULL, kind TEXT NOT NULL, cause TEXT, trap INTEGER, lid INTEGER,"
	" node_guid TEXT, port_num INTEGER, state TEXT, phys_state TEXT, was_state TEXT,"
	" detail TEXT);"
	"CREATE INDEX events_scan ON events(scan_id);"
	"CREATE TABLE alerts(fingerprint TEXT PRIMARY KEY, rule_id TEXT NOT NULL,"
	" severity TEXT NOT NULL, node TEXT, node_name TEXT, port TEXT, peer TEXT,"
	" subject TEXT, message TEXT, starts_at TEXT NOT NULL, ends_at TEXT,"
	" sent_at TEXT) WITHOUT ROWID;",

	/* 15 -> 16: RoCE at fleet size (docs/schema.md "RoCE and
	 * Ethernet"). A port's RDMA counters are one row:
	 * rdma_port_rows.counter_values, a JSON array in the order of its
	 * counter set (the names and kinds, stored once for
	 * every port that has the same ones: rdma_counter_sets,
	 * rdma_counter_names). A port's or a neighbour record's LLDP TLVs are
	 * a set stored once (lldp_tlv_sets, lldp_tlv_set_entries) that its row
	 * names (tlv_set). rdma_counters and lldp_tlvs become views with the
	 * columns they had; the rows of older scans stay in the renamed tables,
	 * which the views include. Their INSTEAD OF triggers keep UPDATE and
	 * DELETE working as on the tables: a changed TLV first gets its
	 * owner's TLVs copied into lldp_tlv_rows (the owner then names no
	 * set). merge_inputs: the files a merge read, for incremental merges. */
	"ALTER TABLE rdma_counters RENAME TO rdma_counter_rows;"
	"CREATE TABLE rdma_counter_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE rdma_counter_names("
	" set_id INTEGER NOT NULL, pos INTEGER NOT NULL, kind TEXT NOT NULL, counter TEXT NOT NULL,"
	" PRIMARY KEY (set_id, pos)) WITHOUT ROWID;"
	"ALTER TABLE rdma_port_rows ADD COLUMN counter_set INTEGER;"
	"ALTER TABLE rdma_port_rows ADD COLUMN counter_values TEXT;"
	"CREATE VIEW rdma_counters AS"
	" SELECT scan_id, device_idx, port_num, system, device, kind, counter, value"
	" FROM rdma_counter_rows"
	" UNION ALL SELECT p.scan_id, p.device_idx, p.port_num, p.system, p.device, n.kind,"
	" n.counter, v.value FROM rdma_port_rows p"
	" JOIN rdma_counter_names n ON n.set_id = p.counter_set"
	" JOIN json_each(p.counter_values) v ON v.key = n.pos;"
	TRIGGER_RDMA_COUNTERS_UPDATE

	"ALTER TABLE lldp_tlvs RENAME TO lldp_tlv_rows;"
	"CREATE TABLE lldp_tlv_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE lldp_tlv_set_entries("
	" set_id INTEGER NOT NULL, pos INTEGER NOT NULL, oui TEXT NOT NULL, subtype INTEGER NOT NULL,"
	" info BLOB, PRIMARY KEY (set_id, pos)) WITHOUT ROWID;"
	"ALTER TABLE eth_port_rows ADD COLUMN tlv_set INTEGER;"
	"ALTER TABLE lldp_neighbors ADD COLUMN tlv_set INTEGER;"
	"CREATE VIEW lldp_tlvs AS"
	" SELECT scan_id, owner, owner_idx, system, ifname, oui, subtype, info FROM lldp_tlv_rows"
	" UNION ALL SELECT p.scan_id, 'port', p.port_idx, p.system, p.ifname, e.oui, e.subtype,"
	" e.info FROM eth_port_rows p JOIN lldp_tlv_set_entries e ON e.set_id = p.tlv_set"
	" UNION ALL SELECT n.scan_id, 'neighbor', n.neighbor_idx, n.system, n.ifname, e.oui,"
	" e.subtype, e.info FROM lldp_neighbors n JOIN lldp_tlv_set_entries e ON e.set_id = n.tlv_set;"
	/* copy an owner's TLVs out of its set into lldp_tlv_rows, once */
	"CREATE TABLE lldp_tlv_owner_copy(scan_id INTEGER, owner TEXT, owner_idx INTEGER);"
	"CREATE TRIGGER lldp_tlv_owner_copy_rows AFTER INSERT ON lldp_tlv_owner_copy BEGIN"
	" INSERT INTO lldp_tlv_rows(scan_id, owner, owner_idx, system, ifname, oui, subtype, info)"
	"  SELECT p.scan_id, 'port', p.port_idx, p.system, p.ifname, e.oui, e.subtype, e.info"
	"  FROM eth_port_rows p JOIN lldp_tlv_set_entries e ON e.set_id = p.tlv_set"
	"  WHERE NEW.owner = 'port' AND p.scan_id = NEW.scan_id AND p.port_idx = NEW.owner_idx"
	"  ORDER BY e.pos;"
	" INSERT INTO lldp_tlv_rows(scan_id, owner, owner_idx, system, ifname, oui, subtype, info)"
	"  SELECT n.scan_id, 'neighbor', n.neighbor_idx, n.system, n.ifname, e.oui, e.subtype, e.info"
	"  FROM lldp_neighbors n JOIN lldp_tlv_set_entries e ON e.set_id = n.tlv_set"
	"  WHERE NEW.owner = 'neighbor' AND n.scan_id = NEW.scan_id AND n.neighbor_idx = NEW.owner_idx"
	"  ORDER BY e.pos;"
	" UPDATE eth_port_rows SET tlv_set = NULL WHERE NEW.owner = 'port'"
	"  AND scan_id = NEW.scan_id AND port_idx = NEW.owner_idx;"
	" UPDATE lldp_neighbors SET tlv_set = NULL WHERE NEW.owner = 'neighbor'"
	"  AND scan_id = NEW.scan_id AND neighbor_idx = NEW.owner_idx;"
	" DELETE FROM lldp_tlv_owner_copy;"
	" END;"
	TRIGGER_LLDP_TLVS_UPDATE
	TRIGGER_LLDP_TLVS_DELETE
	TRIGGER_LLDP_TLVS_INSERT

	"CREATE TABLE merge_inputs("
	" scan_id INTEGER NOT NULL, file TEXT NOT NULL, mtime_ns INTEGER, size INTEGER,"
	" status TEXT NOT NULL CHECK (status IN ('merged', 'unchanged', 'failed')),"
	" PRIMARY KEY (scan_id, file)) WITHOUT ROWID;",

	/* 16 -> 17: the physical layer at fleet size (docs/schema.md
	 * "Physical layer"). A port's NIC counters are one row per run (the
	 * counters of one sample read at one time, in the order they were
	 * read): nic_counter_ports.counter_values, a JSON array in the order of
	 * its counter set (the counter names, priorities and sources, stored
	 * once for every run that has the same ones: nic_counter_sets,
	 * nic_counter_names). An Ethernet module's lanes are a JSON array in
	 * its module_rows row (lane_values: per lane [lane, rx_power_mw,
	 * rx_power_dbm, tx_power_mw, tx_power_dbm, tx_bias_ma, flags]), and
	 * what a fleet's modules of one kind share (spec, identifier, type,
	 * vendor, part number, revision, date code, media, length, media
	 * lanes, thresholds) is stored once (module_descs) and named by the
	 * row (desc_id); the modules view reads it there. InfiniBand modules
	 * keep module_lane_rows and their own columns. nic_counters becomes a view
	 * with the columns it had, the rows of older scans in the renamed table
	 * nic_counter_rows, which it includes (INSERT, UPDATE of value and
	 * DELETE through it still work); module_lanes includes both forms. */
	"ALTER TABLE nic_counters RENAME TO nic_counter_rows;"
	"CREATE TABLE nic_counter_sets(set_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE);"
	"CREATE TABLE nic_counter_names("
	" set_id INTEGER NOT NULL, pos INTEGER NOT NULL, counter TEXT NOT NULL, priority INTEGER,"
	" source TEXT, PRIMARY KEY (set_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE nic_counter_ports("
	" scan_id INTEGER NOT NULL, port_idx INTEGER NOT NULL, run INTEGER NOT NULL,"
	" system TEXT NOT NULL, ifname TEXT NOT NULL, sample INTEGER NOT NULL, sampled_at TEXT,"
	" counter_set INTEGER NOT NULL, counter_values TEXT NOT NULL,"
	" PRIMARY KEY (scan_id, port_idx, run)) WITHOUT ROWID;"
	"CREATE VIEW nic_counters AS"
	" SELECT scan_id, port_idx, system, ifname, sample, sampled_at, counter, priority, value, source"
	" FROM nic_counter_rows"
	" UNION ALL SELECT p.scan_id, p.port_idx, p.system, p.ifname, p.sample, p.sampled_at,"
	" n.counter, n.priority, v.value, n.source FROM nic_counter_ports p"
	" JOIN nic_counter_names n ON n.set_id = p.counter_set"
	" JOIN json_each(p.counter_values) v ON v.key = n.pos;"
	TRIGGER_NIC_COUNTERS_INSERT
	TRIGGER_NIC_COUNTERS_UPDATE
	TRIGGER_NIC_COUNTERS_DELETE
	"ALTER TABLE module_rows ADD COLUMN lane_values TEXT;"
	"ALTER TABLE module_rows ADD COLUMN desc_id INTEGER;"
	"CREATE TABLE module_descs(desc_id INTEGER PRIMARY KEY, content BLOB NOT NULL UNIQUE,"
	" spec TEXT, identifier INTEGER, type TEXT, vendor TEXT, part_number TEXT, revision TEXT,"
	" date_code TEXT, media TEXT, length_m REAL, media_lanes INTEGER,"
	" temp_hi_alarm REAL, temp_lo_alarm REAL, temp_hi_warn REAL, temp_lo_warn REAL,"
	" vcc_hi_alarm REAL, vcc_lo_alarm REAL, vcc_hi_warn REAL, vcc_lo_warn REAL,"
	" bias_hi_alarm_ma REAL, bias_lo_alarm_ma REAL, bias_hi_warn_ma REAL, bias_lo_warn_ma REAL,"
	" tx_power_hi_alarm_dbm REAL, tx_power_lo_alarm_dbm REAL, tx_power_hi_warn_dbm REAL,"
	" tx_power_lo_warn_dbm REAL,"
	" rx_power_hi_alarm_dbm REAL, rx_power_lo_alarm_dbm REAL, rx_power_hi_warn_dbm REAL,"
	" rx_power_lo_warn_dbm REAL);"
	"DROP VIEW module_lanes;"
	"DROP VIEW modules;"
	"CREATE VIEW modules AS SELECT s.scan_id AS scan_id, " MODULE_COLS
	" FROM scans s JOIN module_rows m ON m.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	"  AND m.fabric = 'ib'"
	" UNION ALL SELECT m.scan_id, " MODULE_COLS " FROM module_rows m"
	"  WHERE m.fabric = 'eth' AND m.desc_id IS NULL"
	" UNION ALL SELECT m.scan_id, " MODULE_DESC_COLS " FROM module_rows m"
	"  JOIN module_descs d ON d.desc_id = m.desc_id WHERE m.fabric = 'eth';"
	"CREATE VIEW module_lanes AS SELECT m.scan_id, m.fabric, m.module_idx,"
	" m.node_guid, m.port_num, m.system, m.ifname, m.serial_number, l.lane, l.rx_power_mw,"
	" l.rx_power_dbm, l.tx_power_mw, l.tx_power_dbm, l.tx_bias_ma, l.flags"
	" FROM modules m JOIN scans s ON s.scan_id = m.scan_id"
	" JOIN module_lane_rows l ON l.fabric = m.fabric AND l.module_idx = m.module_idx"
	"  AND l.scan_id = CASE m.fabric WHEN 'ib' THEN coalesce(s.topology_scan_id, s.scan_id)"
	"  ELSE s.scan_id END"
	" UNION ALL SELECT m.scan_id, m.fabric, m.module_idx, m.node_guid, m.port_num, m.system,"
	" m.ifname, m.serial_number, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'),"
	" json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]'),"
	" json_extract(j.value, '$[4]'), json_extract(j.value, '$[5]'),"
	" json_extract(j.value, '$[6]')"
	" FROM module_rows m JOIN scans s ON s.scan_id = m.scan_id"
	" JOIN json_each(m.lane_values) j WHERE m.fabric = 'eth';",

	/* 17 -> 18: merge --into as a delta on its keyframe (docs/schema.md
	 * "RoCE deltas"; core/roce_delta.c). A delta scan names the whole
	 * merge it changes (scans.roce_base_scan_id) and the systems of it
	 * that it replaces or drops (roce_hidden); it holds the rows of the
	 * systems that differ, with the keyframe's indices for what is still
	 * there. The RoCE relations of a delta are its rows and its
	 * keyframe's rows of the systems it does not hide. */
	"ALTER TABLE scans ADD COLUMN roce_base_scan_id INTEGER;"
	"CREATE TABLE roce_hidden(scan_id INTEGER NOT NULL, system_idx INTEGER NOT NULL,"
	" PRIMARY KEY (scan_id, system_idx)) WITHOUT ROWID;"
	/* the scans whose RoCE rows a scan is made of: its own, and a delta's
	 * keyframe's (base = 1: less the systems it hides) */
	"CREATE VIEW roce_scan_parts AS SELECT scan_id, scan_id AS part_scan_id, 0 AS base FROM scans"
	" UNION ALL SELECT scan_id, roce_base_scan_id, 1 FROM scans WHERE roce_base_scan_id IS NOT NULL;"
	"ALTER TABLE systems RENAME TO system_rows;"
	"ALTER TABLE lldp_neighbors RENAME TO lldp_neighbor_rows;"
	"ALTER TABLE eth_links RENAME TO eth_link_rows;"
	"ALTER TABLE rdma_devices RENAME TO rdma_device_rows;"
	"DROP VIEW eth_ports; DROP VIEW rdma_ports; DROP VIEW rdma_counters; DROP VIEW lldp_tlvs;"
	"CREATE VIEW systems AS SELECT v.scan_id AS scan_id, r.system_idx, r.system, r.chassis_id,"
	" r.chassis_id_subtype, r.description, r.mgmt_address, r.role, r.capabilities,"
	" r.cap_available, r.cap_enabled, r.collected, r.lldp, r.hostname, r.source, r.collected_at"
	" FROM roce_scan_parts v JOIN system_rows r ON r.scan_id = v.part_scan_id"
	" WHERE " ROCE_VISIBLE("r.system_idx") ";"
	"CREATE VIEW eth_ports AS SELECT v.scan_id AS scan_id, p.system, p.ifname, p.mac, p.mtu,"
	" p.speed_mbps, p.state, p.rdma_device, p.rdma_port,"
	" CASE WHEN p.dcb_status = 'ok' AND p.dcb_pfc_enabled IS NOT NULL"
	"  THEN p.dcb_pfc_enabled ELSE p.lldp_pfc_enabled END AS pfc_enabled,"
	" p.lldp_pfc_willing AS pfc_willing, p.dcb_status,"
	" CASE WHEN p.dcb_status = 'ok' AND p.dcb_pfc_enabled IS NOT NULL THEN 'dcb'"
	"  WHEN p.lldp_pfc_enabled IS NOT NULL THEN 'lldp' END AS pfc_source,"
	" CASE WHEN p.dcb_status = 'ok' AND p.dcb_app_entries IS NOT NULL"
	"  THEN p.dcb_app_entries ELSE p.lldp_app_entries END AS app_entries,"
	" p.sysfs, p.lldp, p.stub, p.port_id, p.port_id_subtype, p.port_descr,"
	" p.lldp_pfc_enabled, p.lldp_pfc_willing, p.lldp_pfc_mbc, p.lldp_pfc_cap,"
	" p.lldp_app_entries, p.lldp_ets_willing, p.lldp_ets_max_tcs, p.lldp_ets_prio_tc,"
	" p.lldp_ets_tc_bw, p.lldp_ets_tsa, p.lldp_reco_prio_tc, p.lldp_reco_tc_bw,"
	" p.lldp_reco_tsa, p.lldp_bad_tlvs, p.dcbx_mode, p.dcb_pfc_enabled, p.dcb_pfc_cap,"
	" p.dcb_pfc_mbc, p.dcb_app_entries, p.dcb_ets_willing, p.dcb_ets_max_tcs,"
	" p.dcb_ets_prio_tc, p.dcb_ets_tc_bw, p.dcb_ets_tsa, p.port_idx, p.system_idx,"
	" p.ecn_np_enabled, p.ecn_rp_enabled, p.cnp_dscp, p.cnp_priority, p.trust,"
	" p.driver, p.stats_status, p.module_status"
	" FROM roce_scan_parts v JOIN eth_port_rows p ON p.scan_id = v.part_scan_id"
	" WHERE " ROCE_VISIBLE("p.system_idx") ";"
	"CREATE VIEW lldp_neighbors AS SELECT v.scan_id AS scan_id, n.neighbor_idx, n.port_idx,"
	" n.system, n.ifname, n.chassis_id, n.chassis_id_subtype, n.neighbor_system,"
	" n.neighbor_descr, n.neighbor_port_id, n.neighbor_port_id_subtype, n.neighbor_port_descr,"
	" n.mgmt_address, n.ttl, n.capabilities, n.cap_available, n.cap_enabled, n.pfc_enabled,"
	" n.pfc_willing, n.pfc_mbc, n.pfc_cap, n.app_entries, n.ets_willing, n.ets_max_tcs,"
	" n.ets_prio_tc, n.ets_tc_bw, n.ets_tsa, n.reco_prio_tc, n.reco_tc_bw, n.reco_tsa,"
	" n.bad_tlvs, n.neighbor_ifname, n.neighbor_collected, n.remote_system_idx,"
	" n.remote_port_idx, n.tlv_set"
	" FROM roce_scan_parts v JOIN lldp_neighbor_rows n ON n.scan_id = v.part_scan_id"
	" WHERE " ROCE_VISIBLE(ROCE_PORT_SYSTEM("n.scan_id", "n.port_idx")) ";"
	"CREATE VIEW eth_links AS SELECT v.scan_id AS scan_id, l.a_system, l.a_ifname, l.b_system,"
	" l.b_ifname, l.a_heard_b, l.b_heard_a, l.a_port_idx, l.b_port_idx"
	" FROM roce_scan_parts v JOIN eth_link_rows l ON l.scan_id = v.part_scan_id"
	" WHERE " ROCE_VISIBLE(ROCE_PORT_SYSTEM("l.scan_id", "l.a_port_idx")) ";"
	"CREATE VIEW rdma_devices AS SELECT v.scan_id AS scan_id, d.device_idx, d.system_idx,"
	" d.system, d.device, d.node_guid, d.sys_image_guid, d.node_desc, d.fw_ver, d.hca_type,"
	" d.board_id, d.pci_address, d.pcie_speed_gts, d.pcie_width, d.pcie_max_speed_gts,"
	" d.pcie_max_width"
	" FROM roce_scan_parts v JOIN rdma_device_rows d ON d.scan_id = v.part_scan_id"
	" WHERE " ROCE_VISIBLE("d.system_idx") ";"
	"CREATE VIEW rdma_ports AS SELECT v.scan_id AS scan_id, p.system, p.device,"
	" p.port_num, p.state, p.phys_state, p.rate, p.rate_gbps, p.link_layer,"
	" p.netdev, d.node_guid, d.fw_ver, d.pci_address, d.pcie_speed_gts,"
	" d.pcie_width, d.pcie_max_speed_gts, d.pcie_max_width"
	" FROM roce_scan_parts v JOIN rdma_port_rows p ON p.scan_id = v.part_scan_id"
	" JOIN rdma_device_rows d ON d.scan_id = p.scan_id AND d.device_idx = p.device_idx"
	" WHERE " ROCE_VISIBLE("d.system_idx") ";"
	"CREATE VIEW rdma_counters AS"
	" SELECT scan_id, device_idx, port_num, system, device, kind, counter, value"
	" FROM rdma_counter_rows"
	" UNION ALL SELECT v.scan_id, p.device_idx, p.port_num, p.system, p.device, n.kind,"
	" n.counter, j.value FROM roce_scan_parts v JOIN rdma_port_rows p ON p.scan_id = v.part_scan_id"
	" JOIN rdma_counter_names n ON n.set_id = p.counter_set"
	" JOIN json_each(p.counter_values) j ON j.key = n.pos"
	" WHERE " ROCE_VISIBLE(ROCE_DEVICE_SYSTEM("p.scan_id", "p.device_idx")) ";"
	"CREATE VIEW lldp_tlvs AS"
	" SELECT scan_id, owner, owner_idx, system, ifname, oui, subtype, info FROM lldp_tlv_rows"
	" UNION ALL SELECT v.scan_id, 'port', p.port_idx, p.system, p.ifname, e.oui, e.subtype,"
	" e.info FROM roce_scan_parts v JOIN eth_port_rows p ON p.scan_id = v.part_scan_id"
	" JOIN lldp_tlv_set_entries e ON e.set_id = p.tlv_set"
	" WHERE " ROCE_VISIBLE("p.system_idx")
	" UNION ALL SELECT v.scan_id, 'neighbor', n.neighbor_idx, n.system, n.ifname, e.oui,"
	" e.subtype, e.info FROM roce_scan_parts v JOIN lldp_neighbor_rows n ON n.scan_id = v.part_scan_id"
	" JOIN lldp_tlv_set_entries e ON e.set_id = n.tlv_set"
	" WHERE " ROCE_VISIBLE(ROCE_PORT_SYSTEM("n.scan_id", "n.port_idx")) ";"
	/* the triggers of the views made again, as step 16 made them */
	TRIGGER_RDMA_COUNTERS_UPDATE
	TRIGGER_LLDP_TLVS_UPDATE
	TRIGGER_LLDP_TLVS_DELETE
	TRIGGER_LLDP_TLVS_INSERT
	/* UPDATE and DELETE on the four that were tables act on the scan's own
	 * rows (a delta's inherited rows are its keyframe's, changed there) */
	ROCE_ROWS_TRIGGERS("systems", "system_rows", "system_idx = OLD.system_idx",
			   "system_idx = NEW.system_idx, system = NEW.system, chassis_id = NEW.chassis_id,"
			   " chassis_id_subtype = NEW.chassis_id_subtype, description = NEW.description,"
			   " mgmt_address = NEW.mgmt_address, role = NEW.role,"
			   " capabilities = NEW.capabilities, cap_available = NEW.cap_available,"
			   " cap_enabled = NEW.cap_enabled, collected = NEW.collected, lldp = NEW.lldp,"
			   " hostname = NEW.hostname, source = NEW.source, collected_at = NEW.collected_at")
	ROCE_ROWS_TRIGGERS("rdma_devices", "rdma_device_rows", "device_idx = OLD.device_idx",
			   "device_idx = NEW.device_idx, system_idx = NEW.system_idx, system = NEW.system, device = NEW.device, node_guid = NEW.node_guid,"
			   " sys_image_guid = NEW.sys_image_guid, node_desc = NEW.node_desc,"
			   " fw_ver = NEW.fw_ver, hca_type = NEW.hca_type, board_id = NEW.board_id,"
			   " pci_address = NEW.pci_address, pcie_speed_gts = NEW.pcie_speed_gts,"
			   " pcie_width = NEW.pcie_width, pcie_max_speed_gts = NEW.pcie_max_speed_gts,"
			   " pcie_max_width = NEW.pcie_max_width")
	ROCE_ROWS_TRIGGERS("lldp_neighbors", "lldp_neighbor_rows", "neighbor_idx = OLD.neighbor_idx",
			   "neighbor_idx = NEW.neighbor_idx, port_idx = NEW.port_idx, system = NEW.system, ifname = NEW.ifname, chassis_id = NEW.chassis_id,"
			   " chassis_id_subtype = NEW.chassis_id_subtype,"
			   " neighbor_system = NEW.neighbor_system, neighbor_descr = NEW.neighbor_descr,"
			   " neighbor_port_id = NEW.neighbor_port_id,"
			   " neighbor_port_id_subtype = NEW.neighbor_port_id_subtype,"
			   " neighbor_port_descr = NEW.neighbor_port_descr,"
			   " mgmt_address = NEW.mgmt_address, ttl = NEW.ttl,"
			   " capabilities = NEW.capabilities, cap_available = NEW.cap_available,"
			   " cap_enabled = NEW.cap_enabled, pfc_enabled = NEW.pfc_enabled,"
			   " pfc_willing = NEW.pfc_willing, pfc_mbc = NEW.pfc_mbc, pfc_cap = NEW.pfc_cap,"
			   " app_entries = NEW.app_entries, ets_willing = NEW.ets_willing,"
			   " ets_max_tcs = NEW.ets_max_tcs, ets_prio_tc = NEW.ets_prio_tc,"
			   " ets_tc_bw = NEW.ets_tc_bw, ets_tsa = NEW.ets_tsa,"
			   " reco_prio_tc = NEW.reco_prio_tc, reco_tc_bw = NEW.reco_tc_bw,"
			   " reco_tsa = NEW.reco_tsa, bad_tlvs = NEW.bad_tlvs,"
			   " neighbor_ifname = NEW.neighbor_ifname,"
			   " neighbor_collected = NEW.neighbor_collected,"
			   " remote_system_idx = NEW.remote_system_idx,"
			   " remote_port_idx = NEW.remote_port_idx, tlv_set = NEW.tlv_set")
	ROCE_ROWS_TRIGGERS("eth_links", "eth_link_rows",
			   "a_port_idx = OLD.a_port_idx AND b_port_idx = OLD.b_port_idx",
			   "a_port_idx = NEW.a_port_idx, b_port_idx = NEW.b_port_idx,"
			   " a_system = NEW.a_system, a_ifname = NEW.a_ifname, b_system = NEW.b_system,"
			   " b_ifname = NEW.b_ifname, a_heard_b = NEW.a_heard_b,"
			   " b_heard_a = NEW.b_heard_a")
	/* the physical layer's Ethernet rows too (schema 17's views, a delta's
	 * keyframe rows of the systems it does not hide; a keyframe holds them
	 * in schema 17's form: fab_store_keyframe_ok) */
	"DROP VIEW nic_counters;"
	"CREATE VIEW nic_counters AS"
	" SELECT scan_id, port_idx, system, ifname, sample, sampled_at, counter, priority, value, source"
	" FROM nic_counter_rows"
	" UNION ALL SELECT v.scan_id, p.port_idx, p.system, p.ifname, p.sample, p.sampled_at,"
	" n.counter, n.priority, j.value, n.source"
	" FROM roce_scan_parts v JOIN nic_counter_ports p ON p.scan_id = v.part_scan_id"
	" JOIN nic_counter_names n ON n.set_id = p.counter_set"
	" JOIN json_each(p.counter_values) j ON j.key = n.pos"
	" WHERE " ROCE_VISIBLE(ROCE_PORT_SYSTEM("p.scan_id", "p.port_idx")) ";"
	TRIGGER_NIC_COUNTERS_INSERT
	TRIGGER_NIC_COUNTERS_UPDATE
	TRIGGER_NIC_COUNTERS_DELETE
	"DROP VIEW module_lanes;"
	"DROP VIEW modules;"
	"CREATE VIEW modules AS SELECT s.scan_id AS scan_id, " MODULE_COLS
	" FROM scans s JOIN module_rows m ON m.scan_id = coalesce(s.topology_scan_id, s.scan_id)"
	"  AND m.fabric = 'ib'"
	" UNION ALL SELECT v.scan_id, " MODULE_COLS
	" FROM roce_scan_parts v JOIN module_rows m ON m.scan_id = v.part_scan_id"
	"  WHERE m.fabric = 'eth' AND m.desc_id IS NULL"
	"  AND " ROCE_VISIBLE(ROCE_PORT_SYSTEM("m.scan_id", "m.eth_port_idx"))
	" UNION ALL SELECT v.scan_id, " MODULE_DESC_COLS
	" FROM roce_scan_parts v JOIN module_rows m ON m.scan_id = v.part_scan_id"
	"  JOIN module_descs d ON d.desc_id = m.desc_id WHERE m.fabric = 'eth'"
	"  AND " ROCE_VISIBLE(ROCE_PORT_SYSTEM("m.scan_id", "m.eth_port_idx")) ";"
	"CREATE VIEW module_lanes AS SELECT m.scan_id, m.fabric, m.module_idx,"
	" m.node_guid, m.port_num, m.system, m.ifname, m.serial_number, l.lane, l.rx_power_mw,"
	" l.rx_power_dbm, l.tx_power_mw, l.tx_power_dbm, l.tx_bias_ma, l.flags"
	" FROM modules m JOIN scans s ON s.scan_id = m.scan_id"
	" JOIN module_lane_rows l ON l.fabric = m.fabric AND l.module_idx = m.module_idx"
	"  AND l.scan_id = CASE m.fabric WHEN 'ib' THEN coalesce(s.topology_scan_id, s.scan_id)"
	"  ELSE s.scan_id END"
	" UNION ALL SELECT v.scan_id, m.fabric, m.module_idx, m.node_guid, m.port_num, m.system,"
	" m.ifname, m.serial_number, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'),"
	" json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]'),"
	" json_extract(j.value, '$[4]'), json_extract(j.value, '$[5]'),"
	" json_extract(j.value, '$[6]')"
	" FROM roce_scan_parts v JOIN module_rows m ON m.scan_id = v.part_scan_id"
	" JOIN json_each(m.lane_values) j WHERE m.fabric = 'eth'"
	" AND " ROCE_VISIBLE(ROCE_PORT_SYSTEM("m.scan_id", "m.eth_port_idx")) ";",
	/* 18 -> 19: a system's RDMA devices found by the system, a port's
	 * module by the port: what merge --into reads of the systems it
	 * writes again, and no more (fab_store_load_later). */
	"CREATE INDEX rdma_devices_by_system ON rdma_device_rows(scan_id, system_idx);"
	"CREATE INDEX modules_by_eth_port ON module_rows(scan_id, eth_port_idx);",
};

/* The long form of port_counters: one row per counter value. */
#define FAB_COUNTERS_VIEW_PREFIX "CREATE VIEW counters AS "
