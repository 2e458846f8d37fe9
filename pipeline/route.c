// SPDX-License-Identifier: MIT
/*
 * `fabsweep route SRC DST`: the path between two ports of a stored scan as
 * its forwarding tables send it, hop by hop (core/route_walk.c,
 * fab_route_trace): like ibtracert, offline, for any past snapshot.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/probe.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

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
		for (size_t i = 0; i < s->n_nodes; i++) {
			const char *d = s->nodes[i].desc;
			if (!strcmp(d, name)) {
				found = (uint32_t)i;
				break;
			}
			if (!strncmp(d, name, len) && d[len] == ' ') {
				n_first++;
				first = (uint32_t)i;
			}
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
	err = fab_route_pairs_check(ix, ends, out->n_ends, &out->pairs);
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
	struct fab_route_index *ix = calloc(1, sizeof(*ix));
	struct fab_snapshot *snap = NULL;
	uint16_t dlid = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!ix)
		return fab_err(-ENOMEM, "out of memory");
	if ((err = fab_store_open(job->db, FAB_STORE_READONLY, &st)) ||
	    (err = fab_store_resolve_scan(st, job->scan_id, &out->scan_id)) ||
	    (err = fab_store_load_scan(st, out->scan_id, &snap)))
		goto fail;
	fab_store_close(st);
	st = NULL;
	if (!fab_routing_present(snap)) {
		err = fab_err(-ENODATA, "scan %lld has no forwarding tables (scanned with --no-routes, "
			      "from a file, or before fabsweep read them)", (long long)out->scan_id);
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
	fab_route_port_lids(snap, out->dst, &dlid);
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
	fab_route_index_free(ix);
	free(ix);
	fab_snapshot_free(snap);
	return err;
}

void fab_pipeline_route_free(struct fab_pipeline_route_result *r)
{
	if (r->index) {
		fab_route_index_free(r->index);
		free(r->index);
	}
	fab_snapshot_free(r->snap);
	fab_route_pairs_free(&r->pairs);
	free(r->missed);
	memset(r, 0, sizeof(*r));
}
