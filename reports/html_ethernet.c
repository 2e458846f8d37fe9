// SPDX-License-Identifier: MIT
/*
 * The HTML report's Ethernet section (snapshots with a RoCE part): the
 * Ethernet links with both ends' speed, MTU and PFC, the RDMA devices
 * with their PCIe links, and the RoCE NIC ports' congestion control
 * (trust, ECN, CNPs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "html.h"

#define MAX_ETH_ROWS 2000 /* Ethernet links and RDMA devices listed; the XML has them all */

/* PFC priorities a port runs: the NIC's (DCB) when it answered, else what
 * it advertises over LLDP; as in the eth_ports view. false: unknown. */
static bool eth_pfc(const struct fab_eth_port *p, uint8_t *bits)
{
	const struct fab_pfc *pfc = fab_eth_port_pfc(p);

	*bits = pfc->enabled;
	return pfc->valid;
}

static void eth_end(struct fab_hw *w, const struct fab_roce *ro, const struct fab_eth_port *p)
{
	fab_hw_text(w, ro->systems[p->system_idx].name);
	fab_hw_raw(w, "/");
	fab_hw_text(w, p->ifname);
}

static void eth_speed(struct fab_hw *w, int32_t mbps)
{
	if (mbps <= 0)
		fab_hw_raw(w, "?");
	else if (mbps % 1000 == 0)
		fab_hw_fmt(w, "%dG", mbps / 1000);
	else
		fab_hw_fmt(w, "%dM", mbps);
}

/* Priorities of a bitmap: "0,3", "none". */
static void eth_prios(struct fab_hw *w, uint8_t bits)
{
	bool first = true;

	for (unsigned i = 0; i < FAB_PRIOS; i++)
		if (bits & (1u << i)) {
			fab_hw_fmt(w, "%s%u", first ? "" : ",", i);
			first = false;
		}
	if (first)
		fab_hw_raw(w, "none");
}

static void eth_pfc_text(struct fab_hw *w, const struct fab_eth_port *p)
{
	uint8_t bits;

	if (eth_pfc(p, &bits))
		eth_prios(w, bits);
	else
		fab_hw_raw(w, "?");
}

/* "a / b", or one value when both ends agree. */
#define BOTH_ENDS(w, a, b, same, write)    \
	do {                               \
		write(w, a);               \
		if (!(same)) {             \
			fab_hw_raw(w, " / ");  \
			write(w, b);           \
		}                          \
	} while (0)

