#!/usr/bin/env bash
# Trends people can see (docs/reports.md, "Trends"): fabsweep watch sweeps a
# simulated fabric (ibsim + real OpenSM) every second while errors are
# injected between sweeps (ibsim PerformanceSet: a spine port twice, a host
# port once); then `report --since` renders the period: the latest scan
# with the errors-per-minute timeline, a chart per port that counted errors
# or has a finding, and the findings raised in the period. Headless Chromium
# loads the page (no console message: the CSP is not violated), its DOM has
# the charts with the counters' lines, and a screenshot shows them: the
# chart colour is painted where the page without trends has none. Waits for
# database states, never for fixed times.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?} ${BUILDDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'kill "$(cat "$D/pid" 2> /dev/null)" 2> /dev/null; fabsim_stop "$D/sim" > /dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need sqlite3 xmllint python3
q() { sqlite3 -readonly "$D/fab.db" "$@" 2> /dev/null; }
waits() { local what=$1; shift; check "$what" wait_for 60 "$what" "$@"; }
at_least() { [[ "$(q "$1")" -ge "$2" ]]; }
# Whether counter $3 of "$1"[$2] was stored with value $4 by a sweep.
stored() {
	[[ "$(q "SELECT count(*) FROM counters c JOIN nodes n USING (scan_id, node_guid)
	   WHERE n.description = '$1' AND c.port_num = $2 AND c.counter = '$3' AND c.value = $4
	   AND c.scan_id > 1")" -ge 1 ]]
}
sweeps() { q 'SELECT count(*) FROM scans WHERE topology_scan_id IS NOT NULL'; }

# 2 leaves x 2 hosts, 2 spines
"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 2 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1

fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" watch --db "$D/fab.db" --interval 1s \
	> "$D/out" 2> "$D/err" &
WATCH=$!
waits "the full scan and three sweeps" at_least 'SELECT count(*) FROM scans WHERE topology_scan_id = 1' 3

fabsim_console "$D/sim" 'PerformanceSet "spine002"[2] PortCounters.SymbolErrorCounter=33' > /dev/null || exit 1
fabsim_console "$D/sim" 'PerformanceSet "host0003"[1] PortCounters.PortRcvErrors=4' > /dev/null || exit 1
waits "spine002/2's first errors stored" stored spine002 2 SymbolErrorCounter 33
waits "host0003/1's errors stored" stored host0003 1 PortRcvErrors 4
n=$(sweeps)
waits "two more sweeps" at_least 'SELECT count(*) FROM scans WHERE topology_scan_id IS NOT NULL' $((n + 2))
fabsim_console "$D/sim" 'PerformanceSet "spine002"[2] PortCounters.SymbolErrorCounter=150' > /dev/null || exit 1
waits "spine002/2's later errors stored" stored spine002 2 SymbolErrorCounter 150
n=$(sweeps)
waits "a few sweeps more" at_least 'SELECT count(*) FROM scans WHERE topology_scan_id IS NOT NULL' $((n + 3))
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "watch stops with exit 0" eq "$?" 0
check "sweeps were made every second" test "$(sweeps)" -ge 8

# ---- report --since: the period
"$FABSWEEP" report --db "$D/fab.db" --since 3m --node-name-map '' --html "$D/report.html" > "$D/rep" 2>&1
check "report --since exits 0" eq "$?" 0
check "it charts ports" has "$D/rep" "trends: "
check "the findings raised in the period" grep -Eq ', [1-9][0-9]* findings raised in the period' "$D/rep"
"$FABSWEEP" report --db "$D/fab.db" --no-trends --node-name-map '' --html "$D/plain.html" > /dev/null 2>&1
check "a report without trends (the control)" eq "$?" 0

source "$SRCDIR/tests/integration/browser.sh" # chrome no_console dom
chrome "$D/dom.log" --dump-dom "file://$D/report.html" > "$D/dom.html"
check "chromium loads the page" test -s "$D/dom.html"
check "no console message, CSP violation or script error" no_console "$D/dom.log"
check "the script ran under the CSP" eq "$(dom "$D/dom.html" 'string(/html/@data-script)')" ok
T='//section[@id="trends"]'
check "a trends section" eq "$(dom "$D/dom.html" "count($T)")" 1
check "the timeline has bars for the minutes with errors" \
	test "$(dom "$D/dom.html" "count($T//svg[contains(@class,'timeline')]//rect)")" -ge 1
check "the timeline's total is every error injected (29 + 4 + 117 = 150 - 0 + 4)" \
	has <(dom "$D/dom.html" "string($T//p[1])") "counted 154 errors"
chart() { dom "$D/dom.html" "count($T//figure[contains(string(figcaption), '$1')]//polyline[@data-counter='$2'])"; }
check "spine002/2's chart has its SymbolErrorCounter line" eq "$(chart spine002/2 SymbolErrorCounter)" 1
check "host0003/1's chart has its PortRcvErrors line" eq "$(chart host0003/1 PortRcvErrors)" 1
check "spine002/2 counted 150 in the period" \
	has <(dom "$D/dom.html" "string($T//figure[contains(string(figcaption), 'spine002/2')]//div[@class='legend'])") \
	"SymbolErrorCounter +150"
check "the findings raised in the period are listed" \
	test "$(dom "$D/dom.html" "count($T//table//tr[contains(., 'port.error')])")" -ge 1

# ---- the screenshot shows the charts: their colour is painted
shot=$BUILDDIR/trend-screenshot.png
rm -f "$shot"
chrome "$D/shot.log" --hide-scrollbars --window-size=1280,3000 --screenshot="$shot" "file://$D/report.html" > /dev/null
chrome "$D/plain.log" --hide-scrollbars --window-size=1280,3000 --screenshot="$D/plain.png" "file://$D/plain.html" > /dev/null
check "screenshot saved ($shot)" test -s "$shot"
cp "$D/report.html" "$BUILDDIR/trend-report.html" # for a look, and docs/img/report-trends.png
check "no console message while painting" no_console "$D/shot.log"
# pixels of the charts' first colour (#d9480f: the timeline's bars, the first line of each chart)
painted() { python3 "$SRCDIR/tests/integration/png_count.py" "$1" d9480f 10; }
p_trend=$(painted "$shot") p_plain=$(painted "$D/plain.png")
echo "chart-coloured pixels: $p_trend with trends, $p_plain without"
check "the charts are painted" test "$p_trend" -ge 300
check "... and only they have that colour (control)" test "$p_plain" -lt 20

echo "trend_sim: $pass passed, $fail failed"
((fail == 0))
