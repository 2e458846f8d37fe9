// SPDX-License-Identifier: MIT
/*
 * `fabsweep ready --json` (docs/json/ready.schema.json). A new per-host
 * fact goes into host(), a new fact about a probed port into port(), about
 * a pair of hosts into pair(), about a link between them into hop(): the
 * schema allows fields it does not know yet.
 */
#include <errno.h>

#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pkey.h"
#include "fabsweep/probe.h"
#include "fabsweep/report_json.h"
#include "fabsweep/routing.h"
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
	char nb[FAB_NODE_NAME_CAP];

	return json_pack("{s:o, s:o, s:i, s:i, s:b, s:b, s:b, s:s?}",
			 "node_guid", fab_jw_guid(n->guid),
			 "node", fab_jw_str(t, fab_node_name(view, p->node_idx, NULL, nb, sizeof(nb))),
			 "port", p->port_num, "lid", pp->lid,
			 "node_info", !pp->node_err, "port_info", !pp->info_err,
			 "counters", !pp->ctr_err, "state", state);
}

/* A port of the view as {node_guid, node, port}. */
static json_t *port_ref(struct fab_report_text *t, const struct fab_snapshot *view, uint32_t i)
{
	const struct fab_port *p;
	char nb[FAB_NODE_NAME_CAP];

	if (i == FAB_NONE || i >= view->n_ports)
		return json_null();
	p = &view->ports[i];
	return json_pack("{s:o, s:o, s:i}", "node_guid", fab_jw_guid(view->nodes[p->node_idx].guid),
			 "node", fab_jw_str(t, fab_node_name(view, p->node_idx, NULL, nb, sizeof(nb))),
			 "port", p->port_num);
}

/* hop i: the link's two ends, its verdict and why. */
static json_t *hop(struct fab_report_text *t, const struct fab_snapshot *view,
		   const struct fab_ready_hops *h, size_t i)
{
	const struct fab_ready_hop *x = &h->hops[i];

	return json_pack("{s:I, s:o, s:o, s:s, s:o}", "hop", (json_int_t)(i + 1),
			 "from", port_ref(t, view, x->port), "to", port_ref(t, view, x->peer),
			 "verdict", verdict(x->verdict),
			 "text", x->text ? fab_jw_str(t, x->text) : json_null());
}

/* A failing pair: the two hosts and why (as the terminal says it). */
static json_t *pair(struct fab_report_text *t, const struct fab_snapshot *view,
		    const struct fab_ready_hosts *hosts, const struct fab_ready_pair *x)
{
	const char *why = x->hop != FAB_NONE ? "hop" : x->fault ? "route" : "partition";

	return json_pack("{s:o, s:o, s:s, s:s, s:b, s:s?, s:o, s:o}",
			 "a", fab_jw_str(t, fab_ready_hosts_name(hosts, x->a)),
			 "b", fab_jw_str(t, fab_ready_hosts_name(hosts, x->b)),
			 "verdict", verdict(x->verdict), "cause", why, "limited_only", x->limited_only,
			 "fault", x->fault ? fab_route_fault_name(x->fault) : NULL,
			 "hop", x->hop != FAB_NONE ? json_integer((json_int_t)x->hop + 1) : json_null(),
			 "at", port_ref(t, view, x->at));
}

/* "pairs": partitions and routes between the hosts; "hops": the links the
 * routes cross. A part not judged says why in "note". */
static int pairs_and_hops(json_t *doc, struct fab_report_text *t, const struct fab_snapshot *view,
			  const struct fab_ready_hosts *hosts, const struct fab_ready_pairs *p,
			  const struct fab_ready_hops *h)
{
	json_t *po, *ho, *list;
	char k[8];

	if (p) {
		if (!(po = fab_jw_add_object(doc, "pairs")) ||
		    fab_jw_set(po, "judged", json_boolean(p->judged)) ||
		    fab_jw_set(po, "note", p->note ? fab_jw_str(t, p->note) : json_null()) ||
		    fab_jw_set(po, "partition", p->want ? json_string(fab_pkey_format(p->want, k))
							: json_null()) ||
		    fab_jw_set(po, "checked", fab_jw_uint(p->n_pairs)) ||
		    fab_jw_set(po, "failing_partition", fab_jw_uint(p->n_failing)) ||
		    fab_jw_set(po, "failing_route", fab_jw_uint(p->n_route_failing)) ||
		    fab_jw_set(po, "hosts_without_table", fab_jw_uint(p->n_no_table)) ||
		    !(list = fab_jw_add_array(po, "failing")))
			return -ENOMEM;
		for (size_t i = 0; i < p->n_listed; i++)
			if (fab_jw_append(list, pair(t, view, hosts, &p->failing[i])))
				return -ENOMEM;
	}
	if (h) {
		if (!(ho = fab_jw_add_object(doc, "hops")) ||
		    fab_jw_set(ho, "judged", json_boolean(h->judged)) ||
		    fab_jw_set(ho, "note", h->note ? fab_jw_str(t, h->note) : json_null()) ||
		    fab_jw_set(ho, "bad", fab_jw_uint(h->n_bad)) ||
		    !(list = fab_jw_add_array(ho, "links")))
			return -ENOMEM;
		for (size_t i = 0; i < h->n_hops; i++)
			if (fab_jw_append(list, hop(t, view, h, i)))
				return -ENOMEM;
	}
	return 0;
}

