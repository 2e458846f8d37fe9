// SPDX-License-Identifier: MIT
/*
 * Reading the multicast groups from the SA (scanner/mcast_sa.c) against an
 * SA of this test's own that answers MCMemberRecord queries as OpenSM does
 * (osm_sa_mcmember_record.c: SM_Key 0 untrusted, one record per group with
 * the members zeroed; the SA key trusted, a record per member; component
 * mask MGID, MLID, PortGID; a Get that matches nothing: status 3) in two
 * ways of delivering an answer:
 *  - whole, as the kernel hands over an RMPP transfer it reassembled (more
 *    than 256 bytes; RMPP flags Active, First, Last and a payload length):
 *    two queries read everything;
 *  - cut, as ibsim's umad2sim shim does: the first 256 bytes (3 records),
 *    RMPP flags as the SA wrote them (Active only): the scan asks narrower
 *    (per MLID, per group, per port, per port and group) and still reads
 *    every group and member;
 * and an SA that ignores trusted queries (a wrong key): the groups, no
 * members, a scan_errors row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabfix/fabfix.h"
#include "fabsweep/mcast.h"
#include "fabsweep/snapshot.h"
#include "scanner/scan_priv.h"

#define KEY 0x1234
#define N_HOSTS 6
#define MAXQ 4096

enum mode { WHOLE, CUT, NO_TRUST };

struct member {
	unsigned group, host;
	uint8_t join;
};

/* The truth: 4 groups (MLIDs 0xc000 .. 0xc003); hosts 0 and 4 in all four
 * (host 4 a non-member of group 0), host 5 send-only in group 1. The SA
 * answers in this order: a cut answer shows the first three. */
static const unsigned mlid_of[4] = { 0xc000, 0xc001, 0xc002, 0xc003 };
static const struct member truth[] = {
	{ 0, 0, 1 }, { 0, 1, 1 }, { 0, 2, 1 }, { 0, 3, 1 }, { 0, 4, 2 },
	{ 1, 0, 1 }, { 1, 5, 4 }, { 1, 4, 1 },
	{ 2, 0, 1 }, { 2, 4, 1 },
	{ 3, 0, 1 }, { 3, 2, 1 }, { 3, 1, 1 }, { 3, 4, 1 },
};
#define N_TRUTH (sizeof(truth) / sizeof(truth[0]))

struct fake {
	enum mode mode;
	const struct fab_snapshot *s; /* the hosts' port GUIDs */
	uint8_t *q[MAXQ];
	size_t qlen[MAXQ];
	int head, tail;
	uint8_t *cur;
	size_t cur_len;
	int n_mads, n_trusted, n_untrusted;
};

static void mgid(unsigned g, uint8_t out[16])
{
	memset(out, 0, 16);
	out[0] = 0xff, out[1] = 0x12, out[2] = 0x60, out[3] = 0x1b, out[4] = 0xff, out[5] = 0xff;
	out[15] = (uint8_t)(0xa0 + g);
}

static uint64_t host_guid(const struct fake *f, unsigned h)
{
	return f->s->ports[fab_snapshot_port(f->s, 3 + h, 1) - f->s->ports].guid;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* A record laid out by the IBA's offsets (MGID 0, PortGID 16, Q_Key 32,
 * MLID 36, MTU 38, P_Key 40, Rate 42, Scope:JoinState 48). */
static void record(uint8_t *r, unsigned g, uint64_t port_guid, uint8_t join)
{
	memset(r, 0, 56);
	mgid(g, r);
	if (port_guid) {
		r[16] = 0xfe, r[17] = 0x80;
		for (int i = 0; i < 8; i++)
			r[24 + i] = (uint8_t)(port_guid >> (56 - 8 * i));
	}
	r[34] = 0x0b, r[35] = 0x1b;
	r[36] = (uint8_t)(mlid_of[g] >> 8), r[37] = (uint8_t)mlid_of[g];
	r[38] = 0x84;
	r[40] = 0xff, r[41] = 0xff;
	r[42] = 0x83;
	r[48] = (uint8_t)(0x20 | join);
}

