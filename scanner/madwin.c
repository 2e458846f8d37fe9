// SPDX-License-Identifier: MIT
/*
 * The MAD window engine: many MADs in flight on one fd, matched by TID.
 *
 * Transaction IDs: only the low 32 bits come back unchanged (the kernel and
 * the simulator rewrite the high half with their agent/client number). The
 * low 10 bits are the slot index, the 22 above a per-send sequence, so a
 * late answer to an earlier try (or to an earlier request in the same slot)
 * never matches the current one and is counted as stale.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "fabsweep/error.h"
#include "fabsweep/snapshot.h"
#include "scanner/madwin.h"

_Static_assert(FAB_UMAD_CA_NAME_LEN == UMAD_CA_NAME_LEN, "CA name length");

#define SLOT_BITS 10
#define SLOT_MASK ((1u << SLOT_BITS) - 1)

struct slot {
	struct fab_mad_req req;
	uint32_t tid;
	int64_t deadline;
	uint16_t tries; /* sends so far */
	bool busy;
};

struct fab_madwin {
	struct fab_mad_transport t;
	int window, timeout_ms, retries;
	uint32_t seq;
	struct slot *slots;
	uint16_t *free_list;
	int n_free;
	struct fab_madwin_stats stats;
	size_t resp_len; /* of the completion under way */
	uint8_t mad[FAB_MAD_SIZE];
};

/* FABSWEEP_MAD_TRACE=1: one stderr line per MAD sent or received (debug). */
static int tracing(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("FABSWEEP_MAD_TRACE") != NULL;
	return on;
}

static void trace_mad(const char *dir, const uint8_t *mad, int status)
{
	fprintf(stderr, "mad %s class 0x%02x method 0x%02x%s attr 0x%04x mod 0x%x "
		"tid 0x%08x status 0x%04x transport %d\n", dir,
		mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F),
		mad_get_field((void *)mad, 0, IB_MAD_METHOD_F),
		mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F) ? " resp" : "",
		mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F),
		mad_get_field((void *)mad, 0, IB_MAD_ATTRMOD_F), fab_mad_tid32(mad),
		fab_mad_status(mad), status);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now(const struct fab_madwin *mw)
{
	return mw->t.now_ms ? mw->t.now_ms(mw->t.ctx) : mono_ms();
}

int fab_madwin_new(const struct fab_mad_transport *t, int window,
		   int timeout_ms, int retries, struct fab_madwin **out)
{
	struct fab_madwin *mw = calloc(1, sizeof(*mw));

	if (!mw)
		return -ENOMEM;
	if (window < 1)
		window = 1;
	if (window > FAB_MADWIN_MAX_WINDOW)
		window = FAB_MADWIN_MAX_WINDOW;
	if (t->max_in_flight > 0 && window > t->max_in_flight)
		window = t->max_in_flight;
	mw->t = *t;
	mw->window = window;
	mw->timeout_ms = timeout_ms > 0 ? timeout_ms : 1;
	mw->retries = retries > 0 ? retries : 0;
	mw->slots = calloc((size_t)window, sizeof(*mw->slots));
	mw->free_list = calloc((size_t)window, sizeof(*mw->free_list));
	if (!mw->slots || !mw->free_list) {
		fab_madwin_free(mw);
		return -ENOMEM;
	}
	mw->seq = (uint32_t)mono_ms() * 2654435761u; /* any start will do */
	for (int i = 0; i < window; i++)
		mw->free_list[i] = (uint16_t)(window - 1 - i);
	mw->n_free = window;
	*out = mw;
	return 0;
}

void fab_madwin_free(struct fab_madwin *mw)
{
	if (!mw)
		return;
	free(mw->slots);
	free(mw->free_list);
	free(mw);
}

const struct fab_madwin_stats *fab_madwin_stats(const struct fab_madwin *mw)
{
	return &mw->stats;
}

size_t fab_madwin_resp_len(const struct fab_madwin *mw)
{
	return mw->resp_len;
}

