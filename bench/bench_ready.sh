#!/usr/bin/env bash
# bench_ready.sh - how long `fabsweep ready` takes for a handful of hosts on a
# large simulated fabric (ibsim + real OpenSM), and where the time goes.
#
# Default fabric: a 2-level fat tree of 4,096 hosts (128 leaves x 32 hosts,
# 32 spines; 128-port switches), one sweep (`fabsweep sweep`) into a fresh
# database, then RUNS timed runs of `fabsweep ready` for HOSTS hosts spread over
# the fabric (one warm-up run first). Each run picks the next HOSTS hosts, so
# no run repeats the last one's LIDs. Printed: median/min/max wall time of the
# whole command (fork to exit, umad2sim preloaded as on the simulator), and
# the medians of fabsweep's own phases (--verbose): opening the database,
# loading the hosts' part of the sweep and the switches on their routes
# (wall, reads of the database, CPU of that thread), opening the MAD port
# (overlapped with the load), the MADs, and the process's CPU time. Then the simulator's own costs: per MAD, from the
# same runs with one MAD in flight (`ready --window 1`) and with all in flight;
# and per process: umad2sim, preloaded into every simulated client, builds a
# fake sysfs tree when the process starts using files and removes it when it
# exits (~60 and ~120 files), which costs tens of milliseconds on each side.
# The same wall time of `perfquery LID PORT` (one MAD) is printed as that
# fixed cost of a simulated client; on hardware there is none.
#
# Partitions: OpenSM runs with a partitions.conf of the default partition and
# jobA=0x8001 (every port a full member of both), and ready is asked for
# --pkey 0x8001: every pair of the hosts is judged for the partition, every
# switch-to-switch hop of the routes between them (from the sweep's
# forwarding tables) is probed live. Beside it, what infiniband-diags needs
# for the same answer: one `perfquery` per hop port (both ends of each hop
# ready reports) and one `smpquery pkeys` per host, run one after the other.
#
# Target: ready for 16 hosts within 100 ms (fabsweep's own time, main to
# exit; and the wall time less the simulated client's fixed cost).
#
# Usage: bench/bench_ready.sh [--runs N] [--hosts N] [--leaves N] [--spines N]
#            [--hosts-per-leaf N] [--switch-ports N] [--keep DIR] [--strict]
# Environment: FABSWEEP, FABGEN (default: build/, else build/release/, next to this script),
# FABSIM_TIMEOUT (default here 600: OpenSM needs a while on 4k nodes).
# --keep DIR: simulator, database and logs in DIR, left running (stop it with
# scripts/fabsim.sh stop DIR/sim). --strict: exit 1 when the target is missed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
source "$here/tools.sh" # FABSWEEP FABGEN
export FABSIM_TIMEOUT=${FABSIM_TIMEOUT:-600}
runs=11 nhosts=16 leaves=128 spines=32 hpl=32 ports=128 keep="" strict=0
while (($#)); do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--hosts) nhosts=$2; shift 2 ;;
	--leaves) leaves=$2; shift 2 ;;
	--spines) spines=$2; shift 2 ;;
	--hosts-per-leaf) hpl=$2; shift 2 ;;
	--switch-ports) ports=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--strict) strict=1; shift ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench_ready: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
for t in "$FABSWEEP" "$FABGEN"; do
	[[ -x $t ]] || { echo "bench_ready: $t not found (build first: cmake --build build)" >&2; exit 2; }
done
for t in ibsim opensm perfquery; do
	command -v "$t" > /dev/null || { echo "bench_ready: $t not installed" >&2; exit 2; }
done

source "$src/scripts/fabsim.sh"
if [[ -n $keep ]]; then
	D=$keep
	mkdir -p "$D"
else
	D=$(mktemp -d)
	trap 'fabsim_stop "$D/sim" > /dev/null 2>&1; rm -rf "$D"' EXIT
fi

total=$((leaves * hpl))
echo "fabric: $leaves leaves x $hpl hosts ($total hosts), $spines spines, $ports-port switches"
"$FABGEN" --leaves "$leaves" --hosts-per-leaf "$hpl" --spines "$spines" --switch-ports "$ports" \
	-o "$D/net" || exit 1
