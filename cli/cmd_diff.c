// SPDX-License-Identifier: MIT
/*
 * fabsweep diff: what changed between two snapshots, as text (stdout) and
 * optionally as XML (--xml FILE, valid against docs/fabsweep-diff.xsd).
 * The comparison itself is core/diff.c; this file only renders it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "cli/cli.h"
#include "fabsweep/counter.h"
#include "fabsweep/diff.h"
#include "fabsweep/error.h"
#include "fabsweep/export.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
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
};
_Static_assert(ARRAY_SIZE(titles) == FAB_CHG__COUNT, "titles");

static void width_str(uint64_t v, char *buf, size_t cap)
{
	const char *n = fab_width_name((unsigned)v);

	if (n)
		snprintf(buf, cap, "%s", n);
	else if (v)
		fab_widths_format((unsigned)v, buf, cap);
	else
		snprintf(buf, cap, "none");
}

static void speed_str(uint64_t v, char *buf, size_t cap)
{
	const char *n = fab_speed_name((unsigned)v);

	if (n)
		snprintf(buf, cap, "%s", n);
	else if (v)
		fab_speeds_format((unsigned)v, buf, cap);
	else
		snprintf(buf, cap, "none");
}

static const char *or_unknown(const char *s)
{
	return s ? s : "unknown";
}

/* The old and new values of a change as text; "" when the kind has none. */
static void change_values(const struct fab_change *c, char o[VAL_CAP], char n[VAL_CAP])
{
	o[0] = n[0] = '\0';
	switch (c->kind) {
	case FAB_CHG_NODE_DESC:
		snprintf(o, VAL_CAP, "%s", c->old_text ? c->old_text : "");
		snprintf(n, VAL_CAP, "%s", c->new_text ? c->new_text : "");
		break;
	case FAB_CHG_LINK_WIDTH:
		width_str(c->old_value, o, VAL_CAP);
		width_str(c->new_value, n, VAL_CAP);
		break;
	case FAB_CHG_LINK_SPEED:
		speed_str(c->old_value, o, VAL_CAP);
		speed_str(c->new_value, n, VAL_CAP);
		break;
	case FAB_CHG_PORT_STATE:
		snprintf(o, VAL_CAP, "%s", or_unknown(fab_state_name((unsigned)c->old_value)));
		snprintf(n, VAL_CAP, "%s", or_unknown(fab_state_name((unsigned)c->new_value)));
		break;
	case FAB_CHG_SM_MASTER:
		if (c->old_value)
			fab_guid_format(c->old_value, o);
		else
			snprintf(o, VAL_CAP, "none");
		if (c->new_value)
			fab_guid_format(c->new_value, n);
		else
			snprintf(n, VAL_CAP, "none");
		break;
	case FAB_CHG_SM_VANISHED:
		snprintf(o, VAL_CAP, "%s", or_unknown(fab_sm_state_name((unsigned)c->old_value)));
		break;
	case FAB_CHG_SM_APPEARED:
		snprintf(n, VAL_CAP, "%s", or_unknown(fab_sm_state_name((unsigned)c->new_value)));
		break;
	case FAB_CHG_SM_STATE:
		snprintf(o, VAL_CAP, "%s", or_unknown(fab_sm_state_name((unsigned)c->old_value)));
		snprintf(n, VAL_CAP, "%s", or_unknown(fab_sm_state_name((unsigned)c->new_value)));
		break;
	case FAB_CHG_LID:
	case FAB_CHG_SM_PRIORITY:
	case FAB_CHG_COUNTER_INCREASE:
	case FAB_CHG_COUNTER_RESET:
		snprintf(o, VAL_CAP, "%llu", (unsigned long long)c->old_value);
		snprintf(n, VAL_CAP, "%llu", (unsigned long long)c->new_value);
		break;
	default:
		break;
	}
}

/* "name" 0xGUID port N (port left out when 0). */
static void end_str(const struct fab_change_end *e, const struct fab_nodemap *names,
		    char *buf, size_t cap)
{
	char g[FAB_GUID_STRLEN];

	if (!e->guid) {
		snprintf(buf, cap, "(not in the topology)");
		return;
	}
	fab_guid_format(e->guid, g);
	int n = snprintf(buf, cap, "\"%s\" %s", fab_nodemap_name(names, e->guid, e->desc), g);
	if (e->port && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, " port %u", e->port);
}

