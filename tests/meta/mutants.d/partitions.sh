# shellcheck shell=bash
# Mutants of the partitions capability (the pkey.* rules, core/pkey.c, `ready
# --pkey`): sourced by tests/meta/mutants.sh (mut, MUTANTS).
MUTANTS+=(
	"pkey_enf_direction     rules/test_fixtures                    Failed   m_pkey_enf_direction"
	"pkey_enf_both_only     rules/test_fixtures                    Failed   m_pkey_enf_both_only"
	"pkey_limited_slot1     rules/test_fixtures                    Failed   m_pkey_limited_slot1"
	"pkey_expect_ignored    rules/test_fixtures                    Failed   m_pkey_expect_ignored"
	"pkey_full_count        integration/test_partitions_sim        Failed   m_pkey_full_count"
	"pkey_default_full      integration/test_partitions_sim        Failed   m_pkey_default_full"
	"pkey_want_both_full    integration/test_partitions_sim        Failed   m_pkey_want_both_full"
)
m_pkey_enf_direction() { # pkey.enforcement_drop's evidence: inbound-only said to be outbound and back
	mut rules/check_pkey.c 's/? "in,out" : "in") : "out");/? "in,out" : "out") : "in");/'
}
m_pkey_enf_both_only() { # pkey.enforcement_drop only where the switch port enforces both ways
	mut rules/check_pkey.c 's/!(sw->enforce \& (FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB)))/(sw->enforce \& (FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB)) != (FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB))/'
}
m_pkey_limited_slot1() { # [pkey.limited_pair] partition_2..4 ignored
	mut rules/check_pkey.c 's/for (size_t pi = 0; pi < ctx->rule->n_params; pi++)/for (size_t pi = 0; pi < 1; pi++)/'
}
m_pkey_expect_ignored() { # [pkey.default_missing] expect = 2 judges no switch port
	mut rules/check_pkey.c 's/(sw ? where < 2 : !rule_host_port(s, pi))/(sw ? true : !rule_host_port(s, pi))/'
}
m_pkey_full_count() { # pkey.limited_pair's evidence: full= says the limited count
	mut rules/check_pkey.c 's/^\t\t\t    n_lim, n_full);/\t\t\t    n_lim, n_lim);/'
}
m_pkey_default_full() { # a limited member of the default partition counted as missing it
	mut rules/check_pkey.c 's/if (fab_pkeys_member(t, FAB_PKEY_DEFAULT))/if (fab_pkeys_member(t, FAB_PKEY_DEFAULT) == FAB_PKEY_FULL_MEMBER)/'
}
m_pkey_want_both_full() { # ready --pkey: a full and a limited member cannot talk
	mut core/pkey.c '/if (want) {/,/return (int)(want/ s/(x == FAB_PKEY_FULL_MEMBER || y == FAB_PKEY_FULL_MEMBER)/(x == FAB_PKEY_FULL_MEMBER \&\& y == FAB_PKEY_FULL_MEMBER)/'
}
