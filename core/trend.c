// SPDX-License-Identifier: MIT
/*
 * Trends over a period (include/fabsweep/trend.h): the readings of ports in
 * time order, each compared with the port's reading before by the counter
 * model (fab_counter_delta), summed per minute over the fabric, per port
 * over the period, and per chart bucket for the ports charted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/trend.h"

#define NOMEM() fab_err(-ENOMEM, "out of memory building the trends")

/* One port of the first pass. */
struct tally_port {
	uint64_t guid;
	uint8_t port;
	bool used, has_prev;
	struct fab_counter_sample prev;
	struct fab_counter_delta sum;
};

struct tally {
	struct tally_port *slot;
	size_t cap, used;
};

static uint64_t key_of(uint64_t guid, uint8_t port)
{
	return guid * 0x9e3779b97f4a7c15ull + port;
}

/* The entry of (guid, port), made when new; NULL on ENOMEM. */
static struct tally_port *tally_find(struct tally *tl, uint64_t guid, uint8_t port)
{
	if ((tl->used + 1) * 2 > tl->cap) { /* at most half full */
		size_t ncap = tl->cap ? tl->cap * 2 : 1024;
		struct tally_port *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (size_t i = 0; i < tl->cap; i++) {
			struct tally_port *o = &tl->slot[i];
			if (!o->used)
				continue;
			size_t j = fab_hash_slot(key_of(o->guid, o->port), ncap);
			while (ns[j].used)
				j = (j + 1) & (ncap - 1);
			ns[j] = *o;
		}
		free(tl->slot);
		tl->slot = ns;
		tl->cap = ncap;
	}
	size_t j = fab_hash_slot(key_of(guid, port), tl->cap);
	while (tl->slot[j].used && (tl->slot[j].guid != guid || tl->slot[j].port != port))
		j = (j + 1) & (tl->cap - 1);
	if (!tl->slot[j].used) {
		tl->slot[j] = (struct tally_port){ .guid = guid, .port = port, .used = true };
		tl->used++;
	}
	return &tl->slot[j];
}

static void tally_free(struct fab_trend *t)
{
	struct tally *tl = t->tally;

	if (tl)
		free(tl->slot);
	free(tl);
	t->tally = NULL;
}

int fab_trend_init(struct fab_trend *t, int64_t from_ms, int64_t to_ms)
{
	int64_t span = to_ms - from_ms, minutes;

	memset(t, 0, sizeof(*t));
	if (span <= 0)
		return fab_err(-EINVAL, "an empty period (from %lld to %lld ms)", (long long)from_ms,
			       (long long)to_ms);
	t->from_ms = from_ms;
	t->to_ms = to_ms;
	minutes = (span + 59999) / 60000;
	t->minute_ms = 60000 * ((minutes + FAB_TREND_MINUTES_MAX - 1) / FAB_TREND_MINUTES_MAX);
	t->n_minutes = (size_t)((span + t->minute_ms - 1) / t->minute_ms);
	t->bucket_ms = (span + FAB_TREND_BUCKETS - 1) / FAB_TREND_BUCKETS;
	if (t->bucket_ms < 1000)
		t->bucket_ms = 1000;
	t->n_buckets = (size_t)((span + t->bucket_ms - 1) / t->bucket_ms);
	t->errors = calloc(t->n_minutes, sizeof(*t->errors));
	t->errors_at_least = calloc(t->n_minutes, sizeof(*t->errors_at_least));
	t->tally = calloc(1, sizeof(struct tally));
	t->period = fab_snapshot_new();
	if (!t->errors || !t->errors_at_least || !t->tally || !t->period) {
		fab_trend_free(t);
		return NOMEM();
	}
	return 0;
}

void fab_trend_free(struct fab_trend *t)
{
	tally_free(t);
	for (size_t i = 0; i < t->n_charts; i++) {
		free(t->charts[i].inc);
		free(t->charts[i].at_least_in);
	}
	free(t->charts);
	free(t->errors);
	free(t->errors_at_least);
	free(t->raised);
	fab_snapshot_free(t->period);
	memset(t, 0, sizeof(*t));
}

/* Bucket of time ms among n buckets of width w from `from`, clamped. */
static size_t bucket_of(int64_t ms, int64_t from, int64_t w, size_t n)
{
	int64_t b = ms <= from ? 0 : (ms - from) / w;

	return (size_t)b < n ? (size_t)b : n - 1;
}

/* What the port counted from its reading before to c: the counter model's
 * delta of the error counters; false when there is nothing to compare. */
static bool step(struct fab_counter_sample *prev, bool *has_prev, const struct fab_counter_sample *c,
		 struct fab_counter_delta *d)
{
	bool ok = *has_prev;

