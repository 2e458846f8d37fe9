#!/usr/bin/env bash
# The physical layer's two speed targets, beside what an operator would
# otherwise run:
#
#  1. `fabsweep collect` on a host with 8 RoCE NICs: a sysfs tree of eight
#     ConnectX ports (built from fixtures/sysfs/h100_roce, the netdev and
#     RDMA device copied eight times) and their saved ethtool outputs
#     (fixtures/ethtool: the overloaded mlx5's `ethtool -S`, the real
#     QSFP28's `ethtool -m` dump), the snapshot file written. Target: under
#     100 ms. Beside it, what reading the same by hand costs: `ethtool -S`
#     and `ethtool -m` of eight interfaces as processes, here on eight veth
#     pairs in a network namespace (root; skipped otherwise), and
#     fabsweep's own kernel path on the same eight veths.
#  2. `fabsweep import ibdiagnet2` of the sequoia NDR run with its
#     ibdiagnet2.cables (510 records). Target: under 0.5 s. Beside it, the
#     import without the cables, and an awk pass that only pulls vendor, PN
#     and SN out of the cables file.
#
# Medians of RUNS runs (default 11), alternated. Usage: bench/bench_phys.sh [RUNS]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
source "$src/bench/tools.sh"
runs=${1:-11}
work=$(mktemp -d)
ns=bp$$
cleanup() { ip netns del "$ns" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

ms() { date +%s%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# time_ms CMD...: wall milliseconds of one run (output discarded)
time_ms() {
	local t0 t1
	t0=$(ms)
	"$@" >/dev/null 2>&1 || true
	t1=$(ms)
	echo $(((t1 - t0) / 1000000))
}

# ---- 8 RoCE NICs: a sysfs tree and saved ethtool outputs ------------------
h=$src/fixtures/sysfs/h100_roce
tree=$work/sys
etd=$work/ethtool
mkdir -p "$tree/class/net" "$tree/class/infiniband" "$etd"
pci=devices/pci0000:80/0000:80:01.0
for k in 0 1 2 3 4 5 6 7; do
	dev=$pci/0000:a$k:00.0
	mkdir -p "$tree/$dev/net"
	cp "$h/$pci/0000:9a:00.0/"*_link_* "$tree/$dev/"
	cp -r "$h/$pci/0000:9a:00.0/net/enp154s0f0np0" "$tree/$dev/net/eth$k"
	printf '0c:42:a1:00:00:%02x\n' "$k" >"$tree/$dev/net/eth$k/address"
	ln -s "../../$dev/net/eth$k" "$tree/class/net/eth$k"
	cp -r "$h/class/infiniband/mlx5_bond_0" "$tree/class/infiniband/mlx5_$k"
	rm "$tree/class/infiniband/mlx5_$k/device"
	ln -s "../../../$dev" "$tree/class/infiniband/mlx5_$k/device"
	printf '0c42:a103:0000:%04x\n' "$k" >"$tree/class/infiniband/mlx5_$k/node_guid"
	printf 'eth%s\n' "$k" >"$tree/class/infiniband/mlx5_$k/ports/1/gid_attrs/ndevs/0"
	printf 'driver: mlx5_core\n' >"$etd/eth$k.info"
	cp "$src/fixtures/ethtool/mlx5_overload_k6.5.stats" "$etd/eth$k.stats"
	cp "$src/fixtures/modules/qsfp28_mma1b00_640b.hex" "$etd/eth$k.module"
done
# OUT: where the snapshot file goes (its fsyncs are most of the wall time on
# a busy disk; /dev/shm shows fabsweep's own part)
collect() {
	rm -f "$1"
	"$FABSWEEP" collect --quiet --out "$1" --sysfs-root "$tree" --ethtool-dir "$etd"
}
# cpu_ms CMD...: the CPU milliseconds of one run (perf stat's task-clock;
# empty without perf)
cpu_ms() {
	command -v perf >/dev/null || return 0
	perf stat -x, -e task-clock -o "$work/cpu" "$@" >/dev/null 2>&1 || true
	awk -F, '/task-clock/ { printf "%.1f\n", $1 }' "$work/cpu"
}
collect "$work/c.db" || true
n_ports=$(sqlite3 "$work/c.db" "SELECT count(*) FROM eth_ports WHERE stats_status = 'ok'")
n_mods=$(sqlite3 "$work/c.db" "SELECT count(*) FROM modules")
n_ctr=$(sqlite3 "$work/c.db" "SELECT count(*) FROM nic_counters")
[[ $n_ports == 8 && $n_mods == 8 ]] || { echo "bench_phys: expected 8 NICs and 8 modules, got $n_ports, $n_mods"; exit 1; }

# ---- the sequoia run with its cables -----------------------------------------
cables=$src/fixtures/real/ibdiagnet2/sequoia_ndr_cables
plain=$src/fixtures/real/ibdiagnet2/sequoia_ndr
import() {
	rm -f "$work/i.db"*
	"$FABSWEEP" import ibdiagnet2 "$1" --db "$work/i.db" --quiet
}
awk_cables() {
	awk -F': ' '/^Vendor:/ { v = $2 } /^PN:/ { p = $2 } /^SN:/ { print v, p, $2 }' "$cables/ibdiagnet2.cables"
}

# ---- the kernel path beside ethtool(8), on 8 veth pairs ------------------------
kernel=0
if [[ $EUID -eq 0 ]] && command -v ethtool >/dev/null && ip netns add "$ns" 2>/dev/null; then
	kernel=1
	for k in 0 1 2 3; do
		ip netns exec "$ns" ip link add "va$k" type veth peer name "vb$k"
		ip netns exec "$ns" ip link set "va$k" up
		ip netns exec "$ns" ip link set "vb$k" up
	done
	by_hand() {
		for i in va0 vb0 va1 vb1 va2 vb2 va3 vb3; do
			ip netns exec "$ns" ethtool -i "$i"
			ip netns exec "$ns" ethtool -S "$i"
			ip netns exec "$ns" ethtool -m "$i" || true
		done
	}
	by_hand_one_ns() {
		ip netns exec "$ns" bash -c 'for i in va0 vb0 va1 vb1 va2 vb2 va3 vb3; do
			ethtool -i $i; ethtool -S $i; ethtool -m $i || true; done'
	}
	# the snapshot file in /dev/shm: the comparison is of reading, not of fsync
	kcollect() {
		rm -f "$shm/k.db"
		ip netns exec "$ns" "$FABSWEEP" collect --quiet --out "$shm/k.db" --no-dcb
	}
fi

shm=$(mktemp -d /dev/shm/bench_phys.XXXXXX)
trap 'cleanup; rm -rf "$shm"' EXIT
declare -A t
for ((r = 0; r < runs; r++)); do
	t[collect]+="$(time_ms collect "$work/c.db") "
	t[collect_shm]+="$(time_ms collect "$shm/c.db") "
	rm -f "$shm/c.db"
	t[collect_cpu]+="$(cpu_ms "$FABSWEEP" collect --quiet --out "$shm/c.db" --sysfs-root "$tree" --ethtool-dir "$etd") "
	t[import_cables]+="$(time_ms import "$cables") "
	t[import_plain]+="$(time_ms import "$plain") "
	rm -f "$shm/i.db"*
	t[import_cables_cpu]+="$(cpu_ms "$FABSWEEP" import ibdiagnet2 "$cables" --db "$shm/i.db" --quiet) "
	rm -f "$shm/i.db"*
	t[import_plain_cpu]+="$(cpu_ms "$FABSWEEP" import ibdiagnet2 "$plain" --db "$shm/i.db" --quiet) "
	t[awk]+="$(time_ms awk_cables) "
	if ((kernel)); then
		t[kcollect]+="$(time_ms kcollect) "
		t[by_hand]+="$(time_ms by_hand_one_ns) "
	fi
done
med() { tr ' ' '\n' <<<"${t[$1]}" | grep . | median; }
load=$(cut -d' ' -f1 /proc/loadavg)
echo "bench_phys: $runs runs each, medians, load average $load, $(nproc) CPUs"
printf '%-72s %6s ms   (target < 100 ms)\n' "collect, 8 RoCE NICs (sysfs + ethtool outputs: $n_ctr NIC counters, 8 modules)" "$(med collect)"
printf '%-72s %6s ms   (CPU %s ms)\n' "the same, the snapshot file in /dev/shm (no disk fsync)" "$(med collect_shm)" "$(med collect_cpu)"
if ((kernel)); then
	printf '%-72s %6s ms\n' "collect in a namespace with 8 veths, the kernel's ethtool interfaces (/dev/shm)" "$(med kcollect)"
	printf '%-72s %6s ms   (collect / by hand: %s)\n' "by hand: ethtool -i, -S, -m of the 8 veths (24 processes)" "$(med by_hand)" \
		"$(awk -v a="$(med kcollect)" -v b="$(med by_hand)" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
else
	echo "kernel path: skipped (needs root, ethtool and network namespaces)"
fi
printf '%-72s %6s ms   (target < 500 ms; CPU %s ms)\n' "import ibdiagnet2 sequoia_ndr with ibdiagnet2.cables (486 modules)" \
	"$(med import_cables)" "$(med import_cables_cpu)"
printf '%-72s %6s ms   (CPU %s ms)\n' "import ibdiagnet2 sequoia_ndr without cables" "$(med import_plain)" "$(med import_plain_cpu)"
printf '%-72s %6s ms\n' "awk: vendor, PN, SN of the 510 records (nothing checked or stored)" "$(med awk)"