static int f_send(void *ctx, const uint8_t *mad, const struct fab_mad_req *req, int timeout_ms)
{
	struct fake *f = ctx;
	uint64_t key = mad_get_field64((void *)mad, 0, IB_SA_MKEY_F);
	uint64_t cm = mad_get_field64((void *)mad, 0, IB_SA_COMPMASK_F);
	unsigned method = mad_get_field((void *)mad, 0, IB_MAD_METHOD_F);
	const uint8_t *rq = mad + FAB_SA_DATA_OFFS;
	uint8_t recs[64][56];
	size_t n = 0;

	(void)timeout_ms;
	f->n_mads++;
	assert_int_equal(req->mgmt_class, FAB_MAD_CLASS_SA);
	assert_int_equal(mad_get_field((void *)mad, 0, IB_MAD_CLASSVER_F), 2);
	assert_int_equal(mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F), 0x38);
	assert_true(key == 0 || key == KEY);
	if (key) {
		f->n_trusted++;
		if (f->mode == NO_TRUST)
			return 0; /* OpenSM drops a query whose key is not its sa_key */
	} else {
		f->n_untrusted++;
	}
	uint8_t want_mgid[16];
	memcpy(want_mgid, rq, 16);
	unsigned want_mlid = (unsigned)(rq[36] << 8 | rq[37]);
	uint64_t want_port = be64(rq + 24);
	for (unsigned g = 0; g < 4; g++) {
		uint8_t m[16];
		mgid(g, m);
		if ((cm & 1) && memcmp(m, want_mgid, 16))
			continue;
		if ((cm & 8) && mlid_of[g] != want_mlid)
			continue;
		if (!key) { /* untrusted: the group once, members zeroed */
			if (!(cm & 2))
				record(recs[n++], g, 0, 0);
			continue;
		}
		for (size_t i = 0; i < N_TRUTH; i++) {
			uint64_t pg = host_guid(f, truth[i].host);
			if (truth[i].group != g || ((cm & 2) && pg != want_port))
				continue;
			record(recs[n++], g, pg, truth[i].join);
		}
	}
	/* the answer: whole (what the kernel reassembled), or its first 256 bytes */
	bool get = method == FAB_MAD_GET;
	size_t len = FAB_SA_DATA_OFFS + 56 * n;
	if (len < FAB_MAD_SIZE)
		len = FAB_MAD_SIZE;
	uint8_t *a = calloc(1, len);
	memcpy(a, mad, FAB_SA_DATA_OFFS);
	mad_set_field(a, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(a, 0, IB_MAD_METHOD_F, get ? FAB_MAD_GET : FAB_MAD_GETTABLE);
	mad_set_field64(a, 0, IB_SA_MKEY_F, 0);
	if (get && n != 1)
		mad_set_field(a, 0, IB_MAD_STATUS_F, n ? 4u << 8 : 3u << 8); /* too many / no records */
	else if (n)
		mad_set_field(a, 0, IB_SA_ATTROFFS_F, 7);
	for (size_t i = 0; i < n && FAB_SA_DATA_OFFS + 56 * (i + 1) <= len; i++)
		memcpy(a + FAB_SA_DATA_OFFS + 56 * i, recs[i], 56);
	if (!get) {
		a[24] = 1; /* RMPP version */
		a[26] = f->mode == CUT ? 1 : 7; /* Active; the kernel's First and Last */
		if (f->mode != CUT) {
			uint32_t pl = (uint32_t)(20 + 56 * n);
			a[32] = (uint8_t)(pl >> 24), a[33] = (uint8_t)(pl >> 16), a[34] = (uint8_t)(pl >> 8),
			a[35] = (uint8_t)pl;
		}
	}
	if (f->mode == CUT)
		len = FAB_MAD_SIZE;
	assert_true(f->tail < MAXQ);
	f->q[f->tail] = a;
	f->qlen[f->tail++] = len;
	return 0;
}

static int64_t clock_ms; /* the fake clock: moves only while nothing comes */

static int f_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	struct fake *f = ctx;

	if (f->head == f->tail) {
		clock_ms += wait_ms + 1; /* a query not answered times out */
		return 0;
	}
	free(f->cur);
	f->cur = f->q[f->head];
	f->cur_len = f->qlen[f->head++];
	memcpy(mad, f->cur, FAB_MAD_SIZE);
	*status = 0;
	return 1;
}

static const uint8_t *f_answer(void *ctx, size_t *len)
{
	struct fake *f = ctx;

	*len = f->cur_len;
	return f->cur;
}

static int64_t f_now(void *ctx)
{
	(void)ctx;
	return clock_ms;
}