void fab_mad_encode(uint8_t *mad, const struct fab_mad_req *r, uint64_t tid)
{
	memset(mad, 0, FAB_MAD_SIZE);
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, r->mgmt_class);
	/* the SA class is version 2 */
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, r->mgmt_class == FAB_MAD_CLASS_SA ? 2 : 1);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, r->method);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, r->attr_id);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, r->attr_mod);
	/* Only SMPs carry an M_Key; other classes have no such field there. */
	if (r->mgmt_class == FAB_MAD_CLASS_SMI || r->mgmt_class == FAB_MAD_CLASS_SMI_DR)
		mad_set_field64(mad, 0, IB_MAD_MKEY_F, r->mkey);
	if (r->mgmt_class == FAB_MAD_CLASS_SMI_DR) {
		mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, r->dr_hops);
		mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, 0);
		mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 0);
		mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, 0xffff);
		mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, 0xffff);
		mad_set_array(mad, 0, IB_DRSMP_PATH_F, (void *)r->dr_path);
	}
	if (r->mgmt_class == FAB_MAD_CLASS_SA) { /* the SA header: SM_Key, then the data */
		mad_set_field64(mad, 0, IB_SA_MKEY_F, r->mkey);
		mad_set_field64(mad, 0, IB_SA_COMPMASK_F, r->comp_mask);
		memcpy(mad + FAB_SA_DATA_OFFS, r->data, sizeof(r->data));
		return;
	}
	memcpy(mad + FAB_MAD_DATA_OFFS, r->data, sizeof(r->data));
}

unsigned fab_mad_status(const uint8_t *mad)
{
	if (mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) == FAB_MAD_CLASS_SMI_DR)
		return mad_get_field((void *)mad, 0, IB_DRSMP_STATUS_F);
	return mad_get_field((void *)mad, 0, IB_MAD_STATUS_F);
}

uint32_t fab_mad_tid32(const uint8_t *mad)
{
	return (uint32_t)mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
}

/* Sends (or resends) the request in slot i with a fresh TID. */
static int slot_send(struct fab_madwin *mw, unsigned i)
{
	struct slot *s = &mw->slots[i];

	mw->seq++;
	s->tid = (mw->seq << SLOT_BITS) | i;
	s->tries++;
	s->deadline = now(mw) + mw->timeout_ms;
	fab_mad_encode(mw->mad, &s->req, s->tid);
	mw->stats.sent++;
	if (tracing())
		trace_mad("send", mw->mad, 0);
	if (s->tries > 1)
		mw->stats.resent++;
	return mw->t.send(mw->t.ctx, mw->mad, &s->req, mw->timeout_ms);
}

static void slot_finish(struct fab_madwin *mw, unsigned i, int err,
			const uint8_t *resp, fab_madwin_done_fn done, void *ctx)
{
	struct slot *s = &mw->slots[i];
	struct fab_mad_req req = s->req;

	s->busy = false;
	mw->free_list[mw->n_free++] = (uint16_t)i;
	if (resp)
		mw->stats.answered++;
	else
		mw->stats.failed++;
	done(ctx, &req, err, resp);
}

/*
 * A try of slot i failed (no answer, or the transport gave the MAD back):
 * resend while tries remain, else complete with err.
 */
static void slot_retry(struct fab_madwin *mw, unsigned i, int err,
		       fab_madwin_done_fn done, void *ctx)
{
	struct slot *s = &mw->slots[i];

	while (s->tries <= mw->retries) {
		if (slot_send(mw, i) == 0)
			return;
		err = -EIO;
	}
	slot_finish(mw, i, err, NULL, done, ctx);
}

static bool is_answer_to(const uint8_t *mad, const struct fab_mad_req *r)
{
	/* IB_MAD_METHOD_F is the low 7 bits; the R bit is separate. */
	unsigned resp = mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F);
	unsigned cls = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);
	unsigned attr = mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F);

	return resp && cls == r->mgmt_class && attr == r->attr_id;
}

