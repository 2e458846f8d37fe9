// SPDX-License-Identifier: MIT
/*
 * Multicast groups and their members from the subnet administrator (SA):
 * MCMemberRecord (attribute 0x38) GetTables to the master SM's LID, through
 * the MAD window, into snap->mcast (include/fabsweep/mcast.h).
 *
 * Two queries give everything where the SA's answer arrives whole (the
 * kernel reassembles RMPP segments for our SA agent, as for saquery):
 *   - with SM_Key 0 (untrusted): one record per group, members zeroed;
 *     the only way to see a group that has no member;
 *   - with the SA key (trusted, OpenSM's sa_key, default 1; set by
 *     FABSWEEP_SA_KEY): one record per member port and group, with its
 *     PortGID and JoinState.
 *
 * An answer that is one MAD holding as many records as one MAD holds, and
 * that no RMPP layer put together, may have been cut: ibsim's umad2sim
 * shim carries 256-byte MADs only, so the simulator hands over the first
 * segment of OpenSM's answer (3 records). Then the scan asks narrower, each
 * answer again judged whole or cut (docs/multicast.md, "Reading the SA"):
 *   groups:  per MLID from 0xC000 up, until 32 MLIDs past the highest seen
 *            (and past every switch's MulticastFDBTop) have none;
 *   members: per group (MGID); where a group's answer is still full, per
 *            port (PortGID: every Active CA port, and port 0 of switches
 *            that have an enhanced one), and where a port's answer is
 *            full, per (group, port) with a Get (the groups whose members
 *            are not all known, and that port is not known in).
 * On a fabric whose answers arrive whole none of this is sent.
 *
 * Failures are data: a query that gets no answer (an SA that drops SA_Key
 * queries it does not trust, an SM that is gone) is counted and named in
 * one scan_errors row ("mcast"); without the trusted answer the members are
 * unknown (mcast->members_read false), without the untrusted one nothing is
 * kept.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/mcast.h"
#include "fabsweep/routing.h"
#include "scanner/scan_priv.h"

#define ATTR_MCMEMBER 0x38
#define CM_MGID (1ull << 0)
#define CM_PORTGID (1ull << 1)
#define CM_MLID (1ull << 3)
#define SA_STATUS_NO_RECORDS 3
#define RMPP_ACTIVE 0x1
#define RMPP_FIRST 0x2
#define RMPP_LAST 0x4
#define MLID_SLACK 32 /* free MLIDs past the highest found that end the probe */
#define DEFAULT_GID_PREFIX 0xfe80000000000000ull

enum { J_GROUPS = 1, J_MEMBERS, J_MLID, J_GROUP, J_PORT, J_PAIR };
#define J(kind, a, b) ((uint64_t)(kind) << 56 | (uint64_t)((a) & 0xffffff) << 32 | (uint32_t)(b))
#define J_KIND(j) ((unsigned)((j) >> 56))
#define J_A(j) ((uint32_t)((j) >> 32) & 0xffffff)
#define J_B(j) ((uint32_t)(j))

struct grp {
	struct fab_mc_group g;
	bool complete; /* its members are all known */
};

struct mem {
	uint32_t g;
	struct fab_mc_member m;
};

struct sa {
	struct fab_snapshot *s;
	struct fab_madwin *mw;
	uint16_t lid;
	uint64_t key;
	uint64_t prefix;       /* GID prefix for PortGID queries */
	struct grp *g;
	size_t n_g, cap_g;
	uint32_t *g_hash;      /* MGID -> group index + 1 */
	size_t g_hcap;
	struct mem *m;
	size_t n_m, cap_m;
	uint32_t *m_hval;      /* (group, port GUID) -> member index + 1 */
	size_t m_hcap;
	struct fab_jobq q;
	/* the MLID probe */
	unsigned next_mlid, mlid_limit, mlid_floor;
	/* what happened */
	bool groups_ok, members_ok, groups_cut, members_cut;
	unsigned long failed[J_PAIR + 1], shared_mlid;
	uint16_t shared_example;
	int err;
};

