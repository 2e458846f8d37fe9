// SPDX-License-Identifier: MIT
/* The counter model (core/counter.c): widths, saturation, deltas with resets
 * and saturation, rates, limits, the text every output writes, and which
 * samples are compared (the scan's two, or the baseline's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "unit/snapfix.h"

static void test_table(void **state)
{
	(void)state;
	assert_string_equal(fab_counter_name(FAB_CTR_SYMBOL_ERRORS), "SymbolErrorCounter");
	assert_null(fab_counter_name(FAB_CTR__COUNT));
	assert_int_equal(fab_counter_parse("PortXmitWait"), FAB_CTR_XMIT_WAIT);
	assert_int_equal(fab_counter_parse("SymbolErrors"), -1);
	for (unsigned i = 0; i < FAB_CTR__COUNT; i++)
		assert_int_equal(fab_counter_parse(fab_counter_name(i)), (int)i);
	/* libibmad's PortCounters widths; extended: 64-bit data and packets */
	assert_int_equal(fab_counter_bits(FAB_CTR_LOCAL_LINK_INTEGRITY_ERRORS, false), 4);
	assert_int_equal(fab_counter_bits(FAB_CTR_LINK_DOWNED, false), 8);
	assert_int_equal(fab_counter_bits(FAB_CTR_SYMBOL_ERRORS, false), 16);
	assert_int_equal(fab_counter_bits(FAB_CTR_SYMBOL_ERRORS, true), 16);
	assert_int_equal(fab_counter_bits(FAB_CTR_XMIT_DATA, false), 32);
	assert_int_equal(fab_counter_bits(FAB_CTR_XMIT_DATA, true), 64);
	assert_int_equal(fab_counter_bits(FAB_CTR_XMIT_WAIT, true), 32);
	assert_int_equal(fab_counter_bits(FAB_CTR_UNICAST_XMIT_PKTS, false), 64);
	assert_int_equal(fab_counter_bits(FAB_CTR__COUNT, false), 0);
	assert_true(fab_counter_is_error(FAB_CTR_VL15_DROPPED));
	assert_false(fab_counter_is_error(FAB_CTR_XMIT_WAIT));
	assert_false(fab_counter_is_error(FAB_CTR__COUNT));
}

static struct fab_counter_sample sample(int64_t at_ms, bool extended)
{
	struct fab_counter_sample c = { .sampled_at_ms = at_ms, .extended = extended };

	c.valid = (1u << FAB_CTR__COUNT) - 1;
	return c;
}

static void test_saturated(void **state)
{
	struct fab_counter_sample c = sample(1000, false);

	(void)state;
	c.v[FAB_CTR_LOCAL_LINK_INTEGRITY_ERRORS] = 15;         /* 4 bits */
	c.v[FAB_CTR_LINK_DOWNED] = 255;                        /* 8 bits */
	c.v[FAB_CTR_SYMBOL_ERRORS] = 65535;                    /* 16 bits */
	c.v[FAB_CTR_XMIT_WAIT] = 0xffffffffu;                  /* 32 bits */
	c.v[FAB_CTR_RCV_ERRORS] = 65534;
	c.v[FAB_CTR_UNICAST_XMIT_PKTS] = UINT64_MAX;           /* 64 bits: never */
	assert_true(fab_counter_saturated(&c, FAB_CTR_LOCAL_LINK_INTEGRITY_ERRORS));
	assert_true(fab_counter_saturated(&c, FAB_CTR_LINK_DOWNED));
	assert_true(fab_counter_saturated(&c, FAB_CTR_SYMBOL_ERRORS));
	assert_true(fab_counter_saturated(&c, FAB_CTR_XMIT_WAIT));
	assert_false(fab_counter_saturated(&c, FAB_CTR_RCV_ERRORS));
	assert_false(fab_counter_saturated(&c, FAB_CTR_UNICAST_XMIT_PKTS));
	c.valid &= ~(1u << FAB_CTR_SYMBOL_ERRORS); /* not read: not saturated */
	assert_false(fab_counter_saturated(&c, FAB_CTR_SYMBOL_ERRORS));
	/* an extended sample's data counters are 64 bits wide */
	c = sample(1000, true);
	c.v[FAB_CTR_XMIT_DATA] = 0xffffffffu;
	assert_false(fab_counter_saturated(&c, FAB_CTR_XMIT_DATA));
	c.extended = false;
	assert_true(fab_counter_saturated(&c, FAB_CTR_XMIT_DATA));
}

