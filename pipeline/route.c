// SPDX-License-Identifier: MIT
/*
 * `fabsweep route SRC DST`: the path between two ports of a stored scan as
 * its forwarding tables send it, hop by hop (core/route_walk.c,
 * fab_route_trace): like ibtracert, offline, for any past snapshot. With
 * LMC > 0 a destination answers to a range of LIDs, each routed on its
 * own: --lid-offset picks one, --all-lids traces them all.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/probe.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/store_view.h"

/* A port of node n that routes start from: its first Active port with a
 * LID that is cabled (a switch: its port 0). FAB_NONE when none. */
static uint32_t node_end(const struct fab_snapshot *s, uint32_t n)
{
	const struct fab_node *nd = &s->nodes[n];
	uint16_t lid;

	for (uint32_t k = 0; k < nd->port_count; k++) {
		uint32_t pi = nd->port_first + k;
		const struct fab_port *p = &s->ports[pi];
		if (nd->type == FAB_NODE_SWITCH ? p->port_num == 0
		    : p->port_num > 0 && p->state == FAB_STATE_ACTIVE && p->remote_idx != FAB_NONE) {
			if (fab_route_port_lids(s, pi, &lid))
				return pi;
		}
	}
	return FAB_NONE;
}

/* Whether s is all digits (base 10) or 0x and hex digits; *v its value. */
static bool number(const char *s, uint64_t *v, size_t *hex_digits)
{
	char *end;

	*hex_digits = 0;
	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		*hex_digits = strlen(s + 2);
		*v = strtoull(s + 2, &end, 16);
	} else {
		*v = strtoull(s, &end, 10);
	}
	return !errno && !*end && end != s;
}

/*
 * A host as the user names it: a LID (decimal, or 0x and up to 4 hex
 * digits), a node or port GUID (0x and more hex digits), or a node
 * description (exact, else its first word, e.g. "host01" for
 * "host01 HCA-1"; it must name one node). The port routes start from.
 */
static int resolve(const struct fab_route_index *ix, const char *name, uint32_t *out)
{
	const struct fab_snapshot *s = ix->snap;
	uint64_t v;
	size_t hex;
	uint32_t found = FAB_NONE;

	if (number(name, &v, &hex)) {
		if (hex <= 4) { /* a LID */
			if (v > FAB_LID_UNICAST_MAX || ix->lid_owner[v] == FAB_NONE)
				return fab_err(-ENOENT, "no port of the scan has LID %s", name);
			*out = ix->lid_owner[v];
			return 0;
		}
		/* a CA's port GUID names that port; a node GUID the node */
		for (size_t i = 0; i < s->n_ports; i++) {
			const struct fab_port *p = &s->ports[i];
			if (p->guid == v && p->port_num > 0 &&
			    s->nodes[p->node_idx].type != FAB_NODE_SWITCH) {
				*out = (uint32_t)i;
				return 0;
			}
		}
		if ((found = fab_snapshot_find_node(s, v)) == FAB_NONE)
			return fab_err(-ENOENT, "no node or port of the scan has GUID %s", name);
	} else {
		size_t len = strlen(name), n_first = 0;
		uint32_t first = FAB_NONE;
		bool by_name = false;
		for (size_t i = 0; i < s->n_nodes; i++) {
			const char *d = s->nodes[i].desc;
			if (fab_node_name_is(name, s->nodes[i].guid, d)) { /* "desc [..91cf00]" */
				found = (uint32_t)i;
				by_name = true;
				break;
			}
			if (!strcmp(d, name)) {
				if (found == FAB_NONE)
					found = (uint32_t)i;
				continue;
			}
			if (!strncmp(d, name, len) && d[len] == ' ') {
				n_first++;
				first = (uint32_t)i;
			}
		}
		/* a description other nodes of the scan have too (name_hex is the
		 * whole scan's, whatever the view loaded) */
		if (found != FAB_NONE && !by_name && s->nodes[found].name_hex) {
			char nb[FAB_NODE_NAME_CAP];
			return fab_err(-EINVAL, "'%s' is the description of several nodes: name one as "
				       "'%s' (docs/workflows.md, \"Node names\") or by GUID", name,
				       fab_node_name(s, found, NULL, nb, sizeof(nb)));
		}
		if (found == FAB_NONE && n_first > 1)
			return fab_err(-EINVAL, "'%s' names %zu nodes: give the whole description or a GUID",
				       name, n_first);
		if (found == FAB_NONE)
			found = first;
		if (found == FAB_NONE)
			return fab_err(-ENOENT, "no node of the scan is called '%s'", name);
	}
	if ((*out = node_end(s, found)) == FAB_NONE)
		return fab_err(-ENOENT, "'%s' has no active, cabled port with a LID in the scan", name);
	return 0;
}

