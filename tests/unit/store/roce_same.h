/* SPDX-License-Identifier: MIT */
/*
 * Whether two RoCE models hold the same elements (cmocka assertions), strings
 * and TLVs by content: for the tests of the store's RoCE part (a model
 * written and read back, read three ways, migrated).
 */
#pragma once

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <sqlite3.h>
#include <stdlib.h>

#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

/* Appends the first column of every row of query s (prepared and bound) to
 * the text *out, a line each (*len used of *cap, grown as needed). */
static inline void rows_append(sqlite3_stmt *s, char **out, size_t *len, size_t *cap)
{
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 0);
		size_t n = strlen(t);
		while (*len + n + 2 > *cap)
			assert_non_null(*out = realloc(*out, *cap *= 2));
		memcpy(*out + *len, t, n);
		(*out)[*len + n] = '\n';
		*len += n + 1;
		(*out)[*len] = '\0';
	}
}

/* Scan id of the database at path, loaded whole. */
static inline struct fab_snapshot *load_scan_at(const char *path, int64_t id)
{
	struct fab_store *st;
	struct fab_snapshot *s = NULL;

	assert_int_equal(fab_store_open(path, FAB_STORE_READONLY, &st), 0);
	assert_int_equal(fab_store_load_scan(st, id, &s), 0);
	fab_store_close(st);
	return s;
}

static inline bool seq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

