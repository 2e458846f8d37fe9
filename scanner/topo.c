// SPDX-License-Identifier: MIT
/*
 * Topology: libibnetdisc's fabric -> working topology -> (repair,
 * scanner/topo_repair.c) -> snapshot.
 *
 * libibnetdisc hands the kernel its retry count and never retries itself;
 * where the kernel does not retry (the simulator) or a MAD is lost for
 * good, it returns a fabric with holes and says so only on stderr. The
 * repair pass asks again, with our own retries and deadlines, for every
 * PortInfo, NodeDescription and neighbour it is missing, and follows new
 * switches it finds that way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include "fabsweep/names.h"
#include "scanner/scan_priv.h"

/* ---- working topology ----------------------------------------------- */

void wt_free(struct wt *w)
{
	free(w->nodes);
	free(w->ports);
	free(w->hash);
	memset(w, 0, sizeof(*w));
}

uint32_t wt_find(const struct wt *w, uint64_t guid)
{
	if (!w->hash_cap)
		return FAB_NONE;
	for (size_t h = fab_hash_slot(guid, w->hash_cap);; h = (h + 1) & (w->hash_cap - 1)) {
		uint32_t v = w->hash[h];
		if (!v)
			return FAB_NONE;
		if (w->nodes[v - 1].guid == guid)
			return v - 1;
	}
}

static int hash_grow(struct wt *w)
{
	size_t cap = w->hash_cap ? w->hash_cap * 2 : 1024;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < w->n_nodes; i++) {
		size_t k = fab_hash_slot(w->nodes[i].guid, cap);
		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = (uint32_t)i + 1;
	}
	free(w->hash);
	w->hash = h;
	w->hash_cap = cap;
	return 0;
}

uint32_t wt_add_node_dup(struct wt *w, uint64_t guid, unsigned type,
			 unsigned num_ports, bool dup)
{
	if (!dup && wt_find(w, guid) != FAB_NONE)
		return FAB_NONE;
	if (w->n_nodes == w->cap_nodes) {
		size_t cap = w->cap_nodes ? w->cap_nodes * 2 : 256;
		void *p = realloc(w->nodes, cap * sizeof(*w->nodes));
		if (!p)
			return FAB_NONE;
		w->nodes = p;
		w->cap_nodes = cap;
	}
	if (w->n_ports + num_ports + 1 > w->cap_ports) {
		size_t cap = w->cap_ports ? w->cap_ports : 1024;
		while (cap < w->n_ports + num_ports + 1)
			cap *= 2;
		void *p = realloc(w->ports, cap * sizeof(*w->ports));
		if (!p)
			return FAB_NONE;
		w->ports = p;
		w->cap_ports = cap;
	}
	if ((w->n_nodes + 1) * 2 > w->hash_cap && hash_grow(w))
		return FAB_NONE;

	uint32_t idx = (uint32_t)w->n_nodes++;
	struct wt_node *n = &w->nodes[idx];
	memset(n, 0, sizeof(*n));
	n->guid = guid;
	n->type = (uint8_t)type;
	n->num_ports = (uint8_t)num_ports;
	n->port_first = (uint32_t)w->n_ports;
	for (unsigned p = 0; p <= num_ports; p++) {
		struct wt_port *wp = &w->ports[w->n_ports++];
		memset(wp, 0, sizeof(*wp));
		wp->rnode = FAB_NONE;
	}
	size_t k = fab_hash_slot(guid, w->hash_cap);
	while (w->hash[k])
		k = (k + 1) & (w->hash_cap - 1);
	w->hash[k] = idx + 1;
	return idx;
}

uint32_t wt_add_node(struct wt *w, uint64_t guid, unsigned type,
		     unsigned num_ports)
{
	return wt_add_node_dup(w, guid, type, num_ports, false);
}

unsigned wt_pi_get(const uint8_t *info, int f)
{
	return mad_get_field((void *)info, 0, (enum MAD_FIELDS)f);
}

/* ---- libibnetdisc -> working topology -------------------------------- */

