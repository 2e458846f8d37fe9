#!/usr/bin/env bash
# `fabsweep merge` at fleet size, side by side with the flat merge of the main
# branch (its fabsweep built from the merge base here; what an operator runs
# today), medians of RUNS runs, wall time and peak memory:
#   - HOSTS hosts x 8 NICs (default 16,384): merge, check, report --html
#     --xml; the files are real collected host files (bench/roce_host.sh: a
#     namespace host with 8 RDMA NICs behind a real lldpd, one copy with PFC
#     on priority 4 on eth7) cloned with consistent identities
#     (bench/roce_clone: 32 hosts a leaf per NIC). Both binaries merge the
#     same files, as main's collect writes them; this branch also merges
#     the files its own collect writes (the schema versions are printed);
#     --ethtool: host
#     files with NIC counters and modules (roce_host.sh --ethtool), in
#     directories of their own;
#   - a re-merge after 200 hosts were collected again: `merge --into` here,
#     a flat merge of every file with main; and `merge --into` when no file
#     changed since;
#   - a merge of 16 per-rack merges of HOSTS/16 hosts each, beside the flat
#     merge (the racks' merges themselves are the work spread over machines).
# Needs root (namespaces) and about 2 x 5 GB under WORK, kept between runs
# (the clones are made once: a few minutes).
#   bench/bench_merge.sh [--hosts N] [--runs N] [--work DIR] [--base REV] [--ethtool]
set -uo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$src/bench/tools.sh"
HOSTS=16384 RUNS=3 WORK=/var/tmp/fabsweep-bench-merge BASE="" ETH=""
while (($#)); do
	case $1 in
	--hosts) HOSTS=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--work) WORK=$2; shift 2 ;;
	--base) BASE=$2; shift 2 ;;
	--ethtool) ETH=--ethtool; shift ;;
	-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
	*) echo "bench_merge.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
	esac
done
((HOSTS % 16 == 0 && HOSTS >= 256)) || { echo "bench_merge.sh: --hosts must be a multiple of 16, >= 256" >&2; exit 2; }
[[ $EUID -eq 0 ]] || { echo "bench_merge.sh: needs root (bench/roce_host.sh uses network namespaces)" >&2; exit 1; }
CLONE=$(dirname "$FABSWEEP")/bench/roce_clone
[[ -x $FABSWEEP && -x $CLONE ]] || { echo "bench_merge.sh: build first (fabsweep, roce_clone)" >&2; exit 1; }
mkdir -p "$WORK" && cd "$WORK" || exit 1
log() { printf '%s\n' "$*" >&2; }

# ---- main's fabsweep, and roce_clone built against its library
[[ -n $BASE ]] || BASE=$(git -C "$src" merge-base HEAD main 2>/dev/null) ||
	{ echo "bench_merge.sh: no branch main here; give --base REV" >&2; exit 1; }
rev=$(git -C "$src" rev-parse --short "$BASE") || exit 1
old=$WORK/base-$rev
if [[ ! -x $old/build/fabsweep || ! -x $old/build/roce_clone ]]; then
	log "building main's fabsweep ($rev) in $old"
	rm -rf "$old" && mkdir -p "$old/src" &&
		git -C "$src" archive "$BASE" | tar -x -C "$old/src" &&
		cmake -S "$old/src" -B "$old/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFABSWEEP_BUILD_TESTS=OFF \
			>/dev/null && nice cmake --build "$old/build" --target fabsweep -j2 >"$old/build.log" 2>&1 ||
		{ tail -20 "$old/build.log"; echo "bench_merge.sh: cannot build $rev" >&2; exit 1; }
	# shellcheck disable=SC2046 # word splitting of pkg-config output is wanted
	cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$old/src/include" "$src/bench/roce_clone.c" \
		"$old/build/libfabsweep_core.a" \
		$(pkg-config --libs libibnetdisc libibmad libibumad sqlite3 libxml-2.0 lldpctl jansson) \
		-lpthread -lm -o "$old/build/roce_clone" || { echo "bench_merge.sh: cannot build roce_clone for $rev" >&2; exit 1; }
fi
OLD=$old/build/fabsweep OLDCLONE=$old/build/roce_clone

