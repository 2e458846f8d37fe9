// SPDX-License-Identifier: MIT
/*
 * The rules on real fabrics' topology files (fixtures/real/ibnetdiscover/,
 * provenance in fixtures/real/README.md), imported with the ibnetdiscover
 * importer and passed through the store as `fabsweep check` sees them.
 * The first tests' numbers are derived from the files with grep, as each test
 * says, not from the code under test. Then every file against its expected
 * findings (fixtures/real/expected/), reviewed by hand: the verdicts are in
 * their comments and in docs/real-fabrics.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/topo.h"
#include "fabfix/fabfix.h"
#include "unit/rules/realtopo.h"

static char dbpath[512], confpath[512];

static int teardown(void **state)
{
	fabfix_unlink_db(dbpath);
	unlink(confpath);
	return 0;
}

/* Imports fixtures/real/ibnetdiscover/NAME, stores it, loads it back. */
static struct fab_snapshot *load_real(const char *name)
{
	const char *fx = getenv("FIXTURES"), *tmp = getenv("TMPDIR");
	char path[1200];
	struct fab_snapshot *s = fab_snapshot_new(), *back;
	struct fab_store *st;

	snprintf(path, sizeof(path), "%s/real/ibnetdiscover/%s", fx ? fx : "fixtures", name);
	snprintf(dbpath, sizeof(dbpath), "%s/test_real_%d.db", tmp ? tmp : "/tmp", (int)getpid());
	snprintf(confpath, sizeof(confpath), "%s/test_real_%d.conf", tmp ? tmp : "/tmp", (int)getpid());
	if (fab_topo_import_file(path, s))
		fail_msg("import %s: %s", path, fab_errmsg());
	unlink(dbpath);
	assert_int_equal(fab_store_open(dbpath, FAB_STORE_WRITE, &st), 0);
	assert_int_equal(fab_store_write_scan(st, s), 0);
	assert_int_equal(fab_store_load_scan(st, 0, &back), 0);
	fab_store_close(st);
	fab_snapshot_free(s);
	return back;
}

static struct fab_config *config(const char *text)
{
	struct fab_config *cfg;
	FILE *f = fopen(confpath, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	if (fab_config_load(confpath, &cfg))
		fail_msg("%s", fab_errmsg());
	return cfg;
}

static size_t count(const struct fab_snapshot *s, const char *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_findings; i++)
		n += !strcmp(s->findings[i].rule_id, rule);
	return n;
}

/* Whether a finding of rule names (guid, port) as one end of it. */
static bool names(const struct fab_snapshot *s, const char *rule, const char *guid,
		  const char *port)
{
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *f = &s->findings[i];
		if (strcmp(f->rule_id, rule))
			continue;
		if ((f->node && !strcmp(f->node, guid) && (!port || (f->port && !strcmp(f->port, port)))) ||
		    (f->peer_node && !strcmp(f->peer_node, guid) &&
		     (!port || (f->peer_port && !strcmp(f->peer_port, port)))))
			return true;
	}
	return false;
}

static void dump(const struct fab_snapshot *s, const char *rule)
{
	for (size_t i = 0; i < s->n_findings; i++)
		if (!rule || !strcmp(s->findings[i].rule_id, rule))
			fprintf(stderr, "  %s %s %s: %s\n", s->findings[i].rule_id, s->findings[i].node,
				s->findings[i].subject, s->findings[i].message);
}

/*
 * Topo.3: 60 Quantum (HDR) switches and two HCAs, both at 4xSDR
 * (grep -n 4xSDR: lines 1021 and 1956, "fit101 HCA-1" and "fit26 HCA-3").
 * With only two host links both SDR, the host-leaf majority is SDR itself:
 * the defect shows once the fabric's speed is stated.
 */
