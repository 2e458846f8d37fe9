/* SPDX-License-Identifier: MIT */
/*
 * The counter model (core/counter.c): what every module asks about port
 * counters, answered once. Which counters there are, their widths, whether
 * one is saturated, a port's latest sample, which earlier sample it is
 * compared with, how much a counter grew between the two (reset and
 * saturation included), and that growth per second. The rules, `ready`,
 * `diff`, the reports and the Prometheus export all go through it, so a
 * reset or a saturated counter reads the same everywhere. The semantics an
 * operator sees are in docs/counters.md.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/snapshot.h"

/* ---- the counters ------------------------------------------------------ */

/* Name as infiniband-diags spells it ("SymbolErrorCounter"), which is also
 * its column in port_counters and its config key; NULL when out of range. */
const char *fab_counter_name(unsigned ctr);
/* Reverse of fab_counter_name(); -1 when unknown. */
int fab_counter_parse(const char *s);
/* Bit width of a counter as a sample holds it: PortCounters' widths (4, 8,
 * 16 or 32, libibmad's fields) or 64 for what PortCountersExtended carries
 * (data and packet counters) when the sample is extended. */
unsigned fab_counter_bits(unsigned ctr, bool extended);
/* True for the error counters of PortCounters (not data, packets, XmitWait
 * or the detail counters). */
bool fab_counter_is_error(unsigned ctr);
/* True for the detail counters (PortRcvErrorDetails, PortXmitDiscardDetails:
 * docs/counters.md "Detail counters"): they say what an error counter
 * counted. fab_counter_detail_of() names that counter (FAB_CTR_RCV_ERRORS
 * or FAB_CTR_XMIT_DISCARDS; -1 for others); fab_counter_details_of() is the
 * mask of the details of one counter (0 when it has none). */
bool fab_counter_is_detail(unsigned ctr);
int fab_counter_detail_of(unsigned ctr);
uint32_t fab_counter_details_of(unsigned ctr);
uint32_t fab_counter_detail_mask(void);
/* "PortRcvErrorDetails" for FAB_PMA_RCV_ERROR_DETAILS ...; NULL for others. */
const char *fab_pma_attr_name(unsigned pma_bit);
/* Counter masks (bit n: counter n): every counter, the error counters. */
#define FAB_CTR_MASK_ALL ((uint32_t)((1ull << FAB_CTR__COUNT) - 1))
uint32_t fab_counter_error_mask(void);

/* Whether counter ctr of sample c is present and at the all-ones value of
 * its width: it stopped counting there (counters saturate, they do not
 * wrap), so the true count is at least that. A 64-bit counter never is. */
bool fab_counter_saturated(const struct fab_counter_sample *c, unsigned ctr);

/* The latest sample of a port (sample 1 when the scan took two, else 0), or
 * NULL when the port has none. O(1) on an indexed snapshot. */
const struct fab_counter_sample *fab_counter_latest(const struct fab_snapshot *s,
						    uint32_t port);

/* ---- growth between two samples ----------------------------------------- */

/*
 * How one port's counters moved from an earlier sample to a later one.
 * inc[n] is what counter n counted in between:
 *   - later >= earlier: later - earlier;
 *   - later < earlier: the counter was cleared in between (a reset: perfquery
 *     -R, scan --reset-counters, a reboot); inc is the later value, what it
 *     counted since the clear, and a lower bound (reset bit);
 *   - later saturated: inc is later - earlier (0 when earlier was larger,
 *     which only a 64-bit earlier value can be), a lower bound (saturated bit).
 * at_least = reset | saturated: inc[n] is "at least", never exact.
 */
struct fab_counter_delta {
	uint32_t valid;     /* bit n: counter n present in both samples */
	uint32_t reset;     /* bit n: went down: cleared in between */
	uint32_t saturated; /* bit n: the later value is saturated */
	uint32_t at_least;  /* reset | saturated */
	double secs;        /* time between the samples; 0 when unknown */
	uint64_t inc[FAB_CTR__COUNT];
};

/* One counter of a given width (64: never saturates) from was to now, by
 * the rules above: the increase; *reset and *saturated say whether (and
 * why) it is a lower bound. For counters outside enum fab_counter too (the
 * RDMA counters of roce.congestion). */
