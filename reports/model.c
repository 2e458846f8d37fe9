// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/diff.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pkey.h"
#include "fabsweep/qos.h"
#include "fabsweep/roce.h"
#include "model.h"

static const char *const verdicts[] = {
	[FAB_VERDICT_HEALTHY] = "healthy",
	[FAB_VERDICT_DEGRADED] = "degraded",
	[FAB_VERDICT_FAILING] = "failing",
};
_Static_assert(sizeof(verdicts) / sizeof(verdicts[0]) == FAB_VERDICT__COUNT, "verdicts");

const char *fab_report_verdict_name(unsigned v)
{
	return v < FAB_VERDICT__COUNT ? verdicts[v] : NULL;
}

enum fab_verdict fab_report_verdict(const struct fab_snapshot *snap)
{
	enum fab_verdict v = FAB_VERDICT_HEALTHY;

	for (size_t i = 0; i < snap->n_findings; i++) {
		if (snap->findings[i].severity == FAB_SEV_ERROR)
			return FAB_VERDICT_FAILING;
		if (snap->findings[i].severity == FAB_SEV_WARNING)
			v = FAB_VERDICT_DEGRADED;
	}
	return v;
}

const char *fab_report_node_label(const struct fab_snapshot *snap, uint32_t node,
				  char buf[FAB_NODE_NAME_CAP])
{
	return fab_node_name(snap, node, NULL, buf, FAB_NODE_NAME_CAP);
}

static int strcmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* The node a finding's "node" text names (a GUID), FAB_NONE if none. */
static uint32_t lookup_node(const struct fab_snapshot *s, const char *text)
{
	uint64_t guid;

	if (!text || fab_guid_parse(text, &guid))
		return FAB_NONE;
	return fab_snapshot_find_node(s, guid);
}

/* The port a finding's "port" text names on node, FAB_NONE if none. */
static uint32_t lookup_port(const struct fab_snapshot *s, uint32_t node, const char *text)
{
	char *end;

	if (node == FAB_NONE || !text || !*text)
		return FAB_NONE;
	unsigned long num = strtoul(text, &end, 10);
	if (*end || num > 255)
		return FAB_NONE;
	const struct fab_port *p = fab_snapshot_port(s, node, (unsigned)num);
	return p ? (uint32_t)(p - s->ports) : FAB_NONE;
}

static void mark(uint8_t *m, uint32_t i, unsigned sev)
{
	if (i != FAB_NONE && m[i] < FAB_MARK(sev))
		m[i] = FAB_MARK(sev);
}

struct sort_ctx {
	const struct fab_snapshot *s;
	const uint32_t *rank; /* per finding: rank of its rule */
};

static int cmp_by_rule(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = strcmp0(c->s->findings[x].rule_id, c->s->findings[y].rule_id);

	return r ? r : (x > y) - (x < y);
}

static int cmp_rules(const void *a, const void *b)
{
	const struct fab_report_rule *x = a, *y = b;

	if (x->worst != y->worst)
		return x->worst > y->worst ? -1 : 1;
	return strcmp0(x->id, y->id);
}

static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct fab_finding *fx = &c->s->findings[x], *fy = &c->s->findings[y];

	if (c->rank[x] != c->rank[y])
		return c->rank[x] < c->rank[y] ? -1 : 1;
	if (fx->severity != fy->severity)
		return fx->severity > fy->severity ? -1 : 1;
	int r = strcmp0(fx->subject, fy->subject);
	return r ? r : (x > y) - (x < y);
}

