# shellcheck shell=bash
# Mutants of node names (core/nodename.c, the store's views, the outputs)
# and check --summary (reports/summary.c): sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"names_wrong_digits     integration/test_names_real            Failed   m_names_wrong_digits"
	"names_never_full       core/test_nodename                     Failed   m_names_never_full"
	"names_view_local       store/test_qos                         Failed   m_names_view_local"
	"names_map_digits       core/test_nodename                     Failed   m_names_map_digits"
	"names_prom_desc        integration/test_names_real            Failed   m_names_prom_desc"
	"names_route_bare       integration/test_vl_sim                Failed   m_names_route_bare"
	"names_phys_text_desc   integration/test_names_real            Failed   m_names_phys_text_desc"
	"names_phys_json_desc   integration/test_names_real            Failed   m_names_phys_json_desc"
	"names_phys_html_desc   integration/test_names_real            Failed   m_names_phys_html_desc"
	"names_phys_xml_none    integration/test_names_real            Failed   m_names_phys_xml_none"
	"summary_nodes_count    reports/test_summary                   Failed   m_summary_nodes_count"
	"summary_limit_ignored  cli/test_check                         Failed   m_summary_limit_ignored"
)
m_names_wrong_digits() { # the digits of the GUID's wrong end
	mut core/nodename.c 's/(unsigned long long)(guid \& SHORT_MASK));$/(unsigned long long)(guid >> 40 \& SHORT_MASK));/'
}
m_names_never_full() { # two sharers ending alike keep the same six digits
	mut core/nodename.c 's/hex\[v\[k\].i\] = alike ? FAB_NAME_HEX_FULL : FAB_NAME_HEX_SHORT;/hex[v[k].i] = FAB_NAME_HEX_SHORT;/'
}
m_names_view_local() { # a partial view names its nodes from what it loaded
	mut store/snapshot_load.c 's/^\tif (!l->ranges)$/\tif (1)/'
}
m_names_map_digits() { # a mapped node keeps the digits of its description
	mut core/nodemap_apply.c 's/^\t\t\tn->name_hex = 0; \/\* the map.s name is the name \*\//\t\t\t;/'
}
m_names_prom_desc() { # the export's node label: the description again
	mut reports/prometheus.c 's/{ "node", fab_node_name(s, i, w->names, nb, sizeof(nb)) },/{ "node", fab_nodemap_name(w->names, n->guid, n->desc) },/'
}
m_names_route_bare() { # route takes the bare shared description as the first node
	mut pipeline/route.c 's/if (found != FAB_NONE \&\& !by_name \&\& s->nodes\[found\].name_hex) {/if (0) {/'
}
m_names_phys_text_desc() { # physical's text (and every "where" of the physical layer): the description again
	mut reports/model_phys.c 's/fab_node_name(s, p->node_idx, names, nb, sizeof(nb)), g,$/fab_nodemap_name(names, s->nodes[p->node_idx].guid, s->nodes[p->node_idx].desc), g,/'
}
m_names_phys_json_desc() { # physical --json: a module's port named by its description
	mut reports/json_phys.c 's/fab_jw_str(t, fab_node_name(s, p->node_idx, names, nb, sizeof(nb))));/fab_jw_str(t, fab_nodemap_name(names, s->nodes[p->node_idx].guid, s->nodes[p->node_idx].desc)));/'
}
m_names_phys_html_desc() { # the HTML report's physical section: the description again
	mut reports/html_phys.c 's/fab_hw_text(w, fab_report_node_label(s, p->node_idx, nb));/fab_hw_text(w, s->nodes[p->node_idx].desc);/'
}
m_names_phys_xml_none() { # the XML report's modules without the node's name
	mut reports/xml_phys.c '/fab_xw_attr(x, "name", fab_node_name(s, s->ports\[port\].node_idx, NULL, nb, sizeof(nb)));/d'
}
m_summary_nodes_count() { # a rule's nodes counted once per finding
	mut reports/summary.c 's/if (x->node \&\& (j == i || strcmp0(f\[v\[j - 1\]\].node, x->node)))/if (x->node)/'
}
m_summary_limit_ignored() { # --summary lists every node whatever --limit says
	mut cli/print_check.c 's/if (s->limit \&\& shown >= s->limit)$/if (0)/'
}
