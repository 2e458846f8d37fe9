/* SPDX-License-Identifier: MIT */
/*
 * The one fixture library: builds snapshots in memory as a scan would fill
 * them, for unit tests, fuzzers, benchmarks and tools (tests/tools/fabsynth.c).
 * Header-only, no test framework: every executable gets its own copy.
 *
 * One answer to each question a fixture has to settle:
 *  - a node: every field a scan fills (vendor 0x2c9, device id, LID = its
 *    index + 1, hops 1 for switches and 2 for CAs); a switch has ports
 *    0..n sharing its GUID, a CA ports 1..n with GUIDs node GUID + port
 *    number (fabfix_port_guids() when a fabric numbers them otherwise);
 *    every port enabled and supported at 1X,4X and SDR to HDR, MTU 4096
 *    possible, 4 VLs, Down/Polling but a switch's port 0 Active/LinkUp;
 *  - a cable: both ends Active/LinkUp at the given width and speed, MTU 4096;
 *  - a counter sample: every counter valid, extended, zero;
 *  - a subnet manager: on a node's first port, at its LID;
 *  - a 2-level fat tree: spines, leaves, hosts per leaf, every leaf cabled
 *    once to every spine (fabfix_fat_tree());
 *  - a multicast group: its members full members, its tree as OpenSM
 *    writes one (fabfix_mcast_init(), fabfix_mcast_group()).
 * The fixtures of each test folder (snapfix.h, reports/fatfab.h,
 * rules/rulefix.h) are that fabric's data on top of these builders.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/counter.h"
#include "fabsweep/mcast.h"
#include "fabsweep/pkey.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"

#define FABFIX_WIDTHS (FAB_WIDTH_1X | FAB_WIDTH_4X)
#define FABFIX_SPEEDS (FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR | FAB_SPEED_FDR | \
		       FAB_SPEED_EDR | FAB_SPEED_HDR)
#define FABFIX_SWITCH_DEVICE 0xd2f0 /* a QM8700 */
#define FABFIX_CA_DEVICE 0x101b     /* a ConnectX-6 */

/* Adds a node with its ports (see above); returns its index. */
static inline uint32_t fabfix_node(struct fab_snapshot *s, uint8_t type, uint8_t role,
				   uint64_t guid, const char *desc, unsigned nports)
{
	struct fab_node *n = fab_snapshot_add_node(s);
	uint32_t idx = (uint32_t)(s->n_nodes - 1);
	bool sw = type == FAB_NODE_SWITCH;

	n->guid = n->sys_guid = guid;
	n->type = type;
	n->role = role;
	n->num_ports = (uint8_t)nports;
	n->lid = (uint16_t)(idx + 1);
	n->vendor_id = 0x2c9;
	n->device_id = sw ? FABFIX_SWITCH_DEVICE : FABFIX_CA_DEVICE;
	n->hops = sw ? 1 : 2;
	fab_node_set_desc(n, (const uint8_t *)desc, strlen(desc));
	for (unsigned p = sw ? 0 : 1; p <= nports; p++) {
		struct fab_port *pt = fab_snapshot_add_port(s);
		s->nodes[idx].port_count++;
		pt->node_idx = idx;
		pt->port_num = (uint8_t)p;
		pt->guid = sw ? guid : guid + p;
		pt->lid = (uint16_t)(idx + 1);
		pt->state = p == 0 ? FAB_STATE_ACTIVE : FAB_STATE_DOWN;
		pt->phys_state = p == 0 ? FAB_PHYS_LINKUP : FAB_PHYS_POLLING;
		pt->width_enabled = pt->width_supported = FABFIX_WIDTHS;
		pt->speed_enabled = pt->speed_supported = FABFIX_SPEEDS;
		pt->mtu_cap = 5;
		pt->op_vls = pt->vl_cap = 4; /* VL0-7, as ibsim's ports */
		pt->vlarb_high_cap = pt->vlarb_low_cap = 8;
	}
	return idx;
}

