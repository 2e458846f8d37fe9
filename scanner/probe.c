// SPDX-License-Identifier: MIT
/*
 * Live probes of known ports: LID-routed NodeInfo, PortInfo and PortCounters
 * sent straight to the LIDs a snapshot recorded, no discovery, all in flight
 * through one MAD window (scanner/madwin.c). Used by `fabsweep ready` and by
 * the forensic pass of `fabsweep scan --forensic`.
 *
 * Order of one probe: every NodeInfo first (one per distinct LID), then for
 * each port whose LID answered with the expected GUID its PortInfo and
 * PortCounters. Both rounds share the window: the PortInfo and PortCounters
 * of a port are queued as soon as its NodeInfo answer arrives, so the whole
 * probe is about two round trips long.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/probe.h"
#include "fabsweep/snapshot.h"
#include "scanner/scan_priv.h"


void fab_probe_opts_init(struct fab_probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->window = FAB_PROBE_DEFAULT_WINDOW;
	o->timeout_ms = FAB_PROBE_DEFAULT_TIMEOUT_MS;
	o->retries = FAB_PROBE_DEFAULT_RETRIES;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the local port ---------------------------------------------------------- */

/* Parses "ib:CA/PORT" (a snapshot's source). */
static bool parse_source(const char *src, char ca[UMAD_CA_NAME_LEN], int *port)
{
	const char *slash;
	char *end;
	long p;

	if (!src || strncmp(src, "ib:", 3))
		return false;
	src += 3;
	slash = strrchr(src, '/');
	if (!slash || slash == src || (size_t)(slash - src) >= UMAD_CA_NAME_LEN)
		return false;
	p = strtol(slash + 1, &end, 10);
	if (*end || p < 1 || p > 254)
		return false;
	snprintf(ca, UMAD_CA_NAME_LEN, "%.*s", (int)(slash - src), src);
	*port = (int)p;
	return true;
}

int fab_mport_open(const struct fab_probe_opts *o, const char *src_hint,
		   struct fab_mport *m)
{
	struct fab_mad_transport tr;
	int window = o->window > 0 ? o->window : FAB_PROBE_DEFAULT_WINDOW;
	int timeout = o->timeout_ms > 0 ? o->timeout_ms : FAB_PROBE_DEFAULT_TIMEOUT_MS;
	int retries = o->retries >= 0 ? o->retries : FAB_PROBE_DEFAULT_RETRIES;
	double t0 = mono_ms();
	int rc;

	memset(m, 0, sizeof(*m));
	if (!o->ca && parse_source(src_hint, m->ca, &m->port)) {
		/* the port the scan ran from */
	} else {
		struct fab_umad_port up;
		/* only an active port reaches the LIDs of a sweep */
		if ((rc = fab_umad_pick_port(o->ca, o->port, false, &up)))
			return rc;
		memcpy(m->ca, up.ca, sizeof(m->ca));
		m->port = up.port;
	}
	if ((rc = fab_umad_open(m->ca, m->port, &m->um)))
		return fab_err(rc, "cannot open MAD port %s/%d: %s (are you root, and is ib_umad loaded?)",
			       m->ca, m->port, strerror(-rc));
	fab_umad_transport(m->um, &tr);
	if ((rc = fab_madwin_new(&tr, window, timeout, retries, &m->mw))) {
		fab_umad_close(m->um);
		m->um = NULL;
		return fab_err(rc, "out of memory");
	}
	m->open_ms = mono_ms() - t0;
	return 0;
}

void fab_mport_close(struct fab_mport *m)
{
	fab_madwin_free(m->mw);
	fab_umad_close(m->um);
	m->mw = NULL;
	m->um = NULL;
}

struct fab_probe {
	struct fab_mport m;
	const struct fab_mkeys *mkeys;
};

int fab_probe_open(const struct fab_probe_opts *o, struct fab_probe **out)
{
	struct fab_probe *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return fab_err(-ENOMEM, "out of memory");
	if ((rc = fab_mport_open(o, NULL, &p->m))) {
		free(p);
		return rc;
	}
	p->mkeys = o->mkeys;
	*out = p;
	return 0;
}

