#!/usr/bin/env bash
# The routing rules on simulated fabrics routed by a real OpenSM, against the
# oracles ibtracert, ibroute, smpquery, perfquery and ibsim's `Route`:
#  - a healthy fat tree with a sweeping OpenSM: check runs every routing rule
#    (none skipped) and they find nothing; `fabsweep route` gives the path
#    ibtracert traces, hop by hop, for 50 random pairs of hosts; on routes
#    across leaf001's up-links, one trained at 1X and the other at DDR, and
#    error counters set on both ends of links, each hop's printed width,
#    speed and error counters are what smpquery portinfo and perfquery read
#    from the port it leaves by;
#  - a stale route: OpenSM configures the fat tree once and exits (-o), then a
#    leaf-spine cable is pulled (ibsim Unlink): routing.unreachable counts
#    exactly the host pairs ibsim's `Route` finds broken ("Bad out port
#    state"), and names the pulled port. (ibtracert is no oracle here: its
#    own LID-routed SMPs get lost on the same stale routes, so it fails for
#    most pairs, broken or not.)
#    `fabsweep route --all-pairs` over every host prints exactly those
#    pairs, and exits 1; on the healthy tree it finds none and exits 0.
#  - a ring of five switches routed min-hop gives routing.credit_loop twice
#    (the two-hop routes chain the five links into a cycle each way round),
#    judged per virtual lane from the SL2VL tables the scan read (20: each
#    switch's two ring out-ports from the other ring port and from its host;
#    stored as smpquery reads them; none on the healthy fat tree, 0 MADs);
#    after a dateline (every table set to VL 0 by SMP Sets, then traffic
#    crossing r1 from one neighbour to the other moved to VL 1) a new scan
#    finds no loop, and with the dateline one way round only, one loop;
#    a loop wanting more tables than --sl2vl-max reads none; when r3's
#    tables do not answer (ibsim `Error`), the scan is partial, names r3
#    in scan_errors, stores the other 16 and judges the loops on one lane;
#    the same ring routed up/down (root r1) gives none.
#  - LMC 2 (OpenSM -l 2: 4 LIDs a CA port, spread over the spines), against
#    ibroute, ibtracert and ibsim's `Route`: healthy, no routing finding, the
#    stored tables hold every LID of every range as ibroute dumps them,
#    `route --lid-offset K` gives ibtracert's path to base + K on random
#    pairs, --all-lids its path to each LID, --all-pairs checks 4 routes a
#    pair, `ready` probes the hops only offset LIDs' routes cross; with one
#    leaf's entry for one offset LID Set to 255 (OpenSM -o,
#    an SMP Set), routing.unreachable names that LID (base + 1) and counts
#    the routes ibsim's `Route` finds broken, --all-pairs prints exactly
#    those, the base LID still arrives; with three more of leaf001's
#    entries moved from one up-port to the other (SMP Sets), routing.imbalance
#    at max_deviation 5% counts each up-port's LIDs as ibroute dumps them.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?} ${SMPSET:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
need sqlite3
need ibtracert
need ibroute
need smpquery
: >"$D/empty.conf"
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@" 2>/dev/null; }
fcheck() { "$FABSWEEP" check --db "$D/fab.db" --config "$D/empty.conf" >"$D/out" 2>&1; }
last() { q "SELECT max(scan_id) FROM scans"; }
lid_of() { q "SELECT p.lid FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $(last) AND n.description = '$1'"; }
findings() { q "SELECT rule_id || ' ' || subject FROM findings WHERE scan_id = $(last) AND rule_id LIKE '$1' ORDER BY 1"; }

"$FABGEN" --leaves 3 --spines 2 --hosts-per-leaf 2 -o "$D/net" || exit 1
"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 -o "$D/net16" || exit 1
# the same with leaf001's up-links unlike the others: 1X to spine001, DDR to spine002
"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 --degrade 'leaf001[5]:w=1' --degrade 'leaf001[6]:s=2' \
	-o "$D/net16d" || exit 1

