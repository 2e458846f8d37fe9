#!/usr/bin/env bash
# A spine-leaf Ethernet fabric of network namespaces joined by veth pairs:
# 2 spines, 4 leaves, 8 hosts (host5 dual-homed to leaf2), a real lldpd in
# each namespace with its own control socket and system name, advertising
# IEEE 802.1Qaz PFC, ETS and APP TLVs as custom TLVs, some deliberately wrong:
#   host3 has PFC on priority 4 instead of 3; leaf2's port to host5 has no PFC;
#   host7 runs MTU 1500; host6 advertises no APP entry for UDP 4791.
# host9 .. host12 collect from sysfs roots of their own (collect --sysfs-root):
# their namespace's eth0 attributes plus the ECN directory of a real mlx5 NIC
# (fixtures/sysfs/procfs, ECN and DCQCN on priority 3, CNPs on DSCP 48):
#   host9 as it is (healthy); host10 with the notification point off on
#   priority 3 (PFC on there); host11 sending CNPs with DSCP 46; host12's NIC
#   has no ecn directory (unknown, not off).
# Runs `fabsweep collect` inside every namespace and `fabsweep merge`, and
# checks the merged snapshot holds exactly what the test configured: the
# adjacencies, every interface's MAC and LLDP port id, every TLV byte for byte
# as sent and as heard, the decoded PFC, ETS and application entries, MTUs,
# roles, each system's address, description and capabilities, each
# neighbour's TTL and identity (the chassis id lldpd picks, as lldpcli shows
# it), the DCB status per interface (as iproute2's dcb finds it) and the ECN
# bitmaps of the sysfs files; that `fabsweep check` finds exactly the injected
# faults; then that a direct multi-socket `scan --no-ib --lldp-socket ...`
# records the same adjacencies, PFC bitmaps and application entries.
# Needs root. Removes everything it created (namespaces, daemons by PID,
# sockets) on any exit. Addresses are TEST-NET-1 (192.0.2.0/24).
set -uo pipefail
: "${FABSWEEP:?set FABSWEEP to the fabsweep binary}" "${SRCDIR:?set SRCDIR to the source tree}"
if [[ $EUID -ne 0 ]]; then
	echo "FAIL: test_roce_fabric needs root (network namespaces); CI runs it as root"
	exit 1
fi
for tool in ip lldpd lldpcli sqlite3 xmllint dcb; do
	command -v "$tool" >/dev/null || { echo "FAIL: '$tool' is missing (scripts/deps.sh installs it)"; exit 1; }
done

