// SPDX-License-Identifier: MIT
/*
 * The one name of a node in every output (include/fabsweep/nodemap.h,
 * docs/workflows.md "Node names"): the node-name-map's, else the
 * description, with enough of the GUID to tell apart the nodes that share
 * it (unmanaged switches keep their vendor's "Quantum-2 Mellanox
 * Technologies"), else the GUID. The rules build finding subjects with it,
 * the reports, the export, diff and route print it.
 *
 * Stable: a node's name depends on its own GUID and on whether its
 * description is shared, never on the order of the scan; six digits unless
 * two sharers end alike (then all sixteen, for those two only).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabsweep/nodemap.h"
#include "fabsweep/snapshot.h"

#define SHORT_MASK ((1ULL << (4 * FAB_NAME_HEX_SHORT)) - 1)

const char *fab_name_format(const struct fab_nodemap *map, uint64_t guid, const char *desc,
			    unsigned name_hex, char *buf, size_t len)
{
	const char *mapped = map ? fab_nodemap_lookup(map, guid) : NULL;

	if (mapped)
		return mapped;
	if (desc && *desc && !name_hex)
		return desc;
	if (!buf || !len)
		return desc ? desc : "";
	if (!desc || !*desc)
		snprintf(buf, len, "0x%016llx", (unsigned long long)guid);
	else if (name_hex == FAB_NAME_HEX_FULL)
		snprintf(buf, len, "%s [0x%016llx]", desc, (unsigned long long)guid);
	else
		snprintf(buf, len, "%s [..%0*llx]", desc, FAB_NAME_HEX_SHORT,
			 (unsigned long long)(guid & SHORT_MASK));
	return buf;
}

const char *fab_node_name(const struct fab_snapshot *s, uint32_t node,
			  const struct fab_nodemap *map, char *buf, size_t len)
{
	const struct fab_node *n = &s->nodes[node];

	return fab_name_format(map, n->guid, n->desc, n->name_hex, buf, len);
}

struct key {
	const char *desc;
	uint64_t guid;
	size_t i;
};

/* by description, then the short digits, then the GUID */
static int cmp_key(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = strcmp(a->desc, b->desc);

	if (c)
		return c;
	if ((a->guid & SHORT_MASK) != (b->guid & SHORT_MASK))
		return (a->guid & SHORT_MASK) < (b->guid & SHORT_MASK) ? -1 : 1;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

int fab_node_names_hex(size_t n, const uint64_t *guids, const char *const *descs, uint8_t *hex)
{
	struct key *v = malloc((n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct key){ .desc = descs[i] ? descs[i] : "", .guid = guids[i], .i = i };
		hex[i] = 0;
	}
	qsort(v, n, sizeof(*v), cmp_key);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && !strcmp(v[j].desc, v[i].desc))
			j++;
		if (j - i > 1 && *v[i].desc)
			for (size_t k = i; k < j; k++) {
				bool alike = (k > i && !((v[k].guid ^ v[k - 1].guid) & SHORT_MASK)) ||
					     (k + 1 < j && !((v[k].guid ^ v[k + 1].guid) & SHORT_MASK));
				hex[v[k].i] = alike ? FAB_NAME_HEX_FULL : FAB_NAME_HEX_SHORT;
			}
		i = j;
	}
	free(v);
	return 0;
}

int fab_snapshot_name_nodes(struct fab_snapshot *s)
{
	uint64_t *g = malloc((s->n_nodes + 1) * sizeof(*g));
	const char **d = malloc((s->n_nodes + 1) * sizeof(*d));
	uint8_t *h = malloc(s->n_nodes + 1);
	int err = -ENOMEM;

	if (g && d && h) {
		for (size_t i = 0; i < s->n_nodes; i++) {
			g[i] = s->nodes[i].guid;
			d[i] = s->nodes[i].desc;
		}
		if (!(err = fab_node_names_hex(s->n_nodes, g, d, h))) {
			for (size_t i = 0; i < s->n_nodes; i++)
				s->nodes[i].name_hex = h[i];
		}
	}
	free(g);
	free(d);
	free(h);
	return err;
}

bool fab_node_name_is(const char *text, uint64_t guid, const char *desc)
{
	size_t dl = strlen(desc), tl = strlen(text);
	char tail[24];

	if (!dl || tl <= dl || strncmp(text, desc, dl))
		return false;
	snprintf(tail, sizeof(tail), " [..%0*llx]", FAB_NAME_HEX_SHORT,
		 (unsigned long long)(guid & SHORT_MASK));
	if (!strcasecmp(text + dl, tail))
		return true;
	snprintf(tail, sizeof(tail), " [0x%016llx]", (unsigned long long)guid);
	return !strcasecmp(text + dl, tail);
}
