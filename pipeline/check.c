// SPDX-License-Identifier: MIT
/*
 * Check (`fabsweep check`, the second step of a sweep): the built-in rules
 * and the site rules over a stored scan, their findings stored with it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/rules.h"
#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

int fab_pipeline_check_snapshot(struct fab_store *st, struct fab_snapshot *snap,
				const struct fab_pipeline_check_with *with,
				struct fab_pipeline_checked *out)
{
	struct fab_pipeline_checked c = { 0 };
	size_t n_site;

	if (fab_rules_run_ref(with->cfg, snap, with->base, with->reference, 0, &c.rules) ||
	    fab_store_replace_findings(st, snap))
		return -EIO;
	/* site rules see the built-in findings just stored (docs/site-rules.md);
	 * one that fails is reported and records nothing, the others run */
	fab_site_rules_list(with->site, &n_site);
	if (n_site) {
		if (fab_site_rules_run(with->site, with->cfg, st, snap,
				       with->base ? with->base->scan_id : 0, 0, &c.site) ||
		    fab_store_replace_findings(st, snap))
			return -EIO;
		size_t n;
		const struct fab_site_rule *v = fab_site_rules_list(with->site, &n);
		for (size_t i = 0; with->note && i < n; i++)
			if (v[i].status == FAB_SITE_FAILED)
				with->note(v[i].error, with->note_ctx);
		for (int i = 0; i < FAB_SEV__COUNT; i++)
			c.rules.by_severity[i] += c.site.by_severity[i];
		c.rules.n_suppressed += c.site.n_suppressed;
	}
	for (size_t i = 0; i < snap->n_findings; i++)
		c.failed |= snap->findings[i].severity >= with->fail_on;
	*out = c;
	return 0;
}

void fab_pipeline_check_free(struct fab_pipeline_check_result *r)
{
	if (!r)
		return;
	fab_snapshot_free(r->snap);
	fab_snapshot_free(r->base);
	fab_snapshot_free(r->reference);
	fab_nodemap_free(r->names);
	fab_config_free(r->cfg);
	fab_site_rules_free(r->site);
	free(r);
}

/* The counter baseline: an existing scan older than the one checked. */
static int load_baseline(struct fab_store *st, const char *ref, const struct fab_snapshot *snap,
			 struct fab_snapshot **out)
{
	int64_t id;
	int err;

	if ((err = fab_store_baseline_resolve(st, ref, &id)))
		return err;
	if (id == snap->scan_id)
		return fab_err(-EINVAL, "--baseline %s is the scan being checked (%lld); pass an earlier scan",
			       ref, (long long)id);
	if (id > snap->scan_id)
		return fab_err(-EINVAL, "--baseline %s (scan %lld) is newer than the scan checked (%lld); pass an earlier scan",
			       ref, (long long)id, (long long)snap->scan_id);
	return fab_store_load_baseline(st, id, out);
}

int fab_pipeline_check(const struct fab_pipeline_check *job,
		       struct fab_pipeline_check_result **out)
{
	struct fab_pipeline_check_result *r = calloc(1, sizeof(*r));
	struct fab_store *st = NULL;
	int err;

	if (!r)
		return fab_err(-ENOMEM, "out of memory");
	if ((err = fab_pipeline_load_config(job->config, &r->cfg)) ||
	    (err = fab_pipeline_load_site_rules(job->rules_dir, r->cfg, false, job->note,
						job->note_ctx, &r->site, NULL)))
		goto out;
	if ((err = fab_store_open(job->db, FAB_STORE_WRITE | FAB_STORE_EXISTING, &st)) ||
	    (err = fab_store_load_scan(st, job->scan_id, &r->snap)) ||
	    (job->baseline && (err = load_baseline(st, job->baseline, r->snap, &r->base))) ||
	    (job->expect && (err = fab_pipeline_load_reference(st, job->expect, &r->reference))) ||
	    (err = fab_nodemap_open(job->node_name_map, &r->names)))
		goto out;
	struct fab_pipeline_check_with with = {
		.cfg = r->cfg, .site = r->site, .base = r->base, .reference = r->reference,
		.fail_on = job->fail_on, .note = job->note, .note_ctx = job->note_ctx,
	};
	err = fab_pipeline_check_snapshot(st, r->snap, &with, &r->checked);
out:
	fab_store_close(st);
	if (err) {
		fab_pipeline_check_free(r);
		return err;
	}
	*out = r;
	return 0;
}
