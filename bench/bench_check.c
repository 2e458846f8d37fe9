// SPDX-License-Identifier: MIT
/*
 * bench_check: times `fabsweep check` on a synthetic fabric of 100,000 ports
 * against its targets (under 1 s, under 256 MB).
 *
 *   bench_check [--db FILE] [--spines N] [--leaves N] [--hosts-per-leaf N]
 *               [--keep] [--fabsweep PATH]
 *
 * Defaults: 16 spines, 250 leaves, 184 hosts per leaf: 100,266 ports (switch
 * port 0 included), 50,000 links, two counter samples per active port, and a
 * few defects for the rules to find (degraded links, error counters, a
 * rising counter, a missing uplink). It writes the fabric through the real
 * store as scan 1 (the baseline, an hour earlier) and scan 2, then measures
 * in a fresh process (so the build does not count) what `fabsweep check`
 * does: load scan 2, run every rule, replace its findings; and again with
 * --baseline 1. With --fabsweep PATH it also times the real command.
 * Exit 1 when a target is missed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabfix/fabfix.h"
#include "bench/benchclock.h"

#define TARGET_S 1.0
#define TARGET_MB 256.0
#define T0 1772359200000LL /* 2026-03-01T10:00:00Z */


static struct fab_snapshot *build(unsigned spines, unsigned leaves, unsigned hpl, int64_t shift)
{
	const struct fabfix_tree t = {
		.spines = spines, .leaves = leaves, .hosts_per_leaf = hpl,
		.spine_guid = 0x0002c90300100000ull, .leaf_guid = 0x0002c90300200000ull,
		.host_guid = 0x0002c90300400000ull, .host_step = 2,
		.spine = { "spine", 3 }, .leaf = { "leaf", 3 }, .host = { "node", 5, " HCA-1" },
		.roles = true,
	};
	struct fab_snapshot *s = fabfix_fat_tree(&t);
	int64_t t0 = T0 + shift;

	if (!s)
		return NULL;
	s->started_at_ms = t0;
	s->finished_at_ms = t0 + 20000;
	s->host = fab_snapshot_strdup(s, "bench", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "ib:mlx5_0/1", SIZE_MAX);
	/* defects: one missing uplink, a few degraded links */
	if (leaves > 7 && spines > 3) {
		fabfix_uncable(s, (uint32_t)(spines + 7), hpl + 1 + 3);
		fab_snapshot_build_links(s);
	}
	for (size_t i = 0; i < s->n_ports; i += 9973) {
		struct fab_port *p = &s->ports[i];
		if (p->remote_idx == FAB_NONE)
			continue;
		p->width_active = s->ports[p->remote_idx].width_active = FAB_WIDTH_1X;
	}
	for (unsigned smp = 0; smp < 2; smp++)
		for (size_t i = 0; i < s->n_ports; i++) {
			if (!fabfix_sampled(s, i))
				continue;
			struct fab_counter_sample *c = fabfix_sample(s, i, smp, t0 + 1000 + smp * 10000);
			c->v[FAB_CTR_XMIT_DATA] = i * 1000 + smp * 5000;
			c->v[FAB_CTR_RCV_DATA] = i * 900 + smp * 5000;
			c->v[FAB_CTR_SYMBOL_ERRORS] = i % 1009 == 0 ? 50 + smp * 300 : 0;
			c->v[FAB_CTR_XMIT_WAIT] = i % 4001 == 0 ? 2000 : 0;
		}
	fabfix_sm(s, fabfix_first_host(&t), 3, 14);
	fabfix_sm(s, fabfix_first_host(&t) + 1, 2, 10);
	return s;
}

/* In the measuring process: what `fabsweep check [--baseline 1]` does. */
static int measure(const char *db, int with_baseline)
{
	struct fab_store *st;
	struct fab_snapshot *snap, *base = NULL;
	struct fab_rules_result res;
	struct rusage ru;
	double t0 = now_s(), t1, t2, t3, c0 = cpu_s(), c1, c2, c3;

	if (fab_store_open(db, FAB_STORE_WRITE, &st) || fab_store_load_scan(st, 2, &snap) ||
	    (with_baseline && fab_store_load_baseline(st, 1, &base))) {
		fprintf(stderr, "bench_check: %s\n", fab_errmsg());
		return 1;
	}
	t1 = now_s();
	c1 = cpu_s();
	if (fab_rules_run(NULL, snap, base, 0, &res)) {
		fprintf(stderr, "bench_check: %s\n", fab_errmsg());
		return 1;
	}
	t2 = now_s();
	c2 = cpu_s();
	if (fab_store_replace_findings(st, snap)) {
		fprintf(stderr, "bench_check: %s\n", fab_errmsg());
		return 1;
	}
	t3 = now_s();
	c3 = cpu_s();
	getrusage(RUSAGE_SELF, &ru);
	if (getenv("BENCH_CHECK_RULES")) {
		size_t n;
		const struct fab_rule *t = fab_rules_table(&n);
		fprintf(stderr, "  %-22s %.4f s\n", "(prepare)", res.prepare_seconds);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "  %-22s %.4f s, %u findings\n", t[i].id, res.seconds[i],
				res.n_findings[i]);
	}
	/* one line for the parent: wall load rules store total, rss_kb, ports,
	 * findings, CPU load rules store total */
	printf("%.4f %.4f %.4f %.4f %ld %zu %zu %.4f %.4f %.4f %.4f\n", t1 - t0, t2 - t1, t3 - t2,
	       t3 - t0, ru.ru_maxrss, snap->n_ports, snap->n_findings, c1 - c0, c2 - c1, c3 - c2,
	       c3 - c0);
	fab_snapshot_free(snap);
	fab_snapshot_free(base);
	fab_store_close(st);
	return 0;
}

