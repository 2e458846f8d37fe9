// SPDX-License-Identifier: MIT
/*
 * Snapshot diff. Nodes are matched through the GUID index of each snapshot
 * (fab_snapshot_find_node), links by merging the two snapshots' link keys
 * sorted by (GUID, port) pairs, SMs by merging port GUIDs. Nothing is
 * quadratic.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/diff.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/pkey.h"
#include "fabsweep/qos.h"
#include "fabsweep/routing.h"
#include "fabsweep/snapshot.h"
#include "diff_priv.h"


static const char *const kind_names[] = {
	[FAB_CHG_NODE_ADDED] = "node-added",
	[FAB_CHG_NODE_REMOVED] = "node-removed",
	[FAB_CHG_NODE_DESC] = "node-description",
	[FAB_CHG_LINK_ADDED] = "link-added",
	[FAB_CHG_LINK_REMOVED] = "link-removed",
	[FAB_CHG_LINK_WIDTH] = "link-width",
	[FAB_CHG_LINK_SPEED] = "link-speed",
	[FAB_CHG_LID] = "lid",
	[FAB_CHG_PORT_STATE] = "port-state",
	[FAB_CHG_SM_MASTER] = "sm-master",
	[FAB_CHG_SM_APPEARED] = "sm-appeared",
	[FAB_CHG_SM_VANISHED] = "sm-vanished",
	[FAB_CHG_SM_STATE] = "sm-state",
	[FAB_CHG_SM_PRIORITY] = "sm-priority",
	[FAB_CHG_COUNTER_INCREASE] = "counter-increase",
	[FAB_CHG_COUNTER_RESET] = "counter-reset",
	[FAB_CHG_ROUTES] = "routes",
	[FAB_CHG_PARTITION] = "partition",
	[FAB_CHG_PKEY_ENFORCEMENT] = "partition-enforcement",
	[FAB_CHG_OP_VLS] = "op-vls",
	[FAB_CHG_SL2VL] = "sl2vl",
	[FAB_CHG_VLARB] = "vlarb",
	[FAB_CHG_MODULE] = "module",
	[FAB_CHG_MCAST_ADDED] = "mcast-group-added",
	[FAB_CHG_MCAST_REMOVED] = "mcast-group-removed",
	[FAB_CHG_MCAST_TREE] = "mcast-tree",
};
static_assert(ARRAY_SIZE(kind_names) == FAB_CHG__COUNT, "kind_names");

const char *fab_change_kind_name(unsigned kind)
{
	return kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : NULL;
}

int fab_change_kind_parse(const char *s)
{
	for (unsigned i = 0; s && i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(kind_names[i], s))
			return (int)i;
	return -1;
}

void fab_diff_free(struct fab_diff *d)
{
	if (!d)
		return;
	free(d->changes);
	for (size_t i = 0; i < d->n_texts; i++)
		free(d->texts[i]);
	free(d->texts);
	free(d);
}

const char *fab_diff_strdup(struct fab_diff *d, const char *s)
{
	if (d->n_texts == d->cap_texts) {
		size_t ncap = d->cap_texts ? d->cap_texts * 2 : 16;
		char **t = realloc(d->texts, ncap * sizeof(*t));
		if (!t)
			return NULL;
		d->texts = t;
		d->cap_texts = ncap;
	}
	char *c = strdup(s);
	if (c)
		d->texts[d->n_texts++] = c;
	return c;
}

struct fab_change *fab_diff_add(struct fab_diff *d, unsigned kind)
{
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 64;
		struct fab_change *c = realloc(d->changes, ncap * sizeof(*c));
		if (!c)
			return NULL;
		d->changes = c;
		d->cap = ncap;
	}
	struct fab_change *c = &d->changes[d->n++];
	memset(c, 0, sizeof(*c));
	c->kind = (uint8_t)kind;
	c->subject.desc = c->peer.desc = "";
	d->count[kind]++;
	return c;
}

static struct fab_change_end node_end(const struct fab_snapshot *s, uint32_t node_idx,
				      unsigned port)
{
	const struct fab_node *n = &s->nodes[node_idx];

	return (struct fab_change_end){ .guid = n->guid, .port = (uint8_t)port,
					.type = n->type, .desc = n->desc, .name_hex = n->name_hex };
}

struct fab_change_end fab_diff_port_end(const struct fab_snapshot *s, uint32_t port_idx)
{
	const struct fab_port *p = &s->ports[port_idx];

	return node_end(s, p->node_idx, p->port_num);
}
#define port_end fab_diff_port_end
#define add fab_diff_add

/* The remote end of a port, or an empty end. */
static struct fab_change_end remote_end(const struct fab_snapshot *s,
					const struct fab_port *p)
{
	if (p->remote_idx != FAB_NONE && p->remote_idx < s->n_ports)
		return port_end(s, p->remote_idx);
	return (struct fab_change_end){ .desc = "" };
}