static void test_topo3_sdr_hosts(void **state)
{
	struct fab_snapshot *s = load_real("hyungkwang_Topo.3.txt");
	struct fab_rules_result res;

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, &res), 0);
	assert_int_equal(count(s, "link.speed_degraded"), 0);
	/* the file has no SMInfo and no counters: those rules are skipped */
	assert_int_equal(res.status[fab_rule_index(fab_rule_find("sm.none"))], FAB_RULE_SKIPPED);
	assert_int_equal(res.status[fab_rule_index(fab_rule_find("port.errors"))], FAB_RULE_SKIPPED);
	/* "S-98039b030087668e" ... "base port 0 lid 0" (grep -n '^Switch.*lid 0 ', line 1909) */
	assert_int_equal(count(s, "lid.unassigned"), 1);
	assert_true(names(s, "lid.unassigned", "0x98039b030087668e", "0"));

	struct fab_config *cfg = config("[expect]\nspeed.host-leaf = HDR\n");
	assert_int_equal(fab_rules_run(cfg, s, NULL, 0, &res), 0);
	dump(s, "link.speed_degraded");
	assert_int_equal(count(s, "link.speed_degraded"), 2);
	assert_true(names(s, "link.speed_degraded", "0x98039b030067261c", "1"));
	assert_true(names(s, "link.speed_degraded", "0x98039b0300672824", "1"));
	for (size_t i = 0; i < s->n_findings; i++)
		if (!strcmp(s->findings[i].rule_id, "link.speed_degraded"))
			assert_non_null(strstr(s->findings[i].evidence,
					       "active=SDR; tier=host-leaf; tier_expected=HDR; tier_source=config"));
	fab_config_free(cfg);
	fab_snapshot_free(s);
}

/*
 * Six SwitchIB switches, all links 4xEDR but one inter-switch link at 4xDDR,
 * reported by both ends (grep -n DDR: line 61 in the block of
 * S-ec0d9a0300ec8480 port 11, line 143 in S-ec0d9a0300ec8200 port 11).
 */
static void test_ddr_isl(void **state)
{
	struct fab_snapshot *s = load_real("switchib_edr_6switch_ddr_isl.txt");
	struct fab_rules_result res;

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, &res), 0);
	dump(s, NULL);
	assert_int_equal(count(s, "link.speed_degraded"), 1);
	assert_true(names(s, "link.speed_degraded", "0xec0d9a0300ec8480", "11"));
	assert_true(names(s, "link.speed_degraded", "0xec0d9a0300ec8200", "11"));
	for (size_t i = 0; i < s->n_findings; i++)
		if (!strcmp(s->findings[i].rule_id, "link.speed_degraded")) {
			assert_string_equal(s->findings[i].message,
					    "link runs at speed DDR; most leaf-spine links run EDR");
			assert_int_equal(s->findings[i].severity, 2);
		}
	assert_int_equal(count(s, "link.width_degraded"), 0);
	/* nothing else at error */
	assert_int_equal(res.by_severity[2], 1);
	fab_snapshot_free(s);
}

/*
 * The 2007 Voltaire fabric of `man ibnetdiscover`: two link ends report 1xSDR
 * (grep -c 1xSDR = 2): SW-6IB4 port 1 towards ISR9024 port 10 (line 26), and
 * the HCA 0x0008f10403960558 port 1 towards ISR9024 port 12 (line 52); every
 * other end reports 4xSDR.
 */
static void test_1x_links(void **state)
{
	struct fab_snapshot *s = load_real("jabl_1.topo");
	struct fab_rules_result res;

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, &res), 0);
	dump(s, NULL);
	assert_int_equal(count(s, "link.width_degraded"), 2);
	assert_true(names(s, "link.width_degraded", "0x0008f10400410015", "1"));
	assert_true(names(s, "link.width_degraded", "0x005442ba00003080", "10"));
	assert_true(names(s, "link.width_degraded", "0x0008f10403960558", "1"));
	assert_true(names(s, "link.width_degraded", "0x005442ba00003080", "12"));
	assert_int_equal(count(s, "link.speed_degraded"), 0);
	fab_snapshot_free(s);
}

/* ---- every real topology against its reviewed findings ---------------------------- */

/*
 * fixtures/real/expected/<file>.expected: every finding `check` makes on the
 * imported file, with its evidence, and every rule it skips, reviewed by hand
 * (the verdicts are in its comments and in docs/real-fabrics.md). Lines are
 * compared as sets; then the evidence against the file (check_evidence()).
 */