	if (ok)
		fab_counter_delta(prev, c, fab_counter_error_mask(), d);
	*prev = *c;
	*has_prev = true;
	return ok && d->valid;
}

static uint64_t error_sum(const struct fab_counter_delta *d)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
		if (d->valid & (1u << k))
			n += d->inc[k];
	return n;
}

int fab_trend_tally(struct fab_trend *t, uint64_t guid, uint8_t port, bool before,
		    const struct fab_counter_sample *c)
{
	struct tally_port *p = tally_find(t->tally, guid, port);
	struct fab_counter_delta d;

	if (!p)
		return NOMEM();
	t->n_readings += !before;
	if (!step(&p->prev, &p->has_prev, c, &d) || before)
		return 0;
	t->n_steps++;
	fab_counter_delta_add(&p->sum, &d);
	uint64_t n = error_sum(&d);
	if (!n && !d.at_least)
		return 0;
	size_t m = bucket_of(c->sampled_at_ms, t->from_ms, t->minute_ms, t->n_minutes);
	t->errors[m] += n;
	t->errors_at_least[m] |= d.at_least != 0;
	t->total_errors += n;
	return 0;
}

int fab_trend_add_finding(struct fab_trend *t, const struct fab_finding *f, int64_t first_ms,
			  int64_t last_ms, int64_t last_scan_id, int64_t n_scans)
{
	struct fab_trend_finding *r;

	if (!(r = fab_array_grow((void **)&t->raised, &t->n_raised, &t->cap_raised, sizeof(*r))))
		return NOMEM();
	if (fab_snapshot_add_finding(t->period, f)) {
		t->n_raised--;
		return NOMEM();
	}
	*r = (struct fab_trend_finding){ .finding = (uint32_t)(t->period->n_findings - 1),
					 .first_ms = first_ms, .last_ms = last_ms,
					 .last_scan_id = last_scan_id, .n_scans = n_scans };
	return 0;
}

/* ---- picking the charts ------------------------------------------------------ */

static void chart_totals(struct fab_trend_chart *ch, const struct fab_counter_delta *sum)
{
	ch->total = *sum;
	ch->errors = error_sum(sum);
	ch->at_least = sum->at_least != 0;
	ch->rate = 0;
	for (unsigned k = 0; k < FAB_CTR__COUNT; k++) {
		double r;
		if (fab_counter_is_error(k) && fab_counter_rate(sum, k, &r))
			ch->rate += r;
	}
}

static int by_key(const void *a, const void *b)
{
	const struct fab_trend_chart *x = a, *y = b;

	if (x->node_guid != y->node_guid)
		return x->node_guid < y->node_guid ? -1 : 1;
	return (int)x->port_num - (int)y->port_num;
}

/* Findings first, then by errors, then by rate, then by key. */
static int by_display(const void *a, const void *b)
{
	const struct fab_trend_chart *x = a, *y = b;

	if (x->finding != y->finding)
		return x->finding ? -1 : 1;
	if (x->errors != y->errors)
		return x->errors > y->errors ? -1 : 1;
	if (x->rate != y->rate)
		return x->rate > y->rate ? -1 : 1;
	return by_key(a, b);
}

/* By error rate, then by errors, then by key: the top ports. */
static int by_rate(const void *a, const void *b)
{
	const struct fab_trend_chart *x = a, *y = b;

	if (x->rate != y->rate)
		return x->rate > y->rate ? -1 : 1;
	if (x->errors != y->errors)
		return x->errors > y->errors ? -1 : 1;
	return by_key(a, b);
}

/* Adds the port a finding names (a GUID and a number); duplicates go later. */
static int add_finding_port(struct fab_trend_chart **cand, size_t *n, size_t *cap,
			    const struct fab_finding *f)
{
	struct fab_trend_chart *ch;
	uint64_t guid;
	char *end;
	unsigned long port;

	if (!f->node || !f->port || fab_guid_parse(f->node, &guid))
		return 0;
	port = strtoul(f->port, &end, 10);
	if (end == f->port || *end || port > 255)
		return 0;
	if (!(ch = fab_array_grow((void **)cand, n, cap, sizeof(*ch))))
		return NOMEM();
	ch->node_guid = guid;
	ch->port_num = (uint8_t)port;
	ch->finding = true;
	return 0;
}