/* Whether node i is the first node with its GUID (duplicates are skipped). */
static bool first_of_guid(const struct fab_snapshot *s, uint32_t i)
{
	return fab_snapshot_find_node(s, s->nodes[i].guid) == i;
}

static int diff_counters(struct fab_diff *d, const struct fab_snapshot *os,
			 uint32_t op, const struct fab_snapshot *ns, uint32_t np)
{
	const struct fab_counter_sample *a = fab_counter_latest(os, op);
	const struct fab_counter_sample *b = fab_counter_latest(ns, np);
	struct fab_counter_delta dl;

	if (!a || !b)
		return 0;
	fab_counter_delta(a, b, fab_counter_error_mask() | fab_counter_detail_mask(), &dl);
	for (unsigned c = 0; c < FAB_CTR__COUNT; c++) {
		uint32_t bit = 1u << c;

		if (!(dl.valid & bit) || a->v[c] == b->v[c])
			continue;
		struct fab_change *ch = add(d, dl.reset & bit ? FAB_CHG_COUNTER_RESET
							      : FAB_CHG_COUNTER_INCREASE);
		if (!ch)
			return -ENOMEM;
		ch->subject = port_end(ns, np);
		ch->peer = remote_end(ns, &ns->ports[np]);
		ch->counter = (uint8_t)c;
		ch->old_value = a->v[c];
		ch->new_value = b->v[c];
		ch->increase = dl.inc[c];
		ch->saturated = dl.saturated & bit;
		ch->at_least = dl.at_least & bit;
	}
	return 0;
}

/* A port's P_Key table in both scans (read whole in both): a change per
 * partition whose membership moved, and one for the enforcement bits.
 * O(entries log entries); an unchanged table costs one comparison. */
static int diff_pkeys(struct fab_diff *d, const struct fab_snapshot *os, uint32_t op,
		      const struct fab_snapshot *ns, uint32_t np)
{
	const struct fab_port_pkeys *a = fab_pkeys_of(os, op), *b = fab_pkeys_of(ns, np);
	uint16_t x[FAB_PKEY_MAX_ENTRIES], y[FAB_PKEY_MAX_ENTRIES];
	struct fab_change *ch;

	if (!a || !b)
		return 0; /* one of the scans did not read it */
	if (a->enforce != b->enforce) {
		if (!(ch = add(d, FAB_CHG_PKEY_ENFORCEMENT)))
			return -ENOMEM;
		ch->subject = port_end(ns, np);
		ch->peer = remote_end(ns, &ns->ports[np]);
		ch->old_value = a->enforce;
		ch->new_value = b->enforce;
	}
	if (a->status != FAB_LFT_OK || b->status != FAB_LFT_OK ||
	    (a->n == b->n && (a->pkey == b->pkey || !memcmp(a->pkey, b->pkey, a->n * sizeof(*a->pkey)))))
		return 0;
	size_t nx = fab_pkeys_memberships(a, x), ny = fab_pkeys_memberships(b, y), i = 0, j = 0;
	while (i < nx || j < ny) {
		unsigned px = i < nx ? x[i] & FAB_PKEY_MASK : FAB_PKEY_MASK + 1;
		unsigned py = j < ny ? y[j] & FAB_PKEY_MASK : FAB_PKEY_MASK + 1;
		unsigned part = px < py ? px : py;
		unsigned mx = px == part ? (x[i++] & FAB_PKEY_FULL ? FAB_PKEY_FULL_MEMBER : FAB_PKEY_LIMITED)
					 : FAB_PKEY_NONE;
		unsigned my = py == part ? (y[j++] & FAB_PKEY_FULL ? FAB_PKEY_FULL_MEMBER : FAB_PKEY_LIMITED)
					 : FAB_PKEY_NONE;

		if (mx == my)
			continue;
		if (!(ch = add(d, FAB_CHG_PARTITION)))
			return -ENOMEM;
		ch->subject = port_end(ns, np);
		ch->peer = remote_end(ns, &ns->ports[np]);
		ch->partition = (uint16_t)part;
		ch->old_value = mx;
		ch->new_value = my;
	}
	return 0;
}

