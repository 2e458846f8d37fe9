#!/usr/bin/env bash
# The causes on a simulated fabric (docs/causes.md, docs/counters.md "Detail
# counters"): a clean fabric sends no detail MAD (counted by the MAD spy);
# each cause, injected with ibsim's PerformanceSet on a port chosen at
# random, gives one finding at warning or above, at that port, naming that
# cause, and the stored detail counters equal what perfquery -E / -D /
# --vlxmitcounters read (the oracle); a PMA that drops PortRcvErrorDetails is
# recorded as not supporting it, never as zeros; a watch sweep reads the
# details of a port whose PortRcvErrors moved; the symbol error rate of
# link.ber_high equals the one computed here by hand (within 1%) in the
# finding and in the Prometheus file; diff, the XML report (valid against
# its schema) and the HTML report carry them. About 20 s.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need perfquery sqlite3 awk
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
fs() { fabsim_run "$D/sim" -- "$FABSWEEP" "$@" --db "$D/fab.db"; }
con() { fabsim_console "$D/sim" "$1" > /dev/null; }
last() { q "SELECT max(scan_id) FROM scans"; }
scan_check() { # WHAT: a scan, which must exit 0, then check; s is the scan's id
	fs scan --quiet
	check "$1: scan exits 0" eq "$?" 0
	fs check --quiet > /dev/null
	s=$(last)
}
seed=${CAUSES_SEED:-$RANDOM}
RANDOM=$seed
echo "random ports from seed $seed (CAUSES_SEED=$seed to repeat)"

"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 2 -o "$D/net" > /dev/null || exit 1
# a standby SM: sm.no_standby stays silent, so any warning is the cause's
fabsim_start "$D/net" "$D/sim" --sm2-host host0002 > /dev/null || exit 1

# 1: a clean fabric: no detail MAD, no finding at warning or above
spy_build "$D"
spy_run "$D/sim" "$D/spy" "$FABSWEEP" scan --db "$D/fab.db" --quiet
check "clean: scan exits 0" eq "$?" 0
check "clean: the spy saw the scan's PortCounters" ge "$(grep -c '^mad class 0x04 .* attr 0x0012$' "$D/spy")" 1
check "clean: no PortRcvErrorDetails, PortXmitDiscardDetails or PortVLXmitWaitCounters MAD" \
	eq "$(grep -cE '^mad class 0x04 .* attr 0x00(15|16|1c)$' "$D/spy")" 0
fs check --quiet > /dev/null
check "clean: nothing at warning or above" eq "$(q "SELECT count(*) FROM findings WHERE scan_id = 1
	AND severity <> 'info'")" 0

# the active ports: description, port, LID to ask the PMA at, node GUID
q "SELECT n.description, p.port_num, CASE WHEN n.node_type = 'switch' THEN n.lid ELSE p.lid END,
	n.node_guid FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = 1 AND p.state = 'active' ORDER BY 1, 2" > "$D/ports"
n_ports=$(wc -l < "$D/ports")
check "active ports listed" ge "$n_ports" 8
pick() { sed -n "$((RANDOM % n_ports + 1))p" "$D/ports"; }
val() { # counter at node guid $1 port $2 in the last scan
	q "SELECT value FROM counters WHERE scan_id = $(last) AND node_guid = '$1' AND port_num = $2
	   AND counter = '$3' AND sample = 0"
}
oracle() { # perfquery's value of field $4 (mode $3: -E, -D, --vlxmitcounters) at LID $1 port $2
	fabsim_run "$D/sim" -- perfquery "$3" "$1" "$2" |
		awk -F: -v f="$4" '{ k = $1; v = $2; gsub(/\./, "", v) } k == f { print v }'
}

