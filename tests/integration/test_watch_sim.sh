#!/usr/bin/env bash
# fabsweep watch on a simulated fabric (ibsim + real OpenSM): one full scan,
# then counter sweeps every 300 ms. Errors injected between sweeps (ibsim
# PerformanceSet) on a switch port and a host port, a flap (LinkDownedCounter),
# a saturated counter and a reset are each stored at their port by the first
# sweep after the simulator has them, judged by the counter rules there and
# held for the hold time, and nothing else is; each sweep reads one AllPortSelect sum
# per switch and per-port counters only where a sum moved; a sweep is a
# snapshot check, report and the SQL views understand; a host that stops
# answering (ibsim Unlink), the master SM leaving and another GUID answering
# at a LID (ibsim Guid) each make watch scan again; SIGTERM commits the sweep
# in progress and exits 0. The Prometheus textfile's values: watch held
# (SIGSTOP) between two sweeps around counters set in the simulator, the
# rates by hand from the values set and the sweeps' times in the database,
# every series from the database's rows (tests/tools/prom_db.py).
# Waits for database states, never for fixed times.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'kill "$(cat "$D/pid" 2> /dev/null)" 2> /dev/null; kill -CONT "$(cat "$D/pid" 2> /dev/null)" 2> /dev/null; fabsim_stop "$D/sim" > /dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need sqlite3 promtool python3
q() { sqlite3 -readonly "$D/fab.db" "$@" 2> /dev/null; }
now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
# The sweep (scan id) that first stored counter $3 of "$1"[$2] with value $4.
stored_in() {
	q "SELECT min(c.scan_id) FROM counters c JOIN nodes n USING (scan_id, node_guid)
	   WHERE n.description = '$1' AND c.port_num = $2 AND c.counter = '$3' AND c.value = $4
	   AND c.scan_id > 1"
}
# waits WHAT CMD...: a check that CMD succeeds within 60 s (wait_for runs a
# command, so each condition below is a function)
waits() { local what=$1; shift; check "$what" wait_for 60 "$what" "$@"; }
at_least() { [[ "$(q "$1")" -ge "$2" ]]; }
is_stored() { [[ -n "$(stored_in "$@")" ]]; }
# How many sweeps, of those that started after time $2, came before sweep $1 (0: the first).
sweeps_before() { q "SELECT count(*) FROM scans WHERE topology_scan_id IS NOT NULL AND started_at > '$2' AND scan_id < $1"; }

# 2 leaves x 2 hosts, 2 spines: leaf ports 1-2 hosts, 3 to spine001, 4 to spine002.
"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 2 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1

printf '[watch]\nhold = 2s\n' > "$D/conf"
fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" watch --db "$D/fab.db" --interval 300ms \
	--config "$D/conf" --prometheus "$D/w.prom" > "$D/out" 2> "$D/err" &
WATCH=$!
waits "the full scan and two sweeps" at_least 'SELECT count(*) FROM scans WHERE topology_scan_id = 1' 2
check "scan 1 is the full scan" eq "$(q 'SELECT topology_scan_id IS NULL FROM scans WHERE scan_id = 1')" 1
check "the first sweep reads every port" has "$D/out" "watch: sweep 1, scan 2: 0 ports changed; 22 MADs (4 sums, 16 ports,"
check "later sweeps: a sum per switch, the hosts' own counters" has "$D/out" "watch: sweep 2, scan 3: 0 ports changed; 1"
check "... 4 sums and 4 host ports" has "$D/out" "(4 sums, 4 ports,"
check "no counter rows in sweeps without changes" eq "$(q 'SELECT count(*) FROM port_counters WHERE scan_id > 1')" 0
check "a sweep has its topology through the views" eq "$(q 'SELECT count(*) FROM links WHERE scan_id = 3')" \
	"$(q 'SELECT count(*) FROM links WHERE scan_id = 1')"

