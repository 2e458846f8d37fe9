#!/usr/bin/env bash
# Hostile strings end to end on a simulated fabric (ibsim + OpenSM): node
# descriptions with markup, quotes, backslashes, terminal escapes (ESC [2J
# clear screen, OSC 52 clipboard write, ESC [5m), C0 and C1 control bytes,
# DEL, invalid UTF-8, a bidi override, and names at ibsim's length limit;
# plus a scan label with escapes. Through scan -> check -> report -> export
# prometheus -> a second scan -> diff, and every other command that prints:
#  - nothing any command writes to stdout or stderr (not a terminal) holds
#    ESC or another C0/C1 control byte, DEL, a bidi control, or invalid UTF-8;
#  - the HTML report holds no element or attribute from the fabric;
#  - the XML report and the diff XML are valid against their schemas;
#  - Prometheus label values are escaped (\\ \" \n) and hold no raw control;
#  - the database keeps the raw bytes and the safe text side by side.
# (test_report_hostile.sh checks the HTML in a browser; unit tests and the
# fuzz targets fuzz_text and fuzz_mad cover 64-byte descriptions without a
# NUL, which ibsim cannot produce: it keeps at most 63 bytes of a name.)
set -uo pipefail
: "${FABSWEEP:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has safe prom_ok
db=$D/fab.db
fs() { # name, then fabsweep arguments: output (stdout and stderr) in $D/out.NAME
	local name=$1
	shift
	"$FABSWEEP" "$@" > "$D/out.$name" 2>&1
}
q() { sqlite3 -readonly "$db" "$@"; }
xsd_valid() { xmllint --noout --schema "$SRCDIR/docs/$2" "$1" 2> "$D/xsd.log" || { cat "$D/xsd.log"; return 1; }; }

# ---- the fabric: hostile names on hosts and on both switches
H1='<script>alert(1)</script>'
H2="it's <b>bold</b> & 'q' \\back\\slash \\x41"
H3=$(printf 'clear\033[2J\033]52;c;SGVsbG8=\007end')
H4=$(printf 'c1 \302\23331m raw\233 del\177 bs\010 cr\015 tab\011x')
H5=$(printf 'bad\377\376\300\257\355\240\200\200utf8')
H6=$(printf 'A%.0s' $(seq 58); printf '\342\200\256BCD')
H7=$(printf 'L%.0s' $(seq 80))
S1=$(printf 'leaf<i>1</i>\033[5m')
S2=$(printf 'spine\342\201\246x<svg onload=alert(3)>')
hosts=("$H1" "$H2" "$H3" "$H4" "$H5" "$H6" "$H7")
{
	printf 'caguid=0x0002c90100000010\nHca 1 "mgmt01"\n[1]\t"%s"[1]\n\n' "$S1"
	for i in "${!hosts[@]}"; do
		printf 'caguid=0x0002c901000000%d0\nHca 1 "%s"\n[1]\t"%s"[%d]%s\n\n' $((i + 2)) "${hosts[$i]}" "$S1" \
			$((i + 2)) "$( ((i == 1)) && echo ' w=1')"
	done
	printf 'switchguid=0x0002c90200000010\nSwitch 36 "%s"\n[1]\t"mgmt01"[1]\n' "$S1"
	for i in "${!hosts[@]}"; do
		printf '[%d]\t"%s"[1]%s\n' $((i + 2)) "${hosts[$i]}" "$( ((i == 1)) && echo ' w=1')"
	done
	printf '[20]\t"%s"[1]\n\n' "$S2"
	printf 'switchguid=0x0002c90300000010\nSwitch 36 "%s"\n[1]\t"%s"[20]\n' "$S2" "$S1"
} > "$D/net"
fabsim_start "$D/net" "$D/sim" --sm-host mgmt01 > /dev/null || { echo "FAIL: simulator did not start"; exit 1; }
fabsim_console "$D/sim" "PerformanceSet \"$H3\"[1] PortCounters.SymbolErrorCounter=9" > /dev/null

# ---- scan 1, check, report, export
fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$db" > "$D/out.scan1" 2>&1
check "scan 1 exits 0" eq "$?" 0
check "all 10 devices" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = 1")" 10
check "raw bytes kept as received (ESC, OSC 52, BEL)" eq \
	"$(q "SELECT hex(description_raw) FROM nodes WHERE node_guid = '0x0002c90100000040' AND scan_id = 1")" \
	"$(printf '%s' "$H3" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)"
check "safe text beside them" eq "$(q "SELECT description FROM nodes WHERE node_guid = '0x0002c90100000040' AND scan_id = 1")" \
	'clear\x1b[2J\x1b]52;c;SGVsbG8=\x07end'
check "C1 control (U+009B, CSI) escaped, not kept as UTF-8" eq \
	"$(q "SELECT description FROM nodes WHERE node_guid = '0x0002c90100000050' AND scan_id = 1")" \
	'c1 \xc2\x9b31m raw\x9b del\x7f bs\x08 cr\x0d tab\x09x'
check "ibsim keeps 63 bytes of a name: the longest arrive whole" eq \
	"$(q "SELECT max(length(description_raw)) FROM nodes WHERE scan_id = 1")" 63
