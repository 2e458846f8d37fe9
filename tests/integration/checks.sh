# Shared by the integration tests that count checks (source it; not a test).
#   check "what" CMD...   runs CMD: pass or "FAIL: what"; counts in $pass/$fail;
#                         returns CMD's success (check ... || show-why)
#   eq A B, ge A B, has FILE TEXT, lacks FILE TEXT
#                         assertions that explain a mismatch (has shows the
#                         head of the file that lacks the text; lacks fails
#                         when FILE does not exist: an absent output is not
#                         a clean one)
#   safe FILE             the file is safe on a terminal: valid UTF-8; no C0
#                         control but tab and newline, no DEL, no C1 control
#                         (U+0080..U+009F), no bidi override/isolate
#   prom_ok FILE          every line a comment or a sample of the Prometheus
#                         text format with escaped label values
#   spy_build, spy_run    the MAD spy (below)
#   daemons_stop PID...   stops the daemons a test started (below)
#   LLDPD_LOG_OPTS, lldpd_report
#                         lldpd logging worth keeping, and what to print
#                         when an lldpd hears nobody (below)
pass=0 fail=0
check() {
	local what=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; return 1; fi
}
eq() { [[ "$1" == "$2" ]] || { echo "  got '$1', want '$2'"; return 1; }; }
ge() { [[ "$1" -ge "$2" ]] || { echo "  got '$1', want at least '$2'"; return 1; }; }
le() { [[ "$1" -le "$2" ]] || { echo "  got '$1', want at most '$2'"; return 1; }; }
has() { grep -qaF -- "$2" "$1" || { echo "  $1 lacks: $2"; sed 's/^/    /' "$1" | head -40; return 1; }; }
lacks() {
	[[ -f $1 ]] || { echo "  $1 does not exist: nothing to look for '$2' in"; return 1; }
	! grep -qaF -- "$2" "$1" || { echo "  $1 has: $2"; return 1; }
}
safe() {
	iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1 || { echo "  $(basename "$1"): not valid UTF-8"; return 1; }
	local bad='[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]'
	[[ $(LC_ALL=C grep -caP "$bad" "$1") == 0 ]] && return 0
	LC_ALL=C grep -naP "$bad" "$1" | head -3 | cat -v | sed 's/^/  /'
	return 1
}
PROM_LABEL_RE='[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\x00-\x1f\x7f]|\\[\\"n])*"'
PROM_RE="^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{$PROM_LABEL_RE(,$PROM_LABEL_RE)*\\})? [-+0-9.eE]+\$|^#"
prom_ok() {
	[[ $(LC_ALL=C grep -cvaP "$PROM_RE" "$1") == 0 ]] && return 0
	LC_ALL=C grep -vaP "$PROM_RE" "$1" | head -3 | cat -v | sed 's/^/  bad line: /'
	return 1
}

# ---- what a test cannot do, and waiting
#   skip REASON           this test cannot run here: exit 77, which ctest shows
#                         as skipped (SKIP_RETURN_CODE), never as passed
#   need TOOL...          tools scripts/deps.sh installs: missing is a failure
#   need_py MODULE...     python3 modules scripts/deps.sh installs, likewise
#   $HANG_MS              the bound of a "bounded time" check (60 s)
#   wait_for SECS WHAT CMD...
#                         polls CMD every 0.1 s until it succeeds; after SECS
#                         (times $WAIT_SCALE, default 1) says what never
#                         happened and returns 1
# HANG_MS: what "the scan ends in bounded time" means. A scan with a dead
# node, PMA or SM takes a few seconds of timeouts; one that takes a minute
# (a busy machine under the sanitizers is slower, not that slow) hangs.
HANG_MS=${HANG_MS:-60000}
# Under CI=true a skip for want of something scripts/deps.sh installs is a
# failure (need and need_py fail anywhere; this catches a skip that says so).
skip() {
	if [[ ${CI:-} == true && "$*" =~ deps\.sh|is\ missing|not\ installed ]]; then
		echo "FAIL: $* (CI=true: what scripts/deps.sh installs must be here)"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}
