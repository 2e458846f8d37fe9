#!/usr/bin/env bash
# Port counters on a simulated fabric: values injected with ibsim's
# PerformanceSet appear with the exact values at the exact ports (and nowhere
# else); 64-bit counters come from PortCountersExtended; --interval takes a
# second sample; --reset-counters clears them; a PMA that drops every
# PortCounters query leaves that port without counters (never zeros), flagged,
# with an error row, and the scan exits 4 (partial). Two leaves share a
# SystemImageGUID (one ClassPortInfo for both): both are read in full. A
# switch whose AllPortSelect sum of errors is 0 costs one PortCounters MAD
# (its ports' errors stored as 0); one with an error or PortXmitWait is
# read port by port (PortCounters MADs counted by tests/tools/madspy.c); a
# switch whose sum gets no answer has its ports flagged, not asked.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@"; }
# value of counter $3 at node description $1 port $2 in scan $4 (sample $5)
val() {
	q "SELECT c.value FROM counters c JOIN nodes n USING (scan_id, node_guid)
	   WHERE c.scan_id = $4 AND n.description = '$1' AND c.port_num = $2
	     AND c.counter = '$3' AND c.sample = ${5:-0}"
}

"$FABGEN" --leaves 2 --spines 1 --hosts-per-leaf 2 -o "$D/net.gen" --summary > "$D/summary" || exit 1
active=$(awk '$1 == "active_ports" { print $2 }' "$D/summary")
# The two leaves are one system (one SystemImageGUID, one model, as the
# ASICs of a director): one ClassPortInfo answers for both, and the
# counters of the second are read all the same (checked below).
awk '/^switchguid=/ { held = $0; next }
     held != "" { if ($0 ~ /"leaf00[12]"/) print "sysimgguid=0x0002c90000abcdef"; print held; held = "" }
     { print }' "$D/net.gen" > "$D/net"
check "two leaves share a SystemImageGUID" eq "$(grep -c '^sysimgguid=' "$D/net")" 2
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
# straight into the console fifo, then one synchronous command: all applied
set_ctr() { printf 'PerformanceSet "%s"[%s] PortCounters.%s=%s\n' "$@" > "$D/sim/ctl"; }
set_ctr leaf001 3 SymbolErrorCounter 500
set_ctr host0002 1 PortRcvErrors 77
set_ctr spine001 2 LinkDownedCounter 3
set_ctr leaf002 1 PortXmitDiscards 1234
fabsim_console "$D/sim" 'PerformanceSet "leaf002"[2] PortCounters.VL15Dropped=9' > /dev/null

# 1: exact values at exact ports
scan
rc=$?
check "scan exits 0" eq "$rc" 0
check "one sample per active port" eq "$(q "SELECT count(DISTINCT node_guid || port_num) FROM counters WHERE scan_id = 1")" "$active"
check "SymbolErrorCounter leaf001[3]" eq "$(val leaf001 3 SymbolErrorCounter 1)" 500
check "PortRcvErrors host0002[1]" eq "$(val host0002 1 PortRcvErrors 1)" 77
check "LinkDownedCounter spine001[2]" eq "$(val spine001 2 LinkDownedCounter 1)" 3
check "PortXmitDiscards leaf002[1]" eq "$(val leaf002 1 PortXmitDiscards 1)" 1234
check "VL15Dropped leaf002[2]" eq "$(val leaf002 2 VL15Dropped 1)" 9
check "no other error counter is non-zero" eq "$(q "SELECT count(*) FROM counters WHERE scan_id = 1
	AND counter IN ('SymbolErrorCounter','LinkErrorRecoveryCounter','LinkDownedCounter','PortRcvErrors',
	'PortRcvRemotePhysicalErrors','PortRcvSwitchRelayErrors','PortXmitDiscards','PortXmitConstraintErrors',
	'PortRcvConstraintErrors','LocalLinkIntegrityErrors','ExcessiveBufferOverrunErrors','VL15Dropped')
	AND value <> 0")" 5
check "the peer port of leaf001[3] is clean" eq "$(val spine001 1 SymbolErrorCounter 1)" 0
# ibsim's PMA advertises extended width: data counters are 64-bit ones
check "extended counters used" eq "$(q "SELECT min(extended) FROM counters WHERE scan_id = 1")" 1
check "unicast counters present" eq "$(q "SELECT count(*) FROM counters WHERE scan_id = 1 AND counter = 'PortUnicastXmitPkts'")" "$active"
check "the leaves' system GUID as ibsim has it" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = 1
	AND sys_guid = '0x0002c90000abcdef' AND description IN ('leaf001', 'leaf002')")" 2
