// SPDX-License-Identifier: MIT
/*
 * fabsweep collect: this machine's own RoCE view (its lldpd, sysfs and DCB)
 * into a snapshot file, a fabsweep database holding one scan, for
 * `fabsweep merge` to assemble with every other machine's.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

void fab_cli_roce_note(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "fabsweep: note: %s\n", msg);
}

void fab_cli_roce_summary(FILE *f, const struct fab_snapshot *snap)
{
	const struct fab_roce *r = snap->roce;
	size_t collected = 0, lldp = 0, role[FAB_ROLE__COUNT] = { 0 }, ports = 0;

	if (!r)
		return;
	for (size_t i = 0; i < r->n_systems; i++) {
		collected += r->systems[i].collected;
		if (r->systems[i].role < FAB_ROLE__COUNT)
			role[r->systems[i].role]++;
	}
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		ports += !(r->eth_ports[i].flags & FAB_ETH_F_STUB);
		lldp += !!(r->eth_ports[i].flags & FAB_ETH_F_LLDP);
	}
	fprintf(f, "roce: %zu systems (%zu collected; %zu hosts, %zu leaves, %zu spines, "
		   "%zu core, %zu unknown), %zu Ethernet ports (%zu with LLDP), %zu LLDP "
		   "neighbours, %zu links, %zu RDMA devices, %zu RDMA ports\n",
		r->n_systems, collected, role[FAB_ROLE_HOST], role[FAB_ROLE_LEAF],
		role[FAB_ROLE_SPINE], role[FAB_ROLE_CORE], role[FAB_ROLE_UNKNOWN], ports, lldp,
		r->n_neighbors, r->n_links, r->n_devices, r->n_rdma_ports);
}

void fab_cli_print_errors(FILE *f, const struct fab_snapshot *snap)
{
	if (!snap->n_errors)
		return;
	fprintf(f, "missed %zu item%s:\n", snap->n_errors, snap->n_errors == 1 ? "" : "s");
	for (size_t i = 0; i < snap->n_errors && i < 20; i++)
		fprintf(f, "  %s: %s\n", snap->errors[i].what, snap->errors[i].message);
	if (snap->n_errors > 20)
		fprintf(f, "  ... and %zu more (table scan_errors)\n", snap->n_errors - 20);
}

/* Writes snap into a new database at path: a temporary name, then rename. */
static int write_file(const char *path, struct fab_snapshot *snap)
{
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	struct fab_store *st = NULL;
	sigset_t block, old;
	int err;

	if (!tmp)
		return fab_err(-ENOMEM, "out of memory");
	snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
	unlink(tmp);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!(err = fab_store_open(tmp, FAB_STORE_WRITE, &st)))
		err = fab_store_write_scan(st, snap);
	fab_store_close(st);
	if (!err && rename(tmp, path) != 0)
		err = fab_err(-errno, "cannot write '%s': %s", path, strerror(errno));
	if (err) {
		char side[4096];
		unlink(tmp);
		snprintf(side, sizeof(side), "%s-wal", tmp);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", tmp);
		unlink(side);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
	return err;
}

int fab_cmd_collect(int argc, char **argv)
{
	enum { O_OUT = 256, O_SOCK, O_SYSFS, O_NODCB, O_TIMEOUT, O_LABEL, O_QUIET };
	static const struct option opts[] = {
		{ "out", required_argument, NULL, O_OUT },
		{ "lldp-socket", required_argument, NULL, O_SOCK },
		{ "sysfs-root", required_argument, NULL, O_SYSFS },
		{ "no-dcb", no_argument, NULL, O_NODCB },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "label", required_argument, NULL, O_LABEL },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_roce_opts ro = { .note = fab_cli_roce_note };
	const char **socks = calloc((size_t)argc + 1, sizeof(*socks));
	const char *out = NULL, *label = NULL;
	struct fab_snapshot *snap = NULL;
	int c, quiet = 0, ret = FAB_EXIT_RUNTIME;
	long v;

	if (!socks)
		return fab_cli_usage_error("collect", "out of memory");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_OUT: out = optarg; break;
		case O_SOCK: socks[ro.n_lldp_sockets++] = optarg; break;
		case O_SYSFS: ro.sysfs_root = optarg; break;
		case O_NODCB: ro.no_dcb = true; break;
		case O_LABEL: label = optarg; break;
		case O_QUIET: quiet = 1; break;
		case O_TIMEOUT:
			if (fab_cli_parse_int(optarg, 1, 600000, &v)) {
				free(socks);
				return fab_cli_usage_error("collect", "--timeout takes milliseconds from 1 to 600000, not '%s'",
							   optarg);
			}
			ro.timeout_ms = (int)v;
			break;
		default:
			free(socks);
			return fab_cli_usage_error("collect", "unknown option '%s'; 'fabsweep help collect' lists them",
						   argv[optind - 1]);
		}
	}
	if (optind < argc || !out) {
		free(socks);
		return optind < argc
			       ? fab_cli_usage_error("collect", "unexpected argument '%s'", argv[optind])
			       : fab_cli_usage_error("collect", "where to? --out FILE is required");
	}
	if (ro.sysfs_root && access(ro.sysfs_root, R_OK | X_OK) != 0) {
		fab_cli_usage_error("collect", "cannot read --sysfs-root '%s': %s", ro.sysfs_root,
				    strerror(errno));
		free(socks);
		return FAB_EXIT_USAGE;
	}
	ro.lldp_sockets = socks;
	if (quiet)
		ro.note = NULL;

	if (!(snap = fab_snapshot_new())) {
		fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	snap->host = fab_snapshot_strdup(snap, host, SIZE_MAX);
	snap->label = label ? fab_snapshot_strdup(snap, label, SIZE_MAX) : NULL;
	snap->source = fab_snapshot_strdup(snap, "collect", SIZE_MAX);
	snap->started_at_ms = fab_now_ms();
	snap->status = FAB_SCAN_COMPLETE;
	if (fab_roce_collect(&ro, snap))
		goto out;
	snap->finished_at_ms = fab_now_ms();
	if (write_file(out, snap))
		goto out;
	ret = snap->status == FAB_SCAN_COMPLETE ? FAB_EXIT_OK : FAB_EXIT_PARTIAL;
	if (!quiet) {
		fab_cli_roce_summary(stdout, snap);
		fab_cli_print_errors(stdout, snap);
		printf("snapshot file: %s\n", out);
	}
	if (ret == FAB_EXIT_PARTIAL)
		fprintf(stderr, "fabsweep: collected as partial: %zu item%s missed (see table scan_errors)\n",
			snap->n_errors, snap->n_errors == 1 ? "" : "s");
out:
	if (ret == FAB_EXIT_RUNTIME)
		fab_cli_fail();
	fab_snapshot_free(snap);
	free(socks);
	return ret;
}
