#!/usr/bin/env bash
# fabsweep import on real ibdiagnet2 runs (fixtures/real/ibdiagnet2: a full
# run and a partial one made with --skip) and on ibnetdiscover files: every
# stored value against an independent parse of the source
# (tests/tools/import_vs_source.py), that check, diff and SQL work on it,
# the --json documents of check, diff, scans, rules and db info valid
# against docs/json/ and, value by value, what the database and the text
# output say (tests/tools/json_vs_db.py), a configuration's severities,
# parameters and suppressions seen in them, and malformed input: one line
# naming file and line, nothing written.
set -uo pipefail
: "${FABSWEEP:?} ${SRCDIR:?}"
source "$SRCDIR/tests/integration/checks.sh"
need python3
need_py jsonschema
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
R=$SRCDIR/fixtures/real/ibdiagnet2
db=$D/fab.db
q() { sqlite3 -readonly "$db" "$@"; }
valid() { python3 "$SRCDIR/tests/tools/json_validate.py" "$SRCDIR/docs/json/$1.schema.json" "${@:2}"; }

# ---- the full run
"$FABSWEEP" import ibdiagnet2 "$R/sequoia_ndr" --db "$db" --label archived >"$D/out" 2>"$D/err"
check "import exits 0" eq "$?" 0
check "import says what it stored" has "$D/out" \
	"scan 1 imported from ibdiagnet2:$R/sequoia_ndr: 272 nodes, 551 ports, 271 links, 542 counter samples, 1 subnet managers"
check "sections not read: one note naming them" eq "$(grep -c 'sections not read' "$D/err")" 1
check "  ... e.g. the temperatures" has "$D/err" "TEMP_SENSING"
check "source says where it came from" eq "$(q "SELECT source, label, status FROM scans WHERE scan_id = 1")" \
	"ibdiagnet2:$R/sequoia_ndr|archived|complete"
check "the run's own time" eq "$(q "SELECT started_at FROM scans WHERE scan_id = 1")" "2025-03-31T23:43:18.000Z"
check "9 switches, 263 CAs" eq "$(q "SELECT node_type, count(*) FROM nodes WHERE scan_id = 1 GROUP BY 1 ORDER BY 1")" \
	"$(printf 'ca|263\nswitch|9')"
check "NDR 4X host links" eq "$(q "SELECT count(*) FROM ports WHERE scan_id = 1 AND speed_active = 'NDR' AND width_active = '4X' AND state = 'active'")" 542
check "the master SM, priority 12, at LID 180" eq "$(q "SELECT state, priority, lid FROM sms WHERE scan_id = 1")" "master|12|180"
check "a saturated SymbolErrorCounter kept as read" ge \
	"$(q "SELECT count(*) FROM counters WHERE scan_id = 1 AND counter = 'SymbolErrorCounter' AND value = 65535")" 3
check "64-bit data counters from PortCountersExtended" eq \
	"$(q "SELECT max(value) > 4294967295 FROM counters WHERE scan_id = 1 AND counter = 'PortXmitData'")" 1
from_source() { python3 "$SRCDIR/tests/tools/import_vs_source.py" "$@"; }
check "every node, port, cable, counter and SM as a csv parse of the db_csv has them" \
	from_source ibdiagnet2 "$db" 1 "$R/sequoia_ndr"
check "firmware and PSID from NODES_INFO" eq \
	"$(q "SELECT fw_version, psid FROM nodes WHERE scan_id = 1 AND node_guid = '0xfc6a1c030091cf00'")" "31.2012.1024|MT_0000000579"
# ibdiagnet's own warnings (its WARNINGS_* sections), reproduced: the FW
# check by SQL over the stored firmware (docs/imports.md), duplicated
# descriptions by the rule nodedesc.duplicate (after check, below)
warned() { # the GUIDs of one ibdiagnet warning, sorted
	awk -F, -v ev="$1" '$5 == ev { print $2 }' "$R/sequoia_ndr/ibdiagnet2.db_csv" | sort | paste -sd,
}
check "ibdiagnet's FW check, as SQL over the import" eq "$(q "
	SELECT group_concat(node_guid) FROM (SELECT n.node_guid FROM nodes n
	  JOIN (SELECT scan_id, device_id, psid, max(fw_version) AS latest FROM nodes
	         WHERE fw_version IS NOT NULL GROUP BY 1, 2, 3) l USING (scan_id, device_id, psid)
	 WHERE n.scan_id = 1 AND n.fw_version <> l.latest ORDER BY 1)")" "$(warned NODE_WRONG_FW_VERSION)"
