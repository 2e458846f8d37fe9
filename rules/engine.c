// SPDX-License-Identifier: MIT
/*
 * The engine: decides which rules run, computes what several rules share
 * (latest counter samples, which samples to compare) once, runs each check and turns
 * what it emits into findings, applying severity overrides and
 * suppressions. Linear in the size of the snapshot (plus sorting).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/roce.h"
#include "fabsweep/pkey.h"
#include "fabsweep/routing.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

/* ---- names ----------------------------------------------------------------- */

/* The node's name in every output (fab_node_name: its description, with
 * GUID digits when another node shares it; its GUID without one). */
void rule_name(struct rbuf *b, const struct fab_snapshot *s, uint32_t node)
{
	char nb[FAB_NODE_NAME_CAP];

	rbuf_printf(b, "%s", fab_node_name(s, node, NULL, nb, sizeof(nb)));
}

void rule_port_name(struct rbuf *b, const struct fab_snapshot *s, uint32_t port)
{
	rule_name(b, s, s->ports[port].node_idx);
	rbuf_printf(b, "/%u", s->ports[port].port_num);
}

double rule_param(const struct fab_rule_ctx *ctx, size_t i)
{
	return fab_config_value(ctx->cfg, ctx->rule, i);
}

double rule_shared(const struct fab_rule_ctx *ctx, const struct fab_rule_param *p)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	/* the rule that owns it: a walk over a few dozen parameters */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].n_params; k++)
			if (&t[i].params[k] == p)
				return fab_config_value(ctx->cfg, &t[i], k);
	return p->def;
}

/* ---- emitting ---------------------------------------------------------------- */

/* One end of a finding, for suppression matching. */
struct end {
	const char *guid, *port;
	uint32_t node; /* FAB_NONE when not in the topology */
};

static bool match_end(struct fab_rule_ctx *ctx, const char *pat, const struct end *e)
{
	struct rbuf *b = &ctx->scratch;

	if (!e->guid && e->node == FAB_NONE)
		return false;
	if (e->guid && (!fnmatch(pat, e->guid, 0)))
		return true;
	if (e->node != FAB_NONE) {
		rbuf_reset(b);
		rule_name(b, ctx->snap, e->node);
		if (!fnmatch(pat, rbuf_str(b), 0))
			return true;
		if (e->port) {
			rbuf_printf(b, "/%s", e->port);
			if (!fnmatch(pat, rbuf_str(b), 0))
				return true;
		}
	}
	if (e->guid && e->port) {
		rbuf_reset(b);
		rbuf_printf(b, "%s/%s", e->guid, e->port);
		if (!fnmatch(pat, rbuf_str(b), 0))
			return true;
	}
	return false;
}

static bool suppressed(struct fab_rule_ctx *ctx, const struct end *a,
		       const struct end *b, const char *subject)
{
	for (size_t i = 0; i < ctx->n_supp; i++) {
		const struct fab_suppression *s = &ctx->supp[i];

		if (ctx->now_ms >= s->until_ms || fnmatch(s->rule, ctx->rule->id, 0))
			continue;
		if ((subject && !fnmatch(s->pattern, subject, 0)) ||
		    match_end(ctx, s->pattern, a) || match_end(ctx, s->pattern, b))
			return true;
	}
	return false;
}

