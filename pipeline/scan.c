// SPDX-License-Identifier: MIT
/*
 * Scan and commit (`fabsweep scan`, the first step of a sweep): the
 * InfiniBand scan, the RoCE part, the forensic pass, then the commit in one
 * transaction under a signal fence.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/probe.h"
#include "fabsweep/roce_collect.h"
#include "fabsweep/routing.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

/*
 * Until the commit starts, a signal loses nothing: leave at once. From then
 * on it is only recorded (in whichever thread it lands), and the scan says
 * after the commit that it was interrupted.
 */
static volatile sig_atomic_t committing, got_signal, exit_status = 3;
/* Where the handler's message goes: stderr as it was when the scan began
 * (the scanner sends fd 2 to /dev/null while libibnetdisc runs). */
static int msg_fd = STDERR_FILENO;

static void on_signal(int sig)
{
	static const char msg[] = "fabsweep: scan interrupted; nothing was written\n";

	if (committing) {
		got_signal = sig;
		return;
	}
	/* The raw system calls: libraries preloaded under a simulator (umad2sim)
	 * wrap write() and exit paths, and a handler may run in their threads. */
	if (syscall(SYS_write, msg_fd, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to do */
	}
	syscall(SYS_exit_group, (int)exit_status);
}

void fab_pipeline_scan_init(struct fab_pipeline_scan *job)
{
	memset(job, 0, sizeof(*job));
	fab_scan_opts_init(&job->so);
	job->signal_exit = 3;
}

/* Forensic: the counters a scan leaves out (docs/scan.md). */
static int forensic(const struct fab_scan_opts *so, struct fab_snapshot *snap)
{
	struct fab_probe_opts po;
	size_t n_read = 0;
	int err;

	fab_probe_opts_init(&po);
	po.ca = so->ca;
	po.port = so->port;
	po.window = so->window;
	po.timeout_ms = so->timeout_ms;
	po.retries = so->retries;
	po.mkeys = so->mkeys;
	if (so->progress)
		so->progress("forensic", 0, 0, so->progress_ctx);
	if ((err = fab_probe_unsampled_counters(&po, snap, &n_read)))
		return err;
	if (so->progress)
		so->progress("forensic", n_read, n_read, so->progress_ctx);
	return 0;
}

/* The snapshot as scanned, not yet committed. */
static int scan(const struct fab_pipeline_scan *job, struct fab_scan_opts *so,
		struct fab_snapshot *snap)
{
	struct fab_roce_opts ro = job->ro;
	bool no_ib = job->no_ib;
	char host[256] = "";
	int err;

	gethostname(host, sizeof(host) - 1);
	snap->host = fab_snapshot_strdup(snap, host, SIZE_MAX);
	snap->label = job->label ? fab_snapshot_strdup(snap, job->label, SIZE_MAX) : NULL;
	snap->started_at_ms = fab_now_ms();
	/* RoCE: when IB finds no device (or only RoCE ports) on a machine
	 * without IB devices, the IB part is skipped with a note. The scan
	 * assigned the roles of what it found. */
	if (!no_ib && (err = fab_scan_ib(so, snap))) {
		if (so->load_cache || so->ca || (err != -ENODEV && err != -ENETDOWN) ||
		    fab_roce_have_ib_devices(ro.sysfs_root))
			return err;
		if (ro.note)
			ro.note("no InfiniBand device on this machine: InfiniBand part skipped",
				ro.note_ctx);
		fab_err_clear();
		no_ib = true;
	}
	if (no_ib) {
		snap->status = FAB_SCAN_COMPLETE;
		snap->source = fab_snapshot_strdup(snap, "roce", SIZE_MAX);
	}
	if (snap->routing && snap->routing->sl2vl_over_max && ro.note) {
		char msg[256];

		snprintf(msg, sizeof(msg),
			 "the credit loops of the routes want %zu SL2VL tables, more than --sl2vl-max "
			 "%u: none read, routing.credit_loop judges them on one lane ('fabsweep scan "
			 "--sl2vl-max N' with N at least that, or 'scan --forensic', reads them)",
			 snap->routing->sl2vl_over_max, so->sl2vl_max);
		ro.note(msg, ro.note_ctx);
	}
	if (job->forensic && !no_ib && !so->load_cache && !so->no_counters &&
	    (err = forensic(so, snap)))
		return err;
	if (no_ib || ro.n_lldp_sockets || ro.sysfs_root) {
		ro.lldp_sockets = job->lldp_socks;
		if ((err = fab_roce_collect(&ro, snap)))
			return err;
	}
	snap->finished_at_ms = fab_now_ms();
	return 0;
}

int fab_pipeline_scan_commit(struct fab_store *st, const struct fab_pipeline_scan *job,
			     struct fab_snapshot **out)
{
	struct fab_scan_opts so = job->so;
	struct fab_mkeys *env_keys = NULL;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct fab_snapshot *snap;
	int err;

	if (msg_fd == STDERR_FILENO) { /* once per process: sweep scans again */
		int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);

		if (fd >= 0)
			msg_fd = fd;
	}
	/* sweep has no M_Key options: FABSWEEP_MKEY still applies. */
	if (!so.mkeys && getenv("FABSWEEP_MKEY")) {
		if ((err = fab_mkeys_from_options(NULL, getenv("FABSWEEP_MKEY"), NULL,
						  &env_keys, NULL)))
			return err;
		so.mkeys = env_keys;
	}
	if (!(snap = fab_snapshot_new())) {
		fab_mkeys_free(env_keys);
		return fab_err(-ENOMEM, "out of memory");
	}
	committing = 0;
	got_signal = 0;
	exit_status = job->signal_exit;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if ((err = scan(job, &so, snap)))
		goto out;

	/* The commit is one transaction; signals wait until it is done. */
	int64_t t0 = fab_now_ms(); /* its debug line's CPU: since the scan's last line */

	committing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	err = fab_store_write_scan(st, snap);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fab_scan_debug_phase("commit", &t0);
	if (!err && got_signal)
		err = fab_err(-EINTR, "interrupted; scan %lld was committed before stopping",
			      (long long)snap->scan_id);
out:
	/* committed or not: from here a signal ends the process as before */
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	committing = 0;
	fab_mkeys_free(env_keys);
	if (err) {
		fab_snapshot_free(snap);
		return err;
	}
	*out = snap;
	return 0;
}

int fab_pipeline_scan(const struct fab_pipeline_scan *job, struct fab_snapshot **out)
{
	struct fab_store *st = NULL;
	int err;

	if (job->make_db_dir)
		fab_pipeline_make_db_dir(job->db);
	if ((err = fab_store_open(job->db, FAB_STORE_WRITE, &st)))
		return err;
	err = fab_pipeline_scan_commit(st, job, out);
	fab_store_close(st);
	return err;
}