/* ---- the collections ------------------------------------------------------ */

static uint64_t mgid_hash(const uint8_t *mgid)
{
	uint64_t a, b;

	memcpy(&a, mgid, 8);
	memcpy(&b, mgid + 8, 8);
	return a * 0x9e3779b97f4a7c15ull ^ b;
}

static int grow_hash(struct sa *c)
{
	size_t cap = c->g_hcap ? c->g_hcap * 2 : 256;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_g; i++) {
		size_t j = fab_hash_slot(mgid_hash(c->g[i].g.mgid), cap);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(c->g_hash);
	c->g_hash = h;
	c->g_hcap = cap;
	return 0;
}

/* The group of this record's MGID, added when new; FAB_NONE on ENOMEM. */
static uint32_t group_of(struct sa *c, const struct fab_mc_group *g)
{
	if (2 * (c->n_g + 1) > c->g_hcap && grow_hash(c))
		return FAB_NONE;
	size_t j = fab_hash_slot(mgid_hash(g->mgid), c->g_hcap);
	while (c->g_hash[j]) {
		uint32_t i = c->g_hash[j] - 1;
		if (!memcmp(c->g[i].g.mgid, g->mgid, 16))
			return i;
		j = (j + 1) & (c->g_hcap - 1);
	}
	struct grp *n = fab_array_grow((void **)&c->g, &c->n_g, &c->cap_g, sizeof(*n));
	if (!n)
		return FAB_NONE;
	n->g = *g;
	c->g_hash[j] = (uint32_t)c->n_g;
	return (uint32_t)(c->n_g - 1);
}

static uint64_t mkey(uint32_t g, uint64_t guid)
{
	return (guid * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)g << 40 | g);
}

/* Adds a member of group gi once. 0 or -ENOMEM. */
static int add_member(struct sa *c, uint32_t gi, const struct fab_mc_member *mb)
{
	if (2 * (c->n_m + 1) > c->m_hcap) {
		size_t cap = c->m_hcap ? c->m_hcap * 2 : 1024;
		uint32_t *v = calloc(cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < c->n_m; i++) {
			size_t j = fab_hash_slot(mkey(c->m[i].g, c->m[i].m.port_guid), cap);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = (uint32_t)i + 1;
		}
		free(c->m_hval);
		c->m_hval = v;
		c->m_hcap = cap;
	}
	size_t j = fab_hash_slot(mkey(gi, mb->port_guid), c->m_hcap);
	while (c->m_hval[j]) {
		const struct mem *x = &c->m[c->m_hval[j] - 1];
		if (x->g == gi && x->m.port_guid == mb->port_guid)
			return 0;
		j = (j + 1) & (c->m_hcap - 1);
	}
	struct mem *n = fab_array_grow((void **)&c->m, &c->n_m, &c->cap_m, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->g = gi;
	n->m = *mb;
	c->m_hval[j] = (uint32_t)c->n_m;
	return 0;
}

/* Whether group gi has a member with this port GUID already. */
static bool has_member(const struct sa *c, uint32_t gi, uint64_t guid)
{
	if (!c->m_hcap)
		return false;
	size_t j = fab_hash_slot(mkey(gi, guid), c->m_hcap);
	while (c->m_hval[j]) {
		const struct mem *x = &c->m[c->m_hval[j] - 1];
		if (x->g == gi && x->m.port_guid == guid)
			return true;
		j = (j + 1) & (c->m_hcap - 1);
	}
	return false;
}

/* ---- one answer --------------------------------------------------------------- */

/*
 * The records of a GetTable (or Get) answer: each one's group and, from a
 * trusted query, its member. *cut: the answer may hold fewer records than
 * the SA has (one MAD, full, not put together by an RMPP layer).
 */
static int take_records(struct sa *c, const uint8_t *resp, size_t len, bool trusted,
			size_t *n_out, bool *cut, uint32_t *first_group)
{
	/* the RMPP header: byte 26 RRespTime:5 RMPPFlags:3 (Active, First,
	 * Last), 32-35 PayloadLength of a first segment */
	unsigned off = mad_get_field((void *)resp, 0, IB_SA_ATTROFFS_F) * 8u;
	unsigned flags = resp[26] & 7;
	uint32_t paylen = (uint32_t)resp[32] << 24 | (uint32_t)resp[33] << 16 |
			  (uint32_t)resp[34] << 8 | resp[35];
	/* the low 7 bits: GetResp 0x01, GetTableResp 0x12 */
	unsigned method = mad_get_field((void *)resp, 0, IB_MAD_METHOD_F);
	size_t n;

	*n_out = 0;
	*cut = false;
	if (first_group)
		*first_group = FAB_NONE;
	if (len < FAB_SA_DATA_OFFS)
		return 0;
	if (method == FAB_MAD_GET) { /* a Get answers one record */
		off = FAB_MC_RECORD_SIZE;
		n = 1;
	} else if (off < FAB_MC_RECORD_SIZE) {
		return 0; /* no records */
	} else {
		n = (len - FAB_SA_DATA_OFFS) / off;
		bool whole_rmpp = (flags & (RMPP_ACTIVE | RMPP_FIRST | RMPP_LAST)) ==
				  (RMPP_ACTIVE | RMPP_FIRST | RMPP_LAST) && paylen;
		*cut = len <= FAB_MAD_SIZE && n == (FAB_MAD_SIZE - FAB_SA_DATA_OFFS) / off &&
		       !whole_rmpp;
	}
	static const uint8_t zero[16];
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = resp + FAB_SA_DATA_OFFS + i * off;
		struct fab_mc_group g;
		struct fab_mc_member mb;

		/* a record without MGID is the padding of a MAD that is not
		 * full (the simulator's are always 256 bytes): the end */
		if (fab_mc_record_decode(r, len - (size_t)(r - resp), &g, &mb) ||
		    !memcmp(g.mgid, zero, 16)) {
			*cut = false;
			n = i;
			break;
		}
		uint32_t gi = group_of(c, &g);
		if (gi == FAB_NONE)
			return -ENOMEM;
		if (first_group && *first_group == FAB_NONE)
			*first_group = gi;
		if (trusted && mb.port_guid && mb.join_state) {
			if (mb.gid_prefix)
				c->prefix = mb.gid_prefix;
			if (add_member(c, gi, &mb))
				return -ENOMEM;
		}
	}
	*n_out = n;
	return 0;
}

