// SPDX-License-Identifier: MIT
/*
 * Loading a stored snapshot back: the whole of it (fab_store_load_scan), the
 * light part a counter baseline needs (fab_store_load_baseline), or the part
 * around some channel adapters (fab_store_load_view: store/view_io.c picks
 * them). One loader: a partial load is the same code over a list of key
 * ranges (a node, some of its ports) instead of the whole scan, so every row
 * is read, and every column decoded, in exactly one place. Each query walks
 * a primary key (scan_id, node_idx[, port_num[, sample]]).
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "store_priv.h"

/* Columns in the order the row readers take them; a light load reads the
 * first NODE_LIGHT / PORT_LIGHT of them. */
#define NODE_COLS                                                                      \
	"node_idx, node_guid, node_type, description, lid, num_ports, role, sys_guid,"    \
	" vendor_id, device_id, revision, hops, smp_failed, pma_failed, description_raw," \
	" fw_version, psid"
#define NODE_LIGHT 4
#define PORT_COLS                                                                      \
	"node_idx, port_num, port_guid, lid, lmc, sm_lid, state, phys_state,"             \
	" width_active, width_enabled, width_supported, speed_active, speed_enabled,"     \
	" speed_supported, mtu_active, mtu_cap, op_vls, cap_mask, remote_guid,"           \
	" remote_port, remote_node_idx, smp_failed, pma_failed, no_remote,"               \
	" vl_cap, vl_high_limit, vlarb_high_cap, vlarb_low_cap"
#define PORT_LIGHT 3
#define SAMPLE_COLS "node_idx, port_num, sample, sampled_at, extended"
#define SAMPLE_FIRST_COUNTER 5

/* Length of the first n comma-separated columns of cols; all of it for 0. */
static int first_cols(const char *cols, int n)
{
	const char *p = cols;

	for (int i = 0; i < n && p; i++)
		if ((p = strchr(p, ',')) && i + 1 < n)
			p++;
	return n > 0 && p ? (int)(p - cols) : (int)strlen(cols);
}

/* The filter: a range's node ?2 and ports ?3..?4, a seek along the primary
 * key; the whole scan needs none (SQLite then walks the key with no test). */
#define IN_SCAN " WHERE scan_id=?1"
#define IN_NODES IN_SCAN " AND node_idx=?2"
#define IN_PORTS IN_NODES " AND port_num BETWEEN ?3 AND ?4"

#define NOMEM() fab_err(-ENOMEM, "out of memory loading a snapshot")

/*
 * Most rows of a snapshot repeat the same widths, speeds and sample times:
 * remember the last text seen in a column and what it parsed to.
 */
struct memo {
	char text[64];
	int64_t value;
	bool valid;
};

static bool memo_hit(struct memo *m, const char *t, size_t l)
{
	return m->valid && l < sizeof(m->text) && !memcmp(m->text, t, l + 1);
}

static void memo_keep(struct memo *m, const char *t, size_t l, int64_t v)
{
	if (l < sizeof(m->text)) {
		memcpy(m->text, t, l + 1);
		m->value = v;
		m->valid = true;
	}
}

static int64_t memo_mask(struct memo *m, const char *t, int (*parse)(const char *))
{
	size_t l;
	int v;

	if (!t)
		return 0;
	l = strlen(t);
	if (memo_hit(m, t, l))
		return m->value;
	v = parse(t);
	if (v < 0)
		v = 0;
	memo_keep(m, t, l, v);
	return v;
}

static int64_t memo_time(struct memo *m, sqlite3_stmt *s, int i)
{
	const char *t = fab_sql_text(s, i);
	int64_t ms = 0;
	size_t l;

	if (!t)
		return 0;
	l = strlen(t);
	if (memo_hit(m, t, l))
		return m->value;
	fab_time_parse(t, &ms);
	memo_keep(m, t, l, ms);
	return ms;
}

/* An enum stored as its name; dflt when the name is unknown. */
static int parse_or(int v, int dflt)
{
	return v < 0 ? dflt : v;
}

struct loader {
	struct fab_store *st;
	struct fab_snapshot *s;
	const struct fab_load_range *ranges;
	size_t n_ranges;
	/* the counter samples to read: NULL, those of the ranges */
	const struct fab_load_range *samples;
	size_t n_samples;
	unsigned parts; /* FAB_LOAD_* */
	/* whose nodes, ports and links these are: the scan's own id, or for
	 * a watch sweep its topology scan (docs/watch.md) */
	int64_t topo;
	/* node_idx in the database of every node loaded, ascending */
	int64_t *orig;
	size_t cap_orig;
	bool identity; /* orig[i] == i: the whole scan */
	/* per port loaded: node_idx of its remote end in the database, or -1 */
	int64_t *rnode;
	size_t cap_rnode;
	struct memo memo[7];
};

