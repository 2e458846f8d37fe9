// SPDX-License-Identifier: MIT
/*
 * Running site rules (docs/site-rules.md): each valid rule's query runs in
 * the sandbox (store/site_query.c) over the stored scan; each row becomes a
 * finding through the engine's emit path, so the config's severity
 * overrides, disabling and suppressions apply by id as for built-in rules.
 * A rule that fails records nothing; the others still run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store_site.h"
#include "rules_priv.h"

#define FIELD_CAP 1024 /* longest text kept of one column, escaped */

struct row_ctx {
	struct fab_rule_ctx *ctx;
	const struct fab_site_rule *r;
	size_t rows;
	bool truncated;
	bool engine_failed; /* emitting failed (out of memory), not the rule */
	char f[FAB_SITE_COL__COUNT][FIELD_CAP];
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A column as shown and stored: valid UTF-8 without control bytes (a query
 * can build any text), NULL for NULL and for the empty string. */
static const char *field(struct row_ctx *rc, const char *const *cols, unsigned i)
{
	const char *v = cols[i];

	if (!v || !*v)
		return NULL;
	fab_text_sanitize((const uint8_t *)v, strlen(v), rc->f[i], FIELD_CAP);
	return rc->f[i];
}

/* Node name (description, else GUID) when text is a GUID of the snapshot. */
static bool node_name(struct rbuf *b, const struct fab_snapshot *s, const char *text)
{
	uint64_t g;
	uint32_t idx;

	if (!text || fab_guid_parse(text, &g) || (idx = fab_snapshot_find_node(s, g)) == FAB_NONE)
		return false;
	rule_name(b, s, idx);
	return true;
}

/* The subject when the query gave none: like a built-in rule's
 * ("leaf03/5 <-> spine01/3"), with node names when node is a GUID of the
 * scan, else the text as returned. */
static const char *derive_subject(struct fab_rule_ctx *ctx, const char *node, const char *port,
				  const char *peer, const char *peer_port)
{
	struct rbuf *b = &ctx->tmp;

	rbuf_reset(b);
	if (!node)
		return NULL;
	if (!node_name(b, ctx->snap, node))
		rbuf_printf(b, "%s", node);
	if (port)
		rbuf_printf(b, "/%s", port);
	if (peer) {
		rbuf_printf(b, " <-> ");
		if (!node_name(b, ctx->snap, peer))
			rbuf_printf(b, "%s", peer);
		if (peer_port)
			rbuf_printf(b, "/%s", peer_port);
	}
	return rbuf_str(b);
}

static int on_row(void *p, const char *const *cols)
{
	struct row_ctx *rc = p;
	struct fab_rule_ctx *ctx = rc->ctx;

	if (rc->rows == FAB_SITE_ROWS_MAX) {
		rc->truncated = true;
		return 1; /* stop: not an error */
	}
	rc->rows++;
	const char *node = field(rc, cols, FAB_SITE_COL_NODE);
	const char *port = field(rc, cols, FAB_SITE_COL_PORT);
	const char *peer = field(rc, cols, FAB_SITE_COL_PEER_NODE);
	const char *peer_port = field(rc, cols, FAB_SITE_COL_PEER_PORT);
	const char *subject = field(rc, cols, FAB_SITE_COL_SUBJECT);
	const char *msg = field(rc, cols, FAB_SITE_COL_MESSAGE);

	if (!subject)
		subject = derive_subject(ctx, node, port, peer, peer_port);
	int err = rule_emit_raw(ctx, node, port, peer, peer_port, subject, NULL, "%s",
				msg ? msg : rc->r->title);
	rc->engine_failed |= err != 0;
	return err;
}

/* Runs one rule; a failure of the rule (not of the engine) leaves no
 * finding of it and is recorded in r. */
static int run_one(struct fab_rule_ctx *ctx, struct fab_site_db *db, struct fab_site_rule *r,
		   int64_t scan_id, int64_t baseline_id, int sev)
{
	struct fab_rule rule = {
		.id = r->id,
		.severity = r->severity,
		.title = r->title,
		.rationale = r->rationale ? r->rationale : "",
		.remediation = r->remediation,
	};
	struct row_ctx *rc = calloc(1, sizeof(*rc));
	size_t before = ctx->out->n_findings;
	double t = mono_s();
	int err;

	if (!rc)
		return fab_err(-ENOMEM, "out of memory");
	rc->ctx = ctx;
	rc->r = r;
	rule_ctx_use(ctx, &rule, sev);
	err = fab_site_db_query(db, r->path, r->sql, r->time_limit, scan_id, baseline_id,
				on_row, rc);
	if (err == 1)
		err = 0; /* stopped at FAB_SITE_ROWS_MAX */
	if (!err && rc->truncated) {
		ctx->severity = FAB_SEV_INFO;
		err = rule_emit_raw(ctx, NULL, NULL, NULL, NULL, r->id, NULL,
				    "stopped after %d findings: the query returns more rows; narrow it (%s)",
				    FAB_SITE_ROWS_MAX, r->path);
		rc->engine_failed |= err != 0;
	}
	bool fatal = rc->engine_failed || rule_ctx_nomem(ctx);
	r->seconds = mono_s() - t;
	r->truncated = rc->truncated;
	free(rc);
	if (fatal)
		return fab_err(-ENOMEM, "out of memory running site rule '%s'", r->id);
	free((char *)r->error);
	r->error = NULL;
	r->err = err;
	if (err) {
		ctx->out->n_findings = before; /* record nothing of a failed rule */
		r->status = FAB_SITE_FAILED;
		r->n_findings = 0;
		return (r->error = strdup(fab_errmsg())) ? 0 : fab_err(-ENOMEM, "out of memory");
	}
	r->status = FAB_SITE_RAN;
	r->n_findings = (uint32_t)ctx->n_emitted;
	return 0;
}

int fab_site_rules_run(struct fab_site_rules *rs, const struct fab_config *cfg,
		       struct fab_store *st, struct fab_snapshot *snap,
		       int64_t baseline_id, int64_t now_ms, struct fab_site_result *out)
{
	struct fab_site_result res = { 0 };
	struct fab_rule_ctx ctx;
	struct fab_site_db *db = NULL;
	size_t n;
	struct fab_site_rule *v = fab_site_rules_list(rs, &n);
	size_t first = snap->n_findings;
	int err;

	if (!snap->guid_order && (err = fab_snapshot_index(snap)))
		return fab_err(err, "out of memory indexing the snapshot");
	if ((err = rule_ctx_init(&ctx, cfg, snap, now_ms)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct fab_site_rule *r = &v[i];
		int sev;

		if (r->status == FAB_SITE_BROKEN) {
			res.n_broken++;
			continue;
		}
		if ((sev = fab_config_site_severity(cfg, r->id, r->severity, NULL)) < 0) {
			r->status = FAB_SITE_DISABLED;
			res.n_disabled++;
			continue;
		}
		if (!db && (err = fab_store_site_open(st, &db)))
			goto out;
		size_t at = snap->n_findings;
		if ((err = run_one(&ctx, db, r, snap->scan_id, baseline_id, sev)))
			goto out;
		if (r->status == FAB_SITE_FAILED) {
			res.n_failed++;
			continue;
		}
		res.n_ran++;
		res.n_suppressed += ctx.n_suppressed;
		for (size_t k = at; k < snap->n_findings; k++)
			res.by_severity[snap->findings[k].severity]++;
	}
out:
	fab_site_db_close(db);
	rule_ctx_fini(&ctx);
	if (err) {
		snap->n_findings = first;
		return err;
	}
	if (out)
		*out = res;
	return 0;
}

int fab_site_rules_validate(struct fab_site_rules *rs)
{
	struct fab_site_db *db = NULL;
	size_t n, bad = 0;
	struct fab_site_rule *v = fab_site_rules_list(rs, &n);
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct fab_site_rule *r = &v[i];

		if (r->status == FAB_SITE_BROKEN) {
			bad++;
			continue;
		}
		if (!db && (err = fab_store_site_open(NULL, &db)))
			break;
		if (!(r->err = fab_site_db_query(db, r->path, r->sql, r->time_limit, 0, 0, NULL, NULL)))
			continue;
		bad++;
		r->status = FAB_SITE_BROKEN;
		free((char *)r->error);
		if (!(r->error = strdup(fab_errmsg())))
			err = fab_err(-ENOMEM, "out of memory");
	}
	fab_site_db_close(db);
	return err ? err : (int)bad;
}