static void test_delta(void **state)
{
	struct fab_counter_sample a = sample(1000, false), b = sample(11000, false);
	struct fab_counter_delta d;
	double r;

	(void)state;
	a.v[FAB_CTR_SYMBOL_ERRORS] = 10, b.v[FAB_CTR_SYMBOL_ERRORS] = 30;   /* normal */
	a.v[FAB_CTR_RCV_ERRORS] = 500, b.v[FAB_CTR_RCV_ERRORS] = 20;        /* reset */
	a.v[FAB_CTR_XMIT_DISCARDS] = 100, b.v[FAB_CTR_XMIT_DISCARDS] = 65535; /* saturated */
	a.v[FAB_CTR_VL15_DROPPED] = 65535, b.v[FAB_CTR_VL15_DROPPED] = 65535; /* still */
	a.v[FAB_CTR_LINK_DOWNED] = 300, b.v[FAB_CTR_LINK_DOWNED] = 255; /* 64-bit before */
	b.valid &= ~(1u << FAB_CTR_XMIT_WAIT);
	fab_counter_delta(&a, &b, FAB_CTR_MASK_ALL, &d);
	assert_true(d.secs == 10);
	assert_false(d.valid & (1u << FAB_CTR_XMIT_WAIT));
	assert_int_equal(d.inc[FAB_CTR_SYMBOL_ERRORS], 20);
	assert_false(d.at_least & (1u << FAB_CTR_SYMBOL_ERRORS));
	assert_int_equal(d.inc[FAB_CTR_RCV_ERRORS], 20);
	assert_true(d.reset & (1u << FAB_CTR_RCV_ERRORS));
	assert_true(d.at_least & (1u << FAB_CTR_RCV_ERRORS));
	assert_int_equal(d.inc[FAB_CTR_XMIT_DISCARDS], 65435);
	assert_true(d.saturated & (1u << FAB_CTR_XMIT_DISCARDS));
	assert_false(d.reset & (1u << FAB_CTR_XMIT_DISCARDS));
	assert_int_equal(d.inc[FAB_CTR_VL15_DROPPED], 0);
	assert_true(d.at_least & (1u << FAB_CTR_VL15_DROPPED));
	/* saturated now, larger before: not a reset, at least 0 */
	assert_int_equal(d.inc[FAB_CTR_LINK_DOWNED], 0);
	assert_false(d.reset & (1u << FAB_CTR_LINK_DOWNED));
	assert_true(d.saturated & (1u << FAB_CTR_LINK_DOWNED));
	assert_int_equal(d.at_least, d.reset | d.saturated);

	assert_true(fab_counter_rate(&d, FAB_CTR_SYMBOL_ERRORS, &r));
	assert_true(r == 2);
	assert_false(fab_counter_rate(&d, FAB_CTR_XMIT_WAIT, &r));
	assert_true(fab_counter_over(&d, FAB_CTR_SYMBOL_ERRORS, 19));
	assert_false(fab_counter_over(&d, FAB_CTR_SYMBOL_ERRORS, 20));
	assert_false(fab_counter_over(&d, FAB_CTR_SYMBOL_ERRORS, -1)); /* off */
	assert_false(fab_counter_over(&d, FAB_CTR_VL15_DROPPED, 0));
	assert_false(fab_counter_over(&d, FAB_CTR_XMIT_WAIT, 0));

	/* only the counters wanted */
	fab_counter_delta(&a, &b, 1u << FAB_CTR_RCV_ERRORS, &d);
	assert_int_equal(d.valid, 1u << FAB_CTR_RCV_ERRORS);
	assert_int_equal(d.reset, 1u << FAB_CTR_RCV_ERRORS);
	assert_int_equal(fab_counter_error_mask(), (1u << (FAB_CTR_VL15_DROPPED + 1)) - 1);

	/* no interval: no rate, the increase still */
	b.sampled_at_ms = 0;
	fab_counter_delta(&a, &b, FAB_CTR_MASK_ALL, &d);
	assert_true(d.secs == 0);
	assert_false(fab_counter_rate(&d, FAB_CTR_SYMBOL_ERRORS, &r));
	assert_int_equal(d.inc[FAB_CTR_SYMBOL_ERRORS], 20);
}

/* One value pair, any width: what fab_counter_delta does per counter, and
 * what roce.congestion uses for the 64-bit RDMA counters. */
static void test_grew(void **state)
{
	bool reset, sat;

	(void)state;
	assert_int_equal(fab_counter_grew(10, 30, 16, &reset, &sat), 20);
	assert_false(reset || sat);
	assert_int_equal(fab_counter_grew(500, 20, 16, &reset, &sat), 20);
	assert_true(reset && !sat);
	assert_int_equal(fab_counter_grew(100, 65535, 16, &reset, &sat), 65435);
	assert_true(sat && !reset);
	assert_int_equal(fab_counter_grew(3, 15, 4, &reset, &sat), 12);
	assert_true(sat);
	assert_int_equal(fab_counter_grew(9, 5, 64, &reset, &sat), 5);
	assert_true(reset);
	assert_int_equal(fab_counter_grew(UINT64_MAX - 1, UINT64_MAX, 64, &reset, &sat), 1);
	assert_false(reset || sat); /* 64 bits never saturate */
}