/* Numbers a CA's ports from first (port 1) on, for fabrics whose port GUIDs
 * are not the node GUID + port number. */
static inline void fabfix_port_guids(struct fab_snapshot *s, uint32_t node, uint64_t first)
{
	for (unsigned p = 1; p <= s->nodes[node].num_ports; p++)
		fab_snapshot_port(s, node, p)->guid = first + p - 1;
}

/* Cables port pa of node a to port pb of node b, both ends Active at
 * width/speed (FAB_WIDTH_*, FAB_SPEED_* bits). */
static inline void fabfix_cable(struct fab_snapshot *s, uint32_t a, unsigned pa, uint32_t b,
				unsigned pb, uint8_t width, uint16_t speed)
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
	x->width_active = y->width_active = width;
	x->speed_active = y->speed_active = speed;
	x->mtu_active = y->mtu_active = 5;
}

/* Pulls the cable out of port pa of node a: both ends Down/Polling, no
 * remote end. Rebuild the links (fab_snapshot_build_links) afterwards. */
static inline void fabfix_uncable(struct fab_snapshot *s, uint32_t a, unsigned pa)
{
	struct fab_port *x = fab_snapshot_port(s, a, pa);
	struct fab_port *y = x->remote_idx != FAB_NONE ? &s->ports[x->remote_idx] : NULL;

	for (struct fab_port *p = x; p; p = p == x ? y : NULL) {
		p->remote_idx = FAB_NONE;
		p->remote_guid = 0;
		p->remote_port = 0;
		p->state = FAB_STATE_DOWN;
		p->phys_state = FAB_PHYS_POLLING;
		p->width_active = 0;
		p->speed_active = 0;
		p->mtu_active = 0;
	}
}

/* Whether a scan reads the counters of port i: external and Active. */
static inline bool fabfix_sampled(const struct fab_snapshot *s, size_t i)
{
	return s->ports[i].port_num && s->ports[i].state == FAB_STATE_ACTIVE;
}

/* Adds sample number `sample` of port i, taken at at_ms: every counter
 * valid (extended counters), all zero, but the detail counters, which a
 * scan reads only for ports with errors. */
static inline struct fab_counter_sample *fabfix_sample(struct fab_snapshot *s, size_t i,
						       unsigned sample, int64_t at_ms)
{
	struct fab_counter_sample *c = fab_snapshot_add_sample(s);

	c->port_idx = (uint32_t)i;
	c->sample = (uint8_t)sample;
	c->sampled_at_ms = at_ms;
	c->extended = true;
	c->valid = FAB_CTR_MASK_ALL & ~fab_counter_detail_mask();
	return c;
}

/* A subnet manager (state 3: master, 2: standby) on node's first port. */
static inline struct fab_sm *fabfix_sm(struct fab_snapshot *s, uint32_t node, uint8_t state,
				       uint8_t priority)
{
	struct fab_sm *sm = fab_snapshot_add_sm(s);
	const struct fab_node *n = &s->nodes[node];
	uint32_t port = n->port_first;

	sm->port_guid = s->ports[port].guid;
	sm->lid = n->lid;
	sm->state = state;
	sm->priority = priority;
	sm->port_idx = port;
	return sm;
}

/* ---- fat trees ------------------------------------------------------------ */

/* A name part: prefix, a number with digits digits (zero-padded), suffix. */
struct fabfix_name {
	const char *prefix;
	int digits;
	const char *suffix; /* NULL: none */
};

struct fabfix_tree {
	unsigned spines, leaves, hosts_per_leaf;
	uint64_t spine_guid, leaf_guid;  /* of the first; the others count up */
	uint64_t host_guid, host_step;   /* host h: host_guid + h * host_step */
	struct fabfix_name spine, leaf, host; /* numbered from 1 */
	unsigned switch_ports; /* ports of every switch; 0: as many as cabled */
	unsigned uplink;       /* a leaf's first port to the spines; 0: after its hosts */
	bool roles;            /* spine, leaf, host; else unknown */
	uint8_t width;         /* of every link; 0: 4X */
	uint16_t speed;        /* 0: HDR */
};