int fab_json_ready(FILE *f, const struct fab_ready *r, const struct fab_ready_hosts *hosts,
		   const struct fab_snapshot *view, const struct fab_ready_pairs *pairs,
		   const struct fab_ready_hops *hops)
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
	if (!err)
		err = pairs_and_hops(doc, &t, view, hosts, pairs, hops);
	return fab_jw_finish(doc, err, &t, f);
}

/* ---- ready --local --------------------------------------------------------------- */

/* {system, port} of one end, or null. */
static json_t *end_ref(struct fab_report_text *t, const char *sys, const char *port)
{
	if (!sys)
		return json_null();
	return json_pack("{s:o, s:o}", "system", fab_jw_str(t, sys), "port", fab_jw_str(t, port));
}

static json_t *gbps(double v)
{
	return v > 0 ? json_real(v) : json_null();
}

static json_t *local_port(struct fab_report_text *t, const struct fab_ready_roce_port *p)
{
	const char *st = p->present ? fab_state_name(p->state) : NULL;
	const char *ph = p->present ? fab_phys_state_name(p->phys_state) : NULL;

	return json_pack("{s:o, s:i, s:o, s:b, s:b, s:b, s:s?, s:s?, s:o, s:o, s:s}",
			 "device", fab_jw_str(t, p->device), "port", (int)p->port,
			 "netdev", fab_jw_str(t, p->netdev), "merged", p->merged, "named", p->named,
			 "present", p->present, "state", st, "phys_state", ph,
			 "rate_gbps", gbps(p->present ? p->rate_gbps : 0),
			 "merged_rate_gbps", gbps(p->merged ? p->merged_rate_gbps : 0),
			 "verdict", verdict(p->verdict));
}

static json_t *local_link(struct fab_report_text *t, const struct fab_ready_roce_link *l)
{
	return json_pack("{s:o, s:b, s:o, s:o, s:s}", "ifname", fab_jw_str(t, l->ifname),
			 "lldp", l->lldp, "merged", end_ref(t, l->want_system, l->want_port),
			 "heard", end_ref(t, l->heard_system, l->heard_port), "verdict", verdict(l->verdict));
}

static json_t *local_finding(struct fab_report_text *t, const struct fab_finding *f, bool counts)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:b}", "rule_id", f->rule_id,
			 "severity", fab_severity_name(f->severity), "subject", fab_jw_str(t, f->subject),
			 "message", fab_jw_str(t, f->message), "evidence", fab_jw_str(t, f->evidence),
			 "counts", counts);
}

int fab_json_ready_local(FILE *f, const struct fab_json_ready_local *in)
{
	struct fab_report_text t = { 0 };
	json_t *doc = fab_jw_doc("ready"), *hs = NULL, *h = NULL, *notes = NULL, *loc, *list;
	size_t next = 0;
	int err = 0;

	if (!doc || fab_jw_set(doc, "scan", fab_jw_scan(&t, in->ref)) ||
	    fab_jw_set(doc, "verdict", json_string(verdict(fab_ready_overall(in->r)))) ||
	    !(hs = fab_jw_add_array(doc, "hosts")) || !fab_jw_add_array(doc, "ports") ||
	    !(h = host(&t, in->r, in->hosts, 0, &next)) || fab_jw_append(hs, h) ||
	    !(notes = fab_jw_add_array(h, "notes")) || !(loc = fab_jw_add_object(doc, "local")) ||
	    fab_jw_set(loc, "system", fab_jw_str(&t, in->name)))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < in->n_notes; i++)
		err = fab_jw_append(notes, fab_jw_str(&t, in->notes[i]));
	if (!err && !(list = fab_jw_add_array(loc, "ports")))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < in->n_ports; i++)
		err = fab_jw_append(list, local_port(&t, &in->ports[i]));
	if (!err && !(list = fab_jw_add_array(loc, "links")))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < in->n_links; i++)
		err = fab_jw_append(list, local_link(&t, &in->links[i]));
	if (!err && !(list = fab_jw_add_array(loc, "findings")))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < in->n_findings; i++)
		err = fab_jw_append(list, local_finding(&t, &in->judged->findings[in->findings[i].finding],
							in->findings[i].counts));
	return fab_jw_finish(doc, err, &t, f);
}