/* A port's OperationalVLs (both up) and VLArbitration tables (both read). */
static int diff_vl(struct fab_diff *d, const struct fab_snapshot *os, uint32_t op,
		   const struct fab_snapshot *ns, uint32_t np)
{
	const struct fab_port *a = &os->ports[op], *b = &ns->ports[np];
	const struct fab_vlarb *va = fab_qos_vlarb(os->qos, op), *vb = fab_qos_vlarb(ns->qos, np);
	struct fab_change *ch;

	if (a->state >= FAB_STATE_INIT && b->state >= FAB_STATE_INIT && a->op_vls && b->op_vls &&
	    a->op_vls != b->op_vls) {
		if (!(ch = add(d, FAB_CHG_OP_VLS)))
			return -ENOMEM;
		ch->subject = port_end(ns, np);
		ch->peer = remote_end(ns, b);
		ch->old_value = a->op_vls;
		ch->new_value = b->op_vls;
	}
	if (va && vb &&
	    (va->n_high != vb->n_high || va->n_low != vb->n_low ||
	     memcmp(va->high, vb->high, va->n_high * sizeof(*va->high)) ||
	     memcmp(va->low, vb->low, va->n_low * sizeof(*va->low)))) {
		if (!(ch = add(d, FAB_CHG_VLARB)))
			return -ENOMEM;
		ch->subject = port_end(ns, np);
		ch->peer = remote_end(ns, b);
		ch->old_value = fab_vlarb_weighted(va);
		ch->new_value = fab_vlarb_weighted(vb);
	}
	return 0;
}

/* Ports of a node present in both snapshots. */
static int diff_ports(struct fab_diff *d, const struct fab_snapshot *os, uint32_t on,
		      const struct fab_snapshot *ns, uint32_t nn)
{
	const struct fab_node *node = &ns->nodes[nn];

	for (uint32_t k = 0; k < node->port_count; k++) {
		uint32_t np = node->port_first + k;
		const struct fab_port *b = &ns->ports[np];
		const struct fab_port *a = fab_snapshot_port(os, on, b->port_num);
		int err;

		if (!a)
			continue;
		uint32_t op = (uint32_t)(a - os->ports);
		bool is_switch = node->type == FAB_NODE_SWITCH;

		if (b->port_num > 0 && (a->state != b->state || a->phys_state != b->phys_state)) {
			struct fab_change *ch = add(d, FAB_CHG_PORT_STATE);
			if (!ch)
				return -ENOMEM;
			ch->subject = port_end(ns, np);
			ch->peer = remote_end(ns, b);
			if (!ch->peer.guid)
				ch->peer = remote_end(os, a);
			ch->old_value = a->state;
			ch->new_value = b->state;
			ch->old_phys = a->phys_state;
			ch->new_phys = b->phys_state;
		}
		/* A switch has one LID (port 0); a CA has one per port. */
		if (!is_switch && b->port_num > 0 && a->lid && b->lid && a->lid != b->lid &&
		    a->state != FAB_STATE_DOWN && b->state != FAB_STATE_DOWN) {
			struct fab_change *ch = add(d, FAB_CHG_LID);
			if (!ch)
				return -ENOMEM;
			ch->subject = port_end(ns, np);
			ch->old_value = a->lid;
			ch->new_value = b->lid;
		}
		if (b->port_num > 0 && (err = diff_counters(d, os, op, ns, np)))
			return err;
		if (b->port_num > 0 && (err = diff_pkeys(d, os, op, ns, np)))
			return err;
		if (b->port_num > 0 && (err = diff_vl(d, os, op, ns, np)))
			return err;
	}
	return 0;
}

