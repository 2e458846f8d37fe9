// SPDX-License-Identifier: MIT
/*
 * One port's NIC counters as every output reads them (fab_nic_view,
 * core/nic_counter.c): the latest reading of each counter and slot; the
 * increase from the port's own first sample when it has two, else from the
 * baseline's port of the same system and interface; a counter that went
 * down counted at least its new value; the seconds between the readings
 * are those of the first counter (in counter, then slot order) that has
 * both. Numbers worked out by hand below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "fabsweep/counter.h"
#include "fabsweep/roce.h"

#define T0 1700000000000LL

/* A collected host with eth0; its port index. */
static uint32_t host(struct fab_roce *r, const char *name)
{
	struct fab_roce_system *s = fab_roce_add_system(r);

	assert_non_null(s);
	s->name = fab_roce_strdup(r, name);
	s->collected = true;
	struct fab_eth_port *p = fab_roce_add_eth_port(r, (uint32_t)(r->n_systems - 1));
	assert_non_null(p);
	p->ifname = fab_roce_strdup(r, "eth0");
	return (uint32_t)(r->n_eth_ports - 1);
}

static void add(struct fab_roce *r, uint32_t port, unsigned ctr, int prio, unsigned sample,
		uint64_t v, int64_t at)
{
	assert_int_equal(fab_roce_add_nic_counter(r, port, ctr, prio, sample, v, at, "test"), 0);
}

static void test_two_samples(void **state)
{
	struct fab_roce *r = fab_roce_new();
	struct fab_nic_view *v = calloc(1, sizeof(*v));
	uint32_t p = host(r, "h1");

	(void)state;
	assert_non_null(v);
	/* read in this order: rx_pause at priority 3 first (2 s apart), then
	 * tx_frames (1 s apart); tx_frames comes first in counter order */
	add(r, p, FAB_NIC_RX_PAUSE, 3, 0, 100, T0);
	add(r, p, FAB_NIC_TX_FRAMES, -1, 0, 1000, T0 + 500);
	add(r, p, FAB_NIC_RX_PAUSE, 3, 1, 130, T0 + 2000);
	add(r, p, FAB_NIC_TX_FRAMES, -1, 1, 5, T0 + 1500); /* cleared in between */
	add(r, p, FAB_NIC_LINK_DOWN_EVENTS, -1, 1, 9, T0 + 1500); /* the second sample only */
	fab_nic_view(r, p, NULL, v);
	assert_true(v->have[FAB_NIC_RX_PAUSE][4]);
	assert_int_equal(v->value[FAB_NIC_RX_PAUSE][4], 130);
	assert_true(v->have_inc[FAB_NIC_RX_PAUSE][4]);
	assert_int_equal(v->inc[FAB_NIC_RX_PAUSE][4], 30);
	assert_false(v->reset[FAB_NIC_RX_PAUSE][4]);
	assert_int_equal(v->value[FAB_NIC_TX_FRAMES][0], 5);
	assert_true(v->have_inc[FAB_NIC_TX_FRAMES][0]);
	assert_int_equal(v->inc[FAB_NIC_TX_FRAMES][0], 5);
	assert_true(v->reset[FAB_NIC_TX_FRAMES][0]);
	/* one reading: its value, no increase */
	assert_true(v->have[FAB_NIC_LINK_DOWN_EVENTS][0]);
	assert_false(v->have_inc[FAB_NIC_LINK_DOWN_EVENTS][0]);
	assert_false(v->have[FAB_NIC_RX_PAUSE][0]);
	assert_true(v->any_inc);
	assert_false(v->baseline);
	assert_true(v->secs == 1.0); /* tx_frames' */
	free(v);
	fab_roce_free(r);
}

