// SPDX-License-Identifier: MIT
/*
 * fabsynth: writes synthetic snapshots of a 2-level fat tree of any size into
 * a fabsweep database, through the real store. For crash-safety tests and for
 * benchmarks of check and report on large fabrics (100,000 ports and more).
 *
 *   fabsynth --db FILE [--leaves N] [--spines N] [--hosts-per-leaf N]
 *            [--scans N] [--label TEXT] [--findings N]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

static uint32_t add_node(struct fab_snapshot *s, uint8_t type, uint64_t guid,
			 const char *desc, unsigned nports)
{
	struct fab_node *n = fab_snapshot_add_node(s);
	uint32_t idx = (uint32_t)(s->n_nodes - 1);

	n->guid = n->sys_guid = guid;
	n->type = type;
	n->num_ports = (uint8_t)nports;
	n->lid = (uint16_t)(idx + 1);
	n->hops = type == FAB_NODE_SWITCH ? 1 : 2;
	fab_node_set_desc(n, (const uint8_t *)desc, strlen(desc));
	for (unsigned p = type == FAB_NODE_SWITCH ? 0 : 1; p <= nports; p++) {
		struct fab_port *pt = fab_snapshot_add_port(s);
		s->nodes[idx].port_count++;
		pt->node_idx = idx;
		pt->port_num = (uint8_t)p;
		pt->guid = type == FAB_NODE_SWITCH ? guid : guid + p;
		pt->lid = (uint16_t)(idx + 1);
		pt->state = p == 0 ? FAB_STATE_ACTIVE : FAB_STATE_DOWN;
		pt->phys_state = p == 0 ? FAB_PHYS_LINKUP : FAB_PHYS_POLLING;
		pt->width_enabled = pt->width_supported = FAB_WIDTH_1X | FAB_WIDTH_4X;
		pt->speed_enabled = pt->speed_supported = FAB_SPEED_SDR | FAB_SPEED_EDR | FAB_SPEED_HDR;
		pt->mtu_cap = 5;
		pt->op_vls = 4;
		pt->cap_mask = p == 1 && type == FAB_NODE_CA && idx % 997 == 0 ? 0x2 : 0;
	}
	return idx;
}

static void cable(struct fab_snapshot *s, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
	struct fab_port *x = fab_snapshot_port(s, a, pa), *y = fab_snapshot_port(s, b, pb);

	x->remote_idx = (uint32_t)(y - s->ports);
	y->remote_idx = (uint32_t)(x - s->ports);
	x->remote_guid = s->nodes[b].guid;
	x->remote_port = (uint8_t)pb;
	y->remote_guid = s->nodes[a].guid;
	y->remote_port = (uint8_t)pa;
	x->state = y->state = FAB_STATE_ACTIVE;
	x->phys_state = y->phys_state = FAB_PHYS_LINKUP;
	x->width_active = y->width_active = FAB_WIDTH_4X;
	x->speed_active = y->speed_active = FAB_SPEED_HDR;
	x->mtu_active = y->mtu_active = 5;
}

static struct fab_snapshot *build(unsigned leaves, unsigned spines, unsigned hpl,
				  const char *label, unsigned nfind)
{
	struct fab_snapshot *s = fab_snapshot_new();
	uint32_t *lf = calloc(leaves, sizeof(*lf)), *sp = calloc(spines, sizeof(*sp));
	char name[64];

	s->started_at_ms = fab_now_ms();
	s->host = fab_snapshot_strdup(s, "fabsynth", SIZE_MAX);
	s->source = fab_snapshot_strdup(s, "synthetic", SIZE_MAX);
	s->label = label ? fab_snapshot_strdup(s, label, SIZE_MAX) : NULL;
	for (unsigned i = 0; i < spines; i++) {
		snprintf(name, sizeof(name), "spine%04u", i + 1);
		sp[i] = add_node(s, FAB_NODE_SWITCH, 0x0002c90300100000ull + i, name, leaves);
		s->nodes[sp[i]].role = FAB_ROLE_SPINE;
	}
	for (unsigned i = 0; i < leaves; i++) {
		snprintf(name, sizeof(name), "leaf%04u", i + 1);
		lf[i] = add_node(s, FAB_NODE_SWITCH, 0x0002c90300200000ull + i, name, hpl + spines);
		s->nodes[lf[i]].role = FAB_ROLE_LEAF;
	}
	for (unsigned i = 0, h = 0; i < leaves; i++) {
		for (unsigned j = 0; j < hpl; j++, h++) {
			snprintf(name, sizeof(name), "node%05u HCA-1", h + 1);
			uint32_t c = add_node(s, FAB_NODE_CA, 0x0002c90300300000ull + (uint64_t)h * 2, name, 1);
			s->nodes[c].role = FAB_ROLE_HOST;
			cable(s, lf[i], j + 1, c, 1);
		}
		for (unsigned k = 0; k < spines; k++)
			cable(s, lf[i], hpl + 1 + k, sp[k], i + 1);
	}
	fab_snapshot_build_links(s);
	for (size_t i = 0; i < s->n_ports; i++) {
		if (!s->ports[i].port_num || s->ports[i].state != FAB_STATE_ACTIVE)
			continue;
		struct fab_counter_sample *c = fab_snapshot_add_sample(s);
		c->port_idx = (uint32_t)i;
		c->sampled_at_ms = s->started_at_ms;
		c->extended = true;
		c->valid = (1u << FAB_CTR__COUNT) - 1;
		c->v[FAB_CTR_XMIT_DATA] = i * 1000;
		c->v[FAB_CTR_SYMBOL_ERRORS] = i % 101 == 0 ? 50 : 0;
	}
	for (unsigned i = 0; i < nfind && s->n_links; i++) {
		const struct fab_port *a = &s->ports[s->links[i % s->n_links].a];
		char g[FAB_GUID_STRLEN], p[8];
		fab_guid_format(s->nodes[a->node_idx].guid, g);
		snprintf(p, sizeof(p), "%u", a->port_num);
		struct fab_finding f = { .rule_id = "port.errors", .severity = (uint8_t)(i % 3),
					 .node = g, .port = p, .subject = s->nodes[a->node_idx].desc,
					 .message = "synthetic finding" };
		fab_snapshot_add_finding(s, &f);
	}
	struct fab_sm *sm = fab_snapshot_add_sm(s);
	sm->port_guid = s->nodes[spines + leaves].guid + 1;
	sm->lid = s->nodes[spines + leaves].lid;
	sm->state = 3;
	sm->priority = 14;
	sm->port_idx = s->nodes[spines + leaves].port_first;
	s->finished_at_ms = fab_now_ms();
	free(lf);
	free(sp);
	return s;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "leaves", required_argument, NULL, 'l' },
		{ "spines", required_argument, NULL, 's' },
		{ "hosts-per-leaf", required_argument, NULL, 'h' },
		{ "scans", required_argument, NULL, 'n' },
		{ "label", required_argument, NULL, 'L' },
		{ "findings", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned leaves = 8, spines = 4, hpl = 16, scans = 1, nfind = 0;
	const char *db = NULL, *label = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'l': leaves = (unsigned)strtoul(optarg, NULL, 10); break;
		case 's': spines = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'h': hpl = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': scans = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'L': label = optarg; break;
		case 'f': nfind = (unsigned)strtoul(optarg, NULL, 10); break;
		default: return 2;
		}
	}
	if (!db || !leaves || !spines || hpl + spines > 254 || leaves > 254) {
		fprintf(stderr, "fabsynth: need --db; leaves <= 254 and hosts-per-leaf + spines <= 254\n");
		return 2;
	}
	struct fab_snapshot *s = build(leaves, spines, hpl, label, nfind);
	struct fab_store *st = NULL;
	int ret = 0;
	if (fab_store_open(db, FAB_STORE_WRITE, &st)) {
		fprintf(stderr, "fabsynth: %s\n", fab_errmsg());
		ret = 3;
	}
	for (unsigned i = 0; !ret && i < scans; i++) {
		s->scan_id = 0;
		if (fab_store_write_scan(st, s)) {
			fprintf(stderr, "fabsynth: %s\n", fab_errmsg());
			ret = 3;
			break;
		}
		printf("%lld %zu %zu %zu\n", (long long)s->scan_id, s->n_nodes, s->n_ports, s->n_links);
	}
	fab_store_close(st);
	fab_snapshot_free(s);
	return ret;
}
