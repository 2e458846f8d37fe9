#!/usr/bin/env bash
# fabsweep ready on a simulated fabric (ibsim + real OpenSM): healthy hosts are
# ready (exit 0); a host behind a link degraded at run time (ibportstate width 1)
# is not (exit 1) and is named; so are a host whose switch port counts errors
# since the sweep (PerformanceSet) and a host whose cable was pulled (Unlink); a
# host the sweep did not see cannot be checked (exit 3). Host lists from
# --hosts, --hostfile and SLURM_JOB_NODELIST; names from a node-name-map.
# --json against the text output and the database (tests/tools/ready_compare.py:
# every host's verdict and problems, the ports probed, the pairs, the scan).
# Then the Slurm prolog and the NHC check of scripts/slurm on the same fabric:
# the message names the bad host and its reason, and their parameters (the
# prolog's partition and fail-on level, NHC's -f) change the verdict.
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh" # check eq ge has lacks safe prom_ok
need sqlite3 python3
q() { sqlite3 -readonly "$D/fab.db" "$@"; }
ready() { fabsim_run "$D/sim" -- "$FABSWEEP" ready --db "$D/fab.db" "$@"; }

# 2 leaves x 4 hosts, 2 spines: leaf001 ports 1-4 host0001-0004, leaf002 host0005-0008.
"$FABGEN" --leaves 2 --spines 2 --hosts-per-leaf 4 -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" > /dev/null || exit 1
fabsim_run "$D/sim" -- "$FABSWEEP" sweep --db "$D/fab.db" --quiet
rc=$?
check "the sweep exits 0 or 1 (findings of a one-SM fabric): $rc" test "$rc" -le 1

ready --hosts 'host[0001-0008]' > "$D/out" 2> "$D/err"
check "all healthy: exit 0" eq "$?" 0
check "all healthy: summary" has "$D/out" "ready: 8 hosts: 8 ready, 0 not ready, 0 not checked (scan 1 of "
check "all healthy: nothing else" eq "$(wc -l < "$D/out")" 1
ready_keep "all healthy" 0 "$D/out" -- ready --hosts 'host[0001-0008]' --json

# From here the fabric changes under a configured subnet with no SM running:
# ready sends no SM MAD, and a sweeping OpenSM sets a port's LinkWidthEnabled
# back to LinkWidthSupported whenever it reconfigures that port (osm_link_mgr),
# which once undid host0003's degradation between two checks in CI.
fabsim_stop_sm "$D/sim" 1 > /dev/null || exit 1

# degrade host0003's link at run time: the switch side to 1X
LEAF1=$(q "SELECT lid FROM nodes WHERE scan_id = 1 AND description = 'leaf001'")
fabsim_run "$D/sim" -- ibportstate "$LEAF1" 3 width 1 > /dev/null 2>&1
ready --hosts host0003 > "$D/out"
check "degraded: exit 1" eq "$?" 1
check "degraded: the host and the width" has "$D/out" "host0003: link host0003/1 <-> leaf001/3 runs 1X (4X at scan 1)"
check "degraded: that line and the summary, no note on routes for one host" eq "$(wc -l < "$D/out")" 2
ready --hosts host0001,host0002 --quiet > "$D/out"
check "neighbours on the same leaf are ready" eq "$?" 0
check "--quiet: no output when ready" eq "$(wc -c < "$D/out")" 0

# counters: symbol errors on host0005's switch port since the sweep
fabsim_console "$D/sim" 'PerformanceSet "leaf002"[1] PortCounters.SymbolErrorCounter=50' > /dev/null
# a pulled cable: host0006
fabsim_console "$D/sim" 'Unlink "host0006"[1]' > /dev/null

printf '# the job\nhost[0001-0003]\nhost0005 # errors\nhost0006\nhost0099\n' > "$D/hosts"
ready --hostfile "$D/hosts" > "$D/out"
rc=$?
check "hostfile: exit 1" eq "$rc" 1
ready_keep "hostfile" "$rc" "$D/out" hosts=host0001,host0002,host0003,host0005,host0006,host0099 -- \
	ready --hostfile "$D/hosts" --json
