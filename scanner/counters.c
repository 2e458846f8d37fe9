// SPDX-License-Identifier: MIT
/*
 * Port counters through the PMA, all through one MAD window:
 *
 *   1. ClassPortInfo once per node (what the PMA supports), or once for
 *      all nodes of one device model in one system (same vendor, device
 *      and revision, same non-zero SystemImageGUID: one chassis or one
 *      multi-function card runs one firmware, so the answer cannot
 *      differ; docs/scan.md says why not once per model);
 *   2. PortCounters (0x12) for every port with an active link, and
 *      PortCountersExtended (0x1D) where ClassPortInfo says so (only the
 *      latter where it also carries the error counters:
 *      IsAddlPortCtrsExtSup). A switch whose PMA has AllPortSelect and
 *      extended counters is first asked for the sum over its ports
 *      (PortSelect 0xFF): where every error counter of the sum, and its
 *      PortXmitWait when supported, is 0, so is every port's (counters
 *      do not go below 0), and only PortCountersExtended is asked per
 *      port; otherwise both, as for any port (docs/scan.md, "Counters of
 *      clean switches");
 *   3. the detail counters where they explain something (docs/counters.md
 *      "Detail counters"): PortRcvErrorDetails (0x15) for a port whose
 *      PortRcvErrors is not 0, PortXmitDiscardDetails (0x16) for one whose
 *      PortXmitDiscards is not 0, queued as its counters arrive; and
 *      PortVLXmitWaitCounters (0x1C) for a port whose PortXmitWait grew
 *      since the first round, or that discarded packets for their lifetime
 *      (HOQ or switch lifetime) while waiting, unless both details were
 *      asked: at most two more MADs per port. A PMA that answers them with
 *      an error status, or not at all, does not have them: the sample says
 *      so (unsupported) and the node's other ports are not asked;
 *   4. with --interval, the same again S seconds after the first round
 *      started (sample 1);
 *   5. with --reset-counters, a PortCounters(Extended) Set on every port
 *      that was read, and a Set of the detail attributes read: the only
 *      Sets this scanner ever sends.
 *
 * Switch ports are addressed at the switch's LID with PortSelect, CA ports
 * at their own LID. A port whose PMA does not answer gets FAB_F_PMA_FAILED
 * and an error row, never zero counters; once a node's PMA has failed
 * after all retries, its remaining queries are not sent (bounded time).
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "scanner/scan_priv.h"

enum cjob { CJ_CPI = 1, CJ_SUM, CJ_PC, CJ_PCX, CJ_RESET, CJ_RESETX, CJ_RED, CJ_XDD, CJ_VLW,
	    CJ_RESET_RED, CJ_RESET_XDD };

static uint64_t cjob(enum cjob kind, uint32_t idx)
{
	return (uint64_t)idx | (uint64_t)kind << 32;
}
#define CJ_IDX(j) ((uint32_t)(j))
#define CJ_KIND(j) ((unsigned)((j) >> 32) & 0xff)

enum { CPI_PENDING = 0, CPI_OK, CPI_FAILED };

struct cnode {
	uint16_t lid;   /* where the node's PMA answers ClassPortInfo */
	uint16_t cap;   /* ClassPortInfo.CapabilityMask */
	uint32_t cap2;  /* ClassPortInfo.CapabilityMask2 */
	uint8_t cpi;    /* CPI_* */
	bool dead;      /* PMA gave no answer after retries: stop asking */
	bool clean;     /* this round: the AllPortSelect sum of the errors is 0 */
	uint8_t unsup;  /* FAB_PMA_*: optional attributes this PMA does not have */
	/* Nodes of the same model in the same system wait for this node's
	 * ClassPortInfo: a list through next_same (FAB_NONE ends it). */
	uint32_t first_same, next_same;
};

/* Per port, per round. */
enum { PS_PC_OK = 1, PS_PC_FAIL = 2, PS_PCX_DONE = 4, PS_QUEUED = 8, PS_VLW = 16, PS_RED = 32,
       PS_XDD = 64 };

struct ctr {
	struct fab_snapshot *s;
	const struct fab_scan_opts *o;
	struct fab_jobq q;
	struct cnode *nodes;
	uint32_t *sample; /* per port: sample index this round, FAB_NONE */
	uint32_t *prev;   /* per port: its sample index of round 0, in round 1 */
	uint8_t *st;      /* per port: PS_* this round */
	unsigned round;
	int retries;
	int err;
	unsigned long done, total;
};

static bool ext_supported(const struct cnode *cn)
{
	return cn->cpi == CPI_OK &&
	       (cn->cap & (FAB_PM_CAP_EXT_WIDTH | FAB_PM_CAP_EXT_WIDTH_NOIETF));
}

/* With IsAddlPortCtrsExtSup, PortCountersExtended carries the error
 * counters too: one MAD per port instead of two. */