void fab_probe_close(struct fab_probe *p)
{
	if (!p)
		return;
	fab_mport_close(&p->m);
	free(p);
}

struct fab_probe_pending {
	pthread_t thread;
	struct fab_probe_opts o;
	struct fab_probe *p;
	int rc;
	char msg[512];
};

static void *open_thread(void *arg)
{
	struct fab_probe_pending *pd = arg;

	pd->rc = fab_probe_open(&pd->o, &pd->p);
	if (pd->rc)
		snprintf(pd->msg, sizeof(pd->msg), "%s", fab_errmsg());
	return NULL;
}

int fab_probe_open_begin(const struct fab_probe_opts *o, struct fab_probe_pending **out)
{
	struct fab_probe_pending *pd = calloc(1, sizeof(*pd));
	int rc;

	if (!pd)
		return fab_err(-ENOMEM, "out of memory");
	pd->o = *o;
	if ((rc = pthread_create(&pd->thread, NULL, open_thread, pd))) {
		free(pd);
		return fab_err(-rc, "cannot start a thread: %s", strerror(rc));
	}
	*out = pd;
	return 0;
}

int fab_probe_open_end(struct fab_probe_pending *pd, struct fab_probe **out)
{
	int rc;

	pthread_join(pd->thread, NULL);
	rc = pd->rc;
	if (rc)
		fab_err(rc, "%s", pd->msg);
	else
		*out = pd->p;
	free(pd);
	return rc;
}


/* ---- PortCounters decoding ---------------------------------------------------- */

/* The 32-bit PortCounters as read. PortXmitWait is kept only when the PMA
 * said (ClassPortInfo) it counts it; the probe does not ask, so never. */
static void decode_pc(struct fab_counter_sample *c, const uint8_t *d, bool data)
{
	fab_scan_decode_pc(c, d, true, false, data);
	c->sampled_at_ms = fab_now_ms();
}

/* ---- the probe ------------------------------------------------------------------ */

enum kind { K_NODE = 1, K_INFO, K_CTR };

#define COOKIE(k, i) ((uint64_t)(k) << 32 | (uint32_t)(i))
#define C_KIND(c) ((unsigned)((c) >> 32))
#define C_IDX(c) ((uint32_t)(c))

struct lidq {
	uint16_t lid;
	uint64_t want_guid; /* the snapshot's GUID at this LID */
	int err;
	uint64_t guid;
	bool done;
};

struct probe {
	const struct fab_snapshot *s;
	struct fab_probe_port *ports;
	size_t n;
	struct lidq *lids;  /* distinct LIDs, sorted */
	size_t n_lids;
	uint32_t *port_lid; /* per port: index in lids, or FAB_NONE */
	uint32_t *lid_head; /* per LID: its first port, FAB_NONE */
	uint32_t *port_next; /* per port: the next port asked at its LID */
	const struct fab_mkeys *mkeys;
	struct fab_jobq q;
	int err;
};

static int cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return x < y ? -1 : x > y;
}

static size_t lid_find(const struct probe *pr, uint16_t lid)
{
	size_t lo = 0, hi = pr->n_lids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pr->lids[mid].lid < lid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void push(struct probe *pr, enum kind k, uint32_t i)
{
	int rc = fab_jobq_push(&pr->q, COOKIE(k, i));

	if (rc && !pr->err)
		pr->err = rc;
}

static int probe_next(void *ctx, struct fab_mad_req *req)
{
	struct probe *pr = ctx;
	uint64_t j;

	if (pr->err)
		return pr->err;
	if (!fab_jobq_pop(&pr->q, &j))
		return 0;
	req->cookie = j;
	req->method = FAB_MAD_GET;
	if (C_KIND(j) == K_NODE) {
		req->mgmt_class = FAB_MAD_CLASS_SMI;
		req->attr_id = IB_ATTR_NODE_INFO;
		req->dlid = pr->lids[C_IDX(j)].lid;
		req->mkey = fab_mkeys_lookup(pr->mkeys, 0, pr->lids[C_IDX(j)].want_guid);
		return 1;
	}
	const struct fab_probe_port *pp = &pr->ports[C_IDX(j)];
	const struct fab_port *p = &pr->s->ports[pp->port_idx];
	req->dlid = pp->lid;
	if (C_KIND(j) == K_INFO) {
		req->mgmt_class = FAB_MAD_CLASS_SMI;
		req->attr_id = IB_ATTR_PORT_INFO;
		req->attr_mod = p->port_num;
		req->mkey = fab_mkeys_lookup(pr->mkeys, p->guid,
					     pr->s->nodes[p->node_idx].guid);
	} else {
		req->mgmt_class = FAB_MAD_CLASS_PERF;
		req->attr_id = IB_GSI_PORT_COUNTERS;
		mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, p->port_num);
	}
	return 1;
}

