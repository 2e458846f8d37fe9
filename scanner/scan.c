// SPDX-License-Identifier: MIT
/*
 * fab_scan_ib: the order of a scan.
 *
 *   1. pick the CA port (--ca/--port, else the first with an active link);
 *   2. SMInfo of the SM our port points at: the master's ActCount "before";
 *   3. topology: by default our own engine from the local node (native
 *      discovery, --smps in flight); with --discovery ibnetdisc,
 *      libibnetdisc (max_smps = --smps), copied into a working topology,
 *      then its fabric is freed; tried again when it found no node, then
 *      our own engine;
 *   4. repair: ask again, with retries, for what discovery missed; when
 *      libibnetdisc found devices that share a GUID (it merges them),
 *      discovery and repair once more with our own engine;
 *   5. snapshot nodes/ports/links, holes and SMP failures recorded;
 *   5b. forwarding tables: SwitchInfo and LinearForwardingTable of every
 *      switch, directed route along discovery's paths (unless --no-routes);
 *   5c. partitions: the P_Key tables of cabled CA and switch ports and the
 *      switch ports' enforcement bits (unless --no-pkeys);
 *   5d. multicast: the groups from the SA at the master's LID, then the
 *      switches' multicast forwarding tables for their MLIDs (unless
 *      --no-mcast);
 *   6. SMInfo of every IsSM port;
 *   7. port counters (ClassPortInfo, PortCounters, PortCountersExtended);
 *   8. SMInfo of the master once more: ActCount "after".
 *
 * Steps 2, 4, 5b, 5c, 5d, 6, 7 and 8 share one umad fd and the MAD window engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "scanner/scan_priv.h"

void fab_scan_opts_init(struct fab_scan_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->smps = FAB_SCAN_DEFAULT_SMPS;
	o->window = FAB_SCAN_DEFAULT_WINDOW;
	o->timeout_ms = FAB_SCAN_DEFAULT_TIMEOUT_MS;
	o->retries = FAB_SCAN_DEFAULT_RETRIES;
	o->sl2vl_max = FAB_SCAN_DEFAULT_SL2VL_MAX;
	o->native_discovery = true; /* why: docs/scan.md, "Topology" */
}

void fab_scan_progress(const struct fab_scan_opts *o, const char *phase,
		       unsigned long done, unsigned long total)
{
	if (o->progress)
		o->progress(phase, done, total, o->progress_ctx);
}

/* libibnetdisc reports lost SMPs on stderr, one line each; we record them
 * as holes instead, so its chatter is muted (FABSWEEP_IBND_DEBUG=1 keeps it). */
static int mute_stderr(void)
{
	int saved, null;

	if (getenv("FABSWEEP_IBND_DEBUG"))
		return -1;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		if (null >= 0)
			close(null);
		return -1;
	}
	close(null);
	return saved;
}

