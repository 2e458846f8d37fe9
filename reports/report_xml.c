// SPDX-License-Identifier: MIT
/* The XML report: docs/fabsweep-report.xsd describes what this writes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/diff.h"
#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "model.h"
#include "xmlw.h"

#define FAB_REPORT_NS "urn:fabsweep:report:1"

/* Width and speed masks as text, formatted once per render. */
struct mask_cache {
	char widths[32][40];
	char speeds[1u << FAB_SPEED__BITS][72];
	uint8_t have_w[32], have_s[1u << FAB_SPEED__BITS];
};

struct xr {
	struct fab_xw x;
	struct mask_cache *mc;
	const struct fab_snapshot *s, *base;
	const struct fab_report_opts *o;
	const struct fab_report_model *m;
	const struct fab_report_diff *d;
	const struct fab_report_ctx *c;
};

static const char *sev_name(unsigned sev)
{
	const char *n = fab_severity_name(sev < FAB_SEV__COUNT ? sev : FAB_SEV_ERROR);
	return n ? n : "error";
}

static void attr_mark(struct fab_xw *x, uint8_t mark)
{
	if (mark != FAB_MARK_NONE)
		fab_xw_attr_lit(x, "worst-severity", sev_name(mark - 1u));
}

static void attr_widths(struct xr *r, const char *name, unsigned mask)
{
	struct mask_cache *c = r->mc;

	if (!mask || mask >= 32)
		return;
	if (!c->have_w[mask]) {
		fab_widths_format(mask, c->widths[mask], sizeof(c->widths[mask]));
		c->have_w[mask] = 1;
	}
	fab_xw_attr_lit(&r->x, name, c->widths[mask]);
}

static void attr_speeds(struct xr *r, const char *name, unsigned mask)
{
	struct mask_cache *c = r->mc;

	if (!mask || mask >= (1u << FAB_SPEED__BITS))
		return;
	if (!c->have_s[mask]) {
		fab_speeds_format(mask, c->speeds[mask], sizeof(c->speeds[mask]));
		c->have_s[mask] = 1;
	}
	fab_xw_attr_lit(&r->x, name, c->speeds[mask]);
}

static void attr_flag(struct fab_xw *x, const char *name, bool on)
{
	if (on)
		fab_xw_attr_lit(x, name, "true");
}

static void scan_attrs(struct fab_xw *x, const struct fab_snapshot *s)
{
	fab_xw_attr_i64(x, "id", s->scan_id);
	fab_xw_attr_time(x, "started-at", s->started_at_ms);
	if (s->finished_at_ms)
		fab_xw_attr_time(x, "finished-at", s->finished_at_ms);
	fab_xw_attr_lit(x, "status", fab_scan_status_name(s->status));
	fab_xw_attr(x, "host", s->host);
	fab_xw_attr(x, "source", s->source);
	fab_xw_attr(x, "label", s->label);
	fab_xw_attr_u64(x, "sm-act-start", s->sm_act_start);
	fab_xw_attr_u64(x, "sm-act-end", s->sm_act_end);
	if (s->checked_at_ms)
		fab_xw_attr_time(x, "checked-at", s->checked_at_ms);
}

static void write_summary(struct xr *r)
{
	static const unsigned sev_order[] = { FAB_SEV_ERROR, FAB_SEV_WARNING, FAB_SEV_INFO };
	struct fab_xw *x = &r->x;
	const struct fab_report_model *m = r->m;

	fab_xw_start(x, "summary");
	fab_xw_attr_lit(x, "verdict", fab_report_verdict_name(m->verdict));
	fab_xw_attr_u64(x, "nodes", r->s->n_nodes);
	fab_xw_attr_u64(x, "switches", m->n_switches);
	fab_xw_attr_u64(x, "hosts", m->n_tier[FAB_ROLE_HOST]);
	fab_xw_attr_u64(x, "ports", m->n_ext_ports);
	fab_xw_attr_u64(x, "active-ports", m->n_active_ports);
	fab_xw_attr_u64(x, "links", r->s->n_links);
	fab_xw_attr_u64(x, "subnet-managers", r->s->n_sms);
	fab_xw_attr_u64(x, "findings", r->s->n_findings);
	fab_xw_attr_u64(x, "scan-errors", r->s->n_errors);
	for (size_t i = 0; i < 3; i++) {
		fab_xw_start(x, "severity");
		fab_xw_attr_lit(x, "name", sev_name(sev_order[i]));
		fab_xw_attr_u64(x, "count", m->sev[sev_order[i]]);
		fab_xw_end(x);
	}
	for (size_t i = 0; i < m->n_rules; i++) {
		const struct fab_report_rule *ru = &m->rules[i];
		fab_xw_start(x, "rule");
		fab_xw_attr(x, "id", ru->id);
		fab_xw_attr_lit(x, "worst", sev_name(ru->worst));
		fab_xw_attr_u64(x, "total", ru->total);
		fab_xw_attr_u64(x, "error", ru->n[FAB_SEV_ERROR]);
		fab_xw_attr_u64(x, "warning", ru->n[FAB_SEV_WARNING]);
		fab_xw_attr_u64(x, "info", ru->n[FAB_SEV_INFO]);
		fab_xw_end(x);
	}
	fab_xw_end(x);
}

