// SPDX-License-Identifier: MIT
/*
 * NIC counters, part of the counter model (include/fabsweep/counter.h):
 * their canonical names, the one table that maps what each driver calls
 * them, and one port's view (latest readings and increases, reset
 * included) that the rules, the reports and the Prometheus export read.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"

static const char *const nic_names[] = {
	[FAB_NIC_RX_FRAMES] = "rx_frames",
	[FAB_NIC_TX_FRAMES] = "tx_frames",
	[FAB_NIC_RX_PAUSE] = "rx_pause",
	[FAB_NIC_TX_PAUSE] = "tx_pause",
	[FAB_NIC_RX_PAUSE_DURATION] = "rx_pause_duration_us",
	[FAB_NIC_TX_PAUSE_DURATION] = "tx_pause_duration_us",
	[FAB_NIC_PAUSE_STORM_WARNING] = "pause_storm_warning_events",
	[FAB_NIC_PAUSE_STORM_ERROR] = "pause_storm_error_events",
	[FAB_NIC_RX_DISCARDS_PHY] = "rx_discards_phy",
	[FAB_NIC_TX_DISCARDS_PHY] = "tx_discards_phy",
	[FAB_NIC_RX_OUT_OF_BUFFER] = "rx_out_of_buffer",
	[FAB_NIC_RX_CRC_ERRORS] = "rx_crc_errors",
	[FAB_NIC_RX_SYMBOL_ERRORS] = "rx_symbol_errors",
	[FAB_NIC_FEC_CORRECTED] = "fec_corrected_blocks",
	[FAB_NIC_FEC_UNCORRECTABLE] = "fec_uncorrectable_blocks",
	[FAB_NIC_FEC_CORRECTED_BITS] = "fec_corrected_bits",
	[FAB_NIC_RX_BITS] = "rx_bits",
	[FAB_NIC_LINK_DOWN_EVENTS] = "link_down_events",
};
static_assert(ARRAY_SIZE(nic_names) == FAB_NIC__COUNT, "nic_names");

const char *fab_nic_ctr_name(unsigned ctr)
{
	return ctr < FAB_NIC__COUNT ? nic_names[ctr] : NULL;
}

int fab_nic_ctr_parse(const char *s)
{
	for (unsigned i = 0; s && i < FAB_NIC__COUNT; i++)
		if (!strcmp(s, nic_names[i]))
			return (int)i;
	return -1;
}

bool fab_nic_ctr_per_prio(unsigned ctr)
{
	return ctr == FAB_NIC_RX_PAUSE || ctr == FAB_NIC_TX_PAUSE ||
	       ctr == FAB_NIC_RX_PAUSE_DURATION || ctr == FAB_NIC_TX_PAUSE_DURATION;
}

/*
 * The mapping (docs/roce.md "NIC counters"). "netlink" lines are the
 * kernel's own statistics over ethtool netlink (host/ethtool_nl.c names
 * them group.attribute): driver-independent, and preferred where a driver
 * has the same counter under its own name. Priority -2: the "%u" in the
 * name is the priority.
 */