/* Groups findings by rule; fills m->rules and m->order. */
static int group_findings(struct fab_report_model *m)
{
	const struct fab_snapshot *s = m->snap;
	size_t n = s->n_findings;
	uint32_t *rule_of = malloc((n + 1) * sizeof(*rule_of));
	uint32_t *rank = malloc((n + 1) * sizeof(*rank));
	struct sort_ctx ctx = { .s = s, .rank = rank };
	int err = -ENOMEM;

	m->order = malloc((n + 1) * sizeof(*m->order));
	m->rules = calloc(n + 1, sizeof(*m->rules));
	if (!rule_of || !rank || !m->order || !m->rules)
		goto out;
	for (size_t i = 0; i < n; i++)
		m->order[i] = (uint32_t)i;
	qsort_r(m->order, n, sizeof(*m->order), cmp_by_rule, &ctx);
	for (size_t i = 0; i < n; i++) {
		const struct fab_finding *f = &s->findings[m->order[i]];
		unsigned sev = f->severity < FAB_SEV__COUNT ? f->severity : FAB_SEV_ERROR;

		if (!m->n_rules || strcmp0(m->rules[m->n_rules - 1].id, f->rule_id)) {
			m->rules[m->n_rules].id = f->rule_id ? f->rule_id : "";
			m->rules[m->n_rules].first = m->n_rules; /* old position, for rank */
			m->n_rules++;
		}
		struct fab_report_rule *r = &m->rules[m->n_rules - 1];
		r->n[sev]++;
		r->total++;
		if (sev > r->worst)
			r->worst = (uint8_t)sev;
		rule_of[m->order[i]] = (uint32_t)(m->n_rules - 1);
	}
	qsort(m->rules, m->n_rules, sizeof(*m->rules), cmp_rules);
	/* rank of each old rule position, then of each finding */
	uint32_t *pos_rank = malloc((m->n_rules + 1) * sizeof(*pos_rank));
	if (!pos_rank)
		goto out;
	for (size_t i = 0; i < m->n_rules; i++)
		pos_rank[m->rules[i].first] = (uint32_t)i;
	for (size_t i = 0; i < n; i++)
		rank[i] = pos_rank[rule_of[i]];
	free(pos_rank);
	qsort_r(m->order, n, sizeof(*m->order), cmp_order, &ctx);
	for (size_t i = 0, r = 0; i < n && r < m->n_rules; r++) {
		m->rules[r].first = i;
		i += m->rules[r].total;
	}
	err = 0;
out:
	free(rule_of);
	free(rank);
	return err;
}

/*
 * Tiers from the roles the scanner assigned. A snapshot without any role
 * (made before roles existed, or by a tool that does not set them) gets them
 * inferred from the cabling: CAs are hosts, a switch cabled to a host is a
 * leaf, one cabled to a leaf a spine, the rest cores. When roles were
 * assigned, an unknown role stays unknown (an isolated switch, a router, a
 * SHARP aggregation node).
 */
static void assign_tiers(struct fab_report_model *m)
{
	const struct fab_snapshot *s = m->snap;
	bool any_role = false;

	for (size_t i = 0; i < s->n_nodes; i++) {
		m->tier[i] = s->nodes[i].role < FAB_ROLE__COUNT ? s->nodes[i].role : FAB_ROLE_UNKNOWN;
		any_role |= m->tier[i] != FAB_ROLE_UNKNOWN;
	}
	for (size_t i = 0; i < s->n_nodes && !any_role; i++)
		if (s->nodes[i].type == FAB_NODE_CA)
			m->tier[i] = FAB_ROLE_HOST;
	/* pass 1: a switch cabled to a host is a leaf; pass 2: one cabled to a
	 * leaf is a spine; pass 3: the rest are cores */
	for (unsigned pass = 1; pass <= 3 && !any_role; pass++) {
		unsigned want = pass == 1 ? FAB_ROLE_HOST : FAB_ROLE_LEAF;
		unsigned becomes = pass == 1 ? FAB_ROLE_LEAF : pass == 2 ? FAB_ROLE_SPINE : FAB_ROLE_CORE;

		for (size_t i = 0; i < s->n_nodes; i++) {
			const struct fab_node *n = &s->nodes[i];
			bool hit = pass == 3;

			if (m->tier[i] != FAB_ROLE_UNKNOWN)
				continue;
			for (uint32_t p = 0; p < n->port_count && !hit; p++) {
				uint32_t r = s->ports[n->port_first + p].remote_idx;
				hit = r < s->n_ports && m->tier[s->ports[r].node_idx] == want;
			}
			if (hit)
				m->tier[i] = (uint8_t)becomes;
		}
	}
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		m->n_tier[m->tier[i]]++;
		m->n_switches += n->type == FAB_NODE_SWITCH;
		m->leaf_of[i] = FAB_NONE;
		if (m->tier[i] != FAB_ROLE_HOST)
			continue;
		for (uint32_t p = 0; p < n->port_count; p++) {
			uint32_t r = s->ports[n->port_first + p].remote_idx;
			if (r < s->n_ports) {
				uint32_t peer = s->ports[r].node_idx;
				if (m->tier[peer] == FAB_ROLE_LEAF)
					m->leaf_of[i] = peer;
				break;
			}
		}
	}
}

