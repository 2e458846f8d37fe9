// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for everything the scanner decodes from MADs: the answers
 * of the fabric (NodeInfo, NodeDescription, PortInfo through the repair pass,
 * SMInfo, PerfMgt ClassPortInfo, PortCounters, PortCountersExtended) and the
 * MAD window engine that matches them to requests (TIDs, statuses, resends).
 *
 * The fuzzer's bytes play the fabric. The scanner starts on one CA whose
 * port 1 is up with no known neighbour, so the repair pass asks what is
 * behind it; every MAD the scanner sends is answered, according to the next
 * control byte, with: nothing (a loss), the request bounced back by the
 * transport, an error status, BUSY, an answer for another attribute, an
 * answer with a foreign TID, or a good answer whose payload (64 bytes for
 * SMPs, 192 for PerfMgt) comes from the input; a duplicate of it may follow
 * later. Time is a fake clock, so timeouts and retries cost nothing. Then
 * the working topology becomes a snapshot, roles are assigned, SMInfo and
 * the counters are collected the same way, and what the snapshot holds is
 * checked against the promises of docs/schema.md (abort() on a violation).
 *
 * Input layout: 1 config byte (window, retries, --reset-counters), 64 bytes
 * of the local node's NodeInfo, 64 of its port 1 PortInfo, then one control
 * byte (+ payload) per answer. Seeds: fuzz/corpus/mad/ (fuzz/mkseeds.py);
 * FUZZ_MAD_VERBOSE=1 prints what an input made of the fabric. Build and
 * run: fuzz/README.md.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "fuzz/fuzzcheck.h"
#include "scanner/madwin.h"
#include "scanner/scan_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PENDING_MAX 256 /* requests sent and not answered yet */

struct fabric {
	struct fuzz_in in;
	int64_t now;
	uint8_t pending[PENDING_MAX][FAB_MAD_SIZE];
	int n_pending;
	unsigned long answers;
};

static int f_send(void *ctx, const uint8_t *mad, const struct fab_mad_req *req,
		  int timeout_ms)
{
	struct fabric *f = ctx;

	(void)req;
	(void)timeout_ms;
	if (f->n_pending == PENDING_MAX)
		return -EIO; /* the transport is full: the engine must cope */
	memcpy(f->pending[f->n_pending++], mad, FAB_MAD_SIZE);
	return 0;
}

static void take(struct fabric *f, int i, uint8_t *out)
{
	memcpy(out, f->pending[i], FAB_MAD_SIZE);
	memmove(f->pending[i], f->pending[i + 1],
		(size_t)(f->n_pending - i - 1) * FAB_MAD_SIZE);
	f->n_pending--;
}

/* Turns the request in mad into an answer with the given status. */
static void answer(uint8_t *mad, unsigned status)
{
	bool dr = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F) == FAB_MAD_CLASS_SMI_DR;
	uint64_t tid = mad_get_field64(mad, 0, IB_MAD_TRID_F);

	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	if (dr) {
		mad_set_field(mad, 0, IB_DRSMP_STATUS_F, status);
		mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 1);
	} else {
		mad_set_field(mad, 0, IB_MAD_STATUS_F, status);
	}
	/* the high half of the TID comes back rewritten, as from the kernel */
	mad_set_field64(mad, 0, IB_MAD_TRID_F, (tid & 0xffffffffu) | 0x5a5a00000000ull);
}