static void finding_attrs(struct fab_xw *x, const struct fab_finding *f)
{
	fab_xw_attr(x, "rule", f->rule_id ? f->rule_id : "");
	fab_xw_attr_lit(x, "severity", sev_name(f->severity));
	fab_xw_attr(x, "node", f->node);
	fab_xw_attr(x, "port", f->port);
	fab_xw_attr(x, "peer-node", f->peer_node);
	fab_xw_attr(x, "peer-port", f->peer_port);
}

static void write_finding(struct fab_xw *x, const struct fab_finding *f, const char *elem)
{
	fab_xw_start(x, elem);
	finding_attrs(x, f);
	fab_xw_elem_text(x, "subject", f->subject ? f->subject : "");
	fab_xw_elem_text(x, "message", f->message ? f->message : "");
	fab_xw_elem_text(x, "evidence", f->evidence);
	fab_xw_end(x);
}

static void write_findings(struct xr *r)
{
	fab_xw_start(&r->x, "findings");
	fab_xw_attr_u64(&r->x, "count", r->s->n_findings);
	for (size_t i = 0; i < r->s->n_findings; i++)
		write_finding(&r->x, &r->s->findings[r->m->order[i]], "finding");
	fab_xw_end(&r->x);
}

static void port_attrs(struct xr *r, const struct fab_port *p)
{
	struct fab_xw *x = &r->x;
	const struct fab_snapshot *s = r->s;
	const char *st = fab_state_name(p->state), *ph = fab_phys_state_name(p->phys_state);

	fab_xw_attr_u64(x, "num", p->port_num);
	fab_xw_attr_guid(x, "guid", p->guid);
	fab_xw_attr_u64(x, "lid", p->lid);
	fab_xw_attr_lit(x, "state", st ? st : "unknown");
	fab_xw_attr_lit(x, "phys-state", ph ? ph : "unknown");
	attr_widths(r, "width", p->width_active);
	attr_speeds(r, "speed", p->speed_active);
	if (p->width_active && p->speed_active)
		fab_xw_attr_double(x, "rate-gbps", fab_rate_gbps(fab_width_best(p->width_active),
								 fab_speed_best(p->speed_active)));
	attr_widths(r, "width-enabled", p->width_enabled);
	attr_widths(r, "width-supported", p->width_supported);
	attr_speeds(r, "speed-enabled", p->speed_enabled);
	attr_speeds(r, "speed-supported", p->speed_supported);
	if (fab_mtu_bytes(p->mtu_active))
		fab_xw_attr_u64(x, "mtu", fab_mtu_bytes(p->mtu_active));
	if (fab_mtu_bytes(p->mtu_cap))
		fab_xw_attr_u64(x, "mtu-cap", fab_mtu_bytes(p->mtu_cap));
	if (p->remote_idx < s->n_ports) {
		const struct fab_port *q = &s->ports[p->remote_idx];
		fab_xw_attr_guid(x, "peer-guid", s->nodes[q->node_idx].guid);
		fab_xw_attr_u64(x, "peer-port", q->port_num);
	} else if (p->remote_guid) {
		fab_xw_attr_guid(x, "peer-guid", p->remote_guid);
		fab_xw_attr_u64(x, "peer-port", p->remote_port);
	}
	attr_flag(x, "smp-failed", p->flags & FAB_F_SMP_FAILED);
	attr_flag(x, "pma-failed", p->flags & FAB_F_PMA_FAILED);
	attr_flag(x, "no-remote", p->flags & FAB_F_NO_REMOTE);
}