/* Runs argv in a child; its stdout into buf; its peak RSS (KiB) and wall time. */
static int child(char *const argv[], char *buf, size_t len, long *rss_kb, double *secs)
{
	int fd[2], status;
	struct rusage ru;
	double t0 = now_s();
	pid_t pid;
	size_t off = 0;
	ssize_t n;

	if (pipe(fd))
		return -1;
	if ((pid = fork()) == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while (off + 1 < len && (n = read(fd[0], buf + off, len - off - 1)) > 0)
		off += (size_t)n;
	buf[off] = '\0';
	close(fd[0]);
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*secs = now_s() - t0;
	*rss_kb = ru.ru_maxrss;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int verdict(const char *what, double secs, long rss_kb)
{
	double mb = (double)rss_kb / 1024.0;
	bool ok = secs < TARGET_S && mb < TARGET_MB;

	printf("%-34s %7.3f s %8.1f MB   %s (targets: < %.0f s, < %.0f MB)\n", what, secs, mb,
	       ok ? "ok" : "MISSED", TARGET_S, TARGET_MB);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "spines", required_argument, NULL, 's' },
		{ "leaves", required_argument, NULL, 'l' },
		{ "hosts-per-leaf", required_argument, NULL, 'h' },
		{ "keep", no_argument, NULL, 'k' },
		{ "fabsweep", required_argument, NULL, 'f' },
		{ "measure", required_argument, NULL, 'm' },
		{ "baseline", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned spines = 16, leaves = 250, hpl = 184;
	const char *db = NULL, *fabsweep = NULL, *measure_db = NULL;
	char dbbuf[512], self[4096], out[512];
	int c, keep = 0, with_baseline = 0, missed = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 's': spines = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'l': leaves = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'h': hpl = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'k': keep = 1; break;
		case 'f': fabsweep = optarg; break;
		case 'm': measure_db = optarg; break;
		case 'b': with_baseline = 1; break;
		default:
			fprintf(stderr, "usage: bench_check [--db FILE] [--spines N] [--leaves N] [--hosts-per-leaf N] [--keep] [--fabsweep PATH]\n");
			return 2;
		}
	}
	if (measure_db)
		return measure(measure_db, with_baseline);
	if (!spines || !leaves || leaves > 254 || hpl + spines > 254) {
		fprintf(stderr, "bench_check: a switch has at most 254 ports: leaves <= 254, hosts-per-leaf + spines <= 254\n");
		return 2;
	}
	if (!db) {
		snprintf(dbbuf, sizeof(dbbuf), "%s/bench_check_%d.db",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
		db = dbbuf;
	}
	unlink(db);

	double t0 = now_s();
	struct fab_store *st;
	size_t ports = 0, links = 0;
	if (fab_store_open(db, FAB_STORE_WRITE, &st)) {
		fprintf(stderr, "bench_check: %s\n", fab_errmsg());
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		struct fab_snapshot *s = build(spines, leaves, hpl, i ? 0 : -3600 * 1000LL);
		if (!s || fab_store_write_scan(st, s)) {
			fprintf(stderr, "bench_check: %s\n", s ? fab_errmsg() : "out of memory");
			return 1;
		}
		ports = s->n_ports;
		links = s->n_links;
		fab_snapshot_free(s);
	}
	fab_store_close(st);
	double la[3] = { 0 };
	if (getloadavg(la, 3) > 0)
		printf("load average %.2f (wall times below include waiting for the CPU)\n", la[0]);
	printf("fabric: %u spines, %u leaves, %u hosts per leaf: %zu ports, %zu links, 2 scans (built in %.1f s)\n",
	       spines, leaves, hpl, ports, links, now_s() - t0);

	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0) {
		fprintf(stderr, "bench_check: cannot find myself: %s\n", strerror(errno));
		return 1;
	}
	self[sl] = '\0';
	for (int b = 0; b < 2; b++) {
		char *args[] = { self, (char *)"--measure", (char *)db, b ? (char *)"--baseline" : NULL, NULL };
		double load, rules, store, total, secs, cl, cr, cs, cpu;
		long rss, crss;
		size_t np, nf;

		if (child(args, out, sizeof(out), &crss, &secs) ||
		    sscanf(out, "%lf %lf %lf %lf %ld %zu %zu %lf %lf %lf %lf", &load, &rules, &store,
			   &total, &rss, &np, &nf, &cl, &cr, &cs, &cpu) != 11) {
			fprintf(stderr, "bench_check: the measuring process failed\n");
			return 1;
		}
		printf("%s: %zu findings\n"
		       "  wall: load %.3f s, rules %.3f s, store findings %.3f s\n"
		       "  CPU:  load %.3f s, rules %.3f s, store findings %.3f s, total %.3f s\n",
		       b ? "check --baseline 1" : "check", nf, load, rules, store, cl, cr, cs, cpu);
		missed |= verdict(b ? "  load + rules + store (baseline)" : "  load + rules + store", total, rss);
	}
	if (fabsweep) {
		char *args[] = { (char *)fabsweep, (char *)"check", (char *)"--db", (char *)db,
				 (char *)"--quiet", (char *)"--fail-on", (char *)"never", NULL };
		double secs;
		long rss;
		int rc = child(args, out, sizeof(out), &rss, &secs);
		if (rc) {
			fprintf(stderr, "bench_check: %s check exited %d\n", fabsweep, rc);
			return 1;
		}
		missed |= verdict("fabsweep check (whole process)", secs, rss);
	}
	if (!keep) {
		fabfix_unlink_db(db);
	} else {
		printf("database kept: %s\n", db);
	}
	return missed;
}