static const char *const fabrics[] = {
	"selene.compute.txt",
	"selene.storage.txt",
	"ufm_director.txt",
	"ufm_small_topo_file",
	"hyungkwang_Topo.3.txt",
	"hyungkwang_Topo.5.txt",
	"hyungkwang_Topo6_CS7500.txt",
	"hyungkwang_Topo.6_CS8500.txt",
	"switchib_edr_6switch_ddr_isl.txt",
	"loginoff_sx6036.ibnetdiscover",
	"psmn_X5.topofile",
	"sequoia_ndr.ibdiagnet2.ibnetdiscover",
	"jabl_1.topo",
	"jabl_2.topo",
	"jabl_3.topo",
	"jabl_4.topo",
	"infiniscale_iv_qdr_5host.txt",
};

#define D(x) ((x) ? (x) : "-")

static int cmp_line(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void push(char ***v, size_t *n, size_t *cap, char *line)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = realloc(*v, *cap * sizeof(**v));
		assert_non_null(*v);
	}
	(*v)[(*n)++] = line;
}

/* The lines of an expected file, comments and blank lines aside; its
 * "in-no-pattern GUID" lines (switches the review finds cabled unlike
 * anything else) go to *atyp instead. */
static char **read_expected(const char *path, size_t *n, uint64_t **atyp, size_t *n_atyp)
{
	FILE *f = fopen(path, "r");
	char buf[4096], **v = NULL;
	size_t cap = 0;

	if (!f)
		fail_msg("cannot open %s", path);
	*n = *n_atyp = 0;
	*atyp = NULL;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (!strncmp(buf, "in-no-pattern ", 14)) {
			*atyp = realloc(*atyp, (*n_atyp + 1) * sizeof(**atyp));
			assert_non_null(*atyp);
			(*atyp)[(*n_atyp)++] = strtoull(buf + 14, NULL, 16);
		} else if (buf[0] && buf[0] != '#') {
			push(&v, n, &cap, strdup(buf));
		}
	}
	fclose(f);
	return v;
}

/* What the run did, in the same lines. */
static char **actual(const struct fab_snapshot *s, const struct fab_rules_result *res, size_t *n)
{
	size_t nr, cap = 0;
	const struct fab_rule *t = fab_rules_table(&nr);
	char **v = NULL, *line;

	*n = 0;
	for (size_t i = 0; i < nr; i++)
		if (res->status[i] == FAB_RULE_SKIPPED) {
			assert_true(asprintf(&line, "skipped %s", t[i].id) > 0);
			push(&v, n, &cap, line);
		}
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *f = &s->findings[i];
		assert_true(asprintf(&line, "%s | %s | %s | %s | %s | %s | %s | %s", f->rule_id,
				     fab_severity_name(f->severity), D(f->node), D(f->port),
				     D(f->peer_node), D(f->peer_port), f->message,
				     D(f->evidence)) > 0);
		push(&v, n, &cap, line);
	}
	return v;
}

/* ---- the evidence against the topology file -------------------------------------- */

/*
 * Where a finding's evidence names a group, a majority or a count of
 * nodes, it is checked against the topology file itself, read by
 * realtopo.h (not the importer), with the roles the import gave the nodes:
 *   - topology.asymmetric: the switch named as its group (group=) plays the
 *     same part and has, to each neighbour listed in short_of, as many
 *     cables as the file shows (and the flagged switch as few); every
 *     neighbour the group's switch has more cables to is listed; the links
 *     to each role (links_to_*) are the file's, and the group's (expected_to_*)
 *     those of the group's switch; the group's size (peers) is the number of
 *     switches cabled exactly like the group's switch, plus the damaged ones
 *     reported as its members. Switches the review finds "in no pattern"
 *     (in-no-pattern lines of the expected file) count for no group;
 *   - link.width_degraded, link.speed_degraded: the links of the tier
 *     (tier_links) and what most of them run (tier_expected);
 *   - nodedesc.duplicate: the nodes with the description (owners=).
 */
struct nb {
	uint64_t guid;
	unsigned links;
};

struct ev_ctx {
	const struct fab_snapshot *s;
	const struct rt_file *f;
	struct nb **key; /* per node of the file: what a switch is grouped by (key_of()) */
	size_t *nkey;
	size_t bad;
};

