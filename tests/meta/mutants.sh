#!/usr/bin/env bash
# Tests of the test suite: each mutant breaks one thing a test claims to
# check (the code, the test's environment, or what the test does to the
# fabric) in a scratch copy of this tree, and the test must then fail (or be
# listed as skipped, never passed). A mutant that no longer applies (the code
# it edits moved) is an error: update it here.
#   tests/meta/mutants.sh [NAME...]      all mutants, or the ones named
#   tests/meta/mutants.sh --list
# Needs what scripts/test.sh needs (run that first); takes a few minutes: one
# build of the copy, then per mutant an incremental build and one test.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# ---- the mutants: name, the test (ctest name), what it must say
# (Failed or Skipped), then the function that makes the change
MUTANTS=(
	"valgrind_missing      integration/test_reliability_valgrind  Failed   m_valgrind_missing"
	"leak                  integration/test_reliability_valgrind  Failed   m_leak"
	"no_loss_injected      integration/test_reliability_faults    Failed   m_no_loss"
	"no_page_damage        integration/test_reliability_store     Failed   m_no_damage"
	"signal_msg_muted      integration/test_scan_interrupt        Failed   m_signal_msg"
	"no_standby_silent     integration/test_check_sim             Failed   m_no_standby"
	"flapping_silent       integration/test_check_sim             Failed   m_flapping"
	"expect_by_default     integration/test_expect_sim            Failed   m_expect_default"
	"sandbox_pragma        site_rules/test_sandbox                Failed   m_pragma"
	"fixtures_update_env   rules/test_fixtures                    Failed   m_fixtures_update"
	"key_file_missing      integration/test_reliability_security  Failed   m_key_file_missing"
	"console_not_logged    integration/test_report_browser        Failed   m_console"
	"xmllint_missing       integration/test_workflow_cli          Failed   m_xmllint_missing"
	"lldpd_never_resumed   integration/test_reliability_hostile_lldp  Failed  m_lldpd_never_resumed"
)

# mut FILE SED-EXPRESSION: edits FILE of the copy; an error when nothing changed
mut() {
	local f=$work/$1 before
	before=$(md5sum < "$f") || return 1
	sed -i -e "$2" "$f" || return 1
	[[ $(md5sum < "$f") != "$before" ]] || { echo "mutant does not apply: '$2' changes nothing in $1"; return 1; }
}
# a PATH without TOOL: a directory of links to everything else on PATH
path_without() {
	local dir=$scratch/path-without-$1 d f
	mkdir -p "$dir"
	IFS=: read -ra dirs <<< "$PATH"
	for d in "${dirs[@]}"; do
		for f in "$d"/*; do
			[[ -x $f && ! -e $dir/${f##*/} && ${f##*/} != "$1" ]] && ln -s "$f" "$dir/${f##*/}"
		done
	done
	MUTANT_ENV+=("PATH=$dir")
}

m_valgrind_missing() { path_without valgrind; }
m_leak() { # a definite leak at every start
	mut cli/main.c '/^int main(int argc, char \*\*argv)$/,/^{$/ s/^{$/{\n\tchar *volatile leak = malloc(64);\n\tleak[0] = 1;/' &&
		mut cli/main.c '0,/^#include/ s/^#include/#include <stdlib.h>\n#include/'
}
m_no_loss() { # the Error commands ask for no loss
	mut tests/integration/test_reliability_faults.sh 's/printf '"'"'Error "%s" %d\\n'"'"' "$n" "$rate"/printf '"'"'Error "%s" 0\\n'"'"' "$n"/'
}
m_no_damage() { mut tests/integration/test_reliability_store.sh 's/^\thead -c "$size" \/dev\/zero.*/\t:/'; }
m_signal_msg() { mut pipeline/scan.c 's/syscall(SYS_write, msg_fd,/syscall(SYS_write, STDERR_FILENO,/'; }
m_no_standby() { mut rules/check_sm.c '/^int check_sm(struct fab_rule_ctx \*ctx)$/,/^{$/ s/^{$/{\n\tif (ctx->rule->arg == SM_NO_STANDBY)\n\t\treturn 0;/'; }
m_flapping() { # port.link_flapping never fires
	mut rules/check_counters.c 's/^\tconst struct fab_rule \*r = ctx->rule;$/&\n\tif (!__builtin_strcmp(r->id, "port.link_flapping"))\n\t\treturn 0;/'
}
m_expect_default() { # check compares with the scan before when --expect is not given
	mut pipeline/check.c 's/(job->expect \&\& (err = fab_pipeline_load_reference(st, job->expect, \&r->reference)))/((err = fab_pipeline_load_reference(st, job->expect ? job->expect : "-1", \&r->reference)))/'
}
m_pragma() { mut store/site_query.c 's/^\tcase SQLITE_PRAGMA:$/\tcase SQLITE_PRAGMA:\n\t\treturn SQLITE_OK;/'; }
m_fixtures_update() { # port.errors never fires, and the caller's environment says "rewrite the fixtures"
	mut rules/table.c '/\.id = "port.errors",/,/\.check = check_counters,/ s/\.check = check_counters,/.check = check_port_not_active,/' &&
		MUTANT_ENV+=(FIXTURES_UPDATE=1)
}
m_key_file_missing() { # the sweep's output is gone before the key is looked for in it
	mut tests/integration/test_reliability_security.sh 's/^check "sweep: the key is nowhere in its output/rm -f "$D\/sweep.out"; &/'
}
m_console() { mut tests/integration/browser.sh 's/--enable-logging=stderr --v=0 //'; }
m_xmllint_missing() { path_without xmllint; }
# the test's lldpd stays paused and unconfigured, as when a second lldpcli
# raced its startup `resume` (tests/README.md, lldpd): its startup lldpcli is
# /bin/true; the names are never taken, neither end hears the other
m_lldpd_never_resumed() {
	mut tests/integration/test_reliability_hostile_lldp.sh \
		's|lldpd "${LLDPD_LOG_OPTS\[@\]}" -u "$D/$s.sock"|lldpd "${LLDPD_LOG_OPTS[@]}" -L /bin/true -u "$D/$s.sock"|'
}

