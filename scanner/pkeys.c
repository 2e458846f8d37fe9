// SPDX-License-Identifier: MIT
/*
 * Partitions: the P_KeyTable (0x16) of every cabled CA port and of every
 * cabled switch external port whose PortInfo says it enforces partitions
 * (every cabled switch port with fab_scan_opts.all_pkeys: --forensic), with
 * the switch ports' PortInfo partition enforcement bits (from discovery's
 * PortInfo, no MAD of their own), all through one MAD window, into
 * snap->pkeys (include/fabsweep/pkey.h).
 *
 * How many entries a port has: NodeInfo.PartitionCap for a CA (from
 * discovery), SwitchInfo.PartitionEnforcementCap for a switch (from the
 * forwarding tables' SwitchInfo when the scan read them, else asked here
 * first). 32 P_Keys a block; the attribute modifier is the block number,
 * and on a switch the port number in its upper 16 bits. A CA answers for
 * the port the SMP arrives at: the directed route goes through the switch
 * the port is cabled to (discovery's path to that switch, then the
 * switch's port), so each port of a multi-port CA is read for itself.
 *
 * The ports are read interleaved across nodes (the first port of every
 * node, then the second...): a switch's management CPU answers SMPs one by
 * one, and the window stays spread over many switches.
 *
 * Failures are data: a port whose blocks did not all answer is "partial"
 * (its missing entries 0) or "failed" (none answered), with one
 * scan_errors row ("pkeys") per port naming the blocks; a switch whose
 * SwitchInfo does not answer has its ports "failed" and one row.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/mkey.h"
#include "fabsweep/pkey.h"
#include "fabsweep/routing.h"
#include "scanner/scan_priv.h"

enum { PJ_SWINFO = 1, PJ_BLOCK };
#define PJ(kind, blk, i) ((uint64_t)(kind) << 56 | (uint64_t)(blk) << 32 | (uint32_t)(i))
#define PJ_KIND(j) ((unsigned)((j) >> 56))
#define PJ_BLK(j) ((uint32_t)((j) >> 32) & 0xffffff)
#define PJ_IDX(j) ((uint32_t)(j))

struct pport {
	uint32_t entry;    /* its entry in snap->pkeys->ports */
	uint32_t sw;       /* switch (index in pkscan.sw) whose cap it waits for, FAB_NONE */
	uint16_t n_blocks, n_done, n_failed;
	bool unreachable;  /* no way to ask it (named in scan_errors) */
	int first_err;
	uint16_t *tab;
	uint8_t *missing;  /* n_blocks flags */
	uint8_t hops;      /* directed route, or LID-routed when hops is 0xff */
	uint16_t lid;
	uint8_t path[64];
	uint64_t mkey;
};

struct psw {
	uint32_t node;     /* snap node index */
	uint32_t wn;       /* working topology node */
	uint32_t first, n; /* its ports: order[first .. first + n) */
	bool failed;
};

struct pkscan {
	struct fab_snapshot *s;
	const struct wt *w;
	const struct fab_scan_opts *o;
	struct fab_pkeys *k;
	struct pport *p;
	size_t n_p;
	struct psw *sw;
	size_t n_sw, si_next;
	uint32_t *sw_ports; /* ports grouped by switch (those that wait) */
	struct fab_jobq q;  /* PJ_BLOCK jobs ready to send */
	unsigned long done, total;
	int err;
};

static const char *why(int err)
{
	return err == -ETIMEDOUT ? "got no answer after retries"
	       : err == -EREMOTEIO ? "was answered with an error status"
				   : "failed";
}

static const struct fab_port *pport_port(const struct pkscan *c, const struct pport *x)
{
	return &c->s->ports[c->k->ports[x->entry].port_idx];
}

/* "<node> port N: P_KeyTable <a><b>" into scan_errors. */
static void port_err(struct pkscan *c, const struct fab_port *p, const char *a, const char *b)
{
	const struct fab_node *n = &c->s->nodes[p->node_idx];
	char who[FAB_SCAN_LABEL_CAP];
	int rc;

	rc = fab_snapshot_add_error(c->s, n->guid, p->port_num, "pkeys", "%s port %u: P_KeyTable %s%s",
				    fab_scan_node_label(n, who, sizeof(who)), p->port_num, a, b);
	if (rc && !c->err)
		c->err = rc;
}

