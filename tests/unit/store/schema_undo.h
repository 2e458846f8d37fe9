/* SPDX-License-Identifier: MIT */
/*
 * The schema steps undone, for the tests that make older databases from a
 * new one (test_store.c's downgrade, test_phys_store.c): what a step added
 * taken away again, as far as the loader and the undo of the step before
 * need it.
 */
#pragma once

/* The modules view's columns after its scan_id (schema step 12 -> 13). */
#define MODULE_COLS_V13 \
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

/* 17 -> 16: the physical layer's fleet storage */
#define UNDO_STEP_17 \
	"DROP VIEW IF EXISTS module_lanes; DROP VIEW IF EXISTS modules;" \
	" ALTER TABLE module_rows DROP COLUMN lane_values;" \
	" ALTER TABLE module_rows DROP COLUMN desc_id; DROP TABLE module_descs;" \
	" CREATE VIEW modules AS SELECT s.scan_id AS scan_id, " MODULE_COLS_V13 \
	" FROM scans s JOIN module_rows m ON m.scan_id = coalesce(s.topology_scan_id, s.scan_id)" \
	"  AND m.fabric = 'ib'" \
	" UNION ALL SELECT m.scan_id, " MODULE_COLS_V13 " FROM module_rows m WHERE m.fabric = 'eth';" \
	" CREATE VIEW module_lanes AS SELECT m.scan_id, m.fabric, m.module_idx," \
	" m.node_guid, m.port_num, m.system, m.ifname, m.serial_number, l.lane, l.rx_power_mw," \
	" l.rx_power_dbm, l.tx_power_mw, l.tx_power_dbm, l.tx_bias_ma, l.flags" \
	" FROM modules m JOIN scans s ON s.scan_id = m.scan_id" \
	" JOIN module_lane_rows l ON l.fabric = m.fabric AND l.module_idx = m.module_idx" \
	"  AND l.scan_id = CASE m.fabric WHEN 'ib' THEN coalesce(s.topology_scan_id, s.scan_id)" \
	"  ELSE s.scan_id END;" \
	" DROP TRIGGER IF EXISTS nic_counters_delete; DROP TRIGGER IF EXISTS nic_counters_update;" \
	" DROP TRIGGER IF EXISTS nic_counters_insert; DROP VIEW IF EXISTS nic_counters;" \
	" DROP TABLE nic_counter_ports; DROP TABLE nic_counter_names; DROP TABLE nic_counter_sets;" \
	" ALTER TABLE nic_counter_rows RENAME TO nic_counters;"

/* 18 -> 17: RoCE deltas (the views of step 17 as far as the undo of 15 and
 * the loader need them; the physical layer's left to the undo of 17) */
#define UNDO_STEP_18 \
	"DROP VIEW nic_counters; DROP VIEW module_lanes; DROP VIEW modules;" \
	" DROP VIEW lldp_tlvs; DROP VIEW rdma_counters; DROP VIEW rdma_ports;" \
	" DROP VIEW eth_ports; DROP VIEW systems; DROP VIEW lldp_neighbors;" \
	" DROP VIEW eth_links; DROP VIEW rdma_devices; DROP VIEW roce_scan_parts;" \
	" DROP TABLE roce_hidden; ALTER TABLE scans DROP COLUMN roce_base_scan_id;" \
	" ALTER TABLE system_rows RENAME TO systems;" \
	" ALTER TABLE lldp_neighbor_rows RENAME TO lldp_neighbors;" \
	" ALTER TABLE eth_link_rows RENAME TO eth_links;" \
	" ALTER TABLE rdma_device_rows RENAME TO rdma_devices;" \
	" CREATE VIEW eth_ports AS SELECT scan_id, system, ifname FROM eth_port_rows;" \
	" CREATE VIEW rdma_ports AS SELECT p.scan_id, p.system FROM rdma_port_rows p" \
	" JOIN rdma_devices d USING (scan_id, device_idx);" \
	" CREATE VIEW rdma_counters AS SELECT scan_id, device_idx, port_num, system, device," \
	" kind, counter, value FROM rdma_counter_rows;" \
	" CREATE TRIGGER rdma_counters_update INSTEAD OF UPDATE OF value ON rdma_counters" \
	" BEGIN SELECT 1; END;" \
	" CREATE VIEW lldp_tlvs AS SELECT scan_id, owner, owner_idx, system, ifname, oui," \
	" subtype, info FROM lldp_tlv_rows;" \
	" CREATE TRIGGER lldp_tlvs_update INSTEAD OF UPDATE ON lldp_tlvs BEGIN SELECT 1; END;" \
	" CREATE TRIGGER lldp_tlvs_delete INSTEAD OF DELETE ON lldp_tlvs BEGIN SELECT 1; END;" \
	" CREATE TRIGGER lldp_tlvs_insert INSTEAD OF INSERT ON lldp_tlvs BEGIN SELECT 1; END;"

/* 19 -> 18: the indices of RDMA devices by system and modules by port */
#define UNDO_STEP_19 "DROP INDEX rdma_devices_by_system; DROP INDEX modules_by_eth_port;"
