#!/usr/bin/env bash
# Subnet managers on a simulated fabric with two real OpenSMs: the master (on a
# host) and the standby (on a switch: IsSM lives on its port 0) are recorded
# with states and priorities, and the master's ActCount is taken at the start
# and the end of the scan; an SM that hangs (SIGSTOP) costs bounded time and is
# recorded as failed (exit 4); with no SM running the scan still completes and
# simply records none.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
stopped=""
cleanup() {
	[[ -n $stopped ]] && kill -CONT "$stopped" 2>/dev/null
	fabsim_stop "$D/sim" >/dev/null 2>&1
	rm -rf "$D"
}
trap cleanup EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@"; }

"$FABGEN" --leaves 2 --spines 1 --hosts-per-leaf 2 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" --sm-prio 10 --sm2-host leaf002 --sm2-prio 5 > /dev/null || exit 1

# 1: master and standby
scan
rc=$?
check "scan exits 0" eq "$rc" 0
check "two SMs" eq "$(q "SELECT count(*) FROM sms WHERE scan_id = 1")" 2
check "master on host0001, priority 10" eq "$(q "SELECT n.description || ' ' || s.port_num || ' ' || s.priority
	FROM sms s JOIN nodes n USING (scan_id, node_guid) WHERE s.scan_id = 1 AND s.state = 'master'")" "host0001 1 10"
check "standby on leaf002 port 0, priority 5" eq "$(q "SELECT n.description || ' ' || s.port_num || ' ' || s.priority
	FROM sms s JOIN nodes n USING (scan_id, node_guid) WHERE s.scan_id = 1 AND s.state = 'standby'")" "leaf002 0 5"
check "SM port GUIDs and LIDs" eq "$(q "SELECT count(*) FROM sms s JOIN ports p USING (scan_id, node_guid, port_num)
	WHERE s.scan_id = 1 AND s.port_guid = p.port_guid AND s.lid = p.lid")$(q "SELECT count(*) FROM sms s
	JOIN mgmt_ports m USING (scan_id, node_guid) WHERE s.scan_id = 1 AND s.lid = m.lid")" "11"
check "ActCount recorded" test "$(q "SELECT act_count FROM sms WHERE scan_id = 1 AND state = 'master'")" -gt 0
check "sm_act_start <= sm_act_end, both set" eq "$(q "SELECT sm_act_start > 0 AND sm_act_end >= sm_act_start FROM scans WHERE scan_id = 1")" 1
check "no SM failure" eq "$(q "SELECT count(*) FROM sms WHERE scan_id = 1 AND failed")" 0

# 2: the standby hangs: SMInfo to it is never answered
read -r _ pid _ < <(grep '^sm2 ' "$D/sim/pids")
kill -STOP "$pid" && stopped=$pid
start=$(date +%s%N)
scan --timeout 200 --retries 2
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
kill -CONT "$pid" && stopped=""
check "hung SM: exit 4 (partial)" eq "$rc" 4
check "hung SM: bounded time (${took} ms)" test "$took" -lt "$HANG_MS"
check "hung SM: recorded as failed" eq "$(q "SELECT failed || ' ' || ifnull(state, 'NULL') FROM sms s JOIN nodes n USING (scan_id, node_guid)
	WHERE s.scan_id = 2 AND n.description = 'leaf002'")" "1 NULL"
check "hung SM: one sminfo error" eq "$(q "SELECT count(*) FROM scan_errors WHERE scan_id = 2 AND what = 'sminfo'")" 1
check "hung SM: master still recorded" eq "$(q "SELECT count(*) FROM sms WHERE scan_id = 2 AND state = 'master'")" 1
check "hung SM: counters still read" eq "$(q "SELECT count(DISTINCT node_guid || port_num) FROM counters WHERE scan_id = 2")" \
	"$(q "SELECT count(DISTINCT node_guid || port_num) FROM counters WHERE scan_id = 1")"

# 3: no SM at all: a fact, not an error
fabsim_stop_sm "$D/sim" 2
fabsim_stop_sm "$D/sim" 1
scan --timeout 200
rc=$?
check "no SM: exit 0 (complete)" eq "$rc" 0
check "no SM: no SM rows" eq "$(q "SELECT count(*) FROM sms WHERE scan_id = 3")" 0
check "no SM: no errors" eq "$(q "SELECT count(*) FROM scan_errors WHERE scan_id = 3")" 0
check "no SM: ActCounts 0" eq "$(q "SELECT sm_act_start || ' ' || sm_act_end FROM scans WHERE scan_id = 3")" "0 0"
check "no SM: topology complete" eq "$(q "SELECT count(*) FROM links WHERE scan_id = 3")" \
	"$(q "SELECT count(*) FROM links WHERE scan_id = 1")"

echo "scan_sm: $pass passed, $fail failed"
((fail == 0))
