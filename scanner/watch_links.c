// SPDX-License-Identifier: MIT
/*
 * Link states between full scans (include/fabsweep/watch.h, docs/watch.md
 * "Link events"): which ports of the topology watch reads, and how.
 *
 * Every port the topology has Active with a link is known Active until a
 * read says otherwise. A run reads, by directed route:
 *   - the ports asked for: both ends of every link of a switch a trap
 *     named, or whose LinkDownedCounter sum moved;
 *   - on a sweep, every linked port known not Active (until it is Active
 *     again) and the link probe's slice: one end of each switch-to-switch
 *     link, the one nearer this port, in turn, so that each is read at
 *     least once per probe period.
 * Routes go along the links not known down, breadth first from the local
 * node (a LID route may still cross a link that just went down: the SM
 * reroutes later). A read that gets no answer tells nothing; a link seen
 * going down at one end whose other end was not read is down at both.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "scanner/watch_priv.h"

enum { R_NONE = 0, R_ASKED, R_READ };

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A port with a link in the topology: what watch follows. */
static bool linked(const struct fab_snapshot *t, uint32_t pi)
{
	const struct fab_port *p = &t->ports[pi];

	return p->port_num > 0 && p->state == FAB_STATE_ACTIVE && p->remote_idx < t->n_ports;
}

static bool is_switch_port(const struct fab_snapshot *t, uint32_t pi)
{
	return t->nodes[t->ports[pi].node_idx].type == FAB_NODE_SWITCH;
}

/* Breadth first from the local node over the links whose both ends are
 * known Active: each node's parent port and hops. O(nodes + ports). */
static int routes(struct fab_watch *w, const struct fab_snapshot *t)
{
	uint32_t *queue = malloc((t->n_nodes + 1) * sizeof(*queue));
	size_t head = 0, tail = 0;

	if (!queue)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_nodes; i++) {
		w->nodes[i].via = FAB_NONE;
		w->nodes[i].hops = 0;
		w->nodes[i].reached = false;
	}
	if (w->local != FAB_NONE) {
		w->nodes[w->local].reached = true;
		queue[tail++] = w->local;
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		const struct fab_node *n = &t->nodes[u];

		if (w->nodes[u].hops >= 63)
			continue;
		for (uint32_t k = 0; k < n->port_count; k++) {
			uint32_t pi = n->port_first + k, r;

			if (!linked(t, pi) || w->ports[pi].state != FAB_STATE_ACTIVE)
				continue;
			/* from the local CA, only through the port watch sends from */
			if (u == w->local && n->type != FAB_NODE_SWITCH &&
			    t->ports[pi].port_num != w->m.port)
				continue;
			r = t->ports[pi].remote_idx;
			if (w->ports[r].state != FAB_STATE_ACTIVE)
				continue;
			uint32_t v = t->ports[r].node_idx;
			if (w->nodes[v].reached)
				continue;
			w->nodes[v].reached = true;
			w->nodes[v].via = pi;
			w->nodes[v].hops = (uint8_t)(w->nodes[u].hops + 1);
			queue[tail++] = v;
		}
	}
	free(queue);
	w->paths_stale = false;
	return 0;
}

int wlinks_adopt(struct fab_watch *w, const struct fab_snapshot *t)
{
	int rc;

	free(w->ports);
	free(w->probe);
	w->probe = NULL;
	w->n_probe = w->probe_next = 0;
	w->probe_owed = 0;
	w->probe_base = 0; /* a topology's own sweeps make its cap */
	w->probe_last = mono_ms();
	w->n_ports = 0;
	if (!(w->ports = calloc(t->n_ports + 1, sizeof(*w->ports))))
		return fab_err(-ENOMEM, "out of memory");
	w->n_ports = t->n_ports;
	for (size_t i = 0; i < t->n_ports; i++) {
		w->ports[i].state = t->ports[i].state;
		w->ports[i].phys = t->ports[i].phys_state;
	}
	w->local = FAB_NONE;
	for (uint32_t i = 0; i < t->n_nodes && w->local == FAB_NONE; i++)
		if (t->nodes[i].hops == 0)
			w->local = i;
	if ((rc = routes(w, t)))
		return fab_err(rc, "out of memory");
	if (!(w->probe = malloc((t->n_links + 1) * sizeof(*w->probe))))
		return fab_err(-ENOMEM, "out of memory");
	for (size_t i = 0; i < t->n_links; i++) {
		uint32_t a = t->links[i].a, b = t->links[i].b;
		const struct wnode *na = &w->nodes[t->ports[a].node_idx];
		const struct wnode *nb = &w->nodes[t->ports[b].node_idx];

		if (!is_switch_port(t, a) || !is_switch_port(t, b) || !linked(t, a) || !linked(t, b))
			continue;
		/* the nearer end: its route does not cross the link itself */
		w->probe[w->n_probe++] = !na->reached || (nb->reached && nb->hops < na->hops) ? b : a;
	}
	return 0;
}