int wt_from_ibnd(struct wt *w, struct ibnd_fabric *f, bool paths_valid)
{
	for (ibnd_node_t *in = f->nodes; in; in = in->next) {
		int np = in->numports;

		if (np < 0 || np > 254)
			np = np < 0 ? 0 : 254;
		uint32_t idx = wt_add_node(w, in->guid, (unsigned)in->type, (unsigned)np);
		if (idx == FAB_NONE) {
			if (wt_find(w, in->guid) != FAB_NONE)
				continue; /* listed twice: keep the first */
			return -ENOMEM;
		}
		struct wt_node *n = &w->nodes[idx];
		memcpy(n->node_info, in->info, sizeof(n->node_info));
		memcpy(n->desc, in->nodedesc, sizeof(n->desc));
		n->have_desc = in->nodedesc[0] != '\0';
		n->path_valid = paths_valid;
		if (paths_valid) {
			int hops = in->path_portid.drpath.cnt;
			n->hops = (uint8_t)(hops < 0 ? 0 : hops > WT_MAX_HOPS ? WT_MAX_HOPS : hops);
			memcpy(n->path, in->path_portid.drpath.p, sizeof(n->path));
		}
		if (!in->ports)
			continue;
		for (int p = 0; p <= np; p++) {
			ibnd_port_t *ip = in->ports[p];
			struct wt_port *wp = wt_port(w, idx, (unsigned)p);

			if (!ip)
				continue;
			wp->exists = true;
			wp->guid = ip->guid;
			memcpy(wp->info, ip->info, sizeof(wp->info));
			/* A port shell libibnetdisc created from NodeInfo whose
			 * PortInfo never came has PortState 0 (no state). */
			wp->have_info = wt_pi_get(ip->info, IB_PORT_STATE_F) != 0;
			wp->fdr10_act = (uint8_t)mad_get_field(ip->ext_info, 0,
						IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F);
			wp->fdr10_en = (uint8_t)mad_get_field(ip->ext_info, 0,
						IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F);
			wp->fdr10_sup = (uint8_t)mad_get_field(ip->ext_info, 0,
						IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F);
		}
	}
	/* Links, now that every node has an index. */
	for (ibnd_node_t *in = f->nodes; in; in = in->next) {
		uint32_t idx = wt_find(w, in->guid);
		int np = w->nodes[idx].num_ports;

		if (!in->ports)
			continue;
		for (int p = 0; p <= np && p <= in->numports; p++) {
			ibnd_port_t *ip = in->ports[p], *rp;

			if (!ip || !(rp = ip->remoteport) || !rp->node || p == 0)
				continue;
			uint32_t r = wt_find(w, rp->node->guid);
			if (r == FAB_NONE || rp->portnum < 1 ||
			    rp->portnum > w->nodes[r].num_ports)
				continue;
			struct wt_port *wp = wt_port(w, idx, (unsigned)p);
			wp->rnode = r;
			wp->rport = (uint8_t)rp->portnum;
		}
	}
	return 0;
}

/* ---- working topology -> snapshot ---------------------------------- */

bool wt_has_dup(const struct wt *w)
{
	for (size_t i = 0; i < w->n_nodes; i++)
		if (w->nodes[i].dup_guid)
			return true;
	return false;
}

