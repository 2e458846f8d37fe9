// SPDX-License-Identifier: MIT
/*
 * The Prometheus text exposition format (0.0.4) of one snapshot, for
 * node_exporter's textfile collector. Every label value goes through
 * put_label_value(): the one place this format is escaped.
 *
 * A family's samples are contiguous and each family has one HELP and one
 * TYPE line; series are unique (devices that share a GUID appear once, as
 * the first of them). No sample carries a timestamp.
 *
 * Conventions (docs/workflows.md): base units in names (_bytes,
 * _bytes_per_second, _transfers_per_second, _seconds; promtool wants bytes,
 * not bits); node and port series
 * are keyed by node_guid (and port) alone, and the node's name, description
 * and type are on its one fabsweep_node_info series, to be joined on
 * node_guid; fabsweep_build_info says which fabsweep wrote the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/nodemap.h"
#include "fabsweep/report.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "prom.h"

/* Longest label value written, in input bytes; longer ones are cut. */
#define LABEL_VALUE_MAX 1024

/* ---- writing ------------------------------------------------------------- */

struct pw {
	FILE *f;
	const struct fab_snapshot *snap;
	const struct fab_nodemap *names;
	struct fab_counter_pairs pairs; /* the samples compared (core/counter.c) */
};

/*
 * Writes a label value escaped as the format wants: \\ \" \n. Other control
 * bytes and bytes that are not UTF-8 cannot appear in a label value at all;
 * they are written as the text \xNN (fab_text_sanitize), whose backslash is
 * then escaped like any other.
 */
static void put_label_value(FILE *f, const char *v)
{
	char clean[LABEL_VALUE_MAX * 4 + 1];
	size_t len = strnlen(v, LABEL_VALUE_MAX);

	for (size_t i = 0; i <= len;) {
		const char *nl = memchr(v + i, '\n', len - i);
		size_t run = nl ? (size_t)(nl - (v + i)) : len - i;

		fab_text_sanitize((const uint8_t *)v + i, run, clean, sizeof(clean));
		for (const char *c = clean; *c; c++) {
			if (*c == '\\' || *c == '"')
				fputc('\\', f);
			fputc(*c, f);
		}
		if (!nl)
			break;
		fputs("\\n", f);
		i += run + 1;
	}
}