static void write_nodes(struct xr *r)
{
	char nb[FAB_NODE_NAME_CAP];
	struct fab_xw *x = &r->x;
	const struct fab_snapshot *s = r->s;

	fab_xw_start(x, "nodes");
	fab_xw_attr_u64(x, "count", s->n_nodes);
	for (size_t i = 0; i < s->n_nodes && !x->err; i++) {
		const struct fab_node *n = &s->nodes[i];
		fab_xw_start(x, "node");
		fab_xw_attr_guid(x, "guid", n->guid);
		fab_xw_attr_lit(x, "type", fab_node_type_name(n->type));
		fab_xw_attr_lit(x, "role", fab_role_name(n->role));
		fab_xw_attr_lit(x, "tier", fab_role_name(r->m->tier[i]));
		fab_xw_attr(x, "description", n->desc);
		fab_xw_attr(x, "name", fab_node_name(s, (uint32_t)i, NULL, nb, sizeof(nb)));
		fab_xw_attr_u64(x, "lid", n->lid);
		fab_xw_attr_u64(x, "num-ports", n->num_ports);
		fab_xw_attr_guid(x, "sys-guid", n->sys_guid);
		fab_xw_attr_u64(x, "vendor-id", n->vendor_id);
		fab_xw_attr_u64(x, "device-id", n->device_id);
		fab_xw_attr_u64(x, "revision", n->revision);
		if (n->hops >= 0)
			fab_xw_attr_u64(x, "hops", (uint64_t)n->hops);
		if (r->m->leaf_of[i] != FAB_NONE)
			fab_xw_attr_guid(x, "leaf", s->nodes[r->m->leaf_of[i]].guid);
		attr_flag(x, "smp-failed", n->flags & FAB_F_SMP_FAILED);
		attr_flag(x, "pma-failed", n->flags & FAB_F_PMA_FAILED);
		attr_flag(x, "duplicate-guid", n->flags & FAB_F_DUP_GUID);
		attr_mark(x, r->m->node_mark[i]);
		for (uint32_t k = 0; k < n->port_count; k++) {
			const struct fab_port *p = &s->ports[n->port_first + k];
			fab_xw_start(x, "port");
			port_attrs(r, p);
			attr_mark(x, r->m->port_mark[n->port_first + k]);
			fab_xw_end(x);
		}
		fab_xw_end(x);
	}
	fab_xw_end(x);
}

static void link_ends(struct fab_xw *x, const struct fab_snapshot *s, const struct fab_link *l)
{
	const struct fab_port *a = &s->ports[l->a], *b = &s->ports[l->b];

	fab_xw_attr_guid(x, "a-guid", s->nodes[a->node_idx].guid);
	fab_xw_attr_u64(x, "a-port", a->port_num);
	fab_xw_attr_guid(x, "b-guid", s->nodes[b->node_idx].guid);
	fab_xw_attr_u64(x, "b-port", b->port_num);
}

static void write_links(struct xr *r)
{
	struct fab_xw *x = &r->x;
	const struct fab_snapshot *s = r->s;

	fab_xw_start(x, "links");
	fab_xw_attr_u64(x, "count", s->n_links);
	for (size_t i = 0; i < s->n_links && !x->err; i++) {
		const struct fab_link *l = &s->links[i];
		const struct fab_port *a = &s->ports[l->a];
		uint8_t mk = r->m->port_mark[l->a] > r->m->port_mark[l->b] ? r->m->port_mark[l->a] :
									     r->m->port_mark[l->b];
		fab_xw_start(x, "link");
		link_ends(x, s, l);
		attr_widths(r, "width", a->width_active);
		attr_speeds(r, "speed", a->speed_active);
		if (a->width_active && a->speed_active)
			fab_xw_attr_double(x, "rate-gbps", fab_rate_gbps(fab_width_best(a->width_active),
									 fab_speed_best(a->speed_active)));
		attr_mark(x, mk);
		fab_xw_end(x);
	}
	fab_xw_end(x);
}

/* The Ethernet part (merged RoCE snapshots, scan --lldp-socket): every
 * system, link, RDMA device and RoCE NIC port (congestion control); PFC as the eth_ports view has it (the NIC's
 * when DCB answered, else as advertised over LLDP). */
