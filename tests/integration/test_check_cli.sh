#!/usr/bin/env bash
# The fabsweep executable's check and rules commands on a synthetic snapshot
# (fabsynth, through the real store): exit codes, help, stored findings
# replaced rather than added to, config errors naming file and line.
set -uo pipefail
: "${FABSWEEP:?} ${FABSYNTH:?} ${SRCDIR:?}"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
eq() { [[ "$1" == "$2" ]] && ok || bad "$3: got '$1', want '$2'"; }
db=$D/fab.db
q() { sqlite3 -readonly "$db" "$@"; }
fs() { "$FABSWEEP" "$@" >"$D/out" 2>"$D/err"; }
: >"$D/empty.conf"

# 4 spines, 8 leaves, 16 hosts per leaf; every 101st port has 50 symbol errors;
# 30 made-up findings that check must replace
"$FABSYNTH" --db "$db" --leaves 8 --spines 4 --hosts-per-leaf 16 --findings 30 >/dev/null || exit 1
eq "$(q "SELECT count(*) FROM findings")" 30 "fabsynth stored its findings"

fs check --db "$db" --config "$D/empty.conf"
eq "$?" 0 "warnings only: exit 0 at the default --fail-on error"
errs=$(q "SELECT count(*) FROM findings WHERE rule_id = 'port.errors'")
# fabsynth: SymbolErrorCounter 50 on every port index divisible by 101 that is active
want=$(q "SELECT count(*) FROM counters WHERE counter = 'SymbolErrorCounter' AND value = 50")
eq "$errs" "$want" "one port.errors finding per port with symbol errors"
eq "$(q "SELECT count(*) FROM findings WHERE message = 'synthetic finding'")" 0 "old findings replaced"
grep -q "^scan 1 (" "$D/out" && ok || bad "summary line"
grep -q "^skipped [0-9]* rules (needs two counter samples.*): .*port.error_rate" "$D/out" && ok || bad "skipped rule explained"

fs check --db "$db" --config "$D/empty.conf" --fail-on warning --quiet
eq "$?" 1 "--fail-on warning"
eq "$(wc -c <"$D/out")" 0 "--quiet prints nothing"
eq "$(q "SELECT count(*) FROM findings WHERE rule_id = 'port.errors'")" "$errs" "checking again does not duplicate"

fs check --db "$db" --config "$D/empty.conf" --fail-on sometimes
eq "$?" 2 "bad --fail-on is a usage error"
printf '[thresholds]\nSymbolErrorCounter = 100\nPortXmitWait = soon\n' >"$D/bad.conf"
fs check --db "$db" --config "$D/bad.conf"
eq "$?" 3 "a bad config is a runtime error"
eq "$(cat "$D/err")" "fabsweep: $D/bad.conf:3: 'PortXmitWait' in [thresholds] takes a whole number or 'off', not 'soon'" \
	"config error names file and line"
fs check --db "$D/missing.db"
eq "$?" 3 "missing database"
[[ ! -e $D/missing.db ]] && ok || bad "check must not create a database"

printf '[thresholds]\nSymbolErrorCounter = 50\n' >"$D/t.conf"
fs check --db "$db" --config "$D/t.conf" --fail-on info
eq "$(q "SELECT count(*) FROM findings WHERE rule_id = 'port.errors'")" 0 "a counter at its threshold does not fire"

fs help check
grep -q -- "--fail-on LEVEL" "$D/out" && ok || bad "help check lists --fail-on"
fs rules
eq "$?" 0 "rules"
# every rule, once, in the order of --json: the ids are those of docs/rules/
# (one page per rule; a new rule without a page fails here and in
# rules/test_fixtures), and each line's severity and title are --json's
cp "$D/out" "$D/rules.txt"
ids_txt=$(awk 'NR > 1 && /^[a-z]+\.[a-z_]+ / { print $1 }' "$D/rules.txt")
ids_doc=$(cd "$SRCDIR/docs/rules" && ls -- *.md | grep -v '^README.md$' | sed 's/\.md$//' | sort)
eq "$(sort <<<"$ids_txt")" "$ids_doc" "rules lists exactly the rules docs/rules/ documents"
eq "$(sort <<<"$ids_txt" | uniq -d)" "" "rules lists each rule once"
fs rules --json
eq "$?" 0 "rules --json"
eq "$(python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["rules"]:
	print("%-22s %-9s %-11s %s" % (r["id"], r["severity"], r["category"], r["title"]))' "$D/out")" \
	"$(awk 'NR > 1 && /^[a-z]+\.[a-z_]+ / { sub(/ +$/, ""); print }' "$D/rules.txt")" \
	"rules: each line's id, severity, category and title are --json's"
fs rules show link.speed_degraded
grep -q "\[expect\] speed.host-leaf = auto  (default auto)" "$D/out" && ok || bad "rules show prints parameters"
fs rules show no.such
eq "$?" 2 "unknown rule"

echo "$pass passed, $fail failed"
((fail == 0))