static void test_text(void **state)
{
	char buf[64];

	(void)state;
	fab_counter_amount(20, false, buf, sizeof(buf));
	assert_string_equal(buf, "20");
	fab_counter_amount(20, true, buf, sizeof(buf));
	assert_string_equal(buf, "20 or more");
	assert_null(fab_counter_why(false, false));
	assert_string_equal(fab_counter_why(true, false), "cleared in between");
	assert_string_equal(fab_counter_why(false, true), "saturated");
	fab_counter_increase_text(20, false, false, buf, sizeof(buf));
	assert_string_equal(buf, "20");
	fab_counter_increase_text(20, true, false, buf, sizeof(buf));
	assert_string_equal(buf, "20 or more (cleared in between)");
	fab_counter_increase_text(65435, false, true, buf, sizeof(buf));
	assert_string_equal(buf, "65435 or more (saturated)");
}

static struct fab_counter_sample *sample_of(struct fab_snapshot *s, uint64_t guid, unsigned port)
{
	const struct fab_port *p = fab_snapshot_port(s, fab_snapshot_find_node(s, guid), port);

	return (struct fab_counter_sample *)fab_counter_latest(s, (uint32_t)(p - s->ports));
}

static void test_pairs(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(1, 1, 2), *base = snapfix_fat_tree(1, 1, 2);
	struct fab_counter_pairs p;
	struct fab_counter_delta d;
	const struct fab_port *hp = fab_snapshot_port(s, fab_snapshot_find_node(s, 0x3000), 1);
	uint32_t hi = (uint32_t)(hp - s->ports);

	(void)state;
	/* one sample each: nothing to compare within the scan */
	assert_int_equal(fab_counter_pairs_build(s, NULL, &p), 0);
	assert_int_equal(p.n_pairs, 0);
	assert_non_null(p.latest[hi]);
	assert_false(fab_counter_pairs_delta(&p, hi, FAB_CTR_MASK_ALL, &d));
	fab_counter_pairs_free(&p);

	/* a second sample of one port: compared with its first */
	struct fab_counter_sample *c1 = fab_snapshot_add_sample(s);
	*c1 = *sample_of(s, 0x3000, 1);
	c1->sample = 1;
	c1->sampled_at_ms += 10000;
	c1->v[FAB_CTR_SYMBOL_ERRORS] = 7;
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_ptr_equal(fab_counter_latest(s, hi), &s->samples[s->n_samples - 1]);
	assert_int_equal(fab_counter_pairs_build(s, NULL, &p), 0);
	assert_int_equal(p.n_pairs, 1);
	assert_false(p.baseline);
	assert_true(p.secs == 10);
	assert_true(fab_counter_pairs_delta(&p, hi, FAB_CTR_MASK_ALL, &d));
	assert_int_equal(d.inc[FAB_CTR_SYMBOL_ERRORS], 7);
	fab_counter_pairs_free(&p);

	/* a baseline wins over the first sample: matched by node GUID and port */
	sample_of(base, 0x3000, 1)->v[FAB_CTR_SYMBOL_ERRORS] = 9; /* then cleared */
	base->samples[0].sampled_at_ms = s->samples[0].sampled_at_ms - 3600 * 1000;
	assert_int_equal(fab_counter_pairs_build(s, base, &p), 0);
	assert_true(p.baseline);
	assert_true(p.n_pairs > 1);
	assert_true(fab_counter_pairs_delta(&p, hi, FAB_CTR_MASK_ALL, &d));
	assert_int_equal(d.inc[FAB_CTR_SYMBOL_ERRORS], 7);
	assert_true(d.reset & (1u << FAB_CTR_SYMBOL_ERRORS));
	fab_counter_pairs_free(&p);
	fab_counter_pairs_free(&p); /* a zeroed one is fine */
	fab_snapshot_free(s);
	fab_snapshot_free(base);
}

/* Every counter's width by hand (docs/counters.md: libibmad's PortCounters
 * fields; PortCountersExtended: 64-bit data and packets), and saturation
 * exactly at each width's all-ones value, in base and extended samples. */