check "  ... seven switches" eq "$(warned NODE_WRONG_FW_VERSION | tr , '\n' | wc -l)" 7

# ---- the partial run: stored as partial, saying which stages were skipped
"$FABSWEEP" import ibdiagnet2 "$R/sequoia_ndr_partial" --db "$db" >"$D/out" 2>/dev/null
check "partial run imported" eq "$?" 0
check "partial: status" eq "$(q "SELECT status FROM scans WHERE scan_id = 2")" partial
check "partial: the skipped stages named" eq "$(q "SELECT what FROM scan_errors WHERE scan_id = 2 AND message LIKE '%--skip dup_guids,dup_node_desc,lids,links,pm,nodes_info,speed_width_check%'")" import
check "partial: no counters" eq "$(q "SELECT count(*) FROM counters WHERE scan_id = 2")" 0
check "partial: every node, port, cable and SM as a csv parse of its db_csv has them" \
	from_source ibdiagnet2 "$db" 2 "$R/sequoia_ndr_partial"

# ---- ibnetdiscover: topology only
"$FABSWEEP" import ibnetdiscover "$SRCDIR/fixtures/real/ibnetdiscover/sequoia_ndr.ibdiagnet2.ibnetdiscover" --db "$db" --quiet >"$D/out"
check "ibnetdiscover import exits 0, quiet" eq "$?:$(wc -c <"$D/out")" "0:0"
check "ibnetdiscover: source" eq "$(q "SELECT substr(source, 1, 14) FROM scans WHERE scan_id = 3")" "ibnetdiscover:"
check "ibnetdiscover: the same topology as the db_csv" eq "$(q "SELECT count(*) FROM links WHERE scan_id = 3")" 271
check "ibnetdiscover: every node, port and cable as a parse of the file by regular expressions has them" \
	from_source ibnetdiscover "$db" 3 "$SRCDIR/fixtures/real/ibnetdiscover/sequoia_ndr.ibdiagnet2.ibnetdiscover"
# the real files with a quirk each (fixtures/real/README.md), in a database
# of their own: CRLF and 4xSDR hosts, 1X links, an LMC and a dual-port CA,
# a stderr line and loopbacks, FDR10, '#' in descriptions, no blank lines,
# self-loops (the tab-stripped and BOM files are test_topo_import_real.c's)
topo=(hyungkwang_Topo.3.txt jabl_1.topo jabl_3.topo loginoff_sx6036.ibnetdiscover psmn_X5.topofile
	switchib_edr_6switch_ddr_isl.txt ufm_small_topo_file)
pairs=()
for i in "${!topo[@]}"; do
	"$FABSWEEP" import ibnetdiscover "$SRCDIR/fixtures/real/ibnetdiscover/${topo[i]}" --db "$D/topo.db" --quiet ||
		echo "FAIL: import ibnetdiscover ${topo[i]}"
	pairs+=("$((i + 1))" "$SRCDIR/fixtures/real/ibnetdiscover/${topo[i]}")
done
check "ibnetdiscover: ${#topo[@]} real files, every node, port and cable as the file has them" \
	from_source ibnetdiscover "$D/topo.db" "${pairs[@]}"
# a file that does not say when it was written is stored as of the import
printf '%s\n' 'Switch 2 "S-0000000000001000" # "sw" base port 0 lid 1 lmc 0' \
	'[1] "H-0000000000000101"[1](101) # "h" lid 2 4xEDR' 'Ca 1 "H-0000000000000101" # "h"' \
	'[1](101) "S-0000000000001000"[1] # lid 2 lmc 0 "sw" lid 1 4xEDR' >"$D/notime.topo"