static void fill(struct sa *c, struct fab_mad_req *req, uint64_t job)
{
	struct fab_mc_group g = { 0 };
	struct fab_mc_member mb = { .gid_prefix = c->prefix };
	unsigned kind = J_KIND(job);

	req->mgmt_class = FAB_MAD_CLASS_SA;
	req->method = kind == J_PAIR ? FAB_MAD_GET : FAB_MAD_GETTABLE;
	req->attr_id = ATTR_MCMEMBER;
	req->dlid = c->lid;
	req->cookie = job;
	req->mkey = kind == J_GROUPS || kind == J_MLID ? 0 : c->key;
	switch (kind) {
	case J_MLID:
		g.mlid = (uint16_t)J_A(job);
		req->comp_mask = CM_MLID;
		break;
	case J_GROUP:
		g = c->g[J_A(job)].g;
		req->comp_mask = CM_MGID;
		break;
	case J_PAIR:
		g = c->g[J_A(job)].g;
		req->comp_mask = CM_MGID | CM_PORTGID;
		/* fall through */
	case J_PORT:
		mb.port_guid = c->s->ports[J_B(job)].guid;
		req->comp_mask |= CM_PORTGID;
		break;
	default:
		break;
	}
	if (req->comp_mask) {
		uint8_t rec[FAB_MC_RECORD_SIZE];
		fab_mc_record_encode(&g, &mb, rec);
		memcpy(req->data, rec, sizeof(rec));
	}
}