static inline void fabfix_format_name(char *buf, size_t len, const struct fabfix_name *n,
				      unsigned i)
{
	snprintf(buf, len, "%s%0*u%s", n->prefix, n->digits, i, n->suffix ? n->suffix : "");
}

/*
 * The nodes (spines, leaves, then each leaf's hosts), the cables (host j of
 * a leaf on its port j + 1, leaf i on port i + 1 of every spine) and the
 * links. No samples, no SMs: the caller adds what its fabric has. NULL on
 * ENOMEM or a size a switch cannot cable (more than 254 ports).
 */
static inline struct fab_snapshot *fabfix_fat_tree(const struct fabfix_tree *t)
{
	unsigned uplink = t->uplink ? t->uplink : t->hosts_per_leaf + 1;
	unsigned sp_ports = t->switch_ports ? t->switch_ports : t->leaves;
	unsigned lf_ports = t->switch_ports ? t->switch_ports : uplink - 1 + t->spines;
	uint8_t width = t->width ? t->width : FAB_WIDTH_4X;
	uint16_t speed = t->speed ? t->speed : FAB_SPEED_HDR;
	struct fab_snapshot *s;
	uint32_t *sp, *lf;
	char name[96];

	if (!t->spines || !t->leaves || sp_ports > 254 || lf_ports > 254 ||
	    t->leaves > sp_ports || uplink - 1 + t->spines > lf_ports)
		return NULL;
	s = fab_snapshot_new();
	sp = calloc(t->spines, sizeof(*sp));
	lf = calloc(t->leaves, sizeof(*lf));
	if (!s || !sp || !lf) {
		fab_snapshot_free(s);
		free(sp);
		free(lf);
		return NULL;
	}
	for (unsigned i = 0; i < t->spines; i++) {
		fabfix_format_name(name, sizeof(name), &t->spine, i + 1);
		sp[i] = fabfix_node(s, FAB_NODE_SWITCH, t->roles ? FAB_ROLE_SPINE : FAB_ROLE_UNKNOWN,
				    t->spine_guid + i, name, sp_ports);
	}
	for (unsigned i = 0; i < t->leaves; i++) {
		fabfix_format_name(name, sizeof(name), &t->leaf, i + 1);
		lf[i] = fabfix_node(s, FAB_NODE_SWITCH, t->roles ? FAB_ROLE_LEAF : FAB_ROLE_UNKNOWN,
				    t->leaf_guid + i, name, lf_ports);
	}
	for (unsigned i = 0, h = 0; i < t->leaves; i++) {
		for (unsigned j = 0; j < t->hosts_per_leaf; j++, h++) {
			fabfix_format_name(name, sizeof(name), &t->host, h + 1);
			uint32_t c = fabfix_node(s, FAB_NODE_CA, t->roles ? FAB_ROLE_HOST : FAB_ROLE_UNKNOWN,
						 t->host_guid + (uint64_t)h * t->host_step, name, 1);
			fabfix_cable(s, lf[i], j + 1, c, 1, width, speed);
		}
		for (unsigned k = 0; k < t->spines; k++)
			fabfix_cable(s, lf[i], uplink + k, sp[k], i + 1, width, speed);
	}
	fab_snapshot_build_links(s);
	free(sp);
	free(lf);
	return s;
}

/* ---- findings ------------------------------------------------------------------ */

/* The findings of rule (its whole id) in s. */
static inline size_t fabfix_count_findings(const struct fab_snapshot *s, const char *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_findings; i++)
		n += !strcmp(s->findings[i].rule_id, rule);
	return n;
}

/* The first finding of rule in s, NULL when there is none. */
static inline const struct fab_finding *fabfix_finding(const struct fab_snapshot *s, const char *rule)
{
	for (size_t i = 0; i < s->n_findings; i++)
		if (!strcmp(s->findings[i].rule_id, rule))
			return &s->findings[i];
	return NULL;
}

/* ---- forwarding tables ----------------------------------------------------- */

