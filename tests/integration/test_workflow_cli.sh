#!/usr/bin/env bash
# The workflow commands end to end on databases built by fabsynth (through the
# real store): diff (text, --exit-code, --xml validated by xmllint), export
# prometheus (atomic file, node-name-map), db baseline set/list/clear, db prune
# (--keep, --older-than, --dry-run; baselines kept; integrity_check after),
# usage errors; and the packaging files (config accepted by 'rules --config',
# man pages without groff warnings, systemd units verified).
set -uo pipefail
: "${FABSWEEP:?} ${FABSYNTH:?} ${SRCDIR:?} ${BUILDDIR:?}"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
need xmllint groff systemd-analyze promtool python3
q() { sqlite3 "$D/fab.db" "$@"; }
fs() { "$FABSWEEP" "$@" --db "$D/fab.db"; }
LEAF1=0x0002c90300200000 HOST1=0x0002c90300300000 HOST2=0x0002c90300300002

"$FABSYNTH" --db "$D/fab.db" --leaves 2 --spines 2 --hosts-per-leaf 3 --scans 4 > /dev/null || exit 1

# ---- diff: scan 2 loses a cable, one counter grows, one is reset, the SM's priority changes
q "UPDATE port_counters SET SymbolErrorCounter = 5 WHERE scan_id = 1 AND node_guid = '$LEAF1' AND port_num = 2;
   UPDATE port_counters SET SymbolErrorCounter = 500 WHERE scan_id = 2 AND node_guid = '$LEAF1' AND port_num = 2;
   UPDATE port_counters SET LinkDownedCounter = 9 WHERE scan_id = 1 AND node_guid = '$HOST2' AND port_num = 1;
   UPDATE port_counters SET LinkDownedCounter = 3 WHERE scan_id = 2 AND node_guid = '$HOST2' AND port_num = 1;
   UPDATE port_rows SET remote_guid = NULL, remote_port = NULL, remote_node_idx = NULL,
          state = 'down', phys_state = 'polling', width_active = NULL, speed_active = NULL
    WHERE scan_id = 2 AND ((node_guid = '$LEAF1' AND port_num = 1) OR (node_guid = '$HOST1' AND port_num = 1));
   DELETE FROM link_rows WHERE scan_id = 2 AND a_guid = '$LEAF1' AND a_port = 1;
   UPDATE sms SET priority = 5 WHERE scan_id = 2;" || exit 1

fs diff 1 2 > "$D/diff.txt"
check "diff exits 0" eq "$?" 0
check "diff header" has "$D/diff.txt" "-> scan 2 ("
check "diff: 6 changes" has "$D/diff.txt" ": 6 changes"
check "diff: link removed, both ends named" has "$D/diff.txt" \
	"  \"leaf0001\" $LEAF1 port 1 <-> \"node00001 HCA-1\" $HOST1 port 1 (4X HDR)"
check "diff: port state" has "$D/diff.txt" "  \"leaf0001\" $LEAF1 port 1: active/linkup -> down/polling"
check "diff: counter increase" has "$D/diff.txt" "  \"leaf0001\" $LEAF1 port 2 SymbolErrorCounter: 5 -> 500 (+495)"
check "diff: counter reset" has "$D/diff.txt" "  \"node00002 HCA-1\" $HOST2 port 1 LinkDownedCounter: 9 -> 3 (reset; 3 since)"
check "diff: SM priority" has "$D/diff.txt" ": priority 14 -> 5"
fs diff 1 2 --exit-code > /dev/null
check "--exit-code with changes: 1" eq "$?" 1
fs diff 3 4 --exit-code > "$D/same.txt"
check "--exit-code without changes: 0" eq "$?" 0
check "no changes" has "$D/same.txt" "no changes"
fs diff -2 latest > "$D/rel.txt"
check "relative ids (-2 is not an option)" has "$D/rel.txt" "scan 2 ("

