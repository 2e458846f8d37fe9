// SPDX-License-Identifier: MIT
/*
 * Readiness of the routes between a job's hosts (include/fabsweep/probe.h):
 * the switch-to-switch links (hops) the latest sweep's forwarding tables
 * send the hosts' traffic over, probed live like the hosts' own links.
 * Pure: the probe runs in between (pipeline/ready.c).
 *
 * Per destination, never per pair: one walk of the tables toward each
 * LID of each host's range (LMC, fab_route_dests; core/route_walk.c)
 * gives every switch's next step; each
 * source host then follows the steps from the switch its port is cabled
 * to (a path is a handful of links).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/probe.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

/* The port a host's routes start and end at: its first Active cabled CA
 * port with a LID. */
static int host_ports(const struct fab_ready *r, const struct fab_snapshot *v, uint32_t *out)
{
	for (size_t i = 0; i < r->n_hosts; i++)
		out[i] = FAB_NONE;
	for (size_t i = 0; i < v->n_ports; i++) {
		const struct fab_port *p = &v->ports[i];
		uint32_t host = p->node_idx < r->n_nodes ? r->ca_of[p->node_idx] : 0;

		if (host && out[host - 1] == FAB_NONE && p->port_num && p->lid &&
		    p->state == FAB_STATE_ACTIVE && p->remote_idx != FAB_NONE)
			out[host - 1] = (uint32_t)i;
	}
	return 0;
}

/*
 * Follows the walk toward its destination from port src's first switch:
 * calls step(ctx, egress port) for every switch-to-switch link on the way;
 * returns the fault (FAB_ROUTE_OK when it arrives) and *at where it breaks.
 */
static unsigned follow(const struct fab_route_index *ix, const struct fab_route_walk *w,
		       uint32_t src, int (*step)(void *, uint32_t), void *ctx, uint32_t *at, int *err)
{
	uint32_t sw = fab_route_first_switch(ix, src);

	*at = FAB_NONE;
	if (sw == FAB_NONE)
		return FAB_ROUTE_UNKNOWN;
	for (unsigned n = 0; n <= FAB_ROUTE_MAX_HOPS; n++) {
		if (w->fault[sw] != FAB_ROUTE_OK) {
			*at = w->at[sw];
			return w->fault[sw];
		}
		if (w->next[sw] == FAB_NONE)
			return FAB_ROUTE_OK; /* the switch delivers to the destination */
		if ((*err = step(ctx, w->out[sw])))
			return FAB_ROUTE_OK;
		sw = w->next[sw];
	}
	return FAB_ROUTE_TOO_LONG;
}

struct plan_ctx {
	struct fab_ready_hops *h;
	struct fab_ready *r;
	const struct fab_snapshot *v;
	size_t cap;
};

