// SPDX-License-Identifier: MIT
/*
 * The physical layer of a snapshot, worked out once for every output
 * (phys.h): bit error ratios, lane power margins, temperatures and the
 * module inventory, each sorted worst first. Values are judged by
 * core/module.c (fab_module_limits_for, fab_mon_judge) and the Ethernet
 * bit error ratio comes from the counter model (fab_nic_pre_fec_ber), the
 * same answers the rules give. O(n log n) in modules, lanes and ports (the
 * margins and temperatures an HTML report shows: O(n log keep)).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "phys.h"

const char *fab_phys_fabric_name(unsigned fabric)
{
	return fabric == FAB_PHYS_IB ? "ib" : fabric == FAB_PHYS_ETH ? "eth" : NULL;
}

const struct fab_modules *fab_phys_modules(const struct fab_snapshot *s, unsigned fabric)
{
	if (fabric == FAB_PHYS_IB)
		return &s->ib_modules;
	return fabric == FAB_PHYS_ETH && s->roce ? &s->roce->modules : NULL;
}

uint32_t fab_phys_module_port(const struct fab_snapshot *s, unsigned fabric, uint32_t module)
{
	const struct fab_modules *set = fab_phys_modules(s, fabric);

	return set && module < set->n ? set->mods[module].port_idx : FAB_NONE;
}

void fab_phys_where(const struct fab_snapshot *s, const struct fab_nodemap *names, unsigned fabric,
		    uint32_t port, char *buf, size_t len)
{
	char g[FAB_GUID_STRLEN];

	if (fabric == FAB_PHYS_ETH) {
		const struct fab_roce *r = s->roce;
		const struct fab_eth_port *p = r && port < r->n_eth_ports ? &r->eth_ports[port] : NULL;
		const char *sys = p && p->system_idx < r->n_systems ? r->systems[p->system_idx].name : NULL;
		snprintf(buf, len, "%s/%s", sys ? sys : "?", p && p->ifname ? p->ifname : "?");
		return;
	}
	if (port >= s->n_ports) {
		snprintf(buf, len, "?");
		return;
	}
	const struct fab_port *p = &s->ports[port];
	char nb[FAB_NODE_NAME_CAP];
	fab_guid_format(s->nodes[p->node_idx].guid, g);
	snprintf(buf, len, "\"%s\" %s port %u", fab_node_name(s, p->node_idx, names, nb, sizeof(nb)), g,
		 p->port_num);
}

bool fab_report_phys_present(const struct fab_report_phys *p)
{
	return p->n_modules[FAB_PHYS_IB] || p->n_modules[FAB_PHYS_ETH] || p->n_ber;
}

void fab_report_phys_free(struct fab_report_phys *p)
{
	free(p->ber);
	free(p->margins);
	free(p->temps);
	free(p->groups);
	memset(p, 0, sizeof(*p));
}

static int cmp_dbl(double a, double b) /* NAN last */
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return a < b ? -1 : a > b;
}

static int cmp_ber(const void *x, const void *y)
{
	const struct fab_phys_ber *a = x, *b = y;
	int c = -cmp_dbl(a->key, b->key);

	if (c)
		return c;
	if (a->fabric != b->fabric)
		return a->fabric - b->fabric;
	return a->port < b->port ? -1 : a->port > b->port;
}

static int cmp_margin(const void *x, const void *y)
{
	const struct fab_phys_margin *a = x, *b = y;
	int c = cmp_dbl(a->margin, b->margin);

	if (c)
		return c;
	if (a->fabric != b->fabric)
		return a->fabric - b->fabric;
	if (a->module != b->module)
		return a->module < b->module ? -1 : 1;
	if (a->mon != b->mon)
		return b->mon - a->mon; /* rx before tx */
	return a->lane - b->lane;
}

static int cmp_temp(const void *x, const void *y)
{
	const struct fab_phys_temp *a = x, *b = y;
	int c = -cmp_dbl(a->celsius, b->celsius);

	if (c)
		return c;
	if (a->fabric != b->fabric)
		return a->fabric - b->fabric;
	return a->module < b->module ? -1 : a->module > b->module;
}

