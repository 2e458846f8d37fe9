-- id: site.switch_error_ports
-- severity: error
-- title: Switch with more than 3 ports in error
-- rationale: One port with errors is a cable or a transceiver. Many ports of
--   one switch in error at once point at the switch itself: a line card, a
--   power supply, cooling, or a firmware problem. Replacing cable after
--   cable will not help.
-- remediation: Look at the switch rather than its cables: its health and
--   environment (temperatures, power supplies, fans), its event log and
--   firmware. Plan to drain and replace the line card or the switch.

-- Builds on the built-in rules: `fabsweep check` stores their findings before
-- site rules run, so the findings relation holds this scan's port.errors,
-- port.error_rate and port.link_flapping findings, with the thresholds,
-- severities and suppressions of the configuration. Change 3 to your limit.
SELECT n.node_guid AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port,
       n.description AS subject,
       printf('%d ports in error (more than 3): %s', count(*),
              group_concat(e.port, ', ')) AS message
  FROM nodes n
  JOIN (SELECT DISTINCT node, CAST(port AS INTEGER) AS port
          FROM findings
         WHERE scan_id = :scan_id
           AND rule_id IN ('port.errors', 'port.error_rate', 'port.link_flapping')
         ORDER BY node, CAST(port AS INTEGER)) e ON e.node = n.node_guid
 WHERE n.scan_id = :scan_id AND n.node_type = 'switch'
 GROUP BY n.node_guid
HAVING count(*) > 3
 ORDER BY n.node_guid
