#!/usr/bin/env bash
# fabsweep sweep on a simulated fabric (ibsim + real OpenSM), configured through
# the [sweep] section of a config file: two sweeps around an ibsim `Unlink` of a
# leaf-spine cable and a `PerformanceSet` of an error counter. The second sweep's
# check compares counters with the first, its report directory holds timestamped
# HTML and XML reports and latest.html/latest.xml (the same files), its
# Prometheus file and `fabsweep diff` show both changes; a third sweep prunes the
# first scan and its reports; node names come from a node-name-map; a bad
# config fails before any scan.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
need xmllint python3
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
sweep() { fabsim_run "$D/sim" -- "$FABSWEEP" sweep --db "$D/fab.db" --config "$D/conf" "$@"; }

# 2 leaves x 2 hosts, 2 spines: leaf ports 1-2 hosts, 3 to spine001, 4 to spine002.
"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 2 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
mkdir "$D/prom"
cat > "$D/conf" << EOF
# the rule configuration, and how the sweep runs
[rules]
sm.no_standby = off

[sweep]
report_dir = $D/reports
prometheus = $D/prom/fabsweep.prom
keep = 2
baseline = previous
node_name_map = $D/map
EOF
printf '# no names yet\n' > "$D/map"

sweep > "$D/out1" 2> "$D/err1"
check "sweep 1 exits 0" eq "$?" 0
check "sweep 1: scan line" has "$D/out1" "sweep: scan 1: complete;"
check "sweep 1: check summary" has "$D/out1" "scan 1 ("
check "sweep 1: first sweep has no baseline" eq "$(grep -c 'counter deltas' "$D/out1")" 0
check "report dir created, latest.html" test -s "$D/reports/latest.html"
check "latest.xml" test -s "$D/reports/latest.xml"
H1=$(ls "$D"/reports/fabsweep-*-scan1.html 2> /dev/null)
check "timestamped HTML of scan 1" test -n "$H1"
check "timestamped XML of scan 1" test -n "$(ls "$D"/reports/fabsweep-*-scan1.xml 2> /dev/null)"
check "latest.html is scan 1's report" eq "$(stat -c %i "$D/reports/latest.html")" "$(stat -c %i "$H1")"
check "prometheus: scan 1" has "$D/prom/fabsweep.prom" "fabsweep_scan_id 1"
check "label sweep" eq "$(q 'SELECT label FROM scans WHERE scan_id = 1')" sweep
check "no temporary files left" eq "$(find "$D/reports" "$D/prom" -name '*tmp*' | wc -l)" 0

