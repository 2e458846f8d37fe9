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

/* A watch sweep's new value replaces the port's latest sample, or is added. */
static void test_put_sample(void **state)
{
	struct fab_snapshot *s = snapfix_fat_tree(1, 1, 2);
	uint32_t a = s->samples[0].port_idx, none = FAB_NONE;
	size_t n = s->n_samples;
	struct fab_counter_sample c = { .port_idx = a, .valid = fab_counter_error_mask() };

	for (uint32_t i = 0; i < s->n_ports && none == FAB_NONE; i++)
		if (!fab_counter_latest(s, i))
			none = i;
	assert_int_not_equal(none, FAB_NONE);
	c.v[FAB_CTR_SYMBOL_ERRORS] = 9;
	assert_int_equal(fab_snapshot_put_sample(s, &c), 0);
	assert_int_equal(s->n_samples, n);
	assert_int_equal(fab_counter_latest(s, a)->v[FAB_CTR_SYMBOL_ERRORS], 9);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