/* Reads the SA into a small fat tree's snapshot (hosts are nodes 3..8). */
static struct fab_snapshot *read_sa(enum mode mode, struct fake *f)
{
	struct fabfix_tree t = { .spines = 1, .leaves = 2, .hosts_per_leaf = 3, .spine_guid = 0x100,
				 .leaf_guid = 0x200, .host_guid = 0x1000, .host_step = 0x10,
				 .spine = { "s", 1 }, .leaf = { "l", 1 }, .host = { "h", 1 } };
	struct fab_snapshot *s = fabfix_fat_tree(&t);
	struct fab_mad_transport tr = { .send = f_send, .recv = f_recv, .now_ms = f_now,
					.answer = f_answer, .ctx = f };
	struct fab_madwin *mw;

	memset(f, 0, sizeof(*f));
	f->mode = mode;
	f->s = s;
	assert_int_equal(fab_snapshot_index(s), 0);
	assert_int_equal(fab_madwin_new(&tr, 8, 10, 0, &mw), 0);
	assert_int_equal(fab_scan_mcast_sa(s, mw, 1, KEY, 0), 0);
	fab_madwin_free(mw);
	free(f->cur);
	f->cur = NULL;
	while (f->head < f->tail)
		free(f->q[f->head++]);
	assert_int_equal(fab_mcast_resolve(s), 0);
	return s;
}

/* Every group and member of the truth, nothing more. */
static void same_as_truth(const struct fab_snapshot *s)
{
	const struct fab_mcast *m = s->mcast;

	assert_non_null(m);
	assert_true(m->members_read);
	assert_int_equal(m->n_groups, 4);
	assert_int_equal(m->n_members, N_TRUTH);
	for (unsigned g = 0; g < 4; g++) {
		uint8_t id[16];
		mgid(g, id);
		const struct fab_mc_group *gr = fab_mcast_group(m, id);
		assert_non_null(gr);
		assert_int_equal(gr->mlid, mlid_of[g]);
		assert_int_equal(gr->mtu, 0x84);
		assert_int_equal(gr->rate, 0x83);
		assert_int_equal(gr->qkey, 0x0b1b);
		unsigned n = 0;
		for (size_t i = 0; i < N_TRUTH; i++) {
			if (truth[i].group != g)
				continue;
			n++;
			uint32_t port = (uint32_t)(fab_snapshot_port(s, 3 + truth[i].host, 1) - s->ports);
			bool found = false;
			for (uint32_t j = gr->first; j < gr->first + gr->n; j++)
				if (m->members[j].port_idx == port) {
					assert_int_equal(m->members[j].join_state, truth[i].join);
					found = true;
				}
			assert_true(found);
		}
		assert_int_equal(gr->n, n);
	}
}

static void test_whole(void **state)
{
	struct fake f;
	struct fab_snapshot *s = read_sa(WHOLE, &f);

	(void)state;
	same_as_truth(s);
	assert_int_equal(f.n_mads, 2); /* one untrusted, one trusted GetTable */
	assert_int_equal(f.n_untrusted, 1);
	assert_int_equal(s->n_errors, 0);
	fab_snapshot_free(s);
}

static void test_cut(void **state)
{
	struct fake f;
	struct fab_snapshot *s = read_sa(CUT, &f);

	(void)state;
	same_as_truth(s);
	/* 2, MLIDs 0xc000.. up to 32 past the highest found (0xc003): 36,
	 * 4 groups (the answers of groups 0, 1 and 3 are full: 5, 3 and 4
	 * members), the ports: 6 hosts' and the 3 switches' port 0 (no
	 * SwitchInfo says whether theirs is enhanced); the answers of hosts
	 * 0 and 4 are full (4 groups each: 0, 1, 2 shown): a Get for each
	 * incomplete group neither answer showed them in: host 4 in group 3
	 * (its answer showed 0, 1, 2; group 3's hosts 0, 2, 1) */
	assert_int_equal(f.n_untrusted, 1 + 36);
	assert_int_equal(f.n_mads, 2 + 36 + 4 + N_HOSTS + 3 + 1);
	assert_int_equal(s->n_errors, 0);
	fab_snapshot_free(s);
}

static void test_no_trust(void **state)
{
	struct fake f;
	struct fab_snapshot *s = read_sa(NO_TRUST, &f);

	(void)state;
	assert_non_null(s->mcast);
	assert_false(s->mcast->members_read);   /* the groups, without members */
	assert_int_equal(s->mcast->n_groups, 4);
	assert_int_equal(s->mcast->n_members, 0);
	assert_int_equal(s->n_errors, 1);
	assert_string_equal(s->errors[0].what, "mcast");
	assert_non_null(strstr(s->errors[0].message, "FABSWEEP_SA_KEY"));
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_no_trust),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