/* The LID to trace to port dst: the LID job->dst names when it is one,
 * else dst's base LID + job->lid_offset. Sets out's range. */
static int pick_dlid(const struct fab_snapshot *s, const struct fab_pipeline_route *job,
		     struct fab_pipeline_route_result *out, uint16_t *dlid)
{
	uint64_t v;
	size_t hex;

	out->n_lids = fab_route_port_lids(s, out->dst, &out->base_lid);
	if (number(job->dst, &v, &hex) && hex <= 4) {
		if (job->lid_offset)
			return fab_err(-EINVAL, "--lid-offset goes with a DST named by name or GUID: "
				       "the LID %s is one LID of its range already", job->dst);
		*dlid = (uint16_t)v;
		return 0;
	}
	if (job->lid_offset >= out->n_lids)
		return fab_err(-EINVAL, "'%s' answers to %u LID%s (%u to %u): --lid-offset %u is "
			       "past its range", job->dst, out->n_lids, out->n_lids == 1 ? "" : "s",
			       out->base_lid, out->base_lid + out->n_lids - 1, job->lid_offset);
	*dlid = (uint16_t)(out->base_lid + job->lid_offset);
	return 0;
}

/* --all-lids: the path to every LID of the destination's range. */
static int trace_all(const struct fab_pipeline_route *job, struct fab_pipeline_route_result *out)
{
	if (!(out->paths = calloc(out->n_lids + 1, sizeof(*out->paths))))
		return fab_err(-ENOMEM, "out of memory");
	for (unsigned k = 0; k < out->n_lids; k++)
		if (fab_route_trace(out->index, out->src, (uint16_t)(out->base_lid + k), &out->paths[k]))
			return fab_err(-EINVAL, "'%s' cannot send: no active, cabled port with a LID",
				       job->src);
	out->n_paths = out->n_lids;
	out->path = out->paths[0];
	out->dlid = out->base_lid;
	return 0;
}

static int no_tables(int64_t scan_id)
{
	return fab_err(-ENODATA, "scan %lld has no forwarding tables (scanned with --no-routes, "
		       "from a file, or before fabsweep read them)", (long long)scan_id);
}

/* The result's snapshot and index, freed. */
static void free_parts(struct fab_pipeline_route_result *r)
{
	if (r->index) {
		fab_route_index_free(r->index);
		free(r->index);
	}
	fab_snapshot_free(r->snap);
	r->index = NULL;
	r->snap = NULL;
}

/* ---- one route, loading only its path ----------------------------------- */

/* Whether name may name the CA (guid, desc): its node GUID, its whole
 * description or the description's first word. resolve() then decides. */
static bool may_name(const char *name, uint64_t guid, const char *desc)
{
	uint64_t v;
	size_t hex, len = strlen(name);

	if (number(name, &v, &hex))
		return hex > 4 && v == guid;
	return (!strncmp(desc, name, len) && (desc[len] == '\0' || desc[len] == ' ')) ||
	       fab_node_name_is(name, guid, desc);
}

static bool want_ends(uint64_t guid, const char *desc, void *ctx)
{
	const struct fab_pipeline_route *job = ctx;

	return may_name(job->src, guid, desc) || may_name(job->dst, guid, desc);
}

/* Whether name is a LID (*lid set): the view is seeded with its node. */
static bool is_lid(const char *name, uint64_t *lid)
{
	size_t hex;

	return number(name, lid, &hex) && hex <= 4;
}

struct guids {
	uint64_t v[FAB_ROUTE_MAX_HOPS + 4];
	size_t n;
};

static void add_guid(struct guids *g, uint64_t guid)
{
	for (size_t k = 0; k < g->n; k++)
		if (g->v[k] == guid)
			return;
	g->v[g->n++] = guid;
}

/* The node of each end given as a LID, into g (the view loads it whole);
 * *fallback when no port has that LID (the whole scan says so). */
static int seed_lids(struct fab_store *st, const struct fab_pipeline_route *job, int64_t scan_id,
		     struct guids *g, bool *fallback)
{
	const char *ends[] = { job->src, job->dst };

	for (size_t i = 0; i < 2; i++) {
		uint64_t lid, guid = 0;
		int err;

		if (!is_lid(ends[i], &lid))
			continue;
		if (lid <= FAB_LID_UNICAST_MAX &&
		    (err = fab_store_lid_node(st, scan_id, (unsigned)lid, &guid)))
			return err;
		if (!guid) { /* no such LID (or none unicast): the whole scan says so */
			*fallback = true;
			return -ENOENT;
		}
		add_guid(g, guid);
	}
	return 0;
}