static void family(struct pw *w, const char *name, const char *type, const char *help)
{
	fprintf(w->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void series(struct pw *w, const char *name, const struct label *l, size_t n)
{
	fputs(name, w->f);
	if (!n)
		return;
	fputc('{', w->f);
	for (size_t i = 0; i < n; i++) {
		fprintf(w->f, "%s%s=\"", i ? "," : "", l[i].name);
		put_label_value(w->f, l[i].value ? l[i].value : "");
		fputc('"', w->f);
	}
	fputc('}', w->f);
}

static void sample_u64(struct pw *w, const char *name, const struct label *l, size_t n,
		       uint64_t v)
{
	series(w, name, l, n);
	fprintf(w->f, " %llu\n", (unsigned long long)v);
}

static void sample_dbl(struct pw *w, const char *name, const struct label *l, size_t n,
		       double v)
{
	series(w, name, l, n);
	fprintf(w->f, " %.10g\n", v);
}

/* Seconds from milliseconds, exactly: "1764557635.123". */
static void sample_ms(struct pw *w, const char *name, int64_t ms)
{
	series(w, name, NULL, 0);
	if (ms < 0)
		ms = 0;
	fprintf(w->f, " %lld.%03lld\n", (long long)(ms / 1000), (long long)(ms % 1000));
}

/* Labels of a port: node_guid, port (+ one extra). Names are on
 * fabsweep_node_info only. */
struct port_labels {
	char guid[FAB_GUID_STRLEN];
	char port[8];
	struct label l[3];
};

static void port_labels(const struct pw *w, const struct fab_port *p, struct port_labels *pl)
{
	const struct fab_node *n = &w->snap->nodes[p->node_idx];

	fab_guid_format(n->guid, pl->guid);
	snprintf(pl->port, sizeof(pl->port), "%u", p->port_num);
	pl->l[0] = (struct label){ "node_guid", pl->guid };
	pl->l[1] = (struct label){ "port", pl->port };
	pl->l[2] = (struct label){ NULL, NULL };
}

/* Nodes that are the first with their GUID. */
static bool node_wanted(const struct fab_snapshot *s, uint32_t i)
{
	return fab_snapshot_find_node(s, s->nodes[i].guid) == i;
}

/* External ports of nodes that are the first with their GUID. */
static bool port_wanted(const struct fab_snapshot *s, const struct fab_port *p)
{
	return p->port_num > 0 && node_wanted(s, p->node_idx);
}

/* Counters exported by direction, as totals and as rates between the
 * samples compared: data (x4: octets) and packets. */
static const struct {
	const char *family, *help, *rate_family, *rate_help;
	unsigned xmit, rcv;
	unsigned scale;
} flows[] = {
	{ "fabsweep_port_data_bytes_total",
	  "Bytes sent (xmit) and received (rcv): PortXmitData/PortRcvData times 4.",
	  "fabsweep_port_data_rate_bytes_per_second",
	  "Bytes per second sent (xmit) and received (rcv) between the samples compared"
	  " (as fabsweep_port_error_rate_per_second); a lower bound when a counter was reset or saturated.",
	  FAB_CTR_XMIT_DATA, FAB_CTR_RCV_DATA, 4 },
	{ "fabsweep_port_packets_total", "Packets sent (xmit) and received (rcv).",
	  "fabsweep_port_packet_rate_per_second",
	  "Packets per second sent (xmit) and received (rcv) between the samples compared;"
	  " a lower bound when a counter was reset or saturated.",
	  FAB_CTR_XMIT_PKTS, FAB_CTR_RCV_PKTS, 1 },
};

static void write_scan(struct pw *w)
{
	const struct fab_snapshot *s = w->snap;
	static const char *const types[] = { "switch", "ca", "router" };
	static const uint8_t type_vals[] = { FAB_NODE_SWITCH, FAB_NODE_CA, FAB_NODE_ROUTER };

	family(w, "fabsweep_build_info", "gauge", "1, with the version of fabsweep that wrote the file.");
	struct label version = { "version", FABSWEEP_VERSION };
	sample_u64(w, "fabsweep_build_info", &version, 1, 1);
	family(w, "fabsweep_scan_id", "gauge", "Id of the exported scan in the fabsweep database.");
	sample_u64(w, "fabsweep_scan_id", NULL, 0, (uint64_t)(s->scan_id > 0 ? s->scan_id : 0));
	family(w, "fabsweep_scan_timestamp_seconds", "gauge",
	       "When the exported scan started, Unix time.");
	sample_ms(w, "fabsweep_scan_timestamp_seconds", s->started_at_ms);
	family(w, "fabsweep_scan_duration_seconds", "gauge", "How long the scan took.");
	sample_ms(w, "fabsweep_scan_duration_seconds",
		  s->finished_at_ms > s->started_at_ms ? s->finished_at_ms - s->started_at_ms : 0);
	family(w, "fabsweep_scan_status", "gauge",
	       "1 for the status of the scan (complete, partial, failed), 0 for the others.");
	for (unsigned st = 0; st < FAB_SCAN__COUNT; st++) {
		struct label l = { "status", fab_scan_status_name(st) };
		sample_u64(w, "fabsweep_scan_status", &l, 1, s->status == st);
	}
	family(w, "fabsweep_scan_missed_items", "gauge",
	       "Nodes, ports or queries the scan could not see (scan_errors).");
	sample_u64(w, "fabsweep_scan_missed_items", NULL, 0, s->n_errors);
	family(w, "fabsweep_scan_checked", "gauge",
	       "1 when fabsweep check has run on the scan (else the findings families are empty, not clean).");
	sample_u64(w, "fabsweep_scan_checked", NULL, 0, s->checked_at_ms != 0);
	family(w, "fabsweep_nodes", "gauge", "Devices found, by node type.");
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		uint64_t n = 0;
		for (size_t i = 0; i < s->n_nodes; i++)
			n += s->nodes[i].type == type_vals[t];
		struct label l = { "type", types[t] };
		sample_u64(w, "fabsweep_nodes", &l, 1, n);
	}
	family(w, "fabsweep_links", "gauge", "Links found (each cable once).");
	sample_u64(w, "fabsweep_links", NULL, 0, s->n_links);
	family(w, "fabsweep_node_info", "gauge",
	       "1 per device: its name (node-name-map, else the description, with GUID digits when"
	       " shared), NodeDescription and type;"
	       " join on node_guid.");
	for (uint32_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		const char *type = fab_node_type_name(n->type);
		char g[FAB_GUID_STRLEN], nb[FAB_NODE_NAME_CAP];

		if (!node_wanted(s, i))
			continue;
		fab_guid_format(n->guid, g);
		struct label l[4] = { { "node_guid", g },
				      { "node", fab_node_name(s, i, w->names, nb, sizeof(nb)) },
				      { "description", n->desc },
				      { "type", type ? type : "unknown" } };
		sample_u64(w, "fabsweep_node_info", l, 4, 1);
	}
}

static void write_ports(struct pw *w)
{
	const struct fab_snapshot *s = w->snap;
	struct port_labels pl;

	family(w, "fabsweep_port_state", "gauge",
	       "PortInfo PortState: 1 down, 2 init, 3 armed, 4 active (0 unknown).");
	for (uint32_t i = 0; i < s->n_ports; i++)
		if (port_wanted(s, &s->ports[i])) {
			port_labels(w, &s->ports[i], &pl);
			sample_u64(w, "fabsweep_port_state", pl.l, 2, s->ports[i].state);
		}
	family(w, "fabsweep_port_phys_state", "gauge",
	       "PortInfo PortPhysicalState: 2 polling, 3 disabled, 5 linkup, ... (0 unknown).");
	for (uint32_t i = 0; i < s->n_ports; i++)
		if (port_wanted(s, &s->ports[i])) {
			port_labels(w, &s->ports[i], &pl);
			sample_u64(w, "fabsweep_port_phys_state", pl.l, 2, s->ports[i].phys_state);
		}

	/* Link width and speed of active ports, in bytes per second. */
	static const struct { const char *name, *help; int what; } link_fams[] = {
		{ "fabsweep_port_link_width_lanes", "Active link width in lanes (4 for 4X).", 0 },
		{ "fabsweep_port_link_lane_speed_bytes_per_second",
		  "Active link speed per lane, nominal (HDR 50 Gb/s: 6.25e9, NDR 100 Gb/s: 12.5e9).", 1 },
		{ "fabsweep_port_link_rate_bytes_per_second",
		  "Nominal data rate of the link (4X HDR 200 Gb/s: 25e9).", 2 },
	};
	for (size_t k = 0; k < sizeof(link_fams) / sizeof(link_fams[0]); k++) {
		family(w, link_fams[k].name, "gauge", link_fams[k].help);
		for (uint32_t i = 0; i < s->n_ports; i++) {
			const struct fab_port *p = &s->ports[i];
			if (!port_wanted(s, p) || p->state != FAB_STATE_ACTIVE)
				continue;
			double v = fab_rate_gbps(p->width_active, p->speed_active);
			unsigned lanes = fab_width_lanes(p->width_active);
			if (!lanes || v <= 0)
				continue;
			port_labels(w, p, &pl);
			if (link_fams[k].what == 0)
				sample_u64(w, link_fams[k].name, pl.l, 2, lanes);
			else
				sample_dbl(w, link_fams[k].name, pl.l, 2,
					   1e9 / 8 * (link_fams[k].what == 1 ? v / lanes : v));
		}
	}
}

/* What the error counters of a port counted between the samples compared
 * (the counter model): the increase, whether a reset made it "at least",
 * and the rate. One family each, one series per counter. */
static void write_increases(struct pw *w)
{
	const struct fab_snapshot *s = w->snap;
	static const struct { const char *name, *type, *help; int what; } fams[] = {
		{ "fabsweep_port_error_increase", "gauge",
		  "Error counter increase between the samples compared: the baseline's and the scan's"
		  " (export --baseline, sweep), else the scan's two (scan --interval). After a reset"
		  " the value counted since; a lower bound when reset or saturated.", 0 },
		{ "fabsweep_port_error_reset", "gauge",
		  "1 when the error counter went down between the samples compared: cleared in between.", 1 },
		{ "fabsweep_port_error_rate_per_second", "gauge",
		  "fabsweep_port_error_increase per second between the samples compared.", 2 },
	};
	uint32_t errors = fab_counter_error_mask();
	struct port_labels pl;

	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		family(w, fams[f].name, fams[f].type, fams[f].help);
		for (uint32_t i = 0; i < s->n_ports; i++) {
			struct fab_counter_delta d;

			if (!port_wanted(s, &s->ports[i]) || !fab_counter_pairs_delta(&w->pairs, i, errors, &d))
				continue;
			port_labels(w, &s->ports[i], &pl);
			for (unsigned k = 0; k < FAB_CTR__COUNT; k++) {
				double r;

				if (!fab_counter_is_error(k) || !(d.valid & (1u << k)))
					continue;
				pl.l[2] = (struct label){ "counter", fab_counter_name(k) };
				if (fams[f].what == 0)
					sample_u64(w, fams[f].name, pl.l, 3, d.inc[k]);
				else if (fams[f].what == 1)
					sample_u64(w, fams[f].name, pl.l, 3, !!(d.reset & (1u << k)));
				else if (fab_counter_rate(&d, k, &r))
					sample_dbl(w, fams[f].name, pl.l, 3, r);
			}
		}
	}
}