static const char *in_nodes(const struct loader *l)
{
	return l->ranges ? IN_NODES : IN_SCAN;
}

static const char *in_ports(const struct loader *l)
{
	return l->ranges ? IN_PORTS : IN_SCAN;
}

/* The loaded node whose node_idx in the database is orig, FAB_NONE if none. */
static uint32_t node_of(const struct loader *l, int64_t orig)
{
	size_t lo = 0, hi = l->s->n_nodes;

	if (orig < 0)
		return FAB_NONE;
	if (l->identity)
		return (uint64_t)orig < l->s->n_nodes ? (uint32_t)orig : FAB_NONE;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->orig[mid] < orig)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->s->n_nodes && l->orig[lo] == orig ? (uint32_t)lo : FAB_NONE;
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	if (!(q = realloc(*p, ncap * size)))
		return false;
	*p = q;
	*cap = ncap;
	return true;
}

/*
 * Runs q over the rows of ranges r[0..n) (NULL: once over the whole scan),
 * binding each range's bounds, and read() on every row. A query about
 * nodes only (ports false) runs once per node.
 */
static int each_row_of(struct loader *l, const struct fab_load_range *r, size_t n, sqlite3_stmt *q,
		       bool ports, int (*read)(struct loader *l, sqlite3_stmt *q))
{
	int err = 0, rc = SQLITE_DONE;

	if (!r)
		n = 1;
	for (size_t i = 0; i < n && !err; i++) {
		if (r && !ports && i && r[i].node == r[i - 1].node)
			continue;
		if (r)
			sqlite3_bind_int64(q, 2, r[i].node);
		if (r && ports) {
			sqlite3_bind_int(q, 3, r[i].port_lo);
			sqlite3_bind_int(q, 4, r[i].port_hi);
		}
		while (!err && (rc = sqlite3_step(q)) == SQLITE_ROW)
			err = read(l, q);
		sqlite3_reset(q);
		if (!err && rc != SQLITE_DONE)
			break;
	}
	return fab_sql_done(l->st, q, err ? SQLITE_DONE : rc, err);
}

/* each_row_of() over the loader's ranges. */
static int each_row(struct loader *l, sqlite3_stmt *q, bool ports,
		    int (*read)(struct loader *l, sqlite3_stmt *q))
{
	return each_row_of(l, l->ranges, l->n_ranges, q, ports, read);
}

/* ---- the scan row ---------------------------------------------------------- */

static int load_scan_row(struct loader *l)
{
	struct fab_snapshot *snap = l->s;
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(l->st,
		"SELECT started_at, finished_at, status, label, host, source,"
		" sm_act_start, sm_act_end,"
		" (SELECT checked_at FROM checks c WHERE c.scan_id = scans.scan_id),"
		" topology_scan_id FROM scans WHERE scan_id=?1", snap->scan_id, &s);

	if (err)
		return err;
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return fab_err(-ENOENT, "database '%s' has no scan %lld", l->st->path,
			       (long long)snap->scan_id);
	}
	snap->started_at_ms = fab_sql_time(s, 0);
	snap->finished_at_ms = fab_sql_time(s, 1);
	snap->status = (uint8_t)parse_or(fab_scan_status_parse(fab_sql_text(s, 2)),
					 FAB_SCAN_FAILED);
	snap->label = fab_snapshot_strdup(snap, fab_sql_text(s, 3), SIZE_MAX);
	snap->host = fab_snapshot_strdup(snap, fab_sql_text(s, 4), SIZE_MAX);
	snap->source = fab_snapshot_strdup(snap, fab_sql_text(s, 5), SIZE_MAX);
	snap->sm_act_start = (uint32_t)sqlite3_column_int64(s, 6);
	snap->sm_act_end = (uint32_t)sqlite3_column_int64(s, 7);
	snap->checked_at_ms = fab_sql_time(s, 8);
	snap->topology_scan_id = sqlite3_column_int64(s, 9);
	l->topo = snap->topology_scan_id ? snap->topology_scan_id : snap->scan_id;
	sqlite3_finalize(s);
	return 0;
}

