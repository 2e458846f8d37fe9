#!/usr/bin/env bash
# The routing analysis with LMC > 0 (docs/routing.md) on a simulated fat tree
# routed by a real OpenSM with `-l 2`: every CA port answers 4 LIDs, each
# routed on its own (OpenSM spreads them over the spines). Oracles: ibroute
# (the switches' own tables), ibtracert (paths by LID) and ibsim's `Route`.
#  - healthy, sweeping SM: no routing finding; the stored tables hold every
#    LID of every range as ibroute dumps it; `fabsweep route --lid-offset K`
#    gives ibtracert's path to base + K on random pairs, and --all-lids
#    its path to each LID; route --all-pairs checks 4 routes a pair;
#  - stale: OpenSM configures once and exits (-o), then one leaf's entry
#    for one offset LID is Set to 255 (an SMP Set of its
#    LinearForwardingTable): routing.unreachable names that LID
#    (base + 1) and its pairs, as ibsim's `Route` finds them broken, and
#    route --all-pairs prints exactly those routes; the base LID and the
#    other offsets still arrive.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?} ${SMPSET:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
need sqlite3
need ibtracert
need ibroute
: >"$D/empty.conf"
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@" 2>/dev/null; }
fcheck() { "$FABSWEEP" check --db "$D/fab.db" --config "$D/empty.conf" >"$D/out" 2>&1; }
last() { q "SELECT max(scan_id) FROM scans"; }
findings() { q "SELECT rule_id || ' ' || subject FROM findings WHERE scan_id = $(last) AND rule_id LIKE '$1' ORDER BY 1"; }
lid_of() { q "SELECT p.lid FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $(last) AND n.description = '$1'"; }

"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 -o "$D/net16" || exit 1

# the hops of a path as "node/port>node/port ...", as in test_routing_sim.sh
tracert_hops() {
	awk '/^From / { n = split($0, q, "\""); cur = q[n - 1] }
	     /^\[[0-9]+\] -> / { out = substr($1, 2, length($1) - 2); n = split($0, q, "\"");
		match($0, /\}\[[0-9]+\]/); in_ = substr($0, RSTART + 2, RLENGTH - 3);
		printf "%s/%s>%s/%s ", cur, out, q[n - 1], in_; cur = q[n - 1] }'
}
route_hops() { awk '$3 == "->" { printf "%s>%s ", $2, $4 }'; }

# 1: healthy, sweeping SM with LMC 2
FABSIM_OPENSM_ARGS="-l 2" fabsim_start "$D/net16" "$D/sim" > /dev/null || exit 1
scan
check "healthy: scan exits 0" eq "$?" 0
s=$(last)
check "healthy: every CA port has LMC 2" eq "$(q "SELECT DISTINCT p.lmc FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = $s AND n.node_type = 'ca' AND p.state = 'active'")" 2
fcheck
check "healthy: no routing finding" eq "$(findings 'routing.%')" ""
check "healthy: the routing rules ran on 6 tables" eq "$(q "SELECT count(*) FROM switch_tables WHERE scan_id = $s")" 6
# the oracle for the tables: ibroute's entries for every LID of every CA range
mapfile -t sw < <(q "SELECT lid || ' ' || node_guid FROM nodes WHERE scan_id = $s AND node_type = 'switch' ORDER BY lid")
ranges="SELECT p.lid + k.k FROM ports p JOIN nodes n USING (scan_id, node_guid),
	(SELECT 0 AS k UNION SELECT 1 UNION SELECT 2 UNION SELECT 3) k
	WHERE p.scan_id = $s AND n.node_type = 'ca' AND p.state = 'active'"
