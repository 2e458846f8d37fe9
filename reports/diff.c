// SPDX-License-Identifier: MIT
/*
 * A diff of two snapshots (core/diff.c) rendered for people (text) and
 * programs (XML valid against docs/fabsweep-diff.xsd): `fabsweep diff`.
 * Values through model.c's one formatter, XML through xmlw, the file
 * through atomic.c, like every report.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "atomic.h"
#include "fabsweep/counter.h"
#include "fabsweep/diff.h"
#include "fabsweep/error.h"
#include "fabsweep/mcast.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"
#include "model.h"
#include "xmlw.h"

#define VAL_CAP 320 /* a description is at most FAB_DESC_CAP (257) bytes */

static const char *const titles[] = {
	[FAB_CHG_NODE_ADDED] = "nodes added",
	[FAB_CHG_NODE_REMOVED] = "nodes removed",
	[FAB_CHG_NODE_DESC] = "node descriptions changed",
	[FAB_CHG_LINK_ADDED] = "links added",
	[FAB_CHG_LINK_REMOVED] = "links removed",
	[FAB_CHG_LINK_WIDTH] = "link widths changed",
	[FAB_CHG_LINK_SPEED] = "link speeds changed",
	[FAB_CHG_LID] = "LIDs changed",
	[FAB_CHG_PORT_STATE] = "port states changed",
	[FAB_CHG_SM_MASTER] = "master subnet manager moved",
	[FAB_CHG_SM_APPEARED] = "subnet managers appeared",
	[FAB_CHG_SM_VANISHED] = "subnet managers vanished",
	[FAB_CHG_SM_STATE] = "subnet manager states changed",
	[FAB_CHG_SM_PRIORITY] = "subnet manager priorities changed",
	[FAB_CHG_COUNTER_INCREASE] = "error counters increased",
	[FAB_CHG_COUNTER_RESET] = "error counters reset (went down: cleared in between)",
	[FAB_CHG_ROUTES] = "forwarding tables changed",
	[FAB_CHG_PARTITION] = "partition memberships changed",
	[FAB_CHG_PKEY_ENFORCEMENT] = "partition enforcement changed (switch ports)",
	[FAB_CHG_OP_VLS] = "operational virtual lanes changed",
	[FAB_CHG_SL2VL] = "SL2VL tables changed",
	[FAB_CHG_VLARB] = "VL arbitration tables changed",
	[FAB_CHG_MODULE] = "modules or cables changed (vendor, part or serial number), plugged or pulled",
	[FAB_CHG_MCAST_ADDED] = "multicast groups created",
	[FAB_CHG_MCAST_REMOVED] = "multicast groups deleted",
	[FAB_CHG_MCAST_TREE] = "multicast trees changed",
};
_Static_assert(ARRAY_SIZE(titles) == FAB_CHG__COUNT, "titles");

static const char *or_unknown(const char *s)
{
	return s ? s : "unknown";
}

/* ---- text ------------------------------------------------------------------ */

/* "name" 0xGUID port N (port left out when 0). */
static void end_str(const struct fab_change_end *e, const struct fab_nodemap *names,
		    char *buf, size_t cap)
{
	char g[FAB_GUID_STRLEN], nb[FAB_NODE_NAME_CAP];

	if (e->system) { /* an Ethernet port of a RoCE host */
		snprintf(buf, cap, "%s/%s", e->system, e->ifname ? e->ifname : "?");
		return;
	}
	if (!e->guid) {
		snprintf(buf, cap, "(not in the topology)");
		return;
	}
	fab_guid_format(e->guid, g);
	int n = snprintf(buf, cap, "\"%s\" %s",
			 fab_name_format(names, e->guid, e->desc, e->name_hex, nb, sizeof(nb)), g);
	if (e->port && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, " port %u", e->port);
}

