// SPDX-License-Identifier: MIT
/* fabsweep scan: discover the fabric, then commit the snapshot in one go. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/probe.h"
#include "fabsweep/roce.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

/*
 * Until the commit starts, a signal loses nothing: leave at once. From then
 * on it is only recorded (in whichever thread it lands), and the scan says
 * after the commit that it was interrupted.
 */
static volatile sig_atomic_t committing, got_signal;
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
	syscall(SYS_exit_group, FAB_EXIT_RUNTIME);
}

static void progress(const char *phase, unsigned long done, unsigned long total,
		     void *ctx)
{
	(void)ctx;
	if (total)
		fprintf(stderr, "\r%-12s %lu/%lu\033[K", phase, done, total);
	else
		fprintf(stderr, "\r%-12s %lu\033[K", phase, done);
	if (total && done >= total)
		fputc('\n', stderr);
}

/* Creates the default database's directory when it is missing. */
static void ensure_dir(const char *db)
{
	char dir[4096];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", db);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (access(dir, F_OK) != 0)
		mkdir(dir, 0750);
}

static void print_summary(const struct fab_snapshot *snap, const char *db)
{
	size_t sw = 0, ca = 0, active = 0, master = 0, standby = 0;

	for (size_t i = 0; i < snap->n_nodes; i++) {
		sw += snap->nodes[i].type == FAB_NODE_SWITCH;
		ca += snap->nodes[i].type == FAB_NODE_CA;
	}
	for (size_t i = 0; i < snap->n_ports; i++)
		active += snap->ports[i].port_num > 0 &&
			  snap->ports[i].state == FAB_STATE_ACTIVE;
	for (size_t i = 0; i < snap->n_sms; i++) {
		master += !snap->sms[i].failed && snap->sms[i].state == 3;
		standby += !snap->sms[i].failed && snap->sms[i].state == 2;
	}
	printf("scan %lld: %s; %zu nodes (%zu switches, %zu CAs), %zu active ports, "
	       "%zu links, %zu counter samples, %zu SMs (%zu master, %zu standby)\n",
	       (long long)snap->scan_id, fab_scan_status_name(snap->status),
	       snap->n_nodes, sw, ca, active, snap->n_links, snap->n_samples,
	       snap->n_sms, master, standby);
	if (snap->n_errors) {
		printf("missed %zu item%s:\n", snap->n_errors, snap->n_errors == 1 ? "" : "s");
		for (size_t i = 0; i < snap->n_errors && i < 20; i++) {
			const struct fab_scan_error *e = &snap->errors[i];
			char g[FAB_GUID_STRLEN];

			fab_guid_format(e->node_guid, g);
			if (e->port_num >= 0)
				printf("  %s %s port %d: %s\n", e->what, g, e->port_num, e->message);
			else
				printf("  %s %s: %s\n", e->what, e->node_guid ? g : "-", e->message);
		}
		if (snap->n_errors > 20)
			printf("  ... and %zu more (table scan_errors)\n", snap->n_errors - 20);
	}
	printf("database: %s\n", db);
}

void fab_cli_scan_init(struct fab_cli_scan *a)
{
	memset(a, 0, sizeof(*a));
	fab_scan_opts_init(&a->so);
	a->ro.note = fab_cli_roce_note;
}

/* Shared with sweep: see cli.h. */
int fab_cli_scan_commit(struct fab_store *st, struct fab_cli_scan *a,
			struct fab_snapshot **out)
{
	struct fab_scan_opts so = a->so;
	struct fab_roce_opts ro = a->ro;
	bool no_ib = a->no_ib, quiet = a->quiet;
	struct fab_mkeys *env_keys = NULL;
	int err;

	/* sweep has no M_Key options: FABSWEEP_MKEY still applies. */
	if (!so.mkeys && getenv("FABSWEEP_MKEY")) {
		if ((err = fab_mkeys_from_options(NULL, getenv("FABSWEEP_MKEY"), NULL,
						  &env_keys, NULL)))
			return err;
		so.mkeys = env_keys;
	}

	struct sigaction sa = { .sa_handler = on_signal };

	if (msg_fd == STDERR_FILENO) { /* once per process: sweep scans again */
		int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);

