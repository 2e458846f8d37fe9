#!/usr/bin/env bash
# Site rules through the fabsweep executable (docs/site-rules.md): the three
# example rules and some broken ones in a --rules-dir, on a synthetic
# snapshot (fabsynth, through the real store): `rules` lists and checks them,
# `check` runs them beside the built-in rules, stores their findings, reports
# a broken or refused rule by file and still runs the others, the config
# applies to them by id, and the database is left as it was but for findings.
set -uo pipefail
: "${FABSWEEP:?} ${FABSYNTH:?} ${SRCDIR:?}"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
eq() { [[ "$1" == "$2" ]] && ok || bad "$3: got '$1', want '$2'"; }
has() { grep -qF -- "$2" "$1" && ok || { bad "$3: '$2' not in $1:"; sed 's/^/    /' "$1"; }; }
db=$D/fab.db
q() { sqlite3 -readonly "$db" "$@"; }
fs() { "$FABSWEEP" "$@" >"$D/out" 2>"$D/err"; }
: >"$D/empty.conf"

# 2 spines, 2 leaves of 3 hosts each, all HDR
"$FABSYNTH" --db "$db" --leaves 2 --spines 2 --hosts-per-leaf 3 >/dev/null || exit 1
# node00002 (leaf0001/2) runs EDR among HDR rack mates; node00003 has a GUID
# of the recalled batch (0x0002c903dead...)
sqlite3 "$db" "
UPDATE port_rows SET speed_active = 'EDR', rate_gbps = 100
 WHERE (node_guid = '0x0002c90300300002' AND port_num = 1) OR (node_guid = '0x0002c90300200000' AND port_num = 2);
UPDATE node_rows SET node_guid = '0x0002c903dead0004' WHERE node_guid = '0x0002c90300300004';
UPDATE port_rows SET node_guid = '0x0002c903dead0004' WHERE node_guid = '0x0002c90300300004';
UPDATE port_rows SET remote_guid = '0x0002c903dead0004' WHERE remote_guid = '0x0002c90300300004';
UPDATE port_counters SET node_guid = '0x0002c903dead0004' WHERE node_guid = '0x0002c90300300004';" || exit 1
before=$(sqlite3 "$db" "SELECT count(*) FROM scans; SELECT count(*) FROM nodes; SELECT count(*) FROM sqlite_master;" | tr '\n' ' ')

