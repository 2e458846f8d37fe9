#!/usr/bin/env bash
# The HTML report in a real browser (headless Chromium): a checked snapshot
# with a baseline renders with no console message at all (no CSP violation,
# no script error, no blocked fetch), its inline script and style run under
# the page's Content-Security-Policy, and a screenshot is saved. The XML
# report of the same scan validates against docs/fabsweep-report.xsd. A
# 4,096-host fabric loads as well.
set -uo pipefail
: "${FABSWEEP:?} ${FABSYNTH:?} ${SRCDIR:?} ${BUILDDIR:?}"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq

# ---- Chromium: installed on demand, a fresh profile per run, no network
source "$SRCDIR/tests/integration/browser.sh" # chrome no_console console_is_logged xsd_valid dom
check "control: Chromium's log shows a page's console messages" console_is_logged

# ---- a checked snapshot and a baseline
db=$D/fab.db
"$FABSYNTH" --db "$db" --leaves 8 --spines 4 --hosts-per-leaf 12 --scans 2 --label nightly >/dev/null ||
	{ echo "FAIL: fabsynth"; exit 1; }
# scan 2 has a degraded link (1X) and more symbol errors than scan 1
sqlite3 "$db" "UPDATE port_rows SET width_active='1X' WHERE scan_id=2 AND
		(node_guid, port_num) IN (SELECT node_guid, port_num FROM port_rows WHERE scan_id=2
		AND node_guid LIKE '0x0002c903002%' AND port_num=13 LIMIT 1);
	UPDATE port_rows SET width_active='1X' WHERE scan_id=2 AND (node_guid, port_num) IN
		(SELECT remote_guid, remote_port FROM port_rows WHERE scan_id=2 AND
		 node_guid LIKE '0x0002c903002%' AND port_num=13 LIMIT 1);
	UPDATE port_counters SET SymbolErrorCounter=9000 WHERE scan_id=2 AND port_num=13
		AND node_guid LIKE '0x0002c903002%';"
for s in 1 2; do
	"$FABSWEEP" check --db "$db" --scan "$s" --quiet
	rc=$?
	check "check of scan $s runs (exit 0 or 1)" test "$rc" -le 1
done
"$FABSWEEP" report --db "$db" --baseline 1 --html "$D/report.html" --xml "$D/report.xml" >"$D/out"
check "report exits 0" eq "$?" 0
check "report names both files" grep -q "wrote $D/report.xml" "$D/out"
check "XML validates against the schema" \
	xsd_valid "$D/report.xml"
check "no temporary file is left" eq "$(ls "$D" | grep -c tmp)" 0

# ---- in the browser
chrome "$D/dom.log" --dump-dom "file://$D/report.html" >"$D/dom.html"
check "chromium loads the page" test -s "$D/dom.html"
check "no console message, CSP violation or script error" no_console "$D/dom.log"
check "the script ran to its end under the CSP" eq "$(dom "$D/dom.html" 'string(/html/@data-script)')" ok
check "the stylesheet applied under the CSP" eq "$(dom "$D/dom.html" 'string(/html/@data-style)')" ok
check "one script element, no handlers" eq "$(dom "$D/dom.html" \
	"count(//script) + count(//@*[starts-with(name(), 'on')])")" 1
check "nothing fetched or embedded" eq "$(dom "$D/dom.html" \
	'count(//img | //iframe | //object | //embed | //link[@href != "data:,"] | //*[@src])')" 0
check "the verdict banner" eq "$(dom "$D/dom.html" 'string(//section[@id="verdict"]/@class)')" "banner failing"
check "the filter shows every finding" eq "$(dom "$D/dom.html" \
	"string(//*[@id='f-count'])")" "$(sqlite3 "$db" "SELECT count(*) FROM findings WHERE scan_id=2") of $(sqlite3 "$db" "SELECT count(*) FROM findings WHERE scan_id=2") findings shown"
check "a topology picture" test "$(dom "$D/dom.html" 'count(//svg//rect)')" -gt 12
check "the changes section" test "$(dom "$D/dom.html" 'count(//section[@id="changes"]//tr)')" -gt 1

# ---- the controls, driven by a test script in a copy of the page (its CSP
# relaxed to let the test script run after the page's own)
cat >"$D/drive.js" <<'JS'
(function () {
  var d = document, out = [];
  function shown() { return d.querySelectorAll('details.rule tbody tr:not([hidden])').length; }
  function fire(el, type) { el.dispatchEvent(new Event(type)); }
  out.push('all=' + shown());
  var warn = d.querySelector('.filters input[data-sev="warning"]');
  warn.checked = false; fire(warn, 'change');
  out.push('nowarn=' + shown());
  warn.checked = true; fire(warn, 'change');
  var rule = d.getElementById('f-rule');
  rule.value = 'port.errors'; fire(rule, 'change');
  out.push('rule=' + shown());
  out.push('groups=' + d.querySelectorAll('details.rule:not([hidden])').length);
  rule.value = ''; fire(rule, 'change');
  var text = d.getElementById('f-text');
  text.value = 'SPINE0002'; fire(text, 'input');
  out.push('text=' + shown());
  text.value = ''; fire(text, 'input');
  out.push('count=' + d.getElementById('f-count').textContent.split(' ')[0]);
  // sort the biggest findings table by port, up then down
  var tables = d.querySelectorAll('details.rule table'), t = tables[0];
  for (var i = 1; i < tables.length; i++)
    if (tables[i].tBodies[0].rows.length > t.tBodies[0].rows.length) t = tables[i];
  function ports() {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return Number(r.cells[3].textContent); });
  }
  function sorted(a, dir) { for (var i = 1; i < a.length; i++) if (dir * (a[i] - a[i - 1]) < 0) return false; return true; }
  var th = t.tHead.rows[0].cells[3];
  th.click();
  out.push('asc=' + sorted(ports(), 1) + '/' + th.getAttribute('aria-sort'));
  th.click();
  out.push('desc=' + sorted(ports(), -1) + '/' + th.getAttribute('aria-sort'));
  out.push('rows=' + ports().length);
  d.documentElement.setAttribute('data-drive', out.join(' '));
})();
JS
sed -e "s/script-src 'sha256-[^']*'/script-src 'unsafe-inline'/" "$D/report.html" |
	awk -v js="$D/drive.js" 'index($0, "</body>") {
		print "<script>"; while ((getline l < js) > 0) print l; print "</script>" } { print }' >"$D/drive.html"
