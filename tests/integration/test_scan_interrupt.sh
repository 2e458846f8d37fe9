#!/usr/bin/env bash
# A real `fabsweep scan` on a simulated fabric, killed part-way: SIGKILL at
# random moments never leaves a half snapshot and never changes earlier ones;
# SIGTERM and SIGINT end a scan with a message and exit 3, writing nothing.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
db=$D/fab.db
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$db" --quiet "$@"; }
# Waits until the pid in $D/pid has exec'd fabsweep (bounded); prints the
# pid. Returns 2 when the runner ($runner) ended first: on a busy machine a
# whole scan can run while this loop waits for a CPU. Builtins only in the
# loop but for the sleep: every fork is a chance to be descheduled.
started() {
	local pid=
	for _ in $(seq 2000); do
		[[ -s $D/pid ]] && read -r pid < "$D/pid" && [[ /proc/$pid/exe -ef $FABSWEEP ]] &&
			{ echo "$pid"; return 0; }
		kill -0 "$runner" 2>/dev/null || return 2
		sleep 0.005
	done
	return 1
}
# A scan that did not start in time: end it and free its simulator slot, so
# that it cannot hold the simulator for the scans after it.
give_up() {
	pkill -KILL -f -- "--db $db" 2>/dev/null
	wait "$runner" 2>/dev/null
	rm -f "$D/pid"
	fabsim_reap "$D/sim" >/dev/null 2>&1
}
snapshot_dump() { # everything scans 1..$1 hold
	for t in scans nodes port_rows links port_counters sms scan_errors findings; do
		sqlite3 -readonly "$db" "SELECT * FROM $t WHERE scan_id <= $1 ORDER BY 1, 2, 3"
	done | md5sum
}

"$FABGEN" --leaves 16 --spines 8 --hosts-per-leaf 16 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" >/dev/null || exit 1

scan --label one && scan --label two && ok || bad "baseline scans failed"
base=$(snapshot_dump 2)
nodes=$(sqlite3 -readonly "$db" "SELECT count(*) FROM nodes WHERE scan_id = 1")
ports=$(sqlite3 -readonly "$db" "SELECT count(*) FROM port_rows WHERE scan_id = 1")
links=$(sqlite3 -readonly "$db" "SELECT count(*) FROM links WHERE scan_id = 1")
# how long fabsweep itself runs, from its exec to its exit
fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" scan --db "$db" --quiet --label timing &
runner=$!
started >/dev/null
start=$(date +%s%N)
wait "$runner"
scan_ms=$((($(date +%s%N) - start) / 1000000 + 1))
rm -f "$D/pid"

# SIGKILL at 100 random moments across the whole scan, commit included
# (scripts/test.sh's sanitizer pass sets KILL_ITERATIONS=25: that pass is
# about memory errors, and 100 kills under ASan cost minutes). On a busy
# machine a scan takes several times longer: after KILL_SECONDS (240) the
# loop stops, once it has killed at least 20 scans.
iterations=${KILL_ITERATIONS:-100} early=0 kill_end=$((SECONDS + ${KILL_SECONDS:-240}))
for ((i = 0; i < iterations; i++)); do
	((i >= 20 && SECONDS > kill_end)) && { echo "stopped after $i kills: KILL_SECONDS reached"; iterations=$i; break; }
	fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" scan --db "$db" --quiet --label "killed-$i" 2>"$D/kill.err" &
	runner=$!
	pid=$(started)
	case $? in
	0) ;;
	2) # it ran to its end before it was seen: fine if it succeeded
		wait "$runner" && early=$((early + 1)) ||
			bad "scan $i failed (exit $?), stderr: $(head -c 300 "$D/kill.err")"
		rm -f "$D/pid"
		continue ;;
	*)
		bad "scan $i did not start (pid file: $(cat "$D/pid" 2>/dev/null), stderr: $(head -c 300 "$D/kill.err"))"
		give_up
		continue ;;
	esac
	sleep "$(awk -v r=$RANDOM -v ms="$scan_ms" 'BEGIN { printf "%.3f", (r % ms) / 1000 }')"
	kill -9 "$pid" 2>/dev/null
	wait "$runner" 2>/dev/null
	rm -f "$D/pid"
	fabsim_reap "$D/sim" >/dev/null 2>&1 # a killed client keeps its ibsim slot
