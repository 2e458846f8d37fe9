# shellcheck shell=bash
# Mutants of `ready` (its verdicts, --pkey pairs, --json, the text, the Slurm
# prolog and NHC check): sourced by tests/meta/mutants.sh (mut, MUTANTS).
MUTANTS+=(
	"ready_json_verdict     integration/test_ready_sim             Failed   m_ready_json_verdict"
	"ready_json_checked     integration/test_ready_sim             Failed   m_ready_json_checked"
	"ready_json_state       integration/test_ready_sim             Failed   m_ready_json_state"
	"ready_json_hop_index   integration/test_partitions_sim        Failed   m_ready_json_hop_index"
	"ready_pairs_in_group   ready/test_pairs                       Failed   m_ready_pairs_in_group"
	"ready_text_no_want     integration/test_partitions_sim        Failed   m_ready_text_no_want"
	"ready_prolog_pkey      integration/test_ready_sim             Failed   m_ready_prolog_pkey"
	"ready_prolog_one_line  integration/test_ready_sim             Failed   m_ready_prolog_one_line"
	"ready_nhc_fail_on      integration/test_ready_sim             Failed   m_ready_nhc_fail_on"
)
m_ready_json_verdict() { # --json: every host gets the overall verdict
	mut reports/json_ready.c 's/"verdict", verdict(r->verdict\[i\]), "problems"/"verdict", verdict(fab_ready_overall(r)), "problems"/'
}
m_ready_json_checked() { # --json: pairs.checked counts the failing pairs
	mut reports/json_ready.c 's/"checked", fab_jw_uint(p->n_pairs))/"checked", fab_jw_uint(p->n_failing))/'
}
m_ready_pairs_in_group() { # hosts with equal tables never judged against each other
	mut scanner/ready_pairs.c 's/if (k == g \&\& gfirst\[g + 1\] - gfirst\[g\] < 2)/if (k == g)/'
}
m_ready_text_no_want() { # the text forgets that a partition was asked (--pkey)
	mut cli/print_ready.c 's/: p->want ? "they do not share the partition" : "they share no partition");/: "they share no partition");/'
}
m_ready_prolog_pkey() { # the prolog ignores FABSWEEP_PROLOG_PKEY
	mut scripts/slurm/fabsweep-prolog.sh 's/\&\& pkey=(--pkey "$FABSWEEP_PROLOG_PKEY")/\&\& pkey=()/'
}
m_ready_prolog_one_line() { # the prolog logs the first problem only
	mut scripts/slurm/fabsweep-prolog.sh 's/\[\[ -n $line \]\] \&\& say "not ready: $line"/[[ -n $line ]] \&\& say "not ready: $line" \&\& break/'
}
m_ready_nhc_fail_on() { # the NHC check ignores -f
	mut scripts/slurm/fabsweep.nhc 's/f) fail_on=$OPTARG ;;/f) ;;/'
}
m_ready_json_state() { # --json: a probed port's state is the sweep's, not what the probe read
	mut reports/json_ready.c 's/fab_state_name(pp->live.state)/fab_state_name(p->state)/'
}
m_ready_json_hop_index() { # --json: a pair's hop counted from 0 while the links are numbered from 1
	mut reports/json_ready.c 's/json_integer((json_int_t)x->hop + 1)/json_integer((json_int_t)x->hop)/'
}