/*
 * Gives every CA port the LMC lmc, as a subnet manager with `lmc` set
 * would: each its own range of 2^lmc LIDs, aligned, above every switch's
 * LID, in port order (a switch keeps its one LID: port 0's LMC stays 0, as
 * OpenSM's lmc_esp0 FALSE). A CA's node LID is its first port's. Route
 * again afterwards (fabfix_route_minhop).
 */
static inline void fabfix_lmc(struct fab_snapshot *s, unsigned lmc)
{
	unsigned next = 0, size = 1u << lmc;

	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].type == FAB_NODE_SWITCH && s->nodes[i].lid >= next)
			next = s->nodes[i].lid + 1u;
	for (size_t i = 0; i < s->n_ports; i++) {
		struct fab_port *p = &s->ports[i];
		struct fab_node *n = &s->nodes[p->node_idx];

		if (n->type == FAB_NODE_SWITCH || !p->port_num)
			continue;
		next = (next + size - 1) / size * size;
		if (n->lid == p->lid || p->port_num == 1)
			n->lid = (uint16_t)next;
		p->lid = (uint16_t)next;
		p->lmc = (uint8_t)lmc;
		next += size;
	}
}

/*
 * Gives every switch a linear forwarding table as a min-hop subnet manager
 * would: toward every LID a port owns (a CA port's, every LID of its LMC
 * range, a switch's port 0), each switch forwards by a port on a shortest
 * path over Active switch-to-switch links, the dlid-th of the equal ones
 * (spread over the spines: the LIDs of a range take different paths); 255
 * where it has none. LinearFDBTop is the highest LID, LinearFDBCap 49152. The
 * routing part is replaced. 0 or -ENOMEM.
 */
