// SPDX-License-Identifier: MIT
/*
 * fab_store_load_view(): the part of a snapshot around some channel
 * adapters (`ready`) or along a route (`route`). This file only chooses the
 * part: the CAs picked (and for a route the switches asked for), and at the
 * other end of their links the ports cabled to them and port 0. The rows are
 * read by the one loader (store/snapshot_load.c) over those key ranges, so
 * the cost grows with the CAs picked, not with the fabric.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_view.h"
#include "store_priv.h"

#define NOMEM() fab_err(-ENOMEM, "out of memory")
/* The scan whose node and port rows scan ?1 has: its own, or for a watch
 * sweep the full scan it follows (docs/watch.md). */
#define TOPOLOGY "(SELECT coalesce(topology_scan_id, scan_id) FROM scans WHERE scan_id=?1)"

struct ranges {
	struct fab_load_range *v;
	size_t n, cap;
};

static int add(struct ranges *r, int64_t node, int port_lo, int port_hi)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 64;
		struct fab_load_range *t = realloc(r->v, ncap * sizeof(*t));
		if (!t)
			return NOMEM();
		r->v = t;
		r->cap = ncap;
	}
	r->v[r->n++] = (struct fab_load_range){ node, port_lo, port_hi };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct fab_load_range *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->port_lo != y->port_lo)
		return x->port_lo < y->port_lo ? -1 : 1;
	return y->port_hi - x->port_hi; /* the whole node first */
}

/* Sorts and drops what an earlier range of the same node covers. */
static void normalize(struct ranges *r)
{
	size_t k = 0;

	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), cmp_range);
	for (size_t i = 0; i < r->n; i++) {
		const struct fab_load_range *c = &r->v[i], *p = k ? &r->v[k - 1] : NULL;

		if (p && p->node == c->node && p->port_hi >= c->port_lo)
			continue; /* inside the one before (the whole node, or the same port) */
		r->v[k++] = *c;
	}
	r->n = k;
}

