// SPDX-License-Identifier: MIT
/*
 * The judgement of `fabsweep ready --local` (docs/roce.md, "Readiness"),
 * without I/O: this host's view as read now goes in place of its system in
 * the merge it is compared with; the rules `check` runs answer about it
 * there (with the majorities of the whole fabric: an extract carries the
 * rest's votes); then the questions that are readiness's own: the RDMA
 * ports the host should have, the cabling LLDP shows, the counters since
 * the merge, and what could not be read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/probe.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "ready_roce_priv.h"

/* The rules that answer about a RoCE host's readiness: what `check` says
 * of it, asked live (docs/roce.md, "Readiness"). */
static const char *const ready_rules[] = {
	"roce.pfc_disabled", "roce.pfc_mismatch", "roce.dscp_mapping", "roce.mtu_mismatch",
	"roce.ecn_disabled", "roce.cnp_mismatch", "roce.trust_mismatch", "lldp.no_neighbor",
	"eth.speed_mismatch", "pcie.degraded",
	/* the physical layer (category physical): its RoCE interfaces' NIC
	 * counters since the merge and their modules (ready_roce_phys.c) */
	"roce.pause_storm", "roce.pause_unexpected", "eth.discards", "eth.fec_uncorrectable",
	"eth.ber_high", "module.temperature", "module.rx_power", "module.tx_bias", "module.dark_lane",
};

/* ---- what is said ---------------------------------------------------------------- */

static char *vtext(struct judge *g, const char *fmt, va_list ap)
{
	char *t = NULL;

	if (g->err)
		return NULL;
	if (vasprintf(&t, fmt, ap) < 0) {
		g->err = -ENOMEM;
		return NULL;
	}
	return t;
}

