#!/usr/bin/env bash
# fabsweep watch's link events on a simulated fat tree (ibsim + two real
# OpenSMs) with a real Alertmanager (docs/watch.md "Link events", "Alerts"):
#   - watch subscribes to the SM's traps (the simulator's Report path,
#     tests/tools/fabsim_reports.c preloaded, on a node of its own); an inter-switch link
#     picked at random, unlinked at a random moment, gives the notice (trap
#     128, with its arrival time), both ends' new states and port.down at
#     both ends, read by directed route because of the trap (the link probe
#     is an hour: it cannot be what found it), and an alert in Alertmanager
#     with the labels an operator routes on; linked again, port.down clears
#     and the alert resolves (watch posted its end: the row it kept is
#     gone only once Alertmanager took it);
#   - a port that saw a bad P_Key traps to the SM (smpset trap): the SM
#     forwards the security notice, watch stores it, sm.security_trap fires
#     and its alert goes out;
#   - the master SM fails, the standby takes over: watch subscribes at the
#     new master (which knows no subscription) and a link going down is
#     found through its trap again;
#   - Alertmanager stopped while a link goes down: watch goes on, says so
#     once, keeps the alert pending in the database; started again, the
#     alert arrives; watch restarted while the link is down holds port.down
#     on (since it was first seen) and the alert stays until the link is up;
#   - the master SM restarted in place between two sweeps: its ActCount
#     went back, watch subscribes again and the next trap comes through;
#   - without traps (--no-events: no subscription, so no SM forwards
#     anything) the link probe (--link-probe 2s) finds a link down within
#     its period; without the probe either, a LinkDownedCounter that moved
#     in a switch's AllPortSelect sum has its link states read at once;
#   - SIGTERM ends the subscription (OpenSM logs its removal);
#   - no SM runs: the subscription gets no answer, said once over a retry,
#     the link probe reads at the period asked for meanwhile, and the SM
#     back, the retry subscribes (no full scan needed);
#   - a host's link unlinked and linked again: OpenSM's own traps 65 and 64
#     (GID out of / in service, the GID the simulator gives that port, as
#     OpenSM logs it) each make a full scan at once, after the notice's
#     arrival, without and with that host; sweeps an hour apart, so none of
#     them saw the change.
# The link is picked among those that neither the SM's route to watch nor
# a trap's way to the SM can all cross (the simulator drops a Report whose
# route crossed the dead link; a real fabric too: the probe is there for
# that). Waits for database and Alertmanager states, never for fixed times
# (the random moment is a random pause before the Unlink).
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SMPSET:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
AMPID=""
stop_am() { [[ -n $AMPID ]] && kill "$AMPID" 2> /dev/null && wait "$AMPID" 2> /dev/null; AMPID=""; }
trap 'kill "$(cat "$D/pid" 2> /dev/null)" 2> /dev/null; stop_am; fabsim_stop "$D/sim" > /dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need sqlite3 prometheus-alertmanager curl python3 ibtracert
reports_build "$D"
q() { sqlite3 -readonly "$D/fab.db" "$@" 2> /dev/null; }
# waits WHAT CMD...: CMD succeeds within 30 s of wall time (some conditions
# ask Alertmanager and parse its answer: wait_for's count of tries would
# stretch far beyond its seconds on a busy machine)
within() {
	local secs=$1 what=$2 end
	shift 2
	end=$((SECONDS + secs * ${WAIT_SCALE:-1}))
	while ((SECONDS < end)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@" && return 0
	echo "  waited ${secs}s: $what never happened"
	return 1
}
waits() { local what=$1; shift; check "$what" within 30 "$what" "$@"; }
at_least() { [[ "$(q "$1")" -ge "$2" ]]; }

# Alertmanager on a free local port, its storage in $D
AMPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
AM=http://127.0.0.1:$AMPORT
printf 'route: {receiver: "none"}\nreceivers: [{name: "none"}]\n' > "$D/am.yml"
start_am() {
	prometheus-alertmanager --config.file "$D/am.yml" --storage.path "$D/am" \
		--web.listen-address="127.0.0.1:$AMPORT" --cluster.listen-address= >> "$D/am.log" 2>&1 &
	AMPID=$!
	within 30 "Alertmanager ready" curl -sf "$AM/-/ready" > /dev/null
}
# alert RULE NODE PORT: Alertmanager's active alert for that finding, as
# "severity node node_guid port peer endsAt" (empty when none)
alert() {
	curl -sf "$AM/api/v2/alerts" | python3 -c '
import json, sys
for a in json.load(sys.stdin):
    l = a["labels"]
    if l.get("alertname") == sys.argv[1] and l.get("node") == sys.argv[2] and l.get("port", "") == sys.argv[3] \
       and a["status"]["state"] == "active":
        print(l.get("severity"), l.get("node"), l.get("node_guid"), l.get("port"), l.get("peer", "-"),
              a["endsAt"], "remedy" if a["annotations"].get("remedy") else "no-remedy",
              "summary" if a["annotations"].get("summary") else "no-summary")' "$@"
}
has_alert() { [[ -n "$(alert "$@")" ]]; }
no_alert() { curl -sf "$AM/api/v2/alerts" > /dev/null && [[ -z "$(alert "$@")" ]]; }
check "Alertmanager starts" start_am

# 3 leaves x 2 hosts, 2 spines: leaf ports 1-2 hosts, 3 to spine001, 4 to
# spine002; spine port L to leaf L. SM 1 (master) on host0001, SM 2
# (standby) on host0003; watch on host0006.
"$FABGEN" --leaves 3 --spines 2 --hosts-per-leaf 2 -o "$D/net" || exit 1
# -D 0x07: OpenSM logs subscriptions added and removed (verbose)
FABSIM_OPENSM_ARGS="-D 0x07" fabsim_start "$D/net" "$D/sim" --sm-prio 10 --sm2-host host0003 \
	--sm2-prio 5 > /dev/null || exit 1
printf '[watch]\nhold = 2s\nalert_resend = 2s\n' > "$D/conf"
run_watch() { # OUT ARGS...: a watch on host0006, the simulator's Report path
	local out=$1
	shift
	# (a second per MAD before a resend: a busy machine's simulator is slow,
	# and a MAD that times out makes a full scan)
	LD_PRELOAD=$REPORTS_SO fabsim_run "$D/sim" --host host0006 --pidfile "$D/pid" -- "$FABSWEEP" watch \
		--db "$D/fab.db" --interval 1s --timeout 1000 --config "$D/conf" "$@" > "$out" 2> "$out.err" &
	WATCH=$!
}
# isl DB: the switch-to-switch links of DB's last full scan; probe_reads:
# the link states the first 7 of the sweep lines read on stdin read
isl() {
	sqlite3 -readonly "$1" "SELECT count(*) FROM links k JOIN nodes a ON a.scan_id = k.scan_id
		AND a.node_guid = k.a_guid JOIN nodes b ON b.scan_id = k.scan_id AND b.node_guid = k.b_guid
		WHERE k.scan_id = (SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL)
		AND a.node_type = 'switch' AND b.node_type = 'switch'"
}
probe_reads() { head -7 | sed -n 's/.*, \([0-9]*\) link states).*/\1/p' | awk '{ n += $1 } END { print n + 0 }'; }
# 0. without the Report path's shim, under the simulator, a subscription
# OpenSM accepts brings no Report (docs/watch.md): watch subscribes but does
# not count on traps, and probes the links at the period asked for (6 s
# from sweep 1 to 7, each link every 2 s: 2 reads a link at least; counting
# on traps, the tenth of that rate: 1 at most). The probe's cost bound would
# stretch a 2 s period on this fabric (3 reads a sweep against 10% of some
# 13 MADs: 1; 6 below and tests/integration/test_watch_probe_share.sh
# check it): no cap here (--link-probe-share 1), and in 4.
fabsim_run "$D/sim" --host host0006 --pidfile "$D/pid" -- "$FABSWEEP" watch --db "$D/plain.db" \
	--interval 1s --timeout 1000 --config "$D/conf" --link-probe 2s --link-probe-share 1 > "$D/out0" 2> "$D/out0.err" &
WATCH=$!
waits "without the shim: subscribed, no Report path said" grep -qx "watch: subscribed to the SM's traps at LID 1" "$D/out0"
plain_sweeps() { (($(grep -c "watch: sweep" "$D/out0") >= 7)); }
waits "... 7 sweeps" plain_sweeps
ISL=$(isl "$D/plain.db")
PROBED=$(grep "watch: sweep" "$D/out0" | probe_reads)
check "... the probe reads each of the $ISL links at its period ($PROBED reads in 7 sweeps)" \
	test "$PROBED" -ge "$((2 * ISL))"
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "... exit 0" eq "$?" 0

run_watch "$D/out" --link-probe 1h --alertmanager "$AM"
waits "subscribed at the master SM" grep -q "watch: subscribed to the SM's traps at LID 1 (the simulator's Report path)" "$D/out"
waits "a sweep" at_least 'SELECT count(*) FROM scans WHERE topology_scan_id IS NOT NULL' 1
FULL=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL')
WLID=$(q "SELECT lid FROM nodes WHERE scan_id = $FULL AND description = 'host0006'")
# watch's port GUID as OpenSM logs it (no leading zeros)
WPORT=$(printf '0x%x' "$(q "SELECT port_guid FROM ports WHERE scan_id = $FULL AND node_guid = (SELECT
	node_guid FROM nodes WHERE scan_id = $FULL AND description = 'host0006') AND port_num = 1")")
check "watch's port GUID" test "$WPORT" != 0x0
guid() { q "SELECT node_guid FROM nodes WHERE scan_id = $FULL AND description = '$1'"; }
check "OpenSM added the subscription" grep -q "Adding event subscription for port $WPORT" "$D/sim/osm.log"

# pick_link SMLID: a random switch-to-switch link, as "leafNNN P spineNNN Q",
# that is on the SM's route to watch neither at the leaf's side nor at the
# spine's, and whose spine end is not the one on the SM's leaf (that spine's
# trap would cross it to the SM, the leaf's may too: no trap at all)
pick_link() {
	local route
	route=$(fabsim_run "$D/sim" -- ibtracert "$1" "$WLID" 2> /dev/null |
		grep -o '"[a-z0-9]*"' | tr -d '"' | tr '\n' ' ')
	[[ -n $route ]] || { echo "ibtracert $1 $WLID found no route" >&2; return 1; }
	q "SELECT na.description, a.port_num, nb.description, b.port_num FROM links k
	   JOIN ports a ON a.scan_id = k.scan_id AND a.node_guid = k.a_guid AND a.port_num = k.a_port
	   JOIN ports b ON b.scan_id = k.scan_id AND b.node_guid = k.b_guid AND b.port_num = k.b_port
	   JOIN nodes na ON na.scan_id = k.scan_id AND na.node_guid = a.node_guid
	   JOIN nodes nb ON nb.scan_id = k.scan_id AND nb.node_guid = b.node_guid
	   WHERE k.scan_id = $FULL AND na.node_type = 'switch' AND nb.node_type = 'switch'" |
		awk -F'|' -v route=" $route " -v smleaf="$2" '{
			leaf = $1 ~ /^leaf/ ? $1 : $3; lp = $1 ~ /^leaf/ ? $2 : $4
			spine = $1 ~ /^leaf/ ? $3 : $1; sp = $1 ~ /^leaf/ ? $4 : $2
			# the route enters the spine from the SM leaf and leaves it to
			# watch leaf: a link of a spine on the route to either is out
			if (index(route, " " spine " ") && (leaf == smleaf || index(route, " " leaf " "))) next
			if (leaf == smleaf) next
			print leaf, lp, spine, sp }' | shuf -n 1
}
# down_pair LEAF P SPINE Q SINCE_ID: port.down at both ends in a scan after SINCE_ID
down_both() {
	[[ "$(q "SELECT count(DISTINCT node || '/' || port) FROM findings WHERE scan_id > $5
		AND rule_id = 'port.down' AND ((node = '$(guid "$1")' AND port = '$2')
		OR (node = '$(guid "$3")' AND port = '$4'))")" == 2 ]]
}
latest_sweep() { q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NOT NULL'; }
down_now() { # LEAF P: port.down in the latest sweep
	[[ "$(q "SELECT count(*) FROM findings WHERE scan_id = $(latest_sweep) AND rule_id = 'port.down'
		AND node = '$(guid "$1")' AND port = '$2'")" == 1 ]]
}
cleared() { ! down_now "$1" "$2" && ! down_now "$3" "$4"; }
unlink_at_random() { # LEAF P: after a random pause (the random moment), unlink it
	sleep "0.$((RANDOM % 10))"
	fabsim_console "$D/sim" "Unlink \"$1\"[$2]" > /dev/null || exit 1
}

# 1. a link goes down: the trap, both ends, port.down, the alert
read -r L1 P1 S1 Q1 <<< "$(pick_link 1 leaf001)" || exit 1
check "a link to unlink ($L1[$P1] <-> $S1[$Q1])" test -n "$S1"
B1=$(q 'SELECT max(scan_id) FROM scans')
unlink_at_random "$L1" "$P1"
waits "port.down at both ends of $L1/$P1" down_both "$L1" "$P1" "$S1" "$Q1" "$B1"
check "the notice: trap 128 with its arrival time" ge "$(q "SELECT count(*) FROM events WHERE scan_id > $B1
	AND kind = 'notice' AND trap = 128 AND at LIKE '20__-__-__T__:__:__.___Z'")" 1
check "... a switch of the link issued it" ge "$(q "SELECT count(*) FROM events WHERE scan_id > $B1
	AND kind = 'notice' AND trap = 128 AND node_guid IN ('$(guid "$L1")', '$(guid "$S1")')")" 1
check "both ends' new states, read because of the trap" eq "$(q "SELECT count(DISTINCT node_guid || port_num)
	FROM events WHERE scan_id > $B1 AND kind = 'port' AND cause = 'trap' AND was_state = 'active'
	AND state = 'down' AND ((node_guid = '$(guid "$L1")' AND port_num = $P1)
	OR (node_guid = '$(guid "$S1")' AND port_num = $Q1))")" 2
check "... stored with the run the notice started" eq "$(q "SELECT count(DISTINCT scan_id) FROM events
	WHERE scan_id = (SELECT min(scan_id) FROM events WHERE scan_id > $B1 AND kind = 'notice')
	AND kind = 'port'")" 1
# the simulator's own answer (smpquery; by LID, once OpenSM has rerouted)
sim_state() { fabsim_run "$D/sim" -- smpquery portinfo "$(q "SELECT lid FROM nodes WHERE scan_id = $FULL
	AND description = '$1'")" "$2" 2> /dev/null | grep -q "^LinkState:\.*$3\$"; }
check "the leaf's end is Down as the simulator says (smpquery)" within 10 "smpquery: Down" sim_state "$L1" "$P1" Down
check "printed" has "$D/out" "\"$L1\" port $P1: active -> down (trap"
waits "the alert in Alertmanager" has_alert port.down "$L1" "$P1"
read -r SEV NAME NG PORT PEER ENDS REMEDY SUMMARY <<< "$(alert port.down "$L1" "$P1")"
check "labels: severity, node, GUID, port, peer" eq "$SEV $NAME $NG $PORT $PEER" \
	"error $L1 $(guid "$L1") $P1 $S1/$Q1"
check "annotations: summary and remedy" eq "$REMEDY $SUMMARY" "remedy summary"
check "the other end's alert too" has_alert port.down "$S1" "$Q1"
# re-sent every alert_resend (2 s), each valid for four of those: endsAt moves on
renewed() { [[ "$(alert port.down "$L1" "$P1" | awk '{ print $6 }')" > "$ENDS" ]]; }
waits "the alert is re-sent before it would expire" renewed
check "watch's alerts table has it firing" eq "$(q "SELECT count(*) FROM alerts WHERE rule_id = 'port.down'
	AND node = '$(guid "$L1")' AND port = '$P1' AND ends_at IS NULL AND sent_at IS NOT NULL")" 1
# linked again: cleared, resolved
B2=$(q 'SELECT max(scan_id) FROM scans')
fabsim_console "$D/sim" "Link \"$L1\"[$P1] \"$S1\"[$Q1]" > /dev/null || exit 1
waits "port.down clears when the link is Active again" cleared "$L1" "$P1" "$S1" "$Q1"
check "... read Active" ge "$(q "SELECT count(*) FROM events WHERE scan_id > $B2 AND kind = 'port'
	AND state = 'active' AND node_guid = '$(guid "$L1")' AND port_num = $P1")" 1
check "... without a full scan" eq "$(q "SELECT count(*) FROM scans WHERE scan_id > $B2 AND topology_scan_id IS NULL")" 0
# watch gives the alert its end and deletes its row only once Alertmanager
# took that end: the alert is resolved, it did not expire
gone() { [[ "$(q "SELECT count(*) FROM alerts WHERE rule_id = 'port.down'")" == 0 ]]; }
waits "watch delivers the alerts' ends" gone
check "the alert is resolved in Alertmanager" no_alert port.down "$L1" "$P1"

# 1b. a port that saw a bad P_Key tells the SM (a Trap(Notice) 257 as a
# channel adapter sends it: smpset trap); the SM forwards the security
# notice, watch stores it and sm.security_trap fires at that node
H2=$(q "SELECT lid FROM nodes WHERE scan_id = $FULL AND description = 'host0002'")
B1B=$(q 'SELECT max(scan_id) FROM scans')
fabsim_run "$D/sim" --host host0002 -- "$SMPSET" trap 1 "$H2" 257 9 "$H2" 0x8001 || exit 1
security() { [[ "$(q "SELECT count(*) FROM events WHERE scan_id > $B1B AND kind = 'notice' AND trap = 257
	AND lid = $H2 AND detail = 'bad P_Key 0x8001 from LID 9 to LID $H2'")" == 1 ]]; }
waits "the SM forwarded the security notice, stored as it says" security
check "OpenSM reported it" grep -q 'Reporting Security Notice "Bad P_Key" from LID '"$H2" "$D/sim/osm.log"
check "sm.security_trap at the port's node, in the run the notice started" eq "$(q "SELECT count(*)
	FROM findings WHERE scan_id = (SELECT scan_id FROM events WHERE scan_id > $B1B AND trap = 257)
	AND rule_id = 'sm.security_trap' AND node = '$(guid host0002)' AND message LIKE '%(trap 257)%'")" 1
waits "its alert in Alertmanager" has_alert sm.security_trap host0002 ""

# 2. the master SM fails; the standby takes over and knows no subscription
SM2LID=$(q "SELECT lid FROM sms WHERE scan_id = $FULL AND state = 'standby'")
fabsim_stop_sm "$D/sim" 1 || exit 1
waits "subscribed at the new master" grep -q "watch: subscribed to the SM's traps at LID $SM2LID " "$D/out"
check "... which added it" grep -q "Adding event subscription for port $WPORT" "$D/sim/osm2.log"
FULL=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL')
read -r L2 P2 S2 Q2 <<< "$(pick_link "$SM2LID" leaf002)" || exit 1
B3=$(q 'SELECT max(scan_id) FROM scans')
unlink_at_random "$L2" "$P2"
waits "after the failover: port.down at both ends of $L2/$P2" down_both "$L2" "$P2" "$S2" "$Q2" "$B3"
check "... through a trap the new master forwarded" ge "$(q "SELECT count(*) FROM events WHERE scan_id > $B3
	AND kind = 'port' AND cause = 'trap' AND node_guid IN ('$(guid "$L2")', '$(guid "$S2")')")" 1
fabsim_console "$D/sim" "Link \"$L2\"[$P2] \"$S2\"[$Q2]" > /dev/null || exit 1
waits "cleared again" cleared "$L2" "$P2" "$S2" "$Q2"

# 3. Alertmanager down while a link goes down, then back
stop_am
T_STOP=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
read -r L3 P3 S3 Q3 <<< "$(pick_link "$SM2LID" leaf002)" || exit 1
B4=$(q 'SELECT max(scan_id) FROM scans')
unlink_at_random "$L3" "$P3"
waits "with Alertmanager down: port.down stored" down_both "$L3" "$P3" "$S3" "$Q3" "$B4"
waits "watch says once that it cannot post" grep -q "watch: warning: cannot post alerts to '$AM/api/v2/alerts'" "$D/out"
# (a link picked twice may have an alert whose end was not delivered yet:
# firing again, last sent before Alertmanager stopped)
pending() { [[ "$(q "SELECT count(*) FROM alerts WHERE rule_id = 'port.down' AND node = '$(guid "$L3")'
	AND port = '$P3' AND ends_at IS NULL AND (sent_at IS NULL OR sent_at < '$T_STOP')")" == 1 ]]; }
check "the alert is pending in the database" pending
check "... said once" eq "$(grep -c "cannot post alerts" "$D/out")" 1
waits "watch goes on sweeping" at_least "SELECT count(*) FROM scans WHERE scan_id > $B4" 3
check "Alertmanager starts again" start_am
waits "the alert arrives" has_alert port.down "$L3" "$P3"
check "watch says it is delivered" has "$D/out" "takes alerts again"

# SIGTERM: the subscription ends
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "SIGTERM: exit 0" eq "$?" 0
check "the subscription is ended on exit" grep -q "Removing event subscription for port $WPORT" "$D/sim/osm2.log"
check "... one that existed" lacks "$D/sim/osm2.log" "ERR 4307"
check "no error output" eq "$(cat "$D/out.err")" ""
# a restarted watch carries the link that is still down on (its first full
# scan has no baseline to raise it again): port.down held from when it was
# first seen down, the alert not resolved
SINCE=$(q "SELECT substr(evidence, instr(evidence, 'since=')) FROM findings WHERE rule_id = 'port.down'
	AND node = '$(guid "$L3")' AND port = '$P3' AND scan_id = (SELECT max(scan_id) FROM scans)")
B7=$(q 'SELECT max(scan_id) FROM scans')
run_watch "$D/out1b" --link-probe 1h --alertmanager "$AM"
waits "the restarted watch's full scan and a sweep" at_least "SELECT count(*) FROM scans WHERE scan_id > $B7
	AND topology_scan_id = (SELECT min(scan_id) FROM scans WHERE scan_id > $B7)" 1
check "... holds port.down on, since it was first seen" eq "$(q "SELECT count(*) FROM findings WHERE
	rule_id = 'port.down' AND node = '$(guid "$L3")' AND port = '$P3' AND evidence LIKE '%$SINCE'
	AND scan_id = (SELECT min(scan_id) FROM scans WHERE scan_id > $B7)")" 1
check "... the alert still active" has_alert port.down "$L3" "$P3"
fabsim_console "$D/sim" "Link \"$L3\"[$P3] \"$S3\"[$Q3]" > /dev/null || exit 1
waits "cleared" cleared "$L3" "$P3" "$S3" "$Q3"
waits "... and resolved" no_alert port.down "$L3" "$P3"
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "restarted watch: exit 0" eq "$?" 0

# 3c. the master SM restarted in place between two sweeps (a service
# restart): the new process knows no subscription; its SMInfo ActCount went
# back, so watch scans and subscribes again, and a trap comes through
run_watch "$D/out1c" --interval 5s --link-probe 1h
waits "a watch sweeping every 5 s subscribed" grep -q "watch: subscribed to the SM's traps at LID $SM2LID " "$D/out1c"
sweeps() { grep -c "watch: sweep" "$D/out1c"; }
N=$(sweeps)
more_sweeps() { (($(sweeps) > N)); }
waits "... a sweep" more_sweeps
OFF=$(stat -c %s "$D/sim/osm2.log")
fabsim_stop_sm "$D/sim" 2 || exit 1
FABSIM_OPENSM_ARGS="-D 0x07" fabsim_start_sm "$D/sim" 2 --host host0003 --prio 5 > /dev/null || exit 1
waits "the restart is seen by the next sweep (ActCount went back)" grep -q "the master SM (.*, LID $SM2LID) restarted: its ActCount went back" "$D/out1c"
resubscribed() { tail -c "+$((OFF + 1))" "$D/sim/osm2.log" | grep "Adding event subscription for port $WPORT" > /dev/null; }
waits "... watch subscribed at the restarted SM" resubscribed
FULL=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL')
read -r L6 P6 S6 Q6 <<< "$(pick_link "$SM2LID" leaf002)" || exit 1
B8=$(q 'SELECT max(scan_id) FROM scans')
unlink_at_random "$L6" "$P6"
waits "after the restart: port.down at both ends of $L6/$P6" down_both "$L6" "$P6" "$S6" "$Q6" "$B8"
check "... through a trap" ge "$(q "SELECT count(*) FROM events WHERE scan_id > $B8 AND kind = 'port'
	AND cause = 'trap' AND node_guid IN ('$(guid "$L6")', '$(guid "$S6")')")" 1
fabsim_console "$D/sim" "Link \"$L6\"[$P6] \"$S6\"[$Q6]" > /dev/null || exit 1
waits "cleared" cleared "$L6" "$P6" "$S6" "$Q6"
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "watch over the restart: exit 0" eq "$?" 0

# 4. no traps: the link probe alone, within its period
run_watch "$D/out2" --no-events --link-probe 2s --link-probe-share 1
waits "the second watch sweeps" grep -q "watch: sweep 2," "$D/out2"
check "it did not subscribe" lacks "$D/out2" "subscribed"
check "... its probe not capped (--link-probe-share 1): nothing said of it" lacks "$D/out2" "link probe:"
FULL=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL')
read -r L4 P4 S4 Q4 <<< "$(pick_link "$SM2LID" leaf002)" || exit 1
B5=$(q 'SELECT max(scan_id) FROM scans')
T5=$(date +%s.%N)
unlink_at_random "$L4" "$P4"
waits "the probe finds port.down at both ends of $L4/$P4" down_both "$L4" "$P4" "$S4" "$Q4" "$B5"
by_probe() {
	[[ "$(q "SELECT count(*) FROM events WHERE scan_id > $B5 AND kind = 'port' AND cause = 'probe'
		AND state = 'down'")" -ge 1 ]] && return 0
	tail -5 "$D/out2" | sed 's/^/    /'
	return 1
}
check "... by the probe" by_probe
# within the period (2 s) and one sweep (1 s) of the Unlink, and a second for a busy machine
READ=$(q "SELECT (julianday(min(at)) - 2440587.5) * 86400 FROM events WHERE scan_id > $B5 AND kind = 'port'
	AND state = 'down'")
check "... read within its period of the Unlink" awk -v a="$T5" -v b="$READ" 'BEGIN { exit !(b - a <= 4.0) }'
fabsim_console "$D/sim" "Link \"$L4\"[$P4] \"$S4\"[$Q4]" > /dev/null || exit 1
waits "cleared by the probe's reads" cleared "$L4" "$P4" "$S4" "$Q4"
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "second watch: exit 0" eq "$?" 0

# 5. no traps, no probe: a switch's LinkDownedCounter sum that moves (as on
# hardware when a link goes down; ibsim never moves it: PerformanceSet) has
# the switch's link states read at once
run_watch "$D/out3" --no-events --link-probe off
waits "the third watch sweeps" grep -q "watch: sweep 2," "$D/out3"
FULL=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL')
read -r L5 P5 S5 Q5 <<< "$(pick_link "$SM2LID" leaf002)" || exit 1
B6=$(q 'SELECT max(scan_id) FROM scans')
fabsim_console "$D/sim" "Unlink \"$L5\"[$P5]" > /dev/null || exit 1
fabsim_console "$D/sim" "PerformanceSet \"$L5\"[$P5] PortCounters.LinkDownedCounter=1" > /dev/null || exit 1
waits "LinkDownedCounter moved: port.down at both ends of $L5/$P5" down_both "$L5" "$P5" "$S5" "$Q5" "$B6"
check "... read because of it" ge "$(q "SELECT count(*) FROM events WHERE scan_id > $B6 AND kind = 'port'
	AND cause = 'link_downed' AND state = 'down'")" 1
check "... in the sweep that saw the counter" eq "$(q "SELECT count(*) FROM findings WHERE rule_id =
	'port.link_flapping' AND node = '$(guid "$L5")' AND port = '$P5' AND scan_id = (SELECT min(scan_id)
	FROM events WHERE scan_id > $B6 AND cause = 'link_downed')")" 1
check "no probe reads" eq "$(q "SELECT count(*) FROM events WHERE scan_id > $B6 AND cause = 'probe'")" 0
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "third watch: exit 0" eq "$?" 0

# 6. no SA answers (no SM runs: the standby stopped in 2, the master now):
# watch started with traps on says once that the subscription got no
# answer, probes the links at the period asked for (not the tenth of it a
# subscription allows) as far as its default cost bound lets it (10% of a
# sweep's MADs: one read a sweep here, said with the period it makes),
# tries again every 5 s (said once over at least one retry: 7 sweeps, a
# second apart at least), and subscribes once an SM is master again. (No link goes down here: with no SM the LID routes across it
# never heal, and the sweep's LIDs that stop answering would find it.)
fabsim_stop_sm "$D/sim" 2 || exit 1
run_watch "$D/out4" --link-probe 2s
NOSA="watch: warning: the SA at LID $SM2LID did not answer to the subscription; the link probe finds links that go down (tried again every 5 s)"
waits "no SA: watch says so" grep -qF "$NOSA" "$D/out4"
after_nosa() { sed -n "\|$NOSA|,\$p" "$D/out4" | grep "watch: sweep"; }
retried() { (($(after_nosa | wc -l) >= 7)); }
waits "... 7 sweeps after it (a retry due)" retried
check "... said once" eq "$(grep -c "did not answer to the subscription" "$D/out4")" 1
# the default cap: one read a sweep (10% of under 20 MADs), so each of the
# L links every L sweeps (L s), not every 2 s: said once; sweeps 3 to 7
# (sweep 1 owes nothing, and sweep 2 may follow it at once: the
# subscription's wait took the first interval), one read each, 5 (at the
# tenth of the period, L x 5 / 20: under 2 for L = 6)
ISL=$(isl "$D/fab.db")
capped_note() {
	local n
	n=$(grep -c '^watch: link probe:' "$D/out4")
	[[ $n == 1 ]] && grep -qE "^watch: link probe: each of the $ISL switch-to-switch links read within about $ISL s, not 2 s: at most 10% of a sweep's 1?[0-9] MADs \(\[watch\] link_probe_share\)$" "$D/out4" && return 0
	echo "  said $n times:"; grep '^watch: link probe:' "$D/out4" | sed 's/^/    /'
	return 1
}
check "... the default cap said once: each of the $ISL links within $ISL s, not 2 s" capped_note
PROBED=$(after_nosa | sed -n 3,7p | probe_reads)
check "... the probe reads one link a sweep, the cap ($PROBED reads in sweeps 3 to 7)" eq "$PROBED" 5
# (its log flushed at each line from now on: 7 reads OpenSM's notices in it)
sed -i 's/^force_log_flush .*/force_log_flush TRUE/' "$D/sim/sm2/opensm.conf"
check "OpenSM's log flushed at each line" grep -q '^force_log_flush TRUE' "$D/sim/sm2/opensm.conf"
FABSIM_OPENSM_ARGS="-D 0x07" fabsim_start_sm "$D/sim" 2 --host host0003 --prio 5 > /dev/null || exit 1
waits "the SM back: watch subscribes" grep -q "watch: subscribed to the SM's traps at LID $SM2LID " "$D/out4"
check "... still said once" eq "$(grep -c "did not answer to the subscription" "$D/out4")" 1
check "... by a retry (no full scan since the first)" eq "$(grep -c "^watch: scan " "$D/out4")" 1
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "watch without an SA: exit 0" eq "$?" 0

# 7. a host's link out and back: OpenSM itself sends trap 65 (its drop
# manager: GID out of service) and trap 64 (the sweep that finds the port
# again: in service), naming the port's GID; each makes a full scan at once.
# Sweeps an hour apart, probe off: no sweep can be what saw the change.
run_watch "$D/out5" --interval 1h --link-probe off
waits "a watch sweeping hourly subscribed" grep -q "watch: subscribed to the SM's traps at LID $SM2LID " "$D/out5"
waits "... its first sweep" at_least "SELECT count(*) FROM scans WHERE topology_scan_id = (SELECT
	max(scan_id) FROM scans WHERE topology_scan_id IS NULL)" 1
# host0002's port GUID as the simulator answers it (smpquery)
HPG=$(fabsim_run "$D/sim" -- smpquery nodeinfo "$H2" 2> /dev/null | sed -n 's/^PortGuid:\.*//p')
NN=$(q "SELECT count(*) FROM nodes WHERE scan_id = (SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL)")
check "host0002's port GUID (smpquery: $HPG) is the scan's" eq "$HPG" "$(printf '0x%016x' "$(q "SELECT
	port_guid FROM ports WHERE scan_id = $FULL AND node_guid = '$(guid host0002)' AND port_num = 1")")"
# gid_scan TRAP SINCE: the full scan that trap made (after SINCE's scan id),
# stored before the sweep that carries the notice (the first after it)
gid_scan() {
	q "SELECT s.scan_id FROM events e JOIN scans w ON w.scan_id = e.scan_id JOIN scans s
	   ON s.scan_id = w.topology_scan_id WHERE e.scan_id > $2 AND e.kind = 'notice' AND e.trap = $1
	   AND e.node_guid = '$HPG' AND s.scan_id > $2 AND s.started_at >= e.at"
}
has_gid_scan() { [[ -n "$(gid_scan "$@")" ]]; }
# that port's GID as OpenSM logs it (fe80::2:c901:0:21)
HGID=fe80::$(printf '%s' "${HPG#0x}" | fold -w4 | sed 's/^0*\(.\)/\1/' | paste -sd: | sed 's/^0://')
# reported OFFSET TEXT: OpenSM logged that notice for that GID after OFFSET
# (grep reads it all: grep -q ending early would make tail fail on a broken
# pipe, and pipefail the whole)
reported() {
	tail -c "+$(($1 + 1))" "$D/sim/osm2.log" | grep -F "Reporting Informational Notice \"$2\", GID:$HGID" > /dev/null
}
# gid_event TRAP COMMAND OSM-TEXT WORDS NODES HAS: after the console COMMAND,
# that trap for host0002's port and the full scan it made (NODES nodes,
# host0002 among them HAS times), as OpenSM logged it and watch printed it
gid_event() {
	local trap=$1 cmd=$2 osm=$3 words=$4 nodes=$5 has=$6 off b t f
	off=$(stat -c %s "$D/sim/osm2.log")
	b=$(q 'SELECT max(scan_id) FROM scans')
	t=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
	fabsim_console "$D/sim" "$cmd" > /dev/null || exit 1
	waits "$cmd: trap $trap for host0002's port ($HPG), then a full scan" has_gid_scan "$trap" "$b"
	f=$(gid_scan "$trap" "$b")
	check "... OpenSM reported $osm" reported "$off" "$osm"
	check "... the notice arrived after the command" eq "$(q "SELECT count(*) FROM events WHERE scan_id > $b
		AND trap = $trap AND at >= '$t'")" 1
	check "... printed" has "$D/out5" "watch: trap $trap from LID $SM2LID (port $HPG $words service): full scan"
	check "... the full scan has $nodes nodes, host0002 $has times" eq "$(q "SELECT count(*),
		sum(description = 'host0002') FROM nodes WHERE scan_id = $f")" "$nodes|$has"
	check "... the only full scan since" eq "$(q "SELECT count(*) FROM scans WHERE scan_id > $b
		AND topology_scan_id IS NULL")" 1
}
gid_event 65 'Unlink "host0002"[1]' "GID out of service" "out of" "$((NN - 1))" 0
gid_event 64 'Link "host0002"[1] "leaf001"[2]' "GID in service" in "$NN" 1
check "no sweep saw a topology change" lacks "$D/out5" "topology changed"
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "hourly watch: exit 0" eq "$?" 0
check "integrity" eq "$(q 'PRAGMA integrity_check')" ok

# what made watch scan again, for a failure's reader
((fail == 0)) || grep "topology changed\|warning\|subscribed" "$D"/out* | sed "s|^$D/|  watch said: |"
echo "$pass passed, $fail failed"
((fail == 0))