static void eth_links(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_roce *ro = r->s->roce;

	if (!ro->n_links) {
		fab_hw_raw(w, "<p class=\"muted\">No Ethernet link: no system heard a neighbour over LLDP.</p>\n");
		return;
	}
	fab_hw_raw(w, "<h3>Links</h3>\n<table class=\"sortable\"><thead><tr><th>End A</th><th>End B</th>"
		      "<th>Speed</th><th class=\"num\">MTU</th><th>PFC priorities</th><th>LLDP heard</th>"
		      "<th>Finding</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < ro->n_links && i < MAX_ETH_ROWS; i++) {
		const struct fab_eth_link *l = &ro->links[i];
		const struct fab_eth_port *a = &ro->eth_ports[l->a], *b = &ro->eth_ports[l->b];
		uint8_t pa = 0, pb = 0;
		bool ka = eth_pfc(a, &pa), kb = eth_pfc(b, &pb);
		uint8_t mk = r->m->eth_mark[l->a] > r->m->eth_mark[l->b] ? r->m->eth_mark[l->a]
									   : r->m->eth_mark[l->b];
		static const char *const heard[] = { "neither", "A hears B", "B hears A", "both ways" };

		fab_hw_raw(w, "<tr><td>");
		eth_end(w, ro, a);
		fab_hw_raw(w, "</td><td>");
		eth_end(w, ro, b);
		fab_hw_raw(w, "</td><td>");
		BOTH_ENDS(w, a->speed_mbps, b->speed_mbps, a->speed_mbps == b->speed_mbps, eth_speed);
		fab_hw_raw(w, "</td><td class=\"num\">");
		if (a->mtu == b->mtu)
			fab_hw_fmt(w, "%u", a->mtu);
		else
			fab_hw_fmt(w, "%u / %u", a->mtu, b->mtu);
		fab_hw_raw(w, "</td><td>");
		BOTH_ENDS(w, a, b, ka == kb && pa == pb, eth_pfc_text);
		fab_hw_fmt(w, "</td><td>%s</td><td data-v=\"%u\">", heard[l->heard & 3], mk);
		fab_html_mark_badge(w, mk);
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	if (ro->n_links > MAX_ETH_ROWS)
		fab_hw_fmt(w, "<p class=\"muted\">... and %zu more (the XML report has them all).</p>\n",
			   ro->n_links - MAX_ETH_ROWS);
}

static void eth_pcie(struct fab_hw *w, unsigned width, double gts)
{
	if (width)
		fab_hw_fmt(w, "x%u", width);
	if (gts > 0)
		fab_hw_fmt(w, "%s%g GT/s", width ? " " : "", gts);
	if (!width && gts <= 0)
		fab_hw_raw(w, "?");
}

static void eth_devices(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_roce *ro = r->s->roce;

	if (!ro->n_devices)
		return;
	fab_hw_raw(w, "<h3>RDMA devices</h3>\n<table class=\"sortable\"><thead><tr><th>System</th>"
		      "<th>Device</th><th>Type</th><th>Firmware</th><th>PCIe link</th><th>PCIe maximum</th>"
		      "<th>Ports</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < ro->n_devices && i < MAX_ETH_ROWS; i++) {
		const struct fab_rdma_device *d = &ro->devices[i];
		bool slow = (d->pcie_max_width && d->pcie_width < d->pcie_max_width) ||
			    (d->pcie_max_speed_gts > 0 && d->pcie_speed_gts < d->pcie_max_speed_gts);

		fab_hw_raw(w, "<tr><td>");
		fab_hw_text(w, ro->systems[d->system_idx].name);
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, d->name);
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, d->hca_type ? d->hca_type : d->board_id);
		fab_hw_raw(w, "</td><td class=\"mono\">");
		fab_hw_text(w, d->fw_ver);
		fab_hw_raw(w, slow ? "</td><td><b>" : "</td><td>");
		eth_pcie(w, d->pcie_width, d->pcie_speed_gts);
		fab_hw_raw(w, slow ? "</b></td><td>" : "</td><td>");
		eth_pcie(w, d->pcie_max_width, d->pcie_max_speed_gts);
		fab_hw_raw(w, "</td><td>");
		for (uint32_t k = 0; k < d->port_count && d->port_first + k < ro->n_rdma_ports; k++) {
			const struct fab_rdma_port *p = &ro->rdma_ports[d->port_first + k];
			const char *st = fab_state_name(p->state);
			fab_hw_fmt(w, "%s%u: %s", k ? "; " : "", p->port_num, st ? st : "?");
			if (p->rate) {
				fab_hw_raw(w, ", ");
				fab_hw_text(w, p->rate);
			}
			if (p->netdev) {
				fab_hw_raw(w, ", ");
				fab_hw_text(w, p->netdev);
			}
		}
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	if (ro->n_devices > MAX_ETH_ROWS)
		fab_hw_fmt(w, "<p class=\"muted\">... and %zu more.</p>\n", ro->n_devices - MAX_ETH_ROWS);
}

/* A bitmap or number the driver may not expose: "?" when unknown. */
static void eth_known_prios(struct fab_hw *w, bool known, uint8_t bits)
{
	if (known)
		eth_prios(w, bits);
	else
		fab_hw_raw(w, "?");
}

static void eth_known_num(struct fab_hw *w, bool known, unsigned v)
{
	if (known)
		fab_hw_fmt(w, "%u", v);
	else
		fab_hw_raw(w, "?");
}

/* Per RoCE NIC port: trust, ECN (notification and reaction point) and the
 * CNPs' DSCP and priority, as the driver exposes them; "?" unknown. */