bool rr_grow(struct judge *g, void **arr, size_t n, size_t *cap, size_t elem)
{
	if (g->err)
		return false;
	if (n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 8;
	void *p = realloc(*arr, nc * elem);
	if (!p) {
		g->err = -ENOMEM;
		return false;
	}
	*arr = p;
	*cap = nc;
	return true;
}

void rr_problem(struct judge *g, uint8_t verdict, const char *fmt, ...)
{
	struct fab_ready *r = g->res->r;
	va_list ap;
	char *t;

	va_start(ap, fmt);
	t = vtext(g, fmt, ap);
	va_end(ap);
	if (!t || !rr_grow(g, (void **)&r->problems, r->n_problems, &g->cap_problems,
			sizeof(*r->problems))) {
		free(t);
		return;
	}
	r->problems[r->n_problems++] = (struct fab_ready_problem){ 0, verdict, t };
	if (r->verdict[0] != FAB_READY_NOT_READY)
		r->verdict[0] = verdict;
}

void rr_note(struct judge *g, const char *fmt, ...)
{
	struct fab_pipeline_ready_local_result *res = g->res;
	va_list ap;
	char *t;

	va_start(ap, fmt);
	t = vtext(g, fmt, ap);
	va_end(ap);
	if (!t || !rr_grow(g, (void **)&res->notes, res->n_notes, &g->cap_notes, sizeof(*res->notes))) {
		free(t);
		return;
	}
	res->notes[res->n_notes++] = t;
}

/* ---- the systems ----------------------------------------------------------------- */

/* The machine's own system in a collection: the collected one that sysfs
 * described, else the first collected one. */
static uint32_t local_system(const struct fab_roce *r)
{
	uint32_t first = FAB_NONE;

	for (size_t i = 0; r && i < r->n_systems; i++) {
		if (!r->systems[i].collected)
			continue;
		if (first == FAB_NONE)
			first = (uint32_t)i;
		for (size_t k = 0; k < r->n_eth_ports; k++)
			if (r->eth_ports[k].system_idx == i && (r->eth_ports[k].flags & FAB_ETH_F_SYSFS))
				return (uint32_t)i;
		for (size_t k = 0; k < r->n_devices; k++)
			if (r->devices[k].system_idx == i)
				return (uint32_t)i;
	}
	return first;
}

/* The collected system of r named name: by its exact name, else by its
 * host name (fab_roce_same_host). */
static uint32_t find_collected(const struct fab_roce *r, const char *name)
{
	uint32_t like = FAB_NONE;

	for (size_t i = 0; r && name && i < r->n_systems; i++) {
		const struct fab_roce_system *s = &r->systems[i];
		if (!s->collected || !s->name)
			continue;
		if (!strcmp(s->name, name))
			return (uint32_t)i;
		if (like == FAB_NONE && fab_roce_same_host(s->name, name))
			like = (uint32_t)i;
	}
	return like;
}

static bool roce_rdma_port(const struct fab_rdma_port *p)
{
	return !p->link_layer || !strcasecmp(p->link_layer, "Ethernet");
}

static const char *sys_name(const struct fab_roce *r, uint32_t s)
{
	return s < r->n_systems && r->systems[s].name ? r->systems[s].name : "?";
}

/* ---- the judged view: the merge with this host as it is now -------------------------- */

/* Links at this host's ports whose LLDP runs now but did not hear the
 * other end: the other end's records are from the merge; where this host
 * hears now is where it is cabled now. */
static bool drop_stale_links(struct fab_roce *j, uint32_t sys)
{
	size_t n = 0;

	for (size_t i = 0; i < j->n_links; i++) {
		const struct fab_eth_link *l = &j->links[i];
		const struct fab_eth_port *a = &j->eth_ports[l->a], *b = &j->eth_ports[l->b];
		bool stale = (a->system_idx == sys && (a->flags & FAB_ETH_F_LLDP) &&
			      !(l->heard & FAB_LINK_A_HEARD_B)) ||
			     (b->system_idx == sys && (b->flags & FAB_ETH_F_LLDP) &&
			      !(l->heard & FAB_LINK_B_HEARD_A));
		if (!stale)
			j->links[n++] = *l;
	}
	bool dropped = n != j->n_links;
	j->n_links = n;
	return dropped;
}

static int build_judged(struct judge *g, const char *name)
{
	struct fab_pipeline_ready_local_result *res = g->res;
	struct fab_snapshot *js = fab_snapshot_new();
	struct fab_roce_sysindex *ix = NULL;
	uint32_t *keep = NULL;
	size_t n = 0;
	int err = -ENOMEM;

	if (!js || !fab_snapshot_roce(js))
		goto out;
	res->judged = js;
	g->j = js->roce;
	js->scan_id = res->ref->scan_id;
	/* the merge's scan, as read now: the rules' baseline is the merge (a
	 * clock behind the merge's must not make it the newer) */
	js->started_at_ms = res->live->started_at_ms > res->ref->started_at_ms ? res->live->started_at_ms
									      : res->ref->started_at_ms;
	js->finished_at_ms = js->started_at_ms;
	js->status = FAB_SCAN_COMPLETE;
	if (g->ref) {
		if (!(keep = malloc((g->ref->n_systems + 1) * sizeof(*keep))))
			goto out;
		for (size_t i = 0; i < g->ref->n_systems; i++)
			if (g->ref->systems[i].collected && i != g->ref_sys)
				keep[n++] = (uint32_t)i;
		if ((err = fab_roce_sysindex_build(g->ref, &ix)) ||
		    (err = fab_roce_copy_systems(g->j, g->ref, ix, keep, n, NULL)) ||
		    (g->ref->outside && (err = fab_roce_votes_add(g->ref->outside, NULL, &g->j->outside))))
			goto out;
		fab_roce_sysindex_free(ix);
		ix = NULL;
	}
	g->sys = (uint32_t)g->j->n_systems;
	if ((err = fab_roce_sysindex_build(g->live, &ix)) ||
	    (err = fab_roce_copy_systems(g->j, g->live, ix, &g->live_sys, 1, NULL)))
		goto out;
	err = -ENOMEM;
	if (!(g->j->systems[g->sys].name = fab_roce_strdup(g->j, name)))
		goto out;
	if ((err = fab_roce_resolve(g->j)))
		goto out;
	if (drop_stale_links(g->j, g->sys))
		fab_roce_assign_roles(g->j);
	err = 0;
out:
	fab_roce_sysindex_free(ix);
	free(keep);
	return err == -EINVAL ? fab_err(err, "the merge's RoCE part is inconsistent")
	       : err	      ? fab_err(err, "out of memory")
			      : 0;
}

/* ---- the rules --------------------------------------------------------------------- */

static bool about_host(const struct fab_finding *f, const char *name)
{
	return (f->node && !strcmp(f->node, name)) || (f->peer_node && !strcmp(f->peer_node, name));
}

static int ask_rules(struct judge *g, unsigned fail_on)
{
	struct fab_pipeline_ready_local_result *res = g->res;
	struct fab_snapshot *js = res->judged;
	struct fab_rules_result rr;
	size_t n_table, cap = 0;
	const struct fab_rule *table = fab_rules_table(&n_table);
	int err;

	/* the merge is the baseline: a rule that compares counters with one
	 * judges them since the merge */
	if ((err = fab_rules_run_only(g->cfg, js, res->ref, ready_rules,
				      sizeof(ready_rules) / sizeof(ready_rules[0]), 0, &rr)))
		return err;
	for (size_t i = 0; i < js->n_findings; i++) {
		const struct fab_finding *f = &js->findings[i];
		const struct fab_rule *rule = fab_rule_find(f->rule_id);
		bool counts = fail_on < FAB_SEV__COUNT && f->severity >= fail_on, merged = false;

		if (!about_host(f, res->name))
			continue;
		/* the physical rules answer for this host's own RoCE interfaces
		 * (the switch's counters and modules are the merge's, not since) */
		if (rule && rule->category == FAB_CAT_PHYSICAL &&
		    (!f->node || strcmp(f->node, res->name) || !rr_phys_iface(g, f->port, &merged)))
			continue;
		if (!rr_grow(g, (void **)&res->findings, res->n_findings, &cap, sizeof(*res->findings)))
			break;
		res->findings[res->n_findings++] = (struct fab_ready_roce_finding){ (uint32_t)i, counts };
		merged = merged && !strncmp(f->rule_id, "module.", 7);
		if (counts)
			rr_problem(g, FAB_READY_NOT_READY, "%s %s: %s%s", f->rule_id, f->subject ? f->subject : "-",
				   f->message ? f->message : "", merged ? " (the module as read at the merge)" : "");
		else
			rr_note(g, "%s %s %s: %s%s (below --fail-on)", fab_severity_name(f->severity), f->rule_id,
				f->subject ? f->subject : "-", f->message ? f->message : "",
				merged ? " (the module as read at the merge)" : "");
	}
	/* a physical rule that could not run: its interfaces' notes say why */
	for (size_t i = 0; i < n_table && i < FAB_RULES_MAX; i++)
		if (rr.status[i] == FAB_RULE_SKIPPED && table[i].category != FAB_CAT_PHYSICAL)
			rr_note(g, "%s not checked: %s", table[i].id, rr.why_skipped[i]);
	return 0;
}

/* ---- the RDMA ports -------------------------------------------------------------------- */

static struct fab_ready_roce_port *port_entry(struct judge *g, const char *dev, unsigned num)
{
	struct fab_pipeline_ready_local_result *res = g->res;

	for (size_t i = 0; i < res->n_ports; i++)
		if (!strcmp(res->ports[i].device, dev) && res->ports[i].port == num)
			return &res->ports[i];
	if (!rr_grow(g, (void **)&res->ports, res->n_ports, &g->cap_ports, sizeof(*res->ports)))
		return NULL;
	struct fab_ready_roce_port *p = &res->ports[res->n_ports++];
	*p = (struct fab_ready_roce_port){ .device = dev, .port = num };
	return p;
}

/* The RoCE ports of system s of r into the list: at the merge (merged) or now. */
static void list_ports(struct judge *g, const struct fab_roce *r, uint32_t s, bool merged)
{
	for (size_t d = 0; r && s != FAB_NONE && d < r->n_devices; d++) {
		const struct fab_rdma_device *dev = &r->devices[d];

		if (dev->system_idx != s || !dev->name)
			continue;
		for (uint32_t k = 0; k < dev->port_count; k++) {
			const struct fab_rdma_port *p = &r->rdma_ports[dev->port_first + k];
			struct fab_ready_roce_port *e;

			if (!roce_rdma_port(p) || !(e = port_entry(g, dev->name, p->port_num)))
				continue;
			if (merged) {
				e->merged = true;
				e->merged_rate_gbps = p->rate_gbps;
				if (!e->netdev)
					e->netdev = p->netdev;
				continue;
			}
			e->present = true;
			e->state = p->state;
			e->phys_state = p->phys_state;
			e->rate_gbps = p->rate_gbps;
			if (p->netdev)
				e->netdev = p->netdev;
		}
	}
}

/* "RDMA port mlx5_0/1 (eth0)": how every line names a port. */
static const char *port_label(const struct fab_ready_roce_port *e, char *buf, size_t len)
{
	if (e->netdev)
		snprintf(buf, len, "RDMA port %s/%u (%s)", e->device, e->port, e->netdev);
	else
		snprintf(buf, len, "RDMA port %s/%u", e->device, e->port);
	return buf;
}

static void rate_text(char *buf, size_t len, double gbps)
{
	snprintf(buf, len, "%g Gb/s", gbps);
}

static void check_ports(struct judge *g)
{
	struct fab_pipeline_ready_local_result *res = g->res;
	char names[64][FAB_READY_PORT_NAME_MAX], lab[160], now[32], was[32];
	const char *want = fab_config_sweep(g->cfg, FAB_READY_ROCE_PORTS, NULL);
	unsigned count = 0;
	size_t n_names = 0, active = 0, present = 0;

	list_ports(g, g->ref, g->ref_sys, true);
	list_ports(g, g->live, g->live_sys, false);
	if (want && !fab_ready_ports_parse(want, &count, names, 64, &n_names))
		for (size_t i = 0; i < n_names && i < 64; i++) {
			char *slash = strrchr(names[i], '/');
			struct fab_ready_roce_port *e;
			*slash = '\0';
			/* the name is the configuration's: kept in the judged model's arena */
			const char *dev = fab_roce_strdup(g->j, names[i]);
			if (!dev) {
				g->err = -ENOMEM;
				return;
			}
			if ((e = port_entry(g, dev, (unsigned)strtoul(slash + 1, NULL, 10))))
				e->named = true;
		}
	for (size_t i = 0; i < res->n_ports && !g->err; i++) {
		struct fab_ready_roce_port *e = &res->ports[i];
		const char *st = fab_state_name(e->state), *ph = fab_phys_state_name(e->phys_state);

		port_label(e, lab, sizeof(lab));
		present += e->present;
		if (!e->present) {
			if (!e->merged && !e->named)
				continue;
			e->verdict = FAB_READY_NOT_READY;
			rr_problem(g, FAB_READY_NOT_READY, "%s is missing (%s)", lab,
				e->merged ? "the merge had it" : "[ready] roce_ports names it");
			continue;
		}
		if (e->state != FAB_STATE_ACTIVE) {
			e->verdict = FAB_READY_NOT_READY;
			rr_problem(g, FAB_READY_NOT_READY, "%s is %s/%s, not active", lab, st ? st : "unknown",
				ph ? ph : "unknown");
			continue;
		}
		active++;
		if (e->merged && e->rate_gbps > 0 && e->merged_rate_gbps > e->rate_gbps) {
			rate_text(now, sizeof(now), e->rate_gbps);
			rate_text(was, sizeof(was), e->merged_rate_gbps);
			e->verdict = FAB_READY_NOT_READY;
			rr_problem(g, FAB_READY_NOT_READY, "%s runs %s (%s at the merge)", lab, now, was);
		}
	}
	if (count && active < count)
		rr_problem(g, FAB_READY_NOT_READY, "%zu of its %zu RoCE ports are active; [ready] roce_ports expects %u",
			active, present, count);
}

/* ---- the cabling --------------------------------------------------------------------- */

/* The far end of port p's links in r (in the judged model: after
 * drop_stale_links): system and interface names of the first, or of the
 * first that is not (want_sys, want_port) when it has several (a port that
 * hears two neighbours); false when it has none. */
static bool far_end(const struct fab_roce *r, uint32_t p, const char *want_sys,
		    const char *want_port, const char **sys, const char **port)
{
	bool found = false;

	for (size_t i = 0; i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];
		uint32_t q = l->a == p ? l->b : l->b == p ? l->a : FAB_NONE;

		if (q == FAB_NONE)
			continue;
		const char *s = sys_name(r, r->eth_ports[q].system_idx);
		const char *n = r->eth_ports[q].ifname ? r->eth_ports[q].ifname : "?";
		bool wanted = want_sys && !strcmp(s, want_sys) && !strcmp(n, want_port);
		if (!found || !wanted) {
			*sys = s;
			*port = n;
		}
		found = true;
		if (!wanted)
			break;
	}
	return found;
}

