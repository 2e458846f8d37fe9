// SPDX-License-Identifier: MIT
/*
 * The partition verdict of every pair of a job's hosts (scanner/ready_pairs.c,
 * `fabsweep ready` and `ready --pkey`) against a computation of its own: for
 * each two hosts with a table, pair by pair, entry by entry, whether some
 * partition (the one asked for, or any) has both as members and one of them
 * as a full member (docs/partitions.md). Random tables drawn from a few
 * P_Keys, so that hosts share tables (ready judges a group of equal tables
 * once) and pairs fail in every way: no partition, the asked one missing,
 * only limited members both. Then what the list holds when it is full, and a
 * sweep without tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/pkey.h"
#include "fabsweep/probe.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "unit/snapfix.h"

#define LEAVES 4
#define PER_LEAF 5
#define N_HOSTS (LEAVES * PER_LEAF) /* 190 pairs: fewer than the list holds */
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static uint32_t rnd_state;

static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) % n;
}

/* The P_Keys a table is drawn from: the default partition both ways,
 * partitions 1-3 both ways, an empty entry, and 0x8000 (an invalid key:
 * no partition). */
static const uint16_t pool[] = { 0xffff, 0x7fff, 0x8001, 0x0001, 0x8002, 0x0002,
				 0x8003, 0x0003, 0x0000, 0x8000 };

struct job {
	struct fab_snapshot *s;
	const char *names[N_HOSTS * 2];
	char name_buf[N_HOSTS * 2][16];
	size_t n;
	struct fab_ready_hosts *h;
	struct fab_ready *r;
	/* per host (index in the hosts): its table as the test made it; NULL none */
	const struct fab_port_pkeys *tab[N_HOSTS * 2];
};

/* The hosts' port 1 tables: a few distinct tables, each host one of them;
 * some hosts have none (not read), some a failed read. */
static void make_tables(struct job *j)
{
	struct fab_pkeys *k = j->s->pkeys;
	uint16_t *distinct[6];
	uint16_t len[6];

	for (int d = 0; d < 6; d++) {
		len[d] = (uint16_t)(1 + rnd(5));
		distinct[d] = fab_pkeys_alloc(k, len[d]);
		assert_non_null(distinct[d]);
		for (unsigned e = 0; e < len[d]; e++)
			distinct[d][e] = pool[rnd(NELEM(pool))];
	}
	for (size_t i = 0; i < k->n; i++) {
		struct fab_port_pkeys *t = &k->ports[i];
		const struct fab_node *n = &j->s->nodes[j->s->ports[t->port_idx].node_idx];

		if (n->type != FAB_NODE_CA)
			continue;
		unsigned what = rnd(20);
		if (what == 0) { /* a failed read: no table */
			t->status = FAB_LFT_FAILED;
			t->n = 0;
			t->pkey = NULL;
			continue;
		}
		unsigned d = rnd(6);
		if (what == 1) { /* equal content in memory of its own */
			uint16_t *copy = fab_pkeys_alloc(k, len[d]);
			assert_non_null(copy);
			memcpy(copy, distinct[d], len[d] * sizeof(*copy));
			t->pkey = copy;
		} else {
			t->pkey = distinct[d];
		}
		t->n = len[d];
		t->status = what == 2 ? FAB_LFT_PARTIAL : FAB_LFT_OK;
	}
}

/* The hosts asked: every host of the fabric, in a shuffled order, and a
 * name the sweep does not have. */
