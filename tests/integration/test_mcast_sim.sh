#!/usr/bin/env bash
# Multicast on a simulated fat tree (4 leaves x 3 hosts, 2 spines, two cables
# from each leaf to each spine) with a real OpenSM that creates the IPoIB
# broadcast group of the default partition (partitions.conf: ipoib, mtu=4,
# rate=3) and builds the trees of the groups hosts join (tests/tools/mcjoin:
# MCMemberRecord Set, one per member, as a proxy join), against the oracles
# saquery -g, ibroute -M and the test's own join plan:
#  - every host in the broadcast group, two groups with members on random
#    leaves (one member of the second send-only): the stored groups are what
#    saquery -g prints (MGID, MLID, MTU, P_Key, rate, SL), the members what
#    the test joined, each switch's stored entries what ibroute -M dumps;
#    `route --mcast` of each group reaches every member (exit 0), and no
#    mcast rule finds anything (none skipped);
#    the same tables with --no-routes (the scan asks SwitchInfo itself);
#    --no-mcast stores none and the mcast rules say why they are skipped;
#    a leaf whose MulticastForwardingTable MADs ibsim drops: the scan is
#    partial, names it, stores its table as failed, judges nothing through it;
#  - a host leaves the broadcast group: mcast.ipoib_broadcast names it;
#  - one member's port removed from its leaf's entry by an SMP Set (still
#    out after the scan: OpenSM only rewrites a table when a group or the
#    fabric changes; `opensm -o` would take the SA with it):
#    mcast.unreached_member names that member, `route --mcast` says it is
#    not reached (exit 1), `diff` names the group's tree (1 switch);
#  - a switch's entry given the second cable to a neighbour of its tree
#    (SMP Set): mcast.loop, `route --mcast` prints the loop (exit 1);
#  - a group created and one deleted (its members leave): `diff` names both,
#    its JSON valid and equal to the database (tests/tools/json_vs_db.py),
#    its XML valid (docs/fabsweep-diff.xsd);
#  - a member's link degraded to 1X at run time (ibportstate): mcast.rate_mtu
#    names it in each of its groups (10 Gb/s above 2.5), and no other port.
# The simulator's shim carries 256-byte MADs: the SA's GetTable answers
# arrive cut to 3 records, so the scan asks narrower (scanner/mcast_sa.c);
# saquery -g is an oracle only while there are at most 3 groups (checked).
# Cost: one small simulator, ~40 joins, 7 scans (about 30 s).
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?} ${SMPSET:?} ${MCJOIN:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need sqlite3 saquery ibroute ibportstate smpquery python3 xmllint
need_py jsonschema
: >"$D/empty.conf"
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@" 2>"$D/scan.err"; }
last() { q "SELECT max(scan_id) FROM scans"; }
fcheck() { "$FABSWEEP" check --db "$D/fab.db" --config "$D/empty.conf" --limit 0 >"$D/check.out" 2>&1; }
mfind() { q "SELECT rule_id || ' ' || node || '/' || coalesce(port, '-') FROM findings WHERE scan_id = $(last) AND rule_id LIKE '${1:-mcast.%}' ORDER BY 1"; }
join() { fabsim_run "$D/sim" -- "$MCJOIN" "$@" >>"$D/joins" 2>&1; }
guid_of() { q "SELECT p.port_guid FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $(last) AND n.description = '$1' AND p.port_num = 1"; }
node_of() { q "SELECT node_guid FROM nodes WHERE scan_id = $(last) AND description = '$1'"; }
# the switch and port a host hangs off: "LID PORT NAME"
leaf_of() {
	q "SELECT n2.lid, p.remote_port, n2.description FROM ports p JOIN nodes n USING (scan_id, node_guid)
	   JOIN nodes n2 ON n2.scan_id = p.scan_id AND n2.node_guid = p.remote_guid
	   WHERE p.scan_id = $(last) AND n.description = '$1' AND p.port_num = 1" | tr '|' ' '
}
mlid_of() { q "SELECT printf('0x%04x', mlid) FROM mcast_groups WHERE scan_id = $(last) AND mgid = '$1'"; }
# every switch's multicast table as ibroute -M dumps it: "GUID MLID PORT" lines
ibroute_all() {
	local lid guid
	q "SELECT lid, node_guid FROM nodes WHERE scan_id = $(last) AND node_type = 'switch'" | tr '|' ' ' |
		while read -r lid guid; do
			fabsim_run "$D/sim" -- ibroute -M "$lid" | awk -v g="$guid" '
				/^ *Ports:/ { hdr = $0; next }
				/^0x[0-9a-fA-F]+ / { for (i = 13; i <= length($0); i += 2)
					if (substr($0, i, 1) == "x") printf "%s %s %d\n", g, tolower($1), (i - 13) / 2 }'
		done | sort
}
stored_tables() {
	q "SELECT node_guid, printf('0x%04x', mlid), port FROM mcast_forwarding WHERE scan_id = $(last)" | tr '|' ' ' | sort
}
# saquery -g as "MGID MLID MTU PKEY RATE SL" lines, hex as it prints them
saquery_groups() {
	fabsim_run "$D/sim" -- saquery -g | awk -F'[.]+' '
		/MGID/ { m = $2 } /Mlid/ { l = $2 } /Mtu/ { u = $2 } /pkey/ { k = $2 } /Rate/ { r = $2 }
		/SL/ { printf "%s %s %s %s %s %s\n", m, l, u, k, r, $2 }' | sort
}
stored_groups() {
	q "SELECT mgid, printf('0x%X', mlid), printf('0x%X', mtu_raw), '0x' || upper(substr(pkey, 3)),
	   printf('0x%X', rate_raw), printf('0x%X', sl) FROM mcast_groups WHERE scan_id = $(last)" | tr '|' ' ' | sort
}

"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 3 --uplinks 2 -o "$D/net" || exit 1
printf 'Default=0x7fff, ipoib, mtu=4, rate=3 : ALL=full;\n' >"$D/part.conf"
# no periodic sweeps: a table changed by a Set stays as the test leaves it
FABSIM_OSM_EXTRA_CONF="sweep_interval 0" FABSIM_OPENSM_ARGS="-P $D/part.conf" \
	fabsim_start "$D/net" "$D/sim" >/dev/null || exit 1
scan || { cat "$D/scan.err"; exit 1; }
hosts=($(q "SELECT description FROM nodes WHERE scan_id = 1 AND node_type = 'ca' ORDER BY description"))
check "12 hosts" eq "${#hosts[@]}" 12
seed=${MCAST_SEED:-$RANDOM}
echo "join plan: seed $seed (MCAST_SEED=$seed repeats it)"
RANDOM=$seed
pick() { # N distinct random hosts
	local -a v=("${hosts[@]}") out=()
	local i j t
	for ((i = 0; i < $1; i++)); do
		j=$((i + RANDOM % (${#v[@]} - i)))
		t=${v[i]} v[i]=${v[j]} v[j]=$t
		out+=("${v[i]}")
	done
	echo "${out[@]}"
}
BC=ff12:401b:ffff::ffff:ffff G1=ff12:601b:ffff::a1 G2=ff12:401b:ffff::b2 G3=ff12:601b:ffff::c3
g1=($(pick 5)) g2=($(pick 3))
: >"$D/plan"
for h in "${hosts[@]}"; do
	join join "$(guid_of "$h")" "$BC" && echo "$BC $(guid_of "$h") full" >>"$D/plan"
done
join join "$(guid_of "${g1[0]}")" "$G1" full create 4 3 0xffff && echo "$G1 $(guid_of "${g1[0]}") full" >>"$D/plan"
for h in "${g1[@]:1}"; do
	join join "$(guid_of "$h")" "$G1" && echo "$G1 $(guid_of "$h") full" >>"$D/plan"
done
join join "$(guid_of "${g2[0]}")" "$G2" full create 4 3 0xffff && echo "$G2 $(guid_of "${g2[0]}") full" >>"$D/plan"
join join "$(guid_of "${g2[1]}")" "$G2" && echo "$G2 $(guid_of "${g2[1]}") full" >>"$D/plan"
join join "$(guid_of "${g2[2]}")" "$G2" sendonly && echo "$G2 $(guid_of "${g2[2]}") sendonly" >>"$D/plan"
check "every join answered by the SA" eq "$(wc -l <"$D/plan")" 20
echo "G1: ${g1[*]}; G2: ${g2[*]} (${g2[2]} send-only)"
# OpenSM builds the trees after it answered: wait until every member's port
# is in its leaf's entry (ibroute -M)
trees_built() {
	local mg guid js lid port name
	ibroute_all >"$D/ibroute"
	while read -r mg guid js; do
		read -r lid port name < <(q "SELECT n2.lid, p.remote_port, n2.description FROM ports p JOIN nodes n2
			ON n2.scan_id = p.scan_id AND n2.node_guid = p.remote_guid WHERE p.scan_id = 1
			AND p.port_guid = '$guid' AND p.port_num = 1" | tr '|' ' ')
		m=$(awk -v g="$mg" '$1 == g { print $2 }' "$D/mlids")
		grep -q "^$(q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND lid = $lid AND node_type = 'switch'") $m $port\$" \
			"$D/ibroute" || return 1
	done <"$D/plan"
}
fabsim_run "$D/sim" -- saquery -g | awk -F'[.]+' '/MGID/ { m = $2 } /Mlid/ { printf "%s %s\n", m, tolower($2) }' >"$D/mlids"
check "the trees are built (ibroute -M: every member's port in its leaf's entry)" wait_for 30 "trees" trees_built

# ---- healthy
scan || { cat "$D/scan.err"; exit 1; }
saquery_groups >"$D/sa.groups"
check "saquery -g lists the 3 groups (at most 3 fit the simulator's answer)" eq "$(wc -l <"$D/sa.groups")" 3
check "groups stored = saquery -g (MGID, MLID, MTU, P_Key, rate, SL)" eq "$(stored_groups)" "$(cat "$D/sa.groups")"
check "members stored = the joins" eq \
	"$(q "SELECT mgid, port_guid, join_state FROM mcast_members WHERE scan_id = $(last)" | tr '|' ' ' | sort)" \
	"$(sort "$D/plan")"
check "the members name their ports" eq \
	"$(q "SELECT count(*) FROM mcast_members WHERE scan_id = $(last) AND node_guid IS NOT NULL AND port_num = 1")" 20
ibroute_all >"$D/ibroute"
check "ibroute -M dumps entries" ge "$(wc -l <"$D/ibroute")" 20
check "tables stored = ibroute -M, every switch" eq "$(stored_tables)" "$(cat "$D/ibroute")"
for g in "$BC" "$G1" "$G2"; do
	"$FABSWEEP" route --db "$D/fab.db" --mcast "$g" >"$D/route.$g" 2>&1
	check "route --mcast $g: exit 0" eq "$?" 0
	check "route --mcast $g: every member reached" has "$D/route.$g" "every member is reached; no loop"
done
check "route --mcast by MLID names the group" \
	bash -c "'$FABSWEEP' route --db '$D/fab.db' --mcast $(mlid_of "$G1") | grep -qF 'multicast group $G1'"
check "route --mcast: members as stored" eq "$(grep -c ': reached by every other member' "$D/route.$G1")" 5
fcheck
check "healthy: no mcast finding" eq "$(mfind)" ""
check "healthy: no mcast rule skipped" lacks "$D/check.out" "mcast."
healthy=$(last)
# without the forwarding tables' SwitchInfo the scan asks its own: the same tables
scan --no-routes
check "--no-routes: tables stored = ibroute -M" eq "$(stored_tables)" "$(cat "$D/ibroute")"
scan --no-mcast
check "--no-mcast: nothing stored" eq "$(q "SELECT count(*) FROM scan_mcast WHERE scan_id = $(last)")" 0
fcheck
check "--no-mcast: the mcast rules are skipped, saying why" has "$D/check.out" \
	"(the snapshot has no multicast groups (scan --no-mcast, a file, an older scan, or the SA did not answer)): mcast.unreached_member, mcast.loop"
# a leaf's multicast table lost (ibsim drops its MulticastForwardingTable
# MADs): the scan is partial and says so; nothing is judged through it
read -r _ _ lost < <(leaf_of "${g1[1]}")
fabsim_console "$D/sim" "Error \"$lost\" 100 0x1b" >/dev/null
scan
check "a lost table: the scan is partial (exit 4)" eq "$?" 4
check "a lost table: scan_errors names $lost" eq \
	"$(q "SELECT count(*) FROM scan_errors WHERE scan_id = $(last) AND what = 'mcast' AND node_guid = '$(node_of "$lost")' AND message LIKE '%MulticastForwardingTable blocks were not read%'")" 1
check "a lost table: stored as failed" eq \
	"$(q "SELECT status FROM mcast_switch_tables WHERE scan_id = $(last) AND node_guid = '$(node_of "$lost")'")" failed
fcheck
check "a lost table: no member is called unreached through it" eq "$(mfind)" ""
fabsim_console "$D/sim" "Error \"$lost\" 0 0x1b" >/dev/null

# ---- a host leaves the broadcast group
left=${hosts[RANDOM % 12]}
join leave "$(guid_of "$left")" "$BC"
read -r llid lport lname < <(leaf_of "$left")
gone() { ! fabsim_run "$D/sim" -- ibroute -M "$llid" | awk -v p="$lport" '$1 == "0xc000" && substr($0, 13 + 2 * p, 1) == "x" { f = 1 } END { exit !f }'; }
check "$left left: its leaf's entry for 0xc000 loses port $lport" wait_for 30 "the leave" gone
scan
fcheck
check "ipoib: mcast.ipoib_broadcast names $left" eq "$(mfind)" "mcast.ipoib_broadcast $(node_of "$left")/1"
join join "$(guid_of "$left")" "$BC"
back() { ! gone; }
check "$left joined again" wait_for 30 "the join" back
scan
before=$(last)

# ---- a member's port out of its leaf's entry
m=${g1[1]}
read -r mlid_lid mport mleaf < <(leaf_of "$m")
M1=$(mlid_of "$G1")
fabsim_run "$D/sim" -- "$SMPSET" mft "$mlid_lid" "$M1" "$mport" off
entry_has() { fabsim_run "$D/sim" -- ibroute -M "$1" | awk -v m="$2" -v p="$3" 'tolower($1) == m && substr($0, 13 + 2 * p, 1) == "x" { f = 1 } END { exit !f }'; }
no_entry() { ! entry_has "$@"; }
check "the Set is in force: $mleaf's entry for $M1 lacks port $mport" no_entry "$mlid_lid" "$M1" "$mport"
scan
fcheck
check "unreached: mcast.unreached_member names $m" eq "$(mfind mcast.unreached_member)" \
	"mcast.unreached_member $(node_of "$m")/1"
check "unreached: the cause is the missing entry" has "$D/check.out" "$mleaf's entry for the MLID lacks port $mport"
"$FABSWEEP" route --db "$D/fab.db" --mcast "$G1" >"$D/route.out" 2>&1
check "route --mcast: exit 1" eq "$?" 1
check "route --mcast: $m not reached" has "$D/route.out" "$m/1 (full) on $mleaf/$mport: NOT reached by 4 other members"
check "the Set is still in force after the scan (OpenSM did not repair it)" no_entry "$mlid_lid" "$M1" "$mport"
"$FABSWEEP" diff --db "$D/fab.db" "$before" "$(last)" >"$D/diff.out" 2>&1
check "diff: G1's tree changed at 1 switch" has "$D/diff.out" "$G1 (MLID $M1): the entries of 1 switch changed"
check "diff: nothing else" eq "$(grep -c '^  ' "$D/diff.out")" 1

# ---- an entry that loops: a switch of G1's tree given the second cable to
# a neighbour it reaches by the first (both ends of the first in the tree)
read -r lsw lp2 < <(q "SELECT a.lid, l2.a_port FROM links l1
	JOIN mcast_forwarding fa ON fa.scan_id = l1.scan_id AND fa.node_guid = l1.a_guid AND fa.port = l1.a_port
	JOIN mcast_forwarding fb ON fb.scan_id = l1.scan_id AND fb.node_guid = l1.b_guid AND fb.port = l1.b_port AND fb.mlid = fa.mlid
	JOIN links l2 ON l2.scan_id = l1.scan_id AND l2.a_guid = l1.a_guid AND l2.b_guid = l1.b_guid AND l2.a_port <> l1.a_port
	JOIN nodes a ON a.scan_id = l1.scan_id AND a.node_guid = l1.a_guid
	JOIN nodes b ON b.scan_id = l1.scan_id AND b.node_guid = l1.b_guid
	WHERE l1.scan_id = $(last) AND fa.mlid = $((M1)) AND a.node_type = 'switch' AND b.node_type = 'switch'
	AND NOT EXISTS (SELECT 1 FROM mcast_forwarding x WHERE x.scan_id = l1.scan_id AND x.node_guid = l1.a_guid
		AND x.mlid = fa.mlid AND x.port = l2.a_port) LIMIT 1" | tr '|' ' ')
check "a tree link with a second cable beside it" ge "${lsw:-0}" 1
fabsim_run "$D/sim" -- "$SMPSET" mft "$lsw" "$M1" "$lp2" on
check "the looping Set is in force" entry_has "$lsw" "$M1" "$lp2"
scan
fcheck
check "loop: one mcast.loop finding" eq "$(mfind mcast.loop | wc -l)" 1
check "loop: it is G1's" has "$D/check.out" "round a loop"
"$FABSWEEP" route --db "$D/fab.db" --mcast "$M1" >"$D/route.out" 2>&1
check "route --mcast: the loop printed, exit 1" eq "$?" 1
check "route --mcast: loop line" has "$D/route.out" "loop:"

# ---- a group created, one deleted
before=$(last)
join join "$(guid_of "${hosts[0]}")" "$G3" full create 4 3 0xffff
for h in "${g2[@]}"; do
	js=full
	[[ $h == "${g2[2]}" ]] && js=sendonly
	join leave "$(guid_of "$h")" "$G2" "$js"
done
g2_gone() { ! fabsim_run "$D/sim" -- saquery -g | grep -q "$G2"; }
check "G2 deleted by the SA when its members left" wait_for 30 "G2's deletion" g2_gone
scan
"$FABSWEEP" diff --db "$D/fab.db" "$before" "$(last)" >"$D/diff.out" 2>&1
"$FABSWEEP" diff --db "$D/fab.db" "$before" "$(last)" --json >"$D/diff.json" 2>&1
"$FABSWEEP" diff --db "$D/fab.db" "$before" "$(last)" --quiet --xml "$D/diff.xml" >/dev/null 2>&1
check "diff: G3 created" has "$D/diff.out" "  $G3 (MLID"
check "diff: G2 deleted" has "$D/diff.out" "  $G2 (MLID"
check "diff: titles" has "$D/diff.out" "multicast groups deleted (1):"
check "diff --json: valid" python3 "$SRCDIR/tests/tools/json_validate.py" "$SRCDIR/docs/json/diff.schema.json" "$D/diff.json"
check "diff --json = the database, and the text" python3 "$SRCDIR/tests/tools/json_vs_db.py" diff "$D/fab.db" \
	"$before" "$(last)" "$D/diff.json" "$D/diff.out"
check "diff --xml: valid" xmllint --noout --schema "$SRCDIR/docs/fabsweep-diff.xsd" "$D/diff.xml"
check "diff --xml: the deleted group" has "$D/diff.xml" "mcast-group-removed"

# ---- a member's link degraded below the groups' rate
r=${g1[2]}
read -r rlid rport rleaf < <(leaf_of "$r")
fabsim_run "$D/sim" -- ibportstate "$rlid" "$rport" width 1 >/dev/null 2>&1
fabsim_resweep "$D/sim" || exit 1
scan
groups_of_r=$(q "SELECT count(*) FROM mcast_members WHERE scan_id = $(last) AND node_guid = '$(node_of "$r")'")
check "rate: $r's link is 1X" eq "$(q "SELECT width_active FROM ports WHERE scan_id = $(last) AND node_guid = '$(node_of "$r")' AND port_num = 1")" 1X
fcheck
check "rate: mcast.rate_mtu names $r in each of its $groups_of_r groups, nobody else" eq \
	"$(mfind mcast.rate_mtu | sort -u)" "mcast.rate_mtu $(node_of "$r")/1"
check "rate: one finding per group" eq "$(mfind mcast.rate_mtu | wc -l)" "$groups_of_r"
check "rate: the message says why" has "$D/check.out" "rate 10 Gb/s is above its link's 2.5 Gb/s (1X SDR)"

fabsim_stop "$D/sim" >/dev/null
echo "mcast_sim: $pass passed, $fail failed"
((fail == 0))
