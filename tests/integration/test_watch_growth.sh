#!/usr/bin/env bash
# The database of a long watch stays small (issue 16): 150 counter sweeps
# every half second on a simulated fat tree while errors are injected
# (ibsim PerformanceSet) after every third sweep, with a short raw window
# (--keep-raw 12s) and a full scan every 25 s (a watch process can open
# ibsim's MAD port about ten times: two per full scan): old chains are rolled up into
# counter_hourly (the increases injected, nothing else) and deleted, so no
# scan older than the window (plus a chain and a look) stays; the database
# stays within its budget. From the measured bytes per sweep, per changed
# counter row and per port of a full scan it states the growth per day of the
# 4,096-host fat tree swept every 10 s and checks it is under 200 MB.
# Waits for sweeps, never for fixed times.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'kill "$(cat "$D/pid" 2> /dev/null)" 2> /dev/null; fabsim_stop "$D/sim" > /dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need sqlite3
q() { sqlite3 -readonly "$D/fab.db" "$@" 2> /dev/null; }
at_least() { [[ "$(q "$1")" -ge "$2" ]]; }
sweeps() { grep -c '^watch: sweep' "$D/out"; }
more_sweeps() { (($(sweeps) >= $1)); }

# 4 leaves x 4 hosts, 2 spines: leaf ports 1-4 hosts, 5-6 spines
"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" watch --db "$D/fab.db" --interval 500ms \
	--rescan 25s --keep-raw 12s --hold 5s > "$D/out" 2> "$D/err" &
WATCH=$!
check "the first sweep" wait_for 120 "a sweep" more_sweeps 1

# an error injected after every third sweep, on one of six ports; the
# injected total per port is what the roll-ups and the raw rows must add up to
declare -A total
ports=('"host0001"[1]' '"host0006"[1]' '"host0011"[1]' '"leaf001"[5]' '"leaf003"[2]' '"spine002"[4]')
n=0 target=150
while (($(sweeps) < target)); do
	check_sweep=$(($(sweeps) + 3))
	wait_for 60 "three more sweeps" more_sweeps "$check_sweep" || break
	p=${ports[$((n % 6))]}
	total[$p]=$((${total[$p]:-0} + n % 5 + 1))
	fabsim_console "$D/sim" "PerformanceSet $p PortCounters.SymbolErrorCounter=${total[$p]}" > /dev/null || exit 1
	n=$((n + 1))
done
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "watch: exit 0" eq "$?" 0
check "no error output" eq "$(cat "$D/err")" ""
# (a console command can take longer than a sweep on a loaded machine)
check "$n errors injected over $target sweeps" ge "$n" 20

# retention: chains rolled up and gone
check "watch rolled chains up" has "$D/out" "watch: rolled up the"
oldest=$(q "SELECT CAST((julianday(max(started_at)) - julianday(min(started_at))) * 86400 AS INTEGER) FROM scans")
# the raw window (12 s) + a chain (25 s) + a look (3 s: a quarter of the
# window) + sweeps' time
check "no scan older than the window and a chain ($oldest s)" le "$oldest" 50
# (the data counters move on every port with OpenSM's traffic: their
# increases between full scans are rolled up too)
errs="counter NOT LIKE '%Data' AND counter NOT LIKE '%Pkts' AND counter <> 'PortXmitWait'"
check "roll-ups: error counters of the injected ports only" eq "$(q "SELECT count(*) FROM (SELECT 1 FROM counter_hourly
	WHERE $errs GROUP BY node_guid, port_num)")" "$(q "SELECT count(DISTINCT node_guid || '/' || port_num) FROM counter_hourly
	WHERE counter = 'SymbolErrorCounter'")"
