#!/usr/bin/env bash
# `fabsweep scan` on a simulated fat tree (ibsim + real OpenSM): node, port and
# link counts equal the generated topology and ibnetdiscover's; a degraded link
# (w=1 on both ends) is recorded as 1X and an EDR link among HDR ones as EDR;
# roles and hops follow the tree; the default (native) discovery and
# libibnetdisc (--discovery ibnetdisc) find the same topology field by field;
# an ibnetdiscover cache loads offline to the same topology.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
pass=0 fail=0
check() { # description, then a command that must succeed
	local what=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}
eq() { [[ "$1" == "$2" ]] || { echo "  got '$1', want '$2'"; return 1; }; }
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
sim() { fabsim_run "$D/sim" -- "$@"; }

# 4 leaves x 4 hosts, 2 spines, all HDR; host0001-leaf001 runs 1X, leaf002's
# first uplink (to spine001) runs EDR.
"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 --global-opts e=4 \
	--degrade 'leaf001[1]:w=1' --degrade 'leaf002[5]:e=2' \
	-o "$D/net" --summary > "$D/summary" || exit 1
want() { awk -v k="$1" '$1 == k { print $2 }' "$D/summary"; }
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1

FABSWEEP_SCAN_DEBUG=1 sim "$FABSWEEP" scan --db "$D/fab.db" --quiet 2> "$D/phases"
rc=$?
check "scan exits 0 (complete)" eq "$rc" 0
# the default engine is fabsweep's own: its discovery phase counts MADs
# (libibnetdisc's is named 'ibnetdisc' and has no MAD counts)
check "default discovery is native" grep -q '^scan: discover .* sent [1-9]' "$D/phases"
check "status complete" eq "$(q "SELECT status FROM scans")" complete
check "source names the CA port" eq "$(q "SELECT source LIKE 'ib:%/%' FROM scans")" 1

# counts against the generator
check "nodes" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = 1")" "$(want nodes)"
check "switches" eq "$(q "SELECT count(*) FROM nodes WHERE node_type='switch'")" "$(want switches)"
check "CAs" eq "$(q "SELECT count(*) FROM nodes WHERE node_type='ca'")" "$(want cas)"
check "links" eq "$(q "SELECT count(*) FROM links")" "$(want links)"
check "active ports" eq "$(q "SELECT count(*) FROM ports WHERE state='active'")" "$(want active_ports)"
# every external port of every switch, and the one port of each CA
ports_want=$(( $(q "SELECT sum(num_ports) FROM nodes WHERE node_type='switch'") + $(want cas) ))
check "port rows = switch ports + CA ports" eq "$(q "SELECT count(*) FROM ports")" "$ports_want"
check "switch port 0 in mgmt_ports" eq "$(q "SELECT count(*) FROM mgmt_ports")" "$(want switches)"
check "nothing missed" eq "$(q "SELECT count(*) FROM scan_errors")" 0
check "no holes" eq "$(q "SELECT count(*) FROM ports WHERE no_remote OR smp_failed")" 0

# ibnetdiscover agrees: same node GUIDs, same links
sim ibnetdiscover -l 2>/dev/null | awk '{ print $3 }' | sort > "$D/ibnd.guids"
q "SELECT node_guid FROM nodes" | sort > "$D/our.guids"
check "node GUIDs match ibnetdiscover" cmp -s "$D/ibnd.guids" "$D/our.guids"
sim ibnetdiscover -p 2>/dev/null | grep -c ' - ' > "$D/ibnd.ends"
check "links match ibnetdiscover" eq "$(( $(cat "$D/ibnd.ends") / 2 ))" "$(q "SELECT count(*) FROM links")"