static struct fab_ready_roce_link *link_entry(struct judge *g, const char *ifname)
{
	struct fab_pipeline_ready_local_result *res = g->res;

	for (size_t i = 0; i < res->n_links; i++)
		if (!strcmp(res->links[i].ifname, ifname))
			return &res->links[i];
	if (!rr_grow(g, (void **)&res->links, res->n_links, &g->cap_links, sizeof(*res->links)))
		return NULL;
	struct fab_ready_roce_link *l = &res->links[res->n_links++];
	*l = (struct fab_ready_roce_link){ .ifname = ifname };
	return l;
}

/* Whether the rules said port ifname of this host hears nobody. */
static bool said_deaf(const struct judge *g, const char *ifname)
{
	const struct fab_pipeline_ready_local_result *res = g->res;

	for (size_t i = 0; i < res->n_findings; i++) {
		const struct fab_finding *f = &res->judged->findings[res->findings[i].finding];
		if (!strcmp(f->rule_id, "lldp.no_neighbor") && f->node && !strcmp(f->node, res->name) &&
		    f->port && !strcmp(f->port, ifname))
			return true;
	}
	return false;
}

static void check_cabling(struct judge *g)
{
	const struct fab_roce *j = g->j;
	bool lldp_here = g->live->systems[g->live_sys].lldp;

	/* where each interface was cabled at the merge */
	for (size_t i = 0; g->ref && g->ref_sys != FAB_NONE && i < g->ref->n_eth_ports; i++) {
		const struct fab_eth_port *p = &g->ref->eth_ports[i];
		struct fab_ready_roce_link *e;
		const char *s, *q;

		if (p->system_idx != g->ref_sys || (p->flags & FAB_ETH_F_STUB) || !p->ifname ||
		    !far_end(g->ref, (uint32_t)i, NULL, NULL, &s, &q) || !(e = link_entry(g, p->ifname)))
			continue;
		e->want_system = s;
		e->want_port = q;
	}
	/* where it hears now: every interface that hears someone, and those
	 * that had a link at the merge */
	for (size_t i = 0; i < j->n_eth_ports && !g->err; i++) {
		const struct fab_eth_port *p = &j->eth_ports[i];
		struct fab_ready_roce_link *e = NULL;
		const char *s = NULL, *q = NULL;
		bool heard;

		if (p->system_idx != g->sys || (p->flags & FAB_ETH_F_STUB) || !p->ifname)
			continue;
		for (size_t k = 0; k < g->res->n_links && !e; k++)
			if (!strcmp(g->res->links[k].ifname, p->ifname))
				e = &g->res->links[k];
		heard = far_end(j, (uint32_t)i, e ? e->want_system : NULL, e ? e->want_port : NULL, &s, &q) &&
			(p->flags & FAB_ETH_F_LLDP);
		if (!e && (!heard || !(e = link_entry(g, p->ifname))))
			continue;
		e->lldp = (p->flags & FAB_ETH_F_LLDP) != 0;
		if (heard) {
			e->heard_system = s;
			e->heard_port = q;
		}
	}
	for (size_t i = 0; i < g->res->n_links && !g->err; i++) {
		struct fab_ready_roce_link *e = &g->res->links[i];
		uint32_t p = fab_roce_find_eth_port(j, g->sys, e->ifname);

		if (!e->want_system)
			continue; /* nothing to compare with */
		if (p == FAB_NONE) {
			e->verdict = FAB_READY_NOT_READY;
			rr_problem(g, FAB_READY_NOT_READY, "%s (cabled to %s/%s at the merge) is not here", e->ifname,
				e->want_system, e->want_port);
			continue;
		}
		if (!e->lldp)
			continue; /* not checked: said once below */
		if (e->heard_system && (strcmp(e->heard_system, e->want_system) ||
					strcmp(e->heard_port, e->want_port))) {
			e->verdict = FAB_READY_NOT_READY;
			rr_problem(g, FAB_READY_NOT_READY, "%s is cabled to %s/%s, not to %s/%s as at the merge",
				e->ifname, e->heard_system, e->heard_port, e->want_system, e->want_port);
		} else if (!e->heard_system) {
			const char *state = j->eth_ports[p].state;
			e->verdict = FAB_READY_NOT_READY;
			if (!said_deaf(g, e->ifname))
				rr_problem(g, FAB_READY_NOT_READY, "%s hears no LLDP neighbour (%s/%s at the merge); it is %s",
					e->ifname, e->want_system, e->want_port, state ? state : "in an unknown state");
		}
	}
	if (!lldp_here && g->res->n_links)
		rr_note(g, "the cabling is not checked: lldpd did not answer here");
}