static void text_change(FILE *f, const struct fab_change *c, const struct fab_nodemap *names)
{
	char s[VAL_CAP + 64], p[VAL_CAP + 64], o[VAL_CAP], n[VAL_CAP], g[FAB_GUID_STRLEN];

	end_str(&c->subject, names, s, sizeof(s));
	end_str(&c->peer, names, p, sizeof(p));
	fab_report_change_text(c, o, n, VAL_CAP);
	fab_guid_format(c->sm_guid, g);
	switch (c->kind) {
	case FAB_CHG_NODE_ADDED:
	case FAB_CHG_NODE_REMOVED:
		fprintf(f, "  %s (%s)\n", s, fab_node_type_name(c->subject.type));
		break;
	case FAB_CHG_NODE_DESC:
		fprintf(f, "  %s: \"%s\" -> \"%s\"\n", s, o, n);
		break;
	case FAB_CHG_MODULE:
		fprintf(f, "  %s: %s -> %s\n", s, o, n);
		break;
	case FAB_CHG_LINK_ADDED:
	case FAB_CHG_LINK_REMOVED:
		fab_report_widths_text(c->width, o, sizeof(o));
		fab_report_speeds_text(c->speed, n, sizeof(n));
		fprintf(f, "  %s <-> %s (%s %s)\n", s, p, o, n);
		break;
	case FAB_CHG_LINK_WIDTH:
	case FAB_CHG_LINK_SPEED:
		fprintf(f, "  %s <-> %s: %s -> %s\n", s, p, o, n);
		break;
	case FAB_CHG_LID:
		fprintf(f, "  %s: LID %s -> %s\n", s, o, n);
		break;
	case FAB_CHG_ROUTES:
		fprintf(f, "  %s: %s of %s LIDs leave by another port\n", s, n, o);
		break;
	case FAB_CHG_OP_VLS:
		fprintf(f, "  %s: %s -> %s\n", s, o, n);
		break;
	case FAB_CHG_SL2VL:
		fprintf(f, "  %s: %s of %s tables of packets leaving here map an SL to another VL\n", s,
			n, o);
		break;
	case FAB_CHG_VLARB:
		fprintf(f, "  %s: weighted VLs %s -> %s\n", s, o, n);
		break;
	case FAB_CHG_PORT_STATE:
		fprintf(f, "  %s: %s/%s -> %s/%s", s, o,
			or_unknown(fab_phys_state_name(c->old_phys)), n,
			or_unknown(fab_phys_state_name(c->new_phys)));
		if (c->peer.guid)
			fprintf(f, " (cabled to %s)", p);
		fputc('\n', f);
		break;
	case FAB_CHG_SM_MASTER:
		fprintf(f, "  %s", o);
		if (c->peer.guid)
			fprintf(f, " on %s", p);
		fprintf(f, " -> %s", n);
		if (c->subject.guid)
			fprintf(f, " on %s", s);
		fputc('\n', f);
		break;
	case FAB_CHG_SM_APPEARED:
	case FAB_CHG_SM_VANISHED:
		fprintf(f, "  SM %s on %s (%s)\n", g, s, c->kind == FAB_CHG_SM_APPEARED ? n : o);
		break;
	case FAB_CHG_SM_STATE:
		fprintf(f, "  SM %s on %s: %s -> %s\n", g, s, o, n);
		break;
	case FAB_CHG_SM_PRIORITY:
		fprintf(f, "  SM %s on %s: priority %s -> %s\n", g, s, o, n);
		break;
	case FAB_CHG_COUNTER_INCREASE: /* c->increase: the counter model's (core/counter.c) */
		fprintf(f, "  %s %s: %s -> %s (+%llu)%s\n", s, fab_counter_name(c->counter), o, n,
			(unsigned long long)c->increase,
			c->saturated ? ", saturated: at least that many" : "");
		break;
	case FAB_CHG_COUNTER_RESET:
		fprintf(f, "  %s %s: %s -> %s (reset; %llu since)\n", s, fab_counter_name(c->counter),
			o, n, (unsigned long long)c->increase);
		break;
	case FAB_CHG_MCAST_ADDED:
	case FAB_CHG_MCAST_REMOVED: {
		char mg[FAB_MGID_STRLEN];
		uint64_t m = c->kind == FAB_CHG_MCAST_ADDED ? c->new_value : c->old_value;
		fprintf(f, "  %s (MLID 0x%04x, %llu member%s)\n", fab_mgid_format(c->mgid, mg), c->mlid,
			(unsigned long long)m, m == 1 ? "" : "s");
		break;
	}
	case FAB_CHG_MCAST_TREE: {
		char mg[FAB_MGID_STRLEN];
		fprintf(f, "  %s (MLID 0x%04x", fab_mgid_format(c->mgid, mg), c->mlid);
		if (c->old_mlid != c->mlid)
			fprintf(f, ", was 0x%04x", c->old_mlid);
		fprintf(f, "): the entries of %u switch%s changed; %s -> %s switches in the tree\n",
			c->switches_changed, c->switches_changed == 1 ? "" : "es", o, n);
		break;
	}
	default:
		break;
	}
}

/* Ports named per line of a partition change; the others are counted. */
#define GROUP_NAMED 5