#define SAME_STR(a, b)                                                                      \
	do {                                                                                \
		if (!seq((a), (b)))                                                         \
			fail_msg("%s: '%s' != '%s'", #a, (a) ? (a) : "(null)", (b) ? (b) : "(null)"); \
	} while (0)

static inline void same_tlvs(const struct fab_roce *x, uint32_t xf, uint32_t xn, const struct fab_roce *y,
		      uint32_t yf, uint32_t yn)
{
	assert_int_equal(xn, yn);
	for (uint32_t k = 0; k < xn; k++) {
		const struct fab_lldp_tlv *a = &x->tlvs[xf + k], *b = &y->tlvs[yf + k];
		assert_int_equal(a->oui, b->oui);
		assert_int_equal(a->subtype, b->subtype);
		assert_int_equal(a->len, b->len);
		assert_memory_equal(a->info, b->info, a->len);
	}
}

static inline void same_dcbx(const struct fab_roce *x, const struct fab_dcbx *a, const struct fab_roce *y,
		      const struct fab_dcbx *b)
{
	assert_memory_equal(&a->pfc, &b->pfc, sizeof(a->pfc));
	assert_memory_equal(&a->ets, &b->ets, sizeof(a->ets));
	assert_memory_equal(&a->ets_reco, &b->ets_reco, sizeof(a->ets_reco));
	assert_int_equal(a->app_valid, b->app_valid);
	assert_int_equal(a->app_count, b->app_count);
	assert_int_equal(a->bad_tlvs, b->bad_tlvs);
	if (a->app_count)
		assert_memory_equal(&x->apps[a->app_first], &y->apps[b->app_first],
				    a->app_count * sizeof(struct fab_app_entry));
}

/* Two doubles the same, NAN as NAN. */
static inline void same_real(double a, double b)
{
	if (!(a == b || (isnan(a) && isnan(b))))
		fail_msg("%.17g != %.17g", a, b);
}

/* The physical layer of two models: each port's NIC counters in order
 * (their ports made contiguous by then), the modules with their lanes. */
static inline void same_phys(const struct fab_roce *x, const struct fab_roce *y)
{
	assert_int_equal(x->n_nic_counters, y->n_nic_counters);
	for (size_t i = 0; i < x->n_eth_ports; i++) {
		const struct fab_eth_port *a = &x->eth_ports[i], *b = &y->eth_ports[i];
		assert_int_equal(a->nic_count, b->nic_count);
		for (uint32_t k = 0; k < a->nic_count; k++) {
			const struct fab_nic_counter *c = &x->nic_counters[a->nic_first + k];
			const struct fab_nic_counter *d = &y->nic_counters[b->nic_first + k];
			assert_int_equal(c->port_idx, i);
			assert_int_equal(d->port_idx, i);
			assert_int_equal(c->ctr, d->ctr);
			assert_int_equal(c->prio, d->prio);
			assert_int_equal(c->sample, d->sample);
			assert_int_equal(c->value, d->value);
			assert_int_equal(c->at_ms, d->at_ms);
			SAME_STR(c->source, d->source);
		}
	}
	assert_int_equal(x->modules.n, y->modules.n);
	for (size_t i = 0; i < x->modules.n; i++) {
		const struct fab_module *a = &x->modules.mods[i], *b = &y->modules.mods[i];
		assert_int_equal(a->port_idx, b->port_idx);
		assert_int_equal(a->spec, b->spec);
		assert_int_equal(a->refused, b->refused);
		assert_int_equal(a->monitors, b->monitors);
		assert_int_equal(a->flags_valid, b->flags_valid);
		assert_int_equal(a->identifier, b->identifier);
		assert_int_equal(a->media_lanes, b->media_lanes);
		assert_int_equal(a->n_lanes, b->n_lanes);
		SAME_STR(a->type, b->type);
		SAME_STR(a->vendor, b->vendor);
		SAME_STR(a->part_number, b->part_number);
		SAME_STR(a->serial, b->serial);
		SAME_STR(a->revision, b->revision);
		SAME_STR(a->date_code, b->date_code);
		SAME_STR(a->media, b->media);
		SAME_STR(a->note, b->note);
		same_real(a->length_m, b->length_m);
		same_real(a->temperature_c, b->temperature_c);
		same_real(a->voltage_v, b->voltage_v);
		for (unsigned k = 0; k < FAB_MON__COUNT; k++) {
			same_real(a->lim[k].hi_alarm, b->lim[k].hi_alarm);
			same_real(a->lim[k].lo_alarm, b->lim[k].lo_alarm);
			same_real(a->lim[k].hi_warn, b->lim[k].hi_warn);
			same_real(a->lim[k].lo_warn, b->lim[k].lo_warn);
		}
		if (a->flags_valid)
			assert_int_equal(a->flags, b->flags);
		const struct fab_module_lane *la = fab_module_lanes(&x->modules, a);
		const struct fab_module_lane *lb = fab_module_lanes(&y->modules, b);
		for (unsigned k = 0; la && lb && k < a->n_lanes; k++) {
			assert_int_equal(la[k].lane, lb[k].lane);
			same_real(la[k].rx_mw, lb[k].rx_mw);
			same_real(la[k].tx_mw, lb[k].tx_mw);
			same_real(la[k].bias_ma, lb[k].bias_ma);
			if (a->flags_valid)
				assert_int_equal(la[k].flags, lb[k].flags);
		}
	}
}

/* Every element of two models, strings by content. */
static inline void same_model(const struct fab_roce *x, const struct fab_roce *y)
{
	assert_int_equal(x->n_systems, y->n_systems);
	assert_int_equal(x->n_eth_ports, y->n_eth_ports);
	assert_int_equal(x->n_neighbors, y->n_neighbors);
	assert_int_equal(x->n_links, y->n_links);
	assert_int_equal(x->n_devices, y->n_devices);
	assert_int_equal(x->n_rdma_ports, y->n_rdma_ports);
	assert_int_equal(x->n_counters, y->n_counters);
	assert_int_equal(x->n_inputs, y->n_inputs);
	for (size_t i = 0; i < x->n_systems; i++) {
		const struct fab_roce_system *a = &x->systems[i], *b = &y->systems[i];
		SAME_STR(a->name, b->name);
		SAME_STR(a->chassis_id, b->chassis_id);
		SAME_STR(a->chassis_id_subtype, b->chassis_id_subtype);
		SAME_STR(a->description, b->description);
		SAME_STR(a->mgmt_address, b->mgmt_address);
		SAME_STR(a->hostname, b->hostname);
		SAME_STR(a->source, b->source);
		assert_int_equal(a->collected_at_ms, b->collected_at_ms);
		assert_int_equal(a->cap_available, b->cap_available);
		assert_int_equal(a->cap_enabled, b->cap_enabled);
		assert_int_equal(a->has_caps, b->has_caps);
		assert_int_equal(a->collected, b->collected);
		assert_int_equal(a->lldp, b->lldp);
		assert_int_equal(a->role, b->role);
	}
	for (size_t i = 0; i < x->n_eth_ports; i++) {
		const struct fab_eth_port *a = &x->eth_ports[i], *b = &y->eth_ports[i];
		assert_int_equal(a->system_idx, b->system_idx);
		assert_int_equal(a->flags, b->flags);
		SAME_STR(a->ifname, b->ifname);
		SAME_STR(a->mac, b->mac);
		assert_int_equal(a->mtu, b->mtu);
		assert_int_equal(a->speed_mbps, b->speed_mbps);
		SAME_STR(a->state, b->state);
		SAME_STR(a->port_id, b->port_id);
		SAME_STR(a->port_id_subtype, b->port_id_subtype);
		SAME_STR(a->port_descr, b->port_descr);
		same_dcbx(x, &a->adv, y, &b->adv);
		same_tlvs(x, a->tlv_first, a->tlv_count, y, b->tlv_first, b->tlv_count);
		assert_int_equal(a->dcb_status, b->dcb_status);
		assert_int_equal(a->dcbx_mode, b->dcbx_mode);
		if (a->dcb_status == FAB_DCB_OK)
			same_dcbx(x, &a->dcb, y, &b->dcb);
		assert_int_equal(a->rdma_port_idx, b->rdma_port_idx);
		assert_memory_equal(&a->ecn, &b->ecn, sizeof(a->ecn));
	}
	for (size_t i = 0; i < x->n_neighbors; i++) {
		const struct fab_lldp_neighbor *a = &x->neighbors[i], *b = &y->neighbors[i];
		assert_int_equal(a->port_idx, b->port_idx);
		SAME_STR(a->chassis_id, b->chassis_id);
		SAME_STR(a->chassis_id_subtype, b->chassis_id_subtype);
		SAME_STR(a->system_name, b->system_name);
		SAME_STR(a->system_descr, b->system_descr);
		SAME_STR(a->mgmt_address, b->mgmt_address);
		SAME_STR(a->port_id, b->port_id);
		SAME_STR(a->port_id_subtype, b->port_id_subtype);
		SAME_STR(a->port_descr, b->port_descr);
		assert_int_equal(a->ttl, b->ttl);
		assert_int_equal(a->cap_enabled, b->cap_enabled);
		same_dcbx(x, &a->dcbx, y, &b->dcbx);
		same_tlvs(x, a->tlv_first, a->tlv_count, y, b->tlv_first, b->tlv_count);
		assert_int_equal(a->remote_system_idx, b->remote_system_idx);
		assert_int_equal(a->remote_port_idx, b->remote_port_idx);
	}
	assert_memory_equal(x->links, y->links, x->n_links * sizeof(*x->links));
	for (size_t i = 0; i < x->n_devices; i++) {
		const struct fab_rdma_device *a = &x->devices[i], *b = &y->devices[i];
		assert_int_equal(a->system_idx, b->system_idx);
		SAME_STR(a->name, b->name);
		assert_int_equal(a->node_guid, b->node_guid);
		assert_int_equal(a->sys_image_guid, b->sys_image_guid);
		SAME_STR(a->node_desc, b->node_desc);
		SAME_STR(a->fw_ver, b->fw_ver);
		SAME_STR(a->hca_type, b->hca_type);
		SAME_STR(a->board_id, b->board_id);
		SAME_STR(a->pci_address, b->pci_address);
		assert_int_equal(a->pcie_width, b->pcie_width);
		assert_true(a->pcie_speed_gts == b->pcie_speed_gts);
		assert_int_equal(a->port_first, b->port_first);
		assert_int_equal(a->port_count, b->port_count);
	}
	for (size_t i = 0; i < x->n_rdma_ports; i++) {
		const struct fab_rdma_port *a = &x->rdma_ports[i], *b = &y->rdma_ports[i];
		assert_int_equal(a->device_idx, b->device_idx);
		assert_int_equal(a->port_num, b->port_num);
		assert_int_equal(a->state, b->state);
		SAME_STR(a->rate, b->rate);
		SAME_STR(a->netdev, b->netdev);
		assert_int_equal(a->eth_port_idx, b->eth_port_idx);
		assert_int_equal(a->ctr_count, b->ctr_count);
		for (uint32_t k = 0; k < a->ctr_count; k++) {
			const struct fab_rdma_counter *c = &x->counters[a->ctr_first + k];
			const struct fab_rdma_counter *d = &y->counters[b->ctr_first + k];
			SAME_STR(c->name, d->name);
			assert_int_equal(fab_rdma_counter_kind(c), fab_rdma_counter_kind(d));
			assert_int_equal(c->value, d->value);
		}
	}
	for (size_t i = 0; i < x->n_inputs; i++) {
		SAME_STR(x->inputs[i].file, y->inputs[i].file);
		assert_int_equal(x->inputs[i].mtime_ns, y->inputs[i].mtime_ns);
		assert_int_equal(x->inputs[i].status, y->inputs[i].status);
	}
	same_phys(x, y);
}