static void ev_bad(struct ev_ctx *c, const struct fab_finding *fd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ev_bad(struct ev_ctx *c, const struct fab_finding *fd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print_message("%s %s: %s (evidence: %s)\n", fd->rule_id, D(fd->node), msg, D(fd->evidence));
	c->bad++;
}

/* The value of key in "k=v; k2=v2", into buf; false when absent. */
static bool ev_get(const char *ev, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = ev; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			const char *v = p + kl + 1, *end = strstr(v, "; ");
			snprintf(buf, len, "%.*s", (int)(end ? (size_t)(end - v) : strlen(v)), v);
			return true;
		}
		if ((p = strstr(p, "; ")))
			p += 2;
	}
	return false;
}

static long ev_num(const char *ev, const char *key)
{
	char v[64];

	return ev_get(ev, key, v, sizeof(v)) ? strtol(v, NULL, 10) : -1;
}

static int role_by_name(const char *name)
{
	for (unsigned r = 0; r < FAB_ROLE__COUNT; r++)
		if (!strcmp(fab_role_name(r), name))
			return (int)r;
	return -1;
}

static const char *const role_plural[FAB_ROLE__COUNT] = {
	[FAB_ROLE_LEAF] = "leaves", [FAB_ROLE_SPINE] = "spines", [FAB_ROLE_CORE] = "cores"
};

