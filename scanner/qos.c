// SPDX-License-Identifier: MIT
/*
 * VL and QoS tables (include/fabsweep/qos.h; docs/scan.md "VL and QoS
 * tables"): where a QoS policy is in use, every SLtoVLMappingTable (0x17)
 * and every VLArbitrationTable (0x18) of the cabled CA ports and switch
 * external ports, into snap->routing->sl2vl and snap->qos.
 *
 * Whether a policy is in use costs one SMP: an SL2VL table of the switch
 * the scanning CA port is cabled to (in: the port facing us, out: its
 * first other cabled port; the CA port's own table without a switch). When
 * it is a default (fab_sl2vl_is_default: what OpenSM leaves without -Q)
 * nothing more is read and the scan has no snap->qos: a default scan sends
 * no VLArbitration MAD. A policy for CA ports only is not seen this way
 * (nor one that changes only the arbitration tables): --forensic reads
 * them. With fab_scan_opts.all_qos (--forensic) every table is read
 * whatever the sample says.
 *
 * What is read: a CA port's SL2VL table (one MAD, attribute modifier 0:
 * the port the SMP arrives at, through its switch as the P_Key tables
 * are) and a switch's for every (in, out) with in port 0 or a cabled
 * external port and out another cabled external port (modifier in << 8 |
 * out), skipping those a credit loop's reading fetched already; each such
 * port's VLArbitrationTable blocks (modifier block << 16 | port: 1 low
 * 0-31, 2 low 32-63, 3 high 0-31, 4 high 32-63) as far as its PortInfo's
 * VLArbitrationLowCap and HighCap reach. At most PER_NODE in flight to one
 * node, round-robin over the nodes (a CA port is a node of its own here).
 * What does not answer is left out and named in scan_errors ("qos"), one
 * row per node; after a timeout the rest of that node is not asked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/qos.h"
#include "fabsweep/routing.h"
#include "scanner/scan_priv.h"

#define PER_NODE 4

enum { J_SL2VL = 1, J_VLARB };

struct qjob {
	uint32_t q;      /* its node (index in qscan.q) */
	uint8_t kind;    /* J_* */
	uint8_t a, b;    /* SL2VL: in, out; VLARB: port, block 1..4 */
	uint32_t vlarb;  /* VLARB: the table it fills (index in qos->vlarb) */
};

struct qnode {
	uint32_t node;          /* snap node index */
	uint8_t port;           /* a CA port's number; 0 for a switch */
	struct fab_mad_req route;
	size_t first, end, next; /* its jobs */
	uint16_t in_flight;
	bool dead;
	uint32_t n_failed;
	int first_err;
	uint8_t fail_kind, fail_a, fail_b;
};

struct qscan {
	struct fab_snapshot *s;
	const struct wt *w;
	const struct fab_scan_opts *o;
	struct fab_routing *r;
	struct fab_qos *k;
	struct qjob *job;
	size_t n_job, cap_job;
	struct qnode *q;
	size_t n_q;
	uint32_t *active; /* nodes with jobs left to send */
	size_t n_active, rr;
	uint8_t *failed;  /* per vlarb table: a block did not answer */
	unsigned long done;
	int err;
};

static int add_job(struct qscan *c, struct qjob j)
{
	struct qjob *x = fab_array_grow((void **)&c->job, &c->n_job, &c->cap_job, sizeof(*c->job));

	if (!x)
		return -ENOMEM;
	*x = j;
	return 0;
}

static int next(void *ctx, struct fab_mad_req *req)
{
	struct qscan *c = ctx;

	if (c->err)
		return c->err;
	for (size_t tries = c->n_active; tries && c->n_active; tries--) {
		if (c->rr >= c->n_active)
			c->rr = 0;
		struct qnode *x = &c->q[c->active[c->rr]];

		if (x->next >= x->end) { /* done sending: out of the turn */
			c->active[c->rr] = c->active[--c->n_active];
			continue;
		}
		c->rr++;
		if (x->in_flight >= PER_NODE)
			continue;
		const struct qjob *j = &c->job[x->next];

		*req = x->route;
		if (j->kind == J_SL2VL) {
			req->attr_id = IB_ATTR_SLVL_TABLE;
			req->attr_mod = x->port ? 0 : (uint32_t)j->a << 8 | j->b;
		} else {
			req->attr_id = IB_ATTR_VL_ARBITRATION;
			req->attr_mod = (uint32_t)j->b << 16 | (x->port ? 0 : j->a);
		}
		req->cookie = x->next++;
		x->in_flight++;
		return 1;
	}
	return 0;
}