static void top_insert(struct fab_report_model *m, const struct fab_report_top *t)
{
	size_t at = m->n_top;

	if (m->n_top == FAB_REPORT_TOP_COUNTERS) {
		if (t->value <= m->top[m->n_top - 1].value)
			return;
		at = m->n_top - 1;
	} else {
		m->n_top++;
	}
	while (at > 0 && m->top[at - 1].value < t->value) {
		m->top[at] = m->top[at - 1];
		at--;
	}
	m->top[at] = *t;
}

/* The largest error counters, each with its increase over the samples
 * compared (the counter model: the baseline's, else the scan's first). */
static int top_counters(struct fab_report_model *m, const struct fab_snapshot *base)
{
	const struct fab_snapshot *s = m->snap;
	struct fab_counter_pairs pairs;
	uint32_t errors = fab_counter_error_mask();
	int err;

	if ((err = fab_counter_pairs_build(s, base, &pairs)))
		return err;
	m->delta_from_baseline = pairs.baseline && pairs.n_pairs;
	if (pairs.n_pairs) {
		m->ber = malloc((s->n_ports + 1) * sizeof(*m->ber));
		m->ber_at_least = calloc(s->n_ports + 1, 1);
		if (!m->ber || !m->ber_at_least) {
			fab_counter_pairs_free(&pairs);
			return -ENOMEM;
		}
		for (size_t i = 0; i < s->n_ports; i++) {
			const struct fab_port *p = &s->ports[i];
			struct fab_counter_delta d;
			bool al = false;

			m->ber[i] = -1;
			if (fab_counter_pairs_delta(&pairs, (uint32_t)i, 1u << FAB_CTR_SYMBOL_ERRORS, &d) &&
			    fab_counter_ber(&d, p->width_active, p->speed_active, &m->ber[i], &al))
				m->ber_at_least[i] = al;
			else
				m->ber[i] = -1;
		}
	}
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *c = pairs.latest[i];
		struct fab_counter_delta d;
		bool has_delta;

		if (!c)
			continue;
		m->n_sampled_ports++;
		has_delta = fab_counter_pairs_delta(&pairs, (uint32_t)i, errors, &d);
		for (unsigned k = 0; k < FAB_CTR__COUNT; k++) {
			uint32_t bit = 1u << k;

			if (!fab_counter_is_error(k) || !(c->valid & bit) || !c->v[k])
				continue;
			struct fab_report_top t = { .port = (uint32_t)i, .ctr = (uint8_t)k,
						    .sample = c->sample, .value = c->v[k] };
			if (has_delta && (d.valid & bit)) {
				t.has_delta = true;
				t.delta = d.inc[k];
				t.reset = d.reset & bit;
				t.saturated = d.saturated & bit;
			}
			top_insert(m, &t);
		}
	}
	fab_counter_pairs_free(&pairs);
	return 0;
}

/* ------------------------------------------------------------ Ethernet */

struct eth_key {
	const char *system, *ifname;
	uint32_t port;
};

static int cmp_eth_key(const void *x, const void *y)
{
	const struct eth_key *a = x, *b = y;
	int c = strcmp(a->system, b->system);

	return c ? c : strcmp(a->ifname, b->ifname);
}