static inline int fabfix_route_minhop(struct fab_snapshot *s)
{
	unsigned top = 0;
	uint32_t *dist = malloc((s->n_nodes + 1) * sizeof(*dist));
	uint32_t *queue = malloc((s->n_nodes + 1) * sizeof(*queue));
	uint8_t **tab = calloc(s->n_nodes + 1, sizeof(*tab));
	struct fab_routing *r;
	int err = -ENOMEM;

	fab_routing_free(s->routing);
	s->routing = NULL;
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].lid > top)
			top = s->nodes[i].lid;
	for (size_t i = 0; i < s->n_ports; i++)
		if (s->ports[i].lid + (1u << (s->ports[i].lmc & 7)) - 1 > top)
			top = s->ports[i].lid + (1u << (s->ports[i].lmc & 7)) - 1;
	if (!dist || !queue || !tab || !(r = fab_snapshot_routing(s)))
		goto out;
	unsigned n_blocks = top / FAB_LFT_BLOCK + 1;
	for (size_t i = 0; i < s->n_nodes; i++) {
		if (s->nodes[i].type != FAB_NODE_SWITCH)
			continue;
		struct fab_lft *l = fab_routing_add(r);
		if (!l || !(tab[i] = fab_routing_alloc(r, (size_t)n_blocks * FAB_LFT_BLOCK,
							FAB_LFT_NO_PORT)))
			goto out;
		*l = (struct fab_lft){ .node_idx = (uint32_t)i, .status = FAB_LFT_OK,
				       .fdb_cap = 49152, .fdb_top = (uint16_t)top,
				       .n_blocks = n_blocks, .port = tab[i] };
	}
	for (size_t d = 0; d < s->n_ports; d++) {
		const struct fab_port *dp = &s->ports[d];
		const struct fab_node *dn = &s->nodes[dp->node_idx];
		uint32_t first;
		size_t head = 0, tail = 0;

		if (dn->type == FAB_NODE_SWITCH ? dp->port_num != 0 : dp->state != FAB_STATE_ACTIVE ||
		    !dp->lid || dp->remote_idx == FAB_NONE)
			continue;
		first = dn->type == FAB_NODE_SWITCH ? dp->node_idx : s->ports[dp->remote_idx].node_idx;
		if (s->nodes[first].type != FAB_NODE_SWITCH)
			continue;
		unsigned base = dn->type == FAB_NODE_SWITCH ? dn->lid : dp->lid;
		unsigned n_lids = dn->type == FAB_NODE_SWITCH ? 1 : 1u << (dp->lmc & 7);
		for (unsigned lid = base; lid < base + n_lids; lid++) {
			head = tail = 0;
			for (size_t i = 0; i < s->n_nodes; i++)
				dist[i] = FAB_NONE;
			dist[first] = 0;
			queue[tail++] = first;
			tab[first][lid] = dn->type == FAB_NODE_SWITCH ? 0
							: s->ports[dp->remote_idx].port_num;
			while (head < tail) {
				uint32_t u = queue[head++];
				const struct fab_node *un = &s->nodes[u];
				for (uint32_t k = 0; k < un->port_count; k++) {
					const struct fab_port *p = &s->ports[un->port_first + k];
					if (p->port_num == 0 || p->state != FAB_STATE_ACTIVE ||
					    p->remote_idx == FAB_NONE)
						continue;
					uint32_t v = s->ports[p->remote_idx].node_idx;
					if (s->nodes[v].type == FAB_NODE_SWITCH && dist[v] == FAB_NONE) {
						dist[v] = dist[u] + 1;
						queue[tail++] = v;
					}
				}
			}
			/* each switch: the lid-th of its ports one hop nearer */
			for (size_t qi = 1; qi < tail; qi++) {
				uint32_t v = queue[qi], n_near = 0, pick = 0;
				const struct fab_node *vn = &s->nodes[v];
				for (int pass = 0; pass < 2; pass++) {
					uint32_t seen = 0;
					for (uint32_t k = 0; k < vn->port_count; k++) {
						const struct fab_port *p = &s->ports[vn->port_first + k];
						if (p->port_num == 0 || p->state != FAB_STATE_ACTIVE ||
						    p->remote_idx == FAB_NONE)
							continue;
						uint32_t w = s->ports[p->remote_idx].node_idx;
						if (s->nodes[w].type != FAB_NODE_SWITCH || dist[w] + 1 != dist[v])
							continue;
						if (pass == 0)
							n_near++;
						else if (seen++ == pick)
							tab[v][lid] = p->port_num;
					}
					pick = n_near ? lid % n_near : 0;
				}
			}
		}
	}
	err = 0;
out:
	free(dist);
	free(queue);
	free(tab);
	return err;
}

/* ---- partitions --------------------------------------------------------------- */

/*
 * Gives every cabled external port (CA and switch) a P_Key table of cap 64
 * holding the default partition as a full member (0xffff) and then the n
 * raw P_Keys of extra, as a subnet manager with only the default partition
 * would (extra: NULL, n 0). The partition part is replaced. 0 or -ENOMEM.
 */
static inline int fabfix_pkeys_default(struct fab_snapshot *s, const uint16_t *extra, size_t n)
{
	struct fab_pkeys *k;

	fab_pkeys_free(s->pkeys);
	s->pkeys = NULL;
	if (!(k = fab_snapshot_pkeys(s)))
		return -ENOMEM;
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *p = &s->ports[i];
		struct fab_port_pkeys *t;
		uint16_t *tab;

		if (!p->port_num || p->remote_idx == FAB_NONE)
			continue;
		if (!(t = fab_pkeys_add(k)) || !(tab = fab_pkeys_alloc(k, 1 + n)))
			return -ENOMEM;
		tab[0] = 0xffff;
		for (size_t j = 0; j < n; j++)
			tab[1 + j] = extra[j];
		*t = (struct fab_port_pkeys){ .port_idx = (uint32_t)i, .status = FAB_LFT_OK,
					      .cap = 64, .n = (uint16_t)(1 + n), .pkey = tab };
	}
	return 0;
}

/* ---- multicast ------------------------------------------------------------- */

/* The tables of fabfix_mcast_init() alone, added to the snapshot's
 * multicast part (created when missing; its groups kept). */