# node-name-map
printf '# test map\n%s "L1 (rack 7)"\n' "$LEAF1" > "$D/map"
fs diff 1 2 --node-name-map "$D/map" > "$D/diff_named.txt"
check "diff uses mapped names" has "$D/diff_named.txt" "\"L1 (rack 7)\" $LEAF1 port 2 SymbolErrorCounter"
printf '%s L1\n' "$LEAF1" > "$D/badmap"
fs diff 1 2 --node-name-map "$D/badmap" > /dev/null 2> "$D/err"
check "bad map: exit 3" eq "$?" 3
check "bad map: file and line named" has "$D/err" "$D/badmap:1: expected a name in double quotes"

# XML
fs diff 1 2 --xml "$D/diff.xml" --quiet > "$D/quiet.txt"
check "--xml exits 0" eq "$?" 0
check "--quiet prints nothing" eq "$(wc -c < "$D/quiet.txt")" 0
xmllint --noout --schema "$SRCDIR/docs/fabsweep-diff.xsd" "$D/diff.xml" 2> "$D/xmllint.err"
check "diff XML validates against docs/fabsweep-diff.xsd" eq "$?" 0
check "XML: one link-removed" eq "$(xmllint --xpath 'count(//change[@kind="link-removed"])' "$D/diff.xml")" 1
check "XML: counter reset values" eq "$(xmllint --xpath 'string(//change[@kind="counter-reset"]/@new)' "$D/diff.xml")" 3
check "XML: summary" eq "$(xmllint --xpath 'string(/fabsweep-diff/summary/@changes)' "$D/diff.xml")" 6
check "no temporary files left" eq "$(ls "$D" | grep -c tmp)" 0

# ---- export prometheus (of a checked scan: its findings are in the file)
fs check --scan 2 --baseline 1 --fail-on never --quiet > /dev/null
check "check of scan 2 exits 0" eq "$?" 0
fs export prometheus --scan 2 --out "$D/fab.prom" --node-name-map "$D/map" > /dev/null
check "export exits 0" eq "$?" 0
check "export: counter" has "$D/fab.prom" \
	"fabsweep_port_errors_total{node_guid=\"$LEAF1\",port=\"2\",counter=\"SymbolErrorCounter\"} 500"
check "export: down port" has "$D/fab.prom" "fabsweep_port_state{node_guid=\"$LEAF1\",port=\"1\"} 1"
check "export: the mapped name, once, on node_info" eq \
	"$(grep -c 'node="L1 (rack 7)"' "$D/fab.prom") $(grep -c "^fabsweep_node_info{node_guid=\"$LEAF1\",node=\"L1 (rack 7)\"," "$D/fab.prom")" "1 1"
check "export: build info" has "$D/fab.prom" "fabsweep_build_info{version=\"$("$FABSWEEP" --version | cut -d' ' -f2)\"} 1"
# promtool (Prometheus' own checker): the format and its naming conventions
# (base units, _total on counters only, no abbreviated units)
promtool check metrics < "$D/fab.prom" > "$D/promtool.out" 2>&1
rc=$?
check "promtool check metrics passes: $(head -5 "$D/promtool.out" | tr '\n' ' ')" eq "$rc" 0
# every series of every family as the database's rows say (tests/tools/prom_db.py)
prom_db() { python3 "$SRCDIR/tests/tools/prom_db.py" --db "$D/fab.db" --version "$("$FABSWEEP" --version | cut -d' ' -f2)" "$@"; }
check "export: every value as the database says" prom_db --file "$D/fab.prom" --scan 2 --name "$LEAF1=L1 (rack 7)"
# rates: scan 2's sample of one port 100 s after scan 1's, 2,500 x 4 bytes sent since
q "UPDATE port_counters SET sampled_at = strftime('%Y-%m-%dT%H:%M:%fZ', sampled_at, '+100 seconds'),
   PortXmitData = PortXmitData + 2500 WHERE scan_id = 2 AND node_guid = '$LEAF1' AND port_num = 2"
fs export prometheus --scan 2 --baseline 1 --out "$D/rates.prom" > /dev/null
promtool check metrics < "$D/rates.prom" > "$D/promtool.out" 2>&1
rc=$?
check "promtool: the export with rates too: $(head -5 "$D/promtool.out" | tr '\n' ' ')" eq "$rc" 0
check "export --baseline: the data rate, from the counter model" has "$D/rates.prom" \
	"fabsweep_port_data_rate_bytes_per_second{node_guid=\"$LEAF1\",port=\"2\",direction=\"xmit\"} 100"