static bool pcx_only(const struct cnode *cn)
{
	return ext_supported(cn) && (cn->cap2 & FAB_PM_CAP2_ADDL_PORT_CTRS_EXT);
}

/* Whether a port's PortCounters is asked, not known from a clean sum. */
static bool pc_asked(const struct cnode *cn)
{
	return !pcx_only(cn) && !cn->clean;
}

/* A port whose counters are read: an external port with an active link. */
static bool eligible(const struct fab_snapshot *s, const struct fab_port *p)
{
	return p->port_num > 0 && p->state == FAB_STATE_ACTIVE &&
	       !(p->flags & FAB_F_SMP_FAILED) && fab_scan_port_dlid(s, p) != 0;
}

/* Whether the node's ports are read after its AllPortSelect sum: a switch
 * whose PMA sums and has extended counters (the data counters come from
 * those, per port) with two eligible ports or more (one costs no less). */
static bool sum_first(const struct ctr *c, uint32_t node_idx)
{
	const struct fab_node *n = &c->s->nodes[node_idx];
	const struct cnode *cn = &c->nodes[node_idx];
	unsigned n_ports = 0;

	if (n->type != FAB_NODE_SWITCH || !ext_supported(cn) || pcx_only(cn) ||
	    !(cn->cap & FAB_PM_CAP_ALL_PORT_SELECT))
		return false;
	for (uint32_t k = 0; k < n->port_count && n_ports < 2; k++)
		n_ports += eligible(c->s, &c->s->ports[n->port_first + k]) &&
			   !(c->s->ports[n->port_first + k].flags & FAB_F_PMA_FAILED);
	return n_ports >= 2;
}

static void push(struct ctr *c, uint64_t job)
{
	if (!c->err)
		c->err = fab_jobq_push(&c->q, job);
	c->total++;
}

static void add_err(struct ctr *c, uint32_t port_idx, const char *what,
		    const char *detail)
{
	const struct fab_port *p = &c->s->ports[port_idx];
	const struct fab_node *n = &c->s->nodes[p->node_idx];
	char who[FAB_DESC_CAP + 8];
	int rc;

	rc = fab_snapshot_add_error(c->s, n->guid, p->port_num, what,
		"%s port %u (LID %u): %s", fab_scan_node_label(n, who, sizeof(who)),
		p->port_num, fab_scan_port_dlid(c->s, p), detail);
	if (rc && !c->err)
		c->err = rc;
}

static void pma_failed(struct ctr *c, uint32_t port_idx, const char *detail)
{
	struct fab_port *p = &c->s->ports[port_idx];

	c->st[port_idx] |= PS_PC_FAIL;
	if (p->flags & FAB_F_PMA_FAILED)
		return; /* one row per port, even over two rounds */
	p->flags |= FAB_F_PMA_FAILED;
	c->s->nodes[p->node_idx].flags |= FAB_F_PMA_FAILED;
	add_err(c, port_idx, "pma", detail);
}

/* Queues this round's counter queries for the node's eligible ports (a
 * clean switch's error counters and PortXmitWait are its sum's 0s). */
static void queue_ports(struct ctr *c, uint32_t node_idx)
{
	const struct fab_node *n = &c->s->nodes[node_idx];
	const struct cnode *cn = &c->nodes[node_idx];

	for (uint32_t k = 0; k < n->port_count; k++) {
		uint32_t pi = n->port_first + k;
		const struct fab_port *p = &c->s->ports[pi];

		if (!eligible(c->s, p) || (p->flags & FAB_F_PMA_FAILED))
			continue;
		if (c->round > 0 && c->sample[pi] == FAB_NONE)
			continue;
		struct fab_counter_sample *smp = fab_snapshot_add_sample(c->s);
		if (!smp) {
			c->err = -ENOMEM;
			return;
		}
		smp->port_idx = pi;
		smp->sample = (uint8_t)c->round;
		c->sample[pi] = (uint32_t)(c->s->n_samples - 1);
		c->st[pi] = PS_QUEUED;
		if (cn->clean) {
			for (unsigned i = 0; i <= FAB_CTR_VL15_DROPPED; i++)
				smp->valid |= 1u << i; /* v[i] is 0 */
			if (cn->cap & FAB_PM_CAP_XMIT_WAIT)
				smp->valid |= 1u << FAB_CTR_XMIT_WAIT;
		}
		if (pc_asked(cn))
			push(c, cjob(CJ_PC, pi));
		if (ext_supported(cn))
			push(c, cjob(CJ_PCX, pi));
	}
}

/* A node's counters this round: its sum first, or its ports. */
static void start_node(struct ctr *c, uint32_t node_idx)
{
	c->nodes[node_idx].clean = false;
	if (sum_first(c, node_idx))
		push(c, cjob(CJ_SUM, node_idx));
	else
		queue_ports(c, node_idx);
}

