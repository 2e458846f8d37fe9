// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdint.h>
#include <unistd.h>

#include "arena.h"
#include "fabsweep/names.h"
#include "fabsweep/pkey.h"
#include "fabsweep/qos.h"
#include "fabsweep/roce.h"
#include "fabsweep/mcast.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

struct fab_snapshot *fab_snapshot_new(void)
{
	struct fab_snapshot *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->arena = fab_arena_new();
	if (!s->arena) {
		free(s);
		return NULL;
	}
	return s;
}

void fab_snapshot_free(struct fab_snapshot *s)
{
	if (!s)
		return;
	free(s->nodes);
	free(s->ports);
	free(s->links);
	free(s->samples);
	free(s->sms);
	free(s->errors);
	free(s->findings);
	free(s->events);
	free(s->guid_order);
	free(s->port_sample[0]);
	free(s->port_sample[1]);
	fab_roce_free(s->roce);
	fab_routing_free(s->routing);
	fab_pkeys_free(s->pkeys);
	fab_modules_clear(&s->ib_modules);
	free(s->ber);
	fab_qos_free(s->qos);
	fab_mcast_free(s->mcast);
	fab_arena_free(s->arena);
	free(s);
}

size_t fab_hash_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

void *fab_array_grow(void **arr, size_t *n, size_t *cap, size_t elem)
{
	if (*n >= UINT32_MAX - 2) /* indices are uint32_t, FAB_NONE the top */
		return NULL;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		void *p = realloc(*arr, ncap * elem);

		if (!p)
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	void *e = (char *)*arr + (*n)++ * elem;
	memset(e, 0, elem);
	return e;
}

/*
 * Prefaults [p, p + len) in one system call. Touching fresh memory one page
 * at a time costs a page fault per 4 KiB, which on virtual machines is most
 * of the cost of loading a large snapshot (measured: 17 us a fault against
 * 6 us a page prefaulted). Only for arrays about to be filled; advice, so
 * failure (kernels before 5.14) is ignored.
 */
static void prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(pg - 1);

	if (end > a)
		madvise((void *)a, end - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}

int fab_array_reserve(void **arr, size_t n, size_t *cap, size_t elem, size_t more)
{
	if (more > UINT32_MAX - 2 || n > UINT32_MAX - 2 - more) /* fab_array_grow's limit */
		return -ENOMEM;
	if (n + more > *cap) {
		size_t ncap = *cap ? *cap : 64;
		while (ncap < n + more)
			ncap *= 2;
		void *p = realloc(*arr, ncap * elem);
		if (!p)
			return -ENOMEM;
		*arr = p;
		*cap = ncap;
	}
	if (more * elem >= (1u << 20))
		prefault((char *)*arr + n * elem, more * elem);
	return 0;
}

static int reserve(void **arr, size_t n, size_t *cap, size_t want, size_t elem)
{
	void *p;

	if (want <= *cap)
		return 0;
	if (!(p = realloc(*arr, want * elem)))
		return -ENOMEM;
	if ((want - n) * elem >= (1u << 20))
		prefault((char *)p + n * elem, (want - n) * elem);
	*arr = p;
	*cap = want;
	return 0;
}

int fab_snapshot_reserve(struct fab_snapshot *s, size_t nodes, size_t ports,
			 size_t samples)
{
	if (reserve((void **)&s->nodes, s->n_nodes, &s->cap_nodes, nodes,
		    sizeof(*s->nodes)) ||
	    reserve((void **)&s->ports, s->n_ports, &s->cap_ports, ports,
		    sizeof(*s->ports)) ||
	    reserve((void **)&s->samples, s->n_samples, &s->cap_samples, samples,
		    sizeof(*s->samples)))
		return -ENOMEM;
	return 0;
}

#define GROW(s, name, n, cap) \
	fab_array_grow((void **)&(s)->name, &(s)->n, &(s)->cap, sizeof(*(s)->name))

struct fab_node *fab_snapshot_add_node(struct fab_snapshot *s)
{
	struct fab_node *n = GROW(s, nodes, n_nodes, cap_nodes);

	if (n) {
		n->hops = -1;
		n->port_first = (uint32_t)s->n_ports;
	}
	return n;
}

struct fab_port *fab_snapshot_add_port(struct fab_snapshot *s)
{
	struct fab_port *p = GROW(s, ports, n_ports, cap_ports);

	if (p)
		p->remote_idx = FAB_NONE;
	return p;
}

struct fab_link *fab_snapshot_add_link(struct fab_snapshot *s)
{
	return GROW(s, links, n_links, cap_links);
}

struct fab_counter_sample *fab_snapshot_add_sample(struct fab_snapshot *s)
{
	return GROW(s, samples, n_samples, cap_samples);
}

struct fab_sm *fab_snapshot_add_sm(struct fab_snapshot *s)
{
	struct fab_sm *sm = GROW(s, sms, n_sms, cap_sms);