/* How many rows of table scan scan_id has (to size an array once). */
static int count_rows(struct fab_store *st, const char *table, int64_t scan_id,
		      size_t *out)
{
	char sql[128];
	sqlite3_stmt *s;
	int err, rc;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE scan_id=?1", table);
	if ((err = fab_sql_scan_query(st, sql, scan_id, &s)))
		return err;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*out = (size_t)sqlite3_column_int64(s, 0);
	return fab_sql_done(st, s, rc == SQLITE_ROW ? SQLITE_DONE : rc, 0);
}

/* Sizes the arrays once for the whole scan; a partial load grows them. */
static int reserve(struct loader *l, const char *table, size_t nodes, size_t ports,
		   size_t samples)
{
	size_t rows = 0;
	int err;

	if (l->ranges)
		return 0;
	if ((err = count_rows(l->st, table, l->topo, &rows)))
		return err;
	if (fab_snapshot_reserve(l->s, nodes ? rows : 0, ports ? rows : 0,
				 samples ? (rows < samples ? rows : samples) : 0))
		return NOMEM();
	return 0;
}

/* ---- nodes ------------------------------------------------------------------- */

static int read_node(struct loader *l, sqlite3_stmt *s)
{
	struct fab_snapshot *snap = l->s;
	int64_t ni = sqlite3_column_int64(s, 0);
	struct fab_node *n;

	if (!grow((void **)&l->orig, &l->cap_orig, snap->n_nodes + 1, sizeof(*l->orig)) ||
	    !(n = fab_snapshot_add_node(snap)))
		return NOMEM();
	l->orig[snap->n_nodes - 1] = ni;
	n->guid = fab_sql_guid(s, 1);
	n->type = (uint8_t)parse_or(fab_node_type_parse(fab_sql_text(s, 2)), 0);
	const char *d = fab_sql_text(s, 3);
	snprintf(n->desc, sizeof(n->desc), "%s", d ? d : "");
	if (l->parts & FAB_LOAD_LIGHT)
		return 0;
	n->lid = (uint16_t)sqlite3_column_int(s, 4);
	if (sqlite3_column_type(s, 4) == SQLITE_NULL)
		n->flags |= FAB_F_LID_UNKNOWN; /* not read: not LID 0 */
	n->num_ports = (uint8_t)sqlite3_column_int(s, 5);
	n->role = (uint8_t)parse_or(fab_role_parse(fab_sql_text(s, 6)), 0);
	n->sys_guid = fab_sql_guid(s, 7);
	n->vendor_id = (uint32_t)sqlite3_column_int64(s, 8);
	n->device_id = (uint32_t)sqlite3_column_int64(s, 9);
	n->revision = (uint32_t)sqlite3_column_int64(s, 10);
	n->hops = sqlite3_column_type(s, 11) == SQLITE_NULL ? -1 : (int16_t)sqlite3_column_int(s, 11);
	if (sqlite3_column_int(s, 12))
		n->flags |= FAB_F_SMP_FAILED;
	if (sqlite3_column_int(s, 13))
		n->flags |= FAB_F_PMA_FAILED;
	int rl = sqlite3_column_bytes(s, 14);
	if (rl > 0 && rl <= FAB_DESC_RAW) {
		memcpy(n->desc_raw, sqlite3_column_blob(s, 14), (size_t)rl);
		n->desc_raw_len = (uint8_t)rl;
	}
	const char *fw = fab_sql_text(s, 15), *psid = fab_sql_text(s, 16);
	if ((fw && !(n->fw_version = fab_snapshot_strdup(snap, fw, SIZE_MAX))) ||
	    (psid && !(n->psid = fab_snapshot_strdup(snap, psid, SIZE_MAX))))
		return NOMEM();
	return 0;
}

static int load_nodes(struct loader *l)
{
	char sql[512];
	sqlite3_stmt *s;
	int err;

	snprintf(sql, sizeof(sql), "SELECT %.*s FROM nodes%s ORDER BY node_idx",
		 first_cols(NODE_COLS, l->parts & FAB_LOAD_LIGHT ? NODE_LIGHT : 0), NODE_COLS,
		 in_nodes(l));
	if ((err = reserve(l, "nodes", 1, 0, 0)) ||
	    (err = fab_sql_scan_query(l->st, sql, l->topo, &s)))
		return err;
	err = each_row(l, s, false, read_node);
	l->identity = !l->s->n_nodes || l->orig[l->s->n_nodes - 1] == (int64_t)l->s->n_nodes - 1;
	return err;
}