static void text_change(FILE *f, const struct fab_change *c, const struct fab_nodemap *names)
{
	char s[VAL_CAP + 64], p[VAL_CAP + 64], o[VAL_CAP], n[VAL_CAP], g[FAB_GUID_STRLEN];

	end_str(&c->subject, names, s, sizeof(s));
	end_str(&c->peer, names, p, sizeof(p));
	change_values(c, o, n);
	fab_guid_format(c->sm_guid, g);
	switch (c->kind) {
	case FAB_CHG_NODE_ADDED:
	case FAB_CHG_NODE_REMOVED:
		fprintf(f, "  %s (%s)\n", s, fab_node_type_name(c->subject.type));
		break;
	case FAB_CHG_NODE_DESC:
		fprintf(f, "  %s: \"%s\" -> \"%s\"\n", s, o, n);
		break;
	case FAB_CHG_LINK_ADDED:
	case FAB_CHG_LINK_REMOVED:
		width_str(c->width, o, sizeof(o));
		speed_str(c->speed, n, sizeof(n));
		fprintf(f, "  %s <-> %s (%s %s)\n", s, p, o, n);
		break;
	case FAB_CHG_LINK_WIDTH:
	case FAB_CHG_LINK_SPEED:
		fprintf(f, "  %s <-> %s: %s -> %s\n", s, p, o, n);
		break;
	case FAB_CHG_LID:
		fprintf(f, "  %s: LID %s -> %s\n", s, o, n);
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
	default:
		break;
	}
}

static void scan_str(const struct fab_snapshot *s, char *buf, size_t cap)
{
	char t[FAB_TIME_STRLEN];

	fab_time_format(s->started_at_ms, t);
	snprintf(buf, cap, "scan %lld (%s%s%s)", (long long)s->scan_id, t,
		 s->status == FAB_SCAN_COMPLETE ? "" : ", ", s->status == FAB_SCAN_COMPLETE
		 ? "" : or_unknown(fab_scan_status_name(s->status)));
}

int fab_cli_diff_text(FILE *f, const struct fab_diff *d, const struct fab_snapshot *old_snap,
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
	for (size_t i = 0; i < d->n; i++) {
		const struct fab_change *c = &d->changes[i];
		if (!i || d->changes[i - 1].kind != c->kind)
			fprintf(f, "%s (%zu):\n", titles[c->kind], d->count[c->kind]);
		text_change(f, c, names);
	}
	if (ferror(f))
		return fab_err(-EIO, "cannot write the diff: %s", strerror(errno ? errno : EIO));
	return 0;
}

/* ---- XML ---------------------------------------------------------------- */

struct xw {
	xmlTextWriterPtr w;
	int err;
	char clean[FAB_DESC_CAP * 4 + 64];
};

/*
 * Makes a string XML character data: the sanitizer keeps only printable
 * UTF-8; U+FFFE and U+FFFF, which it allows but XML does not, become text.
 */
static const char *xml_clean(struct xw *x, const char *s)
{
	char tmp[sizeof(x->clean)];
	size_t n = fab_text_sanitize((const uint8_t *)s, strlen(s), tmp, sizeof(tmp)), o = 0;

	for (size_t i = 0; i < n && o + 13 < sizeof(x->clean); i++) {
		if ((unsigned char)tmp[i] == 0xef && i + 2 < n && (unsigned char)tmp[i + 1] == 0xbf &&
		    ((unsigned char)tmp[i + 2] == 0xbe || (unsigned char)tmp[i + 2] == 0xbf)) {
			o += (size_t)snprintf(x->clean + o, sizeof(x->clean) - o, "\\xef\\xbf\\x%02x",
					      (unsigned char)tmp[i + 2]);
			i += 2;
			continue;
		}
		x->clean[o++] = tmp[i];
	}
	x->clean[o] = '\0';
	return x->clean;
}

static void xstart(struct xw *x, const char *name)
{
	if (!x->err && xmlTextWriterStartElement(x->w, BAD_CAST name) < 0)
		x->err = -EIO;
}

static void xend(struct xw *x)
{
	if (!x->err && xmlTextWriterEndElement(x->w) < 0)
		x->err = -EIO;
}

static void xattr(struct xw *x, const char *name, const char *value)
{
	if (!value || x->err)
		return;
	if (xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST xml_clean(x, value)) < 0)
		x->err = -EIO;
}

static void xattr_i64(struct xw *x, const char *name, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	xattr(x, name, buf);
}

static void xend_elem(struct xw *x, const char *elem, const struct fab_change_end *e,
		      const struct fab_nodemap *names)
{
	char g[FAB_GUID_STRLEN];

	if (!e->guid)
		return;
	fab_guid_format(e->guid, g);
	xstart(x, elem);
	xattr(x, "guid", g);
	xattr_i64(x, "port", e->port);
	xattr(x, "type", fab_node_type_name(e->type));
	xattr(x, "name", fab_nodemap_name(names, e->guid, e->desc));
	xattr(x, "description", e->desc ? e->desc : "");
	xend(x);
}