before=$(date -u +%Y-%m-%dT%H:%M:%S)
"$FABSWEEP" import ibnetdiscover "$D/notime.topo" --db "$D/topo.db" --label no-time --quiet
after=$(date -u +%Y-%m-%dT%H:%M:%S)
at=$(sqlite3 -readonly "$D/topo.db" "SELECT substr(started_at, 1, 19) FROM scans WHERE label = 'no-time'")
check "ibnetdiscover without a date: stored as of the import ($before <= $at <= $after)" \
	test -n "$at" -a ! "$at" \< "$before" -a ! "$at" \> "$after"

# ---- check, diff and the JSON documents: every value read back and compared
# with the database (sqlite3) and with the text of the same command
# (tests/tools/json_vs_db.py)
same_as_db() { python3 "$SRCDIR/tests/tools/json_vs_db.py" "$@"; }
rule_count() { # DOC RULE: findings of RULE in a check document
	python3 -c 'import json,sys; print(sum(f["rule"] == sys.argv[2] for f in json.load(open(sys.argv[1]))["findings"]))' "$@"
}
# a configuration: a severity raised, a rule off, a parameter and a
# threshold at other values, a site rule's severity, a suppression in force
# and one expired
printf '%s\n' '[rules]' 'sm.no_standby = error' 'port.congestion = off' 'site.fw_behind = info' '' \
	'[sm.no_standby]' 'min_standby = 2' '' '[thresholds]' 'PortXmitDiscards = 1000' '' '[suppress]' \
	'nodedesc.duplicate = Quantum-2* until 2099-12-31' 'port.errors = no-such-node until 2001-01-01' >"$D/fab.conf"
# a site rule: ibdiagnet's FW check (docs/imports.md), a warning by default
mkdir "$D/rules.d"
printf '%s\n' '-- id: site.fw_behind' '-- severity: warning' \
	'-- title: Firmware behind the newest of its device and PSID' '-- remediation: Update the firmware.' '' \
	"SELECT n.node_guid AS node, NULL AS port, NULL AS peer_node, NULL AS peer_port, NULL AS subject," \
	"       'firmware ' || n.fw_version || ', ' || l.latest || ' beside it' AS message" \
	"  FROM nodes n JOIN (SELECT device_id, psid, max(fw_version) AS latest FROM nodes" \
	"                      WHERE scan_id = :scan_id AND fw_version IS NOT NULL GROUP BY 1, 2) l USING (device_id, psid)" \
	" WHERE n.scan_id = :scan_id AND n.fw_version <> l.latest" >"$D/rules.d/fw.sql"
"$FABSWEEP" rules --config "$D/fab.conf" --rules-dir "$D/rules.d" >"$D/rules.txt"
"$FABSWEEP" rules --config "$D/fab.conf" --rules-dir "$D/rules.d" --json >"$D/rules.json"
check "rules --json validates" valid rules "$D/rules.json"
check "rules --json: the severities and values the configuration sets, at its lines; as the text lists them" \
	same_as_db rules "$D/rules.json" "$D/rules.txt" "$D/fab.conf"
check "rules --json: the site rule, from its file, at the severity line 4 gives it" eq "$(python3 -c '
import json,sys; r=json.load(open(sys.argv[1]))["site_rules"]
print([(x["id"], x["severity"], x["set_at_line"], x["status"], x["file"] == sys.argv[2]) for x in r])' "$D/rules.json" "$D/rules.d/fw.sql")" \
	"[('site.fw_behind', 'info', 4, 'loaded', True)]"
"$FABSWEEP" rules show sm.no_standby --config "$D/fab.conf" --rules-dir "$D/rules.d" >"$D/rule.txt"
"$FABSWEEP" rules show sm.no_standby --config "$D/fab.conf" --rules-dir "$D/rules.d" --json >"$D/rule.json"
check "rules show --json validates" valid rules "$D/rule.json"
check "rules show --json: as the configuration sets it and the text shows it" \
	same_as_db rule "$D/rule.json" "$D/rule.txt" "$D/fab.conf"
