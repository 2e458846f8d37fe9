// SPDX-License-Identifier: MIT
/*
 * bench_routing: the routing analysis on a real topology against its
 * targets (issue 14): all routing rules together under 1 s and 512 MB,
 * `fabsweep route` between two hosts under 50 ms, and what the tables cost
 * in the database.
 *
 *   bench_routing TOPOLOGY_FILE [--db FILE] [--keep] [--lmc N] [--lanes] [--counters] [--qos]
 *
 * The topology (an ibnetdiscover file, e.g.
 * fixtures/real/ibnetdiscover/selene.compute.txt: 666 switches, 4,341 CAs)
 * has no tables: they are made min-hop, as OpenSM's default engine would
 * (fabfix_route_minhop); with --lmc N every CA port first gets LMC N (2^N
 * LIDs, each routed on its own: fabfix_lmc). The snapshot is written through the real store
 * twice (the second write, unchanged, must add no table rows); then, in a
 * fresh process, scan 2 is loaded, every rule runs and the routing rules'
 * own times are summed, peak memory is read; then `fab_pipeline_route`
 * (load, index, trace: what the command does) between the first and the
 * last host, best of 5, named by description (only the path is read: the
 * target) and by LID (the path's views too, seeded with the LIDs'
 * nodes). Exit 1 when a target is missed. It prints how many SL2VL tables
 * (MADs) a scan would read for the per-lane credit-loop analysis
 * (fab_sl2vl_wanted); with --lanes the
 * snapshot gets them, as ibsim's defaults (SL s on VL s, SL 15 on VL 7),
 * so that routing.credit_loop judges every cycle per lane. With --counters
 * every cabled port is Active (as a live scan sees it) with two counter
 * samples 10 s apart, and 1% of them have errors the detail counters
 * explain (receive errors with their details, lifetime discards with their
 * details and per-VL waits, symbol errors for link.ber_high): then the load
 * and every rule (`check` without storing its findings) must take under
 * 0.5 s (issue 30's target for Selene).
 * With --qos it
 * gets what a scan that saw a QoS policy reads (docs/scan.md "VL and QoS
 * tables"): every cabled port's SL2VL tables (a switch's for every in-port
 * and out-port pair) and VLArbitration tables, every port running VL0-7;
 * then `fabsweep check` (fab_pipeline_check: load, every rule, store) is
 * timed too, best of 3, with the vl.* rules' own time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/qos.h"
#include "fabsweep/routing.h"
#include "fabsweep/rules.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/topo.h"
#include "fabfix/fabfix.h"

#define RULES_S 1.0
#define RULES_MB 512.0
#define ROUTE_MS 50.0
#define CHECK_S 0.5 /* --counters: load + every rule */
#define NAME 16 /* a LID's text; a description follows at 2 * NAME */
#define DESC 320

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* rows of the content-addressed table storage (docs/schema.md) */
static long long table_rows(const char *db)
{
	char cmd[700];
	long long v = -1;

	snprintf(cmd, sizeof(cmd), "sqlite3 -readonly '%s' 'SELECT (SELECT count(*) FROM lft_blocks) +"
		 " (SELECT count(*) FROM lft_tables) + (SELECT count(*) FROM lft_table_blocks) +"
		 " (SELECT count(*) FROM routing_sets) + (SELECT count(*) FROM routing_set_switches)'", db);
	FILE *p = popen(cmd, "r");
	if (p && fscanf(p, "%lld", &v) != 1)
		v = -1;
	if (p)
		pclose(p);
	return v;
}

static off_t file_size(const char *p)
{
	struct stat sb;

	return stat(p, &sb) ? 0 : sb.st_size;
}

static unsigned lmc; /* --lmc */
static bool counters; /* --counters */

/* --counters: every cabled port Active with two samples 10 s apart; every
 * 100th of them with errors that the detail counters explain. */