/* Data and packet rates between the samples compared, from the counter
 * model's rates (fab_counter_rate), as the error rates are. */
static void write_flow_rates(struct pw *w)
{
	const struct fab_snapshot *s = w->snap;
	struct port_labels pl;

	for (size_t k = 0; k < sizeof(flows) / sizeof(flows[0]); k++) {
		uint32_t want = (1u << flows[k].xmit) | (1u << flows[k].rcv);

		family(w, flows[k].rate_family, "gauge", flows[k].rate_help);
		for (uint32_t i = 0; i < s->n_ports; i++) {
			struct fab_counter_delta d;

			if (!port_wanted(s, &s->ports[i]) || !fab_counter_pairs_delta(&w->pairs, i, want, &d))
				continue;
			port_labels(w, &s->ports[i], &pl);
			for (int dir = 0; dir < 2; dir++) {
				double r;

				if (!fab_counter_rate(&d, dir ? flows[k].rcv : flows[k].xmit, &r))
					continue;
				pl.l[2] = (struct label){ "direction", dir ? "rcv" : "xmit" };
				sample_dbl(w, flows[k].rate_family, pl.l, 3, r * flows[k].scale);
			}
		}
	}
}

/* The detail counters, per-VL waits, the attributes a PMA lacks and the
 * bit error rate (docs/counters.md "Detail counters", link.ber_high). */