/*
 * The nodes' names (fab_snapshot_name_nodes): a whole scan names its own
 * nodes; a part of one (ready's, route's views) asks the whole scan for the
 * nodes whose description another has too, so that a node is named alike
 * in every output whatever was loaded around it.
 */
static int name_nodes(struct loader *l)
{
	struct fab_snapshot *snap = l->s;
	sqlite3_stmt *q = NULL;
	uint64_t *g = NULL;
	char **d = NULL;
	uint8_t *h = NULL;
	size_t n = 0, cap = 0;
	int err, rc = SQLITE_DONE;

	if (!l->ranges)
		return fab_snapshot_name_nodes(snap) ? NOMEM() : 0;
	if ((err = fab_sql_scan_query(l->st,
				      "SELECT node_guid, description FROM node_rows WHERE scan_id=?1"
				      " AND description IN (SELECT description FROM node_rows"
				      " WHERE scan_id=?1 AND description <> ''"
				      " GROUP BY description HAVING count(*) > 1)",
				      l->topo, &q)))
		return err;
	while (!err && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			uint64_t *ng = realloc(g, nc * sizeof(*g));
			char **nd = ng ? realloc(d, nc * sizeof(*d)) : NULL;
			if (ng)
				g = ng;
			if (nd)
				d = nd;
			if (!ng || !nd) {
				err = NOMEM();
				break;
			}
			cap = nc;
		}
		g[n] = fab_sql_guid(q, 0);
		if (!(d[n] = strdup(fab_sql_text(q, 1) ? fab_sql_text(q, 1) : ""))) {
			err = NOMEM();
			break;
		}
		n++;
	}
	err = fab_sql_done(l->st, q, err ? SQLITE_DONE : rc, err);
	if (!err && !(h = malloc(n + 1)))
		err = NOMEM();
	if (!err && fab_node_names_hex(n, g, (const char *const *)d, h))
		err = NOMEM();
	/* the loaded nodes that share: found by GUID (and description) */
	for (size_t i = 0; !err && i < n; i++) {
		uint32_t k = fab_snapshot_find_node(snap, g[i]);
		if (k != FAB_NONE && !strcmp(snap->nodes[k].desc, d[i]))
			snap->nodes[k].name_hex = h[i];
	}
	for (size_t i = 0; i < n; i++)
		free(d[i]);
	free(g);
	free(d);
	free(h);
	return err;
}

/* ---- ports ------------------------------------------------------------------- */

static int read_port(struct loader *l, sqlite3_stmt *s)
{
	struct fab_snapshot *snap = l->s;
	uint32_t ni = node_of(l, sqlite3_column_int64(s, 0));
	struct memo *m = l->memo;
	struct fab_port *p;

	if (ni == FAB_NONE)
		return fab_err(-EPROTO, "database '%s': scan %lld has a port of an unknown node",
			       l->st->path, (long long)snap->scan_id);
	if (!grow((void **)&l->rnode, &l->cap_rnode, snap->n_ports + 1, sizeof(*l->rnode)))
		return NOMEM();
	struct fab_node *n = &snap->nodes[ni];
	if (!n->port_count)
		n->port_first = (uint32_t)snap->n_ports;
	if (!(p = fab_snapshot_add_port(snap)))
		return NOMEM();
	n->port_count++;
	p->node_idx = ni;
	p->port_num = (uint8_t)sqlite3_column_int(s, 1);
	p->guid = fab_sql_guid(s, 2);
	l->rnode[snap->n_ports - 1] = -1;
	if (l->parts & FAB_LOAD_LIGHT)
		return 0;
	p->lid = (uint16_t)sqlite3_column_int(s, 3);
	if (sqlite3_column_type(s, 3) == SQLITE_NULL)
		p->flags |= FAB_F_LID_UNKNOWN;
	p->lmc = (uint8_t)sqlite3_column_int(s, 4);
	p->sm_lid = (uint16_t)sqlite3_column_int(s, 5);
	p->state = (uint8_t)parse_or(fab_state_parse(fab_sql_text(s, 6)), 0);
	p->phys_state = (uint8_t)parse_or(fab_phys_state_parse(fab_sql_text(s, 7)), 0);
	p->width_active = (uint8_t)memo_mask(&m[0], fab_sql_text(s, 8), fab_widths_parse);
	p->width_enabled = (uint8_t)memo_mask(&m[1], fab_sql_text(s, 9), fab_widths_parse);
	p->width_supported = (uint8_t)memo_mask(&m[2], fab_sql_text(s, 10), fab_widths_parse);
	p->speed_active = (uint16_t)memo_mask(&m[3], fab_sql_text(s, 11), fab_speeds_parse);
	p->speed_enabled = (uint16_t)memo_mask(&m[4], fab_sql_text(s, 12), fab_speeds_parse);
	p->speed_supported = (uint16_t)memo_mask(&m[5], fab_sql_text(s, 13), fab_speeds_parse);
	p->mtu_active = (uint8_t)parse_or(fab_mtu_from_bytes((unsigned)sqlite3_column_int(s, 14)), 0);
	p->mtu_cap = (uint8_t)parse_or(fab_mtu_from_bytes((unsigned)sqlite3_column_int(s, 15)), 0);
	p->op_vls = (uint8_t)sqlite3_column_int(s, 16);
	p->cap_mask = (uint32_t)sqlite3_column_int64(s, 17);
	p->remote_guid = fab_sql_guid(s, 18);
	p->remote_port = (uint8_t)sqlite3_column_int(s, 19);
	if (sqlite3_column_type(s, 20) != SQLITE_NULL)
		l->rnode[snap->n_ports - 1] = sqlite3_column_int64(s, 20);
	if (sqlite3_column_int(s, 21))
		p->flags |= FAB_F_SMP_FAILED;
	if (sqlite3_column_int(s, 22))
		p->flags |= FAB_F_PMA_FAILED;
	if (sqlite3_column_int(s, 23))
		p->flags |= FAB_F_NO_REMOTE;
	p->vl_cap = (uint8_t)sqlite3_column_int(s, 24);
	p->vl_high_limit = (uint8_t)sqlite3_column_int(s, 25);
	p->vlarb_high_cap = (uint8_t)sqlite3_column_int(s, 26);
	p->vlarb_low_cap = (uint8_t)sqlite3_column_int(s, 27);
	return 0;
}