pfx=fr$$                     # namespace prefix, unique per run
work=$(mktemp -d)
chmod 0755 "$work"            # lldpd runs lldpcli as _lldpd: it must reach the sockets
pids=()
namespaces=()
source "$SRCDIR/tests/integration/checks.sh" # daemons_stop
cleanup() {
	local ns
	daemons_stop "${pids[@]}"
	for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done
	# ROCE_FABRIC_KEEP_DB=PATH keeps the merged snapshot (to try queries on)
	[[ -n ${ROCE_FABRIC_KEEP_DB:-} && -f $work/fabric.db ]] && cp "$work/fabric.db" "$ROCE_FABRIC_KEEP_DB"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# compare NAME EXPECTED ACTUAL
compare() {
	if [[ "$2" == "$3" ]]; then ok; else
		bad "$1"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/    /' | head -40
	fi
}
q() { sqlite3 -readonly "$1" "$2"; }

spines=(spine1 spine2)
leaves=(leaf1 leaf2 leaf3 leaf4)
hosts=(host1 host2 host3 host4 host5 host6 host7 host8 host9 host10 host11 host12)
ecn_hosts=(host9 host10 host11 host12) # collect from their own sysfs roots
systems=("${spines[@]}" "${leaves[@]}" "${hosts[@]}")

ns() { echo "$pfx-$1"; }
for s in "${systems[@]}" mgmt; do
	ip netns add "$(ns "$s")" || { bad "ip netns add $(ns "$s")"; exit 1; }
	namespaces+=("$(ns "$s")")
	ip -n "$(ns "$s")" link set lo up
done

# IEEE 802.1Qaz information strings (after OUI and subtype), as lldpcli wants them.
PFC3=08,08  # willing 0, MBC 0, cap 8; PFC on priority 3
PFC4=08,10  # ... on priority 4
APP=00,63,12,b7,65,00,1a   # UDP 4791 -> 3, DSCP 26 -> 3
APP_NO_UDP=00,65,00,1a     # DSCP 26 -> 3 only
ETS=00,00,03,00,00,32,00,00,32,00,00,00,00,02,00,00,02,00,00,00,00 # prio 3 on TC3; TC0/TC3 50/50 ETS

# What the test configures, kept to compare with what comes back: each
# interface's MAC (02:fa:...), its peer, the TLVs it sends (hex).
declare -A conf links_of mac_of peer_of tlvs_of
tlv() { # system ifname subtype info
	conf[$1]+="configure ports $2 lldp custom-tlv add oui 00,80,c2 subtype $3 oui-info $4"$'\n'
	tlvs_of[$1:$2]+="$3 ${4//,/}"$'\n'
}
n_macs=0
link() { # sysA ifA sysB ifB
	local ma mb
	ma=$(printf '02:fa:00:00:%02x:%02x' $((n_macs / 256)) $((n_macs % 256)))
	mb=$(printf '02:fa:00:00:%02x:%02x' $(((n_macs + 1) / 256)) $(((n_macs + 1) % 256)))
	n_macs=$((n_macs + 2))
	ip link add "$2" netns "$(ns "$1")" address "$ma" mtu 9000 type veth \
		peer name "$4" netns "$(ns "$3")" address "$mb" mtu 9000 || { bad "veth $1:$2 - $3:$4"; exit 1; }
	ip -n "$(ns "$1")" link set "$2" up
	ip -n "$(ns "$3")" link set "$4" up
	links_of[$1]+="$2 "
	links_of[$3]+="$4 "
	mac_of[$1:$2]=$ma mac_of[$3:$4]=$mb peer_of[$1:$2]=$3:$4 peer_of[$3:$4]=$1:$2
	# expected adjacency, the end whose (system, ifname) sorts first as a
	if [[ "$1:$2" < "$3:$4" ]]; then expected_links+="$1:$2 $3:$4 11"$'\n'
	else expected_links+="$3:$4 $1:$2 11"$'\n'; fi
}
expected_links=""
for l in 1 2 3 4; do
	link spine1 "swp$l" "leaf$l" swp51
	link spine2 "swp$l" "leaf$l" swp52
	link "leaf$l" swp1 "host$((2 * l - 1))" eth0
	link "leaf$l" swp2 "host$((2 * l))" eth0
done
link leaf2 swp3 host5 eth1
link leaf1 swp3 host9 eth0
link leaf2 swp4 host10 eth0
link leaf3 swp3 host11 eth0
link leaf4 swp3 host12 eth0
ip -n "$(ns host7)" link set eth0 mtu 1500     # host7: MTU 1500 on a 9000 fabric

# What each port advertises.
for s in "${spines[@]}"; do
	for i in ${links_of[$s]}; do tlv "$s" "$i" 11 $PFC3; tlv "$s" "$i" 9 $ETS; done
done
for s in "${leaves[@]}"; do
	for i in ${links_of[$s]}; do
		[[ $s:$i == leaf2:swp3 ]] || tlv "$s" "$i" 11 $PFC3   # leaf2 -> host5: no PFC
		tlv "$s" "$i" 9 $ETS
		[[ $i == swp5* ]] || tlv "$s" "$i" 12 $APP
	done
done
for s in "${hosts[@]}"; do
	for i in ${links_of[$s]}; do
		if [[ $s == host3 ]]; then tlv "$s" "$i" 11 $PFC4; else tlv "$s" "$i" 11 $PFC3; fi
		tlv "$s" "$i" 9 $ETS
		if [[ $s == host6 ]]; then tlv "$s" "$i" 12 $APP_NO_UDP; else tlv "$s" "$i" 12 $APP; fi
	done
done

# One lldpd per namespace; its configuration is applied before it sends anything.
declare -A addr_of caps_of
TTL=4 # tx-interval 1 s times tx-hold 4
n=0
for s in "${systems[@]}"; do
	n=$((n + 1))
	addr=192.0.2.$n
	addr_of[$s]=$addr
	caps_of[$s]=station # lldpd's default for a host
	[[ $s == host* ]] || caps_of[$s]=bridge,router
	ip -n "$(ns "$s")" addr add "$addr/32" dev lo
	{
		echo "configure system hostname $s"
		echo "configure system description \"fabsweep test $s\""
		echo "configure lldp tx-interval 1"
		echo "configure lldp tx-hold 4"
		[[ $s == host* ]] || echo "configure system capabilities enabled bridge,router"
		printf '%s' "${conf[$s]}"
	} >"$work/$s.conf"
	chmod 0644 "$work/$s.conf" # lldpcli reads it as _lldpd (the umask may be 077)
	ip netns exec "$(ns "$s")" lldpd "${LLDPD_LOG_OPTS[@]}" -u "$work/$s.sock" -O "$work/$s.conf" \
		-I 'eth*,swp*' -m "$addr" >"$work/$s.log" 2>&1 &
	pids+=($!)
done

# Wait (bounded) until every daemon hears all its neighbours.
declare -A want_nb
for s in "${systems[@]}"; do set -- ${links_of[$s]}; want_nb[$s]=$#; done
converged=0
for _ in $(seq 150); do
	converged=1
	for s in "${systems[@]}"; do
		got=$(lldpcli -u "$work/$s.sock" -f keyvalue show neighbors 2>/dev/null |
			grep -c '^lldp\.[^.]*\.chassis\.name=')
		[[ $got == "${want_nb[$s]}" ]] || { converged=0; break; }
	done
	((converged)) && break
	sleep 0.2
done
if ((converged)); then ok; else
	bad "LLDP did not converge in 30 s ($s heard $got of ${want_nb[$s]} neighbours)"
	lldpd_report "$(ns "$s")" "$work/$s.sock" "$work/$s.log"
	exit 1
fi

# The ECN hosts' sysfs roots: eth0 as their namespace shows it, and the ecn
# directory of a real NIC (or none, host12), changed where the fault is.
for s in "${ecn_hosts[@]}"; do
	d=$work/sysfs/$s/class/net/eth0
	mkdir -p "$d"
	for a in address mtu operstate speed type; do
		ip netns exec "$(ns "$s")" cat "/sys/class/net/eth0/$a" >"$d/$a" 2>/dev/null
	done
	[[ $s == host12 ]] || cp -R "$SRCDIR/fixtures/sysfs/procfs/class/net/eth0/ecn" "$d/ecn" ||
		{ bad "copy the ecn fixture for $s"; exit 1; }
done
echo 0 >"$work/sysfs/host10/class/net/eth0/ecn/roce_np/enable/3"
echo 46 >"$work/sysfs/host11/class/net/eth0/ecn/roce_np/cnp_dscp"

# collect on every system, merge.
mkdir -p "$work/c"
for s in "${systems[@]}"; do
	root=()
	[[ " ${ecn_hosts[*]} " == *" $s "* ]] && root=(--sysfs-root "$work/sysfs/$s")
	ip netns exec "$(ns "$s")" "$FABSWEEP" collect --quiet --out "$work/c/$s.db" \
		--lldp-socket "$work/$s.sock" "${root[@]}" 2>"$work/$s.collect.err"
	rc=$?
	[[ $rc == 0 ]] && ok || { bad "collect on $s: exit $rc: $(cat "$work/$s.collect.err")"; }
done
db=$work/fabric.db
"$FABSWEEP" merge --quiet --db "$db" "$work"/c/*.db
rc=$?
[[ $rc == 0 ]] && ok || bad "merge: exit $rc"

expected_links=$(printf '%s' "$expected_links" | LC_ALL=C sort)
links_sql="SELECT a_system||':'||a_ifname||' '||b_system||':'||b_ifname||' '||a_heard_b||b_heard_a
	FROM eth_links WHERE scan_id = (SELECT max(scan_id) FROM scans) ORDER BY 1"
compare "adjacencies (21 links, each heard from both ends)" "$expected_links" "$(q "$db" "$links_sql")"

expected_roles=$(for s in "${systems[@]}"; do
	case $s in host*) r=host ;; leaf*) r=leaf ;; *) r=spine ;; esac
	echo "$s $r 1"
done | LC_ALL=C sort)
compare "systems and roles" "$expected_roles" \
	"$(q "$db" "SELECT system||' '||role||' '||collected FROM systems ORDER BY 1")"

# What each port advertises, as the test configured it (PFC TLV 08,08 is
# willing 0, MBC 0, capability 8, priority 3; 08,10 priority 4).
adv() { # system ifname: "pfc=... app=..."
	local pfc=8 app=udp:4791=3,dscp:26=3
	[[ $1 == host3 ]] && pfc=16
	[[ $1:$2 == leaf2:swp3 ]] && pfc=none
	[[ $1 == host6 ]] && app=dscp:26=3
	[[ $1 == spine* || $2 == swp5* ]] && app=none
	echo "pfc=$pfc app=$app"
}
expected_ports=$(for s in "${systems[@]}"; do for i in ${links_of[$s]}; do
	mtu=9000; [[ $s:$i == host7:eth0 ]] && mtu=1500
	echo "$s:$i mtu=$mtu $(adv "$s" "$i")"
done; done | LC_ALL=C sort)
compare "MTU, PFC bitmap and application entries per port" "$expected_ports" \
	"$(q "$db" "SELECT system||':'||ifname||' mtu='||mtu||' pfc='||ifnull(pfc_enabled,'none')||
		' app='||ifnull(app_entries,'none') FROM eth_ports ORDER BY 1")"
compare "PFC TLV fields per port: willing 0, MBC 0, capability 8 as configured (none where none is sent)" \
	"$(echo "$expected_ports" | sed -E 's/ mtu=[0-9]+//; s/ app=.*//; s/pfc=none$/none/; s/pfc=[0-9]+$/0|0|8/')" \
	"$(q "$db" "SELECT system||':'||ifname||' '||ifnull(lldp_pfc_willing||'|'||lldp_pfc_mbc||'|'||lldp_pfc_cap,
		'none') FROM eth_ports ORDER BY 1")"
