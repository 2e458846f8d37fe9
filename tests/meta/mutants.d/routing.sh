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

# The SL2VL tables' order and index (core/routing.c), their load
# (store/sl2vl_io.c) and the per-lane pass's shortcuts
# (core/route_lanes.c).
MUTANTS+=(
	"sl2vl_row_last_missed    core/test_routing_sl2vl  Failed  m_sl2vl_row_last_missed"
	"sl2vl_top_in_missed      core/test_routing_sl2vl  Failed  m_sl2vl_top_in_missed"
	"sl2vl_stale_index        core/test_routing_sl2vl  Failed  m_sl2vl_stale_index"
	"sl2vl_node_order_flipped core/test_routing_sl2vl  Failed  m_sl2vl_node_order_flipped"
	"sl2vl_guid_kept          store/test_sl2vl         Failed  m_sl2vl_guid_kept"
	"lanes_word_straddle      core/test_route_lanes    Failed  m_lanes_word_straddle"
	"lanes_ca_tables_dropped  core/test_route_lanes    Failed  m_lanes_ca_tables_dropped"
	"lanes_sls_one_pass_off   core/test_route_lanes    Failed  m_lanes_sls_one_pass_off"
	"lanes_alike_when_not     core/test_route_lanes    Failed  m_lanes_alike_when_not"
	"lanes_alike_drop_kept    core/test_route_lanes    Failed  m_lanes_alike_drop_kept"
	"lanes_alike_all_sets     core/test_route_lanes    Failed  m_lanes_alike_all_sets"
	"lanes_copy_sl_lost       core/test_route_lanes    Failed  m_lanes_copy_sl_lost"
)
# a row's last table outside its range
m_sl2vl_row_last_missed() { mut core/routing.c 's/^\t\thi = r->sl2vl_row\[b + in + 1\];/\t\thi = r->sl2vl_row[b + in + 1] - 1;/'; }
# a node's highest in-port taken for past its rows
m_sl2vl_top_in_missed() { mut core/routing.c 's/^\t\tif (in + 1u >= e - b)$/\t\tif (in + 2u >= e - b)/'; }
# the index used after the tables changed behind it
m_sl2vl_stale_index() { mut core/routing.c 's/if (r \&\& r->n_sl2vl_node \&\& r->n_sl2vl == r->sl2vl_indexed) {/if (r \&\& r->n_sl2vl_node) {/'; }
# the sort by node keeps a node's tables in reverse order (repeats: the last kept)
m_sl2vl_node_order_flipped() {
	mut core/routing.c 's/^\t\tv\[at\[r->sl2vl\[i\].node_idx\]++\] = r->sl2vl\[i\];/\t\tv[at[r->sl2vl[r->n_sl2vl - 1 - i].node_idx]++] = r->sl2vl[r->n_sl2vl - 1 - i];/'
}
# the loader keeps the first row's node for every row after it
m_sl2vl_guid_kept() { mut store/sl2vl_io.c 's/if (!g || !\*g || strcmp(g, last)) {/if (!g || !*g || !*last) {/'; }
# a row of triple bits that straddles two words loses the second word's
m_lanes_word_straddle() { mut core/route_lanes.c 's/^\t\tw |= bits\[from \/ 64 + 1\] << (64 - sh);/\t\tw |= 0;/'; }
# the tables of a channel's own CAs never added to a column
m_lanes_ca_tables_dropped() { mut core/route_lanes.c 's/^\t\t\t\tadd_distinct(set, \&n_set, ca_t1\[k\]);/\t\t\t\t;/'; }
# two SLs taken for the same when one table maps them alike (not every one)
m_lanes_sls_one_pass_off() { mut core/route_lanes.c 's/^\t\tif (prev \&\& !memcmp(vl, prev, FAB_N_SL))$/\t\tif (prev)/'; }
# tables that differ taken for one mapping (the one-lane graph copied)
m_lanes_alike_when_not() { mut core/route_lanes.c 's/^\t\tif (memcmp(r->sl2vl\[i\].vl, r->sl2vl\[0\].vl, FAB_N_SL))$/\t\tif (0 \&\& memcmp(r->sl2vl[i].vl, r->sl2vl[0].vl, FAB_N_SL))/'; }
# one mapping: SLs mapped to VL 15 (dropped) given a lane's cycle
m_lanes_alike_drop_kept() { mut core/route_lanes.c 's/if ((reps >> sl \& 1) \&\& (m\[sl\] \& 15) < FAB_VL_DROP)$/if ((reps >> sl \& 1) \&\& (m[sl] \& 15) <= FAB_VL_DROP)/'; }
# one mapping: a set that lacks a table judged by lane all the same
m_lanes_alike_all_sets() { mut core/route_lanes.c 's/^\t\t\tcyclic\[c\] = cyclic\[c\] \&\& ms.n_needed\[c\] \&\& !ms.n_missing\[c\];/\t\t\t;/'; }
# one mapping: a copy's service levels all 0, not its lane's
m_lanes_copy_sl_lost() { mut core/route_lanes.c 's/^\tmemset(to->sl, sl, from->n_chan);/\tmemset(to->sl, 0, from->n_chan);/'; }
