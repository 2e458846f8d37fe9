#!/usr/bin/env bash
# Expected topology on a simulated fabric (ibsim + real OpenSM): the healthy
# fabric's ibnetdiscover output and its first scan are references; two cables
# swapped with ibsim console Unlink/Link give exactly two topology.miswired
# findings that name each other (not missing + unexpected); a pulled host cable
# is a topology.missing_link and a new spine-spine cable a
# topology.unexpected_link; without --expect none of these rules runs.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet; }
chk() { "$FABSWEEP" check --db "$D/fab.db" --config "$D/conf" "$@"; }
n_rule() { q "SELECT count(*) FROM findings WHERE scan_id = $1 AND rule_id = '$2'"; }

printf '[rules]\nsm.no_standby = off\n' > "$D/conf"
# 2 leaves x 2 hosts, 2 spines: leafN port 3 -> spine001 port N, port 4 -> spine002 port N.
"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 2 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
fabsim_run "$D/sim" -- ibnetdiscover > "$D/ref.topo" 2> /dev/null
check "ibnetdiscover wrote the reference" test -s "$D/ref.topo"
scan
check "scan 1" eq "$?" 0

chk --expect "$D/ref.topo" > "$D/out"
check "healthy against the ibnetdiscover file: exit 0" eq "$?" 0
check "healthy: the reference named" has "$D/out" "expected topology: file:$D/ref.topo ("
check "healthy: no topology finding" eq "$(q "SELECT count(*) FROM findings WHERE rule_id LIKE 'topology.%'")" 0

# swap the uplinks of leaf001 and leaf002 at spine001
for c in 'Unlink "leaf001"[3]' 'Unlink "leaf002"[3]' 'Link "leaf001"[3] "spine001"[2]' 'Link "leaf002"[3] "spine001"[1]'; do
	fabsim_console "$D/sim" "$c" > /dev/null || exit 1
done
fabsim_resweep "$D/sim" || exit 1 # OpenSM brings the new links up
scan
check "scan 2" eq "$?" 0
check "scan 2 sees the swap" eq "$(q "SELECT remote_port FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE scan_id = 2 AND n.description = 'leaf001' AND port_num = 3")" 2

# without a reference the expected-topology rules are not run, even on a
# scan where they find something (below)
chk --scan 2 > "$D/out"
check "without --expect: exit 0" eq "$?" 0
check "without --expect the expected-topology rules are not run" eq \
	"$(q "SELECT count(*) FROM findings WHERE scan_id = 2 AND rule_id LIKE 'topology.%'")/$(grep -c 'topology\.\(missing\|unexpected\|miswired\)' "$D/out")" 0/0
chk --scan 2 --expect "$D/ref.topo" > "$D/out"
check "swap against the file: exit 1" eq "$?" 1
check "swap: two miswired findings" eq "$(n_rule 2 topology.miswired)" 2
check "swap: nothing missing" eq "$(n_rule 2 topology.missing_link)" 0
check "swap: nothing unexpected" eq "$(n_rule 2 topology.unexpected_link)" 0
check "swap: one names the other" has "$D/out" \
	"topology.miswired      leaf001/3 <-> spine001/2: cabled to the wrong port: the reference has leaf001/3 <-> spine001/1 and spine001/2 <-> leaf002/3; swapped with the cable spine001/1 <-> leaf002/3"
check "swap: and the other the one" has "$D/out" \
	"topology.miswired      leaf002/3 <-> spine001/1: cabled to the wrong port: the reference has leaf002/3 <-> spine001/2 and spine001/1 <-> leaf001/3; swapped with the cable spine001/2 <-> leaf001/3"

chk --scan 2 --expect 1 > "$D/out2"
check "swap against scan 1: exit 1" eq "$?" 1
check "swap against scan 1: the same two" eq "$(n_rule 2 topology.miswired)" 2
check "swap against scan 1: reference named" has "$D/out2" "expected topology: scan 1 ("

# a pulled host cable and a new spine-spine cable
fabsim_console "$D/sim" 'Unlink "host0004"[1]' > /dev/null || exit 1
fabsim_console "$D/sim" 'Link "spine001"[5] "spine002"[5]' > /dev/null || exit 1
fabsim_resweep "$D/sim" || exit 1
scan
chk --scan 3 --expect 1 > "$D/out3"
check "scan 3: exit 1" eq "$?" 1
check "missing: the host cable" eq "$(n_rule 3 topology.missing_link)" 1
check "missing: named" has "$D/out3" \
	"host0004/1 <-> leaf002/2: the reference has this cable; now host0004 is not in the scan, leaf002/2 is down/"
check "unexpected: the spine-spine cable" eq "$(n_rule 3 topology.unexpected_link)" 1
check "unexpected: named" has "$D/out3" \
	"spine001/5 <-> spine002/5: not in the reference: spine001/5 had no cable there; spine002/5 had no cable there"
check "the swap is still miswired" eq "$(n_rule 3 topology.miswired)" 2

# the sweep takes the reference too
fabsim_run "$D/sim" -- "$FABSWEEP" sweep --db "$D/fab.db" --config "$D/conf" --expect "$D/ref.topo" \
	--baseline none > "$D/out4"
check "sweep --expect: exit 1" eq "$?" 1
check "sweep --expect: miswired" eq "$(n_rule 4 topology.miswired)" 2

chk --expect "$D/nothing.topo" 2> "$D/err"
check "a reference that is neither file nor scan: exit 3" eq "$?" 3
check "...and says so" has "$D/err" "is neither a file nor a scan"
printf 'not a topology\n' > "$D/bad.topo"
chk --expect "$D/bad.topo" 2> "$D/err"
check "a broken reference file: exit 3" eq "$?" 3
check "...naming the file" has "$D/err" "bad.topo"

echo "$pass passed, $fail failed"
((fail == 0))