static int next(void *ctx, struct fab_mad_req *req)
{
	struct sa *c = ctx;
	uint64_t job;

	if (c->err)
		return c->err;
	if (fab_jobq_pop(&c->q, &job)) {
		fill(c, req, job);
		return 1;
	}
	if (c->next_mlid && c->next_mlid <= c->mlid_limit) {
		fill(c, req, J(J_MLID, c->next_mlid, 0));
		c->next_mlid++;
		return 1;
	}
	return 0;
}

static void done(void *ctx, const struct fab_mad_req *req, int err, const uint8_t *resp)
{
	struct sa *c = ctx;
	uint64_t job = req->cookie;
	unsigned kind = J_KIND(job);
	size_t n = 0;
	bool cut = false;
	uint32_t gi;

	if (err == -EREMOTEIO && resp &&
	    ((fab_mad_status(resp) >> 8) & 0xff) == SA_STATUS_NO_RECORDS)
		return; /* a Get that matched nothing: not a member */
	if (err) {
		c->failed[kind]++;
		if (kind == J_GROUP)
			c->g[J_A(job)].complete = false;
		return;
	}
	int rc = take_records(c, resp, fab_madwin_resp_len(c->mw),
			      kind != J_GROUPS && kind != J_MLID, &n, &cut, &gi);
	if (rc) {
		c->err = rc;
		return;
	}
	switch (kind) {
	case J_GROUPS:
		c->groups_ok = true;
		c->groups_cut = cut;
		break;
	case J_MEMBERS:
		c->members_ok = true;
		c->members_cut = cut;
		break;
	case J_MLID:
		if (n && J_A(job) + MLID_SLACK > c->mlid_limit)
			c->mlid_limit = J_A(job) + MLID_SLACK > FAB_MLID_LAST ? FAB_MLID_LAST
									 : J_A(job) + MLID_SLACK;
		if (cut && !c->shared_mlid++)
			c->shared_example = (uint16_t)J_A(job);
		break;
	case J_GROUP:
		c->members_ok = true;
		c->g[J_A(job)].complete = !cut;
		break;
	case J_PORT:
		/* the port is in more groups than one answer holds: ask for it
		 * in each group whose members are not all known */
		for (size_t i = 0; cut && i < c->n_g && !c->err; i++)
			if (!c->g[i].complete &&
			    !has_member(c, (uint32_t)i, c->s->ports[J_B(job)].guid) &&
			    fab_jobq_push(&c->q, J(J_PAIR, (uint32_t)i, J_B(job))))
				c->err = -ENOMEM;
		break;
	default:
		break;
	}
}

/* ---- the whole read ------------------------------------------------------------- */

static int run(struct sa *c)
{
	int rc = fab_madwin_run(c->mw, next, done, c);

	return rc ? rc : c->err;
}

