// SPDX-License-Identifier: MIT
/*
 * The XML report's <physical> element (docs/fabsweep-report.xsd): the
 * physical layer model (model_phys.c) in full, every row of every list
 * worst first, then every module with its lanes. Unknown values are left
 * out; a dark lane has no-light="true" instead of a dBm value.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "fabsweep/module.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "model.h"
#include "phys.h"
#include "xmlw.h"

static void dbl(struct fab_xw *x, const char *name, double v)
{
	if (isfinite(v))
		fab_xw_attr_double(x, name, v);
}

/* fabric="ib" guid= port= name=, or fabric="eth" system= ifname= */
static void port_attrs(struct fab_xw *x, const struct fab_snapshot *s, unsigned fabric, uint32_t port)
{
	fab_xw_attr_lit(x, "fabric", fab_phys_fabric_name(fabric));
	if (fabric == FAB_PHYS_ETH) {
		const struct fab_roce *r = s->roce;
		const struct fab_eth_port *p = r && port < r->n_eth_ports ? &r->eth_ports[port] : NULL;
		fab_xw_attr(x, "system", p && p->system_idx < r->n_systems ? r->systems[p->system_idx].name : "?");
		fab_xw_attr(x, "ifname", p && p->ifname ? p->ifname : "?");
	} else if (port < s->n_ports) {
		fab_xw_attr_guid(x, "guid", s->nodes[s->ports[port].node_idx].guid);
		fab_xw_attr_u64(x, "port", s->ports[port].port_num);
		char nb[FAB_NODE_NAME_CAP];
		fab_xw_attr(x, "name", fab_node_name(s, s->ports[port].node_idx, NULL, nb, sizeof(nb)));
	}
}

static void module(struct fab_xw *x, const struct fab_snapshot *s, unsigned fabric,
		   const struct fab_modules *set, const struct fab_module *m)
{
	const struct fab_module_lane *ls = fab_module_lanes(set, m);
	static const struct { const char *name; size_t off; } strs[] = {
		{ "type", offsetof(struct fab_module, type) },
		{ "vendor", offsetof(struct fab_module, vendor) },
		{ "part-number", offsetof(struct fab_module, part_number) },
		{ "serial", offsetof(struct fab_module, serial) },
		{ "revision", offsetof(struct fab_module, revision) },
		{ "date-code", offsetof(struct fab_module, date_code) },
		{ "media", offsetof(struct fab_module, media) },
		{ "note", offsetof(struct fab_module, note) },
	};

	fab_xw_start(x, "module");
	port_attrs(x, s, fabric, m->port_idx);
	if (fab_module_spec_name(m->spec))
		fab_xw_attr_lit(x, "spec", fab_module_spec_name(m->spec));
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *v = *(const char *const *)((const char *)m + strs[i].off);
		if (v)
			fab_xw_attr(x, strs[i].name, v);
	}
	if (m->refused)
		fab_xw_attr_lit(x, "refused", "true");
	fab_xw_attr_lit(x, "monitors", m->monitors ? "true" : "false");
	dbl(x, "length-m", m->length_m);
	dbl(x, "temperature-c", m->temperature_c);
	dbl(x, "voltage-v", m->voltage_v);
	for (unsigned i = 0; ls && i < m->n_lanes; i++) {
		fab_xw_start(x, "lane");
		fab_xw_attr_u64(x, "n", ls[i].lane);
		dbl(x, "rx-mw", ls[i].rx_mw);
		dbl(x, "tx-mw", ls[i].tx_mw);
		dbl(x, "bias-ma", ls[i].bias_ma);
		if (ls[i].flags & FAB_LANEF_RX_LOS)
			fab_xw_attr_lit(x, "rx-los", "true");
		if (ls[i].flags & FAB_LANEF_TX_FAULT)
			fab_xw_attr_lit(x, "tx-fault", "true");
		fab_xw_end(x);
	}
	fab_xw_end(x);
}

