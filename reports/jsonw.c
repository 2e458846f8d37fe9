// SPDX-License-Identifier: MIT
/* The JSON writer (jsonw.h): jansson, every string cleaned by text.c first. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "jsonw.h"

json_t *fab_jw_str(struct fab_report_text *t, const char *s)
{
	if (!s)
		return json_null();
	/* cleaned text is valid UTF-8, which jansson insists on */
	return json_string(fab_report_text_clean(t, s));
}

json_t *fab_jw_guid(uint64_t guid)
{
	char g[FAB_GUID_STRLEN];

	fab_guid_format(guid, g);
	return json_string(g);
}

json_t *fab_jw_uint(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *fab_jw_time(int64_t ms)
{
	char when[FAB_TIME_STRLEN];

	if (!ms)
		return json_null();
	fab_time_format(ms, when);
	return json_string(when);
}

json_t *fab_jw_doc(const char *command)
{
	return json_pack("{s:i, s:s, s:s}", "format", FAB_JSON_FORMAT,
			 "generator", "fabsweep " FABSWEEP_VERSION, "command", command);
}

json_t *fab_jw_scan(struct fab_report_text *t, const struct fab_snapshot *snap)
{
	const char *status = fab_scan_status_name(snap->status);

	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "id", (json_int_t)snap->scan_id,
			 "started_at", fab_jw_time(snap->started_at_ms),
			 "finished_at", fab_jw_time(snap->finished_at_ms),
			 "checked_at", fab_jw_time(snap->checked_at_ms),
			 "status", status ? json_string(status) : json_null(),
			 "source", fab_jw_str(t, snap->source),
			 "label", fab_jw_str(t, snap->label),
			 "host", fab_jw_str(t, snap->host));
}

int fab_jw_append(json_t *arr, json_t *v)
{
	return v && !json_array_append_new(arr, v) ? 0 : -ENOMEM;
}

int fab_jw_set(json_t *obj, const char *key, json_t *v)
{
	return v && !json_object_set_new(obj, key, v) ? 0 : -ENOMEM;
}

static json_t *add(json_t *obj, const char *key, json_t *v)
{
	return obj && !fab_jw_set(obj, key, v) ? v : NULL;
}

json_t *fab_jw_add_array(json_t *obj, const char *key)
{
	return add(obj, key, json_array());
}

json_t *fab_jw_add_object(json_t *obj, const char *key)
{
	return add(obj, key, json_object());
}

int fab_jw_write(json_t *doc, FILE *f)
{
	int err = 0;

	if (!doc)
		return fab_err(-ENOMEM, "out of memory while making the JSON document");
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_ENSURE_ASCII | JSON_ESCAPE_SLASH |
				       JSON_REAL_PRECISION(12)) ||
	    fputc('\n', f) == EOF || fflush(f))
		err = fab_err(-EIO, "cannot write the JSON document: %s", strerror(errno));
	json_decref(doc);
	return err;
}

int fab_jw_finish(json_t *doc, int err, struct fab_report_text *t, FILE *f)
{
	fab_report_text_free(t);
	if (err) {
		json_decref(doc);
		doc = NULL;
	}
	return fab_jw_write(doc, f);
}
