# shellcheck shell=bash
# fabsweep route (pipeline/route.c, cli/cmd_route.c, cli/print_route.c;
# docs/routing.md). Sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"route_first_sample       cli/test_route  Failed  m_route_first_sample"
	"route_far_end_facts      cli/test_route  Failed  m_route_far_end_facts"
	"route_data_counters      cli/test_route  Failed  m_route_data_counters"
	"route_scan_latest        cli/test_route  Failed  m_route_scan_latest"
	"route_lid_offset_ignored cli/test_route  Failed  m_route_lid_offset_ignored"
	"route_far_end_facts_sim  integration/test_routing_sim  Failed  m_route_far_end_facts"
)
# a value printed wrong: the error counters of a hop's first sample, not its latest
m_route_first_sample() { mut cli/print_route.c 's/fab_counter_latest(s, p);/fab_snapshot_sample(s, p, 0);/'; }
# a value printed wrong: a hop's width, speed and counters are the far end's
m_route_far_end_facts() {
	mut cli/print_route.c 's/^\t\tlink_facts(s, p);$/\t\tlink_facts(s, far != FAB_NONE \&\& far < s->n_ports ? far : p);/'
}
# a branch always taken: every counter that is not 0 is printed, data and packets too
m_route_data_counters() { mut cli/print_route.c 's/if (fab_counter_is_error(k) \&\& (c->valid/if ((c->valid/'; }
# a parameter ignored: --scan; the latest scan is read
m_route_scan_latest() {
	mut pipeline/route.c 's/fab_store_resolve_scan(st, job->scan_id, &out->scan_id)/fab_store_resolve_scan(st, 0, \&out->scan_id)/'
}
# a parameter ignored: --lid-offset; the base LID is traced
m_route_lid_offset_ignored() {
	mut pipeline/route.c 's/\*dlid = (uint16_t)(out->base_lid + job->lid_offset);/*dlid = (uint16_t)out->base_lid;/'
}
