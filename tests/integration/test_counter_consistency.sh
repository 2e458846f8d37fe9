#!/usr/bin/env bash
# One scenario, every output (issue 13): on a simulated fabric (ibsim + real
# OpenSM), between a sweep (scan 1) and scan 2 a counter is reset (host0002
# SymbolErrorCounter 500 -> 20), a 16-bit counter saturates (host0003
# PortRcvErrors 100 -> 65535), one rises normally (host0004 SymbolErrorCounter
# 10 -> 30) and a port goes down (host0005's cable pulled). `check` (the
# stored findings and `--json`), `diff` (XML, text and `--json`), the XML and
# HTML reports, the Prometheus file and `ready` (text and `--json`) are each
# parsed into "node counter increase exact|at-least" lines, and into who is
# judged bad; every output must give the same lines (docs/counters.md) and
# the same judgement. The JSON documents are read with python3's json, and
# their values (before and after, counts, times, the scans' sizes) compared
# with the database's rows; every series of the Prometheus file is computed
# from the rows (tests/tools/prom_db.py). host0006 stays healthy.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
need python3 xmllint sqlite3
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
fs() { "$FABSWEEP" "$@" --db "$D/fab.db"; }
sim() { fabsim_run "$D/sim" -- "$@"; }
console() { fabsim_console "$D/sim" "$1" > /dev/null || { echo "FAIL: console: $1"; exit 1; }; }
set_ctr() { console "PerformanceSet \"$1\"[1] PortCounters.$2=$3"; }

# One leaf, six single-port hosts (host0001 is where the tools run).
"$FABGEN" --leaves 1 --hosts-per-leaf 6 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1

