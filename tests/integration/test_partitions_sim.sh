#!/usr/bin/env bash
# Partitions on a simulated fat tree routed by a real OpenSM with a
# partitions.conf (2 leaves x 2 hosts, 1 spine), against `smpquery pkeys`:
#  - every host port's stored P_Key table is what smpquery prints;
#  - `check` finds in them what the tables smpquery prints make the pkey rules
#    find (pkey.limited_pair on the default partition, in which host0002-0004
#    are limited members; nothing else), each finding's node, port, peer,
#    partition, message and evidence compared, in the database and the text;
#    later a host port whose default entry a Set removed: pkey.default_missing
#    names it, with its entries counted as smpquery shows them;
#  - two partitions, the hosts limited members of the default one: ready for a
#    job on host0002-0004 is "not ready" and names exactly the two pairs across
#    them (host0001 runs OpenSM: SELF=full makes it a full default member, so
#    it can talk to all); --pkey of one partition names the pairs outside it;
#    every pair's verdict (without --pkey, with 0x8001, 0xffff; after each change
#    below) is the one computed from smpquery's tables, and ready --json says
#    what the text says (tests/tools/ready_compare.py, which also compares
#    them with the database), the hops' runs below too;
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
ready() {
	ready_args=("$@")
	fabsim_run "$D/sim" -- "$FABSWEEP" ready --db "$D/fab.db" "$@" >"$D/out" 2>&1
	ready_rc=$?
	return $ready_rc
}
# every entry of smpquery pkeys LID PORT, one a line; oracle: the non-empty ones
oracle_all() { fabsim_run "$D/sim" -- smpquery pkeys "$1" "$2" | awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) print $i }'; }
oracle() { oracle_all "$@" | grep -vx 0x0000; }
hlid() { q "SELECT p.lid FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $(last) AND n.description = 'host000$1'"; }
# $D/tables: "host000N ENTRY..." of each host's port 1 as smpquery prints it:
# tables N...: of these hosts read again now (smpquery is slow: only where the
# test changed a table), tables: of all
tables() {
	local h
	for h in ${*:-1 2 3 4}; do
		grep -v "^host000$h " "$D/tables" 2>/dev/null >"$D/tables.new"
		echo "host000$h $(oracle_all "$(hlid $h)" 1 | tr '\n' ' ')" >>"$D/tables.new"
		sort "$D/tables.new" >"$D/tables"
	done
}
# used HOST: its entries in $D/tables that are not empty, each followed by a blank
used() { awk -v h="$1" '$1 == h { for (i = 2; i <= NF; i++) if ($i != "0x0000") printf "%s ", $i }' "$D/tables"; }
# keep WHAT: the last ready run (its text, its exit code) and the same run as
# --json, for ready_compared: the text, the JSON, the database and the pairs
# computed from $D/tables (the hosts' tables at that time) agree
keep() {
	ready_keep "$1" "$ready_rc" "$D/out" pkeys="$D/tables" -- \
		fabsim_run "$D/sim" -- "$FABSWEEP" ready --db "$D/fab.db" "${ready_args[@]}" --json
}
# what the pkey rules must find in the latest scan, computed from $D/tables
# (smpquery) and the cabling the scan stored, with the config of $D/rules.conf
# (limited_pair: 0x7fff and 0x0002; default_missing: expect 1), one finding a
# line: rule | severity | node | port | peer | peer port | subject | message | evidence
expect_pkey() {
	python3 - "$D/tables" "$D/fab.db" "$(last)" <<'EOF'
import sqlite3, sys
tabs = {w[0]: [int(x, 16) for x in w[1:]] for w in (l.split() for l in open(sys.argv[1])) if w}
db = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
scan = int(sys.argv[3])
if db.execute("SELECT count(*) FROM port_pkey_tables WHERE scan_id = ? AND"
              " (part_enf_inbound OR part_enf_outbound)", (scan,)).fetchone()[0]:
    sys.exit("a port enforces partitions: the expectation of pkey.enforcement_drop is not written")
hosts = db.execute(
    "SELECT n.description, n.node_guid, p.port_num, p.remote_guid, p.remote_port, r.description"
    " FROM nodes n JOIN ports p USING (scan_id, node_guid) JOIN nodes r ON r.scan_id = n.scan_id"
    " AND r.node_guid = p.remote_guid WHERE n.scan_id = ? AND n.node_type = 'ca' ORDER BY n.node_idx, p.port_num",
    (scan,)).fetchall()
def member(t, part):
    return max([0] + [2 if k & 0x8000 else 1 for k in t if k & 0x7fff and k & 0x7fff == part])
out = []
for part in (0x7fff, 0x0002):  # pkey.limited_pair
    lim = [f"{d}/{n}" for d, g, n, *_ in hosts if member(tabs[d], part) == 1]
    full = sum(member(tabs[d], part) == 2 for d, *_ in hosts)
    if len(lim) >= 2:
        out.append(f"pkey.limited_pair | warning | - | - | - | - | 0x{part:04x} | {len(lim)} host ports are "
                   f"limited members of partition 0x{part:04x}, meant for host-to-host traffic: no two of them "
                   f"can talk to each other | partition=0x{part:04x}; limited={len(lim)}; full={full}; "
                   f"e.g. {', '.join(lim[:3])}")
for d, g, n, rg, rp, rd in hosts:  # pkey.default_missing, expect = 1
    t = tabs[d]
    if not member(t, 0x7fff):
        used = max([i + 1 for i, k in enumerate(t) if k] + [0])
        out.append(f"pkey.default_missing | warning | {g} | {n} | {rg} | {rp} | {d}/{n} <-> {rd}/{rp} | the port "
                   f"is not a member of the default partition (0x7fff): the subnet manager and IPoIB's default "
                   f"interface cannot reach it | entries={used}")
print("\n".join(sorted(out)))
EOF
}
# the pkey findings of the latest scan as stored, in expect_pkey's form
stored_pkey() { q "SELECT rule_id, severity, coalesce(node, '-'), coalesce(port, '-'), coalesce(peer_node, '-'),
	coalesce(peer_port, '-'), subject, message, evidence FROM findings WHERE scan_id = $(last) AND rule_id LIKE 'pkey.%'" |
	sed 's/|/ | /g' | sort; }