static void eth_end_attrs(struct fab_xw *x, const struct fab_roce *ro, const char *end,
			  const struct fab_eth_port *p)
{
	char name[32];
	const struct fab_pfc *pfc = fab_eth_port_pfc(p);

	snprintf(name, sizeof(name), "%s-system", end);
	fab_xw_attr(x, name, ro->systems[p->system_idx].name);
	snprintf(name, sizeof(name), "%s-ifname", end);
	fab_xw_attr(x, name, p->ifname);
	if (p->speed_mbps > 0) {
		snprintf(name, sizeof(name), "%s-speed-mbps", end);
		fab_xw_attr_i64(x, name, p->speed_mbps);
	}
	if (p->mtu) {
		snprintf(name, sizeof(name), "%s-mtu", end);
		fab_xw_attr_u64(x, name, p->mtu);
	}
	if (pfc->valid) {
		snprintf(name, sizeof(name), "%s-pfc-enabled", end);
		fab_xw_attr_u64(x, name, pfc->enabled);
	}
}

/* A RoCE NIC port's congestion control: what is unknown is left out. */
static void roce_port(struct fab_xw *x, const struct fab_roce *ro, uint32_t i, uint8_t mark)
{
	const struct fab_eth_port *p = &ro->eth_ports[i];
	const struct fab_ecn *e = &p->ecn;
	const char *trust = fab_trust_name(fab_eth_port_trust(ro, p));

	fab_xw_start(x, "roce-port");
	fab_xw_attr(x, "system", ro->systems[p->system_idx].name);
	fab_xw_attr(x, "ifname", p->ifname);
	if (p->rdma_port_idx < ro->n_rdma_ports) {
		const struct fab_rdma_port *q = &ro->rdma_ports[p->rdma_port_idx];
		fab_xw_attr(x, "rdma-device", ro->devices[q->device_idx].name);
		fab_xw_attr_u64(x, "rdma-port", q->port_num);
	}
	if (trust)
		fab_xw_attr_lit(x, "trust", trust);
	if (e->known & FAB_ECN_NP)
		fab_xw_attr_u64(x, "ecn-np-enabled", e->np_enabled);
	if (e->known & FAB_ECN_RP)
		fab_xw_attr_u64(x, "ecn-rp-enabled", e->rp_enabled);
	if (e->known & FAB_ECN_CNP_DSCP)
		fab_xw_attr_u64(x, "cnp-dscp", e->cnp_dscp);
	if (e->known & FAB_ECN_CNP_PRIO)
		fab_xw_attr_u64(x, "cnp-priority", e->cnp_prio);
	attr_mark(x, mark);
	fab_xw_end(x);
}

