// SPDX-License-Identifier: MIT
/*
 * The MAD window engine against a fake transport with a fake clock:
 * TID matching with answers out of order, stale and foreign answers,
 * retries on silence and on transport errors, MAD status handling, the
 * window bound (and the transport's cap on it), and producers that add
 * work from completions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "scanner/madwin.h"

#define MAXQ 4096

enum policy { ANSWER, SILENT, BOUNCE, STATUS_ERR, BUSY_ONCE, REVERSE };

struct fake {
	int64_t now;
	enum policy policy;
	uint8_t sent[MAXQ][FAB_MAD_SIZE]; /* every MAD written */
	int n_sent;
	/* answers waiting to be received */
	uint8_t inbox[MAXQ][FAB_MAD_SIZE];
	int inbox_status[MAXQ];
	int in_head, in_tail;
	int outstanding_max; /* most requests ever unanswered at once */
	int busy_given;
	/* REVERSE: hold answers until `hold` are queued, then release them
	 * newest first */
	uint8_t held[64][FAB_MAD_SIZE];
	int n_held, hold;
};

static void to_inbox(struct fake *f, const uint8_t *mad, int status)
{
	memcpy(f->inbox[f->in_tail], mad, FAB_MAD_SIZE);
	f->inbox_status[f->in_tail] = status;
	f->in_tail++;
}

static void make_answer(uint8_t *ans, const uint8_t *req, unsigned status)
{
	memcpy(ans, req, FAB_MAD_SIZE);
	mad_set_field(ans, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(ans, 0, IB_MAD_STATUS_F, status);
	/* The high TID half comes back rewritten, as from the kernel. */
	uint64_t tid = mad_get_field64(ans, 0, IB_MAD_TRID_F);
	mad_set_field64(ans, 0, IB_MAD_TRID_F, (tid & 0xffffffffu) | 0xdead00000000ull);
	/* echo the request's attribute modifier into the data */
	ans[FAB_MAD_DATA_OFFS] = (uint8_t)mad_get_field(ans, 0, IB_MAD_ATTRMOD_F);
}

static int f_send(void *ctx, const uint8_t *mad, const struct fab_mad_req *req,
		  int timeout_ms)
{
	struct fake *f = ctx;
	uint8_t ans[FAB_MAD_SIZE];

	(void)req;
	(void)timeout_ms;
	assert_true(f->n_sent < MAXQ);
	memcpy(f->sent[f->n_sent++], mad, FAB_MAD_SIZE);
	/* requests the engine has sent and not yet seen an answer to */
	int outstanding = f->n_sent - f->in_head;
	if (outstanding > f->outstanding_max)
		f->outstanding_max = outstanding;
	switch (f->policy) {
	case ANSWER:
		make_answer(ans, mad, 0);
		to_inbox(f, ans, 0);
		break;
	case SILENT:
		break;
	case BOUNCE: /* transport gives the request back (kernel timeout) */
		to_inbox(f, mad, ETIMEDOUT);
		break;
	case STATUS_ERR:
		make_answer(ans, mad, IB_MAD_STS_INV_ATTR_VALUE);
		to_inbox(f, ans, 0);
		break;
	case BUSY_ONCE:
		make_answer(ans, mad, f->busy_given++ ? 0 : IB_MAD_STS_BUSY);
		to_inbox(f, ans, 0);
		break;
	case REVERSE:
		make_answer(f->held[f->n_held++], mad, 0);
		if (f->n_held == f->hold) {
			while (f->n_held)
				to_inbox(f, f->held[--f->n_held], 0);
		}
		break;
	}
	return 0;
}

static int f_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	struct fake *f = ctx;

	if (f->in_head == f->in_tail) {
		f->now += wait_ms; /* time passes while nothing comes */
		return 0;
	}
	memcpy(mad, f->inbox[f->in_head], FAB_MAD_SIZE);
	*status = f->inbox_status[f->in_head];
	f->in_head++;
	return 1;
}

static int64_t f_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

/* Producer of n requests; records completions by attr_mod. */
struct work {
	int n, produced;
	int done[MAXQ];
	int err[MAXQ];
	uint8_t echo[MAXQ];
	int extra; /* completions of request 0 add this many more */
};

static int w_next(void *ctx, struct fab_mad_req *req)
{
	struct work *w = ctx;

	if (w->produced >= w->n)
		return 0;
	req->mgmt_class = FAB_MAD_CLASS_PERF;
	req->method = FAB_MAD_GET;
	req->attr_id = 0x12;
	req->attr_mod = (uint32_t)w->produced;
	req->dlid = 7;
	req->cookie = (uint64_t)w->produced * 3;
	w->produced++;
	return 1;
}

