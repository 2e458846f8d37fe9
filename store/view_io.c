// SPDX-License-Identifier: MIT
/*
 * fab_store_load_view(): the part of a snapshot around some channel
 * adapters, by primary key (scan_id, node_idx[, port_num]) lookups, so its
 * cost grows with the CAs picked, not with the fabric. The column mapping
 * is the one store/snapshot_io.c loads whole snapshots with (schema 1).
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_view.h"
#include "store_priv.h"

#define NODE_COLS                                                                   \
	"node_idx, node_guid, node_type, description, lid, num_ports, role, sys_guid," \
	" vendor_id, device_id, revision, hops, smp_failed, pma_failed"
#define PORT_COLS                                                                     \
	"port_num, port_guid, lid, lmc, sm_lid, state, phys_state, width_active,"        \
	" width_enabled, width_supported, speed_active, speed_enabled, speed_supported," \
	" mtu_active, mtu_cap, op_vls, cap_mask, remote_guid, remote_port,"              \
	" remote_node_idx, smp_failed, pma_failed, no_remote"

struct view {
	struct fab_store *st;
	struct fab_snapshot *s;
	int64_t scan;
	sqlite3_stmt *q_node, *q_ports, *q_port, *q_ctr;
	/* original node_idx of every view node, sorted (view order) */
	int64_t *orig;
	size_t n_orig;
	/* per view port: the original node index of its remote end, or -1 */
	int64_t *rnode;
	size_t cap_rnode;
};

static int db_err(struct view *w, const char *what)
{
	return fab_err(-EIO, "database '%s': %s: %s", w->st->path, what,
		       sqlite3_errmsg(w->st->db));
}

static int or0(int v)
{
	return v < 0 ? 0 : v;
}

static int prep(struct view *w, const char *sql, sqlite3_stmt **out)
{
	if (sqlite3_prepare_v2(w->st->db, sql, -1, out, NULL) != SQLITE_OK)
		return db_err(w, "read");
	sqlite3_bind_int64(*out, 1, w->scan);
	return 0;
}

static int load_scan_row(struct view *w)
{
	struct fab_snapshot *s = w->s;
	sqlite3_stmt *q;
	int err = prep(w, "SELECT started_at, finished_at, status, label, host, source"
			  " FROM scans WHERE scan_id=?1", &q);

	if (err)
		return err;
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_finalize(q);
		return fab_err(-ENOENT, "database '%s' has no scan %lld", w->st->path,
			       (long long)w->scan);
	}
	s->started_at_ms = fab_sql_time(q, 0);
	s->finished_at_ms = fab_sql_time(q, 1);
	int st = fab_scan_status_parse(fab_sql_text(q, 2));
	s->status = (uint8_t)(st < 0 ? FAB_SCAN_FAILED : st);
	s->label = fab_snapshot_strdup(s, fab_sql_text(q, 3), SIZE_MAX);
	s->host = fab_snapshot_strdup(s, fab_sql_text(q, 4), SIZE_MAX);
	s->source = fab_snapshot_strdup(s, fab_sql_text(q, 5), SIZE_MAX);
	sqlite3_finalize(q);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* View index of an original node index, FAB_NONE if not in the view. */
static uint32_t view_node(const struct view *w, int64_t orig)
{
	const int64_t *p = w->n_orig ? bsearch(&orig, w->orig, w->n_orig, sizeof(*w->orig), cmp_i64)
				     : NULL;

	return p ? (uint32_t)(p - w->orig) : FAB_NONE;
}

