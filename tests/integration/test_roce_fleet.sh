#!/usr/bin/env bash
# RoCE fleets (docs/roce.md, "A fleet"): real host files, collected by
# bench/roce_host.sh from a namespace host with 8 RDMA NICs behind a real
# lldpd (one of them with PFC on priority 4 on eth7), cloned by
# bench/roce_clone into 256 hosts with consistent identities: NIC k of host h
# on leaf (h/8)*8+k, port h%8+1 (the plan computed here again, as the oracle).
#   - the flat merge's links are exactly that cabling;
#   - merging 4 per-rack merges (each from a list file) gives the flat merge's
#     public relations, row for row;
#   - a host collected twice: the newer view wins (its PFC fault shows), an
#     older copy is ignored, the links stay;
#   - a user who cannot write the inputs' directory (nobody) merges it, and
#     nothing is written beside the inputs, also for a file SQLite reads;
#   - an input whose -wal holds its last transaction is read with it;
#   - 20,000 inputs through a list file (hard links to 64 host files);
#   - merge --into reads only the files that changed and gives what a full
#     merge of the same files gives;
#   - the HTML report's Links table says its cap and shows the faulty link of
#     the last host;
#   - every input error names the file, and nothing is created when no input
#     is usable.
# Needs root (namespaces, nobody). About 20-40 s, most of it cloning.
set -uo pipefail
: "${FABSWEEP:?set FABSWEEP}" "${SRCDIR:?set SRCDIR}" "${BUILDDIR:?set BUILDDIR}"
source "$SRCDIR/tests/integration/checks.sh"
[[ $EUID -eq 0 ]] || { echo "FAIL: test_roce_fleet needs root (network namespaces); CI runs it as root"; exit 1; }
need ip lldpd lldpcli sqlite3 python3 setpriv
CLONE=$BUILDDIR/bench/roce_clone
[[ -x $CLONE ]] || { echo "FAIL: $CLONE is not built (cmake --build, target roce_clone)"; exit 1; }

D=$(mktemp -d)
chmod 0755 "$D"
trap 'chmod -R u+w "$D" 2>/dev/null; rm -rf "$D"' EXIT
q() { sqlite3 -readonly "$1" "$2"; }
N=256 PER=8 NICS=8

# ---- the real host files, and the fleet
FABSWEEP=$FABSWEEP bash "$SRCDIR/bench/roce_host.sh" --out "$D/host.db" ||
	{ echo "FAIL: bench/roce_host.sh"; exit 1; }
FABSWEEP=$FABSWEEP bash "$SRCDIR/bench/roce_host.sh" --out "$D/fault.db" --pfc4 7 ||
	{ echo "FAIL: bench/roce_host.sh --pfc4 7"; exit 1; }
T0=$(($(date +%s) * 1000 - 3600000))
"$CLONE" --template "$D/host.db" --fault-template "$D/fault.db" --fault $((N - 1)) --out "$D/c" \
	--hosts $N --per-leaf $PER --time $T0 || { echo "FAIL: roce_clone"; exit 1; }