same=0
for x in "${sw[@]}"; do
	lid=${x%% *} guid=${x#* }
	want=""
	for _ in 1 2 3; do
		want=$(fabsim_run "$D/sim" -- ibroute -t 2000 "$lid" 2>/dev/null |
			awk '/^0x[0-9a-f]+ [0-9]+ :/ { print $1, $2 }' |
			while read -r l p; do echo "$((l)) $((10#$p))"; done)
		[[ -n $want ]] && break
	done
	got=$(q "SELECT lid || ' ' || port FROM forwarding WHERE scan_id = $s AND node_guid = '$guid'
		AND lid IN ($ranges) ORDER BY lid")
	# ibroute lists every routed LID; keep those of the CA ranges
	want=$(awk 'NR == FNR { r[$1]; next } $1 in r' <(q "$ranges") <(echo "$want") | sort -n)
	[[ -n $got && $got == "$want" ]] && same=$((same + 1))
done
check "healthy: the stored tables route every LID of every range as ibroute dumps them ($same of ${#sw[@]} switches)" \
	eq "$same" "${#sw[@]}"
check "healthy: the LIDs of a range take both spines (leaf001's entries for host0016's 4 LIDs)" eq \
	"$(q "SELECT count(DISTINCT f.port) FROM forwarding f JOIN nodes n USING (scan_id, node_guid)
		WHERE f.scan_id = $s AND n.description = 'leaf001' AND f.lid BETWEEN $(lid_of host0016) AND $(lid_of host0016) + 3")" 2
mapfile -t hosts < <(q "SELECT description FROM nodes WHERE scan_id = $s AND node_type = 'ca' ORDER BY 1")
bad="" n_ok=0
for ((i = 0; i < 16; i++)); do
	a=${hosts[RANDOM % ${#hosts[@]}]} b=${hosts[RANDOM % ${#hosts[@]}]} k=$((i % 4))
	[[ $a == "$b" ]] && { i=$((i - 1)); continue; }
	want=""
	for _ in 1 2 3; do
		want=$(fabsim_run "$D/sim" -- ibtracert -t 2000 "$(lid_of "$a")" $(($(lid_of "$b") + k)) 2>/dev/null | tracert_hops)
		[[ -n $want ]] && break
	done
	got=$("$FABSWEEP" route --db "$D/fab.db" --lid-offset "$k" "$a" "$b" | route_hops)
	if [[ -n $want && $want == "$got" ]]; then n_ok=$((n_ok + 1)); else bad+=" $a>$b+$k"; fi
done
check "healthy: route --lid-offset K agrees with ibtracert to base + K on 16 random pairs ($n_ok agree; differ:${bad:- none})" eq "$n_ok" 16
"$FABSWEEP" route --db "$D/fab.db" --all-lids host0001 host0016 >"$D/all"
check "healthy: route --all-lids exits 0" eq "$?" 0
base=$(lid_of host0016) n_ok=0
for k in 0 1 2 3; do
	want=$(fabsim_run "$D/sim" -- ibtracert -t 2000 "$(lid_of host0001)" $((base + k)) 2>/dev/null | tracert_hops)
	got=$(awk -v k="$k" '/^route from/ { n++ } n == k + 1' "$D/all" | route_hops)
	[[ -n $want && $want == "$got" ]] && n_ok=$((n_ok + 1))
done
check "healthy: route --all-lids traces the 4 LIDs of host0016 as ibtracert does" eq "$n_ok" 4
check "healthy: ... each named base + offset" has "$D/all" "to host0016/1 (LID $((base + 3)) = base $base + 3), scan $s"
list=$(printf '%s\n' "${hosts[@]}" | awk '{ print $1 }' | paste -sd,)
"$FABSWEEP" route --db "$D/fab.db" --all-pairs --hosts "$list" >"$D/pairs"
check "healthy: route --all-pairs exits 0" eq "$?" 0
check "healthy: route --all-pairs checks 4 routes a pair, none broken" has "$D/pairs" \
	"all pairs of 16 hosts (16 ports), scan $s: 240 pairs checked (960 routes: every LID of each destination), 0 broken, 0 not judged"
fabsim_stop "$D/sim" > /dev/null

# 2: a stale entry for one offset LID only
FABSIM_OPENSM_ARGS="-o -l 2" fabsim_start "$D/net16" "$D/sim" > /dev/null || exit 1
scan
leaf=$(q "SELECT lid FROM nodes WHERE scan_id = $(last) AND description = 'leaf001'")
base=$(lid_of host0016)
fabsim_run "$D/sim" -- "$SMPSET" lft "$leaf" $((base + 1)) 255 || exit 1
check "stale: ibroute shows leaf001 without an entry for LID $((base + 1))" eq \
	"$(fabsim_run "$D/sim" -- ibroute "$leaf" 2>/dev/null | grep -ci "^$(printf '0x%04x' $((base + 1))) ")" 0
scan
fcheck
s=$(last)
# the oracle: every host's route to every LID of host0016's range (an entry
# for one LID changes only the routes to that LID: the other destinations'
# routes are the healthy tree's, none broken above)
mapfile -t lids < <(q "SELECT p.lid FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = $s AND n.node_type = 'ca' AND p.state = 'active' ORDER BY p.lid")
: >"$D/oracle"
for a in "${lids[@]}"; do
	[[ $a == "$base" ]] && continue
	for k in 0 1 2 3; do
		fabsim_console "$D/sim" "Route $a $((base + k))" >"$D/route" 2>&1
		grep -q "Bad forwarding table entry" "$D/route" && echo "$a $((base + k))" >>"$D/oracle"
	done
done
broken=$(wc -l <"$D/oracle")
check "stale: ibsim Route finds routes to LID $((base + 1)) only broken ($broken of 60)" \
	eq "$(awk '{ print $2 }' "$D/oracle" | sort -u)" "$((base + 1))"
check "stale: one routing finding" eq "$(findings 'routing.%')" "routing.unreachable leaf001"
ev=$(q "SELECT evidence FROM findings WHERE scan_id = $s AND rule_id = 'routing.unreachable'")
check "stale: it counts the pairs ibsim Route finds broken, for one destination LID" has <(echo "$ev") \
	"cause=no_entry; destinations=1; pairs=$broken; e.g. "
check "stale: it names the LID, base + 1" has <(echo "$ev") "host0016 (LID $((base + 1)) = base $base + 1)"
"$FABSWEEP" route --db "$D/fab.db" --all-pairs --hosts "$list" >"$D/pairs"
check "stale: route --all-pairs exits 1" eq "$?" 1
check "stale: route --all-pairs counts the broken routes" has "$D/pairs" \
	"240 pairs checked (960 routes: every LID of each destination), $broken broken, 0 not judged"
check "stale: route --all-pairs prints exactly the routes ibsim Route finds broken" eq \
	"$(sed -n 's/.* (LID \([0-9]*\)) -> .* (LID \([0-9]*\)): broken: no_entry at leaf001\/0$/\1 \2/p' "$D/pairs" | sort)" \
	"$(sort "$D/oracle")"
"$FABSWEEP" route --db "$D/fab.db" --lid-offset 1 host0001 host0016 >"$D/one"
check "stale: route --lid-offset 1 breaks at leaf001 (exit 1)" eq "$?" 1
check "stale: ... no_entry" has "$D/one" "broken: no_entry at leaf001/0"
"$FABSWEEP" route --db "$D/fab.db" host0001 host0016 >"$D/one"
check "stale: the base LID still arrives" eq "$?" 0
"$FABSWEEP" route --db "$D/fab.db" --all-lids host0001 host0016 >"$D/one"
check "stale: route --all-lids exits 1, with one of the 4 broken" eq "$?:$(grep -c '^arrives' "$D/one")" "1:3"
fabsim_stop "$D/sim" > /dev/null

echo "routing_lmc_sim: $pass passed, $fail failed"
((fail == 0))
