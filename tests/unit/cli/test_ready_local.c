// SPDX-License-Identifier: MIT
/*
 * fabsweep ready --local as a user runs it: on the real mlx5 tree of
 * fixtures/sysfs/h100_roce (its RoCE device trained at Gen4 x8 of Gen5 x16:
 * pcie.degraded), against the fabric's database and against the host's
 * extract (merge --ready-dir); what it prints, its exit codes, --fail-on,
 * --json, and the options it refuses. No lldpd: the socket given does not
 * exist, which is said and is no failure.
 * The physical layer through the same readers as collect's (--ethtool-dir:
 * saved `ethtool -S` and `-m` outputs): the bond's two ports, at the merge
 * the real ConnectX-4 Lx statistics (fixtures/ethtool) and, on the second,
 * the real 40GBASE-SR4 with three dark lanes (its readings as posted, built
 * into a memory image by modfix.h); now the first port's storm, discard and
 * link-down counters risen, the second's optic replaced by the real
 * MMA1B00 (fixtures/modules).
 */
#include "unit/cli/runcli.h"

#include <limits.h>
#include <sys/stat.h>

#include "unit/modfix.h"

static char dir[512], sysfs[PATH_MAX], sock[PATH_MAX], db[PATH_MAX], extract[PATH_MAX];
static char host[200], eth_merge[PATH_MAX], eth_now[PATH_MAX], pextract[PATH_MAX];