/* A switch whose table both scans have: how many LIDs moved to another
 * port (a LID past one table's top counts as 255 there; a block one of
 * them did not read is skipped). O(LIDs). */
static int diff_routes(struct fab_diff *d, const struct fab_snapshot *os, uint32_t o,
		       const struct fab_snapshot *ns, uint32_t n)
{
	const struct fab_lft *a = fab_routing_lft(os, o), *b = fab_routing_lft(ns, n);
	unsigned top, moved = 0, compared = 0;

	if (!a || !b || a->status == FAB_LFT_FAILED || b->status == FAB_LFT_FAILED)
		return 0;
	top = a->fdb_top > b->fdb_top ? a->fdb_top : b->fdb_top;
	for (unsigned lid = 1; lid <= top; lid++) {
		int ea = lid > a->fdb_top ? FAB_LFT_NO_PORT : fab_lft_entry(a, lid);
		int eb = lid > b->fdb_top ? FAB_LFT_NO_PORT : fab_lft_entry(b, lid);
		if (ea < 0 || eb < 0)
			continue;
		compared++;
		moved += ea != eb;
	}
	if (!moved)
		return 0;
	struct fab_change *ch = add(d, FAB_CHG_ROUTES);
	if (!ch)
		return -ENOMEM;
	ch->subject = node_end(ns, n, 0);
	ch->old_value = compared;
	ch->new_value = moved;
	return 0;
}

/* The SL2VL tables both scans read, by the port packets leave by: how many
 * were compared and how many changed, one change per such port. One
 * lookup per table of the new scan: O(T log T). */
static int diff_sl2vl(struct fab_diff *d, const struct fab_snapshot *os,
		      const struct fab_snapshot *ns)
{
	const struct fab_routing *ro = os->routing, *rn = ns->routing;
	uint32_t *cmp, *chg;
	int err = 0;

	if (!ro || !rn || !ro->n_sl2vl || !rn->n_sl2vl)
		return 0;
	cmp = calloc(ns->n_ports + 1, sizeof(*cmp));
	chg = calloc(ns->n_ports + 1, sizeof(*chg));
	if (!cmp || !chg) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < rn->n_sl2vl; i++) {
		const struct fab_sl2vl *b = &rn->sl2vl[i], *a;
		const struct fab_port *p;
		uint32_t on;

		if (b->node_idx >= ns->n_nodes || !(p = fab_snapshot_port(ns, b->node_idx, b->out)) ||
		    (on = fab_snapshot_find_node(os, ns->nodes[b->node_idx].guid)) == FAB_NONE ||
		    !(a = fab_routing_sl2vl(ro, on, b->in, b->out)))
			continue;
		cmp[p - ns->ports]++;
		chg[p - ns->ports] += memcmp(a->vl, b->vl, sizeof(a->vl)) != 0;
	}
	for (size_t i = 0; i < ns->n_ports; i++) {
		struct fab_change *ch;

		if (!chg[i])
			continue;
		if (!(ch = add(d, FAB_CHG_SL2VL))) {
			err = -ENOMEM;
			break;
		}
		ch->subject = port_end(ns, (uint32_t)i);
		ch->peer = remote_end(ns, &ns->ports[i]);
		ch->old_value = cmp[i];
		ch->new_value = chg[i];
	}
out:
	free(cmp);
	free(chg);
	return err;
}

