// SPDX-License-Identifier: MIT
/*
 * The VL and QoS model (include/fabsweep/qos.h): each port's
 * VLArbitrationTables in snap->qos, what OperationalVLs codes mean, which
 * SL2VL tables are a default, and the service levels traffic may use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/qos.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

struct fab_qos *fab_qos_new(void)
{
	return calloc(1, sizeof(struct fab_qos));
}

void fab_qos_free(struct fab_qos *q)
{
	if (!q)
		return;
	free(q->vlarb);
	free(q);
}

struct fab_qos *fab_snapshot_qos(struct fab_snapshot *snap)
{
	if (!snap->qos)
		snap->qos = fab_qos_new();
	return snap->qos;
}

struct fab_vlarb *fab_qos_add_vlarb(struct fab_qos *q)
{
	return fab_array_grow((void **)&q->vlarb, &q->n_vlarb, &q->cap_vlarb, sizeof(*q->vlarb));
}

static int cmp_vlarb(const void *x, const void *y)
{
	const struct fab_vlarb *a = x, *b = y;

	return (a->port_idx > b->port_idx) - (a->port_idx < b->port_idx);
}

void fab_qos_sort(struct fab_qos *q)
{
	size_t k = 0;

	if (!q || !q->n_vlarb)
		return;
	qsort(q->vlarb, q->n_vlarb, sizeof(*q->vlarb), cmp_vlarb);
	for (size_t i = 0; i < q->n_vlarb; i++)
		if (!k || q->vlarb[k - 1].port_idx != q->vlarb[i].port_idx)
			q->vlarb[k++] = q->vlarb[i];
	q->n_vlarb = k;
}

const struct fab_vlarb *fab_qos_vlarb(const struct fab_qos *q, uint32_t port_idx)
{
	size_t lo = 0, hi = q ? q->n_vlarb : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->vlarb[mid].port_idx == port_idx)
			return &q->vlarb[mid];
		if (q->vlarb[mid].port_idx < port_idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *const reasons[] = {
	[FAB_QOS_NOT_READ] = NULL, [FAB_QOS_POLICY] = "qos", [FAB_QOS_FORENSIC] = "forensic",
};
_Static_assert(ARRAY_SIZE(reasons) == FAB_QOS__COUNT, "qos reasons");

const char *fab_qos_reason_name(unsigned reason)
{
	return reason < FAB_QOS__COUNT ? reasons[reason] : NULL;
}

int fab_qos_reason_parse(const char *s)
{
	for (unsigned i = 0; s && i < FAB_QOS__COUNT; i++)
		if (reasons[i] && !strcmp(reasons[i], s))
			return (int)i;
	return -1;
}

unsigned fab_vls_count(unsigned code)
{
	static const unsigned n[] = { 0, 1, 2, 4, 8, 15 };

	return code < ARRAY_SIZE(n) ? n[code] : 0;
}

const char *fab_vls_name(unsigned code, char *buf, size_t len)
{
	unsigned n = fab_vls_count(code);

	if (!n)
		snprintf(buf, len, "unknown");
	else if (n == 1)
		snprintf(buf, len, "VL0");
	else
		snprintf(buf, len, "VL0-%u", n - 1);
	return buf;
}

const char *fab_lanes_text(unsigned mask, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned a = 0; a < 16 && at < len; a++) {
		unsigned b = a;

		if (!(mask >> a & 1))
			continue;
		while (b + 1 < 16 && (mask >> (b + 1) & 1))
			b++;
		at += (size_t)snprintf(buf + at, len - at, b > a ? "%s%u-%u" : "%s%u", at ? "," : "",
				       a, b);
		a = b;
	}
	if (!(mask & 0xffff))
		snprintf(buf, len, "none");
	return buf;
}

unsigned fab_vlarb_weighted(const struct fab_vlarb *v)
{
	unsigned m = 0;

	for (unsigned i = 0; i < v->n_high; i++)
		if (v->high[i].weight && v->high[i].vl < FAB_VL_DATA_MAX)
			m |= 1u << v->high[i].vl;
	for (unsigned i = 0; i < v->n_low; i++)
		if (v->low[i].weight && v->low[i].vl < FAB_VL_DATA_MAX)
			m |= 1u << v->low[i].vl;
	return m;
}

bool fab_sl2vl_is_default(const uint8_t vl[16])
{
	/* SL n on VL n modulo 16 (the identity), 8, 4, 2 or 1 (all on VL 0) */
	for (unsigned m = 16; m; m /= 2) {
		bool all = true;

		for (unsigned sl = 0; sl < FAB_VL_DROP && all; sl++)
			all = vl[sl] == sl % m;
		if (all)
			return true;
	}
	return false;
}

uint16_t fab_qos_sls_in_use(const struct fab_snapshot *s)
{
	const struct fab_routing *r = s->routing;
	uint16_t used = 0;

	for (size_t i = 0; r && i < r->n_sl2vl; i++) {
		const struct fab_sl2vl *t = &r->sl2vl[i];
		const struct fab_port *p;
		unsigned vls;

		if (t->node_idx >= s->n_nodes || s->nodes[t->node_idx].type != FAB_NODE_CA || t->in ||
		    !(p = fab_snapshot_port(s, t->node_idx, t->out)) || !(vls = fab_vls_count(p->op_vls)))
			continue;
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			if (t->vl[sl] < vls && t->vl[sl] != FAB_VL_DROP)
				used |= (uint16_t)(1u << sl);
	}
	return used;
}