static int emit(struct fab_rule_ctx *ctx, const struct end *a, const struct end *b,
		const char *subject, const char *evidence, const char *fmt, va_list ap)
{
	char msg[1024];
	struct fab_finding f;

	if (ctx->n_supp && suppressed(ctx, a, b, subject)) {
		ctx->n_suppressed++;
		return 0;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	f = (struct fab_finding){
		.rule_id = ctx->rule->id,
		.severity = ctx->severity,
		.node = a->guid,
		.port = a->port,
		.peer_node = b->guid,
		.peer_port = b->port,
		.subject = subject,
		.message = msg,
		.evidence = evidence && *evidence ? evidence : NULL,
	};
	if (fab_snapshot_add_finding(ctx->out, &f))
		return fab_err(-ENOMEM, "out of memory adding a finding");
	ctx->n_emitted++;
	return 0;
}

static void port_end(const struct fab_snapshot *s, uint32_t port, char guid[FAB_GUID_STRLEN],
		     char num[8], struct end *e)
{
	const struct fab_port *p = &s->ports[port];

	fab_guid_format(s->nodes[p->node_idx].guid, guid);
	snprintf(num, 8, "%u", p->port_num);
	*e = (struct end){ .guid = guid, .port = num, .node = p->node_idx };
}

int rule_emit_port(struct fab_rule_ctx *ctx, uint32_t port, uint32_t peer,
		   const char *evidence, const char *fmt, ...)
{
	char ga[FAB_GUID_STRLEN], gb[FAB_GUID_STRLEN], pa[8], pb[8];
	struct end a, b = { .node = FAB_NONE };
	va_list ap;
	int err;

	port_end(ctx->snap, port, ga, pa, &a);
	rbuf_reset(&ctx->subject);
	rule_port_name(&ctx->subject, ctx->snap, port);
	if (peer != FAB_NONE) {
		port_end(ctx->snap, peer, gb, pb, &b);
		rbuf_printf(&ctx->subject, " <-> ");
		rule_port_name(&ctx->subject, ctx->snap, peer);
	}
	va_start(ap, fmt);
	err = emit(ctx, &a, &b, rbuf_str(&ctx->subject), evidence, fmt, ap);
	va_end(ap);
	return err;
}

int rule_emit_node(struct fab_rule_ctx *ctx, uint32_t node, const char *evidence,
		   const char *fmt, ...)
{
	char g[FAB_GUID_STRLEN];
	struct end a, b = { .node = FAB_NONE };
	va_list ap;
	int err;

	fab_guid_format(ctx->snap->nodes[node].guid, g);
	a = (struct end){ .guid = g, .node = node };
	rbuf_reset(&ctx->subject);
	rule_name(&ctx->subject, ctx->snap, node);
	va_start(ap, fmt);
	err = emit(ctx, &a, &b, rbuf_str(&ctx->subject), evidence, fmt, ap);
	va_end(ap);
	return err;
}

int rule_emit_raw(struct fab_rule_ctx *ctx, const char *node, const char *port,
		  const char *peer_node, const char *peer_port, const char *subject,
		  const char *evidence, const char *fmt, ...)
{
	struct end a = { .guid = node, .port = port, .node = FAB_NONE };
	struct end b = { .guid = peer_node, .port = peer_port, .node = FAB_NONE };
	uint64_t g;
	va_list ap;
	int err;

	/* names of nodes in the topology match suppressions too */
	if (node && !fab_guid_parse(node, &g))
		a.node = fab_snapshot_find_node(ctx->snap, g);
	if (peer_node && !fab_guid_parse(peer_node, &g))
		b.node = fab_snapshot_find_node(ctx->snap, g);
	va_start(ap, fmt);
	err = emit(ctx, &a, &b, subject, evidence, fmt, ap);
	va_end(ap);
	return err;
}

/* Ethernet and RDMA findings: the system name is the node, an interface or
 * device name the port; no GUIDs. */
static int emit_named(struct fab_rule_ctx *ctx, const char *node, const char *port,
		      const char *peer_node, const char *peer_port, const char *evidence,
		      const char *fmt, va_list ap)
{
	struct end a = { .guid = node, .port = port, .node = FAB_NONE };
	struct end b = { .guid = peer_node, .port = peer_port, .node = FAB_NONE };

	rbuf_reset(&ctx->subject);
	rbuf_printf(&ctx->subject, "%s", node);
	if (port)
		rbuf_printf(&ctx->subject, "/%s", port);
	if (peer_node) {
		rbuf_printf(&ctx->subject, " <-> %s", peer_node);
		if (peer_port)
			rbuf_printf(&ctx->subject, "/%s", peer_port);
	}
	return emit(ctx, &a, &b, rbuf_str(&ctx->subject), evidence, fmt, ap);
}

static const char *sys_name(const struct fab_roce *r, uint32_t sys)
{
	return sys < r->n_systems && r->systems[sys].name ? r->systems[sys].name : "?";
}

int rule_emit_eth(struct fab_rule_ctx *ctx, uint32_t port, uint32_t peer,
		  const char *evidence, const char *fmt, ...)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct fab_eth_port *p = &r->eth_ports[port];
	const struct fab_eth_port *q = peer == FAB_NONE ? NULL : &r->eth_ports[peer];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = emit_named(ctx, sys_name(r, p->system_idx), p->ifname ? p->ifname : "?",
			 q ? sys_name(r, q->system_idx) : NULL,
			 q ? (q->ifname ? q->ifname : "?") : NULL, evidence, fmt, ap);
	va_end(ap);
	return err;
}