/* Sorts the candidates by key, drops duplicates, gives each its totals. */
static int unique_ports(struct fab_trend *t, struct fab_trend_chart *cand, size_t *n)
{
	size_t k = 0;

	if (!*n)
		return 0; /* cand may be NULL: qsort must not see it */
	qsort(cand, *n, sizeof(*cand), by_key);
	for (size_t i = 0; i < *n; i++) {
		struct tally_port *p;

		if (k && !by_key(&cand[k - 1], &cand[i]))
			continue;
		cand[k] = cand[i];
		if (!(p = tally_find(t->tally, cand[k].node_guid, cand[k].port_num)))
			return NOMEM();
		chart_totals(&cand[k++], &p->sum);
	}
	*n = k;
	return 0;
}

int fab_trend_pick(struct fab_trend *t, const struct fab_snapshot *snap, size_t n_top)
{
	struct tally *tl = t->tally;
	struct fab_trend_chart *cand = NULL, *top = NULL;
	size_t n = 0, cap = 0, n_top_cand = 0;
	int err = 0;

	for (size_t i = 0; snap && i < snap->n_findings && !err; i++)
		err = add_finding_port(&cand, &n, &cap, &snap->findings[i]);
	for (size_t i = 0; i < t->n_raised && !err; i++)
		err = add_finding_port(&cand, &n, &cap, &t->period->findings[t->raised[i].finding]);
	if (err || (err = unique_ports(t, cand, &n)))
		goto out;
	if (n)
		qsort(cand, n, sizeof(*cand), by_display);
	if (n > FAB_TREND_FINDING_CHARTS) {
		t->n_more += n - FAB_TREND_FINDING_CHARTS;
		n = FAB_TREND_FINDING_CHARTS;
	}
	if (n)
		qsort(cand, n, sizeof(*cand), by_key);
	/* the others that counted errors, by rate */
	if (!(top = calloc(tl->used + 1, sizeof(*top)))) {
		err = NOMEM();
		goto out;
	}
	for (size_t i = 0; i < tl->cap; i++) {
		struct tally_port *p = &tl->slot[i];
		struct fab_trend_chart ch = { .node_guid = p->guid, .port_num = p->port };

		if (!p->used || !p->has_prev)
			continue;
		t->n_ports++;
		chart_totals(&ch, &p->sum);
		if (!ch.errors && !ch.at_least)
			continue;
		t->n_ports_grew++;
		if (!n || !bsearch(&ch, cand, n, sizeof(*cand), by_key))
			top[n_top_cand++] = ch;
	}
	qsort(top, n_top_cand, sizeof(*top), by_rate);
	size_t take = n_top_cand < n_top ? n_top_cand : n_top;
	t->n_more += n_top_cand - take;
	struct fab_trend_chart *all = realloc(cand, (n + take + 1) * sizeof(*all));
	if (!all) {
		err = NOMEM();
		goto out;
	}
	cand = all;
	memcpy(cand + n, top, take * sizeof(*top));
	n += take;
	qsort(cand, n, sizeof(*cand), by_key);
	for (size_t i = 0; i < n; i++) {
		cand[i].inc = calloc(t->n_buckets * FAB_CTR__COUNT, sizeof(*cand[i].inc));
		cand[i].at_least_in = calloc(t->n_buckets, sizeof(*cand[i].at_least_in));
		if (!cand[i].inc || !cand[i].at_least_in) {
			for (size_t j = 0; j <= i; j++) {
				free(cand[j].inc);
				free(cand[j].at_least_in);
			}
			err = NOMEM();
			goto out;
		}
		/* pass 2 adds them up again, reading by reading */
		memset(&cand[i].total, 0, sizeof(cand[i].total));
	}
	t->charts = cand;
	t->n_charts = n;
	cand = NULL;
	tally_free(t);
out:
	free(cand);
	free(top);
	return err;
}

void fab_trend_series(struct fab_trend *t, uint32_t chart, bool before,
		      const struct fab_counter_sample *c)
{
	struct fab_trend_chart *ch;
	struct fab_counter_delta d;

	if (chart >= t->n_charts)
		return;
	ch = &t->charts[chart];
	ch->n_readings += !before;
	if (!step(&ch->prev, &ch->has_prev, c, &d) || before)
		return;
	fab_counter_delta_add(&ch->total, &d);
	size_t b = bucket_of(c->sampled_at_ms, t->from_ms, t->bucket_ms, t->n_buckets);
	for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
		if (d.valid & (1u << k))
			ch->inc[b * FAB_CTR__COUNT + k] += d.inc[k];
	ch->at_least_in[b] |= d.at_least;
}

void fab_trend_finish(struct fab_trend *t)
{
	for (size_t i = 0; i < t->n_charts; i++) {
		struct fab_counter_delta sum = t->charts[i].total;
		chart_totals(&t->charts[i], &sum);
	}
	if (t->n_charts)
		qsort(t->charts, t->n_charts, sizeof(*t->charts), by_display);
}