static void make_job(struct job *j, size_t n_hosts)
{
	size_t order[N_HOSTS];

	for (size_t i = 0; i < N_HOSTS; i++)
		order[i] = i;
	for (size_t i = N_HOSTS - 1; i > 0; i--) {
		size_t x = rnd((uint32_t)i + 1), t = order[i];
		order[i] = order[x];
		order[x] = t;
	}
	j->n = 0;
	for (size_t i = 0; i < n_hosts && i < N_HOSTS; i++) {
		snprintf(j->name_buf[j->n], sizeof(j->name_buf[0]), "host%04zu", order[i] + 1);
		j->names[j->n] = j->name_buf[j->n];
		j->n++;
	}
	snprintf(j->name_buf[j->n], sizeof(j->name_buf[0]), "ghost");
	j->names[j->n] = j->name_buf[j->n];
	j->n++;
	assert_int_equal(fab_ready_hosts_new(j->names, j->n, &j->h), 0);
	assert_int_equal(fab_ready_plan(j->s, j->h, NULL, &j->r), 0);
	/* each host's table, found by its name (not through the plan) */
	for (size_t i = 0; i < j->n; i++) {
		char want[32];

		j->tab[i] = NULL;
		snprintf(want, sizeof(want), "%s HCA-1", j->names[i]);
		for (uint32_t nd = 0; nd < j->s->n_nodes; nd++) {
			if (strcmp(j->s->nodes[nd].desc, want))
				continue;
			const struct fab_port *p = fab_snapshot_port(j->s, nd, 1);
			const struct fab_port_pkeys *t = fab_pkeys_of(j->s, (uint32_t)(p - j->s->ports));
			if (t && t->status != FAB_LFT_FAILED)
				j->tab[i] = t;
		}
	}
}

/* 0 not a member, 1 limited, 2 full: the best entry of the partition. */
static int member(const struct fab_port_pkeys *t, unsigned part)
{
	int m = 0;

	for (size_t e = 0; e < t->n; e++) {
		unsigned k = t->pkey[e];
		if ((k & 0x7fff) == 0 || (k & 0x7fff) != part)
			continue;
		if (k & 0x8000)
			m = 2;
		else if (!m)
			m = 1;
	}
	return m;
}

/* Whether a and b can talk (in want, or in any of the partitions the pool
 * has); *lim: they are members of one (of want) as limited members both. */
static bool can_talk(const struct fab_port_pkeys *a, const struct fab_port_pkeys *b, unsigned want,
		     bool *lim)
{
	static const unsigned parts[] = { 1, 2, 3, 0x7fff };

	*lim = false;
	for (size_t i = 0; i < (want ? 1 : NELEM(parts)); i++) {
		unsigned part = want ? want : parts[i];
		int x = member(a, part), y = member(b, part);
		if (x && y && (x == 2 || y == 2))
			return true;
		if (x && y)
			*lim = true;
	}
	return false;
}

static const struct fab_ready_pair *listed(const struct fab_ready_pairs *p, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i < p->n_listed; i++)
		if (p->failing[i].a == a && p->failing[i].b == b)
			return &p->failing[i];
	return NULL;
}

/* fab_ready_pairs against can_talk, pair by pair. */
static void judge(struct job *j, unsigned want)
{
	struct fab_ready_pairs p;
	uint64_t n_pairs = 0, n_fail = 0;
	size_t no_table = 0;
	bool bad[N_HOSTS * 2] = { false };

	memset(j->r->verdict, FAB_READY_OK, j->r->n_hosts);
	assert_int_equal(fab_ready_pairs(j->r, j->s, want, &p), 0);
	assert_true(p.judged);
	assert_null(p.note);
	assert_int_equal(p.want, want);
	for (size_t a = 0; a < j->n; a++) {
		if (!j->tab[a]) {
			no_table++;
			continue;
		}
		for (size_t b = a + 1; b < j->n; b++) {
			bool lim;
			if (!j->tab[b])
				continue;
			n_pairs++;
			const struct fab_ready_pair *x = listed(&p, (uint32_t)a, (uint32_t)b);
			if (can_talk(j->tab[a], j->tab[b], want, &lim)) {
				if (x)
					fail_msg("want 0x%04x: %s <-> %s can talk, listed as failing", want,
						 j->names[a], j->names[b]);
				continue;
			}
			n_fail++;
			bad[a] = bad[b] = true;
			if (!x)
				fail_msg("want 0x%04x: %s <-> %s cannot talk, not listed", want, j->names[a],
					 j->names[b]);
			if (x->limited_only != lim)
				fail_msg("want 0x%04x: %s <-> %s: limited_only %d, want %d", want, j->names[a],
					 j->names[b], x->limited_only, lim);
			assert_int_equal(x->verdict, FAB_READY_NOT_READY);
			assert_int_equal(x->hop, FAB_NONE);
			assert_int_equal(x->fault, 0);
			assert_int_equal(x->at, FAB_NONE);
		}
	}
	assert_int_equal(p.n_pairs, n_pairs);
	assert_int_equal(p.n_failing, n_fail);
	assert_int_equal(p.n_listed, n_fail); /* fewer than the list holds */
	assert_int_equal(p.n_route_failing, 0);
	assert_int_equal(p.n_no_table, no_table);
	for (size_t i = 0; i < j->n; i++)
		if ((j->r->verdict[i] == FAB_READY_NOT_READY) != bad[i])
			fail_msg("want 0x%04x: %s: verdict %u, in a failing pair: %d", want, j->names[i],
				 j->r->verdict[i], bad[i]);
	fab_ready_pairs_free(&p);
}