static inline int fabfix_mcast_tables(struct fab_snapshot *s, unsigned n_mlids)
{
	struct fab_mcast *m;
	unsigned nb = n_mlids ? (n_mlids - 1) / FAB_MFT_BLOCK + 1 : 0;

	if (!(m = fab_snapshot_mcast(s)))
		return -ENOMEM;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		if (n->type != FAB_NODE_SWITCH)
			continue;
		struct fab_mft *t = fab_mcast_add_mft(m);
		unsigned np = n->num_ports / FAB_MFT_POS_PORTS + 1;
		uint16_t *block = fab_mcast_alloc(m, (nb + 1) * sizeof(*block));
		uint16_t *mask = fab_mcast_alloc(m, ((size_t)nb * FAB_MFT_BLOCK * np + 1) * sizeof(*mask));
		uint8_t *read = fab_mcast_alloc(m, (size_t)nb * np + 1);
		if (!t || !block || !mask || !read)
			return -ENOMEM;
		for (unsigned b = 0; b < nb; b++) {
			block[b] = (uint16_t)b;
			for (unsigned p = 0; p < np; p++) {
				bool any = p == 0;
				for (uint32_t k = 0; k < n->port_count && !any; k++) {
					const struct fab_port *pt = &s->ports[n->port_first + k];
					any = pt->port_num / FAB_MFT_POS_PORTS == p && pt->state == FAB_STATE_ACTIVE;
				}
				read[(size_t)b * np + p] = any ? FAB_MFT_READ : FAB_MFT_NOT_ASKED;
			}
		}
		*t = (struct fab_mft){ .node_idx = (uint32_t)i, .status = FAB_LFT_OK, .n_pos = (uint8_t)np,
				       .cap = 1024, .n_blocks = nb, .block = block, .mask = mask,
				       .read = read };
	}
	return 0;
}

/*
 * Gives every switch a multicast forwarding table for the first n_mlids
 * MLIDs (0xC000 up), every entry empty, every position read (a position
 * with neither port 0 nor an Active port: not asked, as a scan leaves it),
 * MulticastFDBCap 1024. The multicast part is replaced (its members read);
 * groups come from fabfix_mcast_group(). 0 or -ENOMEM.
 */
static inline int fabfix_mcast_init(struct fab_snapshot *s, unsigned n_mlids)
{
	fab_mcast_free(s->mcast);
	s->mcast = NULL;
	if (!fab_snapshot_mcast(s))
		return -ENOMEM;
	s->mcast->members_read = true;
	return fabfix_mcast_tables(s, n_mlids);
}

/* Sets (on) or clears a port of a switch's entry for mlid. */
static inline void fabfix_mft_set(struct fab_snapshot *s, uint32_t node, unsigned mlid, unsigned port,
				  bool on)
{
	const struct fab_mft *t = fab_mcast_mft(s->mcast, node);
	unsigned b = (mlid - FAB_MLID_FIRST) / FAB_MFT_BLOCK, sl = (mlid - FAB_MLID_FIRST) % FAB_MFT_BLOCK;

	if (!t || b >= t->n_blocks || port / FAB_MFT_POS_PORTS >= t->n_pos)
		return;
	uint16_t *m = (uint16_t *)&t->mask[((size_t)b * FAB_MFT_BLOCK + sl) * t->n_pos +
					  port / FAB_MFT_POS_PORTS];
	if (on)
		*m |= (uint16_t)(1u << (port % FAB_MFT_POS_PORTS));
	else
		*m &= (uint16_t)~(1u << (port % FAB_MFT_POS_PORTS));
}

/*
 * Adds a group (MGID mgid, MLID mlid, raw rate and MTU with selector 2
 * "exactly", P_Key 0xffff, Q_Key 0x0b1b) whose members are the ports
 * ports[0 .. n) (CA ports; full members), and writes its spanning tree as
 * OpenSM does: rooted at the switch root (a node index), each member's
 * switch joined to it along a shortest path of Active switch links, every
 * link of the tree in both switches' entries, each member's port in its
 * switch's. After fabfix_mcast_init() with room for the MLID; call
 * fab_mcast_sort() and fab_mcast_resolve() when every group is in.
 * 0 or -ENOMEM.
 */