fs check check --db "$db" --limit 0
check "check exits 1 (the 1X link is an error)" eq "$?" 1
check "check names the hostile host (made safe)" has "$D/out.check" "$H2"
check "check names the hostile leaf (made safe)" has "$D/out.check" 'leaf<i>1</i>\x1b[5m'
fs report1 report --db "$db" --html "$D/r1.html" --xml "$D/r1.xml"
check "report exits 0" eq "$?" 0
fs prom_stdout export prometheus --db "$db" --out -
check "export prometheus to stdout exits 0" eq "$?" 0
fs prom export prometheus --db "$db" --out "$D/fab.prom"
check "export prometheus to a file exits 0" eq "$?" 0

# ---- a second scan: H1's cable pulled, H4 dead, H3's errors grow, a hostile label
fabsim_console "$D/sim" "Unlink \"$H1\"" > /dev/null
fabsim_console "$D/sim" "Error \"$H5\" 100" > /dev/null
fabsim_console "$D/sim" "PerformanceSet \"$H3\"[1] PortCounters.SymbolErrorCounter=500" > /dev/null
LABEL=$(printf 'nightly\033]52;c;SGk=\007\033[2J\302\233')
fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$db" --timeout 200 --label "$LABEL" > "$D/out.scan2" 2>&1
check "scan 2 exits 4 (partial: a dead host)" eq "$?" 4
check "scan 2 lists what it missed, names made safe" has "$D/out.scan2" 'leaf<i>1</i>\x1b[5m'
fs scans scans --db "$db"
check "scans lists both" eq "$?" 0
check "scans shows the label, made safe" has "$D/out.scans" 'nightly\x1b]52;c;SGk=\x07\x1b[2J\xc2\x9b'
fs info db info --db "$db"
fs diff diff --db "$db" 1 2 --xml "$D/diff.xml"
check "diff exits 0" eq "$?" 0
check "diff names the removed hostile host" has "$D/out.diff" "\"$H1\""
check "diff names the counter growth on the escape host" has "$D/out.diff" 'clear\x1b[2J\x1b]52;c;SGVsbG8=\x07end'
fs check2 check --db "$db" --baseline 1 --limit 0
check "check against the baseline exits 1" eq "$?" 1
fs report2 report --db "$db" --baseline 1 --html "$D/r2.html" --xml "$D/r2.xml" --all-counters
check "report with a baseline exits 0" eq "$?" 0
fs rules rules
rule=$(q "SELECT rule_id FROM findings WHERE scan_id = 1 LIMIT 1")
fs rules_show rules show "$rule"
fs help help scan
fs prom2 export prometheus --db "$db" --out -

# ---- terminal output of every command
for f in "$D"/out.*; do
	check "$(basename "$f"): nothing unsafe for a terminal" safe "$f"
done
check "the outputs did carry the hostile names" ge "$(cat "$D"/out.* | grep -caF '\x1b')" 10

# ---- HTML: no markup from the fabric
for h in r1 r2; do
	f=$D/$h.html
	dom() { xmllint --html --xpath "$1" "$f" 2>/dev/null; }
	check "$h.html: one script element (the report's own)" eq "$(dom 'count(//script)')" 1
	check "$h.html: no element from the fabric" eq \
		"$(dom 'count(//b[. = "bold"] | //i[. = "1"] | //svg[@onload] | //img | //iframe | //*[@onload])')" 0
	check "$h.html: no event handler attribute" eq "$(dom "count(//@*[starts-with(name(), 'on')])")" 0
	check "$h.html: the hostile names shown as text" ge "$(dom "count(//*[contains(text(), '$H1')])")" 1
	check "$h.html: no raw control byte" eq "$(tr -d '\n\t' < "$f" | LC_ALL=C grep -c '[[:cntrl:]]')" 0
done

# ---- XML: valid, and the names come back as stored
for x in r1 r2; do
	check "$x.xml validates against fabsweep-report.xsd" xsd_valid "$D/$x.xml" fabsweep-report.xsd
done
check "diff.xml validates against fabsweep-diff.xsd" xsd_valid "$D/diff.xml" fabsweep-diff.xsd
check "XML: the <script> name as an attribute value" eq \
	"$(xmllint --xpath "count(//*[local-name()='node'][@description='$H1'])" "$D/r1.xml" 2>/dev/null)" 1
check "XML: the label made safe" eq "$(xmllint --xpath "count(//@*[. = 'nightly\\x1b]52;c;SGk=\\x07\\x1b[2J\\xc2\\x9b'])" \
	"$D/r2.xml" 2>/dev/null)" 1
check "XML files hold no raw control byte" eq "$(cat "$D"/*.xml | tr -d '\n\t' | LC_ALL=C grep -c '[[:cntrl:]]')" 0

# ---- Prometheus: the exposition grammar, label values escaped
check "prometheus file: every line well-formed, labels escaped" prom_ok "$D/fab.prom"
check "prometheus stdout: the same" prom_ok "$D/out.prom_stdout"
check "prometheus: backslashes escaped" has "$D/fab.prom" 'node="it'"'"'s <b>bold</b> & '"'"'q'"'"' \\back\\slash \\x41"'
check "prometheus: escapes of the sanitizer escaped again" has "$D/fab.prom" 'node="clear\\x1b[2J\\x1b]52;c;SGVsbG8=\\x07end"'

echo "reliability_hostile: $pass passed, $fail failed"
((fail == 0))