check "export --baseline: the error rate of the same pair" has "$D/rates.prom" \
	"fabsweep_port_error_rate_per_second{node_guid=\"$LEAF1\",port=\"2\",counter=\"SymbolErrorCounter\"} 4.95"
check "export --baseline: every value as the database says" prom_db --file "$D/rates.prom" --scan 2 --baseline 1 \
	--expect "fabsweep_port_error_increase{node_guid=\"$LEAF1\",port=\"2\",counter=\"SymbolErrorCounter\"}=495" \
	--expect "fabsweep_port_error_increase{node_guid=\"$HOST2\",port=\"1\",counter=\"LinkDownedCounter\"}=3" \
	--expect "fabsweep_port_error_reset{node_guid=\"$HOST2\",port=\"1\",counter=\"LinkDownedCounter\"}=1"
check "export: scan id" has "$D/fab.prom" "fabsweep_scan_id 2"
check "export: file mode 0644" eq "$(stat -c %a "$D/fab.prom")" 644
check "export: every sample line is fabsweep_*" eq "$(grep -v '^#' "$D/fab.prom" | grep -vc '^fabsweep_')" 0
fs export prometheus --out - > "$D/stdout.prom"
check "export to stdout (latest)" has "$D/stdout.prom" "fabsweep_scan_id 4"
fs export prometheus --out "$D/nodir/x.prom" > /dev/null 2>&1
check "export into a missing directory: exit 3" eq "$?" 3
fs export prometheus > /dev/null 2>&1
check "export without --out: exit 2" eq "$?" 2
fs export json --out x > /dev/null 2>&1
check "unknown format: exit 2" eq "$?" 2
# sweep and watch judge --prometheus as one function does: a *.prom file
for cmd in sweep watch; do
	for bad in "$D/fab.txt" "$D/.prom" "$D/"; do
		fs $cmd --prometheus "$bad" > /dev/null 2> "$D/prom.err"
		check "$cmd --prometheus '$bad': exit 2" eq "$?" 2
		check "... says what it wants" has "$D/prom.err" "takes a file ending in .prom"
	done
done

# ---- baselines and retention
fs db baseline set -2 --name golden > "$D/bl.txt"
check "baseline set" has "$D/bl.txt" "scan 2 is a baseline named 'golden'"
fs db baseline list > "$D/bl.txt"
check "baseline list" has "$D/bl.txt" "golden"
fs diff --baseline golden > "$D/bdiff.txt"
check "diff --baseline NAME against the latest" has "$D/bdiff.txt" "scan 2 ("
check "... is scan 2 -> 4" has "$D/bdiff.txt" "-> scan 4 ("
fs diff --baseline 'no such' > /dev/null 2>&1
check "diff --baseline with a bad name: exit 2" eq "$?" 2
fs diff --baseline nosuch > /dev/null 2>&1
check "diff --baseline unknown name: exit 3" eq "$?" 3

fs db prune --keep 1 --dry-run > "$D/dry.txt"
check "dry run lists" has "$D/dry.txt" "would drop scan 1"
check "dry run keeps the baseline" has "$D/dry.txt" "keep scan 2"
check "dry run changes nothing" eq "$(q 'SELECT count(*) FROM scans')" 4
fs db prune --keep 1 > "$D/prune.txt"
check "prune exits 0" eq "$?" 0
check "prune reports" has "$D/prune.txt" "dropped 2 scans, kept 1 baseline; 2 scans remain"
check "scans left: the baseline and the newest" eq "$(q 'SELECT group_concat(scan_id) FROM scans')" "2,4"
check "no orphan rows" eq "$(q "SELECT (SELECT count(*) FROM nodes WHERE scan_id NOT IN (2,4))
	+ (SELECT count(*) FROM port_rows WHERE scan_id NOT IN (2,4))
	+ (SELECT count(*) FROM port_counters WHERE scan_id NOT IN (2,4))
	+ (SELECT count(*) FROM links WHERE scan_id NOT IN (2,4))")" 0