/* Reads one node row (q_node already stepped to it). */
static int read_node(struct view *w, sqlite3_stmt *q)
{
	struct fab_node *n = fab_snapshot_add_node(w->s);

	if (!n)
		return fab_err(-ENOMEM, "out of memory");
	n->guid = fab_sql_guid(q, 1);
	n->type = (uint8_t)or0(fab_node_type_parse(fab_sql_text(q, 2)));
	const char *d = fab_sql_text(q, 3);
	snprintf(n->desc, sizeof(n->desc), "%s", d ? d : "");
	n->lid = (uint16_t)sqlite3_column_int(q, 4);
	n->num_ports = (uint8_t)sqlite3_column_int(q, 5);
	n->role = (uint8_t)or0(fab_role_parse(fab_sql_text(q, 6)));
	n->sys_guid = fab_sql_guid(q, 7);
	n->vendor_id = (uint32_t)sqlite3_column_int64(q, 8);
	n->device_id = (uint32_t)sqlite3_column_int64(q, 9);
	n->revision = (uint32_t)sqlite3_column_int64(q, 10);
	n->hops = sqlite3_column_type(q, 11) == SQLITE_NULL ? -1 : (int16_t)sqlite3_column_int(q, 11);
	if (sqlite3_column_int(q, 12))
		n->flags |= FAB_F_SMP_FAILED;
	if (sqlite3_column_int(q, 13))
		n->flags |= FAB_F_PMA_FAILED;
	return 0;
}

/* Reads one port row of view node vn (columns PORT_COLS). */
static int read_port(struct view *w, sqlite3_stmt *q, uint32_t vn)
{
	struct fab_snapshot *s = w->s;
	struct fab_node *n = &s->nodes[vn];
	struct fab_port *p;

	if (s->n_ports == w->cap_rnode) {
		size_t ncap = w->cap_rnode ? w->cap_rnode * 2 : 64;
		int64_t *r = realloc(w->rnode, ncap * sizeof(*r));
		if (!r)
			return fab_err(-ENOMEM, "out of memory");
		w->rnode = r;
		w->cap_rnode = ncap;
	}
	if (!n->port_count)
		n->port_first = (uint32_t)s->n_ports;
	if (!(p = fab_snapshot_add_port(s)))
		return fab_err(-ENOMEM, "out of memory");
	n->port_count++;
	p->node_idx = vn;
	p->port_num = (uint8_t)sqlite3_column_int(q, 0);
	p->guid = fab_sql_guid(q, 1);
	p->lid = (uint16_t)sqlite3_column_int(q, 2);
	p->lmc = (uint8_t)sqlite3_column_int(q, 3);
	p->sm_lid = (uint16_t)sqlite3_column_int(q, 4);
	p->state = (uint8_t)or0(fab_state_parse(fab_sql_text(q, 5)));
	p->phys_state = (uint8_t)or0(fab_phys_state_parse(fab_sql_text(q, 6)));
	p->width_active = (uint8_t)or0(fab_sql_text(q, 7) ? fab_widths_parse(fab_sql_text(q, 7)) : 0);
	p->width_enabled = (uint8_t)or0(fab_sql_text(q, 8) ? fab_widths_parse(fab_sql_text(q, 8)) : 0);
	p->width_supported = (uint8_t)or0(fab_sql_text(q, 9) ? fab_widths_parse(fab_sql_text(q, 9)) : 0);
	p->speed_active = (uint16_t)or0(fab_sql_text(q, 10) ? fab_speeds_parse(fab_sql_text(q, 10)) : 0);
	p->speed_enabled = (uint16_t)or0(fab_sql_text(q, 11) ? fab_speeds_parse(fab_sql_text(q, 11)) : 0);
	p->speed_supported = (uint16_t)or0(fab_sql_text(q, 12) ? fab_speeds_parse(fab_sql_text(q, 12)) : 0);
	p->mtu_active = (uint8_t)or0(fab_mtu_from_bytes((unsigned)sqlite3_column_int(q, 13)));
	p->mtu_cap = (uint8_t)or0(fab_mtu_from_bytes((unsigned)sqlite3_column_int(q, 14)));
	p->op_vls = (uint8_t)sqlite3_column_int(q, 15);
	p->cap_mask = (uint32_t)sqlite3_column_int64(q, 16);
	p->remote_guid = fab_sql_guid(q, 17);
	p->remote_port = (uint8_t)sqlite3_column_int(q, 18);
	w->rnode[s->n_ports - 1] = sqlite3_column_type(q, 19) == SQLITE_NULL
					   ? -1 : sqlite3_column_int64(q, 19);
	if (sqlite3_column_int(q, 20))
		p->flags |= FAB_F_SMP_FAILED;
	if (sqlite3_column_int(q, 21))
		p->flags |= FAB_F_PMA_FAILED;
	if (sqlite3_column_int(q, 22))
		p->flags |= FAB_F_NO_REMOTE;
	return 0;
}

