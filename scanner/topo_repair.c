// SPDX-License-Identifier: MIT
/*
 * Repair and native discovery of the working topology (scanner/topo.c):
 * directed-route SMPs through the MAD window engine, with our own retries
 * and deadlines, for every PortInfo, NodeDescription and neighbour
 * libibnetdisc missed, following the switches found that way; the same
 * engine discovers the whole fabric from the local node (--discovery
 * native). Devices that answer with a GUID seen elsewhere are kept apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "scanner/scan_priv.h"

enum rjob { RJ_NODEINFO = 1, RJ_PORTINFO, RJ_NODEDESC, RJ_SELF, RJ_MLNX_EPI };

/*
 * Job: kind, the node the directed route goes to, and `via`: 0 = to that
 * node itself, else one hop further out of that node's port `via`.
 * `port` is the PortInfo port number.
 */
static uint64_t rjob(enum rjob kind, uint32_t node, unsigned via, unsigned port)
{
	return (uint64_t)node | (uint64_t)via << 32 | (uint64_t)port << 40 |
	       (uint64_t)kind << 48;
}
#define RJ_NODE(j) ((uint32_t)(j))
#define RJ_VIA(j) ((unsigned)((j) >> 32) & 0xff)
#define RJ_PORT(j) ((unsigned)((j) >> 40) & 0xff)
#define RJ_KIND(j) ((unsigned)((j) >> 48) & 0xff)

/* Devices that share a GUID with one found before are kept as nodes of
 * their own, up to this many per discovery (a bound on what a fabric of
 * one GUID everywhere can make us explore); beyond it, flagged only. */
#define WT_MAX_DUPS 1024

struct repair {
	struct wt *w;
	struct fab_jobq q;
	int err;
	unsigned dups;
	unsigned long done;
	const struct fab_scan_opts *o;
};

static bool can_route_out(const struct wt_node *n)
{
	/* Directed routes pass through switches; a CA only as the start. */
	return n->path_valid && n->hops < WT_MAX_HOPS &&
	       (n->type == FAB_NODE_SWITCH || n->hops == 0);
}

static void push(struct repair *r, uint64_t job)
{
	if (!r->err)
		r->err = fab_jobq_push(&r->q, job);
}

/* Queues a NodeInfo through node n's port p if that is a hole we can probe. */
static void maybe_probe(struct repair *r, uint32_t n, unsigned p)
{
	struct wt_node *wn = &r->w->nodes[n];
	struct wt_port *wp = wt_port(r->w, n, p);

	if (p == 0 || !wp->have_info || wp->probed || wp->rnode != FAB_NONE ||
	    !can_route_out(wn) ||
	    wt_pi_get(wp->info, IB_PORT_PHYS_STATE_F) != FAB_PHYS_LINKUP)
		return;
	wp->probed = true;
	push(r, rjob(RJ_NODEINFO, n, p, 0));
}

/*
 * FDR10 is only visible in Mellanox's vendor ExtendedPortInfo: ask for it
 * where a LinkUp port of a Mellanox (or Bull) device runs QDR without an
 * extended speed, as libibnetdisc does. Only through a route of our own
 * (a node we reach without going through a CA).
 */
static void maybe_fdr10(struct repair *r, uint32_t n, unsigned p)
{
	const struct wt_node *wn = &r->w->nodes[n];
	const struct wt_port *wp = wt_port(r->w, n, p);
	unsigned vendor = mad_get_field((void *)wn->node_info, 0, IB_NODE_VENDORID_F);

	if (p == 0 || !wn->path_valid || (vendor != 0x02c9 && vendor != 0x119f) ||
	    wp->fdr10_act || wt_pi_get(wp->info, IB_PORT_PHYS_STATE_F) != FAB_PHYS_LINKUP ||
	    wt_pi_get(wp->info, IB_PORT_LINK_SPEED_ACTIVE_F) != 4 ||
	    wt_pi_get(wp->info, IB_PORT_LINK_SPEED_EXT_ACTIVE_F) != 0)
		return;
	push(r, rjob(RJ_MLNX_EPI, n, 0, p));
}

/*
 * The M_Key for SMPs to node n: the entry of the port they enter by, else
 * of the node GUID, else (a CA from libibnetdisc, entry port unknown) of
 * any of its ports, else the fallback.
 */
static uint64_t node_mkey(const struct repair *r, uint32_t n)
{
	const struct fab_mkeys *mk = r->o ? r->o->mkeys : NULL;
	const struct wt_node *wn = &r->w->nodes[n];
	uint64_t fallback = fab_mkeys_lookup(mk, 0, 0);
	uint64_t k = fab_mkeys_lookup(mk, wn->entry_guid, wn->guid);

	if (k != fallback || wn->entry_guid || wn->type == FAB_NODE_SWITCH)
		return k;
	for (unsigned p = 1; p <= wn->num_ports; p++) {
		uint64_t g = wt_port(r->w, n, p)->guid;
		if (g && (k = fab_mkeys_lookup(mk, g, 0)) != fallback)
			return k;
	}
	return fallback;
}