/* Ports, then each port's remote end among the loaded ports. */
static int load_ports(struct loader *l)
{
	struct fab_snapshot *snap = l->s;
	char sql[1024];
	sqlite3_stmt *s;
	int err;

	snprintf(sql, sizeof(sql), "SELECT %.*s FROM port_rows%s ORDER BY node_idx, port_num",
		 first_cols(PORT_COLS, l->parts & FAB_LOAD_LIGHT ? PORT_LIGHT : 0), PORT_COLS,
		 in_ports(l));
	if ((err = reserve(l, "port_rows", 0, 1, 0)) ||
	    (err = fab_sql_scan_query(l->st, sql, l->topo, &s)) ||
	    (err = each_row(l, s, true, read_port)))
		return err;
	for (size_t i = 0; i < snap->n_ports; i++) {
		uint32_t rn = node_of(l, l->rnode[i]);
		struct fab_port *p = &snap->ports[i], *r;

		if (rn != FAB_NONE && (r = fab_snapshot_port(snap, rn, p->remote_port)))
			p->remote_idx = (uint32_t)(r - snap->ports);
	}
	return 0;
}

/* ---- counter samples ---------------------------------------------------------- */

static int read_sample(struct loader *l, sqlite3_stmt *s)
{
	struct fab_snapshot *snap = l->s;
	uint32_t ni = node_of(l, sqlite3_column_int64(s, 0));
	struct fab_counter_sample *c;
	struct fab_port *p;

	if (ni == FAB_NONE || !(p = fab_snapshot_port(snap, ni, (unsigned)sqlite3_column_int(s, 1))))
		return 0;
	uint32_t pi = (uint32_t)(p - snap->ports);
	if ((l->parts & FAB_LOAD_LIGHT || snap->topology_scan_id) && snap->n_samples &&
	    snap->samples[snap->n_samples - 1].port_idx == pi)
		return 0; /* an earlier sample of the port just read */
	if (!(c = fab_snapshot_add_sample(snap)))
		return NOMEM();
	c->port_idx = pi;
	/* a sweep holds one sample per port: the latest of its chain */
	c->sample = snap->topology_scan_id ? 0 : (uint8_t)sqlite3_column_int(s, 2);
	c->sampled_at_ms = memo_time(&l->memo[6], s, 3);
	c->extended = sqlite3_column_int(s, 4);
	fab_sql_read_counters(s, SAMPLE_FIRST_COUNTER, c);
	fab_sql_read_vl(s, SAMPLE_FIRST_COUNTER + FAB_SQL_COUNTERS, c);
	return 0;
}