# ---- the host files: templates collected by each fabsweep, clones of them
T0=$(($(date +%s) * 1000 - 86400000))
fleet() { # NAME FABSWEEP CLONE: $WORK/NAME/ with HOSTS host files, made once
	local dir=$WORK/$1 fs=$2 clone=$3
	[[ -f $dir/.done-$HOSTS ]] && return 0
	log "collecting the templates with $(basename "$(dirname "$(dirname "$fs")")")/fabsweep and cloning $HOSTS hosts into $dir"
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	rm -f "$WORK/$1.host.db" "$WORK/$1.fault.db"
	# shellcheck disable=SC2086 # $ETH: no option or one
	FABSWEEP=$fs bash "$src/bench/roce_host.sh" --out "$WORK/$1.host.db" $ETH &&
		FABSWEEP=$fs bash "$src/bench/roce_host.sh" --out "$WORK/$1.fault.db" --pfc4 7 $ETH &&
		nice "$clone" --template "$WORK/$1.host.db" --fault-template "$WORK/$1.fault.db" \
			--fault $((HOSTS - 1)) --out "$dir" --hosts "$HOSTS" --time "$T0" &&
		touch "$dir/.done-$HOSTS"
}
MAINF=main-$rev${ETH:+-eth} HEREF=here${ETH:+-eth}
fleet "$MAINF" "$OLD" "$OLDCLONE" || { echo "bench_merge.sh: cannot make main's fleet" >&2; exit 1; }
rm -rf "$WORK/$HEREF" # made again each time: this checkout's collect
fleet "$HEREF" "$FABSWEEP" "$CLONE" || { echo "bench_merge.sh: cannot make this checkout's fleet" >&2; exit 1; }
SMAIN=$(sqlite3 -readonly "$WORK/$MAINF.host.db" "PRAGMA user_version") SHERE=$(sqlite3 -readonly "$WORK/$HEREF.host.db" "PRAGMA user_version")

