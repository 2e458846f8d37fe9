#!/usr/bin/env bash
# The snapshot store under hostile conditions (docs/reliability.md, "Store"):
#  - disk full (a 2 MiB tmpfs): the scan that does not fit fails with one
#    line and exit 3, earlier snapshots are intact, integrity_check passes,
#    and the database takes scans again once there is room;
#  - a read-only database file and a read-only directory, as an unprivileged
#    user (root ignores file modes): writers fail with one line and exit 3,
#    the file is unchanged;
#  - concurrent writers (fabsweep scan and fabsynth at once) all commit; a
#    reader holding a read transaction neither blocks a scan nor sees half of
#    it; a writer holding the write lock makes a scan wait, not fail;
#  - corrupt, truncated, foreign, non-SQLite and newer-schema files: every
#    command (scans, check, report, export, diff, db info, scan --load-cache)
#    exits 3 with one line and leaves the file as it was (with damage inside
#    table pages, a command that does not read them may succeed).
# Writers use `scan --load-cache` on an ibnetdiscover cache taken once from a
# simulated fabric, so no simulator runs during the checks.
set -uo pipefail
: "${FABSWEEP:?} ${FABSYNTH:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
source "$SRCDIR/tests/integration/checks.sh" # check eq as_nobody wait_for (has, lacks: regexes, below)
D=$(mktemp -d)
RD_PID=
cleanup() {
	[[ -n $RD_PID ]] && kill "$RD_PID" 2>/dev/null
	for m in "$D/full" "$D/robind"; do mountpoint -q "$m" && umount "$m"; done
	fabsim_stop "$D/sim" >/dev/null 2>&1
	rm -rf "$D"
}
trap cleanup EXIT
one_line() { # file: exactly one non-empty line
	[[ $(wc -l < "$1") == 1 && -s $1 ]] || { echo "  not one line: $(cat "$1")"; return 1; }
}
has() { grep -qiE -- "$2" "$1" || { echo "  '$(cat "$1")' does not match /$2/"; return 1; }; }
lacks() { ! grep -qiE -- "$2" "$1" || { echo "  '$(cat "$1")' matches /$2/"; return 1; }; }
dump() { # everything scans 1..$2 of database $1 hold
	for t in scans nodes port_rows links port_counters sms scan_errors findings; do
		sqlite3 -readonly "$1" "SELECT * FROM $t WHERE scan_id <= $2 ORDER BY 1, 2, 3"
	done | md5sum
}
scan_cache() { "$FABSWEEP" scan --load-cache "$D/fab.cache" --quiet "$@"; }

# ---- a cache file of a small fabric, then no simulator
"$FABGEN" --leaves 4 --spines 2 --hosts-per-leaf 4 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || { echo "FAIL: simulator did not start"; exit 1; }
fabsim_run "$D/sim" -- ibnetdiscover --cache "$D/fab.cache" > /dev/null 2>&1 ||
	{ echo "FAIL: ibnetdiscover --cache"; exit 1; }
fabsim_stop "$D/sim" > /dev/null
scan_cache --db "$D/ref.db" || { echo "FAIL: scan --load-cache"; exit 1; }

# ---- 1. disk full
mkdir "$D/full"
mount -t tmpfs -o size=2m tmpfs "$D/full" || { echo "FAIL: cannot mount a tmpfs (not root?)"; exit 1; }
head -c 256k /dev/zero > "$D/full/ballast" # freed later to show recovery
db=$D/full/fab.db
ok_scans=0 rc=0
for ((i = 1; i <= 200; i++)); do
	scan_cache --db "$db" --label "fill-$i" 2> "$D/err"
	rc=$?
	((rc == 0)) || break
	ok_scans=$i
	((i == 3)) && base=$(dump "$db" 3)