static void write_details(struct pw *w)
{
	const struct fab_snapshot *s = w->snap;
	const struct fab_counter_sample *const *latest = w->pairs.latest;
	struct port_labels pl;
	char vl[4];

	family(w, "fabsweep_port_error_details_total", "counter",
	       "PortRcvErrorDetails and PortXmitDiscardDetails as read (where PortRcvErrors or "
	       "PortXmitDiscards is not 0): what the error counter counted, by field name.");
	for (uint32_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *c = latest[i];
		if (!c || !port_wanted(s, &s->ports[i]) || !(c->valid & fab_counter_detail_mask()))
			continue;
		port_labels(w, &s->ports[i], &pl);
		for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
			if (fab_counter_is_detail(k) && (c->valid & (1u << k))) {
				pl.l[2] = (struct label){ "counter", fab_counter_name(k) };
				sample_u64(w, "fabsweep_port_error_details_total", pl.l, 3, c->v[k]);
			}
	}
	family(w, "fabsweep_port_vl_xmit_wait_total", "counter",
	       "PortVLXmitWaitCounters as read (where PortXmitWait grew): ticks waiting, per VL.");
	for (uint32_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *c = latest[i];
		if (!c || !c->vl_valid || !port_wanted(s, &s->ports[i]))
			continue;
		port_labels(w, &s->ports[i], &pl);
		for (unsigned v = 0; v < FAB_N_VLS; v++)
			if (c->vl_valid >> v & 1) {
				snprintf(vl, sizeof(vl), "%u", v);
				pl.l[2] = (struct label){ "vl", vl };
				sample_u64(w, "fabsweep_port_vl_xmit_wait_total", pl.l, 3, c->vl_xmit_wait[v]);
			}
	}
	family(w, "fabsweep_port_pma_unsupported", "gauge",
	       "1 for an optional PMA attribute the port's PMA was asked for and does not support.");
	for (uint32_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *c = latest[i];
		if (!c || !c->unsupported || !port_wanted(s, &s->ports[i]))
			continue;
		port_labels(w, &s->ports[i], &pl);
		for (unsigned b = 0; b < FAB_PMA__BITS; b++)
			if (c->unsupported >> b & 1) {
				pl.l[2] = (struct label){ "attribute", fab_pma_attr_name(1u << b) };
				sample_u64(w, "fabsweep_port_pma_unsupported", pl.l, 3, 1);
			}
	}
	static const char *const ber_fams[][2] = {
		{ "fabsweep_port_ber", "Symbol error rate of what the port receives between the samples "
				       "compared: errors per bit (link.ber_high)." },
		{ "fabsweep_port_ber_at_least", "1 when fabsweep_port_ber is a lower bound: "
						"SymbolErrorCounter was cleared or saturated in between." },
	};
	for (size_t f = 0; f < 2; f++) {
		family(w, ber_fams[f][0], "gauge", ber_fams[f][1]);
		for (uint32_t i = 0; i < s->n_ports; i++) {
			const struct fab_port *p = &s->ports[i];
			struct fab_counter_delta d;
			double ber;
			bool at_least;

			if (!port_wanted(s, p) ||
			    !fab_counter_pairs_delta(&w->pairs, i, 1u << FAB_CTR_SYMBOL_ERRORS, &d) ||
			    !fab_counter_ber(&d, p->width_active, p->speed_active, &ber, &at_least))
				continue;
			port_labels(w, p, &pl);
			if (f == 0)
				sample_dbl(w, ber_fams[f][0], pl.l, 2, ber);
			else
				sample_u64(w, ber_fams[f][0], pl.l, 2, at_least);
		}
	}
}

