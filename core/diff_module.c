// SPDX-License-Identifier: MIT
/*
 * Modules and cables in the snapshot diff: the forensic question after a
 * repair ("which optics were swapped?"). InfiniBand modules are matched by
 * (node GUID, port number), a RoCE host's by (system name, interface); a
 * port whose module's serial number, vendor or part number differs is a
 * FAB_CHG_MODULE, and so is a module plugged or pulled, when both
 * snapshots have modules of that fabric (an old scan without cable data is
 * no evidence that nothing was plugged). Sorted arrays: O(n log n).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_priv.h"
#include "fabsweep/module.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"

struct key {
	uint64_t guid;
	unsigned port;
	const char *sys, *ifname;
	const struct fab_module *m;
	uint32_t port_idx;
};

static int cmp_str0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_key(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if ((c = cmp_str0(a->sys, b->sys)))
		return c;
	return cmp_str0(a->ifname, b->ifname);
}

/* The keys of one fabric's modules of s, sorted; *n. NULL on ENOMEM. */
static struct key *keys(const struct fab_snapshot *s, bool eth, size_t *n)
{
	const struct fab_roce *r = s->roce;
	const struct fab_modules *set = eth ? (r ? &r->modules : NULL) : &s->ib_modules;
	size_t cnt = set ? set->n : 0;
	struct key *k = malloc((cnt + 1) * sizeof(*k));

	*n = 0;
	if (!k)
		return NULL;
	for (size_t i = 0; i < cnt; i++) {
		const struct fab_module *m = &set->mods[i];
		struct key x = { .m = m, .port_idx = m->port_idx };
		if (eth) {
			if (m->port_idx >= r->n_eth_ports)
				continue;
			const struct fab_eth_port *p = &r->eth_ports[m->port_idx];
			x.sys = p->system_idx < r->n_systems ? r->systems[p->system_idx].name : NULL;
			x.ifname = p->ifname;
		} else {
			if (m->port_idx >= s->n_ports)
				continue;
			x.guid = s->nodes[s->ports[m->port_idx].node_idx].guid;
			x.port = s->ports[m->port_idx].port_num;
		}
		k[(*n)++] = x;
	}
	qsort(k, *n, sizeof(*k), cmp_key);
	return k;
}

static bool same(const struct fab_module *a, const struct fab_module *b)
{
	return !cmp_str0(a->serial, b->serial) && !cmp_str0(a->vendor, b->vendor) &&
	       !cmp_str0(a->part_number, b->part_number);
}

/* "FS OSFP-SR8-800G G2430283435", owned by the diff. */
static const char *ident(struct fab_diff *d, const struct fab_module *m)
{
	char buf[3 * 4 * 64 + 8];

	snprintf(buf, sizeof(buf), "%s %s %s", m->vendor ? m->vendor : "?",
		 m->part_number ? m->part_number : "?", m->serial ? m->serial : "?");
	return fab_diff_strdup(d, buf);
}

static int change(struct fab_diff *d, const struct fab_snapshot *os, const struct fab_snapshot *ns,
		  bool eth, const struct key *o, const struct key *n)
{
	struct fab_change *c = fab_diff_add(d, FAB_CHG_MODULE);
	const struct key *k = n ? n : o;
	const struct fab_snapshot *ks = n ? ns : os;

	if (!c)
		return -ENOMEM;
	if (eth) {
		c->subject.system = k->sys;
		c->subject.ifname = k->ifname;
		c->subject.desc = "";
	} else {
		c->subject = fab_diff_port_end(ks, k->port_idx);
	}
	c->old_text = o ? ident(d, o->m) : NULL;
	c->new_text = n ? ident(d, n->m) : NULL;
	return (o && !c->old_text) || (n && !c->new_text) ? -ENOMEM : 0;
}

static int one_fabric(struct fab_diff *d, const struct fab_snapshot *os, const struct fab_snapshot *ns,
		      bool eth)
{
	size_t no, nn, i = 0, j = 0;
	struct key *ko = keys(os, eth, &no), *kn = keys(ns, eth, &nn);
	bool both = no && nn; /* plugged or pulled only when both have modules */
	int err = ko && kn ? 0 : -ENOMEM;

	while (!err && (i < no || j < nn)) {
		int c = i == no ? 1 : j == nn ? -1 : cmp_key(&ko[i], &kn[j]);
		/* a refused dump is no evidence of anything but a module there */
		if (!c) {
			if (!ko[i].m->refused && !kn[j].m->refused && !same(ko[i].m, kn[j].m))
				err = change(d, os, ns, eth, &ko[i], &kn[j]);
			i++, j++;
		} else if (c < 0) {
			if (both && !ko[i].m->refused)
				err = change(d, os, ns, eth, &ko[i], NULL);
			i++;
		} else {
			if (both && !kn[j].m->refused)
				err = change(d, os, ns, eth, NULL, &kn[j]);
			j++;
		}
	}
	free(ko);
	free(kn);
	return err;
}

int fab_diff_modules(struct fab_diff *d, const struct fab_snapshot *os, const struct fab_snapshot *ns)
{
	int err = one_fabric(d, os, ns, false);

	return err ? err : one_fabric(d, os, ns, true);
}
