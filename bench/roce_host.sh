#!/usr/bin/env bash
# One real collected RoCE host file with 8 RDMA NICs, for the fleet
# benchmark (bench_merge.sh) and tests (tests/integration/test_roce_fleet.sh),
# which clone it into N hosts with bench/roce_clone.
#
#   bench/roce_host.sh --out FILE [--pfc4 NIC] [--ethtool]
#
# Builds two network namespaces, a host and a leaf, joined by 8 veth pairs
# (host eth0..eth7 <-> leaf swp1..swp8, MTU 9000), runs a real lldpd in each
# advertising IEEE 802.1Qaz PFC (priority 3), ETS and APP (UDP 4791 and
# DSCP 26 -> 3) TLVs as the test fabric does (tests/integration/
# test_roce_fabric.sh), and gives the host a sysfs root of 8 RDMA devices
# mlx5_0..mlx5_7: copies of the real ConnectX RoCE device of
# fixtures/sysfs/h100_roce (mlx5_bond_0: 21 port and 28 hw counters), each on
# its own PCIe function, its GID table naming eth<k>, with eth<k>'s
# attributes as its namespace shows them and the real mlx5 ECN directory of
# fixtures/sysfs/procfs. Then `fabsweep collect` runs in the host namespace
# (its lldpd socket, that sysfs root) and writes FILE. --pfc4 NIC makes the
# host advertise PFC on priority 4 on eth<NIC> (a fault; the leaf stays on 3).
# --ethtool also gives collect each NIC's saved ethtool outputs (collect
# --ethtool-dir: the real healthy ConnectX-4 Lx's `ethtool -S` of
# fixtures/ethtool, the real QSFP28 dump of fixtures/modules), so the file
# has NIC counters and modules as a host with ethtool has; without it the
# veths' own ethtool answers are not read (the sysfs root is the copy).
# Needs root; removes namespaces, daemons (by PID) and files on any exit.
set -uo pipefail
: "${FABSWEEP:?set FABSWEEP to the fabsweep binary}"
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="" pfc4="" ethtool=0
while (($#)); do
	case $1 in
	--out) out=$2; shift 2 ;;
	--pfc4) pfc4=$2; shift 2 ;;
	--ethtool) ethtool=1; shift ;;
	*) echo "usage: $0 --out FILE [--pfc4 NIC] [--ethtool]" >&2; exit 2 ;;
	esac
done
[[ -n $out ]] || { echo "usage: $0 --out FILE [--pfc4 NIC] [--ethtool]" >&2; exit 2; }
[[ $EUID -eq 0 ]] || { echo "roce_host.sh: needs root (network namespaces)" >&2; exit 1; }
for tool in ip lldpd lldpcli; do
	command -v "$tool" >/dev/null || { echo "roce_host.sh: '$tool' is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
fix=$src/fixtures/sysfs
nic=$fix/h100_roce/class/infiniband/mlx5_bond_0
[[ -d $nic && -d $fix/procfs/class/net/eth0/ecn ]] || { echo "roce_host.sh: fixtures missing under $fix" >&2; exit 1; }

pfx=rh$$
work=$(mktemp -d)
chmod 0755 "$work" # lldpd runs lldpcli as _lldpd: it must reach the sockets
pids=()
alive() { local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null); [[ -n $st && $st != Z ]]; }
cleanup() {
	local pid
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
	for pid in "${pids[@]}"; do
		for _ in $(seq 40); do alive "$pid" || break; sleep 0.05; done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	ip netns del "$pfx-host" 2>/dev/null
	ip netns del "$pfx-leaf" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "roce_host.sh: $*" >&2; exit 1; }

for s in host leaf; do
	ip netns add "$pfx-$s" || die "ip netns add $pfx-$s"
	ip -n "$pfx-$s" link set lo up
done
PFC3=08,08 PFC4=08,10
APP=00,63,12,b7,65,00,1a
ETS=00,00,03,00,00,32,00,00,32,00,00,00,00,02,00,00,02,00,00,00,00
{
	echo "configure system hostname host"
	echo "configure system description \"fabsweep fleet host\""
	echo "configure lldp tx-interval 1"
	echo "configure lldp tx-hold 4"
} >"$work/host.conf"
{
	echo "configure system hostname leaf"
	echo "configure system description \"fabsweep fleet leaf\""
	echo "configure lldp tx-interval 1"
	echo "configure lldp tx-hold 4"
	echo "configure system capabilities enabled bridge,router"
} >"$work/leaf.conf"
for k in 0 1 2 3 4 5 6 7; do
	ip link add "eth$k" netns "$pfx-host" address "02:fb:00:00:00:0$k" mtu 9000 type veth \
		peer name "swp$((k + 1))" netns "$pfx-leaf" address "02:fb:00:01:00:0$k" mtu 9000 ||
		die "veth eth$k"
	ip -n "$pfx-host" link set "eth$k" up
	ip -n "$pfx-leaf" link set "swp$((k + 1))" up
	p=$PFC3
	[[ $k == "$pfc4" ]] && p=$PFC4
	for t in "11 $p" "9 $ETS" "12 $APP"; do
		set -- $t
		echo "configure ports eth$k lldp custom-tlv add oui 00,80,c2 subtype $1 oui-info $2" >>"$work/host.conf"
		[[ $1 == 11 ]] && set -- 11 $PFC3
		echo "configure ports swp$((k + 1)) lldp custom-tlv add oui 00,80,c2 subtype $1 oui-info $2" >>"$work/leaf.conf"
	done
