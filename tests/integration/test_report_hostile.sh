#!/usr/bin/env bash
# Hostile node descriptions through scan, check and report, on a simulated
# fabric (ibsim + OpenSM): devices whose NodeDescription carries markup,
# quotes, terminal escapes, control bytes and invalid UTF-8. The XML report
# stays valid against the schema and gives the (sanitized) text back; the
# HTML report, as headless Chromium builds it, holds no element or handler
# that the fabric put there, logs nothing, and shows the text as text.
# (tests/unit/reports/test_hostile.c does the same through the store with
# 64-byte descriptions without NUL and hostile finding texts.)
set -uo pipefail
: "${FABSWEEP:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has safe prom_ok

source "$SRCDIR/tests/integration/browser.sh" # chrome no_console console_is_logged xsd_valid dom
check "control: Chromium's log shows a page's console messages" console_is_logged
# XPath on the XML report, elements by local name (xmllint has no prefixes)
xq() { xmllint --xpath "$1" "$D/report.xml" 2>/dev/null; }

# ---- the fabric: names as a misbehaving or malicious device could send them
H1='<script>alert(1)</script>'
H2="'><img src=x onerror=alert(2)>"
H3=$(printf '\033[31mred\033]0;title\007 \377\376 &lt;')
L1='leaf&amp;<b>01</b>'
L2=$(printf 'leaf02 \342\200\256gnp.exe')  # U+202E right-to-left override
S1="SSSSSSSSSSSSSSSSSSSS<svg onload=alert(3)>AAAAAAAAAAAAAAAAAAAAAA"
{
	printf 'caguid=0x0002c90100000010\nHca 1 "mgmt01"\n[1]\t"%s"[1]\n\n' "$L1"
	printf 'caguid=0x0002c90100000020\nHca 1 "%s"\n[1]\t"%s"[2] w=1\n\n' "$H1" "$L1"
	printf 'caguid=0x0002c90100000030\nHca 1 "%s"\n[1]\t"%s"[1]\n\n' "$H2" "$L2"
	printf 'caguid=0x0002c90100000040\nHca 1 "%s"\n[1]\t"%s"[2]\n\n' "$H3" "$L2"
	printf 'switchguid=0x0002c90200000010\nSwitch 36 "%s"\n[1]\t"mgmt01"[1]\n[2]\t"%s"[1] w=1\n[3]\t"%s"[1]\n\n' \
		"$L1" "$H1" "$S1"
	printf 'switchguid=0x0002c90200000020\nSwitch 36 "%s"\n[1]\t"%s"[1]\n[2]\t"%s"[1]\n[3]\t"%s"[2]\n\n' \
		"$L2" "$H2" "$H3" "$S1"
	printf 'switchguid=0x0002c90300000010\nSwitch 36 "%s"\n[1]\t"%s"[3]\n[2]\t"%s"[3]\n' "$S1" "$L1" "$L2"
} >"$D/net"
fabsim_start "$D/net" "$D/sim" --sm-host mgmt01 >/dev/null || { echo "FAIL: simulator did not start"; exit 1; }

db=$D/fab.db
fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$db" --quiet
check "scan exits 0" eq "$?" 0
check "the scan kept the hostile description (sanitized)" eq \
	"$(sqlite3 "$db" "SELECT count(*) FROM nodes WHERE description = '$H1'")" 1
"$FABSWEEP" check --db "$db" --quiet
rc=$?
check "check runs (exit 0 or 1)" test "$rc" -le 1
check "a finding carries a hostile description" ge \
	"$(sqlite3 "$db" "SELECT count(*) FROM findings WHERE subject LIKE '%<script>alert(1)</script>%'")" 1
"$FABSWEEP" report --db "$db" --html "$D/report.html" --xml "$D/report.xml" >/dev/null
check "report exits 0" eq "$?" 0

# ---- XML: valid, and the text comes back as sent (sanitized, not mangled)
check "XML validates against the schema" \
	xsd_valid "$D/report.xml"
check "XML: <script> description as text" eq "$(xq "count(//*[local-name()='node'][@description='$H1'])")" 1
check "XML: quotes and markup description" eq \
	"$(xq "count(//*[local-name()='node'][@description=\"$H2\"])")" 1
check "XML: escapes and invalid bytes as \\xNN" eq \
	"$(xq "count(//*[local-name()='node'][@description='\\x1b[31mred\\x1b]0;title\\x07 \\xff\\xfe &lt;'])")" 1
check "XML: entity-looking text stays literal" eq "$(xq "count(//*[local-name()='node'][@description='$L1'])")" 1
check "XML: bidi override neutralized" eq \
	"$(xq "count(//*[local-name()='node'][@description='leaf02 \\xe2\\x80\\xaegnp.exe'])")" 1
check "XML: finding subject with markup" ge \
	"$(xq "count(//*[local-name()='subject'][contains(., '$H1')])")" 1
check "no raw control byte in either file" eq "$(cat "$D/report.xml" "$D/report.html" | tr -d '\n\t' |
	LC_ALL=C grep -c '[[:cntrl:]]')" 0
check "both files are valid UTF-8" iconv -f UTF-8 -t UTF-8 -o /dev/null "$D/report.xml" "$D/report.html"

# ---- HTML in the browser
chrome "$D/dom.log" --dump-dom "file://$D/report.html" >"$D/dom.html"
check "chromium loads the page" test -s "$D/dom.html"
check "no console message (no CSP violation, no script error)" no_console "$D/dom.log"
check "our script ran to its end" eq "$(dom "$D/dom.html" 'string(/html/@data-script)')" ok
check "exactly one script element" eq "$(dom "$D/dom.html" 'count(//script)')" 1
check "no event handler attribute anywhere" eq "$(dom "$D/dom.html" "count(//@*[starts-with(name(), 'on')])")" 0
check "no element from the fabric (img, iframe, b, svg onload...)" eq "$(dom "$D/dom.html" \
	'count(//img | //iframe | //object | //embed | //b[. = "01"] | //*[@src] | //*[@onload])')" 0
check "the hostile text is shown as text" ge "$(dom "$D/dom.html" \
	"count(//*[contains(text(), '$H1')])")" 1
check "the picture names the hostile spine as text" ge "$(dom "$D/dom.html" \
	"count(//*[local-name()='title'][contains(., '<svg onload=alert(3)>')])")" 1
chrome "$D/shot.log" --hide-scrollbars --window-size=1280,1400 --screenshot="$D/shot.png" "file://$D/report.html" >/dev/null
check "screenshot of the hostile page" test -s "$D/shot.png"
check "no console message while painting" no_console "$D/shot.log"

echo "report_hostile: $pass passed, $fail failed"
((fail == 0))