static int cmp_str0(const char *a, const char *b)
{
	if (a == b) /* the owner's arena holds one copy of a fleet's few names */
		return 0;
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_group(const void *x, const void *y)
{
	const struct fab_phys_group *a = x, *b = y;
	int c;

	if (a->fabric != b->fabric)
		return a->fabric - b->fabric;
	if ((c = cmp_str0(a->type, b->type)) || (c = cmp_str0(a->vendor, b->vendor)))
		return c;
	return cmp_str0(a->part_number, b->part_number);
}

static int cmp_group_size(const void *x, const void *y)
{
	const struct fab_phys_group *a = x, *b = y;

	if (a->fabric != b->fabric)
		return a->fabric - b->fabric;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return cmp_group(x, y);
}

static struct fab_phys_ber *add_ber(struct fab_report_phys *p, size_t *cap, unsigned fabric, uint32_t port,
				    double raw, double effective, double symbol, int *err)
{
	double key = !isnan(raw) ? raw : !isnan(effective) ? effective : symbol;

	if (isnan(key))
		return NULL;
	struct fab_phys_ber *b = fab_array_grow((void **)&p->ber, &p->n_ber, cap, sizeof(*b));
	if (!b) {
		*err = -ENOMEM;
		return NULL;
	}
	*b = (struct fab_phys_ber){ .fabric = (uint8_t)fabric, .port = port, .key = key, .raw = raw,
				    .effective = effective, .symbol = symbol };
	return b;
}

/* The InfiniBand ports PHY_DB16 did not measure: the symbol error rate of
 * the samples compared, where the counter grew (link.ber_high's figure). */
static int counter_ber(const struct fab_snapshot *s, const struct fab_snapshot *base, struct fab_report_phys *p,
		       size_t *cap)
{
	struct fab_counter_pairs pairs;
	bool *measured = calloc(s->n_ports + 1, sizeof(*measured));
	int err = 0;

	if (!measured || fab_counter_pairs_build(s, base, &pairs)) {
		free(measured);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_ber; i++)
		if (s->ber[i].port_idx < s->n_ports)
			measured[s->ber[i].port_idx] = true;
	for (uint32_t i = 0; !err && pairs.n_pairs && i < s->n_ports; i++) {
		const struct fab_port *pt = &s->ports[i];
		struct fab_counter_delta d;
		double ber;
		bool at_least;
		if (measured[i] || !pt->port_num ||
		    !fab_counter_pairs_delta(&pairs, i, 1u << FAB_CTR_SYMBOL_ERRORS, &d) ||
		    !fab_counter_ber(&d, pt->width_active, pt->speed_active, &ber, &at_least) || ber <= 0)
			continue;
		struct fab_phys_ber *b = add_ber(p, cap, FAB_PHYS_IB, i, NAN, NAN, ber, &err);
		if (b) {
			b->from_counters = true;
			b->at_least = at_least;
		}
	}
	fab_counter_pairs_free(&pairs);
	free(measured);
	return err;
}

static int collect_ber(const struct fab_snapshot *s, const struct fab_snapshot *base,
		       struct fab_report_phys *p)
{
	const struct fab_roce *r = s->roce;
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; !err && i < s->n_ber; i++)
		if (s->ber[i].port_idx < s->n_ports)
			add_ber(p, &cap, FAB_PHYS_IB, s->ber[i].port_idx, s->ber[i].raw, s->ber[i].effective,
				s->ber[i].symbol, &err);
	if (!err && s->n_ports)
		err = counter_ber(s, base, p, &cap);
	if (err || !r || !r->n_nic_counters)
		return err;
	struct fab_nic_base nb;
	struct fab_nic_view *v = malloc(sizeof(*v));
	if (!v || fab_nic_base_init(base ? base->roce : NULL, &nb)) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		double ber;
		if (!r->eth_ports[i].nic_count)
			continue;
		fab_nic_view(r, (uint32_t)i, &nb, v);
		if (fab_nic_pre_fec_ber(v, &ber, NULL, NULL))
			add_ber(p, &cap, FAB_PHYS_ETH, (uint32_t)i, ber, NAN, NAN, &err);
	}
	fab_nic_base_free(&nb);
	free(v);
	return err;
}