	if (sm)
		sm->port_idx = FAB_NONE;
	return sm;
}

const char *fab_snapshot_strdup(struct fab_snapshot *s, const char *str,
				size_t len)
{
	if (!str)
		return NULL;
	if (len == SIZE_MAX)
		len = strlen(str);
	char *p = fab_arena_alloc(s->arena, len + 1);
	if (!p)
		return NULL;
	memcpy(p, str, len);
	p[len] = '\0';
	return p;
}

static const char *vprintf_arena(struct fab_snapshot *s, const char *fmt,
				 va_list ap)
{
	va_list ap2;

	va_copy(ap2, ap);
	int len = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (len < 0)
		return NULL;
	char *p = fab_arena_alloc(s->arena, (size_t)len + 1);
	if (p)
		vsnprintf(p, (size_t)len + 1, fmt, ap);
	return p;
}

const char *fab_snapshot_printf(struct fab_snapshot *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	const char *p = vprintf_arena(s, fmt, ap);
	va_end(ap);
	return p;
}

int fab_snapshot_add_error(struct fab_snapshot *s, uint64_t node_guid,
			   int port_num, const char *what, const char *fmt, ...)
{
	struct fab_scan_error *e = GROW(s, errors, n_errors, cap_errors);
	va_list ap;

	if (!e)
		return -ENOMEM;
	e->node_guid = node_guid;
	e->port_num = (int16_t)port_num;
	e->what = fab_snapshot_strdup(s, what, SIZE_MAX);
	va_start(ap, fmt);
	e->message = vprintf_arena(s, fmt, ap);
	va_end(ap);
	if (!e->what || !e->message)
		return -ENOMEM;
	return 0;
}

int fab_snapshot_add_event(struct fab_snapshot *s, const struct fab_event *e)
{
	struct fab_event *d = GROW(s, events, n_events, cap_events);

	if (!d)
		return -ENOMEM;
	*d = *e;
	if (e->detail && !(d->detail = fab_snapshot_strdup(s, e->detail, SIZE_MAX)))
		return -ENOMEM;
	return 0;
}

int fab_snapshot_add_finding(struct fab_snapshot *s, const struct fab_finding *f)
{
	struct fab_finding *d = GROW(s, findings, n_findings, cap_findings);

	if (!d)
		return -ENOMEM;
	d->severity = f->severity;
	d->held_since_ms = f->held_since_ms;
	d->held_until_ms = f->held_until_ms;
	d->held = f->held;
#define DUP(field)                                                      \
	do {                                                            \
		d->field = fab_snapshot_strdup(s, f->field, SIZE_MAX); \
		if (f->field && !d->field)                              \
			return -ENOMEM;                                 \
	} while (0)
	DUP(rule_id);
	DUP(node);
	DUP(port);
	DUP(peer_node);
	DUP(peer_port);
	DUP(subject);
	DUP(message);
	DUP(evidence);
	DUP(held_evidence);
#undef DUP
	return 0;
}

void fab_snapshot_clear_findings(struct fab_snapshot *s)
{
	s->n_findings = 0;
}

void fab_node_set_desc(struct fab_node *node, const uint8_t *raw, size_t len)
{
	if (len > FAB_DESC_RAW)
		len = FAB_DESC_RAW;
	const uint8_t *nul = len ? memchr(raw, 0, len) : NULL;
	if (nul)
		len = (size_t)(nul - raw);
	if (len)
		memcpy(node->desc_raw, raw, len);
	node->desc_raw_len = (uint8_t)len;
	fab_text_sanitize(raw, len, node->desc, sizeof(node->desc));
}

struct fab_port *fab_snapshot_port(const struct fab_snapshot *s,
				   uint32_t node_idx, unsigned port_num)
{
	const struct fab_node *n = &s->nodes[node_idx];
	struct fab_port *p = fab_node_ports(s, n);

	if (!p)
		return NULL;
	/* Ports are ordered by number; usually p[port_num - first] is it. */
	uint32_t first = p[0].port_num;
	if (port_num >= first && port_num - first < n->port_count &&
	    p[port_num - first].port_num == port_num)
		return &p[port_num - first];
	for (uint32_t i = 0; i < n->port_count; i++)
		if (p[i].port_num == port_num)
			return &p[i];
	return NULL;
}

static const struct fab_snapshot *sort_snap; /* qsort has no context */

static int cmp_guid_idx(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t gx = sort_snap->nodes[x].guid, gy = sort_snap->nodes[y].guid;

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return x < y ? -1 : x > y;
}

