#!/usr/bin/env bash
# Faults on a simulated fabric (ibsim + OpenSM), beyond test_scan_faults.sh
# (which covers 5% loss at the hosts, a dead host and a dead leaf):
#  - MAD loss of 1, 5 and 20% on EVERY node, switches included, with both
#    discovery engines (--discovery ibnetdisc, native): each lossy
#    snapshot is compared row by row with a loss-free one. A value that is
#    there must be the right one; what is missing must be named in
#    scan_errors and the snapshot marked partial;
#  - a PMA that drops PortCounters while SMPs work (ibsim `Error` with the
#    attribute id 18 = 0x12), on a host and on a switch;
#  - a link pulled (ibsim `Unlink`, from another process) between the two
#    counter samples of a scan, and at random moments of short scans;
#  - the master SM killed during a scan: before discovery (the scan is held
#    on its debug output while the standby takes over), during the scan, and
#    with no standby;
#  - two devices with one GUID (ibsim `Guid`; OpenSM runs with -y), with both
#    discovery engines (--discovery ibnetdisc, native).
# Every check must pass: a bug found here fails the test.
# Unknown is not wrong: a NULL LID, or the description '' of a node with
# smp_failed and an 'smp' row (its NodeDescription was lost), is compared
# with nothing.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
source "$SRCDIR/tests/integration/checks.sh" # check eq HANG_MS
D=$(mktemp -d)
HOLD=
cleanup() {
	[[ -n $HOLD ]] && exec {HOLD}>&-
	fabsim_stop "$D/sim" > /dev/null 2>&1
	rm -rf "$D"
}
trap cleanup EXIT
db=$D/fab.db
q() { sqlite3 -readonly "$db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$db" --quiet "$@" 2>/dev/null; }
last() { q "SELECT max(scan_id) FROM scans"; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
console() { # a console command ibsim must accept (a refusal is a failure)
	fabsim_console "$D/sim" "$1" > "$D/console.out" && return 0
	fail=$((fail + 1))
	echo "FAIL: ibsim did not take '$1': $(cat "$D/console.out")"
	return 1
}
# ibsim's Dump shows each port's drop rate: true when every port of the
# fabric drops MADs at rate $1 (0: none does)
loss_everywhere() {
	local out ports with
	out=$(fabsim_console "$D/sim" Dump) || return 1
	ports=$(grep -cE '^[0-9a-f]+[[:space:]]+\[[0-9]+\]' <<< "$out")
	if (($1 == 0)); then
		with=$(grep -c 'err_rate' <<< "$out")
		[[ $with == 0 ]] && return 0
	else
		with=$(grep -cE "# err_rate $1(\s|\$)" <<< "$out")
		[[ $with == "$ports" && $ports -gt 0 ]] && return 0
	fi
	echo "  $with of $ports ports have the drop rate asked for ($1%)"
	return 1
}
nodes_of() { awk '$1 == "Switch" || $1 == "Hca" { gsub(/"/, "", $3); print $3 }' "$1"; }

# ---- comparison of scan $2 with the loss-free scan $1 (SQL on one database)
# Rows of $2 whose values differ from $1's for the same device or port.
wrong_nodes() { # $3 = strict: all but description and LID
	local more="OR (x.description IS NOT r.description AND NOT (x.description = '' AND x.smp_failed
	  AND EXISTS (SELECT 1 FROM scan_errors e WHERE e.scan_id = x.scan_id AND e.node_guid = x.node_guid
	    AND e.what = 'smp' AND e.port_num IS NULL))) OR (x.lid IS NOT NULL AND x.lid IS NOT r.lid)"
	[[ ${3:-} == strict ]] && more=
	q "SELECT x.node_guid || ' \"' || x.description || '\" vs \"' || r.description || '\" lid ' || ifnull(x.lid, 'NULL')
	     || ' vs ' || ifnull(r.lid, 'NULL')
	   FROM nodes x JOIN nodes r ON r.scan_id = $1 AND r.node_guid = x.node_guid
	   WHERE x.scan_id = $2 AND (x.node_type IS NOT r.node_type OR x.num_ports IS NOT r.num_ports
	     OR x.vendor_id IS NOT r.vendor_id OR x.device_id IS NOT r.device_id $more)"
}
wrong_ports() { # ports that were read: state, speeds, LIDs, the cable
	q "SELECT x.node_guid || '[' || x.port_num || '] ' || x.state || '/' || r.state || ' lid ' || ifnull(x.lid, 'NULL')
	     || '/' || ifnull(r.lid, 'NULL') || ' ' || ifnull(x.width_active, 'NULL') || ' ' || ifnull(x.speed_active, 'NULL')
	     || ' remote ' || ifnull(x.remote_guid, 'NULL') || '/' || ifnull(r.remote_guid, 'NULL')
	   FROM ports x JOIN ports r ON r.scan_id = $1 AND r.node_guid = x.node_guid AND r.port_num = x.port_num
	   WHERE x.scan_id = $2 AND NOT x.smp_failed AND (x.state IS NOT r.state OR x.phys_state IS NOT r.phys_state
	     OR x.width_active IS NOT r.width_active OR x.speed_active IS NOT r.speed_active
	     OR (x.lid IS NOT NULL AND x.lid IS NOT r.lid) OR x.mtu_active IS NOT r.mtu_active OR x.port_guid IS NOT r.port_guid
	     OR (x.remote_guid IS NOT NULL AND (x.remote_guid IS NOT r.remote_guid OR x.remote_port IS NOT r.remote_port)))"
}
wrong_links() { # width and speed NULL: unknown (the end they come from was not read)
	q "SELECT a_guid || '[' || a_port || '] ' || b_guid || '[' || b_port || ']' FROM links x WHERE scan_id = $2
	   AND NOT EXISTS (SELECT 1 FROM links r WHERE r.scan_id = $1 AND r.a_guid = x.a_guid AND r.a_port = x.a_port
	     AND r.b_guid = x.b_guid AND r.b_port = x.b_port AND (x.width IS NULL OR r.width IS x.width)
	     AND (x.speed IS NULL OR r.speed IS x.speed))"
}
# Error counters that only PerformanceSet changes. Not PortRcvErrors,
# PortXmitDiscards, VL15Dropped: ibsim counts the MADs it drops there; nor
# data and packet counters, which move with the MAD traffic itself.
ERRCTR="'SymbolErrorCounter','LinkErrorRecoveryCounter','LinkDownedCounter','PortRcvRemotePhysicalErrors',
	'LocalLinkIntegrityErrors','ExcessiveBufferOverrunErrors'"