/*
 * A list of which the model holds the first keep rows in cmp's order
 * (a total order): all of them, sorted at the end, or (keep finite) a
 * max-heap of the keep smallest, each further row compared with the
 * largest held. The row to add is written at slot() (room past the
 * held), then put().
 */
struct list {
	void **rows;
	size_t *n; /* rows in all */
	size_t held, cap, keep, elem;
	int (*cmp)(const void *, const void *);
};

#define ROW(l, i) ((char *)*(l)->rows + (i) * (l)->elem)

static void *list_slot(struct list *l)
{
	if (l->held == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		if (l->keep != SIZE_MAX && cap > l->keep + 1)
			cap = l->keep + 1;
		void *p = realloc(*l->rows, cap * l->elem);
		if (!p)
			return NULL;
		*l->rows = p;
		l->cap = cap;
	}
	return ROW(l, l->held);
}

static void swap_rows(struct list *l, size_t a, size_t b)
{
	unsigned char t[64];

	_Static_assert(sizeof(struct fab_phys_margin) <= sizeof(t) && sizeof(struct fab_phys_temp) <= sizeof(t),
		       "a row fits the swap buffer");
	memcpy(t, ROW(l, a), l->elem);
	memcpy(ROW(l, a), ROW(l, b), l->elem);
	memcpy(ROW(l, b), t, l->elem);
}

/* The heap's row i moved down to where it belongs. */
static void sift_down(struct list *l, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= l->held)
			return;
		if (c + 1 < l->held && l->cmp(ROW(l, c + 1), ROW(l, c)) > 0)
			c++;
		if (l->cmp(ROW(l, c), ROW(l, i)) <= 0)
			return;
		swap_rows(l, i, c);
		i = c;
	}
}

static void list_put(struct list *l)
{
	(*l->n)++;
	if (l->keep == SIZE_MAX) {
		l->held++;
		return;
	}
	if (l->held < l->keep) { /* into the heap: up from the end */
		for (size_t i = l->held++; i && l->cmp(ROW(l, i), ROW(l, (i - 1) / 2)) > 0; i = (i - 1) / 2)
			swap_rows(l, i, (i - 1) / 2);
		return;
	}
	if (l->held && l->cmp(ROW(l, l->held), ROW(l, 0)) < 0) { /* smaller than the largest held */
		memcpy(ROW(l, 0), ROW(l, l->held), l->elem);
		sift_down(l, 0);
	}
}

static void list_sort(struct list *l)
{
	if (l->held > 1)
		qsort(*l->rows, l->held, l->elem, l->cmp);
}

/* The lanes' margins and the temperature of module mi of a fabric. */
static int judge_module(struct list *margins, struct list *temps, unsigned fabric,
			const struct fab_modules *set, uint32_t mi)
{
	const struct fab_module *m = &set->mods[mi];
	const struct fab_module_lane *lanes = fab_module_lanes(set, m);
	struct fab_module_limits lim;
	bool own;
	double mg;

	if (!isnan(m->temperature_c)) {
		fab_module_limits_for(m, FAB_MON_TEMP, &fab_module_default_limits[FAB_MON_TEMP], &lim, &own, NULL);
		unsigned lv = fab_mon_judge(m->temperature_c, &lim, &mg);
		struct fab_phys_temp *t = list_slot(temps);
		if (!t)
			return -ENOMEM;
		*t = (struct fab_phys_temp){ .fabric = (uint8_t)fabric, .level = (uint8_t)lv, .own = own,
					     .module = mi, .celsius = m->temperature_c, .margin = mg,
					     .hi_warn = lim.hi_warn };
		list_put(temps);
	}
	for (unsigned k = 0; lanes && k < 2; k++) {
		unsigned mon = k ? FAB_MON_TX_POWER : FAB_MON_RX_POWER;
		fab_module_limits_for(m, mon, &fab_module_default_limits[mon], &lim, &own, NULL);
		for (unsigned i = 0; i < fab_module_lanes_used(m); i++) {
			double dbm = fab_mw_to_dbm(k ? lanes[i].tx_mw : lanes[i].rx_mw);
			unsigned lv = fab_mon_judge(dbm, &lim, &mg);
			if (isnan(mg))
				continue; /* no value, or no limit to measure a margin to */
			struct fab_phys_margin *g = list_slot(margins);
			if (!g)
				return -ENOMEM;
			*g = (struct fab_phys_margin){ .fabric = (uint8_t)fabric, .mon = (uint8_t)mon,
						       .lane = lanes[i].lane, .level = (uint8_t)lv, .own = own,
						       .module = mi, .dbm = dbm, .margin = mg,
						       .lo_warn = lim.lo_warn, .hi_warn = lim.hi_warn };
			list_put(margins);
		}
	}
	return 0;
}