/* A switch's links to typical switches of role q (not itself). */
static unsigned links_to(const struct rt_file *f, const struct rt_node *x, unsigned q)
{
	unsigned c = 0;

	for (size_t k = 0; k < x->n; k++) {
		const struct rt_port *p = &f->ports[x->first + k];
		const struct rt_node *r = p->peer_type == 'S' && p->peer != x->guid ? rt_find(f, p->peer) : NULL;
		c += r && r->role == q && !r->atypical;
	}
	return c;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* What a switch is grouped by: its cables to each switch of role kr (the
 * atypical ones aside when looking down), by GUID, into out (x->n room). */
static size_t key_of(const struct rt_file *f, const struct rt_node *x, unsigned kr, bool down,
		     struct nb *out)
{
	uint64_t *g = malloc((x->n + 1) * sizeof(*g));
	size_t m = 0, n = 0;

	assert_non_null(g);
	for (size_t k = 0; k < x->n; k++) {
		const struct rt_port *p = &f->ports[x->first + k];
		const struct rt_node *r = p->peer_type == 'S' && p->peer != x->guid ? rt_find(f, p->peer) : NULL;
		if (r && r->role == kr && !(down && r->atypical))
			g[m++] = p->peer;
	}
	qsort(g, m, sizeof(*g), cmp_u64);
	for (size_t a = 0; a < m; a++) {
		if (n && out[n - 1].guid == g[a])
			out[n - 1].links++;
		else
			out[n++] = (struct nb){ .guid = g[a], .links = 1 };
	}
	free(g);
	return n;
}

static bool same_key(const struct nb *a, size_t na, const struct nb *b, size_t nb_)
{
	if (na != nb_)
		return false;
	for (size_t k = 0; k < na; k++)
		if (a[k].guid != b[k].guid || a[k].links != b[k].links)
			return false;
	return true;
}

/* The topology.asymmetric finding of node GUID g, or NULL. */
static const struct fab_finding *asym_of(const struct fab_snapshot *s, uint64_t g)
{
	for (size_t i = 0; i < s->n_findings; i++)
		if (!strcmp(s->findings[i].rule_id, "topology.asymmetric") && s->findings[i].node &&
		    strtoull(s->findings[i].node, NULL, 16) == g)
			return &s->findings[i];
	return NULL;
}

static void check_asymmetric(struct ev_ctx *c, const struct fab_finding *fd)
{
	const struct rt_file *f = c->f;
	const char *ev = D(fd->evidence);
	char v[4096], by[32];
	int r;

	if (!ev_get(ev, "role", v, sizeof(v)) || (r = role_by_name(v)) < FAB_ROLE_LEAF ||
	    !ev_get(ev, "group", v, sizeof(v))) {
		ev_bad(c, fd, "no role or group");
		return;
	}
	const struct rt_node *x = rt_find(f, strtoull(fd->node, NULL, 16));
	const struct rt_node *g = rt_find(f, strtoull(v, NULL, 16));
	if (!x || !g || x->type != 'S' || g->type != 'S' || x->role != (unsigned)r ||
	    g->role != (unsigned)r) {
		ev_bad(c, fd, "the switch or its group's switch (%s) is not a %s in the file", v,
		       fab_role_name((unsigned)r));
		return;
	}
	/* a leaf is grouped by its spines, a spine by its leaves, a core by its spines */
	unsigned kr = r == FAB_ROLE_SPINE ? FAB_ROLE_LEAF : FAB_ROLE_SPINE;
	if (!ev_get(ev, "group_by", by, sizeof(by)) || strcmp(by, role_plural[kr]))
		ev_bad(c, fd, "group_by is not %s", role_plural[kr]);

	/* short_of: GUID:have/want, the file's cables from the switch and from its group's */
	const struct nb *kg = c->key[g - f->nodes];
	size_t nkg = c->nkey[g - f->nodes], listed = 0, owed = 0;
	if (ev_get(ev, "short_of", v, sizeof(v))) {
		for (char *e = v, *next; e && *e; e = next) {
			unsigned have, want;
			uint64_t n = strtoull(e, &next, 16);
			const struct rt_node *rn = rt_find(f, n);
			if (sscanf(next, ":%u/%u", &have, &want) != 2)
				ev_bad(c, fd, "short_of entry '%s' unreadable", e);
			else if (!rn || rn->role != kr || rt_cables(f, x, n) != have ||
				 rt_cables(f, g, n) != want)
				ev_bad(c, fd, "short_of 0x%016llx:%u/%u: the file has %u and %u cables",
				       (unsigned long long)n, have, want, rt_cables(f, x, n),
				       rn ? rt_cables(f, g, n) : 0);
			listed++;
			next = strchr(next, ',');
			next = next ? next + 1 : NULL;
		}
	}
	for (size_t k = 0; k < nkg; k++)
		owed += kg[k].links > rt_cables(f, x, kg[k].guid);
	if (owed != listed)
		ev_bad(c, fd, "its group's switch has more cables than it to %zu %s, short_of lists %zu",
		       owed, role_plural[kr], listed);

	/* links to each role: the file's; the group's: its switch's (or, when
	 * that switch is reported too, what its own finding expects) */
	for (unsigned q = FAB_ROLE_LEAF; q <= FAB_ROLE_CORE; q++) {
		char k1[32], k2[32];
		snprintf(k1, sizeof(k1), "links_to_%s", fab_role_name(q));
		snprintf(k2, sizeof(k2), "expected_to_%s", fab_role_name(q));
		long have = ev_num(ev, k1), want = ev_num(ev, k2), gw;
		if (have < 0)
			continue;
		const struct fab_finding *gf = asym_of(c->s, g->guid);
		gw = gf && ev_num(D(gf->evidence), k1) >= 0 ? ev_num(D(gf->evidence), k2)
							     : (long)links_to(f, g, q);
		if (have != (long)links_to(f, x, q) || want != gw)
			ev_bad(c, fd, "%s=%ld %s=%ld: the file has %u and %ld", k1, have, k2, want,
			       links_to(f, x, q), gw);
	}

	/* peers: the switches cabled exactly like the group's, and the damaged
	 * members reported with it */
	size_t peers = 0;
	for (size_t i = 0; i < f->n_nodes; i++)
		peers += f->nodes[i].type == 'S' && f->nodes[i].role == (unsigned)r &&
			 same_key(kg, nkg, c->key[i], c->nkey[i]);
	for (size_t i = 0; i < c->s->n_findings; i++) {
		const struct fab_finding *o = &c->s->findings[i];
		const struct rt_node *y;
		if (strcmp(o->rule_id, "topology.asymmetric") || !ev_get(D(o->evidence), "group", v, sizeof(v)) ||
		    strtoull(v, NULL, 16) != g->guid || !(y = rt_find(f, strtoull(o->node, NULL, 16))))
			continue;
		peers += !same_key(kg, nkg, c->key[y - f->nodes], c->nkey[y - f->nodes]);
	}
	if ((long)peers != ev_num(ev, "peers"))
		ev_bad(c, fd, "peers=%ld: %zu switches are cabled like its group's, or reported with it",
		       ev_num(ev, "peers"), peers);
}

/* Speeds, slowest first (widths rank by their lanes). */
static const char *const speeds[] = { "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR" };

static int speed_rank(const char *sp)
{
	for (size_t k = 0; k < sizeof(speeds) / sizeof(*speeds); k++)
		if (!strcmp(speeds[k], sp))
			return (int)k;
	return -1;
}

static void check_tier(struct ev_ctx *c, const struct fab_finding *fd, bool width)
{
	const struct rt_file *f = c->f;
	const char *ev = D(fd->evidence);
	char tier[64], want[16], src[16], name[64], best[16] = "";
	unsigned tally[16] = { 0 }, total = 0, most = 0;

	if (!ev_get(ev, "tier_source", src, sizeof(src)) || strcmp(src, "majority"))
		return; /* configured: nothing to count */
	if (!ev_get(ev, "tier", tier, sizeof(tier)) || !ev_get(ev, "tier_expected", want, sizeof(want))) {
		ev_bad(c, fd, "no tier or tier_expected");
		return;
	}
	/* every cable once (from the end listed first by GUID and port) */
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct rt_node *a = &f->nodes[i];
		for (size_t k = 0; k < a->n; k++) {
			const struct rt_port *p = &f->ports[a->first + k];
			const struct rt_node *b = rt_find(f, p->peer);
			if (!b || p->peer < a->guid || (p->peer == a->guid && p->peer_port <= p->num))
				continue;
			unsigned lo = a->role < b->role ? a->role : b->role, hi = a->role ^ b->role ^ lo;
			snprintf(name, sizeof(name), "%s-%s", fab_role_name(lo), fab_role_name(hi));
			int v = width ? (int)p->width : speed_rank(p->speed);
			if (strcmp(name, tier) || v < 0 || v >= 16)
				continue;
			total++;
			tally[v]++;
		}
	}
	for (int v = 15; v >= 0; v--) /* a tie goes to the better one */
		if (tally[v] > most) {
			most = tally[v];
			if (width)
				snprintf(best, sizeof(best), "%dX", v);
			else
				snprintf(best, sizeof(best), "%s", speeds[v]);
		}
	if (ev_num(ev, "tier_links") != (long)total || strcmp(want, best))
		ev_bad(c, fd, "the file has %u %s links, most at %s", total, tier, best);
}

