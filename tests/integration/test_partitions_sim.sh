#!/usr/bin/env bash
# Partitions on a simulated fat tree routed by a real OpenSM with a
# partitions.conf (2 leaves x 2 hosts, 1 spine), against `smpquery pkeys`:
#  - every host port's stored P_Key table is what smpquery prints;
#  - two partitions, the hosts limited members of the default one: ready for a
#    job on host0002-0004 is "not ready" and names exactly the two pairs across
#    them (host0001 runs OpenSM: SELF=full makes it a full default member, so
#    it can talk to all); --pkey of one partition names the pairs outside it;
#  - host0003 moved into the first partition (OpenSM sweeps the new file):
#    ready for host0001-0003 is ready; `diff` of the scans before and after
#    names host0003 joining it as a full member (text, and JSON valid against
#    docs/json/diff.schema.json), and with --forensic scans its switch port too;
#  - a normal scan reads no switch port's table (no port enforces in ibsim),
#    every cabled switch port's with --forensic; a switch port's P_Key table
#    changed by a Set (tests/tools/smpset) is stored as smpquery prints it.
#  - an erroring hop between two hosts (spine001's port toward leaf001: not
#    either host's own link) makes ready name that hop and the pairs whose route
#    crosses it; hosts on one leaf stay ready; a degraded hop (width 1X since the
#    sweep, ibportstate) is named as running 1X.
# ibsim keeps no PortInfo partition enforcement bits (a Set of them is
# accepted and dropped), so pkey.enforcement_drop is tested from fixtures only.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?} ${SMPSET:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need sqlite3
need smpquery python3
need_py jsonschema
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@" 2>/dev/null; }
last() { q "SELECT max(scan_id) FROM scans"; }
ready() { fabsim_run "$D/sim" -- "$FABSWEEP" ready --db "$D/fab.db" "$@" >"$D/out" 2>&1; }
# the non-empty entries of smpquery pkeys, one a line
oracle() { fabsim_run "$D/sim" -- smpquery pkeys "$1" "$2" | awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != "0x0000") print $i }'; }
stored() { q "SELECT e.pkey FROM port_partitions e JOIN nodes n USING (scan_id, node_guid)
	WHERE e.scan_id = $(last) AND n.description = '$1' AND e.port_num = $2 ORDER BY e.idx"; }

"$FABGEN" --leaves 2 --spines 1 --hosts-per-leaf 2 -o "$D/net" || exit 1
# host000N's port GUID is its node GUID + 1 (fabgen)
g() { printf '0x0002c901000000%x1' "$1"; }
cat >"$D/part.conf" <<EOC
Default=0x7fff : $(g 1)=limited, $(g 2)=limited, $(g 3)=limited, $(g 4)=limited, SELF=full;
jobA=0x8001 : $(g 1)=full, $(g 2)=full;
jobB=0x8002 : $(g 3)=full, $(g 4)=full;
EOC
FABSIM_OPENSM_ARGS="-P $D/part.conf" fabsim_start "$D/net" "$D/sim" >/dev/null || exit 1
scan --forensic # every switch port's table too, for the diff below
check "scan exits 0" eq "$?" 0
bad=""
for h in 1 2 3 4; do
	lid=$(q "SELECT p.lid FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $(last) AND n.description = 'host000$h'")
	[[ "$(stored host000$h 1)" == "$(oracle "$lid" 1)" ]] || bad+=" host000$h"
done
check "every host port's stored table is smpquery's (differ:${bad:- none})" eq "$bad" ""
check "host0002 is a full member of 0x0001" eq "$(q "SELECT membership FROM port_partitions e JOIN nodes n USING (scan_id, node_guid) WHERE e.scan_id = $(last) AND n.description = 'host0002' AND partition_hex = '0x0001'")" full

ready --hosts 'host[0002-0004]'
check "two partitions: not ready (exit 1)" eq "$?" 1
check "two partitions: the two pairs across them are named" eq "$(grep -c '<->.*not ready' "$D/out")" 2
check "two partitions: host0002 <-> host0003 named" has "$D/out" "host0002 <-> host0003: not ready: they share a partition only as limited members"
check "two partitions: host0003 <-> host0004 share one" lacks "$D/out" "host0003 <-> host0004"
ready --hosts 'host[0001-0003]' --pkey 0x8001
check "--pkey 0x8001: not ready" eq "$?" 1
check "--pkey 0x8001: names host0002 <-> host0003" has "$D/out" "host0002 <-> host0003: not ready: they do not share the partition"

# host0003 moves into jobA
sed -i "s/jobA=0x8001 : /jobA=0x8001 : $(g 3)=full, /" "$D/part.conf"
fabsim_resweep "$D/sim" || exit 1
scan --forensic
moved=$(last)
ready --hosts 'host[0001-0003]'
check "host0003 moved into jobA: ready (exit 0)" eq "$?" 0
check "host0003 moved: no pair named" lacks "$D/out" "<->"
# the diff of the two scans names the move: host0003 joined jobA as a full
# member, and OpenSM gave its switch port (leaf002/1) the partition too
"$FABSWEEP" diff --db "$D/fab.db" 1 "$(last)" >"$D/diff" 2>&1
check "diff: the two membership changes are listed" has "$D/diff" "partition memberships changed (2):"
check "diff: host0003 and its switch port joined 0x0001 as full members" has "$D/diff" \
	"partition 0x0001: none -> full at 2 ports: \"host0003\" $(g 3 | sed 's/1$/0/') port 1, \"leaf002\""
"$FABSWEEP" diff --db "$D/fab.db" --json 1 "$(last)" >"$D/diff.json" 2>&1
check "diff --json: the partition changes" eq "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(c["subject"]["description"] + "/" + str(c["subject"]["port"]) + ":" + c["partition"] + ":" + c["old"] + "->" + c["new"] for c in d["changes"] if c["kind"] == "partition"))' "$D/diff.json")" "host0003/1:0x0001:none->full leaf002/1:0x0001:none->full"
check "diff --json validates" python3 "$SRCDIR/tests/tools/json_validate.py" "$SRCDIR/docs/json/diff.schema.json" "$D/diff.json"

# a Set on a switch port's table is what the next scan stores
lid=$(q "SELECT lid FROM nodes WHERE scan_id = $(last) AND description = 'leaf001'")
fabsim_run "$D/sim" -- "$SMPSET" pkey "$lid" 1 5 0x8005 || exit 1
scan
check "a normal scan reads no switch port's table (none enforces)" eq "$(q "SELECT count(*) FROM port_pkey_tables t
	JOIN nodes n USING (scan_id, node_guid) WHERE t.scan_id = $(last) AND n.node_type = 'switch'")" 0
check "a normal scan reads every cabled host port's table" eq "$(q "SELECT count(*) FROM port_pkey_tables t
	JOIN nodes n USING (scan_id, node_guid) WHERE t.scan_id = $(last) AND n.node_type = 'ca'")" 4
"$FABSWEEP" diff --db "$D/fab.db" "$moved" "$(last)" >"$D/diff" 2>&1
check "diff of a --forensic scan and a normal one: a switch port's table not read is no change" \
	lacks "$D/diff" "partition"
fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet --forensic 2>/dev/null
check "--forensic reads every cabled switch port's table (2 leaves x 3, the spine 2)" eq "$(q "SELECT count(*) FROM port_pkey_tables t
	JOIN nodes n USING (scan_id, node_guid) WHERE t.scan_id = $(last) AND n.node_type = 'switch'")" 8
check "a Set switch port table is stored as smpquery prints it" eq "$(stored leaf001 1)" "$(oracle "$lid" 1)"
stored leaf001 1 >"$D/t"
check "the Set entry is there" has "$D/t" "0x8005"
# an erroring hop between host0001 (leaf001) and host0003 (leaf002)
fabsim_console "$D/sim" 'PerformanceSet "spine001"[1] PortCounters.SymbolErrorCounter=500' >/dev/null || exit 1
ready --hosts 'host0001,host0003'
check "erroring hop: not ready (exit 1)" eq "$?" 1
check "erroring hop: the hop is named" has "$D/out" "spine001/1: SymbolErrorCounter +500"
check "erroring hop: the pair whose route crosses it" has "$D/out" "host0003 -> host0001: not ready: the route crosses hop"
ready --hosts 'host0001,host0002'
check "erroring hop: hosts on one leaf do not cross it (exit 0)" eq "$?" 0
scan # the counters as they are now are the sweep's
ready --hosts 'host0001,host0003'
check "erroring hop: a new sweep saw the errors, nothing rose since (exit 0)" eq "$?" 0
sl=$(q "SELECT lid FROM nodes WHERE scan_id = $(last) AND description = 'spine001'")
# OpenSM's next sweep would enable 4X again: the SM stops first (ports keep their LIDs)
fabsim_stop_sm "$D/sim" 1 >/dev/null || exit 1
fabsim_run "$D/sim" -- ibportstate "$sl" 2 width 1 >/dev/null 2>&1
wait_ok=0
fabsim_run "$D/sim" -- smpquery portinfo "$sl" 2 2>/dev/null | grep -q 'LinkWidthActive:.*1X' && wait_ok=1
check "degraded hop: spine001/2 runs 1X (ibportstate)" eq "$wait_ok" 1
ready --hosts 'host0001,host0003'
check "degraded hop: not ready (exit 1)" eq "$?" 1
check "degraded hop: named as running 1X" has "$D/out" "runs 1X (4X at scan"
echo "partitions_sim: $pass passed, $fail failed"
((fail == 0))
