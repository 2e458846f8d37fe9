// SPDX-License-Identifier: MIT
/*
 * bench_report: renders the HTML and XML reports of a synthetic fat tree
 * (default 40 spines, 240 leaves, 200 hosts per leaf: 48,000 hosts and about
 * 115,000 ports, 57,600 links) and prints the time of each step and the peak
 * resident memory.
 *
 *   bench_report [--spines N] [--leaves N] [--hosts-per-leaf N]
 *                [--findings N] [--all-counters] [--out DIR] [--repeat N]
 *
 * The snapshot is built in memory (tests/unit/reports/fatfab.h), so the
 * numbers are the reports' own, not the store's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "fabsweep/error.h"
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"
#include "unit/reports/fatfab.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of this process (user + system), seconds. */
static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* Findings spread over the fabric: every k-th link end, all severities. */
static void add_findings(struct fab_snapshot *s, unsigned n)
{
	static const char *const rules[] = { "port.errors", "link.width_degraded", "link.speed_degraded",
					     "port.not_active", "mtu.mismatch" };
	size_t step = n ? s->n_links / n : 0;

	for (unsigned i = 0; i < n && s->n_links; i++) {
		const struct fab_link *l = &s->links[(i * (step ? step : 1)) % s->n_links];
		const struct fab_port *a = &s->ports[l->a];
		char subj[FAB_DESC_CAP + 8];
		snprintf(subj, sizeof(subj), "%s/%u", s->nodes[a->node_idx].desc, a->port_num);
		fatfab_finding(s, rules[i % 5], i % 3, a->node_idx, a->port_num, subj,
			       "SymbolErrorCounter 500 > 10");
		struct fab_counter_sample *c = (struct fab_counter_sample *)fab_snapshot_sample(s, l->a, 0);
		if (c)
			c->v[FAB_CTR_SYMBOL_ERRORS] = 500 + i;
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "spines", required_argument, NULL, 's' },
		{ "leaves", required_argument, NULL, 'l' },
		{ "hosts-per-leaf", required_argument, NULL, 'h' },
		{ "findings", required_argument, NULL, 'f' },
		{ "all-counters", no_argument, NULL, 'a' },
		{ "out", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned spines = 40, leaves = 240, hpl = 200, nfind = 1000, repeat = 3;
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct fab_report_opts o;
	char xml[4096], html[4096];
	int c;

	fab_report_opts_init(&o);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': spines = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'l': leaves = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'h': hpl = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'f': nfind = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'a': o.all_counters = true; break;
		case 'o': dir = optarg; break;
		case 'r': repeat = (unsigned)strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: bench_report [--spines N] [--leaves N] [--hosts-per-leaf N] "
					"[--findings N] [--all-counters] [--out DIR] [--repeat N]\n");
			return 2;
		}
	}
	snprintf(xml, sizeof(xml), "%s/bench_report.xml", dir);
	snprintf(html, sizeof(html), "%s/bench_report.html", dir);

	double t0 = now_s();
	struct fab_snapshot *s = fatfab_build(spines, leaves, hpl, true);
	if (!s) {
		fprintf(stderr, "bench_report: leaves <= 255 and hosts-per-leaf + spines <= 255\n");
		return 2;
	}
	add_findings(s, nfind);
	double t_build = now_s() - t0;
	long rss_snapshot = peak_rss_kb();
	printf("snapshot: %zu nodes, %zu ports, %zu links, %zu counter samples, %zu findings "
	       "(built in %.3f s, peak RSS %ld MiB)\n", s->n_nodes, s->n_ports, s->n_links, s->n_samples,
	       s->n_findings, t_build, rss_snapshot / 1024);

	/* best wall and CPU time of each step: the machine may be busy */
	double wall[3] = { 1e9, 1e9, 1e9 }, cpu[3] = { 1e9, 1e9, 1e9 };
	for (unsigned r = 0; r < (repeat ? repeat : 1); r++) {
		double w[4], u[4];
		w[0] = now_s(), u[0] = cpu_s();
		if (fab_report_xml(s, NULL, &o, xml))
			goto fail;
		w[1] = now_s(), u[1] = cpu_s();
		if (fab_report_html(s, NULL, &o, html))
			goto fail;
		w[2] = now_s(), u[2] = cpu_s();
		if (fab_report_write(s, NULL, &o, xml, html))
			goto fail;
		w[3] = now_s(), u[3] = cpu_s();
		for (int k = 0; k < 3; k++) {
			wall[k] = w[k + 1] - w[k] < wall[k] ? w[k + 1] - w[k] : wall[k];
			cpu[k] = u[k + 1] - u[k] < cpu[k] ? u[k + 1] - u[k] : cpu[k];
		}
	}
	printf("xml %s: %.3f s wall, %.3f s CPU, %.1f MB\n",
	       o.all_counters ? "(all counters)" : "(counters of ports with findings)", wall[0], cpu[0],
	       (double)file_size(xml) / 1e6);
	printf("html: %.3f s wall, %.3f s CPU, %.1f MB\n", wall[1], cpu[1], (double)file_size(html) / 1e6);
	printf("both (fab_report_write, one model, fsync + rename): %.3f s wall, %.3f s CPU %s\n", wall[2],
	       cpu[2], wall[2] < 1.0 ? "(under 1 s)" : "(OVER 1 s wall)");
	printf("peak RSS: %ld MiB (%ld MiB for the snapshot itself; reports add %ld MiB)\n",
	       peak_rss_kb() / 1024, rss_snapshot / 1024, (peak_rss_kb() - rss_snapshot) / 1024);
	printf("best of %u runs; files in %s\n", repeat ? repeat : 1, dir);
	fab_snapshot_free(s);
	return 0;
fail:
	fprintf(stderr, "bench_report: %s\n", fab_errmsg());
	fab_snapshot_free(s);
	return 3;
}