static uint32_t lookup_eth(const struct eth_key *keys, size_t n, const char *system,
			   const char *ifname)
{
	struct eth_key k = { system, ifname, 0 };
	const struct eth_key *hit;

	if (!system || !ifname)
		return FAB_NONE;
	hit = bsearch(&k, keys, n, sizeof(k), cmp_eth_key);
	return hit ? hit->port : FAB_NONE;
}

/* Marks every RDMA device a finding names (system as node, the device or
 * "device/port" as port: rules/engine.c rule_emit_rdma) and every device
 * whose RoCE ports' netdevs are marked: sorted keys, as for the ports. */
static int dev_model(struct fab_report_model *m)
{
	const struct fab_roce *r = m->snap->roce;
	struct eth_key *keys = malloc((r->n_devices + 1) * sizeof(*keys));

	if (!(m->dev_mark = calloc(r->n_devices + 1, 1)) || !keys) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_devices; i++) {
		const struct fab_rdma_device *d = &r->devices[i];
		keys[i] = (struct eth_key){ r->systems[d->system_idx].name ? r->systems[d->system_idx].name : "?",
					    d->name ? d->name : "?", (uint32_t)i };
		for (uint32_t k = 0; k < d->port_count && d->port_first + k < r->n_rdma_ports; k++) {
			uint32_t e = r->rdma_ports[d->port_first + k].eth_port_idx;
			if (e < r->n_eth_ports && m->dev_mark[i] < m->eth_mark[e])
				m->dev_mark[i] = m->eth_mark[e];
		}
	}
	qsort(keys, r->n_devices, sizeof(*keys), cmp_eth_key);
	for (size_t i = 0; i < m->snap->n_findings; i++) {
		const struct fab_finding *f = &m->snap->findings[i];
		unsigned sev = f->severity < FAB_SEV__COUNT ? f->severity : FAB_SEV_ERROR;
		char dev[128];

		if (!f->port)
			continue;
		snprintf(dev, sizeof(dev), "%.*s", (int)strcspn(f->port, "/"), f->port);
		mark(m->dev_mark, lookup_eth(keys, r->n_devices, f->node, dev), sev);
	}
	free(keys);
	return 0;
}

/* Marks every Ethernet port a finding names (as node/port or peer), through
 * a sorted index of (system, ifname): O((ports + findings) log ports). */
static int eth_model(struct fab_report_model *m)
{
	const struct fab_snapshot *s = m->snap;
	const struct fab_roce *r = s->roce;
	struct eth_key *keys;

	if (!r)
		return 0;
	m->eth_mark = calloc(r->n_eth_ports + 1, 1);
	keys = malloc((r->n_eth_ports + 1) * sizeof(*keys));
	if (!m->eth_mark || !keys) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];
		keys[i] = (struct eth_key){ r->systems[p->system_idx].name, p->ifname, (uint32_t)i };
	}
	qsort(keys, r->n_eth_ports, sizeof(*keys), cmp_eth_key);
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *f = &s->findings[i];
		unsigned sev = f->severity < FAB_SEV__COUNT ? f->severity : FAB_SEV_ERROR;

		mark(m->eth_mark, lookup_eth(keys, r->n_eth_ports, f->node, f->port), sev);
		mark(m->eth_mark, lookup_eth(keys, r->n_eth_ports, f->peer_node, f->peer_port), sev);
	}
	free(keys);
	if (dev_model(m))
		return -ENOMEM;
	for (size_t i = 0; i < r->n_systems; i++)
		m->n_eth_role[r->systems[i].role < FAB_ROLE__COUNT ? r->systems[i].role
								 : FAB_ROLE_UNKNOWN]++;
	for (size_t i = 0; i < r->n_links; i++)
		m->n_eth_heard_both += r->links[i].heard == (FAB_LINK_A_HEARD_B | FAB_LINK_B_HEARD_A);
	if (!(m->roce_cc = malloc((r->n_eth_ports + 1) * sizeof(*m->roce_cc))))
		return -ENOMEM;
	for (size_t i = 0; i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];
		if (p->rdma_port_idx != FAB_NONE || p->ecn.known ||
		    fab_eth_port_trust(r, p) != FAB_TRUST_UNKNOWN)
			m->roce_cc[m->n_roce_cc++] = (uint32_t)i;
	}
	return 0;
}