static void test_baseline(void **state)
{
	struct fab_roce *r = fab_roce_new(), *b = fab_roce_new();
	struct fab_nic_view *v = calloc(1, sizeof(*v));
	struct fab_nic_base base;
	uint32_t p = host(r, "h1"), q = host(r, "h2");

	(void)state;
	assert_non_null(v);
	host(b, "h0");
	uint32_t bp = host(b, "h1");
	add(b, bp, FAB_NIC_RX_DISCARDS_PHY, -1, 0, 40, T0 - 10000);
	add(r, p, FAB_NIC_RX_DISCARDS_PHY, -1, 0, 100, T0);
	add(r, q, FAB_NIC_RX_DISCARDS_PHY, -1, 0, 7, T0);
	assert_int_equal(fab_nic_base_init(b, &base), 0);
	fab_nic_view(r, p, &base, v);
	assert_true(v->have_inc[FAB_NIC_RX_DISCARDS_PHY][0]);
	assert_int_equal(v->inc[FAB_NIC_RX_DISCARDS_PHY][0], 60);
	assert_true(v->baseline);
	assert_true(v->secs == 10.0);
	struct fab_nic_amount a = fab_nic_amount(v, FAB_NIC_RX_DISCARDS_PHY, 0);
	assert_true(a.known);
	assert_int_equal(a.n, 60);
	assert_false(a.since_clear);
	/* not in the baseline: the value since the counters were cleared */
	fab_nic_view(r, q, &base, v);
	assert_false(v->any_inc);
	assert_false(v->baseline);
	a = fab_nic_amount(v, FAB_NIC_RX_DISCARDS_PHY, 0);
	assert_true(a.known);
	assert_int_equal(a.n, 7);
	assert_true(a.since_clear);
	fab_nic_base_free(&base);
	free(v);
	fab_roce_free(r);
	fab_roce_free(b);
}

/*
 * A port read once, with no baseline (a view of what its counters hold):
 * the same view as the one worked out against a baseline that lacks the
 * port, reading by reading (read_port's way), for ports with a counter read
 * twice in one sample (the first reading kept), unknown counters and
 * priorities, no counters; and a port with a second sample among them
 * compared with its first.
 */
static void test_one_sample(void **state)
{
	struct fab_roce *r = fab_roce_new(), *b = fab_roce_new();
	struct fab_nic_view *v = calloc(1, sizeof(*v)), *w = calloc(1, sizeof(*w));
	struct fab_nic_base nb;
	uint32_t seed = 7;

	(void)state;
	assert_non_null(v);
	assert_non_null(w);
	add(b, host(b, "elsewhere"), FAB_NIC_RX_FRAMES, -1, 0, 1, T0);
	assert_int_equal(fab_nic_base_init(b, &nb), 0);
	for (unsigned i = 0; i < 40; i++) {
		char name[16];
		snprintf(name, sizeof(name), "h%u", i);
		uint32_t p = host(r, name);
		for (unsigned k = 0; k < i % 23; k++) {
			seed = seed * 1103515245u + 12345u;
			unsigned ctr = (seed >> 16) % (FAB_NIC__COUNT + 1); /* one unknown */
			int prio = (int)((seed >> 8) % 11) - 2;             /* -2 and 8: none */
			unsigned sample = i % 9 == 4 && k == 3;             /* a second sample */
			assert_int_equal(fab_roce_add_nic_counter(r, p, ctr, prio, sample, seed % 1000,
								  T0 + 10 * k, "test"), 0);
		}
	}
	for (uint32_t p = 0; p < r->n_eth_ports; p++) {
		fab_nic_view(r, p, NULL, v);
		fab_nic_view(r, p, &nb, w);
		assert_false(w->baseline);
		assert_int_equal(v->any_inc, w->any_inc);
		assert_true(v->secs == w->secs);
		for (unsigned c = 0; c < FAB_NIC__COUNT; c++)
			for (unsigned sl = 0; sl < FAB_NIC_SLOTS; sl++) {
				assert_int_equal(v->have[c][sl], w->have[c][sl]);
				assert_int_equal(v->have_inc[c][sl], w->have_inc[c][sl]);
				assert_int_equal(v->reset[c][sl], w->reset[c][sl]);
				if (v->have[c][sl])
					assert_int_equal(v->value[c][sl], w->value[c][sl]);
				if (v->have_inc[c][sl])
					assert_int_equal(v->inc[c][sl], w->inc[c][sl]);
			}
	}
	fab_nic_base_free(&nb);
	free(v);
	free(w);
	fab_roce_free(r);
	fab_roce_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_samples),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_one_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