static void add_counters(struct fab_snapshot *s)
{
	size_t k = 0, erroring = 0, n = s->n_ports;

	for (size_t i = 0; i < n; i++) {
		struct fab_port *p = &s->ports[i];
		if (!p->port_num || p->remote_idx == FAB_NONE)
			continue;
		p->state = FAB_STATE_ACTIVE;
		p->phys_state = FAB_PHYS_LINKUP;
		struct fab_counter_sample *a = fabfix_sample(s, i, 0, 1772359200000LL + 3600000LL);
		struct fab_counter_sample *b = fabfix_sample(s, i, 1, 1772359210000LL + 3600000LL);
		if (!a || !b || ++k % 100)
			continue;
		erroring++;
		b->v[FAB_CTR_SYMBOL_ERRORS] = 7;
		if (erroring % 2) {
			b->v[FAB_CTR_RCV_ERRORS] = 50;
			b->valid |= fab_counter_details_of(FAB_CTR_RCV_ERRORS);
			b->v[FAB_CTR_DLID_MAPPING_ERRORS] = 45;
			b->v[FAB_CTR_LOCAL_PHYSICAL_ERRORS] = 5;
		} else {
			b->v[FAB_CTR_XMIT_DISCARDS] = 500;
			b->v[FAB_CTR_XMIT_WAIT] = 90000;
			b->valid |= fab_counter_details_of(FAB_CTR_XMIT_DISCARDS);
			b->v[FAB_CTR_SW_HOQ_LIFETIME_LIMIT_DISCARDS] = 500;
			b->vl_valid = 0xffff;
			b->vl_xmit_wait[1] = 9000;
		}
	}
	printf("counters: %zu ports with two samples, %zu with errors explained by details\n", k,
	       erroring);
}

/* The SL2VL tables the per-lane analysis wants, as ibsim makes them, when
 * lanes; prints how many. 0 or 1. */
static int add_lanes(struct fab_snapshot *s, bool lanes)
{
	struct fab_route_index ix;
	struct fab_sl2vl_want *w = NULL;
	size_t n = 0;
	double t0 = now_s(), c0 = (double)clock() / CLOCKS_PER_SEC;

	if (fab_route_index_build(s, &ix) || fab_sl2vl_wanted(&ix, SIZE_MAX, &w, &n))
		return 1;
	fab_route_index_free(&ix);
	printf("sl2vl: a scan reads %zu tables (MADs) for the per-lane analysis (%.3f s wall, %.3f s CPU to decide)%s\n",
	       n, now_s() - t0, (double)clock() / CLOCKS_PER_SEC - c0,
	       lanes ? "; the snapshot gets them (SL s on VL s)" : "");
	for (size_t i = 0; lanes && i < n; i++) {
		struct fab_sl2vl *t = fab_routing_add_sl2vl(s->routing);
		if (!t)
			return 1;
		*t = (struct fab_sl2vl){ .node_idx = w[i].node_idx, .in = w[i].in, .out = w[i].out };
		for (unsigned sl = 0; sl < FAB_N_SL; sl++)
			t->vl[sl] = (uint8_t)(sl < 15 ? sl : 7);
	}
	fab_routing_sort_sl2vl(s->routing);
	free(w);
	return 0;
}

/* What a scan that saw a QoS policy reads (--qos): every cabled port's
 * tables, SL n and n + 8 on VL n, ibsim's arbitration tables, VL0-7. */