static void w_done(void *ctx, const struct fab_mad_req *req, int err,
		   const uint8_t *resp)
{
	struct work *w = ctx;
	uint32_t i = req->attr_mod;

	assert_int_equal(req->cookie, (uint64_t)i * 3); /* cookie untouched */
	w->done[i]++;
	w->err[i] = err;
	if (resp)
		w->echo[i] = resp[FAB_MAD_DATA_OFFS];
	if (i == 0 && w->extra) {
		w->n += w->extra;
		w->extra = 0;
	}
}

/* limit: the transport's max_in_flight (0: none) */
static struct fab_madwin *mk_limit(struct fake *f, int window, int retries, int limit)
{
	struct fab_mad_transport t = { .send = f_send, .recv = f_recv, .now_ms = f_now, .ctx = f, .max_in_flight = limit };
	struct fab_madwin *mw = NULL;

	assert_int_equal(fab_madwin_new(&t, window, 100, retries, &mw), 0);
	return mw;
}

static struct fab_madwin *mk(struct fake *f, int window, int retries)
{
	return mk_limit(f, window, retries, 0);
}

static void test_all_answered_once(void **state)
{
	static struct fake f;
	static struct work w;
	memset(&f, 0, sizeof(f));
	memset(&w, 0, sizeof(w));
	f.policy = ANSWER;
	w.n = 500;
	struct fab_madwin *mw = mk(&f, 16, 3);

	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	for (int i = 0; i < w.n; i++) {
		assert_int_equal(w.done[i], 1);
		assert_int_equal(w.err[i], 0);
		assert_int_equal(w.echo[i], (uint8_t)i);
	}
	assert_int_equal(f.n_sent, 500);
	assert_int_equal(fab_madwin_stats(mw)->answered, 500);
	/* TIDs are unique among what was in flight */
	fab_madwin_free(mw);
}

static void test_out_of_order_and_window(void **state)
{
	static struct fake f;
	static struct work w;
	memset(&f, 0, sizeof(f));
	memset(&w, 0, sizeof(w));
	f.policy = REVERSE;
	f.hold = 8;
	w.n = 64;
	struct fab_madwin *mw = mk(&f, 8, 0);

	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	for (int i = 0; i < w.n; i++) {
		assert_int_equal(w.done[i], 1);
		assert_int_equal(w.err[i], 0);
		assert_int_equal(w.echo[i], (uint8_t)i); /* matched to the right one */
	}
	assert_true(f.outstanding_max <= 8);
	assert_int_equal(f.outstanding_max, 8); /* and the window is used */
	fab_madwin_free(mw);
}

/* A transport's max_in_flight caps the window (the simulator's shim). */
static void test_transport_limit(void **state)
{
	static struct fake f = { .policy = REVERSE, .hold = 5 };
	static struct work w = { .n = 40 };
	struct fab_madwin *mw = mk_limit(&f, 64, 0, 5);

	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	for (int i = 0; i < w.n; i++)
		assert_int_equal(w.done[i], 1);
	assert_int_equal(f.outstanding_max, 5);
	fab_madwin_free(mw);
}

static void test_silence_retries_then_timeout(void **state)
{
	static struct fake f;
	static struct work w;
	memset(&f, 0, sizeof(f));
	memset(&w, 0, sizeof(w));
	f.policy = SILENT;
	w.n = 5;
	struct fab_madwin *mw = mk(&f, 4, 2);

	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	for (int i = 0; i < w.n; i++) {
		assert_int_equal(w.done[i], 1);
		assert_int_equal(w.err[i], -ETIMEDOUT);
	}
	assert_int_equal(f.n_sent, 5 * 3); /* 1 try + 2 retries each */
	/* bounded: 2 rounds of the window, 3 timeouts of 100 ms each */
	assert_true(f.now <= 2 * 3 * 100 + 10);
	/* every try had a fresh TID */
	for (int i = 1; i < f.n_sent; i++)
		for (int j = 0; j < i; j++)
			assert_int_not_equal((uint32_t)mad_get_field64(f.sent[i], 0, IB_MAD_TRID_F),
					     (uint32_t)mad_get_field64(f.sent[j], 0, IB_MAD_TRID_F));
	fab_madwin_free(mw);
}

static void test_bounce_is_a_failed_try(void **state)
{
	static struct fake f;
	static struct work w;
	memset(&f, 0, sizeof(f));
	memset(&w, 0, sizeof(w));
	f.policy = BOUNCE;
	w.n = 3;
	struct fab_madwin *mw = mk(&f, 2, 3);

	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	for (int i = 0; i < w.n; i++)
		assert_int_equal(w.err[i], -ETIMEDOUT);
	assert_int_equal(f.n_sent, 3 * 4);
	fab_madwin_free(mw);
}