uint64_t fab_counter_grew(uint64_t was, uint64_t now, unsigned bits, bool *reset,
			  bool *saturated);
/* Fills *out from two samples of the same port (both borrowed), for the
 * counters in want (a mask; the others are left out of valid). */
void fab_counter_delta(const struct fab_counter_sample *earlier,
		       const struct fab_counter_sample *later, uint32_t want,
		       struct fab_counter_delta *out);
/* Adds d to *sum: a counter's growth over consecutive intervals (the
 * readings of a port over a period, docs/reports.md "Trends"). The
 * increases and the seconds add up; the valid, reset and saturated bits
 * gather, so a sum with a reset in it is a lower bound like the delta. */
void fab_counter_delta_add(struct fab_counter_delta *sum, const struct fab_counter_delta *d);
/* inc per second; false (and *out untouched) when the counter is not in
 * both samples or the interval is unknown. A lower bound like inc. */
bool fab_counter_rate(const struct fab_counter_delta *d, unsigned ctr, double *out);
/* Whether counter ctr rose more than `allowed` (< 0: never). */
bool fab_counter_over(const struct fab_counter_delta *d, unsigned ctr, double allowed);

/*
 * The increase as every output writes it. amount: "20", or "20 or more"
 * when it is a lower bound; why: "cleared in between" (a reset) or
 * "saturated", NULL when exact; text: both, "20 or more (cleared in
 * between)". buf gets at most len bytes (32 suffice for amount, 64 for text).
 */
void fab_counter_amount(uint64_t inc, bool at_least, char *buf, size_t len);
const char *fab_counter_why(bool reset, bool saturated);
void fab_counter_increase_text(uint64_t inc, bool reset, bool saturated, char *buf, size_t len);

/* ---- per-VL waits and the bit error rate -------------------------------- */

#define FAB_VL_WAIT_BITS 16 /* PortVLXmitWaitCounters' fields */

/* How a port's PortVLXmitWait of each VL moved between two samples, by the
 * same rules as fab_counter_delta (bit n: VL n). */
struct fab_vl_delta {
	uint16_t valid, reset, saturated;
	double secs;
	uint64_t inc[FAB_N_VLS];
};
void fab_counter_vl_delta(const struct fab_counter_sample *earlier,
			  const struct fab_counter_sample *later, struct fab_vl_delta *out);
/* The VL that waited most: by its growth since earlier when both samples
 * have per-VL waits and one grew (*grew true), else by the latest values
 * (since the last clear). -1 when no VL was read or none waited; else *amount and
 * *at_least (a reset or saturated value) are set. earlier may be NULL. */
int fab_counter_vl_busiest(const struct fab_counter_sample *earlier,
			   const struct fab_counter_sample *latest, uint64_t *amount, bool *at_least,
			   bool *grew);
/* The symbol error rate of what a port receives (link.ber_high): the
 * SymbolErrorCounter increase of d / (active lanes x lane signalling rate
 * (fab_speed_lane_gbaud) x d->secs). false when it cannot be told (no
 * increase of it, no interval, width or speed unknown). *at_least: the
 * increase is a lower bound (reset or saturated), so is the rate. */
bool fab_counter_ber(const struct fab_counter_delta *d, unsigned width_bit, unsigned speed_bit,
		     double *ber, bool *at_least);

/* ---- which samples are compared ------------------------------------------ */

/*
 * Per port of a snapshot: its latest sample, and the earlier sample it is
 * compared with: the baseline's latest sample of the same port (node GUID
 * and port number) when a baseline is given, else the port's first sample
 * when the scan took two (scan --interval). `fabsweep check`, the reports
 * and the Prometheus export all pair samples this way.
 */
struct fab_counter_pairs {
	const struct fab_counter_sample **latest;  /* per port, NULL: none */
	const struct fab_counter_sample **earlier; /* per port, NULL: nothing to compare */
	size_t n_ports;
	size_t n_pairs;   /* ports with both */
	double secs;      /* interval of the first pair; 0 when unknown */
	bool baseline;    /* the earlier samples are the baseline's */
};