# errors on a spine port (found through its switch's sum) and a host port
fabsim_console "$D/sim" 'PerformanceSet "spine002"[2] PortCounters.SymbolErrorCounter=33' > /dev/null || exit 1
T1=$(now) # the simulator has the new value: every sweep started from now on reads it
fabsim_console "$D/sim" 'PerformanceSet "host0003"[1] PortCounters.PortRcvErrors=4' > /dev/null || exit 1
T2=$(now)
waits "the switch port's errors stored" is_stored spine002 2 SymbolErrorCounter 33
waits "the host port's errors stored" is_stored host0003 1 PortRcvErrors 4
S1=$(stored_in spine002 2 SymbolErrorCounter 33) S2=$(stored_in host0003 1 PortRcvErrors 4)
# found by the first sweep that started after the simulator had it (the one
# running then may have read the port before): within two sweeps
check "switch port found by the first sweep after the change" eq "$(sweeps_before "$S1" "$T1")" 0
check "host port found by the first sweep after the change" eq "$(sweeps_before "$S2" "$T2")" 0
check "nothing else stored" eq "$(q 'SELECT count(*) FROM port_counters WHERE scan_id > 1')" 2
# (the two changes may land in one sweep: count the switch port's alone)
check "only the error counters and PortXmitWait of a change" eq \
	"$(q "SELECT count(*) FROM counters c JOIN nodes n USING (scan_id, node_guid)
	      WHERE c.scan_id = $S1 AND n.description = 'spine002' AND c.port_num = 2")" 13