static int f_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	struct fabric *f = ctx;
	uint8_t ctl;

	*status = 0;
	if (!f->n_pending || !fuzz_left(&f->in)) {
		/* silence: time passes, and with no input left every
		 * outstanding request is lost */
		f->n_pending = 0;
		f->now += wait_ms > 0 ? wait_ms : 1;
		return 0;
	}
	ctl = fuzz_u8(&f->in);
	int i = ctl & 0x80 ? f->n_pending - 1 : 0;
	take(f, i, mad);
	f->answers++;
	switch (ctl & 7) {
	case 0: /* lost */
		f->now += wait_ms > 0 ? wait_ms : 1;
		return 0;
	case 1: /* the transport hands the request back (kernel timeout) */
		*status = ETIMEDOUT;
		return 1;
	case 2: /* an error status, any bits */
		answer(mad, fuzz_u16(&f->in));
		return 1;
	case 3:
		answer(mad, IB_MAD_STS_BUSY);
		return 1;
	case 4: /* an answer to some other attribute */
		answer(mad, 0);
		mad_set_field(mad, 0, IB_MAD_ATTRID_F, fuzz_u16(&f->in));
		return 1;
	case 5: { /* a foreign or stale TID */
		uint32_t tid = (uint32_t)fuzz_u16(&f->in) << 16 | fuzz_u16(&f->in);
		answer(mad, 0);
		mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
		return 1;
	}
	default: /* a good answer with the fabric's payload */
		if ((ctl & 0x40) && f->n_pending < PENDING_MAX)
			memcpy(f->pending[f->n_pending++], mad, FAB_MAD_SIZE); /* duplicate later */
		answer(mad, 0);
		/* SMP data is 64 bytes, PerfMgt data 192 */
		fuzz_bytes(&f->in, mad + FAB_MAD_DATA_OFFS,
			   mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F) == FAB_MAD_CLASS_PERF
				   ? FAB_MAD_SIZE - FAB_MAD_DATA_OFFS : 64);
		return 1;
	}
}

static int64_t f_now(void *ctx)
{
	return ((struct fabric *)ctx)->now;
}

static size_t count_errors(const struct fab_snapshot *s, const char *what,
			   uint64_t guid, int port)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_errors; i++)
		n += !strcmp(s->errors[i].what, what) && s->errors[i].node_guid == guid &&
		     s->errors[i].port_num == port;
	return n;
}

/* What the topology part of every snapshot must satisfy. */
static void check_topology(const struct fab_snapshot *s)
{
	size_t ports = 0;

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];

		FUZZ_REQUIRE(n->type < FAB_NODE__COUNT && n->role < FAB_ROLE__COUNT);
		FUZZ_REQUIRE(n->port_first == ports && n->port_count <= s->n_ports - ports);
		FUZZ_REQUIRE(n->desc_raw_len <= FAB_DESC_RAW);
		FUZZ_REQUIRE(memchr(n->desc, 0, sizeof(n->desc)) && fuzz_text_is_safe(n->desc));
		FUZZ_REQUIRE(!(n->flags & FAB_F_DUP_GUID) || count_errors(s, "dup_guid", n->guid, -1));
		ports += n->port_count;
		if (i)
			FUZZ_REQUIRE(n[-1].guid <= n->guid); /* sorted by GUID */
		for (uint32_t k = 0; k < n->port_count; k++) {
			const struct fab_port *p = &s->ports[n->port_first + k];

			FUZZ_REQUIRE(p->node_idx == i && p->port_num <= n->num_ports);
			FUZZ_REQUIRE(!k || p->port_num > p[-1].port_num);
			FUZZ_REQUIRE(p->state < FAB_STATE__COUNT && p->phys_state < FAB_PHYS__COUNT);
			FUZZ_REQUIRE(p->mtu_active <= 5 && p->mtu_cap <= 5);
			FUZZ_REQUIRE(!(p->width_active & ~0x1fu) && !(p->width_enabled & ~0x1fu) &&
				     !(p->width_supported & ~0x1fu));
			FUZZ_REQUIRE(!(p->speed_active >> FAB_SPEED__BITS) &&
				     !(p->speed_enabled >> FAB_SPEED__BITS) &&
				     !(p->speed_supported >> FAB_SPEED__BITS));
			/* names the store writes exist for every value kept */
			FUZZ_REQUIRE(!p->state || fab_state_name(p->state));
			FUZZ_REQUIRE(!p->phys_state || fab_phys_state_name(p->phys_state));
			/* a Down port keeps only its states (a switch port
			 * still carries the switch's LID) */
			if (p->state == FAB_STATE_DOWN)
				FUZZ_REQUIRE(!p->width_active && !p->speed_active && !p->mtu_active &&
					     (n->type == FAB_NODE_SWITCH || !p->lid));
			/* every port that could not be read is said so, once */
			if (p->flags & FAB_F_SMP_FAILED)
				FUZZ_REQUIRE(count_errors(s, "smp", n->guid, p->port_num) >= 1);
			if (p->flags & FAB_F_NO_REMOTE)
				FUZZ_REQUIRE(p->remote_idx == FAB_NONE &&
					     count_errors(s, "hole", n->guid, p->port_num) >= 1);
		}
	}
	FUZZ_REQUIRE(ports == s->n_ports);
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *p = &s->ports[i];
		uint32_t r = p->remote_idx;

		if (r == FAB_NONE)
			continue;
		FUZZ_REQUIRE(r < s->n_ports && s->ports[r].remote_idx == i);
		FUZZ_REQUIRE(p->port_num > 0 && p->remote_port == s->ports[r].port_num);
		FUZZ_REQUIRE(p->remote_guid == s->nodes[s->ports[r].node_idx].guid);
	}
	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_link *l = &s->links[i];

		FUZZ_REQUIRE(l->a < s->n_ports && l->b < s->n_ports &&
			     s->ports[l->a].remote_idx == l->b);
	}
	for (size_t i = 0; i < s->n_errors; i++)
		FUZZ_REQUIRE(s->errors[i].what && s->errors[i].message &&
			     fuzz_text_is_safe(s->errors[i].message));
}