/* ---- the counters since the merge --------------------------------------------------------- */

static uint32_t find_rdma_port(const struct fab_roce *r, uint32_t sys, const char *dev, unsigned num)
{
	for (size_t d = 0; r && d < r->n_devices; d++) {
		const struct fab_rdma_device *x = &r->devices[d];
		if (x->system_idx != sys || !x->name || strcmp(x->name, dev))
			continue;
		for (uint32_t k = 0; k < x->port_count; k++)
			if (r->rdma_ports[x->port_first + k].port_num == num)
				return x->port_first + k;
	}
	return FAB_NONE;
}

static void check_counters(struct judge *g)
{
	const struct fab_pipeline_ready_local_result *res = g->res;
	struct fab_counter_limits limits;
	struct fab_counter_sample was, now;
	char line[1024], lab[160];

	fab_rules_increase_limits(g->cfg, &limits); /* as `ready` judges InfiniBand ports */
	for (size_t i = 0; i < res->n_ports; i++) {
		const struct fab_ready_roce_port *e = &res->ports[i];
		uint32_t a = find_rdma_port(g->ref, g->ref_sys, e->device, e->port);
		uint32_t b = find_rdma_port(g->live, g->live_sys, e->device, e->port);

		if (a == FAB_NONE || b == FAB_NONE)
			continue;
		fab_counter_rdma_sample(g->ref, a, g->ref->systems[g->ref_sys].collected_at_ms, &was);
		fab_counter_rdma_sample(g->live, b, g->live->systems[g->live_sys].collected_at_ms, &now);
		if (fab_ready_counter_rise(&was, &now, &limits, line, sizeof(line)))
			rr_problem(g, FAB_READY_NOT_READY, "%s error counters rose since the merge: %s",
				port_label(e, lab, sizeof(lab)), line);
	}
	rr_phys_link_down(g, &limits);
}