static int step_done(struct view *w, sqlite3_stmt *q, int rc)
{
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : db_err(w, "read");
}

/* A (node_idx, port_num) pair of the original snapshot. */
struct want_port {
	int64_t node;
	int port;
};

static int cmp_want_port(const void *a, const void *b)
{
	const struct want_port *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->port - y->port;
}

struct pick {
	int64_t *v;
	size_t n, cap;
};

static int pick_add(struct pick *p, int64_t v)
{
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 64;
		int64_t *t = realloc(p->v, ncap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		p->v = t;
		p->cap = ncap;
	}
	p->v[p->n++] = v;
	return 0;
}

static int load_samples(struct view *w)
{
	struct fab_snapshot *s = w->s;
	char sql[1024];
	size_t off;
	int err = 0, rc;

	off = (size_t)snprintf(sql, sizeof(sql), "SELECT sample, sampled_at, extended");
	for (unsigned c = 0; c < FAB_CTR__COUNT; c++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", %s", fab_counter_name(c));
	snprintf(sql + off, sizeof(sql) - off,
		 " FROM port_counters WHERE scan_id=?1 AND node_idx=?2 AND port_num=?3 ORDER BY sample");
	if ((err = prep(w, sql, &w->q_ctr)))
		return err;
	for (size_t i = 0; i < s->n_ports && !err; i++) {
		const struct fab_port *p = &s->ports[i];

		if (p->port_num == 0)
			continue;
		sqlite3_bind_int64(w->q_ctr, 2, w->orig[p->node_idx]);
		sqlite3_bind_int(w->q_ctr, 3, p->port_num);
		while ((rc = sqlite3_step(w->q_ctr)) == SQLITE_ROW) {
			struct fab_counter_sample *c = fab_snapshot_add_sample(s);
			if (!c) {
				err = fab_err(-ENOMEM, "out of memory");
				break;
			}
			c->port_idx = (uint32_t)i;
			c->sample = (uint8_t)sqlite3_column_int(w->q_ctr, 0);
			c->sampled_at_ms = fab_sql_time(w->q_ctr, 1);
			c->extended = sqlite3_column_int(w->q_ctr, 2);
			for (unsigned k = 0; k < FAB_CTR__COUNT; k++) {
				if (sqlite3_column_type(w->q_ctr, 3 + (int)k) == SQLITE_NULL)
					continue;
				c->valid |= 1u << k;
				c->v[k] = (uint64_t)sqlite3_column_int64(w->q_ctr, 3 + (int)k);
			}
		}
		if (!err)
			err = step_done(w, w->q_ctr, rc);
	}
	return err;
}

/* Findings naming a node of the view, in stored order. */
static int load_findings(struct view *w)
{
	struct fab_snapshot *s = w->s;
	sqlite3_stmt *q;
	int err = prep(w, "SELECT rule_id, severity, node, port, peer_node, peer_port, subject,"
			  " message, evidence FROM findings WHERE scan_id=?1 ORDER BY rowid", &q);
	int rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		uint64_t g1 = 0, g2 = 0;
		bool in = (fab_sql_text(q, 2) && !fab_guid_parse(fab_sql_text(q, 2), &g1) &&
			   fab_snapshot_find_node(s, g1) != FAB_NONE) ||
			  (fab_sql_text(q, 4) && !fab_guid_parse(fab_sql_text(q, 4), &g2) &&
			   fab_snapshot_find_node(s, g2) != FAB_NONE);
		if (!in)
			continue;
		int sev = fab_severity_parse(fab_sql_text(q, 1));
		struct fab_finding f = {
			.rule_id = fab_sql_text(q, 0),
			.severity = (uint8_t)(sev < 0 ? FAB_SEV_ERROR : sev),
			.node = fab_sql_text(q, 2),
			.port = fab_sql_text(q, 3),
			.peer_node = fab_sql_text(q, 4),
			.peer_port = fab_sql_text(q, 5),
			.subject = fab_sql_text(q, 6),
			.message = fab_sql_text(q, 7),
			.evidence = fab_sql_text(q, 8),
		};
		if ((err = fab_snapshot_add_finding(s, &f))) {
			err = fab_err(err, "out of memory");
			break;
		}
	}
	sqlite3_finalize(q);
	if (!err && rc != SQLITE_DONE)
		err = db_err(w, "read findings");
	return err;
}