/* A light load keeps each port's last sample only (a baseline's): read
 * backwards along the primary key, the first row of a port is its latest
 * and the others are skipped without decoding them. A watch sweep stores
 * only the rows that changed: each port's latest row among its topology
 * scan and the sweeps of that topology up to this one (docs/watch.md),
 * newest first per port, the others skipped the same way. */
static int load_samples(struct loader *l)
{
	bool latest = l->parts & FAB_LOAD_LIGHT;
	bool sweep = l->s->topology_scan_id != 0;
	char sql[2400];
	size_t off;
	sqlite3_stmt *s;
	int err;

	off = (size_t)snprintf(sql, sizeof(sql), "SELECT " SAMPLE_COLS);
	off += fab_sql_counter_cols(sql + off, sizeof(sql) - off, false);
	off += fab_sql_vl_cols(sql + off, sizeof(sql) - off, false);
	if (sweep)
		snprintf(sql + off, sizeof(sql) - off,
			 " FROM port_counters WHERE scan_id IN (SELECT scan_id FROM scans"
			 " WHERE coalesce(topology_scan_id, scan_id) = ?5 AND scan_id <= ?1)%s"
			 " ORDER BY node_idx, port_num, scan_id DESC, sample DESC",
			 l->ranges ? " AND node_idx=?2 AND port_num BETWEEN ?3 AND ?4" : "");
	else
		snprintf(sql + off, sizeof(sql) - off, " FROM port_counters%s%s", in_ports(l),
			 latest ? " ORDER BY node_idx DESC, port_num DESC, sample DESC"
				: " ORDER BY node_idx, port_num, sample");
	if ((err = reserve(l, "port_counters", 0, 0, latest || sweep ? l->s->n_ports : SIZE_MAX)) ||
	    (err = fab_sql_scan_query(l->st, sql, l->s->scan_id, &s)))
		return err;
	if (sweep)
		sqlite3_bind_int64(s, 5, l->topo);
	if (l->samples)
		return each_row_of(l, l->samples, l->n_samples, s, true, read_sample);
	return each_row(l, s, true, read_sample);
}

/* ---- subnet managers, scan errors, findings -------------------------------------- */

static uint32_t port_by_guid(const struct fab_snapshot *snap, uint64_t node_guid, int port_num)
{
	uint32_t n = fab_snapshot_find_node(snap, node_guid);
	struct fab_port *p;

	if (n == FAB_NONE || port_num < 0 || !(p = fab_snapshot_port(snap, n, (unsigned)port_num)))
		return FAB_NONE;
	return (uint32_t)(p - snap->ports);
}

static int load_sms(struct loader *l)
{
	struct fab_snapshot *snap = l->s;
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(l->st,
		"SELECT port_guid, lid, state, priority, act_count, node_guid, port_num,"
		" failed FROM sms WHERE scan_id=?1 ORDER BY rowid", snap->scan_id, &s);
	int rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_sm *sm = fab_snapshot_add_sm(snap);

		if (!sm) {
			err = NOMEM();
			break;
		}
		sm->port_guid = fab_sql_guid(s, 0);
		sm->lid = (uint16_t)sqlite3_column_int(s, 1);
		sm->state = (uint8_t)parse_or(fab_sm_state_parse(fab_sql_text(s, 2)), 0);
		sm->priority = (uint8_t)sqlite3_column_int(s, 3);
		sm->act_count = (uint32_t)sqlite3_column_int64(s, 4);
		sm->port_idx = sqlite3_column_type(s, 5) == SQLITE_NULL
				       ? FAB_NONE
				       : port_by_guid(snap, fab_sql_guid(s, 5), sqlite3_column_int(s, 6));
		sm->failed = sqlite3_column_int(s, 7);
	}
	return fab_sql_done(l->st, s, rc, err);
}

static int load_errors(struct loader *l)
{
	struct fab_snapshot *snap = l->s;
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(l->st,
		"SELECT node_guid, port_num, what, message FROM scan_errors"
		" WHERE scan_id=?1 ORDER BY rowid", snap->scan_id, &s);
	int rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int port = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 1);
		const char *msg = fab_sql_text(s, 3);

		if ((err = fab_snapshot_add_error(snap, fab_sql_guid(s, 0), port,
						  fab_sql_text(s, 2) ? fab_sql_text(s, 2) : "",
						  "%s", msg ? msg : "")))
			break;
	}
	return fab_sql_done(l->st, s, rc, err);
}

