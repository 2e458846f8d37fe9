// SPDX-License-Identifier: MIT
/*
 * Subnet manager rules, one generic check parametrised by rule->arg, over
 * the SMInfo answers in snap->sms (states 0 notactive, 1 discovering,
 * 2 standby, 3 master).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

enum { SMINFO_NOTACTIVE = 0, SMINFO_STANDBY = 2, SMINFO_MASTER = 3 };

/* Where an SM runs, as finding fields. */
struct sm_loc {
	char guid[FAB_GUID_STRLEN], port[8];
	const char *node_field, *port_field;
};

static void locate(struct fab_rule_ctx *ctx, const struct fab_sm *sm, struct sm_loc *l,
		   struct rbuf *name)
{
	const struct fab_snapshot *s = ctx->snap;

	rbuf_reset(name);
	if (sm->port_idx != FAB_NONE && sm->port_idx < s->n_ports) {
		const struct fab_port *p = &s->ports[sm->port_idx];
		fab_guid_format(s->nodes[p->node_idx].guid, l->guid);
		snprintf(l->port, sizeof(l->port), "%u", p->port_num);
		l->node_field = l->guid;
		l->port_field = l->port;
		rbuf_printf(name, "SM on ");
		rule_port_name(name, s, sm->port_idx);
		return;
	}
	l->node_field = l->port_field = NULL;
	rbuf_printf(name, "SM 0x%016llx (lid %u)", (unsigned long long)sm->port_guid, sm->lid);
}

static void describe(struct rbuf *ev, const char *prefix, const struct fab_sm *sm)
{
	rbuf_sep(ev, "; ");
	rbuf_printf(ev, "%sport_guid=0x%016llx; %slid=%u", prefix,
		    (unsigned long long)sm->port_guid, prefix, sm->lid);
	if (sm->failed)
		rbuf_printf(ev, "; %ssminfo=failed", prefix);
	else
		rbuf_printf(ev, "; %sstate=%s; %spriority=%u", prefix,
			    fab_sm_state_name(sm->state) ? fab_sm_state_name(sm->state) : "unknown",
			    prefix, sm->priority);
}

static bool is_master(const struct fab_sm *sm)
{
	return !sm->failed && sm->state == SMINFO_MASTER;
}

static int emit_sm(struct fab_rule_ctx *ctx, const struct fab_sm *sm, const struct fab_sm *peer,
		   const char *fmt_extra)
{
	struct sm_loc a, b = { 0 };
	char subject[512];

	locate(ctx, sm, &a, &ctx->tmp);
	snprintf(subject, sizeof(subject), "%s", rbuf_str(&ctx->tmp));
	if (peer)
		locate(ctx, peer, &b, &ctx->tmp);
	return rule_emit_raw(ctx, a.node_field, a.port_field, peer ? b.node_field : NULL,
			     peer ? b.port_field : NULL, subject, rbuf_str(&ctx->ev), "%s",
			     fmt_extra);
}

static int sm_unresponsive(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	uint8_t *seen = calloc(s->n_ports + 1, 1);
	char msg[256];
	int err = 0;

	if (!seen)
		return fab_err(-ENOMEM, "out of memory");
	for (size_t i = 0; i < s->n_sms && !err; i++) {
		const struct fab_sm *sm = &s->sms[i];
		const struct fab_port *p = NULL;

		if (sm->port_idx != FAB_NONE && sm->port_idx < s->n_ports) {
			seen[sm->port_idx] = 1;
			p = &s->ports[sm->port_idx];
		}
		if (sm->failed)
			snprintf(msg, sizeof(msg), "advertises IsSM but did not answer SMInfo");
		else if (sm->state == SMINFO_NOTACTIVE)
			snprintf(msg, sizeof(msg), "subnet manager is not active (SMInfo state notactive)");
		else if (p && p->state && p->state != FAB_STATE_ACTIVE)
			snprintf(msg, sizeof(msg), "subnet manager's port is %s, not active",
				 fab_state_name(p->state) ? fab_state_name(p->state) : "unknown");
		else
			continue;
		rbuf_reset(&ctx->ev);
		describe(&ctx->ev, "", sm);
		if (p)
			rbuf_printf(&ctx->ev, "; port_state=%s",
				    fab_state_name(p->state) ? fab_state_name(p->state) : "unknown");
		err = emit_sm(ctx, sm, NULL, msg);
	}
	/* ports the scanner flagged but recorded no SM for */
	for (size_t i = 0; i < s->n_ports && !err; i++) {
		if (!(s->ports[i].flags & FAB_F_SMINFO_FAILED) || seen[i])
			continue;
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "sminfo=failed");
		err = rule_emit_port(ctx, (uint32_t)i, FAB_NONE, rbuf_str(&ctx->ev),
				     "advertises IsSM but did not answer SMInfo");
	}
	free(seen);
	return err;
}

