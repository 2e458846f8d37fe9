-- id: site.forbidden_guid
-- severity: error
-- title: A device with a forbidden GUID prefix is on the fabric
-- rationale: Some devices must never be on this fabric: a recalled batch of
--   adapters, lab equipment, another site's spares. Their GUIDs share a
--   prefix (the vendor OUI and the batch). One on the fabric is a device
--   swapped in by mistake.
-- remediation: Find the device where it is cabled (the message says where),
--   take it out of service and replace it; then ask how it got there.

-- The forbidden prefixes and why; add yours, as lower-case 0x... text.
WITH forbidden(prefix, why) AS (VALUES
  ('0x0002c903dead', 'recalled HCA batch, RMA 2291'),
  ('0x001175', 'QLogic lab equipment, never in production'))
-- InfiniBand devices, with where they are cabled
SELECT n.node_guid AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port,
       NULL AS subject, -- derived: the node's description
       printf('GUID %s starts with %s (%s)%s', n.node_guid, f.prefix, f.why,
              coalesce('; cabled to ' ||
                       (SELECT group_concat(r.description || '/' || p.remote_port, ', ')
                          FROM ports p
                          JOIN nodes r ON r.scan_id = p.scan_id AND r.node_guid = p.remote_guid
                         WHERE p.scan_id = n.scan_id AND p.node_guid = n.node_guid), '')) AS message
  FROM nodes n
  JOIN forbidden f ON substr(n.node_guid, 1, length(f.prefix)) = f.prefix
 WHERE n.scan_id = :scan_id
UNION ALL
-- RDMA devices of RoCE hosts
SELECT d.system AS node, NULL, NULL, NULL, d.system || ' ' || d.device,
       printf('GUID %s of %s starts with %s (%s)', d.node_guid, d.device, f.prefix, f.why)
  FROM rdma_devices d
  JOIN forbidden f ON substr(d.node_guid, 1, length(f.prefix)) = f.prefix
 WHERE d.scan_id = :scan_id
 ORDER BY node
