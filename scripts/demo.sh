#!/usr/bin/env bash
# The main job on a simulated fabric: installs missing Debian packages, builds,
# starts a 2-level fat tree (ibsim + real OpenSM master and standby) with a few
# injected faults, scans it, checks it, writes reports, and prints where the
# results are. Everything it starts is stopped when it ends.
#   scripts/demo.sh [OUTDIR]     (default OUTDIR: ./fabsweep-demo)
# With FABSWEEP and FABGEN set to built binaries (as tests/integration/
# test_demo.sh does) it uses those and builds nothing.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mkdir -p "${1:-fabsweep-demo}" && cd "${1:-fabsweep-demo}" && pwd)
source "$top/scripts/deps.sh"
fabsweep_install_deps

if [[ -n ${FABSWEEP:-} && -n ${FABGEN:-} ]]; then
	fabsweep=$FABSWEEP fabgen=$FABGEN
else
	echo "== building"
	cmake -S "$top" -B "$top/build/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$top/build/release" -j"$(nproc)" >/dev/null
	fabsweep=$top/build/release/fabsweep
	fabgen=$top/build/release/fabgen
fi
db=$out/fabsweep.db

source "$top/scripts/fabsim.sh"
sim=$(mktemp -d /tmp/fabsweep-demo-sim.XXXXXX)
trap 'fabsim_stop "$sim" >/dev/null 2>&1; rm -rf "$sim"' EXIT

echo "== starting a simulated fat tree: 8 leaves x 8 hosts, 4 spines, two subnet managers"
# Faults to find: one cable trained at 1X, one port with symbol errors.
"$fabgen" --leaves 8 --spines 4 --hosts-per-leaf 8 \
	--degrade 'leaf003[9]:w=1' \
	--do 'PerformanceSet "leaf005"[2] PortCounters.SymbolErrorCounter=250' \
	-o "$out/fabric.net"
fabsim_start "$out/fabric.net" "$sim" --sm-prio 10 --sm2-host host0064 --sm2-prio 5

has_cmd() { "$fabsweep" help "$1" >/dev/null 2>&1; }

echo "== fabsweep scan"
rc=0
fabsim_run "$sim" -- "$fabsweep" scan --db "$db" --label demo || rc=$?
if ((rc != 0 && rc != 4)); then
	echo "demo: the scan failed (exit $rc)" >&2
	exit "$rc"
fi
if has_cmd check; then
	echo "== fabsweep check"
	"$fabsweep" check --db "$db" --fail-on never || true
fi
if has_cmd report; then
	echo "== fabsweep report"
	"$fabsweep" report --db "$db" --html "$out/report.html" --xml "$out/report.xml"
fi

echo
echo "== results"
"$fabsweep" scans --db "$db"
sqlite3 -readonly "$db" "SELECT 'links: ' || count(*) || ', of which not 4X: ' || sum(width <> '4X') FROM links WHERE scan_id = (SELECT max(scan_id) FROM scans)"
sqlite3 -readonly "$db" "SELECT 'subnet managers: ' || group_concat(state || ' (priority ' || priority || ')', ', ') FROM sms WHERE scan_id = (SELECT max(scan_id) FROM scans)"
echo "database: $db"
[[ -f $out/report.html ]] && echo "report:   $out/report.html and $out/report.xml"
echo "try:      sqlite3 -readonly $(printf %q "$db") 'SELECT * FROM links WHERE width <> \"4X\"'"
