// SPDX-License-Identifier: MIT
/*
 * Counter sweeps of a known topology (include/fabsweep/watch.h,
 * docs/watch.md). One run of the MAD window per sweep:
 *
 *   - per switch, PortCounters with PortSelect 0xFF (AllPortSelect): the
 *     sum over its ports. Where the sum's error counters moved since the
 *     last sweep, or one of them is saturated (a sum that stopped cannot
 *     show a change), or the switch has no sum yet (the first sweep of a
 *     topology) or none at all (AllPortSelect answered with an error), the
 *     PortCounters of each of its active ports are queued;
 *   - per channel adapter port, its own PortCounters at its LID;
 *   - NodeInfo at the LID of every node with a change (before the change is
 *     believed) and at a slice of the LIDs on every sweep;
 *   - for a port whose PortRcvErrors or PortXmitDiscards moved, its
 *     PortRcvErrorDetails or PortXmitDiscardDetails; for one whose
 *     PortXmitWait moved on a data sweep, its PortVLXmitWaitCounters
 *     (docs/counters.md "Detail counters"; a PMA without them is told once
 *     and not asked again).
 *
 * Then one SMInfo of the master SM. Whether counters moved is the counter
 * model's answer (fab_counter_delta), for sums and ports alike.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/probe.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/watch.h"
#include "scanner/scan_priv.h"
#include "scanner/watch_priv.h"

#define ALL_PORTS 0xff
#define DEFAULT_VERIFY_EVERY 16

#define DEFAULT_DATA_EVERY 6

enum { V_NONE = 0, V_QUEUED, V_DONE };

int fab_watch_open(const struct fab_probe_opts *o, const char *source, struct fab_watch **out)
{
	struct fab_watch *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return fab_err(-ENOMEM, "out of memory");
	if ((rc = fab_mport_open(o, source, &w->m))) {
		free(w);
		return rc;
	}
	w->mkeys = o->mkeys;
	w->verify_every = DEFAULT_VERIFY_EVERY;
	w->data_every = DEFAULT_DATA_EVERY;
	w->probe_share = FAB_WATCH_PROBE_SHARE;
	w->topo_id = -1;
	w->local = FAB_NONE;
	if ((rc = wevents_open(w))) {
		fab_watch_close(w);
		return rc;
	}
	*out = w;
	return 0;
}

void fab_watch_close(struct fab_watch *w)
{
	if (!w)
		return;
	fab_mport_close(&w->m);
	wevents_close(w);
	free(w->nodes);
	free(w->ports);
	free(w->probe);
	free(w->changes);
	free(w->down);
	free(w);
}

void fab_watch_set_verify_every(struct fab_watch *w, unsigned n)
{
	w->verify_every = n ? n : 1;
}

void fab_watch_set_data_every(struct fab_watch *w, unsigned n)
{
	w->data_every = n ? n : 1;
}

int fab_watch_set_down(struct fab_watch *w, const uint32_t *ports, size_t n)
{
	uint32_t *d = n ? malloc(n * sizeof(*d)) : NULL;

	if (n && !d)
		return fab_err(-ENOMEM, "out of memory");
	if (n)
		memcpy(d, ports, n * sizeof(*d));
	free(w->down);
	w->down = d;
	w->n_down = n;
	return 0;
}

/* A port whose counters a sweep reads: what the full scan read. */
static bool watched(const struct fab_snapshot *s, const struct fab_port *p)
{
	return p->port_num > 0 && p->state == FAB_STATE_ACTIVE &&
	       !(p->flags & (FAB_F_SMP_FAILED | FAB_F_PMA_FAILED)) &&
	       fab_scan_port_dlid(s, p) != 0;
}

/* Whether any counter of mask moved from a to b (reset included). */
static bool moved(const struct fab_counter_sample *a, const struct fab_counter_sample *b,
		  uint32_t mask)
{
	struct fab_counter_delta d;

	fab_counter_delta(a, b, mask, &d);
	if (d.reset)
		return true;
	for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
		if ((d.valid & (1u << k)) && d.inc[k])
			return true;
	/* a counter present in one of them only */
	return (a->valid ^ b->valid) & mask;
}