# 2: each cause on a port chosen at random: one finding, at that port, naming it
# cause id | attribute | its field (ibsim's name) | perfquery's name | parent | mode
causes='physical PortRcvErrorDetails PortLocalPhysicalErrors PortLocalPhysicalErrors PortRcvErrors -E
malformed_packet PortRcvErrorDetails PortMalformedPacketErrors PortMalformedPktErrors PortRcvErrors -E
buffer_overrun PortRcvErrorDetails PortBufferOverrunErrors PortBufferOverrunErrors PortRcvErrors -E
dlid_mapping PortRcvErrorDetails PortDLIDMappingErrors PortDLIDMappingErrors PortRcvErrors -E
vl_mapping PortRcvErrorDetails PortVLMappingErrors PortVLMappingErrors PortRcvErrors -E
looping PortRcvErrorDetails PortLoopingErrors PortLoopingErrors PortRcvErrors -E
inactive PortXmitDiscardDetails PortInactiveDiscards PortInactiveDiscards PortXmitDiscards -D
neighbor_mtu PortXmitDiscardDetails PortNeighborMTUDiscards PortNeighborMTUDiscards PortXmitDiscards -D
sw_lifetime PortXmitDiscardDetails PortSwLifetimeLimitDiscards PortSwLifetimeLimitDiscards PortXmitDiscards -D
hoq_lifetime PortXmitDiscardDetails PortSwHOQLifetimeLimitDiscards PortSwHOQLifetimeLimitDiscards PortXmitDiscards -D'
while read -r id attr field pqname parent mode; do
	read -r node port lid guid <<< "$(pick | tr '|' ' ')"
	n=$((200 + RANDOM % 800)) # above both parents' thresholds (10, 100)
	minor=$((RANDOM % 5)) # a smaller second detail: the cause is the largest
	if [[ $parent == PortRcvErrors ]]; then
		other=PortLocalPhysicalErrors alt=PortLoopingErrors
	else
		other=PortInactiveDiscards alt=PortNeighborMTUDiscards
	fi
	[[ $field == "$other" ]] && other=$alt
	con "PerformanceSet \"$node\"[$port] PortCounters.$parent=$((n + minor))"
	con "PerformanceSet \"$node\"[$port] $attr.$field=$n"
	con "PerformanceSet \"$node\"[$port] $attr.$other=$minor"
	vl=
	if [[ $id == *lifetime ]]; then # it waited: on which VL
		vl=$((RANDOM % 8))
		con "PerformanceSet \"$node\"[$port] PortCounters.PortXmitWait=5000"
		con "PerformanceSet \"$node\"[$port] PortVLXmitWaitCounters.PortVLXmitWaitCounters$vl=$((1000 + n))"
	fi
	scan_check "$id at $node/$port"
	q "SELECT rule_id || '|' || node || '|' || port || '|' || message || '|' || evidence FROM findings
	   WHERE scan_id = $s AND severity <> 'info'" > "$D/found"
	check "$id at $node/$port: one finding at warning or above" eq "$(wc -l < "$D/found")" 1
	check "$id at $node/$port: port.errors at that port" \
		eq "$(cut -d'|' -f1-3 "$D/found")" "port.errors|$guid|$port"
	check "$id at $node/$port: it names the cause" has "$D/found" "cause=$id"
	check "$id at $node/$port: stored $field equals perfquery $mode" \
		eq "$(val "$guid" "$port" "$field")" "$(oracle "$lid" "$port" "$mode" "$pqname")"
	check "$id at $node/$port: stored $field is $n" eq "$(val "$guid" "$port" "$field")" "$n"
	if [[ -n $vl ]]; then
		check "$id at $node/$port: VL $vl waits most" has "$D/found" "vl=$vl;"
		check "$id at $node/$port: stored VL $vl wait equals perfquery --vlxmitcounters" \
			eq "$(q "SELECT value FROM vl_xmit_wait WHERE scan_id = $s AND node_guid = '$guid'
			   AND port_num = $port AND vl = $vl")" \
			"$(oracle "$lid" "$port" --vlxmitcounters "PortVLXmitWait$vl")"
		con "PerformanceSet \"$node\"[$port] PortCounters.PortXmitWait=0"
		con "PerformanceSet \"$node\"[$port] PortVLXmitWaitCounters.PortVLXmitWaitCounters$vl=0"
	fi
	con "PerformanceSet \"$node\"[$port] PortCounters.$parent=0"
	con "PerformanceSet \"$node\"[$port] $attr.$field=0"
	con "PerformanceSet \"$node\"[$port] $attr.$other=0"
