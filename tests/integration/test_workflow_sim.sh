#!/usr/bin/env bash
# Workflows on a simulated fabric (ibsim + real OpenSM): two scans around an
# ibsim `Unlink` of a leaf-spine cable and a `PerformanceSet` of an error
# counter. `fabsweep diff` names the removed link (both ends), the two ports
# that went down and the counter increase, in text and in XML; the Prometheus
# file of the second scan has the counter value and the down port; a baseline
# keeps the first scan through a prune.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
need xmllint
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@"; }
fs() { "$FABSWEEP" "$@" --db "$D/fab.db"; }

# 2 leaves x 2 hosts, 2 spines: leaf ports 1-2 hosts, 3 to spine001, 4 to spine002.
"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 2 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1

scan
check "scan 1 exits 0" eq "$?" 0
guid() { q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND description = '$1'"; }
LEAF1=$(guid leaf001) LEAF2=$(guid leaf002) SPINE2=$(guid spine002)
check "the link to unplug exists" eq "$(q "SELECT count(*) FROM ports WHERE scan_id = 1
	AND node_guid = '$LEAF1' AND port_num = 4 AND remote_guid = '$SPINE2' AND state = 'active'")" 1
SPORT=$(q "SELECT remote_port FROM ports WHERE scan_id = 1 AND node_guid = '$LEAF1' AND port_num = 4")
base=$(q "SELECT value FROM counters WHERE scan_id = 1 AND node_guid = '$LEAF2' AND port_num = 1
	AND counter = 'SymbolErrorCounter'")
check "counter readable before" test -n "$base"

fabsim_console "$D/sim" 'Unlink "leaf001"[4]' > /dev/null || exit 1
fabsim_console "$D/sim" 'PerformanceSet "leaf002"[1] PortCounters.SymbolErrorCounter=77' > /dev/null || exit 1
fabsim_resweep "$D/sim" || exit 1 # OpenSM has configured the change
scan
rc=$?
check "scan 2 committed (exit 0 or 4: $rc)" test "$rc" -eq 0 -o "$rc" -eq 4
check "scan 2 sees the port down" eq "$(q "SELECT state FROM ports WHERE scan_id = 2
	AND node_guid = '$LEAF1' AND port_num = 4")" down

fs diff 1 2 --xml "$D/diff.xml" > "$D/diff.txt"
check "diff exits 0" eq "$?" 0
check "diff: link removed, both ends" has "$D/diff.txt" \
	"  \"leaf001\" $LEAF1 port 4 <-> \"spine002\" $SPINE2 port $SPORT ("
check "diff: leaf port down" has "$D/diff.txt" "  \"leaf001\" $LEAF1 port 4: active/linkup -> down/"
check "diff: spine port down" has "$D/diff.txt" "  \"spine002\" $SPINE2 port $SPORT: active/linkup -> down/"
check "diff: counter increase" has "$D/diff.txt" \
	"  \"leaf002\" $LEAF2 port 1 SymbolErrorCounter: $base -> 77 (+$((77 - base)))"
check "diff: no node change" eq "$(grep -c '^nodes ' "$D/diff.txt")" 0
xmllint --noout --schema "$SRCDIR/docs/fabsweep-diff.xsd" "$D/diff.xml" 2> /dev/null
check "diff XML validates" eq "$?" 0
check "XML: link-removed" eq "$(xmllint --xpath 'count(//change[@kind="link-removed"])' "$D/diff.xml")" 1
check "XML: counter" eq "$(xmllint --xpath 'string(//change[@kind="counter-increase" and @counter="SymbolErrorCounter"]/subject/@name)' "$D/diff.xml")" leaf002

printf '%s "leaf-two"\n' "$LEAF2" > "$D/map"
fs export prometheus --scan 2 --out "$D/fabsweep.prom" --node-name-map "$D/map" --quiet
check "export exits 0" eq "$?" 0
check "prometheus: counter" has "$D/fabsweep.prom" \
	"fabsweep_port_errors_total{node_guid=\"$LEAF2\",port=\"1\",counter=\"SymbolErrorCounter\"} 77"
check "prometheus: the mapped name" has "$D/fabsweep.prom" \
	"fabsweep_node_info{node_guid=\"$LEAF2\",node=\"leaf-two\",description=\"leaf002\",type=\"switch\"} 1"
check "prometheus: down port" has "$D/fabsweep.prom" \
	"fabsweep_port_state{node_guid=\"$LEAF1\",port=\"4\"} 1"
check "prometheus: still 4X on the other uplink" has "$D/fabsweep.prom" \
	"fabsweep_port_link_width_lanes{node_guid=\"$LEAF1\",port=\"3\"} 4"
check "prometheus: one master SM" has "$D/fabsweep.prom" "fabsweep_sm_masters 1"
check "prometheus: links one fewer" eq "$(sed -n 's/^fabsweep_links //p' "$D/fabsweep.prom")" \
	"$(($(q 'SELECT count(*) FROM links WHERE scan_id = 1') - 1))"

# the scan before the change as a baseline survives a prune
fs db baseline set 1 --name before-unlink > /dev/null
scan
fs db prune --keep 1 > /dev/null
check "prune kept the baseline and the newest" eq "$(q 'SELECT group_concat(scan_id) FROM scans')" "1,3"
fs diff --baseline before-unlink > "$D/diff3.txt"
check "diff --baseline still shows the removed link" has "$D/diff3.txt" "links removed (1):"
check "integrity after prune" eq "$(q 'PRAGMA integrity_check')" ok

echo "$pass passed, $fail failed"
((fail == 0))