static void write_counters(struct pw *w)
{
	const struct fab_snapshot *s = w->snap;
	const struct fab_counter_sample *const *latest = w->pairs.latest;
	struct port_labels pl;

	family(w, "fabsweep_port_errors_total", "counter",
	       "Port error counters as read (PortCounters), by infiniband-diags counter name.");
	for (uint32_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *c = latest[i];
		if (!c || !port_wanted(s, &s->ports[i]))
			continue;
		port_labels(w, &s->ports[i], &pl);
		for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
			if (fab_counter_is_error(k) && (c->valid & (1u << k))) {
				pl.l[2] = (struct label){ "counter", fab_counter_name(k) };
				sample_u64(w, "fabsweep_port_errors_total", pl.l, 3, c->v[k]);
			}
	}
	family(w, "fabsweep_port_error_saturated", "gauge",
	       "1 when an error counter is at its all-ones value: the true count is at least that.");
	for (uint32_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *c = latest[i];
		if (!c || !port_wanted(s, &s->ports[i]))
			continue;
		for (unsigned k = 0; k < FAB_CTR__COUNT; k++)
			if (fab_counter_is_error(k) && fab_counter_saturated(c, k)) {
				port_labels(w, &s->ports[i], &pl);
				pl.l[2] = (struct label){ "counter", fab_counter_name(k) };
				sample_u64(w, "fabsweep_port_error_saturated", pl.l, 3, 1);
			}
	}
	write_increases(w);
	family(w, "fabsweep_port_xmit_wait_total", "counter",
	       "PortXmitWait: ticks the port had data to send but no credits.");
	for (uint32_t i = 0; i < s->n_ports; i++) {
		const struct fab_counter_sample *c = latest[i];
		if (c && port_wanted(s, &s->ports[i]) && (c->valid & (1u << FAB_CTR_XMIT_WAIT))) {
			port_labels(w, &s->ports[i], &pl);
			sample_u64(w, "fabsweep_port_xmit_wait_total", pl.l, 2, c->v[FAB_CTR_XMIT_WAIT]);
		}
	}
	for (size_t k = 0; k < sizeof(flows) / sizeof(flows[0]); k++) {
		family(w, flows[k].family, "counter", flows[k].help);
		for (uint32_t i = 0; i < s->n_ports; i++) {
			const struct fab_counter_sample *c = latest[i];
			if (!c || !port_wanted(s, &s->ports[i]))
				continue;
			port_labels(w, &s->ports[i], &pl);
			for (int dir = 0; dir < 2; dir++) {
				unsigned ctr = dir ? flows[k].rcv : flows[k].xmit;
				if (!(c->valid & (1u << ctr)))
					continue;
				pl.l[2] = (struct label){ "direction", dir ? "rcv" : "xmit" };
				uint64_t v = c->v[ctr];
				if (v <= UINT64_MAX / flows[k].scale)
					sample_u64(w, flows[k].family, pl.l, 3, v * flows[k].scale);
				else
					sample_dbl(w, flows[k].family, pl.l, 3,
						   (double)v * flows[k].scale);
			}
		}
	}
	write_flow_rates(w);
	write_details(w);
}

static int cmp_sm_ptr(const void *x, const void *y)
{
	const struct fab_sm *a = *(const struct fab_sm *const *)x;
	const struct fab_sm *b = *(const struct fab_sm *const *)y;

	return a->port_guid < b->port_guid ? -1 : a->port_guid > b->port_guid;
}

static int write_sms(struct pw *w)
{
	const struct fab_snapshot *s = w->snap;
	const struct fab_sm **v = malloc((s->n_sms + 1) * sizeof(*v));
	size_t n = 0, masters = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_sms; i++)
		v[i] = &s->sms[i];
	qsort(v, s->n_sms, sizeof(*v), cmp_sm_ptr);
	for (size_t i = 0; i < s->n_sms; i++)
		if (!n || v[n - 1]->port_guid != v[i]->port_guid)
			v[n++] = v[i];
	static const struct { const char *name, *type, *help; int what; } fams[] = {
		{ "fabsweep_sm_state", "gauge",
		  "SMInfo state of each subnet manager: 0 notactive, 1 discovering, 2 standby, 3 master.", 0 },
		{ "fabsweep_sm_priority", "gauge", "SMInfo priority (0..15) of each subnet manager.", 1 },
		{ "fabsweep_sm_failed", "gauge",
		  "1 for a port that advertises IsSM but did not answer SMInfo.", 2 },
	};
	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++) {
		family(w, fams[k].name, fams[k].type, fams[k].help);
		for (size_t i = 0; i < n; i++) {
			const struct fab_sm *sm = v[i];
			char g[FAB_GUID_STRLEN], ng[FAB_GUID_STRLEN] = "";
			if (sm->port_idx != FAB_NONE && sm->port_idx < s->n_ports)
				fab_guid_format(s->nodes[s->ports[sm->port_idx].node_idx].guid, ng);
			fab_guid_format(sm->port_guid, g);
			struct label l[2] = { { "port_guid", g }, { "node_guid", ng } };
			if (fams[k].what == 2)
				sample_u64(w, fams[k].name, l, 2, sm->failed);
			else if (!sm->failed)
				sample_u64(w, fams[k].name, l, 2, fams[k].what ? sm->priority : sm->state);
		}
	}
	for (size_t i = 0; i < n; i++)
		masters += !v[i]->failed && v[i]->state == 3;
	family(w, "fabsweep_sm_masters", "gauge",
	       "Subnet managers in the master state (1 is healthy; 0 none; more: split fabric).");
	sample_u64(w, "fabsweep_sm_masters", NULL, 0, masters);
	free(v);
	return 0;
}

