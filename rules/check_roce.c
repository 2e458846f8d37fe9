// SPDX-License-Identifier: MIT
/*
 * RoCE rules: PFC, the DSCP and UDP 4791 application entries, MTU, and
 * RDMA congestion counters against a baseline. They read snap->roce
 * (include/fabsweep/roce.h): Ethernet ports as their NIC configures them
 * (DCB, when dcb_status is ok) or as they advertise them over LLDP (for a
 * stub: as its neighbour heard them), and the links between them.
 *
 * What is a RoCE interface, and when PFC counts as known, is decided once
 * here (struct roce_view) and documented in docs/rules/roce.*.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

#define ROCE_UDP_PORT 4791

/* ---- the view: per-port facts the RoCE checks share, built once per run by
 * the engine (rules/engine.c) and handed to them in ctx->roce ------------- */

bool roce_is_up(const struct fab_eth_port *p)
{
	return p->state && !strcasecmp(p->state, "up");
}

uint32_t roce_peer(const struct roce_view *v, uint32_t port)
{
	uint32_t l = v->link_of[port];

	if (l == FAB_NONE)
		return FAB_NONE;
	return v->r->links[l].a == port ? v->r->links[l].b : v->r->links[l].a;
}

static unsigned port_role(const struct roce_view *v, uint32_t port)
{
	uint32_t s = v->r->eth_ports[port].system_idx;

	return s < v->r->n_systems ? v->r->systems[s].role : FAB_ROLE_UNKNOWN;
}

/* An RDMA port runs on top of it over Ethernet (RoCE). */
static bool carries_rdma(const struct roce_view *v, uint32_t port)
{
	uint32_t rp = v->r->eth_ports[port].rdma_port_idx;
	const char *ll;

	if (rp == FAB_NONE || rp >= v->r->n_rdma_ports)
		return false;
	ll = v->r->rdma_ports[rp].link_layer;
	return !ll || !strcasecmp(ll, "Ethernet");
}

static const char *const pfc_src_names[] = { "unknown", "dcb", "lldp", "none" };

enum pfc_src roce_port_pfc(const struct roce_view *v, uint32_t port, uint8_t *bits)
{
	const struct fab_eth_port *p = &v->r->eth_ports[port];
	const struct fab_pfc *pfc = fab_eth_port_pfc(p);

	*bits = 0;
	if (pfc->valid) {
		*bits = pfc->enabled;
		return pfc == &p->dcb.pfc ? PFC_DCB : PFC_LLDP;
	}
	if ((p->flags & (FAB_ETH_F_LLDP | FAB_ETH_F_STUB)) && p->system_idx < v->r->n_systems &&
	    v->sys_pfc[p->system_idx])
		return PFC_NOT_SENT;
	return PFC_UNKNOWN;
}

/* Its application table: NULL when unknown; *n = 0 for an empty one. */
static const struct fab_app_entry *port_apps(const struct roce_view *v, uint32_t port,
					     uint32_t *n, const char **src)
{
	static const struct fab_app_entry none[1];
	const struct fab_eth_port *p = &v->r->eth_ports[port];
	const struct fab_dcbx *d = NULL;

	*n = 0;
	if (p->dcb_status == FAB_DCB_OK && p->dcb.app_valid) {
		d = &p->dcb;
		*src = "dcb";
	} else if (p->adv.app_valid) {
		d = &p->adv;
		*src = "lldp";
	}
	if (d) {
		if (d->app_first + d->app_count > v->r->n_apps)
			return NULL;
		*n = d->app_count;
		return d->app_count ? &v->r->apps[d->app_first] : none;
	}
	if ((p->flags & (FAB_ETH_F_LLDP | FAB_ETH_F_STUB)) && p->system_idx < v->r->n_systems &&
	    v->sys_app[p->system_idx]) {
		*src = "none";
		return none;
	}
	return NULL;
}

static bool is_udp_roce(const struct fab_app_entry *e)
{
	return (e->selector == FAB_APP_SEL_UDP || e->selector == FAB_APP_SEL_PORT) &&
	       e->protocol == ROCE_UDP_PORT;
}