done

res=$(sqlite3 -readonly "$db" "PRAGMA integrity_check")
[[ $res == ok ]] && ok || bad "integrity_check: $res"
[[ $(snapshot_dump 2) == "$base" ]] && ok || bad "earlier snapshots changed"
half=$(sqlite3 -readonly "$db" "SELECT count(*) FROM scans s WHERE
	(SELECT count(*) FROM nodes n WHERE n.scan_id = s.scan_id) <> $nodes OR
	(SELECT count(*) FROM port_rows p WHERE p.scan_id = s.scan_id) <> $ports OR
	(SELECT count(*) FROM links l WHERE l.scan_id = s.scan_id) <> $links")
[[ $half == 0 ]] && ok || bad "$half half-written snapshots are visible"
committed=$(sqlite3 -readonly "$db" "SELECT count(*) FROM scans WHERE label LIKE 'killed-%'")
echo "scan takes ~${scan_ms} ms; $iterations scans killed at random moments ($early ended before the kill), $committed of them had committed first"
((committed < iterations)) && ok || bad "every killed scan had already committed: the kills proved nothing"

# SIGTERM / SIGINT: message, exit 3, nothing written. The scan takes a
# second counter sample a minute after the first, so it is still running
# when the signal comes (a scan that ends on its own is a failure). Each
# signal lands at two moments: during discovery with libibnetdisc
# (--discovery ibnetdisc), while the scanner points stderr at /dev/null to
# mute it (the message must still reach the real stderr), and during the
# wait between the two counter samples.
in_discovery() { [[ /proc/$pid/fd/2 -ef /dev/null ]]; } # a builtin: fast enough to poll
in_interval() { # the last phase before the counters printed, and asleep
	grep -q '^scan: mcast' "$D/err" 2>/dev/null &&
		[[ $(cat "/proc/$pid/wchan" 2>/dev/null) == *nanosleep* ]]
}
for sig in TERM INT; do
	for moment in discovery interval; do
		t0=$(date +%s)
		# libibnetdisc one SMP at a time: its discovery lasts ~0.7 s here
		# instead of ~0.1 s, long enough to be seen on a busy machine
		engine=(--discovery native)
		[[ $moment == discovery ]] && engine=(--discovery ibnetdisc --smps 1)
		FABSWEEP_SCAN_DEBUG=1 fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" scan --db "$db" --quiet \
			--interval 60 --label "sig-$sig-$moment" "${engine[@]}" 2>"$D/err" &
		runner=$!
		pid=$(started) || { bad "SIG$sig in the $moment: the scan did not start or ended at once: $(head -c 300 "$D/err")"; give_up; continue; }
		# discovery is looked for without a pause (bounded: 30 s), the
		# interval every 10 ms
		end=$((SECONDS + 30))
		while ((SECONDS < end)) && ! "in_$moment"; do
			[[ $moment == discovery ]] || sleep 0.01
		done
		if ! "in_$moment"; then
			bad "SIG$sig: never saw the scan in its $moment"
			kill -KILL "$pid"
			wait "$runner"
			continue
		fi
		kill -"$sig" "$pid"
		wait "$runner"
		rc=$?
		rm -f "$D/pid"
		after=$(sqlite3 -readonly "$db" "SELECT count(*) FROM scans WHERE label = 'sig-$sig-$moment'")
		took=$(($(date +%s) - t0))
		((took < 50)) && ok || bad "SIG$sig in the $moment: the scan went on for ${took} s, to the end of its interval"
		if [[ $rc == 3 && $after == 0 ]]; then
			ok
			grep -q "^fabsweep: scan interrupted; nothing was written" "$D/err" && ok ||
				bad "SIG$sig in the $moment: exit 3, nothing written, but no message: $(cat "$D/err")"
		else
			bad "SIG$sig in the $moment: exit $rc, $after snapshots written, stderr: $(cat "$D/err")"
		fi
	done
done
echo "scan_interrupt: $pass passed, $fail failed"
((fail == 0))