done
echo "disk full after $ok_scans scans of a 22-node fabric in 2 MiB"
check "disk full: the scan that does not fit exits 3" eq "$rc" 3
check "disk full: one line" one_line "$D/err"
check "disk full: says the disk is full and names the database" has "$D/err" "full.*'$db'|'$db'.*full"
check "disk full: the message says what to do" has "$D/err" "free space.*another --db"
check "disk full: earlier snapshots intact" eq "$(dump "$db" 3)" "${base:-none}"
check "disk full: integrity_check ok" eq "$(sqlite3 -readonly "$db" 'PRAGMA integrity_check')" ok
check "disk full: no trace of the failed scan" eq \
	"$(sqlite3 -readonly "$db" "SELECT count(*) FROM scans WHERE label = 'fill-$((ok_scans + 1))'")" 0
check "disk full: every committed scan is there" eq "$(sqlite3 -readonly "$db" 'SELECT count(*) FROM scans')" "$ok_scans"
"$FABSWEEP" scans --db "$db" > /dev/null 2> "$D/err"
check "disk full: scans still lists them" eq "$?" 0
"$FABSWEEP" report --db "$db" --xml "$D/full-report.xml" > /dev/null 2> "$D/err"
check "disk full: report (to another disk) still works" eq "$?" 0
"$FABSYNTH" --db "$db" --leaves 8 --spines 2 --hosts-per-leaf 8 > /dev/null 2> "$D/err"
check "disk full: another writer (fabsynth) fails too, exit 3" eq "$?" 3
"$FABSWEEP" check --db "$db" --quiet 2> "$D/err"
rc=$?
check "disk full: check exits 0, 1 (findings fit in free pages) or 3 with one line" \
	bash -c "(( $rc <= 1 )) || { (( $rc == 3 )) && [[ \$(wc -l < '$D/err') == 1 ]]; }"
check "disk full: integrity_check ok after the other writers" eq \
	"$(sqlite3 -readonly "$db" 'PRAGMA integrity_check')" ok
rm -f "$D/full/ballast"
scan_cache --db "$db" --label after-full
check "disk full: scans commit again once there is room" eq "$?" 0
umount "$D/full"

# ---- 2. read-only file and read-only directory, as user nobody
nobody_prepare "$D" || { echo "FAIL: cannot prepare a copy of fabsweep for nobody"; exit 1; }
chmod 0644 "$D/fab.cache"
mkdir "$D/ro" "$D/rodir"
chmod 0755 "$D/rodir" # root's, not writable by nobody, but enterable
cp "$D/ref.db" "$D/ro/fab.db"
cp "$D/ref.db" "$D/rodir/fab.db"
chown -R nobody:nogroup "$D/ro" "$D/rodir/fab.db"
chmod 0444 "$D/ro/fab.db"
for where in ro rodir; do
	db=$D/$where/fab.db
	sum=$(md5sum < "$db")
	label="read-only $([[ $where == ro ]] && echo file || echo directory)"
	as_nobody "$NOBODY_FABSWEEP" scan --db "$db" --load-cache "$D/fab.cache" --quiet 2> "$D/err"
	check "$label: scan exits 3" eq "$?" 3
	check "$label: scan says so in one line" one_line "$D/err"
	check "$label: ... naming the database" has "$D/err" "'$db'"
	as_nobody "$NOBODY_FABSWEEP" check --db "$db" --quiet 2> "$D/err"
	check "$label: check exits 3" eq "$?" 3
	check "$label: check says so in one line" one_line "$D/err"
	check "$label: the file is unchanged" eq "$(md5sum < "$db")" "$sum"