static int load(struct view *w, fab_store_view_want_fn want, void *ctx)
{
	struct fab_snapshot *s = w->s;
	struct pick cas = { 0 };
	struct want_port *peers = NULL;
	size_t n_peers = 0, cap_peers = 0;
	sqlite3_stmt *q = NULL;
	int err, rc;

	if ((err = load_scan_row(w)))
		return err;
	/* 1. the CAs picked */
	if ((err = prep(w, "SELECT node_idx, node_guid, description FROM nodes"
			   " WHERE scan_id=?1 AND node_type='ca' ORDER BY node_idx", &q)))
		return err;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *d = fab_sql_text(q, 2);
		if (want(fab_sql_guid(q, 1), d ? d : "", ctx) && pick_add(&cas, sqlite3_column_int64(q, 0))) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
	}
	sqlite3_finalize(q);
	if (!err && rc != SQLITE_DONE)
		err = db_err(w, "read nodes");
	if (err)
		goto out;

	/* 2. the ports at the other end of their links */
	if ((err = prep(w, "SELECT remote_node_idx, remote_port FROM port_rows"
			   " WHERE scan_id=?1 AND node_idx=?2 AND port_num > 0"
			   " AND remote_node_idx IS NOT NULL", &q)))
		goto out;
	for (size_t i = 0; i < cas.n && !err; i++) {
		sqlite3_bind_int64(q, 2, cas.v[i]);
		while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			if (n_peers + 2 > cap_peers) {
				size_t ncap = cap_peers ? cap_peers * 2 : 64;
				struct want_port *t = realloc(peers, ncap * sizeof(*t));
				if (!t) {
					err = fab_err(-ENOMEM, "out of memory");
					break;
				}
				peers = t;
				cap_peers = ncap;
			}
			int64_t rn = sqlite3_column_int64(q, 0);
			peers[n_peers++] = (struct want_port){ rn, sqlite3_column_int(q, 1) };
			peers[n_peers++] = (struct want_port){ rn, 0 }; /* its port 0 */
		}
		if (!err)
			err = step_done(w, q, rc);
	}
	sqlite3_finalize(q);
	q = NULL;
	if (err)
		goto out;
	if (n_peers) /* (no qsort, memcpy or bsearch on NULL, even for 0 elements) */
		qsort(peers, n_peers, sizeof(*peers), cmp_want_port);

	/* 3. the nodes of the view, in their original order */
	for (size_t i = 0; i < n_peers; i++)
		if (pick_add(&cas, peers[i].node)) {
			err = fab_err(-ENOMEM, "out of memory");
			goto out;
		}
	size_t n_ca = cas.n - n_peers; /* the picked CAs come first in cas.v */
	int64_t *ca_sorted = malloc((n_ca + 1) * sizeof(*ca_sorted));
	if (!ca_sorted) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	if (n_ca)
		memcpy(ca_sorted, cas.v, n_ca * sizeof(*ca_sorted));
	if (cas.n)
		qsort(cas.v, cas.n, sizeof(*cas.v), cmp_i64);
	w->orig = cas.v;
	w->n_orig = 0;
	for (size_t i = 0; i < cas.n; i++)
		if (!w->n_orig || cas.v[w->n_orig - 1] != cas.v[i])
			cas.v[w->n_orig++] = cas.v[i];
	cas.v = NULL;

	if ((err = prep(w, "SELECT " NODE_COLS " FROM nodes WHERE scan_id=?1 AND node_idx=?2",
			&w->q_node)) ||
	    (err = prep(w, "SELECT " PORT_COLS " FROM port_rows WHERE scan_id=?1 AND node_idx=?2"
			   " ORDER BY port_num", &w->q_ports)) ||
	    (err = prep(w, "SELECT " PORT_COLS " FROM port_rows WHERE scan_id=?1 AND node_idx=?2"
			   " AND port_num=?3", &w->q_port))) {
		free(ca_sorted);
		goto out;
	}
	size_t pk = 0;
	for (size_t i = 0; i < w->n_orig && !err; i++) {
		int64_t orig = w->orig[i];
		uint32_t vn = (uint32_t)s->n_nodes;
		bool picked = n_ca && bsearch(&orig, ca_sorted, n_ca, sizeof(*ca_sorted), cmp_i64);

		sqlite3_bind_int64(w->q_node, 2, orig);
		rc = sqlite3_step(w->q_node);
		if (rc != SQLITE_ROW) {
			err = rc == SQLITE_DONE ? fab_err(-EPROTO, "database '%s': scan %lld names node %lld, which it lacks",
							  w->st->path, (long long)w->scan, (long long)orig)
						: db_err(w, "read a node");
			break;
		}
		err = read_node(w, w->q_node);
		sqlite3_reset(w->q_node);
		while (pk < n_peers && peers[pk].node < orig)
			pk++;
		if (err)
			break;
		if (picked) { /* all its ports */
			sqlite3_bind_int64(w->q_ports, 2, orig);
			while (!err && (rc = sqlite3_step(w->q_ports)) == SQLITE_ROW)
				err = read_port(w, w->q_ports, vn);
			if (!err)
				err = step_done(w, w->q_ports, rc);
			else
				sqlite3_reset(w->q_ports);
			continue;
		}
		/* a peer: port 0 and the ports cabled to picked CAs, in order */
		for (; pk < n_peers && peers[pk].node == orig && !err; pk++) {
			if (pk > 0 && peers[pk - 1].node == orig && peers[pk - 1].port == peers[pk].port)
				continue;
			sqlite3_bind_int64(w->q_port, 2, orig);
			sqlite3_bind_int(w->q_port, 3, peers[pk].port);
			while (!err && (rc = sqlite3_step(w->q_port)) == SQLITE_ROW)
				err = read_port(w, w->q_port, vn);
			if (!err)
				err = step_done(w, w->q_port, rc);
			else
				sqlite3_reset(w->q_port);
		}
	}
	free(ca_sorted);
	if (err)
		goto out;

	/* 4. links between the view's ports */
	for (size_t i = 0; i < s->n_ports; i++) {
		struct fab_port *p = &s->ports[i];
		uint32_t vn = w->rnode[i] < 0 ? FAB_NONE : view_node(w, w->rnode[i]);
		struct fab_port *r = vn == FAB_NONE ? NULL : fab_snapshot_port(s, vn, p->remote_port);
		p->remote_idx = r ? (uint32_t)(r - s->ports) : FAB_NONE;
	}
	if ((err = fab_snapshot_index(s)) || (err = fab_snapshot_build_links(s))) {
		err = fab_err(err, "out of memory");
		goto out;
	}
	if (!(err = load_samples(w)))
		err = load_findings(w);
	if (!err && (err = fab_snapshot_index(s)))
		err = fab_err(err, "out of memory");
out:
	sqlite3_finalize(q);
	free(cas.v);
	free(peers);
	return err;
}

int fab_store_load_view(struct fab_store *st, int64_t scan_id, fab_store_view_want_fn want,
			void *ctx, struct fab_snapshot **out)
{
	struct view w = { .st = st };
	int err;

	if ((err = fab_store_resolve_scan(st, scan_id, &w.scan)))
		return err;
	if (!(w.s = fab_snapshot_new()))
		return fab_err(-ENOMEM, "out of memory");
	w.s->scan_id = w.scan;
	if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		err = db_err(&w, "begin a read");
		goto out;
	}
	err = load(&w, want, ctx);
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
out:
	sqlite3_finalize(w.q_node);
	sqlite3_finalize(w.q_ports);
	sqlite3_finalize(w.q_port);
	sqlite3_finalize(w.q_ctr);
	free(w.orig);
	free(w.rnode);
	if (err) {
		fab_snapshot_free(w.s);
		return err;
	}
	*out = w.s;
	return 0;
}