done <<< "$causes"
check "the causes' scans read only the erroring ports' details" eq "$(q "SELECT count(DISTINCT scan_id || node_guid || port_num)
	FROM counters WHERE counter IN ('PortLoopingErrors', 'PortInactiveDiscards') AND scan_id > 1")" 10

# 3: a PMA that drops PortRcvErrorDetails (ibsim's Error at the switch's
# management port, for attribute 0x15 only): not supported, never zeros
read -r node port lid guid <<< "$(grep -E '^(leaf|spine)' "$D/ports" | sed -n "$((RANDOM % 4 + 1))p" | tr '|' ' ')"
con "Error \"$node\"[0] 100 0x15"
con "PerformanceSet \"$node\"[$port] PortCounters.PortRcvErrors=50"
scan_check "unsupported (not a scan error)"
check "unsupported: pma_unsupported names it at $node/$port" eq "$(q "SELECT attribute FROM pma_unsupported
	WHERE scan_id = $s AND node_guid = '$guid' AND port_num = $port")" PortRcvErrorDetails
check "unsupported: no detail counter stored" eq "$(q "SELECT count(*) FROM counters WHERE scan_id = $s
	AND counter = 'PortDLIDMappingErrors'")" 0
check "unsupported: the finding says so" eq "$(q "SELECT count(*) FROM findings WHERE scan_id = $s
	AND rule_id = 'port.errors' AND message LIKE '%cause unknown: PortRcvErrorDetails not supported%'")" 1
con "Error \"$node\"[0] 0"
con "PerformanceSet \"$node\"[$port] PortCounters.PortRcvErrors=0"

# 4: watch: a sweep reads the details of a port whose PortRcvErrors moved
read -r node port lid guid <<< "$(pick | tr '|' ' ')"
before=$(last)
fabsim_run "$D/sim" -- "$FABSWEEP" watch --db "$D/fab.db" --interval 300ms --count 40 --quiet &
wpid=$!
wait_for 60 "the first sweep" sh -c "[ \"\$(sqlite3 -readonly '$D/fab.db' 'SELECT count(*) FROM scans
	WHERE scan_id > $before AND topology_scan_id IS NOT NULL')\" -ge 1 ]"
con "PerformanceSet \"$node\"[$port] PortRcvErrorDetails.PortLoopingErrors=33"
con "PerformanceSet \"$node\"[$port] PortCounters.PortRcvErrors=33"
wait "$wpid"
check "watch: exits 0" eq "$?" 0
check "watch: a sweep stored PortLoopingErrors 33 at $node/$port" eq "$(q "SELECT count(*) FROM counters c
	JOIN scans s USING (scan_id) WHERE s.topology_scan_id IS NOT NULL AND c.scan_id > $before
	AND c.node_guid = '$guid' AND c.port_num = $port AND c.counter = 'PortLoopingErrors' AND c.value = 33")" 1
con "PerformanceSet \"$node\"[$port] PortCounters.PortRcvErrors=0"
con "PerformanceSet \"$node\"[$port] PortRcvErrorDetails.PortLoopingErrors=0"

# 5: link.ber_high against a baseline: N symbol errors at a known speed and
# width over the time between the two samples, computed here by hand
read -r node port lid guid <<< "$(pick | tr '|' ' ')"
fs scan --quiet
a=$(last)
n=$((100 + RANDOM % 900))
con "PerformanceSet \"$node\"[$port] PortCounters.SymbolErrorCounter=$n"
fs scan --quiet
b=$(last)
fs check --baseline "$a" --quiet > /dev/null
fs export prometheus --baseline "$a" --out "$D/f.prom" --quiet
# lanes and lane signalling rate (Gb/s) of the port, as the IB specification gives them
hand=$(q "SELECT p.width_active, p.speed_active,
	(julianday(cb.sampled_at) - julianday(ca.sampled_at)) * 86400.0
	FROM ports p, counters ca, counters cb WHERE p.scan_id = $b AND p.node_guid = '$guid' AND p.port_num = $port
	AND ca.scan_id = $a AND cb.scan_id = $b AND ca.node_guid = '$guid' AND cb.node_guid = '$guid'
	AND ca.port_num = $port AND cb.port_num = $port AND ca.counter = 'SymbolErrorCounter'
	AND cb.counter = 'SymbolErrorCounter' AND ca.sample = 0 AND cb.sample = 0" |
	awk -F'|' -v n="$n" '{
		lanes["1X"] = 1; lanes["2X"] = 2; lanes["4X"] = 4; lanes["8X"] = 8; lanes["12X"] = 12
		g["SDR"] = 2.5; g["DDR"] = 5; g["QDR"] = 10; g["FDR10"] = 10.3125; g["FDR"] = 14.0625
		g["EDR"] = 25.78125; g["HDR"] = 53.125; g["NDR"] = 106.25; g["XDR"] = 212.5
		printf "%.6e", n / (lanes[$1] * g[$2] * 1e9 * $3) }')
