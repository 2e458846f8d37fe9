#!/usr/bin/env bash
# The kernel path of the NIC statistics and modules (host/ethtool*.c) on a
# veth pair in a network namespace: a real kernel answers ETHTOOL_GSTRINGS /
# GSTATS, the netlink statistics request with empty standard groups, "not
# supported" for pause and FEC statistics and for the module EEPROM. What
# fabsweep reads is compared with what ethtool(8) prints (`ethtool -i`, `-S`,
# `-S --all-groups`, `-a -I`, `--show-fec -I`, `-m`) and with iproute2's
# ifindex of the peer (veth's peer_ifindex); `fabsweep collect` in the
# namespace records the driver, statistics 'ok', module 'unsupported', no
# ethtool error, and ends complete (exit 0): not supported is unknown, not a
# failure. Needs root; about a second.
set -uo pipefail
: "${FABSWEEP:?set FABSWEEP}" "${ETHTOOL_READ:?set ETHTOOL_READ}" "${SRCDIR:?set SRCDIR}"
source "$SRCDIR/tests/integration/checks.sh"
[[ $EUID -eq 0 ]] || { echo "FAIL: test_ethtool_veth needs root (network namespaces); CI runs it as root"; exit 1; }
need ip ethtool sqlite3

ns=ev$$
work=$(mktemp -d)
trap 'ip netns del "$ns" 2> /dev/null; rm -rf "$work"' EXIT
ip netns add "$ns" || skip "cannot create a network namespace here"
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link add va type veth peer name vb || { echo "FAIL: cannot create a veth pair"; exit 1; }
in_ns ip link set va up && in_ns ip link set vb up
in_ns ip addr add 192.0.2.1/24 dev va && in_ns ip addr add 192.0.2.2/24 dev vb

for ifc in va vb; do
	in_ns "$ETHTOOL_READ" "$ifc" > "$work/$ifc.ours"
	in_ns ethtool -i "$ifc" > "$work/$ifc.i"
	in_ns ethtool -S "$ifc" > "$work/$ifc.S"
	# the driver ethtool -i names
	check "$ifc: the driver is ethtool -i's" eq "$(grep '^driver:' "$work/$ifc.ours")" "$(grep '^driver:' "$work/$ifc.i")"
	# every statistic, in ethtool -S's order, with its value
	sed -n 's/^ *\([^ ]*\): \([0-9]*\)$/\1: \2/p' "$work/$ifc.S" > "$work/$ifc.S.lines"
	grep -v '^driver:\|^netlink\|^module:\|^statistics:' "$work/$ifc.ours" > "$work/$ifc.ours.lines"
	check "$ifc: statistics as ethtool -S prints them" diff "$work/$ifc.S.lines" "$work/$ifc.ours.lines"
	check "$ifc: some statistics" ge "$(wc -l < "$work/$ifc.ours.lines")" 5
	# peer_ifindex against iproute2: the other end's interface index
	peer=$([[ $ifc == va ]] && echo vb || echo va)
	check "$ifc: peer_ifindex is $peer's ifindex" eq "$(sed -n 's/^peer_ifindex: //p' "$work/$ifc.ours")" \
		"$(in_ns cat /sys/class/net/$peer/ifindex)"
	# netlink: the standard groups answer, empty (ethtool: a header and nothing)
	in_ns ethtool -S "$ifc" --all-groups > "$work/$ifc.std" 2>&1
	check "$ifc: ethtool's standard groups are empty too" eq "$(grep -vc '^Standard stats for' "$work/$ifc.std")" 0
	check "$ifc: netlink statistics answer with no standard statistic" has "$work/$ifc.ours" "netlink stats: 0 statistics"
	# pause and FEC statistics, and the module: not supported, as ethtool finds
	in_ns ethtool -I -a "$ifc" > "$work/$ifc.a" 2>&1
	check "$ifc: ethtool -a -I: not supported" has "$work/$ifc.a" "Operation not supported"
	check "$ifc: pause statistics not supported" has "$work/$ifc.ours" "netlink pause: EOPNOTSUPP"
	in_ns ethtool -I --show-fec "$ifc" > "$work/$ifc.fec" 2>&1
	check "$ifc: ethtool --show-fec: not supported" has "$work/$ifc.fec" "Operation not supported"
	check "$ifc: FEC statistics not supported" has "$work/$ifc.ours" "netlink fec: EOPNOTSUPP"
	in_ns ethtool -m "$ifc" > "$work/$ifc.m" 2>&1
	check "$ifc: ethtool -m: not supported" has "$work/$ifc.m" "Operation not supported"
	check "$ifc: no module EEPROM" has "$work/$ifc.ours" "module: EOPNOTSUPP"
done

# the collection: statuses, no ethtool error, complete
in_ns "$FABSWEEP" collect --quiet --out "$work/c.db" > "$work/collect.out" 2>&1
rc=$?
check "collect ends complete (exit 0)" eq "$rc" 0
q() { sqlite3 -batch "$work/c.db" "$1"; }
check "va and vb: driver veth, statistics ok, module unsupported" eq \
	"$(q "SELECT group_concat(ifname || ' ' || driver || ' ' || stats_status || ' ' || module_status, ', ') FROM (SELECT * FROM eth_ports WHERE ifname IN ('va','vb') ORDER BY ifname)")" \
	"va veth ok unsupported, vb veth ok unsupported"
check "no ethtool scan error" eq "$(q "SELECT count(*) FROM scan_errors WHERE what = 'ethtool'")" 0
check "the scan is complete" eq "$(q "SELECT status FROM scans")" complete
check "veth's statistics map to no NIC counter" eq "$(q "SELECT count(*) FROM nic_counters")" 0
check "no module row" eq "$(q "SELECT count(*) FROM modules")" 0
# --no-ethtool: nothing queried (NULL), not 'unsupported'
in_ns "$FABSWEEP" collect --quiet --no-ethtool --out "$work/n.db" > /dev/null 2>&1
check "--no-ethtool leaves the statuses unknown" eq \
	"$(sqlite3 "$work/n.db" "SELECT count(*) FROM eth_ports WHERE driver IS NULL AND stats_status IS NULL AND module_status IS NULL AND ifname IN ('va','vb')")" 2

echo "test_ethtool_veth: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