# link speeds and widths
l1() { q "SELECT l.width || ' ' || l.speed FROM links l
	JOIN nodes a ON a.scan_id = l.scan_id AND a.node_guid = l.a_guid
	JOIN nodes b ON b.scan_id = l.scan_id AND b.node_guid = l.b_guid
	WHERE (a.description = '$1' AND l.a_port = $2) OR (b.description = '$1' AND l.b_port = $2)"; }
check "degraded link recorded as 1X" eq "$(l1 leaf001 1)" "1X HDR"
check "EDR link recorded as EDR" eq "$(l1 leaf002 5)" "4X EDR"
check "1X HDR link rate" eq "$(q "SELECT rate_gbps FROM links WHERE width='1X'")" 50.0
check "all other links 4X HDR" eq "$(q "SELECT count(*) FROM links WHERE width='4X' AND speed='HDR'")" \
	"$(( $(want links) - 2 ))"
check "both ends of the 1X link agree" eq \
	"$(q "SELECT group_concat(width_active) FROM ports p JOIN nodes n USING (scan_id, node_guid)
	      WHERE (n.description='leaf001' AND p.port_num=1) OR n.description='host0001'")" "1X,1X"
check "remote ends filled" eq "$(q "SELECT count(*) FROM ports WHERE state='active' AND remote_guid IS NULL")" 0

# roles and hops (the scan runs from host0001, the first node of the file)
check "roles" eq "$(q "SELECT role || count(*) FROM nodes GROUP BY role ORDER BY role")" \
	"$(printf 'host16\nleaf4\nspine2')"
check "hops from host0001" eq "$(q "SELECT description || ':' || hops FROM nodes
	WHERE description IN ('host0001','leaf001','spine001','leaf004','host0016') ORDER BY description")" \
	"$(printf 'host0001:0\nhost0016:4\nleaf001:1\nleaf004:3\nspine001:2')"
check "descriptions from NodeDescription" eq "$(q "SELECT count(*) FROM nodes WHERE description LIKE 'host____' OR description LIKE 'leaf___' OR description LIKE 'spine___'")" "$(want nodes)"

# libibnetdisc (--discovery ibnetdisc) finds the very same topology as
# fabsweep's own discovery, the default: nodes, ports with their state,
# links (scan 2)
FABSWEEP_SCAN_DEBUG=1 sim "$FABSWEEP" scan --db "$D/fab.db" --quiet --discovery ibnetdisc 2> "$D/phases"
rc=$?
check "ibnetdisc discovery: exit 0" eq "$rc" 0
check "ibnetdisc discovery ran" grep -q '^scan: ibnetdisc ' "$D/phases"
same() { # SQL over scan ?1: scans 1 and 2 agree
	[[ "$(q "${1//\?1/1}")" == "$(q "${1//\?1/2}")" ]] || { echo "  differs: $1"; return 1; }
}
check "ibnetdisc: same nodes" same "SELECT group_concat(x) FROM (SELECT node_guid || node_type || description ||
	lid || num_ports || role || hops AS x FROM nodes WHERE scan_id = ?1 ORDER BY 1)"
check "ibnetdisc: same ports" same "SELECT group_concat(x) FROM (SELECT node_guid || port_num || port_guid || lid ||
	state || phys_state || ifnull(width_active, '') || ifnull(speed_active, '') || ifnull(speed_supported, '') ||
	ifnull(remote_guid, '') || ifnull(remote_port, '') AS x FROM ports WHERE scan_id = ?1 ORDER BY 1)"
check "ibnetdisc: same links" same "SELECT group_concat(x) FROM (SELECT a_guid || a_port || b_guid || b_port ||
	width || speed AS x FROM links WHERE scan_id = ?1 ORDER BY 1)"
check "ibnetdisc: same switch port 0" same "SELECT group_concat(x) FROM (SELECT node_guid || lid || cap_mask AS x
	FROM mgmt_ports WHERE scan_id = ?1 ORDER BY 1)"

# offline: an ibnetdiscover cache gives the same topology, with no MAD sent
sim ibnetdiscover --cache "$D/fabric.cache" > /dev/null 2>&1
"$FABSWEEP" scan --db "$D/fab.db" --quiet --load-cache "$D/fabric.cache"
rc=$?
check "cache scan exits 0" eq "$rc" 0
check "cache: source" eq "$(q "SELECT source FROM scans WHERE scan_id = 3")" "cache:$D/fabric.cache"
for t in nodes links; do
	check "cache: same $t" eq "$(q "SELECT count(*) FROM $t WHERE scan_id = 3")" \
		"$(q "SELECT count(*) FROM $t WHERE scan_id = 1")"
done
check "cache: same links" eq \
	"$(q "SELECT group_concat(x) FROM (SELECT a_guid||a_port||b_guid||b_port||width||speed AS x FROM links WHERE scan_id = 3 ORDER BY 1)")" \
	"$(q "SELECT group_concat(x) FROM (SELECT a_guid||a_port||b_guid||b_port||width||speed AS x FROM links WHERE scan_id = 1 ORDER BY 1)")"
check "cache: no counters, hops unknown" eq \
	"$(q "SELECT (SELECT count(*) FROM counters WHERE scan_id = 3) || ' ' ||
	          (SELECT count(*) FROM nodes WHERE scan_id = 3 AND hops IS NOT NULL)")" "0 0"

echo "scan_topology: $pass passed, $fail failed"
((fail == 0))