# ---- measuring: median wall seconds, CPU seconds (user + system) and peak
# MiB of RUNS runs of a command. The CPU time is what the command costs on
# an idle machine; the wall time also has what other processes took (the
# load average is printed).
# measure NAME SETUP CMD...: SETUP (a shell snippet) runs before each run, untimed
declare -A SEC CPU MIB
med() { sort -g | sed -n "$(((RUNS + 1) / 2))p"; }
measure() {
	local name=$1 setup=$2 t=() c=() m=() i w u s k
	shift 2
	for ((i = 0; i < RUNS; i++)); do
		eval "$setup" || return 1
		/usr/bin/time -o "$WORK/time.$name" -f '%e %U %S %M' "$@" >/dev/null 2>"$WORK/err.$name"
		read -r w u s k < <(tail -1 "$WORK/time.$name")
		t+=("$w") c+=("$(echo "$u + $s" | bc)") m+=("$k")
	done
	SEC[$name]=$(printf '%s\n' "${t[@]}" | med)
	CPU[$name]=$(printf '%s\n' "${c[@]}" | med | sed 's/^\./0./')
	MIB[$name]=$(printf '%s\n' "${m[@]}" | med | awk '{printf "%d", $1 / 1024}')
	log "  $name: ${SEC[$name]} s, CPU ${CPU[$name]} s, ${MIB[$name]} MiB (runs: ${t[*]}; load $(load))"
}
links() { sqlite3 -readonly "$1" "SELECT a_system||a_ifname||b_system||b_ifname||a_heard_b||b_heard_a FROM eth_links
	WHERE scan_id = (SELECT max(scan_id) FROM scans) ORDER BY 1" | md5sum | cut -c1-12; }
fresh() { rm -f "$WORK/$1" "$WORK/$1-wal" "$WORK/$1-shm"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

log "== $HOSTS hosts x 8 NICs, $RUNS runs each (load average $(load))"
# main's merge takes files only (no directory, no list): the paths are short enough here
measure old_merge 'fresh old.db' "$OLD" merge --quiet --db "$WORK/old.db" "$WORK/$MAINF"/*.db
rm -f "$WORK/$MAINF"/*-wal "$WORK/$MAINF"/*-shm # what main's merge leaves beside its inputs
measure new_merge 'fresh new.db' "$FABSWEEP" merge --quiet --db "$WORK/new.db" "$WORK/$MAINF"
measure new_merge_here 'fresh new_here.db' "$FABSWEEP" merge --quiet --db "$WORK/new_here.db" "$WORK/$HEREF"
[[ $(links "$WORK/old.db") == $(links "$WORK/new.db") ]] || log "  WARNING: the two merges' links differ"
measure old_check : "$OLD" check --db "$WORK/old.db"
measure new_check : "$FABSWEEP" check --db "$WORK/new.db"
measure old_report : "$OLD" report --db "$WORK/old.db" --html "$WORK/old.html" --xml "$WORK/old.xml"
measure new_report : "$FABSWEEP" report --db "$WORK/new.db" --html "$WORK/new.html" --xml "$WORK/new.xml"
measure new_report_html : "$FABSWEEP" report --db "$WORK/new.db" --html "$WORK/new.html"

# ---- 200 hosts collected again
log "== re-merge after 200 hosts were collected again (load average $(load))"
rm -rf "$WORK/inc" && mkdir "$WORK/inc" && cp -l "$WORK/$MAINF"/*.db "$WORK/inc/" || exit 1
fresh inc.db
"$FABSWEEP" merge --quiet --into "$WORK/inc.db" "$WORK/inc"
round=0
again() { # the next 200 hosts, collected an hour later
	round=$((round + 1))
	nice "$OLDCLONE" --template "$WORK/$MAINF.host.db" --first $((round * 200)) --hosts 200 \
		--time $((T0 + round * 3600000)) --out "$WORK/inc" >/dev/null
}
measure new_into 'again' "$FABSWEEP" merge --quiet --into "$WORK/inc.db" "$WORK/inc"
measure new_same : "$FABSWEEP" merge --quiet --into "$WORK/inc.db" "$WORK/inc" # no file changed since
measure old_again 'again; fresh old_inc.db' "$OLD" merge --quiet --db "$WORK/old_inc.db" "$WORK"/inc/*.db
rm -f "$WORK"/inc/*-wal "$WORK"/inc/*-shm

# ---- per rack, then the racks
log "== a merge of 16 per-rack merges of $((HOSTS / 16)) hosts (load average $(load))"
per=$((HOSTS / 16))
for ((r = 0; r < 16; r++)); do
	for ((h = r * per; h < (r + 1) * per; h++)); do printf '%s/%s/host%05d.db\n' "$WORK" "$MAINF" $h; done >"$WORK/rack$r.list"
	fresh "rack$r.db"
done
t=$(date +%s.%N)
for ((r = 0; r < 16; r++)); do "$FABSWEEP" merge --quiet --db "$WORK/rack$r.db" --list "$WORK/rack$r.list"; done
RACKS=$(echo "scale=2; ($(date +%s.%N) - $t) / 1" | bc)
measure new_racks 'fresh racks.db' "$FABSWEEP" merge --quiet --db "$WORK/racks.db" "$WORK"/rack?.db "$WORK"/rack??.db
[[ $(links "$WORK/racks.db") == $(links "$WORK/new.db") ]] || log "  WARNING: the merge of the racks' links differ from the flat merge's"

ratio() { [[ $2 == 0* && $2 != 0.[1-9]* ]] && { echo "-"; return; }; echo "scale=2; $1 / $2" | bc | sed 's/^\./0./'; }
printf '\n%-52s %24s %24s %6s\n' "$HOSTS hosts x 8 NICs${ETH:+ (with ethtool)}, medians of $RUNS" "this branch: wall (CPU)" "main $rev: wall (CPU)" "ratio"
one() { printf '%6s s (%5s s) %4s MiB' "${SEC[$1]}" "${CPU[$1]}" "${MIB[$1]}"; }
row() { printf '%-52s %s  %s %6s\n' "$1" "$(one "$2")" "$(one "$3")" "$(ratio "${SEC[$2]}" "${SEC[$3]}")"; }
row1() { printf '%-52s %s\n' "$1" "$(one "$2")"; }
row "merge, files of main's collect (schema $SMAIN)" new_merge old_merge
row1 "merge, files of this collect (schema $SHERE)" new_merge_here
row "check" new_check old_check
row "report --html --xml" new_report old_report
row1 "report --html" new_report_html
row "200 hosts collected again: merge --into / a flat merge" new_into old_again
row1 "no host collected again: merge --into" new_same
printf '%-52s %s  flat merge here: %s s, ratio %s\n' "merge of 16 rack merges" "$(one new_racks)" "${SEC[new_merge]}" \
	"$(ratio "${SEC[new_racks]}" "${SEC[new_merge]}")"
printf '%-52s %6s s (16 merges of %d files, one after the other)\n' "  the rack merges themselves" "$RACKS" "$per"
printf 'databases: %s MB here, %s MB with main; load average at the end: %s; files in %s\n' \
	"$(($(stat -c %s "$WORK/new.db") / 1000000))" "$(($(stat -c %s "$WORK/old.db") / 1000000))" "$(load)" "$WORK"
