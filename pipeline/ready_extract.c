// SPDX-License-Identifier: MIT
/*
 * Readiness extracts (`merge --ready-dir DIR`, docs/roce.md "Readiness"):
 * for every collected host of a merged fabric, DIR/<host>.db with what
 * `ready --local` on that host compares it with: the host and the systems
 * at the other end of its links, whole, as the merge had them, and the
 * votes of the rest of the fabric for the majority rules. A prolog reads a
 * local file of 100-150 KB instead of the fabric's database.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"

/* A system name that is safe as a file name: letters, digits, '.', '_',
 * '-', not starting with '.' (names come from LLDP: hostile). */
static bool file_name_ok(const char *s)
{
	if (!s || !*s || *s == '.' || strlen(s) > 200)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '.' || *s == '_' || *s == '-'))
			return false;
	return true;
}

/* Per collected system, the collected systems at the other end of its
 * links (CSR: adj[off[s] .. off[s + 1]), repeats left in). */
static int neighbours(const struct fab_roce *r, uint32_t **off_out, uint32_t **adj_out)
{
	size_t ns = r->n_systems;
	uint32_t *off = calloc(ns + 2, sizeof(*off)), *adj = malloc((2 * r->n_links + 1) * sizeof(*adj));

	if (!off || !adj) {
		free(off);
		free(adj);
		return -ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->n_links; i++) {
			uint32_t a = r->eth_ports[r->links[i].a].system_idx;
			uint32_t b = r->eth_ports[r->links[i].b].system_idx;

			if (a == b || a >= ns || b >= ns || !r->systems[a].collected || !r->systems[b].collected)
				continue;
			if (!pass) {
				off[a + 2]++;
				off[b + 2]++;
			} else {
				adj[off[a + 1]++] = b;
				adj[off[b + 1]++] = a;
			}
		}
		if (!pass)
			for (size_t k = 0; k < ns; k++)
				off[k + 2] += off[k + 1];
	}
	*off_out = off;
	*adj_out = adj;
	return 0;
}

/* The extract of host h: a new snapshot (owned by the caller). */
static int extract(const struct fab_snapshot *merged, const struct fab_roce_sysindex *ix,
		   const struct fab_roce_votes *whole, const uint32_t *off, const uint32_t *adj,
		   uint32_t h, uint32_t *list, struct fab_snapshot **out)
{
	const struct fab_roce *r = merged->roce;
	struct fab_snapshot *part = fab_snapshot_new();
	struct fab_roce_votes *own = NULL;
	size_t n = 0;
	int err;

	if (!part || !fab_snapshot_roce(part)) {
		fab_snapshot_free(part);
		return fab_err(-ENOMEM, "out of memory");
	}
	list[n++] = h;
	for (uint32_t k = off[h]; k < off[h + 1]; k++) {
		bool seen = false;
		for (size_t i = 0; i < n && !seen; i++)
			seen = list[i] == adj[k];
		if (!seen)
			list[n++] = adj[k];
	}
	part->started_at_ms = merged->started_at_ms;
	part->finished_at_ms = merged->finished_at_ms;
	part->status = merged->status;
	part->host = merged->host ? fab_snapshot_strdup(part, merged->host, SIZE_MAX) : NULL;
	part->label = merged->label ? fab_snapshot_strdup(part, merged->label, SIZE_MAX) : NULL;
	part->source = fab_snapshot_printf(part, "extract for %s of scan %lld (%s)", r->systems[h].name,
					   (long long)merged->scan_id, merged->source ? merged->source : "?");
	if ((err = fab_roce_copy_systems(part->roce, r, ix, list, n, NULL)) ||
	    (err = fab_roce_resolve(part->roce)) || (err = fab_rules_roce_votes(part, &own)) ||
	    (err = fab_roce_votes_sub(whole, own, &part->roce->outside))) {
		fab_roce_votes_free(own);
		fab_snapshot_free(part);
		return fab_err(err, "out of memory");
	}
	fab_roce_votes_free(own);
	*out = part;
	return 0;
}

int fab_pipeline_ready_extract(const struct fab_snapshot *merged, const char *dir,
			       fab_note_fn note, void *note_ctx, size_t *n_written)
{
	const struct fab_roce *r = merged->roce;
	struct fab_roce_sysindex *ix = NULL;
	struct fab_pipeline_files *files = NULL;
	struct fab_roce_votes *own = NULL, *whole = NULL;
	uint32_t *off = NULL, *adj = NULL, *list = NULL;
	size_t written = 0, dlen = strlen(dir);
	char *path = NULL;
	int err;

	if (!r || !r->n_systems)
		return fab_err(-EINVAL, "scan %lld has no RoCE part: no readiness extracts", (long long)merged->scan_id);
	/* the whole fabric's votes: its own, and what it carries of more */
	if ((err = fab_rules_roce_votes(merged, &own)) ||
	    (err = fab_roce_votes_add(own, r->outside, &whole)) ||
	    (err = fab_roce_sysindex_build(r, &ix)) || (err = neighbours(r, &off, &adj)) ||
	    !(list = malloc((2 * r->n_links + 2) * sizeof(*list))) || !(path = malloc(dlen + 210))) {
		err = fab_err(err ? err : -ENOMEM, "out of memory");
		goto out;
	}
	if ((err = fab_pipeline_files_new(&files)))
		goto out;
	for (uint32_t h = 0; h < r->n_systems && !err; h++) {
		const struct fab_roce_system *s = &r->systems[h];
		struct fab_snapshot *part = NULL;

		if (!s->collected || s->role != FAB_ROLE_HOST)
			continue;
		if (!file_name_ok(s->name)) {
			char *msg = NULL;
			if (note && asprintf(&msg, "no readiness extract for host '%s': its name is not a safe file name",
					     s->name ? s->name : "") >= 0)
				note(msg, note_ctx);
			free(msg);
			continue;
		}
		snprintf(path, dlen + 210, "%s/%s.db", dir, s->name);
		if (!(err = extract(merged, ix, whole, off, adj, h, list, &part)))
			err = fab_pipeline_files_add(files, path, part);
		fab_snapshot_free(part);
	}
	/* synced once, then each renamed: a reader sees the old file or the new */
	if (!err && !(err = fab_pipeline_files_commit(files)))
		for (uint32_t h = 0; h < r->n_systems; h++)
			written += r->systems[h].collected && r->systems[h].role == FAB_ROLE_HOST &&
				   file_name_ok(r->systems[h].name);
out:
	fab_pipeline_files_free(files);
	fab_roce_votes_free(own);
	fab_roce_votes_free(whole);
	fab_roce_sysindex_free(ix);
	free(off);
	free(adj);
	free(list);
	free(path);
	if (n_written)
		*n_written = written;
	return err;
}
