// SPDX-License-Identifier: MIT
/*
 * The multicast part of a snapshot (include/fabsweep/mcast.h): groups and
 * their members as the SA gives them, the switches' multicast forwarding
 * tables, MGID and rate names, and the decoders of the records and blocks
 * the fabric answers with. The trees are core/mcast_tree.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"

struct fab_mcast *fab_mcast_new(void)
{
	struct fab_mcast *m = calloc(1, sizeof(*m));

	if (m && !(m->arena = fab_arena_new())) {
		free(m);
		return NULL;
	}
	return m;
}

void fab_mcast_free(struct fab_mcast *m)
{
	if (!m)
		return;
	free(m->groups);
	free(m->members);
	free(m->mfts);
	free(m->by_mlid);
	fab_arena_free(m->arena);
	free(m);
}

struct fab_mcast *fab_snapshot_mcast(struct fab_snapshot *snap)
{
	if (!snap->mcast)
		snap->mcast = fab_mcast_new();
	return snap->mcast;
}

bool fab_mcast_present(const struct fab_snapshot *snap)
{
	return snap->mcast != NULL;
}

struct fab_mc_group *fab_mcast_add_group(struct fab_mcast *m)
{
	return fab_array_grow((void **)&m->groups, &m->n_groups, &m->cap_groups, sizeof(*m->groups));
}

struct fab_mc_member *fab_mcast_add_member(struct fab_mcast *m)
{
	struct fab_mc_member *mb = fab_array_grow((void **)&m->members, &m->n_members,
						  &m->cap_members, sizeof(*m->members));
	if (mb)
		mb->port_idx = FAB_NONE;
	return mb;
}

struct fab_mft *fab_mcast_add_mft(struct fab_mcast *m)
{
	return fab_array_grow((void **)&m->mfts, &m->n_mfts, &m->cap_mfts, sizeof(*m->mfts));
}

void *fab_mcast_alloc(struct fab_mcast *m, size_t n)
{
	void *p = fab_arena_alloc(m->arena, n ? n : 1);

	if (p)
		memset(p, 0, n);
	return p;
}

/* ---- sorting and lookups -------------------------------------------------- */

static const struct fab_mcast *sort_m; /* qsort has no context */

static int cmp_group(const void *a, const void *b)
{
	return memcmp(sort_m->groups[*(const uint32_t *)a].mgid,
		      sort_m->groups[*(const uint32_t *)b].mgid, 16);
}

static int cmp_member(const void *a, const void *b)
{
	uint64_t x = ((const struct fab_mc_member *)a)->port_guid;
	uint64_t y = ((const struct fab_mc_member *)b)->port_guid;

	return x < y ? -1 : x > y;
}

static int cmp_mlid(const void *a, const void *b)
{
	const struct fab_mc_group *x = &sort_m->groups[*(const uint32_t *)a];
	const struct fab_mc_group *y = &sort_m->groups[*(const uint32_t *)b];

	if (x->mlid != y->mlid)
		return x->mlid < y->mlid ? -1 : 1;
	return memcmp(x->mgid, y->mgid, 16);
}

int fab_mcast_sort(struct fab_mcast *m)
{
	size_t ng = m->n_groups;
	uint32_t *order = malloc((ng + 1) * sizeof(*order));
	struct fab_mc_group *g = malloc((ng + 1) * sizeof(*g));
	struct fab_mc_member *mb = malloc((m->n_members + 1) * sizeof(*mb));
	uint32_t *by = malloc((ng + 1) * sizeof(*by));

	if (!order || !g || !mb || !by) {
		free(order);
		free(g);
		free(mb);
		free(by);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ng; i++)
		order[i] = (uint32_t)i;
	sort_m = m;
	qsort(order, ng, sizeof(*order), cmp_group);
	size_t n = 0;
	for (size_t i = 0; i < ng; i++) {
		const struct fab_mc_group *src = &m->groups[order[i]];

		g[i] = *src;
		g[i].first = (uint32_t)n;
		if (src->n)
			memcpy(mb + n, m->members + src->first, src->n * sizeof(*mb));
		qsort(mb + n, src->n, sizeof(*mb), cmp_member);
		n += src->n;
	}
	free(m->groups);
	free(m->members);
	free(m->by_mlid);
	m->groups = g;
	m->cap_groups = ng + 1;
	m->members = mb;
	m->n_members = n;
	m->cap_members = n + 1;
	for (size_t i = 0; i < ng; i++)
		by[i] = (uint32_t)i;
	qsort(by, ng, sizeof(*by), cmp_mlid);
	m->by_mlid = by;
	free(order);
	return 0;
}

size_t fab_mcast_groups_of(const struct fab_mcast *m, unsigned mlid, size_t *first)
{
	size_t lo = 0, hi = m && m->by_mlid ? m->n_groups : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->groups[m->by_mlid[mid]].mlid < mlid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	size_t n = 0;
	while (m && m->by_mlid && lo + n < m->n_groups && m->groups[m->by_mlid[lo + n]].mlid == mlid)
		n++;
	return n;
}