static int error(struct sa *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int error(struct sa *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_snapshot_add_error(c->s, 0, -1, "mcast", "%s", msg);
}

/* Whether port p may be a member: an Active CA port, or port 0 of a switch
 * with an enhanced port 0 (a base port 0 has no multicast). */
static bool candidate(const struct fab_snapshot *s, size_t p)
{
	const struct fab_port *pt = &s->ports[p];
	const struct fab_node *n = &s->nodes[pt->node_idx];

	if (!pt->guid)
		return false;
	if (n->type != FAB_NODE_SWITCH)
		return pt->port_num && pt->state == FAB_STATE_ACTIVE;
	if (pt->port_num)
		return false;
	const struct fab_lft *l = fab_routing_lft(s, pt->node_idx);
	return !l || l->status == FAB_LFT_FAILED || (l->enforce & FAB_SWI_ENHANCED_PORT0);
}

static int cmp_mem(const void *a, const void *b)
{
	const struct mem *x = a, *y = b;

	return x->g < y->g ? -1 : x->g > y->g;
}

/* The groups and members into snap->mcast. */
static int keep(struct sa *c)
{
	struct fab_mcast *m = fab_snapshot_mcast(c->s);

	if (!m)
		return -ENOMEM;
	if (c->n_m)
		qsort(c->m, c->n_m, sizeof(*c->m), cmp_mem);
	size_t k = 0;
	for (size_t i = 0; i < c->n_g; i++) {
		struct fab_mc_group *g = fab_mcast_add_group(m);
		if (!g)
			return -ENOMEM;
		*g = c->g[i].g;
		g->first = (uint32_t)m->n_members;
		g->n = 0;
		for (; k < c->n_m && c->m[k].g == i; k++) {
			struct fab_mc_member *mb = fab_mcast_add_member(m);
			if (!mb)
				return -ENOMEM;
			*mb = c->m[k].m;
			g->n++;
		}
	}
	m->members_read = c->members_ok;
	return fab_mcast_sort(m);
}

int fab_scan_mcast_sa(struct fab_snapshot *s, struct fab_madwin *mw, uint16_t lid, uint64_t key,
		      unsigned top_hint)
{
	struct sa c = { .s = s, .mw = mw, .lid = lid, .key = key, .prefix = DEFAULT_GID_PREFIX };
	int rc;

	if ((rc = fab_jobq_push(&c.q, J(J_GROUPS, 0, 0))) || (rc = fab_jobq_push(&c.q, J(J_MEMBERS, 0, 0))) ||
	    (rc = run(&c)))
		goto out;
	if (!c.groups_ok) {
		rc = error(&c, "the SA (LID %u) did not answer the MCMemberRecord query: multicast "
			   "groups and tables were not read", lid);
		goto out;
	}
	/* the groups, per MLID, when one answer did not hold them all */
	if (c.groups_cut) {
		c.next_mlid = FAB_MLID_FIRST;
		c.mlid_limit = FAB_MLID_FIRST + MLID_SLACK - 1;
		for (size_t i = 0; i < c.n_g; i++)
			if ((unsigned)c.g[i].g.mlid + MLID_SLACK > c.mlid_limit)
				c.mlid_limit = (unsigned)c.g[i].g.mlid + MLID_SLACK;
		if (top_hint >= FAB_MLID_FIRST && top_hint > c.mlid_limit)
			c.mlid_limit = top_hint;
		if (c.mlid_limit > FAB_MLID_LAST)
			c.mlid_limit = FAB_MLID_LAST;
		if ((rc = run(&c)))
			goto out;
		c.next_mlid = 0;
	}
	/* the members, per group, then per port, when one answer did not hold them */
	bool incomplete = false;
	if (c.members_ok && !c.members_cut) {
		for (size_t i = 0; i < c.n_g; i++)
			c.g[i].complete = true;
	} else if (c.members_ok) {
		for (size_t i = 0; i < c.n_g && !rc; i++)
			rc = fab_jobq_push(&c.q, J(J_GROUP, (uint32_t)i, 0));
		if (rc || (rc = run(&c)))
			goto out;
		for (size_t i = 0; i < c.n_g; i++)
			incomplete |= !c.g[i].complete;
	}
	if (incomplete) {
		for (size_t p = 0; p < s->n_ports && !rc; p++)
			if (candidate(s, p))
				rc = fab_jobq_push(&c.q, J(J_PORT, 0, (uint32_t)p));
		if (rc || (rc = run(&c)))
			goto out;
	}
	if (!c.members_ok &&
	    (rc = error(&c, "the SA (LID %u) did not answer the trusted MCMemberRecord query: the "
			"groups' members were not read (is FABSWEEP_SA_KEY the SA's sa_key?)", lid)))
		goto out;
	unsigned long lost = c.failed[J_MLID] + c.failed[J_GROUP] + c.failed[J_PORT] + c.failed[J_PAIR];
	if (lost && (rc = error(&c, "the SA (LID %u) did not answer %lu narrower MCMemberRecord "
				"queries: the groups or members they asked for may be missing",
				lid, lost)))
		goto out;
	if (c.shared_mlid &&
	    (rc = error(&c, "MLID 0x%04x (and %lu other MLIDs) has more groups than one SA answer "
			"carries here: some of its groups may be missing", c.shared_example,
			c.shared_mlid - 1)))
		goto out;
	rc = keep(&c);
out:
	fab_jobq_free(&c.q);
	free(c.g);
	free(c.g_hash);
	free(c.m);
	free(c.m_hval);
	return rc;
}