static int plan_step(void *c_, uint32_t port)
{
	struct plan_ctx *c = c_;
	struct fab_ready_hops *h = c->h;

	if (h->hop_of[port] != FAB_NONE)
		return 0;
	if (h->n_hops == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 32;
		struct fab_ready_hop *p = realloc(h->hops, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		h->hops = p;
		c->cap = nc;
	}
	uint32_t peer = c->v->ports[port].remote_idx;
	h->hop_of[port] = (uint32_t)h->n_hops;
	h->hops[h->n_hops++] = (struct fab_ready_hop){ .port = port, .peer = peer };
	fab_ready_plan_add(c->r, port);
	if (peer != FAB_NONE)
		fab_ready_plan_add(c->r, peer);
	return 0;
}

/* Runs fn over every ordered pair's route: fn(ctx, src host, dst host,
 * fault, at, walk, ix). */
typedef int (*pair_fn)(void *ctx, size_t s, size_t d, const struct fab_route_index *ix,
		       const struct fab_route_walk *w);

static int each_route(const uint32_t *host_port, size_t n_hosts, const struct fab_snapshot *v,
		      pair_fn fn, void *ctx)
{
	struct fab_route_index ix = { 0 };
	struct fab_route_walk w = { 0 };
	int err;

	if (n_hosts < 2) /* no pair: no index to build */
		return 0;
	if ((err = fab_route_index_build(v, &ix)) || (err = fab_route_walk_init(&ix, &w)))
		goto out;
	/* every LID of each host port's range: a job's traffic may use any */
	struct fab_route_dests ds;
	fab_route_dests_start(&ds, v, host_port, n_hosts);
	while (!err && fab_route_dests_next(&ds)) {
		size_t d = ds.idx;

		fab_route_walk_to(&ix, &w, ds.lid);
		for (size_t s = 0; s < n_hosts && !err; s++)
			if (s != d && host_port[s] != FAB_NONE)
				err = fn(ctx, s, d, &ix, &w);
	}
out:
	fab_route_walk_fini(&w);
	fab_route_index_free(&ix);
	return err;
}

static int plan_pair(void *c_, size_t s, size_t d, const struct fab_route_index *ix,
		     const struct fab_route_walk *w)
{
	struct plan_ctx *c = c_;
	uint32_t at;
	int err = 0;

	(void)d;
	follow(ix, w, c->h->host_port[s], plan_step, c, &at, &err);
	return err;
}

int fab_ready_hops_plan(struct fab_ready *r, const struct fab_snapshot *v,
			struct fab_ready_hops *out)
{
	struct plan_ctx c = { .h = out, .r = r, .v = v };
	int err;

	memset(out, 0, sizeof(*out));
	if (r->n_hosts < 2) { /* one host (a prolog's node scope): no route to judge, nothing to say */
		out->judged = true;
		return 0;
	}
	out->n_hosts = r->n_hosts;
	out->hop_of = malloc((v->n_ports + 1) * sizeof(*out->hop_of));
	out->host_port = malloc((r->n_hosts + 1) * sizeof(*out->host_port));
	if (!out->hop_of || !out->host_port) {
		fab_ready_hops_free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < v->n_ports; i++)
		out->hop_of[i] = FAB_NONE;
	host_ports(r, v, out->host_port);
	size_t cabled = 0;
	for (size_t i = 0; i < r->n_hosts; i++)
		cabled += out->host_port[i] != FAB_NONE;
	/* The view holds tables only of the switches cabled to the hosts: with
	 * fewer than two hosts cabled there is no route, tables or not. */
	if (cabled < 2 || !fab_routing_present(v)) {
		out->note = cabled < 2 ? "fewer than two of the hosts have an active, cabled port: "
					 "there is no route between them to check"
				       : "the sweep has no forwarding tables (scan --no-routes, or a scan "
					 "before they were read): the hops between the hosts were not checked";
		fab_ready_hops_free(out);
		out->n_hosts = 0;
		return 0;
	}
	out->judged = true;
	if ((err = each_route(out->host_port, out->n_hosts, v, plan_pair, &c)))
		fab_ready_hops_free(out);
	return err;
}

/* ---- growing the view along the routes -------------------------------------- */

struct guid_set {
	uint64_t *v;
	size_t n, cap;
};

static int guid_add(struct guid_set *g, uint64_t guid)
{
	if (g->n == g->cap) {
		size_t nc = g->cap ? 2 * g->cap : 32;
		uint64_t *p = realloc(g->v, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		g->v = p;
		g->cap = nc;
	}
	g->v[g->n++] = guid;
	return 0;
}

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Where the walk toward its destination stops for lack of the view: a
 * switch without its table (its GUID), or a port whose far end the view
 * does not hold (that end's GUID); 0 when the route ends for another
 * reason or arrives. */
static uint64_t stops_at(const struct fab_route_index *ix, const struct fab_route_walk *w,
			 uint32_t sw)
{
	const struct fab_snapshot *v = ix->snap;

	for (unsigned n = 0; sw != FAB_NONE && n <= FAB_ROUTE_MAX_HOPS; n++) {
		if (w->next[sw] != FAB_NONE) {
			sw = w->next[sw];
			continue;
		}
		if (w->fault[sw] != FAB_ROUTE_UNKNOWN)
			return 0;
		if (!fab_routing_lft(v, ix->sw_node[sw]))
			return v->nodes[ix->sw_node[sw]].guid;
		if (w->out[sw] != FAB_NONE && v->ports[w->out[sw]].remote_idx == FAB_NONE)
			return v->ports[w->out[sw]].remote_guid;
		return 0;
	}
	return 0;
}

struct missing_ctx {
	const uint32_t *host_port;
	struct guid_set g;
};

static int missing_pair(void *c_, size_t s, size_t d, const struct fab_route_index *ix,
			const struct fab_route_walk *w)
{
	struct missing_ctx *c = c_;
	uint64_t guid = stops_at(ix, w, fab_route_first_switch(ix, c->host_port[s]));

	(void)d;
	return guid ? guid_add(&c->g, guid) : 0;
}

int fab_ready_hops_missing(const struct fab_ready *r, const struct fab_snapshot *v,
			   const uint64_t *have, size_t n_have, uint64_t **out, size_t *n_out)
{
	uint32_t *hp = malloc((r->n_hosts + 1) * sizeof(*hp));
	uint64_t *sorted = malloc((n_have + 1) * sizeof(*sorted));
	struct missing_ctx c = { .host_port = hp };
	struct guid_set *g = &c.g;
	int err = -ENOMEM;

	*out = NULL;
	*n_out = 0;
	if (!hp || !sorted)
		goto out;
	host_ports(r, v, hp);
	/* every LID of each range, as the hops are judged (each_route) */
	err = each_route(hp, r->n_hosts, v, missing_pair, &c);
	if (err)
		goto out;
	/* each GUID once, none asked for before */
	if (n_have) {
		memcpy(sorted, have, n_have * sizeof(*sorted));
		qsort(sorted, n_have, sizeof(*sorted), cmp_guid);
	}
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), cmp_guid);
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++)
		if ((!k || g->v[k - 1] != g->v[i]) &&
		    !bsearch(&g->v[i], sorted, n_have, sizeof(*sorted), cmp_guid))
			g->v[k++] = g->v[i];
	*out = g->v;
	*n_out = k;
	g->v = NULL;
out:
	free(g->v);
	free(hp);
	free(sorted);
	return err;
}

