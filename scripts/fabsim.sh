#!/usr/bin/env bash
# fabsim.sh - run a simulated InfiniBand fabric (ibsim + real OpenSM) for tests,
# benchmarks and the demo. Use it as a command or source it as a library.
#
# Command line:
#   fabsim.sh start NETFILE DIR [--sm-host NODE] [--sm-prio P]
#                               [--sm2-host NODE [--sm2-prio P]] [--no-sm]
#   fabsim.sh run DIR [--host NODE] [--pidfile FILE] -- CMD [ARG...]
#   fabsim.sh console DIR 'COMMAND'      # e.g. 'PerformanceSet "leaf001"[3] PortCounters.SymbolErrorCounter=500'
#   fabsim.sh stop DIR                   # idempotent
#   fabsim.sh stop-sm DIR [1|2] [--kill] # end one OpenSM (SM failure tests)
#   fabsim.sh start-sm DIR [1|2] [--host NODE] [--prio P]
#   fabsim.sh resweep DIR [1|2]          # the SM configures what changed, now; waits
#   fabsim.sh reap DIR                   # free ibsim client slots of dead clients
#   fabsim.sh status DIR
#
# Library (source scripts/fabsim.sh): fabsim_start, fabsim_run, fabsim_console,
# fabsim_stop, fabsim_stop_sm, fabsim_start_sm, fabsim_reap, fabsim_status take
# the same arguments as the commands above and return non-zero on failure. Always
# pair a start with a trap, so that a failing test still ends every process:
#
#   source "$SRCDIR/scripts/fabsim.sh"
#   D=$(mktemp -d)
#   trap 'fabsim_stop "$D"; rm -rf "$D"' EXIT
#   fabsim_start net "$D" || exit 1
#   fabsim_run "$D" -- ibnetdiscover
#
# What DIR holds: pids (role pid starttime), env (safe to source: exports
# IBSIM_SOCKNAME, SIM_HOST, FABSIM_DIR, FABSIM_LD_PRELOAD but NOT LD_PRELOAD, which
# would preload umad2sim into every later command), ctl (ibsim console fifo),
# ibsim.log, osm.log / osm2.log (OpenSM -d2 logs), sm1/ sm2/ (OSM_TMP_DIR,
# OSM_CACHE_DIR, opensm.conf of each SM), scratch/ (working directory of every
# simulated client: umad2sim creates ./sys-<pid>/ there and leaves it behind
# when a client is killed).
#
# `run` starts CMD in DIR/scratch, so give it absolute paths; the caller's
# directory is in $FABSIM_CALLER_CWD.
#
# Environment knobs:
#   FABSIM_TIMEOUT          seconds to wait for ibsim / SUBNET UP (default 120)
#   FABSIM_CONSOLE_TIMEOUT  seconds to wait for a console command (default 10)
#   FABSIM_UMAD2SIM         path of libumad2sim.so (default: searched)
#   FABSIM_SM_POLL_MS       OpenSM sminfo_polling_timeout (default 1000; OpenSM's own 10000)
#   FABSIM_SM_POLL_RETRIES  OpenSM polling_retry_number (default 2; OpenSM's own 4)
#   FABSIM_OPENSM_ARGS      extra OpenSM arguments (word-split)
#   FABSIM_OSM_EXTRA_CONF   opensm.conf settings, "key value" a line, that replace
#                           (or add to) the generated ones, e.g. "m_key 0x1
#                           m_key_protection_level 3" (default: none)
#
# ibsim has 10 client slots. A client that exits normally frees its slot; one
# that is killed keeps it until `X <n>` on the console: `fabsim.sh reap DIR`
# does that for every attached client whose pid is gone.

# Subshells set the sim environment on purpose; single quotes below are literal.
# shellcheck disable=SC2030,SC2031,SC2016

# ---------------------------------------------------------------- helpers

_fabsim_err() {
	printf 'fabsim: %s\n' "$*" >&2
}

