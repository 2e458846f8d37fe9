#!/usr/bin/env bash
# Lossy and dead nodes on a simulated fabric:
#  - 5% MAD loss on every host (ibsim `Error "hostN" 5`): topology, counters
#    and descriptions are complete after retries, although libibnetdisc alone
#    (which leaves retries to the kernel; the simulator has none) misses some;
#  - a host dropping every MAD: the scan ends in bounded time, exit 4, and
#    records the dead node as a hole at its leaf's port;
#  - a leaf switch dropping every MAD: same, with its whole subtree missing and
#    a hole at every spine port that faces it;
#  - a leaf switch that answers NodeInfo but no PortInfo: the node is recorded
#    as not answering SMPs, every port of it with an unknown state.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@" 2>/dev/null; }
last() { q "SELECT max(scan_id) FROM scans"; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 -o "$D/net" --summary > "$D/summary" || exit 1
want() { awk -v k="$1" '$1 == k { print $2 }' "$D/summary"; }
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
hosts=$(awk '$1 == "Hca" { gsub(/"/, "", $3); print $3 }' "$D/net")

# 1: 5% loss at every host. ibsim drops at the port a MAD enters and again
# at the agent, so a host-bound MAD is lost ~10% of the time per try.
for h in $hosts; do printf 'Error "%s" 5\n' "$h" > "$D/sim/ctl"; done
fabsim_console "$D/sim" 'Attached' > /dev/null
ibnd_nodes=$(fabsim_run "$D/sim" -- ibnetdiscover -l 2>/dev/null | wc -l)
echo "with 5% loss ibnetdiscover saw $ibnd_nodes of $(want nodes) nodes"
scan --retries 5
rc=$?
s=$(last)
check "5% loss: exit 0 (complete)" eq "$rc" 0
check "5% loss: nodes" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = $s")" "$(want nodes)"
check "5% loss: links" eq "$(q "SELECT count(*) FROM links WHERE scan_id = $s")" "$(want links)"
check "5% loss: descriptions" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = $s AND description <> ''")" "$(want nodes)"
check "5% loss: counters of every active port" eq \
	"$(q "SELECT count(DISTINCT node_guid || port_num) FROM counters WHERE scan_id = $s")" "$(want active_ports)"
check "5% loss: SM recorded" eq "$(q "SELECT count(*) FROM sms WHERE scan_id = $s AND state = 'master'")" 1
check "5% loss: nothing missed" eq "$(q "SELECT count(*) FROM scan_errors WHERE scan_id = $s")" 0
# Without retries the same loss shows: at least one of two scans is partial.
scan --retries 0
r1=$?
scan --retries 0
r2=$?
check "5% loss: without retries something is missed" test "$r1" = 4 -o "$r2" = 4
for h in $hosts; do printf 'Error "%s" 0\n' "$h" > "$D/sim/ctl"; done
fabsim_console "$D/sim" 'Attached' > /dev/null

# 2: one host drops everything (host0007 hangs off leaf002 port 3)
fabsim_console "$D/sim" 'Error "host0007" 100' > /dev/null
t0=$(date +%s%N)
scan --timeout 200
rc=$?
took=$(ms_since "$t0")
s=$(last)
check "dead host: exit 4 (partial)" eq "$rc" 4
check "dead host: bounded time (${took} ms)" test "$took" -lt "$HANG_MS"
check "dead host: status partial" eq "$(q "SELECT status FROM scans WHERE scan_id = $s")" partial
check "dead host: every other node" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = $s")" "$(($(want nodes) - 1))"
check "dead host: recorded as a hole at leaf002[3]" eq "$(q "SELECT n.description || ' ' || e.port_num || ' ' || e.what
	FROM scan_errors e JOIN nodes n USING (scan_id, node_guid) WHERE e.scan_id = $s")" "leaf002 3 hole"
check "dead host: the leaf port is flagged" eq "$(q "SELECT p.no_remote || p.state FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = $s AND n.description = 'leaf002' AND p.port_num = 3")" "1active"
check "dead host: counters of the leaf port still read" eq "$(q "SELECT count(*) FROM counters c JOIN nodes n USING (scan_id, node_guid)
	WHERE c.scan_id = $s AND n.description = 'leaf002' AND c.port_num = 3 AND c.counter = 'SymbolErrorCounter'")" 1
fabsim_console "$D/sim" 'Error "host0007" 0' > /dev/null

# 3: a leaf switch drops everything: its hosts are out of reach too
fabsim_console "$D/sim" 'Error "leaf004" 100' > /dev/null
t0=$(date +%s%N)
scan --timeout 200
rc=$?
took=$(ms_since "$t0")
s=$(last)
check "dead leaf: exit 4 (partial)" eq "$rc" 4
check "dead leaf: bounded time (${took} ms)" test "$took" -lt "$HANG_MS"
check "dead leaf: the rest of the fabric" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = $s")" "$(($(want nodes) - 5))"
check "dead leaf: a hole at each spine port facing it" eq "$(q "SELECT group_concat(h) FROM (SELECT n.description || '[' || e.port_num || ']' AS h
	FROM scan_errors e JOIN nodes n USING (scan_id, node_guid) WHERE e.scan_id = $s AND e.what = 'hole'
	ORDER BY h)")" "spine001[4],spine002[4]"
check "dead leaf: nothing else missed" eq "$(q "SELECT count(*) FROM scan_errors WHERE scan_id = $s AND what <> 'hole'")" 0
fabsim_console "$D/sim" 'Error "leaf004" 0' > /dev/null

# 4: a switch whose management agent answers NodeInfo but no PortInfo: the
# node is there, recorded as not answering SMPs, every port of it unknown
fabsim_console "$D/sim" 'Error "leaf003" 100 0x15' > /dev/null
scan --timeout 200
rc=$?
s=$(last)
fabsim_console "$D/sim" 'Error "leaf003" 0' > /dev/null
check "mute switch: exit 4 (partial)" eq "$rc" 4
check "mute switch: recorded as not answering SMPs" eq "$(q "SELECT smp_failed FROM nodes WHERE scan_id = $s AND description = 'leaf003'")" 1
check "mute switch: all its ports unknown" eq "$(q "SELECT count(*) || ' ' || sum(p.smp_failed) || ' ' || count(p.state)
	FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $s AND n.description = 'leaf003'")" "$(q "SELECT num_ports || ' ' || num_ports || ' 0' FROM nodes WHERE scan_id = $s AND description = 'leaf003'")"
check "mute switch: one smp error per port" eq "$(q "SELECT count(*) FROM scan_errors e JOIN nodes n USING (scan_id, node_guid)
	WHERE e.scan_id = $s AND n.description = 'leaf003' AND e.what = 'smp'")" "$(q "SELECT num_ports + 1 FROM nodes WHERE scan_id = $s AND description = 'leaf003'")"

# 5: healed: complete again. OpenSM brings the switches that came back (and
# their hosts) into the subnet at its next sweep: have it sweep now and wait
# until it has (fabsim_resweep), then one scan must be whole.
fabsim_resweep "$D/sim" || exit 1
scan
rc=$?
check "healed: exit 0" eq "$rc" 0
check "healed: nothing missed" eq "$(q "SELECT count(*) FROM scan_errors WHERE scan_id = $(last)")" 0
check "healed: every node" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = $(last)")" "$(want nodes)"

echo "scan_faults: $pass passed, $fail failed"
((fail == 0))
