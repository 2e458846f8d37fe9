// SPDX-License-Identifier: MIT
/*
 * Devices that share a GUID: our own discovery engine, run
 * against a fake fabric that answers directed-route SMPs, keeps each as a
 * node of its own, with its own cable, both flagged; a switch reached from
 * several neighbours and the local node reached back stay one node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "scanner/scan_priv.h"
#include "unit/scanner/fake_smp.h"

/*
 * The fabric: node 0 is the local CA. Each cable joins (node, port) to
 * (node, port); a switch's ports are all cabled.
 */
struct fnode {
	uint64_t guid;
	unsigned type, nports;
	const char *desc;
};

struct fcable {
	unsigned a, ap, b, bp;
};

struct fake {
	const struct fnode *nodes;
	const struct fcable *cables;
	size_t n_cables;
	struct fake_smp_inbox in;
};

/* The far end of (n, p); false when the port has no cable. */
static bool far_end(const struct fake *f, unsigned n, unsigned p, unsigned *rn,
		    unsigned *rp)
{
	for (size_t i = 0; i < f->n_cables; i++) {
		const struct fcable *c = &f->cables[i];
		if (c->a == n && c->ap == p) {
			*rn = c->b;
			*rp = c->bp;
			return true;
		}
		if (c->b == n && c->bp == p) {
			*rn = c->a;
			*rp = c->ap;
			return true;
		}
	}
	return false;
}

static int f_send(void *ctx, const uint8_t *mad, const struct fab_mad_req *req,
		  int timeout_ms)
{
	struct fake *f = ctx;
	unsigned hops = mad_get_field((void *)mad, 0, IB_DRSMP_HOPCNT_F);
	unsigned n = 0, inport = 1;

	(void)req;
	(void)timeout_ms;
	for (unsigned i = 1; i <= hops; i++)
		if (!far_end(f, n, mad[128 + i], &n, &inport))
			return 0; /* lost: no answer */
	uint8_t *d = fake_smp_answer(&f->in, mad);
	const struct fnode *fn = &f->nodes[n];

	switch (mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F)) {
	case IB_ATTR_NODE_INFO:
		mad_set_field64(d, 0, IB_NODE_GUID_F, fn->guid);
		mad_set_field64(d, 0, IB_NODE_PORT_GUID_F, fn->guid + 0x100 * inport);
		mad_set_field(d, 0, IB_NODE_TYPE_F, fn->type);
		mad_set_field(d, 0, IB_NODE_NPORTS_F, fn->nports);
		mad_set_field(d, 0, IB_NODE_LOCAL_PORT_F, inport);
		break;
	case IB_ATTR_NODE_DESC:
		memcpy(d, fn->desc, strlen(fn->desc));
		break;
	case IB_ATTR_PORT_INFO: {
		unsigned p = mad_get_field((void *)mad, 0, IB_MAD_ATTRMOD_F), rn, rp;
		bool up = p > 0 && far_end(f, n, p, &rn, &rp);
		mad_set_field(d, 0, IB_PORT_STATE_F, up || p == 0 ? 4 : 1);
		mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, up || p == 0 ? 5 : 3);
		mad_set_field(d, 0, IB_PORT_LID_F, n + 1);
		break;
	}
	default:
		break;
	}
	return 0;
}

static int f_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	(void)wait_ms;
	return fake_smp_recv(&((struct fake *)ctx)->in, mad, status);
}

/* Native discovery and repair of that fabric, as a snapshot. */
static struct fab_snapshot *discover(const struct fnode *nodes,
				     const struct fcable *cables, size_t n_cables)
{
	static struct fake fk;
	struct fake *f = &fk;
	struct fab_mad_transport tr = { .send = f_send, .recv = f_recv, .ctx = f };
	struct fab_scan_opts o;
	struct fab_madwin *mw;
	struct wt w = { 0 };
	struct fab_snapshot *s = fab_snapshot_new();

	assert_non_null(s);
	memset(f, 0, sizeof(*f));
	f->nodes = nodes;
	f->cables = cables;
	f->n_cables = n_cables;
	fab_scan_opts_init(&o);
	o.retries = 0;
	assert_int_equal(fab_madwin_new(&tr, 4, 20, 0, &mw), 0);
	assert_int_equal(wt_discover(&w, mw, &o), 0);
	assert_int_equal(wt_repair(&w, mw, &o, NULL), 0);
	assert_int_equal(wt_to_snapshot(&w, s), 0);
	fab_madwin_free(mw);
	wt_free(&w);
	return s;
}

static uint32_t by_desc(const struct fab_snapshot *s, const char *desc)
{
	for (uint32_t i = 0; i < s->n_nodes; i++)
		if (!strcmp(s->nodes[i].desc, desc))
			return i;
	fail_msg("no node %s", desc);
	return FAB_NONE;
}

