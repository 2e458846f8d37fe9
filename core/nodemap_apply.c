// SPDX-License-Identifier: MIT
/*
 * Node-name-map names in output (include/fabsweep/nodemap.h): finding
 * subjects rebuilt with mapped names, and snapshots renamed in memory for
 * the reports. The rules build a subject from descriptions ("leaf003/5 <->
 * spine001/3"), and the stored subject is kept as evidence; only output
 * shows the mapped names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/snapshot.h"

/* The node a finding field names (a GUID), FAB_NONE if none. */
static uint32_t node_of(const struct fab_snapshot *s, const char *text)
{
	uint64_t g;

	if (!text || fab_guid_parse(text, &g))
		return FAB_NONE;
	return fab_snapshot_find_node(s, g);
}

/* "name[/port][ <-> name/port]" with the names the rules give (map NULL)
 * or the mapped ones (fab_node_name). */
static size_t build(const struct fab_nodemap *map, const struct fab_snapshot *s,
		    uint32_t a, const char *pa, uint32_t b, const char *pb, char *buf,
		    size_t len)
{
	size_t off = 0;

	for (int k = 0; k < 2; k++) {
		uint32_t n = k ? b : a;
		const char *port = k ? pb : pa;
		char nb[FAB_NODE_NAME_CAP];

		if (k)
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, " <-> ");
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s",
					fab_node_name(s, n, map, nb, sizeof(nb)));
		if (port)
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "/%s", port);
		if (b == FAB_NONE)
			break;
	}
	return off;
}

const char *fab_nodemap_subject(const struct fab_nodemap *map, const struct fab_snapshot *snap,
				const struct fab_finding *f, char *buf, size_t len)
{
	uint32_t a, b = FAB_NONE;
	char std[1024];

	if (!map || !f->subject || !buf || !len || (a = node_of(snap, f->node)) == FAB_NONE)
		return f->subject;
	if (f->peer_node && (b = node_of(snap, f->peer_node)) == FAB_NONE)
		return f->subject;
	if (b != FAB_NONE && (!f->port || !f->peer_port))
		return f->subject;
	if (!fab_nodemap_lookup(map, snap->nodes[a].guid) &&
	    (b == FAB_NONE || !fab_nodemap_lookup(map, snap->nodes[b].guid)))
		return f->subject; /* nothing to rename */
	if (build(NULL, snap, a, f->port, b, f->peer_port, std, sizeof(std)) >= sizeof(std) ||
	    strcmp(std, f->subject))
		return f->subject; /* a subject of another form */
	if (build(map, snap, a, f->port, b, f->peer_port, buf, len) >= len)
		return f->subject;
	return buf;
}

const char *fab_finding_node_name(const struct fab_nodemap *map, const struct fab_snapshot *snap,
				  const char *text, char *buf, size_t len)
{
	uint32_t n = node_of(snap, text);

	return n == FAB_NONE ? text : fab_node_name(snap, n, map, buf, len);
}

int fab_nodemap_apply(const struct fab_nodemap *map, struct fab_snapshot *snap)
{
	char buf[2048];

	if (!map)
		return 0;
	/* subjects first: they are recognised by the descriptions */
	for (size_t i = 0; i < snap->n_findings; i++) {
		struct fab_finding *f = &snap->findings[i];
		const char *s = fab_nodemap_subject(map, snap, f, buf, sizeof(buf));

		if (s == buf && !(f->subject = fab_snapshot_strdup(snap, buf, SIZE_MAX)))
			return -ENOMEM;
	}
	for (size_t i = 0; i < snap->n_nodes; i++) {
		struct fab_node *n = &snap->nodes[i];
		const char *name = fab_nodemap_lookup(map, n->guid);

		if (name) {
			snprintf(n->desc, sizeof(n->desc), "%s", name);
			n->name_hex = 0; /* the map's name is the name */
		}
	}
	return 0;
}