check "ready --json agrees with the text (every host's verdict and problems) and the database" \
	ready_compared "$D/fab.db"
check "counters named" has "$D/out" \
	"host0005: leaf002/1 error counters rose since scan 1: SymbolErrorCounter +50 (0 -> 50)"
check "pulled cable named" has "$D/out" "host0006: link host0006/1 <-> leaf002/2 is down/"
check "unknown host named" has "$D/out" \
	"host0099: not in scan 1: no channel adapter whose description starts with 'host0099'"
check "summary" has "$D/out" "ready: 6 hosts: 2 ready, 3 not ready, 1 not checked"
check "healthy hosts not named" lacks "$D/out" "host0001:"
check "one line per problem" eq "$(grep -c '^host' "$D/out")" 4

fabsim_run "$D/sim" -- env SLURM_JOB_NODELIST='host[0001-0002]' "$FABSWEEP" ready --db "$D/fab.db" > "$D/out"
check "SLURM_JOB_NODELIST: exit 0" eq "$?" 0
ready --hosts host0099 > "$D/out"
check "only unknown hosts: could not check (3)" eq "$?" 3
fabsim_run "$D/sim" -- env -u SLURM_JOB_NODELIST "$FABSWEEP" ready --db "$D/fab.db" 2> "$D/err"
check "no hosts: usage (2)" eq "$?" 2
ready --hosts 'host[3-1]' 2> "$D/err"
check "bad host list: usage (2)" eq "$?" 2
check "bad host list: the column" has "$D/err" "column"
"$FABSWEEP" ready --db "$D/none.db" --hosts host0001 2> "$D/err"
check "no database: 3" eq "$?" 3