int rule_emit_rdma(struct fab_rule_ctx *ctx, uint32_t dev, const char *port,
		   const char *evidence, const char *fmt, ...)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct fab_rdma_device *d = &r->devices[dev];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = emit_named(ctx, sys_name(r, d->system_idx),
			 port ? port : (d->name ? d->name : "?"), NULL, NULL, evidence, fmt, ap);
	va_end(ap);
	return err;
}

/* ---- shared data: counter samples ------------------------------------------ */

bool rule_delta(const struct fab_rule_ctx *ctx, uint32_t port, uint32_t want,
		struct fab_counter_delta *out)
{
	return fab_counter_pairs_delta(ctx->pairs, port, want, out);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the run ------------------------------------------------------------------ */

static bool live_scan(const struct fab_snapshot *s)
{
	return s->source && !strncmp(s->source, "ib:", 3);
}

/* Imported from an ibnetdiscover file (import/topo_import.c): "file:" for
 * check --expect, "ibnetdiscover:" when stored by fabsweep import. */
static bool topology_file(const struct fab_snapshot *s)
{
	return s->source && (!strncmp(s->source, "file:", 5) || !strncmp(s->source, "ibnetdiscover:", 14));
}

static bool have_roce(const struct fab_snapshot *s)
{
	return s && s->roce && s->roce->n_systems;
}

const char *fab_rule_need_text(unsigned need)
{
	switch (need) {
	case FAB_NEED_COUNTERS: return "counter samples";
	case FAB_NEED_DELTAS: return "two samples (scan --interval) or check --baseline";
	case FAB_NEED_SMINFO: return "subnet manager data (a live scan)";
	case FAB_NEED_REFERENCE: return "a reference topology (check --expect)";
	case FAB_NEED_ROCE: return "a RoCE part (collect and merge, or scan --no-ib)";
	case FAB_NEED_ROCE_BASELINE: return "a baseline with RDMA counters (check --baseline)";
	case FAB_NEED_PORT_STATE: return "port states and MTUs (not a topology file)";
	case FAB_NEED_ROCE_ECN: return "ECN settings of RoCE NICs (sysfs <netdev>/ecn, collect on the hosts)";
	case FAB_NEED_ROCE_TRUST: return "the trust state of RoCE NICs (their DCB, collect on the hosts)";
	case FAB_NEED_ROUTES: return "forwarding tables (a live scan without --no-routes)";
	case FAB_NEED_BASELINE: return "an earlier snapshot (check --baseline)";
	case FAB_NEED_PKEYS: return "P_Key tables (a live scan without --no-pkeys)";
	case FAB_NEED_QOS: return "the VL tables (a live scan that saw a QoS policy, or scan --forensic)";
	case FAB_NEED_MODULES: return "modules or cables (collect on RoCE hosts, an ibdiagnet2 run with ibdiagnet2.cables)";
	case FAB_NEED_NIC_COUNTERS: return "NIC counters (collect on RoCE hosts: ethtool)";
	case FAB_NEED_MCAST: return "multicast groups and tables (a live scan without --no-mcast)";
	default: return NULL;
	}
}

/* Some interface's ECN settings are known (its driver has sysfs ecn/). */
static bool have_ecn(const struct fab_snapshot *s)
{
	for (size_t i = 0; have_roce(s) && i < s->roce->n_eth_ports; i++)
		if (s->roce->eth_ports[i].ecn.known)
			return true;
	return false;
}

/* Some NIC's trust state is known (its DCB answered with a table). */
static bool have_trust(const struct fab_snapshot *s)
{
	for (size_t i = 0; have_roce(s) && i < s->roce->n_eth_ports; i++)
		if (fab_eth_port_trust(s->roce, &s->roce->eth_ports[i]) != FAB_TRUST_UNKNOWN)
			return true;
	return false;
}

static const char *why_not(unsigned needs, const struct fab_snapshot *s,
			   const struct fab_snapshot *base, const struct fab_counter_pairs *pairs)
{
	if ((needs & FAB_NEED_ROCE) && !have_roce(s))
		return "the snapshot has no RoCE part (collect and merge, or scan --no-ib)";
	if ((needs & FAB_NEED_ROCE_ECN) && !have_ecn(s))
		return "no interface exposes ECN settings (sysfs class/net/<netdev>/ecn: mlx5 drivers; collect on the hosts)";
	if ((needs & FAB_NEED_ROCE_TRUST) && !have_trust(s))
		return "no NIC's trust state is known (its DCB application table: collect on the hosts, without --no-dcb)";
	if ((needs & FAB_NEED_ROCE_BASELINE) &&
	    (!have_roce(base) || !base->roce->n_counters))
		return "needs a baseline with RDMA counters (check --baseline)";
	if ((needs & FAB_NEED_COUNTERS) && !s->n_samples)
		return "the snapshot has no counter samples";
	if ((needs & FAB_NEED_DELTAS) && !pairs->n_pairs)
		return "needs two counter samples (scan --interval) or a baseline (check --baseline)";
	if ((needs & FAB_NEED_SMINFO) && !s->n_sms && !live_scan(s))
		return "the snapshot has no subnet manager data (not a live scan)";
	if ((needs & FAB_NEED_PORT_STATE) && topology_file(s))
		return "the snapshot is a topology file (no port states or MTUs)";
	if ((needs & FAB_NEED_BASELINE) && !base)
		return "needs an earlier snapshot (check --baseline)";
	if ((needs & FAB_NEED_ROUTES) && !fab_routing_present(s))
		return "the snapshot has no forwarding tables (scan --no-routes, a file, or an older scan)";
	if ((needs & FAB_NEED_PKEYS) && !fab_pkeys_present(s))
		return "the snapshot has no P_Key tables (scan --no-pkeys, a file, or an older scan)";
	if ((needs & FAB_NEED_QOS) && !s->qos)
		return "the scan did not read the VL tables (its SL2VL sample showed no QoS policy; "
		       "scan --forensic reads them)";
	if ((needs & FAB_NEED_MODULES) && !s->ib_modules.n && !(have_roce(s) && s->roce->modules.n))
		return "the snapshot has no modules or cables (collect on RoCE hosts; ibdiagnet --get_cable_info)";
	if ((needs & FAB_NEED_NIC_COUNTERS) && !(have_roce(s) && s->roce->n_nic_counters))
		return "the snapshot has no NIC counters (collect on the RoCE hosts, without --no-ethtool)";
	if ((needs & FAB_NEED_MCAST) && !fab_mcast_present(s))
		return "the snapshot has no multicast groups (scan --no-mcast, a file, an older scan, or "
		       "the SA did not answer)";
	if ((needs & FAB_NEED_MCAST) && !s->mcast->members_read)
		return "the SA did not give the multicast groups' members (is FABSWEEP_SA_KEY its sa_key?)";
	return NULL;
}

/* ---- a context for emitting (the table's rules and site rules) ------------------ */

int rule_ctx_init(struct fab_rule_ctx *ctx, const struct fab_config *cfg,
		  struct fab_snapshot *snap, int64_t now_ms)
{
	size_t n_supp;