# the counter rules judged each change in its sweep; findings only there
guid() { q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND description = '$1'"; }
GS=$(guid spine002) GH=$(guid host0003)

# the Prometheus textfile, rewritten after each sweep: the values as swept,
# and rates since the write before for every linked port (16 ports; each
# file is renamed into place whole, so a read sees one write)
prom_has_value() { grep -qx "fabsweep_port_errors_total{node_guid=\"$GS\",port=\"2\",counter=\"SymbolErrorCounter\"} 33" "$D/w.prom" 2>/dev/null; }
waits "the textfile has the swept value" prom_has_value
cp "$D/w.prom" "$D/w1.prom"
check "rates since the write before, every linked port" eq \
	"$(grep -c '^fabsweep_port_error_rate_per_second{.*counter="SymbolErrorCounter"}' "$D/w1.prom")" 16
check "promtool check metrics on watch's textfile" promtool check metrics < "$D/w1.prom"
finding() { q "SELECT count(*) FROM findings WHERE scan_id = $1 AND rule_id = '$2' AND node = '$3' AND port = '$4'"; }
check "port.errors at spine002/2 in its sweep" eq "$(finding "$S1" port.errors "$GS" 2)" 1
check "port.error_increase at host0003/1 in its sweep" eq "$(finding "$S2" port.error_increase "$GH" 1)" 1
check "no finding at another port" eq "$(q "SELECT count(*) FROM findings f JOIN scans s USING (scan_id)
	WHERE s.topology_scan_id IS NOT NULL AND NOT (f.node = '$GS' AND f.port = '2')
	AND NOT (f.node = '$GH' AND f.port = '1')")" 0
check "sweeps are marked checked" eq "$(q "SELECT count(*) FROM checks WHERE scan_id = $S1")" 1
# held: in the sweeps after the change for the hold time (2 s), then gone
held_after() { # sweeps started between $1 and $2 ms after S1 that hold the finding
	q "SELECT count(*) FROM scans s JOIN findings f USING (scan_id) WHERE f.rule_id = 'port.errors'
	   AND f.node = '$GS' AND f.port = '2' AND f.evidence LIKE '%held_since=%'
	   AND julianday(s.started_at) > julianday((SELECT started_at FROM scans WHERE scan_id = $S1)) + $1 / 86400000.0
	   AND julianday(s.started_at) < julianday((SELECT started_at FROM scans WHERE scan_id = $S1)) + $2 / 86400000.0"
}
after_hold() { # a sweep started 2.5 s after S1 exists
	at_least "SELECT count(*) FROM scans WHERE topology_scan_id IS NOT NULL AND julianday(started_at) >
		julianday((SELECT started_at FROM scans WHERE scan_id = $S1)) + 2500 / 86400000.0" 1
}
waits "a sweep after the hold time" after_hold
check "the finding is held in the next sweeps" ge "$(held_after 0 1800)" 1
check "... not after the hold time" eq "$(held_after 2500 100000)" 0
check "a held finding is stored without a counter row" eq \
	"$(q "SELECT count(*) FROM port_counters WHERE scan_id > $S1 AND scan_id > $S2")" 0

# a flapping link, a saturated counter and a reset, each between sweeps
inject() { # console command, then the time from which every sweep sees it
	fabsim_console "$D/sim" "$1" > /dev/null || exit 1
	now
}
GL1=$(guid leaf001) GL2=$(guid leaf002)
T3=$(inject 'PerformanceSet "leaf001"[3] PortCounters.LinkDownedCounter=1')
T4=$(inject 'PerformanceSet "leaf002"[1] PortCounters.SymbolErrorCounter=65535')
T5=$(inject 'PerformanceSet "spine002"[2] PortCounters.SymbolErrorCounter=0')
waits "the flap stored" is_stored leaf001 3 LinkDownedCounter 1
waits "the saturated counter stored" is_stored leaf002 1 SymbolErrorCounter 65535
waits "the reset stored" is_stored spine002 2 SymbolErrorCounter 0
S3=$(stored_in leaf001 3 LinkDownedCounter 1) S4=$(stored_in leaf002 1 SymbolErrorCounter 65535)
S5=$(stored_in spine002 2 SymbolErrorCounter 0)
check "flap found by the first sweep after it" eq "$(sweeps_before "$S3" "$T3")" 0
check "saturation found by the first sweep after it" eq "$(sweeps_before "$S4" "$T4")" 0
check "reset found by the first sweep after it" eq "$(sweeps_before "$S5" "$T5")" 0
check "port.link_flapping at leaf001/3" eq "$(finding "$S3" port.link_flapping "$GL1" 3)" 1
check "port.errors at leaf002/1, saturated" eq "$(q "SELECT count(*) FROM findings WHERE scan_id = $S4
	AND rule_id = 'port.errors' AND node = '$GL2' AND port = '1' AND message LIKE '%(saturated)%'")" 1
check "the reset raises nothing new" eq "$(q "SELECT count(*) FROM findings WHERE scan_id = $S5
	AND node = '$GS' AND evidence NOT LIKE '%held_since=%'")" 0
check "still nothing at another port" eq "$(q "SELECT count(*) FROM findings f JOIN scans s USING (scan_id)
	WHERE s.topology_scan_id IS NOT NULL AND NOT (f.node = '$GS' AND f.port = '2')
	AND NOT (f.node = '$GH' AND f.port = '1') AND NOT (f.node = '$GL1' AND f.port = '3')
	AND NOT (f.node = '$GL2' AND f.port = '1')")" 0
check "one counter row per change" eq "$(q 'SELECT count(*) FROM port_counters WHERE scan_id > 1')" 5

# the sweep is a snapshot the commands understand
L=$((S1 > S2 ? S1 : S2)) # the sweep with both changes, before the reset below
fabsim_run "$D/sim" -- "$FABSWEEP" check --db "$D/fab.db" --scan "$L" --baseline 1 --fail-on never > "$D/check"
check "check of a sweep against the full scan exits 0" eq "$?" 0
check "check: the switch port's errors" has "$D/check" "spine002/2"
check "check: the host port's errors" has "$D/check" "host0003/1"
fabsim_run "$D/sim" -- "$FABSWEEP" report --db "$D/fab.db" --scan "$L" --html "$D/r.html" > /dev/null
check "report of a sweep" has "$D/r.html" "spine002"

# The textfile's values, each compared with a computation: watch is stopped
# (SIGSTOP) in its pause between sweeps, after the textfile of the sweep it
# printed last; counters are set in the simulator; it goes on, and is
# stopped again in the pause after the next sweep, whose file then stays.
# That file's rates are the values set here over the seconds between the
# two sweeps' finished_at in the database; every other series of it is what
# tests/tools/prom_db.py computes from the database's rows.
WPID=$(cat "$D/pid")
sleep 60 & # a process in its sleep: the number of the syscall a pause is in
SLEEPER=$!
asleep() { local st; read -r _ _ st _ < "/proc/$SLEEPER/stat" && [[ $st == S ]]; }
check "a process asleep" wait_for 10 "a sleeping process" asleep
read -r SLEEP_NR _ < "/proc/$SLEEPER/syscall"
kill "$SLEEPER"
last_sweep() { sed -nE 's/^watch: sweep [0-9]+, scan ([0-9]+):.*/\1/p' "$D/out" | tail -1; }
paused() { # SIGSTOP watch; true when it stopped in its pause (else it goes on)
	local st i
	kill -STOP "$WPID" || return 1
	for ((i = 0; i < 200; i++)); do
		read -r _ _ st _ < "/proc/$WPID/stat"
		[[ $st == T ]] && break
		sleep 0.01
	done
	read -r st _ < "/proc/$WPID/syscall"
	[[ $st == "$SLEEP_NR" ]] && return 0
	kill -CONT "$WPID"
	return 1
}
ms_of() { date -u -d "$(q "SELECT $1 FROM scans WHERE scan_id = $2")" +%s%3N; }
# pre-values, then the values a round sets: name port counter pre new
ROUND=('spine001 1 SymbolErrorCounter 100 140'   # +40
	'spine001 1 VL15Dropped 0 3'                 # +3, a second counter of the port
	'host0003 1 PortRcvErrors 500 20'            # a reset: 20 since
	'spine002 1 LocalLinkIntegrityErrors 3 15'   # 4 bits saturated: +12 or more
	'leaf001 4 LinkErrorRecoveryCounter 7 255'   # 8 bits saturated: +248 or more
	'host0001 1 PortXmitDiscards 0 9'            # a host's own port: +9
	# leaf002's sum of SymbolErrorCounter is saturated (leaf002/1 is): it
	# cannot move, so a sweep reads leaf002's ports for this one
	'leaf002 2 SymbolErrorCounter 1 6')          # +5
set_all() { # column of ROUND (4: pre, 5: new)
	local r
	for r in "${ROUND[@]}"; do
		set -- $r
		fabsim_console "$D/sim" "PerformanceSet \"$1\"[$2] PortCounters.$3=${!col}" > /dev/null || return 1
	done
}
in_file() { # every value of column $col in the textfile
	local r
	for r in "${ROUND[@]}"; do
		set -- $r
		grep -qx "fabsweep_port_errors_total{node_guid=\"$(guid "$1")\",port=\"$2\",counter=\"$3\"} ${!col}" \
			"$D/w.prom" 2> /dev/null || return 1
	done
}
caught=""
for attempt in 1 2 3; do
	col=4
	set_all || exit 1
	waits "the pre-values in the textfile (attempt $attempt)" in_file || break
	check "watch stopped in its pause" wait_for 30 "a pause" paused
	X0=$(last_sweep)
	col=5
	set_all || { kill -CONT "$WPID"; exit 1; }
	kill -CONT "$WPID"
	# the next sweep's file: stopped in the pause after it (polled tightly:
	# the sweep after that rewrites the file 300 ms later)
	for ((i = 0; i < 3000; i++)); do
		[[ $(last_sweep) -gt $X0 ]] && paused && break
		sleep 0.02
	done
	X=$(last_sweep)
	cp "$D/w.prom" "$D/w2.prom"
	kill -CONT "$WPID"
	check "the stopped watch's last sweep is the database's last scan" eq "$(q 'SELECT max(scan_id) FROM scans')" "$X"
	[[ $X == $((X0 + 1)) ]] && caught=$X && break
	echo "  (attempt $attempt: stopped after sweep $X, not $((X0 + 1)), the first after the change; again)"
done
check "the textfile of the sweep after the change caught" test -n "$caught"
check "... that sweep stored the new values" eq "$(q "SELECT count(*) FROM port_counters WHERE scan_id = $X")" 6
# by hand: the increases set above over the seconds between the two writes
secs=$(awk -v a="$(ms_of finished_at "$X0")" -v b="$(ms_of finished_at "$X")" 'BEGIN { printf "%.6f", (b - a) / 1000 }')
EXP=()
for r in "${ROUND[@]}"; do
	set -- $r
	case $3 in # increase: docs/counters.md
	PortRcvErrors) inc=$5 reset=1 ;;
	*) inc=$(($5 - $4)) reset=0 ;;
	esac
	lbl="node_guid=\"$(guid "$1")\",port=\"$2\",counter=\"$3\""
	EXP+=(--expect "fabsweep_port_errors_total{$lbl}=$5"
		--expect "fabsweep_port_error_increase{$lbl}=$inc"
		--expect "fabsweep_port_error_reset{$lbl}=$reset"
		--expect "fabsweep_port_error_rate_per_second{$lbl}=$(awk -v i="$inc" -v s="$secs" 'BEGIN { printf "%.12g", i / s }')")
