# shellcheck shell=bash
# Mutants of `fabsweep watch` and its Prometheus textfile (sourced by
# tests/meta/mutants.sh): each breaks what an operator relies on, and
# tests/integration/test_watch_sim.sh must notice.
MUTANTS+=(
	"watch_rate_interval   integration/test_watch_sim             Failed   m_watch_rate_interval"
	"watch_no_rates        integration/test_watch_sim             Failed   m_watch_no_rates"
	"watch_rates_zero      integration/test_watch_sim             Failed   m_watch_rates_zero"
	"watch_saturated_sum   integration/test_watch_sim             Failed   m_watch_saturated_sum"
	"watch_prom_option     integration/test_watch_sim             Failed   m_watch_prom_option"
	"watch_config_ignored  integration/test_watch_sim             Failed   m_watch_config_ignored"
	"watch_data_dropped    integration/test_watch_sim             Failed   m_watch_data_dropped"
)
# the textfile's samples keep their own times: rates over the wrong interval
m_watch_rate_interval() { mut pipeline/watch.c 's/^\t\tif (t > l->sampled_at_ms)$/\t\tif (t < l->sampled_at_ms)/'; }
# no write is ever compared with the one before: the rates are never written
m_watch_no_rates() { mut pipeline/watch.c 's/^\tws->have_prev = true;$/\tws->have_prev = false;/'; }
# each port compared with its own value now: every rate 0, every line there
m_watch_rates_zero() { mut pipeline/watch.c 's/^\t\t\tp->earlier\[i\] = \&ws->prev\[i\];$/\t\t\tp->earlier[i] = \&ws->cur[i];/'; }
# a switch whose sum is saturated is not read port by port: a change of a
# counter its sum cannot show any more is never found
m_watch_saturated_sum() { mut scanner/watch.c 's/^\t    any_saturated(\&now)) {$/\t    (0 \&\& any_saturated(\&now))) {/'; }
# --prometheus FILE is ignored (only [watch] prometheus counts)
m_watch_prom_option() {
	mut pipeline/watch.c 's/ws.prom = job->prometheus ? job->prometheus : fab_config_sweep/ws.prom = fab_config_sweep/'
}
# the [watch] section's durations are ignored (interval, hold, ...): the defaults
m_watch_config_ignored() { mut pipeline/watch.c 's/return v \&\& !fab_duration_parse(v, \&ms) ? ms : dflt;/return dflt;/'; }
# a sweep's value of a port drops the counters it did not read: the port's
# data series vanish from the textfile until the next full scan
m_watch_data_dropped() { mut core/snapshot.c 's/^\t\tuint32_t kept = o->valid \& ~c->valid;$/\t\tuint32_t kept = 0;/'; }