static unsigned detail_attr(unsigned kind)
{
	return kind == CJ_RED || kind == CJ_RESET_RED	? IB_GSI_PORT_RCV_ERROR_DETAILS
	       : kind == CJ_XDD || kind == CJ_RESET_XDD ? IB_GSI_PORT_XMIT_DISCARD_DETAILS
							: IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS;
}

static unsigned detail_bit(unsigned kind)
{
	return kind == CJ_RED ? FAB_PMA_RCV_ERROR_DETAILS
	       : kind == CJ_XDD ? FAB_PMA_XMIT_DISCARD_DETAILS : FAB_PMA_VL_XMIT_WAIT;
}

static void build(struct ctr *c, uint64_t j, struct fab_mad_req *req)
{
	uint32_t idx = CJ_IDX(j);
	unsigned kind = CJ_KIND(j);

	req->mgmt_class = FAB_MAD_CLASS_PERF;
	req->method = FAB_MAD_GET;
	req->cookie = j;
	if (kind == CJ_CPI) {
		req->attr_id = CLASS_PORT_INFO;
		req->dlid = c->nodes[idx].lid;
		return;
	}
	if (kind == CJ_SUM) {
		req->attr_id = IB_GSI_PORT_COUNTERS;
		req->dlid = c->nodes[idx].lid;
		mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, 0xff);
		return;
	}
	const struct fab_port *p = &c->s->ports[idx];
	const struct cnode *cn = &c->nodes[p->node_idx];
	req->dlid = fab_scan_port_dlid(c->s, p);
	switch (kind) {
	case CJ_PC:
		req->attr_id = IB_GSI_PORT_COUNTERS;
		mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, p->port_num);
		break;
	case CJ_PCX:
		req->attr_id = IB_GSI_PORT_COUNTERS_EXT;
		mad_set_field(req->data, 0, IB_PC_EXT_PORT_SELECT_F, p->port_num);
		break;
	case CJ_RESET:
		req->method = FAB_MAD_SET;
		req->attr_id = IB_GSI_PORT_COUNTERS;
		mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, p->port_num);
		mad_set_field(req->data, 0, IB_PC_COUNTER_SELECT_F, 0xffff);
		if (cn->cap & FAB_PM_CAP_XMIT_WAIT)
			mad_set_field(req->data, 0, IB_PC_COUNTER_SELECT2_F, 1);
		break;
	case CJ_RED:
	case CJ_XDD:
	case CJ_VLW:
	case CJ_RESET_RED:
	case CJ_RESET_XDD:
		req->attr_id = detail_attr(kind);
		mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, p->port_num);
		if (kind == CJ_RESET_RED || kind == CJ_RESET_XDD) {
			req->method = FAB_MAD_SET;
			mad_set_field(req->data, 0, IB_PC_COUNTER_SELECT_F, 0xffff);
		}
		break;
	case CJ_RESETX:
		req->method = FAB_MAD_SET;
		req->attr_id = IB_GSI_PORT_COUNTERS_EXT;
		mad_set_field(req->data, 0, IB_PC_EXT_PORT_SELECT_F, p->port_num);
		mad_set_field(req->data, 0, IB_PC_EXT_COUNTER_SELECT_F,
			      cn->cap & FAB_PM_CAP_EXT_WIDTH ? 0xff : 0x0f);
		if (cn->cap2 & FAB_PM_CAP2_ADDL_PORT_CTRS_EXT)
			mad_set_field(req->data, 0, IB_PC_EXT_COUNTER_SELECT2_F,
				      0x0fff | (cn->cap & FAB_PM_CAP_XMIT_WAIT ? 0x1000 : 0));
		break;
	}
}

static int ctr_next(void *ctx, struct fab_mad_req *req)
{
	struct ctr *c = ctx;
	uint64_t j;

	while (!c->err && fab_jobq_pop(&c->q, &j)) {
		unsigned kind = CJ_KIND(j);
		if (kind != CJ_CPI && kind != CJ_SUM) {
			uint32_t pi = CJ_IDX(j);
			uint32_t ni = c->s->ports[pi].node_idx;
			if (c->nodes[ni].dead) {
				/* Not sent: this PMA already failed. */
				c->done++;
				if (kind == CJ_PC || (kind == CJ_PCX && !pc_asked(&c->nodes[ni])))
					pma_failed(c, pi, "not asked: this node's PMA did not answer "
						      "earlier queries after retries");
				continue;
			}
		}
		build(c, j, req);
		return 1;
	}
	return c->err;
}