guid() { q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND description = '$1'"; }
LEAF1=$(guid leaf001) LEAF2=$(guid leaf002) SPINE2=$(guid spine002)
SPORT=$(q "SELECT remote_port FROM ports WHERE scan_id = 1 AND node_guid = '$LEAF1' AND port_num = 4")
base=$(q "SELECT value FROM counters WHERE scan_id = 1 AND node_guid = '$LEAF2' AND port_num = 1
	AND counter = 'SymbolErrorCounter'")
printf '%s "leaf-two"   # row B\n' "$LEAF2" > "$D/map"

fabsim_console "$D/sim" 'Unlink "leaf001"[4]' > /dev/null || exit 1
# 60,000 errors: a rate above 10/s however long the machine takes between the sweeps
fabsim_console "$D/sim" 'PerformanceSet "leaf002"[1] PortCounters.SymbolErrorCounter=60000' > /dev/null || exit 1
fabsim_resweep "$D/sim" || exit 1 # OpenSM has configured the change
sweep > "$D/out2" 2> "$D/err2"
rc=$?
check "sweep 2 exits 1 (an error finding: the counter rate): $rc" eq "$rc" 1
check "sweep 2: counters against sweep 1" has "$D/out2" "counter deltas: since the baseline, scan 1"
check "sweep 2: the finding with the mapped name" has "$D/out2" "port.error_rate        leaf-two/1 <-> host0003/1:"
check "sweep 2: stored subject keeps the description" eq \
	"$(q "SELECT subject FROM findings WHERE scan_id = 2 AND rule_id = 'port.error_rate'")" "leaf002/1 <-> host0003/1"
H2=$(ls "$D"/reports/fabsweep-*-scan2.html 2> /dev/null)
check "latest.html is now scan 2's" eq "$(stat -c %i "$D/reports/latest.html")" "$(stat -c %i "$H2")"
check "report names the node by the map" has "$D/reports/latest.html" "leaf-two"
xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$D/reports/latest.xml" 2> /dev/null
check "latest.xml validates" eq "$?" 0
check "XML: changes since scan 1 (the removed link)" \
	eq "$(xmllint --xpath 'count(//*[local-name()="change" and @kind="link-removed"])' "$D/reports/latest.xml")" 1
P="$D/prom/fabsweep.prom"
check "prometheus: scan 2" has "$P" "fabsweep_scan_id 2"
check "prometheus: the counter, mapped name" has "$P" \
	"fabsweep_port_errors_total{node_guid=\"$LEAF2\",port=\"1\",counter=\"SymbolErrorCounter\"} 60000"
check "prometheus: the mapped name on node_info" has "$P" "fabsweep_node_info{node_guid=\"$LEAF2\",node=\"leaf-two\","
check "prometheus: rates since the previous sweep" grep -q \
	"^fabsweep_port_data_rate_bytes_per_second{node_guid=\"$LEAF2\",port=\"1\",direction=\"xmit\"} " "$P"
check "prometheus: the unplugged port is down" has "$P" \
	"fabsweep_port_state{node_guid=\"$LEAF1\",port=\"4\"} 1"
check "prometheus: one link fewer" eq "$(sed -n 's/^fabsweep_links //p' "$P")" \
	"$(($(q 'SELECT count(*) FROM links WHERE scan_id = 1') - 1))"
check "prometheus: the error finding" has "$P" 'fabsweep_findings{rule="port.error_rate",severity="error"} 1'
# every value of the sweep's file against the rows of scan 2 and its baseline, scan 1
# (tests/tools/prom_db.py); the counter set here and its rate by hand
S12=$(awk -v a="$(date -u -d "$(q "SELECT sampled_at FROM port_counters WHERE scan_id = 1 AND node_guid = '$LEAF2' AND port_num = 1")" +%s%3N)" \
	-v b="$(date -u -d "$(q "SELECT sampled_at FROM port_counters WHERE scan_id = 2 AND node_guid = '$LEAF2' AND port_num = 1")" +%s%3N)" \
	'BEGIN { printf "%.6f", (b - a) / 1000 }')
check "prometheus: every value as the database says" python3 "$SRCDIR/tests/tools/prom_db.py" --db "$D/fab.db" \
	--file "$P" --scan 2 --baseline 1 --name "$LEAF2=leaf-two" \
	--expect "fabsweep_port_error_increase{node_guid=\"$LEAF2\",port=\"1\",counter=\"SymbolErrorCounter\"}=$((60000 - base))" \
	--expect "fabsweep_port_error_rate_per_second{node_guid=\"$LEAF2\",port=\"1\",counter=\"SymbolErrorCounter\"}=$(awk -v s="$S12" -v i=$((60000 - base)) 'BEGIN { printf "%.12g", i / s }')"

"$FABSWEEP" diff 1 2 --db "$D/fab.db" --node-name-map '' > "$D/diff.txt"
check "diff: the removed link" has "$D/diff.txt" \
	"  \"leaf001\" $LEAF1 port 4 <-> \"spine002\" $SPINE2 port $SPORT ("
check "diff: the counter" has "$D/diff.txt" \
	"  \"leaf002\" $LEAF2 port 1 SymbolErrorCounter: $base -> 60000 (+$((60000 - base)))"

# a third sweep: keep = 2 drops scan 1 and its two reports
sweep --fail-on never > "$D/out3" 2> "$D/err3"
rc=$?
check "sweep 3 with --fail-on never exits 0: $rc" eq "$rc" 0
check "sweep 3: pruned one" has "$D/out3" "pruned 1 scan (2 left)"
check "scans left" eq "$(q 'SELECT group_concat(scan_id) FROM scans')" "2,3"
check "scan 1's reports removed" eq "$(ls "$D"/reports/fabsweep-*-scan1.* 2> /dev/null | wc -l)" 0
check "reports of 2 and 3 kept" eq "$(ls "$D"/reports/fabsweep-*-scan[23].* | wc -l)" 4

# the command line overrides the config; --quiet prints nothing
sweep --report-dir "$D/other" --quiet --fail-on never > "$D/out4"
check "sweep 4 exits 0" eq "$?" 0
check "--quiet prints nothing" eq "$(wc -c < "$D/out4")" 0
check "--report-dir overrides report_dir" test -s "$D/other/latest.html"

# a bad [sweep] value: exit 3 naming the line, before any scan
printf '[sweep]\nkeep = all\n' > "$D/bad.conf"
fabsim_run "$D/sim" -- "$FABSWEEP" sweep --db "$D/fab.db" --config "$D/bad.conf" 2> "$D/err5"
check "bad config: exit 3" eq "$?" 3
check "bad config: file and line" has "$D/err5" "bad.conf:2: 'keep' in [sweep] takes a whole number of scans"
check "bad config: no scan made" eq "$(q 'SELECT max(scan_id) FROM scans')" 4
check "integrity" eq "$(q 'PRAGMA integrity_check')" ok

echo "$pass passed, $fail failed"
((fail == 0))