chrome "$D/drive.log" --dump-dom "file://$D/drive.html" >"$D/drive-dom.html"
drive=$(dom "$D/drive-dom.html" 'string(/html/@data-drive)')
echo "controls: $drive"
kv() { tr ' ' '\n' <<<"$drive" | sed -n "s/^$1=//p"; }
total=$(sqlite3 "$db" "SELECT count(*) FROM findings WHERE scan_id=2")
check "controls: every finding shown at first" eq "$(kv all)" "$total"
check "controls: unticking warnings hides them" eq "$(kv nowarn)" \
	"$(sqlite3 "$db" "SELECT count(*) FROM findings WHERE scan_id=2 AND severity <> 'warning'")"
check "controls: the rule filter" eq "$(kv rule)" \
	"$(sqlite3 "$db" "SELECT count(*) FROM findings WHERE scan_id=2 AND rule_id='port.errors'")"
check "controls: the rule filter hides other groups" eq "$(kv groups)" 1
check "controls: the text filter (any case)" test "$(kv text)" -gt 0 -a "$(kv text)" -lt "$total"
check "controls: count back to all" eq "$(kv count)" "$total"
check "controls: sort ascending" eq "$(kv asc)" "true/ascending"
check "controls: sort descending" eq "$(kv desc)" "true/descending"
check "controls: sorting keeps every row" test "$(kv rows)" -gt 1
check "controls: no console message" no_console "$D/drive.log"

shot=$BUILDDIR/report-screenshot.png
rm -f "$shot"
chrome "$D/shot.log" --hide-scrollbars --window-size=1280,1800 --screenshot="$shot" "file://$D/report.html" >/dev/null
check "screenshot saved ($shot)" test -s "$shot"
check "no console message while painting" no_console "$D/shot.log"

# ---- 4,096 hosts: loads, no console message, aggregated picture
big=$D/big.db
"$FABSYNTH" --db "$big" --leaves 128 --spines 16 --hosts-per-leaf 32 --findings 40 >/dev/null
"$FABSWEEP" report --db "$big" --html "$D/big.html" >/dev/null
check "report of 4,096 hosts" eq "$?" 0
chrome "$D/big.log" --dump-dom "file://$D/big.html" >"$D/big-dom.html"
check "4,096 hosts: no console message" no_console "$D/big.log"
check "4,096 hosts: script ran" eq "$(dom "$D/big-dom.html" 'string(/html/@data-script)')" ok
check "4,096 hosts: 128 host groups, not 4,096 boxes" eq "$(dom "$D/big-dom.html" 'count(//svg//*[@class="hg"])')" 128

echo "report_browser: $pass passed, $fail failed"
((fail == 0))
