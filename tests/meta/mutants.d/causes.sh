# shellcheck shell=bash
# Mutants of the detail counters, the causes and link.ber_high (docs/causes.md):
# sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"causes_ber_lane_rate  integration/test_scan_causes           Failed   m_causes_ber_lane_rate"
	"causes_never_asked    integration/test_scan_causes           Failed   m_causes_never_asked"
	"causes_unsup_as_zero  scanner/test_counters                  Failed   m_causes_unsup_as_zero"
	"causes_first_not_top  rules/test_fixtures                    Failed   m_causes_first_not_top"
	"causes_ber_limit      rules/test_fixtures                    Failed   m_causes_ber_limit"
	"causes_vl_not_named   integration/test_scan_causes           Failed   m_causes_vl_not_named"
)
# a value wrong: the lane signalling rate of SDR (ibsim's default links) 3 Gb/s, not 2.5
m_causes_ber_lane_rate() { mut core/names.c 's/^static const double speed_lane_gbaud\[\] = { 2.5, 5, 10,/static const double speed_lane_gbaud[] = { 3, 5, 10,/'; }
# a branch never taken: PortRcvErrorDetails never asked
m_causes_never_asked() { mut scanner/counters.c 's/^\tif (nonzero(smp, FAB_CTR_RCV_ERRORS))$/\tif (0 \&\& nonzero(smp, FAB_CTR_RCV_ERRORS))/'; }
# a value wrong: an attribute answered with an error status decoded as zeros
# (ibsim drops a MAD instead: a time-out; the fake PMA answers a status)
m_causes_unsup_as_zero() { mut scanner/counters.c 's/^\t\tif (err) { \/\* no such attribute here: said so, never zeros \*\/$/\t\tif (err \&\& !resp) {/'; }
# a value wrong: the cause is the first non-zero detail, not the largest
m_causes_first_not_top() { mut rules/check_causes.c 's/^\t\tif (x > top) {$/\t\tif (x \&\& !top) {/'; }
# a parameter ignored: link.ber_high's max_ber
m_causes_ber_limit() { mut rules/check_causes.c 's/^\tconst double limit = rule_param(ctx, 0);$/\tconst double limit = 1e-12;/'; }
# a branch never taken: the VL of lifetime discards never named
m_causes_vl_not_named() { mut rules/check_causes.c 's/^\t\tif (c->vl_valid)$/\t\tif (0 \&\& c->vl_valid)/'; }
