// SPDX-License-Identifier: MIT
/*
 * `fabsweep physical --json` (docs/json/physical.schema.json): the
 * physical layer model (model_phys.c), every row, and every module with
 * its lanes. Unknown numbers, and a dark lane's dBm, are null.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "jsonw.h"
#include "phys.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A port of either fabric: {"fabric": "ib", "guid", "port", "name"} or
 * {"fabric": "eth", "system", "ifname"}. */
static json_t *where(struct fab_report_text *t, const struct fab_snapshot *s, const struct fab_nodemap *names,
		     unsigned fabric, uint32_t port)
{
	if (fabric == FAB_PHYS_ETH) {
		const struct fab_roce *r = s->roce;
		if (!r || port >= r->n_eth_ports || r->eth_ports[port].system_idx >= r->n_systems)
			return json_null();
		const struct fab_eth_port *p = &r->eth_ports[port];
		return json_pack("{s:s, s:o, s:o}", "fabric", "eth", "system",
				 fab_jw_str(t, r->systems[p->system_idx].name), "ifname", fab_jw_str(t, p->ifname));
	}
	if (port >= s->n_ports)
		return json_null();
	const struct fab_port *p = &s->ports[port];
	char nb[FAB_NODE_NAME_CAP];
	return json_pack("{s:s, s:o, s:i, s:o}", "fabric", "ib", "guid", fab_jw_guid(s->nodes[p->node_idx].guid),
			 "port", p->port_num, "name",
			 fab_jw_str(t, fab_node_name(s, p->node_idx, names, nb, sizeof(nb))));
}

static json_t *lane(const struct fab_module_lane *l)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:b, s:b}", "lane", l->lane, "rx_mw", num(l->rx_mw), "tx_mw",
			 num(l->tx_mw), "bias_ma", num(l->bias_ma), "rx_los", !!(l->flags & FAB_LANEF_RX_LOS),
			 "tx_fault", !!(l->flags & FAB_LANEF_TX_FAULT));
}

static json_t *module(struct fab_report_text *t, const struct fab_snapshot *s, const struct fab_nodemap *names,
		      unsigned fabric, const struct fab_modules *set, uint32_t mi)
{
	const struct fab_module *m = &set->mods[mi];
	const struct fab_module_lane *ls = fab_module_lanes(set, m);
	json_t *o = json_pack("{s:o, s:s?, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}",
			      "port", where(t, s, names, fabric, m->port_idx), "spec",
			      fab_module_spec_name(m->spec), "refused", m->refused, "note", fab_jw_str(t, m->note),
			      "type", fab_jw_str(t, m->type), "vendor", fab_jw_str(t, m->vendor), "part_number",
			      fab_jw_str(t, m->part_number), "serial", fab_jw_str(t, m->serial), "revision",
			      fab_jw_str(t, m->revision), "date_code", fab_jw_str(t, m->date_code), "media",
			      fab_jw_str(t, m->media), "length_m", num(m->length_m), "monitors", m->monitors,
			      "temperature_c", num(m->temperature_c), "voltage_v", num(m->voltage_v));
	json_t *arr = o ? fab_jw_add_array(o, "lanes") : NULL;
	if (o && !arr) {
		json_decref(o);
		return NULL;
	}
	for (unsigned i = 0; ls && i < m->n_lanes; i++)
		if (fab_jw_append(arr, lane(&ls[i]))) {
			json_decref(o);
			return NULL;
		}
	return o;
}

static int counts(json_t *doc, const struct fab_report_phys *p)
{
	json_t *c = fab_jw_add_object(doc, "counts");

	for (unsigned f = 0; c && f < FAB_PHYS__FABRICS; f++)
		if (fab_jw_set(c, fab_phys_fabric_name(f),
			       json_pack("{s:o, s:o, s:o}", "modules", fab_jw_uint(p->n_modules[f]), "monitored",
					 fab_jw_uint(p->n_monitored[f]), "refused", fab_jw_uint(p->n_refused[f]))))
			return -ENOMEM;
	return c ? 0 : -ENOMEM;
}