_fabsim_abs() { # print the absolute form of path $1 (which need not exist)
	case "$1" in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$PWD" "$1" ;;
	esac
}

_fabsim_timeout() {
	local t=${FABSIM_TIMEOUT:-120}
	[[ $t =~ ^[0-9]+$ && $t -gt 0 ]] || t=120
	printf '%s\n' "$t"
}

_fabsim_umad2sim() {
	local c
	if [[ -n ${FABSIM_UMAD2SIM:-} ]]; then
		printf '%s\n' "$FABSIM_UMAD2SIM"
		return 0
	fi
	for c in /usr/lib/*/umad2sim/libumad2sim.so /usr/lib/umad2sim/libumad2sim.so \
		/usr/local/lib/umad2sim/libumad2sim.so /usr/lib64/umad2sim/libumad2sim.so; do
		if [[ -f $c ]]; then
			printf '%s\n' "$c"
			return 0
		fi
	done
	_fabsim_err "libumad2sim.so not found: install ibsim-utils or set FABSIM_UMAD2SIM"
	return 1
}

# Start time of pid $1 in clock ticks (field 22 of /proc/PID/stat), to tell a
# process we started from a later one that reuses its pid.
_fabsim_starttime() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086
	set -- $stat
	printf '%s\n' "${20}"
}

_fabsim_alive() { # pid starttime: true when that very process runs (not zombie)
	local stat st
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	st=${stat%% *}
	[[ $st != Z && $st != X ]] || return 1
	[[ -z ${2:-} || $(_fabsim_starttime "$1") == "$2" ]]
}

_fabsim_record() { # dir role pid
	local st
	st=$(_fabsim_starttime "$3") || st=0
	printf '%s %s %s\n' "$2" "$3" "$st" >>"$1/pids"
}

_fabsim_pid_of() { # dir role -> "pid starttime"
	[[ -f $1/pids ]] || return 1
	awk -v r="$2" '$1 == r { p = $2 " " $3 } END { if (p == "") exit 1; print p }' "$1/pids"
}

_fabsim_unrecord() { # dir role
	local tmp="$1/pids.tmp.$$"
	[[ -f $1/pids ]] || return 0
	awk -v r="$2" '$1 != r' "$1/pids" >"$tmp" && mv "$tmp" "$1/pids"
}

# End one recorded process: TERM, wait up to 10 s, then KILL. A zombie counts
# as ended; the daemons are disowned, so this shell reaps them by itself.
_fabsim_end() { # pid starttime [signal]
	local pid=$1 st=$2 sig=${3:-TERM} i
	_fabsim_alive "$pid" "$st" || {
		wait "$pid" 2>/dev/null || true
		return 0
	}
	kill "-$sig" "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		_fabsim_alive "$pid" "$st" || break
		sleep 0.1
	done
	if _fabsim_alive "$pid" "$st"; then
		kill -KILL "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			_fabsim_alive "$pid" "$st" || break
			sleep 0.1
		done
	fi
	wait "$pid" 2>/dev/null || true
	return 0
}

_fabsim_tail() { # file: last lines of a log, indented, to stderr
	[[ -f $1 ]] || return 0
	_fabsim_err "last lines of $1:"
	grep -v 'parse_port_connection_data' "$1" | tail -n 15 | sed 's/^/    /' >&2 || true
}

# Remove DIR/scratch/sys-<pid>/ of clients that are gone (umad2sim's fake sysfs).
_fabsim_clean_sysfs() {
	local d p
	for d in "$1"/scratch/sys-[0-9]*; do
		[[ -d $d ]] || continue
		p=${d##*/sys-}
		[[ $p =~ ^[0-9]+$ ]] || continue
		_fabsim_alive "$p" || rm -rf "$d"
	done
}