static int load_events(struct loader *l)
{
	struct fab_snapshot *snap = l->s;
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(l->st,
		"SELECT at, kind, cause, trap, lid, node_guid, port_num, state, phys_state, detail,"
		" was_state FROM events WHERE scan_id=?1 ORDER BY event_id", snap->scan_id, &s);
	int rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int kind = fab_event_kind_parse(fab_sql_text(s, 1));
		struct fab_event e = {
			.at_ms = fab_sql_time(s, 0),
			.cause = (uint8_t)parse_or(fab_event_cause_parse(fab_sql_text(s, 2)), 0),
			.trap = (uint16_t)sqlite3_column_int(s, 3),
			.lid = (uint16_t)sqlite3_column_int(s, 4),
			.node_guid = fab_sql_guid(s, 5),
			.port_num = (uint8_t)sqlite3_column_int(s, 6),
			.state = (uint8_t)parse_or(fab_state_parse(fab_sql_text(s, 7)), 0),
			.phys_state = (uint8_t)parse_or(fab_phys_state_parse(fab_sql_text(s, 8)), 0),
			.detail = fab_sql_text(s, 9),
			.was = (uint8_t)parse_or(fab_state_parse(fab_sql_text(s, 10)), 0),
		};
		if (kind < 0)
			continue; /* a kind this version does not know */
		e.kind = (uint8_t)kind;
		if ((err = fab_snapshot_add_event(snap, &e)))
			break;
	}
	return fab_sql_done(l->st, s, rc, err);
}

/* Whether a finding's node text (a GUID) names a loaded node. */
static bool names_loaded(const struct fab_snapshot *snap, const char *node)
{
	uint64_t g;

	return node && !fab_guid_parse(node, &g) && fab_snapshot_find_node(snap, g) != FAB_NONE;
}

/* The findings of one query (the scan's id as ?1); a partial load keeps
 * those that name a loaded node (as node or peer). A severity the store
 * does not know loads as an error: never quieter than what was stored. */
static int load_findings_of(struct loader *l, const char *sql)
{
	struct fab_snapshot *snap = l->s;
	sqlite3_stmt *s;
	int err = fab_sql_scan_query(l->st, sql, snap->scan_id, &s);
	int rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_finding f;

		fab_sql_read_finding(s, 0, &f);
		if (l->ranges && !names_loaded(snap, f.node) && !names_loaded(snap, f.peer_node))
			continue;
		if ((err = fab_snapshot_add_finding(snap, &f)))
			break;
	}
	return fab_sql_done(l->st, s, rc, err);
}

/* The findings the scan's rules raised, then those watch held into it
 * (one finding_holds row per hold: docs/watch.md), as the findings view
 * has them; the held ones load as plain findings. */
static int load_findings(struct loader *l)
{
	int err = load_findings_of(l, "SELECT " FAB_SQL_FINDING_COLS("") " FROM finding_rows"
				      " WHERE scan_id=?1 ORDER BY rowid");

	return err ? err : load_findings_of(l, "SELECT " FAB_SQL_FINDING_COLS("") " FROM held_findings"
					       " WHERE scan_id=?1 ORDER BY hold_id");
}

/* The forwarding tables (store/routing_io.c): of a ranged load, only the
 * nodes loaded whole (a range of ports 0..255). */
static int load_routing(struct loader *l)
{
	bool *whole = NULL;
	int err;

	if (l->ranges) {
		if (!(whole = calloc(l->s->n_nodes + 1, sizeof(*whole))))
			return NOMEM();
		for (size_t i = 0; i < l->n_ranges; i++) {
			uint32_t n = node_of(l, l->ranges[i].node);
			if (n != FAB_NONE && l->ranges[i].port_lo == 0 && l->ranges[i].port_hi >= 255)
				whole[n] = true;
		}
	}
	err = fab_store_load_routing(l->st, l->s, whole);
	if (!err) /* SL2VL tables with or without forwarding tables (store/sl2vl_io.c) */
		err = fab_store_load_sl2vl(l->st, l->s, whole);
	if (!err) /* VLArbitration tables, why the VL tables were read (store/qos_io.c) */
		err = fab_store_load_qos(l->st, l->s, whole);
	free(whole);
	return err;
}

/* ---- the load ------------------------------------------------------------------ */

int fab_store_load_part(struct fab_store *st, int64_t scan_id,
			const struct fab_load_range *ranges, size_t n_ranges,
			const struct fab_load_range *samples, size_t n_samples, unsigned parts,
			struct fab_snapshot **out)
{
	struct loader l = { .st = st, .ranges = ranges, .n_ranges = n_ranges, .samples = samples,
			    .n_samples = n_samples, .parts = parts };
	bool light = parts & FAB_LOAD_LIGHT;
	int err;