int fab_snapshot_index(struct fab_snapshot *s)
{
	free(s->guid_order);
	free(s->port_sample[0]);
	free(s->port_sample[1]);
	s->guid_order = malloc((s->n_nodes + 1) * sizeof(uint32_t));
	s->port_sample[0] = malloc((s->n_ports + 1) * sizeof(uint32_t));
	s->port_sample[1] = malloc((s->n_ports + 1) * sizeof(uint32_t));
	if (!s->guid_order || !s->port_sample[0] || !s->port_sample[1])
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_nodes; i++)
		s->guid_order[i] = i;
	sort_snap = s;
	qsort(s->guid_order, s->n_nodes, sizeof(uint32_t), cmp_guid_idx);
	sort_snap = NULL;
	for (size_t i = 0; i < s->n_ports; i++)
		s->port_sample[0][i] = s->port_sample[1][i] = FAB_NONE;
	for (size_t i = 0; i < s->n_samples; i++) {
		const struct fab_counter_sample *c = &s->samples[i];
		if (c->port_idx < s->n_ports && c->sample < 2)
			s->port_sample[c->sample][c->port_idx] = (uint32_t)i;
	}
	return 0;
}

uint32_t fab_snapshot_find_node(const struct fab_snapshot *s, uint64_t guid)
{
	if (!s->guid_order) {
		for (size_t i = 0; i < s->n_nodes; i++)
			if (s->nodes[i].guid == guid)
				return (uint32_t)i;
		return FAB_NONE;
	}
	size_t lo = 0, hi = s->n_nodes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->nodes[s->guid_order[mid]].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n_nodes && s->nodes[s->guid_order[lo]].guid == guid)
		return s->guid_order[lo];
	return FAB_NONE;
}

const struct fab_counter_sample *
fab_snapshot_sample(const struct fab_snapshot *s, uint32_t port_idx,
		    unsigned which)
{
	if (which > 1 || port_idx >= s->n_ports)
		return NULL;
	if (s->port_sample[which]) {
		uint32_t i = s->port_sample[which][port_idx];
		return i == FAB_NONE ? NULL : &s->samples[i];
	}
	for (size_t i = 0; i < s->n_samples; i++)
		if (s->samples[i].port_idx == port_idx &&
		    s->samples[i].sample == which)
			return &s->samples[i];
	return NULL;
}

/* Orders a link end: by node GUID, then port number. */
static int end_before(const struct fab_snapshot *s, uint32_t a, uint32_t b)
{
	const struct fab_port *pa = &s->ports[a], *pb = &s->ports[b];
	uint64_t ga = s->nodes[pa->node_idx].guid, gb = s->nodes[pb->node_idx].guid;

	if (ga != gb)
		return ga < gb;
	if (pa->port_num != pb->port_num)
		return pa->port_num < pb->port_num;
	return a < b;
}

static int cmp_link(const void *x, const void *y)
{
	const struct fab_link *a = x, *b = y;

	if (a->a == b->a)
		return 0;
	return end_before(sort_snap, a->a, b->a) ? -1 : 1;
}

int fab_snapshot_build_links(struct fab_snapshot *s)
{
	s->n_links = 0;
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *p = &s->ports[i];
		uint32_t r = p->remote_idx;

		if (r == FAB_NONE || r >= s->n_ports || p->port_num == 0)
			continue;
		/* Each link once: from the end that sorts first. A port cabled
		 * to itself (r == i) is a link too. */
		if (r != i && !end_before(s, (uint32_t)i, r))
			continue;
		struct fab_link *l = fab_snapshot_add_link(s);
		if (!l)
			return -ENOMEM;
		l->a = (uint32_t)i;
		l->b = r;
	}
	sort_snap = s;
	if (s->n_links) /* qsort(NULL, 0) is undefined */
		qsort(s->links, s->n_links, sizeof(*s->links), cmp_link);
	sort_snap = NULL;
	return 0;
}

int fab_snapshot_put_sample(struct fab_snapshot *s, const struct fab_counter_sample *c)
{
	uint32_t pi = c->port_idx, i;

	if (pi >= s->n_ports || !s->port_sample[0])
		return -EINVAL;
	i = s->port_sample[1][pi] != FAB_NONE ? s->port_sample[1][pi] : s->port_sample[0][pi];
	if (i != FAB_NONE) {
		struct fab_counter_sample *o = &s->samples[i];
		struct fab_counter_sample m = *c;
		uint32_t kept = o->valid & ~c->valid;

		/* the counters c lacks keep their value as last read (a watch
		 * sweep reads the error counters, not the data counters) */
		for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
			if (kept & (1u << k))
				m.v[k] = o->v[k];
		m.valid |= kept;
		m.extended = c->extended || (kept && o->extended);
		m.sample = o->sample;
		*o = m;
		return 0;
	}
	struct fab_counter_sample *n = fab_snapshot_add_sample(s);
	if (!n)
		return -ENOMEM;
	*n = *c;
	n->sample = 0;
	s->port_sample[0][pi] = (uint32_t)(s->n_samples - 1);
	return 0;
}