/* Queues every block of a port whose size is known. */
static int queue_port(struct pkscan *c, uint32_t i)
{
	struct pport *x = &c->p[i];
	struct fab_port_pkeys *e = &c->k->ports[x->entry];
	unsigned cap = e->cap ? e->cap : FAB_PKEY_BLOCK;

	if (cap > FAB_PKEY_MAX_ENTRIES)
		cap = FAB_PKEY_MAX_ENTRIES;
	x->n_blocks = (uint16_t)((cap + FAB_PKEY_BLOCK - 1) / FAB_PKEY_BLOCK);
	x->tab = fab_pkeys_alloc(c->k, (size_t)x->n_blocks * FAB_PKEY_BLOCK);
	x->missing = calloc(x->n_blocks, 1);
	if (!x->tab || !x->missing)
		return -ENOMEM;
	for (uint32_t b = 0; b < x->n_blocks; b++)
		if (fab_jobq_push(&c->q, PJ(PJ_BLOCK, b, i)))
			return -ENOMEM;
	c->total += x->n_blocks;
	return 0;
}

static int next(void *ctx, struct fab_mad_req *req)
{
	struct pkscan *c = ctx;
	uint64_t j;

	if (c->err)
		return c->err;
	while (c->si_next < c->n_sw) {
		const struct psw *sw = &c->sw[c->si_next];
		const struct wt_node *wn = &c->w->nodes[sw->wn];
		const struct fab_node *n = &c->s->nodes[sw->node];

		req->method = FAB_MAD_GET;
		req->mgmt_class = FAB_MAD_CLASS_SMI_DR;
		req->mkey = fab_mkeys_lookup(c->o->mkeys, n->guid, n->guid);
		req->dr_hops = wn->hops;
		memcpy(req->dr_path, wn->path, sizeof(req->dr_path));
		req->attr_id = IB_ATTR_SWITCH_INFO;
		req->cookie = PJ(PJ_SWINFO, 0, c->si_next);
		c->si_next++;
		return 1;
	}
	if (!fab_jobq_pop(&c->q, &j))
		return 0;
	const struct pport *x = &c->p[PJ_IDX(j)];
	const struct fab_port *p = pport_port(c, x);

	req->method = FAB_MAD_GET;
	req->mkey = x->mkey;
	if (x->hops != 0xff) {
		req->mgmt_class = FAB_MAD_CLASS_SMI_DR;
		req->dr_hops = x->hops;
		memcpy(req->dr_path, x->path, sizeof(req->dr_path));
	} else {
		req->mgmt_class = FAB_MAD_CLASS_SMI;
		req->dlid = x->lid;
	}
	req->attr_id = IB_ATTR_PKEY_TBL;
	req->attr_mod = PJ_BLK(j);
	if (c->s->nodes[p->node_idx].type == FAB_NODE_SWITCH)
		req->attr_mod |= (uint32_t)p->port_num << 16;
	req->cookie = j;
	return 1;
}

static void swinfo_done(struct pkscan *c, uint32_t si, int err, const uint8_t *resp)
{
	struct psw *sw = &c->sw[si];

	if (err) {
		const struct fab_node *n = &c->s->nodes[sw->node];
		char who[FAB_SCAN_LABEL_CAP];

		sw->failed = true;
		int rc = fab_snapshot_add_error(c->s, n->guid, -1, "pkeys",
			"%s: SwitchInfo %s: the P_Key tables of its ports were not read",
			fab_scan_node_label(n, who, sizeof(who)), why(err));
		if (rc && !c->err)
			c->err = rc;
		return;
	}
	unsigned cap = mad_get_field((void *)(resp + FAB_MAD_DATA_OFFS), 0,
				     IB_SW_PARTITION_ENFORCE_CAP_F);
	for (uint32_t k = 0; k < sw->n && !c->err; k++) {
		uint32_t i = c->sw_ports[sw->first + k];

		if (c->p[i].unreachable)
			continue;
		c->k->ports[c->p[i].entry].cap = (uint16_t)cap;
		if (queue_port(c, i))
			c->err = -ENOMEM;
	}
}

static void block_done(struct pkscan *c, uint32_t i, uint32_t b, int err, const uint8_t *resp)
{
	struct pport *x = &c->p[i];

	x->n_done++;
	if (err) {
		if (!x->n_failed)
			x->first_err = err;
		x->n_failed++;
		x->missing[b] = 1;
		return;
	}
	const uint8_t *d = resp + FAB_MAD_DATA_OFFS;
	for (unsigned e = 0; e < FAB_PKEY_BLOCK; e++)
		x->tab[(size_t)b * FAB_PKEY_BLOCK + e] = (uint16_t)(d[2 * e] << 8 | d[2 * e + 1]);
}

