// SPDX-License-Identifier: MIT
/*
 * Ready (`fabsweep ready`): is the fabric ready for a job on these hosts?
 * Matches the hosts to channel adapters of the latest sweep, probes live
 * their ports and the switch ports they attach to (scanner/probe.c), and
 * judges them with the sweep's findings (scanner/ready.c).
 * docs/workflows.md, "Pre-job readiness".
 */
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/hostlist.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/probe.h"
#include "fabsweep/routing.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_view.h"

struct want_ctx {
	const struct fab_ready_hosts *hosts;
	const struct fab_nodemap *map;
};

static bool want_ca(uint64_t guid, const char *desc, void *ctx)
{
	const struct want_ctx *w = ctx;

	return fab_ready_hosts_want(w->hosts, w->map, guid, desc);
}

int fab_pipeline_ready_view(struct fab_store *st, int64_t scan_id,
			    const struct fab_ready_hosts *hosts, const struct fab_nodemap *map,
			    struct fab_snapshot **view, unsigned *reads)
{
	struct want_ctx wc = { hosts, map };
	struct fab_store_paths paths = { 0 };
	struct fab_store_port_key *keys = NULL;
	struct fab_snapshot *v = NULL;
	struct fab_ready *r = NULL;
	struct fab_ready_hops h = { 0 };
	uint64_t *sw = NULL, *more = NULL, *cas = NULL;
	size_t n_more = 0;
	int err;

	for (unsigned round = 0;; round++) {
		if ((err = fab_store_load_paths_view(st, scan_id, want_ca, &wc, &paths, &v)))
			goto out;
		++*reads;
		if ((err = fab_ready_plan(v, hosts, map, &r)) ||
		    (err = fab_ready_hops_missing(r, v, paths.switches, paths.n_switches, &more, &n_more)))
			goto nomem;
		if (!n_more || round > FAB_ROUTE_MAX_HOPS)
			break;
		if (!cas) { /* the CAs picked, by GUID from now on */
			if (!(cas = malloc((v->n_nodes + 1) * sizeof(*cas))))
				goto nomem;
			for (uint32_t i = 0; i < v->n_nodes; i++)
				if (r->ca_of[i])
					cas[paths.n_cas++] = v->nodes[i].guid;
			paths.cas = cas;
		}
		uint64_t *t = realloc(sw, (paths.n_switches + n_more) * sizeof(*t));
		if (!t)
			goto nomem;
		memcpy(t + paths.n_switches, more, n_more * sizeof(*t));
		sw = t;
		paths.switches = sw;
		paths.n_switches += n_more;
		free(more);
		more = NULL;
		fab_ready_free(r);
		r = NULL;
		fab_snapshot_free(v);
		v = NULL;
	}
	/* the ports to probe: the hosts' links and both ends of every hop */
	if ((err = fab_ready_hops_plan(r, v, &h)) ||
	    !(keys = calloc(r->n_ports + 1, sizeof(*keys))))
		goto nomem;
	for (size_t i = 0; i < r->n_ports; i++) {
		const struct fab_port *p = &v->ports[r->ports[i].port_idx];
		keys[i] = (struct fab_store_port_key){ v->nodes[p->node_idx].guid, p->port_num };
	}
	paths.judge = true;
	paths.sampled = keys;
	paths.n_sampled = r->n_ports;
	fab_snapshot_free(v);
	v = NULL;
	err = fab_store_load_paths_view(st, scan_id, want_ca, &wc, &paths, view);
	++*reads;
	goto out;
nomem:
	err = fab_err(err ? err : -ENOMEM, "out of memory");
out:
	fab_ready_hops_free(&h);
	fab_ready_free(r);
	fab_snapshot_free(v);
	free(keys);
	free(more);
	free(sw);
	free(cas);
	return err;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time (user and system), which a busy machine disturbs less than the
 * wall time: of the process, or of this thread only (the MAD port opens
 * in another while the sweep loads). */
static double cpu_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void fab_pipeline_ready_free(struct fab_pipeline_ready_result *r)
{
	if (!r)
		return;
	fab_ready_pairs_free(&r->pairs);
	fab_ready_hops_free(&r->hops);
	fab_ready_free(r->r);
	fab_snapshot_free(r->view);
	fab_nodemap_free(r->map);
	fab_ready_hosts_free(r->hosts);
	free(r->names);
	free(r);
}

int fab_pipeline_ready(const struct fab_pipeline_ready *job,
		       struct fab_pipeline_ready_result **out)
{
	struct fab_pipeline_ready_result *res = calloc(1, sizeof(*res));
	size_t n_hosts = fab_hostlist_count(job->hosts);
	struct fab_store *st = NULL;
	struct fab_probe_pending *pending = NULL;
	struct fab_probe *probe = NULL;
	struct fab_config *cfg = NULL;
	struct fab_counter_limits limits;
	double t0 = mono_ms(), c0 = cpu_ms(CLOCK_PROCESS_CPUTIME_ID), c1;
	int err;

