# shellcheck shell=bash
# RoCE fleets (docs/roce.md "A fleet"): merging thousands of host files, merges
# of merges, --into, the file format reader, the RoCE storage of schema 14,
# the HTML tables at scale, the compaction and index main's physical layer
# needs (NIC counters, modules). Sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"fleet_older_wins        integration/test_roce_fleet  Failed  m_fleet_older_wins"
	"fleet_pk_not_first      store/test_roce_input        Failed  m_fleet_pk_not_first"
	"fleet_wal_ignored       store/test_roce_input        Failed  m_fleet_wal_ignored"
	"fleet_not_immutable     integration/test_roce_fleet  Failed  m_fleet_not_immutable"
	"fleet_into_all_kept     pipeline/test_merge          Failed  m_fleet_into_all_kept"
	"fleet_values_shifted    store/test_roce_input        Failed  m_fleet_values_shifted"
	"fleet_html_name_order   reports/test_ethernet        Failed  m_fleet_html_name_order"
	"fleet_nic_port_stale    roce/test_model              Failed  m_fleet_nic_port_stale"
	"fleet_module_port_stale roce/test_model              Failed  m_fleet_module_port_stale"
	"fleet_modules_unindexed roce/test_model              Failed  m_fleet_modules_unindexed"
	"fleet_relative_kept     pipeline/test_merge          Failed  m_fleet_relative_kept"
	"fleet_page_off_by_one   store/test_roce_input        Failed  m_fleet_page_off_by_one"
	"count_format_pairs     reports/test_ethernet                  Failed   m_count_format_pairs"
	"fleet_same_new_skipped  integration/test_roce_fleet  Failed  m_fleet_same_new_skipped"
	"fleet_same_label        integration/test_roce_fleet  Failed  m_fleet_same_label"
	"fleet_same_problems     integration/test_roce_fleet  Failed  m_fleet_same_problems"
	"fleet_same_no_extracts  integration/test_roce_fleet  Failed  m_fleet_same_no_extracts"
	"fleet_same_never        integration/test_roce_fleet  Failed  m_fleet_same_never"
)
# a host collected twice: the older view is kept
m_fleet_older_wins() {
	mut core/roce_merge.c 's/if (s->collected_at_ms <= dst->systems\[old\].collected_at_ms)/if (s->collected_at_ms > dst->systems[old].collected_at_ms)/'
}
# a WITHOUT ROWID record read as if its key were its first columns
m_fleet_pk_not_first() { mut store/dbfile.c 's/^\tif (t->without_rowid) {$/\tif (0 \&\& t->without_rowid) {/'; }
# a -wal or -journal beside an input is not looked at: its last transactions are missed
m_fleet_wal_ignored() { mut store/dbfile.c 's/if (sidefile(path, "-wal") || sidefile(path, "-journal"))/if (0)/'; }
# inputs SQLite reads are opened as usual: -shm and -wal beside them, none in a read-only directory
m_fleet_not_immutable() {
	mut store/store.c 's/if (!(flags \& FAB_STORE_WRITE) \&\& (flags \& FAB_STORE_IMMUTABLE)) {/if (0) {/'
}
# merge --into takes every file the last merge read as unchanged
m_fleet_into_all_kept() {
	mut pipeline/merge.c 's/return was->status != FAB_MERGE_FAILED \&\& !stat(file, \&sb) \&\& was->mtime_ns == mtime_ns(\&sb) \&\&/return !stat(file, \&sb) || 1 ||/'
}
# merge --into, nothing else changed: a new file among the others is not seen, nothing written
m_fleet_same_new_skipped() { mut pipeline/merge.c 's/x->same = false; \/\* given, not in the base: new \*\//x->next++; continue;/'; }
# merge --into --label with nothing changed writes no scan of its own
m_fleet_same_label() { mut pipeline/merge.c 's/if (base \&\& !job->label \&\& /if (base \&\& /'; }
# merge --into, nothing changed, a directory without *.db: not recorded
m_fleet_same_problems() { mut pipeline/merge.c 's/if (in->n_problems || !in->n)/if (!in->n)/'; }
# merge --into, nothing changed, --ready-dir: no extracts written
m_fleet_same_no_extracts() { mut pipeline/merge.c 's/if (!job->ready_dir)$/if (1)/'; }
# merge --into writes the same merge again when nothing changed
m_fleet_same_never() { mut pipeline/merge.c 's/\*out = err >= 0 \&\& x.same \&\& x.next == x.n;/*out = false;/'; }
# a port's counter values stored one place off their names
m_fleet_values_shifted() {
	mut store/roce_sets.c 's/memcpy(\&value, v + k \* stride, sizeof(value));/memcpy(\&value, v + (k + 1) % count * stride, sizeof(value));/'
}
# the HTML tables list rows in name order, whatever findings name them
m_fleet_html_name_order() { mut reports/html_ethernet.c 's/^\t\t\tif (mark\[i\] == m)$/\t\t\tif (m == FAB_MARK_NONE)/'; }
# compaction keeps a NIC counter's old port number (a dropped duplicate before it)
m_fleet_nic_port_stale() { mut core/roce_resolve.c 's/^\t\t\tto\[at + j\].port_idx = (uint32_t)i;$/\t\t\t;/'; }
# compaction keeps a module's old port number
m_fleet_module_port_stale() { mut core/roce_resolve.c 's/^\t\tm.port_idx = pmap\[m.port_idx\];$/\t\t;/'; }
# the per-system index leaves the modules out: merge copies none
m_fleet_modules_unindexed() { mut core/roce_merge.c 's/^\tif (r->modules.n) {$/\tif (0) {/'; }
# a relative input path is recorded as given: merge --into from another directory reads it again
m_fleet_relative_kept() { mut pipeline/merge_inputs.c "s/if (given\[0\] != '\/' \&\& l->cwd\[0\]) {/if (0) {/"; }
# the file format reader's pages one page off
m_fleet_page_off_by_one() { mut store/dbfile.c 's/return f->img + (size_t)(pgno - 1) \* f->page_size;/return f->img + (size_t)pgno * f->page_size;/'; }
m_count_format_pairs() { # fab_count_format groups digits by two (the HTML captions and watch's probe note use it)
	mut core/names.c '/^const char \*fab_count_format/,/^}/ s/(l - i) % 3 == 0/(l - i) % 2 == 0/'
}