done
for r in 'spine002 1 LocalLinkIntegrityErrors' 'leaf001 4 LinkErrorRecoveryCounter'; do
	set -- $r
	EXP+=(--expect "fabsweep_port_error_saturated{node_guid=\"$(guid "$1")\",port=\"$2\",counter=\"$3\"}=1")
done
F=$(q "SELECT topology_scan_id FROM scans WHERE scan_id = $X")
check "watch textfile: rates by hand over ${secs}s, every series as the database says" \
	python3 "$SRCDIR/tests/tools/prom_db.py" --db "$D/fab.db" --file "$D/w2.prom" --scan "$X" \
	--watch-since "$X0" --topology "$F" "${EXP[@]}"

# a host that stops answering: watch scans again
fabsim_console "$D/sim" 'Unlink "host0004"[1]' > /dev/null || exit 1
waits "a second full scan" at_least 'SELECT count(*) FROM scans WHERE topology_scan_id IS NULL' 2
check "the reason is printed" has "$D/out" '"host0004" (0x'
# (a sweep's counter read or its NodeInfo check meets the dead LID first,
# whichever the sweep reaches first)
lid_silent() { grep -qE 'LID [0-9]+ did not answer( to NodeInfo)?\): full scan' "$D/out" || { sed 's/^/    /' "$D/out" | tail -5; return 1; }; }
check "... its LID did not answer" lid_silent
F2=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL')
waits "a sweep of the new topology" at_least "SELECT count(*) FROM scans WHERE topology_scan_id = $F2" 1
check "the new topology lacks the host" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = $F2 AND description = 'host0004'")" 0
# port.down: the full scan is judged against the one before; both ends of the
# link that went down (leaf002/2, and host0004/1 that no longer answers) stay
# raised, with since when, in every sweep until the port is Active again
GL2=$(guid leaf002) GH4=$(guid host0004)
down_in() { q "SELECT count(*) FROM findings WHERE scan_id = $1 AND rule_id = 'port.down' AND ((node = '$GL2' AND port = '2') OR (node = '$GH4' AND port = '1'))$2"; }
check "port.down at both ends in the full scan" eq "$(down_in "$F2" "")" 2
waits "two sweeps of the new topology" at_least "SELECT count(*) FROM scans WHERE topology_scan_id = $F2" 2
W2=$(q "SELECT max(scan_id) FROM scans WHERE topology_scan_id = $F2")
check "... held in its sweeps, with since when" eq "$(down_in "$W2" " AND evidence LIKE '%; since=%'")" 2
check "... stored once: one row and one hold per end" eq \
	"$(q "SELECT (SELECT count(*) FROM finding_rows WHERE rule_id = 'port.down') || ' ' || (SELECT count(*) FROM finding_holds WHERE rule_id = 'port.down')")" "2 2"