static int diff_nodes(struct fab_diff *d, const struct fab_snapshot *os,
		      const struct fab_snapshot *ns)
{
	for (uint32_t i = 0; i < ns->n_nodes; i++) {
		const struct fab_node *b = &ns->nodes[i];
		struct fab_change *ch;
		int err;

		if (!first_of_guid(ns, i))
			continue;
		uint32_t o = fab_snapshot_find_node(os, b->guid);
		if (o == FAB_NONE) {
			if (!(ch = add(d, FAB_CHG_NODE_ADDED)))
				return -ENOMEM;
			ch->subject = node_end(ns, i, 0);
			continue;
		}
		const struct fab_node *a = &os->nodes[o];
		if (strcmp(a->desc, b->desc)) {
			if (!(ch = add(d, FAB_CHG_NODE_DESC)))
				return -ENOMEM;
			ch->subject = node_end(ns, i, 0);
			ch->old_text = a->desc;
			ch->new_text = b->desc;
		}
		if (b->type == FAB_NODE_SWITCH && a->lid && b->lid && a->lid != b->lid) {
			if (!(ch = add(d, FAB_CHG_LID)))
				return -ENOMEM;
			ch->subject = node_end(ns, i, 0);
			ch->old_value = a->lid;
			ch->new_value = b->lid;
		}
		if (b->type == FAB_NODE_SWITCH && (err = diff_routes(d, os, o, ns, i)))
			return err;
		if ((err = diff_ports(d, os, o, ns, i)))
			return err;
	}
	for (uint32_t i = 0; i < os->n_nodes; i++) {
		if (!first_of_guid(os, i) ||
		    fab_snapshot_find_node(ns, os->nodes[i].guid) != FAB_NONE)
			continue;
		struct fab_change *ch = add(d, FAB_CHG_NODE_REMOVED);
		if (!ch)
			return -ENOMEM;
		ch->subject = node_end(os, i, 0);
	}
	return 0;
}

/* A link by its ends, (ag, ap) < (bg, bp). */
struct link_key {
	uint64_t ag, bg;
	uint8_t ap, bp;
	uint32_t a, b; /* port indices */
};

static int cmp_key(const struct link_key *x, const struct link_key *y)
{
	if (x->ag != y->ag)
		return x->ag < y->ag ? -1 : 1;
	if (x->ap != y->ap)
		return x->ap < y->ap ? -1 : 1;
	if (x->bg != y->bg)
		return x->bg < y->bg ? -1 : 1;
	return x->bp < y->bp ? -1 : x->bp > y->bp;
}

static int cmp_key_q(const void *x, const void *y)
{
	return cmp_key(x, y);
}

static struct link_key *link_keys(const struct fab_snapshot *s)
{
	struct link_key *k = malloc((s->n_links + 1) * sizeof(*k));

	if (!k)
		return NULL;
	for (size_t i = 0; i < s->n_links; i++) {
		uint32_t a = s->links[i].a, b = s->links[i].b;
		struct link_key x = {
			.ag = s->nodes[s->ports[a].node_idx].guid, .ap = s->ports[a].port_num,
			.bg = s->nodes[s->ports[b].node_idx].guid, .bp = s->ports[b].port_num,
			.a = a, .b = b,
		};
		if (x.bg < x.ag || (x.bg == x.ag && x.bp < x.ap)) {
			k[i] = (struct link_key){ .ag = x.bg, .ap = x.bp, .bg = x.ag,
						  .bp = x.ap, .a = b, .b = a };
		} else {
			k[i] = x;
		}
	}
	qsort(k, s->n_links, sizeof(*k), cmp_key_q);
	return k;
}

static int link_change(struct fab_diff *d, unsigned kind, const struct fab_snapshot *s,
		       const struct link_key *k)
{
	struct fab_change *ch = add(d, kind);

	if (!ch)
		return -ENOMEM;
	ch->subject = port_end(s, k->a);
	ch->peer = port_end(s, k->b);
	ch->width = s->ports[k->a].width_active;
	ch->speed = s->ports[k->a].speed_active;
	return 0;
}

