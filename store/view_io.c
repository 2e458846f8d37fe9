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

/* The nodes with these GUIDs, whole. */
static int pick_guids(struct fab_store *st, int64_t scan, const uint64_t *guids, size_t n,
		      struct ranges *r)
{
	sqlite3_stmt *q = NULL;
	int err = 0, rc = SQLITE_DONE;

	if (!n)
		return 0;
	if ((err = fab_sql_scan_query(st, "SELECT node_idx FROM nodes WHERE scan_id=?1 AND node_guid=?2",
				      scan, &q)))
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		fab_sql_bind_guid(q, 2, guids[i]);
		while (!err && (rc = sqlite3_step(q)) == SQLITE_ROW)
			err = add(r, sqlite3_column_int64(q, 0), 0, 255);
		sqlite3_reset(q);
		if (!err && rc != SQLITE_DONE)
			break;
	}
	return fab_sql_done(st, q, err ? SQLITE_DONE : rc, err);
}

/* The CAs want() picks and the nodes with these GUIDs, all their ports; the
 * ports at the other end of their links and port 0 of those nodes (a
 * switch's LID and CapabilityMask). */
static int pick(struct fab_store *st, int64_t scan, fab_store_view_want_fn want, void *ctx,
		const uint64_t *guids, size_t n_guids, struct ranges *r)
{
	sqlite3_stmt *q = NULL, *peers = NULL;
	size_t n_ca;
	int err, rc;

	if (want && (err = fab_sql_scan_query(st, "SELECT node_idx, node_guid, description FROM nodes"
					      " WHERE scan_id=?1 AND node_type='ca' ORDER BY node_idx",
					      scan, &q)))
		return err;
	while (want && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *d = fab_sql_text(q, 2);
		if (want(fab_sql_guid(q, 1), d ? d : "", ctx) &&
		    (err = add(r, sqlite3_column_int64(q, 0), 0, 255)))
			break;
	}
	if ((want && (err = fab_sql_done(st, q, rc, err))) ||
	    (err = pick_guids(st, scan, guids, n_guids, r)))
		return err;
	n_ca = r->n;
	if ((err = fab_sql_scan_query(st, "SELECT remote_node_idx, remote_port FROM port_rows"
				      " WHERE scan_id=(SELECT coalesce(topology_scan_id, scan_id)"
				      " FROM scans WHERE scan_id=?1) AND node_idx=?2 AND port_num > 0"
				      " AND remote_node_idx IS NOT NULL", scan, &peers)))
		return err;
	for (size_t i = 0; i < n_ca && !err; i++) {
		sqlite3_bind_int64(peers, 2, r->v[i].node);
		while (!err && (rc = sqlite3_step(peers)) == SQLITE_ROW) {
			int64_t rn = sqlite3_column_int64(peers, 0);
			int rp = sqlite3_column_int(peers, 1);
			if (!(err = add(r, rn, rp, rp)))
				err = add(r, rn, 0, 0);
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

/* Every switch, whole (the routes between the picked CAs cross them). */
static int pick_switches(struct fab_store *st, int64_t scan, struct ranges *r)
{
	sqlite3_stmt *q = NULL;
	int err = 0, rc;

	if ((err = fab_sql_scan_query(st, "SELECT node_idx FROM nodes WHERE scan_id=?1"
				      " AND node_type='switch'", scan, &q)))
		return err;
	while (!err && (rc = sqlite3_step(q)) == SQLITE_ROW)
		err = add(r, sqlite3_column_int64(q, 0), 0, 255);
	if ((err = fab_sql_done(st, q, rc == SQLITE_ROW ? SQLITE_DONE : rc, err)))
		return err;
	normalize(r);
	return 0;
}

/* The CAs want() picks, the nodes guids[] name, every switch when
 * all_switches; then the parts asked for of what was picked. */
static int load_view(struct fab_store *st, int64_t scan_id, fab_store_view_want_fn want, void *ctx,
		     const uint64_t *guids, size_t n_guids, bool all_switches, unsigned parts,
		     struct fab_snapshot **out)
{
	struct ranges r = { 0 };
	int err;

	if ((err = fab_store_resolve_scan(st, scan_id, &scan_id)) ||
	    (err = fab_store_exec(st, "BEGIN", "begin a read")))
		return err;
	err = pick(st, scan_id, want, ctx, guids, n_guids, &r);
	if (!err && all_switches)
		err = pick_switches(st, scan_id, &r);
	if (!err && !r.n) /* nothing picked: an empty view (node -1 does not exist) */
		err = add(&r, -1, 0, 0);
	if (!err)
		err = fab_store_load_part(st, scan_id, r.v, r.n, parts, out);
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	free(r.v);
	return err;
}

int fab_store_load_view(struct fab_store *st, int64_t scan_id, fab_store_view_want_fn want,
			void *ctx, struct fab_snapshot **out)
{
	return load_view(st, scan_id, want, ctx, NULL, 0, false, FAB_LOAD_FINDINGS | FAB_LOAD_PKEYS, out);
}

int fab_store_load_view_routes(struct fab_store *st, int64_t scan_id, fab_store_view_want_fn want,
			       void *ctx, struct fab_snapshot **out)
{
	return load_view(st, scan_id, want, ctx, NULL, 0, true,
			 FAB_LOAD_FINDINGS | FAB_LOAD_PKEYS | FAB_LOAD_ROUTING, out);
}

int fab_store_load_route_view(struct fab_store *st, int64_t scan_id, fab_store_view_want_fn want,
			      void *ctx, const uint64_t *guids, size_t n_guids,
			      struct fab_snapshot **out)
{
	return load_view(st, scan_id, want, ctx, guids, n_guids, false, FAB_LOAD_ROUTING, out);
}