static int add_qos(struct fab_snapshot *s)
{
	struct fab_qos *k = fab_snapshot_qos(s);
	size_t tables = 0;

	if (!k)
		return 1;
	k->reason = FAB_QOS_POLICY;
	for (size_t i = 0; i < s->n_ports; i++) {
		struct fab_port *p = &s->ports[i];
		if (!p->port_num || p->remote_idx == FAB_NONE)
			continue;
		p->op_vls = p->vl_cap = 4;
		struct fab_vlarb *v = fab_qos_add_vlarb(k);
		if (!v)
			return 1;
		v->port_idx = (uint32_t)i;
		v->n_high = v->n_low = 8;
		for (unsigned e = 0; e < 8; e++) {
			v->high[e] = (struct fab_vlarb_entry){ (uint8_t)e, (uint8_t)(e ? 0 : 4) };
			v->low[e] = (struct fab_vlarb_entry){ (uint8_t)e, (uint8_t)(e ? 4 : 0) };
		}
	}
	for (size_t n = 0; n < s->n_nodes; n++) {
		const struct fab_node *nd = &s->nodes[n];
		bool sw = nd->type == FAB_NODE_SWITCH;
		/* a switch: every in-port (0 or cabled) to every other cabled
		 * port; a CA: its cabled ports' own tables (in 0) */
		for (uint32_t a = 0; a < (sw ? nd->port_count : 1); a++) {
			const struct fab_port *in = sw ? &s->ports[nd->port_first + a] : NULL;
			unsigned in_num = in ? in->port_num : 0;
			if (in && in_num && in->remote_idx == FAB_NONE)
				continue;
			for (uint32_t b = 0; b < nd->port_count; b++) {
				const struct fab_port *out = &s->ports[nd->port_first + b];
				if (!out->port_num || out->remote_idx == FAB_NONE || out == in ||
				    fab_routing_sl2vl(s->routing, (uint32_t)n, in_num, out->port_num))
					continue;
				struct fab_sl2vl *t = fab_routing_add_sl2vl(s->routing);
				if (!t)
					return 1;
				*t = (struct fab_sl2vl){ .node_idx = (uint32_t)n, .in = (uint8_t)in_num,
							 .out = out->port_num };
				for (unsigned sl = 0; sl < FAB_N_SL; sl++)
					t->vl[sl] = (uint8_t)(sl % 8);
				tables++;
			}
		}
	}
	fab_routing_sort_sl2vl(s->routing);
	fab_qos_sort(k);
	printf("qos: %zu SL2VL tables more, %zu ports' VLArbitration tables (a QoS policy's scan)\n",
	       tables, k->n_vlarb);
	return 0;
}

static int build(const char *topo, const char *db, char *src, char *dst, size_t len, bool lanes,
		 bool qos)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_store *st;
	double t0 = now_s();

	if (!s || fab_topo_import_file(topo, s)) {
		fprintf(stderr, "bench_routing: %s\n", fab_errmsg());
		return 1;
	}
	fab_topology_assign_roles(s);
	if (lmc)
		fabfix_lmc(s, lmc);
	if (fabfix_route_minhop(s) || fab_snapshot_index(s)) {
		fprintf(stderr, "bench_routing: out of memory\n");
		return 1;
	}
	if (add_lanes(s, lanes) || (qos && add_qos(s))) {
		fprintf(stderr, "bench_routing: out of memory\n");
		return 1;
	}
	if (counters) {
		add_counters(s);
		if (fab_snapshot_index(s)) {
			fprintf(stderr, "bench_routing: out of memory\n");
			return 1;
		}
	}
	size_t n_sw = s->routing->n_lfts, bytes = 0;
	for (size_t i = 0; i < n_sw; i++)
		bytes += (size_t)s->routing->lfts[i].n_blocks * FAB_LFT_BLOCK;
	/* the hosts: the first and the last CA port with a LID, by LID
	 * (src, dst: views seeded with their nodes) and by description (src + 2 *
	 * len, dst + 2 * len: only the path is read) */
	src[0] = dst[0] = 0;
	fab_snapshot_name_nodes(s); /* by name: the node's (with its digits where shared) */
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].type == FAB_NODE_CA && s->nodes[i].lid) {
			char *to = src[0] ? dst : src, nb[FAB_NODE_NAME_CAP];
			snprintf(to, len, "%u", s->nodes[i].lid);
			snprintf(to + 2 * len, DESC, "%s", fab_node_name(s, (uint32_t)i, NULL, nb, sizeof(nb)));
		}
	printf("fabric: %s: %zu nodes, %zu ports, %zu switches, %zu bytes of tables (min-hop, %.2f s)\n",
	       topo, s->n_nodes, s->n_ports, n_sw, bytes, now_s() - t0);
	unlink(db);
	if (fab_store_open(db, FAB_STORE_WRITE, &st)) {
		fprintf(stderr, "bench_routing: %s\n", fab_errmsg());
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		off_t before = file_size(db);
		double w0 = now_s();
		s->scan_id = 0;
		s->started_at_ms = 1772359200000LL + k * 3600000LL;
		if (fab_store_write_scan(st, s)) {
			fprintf(stderr, "bench_routing: %s\n", fab_errmsg());
			return 1;
		}
		printf("store: write %d: %.2f s, database %lld -> %lld bytes, table rows %lld\n", k + 1,
		       now_s() - w0, (long long)before, (long long)file_size(db), table_rows(db));
	}
	fab_store_close(st);
	fab_snapshot_free(s);
	return 0;
}