static void done(void *ctx, const struct fab_mad_req *req, int err, const uint8_t *resp)
{
	struct pkscan *c = ctx;
	uint64_t j = req->cookie;

	if (PJ_KIND(j) == PJ_SWINFO)
		swinfo_done(c, PJ_IDX(j), err, resp);
	else
		block_done(c, PJ_IDX(j), PJ_BLK(j), err, resp);
	c->done++;
	if ((c->done & 1023) == 0)
		fab_scan_progress(c->o, "pkeys", c->done, c->total);
}

static void finish(struct pkscan *c)
{
	char list[128], msg[256];

	for (size_t i = 0; i < c->n_p && !c->err; i++) {
		struct pport *x = &c->p[i];
		struct fab_port_pkeys *e = &c->k->ports[x->entry];

		if (!x->tab)
			continue; /* its switch's SwitchInfo failed: named once */
		if (x->n_failed == x->n_blocks) {
			e->status = FAB_LFT_FAILED;
			snprintf(msg, sizeof(msg), " (%u blocks)", x->n_blocks);
			port_err(c, pport_port(c, x), why(x->first_err), msg);
			continue;
		}
		uint32_t n = (uint32_t)x->n_blocks * FAB_PKEY_BLOCK;
		while (n && !x->tab[n - 1])
			n--;
		e->n = (uint16_t)n;
		e->pkey = x->tab;
		e->status = x->n_failed ? FAB_LFT_PARTIAL : FAB_LFT_OK;
		if (x->n_failed) {
			fab_scan_block_list(x->missing, x->n_blocks, list, sizeof(list));
			snprintf(msg, sizeof(msg), ": blocks %s of %u were not read", list, x->n_blocks);
			port_err(c, pport_port(c, x), why(x->first_err), msg);
		}
	}
}

/* A cabled external port of a CA or switch. */
static bool cabled(const struct fab_snapshot *s, const struct fab_port *p)
{
	unsigned t = s->nodes[p->node_idx].type;

	return p->port_num && (t == FAB_NODE_CA || t == FAB_NODE_SWITCH) &&
	       (p->phys_state == FAB_PHYS_LINKUP || p->state >= FAB_STATE_INIT);
}

int fab_scan_port_route(const struct fab_snapshot *s, const struct wt *w,
			const struct fab_scan_opts *o, const struct fab_port *p, struct fab_mad_req *req)
{
	const struct fab_node *n = &s->nodes[p->node_idx];
	uint32_t wn = wt_find(w, n->guid);
	const struct wt_node *x = wn != FAB_NONE ? &w->nodes[wn] : NULL;

	req->method = FAB_MAD_GET;
	req->mkey = fab_mkeys_lookup(o->mkeys, p->guid, n->guid);
	req->mgmt_class = FAB_MAD_CLASS_SMI_DR;
	/* a switch, or a CA discovery entered by this very port (the scanning
	 * one: no hops) */
	if (x && x->path_valid && (n->type == FAB_NODE_SWITCH || x->entry_guid == p->guid)) {
		req->dr_hops = x->hops;
		memcpy(req->dr_path, x->path, sizeof(req->dr_path));
		return 0;
	}
	if (n->type == FAB_NODE_CA && p->remote_idx != FAB_NONE) {
		const struct fab_port *r = &s->ports[p->remote_idx];
		const struct fab_node *rn = &s->nodes[r->node_idx];
		uint32_t rw = rn->type == FAB_NODE_SWITCH ? wt_find(w, rn->guid) : FAB_NONE;

		if (rw != FAB_NONE && w->nodes[rw].path_valid && w->nodes[rw].hops < WT_MAX_HOPS) {
			req->dr_hops = (uint8_t)(w->nodes[rw].hops + 1);
			memcpy(req->dr_path, w->nodes[rw].path, sizeof(req->dr_path));
			req->dr_path[req->dr_hops] = r->port_num;
			return 0;
		}
	}
	/* a one-port CA reached by its own path */
	if (x && x->path_valid && n->num_ports == 1) {
		req->dr_hops = x->hops;
		memcpy(req->dr_path, x->path, sizeof(req->dr_path));
		return 0;
	}
	req->mgmt_class = FAB_MAD_CLASS_SMI;
	req->dlid = fab_scan_port_dlid(s, p);
	return req->dlid ? 0 : -1;
}

