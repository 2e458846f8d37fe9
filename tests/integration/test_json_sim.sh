#!/usr/bin/env bash
# --json on a simulated fabric (ibsim + OpenSM) whose node descriptions are
# hostile (backslashes, quotes, U+2028, control bytes, invalid UTF-8): the
# documents of ready, check, diff, scans and db info validate against
# docs/json/, are printable ASCII, give the descriptions back as the
# sanitizer makes them, and the exit codes are those of the text output.
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
check "sweep exits 0 or 1" test "$?" -le 1
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
check "second scan" test "$?" -le 4
"$FABSWEEP" check --db "$db" --json >"$D/check.json"
rc=$?
check "check --json: exit 0 or 1" test "$rc" -le 1
check "check --json validates" valid check "$D/check.json"
check "check --json: failed says what the exit code says" eq "$(field "$D/check.json" 'd["failed"]')" \
	"$([[ $rc -eq 1 ]] && echo True || echo False)"
"$FABSWEEP" diff 1 2 --db "$db" --json >"$D/diff.json"
check "diff --json exits 0" eq "$?" 0
check "diff --json validates" valid diff "$D/diff.json"
check "diff --json: the pulled cable, its ends named as sanitized" eq \
	"$(field "$D/diff.json" '[(c["subject"]["description"], c["peer"]["description"]) for c in d["changes"] if c["kind"] == "link-removed"] == [("h2 plain", sys.argv[3])]' "$WLEAF")" True
"$FABSWEEP" diff 1 2 --db "$db" --json --exit-code >/dev/null
check "diff --json --exit-code: 1 when something changed" eq "$?" 1
"$FABSWEEP" scans --db "$db" --json >"$D/scans.json"
check "scans --json validates" valid scans "$D/scans.json"
"$FABSWEEP" db info --db "$db" --json >"$D/info.json"
check "db info --json validates" valid db-info "$D/info.json"
check "db info --json: two scans" eq "$(field "$D/info.json" 'd["database"]["scans"]')" 2
"$FABSWEEP" db prune --keep 1 --json --db "$db" 2>"$D/err"
check "--json where it is not offered: usage error" eq "$?" 2

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
