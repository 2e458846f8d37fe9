#!/usr/bin/env bash
# Hostile strings from LLDP end to end, through real lldpd daemons: two
# network namespaces joined by a veth pair, each with its own lldpd whose
# system name, system description, port id and port description carry
# markup, terminal escapes (ESC [2J, OSC 52 clipboard write, ESC [5m), C0 and
# C1 control bytes and invalid UTF-8, set with lldpcli so the bytes go on the
# wire as given. Both advertise PFC (802.1Qaz TLVs), the host on priority 4
# instead of 3 and at MTU 1500, so `check` has findings that name the hostile
# systems. Through collect (in each namespace) -> merge ->
# check -> report -> export prometheus -> scans -> diff:
#  - nothing any command prints holds ESC or another control byte, a bidi
#    control, or invalid UTF-8;
#  - the HTML report holds no element or attribute from the fabric;
#  - the XML report is valid against its schema;
#  - Prometheus label values are escaped;
#  - the database holds the names made safe, never the raw control bytes.
# (test_reliability_hostile.sh does the same for InfiniBand node
# descriptions through ibsim.) Needs root; removes what it created.
set -uo pipefail
: "${FABSWEEP:?} ${SRCDIR:?}"
if [[ $EUID -ne 0 ]]; then
	echo "FAIL: test_reliability_hostile_lldp needs root (network namespaces); CI runs it as root"
	exit 1
fi
for tool in ip lldpd lldpcli sqlite3 xmllint iconv; do
	command -v "$tool" >/dev/null || { echo "FAIL: '$tool' is missing (scripts/deps.sh installs it)"; exit 1; }
done

