#!/usr/bin/env bash
# fabsweep under valgrind memcheck: scan (on ibsim + OpenSM; once plain, once
# with --interval and --reset-counters; once from an ibnetdiscover cache),
# check, report (HTML, XML, baseline), diff and export, each once. No invalid
# access, no use of uninitialised memory, no definite or indirect leak.
# Errors inside umad2sim and libibnetdisc's own leak are suppressed
# (tests/unit/reliability/valgrind.supp says why each one is theirs).
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
source "$SRCDIR/tests/integration/checks.sh" # need, skip
need valgrind
# valgrind cannot run a binary built with AddressSanitizer (the sanitizer pass
# of scripts/test.sh): there this test is listed as skipped; the plain build's
# run is the one that counts.
[[ $(ldd "$FABSWEEP" 2>/dev/null) == *libasan* ]] &&
	skip "$FABSWEEP is built with AddressSanitizer; valgrind runs in the plain build"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
pass=0 fail=0
db=$D/fab.db
VG=(valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99
	--suppressions="$SRCDIR/tests/unit/reliability/valgrind.supp")
# name, allowed exit codes (a|b), "sim" (on the simulator) or "-", then the
# fabsweep arguments
vg() {
	local name=$1 ok=$2 where=$3 rc
	shift 3
	if [[ $where == sim ]]; then
		fabsim_run "$D/sim" -- "${VG[@]}" --log-file="$D/vg.$name" "$FABSWEEP" "$@" > /dev/null 2>&1
	else
		"${VG[@]}" --log-file="$D/vg.$name" "$FABSWEEP" "$@" > /dev/null 2>&1
	fi
	rc=$?
	if [[ $rc == 99 ]] || ! grep -q 'ERROR SUMMARY: 0 errors' "$D/vg.$name"; then
		fail=$((fail + 1))
		echo "FAIL: $name: valgrind found errors (exit $rc):"
		grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes in)' -A8 "$D/vg.$name" | head -40
	elif [[ ! $rc =~ ^($ok)$ ]]; then
		fail=$((fail + 1))
		echo "FAIL: $name: exit $rc, want $ok"
	else
		pass=$((pass + 1))
	fi
	echo "$name: $(grep -oE 'ERROR SUMMARY: [0-9]+ errors from [0-9]+ contexts \(suppressed: [0-9]+' "$D/vg.$name")" \
		"$(grep -oE 'total heap usage: [0-9,]+ allocs' "$D/vg.$name")"
}

"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" --sm-prio 10 --sm2-host leaf004 --sm2-prio 5 > /dev/null ||
	{ echo "FAIL: simulator did not start"; exit 1; }
fabsim_console "$D/sim" 'PerformanceSet "leaf002"[3] PortCounters.SymbolErrorCounter=900' > /dev/null

vg scan 0 sim scan --db "$db"
fabsim_console "$D/sim" 'Unlink "host0003"' > /dev/null
vg scan-interval-reset '0|4' sim scan --db "$db" --interval 1 --reset-counters --timeout 200
fabsim_run "$D/sim" -- ibnetdiscover --cache "$D/fab.cache" > /dev/null 2>&1
vg scan-cache '0|4' - scan --db "$db" --load-cache "$D/fab.cache"
vg check '0|1' - check --db "$db" --scan 1 --limit 0
vg check-baseline '0|1' - check --db "$db" --scan 2 --baseline 1
vg report 0 - report --db "$db" --scan 2 --baseline 1 --html "$D/r.html" --xml "$D/r.xml" --all-counters
vg diff 0 - diff --db "$db" 1 2 --xml "$D/diff.xml"
vg export 0 - export prometheus --db "$db" --out "$D/fab.prom"
vg scans 0 - scans --db "$db"

echo "reliability_valgrind: $pass passed, $fail failed"
((fail == 0))