struct order {
	uint64_t guid;
	uint32_t idx;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

const char *fab_scan_node_label(const struct fab_node *n, char *buf, size_t len)
{
	char nb[FAB_NODE_NAME_CAP];

	/* The GUID and port are columns of scan_errors already: the name is
	 * what a reader of the message needs (fab_node_name's, with GUID
	 * digits when the description is shared). */
	if (n->desc[0])
		snprintf(buf, len, "\"%s\"", fab_name_format(NULL, n->guid, n->desc, n->name_hex, nb, sizeof(nb)));
	else
		fab_guid_format(n->guid, buf); /* len >= FAB_GUID_STRLEN */
	return buf;
}

int wt_to_snapshot(const struct wt *w, struct fab_snapshot *s)
{
	struct order *ord = malloc((w->n_nodes + 1) * sizeof(*ord));
	uint32_t *w2s = malloc((w->n_nodes + 1) * sizeof(*w2s));
	uint32_t *s2w = malloc((w->n_nodes + 1) * sizeof(*s2w));
	uint8_t fdr10[64];
	int rc = -ENOMEM;

	if (!ord || !w2s || !s2w)
		goto out;
	for (uint32_t i = 0; i < w->n_nodes; i++)
		ord[i] = (struct order){ w->nodes[i].guid, i };
	qsort(ord, w->n_nodes, sizeof(*ord), cmp_order);

	for (size_t k = 0; k < w->n_nodes; k++) {
		const struct wt_node *wn = &w->nodes[ord[k].idx];
		const struct wt_port *p0 = wt_port(w, ord[k].idx, 0);
		bool sw = wn->type == FAB_NODE_SWITCH;
		struct fab_node *n = fab_snapshot_add_node(s);

		if (!n)
			goto out;
		uint32_t ni = (uint32_t)(s->n_nodes - 1);
		w2s[ord[k].idx] = ni;
		s2w[ni] = ord[k].idx;
		n->guid = wn->guid;
		n->sys_guid = mad_get_field64((void *)wn->node_info, 0, IB_NODE_SYSTEM_GUID_F);
		n->type = wn->type < FAB_NODE__COUNT ? wn->type : FAB_NODE_UNKNOWN;
		n->num_ports = wn->num_ports;
		n->vendor_id = mad_get_field((void *)wn->node_info, 0, IB_NODE_VENDORID_F);
		n->device_id = mad_get_field((void *)wn->node_info, 0, IB_NODE_DEVID_F);
		n->revision = mad_get_field((void *)wn->node_info, 0, IB_NODE_REVISION_F);
		n->hops = wn->path_valid ? (int16_t)wn->hops : -1;
		n->flags = wn->dup_guid ? FAB_F_DUP_GUID : 0;
		fab_node_set_desc(n, wn->desc, sizeof(wn->desc));
		/* A live node whose NodeDescription never answered (an empty
		 * one that answered has have_desc): unknown, said below. */
		if (wn->path_valid && !wn->have_desc)
			n->flags |= FAB_F_SMP_FAILED;
		/* A switch's LID is port 0's: without it, unknown, never 0. */
		bool sw_lid_known = sw && p0->have_info;
		uint16_t sw_lid = sw_lid_known ? (uint16_t)wt_pi_get(p0->info, IB_PORT_LID_F) : 0;

		for (unsigned p = sw ? 0 : 1; p <= wn->num_ports; p++) {
			const struct wt_port *wp = wt_port(w, ord[k].idx, p);

			if (!sw && !wp->exists)
				continue;
			struct fab_port *fp = fab_snapshot_add_port(s);
			if (!fp)
				goto out;
			n = &s->nodes[ni];
			fp->node_idx = ni;
			fp->port_num = (uint8_t)p;
			fp->guid = wp->guid ? wp->guid : (sw ? wn->guid : 0);
			n->port_count++;
			if (!wp->have_info) {
				fp->flags |= FAB_F_SMP_FAILED | FAB_F_LID_UNKNOWN;
				n->flags |= FAB_F_SMP_FAILED;
				continue;
			}
			const uint8_t *ext = NULL;
			if (wp->fdr10_act | wp->fdr10_en | wp->fdr10_sup) {
				memset(fdr10, 0, sizeof(fdr10));
				mad_set_field(fdr10, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, wp->fdr10_act);
				mad_set_field(fdr10, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, wp->fdr10_en);
				mad_set_field(fdr10, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, wp->fdr10_sup);
				ext = fdr10;
			}
			fab_scan_decode_portinfo(fp, wp->info,
						 sw ? (p0->have_info ? p0->info : NULL) : wp->info,
						 ext);
			if (sw && p > 0) {
				/* Switch external ports carry the switch's LID. */
				fp->lid = sw_lid;
				fp->lmc = 0;
				if (!sw_lid_known)
					fp->flags |= FAB_F_LID_UNKNOWN;
			}
		}
		if (sw) {
			n->lid = sw_lid;
			if (!sw_lid_known)
				n->flags |= FAB_F_LID_UNKNOWN;
		} else {
			const struct fab_port *fp = fab_node_ports(s, n);
			bool known = false;
			for (uint32_t i = 0; i < n->port_count && !n->lid; i++)
				if (fp[i].state == FAB_STATE_ACTIVE)
					n->lid = fp[i].lid;
			for (uint32_t i = 0; i < n->port_count && !n->lid; i++)
				n->lid = fp[i].lid;
			for (uint32_t i = 0; i < n->port_count; i++)
				known |= !(fp[i].flags & FAB_F_LID_UNKNOWN);
			if (!known)
				n->flags |= FAB_F_LID_UNKNOWN;
		}
	}

	/* the names the messages below (and every later read's) give nodes */
	if ((rc = fab_snapshot_name_nodes(s)))
		goto out;
	/* Remote ends, holes and what discovery could not read. */
	for (size_t i = 0; i < s->n_ports; i++) {
		struct fab_port *fp = &s->ports[i];
		struct fab_node *n = &s->nodes[fp->node_idx];
		const struct wt_port *wp = wt_port(w, s2w[fp->node_idx], fp->port_num);
		char who[FAB_SCAN_LABEL_CAP];

		/* The cable is known even when this end's PortInfo is not: the
		 * far end was reached through it (both ends point at each other). */
		if (fp->port_num > 0 && wp->rnode != FAB_NONE) {
			struct fab_port *rp = fab_snapshot_port(s, w2s[wp->rnode], wp->rport);
			if (rp) {
				fp->remote_idx = (uint32_t)(rp - s->ports);
				fp->remote_guid = s->nodes[rp->node_idx].guid; /* the remote node, as ibnetdiscover names it */
				fp->remote_port = rp->port_num;
			}
		}
		if (fp->flags & FAB_F_SMP_FAILED) {
			rc = fab_snapshot_add_error(s, n->guid, fp->port_num, "smp",
				"%s port %u: PortInfo did not answer after retries; "
				"its state is unknown (check the device's management agent)",
				fab_scan_node_label(n, who, sizeof(who)), fp->port_num);
			if (rc)
				goto out;
			continue;
		}
		if (fp->port_num > 0 && fp->remote_idx == FAB_NONE && wp->dup_of &&
		    fp->phys_state == FAB_PHYS_LINKUP) {
			char g[FAB_GUID_STRLEN];

			fab_guid_format(wp->dup_of, g);
			rc = fab_snapshot_add_error(s, n->guid, fp->port_num, "dup_guid",
				"%s port %u: the device behind it answered NodeInfo with GUID "
				"%s, which another device has; it is not in the snapshot "
				"(too many devices share GUIDs; give every device a unique GUID)",
				fab_scan_node_label(n, who, sizeof(who)), fp->port_num, g);
			if (rc)
				goto out;
			continue;
		}
		if (fp->port_num > 0 && fp->remote_idx == FAB_NONE &&
		    fp->phys_state == FAB_PHYS_LINKUP) {
			fp->flags |= FAB_F_NO_REMOTE;
			rc = fab_snapshot_add_error(s, n->guid, fp->port_num, "hole",
				"%s port %u: the link is up but the node behind it did not "
				"answer NodeInfo after retries (check that node and the cable)",
				fab_scan_node_label(n, who, sizeof(who)), fp->port_num);
			if (rc)
				goto out;
		}
	}
	for (size_t i = 0; i < s->n_nodes; i++) {
		char who[FAB_SCAN_LABEL_CAP];
		const struct fab_node *n = &s->nodes[i];
		const struct wt_node *wn = &w->nodes[s2w[i]];

		if (wn->path_valid && !wn->have_desc) {
			rc = fab_snapshot_add_error(s, n->guid, -1, "smp",
				"%s: NodeDescription did not answer after retries; its "
				"description is unknown (stored as '' with smp_failed)",
				fab_scan_node_label(n, who, sizeof(who)));
			if (rc)
				goto out;
		}
		if (!(n->flags & FAB_F_DUP_GUID))
			continue;
		rc = fab_snapshot_add_error(s, n->guid, -1, "dup_guid",
			"%s: GUID seen on more than one device; each is kept as a node "
			"of its own (give every device a unique GUID)",
			fab_scan_node_label(n, who, sizeof(who)));
		if (rc)
			goto out;
	}
	rc = fab_snapshot_build_links(s);
out:
	free(ord);
	free(w2s);
	free(s2w);
	return rc;
}

