// SPDX-License-Identifier: MIT
/*
 * Subnet managers: SMInfo (LID-routed SMP, attribute 0x20) of every port
 * whose CapabilityMask has IsSM (CA ports; port 0 of a switch, where a
 * switch keeps its mask), through the MAD window. No SM at all is a fact,
 * not an error; an SM that advertises IsSM and does not answer is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "scanner/scan_priv.h"

static void fill_req(struct fab_mad_req *req, uint16_t lid, uint64_t mkey,
		     uint64_t cookie)
{
	req->mkey = mkey;
	req->mgmt_class = FAB_MAD_CLASS_SMI;
	req->method = FAB_MAD_GET;
	req->attr_id = IB_ATTR_SMINFO;
	req->dlid = lid;
	req->cookie = cookie;
}

static void decode(struct fab_sm *sm, const uint8_t *d)
{
	sm->port_guid = mad_get_field64((void *)d, 0, IB_SMINFO_GUID_F);
	sm->act_count = mad_get_field((void *)d, 0, IB_SMINFO_ACT_F);
	sm->priority = (uint8_t)mad_get_field((void *)d, 0, IB_SMINFO_PRIO_F);
	sm->state = (uint8_t)mad_get_field((void *)d, 0, IB_SMINFO_STATE_F);
	sm->failed = false;
}

/* ---- one SMInfo ---- */

struct one {
	uint16_t lid;
	uint64_t mkey;
	bool sent;
	int err;
	struct fab_sm *out;
};

static int one_next(void *ctx, struct fab_mad_req *req)
{
	struct one *o = ctx;

	if (o->sent)
		return 0;
	o->sent = true;
	fill_req(req, o->lid, o->mkey, 0);
	return 1;
}

static void one_done(void *ctx, const struct fab_mad_req *req, int err,
		     const uint8_t *resp)
{
	struct one *o = ctx;

	(void)req;
	o->err = err;
	if (!err)
		decode(o->out, resp + FAB_MAD_DATA_OFFS);
}

int fab_scan_sminfo_one(struct fab_madwin *mw, uint16_t lid, uint64_t mkey,
			struct fab_sm *out)
{
	struct fab_sm sm = { .lid = lid, .port_idx = FAB_NONE };
	struct one o = { .lid = lid, .mkey = mkey, .out = &sm, .err = -ETIMEDOUT };
	int rc;

	if (!lid)
		return -EINVAL;
	rc = fab_madwin_run(mw, one_next, one_done, &o);
	if (rc)
		return rc;
	if (o.err)
		return o.err;
	*out = sm;
	return 0;
}

/* ---- every SM port ---- */

struct all {
	struct fab_snapshot *s;
	const struct fab_scan_opts *o;
	size_t next; /* next sms[] entry to send */
	int err;
};

static int all_next(void *ctx, struct fab_mad_req *req)
{
	struct all *a = ctx;

	while (a->next < a->s->n_sms) {
		size_t i = a->next++;
		struct fab_sm *sm = &a->s->sms[i];
		if (!sm->lid)
			continue; /* recorded as failed already */
		const struct fab_port *p = &a->s->ports[sm->port_idx];
		fill_req(req, sm->lid,
			 fab_mkeys_lookup(a->o->mkeys, p->guid,
					  a->s->nodes[p->node_idx].guid), i);
		return 1;
	}
	return 0;
}

static void all_done(void *ctx, const struct fab_mad_req *req, int err,
		     const uint8_t *resp)
{
	struct all *a = ctx;
	struct fab_sm *sm = &a->s->sms[req->cookie];
	struct fab_port *p = &a->s->ports[sm->port_idx];
	const struct fab_node *n = &a->s->nodes[p->node_idx];
	char who[FAB_SCAN_LABEL_CAP];
	uint64_t port_guid = sm->port_guid;

	if (!err) {
		decode(sm, resp + FAB_MAD_DATA_OFFS);
		if (!sm->port_guid)
			sm->port_guid = port_guid;
		return;
	}
	sm->failed = true;
	p->flags |= FAB_F_SMINFO_FAILED;
	int rc = fab_snapshot_add_error(a->s, n->guid, p->port_num, "sminfo",
		"%s port %u (LID %u) advertises a subnet manager (IsSM) but "
		"SMInfo %s (is the SM process hung?)",
		fab_scan_node_label(n, who, sizeof(who)), p->port_num,
		sm->lid, err == -ETIMEDOUT ? "got no answer after retries"
		       : err == -EREMOTEIO ? "was answered with an error status"
					   : "failed");
	if (rc && !a->err)
		a->err = rc;
}

int fab_scan_sms(struct fab_snapshot *s, struct fab_madwin *mw,
		 const struct fab_scan_opts *o)
{
	struct all a = { .s = s, .o = o };

	for (size_t ni = 0; ni < s->n_nodes; ni++) {
		const struct fab_node *n = &s->nodes[ni];

		for (uint32_t k = 0; k < n->port_count; k++) {
			uint32_t pi = n->port_first + k;
			const struct fab_port *p = &s->ports[pi];

			/* A switch keeps its CapabilityMask on port 0. */
			if (n->type == FAB_NODE_SWITCH ? p->port_num != 0
						       : p->port_num == 0)
				continue;
			if (!(p->cap_mask & FAB_PI_CAP_IS_SM))
				continue;
			struct fab_sm *sm = fab_snapshot_add_sm(s);
			if (!sm)
				return -ENOMEM;
			sm->port_guid = p->guid;
			sm->lid = n->type == FAB_NODE_SWITCH ? n->lid : p->lid;
			sm->port_idx = pi;
			if (!sm->lid) {
				char who[FAB_SCAN_LABEL_CAP];

				sm->failed = true;
				s->ports[pi].flags |= FAB_F_SMINFO_FAILED;
				if (fab_snapshot_add_error(s, n->guid, p->port_num, "sminfo",
					"%s port %u advertises a subnet manager but has no "
					"LID to ask it at", fab_scan_node_label(n, who, sizeof(who)),
					p->port_num))
					return -ENOMEM;
			}
		}
	}
	fab_scan_progress(o, "sms", 0, s->n_sms);
	int rc = s->n_sms ? fab_madwin_run(mw, all_next, all_done, &a) : 0;
	if (!rc)
		rc = a.err;
	fab_scan_progress(o, "sms", s->n_sms, s->n_sms);
	return rc;
}