check "sweeps probe the down switch port" has "$D/out" "down ports among them"
# the link comes back: the sweep's probe of leaf002/2 sees it Active, a full scan follows
fabsim_console "$D/sim" 'Link "leaf002"[2] "host0004"[1]' > /dev/null || exit 1
fabsim_resweep "$D/sim" > /dev/null || exit 1
waits "a third full scan" at_least 'SELECT count(*) FROM scans WHERE topology_scan_id IS NULL' 3
check "... because the port is Active again" has "$D/out" '"leaf002" (0x'
check "... named as such" has "$D/out" "port 2 is Active again): full scan"
F3=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL')
waits "a sweep after the link came back" at_least "SELECT count(*) FROM scans WHERE topology_scan_id = $F3" 1
W3=$(q "SELECT max(scan_id) FROM scans WHERE topology_scan_id = $F3")
check "port.down cleared" eq "$(down_in "$W3" "")" 0
check "... in the full scan too" eq "$(down_in "$F3" "")" 0

# SIGTERM: the sweep in progress is committed, exit 0
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "SIGTERM: exit 0" eq "$?" 0
check "SIGTERM: says it stopped" has "$D/out" "watch: stopped after"
check "the last scan printed is the last stored" has "$D/out" "last scan $(q 'SELECT max(scan_id) FROM scans')"
check "no error output" eq "$(cat "$D/err")" ""
# the textfile watch left: that of its last complete scan, a sweep of the
# topology after the link came back (rates since the write before it) or
# that full scan itself (no rates)
X=$(q "SELECT max(scan_id) FROM scans WHERE status = 'complete'")
F=$(q "SELECT coalesce(topology_scan_id, scan_id) FROM scans WHERE scan_id = $X")
P=$(q "SELECT max(scan_id) FROM scans WHERE scan_id < $X AND status = 'complete' AND coalesce(topology_scan_id, scan_id) = $F")
check "the last textfile: of the topology after the link came back" eq "$F" "$F3"
check "... every series as the database says" python3 "$SRCDIR/tests/tools/prom_db.py" --db "$D/fab.db" \
	--file "$D/w.prom" --scan "$X" ${P:+--watch-since "$P"} --topology "$F"