/* ---- what could not be read ------------------------------------------------------------ */

void rr_unread(struct judge *g, int need, unsigned bit, const char *what, const char *verb,
	       const char *ifname, const char *why)
{
	if (need & (int)bit)
		rr_problem(g, FAB_READY_NOT_READY, "%s of %s not %s (%s), and [ready] require has %s", what,
			   ifname, verb, why, fab_ready_need_name(bit));
	else
		rr_note(g, "%s of %s not %s: %s", what, ifname, verb, why);
}

static void check_readable(struct judge *g)
{
	const struct fab_roce *l = g->live;
	const char *req = fab_config_sweep(g->cfg, FAB_READY_REQUIRE, NULL);
	int need = req ? fab_ready_require_parse(req) : 0;

	if (need < 0)
		need = 0;
	if (!l->systems[g->live_sys].lldp && (need & FAB_READY_NEED_LLDP))
		rr_problem(g, FAB_READY_NOT_READY, "lldpd did not answer here, and [ready] require has lldp");
	for (size_t i = 0; i < l->n_eth_ports; i++) {
		const struct fab_eth_port *p = &l->eth_ports[i];
		const struct fab_rdma_port *rp;

		if (p->system_idx != g->live_sys || p->rdma_port_idx == FAB_NONE ||
		    p->rdma_port_idx >= l->n_rdma_ports || !p->ifname)
			continue;
		rp = &l->rdma_ports[p->rdma_port_idx];
		if (!roce_rdma_port(rp))
			continue;
		if (p->dcb_status != FAB_DCB_OK)
			rr_unread(g, need, FAB_READY_NEED_DCB, "DCB", "read", p->ifname,
				 p->dcb_status == FAB_DCB_UNSUPPORTED ? "its driver has no DCB; PFC is what lldpd advertises, the trust state unknown"
				 : p->dcb_status == FAB_DCB_FAILED ? "the query failed"
								   : "not asked");
		if (!p->ecn.known)
			rr_unread(g, need, FAB_READY_NEED_ECN, "ECN", "read", p->ifname,
				 "its driver has no sysfs ecn directory");
	}
	rr_phys_readable(g, need);
}