static void write_ethernet(struct xr *r)
{
	struct fab_xw *x = &r->x;
	const struct fab_roce *ro = r->s->roce;

	if (!ro || !ro->n_systems)
		return;
	fab_xw_start(x, "ethernet");
	fab_xw_attr_u64(x, "systems", ro->n_systems);
	fab_xw_attr_u64(x, "ports", ro->n_eth_ports);
	fab_xw_attr_u64(x, "links", ro->n_links);
	fab_xw_attr_u64(x, "rdma-devices", ro->n_devices);
	for (size_t i = 0; i < ro->n_systems && !x->err; i++) {
		const struct fab_roce_system *sy = &ro->systems[i];
		fab_xw_start(x, "system");
		fab_xw_attr(x, "name", sy->name);
		fab_xw_attr_lit(x, "role", fab_role_name(sy->role));
		attr_flag(x, "collected", sy->collected);
		attr_flag(x, "lldp", sy->lldp);
		fab_xw_attr(x, "chassis-id", sy->chassis_id);
		fab_xw_attr(x, "mgmt-address", sy->mgmt_address);
		fab_xw_end(x);
	}
	for (size_t i = 0; i < ro->n_links && !x->err; i++) {
		const struct fab_eth_link *l = &ro->links[i];
		uint8_t ma = r->m->eth_mark[l->a], mb = r->m->eth_mark[l->b];
		fab_xw_start(x, "link");
		eth_end_attrs(x, ro, "a", &ro->eth_ports[l->a]);
		eth_end_attrs(x, ro, "b", &ro->eth_ports[l->b]);
		attr_flag(x, "a-heard-b", l->heard & FAB_LINK_A_HEARD_B);
		attr_flag(x, "b-heard-a", l->heard & FAB_LINK_B_HEARD_A);
		attr_mark(x, ma > mb ? ma : mb);
		fab_xw_end(x);
	}
	for (size_t i = 0; i < ro->n_devices && !x->err; i++) {
		const struct fab_rdma_device *d = &ro->devices[i];
		fab_xw_start(x, "rdma-device");
		fab_xw_attr(x, "system", ro->systems[d->system_idx].name);
		fab_xw_attr(x, "name", d->name);
		fab_xw_attr(x, "type", d->hca_type);
		fab_xw_attr(x, "board-id", d->board_id);
		fab_xw_attr(x, "fw-ver", d->fw_ver);
		if (d->node_guid)
			fab_xw_attr_guid(x, "node-guid", d->node_guid);
		if (d->pcie_width)
			fab_xw_attr_u64(x, "pcie-width", d->pcie_width);
		if (d->pcie_max_width)
			fab_xw_attr_u64(x, "pcie-max-width", d->pcie_max_width);
		if (d->pcie_speed_gts > 0)
			fab_xw_attr_double(x, "pcie-speed-gts", d->pcie_speed_gts);
		if (d->pcie_max_speed_gts > 0)
			fab_xw_attr_double(x, "pcie-max-speed-gts", d->pcie_max_speed_gts);
		fab_xw_end(x);
	}
	for (size_t k = 0; k < r->m->n_roce_cc && !x->err; k++)
		roce_port(x, ro, r->m->roce_cc[k], r->m->eth_mark[r->m->roce_cc[k]]);
	fab_xw_end(x);
}

static void write_sms(struct xr *r)
{
	char nb[FAB_NODE_NAME_CAP];
	struct fab_xw *x = &r->x;
	const struct fab_snapshot *s = r->s;

	fab_xw_start(x, "subnet-managers");
	fab_xw_attr_u64(x, "count", s->n_sms);
	for (size_t i = 0; i < s->n_sms; i++) {
		const struct fab_sm *sm = &s->sms[i];
		const char *st = fab_sm_state_name(sm->state);
		fab_xw_start(x, "sm");
		fab_xw_attr_guid(x, "port-guid", sm->port_guid);
		fab_xw_attr_u64(x, "lid", sm->lid);
		fab_xw_attr_lit(x, "state", st ? st : "unknown");
		fab_xw_attr_u64(x, "priority", sm->priority);
		fab_xw_attr_u64(x, "act-count", sm->act_count);
		if (sm->port_idx < s->n_ports) {
			const struct fab_port *p = &s->ports[sm->port_idx];
			fab_xw_attr_guid(x, "node-guid", s->nodes[p->node_idx].guid);
			fab_xw_attr_u64(x, "port", p->port_num);
			fab_xw_attr(x, "node-description", s->nodes[p->node_idx].desc);
			fab_xw_attr(x, "node-name", fab_node_name(s, p->node_idx, NULL, nb, sizeof(nb)));
		}
		attr_flag(x, "failed", sm->failed);
		fab_xw_end(x);
	}
	fab_xw_end(x);
}

static void write_scan_errors(struct xr *r)
{
	struct fab_xw *x = &r->x;
	const struct fab_snapshot *s = r->s;

	fab_xw_start(x, "scan-errors");
	fab_xw_attr_u64(x, "count", s->n_errors);
	for (size_t i = 0; i < s->n_errors; i++) {
		const struct fab_scan_error *e = &s->errors[i];
		fab_xw_start(x, "scan-error");
		if (e->node_guid)
			fab_xw_attr_guid(x, "node-guid", e->node_guid);
		if (e->port_num >= 0)
			fab_xw_attr_u64(x, "port", (uint64_t)e->port_num);
		fab_xw_attr(x, "what", e->what ? e->what : "");
		fab_xw_text(x, e->message ? e->message : "");
		fab_xw_end(x);
	}
	fab_xw_end(x);
}