static void check_owners(struct ev_ctx *c, const struct fab_finding *fd)
{
	const char *ev = D(fd->evidence);
	char desc[200], guids[1024];
	size_t owners = 0, listed = 0;

	if (!ev_get(ev, "description", desc, sizeof(desc)) || !ev_get(ev, "guids", guids, sizeof(guids))) {
		ev_bad(c, fd, "no description or guids");
		return;
	}
	for (size_t i = 0; i < c->f->n_nodes; i++)
		owners += !strcmp(c->f->nodes[i].desc, desc);
	for (char *g = guids; g; g = strchr(g, ',') ? strchr(g, ',') + 1 : NULL) {
		const struct rt_node *n = rt_find(c->f, strtoull(g, NULL, 16));
		listed++;
		if (!n || strcmp(n->desc, desc))
			ev_bad(c, fd, "%.18s does not have the description in the file", g);
	}
	if (ev_num(ev, "owners") != (long)owners || listed != (owners < 8 ? owners : 8))
		ev_bad(c, fd, "the file has %zu nodes described '%s' (%zu listed)", owners, desc, listed);
}

/* Checks every finding's evidence that the file can answer; how many are wrong. */
static size_t check_evidence(const char *name, const struct fab_snapshot *s, const uint64_t *atyp,
			     size_t n_atyp)
{
	const char *fx = getenv("FIXTURES");
	char path[1200];
	struct rt_file f;
	struct ev_ctx c = { .s = s, .f = &f };

	snprintf(path, sizeof(path), "%s/real/ibnetdiscover/%s", fx ? fx : "fixtures", name);
	if (rt_load(path, &f))
		fail_msg("%s: cannot read it again", path);
	for (size_t i = 0; i < s->n_nodes; i++) {
		struct rt_node *n = rt_find(&f, s->nodes[i].guid);
		if (n)
			n->role = s->nodes[i].role;
	}
	for (size_t k = 0; k < n_atyp; k++) {
		struct rt_node *n = rt_find(&f, atyp[k]);
		if (!n || n->type != 'S')
			fail_msg("%s: in-no-pattern 0x%016llx is no switch of the file", name,
				 (unsigned long long)atyp[k]);
		n->atypical = true;
	}
	/* what each switch is grouped by: a leaf by its spines, a spine by its
	 * leaves, a core by its spines (one level down: the atypical ones aside) */
	c.key = calloc(f.n_nodes + 1, sizeof(*c.key));
	c.nkey = calloc(f.n_nodes + 1, sizeof(*c.nkey));
	assert_true(c.key && c.nkey);
	for (size_t i = 0; i < f.n_nodes; i++) {
		unsigned r = f.nodes[i].role;
		if (f.nodes[i].type != 'S' || r < FAB_ROLE_LEAF || r > FAB_ROLE_CORE)
			continue;
		assert_non_null(c.key[i] = malloc((f.nodes[i].n + 1) * sizeof(**c.key)));
		c.nkey[i] = key_of(&f, &f.nodes[i], r == FAB_ROLE_SPINE ? FAB_ROLE_LEAF : FAB_ROLE_SPINE,
				   r != FAB_ROLE_LEAF, c.key[i]);
	}
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *fd = &s->findings[i];
		if (!strcmp(fd->rule_id, "topology.asymmetric"))
			check_asymmetric(&c, fd);
		else if (!strcmp(fd->rule_id, "link.width_degraded") || !strcmp(fd->rule_id, "link.speed_degraded"))
			check_tier(&c, fd, !strcmp(fd->rule_id, "link.width_degraded"));
		else if (!strcmp(fd->rule_id, "nodedesc.duplicate"))
			check_owners(&c, fd);
	}
	for (size_t i = 0; i < f.n_nodes; i++)
		free(c.key[i]);
	free(c.key);
	free(c.nkey);
	rt_free(&f);
	return c.bad;
}