echo "BER at $node/$port: $n symbol errors, by hand $hand"
check "BER: the link runs 4X SDR (ibsim's default)" eq "$(q "SELECT width_active || ' ' || speed_active
	FROM ports WHERE scan_id = $b AND node_guid = '$guid' AND port_num = $port")" "4X SDR"
ev=$(q "SELECT evidence FROM findings WHERE scan_id = $b AND rule_id = 'link.ber_high'
	AND node = '$guid' AND port = '$port'" | sed -n 's/^ber=\([^;+]*\).*/\1/p')
check "BER: link.ber_high at $node/$port" test -n "$ev"
within() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d / b <= 0.01) }' ||
	{ echo "  $1 is not within 1% of $2"; return 1; }; }
check "BER: the finding's rate ($ev) within 1% of the hand's" within "$ev" "$hand"
prom=$(sed -n "s/^fabsweep_port_ber{node_guid=\"$guid\",port=\"$port\"[^}]*} //p" "$D/f.prom")
check "BER: Prometheus' rate ($prom) within 1% of the hand's" within "$prom" "$hand"
check "BER: Prometheus file format" prom_ok "$D/f.prom"
check "BER: the only link.ber_high" eq "$(q "SELECT count(*) FROM findings WHERE scan_id = $b
	AND rule_id = 'link.ber_high'")" 1

# 6: the other outputs: diff (text and JSON) names a detail counter that moved, the XML
# report carries the details and per-VL waits (valid against its schema),
# the HTML report the BER column
need xmllint
read -r node port lid guid <<< "$(pick | tr '|' ' ')"
con "PerformanceSet \"$node\"[$port] PortCounters.PortXmitDiscards=300"
con "PerformanceSet \"$node\"[$port] PortCounters.PortXmitWait=5000"
con "PerformanceSet \"$node\"[$port] PortXmitDiscardDetails.PortSwHOQLifetimeLimitDiscards=300"
con "PerformanceSet \"$node\"[$port] PortVLXmitWaitCounters.PortVLXmitWaitCounters1=4321"
fs scan --quiet
x=$(last)
con "PerformanceSet \"$node\"[$port] PortXmitDiscardDetails.PortSwHOQLifetimeLimitDiscards=350"
con "PerformanceSet \"$node\"[$port] PortCounters.PortXmitDiscards=350"
fs scan --quiet
y=$(last)
fs check --baseline "$x" --quiet > /dev/null
fs diff "$x" "$y" > "$D/diff.txt"
check "diff: PortSwHOQLifetimeLimitDiscards 300 -> 350" has "$D/diff.txt" "PortSwHOQLifetimeLimitDiscards"
check "diff: its values" has "$D/diff.txt" "300 -> 350"
fs diff "$x" "$y" --json > "$D/diff.json"
check "diff --json: the detail counter's change" grep -qE '"counter": ?"PortSwHOQLifetimeLimitDiscards"' "$D/diff.json"
fs report --scan "$y" --baseline "$x" --xml "$D/r.xml" --html "$D/r.html" > /dev/null
check "XML: valid against docs/fabsweep-report.xsd" xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$D/r.xml"
check "XML: the detail counter" has "$D/r.xml" 'PortSwHOQLifetimeLimitDiscards="350"'
check "XML: the VL wait" has "$D/r.xml" '<vl-xmit-wait vl="1" value="4321"/>'
check "HTML: the BER column" has "$D/r.html" '<th class="num">BER</th>'

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
