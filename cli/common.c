// SPDX-License-Identifier: MIT
/* What the commands share to parse options and to print. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"

/* ---- parsing ------------------------------------------------------------------ */

const char *fab_cli_default_db(void)
{
	const char *env = getenv("FABSWEEP_DB");

	if (env && *env)
		return env;
	return geteuid() == 0 ? FAB_CLI_ROOT_DB : "./fabsweep.db";
}

bool fab_cli_is_root_db(const char *db)
{
	return !getenv("FABSWEEP_DB") && !strcmp(db, FAB_CLI_ROOT_DB);
}

int fab_cli_parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool is_negative_id(const char *s)
{
	return s[0] == '-' && s[1] && strspn(s + 1, "0123456789") == strlen(s + 1);
}

char **fab_cli_hide_negative_ids(int argc, char **argv, const char *const *with_arg)
{
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	bool dashdash = false;

	if (!args)
		return NULL;
	for (int i = 0; i < argc; i++) {
		bool after_opt = false;
		for (const char *const *o = with_arg; i > 0 && *o; o++)
			after_opt |= !strcmp(argv[i - 1], *o);
		args[i] = argv[i];
		if (i > 0 && !dashdash && !after_opt && is_negative_id(argv[i]))
			args[i] = argv[i] + 1; /* no '-': getopt leaves it alone */
		dashdash |= !strcmp(argv[i], "--");
	}
	return args;
}

const char *fab_cli_positional(int argc, char **argv, const char *arg)
{
	for (int i = 1; i < argc; i++)
		if (arg == argv[i] + 1 && is_negative_id(argv[i]))
			return argv[i];
	return arg;
}

/* ---- printing ----------------------------------------------------------------- */

int fab_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	if (cmd)
		fprintf(stderr, "fabsweep %s: ", cmd);
	else
		fputs("fabsweep: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return FAB_EXIT_USAGE;
}

int fab_cli_fail(void)
{
	const char *m = fab_errmsg();

	fprintf(stderr, "fabsweep: %s\n", *m ? m : "failed");
	return FAB_EXIT_RUNTIME;
}

int fab_cli_tty(FILE *f)
{
	return isatty(fileno(f));
}

void fab_cli_note(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "fabsweep: note: %s\n", msg);
}

void fab_cli_problem(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "fabsweep: %s\n", msg);
}

void fab_cli_progress(const char *phase, unsigned long done, unsigned long total, void *ctx)
{
	(void)ctx;
	if (total)
		fprintf(stderr, "\r%-12s %lu/%lu\033[K", phase, done, total);
	else
		fprintf(stderr, "\r%-12s %lu\033[K", phase, done);
	if (total && done >= total)
		fputc('\n', stderr);
}

void fab_cli_mkey_warning(const char *file)
{
	fprintf(stderr, "fabsweep: warning: M_Key file '%s' can be read by its group "
		"or others; chmod 600 it\n", file);
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

void fab_cli_partial(const struct fab_snapshot *snap)
{
	fprintf(stderr, "fabsweep: scan %lld committed as partial: %zu item%s missed (see table scan_errors)\n",
		(long long)snap->scan_id, snap->n_errors, snap->n_errors == 1 ? "" : "s");
}

int fab_cli_roce_opt(const char *cmd, int c, const char *arg, struct fab_roce_opts *ro,
		     const char **socks)
{
	long v;

	switch (c) {
	case FAB_CLI_O_LLDP: socks[ro->n_lldp_sockets++] = arg; ro->lldp_sockets = socks; return -1;
	case FAB_CLI_O_SYSFS: ro->sysfs_root = arg; return -1;
	case FAB_CLI_O_NODCB: ro->no_dcb = true; return -1;
	case FAB_CLI_O_DCBDIR: ro->dcb_dir = arg; return -1;
	case FAB_CLI_O_ETHDIR: ro->ethtool_dir = arg; return -1;
	case FAB_CLI_O_NOETH: ro->no_ethtool = true; return -1;
	case FAB_CLI_O_RTIMEOUT:
		if (fab_cli_parse_int(arg, 1, 600000, &v))
			return fab_cli_usage_error(cmd, "--timeout takes milliseconds from 1 to 600000, not '%s'",
						   arg);
		ro->timeout_ms = (int)v;
		return -1;
	default:
		return 0;
	}
}

int fab_cli_roce_check(const char *cmd, const struct fab_roce_opts *ro)
{
	const char *dirs[3][2] = { { "--sysfs-root", ro->sysfs_root }, { "--dcb-dir", ro->dcb_dir },
				   { "--ethtool-dir", ro->ethtool_dir } };

	for (int k = 0; k < 3; k++)
		if (dirs[k][1] && access(dirs[k][1], R_OK | X_OK) != 0)
			return fab_cli_usage_error(cmd, "cannot read %s '%s': %s", dirs[k][0], dirs[k][1],
						   strerror(errno));
	return -1;
}

int fab_cli_mad_opt(const char *cmd, enum fab_cli_mad_opt which, const char *arg, int *out)
{
	static const struct { const char *name; long min, max; const char *what; } o[] = {
		[FAB_CLI_PORT] = { "--port", 1, 254, "a port number" },
		[FAB_CLI_TIMEOUT] = { "--timeout", 1, 60000, "milliseconds" },
		[FAB_CLI_RETRIES] = { "--retries", 0, 20, "a whole number" },
		[FAB_CLI_WINDOW] = { "--window", 1, 1024, "a number of MADs" },
	};
	long v;

	if (fab_cli_parse_int(arg, o[which].min, o[which].max, &v))
		return fab_cli_usage_error(cmd, "%s takes %s from %ld to %ld, not '%s'", o[which].name,
					   o[which].what, o[which].min, o[which].max, arg);
	*out = (int)v;
	return -1;
}