check "  ... one rule, an error, min_standby 2 (default 1) set at line 7" eq "$(python3 -c '
import json,sys; r=json.load(open(sys.argv[1]))["rules"]
print(len(r), r[0]["id"], r[0]["severity"], [(p["key"], p["value"], p["default"], p["set_at_line"]) for p in r[0]["parameters"]])' "$D/rule.json")" \
	"1 sm.no_standby error [('min_standby', '2', '1', 7)]"
# port.errors as the thresholds say, worked out from the stored counters:
# the ports with an error counter above its threshold (docs/config.md's
# defaults; PortXmitDiscards at $1)
over() {
	q "WITH t(counter, lim) AS (VALUES ('SymbolErrorCounter', 10), ('LinkErrorRecoveryCounter', 10),
	     ('LinkDownedCounter', 10), ('PortRcvErrors', 10), ('PortRcvRemotePhysicalErrors', 100),
	     ('PortRcvSwitchRelayErrors', 100), ('PortXmitDiscards', $1), ('PortXmitConstraintErrors', 100),
	     ('PortRcvConstraintErrors', 100), ('LocalLinkIntegrityErrors', 10), ('ExcessiveBufferOverrunErrors', 10),
	     ('VL15Dropped', 100))
	   SELECT count(DISTINCT c.node_guid || '/' || c.port_num) FROM counters c JOIN t USING (counter)
	    WHERE c.scan_id = 1 AND c.value > t.lim"
}
"$FABSWEEP" check --db "$db" --scan 1 --config "$D/fab.conf" --rules-dir "$D/rules.d" --limit 0 >"$D/check-conf.txt" 2>/dev/null
"$FABSWEEP" check --db "$db" --scan 1 --config "$D/fab.conf" --rules-dir "$D/rules.d" --json >"$D/check-conf.json" 2>/dev/null
check "check --config --json: exit 1 (sm.no_standby raised to error)" eq "$?" 1
check "check --config --json: every finding as stored and as the text lists it" \
	same_as_db check "$db" 1 "$D/check-conf.json" "$D/check-conf.txt" "$D/fab.conf"
check "check --config --json: sm.no_standby an error, judged against min_standby=2" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
print([(f["severity"], f["evidence"].split("; ")[-1]) for f in d["findings"] if f["rule"] == "sm.no_standby"])' "$D/check-conf.json")" \
	"[('error', 'min_standby=2')]"
check "check --config --json: port.errors where the thresholds say (PortXmitDiscards 1000)" eq \
	"$(rule_count "$D/check-conf.json" port.errors)" "$(over 1000)"
check "  ... fewer than at the default 100" test "$(over 1000)" -lt "$(over 100)"
check "check --config --json: port.congestion off: disabled, none found" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); print(d["rules"]["disabled"])' "$D/check-conf.json") $(rule_count "$D/check-conf.json" port.congestion)" "1 0"
check "check --config --json: the duplicated descriptions suppressed, the expired suppression noted" eq "$(python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))["suppressions"]
print(s["suppressed"], [(e["line"], e["rule"], e["pattern"], e["until"]) for e in s["expired"]])' "$D/check-conf.json")" \
	"1 [(14, 'port.errors', 'no-such-node', '2001-01-01')]"
check "check --config --json: the site rule ran, at info, on the nodes ibdiagnet's FW check warns of" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); f=[x for x in d["findings"] if x["rule"] == "site.fw_behind"]
print(d["rules"]["site_ran"], d["rules"]["site_failed"], sorted(set(x["severity"] for x in f)), ",".join(sorted(x["node"] for x in f)))' "$D/check-conf.json")" \
	"1 0 ['info'] $(warned NODE_WRONG_FW_VERSION)"
