#!/usr/bin/env bash
# bench_watch.sh - `fabsweep watch`'s counter sweeps against ibqueryerrors on
# a simulated fat tree (ibsim + real OpenSM), side by side in one run, and a
# watch's memory over many sweeps.
#
# Part 1 (--fabric 4k, default; or --leaves/--spines/--hosts-per-leaf): RUNS
# rounds after a warm-up, alternating (the order rotates every round):
#   watch          `fabsweep watch --interval 0 --count SWEEPS` (a full scan,
#                  then back-to-back sweeps); each sweep's time is measured
#                  from the end of the one before (the MADs, the rules, the
#                  commit), the first sweep of a topology (it reads every
#                  port) apart from the others (sums and host ports)
#   ibqueryerrors  its default run (discovery, then every node's PMA)
# first with no errors, then again with errors set on 1% of the active
# ports (ibsim PerformanceSet SymbolErrorCounter, spread over switches and
# hosts). MADs: watch prints its own per sweep (the MAD engine's count,
# resends included); one untimed run of each under tests/tools/madspy.c
# counts them by attribute (for watch: the full scan and the sweeps of that
# run; a `fabsweep scan` under the spy gives the full scan's share).
# Target (issue 16): a sweep without errors <= 0.15 x ibqueryerrors' time.
#
# Part 2 (--rss-sweeps N, default 10000; 0 skips it): a watch of a small fat
# tree (2 leaves x 2 hosts, 2 spines) with --interval 0 for N sweeps; its RSS
# (VmRSS) after sweep 100 and after the last, and the database's size.
#
# Part 3 (--events N, default 20; 0 skips it): link events on the same fat
# tree as part 1 (docs/watch.md "Link events"). A watch with its defaults
# (--interval 10s, the link probe every 30 s) on the last host, subscribed
# through the simulator's Report path (tests/tools/fabsim_reports.c), posting to a
# local Alertmanager (prometheus-alertmanager). N times: a switch-to-switch
# link picked at random is unlinked after a random pause (0-3 s), then the
# time from the console write of the Unlink to the first port.down of the
# link in the database (polled every 20 ms) and to its alert in
# Alertmanager (polled), and what read it (the trap, the probe, ...; a
# full scan when no read did); then linked again, and the next once it has
# cleared. Targets (issue 31): median <= 2 s, worst <= 5 s, the alert at
# most 1 s later. And the link probe's cost: its PortInfo reads per sweep
# against the sweep's other MADs (target <= 10%), from watch's own lines:
# with traps, then without (--no-events, 7 sweeps each) at its default
# cost bound (10%, and the period that makes, as watch says it) and with no
# cap (--link-probe-share 1, for information). --no-part1 --rss-sweeps 0
# --events 1 measures little else (a few minutes, the simulator's start most).
#
# Usage: bench/bench_watch.sh [--fabric 4k] [--runs N] [--sweeps N]
#            [--leaves N --spines N --hosts-per-leaf N] [--rss-sweeps N]
#            [--events N] [--no-part1] [--keep DIR]
# Environment: FABSWEEP, FABGEN (bench/tools.sh), FABSIM_TIMEOUT (default 1200).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
source "$here/tools.sh" # FABSWEEP FABGEN
export FABSIM_TIMEOUT=${FABSIM_TIMEOUT:-1200}
runs=3 sweeps=8 keep="" rss_sweeps=10000 part1=1 events=20
leaves=128 spines=32 hpl=32 ports=128
while (($#)); do
	case "$1" in
	--fabric) [[ $2 == 4k ]] || { echo "bench_watch: --fabric takes 4k" >&2; exit 2; }; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--sweeps) sweeps=$2; shift 2 ;;
	--leaves) leaves=$2; shift 2 ;;
	--spines) spines=$2; shift 2 ;;
	--hosts-per-leaf) hpl=$2; shift 2 ;;
	--rss-sweeps) rss_sweeps=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--no-part1) part1=0; shift ;;
	--keep) keep=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench_watch: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
