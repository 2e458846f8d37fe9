// SPDX-License-Identifier: MIT
/*
 * `fabsweep ready --json` (docs/json/ready.schema.json). A new per-host
 * fact goes into host(), a new fact about a probed port into port(), a new
 * list (per-pair or per-hop verdicts) into fab_json_ready() beside "hosts":
 * the schema allows fields it does not know yet.
 */
#include <errno.h>

#include "fabsweep/names.h"
#include "fabsweep/probe.h"
#include "fabsweep/report_json.h"
#include "fabsweep/snapshot.h"
#include "jsonw.h"

static const char *const verdicts[] = {
	[FAB_READY_OK] = "ready",
	[FAB_READY_NOT_READY] = "not_ready",
	[FAB_READY_UNKNOWN] = "unknown",
};
_Static_assert(ARRAY_SIZE(verdicts) == FAB_READY__COUNT, "verdicts");

static const char *verdict(unsigned v)
{
	return verdicts[v < FAB_READY__COUNT ? v : FAB_READY_UNKNOWN];
}

/* Host i with its problems, which start at *next (problems are in host order). */
static json_t *host(struct fab_report_text *t, const struct fab_ready *r,
		    const struct fab_ready_hosts *hosts, size_t i, size_t *next)
{
	json_t *problems = json_array();

	for (; problems && *next < r->n_problems && r->problems[*next].host == i; ++*next)
		if (fab_jw_append(problems, json_pack("{s:s, s:o}",
						      "verdict", verdict(r->problems[*next].verdict),
						      "text", fab_jw_str(t, r->problems[*next].text)))) {
			json_decref(problems);
			return NULL;
		}
	return json_pack("{s:o, s:s, s:o}", "host", fab_jw_str(t, fab_ready_hosts_name(hosts, i)),
			 "verdict", verdict(r->verdict[i]), "problems", problems);
}

/* A probed port: what it is in the sweep and which of its MADs were answered. */
static json_t *port(struct fab_report_text *t, const struct fab_snapshot *view,
		    const struct fab_probe_port *pp)
{
	const struct fab_port *p = &view->ports[pp->port_idx];
	const struct fab_node *n = &view->nodes[p->node_idx];
	const char *state = pp->info_err ? NULL : fab_state_name(pp->live.state);

	return json_pack("{s:o, s:o, s:i, s:i, s:b, s:b, s:b, s:s?}",
			 "node_guid", fab_jw_guid(n->guid), "node", fab_jw_str(t, n->desc),
			 "port", p->port_num, "lid", pp->lid,
			 "node_info", !pp->node_err, "port_info", !pp->info_err,
			 "counters", !pp->ctr_err, "state", state);
}

int fab_json_ready(FILE *f, const struct fab_ready *r, const struct fab_ready_hosts *hosts,
		   const struct fab_snapshot *view)
{
	struct fab_report_text t = { 0 };
	json_t *doc = fab_jw_doc("ready"), *hs = NULL, *ps = NULL;
	size_t next = 0;
	int err = 0;

	if (!doc || fab_jw_set(doc, "scan", fab_jw_scan(&t, view)) ||
	    fab_jw_set(doc, "verdict", json_string(verdict(fab_ready_overall(r)))) ||
	    !(hs = fab_jw_add_array(doc, "hosts")) || !(ps = fab_jw_add_array(doc, "ports")))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < r->n_hosts; i++)
		err = fab_jw_append(hs, host(&t, r, hosts, i, &next));
	for (size_t i = 0; !err && i < r->n_ports; i++)
		err = fab_jw_append(ps, port(&t, view, &r->ports[i]));
	return fab_jw_finish(doc, err, &t, f);
}