#define P (-2)
static const struct fab_nic_map_entry map[] = {
	/* the kernel's standard statistics (IEEE 802.3 names) */
	{ "netlink", "eth-phy.SymbolErrorDuringCarrier", FAB_NIC_RX_SYMBOL_ERRORS, -1 },
	{ "netlink", "eth-mac.FramesReceivedOK", FAB_NIC_RX_FRAMES, -1 },
	{ "netlink", "eth-mac.FramesTransmittedOK", FAB_NIC_TX_FRAMES, -1 },
	{ "netlink", "eth-mac.FrameCheckSequenceErrors", FAB_NIC_RX_CRC_ERRORS, -1 },
	{ "netlink", "pause.rx_frames", FAB_NIC_RX_PAUSE, -1 },
	{ "netlink", "pause.tx_frames", FAB_NIC_TX_PAUSE, -1 },
	{ "netlink", "fec.corrected_blocks", FAB_NIC_FEC_CORRECTED, -1 },
	{ "netlink", "fec.uncorrectable_blocks", FAB_NIC_FEC_UNCORRECTABLE, -1 },
	{ "netlink", "fec.corrected_bits", FAB_NIC_FEC_CORRECTED_BITS, -1 },
	/* NVIDIA ConnectX (mlx5_core) */
	{ "mlx5_core", "rx_packets_phy", FAB_NIC_RX_FRAMES, -1 },
	{ "mlx5_core", "tx_packets_phy", FAB_NIC_TX_FRAMES, -1 },
	{ "mlx5_core", "rx_prio%u_pause", FAB_NIC_RX_PAUSE, P },
	{ "mlx5_core", "tx_prio%u_pause", FAB_NIC_TX_PAUSE, P },
	{ "mlx5_core", "rx_prio%u_pause_duration", FAB_NIC_RX_PAUSE_DURATION, P },
	{ "mlx5_core", "tx_prio%u_pause_duration", FAB_NIC_TX_PAUSE_DURATION, P },
	{ "mlx5_core", "rx_global_pause", FAB_NIC_RX_PAUSE, -1 },
	{ "mlx5_core", "tx_global_pause", FAB_NIC_TX_PAUSE, -1 },
	{ "mlx5_core", "rx_global_pause_duration", FAB_NIC_RX_PAUSE_DURATION, -1 },
	{ "mlx5_core", "tx_global_pause_duration", FAB_NIC_TX_PAUSE_DURATION, -1 },
	{ "mlx5_core", "tx_pause_storm_warning_events", FAB_NIC_PAUSE_STORM_WARNING, -1 },
	{ "mlx5_core", "tx_pause_storm_error_events", FAB_NIC_PAUSE_STORM_ERROR, -1 },
	{ "mlx5_core", "rx_discards_phy", FAB_NIC_RX_DISCARDS_PHY, -1 },
	{ "mlx5_core", "tx_discards_phy", FAB_NIC_TX_DISCARDS_PHY, -1 },
	{ "mlx5_core", "rx_out_of_buffer", FAB_NIC_RX_OUT_OF_BUFFER, -1 },
	{ "mlx5_core", "rx_crc_errors_phy", FAB_NIC_RX_CRC_ERRORS, -1 },
	{ "mlx5_core", "rx_pcs_symbol_err_phy", FAB_NIC_RX_SYMBOL_ERRORS, -1 },
	{ "mlx5_core", "rx_corrected_bits_phy", FAB_NIC_FEC_CORRECTED_BITS, -1 },
	{ "mlx5_core", "rx_bits_phy", FAB_NIC_RX_BITS, -1 },
	{ "mlx5_core", "link_down_events_phy", FAB_NIC_LINK_DOWN_EVENTS, -1 },
	/* Broadcom NetXtreme-C/E (bnxt_en) */
	{ "bnxt_en", "rx_total_frames", FAB_NIC_RX_FRAMES, -1 },
	{ "bnxt_en", "tx_total_frames", FAB_NIC_TX_FRAMES, -1 },
	{ "bnxt_en", "rx_pfc_ena_frames_pri%u", FAB_NIC_RX_PAUSE, P },
	{ "bnxt_en", "tx_pfc_ena_frames_pri%u", FAB_NIC_TX_PAUSE, P },
	{ "bnxt_en", "pfc_pri%u_rx_duration_us", FAB_NIC_RX_PAUSE_DURATION, P },
	{ "bnxt_en", "pfc_pri%u_tx_duration_us", FAB_NIC_TX_PAUSE_DURATION, P },
	{ "bnxt_en", "rx_pause_frames", FAB_NIC_RX_PAUSE, -1 },
	{ "bnxt_en", "tx_pause_frames", FAB_NIC_TX_PAUSE, -1 },
	{ "bnxt_en", "rx_stat_discard", FAB_NIC_RX_DISCARDS_PHY, -1 },
	{ "bnxt_en", "tx_stat_discard", FAB_NIC_TX_DISCARDS_PHY, -1 },
	{ "bnxt_en", "rx_total_ring_discards", FAB_NIC_RX_OUT_OF_BUFFER, -1 },
	{ "bnxt_en", "rx_fcs_err_frames", FAB_NIC_RX_CRC_ERRORS, -1 },
	{ "bnxt_en", "rx_pcs_symbol_err", FAB_NIC_RX_SYMBOL_ERRORS, -1 },
	{ "bnxt_en", "rx_fec_corrected_blocks", FAB_NIC_FEC_CORRECTED, -1 },
	{ "bnxt_en", "rx_fec_uncorrectable_blocks", FAB_NIC_FEC_UNCORRECTABLE, -1 },
	{ "bnxt_en", "rx_corrected_bits", FAB_NIC_FEC_CORRECTED_BITS, -1 },
	{ "bnxt_en", "rx_bits", FAB_NIC_RX_BITS, -1 },
	{ "bnxt_en", "link_down_events", FAB_NIC_LINK_DOWN_EVENTS, -1 },
	/* Intel E800 (ice) */
	{ "ice", "rx_priority_%u_xoff.nic", FAB_NIC_RX_PAUSE, P },
	{ "ice", "tx_priority_%u_xoff.nic", FAB_NIC_TX_PAUSE, P },
	{ "ice", "link_xoff_rx.nic", FAB_NIC_RX_PAUSE, -1 },
	{ "ice", "link_xoff_tx.nic", FAB_NIC_TX_PAUSE, -1 },
	{ "ice", "rx_dropped.nic", FAB_NIC_RX_DISCARDS_PHY, -1 },
	{ "ice", "rx_crc_errors.nic", FAB_NIC_RX_CRC_ERRORS, -1 },
};
#undef P

