// SPDX-License-Identifier: MIT
/*
 * M_Key in the SMPs fabsweep builds: at offset 24 of every SMP (LID-routed
 * and directed route), never in a PMA MAD; and the repair/native engine
 * sends each node its own key from a guid2mkey file, the fallback to the
 * others. (ibsim 0.10 does not check M_Keys, so this is where the keys
 * sent are proven; docs/security.md.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/mkey.h"
#include "fabsweep/scan.h"
#include "scanner/scan_priv.h"
#include "unit/scanner/fake_smp.h"

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void test_encode(void **state)
{
	static const uint8_t classes[] = { FAB_MAD_CLASS_SMI, FAB_MAD_CLASS_SMI_DR,
					   FAB_MAD_CLASS_PERF };
	uint8_t mad[FAB_MAD_SIZE];

	(void)state;
	for (size_t i = 0; i < sizeof(classes); i++) {
		struct fab_mad_req r = { .mgmt_class = classes[i], .method = FAB_MAD_GET,
					 .attr_id = 0x15, .dlid = 7, .dr_hops = 1,
					 .mkey = 0x0123456789abcdefULL };
		r.dr_path[1] = 3;
		fab_mad_encode(mad, &r, 0x1234);
		if (classes[i] == FAB_MAD_CLASS_PERF) {
			/* no M_Key in a GMP: those bytes stay zero */
			assert_true(be64_at(mad + 24) == 0);
		} else {
			assert_true(be64_at(mad + 24) == 0x0123456789abcdefULL);
			assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) == 0x0123456789abcdefULL);
		}
		assert_int_equal(fab_mad_tid32(mad), 0x1234);
		r.mkey = 0;
		fab_mad_encode(mad, &r, 0x1234);
		assert_true(be64_at(mad + 24) == 0);
	}
}

/* A fabric that answers every SMP at once with zeros, recording them. */
struct fake {
	uint8_t sent[256][FAB_MAD_SIZE];
	int n_sent;
	struct fake_smp_inbox in;
};

static int f_send(void *ctx, const uint8_t *mad, const struct fab_mad_req *req,
		  int timeout_ms)
{
	struct fake *f = ctx;

	(void)req;
	(void)timeout_ms;
	assert_true(f->n_sent < 256);
	memcpy(f->sent[f->n_sent++], mad, FAB_MAD_SIZE);
	uint8_t *d = fake_smp_answer(&f->in, mad);
	if (mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F) == IB_ATTR_PORT_INFO)
		mad_set_field(d, 0, IB_PORT_STATE_F, 1); /* Down */
	return 0;
}

static int f_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	(void)wait_ms;
	return fake_smp_recv(&((struct fake *)ctx)->in, mad, status);
}

static void test_repair_keys(void **state)
{
	static const char file[] = "0xa 0xaaaa\n"   /* switch A by node GUID */
				   "0xb1 0xbbbb\n"; /* CA B by its port GUID */
	static struct fake f;
	struct fab_mad_transport tr = { .send = f_send, .recv = f_recv, .ctx = &f };
	struct fab_mkeys *mk = fab_mkeys_new();
	struct fab_scan_opts o;
	struct fab_madwin *mw;
	struct wt w = { 0 };
	uint32_t a, b, c;
	int seen_a = 0, seen_b = 0, seen_c = 0;

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(fab_mkeys_parse(mk, file, sizeof(file) - 1, "g2m"), 0);
	fab_mkeys_set_default(mk, 0xf00d);
	fab_scan_opts_init(&o);
	o.mkeys = mk;

	a = wt_add_node(&w, 0xa, FAB_NODE_SWITCH, 2);
	b = wt_add_node(&w, 0xb, FAB_NODE_CA, 1);
	c = wt_add_node(&w, 0xc, FAB_NODE_CA, 1);
	assert_true(a != FAB_NONE && b != FAB_NONE && c != FAB_NONE);
	w.nodes[a].path_valid = true;
	w.nodes[b].path_valid = w.nodes[c].path_valid = true;
	w.nodes[b].hops = w.nodes[c].hops = 1;
	w.nodes[b].path[1] = 1;
	w.nodes[c].path[1] = 2;
	wt_port(&w, b, 1)->exists = true;
	wt_port(&w, b, 1)->guid = 0xb1; /* libibnetdisc: entry port unknown */
	wt_port(&w, c, 1)->exists = true;
	wt_port(&w, c, 1)->guid = 0xc1;

	assert_int_equal(fab_madwin_new(&tr, 4, 100, 0, &mw), 0);
	assert_int_equal(wt_repair(&w, mw, &o, NULL), 0);
	assert_true(f.n_sent > 0);
	for (int i = 0; i < f.n_sent; i++) {
		uint8_t *m = f.sent[i];
		unsigned hops = mad_get_field(m, 0, IB_DRSMP_HOPCNT_F);
		uint64_t key = mad_get_field64(m, 0, IB_MAD_MKEY_F);

		assert_int_equal(m[1], FAB_MAD_CLASS_SMI_DR);
		if (hops == 0) {
			assert_true(key == 0xaaaa);
			seen_a++;
		} else if (m[128 + 1] == 1) {
			assert_true(key == 0xbbbb);
			seen_b++;
		} else {
			assert_true(key == 0xf00d);
			seen_c++;
		}
	}
	/* A: NodeDescription and 3 PortInfos; B and C: NodeDescription, PortInfo */
	assert_int_equal(seen_a, 4);
	assert_int_equal(seen_b, 2);
	assert_int_equal(seen_c, 2);
	fab_madwin_free(mw);
	wt_free(&w);
	fab_mkeys_free(mk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_repair_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
