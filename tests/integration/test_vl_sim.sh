#!/usr/bin/env bash
# Node names and the VL and QoS tables on a simulated fabric (ibsim + real
# OpenSM): three leaves and a spine that all answer NodeDescription
# "Quantum-2 Mellanox Technologies" (fabgen --switch-desc), two hosts a leaf.
#  - names: every switch told apart in check (text, --summary, --json), the
#    XML report, the Prometheus export, route and diff; leaf001 and spine001
#    end in the same six hex digits (fabgen's GUIDs), so both show the whole
#    GUID, the other two six digits (worked out here from fabgen's GUID rule);
#    route takes a name with its digits and refuses the bare description;
#  - without -Q: a scan reads one SL2VL table and no VLArbitration table
#    (MADs counted by tests/tools/madspy.c), stores none, and the VL rules
#    are skipped saying why;
#  - OpenSM -Q with a policy (opensm.conf's qos_* keys: every switch
#    external port maps SL1 to VL15 and leaves VL3 out of its arbitration
#    tables; hosts map every SL to a VL they run): the scan reads every
#    table (MADs counted against what it stored), each as `smpquery sl2vl`
#    and `smpquery vlarb` print it for a randomly chosen port; check finds
#    vl.sl_dropped (SL1 to VL15) and vl.starved (VL3: SL3 and SL11) on every
#    cabled switch external port and on nothing else;
#  - then a Set (tests/tools/smpset) of a random host's SL2VL table (SL2 to
#    VL9, beyond its VL0-7), of a random leaf's table from a host port to
#    its uplink (SL4 to VL9) and of another random host's arbitration table
#    (no VL5): the findings name exactly those ports, SLs and VLs; diff shows
#    those tables changed (text and --json read back against the database).
set -uo pipefail
: "${FABSWEEP:?} ${FABGEN:?} ${SRCDIR:?} ${SMPSET:?}"
source "$SRCDIR/scripts/fabsim.sh"
D=$(mktemp -d)
trap 'fabsim_stop "$D/sim" >/dev/null 2>&1; rm -rf "$D"' EXIT
source "$SRCDIR/tests/integration/checks.sh"
need sqlite3 smpquery python3 xmllint
need_py jsonschema
Q2="Quantum-2 Mellanox Technologies"
db=$D/fab.db
q() { sqlite3 -readonly "$db" "$@"; }
last() { q "SELECT max(scan_id) FROM scans"; }
run() { fabsim_run "$D/sim" -- "$@"; }
fs() { run "$FABSWEEP" "$@" --db "$db"; }
same_as_db() { python3 "$SRCDIR/tests/tools/json_vs_db.py" "$@"; }
valid() { python3 "$SRCDIR/tests/tools/json_validate.py" "$SRCDIR/docs/json/$1.schema.json" "${@:2}"; }
spy_build "$D"
spy_scan() { rm -f "$1"; spy_run "$D/sim" "$1" "$FABSWEEP" scan --db "$db" --quiet; }
mads() { grep -c "attr $2\$\|attr $2 " "$1"; } # LOG ATTR: the SMPs of one attribute sent

"$FABGEN" --leaves 3 --spines 1 --hosts-per-leaf 2 --switch-desc "$Q2" -o "$D/net" || exit 1
fabsim_start "$D/net" "$D/sim" >/dev/null || { echo "FAIL: fabsim start"; exit 1; }

# ---- names ---------------------------------------------------------------------
# fabgen's GUIDs: 0x0002c9RR00000000 + 0x10 * N, RR 02 leaf, 03 spine
name() { echo "$Q2 [$1]"; }
L1=$(name 0x0002c90200000010) L2=$(name ..000020) L3=$(name ..000030) S1=$(name 0x0002c90300000010)
leaf_name() { case $1 in 1) echo "$L1" ;; 2) echo "$L2" ;; 3) echo "$L3" ;; esac; }
# errors on port 1 of each switch, so that findings name them all (a leaf's
# hosts are on its ports 1 and 2, its uplink on 3; the spine's port l: leaf l)
for sw in leaf001 leaf002 leaf003 spine001; do
	fabsim_console "$D/sim" "PerformanceSet \"$sw\"[1] PortCounters.SymbolErrorCounter=50" >/dev/null
done
spy_scan "$D/spy0"
check "scan without -Q: one SL2VL MAD (the sample)" eq "$(mads "$D/spy0" 0x0017)" 1
check "scan without -Q: no VLArbitration MAD" eq "$(mads "$D/spy0" 0x0018)" 0
check "scan without -Q: no VL tables stored" eq "$(q "SELECT (SELECT count(*) FROM qos_scans) + (SELECT count(*) FROM sl2vl)")" 0
check "the four switches answer \"$Q2\"" eq "$(q "SELECT count(*) FROM nodes WHERE scan_id = 1 AND description = '$Q2'")" 4
fs check --limit 0 >"$D/check.txt"
check "check: the VL rules skipped, saying why" has "$D/check.txt" \
	"skipped 2 rules (the scan did not read the VL tables (its SL2VL sample showed no QoS policy; scan --forensic reads them)): vl.sl_dropped, vl.starved"
