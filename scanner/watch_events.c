// SPDX-License-Identifier: MIT
/*
 * The SM's traps through the SA (include/fabsweep/watch.h, docs/watch.md
 * "Link events"): the subscription (InformInfo), the Reports it brings
 * (each answered with a ReportResp, a resend of one already seen dropped)
 * kept as notice events until the pipeline takes them, and on the
 * simulator only the SMInfo answers its Report path needs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "scanner/notice.h"
#include "scanner/watch_priv.h"

int wevents_open(struct fab_watch *w)
{
	if (!(w->inbox = fab_snapshot_new()))
		return fab_err(-ENOMEM, "out of memory");
	w->port_guid = fab_umad_port_guid(w->m.um);
	return 0;
}

void wevents_close(struct fab_watch *w)
{
	fab_snapshot_free(w->inbox);
	w->inbox = NULL;
}

static bool seen(struct fab_watch *w, uint32_t tid)
{
	for (unsigned i = 0; i < w->n_seen && i < 32; i++)
		if (w->seen_tid[i] == tid)
			return true;
	w->seen_tid[w->n_seen++ % 32] = tid;
	return false;
}

/* A request nobody here asked for: a Report, or (simulator) an SMInfo Get. */
static void unsolicited(void *ctx, const uint8_t *mad, uint16_t slid, uint32_t sqp)
{
	struct fab_watch *w = ctx;
	uint8_t resp[FAB_MAD_SIZE];
	struct fab_notice n;
	char detail[200];

	if (fab_sminfo_is_get(mad)) {
		fab_sminfo_notactive(mad, w->port_guid, resp);
		fab_umad_respond(w->m.um, resp, slid, sqp);
		return;
	}
	if (fab_notice_decode(mad, &n)) {
		w->dropped++;
		return;
	}
	fab_report_resp(mad, resp);
	fab_umad_respond(w->m.um, resp, slid, sqp); /* the SM retires its send */
	if (seen(w, n.tid))
		return; /* a resend: our answer was late */
	fab_notice_describe(&n, detail, sizeof(detail));
	struct fab_event e = {
		.at_ms = fab_now_ms(),
		.kind = FAB_EVENT_NOTICE,
		.trap = n.trap,
		.lid = n.issuer_lid,
		.node_guid = n.trap == FAB_TRAP_GID_IN || n.trap == FAB_TRAP_GID_OUT ? n.guid
											: n.issuer_guid,
		.detail = detail,
	};
	if (w->inbox->n_events >= 65536 || fab_snapshot_add_event(w->inbox, &e))
		w->dropped++; /* a storm nobody takes: the probe still reads the links */
	else
		w->reports++;
}

int fab_watch_listen(struct fab_watch *w, bool sim_path)
{
	int rc = fab_umad_listen(w->m.um, unsolicited, w);

	if (!rc && sim_path)
		rc = fab_umad_sim_issm(w->m.um);
	w->hears = !rc && (sim_path || !fab_umad_under_sim());
	return rc;
}

bool fab_watch_hears_reports(const struct fab_watch *w)
{
	return w && w->hears;
}

/* One request of this file's own: an InformInfo Set, or our PortInfo. */
struct sa_run {
	struct fab_mad_req req;
	bool sent, subscribe, portinfo;
	int err;
	unsigned status;
	uint16_t sm_lid; /* portinfo: its MasterSMLID */
};

static int sa_next(void *ctx, struct fab_mad_req *out)
{
	struct sa_run *r = ctx;

	if (r->sent)
		return 0;
	r->sent = true;
	*out = r->req;
	return 1;
}

static void sa_done(void *ctx, const struct fab_mad_req *req, int err, const uint8_t *resp)
{
	struct sa_run *r = ctx;

	(void)req;
	r->err = err;
	if (resp && r->portinfo && !err)
		r->sm_lid = (uint16_t)mad_get_field((void *)(resp + FAB_MAD_DATA_OFFS), 0,
						    IB_PORT_SMLID_F);
	else if (resp && !r->portinfo)
		r->err = fab_inform_check(resp, r->subscribe, &r->status);
}

int fab_watch_subscribe(struct fab_watch *w, uint16_t sm_lid, uint64_t sm_key, bool subscribe,
			unsigned *status)
{
	struct sa_run r = { .subscribe = subscribe };
	int rc;

	*status = 0;
	r.req.mgmt_class = FAB_MAD_CLASS_SA;
	r.req.method = FAB_MAD_SET;
	r.req.attr_id = FAB_SA_ATTR_INFORMINFO;
	r.req.dlid = sm_lid;
	r.req.mkey = sm_key;
	fab_inform_encode(r.req.data, subscribe);
	if ((rc = fab_madwin_run(w->m.mw, sa_next, sa_done, &r)))
		return fab_err(rc, "InformInfo to the SA at LID %u: %s", sm_lid, strerror(-rc));
	*status = r.status;
	if (r.err == -EREMOTEIO)
		return fab_err(r.err, "the SA at LID %u refused the subscription (status 0x%04x)",
			       sm_lid, r.status);
	if (r.err == -EPROTO)
		return fab_err(r.err, "the SA at LID %u answered the subscription with something else",
			       sm_lid);
	if (r.err)
		return fab_err(r.err, "the SA at LID %u %s to the subscription", sm_lid,
			       r.err == -ETIMEDOUT ? "did not answer" : strerror(-r.err));
	return 0;
}

int fab_watch_master_lid(struct fab_watch *w, uint16_t *out)
{
	struct sa_run r = { .subscribe = false };
	int rc;

	/* PortInfo of this very port: a directed route of no hops */
	r.req.mgmt_class = FAB_MAD_CLASS_SMI_DR;
	r.req.method = FAB_MAD_GET;
	r.req.attr_id = IB_ATTR_PORT_INFO;
	r.req.attr_mod = (uint32_t)w->m.port;
	r.req.mkey = fab_mkeys_lookup(w->mkeys, w->port_guid, 0);
	r.portinfo = true;
	if ((rc = fab_madwin_run(w->m.mw, sa_next, sa_done, &r)))
		return fab_err(rc, "PortInfo of %s/%d: %s", w->m.ca, w->m.port, strerror(-rc));
	if (r.err)
		return fab_err(r.err, "PortInfo of %s/%d %s", w->m.ca, w->m.port,
			       r.err == -ETIMEDOUT ? "did not answer" : strerror(-r.err));
	*out = r.sm_lid;
	return 0;
}

int fab_watch_wait(struct fab_watch *w, int wait_ms)
{
	int rc;

	if (!w->inbox->n_events && wait_ms > 0 && (rc = fab_umad_wait(w->m.um, wait_ms)))
		return rc;
	return (int)w->inbox->n_events;
}

int fab_watch_take_notices(struct fab_watch *w, struct fab_snapshot *into)
{
	struct fab_snapshot *fresh;

	if (!w->inbox->n_events)
		return 0;
	if (!(fresh = fab_snapshot_new()))
		return -ENOMEM;
	for (size_t i = 0; i < w->inbox->n_events; i++)
		if (fab_snapshot_add_event(into, &w->inbox->events[i])) {
			fab_snapshot_free(fresh);
			return -ENOMEM;
		}
	fab_snapshot_free(w->inbox);
	w->inbox = fresh;
	return 0;
}

void fab_watch_report_counts(const struct fab_watch *w, unsigned long *received,
			     unsigned long *dropped)
{
	*received = w->reports;
	*dropped = w->dropped;
}