int check_sm(struct fab_rule_ctx *ctx)
{
	const struct fab_snapshot *s = ctx->snap;
	const struct fab_sm *master = NULL, *second = NULL;
	size_t masters = 0, standby = 0, failed = 0;
	char msg[256];

	for (size_t i = 0; i < s->n_sms; i++) {
		const struct fab_sm *sm = &s->sms[i];
		if (is_master(sm)) {
			if (!masters)
				master = sm;
			else if (masters == 1)
				second = sm;
			masters++;
		}
		standby += !sm->failed && sm->state == SMINFO_STANDBY;
		failed += sm->failed;
	}
	rbuf_reset(&ctx->ev);
	switch (ctx->rule->arg) {
	case SM_NONE:
		if (masters)
			return 0;
		rbuf_printf(&ctx->ev, "sms=%zu; standby=%zu; failed=%zu", s->n_sms, standby, failed);
		return rule_emit_raw(ctx, NULL, NULL, NULL, NULL, "subnet", rbuf_str(&ctx->ev),
				     "no subnet manager is master (%zu seen, %zu standby)",
				     s->n_sms, standby);
	case SM_MULTIPLE_MASTERS:
		if (masters < 2)
			return 0;
		rbuf_printf(&ctx->ev, "masters=%zu", masters);
		for (size_t i = 0, k = 0; i < s->n_sms; i++)
			if (is_master(&s->sms[i])) {
				char pre[24];
				snprintf(pre, sizeof(pre), "master%zu_", ++k);
				describe(&ctx->ev, pre, &s->sms[i]);
			}
		snprintf(msg, sizeof(msg), "%zu subnet managers are master at once", masters);
		return emit_sm(ctx, master, second, msg);
	case SM_PRIORITY_INVERSION:
		if (masters != 1)
			return 0;
		for (size_t i = 0; i < s->n_sms; i++) {
			const struct fab_sm *sm = &s->sms[i];
			int err;
			if (sm->failed || is_master(sm) || sm->priority <= master->priority)
				continue;
			rbuf_reset(&ctx->ev);
			describe(&ctx->ev, "", sm);
			describe(&ctx->ev, "master_", master);
			snprintf(msg, sizeof(msg), "%s subnet manager has priority %u, above the master's %u",
				 fab_sm_state_name(sm->state) ? fab_sm_state_name(sm->state) : "non-master",
				 sm->priority, master->priority);
			if ((err = emit_sm(ctx, sm, master, msg)))
				return err;
		}
		return 0;
	case SM_NO_STANDBY: {
		size_t want = (size_t)rule_param(ctx, 0);
		if (masters != 1 || standby >= want)
			return 0;
		describe(&ctx->ev, "", master);
		rbuf_printf(&ctx->ev, "; standby=%zu; min_standby=%zu", standby, want);
		if (standby)
			snprintf(msg, sizeof(msg), "the master subnet manager has %zu standby, fewer than %zu",
				 standby, want);
		else
			snprintf(msg, sizeof(msg), "the master subnet manager has no standby");
		return emit_sm(ctx, master, NULL, msg);
	}
	case SM_UNRESPONSIVE:
		return sm_unresponsive(ctx);
	}
	return 0;
}