ports=$((leaves > hpl + spines ? leaves : hpl + spines))
for t in "$FABSWEEP" "$FABGEN"; do
	[[ -x $t ]] || { echo "bench_watch: $t not found (build first)" >&2; exit 2; }
done
for t in ibqueryerrors ibsim opensm sqlite3 cc; do
	command -v "$t" > /dev/null || { echo "bench_watch: $t not installed" >&2; exit 2; }
done
source "$src/scripts/fabsim.sh"
top=${keep:-$(mktemp -d)}
mkdir -p "$top"
sim_dir=""
ampid=""
cleanup() {
	[[ -n $ampid ]] && kill "$ampid" 2> /dev/null
	[[ -n $sim_dir ]] && fabsim_stop "$sim_dir" > /dev/null 2>&1
	[[ -z $keep ]] && rm -rf "$top"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"; }
cc -shared -fPIC -O2 -o "$top/madspy.so" "$src/tests/tools/madspy.c" -libumad -ldl ||
	{ echo "bench_watch: cannot build the MAD spy (cc, libibumad-dev)" >&2; exit 2; }

# stamp: each line of stdin prefixed with the wall time (seconds)
stamp() { while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit }
	printf "%.4f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one_watch OUT: a watch of SWEEPS back-to-back sweeps, its output stamped
one_watch() {
	rm -f "$D/w.db" "$D/w.db-wal" "$D/w.db-shm"
	fabsim_run "$sim_dir" -- "$FABSWEEP" watch --db "$D/w.db" --interval 0 --count "$sweeps" \
		--hold 1m 2> "$1.err" | stamp > "$1"
}
one_qe() {
	local t0 t1
	t0=$EPOCHREALTIME
	fabsim_run "$sim_dir" -- ibqueryerrors > "$D/qe.out" 2>&1
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }' >> "$1"
}

# phase NAME: RUNS rounds of both, then the figures
phase() {
	local name=$1 r
	: > "$D/$name.first" && : > "$D/$name.sweep" && : > "$D/$name.qe" && : > "$D/$name.mads"
	for ((r = 0; r <= runs; r++)); do
		for k in 0 1; do
			if (((r + k) % 2 == 0)); then
				one_watch "$D/$name.w$r"
				((r == 0)) && continue
				# the time from the line before each sweep's line: the sweep
				awk '$2 == "watch:" && ($3 == "scan" || $3 == "sweep") {
					if (p && $3 == "sweep") { n++; d = $1 - p; print (n == 1 ? "F " : "S ") d }
					p = $1 }' "$D/$name.w$r" > "$D/$name.t$r"
				awk '$1 == "F" { print $2 }' "$D/$name.t$r" >> "$D/$name.first"
				awk '$1 == "S" { print $2 }' "$D/$name.t$r" >> "$D/$name.sweep"
				grep -o '[0-9]* MADs (' "$D/$name.w$r" | awk '{ print $1 }' | tail -n +2 >> "$D/$name.mads"
			else
				((r == 0)) && { one_qe /dev/null; continue; }
				one_qe "$D/$name.qe"
			fi
		done
	done
	local f s q m
	f=$(median < "$D/$name.first") s=$(median < "$D/$name.sweep") q=$(median < "$D/$name.qe")
	m=$(median < "$D/$name.mads")
	echo "-- $name ($runs rounds; $(load))"
	printf '  %-34s %8.3f s\n' "watch: first sweep of a topology" "$f"
	printf '  %-34s %8.3f s  (%s MADs, median)\n' "watch: later sweeps" "$s" "$m"
	printf '  %-34s %8.3f s\n' "ibqueryerrors" "$q"
	awk -v a="$s" -v b="$q" 'BEGIN { r = a / b; printf "  sweep / ibqueryerrors: %.3f (target <= 0.15) %s\n", r, (r <= 0.15 ? "met" : "MISSED") }'
	grep -h 'watch: sweep 2,' "$D/$name.w$runs" | sed 's/^[0-9.]* /  last run: /'
	# MADs by attribute: one spied run each
	local preload
	preload=$(source "$sim_dir/env" && echo "$FABSIM_LD_PRELOAD")
	rm -f "$D/spy.w" "$D/spy.s" "$D/spy.q" "$D/s.db"*
	rm -f "$D/w.db" "$D/w.db-wal" "$D/w.db-shm"
	fabsim_run "$sim_dir" -- env MADSPY_LOG="$D/spy.w" LD_PRELOAD="$top/madspy.so:$preload" \
		"$FABSWEEP" watch --db "$D/w.db" --interval 0 --count "$sweeps" > /dev/null 2>&1
	fabsim_run "$sim_dir" -- env MADSPY_LOG="$D/spy.s" LD_PRELOAD="$top/madspy.so:$preload" \
		"$FABSWEEP" scan --db "$D/s.db" --quiet > /dev/null 2>&1
	fabsim_run "$sim_dir" -- env MADSPY_LOG="$D/spy.q" LD_PRELOAD="$top/madspy.so:$preload" \
		ibqueryerrors > /dev/null 2>&1
	local nw ns nq
	nw=$(grep -c '^mad ' "$D/spy.w") ns=$(grep -c '^mad ' "$D/spy.s") nq=$(grep -c '^mad ' "$D/spy.q")
	echo "  MADs (madspy): ibqueryerrors $nq; watch of $sweeps sweeps $nw, of which its full scan about $ns:" \
		"$(((nw - ns) / sweeps)) per sweep on average (the first sweep reads every port)"
	echo "  ibqueryerrors by attribute: $(mads_by_attr "$D/spy.q")"
	echo "  watch by attribute (scan included): $(mads_by_attr "$D/spy.w")"
}