compare "PFC comes from LLDP, no stubs" "$(printf '%s\n' "lldp|0|$(echo "$expected_ports" | grep -vc pfc=none)")" \
	"$(q "$db" "SELECT group_concat(DISTINCT pfc_source), sum(stub), count(pfc_enabled) FROM eth_ports")"
# ETS as every port sends it (00,00,03,00,00,32,...): willing 0, max TCs 0 (8),
# priority 3 on TC3, the others on TC0, TC0 and TC3 50 % each by ETS, the rest strict.
compare "ETS per port, decoded from what it sends" \
	"$(for s in "${systems[@]}"; do for i in ${links_of[$s]}; do
		echo "$s:$i 0|8|0,0,0,3,0,0,0,0|50,0,0,50,0,0,0,0|ets,strict,strict,ets,strict,strict,strict,strict"
	done; done | LC_ALL=C sort)" \
	"$(q "$db" "SELECT system||':'||ifname||' '||lldp_ets_willing||'|'||lldp_ets_max_tcs||'|'||lldp_ets_prio_tc||'|'||
		lldp_ets_tc_bw||'|'||lldp_ets_tsa FROM eth_ports ORDER BY 1")"
# The TLVs themselves: what each port sends (lldpd's own ports) and what its
# peer heard, byte for byte the oui-info the test gave lldpcli.
compare "802.1 TLVs sent and heard, byte for byte as configured" \
	"$(for s in "${systems[@]}"; do for i in ${links_of[$s]}; do
		while read -r st hex; do
			[[ -n $st ]] || continue
			echo "neighbor ${peer_of[$s:$i]} $st $hex"
			echo "port $s:$i $st $hex"
		done <<<"${tlvs_of[$s:$i]}"
	done; done | LC_ALL=C sort)" \
	"$(q "$db" "SELECT owner||' '||system||':'||ifname||' '||subtype||' '||lower(hex(info)) FROM lldp_tlvs
		ORDER BY 1")"

# Identities, from what the test configured (MACs, addresses, descriptions,
# capabilities, TTL) and, for the chassis id lldpd picks among the system's
# MACs, from lldpcli asking the same daemon.
declare -A chassis_of
for s in "${systems[@]}"; do
	chassis_of[$s]=$(lldpcli -u "$work/$s.sock" -f keyvalue show chassis |
		sed -n 's/^local-chassis\.chassis\.mac=//p')
	mine=" "
	for i in ${links_of[$s]}; do mine+="${mac_of[$s:$i]} "; done
	[[ $mine == *" ${chassis_of[$s]} "* ]] && ok ||
		bad "lldpcli: $s's chassis id '${chassis_of[$s]}' is none of its MACs ($mine)"
done
compare "MAC, LLDP port id and description per port, as configured" \
	"$(for s in "${systems[@]}"; do for i in ${links_of[$s]}; do
		echo "$s:$i mac=${mac_of[$s:$i]} id=${mac_of[$s:$i]}/mac descr=$i"
	done; done | LC_ALL=C sort)" \
	"$(q "$db" "SELECT system||':'||ifname||' mac='||ifnull(mac,'-')||' id='||ifnull(port_id,'-')||'/'||
		ifnull(port_id_subtype,'-')||' descr='||ifnull(port_descr,'-') FROM eth_ports ORDER BY 1")"
compare "systems: chassis id (lldpcli), description, management address and capabilities as configured" \
	"$(for s in "${systems[@]}"; do
		echo "$s ${chassis_of[$s]}/mac fabsweep test $s|${addr_of[$s]}|${caps_of[$s]}"
	done | LC_ALL=C sort)" \
	"$(q "$db" "SELECT system||' '||chassis_id||'/'||chassis_id_subtype||' '||description||'|'||mgmt_address||'|'||
		capabilities FROM systems ORDER BY 1")"
# What the neighbours heard: the same facts, seen from the other end.
compare "every neighbour record: its peer's identity and what the peer advertises" \
	"$(for s in "${systems[@]}"; do for i in ${links_of[$s]}; do
		p=${peer_of[$s:$i]}
		t=${p%%:*} j=${p#*:}
		echo "$s:$i $p ${chassis_of[$t]} ${mac_of[$p]}/mac $j fabsweep test $t|${addr_of[$t]}|${caps_of[$t]}|ttl=$TTL|$(adv "$t" "$j")|1|0"
	done; done | LC_ALL=C sort)" \
	"$(q "$db" "SELECT system||':'||ifname||' '||neighbor_system||':'||ifnull(neighbor_ifname,'-')||' '||
		chassis_id||' '||neighbor_port_id||'/'||neighbor_port_id_subtype||' '||neighbor_port_descr||' '||
		neighbor_descr||'|'||mgmt_address||'|'||capabilities||'|ttl='||ttl||'|pfc='||
		ifnull(pfc_enabled,'none')||' app='||ifnull(app_entries,'none')||'|'||neighbor_collected||'|'||bad_tlvs
		FROM lldp_neighbors ORDER BY 1")"
# DCB as the kernel answers it, asked again with iproute2's dcb per interface
# (veth has none: EOPNOTSUPP); the ECN hosts collected from sysfs roots of
# their own, where DCB is not queried (NULL).
compare "DCB status per port, as dcb (iproute2) finds it" \
	"$(for s in "${systems[@]}"; do for i in ${links_of[$s]}; do
		if [[ " ${ecn_hosts[*]} " == *" $s "* ]]; then st=not-queried
		elif ip netns exec "$(ns "$s")" dcb pfc show dev "$i" >/dev/null 2>"$work/dcb.err"; then st=ok
		elif grep -q "Operation not supported" "$work/dcb.err"; then st=unsupported
		else st="error: $(cat "$work/dcb.err")"; fi
		echo "$s:$i $st"
	done; done | LC_ALL=C sort)" \
	"$(q "$db" "SELECT system||':'||ifname||' '||ifnull(dcb_status, 'not-queried') FROM eth_ports ORDER BY 1")"
compare "what the leaves heard from their hosts" \
	"leaf1:swp1 host1:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf1:swp2 host2:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf1:swp3 host9:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf2:swp1 host3:eth0 pfc=16 app=udp:4791=3,dscp:26=3
leaf2:swp2 host4:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf2:swp3 host5:eth1 pfc=8 app=udp:4791=3,dscp:26=3
leaf2:swp4 host10:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf3:swp1 host5:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf3:swp2 host6:eth0 pfc=8 app=dscp:26=3
leaf3:swp3 host11:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf4:swp1 host7:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf4:swp2 host8:eth0 pfc=8 app=udp:4791=3,dscp:26=3
leaf4:swp3 host12:eth0 pfc=8 app=udp:4791=3,dscp:26=3" \
	"$(q "$db" "SELECT system||':'||ifname||' '||neighbor_system||':'||neighbor_ifname||' pfc='||
		ifnull(pfc_enabled,'none')||' app='||ifnull(app_entries,'none') FROM lldp_neighbors
		WHERE system LIKE 'leaf%' AND neighbor_system LIKE 'host%' ORDER BY 1")"
compare "host5 heard no PFC from leaf2" "leaf2|none|udp:4791=3,dscp:26=3|bridge,router" \
	"$(q "$db" "SELECT neighbor_system, ifnull(pfc_enabled,'none'), app_entries, capabilities
		FROM lldp_neighbors WHERE system='host5' AND ifname='eth1'")"
# ECN as each NIC's sysfs has it, worked out from the files the collector
# read (roce_np/enable/<k> and roce_rp/enable/<k> set bit k; host10's
# notification point was switched off on 3, host11 sends CNPs with DSCP 46),
# unknown (NULL) where there is no ecn directory (host12) or no sysfs root (host1).
bitmap() { local b=0 k; for k in 0 1 2 3 4 5 6 7; do (($(cat "$1/$k") == 1)) && b=$((b | 1 << k)); done; echo $b; }
compare "ECN and CNP settings per host, as their sysfs files say" \
	"$(for s in host1 "${ecn_hosts[@]}"; do
		e=$work/sysfs/$s/class/net/eth0/ecn
		if [[ -d $e ]]; then
			echo "$s|$(bitmap "$e/roce_np/enable")|$(bitmap "$e/roce_rp/enable")|$(cat "$e/roce_np/cnp_dscp")|$(cat "$e/roce_np/cnp_802p_prio")"
		else echo "$s|-|-|-|-"; fi
	done | LC_ALL=C sort -t'|' -k1,1)" \
	"$(q "$db" "SELECT system, ifnull(ecn_np_enabled, '-'), ifnull(ecn_rp_enabled, '-'),
		ifnull(cnp_dscp, '-'), ifnull(cnp_priority, '-') FROM eth_ports
		WHERE ifname = 'eth0' AND system IN ('host1', 'host9', 'host10', 'host11', 'host12')
		ORDER BY 1")"
compare "host10's notification point differs from host9's by priority 3 only" "8" \
	"$(q "$db" "SELECT (SELECT ecn_np_enabled FROM eth_ports WHERE system = 'host9') -
		(SELECT ecn_np_enabled FROM eth_ports WHERE system = 'host10')")"
compare "trust is unknown without DCB (veth; DCB is not read with --sysfs-root)" "0" \
	"$(q "$db" "SELECT count(trust) FROM eth_ports")"
compare "merged scan is complete" "complete|0|merge:18 files" \
	"$(q "$db" "SELECT status, (SELECT count(*) FROM scan_errors e WHERE e.scan_id=s.scan_id), source
		FROM scans s")"

# The rules on the merged fabric: the findings at warning or above are exactly
# the injected faults, one line per (rule, system, interface); anything extra
# or missing fails. host3's PFC on 4 is both "not on the RoCE priority" and
# "the ends differ"; leaf2's port to host5 advertises no PFC while its other
# ports do; host7 runs MTU 1500; host6 has no UDP 4791 entry. veth has no DCB,
# no RDMA device and no PCIe: the rules judge it from LLDP and sysfs alone
# (docs/rules/*.md), and hosts are recognised by their LLDP capabilities.
"$FABSWEEP" check --db "$db" >"$work/check.out" 2>"$work/check.err"
rc=$?
[[ $rc == 1 ]] && ok || bad "check on the merged fabric: exit $rc, want 1 (errors found): $(cat "$work/check.err")"
expected_findings="roce.cnp_mismatch host11 eth0
roce.dscp_mapping host6 eth0
roce.ecn_disabled host10 eth0
roce.mtu_mismatch host7 eth0
roce.pfc_disabled host3 eth0
roce.pfc_disabled leaf2 swp3
roce.pfc_mismatch host3 eth0"
expected_findings=$(printf '%s\n' "$expected_findings" | LC_ALL=C sort)
compare "findings at warning or above are exactly the injected faults" "$expected_findings" \
	"$(q "$db" "SELECT rule_id||' '||node||' '||port FROM findings
		WHERE scan_id = (SELECT max(scan_id) FROM scans) AND severity IN ('warning', 'error')
		ORDER BY 1" | LC_ALL=C sort)"
compare "RoCE findings name the other end of the link" "host3/eth0 <-> leaf2/swp1|leaf2/swp3 <-> host5/eth1" \
	"$(q "$db" "SELECT group_concat(subject, '|') FROM (SELECT subject FROM findings
		WHERE rule_id = 'roce.pfc_disabled' ORDER BY subject)")"
grep -q "^skipped roce.congestion: needs a baseline" "$work/check.out" && ok ||
	bad "check without a baseline does not say why roce.congestion was skipped: $(cat "$work/check.out")"
grep -q "^skipped roce.trust_mismatch: no NIC's trust state is known" "$work/check.out" && ok ||
	bad "check does not say why roce.trust_mismatch was skipped (no DCB anywhere): $(cat "$work/check.out")"
compare "the ECN findings name the fault" \
	"CNPs are sent with DSCP 46 (2 of 3 RoCE interfaces use 48)|ECN is off on the RoCE priority 3, where PFC is on: notification point (CNPs) off" \
	"$(q "$db" "SELECT group_concat(message, '|') FROM (SELECT message FROM findings
		WHERE rule_id IN ('roce.ecn_disabled', 'roce.cnp_mismatch') ORDER BY rule_id)")"
# The reports show it: the XML (valid against its schema) has the ECN hosts'
# settings, the Prometheus file their bitmaps; unknown stays absent.
"$FABSWEEP" report --db "$db" --xml "$work/r.xml" --html "$work/r.html" >/dev/null 2>"$work/report.err" && ok ||
	bad "report on the merged fabric: $(cat "$work/report.err")"
xmllint --noout --schema "$SRCDIR/docs/fabsweep-report.xsd" "$work/r.xml" 2>"$work/xsd.err" && ok ||
	bad "the report is not valid against docs/fabsweep-report.xsd: $(head -5 "$work/xsd.err")"
grep -q '<roce-port system="host10" ifname="eth0" ecn-np-enabled="211" ecn-rp-enabled="91" cnp-dscp="48" cnp-priority="6" worst-severity="warning"/>' "$work/r.xml" && ok ||
	bad "the XML report has no roce-port for host10: $(grep -o '<roce-port system="host10"[^>]*>' "$work/r.xml")"
grep -q "<h3>RoCE congestion control</h3>" "$work/r.html" && ok || bad "the HTML report has no congestion control table"
"$FABSWEEP" export prometheus --db "$db" --out "$work/f.prom" >/dev/null 2>"$work/prom.err" && ok ||
	bad "export prometheus: $(cat "$work/prom.err")"
compare "Prometheus: ECN bitmaps of the hosts that expose them" \
	"fabsweep_eth_port_ecn_np_bitmap{system=\"host10\",ifname=\"eth0\"} 211
fabsweep_eth_port_ecn_np_bitmap{system=\"host11\",ifname=\"eth0\"} 219
fabsweep_eth_port_ecn_np_bitmap{system=\"host9\",ifname=\"eth0\"} 219" \
	"$(grep '^fabsweep_eth_port_ecn_np_bitmap' "$work/f.prom" | LC_ALL=C sort)"
# the Ethernet and RDMA families pass Prometheus' own checker too (base units)
if command -v promtool >/dev/null; then
	promtool check metrics <"$work/f.prom" >"$work/promtool.out" 2>&1 && ok ||
		bad "promtool check metrics on the RoCE export: $(head -5 "$work/promtool.out")"
	grep -q '^fabsweep_eth_port_speed_bytes_per_second{' "$work/f.prom" && ok ||
		bad "no fabsweep_eth_port_speed_bytes_per_second in the RoCE export"
else
	bad "promtool is missing (scripts/deps.sh installs the prometheus package)"
fi

# A file that is not a snapshot: recorded, the rest still merged, exit 4.
echo "not a database" >"$work/bogus.db"
"$FABSWEEP" merge --quiet --db "$work/partial.db" "$work"/c/*.db "$work/bogus.db" 2>/dev/null
rc=$?
[[ $rc == 4 ]] && ok || bad "merge with a bad file: exit $rc, want 4 (partial)"
compare "partial merge keeps the fabric" "$expected_links" "$(q "$work/partial.db" "$links_sql")"
compare "partial merge says why" "merge|1" \
	"$(q "$work/partial.db" "SELECT what, instr(message, 'bogus.db') > 0 FROM scan_errors")"

# One scan reading all 18 lldpd sockets directly, from a namespace of its own.
socks=()
for s in "${systems[@]}"; do socks+=(--lldp-socket "$work/$s.sock"); done
ip netns exec "$(ns mgmt)" "$FABSWEEP" scan --quiet --no-ib --db "$work/multi.db" "${socks[@]}"
rc=$?
[[ $rc == 0 ]] && ok || bad "scan --no-ib with 18 sockets: exit $rc"
compare "multi-socket scan: same adjacencies" "$expected_links" "$(q "$work/multi.db" "$links_sql")"
compare "multi-socket scan: PFC bitmap and application entries per port, as configured" \
	"$(echo "$expected_ports" | sed -E 's/ mtu=[0-9]+//')" \
	"$(q "$work/multi.db" "SELECT system||':'||ifname||' pfc='||ifnull(pfc_enabled,'none')||
		' app='||ifnull(app_entries,'none') FROM eth_ports WHERE lldp = 1 ORDER BY 1")"
# Its rules see what LLDP shows: the same PFC and APP faults; MTUs and ECN
# are sysfs facts of each machine, unknown to a scan that only reads their
# lldpd, so host7's MTU goes unreported rather than guessed, and the ECN
# rules are skipped.
"$FABSWEEP" check --quiet --db "$work/multi.db" >/dev/null 2>"$work/multi.check.err"
rc=$?
[[ $rc == 1 ]] && ok || bad "check on the multi-socket scan: exit $rc, want 1: $(cat "$work/multi.check.err")"
compare "multi-socket scan: the faults LLDP shows, nothing else" \
	"$(printf '%s\n' "$expected_findings" | grep -Ev 'mtu_mismatch|ecn_disabled|cnp_mismatch')" \
	"$(q "$work/multi.db" "SELECT rule_id||' '||node||' '||port FROM findings
		WHERE severity IN ('warning', 'error') ORDER BY 1" | LC_ALL=C sort)"
compare "multi-socket scan: same roles (and the scanning machine)" \
	"$(printf '%s\n%s' "$expected_roles" "$(hostname) unknown 1" | LC_ALL=C sort)" \
	"$(q "$work/multi.db" "SELECT system||' '||role||' '||collected FROM systems ORDER BY 1")"

# Without --no-ib, a machine with no InfiniBand device skips IB with a note.
ip netns exec "$(ns mgmt)" "$FABSWEEP" scan --db "$work/noib.db" --lldp-socket "$work/leaf1.sock" \
	>"$work/noib.out" 2>"$work/noib.err"
rc=$?
[[ $rc == 0 ]] && ok || bad "scan on a machine without IB: exit $rc: $(cat "$work/noib.err")"
grep -q "InfiniBand part skipped" "$work/noib.err" && ok || bad "no note that IB was skipped"
compare "IB-less scan records the LLDP view (leaf1's 5 links)" "5" "$(q "$work/noib.db" "SELECT count(*) FROM eth_links")"

echo "roce_fabric: $pass passed, $fail failed"
((fail == 0))
