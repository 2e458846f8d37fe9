-- id: site.rack_edr_host
-- severity: warning
-- title: Host runs EDR while all its rack mates run HDR
-- rationale: Hosts cabled to one leaf switch share a rack and usually a
--   purchase order, so they run the same speed. One host at EDR among HDR
--   rack mates has half their bandwidth: an EDR cable or transceiver, an
--   older adapter, or firmware that did not negotiate HDR.
-- remediation: Compare the host with a rack mate: adapter model and firmware
--   (ibstat, flint query), cable part number. Replace the cable or
--   transceiver, or update the firmware, then reset the link.

-- A rack is a leaf switch: hosts cabled to the same leaf are rack mates.
-- Every active host port, with the leaf port it is cabled to.
WITH host_ports AS (
  SELECT p.node_guid, p.port_num, p.remote_guid AS leaf, p.remote_port AS leaf_port,
         p.speed_active AS speed
    FROM ports p
    JOIN nodes n ON n.scan_id = p.scan_id AND n.node_guid = p.node_guid
   WHERE p.scan_id = :scan_id AND n.node_type = 'ca'
     AND p.state = 'active' AND p.remote_guid IS NOT NULL
)
SELECT h.node_guid AS node, h.port_num AS port,
       h.leaf AS peer_node, h.leaf_port AS peer_port,
       NULL AS subject, -- derived: "host05 HCA-1/1 <-> leaf03/1"
       printf('runs EDR; its %d rack mate%s on this leaf run%s HDR',
              count(DISTINCT m.node_guid),
              iif(count(DISTINCT m.node_guid) = 1, '', 's'),
              iif(count(DISTINCT m.node_guid) = 1, 's', '')) AS message
  FROM host_ports h
  JOIN host_ports m ON m.leaf = h.leaf AND m.node_guid <> h.node_guid
 WHERE h.speed = 'EDR'
 GROUP BY h.node_guid, h.port_num, h.leaf, h.leaf_port
HAVING sum(m.speed IS NOT 'HDR') = 0 -- every rack mate at HDR
 ORDER BY h.leaf, h.leaf_port