/* PortCounters fields in enum fab_counter order (error counters). */
static const enum MAD_FIELDS pc_err_fields[] = {
	IB_PC_ERR_SYM_F,	 IB_PC_LINK_RECOVERS_F,	 IB_PC_LINK_DOWNED_F,
	IB_PC_ERR_RCV_F,	 IB_PC_ERR_PHYSRCV_F,	 IB_PC_ERR_SWITCH_REL_F,
	IB_PC_XMT_DISCARDS_F,	 IB_PC_ERR_XMTCONSTR_F,	 IB_PC_ERR_RCVCONSTR_F,
	IB_PC_ERR_LOCALINTEG_F,	 IB_PC_ERR_EXCESS_OVR_F, IB_PC_VL15_DROPPED_F,
};
static const enum MAD_FIELDS pcx_err_fields[] = {
	IB_PC_EXT_ERR_SYM_F,	    IB_PC_EXT_LINK_RECOVERS_F,
	IB_PC_EXT_LINK_DOWNED_F,    IB_PC_EXT_ERR_RCV_F,
	IB_PC_EXT_ERR_PHYSRCV_F,    IB_PC_EXT_ERR_SWITCH_REL_F,
	IB_PC_EXT_XMT_DISCARDS_F,   IB_PC_EXT_ERR_XMTCONSTR_F,
	IB_PC_EXT_ERR_RCVCONSTR_F,  IB_PC_EXT_ERR_LOCALINTEG_F,
	IB_PC_EXT_ERR_EXCESS_OVR_F, IB_PC_EXT_VL15_DROPPED_F,
};
static_assert(sizeof(pc_err_fields) / sizeof(pc_err_fields[0]) ==
		      FAB_CTR_VL15_DROPPED + 1, "error counters");
static_assert(sizeof(pcx_err_fields) == sizeof(pc_err_fields), "ext errors");

static const struct {
	unsigned ctr;
	enum MAD_FIELDS pc, pcx;
} data_fields[] = {
	{ FAB_CTR_XMIT_DATA, IB_PC_XMT_BYTES_F, IB_PC_EXT_XMT_BYTES_F },
	{ FAB_CTR_RCV_DATA, IB_PC_RCV_BYTES_F, IB_PC_EXT_RCV_BYTES_F },
	{ FAB_CTR_XMIT_PKTS, IB_PC_XMT_PKTS_F, IB_PC_EXT_XMT_PKTS_F },
	{ FAB_CTR_RCV_PKTS, IB_PC_RCV_PKTS_F, IB_PC_EXT_RCV_PKTS_F },
};
static const struct {
	unsigned ctr;
	enum MAD_FIELDS pcx;
} ietf_fields[] = {
	{ FAB_CTR_UNICAST_XMIT_PKTS, IB_PC_EXT_XMT_UPKTS_F },
	{ FAB_CTR_UNICAST_RCV_PKTS, IB_PC_EXT_RCV_UPKTS_F },
	{ FAB_CTR_MULTICAST_XMIT_PKTS, IB_PC_EXT_XMT_MPKTS_F },
	{ FAB_CTR_MULTICAST_RCV_PKTS, IB_PC_EXT_RCV_MPKTS_F },
};

/* PortRcvErrorDetails and PortXmitDiscardDetails fields in enum order. */
static const struct {
	unsigned ctr;
	enum MAD_FIELDS f;
} detail_fields[] = {
	{ FAB_CTR_LOCAL_PHYSICAL_ERRORS, IB_PC_RCV_LOCAL_PHY_ERR_F },
	{ FAB_CTR_MALFORMED_PACKET_ERRORS, IB_PC_RCV_MALFORMED_PKT_ERR_F },
	{ FAB_CTR_BUFFER_OVERRUN_ERRORS, IB_PC_RCV_BUF_OVR_ERR_F },
	{ FAB_CTR_DLID_MAPPING_ERRORS, IB_PC_RCV_DLID_MAP_ERR_F },
	{ FAB_CTR_VL_MAPPING_ERRORS, IB_PC_RCV_VL_MAP_ERR_F },
	{ FAB_CTR_LOOPING_ERRORS, IB_PC_RCV_LOOPING_ERR_F },
	{ FAB_CTR_INACTIVE_DISCARDS, IB_PC_XMT_INACT_DISC_F },
	{ FAB_CTR_NEIGHBOR_MTU_DISCARDS, IB_PC_XMT_NEIGH_MTU_DISC_F },
	{ FAB_CTR_SW_LIFETIME_LIMIT_DISCARDS, IB_PC_XMT_SW_LIFE_DISC_F },
	{ FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS, IB_PC_XMT_SW_HOL_DISC_F },
};

void fab_scan_decode_details(struct fab_counter_sample *smp, const uint8_t *d, unsigned attr)
{
	if (attr == IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS) {
		for (unsigned v = 0; v < FAB_N_VLS; v++)
			smp->vl_xmit_wait[v] = (uint16_t)mad_get_field(
				(void *)d, 0, (enum MAD_FIELDS)(IB_PC_PORT_VL_XMIT_WAIT0_F + v));
		smp->vl_valid = 0xffff;
		return;
	}
	unsigned of = attr == IB_GSI_PORT_RCV_ERROR_DETAILS ? FAB_CTR_RCV_ERRORS
		      : attr == IB_GSI_PORT_XMIT_DISCARD_DETAILS ? FAB_CTR_XMIT_DISCARDS : 0;
	for (unsigned i = 0; of && i < ARRAY_SIZE(detail_fields); i++) {
		if (fab_counter_detail_of(detail_fields[i].ctr) != (int)of)
			continue;
		smp->v[detail_fields[i].ctr] = mad_get_field((void *)d, 0, detail_fields[i].f);
		smp->valid |= 1u << detail_fields[i].ctr;
	}
}