static void fill_sl2vl(struct qscan *c, const struct qnode *x, const struct qjob *j, const uint8_t *d)
{
	struct fab_sl2vl *t = fab_routing_add_sl2vl(c->r);

	if (!t) {
		c->err = -ENOMEM;
		return;
	}
	t->node_idx = x->node;
	t->in = x->port ? 0 : j->a;
	t->out = x->port ? x->port : j->b;
	for (unsigned sl = 0; sl < FAB_N_SL; sl++)
		t->vl[sl] = sl % 2 ? d[sl / 2] & 0xf : d[sl / 2] >> 4;
}

static void fill_vlarb(struct qscan *c, const struct qjob *j, const uint8_t *d)
{
	struct fab_vlarb *v = &c->k->vlarb[j->vlarb];
	bool high = j->b > 2;
	unsigned base = j->b % 2 ? 0 : FAB_VLARB_BLOCK, n = high ? v->n_high : v->n_low;
	struct fab_vlarb_entry *e = high ? v->high : v->low;

	/* entry i: VL in the low nibble of byte 2i, weight in byte 2i + 1 */
	for (unsigned i = 0; i < FAB_VLARB_BLOCK && base + i < n; i++)
		e[base + i] = (struct fab_vlarb_entry){ .vl = d[2 * i] & 0xf, .weight = d[2 * i + 1] };
}

static void done(void *ctx, const struct fab_mad_req *req, int err, const uint8_t *resp)
{
	struct qscan *c = ctx;
	const struct qjob *j = &c->job[req->cookie];
	struct qnode *x = &c->q[j->q];

	x->in_flight--;
	c->done++;
	if (!err) {
		if (j->kind == J_SL2VL)
			fill_sl2vl(c, x, j, resp + FAB_MAD_DATA_OFFS);
		else
			fill_vlarb(c, j, resp + FAB_MAD_DATA_OFFS);
		return;
	}
	if (j->kind == J_VLARB)
		c->failed[j->vlarb] = 1;
	if (!x->n_failed++) {
		x->first_err = err;
		x->fail_kind = j->kind;
		x->fail_a = j->a;
		x->fail_b = j->b;
	}
	if (err == -ETIMEDOUT && !x->dead) { /* the rest is not asked */
		x->dead = true;
		for (size_t i = x->next; i < x->end; i++)
			if (c->job[i].kind == J_VLARB)
				c->failed[c->job[i].vlarb] = 1;
		x->n_failed += (uint32_t)(x->end - x->next);
		c->done += x->end - x->next;
		x->next = x->end;
	}
}

static void report(struct qscan *c)
{
	char who[FAB_SCAN_LABEL_CAP], what[64];

	for (size_t i = 0; i < c->n_q && !c->err; i++) {
		const struct qnode *x = &c->q[i];
		const struct fab_node *n = &c->s->nodes[x->node];

		if (!x->n_failed)
			continue;
		if (x->fail_kind == J_SL2VL)
			snprintf(what, sizeof(what), "SLtoVLMappingTable in %u out %u", x->port ? 0 : x->fail_a,
				 x->port ? x->port : x->fail_b);
		else
			snprintf(what, sizeof(what), "VLArbitrationTable block %u of port %u", x->fail_b,
				 x->port ? x->port : x->fail_a);
		c->err = fab_snapshot_add_error(
			c->s, n->guid, x->port ? x->port : -1, "qos",
			"%s%s%.0u: %u of its %zu VL tables not read (the first, %s, %s%s): its VL rules "
			"judge the rest", fab_scan_node_label(n, who, sizeof(who)), x->port ? " port " : "",
			x->port, x->n_failed, x->end - x->first, what,
			x->first_err == -ETIMEDOUT ? "got no answer after retries"
			: x->first_err == -EREMOTEIO ? "was answered with an error status" : "failed",
			x->dead ? ", and the rest was not asked" : "");
	}
}

/* A cabled external port of a CA or switch whose PortInfo was read. */
static bool cabled(const struct fab_snapshot *s, const struct fab_port *p)
{
	return p->port_num && !(p->flags & FAB_F_SMP_FAILED) && p->remote_idx != FAB_NONE &&
	       (p->state >= FAB_STATE_INIT || p->phys_state == FAB_PHYS_LINKUP) &&
	       s->nodes[p->node_idx].type != FAB_NODE_ROUTER;
}