static bool any_saturated(const struct fab_counter_sample *c)
{
	for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
		if (fab_counter_is_error(k) && fab_counter_saturated(c, k))
			return true;
	return false;
}

void wsweep_push(struct wsweep *ws, enum wjob k, uint32_t i, unsigned cause)
{
	int rc = fab_jobq_push(&ws->q, COOKIE_CAUSE(k, i, cause));

	if (rc && !ws->err)
		ws->err = rc;
	if (k == J_SUM)
		ws->res->sums++;
	else if (k == J_PC)
		ws->res->ports++;
	else if (k == J_PI || (k == J_LINK && cause == FAB_CAUSE_RECHECK))
		ws->res->probed++;
	else if (k == J_LINK)
		ws->res->links++;
	else
		ws->res->verified++;
}

static void push(struct wsweep *ws, enum wjob k, uint32_t i)
{
	wsweep_push(ws, k, i, 0);
}

void wsweep_changed_topology(struct wsweep *ws, const char *fmt, ...)
{
	va_list ap;

	if (ws->res->topology_changed)
		return; /* the first reason is enough */
	ws->res->topology_changed = true;
	va_start(ap, fmt);
	vsnprintf(ws->res->why, sizeof(ws->res->why), fmt, ap);
	va_end(ap);
}

static void verify(struct wsweep *ws, uint32_t ni)
{
	struct wnode *wn = &ws->w->nodes[ni];

	if (wn->verify == V_NONE && ws->t->nodes[ni].lid) {
		wn->verify = V_QUEUED;
		push(ws, J_NI, ni);
	}
}

static void queue_ports(struct wsweep *ws, uint32_t ni)
{
	const struct fab_node *n = &ws->t->nodes[ni];

	for (uint32_t k = 0; k < n->port_count; k++)
		if (watched(ws->t, &ws->t->ports[n->port_first + k]))
			push(ws, J_PC, n->port_first + k);
}

static unsigned detail_attr(unsigned kind)
{
	return kind == J_RED ? IB_GSI_PORT_RCV_ERROR_DETAILS
	       : kind == J_XDD ? IB_GSI_PORT_XMIT_DISCARD_DETAILS
			       : IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS;
}

static unsigned detail_bit(unsigned kind)
{
	return kind == J_RED ? FAB_PMA_RCV_ERROR_DETAILS
	       : kind == J_XDD ? FAB_PMA_XMIT_DISCARD_DETAILS : FAB_PMA_VL_XMIT_WAIT;
}

/* Whether counter ctr moved from was (NULL: none) to now and is not 0. */
static bool moved_one(const struct fab_counter_sample *was, const struct fab_counter_sample *now,
		      unsigned ctr)
{
	struct fab_counter_delta d;

	if (!(now->valid & (1u << ctr)) || !now->v[ctr])
		return false;
	if (!was)
		return true;
	fab_counter_delta(was, now, 1u << ctr, &d);
	return d.reset || d.inc[ctr] || !(d.valid & (1u << ctr));
}

/* The detail attributes a changed port (candidate ci) calls for. */
static void queue_details(struct wsweep *ws, size_t ci, const struct fab_counter_sample *was)
{
	struct fab_counter_sample *now = &ws->cand[ci];
	struct wnode *wn = &ws->w->nodes[ws->t->ports[now->port_idx].node_idx];
	static const struct {
		enum wjob kind;
		unsigned ctr;
	} want[] = { { J_RED, FAB_CTR_RCV_ERRORS },
		     { J_XDD, FAB_CTR_XMIT_DISCARDS },
		     { J_VLW, FAB_CTR_XMIT_WAIT } };

	unsigned asked = 0; /* at most two MADs a port: the VL waits yield */

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if ((want[i].kind == J_VLW && (!ws->data || asked == 2)) ||
		    !moved_one(was, now, want[i].ctr))
			continue;
		asked++;
		if (wn->unsup & detail_bit(want[i].kind)) {
			now->unsupported |= (uint8_t)detail_bit(want[i].kind);
			continue;
		}
		int rc = fab_jobq_push(&ws->q, COOKIE(want[i].kind, ci));
		if (rc && !ws->err)
			ws->err = rc;
		ws->res->details++;
	}
}