void fab_scan_decode_pc(struct fab_counter_sample *smp, const uint8_t *d, bool errors,
			bool xmit_wait, bool data)
{
	for (unsigned i = 0; errors && i < ARRAY_SIZE(pc_err_fields); i++) {
		smp->v[i] = mad_get_field((void *)d, 0, pc_err_fields[i]);
		smp->valid |= 1u << i;
	}
	if (xmit_wait) {
		smp->v[FAB_CTR_XMIT_WAIT] = mad_get_field((void *)d, 0, IB_PC_XMT_WAIT_F);
		smp->valid |= 1u << FAB_CTR_XMIT_WAIT;
	}
	for (unsigned i = 0; data && i < ARRAY_SIZE(data_fields); i++) {
		smp->v[data_fields[i].ctr] = mad_get_field((void *)d, 0, data_fields[i].pc);
		smp->valid |= 1u << data_fields[i].ctr;
	}
}

/* PortCounters answer -> sample, not overwriting what the extended one set. */
static void decode_pc(struct fab_counter_sample *smp, const uint8_t *d,
		      const struct cnode *cn)
{
	bool addl = smp->extended && (cn->cap2 & FAB_PM_CAP2_ADDL_PORT_CTRS_EXT);

	fab_scan_decode_pc(smp, d, !addl, (cn->cap & FAB_PM_CAP_XMIT_WAIT) && !addl,
			   !smp->extended);
}

static void decode_pcx(struct fab_counter_sample *smp, const uint8_t *d,
		       const struct cnode *cn)
{
	smp->extended = true;
	for (unsigned i = 0; i < ARRAY_SIZE(data_fields); i++) {
		smp->v[data_fields[i].ctr] = mad_get_field64((void *)d, 0, data_fields[i].pcx);
		smp->valid |= 1u << data_fields[i].ctr;
	}
	if (cn->cap & FAB_PM_CAP_EXT_WIDTH) {
		for (unsigned i = 0; i < ARRAY_SIZE(ietf_fields); i++) {
			smp->v[ietf_fields[i].ctr] = mad_get_field64((void *)d, 0, ietf_fields[i].pcx);
			smp->valid |= 1u << ietf_fields[i].ctr;
		}
	}
	if (cn->cap2 & FAB_PM_CAP2_ADDL_PORT_CTRS_EXT) {
		for (unsigned i = 0; i < ARRAY_SIZE(pcx_err_fields); i++) {
			smp->v[i] = mad_get_field64((void *)d, 0, pcx_err_fields[i]);
			smp->valid |= 1u << i;
		}
		if (cn->cap & FAB_PM_CAP_XMIT_WAIT) {
			smp->v[FAB_CTR_XMIT_WAIT] = mad_get_field64((void *)d, 0, IB_PC_EXT_XMT_WAIT_F);
			smp->valid |= 1u << FAB_CTR_XMIT_WAIT;
		}
	}
}

/* Queues an optional attribute of a port, unless its PMA lacks it. */
static void ask(struct ctr *c, enum cjob kind, uint32_t pi)
{
	struct cnode *cn = &c->nodes[c->s->ports[pi].node_idx];
	struct fab_counter_sample *smp = &c->s->samples[c->sample[pi]];

	if (cn->unsup & detail_bit(kind)) {
		smp->unsupported |= (uint8_t)detail_bit(kind);
		return;
	}
	/* at most two detail MADs per port and round: the per-VL waits are
	 * left out where both kinds of details are asked */
	if (kind == CJ_VLW) {
		if ((c->st[pi] & PS_VLW) || (c->st[pi] & (PS_RED | PS_XDD)) == (PS_RED | PS_XDD))
			return;
		c->st[pi] |= PS_VLW;
	}
	c->st[pi] |= kind == CJ_RED ? PS_RED : kind == CJ_XDD ? PS_XDD : 0;
	push(c, cjob(kind, pi));
}

static bool nonzero(const struct fab_counter_sample *smp, unsigned ctr)
{
	return (smp->valid & (1u << ctr)) && smp->v[ctr];
}

/* The detail counters a port's error counters call for, as they arrive:
 * the details of a non-zero PortRcvErrors or PortXmitDiscards, the per-VL
 * waits of a PortXmitWait that grew since round 0. */
