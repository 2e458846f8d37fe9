// SPDX-License-Identifier: MIT
/*
 * Hysteresis for watch sweeps (include/fabsweep/rules.h, docs/watch.md): a
 * finding raised on one sweep stays in the sweeps after it for the hold
 * time since it was last raised, so a flapping link or a counter that
 * rises now and then does not blink on and off. The findings are kept with
 * their own copies of the strings in a hash table keyed by rule, node and
 * port; each sweep costs O(findings), never O(ports).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"

struct held {
	char *key; /* "rule\\x1fnode\\x1fport": NULL for an empty slot */
	char *rule_id, *node, *port, *peer_node, *peer_port, *subject, *message, *evidence;
	uint8_t severity;
	bool until_up; /* port.down: held until the port is Active again */
	int64_t last_ms;
	uint64_t seen; /* the apply call that last raised it */
};

struct fab_rules_hold {
	int64_t hold_ms;
	struct held *slots;
	size_t cap, n;
	uint64_t round;
};

int fab_rules_hold_new(int64_t hold_ms, struct fab_rules_hold **out)
{
	struct fab_rules_hold *h = calloc(1, sizeof(*h));

	if (!h)
		return fab_err(-ENOMEM, "out of memory");
	h->hold_ms = hold_ms;
	*out = h;
	return 0;
}

static void held_clear(struct held *e)
{
	free(e->key);
	free(e->rule_id);
	free(e->node);
	free(e->port);
	free(e->peer_node);
	free(e->peer_port);
	free(e->subject);
	free(e->message);
	free(e->evidence);
	memset(e, 0, sizeof(*e));
}

void fab_rules_hold_free(struct fab_rules_hold *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->cap; i++)
		held_clear(&h->slots[i]);
	free(h->slots);
	free(h);
}

static uint64_t hash(const char *s)
{
	uint64_t v = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		v = (v ^ (unsigned char)*s) * 1099511628211ull;
	return v;
}

static char *dup_opt(const char *s, bool *nomem)
{
	char *d;

	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		*nomem = true;
	return d;
}

/* The slot of key: its entry, or the empty slot where it would go. */
static struct held *slot(struct fab_rules_hold *h, const char *key)
{
	size_t i = (size_t)hash(key) & (h->cap - 1);

	while (h->slots[i].key && strcmp(h->slots[i].key, key))
		i = (i + 1) & (h->cap - 1);
	return &h->slots[i];
}

static int grow(struct fab_rules_hold *h)
{
	struct held *old = h->slots;
	size_t ocap = h->cap, cap = h->cap ? h->cap * 2 : 64;

	if ((h->n + 1) * 2 <= h->cap)
		return 0;
	if (!(h->slots = calloc(cap, sizeof(*h->slots)))) {
		h->slots = old;
		return -ENOMEM;
	}
	h->cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key)
			*slot(h, old[i].key) = old[i];
	free(old);
	return 0;
}

/* Rebuilds the table without the entries that are past the hold (open
 * addressing cannot simply empty a slot). */
static bool up_in(const struct held *e, const struct fab_snapshot *s)
{
	uint64_t g;
	uint32_t n;
	const struct fab_port *p;

	if (!e->node || !e->port || fab_guid_parse(e->node, &g) ||
	    (n = fab_snapshot_find_node(s, g)) == FAB_NONE)
		return false;
	p = fab_snapshot_port(s, n, (unsigned)strtoul(e->port, NULL, 10));
	return p && p->state == FAB_STATE_ACTIVE;
}

/* Whether watch's last read of the entry's port in s (a sweep's events)
 * found it Active. */
static bool read_up(const struct held *e, const struct fab_snapshot *s)
{
	uint64_t g;
	unsigned port;

	if (!s->n_events || !e->node || !e->port || fab_guid_parse(e->node, &g))
		return false;
	port = (unsigned)strtoul(e->port, NULL, 10);
	for (size_t i = s->n_events; i-- > 0;) {
		const struct fab_event *ev = &s->events[i];
		if (ev->kind == FAB_EVENT_PORT && ev->node_guid == g && ev->port_num == port)
			return ev->state == FAB_STATE_ACTIVE;
	}
	return false;
}

/* Whether an entry's hold is over at now_ms; a port.down one when snap
 * (a full scan: it has ports) has the port Active, or a sweep read it
 * Active. */
static bool over(const struct fab_rules_hold *h, const struct held *e,
		 const struct fab_snapshot *snap, int64_t now_ms)
{
	if (e->until_up)
		return (snap->n_ports && up_in(e, snap)) || read_up(e, snap);
	return now_ms - e->last_ms > h->hold_ms;
}