# the same scan without the configuration: every rule at its defaults
"$FABSWEEP" check --db "$db" --scan 1 --limit 0 >"$D/check.txt"
"$FABSWEEP" check --db "$db" --scan 1 --json >"$D/check.json"
check "check --json: exit 0 (warnings only)" eq "$?" 0
check "check --json: every finding as stored and as the text lists it" same_as_db check "$db" 1 "$D/check.json" "$D/check.txt"
check "check --json: port.errors where the default thresholds say" eq "$(rule_count "$D/check.json" port.errors)" "$(over 100)"
check "check --json: port.congestion on every port whose PortXmitWait is above 1000" eq \
	"$(rule_count "$D/check.json" port.congestion)" \
	"$(q "SELECT count(*) FROM counters WHERE scan_id = 1 AND counter = 'PortXmitWait' AND value > 1000")"
check "check --json: each port with a saturated error counter found" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
print(sum(1 for f in d["findings"] if f["rule"] == "port.errors" and "65535 (saturated)" in f["message"]))' "$D/check.json")" \
	"$(q "SELECT count(DISTINCT node_guid || '/' || port_num) FROM counters WHERE scan_id = 1 AND value = 65535
	      AND counter IN ('SymbolErrorCounter', 'PortRcvErrors', 'PortXmitDiscards', 'PortRcvSwitchRelayErrors')")"
check "check --json: duplicated switch descriptions, as ibdiagnet warns" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
print([f["severity"] for f in d["findings"] if f["rule"] == "nodedesc.duplicate"])' "$D/check.json")" "['warning']"
check "nodedesc.duplicate names the devices ibdiagnet warns of" eq \
	"$(q "SELECT replace(substr(evidence, instr(evidence, 'guids=') + 6), ' ', '') FROM findings
	      WHERE scan_id = 1 AND rule_id = 'nodedesc.duplicate'")" "$(warned NODE_DUPLICATED_NODE_DESC)"
"$FABSWEEP" check --db "$db" --scan 1 --json --fail-on warning >"$D/check-w.json"
check "check --json keeps the exit code (--fail-on warning: 1)" eq "$?:$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); print(d["fail_on"], d["failed"])' "$D/check-w.json")" "1:warning True"
# the topology-only import, checked against the file it came from
T=$SRCDIR/fixtures/real/ibnetdiscover/sequoia_ndr.ibdiagnet2.ibnetdiscover
"$FABSWEEP" check --db "$db" --scan 3 --expect "$T" --limit 0 >"$D/check3.txt"
"$FABSWEEP" check --db "$db" --scan 3 --expect "$T" --json >"$D/check3.json"
check "check --json validates: with a configuration, without, on the topology-only import with --expect" \
	valid check "$D/check-conf.json" "$D/check.json" "$D/check3.json"
check "check --expect --json: every finding as stored and as the text lists it" \
	same_as_db check "$db" 3 "$D/check3.json" "$D/check3.txt"
# awk over the file: its node headers, its distinct cables (each appears twice)
check "check --expect --json: the expected topology as counted in the file" eq "$(python3 -c '
import json,sys; x=json.load(open(sys.argv[1]))["expected_topology"]
print(x["scan"], x["source"] == "file:" + sys.argv[2], x["nodes"], x["links"])' "$D/check3.json" "$T")" \
	"None True $(awk '/^(Switch|Ca)/ { n++ } END { print n }' "$T") $(awk '
		/^(Switch|Ca)/ { match($0, /"[SH]-[0-9a-f]+"/); cur = substr($0, RSTART, RLENGTH) }
		/^\[/ && match($0, /"[SH]-[0-9a-f]+"\[[0-9]+\]/) {
			split($0, f, /[\[\]]/); a = cur "[" f[2] "]"; b = substr($0, RSTART, RLENGTH)
			k = a < b ? a b : b a; if (!(k in seen)) { seen[k] = 1; n++ } }
		END { print n }' "$T")"
"$FABSWEEP" diff 2 1 --db "$db" >"$D/diff.txt"
"$FABSWEEP" diff 2 1 --db "$db" --json >"$D/diff.json"
check "diff --json exits 0" eq "$?" 0
check "diff --json validates" valid diff "$D/diff.json"
check "diff --json: every change as the database and the text show it" \
	same_as_db diff "$db" 2 1 "$D/diff.json" "$D/diff.txt"
check "diff: the hosts were renamed between the runs" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); print(d["counts"]["node-description"], d["n_changes"])' "$D/diff.json")" "256 256"
"$FABSWEEP" scans --db "$db" >"$D/scans.txt"
"$FABSWEEP" scans --db "$db" --json >"$D/scans.json"
check "scans --json validates" valid scans "$D/scans.json"
check "scans --json: every scan as the database and the text have it" \
	same_as_db scans "$db" "$D/scans.json" "$D/scans.txt"