static int db_err(struct fab_store *st, const char *what)
{
	return fab_err(-EIO, "database '%s': %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

/*
 * Ranges by GUID: the nodes guids[0..n) name, whole (only switches with
 * switches_only), or when guids is NULL the ports keys[0..n) name, one
 * port each. Normalized.
 */
static int by_guid(struct fab_store *st, int64_t scan, bool switches_only, const uint64_t *guids,
		   const struct fab_store_port_key *keys, size_t n, struct ranges *r)
{
	sqlite3_stmt *q = NULL;
	int err = 0, rc = SQLITE_DONE;

	if (!n)
		return 0;
	/* node_rows by its GUID index (the nodes view's join would walk every
	 * node of the scan for each GUID) */
	if ((err = fab_sql_scan_query(st, switches_only
				      ? "SELECT node_idx FROM node_rows WHERE scan_id=" TOPOLOGY
					" AND node_guid=?2 AND node_type='switch'"
				      : "SELECT node_idx FROM node_rows WHERE scan_id=" TOPOLOGY
					" AND node_guid=?2",
				      scan, &q)))
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		fab_sql_bind_guid(q, 2, guids ? guids[i] : keys[i].guid);
		while (!err && (rc = sqlite3_step(q)) == SQLITE_ROW)
			err = add(r, sqlite3_column_int64(q, 0), guids ? 0 : keys[i].port,
				  guids ? 255 : keys[i].port);
		sqlite3_reset(q);
		if (!err && rc != SQLITE_DONE)
			break;
	}
	if ((err = fab_sql_done(st, q, err ? SQLITE_DONE : rc, err)))
		return err;
	normalize(r);
	return 0;
}

/* What a view is made of (the functions below fill it). */
struct view_spec {
	fab_store_view_want_fn want;  /* the CAs, with the ports at the other end */
	void *ctx;
	const uint64_t *guids;        /* more nodes so, whole */
	size_t n_guids;
	const uint64_t *switches;     /* switches whole, nothing around them */
	size_t n_switches;
	/* unless judge (or FAB_LOAD_NO_SAMPLES), every port's samples are read */
	const struct fab_store_port_key *sampled;
	size_t n_sampled;
	bool judge; /* the samples of the CAs' part and sampled only */
	bool peers_whole; /* the switches cabled to the CAs, whole */
	unsigned parts;
};

/* The CAs v->want picks and the nodes v->guids names, all their ports; the
 * ports at the other end of their links and port 0 of those nodes (a
 * switch's LID and CapabilityMask); with v->peers_whole, a switch at the
 * other end is also added whole to *whole. */
static int pick(struct fab_store *st, int64_t scan, const struct view_spec *v, struct ranges *r,
		struct ranges *whole)
{
	sqlite3_stmt *q = NULL, *peers = NULL;
	size_t n_ca;
	int err, rc;

	if (v->want && (err = fab_sql_scan_query(st, "SELECT node_idx, node_guid, description FROM nodes"
						 " WHERE scan_id=?1 AND node_type='ca' ORDER BY node_idx",
						 scan, &q)))
		return err;
	while (v->want && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *d = fab_sql_text(q, 2);
		if (v->want(fab_sql_guid(q, 1), d ? d : "", v->ctx) &&
		    (err = add(r, sqlite3_column_int64(q, 0), 0, 255)))
			break;
	}
	if ((v->want && (err = fab_sql_done(st, q, rc, err))) ||
	    (err = by_guid(st, scan, false, v->guids, NULL, v->n_guids, r)))
		return err;
	n_ca = r->n;
	if ((err = fab_sql_scan_query(st, "SELECT p.remote_node_idx, p.remote_port, n.node_type"
				      " FROM port_rows p JOIN node_rows n ON n.scan_id = p.scan_id"
				      " AND n.node_idx = p.remote_node_idx"
				      " WHERE p.scan_id=" TOPOLOGY " AND p.node_idx=?2 AND p.port_num > 0",
				      scan, &peers)))
		return err;
	for (size_t i = 0; i < n_ca && !err; i++) {
		sqlite3_bind_int64(peers, 2, r->v[i].node);
		while (!err && (rc = sqlite3_step(peers)) == SQLITE_ROW) {
			int64_t rn = sqlite3_column_int64(peers, 0);
			int rp = sqlite3_column_int(peers, 1);
			const char *type = fab_sql_text(peers, 2);
			if (!(err = add(r, rn, rp, rp)))
				err = add(r, rn, 0, 0);
			if (!err && v->peers_whole && type && !strcmp(type, "switch"))
				err = add(whole, rn, 0, 255);
		}
		sqlite3_reset(peers);
		if (!err && rc != SQLITE_DONE)
			err = db_err(st, "read");
	}
	sqlite3_finalize(peers);
	if (!err)
		normalize(r);
	return err;
}

static int load_view(struct fab_store *st, int64_t scan_id, const struct view_spec *v,
		     struct fab_snapshot **out)
{
	struct ranges r = { 0 }, smp = { 0 }, whole = { 0 };
	bool some = v->judge;
	int err;

	if ((err = fab_store_resolve_scan(st, scan_id, &scan_id)) ||
	    (err = fab_store_exec(st, "BEGIN", "begin a read")))
		return err;
	err = pick(st, scan_id, v, &r, &whole);
	for (size_t i = 0; some && !err && i < r.n; i++)
		err = add(&smp, r.v[i].node, r.v[i].port_lo, r.v[i].port_hi);
	if (!err && some)
		err = by_guid(st, scan_id, false, NULL, v->sampled, v->n_sampled, &smp);
	if (!err)
		err = by_guid(st, scan_id, true, v->switches, NULL, v->n_switches, &whole);
	for (size_t i = 0; !err && i < whole.n; i++)
		err = add(&r, whole.v[i].node, 0, 255);
	if (!err)
		normalize(&r);
	if (!err && !r.n) /* nothing picked: an empty view (node -1 does not exist) */
		err = add(&r, -1, 0, 0);
	if (!err)
		err = fab_store_load_part(st, scan_id, r.v, r.n, some ? (smp.v ? smp.v : r.v) : NULL,
					  smp.n, v->parts, out);
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	free(r.v);
	free(smp.v);
	free(whole.v);
	return err;
}

int fab_store_load_view(struct fab_store *st, int64_t scan_id, fab_store_view_want_fn want,
			void *ctx, struct fab_snapshot **out)
{
	struct view_spec v = { .want = want, .ctx = ctx, .parts = FAB_LOAD_FINDINGS | FAB_LOAD_PKEYS };

	return load_view(st, scan_id, &v, out);
}

int fab_store_load_paths_view(struct fab_store *st, int64_t scan_id, fab_store_view_want_fn want,
			      void *ctx, const struct fab_store_paths *paths, struct fab_snapshot **out)
{
	struct view_spec v = {
		.want = paths->cas ? NULL : want, .ctx = ctx, .guids = paths->cas, .n_guids = paths->n_cas,
		.switches = paths->switches, .n_switches = paths->n_switches,
		.sampled = paths->sampled, .n_sampled = paths->n_sampled, .judge = paths->judge,
		.peers_whole = true,
		.parts = FAB_LOAD_ROUTING | (paths->judge ? FAB_LOAD_FINDINGS | FAB_LOAD_PKEYS
							  : FAB_LOAD_NO_SAMPLES),
	};

	return load_view(st, scan_id, &v, out);
}

int fab_store_load_route_view(struct fab_store *st, int64_t scan_id, fab_store_view_want_fn want,
			      void *ctx, const uint64_t *guids, size_t n_guids,
			      struct fab_snapshot **out)
{
	struct view_spec v = { .want = want, .ctx = ctx, .guids = guids, .n_guids = n_guids,
			       .parts = FAB_LOAD_ROUTING };

	return load_view(st, scan_id, &v, out);
}

int fab_store_lid_node(struct fab_store *st, int64_t scan_id, unsigned lid, uint64_t *guid)
{
	sqlite3_stmt *q = NULL;
	int rc, err;

	*guid = 0;
	if ((err = fab_store_resolve_scan(st, scan_id, &scan_id)) ||
	    (err = fab_sql_scan_query(st, "SELECT node_guid FROM port_rows WHERE scan_id=" TOPOLOGY
				      " AND lid > 0 AND lid <= ?2 AND ?2 < lid + (1 << coalesce(lmc, 0))"
				      " ORDER BY node_idx, port_num LIMIT 1",
				      scan_id, &q)))
		return err;
	sqlite3_bind_int(q, 2, (int)lid);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		*guid = fab_sql_guid(q, 0);
		rc = SQLITE_DONE;
	}
	return fab_sql_done(st, q, rc, 0);
}
