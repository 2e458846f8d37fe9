#!/usr/bin/env bash
# Renders both reports of a ~115,000-port synthetic fat tree (48,000 hosts)
# and prints times and peak RSS; the goal is under one second for both.
#   bench/bench_report.sh [BUILD_DIR] [bench_report options...]
# BUILD_DIR defaults to ./build; it is built first (target bench_report).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
[[ $# -gt 0 ]] && shift
[[ -f $build/CMakeCache.txt ]] || cmake -S "$src" -B "$build" >/dev/null
cmake --build "$build" --target bench_report -j"$(nproc)" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bench/bench_report" --out "$out" "$@"