const struct fab_nic_map_entry *fab_nic_map_table(size_t *n_out)
{
	*n_out = ARRAY_SIZE(map);
	return map;
}

/* stat against a pattern with at most one "%u" (one digit 0..7). */
static bool match(const char *pat, const char *stat, int *prio)
{
	const char *u = strstr(pat, "%u");

	if (!u)
		return !strcmp(pat, stat);
	size_t head = (size_t)(u - pat);
	if (strncmp(pat, stat, head) || stat[head] < '0' || stat[head] > '7')
		return false;
	if (strcmp(u + 2, stat + head + 1))
		return false;
	*prio = stat[head] - '0';
	return true;
}

bool fab_nic_map(const char *driver, const char *stat, unsigned *ctr, int *prio)
{
	if (!driver || !stat)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		int p = map[i].prio;

		if (strcmp(map[i].driver, driver) || !match(map[i].stat, stat, &p))
			continue;
		*ctr = map[i].ctr;
		*prio = p;
		return true;
	}
	return false;
}

/* ---- one port's view ------------------------------------------------------- */

static int cmp_str0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_port(const struct fab_roce *r, uint32_t a, const char *sys, const char *ifname)
{
	const struct fab_eth_port *p = &r->eth_ports[a];
	int c = cmp_str0(p->system_idx < r->n_systems ? r->systems[p->system_idx].name : NULL, sys);

	return c ? c : cmp_str0(p->ifname, ifname);
}

static int cmp_order(const void *x, const void *y, void *ctx)
{
	const struct fab_roce *r = ctx;
	const struct fab_eth_port *q = &r->eth_ports[*(const uint32_t *)y];

	return cmp_port(r, *(const uint32_t *)x,
			q->system_idx < r->n_systems ? r->systems[q->system_idx].name : NULL, q->ifname);
}

