// SPDX-License-Identifier: MIT
/*
 * The physical layer in `ready --local`'s judgement (docs/roce.md,
 * "Readiness"): this host's RoCE interfaces (the RDMA ports' netdevs and
 * the ports of a RoCE bond), their NIC counters since the merge and their
 * modules. The rules `check` runs judge the counters (pause storms,
 * unexpected pauses, discards, uncorrectable FEC blocks, the pre-FEC bit
 * error ratio) against the merge's readings, and the modules; this file
 * makes sure they judge only what was read against something (a counter
 * the merge lacks would be judged since the driver's load), puts the
 * merge's module where none was read now, judges the link-down events with
 * the increase the configuration allows for a link going down, and says
 * what could not be read or compared.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/module.h"
#include "fabsweep/probe.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "ready_roce_priv.h"

static const char *ifname_of(const struct judge *g, const struct rr_iface *e)
{
	return g->j->eth_ports[e->jport].ifname;
}

/* Whether another RoCE interface of this host is enslaved to e's. */
static bool is_upper(const struct judge *g, const struct rr_iface *e)
{
	const char *name = ifname_of(g, e);

	for (size_t k = 0; k < g->n_ifaces; k++) {
		const char *m = g->j->eth_ports[g->ifaces[k].jport].master;
		if (m && !strcmp(m, name))
			return true;
	}
	return false;
}

static const char *stats_why(uint8_t status)
{
	switch (status) {
	case FAB_ETHTOOL_UNSUPPORTED: return "its driver has no statistics";
	case FAB_ETHTOOL_ERROR: return "the query failed";
	case FAB_ETHTOOL_OK: return NULL;
	default: return "not asked";
	}
}

/* Its NIC counters: judged when the merge has the same port's readings;
 * else dropped from the judged view, and why said. */
static void nic_prepare(struct judge *g, struct rr_iface *e, struct fab_nic_view *v)
{
	struct fab_eth_port *p = &g->j->eth_ports[e->jport];

	if ((e->nic_why = stats_why(p->stats_status))) {
		e->nic_verb = "read";
		return;
	}
	if (!p->nic_count) {
		e->nic_verb = "read";
		e->nic_why = "none of its statistics is a counter fabsweep knows";
		return;
	}
	fab_nic_view(g->j, e->jport, &g->base, v);
	if (v->baseline)
		return;
	/* judged without a reading before, they would count since the driver's load */
	p->nic_count = 0;
	e->nic_verb = "compared";
	e->nic_why = g->ref_sys == FAB_NONE ? "this host is not in the merge"
					    : "the merge has no NIC counters of it";
}

void rr_phys_prepare(struct judge *g)
{
	const struct fab_roce *j = g->j;
	struct fab_nic_view *v = malloc(sizeof(*v));
	size_t cap = 0;

	if (!v || fab_nic_base_init(g->ref, &g->base)) {
		free(v);
		g->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < j->n_eth_ports && !g->err; i++) {
		const struct fab_eth_port *p = &j->eth_ports[i];

		if (p->system_idx != g->sys || !p->ifname || (p->flags & FAB_ETH_F_STUB) ||
		    !fab_roce_is_roce_iface(j, (uint32_t)i) ||
		    !rr_grow(g, (void **)&g->ifaces, g->n_ifaces, &cap, sizeof(*g->ifaces)))
			continue;
		g->ifaces[g->n_ifaces++] = (struct rr_iface){
			.jport = (uint32_t)i,
			.rport = g->ref && g->ref_sys != FAB_NONE ? fab_roce_find_eth_port(g->ref, g->ref_sys, p->ifname)
								  : FAB_NONE,
		};
	}
	for (size_t k = 0; k < g->n_ifaces && !g->err; k++) {
		struct rr_iface *e = &g->ifaces[k];

		if ((e->upper = is_upper(g, e)))
			continue; /* a bond: its ports' counters and modules are the physical ones */
		nic_prepare(g, e, v);
		/* its module not read now: the merge's reading, said so */
		if (j->eth_ports[e->jport].module_status != FAB_ETHTOOL_NOT_QUERIED || e->rport == FAB_NONE ||
		    fab_modules_find(&j->modules, e->jport) != FAB_NONE)
			continue;
		if (fab_roce_copy_module(g->j, e->jport, g->ref, e->rport)) {
			g->err = -ENOMEM;
			break;
		}
		e->module_merged = fab_modules_find(&j->modules, e->jport) != FAB_NONE;
	}
	free(v);
}

bool rr_phys_iface(const struct judge *g, const char *ifname, bool *module_merged)
{
	for (size_t k = 0; ifname && k < g->n_ifaces; k++)
		if (!strcmp(ifname_of(g, &g->ifaces[k]), ifname)) {
			*module_merged = g->ifaces[k].module_merged;
			return true;
		}
	return false;
}

void rr_phys_link_down(struct judge *g, const struct fab_counter_limits *limits)
{
	double allowed = limits->allowed[FAB_CTR_LINK_DOWNED]; /* [port.link_flapping] LinkDownedCounter */
	struct fab_nic_view *now = malloc(sizeof(*now)), *was = malloc(sizeof(*was));
	char amount[48], then[32];

	if (!now || !was) {
		g->err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; allowed >= 0 && k < g->n_ifaces; k++) {
		const struct rr_iface *e = &g->ifaces[k];
		const unsigned c = FAB_NIC_LINK_DOWN_EVENTS;

		if (e->upper || e->nic_why)
			continue;
		fab_nic_view(g->j, e->jport, &g->base, now);
		if (!now->have_inc[c][0] || (double)now->inc[c][0] <= allowed)
			continue;
		/* the merge's reading, for the line */
		if (e->rport != FAB_NONE)
			fab_nic_view(g->ref, e->rport, NULL, was);
		if (e->rport != FAB_NONE && was->have[c][0])
			snprintf(then, sizeof(then), "%llu", (unsigned long long)was->value[c][0]);
		else
			snprintf(then, sizeof(then), "?");
		fab_counter_amount(now->inc[c][0], now->reset[c][0], amount, sizeof(amount));
		rr_problem(g, FAB_READY_NOT_READY, "%s link went down since the merge: %s +%s (%s -> %llu%s)",
			   ifname_of(g, e), fab_nic_ctr_name(c), amount, then,
			   (unsigned long long)now->value[c][0],
			   now->reset[c][0] ? ", cleared in between" : "");
	}
out:
	free(now);
	free(was);
}

void rr_phys_readable(struct judge *g, int need)
{
	for (size_t k = 0; k < g->n_ifaces; k++) {
		const struct rr_iface *e = &g->ifaces[k];

		if (!e->upper && e->nic_why)
			rr_unread(g, need, FAB_READY_NEED_ETHTOOL, "NIC counters", e->nic_verb, ifname_of(g, e),
				  e->nic_why);
	}
}

void rr_phys_free(struct judge *g)
{
	free(g->ifaces);
	g->ifaces = NULL;
	g->n_ifaces = 0;
	fab_nic_base_free(&g->base);
}
