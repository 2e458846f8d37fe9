// SPDX-License-Identifier: MIT
/*
 * The physical layer in the Prometheus export: modules and cables of both
 * fabrics (an info series, temperature, supply voltage, per-lane optical
 * power and laser bias in base units: watts, amperes), bit error ratios
 * (model_phys.c, the same the reports show) and the RoCE hosts' NIC
 * counters under their canonical names (core/nic_counter.c). InfiniBand
 * series are keyed by node_guid and port, Ethernet ones by system and
 * ifname, as the other families are. Unknown values have no sample; a
 * family is written only when the snapshot has what it exports (as the
 * Ethernet families), so an InfiniBand scan without cables has none.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fabsweep/counter.h"
#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "phys.h"
#include "prom.h"

/* The labels of a port of either fabric (2), plus room for 7 more. */
struct plabels {
	char a[FAB_GUID_STRLEN], b[8];
	struct label l[9];
};

/* false when the port is not exported (a second device with a GUID). */
static bool port_labels(const struct fab_snapshot *s, unsigned fabric, uint32_t port, struct plabels *pl)
{
	if (fabric == FAB_PHYS_ETH) {
		const struct fab_roce *r = s->roce;
		if (!r || port >= r->n_eth_ports || r->eth_ports[port].system_idx >= r->n_systems)
			return false;
		pl->l[0] = (struct label){ "system", r->systems[r->eth_ports[port].system_idx].name };
		pl->l[1] = (struct label){ "ifname", r->eth_ports[port].ifname };
		return true;
	}
	if (port >= s->n_ports)
		return false;
	const struct fab_port *p = &s->ports[port];
	uint64_t guid = s->nodes[p->node_idx].guid;
	if (fab_snapshot_find_node(s, guid) != p->node_idx)
		return false;
	fab_guid_format(guid, pl->a);
	snprintf(pl->b, sizeof(pl->b), "%u", p->port_num);
	pl->l[0] = (struct label){ "node_guid", pl->a };
	pl->l[1] = (struct label){ "port", pl->b };
	return true;
}

static const char *str0(const char *s)
{
	return s ? s : "";
}

/* What a module family exports: its value, or NAN. */
enum { F_INFO, F_TEMP, F_VCC, F_RX, F_TX, F_BIAS };
static const struct {
	const char *name, *help;
	int what;
} mod_fams[] = {
	{ "fabsweep_module_info",
	  "1 per pluggable module or cable (InfiniBand: ibdiagnet2.cables; RoCE hosts: the module EEPROM), "
	  "with what identifies it; refused: its data did not decode consistently.", F_INFO },
	{ "fabsweep_module_temperature_celsius", "Module temperature as the module reports it.", F_TEMP },
	{ "fabsweep_module_supply_voltage_volts", "Module supply voltage.", F_VCC },
	{ "fabsweep_module_lane_rx_power_watts",
	  "Optical power a lane receives (0: no light). Lanes its media does not use included.", F_RX },
	{ "fabsweep_module_lane_tx_power_watts", "Optical power a lane transmits.", F_TX },
	{ "fabsweep_module_lane_tx_bias_amperes", "Laser bias current of a lane.", F_BIAS },
};

static double lane_value(const struct fab_module_lane *l, int what)
{
	return what == F_RX ? l->rx_mw / 1000 : what == F_TX ? l->tx_mw / 1000 : l->bias_ma / 1000;
}

static void module_family(struct pw *w, size_t k)
{
	const struct fab_snapshot *s = fab_prom_snap(w);
	struct plabels pl;
	char lane[8];

	fab_prom_family(w, mod_fams[k].name, "gauge", mod_fams[k].help);
	for (unsigned f = 0; f < FAB_PHYS__FABRICS; f++) {
		const struct fab_modules *set = fab_phys_modules(s, f);
		for (size_t i = 0; set && i < set->n; i++) {
			const struct fab_module *m = &set->mods[i];
			const struct fab_module_lane *ls = fab_module_lanes(set, m);
			int what = mod_fams[k].what;
			if (!port_labels(s, f, m->port_idx, &pl) || (m->refused && what != F_INFO))
				continue;
			if (what == F_INFO) {
				pl.l[2] = (struct label){ "spec", str0(fab_module_spec_name(m->spec)) };
				pl.l[3] = (struct label){ "type", str0(m->type) };
				pl.l[4] = (struct label){ "vendor", str0(m->vendor) };
				pl.l[5] = (struct label){ "part_number", str0(m->part_number) };
				pl.l[6] = (struct label){ "serial", str0(m->serial) };
				pl.l[7] = (struct label){ "revision", str0(m->revision) };
				pl.l[8] = (struct label){ "refused", m->refused ? "true" : "false" };
				fab_prom_u64(w, mod_fams[k].name, pl.l, 9, 1);
			} else if (what == F_TEMP || what == F_VCC) {
				double v = what == F_TEMP ? m->temperature_c : m->voltage_v;
				if (isfinite(v))
					fab_prom_dbl(w, mod_fams[k].name, pl.l, 2, v);
			} else {
				for (unsigned j = 0; ls && j < m->n_lanes; j++) {
					double v = lane_value(&ls[j], what);
					if (!isfinite(v))
						continue;
					snprintf(lane, sizeof(lane), "%u", ls[j].lane);
					pl.l[2] = (struct label){ "lane", lane };
					fab_prom_dbl(w, mod_fams[k].name, pl.l, 3, v);
				}
			}
		}
	}
}