for n in "$L1/1 <-> host0001/1" "$L2/1 <-> host0003/1" "$L3/1 <-> host0005/1" "$S1/1 <-> $L1/3"; do
	check "check: port.errors at $n" has "$D/check.txt" "port.errors            $n: SymbolErrorCounter 50 > 10"
done
check "check: never the bare description for a port" lacks "$D/check.txt" "$Q2/"
fs check --summary --json >"$D/check.json"
check "check --summary --json: every finding, name and group as the database says" \
	same_as_db check "$db" 1 "$D/check.json" "$D/check.txt"
fs check --summary >"$D/summary.txt"
check "check --summary: leaf001's line (nodedesc.duplicate names the first of the four)" has "$D/summary.txt" \
	"  warning $L1: 2 (nodedesc.duplicate 1, port.errors 1)"
for n in "$L2" "$L3" "$S1"; do check "check --summary: a line for $n" has "$D/summary.txt" "  warning $n: 1 (port.errors 1)"; done
fs report --xml "$D/r.xml" --no-trends >/dev/null 2>&1
check "report XML valid" xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$D/r.xml"
check "report XML: the four names" eq "$(xmllint --xpath "//*[local-name()='node'][@description='$Q2']/@name" "$D/r.xml" |
	sed 's/^ *name="//; s/"$//' | sort | paste -sd'|')" "$(printf '%s\n' "$L1" "$L2" "$L3" "$S1" | sort | paste -sd'|')"
fs export prometheus --out "$D/fab.prom" >/dev/null
check "export: the four node labels" eq "$(grep -c "^fabsweep_node_info{[^}]*node=\"$Q2 \[" "$D/fab.prom")" 4
check "export: leaf001's" has "$D/fab.prom" "node_guid=\"0x0002c90200000010\",node=\"$L1\""
check "export: every series as the database says" python3 "$SRCDIR/tests/tools/prom_db.py" --db "$db" \
	--version "$("$FABSWEEP" --version | cut -d' ' -f2)" --file "$D/fab.prom" --scan 1
