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

#define MAX_ETH_ROWS 2000 /* rows of a table; the XML and the database have them all */

/*
 * The rows a table shows, in order: the rows with findings first (the worst
 * first, then in table order), then the others in table order, at most
 * MAX_ETH_ROWS of the n. mark[i]: row i's FAB_MARK. One pass per mark
 * level, so linear. NULL on ENOMEM.
 */
static uint32_t *rows_shown(const uint8_t *mark, size_t n, size_t *shown)
{
	uint32_t *rows = malloc((n < MAX_ETH_ROWS ? n : MAX_ETH_ROWS) * sizeof(*rows) + 1);
	size_t k = 0;

	if (!rows)
		return NULL;
	for (int m = FAB_MARK(FAB_SEV_ERROR); m >= FAB_MARK_NONE; m--)
		for (size_t i = 0; i < n && k < MAX_ETH_ROWS; i++)
			if (mark[i] == m)
				rows[k++] = (uint32_t)i;
	*shown = k;
	return rows;
}

/* The table's caption when it does not show every row. */
static void cap_caption(struct fab_hw *w, size_t shown, size_t n, const char *what)
{
	char a[FAB_COUNT_STRLEN], b[FAB_COUNT_STRLEN];

	if (shown >= n)
		return;
	fab_hw_fmt(w, "<caption>%s of %s %s (those with findings first); all in the XML report and the"
		      " database</caption>", fab_count_format(shown, a), fab_count_format(n, b), what);
}

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

/* An MTU; 0 is unknown (a stub's: what the neighbour's LLDP does not say). */
static void eth_mtu(struct fab_hw *w, uint32_t mtu)
{
	if (mtu)
		fab_hw_fmt(w, "%u", mtu);
	else
		fab_hw_raw(w, "?");
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
	uint8_t *marks = malloc(ro->n_links + 1);
	uint32_t *rows = NULL;
	size_t shown = 0;
	if (marks) {
		for (size_t i = 0; i < ro->n_links; i++)
			marks[i] = max8(r->m->eth_mark[ro->links[i].a], r->m->eth_mark[ro->links[i].b]);
		rows = rows_shown(marks, ro->n_links, &shown);
	}
	free(marks);
	if (!rows) {
		w->err = -ENOMEM;
		return;
	}
	fab_hw_raw(w, "<h3>Links</h3>\n<table class=\"sortable\">");
	cap_caption(w, shown, ro->n_links, "links");
	fab_hw_raw(w, "<thead><tr><th>End A</th><th>End B</th>"
		      "<th>Speed</th><th class=\"num\">MTU</th><th>PFC priorities</th><th>LLDP heard</th>"
		      "<th>Finding</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < shown; k++) {
		const struct fab_eth_link *l = &ro->links[rows[k]];
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
		BOTH_ENDS(w, a->mtu, b->mtu, a->mtu == b->mtu, eth_mtu);
		fab_hw_raw(w, "</td><td>");
		BOTH_ENDS(w, a, b, ka == kb && pa == pb, eth_pfc_text);
		fab_hw_fmt(w, "</td><td>%s</td><td data-v=\"%u\">", heard[l->heard & 3], mk);
		fab_html_mark_badge(w, mk);
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	free(rows);
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
	size_t shown = 0;
	uint32_t *rows = rows_shown(r->m->dev_mark, ro->n_devices, &shown);
	if (!rows) {
		w->err = -ENOMEM;
		return;
	}
	fab_hw_raw(w, "<h3>RDMA devices</h3>\n<table class=\"sortable\">");
	cap_caption(w, shown, ro->n_devices, "RDMA devices");
	fab_hw_raw(w, "<thead><tr><th>System</th>"
		      "<th>Device</th><th>Type</th><th>Firmware</th><th>PCIe link</th><th>PCIe maximum</th>"
		      "<th>Ports</th><th>Finding</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < shown; k++) {
		const struct fab_rdma_device *d = &ro->devices[rows[k]];
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
		for (uint32_t j = 0; j < d->port_count && d->port_first + j < ro->n_rdma_ports; j++) {
			const struct fab_rdma_port *p = &ro->rdma_ports[d->port_first + j];
			const char *st = fab_state_name(p->state);
			fab_hw_fmt(w, "%s%u: %s", j ? "; " : "", p->port_num, st ? st : "?");
			if (p->rate) {
				fab_hw_raw(w, ", ");
				fab_hw_text(w, p->rate);
			}
			if (p->netdev) {
				fab_hw_raw(w, ", ");
				fab_hw_text(w, p->netdev);
			}
		}
		fab_hw_fmt(w, "</td><td data-v=\"%u\">", r->m->dev_mark[rows[k]]);
		fab_html_mark_badge(w, r->m->dev_mark[rows[k]]);
		fab_hw_raw(w, "</td></tr>\n");
	}
	fab_hw_raw(w, "</tbody></table>\n");
	free(rows);
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
	uint8_t *marks = malloc(m->n_roce_cc + 1);
	uint32_t *rows = NULL;
	size_t shown = 0;
	if (marks) {
		for (size_t k = 0; k < m->n_roce_cc; k++)
			marks[k] = m->eth_mark[m->roce_cc[k]];
		rows = rows_shown(marks, m->n_roce_cc, &shown);
	}
	free(marks);
	if (!rows) {
		w->err = -ENOMEM;
		return;
	}
	fab_hw_raw(w, "<h3>RoCE congestion control</h3>\n<table class=\"sortable\">");
	cap_caption(w, shown, m->n_roce_cc, "RoCE NIC ports");
	fab_hw_raw(w, "<thead><tr>"
		      "<th>System</th><th>Interface</th><th>RDMA port</th><th>Trust</th>"
		      "<th>ECN notification point (priorities)</th><th>ECN reaction point, DCQCN (priorities)</th>"
		      "<th class=\"num\">CNP DSCP</th><th class=\"num\">CNP priority</th>"
		      "<th>Finding</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < shown; k++) {
		uint32_t i = m->roce_cc[rows[k]];
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
	free(rows);
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