# Pids of processes started by fabsim_run for DIR that still run: their
# environment holds FABSIM_CLIENT_OF=DIR. Never this shell.
_fabsim_clients() {
	local e p
	while read -r e; do
		p=${e#/proc/}
		p=${p%/environ}
		[[ $p == "$$" || $p == "$BASHPID" ]] && continue
		_fabsim_alive "$p" && printf '%s\n' "$p"
	done < <(grep -lzxF "FABSIM_CLIENT_OF=$1" /proc/[0-9]*/environ 2>/dev/null)
	return 0
}

# First node record of a net file ("Switch 36 "name"" / "Hca 1 "name"").
_fabsim_first_node() {
	awk '/^(Switch|Hca|Ca|Rt)[ \t]/ { if (split($0, f, "\"") >= 3) { print f[2]; exit } }' "$1"
}

# ibsim -N -S -P limits: at least the recipe's values, more when the file needs it.
_fabsim_limits() {
	awk 'BEGIN { n = 0; s = 0; p = 0 }
	     /^(Switch|Hca|Ca|Rt)[ \t]/ {
		n++; match($0, /[0-9]+/); np = substr($0, RSTART, RLENGTH) + 0
		if ($0 ~ /^Switch/) { s++; np++ }
		p += np
	     }
	     END {
		n = n * 2; s = s * 2; p = p * 2
		printf "-N %d -S %d -P %d\n", (n > 16384 ? n : 16384), (s > 1024 ? s : 1024), (p > 131072 ? p : 131072)
	     }' "$1"
}

_fabsim_check_dir() {
	if [[ -z ${1:-} || ! -f $1/env ]]; then
		_fabsim_err "\"${1:-}\" is not a running simulator directory (no env file): run 'fabsim.sh start' first"
		return 1
	fi
}

# ---------------------------------------------------------------- OpenSM

# fabsim_start_sm DIR [1|2] [--host NODE] [--prio P]
fabsim_start_sm() {
	local dir n=1 host="" prio="" preload sock first smdir log conf pid t i opt
	local want other oprio off
	dir=$(_fabsim_abs "${1:-}")
	shift || true
	_fabsim_check_dir "$dir" || return 1
	if [[ ${1:-} == 1 || ${1:-} == 2 ]]; then
		n=$1
		shift
	fi
	while (($#)); do
		opt=$1
		case "$opt" in
		--host) host=${2:-} ; shift 2 || { _fabsim_err "--host needs a node name"; return 1; } ;;
		--prio) prio=${2:-} ; shift 2 || { _fabsim_err "--prio needs a number"; return 1; } ;;
		*) _fabsim_err "start-sm: unknown option \"$opt\""; return 1 ;;
		esac
	done
	if [[ -n $prio && ! $prio =~ ^([0-9]|1[0-5])$ ]]; then
		_fabsim_err "SM priority \"$prio\" is not 0..15"
		return 1
	fi
	if _fabsim_pid_of "$dir" "sm$n" >/dev/null; then
		# shellcheck disable=SC2046
		if _fabsim_alive $(_fabsim_pid_of "$dir" "sm$n"); then
			_fabsim_err "SM $n is already running in \"$dir\": stop-sm it first"
			return 1
		fi
		_fabsim_unrecord "$dir" "sm$n"
	fi
	# Defaults: what the previous start of this SM used.
	[[ -f $dir/sm$n/args ]] && {
		[[ -n $host ]] || host=$(sed -n 's/^host //p' "$dir/sm$n/args")
		[[ -n $prio ]] || prio=$(sed -n 's/^prio //p' "$dir/sm$n/args")
	}
	sock=$(sed -n "s/^export IBSIM_SOCKNAME='\(.*\)'$/\1/p" "$dir/env")
	first=$(sed -n "s/^export SIM_HOST='\(.*\)'$/\1/p" "$dir/env")
	[[ -n $host ]] || host=$first
	[[ -n $prio ]] || prio=0
	preload=$(_fabsim_umad2sim) || return 1
	smdir=$dir/sm$n
	if ((n == 1)); then log=$dir/osm.log; else log=$dir/osm2.log; fi
	mkdir -p "$smdir" "$dir/scratch" || return 1
	printf 'host %s\nprio %s\n' "$host" "$prio" >"$smdir/args"
	conf=$smdir/opensm.conf
	if [[ ! -f $conf ]]; then
		# Start from OpenSM's own defaults, not /etc/opensm/opensm.conf.
		opensm -c "$conf.default" >/dev/null 2>&1 </dev/null || {
			_fabsim_err "\"opensm -c\" failed: is opensm installed?"
			return 1
		}
		awk -v poll="${FABSIM_SM_POLL_MS:-1000}" -v retries="${FABSIM_SM_POLL_RETRIES:-2}" '
			$1 == "sminfo_polling_timeout" { $2 = poll }
			$1 == "polling_retry_number" { $2 = retries }
			BEGIN {
				n = split(ENVIRON["FABSIM_OSM_EXTRA_CONF"], l, "\n")
				for (i = 1; i <= n; i++) {
					if (split(l[i], kv, " ") < 2)
						continue
					v = l[i]
					sub(/^[ \t]*[^ \t]+[ \t]+/, "", v)
					over[kv[1]] = v
				}
			}
			($1 in over) { $0 = $1 " " over[$1]; delete over[$1] }
			{ print }
			END { for (k in over) print k " " over[k] }' "$conf.default" >"$conf" || return 1
	fi
	: >>"$log"
	# OpenSM appends to its log: only what this start writes counts.
	off=$(stat -c %s "$log")
	# shellcheck disable=SC2086
	(
		cd "$dir/scratch" || exit 1
		export LD_PRELOAD=$preload IBSIM_SOCKNAME=$sock SIM_HOST=$host
		export OSM_TMP_DIR=$smdir OSM_CACHE_DIR=$smdir
		exec opensm -F "$conf" -p "$prio" -d2 -f "$log" ${FABSIM_OPENSM_ARGS:-}
	) </dev/null >"$smdir/opensm.out" 2>&1 &
	pid=$!
	_fabsim_record "$dir" "sm$n" "$pid"
	disown "$pid"

	# Ready means SUBNET UP, or STANDBY when another SM runs with a higher
	# or equal priority. An SM with a higher priority than the running one
	# takes over (handover) and must reach SUBNET UP itself.
	want='SUBNET UP'
	other=$((3 - n))
	# shellcheck disable=SC2046
	if _fabsim_alive $(_fabsim_pid_of "$dir" "sm$other" || echo 0); then
		oprio=$(sed -n 's/^prio //p' "$dir/sm$other/args")
		((prio > ${oprio:-0})) || want='Entering STANDBY state|SUBNET UP'
	fi
	t=$(_fabsim_timeout)
	for ((i = 0; i < t * 10; i++)); do
		grep -qE "$want" <(tail -c "+$((off + 1))" "$log") && return 0
		if ! _fabsim_alive "$pid"; then
			wait "$pid" 2>/dev/null || true
			# an SM that runs once (-o) logs SUBNET UP and exits: under
			# load it can do both between two looks
			grep -qE "$want" <(tail -c "+$((off + 1))" "$log") && return 0
			_fabsim_err "OpenSM $n on \"$host\" exited during start"
			_fabsim_tail "$smdir/opensm.out"
			_fabsim_tail "$log"
			return 1
		fi
		sleep 0.1
	done
	_fabsim_err "OpenSM $n on \"$host\" not up after $t s (FABSIM_TIMEOUT)"
	if [[ $want == 'SUBNET UP' ]] &&
		grep -q 'Entering STANDBY state' <(tail -c "+$((off + 1))" "$log"); then
		_fabsim_err "it took over from a lower-priority SM: that handover hangs now and" \
			"then under ibsim; start the higher-priority SM first (start --sm-prio)"
	fi
	_fabsim_tail "$log"
	return 1
}