/* dir/name, written whole */
static void put(const char *d, const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	assert_true((size_t)snprintf(path, sizeof(path), "%s/%s", d, name) < sizeof(path));
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* The ConnectX-4 Lx statistics with ConnectX-5's storm counters after
 * them, the lines in edit ("name: value\n") in place of theirs. */
static void stats(const char *d, const char *ifname, const char *edit)
{
	char name[64], *t = mfix_slurp("ethtool/mlx5_connectx4lx.stats", NULL), *out;
	size_t cap;

	assert_non_null(t);
	cap = strlen(t) + 256;
	assert_non_null(out = malloc(cap));
	snprintf(out, cap, "%stx_pause_storm_warning_events: 0\ntx_pause_storm_error_events: 0\n", t);
	for (const char *e = edit; e && *e; e = strchr(e, '\n') + 1) {
		size_t n = strcspn(e, ":");
		char *at;
		snprintf(name, sizeof(name), "\n%.*s:", (int)n, e);
		assert_non_null(at = strstr(out, name));
		size_t old = strcspn(at + 1, "\n") + 1, new = strcspn(e, "\n") + 1;
		memmove(at + 1 + new, at + 1 + old, strlen(at + 1 + old) + 1);
		memcpy(at + 1, e, new);
	}
	snprintf(name, sizeof(name), "%s.stats", ifname);
	put(d, name, out, strlen(out));
	snprintf(name, sizeof(name), "%s.info", ifname);
	put(d, name, "driver: mlx5_core\n", 18);
	free(out);
	free(t);
}

/* The saved outputs of the bond's ports, at the merge and now. */
static void ethtool_dirs(void)
{
	static const char *const port[2] = { "enp154s0f0np0", "enp154s0f1np1" };
	uint8_t img[640];
	size_t len = 0;
	char *t = mfix_slurp("modules/qsfp_40gsr4_avago_dark_lanes.txt", NULL), *hex;

	snprintf(eth_merge, sizeof(eth_merge), "%s/eth-merge", dir);
	snprintf(eth_now, sizeof(eth_now), "%s/eth-now", dir);
	assert_int_equal(mkdir(eth_merge, 0755), 0);
	assert_int_equal(mkdir(eth_now, 0755), 0);
	assert_non_null(t);
	assert_int_equal(mfix_sff8636_from_text(t, img), 0);
	free(t);
	assert_non_null(hex = mfix_slurp("modules/qsfp28_mma1b00_640b.hex", &len));
	for (int k = 0; k < 2; k++)
		stats(eth_merge, port[k], NULL);
	put(eth_merge, "enp154s0f1np1.module", img, sizeof(img)); /* `ethtool -m raw on` */
	stats(eth_now, port[0], "tx_pause_storm_warning_events: 3\nrx_discards_phy: 5000\nlink_down_events_phy: 2\n");
	stats(eth_now, port[1], NULL);
	put(eth_now, "enp154s0f1np1.module", hex, len);
	free(hex);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR"), *fx = getenv("FIXTURES");
	char file[PATH_MAX], rdir[1024], cmd_file[PATH_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/cli-ready-local-XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(sysfs, sizeof(sysfs), "%s/sysfs/h100_roce", fx ? fx : "fixtures");
	snprintf(sock, sizeof(sock), "%s/no-lldpd.sock", dir);
	snprintf(db, sizeof(db), "%s/fabric.db", dir);
	snprintf(file, sizeof(file), "%s/host.db", dir);
	snprintf(rdir, sizeof(rdir), "%s/ready", dir);
	assert_int_equal(mkdir(rdir, 0755), 0);
	gethostname(host, sizeof(host) - 1);
	snprintf(extract, sizeof(extract), "%s/%s.db", rdir, host);
	/* collect: partial (the socket does not answer), the rest recorded */
	assert_int_equal(cli_run("collect", "--quiet", "--out", file, "--sysfs-root", sysfs,
				 "--lldp-socket", sock, NULL), FAB_EXIT_PARTIAL);
	assert_int_equal(cli_run("merge", "--db", db, "--ready-dir", rdir, file, NULL), FAB_EXIT_PARTIAL);
	assert_non_null(strstr(cli_out, "readiness extracts: 1 in "));
	assert_int_equal(access(extract, R_OK), 0);
	/* the same host collected with its NIC statistics and modules */
	ethtool_dirs();
	snprintf(file, sizeof(file), "%s/host-phys.db", dir);
	snprintf(rdir, sizeof(rdir), "%s/ready-phys", dir);
	assert_int_equal(mkdir(rdir, 0755), 0);
	snprintf(pextract, sizeof(pextract), "%s/%s.db", rdir, host);
	assert_int_equal(cli_run("collect", "--quiet", "--out", file, "--sysfs-root", sysfs, "--lldp-socket", sock,
				 "--ethtool-dir", eth_merge, NULL), FAB_EXIT_PARTIAL);
	snprintf(file, sizeof(file), "%s/phys.db", dir);
	snprintf(cmd_file, sizeof(cmd_file), "%s/host-phys.db", dir);
	assert_int_equal(cli_run("merge", "--db", file, "--ready-dir", rdir, cmd_file, NULL), FAB_EXIT_PARTIAL);
	assert_int_equal(access(pextract, R_OK), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int ready(const char *against, const char *a, const char *b)
{
	return cli_run("ready", "--local", "--db", against, "--sysfs-root", sysfs, "--lldp-socket", sock,
		       a, b, NULL);
}

static void test_verdicts(void **state)
{
	char want[1024];

	(void)state;
	/* the degraded PCIe link is a warning: by default it counts */
	for (int k = 0; k < 2; k++) {
		assert_int_equal(ready(k ? extract : db, "--quiet", NULL), FAB_EXIT_FINDINGS);
		snprintf(want, sizeof(want),
			 "%s: pcie.degraded %s/mlx5_bond_0: PCIe link runs x8 at 16 GT/s, below the device's x16 at 32 GT/s\n",
			 host, host);
		assert_string_equal(cli_out, want);
		assert_string_equal(cli_err, "");
	}
	/* --fail-on error: ready, the warning a note, what was not read said */
	assert_int_equal(ready(extract, "--fail-on", "error"), FAB_EXIT_OK);
	snprintf(want, sizeof(want), "%s: note: warning pcie.degraded %s/mlx5_bond_0: PCIe link runs x8", host, host);
	assert_non_null(strstr(cli_out, want));
	snprintf(want, sizeof(want), "%s: note: DCB of bond0 not read: not asked\n", host);
	assert_non_null(strstr(cli_out, want));
	snprintf(want, sizeof(want), "ready: %s: ready: 1 RoCE port, 1 rule finding (merge: scan 1 of ", host);
	assert_non_null(strstr(cli_out, want));
	/* --json: the same verdict, the port, the finding not counted */
	assert_int_equal(ready(extract, "--json", NULL), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(cli_out, "\"command\": \"ready\""));
	assert_non_null(strstr(cli_out, "\"verdict\": \"not_ready\""));
	assert_non_null(strstr(cli_out, "\"local\": {"));
	assert_non_null(strstr(cli_out, "\"device\": \"mlx5_bond_0\""));
	assert_non_null(strstr(cli_out, "\"ports\": [],"));
	/* -v: the timings on stderr */
	assert_int_equal(ready(extract, "--quiet", "--verbose"), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(cli_err, "ready: load the merge "));
	/* another name: not in the merge, could not check (exit 3) unless
	 * something it could check is wrong (exit 1) */
	assert_int_equal(ready(extract, "--system", "nosuchhost"), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(cli_out, "nosuchhost: not in scan 1: no system named 'nosuchhost' was collected there"));
	assert_int_equal(cli_run("ready", "--local", "--db", extract, "--sysfs-root", sysfs, "--lldp-socket", sock,
				 "--system", "nosuchhost", "--fail-on", "never", NULL), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(cli_out, "ready: nosuchhost: not checked: "));
}

static void test_refused(void **state)
{
	char missing[PATH_MAX + 8];

	(void)state;
	assert_int_equal(cli_run("ready", "--local", "--hosts", "n1", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "fabsweep ready: '--hosts' is not an option of ready --local"));
	assert_int_equal(cli_run("ready", "--local", "n1", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "unexpected argument 'n1' (ready --local judges this host only)"));
	assert_int_equal(cli_run("ready", "--local", "--fail-on", "loud", NULL), FAB_EXIT_USAGE);
	assert_int_equal(cli_run("ready", "--local", "--timeout", "0", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "--timeout takes milliseconds from 1 to 600000, not '0'"));
	assert_int_equal(cli_run("ready", "--local", "--dcb-dir", "/nonexistent/dcb", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "cannot read --dcb-dir '/nonexistent/dcb'"));
	snprintf(missing, sizeof(missing), "%s/none.db", dir);
	assert_int_equal(ready(missing, NULL, NULL), FAB_EXIT_RUNTIME);
	assert_non_null(strstr(cli_err, "does not exist: ready --local compares this host with the last merge"));
	assert_int_equal(cli_run("merge", "--db", missing, "--ready-dir", "/nonexistent/ready", db, NULL),
			 FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "cannot write into --ready-dir '/nonexistent/ready'"));
}

static int ready_phys(const char *eth, const char *a, const char *b, const char *c)
{
	return cli_run("ready", "--local", "--db", pextract, "--sysfs-root", sysfs, "--lldp-socket", sock,
		       "--fail-on", "error", "--ethtool-dir", eth, a, b, c, NULL);
}

static void test_physical(void **state)
{
	char want[1024], port0[300], port1[300];

	(void)state;
	snprintf(port0, sizeof(port0), "%s/enp154s0f0np0", host);
	snprintf(port1, sizeof(port1), "%s/enp154s0f1np1", host);
	/* the same readings as at the merge: the merge's module has three dark
	 * lanes (not read now: the merge's reading, said so) */
	assert_int_equal(ready_phys(eth_merge, "--quiet", NULL, NULL), FAB_EXIT_FINDINGS);
	snprintf(want, sizeof(want),
		 "%s: module.dark_lane %s: lanes 2-4 receive no light while lane 1 does; lanes 2-4 transmit nothing (laser off) while the others do (the module raised no alarm for it) (the module as read at the merge)\n",
		 host, port1);
	assert_string_equal(cli_out, want);
	/* now: a storm, a discard burst and two link-downs on the first port;
	 * the second's optic replaced (--modules reads it: no dark lane) */
	assert_int_equal(ready_phys(eth_now, "--modules", NULL, NULL), FAB_EXIT_FINDINGS);
	snprintf(want, sizeof(want), "%s: roce.pause_storm %s: pause storm: 3 stall-prevention events (errors, where it stopped honouring pauses: 0; warnings: 3) in the ", host, port0);
	assert_non_null(strstr(cli_out, want));
	/* a warning, below --fail-on error: a note */
	snprintf(want, sizeof(want), "%s: note: warning eth.discards %s: 5000 frames dropped at the port for lack of buffer in the ", host, port0);
	assert_non_null(strstr(cli_out, want));
	snprintf(want, sizeof(want), "%s: enp154s0f0np0 link went down since the merge: link_down_events +2 (0 -> 2)\n", host);
	assert_non_null(strstr(cli_out, want));
	assert_null(strstr(cli_out, "dark_lane"));
	assert_null(strstr(cli_out, "NIC counters of"));
	/* --json: the rules' findings with their evidence */
	assert_int_equal(ready_phys(eth_now, "--json", "--modules", NULL), FAB_EXIT_FINDINGS);
	assert_non_null(strstr(cli_out, "\"rule_id\": \"roce.pause_storm\""));
	assert_non_null(strstr(cli_out, "pause_storm_warning_events_increase=3"));
	assert_non_null(strstr(cli_out, "rx_discards_phy_increase=5000"));
	/* not read: said per port (not for the bond: its ports are the NICs),
	 * a failure when [ready] require has ethtool */
	assert_int_equal(ready_phys(eth_merge, "--no-ethtool", NULL, NULL), FAB_EXIT_FINDINGS);
	snprintf(want, sizeof(want), "%s: note: NIC counters of enp154s0f0np0 not read: not asked\n", host);
	assert_non_null(strstr(cli_out, want));
	snprintf(want, sizeof(want), "%s: note: NIC counters of enp154s0f1np1 not read: not asked\n", host);
	assert_non_null(strstr(cli_out, want));
	assert_null(strstr(cli_out, "NIC counters of bond0"));
	snprintf(want, sizeof(want), "%s/require.conf", dir);
	put(dir, "require.conf", "[ready]\nrequire = ethtool\n", 26);
	assert_int_equal(cli_run("ready", "--local", "--db", pextract, "--sysfs-root", sysfs, "--lldp-socket", sock,
				 "--fail-on", "never", "--quiet", "--config", want, NULL), FAB_EXIT_FINDINGS);
	snprintf(want, sizeof(want),
		 "%s: NIC counters of enp154s0f0np0 not read (not asked), and [ready] require has ethtool\n"
		 "%s: NIC counters of enp154s0f1np1 not read (not asked), and [ready] require has ethtool\n",
		 host, host);
	assert_string_equal(cli_out, want);
	assert_int_equal(cli_run("ready", "--local", "--ethtool-dir", "/nonexistent/eth", NULL), FAB_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "cannot read --ethtool-dir '/nonexistent/eth'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_physical),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