static const struct {
	unsigned ctr, base, ext; /* bits in a PortCounters / an extended sample */
} widths[] = {
	{ FAB_CTR_SYMBOL_ERRORS, 16, 16 },
	{ FAB_CTR_LINK_ERROR_RECOVERY, 8, 8 },
	{ FAB_CTR_LINK_DOWNED, 8, 8 },
	{ FAB_CTR_RCV_ERRORS, 16, 16 },
	{ FAB_CTR_RCV_REMOTE_PHYS_ERRORS, 16, 16 },
	{ FAB_CTR_RCV_SWITCH_RELAY_ERRORS, 16, 16 },
	{ FAB_CTR_XMIT_DISCARDS, 16, 16 },
	{ FAB_CTR_XMIT_CONSTRAINT_ERRORS, 8, 8 },
	{ FAB_CTR_RCV_CONSTRAINT_ERRORS, 8, 8 },
	{ FAB_CTR_LOCAL_LINK_INTEGRITY_ERRORS, 4, 4 },
	{ FAB_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS, 4, 4 },
	{ FAB_CTR_VL15_DROPPED, 16, 16 },
	{ FAB_CTR_XMIT_WAIT, 32, 32 },
	{ FAB_CTR_XMIT_DATA, 32, 64 },
	{ FAB_CTR_RCV_DATA, 32, 64 },
	{ FAB_CTR_XMIT_PKTS, 32, 64 },
	{ FAB_CTR_RCV_PKTS, 32, 64 },
	{ FAB_CTR_UNICAST_XMIT_PKTS, 64, 64 },
	{ FAB_CTR_UNICAST_RCV_PKTS, 64, 64 },
	{ FAB_CTR_MULTICAST_XMIT_PKTS, 64, 64 },
	{ FAB_CTR_MULTICAST_RCV_PKTS, 64, 64 },
	/* the detail counters: 16 bits, extended or not */
	{ FAB_CTR_LOCAL_PHYSICAL_ERRORS, 16, 16 },
	{ FAB_CTR_MALFORMED_PACKET_ERRORS, 16, 16 },
	{ FAB_CTR_BUFFER_OVERRUN_ERRORS, 16, 16 },
	{ FAB_CTR_DLID_MAPPING_ERRORS, 16, 16 },
	{ FAB_CTR_VL_MAPPING_ERRORS, 16, 16 },
	{ FAB_CTR_LOOPING_ERRORS, 16, 16 },
	{ FAB_CTR_INACTIVE_DISCARDS, 16, 16 },
	{ FAB_CTR_NEIGHBOR_MTU_DISCARDS, 16, 16 },
	{ FAB_CTR_SW_LIFETIME_LIMIT_DISCARDS, 16, 16 },
	{ FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS, 16, 16 },
};

static void test_every_width(void **state)
{
	(void)state;
	assert_int_equal(sizeof(widths) / sizeof(widths[0]), FAB_CTR__COUNT);
	for (size_t i = 0; i < FAB_CTR__COUNT; i++) {
		unsigned c = widths[i].ctr;

		assert_int_equal(c, i); /* the table above is in enum order */
		assert_int_equal(fab_counter_bits(c, false), widths[i].base);
		assert_int_equal(fab_counter_bits(c, true), widths[i].ext);
		assert_int_equal(fab_counter_is_error(c), c <= FAB_CTR_VL15_DROPPED);
		for (int ext = 0; ext < 2; ext++) {
			unsigned bits = ext ? widths[i].ext : widths[i].base;
			uint64_t max = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
			struct fab_counter_sample a = sample(1000, ext), b = sample(5000, ext);
			struct fab_counter_delta d;
			double r;

			/* one below the all-ones value: exact */
			b.v[c] = max - 1;
			assert_int_equal(fab_counter_saturated(&b, c), false);
			fab_counter_delta(&a, &b, 1u << c, &d);
			assert_int_equal(d.valid, 1u << c);
			assert_true(d.inc[c] == max - 1);
			assert_int_equal(d.at_least, 0);
			/* all ones: saturated (not at 64 bits), the increase a lower bound */
			a.v[c] = 1;
			b.v[c] = max;
			assert_int_equal(fab_counter_saturated(&b, c), bits < 64);
			fab_counter_delta(&a, &b, 1u << c, &d);
			assert_true(d.inc[c] == max - 1);
			assert_int_equal(d.saturated, bits < 64 ? 1u << c : 0);
			assert_int_equal(d.reset, 0);
			assert_int_equal(d.at_least, d.saturated);
			assert_true(fab_counter_rate(&d, c, &r));
			assert_true(r == (double)(max - 1) / 4);
			/* went down: a reset, the value since the clear, a lower bound */
			a.v[c] = max - 1;
			b.v[c] = 3;
			fab_counter_delta(&a, &b, 1u << c, &d);
			assert_true(d.inc[c] == 3);
			assert_int_equal(d.reset, 1u << c);
			assert_int_equal(d.saturated, 0);
			assert_int_equal(d.at_least, 1u << c);
			assert_true(fab_counter_over(&d, c, 2));
			assert_false(fab_counter_over(&d, c, 3));
		}
	}
	/* a 64-bit error counter value above a 16-bit width reads saturated
	 * only at exactly 65535 (docs/counters.md, Known limits) */
	struct fab_counter_sample c = sample(1000, true);
	c.v[FAB_CTR_SYMBOL_ERRORS] = 65536;
	assert_false(fab_counter_saturated(&c, FAB_CTR_SYMBOL_ERRORS));
	c.v[FAB_CTR_SYMBOL_ERRORS] = 65535;
	assert_true(fab_counter_saturated(&c, FAB_CTR_SYMBOL_ERRORS));
	assert_false(fab_counter_saturated(&c, FAB_CTR__COUNT));
}