/* Where the SMPs for port p go: 0, or -1 when there is no way. */
static int route_to(const struct pkscan *c, const struct fab_port *p, struct pport *x)
{
	struct fab_mad_req req = { 0 };
	int rc = fab_scan_port_route(c->s, c->w, c->o, p, &req);

	x->mkey = req.mkey;
	if (req.mgmt_class == FAB_MAD_CLASS_SMI_DR) {
		x->hops = req.dr_hops;
		memcpy(x->path, req.dr_path, sizeof(x->path));
	} else {
		x->hops = 0xff;
		x->lid = req.dlid;
	}
	return rc;
}

static unsigned pi_enforce(const struct wt *w, uint32_t wn, unsigned port)
{
	const struct wt_port *wp;

	if (wn == FAB_NONE || port > w->nodes[wn].num_ports || !(wp = wt_port(w, wn, port))->have_info)
		return 0;
	return (wt_pi_get(wp->info, IB_PORT_PART_EN_INB_F) ? FAB_PKEY_ENF_INB : 0) |
	       (wt_pi_get(wp->info, IB_PORT_PART_EN_OUTB_F) ? FAB_PKEY_ENF_OUTB : 0) |
	       (wt_pi_get(wp->info, IB_PORT_FILTER_RAW_INB_F) ? FAB_PKEY_FILTER_RAW_INB : 0) |
	       (wt_pi_get(wp->info, IB_PORT_FILTER_RAW_OUTB_F) ? FAB_PKEY_FILTER_RAW_OUTB : 0);
}

/*
 * Which ports are read (want[port index]): every cabled CA port; a cabled
 * switch external port only where its PortInfo says it enforces partitions
 * (inbound or outbound), or every one with all_pkeys (--forensic). A switch
 * port that does not enforce filters nothing: its table cannot drop a
 * packet, and OpenSM does not even write it (docs/partitions.md). enf gets
 * each switch external port's FAB_PKEY_ENF_* bits. Linear.
 */
static void pick_ports(const struct fab_snapshot *s, const struct wt *w, bool all,
		       bool *want, uint8_t *enf)
{
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *nd = &s->nodes[i];
		uint32_t wn = nd->type == FAB_NODE_SWITCH ? wt_find(w, nd->guid) : FAB_NONE;

		for (uint32_t q = 0; q < nd->port_count; q++) {
			uint32_t pi = nd->port_first + q;
			const struct fab_port *p = &s->ports[pi];

			enf[pi] = nd->type == FAB_NODE_SWITCH && p->port_num
					  ? (uint8_t)pi_enforce(w, wn, p->port_num) : 0;
			want[pi] = cabled(s, p) &&
				   (nd->type != FAB_NODE_SWITCH || all ||
				    (enf[pi] & (FAB_PKEY_ENF_INB | FAB_PKEY_ENF_OUTB)));
		}
	}
}

/* The ports in the order they are asked: rank r holds the r-th wanted port
 * of every node. order gets the port indices. */
static size_t interleave(const struct fab_snapshot *s, const bool *want, uint32_t *order)
{
	size_t n = 0;
	unsigned max_ports = 0;

	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].port_count > max_ports)
			max_ports = s->nodes[i].port_count;
	for (unsigned r = 0; r < max_ports; r++)
		for (size_t i = 0; i < s->n_nodes; i++) {
			const struct fab_node *nd = &s->nodes[i];

			if (r < nd->port_count && want[nd->port_first + r])
				order[n++] = nd->port_first + r;
		}
	return n;
}