/* The inventory: one group per fabric, type, vendor, part number. */
static int group_modules(struct fab_report_phys *p, const struct fab_snapshot *s)
{
	size_t n = 0, cap = 0;
	struct fab_phys_group *all = NULL;

	for (unsigned f = 0; f < FAB_PHYS__FABRICS; f++) {
		const struct fab_modules *set = fab_phys_modules(s, f);
		for (size_t i = 0; set && i < set->n; i++) {
			const struct fab_module *m = &set->mods[i];
			struct fab_phys_group one = { .fabric = (uint8_t)f, .type = m->type, .vendor = m->vendor,
						      .part_number = m->part_number, .n = 1,
						      .n_refused = m->refused, .n_monitored = m->monitors && !m->refused };
			struct fab_phys_group *g = n ? &all[n - 1] : NULL;
			if (g && !cmp_group(g, &one)) { /* a run of one kind: counted as the merge below would */
				g->n++;
				g->n_refused += one.n_refused;
				g->n_monitored += one.n_monitored;
				continue;
			}
			if (!(g = fab_array_grow((void **)&all, &n, &cap, sizeof(*g)))) {
				free(all);
				return -ENOMEM;
			}
			*g = one;
		}
	}
	if (n)
		qsort(all, n, sizeof(*all), cmp_group);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !cmp_group(&all[k - 1], &all[i])) {
			all[k - 1].n += all[i].n;
			all[k - 1].n_refused += all[i].n_refused;
			all[k - 1].n_monitored += all[i].n_monitored;
		} else {
			all[k++] = all[i];
		}
	}
	if (k)
		qsort(all, k, sizeof(*all), cmp_group_size);
	p->groups = all;
	p->n_groups = k;
	return 0;
}

int fab_report_phys_build(const struct fab_snapshot *snap, const struct fab_snapshot *base, size_t keep,
			  struct fab_report_phys *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->keep = keep;
	struct list margins = { .rows = (void **)&out->margins, .n = &out->n_margins, .keep = keep,
				.elem = sizeof(*out->margins), .cmp = cmp_margin };
	struct list temps = { .rows = (void **)&out->temps, .n = &out->n_temps, .keep = keep,
			      .elem = sizeof(*out->temps), .cmp = cmp_temp };
	err = collect_ber(snap, base, out);
	for (unsigned f = 0; !err && f < FAB_PHYS__FABRICS; f++) {
		const struct fab_modules *set = fab_phys_modules(snap, f);
		for (size_t i = 0; !err && set && i < set->n; i++) {
			const struct fab_module *m = &set->mods[i];
			out->n_modules[f]++;
			out->n_refused[f] += m->refused;
			out->n_monitored[f] += m->monitors && !m->refused;
			if (m->monitors && !m->refused)
				err = judge_module(&margins, &temps, f, set, (uint32_t)i);
		}
	}
	if (!err)
		err = group_modules(out, snap);
	if (err) {
		fab_report_phys_free(out);
		return fab_err(-ENOMEM, "out of memory working out the physical layer");
	}
	if (out->n_ber)
		qsort(out->ber, out->n_ber, sizeof(*out->ber), cmp_ber);
	list_sort(&margins);
	list_sort(&temps);
	return 0;
}
