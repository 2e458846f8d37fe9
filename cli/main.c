// SPDX-License-Identifier: MIT
/* fabsweep: the command table and dispatch. Only main() exits. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int cmd_help(int argc, char **argv);

const struct fab_cmd fab_commands[] = {
	{ "scan", fab_cmd_scan, "discover the fabric and record a snapshot",
	  "  --db PATH            database (default $FABSWEEP_DB, /var/lib/fabsweep/fabsweep.db as root, else ./fabsweep.db)\n"
	  "  --ca NAME            local HCA to scan from (default: first with an active port)\n"
	  "  --port N             local port (default: first active)\n"
	  "  --smps N             SMPs in flight during discovery and table reads (default 16)\n"
	  "  --window N           PMA and SMInfo MADs in flight (default 64)\n"
	  "  --timeout MS         per-MAD timeout (default 500)\n"
	  "  --retries N          per-MAD retries (default 3)\n"
	  "  --interval SECONDS   take a second counter sample that far apart\n"
	  "  --reset-counters     clear port counters after reading them\n"
	  "  --no-counters        topology and subnet managers only\n"
	  "  --no-routes          do not read the switches' forwarding tables (SwitchInfo, LFT)\n"
	  "  --no-pkeys           do not read the ports' P_Key tables (partitions)\n"
	  "  --no-mcast           do not read multicast groups (SA) and forwarding tables (MFT)\n"
	  "                       ($FABSWEEP_SA_KEY: the SA key of the members' query, default 1)\n"
	  "  --sl2vl-max N        read SL2VL tables for credit loops only when they need at most N\n"
	  "                       (default 16384; --forensic: no limit)\n"
	  "  --load-cache FILE    read an ibnetdiscover cache file instead of the fabric\n"
	  "  --discovery ENGINE   native (default) or ibnetdisc (docs/scan.md)\n"
	  "  --m-key KEY          M_Key for every SMP, 0x... or decimal (visible in ps: prefer\n"
	  "                       $FABSWEEP_MKEY or --m-key-file; docs/security.md)\n"
	  "  --m-key-file FILE    guid2mkey file: '<port or node GUID> <M_Key>' lines (mode 0600)\n"
	  "  --no-ib              skip InfiniBand (skipped with a note when this machine has no IB device)\n"
	  "  --lldp-socket PATH   also record RoCE/LLDP from this lldpd socket (repeatable)\n"
	  "  --sysfs-root DIR     also record RoCE host state from sysfs under DIR\n"
	  "  --forensic           record everything: forwarding tables, counters of every port (down ones too),\n"
	  "                       every cabled switch port's P_Key table (enforcing or not),\n"
	  "                       a second sample 1 s later (unless --interval), label 'forensic'\n"
	  "                       (unless --label); no reset\n"
	  "  --label TEXT         label the snapshot\n"
	  "  --quiet              print nothing on success\n" },
	{ "scans", fab_cmd_scans, "list the snapshots in the database",
	  "  --db PATH            database\n"
	  "  --json               one JSON document on stdout instead of the text (docs/json/)\n" },
	{ "db", fab_cmd_db, "database maintenance: info, migrate, prune, baselines",
	  "  info                 schema version, snapshots, size\n"
	  "  migrate              bring the database to this version's schema (any writing command does)\n"
	  "  prune --keep N       drop all but the newest N scans (baselines are kept)\n"
	  "  prune --older-than D drop scans older than D (30d, 12h, 2w, 1d12h); with --keep: both must agree\n"
	  "    --dry-run          only list what would be dropped\n"
	  "    --no-vacuum        do not reclaim the space afterwards\n"
	  "  baseline set ID [--name NAME]   mark a scan as a baseline (pruning keeps it)\n"
	  "  baseline list        list the baselines\n"
	  "  baseline clear ID|NAME          unmark a baseline\n"
	  "  --db PATH            database\n"
	  "  --json               info: one JSON document on stdout (docs/json/)\n" },
	{ "diff", fab_cmd_diff, "what changed between two snapshots",
	  "  diff OLD NEW         scan ids (a number, 'latest', -N for N before the latest)\n"
	  "  diff --baseline ID|NAME [NEW]   a scan or named baseline against NEW (default: latest)\n"
	  "  --db PATH            database\n"
	  "  --xml FILE           also write the changes as XML (docs/fabsweep-diff.xsd)\n"
	  "  --node-name-map FILE node names (default /etc/rdma/ib-node-name-map if present; '' none)\n"
	  "  --exit-code          exit 1 when anything changed\n"
	  "  --quiet              no text on stdout (with --xml)\n"
	  "  --json               one JSON document on stdout instead of the text (docs/json/)\n" },
	{ "route", fab_cmd_route, "the hop-by-hop path between two hosts in a snapshot's forwarding tables",
	  "  route SRC DST        hosts by name (description or its first word), GUID or LID\n"
	  "  --lid-offset K       to DST's base LID + K (LMC > 0: each LID is routed on its own)\n"
	  "  --all-lids           the route to every LID of DST's range\n"
	  "  route --all-pairs --hosts LIST   every pair of the hosts (host-list syntax as ready),\n"
	  "                       to every LID of each; prints only the routes that break, and the counts\n"
	  "  --hostfile FILE      the hosts of --all-pairs from a file, one host or list a line\n"
	  "  route --mcast MGID|MLID          a multicast group's tree as the tables write it:\n"
	  "                       switches, ports, members (docs/multicast.md)\n"
	  "  --scan ID            the snapshot (default latest; a number, -N for N before the latest)\n"
	  "  --db PATH            database\n"
	  "  exit 0 when the route (every pair; every member of the group) arrives, 1 when one breaks\n"
	  "  (or the group's tables loop) (docs/routing.md)\n" },
	{ "import", fab_cmd_import, "store another tool's saved run as a snapshot: ibdiagnet2 DIR, ibnetdiscover FILE",
	  "  import ibdiagnet2 DIR     an ibdiagnet2 output directory (its ibdiagnet2.db_csv; docs/imports.md)\n"
	  "  import ibnetdiscover FILE a topology-only ibnetdiscover dump\n"
	  "  --db PATH            database\n"
	  "  --label TEXT         label the snapshot\n"
	  "  --quiet              print nothing on success\n" },
	{ "export", fab_cmd_export, "export a snapshot for other tools: 'export prometheus'",
	  "  prometheus           Prometheus text format for node_exporter's textfile collector\n"
	  "  --out FILE           write FILE atomically (temp + rename); '-' for stdout\n"
	  "  --scan ID            snapshot to export (default: the latest)\n"
	  "  --baseline ID        counter increases since this scan (id, -N or a baseline name), as check --baseline\n"
	  "  --db PATH            database\n"
	  "  --node-name-map FILE node names (default /etc/rdma/ib-node-name-map if present; '' none)\n"
	  "  --quiet              print nothing on success\n" },
	{ "check", fab_cmd_check, "run the health rules over a snapshot and store the findings",
	  "  --db PATH            database\n"
	  "  --scan ID            snapshot to check (default: the latest; -1 the one before)\n"
	  "  --config FILE        rule configuration (default /etc/fabsweep/fabsweep.conf if present; docs/config.md)\n"
	  "  --fail-on LEVEL      exit 1 when a finding is at or above LEVEL: error (default), warning, info, never\n"
	  "  --baseline ID        compare counters with an earlier scan (id, -N, or a baseline name)\n"
	  "  --expect FILE|SCAN   expected topology: an ibnetdiscover file, or a scan (id, -N, baseline name)\n"
	  "  --node-name-map FILE node names in the summary (default /etc/rdma/ib-node-name-map if present; '' none)\n"
	  "  --limit N            findings listed on the terminal (default 50, 0: all; nodes with --summary)\n"
	  "  --summary            the findings counted by rule and by node instead of each one (with --json: added)\n"
	  "  --rules-dir DIR      site rules, *.sql (default /etc/fabsweep/rules.d if present; docs/site-rules.md)\n"
	  "  --quiet              print nothing; the exit code says it\n"
	  "  --json               one JSON document on stdout with every finding (docs/json/)\n" },
	{ "rules", fab_cmd_rules, "list the health rules and site rules; 'rules show ID' explains one",
	  "  show ID              rationale, parameters and current values, remediation\n"
	  "  --config FILE        show the values this file sets (and validate it)\n"
	  "  --rules-dir DIR      site rules to list and check (default /etc/fabsweep/rules.d if present)\n"
	  "  --json               one JSON document on stdout instead of the text (docs/json/)\n" },
	{ "report", fab_cmd_report, "render a checked snapshot as HTML and/or XML (docs/reports.md)",
	  "  --db PATH            database\n"
	  "  --scan ID            snapshot to render (default: the latest; -1 the one before)\n"
	  "  --html FILE          write the HTML report (one self-contained page)\n"
	  "  --xml FILE           write the XML report (docs/fabsweep-report.xsd)\n"
	  "  --baseline ID        also show what changed since this scan (id, -N, or a baseline name)\n"
	  "  --all-counters       XML: counters of every port, not only of ports with findings\n"
	  "  --since D            a period: the latest scan with the trends of the last D (24h, 90m)\n"
	  "                       and the findings raised in it (default: trends of the day before the scan)\n"
	  "  --no-trends          HTML: no trend charts (no history read)\n"
	  "  --node-name-map FILE node names (default /etc/rdma/ib-node-name-map if present; '' none)\n" },
	{ "physical", fab_cmd_physical, "modules, cables and bit error ratios of a snapshot, worst first",
	  "  --db PATH            database\n"
	  "  --scan ID            snapshot (default: the latest; -1 the one before)\n"
	  "  --top N              rows of each list (default 10)\n"
	  "  --node-name-map FILE node names (default /etc/rdma/ib-node-name-map if present; '' none)\n"
	  "  --json               one JSON document on stdout with every row and module (docs/json/)\n" },
	/* RoCE: collect on every machine, merge the files (docs/roce.md). */
	{ "collect", fab_cmd_collect, "record this machine's RoCE view (lldpd, sysfs, DCB, ethtool) into a snapshot file",
	  "  --out FILE           snapshot file to write (a fabsweep database with one scan; replaced atomically)\n"
	  "  --lldp-socket PATH   lldpd control socket (repeatable; default lldpd's own)\n"
	  "  --sysfs-root DIR     read sysfs from DIR instead of /sys (DCB is then not queried)\n"
	  "  --no-dcb             do not query DCB over rtnetlink\n"
	  "  --dcb-dir DIR        DCB from saved replies, DIR/<ifname>.bin, instead of the kernel\n"
	  "  --ethtool-dir DIR    NIC statistics and modules from saved outputs: DIR/IF.stats\n"
	  "                       (ethtool -S), DIR/IF.module (ethtool -m, hex or raw), DIR/IF.info (ethtool -i)\n"
	  "  --no-ethtool         no NIC statistics or modules\n"
	  "  --no-modules         no module EEPROMs\n"
	  "  --interval D         read the NIC statistics twice, D apart (1s; at most 60s)\n"
	  "  --timeout MS         per lldpd / netlink exchange (default 5000)\n"
	  "  --label TEXT         label the snapshot\n"
	  "  --quiet              print nothing on success\n" },
	{ "merge", fab_cmd_merge, "assemble collected snapshot files into one fabric-wide snapshot",
	  "  merge --db DB INPUT...  files from 'fabsweep collect' or other merges (the latest scan of\n"
	  "                       each), directories (their *.db files), '-' (paths on standard input)\n"
	  "  --list FILE          also the files FILE lists, one path a line (repeatable; '-': stdin)\n"
	  "  --into DB            incremental: DB's latest merge, and of the inputs only the files\n"
	  "                       changed since it read them (instead of --db); none changed: nothing\n"
	  "                       is written (its latest merge is still current)\n"
	  "  --ready-dir DIR      also write DIR/<host>.db for every host: what 'ready --local' compares\n"
	  "                       it with (docs/roce.md, \"Readiness\")\n"
	  "  --label TEXT         label the snapshot\n"
	  "  --quiet              print nothing on success\n" },
	/* Operations: the scheduled sweep and pre-job readiness (docs/workflows.md). */
	{ "sweep", fab_cmd_sweep, "scan, check, write reports and the Prometheus file, prune: what the timer runs",
	  "  --db PATH            database\n"
	  "  --config FILE        rule configuration and its [sweep] settings (default /etc/fabsweep/fabsweep.conf if present)\n"
	  "  --rules-dir DIR      site rules (default /etc/fabsweep/rules.d if present)\n"
	  "  --report-dir DIR     write fabsweep-<time>-scan<ID>.html/.xml and latest.html/.xml there ([sweep] report_dir)\n"
	  "  --prometheus FILE    write the Prometheus textfile ([sweep] prometheus)\n"
	  "  --keep N             prune to the newest N scans ([sweep] keep)\n"
	  "  --older-than D       prune scans older than D, e.g. 30d ([sweep] older_than)\n"
	  "  --fail-on LEVEL      exit 1 at findings at or above LEVEL: error (default), warning, info, never\n"
	  "  --baseline REF       compare counters with: previous (default), none, a scan id or a baseline name\n"
	  "  --expect FILE|SCAN   expected topology: an ibnetdiscover file or a scan ([sweep] expect)\n"
	  "  --node-name-map FILE node names (default /etc/rdma/ib-node-name-map if present; '' none)\n"
	  "  --interval SECONDS   take a second counter sample ([sweep] interval; default none)\n"
	  "  --label TEXT         label the snapshot (default 'sweep')\n"
	  "  --ca NAME, --port N, --timeout MS, --retries N   as for scan\n"
	  "  --quiet              print nothing; the exit code says it\n"
	  "  exit status: 0 healthy, 1 findings at or above --fail-on, 3 a step failed, 4 the scan was partial\n" },
	{ "watch", fab_cmd_watch, "a full scan, then counter sweeps every few seconds, storing what changed (docs/watch.md)",
	  "  --db PATH            database\n"
	  "  --config FILE        the rules' configuration and its [watch] settings (default /etc/fabsweep/fabsweep.conf if present)\n"
	  "  --interval D         from one sweep to the next, e.g. 10s, 1s, 500ms ([watch] interval; default 10s)\n"
	  "  --rescan D           a full scan at least this often, for links that came up ([watch] rescan; default 1h)\n"
	  "  --hold D             a counter finding stays raised this long after its last change ([watch] hold; default 10m)\n"
	  "  --keep-raw D         sweeps kept raw this long, then rolled up hourly ([watch] keep_raw; default 1d)\n"
	  "  --prometheus FILE    textfile (*.prom) rewritten after every sweep, rates per sweep ([watch] prometheus)\n"
	  "  --alertmanager URL   post findings raised and cleared to Alertmanager's API v2 ([watch] alertmanager)\n"
	  "  --link-probe D|off   read every switch-to-switch link at least this often without traps, 10x less with ([watch] link_probe; 30s)\n"
	  "  --link-probe-share F the probe's reads at most this share of a sweep's MADs, 0.1 or 10%; the period stretches, said ([watch] link_probe_share; 10%)\n"
	  "  --no-events          do not subscribe to the SM's traps ([watch] events = off)\n"
	  "  --count N            stop after N sweeps (default: when stopped; SIGTERM commits the sweep in progress)\n"
	  "  --label TEXT         label the full scans and sweeps (default 'watch')\n"
	  "  --ca NAME, --port N, --timeout MS, --retries N   as for scan\n"
	  "  --window N           MADs in flight during a sweep (default 128)\n"
	  "  --verify-every N     confirm each LID's GUID once in N sweeps (default 16)\n"
	  "  --quiet              print nothing\n"
	  "  exit status: 0 stopped or --count sweeps done, 3 a scan, sweep or the database failed\n" },
	{ "ready", fab_cmd_ready, "probe live whether the fabric is ready for a job on these hosts",
	  "  --hosts LIST         Slurm host list (node[001-016,020], 'n1, n2'); default $SLURM_JOB_NODELIST\n"
	  "  --hostfile FILE      hosts or host lists, one a line or separated by blanks (# comments)\n"
	  "  --pkey P             every pair of hosts must share partition P (0x8001); default: any\n"
	  "                       partition in which one of the two is a full member\n"
	  "  --db PATH            database with the latest sweep\n"
	  "  --scan ID            the sweep to compare with (default: the latest)\n"
	  "  --fail-on LEVEL      the sweep's findings at or above LEVEL make a host not ready: error (default), warning, info, never\n"
	  "  --config FILE        counter increases allowed since the sweep: the [increase] and\n"
	  "                       [port.link_flapping] keys (default /etc/fabsweep/fabsweep.conf if present)\n"
	  "  --node-name-map FILE node names (default /etc/rdma/ib-node-name-map if present; '' none)\n"
	  "  --ca NAME, --port N  local port to probe from (default: the first active)\n"
	  "  --timeout MS         per MAD (default 200)\n"
	  "  --retries N          per MAD (default 2)\n"
	  "  --window N           MADs in flight (default 128)\n"
	  "  --m-key KEY, --m-key-file FILE  M_Keys for the probe's SMPs, as for scan ($FABSWEEP_MKEY)\n"
	  "  --quiet              no summary line; problems only\n"
	  "  --json               one JSON document on stdout instead of the text (docs/json/)\n"
	  "  --verbose            timings on stderr\n"
	  "  ready --local        a RoCE host judges itself against the last merge (docs/roce.md, \"Readiness\"):\n"
	  "                       its RDMA ports, PFC, trust, DSCP mapping, ECN, CNPs, cabling, counters, PCIe,\n"
	  "                       its RoCE interfaces' NIC counters since the merge and their modules\n"
	  "  --db PATH            the fabric's database, or this host's extract ('merge --ready-dir')\n"
	  "  --system NAME        this host's name in the merge (default: as collect names it)\n"
	  "  --fail-on LEVEL      the rules' findings at or above LEVEL make it not ready: warning (default), error, info, never\n"
	  "  --lldp-socket PATH, --sysfs-root DIR, --no-dcb, --dcb-dir DIR, --timeout MS,\n"
	  "  --ethtool-dir DIR, --no-ethtool   as for collect\n"
	  "  --modules            read the modules now (slow: I2C); default: judge the merge's readings\n"
	  "  --config FILE, --scan ID, --quiet, --json, --verbose   as above; [ready] roce_ports, require\n"
	  "  exit status: 0 ready, 1 not ready, 2 usage, 3 could not check\n" },
	{ "help", cmd_help, "show help for a command", "  help [COMMAND]\n" },
	{ NULL, NULL, NULL, NULL },
};