wrong_counters() {
	q "SELECT x.node_guid || '[' || x.port_num || '] ' || x.counter || '=' || x.value || ' vs ' || ifnull(r.value, 'none')
	   FROM counters x LEFT JOIN counters r ON r.scan_id = $1 AND r.node_guid = x.node_guid
	     AND r.port_num = x.port_num AND r.counter = x.counter AND r.sample = 0
	   WHERE x.scan_id = $2 AND x.sample = 0 AND x.counter IN ($ERRCTR) AND r.value IS NOT x.value"
}
# What $1 has and $2 lacks, without a word about it in $2's scan_errors: a
# port that lost its counters must be flagged; a link that is missing must
# have an end named in scan_errors or an end device that is missing; a
# missing device must lie behind a named hole or unreadable port.
unexplained() {
	q "WITH err AS (SELECT node_guid || '/' || port_num AS k FROM scan_errors WHERE scan_id = $2),
	        seen AS (SELECT node_guid FROM nodes WHERE scan_id = $2)
	   SELECT 'port ' || r.node_guid || '[' || r.port_num || '] lost its counters silently' FROM ports r
	    WHERE r.scan_id = $1 AND EXISTS (SELECT 1 FROM ports x WHERE x.scan_id = $2
	      AND x.node_guid = r.node_guid AND x.port_num = r.port_num AND x.state = 'active')
	    AND EXISTS (SELECT 1 FROM counters c WHERE c.scan_id = $1 AND c.node_guid = r.node_guid AND c.port_num = r.port_num)
	    AND NOT EXISTS (SELECT 1 FROM counters c WHERE c.scan_id = $2 AND c.node_guid = r.node_guid AND c.port_num = r.port_num)
	    AND NOT EXISTS (SELECT 1 FROM ports x WHERE x.scan_id = $2 AND x.node_guid = r.node_guid
	      AND x.port_num = r.port_num AND (x.pma_failed OR x.smp_failed))
	   UNION ALL
	   SELECT 'link ' || a_guid || '[' || a_port || '] ' || b_guid || '[' || b_port || '] is missing silently' FROM links r
	    WHERE r.scan_id = $1 AND NOT EXISTS (SELECT 1 FROM links x WHERE x.scan_id = $2 AND x.a_guid = r.a_guid
	      AND x.a_port = r.a_port AND x.b_guid = r.b_guid AND x.b_port = r.b_port)
	    AND r.a_guid IN seen AND r.b_guid IN seen
	    AND r.a_guid || '/' || r.a_port NOT IN err AND r.b_guid || '/' || r.b_port NOT IN err
	   UNION ALL
	   SELECT 'node ' || node_guid || ' is missing and no hole is named' FROM nodes r
	    WHERE r.scan_id = $1 AND r.node_guid NOT IN seen
	    AND NOT EXISTS (SELECT 1 FROM scan_errors e WHERE e.scan_id = $2 AND e.what IN ('hole', 'smp'))"
}
# Waits (bounded) until the scan in pidfile $D/pid has taken its first
# counter sample and sleeps until the second (--interval): the phase before
# the counters is over (debug line) and it sleeps.
wait_interval() {
	local pid
	for ((w = 0; w < 1200; w++)); do
		pid=$(cat "$D/pid" 2>/dev/null) && grep -q '^scan: mcast' "$D/debug" 2>/dev/null &&
			[[ $(cat "/proc/$pid/wchan" 2>/dev/null) == *nanosleep* ]] && return 0
		sleep 0.05
	done
	echo "  the scan never reached the wait between its samples"
	return 1
}
# Waits (bounded) until the process in pidfile $1 blocks writing to a pipe.
wait_blocked() {
	local pid
	for ((w = 0; w < 300; w++)); do
		pid=$(cat "$1" 2>/dev/null) && [[ $(cat "/proc/$pid/wchan" 2>/dev/null) == *pipe_write* ]] && return 0
		sleep 0.05
	done
	echo "  the scan never blocked on its pipe"
	return 1
}
# After a fault is lifted: has the master SM sweep now (SIGHUP; a sweep
# under heavy loss can leave its routing half-programmed) and waits (bounded)
# until a scan is complete again with every port active.
settle() {
	local pid
	read -r _ pid _ < <(grep '^sm1 ' "$D/sim/pids")
	kill -HUP "$pid"
	for ((w = 0; w < 40; w++)); do
		sleep 0.25
		fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/settle.db" --quiet --timeout 200 2>/dev/null || continue
		[[ $(sqlite3 -readonly "$D/settle.db" "SELECT count(*) FROM ports WHERE state = 'active'
			AND scan_id = (SELECT max(scan_id) FROM scans)") == "$(want active_ports)" ]] && return 0
	done
	echo "FAIL: the fabric did not come back after the fault was lifted"
	return 1
}
none() { # command output must be empty
	local out
	out=$("$@")
	[[ -z $out ]] || { echo "$out" | head -5 | sed 's/^/  /'; return 1; }
}

# ---- the fabric: 4 leaves x 4 hosts, 2 spines; a standby SM on a switch
"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 -o "$D/net" --summary > "$D/summary" || exit 1
want() { awk -v k="$1" '$1 == k { print $2 }' "$D/summary"; }
fabsim_start "$D/net" "$D/sim" --sm-prio 10 --sm2-host leaf004 --sm2-prio 5 > /dev/null ||
	{ echo "FAIL: simulator did not start"; exit 1; }
# No SM while the loss and the dead PMA last: under loss OpenSM's own sweeps
# fail and re-initialise ports, which would change the fabric under the
# comparison. Without an SM, ports keep their LIDs and states.
fabsim_stop_sm "$D/sim" 2 > /dev/null
fabsim_stop_sm "$D/sim" 1 > /dev/null
# distinctive error counters, so that a value read for the wrong port shows
i=0
for p in 'leaf001"[1' 'leaf002"[3' 'spine001"[2' 'host0005"[1' 'host0012"[1'; do
	i=$((i + 1))
	console "PerformanceSet \"$p] PortCounters.SymbolErrorCounter=$((100 * i + 7))"
	console "PerformanceSet \"$p] PortCounters.LinkDownedCounter=$i"
	console "PerformanceSet \"$p] PortCounters.LinkErrorRecoveryCounter=$((10 * i + 3))"
done
scan --label reference
check "loss-free reference scan: exit 0" eq "$?" 0
ref=$(last)
check "reference: every node" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = $ref")" "$(want nodes)"

# ---- 1. MAD loss on every node
for engine in ibnetdisc native; do
for rate in 1 5 20; do
	L="loss $rate% ($engine)"
	for n in $(nodes_of "$D/net"); do printf 'Error "%s" %d\n' "$n" "$rate" > "$D/sim/ctl"; done
	console Attached
	check "$L: ibsim drops MADs on every port" loss_everywhere "$rate"
	t0=$(date +%s%N)
	before=$(last)
	fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$db" --quiet --label "loss-$rate-$engine" \
		--timeout 200 --discovery "$engine" 2> "$D/err"
	rc=$?
	took=$(ms_since "$t0")
	s=$(last)
	if ((rc == 3)); then
		# nothing to scan from: the local node's own NodeInfo was lost
		echo "$L: exit 3 in $took ms: $(cat "$D/err")"
		check "$L: exit 3 writes nothing" eq "$s" "$before"
		check "$L: exit 3 only when the local node did not answer after retries" \
			grep -q 'not even the local node answered' "$D/err"
		continue
	fi
	read -r status nodes links ctr errs < <(q "SELECT status, (SELECT count(*) FROM nodes n WHERE n.scan_id = s.scan_id),
		(SELECT count(*) FROM links l WHERE l.scan_id = s.scan_id),
		(SELECT count(DISTINCT node_guid || '/' || port_num) FROM counters c WHERE c.scan_id = s.scan_id),
		(SELECT count(*) FROM scan_errors e WHERE e.scan_id = s.scan_id) FROM scans s WHERE scan_id = $s" | tr '|' ' ')
	echo "$L: exit $rc in $took ms, $status: $nodes/$(want nodes) nodes, $links/$(want links) links," \
		"counters of $ctr/$(want active_ports) ports, $errs scan_errors"
	check "$L: exit 0 or 4 (3: the local node lost)" test "$rc" = 0 -o "$rc" = 4
	check "$L: bounded time" test "$took" -lt "$HANG_MS"
	check "$L: status matches what was missed" eq "$status/$rc" \
		"$( ((errs == 0)) && echo complete/0 || echo partial/4)"
	check "$L: devices as read: type, ports, vendor, device" none wrong_nodes "$ref" "$s" strict
	check "$L: devices as read: description and LID (or unknown, and named)" none wrong_nodes "$ref" "$s"
	check "$L: ports as read equal the loss-free scan's" none wrong_ports "$ref" "$s"
	check "$L: no LID 0 from a PortInfo that was not read" eq "$(q "SELECT count(*) FROM ports p JOIN nodes n
		USING (scan_id, node_guid) WHERE p.scan_id = $s AND p.lid = 0")" 0
	check "$L: links as read equal the loss-free scan's" none wrong_links "$ref" "$s"
	check "$L: error counters as read equal the loss-free scan's" none wrong_counters "$ref" "$s"
	check "$L: whatever is missing is named in scan_errors" none unexplained "$ref" "$s"
	check "$L: no counters (never zeros) for a port it could not read" eq \
		"$(q "SELECT count(*) FROM counters c JOIN ports p USING (scan_id, node_guid, port_num)
		      WHERE c.scan_id = $s AND p.pma_failed")" 0
done
done
for n in $(nodes_of "$D/net"); do printf 'Error "%s" 0\n' "$n" > "$D/sim/ctl"; done
console Attached
check "loss lifted: no port drops MADs" loss_everywhere 0

# ---- 2. a PMA that fails while SMPs work: host0006 and leaf003
console 'Error "host0006" 100 18'
console 'Error "leaf003" 100 18'
t0=$(date +%s%N)
# ibsim's Error matches the attribute id in any class: 0x12 is SwitchInfo
# too, so leaf003's forwarding table and the P_Key tables of its ports (the
# scan asks SwitchInfo for their size) would fail with its PMA (an SMP failure
# this part is not about): no tables here.
scan --timeout 200 --no-routes --no-pkeys
rc=$?
took=$(ms_since "$t0")
s=$(last)
console 'Error "host0006" 0'
console 'Error "leaf003" 0'
check "dead PMA: exit 4" eq "$rc" 4
check "dead PMA: bounded time (${took} ms)" test "$took" -lt "$HANG_MS"
check "dead PMA: topology complete (SMPs work)" eq \
	"$(q "SELECT count(*) FROM nodes WHERE scan_id = $s")/$(q "SELECT count(*) FROM links WHERE scan_id = $s")" \
	"$(want nodes)/$(want links)"
check "dead PMA: no SMP failure" eq "$(q "SELECT count(*) FROM scan_errors WHERE scan_id = $s AND what <> 'pma'")" 0
check "dead PMA: its ports are flagged, the others are not" eq "$(q "SELECT group_concat(DISTINCT n.description)
	FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $s AND p.pma_failed ORDER BY 1")" "host0006,leaf003"
check "dead PMA: every flagged port is named in scan_errors" eq "$(q "SELECT count(*) FROM ports p WHERE p.scan_id = $s
	AND p.pma_failed AND NOT EXISTS (SELECT 1 FROM scan_errors e WHERE e.scan_id = $s AND e.what = 'pma'
	AND e.node_guid = p.node_guid AND e.port_num = p.port_num)")" 0
check "dead PMA: no counters (never zeros) for its ports" eq "$(q "SELECT count(*) FROM counters c
	JOIN nodes n USING (scan_id, node_guid) WHERE c.scan_id = $s AND n.description IN ('host0006', 'leaf003')")" 0
check "dead PMA: every other active port has its counters" eq "$(q "SELECT count(DISTINCT node_guid || '/' || port_num)
	FROM counters WHERE scan_id = $s")" "$(q "SELECT count(*) FROM ports p WHERE p.scan_id = $s AND p.state = 'active'
	AND NOT p.pma_failed")"
check "dead PMA: the others' error counters are right" none wrong_counters "$ref" "$s"

# ---- 2b. a NodeDescription lost for good (16 = 0x10), then every PortInfo
# of a switch (21 = 0x15): unknown, said so, never '' or 0 passed off as read
console 'Error "host0003" 100 16'
scan --timeout 200
rc=$?
s=$(last)
console 'Error "host0003" 0'
h3=$(q "SELECT node_guid FROM nodes WHERE scan_id = $ref AND description = 'host0003'")
check "lost NodeDescription: exit 4, partial" eq "$rc/$(q "SELECT status FROM scans WHERE scan_id = $s")" 4/partial
check "lost NodeDescription: the node is kept, '' and smp_failed" eq "$(q "SELECT quote(description) || '/' || smp_failed
	FROM nodes WHERE scan_id = $s AND node_guid = '$h3'")" "''/1"
check "lost NodeDescription: one 'smp' row names it, nothing else missed" eq "$(q "SELECT group_concat(what || '@' ||
	ifnull(node_guid, '-') || '/' || ifnull(port_num, '-')) FROM scan_errors WHERE scan_id = $s")" "smp@$h3/-"
check "lost NodeDescription: its ports were read (only the description is unknown)" eq "$(q "SELECT count(*) FROM ports
	WHERE scan_id = $s AND node_guid = '$h3' AND NOT smp_failed AND lid > 0")" 1
console 'Error "leaf002" 100 21'
scan --timeout 200
rc=$?
s=$(last)
console 'Error "leaf002" 0'
l2=$(q "SELECT node_guid FROM nodes WHERE scan_id = $ref AND description = 'leaf002'")
check "lost PortInfo (leaf002): exit 4" eq "$rc" 4
check "lost PortInfo: the switch's LID is NULL, not 0" eq "$(q "SELECT quote(lid) FROM nodes WHERE scan_id = $s
	AND node_guid = '$l2'")" NULL
check "lost PortInfo: none of its ports has a LID, op_vls or cap_mask (NULL, never 0)" eq "$(q "SELECT count(*) FROM port_rows
	WHERE scan_id = $s AND node_guid = '$l2' AND (lid IS NOT NULL OR op_vls IS NOT NULL OR cap_mask IS NOT NULL)")" 0
check "lost PortInfo: each of its ports is smp_failed and named" eq "$(q "SELECT count(*) FROM port_rows p WHERE scan_id = $s
	AND node_guid = '$l2' AND smp_failed AND EXISTS (SELECT 1 FROM scan_errors e WHERE e.scan_id = $s AND e.what = 'smp'
	AND e.node_guid = p.node_guid AND e.port_num = p.port_num)")" "$(q "SELECT count(*) FROM port_rows
	WHERE scan_id = $s AND node_guid = '$l2'")"
check "lost PortInfo: everything else as the reference" none wrong_ports "$ref" "$s"
check "lost PortInfo: whatever is missing is named" none unexplained "$ref" "$s"

fabsim_start_sm "$D/sim" 1 > /dev/null && fabsim_start_sm "$D/sim" 2 > /dev/null ||
	{ echo "FAIL: the SMs did not come back"; exit 1; }
settle || exit 1

# ---- 3. a link pulled during a scan
# between the two counter samples: host0002's only cable goes away
rm -f "$D/pid"
FABSWEEP_SCAN_DEBUG=1 fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" scan --db "$db" --quiet --interval 10 \
	--timeout 200 2> "$D/debug" &
runner=$!
check "the scan waits between its two samples" wait_interval
console 'Unlink "host0002"'
t0=$(date +%s%N)
wait "$runner"
rc=$?
s=$(last)
check "unlink between samples: exit 0 or 4 (got $rc)" test "$rc" = 0 -o "$rc" = 4
check "unlink between samples: the scan ends in bounded time" test "$(ms_since "$t0")" -lt "$HANG_MS"
check "unlink between samples: topology as seen at the start" eq \
	"$(q "SELECT count(*) FROM links WHERE scan_id = $s")" "$(want links)"
check "unlink between samples: host0002 has no second sample (never zeros)" eq "$(q "SELECT count(*) FROM counters c
	JOIN nodes n USING (scan_id, node_guid) WHERE c.scan_id = $s AND n.description = 'host0002' AND c.sample = 1")" 0
check "unlink between samples: ... and that is named" eq "$(q "SELECT count(*) FROM scan_errors e JOIN nodes n USING (scan_id, node_guid)
	WHERE e.scan_id = $s AND n.description = 'host0002' AND e.what = 'pma'")" 1
check "unlink between samples: partial" eq "$rc/$(q "SELECT status FROM scans WHERE scan_id = $s")" 4/partial
console 'ReLink "host0002"'
settle || exit 1
# at random moments of short scans: every snapshot stays consistent
scan --label before-random-unlinks
ref=$(last)
peer=$(q "SELECT remote_guid || '/' || remote_port FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = $ref AND n.description = 'leaf002' AND p.port_num = 2")
leaf2=$(q "SELECT node_guid FROM nodes WHERE scan_id = $ref AND description = 'leaf002'")
for ((i = 0; i < 3; i++)); do
	fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$db" --quiet --timeout 200 --smps 2 --window 4 2>/dev/null &
	runner=$!
	sleep "0.0$((RANDOM % 10))"
	console 'Unlink "leaf002"[2]'
	wait "$runner"
	rc=$?
	s=$(last)
	check "unlink at a random moment ($i): exit 0 or 4 (got $rc)" test "$rc" = 0 -o "$rc" = 4
	check "unlink at a random moment ($i): links and cables agree" eq "$(q "SELECT count(*) FROM links l WHERE l.scan_id = $s
		AND NOT EXISTS (SELECT 1 FROM ports a JOIN ports b ON b.scan_id = a.scan_id WHERE a.scan_id = $s
		AND a.node_guid = l.a_guid AND a.port_num = l.a_port AND b.node_guid = l.b_guid AND b.port_num = l.b_port
		AND a.remote_guid = b.node_guid AND b.remote_guid = a.node_guid)")" 0
	check "unlink at a random moment ($i): every port but the cable's two ends as before" none \
		q "SELECT x.node_guid || '[' || x.port_num || ']' FROM ports x JOIN ports r ON r.scan_id = $ref
		   AND r.node_guid = x.node_guid AND r.port_num = x.port_num
		   WHERE x.scan_id = $s AND NOT x.smp_failed AND x.state IS NOT r.state
		   AND x.node_guid || '/' || x.port_num NOT IN ('$leaf2/2', '$peer')"
	console 'ReLink "leaf002"[2]'
done

# ---- 4. the master SM killed during a scan
sm_rows() { q "SELECT group_concat(ifnull(state, 'failed') || ':' || ifnull(priority, '?'), ' ') FROM sms WHERE scan_id = $1"; }
# 4a: during the counter interval: the end-of-scan SMInfo cannot be answered
rm -f "$D/pid"
FABSWEEP_SCAN_DEBUG=1 fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" scan --db "$db" --quiet --interval 10 \
	--timeout 200 2> "$D/debug" &
runner=$!
check "the scan waits between its two samples" wait_interval
fabsim_stop_sm "$D/sim" 1 --kill > /dev/null
t0=$(date +%s%N)
wait "$runner"
rc=$?
s=$(last)
read -r st a0 a1 < <(q "SELECT status, sm_act_start, sm_act_end FROM scans WHERE scan_id = $s" | tr '|' ' ')
echo "SM killed between samples: exit $rc, $st, sm_act_start $a0, sm_act_end $a1, SMs: $(sm_rows "$s"), missed: $(q "SELECT group_concat(what || ifnull('@' || port_num, ''), ' ') FROM scan_errors WHERE scan_id = $s")"
check "SM killed mid-scan: exit 4, bounded time" test "$rc" = 4 -a "$(ms_since "$t0")" -lt "$HANG_MS"
# the SMs are read at the end of the scan: the master no longer answers (the
# standby may have taken over by then: a master then, and a row saying so)
sm1_port=$(q "SELECT port_guid FROM sms WHERE scan_id = (SELECT max(scan_id) FROM sms WHERE scan_id < $s
	AND state = 'master' AND priority = 10) AND state = 'master'")
now_master=$(q "SELECT count(*) FROM sms WHERE scan_id = $s AND state = 'master'")
check "SM killed mid-scan: the master's port recorded as not answering (and not as master)" eq "$(q "SELECT count(*) FROM sms
	WHERE scan_id = $s AND failed AND port_guid = '$sm1_port'")/$(q "SELECT count(*) FROM sms WHERE scan_id = $s
	AND state = 'master' AND port_guid = '$sm1_port'")" "1/0"
check "SM killed mid-scan: its SMInfo failure named at its port, sm_act_start taken, sm_act_end unknown (0)" eq \
	"$(q "SELECT count(*) FROM scan_errors WHERE scan_id = $s AND what = 'sminfo' AND node_guid IS NOT NULL")/$(
	q "SELECT count(*) FROM scan_errors WHERE scan_id = $s AND what = 'sminfo' AND node_guid IS NULL")/$((a0 > 0))/$a1" \
	"1/$now_master/1/0"
check "SM killed mid-scan: counters of every active port" eq "$(q "SELECT count(DISTINCT node_guid || '/' || port_num)
	FROM counters WHERE scan_id = $s")" "$(q "SELECT count(*) FROM ports WHERE scan_id = $s AND state = 'active'")"

# 4b: before discovery, while the scan is held (its stderr is a full pipe):
# the standby takes over; the scan must say that the master changed
fabsim_stop "$D/sim" > /dev/null
fabsim_start "$D/net" "$D/sim" --sm-prio 10 --sm2-host leaf004 --sm2-prio 5 > /dev/null ||
	{ echo "FAIL: simulator did not restart"; exit 1; }
mkfifo "$D/errpipe"
exec {HOLD}<> "$D/errpipe"
head -c 65526 /dev/zero >&"$HOLD" # 10 bytes left: the scan's first debug line blocks
rm -f "$D/pid"
FABSWEEP_SCAN_DEBUG=1 fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" scan --db "$db" --quiet \
	--timeout 200 2>&"$HOLD" &
runner=$!
check "the scan took the master's ActCount and waits on its pipe" wait_blocked "$D/pid"
fabsim_stop_sm "$D/sim" 1 --kill > /dev/null
standby=
for ((i = 0; i < 150; i++)); do
	fabsim_run "$D/sim" -- sminfo 2>/dev/null | grep -q 'priority 5 state 3' && { standby=1; break; }
	sleep 0.1
done
check "the standby took over while the scan waited" test -n "$standby"
dd bs=65526 count=1 iflag=fullblock status=none <&"$HOLD" > /dev/null # release the scan
IFS= read -r -t 10 first <&"$HOLD"
check "the scan was held right after its first SMInfo" eq "${first%% *}" "scan:"
wait "$runner"
rc=$?
exec {HOLD}>&-
HOLD=
s=$(last)
read -r st a0 a1 < <(q "SELECT status, sm_act_start, sm_act_end FROM scans WHERE scan_id = $s" | tr '|' ' ')
echo "SM killed before discovery (standby took over): exit $rc, $st, sm_act_start $a0, sm_act_end $a1, SMs: $(sm_rows "$s"), missed: $(q "SELECT group_concat(what || ifnull('@' || port_num, ''), ' ') FROM scan_errors WHERE scan_id = $s")"
check "master changed: exit 0 or 4, topology complete" eq "$( ((rc == 0 || rc == 4)) && echo ok)/$(q "SELECT count(*) FROM nodes
	WHERE scan_id = $s")" "ok/$(want nodes)"
check "master changed: the new master is recorded" eq "$(q "SELECT count(*) FROM sms WHERE scan_id = $s AND state = 'master'
	AND priority = 5")" 1
check "master changed during the scan: the snapshot says so (an 'sminfo' row, partial, exit 4)" eq \
	"$(q "SELECT count(*) FROM scan_errors WHERE scan_id = $s AND what = 'sminfo' AND node_guid IS NULL
	  AND message LIKE 'the master SM changed during the scan, from port % to port %'")/$st/$rc" "1/partial/4"
check "master changed: sm_act_start is the first master's (taken at the start), sm_act_end unknown (0)" \
	test "$a0" -gt 0 -a "$a1" = 0

# 4c: no standby: the master (now the former standby) dies before discovery
# and nobody takes over
exec {HOLD}<> "$D/errpipe"
head -c 65526 /dev/zero >&"$HOLD"
rm -f "$D/pid"
FABSWEEP_SCAN_DEBUG=1 fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" scan --db "$db" --quiet \
	--timeout 200 2>&"$HOLD" &
runner=$!
wait_blocked "$D/pid"
fabsim_stop_sm "$D/sim" 2 --kill > /dev/null
sleep 0.5
dd bs=65526 count=1 iflag=fullblock status=none <&"$HOLD" > /dev/null
wait "$runner"
rc=$?
exec {HOLD}>&-
HOLD=
s=$(last)
read -r st a0 a1 < <(q "SELECT status, sm_act_start, sm_act_end FROM scans WHERE scan_id = $s" | tr '|' ' ')
echo "SM killed before discovery (no standby): exit $rc, $st, sm_act_start $a0, sm_act_end $a1, SMs: $(sm_rows "$s"), missed: $(q "SELECT group_concat(what || ifnull('@' || port_num, ''), ' ') FROM scan_errors WHERE scan_id = $s")"
check "no master left: exit 0 or 4, topology complete" eq "$( ((rc == 0 || rc == 4)) && echo ok)/$(q "SELECT count(*) FROM nodes
	WHERE scan_id = $s")" "ok/$(want nodes)"
check "no master left: sm_act_start is the master's count at the start" test "$a0" -gt 0
nfailed=$(q "SELECT count(*) FROM sms WHERE scan_id = $s AND failed")
check "no master left: the snapshot names the SMs that stopped answering" test "$nfailed" -ge 1 -a "$rc" = 4
check "no master left: ... each in scan_errors, and no master" eq "$(q "SELECT count(*) FROM scan_errors
	WHERE scan_id = $s AND what = 'sminfo'")/$(q "SELECT count(*) FROM sms WHERE scan_id = $s AND state = 'master'")" "$nfailed/0"

# ---- 5. two devices with one GUID (OpenSM must not exit: -y)
FABSIM_OPENSM_ARGS=-y fabsim_start_sm "$D/sim" 1 > /dev/null || { echo "FAIL: OpenSM -y did not start"; exit 1; }
dupguid=$(q "SELECT node_guid FROM nodes WHERE scan_id = $ref AND description = 'host0010'")
console "Guid \"host0011\" $dupguid"
# A counter of the second device only: its counters must be its own.
console 'PerformanceSet "host0011"[1] PortCounters.SymbolErrorCounter=77'
# node_idx of the two devices: each must be a node of its own, with
# its own port and cable to its own leaf port (remote_node_idx, never
# the GUID, tells the ends apart), both flagged.
dup_nodes() { q "SELECT group_concat(description || ':' || node_type || ':' || (flags_ok), ' ') FROM
	(SELECT n.description, n.node_type, (SELECT count(*) FROM scan_errors e WHERE e.scan_id = n.scan_id
	AND e.what = 'dup_guid' AND e.node_guid = n.node_guid AND e.port_num IS NULL
	AND e.message LIKE char(34) || n.description || char(34) || '%') AS flags_ok
	FROM nodes n WHERE n.scan_id = $s AND n.node_guid = '$dupguid' ORDER BY n.description)"; }
for engine in ibnetdisc native; do
	t0=$(date +%s%N)
	scan --timeout 200 --discovery "$engine"
	rc=$?
	took=$(ms_since "$t0")
	s=$(last)
	echo "duplicate GUID ($engine): exit $rc in $took ms, $(q "SELECT count(*) FROM nodes WHERE scan_id = $s") nodes, $(q "SELECT count(*) FROM links WHERE scan_id = $s") links, with the GUID: $(dup_nodes), errors: $(q "SELECT group_concat(what || ifnull('@' || port_num, ''), ' ') FROM scan_errors WHERE scan_id = $s")"
	check "duplicate GUID ($engine): exit 4 (partial: a fault is recorded), bounded time" eq \
		"$rc/$((took < HANG_MS))" 4/1
	check "duplicate GUID ($engine): both devices kept, never merged: all nodes and links" eq \
		"$(q "SELECT count(*) FROM nodes WHERE scan_id = $s")/$(q "SELECT count(*) FROM links WHERE scan_id = $s")" \
		"$(want nodes)/$(want links)"
	check "duplicate GUID ($engine): the GUID's two nodes are host0010 and host0011, each with a dup_guid row" eq \
		"$(dup_nodes)" "host0010:ca:1 host0011:ca:1"
	check "duplicate GUID ($engine): each has its own port and cable, to a different leaf port, both ends agreeing" eq \
		"$(q "SELECT count(DISTINCT n.node_idx) || '/' || count(DISTINCT r.node_idx || ':' || r.port_num) FROM nodes n
		JOIN port_rows p ON p.scan_id = n.scan_id AND p.node_idx = n.node_idx AND p.port_num > 0
		JOIN port_rows r ON r.scan_id = p.scan_id AND r.node_idx = p.remote_node_idx AND r.port_num = p.remote_port
		AND r.remote_node_idx = p.node_idx AND r.remote_port = p.port_num
		JOIN links l ON l.scan_id = n.scan_id AND ((l.a_node_idx = n.node_idx AND l.a_port = p.port_num)
		OR (l.b_node_idx = n.node_idx AND l.b_port = p.port_num))
		WHERE n.scan_id = $s AND n.node_guid = '$dupguid'")" 2/2
	check "duplicate GUID ($engine): no hole, nothing left out at a port" eq \
		"$(q "SELECT count(*) FROM scan_errors WHERE scan_id = $s AND (what = 'hole' OR (what = 'dup_guid' AND port_num IS NOT NULL))")" 0
	check "duplicate GUID ($engine): each device has its own counters (77 symbol errors set on host0011 only)" eq \
		"$(q "SELECT group_concat(v, ' ') FROM (SELECT n.description || '=' || c.SymbolErrorCounter AS v
		FROM nodes n JOIN port_counters c ON c.scan_id = n.scan_id AND c.node_idx = n.node_idx AND c.sample = 0
		WHERE n.scan_id = $s AND n.node_guid = '$dupguid' ORDER BY n.description)")" "host0010=0 host0011=77"
	fabsim_run "$D/sim" -- "$FABSWEEP" check --db "$db" --scan "$s" --quiet --fail-on never > /dev/null 2>&1
	check "duplicate GUID ($engine): rule guid.duplicate names both devices" eq \
		"$(q "SELECT group_concat(message, '|') FROM findings WHERE scan_id = $s AND rule_id = 'guid.duplicate'")" \
		"node GUID $dupguid is shared by two: host0010, host0011"
done
check "duplicate GUID: OpenSM still runs" fabsim_status "$D/sim"

echo "reliability_faults: $pass passed, $fail failed"
((fail == 0))