check "data counters count the scan's own MADs" test "$(val leaf001 1 PortXmitData 1)" -gt 0
check "sampled_at within the scan" eq "$(q "SELECT count(*) FROM counters c JOIN scans s USING (scan_id)
	WHERE c.scan_id = 1 AND (c.sampled_at < s.started_at OR c.sampled_at > s.finished_at)")" 0

# 2: --interval takes a second sample about S seconds later
scan --interval 1
check "second sample for every port" eq "$(q "SELECT count(DISTINCT node_guid || port_num) FROM counters WHERE scan_id = 2 AND sample = 1")" "$active"
gap=$(q "SELECT CAST(round((julianday(max(sampled_at)) - julianday(min(sampled_at))) * 86400000) AS INTEGER)
	FROM counters WHERE scan_id = 2 AND node_guid = (SELECT node_guid FROM nodes WHERE scan_id = 2 AND description = 'leaf001')
	AND port_num = 3 AND counter = 'SymbolErrorCounter'")
check "samples ~1 s apart (${gap} ms)" test "$gap" -ge 900
check "both samples see the injected value" eq "$(val leaf001 3 SymbolErrorCounter 2 0) $(val leaf001 3 SymbolErrorCounter 2 1)" "500 500"

# 3: --reset-counters reads, then clears (the next scan reads zero)
scan --reset-counters
check "reset scan still read the value" eq "$(val leaf001 3 SymbolErrorCounter 3)" 500
scan
check "cleared: SymbolErrorCounter" eq "$(val leaf001 3 SymbolErrorCounter 4)" 0
check "cleared: PortXmitDiscards" eq "$(val leaf002 1 PortXmitDiscards 4)" 0
check "cleared: everything" eq "$(q "SELECT count(*) FROM counters WHERE scan_id = 4 AND value <> 0
	AND counter IN ('SymbolErrorCounter','LinkDownedCounter','PortRcvErrors','PortXmitDiscards','VL15Dropped')")" 0

# 4: a switch whose AllPortSelect sum of error counters (and PortXmitWait)
# is 0 costs one PortCounters MAD, its ports' error counters stored as 0;
# one with an error, or waiting, is asked port by port (counted by the spy)
spy_build "$D"
spy_scan() { spy_run "$D/sim" "$1" "$FABSWEEP" scan --db "$D/fab.db" --quiet; } # log file
active_of() { q "SELECT count(*) FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $s
	AND p.port_num > 0 AND p.state = 'active' AND n.$1"; }
# 4a: an error on leaf001[3]: leaf001 port by port, the other switches by their sums
fabsim_console "$D/sim" 'PerformanceSet "leaf001"[3] PortCounters.SymbolErrorCounter=7' > /dev/null
spy_scan "$D/spy"
check "sums: scan exits 0" eq "$?" 0
s=$(q "SELECT max(scan_id) FROM scans")
n_sw=$(active_of "node_type = 'switch' AND p.port_num = 1")
check "sums: PortCounters MADs: a sum per switch, then leaf001's ports (an error) and the CAs'" \
	eq "$(grep -c 'attr 0x0012$' "$D/spy")" \
	"$((n_sw + $(active_of "description = 'leaf001'") + $(active_of "node_type = 'ca'")))"
check "sums: one PortCountersExtended per active port" eq "$(grep -c 'attr 0x001d$' "$D/spy")" "$active"
check "sums: SymbolErrorCounter leaf001[3] exact" eq "$(val leaf001 3 SymbolErrorCounter "$s")" 7
check "sums: every active port has its 12 error counters and PortXmitWait" eq "$(q "SELECT count(*) FROM counters
	WHERE scan_id = $s AND counter IN ('SymbolErrorCounter','LinkErrorRecoveryCounter','LinkDownedCounter','PortRcvErrors',
	'PortRcvRemotePhysicalErrors','PortRcvSwitchRelayErrors','PortXmitDiscards','PortXmitConstraintErrors',
	'PortRcvConstraintErrors','LocalLinkIntegrityErrors','ExcessiveBufferOverrunErrors','VL15Dropped','PortXmitWait')")" \
	"$((active * 13))"
check "sums: the clean leaf's ports read 0, with 64-bit data counters" eq "$(q "SELECT count(*) || ' ' || sum(value)
	|| ' ' || min(extended) FROM counters c JOIN nodes n USING (scan_id, node_guid) WHERE c.scan_id = $s
	AND n.description = 'leaf002' AND c.counter IN ('SymbolErrorCounter', 'PortXmitWait')")" \
	"$((2 * $(active_of "description = 'leaf002'"))) 0 1"
set_ctr leaf001 3 SymbolErrorCounter 0
# 4b: no error, spine001[1] waiting (PortXmitWait): spine001 port by port
fabsim_console "$D/sim" 'PerformanceSet "spine001"[1] PortCounters.PortXmitWait=5' > /dev/null
rm -f "$D/spy"
spy_scan "$D/spy"
s=$(q "SELECT max(scan_id) FROM scans")
check "sums: PortCounters MADs: a sum per switch, then spine001's ports (waiting) and the CAs'" \
	eq "$(grep -c 'attr 0x0012$' "$D/spy")" \
	"$((n_sw + $(active_of "description = 'spine001'") + $(active_of "node_type = 'ca'")))"
check "sums: PortXmitWait spine001[1] exact" eq "$(val spine001 1 PortXmitWait "$s")" 5
fabsim_console "$D/sim" 'PerformanceSet "spine001"[1] PortCounters.PortXmitWait=0' > /dev/null

# A scan while node $1's PMA drops every PortCounters query (attribute 0x12
# only): sets rc, took (seconds) and s (the scan's id).
dead_pma_scan() {
	local start
	fabsim_console "$D/sim" "Error \"$1\" 100 0x12" > /dev/null
	start=$(date +%s)
	scan --timeout 200 --retries 2
	rc=$?
	took=$(($(date +%s) - start))
	fabsim_console "$D/sim" "Error \"$1\" 0" > /dev/null
	s=$(q "SELECT max(scan_id) FROM scans")
}

# 5: a PMA that drops every PortCounters query
dead_pma_scan host0003
check "PMA failure: exit 4 (partial)" eq "$rc" 4
check "PMA failure: status partial" eq "$(q "SELECT status FROM scans WHERE scan_id = $s")" partial
check "PMA failure: bounded (${took} s)" test "$((took * 1000))" -lt "$HANG_MS"
check "PMA failure: port flagged" eq "$(q "SELECT p.pma_failed FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = $s AND n.description = 'host0003'")" 1
check "PMA failure: node flagged" eq "$(q "SELECT pma_failed FROM nodes WHERE scan_id = $s AND description = 'host0003'")" 1
check "PMA failure: no counter rows (never zeros)" eq "$(q "SELECT count(*) FROM counters c JOIN nodes n USING (scan_id, node_guid)
	WHERE c.scan_id = $s AND n.description = 'host0003'")" 0
check "PMA failure: one error row" eq "$(q "SELECT what || ' ' || port_num FROM scan_errors e JOIN nodes n USING (scan_id, node_guid)
	WHERE e.scan_id = $s AND n.description = 'host0003'")" "pma 1"
check "PMA failure: every other port read" eq "$(q "SELECT count(DISTINCT node_guid || port_num) FROM counters WHERE scan_id = $s")" "$((active - 1))"
check "PMA failure: topology untouched" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = $s")" "$(q "SELECT count(*) FROM nodes WHERE scan_id = 1")"

# 6: a switch whose PMA drops every PortCounters query, its sum first: its
# ports are not asked after the sum got no answer, each flagged with an
# error row naming the sum; the rest read
dead_pma_scan leaf002
n_leaf2=$(active_of "description = 'leaf002'")
check "dead switch PMA: exit 4 (partial)" eq "$rc" 4
check "dead switch PMA: bounded (${took} s)" test "$((took * 1000))" -lt "$HANG_MS"
check "dead switch PMA: every active port of leaf002 flagged, each with an error row naming the sum" \
	eq "$(q "SELECT count(*) FROM scan_errors e JOIN nodes n USING (scan_id, node_guid) WHERE e.scan_id = $s
	AND n.description = 'leaf002' AND e.what = 'pma' AND e.message LIKE '%the sum over the switch''s ports%'")/$(q "SELECT
	sum(p.pma_failed) FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $s AND n.description = 'leaf002'")" \
	"$n_leaf2/$n_leaf2"
check "dead switch PMA: no counter rows for leaf002 (never zeros)" eq "$(q "SELECT count(*) FROM counters c
	JOIN nodes n USING (scan_id, node_guid) WHERE c.scan_id = $s AND n.description = 'leaf002'")" 0
check "dead switch PMA: every other port read" eq "$(q "SELECT count(DISTINCT node_guid || port_num) FROM counters
	WHERE scan_id = $s")" "$((active - n_leaf2))"

echo "scan_counters: $pass passed, $fail failed"
((fail == 0))
