// SPDX-License-Identifier: MIT
/*
 * The rules over watch's events (docs/watch.md, "Link events"): what it
 * read of ports' states between full scans (port.down's second source) and
 * the security notices the SM forwarded (sm.security_trap).
 */
#include <stdio.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* Security traps: the bad M_Key, P_Key, Q_Key and switch P_Key notices. */
#define TRAP_SECURITY_FIRST 256
#define TRAP_SECURITY_LAST 259

/* Whether a later event of ctx reads the same port (the last read counts). */
static bool read_again(const struct fab_rule_ctx *ctx, size_t i)
{
	const struct fab_event *e = &ctx->events[i];

	for (size_t j = i + 1; j < ctx->n_events; j++) {
		const struct fab_event *f = &ctx->events[j];
		if (f->kind == FAB_EVENT_PORT && f->node_guid == e->node_guid &&
		    f->port_num == e->port_num)
			return true;
	}
	return false;
}

int check_port_down_events(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	char was[FAB_TIME_STRLEN], at[FAB_TIME_STRLEN];
	int err;

	fab_time_format(ctx->base ? ctx->base->started_at_ms : s->started_at_ms, was);
	for (size_t i = 0; i < ctx->n_events; i++) {
		const struct fab_event *e = &ctx->events[i];
		uint32_t n;
		const struct fab_port *p;

		/* a port that was Active and is not: one that goes on changing
		 * (down, then training) is held from its first read down */
		if (e->kind != FAB_EVENT_PORT || e->state == FAB_STATE_ACTIVE ||
		    e->was != FAB_STATE_ACTIVE || read_again(ctx, i) ||
		    (n = fab_snapshot_find_node(s, e->node_guid)) == FAB_NONE ||
		    !(p = fab_snapshot_port(s, n, e->port_num)) || p->state != FAB_STATE_ACTIVE ||
		    rule_peer(s, (uint32_t)(p - s->ports)) == FAB_NONE)
			continue; /* not one the snapshot has up with a link */
		fab_time_format(e->at_ms, at);
		rbuf_reset(&ctx->ev);
		if (e->cause == FAB_CAUSE_NONE)
			rbuf_printf(&ctx->ev, "read=%s", at);
		else if (e->phys_state == FAB_PHYS_UNKNOWN && e->state == FAB_STATE_DOWN)
			rbuf_printf(&ctx->ev, "read=%s; by=%s (its link's other end read down)", at,
				    fab_event_cause_name(e->cause));
		else
			rbuf_printf(&ctx->ev, "read=%s; by=%s", at, fab_event_cause_name(e->cause));
		if ((err = rule_emit_port_down(ctx, (uint32_t)(p - s->ports),
					       rule_peer(s, (uint32_t)(p - s->ports)), e->state,
					       e->phys_state, was)))
			return err;
	}
	return 0;
}

static const char *trap_name(unsigned trap)
{
	switch (trap) {
	case 256: return "bad M_Key";
	case 257: return "bad P_Key";
	case 258: return "bad Q_Key";
	default: return "bad P_Key at a switch port";
	}
}

/* sm.security_trap: each security notice (traps 256-259) the SM forwarded,
 * at the node whose LID issued it (the one that saw the bad key). */
int check_security_trap(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	char at[FAB_TIME_STRLEN], g[FAB_GUID_STRLEN], subject[40];
	int err = 0;

	for (size_t i = 0; i < ctx->n_events && !err; i++) {
		const struct fab_event *e = &ctx->events[i];
		uint32_t n = FAB_NONE;

		if (e->kind != FAB_EVENT_NOTICE || e->trap < TRAP_SECURITY_FIRST ||
		    e->trap > TRAP_SECURITY_LAST)
			continue;
		for (uint32_t k = 0; k < s->n_nodes && n == FAB_NONE && e->lid; k++)
			if (s->nodes[k].lid == e->lid)
				n = k;
		if (n == FAB_NONE && e->node_guid)
			n = fab_snapshot_find_node(s, e->node_guid);
		fab_time_format(e->at_ms, at);
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "trap=%u; issuer_lid=%u; at=%s; notice=%s", e->trap, e->lid, at,
			    e->detail ? e->detail : "");
		if (n != FAB_NONE) {
			err = rule_emit_node(ctx, n, rbuf_str(&ctx->ev),
					     "the SM reported a %s (trap %u): %s", trap_name(e->trap),
					     e->trap, e->detail ? e->detail : "no details");
			continue;
		}
		fab_guid_format(e->node_guid, g);
		snprintf(subject, sizeof(subject), "LID %u", e->lid);
		err = rule_emit_raw(ctx, e->node_guid ? g : NULL, NULL, NULL, NULL, subject,
				    rbuf_str(&ctx->ev), "the SM reported a %s (trap %u): %s",
				    trap_name(e->trap), e->trap, e->detail ? e->detail : "no details");
	}
	return err;
}