static int ber_families(struct pw *w)
{
	const struct fab_snapshot *s = fab_prom_snap(w);
	struct fab_report_phys p;
	struct plabels pl;

	size_t n_fab[FAB_PHYS__FABRICS] = { 0 };

	if (fab_report_phys_build(s, NULL, 0, &p))
		return -ENOMEM;
	for (size_t i = 0; i < p.n_ber; i++) /* the counters' estimate is fabsweep_port_ber */
		n_fab[p.ber[i].fabric] += !p.ber[i].from_counters;
	if (n_fab[FAB_PHYS_IB])
		fab_prom_family(w, "fabsweep_port_bit_error_ratio", "gauge",
			"Bit error ratio of an InfiniBand port as the device measured it (ibdiagnet2 PHY_DB16): "
			"kind raw (before FEC), effective (after FEC), symbol.");
	for (size_t i = 0; i < p.n_ber; i++) {
		static const char *const kinds[] = { "raw", "effective", "symbol" };
		const struct fab_phys_ber *b = &p.ber[i];
		const double v[] = { b->raw, b->effective, b->symbol };
		if (b->fabric != FAB_PHYS_IB || b->from_counters || !port_labels(s, b->fabric, b->port, &pl))
			continue;
		for (unsigned k = 0; k < 3; k++)
			if (isfinite(v[k])) {
				pl.l[2] = (struct label){ "kind", kinds[k] };
				fab_prom_dbl(w, "fabsweep_port_bit_error_ratio", pl.l, 3, v[k]);
			}
	}
	if (n_fab[FAB_PHYS_ETH])
		fab_prom_family(w, "fabsweep_eth_port_pre_fec_bit_error_ratio", "gauge",
			"Bit error ratio before FEC of an Ethernet port: FEC-corrected bits over received bits "
			"between collect --interval's two readings, else since the counters were cleared.");
	for (size_t i = 0; i < p.n_ber; i++)
		if (p.ber[i].fabric == FAB_PHYS_ETH && port_labels(s, FAB_PHYS_ETH, p.ber[i].port, &pl))
			fab_prom_dbl(w, "fabsweep_eth_port_pre_fec_bit_error_ratio", pl.l, 2, p.ber[i].raw);
	fab_report_phys_free(&p);
	return 0;
}

/* Every NIC counter's latest reading (the counter model's view). */
static int nic_family(struct pw *w)
{
	const struct fab_snapshot *s = fab_prom_snap(w);
	const struct fab_roce *r = s->roce;
	struct fab_nic_view *v;
	struct plabels pl;
	char prio[4];

	if (!r || !r->n_nic_counters)
		return 0;
	fab_prom_family(w, "fabsweep_eth_port_nic_total", "counter",
			"A RoCE host's NIC statistic (ethtool) by canonical name (docs/roce.md maps the drivers' "
			"names); priority: per-priority pause counters.");
	if (!(v = malloc(sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		if (!r->eth_ports[i].nic_count || !port_labels(s, FAB_PHYS_ETH, (uint32_t)i, &pl))
			continue;
		fab_nic_view(r, (uint32_t)i, NULL, v);
		for (unsigned c = 0; c < FAB_NIC__COUNT; c++)
			for (unsigned slot = 0; slot < FAB_NIC_SLOTS; slot++) {
				if (!v->have[c][slot])
					continue;
				pl.l[2] = (struct label){ "counter", fab_nic_ctr_name(c) };
				if (slot) {
					snprintf(prio, sizeof(prio), "%u", (slot - 1) & 7);
					pl.l[3] = (struct label){ "priority", prio };
				}
				fab_prom_u64(w, "fabsweep_eth_port_nic_total", pl.l, slot ? 4 : 3, v->value[c][slot]);
			}
	}
	free(v);
	return 0;
}

int fab_prom_phys(struct pw *w)
{
	const struct fab_snapshot *s = fab_prom_snap(w);
	const struct fab_modules *eth = fab_phys_modules(s, FAB_PHYS_ETH);

	for (size_t k = 0; (s->ib_modules.n || (eth && eth->n)) && k < sizeof(mod_fams) / sizeof(mod_fams[0]); k++)
		module_family(w, k);
	return ber_families(w) || nic_family(w) ? -ENOMEM : 0;
}