static int diff_links(struct fab_diff *d, const struct fab_snapshot *os,
		      const struct fab_snapshot *ns)
{
	struct link_key *ok = link_keys(os), *nk = link_keys(ns);
	size_t i = 0, j = 0;
	int err = 0;

	if (!ok || !nk) {
		err = -ENOMEM;
		goto out;
	}
	while (!err && (i < os->n_links || j < ns->n_links)) {
		int c = i == os->n_links ? 1 : j == ns->n_links ? -1 : cmp_key(&ok[i], &nk[j]);

		if (c < 0) {
			err = link_change(d, FAB_CHG_LINK_REMOVED, os, &ok[i++]);
			continue;
		}
		if (c > 0) {
			err = link_change(d, FAB_CHG_LINK_ADDED, ns, &nk[j++]);
			continue;
		}
		const struct fab_port *a = &os->ports[ok[i].a], *b = &ns->ports[nk[j].a];
		struct fab_change *ch;
		if (a->width_active != b->width_active) {
			if (!(ch = add(d, FAB_CHG_LINK_WIDTH))) {
				err = -ENOMEM;
				break;
			}
			ch->subject = port_end(ns, nk[j].a);
			ch->peer = port_end(ns, nk[j].b);
			ch->old_value = a->width_active;
			ch->new_value = b->width_active;
		}
		if (a->speed_active != b->speed_active) {
			if (!(ch = add(d, FAB_CHG_LINK_SPEED))) {
				err = -ENOMEM;
				break;
			}
			ch->subject = port_end(ns, nk[j].a);
			ch->peer = port_end(ns, nk[j].b);
			ch->old_value = a->speed_active;
			ch->new_value = b->speed_active;
		}
		i++;
		j++;
	}
out:
	free(ok);
	free(nk);
	return err;
}

static int cmp_sm(const void *x, const void *y)
{
	const struct fab_sm *a = *(const struct fab_sm *const *)x;
	const struct fab_sm *b = *(const struct fab_sm *const *)y;

	if (a->port_guid != b->port_guid)
		return a->port_guid < b->port_guid ? -1 : 1;
	return 0;
}

/* SMs sorted by port GUID (pointers into s->sms); duplicates dropped. */
static const struct fab_sm **sorted_sms(const struct fab_snapshot *s, size_t *n)
{
	const struct fab_sm **v = malloc((s->n_sms + 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n_sms; i++)
		v[i] = &s->sms[i];
	qsort(v, s->n_sms, sizeof(*v), cmp_sm);
	for (size_t i = 0; i < s->n_sms; i++)
		if (!k || v[k - 1]->port_guid != v[i]->port_guid)
			v[k++] = v[i];
	*n = k;
	return v;
}

static struct fab_change_end sm_end(const struct fab_snapshot *s, const struct fab_sm *sm)
{
	if (sm && sm->port_idx != FAB_NONE && sm->port_idx < s->n_ports)
		return port_end(s, sm->port_idx);
	return (struct fab_change_end){ .desc = "" };
}

static const struct fab_sm *master_of(const struct fab_sm **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!v[i]->failed && v[i]->state == 3)
			return v[i];
	return NULL;
}

