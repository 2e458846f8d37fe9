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
	"roceready_dcb_any_ifname   host/test_dcb                   Failed   m_roceready_dcb_any_ifname"
	"roceready_prolog_not_local integration/test_roce_ready     Failed   m_roceready_prolog_not_local"
	"roceready_nic_no_baseline  ready/test_roce                 Failed   m_roceready_nic_no_baseline"
	"roceready_linkdown_limit   ready/test_roce                 Failed   m_roceready_linkdown_limit"
	"roceready_phys_any_port    ready/test_roce                 Failed   m_roceready_phys_any_port"
	"roceready_module_unmerged  cli/test_ready_local            Failed   m_roceready_module_unmerged"
	"roceready_master_unread    cli/test_ready_local            Failed   m_roceready_master_unread"
	"roceready_nic_unread       integration/test_roce_ready     Failed   m_roceready_nic_unread"
)
# a value wrong: the majority rules count this part only, not the fabric
# an extract carries the votes of (trust PCP then looks like the majority)
m_roceready_outside_ignored() { mut rules/check_roce.c 's/\tif (roce_votes(v, true, &v->votes)) {/\tif (roce_votes(v, false, \&v->votes)) {/'; }
# a branch never taken: the cabling compares the switch, not its port
m_roceready_port_ignored() { mut pipeline/ready_roce.c 's/^\t\t\t\t\tstrcmp(e->heard_port, e->want_port))) {$/\t\t\t\t\t0)) {/'; }
# a parameter ignored: --fail-on (every finding counts)
m_roceready_fail_on_ignored() { mut pipeline/ready_roce.c 's/^\t\tbool counts = fail_on < FAB_SEV__COUNT \&\& f->severity >= fail_on, merged = false;$/\t\tbool counts = true, merged = false;/'; }
# a branch never taken: the merge's links at this host are kept where its
# LLDP hears another end, or none (a deaf port looks cabled)
m_roceready_stale_kept() { mut pipeline/ready_roce.c 's/^\t\tif (!stale)$/\t\tif (1)/'; }
# a parameter ignored: the configured counter increases ([port.link_flapping])
m_roceready_limits_default() { mut pipeline/ready_roce.c 's/\tfab_rules_increase_limits(g->cfg, \&limits);/\tfab_rules_increase_limits(NULL, \&limits);/'; }
# a value lost: an extract's votes of the rest of the fabric are not stored
m_roceready_votes_unwritten() { mut store/roce_votes.c 's/^\tif (!v)$/\tif (1)/'; }
# a value wrong: a saved DCB reply is taken for any interface
m_roceready_dcb_any_ifname() { mut host/dcb.c 's/\t\t\t\t      strcmp(info->ifname, p->ifname))) {/\t\t\t\t      0)) {/'; }
# a branch never taken: the prolog never asks for ready --local
m_roceready_prolog_not_local() { mut scripts/slurm/fabsweep-prolog.sh 's/^if \[\[ $scope == local \]\]; then/if false; then/'; }
# a branch never taken: NIC counters the merge has no reading of stay in
# the judged view (the rules then judge them since the driver's load)
m_roceready_nic_no_baseline() { mut pipeline/ready_roce_phys.c 's/^\tp->nic_count = 0;$/\t(void)p;/'; }
# a parameter ignored: the NIC's link-down events judged without
# [port.link_flapping]'s configured limit
m_roceready_linkdown_limit() { mut pipeline/ready_roce_phys.c 's/^\tdouble allowed = limits->allowed\[FAB_CTR_LINK_DOWNED\];/\tdouble allowed = limits->allowed[FAB_CTR_LINK_DOWNED] >= 0 ? 0 : -1;/'; }
# a value wrong: the physical rules' findings count whatever port they are
# about (the switch's storm in the merge, the management port's)
m_roceready_phys_any_port() { mut pipeline/ready_roce.c 's/(!f->node || strcmp(f->node, res->name) || !rr_phys_iface(g, f->port, \&merged)))/(rr_phys_iface(g, f->port, \&merged) \&\& 0))/'; }
# a branch never taken: the merge's module is not judged when none was read now
m_roceready_module_unmerged() { mut pipeline/ready_roce_phys.c 's/^\t\tif (fab_roce_copy_module(g->j, e->jport, g->ref, e->rport)) {/\t\tif (0) {/'; }
# a value lost: sysfs's master link not read (a RoCE bond's ports are not its RoCE interfaces)
m_roceready_master_unread() { mut host/sysfs.c 's/^\t\tp->master = link_name(r, ifdir, "master");/\t\tp->master = NULL;/'; }
# the test's environment: ready --local not given the hosts' saved NIC statistics
m_roceready_nic_unread() { mut tests/integration/test_roce_ready.sh 's/ --dcb-dir "$work\/dcb\/$1" --ethtool-dir "$work\/eth\/$1"$/ --dcb-dir "$work\/dcb\/$1"/'; }
