#!/usr/bin/env bash
# The link probe's cost bound (docs/watch.md "Link events": [watch]
# link_probe_share, --link-probe-share) on a simulated fat tree (ibsim + real
# OpenSM), without traps (--no-events), a sweep a second, every LID's NodeInfo
# on every sweep (--verify-every 1: each sweep sends as many MADs as the
# next), the probe asked for every second or two:
#   - the default cap (10% of a sweep's MADs) and one from the config file
#     as a percentage (15%) bite: from sweep 3 on (sweep 2's slice is owed
#     the time since the first sweep only) each sweep reads exactly
#     max(1, floor(share x M)) link states, M the fewest MADs of the sweeps
#     before without their link reads (for sweep 1: nor its reads of every
#     switch port, what a first sweep learns), all from watch's own sweep
#     lines (every sweep sends as many here); watch says
#     once, after the first sweep, the period the cap makes, computed here
#     from the switch-to-switch links in the database: links / cap seconds;
#   - a cap that does not bite (--link-probe-share 50% at a 2 s probe): the
#     reads are what the period owes, 2 a second from sweep 2 to the last by
#     the sweeps' own start times in the database, and nothing is said;
#   - said again only when that period moves by more than a fifth: full
#     scans of the same fabric say nothing, nor do the sweeps that read more
#     when a link goes down (the cap comes from the fewest MADs a sweep of
#     the topology sent), one with a link less (3 s, not 4) says it again;
#   - --quiet says nothing; bad values are refused with one line.
# Waits for watch to end (--count), never for fixed times.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'kill "$(cat "$D/pid" 2> /dev/null)" 2> /dev/null; fabsim_stop "$D/sim" > /dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need sqlite3 awk

# bad values: one line, exit 2, before anything is opened
BAD="fabsweep watch: --link-probe-share takes a fraction above 0 and at most 1, such as 0.1, or a percentage such as 10%, not"
for v in 0 1.5 150% 10x -0.1; do
	"$FABSWEEP" watch --db "$D/bad.db" --link-probe-share "$v" > "$D/bad.out" 2> "$D/bad.err"
	check "--link-probe-share $v refused: exit 2" eq "$?" 2
	check "... saying so" has "$D/bad.err" "$BAD '$v'"
done
printf '[watch]\nlink_probe_share = 0%%\n' > "$D/bad.conf"
"$FABSWEEP" watch --db "$D/bad.db" --config "$D/bad.conf" > "$D/bad.out" 2> "$D/bad.err"
check "[watch] link_probe_share = 0% refused" has "$D/bad.err" \
	"bad.conf:2: 'link_probe_share' in [watch] takes a fraction above 0 and at most 1 such as 0.1, or a percentage such as 10%, not '0%'"
check "... nothing stored" test ! -e "$D/bad.db"