	fab_config_suppressions(cfg, &n_supp);
	memset(ctx, 0, sizeof(*ctx));
	rbuf_init(&ctx->subject);
	rbuf_init(&ctx->scratch);
	rbuf_init(&ctx->ev);
	rbuf_init(&ctx->tmp);
	ctx->cfg = cfg;
	ctx->snap = snap;
	ctx->out = snap;
	ctx->events = snap->events;
	ctx->n_events = snap->n_events;
	ctx->now_ms = now_ms ? now_ms : fab_now_ms();
	ctx->supp = calloc(n_supp + 1, sizeof(*ctx->supp));
	return ctx->supp ? 0 : fab_err(-ENOMEM, "out of memory");
}

void rule_ctx_use(struct fab_rule_ctx *ctx, const struct fab_rule *rule, int severity)
{
	size_t n_supp;
	const struct fab_suppression *supp = fab_config_suppressions(ctx->cfg, &n_supp);
	struct fab_suppression *active = (struct fab_suppression *)ctx->supp;

	/* the suppressions that apply to this rule, still in force */
	ctx->n_supp = 0;
	for (size_t k = 0; k < n_supp; k++)
		if (ctx->now_ms < supp[k].until_ms && !fnmatch(supp[k].rule, rule->id, 0))
			active[ctx->n_supp++] = supp[k];
	ctx->rule = rule;
	ctx->severity = (uint8_t)severity;
	ctx->n_emitted = ctx->n_suppressed = 0;
}

bool rule_ctx_nomem(const struct fab_rule_ctx *ctx)
{
	return ctx->subject.nomem || ctx->scratch.nomem || ctx->ev.nomem || ctx->tmp.nomem;
}

void rule_ctx_fini(struct fab_rule_ctx *ctx)
{
	rbuf_free(&ctx->subject);
	rbuf_free(&ctx->scratch);
	rbuf_free(&ctx->ev);
	rbuf_free(&ctx->tmp);
	free((struct fab_suppression *)ctx->supp);
	ctx->supp = NULL;
}

int fab_rules_run(const struct fab_config *cfg, struct fab_snapshot *snap,
		  const struct fab_snapshot *baseline, int64_t now_ms,
		  struct fab_rules_result *out)
{
	return fab_rules_run_ref(cfg, snap, baseline, NULL, now_ms, out);
}

static bool asked(const struct fab_rule *r, const char *const *only, size_t n_only)
{
	if (!only)
		return true;
	for (size_t i = 0; i < n_only; i++)
		if (!strcmp(only[i], r->id))
			return true;
	return false;
}

/* The run: every rule, or those named in only[0..n_only). */
static int run(const struct fab_config *cfg, struct fab_snapshot *snap,
	       const struct fab_snapshot *baseline, const struct fab_snapshot *reference,
	       const char *const *only, size_t n_only, int64_t now_ms,
	       struct fab_rules_result *out)
{
	struct fab_rules_result res = { 0 };
	struct fab_counter_pairs pairs = { 0 };
	struct roce_view roce = { 0 };
	struct fab_rule_ctx ctx;
	size_t n_rules;
	const struct fab_rule *table = fab_rules_table(&n_rules);
	int err = 0;
	double t = mono_s();