/* One value pair at each width: every row of docs/counters.md's table. */
static void test_grew_every_width(void **state)
{
	static const unsigned bits[] = { 4, 8, 16, 32 };
	bool reset, sat;

	(void)state;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		uint64_t max = (1ull << bits[i]) - 1;

		assert_true(fab_counter_grew(2, 5, bits[i], &reset, &sat) == 3); /* exact */
		assert_false(reset || sat);
		assert_true(fab_counter_grew(5, 5, bits[i], &reset, &sat) == 0); /* still */
		assert_false(reset || sat);
		assert_true(fab_counter_grew(5, 2, bits[i], &reset, &sat) == 2); /* reset */
		assert_true(reset && !sat);
		assert_true(fab_counter_grew(0, 0, bits[i], &reset, &sat) == 0);
		assert_false(reset || sat);
		assert_true(fab_counter_grew(2, max, bits[i], &reset, &sat) == max - 2); /* saturated */
		assert_true(sat && !reset);
		assert_true(fab_counter_grew(max, max, bits[i], &reset, &sat) == 0); /* still saturated */
		assert_true(sat && !reset);
		/* larger before (a 64-bit earlier value): saturated, 0 or more, not a reset */
		assert_true(fab_counter_grew(max + 7, max, bits[i], &reset, &sat) == 0);
		assert_true(sat && !reset);
		/* one above all ones cannot be read at this width, but is no saturation */
		assert_true(fab_counter_grew(max + 1, max + 2, bits[i], &reset, &sat) == 1);
		assert_false(reset || sat);
	}
	assert_true(fab_counter_grew(UINT64_MAX, 3, 64, &reset, &sat) == 3);
	assert_true(reset && !sat);
	assert_true(fab_counter_grew(0, UINT64_MAX, 64, &reset, &sat) == UINT64_MAX);
	assert_false(reset || sat);
}

/* What a delta leaves out: counters not wanted, not in both samples; no
 * interval without both times or when time went backwards. */
static void test_delta_edges(void **state)
{
	struct fab_counter_sample a = sample(1000, false), b = sample(3500, false);
	struct fab_counter_delta d;
	double r = -1;

	(void)state;
	a.v[FAB_CTR_SYMBOL_ERRORS] = 1, b.v[FAB_CTR_SYMBOL_ERRORS] = 6;
	a.v[FAB_CTR_LINK_DOWNED] = 4, b.v[FAB_CTR_LINK_DOWNED] = 1;
	a.valid &= ~(1u << FAB_CTR_RCV_ERRORS);  /* earlier lacks it */
	b.valid &= ~(1u << FAB_CTR_XMIT_DATA);   /* later lacks it */
	fab_counter_delta(&a, &b, FAB_CTR_MASK_ALL, &d);
	assert_int_equal(d.valid, FAB_CTR_MASK_ALL & ~(1u << FAB_CTR_RCV_ERRORS) & ~(1u << FAB_CTR_XMIT_DATA));
	assert_true(d.secs == 2.5);
	assert_true(fab_counter_rate(&d, FAB_CTR_SYMBOL_ERRORS, &r) && r == 2);
	assert_true(fab_counter_rate(&d, FAB_CTR_LINK_DOWNED, &r) && r == 0.4); /* 1 since the reset */
	r = -1;
	assert_false(fab_counter_rate(&d, FAB_CTR_RCV_ERRORS, &r));
	assert_false(fab_counter_rate(&d, FAB_CTR_XMIT_DATA, &r));
	assert_false(fab_counter_rate(&d, FAB_CTR__COUNT, &r));
	assert_true(r == -1); /* untouched */
	assert_false(fab_counter_over(&d, FAB_CTR_RCV_ERRORS, 0));
	assert_false(fab_counter_over(&d, FAB_CTR__COUNT, 0));
	assert_true(fab_counter_over(&d, FAB_CTR_LINK_DOWNED, 0.5));
	/* only the error counters */
	fab_counter_delta(&a, &b, fab_counter_error_mask(), &d);
	assert_int_equal(d.valid, fab_counter_error_mask() & ~(1u << FAB_CTR_RCV_ERRORS));
	assert_int_equal(d.reset, 1u << FAB_CTR_LINK_DOWNED);
	/* no interval: the earlier time unknown, the same time, time backwards */
	a.sampled_at_ms = 0;
	fab_counter_delta(&a, &b, FAB_CTR_MASK_ALL, &d);
	assert_true(d.secs == 0);
	assert_int_equal(d.inc[FAB_CTR_SYMBOL_ERRORS], 5);
	a.sampled_at_ms = b.sampled_at_ms;
	fab_counter_delta(&a, &b, FAB_CTR_MASK_ALL, &d);
	assert_true(d.secs == 0);
	a.sampled_at_ms = b.sampled_at_ms + 1;
	fab_counter_delta(&a, &b, FAB_CTR_MASK_ALL, &d);
	assert_true(d.secs == 0);
	assert_false(fab_counter_rate(&d, FAB_CTR_SYMBOL_ERRORS, &r));
	/* nothing wanted: nothing valid */
	fab_counter_delta(&a, &b, 0, &d);
	assert_int_equal(d.valid | d.reset | d.saturated | d.at_least, 0);
}

/* Consecutive intervals summed (the trends): increases and seconds add,
 * the bits gather, so a sum with a reset in it is "at least". */
