// SPDX-License-Identifier: MIT
/*
 * Pre-job readiness, the pure part: which channel adapters are the hosts,
 * which ports to probe, and what the probe's answers and the last sweep's
 * findings say about each host. No MAD is sent here (scanner/probe.c does
 * that), so every verdict is tested from an in-memory snapshot.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/probe.h"
#include "fabsweep/snapshot.h"

/* ---- host names ------------------------------------------------------------------ */

/* Length of the first word of s (up to a blank). */
static size_t first_word(const char *s)
{
	return strcspn(s, " \t");
}

bool fab_ready_name_matches(const char *host, const char *desc)
{
	size_t w, h;

	if (!host || !desc || !*host)
		return false;
	w = first_word(desc);
	h = strlen(host);
	if (w < h || strncasecmp(desc, host, h))
		return false;
	return w == h || desc[h] == '.';
}

struct fab_ready_hosts {
	const char **names; /* distinct, in the order first given */
	size_t n;
	size_t *sorted;     /* indices into names, by name ignoring case */
};

static const char *const *sort_names; /* qsort has no context argument */

static int cmp_host(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcasecmp(sort_names[x], sort_names[y]);

	return c ? c : (x < y ? -1 : x > y);
}

int fab_ready_hosts_new(const char *const *names, size_t n, struct fab_ready_hosts **out)
{
	struct fab_ready_hosts *h = calloc(1, sizeof(*h));
	size_t *idx = NULL;

	if (!h)
		return -ENOMEM;
	h->names = calloc(n + 1, sizeof(*h->names));
	h->sorted = calloc(n + 1, sizeof(*h->sorted));
	idx = calloc(n + 1, sizeof(*idx));
	if (!h->names || !h->sorted || !idx) {
		free(idx);
		fab_ready_hosts_free(h);
		return -ENOMEM;
	}
	/* sort all, drop repeats (keeping the first), then restore the order */
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_names = names;
	qsort(idx, n, sizeof(*idx), cmp_host);
	uint8_t *keep = calloc(n + 1, 1);
	if (!keep) {
		free(idx);
		fab_ready_hosts_free(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		keep[idx[i]] = i == 0 || strcasecmp(names[idx[i - 1]], names[idx[i]]);
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			h->names[h->n++] = names[i];
	free(keep);
	free(idx);
	for (size_t i = 0; i < h->n; i++)
		h->sorted[i] = i;
	sort_names = h->names;
	qsort(h->sorted, h->n, sizeof(*h->sorted), cmp_host);
	sort_names = NULL;
	*out = h;
	return 0;
}

void fab_ready_hosts_free(struct fab_ready_hosts *h)
{
	if (!h)
		return;
	free(h->names);
	free(h->sorted);
	free(h);
}

size_t fab_ready_hosts_count(const struct fab_ready_hosts *h)
{
	return h ? h->n : 0;
}

const char *fab_ready_hosts_name(const struct fab_ready_hosts *h, size_t i)
{
	return h && i < h->n ? h->names[i] : NULL;
}

/* Binary search for the first len bytes of word, ignoring case. */
static size_t find_word(const struct fab_ready_hosts *h, const char *word, size_t len)
{
	size_t lo = 0, hi = h->n;

	if (!len)
		return (size_t)-1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *name = h->names[h->sorted[mid]];
		int c = strncasecmp(name, word, len);
		if (!c && name[len])
			c = 1; /* name is longer than the word */
		if (!c)
			return h->sorted[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

size_t fab_ready_hosts_find(const struct fab_ready_hosts *h, const char *desc)
{
	size_t w, i, dot;

	if (!h || !desc)
		return (size_t)-1;
	w = first_word(desc);
	if ((i = find_word(h, desc, w)) != (size_t)-1)
		return i;
	/* "host0001.cluster.example": the short name */
	dot = strcspn(desc, ".");
	if (dot < w)
		return find_word(h, desc, dot);
	return (size_t)-1;
}

bool fab_ready_hosts_want(const struct fab_ready_hosts *h, const struct fab_nodemap *map,
			  uint64_t guid, const char *desc)
{
	const char *name;

	if (fab_ready_hosts_find(h, desc) != (size_t)-1)
		return true;
	name = map ? fab_nodemap_lookup(map, guid) : NULL;
	return name && fab_ready_hosts_find(h, name) != (size_t)-1;
}

/* ---- the plan -------------------------------------------------------------------- */

void fab_ready_free(struct fab_ready *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_problems; i++)
		free(r->problems[i].text);
	free(r->problems);
	free(r->verdict);
	free(r->ports);
	free(r->ca_of);
	free(r->target_of);
	free(r);
}

/* The host a CA of the view belongs to, or (size_t)-1. */
static size_t host_of(const struct fab_snapshot *v, const struct fab_ready_hosts *h,
		      const struct fab_nodemap *map, uint32_t node)
{
	const struct fab_node *n = &v->nodes[node];
	const char *name;
	size_t i;

	if (n->type != FAB_NODE_CA)
		return (size_t)-1;
	if ((i = fab_ready_hosts_find(h, n->desc)) != (size_t)-1)
		return i;
	name = map ? fab_nodemap_lookup(map, n->guid) : NULL;
	return name ? fab_ready_hosts_find(h, name) : (size_t)-1;
}

static uint32_t peer_of(const struct fab_snapshot *v, uint32_t port)
{
	const struct fab_port *p = &v->ports[port];

	if (p->port_num == 0 || p->remote_idx == FAB_NONE || p->remote_idx >= v->n_ports)
		return FAB_NONE;
	return p->remote_idx;
}

void fab_ready_plan_add(struct fab_ready *r, uint32_t port)
{
	if (r->target_of[port] != FAB_NONE)
		return;
	r->target_of[port] = (uint32_t)r->n_ports;
	r->ports[r->n_ports++].port_idx = port;
}

int fab_ready_plan(const struct fab_snapshot *v, const struct fab_ready_hosts *h,
		   const struct fab_nodemap *map, struct fab_ready **out)
{
	struct fab_ready *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->n_nodes = v->n_nodes;
	r->n_view_ports = v->n_ports;
	r->n_hosts = fab_ready_hosts_count(h);
	r->ca_of = calloc(v->n_nodes + 1, sizeof(*r->ca_of));
	r->target_of = malloc((v->n_ports + 1) * sizeof(*r->target_of));
	r->ports = calloc(v->n_ports + 1, sizeof(*r->ports));
	r->verdict = calloc(r->n_hosts + 1, 1);
	if (!r->ca_of || !r->target_of || !r->ports || !r->verdict) {
		fab_ready_free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < v->n_ports; i++)
		r->target_of[i] = FAB_NONE;
	for (uint32_t ni = 0; ni < v->n_nodes; ni++) {
		size_t hi = host_of(v, h, map, ni);
		const struct fab_node *n = &v->nodes[ni];

		if (hi == (size_t)-1)
			continue;
		r->ca_of[ni] = (uint32_t)hi + 1;
		for (uint32_t k = 0; k < n->port_count; k++) {
			uint32_t pi = n->port_first + k, q = peer_of(v, pi);
			if (q == FAB_NONE)
				continue;
			fab_ready_plan_add(r, pi);
			fab_ready_plan_add(r, q);
		}
	}
	*out = r;
	return 0;
}

/* ---- the verdicts ------------------------------------------------------------------ */

struct eval {
	struct fab_ready *r;
	const struct fab_snapshot *v;
	const struct fab_nodemap *map;
	const struct fab_counter_limits *limits;
	size_t cap;
	int err;
	size_t answered; /* NodeInfo answers of any kind */
};

static void problem(struct eval *e, size_t host, uint8_t verdict, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem(struct eval *e, size_t host, uint8_t verdict, const char *fmt, ...)
{
	struct fab_ready *r = e->r;
	char *text = NULL;
	va_list ap;

	if (e->err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text) {
		e->err = -ENOMEM;
		return;
	}
	if (r->n_problems == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 16;
		struct fab_ready_problem *p = realloc(r->problems, ncap * sizeof(*p));
		if (!p) {
			free(text);
			e->err = -ENOMEM;
			return;
		}
		r->problems = p;
		e->cap = ncap;
	}
	r->problems[r->n_problems++] = (struct fab_ready_problem){ host, verdict, text };
	if (r->verdict[host] != FAB_READY_NOT_READY)
		r->verdict[host] = verdict;
}

/* "name/port": the node's name in every output (fab_node_name). */
static const char *port_label(const struct eval *e, uint32_t port, char *buf, size_t len)
{
	const struct fab_port *p = &e->v->ports[port];
	char nb[FAB_NODE_NAME_CAP];

	snprintf(buf, len, "%s/%u", fab_node_name(e->v, p->node_idx, e->map, nb, sizeof(nb)),
		 p->port_num);
	return buf;
}

static const char *err_text(int err)
{
	switch (err) {
	case -ETIMEDOUT: return "no answer";
	case -EREMOTEIO: return "an error status";
	case -EHOSTUNREACH: return "no LID in the sweep";
	default: return strerror(-err);
	}
}

static const char *state_text(const struct fab_port *p, char *buf, size_t len)
{
	const char *s = fab_state_name(p->state), *ph = fab_phys_state_name(p->phys_state);

	snprintf(buf, len, "%s/%s", s ? s : "unknown", ph ? ph : "unknown");
	return buf;
}

/* Counters of one port against the sweep's latest sample: one line naming
 * every counter that rose more than its limit allows (the counter model:
 * a reset or a saturated counter is "or more", as everywhere). */
size_t fab_ready_counter_rise(const struct fab_counter_sample *old,
			      const struct fab_counter_sample *now,
			      const struct fab_counter_limits *limits, char *line, size_t cap)
{
	struct fab_counter_delta d;
	char amount[32];
	size_t off = 0;

	if (cap)
		line[0] = '\0';
	fab_counter_delta(old, now, FAB_CTR_MASK_ALL, &d);
	for (unsigned k = 0; k < FAB_CTR__COUNT && cap; k++) {
		uint32_t bit = 1u << k;
		const char *why = fab_counter_why(d.reset & bit, d.saturated & bit);

		if (!fab_counter_over(&d, k, limits->allowed[k]))
			continue;
		fab_counter_amount(d.inc[k], d.at_least & bit, amount, sizeof(amount));
		off += (size_t)snprintf(line + off, off < cap ? cap - off : 0,
					"%s%s +%s (%llu -> %llu%s%s)", off ? ", " : "",
					fab_counter_name(k), amount, (unsigned long long)old->v[k],
					(unsigned long long)now->v[k], why ? ", " : "", why ? why : "");
		if (off >= cap)
			off = cap - 1;
	}
	return off;
}

static void check_counters(struct eval *e, size_t host, const struct fab_probe_port *t)
{
	const struct fab_counter_sample *old = fab_counter_latest(e->v, t->port_idx);
	char lab[300], line[1024];

	if (t->ctr_err) {
		if (t->node_err || t->ctr_err == -ECANCELED)
			return; /* said already */
		problem(e, host, FAB_READY_UNKNOWN, "the counters of %s could not be read (%s)",
			port_label(e, t->port_idx, lab, sizeof(lab)), err_text(t->ctr_err));
		return;
	}
	if (!old)
		return; /* nothing to compare with: the sweep read none */
	if (fab_ready_counter_rise(old, &t->ctr, e->limits, line, sizeof(line)))
		problem(e, host, FAB_READY_NOT_READY, "%s error counters rose since scan %lld: %s",
			port_label(e, t->port_idx, lab, sizeof(lab)), (long long)e->v->scan_id, line);
}

/* One link of a host: its CA port p, the port q at the other end. */
static void check_link(struct eval *e, size_t host, uint32_t p, uint32_t q)
{
	const struct fab_ready *r = e->r;
	const struct fab_probe_port *tp = &r->ports[r->target_of[p]];
	const struct fab_probe_port *tq = &r->ports[r->target_of[q]];
	const struct fab_port *sp = &e->v->ports[p];
	char a[300], b[300], st[64], g1[FAB_GUID_STRLEN], g2[FAB_GUID_STRLEN];
	long long scan = (long long)e->v->scan_id;

	port_label(e, p, a, sizeof(a));
	port_label(e, q, b, sizeof(b));
	/* who answers at each LID */
	for (int side = 0; side < 2; side++) {
		const struct fab_probe_port *t = side ? tq : tp;
		const struct fab_node *n = &e->v->nodes[e->v->ports[t->port_idx].node_idx];
		if (!t->node_err && t->node_guid != n->guid) {
			fab_guid_format(t->node_guid, g1);
			fab_guid_format(n->guid, g2);
			problem(e, host, FAB_READY_UNKNOWN,
				"LID %u answers as %s, not as %s (%s): the LIDs changed since scan %lld; run a sweep",
				t->lid, g1, side ? b : a, g2, scan);
			return;
		}
	}
	/* the state of the link, from either end that answered */
	if (!tq->info_err && tq->live.state != FAB_STATE_ACTIVE) {
		problem(e, host, FAB_READY_NOT_READY, "link %s <-> %s is %s at %s (active at scan %lld)",
			a, b, state_text(&tq->live, st, sizeof(st)), b, scan);
		return;
	}
	if (!tp->info_err && tp->live.state != FAB_STATE_ACTIVE) {
		problem(e, host, FAB_READY_NOT_READY, "link %s <-> %s is %s at %s (active at scan %lld)",
			a, b, state_text(&tp->live, st, sizeof(st)), a, scan);
		return;
	}
	if (tp->info_err && tq->info_err) {
		problem(e, host, FAB_READY_NOT_READY,
			"neither end of link %s <-> %s answered (LID %u: %s; LID %u: %s)", a, b,
			tp->lid, err_text(tp->info_err), tq->lid, err_text(tq->info_err));
		return;
	}
	if (tp->info_err) {
		problem(e, host, FAB_READY_NOT_READY, "%s (LID %u) did not answer (%s) although %s is active",
			a, tp->lid, err_text(tp->info_err), b);
		return;
	}
	if (tq->info_err)
		problem(e, host, FAB_READY_UNKNOWN, "%s (LID %u) did not answer (%s): its end of the link is not checked",
			b, tq->lid, err_text(tq->info_err));
	/* width and speed against what the link ran at the sweep */
	const struct fab_port *live = &tp->live;
	if (fab_width_rank(live->width_active) < fab_width_rank(sp->width_active)) {
		const char *now = fab_width_name(live->width_active), *was = fab_width_name(sp->width_active);
		problem(e, host, FAB_READY_NOT_READY, "link %s <-> %s runs %s (%s at scan %lld)", a, b,
			now ? now : "?", was ? was : "?", scan);
	}
	if (fab_speed_rank(live->speed_active) < fab_speed_rank(sp->speed_active)) {
		const char *now = fab_speed_name(live->speed_active), *was = fab_speed_name(sp->speed_active);
		problem(e, host, FAB_READY_NOT_READY, "link %s <-> %s runs at %s (%s at scan %lld)", a, b,
			now ? now : "?", was ? was : "?", scan);
	}
	check_counters(e, host, tp);
	if (!tq->info_err)
		check_counters(e, host, tq);
}

/* Whether finding f touches a host with these CA nodes: it names one of
 * them, or a port cabled to one of them, or as a whole a node they attach to. */
static bool touches(const struct eval *e, const struct fab_finding *f, size_t host)
{
	const struct fab_snapshot *v = e->v;
	const char *ends[2][2] = { { f->node, f->port }, { f->peer_node, f->peer_port } };

	for (int k = 0; k < 2; k++) {
		uint64_t g;
		uint32_t ni;

		if (!ends[k][0] || fab_guid_parse(ends[k][0], &g) ||
		    (ni = fab_snapshot_find_node(v, g)) == FAB_NONE)
			continue;
		if (e->r->ca_of[ni] == host + 1)
			return true;
		/* a port of another node: is it cabled to one of the host's CAs? */
		const struct fab_node *n = &v->nodes[ni];
		for (uint32_t i = 0; i < n->port_count; i++) {
			uint32_t pi = n->port_first + i, q = peer_of(v, pi);
			char num[8];

			if (q == FAB_NONE || e->r->ca_of[v->ports[q].node_idx] != host + 1)
				continue;
			snprintf(num, sizeof(num), "%u", v->ports[pi].port_num);
			if (!ends[k][1] || !strcmp(ends[k][1], num))
				return true;
		}
	}
	return false;
}

int fab_ready_evaluate(struct fab_ready *r, const struct fab_snapshot *v,
		       const struct fab_ready_hosts *h, const struct fab_nodemap *map,
		       const struct fab_counter_limits *limits, unsigned fail_on)
{
	struct eval e = { .r = r, .v = v, .map = map, .limits = limits };
	uint32_t *first = NULL, *next = NULL;
	long long scan = (long long)v->scan_id;

	for (size_t i = 0; i < r->n_problems; i++)
		free(r->problems[i].text);
	free(r->problems);
	r->problems = NULL;
	r->n_problems = 0;
	memset(r->verdict, 0, r->n_hosts);
	if (v->n_nodes != r->n_nodes || v->n_ports != r->n_view_ports)
		return -EINVAL; /* not the view it was planned on */

	/* each host's CAs, in node order */
	first = malloc((r->n_hosts + 1) * sizeof(*first));
	next = malloc((v->n_nodes + 1) * sizeof(*next));
	if (!first || !next) {
		free(first);
		free(next);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_hosts; i++)
		first[i] = FAB_NONE;
	for (uint32_t ni = (uint32_t)v->n_nodes; ni-- > 0;) {
		if (!r->ca_of[ni])
			continue;
		next[ni] = first[r->ca_of[ni] - 1];
		first[r->ca_of[ni] - 1] = ni;
	}
	for (size_t i = 0; i < r->n_ports; i++)
		e.answered += r->ports[i].node_err == 0;

	for (size_t hi = 0; hi < r->n_hosts && !e.err; hi++) {
		const char *name = fab_ready_hosts_name(h, hi);
		char lab[300];

		if (first[hi] == FAB_NONE) {
			problem(&e, hi, FAB_READY_UNKNOWN,
				"not in scan %lld: no channel adapter whose description%s starts with '%s'",
				scan, map ? " or node-name-map name" : "", name);
			continue;
		}
		for (uint32_t ni = first[hi]; ni != FAB_NONE; ni = next[ni]) {
			const struct fab_node *n = &v->nodes[ni];
			size_t links = 0;

			for (uint32_t k = 0; k < n->port_count; k++) {
				uint32_t pi = n->port_first + k, q = peer_of(v, pi);
				if (q == FAB_NONE)
					continue;
				links++;
				if (r->n_ports && !e.answered) {
					problem(&e, hi, FAB_READY_UNKNOWN,
						"no LID answered the probe at all: is this machine on the same fabric, with a subnet manager?");
					break;
				}
				check_link(&e, hi, pi, q);
			}
			if (!links) {
				char nb[FAB_NODE_NAME_CAP];
				snprintf(lab, sizeof(lab), "%s",
					 fab_node_name(v, ni, map, nb, sizeof(nb)));
				problem(&e, hi, FAB_READY_UNKNOWN,
					"'%s' had no link in scan %lld (its ports were down): nothing to probe; run a sweep",
					lab, scan);
			}
		}
		for (size_t i = 0; fail_on < FAB_SEV__COUNT && i < v->n_findings; i++) {
			const struct fab_finding *f = &v->findings[i];
			if (f->severity < fail_on || !touches(&e, f, hi))
				continue;
			problem(&e, hi, FAB_READY_NOT_READY, "scan %lld: %s %s %s: %s", scan,
				fab_severity_name(f->severity), f->rule_id,
				f->subject ? f->subject : "-", f->message ? f->message : "");
		}
	}
	free(first);
	free(next);
	return e.err;
}

enum fab_ready_verdict fab_ready_overall(const struct fab_ready *r)
{
	enum fab_ready_verdict v = FAB_READY_OK;

	for (size_t i = 0; i < r->n_hosts; i++) {
		if (r->verdict[i] == FAB_READY_NOT_READY)
			return FAB_READY_NOT_READY;
		if (r->verdict[i] == FAB_READY_UNKNOWN)
			v = FAB_READY_UNKNOWN;
	}
	return v;
}
