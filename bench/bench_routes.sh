#!/usr/bin/env bash
# bench_routes.sh: what reading the forwarding tables adds to `fabsweep scan`
# on a simulated fat tree (default 4,096 hosts: 128 leaves x 32 hosts, 32
# spines; ibsim + OpenSM) or on Selene's real topology (--fabric selene:
# fixtures/real/ibnetdiscover/selene.compute.txt as ibsim reads it, OpenSM
# on selene-ufm-c-01 HCA-2, as bench_scan.sh runs it), side by side with
# `ibroute` over every switch (one process per switch, as dump_lfts.sh does;
# timed on the first --ibroute N switches, then scaled: in the simulator
# each takes seconds). Alternating runs, medians; the scan's own "routes"
# and "sl2vl" phases (FABSWEEP_SCAN_DEBUG) too.
#
# Usage: bench/bench_routes.sh [--runs N] [--ibroute N] [--fabric 4k|selene]
#            [--leaves N] [--spines N] [--hosts-per-leaf N]
# Needs FABSWEEP and FABGEN (defaults: build/release/...).
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
FABSWEEP=${FABSWEEP:-$src/build/release/fabsweep}
FABGEN=${FABGEN:-$src/build/release/fabgen}
runs=3 leaves=128 spines=32 hpl=32 n_ibroute=16 fabric=tree
while (($#)); do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--fabric)
		case "$2" in 4k) fabric=tree ;; selene) fabric=selene ;; *) echo "bench_routes: --fabric 4k|selene" >&2; exit 2 ;; esac
		shift 2 ;;
	--ibroute) n_ibroute=$2; shift 2 ;;
	--leaves) leaves=$2; shift 2 ;;
	--spines) spines=$2; shift 2 ;;
	--hosts-per-leaf) hpl=$2; shift 2 ;;
	*) sed -n '2,13p' "$0"; exit 2 ;;
	esac
done
source "$src/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
if [[ $fabric == selene ]]; then
	net=$src/fixtures/real/ibnetdiscover/selene.compute.txt
	smhost=(--sm-host H-1c34da0300608808) # "selene-ufm-c-01 HCA-2"
	on=(--host H-1c34da0300608808) # the tools run there too
	what="Selene's compute fabric"
else
	ports=$((leaves > hpl + spines ? leaves : hpl + spines)) net=$D/net smhost=() on=()
	"$FABGEN" --leaves "$leaves" --spines "$spines" --hosts-per-leaf "$hpl" --switch-ports "$ports" -o "$net" || exit 1
	what="$((leaves * hpl)) hosts"
fi
FABSIM_TIMEOUT=${FABSIM_TIMEOUT:-1200} fabsim_start "$net" "$D/sim" ${smhost[@]+"${smhost[@]}"} >/dev/null || exit 1
ms() { local t0; t0=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - t0) / 1000000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
fabsim_run "$D/sim" ${on[@]+"${on[@]}"} -- "$FABSWEEP" scan --db "$D/fab.db" --quiet
lids=$(sqlite3 "$D/fab.db" "SELECT lid FROM nodes WHERE scan_id = 1 AND node_type = 'switch'")
n_sw=$(wc -w <<<"$lids")
blocks=$(sqlite3 "$D/fab.db" "SELECT sum(fdb_top / 64 + 1) FROM switch_tables WHERE scan_id = 1")
sample=$(tr ' ' '\n' <<<"$lids" | head -n "$n_ibroute")
ibroute_some() { for l in $sample; do fabsim_run "$D/sim" ${on[@]+"${on[@]}"} -- ibroute "$l" || return 1; done; }
for ((r = 0; r < runs; r++)); do
	ms fabsim_run "$D/sim" ${on[@]+"${on[@]}"} -- "$FABSWEEP" scan --db "$D/fab.db" --quiet --no-routes >>"$D/t_noroutes"
	FABSWEEP_SCAN_DEBUG=1 fabsim_run "$D/sim" ${on[@]+"${on[@]}"} -- "$FABSWEEP" scan --db "$D/fab.db" --quiet 2>"$D/debug"
	awk '$2 == "routes" { print $3 }' "$D/debug" >>"$D/t_phase"
	awk '$2 == "sl2vl" { print $3 }' "$D/debug" >>"$D/t_sl2vl"
	ms fabsim_run "$D/sim" ${on[@]+"${on[@]}"} -- "$FABSWEEP" scan --db "$D/fab.db" --quiet >>"$D/t_routes"
	ms ibroute_some >>"$D/t_ibroute"
done
a=$(median <"$D/t_noroutes") b=$(median <"$D/t_routes") c=$(median <"$D/t_ibroute") p=$(median <"$D/t_phase") l=$(median <"$D/t_sl2vl")
echo "fabric: $what, $n_sw switches, $blocks LinearForwardingTable blocks (MADs); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "scan --no-routes: $a ms; scan: $b ms (difference $((b - a)) ms); the scan's routes phase: $p ms, sl2vl phase: $l ms (medians of $runs)"
echo "ibroute over $n_ibroute switches: $c ms, so about $((c * n_sw / n_ibroute)) ms for all $n_sw"
echo "database: $(stat -c %s "$D/fab.db") bytes after $((1 + 2 * runs)) scans; table rows:" \
	"$(sqlite3 "$D/fab.db" "SELECT count(*) FROM lft_blocks") blocks," \
	"$(sqlite3 "$D/fab.db" "SELECT count(*) FROM routing_sets") routing(s)"