static int repair_next(void *ctx, struct fab_mad_req *req)
{
	struct repair *r = ctx;
	uint64_t j;

	if (r->err || !fab_jobq_pop(&r->q, &j))
		return r->err;
	if (RJ_KIND(j) == RJ_SELF) { /* NodeInfo of the local node: 0 hops */
		req->mgmt_class = FAB_MAD_CLASS_SMI_DR;
		req->method = FAB_MAD_GET;
		req->attr_id = IB_ATTR_NODE_INFO;
		req->mkey = fab_mkeys_lookup(r->o ? r->o->mkeys : NULL, 0, 0);
		req->cookie = j;
		return 1;
	}
	const struct wt_node *n = &r->w->nodes[RJ_NODE(j)];
	unsigned via = RJ_VIA(j);
	const struct wt_port *vp = via ? wt_port(r->w, RJ_NODE(j), via) : NULL;

	/* The key of the node that answers: n itself, the known node behind
	 * port via, or (NodeInfo of a node not known yet) the fallback. */
	if (!via)
		req->mkey = node_mkey(r, RJ_NODE(j));
	else if (RJ_KIND(j) != RJ_NODEINFO && vp->rnode != FAB_NONE)
		req->mkey = node_mkey(r, vp->rnode);
	else
		req->mkey = fab_mkeys_lookup(r->o ? r->o->mkeys : NULL, 0, 0);

	req->mgmt_class = FAB_MAD_CLASS_SMI_DR;
	req->method = FAB_MAD_GET;
	req->dr_hops = n->hops;
	memcpy(req->dr_path, n->path, sizeof(req->dr_path));
	if (via) {
		req->dr_hops++;
		req->dr_path[req->dr_hops] = (uint8_t)via;
	}
	switch (RJ_KIND(j)) {
	case RJ_NODEINFO:
		req->attr_id = IB_ATTR_NODE_INFO;
		break;
	case RJ_NODEDESC:
		req->attr_id = IB_ATTR_NODE_DESC;
		break;
	case RJ_MLNX_EPI:
		req->attr_id = IB_ATTR_MLNX_EXT_PORT_INFO;
		req->attr_mod = RJ_PORT(j);
		break;
	default:
		req->attr_id = IB_ATTR_PORT_INFO;
		req->attr_mod = RJ_PORT(j);
		break;
	}
	req->cookie = j;
	return 1;
}

static void link_ends(struct wt *w, uint32_t a, unsigned ap, uint32_t b, unsigned bp)
{
	struct wt_port *pa = wt_port(w, a, ap), *pb = wt_port(w, b, bp);

	pa->rnode = b;
	pa->rport = (uint8_t)bp;
	pb->rnode = a;
	pb->rport = (uint8_t)ap;
}

/*
 * Which known node a NodeInfo answer that came in through (from, via) on
 * its port lport is. A port has one cable: the node with that GUID whose
 * port lport is this very cable, else the first one of the same type whose
 * port lport is not cabled yet (a switch reached from another neighbour,
 * another port of a CA). FAB_NONE when none fits: a different device that
 * answers with the same GUID. *seen says whether the GUID is known at all.
 */
static uint32_t match_node(const struct wt *w, uint64_t guid, unsigned type,
			   unsigned lport, uint32_t from, unsigned via, bool *seen)
{
	uint32_t fit = FAB_NONE;

	*seen = false;
	if (!w->hash_cap)
		return FAB_NONE;
	for (size_t h = fab_hash_slot(guid, w->hash_cap);; h = (h + 1) & (w->hash_cap - 1)) {
		uint32_t v = w->hash[h];
		if (!v)
			return fit;
		const struct wt_node *n = &w->nodes[v - 1];
		if (n->guid != guid)
			continue;
		*seen = true;
		if (n->type != type || lport > n->num_ports)
			continue;
		const struct wt_port *p = wt_port(w, v - 1, lport);
		if (p->rnode == from && p->rport == via)
			return v - 1;
		if (p->rnode == FAB_NONE && (fit == FAB_NONE || v - 1 < fit))
			fit = v - 1;
	}
}

/* Marks every node with this GUID as one of several devices sharing it. */
static void mark_dup(struct wt *w, uint64_t guid)
{
	for (size_t h = fab_hash_slot(guid, w->hash_cap);; h = (h + 1) & (w->hash_cap - 1)) {
		uint32_t v = w->hash[h];
		if (!v)
			return;
		if (w->nodes[v - 1].guid == guid)
			w->nodes[v - 1].dup_guid = true;
	}
}