void fab_watch_set_link_probe(struct fab_watch *w, int64_t period_ms)
{
	w->probe_ms = period_ms > 0 ? period_ms : 0;
}

void fab_watch_set_link_probe_share(struct fab_watch *w, double share)
{
	w->probe_share = share > 0 ? share : FAB_WATCH_PROBE_SHARE;
}

/* The most links a slice reads: max(1, floor(share x M)); 0: no cap. */
static size_t probe_cap(const struct fab_watch *w)
{
	double c = floor(w->probe_share * (double)w->probe_base + 1e-9);

	if (w->probe_share >= 1.0)
		return 0;
	return c >= 1.0 ? (size_t)c : 1;
}

void fab_watch_link_probe_cost(const struct fab_watch *w, struct fab_watch_probe_cost *out)
{
	*out = (struct fab_watch_probe_cost){ .links = w->n_probe, .period_ms = w->probe_ms,
					      .share = w->probe_share, .base = w->probe_base,
					      .cap = probe_cap(w) };
}

static void want(struct fab_watch *w, uint32_t pi, unsigned cause)
{
	if (pi < w->n_ports && !w->ports[pi].want)
		w->ports[pi].want = (uint8_t)cause;
}

void wlinks_want_switch(struct fab_watch *w, const struct fab_snapshot *t, uint32_t ni,
			unsigned cause)
{
	const struct fab_node *n;

	if (ni >= t->n_nodes || t->n_ports != w->n_ports)
		return;
	n = &t->nodes[ni];
	for (uint32_t k = 0; k < n->port_count; k++) {
		uint32_t pi = n->port_first + k;

		if (!linked(t, pi))
			continue;
		want(w, pi, cause);
		if (is_switch_port(t, t->ports[pi].remote_idx))
			want(w, t->ports[pi].remote_idx, cause);
	}
}

static void ask(struct wsweep *ws, uint32_t pi, unsigned cause)
{
	struct wport *p = &ws->w->ports[pi];

	if (p->read)
		return;
	p->read = R_ASKED;
	wsweep_push(ws, J_LINK, pi, cause);
}

void wlinks_queue(struct wsweep *ws)
{
	struct fab_watch *w = ws->w;
	const struct fab_snapshot *t = ws->t;

	for (uint32_t pi = 0; pi < w->n_ports; pi++) {
		struct wport *p = &w->ports[pi];

		if (p->want) {
			ask(ws, pi, p->want);
			p->want = 0;
		} else if (!ws->react && linked(t, pi) && p->state != FAB_STATE_ACTIVE) {
			ask(ws, pi, FAB_CAUSE_RECHECK);
		}
	}
}

/* The probe's slice of a sweep: the reads owed since the last one, at most
 * the cap (the rest owed still, each link at most once a sweep). */
static void probe_slice(struct wsweep *ws)
{
	struct fab_watch *w = ws->w;
	int64_t now = mono_ms();
	size_t k, cap;
	unsigned long before;

	if (!w->probe_ms || !w->n_probe)
		return;
	w->probe_owed += (double)w->n_probe * (double)(now - w->probe_last) / (double)w->probe_ms;
	w->probe_last = now;
	if (w->probe_owed > (double)w->n_probe)
		w->probe_owed = (double)w->n_probe; /* each at most once a sweep */
	k = (size_t)w->probe_owed;
	cap = probe_cap(w);
	if (cap && k > cap)
		k = cap; /* the cost bound: the rest carries over */
	w->probe_owed -= (double)k;
	before = ws->res->links;
	for (size_t i = 0; i < k; i++) {
		ask(ws, w->probe[w->probe_next], FAB_CAUSE_PROBE);
		w->probe_next = (w->probe_next + 1) % w->n_probe;
	}
	ws->res->probe = ws->res->links - before; /* a port asked already is not read twice */
}

void wlinks_begin(struct wsweep *ws)
{
	ws->w->n_changes = 0;
	if (ws->w->n_ports != ws->t->n_ports)
		return;
	wlinks_queue(ws);
	if (!ws->react)
		probe_slice(ws);
}

