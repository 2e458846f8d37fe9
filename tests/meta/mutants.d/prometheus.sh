# shellcheck shell=bash
# Mutants of the Prometheus values (`export prometheus`, sweep's and watch's
# files; reports/prometheus.c), sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"prom_reset_flag       workflow/test_prometheus               Failed   m_prom_reset_flag"
	"prom_data_words       integration/test_workflow_cli          Failed   m_prom_data_words"
	"prom_baseline_ignored integration/test_counter_consistency   Failed   m_prom_baseline_ignored"
	"prom_lane_speed       integration/test_workflow_cli          Failed   m_prom_lane_speed"
	"prom_description_name integration/test_workflow_cli          Failed   m_prom_description_name"
	"prom_sweep_no_base    integration/test_sweep_sim             Failed   m_prom_sweep_no_base"
)
# fabsweep_port_error_reset says whether the counter saturated instead
m_prom_reset_flag() { mut reports/prometheus.c 's/!!(d.reset \& (1u << k))/!!(d.saturated \& (1u << k))/'; }
# data in 4-byte words, not bytes: the totals and the rates a quarter of the truth
m_prom_data_words() { mut reports/prometheus.c 's/FAB_CTR_XMIT_DATA, FAB_CTR_RCV_DATA, 4 },/FAB_CTR_XMIT_DATA, FAB_CTR_RCV_DATA, 1 },/'; }
# export --baseline (and sweep's baseline) ignored: increases within the scan
m_prom_baseline_ignored() { mut reports/prometheus.c 's/fab_counter_pairs_build(snap, base, \&pairs)/fab_counter_pairs_build(snap, NULL, \&pairs)/'; }
# the lane speed and the link rate swapped
m_prom_lane_speed() { mut reports/prometheus.c 's/link_fams\[k\].what == 1 ? v \/ lanes : v/link_fams[k].what == 1 ? v : v \/ lanes/'; }
# the description label carries the mapped name
m_prom_description_name() {
	mut reports/prometheus.c 's/{ "description", n->desc },/{ "description", fab_nodemap_name(w->names, n->guid, n->desc) },/'
}
# sweep's file without its baseline: no increases or rates since the sweep before
m_prom_sweep_no_base() {
	mut pipeline/sweep.c 's/fab_export_prometheus_file(s->snap, s->base, s->names, prom)/fab_export_prometheus_file(s->snap, NULL, s->names, prom)/'
}