	if (!res || !(res->names = calloc(n_hosts ? n_hosts : 1, sizeof(*res->names)))) {
		free(res);
		return fab_err(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n_hosts; i++)
		res->names[i] = fab_hostlist_get(job->hosts, i);
	if (fab_ready_hosts_new(res->names, n_hosts, &res->hosts)) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	if ((err = fab_nodemap_open(job->node_name_map, &res->map)) ||
	    (err = fab_pipeline_load_config(job->config, &cfg)))
		goto out;
	fab_rules_increase_limits(cfg, &limits); /* what counts as a counter rise */
	if (access(job->db, F_OK) != 0) {
		err = fab_err(-ENOENT, "database '%s' does not exist: readiness needs a sweep first ('fabsweep sweep' or 'scan'; or pass --db)",
			      job->db);
		goto out;
	}
	/* the local MAD port opens meanwhile */
	if ((err = fab_probe_open_begin(&job->probe, &pending)))
		goto out;
	if ((err = fab_store_open(job->db, FAB_STORE_READONLY, &st)))
		goto out;
	res->open_ms = mono_ms() - t0;
	c1 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
	if ((err = fab_pipeline_ready_view(st, job->scan_id, res->hosts, res->map, &res->view,
					   &res->load_rounds)))
		goto out;
	fab_store_close(st);
	st = NULL;
	res->load_ms = mono_ms() - t0 - res->open_ms;
	res->load_cpu_ms = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - c1;
	if ((err = fab_ready_plan(res->view, res->hosts, res->map, &res->r)) ||
	    (err = fab_ready_hops_plan(res->r, res->view, &res->hops))) {
		fab_err(err, "out of memory");
		goto out;
	}
	err = fab_probe_open_end(pending, &probe);
	pending = NULL;
	if (err || (res->r->n_ports &&
		    (err = fab_probe_ports(probe, res->view, res->r->ports, res->r->n_ports, &res->ps))))
		goto out;
	if ((err = fab_ready_evaluate(res->r, res->view, res->hosts, res->map, &limits, job->fail_on)) ||
	    (err = fab_ready_pairs(res->r, res->view, job->pkey, &res->pairs)) ||
	    (err = fab_ready_hops_judge(&res->hops, res->r, res->view, res->map, &limits, &res->pairs))) {
		fab_err(err, "out of memory");
		goto out;
	}
	res->total_ms = mono_ms() - t0;
	res->cpu_ms = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
out:
	if (pending && !fab_probe_open_end(pending, &probe))
		fab_probe_close(probe); /* opened while something else failed */
	else if (!pending)
		fab_probe_close(probe);
	fab_store_close(st);
	fab_config_free(cfg);
	if (err) {
		fab_pipeline_ready_free(res);
		return err;
	}
	*out = res;
	return 0;
}