/* Builds the pairs of snap against base (NULL: the scan's own samples;
 * else indexed, as the store's loader leaves it: fab_snapshot_index()).
 * Both borrowed and must outlive *out. 0, -EINVAL or -ENOMEM (message set). */
int fab_counter_pairs_build(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			    struct fab_counter_pairs *out);
void fab_counter_pairs_free(struct fab_counter_pairs *p); /* accepts a zeroed one */
/* The delta of a port's pair for the counters in want; false (and *out
 * untouched) when it has none. */
bool fab_counter_pairs_delta(const struct fab_counter_pairs *p, uint32_t port, uint32_t want,
			     struct fab_counter_delta *out);

/* ---- limits -------------------------------------------------------------- */

/* Increase of each counter tolerated between two samples; < 0: not judged.
 * rules/ fills it from the rule table and the config (fab_rules_increase_limits). */
struct fab_counter_limits {
	double allowed[FAB_CTR__COUNT];
};

/* ---- NIC counters (core/nic_counter.c) ------------------------------------ */

/*
 * The Ethernet side of a RoCE NIC (ethtool statistics, docs/roce.md "NIC
 * counters"), in canonical names: what mlx5_core, bnxt_en and ice call
 * rx_prio3_pause, rx_pfc_ena_frames_pri3 and rx_priority_3_xoff.nic is one
 * counter, rx_pause at priority 3. Every one is 64 bits wide (the kernel
 * hands them over as u64): it never saturates; one that went down was
 * cleared (a driver reload), and its increase is what it counted since,
 * at least (fab_counter_grew). The order is not stored: names are.
 */
enum fab_nic_ctr {
	FAB_NIC_RX_FRAMES = 0,       /* "rx_frames": frames received at the port */
	FAB_NIC_TX_FRAMES,           /* "tx_frames" */
	FAB_NIC_RX_PAUSE,            /* "rx_pause": per priority (PFC), or the port's 802.3x pause */
	FAB_NIC_TX_PAUSE,            /* "tx_pause" */
	FAB_NIC_RX_PAUSE_DURATION,   /* "rx_pause_duration_us": time paused by the peer, us */
	FAB_NIC_TX_PAUSE_DURATION,   /* "tx_pause_duration_us": time it paused its peer, us */
	FAB_NIC_PAUSE_STORM_WARNING, /* "pause_storm_warning_events": PFC stall prevention */
	FAB_NIC_PAUSE_STORM_ERROR,   /* "pause_storm_error_events": it stopped honouring pauses */
	FAB_NIC_RX_DISCARDS_PHY,     /* "rx_discards_phy": dropped at the port, no buffer */
	FAB_NIC_TX_DISCARDS_PHY,     /* "tx_discards_phy" */
	FAB_NIC_RX_OUT_OF_BUFFER,    /* "rx_out_of_buffer": no receive descriptor (the host is slow) */
	FAB_NIC_RX_CRC_ERRORS,       /* "rx_crc_errors": frames with a bad FCS */
	FAB_NIC_RX_SYMBOL_ERRORS,    /* "rx_symbol_errors": PCS symbol errors */
	FAB_NIC_FEC_CORRECTED,       /* "fec_corrected_blocks" */
	FAB_NIC_FEC_UNCORRECTABLE,   /* "fec_uncorrectable_blocks": frames lost */
	FAB_NIC_FEC_CORRECTED_BITS,  /* "fec_corrected_bits": with rx_bits, the pre-FEC BER */
	FAB_NIC_RX_BITS,             /* "rx_bits" */
	FAB_NIC_LINK_DOWN_EVENTS,    /* "link_down_events" */
	FAB_NIC__COUNT
};
const char *fab_nic_ctr_name(unsigned ctr); /* NULL when out of range */
int fab_nic_ctr_parse(const char *s);       /* -1 when unknown */
/* Whether the counter exists per priority (pause frames and durations). */
bool fab_nic_ctr_per_prio(unsigned ctr);

/*
 * The one mapping table from drivers' statistic names to canonical
 * counters (docs/roce.md lists it). stat holds "%u" where a priority digit
 * goes ("rx_prio%u_pause"); driver NULL is a name any driver uses.
 */