# fabsim_stop_sm DIR [1|2] [--kill]   (--kill: SIGKILL, a crash; default SIGTERM)
fabsim_stop_sm() {
	local dir n=1 sig=TERM
	dir=$(_fabsim_abs "${1:-}")
	shift || true
	_fabsim_check_dir "$dir" || return 1
	while (($#)); do
		case "$1" in
		1 | 2) n=$1 ;;
		--kill) sig=KILL ;;
		*) _fabsim_err "stop-sm: unknown argument \"$1\""; return 1 ;;
		esac
		shift
	done
	# shellcheck disable=SC2046
	set -- $(_fabsim_pid_of "$dir" "sm$n") || true
	if (($# == 2)); then
		_fabsim_end "$1" "$2" "$sig"
		_fabsim_unrecord "$dir" "sm$n"
	fi
	return 0
}

# ---------------------------------------------------------------- start / stop

# fabsim_start NETFILE DIR [--sm-host NODE] [--sm-prio P] [--sm2-host NODE]
#              [--sm2-prio P] [--no-sm]
fabsim_start() {
	local net dir sm=1 smhost="" smprio="" sm2host="" sm2prio="" opt
	local preload sock first limits pid t i
	net=${1:-}
	dir=${2:-}
	if [[ -z $net || -z $dir ]]; then
		_fabsim_err "usage: fabsim.sh start NETFILE DIR [--sm-host NODE] [--sm-prio P] [--sm2-host NODE --sm2-prio P] [--no-sm]"
		return 1
	fi
	shift 2
	while (($#)); do
		opt=$1
		case "$opt" in
		--no-sm) sm=0; shift ;;
		--sm-host | --sm-prio | --sm2-host | --sm2-prio)
			if (($# < 2)); then
				_fabsim_err "$opt needs a value"
				return 1
			fi
			case "$opt" in
			--sm-host) smhost=$2 ;;
			--sm-prio) smprio=$2 ;;
			--sm2-host) sm2host=$2 ;;
			--sm2-prio) sm2prio=$2 ;;
			esac
			shift 2 ;;
		*) _fabsim_err "start: unknown option \"$opt\""; return 1 ;;
		esac
	done
	if [[ ! -r $net ]]; then
		_fabsim_err "cannot read net file \"$net\""
		return 1
	fi
	if [[ -n $sm2prio && -z $sm2host ]]; then
		_fabsim_err "--sm2-prio needs --sm2-host (one SM per node)"
		return 1
	fi
	net=$(_fabsim_abs "$net")
	dir=$(_fabsim_abs "$dir")
	mkdir -p "$dir/scratch" || return 1
	if [[ -s $dir/pids ]]; then
		local role p s
		while read -r role p s; do
			if _fabsim_alive "$p" "$s"; then
				_fabsim_err "\"$dir\" already runs a simulator ($role pid $p): stop it first"
				return 1
			fi
		done <"$dir/pids"
	fi
	rm -f "$dir/pids" "$dir/env" "$dir/ctl" "$dir/ibsim.log" "$dir/osm.log" "$dir/osm2.log"
	rm -rf "$dir/sm1" "$dir/sm2"
	preload=$(_fabsim_umad2sim) || return 1
	command -v ibsim >/dev/null || { _fabsim_err "ibsim not found: install ibsim-utils"; return 1; }
	command -v opensm >/dev/null || { _fabsim_err "opensm not found: install opensm"; return 1; }
	first=$(_fabsim_first_node "$net")
	if [[ -z $first ]]; then
		_fabsim_err "no Switch/Hca record in \"$net\""
		return 1
	fi
	# Abstract unix socket names: unique per directory and per starting shell.
	sock="fabsim-$(printf '%s' "$dir" | cksum | cut -d' ' -f1)-$$"
	limits=$(_fabsim_limits "$net")

	mkfifo "$dir/ctl" || return 1
	# The holder keeps a writer on the fifo so ibsim never reads EOF between
	# console commands. Its open() blocks until ibsim opens the read end.
	# shellcheck disable=SC2217
	sleep 2147483647 >"$dir/ctl" </dev/null 2>/dev/null &
	_fabsim_record "$dir" holder "$!"
	disown "$!"
	# shellcheck disable=SC2086
	(
		cd "$dir/scratch" || exit 1
		export IBSIM_SOCKNAME=$sock
		exec ibsim -s $limits "$net"
	) <"$dir/ctl" >"$dir/ibsim.log" 2>&1 &
	pid=$!
	_fabsim_record "$dir" ibsim "$pid"
	disown "$pid"
	{
		printf '# Written by fabsim.sh start. Safe to source: LD_PRELOAD is left out on purpose\n'
		printf '# (use "fabsim.sh run" or LD_PRELOAD=$FABSIM_LD_PRELOAD for one command).\n'
		printf "export FABSIM_DIR='%s'\n" "$dir"
		printf "export FABSIM_NETFILE='%s'\n" "$net"
		printf "export IBSIM_SOCKNAME='%s'\n" "$sock"
		printf "export SIM_HOST='%s'\n" "$first"
		printf "export FABSIM_LD_PRELOAD='%s'\n" "$preload"
	} >"$dir/env"

	t=$(_fabsim_timeout)
	for ((i = 0; i < t * 10; i++)); do
		grep -q 'Network simulator ready' "$dir/ibsim.log" 2>/dev/null && break
		if ! _fabsim_alive "$pid"; then
			_fabsim_err "ibsim exited during start (net file \"$net\")"
			_fabsim_tail "$dir/ibsim.log"
			fabsim_stop "$dir"
			return 1
		fi
		sleep 0.1
	done
	if ! grep -q 'Network simulator ready' "$dir/ibsim.log"; then
		_fabsim_err "ibsim not ready after $t s (FABSIM_TIMEOUT)"
		_fabsim_tail "$dir/ibsim.log"
		fabsim_stop "$dir"
		return 1
	fi
	((sm)) || return 0
	if ! fabsim_start_sm "$dir" 1 ${smhost:+--host "$smhost"} ${smprio:+--prio "$smprio"}; then
		fabsim_stop "$dir"
		return 1
	fi
	if [[ -n $sm2host ]] &&
		! fabsim_start_sm "$dir" 2 --host "$sm2host" ${sm2prio:+--prio "$sm2prio"}; then
		fabsim_stop "$dir"
		return 1
	fi
	return 0
}