/* ---- the judgement ---------------------------------------------------------------------- */

void fab_pipeline_ready_local_free(struct fab_pipeline_ready_local_result *r)
{
	if (!r)
		return;
	fab_ready_free(r->r);
	fab_ready_hosts_free(r->hosts);
	fab_snapshot_free(r->ref);
	fab_snapshot_free(r->live);
	fab_snapshot_free(r->judged);
	free(r->ports);
	free(r->links);
	free(r->findings);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	free((char *)r->name);
	free(r);
}

int fab_ready_roce_judge(struct fab_ready_roce_in *in, struct fab_pipeline_ready_local_result **out)
{
	struct fab_pipeline_ready_local_result *res = calloc(1, sizeof(*res));
	struct judge g = { .res = res, .cfg = in->cfg };
	long long scan;
	int err = -ENOMEM;

	if (!res || !(res->r = calloc(1, sizeof(*res->r))) || !(res->r->verdict = calloc(1, 1))) {
		if (res)
			free(res->r);
		free(res);
		fab_snapshot_free(in->ref);
		fab_snapshot_free(in->live);
		return fab_err(-ENOMEM, "out of memory");
	}
	res->ref = in->ref;
	res->live = in->live;
	res->r->n_hosts = 1;
	scan = (long long)res->ref->scan_id;
	g.ref = res->ref->roce && res->ref->roce->n_systems ? res->ref->roce : NULL;
	g.live = res->live->roce;
	for (size_t i = 0; i < in->n_notes; i++)
		rr_note(&g, "%s", in->notes[i]);
	g.live_sys = local_system(g.live);
	const char *name = in->name ? in->name
			   : g.live_sys != FAB_NONE ? g.live->systems[g.live_sys].name : NULL;
	/* found (by its host name: "host1" is "host1.cluster"), it goes by its
	 * name in the merge: the rules' baseline is found by it */
	g.ref_sys = g.live_sys != FAB_NONE ? find_collected(g.ref, name ? name : "localhost") : FAB_NONE;
	if (g.ref_sys != FAB_NONE)
		name = g.ref->systems[g.ref_sys].name;
	if (!(res->name = strdup(name ? name : "localhost")) ||
	    fab_ready_hosts_new(&res->name, 1, &res->hosts))
		goto fail;
	if (g.live_sys == FAB_NONE) {
		rr_problem(&g, FAB_READY_UNKNOWN, "nothing was read here: no network interface in sysfs and no lldpd");
		goto done;
	}
	if (!g.ref)
		rr_problem(&g, FAB_READY_UNKNOWN, "scan %lld has no RoCE part to compare with: merge the hosts' collections (docs/roce.md)",
			scan);
	else if (g.ref_sys == FAB_NONE)
		rr_problem(&g, FAB_READY_UNKNOWN, "not in scan %lld: no system named '%s' was collected there; collect on it and merge, or name it with --system",
			scan, res->name);
	if (g.err || (err = build_judged(&g, res->name)))
		goto fail;
	rr_phys_prepare(&g);
	if (g.err || (err = ask_rules(&g, in->fail_on)))
		goto fail;
	check_ports(&g);
	check_cabling(&g);
	if (g.ref_sys != FAB_NONE)
		check_counters(&g);
	check_readable(&g);
done:
	rr_phys_free(&g);
	if (g.err) {
		err = g.err;
		goto fail;
	}
	*out = res;
	return 0;
fail:
	rr_phys_free(&g);
	fab_pipeline_ready_local_free(res);
	return err == -ENOMEM || !err ? fab_err(-ENOMEM, "out of memory") : err;
}
