# shellcheck shell=bash
# Mutants of the --json documents (check, diff, scans, rules, db info;
# ready --json has its own file): sourced by tests/meta/mutants.sh. Each is
# caught by a test that reads the values back and compares them with the
# database and the text output (tests/tools/json_vs_db.py).
MUTANTS+=(
	"json_scans_ports        integration/test_import_cli  Failed   m_json_scans_ports"
	"json_peer_port          integration/test_import_cli  Failed   m_json_peer_port"
	"json_diff_old_is_new    integration/test_json_sim    Failed   m_json_diff_old_is_new"
	"json_info_free_bytes    integration/test_json_sim    Failed   m_json_info_free_bytes"
	"json_info_findings_gone integration/test_import_cli  Failed   m_json_no_info_findings"
	"json_expired_inverted   integration/test_import_cli  Failed   m_json_expired_inverted"
	"json_no_baseline_scan   integration/test_json_sim    Failed   m_json_no_baseline_scan"
	"json_rules_severity_cfg integration/test_import_cli  Failed   m_json_rules_severity_cfg"
	"json_rules_param_cfg    integration/test_import_cli  Failed   m_json_rules_param_cfg"
	"json_diff_map_ignored   integration/test_json_sim    Failed   m_json_diff_map_ignored"
)
# values: a field from the wrong variable
m_json_scans_ports() { mut reports/json_store.c 's/"ports", (json_int_t)r->n_ports,/"ports", (json_int_t)r->n_links,/'; }
m_json_peer_port() { mut reports/json_check.c 's/"peer_port", fab_jw_str(t, f->peer_port),/"peer_port", fab_jw_str(t, f->port),/'; }
m_json_diff_old_is_new() { mut reports/json_diff.c 's/"old", o\[0\] ? fab_jw_str(t, o) : json_null(),/"old", n[0] ? fab_jw_str(t, n) : json_null(),/'; }
m_json_info_free_bytes() { mut reports/json_store.c 's/(info->page_size \* info->freelist_count)/(info->page_size * info->page_count)/'; }
# branches: one never taken, one inverted
m_json_no_info_findings() { mut reports/json_check.c 's/arr \&\& sev >= FAB_SEV_INFO; sev--/arr \&\& sev > FAB_SEV_INFO; sev--/'; }
m_json_expired_inverted() { mut reports/json_check.c 's/if (now >= sp\[i\].until_ms \&\&/if (now < sp[i].until_ms \&\&/'; }
m_json_no_baseline_scan() { mut reports/json_check.c 's/in->base ? json_integer(in->base->scan_id) : json_null()/json_null()/'; }
# parameters ignored: the configuration's severities and values, --node-name-map
m_json_rules_severity_cfg() { mut reports/json_rules.c 's/"severity", sev(fab_config_severity(cfg, r)),/"severity", sev(r->severity),/'; }
m_json_rules_param_cfg() { mut reports/json_rules.c 's/fab_param_format(p, fab_config_value(cfg, r, i), cur, sizeof(cur));/fab_param_format(p, p->def, cur, sizeof(cur));/'; }
m_json_diff_map_ignored() { mut reports/json_diff.c 's/fab_name_format(names, e->guid, e->desc, e->name_hex,/fab_name_format(NULL, e->guid, e->desc, e->name_hex,/'; }