static int measure(const char *db, const char *src, const char *dst)
{
	struct fab_store *st;
	struct fab_snapshot *snap;
	struct fab_rules_result res;
	struct rusage ru;
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);
	double routing_s = 0, best_ms = 1e9, best_cpu_ms = 1e9;
	int bad = 0;
	double l0 = now_s(), lc0 = (double)clock() / CLOCKS_PER_SEC;

	if (fab_store_open(db, FAB_STORE_READONLY, &st) || fab_store_load_scan(st, 2, &snap)) {
		fprintf(stderr, "bench_routing: %s\n", fab_errmsg());
		return 1;
	}
	fab_store_close(st);
	double c0 = (double)clock() / CLOCKS_PER_SEC, w0 = now_s();
	if (fab_rules_run(NULL, snap, NULL, 0, &res)) {
		fprintf(stderr, "bench_routing: %s\n", fab_errmsg());
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (t[i].category == FAB_CAT_ROUTING) {
			printf("rule %-20s %.3f s, %u findings\n", t[i].id, res.seconds[i],
			       res.n_findings[i]);
			routing_s += res.seconds[i];
		}
	printf("all rules: %.3f s wall, %.3f s CPU\n", now_s() - w0,
	       (double)clock() / CLOCKS_PER_SEC - c0);
	if (counters) {
		double cw = now_s() - l0, cc = (double)clock() / CLOCKS_PER_SEC - lc0;
		size_t nf = 0;
		for (size_t i = 0; i < n; i++)
			nf += res.n_findings[i];
		printf("check (load + every rule): %.3f s wall, %.3f s CPU (target %.1f s), %zu findings\n",
		       cw, cc, CHECK_S, nf);
		bad |= cw > CHECK_S && cc > CHECK_S;
	}
	getrusage(RUSAGE_SELF, &ru);
	double mb = ru.ru_maxrss / 1024.0;
	printf("routing rules: %.3f s wall (target %.1f s), peak memory of the process %.0f MB (target %.0f MB)\n",
	       routing_s, RULES_S, mb, RULES_MB);
	/* wall time on a shared machine: judge by CPU time when the load
	 * makes wall time longer (every rule's CPU is within the run's) */
	double cpu_all = (double)clock() / CLOCKS_PER_SEC - c0;
	bad |= (routing_s > RULES_S && cpu_all > RULES_S) || mb > RULES_MB;
	for (size_t i = 0; i < n; i++)
		if (!strncmp(t[i].id, "vl.", 3))
			printf("rule %-20s %.3f s, %u findings\n", t[i].id, res.seconds[i], res.n_findings[i]);
	fab_snapshot_free(snap);
	/* `fabsweep check`: the load, every rule, the findings stored; best of 3 */
	double check_s = 1e9, check_cpu = 1e9;
	for (int k = 0; k < 3; k++) {
		struct fab_pipeline_check job = { .db = db, .scan_id = 2,
						  .node_name_map = "", .fail_on = FAB_FAIL_NEVER };
		struct fab_pipeline_check_result *r = NULL;
		double k0 = now_s(), kc0 = (double)clock() / CLOCKS_PER_SEC;
		if (fab_pipeline_check(&job, &r)) {
			fprintf(stderr, "bench_routing: %s\n", fab_errmsg());
			return 1;
		}
		fab_pipeline_check_free(r);
		if (now_s() - k0 < check_s)
			check_s = now_s() - k0;
		if ((double)clock() / CLOCKS_PER_SEC - kc0 < check_cpu)
			check_cpu = (double)clock() / CLOCKS_PER_SEC - kc0;
	}
	printf("check (load, every rule, store the findings): %.3f s wall, %.3f s CPU, best of 3\n", check_s,
	       check_cpu);
	for (int by_name = 1; by_name >= 0; by_name--) {
		const char *a = by_name ? src + 2 * NAME : src, *b = by_name ? dst + 2 * NAME : dst;
		best_ms = best_cpu_ms = 1e9;
		for (int k = 0; k < 5; k++) {
			struct fab_pipeline_route job = { .db = db, .src = a, .dst = b };
			struct fab_pipeline_route_result r;
			double r0 = now_s(), rc0 = (double)clock() / CLOCKS_PER_SEC;
			if (fab_pipeline_route(&job, &r)) {
				fprintf(stderr, "bench_routing: %s\n", fab_errmsg());
				return 1;
			}
			double ms = (now_s() - r0) * 1000;
			double cpu_ms = ((double)clock() / CLOCKS_PER_SEC - rc0) * 1000;
			if (ms < best_ms)
				best_ms = ms;
			if (cpu_ms < best_cpu_ms)
				best_cpu_ms = cpu_ms;
			if (!k)
				printf("route '%s' -> '%s': %zu links, %s, %zu of the scan's nodes read\n", a, b,
				       r.path.n_hops, fab_route_fault_name(r.path.fault), r.snap->n_nodes);
			fab_pipeline_route_free(&r);
		}
		printf("route by %s (the path's views): %.1f ms wall, %.1f ms CPU, best of 5 (target %.0f ms)\n",
		       by_name ? "names" : "LIDs", best_ms, best_cpu_ms, ROUTE_MS);
		if (by_name)
			bad |= best_ms > ROUTE_MS && best_cpu_ms > ROUTE_MS;
	}
	return bad;
}