pfx=hl$$
D=$(mktemp -d)
chmod 0755 "$D" # lldpd's privilege-separated child must reach the sockets
pids=()
cleanup() {
	daemons_stop "${pids[@]}" # tests/integration/checks.sh, sourced below
	ip netns del "$pfx-sw" 2>/dev/null
	ip netns del "$pfx-host" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source "$SRCDIR/tests/integration/checks.sh" # check eq ge has safe prom_ok
db=$D/fab.db
q() { sqlite3 -readonly "$db" "$@"; }
fs() { # name, then fabsweep arguments: output (stdout and stderr) in $D/out.NAME
	local name=$1
	shift
	"$FABSWEEP" "$@" > "$D/out.$name" 2>&1
}

# ---- the hostile strings, and what fabsweep's sanitizer makes of them
SW=$(printf 'sw<script>alert(1)</script>\033[2J')
SW_SAFE='sw<script>alert(1)</script>\x1b[2J'
HOST=$(printf 'host\033]52;c;SGVsbG8=\007\302\233x\377\376\342\200\256')
HOST_SAFE='host\x1b]52;c;SGVsbG8=\x07\xc2\x9bx\xff\xfe\xe2\x80\xae'
PORT_ID=$(printf 'p<b>pwn</b>\033[5m')
PORT_DESCR=$(printf '<img src=x onerror=alert(2)>\001')
HOST_DESCR=$(printf 'desc\033[31m<i>x</i>')

# lldpd's startup configuration (-O) is all its configuration, hostile names
# included: lldpd starts paused and its own lldpcli ends the file with
# `resume`, which is not under lldpcli's configuration lock; a second lldpcli
# configuring lldpd meanwhile writes back the whole configuration as it read
# it, and can pause lldpd again for good (neither end then hears anything)
# or set the hostname back (tests/README.md, lldpd). lldpcli's
# tokenizer passes the bytes between single quotes on as they are, but for
# ', \ and \002 (and a line ends at a newline): none of these may be in them.
for v in SW HOST PORT_ID PORT_DESCR HOST_DESCR; do
	[[ ${!v} != *[$'\'\\\n\002']* ]] || { echo "FAIL: $v holds what lldpcli's tokenizer consumes"; exit 1; }
done

# ---- two namespaces, one veth pair; MTU 9000 on the switch, 1500 on the host
ip netns add "$pfx-sw" && ip netns add "$pfx-host" || { echo "FAIL: ip netns add"; exit 1; }
ip link add e0 netns "$pfx-sw" mtu 9000 type veth peer name e0 netns "$pfx-host" mtu 1500 ||
	{ echo "FAIL: veth"; exit 1; }
for s in sw host; do # both ends up before either lldpd looks at e0
	ip -n "$pfx-$s" link set lo up
	ip -n "$pfx-$s" link set e0 up
done
for s in sw host; do
	{
		echo "configure lldp tx-interval 1"
		# PFC configuration TLV: willing 0, capability 8; priority 3 (switch), 4 (host)
		pfc=08,08
		[[ $s == host ]] && pfc=08,10
		echo "configure ports e0 lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $pfc"
		if [[ $s == sw ]]; then
			echo "configure system capabilities enabled bridge,router"
			echo "configure system hostname '$SW'"
			echo "configure ports e0 lldp portidsubtype local '$PORT_ID' description '$PORT_DESCR'"
		else
			echo "configure system hostname '$HOST'"
			echo "configure system description '$HOST_DESCR'"
		fi
	} > "$D/$s.conf"
	chmod 0644 "$D/$s.conf" # lldpcli reads it as _lldpd (the umask may be 077)
	ip netns exec "$pfx-$s" lldpd "${LLDPD_LOG_OPTS[@]}" -u "$D/$s.sock" -O "$D/$s.conf" -I 'e0' \
		> "$D/$s.log" 2>&1 &
	pids+=($!)
done
reported=0
report() { # on the first failure below: what each lldpd did, has and hears
	((reported++)) && return
	for s in sw host; do lldpd_report "$pfx-$s" "$D/$s.sock" "$D/$s.log"; done
}

# Each lldpd takes its hostile names as given (its own view of itself).
kv() { lldpcli -u "$D/$1.sock" -f keyvalue show "$2" 2>/dev/null; }
took() { # system, then lines its `show chassis` and `show interfaces` hold
	local s=$1 line all
	all=$(kv "$s" chassis; kv "$s" interfaces)
	shift
	for line; do grep -qxaF -- "$line" <<< "$all" || return 1; done
}
took_names() {
	took sw "local-chassis.chassis.name=$SW" "lldp.e0.port.local=$PORT_ID" "lldp.e0.port.descr=$PORT_DESCR" &&
		took host "local-chassis.chassis.name=$HOST" "local-chassis.chassis.descr=$HOST_DESCR"
}
check "each lldpd took its hostile names" wait_for 15 "each lldpd taking its hostile names" took_names || report

# Wait (bounded) until each daemon hears the other under its hostile name.
heard() { lldpcli -u "$D/$1.sock" -f keyvalue show neighbors 2>/dev/null | grep -caF "chassis.name=$2"; }
both_heard() { [[ $(heard sw "$HOST") == 1 && $(heard host "$SW") == 1 ]]; }
wait_for 30 "each lldpd hearing the other's hostile name" both_heard
check "each lldpd hears the other's hostile name" eq "$(heard sw "$HOST")$(heard host "$SW")" 11 || report

# ---- collect in each namespace, merge, check, report, export
for s in sw host; do
	ip netns exec "$pfx-$s" "$FABSWEEP" collect --out "$D/$s.db" --lldp-socket "$D/$s.sock" \
		> "$D/out.collect-$s" 2>&1
	check "collect on $s exits 0" eq "$?" 0
done
fs merge1 merge --db "$db" "$D/sw.db" "$D/host.db"
check "merge exits 0" eq "$?" 0
check "the names are stored made safe" eq "$(q "SELECT group_concat(system, '|') FROM
	(SELECT system FROM systems WHERE scan_id = 1 ORDER BY system DESC)")" "$SW_SAFE|$HOST_SAFE"
check "the port id and description as heard, made safe" eq \
	"$(q "SELECT neighbor_port_id || '|' || neighbor_port_descr FROM lldp_neighbors
		WHERE scan_id = 1 AND neighbor_system = '$SW_SAFE'")" \
	'p<b>pwn</b>\x1b[5m|<img src=x onerror=alert(2)>\x01'
check "no raw control byte anywhere in the database" eq \
	"$(sqlite3 -readonly "$db" .dump | tr -d '\n\t' | LC_ALL=C grep -c '[[:cntrl:]]')" 0
fs check check --db "$db" --limit 0
check "check finds the PFC and MTU faults (exit 1)" eq "$?" 1
check "check names the hostile switch (made safe)" has "$D/out.check" "$SW_SAFE"
check "check names the hostile host (made safe)" has "$D/out.check" "$HOST_SAFE"
fs report report --db "$db" --html "$D/r.html" --xml "$D/r.xml"
check "report exits 0" eq "$?" 0
fs prom export prometheus --db "$db" --out "$D/fab.prom"
check "export prometheus exits 0" eq "$?" 0
# a second merge of the same files: a second scan to list and diff
fs merge2 merge --db "$db" "$D/sw.db" "$D/host.db"
fs scans scans --db "$db"
fs diff diff --db "$db" 1 2
check "diff exits 0" eq "$?" 0

# ---- terminal output of every command
for f in "$D"/out.*; do
	check "$(basename "$f"): nothing unsafe for a terminal" safe "$f"
done

# ---- HTML: no markup from the fabric; the names shown as text
dom() { xmllint --html --xpath "$1" "$D/r.html" 2>/dev/null; }
check "HTML: one script element (the report's own)" eq "$(dom 'count(//script)')" 1
check "HTML: no element from the fabric" eq "$(dom 'count(//b[. = "pwn"] | //i[. = "x"] | //script[contains(., "alert")] | //img | //*[@onerror])')" 0
check "HTML: no event handler attribute" eq "$(dom "count(//@*[starts-with(name(), 'on')])")" 0
check "HTML: the switch's name shown as text" ge "$(dom "count(//*[contains(text(), 'sw<script>alert(1)</script>')])")" 1
check "HTML: no raw control byte" eq "$(tr -d '\n\t' < "$D/r.html" | LC_ALL=C grep -c '[[:cntrl:]]')" 0

# ---- XML: valid, no raw control byte
xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$D/r.xml" 2> "$D/xsd.log"
check "XML report validates against fabsweep-report.xsd" eq "$?" 0 || cat "$D/xsd.log"
check "XML: the switch's name comes back as stored" ge \
	"$(xmllint --xpath "count(//@*[. = '$SW_SAFE'])" "$D/r.xml" 2>/dev/null)" 1
check "XML: no raw control byte" eq "$(tr -d '\n\t' < "$D/r.xml" | LC_ALL=C grep -c '[[:cntrl:]]')" 0

# ---- Prometheus: the exposition grammar, label values escaped
check "prometheus: every line well-formed, labels escaped" prom_ok "$D/fab.prom"
check "prometheus: the sanitizer's escapes escaped again" has "$D/fab.prom" \
	'fabsweep_eth_port_mtu_bytes{system="host\\x1b]52;c;SGVsbG8=\\x07\\xc2\\x9bx\\xff\\xfe\\xe2\\x80\\xae",ifname="e0"} 1500'

echo "reliability_hostile_lldp: $pass passed, $fail failed"
((fail == 0))