static void test_status_and_busy(void **state)
{
	static struct fake f;
	static struct work w;
	memset(&f, 0, sizeof(f));
	memset(&w, 0, sizeof(w));
	f.policy = STATUS_ERR;
	w.n = 2;
	struct fab_madwin *mw = mk(&f, 2, 3);

	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	assert_int_equal(w.err[0], -EREMOTEIO); /* answered: no retry */
	assert_int_equal(f.n_sent, 2);
	fab_madwin_free(mw);

	memset(&f, 0, sizeof(f));
	memset(&w, 0, sizeof(w));
	f.policy = BUSY_ONCE;
	w.n = 1;
	mw = mk(&f, 2, 3);
	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	assert_int_equal(w.err[0], 0); /* BUSY is retried */
	assert_int_equal(f.n_sent, 2);
	fab_madwin_free(mw);
}

static void test_stale_and_foreign_ignored(void **state)
{
	static struct fake f;
	static struct work w;
	memset(&f, 0, sizeof(f));
	memset(&w, 0, sizeof(w));
	f.policy = SILENT;
	w.n = 1;
	struct fab_madwin *mw = mk(&f, 4, 1);
	uint8_t junk[FAB_MAD_SIZE] = { 0 };

	/* An answer to a TID nobody sent, and a request (not an answer) that
	 * echoes a live TID, must not complete anything. */
	mad_set_field(junk, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field64(junk, 0, IB_MAD_TRID_F, 0x12345);
	to_inbox(&f, junk, 0);
	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	assert_int_equal(w.done[0], 1);
	assert_int_equal(w.err[0], -ETIMEDOUT);
	assert_true(fab_madwin_stats(mw)->stale >= 1);
	fab_madwin_free(mw);
}

static void test_producer_grows_from_done(void **state)
{
	static struct fake f;
	static struct work w;
	memset(&f, 0, sizeof(f));
	memset(&w, 0, sizeof(w));
	f.policy = ANSWER;
	w.n = 1;
	w.extra = 40;
	struct fab_madwin *mw = mk(&f, 8, 0);

	assert_int_equal(fab_madwin_run(mw, w_next, w_done, &w), 0);
	assert_int_equal(w.n, 41);
	for (int i = 0; i < w.n; i++)
		assert_int_equal(w.done[i], 1);
	fab_madwin_free(mw);
}

static void test_encode_dr(void **state)
{
	struct fab_mad_req r = { 0 };
	uint8_t mad[FAB_MAD_SIZE];

	r.mgmt_class = FAB_MAD_CLASS_SMI_DR;
	r.method = FAB_MAD_GET;
	r.attr_id = 0x11;
	r.dr_hops = 3;
	r.dr_path[1] = 5, r.dr_path[2] = 17, r.dr_path[3] = 2;
	fab_mad_encode(mad, &r, 0xabcdef01);
	assert_int_equal(mad[0], 1);    /* base version */
	assert_int_equal(mad[1], 0x81); /* class */
	assert_int_equal(mad[2], 1);    /* class version */
	assert_int_equal(mad[3], 0x01); /* Get */
	assert_int_equal(mad[7], 3);    /* hop count */
	assert_int_equal(mad[6], 0);    /* hop pointer */
	assert_int_equal(fab_mad_tid32(mad), 0xabcdef01);
	assert_int_equal(mad[16] << 8 | mad[17], 0x11);
	assert_int_equal(mad[32] << 8 | mad[33], 0xffff); /* DrSLID */
	assert_int_equal(mad[34] << 8 | mad[35], 0xffff); /* DrDLID */
	assert_int_equal(mad[128 + 1], 5);
	assert_int_equal(mad[128 + 2], 17);
	assert_int_equal(mad[128 + 3], 2);
	/* DR status lives in bits 0-14 of bytes 4-5 */
	mad[4] = 0x80, mad[5] = 0x04;
	assert_int_equal(fab_mad_status(mad), 0x0004);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_answered_once),
		cmocka_unit_test(test_out_of_order_and_window),
		cmocka_unit_test(test_transport_limit),
		cmocka_unit_test(test_silence_retries_then_timeout),
		cmocka_unit_test(test_bounce_is_a_failed_try),
		cmocka_unit_test(test_status_and_busy),
		cmocka_unit_test(test_stale_and_foreign_ignored),
		cmocka_unit_test(test_producer_grows_from_done),
		cmocka_unit_test(test_encode_dr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