/* The CapabilityMask that says whether a port's extended speeds are valid:
 * its own for a CA, the switch's port 0 (from the snapshot) for a switch. */
static void decode_info(const struct fab_snapshot *s, struct fab_probe_port *pp,
			const uint8_t *info)
{
	const struct fab_port *p = &s->ports[pp->port_idx];
	const struct fab_node *n = &s->nodes[p->node_idx];
	uint8_t cap[64] = { 0 };
	const uint8_t *cap_info = info;

	if (n->type == FAB_NODE_SWITCH) {
		const struct fab_port *p0 = fab_snapshot_port(s, p->node_idx, 0);
		mad_set_field(cap, 0, IB_PORT_CAPMASK_F, p0 ? p0->cap_mask : 0);
		cap_info = cap;
	}
	pp->live = *p;
	pp->live.flags = 0;
	pp->live.remote_idx = FAB_NONE;
	fab_scan_decode_portinfo(&pp->live, info, cap_info, NULL);
	/* the snapshot knew the link ran FDR10 (Mellanox ExtendedPortInfo):
	 * the base speed QDR read now is the same link speed */
	if (p->speed_active == FAB_SPEED_FDR10 && pp->live.speed_active == FAB_SPEED_QDR)
		pp->live.speed_active = FAB_SPEED_FDR10;
}

static void probe_done(void *ctx, const struct fab_mad_req *req, int err,
		       const uint8_t *resp)
{
	struct probe *pr = ctx;
	uint32_t i = C_IDX(req->cookie);
	const uint8_t *d = resp ? resp + FAB_MAD_DATA_OFFS : NULL;

	switch (C_KIND(req->cookie)) {
	case K_NODE: {
		struct lidq *l = &pr->lids[i];
		l->done = true;
		l->err = err;
		if (!err)
			l->guid = mad_get_field64((void *)d, 0, IB_NODE_GUID_F);
		/* queue the ports asked at this LID */
		for (uint32_t k = pr->lid_head[i]; k != FAB_NONE; k = pr->port_next[k]) {
			struct fab_probe_port *pp = &pr->ports[k];
			pp->node_err = l->err;
			pp->node_guid = l->guid;
			if (l->err) {
				pp->info_err = pp->ctr_err = l->err;
			} else if (l->guid != l->want_guid) {
				pp->info_err = pp->ctr_err = -ECANCELED;
			} else {
				push(pr, K_INFO, (uint32_t)k);
				push(pr, K_CTR, (uint32_t)k);
			}
		}
		return;
	}
	case K_INFO:
		pr->ports[i].info_err = err;
		if (!err)
			decode_info(pr->s, &pr->ports[i], d);
		return;
	case K_CTR:
		pr->ports[i].ctr_err = err;
		if (!err) {
			decode_pc(&pr->ports[i].ctr, d, true);
			pr->ports[i].ctr.port_idx = pr->ports[i].port_idx;
		}
		return;
	}
}