static void eth_congestion(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_roce *ro = r->s->roce;
	const struct fab_report_model *m = r->m;

	if (!m->n_roce_cc)
		return;
	fab_hw_raw(w, "<h3>RoCE congestion control</h3>\n<table class=\"sortable\"><thead><tr>"
		      "<th>System</th><th>Interface</th><th>RDMA port</th><th>Trust</th>"
		      "<th>ECN notification point (priorities)</th><th>ECN reaction point, DCQCN (priorities)</th>"
		      "<th class=\"num\">CNP DSCP</th><th class=\"num\">CNP priority</th>"
		      "<th>Finding</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < m->n_roce_cc && k < MAX_ETH_ROWS; k++) {
		uint32_t i = m->roce_cc[k];
		const struct fab_eth_port *p = &ro->eth_ports[i];
		const struct fab_ecn *e = &p->ecn;
		const char *trust = fab_trust_name(fab_eth_port_trust(ro, p));

		fab_hw_raw(w, "<tr><td>");
		fab_hw_text(w, ro->systems[p->system_idx].name);
		fab_hw_raw(w, "</td><td>");
		fab_hw_text(w, p->ifname);
		fab_hw_raw(w, "</td><td>");
		if (p->rdma_port_idx < ro->n_rdma_ports) {
			const struct fab_rdma_port *q = &ro->rdma_ports[p->rdma_port_idx];
			fab_hw_text(w, ro->devices[q->device_idx].name);
			fab_hw_fmt(w, "/%u", q->port_num);
		}
		fab_hw_fmt(w, "</td><td>%s</td><td>", trust ? trust : "?");
		eth_known_prios(w, e->known & FAB_ECN_NP, e->np_enabled);
		fab_hw_raw(w, "</td><td>");
		eth_known_prios(w, e->known & FAB_ECN_RP, e->rp_enabled);
		fab_hw_raw(w, "</td><td class=\"num\">");
		eth_known_num(w, e->known & FAB_ECN_CNP_DSCP, e->cnp_dscp);
		fab_hw_raw(w, "</td><td class=\"num\">");
		eth_known_num(w, e->known & FAB_ECN_CNP_PRIO, e->cnp_prio);
		fab_hw_fmt(w, "</td><td data-v=\"%u\">", m->eth_mark[i]);
		fab_html_mark_badge(w, m->eth_mark[i]);
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n<p class=\"muted\">ECN, DCQCN and CNP settings as the NIC's driver "
		      "exposes them (sysfs <code>ecn/</code>); trust from the NIC's DCB application table "
		      "(DSCP entries: dscp); ? where unknown.</p>\n");
	if (m->n_roce_cc > MAX_ETH_ROWS)
		fab_hw_fmt(w, "<p class=\"muted\">... and %zu more (the XML report has them all).</p>\n",
			   m->n_roce_cc - MAX_ETH_ROWS);
}

void fab_html_ethernet(struct hr *r)
{
	struct fab_hw *w = &r->w;
	const struct fab_roce *ro = r->s->roce;
	const struct fab_report_model *m = r->m;
	size_t collected = 0;

	if (!has_eth(r->s))
		return;
	for (size_t i = 0; i < ro->n_systems; i++)
		collected += ro->systems[i].collected;
	fab_hw_fmt(w, "<section id=\"ethernet\">\n<h2>Ethernet and RoCE</h2>\n"
		      "<p><b>%zu</b> systems: %zu hosts, %zu leaves, %zu spines, %zu core, %zu unknown "
		      "(%zu collected, %zu known only from their neighbours' LLDP) &middot; "
		      "<b>%zu</b> Ethernet ports &middot; <b>%zu</b> links, %zu heard from both ends "
		      "&middot; <b>%zu</b> RDMA devices.</p>\n",
		   ro->n_systems, m->n_eth_role[FAB_ROLE_HOST], m->n_eth_role[FAB_ROLE_LEAF],
		   m->n_eth_role[FAB_ROLE_SPINE], m->n_eth_role[FAB_ROLE_CORE],
		   m->n_eth_role[FAB_ROLE_UNKNOWN], collected, ro->n_systems - collected,
		   ro->n_eth_ports, ro->n_links,
		   m->n_eth_heard_both, ro->n_devices);
	eth_links(r);
	eth_devices(r);
	eth_congestion(r);
	fab_hw_raw(w, "</section>\n");
}