static const struct fab_snapshot *sort_snap; /* qsort has no context */

static int cmp_finding(const void *x, const void *y)
{
	const struct fab_finding *a = &sort_snap->findings[*(const uint32_t *)x];
	const struct fab_finding *b = &sort_snap->findings[*(const uint32_t *)y];
	int c = strcmp(a->rule_id ? a->rule_id : "", b->rule_id ? b->rule_id : "");

	return c ? c : (int)a->severity - (int)b->severity;
}

static int write_findings(struct pw *w)
{
	const struct fab_snapshot *s = w->snap;
	uint32_t *order = malloc((s->n_findings + 1) * sizeof(*order));
	uint64_t by_sev[FAB_SEV__COUNT] = { 0 };

	if (!order)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_findings; i++)
		order[i] = i;
	sort_snap = s;
	qsort(order, s->n_findings, sizeof(*order), cmp_finding);
	sort_snap = NULL;
	family(w, "fabsweep_findings", "gauge", "Findings of the scan's last check, by rule and severity.");
	for (size_t i = 0; i < s->n_findings;) {
		const struct fab_finding *f = &s->findings[order[i]];
		size_t j = i + 1;
		while (j < s->n_findings &&
		       !strcmp(s->findings[order[j]].rule_id ? s->findings[order[j]].rule_id : "",
			       f->rule_id ? f->rule_id : "") &&
		       s->findings[order[j]].severity == f->severity)
			j++;
		const char *sev = fab_severity_name(f->severity);
		struct label l[2] = { { "rule", f->rule_id ? f->rule_id : "" },
				      { "severity", sev ? sev : "unknown" } };
		sample_u64(w, "fabsweep_findings", l, 2, j - i);
		if (f->severity < FAB_SEV__COUNT)
			by_sev[f->severity] += j - i;
		i = j;
	}
	family(w, "fabsweep_findings_by_severity", "gauge",
	       "Findings of the scan's last check by severity (every severity, zeros included).");
	for (unsigned k = 0; k < FAB_SEV__COUNT; k++) {
		struct label l = { "severity", fab_severity_name(k) };
		sample_u64(w, "fabsweep_findings_by_severity", &l, 1, by_sev[k]);
	}
	free(order);
	return 0;
}

/* ------------------------------------------------------------ Ethernet */

/* Ports a system collected itself (not stubs known from a neighbour). */
static bool eth_own(const struct fab_eth_port *p)
{
	return !(p->flags & FAB_ETH_F_STUB);
}

/* The i-th ECN value (notification point, reaction point bitmaps, CNP
 * DSCP, CNP priority); false when the driver does not expose it. */
static bool ecn_value(const struct fab_ecn *e, size_t i, uint64_t *out)
{
	static const uint8_t flags[] = { FAB_ECN_NP, FAB_ECN_RP, FAB_ECN_CNP_DSCP, FAB_ECN_CNP_PRIO };
	const uint8_t vals[] = { e->np_enabled, e->rp_enabled, e->cnp_dscp, e->cnp_prio };

	if (i >= ARRAY_SIZE(flags) || !(e->known & flags[i]))
		return false;
	*out = vals[i];
	return true;
}

