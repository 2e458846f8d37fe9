# Shared by the tests that load reports in headless Chromium (source it
# after setting D, the test's scratch directory; not a test).
#   chrome LOG ARGS...    runs Chromium on a fresh profile, no network, its
#                         log (console messages included) in LOG
#   no_console LOG        LOG holds no console message
#   console_is_logged     the control: a page that logs a message and
#                         violates its CSP does show up in such a log, so
#                         that no_console's silence means something
#   xsd_valid FILE        the XML report validates against the schema
#   dom HTML XPATH        XPath over the DOM Chromium built (--dump-dom)
chromium_bin() { command -v chromium || command -v chromium-browser; }
if ! chromium_bin > /dev/null; then
	echo "installing chromium (apt-get install -y chromium)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium > /dev/null 2>&1 ||
		{ apt-get update > /dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y chromium > /dev/null 2>&1; }
fi
CHROMIUM=$(chromium_bin) || { echo "FAIL: chromium is not installed and could not be installed"; exit 1; }
chrome() {
	local log=$1 prof
	shift
	prof=$(mktemp -d "$D/profile.XXXXXX")
	timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 "$@" 2> "$log"
}
no_console() {
	[[ -f $1 ]] || { echo "  $1 does not exist: Chromium wrote no log to look in"; return 1; }
	if grep -a 'CONSOLE' "$1"; then return 1; fi
	return 0
}
console_is_logged() {
	cat > "$D/console-control.html" << 'HTML'
<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-iM/MCEFkGGOfSwb6CDT+HiCsZUgENC7ZVRTshKHYwQ4='">
<script>console.log("fabsweep-console-control");</script></head>
<body><img src="https://example.invalid/blocked.png"></body></html>
HTML
	chrome "$D/console-control.log" --dump-dom "file://$D/console-control.html" > /dev/null
	grep -aq 'CONSOLE.*fabsweep-console-control' "$D/console-control.log" ||
		{ echo "  a console.log of a page did not reach Chromium's log"; return 1; }
	grep -aq 'CONSOLE.*Content Security Policy' "$D/console-control.log" ||
		{ echo "  a CSP violation of a page did not reach Chromium's log"; return 1; }
}
xsd_valid() { xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$1" 2> "$D/xsd.log" || { cat "$D/xsd.log"; return 1; }; }
dom() { xmllint --html --xpath "$2" "$1" 2> /dev/null; }
