// SPDX-License-Identifier: MIT
/*
 * `fabsweep diff --json` (docs/json/diff.schema.json): the same changes as
 * the XML diff, values through model.c's one change formatter.
 */
#include <errno.h>
#include <stdio.h>

#include "fabsweep/counter.h"
#include "fabsweep/diff.h"
#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/report_json.h"
#include "fabsweep/snapshot.h"
#include "jsonw.h"
#include "model.h"

#define VAL_CAP 320 /* a description is at most FAB_DESC_CAP (257) bytes */

static json_t *end(struct fab_report_text *t, const struct fab_change_end *e,
		   const struct fab_nodemap *names)
{
	char nb[FAB_NODE_NAME_CAP];

	if (!e->guid)
		return json_null();
	return json_pack("{s:o, s:i, s:s?, s:o, s:o}", "guid", fab_jw_guid(e->guid),
			 "port", e->port, "type", fab_node_type_name(e->type),
			 "name", fab_jw_str(t, fab_name_format(names, e->guid, e->desc, e->name_hex,
								nb, sizeof(nb))),
			 "description", fab_jw_str(t, e->desc ? e->desc : ""));
}

/* The fields only some kinds have, added to ch. */
static int kind_fields(struct fab_report_text *t, json_t *ch, const struct fab_change *c)
{
	char w[64], s[64];

	switch (c->kind) {
	case FAB_CHG_LINK_ADDED:
	case FAB_CHG_LINK_REMOVED:
		fab_report_widths_text(c->width, w, sizeof(w));
		fab_report_speeds_text(c->speed, s, sizeof(s));
		return fab_jw_set(ch, "width", json_string(w)) || fab_jw_set(ch, "speed", json_string(s));
	case FAB_CHG_PORT_STATE:
		return fab_jw_set(ch, "old_phys", json_pack("s?", fab_phys_state_name(c->old_phys))) ||
		       fab_jw_set(ch, "new_phys", json_pack("s?", fab_phys_state_name(c->new_phys)));
	case FAB_CHG_SM_MASTER: /* the new master's; none when no SM is master */
		if (!c->sm_guid)
			return 0;
		/* fall through */
	case FAB_CHG_SM_APPEARED:
	case FAB_CHG_SM_VANISHED:
	case FAB_CHG_SM_STATE:
	case FAB_CHG_SM_PRIORITY:
		return fab_jw_set(ch, "sm_guid", fab_jw_guid(c->sm_guid));
	case FAB_CHG_PARTITION:
		snprintf(w, sizeof(w), "0x%04x", c->partition);
		return fab_jw_set(ch, "partition", json_string(w));
	case FAB_CHG_MCAST_TREE:
		snprintf(s, sizeof(s), "0x%04x", c->old_mlid);
		if (fab_jw_set(ch, "old_mlid", json_string(s)) ||
		    fab_jw_set(ch, "switches_changed", fab_jw_uint(c->switches_changed)))
			return -ENOMEM;
		/* fall through */
	case FAB_CHG_MCAST_ADDED:
	case FAB_CHG_MCAST_REMOVED:
		snprintf(s, sizeof(s), "0x%04x", c->mlid);
		return fab_jw_set(ch, "mgid", json_string(fab_mgid_format(c->mgid, w))) ||
		       fab_jw_set(ch, "mlid", json_string(s));
	case FAB_CHG_COUNTER_INCREASE:
	case FAB_CHG_COUNTER_RESET:
		return fab_jw_set(ch, "counter", json_pack("s?", fab_counter_name(c->counter))) ||
		       fab_jw_set(ch, "increase", fab_jw_uint(c->increase)) ||
		       fab_jw_set(ch, "at_least", json_boolean(c->at_least)) ||
		       fab_jw_set(ch, "saturated", json_boolean(c->saturated));
	case FAB_CHG_MODULE: /* a RoCE host's interface: no GUID */
		if (!c->subject.system)
			return 0;
		return fab_jw_set(ch, "eth_port", json_pack("{s:o, s:o}", "system",
							    fab_jw_str(t, c->subject.system), "ifname",
							    fab_jw_str(t, c->subject.ifname ? c->subject.ifname : "")));
	default:
		return 0;
	}
}

static json_t *change(struct fab_report_text *t, const struct fab_change *c,
		      const struct fab_nodemap *names)
{
	char o[VAL_CAP], n[VAL_CAP];

	fab_report_change_text(c, o, n, VAL_CAP);
	json_t *ch = json_pack("{s:s, s:o, s:o, s:o, s:o}", "kind", fab_change_kind_name(c->kind),
			       "old", o[0] ? fab_jw_str(t, o) : json_null(),
			       "new", n[0] ? fab_jw_str(t, n) : json_null(),
			       "subject", end(t, &c->subject, names), "peer", end(t, &c->peer, names));
	if (ch && kind_fields(t, ch, c)) {
		json_decref(ch);
		return NULL;
	}
	return ch;
}

int fab_json_diff(FILE *f, const struct fab_diff *d, const struct fab_snapshot *old_snap,
		  const struct fab_snapshot *new_snap, const struct fab_nodemap *names)
{
	struct fab_report_text t = { 0 };
	json_t *doc = fab_jw_doc("diff"), *counts = NULL, *changes = NULL;
	int err = 0;

	if (!doc || fab_jw_set(doc, "old", fab_jw_scan(&t, old_snap)) ||
	    fab_jw_set(doc, "new", fab_jw_scan(&t, new_snap)) ||
	    fab_jw_set(doc, "n_changes", fab_jw_uint(d->n)) ||
	    !(counts = fab_jw_add_object(doc, "counts")) ||
	    !(changes = fab_jw_add_array(doc, "changes")))
		err = -ENOMEM;
	for (unsigned k = 0; !err && k < FAB_CHG__COUNT; k++)
		err = fab_jw_set(counts, fab_change_kind_name(k), fab_jw_uint(d->count[k]));
	for (size_t i = 0; !err && i < d->n; i++)
		err = fab_jw_append(changes, change(&t, &d->changes[i], names));
	return fab_jw_finish(doc, err, &t, f);
}