mads_by_attr() {
	awk '$1 == "mad" { n[$3 " " $7]++ }
	END {
		name["0x81 0x0011"] = "NodeInfo"; name["0x81 0x0010"] = "NodeDescription"
		name["0x81 0x0012"] = "SwitchInfo"; name["0x81 0x0015"] = "PortInfo(DR)"
		name["0x01 0x0011"] = "NodeInfo(LID)"; name["0x01 0x0015"] = "PortInfo(LID)"
		name["0x01 0x0020"] = "SMInfo"; name["0x81 0x0020"] = "SMInfo(DR)"
		name["0x04 0x0001"] = "ClassPortInfo"; name["0x04 0x0012"] = "PortCounters"
		name["0x04 0x001d"] = "PortCountersExtended"; name["0x81 0xff90"] = "MlnxExtPortInfo"
		name["0x81 0x0019"] = "LinearForwardingTable"; name["0x01 0x0019"] = "LinearForwardingTable(LID)"
		for (k in n) printf "%s %d\n", (k in name ? name[k] : "class/attr " k), n[k]
	}' "$1" | sort | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $1, $2 }'
}

if ((part1)); then
	D=$top/fabric
	mkdir -p "$D"
	"$FABGEN" --leaves "$leaves" --spines "$spines" --hosts-per-leaf "$hpl" --switch-ports "$ports" \
		-o "$D/net" > /dev/null || exit 1
	echo "== fat tree: $leaves leaves x $hpl hosts, $spines spines ($(load))"
	sim_dir=$D/sim
	fabsim_start "$D/net" "$sim_dir" > /dev/null || { echo "bench_watch: simulator did not start" >&2; exit 1; }
	phase "no errors"
	# errors on 1% of the active ports: hosts' ports and leaf ports, spread
	n=$(((leaves * hpl * 2 + leaves * spines * 2) / 100))
	((n)) || n=1
	for ((i = 0; i < n; i++)); do
		if ((i % 2)); then
			h=$((i * 7919 % (leaves * hpl) + 1))
			cmd=$(printf 'PerformanceSet "host%04d"[1] PortCounters.SymbolErrorCounter=%d' "$h" $((i + 1)))
		else
			l=$((i * 104729 % leaves + 1)) p=$((i % (hpl + spines) + 1))
			cmd=$(printf 'PerformanceSet "leaf%03d"[%d] PortCounters.SymbolErrorCounter=%d' "$l" "$p" $((i + 1)))
		fi
		fabsim_console "$sim_dir" "$cmd" > /dev/null || echo "bench_watch: '$cmd' failed" >&2
	done
	echo "errors set on $n ports"
	phase "errors on 1% of ports"
	fabsim_stop "$sim_dir" > /dev/null 2>&1
	sim_dir=""