/*
 * The partition changes from d->changes[i] on that are the same change
 * (kind, partition, old -> new; core/diff.c sorts them together), in one
 * line: how many ports and the first GROUP_NAMED by name. Returns how many
 * changes it covered.
 */
static size_t text_group(FILE *f, const struct fab_diff *d, size_t i,
			 const struct fab_nodemap *names)
{
	const struct fab_change *c = &d->changes[i];
	char s[VAL_CAP + 64], o[VAL_CAP], n[VAL_CAP];
	size_t k = i;

	while (k < d->n && d->changes[k].kind == c->kind && d->changes[k].partition == c->partition &&
	       d->changes[k].old_value == c->old_value && d->changes[k].new_value == c->new_value)
		k++;
	fab_report_change_text(c, o, n, VAL_CAP);
	if (c->kind == FAB_CHG_PARTITION)
		fprintf(f, "  partition 0x%04x: %s -> %s at %zu port%s:", c->partition, o, n, k - i,
			k - i == 1 ? "" : "s");
	else
		fprintf(f, "  %s -> %s at %zu port%s:", o, n, k - i, k - i == 1 ? "" : "s");
	for (size_t j = i; j < k && j < i + GROUP_NAMED; j++) {
		end_str(&d->changes[j].subject, names, s, sizeof(s));
		fprintf(f, "%s %s", j > i ? "," : "", s);
	}
	if (k - i > GROUP_NAMED)
		fprintf(f, " and %zu more", k - i - GROUP_NAMED);
	fputc('\n', f);
	return k - i;
}

static void scan_str(const struct fab_snapshot *s, char *buf, size_t cap)
{
	char t[FAB_TIME_STRLEN];

	fab_time_format(s->started_at_ms, t);
	snprintf(buf, cap, "scan %lld (%s%s%s)", (long long)s->scan_id, t,
		 s->status == FAB_SCAN_COMPLETE ? "" : ", ", s->status == FAB_SCAN_COMPLETE
		 ? "" : or_unknown(fab_scan_status_name(s->status)));
}

int fab_report_diff_text(FILE *f, const struct fab_diff *d, const struct fab_snapshot *old_snap,
			 const struct fab_snapshot *new_snap, const struct fab_nodemap *names)
{
	char a[96], b[96];

	scan_str(old_snap, a, sizeof(a));
	scan_str(new_snap, b, sizeof(b));
	fprintf(f, "%s -> %s: ", a, b);
	if (!d->n)
		fprintf(f, "no changes\n");
	else
		fprintf(f, "%zu change%s\n", d->n, d->n == 1 ? "" : "s");
	for (size_t i = 0; i < d->n;) {
		const struct fab_change *c = &d->changes[i];
		if (!i || d->changes[i - 1].kind != c->kind)
			fprintf(f, "%s (%zu):\n", titles[c->kind], d->count[c->kind]);
		if (c->kind == FAB_CHG_PARTITION || c->kind == FAB_CHG_PKEY_ENFORCEMENT) {
			i += text_group(f, d, i, names);
			continue;
		}
		text_change(f, c, names);
		i++;
	}
	if (ferror(f))
		return fab_err(-EIO, "cannot write the diff: %s", strerror(errno ? errno : EIO));
	return 0;
}

/* ---- XML ------------------------------------------------------------------- */

static void xml_end(struct fab_xw *x, const char *elem, const struct fab_change_end *e,
		    const struct fab_nodemap *names)
{
	if (!e->guid)
		return;
	fab_xw_start(x, elem);
	fab_xw_attr_guid(x, "guid", e->guid);
	fab_xw_attr_i64(x, "port", e->port);
	fab_xw_attr_lit(x, "type", fab_node_type_name(e->type));
	char nb[FAB_NODE_NAME_CAP];

	fab_xw_attr(x, "name", fab_name_format(names, e->guid, e->desc, e->name_hex, nb, sizeof(nb)));
	fab_xw_attr(x, "description", e->desc ? e->desc : "");
	fab_xw_end(x);
}

static void xml_scan(struct fab_xw *x, const char *elem, const struct fab_snapshot *s)
{
	fab_xw_start(x, elem);
	fab_xw_attr_i64(x, "scan", s->scan_id);
	fab_xw_attr_time(x, "started", s->started_at_ms);
	fab_xw_attr_lit(x, "status", or_unknown(fab_scan_status_name(s->status)));
	fab_xw_attr(x, "label", s->label);
	fab_xw_end(x);
}