static void rows(struct fab_xw *x, const struct fab_snapshot *s, const struct fab_report_phys *p)
{
	for (size_t i = 0; i < p->n_ber && !x->err; i++) {
		const struct fab_phys_ber *b = &p->ber[i];
		fab_xw_start(x, "ber");
		port_attrs(x, s, b->fabric, b->port);
		fab_xw_attr_lit(x, "source", b->from_counters ? "counters" : "device");
		if (b->at_least)
			fab_xw_attr_lit(x, "at-least", "true");
		dbl(x, "raw", b->raw);
		dbl(x, "effective", b->effective);
		dbl(x, "symbol", b->symbol);
		fab_xw_end(x);
	}
	for (size_t i = 0; i < fab_phys_held(p, p->n_margins) && !x->err; i++) {
		const struct fab_phys_margin *g = &p->margins[i];
		fab_xw_start(x, "margin");
		port_attrs(x, s, g->fabric, fab_phys_module_port(s, g->fabric, g->module));
		fab_xw_attr_u64(x, "lane", g->lane);
		fab_xw_attr_lit(x, "signal", fab_module_mon_name(g->mon));
		if (isinf(g->dbm))
			fab_xw_attr_lit(x, "no-light", "true");
		dbl(x, "dbm", g->dbm);
		dbl(x, "margin-db", g->margin);
		fab_xw_attr_lit(x, "level", fab_mon_level_name(g->level));
		fab_xw_attr_lit(x, "thresholds", g->own ? "module" : "default");
		dbl(x, "lo-warn-dbm", g->lo_warn);
		dbl(x, "hi-warn-dbm", g->hi_warn);
		fab_xw_end(x);
	}
	for (size_t i = 0; i < fab_phys_held(p, p->n_temps) && !x->err; i++) {
		const struct fab_phys_temp *t = &p->temps[i];
		fab_xw_start(x, "temperature");
		port_attrs(x, s, t->fabric, fab_phys_module_port(s, t->fabric, t->module));
		dbl(x, "celsius", t->celsius);
		fab_xw_attr_lit(x, "level", fab_mon_level_name(t->level));
		dbl(x, "hi-warn", t->hi_warn);
		fab_xw_attr_lit(x, "thresholds", t->own ? "module" : "default");
		fab_xw_end(x);
	}
}

void fab_report_xml_phys(struct fab_xw *x, const struct fab_report_ctx *c)
{
	const struct fab_report_phys *p = &c->ph;
	const struct fab_snapshot *s = c->snap;
	char name[32];

	if (!fab_report_phys_present(p))
		return;
	fab_xw_start(x, "physical");
	for (unsigned f = 0; f < FAB_PHYS__FABRICS; f++) {
		const char *fb = fab_phys_fabric_name(f);
		snprintf(name, sizeof(name), "%s-modules", fb);
		fab_xw_attr_u64(x, name, p->n_modules[f]);
		snprintf(name, sizeof(name), "%s-monitored", fb);
		fab_xw_attr_u64(x, name, p->n_monitored[f]);
		snprintf(name, sizeof(name), "%s-refused", fb);
		fab_xw_attr_u64(x, name, p->n_refused[f]);
	}
	fab_xw_attr_u64(x, "ber-ports", p->n_ber);
	rows(x, s, p);
	for (unsigned f = 0; f < FAB_PHYS__FABRICS; f++) {
		const struct fab_modules *set = fab_phys_modules(s, f);
		for (size_t i = 0; set && i < set->n && !x->err; i++)
			module(x, s, f, set, &set->mods[i]);
	}
	for (size_t i = 0; i < p->n_groups && !x->err; i++) {
		const struct fab_phys_group *g = &p->groups[i];
		fab_xw_start(x, "inventory");
		fab_xw_attr_lit(x, "fabric", fab_phys_fabric_name(g->fabric));
		if (g->type)
			fab_xw_attr(x, "type", g->type);
		if (g->vendor)
			fab_xw_attr(x, "vendor", g->vendor);
		if (g->part_number)
			fab_xw_attr(x, "part-number", g->part_number);
		fab_xw_attr_u64(x, "count", g->n);
		fab_xw_attr_u64(x, "monitored", g->n_monitored);
		fab_xw_attr_u64(x, "refused", g->n_refused);
		fab_xw_end(x);
	}
	fab_xw_end(x);
}
