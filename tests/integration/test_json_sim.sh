#!/usr/bin/env bash
# --json on a simulated fabric (ibsim + OpenSM) whose node descriptions are
# hostile (backslashes, quotes, U+2028, control bytes, invalid UTF-8): the
# documents of ready, check, diff, scans and db info validate against
# docs/json/, are printable ASCII, give the descriptions back as the
# sanitizer makes them, and the exit codes are those of the text output.
# The values of check, diff, scans and db info are read back and compared
# with the database (sqlite3) and with the text output of the same command
# (tests/tools/json_vs_db.py).
# (tests/unit/reports/test_json.c covers double quotes, which ibsim's net
# file cannot carry; test_import_cli.sh the imported real runs.)
set -uo pipefail
: "${FABSWEEP:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
source "$SRCDIR/tests/integration/checks.sh"
need python3
need_py jsonschema
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
db=$D/fab.db
valid() { python3 "$SRCDIR/tests/tools/json_validate.py" "$SRCDIR/docs/json/$1.schema.json" "$2"; }
same_as_db() { python3 "$SRCDIR/tests/tools/json_vs_db.py" "$@"; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

H1=$(printf "h1 back\\\\slash 'q' \342\200\250sep \007bell \377 tail")
LEAF=$(printf "leaf01 \033[31mred\\\\ \376")
{ # the first node is the simulator's local CA: mgmt01 scans and runs OpenSM
	printf 'caguid=0x0002c90100000030\nHca 1 "mgmt01"\n[1]\t"%s"[3]\n\n' "$LEAF"
	printf 'switchguid=0x0002c90200000010\nSwitch 8 "%s"\n' "$LEAF"
	printf '[1]\t"%s"[1]\n[2]\t"h2 plain"[1]\n[3]\t"mgmt01"[1]\n\n' "$H1"
	printf 'caguid=0x0002c90100000010\nHca 1 "%s"\n[1]\t"%s"[1]\n\n' "$H1" "$LEAF"
	printf 'caguid=0x0002c90100000020\nHca 1 "h2 plain"\n[1]\t"%s"[2]\n' "$LEAF"
} >"$D/net"
fabsim_start "$D/net" "$D/sim" --sm-host mgmt01 >/dev/null || { echo "FAIL: simulator did not start"; exit 1; }
fabsim_run "$D/sim" -- "$FABSWEEP" sweep --db "$db" --quiet
# its one finding is sm.no_standby (a warning: one SM), below the default
# --fail-on error
check "sweep exits 0" eq "$?" 0
# what the sanitizer makes of them: control bytes and invalid UTF-8 as \xNN
W1="h1 back\\slash 'q' "$'\u2028'"sep \\x07bell \\xff tail"
WLEAF="leaf01 \\x1b[31mred\\ \\xfe"

fabsim_run "$D/sim" -- "$FABSWEEP" ready --db "$db" --hosts h1,h2 --json >"$D/ready.json"
check "ready --json: exit 0 when ready" eq "$?" 0
check "ready --json validates" valid ready "$D/ready.json"
check "ready --json: both ready" eq "$(field "$D/ready.json" '[d["verdict"]] + [h["verdict"] for h in d["hosts"]]')" \
	"['ready', 'ready', 'ready']"
check "ready --json: the hostile names come back as sanitized" eq \
	"$(field "$D/ready.json" 'sorted(set(p["node"] for p in d["ports"])) == sorted([sys.argv[3], sys.argv[4], "h2 plain"])' "$W1" "$WLEAF")" True
check "ready --json: U+2028 escaped on the wire" has "$D/ready.json" '\u2028'
# one leaf: the pair shares the default partition, its route crosses no
# switch-to-switch link
check "ready --json: the pair judged from the sweep's tables" eq \
	"$(field "$D/ready.json" '(d["pairs"]["judged"], d["pairs"]["checked"], d["pairs"]["failing"], d["hops"]["judged"], d["hops"]["links"])')" \
	"(True, 1, [], True, [])"

fabsim_console "$D/sim" 'Unlink "h2 plain"[1]' >/dev/null
fabsim_run "$D/sim" -- "$FABSWEEP" ready --db "$db" --hosts h1,h2,ghost --json >"$D/ready2.json"
check "ready --json: exit 1 when a host is not ready" eq "$?" 1
check "ready --json (not ready) validates" valid ready "$D/ready2.json"
check "ready --json: verdicts per host" eq \
	"$(field "$D/ready2.json" '[d["verdict"]] + [(h["host"], h["verdict"], len(h["problems"])) for h in d["hosts"]]')" \
	"['not_ready', ('h1', 'ready', 0), ('h2', 'not_ready', 1), ('ghost', 'unknown', 1)]"

fabsim_resweep "$D/sim" >/dev/null || { echo "FAIL: OpenSM did not sweep"; exit 1; }
fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$db" --quiet
# Exactly 0: OpenSM has swept since the cable was pulled (fabsim_resweep),
# so the leaf's port 2 is Down (a LinkUp port without a remote would be a
# hole: partial, 4), every node answers every MAD and the SM stays master;
# 1 is not a scan's code, 2 and 3 would be a refused command line or a
# failure with nothing written.
check "second scan: exit 0, complete, nothing missed" eq \
	"$?/$(sqlite3 -readonly "$db" "SELECT status || '/' || (SELECT count(*) FROM scan_errors WHERE scan_id = 2) FROM scans WHERE scan_id = 2")" \
	"0/complete/0"
"$FABSWEEP" check --db "$db" --limit 0 >"$D/check.txt"
"$FABSWEEP" check --db "$db" --json >"$D/check.json"
rc=$?
check "check --json: exit 0 (one warning, below --fail-on error)" eq "$rc" 0
check "check --json validates" valid check "$D/check.json"
check "check --json: failed says what the exit code says" eq "$(field "$D/check.json" 'd["failed"]')" \
	"$([[ $rc -eq 1 ]] && echo True || echo False)"
check "check --json: every finding as stored and as the text lists it" same_as_db check "$db" 2 "$D/check.json" "$D/check.txt"
check "check --json: the one finding, sm.no_standby, with its evidence" eq \
	"$(field "$D/check.json" '[(f["rule"], f["subject"], f["evidence"]) for f in d["findings"]]')" \
	"[('sm.no_standby', 'SM on mgmt01/1', 'port_guid=0x0002c90100000031; lid=1; state=master; priority=0; standby=0; min_standby=1')]"
# --baseline: counter deltas since scan 1
"$FABSWEEP" check --db "$db" --baseline 1 --limit 0 >"$D/check-b.txt"
"$FABSWEEP" check --db "$db" --baseline 1 --json >"$D/check-b.json"
check "check --baseline --json validates" valid check "$D/check-b.json"
check "check --baseline --json: the deltas since scan 1, their seconds from the samples' times" \
	same_as_db check "$db" 2 "$D/check-b.json" "$D/check-b.txt"
check "  ... baseline scan 1" eq "$(field "$D/check-b.json" 'd["counter_deltas"]["baseline_scan"]')" 1
# a name map: the diff's ends carry the mapped name beside the description
printf '0x0002c90100000020 "rack7-h2"\n' >"$D/map"
"$FABSWEEP" diff 1 2 --db "$db" --node-name-map "$D/map" >"$D/diff.txt"
"$FABSWEEP" diff 1 2 --db "$db" --node-name-map "$D/map" --json >"$D/diff.json"
check "diff --json exits 0" eq "$?" 0
check "diff --json validates" valid diff "$D/diff.json"
check "diff --json: every change as the database and the text show it" \
	same_as_db diff "$db" 1 2 "$D/diff.json" "$D/diff.txt" "$D/map"
check "diff --json: the pulled cable, its ends named as sanitized and mapped" eq \
	"$(field "$D/diff.json" '[(c["subject"]["name"], c["subject"]["description"], c["peer"]["description"], c["width"], c["speed"]) for c in d["changes"] if c["kind"] == "link-removed"] == [("rack7-h2", "h2 plain", sys.argv[3], "4X", "SDR")]' "$WLEAF")" True
check "diff --json: the leaf's port 2 went down (its old and new state)" eq \
	"$(field "$D/diff.json" '[(c["subject"]["port"], c["old"], c["old_phys"], c["new"], c["new_phys"]) for c in d["changes"] if c["kind"] == "port-state"]')" \
	"[(2, 'active', 'linkup', 'down', 'polling')]"
"$FABSWEEP" diff 1 2 --db "$db" --json --exit-code >/dev/null
check "diff --json --exit-code: 1 when something changed" eq "$?" 1
"$FABSWEEP" scans --db "$db" >"$D/scans.txt"
"$FABSWEEP" scans --db "$db" --json >"$D/scans.json"
check "scans --json validates" valid scans "$D/scans.json"
check "scans --json: every scan as the database and the text have it" same_as_db scans "$db" "$D/scans.json" "$D/scans.txt"
"$FABSWEEP" db info --db "$db" >"$D/info.txt"
"$FABSWEEP" db info --db "$db" --json >"$D/info.json"
check "db info --json validates" valid db-info "$D/info.json"
check "db info --json: as PRAGMA, the scans table and the text say" same_as_db dbinfo "$db" "$D/info.json" "$D/info.txt"
check "db info --json: two scans" eq "$(field "$D/info.json" 'd["database"]["scans"]')" 2
"$FABSWEEP" db prune --keep 1 --json --db "$db" 2>"$D/err"
check "--json where it is not offered: usage error" eq "$?" 2

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
