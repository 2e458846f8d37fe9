# shellcheck shell=bash
# Mutants of watch's link events and alerts (sourced by tests/meta/mutants.sh;
# docs/watch.md "Link events", "Alerts"): each breaks what an operator relies
# on, and tests/integration/test_watch_events.sh, or the unit test named,
# must notice.
MUTANTS+=(
	"events_trap_ignored    integration/test_watch_events          Failed   m_events_trap_ignored"
	"events_stale_master    integration/test_watch_events          Failed   m_events_stale_master"
	"events_sm_restart      integration/test_watch_events          Failed   m_events_sm_restart"
	"events_no_unsubscribe  integration/test_watch_events          Failed   m_events_no_unsubscribe"
	"events_probe_period    integration/test_watch_events          Failed   m_events_probe_period"
	"events_link_downed     integration/test_watch_events          Failed   m_events_link_downed"
	"events_restart_forgets integration/test_watch_events          Failed   m_events_restart_forgets"
	"events_trap_offset     scanner/test_notice                    Failed   m_events_trap_offset"
	"events_gid_trap_no_scan integration/test_watch_events         Failed   m_events_gid_trap_no_scan"
	"events_nosa_said_again integration/test_watch_events          Failed   m_events_nosa_said_again"
	"events_nosa_probe_slow integration/test_watch_events          Failed   m_events_nosa_probe_slow"
	"events_nosa_no_retry   integration/test_watch_events          Failed   m_events_nosa_no_retry"
	"events_sim_path_trusted integration/test_watch_events         Failed   m_events_sim_path_trusted"
	"alerts_no_end          integration/test_watch_events          Failed   m_alerts_no_end"
	"alerts_peer_label      integration/test_watch_events          Failed   m_alerts_peer_label"
	"alerts_lost_when_down  integration/test_watch_events          Failed   m_alerts_lost_when_down"
	"security_trap_silent   rules/test_fixtures                    Failed   m_security_trap_silent"
	"probe_cap_ignored      integration/test_watch_probe_share     Failed   m_probe_cap_ignored"
	"probe_cap_off_by_one   integration/test_watch_probe_share     Failed   m_probe_cap_off_by_one"
	"probe_cap_nosa         integration/test_watch_events          Failed   m_probe_cap_ignored"
	"probe_note_silent      integration/test_watch_probe_share     Failed   m_probe_note_silent"
	"probe_note_repeated    integration/test_watch_probe_share     Failed   m_probe_note_repeated"
	"probe_base_first_sweep integration/test_watch_probe_share     Failed   m_probe_base_first_sweep"
	"probe_share_config     integration/test_watch_probe_share     Failed   m_probe_share_config"
	"probe_base_last_sweep  integration/test_watch_probe_share     Failed   m_probe_base_last_sweep"
	"probe_share_option     integration/test_watch_probe_share     Failed   m_probe_share_option"
)
# a trap 128 names a switch and nothing is read (a branch never taken)
m_events_trap_ignored() { mut pipeline/watch_events.c 's/^\t\tcase 128:$/\t\tcase 0xfffff:/'; }
# the subscription goes to the SM of the full scan, never to the master the
# port names now: after a failover the new master is missed
m_events_stale_master() { mut pipeline/watch_events.c 's/if (fab_watch_master_lid(ws->w, \&lid) || !lid) {/if (1) {/'; }
# the subscription is not ended when watch stops
m_events_no_unsubscribe() { mut pipeline/watch_events.c 's/if (ws->w \&\& ws->sub == SUB_OK \&\& fab_watch_subscribe/if (0 \&\& fab_watch_subscribe/'; }
# --link-probe is ignored: always the default period (a parameter ignored)
m_events_probe_period() { mut pipeline/watch.c 's/return ws->job->link_probe_ms < 0 ? 0 : ws->job->link_probe_ms;/return 30000;/'; }
# a LinkDownedCounter that moved in a switch's sum reads nothing
m_events_link_downed() { mut scanner/watch.c 's/if (wn->have_sum \&\& now.v\[FAB_CTR_LINK_DOWNED\] != wn->sum.v\[FAB_CTR_LINK_DOWNED\]) {/if (0) {/'; }
# a restarted watch forgets the ports the last one left down
m_events_restart_forgets() { mut pipeline/watch.c 's/err = fab_rules_hold_restore(ws->hold, s->findings, s->n_findings);/err = 0;/'; }
# the trap number read two bytes off (a value wrong)
m_events_trap_offset() { mut scanner/notice.c 's/^#define N_TRAP 4$/#define N_TRAP 6/'; }
# a cleared finding is posted with an end in the future, as if firing: it
# only expires (a value wrong)
m_alerts_no_end() { mut reports/alertmanager.c 's/fab_jw_time(a->ends_ms ? a->ends_ms : now_ms + valid_ms)/fab_jw_time(now_ms + valid_ms)/'; }
# the peer label names the node itself
m_alerts_peer_label() { mut reports/alertmanager.c 's/err = set_opt(t, labels, "peer", a->peer);/err = set_opt(t, labels, "peer", a->node_name);/'; }
# a post that fails counts as delivered: what Alertmanager missed is lost
m_alerts_lost_when_down() { mut pipeline/watch_alerts.c 's/^\t\terr = fab_alertmanager_post(ws->am_url, body, POST_TIMEOUT_MS);$/\t\tfab_alertmanager_post(ws->am_url, body, POST_TIMEOUT_MS);/'; }
# sm.security_trap never fires
m_security_trap_silent() { mut rules/check_events.c 's/^\t\tif (e->kind != FAB_EVENT_NOTICE || e->trap < TRAP_SECURITY_FIRST ||$/\t\tif (1 || e->kind != FAB_EVENT_NOTICE || e->trap < TRAP_SECURITY_FIRST ||/'; }
# a master SM restarted in place between two sweeps goes unnoticed: the
# new process knows no subscription and no trap comes (a branch never taken)
m_events_sm_restart() { mut scanner/watch.c 's/if (now.act_count < was->act_count) {/if (0) {/'; }
# traps 64, 65 and 145 (a port in or out of service, a system image GUID)
# make no full scan: the topology keeps a host that left (a branch never taken)
m_events_gid_trap_no_scan() { mut pipeline/watch_events.c 's/^\t\t\t\*again = true;$/\t\t\tbreak;/'; }
# a subscription that got no answer is said again at every retry
m_events_nosa_said_again() { mut pipeline/watch_events.c 's/^\t\tif (was != SUB_FAILED || was_lid != lid)$/\t\tif (1)/'; }
# with no subscription the probe goes at the tenth of its period, as if
# traps came (a parameter ignored)
m_events_nosa_probe_slow() { mut pipeline/watch_events.c 's/bool traps = ws->sub == SUB_OK \&\& fab_watch_hears_reports(ws->w);/bool traps = true;/'; }
# a subscription that got no answer is never tried again (only a full scan
# would)
m_events_nosa_no_retry() { mut pipeline/watch_events.c 's/if (ws->events \&\& ws->sub == SUB_FAILED \&\& wpipe_mono_ms() >= ws->sub_retry)/if (0)/'; }
# under the simulator watch counts on Reports without the shim that brings
# them (tests/tools/fabsim_reports.c), and probes at the tenth of its period
m_events_sim_path_trusted() { mut scanner/madwin.c 's/return fab_umad_under_sim() \&\& strstr(preload, "fabsim_reports");/return fab_umad_under_sim();/'; }
# the link probe's cost bound (docs/watch.md "The link probe"): the cap is
# never applied, the probe reads what its period owes (a branch never taken)
m_probe_cap_ignored() { mut scanner/watch_links.c 's/^\tif (cap \&\& k > cap)$/\tif (0 \&\& cap \&\& k > cap)/'; }
# the cap one read too many (a value off by one)
m_probe_cap_off_by_one() { mut scanner/watch_links.c 's/return c >= 1.0 ? (size_t)c : 1;/return c >= 1.0 ? (size_t)c + 1 : 2;/'; }
# the period the cap makes is never said
m_probe_note_silent() { mut pipeline/watch_events.c 's/^\tws->probe_said_long = longer;$/\tws->probe_said_long = longer;\n\treturn;/'; }
# ... said after every sweep, not once (and when it changes)
m_probe_note_repeated() { mut pipeline/watch_events.c 's/(!longer || (eff >= 0.8 \* ws->probe_said_ms/(!longer || (0 \&\& eff >= 0.8 * ws->probe_said_ms/'; }
# a topology's first sweep, which reads every switch port, counts whole as
# what a sweep costs: the cap after it too high
m_probe_base_first_sweep() { mut scanner/watch.c 's/^\t\t\tws->learnt += ws->res->ports - before;$/\t\t\t(void)before;/'; }
# [watch] link_probe_share is ignored: the default (a parameter ignored)
m_probe_share_config() { mut pipeline/watch.c 's/return v \&\& !fab_share_parse(v, \&f) ? f : FAB_WATCH_PROBE_SHARE;/return FAB_WATCH_PROBE_SHARE;/'; }
# --link-probe-share is ignored: the config's (a parameter ignored)
m_probe_share_option() { mut pipeline/watch.c 's/^\tif (ws->job->link_probe_share > 0)$/\tif (0)/'; }
# the cap from the last sweep, not the steadiest: a sweep that read more
# (a link down: its switch's ports, the details) moves the cap and the
# period said with it
m_probe_base_last_sweep() { mut scanner/watch.c 's/^\t    (!w->probe_base || res->mads - other < w->probe_base))$/\t    1)/'; }