static void check_sms(const struct fab_snapshot *s)
{
	for (size_t i = 0; i < s->n_sms; i++) {
		const struct fab_sm *sm = &s->sms[i];

		FUZZ_REQUIRE(sm->port_idx == FAB_NONE || sm->port_idx < s->n_ports);
		FUZZ_REQUIRE(sm->priority <= 15);
		(void)fab_sm_state_name(sm->state); /* any value: a name or NULL */
		if (sm->failed)
			FUZZ_REQUIRE(sm->port_idx != FAB_NONE &&
				     (s->ports[sm->port_idx].flags & FAB_F_SMINFO_FAILED));
	}
}

static void check_counters(const struct fab_snapshot *s)
{
	for (size_t i = 0; i < s->n_samples; i++) {
		const struct fab_counter_sample *smp = &s->samples[i];

		FUZZ_REQUIRE(smp->port_idx < s->n_ports && smp->sample == 0);
		const struct fab_port *p = &s->ports[smp->port_idx];
		/* only ports that were asked, and never zeros for a failed one */
		FUZZ_REQUIRE(p->port_num > 0 && p->state == FAB_STATE_ACTIVE);
		FUZZ_REQUIRE(!(p->flags & FAB_F_PMA_FAILED));
		FUZZ_REQUIRE(!(smp->valid >> FAB_CTR__COUNT));
		/* details only where their counter is not 0, never beside "unsupported" */
		static const struct { unsigned ctr, pma; } det[] = {
			{ FAB_CTR_RCV_ERRORS, FAB_PMA_RCV_ERROR_DETAILS },
			{ FAB_CTR_XMIT_DISCARDS, FAB_PMA_XMIT_DISCARD_DETAILS },
		};
		for (size_t k = 0; k < 2; k++) {
			uint32_t m = fab_counter_details_of(det[k].ctr);
			if (!(smp->valid & m))
				continue;
			FUZZ_REQUIRE((smp->valid & m) == m && (smp->valid >> det[k].ctr & 1) &&
				     smp->v[det[k].ctr] && !(smp->unsupported & det[k].pma));
			for (unsigned c = 0; c < FAB_CTR__COUNT; c++)
				if (m >> c & 1)
					FUZZ_REQUIRE(smp->v[c] >> 16 == 0);
		}
		FUZZ_REQUIRE(smp->vl_valid == 0 || smp->vl_valid == 0xffff);
		FUZZ_REQUIRE(!(smp->vl_valid && (smp->unsupported & FAB_PMA_VL_XMIT_WAIT)));
		if (smp->extended)
			continue;
		/* 32-bit PortCounters: no value wider than its field */
		for (unsigned c = 0; c < FAB_CTR__COUNT; c++) {
			unsigned bits = fab_counter_bits(c, 0);
			if ((smp->valid >> c & 1) && bits < 64)
				FUZZ_REQUIRE(smp->v[c] >> bits == 0);
		}
	}
	uint8_t *seen = calloc(s->n_ports + 1, 1); /* one sample per port */
	for (size_t i = 0; seen && i < s->n_samples; i++) {
		FUZZ_REQUIRE(!seen[s->samples[i].port_idx]);
		seen[s->samples[i].port_idx] = 1;
	}
	free(seen);
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *p = &s->ports[i];
		const struct fab_node *n = &s->nodes[p->node_idx];

		if (p->flags & FAB_F_PMA_FAILED)
			FUZZ_REQUIRE(count_errors(s, "pma", n->guid, p->port_num) >= 1 &&
				     (n->flags & FAB_F_PMA_FAILED));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabric *f = calloc(1, sizeof(*f));
	struct fab_madwin *mw = NULL;
	struct fab_snapshot *s = NULL;
	struct fab_scan_opts o;
	struct wt w = { 0 };

	if (!f)
		return 0;
	f->in = (struct fuzz_in){ .p = data, .len = size };
	uint8_t cfg = fuzz_u8(&f->in);
	struct fab_mad_transport t = { .send = f_send, .recv = f_recv, .now_ms = f_now, .ctx = f };

	fab_scan_opts_init(&o);
	o.retries = (cfg >> 3) & 3;
	o.reset_counters = cfg & 0x20;
	if (fab_madwin_new(&t, 1 + (cfg & 7) * 3, 10, o.retries, &mw))
		goto out;

	/* The scanning CA: its NodeInfo and an up port 1 with nothing known
	 * behind it, as libibnetdisc leaves a port whose neighbour was lost. */
	uint32_t me = wt_add_node(&w, 0x0002c90300000001ull, FAB_NODE_CA, 1);
	if (me == FAB_NONE)
		goto out;
	fuzz_bytes(&f->in, w.nodes[me].node_info, 64);
	w.nodes[me].path_valid = true;
	struct wt_port *wp = wt_port(&w, me, 1);
	fuzz_bytes(&f->in, wp->info, 64);
	if (!(cfg & 0x40)) {
		mad_set_field(wp->info, 0, IB_PORT_STATE_F, FAB_STATE_ACTIVE);
		mad_set_field(wp->info, 0, IB_PORT_PHYS_STATE_F, FAB_PHYS_LINKUP);
	}
	wp->exists = true;
	wp->guid = 0x0002c90300000002ull;
	wp->have_info = mad_get_field(wp->info, 0, IB_PORT_STATE_F) != 0;

	unsigned long mads = 0;
	if (wt_repair(&w, mw, &o, &mads))
		goto out;
	FUZZ_REQUIRE(fab_madwin_stats(mw)->answered + fab_madwin_stats(mw)->failed <=
		     fab_madwin_stats(mw)->sent);
	if (!(s = fab_snapshot_new()) || wt_to_snapshot(&w, s))
		goto out;
	check_topology(s);
	fab_topology_assign_roles(s);
	check_topology(s);
	if (fab_snapshot_index(s) || fab_scan_sms(s, mw, &o))
		goto out;
	check_sms(s);
	if (fab_scan_counters(s, mw, &o))
		goto out;
	check_counters(s);
	check_topology(s);
	if (getenv("FUZZ_MAD_VERBOSE")) {
		const struct fab_madwin_stats *st = fab_madwin_stats(mw);
		fprintf(stderr, "fuzz_mad: %zu bytes: %zu nodes, %zu ports, %zu links, "
			"%zu SMs, %zu samples, %zu errors; MADs sent %lu, answered %lu, "
			"failed %lu, stale %lu\n", size, s->n_nodes, s->n_ports, s->n_links,
			s->n_sms, s->n_samples, s->n_errors, st->sent, st->answered,
			st->failed, st->stale);
		for (size_t i = 0; i < s->n_errors; i++)
			fprintf(stderr, "  %s: %s\n", s->errors[i].what, s->errors[i].message);
	}
out:
	fab_snapshot_free(s);
	wt_free(&w);
	fab_madwin_free(mw);
	free(f);
	return 0;
}
