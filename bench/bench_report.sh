#!/usr/bin/env bash
# Renders both reports of a ~115,000-port synthetic fat tree (48,000 hosts)
# and prints times and peak RSS; the goal is under one second for both.
#   bench/bench_report.sh [BUILD_DIR] [bench_report options...]
# BUILD_DIR defaults to ./build. Uses its target bench_report when the build
# has one, else compiles bench/bench_report.c against its libfabsweep_core.a.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
[[ $# -gt 0 ]] && shift
[[ -f $build/CMakeCache.txt ]] || cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if cmake --build "$build" --target bench_report -j"$(nproc)" >/dev/null 2>&1 &&
	[[ -x $build/bench/bench_report ]]; then
	bin=$build/bench/bench_report
else
	cmake --build "$build" --target fabsweep_core -j"$(nproc)" >/dev/null
	bin=$build/bench_report
	# shellcheck disable=SC2046 # word splitting of pkg-config output is wanted
	cc -O2 -g -std=gnu11 -D_GNU_SOURCE -DFABSWEEP_VERSION='"bench"' \
		-I"$src/include" -I"$src" -I"$src/tests" $(pkg-config --cflags libxml-2.0) \
		"$src/bench/bench_report.c" "$build/libfabsweep_core.a" \
		$(pkg-config --libs libibnetdisc libibmad libibumad sqlite3 libxml-2.0 lldpctl) \
		-lpthread -lm -o "$bin"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bin" --out "$out" "$@"