chmod 0755 "$D/c" && chmod 0644 "$D"/c/*.db # nobody reads them below, whatever the umask
check "$N host files" eq "$(ls "$D/c" | grep -c '^host[0-9]*\.db$')" $N

"$FABSWEEP" merge --db "$D/flat.db" "$D/c" >"$D/flat.out" 2>&1
check "flat merge: exit 0" eq $? 0
check "flat merge: every file read" has "$D/flat.out" "merged $N of $N files"
links="SELECT a_system||':'||a_ifname||' '||b_system||':'||b_ifname||' '||a_heard_b||b_heard_a
	FROM eth_links WHERE scan_id = (SELECT max(scan_id) FROM scans) ORDER BY 1"
plan() { # hosts FIRST..LAST: the links the clone plan cables
	local h k
	for ((h = $1; h <= $2; h++)); do
		for ((k = 0; k < NICS; k++)); do
			printf 'host%05d:eth%d leaf%04d:swp%d 10\n' $h $k $((h / PER * NICS + k)) $((h % PER + 1))
		done
	done | LC_ALL=C sort
}
check "flat merge: the links are the cabling of the clone plan" eq "$(q "$D/flat.db" "$links")" "$(plan 0 $((N - 1)))"
check "flat merge: $N hosts, $((N / PER * NICS)) leaves" eq \
	"$(q "$D/flat.db" "SELECT role||' '||count(*) FROM systems GROUP BY role ORDER BY 1" | tr '\n' ' ')" \
	"host $N leaf $((N / PER * NICS)) "
check "nothing written beside the inputs" eq "$(ls "$D/c" | grep -vc '^host[0-9]*\.db$')" 0

# Every public RoCE relation of the latest scan, scan_id left out (and where
# each system's record came from, which differs by design between merges);
# with "noidx", the positions (*_idx) too: the rows by content.
dump() {
	local db=$1 t
	for t in systems eth_ports lldp_neighbors eth_links lldp_tlvs rdma_devices rdma_ports rdma_counters \
		nic_counters modules module_lanes; do
		python3 - "$db" "$t" "${2:-}" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
t = sys.argv[2]
cols = [r[1] for r in db.execute(f"PRAGMA table_info({t})") if r[1] not in ("scan_id", "source")
        and not (sys.argv[3] == "noidx" and (r[1].endswith("_idx") or r[1] == "owner_idx"))]
last = db.execute("SELECT max(scan_id) FROM scans").fetchone()[0]
rows = db.execute(f"SELECT {', '.join(cols)} FROM {t} WHERE scan_id = ?", (last,)).fetchall()
for r in sorted(map(repr, rows)):
    print(t, r)
EOF
	done
}
# Positions (*_idx) of scan $2 in $1 that name more than one row (a delta
# shares them with its keyframe: none may be given twice)
twice() {
	q "$1" "SELECT (SELECT count(*) - count(DISTINCT system_idx) FROM systems WHERE scan_id = $2)
		+ (SELECT count(*) - count(DISTINCT port_idx) FROM eth_ports WHERE scan_id = $2)
		+ (SELECT count(*) - count(DISTINCT neighbor_idx) FROM lldp_neighbors WHERE scan_id = $2)
		+ (SELECT count(*) - count(DISTINCT device_idx) FROM rdma_devices WHERE scan_id = $2)
		+ (SELECT count(*) - count(DISTINCT module_idx) FROM modules WHERE scan_id = $2 AND fabric = 'eth')"
}
dump "$D/flat.db" >"$D/flat.dump"
check "the dump of the flat merge has every relation" ge "$(cut -d' ' -f1 "$D/flat.dump" | sort -u | wc -l)" 8

# ---- per rack, then the racks (each rack from a list file)
for r in 0 1 2 3; do
	for ((h = r * 64; h < r * 64 + 64; h++)); do printf '%s/c/host%05d.db\n' "$D" $h; done >"$D/rack$r.list"
	"$FABSWEEP" merge --quiet --db "$D/rack$r.db" --list "$D/rack$r.list"
	check "rack $r merged from its list" eq $? 0
done
"$FABSWEEP" merge --db "$D/racks.db" "$D"/rack?.db >"$D/racks.out" 2>&1
check "merge of the 4 rack merges: exit 0" eq $? 0
check "merge of merges: it read 4 files" has "$D/racks.out" "merged 4 of 4 files"
dump "$D/racks.db" >"$D/racks.dump"
check "merge of merges: every public relation as the flat merge's" \
	eq "$(diff "$D/flat.dump" "$D/racks.dump" | head -5)" ""
check "merge of merges: each system still says which host file it came from" eq \
	"$(q "$D/racks.db" "SELECT source FROM systems WHERE system = 'host00077'")" "file:host00077.db"

# ---- a host collected twice: the newer view wins
mkdir "$D/dup"
"$CLONE" --template "$D/host.db" --fault-template "$D/fault.db" --fault 5 --first 5 --hosts 1 \
	--per-leaf $PER --time $((T0 + 60000)) --prefix newer --out "$D/dup" &&
	"$CLONE" --template "$D/host.db" --fault-template "$D/fault.db" --fault 6 --first 6 --hosts 1 \
		--per-leaf $PER --time $((T0 - 60000)) --prefix older --out "$D/dup" ||
	{ echo "FAIL: roce_clone of the duplicates"; exit 1; }
"$FABSWEEP" merge --db "$D/dup.db" "$D/c" "$D/dup" >"$D/dup.out" 2>&1
check "merge with duplicates: exit 0" eq $? 0
check "merge with duplicates: a note says two systems were collected twice" has "$D/dup.out" \
	"2 systems were collected more than once; the newest view was kept"
check "a newer copy replaces the host (its PFC on priority 4 shows); an older one does not" eq \
	"$(q "$D/dup.db" "SELECT system||' '||pfc_enabled||' '||(SELECT source FROM systems y WHERE y.system = p.system)
		FROM eth_ports p WHERE ifname = 'eth7' AND system IN ('host00005', 'host00006') ORDER BY 1")" \
	"host00005 16 file:newer00005.db
host00006 8 file:host00006.db"
check "merge with duplicates: the same links" eq "$(q "$D/dup.db" "$links")" "$(plan 0 $((N - 1)))"

# ---- inputs nobody may write beside: as user nobody
nobody_prepare "$D"
mkdir "$D/out" && chmod 0777 "$D/out"
# SQLite reads this one (a -journal beside it), a WAL file as older versions
# of collect wrote: opened as usual, SQLite would need to create its -shm
cp "$D/c/host00000.db" "$D/c/journal.db" && sqlite3 "$D/c/journal.db" "PRAGMA journal_mode=WAL" >/dev/null &&
	: >"$D/c/journal.db-journal"
check "the file SQLite reads is a WAL file" eq "$(od -An -tu1 -j18 -N2 "$D/c/journal.db" | tr -s ' ')" " 2 2"
chmod 0644 "$D/c/journal.db" "$D/c/journal.db-journal" # (cp under umask 077 made it 0600)
before=$(ls -l --time-style=+%s.%N "$D/c" | md5sum)
as_nobody "$NOBODY_FABSWEEP" merge --db "$D/out/ro.db" "$D/c" >"$D/ro.out" 2>&1
rc=$?
check "nobody merges a directory they cannot write: exit 0" eq $rc 0
check "... reading every file" has "$D/ro.out" "merged $((N + 1)) of $((N + 1)) files"
check "... writing nothing beside them (no -wal, no -shm)" eq "$(ls -l --time-style=+%s.%N "$D/c" | md5sum)" "$before"
check "... and the same links" eq "$(q "$D/out/ro.db" "$links")" "$(plan 0 $((N - 1)))"
rm -f "$D/c/journal.db" "$D/c/journal.db-journal"

# ---- a -wal that holds the input's last transaction
mkdir "$D/wal" && cp "$D/c/host00003.db" "$D/wal/"
python3 - "$D/wal/host00003.db" <<'EOF'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")  # as older versions of collect wrote
db.execute("PRAGMA wal_autocheckpoint = 0")
db.execute("UPDATE systems SET description = 'changed after the last checkpoint' WHERE collected = 1")
os._exit(0)  # no close: the change stays in the -wal
EOF
check "the -wal holds a transaction" ge "$(stat -c %s "$D/wal/host00003.db-wal" 2>/dev/null || echo 0)" 1
"$FABSWEEP" merge --quiet --db "$D/wal.db" "$D/wal"
check "an input with a live -wal is read with its last transaction" eq \
	"$(q "$D/wal.db" "SELECT description FROM systems WHERE system = 'host00003'")" "changed after the last checkpoint"

# ---- 20,000 inputs through a list file
mkdir "$D/many"
python3 - "$D" >"$D/many.list" <<'EOF'
import os, sys
d = sys.argv[1]
for i in range(20000):
    f = f"{d}/many/in{i:05d}.db"
    os.link(f"{d}/c/host{i % 64:05d}.db", f)
    print(f)
EOF
"$FABSWEEP" merge --db "$D/many.db" --list "$D/many.list" >"$D/many.out" 2>&1
check "20,000 inputs from a list: exit 0" eq $? 0
check "... every one read" has "$D/many.out" "merged 20000 of 20000 files"
check "... 64 hosts, the others duplicates" has "$D/many.out" "19936 systems were collected more than once"
check "... the links of those 64 hosts" eq "$(q "$D/many.db" "$links")" "$(plan 0 63)"
check "... the inputs recorded" eq "$(q "$D/many.db" "SELECT count(*), min(status), max(status) FROM merge_inputs")" "20000|merged|merged"

# ---- merge --into: only what changed
mkdir "$D/inc" && cp -l "$D"/c/*.db "$D/inc/"
"$FABSWEEP" merge --quiet --into "$D/inc.db" "$D/inc"
for h in 10 11 12; do # collected again, later
	"$CLONE" --template "$D/host.db" --first $h --hosts 1 --per-leaf $PER --time $((T0 + 120000)) \
		--out "$D/inc" || { echo "FAIL: roce_clone"; exit 1; }
done
"$FABSWEEP" merge --into "$D/inc.db" "$D/inc" >"$D/inc.out" 2>&1
check "merge --into: exit 0" eq $? 0
check "merge --into: 3 files read, the others as scan 1 read them" has "$D/inc.out" \
	"merged 3 of $N files ($((N - 3)) unchanged since scan 1)"
check "merge --into: the inputs recorded as read or unchanged" eq \
	"$(q "$D/inc.db" "SELECT status||' '||count(*) FROM merge_inputs WHERE scan_id = 2 GROUP BY status ORDER BY status" | tr '\n' ' ')" \
	"merged 3 unchanged $((N - 3)) "
check "merge --into: the hosts collected again have their newer collection" eq \
	"$(q "$D/inc.db" "SELECT count(*) FROM systems WHERE scan_id = 2 AND collected_at > (SELECT min(collected_at) FROM systems WHERE scan_id = 1 AND collected = 1)")" 3
"$FABSWEEP" merge --quiet --db "$D/full.db" "$D/inc"
dump "$D/inc.db" noidx >"$D/inc.dump" # the hosts read again come last: positions differ
dump "$D/full.db" noidx >"$D/full.dump"
check "merge --into gives what a full merge of the same files gives" eq "$(diff "$D/full.dump" "$D/inc.dump" | head -5)" ""
check "... stored as a delta on scan 1: the rows of the 3 hosts read again, nothing else" eq \
	"$(q "$D/inc.db" "SELECT roce_base_scan_id, (SELECT count(*) FROM system_rows WHERE scan_id = 2),
		(SELECT group_concat(system_idx) FROM roce_hidden WHERE scan_id = 2),
		(SELECT count(*) FROM eth_port_rows WHERE scan_id = 2) FROM scans WHERE scan_id = 2")" \
	"1|3|10,11,12|$((3 * NICS))"
# nothing changed: nothing read, nothing written; the latest merge is still the fabric
mkdir "$D/rd"
"$FABSWEEP" merge --into "$D/inc.db" "$D/inc" --ready-dir "$D/rd" >"$D/same.out" 2>&1
check "merge --into, no file changed: exit 0, says so" eq "$?|$(grep -c \
	"scan 2: no file changed since that merge read them ($N files); nothing written" "$D/same.out")" "0|1"
check "... no scan written" eq "$(q "$D/inc.db" "SELECT max(scan_id) FROM scans")" 2
check "... the readiness extracts of scan 2 written all the same" eq \
	"$(grep -c "readiness extracts: $N in $D/rd" "$D/same.out")|$(ls "$D/rd" | grep -c '\.db$')" "1|$N"
rm "$D/inc/host00020.db"
"$FABSWEEP" merge --into "$D/inc.db" "$D/inc" >"$D/inc2.out" 2>&1
check "merge --into with a file gone: nothing read or written, its host kept" eq \
	"$(grep -c "scan 2: no file changed since that merge read them ($((N - 1)) files)" "$D/inc2.out")|$(q "$D/inc.db" \
		"SELECT max(scan_id), sum(system = 'host00020') FROM systems WHERE scan_id = 2")" "1|2|1"
"$FABSWEEP" merge --into "$D/inc.db" "$D/inc" --label "after maintenance" >"$D/inc3.out" 2>&1
check "merge --into, no file changed, a label: a scan of its own, the same fabric" eq \
	"$(grep -c "merged 0 of $((N - 1)) files ($((N - 1)) unchanged since scan 2)" "$D/inc3.out")|$(q "$D/inc.db" \
		"SELECT label, count(*) FROM systems JOIN scans USING (scan_id) WHERE scan_id = 3")" \
	"1|after maintenance|$(q "$D/inc.db" "SELECT count(*) FROM systems WHERE scan_id = 2")"
mkdir "$D/new" "$D/empty_in"
"$CLONE" --template "$D/host.db" --first $N --hosts 1 --per-leaf $PER --time $((T0 + 240000)) --out "$D/new" ||
	{ echo "FAIL: roce_clone"; exit 1; }
mv "$D/new/host$(printf %05d $N).db" "$D/inc/host00005x.db" # a new host, its file named among the others
"$FABSWEEP" merge --into "$D/inc.db" "$D/inc" >"$D/inc5.out" 2>&1
check "merge --into, a new file among the others: read, a new scan" eq \
	"$(grep -c "scan 4: merged 1 of $N files ($((N - 1)) unchanged since scan 3)" "$D/inc5.out")" 1
"$FABSWEEP" merge --into "$D/inc.db" "$D/inc" "$D/empty_in" >"$D/inc6.out" 2>&1
check "merge --into, no file changed but a directory without *.db: a partial scan that says so" eq \
	"$?|$(q "$D/inc.db" "SELECT count(*) FROM scan_errors WHERE scan_id = 5 AND message LIKE '%empty_in%'")" "4|1"
touch "$D/inc/host00007.db" # written again (the same bytes): a newer modification time
"$FABSWEEP" merge --into "$D/inc.db" "$D/inc" >"$D/inc4.out" 2>&1
check "merge --into, a file written again: read again, a new scan" eq \
	"$(grep -c "scan 6: merged 1 of $N files ($((N - 1)) unchanged since scan 5)" "$D/inc4.out")" 1
check "... complete: the directory of scan 5 not given again is not carried over" eq \
	"$(q "$D/inc.db" "SELECT status, (SELECT count(*) FROM scan_errors WHERE scan_id = 6) FROM scans WHERE scan_id = 6")" "complete|0"

# ---- deltas: every change a delta must carry, against a full merge of the same files
cp -l "$D/c/host00020.db" "$D/inc/" # back, as scan 1 read it: unchanged, so a full merge has it too
"$CLONE" --template "$D/host.db" --first 30 --hosts 1 --per-leaf $((PER * 2)) --time $((T0 + 300000)) \
	--out "$D/inc" || { echo "FAIL: roce_clone"; exit 1; } # host 30 cabled to other leaves
"$CLONE" --template "$D/fault.db" --first 40 --hosts 1 --per-leaf $PER --time $((T0 + 300000)) \
	--out "$D/inc" || { echo "FAIL: roce_clone"; exit 1; } # host 40 with the PFC fault now
"$FABSWEEP" merge --quiet --into "$D/inc.db" "$D/inc"
rm -f "$D/full.db" && "$FABSWEEP" merge --quiet --db "$D/full.db" "$D/inc"
dump "$D/inc.db" noidx >"$D/inc.dump"
dump "$D/full.db" noidx >"$D/full.dump"
check "a host cabled elsewhere, one changed, after 5 merges: the delta gives what a full merge gives" eq \
	"$(diff "$D/full.dump" "$D/inc.dump" | head -5)" ""
check "... a delta on scan 1 that writes host 30 and the stub leaves it left or joined" eq \
	"$(q "$D/inc.db" "SELECT s.roce_base_scan_id, sum(r.system = 'host00030'), sum(r.system LIKE 'leaf%') > 0
		FROM scans s JOIN system_rows r USING (scan_id) WHERE s.scan_id = 7")" "1|1|1"
serious() { # the warnings and errors check finds in the latest scan of $1: rule node port
	"$FABSWEEP" check --db "$1" --json 2>/dev/null | python3 -c 'import json, sys
for f in sorted({(f["rule"], f.get("node"), f.get("port")) for f in json.load(sys.stdin)["findings"]
                 if f["severity"] in ("warning", "error")}):
    print(*f)'
}
serious "$D/full.db" >"$D/full.found"
check "... check on the delta finds what it finds on the full merge, host 40's fault among it" eq \
	"$(serious "$D/inc.db" | diff - "$D/full.found")|$(grep -c '^roce.pfc_disabled host00040 eth7$' "$D/full.found")" "|1"
# the 8 hosts below leaves 48..55 cabled elsewhere: those stub leaves are gone
"$CLONE" --template "$D/host.db" --first 48 --hosts $PER --per-leaf $((PER * 2)) --time $((T0 + 320000)) \
	--out "$D/inc" || { echo "FAIL: roce_clone"; exit 1; }
"$FABSWEEP" merge --quiet --into "$D/inc.db" "$D/inc"
touch "$D/inc/host00060.db" # then another delta on the same keyframe
"$FABSWEEP" merge --quiet --into "$D/inc.db" "$D/inc"
rm -f "$D/full.db" && "$FABSWEEP" merge --quiet --db "$D/full.db" "$D/inc"
dump "$D/inc.db" noidx >"$D/inc.dump"
dump "$D/full.db" noidx >"$D/full.dump"
check "... each of the delta's positions (*_idx) names one row" eq "$(twice "$D/inc.db" 9)" 0
check "stub leaves no host hears any more: gone, and still gone in the next delta" eq \
	"$(diff "$D/full.dump" "$D/inc.dump" | head -5)|$(q "$D/inc.db" "SELECT count(*) FROM systems
		WHERE scan_id = 9 AND system IN ('leaf0048', 'leaf0055')")|$(q "$D/inc.db" \
		"SELECT roce_base_scan_id FROM scans WHERE scan_id = 9")" "|0|1"
"$FABSWEEP" merge --quiet --db "$D/of_delta.db" "$D/inc.db"
check "a merge whose input is a delta: what the delta shows" eq \
	"$(dump "$D/of_delta.db" noidx | diff - "$D/inc.dump" | head -3)" ""
"$FABSWEEP" db prune --db "$D/inc.db" --keep 1 >/dev/null 2>&1
check "prune --keep 1 keeps the delta's keyframe, and the delta whole" eq \
	"$(q "$D/inc.db" "SELECT group_concat(scan_id) FROM scans")|$(dump "$D/inc.db" noidx | diff - "$D/inc.dump" | head -3)" "1,9|"
cp "$D/inc.db" "$D/broken.db" && sqlite3 "$D/broken.db" "DELETE FROM scans WHERE scan_id = 1"
"$FABSWEEP" check --db "$D/broken.db" >/dev/null 2>"$D/broken.err"
check "a delta whose keyframe was deleted by hand: refused, saying so" eq "$?|$(grep -c \
	"scan 9 builds on scan 1, which is not there (deleted by hand?): it cannot be read" "$D/broken.err")" "3|1"
cp "$D/inc.db" "$D/huge.db" && sqlite3 "$D/huge.db" "UPDATE eth_port_rows SET port_idx = 100000000
	WHERE scan_id = 9 AND port_idx = (SELECT min(port_idx) FROM eth_port_rows WHERE scan_id = 9)"
"$FABSWEEP" check --db "$D/huge.db" >/dev/null 2>"$D/huge.err"
check "a delta that names a position beyond any fabric: refused as inconsistent" eq "$?|$(grep -c \
	"scan 9 has inconsistent Ethernet ports" "$D/huge.err")" "3|1"
"$CLONE" --template "$D/host.db" --first 0 --hosts $((N * 6 / 10)) --per-leaf $PER --time $((T0 + 360000)) \
	--out "$D/inc" || { echo "FAIL: roce_clone"; exit 1; }
"$FABSWEEP" merge --quiet --into "$D/inc.db" "$D/inc"
check "60% of the hosts read again: a whole merge (the next keyframe)" eq \
	"$(q "$D/inc.db" "SELECT roce_base_scan_id IS NULL, (SELECT count(*) FROM system_rows r WHERE r.scan_id = s.scan_id)
		= (SELECT count(*) FROM systems y WHERE y.scan_id = s.scan_id) FROM scans s WHERE scan_id = 10")" "1|1"
rm -f "$D/full.db" && "$FABSWEEP" merge --quiet --db "$D/full.db" "$D/inc"
check "... what a full merge of the same files gives (the 40% not read again, RDMA devices and all)" eq \
	"$(dump "$D/full.db" noidx | diff - <(dump "$D/inc.db" noidx) | head -5)" ""

# ---- deltas with the physical layer: NIC counters and a module per port (collect with ethtool)
FABSWEEP=$FABSWEEP bash "$SRCDIR/bench/roce_host.sh" --out "$D/eth-host.db" --ethtool ||
	{ echo "FAIL: bench/roce_host.sh --ethtool"; exit 1; }
mkdir "$D/eth"
"$CLONE" --template "$D/eth-host.db" --out "$D/eth" --hosts 64 --per-leaf $PER --time $T0 ||
	{ echo "FAIL: roce_clone"; exit 1; }
"$FABSWEEP" merge --quiet --into "$D/eth.db" "$D/eth"
"$CLONE" --template "$D/eth-host.db" --first 5 --hosts 2 --per-leaf $((PER * 2)) --time $((T0 + 60000)) \
	--out "$D/eth" || { echo "FAIL: roce_clone"; exit 1; } # two hosts collected again, cabled elsewhere
"$FABSWEEP" merge --quiet --into "$D/eth.db" "$D/eth"
"$FABSWEEP" merge --quiet --db "$D/eth-full.db" "$D/eth"
dump "$D/eth.db" noidx >"$D/eth.dump"
dump "$D/eth-full.db" noidx >"$D/eth-full.dump"
check "with NIC counters and modules: the delta gives what a full merge gives, theirs included" eq \
	"$(diff "$D/eth-full.dump" "$D/eth.dump" | head -5)|$(grep -c '^nic_counters ' "$D/eth.dump")|$(grep -c \
		'^module_lanes ' "$D/eth.dump")" "|$(grep -c '^nic_counters ' "$D/eth-full.dump")|$((64 * NICS * 4))"
check "... a delta: the two hosts' counters and modules written, not the others'" eq \
	"$(q "$D/eth.db" "SELECT (SELECT roce_base_scan_id FROM scans WHERE scan_id = 2),
		(SELECT count(DISTINCT system) FROM nic_counter_ports WHERE scan_id = 2),
		(SELECT count(*) FROM module_rows WHERE scan_id = 2)")" "1|2|$((2 * NICS))"
touch "$D/eth/host00010.db" # the next delta starts from this one as loaded
"$FABSWEEP" merge --quiet --into "$D/eth.db" "$D/eth"
check "... and the next delta, made from it as loaded, too" eq \
	"$(dump "$D/eth.db" noidx | diff "$D/eth-full.dump" - | head -5)|$(q "$D/eth.db" \
		"SELECT roce_base_scan_id FROM scans WHERE scan_id = 3")" "|1"
check "... each of its positions (*_idx) names one row, as in a whole scan" eq "$(twice "$D/eth.db" 3)" 0
"$CLONE" --template "$D/eth-host.db" --first 0 --hosts 40 --per-leaf $PER --time $((T0 + 120000)) \
	--out "$D/eth" || { echo "FAIL: roce_clone"; exit 1; } # most hosts again: a whole merge
"$FABSWEEP" merge --quiet --into "$D/eth.db" "$D/eth"
rm -f "$D/eth-full.db" && "$FABSWEEP" merge --quiet --db "$D/eth-full.db" "$D/eth"
check "... a whole merge --into (the modules and NIC counters it left stored read back): a full merge's" eq \
	"$(q "$D/eth.db" "SELECT roce_base_scan_id IS NULL FROM scans WHERE scan_id = 4")|$(dump "$D/eth.db" noidx |
		diff - <(dump "$D/eth-full.db" noidx) | head -5)" "1|"

# ---- the rules and the HTML report at scale
"$FABSWEEP" check --db "$D/flat.db" >"$D/check.out" 2>&1
check "check on the fleet: exit 1 (the fault)" eq $? 1
check "the findings at warning or above are the fault of the last host's eth7" eq \
	"$(q "$D/flat.db" "SELECT DISTINCT rule_id||' '||node||' '||port FROM findings WHERE severity IN ('warning', 'error')
		AND node LIKE 'host%' ORDER BY 1")" \
	"roce.pfc_disabled host00255 eth7
roce.pfc_mismatch host00255 eth7"
"$FABSWEEP" report --db "$D/flat.db" --html "$D/r.html" >/dev/null 2>&1
check "report: exit 0" eq $? 0
sed -n '/<h3>Links<\/h3>/,/<\/table>/p' "$D/r.html" >"$D/links.html"
check "the Links table says its cap" has "$D/links.html" \
	"<caption>2,000 of 2,048 links (those with findings first); all in the XML report and the database</caption>"
check "the Links table shows the faulty link of the last host" has "$D/links.html" \
	"<td>host00255/eth7</td><td>leaf0255/swp8</td>"
check "the Links table has 2,000 rows" eq "$(grep -c '^<tr><td>' "$D/links.html")" 2000
check "a stub's unknown MTU is shown as unknown" has "$D/links.html" "<td class=\"num\">9000 / ?</td>"

# ---- input errors: each names the file and what to do; nothing usable, nothing created
mkdir "$D/empty"
echo "not a database" >"$D/bad.db"
"$FABSWEEP" merge --db "$D/none.db" "$D/missing.db" "$D/empty" "$D/bad.db" >"$D/err.out" 2>"$D/err.err"
check "no usable input: exit 3" eq $? 3
check "no usable input: nothing created" eq "$(ls "$D" | grep -c '^none\.db')" 0
check "a missing input is named, with what to do" has "$D/err.err" \
	"'$D/missing.db' does not exist: check the path, or run 'fabsweep collect' on that host"
check "a directory without *.db is named" has "$D/err.err" "directory '$D/empty' holds no *.db file"
check "a file that is not a database is named" has "$D/err.err" "'$D/bad.db' is not a fabsweep database, or it is damaged"
check "the summary counts the inputs" has "$D/err.err" "none of the 3 inputs could be merged; nothing was written"
"$FABSWEEP" merge --db "$D/none.db" --list "$D/nolist" >/dev/null 2>"$D/list.err"
check "a list that cannot be read: a usage error naming it" eq "$?|$(grep -c "list '$D/nolist' cannot be read" "$D/list.err")" "2|1"
printf '%s\n' "$D"/c/host0000[0-3].db | "$FABSWEEP" merge --db "$D/stdin.db" - >"$D/stdin.out" 2>&1
check "inputs from standard input" has "$D/stdin.out" "merged 4 of 4 files"
"$FABSWEEP" merge --db "$D/flat.db" "$D/flat.db" >/dev/null 2>"$D/self.err"
check "the target given as an input: a usage error" eq "$?|$(grep -c "is the target database itself" "$D/self.err")" "2|1"

echo "roce_fleet: $pass passed, $fail failed"
((fail == 0))