printf 'Default=0x7fff, ipoib : ALL=full;\njobA=0x8001 : ALL=full;\n' > "$D/part.conf"
t0=$(date +%s%N)
FABSIM_OPENSM_ARGS="-P $D/part.conf" fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
echo "simulator up (SUBNET UP) in $((($(date +%s%N) - t0) / 1000000)) ms"
t0=$(date +%s%N)
fabsim_run "$D/sim" -- "$FABSWEEP" sweep --db "$D/fab.db" --quiet --fail-on never
rc=$?
echo "sweep: exit $rc in $((($(date +%s%N) - t0) / 1000000)) ms"
((rc == 0 || rc == 4)) || exit 1

# Runs the command as fabsim_run would, without the wrapper's shell work in
# the timing: the environment is set up once, here.
source "$D/sim/env"
run_ready() { # hosts -> prints "wall_ms" and leaves --verbose's line in $D/verbose
	local t1 t2
	t1=$(date +%s%N)
	(cd "$D/sim/scratch" && LD_PRELOAD=$FABSIM_LD_PRELOAD FABSIM_CLIENT_OF=$D/sim \
		"$FABSWEEP" ready --db "$D/fab.db" --hosts "$1" --pkey 0x8001 --quiet --verbose > "$D/out" 2> "$D/verbose")
	local rc=$?
	t2=$(date +%s%N)
	if ((rc != 0)); then
		echo "bench_ready: ready exited $rc for $1:" >&2
		cat "$D/out" "$D/verbose" >&2
		return 1
	fi
	echo $(((t2 - t1) / 1000))
}

# host lists: HOSTS hosts spread over the fabric, a different set each run
hostlist() { # run number
	local i h list=""
	for ((i = 0; i < nhosts; i++)); do
		h=$(((($1 * nhosts + i) * 257) % total + 1))
		list+="${list:+,}$(printf 'host%04d' "$h")"
	done
	printf '%s\n' "$list"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

run_ready "$(hostlist 0)" > /dev/null || exit 1 # warm-up
: > "$D/walls"
: > "$D/phases"
for ((r = 1; r <= runs; r++)); do
	us=$(run_ready "$(hostlist "$r")") || exit 1
	echo "$us" >> "$D/walls"
	# "open the database X ms, load Y ms ... open Z ms, N MADs (...) in W ms; total T ms"
	db=$(sed -n 's/.*open the database \([0-9.]*\) ms.*/\1/p' "$D/verbose")
	load=$(sed -n 's/.*, load \([0-9.]*\) ms.*/\1/p' "$D/verbose")
	open=$(sed -n 's/.*: open \([0-9.]*\) ms.*/\1/p' "$D/verbose")
	mads=$(sed -n 's/.* \([0-9]*\) MADs (.*/\1/p' "$D/verbose")
	madms=$(sed -n 's/.*unanswered) in \([0-9.]*\) ms.*/\1/p' "$D/verbose")
	tot=$(sed -n 's/.*total \([0-9.]*\) ms.*/\1/p' "$D/verbose")
	hops=$(sed -n 's/.*; \([0-9]*\) hops, .*/\1/p' "$D/verbose")
	lcpu=$(sed -n 's/.*, load [0-9.]* ms (CPU \([0-9.]*\) ms.*/\1/p' "$D/verbose")
	reads=$(sed -n 's/.*; \([0-9]*\) reads: .*/\1/p' "$D/verbose")
	cpu=$(sed -n 's/.*total [0-9.]* ms (CPU \([0-9.]*\) ms).*/\1/p' "$D/verbose")
	echo "$db $load $open $mads $madms $tot $hops $lcpu $reads $cpu" >> "$D/phases"
done
med=$(median < "$D/walls")
min=$(sort -n "$D/walls" | head -1)
max=$(sort -n "$D/walls" | tail -1)
col() { awk -v c="$1" '{ print $c }' "$D/phases" | median; }
printf 'ready, %d hosts, %d runs: wall median %.1f ms (min %.1f, max %.1f)\n' "$nhosts" "$runs" \
	"$(echo "$med / 1000" | bc -l)" "$(echo "$min / 1000" | bc -l)" "$(echo "$max / 1000" | bc -l)"
printf '  medians inside fabsweep: open the database %s ms, load the hosts'"'"' part and the switches on their routes with their tables %s ms (%s reads; CPU %s ms), open the MAD port %s ms (overlapped), %s MADs in %s ms (%s hops between the hosts), total %s ms (CPU of the process, the simulated MAD port'"'"'s set-up included: %s ms)\n' \
	"$(col 1)" "$(col 2)" "$(col 9)" "$(col 8)" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 7)" "$(col 6)" "$(col 10)"