static void unmute_stderr(int saved)
{
	if (saved < 0)
		return;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/*
 * Our MAD port: one fd, agents for SMI, directed-route SMI and PMA, and
 * three windows over it: repair SMPs (--smps), PMA queries (--window) and
 * SMInfo, one at a time (there are few, and an SM answers from user space:
 * the simulator routes such forwarded answers only to the requester's
 * latest transaction). It is
 * opened after libibnetdisc has closed its own: the simulator's umad shim
 * routes answers by class to the fd registered last.
 */
static int open_port(const char *ca, int port, const struct fab_scan_opts *o,
		     struct fab_umad **um, struct fab_madwin **smp_win,
		     struct fab_madwin **gmp_win, struct fab_madwin **sm_win)
{
	struct fab_mad_transport tr;
	int rc = fab_umad_open(ca, port, um);

	if (rc)
		return fab_err(rc, "cannot open MAD port %s/%d: %s (are you root, "
			       "and is ib_umad loaded?)", ca, port, strerror(-rc));
	fab_umad_transport(*um, &tr);
	rc = fab_madwin_new(&tr, o->smps, o->timeout_ms, o->retries, smp_win);
	if (!rc)
		rc = fab_madwin_new(&tr, o->window, o->timeout_ms, o->retries, gmp_win);
	if (!rc)
		rc = fab_madwin_new(&tr, 1, o->timeout_ms, o->retries, sm_win);
	if (rc)
		return fab_err(rc, "out of memory");
	return 0;
}

static void close_port(struct fab_umad **um, struct fab_madwin **smp_win,
		       struct fab_madwin **gmp_win, struct fab_madwin **sm_win)
{
	fab_madwin_free(*smp_win);
	fab_madwin_free(*gmp_win);
	fab_madwin_free(*sm_win);
	fab_umad_close(*um);
	*smp_win = *gmp_win = *sm_win = NULL;
	*um = NULL;
}

/* CPU time of the whole process (every thread), ms. */
static int64_t cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

/* FABSWEEP_SCAN_DEBUG=1: one stderr line per phase with its time, the
 * process's CPU time in it and the MADs of its window sent during it (a
 * window serves several phases: discovery, repair and routes share the SMP
 * window, so its totals are remembered per window between phases). */
static void phase_done(const char *phase, int64_t *t0, const struct fab_madwin *mw)
{
	static int on = -1;
	static int64_t cpu0;
	static struct { const struct fab_madwin *mw; struct fab_madwin_stats st; } seen[4];
	int64_t t = fab_now_ms();

	if (on < 0)
		on = getenv("FABSWEEP_SCAN_DEBUG") != NULL;
	if (on) {
		int64_t cpu = cpu_ms();

		if (!mw && strcmp(phase, "start") == 0) /* a new scan: new windows */
			memset(seen, 0, sizeof(seen));
		fprintf(stderr, "scan: %-10s %6lld ms (at %lld) cpu %5lld ms", phase,
			(long long)(t - *t0), (long long)t, (long long)(cpu - cpu0));
		cpu0 = cpu;
		if (mw) {
			const struct fab_madwin_stats *st = fab_madwin_stats(mw);
			struct fab_madwin_stats before = { 0 };
			size_t i = 0;

			while (i < 4 && seen[i].mw && seen[i].mw != mw)
				i++;
			if (i < 4) {
				if (seen[i].mw)
					before = seen[i].st;
				seen[i].mw = mw;
				seen[i].st = *st;
			}
			fprintf(stderr, "  sent %lu resent %lu answered %lu failed %lu stale %lu",
				st->sent - before.sent, st->resent - before.resent,
				st->answered - before.answered, st->failed - before.failed,
				st->stale - before.stale);
		}
		fputc('\n', stderr);
	}
	*t0 = t;
}

void fab_scan_debug_phase(const char *phase, int64_t *t0)
{
	phase_done(phase, t0, NULL);
}

static void finish(struct fab_snapshot *s)
{
	fab_topology_assign_roles(s);
	s->status = s->n_errors ? FAB_SCAN_PARTIAL : FAB_SCAN_COMPLETE;
}

static int scan_cache(const struct fab_scan_opts *o, struct fab_snapshot *s)
{
	struct wt w = { 0 };
	ibnd_fabric_t *f;
	int rc;

	f = ibnd_load_fabric(o->load_cache, 0);
	if (!f)
		return fab_err(-EINVAL, "cannot load '%s' as an ibnetdiscover cache "
			       "(write one with ibnetdiscover --cache)", o->load_cache);
	rc = wt_from_ibnd(&w, f, false);
	ibnd_destroy_fabric(f);
	if (!rc)
		rc = wt_to_snapshot(&w, s);
	wt_free(&w);
	if (rc)
		return fab_err(rc, "out of memory while copying '%s'", o->load_cache);
	s->source = fab_snapshot_printf(s, "cache:%s", o->load_cache);
	fab_scan_progress(o, "topology", s->n_nodes, s->n_nodes);
	finish(s);
	return 0;
}

static const struct fab_sm *find_master(const struct fab_snapshot *s)
{
	for (size_t i = 0; i < s->n_sms; i++)
		if (!s->sms[i].failed && s->sms[i].state == 3)
			return &s->sms[i];
	return NULL;
}

static const struct fab_sm *find_sm(const struct fab_snapshot *s, uint64_t port_guid)
{
	for (size_t i = 0; i < s->n_sms; i++)
		if (s->sms[i].port_guid == port_guid)
			return &s->sms[i];
	return NULL;
}

int fab_scan_ib(const struct fab_scan_opts *opts, struct fab_snapshot *s)
{
	struct fab_scan_opts o = *opts;
	struct fab_umad_port up = { 0 };
	struct fab_umad *um = NULL;
	struct fab_madwin *smp_win = NULL, *gmp_win = NULL, *sm_win = NULL;
	struct wt w = { 0 };
	struct fab_sm before = { 0 };
	bool have_before = false;
	int rc;
	/* The key of devices not known yet (and libibnetdisc's only key). */
	uint64_t mkey_fallback = fab_mkeys_lookup(o.mkeys, 0, 0);

	if (o.smps <= 0)
		o.smps = FAB_SCAN_DEFAULT_SMPS;
	if (o.window <= 0)
		o.window = FAB_SCAN_DEFAULT_WINDOW;
	if (o.timeout_ms <= 0)
		o.timeout_ms = FAB_SCAN_DEFAULT_TIMEOUT_MS;
	if (o.retries < 0)
		o.retries = FAB_SCAN_DEFAULT_RETRIES;
	/* Under ibsim's umad2sim shim, too many MADs in flight can deadlock
	 * client and simulator (docs/scan.md): a write that never returns is
	 * beyond any deadline of ours. Our windows are capped by the
	 * transport; libibnetdisc's max_smps here. */
	int cap = fab_umad_max_in_flight();
	if (cap > 0 && o.smps > cap)
		o.smps = cap;
	if (!s->started_at_ms)
		s->started_at_ms = fab_now_ms();
	fab_err_clear();

	if (o.load_cache) {
		rc = scan_cache(&o, s);
		goto done;
	}
	int64_t t0 = fab_now_ms();

	/* like infiniband-diags: the first active port; a port whose link is
	 * up without an SM yet will do */
	rc = fab_umad_pick_port(o.ca, o.port, true, &up);
	if (rc)
		return rc;
	s->source = fab_snapshot_printf(s, "ib:%s/%d", up.ca, up.port);

	/* A debugging override of the engine for commands without the
	 * --discovery option (sweep). */
	const char *env = getenv("FABSWEEP_DISCOVERY");
	if (env && (!strcmp(env, "native") || !strcmp(env, "ibnetdisc")))
		o.native_discovery = !strcmp(env, "native");

	/* The master's ActCount before discovery starts. Our port stays open
	 * for native discovery; libibnetdisc wants it closed meanwhile. */
	if ((up.state == FAB_STATE_ACTIVE && up.sm_lid) || o.native_discovery) {
		rc = open_port(up.ca, up.port, &o, &um, &smp_win, &gmp_win, &sm_win);
		if (rc)
			goto out;
		if (up.state == FAB_STATE_ACTIVE && up.sm_lid &&
		    fab_scan_sminfo_one(sm_win, (uint16_t)up.sm_lid, mkey_fallback, &before) == 0 &&
		    before.state == 3)
			have_before = true;
		if (!o.native_discovery)
			close_port(&um, &smp_win, &gmp_win, &sm_win);
	}

	/* Topology. */
	phase_done("start", &t0, NULL);
	fab_scan_progress(&o, "topology", 0, 0);
	struct ibnd_config cfg = { 0 };
	cfg.max_smps = (unsigned)o.smps;
	cfg.timeout_ms = (unsigned)o.timeout_ms;
	cfg.retries = (unsigned)o.retries;
	cfg.flags = IBND_CONFIG_MLX_EPI;
	cfg.mkey = mkey_fallback; /* every SMP libibnetdisc sends */
	if (o.native_discovery) {
		/* The same engine as the repair pass, rooted at our node. */
		if ((rc = wt_discover(&w, smp_win, &o)) == -EIO) {
			rc = fab_err(-EIO, "discovery from %s/%d failed: not even the "
				     "local node answered (is the port's link up?)", up.ca, up.port);
			goto out;
		}
		phase_done("discover", &t0, smp_win);
	} else {
		/* libibnetdisc sends the local node's first SMPs once and leaves
		 * retries to the kernel (the simulator has none): when they are
		 * lost it finds no node at all, and the repair pass has nothing
		 * to start from. Try it again from scratch, as often as a MAD is
		 * retried; then our own engine, which retries the local node. */
		ibnd_fabric_t *f = NULL;
		for (int t = 0; t <= o.retries && !f; t++) {
			int saved = mute_stderr();
			f = ibnd_discover_fabric(up.ca, up.port, NULL, &cfg);
			unmute_stderr(saved);
			if (f && !f->nodes) {
				ibnd_destroy_fabric(f);
				f = NULL;
			}
		}
		phase_done("ibnetdisc", &t0, NULL);
		if (f) {
			rc = wt_from_ibnd(&w, f, true);
			ibnd_destroy_fabric(f); /* before counters: keeps the peak low */
		}
		if (!rc)
			rc = open_port(up.ca, up.port, &o, &um, &smp_win, &gmp_win, &sm_win);
		if (!rc && !f && (rc = wt_discover(&w, smp_win, &o)) == -EIO) {
			rc = fab_err(-EIO, "discovery from %s/%d failed: not even the local "
				     "node answered (is the port's link up?)", up.ca, up.port);
			goto out;
		}
	}
	if (!rc)
		rc = wt_repair(&w, smp_win, &o, NULL);
	phase_done("repair", &t0, smp_win);
	/* libibnetdisc keys its nodes by GUID: devices that share one are
	 * merged into one node there, and what it says of that node (links,
	 * ports) mixes them. When the repair pass found such a GUID, discover
	 * once more with our own engine, which keeps each device apart. */
	if (!rc && !o.native_discovery && wt_has_dup(&w)) {
		wt_free(&w);
		rc = wt_discover(&w, smp_win, &o);
		if (!rc)
			rc = wt_repair(&w, smp_win, &o, NULL);
		if (rc == -EIO) {
			wt_free(&w);
			rc = fab_err(-EIO, "discovery from %s/%d failed: not even the local "
				     "node answered (is the port's link up?)", up.ca, up.port);
			goto out;
		}
		phase_done("rediscover", &t0, smp_win);
	}
	if (!rc)
		rc = wt_to_snapshot(&w, s);
	/* Forwarding tables, along the paths discovery found. */
	if (!rc && s->n_nodes && !o.no_routes) {
		phase_done("snapshot", &t0, NULL);
		if ((rc = fab_scan_routes(s, &w, smp_win, &o)))
			fab_err(rc, "reading forwarding tables failed: %s", strerror(-rc));
		phase_done("routes", &t0, smp_win);
		/* the lanes of the links a credit loop may run through (none on a tree) */
		if (!rc && (rc = fab_scan_sl2vl(s, &w, smp_win, &o)))
			fab_err(rc, "reading SL2VL tables failed: %s", strerror(-rc));
		phase_done("sl2vl", &t0, smp_win);
	}
	/* VL tables where a QoS policy is in use (two sampled tables say) */
	if (!rc && s->n_nodes) {
		if ((rc = fab_scan_qos(s, &w, smp_win, &o)))
			fab_err(rc, "reading VL tables failed: %s", strerror(-rc));
		phase_done("qos", &t0, smp_win);
	}
	if (!rc && s->n_nodes && !o.no_pkeys) {
		if ((rc = fab_scan_pkeys(s, &w, smp_win, &o)))
			fab_err(rc, "reading P_Key tables failed: %s", strerror(-rc));
		phase_done("pkeys", &t0, smp_win);
	}
	/* Multicast: the SA is the master SM's (the one our port points at,
	 * master by SMInfo before discovery; none: no SA, no groups, a fact);
	 * its queries share the PMA window, the tables the SMP one. */
	if (!rc && s->n_nodes && !o.no_mcast) {
		if ((rc = fab_scan_mcast(s, &w, smp_win, gmp_win, &o, have_before ? before.lid : 0)) &&
		    !fab_errmsg()[0])
			fab_err(rc, "reading multicast groups and tables failed: %s", strerror(-rc));
		phase_done("mcast", &t0, gmp_win);
	}
	wt_free(&w);
	if (rc) {
		if (!fab_errmsg()[0])
			fab_err(rc, "discovery failed: %s", strerror(-rc));
		goto out;
	}
	if (!s->n_nodes) {
		rc = fab_err(-EIO, "discovery from %s/%d found no node", up.ca, up.port);
		goto out;
	}
	fab_scan_progress(&o, "topology", s->n_nodes, s->n_nodes);

	/* Counters, then the subnet managers: the master's SMInfo among them
	 * is the ActCount at the end (one SMInfo, not two). */
	phase_done("snapshot", &t0, NULL);
	if (!o.no_counters)
		rc = fab_scan_counters(s, gmp_win, &o);
	phase_done("counters", &t0, gmp_win);
	if (!rc)
		rc = fab_scan_sms(s, sm_win, &o);
	phase_done("sms", &t0, sm_win);
	if (rc) {
		fab_err(rc, "scan failed: %s", strerror(-rc));
		goto out;
	}

	/* The master's ActCount at the end (the SMs were read last): did it
	 * sweep meanwhile? The start is the master seen before discovery; if
	 * another SM is master by the end, or it is no longer master, the
	 * counts are not comparable and the snapshot says so. A master that no
	 * longer answers has its own row already (fab_scan_sms). */
	const struct fab_sm *m = find_master(s);
	s->sm_act_start = have_before ? before.act_count : 0;
	s->sm_act_end = m ? m->act_count : 0;
	if (have_before && (!m || m->port_guid != before.port_guid)) {
		const struct fab_sm *was = find_sm(s, before.port_guid);
		char g[FAB_GUID_STRLEN], g2[FAB_GUID_STRLEN] = "none";

		s->sm_act_end = 0;
		fab_guid_format(before.port_guid, g);
		if (m)
			fab_guid_format(m->port_guid, g2);
		if ((m || !was || !was->failed) &&
		    (rc = fab_snapshot_add_error(s, 0, -1, "sminfo",
			"the master SM changed during the scan, from port %s to %s%s: "
			"sm_act_start is the first master's ActCount, sm_act_end is "
			"unknown (0); the subnet was reconfigured meanwhile", g,
			m ? "port " : "", g2)))
			goto out;
	}
	finish(s);
out:
	close_port(&um, &smp_win, &gmp_win, &sm_win);
done:
	if (!rc && !s->finished_at_ms)
		s->finished_at_ms = fab_now_ms();
	return rc;
}