good=$D/rules.d
mkdir "$good"
cp "$SRCDIR"/docs/examples/site-rules/*.sql "$good/"

# ---- rules: list, show, check a directory ------------------------------------
fs rules --rules-dir "$good" --config "$D/empty.conf"
eq "$?" 0 "rules with the examples"
has "$D/out" "Site rules in $good:" "site rules listed with their directory"
has "$D/out" "site.forbidden_guid    error     forbidden_guid.sql     A device with a forbidden GUID prefix is on the fabric" "a site rule with its file"
eq "$(grep -c '^site\.' "$D/out")" 3 "three site rules"
[[ $(grep -cE '^(link|port|sm|lid|guid|nodedesc|mtu|topology|node)\.' "$D/out") -ge 19 ]] && ok || bad "built-in rules still listed"
awk '/^site\./ { s = NR } /^link\.width_degraded/ { l = NR } END { exit !(l < s) }' "$D/out" && ok || bad "built-in rules first"
eq "$(cat "$D/err")" "" "nothing on stderr"

fs rules show site.rack_edr_host --rules-dir "$good"
eq "$?" 0 "rules show a site rule"
has "$D/out" "site.rack_edr_host: Host runs EDR while all its rack mates run HDR" "show: title"
has "$D/out" "origin:    $good/rack_edr_host.sql" "show: origin"
has "$D/out" "limits:    2 s, 256 MiB, 10000 findings" "show: limits"
has "$D/out" "  WITH host_ports AS (" "show: the query"
fs rules show site.nope --rules-dir "$good"
eq "$?" 2 "an unknown site rule"

bad_dir=$D/bad.d
mkdir "$bad_dir"
cp "$good"/*.sql "$bad_dir/"
printf -- '-- id: site.typo\n-- sevrity: warning\n' >"$bad_dir/10-typo.sql"
printf -- '-- id: site.writer\n-- severity: error\n-- title: Writes\n-- remediation: None.\n\nDELETE FROM baselines\n' >"$bad_dir/20-writer.sql"
printf -- '-- id: site.slow\n-- severity: error\n-- title: Slow\n-- remediation: None.\n-- time-limit: 0.5\n\nWITH RECURSIVE f(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM f)\nSELECT x AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port, NULL AS subject, NULL AS message FROM f WHERE x < 0\n' >"$bad_dir/30-slow.sql"
printf -- '-- id: site.ext\n-- severity: error\n-- title: Ext\n-- remediation: None.\n\nSELECT load_extension('"'"'/tmp/x.so'"'"') AS node, 1 AS port, 1 AS peer_node, 1 AS peer_port, 1 AS subject, 1 AS message\n' >"$bad_dir/40-ext.sql"
printf -- '-- id: site.attach\n-- severity: error\n-- title: Attach\n-- remediation: None.\n\nATTACH '"'"'%s/x.db'"'"' AS x\n' "$D" >"$bad_dir/50-attach.sql"
fs rules --rules-dir "$bad_dir"
eq "$?" 3 "rules with broken rule files"
has "$D/err" "fabsweep: $bad_dir/10-typo.sql:2: unknown key 'sevrity' in the header" "header error: file and line"
has "$D/err" "fabsweep: site rule '$bad_dir/20-writer.sql': refused: it writes (DELETE from 'baselines')" "a write is refused"
has "$D/err" "fabsweep: site rule '$bad_dir/40-ext.sql': refused: it calls load_extension()" "load_extension is refused"
has "$D/err" "fabsweep: site rule '$bad_dir/50-attach.sql': refused: it attaches or detaches a database" "ATTACH is refused"
eq "$(grep -c '^site\..* broken ' "$D/out")" 3 "broken rules marked in the list"
has "$D/out" "site.forbidden_guid" "the good rules are still listed"
[[ ! -e $D/x.db ]] && ok || bad "ATTACH created a file"

# ---- check: findings like any other ------------------------------------------
fs check --db "$db" --config "$D/empty.conf" --rules-dir "$good" --fail-on never
eq "$?" 0 "check with the examples"
has "$D/out" "warning site.rack_edr_host     node00002 HCA-1/1 <-> leaf0001/2: runs EDR; its 2 rack mates on this leaf run HDR" "rack rule fires"
has "$D/out" "error   site.forbidden_guid    node00003 HCA-1: GUID 0x0002c903dead0004 starts with 0x0002c903dead (recalled HCA batch, RMA 2291); cabled to leaf0001/3" "GUID rule fires"
has "$D/out" "rules run (3 site)" "summary counts site rules"
eq "$(cat "$D/err")" "" "nothing on stderr"
eq "$(q "SELECT count(*) FROM findings WHERE rule_id LIKE 'site.%'")" 2 "site findings stored"
eq "$(q "SELECT severity || ' ' || node || ' ' || port || ' ' || peer_node || ' ' || peer_port FROM findings WHERE rule_id = 'site.rack_edr_host'")" \
	"warning 0x0002c90300300002 1 0x0002c90300200000 2" "stored like any finding"
builtin=$(q "SELECT count(*) FROM findings WHERE rule_id NOT LIKE 'site.%'")
[[ $builtin -gt 0 ]] && ok || bad "built-in findings stored too"
fs check --db "$db" --config "$D/empty.conf" --rules-dir "$good" --fail-on never
eq "$(q "SELECT count(*) FROM findings WHERE rule_id LIKE 'site.%'")" 2 "checking again replaces, never adds"
fs check --db "$db" --config "$D/empty.conf" --rules-dir "$good"
eq "$?" 1 "an error from a site rule fails --fail-on error"

# ---- check: broken rules are reported, the others run -------------------------
fs check --db "$db" --config "$D/empty.conf" --rules-dir "$bad_dir" --fail-on never
eq "$?" 0 "broken site rules do not change the exit code"
has "$D/err" "fabsweep: $bad_dir/10-typo.sql:2: unknown key 'sevrity'" "check: header error"
has "$D/err" "fabsweep: site rule '$bad_dir/20-writer.sql': refused: it writes" "check: write refused"
has "$D/err" "fabsweep: site rule '$bad_dir/30-slow.sql': stopped after 0.5 s, its time limit" "check: time limit"
has "$D/err" "fabsweep: site rule '$bad_dir/40-ext.sql': refused: it calls load_extension()" "check: extension refused"
eq "$(wc -l <"$D/err")" 5 "one line per broken rule"
has "$D/out" "rules run (3 site), 5 site rules failed" "summary counts failed site rules"
eq "$(q "SELECT count(*) FROM findings WHERE rule_id LIKE 'site.%'")" 2 "the good rules still ran"
eq "$(q "SELECT count(*) FROM findings WHERE rule_id IN ('site.slow', 'site.writer', 'site.typo')")" 0 "nothing of the broken ones"
eq "$(q "SELECT count(*) FROM findings WHERE rule_id NOT LIKE 'site.%'")" "$builtin" "the writer wrote nothing"
[[ ! -e $D/x.db ]] && ok || bad "ATTACH created a file"

# ---- the configuration applies by id -----------------------------------------
printf '[rules]\nsite.forbidden_guid = off\nsite.rack_edr_host = error\n' >"$D/site.conf"
fs rules --rules-dir "$good" --config "$D/site.conf"
has "$D/out" "site.forbidden_guid    off*" "rules shows a disabled site rule"
has "$D/out" "site.rack_edr_host     error*" "rules shows a changed severity"
fs check --db "$db" --config "$D/site.conf" --rules-dir "$good" --fail-on never
eq "$(q "SELECT group_concat(rule_id || ' ' || severity) FROM findings WHERE rule_id LIKE 'site.%'")" \
	"site.rack_edr_host error" "severity override and disabling"
printf '[suppress]\nsite.* = node00002* until 2099-01-01\n' >"$D/supp.conf"
fs check --db "$db" --config "$D/supp.conf" --rules-dir "$good" --fail-on never
eq "$(q "SELECT group_concat(rule_id) FROM findings WHERE rule_id LIKE 'site.%'")" "site.forbidden_guid" "suppression by node name"
has "$D/out" "1 finding suppressed by $D/supp.conf" "suppression counted"
printf '[rules]\nsite.nope = off\n' >"$D/nope.conf"
fs rules --rules-dir "$good" --config "$D/nope.conf"
eq "$?" 3 "rules: the config names a site rule that is not there"
has "$D/err" "fabsweep: $D/nope.conf:2: [rules] names the site rule 'site.nope', which no file in $good defines" "named with file and line"
fs check --db "$db" --config "$D/nope.conf" --rules-dir "$good" --fail-on never
eq "$?" 0 "check goes on"
has "$D/err" "[rules] names the site rule 'site.nope'" "check reports it"

# ---- directories -------------------------------------------------------------
fs check --db "$db" --config "$D/empty.conf" --rules-dir "$D/missing"
eq "$?" 3 "a --rules-dir that does not exist"
has "$D/err" "fabsweep: site rules directory '$D/missing': No such file or directory" "it is named"
fs help check
has "$D/out" "--rules-dir DIR" "help check lists --rules-dir"

after=$(sqlite3 "$db" "SELECT count(*) FROM scans; SELECT count(*) FROM nodes; SELECT count(*) FROM sqlite_master;" | tr '\n' ' ')
eq "$after" "$before" "the database holds what it held (findings aside)"

echo "$pass passed, $fail failed"
((fail == 0))