done
# readers on a read-only file work (the directory takes the -shm file)
as_nobody "$NOBODY_FABSWEEP" scans --db "$D/ro/fab.db" > /dev/null 2> "$D/err"
check "read-only file: scans works" eq "$?" 0
as_nobody "$NOBODY_FABSWEEP" report --db "$D/ro/fab.db" --xml "$D/ro/report.xml" > /dev/null 2> "$D/err"
check "read-only file: report works" eq "$?" 0
# the database is opened before the (slow) scan: a bad cache file is not
# even read when the database cannot take the scan
echo "not a cache" > "$D/bad.cache"
chmod 0644 "$D/bad.cache"
as_nobody "$NOBODY_FABSWEEP" scan --db "$D/ro/fab.db" --load-cache "$D/bad.cache" --quiet 2> "$D/err"
check "read-only file: scan refuses the database before it scans" has "$D/err" "'$D/ro/fab.db' is read-only here"
# readers in a read-only directory: WAL needs fab.db-shm next to the file
as_nobody "$NOBODY_FABSWEEP" scans --db "$D/rodir/fab.db" > /dev/null 2> "$D/err"
rc=$?
check "read-only directory: scans exits 0 or 3 with one line" \
	bash -c "(( $rc == 0 )) || { (( $rc == 3 )) && [[ \$(wc -l < '$D/err') == 1 ]]; }"
check "read-only directory: a reader gets the snapshots or is told why not" \
	bash -c "(( $rc == 0 )) || grep -qE 'needs .*-shm.*directory is not writable' '$D/err'"
# the same for root on a read-only mount
mkdir "$D/robind"
mount --bind "$D/rodir" "$D/robind" && mount -o remount,bind,ro "$D/robind"
sum=$(md5sum < "$D/robind/fab.db")
"$FABSWEEP" scans --db "$D/robind/fab.db" > /dev/null 2> "$D/err"
check "read-only mount: a reader is told why it cannot read" has "$D/err" "needs .*-shm.*not writable"
scan_cache --db "$D/robind/fab.db" 2> "$D/err"
check "read-only mount: scan exits 3" eq "$?" 3
check "read-only mount: ... with one line" one_line "$D/err"
check "read-only mount: file unchanged" eq "$(md5sum < "$D/robind/fab.db")" "$sum"
umount "$D/robind"

# ---- 3. concurrency
db=$D/conc.db
"$FABSYNTH" --db "$db" --leaves 2 --spines 1 --hosts-per-leaf 2 > /dev/null || exit 1
pids=()
for w in 1 2 3; do
	(for k in 1 2 3; do scan_cache --db "$db" --label "w$w-$k" || echo "writer w$w-$k exit $?"; done) \
		> "$D/w$w.out" 2>&1 &
	pids+=($!)
done
for w in 1 2; do
	"$FABSYNTH" --db "$db" --leaves 40 --spines 8 --hosts-per-leaf 20 --scans 2 --label "big$w" \
		> /dev/null 2> "$D/s$w.out" &
	pids+=($!)
done
(for k in 1 2 3; do "$FABSWEEP" check --db "$db" --quiet; ((($? & ~1) == 0)) || echo "check exit $?"; done) \
	> "$D/c.out" 2>&1 &
pids+=($!)
wait "${pids[@]}"
check "concurrent writers: nobody failed" eq "$(cat "$D"/w?.out "$D"/s?.out "$D/c.out")" ""
check "concurrent writers: all 9 scans and 4 synthetic snapshots committed" eq \
	"$(sqlite3 -readonly "$db" "SELECT count(*) FROM scans WHERE label LIKE 'w%' OR label LIKE 'big%'")" 13
check "concurrent writers: every scan is whole" eq "$(sqlite3 -readonly "$db" "SELECT count(*) FROM scans s
	WHERE label LIKE 'w%' AND (SELECT count(*) FROM nodes n WHERE n.scan_id = s.scan_id) <> 22")" 0
check "concurrent writers: integrity_check ok" eq "$(sqlite3 -readonly "$db" 'PRAGMA integrity_check')" ok