struct fab_nic_map_entry {
	const char *driver;
	const char *stat;
	uint8_t ctr;  /* enum fab_nic_ctr */
	int8_t prio;  /* -1: port-wide, or the priority "%u" gives */
};
const struct fab_nic_map_entry *fab_nic_map_table(size_t *n_out);
/* What a driver's statistic (from ETHTOOL_GSTRINGS, or a saved `ethtool
 * -S`) is: true with *ctr and *prio (-1: port-wide), false when the table
 * has no line for it (the statistic is not recorded). */
bool fab_nic_map(const char *driver, const char *stat, unsigned *ctr, int *prio);

/* One port's counters as every output reads them: slot 0 is the port as
 * a whole, slot p + 1 priority p. value holds something only where have
 * says, inc only where have_inc does (fab_nic_view sets no other cell). */
#define FAB_NIC_SLOTS 9
struct fab_nic_view {
	/* (the flags first: what a view clears) */
	bool have[FAB_NIC__COUNT][FAB_NIC_SLOTS];  /* in the latest sample */
	bool have_inc[FAB_NIC__COUNT][FAB_NIC_SLOTS]; /* an earlier reading to compare */
	bool reset[FAB_NIC__COUNT][FAB_NIC_SLOTS];    /* went down: inc is a lower bound */
	bool any_inc;      /* some counter has an increase */
	bool baseline;     /* the earlier readings are the baseline's */
	double secs;       /* between the two readings; 0 unknown */
	uint64_t value[FAB_NIC__COUNT][FAB_NIC_SLOTS];
	uint64_t inc[FAB_NIC__COUNT][FAB_NIC_SLOTS];
};

struct fab_roce;
/* The ports of a baseline's RoCE part by system name and interface, for
 * fab_nic_view() (sorted once: O(log n) a port). */
struct fab_nic_base {
	const struct fab_roce *r;
	uint32_t *order; /* eth port indices sorted by (system name, ifname) */
	size_t n;
};
/* base_r may be NULL (then *out is empty). 0 or -ENOMEM. */
int fab_nic_base_init(const struct fab_roce *base_r, struct fab_nic_base *out);
void fab_nic_base_free(struct fab_nic_base *b); /* accepts a zeroed one */

/*
 * Fills *v for eth port `port` of r: each counter's latest reading and,
 * where there is an earlier one, its increase: the port's first sample
 * when it has two (collect --interval), else the same counter of the
 * baseline's port with the same system name and interface (base may be
 * NULL or empty). The interval is between the readings' times.
 */
void fab_nic_view(const struct fab_roce *r, uint32_t port, const struct fab_nic_base *base,
		  struct fab_nic_view *v);

/* What a counter of a view counted, as the rules and the reports judge it:
 * the increase when there is an earlier reading, else (no counter of the
 * port has one) the value, counted since the counters were last cleared. */
struct fab_nic_amount {
	bool known, since_clear, at_least; /* at_least: a reset in between */
	uint64_t n;
};
struct fab_nic_amount fab_nic_amount(const struct fab_nic_view *v, unsigned ctr, unsigned slot);
/* The pre-FEC bit error ratio: corrected bits over received bits, both
 * counted over the same period. false (and *ber NAN) when either is
 * unknown or no bit was received. cb, rb (may be NULL): the amounts. */
bool fab_nic_pre_fec_ber(const struct fab_nic_view *v, double *ber, struct fab_nic_amount *cb,
			 struct fab_nic_amount *rb);

/* ---- RDMA ports of RoCE hosts (core/counter_rdma.c) ---------------------- */

/*
 * The counter (enum fab_counter) whose value an RDMA port's sysfs file
 * counters/<name> holds ("link_downed" is FAB_CTR_LINK_DOWNED), -1 for a
 * file that is none; and the file's name of a counter (NULL if none).
 */
int fab_counter_sysfs_parse(const char *name);
const char *fab_counter_sysfs_name(unsigned ctr);
/*
 * A sample of RDMA port `port` of r (its counters/ files, kind
 * FAB_RDMA_CTR_PORT) as PortCounters would give it, read at at_ms: the
 * widths, saturation and limits of InfiniBand ports apply. *out is
 * overwritten.
 */
struct fab_roce;
void fab_counter_rdma_sample(const struct fab_roce *r, uint32_t port, int64_t at_ms,
			     struct fab_counter_sample *out);
