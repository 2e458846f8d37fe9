// SPDX-License-Identifier: MIT
/*
 * The counter model (include/fabsweep/counter.h, docs/counters.md): the
 * counters, their widths, saturation, the latest sample of a port, which
 * samples are compared, and the growth between them. Every module asks
 * here; nothing else decides what a reset or a saturated counter means.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * One line per counter, in enum fab_counter order (the public SQL interface:
 * append, never reorder). bits: the width in PortCounters (libibmad's field
 * widths; the detail attributes' fields are 16 bits), 0 for the counters
 * only PortCountersExtended has. kind: what the counter counts; only data
 * and packet counters are 64 bits wide in PortCountersExtended. of: the
 * counter a detail counter explains.
 */
enum kind { K_ERROR, K_WAIT, K_DATA, K_DETAIL };
static const struct {
	const char *name;
	unsigned char bits;
	unsigned char kind;
	unsigned char of;
} counters[] = {
	[FAB_CTR_SYMBOL_ERRORS] = { "SymbolErrorCounter", 16, K_ERROR, 0 },
	[FAB_CTR_LINK_ERROR_RECOVERY] = { "LinkErrorRecoveryCounter", 8, K_ERROR, 0 },
	[FAB_CTR_LINK_DOWNED] = { "LinkDownedCounter", 8, K_ERROR, 0 },
	[FAB_CTR_RCV_ERRORS] = { "PortRcvErrors", 16, K_ERROR, 0 },
	[FAB_CTR_RCV_REMOTE_PHYS_ERRORS] = { "PortRcvRemotePhysicalErrors", 16, K_ERROR, 0 },
	[FAB_CTR_RCV_SWITCH_RELAY_ERRORS] = { "PortRcvSwitchRelayErrors", 16, K_ERROR, 0 },
	[FAB_CTR_XMIT_DISCARDS] = { "PortXmitDiscards", 16, K_ERROR, 0 },
	[FAB_CTR_XMIT_CONSTRAINT_ERRORS] = { "PortXmitConstraintErrors", 8, K_ERROR, 0 },
	[FAB_CTR_RCV_CONSTRAINT_ERRORS] = { "PortRcvConstraintErrors", 8, K_ERROR, 0 },
	[FAB_CTR_LOCAL_LINK_INTEGRITY_ERRORS] = { "LocalLinkIntegrityErrors", 4, K_ERROR, 0 },
	[FAB_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = { "ExcessiveBufferOverrunErrors", 4, K_ERROR, 0 },
	[FAB_CTR_VL15_DROPPED] = { "VL15Dropped", 16, K_ERROR, 0 },
	[FAB_CTR_XMIT_WAIT] = { "PortXmitWait", 32, K_WAIT, 0 },
	[FAB_CTR_XMIT_DATA] = { "PortXmitData", 32, K_DATA, 0 },
	[FAB_CTR_RCV_DATA] = { "PortRcvData", 32, K_DATA, 0 },
	[FAB_CTR_XMIT_PKTS] = { "PortXmitPkts", 32, K_DATA, 0 },
	[FAB_CTR_RCV_PKTS] = { "PortRcvPkts", 32, K_DATA, 0 },
	[FAB_CTR_UNICAST_XMIT_PKTS] = { "PortUnicastXmitPkts", 0, K_DATA, 0 },
	[FAB_CTR_UNICAST_RCV_PKTS] = { "PortUnicastRcvPkts", 0, K_DATA, 0 },
	[FAB_CTR_MULTICAST_XMIT_PKTS] = { "PortMulticastXmitPkts", 0, K_DATA, 0 },
	[FAB_CTR_MULTICAST_RCV_PKTS] = { "PortMulticastRcvPkts", 0, K_DATA, 0 },
	[FAB_CTR_LOCAL_PHYSICAL_ERRORS] = { "PortLocalPhysicalErrors", 16, K_DETAIL, FAB_CTR_RCV_ERRORS },
	[FAB_CTR_MALFORMED_PACKET_ERRORS] = { "PortMalformedPacketErrors", 16, K_DETAIL, FAB_CTR_RCV_ERRORS },
	[FAB_CTR_BUFFER_OVERRUN_ERRORS] = { "PortBufferOverrunErrors", 16, K_DETAIL, FAB_CTR_RCV_ERRORS },
	[FAB_CTR_DLID_MAPPING_ERRORS] = { "PortDLIDMappingErrors", 16, K_DETAIL, FAB_CTR_RCV_ERRORS },
	[FAB_CTR_VL_MAPPING_ERRORS] = { "PortVLMappingErrors", 16, K_DETAIL, FAB_CTR_RCV_ERRORS },
	[FAB_CTR_LOOPING_ERRORS] = { "PortLoopingErrors", 16, K_DETAIL, FAB_CTR_RCV_ERRORS },
	[FAB_CTR_INACTIVE_DISCARDS] = { "PortInactiveDiscards", 16, K_DETAIL, FAB_CTR_XMIT_DISCARDS },
	[FAB_CTR_NEIGHBOR_MTU_DISCARDS] = { "PortNeighborMTUDiscards", 16, K_DETAIL, FAB_CTR_XMIT_DISCARDS },
	[FAB_CTR_SW_LIFETIME_LIMIT_DISCARDS] = { "PortSwLifetimeLimitDiscards", 16, K_DETAIL, FAB_CTR_XMIT_DISCARDS },
	[FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS] = { "PortSwHOQLifetimeLimitDiscards", 16, K_DETAIL, FAB_CTR_XMIT_DISCARDS },
};
static_assert(ARRAY_SIZE(counters) == FAB_CTR__COUNT, "counters");
static_assert(FAB_CTR__COUNT <= 32, "counter bitmasks are 32 bits");

const char *fab_counter_name(unsigned c)
{
	return c < ARRAY_SIZE(counters) ? counters[c].name : NULL;
}

int fab_counter_parse(const char *s)
{
	if (!s)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(counters); i++)
		if (!strcmp(counters[i].name, s))
			return (int)i;
	return -1;
}