check "integrity_check" eq "$(q 'PRAGMA integrity_check')" ok

# --older-than: ages from the started_at column
"$FABSYNTH" --db "$D/fab.db" --leaves 2 --spines 2 --hosts-per-leaf 3 --scans 2 > /dev/null
q "UPDATE scans SET started_at = '2020-01-01T00:00:00.000Z' WHERE scan_id IN (4, 5)"
fs db prune --older-than 30d > "$D/prune2.txt"
check "older-than drops old scans only" eq "$(q 'SELECT group_concat(scan_id) FROM scans')" "2,6"
fs db baseline clear golden > /dev/null
check "baseline clear" eq "$(q 'SELECT count(*) FROM baselines')" 0
q "UPDATE scans SET started_at = '2020-01-01T00:00:00.000Z'"
fs db prune --older-than 1w2d > /dev/null
check "the newest scan is never dropped" eq "$(q 'SELECT group_concat(scan_id) FROM scans')" 6
check "integrity_check after" eq "$(q 'PRAGMA integrity_check')" ok
fs db info > "$D/info.txt"
check "db info still works" has "$D/info.txt" "snapshots:      1 (scan 6 to 6)"

for bad in "prune" "prune --keep 0" "prune --older-than 30" "prune --older-than 3y" \
	"info --keep 3" "baseline" "baseline set" "baseline set 1 2" "baseline list --name x" \
	"baseline set 6 --name 7up" "frobnicate"; do
	# shellcheck disable=SC2086
	fs db $bad > /dev/null 2>&1
	check "db $bad: exit 2" eq "$?" 2
done
fs db baseline clear 99 > /dev/null 2>&1
check "clearing a non-baseline: exit 3" eq "$?" 3

# ---- packaging
"$FABSWEEP" rules --config "$SRCDIR/packaging/fabsweep.conf" > /dev/null
check "default config accepted by 'rules --config'" eq "$?" 0
sed -E 's/^#(\[|[A-Za-z][A-Za-z0-9._-]* = )/\1/' "$SRCDIR/packaging/fabsweep.conf" > "$D/uncommented.conf"
check "the commented examples are real sections and keys" test "$(grep -c '^\[' "$D/uncommented.conf")" -ge 5
"$FABSWEEP" rules --config "$D/uncommented.conf" > /dev/null
check "default config with every example uncommented is accepted" eq "$?" 0
for m in "$SRCDIR"/packaging/man/*.1; do
	out=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$m" 2>&1)
	check "man page $(basename "$m") renders without warnings" eq "$out" ""
done
check "the man pages were there to check" test "$(ls "$SRCDIR"/packaging/man/*.1 | wc -l)" -ge 1
unit="$BUILDDIR/packaging/fabsweep-sweep.service"
check "service configured with the install path" grep -q '^ExecStart=/.*/fabsweep sweep$' "$unit"
mkdir "$D/units"
# the binary's path quoted for systemd: a checkout's path can hold spaces
sed "s|^ExecStart=.*|ExecStart=\"$FABSWEEP\" sweep|" "$unit" > "$D/units/fabsweep-sweep.service"
cp "$SRCDIR/packaging/fabsweep-sweep.timer" "$D/units/"
out=$(cd "$D/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
	./fabsweep-sweep.service ./fabsweep-sweep.timer 2>&1)
check "systemd-analyze verify: ${out:-clean}" eq "$out" ""
wunit="$BUILDDIR/packaging/fabsweep-watch.service"
check "watch service configured with the install path" grep -q '^ExecStart=/.*/fabsweep watch --quiet$' "$wunit"
sed "s|^ExecStart=.*|ExecStart=\"$FABSWEEP\" watch --quiet|" "$wunit" > "$D/units/fabsweep-watch.service"
out=$(cd "$D/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
	./fabsweep-watch.service 2>&1)
check "systemd-analyze verify of the watch service: ${out:-clean}" eq "$out" ""

echo "$pass passed, $fail failed"
((fail == 0))