static void test_fabric(void **state)
{
	const char *name = *state, *fx = getenv("FIXTURES");
	char path[1200], **want, **got;
	size_t n_want, n_got, n_atyp, i = 0, j = 0, bad = 0, bad_ev;
	uint64_t *atyp;
	struct fab_snapshot *s = load_real(name);
	struct fab_rules_result res;

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, &res), 0);
	snprintf(path, sizeof(path), "%s/real/expected/%s.expected", fx ? fx : "fixtures", name);
	want = read_expected(path, &n_want, &atyp, &n_atyp);
	got = actual(s, &res, &n_got);
	qsort(want, n_want, sizeof(*want), cmp_line);
	qsort(got, n_got, sizeof(*got), cmp_line);
	while (i < n_want || j < n_got) {
		int c = i == n_want ? 1 : j == n_got ? -1 : strcmp(want[i], got[j]);
		if (!c) {
			i++;
			j++;
			continue;
		}
		bad++;
		if (c < 0)
			print_message("expected, not found: %s\n", want[i++]);
		else
			print_message("found, not expected: %s\n", got[j++]);
	}
	for (i = 0; i < n_want; i++)
		free(want[i]);
	for (j = 0; j < n_got; j++)
		free(got[j]);
	free(want);
	free(got);
	bad_ev = check_evidence(name, s, atyp, n_atyp);
	free(atyp);
	fab_snapshot_free(s);
	if (bad)
		fail_msg("%s: %zu lines differ from %s", name, bad, path);
	if (bad_ev)
		fail_msg("%s: %zu findings' evidence disagrees with the topology file", name, bad_ev);
}

/*
 * [topology.asymmetric] min_peers on Selene's compute fabric: a group smaller
 * than it is judged by nobody. Its leaves are in groups of 7 (4 in pod 3),
 * its spines of 10, its cores of 14 (the peers= of the reviewed findings):
 * with min_peers 8 only the spines' and cores' findings are left, with 11
 * only the cores', with 15 none; each time exactly the reviewed lines whose
 * group is that large.
 */