unsigned fab_counter_bits(unsigned c, bool extended)
{
	if (c >= ARRAY_SIZE(counters))
		return 0;
	/* PortCountersExtended has 64-bit data and packet counters; the error
	 * counters, XmitWait and the details keep their width. */
	if (!counters[c].bits || (extended && counters[c].kind == K_DATA))
		return 64;
	return counters[c].bits;
}

bool fab_counter_is_error(unsigned c)
{
	return c < ARRAY_SIZE(counters) && counters[c].kind == K_ERROR;
}

bool fab_counter_is_detail(unsigned c)
{
	return c < ARRAY_SIZE(counters) && counters[c].kind == K_DETAIL;
}

int fab_counter_detail_of(unsigned c)
{
	return fab_counter_is_detail(c) ? counters[c].of : -1;
}

static uint32_t kind_mask(unsigned kind)
{
	uint32_t m = 0;

	for (unsigned c = 0; c < ARRAY_SIZE(counters); c++)
		if (counters[c].kind == kind)
			m |= 1u << c;
	return m;
}

uint32_t fab_counter_error_mask(void)
{
	return kind_mask(K_ERROR);
}

uint32_t fab_counter_detail_mask(void)
{
	return kind_mask(K_DETAIL);
}

uint32_t fab_counter_details_of(unsigned ctr)
{
	uint32_t m = 0;

	for (unsigned c = 0; c < ARRAY_SIZE(counters); c++)
		if (counters[c].kind == K_DETAIL && counters[c].of == ctr)
			m |= 1u << c;
	return m;
}

const char *fab_pma_attr_name(unsigned bit)
{
	switch (bit) {
	case FAB_PMA_RCV_ERROR_DETAILS:
		return "PortRcvErrorDetails";
	case FAB_PMA_XMIT_DISCARD_DETAILS:
		return "PortXmitDiscardDetails";
	case FAB_PMA_VL_XMIT_WAIT:
		return "PortVLXmitWaitCounters";
	}
	return NULL;
}

bool fab_counter_saturated(const struct fab_counter_sample *c, unsigned ctr)
{
	unsigned bits = fab_counter_bits(ctr, c->extended);

	return ctr < FAB_CTR__COUNT && (c->valid & (1u << ctr)) && bits < 64 &&
	       c->v[ctr] == (1ull << bits) - 1;
}

const struct fab_counter_sample *fab_counter_latest(const struct fab_snapshot *s, uint32_t port)
{
	const struct fab_counter_sample *c = fab_snapshot_sample(s, port, 1);

	return c ? c : fab_snapshot_sample(s, port, 0);
}

/* ---- growth ---------------------------------------------------------------- */

uint64_t fab_counter_grew(uint64_t was, uint64_t now, unsigned bits, bool *reset, bool *saturated)
{
	*saturated = bits < 64 && now == (1ull << bits) - 1;
	*reset = !*saturated && now < was;
	if (*saturated)
		return now >= was ? now - was : 0;
	return *reset ? now : now - was;
}