# the hops of a path as "node/port>node/port ...": from ibtracert's lines
# ('[3] -> switch port {guid}[1] lid 3-3 "spine001"') and from fabsweep route's
# ('  2  leaf001/3 -> spine001/1  4X SDR  no errors')
tracert_hops() {
	awk '/^From / { n = split($0, q, "\""); cur = q[n - 1] }
	     /^\[[0-9]+\] -> / { out = substr($1, 2, length($1) - 2); n = split($0, q, "\"");
		match($0, /\}\[[0-9]+\]/); in_ = substr($0, RSTART + 2, RLENGTH - 3);
		printf "%s/%s>%s/%s ", cur, out, q[n - 1], in_; cur = q[n - 1] }'
}
route_hops() { awk '$3 == "->" { printf "%s>%s ", $2, $4 }'; }
# what `fabsweep route` prints after a hop's names ('4X SDR  SymbolErrorCounter=12',
# '1X SDR  no errors'), from the simulator: port $2 of node $1 as smpquery
# portinfo reads its width and speed, and as perfquery reads the IBA's error
# counters that are not 0, in perfquery's order
# (a query whose MADs time out on a loaded machine is asked again)
sim_ask() {
	local _ out
	for _ in 1 2 3; do
		out=$(fabsim_run "$D/sim" -- "$@" 2>/dev/null) && { printf '%s\n' "$out"; return; }
	done
	return 1
}
sim_facts() {
	local lid w s x errs
	lid=$(q "SELECT lid FROM nodes WHERE scan_id = $(last) AND description = '$1'")
	sim_ask smpquery -t 2000 portinfo "$lid" "$2" >"$D/pi" || return 1
	w=$(sed -n 's/^LinkWidthActive:\.*//p' "$D/pi")
	s=$(sed -n 's/^LinkSpeedActive:\.*//p' "$D/pi")
	x=$(sed -n 's/^LinkSpeedExtActive:\.*//p' "$D/pi")
	case $x in
	14.0625*) s=FDR ;; 25.78125*) s=EDR ;; 53.125*) s=HDR ;;
	*) case $s in 2.5*) s=SDR ;; 5.0*) s=DDR ;; 10.0*) s=QDR ;; esac ;;
	esac
	sim_ask perfquery -t 2000 "$lid" "$2" >"$D/pq" || return 1
	errs=$(awk -F'[:.]+' '
		$1 ~ /^(SymbolErrorCounter|LinkErrorRecoveryCounter|LinkDownedCounter|PortRcvErrors|PortRcvRemotePhysicalErrors|PortRcvSwitchRelayErrors|PortXmitDiscards|PortXmitConstraintErrors|PortRcvConstraintErrors|LocalLinkIntegrityErrors|ExcessiveBufferOverrunErrors|VL15Dropped)$/ &&
		$2 != 0 { printf "%s%s=%s", n++ ? " " : "", $1, $2 }' "$D/pq")
	echo "$w $s  ${errs:-no errors}"
}

# 1: healthy, sweeping SM; error counters on both ends of leaf001's up-links,
# on host0001's port and (not an error counter) on leaf004's port to host0016
fabsim_start "$D/net16d" "$D/sim" > /dev/null || exit 1
for set in '"leaf001"[5] PortCounters.SymbolErrorCounter=12' '"leaf001"[6] PortCounters.PortRcvErrors=3' \
	'"leaf001"[6] PortCounters.LinkDownedCounter=2' '"spine001"[1] PortCounters.PortXmitDiscards=7' \
	'"spine002"[1] PortCounters.VL15Dropped=5' '"host0001"[1] PortCounters.LocalLinkIntegrityErrors=1' \
	'"leaf004"[4] PortCounters.PortXmitWait=99'; do
	fabsim_console "$D/sim" "PerformanceSet $set" > /dev/null || exit 1
done
FABSWEEP_SCAN_DEBUG=1 fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet 2>"$D/debug"
check "healthy: scan exits 0" eq "$?" 0
check "healthy: no SL2VL MAD (no one-lane loop to judge)" eq "$(grep -Ec '^scan: sl2vl .* sent 0 resent 0 ' "$D/debug")" 1
check "healthy: no SL2VL table stored" eq "$(q "SELECT count(*) FROM sl2vl WHERE scan_id = $(last)")" 0
fcheck
check "healthy: no routing finding" eq "$(findings 'routing.%')" ""
# a rule skipped is named on a 'skipped' line (test_scan_routes.sh: --no-routes)
check "healthy: check ran the routing rules: none skipped, nothing found" lacks "$D/out" "routing."
check "  ... (its summary)" has "$D/out" " rules run"
# each hop's fields against the simulator, on routes that cross leaf001's
# up-links both ways, and one within leaf001
n_hops=0 bad="" want="" got=""
for pair in "host0001 host0016" "host0016 host0001" "host0002 host0001"; do
	read -r a b <<<"$pair"
	"$FABSWEEP" route --db "$D/fab.db" "$a" "$b" >"$D/route.$a.$b"
	want=$(sim_ask ibtracert -t 2000 "$(lid_of "$a")" "$(lid_of "$b")" | tracert_hops)
	[[ -n $want && $want == "$(route_hops <"$D/route.$a.$b")" ]] || bad+=" $a>$b(hops)"
	while read -r _ from _ _ facts; do
		n_hops=$((n_hops + 1))
		want=$(sim_facts "${from%/*}" "${from##*/}")
		[[ $facts == "$want" ]] || bad+=" $from('$facts', not '$want')"
	done < <(awk '$3 == "->"' "$D/route.$a.$b")