/*
 * A RoCE interface by its own evidence: an RDMA port runs on it, or it is
 * set up for lossless traffic (PFC on some priority, or an application
 * entry for UDP 4791). Worked out once per port, when the view is built.
 */
static bool is_roce_port(const struct roce_view *v, uint32_t port)
{
	const struct fab_app_entry *e;
	const char *src;
	uint32_t n;
	uint8_t bits;

	if (carries_rdma(v, port))
		return true;
	if (roce_port_pfc(v, port, &bits) != PFC_UNKNOWN && bits)
		return true;
	e = port_apps(v, port, &n, &src);
	for (uint32_t k = 0; e && k < n; k++)
		if (is_udp_roce(&e[k]))
			return true;
	return false;
}

int roce_view_init(const struct fab_snapshot *s, struct roce_view *v)
{
	const struct fab_roce *r = s->roce;
	size_t np = r->n_eth_ports, ns = r->n_systems;

	memset(v, 0, sizeof(*v));
	v->r = r;
	v->link_of = malloc((np + 1) * sizeof(*v->link_of));
	v->heard = calloc(np + 1, sizeof(*v->heard));
	v->sys_pfc = calloc(ns + 1, sizeof(*v->sys_pfc));
	v->sys_app = calloc(ns + 1, sizeof(*v->sys_app));
	v->roce = calloc(np + 1, sizeof(*v->roce));
	if (!v->link_of || !v->heard || !v->sys_pfc || !v->sys_app || !v->roce) {
		roce_view_fini(v);
		return fab_err(-ENOMEM, "out of memory indexing the RoCE part");
	}
	for (size_t i = 0; i < np; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];

		v->link_of[i] = FAB_NONE;
		if (p->system_idx >= ns)
			continue;
		if (p->adv.pfc.valid)
			v->sys_pfc[p->system_idx] = true;
		if (p->adv.app_valid)
			v->sys_app[p->system_idx] = true;
	}
	for (size_t i = 0; i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];

		if (l->a < np && v->link_of[l->a] == FAB_NONE)
			v->link_of[l->a] = (uint32_t)i;
		if (l->b < np && v->link_of[l->b] == FAB_NONE)
			v->link_of[l->b] = (uint32_t)i;
	}
	for (size_t i = 0; i < r->n_neighbors; i++)
		if (r->neighbors[i].port_idx < np && v->heard[r->neighbors[i].port_idx] < UINT32_MAX)
			v->heard[r->neighbors[i].port_idx]++;
	for (size_t i = 0; i < np; i++)
		v->roce[i] = is_roce_port(v, (uint32_t)i);
	if (roce_votes(v, true, &v->votes)) {
		roce_view_fini(v);
		return fab_err(-ENOMEM, "out of memory counting the RoCE votes");
	}
	return 0;
}

void roce_view_fini(struct roce_view *v)
{
	free(v->link_of);
	free(v->heard);
	free(v->sys_pfc);
	free(v->sys_app);
	free(v->roce);
	fab_roce_votes_free(v->votes);
	memset(v, 0, sizeof(*v));
}

bool roce_port(const struct roce_view *v, uint32_t port)
{
	return v->roce[port];
}

/* A link that carries RoCE: either end is a RoCE interface. */
static bool roce_link(const struct roce_view *v, const struct fab_eth_link *l)
{
	return roce_port(v, l->a) || roce_port(v, l->b);
}

/* A port that is on no link, up, and not a stub: checked on its own. */
static bool lone_port(const struct roce_view *v, uint32_t port)
{
	const struct fab_eth_port *p = &v->r->eth_ports[port];

	return v->link_of[port] == FAB_NONE && !(p->flags & FAB_ETH_F_STUB) && roce_is_up(p);
}

void roce_prio_list(struct rbuf *b, uint8_t bits)
{
	if (!bits) {
		rbuf_printf(b, "none");
		return;
	}
	for (unsigned k = 0, first = 1; k < FAB_PRIOS; k++)
		if (bits & (1u << k)) {
			rbuf_printf(b, "%s%u", first ? "" : ",", k);
			first = 0;
		}
}