static void write_sample(struct fab_xw *x, const struct fab_snapshot *s,
			 const struct fab_counter_sample *c)
{
	const struct fab_port *p = &s->ports[c->port_idx];

	fab_xw_start(x, "port-counters");
	fab_xw_attr_guid(x, "node-guid", s->nodes[p->node_idx].guid);
	fab_xw_attr_u64(x, "port", p->port_num);
	fab_xw_attr_u64(x, "sample", c->sample);
	fab_xw_attr_lit(x, "extended", c->extended ? "true" : "false");
	fab_xw_attr_time(x, "sampled-at", c->sampled_at_ms);
	for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
		if (c->valid & (1u << k))
			fab_xw_attr_u64(x, fab_counter_name(k), c->v[k]);
	if (c->unsupported) {
		char list[96];
		size_t off = 0;

		for (unsigned b = 0; b < FAB_PMA__BITS; b++)
			if (c->unsupported >> b & 1)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
							off ? " " : "", fab_pma_attr_name(1u << b));
		fab_xw_attr(x, "unsupported", list);
	}
	for (unsigned v = 0; v < FAB_N_VLS; v++)
		if (c->vl_valid >> v & 1) {
			fab_xw_start(x, "vl-xmit-wait");
			fab_xw_attr_u64(x, "vl", v);
			fab_xw_attr_u64(x, "value", c->vl_xmit_wait[v]);
			fab_xw_end(x);
		}
	fab_xw_end(x);
}

static void write_counters(struct xr *r)
{
	struct fab_xw *x = &r->x;
	const struct fab_snapshot *s = r->s;

	fab_xw_start(x, "counters");
	fab_xw_attr_lit(x, "scope", r->o->all_counters ? "all" : "ports-with-findings");
	for (size_t i = 0; i < s->n_ports && !x->err; i++) {
		if (!r->o->all_counters && r->m->port_mark[i] == FAB_MARK_NONE)
			continue;
		for (unsigned k = 0; k < 2; k++) {
			const struct fab_counter_sample *c = fab_snapshot_sample(s, (uint32_t)i, k);
			if (c)
				write_sample(x, s, c);
		}
	}
	fab_xw_end(x);
}

void fab_report_xml_eth_end(struct fab_xw *x, const struct fab_change_end *e)
{
	if (!e->system)
		return;
	fab_xw_start(x, "eth-port");
	fab_xw_attr(x, "system", e->system);
	fab_xw_attr(x, "ifname", e->ifname ? e->ifname : "");
	fab_xw_end(x);
}

static void change_end(struct fab_xw *x, const char *elem, const struct fab_change_end *e)
{
	char nb[FAB_NODE_NAME_CAP];

	fab_xw_start(x, elem);
	fab_xw_attr_guid(x, "guid", e->guid);
	fab_xw_attr_u64(x, "port", e->port);
	fab_xw_attr_lit(x, "type", fab_node_type_name(e->type));
	fab_xw_attr(x, "description", e->desc ? e->desc : "");
	fab_xw_attr(x, "name", fab_name_format(NULL, e->guid, e->desc, e->name_hex, nb, sizeof(nb)));
	fab_xw_end(x);
}

static void write_changes(struct xr *r)
{
	struct fab_xw *x = &r->x;
	const struct fab_report_diff *d = r->d;
	const struct fab_diff *fd = d->fabric;
	char was[FAB_DESC_CAP + 64], now[FAB_DESC_CAP + 64], buf[96];

	fab_xw_start(x, "changes");
	fab_xw_attr_i64(x, "baseline", r->base->scan_id);
	fab_xw_attr_u64(x, "fabric", fd->n);
	fab_xw_attr_u64(x, "findings-new", d->n_findings_new);
	fab_xw_attr_u64(x, "findings-resolved", d->n_findings_resolved);
	for (size_t i = 0; i < fd->n && !x->err; i++) {
		const struct fab_change *c = &fd->changes[i];
		fab_xw_start(x, "change");
		fab_xw_attr_lit(x, "kind", fab_change_kind_name(c->kind));
		fab_report_change_values(c, was, now, sizeof(was));
		if (*was || *now) {
			fab_xw_attr(x, "was", was);
			fab_xw_attr(x, "now", now);
		}
		if (c->kind == FAB_CHG_LINK_ADDED || c->kind == FAB_CHG_LINK_REMOVED) {
			attr_widths(r, "width", c->width);
			attr_speeds(r, "speed", c->speed);
		}
		if (c->sm_guid)
			fab_xw_attr_guid(x, "sm-guid", c->sm_guid);
		if (c->kind == FAB_CHG_COUNTER_INCREASE || c->kind == FAB_CHG_COUNTER_RESET) {
			snprintf(buf, sizeof(buf), "%s", fab_counter_name(c->counter));
			fab_xw_attr_lit(x, "counter", buf);
			/* the counter model's increase (core/counter.c), as diff writes it */
			fab_xw_attr_u64(x, "increase", c->increase);
			if (c->at_least)
				fab_xw_attr_lit(x, "at-least", "true");
			if (c->saturated)
				fab_xw_attr_lit(x, "saturated", "true");
		}
		if (c->subject.guid)
			change_end(x, "subject", &c->subject);
		if (c->peer.guid)
			change_end(x, "peer", &c->peer);
		fab_report_xml_eth_end(x, &c->subject);
		fab_xw_end(x);
	}
	for (size_t i = 0; i < d->n_findings_new; i++)
		write_finding(x, &r->s->findings[d->findings_new[i]], "finding-new");
	for (size_t i = 0; i < d->n_findings_resolved; i++)
		write_finding(x, &r->base->findings[d->findings_resolved[i]], "finding-resolved");
	fab_xw_end(x);
}

