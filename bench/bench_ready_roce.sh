#!/usr/bin/env bash
# bench_ready_roce.sh - how long `fabsweep ready --local` takes on a RoCE
# host with 8 NICs, beside reading the same facts by hand.
#
# A host and a leaf in two network namespaces, 8 veth pairs between them
# (the host's eth0..eth7, the leaf's swp1..swp8, MTU 9000), a real lldpd in
# each advertising PFC, ETS and APP on every port. The host's 8 NICs are the
# RoCE device of the real mlx5 tree fixtures/sysfs/h100_roce copied 8 times
# (mlx5_0..mlx5_7 on eth0..eth7, each with its counters, hw_counters, PCIe
# attributes and the real ECN directory of fixtures/sysfs/procfs), its DCB
# the replies tests/tools/dcb_reply.py builds (--dcb-dir: veth has no DCB),
# its NIC statistics a real ConnectX-4 Lx's `ethtool -S` (fixtures/ethtool,
# 751 statistics; --ethtool-dir: a veth has none of a NIC's counters).
# Both collect, merge writes the host's extract (--ready-dir); then RUNS
# timed runs of `ready --local` against it inside the host's namespace (one
# warm-up first): wall time from fork to exit, the process's CPU time, and
# fabsweep's own phases (--verbose: loading the extract, reading the host,
# judging). Beside it, the same facts read by hand, as an operator without
# fabsweep would (mlnx_qos-like): per NIC `dcb pfc show`, `dcb ets show`,
# `dcb app show`, `lldpcli show neighbors ports IF`, `ethtool -S IF` (on the
# veth: the process and the ioctls, not a NIC's 751 lines), and one `cat` per
# sysfs file ready reads; median of 3. Then the same runs of ready with
# --no-ethtool, for what the NIC statistics cost.
#
# Target: under 100 ms of wall time per node.
#
# Usage: bench/bench_ready_roce.sh [--runs N] [--nics N] [--strict]
# Needs root (network namespaces), lldpd, iproute2's dcb, ethtool, sqlite3, python3.
# Environment: FABSWEEP (default: build/, else build/release/, next to this script).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
source "$here/tools.sh" # FABSWEEP
runs=21 nics=8 strict=0
while (($#)); do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--nics) nics=$2; shift 2 ;;
	--strict) strict=1; shift ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench_ready_roce: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[[ $EUID -eq 0 ]] || { echo "bench_ready_roce: needs root (network namespaces)" >&2; exit 2; }
for t in ip lldpd lldpcli dcb ethtool sqlite3 python3; do
	command -v "$t" >/dev/null || { echo "bench_ready_roce: '$t' is missing (scripts/deps.sh)" >&2; exit 2; }
done
[[ -x $FABSWEEP ]] || { echo "bench_ready_roce: no fabsweep at $FABSWEEP (build first)" >&2; exit 2; }

work=$(mktemp -d)
chmod 0755 "$work"
pfx=brr$$
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	ip netns del "$pfx-h" 2>/dev/null
	ip netns del "$pfx-l" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$pfx-h" && ip netns add "$pfx-l" || exit 1
PFC3=08,08 APP=00,63,12,b7,65,00,1a ETS=00,00,03,00,00,32,00,00,32,00,00,00,00,02,00,00,02,00,00,00,00
: >"$work/h.conf"
: >"$work/l.conf"
for ((k = 0; k < nics; k++)); do
	ip link add "eth$k" netns "$pfx-h" mtu 9000 type veth peer name "swp$((k + 1))" netns "$pfx-l" mtu 9000
	ip -n "$pfx-h" link set "eth$k" up
	ip -n "$pfx-l" link set "swp$((k + 1))" up
	for x in "h eth$k" "l swp$((k + 1))"; do
		read -r s i <<<"$x"
		printf 'configure ports %s lldp custom-tlv add oui 00,80,c2 subtype %s oui-info %s\n' \
			"$i" 11 "$PFC3" "$i" 9 "$ETS" "$i" 12 "$APP" >>"$work/$s.conf"
	done
done
echo "configure system hostname rocehost" >>"$work/h.conf"
printf '%s\n' "configure system hostname leaf1" "configure system capabilities enabled bridge,router" >>"$work/l.conf"
for s in h l; do
	echo "configure lldp tx-interval 1" >>"$work/$s.conf"
	chmod 0644 "$work/$s.conf"
	ip netns exec "$pfx-$s" lldpd -d -u "$work/$s.sock" -O "$work/$s.conf" -I 'eth*,swp*' >"$work/$s.log" 2>&1 &
	pids+=($!)
done
for _ in $(seq 300); do
	[[ $(lldpcli -u "$work/h.sock" -f keyvalue show neighbors 2>/dev/null | grep -c '\.chassis\.name=') == "$nics" ]] && break
	sleep 0.1
done

# The host's sysfs: 8 copies of the fixture's RoCE device, healthy PCIe.
R=$src/fixtures/sysfs/h100_roce
d=$work/sys
mkdir -p "$d/class/infiniband" "$d/class/net" "$work/dcb"
for ((k = 0; k < nics; k++)); do
	n=$d/class/net/eth$k
	mkdir -p "$n"
	for a in address mtu operstate speed type; do
		ip netns exec "$pfx-h" cat "/sys/class/net/eth$k/$a" >"$n/$a" 2>/dev/null
	done
	cp -R "$src/fixtures/sysfs/procfs/class/net/eth0/ecn" "$n/ecn"
	pci=devices/pci0000:80/0000:80:01.0/0000:9a:00.$k
	mkdir -p "$d/$pci"
	cp "$R/devices/pci0000:80/0000:80:01.0/0000:9a:00.0/"*_link_* "$d/$pci/"
	echo "32.0 GT/s PCIe" >"$d/$pci/current_link_speed"
	echo 16 >"$d/$pci/current_link_width"
	cp -R "$R/class/infiniband/mlx5_bond_0" "$d/class/infiniband/mlx5_$k"
	ln -sfn "../../../$pci" "$d/class/infiniband/mlx5_$k/device"
	echo "eth$k" >"$d/class/infiniband/mlx5_$k/ports/1/gid_attrs/ndevs/0"
	echo "a088:c203:000d:4e2$k" >"$d/class/infiniband/mlx5_$k/node_guid"
	python3 "$src/tests/tools/dcb_reply.py" "eth$k" "$work/dcb/eth$k.bin" --pfc 0x08 --apps udp:4791=3,dscp:26=3
	mkdir -p "$work/eth"
	echo "driver: mlx5_core" >"$work/eth/eth$k.info"
	cp "$src/fixtures/ethtool/mlx5_connectx4lx.stats" "$work/eth/eth$k.stats"
done
opts=(--lldp-socket "$work/h.sock" --sysfs-root "$d" --dcb-dir "$work/dcb" --ethtool-dir "$work/eth")
mkdir -p "$work/ready"
ip netns exec "$pfx-h" "$FABSWEEP" collect --quiet --out "$work/h.db" "${opts[@]}" || exit 1
ip netns exec "$pfx-l" "$FABSWEEP" collect --quiet --out "$work/l.db" --lldp-socket "$work/l.sock" || exit 1
"$FABSWEEP" merge --quiet --db "$work/fabric.db" --ready-dir "$work/ready" "$work/h.db" "$work/l.db" || exit 1
x=$work/ready/rocehost.db

# ready --local: RUNS timed runs in the host's namespace (entered once)
timed() { # OUT [more options]
	local out=$1
	shift
	ip netns exec "$pfx-h" bash -c '
		f=$1 x=$2 runs=$3 v=$4; shift 4
		"$f" ready --local --db "$x" "$@" >/dev/null 2>&1 # warm-up
		for ((i = 0; i < runs; i++)); do
			t0=$(date +%s%N)
			"$f" ready --local --db "$x" --quiet --verbose "$@" 2>"$v" >/dev/null
			rc=$?
			t1=$(date +%s%N)
			echo "$(( (t1 - t0) / 1000 )) $rc $(cat "$v")"
		done' bench "$FABSWEEP" "$x" "$runs" "$work/verbose" "${opts[@]}" "$@" >"$out" 2>&1
}
timed "$work/runs"
timed "$work/runs.noeth" --no-ethtool
ip netns exec "$pfx-h" "$FABSWEEP" ready --local --db "$x" "${opts[@]}" >"$work/verdict" 2>&1
rc=$?
n_nic=$(sqlite3 "$x" "SELECT count(*) FROM nic_counters")

# by hand: every fact ready reads, one tool or cat at a time
files=()
for ((k = 0; k < nics; k++)); do
	dev=$d/class/infiniband/mlx5_$k
	pci=$d/devices/pci0000:80/0000:80:01.0/0000:9a:00.$k
	files+=("$dev"/{node_guid,fw_ver,hca_type,board_id} "$dev"/ports/1/{state,phys_state,rate,link_layer}
		"$dev/ports/1/gid_attrs/ndevs/0" "$dev"/ports/1/counters/* "$dev"/ports/1/hw_counters/*
		"$pci"/{current_link_speed,current_link_width,max_link_speed,max_link_width}
		"$d/class/net/eth$k"/{address,mtu,operstate,speed,type}
		"$d/class/net/eth$k"/ecn/roce_np/enable/* "$d/class/net/eth$k"/ecn/roce_rp/enable/*
		"$d/class/net/eth$k"/ecn/roce_np/{cnp_dscp,cnp_802p_prio})
done
printf '%s\n' "${files[@]}" >"$work/files"
for _ in 1 2 3; do
	ip netns exec "$pfx-h" bash -c '
		sock=$1 nics=$2 list=$3
		t0=$(date +%s%N)
		for ((k = 0; k < nics; k++)); do
			for o in pfc ets app; do dcb "$o" show dev "eth$k"; done
			lldpcli -u "$sock" show neighbors ports "eth$k"
			ethtool -S "eth$k"
		done
		while read -r f; do cat "$f"; done <"$list"
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 )) >&3' bench "$work/h.sock" "$nics" "$work/files" 3>>"$work/hand" >/dev/null 2>&1
done

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
ms() { awk '{printf "%.1f", $1 / 1000}'; }
field() { # the value after a phrase of the --verbose line, per run [of FILE]
	sed -n "s/.*$1 \([0-9.]*\) ms.*/\1/p" "${2:-$work/runs}" | median
}
wall=$(awk '{print $1}' "$work/runs" | median | ms)
wmin=$(awk '{print $1}' "$work/runs" | sort -n | head -1 | ms)
wmax=$(awk '{print $1}' "$work/runs" | sort -n | tail -1 | ms)
cpu=$(sed -n 's/.*(CPU \([0-9.]*\) ms)$/\1/p' "$work/runs" | median)
own=$(sed -n 's/.*total \([0-9.]*\) ms.*/\1/p' "$work/runs" | median)
load=$(field "load the merge")
host=$(field "read this host")
judge=$(field "judge")
hand=$(median <"$work/hand" | ms)
echo "ready --local, $nics RoCE NICs (fixture sysfs, real lldpd, DCB replies), $runs runs, load $(cut -d' ' -f1-3 /proc/loadavg):"
echo "  verdict: exit $rc ($(tail -1 "$work/verdict"))"
echo "  wall, fork to exit: median $wall ms (min $wmin, max $wmax)"
echo "  fabsweep's own: total $own ms, CPU $cpu ms; load the extract $load ms, read the host $host ms, judge $judge ms (medians)"
echo "  extract: $(stat -c %s "$x") bytes ($n_nic NIC counters)"
echo "  --no-ethtool: wall median $(awk '{print $1}' "$work/runs.noeth" | median | ms) ms, CPU $(sed -n 's/.*(CPU \([0-9.]*\) ms)$/\1/p' "$work/runs.noeth" | median) ms, read the host $(field "read this host" "$work/runs.noeth") ms"
echo "by hand ($(wc -l <"$work/files") files by cat, $((nics * 3)) dcb, $nics lldpcli, $nics ethtool -S): median $hand ms"
echo "ratio: $(awk -v a="$wall" -v b="$hand" 'BEGIN {printf "%.3f", a / b}') (ready --local wall / by hand)"
if ((strict)) && awk -v w="$wall" 'BEGIN {exit !(w >= 100)}'; then
	echo "target missed: $wall ms >= 100 ms"
	exit 1
fi