unsigned roce_priority(const struct fab_rule_ctx *ctx)
{
	return (unsigned)rule_shared(ctx, rule_param_roce_priority) & 7;
}

/* ---- roce.pfc_disabled ----------------------------------------------------- */

static int pfc_end(struct fab_rule_ctx *ctx, const struct roce_view *v, uint32_t port,
		   uint32_t peer, unsigned prio)
{
	uint8_t bits;
	enum pfc_src src = roce_port_pfc(v, port, &bits);

	if (src == PFC_UNKNOWN || (bits & (1u << prio)))
		return 0;
	rbuf_reset(&ctx->tmp);
	roce_prio_list(&ctx->tmp, bits);
	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->ev, "pfc_priorities=%s; source=%s; roce_priority=%u", rbuf_str(&ctx->tmp),
		    pfc_src_names[src], prio);
	if (src == PFC_NOT_SENT)
		return rule_emit_eth(ctx, port, peer, rbuf_str(&ctx->ev),
				     "advertises no PFC (its other ports do), so none on the RoCE priority %u",
				     prio);
	return rule_emit_eth(ctx, port, peer, rbuf_str(&ctx->ev),
			     "PFC is not enabled on the RoCE priority %u (enabled: %s)", prio,
			     rbuf_str(&ctx->tmp));
}

int check_roce_pfc_disabled(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct roce_view *v = ctx->roce;
	unsigned prio = roce_priority(ctx);
	int err = 0;

	for (size_t i = 0; !err && i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];

		if (!roce_link(v, l))
			continue;
		if (!(err = pfc_end(ctx, v, l->a, l->b, prio)) && l->b != l->a)
			err = pfc_end(ctx, v, l->b, l->a, prio);
	}
	for (size_t i = 0; !err && i < r->n_eth_ports; i++)
		if (lone_port(v, (uint32_t)i) && roce_port(v, (uint32_t)i))
			err = pfc_end(ctx, v, (uint32_t)i, FAB_NONE, prio);
	return err;
}

/* ---- roce.pfc_mismatch --------------------------------------------------------- */

int check_roce_pfc_mismatch(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct roce_view *v = ctx->roce;
	int err = 0;

	for (size_t i = 0; !err && i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];
		uint8_t a, b;
		enum pfc_src sa = roce_port_pfc(v, l->a, &a), sb = roce_port_pfc(v, l->b, &b);

		/* an end that states no bitmap is roce.pfc_disabled's business */
		if (sa == PFC_UNKNOWN || sa == PFC_NOT_SENT || sb == PFC_UNKNOWN ||
		    sb == PFC_NOT_SENT || a == b)
			continue;
		rbuf_reset(&ctx->tmp);
		roce_prio_list(&ctx->tmp, a);
		rbuf_printf(&ctx->tmp, " and ");
		roce_prio_list(&ctx->tmp, b);
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "pfc_priorities=");
		roce_prio_list(&ctx->ev, a);
		rbuf_printf(&ctx->ev, "; source=%s; peer_pfc_priorities=", pfc_src_names[sa]);
		roce_prio_list(&ctx->ev, b);
		rbuf_printf(&ctx->ev, "; peer_source=%s", pfc_src_names[sb]);
		err = rule_emit_eth(ctx, l->a, l->b, rbuf_str(&ctx->ev),
				    "the ends enable PFC on different priorities (%s)",
				    rbuf_str(&ctx->tmp));
	}
	return err;
}

/* ---- roce.dscp_mapping ---------------------------------------------------------- */

/* Host side of RoCE: an RDMA port on it, or a RoCE interface of a host. */
static bool host_side(const struct roce_view *v, uint32_t port)
{
	const struct fab_eth_port *p = &v->r->eth_ports[port];

	if (p->flags & FAB_ETH_F_STUB)
		return false;
	return carries_rdma(v, port) ||
	       (port_role(v, port) == FAB_ROLE_HOST && roce_port(v, port));
}