static void write_ethernet(struct pw *w)
{
	const struct fab_roce *ro = w->snap->roce;
	size_t by_role[FAB_ROLE__COUNT] = { 0 };
	struct label l[5];

	if (!ro || !ro->n_systems)
		return;
	for (size_t i = 0; i < ro->n_systems; i++)
		by_role[ro->systems[i].role < FAB_ROLE__COUNT ? ro->systems[i].role : FAB_ROLE_UNKNOWN]++;
	family(w, "fabsweep_eth_systems", "gauge",
	       "Ethernet systems (hosts and switches, from LLDP and collect) by role.");
	for (unsigned r = 0; r < FAB_ROLE__COUNT; r++) {
		l[0] = (struct label){ "role", fab_role_name(r) };
		sample_u64(w, "fabsweep_eth_systems", l, 1, by_role[r]);
	}
	family(w, "fabsweep_eth_links", "gauge", "Ethernet links seen over LLDP (each cable once).");
	sample_u64(w, "fabsweep_eth_links", NULL, 0, ro->n_links);

	static const struct { const char *name, *help; } fams[] = {
		{ "fabsweep_eth_port_up", "1 when the interface's operstate is up." },
		{ "fabsweep_eth_port_mtu_bytes", "Interface MTU in bytes." },
		{ "fabsweep_eth_port_speed_bytes_per_second",
		  "Interface speed (when the driver reports one; 100 Gb/s: 12.5e9)." },
		{ "fabsweep_eth_port_pfc_bitmap",
		  "PFC enable bitmap, bit n = priority n: the NIC's DCB configuration, else what the port advertises over LLDP." },
		{ "fabsweep_eth_port_ecn_np_bitmap",
		  "ECN notification point (CNPs sent for ECN-marked RoCE packets) enable bitmap, bit n = priority n, from sysfs ecn/roce_np; absent when the driver exposes none." },
		{ "fabsweep_eth_port_ecn_rp_bitmap",
		  "ECN reaction point (DCQCN rate control) enable bitmap, bit n = priority n, from sysfs ecn/roce_rp; absent when the driver exposes none." },
		{ "fabsweep_eth_port_cnp_dscp", "DSCP the NIC sends CNPs with (sysfs ecn/roce_np/cnp_dscp)." },
		{ "fabsweep_eth_port_cnp_priority", "802.1p priority the NIC sends CNPs on (sysfs ecn/roce_np/cnp_802p_prio)." },
		{ "fabsweep_eth_port_trust_dscp",
		  "1 when the NIC classifies by DSCP (its DCB application table has DSCP entries), 0 by PCP; absent when its DCB did not answer." },
	};
	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++) {
		family(w, fams[k].name, "gauge", fams[k].help);
		for (size_t i = 0; i < ro->n_eth_ports; i++) {
			const struct fab_eth_port *p = &ro->eth_ports[i];
			const struct fab_pfc *pfc = fab_eth_port_pfc(p);
			uint64_t v;

			l[0] = (struct label){ "system", ro->systems[p->system_idx].name };
			l[1] = (struct label){ "ifname", p->ifname };
			switch (k) {
			case 0:
				if (!eth_own(p) || !p->state)
					continue;
				v = strcmp(p->state, "up") == 0;
				break;
			case 1:
				if (!eth_own(p) || !p->mtu)
					continue;
				v = p->mtu;
				break;
			case 2:
				if (!eth_own(p) || p->speed_mbps <= 0)
					continue;
				v = (uint64_t)p->speed_mbps * 125000u; /* Mb/s: 1e6 / 8 bytes */
				break;
			case 3:
				if (!pfc->valid)
					continue;
				v = pfc->enabled;
				break;
			case 4: case 5: case 6: case 7:
				if (!ecn_value(&p->ecn, k - 4, &v))
					continue;
				break;
			default: {
				enum fab_trust t = fab_eth_port_trust(ro, p);
				if (t == FAB_TRUST_UNKNOWN)
					continue;
				v = t == FAB_TRUST_DSCP;
			}
			}
			sample_u64(w, fams[k].name, l, 2, v);
		}
	}

	family(w, "fabsweep_rdma_device_info", "gauge",
	       "An RDMA device: 1, with its type and firmware as labels.");
	for (size_t i = 0; i < ro->n_devices; i++) {
		const struct fab_rdma_device *d = &ro->devices[i];
		l[0] = (struct label){ "system", ro->systems[d->system_idx].name };
		l[1] = (struct label){ "device", d->name };
		l[2] = (struct label){ "type", d->hca_type ? d->hca_type : "" };
		l[3] = (struct label){ "fw_ver", d->fw_ver ? d->fw_ver : "" };
		sample_u64(w, "fabsweep_rdma_device_info", l, 4, 1);
	}
	static const struct { const char *name, *help; } pcie[] = {
		{ "fabsweep_rdma_pcie_width_lanes", "PCIe link width of the RDMA device, lanes." },
		{ "fabsweep_rdma_pcie_max_width_lanes", "Maximum PCIe link width of the RDMA device, lanes." },
		{ "fabsweep_rdma_pcie_speed_transfers_per_second",
		  "PCIe link speed of the RDMA device per lane (Gen4 16e9)." },
		{ "fabsweep_rdma_pcie_max_speed_transfers_per_second",
		  "Maximum PCIe link speed of the RDMA device per lane." },
	};
	for (size_t k = 0; k < sizeof(pcie) / sizeof(pcie[0]); k++) {
		family(w, pcie[k].name, "gauge", pcie[k].help);
		for (size_t i = 0; i < ro->n_devices; i++) {
			const struct fab_rdma_device *d = &ro->devices[i];
			double v = k == 0 ? d->pcie_width : k == 1 ? d->pcie_max_width
					  : 1e9 * (k == 2 ? d->pcie_speed_gts : d->pcie_max_speed_gts);
			if (v <= 0)
				continue;
			l[0] = (struct label){ "system", ro->systems[d->system_idx].name };
			l[1] = (struct label){ "device", d->name };
			sample_dbl(w, pcie[k].name, l, 2, v);
		}
	}
	family(w, "fabsweep_rdma_port_sysfs_total", "counter",
	       "An RDMA port counter from sysfs (kind port: counters/, hw: hw_counters/, ext: counters_ext/).");
	for (size_t i = 0; i < ro->n_rdma_ports; i++) {
		const struct fab_rdma_port *p = &ro->rdma_ports[i];
		const struct fab_rdma_device *d = &ro->devices[p->device_idx];
		char num[8];

		snprintf(num, sizeof(num), "%u", p->port_num);
		l[0] = (struct label){ "system", ro->systems[d->system_idx].name };
		l[1] = (struct label){ "device", d->name };
		l[2] = (struct label){ "port", num };
		for (uint32_t k = 0; k < p->ctr_count && p->ctr_first + k < ro->n_counters; k++) {
			const struct fab_rdma_counter *c = &ro->counters[p->ctr_first + k];
			const char *kind = fab_rdma_ctr_kind_name(fab_rdma_counter_kind(c));
			l[3] = (struct label){ "kind", kind ? kind : "unknown" };
			l[4] = (struct label){ "counter", c->name };
			sample_u64(w, "fabsweep_rdma_port_sysfs_total", l, 5, c->value);
		}
	}
}

