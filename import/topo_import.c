// SPDX-License-Identifier: MIT
/*
 * Importer of ibnetdiscover text into a snapshot (see fabsweep/topo.h and
 * docs/topology-files.md). The lexer is topo_lex.c, the line parser
 * topo_parse.c; this file checks the records, resolves the links and fills
 * the snapshot.
 *
 * Two phases. The parser reads the text line by line into private node and
 * port records (descriptions point into the input, nothing is copied); it
 * never looks past a line's end and checks every number's range. Then the
 * records are checked as a whole (duplicate nodes and ports), every port's
 * remote end is resolved by (GUID, port number) through sorted arrays, and
 * only then is the caller's snapshot filled, so a malformed file leaves it
 * untouched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <inttypes.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/topo.h"
#include "import/topo_import.h"

/* ------------------------------------------------------------------ */
/* Checking and resolving.                                             */

struct guid_idx {
	uint64_t guid;
	uint32_t idx;
};

static int cmp_guid_idx(const void *a, const void *b)
{
	const struct guid_idx *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_tport(const void *a, const void *b)
{
	const struct tport *x = a, *y = b;

	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Node index by GUID, FAB_NONE when absent. */
static uint32_t find_node(const struct guid_idx *order, size_t n, uint64_t guid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (order[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && order[lo].guid == guid ? order[lo].idx : FAB_NONE;
}

/* Port index (in ps->ports) of port num of node ni, FAB_NONE when absent. */
static uint32_t find_port(const struct parser *ps, uint32_t ni, unsigned num)
{
	const struct tnode *n = &ps->nodes[ni];
	size_t lo = n->first, hi = (size_t)n->first + n->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->ports[mid].num < num)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (size_t)n->first + n->count && ps->ports[lo].num == num ?
		       (uint32_t)lo : FAB_NONE;
}

/* Sorts ports, refuses duplicate nodes and ports, resolves remote ends. */
static int check_and_resolve(struct parser *ps, struct guid_idx **out)
{
	struct guid_idx *order;

	for (size_t i = 0; i < ps->n_nodes; i++) {
		struct tnode *n = &ps->nodes[i];
		struct tport *p;

		if (n->count < 2)
			continue;
		p = &ps->ports[n->first];
		qsort(p, n->count, sizeof(*p), cmp_tport);
		for (uint32_t k = 1; k < n->count; k++) {
			if (p[k].num == p[k - 1].num) {
				ps->line = p[k].line;
				return ti_perr(ps, -EINVAL,
					    "port %u of %c-%016" PRIx64
					    " is listed twice (also at line %zu)",
					    p[k].num, ti_letter_from_type(n->type),
					    n->guid, p[k - 1].line);
			}
		}
	}
	order = malloc((ps->n_nodes + 1) * sizeof(*order));
	if (!order)
		return fab_err(-ENOMEM, "%s: out of memory", ps->name);
	for (size_t i = 0; i < ps->n_nodes; i++) {
		order[i].guid = ps->nodes[i].guid;
		order[i].idx = (uint32_t)i;
	}
	qsort(order, ps->n_nodes, sizeof(*order), cmp_guid_idx);
	for (size_t i = 1; i < ps->n_nodes; i++) {
		if (order[i].guid == order[i - 1].guid) {
			const struct tnode *a = &ps->nodes[order[i - 1].idx];
			const struct tnode *b = &ps->nodes[order[i].idx];
			ps->line = b->line;
			free(order);
			return ti_perr(ps, -EINVAL,
				    "node GUID 0x%016" PRIx64
				    " is described twice (also at line %zu)",
				    b->guid, a->line);
		}
	}
	for (size_t i = 0; i < ps->n_ports; i++) {
		struct tport *p = &ps->ports[i];
		const struct tnode *n = &ps->nodes[p->node];
		uint32_t rn = find_node(order, ps->n_nodes, p->rguid);

		if (rn == FAB_NONE ||
		    (p->rtype && p->rtype != ps->nodes[rn].type))
			continue;
		uint32_t rp = find_port(ps, rn, p->rport);
		if (rp == FAB_NONE)
			continue;
		if (ps->ports[rp].rguid == n->guid &&
		    ps->ports[rp].rport == p->num)
			p->remote = rp;
	}
	/* Only pairs that confirm each other are links: an end whose own line
	 * failed a check (the type letter) leaves the other end a hole too. */
	for (size_t i = 0; i < ps->n_ports; i++) {
		struct tport *p = &ps->ports[i];
		if (p->remote != FAB_NONE && ps->ports[p->remote].remote != i)
			p->remote = FAB_NONE;
	}
	*out = order;
	return 0;
}

static const char *type_noun(unsigned type)
{
	switch (type) {
	case FAB_NODE_SWITCH:
		return "a switch";
	case FAB_NODE_CA:
		return "a CA";
	case FAB_NODE_ROUTER:
		return "a router";
	default:
		return "an unknown type";
	}
}

/* Why a port's remote end did not resolve, for the scan error. */
static const char *unresolved_why(const struct parser *ps,
				  const struct guid_idx *order,
				  const struct tport *p, char *buf, size_t cap)
{
	uint32_t rn = find_node(order, ps->n_nodes, p->rguid);
	uint32_t rp;

	if (rn == FAB_NONE)
		return "which the file does not describe";
	if (p->rtype && p->rtype != ps->nodes[rn].type) {
		snprintf(buf, cap, "but the file describes that node as %s",
			 type_noun(ps->nodes[rn].type));
		return buf;
	}
	rp = find_port(ps, rn, p->rport);
	if (rp == FAB_NONE)
		return "which does not list that port";
	if (ps->ports[rp].rguid != ps->nodes[p->node].guid ||
	    ps->ports[rp].rport != p->num)
		return "which names another remote end";
	return "whose line names this node as another type";
}

/* ------------------------------------------------------------------ */
/* Filling the snapshot.                                               */

static struct fab_port *add_port(struct fab_snapshot *snap, uint32_t node_idx)
{
	struct fab_port *p = fab_snapshot_add_port(snap);

	if (p) {
		p->node_idx = node_idx;
		snap->nodes[node_idx].port_count++;
	}
	return p;
}

/* Hops from the node the discovery started at, by breadth-first search over
 * the links; nodes it does not reach keep -1. */
static int set_hops(struct fab_snapshot *snap, uint64_t origin)
{
	uint32_t start = fab_snapshot_find_node(snap, origin);
	uint32_t *queue, head = 0, tail = 0;

	if (start == FAB_NONE)
		return 0;
	queue = malloc(snap->n_nodes * sizeof(*queue));
	if (!queue)
		return -ENOMEM;
	snap->nodes[start].hops = 0;
	queue[tail++] = start;
	while (head < tail) {
		const struct fab_node *n = &snap->nodes[queue[head++]];

		for (uint32_t k = 0; k < n->port_count; k++) {
			uint32_t r = snap->ports[n->port_first + k].remote_idx;
			struct fab_node *m;

			if (r == FAB_NONE)
				continue;
			m = &snap->nodes[snap->ports[r].node_idx];
			if (m->hops >= 0)
				continue;
			m->hops = (int16_t)(n->hops < INT16_MAX ? n->hops + 1 : INT16_MAX);
			queue[tail++] = snap->ports[r].node_idx;
		}
	}
	free(queue);
	return 0;
}

static bool any_link(const struct parser *ps)
{
	for (size_t i = 0; i < ps->n_ports; i++)
		if (ps->ports[i].remote != FAB_NONE)
			return true;
	return false;
}

static int fill(struct parser *ps, const struct guid_idx *order,
		struct fab_snapshot *snap)
{
	bool partial = false;

	for (size_t i = 0; i < ps->n_nodes; i++) {
		const struct tnode *t = &ps->nodes[i];
		struct fab_node *n = fab_snapshot_add_node(snap);
		uint32_t ni = (uint32_t)(snap->n_nodes - 1);
		uint64_t port_guid = t->port_guid ? t->port_guid : t->guid;
		struct fab_port *p;

		if (!n)
			return -ENOMEM;
		n->guid = t->guid;
		n->sys_guid = t->sys_guid;
		n->type = t->type;
		n->num_ports = t->nports;
		n->vendor_id = t->vendor_id;
		n->device_id = t->device_id;
		n->lid = t->lid;
		fab_node_set_desc(n, (const uint8_t *)(t->desc ? t->desc : ""),
				  t->desc_len);
		if (t->type == FAB_NODE_SWITCH) {
			if (!(p = add_port(snap, ni)))
				return -ENOMEM;
			p->port_num = 0;
			p->guid = port_guid;
			p->lid = t->lid;
			p->lmc = t->lmc;
			p->state = FAB_STATE_ACTIVE;
			p->phys_state = FAB_PHYS_LINKUP;
		}
		for (uint32_t k = 0; k < t->count; k++) {
			struct tport *tp = &ps->ports[t->first + k];

			if (!(p = add_port(snap, ni)))
				return -ENOMEM;
			tp->snap_idx = (uint32_t)(snap->n_ports - 1);
			p->port_num = tp->num;
			if (t->type == FAB_NODE_SWITCH) {
				p->guid = port_guid;
				p->lid = t->lid;
			} else {
				p->guid = tp->guid;
				p->lid = tp->lid;
				p->lmc = tp->lmc;
				if (tp->have_lid && !snap->nodes[ni].lid)
					snap->nodes[ni].lid = tp->lid;
			}
			p->state = FAB_STATE_ACTIVE;
			p->phys_state = FAB_PHYS_LINKUP;
			p->width_active = tp->width;
			p->speed_active = tp->speed;
			p->remote_guid = tp->rguid;
			p->remote_port = tp->rport;
		}
	}
	for (size_t i = 0; i < ps->n_ports; i++) {
		const struct tport *tp = &ps->ports[i];
		const struct tnode *t = &ps->nodes[tp->node];
		struct fab_port *p = &snap->ports[tp->snap_idx];

		if (tp->remote != FAB_NONE) {
			p->remote_idx = ps->ports[tp->remote].snap_idx;
			continue;
		}
		char why[64];

		partial = true;
		p->flags |= FAB_F_NO_REMOTE;
		if (fab_snapshot_add_error(
			    snap, t->guid, tp->num, "hole",
			    "%s:%zu: %c-%016" PRIx64 " port %u is cabled to %c-%016" PRIx64
			    " port %u, %s",
			    ps->name, tp->line, ti_letter_from_type(t->type), t->guid,
			    tp->num, ti_letter_from_type(tp->rtype), tp->rguid,
			    tp->rport,
			    unresolved_why(ps, order, tp, why, sizeof(why))))
			return -ENOMEM;
	}
	snap->status = partial ? FAB_SCAN_PARTIAL : FAB_SCAN_COMPLETE;
	if (ps->have_time)
		snap->started_at_ms = snap->finished_at_ms = ps->time_ms;
	snap->source = fab_snapshot_printf(snap, "file:%s", ps->name);
	if (!snap->source)
		return -ENOMEM;
	/* (build_links would hand qsort a NULL array when there is no link) */
	snap->n_links = 0;
	if (any_link(ps) && fab_snapshot_build_links(snap))
		return -ENOMEM;
	if (fab_snapshot_index(snap))
		return -ENOMEM;
	/* leaf/spine/core as a live scan assigns them */
	fab_topology_assign_roles(snap);
	if (ps->have_origin)
		return set_hops(snap, ps->origin);
	return 0;
}

int fab_topo_import(const char *text, size_t len, const char *name,
		    struct fab_snapshot *snap)
{
	struct parser ps = { .name = name ? name : "<input>" };
	const char *p, *end;
	struct guid_idx *order = NULL;
	int rc = 0;

	if (!snap || (!text && len))
		return fab_err(-EINVAL, "%s: no input or no snapshot", ps.name);
	if (!text)
		text = "";
	p = text;
	end = text + len;
	if (snap->n_nodes || snap->n_ports)
		return fab_err(-EINVAL,
			       "%s: the snapshot to import into is not empty",
			       ps.name);
	if (len >= 2 && ((p[0] == '\xff' && p[1] == '\xfe') ||
			 (p[0] == '\xfe' && p[1] == '\xff'))) {
		ps.line = 1;
		return ti_perr(&ps, -EINVAL,
			    "UTF-16 text; convert it first: iconv -f UTF-16 -t UTF-8");
	}
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		ps.line++;
		if (le - p > FAB_TOPO_LINE_MAX) {
			rc = ti_perr(&ps, -EINVAL,
				  "line longer than %d bytes: not ibnetdiscover output",
				  FAB_TOPO_LINE_MAX);
			goto out;
		}
		rc = ti_parse_line(&ps, p, le);
		if (rc)
			goto out;
		p = nl ? nl + 1 : end;
	}
	if (ps.n_nodes == 0) {
		ps.line = ps.line ? ps.line : 1;
		rc = ti_perr(&ps, -EINVAL,
			  "no Switch, Ca or Rt node found: not ibnetdiscover output");
		goto out;
	}
	rc = check_and_resolve(&ps, &order);
	if (rc)
		goto out;

	size_t n_links = snap->n_links, n_errors = snap->n_errors;
	struct fab_snapshot saved = *snap;
	rc = fill(&ps, order, snap);
	if (rc) {
		/* Leave the snapshot as it was (strings stay in its arena). */
		snap->n_nodes = snap->n_ports = 0;
		snap->n_links = n_links;
		snap->n_errors = n_errors;
		snap->status = saved.status;
		snap->source = saved.source;
		snap->started_at_ms = saved.started_at_ms;
		snap->finished_at_ms = saved.finished_at_ms;
		rc = fab_err(rc, "%s: out of memory", ps.name);
	}
out:
	free(order);
	free(ps.nodes);
	free(ps.ports);
	return rc;
}

int fab_topo_import_file(const char *path, struct fab_snapshot *snap)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (!f)
		return fab_err(-errno, "cannot open '%s': %s", path,
			       strerror(errno));
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : (size_t)1 << 16;
			char *nb;

			if (cap >= FAB_TOPO_FILE_MAX) {
				char extra;

				if (fread(&extra, 1, 1, f) == 0 && !ferror(f))
					break; /* exactly at the limit */
				rc = fab_err(-EFBIG,
					     "'%s' is larger than %zu bytes: not a topology file",
					     path, FAB_TOPO_FILE_MAX);
				goto out;
			}
			if (ncap > FAB_TOPO_FILE_MAX)
				ncap = FAB_TOPO_FILE_MAX;
			nb = realloc(buf, ncap);
			if (!nb) {
				rc = fab_err(-ENOMEM, "'%s': out of memory", path);
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f)) {
				rc = fab_err(-EIO, "cannot read '%s'", path);
				goto out;
			}
			break;
		}
	}
	rc = fab_topo_import(buf, len, path, snap);
out:
	free(buf);
	fclose(f);
	return rc;
}