static void xscan(struct xw *x, const char *elem, const struct fab_snapshot *s)
{
	char t[FAB_TIME_STRLEN];

	xstart(x, elem);
	xattr_i64(x, "scan", (long long)s->scan_id);
	fab_time_format(s->started_at_ms, t);
	xattr(x, "started", t);
	xattr(x, "status", or_unknown(fab_scan_status_name(s->status)));
	xattr(x, "label", s->label);
	xend(x);
}

int fab_cli_diff_xml(const char *path, const struct fab_diff *d,
		     const struct fab_snapshot *old_snap, const struct fab_snapshot *new_snap,
		     const struct fab_nodemap *names)
{
	struct fab_outfile *of;
	struct xw *x = calloc(1, sizeof(*x));
	xmlOutputBufferPtr buf;
	int err;

	if (!x)
		return fab_err(-ENOMEM, "out of memory writing '%s'", path);
	if ((err = fab_outfile_open(path, &of))) {
		free(x);
		return err;
	}
	buf = xmlOutputBufferCreateFile(fab_outfile_stream(of), NULL);
	x->w = buf ? xmlNewTextWriter(buf) : NULL;
	if (!x->w) {
		if (buf)
			xmlOutputBufferClose(buf);
		fab_outfile_abort(of);
		free(x);
		return fab_err(-ENOMEM, "cannot start the XML writer for '%s'", path);
	}
	xmlTextWriterSetIndent(x->w, 1);
	xmlTextWriterSetIndentString(x->w, BAD_CAST "  ");
	if (xmlTextWriterStartDocument(x->w, NULL, "UTF-8", NULL) < 0)
		x->err = -EIO;
	xstart(x, "fabsweep-diff");
	xattr(x, "version", "1");
	xattr(x, "generator", "fabsweep " FABSWEEP_VERSION);
	xscan(x, "old", old_snap);
	xscan(x, "new", new_snap);
	xstart(x, "summary");
	xattr_i64(x, "changes", (long long)d->n);
	for (unsigned k = 0; k < FAB_CHG__COUNT; k++) {
		if (!d->count[k])
			continue;
		xstart(x, "count");
		xattr(x, "kind", fab_change_kind_name(k));
		xattr_i64(x, "n", (long long)d->count[k]);
		xend(x);
	}
	xend(x);
	for (size_t i = 0; i < d->n; i++) {
		const struct fab_change *c = &d->changes[i];
		char o[VAL_CAP], n[VAL_CAP], g[FAB_GUID_STRLEN], w[64];

		change_values(c, o, n);
		xstart(x, "change");
		xattr(x, "kind", fab_change_kind_name(c->kind));
		xattr(x, "old", o[0] ? o : NULL);
		xattr(x, "new", n[0] ? n : NULL);
		switch (c->kind) {
		case FAB_CHG_LINK_ADDED:
		case FAB_CHG_LINK_REMOVED:
			width_str(c->width, w, sizeof(w));
			xattr(x, "width", w);
			speed_str(c->speed, w, sizeof(w));
			xattr(x, "speed", w);
			break;
		case FAB_CHG_PORT_STATE:
			xattr(x, "old-phys", or_unknown(fab_phys_state_name(c->old_phys)));
			xattr(x, "new-phys", or_unknown(fab_phys_state_name(c->new_phys)));
			break;
		case FAB_CHG_SM_APPEARED:
		case FAB_CHG_SM_VANISHED:
		case FAB_CHG_SM_STATE:
		case FAB_CHG_SM_PRIORITY:
			fab_guid_format(c->sm_guid, g);
			xattr(x, "sm-guid", g);
			break;
		case FAB_CHG_COUNTER_INCREASE:
		case FAB_CHG_COUNTER_RESET:
			xattr(x, "counter", fab_counter_name(c->counter));
			snprintf(w, sizeof(w), "%llu", (unsigned long long)c->increase);
			xattr(x, "increase", w);
			if (c->at_least)
				xattr(x, "at-least", "true");
			if (c->saturated)
				xattr(x, "saturated", "true");
			break;
		default:
			break;
		}
		xend_elem(x, "subject", &c->subject, names);
		xend_elem(x, "peer", &c->peer, names);
		xend(x);
	}
	xend(x);
	if (!x->err && xmlTextWriterEndDocument(x->w) < 0)
		x->err = -EIO;
	xmlFreeTextWriter(x->w); /* flushes into the stream; does not close it */
	err = x->err;
	free(x);
	if (err) {
		fab_outfile_abort(of);
		return fab_err(err, "cannot write the XML diff '%s'", path);
	}
	return fab_outfile_commit(of);
}

/* ---- the command ---------------------------------------------------------- */

static bool is_negative_id(const char *s)
{
	return s[0] == '-' && s[1] && strspn(s + 1, "0123456789") == strlen(s + 1);
}