# 2 leaves x 2 hosts, 2 spines: 4 switch-to-switch links
"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 2 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
SWEEPS=7
# watch NAME ARGS...: a watch of SWEEPS sweeps into $D/NAME.db, its lines in $D/NAME
watch() {
	local name=$1
	shift
	fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" watch --db "$D/$name.db" --no-events \
		--interval 1s --timeout 1000 --verify-every 1 --count "$SWEEPS" "$@" > "$D/$name" 2> "$D/$name.err"
}
q() { sqlite3 -readonly "$D/$1.db" "$2"; }
# isl NAME: the switch-to-switch links of the full scan
isl() {
	q "$1" "SELECT count(*) FROM links k JOIN nodes a ON a.scan_id = k.scan_id AND a.node_guid = k.a_guid
		JOIN nodes b ON b.scan_id = k.scan_id AND b.node_guid = k.b_guid WHERE k.scan_id = 1
		AND a.node_type = 'switch' AND b.node_type = 'switch'"
}
# host_ports NAME: the channel adapters' active ports (a sweep's own per-port reads)
host_ports() {
	q "$1" "SELECT count(*) FROM ports p JOIN nodes n ON n.scan_id = p.scan_id AND n.node_guid = p.node_guid
		WHERE p.scan_id = 1 AND n.node_type != 'switch' AND p.state = 'active'"
}
# sweeps NAME: per sweep line "N MADS PORTS LINKS"
sweeps() {
	sed -n 's/^watch: sweep \([0-9]*\), scan [0-9]*: [0-9]* ports\{0,1\} changed; \([0-9]*\) MADs ([0-9]* sums, \([0-9]*\) ports,.*/\1 \2 \3 &/p' "$D/$1" |
		awk '{ l = 0; if (match($0, /, [0-9]+ link states/)) { l = substr($0, RSTART + 2, RLENGTH - 2); sub(/ .*/, "", l) }
		       print $1, $2, $3, l }'
}
# capped NAME SHARE HOSTPORTS: from sweep 3 on, each sweep's link states
# are max(1, floor(SHARE x M)), M the fewest MADs of the sweeps before
# without their link states; prints the first sweep's M (its reads of every
# switch port taken out)
capped() {
	sweeps "$1" | awk -v f="$2" -v h="$3" '
		{ n = $1; m = $2 - $4; if (n == 1) { m -= $3 - h; first = m }
		  if (n >= 3) { cap = int(f * low + 1e-9); if (cap < 1) cap = 1
			if ($4 != cap) { printf "  sweep %d: %d link states, want the cap %d (%g of %d)\n", n, $4, cap, f, low; bad = 1 }
			seen++ }
		  if (n == 1 || m < low) low = m }
		END { if (seen < 3) { print "  only " seen " sweeps after the second"; bad = 1 }
		      if (!bad) print first; exit bad }'
}
# period LINKS CAP: LINKS / CAP seconds (a sweep a second) as watch writes it
period() { awk -v l="$1" -v c="$2" 'BEGIN { s = l / c; if (s < 9.95 && s != int(s)) printf "%.1f s", s; else printf "%.0f s", s }'; }
# the note NAME SHARE% M LINKS PROBE: what watch says once the cap bites
note_of() {
	local cap
	cap=$(awk -v f="$2" -v m="$3" 'BEGIN { c = int(f / 100 * m + 1e-9); print (c < 1 ? 1 : c) }')
	echo "watch: link probe: each of the $4 switch-to-switch links read within about $(period "$4" "$cap"), not $5: at most $2% of a sweep's $3 MADs ([watch] link_probe_share)"
}
said_after_sweep_1() { # NAME TEXT: the note, once, between sweep 1 and sweep 2
	local n
	n=$(grep -c '^watch: link probe:' "$D/$1")
	[[ $n == 1 ]] || { echo "  said $n times"; grep '^watch: link probe:' "$D/$1" | sed 's/^/    /'; return 1; }
	sed -n '/^watch: sweep 1,/,/^watch: sweep 2,/p' "$D/$1" | grep -qxF -- "$2" && return 0
	echo "  not after sweep 1: $2"
	sed 's/^/    /' "$D/$1" | head -12
	return 1
}

# 1. the default cap, a 1 s probe (4 reads owed a sweep)
watch dflt --link-probe 1s
check "default share: exit 0" eq "$?" 0
ISL=$(isl dflt) H=$(host_ports dflt)
check "4 switch-to-switch links, 4 host ports" eq "$ISL $H" "4 4"
M=$(capped dflt 0.10 "$H")
check "default share: each sweep reads the cap, 10% of the sweep before's MADs" test -n "$M"
check "... and says the period it makes ($(period "$ISL" 1) for M=$M)" said_after_sweep_1 dflt "$(note_of dflt 10 "$M" "$ISL" "1 s")"
check "... the sweep's MADs are its sums, host ports, NodeInfo and SMInfo" eq "$M" \
	"$(($(q dflt "SELECT count(*) FROM nodes WHERE scan_id = 1 AND node_type = 'switch'") + H + \
	$(q dflt "SELECT count(*) FROM nodes WHERE scan_id = 1") + 1))"

# 2. [watch] link_probe_share as a percentage: 15% of 17 is 2 a sweep
printf '[watch]\nlink_probe_share = 15%%\n' > "$D/share.conf"
watch conf --link-probe 1s --config "$D/share.conf"
check "15% from the config: exit 0" eq "$?" 0
M=$(capped conf 0.15 "$H")
check "15% from the config: each sweep reads the cap" test -n "$M"
check "... above one a sweep (floor of 15% of $M)" ge "$(awk -v m="$M" 'BEGIN { print int(0.15 * m) }')" 2
check "... and says the period it makes" said_after_sweep_1 conf "$(note_of conf 15 "$M" "$ISL" "1 s")"
# the option overrides the config
watch opt --link-probe 1s --config "$D/share.conf" --link-probe-share 0.1
check "--link-probe-share over the config" test -n "$(capped opt 0.10 "$H")"