fi

if ((rss_sweeps > 0)); then
	D=$top/rss
	mkdir -p "$D"
	"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 2 -o "$D/net" > /dev/null || exit 1
	sim_dir=$D/sim
	fabsim_start "$D/net" "$sim_dir" > /dev/null || { echo "bench_watch: simulator did not start" >&2; exit 1; }
	echo "== memory: $rss_sweeps sweeps of a 4-host fat tree, --interval 0 ($(load))"
	t0=$EPOCHREALTIME
	fabsim_run "$sim_dir" --pidfile "$D/pid" -- "$FABSWEEP" watch --db "$D/w.db" --interval 0 \
		--count "$rss_sweeps" --hold 10s > "$D/out" 2> "$D/err" &
	wpid=$!
	rss() { awk '/^VmRSS/ { print $2 }' "/proc/$(cat "$D/pid")/status" 2> /dev/null; }
	early="" late="" last="" marks="" next_mark=$((rss_sweeps / 5))
	while kill -0 "$wpid" 2> /dev/null; do
		n=$(grep -c 'watch: sweep' "$D/out" 2> /dev/null)
		r=$(rss)
		[[ -n $r ]] && last=$r
		[[ -z $early && $n -ge 100 && -n $r ]] && early="$r KiB at sweep $n"
		[[ -n $r ]] && late="$r KiB at sweep $n"
		((n >= next_mark)) && [[ -n $r ]] && { marks+="$r KiB at sweep $n; "; next_mark=$((next_mark + rss_sweeps / 5)); }
		sleep 0.5
	done
	wait "$wpid"
	echo "  exit $?, $(grep -c 'watch: sweep' "$D/out") sweeps in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s"
	echo "  RSS: $early; $marks$late (the last read before it exited)"
	echo "  database: $(($(stat -c %s "$D/w.db") / 1024)) KiB, $(sqlite3 "$D/w.db" 'SELECT count(*) FROM scans') scans"
	echo "  ($(load))"
	fabsim_stop "$sim_dir" > /dev/null 2>&1
	sim_dir=""
fi

