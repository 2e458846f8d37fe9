// SPDX-License-Identifier: MIT
/*
 * What `fabsweep watch` prints (cli/cmd_watch.c): a line per full scan,
 * sweep, run started by the SM's notices, topology change and roll-up, the
 * port states that changed, and the notes on the subscription and
 * Alertmanager (docs/watch.md).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store_prune.h"
#include "fabsweep/watch.h"

static const char *state_or(unsigned st)
{
	const char *n = fab_state_name(st);
	return n ? n : "unknown";
}

/* One line per port whose state changed, and per notice. */
static void print_events(const struct fab_watch_event *e)
{
	const struct fab_watch_result *r = e->res;
	const struct fab_snapshot *t = e->topo;

	for (size_t i = 0; i < e->snap->n_events; i++) {
		const struct fab_event *ev = &e->snap->events[i];
		if (ev->kind == FAB_EVENT_NOTICE)
			printf("watch:   notice: trap %u from LID %u: %s\n", ev->trap, ev->lid,
			       ev->detail ? ev->detail : "");
	}
	for (size_t i = 0; t && i < r->n_changes; i++) {
		const struct fab_watch_change *c = &r->changes[i];
		const struct fab_port *p = &t->ports[c->port_idx];
		char nb[FAB_NODE_NAME_CAP];
		printf("watch:   \"%s\" port %u: %s -> %s (%s%s)\n",
		       fab_node_name(t, p->node_idx, NULL, nb, sizeof(nb)),
		       p->port_num, state_or(c->was), state_or(c->state), fab_event_cause_name(c->cause),
		       c->inferred ? "; its link's other end was read down" : "");
	}
}

void fab_cli_watch_event(const struct fab_watch_event *e, void *ctx)
{
	const bool *quiet = ctx;
	const struct fab_snapshot *s = e->snap;
	const struct fab_watch_result *r = e->res;

	if (*quiet && e->step != FAB_WATCH_EXPORT_FAILED)
		return;
	switch (e->step) {
	case FAB_WATCH_SCANNED:
		printf("watch: scan %lld: %s; %zu nodes, %zu links, %zu counter samples, "
		       "%zu findings\n", (long long)s->scan_id, fab_scan_status_name(s->status),
		       s->n_nodes, s->n_links, s->n_samples, s->n_findings);
		break;
	case FAB_WATCH_SWEPT:
		printf("watch: sweep %lu, scan %lld: %zu port%s changed; %lu MADs (%lu sums, "
		       "%lu ports, %lu details, %lu checks%s", e->sweep, (long long)s->scan_id,
		       r->changed, r->changed == 1 ? "" : "s", r->mads, r->sums, r->ports, r->details,
		       r->verified + r->probed, r->probed ? ", down ports among them" : "");
		if (r->links)
			printf(", %lu link states", r->links);
		printf(") in %.0f ms%s\n", r->ms, r->data ? "; data sweep" : "");
		if (r->unrouted)
			printf("watch:   %lu node%s answered only by directed route (the SM has not "
			       "rerouted yet): read again next sweep\n", r->unrouted,
			       r->unrouted == 1 ? "" : "s");
		print_events(e);
		break;
	case FAB_WATCH_REACTED:
		printf("watch: notices, scan %lld: %zu event%s, %zu port state%s changed; %lu MADs "
		       "(%lu link states, %lu ports) in %.0f ms\n", (long long)s->scan_id, s->n_events,
		       s->n_events == 1 ? "" : "s", r->n_changes, r->n_changes == 1 ? "" : "s", r->mads,
		       r->links, r->ports, r->ms);
		print_events(e);
		break;
	case FAB_WATCH_TOPOLOGY:
		printf("watch: topology changed (%s): full scan\n", r->why);
		break;
	case FAB_WATCH_EXPORT_FAILED: /* the file keeps its last state */
		fprintf(stderr, "watch: %s\n", fab_errmsg());
		break;
	case FAB_WATCH_ROLLED:
		printf("watch: rolled up the %lld sweeps of scan %lld (%lld counter rows into "
		       "%lld hourly rows)\n", (long long)e->rollup->sweeps,
		       (long long)e->rollup->chain, (long long)e->rollup->samples,
		       (long long)e->rollup->rows);
		break;
	case FAB_WATCH_NOTE:
		printf("watch: %s%s\n", e->warn ? "warning: " : "", e->note);
		break;
	}
	fflush(stdout);
}