static void test_random_tables(void **state)
{
	static const unsigned wants[] = { 0, 0x7fff, 1, 2, 3, 4 };
	unsigned n_limited = 0, n_failing = 0, n_passing = 0;

	(void)state;
	for (unsigned round = 0; round < 60; round++) {
		struct job j = { 0 };

		rnd_state = 0x5eed0000u + round;
		j.s = snapfix_fat_tree(2, LEAVES, PER_LEAF);
		assert_int_equal(fabfix_pkeys_default(j.s, NULL, 0), 0);
		make_tables(&j);
		make_job(&j, round % 3 ? N_HOSTS : 2 + round % 7);
		for (size_t w = 0; w < NELEM(wants); w++) {
			judge(&j, wants[w]);
			/* what the rounds reached, all told */
			for (size_t a = 0; a < j.n; a++)
				for (size_t b = a + 1; b < j.n; b++) {
					bool lim;
					if (!j.tab[a] || !j.tab[b])
						continue;
					if (can_talk(j.tab[a], j.tab[b], wants[w], &lim))
						n_passing++;
					else
						n_failing++, n_limited += lim;
				}
		}
		fab_ready_free(j.r);
		fab_ready_hosts_free(j.h);
		fab_snapshot_free(j.s);
	}
	/* the draws reach every verdict, many times */
	assert_true(n_passing > 1000);
	assert_true(n_failing > 1000);
	assert_true(n_limited > 100);
}

/* Written by hand: the cases docs/partitions.md names. host0001 full member
 * of the default partition, host0002-0004 limited ones; host0002 and
 * host0003 full in 0x0001, host0004 full in 0x0002. */
static void test_by_hand(void **state)
{
	static const uint16_t t1[] = { 0xffff }, t2[] = { 0x7fff, 0x8001 }, t4[] = { 0x7fff, 0x8002 };
	const char *names[] = { "host0001", "host0002", "host0003", "host0004" };
	struct fab_snapshot *s = snapfix_fat_tree(2, 2, 2);
	struct fab_ready_hosts *h;
	struct fab_ready *r;
	struct fab_ready_pairs p;
	const uint16_t *tabs[] = { t1, t2, t2, t4 };
	const uint16_t lens[] = { 1, 2, 2, 2 };
	size_t host = 0;

	(void)state;
	assert_int_equal(fabfix_pkeys_default(s, NULL, 0), 0);
	for (size_t i = 0; i < s->pkeys->n; i++) {
		struct fab_port_pkeys *t = &s->pkeys->ports[i];
		if (s->nodes[s->ports[t->port_idx].node_idx].type == FAB_NODE_CA) {
			t->pkey = tabs[host];
			t->n = lens[host++];
		}
	}
	assert_int_equal(host, 4);
	assert_int_equal(fab_ready_hosts_new(names, 4, &h), 0);
	assert_int_equal(fab_ready_plan(s, h, NULL, &r), 0);

	/* any partition: 1-x all share the default with a full member; 2-3 share
	 * 0x0001 (full); 2-4 and 3-4 only the default, limited both */
	assert_int_equal(fab_ready_pairs(r, s, 0, &p), 0);
	assert_int_equal(p.n_pairs, 6);
	assert_int_equal(p.n_failing, 2);
	assert_int_equal(p.n_listed, 2);
	assert_true(listed(&p, 1, 3) && listed(&p, 1, 3)->limited_only);
	assert_true(listed(&p, 2, 3) && listed(&p, 2, 3)->limited_only);
	assert_int_equal(r->verdict[0], FAB_READY_OK);
	assert_int_equal(r->verdict[1], FAB_READY_NOT_READY);
	fab_ready_pairs_free(&p);

	/* --pkey 0x8001 (the membership bit ignored): host0001 and host0004 are
	 * not members; 2-3 is the only pair that passes */
	memset(r->verdict, FAB_READY_OK, r->n_hosts);
	assert_int_equal(fab_ready_pairs(r, s, 0x0001, &p), 0);
	assert_int_equal(p.want, 1);
	assert_int_equal(p.n_failing, 5);
	assert_null(listed(&p, 1, 2));
	assert_false(listed(&p, 0, 1)->limited_only);
	assert_false(listed(&p, 0, 3)->limited_only);
	fab_ready_pairs_free(&p);

	/* --pkey 0x7fff: host0001 is the only full member; 2-3, 2-4, 3-4 are
	 * limited both */
	memset(r->verdict, FAB_READY_OK, r->n_hosts);
	assert_int_equal(fab_ready_pairs(r, s, 0x7fff, &p), 0);
	assert_int_equal(p.n_failing, 3);
	assert_true(listed(&p, 1, 2)->limited_only);
	assert_true(listed(&p, 1, 3)->limited_only);
	assert_true(listed(&p, 2, 3)->limited_only);
	assert_int_equal(r->verdict[0], FAB_READY_OK);
	fab_ready_pairs_free(&p);

	fab_ready_free(r);
	fab_ready_hosts_free(h);
	fab_snapshot_free(s);
}