/* ---- for prom_phys.c (prom.h) ---------------------------------------------- */

const struct fab_snapshot *fab_prom_snap(const struct pw *w)
{
	return w->snap;
}

void fab_prom_family(struct pw *w, const char *name, const char *type, const char *help)
{
	family(w, name, type, help);
}

void fab_prom_u64(struct pw *w, const char *name, const struct label *l, size_t n, uint64_t v)
{
	sample_u64(w, name, l, n, v);
}

void fab_prom_dbl(struct pw *w, const char *name, const struct label *l, size_t n, double v)
{
	sample_dbl(w, name, l, n, v);
}

/* Everything, with the samples compared in w->pairs. */
static int export_pairs(struct pw *w)
{
	FILE *f = w->f;
	int err = 0;

	write_scan(w);
	write_ports(w);
	write_counters(w);
	write_ethernet(w);
	if (write_sms(w) || write_findings(w) || fab_prom_phys(w))
		err = fab_err(-ENOMEM, "out of memory writing metrics");
	else if (ferror(f))
		err = fab_err(-EIO, "cannot write metrics: %s", strerror(errno ? errno : EIO));
	return err;
}

int fab_export_prometheus(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			  const struct fab_nodemap *names, FILE *f)
{
	struct pw w = { .f = f, .snap = snap, .names = names };
	int err = 0;

	if (snap->n_nodes && !snap->guid_order)
		return fab_err(-EINVAL, "export: snapshot not indexed (call fab_snapshot_index)");
	if ((err = fab_counter_pairs_build(snap, base, &w.pairs)))
		return err;
	err = export_pairs(&w);
	fab_counter_pairs_free(&w.pairs);
	return err;
}

int fab_export_prometheus_pairs_file(const struct fab_snapshot *snap,
				     const struct fab_counter_pairs *pairs,
				     const struct fab_nodemap *names, const char *path)
{
	struct pw w = { .snap = snap, .names = names, .pairs = *pairs };
	struct fab_report_file rf;
	int err;

	if (snap->n_nodes && !snap->guid_order)
		return fab_err(-EINVAL, "export: snapshot not indexed (call fab_snapshot_index)");
	if ((err = fab_report_file_open(path, &rf)))
		return err;
	w.f = rf.f;
	if ((err = export_pairs(&w))) {
		fab_report_file_abort(&rf);
		return err;
	}
	return fab_report_file_commit(&rf);
}

int fab_export_prometheus_file(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			       const struct fab_nodemap *names, const char *path)
{
	struct fab_counter_pairs pairs;
	int err;

	if (snap->n_nodes && !snap->guid_order)
		return fab_err(-EINVAL, "export: snapshot not indexed (call fab_snapshot_index)");
	if ((err = fab_counter_pairs_build(snap, base, &pairs)))
		return err;
	err = fab_export_prometheus_pairs_file(snap, &pairs, names, path);
	fab_counter_pairs_free(&pairs);
	return err;
}