static int rows(json_t *doc, struct fab_report_text *t, const struct fab_snapshot *s,
		const struct fab_report_phys *p, const struct fab_nodemap *names)
{
	json_t *ber = fab_jw_add_array(doc, "ber"), *mg = fab_jw_add_array(doc, "margins");
	json_t *tp = fab_jw_add_array(doc, "temperatures"), *inv = fab_jw_add_array(doc, "inventory");
	int err = ber && mg && tp && inv ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < p->n_ber; i++) {
		const struct fab_phys_ber *b = &p->ber[i];
		err = fab_jw_append(ber, json_pack("{s:o, s:o, s:o, s:o, s:s, s:b}", "port",
						   where(t, s, names, b->fabric, b->port), "raw", num(b->raw),
						   "effective", num(b->effective), "symbol", num(b->symbol), "source",
						   b->from_counters ? "counters" : "device", "at_least", b->at_least));
	}
	for (size_t i = 0; !err && i < fab_phys_held(p, p->n_margins); i++) {
		const struct fab_phys_margin *g = &p->margins[i];
		err = fab_jw_append(mg, json_pack("{s:o, s:i, s:s, s:o, s:b, s:o, s:s, s:b, s:o, s:o}", "port",
						  where(t, s, names, g->fabric, fab_phys_module_port(s, g->fabric, g->module)),
						  "lane", g->lane, "monitor", fab_module_mon_name(g->mon), "dbm", num(g->dbm),
						  "no_light", isinf(g->dbm) && g->dbm < 0, "margin_db", num(g->margin),
						  "level", fab_mon_level_name(g->level), "own_thresholds", g->own,
						  "lo_warn_dbm", num(g->lo_warn), "hi_warn_dbm", num(g->hi_warn)));
	}
	for (size_t i = 0; !err && i < fab_phys_held(p, p->n_temps); i++) {
		const struct fab_phys_temp *m = &p->temps[i];
		err = fab_jw_append(tp, json_pack("{s:o, s:o, s:s, s:o, s:o, s:b}", "port",
						  where(t, s, names, m->fabric, fab_phys_module_port(s, m->fabric, m->module)),
						  "celsius", num(m->celsius), "level", fab_mon_level_name(m->level),
						  "margin", num(m->margin), "hi_warn", num(m->hi_warn), "own_thresholds", m->own));
	}
	for (size_t i = 0; !err && i < p->n_groups; i++) {
		const struct fab_phys_group *g = &p->groups[i];
		err = fab_jw_append(inv, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "fabric",
						   fab_phys_fabric_name(g->fabric), "type", fab_jw_str(t, g->type),
						   "vendor", fab_jw_str(t, g->vendor), "part_number",
						   fab_jw_str(t, g->part_number), "count", fab_jw_uint(g->n), "monitored",
						   fab_jw_uint(g->n_monitored), "refused", fab_jw_uint(g->n_refused)));
	}
	return err;
}

int fab_report_phys_json(FILE *f, const struct fab_snapshot *s, const struct fab_report_phys *p,
			 const struct fab_nodemap *names)
{
	struct fab_report_text t = { 0 };
	json_t *doc = fab_jw_doc("physical"), *mods = NULL;
	int err = 0;

	if (!doc || fab_jw_set(doc, "scan", fab_jw_scan(&t, s)) || counts(doc, p) || rows(doc, &t, s, p, names) ||
	    !(mods = fab_jw_add_array(doc, "modules")))
		err = -ENOMEM;
	for (unsigned fb = 0; !err && fb < FAB_PHYS__FABRICS; fb++) {
		const struct fab_modules *set = fab_phys_modules(s, fb);
		for (size_t i = 0; !err && set && i < set->n; i++)
			err = fab_jw_append(mods, module(&t, s, names, fb, set, (uint32_t)i));
	}
	return fab_jw_finish(doc, err, &t, f);
}