static size_t count_errors(const struct fab_snapshot *s, const char *what)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_errors; i++)
		n += !strcmp(s->errors[i].what, what);
	return n;
}

/* The node and port at the far end of desc's port p, as the snapshot says. */
static void assert_cable(const struct fab_snapshot *s, const char *desc, unsigned p,
			 const char *rdesc, unsigned rp)
{
	const struct fab_port *fp = fab_snapshot_port(s, by_desc(s, desc), (uint8_t)p);

	assert_non_null(fp);
	assert_int_not_equal(fp->remote_idx, FAB_NONE);
	const struct fab_port *r = &s->ports[fp->remote_idx];
	assert_string_equal(s->nodes[r->node_idx].desc, rdesc);
	assert_int_equal(r->port_num, rp);
	assert_int_equal(r->remote_idx, (uint32_t)(fp - s->ports));
	assert_true(!(fp->flags & FAB_F_NO_REMOTE));
}

/* Two CAs with one GUID on one switch: both kept, both flagged. */
static void test_two_cas(void **state)
{
	static const struct fnode nodes[] = {
		{ 0xe, FAB_NODE_CA, 1, "local" },
		{ 0x5, FAB_NODE_SWITCH, 3, "sw" },
		{ 0xd, FAB_NODE_CA, 1, "A" },
		{ 0xd, FAB_NODE_CA, 1, "B" },
	};
	static const struct fcable cables[] = {
		{ 0, 1, 1, 3 }, { 1, 1, 2, 1 }, { 1, 2, 3, 1 },
	};
	struct fab_snapshot *s = discover(nodes, cables, 3);

	(void)state;

	assert_int_equal(s->n_nodes, 4);
	assert_int_equal(s->n_links, 3);
	uint32_t a = by_desc(s, "A"), b = by_desc(s, "B");
	assert_int_not_equal(a, b);
	assert_true(s->nodes[a].guid == 0xd && s->nodes[b].guid == 0xd);
	assert_true(s->nodes[a].flags & FAB_F_DUP_GUID);
	assert_true(s->nodes[b].flags & FAB_F_DUP_GUID);
	assert_true(!(s->nodes[by_desc(s, "sw")].flags & FAB_F_DUP_GUID));
	assert_int_equal(s->nodes[a].lid, 3);
	assert_int_equal(s->nodes[b].lid, 4);
	assert_cable(s, "A", 1, "sw", 1);
	assert_cable(s, "B", 1, "sw", 2);
	assert_cable(s, "local", 1, "sw", 3);
	assert_int_equal(count_errors(s, "dup_guid"), 2);
	assert_int_equal(count_errors(s, "hole"), 0);
	fab_snapshot_free(s);
}

/*
 * Two switches with one GUID, each reached from two switches: a switch
 * reached through another of its ports stays one node; the second device
 * is told apart where a port of the first would be cabled twice, and is
 * explored by its own route (the CA behind it is found).
 *
 *   local -1- S1:1   S1:2 - X:1   S1:3 - Y:1   (X, Y: GUID 0x7)
 *   X:2 - T:1   Y:2 - T:2   Y:3 - C (a CA only Y leads to)
 */
static void test_two_switches(void **state)
{
	static const struct fnode nodes[] = {
		{ 0xe, FAB_NODE_CA, 1, "local" },
		{ 0x1, FAB_NODE_SWITCH, 3, "S1" },
		{ 0x7, FAB_NODE_SWITCH, 3, "X" },
		{ 0x7, FAB_NODE_SWITCH, 3, "Y" },
		{ 0x2, FAB_NODE_SWITCH, 2, "T" },
		{ 0xc, FAB_NODE_CA, 1, "C" },
	};
	static const struct fcable cables[] = {
		{ 0, 1, 1, 1 }, { 1, 2, 2, 1 }, { 1, 3, 3, 1 },
		{ 2, 2, 4, 1 }, { 3, 2, 4, 2 }, { 3, 3, 5, 1 },
	};
	struct fab_snapshot *s = discover(nodes, cables, 6);

	(void)state;

	assert_int_equal(s->n_nodes, 6);
	assert_int_equal(s->n_links, 6);
	assert_true(s->nodes[by_desc(s, "X")].flags & FAB_F_DUP_GUID);
	assert_true(s->nodes[by_desc(s, "Y")].flags & FAB_F_DUP_GUID);
	assert_cable(s, "X", 1, "S1", 2);
	assert_cable(s, "Y", 1, "S1", 3);
	assert_cable(s, "X", 2, "T", 1);
	assert_cable(s, "Y", 2, "T", 2);
	assert_cable(s, "C", 1, "Y", 3);
	assert_int_equal(count_errors(s, "hole"), 0);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cas),
		cmocka_unit_test(test_two_switches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