/* What is wrong with one table, appended to ctx->tmp; false when nothing. */
static bool app_problems(struct rbuf *b, const struct fab_app_entry *e, uint32_t n,
			 unsigned dscp, unsigned prio)
{
	bool dscp_ok = false, dscp_bad = false, udp_ok = false, udp_bad = false;
	unsigned dscp_to = 0, udp_to = 0;

	for (uint32_t k = 0; k < n; k++) {
		if (e[k].selector == FAB_APP_SEL_DSCP && e[k].protocol == dscp) {
			if (e[k].priority == prio)
				dscp_ok = true;
			else
				dscp_bad = true, dscp_to = e[k].priority;
		} else if (is_udp_roce(&e[k])) {
			if (e[k].priority == prio)
				udp_ok = true;
			else
				udp_bad = true, udp_to = e[k].priority;
		}
	}
	rbuf_reset(b);
	if (dscp_bad)
		rbuf_printf(b, "DSCP %u maps to priority %u, not %u", dscp, dscp_to, prio);
	else if (!dscp_ok)
		rbuf_printf(b, "DSCP %u is not mapped to priority %u", dscp, prio);
	if (udp_bad) {
		rbuf_sep(b, "; ");
		rbuf_printf(b, "UDP %u maps to priority %u, not %u", ROCE_UDP_PORT, udp_to, prio);
	} else if (!udp_ok) {
		rbuf_sep(b, "; ");
		rbuf_printf(b, "no application entry for UDP %u", ROCE_UDP_PORT);
	}
	return b->len > 0;
}

static int app_end(struct fab_rule_ctx *ctx, const struct roce_view *v, uint32_t port,
		   bool need_table, unsigned dscp, unsigned prio)
{
	const char *src = "none";
	uint32_t n;
	const struct fab_app_entry *e = port_apps(v, port, &n, &src);

	if (!e || (!need_table && !strcmp(src, "none")))
		return 0;
	if (!app_problems(&ctx->tmp, e, n, dscp, prio))
		return 0;
	size_t need = fab_app_format(e, n, NULL, 0) + 1;
	char *text = malloc(need);
	if (!text)
		return fab_err(-ENOMEM, "out of memory");
	fab_app_format(e, n, text, need);
	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->ev, "app_entries=%s; source=%s; roce_dscp=%u; roce_priority=%u", text,
		    src, dscp, prio);
	free(text);
	return rule_emit_eth(ctx, port, roce_peer(v, port), rbuf_str(&ctx->ev), "%s",
			     rbuf_str(&ctx->tmp));
}

int check_roce_dscp_mapping(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct roce_view *v = ctx->roce;
	unsigned dscp = (unsigned)rule_param(ctx, 0), prio = roce_priority(ctx);
	bool *faces;
	int err = 0;

	if (!(faces = calloc(r->n_eth_ports + 1, sizeof(*faces))))
		return fab_err(-ENOMEM, "out of memory");
	/* switch ports facing the host side of RoCE */
	for (size_t i = 0; i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];

		if (host_side(v, l->a) && !host_side(v, l->b))
			faces[l->b] = true;
		if (host_side(v, l->b) && !host_side(v, l->a))
			faces[l->a] = true;
	}
	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		if (host_side(v, (uint32_t)i))
			err = app_end(ctx, v, (uint32_t)i, true, dscp, prio);
		else if (faces[i])
			err = app_end(ctx, v, (uint32_t)i, false, dscp, prio);
	}
	free(faces);
	return err;
}

/* ---- roce.mtu_mismatch ----------------------------------------------------------- */

/* A host whose MTU is at most its switch's is the usual set-up (9000 on
 * 9216), not a fault. */
