#!/usr/bin/env bash
# bench_scan.sh - time `fabsweep scan` against ibqueryerrors and
# `ibnetdiscover -o 16` on one simulated fabric (ibsim + real OpenSM).
#
# Default fabric: a 2-level fat tree of 4,096 hosts (128 leaves x 32 hosts,
# 32 spines; 128-port switches). The three tools run in one session,
# alternating (the order rotates every round, so background load and the
# SM's sweeps hit each of them alike), RUNS rounds after one warm-up round.
# Printed: median/min/max wall time, median peak memory (/usr/bin/time
# maxrss), the ratios against the targets, and fabsweep's phase times.
#
#   fabsweep: complete scan (topology, counters, extended counters, SMs),
#             committed to a fresh database each run
#   ibqueryerrors: its default run (discovery, PortCounters of every port)
#   ibnetdiscover -o 16: discovery only, 16 SMPs in flight
#
# Targets: fabsweep <= 1/3 of ibqueryerrors' time, <= 2.5 x ibnetdiscover
# -o 16, peak memory <= 2 x ibnetdiscover's.
#
# Usage: bench/bench_scan.sh [--runs N] [--leaves N] [--spines N]
#            [--hosts-per-leaf N] [--native] [--keep DIR] [--strict]
#            [-- SCAN-OPTIONS...]
# --native: also time `fabsweep scan` with its own discovery
# (FABSWEEP_DISCOVERY=native) as a fourth tool.
# Environment: FABSWEEP, FABGEN (default: build/ next to this script),
# FABSIM_TIMEOUT (default here 600: OpenSM needs a while on 4k nodes).
# --strict: exit 1 when a target is missed. Options after -- go to
# `fabsweep scan` (e.g. -- --smps 32 --window 128).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
FABSWEEP=${FABSWEEP:-$src/build/fabsweep}
FABGEN=${FABGEN:-$src/build/fabgen}
export FABSIM_TIMEOUT=${FABSIM_TIMEOUT:-600}
runs=5 leaves=128 spines=32 hpl=32 keep="" strict=0 native=0
scan_opts=()
while (($#)); do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--leaves) leaves=$2; shift 2 ;;
	--spines) spines=$2; shift 2 ;;
	--hosts-per-leaf) hpl=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--strict) strict=1; shift ;;
	--native) native=1; shift ;;
	--) shift; scan_opts=("$@"); break ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench_scan: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
for t in "$FABSWEEP" "$FABGEN" /usr/bin/time; do
	[[ -x $t ]] || { echo "bench_scan: $t not found (build first: cmake --build build)" >&2; exit 2; }
done
for t in ibqueryerrors ibnetdiscover ibsim opensm sqlite3; do
	command -v "$t" > /dev/null || { echo "bench_scan: $t not installed" >&2; exit 2; }
done

source "$src/scripts/fabsim.sh"
if [[ -n $keep ]]; then
	D=$keep
	mkdir -p "$D"
else
	D=$(mktemp -d)
fi
cleanup() {
	fabsim_stop "$D/sim" > /dev/null 2>&1
	[[ -z $keep ]] && rm -rf "$D"
}
trap cleanup EXIT

# Switch ports: enough for every leaf on a spine and hosts + uplinks on a leaf.
ports=$((leaves > hpl + spines ? leaves : hpl + spines))
"$FABGEN" --leaves "$leaves" --spines "$spines" --hosts-per-leaf "$hpl" \
	--switch-ports "$ports" -o "$D/net" --summary > "$D/summary" || exit 1
want() { awk -v k="$1" '$1 == k { print $2 }' "$D/summary"; }
echo "fabric: $(want nodes) nodes ($(want cas) hosts, $(want switches) switches of $ports ports), $(want links) links"
t0=$(date +%s)
fabsim_start "$D/net" "$D/sim" > /dev/null || { echo "bench_scan: simulator did not start" >&2; exit 1; }
echo "simulator + OpenSM up in $(($(date +%s) - t0)) s; load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# run TOOL ROUND: one timed run; appends "tool round seconds maxrss_kb rc" to results
run() {
	local tool=$1 r=$2 out=$D/time.$1 rc
	case "$tool" in
	fabsweep | native)
		rm -f "$D/fab.db" "$D/fab.db-wal" "$D/fab.db-shm"
		FABSWEEP_DISCOVERY=$([[ $tool == native ]] && echo native) FABSWEEP_SCAN_DEBUG=1 \
			fabsim_run "$D/sim" -- /usr/bin/time -f '%e %M' -o "$out" \
			"$FABSWEEP" scan --db "$D/fab.db" --quiet "${scan_opts[@]}" > /dev/null 2> "$D/phases.$tool"
		;;
	ibqueryerrors)
		fabsim_run "$D/sim" -- /usr/bin/time -f '%e %M' -o "$out" ibqueryerrors > /dev/null 2>&1 ;;
	ibnetdiscover)
		fabsim_run "$D/sim" -- /usr/bin/time -f '%e %M' -o "$out" ibnetdiscover -o 16 > /dev/null 2>&1 ;;
	esac
	rc=$?
	# /usr/bin/time writes "Command exited with non-zero status N" first
	echo "$tool $r $(tail -n 1 "$out") $rc" >> "$D/results"
}

