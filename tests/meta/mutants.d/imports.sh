# shellcheck shell=bash
# Mutants of the imports (import ibdiagnet2 DIR, import ibnetdiscover FILE):
# sourced by tests/meta/mutants.sh. test_import_cli.sh compares every stored
# value with an independent parse of the source files
# (tests/tools/import_vs_source.py); the unit tests reach the branches the
# real files do not.
MUTANTS+=(
	"ibdiag_switch_port_lid  integration/test_import_cli  Failed   m_ibdiag_switch_port_lid"
	"ibdiag_ndr_as_hdr       integration/test_import_cli  Failed   m_ibdiag_ndr_as_hdr"
	"topo_fdr10_as_fdr       integration/test_import_cli  Failed   m_topo_fdr10_as_fdr"
	"ibdiag_skip_not_seen    integration/test_import_cli  Failed   m_ibdiag_skip_not_seen"
	"ibdiag_extended_never   integration/test_import_cli  Failed   m_ibdiag_extended_never"
	"ibdiag_na_is_error      import/test_ibdiag           Failed   m_ibdiag_na_is_error"
	"ibdiag_unicast_kept     import/test_ibdiag           Failed   m_ibdiag_unicast_kept"
	"topo_ca_lid_last_port   integration/test_import_cli  Failed   m_topo_ca_lid_last_port"
	"topo_8x_unknown         import/test_topo_import      Failed   m_topo_8x_unknown"
	"import_label_ignored    integration/test_import_cli  Failed   m_import_label_ignored"
)
# values: a switch port's LID from its own PORTS row (0) instead of port 0's;
# NDR read as HDR; FDR10 as FDR
m_ibdiag_switch_port_lid() { mut import/ibdiag_import.c 's/\.lid = t->type == FAB_NODE_SWITCH ? switch_lid : ip->lid,/.lid = ip->lid,/'; }
m_ibdiag_ndr_as_hdr() { mut import/ibdiag_import.c 's/{ 0x800, FAB_SPEED_NDR }/{ 0x800, FAB_SPEED_HDR }/'; }
m_topo_fdr10_as_fdr() { mut import/topo_lex.c 's/{ "FDR10", FAB_SPEED_FDR10 }/{ "FDR10", FAB_SPEED_FDR }/'; }
# branches: --skip in another spelling, the 64-bit counters never taken,
# N/A not allowed, unicast kept without the extended counters, a dual-port
# CA's LID from its last port, 8X unknown
m_ibdiag_skip_not_seen() { mut import/ibdiag_import.c 's/(skip = strstr(args, "--skip "))/(skip = strstr(args, "--skip="))/'; }
m_ibdiag_extended_never() { mut import/ibdiag_import.c 's/^\tm->extended = true;/\tm->extended = false;/'; }
m_ibdiag_na_is_error() { mut import/ibdiag_csv.c 's/if (!s || !strcmp(s, "N\/A"))/if (!s)/'; }
m_ibdiag_unicast_kept() { mut import/ibdiag_import.c 's/if (!m->extended) \/\* unicast/if (0) \/* unicast/'; }
m_topo_ca_lid_last_port() { mut import/topo_import.c 's/if (tp->have_lid \&\& !snap->nodes\[ni\].lid)/if (tp->have_lid)/'; }
m_topo_8x_unknown() { mut import/topo_lex.c 's/\*width = FAB_WIDTH_8X;/*width = 0;/'; }
# a parameter ignored: --label
m_import_label_ignored() { mut pipeline/import.c 's/if (job->label \&\& !(snap->label/if (0 \&\& job->label \&\& !(snap->label/'; }