static bool mtu_diff_harmful(const struct roce_view *v, uint32_t a, uint32_t b)
{
	unsigned ra = port_role(v, a), rb = port_role(v, b);
	uint32_t ma = v->r->eth_ports[a].mtu, mb = v->r->eth_ports[b].mtu;

	if (ra == FAB_ROLE_HOST && rb != FAB_ROLE_HOST)
		return ma > mb;
	if (rb == FAB_ROLE_HOST && ra != FAB_ROLE_HOST)
		return mb > ma;
	return true;
}

static int mtu_emit(struct fab_rule_ctx *ctx, const struct roce_view *v, uint32_t port,
		    uint32_t peer, unsigned expect, bool low)
{
	uint32_t m = v->r->eth_ports[port].mtu;
	uint32_t pm = peer == FAB_NONE ? 0 : v->r->eth_ports[peer].mtu;

	rbuf_reset(&ctx->ev);
	rbuf_printf(&ctx->ev, "mtu=%u", m);
	if (peer != FAB_NONE) {
		if (pm)
			rbuf_printf(&ctx->ev, "; peer_mtu=%u", pm);
		else
			rbuf_printf(&ctx->ev, "; peer_mtu=unknown");
	}
	if (expect)
		rbuf_printf(&ctx->ev, "; expected=%u", expect);
	if (low)
		return rule_emit_eth(ctx, port, peer, rbuf_str(&ctx->ev),
				     "MTU %u is below the expected %u", m, expect);
	return rule_emit_eth(ctx, port, peer, rbuf_str(&ctx->ev),
			     "the ends run different MTUs (%u here, %u at the other end)", m, pm);
}

int check_roce_mtu_mismatch(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct roce_view *v = ctx->roce;
	unsigned expect = (unsigned)rule_param(ctx, 0);
	int err = 0;

	for (size_t i = 0; !err && i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];
		uint32_t ma = r->eth_ports[l->a].mtu, mb = r->eth_ports[l->b].mtu;
		bool low_a = ma && ma < expect, low_b = mb && mb < expect;

		if (!roce_link(v, l))
			continue;
		if (low_a || low_b)
			err = low_a ? mtu_emit(ctx, v, l->a, l->b, expect, true)
				    : mtu_emit(ctx, v, l->b, l->a, expect, true);
		else if (ma && mb && ma != mb && mtu_diff_harmful(v, l->a, l->b))
			err = ma < mb ? mtu_emit(ctx, v, l->a, l->b, expect, false)
				      : mtu_emit(ctx, v, l->b, l->a, expect, false);
	}
	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		uint32_t m = r->eth_ports[i].mtu;

		if (m && m < expect && lone_port(v, (uint32_t)i) && roce_port(v, (uint32_t)i))
			err = mtu_emit(ctx, v, (uint32_t)i, FAB_NONE, expect, true);
	}
	return err;
}

/* ---- roce.congestion -------------------------------------------------------------- */

/* One RDMA counter, keyed as the baseline is matched: system name, device,
 * port number, counter name. */
struct ctr_key {
	const char *sys, *dev, *name;
	unsigned port;
	uint64_t value;
	int64_t at_ms; /* when its system was collected; 0 unknown */
};

static int cmp_str0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_ctr_key(const void *x, const void *y)
{
	const struct ctr_key *a = x, *b = y;
	int c = cmp_str0(a->sys, b->sys);

	if (!c)
		c = cmp_str0(a->dev, b->dev);
	if (!c && a->port != b->port)
		c = a->port < b->port ? -1 : 1;
	if (!c)
		c = cmp_str0(a->name, b->name);
	return c;
}

/* The key of counter i of RDMA port pi. */
static struct ctr_key ctr_key_of(const struct fab_roce *r, uint32_t pi, size_t i)
{
	const struct fab_rdma_counter *c = &r->counters[i];
	const struct fab_rdma_port *p = &r->rdma_ports[pi];
	const struct fab_rdma_device *d = &r->devices[p->device_idx];
	const struct fab_roce_system *s = &r->systems[d->system_idx];

	return (struct ctr_key){ .sys = s->name, .dev = d->name, .name = c->name,
				 .port = p->port_num, .value = c->value,
				 .at_ms = s->collected_at_ms };
}

