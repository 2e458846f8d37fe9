# shellcheck shell=bash
# The RoCE congestion-control rules (rules/check_roce_cc.c, rules/check_roce.c):
# sourced by tests/meta/mutants.sh. Caught by the rule fixtures
# (fixtures/rules/roce.*: the variants at non-default [roce] parameters).
MUTANTS+=(
	"roce_ecn_priority_fixed  rules/test_fixtures  Failed  m_roce_ecn_priority_fixed"
	"roce_ecn_rp_from_np      rules/test_fixtures  Failed  m_roce_ecn_rp_from_np"
	"roce_ecn_rp_evidence     rules/test_fixtures  Failed  m_roce_ecn_rp_evidence"
	"roce_cnp_config_ignored  rules/test_fixtures  Failed  m_roce_cnp_config_ignored"
	"roce_cnp_dscp_as_prio    rules/test_fixtures  Failed  m_roce_cnp_dscp_as_prio"
	"roce_dscp_param_ignored  rules/test_fixtures  Failed  m_roce_dscp_param_ignored"
	"roce_rate_scan_clock     rules/test_fixtures  Failed  m_roce_rate_scan_clock"
	"roce_rate_limit_reached  rules/test_fixtures  Failed  m_roce_rate_limit_reached"
	"roce_trust_tie_judged    rules/test_fixtures  Failed  m_roce_trust_tie_judged"
)
# roce.ecn_disabled judges the default priority 3 whatever [roce] priority says
m_roce_ecn_priority_fixed() {
	mut rules/check_roce_cc.c '/^int check_roce_ecn_disabled/,/^}/ s/^\tunsigned prio = roce_priority(ctx);$/\tunsigned prio = 3;/'
}
# the reaction point's state is read from the notification point's bitmap (never off alone)
m_roce_ecn_rp_from_np() {
	mut rules/check_roce_cc.c 's/bool rp_off = (e->known \& FAB_ECN_RP) \&\& !(e->rp_enabled \& bit);/bool rp_off = (e->known \& FAB_ECN_RP) \&\& !(e->np_enabled \& bit);/'
}
# the evidence lists the notification point's priorities as the reaction point's
m_roce_ecn_rp_evidence() {
	mut rules/check_roce_cc.c 's/ecn_points(&ctx->ev, e, FAB_ECN_RP, e->rp_enabled);/ecn_points(\&ctx->ev, e, FAB_ECN_RP, e->np_enabled);/'
}
# [roce] cnp_dscp is ignored: the majority always decides
m_roce_cnp_config_ignored() {
	mut rules/check_roce_cc.c 's/cnp_majority(v->votes->cnp_dscp, 64, rule_param(ctx, 0));/cnp_majority(v->votes->cnp_dscp, 64, -1);/'
}
# a CNP DSCP is compared with the RoCE priority, not the RoCE DSCP
m_roce_cnp_dscp_as_prio() {
	mut rules/check_roce_cc.c 's/cnp_problem(&ctx->tmp, "DSCP", e->cnp_dscp, &xd, dscp);/cnp_problem(\&ctx->tmp, "DSCP", e->cnp_dscp, \&xd, prio);/'
}
# roce.dscp_mapping checks DSCP 26 whatever [roce] dscp says
m_roce_dscp_param_ignored() {
	mut rules/check_roce.c 's/^\tunsigned dscp = (unsigned)rule_param(ctx, 0), prio = roce_priority(ctx);$/\tunsigned dscp = 26, prio = roce_priority(ctx);/'
}
# roce.congestion divides by the time between the scans, not between the system's collections
m_roce_rate_scan_clock() {
	mut rules/check_roce.c 's/^\t\tint64_t ms = key.at_ms > 0 \&\& b->at_ms > 0 ? key.at_ms - b->at_ms : fallback_ms;$/\t\tint64_t ms = fallback_ms;/'
}
# a counter rising exactly at its limit fires
m_roce_rate_limit_reached() { mut rules/check_roce.c 's/^\t\tif (rate <= lim)$/\t\tif (rate < lim)/'; }
# trust split evenly still names an odd one out
m_roce_trust_tie_judged() {
	mut rules/check_roce_cc.c 's/^\tif (votes\[FAB_TRUST_DSCP\] == votes\[FAB_TRUST_PCP\])$/\tif (!known)/'
}
# what the RoCE rules read, as collected from a real lldpd (needs root, as CI runs it)
MUTANTS+=("roce_nb_descr_is_id      integration/test_roce_fabric  Failed  m_roce_nb_descr_is_id")
# a neighbour's port description is recorded as its port id
m_roce_nb_descr_is_id() {
	mut host/lldp.c 's/n->port_descr = get_safe(r, nb, lldpctl_k_port_descr);/n->port_descr = get_safe(r, nb, lldpctl_k_port_id);/'
}