int fab_report_model_build(const struct fab_snapshot *s, const struct fab_snapshot *base,
			   struct fab_report_model *out)
{
	struct fab_report_model m = { .snap = s };
	int err = -ENOMEM;

	if (s->n_nodes && !s->guid_order) {
		fab_err(-EINVAL, "snapshot %lld is not indexed", (long long)s->scan_id);
		return -EINVAL;
	}
	m.f_node = malloc((s->n_findings + 1) * sizeof(*m.f_node));
	m.f_port = malloc((s->n_findings + 1) * sizeof(*m.f_port));
	m.port_mark = calloc(s->n_ports + 1, 1);
	m.node_mark = calloc(s->n_nodes + 1, 1);
	m.tier = calloc(s->n_nodes + 1, 1);
	m.leaf_of = malloc((s->n_nodes + 1) * sizeof(*m.leaf_of));
	if (!m.f_node || !m.f_port || !m.port_mark || !m.node_mark || !m.tier || !m.leaf_of)
		goto fail;
	if ((err = group_findings(&m)))
		goto fail;
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *f = &s->findings[i];
		unsigned sev = f->severity < FAB_SEV__COUNT ? f->severity : FAB_SEV_ERROR;
		uint32_t peer = lookup_node(s, f->peer_node);

		m.sev[sev]++;
		m.f_node[i] = lookup_node(s, f->node);
		m.f_port[i] = lookup_port(s, m.f_node[i], f->port);
		mark(m.port_mark, m.f_port[i], sev);
		mark(m.node_mark, m.f_node[i], sev);
		mark(m.port_mark, lookup_port(s, peer, f->peer_port), sev);
		mark(m.node_mark, peer, sev);
	}
	m.verdict = m.sev[FAB_SEV_ERROR] ? FAB_VERDICT_FAILING :
		    m.sev[FAB_SEV_WARNING] ? FAB_VERDICT_DEGRADED : FAB_VERDICT_HEALTHY;
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *p = &s->ports[i];
		if (p->node_idx < s->n_nodes && m.node_mark[p->node_idx] < m.port_mark[i])
			m.node_mark[p->node_idx] = m.port_mark[i];
		if (p->port_num) {
			m.n_ext_ports++;
			m.n_active_ports += p->state == FAB_STATE_ACTIVE;
		}
	}
	assign_tiers(&m);
	if ((err = top_counters(&m, base)) || (err = eth_model(&m)))
		goto fail;
	*out = m;
	return 0;
fail:
	fab_report_model_free(&m);
	return err == -ENOMEM ? fab_err(-ENOMEM, "out of memory building the report") : err;
}