static int diff_sms(struct fab_diff *d, const struct fab_snapshot *os,
		    const struct fab_snapshot *ns)
{
	size_t no = 0, nn = 0, i = 0, j = 0;
	const struct fab_sm **o = sorted_sms(os, &no), **n = sorted_sms(ns, &nn);
	struct fab_change *ch;
	int err = -ENOMEM;

	if (!o || !n)
		goto out;
	const struct fab_sm *om = master_of(o, no), *nm = master_of(n, nn);
	uint64_t og = om ? om->port_guid : 0, ng = nm ? nm->port_guid : 0;
	if (og != ng) {
		if (!(ch = add(d, FAB_CHG_SM_MASTER)))
			goto out;
		ch->subject = sm_end(ns, nm);
		ch->peer = sm_end(os, om);
		ch->sm_guid = ng;
		ch->old_value = og;
		ch->new_value = ng;
	}
	while (i < no || j < nn) {
		int c = i == no ? 1 : j == nn ? -1 : cmp_sm(&o[i], &n[j]);

		if (c < 0 || c > 0) {
			const struct fab_snapshot *s = c < 0 ? os : ns;
			const struct fab_sm *sm = c < 0 ? o[i++] : n[j++];
			if (!(ch = add(d, c < 0 ? FAB_CHG_SM_VANISHED : FAB_CHG_SM_APPEARED)))
				goto out;
			ch->subject = sm_end(s, sm);
			ch->sm_guid = sm->port_guid;
			ch->old_value = ch->new_value = sm->failed ? 0 : sm->state;
			continue;
		}
		const struct fab_sm *a = o[i++], *b = n[j++];
		if (a->failed || b->failed)
			continue; /* nothing reliable to compare */
		if (a->state != b->state) {
			if (!(ch = add(d, FAB_CHG_SM_STATE)))
				goto out;
			ch->subject = sm_end(ns, b);
			ch->sm_guid = b->port_guid;
			ch->old_value = a->state;
			ch->new_value = b->state;
		}
		if (a->priority != b->priority) {
			if (!(ch = add(d, FAB_CHG_SM_PRIORITY)))
				goto out;
			ch->subject = sm_end(ns, b);
			ch->sm_guid = b->port_guid;
			ch->old_value = a->priority;
			ch->new_value = b->priority;
		}
	}
	err = 0;
out:
	free(o);
	free(n);
	return err;
}

static int cmp_change(const void *x, const void *y)
{
	const struct fab_change *a = x, *b = y;

#define CMP(f) \
	if (a->f != b->f) \
		return a->f < b->f ? -1 : 1
	CMP(kind);
	int m = memcmp(a->mgid, b->mgid, sizeof(a->mgid)); /* multicast groups by MGID */
	if (m)
		return m;
	CMP(partition); /* a partition's ports together, by change */
	if (a->kind == FAB_CHG_PARTITION || a->kind == FAB_CHG_PKEY_ENFORCEMENT) {
		CMP(old_value);
		CMP(new_value);
	}
	CMP(subject.guid);
	CMP(subject.port);
	if (a->subject.system || b->subject.system) { /* Ethernet ports: by system, interface */
		int k = strcmp(a->subject.system ? a->subject.system : "", b->subject.system ? b->subject.system : "");
		if (!k)
			k = strcmp(a->subject.ifname ? a->subject.ifname : "", b->subject.ifname ? b->subject.ifname : "");
		if (k)
			return k;
	}
	CMP(sm_guid);
	CMP(counter);
	CMP(peer.guid);
	CMP(peer.port);
#undef CMP
	return 0;
}

int fab_diff_compute(const struct fab_snapshot *old_snap,
		     const struct fab_snapshot *new_snap, struct fab_diff **out)
{
	struct fab_diff *d;
	int err;

	if ((old_snap->n_nodes && !old_snap->guid_order) ||
	    (new_snap->n_nodes && !new_snap->guid_order))
		return fab_err(-EINVAL, "diff: snapshot not indexed (call fab_snapshot_index)");
	d = calloc(1, sizeof(*d));
	if (!d)
		return fab_err(-ENOMEM, "out of memory comparing snapshots");
	d->old_scan = old_snap->scan_id;
	d->new_scan = new_snap->scan_id;
	if ((err = diff_nodes(d, old_snap, new_snap)) ||
	    (err = diff_links(d, old_snap, new_snap)) ||
	    (err = diff_sms(d, old_snap, new_snap)) ||
	    (err = diff_sl2vl(d, old_snap, new_snap)) ||
	    (err = fab_diff_modules(d, old_snap, new_snap)) ||
	    (err = fab_diff_mcast(d, old_snap, new_snap))) {
		fab_diff_free(d);
		return fab_err(err, "out of memory comparing snapshots");
	}
	if (d->n)
		qsort(d->changes, d->n, sizeof(*d->changes), cmp_change);
	*out = d;
	return 0;
}