/* ---- judging ---------------------------------------------------------------- */

static const char *label(const struct fab_snapshot *v, const struct fab_nodemap *map,
			 uint32_t port, char *buf, size_t len)
{
	const struct fab_port *p = &v->ports[port];
	char nb[FAB_NODE_NAME_CAP];

	snprintf(buf, len, "%s/%u", fab_node_name(v, p->node_idx, map, nb, sizeof(nb)),
		 p->port_num);
	return buf;
}

static void say(struct fab_ready_hop *hop, uint8_t verdict, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct fab_ready_hop *hop, uint8_t verdict, const char *fmt, ...)
{
	va_list ap;

	if (hop->text)
		return; /* the first reason stands */
	va_start(ap, fmt);
	if (vasprintf(&hop->text, fmt, ap) < 0)
		hop->text = NULL;
	va_end(ap);
	hop->verdict = verdict;
}

/* Counters of one end against the sweep: the first counter past its limit. */
static void hop_counters(struct fab_ready_hop *hop, const struct fab_snapshot *v,
			 const struct fab_probe_port *t, const struct fab_counter_limits *limits,
			 const char *link, const char *name)
{
	const struct fab_counter_sample *old = fab_counter_latest(v, t->port_idx);
	struct fab_counter_delta d;
	char amount[32];

	if (t->ctr_err || !old)
		return;
	fab_counter_delta(old, &t->ctr, FAB_CTR_MASK_ALL, &d);
	for (unsigned k = 0; k < FAB_CTR__COUNT; k++) {
		if (!fab_counter_over(&d, k, limits->allowed[k]))
			continue;
		fab_counter_amount(d.inc[k], d.at_least & (1u << k), amount, sizeof(amount));
		say(hop, FAB_READY_NOT_READY, "%s: error counters rose at %s: %s +%s since scan %lld",
		    link, name, fab_counter_name(k), amount, (long long)v->scan_id);
		return;
	}
}