static void handle_mad(struct fab_madwin *mw, const uint8_t *mad, int status,
		       fab_madwin_done_fn done, void *ctx)
{
	uint32_t tid = fab_mad_tid32(mad);
	unsigned i = tid & SLOT_MASK;

	if (tracing())
		trace_mad("recv", mad, status);
	if (i >= (unsigned)mw->window || !mw->slots[i].busy ||
	    mw->slots[i].tid != tid) {
		mw->stats.stale++;
		return;
	}
	struct slot *s = &mw->slots[i];
	if (status) {
		/* The transport handed our own MAD back: it timed out in the
		 * kernel, or the simulator dropped it. */
		slot_retry(mw, i, -ETIMEDOUT, done, ctx);
		return;
	}
	if (!is_answer_to(mad, &s->req)) {
		mw->stats.stale++;
		return;
	}
	unsigned st = fab_mad_status(mad);
	if ((st & 0x7fff) == IB_MAD_STS_BUSY) {
		slot_retry(mw, i, -EBUSY, done, ctx);
		return;
	}
	/* the whole answer where the transport kept more than 256 bytes */
	const uint8_t *full = mad;
	size_t len = FAB_MAD_SIZE;
	if (mw->t.answer) {
		const uint8_t *a = mw->t.answer(mw->t.ctx, &len);
		if (a && len > FAB_MAD_SIZE)
			full = a;
		else
			len = FAB_MAD_SIZE;
	}
	mw->resp_len = len;
	slot_finish(mw, i, (st & 0x7fff) ? -EREMOTEIO : 0, full, done, ctx);
	mw->resp_len = FAB_MAD_SIZE;
}

/* Expires overdue slots; returns ms until the next deadline (-1: none). */
static int expire(struct fab_madwin *mw, fab_madwin_done_fn done, void *ctx)
{
	int64_t t = now(mw), next = -1;

	for (int i = 0; i < mw->window; i++) {
		struct slot *s = &mw->slots[i];

		if (!s->busy)
			continue;
		if (s->deadline <= t)
			slot_retry(mw, (unsigned)i, -ETIMEDOUT, done, ctx);
		if (s->busy && (next < 0 || s->deadline < next))
			next = s->deadline;
	}
	if (next < 0)
		return -1;
	return next > t ? (int)(next - t) : 0;
}

static void fail_all(struct fab_madwin *mw, int err, fab_madwin_done_fn done,
		     void *ctx)
{
	for (int i = 0; i < mw->window; i++)
		if (mw->slots[i].busy)
			slot_finish(mw, (unsigned)i, err, NULL, done, ctx);
}

int fab_madwin_run(struct fab_madwin *mw, fab_madwin_next_fn next,
		   fab_madwin_done_fn done, void *ctx)
{
	uint8_t mad[FAB_MAD_SIZE];
	int status, rc;

	for (;;) {
		/* Fill the window. */
		while (mw->n_free > 0) {
			unsigned i = mw->free_list[mw->n_free - 1];
			struct slot *s = &mw->slots[i];

			memset(&s->req, 0, sizeof(s->req));
			rc = next(ctx, &s->req);
			if (rc < 0) {
				fail_all(mw, rc, done, ctx);
				return rc;
			}
			if (rc == 0)
				break;
			mw->n_free--;
			s->busy = true;
			s->tries = 0;
			if (slot_send(mw, i) != 0)
				slot_retry(mw, i, -EIO, done, ctx);
		}
		if (mw->n_free == mw->window)
			return 0; /* nothing outstanding, nothing to send */

		int wait = expire(mw, done, ctx);
		if (wait < 0)
			continue; /* expiry completed everything: refill */
		rc = mw->t.recv(mw->t.ctx, mad, &status, wait);
		while (rc == 1) {
			handle_mad(mw, mad, status, done, ctx);
			rc = mw->t.recv(mw->t.ctx, mad, &status, 0);
		}
		if (rc < 0) {
			fail_all(mw, rc, done, ctx);
			return rc;
		}
	}
}

/* ---- libibumad transport ------------------------------------------- */

int fab_umad_pick_port(const char *want_ca, int want_port, bool linkup_ok,
		       struct fab_umad_port *out)
{
	char names[32][UMAD_CA_NAME_LEN];
	int n, best = 0, need = linkup_ok ? 1 : 2;
	const char *link = linkup_ok ? "up" : "active";