# Topology changes that keep the LIDs answering. Every LID's GUID is
# confirmed on every sweep (--verify-every 1).
fulls() { q 'SELECT count(*) FROM scans WHERE topology_scan_id IS NULL'; }
swept_after_full() {
	at_least "SELECT count(*) FROM scans WHERE topology_scan_id =
		(SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL)" 1
}
fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" watch --db "$D/fab.db" --interval 300ms \
	--verify-every 1 > "$D/out2" 2> "$D/err2" &
WATCH=$!
N=$(($(fulls) + 1))
waits "the second watch's full scan and a sweep" at_least \
	'SELECT count(*) FROM scans WHERE topology_scan_id IS NULL' "$N"
waits "... its first sweep" swept_after_full
# (8 nodes, host0004 back, and the master SM)
waits "a sweep that confirms every LID" grep -qE "[0-9] ports, [0-9]+ details, 9 checks\)" "$D/out2"
# the master SM goes away (ports keep their LIDs without an SM)
fabsim_stop_sm "$D/sim" || exit 1
waits "a full scan after the master SM left" at_least \
	'SELECT count(*) FROM scans WHERE topology_scan_id IS NULL' $((N + 1))
check "the master SM is the reason" has "$D/out2" "topology changed (the master SM ("
waits "a sweep of the topology without an SM" swept_after_full
# another adapter at host0002's place, same LID (no SM to give it another)
G=$(q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND description = 'host0002'")
fabsim_console "$D/sim" 'Guid "host0002" 0x0002c901000000aa' > /dev/null || exit 1
waits "a full scan after the GUID change" at_least \
	'SELECT count(*) FROM scans WHERE topology_scan_id IS NULL' $((N + 2))
check "another GUID at the LID is the reason" has "$D/out2" "is 0x0002c901000000aa now, not \"host0002\" ($G)"
waits "a sweep of the new adapter's topology" swept_after_full
check "the new topology has the new GUID" eq "$(q "SELECT description FROM nodes WHERE node_guid = '0x0002c901000000aa'
	AND scan_id = (SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL)")" host0002
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "second watch: exit 0" eq "$?" 0
check "second watch: no error output" eq "$(cat "$D/err2")" ""
check "integrity" eq "$(q 'PRAGMA integrity_check')" ok

echo "$pass passed, $fail failed"
((fail == 0))