int fab_probe_ports(struct fab_probe *fp, const struct fab_snapshot *snap,
		    struct fab_probe_port *ports, size_t n, struct fab_probe_stats *stats)
{
	struct probe pr = { .s = snap, .ports = ports, .n = n, .mkeys = fp->mkeys };
	const struct fab_mport *m = &fp->m;
	struct fab_madwin_stats before = *fab_madwin_stats(m->mw);
	uint16_t *lids = NULL;
	size_t nl = 0;
	double t1;
	int rc = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	for (size_t i = 0; i < n; i++) {
		struct fab_probe_port *pp = &ports[i];
		uint32_t pi = pp->port_idx;

		memset(pp, 0, sizeof(*pp));
		pp->port_idx = pi;
		pp->live.remote_idx = FAB_NONE;
		pp->ctr.port_idx = pi;
		if (pi >= snap->n_ports)
			return fab_err(-EINVAL, "probe: port %u is not in the snapshot", pi);
		pp->lid = fab_scan_port_dlid(snap, &snap->ports[pi]);
	}
	if (!n)
		return 0;
	lids = malloc(n * sizeof(*lids));
	pr.port_lid = malloc(n * sizeof(*pr.port_lid));
	pr.lids = calloc(n, sizeof(*pr.lids));
	pr.lid_head = malloc(n * sizeof(*pr.lid_head));
	pr.port_next = malloc(n * sizeof(*pr.port_next));
	if (!lids || !pr.port_lid || !pr.lids || !pr.lid_head || !pr.port_next) {
		rc = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (ports[i].lid)
			lids[nl++] = ports[i].lid;
	qsort(lids, nl, sizeof(*lids), cmp_u16);
	for (size_t i = 0; i < nl; i++)
		if (!pr.n_lids || pr.lids[pr.n_lids - 1].lid != lids[i])
			pr.lids[pr.n_lids++].lid = lids[i];
	for (size_t i = 0; i < pr.n_lids; i++)
		pr.lid_head[i] = FAB_NONE;
	for (size_t i = n; i-- > 0;) { /* backwards: each LID's list in port order */
		struct fab_probe_port *pp = &ports[i];
		if (!pp->lid) {
			pr.port_lid[i] = FAB_NONE;
			pp->node_err = pp->info_err = pp->ctr_err = -EHOSTUNREACH;
			continue;
		}
		size_t li = lid_find(&pr, pp->lid);
		pr.port_lid[i] = (uint32_t)li;
		pr.port_next[i] = pr.lid_head[li];
		pr.lid_head[li] = (uint32_t)i;
		pr.lids[li].want_guid = snap->nodes[snap->ports[pp->port_idx].node_idx].guid;
	}
	for (size_t i = 0; i < pr.n_lids; i++)
		push(&pr, K_NODE, (uint32_t)i);
	if (pr.err) {
		rc = fab_err(pr.err, "out of memory");
		goto out;
	}
	t1 = mono_ms();
	rc = fab_madwin_run(m->mw, probe_next, probe_done, &pr);
	if (rc)
		fab_err(rc, "probe through %s/%d failed: %s", m->ca, m->port, strerror(-rc));
	if (stats) {
		const struct fab_madwin_stats *ms = fab_madwin_stats(m->mw);
		stats->sent = ms->sent - before.sent;
		stats->resent = ms->resent - before.resent;
		stats->answered = ms->answered - before.answered;
		stats->failed = ms->failed - before.failed;
		stats->open_ms = m->open_ms;
		stats->mads_ms = mono_ms() - t1;
		snprintf(stats->source, sizeof(stats->source), "ib:%s/%d", m->ca, m->port);
	}
out:
	fab_jobq_free(&pr.q);
	free(lids);
	free(pr.lids);
	free(pr.port_lid);
	free(pr.lid_head);
	free(pr.port_next);
	return rc;
}

/* ---- forensic: counters a normal scan does not read ------------------------------ */

struct forensic {
	struct fab_snapshot *s;
	uint32_t *todo;   /* port indices */
	size_t n, next;
	uint16_t *dlid;   /* per todo entry */
	size_t n_read;
	int err;
};

static int forensic_next(void *ctx, struct fab_mad_req *req)
{
	struct forensic *f = ctx;

	if (f->err)
		return f->err;
	if (f->next == f->n)
		return 0;
	size_t i = f->next++;
	const struct fab_port *p = &f->s->ports[f->todo[i]];

	req->mgmt_class = FAB_MAD_CLASS_PERF;
	req->method = FAB_MAD_GET;
	req->attr_id = IB_GSI_PORT_COUNTERS;
	req->dlid = f->dlid[i];
	req->cookie = i;
	mad_set_field(req->data, 0, IB_PC_PORT_SELECT_F, p->port_num);
	return 1;
}

static void forensic_done(void *ctx, const struct fab_mad_req *req, int err,
			  const uint8_t *resp)
{
	struct forensic *f = ctx;
	size_t i = (size_t)req->cookie;
	uint32_t pi = f->todo[i];
	struct fab_port *p = &f->s->ports[pi];
	struct fab_node *n = &f->s->nodes[p->node_idx];
	char g[FAB_GUID_STRLEN];

	if (f->err)
		return;
	if (err) {
		fab_guid_format(n->guid, g);
		p->flags |= FAB_F_PMA_FAILED;
		n->flags |= FAB_F_PMA_FAILED;
		int rc = fab_snapshot_add_error(f->s, n->guid, p->port_num, "pma",
			"forensic: \"%s\" (%s) port %u, LID %u: PortCounters of a port that is not active: %s",
			n->desc, g, p->port_num, f->dlid[i],
			err == -ETIMEDOUT ? "no answer" : err == -EREMOTEIO ? "answered with an error status"
						       : strerror(-err));
		if (rc)
			f->err = rc;
		return;
	}
	struct fab_counter_sample *c = fab_snapshot_add_sample(f->s);
	if (!c) {
		f->err = -ENOMEM;
		return;
	}
	c->port_idx = pi;
	c->sample = 0;
	decode_pc(c, resp + FAB_MAD_DATA_OFFS, true);
	f->n_read++;
}

/* Where a node's PMA answers: a switch at its LID, a CA at the LID of one of
 * its active ports (a CA's PMA answers for all its ports). */
static uint16_t node_pma_lid(const struct fab_snapshot *s, const struct fab_node *n)
{
	if (n->type == FAB_NODE_SWITCH)
		return n->lid;
	for (uint32_t k = 0; k < n->port_count; k++) {
		const struct fab_port *p = &s->ports[n->port_first + k];
		if (p->state == FAB_STATE_ACTIVE && p->lid)
			return p->lid;
	}
	return 0;
}

int fab_probe_unsampled_counters(const struct fab_probe_opts *o,
				 struct fab_snapshot *snap, size_t *n_read)
{
	struct forensic f = { .s = snap };
	struct fab_mport m = { 0 };
	uint8_t *sampled = NULL;
	int rc = 0;