# 3. a cap that does not bite: the reads the period owes (2 a second here)
watch nocap --link-probe 2s --link-probe-share 50%
check "50%: exit 0" eq "$?" 0
check "... nothing said" lacks "$D/nocap" "link probe:"
READS=$(sweeps nocap | awk '$1 >= 3 { n += $4 } END { print n + 0 }')
# the time from sweep 2's start to the last's (the slices' times but for
# the moment each sweep reads its clock), 4 links every 2 s
OWED=$(q nocap "SELECT (julianday(max(started_at)) - julianday(min(started_at))) * 86400 * 4 / 2 FROM scans
	WHERE topology_scan_id IS NOT NULL AND scan_id > (SELECT min(scan_id) FROM scans WHERE topology_scan_id IS NOT NULL)")
check "... $READS link reads from sweep 3 on, what the period owes ($OWED)" \
	awk -v r="$READS" -v o="$OWED" 'BEGIN { exit !(r >= o - 1.5 && r <= o + 1.5) }'
check "... more than a capped probe would read (10%: $((SWEEPS - 2)))" ge "$READS" $((2 * (SWEEPS - 2) - 1))

# 4. said again when the period moves by more than a fifth, not otherwise:
# a full scan every 3 s (--rescan) of the same fabric says nothing new;
# a switch-to-switch link unlinked, the next full scan has 3 of them and
# the period 3 s, not 4 (a quarter less): said again, with the new count
fulls() { q topo "SELECT count(*) FROM scans WHERE topology_scan_id IS NULL"; }
isl_last() {
	q topo "SELECT count(*) FROM links k JOIN nodes a ON a.scan_id = k.scan_id AND a.node_guid = k.a_guid
		JOIN nodes b ON b.scan_id = k.scan_id AND b.node_guid = k.b_guid
		WHERE k.scan_id = (SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL)
		AND a.node_type = 'switch' AND b.node_type = 'switch'"
}
swept_isl() { # N: the last full scan has N switch-to-switch links and a sweep after it
	[[ $(isl_last) == "$1" ]] && [[ $(q topo "SELECT count(*) FROM scans WHERE topology_scan_id =
		(SELECT max(scan_id) FROM scans WHERE topology_scan_id IS NULL)") -ge 2 ]]
}
at_least_fulls() { [[ $(fulls) -ge $1 ]]; }
fabsim_run "$D/sim" --pidfile "$D/pid" -- "$FABSWEEP" watch --db "$D/topo.db" --no-events --interval 1s \
	--timeout 1000 --verify-every 1 --rescan 3s --link-probe 1s > "$D/topo" 2> "$D/topo.err" &
WATCH=$!
check "a watch with a full scan every 3 s: three of them" wait_for 60 "three full scans" at_least_fulls 3
NOTES1=$(grep -c '^watch: link probe:' "$D/topo")
check "... said once over them (the same fabric, the same period)" eq "$NOTES1" 1
fabsim_console "$D/sim" 'Unlink "spine002"[1]' > /dev/null || exit 1
check "... a link unlinked: a full scan with 3 switch-to-switch links, swept" wait_for 60 "a full scan of 3 links" swept_isl 3
F=$(fulls)
check "... and the one after it" wait_for 60 "another full scan" at_least_fulls $((F + 1))
kill -TERM "$(cat "$D/pid")"
wait "$WATCH"
check "... exit 0" eq "$?" 0
M=$(sed -n "s/^watch: link probe: each of the 3 switch-to-switch links .* a sweep's \([0-9]*\) MADs .*/\1/p" "$D/topo" | head -1)
said_again() {
	eq "$(grep '^watch: link probe:' "$D/topo" | tail -n +2)" "$(note_of topo 10 "${M:-?}" 3 "1 s")" && return 0
	grep -v '^watch:   ' "$D/topo" | sed 's/^/    /' | tail -40
	return 1
}
check "... said again, once, for 3 links (3 s, not 4)" said_again
fabsim_console "$D/sim" 'Link "spine002"[1] "leaf001"[4]' > /dev/null || exit 1

# 5. --quiet says nothing
SWEEPS=3 watch quiet --link-probe 1s --quiet
check "--quiet: exit 0" eq "$?" 0
check "... no note" lacks "$D/quiet" "link probe"

echo "$pass passed, $fail failed"
((fail == 0))
