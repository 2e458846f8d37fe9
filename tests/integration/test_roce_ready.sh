#!/usr/bin/env bash
# `fabsweep ready --local` on RoCE hosts (docs/roce.md, "Readiness"): a
# spine-leaf Ethernet fabric of network namespaces joined by veth pairs,
# 1 spine, 2 leaves, 6 hosts, a real lldpd in each namespace advertising
# IEEE 802.1Qaz PFC, ETS and APP TLVs. Each host's NIC is a real mlx5 sysfs
# layout (fixtures/sysfs/h100_roce's RoCE device, its netdev renamed eth0,
# the ECN directory of fixtures/sysfs/procfs) and its DCB the kernel's
# answer to RTM_GETDCB as tests/tools/dcb_reply.py builds it (veth has no
# DCB: collect and ready read the replies with --dcb-dir), its NIC
# statistics a real ConnectX-4 Lx's `ethtool -S` (fixtures/ethtool, with the
# storm counters of later ConnectX after it; a veth's own statistics have
# none of these counters: collect and ready read saved outputs with
# --ethtool-dir, through the same reader). Healthy, every host collects,
# merge writes the fabric and the per-host extracts (--ready-dir); then
# each host but h1 gets one fault:
#   h2 PFC off on priority 3; h3 ECN off on priority 3 (notification and
#   reaction point); h4 trusts PCP (no DSCP entry in its application table);
#   h5 is recabled from leaf2/swp2 to leaf2/swp4; h6's link went down twice
#   (its RDMA port's link_downed counter and its NIC's link_down_events_phy)
#   and its NIC saw a pause storm (3 stall-prevention warnings) and a
#   discard burst (5,000 of 1,000,000 frames).
# ready --local in each namespace must give each host the verdict it
# deserves, naming the problem, with the values the test configured; the
# JSON must be valid and say what the text says; a host where lldpd does not
# answer is ready with a note (not ready when [ready] require has lldp); the
# Slurm prolog and the NHC check run it as Slurm would.
# Needs root. Removes what it created on any exit. TEST-NET-1 addresses.
set -uo pipefail
: "${FABSWEEP:?set FABSWEEP to the fabsweep binary}" "${SRCDIR:?set SRCDIR to the source tree}"
source "$SRCDIR/tests/integration/checks.sh"
if [[ $EUID -ne 0 ]]; then
	echo "FAIL: test_roce_ready needs root (network namespaces); CI runs it as root"
	exit 1
fi
need ip lldpd lldpcli sqlite3 python3
need_py jsonschema