done
chmod 0644 "$work"/*.conf
ip -n "$pfx-host" addr add 192.0.2.1/32 dev lo
ip -n "$pfx-leaf" addr add 192.0.2.2/32 dev lo
ip netns exec "$pfx-host" lldpd -d -u "$work/host.sock" -O "$work/host.conf" -I 'eth*' -m 192.0.2.1 \
	>"$work/host.log" 2>&1 &
pids+=($!)
ip netns exec "$pfx-leaf" lldpd -d -u "$work/leaf.sock" -O "$work/leaf.conf" -I 'swp*' -m 192.0.2.2 \
	>"$work/leaf.log" 2>&1 &
pids+=($!)
ok=0
for _ in $(seq 150); do
	h=$(lldpcli -u "$work/host.sock" -f keyvalue show neighbors 2>/dev/null | grep -c '^lldp\.[^.]*\.chassis\.name=')
	l=$(lldpcli -u "$work/leaf.sock" -f keyvalue show neighbors 2>/dev/null | grep -c '^lldp\.[^.]*\.chassis\.name=')
	[[ $h == 8 && $l == 8 ]] && { ok=1; break; }
	sleep 0.2
done
((ok)) || die "LLDP did not converge in 30 s (host heard $h, leaf $l of 8): $(tail -3 "$work/host.log")"

# The host's sysfs root: 8 RDMA devices, each a copy of the real RoCE NIC.
root=$work/sysfs
for k in 0 1 2 3 4 5 6 7; do
	pci=0000:$(printf '%02x' $((0x1a + 16 * k))):00.0
	pdir=$root/devices/pci0000:00/0000:00:0$k.0/$pci
	mkdir -p "$pdir/net/eth$k" "$root/class/net" "$root/class/infiniband"
	printf 'DRIVER=mlx5_core\nPCI_SLOT_NAME=%s\n' "$pci" >"$pdir/uevent"
	for a in current_link_speed max_link_speed; do echo "32.0 GT/s PCIe" >"$pdir/$a"; done
	for a in current_link_width max_link_width; do echo 16 >"$pdir/$a"; done
	for a in address mtu operstate speed type; do
		ip netns exec "$pfx-host" cat "/sys/class/net/eth$k/$a" >"$pdir/net/eth$k/$a" 2>/dev/null
	done
	cp -R "$fix/procfs/class/net/eth0/ecn" "$pdir/net/eth$k/ecn"
	ln -s "../../devices/pci0000:00/0000:00:0$k.0/$pci/net/eth$k" "$root/class/net/eth$k"
	d=$root/class/infiniband/mlx5_$k
	mkdir -p "$d"
	cp -R "$nic/ports" "$nic/board_id" "$nic/fw_ver" "$nic/hca_type" "$d/"
	printf 'a088:c203:000d:4e%02x\n' $((0x10 + k)) >"$d/node_guid"
	echo "eth$k" >"$d/ports/1/gid_attrs/ndevs/0"
	ln -s "../../../devices/pci0000:00/0000:00:0$k.0/$pci" "$d/device"
done
etargs=()
if ((ethtool)); then
	mkdir -p "$work/ethtool"
	for k in 0 1 2 3 4 5 6 7; do
		printf 'driver: mlx5_core\n' >"$work/ethtool/eth$k.info"
		cp "$src/fixtures/ethtool/mlx5_connectx4lx.stats" "$work/ethtool/eth$k.stats"
		cp "$src/fixtures/modules/qsfp28_mma1b00_640b.hex" "$work/ethtool/eth$k.module"
	done
	etargs=(--ethtool-dir "$work/ethtool")
fi
ip netns exec "$pfx-host" "$FABSWEEP" collect --quiet --out "$out" --lldp-socket "$work/host.sock" \
	--sysfs-root "$root" "${etargs[@]}" || die "collect failed (exit $?)"
