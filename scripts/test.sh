#!/usr/bin/env bash
# Runs every test: installs missing Debian packages, builds with -Werror,
# runs ctest (unit and integration tests on the simulated fabric), then
# builds with ASan + UBSan and runs the tests again.
#   scripts/test.sh                 everything
#   scripts/test.sh -L unit         only tests labelled unit (ctest -L)
#   FABSWEEP_NO_SANITIZE=1 ...      skip the sanitizer pass
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$top/scripts/deps.sh"
fabsweep_install_deps "${FABSWEEP_OPTIONAL_PACKAGES[@]}" ||
	fabsweep_install_deps

jobs=$(nproc)
build() { # dir, extra cmake args...
	local dir=$1
	shift
	cmake -S "$top" -B "$dir" -DFABSWEEP_WERROR=ON "$@" >/dev/null
	cmake --build "$dir" -j"$jobs" >/dev/null
}

start=$(date +%s)
echo "== build (warnings are errors)"
build "$top/build/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== tests"
ctest --test-dir "$top/build/release" --output-on-failure -j"$jobs" "$@"

if [[ -z "${FABSWEEP_NO_SANITIZE:-}" ]]; then
	echo "== build with AddressSanitizer + UBSan"
	build "$top/build/sanitize" -DCMAKE_BUILD_TYPE=Debug -DFABSWEEP_SANITIZE=ON
	echo "== tests under sanitizers"
	# Suppressions cover bugs in the simulator shim and libibnetdisc only
	# (tests/sanitizers/*.supp say which); umad2sim is LD_PRELOADed, hence
	# verify_asan_link_order=0.
	# The paths are quoted: the sanitizers split options at spaces.
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:verify_asan_link_order=0:suppressions='$top/tests/sanitizers/asan.supp'" \
	LSAN_OPTIONS="suppressions='$top/tests/sanitizers/lsan.supp':print_suppressions=0" \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	KILL_ITERATIONS=${KILL_ITERATIONS:-25} \
		ctest --test-dir "$top/build/sanitize" --output-on-failure -j"$jobs" "$@"
fi
echo "== all tests passed in $(($(date +%s) - start)) s"
