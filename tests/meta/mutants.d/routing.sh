# shellcheck shell=bash
# The routing rules (rules/check_routing.c, core/route_*.c; docs/routing.md):
# routing.unreachable, routing.credit_loop, routing.imbalance. Sourced by
# tests/meta/mutants.sh.
MUTANTS+=(
	"imbalance_idle_unjudged  rules/test_fixtures  Failed  m_imbalance_idle_unjudged"
	"imbalance_max_dev_fixed  rules/test_fixtures  Failed  m_imbalance_max_dev_fixed"
	"imbalance_sideways_up    rules/test_fixtures  Failed  m_imbalance_sideways_up"
	"unreachable_self_pair    rules/test_fixtures  Failed  m_unreachable_self_pair"
	"unreachable_failed_table rules/test_fixtures  Failed  m_unreachable_failed_table"
	"credit_loop_sls_ignored  rules/test_fixtures  Failed  m_credit_loop_sls_ignored"
	"routing_rules_skipped    integration/test_scan_routes  Failed  m_routing_rules_skipped"
	"unreachable_65_links_ok  rules/test_routing_chain  Failed  m_unreachable_65_links_ok"
)
# a branch never taken: only the busiest up-port is judged, an idle one never
m_imbalance_idle_unjudged() {
	mut rules/check_routing.c 's/(double)count\[lo\] >= mean \* (1 - pct) - 1))/true))/'
}
# a parameter ignored: [routing.imbalance] max_deviation is always the default 50%
m_imbalance_max_dev_fixed() { mut rules/check_routing.c 's/double pct = rule_param(ctx, 0) \/ 100.0;/double pct = 0.5;/'; }
# a branch always taken: a link to a switch of the same role counts as an up-port
m_imbalance_sideways_up() { mut rules/check_routing.c 's/r->role > n->role \&\&/r->role >= n->role \&\&/'; }
# a value wrong: a destination's own port counted as a source of pairs to it
m_unreachable_self_pair() {
	mut rules/check_routing.c 's/return b - a - (fab_route_first_switch(ix, dst) == sw);/return b - a;/'
}
# a branch never taken: a table that was not read is judged from what it holds
m_unreachable_failed_table() { mut core/route_walk.c 's/if (!l || l->status == FAB_LFT_FAILED) {/if (!l) {/'; }
# a parameter ignored: [routing] sls is always every SL 0-14
m_credit_loop_sls_ignored() {
	mut rules/check_routing.c 's/fab_cdg_find_lanes(&ix, (uint16_t)rule_param(ctx, 0), &g)/fab_cdg_find_lanes(\&ix, 0x7fff, \&g)/'
}
# a branch always taken: the rules that need forwarding tables are skipped
# as if no scan had read them
m_routing_rules_skipped() {
	mut rules/engine.c 's/if ((needs \& FAB_NEED_ROUTES) \&\& !fab_routing_present(s))/if (needs \& FAB_NEED_ROUTES)/'
}
# a threshold off by one: a route of 65 links is taken to arrive
m_unreachable_65_links_ok() {
	mut core/route_walk.c 's/if (w->hops\[t\] + 1 >= FAB_ROUTE_MAX_HOPS) {/if (w->hops[t] + 1 > FAB_ROUTE_MAX_HOPS) {/'
}
