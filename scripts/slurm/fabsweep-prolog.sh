#!/bin/bash
# fabsweep-prolog.sh - Slurm prolog: refuse to start a job on hosts whose
# InfiniBand link is not ready (`fabsweep ready`). scripts/slurm/README.md says
# how to install it and what each exit status makes Slurm do.
#
# As the node Prolog (slurmd, on every node of the job) it checks the node it
# runs on ($SLURMD_NODENAME, else the short host name). As PrologSlurmctld (on
# the controller, once per job) set FABSWEEP_PROLOG_SCOPE=job: it checks every
# host of $SLURM_JOB_NODELIST in one probe. On a RoCE host set
# FABSWEEP_PROLOG_SCOPE=local: the node judges itself with `fabsweep ready
# --local` against its copy of the last merge.
#
# Exit status: 0 ready, or could not check (a broken checker must not drain
# the cluster; FABSWEEP_PROLOG_STRICT=1 fails then too); 1 not ready. A node
# Prolog that exits non-zero drains its node and requeues the job.
#
# Short on purpose: one fabsweep call bounded by a timeout, no scontrol (Slurm
# prologs must not call it), no network file access beyond the database.
#
# Environment (all optional):
#   FABSWEEP                 the fabsweep binary (default: fabsweep in PATH)
#   FABSWEEP_DB              the database with the latest sweep
#                            (default /var/lib/fabsweep/fabsweep.db)
#   FABSWEEP_PROLOG_SCOPE    node (default), job, or local (a RoCE host)
#   FABSWEEP_PROLOG_TIMEOUT  seconds before giving up (default 10)
#   FABSWEEP_PROLOG_STRICT   1: "could not check" fails the prolog too
#   FABSWEEP_PROLOG_FAIL_ON  findings that count: of the sweep (node, job: error by
#                            default) or of the rules (local: warning by default)
#   FABSWEEP_PROLOG_ARGS     more options for fabsweep ready (split at blanks),
#                            e.g. --config FILE, or --lldp-socket PATH for local
#   FABSWEEP_PROLOG_PKEY     with scope job: the partition every pair of the job's hosts
#                            must share (0x8001); default: any with a full member
set -u

fabsweep=${FABSWEEP:-fabsweep}
db=${FABSWEEP_DB:-/var/lib/fabsweep/fabsweep.db}
limit=${FABSWEEP_PROLOG_TIMEOUT:-10}
[[ $limit =~ ^[0-9]+$ && $limit -gt 0 ]] || limit=10
scope=${FABSWEEP_PROLOG_SCOPE:-node}
fail_on=${FABSWEEP_PROLOG_FAIL_ON:-error}
[[ $scope == local ]] && fail_on=${FABSWEEP_PROLOG_FAIL_ON:-warning}
set -f # the extra options are split at blanks, never globbed
extra=(${FABSWEEP_PROLOG_ARGS:-})
set +f

if [[ $scope == job ]]; then
	hosts=${SLURM_JOB_NODELIST:-}
else
	hosts=${SLURMD_NODENAME:-$(hostname -s 2>/dev/null)}
fi

say() { # one line to syslog (Slurm discards a prolog's output) and stderr
	logger -t fabsweep-prolog -- "job ${SLURM_JOB_ID:-?}: $*" 2>/dev/null
	printf 'fabsweep-prolog: %s\n' "$*" >&2
}

if [[ -z $hosts ]]; then
	say "no host to check (SLURMD_NODENAME / SLURM_JOB_NODELIST unset): not checked"
	[[ ${FABSWEEP_PROLOG_STRICT:-0} == 1 ]] && exit 1
	exit 0
fi

pkey=()
[[ -n ${FABSWEEP_PROLOG_PKEY:-} ]] && pkey=(--pkey "$FABSWEEP_PROLOG_PKEY")
if [[ $scope == local ]]; then # this RoCE host judges itself: no host list, no MADs
	out=$(timeout "$limit" "$fabsweep" ready --local --db "$db" --fail-on "$fail_on" --quiet "${extra[@]}" 2>&1)
else
	out=$(timeout "$limit" "$fabsweep" ready --db "$db" --hosts "$hosts" --fail-on "$fail_on" "${pkey[@]}" \
		--quiet "${extra[@]}" 2>&1)
fi
rc=$?
case $rc in
0)
	exit 0 ;;
1)
	while IFS= read -r line; do
		[[ -n $line ]] && say "not ready: $line"
	done <<<"$out"
	exit 1 ;;
*)
	# 3 could not check, 2 usage, 124 timeout, 127 no fabsweep
	[[ $rc == 124 ]] && out="no answer within ${limit}s"
	say "could not check $hosts (exit $rc): ${out%%$'\n'*}"
	[[ ${FABSWEEP_PROLOG_STRICT:-0} == 1 ]] && exit 1
	exit 0 ;;
esac
