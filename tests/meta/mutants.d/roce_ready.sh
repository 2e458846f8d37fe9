# shellcheck shell=bash
# Mutants of ready --local on RoCE hosts (docs/roce.md, "Readiness"):
# sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"roceready_outside_ignored  ready/test_roce                 Failed   m_roceready_outside_ignored"
	"roceready_port_ignored     ready/test_roce                 Failed   m_roceready_port_ignored"
	"roceready_fail_on_ignored  ready/test_roce                 Failed   m_roceready_fail_on_ignored"
	"roceready_stale_kept       ready/test_roce                 Failed   m_roceready_stale_kept"
	"roceready_limits_default   ready/test_roce                 Failed   m_roceready_limits_default"
	"roceready_votes_unwritten  ready/test_roce                 Failed   m_roceready_votes_unwritten"
	"roceready_dcb_any_ifname   roce/test_dcb                   Failed   m_roceready_dcb_any_ifname"
	"roceready_prolog_not_local integration/test_roce_ready     Failed   m_roceready_prolog_not_local"
)
# a value wrong: the majority rules count this part only, not the fabric
# an extract carries the votes of (trust PCP then looks like the majority)
m_roceready_outside_ignored() { mut rules/check_roce.c 's/\tif (roce_votes(v, true, &v->votes)) {/\tif (roce_votes(v, false, \&v->votes)) {/'; }
# a branch never taken: the cabling compares the switch, not its port
m_roceready_port_ignored() { mut pipeline/ready_roce.c 's/^\t\t\t\t\tstrcmp(e->heard_port, e->want_port))) {$/\t\t\t\t\t0)) {/'; }
# a parameter ignored: --fail-on (every finding counts)
m_roceready_fail_on_ignored() { mut pipeline/ready_roce.c 's/^\t\tbool counts = fail_on < FAB_SEV__COUNT \&\& f->severity >= fail_on;$/\t\tbool counts = true;/'; }
# a branch never taken: the merge's links at this host are kept where its
# LLDP hears another end, or none (a deaf port looks cabled)
m_roceready_stale_kept() { mut pipeline/ready_roce.c 's/^\t\tif (!stale)$/\t\tif (1)/'; }
# a parameter ignored: the configured counter increases ([port.link_flapping])
m_roceready_limits_default() { mut pipeline/ready_roce.c 's/\tfab_rules_increase_limits(g->cfg, \&limits);/\tfab_rules_increase_limits(NULL, \&limits);/'; }
# a value lost: an extract's votes of the rest of the fabric are not stored
m_roceready_votes_unwritten() { mut store/roce_votes.c 's/^\tif (!v)$/\tif (1)/'; }
# a value wrong: a saved DCB reply is taken for any interface
m_roceready_dcb_any_ifname() { mut scanner/roce_dcb.c 's/\t\t\t\t      strcmp(info->ifname, p->ifname))) {/\t\t\t\t      0)) {/'; }
# a branch never taken: the prolog never asks for ready --local
m_roceready_prolog_not_local() { mut scripts/slurm/fabsweep-prolog.sh 's/^if \[\[ $scope == local \]\]; then/if false; then/'; }