char **fab_cli_hide_negative_ids(int argc, char **argv, const char *const *with_arg)
{
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	bool dashdash = false;

	if (!args)
		return NULL;
	for (int i = 0; i < argc; i++) {
		bool after_opt = false;
		for (const char *const *o = with_arg; i > 0 && *o; o++)
			after_opt |= !strcmp(argv[i - 1], *o);
		args[i] = argv[i];
		if (i > 0 && !dashdash && !after_opt && is_negative_id(argv[i]))
			args[i] = argv[i] + 1; /* no '-': getopt leaves it alone */
		dashdash |= !strcmp(argv[i], "--");
	}
	return args;
}

const char *fab_cli_positional(int argc, char **argv, const char *arg)
{
	for (int i = 1; i < argc; i++)
		if (arg == argv[i] + 1 && is_negative_id(argv[i]))
			return argv[i];
	return arg;
}

static int diff_main(int argc, char **argv, char **args);

int fab_cmd_diff(int argc, char **argv)
{
	static const char *const with_arg[] = { "--db", "--baseline", "--xml",
						"--node-name-map", NULL };
	char **args = fab_cli_hide_negative_ids(argc, argv, with_arg);

	if (!args)
		return fab_cli_usage_error("diff", "out of memory");
	int ret = diff_main(argc, argv, args);
	free(args);
	return ret;
}

/* argv as given; args as getopt may permute (negative scan ids hidden). */
static int diff_main(int argc, char **argv, char **args)
{
	enum { O_DB = 256, O_BASE, O_XML, O_MAP, O_EXIT, O_QUIET };
	static const struct option opts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "baseline", required_argument, NULL, O_BASE },
		{ "xml", required_argument, NULL, O_XML },
		{ "node-name-map", required_argument, NULL, O_MAP },
		{ "exit-code", no_argument, NULL, O_EXIT },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = fab_cli_default_db(), *baseline = NULL, *xml = NULL, *map_path = NULL;
	bool exit_code = false, quiet = false;
	int64_t ids[2] = { 0, 0 };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, args, "", opts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case O_BASE: baseline = optarg; break;
		case O_XML: xml = optarg; break;
		case O_MAP: map_path = optarg; break;
		case O_EXIT: exit_code = true; break;
		case O_QUIET: quiet = true; break;
		default:
			return fab_cli_usage_error("diff", "unknown option '%s'; 'fabsweep help diff' lists them",
						   args[optind - 1]);
		}
	}
	int npos = argc - optind, want = baseline ? 1 : 2;
	if (npos > want)
		return fab_cli_usage_error("diff", "unexpected argument '%s'",
					   fab_cli_positional(argc, argv, args[optind + want]));
	if (!baseline && npos < 2)
		return fab_cli_usage_error("diff", "which scans? 'fabsweep diff OLD NEW' or"
					   " 'fabsweep diff --baseline ID|NAME [NEW]'");
	for (int i = 0; i < npos; i++) {
		const char *a = fab_cli_positional(argc, argv, args[optind + i]);
		if (fab_cli_parse_scan(a, &ids[baseline ? 1 : i]))
			return fab_cli_usage_error("diff", "'%s' is not a scan id (a number, 'latest',"
						   " or -N for N before the latest)", a);
	}
	int64_t probe;
	if (baseline && !fab_baseline_name_valid(baseline) &&
	    fab_cli_parse_scan(baseline, &probe))
		return fab_cli_usage_error("diff", "--baseline takes a scan id or a baseline name,"
					   " not '%s'", baseline);

	struct fab_nodemap *names = NULL;
	struct fab_store *st = NULL;
	struct fab_snapshot *snaps[2] = { NULL, NULL };
	struct fab_diff *d = NULL;
	int ret = FAB_EXIT_RUNTIME;

	if (fab_nodemap_open(map_path, &names) || fab_store_open(db, FAB_STORE_READONLY, &st))
		goto out;
	if (baseline && fab_store_baseline_resolve(st, baseline, &ids[0]))
		goto out;
	for (int i = 0; i < 2; i++)
		if (fab_store_resolve_scan(st, ids[i], &ids[i]) ||
		    fab_store_load_scan(st, ids[i], &snaps[i]))
			goto out;
	if (fab_diff_compute(snaps[0], snaps[1], &d))
		goto out;
	if (!quiet && fab_cli_diff_text(stdout, d, snaps[0], snaps[1], names))
		goto out;
	if (xml && fab_cli_diff_xml(xml, d, snaps[0], snaps[1], names))
		goto out;
	ret = exit_code && d->n ? FAB_EXIT_FINDINGS : FAB_EXIT_OK;
out:
	if (ret == FAB_EXIT_RUNTIME)
		fab_cli_fail();
	fab_diff_free(d);
	fab_snapshot_free(snaps[0]);
	fab_snapshot_free(snaps[1]);
	fab_store_close(st);
	fab_nodemap_free(names);
	return ret;
}