static void done_detail(struct wsweep *ws, unsigned kind, uint32_t ci, int err, const uint8_t *d)
{
	struct fab_counter_sample *now = &ws->cand[ci];

	if (err) { /* no such attribute here: said so, never zeros */
		ws->w->nodes[ws->t->ports[now->port_idx].node_idx].unsup |= (uint8_t)detail_bit(kind);
		now->unsupported |= (uint8_t)detail_bit(kind);
		return;
	}
	fab_scan_decode_details(now, d, detail_attr(kind));
}

static int next(void *ctx, struct fab_mad_req *req)
{
	struct wsweep *ws = ctx;
	uint64_t j;

	if (ws->err)
		return ws->err;
	if (!fab_jobq_pop(&ws->q, &j))
		return 0;
	req->cookie = j;
	req->method = FAB_MAD_GET;
	if (C_KIND(j) == J_NI) {
		const struct fab_node *n = &ws->t->nodes[C_IDX(j)];
		req->mgmt_class = FAB_MAD_CLASS_SMI;
		req->attr_id = IB_ATTR_NODE_INFO;
		req->dlid = n->lid;
		req->mkey = fab_mkeys_lookup(ws->w->mkeys, 0, n->guid);
		return 1;
	}
	if (C_KIND(j) == J_PI || C_KIND(j) == J_LINK) { /* a port's state */
		wlinks_request(ws, C_IDX(j), req);
		return 1;
	}
	if (C_KIND(j) == J_DRNI) { /* its LID did not answer: by directed route */
		req->attr_id = IB_ATTR_NODE_INFO;
		wlinks_route(ws, C_IDX(j), req);
		return 1;
	}
	req->mgmt_class = FAB_MAD_CLASS_PERF;
	req->attr_id = IB_GSI_PORT_COUNTERS;
	if (C_KIND(j) >= J_RED) { /* a changed port's details: C_IDX is its candidate */
		const struct fab_port *p = &ws->t->ports[ws->cand[C_IDX(j)].port_idx];
		req->attr_id = detail_attr(C_KIND(j));
		req->dlid = fab_scan_port_dlid(ws->t, p);
		mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, p->port_num);
		return 1;
	}
	if (C_KIND(j) == J_SUM) {
		req->dlid = ws->t->nodes[C_IDX(j)].lid;
		mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, ALL_PORTS);
	} else {
		const struct fab_port *p = &ws->t->ports[C_IDX(j)];
		req->dlid = fab_scan_port_dlid(ws->t, p);
		mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, p->port_num);
	}
	return 1;
}

const char *wsweep_why(int err)
{
	return err == -ETIMEDOUT ? "did not answer"
	       : err == -EREMOTEIO ? "answered with an error status" : strerror(-err);
}

/*
 * A LID of node ni did not answer (fmt: what the topology change says). A
 * link that just went down leaves LID routes across it until the SM
 * reroutes: the node is asked by directed route along the links known up
 * first, and one that answers there as itself is no topology change (what
 * its LID did not answer waits for the next sweep).
 */