/* The VLArbitrationTable blocks of port p, as jobs of node q. */
static int vlarb_jobs(struct qscan *c, uint32_t q, uint32_t pi)
{
	const struct fab_port *p = &c->s->ports[pi];
	unsigned low = p->vlarb_low_cap, high = p->vlarb_high_cap;
	struct fab_vlarb *v;

	if (low > FAB_VLARB_MAX)
		low = FAB_VLARB_MAX;
	if (high > FAB_VLARB_MAX)
		high = FAB_VLARB_MAX;
	if (!low && !high)
		return 0; /* no tables: nothing to arbitrate by (one VL) */
	if (!(v = fab_qos_add_vlarb(c->k)))
		return -ENOMEM;
	v->port_idx = pi;
	v->n_low = (uint8_t)low;
	v->n_high = (uint8_t)high;
	uint32_t vi = (uint32_t)(c->k->n_vlarb - 1);
	for (unsigned b = 1; b <= 4; b++) {
		unsigned n = b > 2 ? high : low, base = b % 2 ? 0 : FAB_VLARB_BLOCK;
		if (n > base && add_job(c, (struct qjob){ .q = q, .kind = J_VLARB, .a = p->port_num,
							 .b = (uint8_t)b, .vlarb = vi }))
			return -ENOMEM;
	}
	return 0;
}

/* A node of the reading; its route. 0, or 1 when it cannot be asked. */
static int add_node(struct qscan *c, uint32_t node, const struct fab_port *p)
{
	struct qnode *x = &c->q[c->n_q];
	const struct fab_node *n = &c->s->nodes[node];

	*x = (struct qnode){ .node = node, .port = n->type == FAB_NODE_SWITCH ? 0 : p->port_num,
			     .first = c->n_job, .end = c->n_job, .next = c->n_job };
	if (n->type == FAB_NODE_SWITCH) {
		uint32_t wn = fab_scan_switch_path(c->w, n);
		if (wn == FAB_NONE && (n->flags & FAB_F_LID_UNKNOWN))
			return 1;
		fab_scan_switch_req(c->w, c->o, n, wn, n->lid, &x->route);
	} else if (fab_scan_port_route(c->s, c->w, c->o, p, &x->route)) {
		return 1;
	}
	return 0;
}

/* Every table of every cabled port (want: the ports that are). */
static int plan_all(struct qscan *c, const bool *want)
{
	const struct fab_snapshot *s = c->s;
	int rc;

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];

		if (n->type == FAB_NODE_CA) {
			for (uint32_t k = 0; k < n->port_count; k++) {
				uint32_t pi = n->port_first + k;
				if (!want[pi] || add_node(c, (uint32_t)i, &s->ports[pi]))
					continue;
				struct qnode *x = &c->q[c->n_q];
				uint8_t out = s->ports[pi].port_num;
				if (!fab_routing_sl2vl(c->r, (uint32_t)i, 0, out) &&
				    add_job(c, (struct qjob){ .q = (uint32_t)c->n_q, .kind = J_SL2VL, .b = out }))
					return -ENOMEM;
				if ((rc = vlarb_jobs(c, (uint32_t)c->n_q, pi)))
					return rc;
				x->end = c->n_job;
				c->n_q++;
			}
		} else if (n->type == FAB_NODE_SWITCH) {
			bool any = false;
			for (uint32_t k = 0; k < n->port_count && !any; k++)
				any = want[n->port_first + k];
			if (!any || add_node(c, (uint32_t)i, NULL))
				continue;
			struct qnode *x = &c->q[c->n_q];
			for (uint32_t a = 0; a < n->port_count; a++) {
				const struct fab_port *in = &s->ports[n->port_first + a];
				if (in->port_num && !want[n->port_first + a])
					continue;
				for (uint32_t b = 0; b < n->port_count; b++) {
					const struct fab_port *out = &s->ports[n->port_first + b];
					if (!want[n->port_first + b] || out == in ||
					    fab_routing_sl2vl(c->r, (uint32_t)i, in->port_num, out->port_num))
						continue;
					if (add_job(c, (struct qjob){ .q = (uint32_t)c->n_q, .kind = J_SL2VL,
								      .a = in->port_num, .b = out->port_num }))
						return -ENOMEM;
				}
			}
			for (uint32_t b = 0; b < n->port_count; b++)
				if (want[n->port_first + b] &&
				    (rc = vlarb_jobs(c, (uint32_t)c->n_q, n->port_first + b)))
					return rc;
			x->end = c->n_job;
			c->n_q++;
		}
	}
	return 0;
}

/* The sample: the SL2VL table of the switch the scanning CA port is cabled
 * to, from the port facing us to its first other cabled port; the CA
 * port's own where no switch is there (two CAs cabled back to back). */