static void test_delta_add(void **state)
{
	struct fab_counter_sample a = sample(1000, false), b = sample(3000, false),
				  c = sample(7000, false);
	struct fab_counter_delta sum = { 0 }, d;
	double r;

	(void)state;
	a.v[FAB_CTR_SYMBOL_ERRORS] = 10, b.v[FAB_CTR_SYMBOL_ERRORS] = 30, c.v[FAB_CTR_SYMBOL_ERRORS] = 5;
	a.v[FAB_CTR_VL15_DROPPED] = 1, b.v[FAB_CTR_VL15_DROPPED] = 65535, c.v[FAB_CTR_VL15_DROPPED] = 65535;
	a.v[FAB_CTR_LINK_DOWNED] = 2, b.v[FAB_CTR_LINK_DOWNED] = 3, c.v[FAB_CTR_LINK_DOWNED] = 7;
	c.valid &= ~(1u << FAB_CTR_RCV_ERRORS);
	fab_counter_delta(&a, &b, FAB_CTR_MASK_ALL, &d);
	fab_counter_delta_add(&sum, &d);
	assert_int_equal(sum.at_least, 1u << FAB_CTR_VL15_DROPPED);
	fab_counter_delta(&b, &c, FAB_CTR_MASK_ALL, &d);
	fab_counter_delta_add(&sum, &d);
	assert_true(sum.secs == 6);
	assert_int_equal(sum.inc[FAB_CTR_SYMBOL_ERRORS], 20 + 5);       /* 10 -> 30, then reset: 5 since */
	assert_int_equal(sum.inc[FAB_CTR_VL15_DROPPED], 65534 + 0);      /* saturated, then still */
	assert_int_equal(sum.inc[FAB_CTR_LINK_DOWNED], 1 + 4);           /* exact both times */
	assert_int_equal(sum.reset, 1u << FAB_CTR_SYMBOL_ERRORS);
	assert_int_equal(sum.saturated, 1u << FAB_CTR_VL15_DROPPED);
	assert_int_equal(sum.at_least, sum.reset | sum.saturated);
	assert_true(sum.valid & (1u << FAB_CTR_RCV_ERRORS)); /* in the first interval */
	assert_int_equal(sum.inc[FAB_CTR_RCV_ERRORS], 0);
	assert_true(fab_counter_rate(&sum, FAB_CTR_LINK_DOWNED, &r));
	assert_true(r == 5.0 / 6);
}

/* Which samples are paired: ports the baseline lacks, nodes it lacks,
 * samples that share no counter; the interval of the first pair; an
 * unindexed baseline is refused. */
static void test_pairs_gaps(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(1, 1, 2), *base = snapfix_fat_tree(1, 1, 2);
	struct fab_counter_pairs p;
	struct fab_counter_delta d;
	size_t sampled = 0;

	(void)state;
	for (uint32_t i = 0; i < s->n_ports; i++)
		sampled += fab_counter_latest(s, i) != NULL;
	/* the baseline 10 s earlier */
	for (size_t i = 0; i < base->n_samples; i++)
		base->samples[i].sampled_at_ms = s->samples[0].sampled_at_ms - 10000;
	/* host 0x3010 is another adapter in the baseline (not the same GUID) */
	base->nodes[fab_snapshot_find_node(base, 0x3010)].guid = 0x9999;
	/* host 0x3000's port shares no counter with the baseline's */
	sample_of(base, 0x3000, 1)->valid = 1u << FAB_CTR_XMIT_WAIT;
	sample_of(s, 0x3000, 1)->valid &= ~(1u << FAB_CTR_XMIT_WAIT);
	assert_int_equal(fab_snapshot_index(base), 0);
	assert_int_equal(fab_counter_pairs_build(s, base, &p), 0);
	assert_true(p.baseline);
	assert_int_equal(p.n_pairs, sampled - 2);
	assert_true(p.secs == 10);
	uint32_t h0 = (uint32_t)(fab_snapshot_port(s, fab_snapshot_find_node(s, 0x3000), 1) - s->ports);
	uint32_t h1 = (uint32_t)(fab_snapshot_port(s, fab_snapshot_find_node(s, 0x3010), 1) - s->ports);
	assert_false(fab_counter_pairs_delta(&p, h0, FAB_CTR_MASK_ALL, &d));
	assert_false(fab_counter_pairs_delta(&p, h1, FAB_CTR_MASK_ALL, &d));
	assert_null(p.earlier[h0]);
	assert_non_null(p.latest[h0]);
	assert_false(fab_counter_pairs_delta(&p, (uint32_t)s->n_ports, FAB_CTR_MASK_ALL, &d));
	/* the leaf's uplink: paired with the baseline's same port */
	uint32_t up = (uint32_t)(fab_snapshot_port(s, fab_snapshot_find_node(s, 0x2000), 19) - s->ports);
	assert_true(fab_counter_pairs_delta(&p, up, FAB_CTR_MASK_ALL, &d));
	assert_true(d.secs == 10);
	assert_ptr_equal(p.earlier[up], sample_of(base, 0x2000, 19));
	fab_counter_pairs_free(&p);
	/* a baseline not indexed is refused, saying so */
	uint32_t *order = base->guid_order;
	base->guid_order = NULL;
	assert_int_equal(fab_counter_pairs_build(s, base, &p), -EINVAL);
	assert_null(p.latest);
	base->guid_order = order;
	fab_snapshot_free(s);
	fab_snapshot_free(base);
}

