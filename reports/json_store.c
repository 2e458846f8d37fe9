// SPDX-License-Identifier: MIT
/* `fabsweep scans --json` and `fabsweep db info --json`
 * (docs/json/scans.schema.json, db-info.schema.json). */
#include <errno.h>
#include <stdlib.h>

#include "fabsweep/error.h"
#include "fabsweep/report_json.h"
#include "fabsweep/store.h"
#include "jsonw.h"

struct fab_json_scans {
	json_t *doc, *scans;
	struct fab_report_text t;
};

int fab_json_scans_new(const char *db, struct fab_json_scans **out)
{
	struct fab_json_scans *l = calloc(1, sizeof(*l));

	if (l && (l->doc = fab_jw_doc("scans")) && (l->scans = json_array()) &&
	    !fab_jw_set(l->doc, "database", fab_jw_str(&l->t, db)) &&
	    !fab_jw_set(l->doc, "scans", json_incref(l->scans))) {
		*out = l;
		return 0;
	}
	if (l) {
		json_decref(l->doc);
		json_decref(l->scans);
		fab_report_text_free(&l->t);
	}
	free(l);
	return fab_err(-ENOMEM, "out of memory");
}

int fab_json_scans_row(const struct fab_scan_row *r, void *ctx)
{
	struct fab_json_scans *l = ctx;
	struct fab_report_text *t = &l->t;

	if (fab_jw_append(l->scans,
			  json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:b, s:o, s:I}",
				    "id", (json_int_t)r->scan_id,
				    "started_at", fab_jw_str(t, r->started_at),
				    "finished_at", fab_jw_str(t, r->finished_at),
				    "status", fab_jw_str(t, r->status),
				    "label", fab_jw_str(t, r->label),
				    "host", fab_jw_str(t, r->host),
				    "source", fab_jw_str(t, r->source),
				    "nodes", (json_int_t)r->n_nodes, "ports", (json_int_t)r->n_ports,
				    "links", (json_int_t)r->n_links, "checked", r->checked,
				    /* null: never checked, which is not the same as none */
				    "findings", r->checked ? json_integer(r->n_findings) : json_null(),
				    "scan_errors", (json_int_t)r->n_errors)))
		return fab_err(-ENOMEM, "out of memory");
	return 0;
}

int fab_json_scans_write(struct fab_json_scans *l, FILE *f)
{
	json_t *doc = l->doc;

	json_decref(l->scans);
	fab_report_text_free(&l->t);
	free(l);
	if (!f) {
		json_decref(doc);
		return 0;
	}
	return fab_jw_write(doc, f);
}

int fab_json_db_info(FILE *f, const char *db, const struct fab_store_info *info)
{
	struct fab_report_text t = { 0 };
	json_t *doc = fab_jw_doc("db info");

	if (doc && fab_jw_set(doc, "database",
			      json_pack("{s:o, s:i, s:s, s:I, s:o, s:o, s:I, s:I}",
					"path", fab_jw_str(&t, db),
					"schema_version", info->schema_version,
					"journal_mode", info->journal_mode,
					"scans", (json_int_t)info->n_scans,
					"first_scan", info->n_scans ? json_integer(info->first_scan) : json_null(),
					"last_scan", info->n_scans ? json_integer(info->last_scan) : json_null(),
					"size_bytes", (json_int_t)(info->page_size * info->page_count),
					"free_bytes", (json_int_t)(info->page_size * info->freelist_count))))
		return fab_jw_finish(doc, -ENOMEM, &t, f);
	return fab_jw_finish(doc, doc ? 0 : -ENOMEM, &t, f);
}
