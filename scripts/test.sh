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

# run_ctest NAME DIR ARGS...: ctest in DIR; then one line with how many
# tests passed and how many were skipped, and for each skipped test its name
# and the reason it printed (its "SKIP:" line). A skip is never a pass: the
# summary says so, and the totals of both passes end the run.
summaries=()
run_ctest() {
	local name=$1 dir=$2 log rc=0 passed skipped line
	shift 2
	log=$(mktemp)
	ctest --test-dir "$dir" --output-on-failure -j"$jobs" "$@" | tee "$log" && rc=0 || rc=$?
	passed=$(grep -cE 'Test +#[0-9]+: .* +Passed +[0-9.]+ sec' "$log" || true)
	mapfile -t skipped < <(sed -nE 's/.*Test +#[0-9]+: ([^ ]+) .*\*\*\*Skipped.*/\1/p' "$log")
	rm -f "$log"
	line="$name: $passed passed, ${#skipped[@]} skipped"
	summaries+=("$line")
	echo "== $line"
	for t in "${skipped[@]}"; do
		echo "   skipped: $t ($(awk -v t="$t" '
			/^[0-9]+\/[0-9]+ Test: / { cur = $3 }
			cur == t && /^SKIP: / { sub(/^SKIP: /, ""); print; exit }' \
			"$dir/Testing/Temporary/LastTest.log"))"
	done
	return $rc
}

start=$(date +%s)
echo "== build (warnings are errors)"
build "$top/build/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== tests"
run_ctest plain "$top/build/release" "$@"

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
		run_ctest sanitizers "$top/build/sanitize" "$@"
fi
echo "== all tests passed in $(($(date +%s) - start)) s ($(IFS=';'; echo "${summaries[*]}" | sed 's/;/; /g'))"