/* A watch sweep's new value replaces the port's latest sample, or is added;
 * the counters the sweep did not read keep the value the full scan read. */
static void test_put_sample(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(1, 1, 2);
	uint32_t a = s->samples[0].port_idx, none = FAB_NONE;
	size_t n = s->n_samples;
	struct fab_counter_sample c = { .port_idx = a, .valid = fab_counter_error_mask() };
	struct fab_counter_sample *o = (struct fab_counter_sample *)fab_counter_latest(s, a);
	const struct fab_counter_sample *l;

	for (uint32_t i = 0; i < s->n_ports && none == FAB_NONE; i++)
		if (!fab_counter_latest(s, i))
			none = i;
	assert_int_not_equal(none, FAB_NONE);
	o->valid |= 1u << FAB_CTR_XMIT_DATA | 1u << FAB_CTR_SYMBOL_ERRORS;
	o->v[FAB_CTR_XMIT_DATA] = 1ull << 40;
	o->v[FAB_CTR_SYMBOL_ERRORS] = 3;
	o->extended = true;
	c.v[FAB_CTR_SYMBOL_ERRORS] = 9;
	assert_int_equal(fab_snapshot_put_sample(s, &c), 0);
	assert_int_equal(s->n_samples, n);
	l = fab_counter_latest(s, a);
	assert_int_equal(l->v[FAB_CTR_SYMBOL_ERRORS], 9);
	assert_true(l->valid & 1u << FAB_CTR_XMIT_DATA);
	assert_int_equal(l->v[FAB_CTR_XMIT_DATA], 1ull << 40);
	assert_true(l->extended); /* the data counter is still the 64-bit one */
	assert_int_equal(l->valid & fab_counter_error_mask(), fab_counter_error_mask());
	c.port_idx = none;
	assert_int_equal(fab_snapshot_put_sample(s, &c), 0);
	assert_int_equal(s->n_samples, n + 1);
	assert_int_equal(fab_counter_latest(s, none)->v[FAB_CTR_SYMBOL_ERRORS], 9);
	c.port_idx = (uint32_t)s->n_ports;
	assert_int_equal(fab_snapshot_put_sample(s, &c), -EINVAL);
	fab_snapshot_free(s);
}

/* The detail counters: 16 bits, extended or not, not error counters (an
 * error sum would count them twice), each the detail of one counter. */
static void test_details(void **state)
{
	(void)state;
	assert_int_equal(fab_counter_bits(FAB_CTR_DLID_MAPPING_ERRORS, true), 16);
	assert_int_equal(fab_counter_bits(FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS, false), 16);
	assert_false(fab_counter_is_error(FAB_CTR_LOOPING_ERRORS));
	assert_true(fab_counter_is_detail(FAB_CTR_LOOPING_ERRORS));
	assert_false(fab_counter_is_detail(FAB_CTR_RCV_ERRORS));
	assert_int_equal(fab_counter_detail_of(FAB_CTR_LOCAL_PHYSICAL_ERRORS), FAB_CTR_RCV_ERRORS);
	assert_int_equal(fab_counter_detail_of(FAB_CTR_INACTIVE_DISCARDS), FAB_CTR_XMIT_DISCARDS);
	assert_int_equal(fab_counter_detail_of(FAB_CTR_RCV_ERRORS), -1);
	assert_int_equal(__builtin_popcount(fab_counter_details_of(FAB_CTR_RCV_ERRORS)), 6);
	assert_int_equal(__builtin_popcount(fab_counter_details_of(FAB_CTR_XMIT_DISCARDS)), 4);
	assert_int_equal(fab_counter_details_of(FAB_CTR_SYMBOL_ERRORS), 0);
	assert_int_equal(fab_counter_detail_mask(), fab_counter_details_of(FAB_CTR_RCV_ERRORS) |
							   fab_counter_details_of(FAB_CTR_XMIT_DISCARDS));
	assert_int_equal(fab_counter_detail_mask() & fab_counter_error_mask(), 0);
	struct fab_counter_sample c = { .valid = 1u << FAB_CTR_LOOPING_ERRORS };
	c.v[FAB_CTR_LOOPING_ERRORS] = 65535;
	assert_true(fab_counter_saturated(&c, FAB_CTR_LOOPING_ERRORS));
	assert_string_equal(fab_pma_attr_name(FAB_PMA_VL_XMIT_WAIT), "PortVLXmitWaitCounters");
}