	if (umad_init() < 0)
		return fab_err(-ENODEV, "cannot initialise libibumad: is the ib_umad "
			       "kernel module loaded?");
	n = umad_get_cas_names(names, 32);
	if (n <= 0)
		return fab_err(-ENODEV, "no InfiniBand device found (no /sys/class/"
			       "infiniband_mad entries); load ib_umad or check the HCA");
	for (int i = 0; i < n && best < 2; i++) {
		umad_ca_t uc;

		if (want_ca && strcmp(want_ca, names[i]))
			continue;
		if (umad_get_ca(names[i], &uc) < 0)
			continue;
		for (int p = 1; p <= uc.numports && p < UMAD_CA_MAX_PORTS; p++) {
			umad_port_t *up = uc.ports[p];
			int score;

			if (!up || (want_port && p != want_port))
				continue;
			if (up->link_layer[0] && strcmp(up->link_layer, "InfiniBand") &&
			    strcmp(up->link_layer, "IB"))
				continue; /* RoCE: not ours */
			score = up->state == FAB_STATE_ACTIVE ? 2
				: up->phys_state == FAB_PHYS_LINKUP ? 1 : 0;
			if (score < need || score <= best)
				continue;
			best = score;
			memcpy(out->ca, names[i], UMAD_CA_NAME_LEN);
			out->ca[UMAD_CA_NAME_LEN - 1] = '\0';
			out->port = p;
			out->state = up->state;
			out->sm_lid = up->sm_lid;
		}
		umad_release_ca(&uc);
	}
	if (best)
		return 0;
	if (want_ca && want_port)
		return fab_err(-ENETDOWN, "port %d of CA '%s' is missing or its link "
			       "is %s; pick another with --ca/--port", want_port, want_ca,
			       linkup_ok ? "down" : "not active");
	if (want_ca)
		return fab_err(-ENETDOWN, "CA '%s' is missing or has no port with its "
			       "link %s; check the name with ibstat", want_ca, link);
	return fab_err(-ENETDOWN, "no InfiniBand CA port with its link %s; check "
		       "the cable and ibstat, or pick one with --ca/--port", link);
}

struct fab_umad {
	int fd;
	int agent_smi, agent_dr, agent_perf, agent_sa;
	int agent_report; /* the SA's Reports: -1 until fab_umad_listen */
	int issm_fd;      /* simulator only: -1 */
	char ca[UMAD_CA_NAME_LEN];
	int port;
	uint64_t port_guid;
	fab_umad_unsolicited_fn unsolicited;
	void *unsolicited_ctx;
	uint8_t *buf;   /* umad_size() + cap */
	size_t cap;     /* MAD bytes buf holds: 256, more after a long SA answer */
	size_t len;     /* of the MAD last received */
};

/* The longest SA answer read (a GetTable of a large fabric's MCMemberRecords
 * reassembled by the kernel: 64 bytes a record); a longer one is refused. */
#define FAB_UMAD_MAX_ANSWER (64u << 20)

int fab_umad_open(const char *ca, int port, struct fab_umad **out)
{
	struct fab_umad *u = calloc(1, sizeof(*u));
	int rc;

	if (!u)
		return -ENOMEM;
	u->fd = -1;
	u->agent_sa = -1;
	u->agent_report = -1;
	u->issm_fd = -1;
	snprintf(u->ca, sizeof(u->ca), "%s", ca ? ca : "");
	u->port = port;
	if (umad_init() < 0) {
		rc = -ENODEV;
		goto fail;
	}
	u->fd = umad_open_port((char *)ca, port);
	if (u->fd < 0) {
		rc = u->fd;
		u->fd = -1;
		goto fail;
	}
	/* After umad_open_port(): it decides the ABI, hence umad_size(). */
	u->buf = calloc(1, umad_size() + FAB_MAD_SIZE);
	if (!u->buf) {
		rc = -ENOMEM;
		goto fail;
	}
	u->cap = FAB_MAD_SIZE;
	umad_port_t up;
	if (umad_get_port(ca, port, &up) == 0) {
		u->port_guid = be64toh(up.port_guid);
		umad_release_port(&up);
	}
	u->agent_smi = umad_register(u->fd, FAB_MAD_CLASS_SMI, 1, 0, NULL);
	u->agent_dr = umad_register(u->fd, FAB_MAD_CLASS_SMI_DR, 1, 0, NULL);
	u->agent_perf = umad_register(u->fd, FAB_MAD_CLASS_PERF, 1, 0, NULL);
	/* class version 2, RMPP version 1: as saquery registers it */
	u->agent_sa = umad_register(u->fd, FAB_MAD_CLASS_SA, 2, 1, NULL);
	if (u->agent_smi < 0 || u->agent_dr < 0 || u->agent_perf < 0 || u->agent_sa < 0) {
		rc = -EPERM;
		goto fail;
	}
	*out = u;
	return 0;
fail:
	fab_umad_close(u);
	return rc;
}