/* A job larger than the list: every pair fails (no two hosts share a
 * partition); the count is whole, the list holds the first 256. */
static void test_list_full(void **state)
{
	enum { LV = 6, PL = 5, N = LV * PL }; /* 435 pairs */
	struct fab_snapshot *s = snapfix_fat_tree(2, LV, PL);
	char buf[N][16];
	const char *names[N];
	struct fab_ready_hosts *h;
	struct fab_ready *r;
	struct fab_ready_pairs p;
	uint16_t part = 1;

	(void)state;
	assert_int_equal(fabfix_pkeys_default(s, NULL, 0), 0);
	for (size_t i = 0; i < s->pkeys->n; i++) {
		struct fab_port_pkeys *t = &s->pkeys->ports[i];
		if (s->nodes[s->ports[t->port_idx].node_idx].type != FAB_NODE_CA)
			continue;
		uint16_t *tab = fab_pkeys_alloc(s->pkeys, 1);
		tab[0] = (uint16_t)(0x8000 | part++); /* a partition of its own */
		t->pkey = tab;
	}
	for (size_t i = 0; i < (size_t)N; i++) {
		snprintf(buf[i], sizeof(buf[i]), "host%04zu", i + 1);
		names[i] = buf[i];
	}
	assert_int_equal(fab_ready_hosts_new(names, N, &h), 0);
	assert_int_equal(fab_ready_plan(s, h, NULL, &r), 0);
	assert_int_equal(fab_ready_pairs(r, s, 0, &p), 0);
	assert_int_equal(p.n_pairs, N * (N - 1) / 2);
	assert_int_equal(p.n_failing, N * (N - 1) / 2);
	assert_int_equal(p.n_listed, FAB_READY_PAIRS_LISTED);
	for (size_t i = 0; i < p.n_listed; i++) {
		assert_true(p.failing[i].a < p.failing[i].b);
		assert_false(p.failing[i].limited_only);
	}
	for (size_t i = 0; i < (size_t)N; i++)
		assert_int_equal(r->verdict[i], FAB_READY_NOT_READY);
	fab_ready_pairs_free(&p);
	assert_null(p.failing);

	/* a sweep without tables: not judged, and says why */
	fab_pkeys_free(s->pkeys);
	s->pkeys = NULL;
	memset(r->verdict, FAB_READY_OK, r->n_hosts);
	assert_int_equal(fab_ready_pairs(r, s, 0, &p), 0);
	assert_false(p.judged);
	assert_non_null(p.note);
	assert_non_null(strstr(p.note, "no P_Key tables"));
	assert_int_equal(p.n_pairs, 0);
	assert_int_equal(p.n_failing, 0);
	assert_int_equal(r->verdict[0], FAB_READY_OK);
	fab_ready_pairs_free(&p);
	fab_ready_free(r);
	fab_ready_hosts_free(h);
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_random_tables),
		cmocka_unit_test(test_list_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