void fab_counter_delta(const struct fab_counter_sample *from,
		       const struct fab_counter_sample *to, uint32_t want, struct fab_counter_delta *d)
{
	memset(d, 0, sizeof(*d));
	if (from->sampled_at_ms > 0 && to->sampled_at_ms > from->sampled_at_ms)
		d->secs = (double)(to->sampled_at_ms - from->sampled_at_ms) / 1000.0;
	for (unsigned k = 0; k < FAB_CTR__COUNT; k++) {
		uint32_t bit = 1u << k;
		bool reset, sat;

		if (!(from->valid & to->valid & want & bit))
			continue;
		d->valid |= bit;
		d->inc[k] = fab_counter_grew(from->v[k], to->v[k], fab_counter_bits(k, to->extended),
					     &reset, &sat);
		if (reset)
			d->reset |= bit;
		if (sat)
			d->saturated |= bit;
	}
	d->at_least = d->reset | d->saturated;
}

void fab_counter_delta_add(struct fab_counter_delta *sum, const struct fab_counter_delta *d)
{
	for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
		if (d->valid & (1u << k))
			sum->inc[k] += d->inc[k];
	sum->valid |= d->valid;
	sum->reset |= d->reset;
	sum->saturated |= d->saturated;
	sum->at_least = sum->reset | sum->saturated;
	sum->secs += d->secs;
}

bool fab_counter_rate(const struct fab_counter_delta *d, unsigned ctr, double *out)
{
	if (ctr >= FAB_CTR__COUNT || !(d->valid & (1u << ctr)) || d->secs <= 0)
		return false;
	*out = (double)d->inc[ctr] / d->secs;
	return true;
}

bool fab_counter_over(const struct fab_counter_delta *d, unsigned ctr, double allowed)
{
	return ctr < FAB_CTR__COUNT && allowed >= 0 && (d->valid & (1u << ctr)) &&
	       (double)d->inc[ctr] > allowed;
}

void fab_counter_amount(uint64_t inc, bool at_least, char *buf, size_t len)
{
	snprintf(buf, len, "%llu%s", (unsigned long long)inc, at_least ? " or more" : "");
}

const char *fab_counter_why(bool reset, bool saturated)
{
	return reset ? "cleared in between" : saturated ? "saturated" : NULL;
}

void fab_counter_increase_text(uint64_t inc, bool reset, bool saturated, char *buf, size_t len)
{
	const char *why = fab_counter_why(reset, saturated);

	snprintf(buf, len, "%llu%s%s%s%s", (unsigned long long)inc, why ? " or more" : "",
		 why ? " (" : "", why ? why : "", why ? ")" : "");
}

/* ---- per-VL waits and the bit error rate ------------------------------------ */

void fab_counter_vl_delta(const struct fab_counter_sample *from,
			  const struct fab_counter_sample *to, struct fab_vl_delta *d)
{
	memset(d, 0, sizeof(*d));
	if (from->sampled_at_ms > 0 && to->sampled_at_ms > from->sampled_at_ms)
		d->secs = (double)(to->sampled_at_ms - from->sampled_at_ms) / 1000.0;
	for (unsigned v = 0; v < FAB_N_VLS; v++) {
		uint16_t bit = (uint16_t)(1u << v);
		bool reset, sat;

		if (!(from->vl_valid & to->vl_valid & bit))
			continue;
		d->valid |= bit;
		d->inc[v] = fab_counter_grew(from->vl_xmit_wait[v], to->vl_xmit_wait[v],
					     FAB_VL_WAIT_BITS, &reset, &sat);
		if (reset)
			d->reset |= bit;
		if (sat)
			d->saturated |= bit;
	}
}

int fab_counter_vl_busiest(const struct fab_counter_sample *earlier,
			   const struct fab_counter_sample *latest, uint64_t *amount, bool *at_least,
			   bool *grew)
{
	struct fab_vl_delta d = { 0 };
	int best = -1;

	if (!latest || !latest->vl_valid)
		return -1;
	if (earlier)
		fab_counter_vl_delta(earlier, latest, &d);
	*grew = d.valid != 0;
again:
	for (unsigned v = 0; v < FAB_N_VLS; v++) {
		uint16_t bit = (uint16_t)(1u << v);
		uint64_t x = *grew ? ((d.valid & bit) ? d.inc[v] : 0)
				   : ((latest->vl_valid & bit) ? latest->vl_xmit_wait[v] : 0);
		if (x && (best < 0 || x > *amount)) {
			best = (int)v;
			*amount = x;
			*at_least = *grew ? ((d.reset | d.saturated) & bit) != 0
					  : latest->vl_xmit_wait[v] == (1u << FAB_VL_WAIT_BITS) - 1;
		}
	}
	if (best < 0 && *grew) { /* none grew (or each saturated): the totals */
		*grew = false;
		goto again;
	}
	return best;
}