void wlinks_route(struct wsweep *ws, uint32_t ni, struct fab_mad_req *req)
{
	const struct fab_snapshot *t = ws->t;
	const struct wnode *wn = ws->w->nodes ? &ws->w->nodes[ni] : NULL;

	req->mkey = fab_mkeys_lookup(ws->w->mkeys, 0, t->nodes[ni].guid);
	if (!wn || !wn->reached) { /* no route along known links: its LID's */
		req->mgmt_class = FAB_MAD_CLASS_SMI;
		req->dlid = t->nodes[ni].lid;
		return;
	}
	req->mgmt_class = FAB_MAD_CLASS_SMI_DR;
	req->dr_hops = wn->hops;
	for (uint32_t x = ni; x != ws->w->local;) {
		uint32_t via = ws->w->nodes[x].via;

		req->dr_path[ws->w->nodes[x].hops] = t->ports[via].port_num;
		x = t->ports[via].node_idx;
	}
}

void wlinks_request(struct wsweep *ws, uint32_t pi, struct fab_mad_req *req)
{
	const struct fab_port *p = &ws->t->ports[pi];

	req->attr_id = IB_ATTR_PORT_INFO;
	req->attr_mod = p->port_num;
	wlinks_route(ws, p->node_idx, req);
}

static struct fab_watch_change *add_change(struct fab_watch *w)
{
	if (w->n_changes == w->cap_changes) {
		size_t cap = w->cap_changes ? w->cap_changes * 2 : 16;
		void *v = realloc(w->changes, cap * sizeof(*w->changes));
		if (!v)
			return NULL;
		w->changes = v;
		w->cap_changes = cap;
	}
	return &w->changes[w->n_changes++];
}

/* Port pi is in state now: a change when it is not what was known. */
static int record(struct fab_watch *w, uint32_t pi, uint8_t state, uint8_t phys, unsigned cause,
		  bool inferred)
{
	struct wport *p = &w->ports[pi];
	struct fab_watch_change *c;

	if (p->state == state) {
		p->phys = phys;
		return 0;
	}
	if (!(c = add_change(w)))
		return -ENOMEM;
	*c = (struct fab_watch_change){ .port_idx = pi, .was = p->state, .state = state,
					.phys_state = phys, .cause = (uint8_t)cause,
					.inferred = inferred, .at_ms = fab_now_ms() };
	if ((p->state == FAB_STATE_ACTIVE) != (state == FAB_STATE_ACTIVE))
		w->paths_stale = true;
	p->state = state;
	p->phys = phys;
	return 1;
}

void wlinks_done(struct wsweep *ws, uint32_t pi, unsigned cause, int err, const uint8_t *d)
{
	int rc;

	if (err || pi >= ws->w->n_ports)
		return; /* no answer along that route: nothing learnt */
	ws->w->ports[pi].read = R_READ;
	rc = record(ws->w, pi, (uint8_t)mad_get_field((void *)d, 0, IB_PORT_STATE_F),
		    (uint8_t)mad_get_field((void *)d, 0, IB_PORT_PHYS_STATE_F), cause, false);
	if (rc < 0 && !ws->err)
		ws->err = rc;
	else if (rc > 0)
		wsweep_counters_of(ws, pi);
}

int wlinks_finish(struct wsweep *ws)
{
	struct fab_watch *w = ws->w;
	const struct fab_snapshot *t = ws->t;
	size_t n = w->n_changes;
	int rc = 0;

	/* the other end of a switch-to-switch link seen going down, not read
	 * in this run (no route to it answered): down too */
	for (size_t i = 0; i < n && rc >= 0; i++) {
		const struct fab_watch_change c = w->changes[i];
		uint32_t r;

		if (c.state == FAB_STATE_ACTIVE || c.inferred || !linked(t, c.port_idx))
			continue;
		r = t->ports[c.port_idx].remote_idx;
		if (is_switch_port(t, r) && w->ports[r].read != R_READ &&
		    w->ports[r].state == FAB_STATE_ACTIVE)
			rc = record(w, r, FAB_STATE_DOWN, FAB_PHYS_UNKNOWN, c.cause, true);
	}
	for (size_t i = 0; i < w->n_ports; i++)
		w->ports[i].read = R_NONE;
	if (rc >= 0 && w->paths_stale)
		rc = routes(w, t);
	ws->res->changes = w->changes;
	ws->res->n_changes = w->n_changes;
	return rc < 0 ? fab_err(-ENOMEM, "out of memory") : 0;
}