check "... of the six" le "$(q "SELECT count(*) FROM (SELECT 1 FROM counter_hourly WHERE $errs GROUP BY node_guid, port_num)")" 6
check "data counters rolled up too" ge "$(q "SELECT count(*) FROM counter_hourly WHERE counter = 'PortXmitData'")" 1
# every increase before the oldest chain kept is in a roll-up: the roll-ups
# add up to the counters that chain's full scan read
rolled=$(q "SELECT coalesce(sum(increase), 0) FROM counter_hourly WHERE counter = 'SymbolErrorCounter'")
first=$(q "SELECT min(scan_id) FROM scans")
kept_base=$(q "SELECT coalesce(sum(SymbolErrorCounter), 0) FROM port_counters WHERE scan_id = $first AND sample = 0")
check "roll-ups: every increase up to the oldest scan kept ($rolled, $kept_base)" eq "$rolled" "$kept_base"
check "... some" ge "$rolled" 1
# the budget, from measured bytes (dbstat: the bytes used in the pages of
# each table and index; a small database's pages are part empty, which a
# day's worth is not: whole pages overstate it by up to half here)
bytes() { sqlite3 -readonly "$D/fab.db" "SELECT coalesce(sum(pgsize - unused), 0) FROM dbstat WHERE name IN ($1)"; }
n_sweeps=$(q 'SELECT count(*) FROM scans WHERE topology_scan_id IS NOT NULL')
n_full=$(q 'SELECT count(*) FROM scans WHERE topology_scan_id IS NULL')
sweep_rows=$(q 'SELECT count(*) FROM port_counters c JOIN scans s USING (scan_id) WHERE s.topology_scan_id IS NOT NULL')
full_rows=$(q 'SELECT count(*) FROM port_counters c JOIN scans s USING (scan_id) WHERE s.topology_scan_id IS NULL')
per_sweep=$(($(bytes "'scans','sms','checks','scans_by_topology','sms_by_scan'") / (n_sweeps + n_full)))
per_row=$(($(bytes "'port_counters'") / (sweep_rows + full_rows)))
ports_full=$(q "SELECT count(*) FROM port_rows WHERE scan_id = $first")
per_port=$((($(bytes "'node_rows','port_rows','link_rows','nodes_by_guid','port_rows_by_guid','links_by_scan'") / n_full + full_rows / n_full * per_row) / ports_full))
check "measured: bytes per sweep ($per_sweep)" le "$per_sweep" 1024
check "measured: bytes per counter row ($per_row)" le "$per_row" 250
# 4,096-host fat tree (fabgen 128 x 32, 32 spines): 20,640 ports (switch
# ports 0 included), 16,384 of them with a link; every 10 s: 8,640 sweeps a
# day; a full scan an hour; changes: 1% of the linked ports raise an error
# counter every 10 minutes (23,593 rows a day) and 1% are congested, their
# PortXmitWait stored once a minute (235,930 rows a day)
day=$(awk -v s="$per_sweep" -v r="$per_row" -v p="$per_port" 'BEGIN {
	printf "%d", 8640 * s + (23593 + 235930) * r + 24 * 20640 * p }')
echo "  growth per day, 4,096 hosts at 10 s: $((day / 1048576)) MiB ($per_sweep B/sweep, $per_row B/counter row, $per_port B/port of a full scan)"
check "under 200 MB a day" le "$day" 200000000
# past the raw window the raw day stays that size (chains go as they are
# rolled up); what grows is counter_hourly: on a busy fabric PortXmitData,
# PortRcvData and PortXmitWait of every linked port every hour, and the
# error counters of the ports that moved (the same 1% as above)
per_rollup=$(($(bytes "'counter_rollups','counter_rollups_by_hour'") / $(q 'SELECT count(*) FROM counter_rollups')))
steady=$(awk -v r="$per_rollup" 'BEGIN { printf "%d", (16384 * 3 + 164 * 2) * 24 * r }')
echo "  then per day, rolled up: $((steady / 1048576)) MiB ($per_rollup B/roll-up row)"
check "roll-ups under 200 MB a day" le "$steady" 200000000
check "integrity" eq "$(q 'PRAGMA integrity_check')" ok
echo "$pass passed, $fail failed"
((fail == 0))