bool fab_counter_ber(const struct fab_counter_delta *d, unsigned width_bit, unsigned speed_bit,
		     double *ber, bool *at_least)
{
	const uint32_t bit = 1u << FAB_CTR_SYMBOL_ERRORS;
	double bits_per_s = fab_width_lanes(width_bit) * fab_speed_lane_gbaud(speed_bit) * 1e9;

	if (!(d->valid & bit) || d->secs <= 0 || bits_per_s <= 0)
		return false;
	*ber = (double)d->inc[FAB_CTR_SYMBOL_ERRORS] / (bits_per_s * d->secs);
	*at_least = (d->at_least & bit) != 0;
	return true;
}

/* ---- pairs ------------------------------------------------------------------ */

/* Latest (and first) sample of every port of s; arrays of s->n_ports. */
static void index_samples(const struct fab_snapshot *s, const struct fab_counter_sample **latest,
			  const struct fab_counter_sample **first)
{
	for (size_t i = 0; i < s->n_samples; i++) {
		const struct fab_counter_sample *c = &s->samples[i];

		if (c->port_idx >= s->n_ports)
			continue;
		if (!latest[c->port_idx] || c->sample >= latest[c->port_idx]->sample)
			latest[c->port_idx] = c;
		if (first && (!first[c->port_idx] || c->sample < first[c->port_idx]->sample))
			first[c->port_idx] = c;
	}
}

int fab_counter_pairs_build(const struct fab_snapshot *s, const struct fab_snapshot *base,
			    struct fab_counter_pairs *out)
{
	struct fab_counter_pairs p = { .n_ports = s->n_ports, .baseline = base != NULL };
	const struct fab_counter_sample **blatest = NULL;
	int err = 0;

	if (base && base->n_nodes && !base->guid_order)
		return fab_err(-EINVAL, "the baseline (scan %lld) is not indexed (call fab_snapshot_index)",
			       (long long)base->scan_id);
	p.latest = calloc(s->n_ports + 1, sizeof(*p.latest));
	p.earlier = calloc(s->n_ports + 1, sizeof(*p.earlier));
	if (base)
		blatest = calloc(base->n_ports + 1, sizeof(*blatest));
	if (!p.latest || !p.earlier || (base && !blatest)) {
		err = fab_err(-ENOMEM, "out of memory pairing counter samples");
		goto out;
	}
	/* without a baseline, earlier[] first holds each port's first sample */
	index_samples(s, p.latest, base ? NULL : p.earlier);
	if (base)
		index_samples(base, blatest, NULL);
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *to = p.latest[i], *from = NULL;
		const struct fab_port *pt = &s->ports[i];

		if (base && to) {
			uint32_t bi = fab_snapshot_find_node(base, s->nodes[pt->node_idx].guid);
			const struct fab_port *bp =
				bi == FAB_NONE ? NULL : fab_snapshot_port(base, bi, pt->port_num);
			if (bp)
				from = blatest[bp - base->ports];
		} else if (!base && p.earlier[i] != to) {
			from = p.earlier[i];
		}
		p.earlier[i] = NULL;
		if (!to || !from || !(from->valid & to->valid))
			continue;
		p.earlier[i] = from;
		if (!p.n_pairs++ && from->sampled_at_ms > 0 && to->sampled_at_ms > from->sampled_at_ms)
			p.secs = (double)(to->sampled_at_ms - from->sampled_at_ms) / 1000.0;
	}
out:
	free(blatest);
	if (err) {
		fab_counter_pairs_free(&p);
		return err;
	}
	*out = p;
	return 0;
}

void fab_counter_pairs_free(struct fab_counter_pairs *p)
{
	free(p->latest);
	free(p->earlier);
	memset(p, 0, sizeof(*p));
}

bool fab_counter_pairs_delta(const struct fab_counter_pairs *p, uint32_t port, uint32_t want,
			     struct fab_counter_delta *out)
{
	if (port >= p->n_ports || !p->latest[port] || !p->earlier[port])
		return false;
	fab_counter_delta(p->earlier[port], p->latest[port], want, out);
	return true;
}