int fab_scan_pkeys(struct fab_snapshot *s, const struct wt *w, struct fab_madwin *mw,
		   const struct fab_scan_opts *o)
{
	struct pkscan c = { .s = s, .w = w, .o = o };
	uint32_t *order = NULL, *entry_of = NULL, *sw_of = NULL;
	bool *want = NULL;
	uint8_t *enf = NULL;
	size_t n_order;
	int rc = 0;

	if (!(c.k = fab_snapshot_pkeys(s)))
		return -ENOMEM;
	order = malloc((s->n_ports + 1) * sizeof(*order));
	entry_of = malloc((s->n_ports + 1) * sizeof(*entry_of));
	sw_of = malloc((s->n_nodes + 1) * sizeof(*sw_of));
	c.p = calloc(s->n_ports + 1, sizeof(*c.p));
	c.sw = calloc(s->n_nodes + 1, sizeof(*c.sw));
	c.sw_ports = malloc((s->n_ports + 1) * sizeof(*c.sw_ports));
	want = malloc(s->n_ports + 1);
	enf = malloc(s->n_ports + 1);
	if (!order || !entry_of || !sw_of || !c.p || !c.sw || !c.sw_ports || !want || !enf) {
		rc = -ENOMEM;
		goto out;
	}
	pick_ports(s, w, o->all_pkeys, want, enf);
	/* the entries, in port order */
	for (size_t i = 0; i < s->n_ports; i++) {
		entry_of[i] = FAB_NONE;
		if (!want[i])
			continue;
		struct fab_port_pkeys *e = fab_pkeys_add(c.k);
		if (!e) {
			rc = -ENOMEM;
			goto out;
		}
		e->port_idx = (uint32_t)i;
		e->status = FAB_LFT_FAILED; /* until it answers */
		entry_of[i] = (uint32_t)(c.k->n - 1);
	}
	/* switches whose PartitionEnforcementCap is not known yet */
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *nd = &s->nodes[i];
		const struct fab_lft *l = fab_routing_lft(s, (uint32_t)i);
		uint32_t wn, q = 0;

		sw_of[i] = FAB_NONE;
		if (nd->type != FAB_NODE_SWITCH || (l && l->status != FAB_LFT_FAILED))
			continue;
		while (q < nd->port_count && !want[nd->port_first + q])
			q++;
		if (q == nd->port_count)
			continue; /* none of its ports is read */
		if ((wn = wt_find(w, nd->guid)) == FAB_NONE || !w->nodes[wn].path_valid)
			continue; /* its ports go LID-routed, with a cap of one block */
		sw_of[i] = (uint32_t)c.n_sw;
		c.sw[c.n_sw++] = (struct psw){ .node = (uint32_t)i, .wn = wn };
	}
	n_order = interleave(s, want, order);
	/* ports waiting for their switch, grouped by switch */
	size_t n_wait = 0;
	for (size_t k = 0; k < c.n_sw; k++) {
		const struct fab_node *nd = &s->nodes[c.sw[k].node];

		c.sw[k].first = (uint32_t)n_wait;
		for (uint32_t q = 0; q < nd->port_count; q++)
			if (entry_of[nd->port_first + q] != FAB_NONE)
				c.sw_ports[n_wait++] = nd->port_first + q; /* port index for now */
		c.sw[k].n = (uint32_t)n_wait - c.sw[k].first;
	}
	for (size_t k = 0; k < n_order; k++) {
		uint32_t pi = order[k];
		const struct fab_port *p = &s->ports[pi];
		const struct fab_node *nd = &s->nodes[p->node_idx];
		struct pport *x = &c.p[c.n_p];
		uint32_t wn = wt_find(w, nd->guid);

		x->entry = entry_of[pi];
		x->sw = sw_of[p->node_idx];
		entry_of[pi] = (uint32_t)c.n_p; /* from now on: its pport */
		c.n_p++;
		struct fab_port_pkeys *e = &c.k->ports[x->entry];
		if (nd->type == FAB_NODE_SWITCH) {
			const struct fab_lft *l = fab_routing_lft(s, p->node_idx);
			e->enforce = enf[pi];
			if (l && l->status != FAB_LFT_FAILED)
				e->cap = l->part_enf_cap;
		} else if (wn != FAB_NONE) {
			e->cap = (uint16_t)mad_get_field((void *)w->nodes[wn].node_info, 0,
							 IB_NODE_PARTITION_CAP_F);
		}
		if (route_to(&c, p, x)) {
			port_err(&c, p, "was not read: ", "no directed route and no LID to ask it at");
			x->unreachable = true;
			continue;
		}
		if (x->sw == FAB_NONE && (rc = queue_port(&c, (uint32_t)(x - c.p))))
			goto out;
	}
	for (size_t k = 0; k < n_wait; k++) /* port index -> pport */
		c.sw_ports[k] = entry_of[c.sw_ports[k]];
	c.total += c.n_sw;
	fab_scan_progress(o, "pkeys", 0, c.total);
	rc = c.err ? c.err : fab_madwin_run(mw, next, done, &c);
	if (!rc) {
		finish(&c);
		rc = c.err;
	}
	fab_scan_progress(o, "pkeys", c.done, c.total);
out:
	for (size_t i = 0; i < c.n_p; i++)
		free(c.p[i].missing);
	fab_jobq_free(&c.q);
	free(order);
	free(entry_of);
	free(sw_of);
	free(want);
	free(enf);
	free(c.p);
	free(c.sw);
	free(c.sw_ports);
	return rc;
}
