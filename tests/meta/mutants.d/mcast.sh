# shellcheck shell=bash
# Mutants of multicast (docs/multicast.md: scanner/mcast*.c, core/mcast*.c,
# rules/check_mcast.c): sourced by tests/meta/mutants.sh (mut, MUTANTS).
MUTANTS+=(
	"mcast_rate_code        core/test_mcast                        Failed   m_mcast_rate_code"
	"mcast_in_port          core/test_mcast                        Failed   m_mcast_in_port"
	"mcast_never_cut        scanner/test_mcast_sa                  Failed   m_mcast_never_cut"
	"mcast_ipoib_param      rules/test_fixtures                    Failed   m_mcast_ipoib_param"
	"mcast_no_loop          rules/test_fixtures                    Failed   m_mcast_no_loop"
	"mcast_no_sa_key        integration/test_mcast_sim             Failed   m_mcast_no_sa_key"
)
# a value wrong: rate code 3 read as 40 Gb/s (what shared/real's notes say of 0x83)
m_mcast_rate_code() { mut core/mcast.c 's/\[2\] = 2.5, \[3\] = 10, \[4\] = 30,/[2] = 2.5, [3] = 40, [4] = 30,/'; }
# a value wrong: a switch sends a packet back out of the port it came in by
# (every tree's links loop)
m_mcast_in_port() { mut core/mcast_tree.c 's/if (w->dest\[c\] != FAB_NONE \&\& t->ports\[c\] != w->arr\[k\] \&\& color\[c\] != 2) {/if (w->dest[c] != FAB_NONE \&\& color[c] != 2) {/'; }
# a branch never taken: an SA answer is never taken as cut (the simulator's
# 3-record answers read as whole)
m_mcast_never_cut() { mut scanner/mcast_sa.c 's/^\t\t\*cut = len <= FAB_MAD_SIZE \&\& n ==/\t\t*cut = false \&\& n ==/'; }
# a parameter ignored: [mcast.ipoib_broadcast] partition
m_mcast_ipoib_param() { mut rules/check_mcast.c 's/^\t\tunsigned p = (unsigned)rule_param(ctx, i);$/\t\tunsigned p = 0 * (unsigned)rule_param(ctx, i);/'; }
# a branch never taken: mcast.loop never reports a cycle
m_mcast_no_loop() { mut rules/check_mcast.c 's/^\tif (!t->n_loop)$/\tif (1 || !t->n_loop)/'; }
# a value wrong: the members' (trusted) query sent without the SA key
m_mcast_no_sa_key() { mut scanner/mcast_sa.c 's/req->mkey = kind == J_GROUPS || kind == J_MLID ? 0 : c->key;/req->mkey = 0;/'; }