int main(int argc, char **argv)
{
	char db[512] = "", src[2 * NAME + DESC], dst[2 * NAME + DESC];
	bool keep = false, lanes = false, qos = false;
	const char *topo = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			snprintf(db, sizeof(db), "%s", argv[++i]);
		else if (!strcmp(argv[i], "--keep"))
			keep = true;
		else if (!strcmp(argv[i], "--lmc") && i + 1 < argc && argv[i + 1][0] >= '0' &&
			 argv[i + 1][0] <= '3' && !argv[i + 1][1])
			lmc = (unsigned)(argv[++i][0] - '0');
		else if (!strcmp(argv[i], "--counters"))
			counters = true;
		else if (!strcmp(argv[i], "--lanes"))
			lanes = true;
		else if (!strcmp(argv[i], "--qos"))
			qos = true;
		else if (argv[i][0] != '-' && !topo)
			topo = argv[i];
		else {
			fprintf(stderr, "usage: bench_routing TOPOLOGY_FILE [--db FILE] [--keep] [--lmc 0-3] [--lanes] [--counters] [--qos]\n");
			return 2;
		}
	}
	if (!topo) {
		fprintf(stderr, "usage: bench_routing TOPOLOGY_FILE [--db FILE] [--keep] [--lmc 0-3] [--lanes] [--counters] [--qos]\n");
		return 2;
	}
	if (!db[0])
		fabfix_path(db, sizeof(db), "bench_routing", ".db");
	if (build(topo, db, src, dst, NAME, lanes, qos))
		return 1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int rc = measure(db, src, dst);
		fflush(stdout);
		_exit(rc);
	}
	int status = 1;
	waitpid(pid, &status, 0);
	if (!keep)
		fabfix_unlink_db(db);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