# a reader in a long read transaction while a scan commits
coproc RD { stdbuf -oL sqlite3 "$db" 2>&1; }
RD_PID=$RD_PID
echo "BEGIN; SELECT count(*) FROM scans;" >&"${RD[1]}"
read -t 10 -r before <&"${RD[0]}"
timeout 60 "$FABSWEEP" scan --db "$db" --load-cache "$D/fab.cache" --quiet --label while-reading
check "long reader: the scan commits while the reader holds its transaction" eq "$?" 0
echo "SELECT count(*) FROM scans;" >&"${RD[1]}"
read -t 10 -r during <&"${RD[0]}"
check "long reader: the reader still sees its snapshot (no half scan)" eq "$during" "$before"
echo "COMMIT; SELECT count(*) FROM scans;" >&"${RD[1]}"
read -t 10 -r after <&"${RD[0]}"
check "long reader: after its transaction it sees the new scan" eq "$after" "$((before + 1))"
echo "BEGIN IMMEDIATE; SELECT 'locked';" >&"${RD[1]}"
read -t 10 -r locked <&"${RD[0]}"
check "write lock taken" eq "$locked" locked
"$FABSWEEP" scan --load-cache "$D/fab.cache" --quiet --db "$db" --label after-lock 2> "$D/err" &
scanner=$! # fabsweep itself, not a subshell
# SQLite's busy handler sleeps between tries: the scan is waiting for the
# lock once it sleeps (nothing else in a scan from a cache file sleeps)
in_busy_wait() { [[ $(cat "/proc/$scanner/wchan" 2> /dev/null) == *nanosleep* ]]; }
check "a writer holding the lock makes the scan wait (busy timeout), not fail" \
	wait_for 30 "the scan waiting in SQLite's busy handler" in_busy_wait
check "... and it has not committed" eq "$(sqlite3 -readonly "$db" "SELECT count(*) FROM scans WHERE label = 'after-lock'")" 0
echo "ROLLBACK;" >&"${RD[1]}"
wait "$scanner"
check "... and the scan commits once the lock is released" eq "$?" 0
exec {RD[1]}>&-
wait "$RD_PID" 2>/dev/null
RD_PID=

# ---- 4. corrupt, truncated, foreign, non-SQLite and newer files
mk() { cp "$D/ref.db" "$D/bad/$1.db"; }
smash() { # file table: the table's root page overwritten with 0xff bytes
	local page size
	page=$(sqlite3 -readonly "$1" "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = '$2'")
	size=$(sqlite3 -readonly "$1" 'PRAGMA page_size')
	head -c "$size" /dev/zero | tr '\0' '\377' | dd of="$1" bs="$size" seek=$((page - 1)) conv=notrunc status=none
}
mkdir "$D/bad" "$D/good"
head -c 65536 /dev/urandom > "$D/bad/random.db"
printf 'host01 "not a database"\n' > "$D/bad/text.db"
sqlite3 "$D/bad/foreign.db" "CREATE TABLE scans(x); INSERT INTO scans VALUES(1)"
mk newer && sqlite3 "$D/bad/newer.db" "PRAGMA user_version = 99"
mk truncated && truncate -s 40000 "$D/bad/truncated.db"
mk header && printf 'SQLite format 2\0' | dd of="$D/bad/header.db" conv=notrunc status=none
# damage inside table pages: every command reads the scans table; only
# some read the counters (those that do not must answer as on a sound file)
mk pages && smash "$D/bad/pages.db" scans
mk counters && smash "$D/bad/counters.db" port_counters
check "the damaged pages are damage SQLite sees" eq "$(sqlite3 -readonly "$D/bad/pages.db" 'PRAGMA integrity_check' 2>&1 |
	grep -c '^ok$')/$(sqlite3 -readonly "$D/bad/counters.db" 'PRAGMA integrity_check' 2>&1 | grep -c '^ok$')" 0/0