	if (baseline && baseline->started_at_ms && snap->started_at_ms &&
	    baseline->started_at_ms > snap->started_at_ms)
		return fab_err(-EINVAL, "the baseline (scan %lld) is newer than the snapshot checked (scan %lld); pass an older --baseline",
			       (long long)baseline->scan_id, (long long)snap->scan_id);
	if ((!snap->guid_order && (err = fab_snapshot_index(snap))) ||
	    (err = fab_snapshot_name_nodes(snap))) /* the names subjects give */
		return fab_err(err, "out of memory indexing the snapshot");
	fab_snapshot_clear_findings(snap);
	snap->checked_at_ms = now_ms ? now_ms : fab_now_ms();

	if ((err = rule_ctx_init(&ctx, cfg, snap, now_ms)) ||
	    (err = fab_counter_pairs_build(snap, baseline, &pairs)) ||
	    (have_roce(snap) && (err = roce_view_init(snap, &roce))))
		goto out;
	res.prepare_seconds = mono_s() - t;
	if (pairs.n_pairs) {
		res.delta_source = baseline ? "baseline" : "samples";
		res.delta_seconds = pairs.secs;
	}

	ctx.base = baseline;
	ctx.ref = reference && reference->guid_order ? reference : NULL; /* indexed */
	ctx.pairs = &pairs;
	ctx.roce = have_roce(snap) ? &roce : NULL;
	res.n_rules = n_rules;
	for (size_t i = 0; i < n_rules; i++) {
		const struct fab_rule *r = &table[i];
		int sev = fab_config_severity(cfg, r);

		if (r->retired) {
			res.status[i] = FAB_RULE_RETIRED;
			continue;
		}
		if (!asked(r, only, n_only)) {
			res.status[i] = FAB_RULE_NOT_REQUESTED;
			continue;
		}
		if (sev < 0) {
			res.status[i] = FAB_RULE_DISABLED;
			continue;
		}
		if ((r->needs & FAB_NEED_REFERENCE) && !ctx.ref) {
			res.status[i] = FAB_RULE_NOT_REQUESTED;
			continue;
		}
		if ((res.why_skipped[i] = why_not(r->needs, snap, baseline, &pairs))) {
			res.status[i] = FAB_RULE_SKIPPED;
			continue;
		}
		rule_ctx_use(&ctx, r, sev);
		t = mono_s();
		if ((err = r->check(&ctx)))
			goto out;
		res.seconds[i] = mono_s() - t;
		if (rule_ctx_nomem(&ctx)) {
			err = fab_err(-ENOMEM, "out of memory running rule '%s'", r->id);
			goto out;
		}
		res.status[i] = FAB_RULE_RAN;
		res.n_findings[i] = (uint32_t)ctx.n_emitted;
		res.by_severity[sev] += ctx.n_emitted;
		res.n_suppressed += ctx.n_suppressed;
	}
out:
	rule_ctx_fini(&ctx);
	fab_counter_pairs_free(&pairs);
	roce_view_fini(&roce);
	if (err) {
		fab_snapshot_clear_findings(snap);
		return err;
	}
	if (out)
		*out = res;
	return 0;
}

int fab_rules_run_ref(const struct fab_config *cfg, struct fab_snapshot *snap,
		      const struct fab_snapshot *baseline,
		      const struct fab_snapshot *reference, int64_t now_ms,
		      struct fab_rules_result *out)
{
	return run(cfg, snap, baseline, reference, NULL, 0, now_ms, out);
}

int fab_rules_run_only(const struct fab_config *cfg, struct fab_snapshot *snap,
		       const struct fab_snapshot *baseline, const char *const *only,
		       size_t n_only, int64_t now_ms, struct fab_rules_result *out)
{
	return run(cfg, snap, baseline, NULL, only ? only : (const char *const[]){ NULL }, n_only,
		   now_ms, out);
}

int fab_rules_run_counters(const struct fab_config *cfg, const struct fab_snapshot *snap,
			   const struct fab_counter_pairs *pairs, struct fab_snapshot *out,
			   int64_t now_ms)
{
	size_t n_rules;
	const struct fab_rule *table = fab_rules_table(&n_rules);
	struct fab_rule_ctx ctx;
	int err;

	if (!snap->guid_order)
		return fab_err(-EINVAL, "the counter rules need an indexed snapshot");
	if ((err = rule_ctx_init(&ctx, cfg, (struct fab_snapshot *)snap, now_ms)))
		goto out;
	ctx.out = out;
	ctx.pairs = pairs;
	for (size_t i = 0; i < n_rules && !err; i++) {
		const struct fab_rule *r = &table[i];
		int sev = fab_config_severity(cfg, r);

		if (r->retired || sev < 0 || r->check != check_counters)
			continue;
		rule_ctx_use(&ctx, r, sev);
		err = r->check(&ctx);
		if (!err && rule_ctx_nomem(&ctx))
			err = fab_err(-ENOMEM, "out of memory running rule '%s'", r->id);
	}
out:
	rule_ctx_fini(&ctx);
	return err;
}

int fab_rules_run_events(const struct fab_config *cfg, const struct fab_snapshot *topo,
			 struct fab_snapshot *sweep, int64_t now_ms)
{
	size_t n_rules;
	const struct fab_rule *table = fab_rules_table(&n_rules);
	struct fab_rule_ctx ctx;
	int err;

	if (!sweep->n_events)
		return 0;
	if (!topo->guid_order)
		return fab_err(-EINVAL, "the event rules need an indexed snapshot");
	if ((err = rule_ctx_init(&ctx, cfg, (struct fab_snapshot *)topo, now_ms)))
		goto out;
	ctx.out = sweep;
	ctx.base = topo;
	ctx.events = sweep->events;
	ctx.n_events = sweep->n_events;
	for (size_t i = 0; i < n_rules && !err; i++) {
		const struct fab_rule *r = &table[i];
		int sev = fab_config_severity(cfg, r);

		if (r->retired || sev < 0 ||
		    (r->check != check_port_down && r->check != check_security_trap))
			continue;
		rule_ctx_use(&ctx, r, sev);
		/* port.down: topo is its own baseline, only the reads count */
		err = r->check == check_port_down ? check_port_down_events(&ctx) : r->check(&ctx);
		if (!err && rule_ctx_nomem(&ctx))
			err = fab_err(-ENOMEM, "out of memory running rule '%s'", r->id);
	}
out:
	rule_ctx_fini(&ctx);
	return err;
}