# the sweep's findings count: a finding about host0007's link makes it not ready
H7=$(q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND description = 'host0007'")
L2=$(q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND description = 'leaf002'")
sqlite3 "$D/fab.db" "INSERT INTO findings (scan_id, rule_id, severity, node, port, peer_node, peer_port, subject, message)
	VALUES (1, 'port.errors', 'error', '$L2', '3', '$H7', '1', 'leaf002/3 <-> host0007/1', 'test finding')"
ready --hosts host0007 > "$D/out"
check "a finding of the sweep: exit 1" eq "$?" 1
check "a finding of the sweep: named" has "$D/out" "host0007: scan 1: error port.errors leaf002/3 <-> host0007/1: test finding"
ready --hosts host0007 --fail-on never > /dev/null
check "--fail-on never ignores it" eq "$?" 0

# node-name-map names: host0008 known as gpu8 to Slurm
G8=$(q "SELECT node_guid FROM nodes WHERE scan_id = 1 AND description = 'host0008'")
printf '%s "gpu8 HCA-1"\n' "$G8" > "$D/map"
ready --hosts gpu8 --node-name-map "$D/map" > "$D/out"
check "mapped name: found and ready" eq "$?" 0

# the Slurm prolog (node scope) and the NHC check
prolog() { fabsim_run "$D/sim" -- env FABSWEEP="$FABSWEEP" FABSWEEP_DB="$D/fab.db" "$@" \
	bash "$SRCDIR/scripts/slurm/fabsweep-prolog.sh"; }
prolog SLURMD_NODENAME=host0001 2> "$D/err"
check "prolog: ready host exits 0" eq "$?" 0
prolog SLURMD_NODENAME=host0003 2> "$D/err"
check "prolog: degraded host exits 1" eq "$?" 1
check "prolog: says why" has "$D/err" "fabsweep-prolog: not ready: host0003: link host0003/1 <-> leaf001/3 runs 1X"
prolog SLURMD_NODENAME=host0099 2> "$D/err"
check "prolog: could not check passes" eq "$?" 0
prolog SLURMD_NODENAME=host0099 FABSWEEP_PROLOG_STRICT=1 2> /dev/null
check "prolog: could not check fails when strict" eq "$?" 1
prolog FABSWEEP_PROLOG_SCOPE=job SLURM_JOB_NODELIST='host[0001-0003]' 2> "$D/err"
check "prolog: job scope with a bad host exits 1" eq "$?" 1
# what the sweep stored of host0003's link: the width it ran, the leaf port
W3=$(q "SELECT p.width_active || ' ' || p.remote_port FROM ports p JOIN nodes n USING (scan_id, node_guid)
	WHERE p.scan_id = 1 AND n.description = 'host0003' AND p.port_num = 1")
check "prolog: job scope names the bad host (only it) and why" eq "$(cat "$D/err")" \
	"fabsweep-prolog: not ready: host0003: link host0003/1 <-> leaf001/${W3#* } runs 1X (${W3% *} at scan 1)"
# the partition every pair must share: the sweep has host0001 and host0002 as
# full members of the default partition, in no other
check "the sweep: host0001 and host0002 full members of 0x7fff, of nothing else" eq \
	"$(q "SELECT group_concat(n.description || ':' || e.partition_hex || ':' || e.membership, ' ') FROM port_partitions e
	JOIN nodes n USING (scan_id, node_guid) WHERE e.scan_id = 1 AND n.description IN ('host0001', 'host0002')
	ORDER BY n.description")" "host0001:0x7fff:full host0002:0x7fff:full"
prolog FABSWEEP_PROLOG_SCOPE=job SLURM_JOB_NODELIST='host[0001-0002]' FABSWEEP_PROLOG_PKEY=0x8001 2> "$D/err"
check "prolog: FABSWEEP_PROLOG_PKEY=0x8001, a partition neither host is in: exit 1" eq "$?" 1
check "prolog: FABSWEEP_PROLOG_PKEY: the pair and the partition named" eq "$(cat "$D/err")" \
	"fabsweep-prolog: not ready: host0001 <-> host0002: not ready: they do not share the partition
fabsweep-prolog: not ready: ready: partition 0x0001: 1 of 1 pairs cannot talk in it"
# the sweep's finding about host0007's link (above) and the fail-on level
prolog SLURMD_NODENAME=host0007 2> "$D/err"
check "prolog: the sweep's error finding fails host0007" eq "$(cat "$D/err")" \
	"fabsweep-prolog: not ready: host0007: scan 1: error port.errors leaf002/3 <-> host0007/1: test finding"
prolog SLURMD_NODENAME=host0007 FABSWEEP_PROLOG_FAIL_ON=never 2> "$D/err"
check "prolog: FABSWEEP_PROLOG_FAIL_ON=never ignores it" eq "$?" 0

cat > "$D/nhc.sh" << EOF
die() { echo "DIE \$1 \$2"; }
log() { echo "LOG \$*"; }
source "$SRCDIR/scripts/slurm/fabsweep.nhc"
FABSWEEP="$FABSWEEP" HOSTNAME_S=\$1 check_fabsweep_ready -d "$D/fab.db" "\${@:2}"
echo "RC \$?"
EOF
fabsim_run "$D/sim" -- bash "$D/nhc.sh" host0003 > "$D/out"
check "nhc: die with the problem" has "$D/out" "DIE 1 fabsweep: host0003: link host0003/1 <-> leaf001/3 runs 1X"
fabsim_run "$D/sim" -- bash "$D/nhc.sh" host0002 > "$D/out"
check "nhc: healthy passes" eq "$(cat "$D/out")" "RC 0"
fabsim_run "$D/sim" -- bash "$D/nhc.sh" host0099 > "$D/out"
check "nhc: could not check logs" has "$D/out" "LOG fabsweep: could not check host0099 (exit 3)"
fabsim_run "$D/sim" -- bash "$D/nhc.sh" host0007 > "$D/out"
check "nhc: the sweep's error finding dies" eq "$(cat "$D/out")" \
	"DIE 1 fabsweep: host0007: scan 1: error port.errors leaf002/3 <-> host0007/1: test finding
RC 1"
fabsim_run "$D/sim" -- bash "$D/nhc.sh" host0007 -f never > "$D/out"
check "nhc: -f never ignores it" eq "$(cat "$D/out")" "RC 0"
fabsim_run "$D/sim" -- bash "$D/nhc.sh" host0099 -S > "$D/out"
check "nhc: strict dies" has "$D/out" "DIE 1 fabsweep: could not check host0099"

echo "$pass passed, $fail failed"
((fail == 0))
