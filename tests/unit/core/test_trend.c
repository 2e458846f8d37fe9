// SPDX-License-Identifier: MIT
/*
 * The trend model (core/trend.c) fed by hand: the top ports are ranked by
 * error rate (the counter model's, over the seconds a port's readings
 * span), not by how many errors they counted; a port named by a finding is
 * charted first whatever it counted; the minute buckets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/trend.h"

#define T0 1764557635000LL

static struct fab_counter_sample reading(int64_t at_ms, uint64_t symbol_errors)
{
	struct fab_counter_sample c = { .sampled_at_ms = at_ms, .valid = fab_counter_error_mask() };

	c.v[FAB_CTR_SYMBOL_ERRORS] = symbol_errors;
	return c;
}

static void feed(struct fab_trend *t, uint64_t guid, int64_t at_ms, uint64_t v)
{
	struct fab_counter_sample c = reading(at_ms, v);

	assert_int_equal(fab_trend_tally(t, guid, 1, false, &c), 0);
}

static void test_rank_by_rate(void **state)
{
	struct fab_trend t;
	struct fab_snapshot *snap = fab_snapshot_new();
	struct fab_finding f = { .rule_id = "link.width_degraded", .node = "0x0000000000000030",
				 .port = "1", .subject = "s", .message = "m" };

	(void)state;
	assert_int_equal(fab_snapshot_add_finding(snap, &f), 0);
	assert_int_equal(fab_trend_init(&t, T0, T0 + 600000), 0);
	feed(&t, 0x10, T0, 0); /* x: 100 errors in 100 s: 1/s */
	feed(&t, 0x10, T0 + 100000, 100);
	feed(&t, 0x20, T0 + 90000, 0); /* y: 50 errors in 10 s: 5/s */
	feed(&t, 0x20, T0 + 100000, 50);
	feed(&t, 0x30, T0, 0); /* z: a finding, no errors */
	feed(&t, 0x30, T0 + 100000, 0);
	assert_int_equal(t.errors[1], 150); /* both counted in the second minute */
	assert_int_equal(t.total_errors, 150);
	assert_int_equal(fab_trend_pick(&t, snap, 1), 0);
	assert_int_equal(t.n_charts, 2);
	assert_int_equal(t.n_more, 1); /* x */
	assert_int_equal(t.n_ports, 3);
	assert_int_equal(t.n_ports_grew, 2);
	/* pass 2: the charted ports, in key order */
	for (uint32_t i = 0; i < t.n_charts; i++) {
		struct fab_counter_sample a = reading(t.charts[i].node_guid == 0x20 ? T0 + 90000 : T0, 0),
					  b = reading(T0 + 100000, t.charts[i].node_guid == 0x20 ? 50 : 0);
		fab_trend_series(&t, i, false, &a);
		fab_trend_series(&t, i, false, &b);
	}
	fab_trend_finish(&t);
	assert_int_equal(t.charts[0].node_guid, 0x30); /* the finding first */
	assert_true(t.charts[0].finding);
	assert_int_equal(t.charts[1].node_guid, 0x20); /* the higher rate, fewer errors */
	assert_int_equal(t.charts[1].errors, 50);
	assert_true(t.charts[1].rate > 4.99 && t.charts[1].rate < 5.01);
	assert_int_equal(t.charts[1].n_readings, 2);
	fab_trend_free(&t);
	fab_snapshot_free(snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_by_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
