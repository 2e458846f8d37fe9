#!/usr/bin/env bash
# The README's first command, scripts/demo.sh, end to end with the binaries
# of this build (it builds nothing when FABSWEEP and FABGEN are set), into an
# output directory whose path has a space: it exits 0, prints where the
# results are, and they hold what the demo injected (one link at 1X, symbol
# errors on leaf005 port 2, a master and a standby SM), checked and reported.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks
need xmllint
out="$D/demo out"
q() { sqlite3 -readonly "$out/fabsweep.db" "$@"; }

(cd "$D" && bash "$SRCDIR/scripts/demo.sh" "$out") > "$D/demo.log" 2>&1
rc=$?
check "demo exits 0" eq "$rc" 0
((rc == 0)) || sed 's/^/  /' "$D/demo.log" | tail -20
check "demo prints the database" has "$D/demo.log" "database: $out/fabsweep.db"
check "demo prints the reports" has "$D/demo.log" "report:   $out/report.html and $out/report.xml"
check "the suggested query runs as printed" \
	bash -c "$(sed -n 's/^try: *//p' "$D/demo.log") > /dev/null"
check "one scan, complete" eq "$(q "SELECT count(*) || ' ' || status FROM scans")" "1 complete"
check "the 1X link is there" eq "$(q "SELECT count(*) FROM links WHERE width = '1X'")" 1
check "master and standby" eq "$(q "SELECT group_concat(state, ' ') FROM (SELECT state FROM sms ORDER BY state)")" \
	"master standby"
check "checked: the 1X link found" eq "$(q "SELECT count(*) FROM findings WHERE rule_id = 'link.width_degraded'")" 1
check "checked: the symbol errors found on leaf005 port 2" eq "$(q "SELECT count(*) FROM findings f
	JOIN nodes n ON n.scan_id = f.scan_id AND n.node_guid = f.node
	WHERE f.rule_id = 'port.errors' AND n.description = 'leaf005' AND f.port = '2'")" 1
xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$out/report.xml" 2> "$D/xsd.log"
check "the XML report validates" eq "$?" 0
check "the HTML report names the fault" has "$out/report.html" "leaf005"
check "no simulator left running" eq "$(pgrep -f "fabsweep-demo-sim" | wc -l)" 0

echo "demo: $pass passed, $fail failed"
((fail == 0))
