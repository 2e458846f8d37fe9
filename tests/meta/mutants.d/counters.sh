# shellcheck shell=bash
# Mutants of the counter model (core/counter.c, docs/counters.md), sourced
# by tests/meta/mutants.sh.
MUTANTS+=(
	"ctr_reset_counts_0    core/test_counter                      Failed   m_ctr_reset_counts_0"
	"ctr_never_saturated   core/test_counter                      Failed   m_ctr_never_saturated"
	"ctr_extended_ignored  core/test_counter                      Failed   m_ctr_extended_ignored"
	"ctr_saturated_exact   integration/test_counter_consistency   Failed   m_ctr_saturated_exact"
	"ctr_reset_hidden      integration/test_counter_consistency   Failed   m_ctr_reset_hidden"
)
# after a reset the increase is 0: what was counted since the clear is lost
m_ctr_reset_counts_0() { mut core/counter.c 's/^\treturn \*reset ? now : now - was;$/\treturn *reset ? 0 : now - was;/'; }
# a counter at its all-ones value is never taken as saturated
m_ctr_never_saturated() { mut core/counter.c 's/^\t\*saturated = bits < 64 \&\& now == (1ull << bits) - 1;$/\t*saturated = bits < 64 \&\& now > (1ull << bits) - 1;/'; }
# the extended flag ignored: 64-bit data counters read as 32-bit ones
m_ctr_extended_ignored() { mut core/counter.c 's/(extended \&\& counters\[c\].kind == K_DATA)/(0 \&\& counters[c].kind == K_DATA)/'; }
# a saturated counter's increase is shown as exact (no "or more" anywhere)
m_ctr_saturated_exact() { mut core/counter.c 's/^\td->at_least = d->reset | d->saturated;$/\td->at_least = d->reset;/'; }
# a reset is taken for a saturation-free increase: no reset flag anywhere
m_ctr_reset_hidden() { mut core/counter.c 's/^\t\tif (reset)$/\t\tif (0)/'; }