need() {
	local t
	for t; do
		command -v "$t" > /dev/null || { echo "FAIL: '$t' is missing (scripts/deps.sh installs it)"; exit 1; }
	done
}
need_py() {
	local m
	for m; do
		python3 -c "import $m" 2> /dev/null ||
			{ echo "FAIL: python3 module '$m' is missing (scripts/deps.sh installs python3-$m)"; exit 1; }
	done
}
wait_for() {
	local secs=$1 what=$2 i
	shift 2
	for ((i = 0; i < secs * ${WAIT_SCALE:-1} * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	echo "  waited ${secs}s: $what never happened"
	return 1
}

# ---- daemons in network namespaces (lldpd in the RoCE tests)
#   daemons_stop PID...   stops each by its PID: TERM, then KILL when it is
#                         still running after 2 s (lldpd's monitor, the PID a
#                         test started, passes the signal to its worker); waits
#                         for each
daemons_stop() {
	local pid st
	for pid; do kill -TERM "$pid" 2>/dev/null; done
	for pid; do
		for _ in $(seq 40); do
			st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
			[[ -n $st && $st != Z ]] || break # gone, or a zombie
			sleep 0.05
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}
#   LLDPD_LOG_OPTS        the lldpd options that make its log worth keeping:
#                         `-d` alone logs to syslog (nothing reaches the file
#                         a test redirects stderr to), -dd to stderr, -dddd
#                         with -D rpc adds info lines and one line per
#                         control request, so every configuration change
#                         (pause and resume too) is in the log, with the
#                         startup lldpcli's own debug lines (-d is among
#                         them: not daemonized);
#                         lldpd "${LLDPD_LOG_OPTS[@]}" -u SOCK ... >LOG 2>&1 &
#   lldpd_report NS SOCK LOG
#                         prints what tells why an lldpd in namespace NS
#                         hears nobody: its log (its first 150 lines but
#                         those of each read-only request and the startup
#                         lldpcli's tokens), its configuration, local
#                         chassis, interfaces, neighbours and statistics,
#                         and the interfaces' packet counters, control bytes
#                         made visible (cat -v)
LLDPD_LOG_OPTS=(-dddd -D rpc)
lldpd_report() {
	local ns=$1 sock=$2 log=$3 what
	echo "  ---- lldpd in $ns: $log"
	grep -avE 'DBG/(control|marshal|alloc)|DBG/lldpctl\] (process )?argument|DBG/rpc\] (handle client request|client request(ed)? (configuration|the list of interfaces|interface |the local chassis))' \
		"$log" 2>&1 | head -n 150 | cat -v | sed 's/^/    /'
	for what in configuration chassis interfaces "neighbors details" statistics; do
		echo "  ---- lldpcli show $what"
		# shellcheck disable=SC2086 # "neighbors details": two words
		lldpcli -u "$sock" show $what 2>&1 | cat -v | sed 's/^/    /'
	done
	echo "  ---- ip -s link (namespace $ns)"
	ip -n "$ns" -s link show 2>&1 | sed 's/^/    /'
}

# ---- running as another user (nobody)
# The checkout can sit where nobody cannot read (root's home is 0700, a
# clone made with umask 077). nobody_prepare DIR copies what nobody runs
# into DIR/nobody, world-readable: the fabsweep binary ($NOBODY_FABSWEEP)
# and the sanitizer suppression files named in ASAN_OPTIONS, LSAN_OPTIONS
# and UBSAN_OPTIONS, which as_nobody points at the copies. DIR and its
# parents must be enterable by others (a mktemp -d under /tmp, chmod 0755);
# nobody_prepare fails the test, saying so, when they are not. Files a test
# hands to nobody get their modes set explicitly (umask 077 makes them 0600).
NOBODY_ENV=()
nobody_prepare() {
	local dir=$1/nobody v val path q copy
	mkdir -p "$dir" && chmod 0755 "$1" "$dir" || return 1
	install -m 0755 "$FABSWEEP" "$dir/fabsweep" || return 1
	NOBODY_FABSWEEP=$dir/fabsweep
	NOBODY_ENV=()
	for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do
		val=${!v:-}
		[[ $val == *suppressions=* ]] || continue
		path=${val#*suppressions=}
		q=${path:0:1}
		if [[ $q == "'" || $q == '"' ]]; then
			path=${path:1}
			path=${path%%"$q"*}
			val=${val/"suppressions=$q$path$q"/suppressions=\'$dir/$v.supp\'}
		else
			path=${path%%:*}
			val=${val/"suppressions=$path"/suppressions=\'$dir/$v.supp\'}
		fi
		install -m 0644 "$path" "$dir/$v.supp" || return 1
		NOBODY_ENV+=("$v=$val")
	done
	as_nobody test -x "$NOBODY_FABSWEEP" || {
		echo "FAIL: user nobody cannot reach $NOBODY_FABSWEEP (is a parent directory private?)"
		exit 1
	}
}
as_nobody() { env "${NOBODY_ENV[@]}" setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# ---- `ready` as text, as --json, and the database (tests/tools/ready_compare.py)
#   ready_keep WHAT EXIT TEXT [pkeys=FILE] [hosts=A,B,...] [quiet=1] -- CMD...
#                         keeps a `ready` run made as text (TEXT: its output,
#                         EXIT: its exit code) and runs CMD, the same ready
#                         with --json, beside it in $D/ready-runs/N: the pairs
#                         are to be those computed from FILE's P_Key tables
#                         ("HOST PKEY..." a line) in CMD's --pkey partition;
#                         the hosts these, in this order
#   ready_compared DB     one check of every run kept: the JSON, the text and
#                         the scan of DB agree (ready_compare.py says how)
ready_keep() {
	local what=$1 rc=$2 text=$3 dir kv want=0 a prev=
	shift 3
	dir=$D/ready-runs/$(($(ls "$D/ready-runs" 2>/dev/null | wc -l) + 1))
	mkdir -p "$dir" && cp "$text" "$dir/ready.txt" || return 1
	printf 'what %s\nexit %s\n' "$what" "$rc" >"$dir/args"
	while (($#)) && [[ $1 != -- ]]; do
		kv=$1
		shift
		[[ $kv == pkeys=* ]] && { cp "${kv#pkeys=}" "$dir/pkeys" || return 1; kv=pkeys=pkeys; }
		printf '%s %s\n' "${kv%%=*}" "${kv#*=}" >>"$dir/args"
	done
	shift
	for a; do
		[[ $prev == --pkey ]] && want=$a
		prev=$a
	done
	printf 'want %s\n' "$want" >>"$dir/args"
	"$@" >"$dir/ready.json" 2>"$dir/stderr"
	printf 'json_exit %s\n' "$?" >>"$dir/args"
}
ready_compared() {
	local runs=() i
	for ((i = 1; i <= $(ls "$D/ready-runs" 2>/dev/null | wc -l); i++)); do runs+=("$D/ready-runs/$i"); done
	((${#runs[@]})) || { echo "  no ready run was kept"; return 1; }
	python3 -S "$SRCDIR/tests/tools/ready_compare.py" "$1" "${runs[@]}" # -S: stdlib only, faster start
}

# ---- the MAD spy (tests/tools/madspy.c: a line for every MAD a process sends
# through libibumad, and for every open())
#   spy_build DIR         builds DIR/madspy.so, or ends the test as failed
#   spy_run SIM LOG CMD...
#                         CMD as fabsim_run runs it in simulator directory
#                         SIM, the spy logging to LOG
spy_build() {
	cc -shared -fPIC -O2 -o "$1/madspy.so" "$SRCDIR/tests/tools/madspy.c" -libumad -ldl ||
		{ echo "FAIL: cannot build the MAD spy (cc, libibumad-dev)"; exit 1; }
	SPY_SO=$1/madspy.so
}
# ---- the simulator's Report path (tests/tools/fabsim_reports.c, docs/watch.md)
#   reports_build DIR     builds DIR/fabsim_reports.so (REPORTS_SO), or ends
#                         the test as failed; LD_PRELOAD=$REPORTS_SO fabsim_run
#                         ... then runs a client that receives the SA's Reports
reports_build() {
	cc -shared -fPIC -O2 -o "$1/fabsim_reports.so" "$SRCDIR/tests/tools/fabsim_reports.c" -libumad -ldl ||
		{ echo "FAIL: cannot build the Report path shim (cc, libibumad-dev)"; exit 1; }
	REPORTS_SO=$1/fabsim_reports.so
}
spy_run() {
	local sim=$1 log=$2
	shift 2
	(
		source "$sim/env"
		cd "$sim/scratch" || exit 1
		MADSPY_LOG=$log LD_PRELOAD=$SPY_SO:$FABSIM_LD_PRELOAD "$@"
	)
}