int fab_nic_base_init(const struct fab_roce *base_r, struct fab_nic_base *out)
{
	memset(out, 0, sizeof(*out));
	if (!base_r || !base_r->n_nic_counters)
		return 0;
	if (!(out->order = malloc(base_r->n_eth_ports * sizeof(*out->order) + 1)))
		return -ENOMEM;
	for (size_t i = 0; i < base_r->n_eth_ports; i++)
		if (base_r->eth_ports[i].nic_count)
			out->order[out->n++] = (uint32_t)i;
	out->r = base_r;
	qsort_r(out->order, out->n, sizeof(*out->order), cmp_order, (void *)base_r);
	return 0;
}

void fab_nic_base_free(struct fab_nic_base *b)
{
	free(b->order);
	memset(b, 0, sizeof(*b));
}

static uint32_t base_find(const struct fab_nic_base *b, const char *sys, const char *ifname)
{
	size_t lo = 0, hi = b ? b->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_port(b->r, b->order[mid], sys, ifname);
		if (!c)
			return b->order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FAB_NONE;
}

/* The first and latest readings of a port's counters, per cell (counter
 * and slot: c * FAB_NIC_SLOTS + slot) it has: at[cell] - 1 indexes first,
 * last and cell (0: none), the cells in ascending order. */
struct readings {
	uint8_t at[FAB_NIC__COUNT * FAB_NIC_SLOTS];
	const struct fab_nic_counter *first[FAB_NIC__COUNT * FAB_NIC_SLOTS];
	const struct fab_nic_counter *last[FAB_NIC__COUNT * FAB_NIC_SLOTS];
	uint16_t cell[FAB_NIC__COUNT * FAB_NIC_SLOTS];
	unsigned n_cells;
	bool two; /* some cell has two readings of different samples */
};

static void read_port(const struct fab_roce *r, uint32_t port, struct readings *out)
{
	const struct fab_eth_port *p = &r->eth_ports[port];

	memset(out->at, 0, sizeof(out->at));
	out->n_cells = 0;
	out->two = false;
	for (uint32_t k = 0; k < p->nic_count && p->nic_first + k < r->n_nic_counters; k++) {
		const struct fab_nic_counter *c = &r->nic_counters[p->nic_first + k];
		unsigned slot = (unsigned)(c->prio + 1);

		if (c->ctr >= FAB_NIC__COUNT || slot >= FAB_NIC_SLOTS)
			continue;
		unsigned cell = c->ctr * FAB_NIC_SLOTS + slot, i = out->at[cell];
		if (!i) {
			/* a new cell (a port has a few dozen): its readings at
			 * the end, its number kept in ascending order */
			i = out->at[cell] = (uint8_t)++out->n_cells;
			out->first[i - 1] = out->last[i - 1] = c;
			unsigned j = i - 1;
			while (j && out->cell[j - 1] > cell) {
				out->cell[j] = out->cell[j - 1];
				j--;
			}
			out->cell[j] = (uint16_t)cell;
			continue;
		}
		if (c->sample < out->first[i - 1]->sample)
			out->first[i - 1] = c;
		if (c->sample > out->last[i - 1]->sample)
			out->last[i - 1] = c;
	}
	for (unsigned i = 0; i < out->n_cells && !out->two; i++)
		out->two = out->first[i] != out->last[i];
}

/* A port whose counters are all of one sample, with no baseline to compare
 * with (check without --baseline, the reports): each cell's reading (the
 * first, as read_port() keeps among readings of one sample), no increase.
 * false, *v half filled, when the port has readings of two samples. */
static bool one_sample(const struct fab_roce *r, uint32_t port, struct fab_nic_view *v)
{
	const struct fab_eth_port *p = &r->eth_ports[port];

	for (uint32_t k = 0; k < p->nic_count && p->nic_first + k < r->n_nic_counters; k++) {
		const struct fab_nic_counter *c = &r->nic_counters[p->nic_first + k];
		unsigned slot = (unsigned)(c->prio + 1);

		if (c->sample != r->nic_counters[p->nic_first].sample)
			return false;
		if (c->ctr >= FAB_NIC__COUNT || slot >= FAB_NIC_SLOTS || v->have[c->ctr][slot])
			continue;
		v->have[c->ctr][slot] = true;
		v->value[c->ctr][slot] = c->value;
	}
	return true;
}