fs route host0001 host0006 >"$D/route.txt"
check "route: each hop's switch named apart" eq "$(grep -c "$Q2 \[" "$D/route.txt")" 4
check "route: host0001 -> leaf001 -> spine001 -> leaf003 -> host0006" has "$D/route.txt" "$L1/3 -> $S1/1"
check "route: ... leaf003 by six digits" has "$D/route.txt" "$L3/2 -> host0006/1"
fs route host0001 "$L3" >"$D/route2.txt" 2>&1
check "route to a switch given by its name with digits" has "$D/route2.txt" "$S1/3 -> $L3/3"
fs route host0001 "$Q2" >"$D/route3.txt" 2>&1
rc=$?
check "route: the bare description is refused (exit 3), naming a way out" eq \
	"$rc:$(grep -c "is the description of several nodes: name one as '$Q2 \[" "$D/route3.txt")" "3:1"

# ---- a QoS policy: OpenSM -Q -----------------------------------------------------
fabsim_stop_sm "$D/sim" >/dev/null 2>&1
rm -f "$D/sim/sm1/opensm.conf" # the next start writes one with these keys
export FABSIM_OPENSM_ARGS="-Q" FABSIM_OSM_EXTRA_CONF="qos TRUE
qos_ca_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7
qos_swe_sl2vl 0,15,2,3,4,5,6,7,0,1,2,3,4,5,6,7
qos_swe_vlarb_low 0:4,1:4,2:4,4:4,5:4,6:4,7:4
qos_swe_vlarb_high 0:0"
fabsim_start_sm "$D/sim" >/dev/null || { echo "FAIL: OpenSM -Q"; exit 1; }
unset FABSIM_OPENSM_ARGS FABSIM_OSM_EXTRA_CONF
lid() { q "SELECT lid FROM nodes WHERE scan_id = 1 AND node_guid = '$1'"; }
wait_for 30 "OpenSM's policy on leaf001's ports" eval \
	"run smpquery sl2vl $(lid 0x0002c90200000010) 3 | grep -q '^ports: in  1, out  3: | 0|15|'"
spy_scan "$D/spy1"
s=$(last)
check "scan: the VL tables read for a QoS policy" eq "$(q "SELECT reason FROM qos_scans WHERE scan_id = $s")" qos
check "scan: an SL2VL MAD per table stored" eq "$(mads "$D/spy1" 0x0017)" \
	"$(q "SELECT count(DISTINCT node_guid || '/' || in_port || '/' || out_port) FROM sl2vl WHERE scan_id = $s")"
check "  ... every cabled port's: 6 hosts, 3 leaves x 9, the spine 9" eq "$(mads "$D/spy1" 0x0017)" 42
check "scan: two VLArbitration MADs per port stored (8 entries: one block a table)" eq "$(mads "$D/spy1" 0x0018)" \
	"$(q "SELECT 2 * count(DISTINCT node_guid || '/' || port_num) FROM vlarb WHERE scan_id = $s")"
check "  ... every cabled port's: 6 + 9 + 3" eq "$(mads "$D/spy1" 0x0018)" 36

# the oracles: smpquery of a randomly chosen port and pair
sw_lid=$(q "SELECT lid FROM nodes WHERE scan_id = $s AND node_type = 'switch' ORDER BY random() LIMIT 1")
sw_guid=$(q "SELECT node_guid FROM nodes WHERE scan_id = $s AND lid = $sw_lid")
read -r in out < <(q "SELECT in_port, out_port FROM sl2vl WHERE scan_id = $s AND node_guid = '$sw_guid'
	GROUP BY 1, 2 ORDER BY random() LIMIT 1" | tr '|' ' ')
check "sl2vl of switch LID $sw_lid in $in out $out as smpquery prints it" eq \
	"$(run smpquery sl2vl "$sw_lid" "$out" | sed -n "s/^ports: in  *$in, out  *$out: |//p" | tr -d ' ' | tr '|' ' ' | xargs)" \
	"$(q "SELECT group_concat(vl, ' ') FROM (SELECT vl FROM sl2vl WHERE scan_id = $s AND node_guid = '$sw_guid'
		AND in_port = $in AND out_port = $out ORDER BY sl)")"
vlarb_of() { # LID PORT GUID: smpquery's tables and the stored ones, "VL:W ..." low then high
	local t
	t=$(run smpquery vlarb "$1" "$2" | python3 -c '
import sys
p = None
for line in sys.stdin:
    if "Low priority" in line: p = "low"
    if "High priority" in line: p = "high"
    cells = [c.strip() for c in line.split("|")[1:-1]]
    if line.startswith("VL"): vls = cells
    if line.startswith("WEIGHT"):
        for v, w in zip(vls, cells): print(p, "%d:%d" % (int(v, 16), int(w, 16)))')
	echo "smpquery: $(echo "$t" | grep '^low' | cut -d' ' -f2 | xargs) / $(echo "$t" | grep '^high' | cut -d' ' -f2 | xargs)"
	echo "stored:   $(q "SELECT group_concat(vl || ':' || weight, ' ') FROM (SELECT vl, weight FROM vlarb WHERE scan_id = $s
		AND node_guid = '$3' AND port_num = $2 AND priority = 'low' ORDER BY idx)") / $(q "SELECT group_concat(vl || ':' || weight, ' ')
		FROM (SELECT vl, weight FROM vlarb WHERE scan_id = $s AND node_guid = '$3' AND port_num = $2 AND priority = 'high' ORDER BY idx)")"
}
vlarb_of "$sw_lid" "$out" "$sw_guid" >"$D/vlarb"
check "vlarb of switch LID $sw_lid port $out as smpquery prints it" eq "$(sed -n 1p "$D/vlarb" | cut -d: -f2- | xargs)" \
	"$(sed -n 2p "$D/vlarb" | cut -d: -f2- | xargs)"
check "  ... the policy's: no VL3 in the low table" has "$D/vlarb" "smpquery: 0:4 1:4 2:4 4:4 5:4 6:4 7:4 0:0 / 0:0"
h=$((RANDOM % 6 + 1))
h_guid=$(q "SELECT node_guid FROM nodes WHERE scan_id = $s AND description = 'host000$h'")
h_lid=$(q "SELECT lid FROM ports WHERE scan_id = $s AND node_guid = '$h_guid' AND port_num = 1")
check "sl2vl of host000$h as smpquery prints it" eq \
	"$(run smpquery sl2vl "$h_lid" | sed -n 's/^ports: in  *0, out  *0: |//p' | tr -d ' ' | tr '|' ' ' | xargs)" \
	"$(q "SELECT group_concat(vl, ' ') FROM (SELECT vl FROM sl2vl WHERE scan_id = $s AND node_guid = '$h_guid' ORDER BY sl)")"

fs check --limit 0 >"$D/qcheck.txt"
findings() { q "SELECT rule_id || ' ' || node || '/' || port || ' ' || evidence FROM findings WHERE scan_id = $s AND rule_id = '$1' ORDER BY 1"; }
swe=$(q "SELECT count(*) FROM ports p JOIN nodes n USING (scan_id, node_guid) WHERE p.scan_id = $s
	AND n.node_type = 'switch' AND p.remote_guid IS NOT NULL")
check "vl.sl_dropped on every cabled switch port ($swe), SL1 to VL15" eq \
	"$(findings vl.sl_dropped | grep -c ' sls=1; vls=15; op_vls=VL0-7; sls_in_use=0-14; ')" "$swe"
check "  ... and nowhere else" eq "$(findings vl.sl_dropped | wc -l)" "$swe"
check "vl.starved on every cabled switch port, VL3 (SL3, SL11)" eq \
	"$(findings vl.starved | grep -c ' starved_vls=3; sls=3,11; op_vls=VL0-7; vl_high_limit=0; high=none; low=0:4,1:4,2:4,4:4,5:4,6:4,7:4$')" "$swe"
check "  ... and nowhere else" eq "$(findings vl.starved | wc -l)" "$swe"
check "the text: a switch port, named apart" has "$D/qcheck.txt" \
	"vl.sl_dropped          $L3/1 <-> host0005/1: SL1 to VL15 leaving here (from 3 in-ports; the port runs VL0-7): those packets are dropped"

# ---- Sets of single tables ---------------------------------------------------------
# host H maps SL2 to VL9 (beyond its VL0-7); leaf L maps SL4 to VL9 from its
# port 1 (a host) to its uplink 3; host H2's low table leaves VL5 out
h2=$(( (h % 6) + 1 ))
h2_guid=$(q "SELECT node_guid FROM nodes WHERE scan_id = $s AND description = 'host000$h2'")
h2_lid=$(q "SELECT lid FROM ports WHERE scan_id = $s AND node_guid = '$h2_guid' AND port_num = 1")
l=$((RANDOM % 3 + 1))
l_guid=$(printf '0x0002c902000000%x0' "$l")
run "$SMPSET" sl2vl "$h_lid" 0 0 0193456701234567 && run "$SMPSET" sl2vl "$(lid "$l_guid")" 1 3 0F23956701234567 &&
	run "$SMPSET" vlarb "$h2_lid" 0 low 0:0,1:4,2:4,3:4,4:4,6:4,7:4 || echo "FAIL: smpset"
spy_scan "$D/spy2"
s2=$(last)
fs check --limit 0 >"$D/qcheck2.txt"
s=$s2
check "host000$h: vl.sl_dropped, SL2 to VL9 on its own port" eq "$(findings vl.sl_dropped | grep -c "^vl.sl_dropped $h_guid/1 sls=2; vls=9;")" 1
check "  ... the text" has "$D/qcheck2.txt" \
	"host000$h/1 <-> $(leaf_name $(((h + 1) / 2)))/$(((h + 1) % 2 + 1)): the host maps SL2 to VL9 (its port runs VL0-7): it cannot send on those SLs"
check "leaf00$l/3: SL1 to VL15 (3 in-ports) and SL4 to VL9" eq "$(findings vl.sl_dropped |
	grep -c "^vl.sl_dropped $l_guid/3 sls=1,4; vls=15,9; op_vls=VL0-7; sls_in_use=0-14; in_ports=3; first_in_port=0$")" 1
check "host000$h2: vl.starved, VL5 (SL5, SL13)" eq "$(findings vl.starved | grep -c "^vl.starved $h2_guid/1 starved_vls=5; sls=5,13; ")" 1
on_cas() { q "SELECT count(*) FROM findings f JOIN nodes n ON n.scan_id = f.scan_id AND n.node_guid = f.node
	WHERE f.scan_id = $s AND f.rule_id = '$1' AND n.node_type = 'ca'"; }
check "no other host port: one vl.sl_dropped and one vl.starved on hosts" eq "$(on_cas vl.sl_dropped):$(on_cas vl.starved)" 1:1
fs diff "$((s2 - 1))" "$s2" >"$D/diff.txt"
fs diff "$((s2 - 1))" "$s2" --json >"$D/diff.json"
check "diff: the host's own table changed" has "$D/diff.txt" "\"host000$h\" $h_guid port 1: 1 of 1 tables of packets leaving here map an SL to another VL"
check "diff: one of leaf00$l's tables toward port 3" has "$D/diff.txt" "$l_guid port 3: 1 of 3 tables of packets leaving here map an SL to another VL"
check "diff: host000$h2's arbitration" has "$D/diff.txt" "\"host000$h2\" $h2_guid port 1: weighted VLs 0-7 -> 0-4,6-7"
check "diff: nothing else" eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["n_changes"])' "$D/diff.json")" 3
check "diff --json validates" valid diff "$D/diff.json"
check "diff --json: every change as the database and the text" same_as_db diff "$db" "$((s2 - 1))" "$s2" "$D/diff.json" "$D/diff.txt"

echo "vl_sim: $pass passed, $fail failed"
((fail == 0))