/* NodeInfo through (from, via) answered: link, or learn a new node. */
static void got_nodeinfo(struct repair *r, uint32_t from, unsigned via,
			 const uint8_t *ni)
{
	struct wt *w = r->w;
	uint64_t guid = mad_get_field64((void *)ni, 0, IB_NODE_GUID_F);
	uint64_t port_guid = mad_get_field64((void *)ni, 0, IB_NODE_PORT_GUID_F);
	unsigned type = mad_get_field((void *)ni, 0, IB_NODE_TYPE_F);
	unsigned nports = mad_get_field((void *)ni, 0, IB_NODE_NPORTS_F);
	unsigned lport = mad_get_field((void *)ni, 0, IB_NODE_LOCAL_PORT_F);
	bool seen;

	/* Untrusted: the answer indexes our arrays. It came in through a
	 * cable, so LocalPortNum is an external port, never a switch's port 0
	 * (which is never a link end). */
	if (type < FAB_NODE_CA || type > FAB_NODE_ROUTER || nports < 1 ||
	    nports > 254 || lport < 1 || lport > nports)
		return;
	uint32_t m = match_node(w, guid, type, lport, from, via, &seen);
	if (m == FAB_NONE && seen && r->dups >= WT_MAX_DUPS) {
		/* Beyond the bound: recorded at the port, not explored. */
		mark_dup(w, guid);
		wt_port(w, from, via)->dup_of = guid;
		return;
	}
	if (m == FAB_NONE) {
		/* A new device; when the GUID is known, another device with
		 * it: kept as a node of its own, explored by its own route. */
		m = wt_add_node_dup(w, guid, type, nports, seen);
		if (m == FAB_NONE) {
			r->err = -ENOMEM;
			return;
		}
		if (seen) {
			r->dups++;
			mark_dup(w, guid);
		}
		struct wt_node *src = &w->nodes[from], *nn = &w->nodes[m];
		memcpy(nn->node_info, ni, sizeof(nn->node_info));
		nn->path_valid = true;
		memcpy(nn->path, src->path, sizeof(nn->path));
		nn->hops = (uint8_t)(src->hops + 1);
		nn->path[nn->hops] = (uint8_t)via;
		nn->entry_guid = port_guid;
		push(r, rjob(RJ_NODEDESC, m, 0, 0));
		if (type == FAB_NODE_SWITCH) {
			for (unsigned p = 0; p <= nports; p++)
				push(r, rjob(RJ_PORTINFO, m, 0, p));
		}
	}
	struct wt_port *mp = wt_port(w, m, lport);
	mp->exists = true;
	mp->guid = w->nodes[m].type == FAB_NODE_SWITCH ? guid : port_guid;
	link_ends(w, from, via, m, lport);
	/* A CA port we have not seen: ask through this very link. */
	if (w->nodes[m].type != FAB_NODE_SWITCH && !mp->have_info)
		push(r, rjob(RJ_PORTINFO, from, via, lport));
}

/* The local node: the root of a discovery of our own. */
static void got_self(struct repair *r, const uint8_t *ni)
{
	struct wt *w = r->w;
	uint64_t guid = mad_get_field64((void *)ni, 0, IB_NODE_GUID_F);
	uint64_t port_guid = mad_get_field64((void *)ni, 0, IB_NODE_PORT_GUID_F);
	unsigned type = mad_get_field((void *)ni, 0, IB_NODE_TYPE_F);
	unsigned nports = mad_get_field((void *)ni, 0, IB_NODE_NPORTS_F);
	unsigned lport = mad_get_field((void *)ni, 0, IB_NODE_LOCAL_PORT_F);

	if (type < FAB_NODE_CA || type > FAB_NODE_ROUTER || nports < 1 ||
	    nports > 254 || lport > nports)
		return;
	uint32_t m = wt_add_node(w, guid, type, nports);
	if (m == FAB_NONE) {
		r->err = -ENOMEM;
		return;
	}
	struct wt_node *nn = &w->nodes[m];
	memcpy(nn->node_info, ni, sizeof(nn->node_info));
	nn->path_valid = true;
	nn->hops = 0;
	nn->entry_guid = port_guid;
	push(r, rjob(RJ_NODEDESC, m, 0, 0));
	if (type == FAB_NODE_SWITCH) {
		for (unsigned p = 0; p <= nports; p++)
			push(r, rjob(RJ_PORTINFO, m, 0, p));
	} else {
		wt_port(w, m, lport)->exists = true;
		wt_port(w, m, lport)->guid = port_guid;
		push(r, rjob(RJ_PORTINFO, m, 0, lport));
	}
}