/* Which parameter watches counter `name`; -1 none. */
static int ctr_param(const struct fab_rule *rule, const char *name)
{
	for (size_t k = 0; k < rule->n_params; k++)
		if (!strcmp(rule->params[k].key, name))
			return (int)k;
	return -1;
}

static int congestion_port(struct fab_rule_ctx *ctx, uint32_t rp, const struct ctr_key *base,
			   size_t nb, int64_t fallback_ms)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct fab_rdma_port *p = &r->rdma_ports[rp];
	const struct fab_rdma_device *d = &r->devices[p->device_idx];
	bool any = false;

	rbuf_reset(&ctx->ev);
	rbuf_reset(&ctx->tmp);
	for (uint32_t k = 0; k < p->ctr_count; k++) {
		size_t ci = p->ctr_first + k;
		int pi;
		double lim;

		if (ci >= r->n_counters || (pi = ctr_param(ctx->rule, r->counters[ci].name)) < 0 ||
		    (lim = rule_param(ctx, (size_t)pi)) < 0)
			continue;
		struct ctr_key key = ctr_key_of(r, rp, ci);
		const struct ctr_key *b = bsearch(&key, base, nb, sizeof(*base), cmp_ctr_key);
		bool reset, sat;
		if (!b)
			continue; /* not in the baseline */
		int64_t ms = key.at_ms > 0 && b->at_ms > 0 ? key.at_ms - b->at_ms : fallback_ms;
		if (ms <= 0)
			continue;
		/* the counter model: after a reset, what it counted since (at least) */
		uint64_t inc = fab_counter_grew(b->value, key.value, 64, &reset, &sat);
		double secs = (double)ms / 1000.0, rate = (double)inc / secs;
		if (rate <= lim)
			continue;
		rbuf_sep(&ctx->tmp, ", ");
		rbuf_printf(&ctx->tmp, "%s %.1f/s%s > %g/s", key.name, rate,
			    reset ? " or more (cleared in between)" : "", lim);
		rbuf_sep(&ctx->ev, "; ");
		rbuf_printf(&ctx->ev, "%s=+%llu%s in %.0f s", key.name, (unsigned long long)inc,
			    reset ? "+" : "", secs);
		any = true;
	}
	if (!any)
		return 0;
	if (p->eth_port_idx != FAB_NONE && p->eth_port_idx < r->n_eth_ports)
		return rule_emit_eth(ctx, p->eth_port_idx, FAB_NONE, rbuf_str(&ctx->ev),
				     "RDMA counters rise faster than their limits: %s", rbuf_str(&ctx->tmp));
	char name[96];
	snprintf(name, sizeof(name), "%s/%u", d->name ? d->name : "?", p->port_num);
	return rule_emit_rdma(ctx, p->device_idx, name, rbuf_str(&ctx->ev),
			      "RDMA counters rise faster than their limits: %s", rbuf_str(&ctx->tmp));
}

int check_roce_congestion(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce, *br = ctx->base->roce;
	struct ctr_key *base = malloc((br->n_counters + 1) * sizeof(*base));
	int64_t fallback_ms = ctx->snap->started_at_ms && ctx->base->started_at_ms
				      ? ctx->snap->started_at_ms - ctx->base->started_at_ms
				      : 0;
	int err = 0;

	if (!base)
		return fab_err(-ENOMEM, "out of memory reading the baseline");
	size_t nb = 0;
	for (uint32_t p = 0; p < br->n_rdma_ports; p++) {
		const struct fab_rdma_port *q = &br->rdma_ports[p];
		for (uint32_t k = 0; k < q->ctr_count && q->ctr_first + k < br->n_counters; k++)
			base[nb++] = ctr_key_of(br, p, q->ctr_first + k);
	}
	qsort(base, nb, sizeof(*base), cmp_ctr_key);
	for (size_t i = 0; !err && i < r->n_rdma_ports; i++)
		err = congestion_port(ctx, (uint32_t)i, base, nb, fallback_ms);
	free(base);
	return err;
}