/* The port (index) of node guid's port num in s, FAB_NONE. */
static uint32_t port_of(const struct fab_snapshot *s, uint64_t guid, unsigned num)
{
	uint32_t n = fab_snapshot_find_node(s, guid);
	const struct fab_port *p = n == FAB_NONE ? NULL : fab_snapshot_port(s, n, num);

	return p ? (uint32_t)(p - s->ports) : FAB_NONE;
}

/*
 * The route over views of the scan that grow along the path
 * (fab_store_load_route_view): the two hosts first, then each switch the
 * path reaches without its table. *fallback set (and nothing else) when
 * the view cannot tell (a name the view does not find: the whole scan
 * decides, with the whole scan's messages).
 */
static int route_by_views(struct fab_store *st, const struct fab_pipeline_route *job,
			  struct fab_pipeline_route_result *out, bool *fallback)
{
	struct guids g = { .n = 0 };
	uint64_t src_guid = 0, dst_guid = 0;
	unsigned src_num = 0, dst_num = 0;
	int err;

	*fallback = false;
	if ((err = seed_lids(st, job, out->scan_id, &g, fallback)))
		return err;
	for (size_t iter = 0; iter < FAB_ROUTE_MAX_HOPS + 2; iter++) {
		struct fab_snapshot *snap = NULL;
		struct fab_route_index *ix = calloc(1, sizeof(*ix));
		uint16_t dlid = 0;

		if (!ix)
			return fab_err(-ENOMEM, "out of memory");
		if ((err = fab_store_load_route_view(st, out->scan_id, iter ? NULL : want_ends, (void *)job,
						     g.v, g.n, &snap)) ||
		    (err = fab_route_index_build(snap, ix))) {
			if (err == -ENOMEM)
				fab_err(err, "out of memory");
			free(ix);
			fab_snapshot_free(snap);
			return err;
		}
		out->snap = snap;
		out->index = ix;
		if (!iter) {
			if ((err = resolve(ix, job->src, &out->src)) || (err = resolve(ix, job->dst, &out->dst))) {
				*fallback = err == -ENOENT;
				return err;
			}
			/* a switch at an end (a peer here, without its table): the whole scan */
			if (snap->nodes[snap->ports[out->src].node_idx].type == FAB_NODE_SWITCH ||
			    snap->nodes[snap->ports[out->dst].node_idx].type == FAB_NODE_SWITCH) {
				*fallback = true;
				return -ENOENT;
			}
			src_guid = snap->nodes[snap->ports[out->src].node_idx].guid;
			dst_guid = snap->nodes[snap->ports[out->dst].node_idx].guid;
			src_num = snap->ports[out->src].port_num;
			dst_num = snap->ports[out->dst].port_num;
			add_guid(&g, src_guid);
			add_guid(&g, dst_guid);
		} else if ((out->src = port_of(snap, src_guid, src_num)) == FAB_NONE ||
			   (out->dst = port_of(snap, dst_guid, dst_num)) == FAB_NONE) {
			return fab_err(-EIO, "scan %lld changed while it was read", (long long)out->scan_id);
		}
		if ((err = pick_dlid(snap, job, out, &dlid)))
			return err;
		out->dlid = dlid;
		if ((err = fab_route_trace(ix, out->src, dlid, &out->path)))
			return fab_err(err, "'%s' cannot send: no active, cabled port with a LID", job->src);
		/* a switch the path reached that the view has without its table */
		const struct fab_route_path *pa = &out->path;
		uint32_t last = pa->n_hops ? snap->ports[pa->hop[pa->n_hops - 1]].remote_idx : FAB_NONE;
		uint32_t node = last == FAB_NONE ? FAB_NONE : snap->ports[last].node_idx;
		if (pa->fault != FAB_ROUTE_UNKNOWN || node == FAB_NONE ||
		    snap->nodes[node].type != FAB_NODE_SWITCH || fab_routing_lft(snap, node) ||
		    g.n == sizeof(g.v) / sizeof(g.v[0]))
			return 0;
		if (iter && !fab_routing_present(snap))
			return no_tables(out->scan_id);
		for (size_t k = 0; k < g.n; k++)
			if (g.v[k] == snap->nodes[node].guid)
				return 0; /* loaded whole, and no table: the scan has none for it */
		g.v[g.n++] = snap->nodes[node].guid;
		free_parts(out);
	}
	return 0;
}

/* Whether port is an end of the index (ix->ends is ascending). */
static bool is_end(const struct fab_route_index *ix, uint32_t port)
{
	size_t lo = 0, hi = ix->n_ends;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->ends[mid] < port)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n_ends && ix->ends[lo] == port;
}

