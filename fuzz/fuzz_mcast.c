// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what the scanner decodes of multicast: the SA's
 * MCMemberRecord answers (scanner/mcast_sa.c: whole or cut, RMPP flags,
 * attribute offsets, records, statuses, the narrower queries they lead to),
 * and MulticastForwardingTable blocks judged as trees (core/mcast_tree.c).
 *
 * The fuzzer's bytes play the SA of a small fat tree (2 leaves x 3 hosts,
 * 1 spine). Every query the scanner sends gets, by its control byte:
 * nothing (a loss), an error status, or an answer of n records (the next
 * byte) of 56 bytes each from the input, with an attribute offset, RMPP
 * flags and a payload length from the input, handed over whole (longer
 * than 256 bytes when it holds more than 3) or cut to 256. A record's
 * PortGID interface ID is replaced, when its byte says so, by one of the
 * hosts' port GUIDs, so that members land on ports. Then: the groups must
 * be sorted and distinct, each group's members sorted, distinct and in
 * bounds, MGIDs format as text. Then the remaining bytes fill the switches'
 * tables (block 0: 32 MLIDs) and every MLID's tree is built: its counts and
 * indices must stay in bounds, a loop's ports be switch ports.
 *
 * Input layout: 1 config byte (window 1-8), then one control byte (+ its
 * answer) per query, then the tables' masks. Seeds: fuzz/corpus/mcast/.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/mcast.h"
#include "fabsweep/snapshot.h"
#include "fuzz/fuzzcheck.h"
#include "scanner/madwin.h"
#include "scanner/scan_priv.h"
#include "tests/fabfix/fabfix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define QMAX 64

struct sa {
	struct fuzz_in in;
	const struct fab_snapshot *s;
	int64_t now;
	uint8_t *q[QMAX];
	size_t qlen[QMAX];
	int head, tail;
	uint8_t *cur;
	size_t cur_len;
	unsigned long queries;
};