check "scans --json: three, the partial one never checked (null)" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); print([s["findings"] for s in d["scans"]])' "$D/scans.json")" \
	"[802, None, $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$D/check3.json")]"
"$FABSWEEP" db info --db "$db" >"$D/info.txt"
"$FABSWEEP" db info --db "$db" --json >"$D/info.json"
check "db info --json validates" valid db-info "$D/info.json"
check "db info --json: as PRAGMA, the scans table and the text say" \
	same_as_db dbinfo "$db" "$D/info.json" "$D/info.txt"
# the validator is no rubber stamp: a wrong field fails it (the document
# with one finding: the validator lists every error, slowly)
sed 's/"severity": "warning"/"severity": "bad"/' "$D/check3.json" >"$D/broken.json"
check "control: a document with an unknown severity does not validate" \
	eval '! valid check "$D/broken.json" >/dev/null'

# ---- malformed input: one line naming file and line; nothing written
bad() { # name, text: imports it, wants exit 3, a FILE:LINE message, no new scan
	mkdir -p "$D/$1"
	printf '%b' "$2" >"$D/$1/ibdiagnet2.db_csv"
	"$FABSWEEP" import ibdiagnet2 "$D/$1" --db "$db" >"$D/out" 2>"$D/err"
	local rc=$?
	check "$1: exit 3" eq "$rc" 3
	check "$1: one line naming file and line" eq "$(wc -l <"$D/err"):$(grep -c "^fabsweep: $D/$1/ibdiagnet2.db_csv:$3: " "$D/err")" "1:1"
	check "$1: nothing written" eq "$(q "SELECT count(*) FROM scans")" 3
}
head -320 "$R/sequoia_ndr/ibdiagnet2.db_csv" >"$D/head"
bad unterminated "$(cat "$D/head")\n" 313
bad garbage "hello\n" 1
bad bad_number "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1,0xzz\nEND_NODES\n" 3
bad short_row "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1\nEND_NODES\n" 3
bad no_guid_column "START_NODES\nNodeDesc,NumPorts,NodeType\n\"a\",1,1\nEND_NODES\n" 2
bad orphan_port "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a\",1,1,0x1\nEND_NODES\nSTART_PORTS\nNodeGuid,PortGuid,PortNum\n0x2,0x2,1\nEND_PORTS\n" 7
bad open_quote "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"a,1,1,0x1\nEND_NODES\n" 3
"$FABSWEEP" import ibdiagnet2 "$D/nowhere" --db "$db" 2>"$D/err"
check "a directory without db_csv: exit 3" eq "$?" 3
check "  ... says which file" has "$D/err" "$D/nowhere/ibdiagnet2.db_csv"
"$FABSWEEP" import ibnetdiscover "$D/garbage/ibdiagnet2.db_csv" --db "$db" 2>"$D/err"
check "ibnetdiscover: malformed is exit 3" eq "$?" 3
"$FABSWEEP" import lst "$D" --db "$db" 2>"$D/err"
check "unknown kind: usage error" eq "$?" 2
check "nothing written by any of them" eq "$(q "SELECT count(*) FROM scans")" 3

# ---- the run with its cables (ibdiagnet2.cables of the same fabric, an
# earlier run): every module and lane against a parse of the file
cdb=$D/cables.db
"$FABSWEEP" import ibdiagnet2 "$R/sequoia_ndr_cables" --db "$cdb" >"$D/out" 2>"$D/err"
check "cables: import exits 0" eq "$?" 0
check "cables: every module and lane as a parse of ibdiagnet2.cables has them" \
	from_source ibdiagnet2 "$cdb" 1 "$R/sequoia_ndr_cables"