# fabsim_stop DIR: end OpenSM(s), ibsim and the fifo holder, by recorded pid.
# Idempotent; keeps the logs.
fabsim_stop() {
	local dir role pid st r
	dir=$(_fabsim_abs "${1:-}")
	if [[ -z ${1:-} ]]; then
		_fabsim_err "usage: fabsim.sh stop DIR"
		return 1
	fi
	[[ -f $dir/pids ]] || return 0
	# Clients still running (started by fabsim_run), then the SMs, then the
	# simulator, then the fifo holder.
	for pid in $(_fabsim_clients "$dir"); do
		_fabsim_end "$pid" "$(_fabsim_starttime "$pid")"
	done
	for r in sm2 sm1 ibsim holder; do
		while read -r role pid st; do
			[[ $role == "$r" ]] && _fabsim_end "$pid" "$st"
		done <"$dir/pids"
	done
	rm -f "$dir/pids" "$dir/ctl" "$dir/env"
	# Clients that were killed leave their fake sysfs behind.
	_fabsim_clean_sysfs "$dir"
	return 0
}

# ---------------------------------------------------------------- clients

# fabsim_run DIR [--host NODE] [--pidfile FILE] -- CMD [ARG...]
# Runs CMD with LD_PRELOAD=umad2sim, IBSIM_SOCKNAME and SIM_HOST, in DIR/scratch.
# --pidfile writes the pid CMD runs as (for "fabsim_run ... &" then kill).
fabsim_run() {
	local dir host="" pidfile="" caller=$PWD
	dir=$(_fabsim_abs "${1:-}")
	shift || true
	_fabsim_check_dir "$dir" || return 1
	while (($#)); do
		case "$1" in
		--host | --pidfile)
			if (($# < 2)); then
				_fabsim_err "$1 needs a value"
				return 1
			fi
			if [[ $1 == --host ]]; then host=$2; else pidfile=$(_fabsim_abs "$2"); fi
			shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	if (($# == 0)); then
		_fabsim_err "usage: fabsim.sh run DIR [--host NODE] [--pidfile FILE] -- CMD [ARG...]"
		return 1
	fi
	(
		# shellcheck disable=SC1091
		source "$dir/env" || exit 1
		[[ -n $host ]] && SIM_HOST=$host
		cd "$dir/scratch" || exit 1
		[[ -n $pidfile ]] && { echo "$BASHPID" >"$pidfile" || exit 1; }
		# FABSIM_CLIENT_OF marks the client (and its children) for fabsim_stop.
		export FABSIM_CALLER_CWD=$caller SIM_HOST FABSIM_CLIENT_OF=$dir
		export LD_PRELOAD=$FABSIM_LD_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}
		# exec a program, so that "fabsim_run ... &" gives the caller its pid.
		if [[ $(type -t "$1") == file ]]; then
			exec "$@"
		fi
		"$@"
	)
}

# fabsim_console DIR 'COMMAND': send one ibsim console command and wait until
# ibsim has processed it (a '# fabsim-sync' comment sent after it is echoed).
# Prints ibsim's answer; fails when ibsim reports an error.
fabsim_console() {
	local dir cmd mark off t i out rc=0 pid st
	dir=$(_fabsim_abs "${1:-}")
	cmd=${2:-}
	_fabsim_check_dir "$dir" || return 1
	if [[ -z $cmd || $cmd == *$'\n'* ]]; then
		_fabsim_err "console: give one command line, e.g. 'Attached'"
		return 1
	fi
	read -r pid st < <(_fabsim_pid_of "$dir" ibsim) || true
	if [[ -z ${pid:-} ]] || ! _fabsim_alive "$pid" "$st"; then
		_fabsim_err "ibsim is not running in \"$dir\""
		return 1
	fi
	mark="# fabsim-sync $$-$RANDOM-$SECONDS"
	off=$(stat -c %s "$dir/ibsim.log")
	# Each write is one line, shorter than PIPE_BUF: atomic on the fifo.
	if ! timeout 5 bash -c 'printf "%s\n" "$1" >"$3" && printf "%s\n" "$2" >"$3"' _ \
		"$cmd" "$mark" "$dir/ctl"; then
		_fabsim_err "cannot write to \"$dir/ctl\""
		return 1
	fi
	t=${FABSIM_CONSOLE_TIMEOUT:-10}
	for ((i = 0; i < t * 50; i++)); do
		# Not a pipe: under the caller's pipefail, grep -q ending first would fail it.
		grep -qF "$mark" <(tail -c "+$((off + 1))" "$dir/ibsim.log") && break
		sleep 0.02
	done
	out=$(tail -c "+$((off + 1))" "$dir/ibsim.log")
	if [[ $out != *"$mark"* ]]; then
		_fabsim_err "ibsim did not process \"$cmd\" within $t s"
		return 1
	fi
	out=${out%%"$mark"*}
	out=${out//sim> /}
	out=$(printf '%s\n' "$out" | grep -v -e '^ibwarn:' -e '^[[:space:]]*$' || true)
	[[ -n $out ]] && printf '%s\n' "$out"
	# ibsim has no status code: recognise its error messages.
	if grep -qiE "not found|unknown|bad |can't|cannot|failed|must be|missing|does not match" <<<"$out"; then
		rc=1
	fi
	return $rc
}

# fabsim_resweep DIR [1|2]: after a change to the fabric (Unlink, Link,
# ibportstate), has the SM (default 1, the one that is master) sweep now and
# waits (bounded by FABSIM_TIMEOUT) until it has configured the change: a
# test waits for this instead of sleeping. SIGHUP makes OpenSM run a heavy
# sweep, which logs SUBNET UP when it ends. A sweep already under way when
# the signal comes can end after it without having seen the change, so this
# asks twice: the second SUBNET UP comes from a sweep that began after the
# first request, hence after the change.
fabsim_resweep() {
	local dir n=1 pid st log off round t i
	dir=$(_fabsim_abs "${1:-}")
	[[ ${2:-} == 1 || ${2:-} == 2 ]] && n=$2
	_fabsim_check_dir "$dir" || return 1
	read -r pid st < <(_fabsim_pid_of "$dir" "sm$n") || true
	if [[ -z ${pid:-} ]] || ! _fabsim_alive "$pid" "$st"; then
		_fabsim_err "SM $n is not running in \"$dir\""
		return 1
	fi
	if ((n == 1)); then log=$dir/osm.log; else log=$dir/osm2.log; fi
	t=$(_fabsim_timeout)
	for round in 1 2; do
		off=$(stat -c %s "$log")
		kill -HUP "$pid" 2>/dev/null || { _fabsim_err "cannot signal SM $n (pid $pid)"; return 1; }
		for ((i = 0; i < t * 50; i++)); do
			grep -q 'SUBNET UP' <(tail -c "+$((off + 1))" "$log") && continue 2
			_fabsim_alive "$pid" "$st" || { _fabsim_err "SM $n exited during a sweep"; return 1; }
			sleep 0.02
		done
		_fabsim_err "SM $n did not finish a sweep within $t s (round $round)"
		_fabsim_tail "$log"
		return 1
	done
	return 0
}

# fabsim_reap DIR: disconnect ("X n") every attached client whose pid is gone.
fabsim_reap() {
	local dir out n p freed=0
	dir=$(_fabsim_abs "${1:-}")
	out=$(fabsim_console "$dir" Attached) || return 1
	while read -r n p; do
		if ! _fabsim_alive "$p"; then
			fabsim_console "$dir" "X $n" >/dev/null || true
			freed=$((freed + 1))
		fi
	done < <(sed -n 's/^Client \([0-9]*\): pid \([0-9]*\) .*/\1 \2/p' <<<"$out")
	_fabsim_clean_sysfs "$dir"
	printf 'freed %d client slot(s)\n' "$freed"
}

# fabsim_status DIR: one line per recorded process; fails when one is gone.
fabsim_status() {
	local dir role pid st rc=0
	dir=$(_fabsim_abs "${1:-}")
	if [[ ! -f $dir/pids ]]; then
		echo "stopped"
		return 1
	fi
	while read -r role pid st; do
		if _fabsim_alive "$pid" "$st"; then
			printf '%s %s running\n' "$role" "$pid"
		else
			printf '%s %s gone\n' "$role" "$pid"
			rc=1
		fi
	done <"$dir/pids"
	return $rc
}

# ---------------------------------------------------------------- command line

_fabsim_usage() {
	sed -n '5,15s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

fabsim_main() {
	local cmd=${1:-}
	shift || true
	case "$cmd" in
	start) fabsim_start "$@" ;;
	run) fabsim_run "$@" ;;
	console) fabsim_console "$@" ;;
	stop) fabsim_stop "$@" ;;
	stop-sm) fabsim_stop_sm "$@" ;;
	start-sm) fabsim_start_sm "$@" ;;
	resweep) fabsim_resweep "$@" ;;
	reap) fabsim_reap "$@" ;;
	status) fabsim_status "$@" ;;
	-h | --help | help) _fabsim_usage ;;
	*)
		_fabsim_usage >&2
		return 2 ;;
	esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	fabsim_main "$@"
	exit $?
fi