static int f_send(void *ctx, const uint8_t *mad, const struct fab_mad_req *req, int timeout_ms)
{
	struct sa *f = ctx;
	uint8_t ctl = fuzz_u8(&f->in);

	(void)req;
	(void)timeout_ms;
	if (++f->queries > 2000 || !fuzz_left(&f->in) || (ctl & 3) == 0 || f->tail - f->head >= QMAX)
		return 0; /* lost (and every query once the input is used up) */
	unsigned n = fuzz_u8(&f->in) % 12;
	size_t len = FAB_SA_DATA_OFFS + 56 * (size_t)n;
	if (len < FAB_MAD_SIZE || (ctl & 4))
		len = FAB_MAD_SIZE; /* cut as the simulator's shim cuts */
	uint8_t *a = calloc(1, len);
	if (!a)
		return -ENOMEM;
	memcpy(a, mad, FAB_SA_DATA_OFFS);
	mad_set_field(a, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(a, 0, IB_MAD_METHOD_F, fuzz_u8(&f->in) & 1 ? FAB_MAD_GETTABLE : FAB_MAD_GET);
	if ((ctl & 3) == 1)
		mad_set_field(a, 0, IB_MAD_STATUS_F, (unsigned)fuzz_u8(&f->in) << 8);
	mad_set_field(a, 0, IB_SA_ATTROFFS_F, fuzz_u8(&f->in) & 15);
	a[26] = fuzz_u8(&f->in);
	fuzz_bytes(&f->in, a + 32, 4);
	for (unsigned i = 0; i < n && FAB_SA_DATA_OFFS + 56 * (i + 1) <= len; i++) {
		uint8_t *r = a + FAB_SA_DATA_OFFS + 56 * i;
		fuzz_bytes(&f->in, r, 52);
		if (r[24] & 0x80) { /* a host's port GUID */
			uint64_t g = f->s->ports[fab_snapshot_port(f->s, 3 + r[25] % 6, 1) - f->s->ports].guid;
			for (int k = 0; k < 8; k++)
				r[24 + k] = (uint8_t)(g >> (56 - 8 * k));
		}
	}
	f->q[f->tail % QMAX] = a;
	f->qlen[f->tail % QMAX] = len;
	f->tail++;
	return 0;
}

static int f_recv(void *ctx, uint8_t *mad, int *status, int wait_ms)
{
	struct sa *f = ctx;

	if (f->head == f->tail) {
		f->now += wait_ms + 1;
		return 0;
	}
	free(f->cur);
	f->cur = f->q[f->head % QMAX];
	f->cur_len = f->qlen[f->head % QMAX];
	f->head++;
	memcpy(mad, f->cur, FAB_MAD_SIZE);
	*status = 0;
	return 1;
}

static const uint8_t *f_answer(void *ctx, size_t *len)
{
	struct sa *f = ctx;

	*len = f->cur_len;
	return f->cur;
}

static int64_t f_now(void *ctx)
{
	return ((struct sa *)ctx)->now;
}

static void check_groups(const struct fab_snapshot *s)
{
	const struct fab_mcast *m = s->mcast;
	size_t members = 0;
	char text[FAB_MGID_STRLEN];

	if (!m)
		return;
	for (size_t i = 0; i < m->n_groups; i++) {
		const struct fab_mc_group *g = &m->groups[i];
		FUZZ_REQUIRE(!i || memcmp(m->groups[i - 1].mgid, g->mgid, 16) < 0);
		FUZZ_REQUIRE(g->first + (size_t)g->n <= m->n_members);
		FUZZ_REQUIRE(g->first == members);
		members += g->n;
		for (uint32_t j = 1; j < g->n; j++)
			FUZZ_REQUIRE(m->members[g->first + j - 1].port_guid < m->members[g->first + j].port_guid);
		for (uint32_t j = 0; j < g->n; j++) {
			const struct fab_mc_member *mb = &m->members[g->first + j];
			FUZZ_REQUIRE(mb->join_state && mb->join_state <= 15 && mb->port_guid);
			FUZZ_REQUIRE(mb->port_idx == FAB_NONE || (mb->port_idx < s->n_ports &&
								s->ports[mb->port_idx].guid == mb->port_guid));
		}
		fab_mgid_format(g->mgid, text);
		FUZZ_REQUIRE(text[0] && fuzz_text_is_safe(text));
		FUZZ_REQUIRE(fab_mcast_group(m, g->mgid) == g);
	}
	FUZZ_REQUIRE(members == m->n_members);
	FUZZ_REQUIRE(m->members_read || !m->n_members);
}

static void check_trees(struct fab_snapshot *s, struct fuzz_in *in)
{
	uint16_t *mlids;
	size_t n;

	/* every switch's block 0 from the input, beside the SA's groups */
	if (fabfix_mcast_tables(s, FAB_MFT_BLOCK))
		return;
	for (size_t i = 0; i < s->mcast->n_mfts; i++) {
		struct fab_mft *t = &s->mcast->mfts[i];
		for (unsigned p = 0; p < t->n_pos; p++) {
			uint8_t raw[64];
			uint16_t masks[FAB_MFT_BLOCK];
			fuzz_bytes(in, raw, sizeof(raw));
			fab_mft_block_decode(raw, masks);
			for (unsigned k = 0; k < FAB_MFT_BLOCK; k++)
				((uint16_t *)t->mask)[k * t->n_pos + p] = masks[k];
			((uint8_t *)t->read)[p] = (uint8_t)(fuzz_u8(in) % 3);
		}
	}
	if (fab_mcast_mlids(s, &mlids, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		struct fab_mc_tree t;
		if (fab_mc_tree_build(s, mlids[i], &t))
			break;
		FUZZ_REQUIRE(t.n_reach + t.n_absent <= s->mcast->n_members);
		for (size_t k = 0; k < t.n_ports; k++)
			FUZZ_REQUIRE(t.ports[k] < s->n_ports);
		for (size_t k = 0; k < t.n_reach; k++)
			FUZZ_REQUIRE(t.reach[k].port < s->n_ports && t.reach[k].unreached_from < s->mcast->n_members);
		for (size_t k = 0; k < t.n_loop; k++)
			FUZZ_REQUIRE(t.loop[k] < s->n_ports &&
				     s->nodes[s->ports[t.loop[k]].node_idx].type == FAB_NODE_SWITCH);
		fab_mc_tree_free(&t);
	}
	free(mlids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabfix_tree tr = { .spines = 1, .leaves = 2, .hosts_per_leaf = 3, .spine_guid = 0x100,
				  .leaf_guid = 0x200, .host_guid = 0x1000, .host_step = 0x10,
				  .spine = { "s", 1 }, .leaf = { "l", 1 }, .host = { "h", 1 } };
	struct sa f = { .in = { .p = data, .len = size } };
	struct fab_snapshot *s = fabfix_fat_tree(&tr);
	struct fab_mad_transport t = { .send = f_send, .recv = f_recv, .now_ms = f_now,
				       .answer = f_answer, .ctx = &f };
	struct fab_madwin *mw = NULL;

	if (!s || fab_snapshot_index(s))
		abort();
	f.s = s;
	if (fab_madwin_new(&t, 1 + fuzz_u8(&f.in) % 8, 10, 1, &mw))
		abort();
	if (!fab_scan_mcast_sa(s, mw, 1, 1, 0)) {
		FUZZ_REQUIRE(!fab_mcast_resolve(s));
		check_groups(s);
		for (size_t i = 0; i < s->n_errors; i++)
			FUZZ_REQUIRE(fuzz_text_is_safe(s->errors[i].message));
		check_trees(s, &f.in);
	}
	fab_madwin_free(mw);
	free(f.cur);
	while (f.head < f.tail)
		free(f.q[f.head++ % QMAX]);
	fab_snapshot_free(s);
	return 0;
}