static void judge_hop(struct fab_ready_hop *hop, const struct fab_ready *r,
		      const struct fab_snapshot *v, const struct fab_nodemap *map,
		      const struct fab_counter_limits *limits)
{
	char a[300], b[300];
	const struct fab_probe_port *t[2] = { NULL, NULL };
	uint32_t ends[2] = { hop->port, hop->peer };

	label(v, map, hop->port, a, sizeof(a));
	if (hop->peer == FAB_NONE) {
		say(hop, FAB_READY_NOT_READY, "%s leads nowhere in the sweep", a);
		return;
	}
	label(v, map, hop->peer, b, sizeof(b));
	for (int k = 0; k < 2; k++)
		if (r->target_of[ends[k]] != FAB_NONE)
			t[k] = &r->ports[r->target_of[ends[k]]];
	if (!t[0] || !t[1])
		return;
	for (int k = 0; k < 2; k++) {
		const struct fab_node *n = &v->nodes[v->ports[ends[k]].node_idx];
		if (!t[k]->node_err && t[k]->node_guid != n->guid) {
			say(hop, FAB_READY_UNKNOWN, "LID %u answers as another node than %s: the LIDs "
			    "changed since scan %lld", t[k]->lid, k ? b : a, (long long)v->scan_id);
			return;
		}
	}
	if (t[0]->info_err && t[1]->info_err) {
		say(hop, FAB_READY_NOT_READY, "neither end of %s <-> %s answered", a, b);
		return;
	}
	for (int k = 0; k < 2; k++)
		if (!t[k]->info_err && t[k]->live.state != FAB_STATE_ACTIVE) {
			const char *st = fab_state_name(t[k]->live.state);
			say(hop, FAB_READY_NOT_READY, "%s <-> %s is %s at %s", a, b, st ? st : "unknown",
			    k ? b : a);
			return;
		}
	const struct fab_probe_port *live = t[0]->info_err ? t[1] : t[0];
	const struct fab_port *was = &v->ports[live->port_idx];
	if (fab_width_rank(live->live.width_active) < fab_width_rank(was->width_active)) {
		const char *now = fab_width_name(live->live.width_active), *then = fab_width_name(was->width_active);
		say(hop, FAB_READY_NOT_READY, "%s <-> %s runs %s (%s at scan %lld)", a, b,
		    now ? now : "?", then ? then : "?", (long long)v->scan_id);
		return;
	}
	if (fab_speed_rank(live->live.speed_active) < fab_speed_rank(was->speed_active)) {
		const char *now = fab_speed_name(live->live.speed_active), *then = fab_speed_name(was->speed_active);
		say(hop, FAB_READY_NOT_READY, "%s <-> %s runs at %s (%s at scan %lld)", a, b,
		    now ? now : "?", then ? then : "?", (long long)v->scan_id);
		return;
	}
	char link[620];
	snprintf(link, sizeof(link), "%s <-> %s", a, b);
	hop_counters(hop, v, t[0], limits, link, a);
	hop_counters(hop, v, t[1], limits, link, b);
}

struct judge_ctx {
	struct fab_ready_hops *h;
	struct fab_ready *r;
	struct fab_ready_pairs *pairs;
	uint32_t bad; /* the first bad hop met on the route being followed */
	size_t *added; /* per source host: 1 + the destination host it was added with */
};

static int judge_step(void *c_, uint32_t port)
{
	struct judge_ctx *c = c_;
	uint32_t k = c->h->hop_of[port];

	if (c->bad == FAB_NONE && k != FAB_NONE && c->h->hops[k].verdict == FAB_READY_NOT_READY)
		c->bad = k;
	return 0;
}

static int judge_pair(void *c_, size_t s, size_t d, const struct fab_route_index *ix,
		      const struct fab_route_walk *w)
{
	struct judge_ctx *c = c_;
	uint32_t at;
	int err = 0;
	unsigned fault;

	c->bad = FAB_NONE;
	fault = follow(ix, w, c->h->host_port[s], judge_step, c, &at, &err);
	if (err || fault == FAB_ROUTE_UNKNOWN || (fault == FAB_ROUTE_OK && c->bad == FAB_NONE) ||
	    c->added[s] == d + 1) /* a pair once, at its first bad LID (LMC > 0) */
		return err;
	c->added[s] = d + 1;
	struct fab_ready_pair x = { .a = (uint32_t)s, .b = (uint32_t)d,
				    .verdict = FAB_READY_NOT_READY,
				    .fault = (uint8_t)(fault == FAB_ROUTE_OK ? 0 : fault),
				    .hop = fault == FAB_ROUTE_OK ? c->bad : FAB_NONE, .at = at };
	c->r->verdict[s] = c->r->verdict[d] = FAB_READY_NOT_READY;
	return fab_ready_pairs_add(c->pairs, &x);
}

int fab_ready_hops_judge(struct fab_ready_hops *h, struct fab_ready *r,
			 const struct fab_snapshot *v, const struct fab_nodemap *map,
			 const struct fab_counter_limits *limits, struct fab_ready_pairs *pairs)
{
	struct judge_ctx c = { .h = h, .r = r, .pairs = pairs };
	int err;

	if (!h->judged)
		return 0;
	if (!(c.added = calloc(h->n_hosts + 1, sizeof(*c.added))))
		return -ENOMEM;
	h->n_bad = 0;
	for (size_t i = 0; i < h->n_hops; i++) {
		judge_hop(&h->hops[i], r, v, map, limits);
		h->n_bad += h->hops[i].verdict != FAB_READY_OK;
	}
	err = each_route(h->host_port, h->n_hosts, v, judge_pair, &c);
	free(c.added);
	return err;
}

void fab_ready_hops_free(struct fab_ready_hops *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_hops; i++)
		free(h->hops[i].text);
	free(h->hops);
	free(h->hop_of);
	free(h->host_port);
	h->hops = NULL;
	h->hop_of = h->host_port = NULL;
	h->n_hops = 0;
}