static void queue_details(struct ctr *c, uint32_t pi)
{
	const struct fab_counter_sample *smp = &c->s->samples[c->sample[pi]];

	if (nonzero(smp, FAB_CTR_RCV_ERRORS))
		ask(c, CJ_RED, pi);
	if (nonzero(smp, FAB_CTR_XMIT_DISCARDS))
		ask(c, CJ_XDD, pi);
	if (c->round > 0 && c->prev[pi] != FAB_NONE) {
		struct fab_counter_delta d;

		fab_counter_delta(&c->s->samples[c->prev[pi]], smp, 1u << FAB_CTR_XMIT_WAIT, &d);
		if (d.reset || d.inc[FAB_CTR_XMIT_WAIT])
			ask(c, CJ_VLW, pi);
	}
}

static const char *fail_text(int err, const uint8_t *resp, char *buf, size_t len)
{
	if (err == -EREMOTEIO && resp)
		snprintf(buf, len, "answered with MAD status 0x%04x", fab_mad_status(resp));
	else if (err == -ETIMEDOUT)
		snprintf(buf, len, "no answer");
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}

static void ctr_done(void *ctx, const struct fab_mad_req *req, int err,
		     const uint8_t *resp)
{
	struct ctr *c = ctx;
	unsigned kind = CJ_KIND(req->cookie);
	uint32_t idx = CJ_IDX(req->cookie);
	const uint8_t *d = resp ? resp + FAB_MAD_DATA_OFFS : NULL;
	char why[96], msg[256];

	c->done++;
	if (c->o->progress && (c->done % 2048) == 0)
		fab_scan_progress(c->o, "counters", c->done, 0); /* total grows */
	if (kind == CJ_CPI) {
		struct cnode *cn = &c->nodes[idx];
		if (!err) {
			cn->cap = (uint16_t)mad_get_field((void *)d, 0, IB_CPI_CAPMASK_F);
			cn->cap2 = mad_get_field((void *)d, 0, IB_CPI_CAPMASK2_F);
			cn->cpi = CPI_OK;
		} else if (err == -EREMOTEIO) {
			cn->cpi = CPI_FAILED; /* answered: try the counters anyway */
		} else {
			cn->cpi = CPI_FAILED;
			cn->dead = true;
		}
		start_node(c, idx);
		/* The same firmware answers for the rest of its system; a PMA
		 * that did not answer at all says nothing about the others:
		 * they are asked themselves. */
		for (uint32_t f = cn->first_same; f != FAB_NONE; f = c->nodes[f].next_same) {
			struct cnode *fn = &c->nodes[f];
			if (cn->dead) {
				push(c, cjob(CJ_CPI, f));
				continue;
			}
			fn->cap = cn->cap;
			fn->cap2 = cn->cap2;
			fn->cpi = cn->cpi;
			start_node(c, f);
		}
		cn->first_same = FAB_NONE;
		return;
	}
	if (kind == CJ_SUM) {
		struct cnode *cn = &c->nodes[idx];
		if (!err) {
			struct fab_counter_sample sum = { 0 };
			fab_scan_decode_pc(&sum, d, true, cn->cap & FAB_PM_CAP_XMIT_WAIT, false);
			cn->clean = true;
			for (unsigned i = 0; i < FAB_CTR__COUNT; i++)
				if (sum.valid >> i & 1 && sum.v[i])
					cn->clean = false;
		} else if (err != -EREMOTEIO) { /* no answer: its ports are not asked */
			const struct fab_node *n = &c->s->nodes[idx];
			cn->dead = true;
			snprintf(msg, sizeof(msg), "PortCounters (the sum over the switch's ports) "
				 "failed after %d tries: %s; its ports not asked", c->retries + 1,
				 fail_text(err, resp, why, sizeof(why)));
			for (uint32_t k = 0; k < n->port_count; k++)
				if (eligible(c->s, &c->s->ports[n->port_first + k]))
					pma_failed(c, n->port_first + k, msg);
			return;
		}
		queue_ports(c, idx); /* an error status: each port is asked itself */
		return;
	}
	struct fab_port *p = &c->s->ports[idx];
	struct cnode *cn = &c->nodes[p->node_idx];
	struct fab_counter_sample *smp = c->sample[idx] != FAB_NONE
						 ? &c->s->samples[c->sample[idx]] : NULL;
	switch (kind) {
	case CJ_PC:
		if (err) {
			if (err != -EREMOTEIO)
				cn->dead = true;
			snprintf(msg, sizeof(msg), "PortCounters failed after %d tries: %s",
				 c->retries + 1, fail_text(err, resp, why, sizeof(why)));
			pma_failed(c, idx, msg);
			return;
		}
		if (!smp)
			return;
		decode_pc(smp, d, cn);
		smp->sampled_at_ms = fab_now_ms();
		c->st[idx] |= PS_PC_OK;
		if (!(smp->extended && (cn->cap2 & FAB_PM_CAP2_ADDL_PORT_CTRS_EXT)))
			queue_details(c, idx); /* the error counters came with it */
		return;
	case CJ_PCX:
		c->st[idx] |= PS_PCX_DONE;
		if (err) {
			if (err != -EREMOTEIO)
				cn->dead = true;
			if (!pc_asked(cn)) { /* it was the only query: no counters */
				snprintf(msg, sizeof(msg), "PortCountersExtended failed after %d "
					 "tries: %s", c->retries + 1,
					 fail_text(err, resp, why, sizeof(why)));
				pma_failed(c, idx, msg);
				return;
			}
			snprintf(msg, sizeof(msg), "PortCountersExtended failed after %d tries: "
				 "%s; 32-bit counters kept", c->retries + 1,
				 fail_text(err, resp, why, sizeof(why)));
			if (!(p->flags & FAB_F_PMA_FAILED))
				add_err(c, idx, "pma", msg);
			return;
		}
		if (!smp)
			return;
		decode_pcx(smp, d, cn);
		if (!pc_asked(cn)) {
			smp->sampled_at_ms = fab_now_ms();
			c->st[idx] |= PS_PC_OK;
			if (pcx_only(cn))
				queue_details(c, idx);
		}
		return;
	case CJ_RED:
	case CJ_XDD:
	case CJ_VLW:
		if (err) { /* no such attribute here: said so, never zeros */
			cn->unsup |= (uint8_t)detail_bit(kind);
			if (smp)
				smp->unsupported |= (uint8_t)detail_bit(kind);
			return;
		}
		if (!smp)
			return;
		fab_scan_decode_details(smp, d, detail_attr(kind));
		/* lifetime discards of a port that waits: on which VL */
		if (kind == CJ_XDD && nonzero(smp, FAB_CTR_XMIT_WAIT) &&
		    (nonzero(smp, FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS) ||
		     nonzero(smp, FAB_CTR_SW_LIFETIME_LIMIT_DISCARDS)))
			ask(c, CJ_VLW, idx);
		return;
	default: /* resets */
		if (err) {
			snprintf(msg, sizeof(msg), "counter reset (%s) failed: %s",
				 kind == CJ_RESET ? "PortCounters"
				 : kind == CJ_RESETX ? "PortCountersExtended"
				 : kind == CJ_RESET_RED ? "PortRcvErrorDetails" : "PortXmitDiscardDetails",
				 fail_text(err, resp, why, sizeof(why)));
			add_err(c, idx, "reset", msg);
		}
		return;
	}
}