check "cables: 510 records, 486 of ports the run lists" eq \
	"$(grep -c '^Port=' "$R/sequoia_ndr_cables/ibdiagnet2.cables"):$(sqlite3 "$cdb" "SELECT count(*) FROM modules")" "510:486"
check "cables: the 24 others said" has "$D/err" "ibdiagnet2.cables: 24 records of ports the run does not list, 0 second records of a port: skipped"
check "cables: from another run, said" has "$D/err" "ibdiagnet2.cables is from another run (2025-03-15 06:54:44 UTC +0000) than ibdiagnet2.db_csv (2025-03-31T23:43:18.000Z)"
check "cables: passive copper has no monitors (0 C, 0 V are no readings)" eq \
	"$(sqlite3 "$cdb" "SELECT count(*), sum(monitors), count(temperature_c) FROM modules WHERE media LIKE 'Copper%'")" "190|0|0"

# the physical layer in the Prometheus export, against the database by
# prom_db.py's own reading of the modules and module_lanes views; and the
# XML report with its <physical> element valid against the schema
"$FABSWEEP" export prometheus --db "$cdb" --scan 1 --out "$D/cables.prom" --quiet
check "cables: the module families as the database has them (prom_db.py)" \
	python3 "$SRCDIR/tests/tools/prom_db.py" --db "$cdb" --file "$D/cables.prom" --scan 1
check "cables: 486 modules exported, 716 received-power lanes" eq \
	"$(grep -c '^fabsweep_module_info{' "$D/cables.prom"):$(grep -c '^fabsweep_module_lane_rx_power_watts{' "$D/cables.prom")" \
	"486:$(sqlite3 "$cdb" "SELECT count(*) FROM module_lanes WHERE rx_power_mw IS NOT NULL")"
"$FABSWEEP" report --db "$cdb" --scan 1 --xml "$D/cables.xml" --html "$D/cables.html" >/dev/null
check "cables: the XML report validates, one <module> per module" eq \
	"$(xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$D/cables.xml" 2>&1 | tail -1):$(grep -c '<module ' "$D/cables.xml")" \
	"$D/cables.xml validates:486"
check "cables: the HTML report has the physical layer section" has "$D/cables.html" '<section id="physical">'
"$FABSWEEP" physical --db "$cdb" --json >"$D/phys.json"
check "cables: physical --json validates" valid physical "$D/phys.json"
check "cables: physical --json has every module, the margins the database gives" eq \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["modules"]), d["counts"]["ib"]["monitored"], sum(1 for m in d["margins"] if m["monitor"] == "rx_power"))' "$D/phys.json")" \
	"486 $(sqlite3 "$cdb" "SELECT count(*) FROM modules WHERE monitors AND NOT refused") $(sqlite3 "$cdb" "SELECT count(*) FROM module_lanes l JOIN modules m USING (scan_id, fabric, module_idx) WHERE m.monitors AND l.rx_power_mw IS NOT NULL")"

# the same run with one optic swapped (its serial number changed by hand):
# diff names that port, in the text and as the database has it
mkdir -p "$D/swapped"
ln -s "$(readlink -f "$R/sequoia_ndr_cables/ibdiagnet2.db_csv")" "$D/swapped/ibdiagnet2.db_csv"
sed '0,/^SN: G2430283435$/s//SN: G2430283999/' "$R/sequoia_ndr_cables/ibdiagnet2.cables" >"$D/swapped/ibdiagnet2.cables"
"$FABSWEEP" import ibdiagnet2 "$D/swapped" --db "$cdb" --quiet 2>/dev/null
"$FABSWEEP" diff 1 2 --db "$cdb" >"$D/cdiff.txt"
"$FABSWEEP" diff 1 2 --db "$cdb" --json >"$D/cdiff.json"
check "cables: diff --json validates" valid diff "$D/cdiff.json"
check "cables: the swapped optic is the one change" has "$D/cdiff.txt" \
	'port 1: FS OSFP-SR8-800G G2430283435 -> FS OSFP-SR8-800G G2430283999'
check "cables: diff --json as the database and the text have it" \
	same_as_db diff "$cdb" 1 2 "$D/cdiff.json" "$D/cdiff.txt"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