void fab_umad_close(struct fab_umad *u)
{
	if (!u)
		return;
	if (u->issm_fd >= 0) {
		/* the simulator stops handing us the SM's requests; what it
		 * sent before is read and dropped here, while the agents are
		 * still there (umad2sim crashes on a MAD for an agent gone) */
		close(u->issm_fd);
		u->issm_fd = -1;
		u->unsolicited = NULL;
		for (int i = 0; i < 20 && fab_umad_wait(u, 5) == 0;)
			i++;
	}
	if (u->fd >= 0)
		umad_close_port(u->fd);
	free(u->buf);
	free(u);
}

static int umad_tr_send(void *ctx, const uint8_t *mad,
			const struct fab_mad_req *req, int timeout_ms)
{
	struct fab_umad *u = ctx;
	int agent;

	memset(u->buf, 0, umad_size());
	memcpy(umad_get_mad(u->buf), mad, FAB_MAD_SIZE);
	switch (req->mgmt_class) {
	case FAB_MAD_CLASS_SMI_DR:
		agent = u->agent_dr;
		umad_set_addr(u->buf, 0xffff, 0, 0, 0);
		break;
	case FAB_MAD_CLASS_SMI:
		agent = u->agent_smi;
		umad_set_addr(u->buf, req->dlid, 0, 0, 0);
		break;
	case FAB_MAD_CLASS_PERF:
		agent = u->agent_perf;
		umad_set_addr(u->buf, req->dlid, 1, 0, IB_DEFAULT_QP1_QKEY);
		break;
	case FAB_MAD_CLASS_SA:
		agent = u->agent_sa;
		umad_set_addr(u->buf, req->dlid, 1, 0, IB_DEFAULT_QP1_QKEY);
		break;
	default:
		return -EINVAL;
	}
	umad_set_pkey(u->buf, 0);
	/* No kernel retries: the engine resends with a new TID itself. */
	if (umad_send(u->fd, agent, u->buf, FAB_MAD_SIZE, timeout_ms, 0) < 0)
		return -EIO;
	return 0;
}

static int umad_tr_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	struct fab_umad *u = ctx;
	int len = FAB_MAD_SIZE, rc;

	/* Draining (wait 0): the fd is non-blocking, read straight away and
	 * save a poll per MAD. */
	if (wait_ms > 0) {
		rc = umad_poll(u->fd, wait_ms);
		if (rc == -ETIMEDOUT)
			return 0;
		if (rc < 0)
			return rc == -EINTR ? 0 : rc;
	}
	len = (int)u->cap;
	rc = umad_recv(u->fd, u->buf, &len, 0);
	while (rc == -ENOSPC && len > (int)u->cap && (size_t)len <= FAB_UMAD_MAX_ANSWER) {
		/* an SA answer the kernel reassembled: longer than the buffer,
		 * and still queued; read it again into a buffer that holds it */
		uint8_t *nb = realloc(u->buf, umad_size() + (size_t)len);
		if (!nb)
			return -ENOMEM;
		u->buf = nb;
		u->cap = (size_t)len;
		rc = umad_recv(u->fd, u->buf, &len, 0);
	}
	if (rc < 0) {
		/* Nothing there after all (spurious wakeup). */
		if (rc == -EWOULDBLOCK || rc == -EAGAIN || rc == -ETIMEDOUT)
			return 0;
		return rc;
	}
	u->len = len > 0 ? (size_t)len : 0;
	memset(mad, 0, FAB_MAD_SIZE);
	memcpy(mad, umad_get_mad(u->buf),
	       len > 0 && len < FAB_MAD_SIZE ? (size_t)len : FAB_MAD_SIZE);
	*status = umad_status(u->buf);
	if (u->unsolicited && !*status && !mad_get_field(mad, 0, IB_MAD_RESPONSE_F)) {
		/* asked by someone else (a Report, an SMInfo Get): the listener's */
		const ib_mad_addr_t *a = umad_get_mad_addr(u->buf);
		u->unsolicited(u->unsolicited_ctx, mad, ntohs(a->lid), ntohl(a->qpn));
		return 0;
	}
	return 1;
}

static const uint8_t *umad_tr_answer(void *ctx, size_t *len)
{
	struct fab_umad *u = ctx;

	*len = u->len;
	return umad_get_mad(u->buf);
}

/* The Reports come to an agent of their own (RMPP 0, the Report method):
 * the SA agent of the queries answers solicited MADs only, so a scan
 * beside a watch on the same port does not compete for the Reports. */