pfx=rr$$
work=$(mktemp -d)
chmod 0755 "$work" # lldpd runs lldpcli as _lldpd: it must reach the sockets
pids=()
namespaces=()
cleanup() {
	local ns
	daemons_stop "${pids[@]}"
	for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done
	[[ -n ${ROCE_READY_KEEP:-} ]] && cp -R "$work" "$ROCE_READY_KEEP"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

hosts=(h1 h2 h3 h4 h5 h6)
systems=(spine1 leaf1 leaf2 "${hosts[@]}")
ns() { echo "$pfx-$1"; }
for s in "${systems[@]}"; do
	ip netns add "$(ns "$s")" || { echo "FAIL: ip netns add $(ns "$s")"; exit 1; }
	namespaces+=("$(ns "$s")")
	ip -n "$(ns "$s")" link set lo up
done

PFC3=08,08 # willing 0, MBC 0, cap 8; PFC on priority 3
APP=00,63,12,b7,65,00,1a # UDP 4791 -> 3, DSCP 26 -> 3
ETS=00,00,03,00,00,32,00,00,32,00,00,00,00,02,00,00,02,00,00,00,00
declare -A conf links_of mac_of
n_macs=0
mac() { printf '02:fb:00:00:%02x:%02x' $(($1 / 256)) $(($1 % 256)); }
veth() { # sysA ifA sysB ifB [macA macB]
	local ma=${5:-$(mac $n_macs)} mb=${6:-$(mac $((n_macs + 1)))}
	n_macs=$((n_macs + 2))
	ip link add "$2" netns "$(ns "$1")" address "$ma" mtu 9000 type veth \
		peer name "$4" netns "$(ns "$3")" address "$mb" mtu 9000 || { echo "FAIL: veth $1:$2 - $3:$4"; exit 1; }
	ip -n "$(ns "$1")" link set "$2" up
	ip -n "$(ns "$3")" link set "$4" up
	mac_of[$1:$2]=$ma mac_of[$3:$4]=$mb
}
link() { veth "$@"; links_of[$1]+="$2 "; links_of[$3]+="$4 "; }
tlvs() { # system ifname: the lldpcli lines of what it advertises
	local app=()
	[[ $2 == swp5* ]] || app=("configure ports $2 lldp custom-tlv add oui 00,80,c2 subtype 12 oui-info $APP")
	printf '%s\n' "configure ports $2 lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $PFC3" \
		"configure ports $2 lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info $ETS" "${app[@]}"
}
link spine1 swp1 leaf1 swp51
link spine1 swp2 leaf2 swp51
link leaf1 swp1 h1 eth0
link leaf1 swp2 h2 eth0
link leaf1 swp3 h3 eth0
link leaf2 swp1 h4 eth0
link leaf2 swp2 h5 eth0
link leaf2 swp3 h6 eth0

n=0
for s in "${systems[@]}"; do
	n=$((n + 1))
	ip -n "$(ns "$s")" addr add "192.0.2.$n/32" dev lo
	{
		echo "configure system hostname $s"
		echo "configure lldp tx-interval 250ms" # fast, with a TTL (x 20) that load cannot outlast
		echo "configure lldp tx-hold 20"
		[[ $s == h* ]] || echo "configure system capabilities enabled bridge,router"
		for i in ${links_of[$s]}; do tlvs "$s" "$i"; done
	} >"$work/$s.conf"
	chmod 0644 "$work/$s.conf"
	ip netns exec "$(ns "$s")" lldpd "${LLDPD_LOG_OPTS[@]}" -u "$work/$s.sock" -O "$work/$s.conf" \
		-I 'eth*,swp*' -m "192.0.2.$n" >"$work/$s.log" 2>&1 &
	pids+=($!)
done
# heard: system ifname peer-system peer-port-id (its MAC)
heard() { lldpcli -u "$work/$1.sock" -f keyvalue show neighbors ports "$2" 2>/dev/null |
	grep -q "^lldp\.$2\.port\.mac=$3\$"; }
hears_all() { # system: every port of it hears one neighbour
	local kv i
	kv=$(lldpcli -u "$work/$1.sock" -f keyvalue show neighbors 2>/dev/null)
	for i in ${links_of[$1]}; do
		[[ $(grep -c "^lldp\.$i\.chassis\.name=" <<<"$kv") == 1 ]] || return 1
	done
}
converged() { # every port of every system hears one neighbour
	local s
	for s in "${systems[@]}"; do hears_all "$s" || return 1; done
}
check "LLDP converged: every port hears its neighbour" wait_for 30 "LLDP convergence" converged || {
	for s in "${systems[@]}"; do
		hears_all "$s" || lldpd_report "$(ns "$s")" "$work/$s.sock" "$work/$s.log"
	done
}

# Each host's NIC: the RoCE device of a real mlx5 tree on eth0, healthy PCIe
# (Gen5 x16 of Gen5 x16), the real ECN directory; its DCB: PFC on 3, UDP 4791
# and DSCP 26 on 3 (trust DSCP).
R=$SRCDIR/fixtures/sysfs/h100_roce
k=0
for h in "${hosts[@]}"; do
	k=$((k + 1))
	d=$work/sys/$h
	mkdir -p "$d/class/net/eth0" "$d/class/infiniband" "$work/dcb/$h" "$work/eth/$h"
	ip netns exec "$(ns "$h")" sh -c 'for a in address mtu operstate speed type; do
		cat "/sys/class/net/eth0/$a" >"$1/$a" 2>/dev/null; done' sh "$d/class/net/eth0"
	cp -R "$SRCDIR/fixtures/sysfs/procfs/class/net/eth0/ecn" "$d/class/net/eth0/ecn" &&
		cp -R "$R/devices" "$d/devices" &&
		cp -R "$R/class/infiniband/mlx5_bond_0" "$d/class/infiniband/mlx5_0" ||
		{ echo "FAIL: cannot build the sysfs root of $h"; exit 1; }
	pci=$d/devices/pci0000:80/0000:80:01.0/0000:9a:00.0
	echo "32.0 GT/s PCIe" >"$pci/current_link_speed"
	echo 16 >"$pci/current_link_width"
	echo eth0 >"$d/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0"
	echo "a088:c203:000d:4e1$k" >"$d/class/infiniband/mlx5_0/node_guid"
	python3 "$SRCDIR/tests/tools/dcb_reply.py" eth0 "$work/dcb/$h/eth0.bin" --pfc 0x08 \
		--apps udp:4791=3,dscp:26=3 || { echo "FAIL: dcb_reply.py"; exit 1; }
	echo "driver: mlx5_core" >"$work/eth/$h/eth0.info"
	{ cat "$SRCDIR/fixtures/ethtool/mlx5_connectx4lx.stats"
	  printf '%s: 0\n' tx_pause_storm_warning_events tx_pause_storm_error_events; } >"$work/eth/$h/eth0.stats"
done
here() { # host: the options that read it
	echo --lldp-socket "$work/$1.sock" --sysfs-root "$work/sys/$1" --dcb-dir "$work/dcb/$1" --ethtool-dir "$work/eth/$1"
}

# collect everywhere, merge with the per-host extracts
mkdir -p "$work/c" "$work/ready"
for s in "${systems[@]}"; do
	opts=(--lldp-socket "$work/$s.sock")
	[[ $s == h* ]] && read -ra opts <<<"$(here "$s")"
	ip netns exec "$(ns "$s")" "$FABSWEEP" collect --quiet --out "$work/c/$s.db" "${opts[@]}" \
		2>"$work/$s.collect.err"
	check "collect on $s" eq "$?" 0
done
db=$work/fabric.db
"$FABSWEEP" merge --db "$db" --ready-dir "$work/ready" "$work"/c/*.db >"$work/merge.out" 2>&1
check "merge with --ready-dir" eq "$?" 0
check "merge says how many extracts it wrote" has "$work/merge.out" "readiness extracts: 6 in $work/ready"
check "an extract for every host, none for a switch" eq "$(cd "$work/ready" && ls | tr '\n' ' ')" \
	"h1.db h2.db h3.db h4.db h5.db h6.db "
q() { sqlite3 -readonly "$1" "$2"; }
"$FABSWEEP" check --db "$db" --fail-on warning >"$work/check.out" 2>&1
check "check finds nothing wrong in the healthy merge" eq "$?" 0
# The extract of h4: h4 and leaf2 collected (their views whole), stubs for what
# leaf2 heard; the votes of the rest: 5 hosts trusting DSCP, sending CNPs with
# DSCP 48 and priority 6 (the fixture's ecn/roce_np/cnp_dscp, cnp_802p_prio),
# the links of each tier at the speed of their veths.
x=$work/ready/h4.db
check "h4's extract holds h4 and its leaf as collected" eq \
	"$(q "$x" "SELECT group_concat(system, ',') FROM (SELECT system FROM systems WHERE collected = 1 ORDER BY 1)")" "h4,leaf2"
speed=$(cat "$work/sys/h1/class/net/eth0/speed")
check "h4's extract carries the votes of the rest of the fabric" eq \
	"$(q "$x" "SELECT question||':'||ifnull(tier,'')||':'||value||'='||votes FROM roce_votes ORDER BY 1" | tr '\n' ' ')" \
	"cnp_dscp::$(cat "$SRCDIR/fixtures/sysfs/procfs/class/net/eth0/ecn/roce_np/cnp_dscp")=5 cnp_priority::$(cat "$SRCDIR/fixtures/sysfs/procfs/class/net/eth0/ecn/roce_np/cnp_802p_prio")=5 speed:host-leaf:$speed=5 speed:leaf-spine:$speed=2 trust::dscp=5 "

# The faults, after the merge.
python3 "$SRCDIR/tests/tools/dcb_reply.py" eth0 "$work/dcb/h2/eth0.bin" --pfc 0x00 --apps udp:4791=3,dscp:26=3
for p in roce_np roce_rp; do echo 0 >"$work/sys/h3/class/net/eth0/ecn/$p/enable/3"; done
python3 "$SRCDIR/tests/tools/dcb_reply.py" eth0 "$work/dcb/h4/eth0.bin" --pfc 0x08 --apps udp:4791=3
down_was=$(cat "$work/sys/h6/class/infiniband/mlx5_0/ports/1/counters/link_downed")
echo $((down_was + 2)) >"$work/sys/h6/class/infiniband/mlx5_0/ports/1/counters/link_downed"
rx_was=$(sed -n 's/^rx_packets_phy: //p' "$work/eth/h6/eth0.stats")
sed -i -e 's/^link_down_events_phy: 0$/link_down_events_phy: 2/' \
	-e 's/^tx_pause_storm_warning_events: 0$/tx_pause_storm_warning_events: 3/' \
	-e 's/^rx_discards_phy: 0$/rx_discards_phy: 5000/' \
	-e "s/^rx_packets_phy: $rx_was\$/rx_packets_phy: $((rx_was + 1000000))/" "$work/eth/h6/eth0.stats"
# h5: from leaf2/swp2 to a new port leaf2/swp4, with its own MAC; the ends
# advertise as before (lldpd is told at run time)
ip -n "$(ns leaf2)" link del swp2
m4=$(mac 200)
veth leaf2 swp4 h5 eth0 "$m4" "${mac_of[h5:eth0]}"
knows() { lldpcli -u "$work/$1.sock" -f keyvalue show interfaces ports "$2" 2>/dev/null | grep -q "^lldp\.$2\."; }
tell() { # system ifname: once its lldpd knows the new interface, what it advertises there
	wait_for 10 "$1's lldpd knowing $2" knows "$1" "$2" || return 1
	tlvs "$1" "$2" >"$work/$1.$2.tlvs" || return 1
	chmod 0644 "$work/$1.$2.tlvs" # lldpcli reads it as _lldpd (the umask may be 077)
	lldpcli -u "$work/$1.sock" -c "$work/$1.$2.tlvs" >/dev/null
}
check "leaf2 advertises on swp4 as on its other ports" tell leaf2 swp4
check "h5 advertises on its new eth0 as before" tell h5 eth0
# h5 hears leaf2's new port alone (the old one's record gone), with its PFC TLV
hears_only() {
	local kv
	kv=$(lldpcli -u "$work/$1.sock" -f keyvalue show neighbors ports "$2" 2>/dev/null)
	[[ $(grep -c '\.chassis\.name=' <<<"$kv") == 1 ]] && grep -q "^lldp\.$2\.port\.mac=$3\$" <<<"$kv" &&
		grep -q '\.unknown-tlv=08,08$' <<<"$kv"
}
check "h5 hears leaf2/swp4 alone after the recabling" wait_for 30 "h5 hearing leaf2's new port" hears_only h5 eth0 "$m4"

# ready --local on each host, against its extract.
ready() { # host [options]: its output in $work/ready.$1, its exit status in rc_$1
	local h=$1
	shift
	read -ra o <<<"$(here "$h")"
	ip netns exec "$(ns "$h")" "$FABSWEEP" ready --local --db "$work/ready/$h.db" "${o[@]}" "$@" \
		>"$work/ready.$h" 2>"$work/ready.$h.err"
	printf -v "rc_$h" '%s' "$?"
}
for h in "${hosts[@]}"; do ready "$h" --quiet; done
lines() { cat "$work/ready.$1"; }
check "h1 (healthy) is ready: exit 0, nothing said" eq "$rc_h1:$(lines h1)" "0:"
check "h2 (PFC off on 3) is not ready, and says why" eq "$rc_h2:$(lines h2)" \
	"1:h2: roce.pfc_disabled h2/eth0 <-> leaf1/swp2: PFC is not enabled on the RoCE priority 3 (enabled: none)
h2: roce.pfc_mismatch h2/eth0 <-> leaf1/swp2: the ends enable PFC on different priorities (none and 3)"
np=$(( $(cat "$work/sys/h1/class/net/eth0/ecn/roce_np/enable/3") ))
check "h3 (ECN off on 3) is not ready, naming both points" eq "$rc_h3:$(lines h3)" \
	"1:h3: roce.ecn_disabled h3/eth0 <-> leaf1/swp3: ECN is off on the RoCE priority 3, where PFC is on: notification point (CNPs) and reaction point (DCQCN) off"
check "(the healthy hosts' ECN is on at 3)" eq "$np" 1
check "h4 (trusts PCP) is not ready: the fabric's majority of 6 hosts, and its DSCP mapping" eq "$rc_h4:$(lines h4)" \
	"1:h4: roce.dscp_mapping h4/eth0 <-> leaf2/swp1: DSCP 26 is not mapped to priority 3
h4: roce.trust_mismatch h4/eth0 <-> leaf2/swp1: trusts PCP while 5 of 6 RoCE NICs trust DSCP: DSCP-marked RoCE traffic does not reach priority 3 here"
check "h5 (recabled) is not ready: the port it is on, the port it should be on" eq "$rc_h5:$(lines h5)" \
	"1:h5: eth0 is cabled to leaf2/swp4, not to leaf2/swp2 as at the merge"
check "h6 (link down twice, a pause storm, a discard burst) is not ready: the counters, as configured" \
	eq "$rc_h6:$(lines h6 | sed 's/ in the [0-9]* s since / in the N s since /')" \
	"1:h6: roce.pause_storm h6/eth0 <-> leaf2/swp3: pause storm: 3 stall-prevention events (errors, where it stopped honouring pauses: 0; warnings: 3) in the N s since the baseline
h6: eth.discards h6/eth0 <-> leaf2/swp3: 5000 frames dropped at the port for lack of buffer (0.005 of 1000000) in the N s since the baseline
h6: RDMA port mlx5_0/1 (eth0) error counters rose since the merge: LinkDownedCounter +2 ($down_was -> $((down_was + 2)))
h6: eth0 link went down since the merge: link_down_events +2 (0 -> 2)"

# The summary line and the notes (without --quiet): what was compared with.
ready h1
check "h1's summary names the merge it compared with" has "$work/ready.h1" \
	"ready: h1: ready: 1 RoCE port, 0 rule findings (merge: scan 1 of "
check "h1 says nothing it could not read (DCB, ECN, LLDP, NIC counters all read)" lacks "$work/ready.h1" ": note: "

# Against the fabric's database instead of the extract: the same answers.
for h in h2 h4 h5; do
	read -ra o <<<"$(here "$h")"
	ip netns exec "$(ns "$h")" "$FABSWEEP" ready --local --quiet --db "$db" "${o[@]}" >"$work/full.$h" 2>&1
	check "$h against the fabric's database: the same lines as against its extract" eq \
		"$(cat "$work/full.$h")" "$(lines "$h")"
done

# --json: valid against its schema, the same problems as the text, the port
# and the cabling as configured.
ready h5 --json
check "h5 --json: exit 1 like the text" eq "$rc_h5" 1
check "h5 --json is valid against docs/json/ready.schema.json" \
	python3 "$SRCDIR/tests/tools/json_validate.py" "$SRCDIR/docs/json/ready.schema.json" "$work/ready.h5"
check "h5 --json: its verdict, problems, cabling and port" eq \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); h=d["hosts"][0]; l=d["local"]
print(d["verdict"], h["host"], [p["text"] for p in h["problems"]])
print([(x["ifname"], x["merged"], x["heard"], x["verdict"]) for x in l["links"]])
print([(p["device"], p["port"], p["netdev"], p["state"], p["merged"], p["present"]) for p in l["ports"]])' "$work/ready.h5")" \
	"not_ready h5 ['eth0 is cabled to leaf2/swp4, not to leaf2/swp2 as at the merge']
[('eth0', {'system': 'leaf2', 'port': 'swp2'}, {'system': 'leaf2', 'port': 'swp4'}, 'not_ready')]
[('mlx5_0', 1, 'eth0', 'active', True, True)]"
ready h2 --json
check "h2 --json: the rules' findings with their evidence, as configured" eq \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for f in d["local"]["findings"]: print(f["rule_id"], f["counts"], f["evidence"])' "$work/ready.h2")" \
	"roce.pfc_disabled True pfc_priorities=none; source=dcb; roce_priority=3
roce.pfc_mismatch True pfc_priorities=none; source=dcb; peer_pfc_priorities=3; peer_source=lldp"

ready h6 --json
check "h6 --json: the physical rules' findings with their evidence, as configured" eq \
	"$(python3 -c 'import json,sys,re; d=json.load(open(sys.argv[1]))
for f in d["local"]["findings"]: print(f["rule_id"], f["counts"], re.sub(r"seconds=[0-9]+", "seconds=N", f["evidence"]))' "$work/ready.h6")" \
	"roce.pause_storm True pause_storm_warning_events_increase=3; pause_storm_error_events_increase=0; seconds=N
eth.discards True rx_discards_phy_increase=5000; rx_frames_increase=1000000"

# --fail-on: the rules' warnings count by default; with error they are notes
ready h4 --fail-on error
check "h4 --fail-on error: ready, its warnings said as notes" eq "$rc_h4" 0
check "h4 --fail-on error: the trust finding is a note" has "$work/ready.h4" \
	"h4: note: warning roce.trust_mismatch h4/eth0 <-> leaf2/swp1: trusts PCP"

# lldpd not answering here: said, not a failure, unless [ready] require has lldp
o=(--lldp-socket "$work/none.sock" --sysfs-root "$work/sys/h1" --dcb-dir "$work/dcb/h1")
ip netns exec "$(ns h1)" "$FABSWEEP" ready --local --system h1 --db "$work/ready/h1.db" "${o[@]}" \
	>"$work/nolldp.out" 2>&1
check "h1 without lldpd: ready (exit 0)" eq "$?" 0
check "h1 without lldpd: the cabling is said not to be checked" has "$work/nolldp.out" \
	"h1: note: the cabling is not checked: lldpd did not answer here"
printf '[ready]\nrequire = lldp\n' >"$work/require.conf"
ip netns exec "$(ns h1)" "$FABSWEEP" ready --local --quiet --system h1 --config "$work/require.conf" \
	--db "$work/ready/h1.db" "${o[@]}" >"$work/nolldp.req" 2>&1
check "h1 without lldpd, [ready] require = lldp: not ready (exit 1)" eq "$?" 1
check "... and says so" eq "$(cat "$work/nolldp.req")" "h1: lldpd did not answer here, and [ready] require has lldp"
# ... and its NIC counters not read (no --ethtool-dir here): said, a failure
# when [ready] require has ethtool
check "h1 without its NIC statistics: said" has "$work/nolldp.out" "h1: note: NIC counters of eth0 not read: not asked"
printf '[ready]\nrequire = ethtool\n' >"$work/require-eth.conf"
ip netns exec "$(ns h1)" "$FABSWEEP" ready --local --quiet --system h1 --config "$work/require-eth.conf" \
	--db "$work/ready/h1.db" "${o[@]}" >"$work/noeth.req" 2>&1
check "h1 without its NIC statistics, [ready] require = ethtool: not ready (exit 1), saying so" eq \
	"$?:$(cat "$work/noeth.req")" "1:h1: NIC counters of eth0 not read (not asked), and [ready] require has ethtool"
# [ready] roce_ports names a port h1 does not have
printf '[ready]\nroce_ports = mlx5_0/1, mlx5_1/1\n' >"$work/ports.conf"
ready h1 --quiet --config "$work/ports.conf"
check "h1 with [ready] roce_ports naming mlx5_1/1: not ready, naming it" eq "$rc_h1:$(lines h1)" \
	"1:h1: RDMA port mlx5_1/1 is missing ([ready] roce_ports names it)"

# The Slurm prolog, as slurmd runs it: no tty, Slurm's environment.
prolog() { # host: runs the prolog in its namespace
	ip netns exec "$(ns "$1")" env -i PATH="$PATH" SLURM_JOB_ID=4711 SLURMD_NODENAME="$1" \
		SLURM_JOB_NODELIST="h[1-6]" FABSWEEP="$FABSWEEP" FABSWEEP_DB="$work/ready/$1.db" \
		FABSWEEP_PROLOG_SCOPE=local FABSWEEP_PROLOG_ARGS="$(here "$1")" \
		setsid bash "$SRCDIR/scripts/slurm/fabsweep-prolog.sh" </dev/null >"$work/prolog.$1" 2>&1
}
prolog h1
check "the prolog on h1 (ready): exit 0" eq "$?" 0
prolog h2
check "the prolog on h2 (PFC off): exit 1, the node is drained" eq "$?" 1
check "the prolog on h2 says why" has "$work/prolog.h2" \
	"fabsweep-prolog: not ready: h2: roce.pfc_disabled h2/eth0 <-> leaf1/swp2: PFC is not enabled on the RoCE priority 3"
# NHC: check_fabsweep_ready -L (local) calls die with the first problem
nhc() {
	ip netns exec "$(ns "$1")" env -i PATH="$PATH" HOSTNAME_S="$1" FABSWEEP="$FABSWEEP" bash -c '
		die() { echo "die $1: $2"; return 1; }; log() { echo "log: $*"; }
		source "$0"; check_fabsweep_ready -L -d "$1" -a "$2"' \
		"$SRCDIR/scripts/slurm/fabsweep.nhc" "$work/ready/$1.db" "$(here "$1")" >"$work/nhc.$1" 2>&1
}
nhc h3
check "NHC on h3 (ECN off): fails" eq "$?" 1
check "NHC on h3 dies with the problem" has "$work/nhc.h3" \
	"die 1: fabsweep: h3: roce.ecn_disabled h3/eth0 <-> leaf1/swp3: ECN is off"
nhc h1
check "NHC on h1 (ready): passes" eq "$?" 0

echo "roce_ready: $pass passed, $fail failed"
((fail == 0))