static int expire(struct fab_rules_hold *h, const struct fab_snapshot *snap, int64_t now_ms)
{
	struct held *old = h->slots;
	size_t ocap = h->cap, n = 0;

	for (size_t i = 0; i < ocap; i++)
		if (old[i].key && over(h, &old[i], snap, now_ms))
			held_clear(&old[i]);
		else if (old[i].key)
			n++;
	if (n == h->n)
		return 0;
	if (!(h->slots = calloc(ocap, sizeof(*h->slots)))) {
		h->slots = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key)
			*slot(h, old[i].key) = old[i];
	h->n = n;
	free(old);
	return 0;
}

static int remember(struct fab_rules_hold *h, const struct fab_finding *f, int64_t now_ms)
{
	char key[512];
	bool nomem = false;
	struct held *e;

	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s", f->rule_id, f->node ? f->node : "",
		 f->port ? f->port : "");
	if (grow(h))
		return -ENOMEM;
	e = slot(h, key);
	if (e->key)
		held_clear(e);
	else
		h->n++;
	e->key = dup_opt(key, &nomem);
	e->rule_id = dup_opt(f->rule_id, &nomem);
	e->node = dup_opt(f->node, &nomem);
	e->port = dup_opt(f->port, &nomem);
	e->peer_node = dup_opt(f->peer_node, &nomem);
	e->peer_port = dup_opt(f->peer_port, &nomem);
	e->subject = dup_opt(f->subject, &nomem);
	e->message = dup_opt(f->message, &nomem);
	e->evidence = dup_opt(f->evidence, &nomem);
	e->severity = f->severity;
	e->until_up = f->held_until_ms == INT64_MAX;
	e->last_ms = now_ms;
	e->seen = h->round;
	return nomem ? -ENOMEM : 0;
}

/* The evidence of a finding while it is held: "...; held_since=<time>",
 * or for a port that is down "...; since=<time first seen down>". */
static const char *held_evidence(struct fab_snapshot *s, const char *evidence, int64_t since_ms,
				 bool until_up)
{
	char t[FAB_TIME_STRLEN];

	fab_time_format(since_ms, t);
	return fab_snapshot_printf(s, "%s%s%s=%s", evidence ? evidence : "", evidence ? "; " : "",
				   until_up ? "since" : "held_since", t);
}

/* Which findings watch holds: the counter rules' (judged on every sweep)
 * and port.down (until the port is up again); the others are the full
 * scan's and stay with it. */
bool fab_rules_held_by_watch(const char *rule_id)
{
	const struct fab_rule *r = fab_rule_find(rule_id);

	return r && (r->category == FAB_CAT_COUNTERS || !strcmp(r->id, "port.down") ||
		     !strcmp(r->id, "sm.security_trap"));
}

static bool holdable(const struct fab_finding *f)
{
	return fab_rules_held_by_watch(f->rule_id);
}

int fab_rules_hold_apply(struct fab_rules_hold *h, struct fab_snapshot *sweep, int64_t now_ms)
{
	size_t raised = sweep->n_findings;
	int err = 0;

	h->round++;
	for (size_t i = 0; i < raised && !err; i++) {
		struct fab_finding *f = &sweep->findings[i];
		bool until_up = !strcmp(f->rule_id, "port.down");

		if (!holdable(f))
			continue;
		f->held_since_ms = now_ms;
		f->held_until_ms = until_up ? INT64_MAX : now_ms + h->hold_ms;
		if (!(f->held_evidence = held_evidence(sweep, f->evidence, now_ms, until_up)))
			err = -ENOMEM;
		else
			err = remember(h, f, now_ms);
	}
	if (!err)
		err = expire(h, sweep, now_ms);
	for (size_t i = 0; i < h->cap && !err; i++) {
		const struct held *e = &h->slots[i];

		if (!e->key || e->seen == h->round)
			continue;
		const char *ev = held_evidence(sweep, e->evidence, e->last_ms, e->until_up);
		struct fab_finding f = {
			.rule_id = e->rule_id, .severity = e->severity, .node = e->node,
			.port = e->port, .peer_node = e->peer_node, .peer_port = e->peer_port,
			.subject = e->subject, .message = e->message,
			.evidence = ev, .held_evidence = ev,
			.held_since_ms = e->last_ms,
			.held_until_ms = e->until_up ? INT64_MAX : e->last_ms + h->hold_ms,
			.held = true,
		};
		if (!f.evidence)
			err = -ENOMEM;
		else
			err = fab_snapshot_add_finding(sweep, &f);
	}
	return err ? fab_err(err, "out of memory") : 0;
}

int fab_rules_hold_restore(struct fab_rules_hold *h, const struct fab_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct fab_finding g = f[i];

		if (!holdable(&g))
			continue;
		g.held_until_ms = !strcmp(g.rule_id, "port.down") ? INT64_MAX
								 : g.held_since_ms + h->hold_ms;
		/* remembered in this round: the next apply holds it from its raise */
		if (remember(h, &g, g.held_since_ms))
			return fab_err(-ENOMEM, "out of memory");
	}
	return 0;
}