done
check "hops: each as ibtracert's; its width, speed and error counters as smpquery portinfo and perfquery read the port it leaves by ($n_hops hops; differ:${bad:- none})" eq "$bad" ""
check "  ... 10 hops" eq "$n_hops" 10
cat "$D"/route.* >"$D/routes"
check "  ... across the 1X or the DDR up-link of leaf001, both ways" eq "$(grep -Ec '^  [23]  (leaf001/[56] -> spine00[12]/1  (1X SDR|4X DDR)|spine00[12]/1 -> leaf001/[56]  (1X SDR|4X DDR))  ' "$D/routes")" 2
check "  ... with error counters on it, and on host0001's port" eq \
	"$(grep -Ec '(SymbolErrorCounter=12|PortRcvErrors=3|PortXmitDiscards=7|VL15Dropped=5)$|LocalLinkIntegrityErrors=1$' "$D/routes")" 3
mapfile -t hosts < <(q "SELECT description FROM nodes WHERE scan_id = $(last) AND node_type = 'ca' ORDER BY 1")
bad="" n_ok=0
for ((i = 0; i < 50; i++)); do
	a=${hosts[RANDOM % ${#hosts[@]}]} b=${hosts[RANDOM % ${#hosts[@]}]}
	[[ $a == "$b" ]] && { i=$((i - 1)); continue; }
	la=$(q "SELECT lid FROM nodes WHERE scan_id = $(last) AND description = '$a'")
	lb=$(q "SELECT lid FROM nodes WHERE scan_id = $(last) AND description = '$b'")
	# a trace whose MADs time out on a loaded machine is asked again
	want=""
	for _ in 1 2 3; do
		want=$(fabsim_run "$D/sim" -- ibtracert -t 2000 "$la" "$lb" 2>/dev/null | tracert_hops)
		[[ -n $want ]] && break
	done
	got=$("$FABSWEEP" route --db "$D/fab.db" "$a" "$b" | route_hops)
	if [[ -n $want && $want == "$got" ]]; then n_ok=$((n_ok + 1)); else bad+=" $a>$b"; fi
done
check "healthy: fabsweep route agrees with ibtracert on 50 random pairs ($n_ok agree; differ:${bad:- none})" eq "$n_ok" 50
list=$(printf '%s\n' "${hosts[@]}" | awk '{ print $1 }' | paste -sd,)
"$FABSWEEP" route --db "$D/fab.db" --all-pairs --hosts "$list" >"$D/pairs"
check "healthy: route --all-pairs exits 0" eq "$?" 0
check "healthy: route --all-pairs checks every ordered pair, none broken" \
	has "$D/pairs" "all pairs of 16 hosts (16 ports), scan $(last): 240 pairs checked, 0 broken, 0 not judged"
fabsim_stop "$D/sim" > /dev/null

# 2: stale routes after OpenSM -o and a pulled leaf-spine cable
FABSIM_OPENSM_ARGS="-o" fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
fabsim_console "$D/sim" 'Unlink "leaf001"[3]' > /dev/null || exit 1
scan
fcheck
s=$(last)
# the oracle: every ordered pair of hosts through ibsim's Route
mapfile -t lids < <(q "SELECT p.lid FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = $s AND n.node_type = 'ca' AND p.state = 'active' ORDER BY p.lid")
broken=0
for a in "${lids[@]}"; do
	for b in "${lids[@]}"; do
		[[ $a == "$b" ]] && continue
		fabsim_console "$D/sim" "Route $a $b" >"$D/route" 2>&1
		grep -q "Bad out port state" "$D/route" && { broken=$((broken + 1)); echo "$a $b" >>"$D/oracle"; }
	done
done
check "stale: ibsim Route finds broken pairs ($broken of $((${#lids[@]} * (${#lids[@]} - 1))))" test "$broken" -gt 0
check "stale: routing.unreachable counts the pairs ibsim Route finds broken" eq "$(q "SELECT sum(CAST(substr(evidence,
	instr(evidence, 'pairs=') + 6, instr(substr(evidence, instr(evidence, 'pairs=') + 6), ';') - 1) AS INTEGER))
	FROM findings WHERE scan_id = $s AND rule_id = 'routing.unreachable'")" "$broken"
check "stale: it names the pulled port leaf001/3" has <(findings 'routing.unreachable') "routing.unreachable leaf001/3"
ex=$(q "SELECT evidence FROM findings WHERE scan_id = $s AND rule_id = 'routing.unreachable' ORDER BY subject LIMIT 1")
src=${ex#*e.g. }
src=${src%% -> *}
dlid=${ex#*(LID }
dlid=${dlid%%)*}
slid=$(q "SELECT p.lid FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $s AND n.description = '$src'")
fabsim_console "$D/sim" "Route $slid $dlid" >"$D/route" 2>&1
check "stale: ibsim Route $slid $dlid (a pair the evidence names: $src) hits the down port" has "$D/route" "Bad out port state"
list=$(q "SELECT group_concat(substr(description, 1, instr(description || ' ', ' ') - 1), ',') FROM nodes
	WHERE scan_id = $s AND node_type = 'ca'")
"$FABSWEEP" route --db "$D/fab.db" --all-pairs --hosts "$list" >"$D/pairs"
check "stale: route --all-pairs exits 1" eq "$?" 1
n=${#lids[@]}
check "stale: route --all-pairs counts the pairs ibsim Route finds broken" \
	has "$D/pairs" "all pairs of $n hosts ($n ports), scan $s: $((n * (n - 1))) pairs checked, $broken broken, 0 not judged"
# its lines: 'host0001/1 (LID 1) -> host0003/1 (LID 8): broken: no_cable at leaf001/3'
# (an Unlinked port polls for a partner: no_cable)
check "stale: route --all-pairs prints exactly the pairs ibsim Route finds broken" eq \
	"$(sed -n 's/.* (LID \([0-9]*\)) -> .* (LID \([0-9]*\)): broken: .*/\1 \2/p' "$D/pairs" | sort)" "$(sort "$D/oracle")"
check "stale: ... each at one end of the pulled cable (leaf001/3 up, the spine's port 1 down)" eq \
	"$(grep -Ec 'broken: no_cable at (leaf001/3|spine[0-9]+/1)$' "$D/pairs")" "$broken"
check "stale: ... both ends named" eq "$(grep -Eo 'at (leaf001/3|spine[0-9]+/1)$' "$D/pairs" | sort -u | wc -l)" 2
fabsim_stop "$D/sim" > /dev/null

# 3: a ring of five switches, a host on each
{
	for i in 1 2 3 4 5; do
		printf 'caguid=0x0002c9010000%02x10\nHca 1 "h%s"\n[1]\t"r%s"[1]\n\n' "$i" "$i" "$i"
	done
	for i in 1 2 3 4 5; do
		nx=$((i % 5 + 1)) pv=$(((i + 3) % 5 + 1))
		printf 'switchguid=0x0002c9020000%02x10\nSwitch 8 "r%s"\n[1]\t"h%s"[1]\n[2]\t"r%s"[3]\n[3]\t"r%s"[2]\n\n' \
			"$i" "$i" "$i" "$nx" "$pv"
	done
} >"$D/ring"
echo 0x0002c90200000110 >"$D/roots" # r1: up/down finds no root in a ring by itself
lid_of() { q "SELECT lid FROM nodes WHERE scan_id = $(last) AND description = '$1'"; }
# sets SL2VL (in, out) of switch $1 to $4 (16 hex digits, SL 0's VL first)
sl2vl_set() { fabsim_run "$D/sim" -- "$SMPSET" sl2vl "$(lid_of "$1")" "$2" "$3" "$4"; }
# the min-hop ring's lanes: read, judged, and a dateline
ring_lanes() {
	local s=$(last) r1 row want got
	check "ring, min-hop: the scan read 20 SL2VL tables" eq \
		"$(q "SELECT count(DISTINCT node_guid || in_port || '/' || out_port) FROM sl2vl WHERE scan_id = $s")" 20
	# the oracle: smpquery's row for r1, in-port 3 (from r5), out-port 2 (to r2)
	row=$(fabsim_run "$D/sim" -- smpquery sl2vl "$(lid_of r1)" 2 | sed -n 's/^ports: in  *3, out  *2: |//p' | tr -d ' ' | tr '|' ' ')
	want=$(q "SELECT group_concat(vl, ' ') FROM (SELECT vl FROM sl2vl s JOIN nodes n ON n.scan_id = s.scan_id
		AND n.node_guid = s.node_guid WHERE s.scan_id = $s AND n.description = 'r1' AND in_port = 3
		AND out_port = 2 ORDER BY sl)")
	check "ring, min-hop: r1's table (3 -> 2) as stored is what smpquery reads ($want)" eq "${row% }" "$want"
	# ibsim's default tables map SL s to VL s (SL 15 to VL 7), and OpenSM
	# without QoS leaves them: each SL loops on its own lane
	check "ring, min-hop: both loops judged per lane, on VL 0 for SL 0 and on every lane of SLs 0-14" eq \
		"$(q "SELECT count(*) FROM findings WHERE scan_id = $s AND rule_id = 'routing.credit_loop'
			AND evidence LIKE 'cycle=r_/_ (VL0 SL0) -> %'
			AND evidence LIKE '%lanes=sl2vl (cycles on VL0,1,2,3,4,5,6,7,8,9,10,11,12,13,14)'")" 2
	# every table on VL 0, then the dateline at r1: r5 -> r1 -> r2 and back on VL 1
	while IFS='|' read -r sw in out; do
		sl2vl_set "$sw" "$in" "$out" 0000000000000000 || return
	done < <(q "SELECT DISTINCT n.description, s.in_port, s.out_port FROM sl2vl s JOIN nodes n
		ON n.scan_id = s.scan_id AND n.node_guid = s.node_guid WHERE s.scan_id = $s")
	sl2vl_set r1 3 2 1111111111111111 && sl2vl_set r1 2 3 1111111111111111
	check "ring, dateline: the Sets were taken" eq "$?" 0
	scan
	fcheck
	check "ring, dateline: the new scan stored r1's dateline (SL 0 on VL 1 from r5 to r2)" eq \
		"$(q "SELECT vl FROM sl2vl s JOIN nodes n ON n.scan_id = s.scan_id AND n.node_guid = s.node_guid
			WHERE s.scan_id = $(last) AND n.description = 'r1' AND in_port = 3 AND out_port = 2 AND sl = 0")" 1
	check "ring, dateline: no credit loop" eq "$(findings 'routing.credit_loop')" ""
	sl2vl_set r1 2 3 0000000000000000
	scan
	fcheck
	check "ring, dateline one way round: one credit loop, the other way (r1 leaves by port 3)" eq \
		"$(q "SELECT count(*) FROM findings WHERE scan_id = $(last) AND rule_id = 'routing.credit_loop'
			AND evidence LIKE '%r1/3 (VL0 %' AND evidence LIKE '%lanes=sl2vl%'")/$(findings 'routing.credit_loop' | wc -l)" 1/1
}
for engine in minhop updn; do
	FABSIM_OSM_EXTRA_CONF="routing_engine $engine
root_guid_file $D/roots" fabsim_start "$D/ring" "$D/sim" > /dev/null || exit 1
	scan
	fcheck
	if [[ $engine == minhop ]]; then
		check "ring, min-hop: two credit loops" eq "$(findings 'routing.credit_loop' | wc -l)" 2
		check "  ... each through the five ring links one way round" eq "$(q "SELECT count(*) FROM findings
			WHERE scan_id = $(last) AND rule_id = 'routing.credit_loop' AND evidence LIKE '%links_in_cycle_set=5;%'")" 2
		ring_lanes
		# a loop that wants more tables than --sl2vl-max: none read, judged on
		# one lane, and the scan says so (not --quiet)
		fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --sl2vl-max 19 > /dev/null 2> "$D/err"
		check "ring, --sl2vl-max 19: the scan's note" has "$D/err" \
			"note: the credit loops of the routes want 20 SL2VL tables, more than --sl2vl-max 19: none read"
		fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --sl2vl-max 20 > /dev/null 2> "$D/err"
		check "ring, --sl2vl-max 20: tables read, no such note" lacks "$D/err" "SL2VL"
		scan --sl2vl-max 19
		fcheck
		check "ring, --sl2vl-max 19 (20 wanted): no SL2VL table read" \
			eq "$(q "SELECT count(*) FROM sl2vl WHERE scan_id = $(last)")" 0
		check "  ... both one-lane loops reported, lanes not read (10 tables each)" eq "$(q "SELECT count(*) FROM findings
			WHERE scan_id = $(last) AND rule_id = 'routing.credit_loop' AND evidence LIKE '%lanes=not_read (10 SL2VL tables)'")" 2
		# r3's SLtoVLMappingTables (0x17) do not answer: named, the rest stored
		fabsim_console "$D/sim" 'Error "r3" 100 0x17' > /dev/null || exit 1
		scan --timeout 100 --retries 1
		rc=$?
		fabsim_console "$D/sim" 'Error "r3" 0' > /dev/null || exit 1
		fcheck
		s=$(last)
		check "ring, r3's SL2VL tables dead: exit 4 (partial)" eq "$rc" 4
		check "  ... one routing error naming r3 and its SL2VL tables" eq "$(q "SELECT count(*) FROM scan_errors
			WHERE scan_id = $s AND what = 'routing' AND message LIKE '\"r3\" (LID %): SLtoVLMappingTable of 4 of its 4 in/out port pairs not read%got no answer%'")" 1
		check "  ... the other 16 tables stored, none of r3's" eq "$(q "SELECT count(DISTINCT s.node_guid || s.in_port || '/' || s.out_port)
			|| ' ' || sum(n.description = 'r3') FROM sl2vl s JOIN nodes n ON n.scan_id = s.scan_id AND n.node_guid = s.node_guid
			WHERE s.scan_id = $s")" "16 0"
		check "  ... both loops judged on one lane, r3's tables named missing" eq "$(q "SELECT count(*) FROM findings
			WHERE scan_id = $s AND rule_id = 'routing.credit_loop' AND evidence LIKE '%lanes=not_read (_ SL2VL tables)'")" 2
	else
		check "ring, up/down: no credit loop" eq "$(findings 'routing.credit_loop')" ""
		check "ring, up/down: no SL2VL table read" eq "$(q "SELECT count(*) FROM sl2vl WHERE scan_id = $(last)")" 0
	fi
	check "ring, $engine: every route arrives" eq "$(findings 'routing.unreachable')" ""
	fabsim_stop "$D/sim" > /dev/null
done

# 4: LMC 2 (OpenSM -l 2): every CA port answers 4 LIDs, each routed on its own
# (OpenSM spreads them over the spines); healthy, sweeping SM
FABSIM_OPENSM_ARGS="-l 2" fabsim_start "$D/net16" "$D/sim" > /dev/null || exit 1
scan
check "lmc: scan exits 0" eq "$?" 0
s=$(last)
check "lmc: every CA port has LMC 2" eq "$(q "SELECT DISTINCT p.lmc FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = $s AND n.node_type = 'ca' AND p.state = 'active'")" 2
fcheck
check "lmc: no routing finding" eq "$(findings 'routing.%')" ""
check "lmc: the routing rules ran on 6 tables" eq "$(q "SELECT count(*) FROM switch_tables WHERE scan_id = $s")" 6
# the oracle for the tables: ibroute's entries for every LID of every CA range
mapfile -t sw < <(q "SELECT lid || ' ' || node_guid FROM nodes WHERE scan_id = $s AND node_type = 'switch' ORDER BY lid")
# every LID of every CA port's range (LMC 2) in scan $1, as SQL
ca_lids() {
	echo "SELECT p.lid + k.k FROM ports p JOIN nodes n USING (scan_id, node_guid),
	(SELECT 0 AS k UNION SELECT 1 UNION SELECT 2 UNION SELECT 3) k
	WHERE p.scan_id = $1 AND n.node_type = 'ca' AND p.state = 'active'"
}
ranges=$(ca_lids "$s")
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
check "lmc: the stored tables route every LID of every range as ibroute dumps them ($same of ${#sw[@]} switches)" \
	eq "$same" "${#sw[@]}"
check "lmc: the LIDs of a range take both spines (leaf001's entries for host0016's 4 LIDs)" eq \
	"$(q "SELECT count(DISTINCT f.port) FROM forwarding f JOIN nodes n USING (scan_id, node_guid)
		WHERE f.scan_id = $s AND n.description = 'leaf001' AND f.lid BETWEEN $(lid_of host0016) AND $(lid_of host0016) + 3")" 2
mapfile -t hosts < <(q "SELECT description FROM nodes WHERE scan_id = $s AND node_type = 'ca' ORDER BY 1")
bad="" n_ok=0 bad_lid="" n_lid=0
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
	# the same hosts named by LIDs, DST an offset LID (the view is seeded with its node)
	got=$("$FABSWEEP" route --db "$D/fab.db" "$(lid_of "$a")" $(($(lid_of "$b") + k)) | route_hops)
	if [[ -n $want && $want == "$got" ]]; then n_lid=$((n_lid + 1)); else bad_lid+=" $a>$b+$k"; fi
done
check "lmc: route --lid-offset K agrees with ibtracert to base + K on 16 random pairs ($n_ok agree; differ:${bad:- none})" eq "$n_ok" 16
check "lmc: route SRC-LID BASE+K (by LIDs) agrees with ibtracert on the same pairs ($n_lid agree; differ:${bad_lid:- none})" eq "$n_lid" 16
"$FABSWEEP" route --db "$D/fab.db" --all-lids host0001 host0016 >"$D/all"
check "lmc: route --all-lids exits 0" eq "$?" 0
base=$(lid_of host0016) n_ok=0
for k in 0 1 2 3; do
	want=$(fabsim_run "$D/sim" -- ibtracert -t 2000 "$(lid_of host0001)" $((base + k)) 2>/dev/null | tracert_hops)
	got=$(awk -v k="$k" '/^route from/ { n++ } n == k + 1' "$D/all" | route_hops)
	[[ -n $want && $want == "$got" ]] && n_ok=$((n_ok + 1))
done
check "lmc: route --all-lids traces the 4 LIDs of host0016 as ibtracert does" eq "$n_ok" 4
check "lmc: ... each named base + offset" has "$D/all" "to host0016/1 (LID $((base + 3)) = base $base + 3), scan $s"
list=$(printf '%s\n' "${hosts[@]}" | awk '{ print $1 }' | paste -sd,)
"$FABSWEEP" route --db "$D/fab.db" --all-pairs --hosts "$list" >"$D/pairs"
check "lmc: route --all-pairs exits 0" eq "$?" 0
check "lmc: route --all-pairs checks 4 routes a pair, none broken" has "$D/pairs" \
	"all pairs of 16 hosts (16 ports), scan $s: 240 pairs checked (960 routes: every LID of each destination), 0 broken, 0 not judged"
# ready probes the hops of every LID's route: between host0001 (leaf001) and
# host0005 (leaf002) both base LIDs' routes cross spine001, the offsets'
# spine002 too; errors on spine002's port toward leaf002 make the pair not ready
spines() { "$FABSWEEP" route --db "$D/fab.db" "$1" "$2" | awk '$4 ~ /^spine/ { sub(/\/.*/, "", $4); print $4 }'; }
check "lmc: both base LIDs' routes between host0001 and host0005 cross spine001 (as OpenSM routed them)" \
	eq "$(spines host0001 host0005) $(spines host0005 host0001)" "spine001 spine001"
fabsim_console "$D/sim" 'PerformanceSet "spine002"[2] PortCounters.SymbolErrorCounter=500' >/dev/null || exit 1
fabsim_run "$D/sim" -- "$FABSWEEP" ready --db "$D/fab.db" --hosts host0001,host0005 >"$D/out" 2>&1
check "lmc: ready finds the erroring hop only the offsets cross (exit 1)" eq "$?" 1
check "lmc: ... names the hop" has "$D/out" \
	"spine002/2 <-> leaf002/6: error counters rose at spine002/2: SymbolErrorCounter +500"
check "lmc: ... and the pair" has "$D/out" "host0001 -> host0005: not ready: the route crosses hop"
fabsim_stop "$D/sim" > /dev/null

# 5: LMC 2, a stale entry for one offset LID only: OpenSM configures once and
# exits (-o), then leaf001's entry for host0016's base + 1 is Set to 255 (an
# SMP Set of its LinearForwardingTable)
FABSIM_OPENSM_ARGS="-o -l 2" fabsim_start "$D/net16" "$D/sim" > /dev/null || exit 1
scan
leaf=$(q "SELECT lid FROM nodes WHERE scan_id = $(last) AND description = 'leaf001'")
base=$(lid_of host0016)
fabsim_run "$D/sim" -- "$SMPSET" lft "$leaf" $((base + 1)) 255 || exit 1
# three LIDs of other hosts' ranges that leaf001 sends up port 6 (to
# spine002) go up port 5 (to spine001) instead: still routes that arrive
s=$(last)
mapfile -t moved < <(q "SELECT f.lid FROM forwarding f JOIN nodes n USING (scan_id, node_guid)
	WHERE f.scan_id = $s AND n.description = 'leaf001' AND f.port = 6
	AND f.lid IN ($(ca_lids "$s")) AND f.lid NOT BETWEEN $base AND $base + 3 ORDER BY f.lid LIMIT 3")
for l in "${moved[@]}"; do
	fabsim_run "$D/sim" -- "$SMPSET" lft "$leaf" "$l" 5 || exit 1
done
fabsim_run "$D/sim" -- ibroute "$leaf" >"$D/ibroute" 2>/dev/null
check "lmc stale: ibroute shows leaf001 without an entry for LID $((base + 1))" eq \
	"$(grep -ci "^$(printf '0x%04x' $((base + 1))) " "$D/ibroute")" 0
check "lmc stale: ... and three LIDs moved to port 5 (${moved[*]})" eq "$(for l in "${moved[@]}"; do
	grep -ci "^$(printf '0x%04x' "$l") 005 " "$D/ibroute"; done | paste -sd' ')" "1 1 1"
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
check "lmc stale: ibsim Route finds routes to LID $((base + 1)) only broken ($broken of 60)" \
	eq "$(awk '{ print $2 }' "$D/oracle" | sort -u)" "$((base + 1))"
check "lmc stale: one routing finding" eq "$(findings 'routing.%')" "routing.unreachable leaf001"
ev=$(q "SELECT evidence FROM findings WHERE scan_id = $s AND rule_id = 'routing.unreachable'")
check "lmc stale: it counts the pairs ibsim Route finds broken, for one destination LID" has <(echo "$ev") \
	"cause=no_entry; destinations=1; pairs=$broken; e.g. "
check "lmc stale: it names the LID, base + 1" has <(echo "$ev") "host0016 (LID $((base + 1)) = base $base + 1)"
"$FABSWEEP" route --db "$D/fab.db" --all-pairs --hosts "$list" >"$D/pairs"
check "lmc stale: route --all-pairs exits 1" eq "$?" 1
check "lmc stale: route --all-pairs counts the broken routes" has "$D/pairs" \
	"240 pairs checked (960 routes: every LID of each destination), $broken broken, 0 not judged"
check "lmc stale: route --all-pairs prints exactly the routes ibsim Route finds broken" eq \
	"$(sed -n 's/.* (LID \([0-9]*\)) -> .* (LID \([0-9]*\)): broken: no_entry at leaf001\/0$/\1 \2/p' "$D/pairs" | sort)" \
	"$(sort "$D/oracle")"
"$FABSWEEP" route --db "$D/fab.db" --lid-offset 1 host0001 host0016 >"$D/one"
check "lmc stale: route --lid-offset 1 breaks at leaf001 (exit 1)" eq "$?" 1
check "lmc stale: ... no_entry" has "$D/one" "broken: no_entry at leaf001/0"
"$FABSWEEP" route --db "$D/fab.db" host0001 host0016 >"$D/one"
check "lmc stale: the base LID still arrives" eq "$?" 0
"$FABSWEEP" route --db "$D/fab.db" --all-lids host0001 host0016 >"$D/one"
check "lmc stale: route --all-lids exits 1, with one of the 4 broken" eq "$?:$(grep -c '^arrives' "$D/one")" "1:3"
# routing.imbalance: leaf001's up-ports 5 and 6 carry the LIDs of every CA
# range that ibroute dumps on them; max_deviation 5% (the default 50% is
# silent, above)
read -r n5 n6 < <(awk 'NR == FNR { ca[$1]; next } ($1 in ca) { n[$2]++ } END { print n[5] + 0, n[6] + 0 }' \
	<(q "$(ca_lids "$s")") <(awk '/^0x[0-9a-f]+ [0-9]+ :/ { print $1, $2 }' "$D/ibroute" |
	while read -r l p; do echo "$((l)) $((10#$p))"; done))
mean=$(awk -v a="$n5" -v b="$n6" 'BEGIN { printf "%.1f", (a + b) / 2 }')
printf '[routing.imbalance]\nmax_deviation = 5\n' >"$D/imbalance.conf"
"$FABSWEEP" check --db "$D/fab.db" --config "$D/imbalance.conf" >"$D/out" 2>&1
check "lmc stale, max_deviation 5%: routing.imbalance counts leaf001's up-ports as ibroute dumps them ($n5 and $n6)" eq \
	"$(q "SELECT subject || ': ' || message || ' | ' || evidence FROM findings WHERE scan_id = $s AND rule_id = 'routing.imbalance'")" \
	"leaf001: its up-ports carry uneven numbers of destinations: port 5 carries $n5, port 6 carries $n6 (mean $mean) | destinations per up-port: 5=$n5 6=$n6; mean=$mean; max_deviation=5%"
fabsim_stop "$D/sim" > /dev/null

echo "routing_sim: $pass passed, $fail failed"
((fail == 0))