void fab_nic_view(const struct fab_roce *r, uint32_t port, const struct fab_nic_base *base,
		  struct fab_nic_view *v)
{
	struct readings now, then;
	const struct fab_eth_port *p = &r->eth_ports[port];
	const struct readings *earlier = NULL;
	bool from_base = false;

	/* value and inc are read only where have and have_inc say (a port has
	 * a few dozen of the cells: clearing all of them was most of a view) */
	memset(v, 0, offsetof(struct fab_nic_view, value));
	if (!(base && base->r)) {
		if (one_sample(r, port, v))
			return;
		memset(v, 0, offsetof(struct fab_nic_view, value));
	}
	read_port(r, port, &now);
	/* the port's own first sample when it has two, else the baseline's port */
	bool two = now.two;
	if (two) {
		earlier = &now;
	} else if (base && base->r) {
		uint32_t bp = base_find(base, p->system_idx < r->n_systems ? r->systems[p->system_idx].name : NULL,
					p->ifname);
		if (bp != FAB_NONE) {
			read_port(base->r, bp, &then);
			earlier = &then;
			from_base = true;
		}
	}
	/* the cells in ascending order: the first with a later reading gives secs */
	for (unsigned i = 0; i < now.n_cells; i++) {
		unsigned cell = now.cell[i], c = cell / FAB_NIC_SLOTS, s = cell % FAB_NIC_SLOTS;
		unsigned k = now.at[cell] - 1u, ek = earlier ? earlier->at[cell] : 0;
		const struct fab_nic_counter *l = now.last[k], *e = NULL;
		bool reset, sat;

		if (ek)
			e = two ? earlier->first[ek - 1] : earlier->last[ek - 1];
		v->have[c][s] = true;
		v->value[c][s] = l->value;
		if (!e || (two && e == l))
			continue;
		v->inc[c][s] = fab_counter_grew(e->value, l->value, 64, &reset, &sat);
		v->reset[c][s] = reset;
		v->have_inc[c][s] = true;
		v->any_inc = true;
		if (!v->secs && l->at_ms > e->at_ms)
			v->secs = (double)(l->at_ms - e->at_ms) / 1000.0;
	}
	v->baseline = from_base && v->any_inc;
}

struct fab_nic_amount fab_nic_amount(const struct fab_nic_view *v, unsigned ctr, unsigned slot)
{
	struct fab_nic_amount a = { 0 };

	if (ctr >= FAB_NIC__COUNT || slot >= FAB_NIC_SLOTS)
		return a;
	if (v->have_inc[ctr][slot])
		a = (struct fab_nic_amount){ .known = true, .n = v->inc[ctr][slot], .at_least = v->reset[ctr][slot] };
	else if (v->have[ctr][slot] && !v->any_inc)
		a = (struct fab_nic_amount){ .known = true, .n = v->value[ctr][slot], .since_clear = true };
	return a;
}

bool fab_nic_pre_fec_ber(const struct fab_nic_view *v, double *ber, struct fab_nic_amount *cb,
			 struct fab_nic_amount *rb)
{
	struct fab_nic_amount c = fab_nic_amount(v, FAB_NIC_FEC_CORRECTED_BITS, 0);
	struct fab_nic_amount r = fab_nic_amount(v, FAB_NIC_RX_BITS, 0);

	if (cb)
		*cb = c;
	if (rb)
		*rb = r;
	*ber = NAN;
	if (!c.known || !r.known || !r.n || c.since_clear != r.since_clear)
		return false;
	*ber = (double)c.n / (double)r.n;
	return true;
}