		if (fd >= 0)
			msg_fd = fd;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!quiet && fab_cli_tty(stderr)) {
		so.progress = progress;
	}

	struct fab_snapshot *snap = fab_snapshot_new();
	if (!snap) {
		fab_mkeys_free(env_keys);
		return fab_err(-ENOMEM, "out of memory");
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	snap->host = fab_snapshot_strdup(snap, host, SIZE_MAX);
	snap->label = a->label ? fab_snapshot_strdup(snap, a->label, SIZE_MAX) : NULL;
	snap->started_at_ms = fab_now_ms();
	/* RoCE: when IB finds no device (or only RoCE ports) on a machine
	 * without IB devices, the IB part is skipped with a note. */
	if (!no_ib && (err = fab_scan_ib(&so, snap))) {
		if (so.load_cache || so.ca || (err != -ENODEV && err != -ENETDOWN) ||
		    fab_roce_have_ib_devices(ro.sysfs_root))
			goto fail;
		if (!quiet)
			fab_cli_roce_note("no InfiniBand device on this machine: InfiniBand part skipped", NULL);
		fab_err_clear();
		err = 0;
		no_ib = true;
	}
	if (no_ib) {
		snap->status = FAB_SCAN_COMPLETE;
		snap->source = fab_snapshot_strdup(snap, "roce", SIZE_MAX);
	} else {
		fab_topology_assign_roles(snap);
	}
	/* Forensic: the counters a scan leaves out (docs/scan.md). */
	if (a->forensic && !no_ib && !so.load_cache && !so.no_counters) {
		struct fab_probe_opts po;
		size_t n_read = 0;

		fab_probe_opts_init(&po);
		po.ca = so.ca;
		po.port = so.port;
		po.window = so.window;
		po.timeout_ms = so.timeout_ms;
		po.retries = so.retries;
		po.mkeys = so.mkeys;
		if (so.progress)
			so.progress("forensic", 0, 0, NULL);
		if ((err = fab_probe_unsampled_counters(&po, snap, &n_read)))
			goto fail;
		if (so.progress)
			so.progress("forensic", n_read, n_read, NULL);
	}
	if (no_ib || ro.n_lldp_sockets || ro.sysfs_root) {
		ro.lldp_sockets = a->lldp_socks;
		if (quiet)
			ro.note = NULL;
		if ((err = fab_roce_collect(&ro, snap)))
			goto fail;
	}
	snap->finished_at_ms = fab_now_ms();

	/* The commit is one transaction; signals wait until it is done. */
	committing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	err = fab_store_write_scan(st, snap);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (err)
		goto fail;
	if (got_signal) {
		err = fab_err(-EINTR, "interrupted; scan %lld was committed before stopping",
			      (long long)snap->scan_id);
		goto fail;
	}
	*out = snap;
	fab_mkeys_free(env_keys);
	return 0;
fail:
	fab_snapshot_free(snap);
	fab_mkeys_free(env_keys);
	return err;
}