static inline int fabfix_mcast_group(struct fab_snapshot *s, const uint8_t mgid[16], uint16_t mlid,
				     uint8_t rate, uint8_t mtu, uint32_t root, const uint32_t *ports,
				     size_t n)
{
	struct fab_mcast *m = s->mcast;
	uint32_t *up = malloc((s->n_nodes + 1) * sizeof(*up)); /* the port toward the root */
	uint32_t *queue = malloc((s->n_nodes + 1) * sizeof(*queue));
	uint8_t *seen = calloc(s->n_nodes + 1, 1);
	struct fab_mc_group *g;
	size_t head = 0, tail = 0;
	int err = -ENOMEM;

	if (!m || !up || !queue || !seen || !(g = fab_mcast_add_group(m)))
		goto out;
	memcpy(g->mgid, mgid, 16);
	g->mlid = mlid;
	g->rate = (uint8_t)(2u << 6 | rate);
	g->mtu = (uint8_t)(2u << 6 | mtu);
	g->pkey = 0xffff;
	g->qkey = 0x0b1b;
	g->scope = 2;
	g->first = (uint32_t)m->n_members;
	g->n = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct fab_mc_member *mb = fab_mcast_add_member(m);
		if (!mb)
			goto out;
		mb->port_guid = s->ports[ports[i]].guid;
		mb->gid_prefix = 0xfe80000000000000ull;
		mb->join_state = FAB_MC_JOIN_FULL;
	}
	/* breadth first from the root over Active switch links */
	seen[root] = 1;
	up[root] = FAB_NONE;
	queue[tail++] = root;
	while (head < tail) {
		const struct fab_node *un = &s->nodes[queue[head++]];
		for (uint32_t k = 0; k < un->port_count; k++) {
			const struct fab_port *p = &s->ports[un->port_first + k];
			if (!p->port_num || p->state != FAB_STATE_ACTIVE || p->remote_idx == FAB_NONE)
				continue;
			uint32_t v = s->ports[p->remote_idx].node_idx;
			if (s->nodes[v].type != FAB_NODE_SWITCH || seen[v])
				continue;
			seen[v] = 1;
			up[v] = p->remote_idx;
			queue[tail++] = v;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct fab_port *p = &s->ports[ports[i]];
		if (p->remote_idx == FAB_NONE)
			continue;
		uint32_t sw = s->ports[p->remote_idx].node_idx;
		fabfix_mft_set(s, sw, mlid, s->ports[p->remote_idx].port_num, true);
		/* up to the root, each link of the way in both entries */
		while (seen[sw] == 1 && up[sw] != FAB_NONE) {
			const struct fab_port *a = &s->ports[up[sw]];
			seen[sw] = 2;
			fabfix_mft_set(s, sw, mlid, a->port_num, true);
			fabfix_mft_set(s, s->ports[a->remote_idx].node_idx, mlid,
				       s->ports[a->remote_idx].port_num, true);
			sw = s->ports[a->remote_idx].node_idx;
		}
	}
	err = 0;
out:
	free(up);
	free(queue);
	free(seen);
	return err;
}

/* The first host of a fat tree (its nodes come after the switches). */
static inline uint32_t fabfix_first_host(const struct fabfix_tree *t)
{
	return t->spines + t->leaves;
}

/* ---- files ------------------------------------------------------------------ */

/* A path under $TMPDIR unique to this process: "<tmp>/<what>_<pid><ext>". */
static inline void fabfix_path(char *buf, size_t len, const char *what, const char *ext)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/%s_%d%s", tmp && *tmp ? tmp : "/tmp", what, (int)getpid(),
		 ext ? ext : "");
}

/* Removes a database and its -wal and -shm files. */
static inline void fabfix_unlink_db(const char *path)
{
	char p[4200];

	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
}