const struct fab_mc_group *fab_mcast_group(const struct fab_mcast *m, const uint8_t mgid[16])
{
	size_t lo = 0, hi = m ? m->n_groups : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(m->groups[mid].mgid, mgid, 16);
		if (!c)
			return &m->groups[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct fab_mft *fab_mcast_mft(const struct fab_mcast *m, uint32_t node_idx)
{
	size_t lo = 0, hi = m ? m->n_mfts : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->mfts[mid].node_idx < node_idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return m && lo < m->n_mfts && m->mfts[lo].node_idx == node_idx ? &m->mfts[lo] : NULL;
}

/* The index in t->block of block b, or -1. */
static long block_index(const struct fab_mft *t, unsigned b)
{
	size_t lo = 0, hi = t->n_blocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->block[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n_blocks && t->block[lo] == b ? (long)lo : -1;
}

int fab_mft_entry(const struct fab_mft *t, unsigned mlid, uint16_t masks[FAB_MFT_MAX_POS])
{
	long bi;

	memset(masks, 0, FAB_MFT_MAX_POS * sizeof(*masks));
	if (!t || mlid < FAB_MLID_FIRST || mlid > FAB_MLID_LAST || !t->n_blocks ||
	    (bi = block_index(t, (mlid - FAB_MLID_FIRST) / FAB_MFT_BLOCK)) < 0)
		return -1;
	unsigned slot = (mlid - FAB_MLID_FIRST) % FAB_MFT_BLOCK;
	int all = 1;
	for (unsigned p = 0; p < t->n_pos && p < FAB_MFT_MAX_POS; p++) {
		uint8_t r = t->read[(size_t)bi * t->n_pos + p];
		if (r == FAB_MFT_UNREAD)
			all = 0;
		else if (r == FAB_MFT_READ)
			masks[p] = t->mask[((size_t)bi * FAB_MFT_BLOCK + slot) * t->n_pos + p];
	}
	return all;
}

int fab_mft_has_port(const struct fab_mft *t, unsigned mlid, unsigned port)
{
	uint16_t m[FAB_MFT_MAX_POS];
	unsigned p = port / FAB_MFT_POS_PORTS;

	if (fab_mft_entry(t, mlid, m) < 0)
		return -1;
	if (p >= t->n_pos)
		return 0;
	if (t->read[(size_t)block_index(t, (mlid - FAB_MLID_FIRST) / FAB_MFT_BLOCK) * t->n_pos + p] ==
	    FAB_MFT_UNREAD)
		return -1;
	return (m[p] >> (port % FAB_MFT_POS_PORTS)) & 1;
}

/* ---- members to ports ------------------------------------------------------ */

struct gp {
	uint64_t guid;
	uint32_t port;
};

static int cmp_gp(const void *a, const void *b)
{
	const struct gp *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

int fab_mcast_resolve(struct fab_snapshot *snap)
{
	struct fab_mcast *m = snap->mcast;
	struct gp *v;
	size_t n = 0;

	if (!m || !m->n_members)
		return 0;
	if (!(v = malloc((snap->n_ports + 1) * sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < snap->n_ports; i++) {
		const struct fab_port *p = &snap->ports[i];
		const struct fab_node *nd = &snap->nodes[p->node_idx];

		/* the ports that own a GID: CA and router ports, a switch's port 0 */
		if (!p->guid || (nd->type == FAB_NODE_SWITCH && p->port_num))
			continue;
		v[n++] = (struct gp){ .guid = p->guid, .port = (uint32_t)i };
	}
	qsort(v, n, sizeof(*v), cmp_gp);
	for (size_t i = 0; i < m->n_members; i++) {
		struct fab_mc_member *mb = &m->members[i];
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].guid < mb->port_guid)
				lo = mid + 1;
			else
				hi = mid;
		}
		mb->port_idx = lo < n && v[lo].guid == mb->port_guid ? v[lo].port : FAB_NONE;
	}
	free(v);
	return 0;
}

/* ---- names ------------------------------------------------------------------ */

const char *fab_mgid_format(const uint8_t mgid[16], char buf[FAB_MGID_STRLEN])
{
	if (!inet_ntop(AF_INET6, mgid, buf, FAB_MGID_STRLEN))
		buf[0] = 0;
	return buf;
}

int fab_mgid_parse(const char *s, uint8_t out[16])
{
	uint8_t v[16];

	if (!s || inet_pton(AF_INET6, s, v) != 1)
		return -EINVAL;
	memcpy(out, v, 16);
	return 0;
}

/* ff1S:SSSS:PPPP: an IPoIB group's signature (401b IPv4, 601b IPv6) and
 * P_Key; the flags nibble 1 (transient), any scope. */
static bool ipoib_prefix(const uint8_t mgid[16], uint16_t *pkey, bool *v4)
{
	if (mgid[0] != 0xff || (mgid[1] >> 4) != 1 || mgid[2] == 0 ||
	    !((mgid[2] == 0x40 || mgid[2] == 0x60) && mgid[3] == 0x1b))
		return false;
	if (pkey)
		*pkey = (uint16_t)(mgid[4] << 8 | mgid[5]);
	*v4 = mgid[2] == 0x40;
	return true;
}

bool fab_mgid_ipoib(const uint8_t mgid[16], uint16_t *pkey)
{
	bool v4;

	return ipoib_prefix(mgid, pkey, &v4);
}

bool fab_mgid_ipoib_broadcast(const uint8_t mgid[16], uint16_t *pkey)
{
	static const uint8_t tail[10] = { 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	bool v4;

	return ipoib_prefix(mgid, pkey, &v4) && v4 && !memcmp(mgid + 6, tail, sizeof(tail));
}

/* IBTA rate codes (PathRecord/MCMemberRecord Rate, ibv_rate) in Gb/s. */
static const double rate_gbps[] = {
	[2] = 2.5, [3] = 10, [4] = 30, [5] = 5, [6] = 20, [7] = 40, [8] = 60, [9] = 80,
	[10] = 120, [11] = 14, [12] = 56, [13] = 112, [14] = 168, [15] = 25, [16] = 100,
	[17] = 200, [18] = 300, [19] = 28, [20] = 50, [21] = 400, [22] = 600, [23] = 800,
	[24] = 1200,
};

double fab_mc_rate_gbps(unsigned code)
{
	code &= 0x3f;
	return code < ARRAY_SIZE(rate_gbps) ? rate_gbps[code] : 0;
}

unsigned fab_mc_mtu_bytes(unsigned code)
{
	return fab_mtu_bytes(code & 0x3f);
}

/* ---- decoders ------------------------------------------------------------------ */

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* MCMemberRecord (IBA 15.2.5.17): MGID 0-15, PortGID 16-31, Q_Key 32-35,
 * MLID 36-37, MTU 38, TClass 39, P_Key 40-41, Rate 42, PacketLifeTime 43,
 * SL:4 FlowLabel:20 HopLimit:8 44-47, Scope:4 JoinState:4 48,
 * ProxyJoin:1 49 (the top bit; OpenSM sets the low one). */
int fab_mc_record_decode(const uint8_t *r, size_t len, struct fab_mc_group *g,
			 struct fab_mc_member *mb)
{
	if (!r || len < FAB_MC_RECORD_SIZE)
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	memcpy(g->mgid, r, 16);
	g->qkey = (uint32_t)r[32] << 24 | (uint32_t)r[33] << 16 | (uint32_t)r[34] << 8 | r[35];
	g->mlid = (uint16_t)(r[36] << 8 | r[37]);
	g->mtu = r[38];
	g->tclass = r[39];
	g->pkey = (uint16_t)(r[40] << 8 | r[41]);
	g->rate = r[42];
	g->pkt_life = r[43];
	uint32_t w = (uint32_t)r[44] << 24 | (uint32_t)r[45] << 16 | (uint32_t)r[46] << 8 | r[47];
	g->sl = (uint8_t)(w >> 28);
	g->flow_label = (w >> 8) & 0xfffff;
	g->hop_limit = (uint8_t)w;
	g->scope = r[48] >> 4;
	if (mb) {
		memset(mb, 0, sizeof(*mb));
		mb->gid_prefix = be64(r + 16);
		mb->port_guid = be64(r + 24);
		mb->join_state = r[48] & 0x0f;
		/* ProxyJoin is the top bit of byte 49; OpenSM writes it as the
		 * low one (a C bit-field): either */
		mb->proxy = (r[49] & 0x81) != 0;
		mb->port_idx = FAB_NONE;
	}
	return 0;
}

void fab_mc_record_encode(const struct fab_mc_group *g, const struct fab_mc_member *mb,
			  uint8_t r[FAB_MC_RECORD_SIZE])
{
	memset(r, 0, FAB_MC_RECORD_SIZE);
	memcpy(r, g->mgid, 16);
	if (mb) {
		put_be64(r + 16, mb->gid_prefix);
		put_be64(r + 24, mb->port_guid);
		r[48] = mb->join_state & 0x0f;
		r[49] = mb->proxy ? 0x80 : 0;
	}
	r[32] = (uint8_t)(g->qkey >> 24);
	r[33] = (uint8_t)(g->qkey >> 16);
	r[34] = (uint8_t)(g->qkey >> 8);
	r[35] = (uint8_t)g->qkey;
	r[36] = (uint8_t)(g->mlid >> 8);
	r[37] = (uint8_t)g->mlid;
	r[38] = g->mtu;
	r[39] = g->tclass;
	r[40] = (uint8_t)(g->pkey >> 8);
	r[41] = (uint8_t)g->pkey;
	r[42] = g->rate;
	r[43] = g->pkt_life;
	uint32_t w = (uint32_t)(g->sl & 0xf) << 28 | (g->flow_label & 0xfffff) << 8 | g->hop_limit;
	r[44] = (uint8_t)(w >> 24);
	r[45] = (uint8_t)(w >> 16);
	r[46] = (uint8_t)(w >> 8);
	r[47] = (uint8_t)w;
	r[48] |= (uint8_t)(g->scope << 4);
}

void fab_mft_block_decode(const uint8_t data[64], uint16_t masks[FAB_MFT_BLOCK])
{
	for (unsigned i = 0; i < FAB_MFT_BLOCK; i++)
		masks[i] = (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
}