static void test_min_peers(void **state)
{
	static const unsigned limits[] = { 8, 11, 15 };
	const char *fx = getenv("FIXTURES");
	char path[1200], text[128], **want, **got;
	size_t n_want, n_got, n_atyp;
	uint64_t *atyp;
	struct fab_snapshot *s = load_real("selene.compute.txt");
	struct fab_rules_result res;

	snprintf(path, sizeof(path), "%s/real/expected/selene.compute.txt.expected", fx ? fx : "fixtures");
	want = read_expected(path, &n_want, &atyp, &n_atyp);
	for (size_t l = 0; l < sizeof(limits) / sizeof(*limits); l++) {
		size_t kept = 0, same = 0, ours = 0;

		snprintf(text, sizeof(text), "[topology.asymmetric]\nmin_peers = %u\n", limits[l]);
		struct fab_config *cfg = config(text);
		assert_int_equal(fab_rules_run(cfg, s, NULL, 0, &res), 0);
		got = actual(s, &res, &n_got);
		for (size_t i = 0; i < n_want; i++) {
			const char *ev = strrchr(want[i], '|');
			if (strncmp(want[i], "topology.asymmetric |", 21) || !ev ||
			    ev_num(ev + 2, "peers") < (long)limits[l])
				continue;
			kept++;
			for (size_t j = 0; j < n_got; j++)
				same += !strcmp(want[i], got[j]);
		}
		for (size_t j = 0; j < n_got; j++) {
			ours += !strncmp(got[j], "topology.asymmetric |", 21);
			free(got[j]);
		}
		free(got);
		fab_config_free(cfg);
		print_message("min_peers %u: %zu reviewed findings of groups that large, %zu found, %zu alike\n",
			      limits[l], kept, ours, same);
		assert_int_equal(same, kept);
		assert_int_equal(ours, kept);
		assert_true(limits[l] > 14 ? kept == 0 : kept > 0);
	}
	for (size_t i = 0; i < n_want; i++)
		free(want[i]);
	free(want);
	free(atyp);
	fab_snapshot_free(s);
}

static bool listed(const char *name)
{
	for (size_t k = 0; k < sizeof(fabrics) / sizeof(*fabrics); k++)
		if (!strcmp(fabrics[k], name))
			return true;
	return false;
}

/* Every topology file held has its expected findings and is tested; every
 * expected file belongs to one. */
static void test_every_fabric_listed(void **state)
{
	const char *fx = getenv("FIXTURES");
	char path[1200];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/real/ibnetdiscover", fx ? fx : "fixtures");
	assert_non_null(d = opendir(path));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (!listed(e->d_name))
			fail_msg("fixtures/real/ibnetdiscover/%s is not in fabrics[]", e->d_name);
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s/real/expected", fx ? fx : "fixtures");
	assert_non_null(d = opendir(path));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		if (len < 10 || strcmp(e->d_name + len - 9, ".expected"))
			fail_msg("fixtures/real/expected/%s: not NAME.expected", e->d_name);
		e->d_name[len - 9] = '\0';
		if (!listed(e->d_name))
			fail_msg("fixtures/real/expected/%s.expected: no such topology", e->d_name);
	}
	closedir(d);
}

int main(void)
{
	struct CMUnitTest tests[5 + sizeof(fabrics) / sizeof(*fabrics)] = {
		cmocka_unit_test_teardown(test_topo3_sdr_hosts, teardown),
		cmocka_unit_test_teardown(test_ddr_isl, teardown),
		cmocka_unit_test_teardown(test_1x_links, teardown),
		cmocka_unit_test_teardown(test_min_peers, teardown),
		cmocka_unit_test(test_every_fabric_listed),
	};
	for (size_t k = 0; k < sizeof(fabrics) / sizeof(*fabrics); k++)
		tests[5 + k] = (struct CMUnitTest){ .name = fabrics[k],
						    .test_func = test_fabric,
						    .teardown_func = teardown,
						    .initial_state = (void *)fabrics[k] };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