/* The routing section (reports/model_routing.c): scans with tables only. */
static void write_routing(struct xr *r)
{
	struct fab_xw *x = &r->x;
	const struct fab_report_routing *rt = &r->c->rt;

	if (!rt->present)
		return;
	fab_xw_start(x, "routing");
	fab_xw_attr_u64(x, "ends", rt->n_ends);
	fab_xw_attr_u64(x, "pairs", rt->pairs.n_pairs);
	if (rt->pairs.n_routes != rt->pairs.n_pairs) /* LMC > 0: a route per LID */
		fab_xw_attr_u64(x, "routes", rt->pairs.n_routes);
	fab_xw_attr_u64(x, "broken", rt->pairs.n_broken);
	fab_xw_attr_u64(x, "not-judged", rt->pairs.n_unknown);
	if (rt->compared)
		fab_xw_attr_u64(x, "tables-changed", rt->n_changed);
	for (unsigned k = 0; k <= FAB_ROUTE_MAX_HOPS; k++) {
		if (!rt->pairs.hops[k])
			continue;
		fab_xw_start(x, "hops");
		fab_xw_attr_u64(x, "links", k);
		fab_xw_attr_u64(x, "pairs", rt->pairs.hops[k]);
		fab_xw_end(x);
	}
	for (size_t i = 0; i < rt->n_rules; i++) {
		fab_xw_start(x, "rule-findings");
		fab_xw_attr(x, "rule", rt->rules[i].rule);
		fab_xw_attr_u64(x, "count", rt->rules[i].count);
		fab_xw_end(x);
	}
	fab_xw_end(x);
}

int fab_report_render_xml(const struct fab_report_ctx *c, FILE *f)
{
	struct xr r = { .s = c->snap, .base = c->base, .o = c->opts, .m = &c->m, .d = &c->d, .c = c };
	struct fab_xw *x = &r.x;
	int err;

	r.mc = calloc(1, sizeof(*r.mc));
	if (!r.mc)
		return -ENOMEM;
	if (fab_xw_open(x, f, " ")) {
		free(r.mc);
		return fab_xw_close(x);
	}
	fab_xw_start(x, "fabsweep-report");
	fab_xw_attr(x, "xmlns", FAB_REPORT_NS);
	fab_xw_attr(x, "format-version", "1");
	fab_xw_attr(x, "generator", c->generator);
	fab_xw_attr_time(x, "generated-at", c->generated_at_ms);
	fab_xw_start(x, "scan");
	scan_attrs(x, r.s);
	fab_xw_end(x);
	if (r.base) {
		fab_xw_start(x, "baseline");
		scan_attrs(x, r.base);
		fab_xw_end(x);
	}
	write_summary(&r);
	write_findings(&r);
	write_nodes(&r);
	write_links(&r);
	write_sms(&r);
	write_scan_errors(&r);
	write_counters(&r);
	write_ethernet(&r);
	if (r.base)
		write_changes(&r);
	write_routing(&r);
	fab_report_xml_phys(x, c);
	fab_xw_end(x);
	err = fab_xw_close(x);
	free(r.mc);
	return err;
}
