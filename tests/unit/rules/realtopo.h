/* SPDX-License-Identifier: MIT */
/*
 * An ibnetdiscover file read again by a parser of its own, not the
 * importer's (scanner/topo_*.c), so that what a rule says about a real
 * fabric (tests/unit/rules/test_real.c) can be checked against the file:
 * each node's GUID, type and description, and each port line's peer and
 * active width and speed. It reads what the files of fixtures/real/
 * ibnetdiscover/ hold (tabs or none, CRLF, a BOM, ibdiagnet's port labels)
 * and nothing more. Header-only.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One port line: [num] "T-peer"[peer_port] ... # "desc" lid N <width>x<speed> */
struct rt_port {
	unsigned num, peer_port, width; /* width: lanes (4 for 4xHDR), 0 unknown */
	uint64_t peer;
	char peer_type; /* 'S', 'H', 'R' */
	char speed[8];  /* "HDR", "FDR10", "" */
};

/* One node block: Switch|Ca|Rt N "T-guid" # "desc" ... */
struct rt_node {
	uint64_t guid;
	char type; /* 'S', 'H', 'R' */
	char desc[160];
	size_t first, n; /* its ports: ports[first .. first+n) */
	unsigned role;   /* set by the caller (the import's roles) */
	bool atypical;   /* set by the caller: "in no pattern" per the review */
};

struct rt_file {
	struct rt_node *nodes;
	struct rt_port *ports;
	size_t n_nodes, n_ports, cap_nodes, cap_ports;
	size_t *by_guid; /* node indices sorted by GUID */
};

static inline void rt_free(struct rt_file *f)
{
	free(f->nodes);
	free(f->ports);
	free(f->by_guid);
	memset(f, 0, sizeof(*f));
}

/* v (n items of size sz, room for *cap) with room for one more: v itself,
 * or a larger copy; NULL when out of memory (v is kept). */
static inline void *rt_grow(void *v, size_t *cap, size_t n, size_t sz)
{
	void *m;

	if (n < *cap)
		return v;
	if ((m = realloc(v, (*cap ? 2 * *cap : 256) * sz)))
		*cap = *cap ? 2 * *cap : 256;
	return m;
}

/* After the first '"' of s: the node type letter and the GUID of "T-hex". */
static inline const char *rt_quoted_guid(const char *s, char *type, uint64_t *guid)
{
	const char *q = strchr(s, '"');
	char *end;

	if (!q || !q[1] || q[2] != '-')
		return NULL;
	*type = q[1];
	*guid = strtoull(q + 3, &end, 16);
	return *end == '"' ? end + 1 : NULL;
}

static inline int rt_cmp_guid(const void *x, const void *y, void *arg)
{
	const struct rt_file *f = arg;
	uint64_t a = f->nodes[*(const size_t *)x].guid, b = f->nodes[*(const size_t *)y].guid;

	return a < b ? -1 : a > b;
}

/* Reads path; 0, or -1 when it cannot be opened or holds a line it cannot read. */
static inline int rt_load(const char *path, struct rt_file *f)
{
	FILE *in = fopen(path, "r");
	char line[4096];

	memset(f, 0, sizeof(*f));
	if (!in)
		return -1;
	while (fgets(line, sizeof(line), in)) {
		char *s = line, *e;
		size_t len = strcspn(line, "\r\n");

		line[len] = '\0';
		if (!strncmp(s, "\xef\xbb\xbf", 3))
			s += 3;
		if (!strncmp(s, "Switch", 6) || !strncmp(s, "Ca", 2) || !strncmp(s, "Rt", 2)) {
			struct rt_node *n, *nodes = rt_grow(f->nodes, &f->cap_nodes, f->n_nodes, sizeof(*n));
			const char *after, *d0, *d1;

			if (!nodes)
				goto bad;
			f->nodes = nodes;
			n = &f->nodes[f->n_nodes++];
			memset(n, 0, sizeof(*n));
			if (!(after = rt_quoted_guid(s, &n->type, &n->guid)))
				goto bad;
			/* the description: from the '"' after '#' to the line's last '"' */
			if (!(d0 = strchr(after, '#')) || !(d0 = strchr(d0, '"')) ||
			    (d1 = strrchr(d0, '"')) == d0)
				goto bad;
			snprintf(n->desc, sizeof(n->desc), "%.*s", (int)(d1 - d0 - 1), d0 + 1);
			n->first = f->n_ports;
		} else if (s[0] == '[' && f->n_nodes) {
			struct rt_port *p, *ports = rt_grow(f->ports, &f->cap_ports, f->n_ports, sizeof(*p));
			const char *after, *tok;

			if (!ports)
				goto bad;
			f->ports = ports;
			p = &f->ports[f->n_ports];
			memset(p, 0, sizeof(*p));
			p->num = (unsigned)strtoul(s + 1, NULL, 10);
			if (!(after = rt_quoted_guid(s, &p->peer_type, &p->peer)) || *after != '[')
				goto bad;
			p->peer_port = (unsigned)strtoul(after + 1, NULL, 10);
			/* the last word: 4xHDR */
			for (e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t');)
				*--e = '\0';
			for (tok = e; tok > s && tok[-1] != ' ' && tok[-1] != '\t';)
				tok--;
			p->width = (unsigned)strtoul(tok, &e, 10);
			if (*e == 'x')
				snprintf(p->speed, sizeof(p->speed), "%s", e + 1);
			else
				p->width = 0;
			f->n_ports++;
			f->nodes[f->n_nodes - 1].n++;
		}
	}
	fclose(in);
	if (!(f->by_guid = malloc((f->n_nodes + 1) * sizeof(*f->by_guid)))) {
		rt_free(f);
		return -1;
	}
	for (size_t i = 0; i < f->n_nodes; i++)
		f->by_guid[i] = i;
	qsort_r(f->by_guid, f->n_nodes, sizeof(*f->by_guid), rt_cmp_guid, f);
	return 0;
bad:
	fclose(in);
	fprintf(stderr, "%s: cannot read: %s\n", path, line);
	rt_free(f);
	return -1;
}

static inline struct rt_node *rt_find(const struct rt_file *f, uint64_t guid)
{
	size_t lo = 0, hi = f->n_nodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t g = f->nodes[f->by_guid[mid]].guid;
		if (g == guid)
			return &f->nodes[f->by_guid[mid]];
		if (g < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Cables between a and the node of GUID b, as a's port lines list them. */
static inline unsigned rt_cables(const struct rt_file *f, const struct rt_node *a, uint64_t b)
{
	unsigned c = 0;

	for (size_t k = 0; k < a->n; k++)
		c += f->ports[a->first + k].peer == b;
	return c;
}