static int plan_sample(struct qscan *c, const bool *want)
{
	const struct fab_snapshot *s = c->s;
	const struct fab_port *me = NULL;

	for (size_t i = 0; i < c->w->n_nodes && !me; i++) {
		const struct wt_node *wn = &c->w->nodes[i];
		uint32_t n = wn->path_valid && !wn->hops ? fab_snapshot_find_node(s, wn->guid) : FAB_NONE;

		for (uint32_t k = 0; n != FAB_NONE && k < s->nodes[n].port_count; k++) {
			const struct fab_port *p = &s->ports[s->nodes[n].port_first + k];
			if (p->guid == wn->entry_guid && s->nodes[n].type == FAB_NODE_CA &&
			    want[p - s->ports])
				me = p;
		}
	}
	if (!me)
		return 0;
	const struct fab_port *in = &s->ports[me->remote_idx];
	const struct fab_node *sw = &s->nodes[in->node_idx];
	for (uint32_t b = 0; sw->type == FAB_NODE_SWITCH && b < sw->port_count; b++) {
		const struct fab_port *out = &s->ports[sw->port_first + b];
		if (out == in || !want[sw->port_first + b])
			continue;
		if (add_node(c, in->node_idx, NULL))
			break; /* no route to it: the CA port's own */
		c->q[c->n_q].end++;
		return add_job(c, (struct qjob){ .q = (uint32_t)c->n_q++, .kind = J_SL2VL,
						 .a = in->port_num, .b = out->port_num });
	}
	if (add_node(c, me->node_idx, me))
		return 0;
	c->q[c->n_q].end++;
	return add_job(c, (struct qjob){ .q = (uint32_t)c->n_q++, .kind = J_SL2VL, .b = me->port_num });
}

static int run(struct qscan *c, struct fab_madwin *mw)
{
	int rc;

	c->n_active = 0;
	for (size_t i = 0; i < c->n_q; i++)
		if (c->q[i].first < c->q[i].end)
			c->active[c->n_active++] = (uint32_t)i;
	rc = fab_madwin_run(mw, next, done, c);
	if (!rc)
		rc = c->err;
	if (!rc) {
		report(c);
		rc = c->err;
	}
	return rc;
}

/* Whether a table of the sample (from index first on) is not a default. */
static bool policy_seen(const struct fab_routing *r, size_t first)
{
	for (size_t i = first; i < r->n_sl2vl; i++)
		if (!fab_sl2vl_is_default(r->sl2vl[i].vl))
			return true;
	return false;
}

int fab_scan_qos(struct fab_snapshot *s, const struct wt *w, struct fab_madwin *mw,
		 const struct fab_scan_opts *o)
{
	struct qscan c = { .s = s, .w = w, .o = o };
	unsigned reason = o->all_qos ? FAB_QOS_FORENSIC : FAB_QOS_NOT_READ;
	bool had_routing = s->routing != NULL, *want = NULL;
	size_t before;
	int rc = -ENOMEM;

	if (!(c.r = fab_snapshot_routing(s)) || !(want = calloc(s->n_ports + 1, sizeof(*want))) ||
	    !(c.q = calloc(s->n_ports + s->n_nodes + 1, sizeof(*c.q))) ||
	    !(c.active = calloc(s->n_ports + s->n_nodes + 1, sizeof(*c.active))))
		goto out;
	for (size_t i = 0; i < s->n_ports; i++)
		want[i] = cabled(s, &s->ports[i]);
	before = c.r->n_sl2vl;
	if (!reason) {
		if ((rc = plan_sample(&c, want)))
			goto out;
		fab_scan_progress(o, "qos", 0, c.n_job);
		if ((rc = run(&c, mw)))
			goto out;
		if (!policy_seen(c.r, before)) {
			c.r->n_sl2vl = before; /* a default scan keeps nothing of the sample */
			goto out;
		}
		reason = FAB_QOS_POLICY;
		fab_routing_sort_sl2vl(c.r);
	}
	rc = -ENOMEM;
	if (!(c.k = fab_snapshot_qos(s)))
		goto out;
	c.k->reason = (uint8_t)reason;
	c.n_q = c.n_job = 0;
	if ((rc = plan_all(&c, want)))
		goto out;
	rc = -ENOMEM;
	if (!(c.failed = calloc(c.k->n_vlarb + 1, 1)))
		goto out;
	fab_scan_progress(o, "qos", 0, c.n_job);
	if ((rc = run(&c, mw)))
		goto out;
	/* a table a block of which did not answer is left out (named above) */
	size_t k = 0;
	for (size_t i = 0; i < c.k->n_vlarb; i++)
		if (!c.failed[i])
			c.k->vlarb[k++] = c.k->vlarb[i];
	c.k->n_vlarb = k;
	fab_qos_sort(c.k);
	fab_routing_sort_sl2vl(c.r);
	fab_scan_progress(o, "qos", c.done, c.n_job);
out:
	if (!had_routing && s->routing && !s->routing->n_sl2vl && !s->routing->n_lfts) {
		fab_routing_free(s->routing); /* --no-routes and no table kept */
		s->routing = NULL;
	}
	free(want);
	free(c.q);
	free(c.active);
	free(c.job);
	free(c.failed);
	return rc;
}
