# shellcheck shell=bash
# RoCE deltas (docs/schema.md "RoCE deltas"): merge --into written as a delta
# on its keyframe: the plan (core/roce_delta.c), the writer, the loader, the
# views, prune. Sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"delta_reread_kept       roce/test_delta              Failed  m_delta_reread_kept"
	"delta_stub_ports        roce/test_delta              Failed  m_delta_stub_ports"
	"delta_from_delta        integration/test_roce_fleet  Failed  m_delta_from_delta"
	"delta_derived_ignored   roce/test_delta              Failed  m_delta_derived_ignored"
	"delta_not_hidden        integration/test_roce_fleet  Failed  m_delta_not_hidden"
	"delta_share_ignored     integration/test_roce_fleet  Failed  m_delta_share_ignored"
	"delta_load_hidden       integration/test_roce_fleet  Failed  m_delta_load_hidden"
	"delta_view_hidden       integration/test_roce_fleet  Failed  m_delta_view_hidden"
	"delta_prune_keyframe    integration/test_roce_fleet  Failed  m_delta_prune_keyframe"
	"delta_links_all         integration/test_roce_fleet  Failed  m_delta_links_all"
	"delta_hidden_lost       integration/test_roce_fleet  Failed  m_delta_hidden_lost"
	"delta_nic_all           integration/test_roce_fleet  Failed  m_delta_nic_all"
	"delta_modules_all       integration/test_roce_fleet  Failed  m_delta_modules_all"
	"delta_phys_hidden       integration/test_roce_fleet  Failed  m_delta_phys_hidden"
	"delta_module_ids        integration/test_roce_fleet  Failed  m_delta_module_ids"
	"delta_rdma_not_read     integration/test_roce_fleet  Failed  m_delta_rdma_not_read"
	"delta_rdma_end          integration/test_roce_fleet  Failed  m_delta_rdma_end"
	"delta_rdma_ids          integration/test_roce_fleet  Failed  m_delta_rdma_ids"
	"delta_rdma_netdevs      integration/test_roce_fleet  Failed  m_delta_rdma_netdevs"
	"into_dir_error_carried  integration/test_roce_fleet  Failed  m_into_dir_error_carried"
	"delta_phys_not_read     integration/test_roce_fleet  Failed  m_delta_phys_not_read"
	"delta_mod_end           integration/test_roce_fleet  Failed  m_delta_mod_end"
	"delta_phys_port_idx     integration/test_roce_fleet  Failed  m_delta_phys_port_idx"
	"delta_idx_unbounded     integration/test_roce_fleet  Failed  m_delta_idx_unbounded"
)
# a file read again taken for the base's system: its new view is not written
m_delta_reread_kept() { mut core/roce_delta.c 's/(!y->collected || from_base(m, y)) \&\&/(!y->collected || 1) \&\&/'; }
# a stub's ports left out of what it derives: a leaf that hears something else keeps its old ports
m_delta_stub_ports() { mut core/roce_delta.c 's/\t\t\tsum += stub_port_hash(v, v->list\[V_PORT\]\[k\]);/\t\t\t;/'; }
# the systems the base's delta wrote taken for the keyframe's: the next delta drops them
m_delta_from_delta() { mut core/roce_delta.c 's/bool same = was \&\& !was->from_delta \&\& /bool same = was \&\& /'; }
# what a system derives from the others not compared: a host whose leaf changed keeps its old links
m_delta_derived_ignored() { mut core/roce_delta.c 's/derived(\&x->v, (uint32_t)i) == was->derived;/1;/'; }
# the keyframe's systems a delta replaces are not hidden: each shows twice
m_delta_not_hidden() { mut core/roce_delta.c 's/d->hidden\[d->n_hidden++\] = m->sys\[b\].id;/(void)b;/'; }
# no limit to a delta's share: a merge that changes most of the fabric is a delta too
m_delta_share_ignored() { mut core/roce_delta.c 's/if ((double)written > max_share \* (double)r->n_systems) {/if (0) {/'; }
# the loader keeps the keyframe's rows of hidden systems
m_delta_load_hidden() { mut store/roce_load.c 's/\*skip = is_hidden(l, sys);/*skip = false;/'; }
# the views show the keyframe's hidden systems
m_delta_view_hidden() { mut store/schema.sql.h 's/"(NOT v.base OR NOT EXISTS (SELECT 1 FROM roce_hidden h"/"(1 OR NOT EXISTS (SELECT 1 FROM roce_hidden h"/'; }
# prune drops a keyframe a kept delta builds on
m_delta_prune_keyframe() { mut store/prune.c 's/"   OR w.roce_base_scan_id = s.scan_id)"/"   OR 0)"/'; }
# a delta writes every link, also those of systems it keeps
m_delta_links_all() { mut store/roce_write.c 's/if (fab_roce_kept(r, a->system_idx)) \/\* a link is its a side.s \*\//if (0)/'; }
# what a base delta hid (a stub leaf nobody hears any more) shows again in the next delta
m_delta_hidden_lost() { mut core/roce_delta.c 's/d->hidden\[d->n_hidden++\] = m->was_hidden\[k\];/(void)k;/'; }
# a delta writes every port's NIC counters, also those of systems it keeps
m_delta_nic_all() { mut store/phys_io.c 's/if (fab_roce_kept(r, p->system_idx)) \/\* a delta.s keyframe holds them \*\//if (0)/'; }
# a delta writes every module, also those of systems it keeps
m_delta_modules_all() { mut store/phys_io.c 's/if (fab_roce_kept(r, p->system_idx)) \/\* a delta.s keyframe holds it \*\//if (0)/'; }
# the loader keeps the keyframe's records' TLVs, links, RDMA ports, NIC counters and modules of hidden systems
m_delta_phys_hidden() { mut store/roce_load.c 's/return sys == FAB_NONE || is_hidden(l, sys);/return sys == FAB_NONE;/'; }
# a loaded delta's modules keep positions, not their stored indices: the next delta misplaces them
m_delta_module_ids() { mut store/roce_load.c 's/\tids\[pos\] = (uint32_t)stored;/\tids[pos] = pos;/'; }
# a merge --into base's counters written as if parsed: its ports lose them
# the RDMA devices the base left stored never read: a system written again loses them
m_delta_rdma_not_read() { mut pipeline/merge.c 's/\tif (b.snap \&\& (err = fab_store_load_later(st, snap->roce,/\tif (0 \&\& (err = fab_store_load_later(st, snap->roce,/'; }
# a delta's new devices numbered from 0: they take the stored ones' indices
m_delta_rdma_end() { mut core/roce_delta.c 's/\t\tbump(\&m->end\[E_DEV\], b->rdma_dev_end - 1);/\t\t;/'; }
# the devices read later not given their stored indices in the delta
m_delta_rdma_ids() { mut store/roce_load.c 's/later_ids(r->delta ? \&r->delta->dev : NULL, r->n_devices,/later_ids(NULL, r->n_devices,/'; }
# the ports of the devices read later not mapped to their netdevs
m_delta_rdma_netdevs() { mut store/roce_load.c 's/\tif (!err \&\& fab_roce_map_netdevs(r, first_port))/\tif (0)/'; }
# a delta's stored index taken at any size: an array that large is allocated for it
m_delta_idx_unbounded() { mut store/roce_load.c 's/#define MAX_STORED_IDX (1 << 26)/#define MAX_STORED_IDX INT64_MAX/'; }
# a directory without *.db given to one merge --into: its error carried to every later one
m_into_dir_error_carried() { mut pipeline/merge.c 's/\t\tbool drop = !strncmp(e->message, NO_DB_DIR_AT, sizeof(NO_DB_DIR_AT) - 1);/\t\tbool drop = false;/'; }
# the modules and NIC counters the base left stored never read: a system written again loses them
m_delta_phys_not_read() { mut store/roce_load.c 's/\t\terr = later_phys(st, \&src, r, which);/\t\t;/'; }
# a delta's new modules numbered from 0: they take the stored ones' indices
m_delta_mod_end() { mut core/roce_delta.c 's/\t\tbump(\&m->end\[E_MOD\], b->mod_end - 1);/\t\t;/'; }
# a port's stored index not kept: its module and NIC counters are looked for under another port
m_delta_phys_port_idx() { mut store/roce_load.c 's/\tp->stored_idx = (uint32_t)id;/\tp->stored_idx = (uint32_t)id + 1;/'; }