void fab_report_model_free(struct fab_report_model *m)
{
	free(m->rules);
	free(m->order);
	free(m->f_node);
	free(m->f_port);
	free(m->port_mark);
	free(m->node_mark);
	free(m->tier);
	free(m->leaf_of);
	free(m->eth_mark);
	free(m->dev_mark);
	free(m->roce_cc);
	free(m->ber);
	free(m->ber_at_least);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------ baseline */

/* Finding identity across snapshots. */
static int cmp_finding(const struct fab_finding *x, const struct fab_finding *y)
{
	int r;

	if ((r = strcmp0(x->rule_id, y->rule_id)) || (r = strcmp0(x->node, y->node)) ||
	    (r = strcmp0(x->port, y->port)) || (r = strcmp0(x->peer_node, y->peer_node)) ||
	    (r = strcmp0(x->peer_port, y->peer_port)))
		return r;
	if (!x->node && !y->node)
		return strcmp0(x->subject, y->subject);
	return 0;
}

static int cmp_finding_idx(const void *a, const void *b, void *arg)
{
	const struct fab_snapshot *s = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = cmp_finding(&s->findings[x], &s->findings[y]);

	return r ? r : (x > y) - (x < y);
}

static uint32_t *finding_keys(const struct fab_snapshot *s)
{
	uint32_t *k = malloc((s->n_findings + 1) * sizeof(*k));

	if (!k)
		return NULL;
	for (size_t i = 0; i < s->n_findings; i++)
		k[i] = (uint32_t)i;
	qsort_r(k, s->n_findings, sizeof(*k), cmp_finding_idx, (void *)s);
	return k;
}

int fab_report_diff_build(const struct fab_snapshot *base, const struct fab_snapshot *s,
			  struct fab_report_diff *out)
{
	struct fab_report_diff d = { .base = base, .snap = s };
	uint32_t *fs = NULL, *fb = NULL;
	int err;

	if ((err = fab_diff_compute(base, s, &d.fabric))) {
		if (err == -ENOMEM)
			fab_err(err, "out of memory comparing with the baseline");
		else
			fab_err(err, "cannot compare scan %lld with scan %lld", (long long)s->scan_id,
				(long long)base->scan_id);
		return err;
	}
	err = -ENOMEM;
	d.findings_new = malloc((s->n_findings + 1) * sizeof(uint32_t));
	d.findings_resolved = malloc((base->n_findings + 1) * sizeof(uint32_t));
	fs = finding_keys(s);
	fb = finding_keys(base);
	if (!d.findings_new || !d.findings_resolved || !fs || !fb)
		goto out;
	for (size_t i = 0, j = 0; i < s->n_findings || j < base->n_findings;) {
		int c = i == s->n_findings ? 1 :
			j == base->n_findings ? -1 :
			cmp_finding(&s->findings[fs[i]], &base->findings[fb[j]]);
		if (c < 0)
			d.findings_new[d.n_findings_new++] = fs[i++];
		else if (c > 0)
			d.findings_resolved[d.n_findings_resolved++] = fb[j++];
		else
			i++, j++;
	}
	*out = d;
	err = 0;
out:
	free(fs);
	free(fb);
	if (err) {
		fab_report_diff_free(&d);
		return fab_err(err, "out of memory comparing with the baseline");
	}
	return 0;
}

void fab_report_diff_free(struct fab_report_diff *d)
{
	fab_diff_free(d->fabric);
	free(d->findings_new);
	free(d->findings_resolved);
	memset(d, 0, sizeof(*d));
}

void fab_report_widths_text(unsigned mask, char *buf, size_t len)
{
	if (mask)
		fab_widths_format(mask, buf, len);
	else
		snprintf(buf, len, "none");
}

void fab_report_speeds_text(unsigned mask, char *buf, size_t len)
{
	if (mask)
		fab_speeds_format(mask, buf, len);
	else
		snprintf(buf, len, "none");
}

static const char *or_unknown(const char *s)
{
	return s ? s : "unknown";
}

/* A port's membership in a partition (enum fab_pkey_member). */
static const char *member_text(uint64_t m)
{
	return m == FAB_PKEY_FULL_MEMBER ? "full" : m == FAB_PKEY_LIMITED ? "limited" : "none";
}

/* A switch port's enforcement bits (FAB_PKEY_ENF_*), "none" without any. */
static void enforce_text(uint64_t bits, char *buf, size_t len)
{
	static const char *const names[] = { "inbound", "outbound", "raw-inbound", "raw-outbound" };
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < 4; i++)
		if (bits & (1u << i) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "+" : "", names[i]);
	if (!n)
		snprintf(buf, len, "none");
}