# infiniband-diags for the same answer: a perfquery per hop port, smpquery pkeys per host
nhp=$((2 * $(col 7)))
mapfile -t sw_lids < <(sqlite3 -readonly "$D/fab.db" "SELECT lid FROM nodes WHERE node_type = 'switch' AND scan_id = (SELECT max(scan_id) FROM scans) ORDER BY lid")
mapfile -t h_lids < <(sqlite3 -readonly "$D/fab.db" "SELECT lid FROM nodes WHERE node_type = 'ca' AND scan_id = (SELECT max(scan_id) FROM scans) ORDER BY lid LIMIT $nhosts")
t1=$(date +%s%N)
for ((i = 0; i < nhp; i++)); do
	(cd "$D/sim/scratch" && LD_PRELOAD=$FABSIM_LD_PRELOAD perfquery "${sw_lids[i % ${#sw_lids[@]}]}" $((hpl + 1 + i % spines)) > /dev/null 2>&1)
done
for l in "${h_lids[@]}"; do
	(cd "$D/sim/scratch" && LD_PRELOAD=$FABSIM_LD_PRELOAD smpquery pkeys "$l" 1 > /dev/null 2>&1)
done
t2=$(date +%s%N)
printf '  infiniband-diags for the same answer: %d perfquery (one per hop port) + %d smpquery pkeys: %.1f ms wall\n' \
	"$nhp" "${#h_lids[@]}" "$(echo "($t2 - $t1) / 1000000" | bc -l)"

# The simulator's cost per MAD: the same kind of runs with one MAD in flight.
: > "$D/seq"
for ((r = 1; r <= 5; r++)); do
	(cd "$D/sim/scratch" && LD_PRELOAD=$FABSIM_LD_PRELOAD FABSIM_CLIENT_OF=$D/sim \
		"$FABSWEEP" ready --db "$D/fab.db" --hosts "$(hostlist $((runs + r)))" --quiet --verbose \
		--window 1 > /dev/null 2> "$D/verbose")
	mads=$(sed -n 's/.* \([0-9]*\) MADs (.*/\1/p' "$D/verbose")
	madms=$(sed -n 's/.*unanswered) in \([0-9.]*\) ms.*/\1/p' "$D/verbose")
	echo "$madms $mads" | awk '{ if ($2) printf "%.4f\n", $1 / $2 }' >> "$D/seq"
done
printf '  simulator: %.3f ms per MAD one at a time (--window 1), %.3f ms per MAD with all in flight\n' \
	"$(median < "$D/seq")" "$(echo "$(col 5) / $(col 4)" | bc -l)"
# the fixed cost of a simulated client: perfquery, one MAD, same umad2sim set-up and tear-down
LID=$(sqlite3 -readonly "$D/fab.db" "SELECT lid FROM nodes WHERE description = 'leaf001' ORDER BY scan_id DESC LIMIT 1")
: > "$D/pq"
for ((r = 0; r < runs; r++)); do
	t1=$(date +%s%N)
	(cd "$D/sim/scratch" && LD_PRELOAD=$FABSIM_LD_PRELOAD perfquery "$LID" 1 > /dev/null 2>&1)
	t2=$(date +%s%N)
	echo $(((t2 - t1) / 1000)) >> "$D/pq"
done
pq=$(median < "$D/pq")
printf '  a simulated client'"'"'s fixed cost: perfquery (one MAD) takes %.1f ms wall (median); ready less that: %.1f ms\n' \
	"$(echo "$pq / 1000" | bc -l)" "$(echo "($med - $pq) / 1000" | bc -l)"
echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"

inside=$(col 6)
target_ok=$(echo "$inside <= 100 && ($med - $pq) / 1000 <= 100" | bc -l)
if ((target_ok)); then
	echo "target: <= 100 ms for $nhosts hosts: met (inside fabsweep $inside ms)"
else
	echo "target: <= 100 ms for $nhosts hosts: MISSED (inside fabsweep $inside ms)"
	((strict)) && exit 1
fi
exit 0