	if (!(l.s = fab_snapshot_new()))
		return NOMEM();
	l.s->scan_id = scan_id;
	err = load_scan_row(&l);
	if (!err)
		err = load_nodes(&l);
	if (!err)
		err = load_ports(&l);
	if (!err && (err = fab_snapshot_index(l.s)))
		err = NOMEM();
	if (!err)
		err = name_nodes(&l);
	if (!err && !light && (err = fab_snapshot_build_links(l.s)))
		err = NOMEM();
	if (!err && !(parts & FAB_LOAD_NO_SAMPLES))
		err = load_samples(&l);
	if (!err && (parts & FAB_LOAD_SMS))
		err = load_sms(&l);
	if (!err && (parts & FAB_LOAD_ERRORS))
		err = load_errors(&l);
	if (!err && (parts & FAB_LOAD_ERRORS))
		err = load_events(&l);
	if (!err && (parts & FAB_LOAD_FINDINGS))
		err = load_findings(&l);
	if (!err && (parts & FAB_LOAD_ROCE))
		err = fab_store_load_roce(st, l.s, parts & FAB_LOAD_LATER); /* store/roce_load.c */
	if (!err && (parts & FAB_LOAD_ROCE))
		err = fab_store_load_phys_ib(st, l.s); /* store/phys_io.c */
	if (!err && (parts & FAB_LOAD_ROCE))
		err = fab_store_load_roce_votes(st, l.s); /* store/roce_votes.c */
	if (!err && (parts & FAB_LOAD_ROUTING))
		err = load_routing(&l);
	if (!err && (parts & FAB_LOAD_PKEYS))
		err = fab_store_load_pkeys(st, l.s, ranges != NULL); /* store/pkey_io.c */
	if (!err && (parts & FAB_LOAD_MCAST))
		err = fab_store_load_mcast(st, l.s); /* store/mcast_io.c */
	if (!err && (err = fab_snapshot_index(l.s)))
		err = NOMEM();
	free(l.orig);
	free(l.rnode);
	if (err) {
		fab_snapshot_free(l.s);
		return err;
	}
	*out = l.s;
	return 0;
}

/* One read transaction: a consistent view even while a scan commits. */
static int load(struct fab_store *st, int64_t scan_id, unsigned parts, struct fab_snapshot **out)
{
	int err;

	if ((err = fab_store_resolve_scan(st, scan_id, &scan_id)) ||
	    (err = fab_store_exec(st, "BEGIN", "begin a read")))
		return err;
	err = fab_store_load_part(st, scan_id, NULL, 0, NULL, 0, parts, out);
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	return err;
}

int fab_store_load_scan(struct fab_store *st, int64_t scan_id, struct fab_snapshot **out)
{
	return load(st, scan_id,
		    FAB_LOAD_SMS | FAB_LOAD_ERRORS | FAB_LOAD_FINDINGS | FAB_LOAD_ROCE | FAB_LOAD_ROUTING |
			    FAB_LOAD_PKEYS | FAB_LOAD_MCAST,
		    out);
}

int fab_store_load_header(struct fab_store *st, int64_t scan_id, struct fab_snapshot **out)
{
	return load(st, scan_id, FAB_LOAD_ERRORS | FAB_LOAD_NO_SAMPLES, out);
}

int fab_store_load_merge_base(struct fab_store *st, int64_t scan_id, struct fab_snapshot **out)
{
	return load(st, scan_id, FAB_LOAD_ERRORS | FAB_LOAD_ROCE | FAB_LOAD_NO_SAMPLES | FAB_LOAD_LATER, out);
}

int fab_store_load_roce_scan(struct fab_store *st, int64_t scan_id, struct fab_snapshot **out)
{
	return load(st, scan_id, FAB_LOAD_ROCE | FAB_LOAD_NO_SAMPLES, out);
}

int fab_store_load_baseline(struct fab_store *st, int64_t scan_id, struct fab_snapshot **out)
{
	/* the tables too: the diff counts the LIDs each switch's table moved,
	 * and names the multicast groups made, gone or rerouted */
	return load(st, scan_id, FAB_LOAD_LIGHT | FAB_LOAD_ROCE | FAB_LOAD_ROUTING | FAB_LOAD_MCAST, out);
}