	if (n_read)
		*n_read = 0;
	sampled = calloc(snap->n_ports + 1, 1);
	f.todo = malloc((snap->n_ports + 1) * sizeof(*f.todo));
	f.dlid = malloc((snap->n_ports + 1) * sizeof(*f.dlid));
	if (!sampled || !f.todo || !f.dlid) {
		rc = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < snap->n_samples; i++)
		if (snap->samples[i].port_idx < snap->n_ports)
			sampled[snap->samples[i].port_idx] = 1;
	for (size_t ni = 0; ni < snap->n_nodes; ni++) {
		const struct fab_node *n = &snap->nodes[ni];
		uint16_t lid;

		if ((n->flags & FAB_F_PMA_FAILED) || !(lid = node_pma_lid(snap, n)))
			continue; /* its PMA failed already, or nowhere to ask */
		for (uint32_t k = 0; k < n->port_count; k++) {
			uint32_t pi = n->port_first + k;
			if (snap->ports[pi].port_num == 0 || sampled[pi])
				continue;
			f.todo[f.n] = pi;
			f.dlid[f.n++] = lid;
		}
	}
	if (!f.n)
		goto out;
	if ((rc = fab_mport_open(o, snap->source, &m)))
		goto out;
	rc = fab_madwin_run(m.mw, forensic_next, forensic_done, &f);
	if (!rc && f.err)
		rc = f.err;
	if (rc) {
		fab_err(rc, "forensic counters through %s/%d failed: %s", m.ca, m.port,
			strerror(-rc));
		goto out;
	}
	if (snap->n_errors && snap->status == FAB_SCAN_COMPLETE)
		snap->status = FAB_SCAN_PARTIAL;
	if ((rc = fab_snapshot_index(snap)))
		fab_err(rc, "out of memory");
	if (n_read)
		*n_read = f.n_read;
out:
	fab_mport_close(&m);
	free(sampled);
	free(f.todo);
	free(f.dlid);
	return rc;
}