int fab_cmd_scan(int argc, char **argv)
{
	enum { O_DB = 256, O_CA, O_PORT, O_SMPS, O_WINDOW, O_TIMEOUT, O_RETRIES,
	       O_INTERVAL, O_RESET, O_NOCTR, O_CACHE, O_LABEL, O_QUIET,
	       O_NOIB, O_LLDP_SOCKET, O_SYSFS_ROOT /* RoCE */,
	       O_FORENSIC /* ops */, O_DISCOVERY, O_MKEY, O_MKEY_FILE };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "ca", required_argument, NULL, O_CA },
		{ "port", required_argument, NULL, O_PORT },
		{ "smps", required_argument, NULL, O_SMPS },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "reset-counters", no_argument, NULL, O_RESET },
		{ "no-counters", no_argument, NULL, O_NOCTR },
		{ "load-cache", required_argument, NULL, O_CACHE },
		{ "label", required_argument, NULL, O_LABEL },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "no-ib", no_argument, NULL, O_NOIB },
		{ "lldp-socket", required_argument, NULL, O_LLDP_SOCKET },
		{ "sysfs-root", required_argument, NULL, O_SYSFS_ROOT },
		{ "forensic", no_argument, NULL, O_FORENSIC },
		{ "discovery", required_argument, NULL, O_DISCOVERY },
		{ "m-key", required_argument, NULL, O_MKEY },
		{ "m-key-file", required_argument, NULL, O_MKEY_FILE },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_cli_scan a;
	struct fab_scan_opts *so = &a.so;
	/* RoCE (docs/roce.md): --no-ib, --lldp-socket (repeatable), --sysfs-root */
	struct fab_roce_opts *ro = &a.ro;
	const char *db = fab_cli_default_db();
	bool interval_given = false;
	const char *mkey_text = NULL, *mkey_file = NULL;
	struct fab_mkeys *mkeys = NULL;
	int c, err;
	long v;

	fab_cli_scan_init(&a);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case O_CA: so->ca = optarg; break;
		case O_CACHE: so->load_cache = optarg; break;
		case O_LABEL: a.label = optarg; break;
		case O_RESET: so->reset_counters = true; break;
		case O_NOCTR: so->no_counters = true; break;
		case O_QUIET: a.quiet = true; break;
		case O_FORENSIC: a.forensic = true; break;
		case O_DISCOVERY:
			if (strcmp(optarg, "ibnetdisc") && strcmp(optarg, "native"))
				return fab_cli_usage_error("scan", "--discovery takes 'ibnetdisc' or 'native', not '%s'",
							   optarg);
			so->native_discovery = !strcmp(optarg, "native");
			break;
		case O_NOIB: a.no_ib = true; break;
		case O_MKEY: mkey_text = optarg; break;
		case O_MKEY_FILE: mkey_file = optarg; break;
		case O_SYSFS_ROOT: ro->sysfs_root = optarg; break;
		case O_LLDP_SOCKET:
			if (ro->n_lldp_sockets == sizeof(a.lldp_socks) / sizeof(a.lldp_socks[0]))
				return fab_cli_usage_error("scan", "at most 64 --lldp-socket options; use collect and merge for more");
			a.lldp_socks[ro->n_lldp_sockets++] = optarg;
			break;
		case O_PORT:
		case O_SMPS:
		case O_WINDOW:
		case O_TIMEOUT:
		case O_RETRIES:
		case O_INTERVAL: {
			static const struct { int opt; const char *name; long min, max; } lim[] = {
				{ O_PORT, "--port", 1, 254 }, { O_SMPS, "--smps", 1, 256 },
				{ O_WINDOW, "--window", 1, 1024 }, { O_TIMEOUT, "--timeout", 1, 60000 },
				{ O_RETRIES, "--retries", 0, 20 }, { O_INTERVAL, "--interval", 1, 3600 },
			};
			size_t k = 0;
			while (lim[k].opt != c)
				k++;
			if (fab_cli_parse_int(optarg, lim[k].min, lim[k].max, &v))
				return fab_cli_usage_error("scan", "%s takes a whole number from %ld to %ld, not '%s'",
							   lim[k].name, lim[k].min, lim[k].max, optarg);
			int iv = (int)v;
			if (c == O_PORT) so->port = iv;
			else if (c == O_SMPS) so->smps = iv;
			else if (c == O_WINDOW) so->window = iv;
			else if (c == O_TIMEOUT) so->timeout_ms = iv;
			else if (c == O_RETRIES) so->retries = iv;
			else so->interval_s = iv, interval_given = true;
			break;
		}
		default:
			return fab_cli_usage_error("scan", "unknown option '%s'; 'fabsweep help scan' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fab_cli_usage_error("scan", "unexpected argument '%s'", argv[optind]);
	if (so->load_cache && access(so->load_cache, R_OK) != 0)
		return fab_cli_usage_error("scan", "cannot read cache file '%s': %s",
					   so->load_cache, strerror(errno));
	/* Forensic (docs/scan.md): everything, the evidence left as found. */
	if (a.forensic && (so->reset_counters || so->no_counters || so->load_cache || a.no_ib))
		return fab_cli_usage_error("scan", "--forensic records every counter as found: it does not go with "
					   "--reset-counters, --no-counters, --load-cache or --no-ib");
	if (a.forensic && !interval_given)
		so->interval_s = 1; /* a second sample: which counters still move */
	if (a.forensic && !a.label)
		a.label = "forensic";
	/* M_Key (docs/security.md): never echoed, never stored. */
	bool loose = false;
	if (fab_mkeys_from_options(mkey_text, getenv("FABSWEEP_MKEY"), mkey_file,
				   &mkeys, &loose))
		return fab_cli_usage_error("scan", "%s", fab_errmsg());
	if (loose && !a.quiet)
		fprintf(stderr, "fabsweep: warning: M_Key file '%s' can be read by its group "
			"or others; chmod 600 it\n", mkey_file);
	so->mkeys = mkeys;

	/* Open the database first: a bad --db fails before any MAD is sent. */
	struct fab_store *st = NULL;
	if (!getenv("FABSWEEP_DB") && !strcmp(db, "/var/lib/fabsweep/fabsweep.db"))
		ensure_dir(db);
	if ((err = fab_store_open(db, FAB_STORE_WRITE, &st))) {
		fab_mkeys_free(mkeys);
		return fab_cli_fail();
	}

	struct fab_snapshot *snap = NULL;
	int ret = FAB_EXIT_RUNTIME;
	if ((err = fab_cli_scan_commit(st, &a, &snap)))
		goto out;
	if (!a.quiet) {
		print_summary(snap, db);
		fab_cli_roce_summary(stdout, snap); /* RoCE */
	}
	ret = snap->status == FAB_SCAN_COMPLETE ? FAB_EXIT_OK : FAB_EXIT_PARTIAL;
	if (ret == FAB_EXIT_PARTIAL)
		fprintf(stderr, "fabsweep: scan %lld committed as partial: %zu item%s missed (see table scan_errors)\n",
			(long long)snap->scan_id, snap->n_errors, snap->n_errors == 1 ? "" : "s");
out:
	if (ret == FAB_EXIT_RUNTIME && err)
		fab_cli_fail();
	fab_snapshot_free(snap);
	fab_store_close(st);
	fab_mkeys_free(mkeys);
	return ret;
}
