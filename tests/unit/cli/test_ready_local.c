// SPDX-License-Identifier: MIT
/*
 * fabsweep ready --local as a user runs it: on the real mlx5 tree of
 * fixtures/sysfs/h100_roce (its RoCE device trained at Gen4 x8 of Gen5 x16:
 * pcie.degraded), against the fabric's database and against the host's
 * extract (merge --ready-dir); what it prints, its exit codes, --fail-on,
 * --json, and the options it refuses. No lldpd: the socket given does not
 * exist, which is said and is no failure.
 */
#include "unit/cli/runcli.h"

#include <limits.h>
#include <sys/stat.h>

static char dir[512], sysfs[PATH_MAX], sock[PATH_MAX], db[PATH_MAX], extract[PATH_MAX];
static char host[200];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR"), *fx = getenv("FIXTURES");
	char file[PATH_MAX], rdir[1024];

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