# The mutants of each capability live in mutants.d/<capability>.sh: each file
# appends its lines to MUTANTS and defines their functions (m_<name>), using
# mut, path_without and MUTANT_ENV as above. A capability has at least three:
# a value printed or stored wrong, a branch never taken, a parameter ignored.
for f in "$top"/tests/meta/mutants.d/*.sh; do
	[[ -e $f ]] && source "$f"
done

if [[ ${1:-} == --list ]]; then
	printf '%s\n' "${MUTANTS[@]}" | awk '{ printf "%-22s %-40s %s\n", $1, $2, $3 }'
	exit 0
fi

# ---- a scratch copy of the tree, committed, and its build
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
work=$scratch/src
mkdir -p "$work"
# without .git: in a worktree it is a file naming the real repository, and
# the copy's commits would land on the checkout's branch
tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$work" -xf -
git -C "$work" init -q && git -C "$work" add -A > /dev/null &&
	git -C "$work" -c user.name=mutants -c user.email=mutants@localhost \
		commit -qm "mutants: base" --allow-empty || { echo "mutants: cannot commit the copy"; exit 1; }
echo "== mutants: building a copy of the tree in $work"
cmake -S "$work" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null &&
	cmake --build "$work/build" -j"$(nproc)" > "$scratch/build.log" 2>&1 ||
	{ tail -20 "$scratch/build.log"; echo "mutants: the unchanged copy does not build"; exit 1; }

failed=0 ran=0
for m in "${MUTANTS[@]}"; do
	read -r name test want fn <<< "$m"
	if (($#)) && [[ " $* " != *" $name "* ]]; then continue; fi
	ran=$((ran + 1))
	git -C "$work" checkout -q -- . && git -C "$work" clean -fdq -e build
	MUTANT_ENV=()
	if ! "$fn"; then
		echo "ERROR $name: could not make the mutant"
		failed=$((failed + 1))
		continue
	fi
	if ! cmake --build "$work/build" -j"$(nproc)" > "$scratch/build.log" 2>&1; then
		tail -20 "$scratch/build.log"
		echo "ERROR $name: the mutant does not build"
		failed=$((failed + 1))
		continue
	fi
	env "${MUTANT_ENV[@]}" ctest --test-dir "$work/build" -R "^$test\$" --output-on-failure \
		> "$scratch/$name.log" 2>&1
	got=$(grep -oE '\*\*\*(Failed|Skipped)|  Passed' "$scratch/$name.log" | head -1 | tr -d '* ')
	if [[ $got == "$want" ]]; then
		echo "ok    $name: $test ${got,,}, as it must ($(grep -m1 -E '^(FAIL|SKIP|\[  FAILED)' "$scratch/$name.log" |
			cut -c1-100))"
	else
		echo "BAD   $name: $test ${got:-did not run} with the mutant; it must be ${want,,}"
		sed 's/^/      /' "$scratch/$name.log" | tail -15
		failed=$((failed + 1))
	fi
done
git -C "$work" checkout -q -- .
echo "== mutants: $ran run, $((ran - failed)) noticed, $failed not"
((failed == 0))