# The sweep: counters as they were, then scan 1 (and its check).
set_ctr host0002 SymbolErrorCounter 500
set_ctr host0003 PortRcvErrors 100
set_ctr host0004 SymbolErrorCounter 10
sim "$FABSWEEP" scan --db "$D/fab.db" --quiet
check "scan 1 exits 0" eq "$?" 0
# port.error_rate is off: a rate depends on how far apart the scans ran; the
# increase rule (and ready) judge the same limits, from the same file.
printf '[rules]\nport.error_rate = off\n' > "$D/fab.conf"
fs check --config "$D/fab.conf" --quiet --fail-on never
guid() { q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND description = '$1'"; }
LEAF=$(guid leaf001)
LEAF_LID=$(q "SELECT lid FROM nodes WHERE scan_id = 1 AND description = 'leaf001'")

# Between the samples: a reset, a saturation, an increase, a cable pulled.
set_ctr host0002 SymbolErrorCounter 20
set_ctr host0003 PortRcvErrors 65535
set_ctr host0004 SymbolErrorCounter 30
console 'Unlink "host0005"[1]'
port_down() { sim smpquery portinfo "$LEAF_LID" 5 2> /dev/null | grep -q '^LinkState:\.*Down$'; }
check "leaf001/5 is down before scan 2" \
	wait_for 10 "leaf001/5 Down" port_down
sim "$FABSWEEP" scan --db "$D/fab.db" --quiet
rc=$?
check "scan 2 committed ($rc)" test "$rc" -eq 0 -o "$rc" -eq 4
fs check --scan 2 --baseline 1 --expect 1 --config "$D/fab.conf" --quiet --fail-on never
check "check exits 0" eq "$?" 0

# What every output must say.
WANT_NUMBERS="host0002 SymbolErrorCounter 20 at-least
host0003 PortRcvErrors 65435 at-least
host0004 SymbolErrorCounter 20 exact"
WANT_BAD="host0002
host0003
host0004"
same() { # what, got
	local what=$1 got
	got=$(sort <<< "$2")
	eq "$got" "$WANT_NUMBERS" || { echo "  ($what)"; return 1; }
}
# py FILE 'CODE': CODE with d, the JSON document in FILE (python3's json)
py() { python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
$2" "$1"; }

# check: the findings of port.error_increase, numbers from their evidence
# ("SymbolErrorCounter_increase=20+": + is "or more").
CHECK=$(q "SELECT n.description || ' ' || f.evidence FROM findings f JOIN nodes n
	ON n.scan_id = 2 AND n.node_guid = f.node
	WHERE f.scan_id = 2 AND f.rule_id = 'port.error_increase'" |
	sed -E 's/^([^ ]+) ([A-Za-z0-9]+)_increase=([0-9]+)(\+?);.*/\1 \2 \3 \4/; s/ \+$/ at-least/; s/ ([0-9]+) ?$/ \1 exact/')
check "check: the numbers" same check "$CHECK"
CHECK_BAD=$(q "SELECT DISTINCT n.description FROM findings f JOIN nodes n
	ON n.scan_id = 2 AND n.node_guid = f.node
	WHERE f.scan_id = 2 AND f.rule_id = 'port.error_increase' ORDER BY 1")
check "check: the judgement" eq "$CHECK_BAD" "$WANT_BAD"
check "check: the pulled cable" eq "$(q "SELECT count(*) FROM findings WHERE scan_id = 2
	AND rule_id = 'topology.missing_link' AND peer_node = '$LEAF' AND peer_port = '5'")" 1
# check --json: the same check again; its findings are the stored ones,
# numbers from the evidence as above
fs check --scan 2 --baseline 1 --expect 1 --config "$D/fab.conf" --fail-on never --json > "$D/check.json"
check "check --json exits 0" eq "$?" 0
CHECK_JSON=$(py "$D/check.json" '
import re
name = {f["node"]: f["subject"].split("/")[0] for f in d["findings"]}
for f in d["findings"]:
    if f["rule"] == "port.error_increase":
        m = re.match(r"([A-Za-z0-9]+)_increase=([0-9]+)(\+?);", f["evidence"])
        print(name[f["node"]], m[1], m[2], "at-least" if m[3] else "exact")')
check "check --json: the numbers" same "check --json" "$CHECK_JSON"
check "check --json: every finding as stored (rule node port message evidence)" eq \
	"$(py "$D/check.json" 'for f in sorted(d["findings"], key=lambda f: (f["rule"], f["node"] or "", f["port"] or "")): print(f["rule"], f["node"], f["port"], f["message"], f["evidence"], sep="|")')" \
	"$(q "SELECT rule_id, coalesce(node, 'None'), coalesce(port, 'None'), message, coalesce(evidence, 'None') FROM findings WHERE scan_id = 2 ORDER BY 1, 2, 3")"
check "check --json: counts as stored" eq \
	"$(py "$D/check.json" 'c = d["counts"]; print(c["findings"], c["error"], c["warning"], c["info"], sep="|")')" \
	"$(q "SELECT count(*), sum(severity = 'error'), sum(severity = 'warning'), sum(severity = 'info') FROM findings WHERE scan_id = 2")"
# the interval the rates are judged over: the seconds between a port's two samples
check "check --json: compared with scan 1, over the seconds between the samples" eq \
	"$(py "$D/check.json" 'c = d["counter_deltas"]; print(c["since"], c["baseline_scan"], "%.3f" % c["seconds"])')" \
	"baseline 1 $(q "SELECT printf('%.3f', (julianday(b.sampled_at) - julianday(a.sampled_at)) * 86400) FROM port_counters a
		JOIN port_counters b ON b.scan_id = 2 AND b.node_guid = a.node_guid AND b.port_num = a.port_num
		WHERE a.scan_id = 1 ORDER BY b.node_idx, b.port_num LIMIT 1")"

# diff, XML: counter-increase / counter-reset with increase and at-least.
fs diff 1 2 --xml "$D/diff.xml" > "$D/diff.txt"
check "diff exits 0" eq "$?" 0
xmllint --noout --schema "$SRCDIR/docs/fabsweep-diff.xsd" "$D/diff.xml" 2> /dev/null
check "diff XML validates" eq "$?" 0
# one line per counter change: name counter increase at-least
xml_changes() { # file, attribute naming the node
	local f=$1 name=$2 n i
	n=$(xmllint --xpath 'count(//*[local-name()="change"][@counter])' "$f")
	for ((i = 1; i <= n; i++)); do
		local c="(//*[local-name()=\"change\"][@counter])[$i]"
		printf '%s %s %s %s\n' \
			"$(xmllint --xpath "string($c/*[local-name()=\"subject\"]/@$name)" "$f")" \
			"$(xmllint --xpath "string($c/@counter)" "$f")" \
			"$(xmllint --xpath "string($c/@increase)" "$f")" \
			"$(xmllint --xpath "string($c/@at-least)" "$f" | sed 's/^true$/at-least/; s/^$/exact/')"
	done
}
check "diff: the numbers" same diff "$(xml_changes "$D/diff.xml" name)"
check "diff: the reset is a reset" eq "$(xmllint --xpath 'string(//change[@kind="counter-reset"]/subject/@name)' "$D/diff.xml")" host0002
check "diff: the pulled cable" eq "$(xmllint --xpath "count(//change[@kind='port-state' and subject/@guid='$LEAF' and subject/@port='5' and @new='down'])" "$D/diff.xml")" 1
check "diff text: the reset" has "$D/diff.txt" "SymbolErrorCounter: 500 -> 20 (reset; 20 since)"
fs diff 1 2 --json > "$D/diff.json"
check "diff --json exits 0" eq "$?" 0
check "diff --json: the numbers" same "diff --json" "$(py "$D/diff.json" '
for c in d["changes"]:
    if c["kind"].startswith("counter-"):
        print(c["subject"]["name"], c["counter"], c["increase"], "at-least" if c["at_least"] else "exact")')"
# before and after: the rows of scans 1 and 2; reset when it went down,
# saturated at the 16-bit all-ones value
check "diff --json: before, after, reset and saturated as the database says" eq \
	"$(py "$D/diff.json" '
for c in sorted(d["changes"], key=lambda c: (c["subject"]["guid"], c.get("counter") or "")):
    if c["kind"].startswith("counter-"):
        print(c["subject"]["guid"], c["subject"]["port"], c["counter"], c["old"], c["new"], c["kind"], c["saturated"], sep="|")')" \
	"$(q "SELECT a.node_guid, a.port_num, a.counter, a.value, b.value,
		CASE WHEN b.value < a.value THEN 'counter-reset' ELSE 'counter-increase' END,
		CASE WHEN b.value = 65535 THEN 'True' ELSE 'False' END
		FROM counters a JOIN counters b ON b.scan_id = 2 AND b.node_guid = a.node_guid
		AND b.port_num = a.port_num AND b.counter = a.counter
		WHERE a.scan_id = 1 AND a.value <> b.value AND a.counter IN ('SymbolErrorCounter', 'PortRcvErrors')
		ORDER BY 1, 3")"
check "diff --json: as many changes as the XML, by kind" eq \
	"$(py "$D/diff.json" 'k = d["counts"]; print(d["n_changes"], len(d["changes"]), k["counter-increase"], k["counter-reset"], k["port-state"])')" \
	"$(xmllint --xpath 'string(/fabsweep-diff/summary/@changes)' "$D/diff.xml") $(xmllint --xpath 'string(/fabsweep-diff/summary/@changes)' "$D/diff.xml") $(xmllint --xpath 'count(//change[@kind="counter-increase"])' "$D/diff.xml") $(xmllint --xpath 'count(//change[@kind="counter-reset"])' "$D/diff.xml") $(xmllint --xpath 'count(//change[@kind="port-state"])' "$D/diff.xml")"
check "diff --json: the pulled cable" eq "$(py "$D/diff.json" '
for c in d["changes"]:
    if c["kind"] == "port-state": print(c["subject"]["guid"], c["subject"]["port"], c["new"])')" "$LEAF 5 down"
check "diff --json: the two scans as stored" eq \
	"$(py "$D/diff.json" 'print(*[(s["id"], s["started_at"], s["finished_at"], s["status"]) for s in (d["old"], d["new"])])')" \
	"$(q "SELECT group_concat(printf('(%d, ''%s'', ''%s'', ''%s'')', scan_id, started_at, finished_at, status), ' ') FROM scans WHERE scan_id IN (1, 2)")"

# scans --json: each scan's times, status and sizes as stored
fs scans --json > "$D/scans.json"
check "scans --json exits 0" eq "$?" 0
check "scans --json: every scan as the database says" eq \
	"$(py "$D/scans.json" '
for s in d["scans"]:
    print(s["id"], s["started_at"], s["finished_at"], s["status"], s["nodes"], s["ports"], s["links"], int(s["checked"]), s["findings"], s["scan_errors"])')" \
	"$(q "SELECT s.scan_id, s.started_at, s.finished_at, s.status,
		(SELECT count(*) FROM nodes n WHERE n.scan_id = s.scan_id),
		(SELECT count(*) FROM ports p WHERE p.scan_id = s.scan_id),
		(SELECT count(*) FROM links l WHERE l.scan_id = s.scan_id),
		(SELECT count(*) FROM checks c WHERE c.scan_id = s.scan_id),
		(SELECT count(*) FROM findings f WHERE f.scan_id = s.scan_id),
		(SELECT count(*) FROM scan_errors e WHERE e.scan_id = s.scan_id)
		FROM scans s ORDER BY 1" | tr '|' ' ')"

# The reports, against the same baseline.
fs report --scan 2 --baseline 1 --html "$D/r.html" --xml "$D/r.xml" > /dev/null
check "report exits 0" eq "$?" 0
xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$D/r.xml" 2> /dev/null
check "report XML validates" eq "$?" 0
check "XML report: the numbers" same "XML report" "$(xml_changes "$D/r.xml" description)"
xml_bad() {
	local n i g
	n=$(xmllint --xpath 'count(//*[local-name()="finding"][@rule="port.error_increase"])' "$D/r.xml")
	for ((i = 1; i <= n; i++)); do
		g=$(xmllint --xpath "string((//*[local-name()=\"finding\"][@rule=\"port.error_increase\"])[$i]/@node)" "$D/r.xml")
		q "SELECT description FROM nodes WHERE scan_id = 2 AND node_guid = '$g'"
	done | sort
}
check "XML report: the judgement" eq "$(xml_bad)" "$WANT_BAD"
check "XML report: the pulled cable" eq "$(xmllint --xpath "count(//*[local-name()='change'][@kind='port-state'][*[local-name()='subject' and @guid='$LEAF' and @port='5']])" "$D/r.xml")" 1
# HTML: each change is one table row; the "Now" cell says what it rose by.
HTML=$(grep -E '^<tr><td>(error counter rose|counter cleared): ' "$D/r.html" |
	sed -E 's|^<tr><td>[^:]*: ([A-Za-z]+)</td><td><span[^>]*>([^<]+)</span>.*, rose by ([0-9]+)( or more)?[^<]*</td></tr>$|\2 \1 \3\4|; s/ or more$/ at-least/; s/ ([0-9]+)$/ \1 exact/')
check "HTML report: the numbers" same "HTML report" "$HTML"
HTML_BAD=$(grep -E '^<tr>.*<code>port\.error_increase</code>' "$D/r.html" | sed -E 's|.*</code></td><td>([^/]+)/.*|\1|' | sort -u)
check "HTML report: the judgement" eq "$HTML_BAD" "$WANT_BAD"
check "HTML report: the pulled cable" eq "$(grep -cE "^<tr><td>port state</td><td><span title=\"$LEAF\">leaf001</span>/5</td>.*<td>down \(polling\)</td></tr>$" "$D/r.html")" 1

# Prometheus: the increase, and reset or saturated for "or more".
fs export prometheus --scan 2 --baseline 1 --out "$D/f.prom" --quiet
check "export exits 0" eq "$?" 0
check "Prometheus file format" prom_ok "$D/f.prom"
declare -A NAME # node_guid -> name, from fabsweep_node_info
while read -r g n; do NAME[$g]=$n; done < <(sed -nE \
	's/^fabsweep_node_info\{node_guid="([^"]*)",node="([^"]*)".*/\1 \2/p' "$D/f.prom")
series() { # family: "node counter value" for each series not 0
	grep -E "^$1\{" "$D/f.prom" | sed -E 's/.*node_guid="([^"]*)",port="[0-9]+",counter="([^"]*)"\} (.*)/\1 \2 \3/' |
		awk '$3 != 0' | while read -r g ctr v; do echo "${NAME[$g]} $ctr $v"; done
}
PROM=$(series fabsweep_port_error_increase | while read -r node ctr v; do
	more=exact
	series fabsweep_port_error_reset | grep -qx "$node $ctr 1" && more=at-least
	series fabsweep_port_error_saturated | grep -qx "$node $ctr 1" && more=at-least
	echo "$node $ctr $v $more"
done)
check "Prometheus: the numbers" same Prometheus "$PROM"
check "Prometheus: the judgement" has "$D/f.prom" 'fabsweep_findings{rule="port.error_increase",severity="info"} 3'
check "Prometheus: the pulled cable" has "$D/f.prom" "fabsweep_port_state{node_guid=\"$LEAF\",port=\"5\"} 1"
check "Prometheus: every series as the database says, the increases by hand" \
	python3 "$SRCDIR/tests/tools/prom_db.py" --db "$D/fab.db" --file "$D/f.prom" --scan 2 --baseline 1 \
	--expect "fabsweep_port_error_increase{node_guid=\"$(guid host0002)\",port=\"1\",counter=\"SymbolErrorCounter\"}=20" \
	--expect "fabsweep_port_error_reset{node_guid=\"$(guid host0002)\",port=\"1\",counter=\"SymbolErrorCounter\"}=1" \
	--expect "fabsweep_port_error_increase{node_guid=\"$(guid host0003)\",port=\"1\",counter=\"PortRcvErrors\"}=65435" \
	--expect "fabsweep_port_error_saturated{node_guid=\"$(guid host0003)\",port=\"1\",counter=\"PortRcvErrors\"}=1" \
	--expect "fabsweep_port_error_reset{node_guid=\"$(guid host0003)\",port=\"1\",counter=\"PortRcvErrors\"}=0" \
	--expect "fabsweep_port_error_increase{node_guid=\"$(guid host0004)\",port=\"1\",counter=\"SymbolErrorCounter\"}=20" \
	--expect "fabsweep_port_error_reset{node_guid=\"$(guid host0004)\",port=\"1\",counter=\"SymbolErrorCounter\"}=0"

# ready, live against the sweep (scan 1): the counters as they are now.
sim "$FABSWEEP" ready --db "$D/fab.db" --scan 1 --config "$D/fab.conf" --fail-on never \
	--hosts 'host[0002-0006]' > "$D/ready.out"
check "ready: not ready (1)" eq "$?" 1
READY=$(grep -oE '^host[0-9]+: .* error counters rose since scan 1: .*' "$D/ready.out" |
	sed -E 's/^(host[0-9]+): [^:]*: ([A-Za-z]+) \+([0-9]+)( or more)? .*/\1 \2 \3\4/; s/ or more$/ at-least/; s/ ([0-9]+)$/ \1 exact/')
check "ready: the numbers" same ready "$READY"
check "ready: the judgement" eq "$(grep -oE '^host[0-9]+: .* error counters rose' "$D/ready.out" | cut -d: -f1 | sort -u)" "$WANT_BAD"
check "ready: the pulled cable" has "$D/ready.out" "host0005: link host0005/1 <-> leaf001/5 is down/"
check "ready: the healthy host" lacks "$D/ready.out" "host0006:"
check "ready: summary" has "$D/ready.out" "ready: 5 hosts: 1 ready, 4 not ready, 0 not checked"
# ready --json: each host's problems, the lines of the text without the host
sim "$FABSWEEP" ready --db "$D/fab.db" --scan 1 --config "$D/fab.conf" --fail-on never \
	--hosts 'host[0002-0006]' --json > "$D/ready.json"
check "ready --json: not ready (1)" eq "$?" 1
READY_JSON=$(py "$D/ready.json" '
for h in d["hosts"]:
    for p in h["problems"]: print(h["host"] + ": " + p["text"])' | grep -oE '^host[0-9]+: .* error counters rose since scan 1: .*' |
	sed -E 's/^(host[0-9]+): [^:]*: ([A-Za-z]+) \+([0-9]+)( or more)? .*/\1 \2 \3\4/; s/ or more$/ at-least/; s/ ([0-9]+)$/ \1 exact/')
check "ready --json: the numbers" same "ready --json" "$READY_JSON"
check "ready --json: the verdicts of the text" eq \
	"$(py "$D/ready.json" 'print(d["verdict"], *[h["host"] + "=" + h["verdict"] for h in d["hosts"]])')" \
	"not_ready host0002=not_ready host0003=not_ready host0004=not_ready host0005=not_ready host0006=ready"
check "ready --json: the same problems as the text" eq \
	"$(py "$D/ready.json" '
for h in d["hosts"]:
    for p in h["problems"]: print(h["host"] + ": " + p["text"])' | sort)" \
	"$(grep -E '^host[0-9]+: ' "$D/ready.out" | sort)"

echo "$pass passed, $fail failed"
((fail == 0))
