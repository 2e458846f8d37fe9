# shellcheck shell=bash
# The physical layer at fleet size (schema 17, store/phys_io.c): a port's NIC
# counters one row per run with a shared counter set, an Ethernet module's
# lanes a JSON array in its row, the views over both forms, schema-16 host
# files read directly; the NIC rules' per-port view (core/nic_counter.c).
# Sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"phys17_nic_values_shifted  store/test_phys_store  Failed  m_phys17_nic_values_shifted"
	"phys17_nic_set_reused      store/test_phys_store  Failed  m_phys17_nic_set_reused"
	"phys17_view_old_rows_gone  store/test_phys_store  Failed  m_phys17_view_old_rows_gone"
	"phys17_lanes_view_json_gone store/test_phys_store Failed  m_phys17_lanes_view_json_gone"
	"phys17_old_file_unread     store/test_phys_store  Failed  m_phys17_old_file_unread"
	"phys17_lane_rx_is_tx       store/test_phys_store  Failed  m_phys17_lane_rx_is_tx"
	"phys17_update_json_missed  store/test_phys_store  Failed  m_phys17_update_json_missed"
	"phys17_desc_view_gone      store/test_phys_store  Failed  m_phys17_desc_view_gone"
	"phys17_desc_key_no_vendor  store/test_phys_store  Failed  m_phys17_desc_key_no_vendor"
	"phys17_nic_two_unseen      roce/test_nic_view     Failed  m_phys17_nic_two_unseen"
	"phys17_nic_cells_unsorted  roce/test_nic_view     Failed  m_phys17_nic_cells_unsorted"
	"phys17_long_row_skipped    store/test_phys_store  Failed  m_phys17_long_row_skipped"
	"phys17_one_sample_last     roce/test_nic_view     Failed  m_phys17_one_sample_last"
	"phys17_one_sample_two      roce/test_nic_view     Failed  m_phys17_one_sample_two"
)
# a run's counter values stored one place off their names
m_phys17_nic_values_shifted() {
	mut store/roce_sets.c 's/memcpy(\&value, v + k \* stride, sizeof(value));/memcpy(\&value, v + (k + 1) % count * stride, sizeof(value));/'
}
# the previous run's counter set taken for any run of the same length
m_phys17_nic_set_reused() {
	mut store/roce_sets.c 's/if (x->nic_r == r \&\& x->nic_n == count \&\& same_nic_names(c0, x->nic_last, count)) {/if (x->nic_r == r \&\& x->nic_n == count) {/'
}
# the nic_counters view leaves out the rows of the long form (older scans, fixtures' INSERTs)
m_phys17_view_old_rows_gone() {
	mut store/schema.sql.h 's/^\t" FROM nic_counter_rows"$/\t" FROM nic_counter_rows WHERE 0"/'
}
# module_lanes leaves out the lanes kept in module_rows.lane_values
m_phys17_lanes_view_json_gone() {
	mut store/schema.sql.h "s/ JOIN json_each(m.lane_values) j WHERE m.fabric = 'eth'/ JOIN json_each(m.lane_values) j WHERE 0/"
}
# a schema-16 file's nic_counters table is not looked for: its counters are lost
m_phys17_old_file_unread() {
	mut store/phys_io.c 's/^\t\trows.table = "nic_counters";$/\t\t;/'
}
# a lane's receive power read from its transmit power
m_phys17_lane_rx_is_tx() { mut store/phys_io.c 's/^\t\te->rx_mw = v\[1\];$/\t\te->rx_mw = v[3];/'; }
# UPDATE through nic_counters changes the long form only
m_phys17_update_json_missed() {
	mut store/schema.sql.h 's/^\t"  AND sampled_at IS OLD.sampled_at AND EXISTS (SELECT 1 FROM nic_counter_names n" \\$/\t"  AND 0 AND EXISTS (SELECT 1 FROM nic_counter_names n" \\/'
}
# a port's two samples not seen as two: its increases are the baseline's or none
m_phys17_nic_two_unseen() { mut core/nic_counter.c 's/^\t\tout->two = out->first\[i\] != out->last\[i\];$/\t\tout->two = false;/'; }
# a port's cells in the order it read them: the seconds between readings are another counter's
m_phys17_nic_cells_unsorted() { mut core/nic_counter.c 's/^\t\t\twhile (j \&\& out->cell\[j - 1\] > cell) {$/\t\t\twhile (0) {/'; }
# the modules view leaves out the modules stored with a shared description
m_phys17_desc_view_gone() {
	mut store/schema.sql.h "s/  JOIN module_descs d ON d.desc_id = m.desc_id WHERE m.fabric = 'eth'/  JOIN module_descs d ON d.desc_id = m.desc_id WHERE 0/"
}
# a description's key leaves out the vendor: modules of two vendors share one
m_phys17_desc_key_no_vendor() {
	mut store/phys_io.c 's/^\tconst char \*const str\[\] = { fab_module_spec_name(m->spec), m->type, m->vendor, m->part_number,$/\tconst char *const str[] = { fab_module_spec_name(m->spec), m->type, NULL, m->part_number,/'
}
# a module row without a description, among rows read without the
# description's columns, left out instead of read again whole
m_phys17_long_row_skipped() { mut store/phys_io.c 's/return module_again(x, mi);/return 0;/'; }
# a port read once: a counter read twice in that sample keeps its last
# reading, where read_port keeps the first
m_phys17_one_sample_last() { mut core/nic_counter.c 's/slot >= FAB_NIC_SLOTS || v->have\[c->ctr\]\[slot\])/slot >= FAB_NIC_SLOTS)/'; }
# a port read twice taken for one read once: no increase
m_phys17_one_sample_two() { mut core/nic_counter.c 's/if (c->sample != r->nic_counters\[p->nic_first\].sample)/if (0)/'; }