# check_pkey WHAT: `check` of the latest scan finds what expect_pkey computes,
# in the database and in the text (severity, rule, subject and message)
check_pkey() {
	local what=$1 want
	"$FABSWEEP" check --db "$D/fab.db" --config "$D/rules.conf" >"$D/check" 2>&1
	want=$(expect_pkey) || want="(not computed: see above)"
	check "$what: the pkey findings stored are those computed from smpquery's tables" eq "$(stored_pkey)" "$want"
	check "$what: check prints each of them" eq \
		"$(grep -E '^[a-z]+ +pkey\.' "$D/check" | sort)" \
		"$(awk -F ' [|] ' '{ printf "%-7s %-22s %s: %s\n", $2, $1, $7, $8 }' <<<"$want" | sort)"
}
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
tables
bad=""
for h in 1 2 3 4; do
	[[ "$(stored host000$h 1 | tr '\n' ' ')" == "$(used host000$h)" ]] || bad+=" host000$h"
done
check "every host port's stored table is smpquery's (differ:${bad:- none})" eq "$bad" ""
printf '[pkey.limited_pair]\npartition = 32767\npartition_2 = 2\n' >"$D/rules.conf"
check_pkey "two partitions"
check "two partitions: pkey.limited_pair fires on 0x7fff, the hosts' limited default partition" \
	has "$D/check" "0x7fff: 3 host ports are limited members of partition 0x7fff"
check "host0002 is a full member of 0x0001" eq "$(q "SELECT membership FROM port_partitions e JOIN nodes n USING (scan_id, node_guid) WHERE e.scan_id = $(last) AND n.description = 'host0002' AND partition_hex = '0x0001'")" full

ready --hosts 'host[0002-0004]'
check "two partitions: not ready (exit 1)" eq "$?" 1
check "two partitions: the two pairs across them are named" eq "$(grep -c '<->.*not ready' "$D/out")" 2
check "two partitions: host0002 <-> host0003 named" has "$D/out" "host0002 <-> host0003: not ready: they share a partition only as limited members"
check "two partitions: host0003 <-> host0004 share one" lacks "$D/out" "host0003 <-> host0004"
keep "two partitions"
ready --hosts 'host[0001-0003]' --pkey 0x8001
check "--pkey 0x8001: not ready" eq "$?" 1
check "--pkey 0x8001: names host0002 <-> host0003" has "$D/out" "host0002 <-> host0003: not ready: they do not share the partition"
keep "--pkey 0x8001"
# the default partition: host0001 a full member, the others limited ones
ready --hosts 'host[0001-0004]' --pkey 0xffff
keep "--pkey 0xffff (the membership bit ignored)"

# host0003 moves into jobA
sed -i "s/jobA=0x8001 : /jobA=0x8001 : $(g 3)=full, /" "$D/part.conf"
fabsim_resweep "$D/sim" || exit 1
scan --forensic
moved=$(last)
ready --hosts 'host[0001-0003]'
check "host0003 moved into jobA: ready (exit 0)" eq "$?" 0
check "host0003 moved: no pair named" lacks "$D/out" "<->"
tables 3
keep "host0003 moved"
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
# host0004's port leaves the default partition: its entry is emptied by a Set
h4=$(hlid 4)
i4=$(grep ^host0004 "$D/tables" | tr ' ' '\n' | sed 1d | grep -nxE '0x[7f]fff' | head -1)
check "host0004 is in the default partition (entry ${i4:-none})" test -n "$i4"
v4=${i4#*:} i4=${i4%%:*}
fabsim_run "$D/sim" -- "$SMPSET" pkey "$h4" 0 $((i4 - 1)) 0 || exit 1
fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet --forensic 2>/dev/null
tables 4
check "host0004 is out of the default partition (smpquery)" eq "$(used host0004)" "0x8002 "
check_pkey "host0004 without the default partition"
check "host0004 without the default partition: pkey.default_missing names it" \
	has "$D/check" "host0004/1 <-> leaf002/2: the port is not a member of the default partition"
ready --hosts 'host[0001-0004]'
keep "host0004 without the default partition"
fabsim_run "$D/sim" -- "$SMPSET" pkey "$h4" 0 $((i4 - 1)) "$v4" || exit 1 # as it was
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
keep "erroring hop"
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
keep "degraded hop"
check "ready: every pair's partition verdict as smpquery's tables say; --json, the text and the database agree" \
	ready_compared "$D/fab.db"
echo "partitions_sim: $pass passed, $fail failed"
((fail == 0))