/* Per-VL waits: 16-bit counters, the busiest VL by growth, else by total. */
static void test_vl(void **state)
{
	struct fab_counter_sample a = { .sampled_at_ms = 1000, .vl_valid = 0xffff },
				  b = { .sampled_at_ms = 3000, .vl_valid = 0xffff };
	struct fab_vl_delta d;
	uint64_t amount = 0;
	bool at_least = false, grew = false;

	(void)state;
	a.vl_xmit_wait[1] = 5000, b.vl_xmit_wait[1] = 5100; /* +100 */
	a.vl_xmit_wait[2] = 100, b.vl_xmit_wait[2] = 900;   /* +800: the busiest */
	a.vl_xmit_wait[3] = 9000, b.vl_xmit_wait[3] = 10;   /* cleared: +10 or more */
	fab_counter_vl_delta(&a, &b, &d);
	assert_int_equal(d.inc[2], 800);
	assert_int_equal(d.inc[3], 10);
	assert_true(d.reset & (1u << 3));
	assert_true(d.secs == 2);
	assert_int_equal(fab_counter_vl_busiest(&a, &b, &amount, &at_least, &grew), 2);
	assert_int_equal(amount, 800);
	assert_true(grew);
	assert_false(at_least);
	/* without an earlier sample: the totals, VL 1's 5100 */
	assert_int_equal(fab_counter_vl_busiest(NULL, &b, &amount, &at_least, &grew), 1);
	assert_int_equal(amount, 5100);
	assert_false(grew);
	/* nothing grew: the totals too; saturated is a lower bound */
	b = a;
	b.vl_xmit_wait[7] = 65535;
	a.vl_xmit_wait[7] = 65535;
	assert_int_equal(fab_counter_vl_busiest(&a, &b, &amount, &at_least, &grew), 7);
	assert_true(at_least);
	assert_false(grew);
	b.vl_valid = 0;
	assert_int_equal(fab_counter_vl_busiest(&a, &b, &amount, &at_least, &grew), -1);
}

/* The bit error rate: increase / (lanes x lane signalling rate x seconds),
 * each speed's signalling rate as the IB specification gives it. */
static void test_ber(void **state)
{
	struct fab_counter_delta d = { .valid = 1u << FAB_CTR_SYMBOL_ERRORS, .secs = 10 };
	double ber = 0;
	bool at_least = true;

	(void)state;
	d.inc[FAB_CTR_SYMBOL_ERRORS] = 5;
	assert_true(fab_counter_ber(&d, FAB_WIDTH_4X, FAB_SPEED_HDR, &ber, &at_least));
	assert_true(fabs(ber - 5 / (4 * 53.125e9 * 10)) < 1e-20);
	assert_false(at_least);
	static const struct {
		unsigned speed;
		double gbaud;
	} rates[] = { { FAB_SPEED_SDR, 2.5 },	  { FAB_SPEED_DDR, 5 },	      { FAB_SPEED_QDR, 10 },
		      { FAB_SPEED_FDR10, 10.3125 }, { FAB_SPEED_FDR, 14.0625 }, { FAB_SPEED_EDR, 25.78125 },
		      { FAB_SPEED_HDR, 53.125 },  { FAB_SPEED_NDR, 106.25 },  { FAB_SPEED_XDR, 212.5 } };
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		assert_true(fab_speed_lane_gbaud(rates[i].speed) == rates[i].gbaud);
		assert_true(fab_counter_ber(&d, FAB_WIDTH_1X, rates[i].speed, &ber, &at_least));
		assert_true(fabs(ber * rates[i].gbaud * 1e9 * 10 - 5) < 1e-9);
	}
	assert_true(fab_counter_ber(&d, FAB_WIDTH_12X, FAB_SPEED_EDR, &ber, &at_least));
	assert_true(fabs(ber - 5 / (12 * 25.78125e9 * 10)) < 1e-20);
	d.reset = d.at_least = 1u << FAB_CTR_SYMBOL_ERRORS; /* cleared: at least */
	assert_true(fab_counter_ber(&d, FAB_WIDTH_4X, FAB_SPEED_QDR, &ber, &at_least));
	assert_true(at_least);
	assert_false(fab_counter_ber(&d, 0, FAB_SPEED_QDR, &ber, &at_least)); /* width unknown */
	assert_false(fab_counter_ber(&d, FAB_WIDTH_4X, FAB_SPEED_QDR | FAB_SPEED_HDR, &ber, &at_least));
	d.secs = 0; /* no interval */
	assert_false(fab_counter_ber(&d, FAB_WIDTH_4X, FAB_SPEED_QDR, &ber, &at_least));
	d.secs = 1;
	d.valid = 0;
	assert_false(fab_counter_ber(&d, FAB_WIDTH_4X, FAB_SPEED_QDR, &ber, &at_least));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_saturated),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_grew),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_put_sample),
		cmocka_unit_test(test_details),
		cmocka_unit_test(test_vl),
		cmocka_unit_test(test_ber),
		cmocka_unit_test(test_every_width),
		cmocka_unit_test(test_grew_every_width),
		cmocka_unit_test(test_delta_edges),
		cmocka_unit_test(test_delta_add),
		cmocka_unit_test(test_pairs_gaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