void fab_report_change_text(const struct fab_change *c, char *old, char *new, size_t len)
{
	old[0] = new[0] = '\0';
	switch (c->kind) {
	case FAB_CHG_NODE_DESC:
		snprintf(old, len, "%s", c->old_text ? c->old_text : "");
		snprintf(new, len, "%s", c->new_text ? c->new_text : "");
		break;
	case FAB_CHG_MODULE: /* "VENDOR PN SN", or none plugged */
		snprintf(old, len, "%s", c->old_text ? c->old_text : "none");
		snprintf(new, len, "%s", c->new_text ? c->new_text : "none");
		break;
	case FAB_CHG_LINK_WIDTH:
		fab_report_widths_text((unsigned)c->old_value, old, len);
		fab_report_widths_text((unsigned)c->new_value, new, len);
		break;
	case FAB_CHG_LINK_SPEED:
		fab_report_speeds_text((unsigned)c->old_value, old, len);
		fab_report_speeds_text((unsigned)c->new_value, new, len);
		break;
	case FAB_CHG_PORT_STATE:
		snprintf(old, len, "%s", or_unknown(fab_state_name((unsigned)c->old_value)));
		snprintf(new, len, "%s", or_unknown(fab_state_name((unsigned)c->new_value)));
		break;
	case FAB_CHG_SM_MASTER:
		if (c->old_value)
			fab_guid_format(c->old_value, old);
		else
			snprintf(old, len, "none");
		if (c->new_value)
			fab_guid_format(c->new_value, new);
		else
			snprintf(new, len, "none");
		break;
	case FAB_CHG_SM_VANISHED:
		snprintf(old, len, "%s", or_unknown(fab_sm_state_name((unsigned)c->old_value)));
		break;
	case FAB_CHG_SM_APPEARED:
		snprintf(new, len, "%s", or_unknown(fab_sm_state_name((unsigned)c->new_value)));
		break;
	case FAB_CHG_SM_STATE:
		snprintf(old, len, "%s", or_unknown(fab_sm_state_name((unsigned)c->old_value)));
		snprintf(new, len, "%s", or_unknown(fab_sm_state_name((unsigned)c->new_value)));
		break;
	case FAB_CHG_PARTITION:
		snprintf(old, len, "%s", member_text(c->old_value));
		snprintf(new, len, "%s", member_text(c->new_value));
		break;
	case FAB_CHG_PKEY_ENFORCEMENT:
		enforce_text(c->old_value, old, len);
		enforce_text(c->new_value, new, len);
		break;
	case FAB_CHG_OP_VLS:
		fab_vls_name((unsigned)c->old_value, old, len);
		fab_vls_name((unsigned)c->new_value, new, len);
		break;
	case FAB_CHG_VLARB:
		fab_lanes_text((unsigned)c->old_value, old, len);
		fab_lanes_text((unsigned)c->new_value, new, len);
		break;
	case FAB_CHG_MCAST_ADDED: /* its members */
		snprintf(new, len, "%llu", (unsigned long long)c->new_value);
		break;
	case FAB_CHG_MCAST_REMOVED:
		snprintf(old, len, "%llu", (unsigned long long)c->old_value);
		break;
	case FAB_CHG_MCAST_TREE: /* switches in the tree */
	case FAB_CHG_LID:
	case FAB_CHG_SL2VL:
	case FAB_CHG_ROUTES:
	case FAB_CHG_SM_PRIORITY:
	case FAB_CHG_COUNTER_INCREASE:
	case FAB_CHG_COUNTER_RESET:
		snprintf(old, len, "%llu", (unsigned long long)c->old_value);
		snprintf(new, len, "%llu", (unsigned long long)c->new_value);
		break;
	default:
		break;
	}
}

void fab_report_change_values(const struct fab_change *c, char *was, char *now, size_t len)
{
	size_t n;

	fab_report_change_text(c, was, now, len);
	if (c->kind == FAB_CHG_PORT_STATE) {
		if ((n = strlen(was)) < len)
			snprintf(was + n, len - n, " (%s)", or_unknown(fab_phys_state_name(c->old_phys)));
		if ((n = strlen(now)) < len)
			snprintf(now + n, len - n, " (%s)", or_unknown(fab_phys_state_name(c->new_phys)));
	}
	/* a counter's increase, exact or "or more", is the formats' business */
}
