# shellcheck shell=bash
# What `check` finds on real topologies (fixtures/real, docs/real-fabrics.md):
# sourced by tests/meta/mutants.sh. Caught by tests/unit/rules/test_real.c,
# which compares every finding with its evidence and checks the evidence
# against the topology files.
MUTANTS+=(
	"real_group_is_self       rules/test_real  Failed  m_real_group_is_self"
	"real_short_of_all        rules/test_real  Failed  m_real_short_of_all"
	"real_atypical_counted    rules/test_real  Failed  m_real_atypical_counted"
	"real_min_peers_fixed     rules/test_real  Failed  m_real_min_peers_fixed"
	"real_expect_tier_ignored rules/test_real  Failed  m_real_expect_tier_ignored"
	"real_hub_stays_leaf      rules/test_real  Failed  m_real_hub_stays_leaf"
)
# topology.asymmetric's evidence names the switch itself as the group it was compared with
m_real_group_is_self() {
	mut rules/check_topology.c 's/(unsigned long long)s->nodes\[t.grep\[g\]\].guid,/(unsigned long long)s->nodes[i].guid,/'
}
# short_of lists every neighbour of the group, not only those the switch has fewer links to
m_real_short_of_all() { mut rules/check_topology.c 's/^\t\tif (have >= want->links)$/\t\tif (have > want->links)/'; }
# the links to switches in no pattern (Selene's management part) count in the majorities
m_real_atypical_counted() {
	mut rules/check_topology.c 's/if (r == FAB_NONE || r == i || t.level\[r\] == UNSEEN || t.atyp\[r\])/if (r == FAB_NONE || r == i || t.level[r] == UNSEEN)/'
}
# [topology.asymmetric] min_peers is ignored: groups of 3 or more are judged
m_real_min_peers_fixed() {
	mut rules/check_topology.c 's/^\tsize_t min_peers = (size_t)rule_param(ctx, 0);$/\tsize_t min_peers = 3;/'
}
# [expect] speed.<tier> / width.<tier> are ignored: the majority always decides
m_real_expect_tier_ignored() { mut rules/check_link.c 's/configured\[p->arg\] = (unsigned)v;/configured[p->arg] = 0;/'; }
# a spine with hosts (a hub among the switches with hosts) stays a leaf
m_real_hub_stays_leaf() { mut scanner/roles.c 's/^\t\t\tdist\[src\[k\]\] = UNSEEN;$/\t\t\tdist[src[k]] = 0;/'; }
