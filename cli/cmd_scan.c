// SPDX-License-Identifier: MIT
/* fabsweep scan: discover the fabric and commit the snapshot in one go
 * (fab_pipeline_scan). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/mkey.h"
#include "fabsweep/names.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"

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

int fab_cmd_scan(int argc, char **argv)
{
	enum { O_DB = 256, O_CA, O_PORT, O_SMPS, O_WINDOW, O_TIMEOUT, O_RETRIES,
	       O_INTERVAL, O_RESET, O_NOCTR, O_CACHE, O_LABEL, O_QUIET,
	       O_NOIB, O_LLDP_SOCKET, O_SYSFS_ROOT /* RoCE */,
	       O_FORENSIC /* ops */, O_NOROUTES, O_NOPKEYS, O_NOMCAST, O_SL2VL_MAX, O_DISCOVERY, O_MKEY, O_MKEY_FILE };
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
		{ "no-routes", no_argument, NULL, O_NOROUTES },
		{ "no-pkeys", no_argument, NULL, O_NOPKEYS },
		{ "no-mcast", no_argument, NULL, O_NOMCAST },
		{ "sl2vl-max", required_argument, NULL, O_SL2VL_MAX },
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
	struct fab_pipeline_scan a;
	struct fab_scan_opts *so = &a.so;
	/* RoCE (docs/roce.md): --no-ib, --lldp-socket (repeatable), --sysfs-root */
	struct fab_roce_opts *ro = &a.ro;
	bool interval_given = false, quiet = false, sl2vl_given = false;
	const char *mkey_text = NULL, *mkey_file = NULL;
	struct fab_mkeys *mkeys = NULL;
	int c;
	long v;

	fab_pipeline_scan_init(&a);
	a.db = fab_cli_default_db();
	a.signal_exit = FAB_EXIT_RUNTIME;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: a.db = optarg; break;
		case O_CA: so->ca = optarg; break;
		case O_CACHE: so->load_cache = optarg; break;
		case O_LABEL: a.label = optarg; break;
		case O_RESET: so->reset_counters = true; break;
		case O_NOCTR: so->no_counters = true; break;
		case O_NOROUTES: so->no_routes = true; break;
		case O_NOPKEYS: so->no_pkeys = true; break;
		case O_NOMCAST: so->no_mcast = true; break;
		case O_SL2VL_MAX:
			if (fab_cli_parse_int(optarg, 0, 100000000, &v))
				return fab_cli_usage_error("scan", "--sl2vl-max takes a number of tables from 0 to 100000000, not '%s'", optarg);
			so->sl2vl_max = (uint32_t)v;
			sl2vl_given = true;
			break;
		case O_QUIET: quiet = true; break;
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
			if (ro->n_lldp_sockets == ARRAY_SIZE(a.lldp_socks))
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
	if (a.forensic && (so->reset_counters || so->no_counters || so->no_routes || so->no_pkeys ||
			   so->no_mcast || sl2vl_given || so->load_cache || a.no_ib))
		return fab_cli_usage_error("scan", "--forensic records every counter and table as found: it does not "
					   "go with --reset-counters, --no-counters, --no-routes, --no-pkeys, --no-mcast, "
					   "--sl2vl-max, --load-cache or --no-ib");
	if (a.forensic && !interval_given)
		so->interval_s = 1; /* a second sample: which counters still move */
	if (a.forensic) {
		so->all_pkeys = true; /* non-enforcing switch ports' tables too */
		so->all_qos = true;   /* every SL2VL and VLArbitration table */
		so->sl2vl_max = UINT32_MAX; /* every lane a loop needs */
	}
	if (a.forensic && !a.label)
		a.label = "forensic";
	/* M_Key (docs/security.md): never echoed, never stored. */
	bool loose = false;
	if (fab_mkeys_from_options(mkey_text, getenv("FABSWEEP_MKEY"), mkey_file,
				   &mkeys, &loose))
		return fab_cli_usage_error("scan", "%s", fab_errmsg());
	if (loose && !quiet)
		fab_cli_mkey_warning(mkey_file);
	so->mkeys = mkeys;
	if (!quiet && fab_cli_tty(stderr))
		so->progress = fab_cli_progress;
	ro->note = quiet ? NULL : fab_cli_note;
	a.make_db_dir = fab_cli_is_root_db(a.db);

	struct fab_snapshot *snap = NULL;
	int ret = FAB_EXIT_RUNTIME;
	if (fab_pipeline_scan(&a, &snap)) {
		fab_cli_fail();
		goto out;
	}
	if (!quiet) {
		print_summary(snap, a.db);
		fab_cli_roce_summary(stdout, snap); /* RoCE */
	}
	ret = snap->status == FAB_SCAN_COMPLETE ? FAB_EXIT_OK : FAB_EXIT_PARTIAL;
	if (ret == FAB_EXIT_PARTIAL)
		fab_cli_partial(snap);
out:
	fab_snapshot_free(snap);
	fab_mkeys_free(mkeys);
	return ret;
}