: > "$D/results"
tools=(fabsweep ibqueryerrors ibnetdiscover)
((native)) && tools+=(native)
nt=${#tools[@]}
for ((r = 0; r <= runs; r++)); do
	for ((k = 0; k < nt; k++)); do
		run "${tools[$(((r + k) % nt))]}" "$r"
	done
	((r == 0)) && echo "warm-up round done" || echo "round $r/$runs done"
done

# fabsweep must have produced a complete snapshot each time
bad=$(awk '($1 == "fabsweep" || $1 == "native") && $5 != 0' "$D/results" | wc -l)
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
echo
echo "last fabsweep snapshot: status $(q "SELECT status FROM scans"), $(q "SELECT count(*) FROM nodes") nodes," \
	"$(q "SELECT count(*) FROM links") links, $(q "SELECT count(*) FROM port_counters") port samples" \
	"($(q "SELECT count(*) FROM port_counters WHERE extended") extended), $(q "SELECT count(*) FROM sms") SMs," \
	"database $(($(stat -c %s "$D/fab.db") / 1024)) KiB"
((bad)) && echo "WARNING: $bad fabsweep runs did not exit 0 (complete)"
for t in fabsweep native; do
	[[ -f $D/phases.$t ]] || continue
	echo "$t phases (last run):"
	sed 's/^/  /' "$D/phases.$t"
done
echo

# medians over the measured rounds (not the warm-up)
stats() { # tool column -> "median min max"
	awk -v t="$1" -v c="$2" '$1 == t && $2 > 0 { print $c }' "$D/results" | sort -g |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}
printf '%-22s %9s %9s %9s %12s\n' tool "median s" "min s" "max s" "peak MiB"
for t in "${tools[@]}"; do
	read -r med min max < <(stats "$t" 3)
	read -r mem _ < <(stats "$t" 4)
	label=$t
	[[ $t == ibnetdiscover ]] && label="ibnetdiscover -o 16"
	[[ $t == native ]] && label="fabsweep (native)"
	awk -v l="$label" -v a="$med" -v b="$min" -v c="$max" -v m="$mem" \
		'BEGIN { printf "%-22s %9.2f %9.2f %9.2f %12.1f\n", l, a, b, c, m / 1024 }'
	printf -v "med_$t" '%s' "$med"
	printf -v "mem_$t" '%s' "$mem"
done
missed=0
target() { # label value limit
	local v
	v=$(awk -v a="$2" -v l="$3" 'BEGIN { printf "%5.2f  (target <= %4.2f) %s", a, l, (a <= l ? "met" : "MISSED") }')
	printf '%-38s %s\n' "$1" "$v"
	[[ $v == *MISSED ]] && missed=1
	return 0
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 99) }'; }
echo
# shellcheck disable=SC2154
{
	target "fabsweep / ibqueryerrors time" "$(ratio "$med_fabsweep" "$med_ibqueryerrors")" 0.3333
	target "fabsweep / ibnetdiscover -o 16 time" "$(ratio "$med_fabsweep" "$med_ibnetdiscover")" 2.5
	target "fabsweep / ibnetdiscover peak memory" "$(ratio "$mem_fabsweep" "$mem_ibnetdiscover")" 2.0
	if ((native)); then
		echo "with native discovery:"
		target "  native / ibqueryerrors time" "$(ratio "$med_native" "$med_ibqueryerrors")" 0.3333
		target "  native / ibnetdiscover -o 16 time" "$(ratio "$med_native" "$med_ibnetdiscover")" 2.5
		target "  native / ibnetdiscover peak memory" "$(ratio "$mem_native" "$mem_ibnetdiscover")" 2.0
	fi
}
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -n $keep ]] && echo "kept: $D (results, phases, fab.db, sim logs)"
((strict && (missed || bad))) && exit 1
exit 0