/* Drops this round's samples whose PortCounters did not succeed. */
static void compact(struct ctr *c, size_t first)
{
	size_t o = first;

	for (size_t i = first; i < c->s->n_samples; i++) {
		struct fab_counter_sample *smp = &c->s->samples[i];
		uint32_t pi = smp->port_idx;

		if (!(c->st[pi] & PS_PC_OK)) {
			c->sample[pi] = FAB_NONE;
			continue;
		}
		c->sample[pi] = (uint32_t)o;
		if (o != i)
			c->s->samples[o] = *smp;
		o++;
	}
	c->s->n_samples = o;
}

/* A device model in one system: what makes two ClassPortInfo answers equal. */
static bool same_system_model(const struct fab_node *a, const struct fab_node *b)
{
	return a->sys_guid == b->sys_guid && a->vendor_id == b->vendor_id &&
	       a->device_id == b->device_id && a->revision == b->revision &&
	       a->type == b->type;
}

static size_t hash_system_model(const struct fab_node *n, size_t cap)
{
	uint64_t h = n->sys_guid ^ ((uint64_t)n->device_id << 32 | n->vendor_id) * 31 ^
		     n->revision;

	return fab_hash_slot(h, cap);
}

/*
 * Round 0: ClassPortInfo of every node whose PMA has a LID to be asked at,
 * but only of the first node of each model in one system (SystemImageGUID
 * not 0); the others wait on its list. Linear: open addressing by system
 * and model.
 */
static int queue_cpi(struct ctr *c)
{
	size_t cap = 16;
	uint32_t *first;

	while (cap < 2 * (size_t)c->s->n_nodes)
		cap *= 2;
	first = malloc(cap * sizeof(*first));
	if (!first)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		first[i] = FAB_NONE;
	for (uint32_t ni = 0; ni < c->s->n_nodes; ni++) {
		const struct fab_node *n = &c->s->nodes[ni];
		struct cnode *cn = &c->nodes[ni];
		const struct fab_port *p = fab_node_ports(c->s, n);

		cn->first_same = cn->next_same = FAB_NONE;
		for (uint32_t k = 0; k < n->port_count && !cn->lid; k++)
			if (eligible(c->s, &p[k]))
				cn->lid = fab_scan_port_dlid(c->s, &p[k]);
		if (!cn->lid)
			continue;
		if (n->sys_guid) {
			size_t h = hash_system_model(n, cap);
			while (first[h] != FAB_NONE &&
			       !same_system_model(&c->s->nodes[first[h]], n))
				h = (h + 1) & (cap - 1);
			if (first[h] != FAB_NONE) {
				struct cnode *lead = &c->nodes[first[h]];
				cn->next_same = lead->first_same;
				lead->first_same = ni;
				continue;
			}
			first[h] = ni;
		}
		push(c, cjob(CJ_CPI, ni));
	}
	free(first);
	return 0;
}

