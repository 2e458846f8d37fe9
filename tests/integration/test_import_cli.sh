#!/usr/bin/env bash
# fabsweep import on real ibdiagnet2 runs (fixtures/real/ibdiagnet2: a full
# run and a partial one made with --skip) and on an ibnetdiscover file:
# what is stored, that check, diff and SQL work on it, the --json documents
# of check, diff, scans, rules and db info valid against docs/json/, and
# malformed input: one line naming file and line, nothing written.
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
valid() { python3 "$SRCDIR/tests/tools/json_validate.py" "$SRCDIR/docs/json/$1.schema.json" "$2"; }

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

# ---- ibnetdiscover: topology only
"$FABSWEEP" import ibnetdiscover "$SRCDIR/fixtures/real/ibnetdiscover/sequoia_ndr.ibdiagnet2.ibnetdiscover" --db "$db" --quiet >"$D/out"
check "ibnetdiscover import exits 0, quiet" eq "$?:$(wc -c <"$D/out")" "0:0"
check "ibnetdiscover: source" eq "$(q "SELECT substr(source, 1, 14) FROM scans WHERE scan_id = 3")" "ibnetdiscover:"
check "ibnetdiscover: the same topology as the db_csv" eq "$(q "SELECT count(*) FROM links WHERE scan_id = 3")" 271

# ---- check, diff and the JSON documents
"$FABSWEEP" check --db "$db" --scan 1 --json >"$D/check.json"
check "check --json: exit 0 (warnings only)" eq "$?" 0
check "check --json validates" valid check "$D/check.json"
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
"$FABSWEEP" check --db "$db" --scan 1 --json --fail-on warning >/dev/null
check "check --json keeps the exit code (--fail-on warning: 1)" eq "$?" 1
"$FABSWEEP" check --db "$db" --scan 3 --json >"$D/check3.json"
check "check --json on the topology-only import validates" valid check "$D/check3.json"
"$FABSWEEP" diff 2 1 --db "$db" --json >"$D/diff.json"
check "diff --json exits 0" eq "$?" 0
check "diff --json validates" valid diff "$D/diff.json"
check "diff: the hosts were renamed between the runs" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); print(d["counts"]["node-description"], d["n_changes"])' "$D/diff.json")" "256 256"
"$FABSWEEP" scans --db "$db" --json >"$D/scans.json"
check "scans --json validates" valid scans "$D/scans.json"
check "scans --json: three, the partial one never checked (null)" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); print([s["findings"] for s in d["scans"]])' "$D/scans.json")" "[802, None, 1]"
"$FABSWEEP" db info --db "$db" --json >"$D/info.json"
check "db info --json validates" valid db-info "$D/info.json"
"$FABSWEEP" rules --json >"$D/rules.json"
check "rules --json validates" valid rules "$D/rules.json"
"$FABSWEEP" rules show port.errors --json >"$D/rule.json"
check "rules show --json: one rule" eq "$(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); print(len(d["rules"]), d["rules"][0]["id"])' "$D/rule.json")" "1 port.errors"
# the validator is no rubber stamp: a wrong field fails it
sed 's/"severity": "warning"/"severity": "bad"/' "$D/check.json" >"$D/broken.json"
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

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