if ((events > 0)); then
	for t in prometheus-alertmanager curl python3; do
		command -v "$t" > /dev/null || { echo "bench_watch: $t not installed (scripts/deps.sh)" >&2; exit 2; }
	done
	D=$top/events
	mkdir -p "$D"
	"$FABGEN" --leaves "$leaves" --spines "$spines" --hosts-per-leaf "$hpl" --switch-ports "$ports" \
		-o "$D/net" > /dev/null || exit 1
	sim_dir=$D/sim
	fabsim_start "$D/net" "$sim_dir" > /dev/null || { echo "bench_watch: simulator did not start" >&2; exit 1; }
	amport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	am=http://127.0.0.1:$amport
	printf 'route: {receiver: "none"}\nreceivers: [{name: "none"}]\n' > "$D/am.yml"
	prometheus-alertmanager --config.file "$D/am.yml" --storage.path "$D/am" \
		--web.listen-address="127.0.0.1:$amport" --cluster.listen-address= > "$D/am.log" 2>&1 &
	ampid=$!
	for ((i = 0; i < 300; i++)); do curl -sf "$am/-/ready" > /dev/null && break; sleep 0.1; done
	whost=$(printf 'host%04d' $((leaves * hpl)))
	echo "== link events: $events Unlinks on the fat tree ($leaves x $hpl, $spines spines), watch on $whost ($(load))"
	cc -shared -fPIC -O2 -o "$D/fabsim_reports.so" "$src/tests/tools/fabsim_reports.c" -libumad -ldl ||
		{ echo "bench_watch: cannot build tests/tools/fabsim_reports.c" >&2; exit 1; }
	LD_PRELOAD=$D/fabsim_reports.so fabsim_run "$sim_dir" --host "$whost" --pidfile "$D/pid" -- "$FABSWEEP" watch \
		--db "$D/w.db" --alertmanager "$am" > "$D/out" 2> "$D/err" &
	wpid=$!
	q() { sqlite3 -readonly "$D/w.db" "$@" 2> /dev/null; }
	i=0
	while ! grep -q 'watch: sweep 2,' "$D/out" 2> /dev/null && ((i++ < 3000)); do sleep 0.2; done
	grep -q "subscribed to the SM's traps" "$D/out" || echo "  (watch did not subscribe: $(grep warning "$D/out" | head -1))"
	full=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL')
	# every switch-to-switch link: leaf guid, port, name; spine guid, port, name
	q "SELECT a.node_guid, a.port_num, na.description, b.node_guid, b.port_num, nb.description FROM links k
	   JOIN ports a ON a.scan_id = k.scan_id AND a.node_guid = k.a_guid AND a.port_num = k.a_port
	   JOIN ports b ON b.scan_id = k.scan_id AND b.node_guid = k.b_guid AND b.port_num = k.b_port
	   JOIN nodes na ON na.scan_id = k.scan_id AND na.node_guid = a.node_guid
	   JOIN nodes nb ON nb.scan_id = k.scan_id AND nb.node_guid = b.node_guid
	   WHERE k.scan_id = $full AND na.node_type = 'switch' AND nb.node_type = 'switch'" > "$D/links"
	alert_of() { # name port: Alertmanager has the alert
		curl -sf "$am/api/v2/alerts" | python3 -c '
import json, sys
sys.exit(0 if any(a["labels"].get("alertname") == "port.down" and a["labels"].get("node") == sys.argv[1]
                  and a["labels"].get("port") == sys.argv[2] for a in json.load(sys.stdin)) else 1)' "$1" "$2"
	}
	: > "$D/times"
	for ((e = 1; e <= events; e++)); do
		IFS='|' read -r ga pa na gb pb nb < <(shuf -n 1 "$D/links")
		sleep "$((RANDOM % 3)).$((RANDOM % 10))"
		b=$(q 'SELECT max(scan_id) FROM scans')
		down="rule_id = 'port.down' AND scan_id > $b AND ((node = '$ga' AND port = '$pa') OR (node = '$gb' AND port = '$pb'))"
		t0=$EPOCHREALTIME
		fabsim_console "$sim_dir" "Unlink \"$na\"[$pa]" > /dev/null
		t1="" t2="" an="" ap="" k=0
		while [[ -z $t1 ]] && ((k++ < 6000)); do # 2 min
			[[ $(q "SELECT count(*) FROM findings WHERE $down") -gt 0 ]] && t1=$EPOCHREALTIME || sleep 0.02
		done
		read -r an ap <<< "$(q "SELECT CASE node WHEN '$ga' THEN '$na' ELSE '$nb' END, port FROM findings
			WHERE $down ORDER BY scan_id LIMIT 1" | tr '|' ' ')"
		k=0
		while [[ -n $t1 && -z $t2 ]] && ((k++ < 600)); do # 1 min
			alert_of "$an" "$ap" && t2=$EPOCHREALTIME || sleep 0.05
		done
		by=$(q "SELECT cause FROM events WHERE scan_id > $b AND kind = 'port' AND state != 'active'
			AND ((node_guid = '$ga' AND port_num = $pa) OR (node_guid = '$gb' AND port_num = $pb))
			ORDER BY event_id LIMIT 1")
		awk -v e="$e" -v a="$t0" -v b="${t1:-0}" -v c="${t2:-0}" -v by="${by:-full-scan}" -v l="$na[$pa]-$nb[$pb]" \
			'BEGIN { printf "%d %s %.3f %.3f %s\n", e, l, (b ? b - a : -1), (c && b ? c - b : -1), by }' >> "$D/times"
		tail -1 "$D/times" | awk '{ printf "  event %2d: %-24s stored %6.3f s, alert +%6.3f s (%s)\n", $1, $2, $3, $4, $5 }'
		fabsim_console "$sim_dir" "Link \"$na\"[$pa] \"$nb\"[$pb]" > /dev/null
		for ((k = 0; k < 1200; k++)); do # 2 min: both ends read Active again
			last=$(q 'SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NOT NULL')
			[[ $(q "SELECT count(*) FROM findings WHERE scan_id = $last AND rule_id = 'port.down'") == 0 ]] && break
			sleep 0.1
		done
	done
	awk '$3 >= 0 { print $3 }' "$D/times" | sort -g > "$D/stored"
	awk '$4 >= 0 { print $4 }' "$D/times" | sort -g > "$D/alerted"
	n=$(wc -l < "$D/stored")
	echo "  Unlink -> stored port.down, $n of $events events: min $(head -1 "$D/stored") s, median $(median < "$D/stored") s, max $(tail -1 "$D/stored") s"
	awk -v n="$n" -v m="$(median < "$D/stored")" -v x="$(tail -1 "$D/stored")" -v want="$events" 'BEGIN {
		printf "  targets: median <= 2 s %s, worst <= 5 s %s%s\n", (m <= 2 ? "met" : "MISSED"), (x <= 5 ? "met" : "MISSED"),
			(n < want ? " (" want - n " events never stored: MISSED)" : "") }'
	echo "  stored -> alert in Alertmanager: median $(median < "$D/alerted") s, max $(tail -1 "$D/alerted") s" \
		"(target <= 1 s: $(awk -v x="$(tail -1 "$D/alerted")" 'BEGIN { print (x <= 1 ? "met" : "MISSED") }'))"
	echo "  read by: $(awk '{ print $5 }' "$D/times" | sort | uniq -c | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')"
	# the probe's cost: per sweep, its PortInfo reads against the sweep's other MADs
	probe_cost() { # FILE WHAT
		grep -E '^watch: sweep [0-9]+,' "$1" | tail -n +2 | awk -v what="$2" '
			{ mads = $0; sub(/.* changed; /, "", mads); sub(/ MADs.*/, "", mads)
			  l = 0; if (match($0, /, [0-9]+ link states/)) { l = substr($0, RSTART + 2, RLENGTH - 2); sub(/ .*/, "", l) }
			  n++; tm += mads; tl += l }
			END { if (n) printf "  %s: %.1f PortInfo per sweep against %.1f other MADs per sweep over %d sweeps: %.1f%% (target <= 10%%: %s)\n",
				what, tl / n, (tm - tl) / n, n, 100 * tl / (tm - tl), (tl / (tm - tl) <= 0.10 ? "met" : "MISSED") }'
	}
	links=$(wc -l < "$D/links")
	probe_cost "$D/out" "link reads with traps (the probe at 10 x 30 s, and the traps' reads)"
	echo "  ($(load))"
	kill -TERM "$wpid" 2> /dev/null
	wait "$wpid"
	# without traps: the probe at its period, 30 s (7 sweeps at the default
	# 10 s), within its cost bound ([watch] link_probe_share, 10%): the
	# period it makes, as watch says it; then with no cap, for information
	fabsim_run "$sim_dir" -- "$FABSWEEP" watch --db "$D/w2.db" --no-events --count 7 > "$D/out2" 2> "$D/err2"
	probe_cost "$D/out2" "the link probe without traps, its default cap (10%)"
	note=$(grep -m1 '^watch: link probe:' "$D/out2")
	[[ -n $note ]] || note="(watch said nothing of the probe's period: the cap did not bite)"
	echo "  $note"
	echo "  ($(load))"
	fabsim_run "$sim_dir" -- "$FABSWEEP" watch --db "$D/w3.db" --no-events --count 7 --link-probe-share 1 > "$D/out3" 2> "$D/err3"
	probe_cost "$D/out3" "the link probe without traps, no cap (--link-probe-share 1: every 30 s)" | sed 's/(target <= 10%: \(met\|MISSED\))/(for information)/'
	echo "  (one end of each of $links switch-to-switch links every 30 s, a sweep every 10 s: $links x 10 / 30 = $((links / 3)) reads a sweep)"
	echo "  ($(load))"
	kill "$ampid" 2> /dev/null
	ampid=""
	fabsim_stop "$sim_dir" > /dev/null 2>&1
	sim_dir=""
fi