static const struct fab_cmd *find_cmd(const char *name)
{
	for (const struct fab_cmd *c = fab_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fabsweep <command> [options]\n\n"
		   "A fabric-wide health scanner for InfiniBand and RoCE fabrics.\n\n"
		   "Commands:\n");
	for (const struct fab_cmd *c = fab_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nExit codes: 0 success, 1 findings at or above --fail-on, 2 usage error,\n"
		   "3 runtime failure (nothing written), 4 scan committed but partial.\n"
		   "'fabsweep help COMMAND' shows a command's options.\n");
}

static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return FAB_EXIT_OK;
	}
	const struct fab_cmd *c = find_cmd(argv[1]);
	if (!c)
		return fab_cli_usage_error("help", "unknown command '%s'", argv[1]);
	printf("usage: fabsweep %s [options]\n%s\n\n%s", c->name, c->summary, c->usage);
	return FAB_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return FAB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("fabsweep %s\n", FABSWEEP_VERSION);
		return FAB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	const struct fab_cmd *c = find_cmd(argv[1]);
	if (!c)
		return fab_cli_usage_error(NULL, "unknown command '%s'; 'fabsweep help' lists them", argv[1]);
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			char *hargv[] = { (char *)"help", argv[1], NULL };
			return cmd_help(2, hargv);
		}
	return c->run(argc - 1, argv + 1);
}