static void xml_change(struct fab_xw *x, const struct fab_change *c,
		       const struct fab_nodemap *names)
{
	char o[VAL_CAP], n[VAL_CAP], w[64];

	fab_report_change_text(c, o, n, VAL_CAP);
	fab_xw_start(x, "change");
	fab_xw_attr_lit(x, "kind", fab_change_kind_name(c->kind));
	fab_xw_attr(x, "old", o[0] ? o : NULL);
	fab_xw_attr(x, "new", n[0] ? n : NULL);
	switch (c->kind) {
	case FAB_CHG_LINK_ADDED:
	case FAB_CHG_LINK_REMOVED:
		fab_report_widths_text(c->width, w, sizeof(w));
		fab_xw_attr_lit(x, "width", w);
		fab_report_speeds_text(c->speed, w, sizeof(w));
		fab_xw_attr_lit(x, "speed", w);
		break;
	case FAB_CHG_PORT_STATE:
		fab_xw_attr_lit(x, "old-phys", or_unknown(fab_phys_state_name(c->old_phys)));
		fab_xw_attr_lit(x, "new-phys", or_unknown(fab_phys_state_name(c->new_phys)));
		break;
	case FAB_CHG_SM_APPEARED:
	case FAB_CHG_SM_VANISHED:
	case FAB_CHG_SM_STATE:
	case FAB_CHG_SM_PRIORITY:
		fab_xw_attr_guid(x, "sm-guid", c->sm_guid);
		break;
	case FAB_CHG_PARTITION:
		snprintf(w, sizeof(w), "0x%04x", c->partition);
		fab_xw_attr_lit(x, "partition", w);
		break;
	case FAB_CHG_MCAST_ADDED:
	case FAB_CHG_MCAST_REMOVED:
	case FAB_CHG_MCAST_TREE:
		fab_xw_attr_lit(x, "mgid", fab_mgid_format(c->mgid, w));
		snprintf(w, sizeof(w), "0x%04x", c->mlid);
		fab_xw_attr_lit(x, "mlid", w);
		if (c->kind != FAB_CHG_MCAST_TREE)
			break;
		snprintf(w, sizeof(w), "0x%04x", c->old_mlid);
		fab_xw_attr_lit(x, "old-mlid", w);
		fab_xw_attr_u64(x, "switches-changed", c->switches_changed);
		break;
	case FAB_CHG_COUNTER_INCREASE:
	case FAB_CHG_COUNTER_RESET:
		fab_xw_attr_lit(x, "counter", fab_counter_name(c->counter));
		fab_xw_attr_u64(x, "increase", c->increase);
		if (c->at_least)
			fab_xw_attr_lit(x, "at-least", "true");
		if (c->saturated)
			fab_xw_attr_lit(x, "saturated", "true");
		break;
	default:
		break;
	}
	xml_end(x, "subject", &c->subject, names);
	xml_end(x, "peer", &c->peer, names);
	fab_report_xml_eth_end(x, &c->subject);
	fab_xw_end(x);
}

int fab_report_diff_xml(const char *path, const struct fab_diff *d,
			const struct fab_snapshot *old_snap, const struct fab_snapshot *new_snap,
			const struct fab_nodemap *names)
{
	struct fab_report_file rf;
	struct fab_xw x;
	int err;

	if ((err = fab_report_file_open(path, &rf)))
		return err;
	fab_xw_open(&x, rf.f, "  ");
	fab_xw_start(&x, "fabsweep-diff");
	fab_xw_attr_lit(&x, "version", "1");
	fab_xw_attr_lit(&x, "generator", "fabsweep " FABSWEEP_VERSION);
	xml_scan(&x, "old", old_snap);
	xml_scan(&x, "new", new_snap);
	fab_xw_start(&x, "summary");
	fab_xw_attr_u64(&x, "changes", d->n);
	for (unsigned k = 0; k < FAB_CHG__COUNT; k++) {
		if (!d->count[k])
			continue;
		fab_xw_start(&x, "count");
		fab_xw_attr_lit(&x, "kind", fab_change_kind_name(k));
		fab_xw_attr_u64(&x, "n", d->count[k]);
		fab_xw_end(&x);
	}
	fab_xw_end(&x);
	for (size_t i = 0; i < d->n && !x.err; i++)
		xml_change(&x, &d->changes[i], names);
	fab_xw_end(&x);
	if ((err = fab_xw_close(&x))) {
		fab_report_file_abort(&rf);
		return fab_err(err, "cannot write the XML diff '%s'", path);
	}
	return fab_report_file_commit(&rf);
}