int fab_umad_listen(struct fab_umad *u, fab_umad_unsolicited_fn fn, void *ctx)
{
	long mask[16 / sizeof(long)] = { 0 };

	if (u->agent_report < 0) {
		mask[FAB_MAD_REPORT / (8 * sizeof(long))] |= 1L << (FAB_MAD_REPORT % (8 * sizeof(long)));
		u->agent_report = umad_register(u->fd, FAB_MAD_CLASS_SA, 2, 0, mask);
		if (u->agent_report < 0)
			return fab_err(-EBUSY, "cannot take the SA's Reports on %s/%d (another process "
				       "on this port takes them)", u->ca, u->port);
	}
	u->unsolicited = fn;
	u->unsolicited_ctx = ctx;
	return 0;
}

int fab_umad_respond(struct fab_umad *u, const uint8_t *mad, uint16_t dlid, uint32_t dqp)
{
	unsigned cls = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);
	int agent = cls == FAB_MAD_CLASS_SA ? u->agent_report : cls == FAB_MAD_CLASS_SMI ? u->agent_smi
		    : cls == FAB_MAD_CLASS_SMI_DR ? u->agent_dr : -1;

	if (agent < 0)
		return -EINVAL;
	memset(u->buf, 0, umad_size());
	memcpy(umad_get_mad(u->buf), mad, FAB_MAD_SIZE);
	umad_set_addr(u->buf, dlid, (int)dqp, 0, dqp ? IB_DEFAULT_QP1_QKEY : 0);
	umad_set_pkey(u->buf, 0);
	return umad_send(u->fd, agent, u->buf, FAB_MAD_SIZE, 0, 0) < 0 ? -EIO : 0;
}

int fab_umad_wait(struct fab_umad *u, int wait_ms)
{
	uint8_t mad[FAB_MAD_SIZE];
	int status, rc = umad_tr_recv(u, mad, &status, wait_ms);

	while (rc == 1) /* an answer nobody waits for any more */
		rc = umad_tr_recv(u, mad, &status, 0);
	return rc < 0 ? rc : 0;
}

uint64_t fab_umad_port_guid(const struct fab_umad *u)
{
	return u->port_guid;
}

bool fab_umad_under_sim(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "umad2sim");
}

int fab_umad_sim_issm(struct fab_umad *u)
{
	char path[256];

	if (!fab_umad_under_sim())
		return fab_err(-ENOTSUP, "the simulator's Report path needs ibsim's umad2sim "
			       "(LD_PRELOAD); never on hardware");
	if (u->issm_fd >= 0)
		return 0;
	if (umad_get_issm_path(u->ca, u->port, path, sizeof(path)) < 0)
		return fab_err(-ENODEV, "no issm device for %s/%d", u->ca, u->port);
	u->issm_fd = open(path, O_RDWR);
	if (u->issm_fd < 0)
		return fab_err(-errno, "cannot open %s: %s", path, strerror(errno));
	return 0;
}

/*
 * Under umad2sim a client's write to ibsim blocks while ibsim's queue for it
 * holds more than net.unix.max_dgram_qlen datagrams, and the shim holds its
 * lock meanwhile, so its receiver thread cannot hand over answers; ibsim in
 * turn spins on a full queue of answers to that client and stops reading.
 * Both queues full takes qlen + 1 requests and qlen + 1 answers queued, plus
 * the MAD being written, the one ibsim holds and the one the receiver holds:
 * 2 x (qlen + 1) + 3 in flight. Staying at 2 x (qlen + 1) never gets there.
 */
int fab_umad_max_in_flight(void)
{
	static int cap = -1;

	if (cap >= 0)
		return cap;
	cap = 0;
	if (fab_umad_under_sim()) {
		FILE *f = fopen("/proc/sys/net/unix/max_dgram_qlen", "r");
		int qlen = 10; /* Linux's default */

		if (f) {
			if (fscanf(f, "%d", &qlen) != 1 || qlen < 1 || qlen > 500)
				qlen = 10;
			fclose(f);
		}
		cap = 2 * (qlen + 1);
	}
	return cap;
}

void fab_umad_transport(struct fab_umad *u, struct fab_mad_transport *out)
{
	out->send = umad_tr_send;
	out->recv = umad_tr_recv;
	out->answer = umad_tr_answer;
	out->now_ms = NULL;
	out->ctx = u;
	out->max_in_flight = fab_umad_max_in_flight();
}