for f in "$D"/bad/*.db; do
	name=$(basename "$f" .db)
	sum=$(md5sum < "$f")
	failed=0
	for cmd in "scans" "check" "report --xml $D/bad.xml" "export prometheus --out -" "diff 1 1" \
		"db info" "scan --load-cache $D/fab.cache"; do
		# a scan from a cache file writes no counters: it does not touch that table
		[[ $name == counters && $cmd == scan* ]] && continue
		"$FABSWEEP" $cmd --db "$f" > "$D/out" 2> "$D/err"
		rc=$?
		if [[ $name == counters ]] && ((rc == 0)); then
			cp "$D/ref.db" "$D/good/fab.db"
			"$FABSWEEP" $cmd --db "$D/good/fab.db" > "$D/good.out" 2> /dev/null
			check "$name: '$cmd' succeeds only as it does on the sound file" eq \
				"$(sed "s|$D/good/fab.db|DB|g" "$D/good.out")" "$(sed "s|$f|DB|g" "$D/out")"
			continue
		fi
		failed=$((failed + 1))
		check "$name: '$cmd' exits 3 (got $rc)" eq "$rc" 3
		check "$name: '$cmd' says why in one line" one_line "$D/err"
	done
	check "$name: some command sees the damage" test "$failed" -gt 0
	check "$name: the file is unchanged" eq "$(md5sum < "$f")" "$sum"
done
"$FABSWEEP" scans --db "$D/bad/foreign.db" 2> "$D/err"
check "foreign: 'not a fabsweep database'" has "$D/err" "not a fabsweep database"
"$FABSWEEP" scans --db "$D/bad/newer.db" 2> "$D/err"
check "newer: says upgrade fabsweep" has "$D/err" "newer.*upgrade"
"$FABSWEEP" scans --db "$D/bad/random.db" 2> "$D/err"
check "not SQLite: the message says what to do" has "$D/err" "is --db the right file"
"$FABSWEEP" scans --db "$D/bad/truncated.db" 2> "$D/err"
check "damaged: the message says what to do" has "$D/err" "malformed.*restore it from a backup"

# ---- 5. a file of the schema before (the last step undone): read-only
# commands refuse it and say what to run; that command brings it up to date
mkdir "$D/old" && cp "$D/ref.db" "$D/old/fab.db"
sqlite3 "$D/old/fab.db" "DROP INDEX rdma_devices_by_system; DROP INDEX modules_by_eth_port; PRAGMA user_version = $(($(sqlite3 -readonly \
	"$D/ref.db" 'PRAGMA user_version') - 1))"
sum=$(md5sum < "$D/old/fab.db")
"$FABSWEEP" scans --db "$D/old/fab.db" > "$D/out" 2> "$D/err"
check "older schema: 'scans' exits 3, says to run 'fabsweep db migrate', the file unchanged" eq \
	"$?|$(grep -c "old schema version.*run 'fabsweep db migrate'" "$D/err")|$(md5sum < "$D/old/fab.db")" "3|1|$sum"
"$FABSWEEP" db migrate --db "$D/old/fab.db" > "$D/out" 2>&1
check "db migrate: exit 0, the version said, the schema as a new file's" eq \
	"$?|$(cat "$D/out")|$(sqlite3 -readonly "$D/old/fab.db" "SELECT group_concat(name) FROM sqlite_master WHERE type = 'index'
		ORDER BY name")" "0|database $D/old/fab.db: schema version $(sqlite3 -readonly "$D/ref.db" 'PRAGMA user_version')|$(
	sqlite3 -readonly "$D/ref.db" "SELECT group_concat(name) FROM sqlite_master WHERE type = 'index' ORDER BY name")"
check "... and the snapshots read as before" eq "$("$FABSWEEP" scans --db "$D/old/fab.db" 2>&1)" \
	"$("$FABSWEEP" scans --db "$D/ref.db" 2>&1)"
"$FABSWEEP" db migrate --db "$D/old/none.db" > "$D/out" 2>&1
check "db migrate of a file that does not exist: exit 3, nothing created" eq "$?|$(ls "$D/old" | grep -c none)" "3|0"

echo "reliability_store: $pass passed, $fail failed"
((fail == 0))