static void repair_done(void *ctx, const struct fab_mad_req *req, int err,
			const uint8_t *resp)
{
	struct repair *r = ctx;
	uint64_t j = req->cookie;
	uint32_t n = RJ_NODE(j);
	unsigned via = RJ_VIA(j), port = RJ_PORT(j);

	r->done++;
	if (err || !resp)
		return; /* still missing: wt_to_snapshot records it */
	const uint8_t *data = resp + FAB_MAD_DATA_OFFS;
	switch (RJ_KIND(j)) {
	case RJ_SELF:
		got_self(r, data);
		break;
	case RJ_NODEINFO:
		got_nodeinfo(r, n, via, data);
		break;
	case RJ_NODEDESC: {
		struct wt_node *wn = &r->w->nodes[n];
		memcpy(wn->desc, data, sizeof(wn->desc));
		wn->have_desc = true;
		break;
	}
	case RJ_PORTINFO: {
		uint32_t target = n;
		if (via) { /* through a link: the node at its far end */
			struct wt_port *vp = wt_port(r->w, n, via);
			if (vp->rnode == FAB_NONE)
				return;
			target = vp->rnode;
		}
		if (port > r->w->nodes[target].num_ports)
			return;
		struct wt_port *wp = wt_port(r->w, target, port);
		memcpy(wp->info, data, sizeof(wp->info));
		wp->have_info = wt_pi_get(wp->info, IB_PORT_STATE_F) != 0;
		wp->exists = true;
		if (!wp->guid)
			wp->guid = r->w->nodes[target].type == FAB_NODE_SWITCH
					   ? r->w->nodes[target].guid
					   : 0;
		maybe_probe(r, target, port);
		maybe_fdr10(r, target, port);
		break;
	}
	case RJ_MLNX_EPI: {
		struct wt_port *wp = wt_port(r->w, n, port);
		wp->fdr10_act = (uint8_t)mad_get_field((void *)data, 0,
					IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F);
		wp->fdr10_en = (uint8_t)mad_get_field((void *)data, 0,
					IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F);
		wp->fdr10_sup = (uint8_t)mad_get_field((void *)data, 0,
					IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F);
		break;
	}
	}
}

int wt_repair(struct wt *w, struct fab_madwin *mw, const struct fab_scan_opts *o,
	      unsigned long *out_mads)
{
	struct repair r = { .w = w, .o = o };
	unsigned long before = fab_madwin_stats(mw)->sent;

	for (uint32_t n = 0; n < w->n_nodes; n++) {
		struct wt_node *wn = &w->nodes[n];

		if (!wn->path_valid)
			continue;
		if (!wn->have_desc)
			push(&r, rjob(RJ_NODEDESC, n, 0, 0));
		for (unsigned p = 0; p <= wn->num_ports; p++) {
			struct wt_port *wp = wt_port(w, n, p);

			if (wp->have_info) {
				maybe_probe(&r, n, p);
				continue;
			}
			/* Every port of a switch; the seen ports of a CA. */
			if (wn->type == FAB_NODE_SWITCH || (p > 0 && wp->exists))
				push(&r, rjob(RJ_PORTINFO, n, 0, p));
		}
	}
	int rc = r.err;
	if (!rc && r.q.n)
		rc = fab_madwin_run(mw, repair_next, repair_done, &r);
	if (!rc)
		rc = r.err;
	/* A switch's LID comes only from its port 0 PortInfo, and without it
	 * none of its ports' counters can be asked for: one more round of
	 * tries for those alone (bounded: one MAD per such switch). */
	for (uint32_t n = 0; !rc && n < w->n_nodes; n++) {
		const struct wt_node *wn = &w->nodes[n];
		if (wn->path_valid && wn->type == FAB_NODE_SWITCH &&
		    !wt_port(w, n, 0)->have_info)
			push(&r, rjob(RJ_PORTINFO, n, 0, 0));
	}
	if (!rc && !r.err && r.q.n)
		rc = fab_madwin_run(mw, repair_next, repair_done, &r);
	if (!rc)
		rc = r.err;
	fab_jobq_free(&r.q);
	if (out_mads)
		*out_mads = fab_madwin_stats(mw)->sent - before;
	return rc;
}

int wt_discover(struct wt *w, struct fab_madwin *mw, const struct fab_scan_opts *o)
{
	struct repair r = { .w = w, .o = o };
	int rc;

	push(&r, rjob(RJ_SELF, 0, 0, 0));
	rc = r.err;
	if (!rc)
		rc = fab_madwin_run(mw, repair_next, repair_done, &r);
	if (!rc)
		rc = r.err;
	fab_jobq_free(&r.q);
	if (!rc && !w->n_nodes)
		rc = -EIO;
	return rc;
}