static int run_round(struct ctr *c, struct fab_madwin *mw)
{
	size_t first = c->s->n_samples;
	int rc;

	c->done = c->total = 0;
	if (c->round == 0 && (rc = queue_cpi(c)))
		return rc;
	for (uint32_t ni = 0; c->round > 0 && ni < c->s->n_nodes; ni++)
		if (c->nodes[ni].lid && !c->nodes[ni].dead)
			start_node(c, ni);
	rc = c->err;
	if (!rc && c->q.n)
		rc = fab_madwin_run(mw, ctr_next, ctr_done, c);
	if (!rc)
		rc = c->err;
	fab_scan_progress(c->o, "counters", c->done, c->done);
	if (!rc)
		compact(c, first);
	return rc;
}

static int run_reset(struct ctr *c, struct fab_madwin *mw)
{
	int rc;

	c->done = c->total = 0;
	for (size_t i = 0; i < c->s->n_ports; i++) {
		const struct fab_port *p = &c->s->ports[i];
		const struct cnode *cn = &c->nodes[p->node_idx];

		if (c->sample[i] == FAB_NONE || cn->dead)
			continue;
		push(c, cjob(CJ_RESET, (uint32_t)i));
		if (ext_supported(cn))
			push(c, cjob(CJ_RESETX, (uint32_t)i));
		/* the details read: cleared with the counters they explain */
		const struct fab_counter_sample *smp = &c->s->samples[c->sample[i]];
		if (smp->valid & fab_counter_details_of(FAB_CTR_RCV_ERRORS))
			push(c, cjob(CJ_RESET_RED, (uint32_t)i));
		if (smp->valid & fab_counter_details_of(FAB_CTR_XMIT_DISCARDS))
			push(c, cjob(CJ_RESET_XDD, (uint32_t)i));
	}
	rc = c->err;
	if (!rc && c->q.n)
		rc = fab_madwin_run(mw, ctr_next, ctr_done, c);
	return rc ? rc : c->err;
}

static void sleep_until(int64_t t_ms)
{
	for (;;) {
		int64_t left = t_ms - fab_now_ms();
		if (left <= 0)
			return;
		struct timespec ts = { left / 1000, (left % 1000) * 1000000 };
		nanosleep(&ts, NULL);
	}
}

int fab_scan_counters(struct fab_snapshot *s, struct fab_madwin *mw,
		      const struct fab_scan_opts *o)
{
	struct ctr c = { .s = s, .o = o, .retries = o->retries };
	int rc = -ENOMEM;

	c.nodes = calloc(s->n_nodes + 1, sizeof(*c.nodes));
	c.sample = malloc((s->n_ports + 1) * sizeof(*c.sample));
	c.prev = malloc((s->n_ports + 1) * sizeof(*c.prev));
	c.st = calloc(s->n_ports + 1, 1);
	if (!c.nodes || !c.sample || !c.prev || !c.st)
		goto out;
	for (size_t i = 0; i < s->n_ports; i++)
		c.sample[i] = FAB_NONE;
	/* An active port with no LID to ask its PMA at (a switch whose port 0
	 * PortInfo was lost): not read, and said so, never silently skipped. */
	for (size_t i = 0; i < s->n_ports; i++) {
		struct fab_port *p = &s->ports[i];
		struct fab_node *n = &s->nodes[p->node_idx];
		char who[FAB_DESC_CAP + 8];

		if (p->port_num == 0 || p->state != FAB_STATE_ACTIVE ||
		    (p->flags & FAB_F_SMP_FAILED) || fab_scan_port_dlid(s, p))
			continue;
		p->flags |= FAB_F_PMA_FAILED;
		n->flags |= FAB_F_PMA_FAILED;
		rc = fab_snapshot_add_error(s, n->guid, p->port_num, "pma",
			"%s port %u: counters not read: no LID to ask its performance "
			"agent at (%s)", fab_scan_node_label(n, who, sizeof(who)),
			p->port_num, n->type == FAB_NODE_SWITCH
				? "the switch's port 0 PortInfo did not answer"
				: "the port has no LID");
		if (rc)
			goto out;
	}

	int64_t t0 = fab_now_ms();
	rc = run_round(&c, mw);
	if (rc)
		goto out;
	if (o->interval_s > 0) {
		sleep_until(t0 + (int64_t)o->interval_s * 1000);
		c.round = 1;
		memcpy(c.prev, c.sample, s->n_ports * sizeof(*c.prev));
		memset(c.st, 0, s->n_ports);
		rc = run_round(&c, mw);
		if (rc)
			goto out;
	}
	if (o->reset_counters)
		rc = run_reset(&c, mw);
out:
	fab_jobq_free(&c.q);
	free(c.nodes);
	free(c.sample);
	free(c.prev);
	free(c.st);
	return rc;
}
