# shellcheck shell=bash
# Mutants of the VL and QoS tables (scanner/qos.c, store/qos_io.c, the
# vl.* rules, their diff): sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"vl_policy_unseen       scanner/test_qos_scan                  Failed   m_vl_policy_unseen"
	"vl_weight_byte         integration/test_vl_sim                Failed   m_vl_weight_byte"
	"vl_sample_kept         scanner/test_qos_scan                  Failed   m_vl_sample_kept"
	"vl_sls_ignored         rules/test_fixtures                    Failed   m_vl_sls_ignored"
	"vl_min_tier_ignored    rules/test_fixtures                    Failed   m_vl_min_tier_ignored"
	"vl_in_port_down        rules/test_fixtures                    Failed   m_vl_in_port_down"
	"vl_high_ignored        rules/test_fixtures                    Failed   m_vl_high_ignored"
	"vl_vl15_allowed        integration/test_vl_sim                Failed   m_vl_vl15_allowed"
	"vl_diff_counts         workflow/test_diff                     Failed   m_vl_diff_counts"
	"vl_reason_lost         store/test_qos                         Failed   m_vl_reason_lost"
	"vl_sample_ca           scanner/test_qos_scan                  Failed   m_vl_sample_ca"
	"vl_no_fallback         scanner/test_qos_scan                  Failed   m_vl_no_fallback"
	"sm_after_not_master    integration/test_scan_sm               Failed   m_sm_after_not_master"
	"sm_change_unseen       integration/test_reliability_faults    Failed   m_sm_change_unseen"
	"sm_failed_twice        integration/test_reliability_faults    Failed   m_sm_failed_twice"
)
m_vl_policy_unseen() { # a non-default sampled table taken for the default
	mut core/qos.c '/^bool fab_sl2vl_is_default/,/^}/ s/^\treturn false;/\treturn true;/'
}
m_vl_weight_byte() { # a VLArbitration entry's weight read from its VL byte
	mut scanner/qos.c 's/.weight = d\[2 \* i + 1\] };/.weight = d[2 * i] };/'
}
m_vl_sample_kept() { # a default scan keeps its sampled table
	mut scanner/qos.c 's/^\t\t\tc.r->n_sl2vl = before; .*/\t\t\t;/'
}
m_vl_sls_ignored() { # [routing] sls ignored by the VL rules
	mut rules/check_vl.c 's/(unsigned)rule_shared(ctx, rule_param_routing_sls)/0xffffu/'
}
m_vl_min_tier_ignored() { # [vl.op_vls_mismatch] min_tier_links ignored
	mut rules/check_vl.c 's/^\t\tif (total\[t\] < min_links)$/\t\tif (0)/'
}
m_vl_in_port_down() { # a table of a Down in-port counted
	mut rules/check_vl.c 's/ t->in, !t->in || (in \&\& up(in)) };$/ t->in, true };/'
}
m_vl_high_ignored() { # the high-priority table's weights ignored
	mut core/qos.c 's/^\tfor (unsigned i = 0; i < v->n_high; i++)$/\tfor (unsigned i = 0; i < 0; i++)/'
}
m_vl_vl15_allowed() { # VL 15 taken for a lane a port runs
	mut rules/check_vl.c 's/(t->vl\[sl\] == FAB_VL_DROP || t->vl\[sl\] >= vls)/(t->vl[sl] >= vls \&\& t->vl[sl] != FAB_VL_DROP)/'
}
m_vl_diff_counts() { # diff's sl2vl change: the tables compared said to be those changed
	mut core/diff.c 's/^\t\tch->old_value = cmp\[i\];/\t\tch->old_value = chg[i];/'
}
m_vl_reason_lost() { # the loader takes every scan's reason for a policy
	mut store/qos_io.c 's/^\tsnap->qos->reason = (uint8_t)reason;/\tsnap->qos->reason = FAB_QOS_POLICY;/'
}
m_vl_sample_ca() { # the scanning CA's own table sampled, not its switch's
	mut scanner/qos.c 's/for (uint32_t b = 0; sw->type == FAB_NODE_SWITCH \&\& b < sw->port_count; b++) {/for (uint32_t b = 0; 0; b++) {/'
}
m_vl_no_fallback() { # no switch: nothing sampled
	mut scanner/qos.c '/^static int plan_sample/,/^}/ s/^\tif (add_node(c, me->node_idx, me))$/\tif (1)/'
}
# the SMs are read at the end of the scan, the master's answer the ActCount "after"
m_sm_after_not_master() { # the ActCount at the end not taken from the master's answer
	mut scanner/scan.c 's/^\ts->sm_act_end = m ? m->act_count : 0;/\ts->sm_act_end = 0;/'
}
m_sm_change_unseen() { # another SM master at the end taken for the first
	mut scanner/scan.c 's/^\tif (have_before \&\& (!m || m->port_guid != before.port_guid)) {/\tif (have_before \&\& !m) {/'
}
m_sm_failed_twice() { # a master that stopped answering named twice
	mut scanner/scan.c 's/^\t\tif ((m || !was || !was->failed) \&\&/\t\tif (1 \&\&/'
}