/* --all-pairs: the hosts' ends, then every pair of them. */
static int all_pairs(const struct fab_pipeline_route *job, struct fab_pipeline_route_result *out)
{
	const struct fab_snapshot *s = out->snap;
	const struct fab_route_index *ix = out->index;
	size_t n_names = fab_hostlist_count(job->hosts);
	const char **names = calloc(n_names + 1, sizeof(*names));
	struct fab_ready_hosts *h = NULL;
	uint8_t *seen = NULL; /* per host: 1 in the scan, 2 with a port to check */
	uint32_t *ends = malloc((ix->n_ends + 1) * sizeof(*ends));
	int err = -ENOMEM;

	if (!names || !ends)
		goto out;
	for (size_t i = 0; i < n_names; i++)
		names[i] = fab_hostlist_get(job->hosts, i);
	if (fab_ready_hosts_new(names, n_names, &h))
		goto out;
	out->n_hosts = fab_ready_hosts_count(h);
	if (!(seen = calloc(out->n_hosts + 1, 1)) ||
	    !(out->missed = calloc(out->n_hosts + 1, sizeof(*out->missed))))
		goto out;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		size_t k = n->type == FAB_NODE_CA ? fab_ready_hosts_find(h, n->desc) : (size_t)-1;

		if (k == (size_t)-1)
			continue;
		seen[k] |= 1;
		for (uint32_t j = 0; j < n->port_count; j++)
			if (is_end(ix, n->port_first + j)) {
				ends[out->n_ends++] = n->port_first + j;
				seen[k] |= 2;
			}
	}
	for (size_t k = 0; k < out->n_hosts; k++)
		if (!(seen[k] & 2))
			out->missed[out->n_missed++] = (struct fab_route_host_miss){
				/* the list's own string (job->hosts) */
				.host = fab_ready_hosts_name(h, k),
				.no_port = seen[k] & 1,
			};
	err = fab_route_pairs_check(ix, ends, out->n_ends, true, &out->pairs);
out:
	if (err == -ENOMEM)
		fab_err(err, "out of memory");
	fab_ready_hosts_free(h);
	free(names);
	free(seen);
	free(ends);
	return err;
}

int fab_pipeline_route(const struct fab_pipeline_route *job, struct fab_pipeline_route_result *out)
{
	struct fab_store *st = NULL;
	struct fab_route_index *ix = NULL;
	struct fab_snapshot *snap = NULL;
	bool fallback = true;
	uint16_t dlid = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = fab_store_open(job->db, FAB_STORE_READONLY, &st)) ||
	    (err = fab_store_resolve_scan(st, job->scan_id, &out->scan_id)))
		goto fail;
	/* one route between two hosts (names, GUIDs or LIDs): only its path is read */
	if (!job->hosts && !job->all_lids) {
		err = route_by_views(st, job, out, &fallback);
		if (!fallback) {
			fab_store_close(st);
			if (err)
				fab_pipeline_route_free(out);
			return err;
		}
		free_parts(out);
	}
	/* the whole scan */
	if (!(ix = calloc(1, sizeof(*ix)))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto fail;
	}
	if ((err = fab_store_load_scan(st, out->scan_id, &snap)))
		goto fail;
	fab_store_close(st);
	st = NULL;
	if (!fab_routing_present(snap)) {
		err = no_tables(out->scan_id);
		goto fail;
	}
	if ((err = fab_route_index_build(snap, ix))) {
		fab_err(err, "out of memory");
		goto fail;
	}
	out->snap = snap;
	out->index = ix;
	if (job->hosts) {
		if ((err = all_pairs(job, out)))
			goto fail_out;
		return 0;
	}
	if ((err = resolve(ix, job->src, &out->src)) || (err = resolve(ix, job->dst, &out->dst)))
		goto fail_out;
	if ((err = pick_dlid(snap, job, out, &dlid)))
		goto fail_out;
	if (job->all_lids) {
		if ((err = trace_all(job, out)))
			goto fail_out;
		return 0;
	}
	out->dlid = dlid;
	if ((err = fab_route_trace(ix, out->src, dlid, &out->path))) {
		fab_err(err, "'%s' cannot send: no active, cabled port with a LID", job->src);
		goto fail_out;
	}
	return 0;
fail_out:
	fab_pipeline_route_free(out);
	return err;
fail:
	fab_store_close(st);
	if (ix)
		fab_route_index_free(ix);
	free(ix);
	fab_snapshot_free(snap);
	return err;
}

void fab_pipeline_route_free(struct fab_pipeline_route_result *r)
{
	free_parts(r);
	free(r->paths);
	fab_route_pairs_free(&r->pairs);
	free(r->missed);
	memset(r, 0, sizeof(*r));
}