static void lid_silent(struct wsweep *ws, uint32_t ni, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void lid_silent(struct wsweep *ws, uint32_t ni, const char *fmt, ...)
{
	struct wnode *wn = &ws->w->nodes[ni];
	va_list ap;

	if (wn->dr_check)
		return; /* asked already: the first reason stands */
	if (!fab_array_grow((void **)&ws->silent, &ws->n_silent, &ws->cap_silent, sizeof(*ws->silent))) {
		ws->err = -ENOMEM;
		return;
	}
	size_t i = ws->n_silent - 1;
	va_start(ap, fmt);
	vsnprintf(ws->silent[i].why, sizeof(ws->silent[0].why), fmt, ap);
	va_end(ap);
	ws->silent[i].node = ni;
	if (!wn->reached) { /* no route to it along links known up: gone */
		wsweep_changed_topology(ws, "%s", ws->silent[i].why);
		ws->n_silent = i;
		return;
	}
	wn->dr_check = 1;
	push(ws, J_DRNI, ni);
}

static void done_drni(struct wsweep *ws, uint32_t ni, int err, const uint8_t *d)
{
	for (size_t i = 0; i < ws->n_silent; i++) {
		if (ws->silent[i].node != ni)
			continue;
		if (err || mad_get_field64((void *)d, 0, IB_NODE_GUID_F) != ws->t->nodes[ni].guid)
			wsweep_changed_topology(ws, "%s", ws->silent[i].why);
		else
			ws->res->unrouted++;
		return;
	}
}

static void done_sum(struct wsweep *ws, uint32_t ni, int err, const uint8_t *d)
{
	struct wnode *wn = &ws->w->nodes[ni];
	const struct fab_node *n = &ws->t->nodes[ni];
	struct fab_counter_sample now = { 0 };
	char g[FAB_GUID_STRLEN];

	if (err == -EREMOTEIO) { /* no AllPortSelect here: every port, every sweep */
		wn->no_allport = true;
		queue_ports(ws, ni);
		return;
	}
	if (err) {
		fab_guid_format(n->guid, g);
		lid_silent(ws, ni, "switch \"%s\" (%s) at LID %u %s", n->desc, g, n->lid,
			   wsweep_why(err));
		return;
	}
	fab_scan_decode_pc(&now, d, true, true, false);
	/* PortXmitWait counts on a busy fabric: a change only on data sweeps,
	 * against the sum of the data sweep before */
	bool waited = ws->data && now.v[FAB_CTR_XMIT_WAIT] != wn->xmit_wait;
	if (ws->data)
		wn->xmit_wait = now.v[FAB_CTR_XMIT_WAIT];
	if (!wn->have_sum || moved(&wn->sum, &now, fab_counter_error_mask()) || waited ||
	    any_saturated(&now)) {
		unsigned long before = ws->res->ports;

		queue_ports(ws, ni);
		if (!wn->have_sum) /* learning the sum: not what a sweep costs */
			ws->learnt += ws->res->ports - before;
	}
	/* a link of it went down (and maybe up) since the last sweep: its ports'
	 * states now, not at the next probe */
	if (wn->have_sum && now.v[FAB_CTR_LINK_DOWNED] != wn->sum.v[FAB_CTR_LINK_DOWNED]) {
		wlinks_want_switch(ws->w, ws->t, ni, FAB_CAUSE_LINK_DOWNED);
		wlinks_queue(ws);
	}
	wn->sum = now;
	wn->have_sum = true;
}

static void done_pc(struct wsweep *ws, uint32_t pi, int err, const uint8_t *d)
{
	const struct fab_port *p = &ws->t->ports[pi];
	const struct fab_node *n = &ws->t->nodes[p->node_idx];
	const struct fab_counter_sample *was = fab_counter_latest(ws->t, pi);
	struct fab_counter_sample now = { .port_idx = pi };
	char g[FAB_GUID_STRLEN];

	if (err && ws->react)
		return; /* a trap's run: its counters wait for the next sweep */
	if (err) {
		fab_guid_format(n->guid, g);
		if (err == -EREMOTEIO) { /* it answers: the port is there, its counters not */
			int rc = fab_snapshot_add_error(ws->out, n->guid, p->port_num, "pma",
				"\"%s\" (%s) port %u (LID %u): PortCounters answered with an error status",
				n->desc, g, p->port_num, fab_scan_port_dlid(ws->t, p));
			if (rc && !ws->err)
				ws->err = rc;
			return;
		}
		lid_silent(ws, p->node_idx, "\"%s\" (%s) port %u: LID %u %s", n->desc, g, p->port_num,
			   fab_scan_port_dlid(ws->t, p), wsweep_why(err));
		return;
	}
	/* PortXmitWait where the full scan read it (the PMA has it) */
	fab_scan_decode_pc(&now, d, true, !was || (was->valid & (1u << FAB_CTR_XMIT_WAIT)), false);
	now.sampled_at_ms = fab_now_ms();
	if (was && !moved(was, &now, ws->mask))
		return;
	if (ws->n_cand == ws->cap_cand) {
		size_t cap = ws->cap_cand ? ws->cap_cand * 2 : 64;
		void *c = realloc(ws->cand, cap * sizeof(*ws->cand));
		if (!c) {
			ws->err = -ENOMEM;
			return;
		}
		ws->cand = c;
		ws->cap_cand = cap;
	}
	ws->cand[ws->n_cand++] = now;
	if (!ws->react) { /* a trap's run read the node's PortInfo by directed route */
		queue_details(ws, ws->n_cand - 1, was);
		verify(ws, p->node_idx);
	}
}

static void done_ni(struct wsweep *ws, uint32_t ni, int err, const uint8_t *d)
{
	const struct fab_node *n = &ws->t->nodes[ni];
	char g[FAB_GUID_STRLEN], h[FAB_GUID_STRLEN];
	uint64_t guid;

	ws->w->nodes[ni].verify = V_DONE;
	fab_guid_format(n->guid, g);
	if (err) {
		lid_silent(ws, ni, "\"%s\" (%s): LID %u %s to NodeInfo", n->desc, g, n->lid,
			   wsweep_why(err));
		return;
	}
	guid = mad_get_field64((void *)d, 0, IB_NODE_GUID_F);
	if (guid != n->guid) {
		fab_guid_format(guid, h);
		wsweep_changed_topology(ws, "LID %u is %s now, not \"%s\" (%s)", n->lid, h, n->desc, g);
	}
}

static void done_pi(struct wsweep *ws, uint32_t pi, int err, const uint8_t *d)
{
	const struct fab_port *p = &ws->t->ports[pi];
	const struct fab_node *n = &ws->t->nodes[p->node_idx];
	char g[FAB_GUID_STRLEN];

	fab_guid_format(n->guid, g);
	if (err)
		return; /* no route answered: nothing learnt (its switch's sum says whether it is there) */
	if (mad_get_field((void *)d, 0, IB_PORT_STATE_F) == PORT_STATE_ACTIVE)
		wsweep_changed_topology(ws, "\"%s\" (%s) port %u is Active again", n->desc, g,
				 p->port_num);
}

static void done(void *ctx, const struct fab_mad_req *req, int err, const uint8_t *resp)
{
	struct wsweep *ws = ctx;
	const uint8_t *d = resp ? resp + FAB_MAD_DATA_OFFS : NULL;

	if (ws->err)
		return;
	switch (C_KIND(req->cookie)) {
	case J_SUM:
		done_sum(ws, C_IDX(req->cookie), err, d);
		return;
	case J_PC:
		done_pc(ws, C_IDX(req->cookie), err, d);
		return;
	case J_NI:
		done_ni(ws, C_IDX(req->cookie), err, d);
		return;
	case J_PI:
		done_pi(ws, C_IDX(req->cookie), err, d);
		return;
	case J_LINK:
		wlinks_done(ws, C_IDX(req->cookie), C_CAUSE(req->cookie), err, d);
		return;
	case J_DRNI:
		done_drni(ws, C_IDX(req->cookie), err, d);
		return;
	default:
		done_detail(ws, C_KIND(req->cookie), C_IDX(req->cookie), err, d);
		return;
	}
}

/* The sums belong to one topology; a new one starts from none. */
int wsweep_adopt(struct fab_watch *w, const struct fab_snapshot *t)
{
	int64_t id = t->topology_scan_id ? t->topology_scan_id : t->scan_id;

	if (id == w->topo_id && t->n_nodes == w->n_nodes)
		return 0;
	free(w->nodes);
	w->nodes = calloc(t->n_nodes + 1, sizeof(*w->nodes));
	if (!w->nodes) {
		w->n_nodes = 0;
		w->topo_id = -1;
		return fab_err(-ENOMEM, "out of memory");
	}
	w->n_nodes = t->n_nodes;
	w->topo_id = id;
	w->sweeps = 0;
	int rc = wlinks_adopt(w, t);
	if (rc)
		w->topo_id = -1;
	return rc;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The master SM: still there, at the same LID and port. */
static int check_master(struct wsweep *ws)
{
	const struct fab_snapshot *t = ws->t;
	const struct fab_sm *was = NULL;
	struct fab_sm now = { 0 };
	char g[FAB_GUID_STRLEN];
	int rc;

	for (size_t i = 0; i < t->n_sms && !was; i++)
		if (!t->sms[i].failed && t->sms[i].state == 3)
			was = &t->sms[i];
	if (!was || !was->lid)
		return 0; /* none seen: nothing to compare (the full scan said so) */
	fab_guid_format(was->port_guid, g);
	rc = fab_scan_sminfo_one(ws->w->m.mw, was->lid,
				 fab_mkeys_lookup(ws->w->mkeys, was->port_guid, 0), &now);
	ws->res->verified++;
	if (rc == -ENOMEM)
		return fab_err(rc, "out of memory");
	if (rc) {
		wsweep_changed_topology(ws, "the master SM (%s, LID %u) %s to SMInfo", g, was->lid,
				 wsweep_why(rc));
		return 0;
	}
	if (now.port_guid != was->port_guid || now.state != 3) {
		wsweep_changed_topology(ws, "the master SM at LID %u is not %s in state master any more",
				 was->lid, g);
		return 0;
	}
	/* ActCount only grows while an SM runs (OpenSM: its MADs sent): lower
	 * than at the full scan, the SM was restarted between two sweeps and
	 * knows nothing of before (a subscription to its traps among it) */
	if (now.act_count < was->act_count) {
		wsweep_changed_topology(ws, "the master SM (%s, LID %u) restarted: its ActCount went "
				 "back from %u to %u", g, was->lid, was->act_count, now.act_count);
		return 0;
	}
	struct fab_sm *sm = fab_snapshot_add_sm(ws->out);
	if (!sm)
		return fab_err(-ENOMEM, "out of memory");
	*sm = now;
	sm->lid = was->lid;
	sm->port_idx = was->port_idx;
	return 0;
}

/* The run's MADs, then the changes it found (a sweep's: of the nodes that
 * answered NodeInfo as expected; else the topology changed and nothing of
 * the sweep counts). */
static int run(struct wsweep *ws)
{
	struct fab_watch *w = ws->w;
	struct fab_watch_result *res = ws->res;
	struct fab_madwin_stats before = *fab_madwin_stats(w->m.mw);
	double t0 = mono_ms();
	int rc = ws->err;

	if (!rc)
		rc = fab_madwin_run(w->m.mw, next, done, ws);
	if (!rc)
		rc = ws->err;
	if (!rc && !ws->react)
		rc = check_master(ws);
	if (!rc)
		rc = wlinks_finish(ws);
	if (rc) {
		if (rc != -ENOMEM)
			fab_err(rc, "counter sweep through %s/%d failed: %s", w->m.ca, w->m.port,
				strerror(-rc));
		goto out;
	}
	for (size_t i = 0; !res->topology_changed && i < ws->n_cand; i++) {
		struct fab_counter_sample *c = fab_snapshot_add_sample(ws->out);
		if (!c) {
			rc = fab_err(-ENOMEM, "out of memory");
			goto out;
		}
		*c = ws->cand[i];
		res->changed++;
	}
	res->ms = mono_ms() - t0;
out:;
	const struct fab_madwin_stats *ms = fab_madwin_stats(w->m.mw);
	res->mads = ms->sent - before.sent;
	res->failed = ms->failed - before.failed;
	/* the link probe's cap: a steady sweep's counter MADs, the fewest of
	 * this topology's sweeps (one with changes reads more, and would move
	 * the cap and the period with them), without its port states (the
	 * probe's slice, the ports known down read again) nor a first sweep's
	 * reads of every switch port */
	unsigned long other = res->links + res->probed + ws->learnt;
	if (!rc && !ws->react && !res->topology_changed && res->mads > other &&
	    (!w->probe_base || res->mads - other < w->probe_base))
		w->probe_base = res->mads - other;
	if (res->topology_changed)
		w->topo_id = -1; /* the next topology starts afresh */
	fab_jobq_free(&ws->q);
	free(ws->cand);
	free(ws->silent);
	return rc;
}

int fab_watch_sweep(struct fab_watch *w, const struct fab_snapshot *t, struct fab_snapshot *out,
		    struct fab_watch_result *res)
{
	struct wsweep ws = { .w = w, .t = t, .out = out, .res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	if ((rc = wsweep_adopt(w, t)))
		return rc;
	unsigned slice = (unsigned)(w->sweeps % w->verify_every);
	ws.data = w->sweeps % w->data_every == 0;
	ws.mask = fab_counter_error_mask() | (ws.data ? 1u << FAB_CTR_XMIT_WAIT : 0);
	res->data = ws.data;
	w->sweeps++;
	for (size_t i = 0; i < w->n_down; i++)
		if (w->down[i] < t->n_ports)
			push(&ws, J_PI, w->down[i]);
	wlinks_begin(&ws);
	for (uint32_t ni = 0; ni < t->n_nodes; ni++) {
		const struct fab_node *n = &t->nodes[ni];
		struct wnode *wn = &w->nodes[ni];
		bool any = false;

		wn->verify = V_NONE;
		wn->dr_check = 0;
		if (n->flags & (FAB_F_SMP_FAILED | FAB_F_PMA_FAILED))
			continue;
		for (uint32_t k = 0; k < n->port_count && !any; k++)
			any = watched(t, &t->ports[n->port_first + k]);
		if (!any)
			continue;
		if (ni % w->verify_every == slice)
			verify(&ws, ni);
		if (n->type != FAB_NODE_SWITCH)
			queue_ports(&ws, ni);
		else if (wn->no_allport)
			queue_ports(&ws, ni);
		else
			push(&ws, J_SUM, ni);
	}
	return run(&ws);
}

int fab_watch_react(struct fab_watch *w, const struct fab_snapshot *t, struct fab_snapshot *out,
		    struct fab_watch_result *res)
{
	struct wsweep ws = { .w = w, .t = t, .out = out, .res = res, .react = true };
	int rc;

	memset(res, 0, sizeof(*res));
	if ((rc = wsweep_adopt(w, t)))
		return rc;
	ws.mask = fab_counter_error_mask();
	wlinks_begin(&ws);
	return run(&ws);
}

int fab_watch_want_switch(struct fab_watch *w, const struct fab_snapshot *t, uint32_t ni)
{
	int rc = wsweep_adopt(w, t);

	if (!rc)
		wlinks_want_switch(w, t, ni, FAB_CAUSE_TRAP);
	return rc;
}

/* A port whose state changed, in a trap's run: its counters now (the
 * counter rules judge them). */
void wsweep_counters_of(struct wsweep *ws, uint32_t pi)
{
	if (ws->react && watched(ws->t, &ws->t->ports[pi]))
		push(ws, J_PC, pi);
}
