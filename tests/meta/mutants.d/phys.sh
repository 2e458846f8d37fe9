# shellcheck shell=bash
# Mutants of the physical layer (modules and cables, NIC counters, bit error
# ratios: core/module.c, core/nic_counter.c, host/module*.c,
# import/ibdiag_phys.c, core/diff_module.c, reports/*phys*), sourced by
# tests/meta/mutants.sh.
MUTANTS+=(
	"phys_lanes_unused     rules/test_fixtures                    Failed   m_phys_lanes_unused"
	"phys_cc_base_skipped  host/test_module                       Failed   m_phys_cc_base"
	"phys_dbm_unsigned     import/test_ibdiag_phys                Failed   m_phys_dbm_unsigned"
	"phys_prio_pause_tx    host/test_ethtool                      Failed   m_phys_prio_pause_tx"
	"phys_diff_no_serial   workflow/test_diff                     Failed   m_phys_diff_no_serial"
	"phys_margin_order     reports/test_phys                      Failed   m_phys_margin_order"
	"phys_prom_milliwatts  integration/test_import_cli            Failed   m_phys_prom_milliwatts"
	"phys_top_kept_first   reports/test_phys                      Failed   m_phys_top_kept_first"
	"phys_group_runs_once  reports/test_phys                      Failed   m_phys_group_runs_once"
)
# the unused lanes of a one-lane module in a four-lane cage judged as dark
m_phys_lanes_unused() { mut core/module.c 's/if (m->media_lanes \&\& m->media_lanes < m->n_lanes)/if (0 \&\& m->media_lanes)/'; }
# SFF-8636 page 00h's CC_BASE never checked: a damaged dump becomes numbers
m_phys_cc_base() { mut host/module_sff8636.c 's/if (!p0 || mod_check_code(p0, 0, 63, "check code CC_BASE", out))/if (!p0)/'; }
# ibdiagnet2.cables' power thresholds read unsigned: 65530 is 65530 dBm, not -6
m_phys_dbm_unsigned() { mut import/ibdiag_phys.c 's/return v >= 32768 ? v - 65536 : v;/return v;/'; }
# mlx5's per-priority pause frames received counted as sent
m_phys_prio_pause_tx() { mut core/nic_counter.c 's/{ "mlx5_core", "rx_prio%u_pause", FAB_NIC_RX_PAUSE, P },/{ "mlx5_core", "rx_prio%u_pause", FAB_NIC_TX_PAUSE, P },/'; }
# diff: a module with another serial number is the same module
m_phys_diff_no_serial() { mut core/diff_module.c 's/return !cmp_str0(a->serial, b->serial) \&\& /return /'; }
# the power margins largest first
m_phys_margin_order() { mut reports/model_phys.c 's/int c = cmp_dbl(a->margin, b->margin);/int c = -cmp_dbl(a->margin, b->margin);/'; }
# the lane power families in mW under a watts name
m_phys_prom_milliwatts() { mut reports/prom_phys.c 's|return what == F_RX ? l->rx_mw / 1000 :|return what == F_RX ? l->rx_mw :|'; }
# the first rows a report shows: the first ones met kept, not the smallest
m_phys_top_kept_first() { mut reports/model_phys.c 's/if (l->held \&\& l->cmp(ROW(l, l->held), ROW(l, 0)) < 0) {/if (0) {/'; }
# a run of modules of one kind counted once when the groups are merged
m_phys_group_runs_once() { mut reports/model_phys.c 's/all\[k - 1\].n += all\[i\].n;/all[k - 1].n++;/'; }
