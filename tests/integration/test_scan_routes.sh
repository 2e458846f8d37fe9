#!/usr/bin/env bash
# Forwarding tables on a simulated fat tree routed by a sweeping OpenSM:
#  - every switch's stored table equals what `ibroute` dumps, and its
#    LinearFDBTop what `smpquery switchinfo` says (the oracles);
#  - a second scan of the unchanged fabric adds no table rows at all, only
#    the scan's pointer to the routing it saw;
#  - --no-routes stores no tables, and check then skips the three routing
#    rules, saying why (it runs them on a scan with tables); --forensic
#    refuses --no-routes;
#  - a switch whose LinearForwardingTable blocks do not answer, or whose
#    SwitchInfo does not: the scan ends partial (exit 4) in bounded time,
#    names it in scan_errors ('routing'), and stores what it could read.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
need sqlite3
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
scan() { fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet "$@" 2>/dev/null; }
last() { q "SELECT max(scan_id) FROM scans"; }
rows() { q "SELECT (SELECT count(*) FROM lft_blocks) || ' ' || (SELECT count(*) FROM lft_tables) || ' ' ||
	(SELECT count(*) FROM lft_table_blocks) || ' ' || (SELECT count(*) FROM routing_sets) || ' ' ||
	(SELECT count(*) FROM routing_set_switches)"; }

"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 3 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1

# 1: the tables against ibroute and smpquery, switch by switch
scan
rc=$?
check "scan exits 0" eq "$rc" 0
s=$(last)
n_sw=$(q "SELECT count(*) FROM nodes WHERE scan_id = $s AND node_type = 'switch'")
check "a table per switch, all read" eq "$(q "SELECT count(*) FROM switch_tables WHERE scan_id = $s AND status = 'ok'")" "$n_sw"
bad=""
h1=$(q "SELECT p.lid FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $s AND n.description = 'host0001'")
via1="" # the switches whose ibroute sends host0001's LID out of port 1
while IFS='|' read -r lid guid name; do
	# ibroute lists the LIDs that have a port: "0x0001 001 : (...)"
	want=$(fabsim_run "$D/sim" -- ibroute "$lid" 2>/dev/null | while read -r l p colon _; do
		[[ $l == 0x* && $colon == : ]] && echo "$((l)) $((10#$p))"; done)
	grep -qx "$h1 1" <<<"$want" && via1+="${via1:+,}$name"
	got=$(q "SELECT lid || ' ' || port FROM forwarding WHERE scan_id = $s AND node_guid = '$guid'
		AND port <> 255 ORDER BY lid")
	[[ -n $want && $want == "$got" ]] || bad+=" $name"
	top=$(fabsim_run "$D/sim" -- smpquery switchinfo "$lid" 2>/dev/null | awk -F. '/^LinearFdbTop/ { print $NF }')
	[[ $((top)) == "$(q "SELECT fdb_top FROM switch_tables WHERE scan_id = $s AND node_guid = '$guid'")" ]] ||
		bad+=" $name(top)"
done < <(q "SELECT lid, node_guid, description FROM nodes WHERE scan_id = $s AND node_type = 'switch'")
check "every table equals ibroute's, every LinearFDBTop smpquery's (differ:${bad:- none})" eq "$bad" ""
check "the public questions: LID of host0001 leaves leaf001 by its port 1" eq "$(q "SELECT f.port FROM forwarding f
	JOIN nodes n ON n.scan_id = f.scan_id AND n.node_guid = f.node_guid JOIN ports h ON h.scan_id = f.scan_id
	JOIN nodes hn ON hn.scan_id = h.scan_id AND hn.node_guid = h.node_guid
	WHERE f.scan_id = $s AND n.description = 'leaf001' AND hn.description = 'host0001' AND f.lid = h.lid")" 1
check "which switches route host0001's LID through their port 1: as ibroute says ($via1)" eq "$(q "SELECT group_concat(description)
	FROM (SELECT n.description FROM forwarding f JOIN nodes n ON n.scan_id = f.scan_id AND n.node_guid = f.node_guid
	WHERE f.scan_id = $s AND f.port = 1 AND f.lid = $h1 ORDER BY n.node_guid)")" "$via1"

# 2: unchanged fabric: no table rows added
before=$(rows)
scan
check "second scan exits 0" eq "$?" 0
s2=$(last)
check "second scan of the unchanged fabric adds no table rows ($before)" eq "$(rows)" "$before"
check "both scans point at one routing" eq "$(q "SELECT count(DISTINCT set_id) || ' ' || count(*) FROM scan_routing
	WHERE scan_id IN ($s, $s2)")" "1 2"
check "the second scan's tables read back equal" eq "$(q "SELECT count(*) FROM forwarding WHERE scan_id = $s2")" \
	"$(q "SELECT count(*) FROM forwarding WHERE scan_id = $s")"

# 3: --no-routes and --forensic
scan --no-routes
check "--no-routes exits 0" eq "$?" 0
check "--no-routes stores no tables" eq "$(q "SELECT count(*) FROM scan_routing WHERE scan_id = $(last)")" 0
: >"$D/empty.conf"
"$FABSWEEP" check --db "$D/fab.db" --config "$D/empty.conf" >"$D/check" 2>&1
check "--no-routes: check skips the routing rules, saying why" eq "$(grep -E '^skipped .*routing\.' "$D/check" |
	grep -oE 'routing\.[a-z_]+|forwarding tables' | sort -u | paste -sd' ')" \
	"forwarding tables routing.credit_loop routing.imbalance routing.unreachable"
"$FABSWEEP" check --db "$D/fab.db" --config "$D/empty.conf" --scan "$s2" >"$D/check" 2>&1
check "  ... and runs them on the scan before, with tables (no routing line)" lacks "$D/check" "routing."
check "  ... (its summary)" has "$D/check" "scan $s2 ("
fabsim_run "$D/sim" -- "$FABSWEEP" scan --db "$D/fab.db" --quiet --forensic --no-routes 2>"$D/err"
check "--forensic --no-routes: usage error" eq "$?" 2
check "  ... naming --no-routes" has "$D/err" "--no-routes"

# 4: LinearForwardingTable blocks of leaf002 do not answer
fabsim_console "$D/sim" 'Error "leaf002" 100 0x19' > /dev/null || exit 1
start=$(date +%s%N)
scan --timeout 100 --retries 1
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
fabsim_console "$D/sim" 'Error "leaf002" 0' > /dev/null || exit 1
s=$(last)
check "dead blocks: exit 4 (partial)" eq "$rc" 4
check "dead blocks: bounded time (${took} ms)" test "$took" -lt "$HANG_MS"
check "dead blocks: leaf002 partial, the others ok" eq "$(q "SELECT group_concat(n.description || ':' || t.status, ' ')
	FROM switch_tables t JOIN nodes n USING (scan_id, node_guid) WHERE t.scan_id = $s AND t.status <> 'ok'")" "leaf002:partial"
check "dead blocks: one routing error naming leaf002 and its blocks" eq "$(q "SELECT count(*) FROM scan_errors
	WHERE scan_id = $s AND what = 'routing' AND message LIKE '%leaf002%LinearForwardingTable blocks 0%'")" 1
check "dead blocks: no entry of leaf002 claimed" eq "$(q "SELECT count(*) FROM forwarding f JOIN nodes n USING (scan_id, node_guid)
	WHERE f.scan_id = $s AND n.description = 'leaf002'")" 0

# 5: SwitchInfo of spine001 does not answer
fabsim_console "$D/sim" 'Error "spine001" 100 0x12' > /dev/null || exit 1
scan --timeout 100 --retries 1
rc=$?
fabsim_console "$D/sim" 'Error "spine001" 0' > /dev/null || exit 1
s=$(last)
check "dead SwitchInfo: exit 4 (partial)" eq "$rc" 4
check "dead SwitchInfo: spine001 failed" eq "$(q "SELECT group_concat(n.description || ':' || t.status, ' ')
	FROM switch_tables t JOIN nodes n USING (scan_id, node_guid) WHERE t.scan_id = $s AND t.status <> 'ok'")" "spine001:failed"
check "dead SwitchInfo: one routing error" eq "$(q "SELECT count(*) FROM scan_errors
	WHERE scan_id = $s AND what = 'routing' AND message LIKE '%spine001%SwitchInfo%'")" 1

echo "scan_routes: $pass passed, $fail failed"
((fail == 0))
