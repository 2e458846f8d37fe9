// SPDX-License-Identifier: MIT
/*
 * The physical layer of an ibdiagnet2 run (docs/imports.md): the bit error
 * ratios of db_csv's PHY_DB16 section (raw, effective and symbol BER as
 * mantissa and exponent in field12..field17, the layout NVIDIA's own
 * ib-analysis reads), and ibdiagnet2.cables, the module records of a run
 * made with --get_cable_info: vendor, part and serial number, length,
 * type, temperature, voltage, per-lane Rx and Tx power and Tx bias, the
 * module's thresholds. "-999.999 mW", "inf mW", "N/A" and "NA" are unknown.
 * Both are resolved onto the snapshot's ports after the db_csv import.
 */
#include <errno.h>
#include <inttypes.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "import/ibdiag_priv.h"

/* ---- PHY_DB16 --------------------------------------------------------------- */

const char *const ibd_ber_cols[IBD_BER__COUNT] = {
	"NodeGuid", "PortNum", "field12", "field13", "field14", "field15", "field16", "field17",
};

int ibd_ber_row(struct ibd_phys *p, struct ibd_reader *r, const struct ibd_row *row)
{
	uint64_t v[IBD_BER__COUNT];
	bool absent[IBD_BER__COUNT];

	for (size_t k = 0; k < IBD_BER__COUNT; k++) {
		int rc = ibd_u64(r, row, k, &v[k]);
		if (rc < 0)
			return rc;
		absent[k] = rc > 0;
	}
	if (v[IBD_BER_PORT] > 255)
		return ibd_err(r, row->line, -EINVAL, "PortNum %" PRIu64 " is out of range", v[IBD_BER_PORT]);
	struct ibd_ber *b = fab_array_grow((void **)&p->ber, &p->n_ber, &p->cap_ber, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->node_guid = v[IBD_BER_NODE];
	b->port = (uint8_t)v[IBD_BER_PORT];
	b->line = row->line;
	/* mantissa * 10^-exponent; a mantissa of 0 is a BER of 0 */
	for (int k = 0; k < 3; k++) {
		size_t m = IBD_BER_RAW_M + 2 * (size_t)k, e = m + 1;
		b->ber[k] = absent[m] || absent[e] || v[e] > 400 ? NAN
			    : (double)v[m] * pow(10.0, -(double)v[e]);
	}
	return 0;
}

int ibd_ber_fill(struct ibd_phys *p, struct fab_snapshot *snap, size_t *unmatched)
{
	*unmatched = 0;
	for (size_t i = 0; i < p->n_ber; i++) {
		const struct ibd_ber *b = &p->ber[i];
		uint32_t n = fab_snapshot_find_node(snap, b->node_guid);
		const struct fab_port *port = n == FAB_NONE ? NULL : fab_snapshot_port(snap, n, b->port);
		struct fab_port_ber *o;

		if (!port) {
			(*unmatched)++;
			continue;
		}
		if (!(o = fab_array_grow((void **)&snap->ber, &snap->n_ber, &snap->cap_ber, sizeof(*o))))
			return -ENOMEM;
		*o = (struct fab_port_ber){ .port_idx = (uint32_t)(port - snap->ports), .raw = b->ber[0],
					    .effective = b->ber[1], .symbol = b->ber[2] };
	}
	return 0;
}

void ibd_phys_free(struct ibd_phys *p)
{
	free(p->ber);
	memset(p, 0, sizeof(*p));
}

/* ---- ibdiagnet2.cables ------------------------------------------------------- */

/* A number at the start of s (after blanks), NAN when there is none or it
 * is one of ibdiagnet's words for unknown. */
static double num(const char *s)
{
	char *end;

	while (*s == ' ')
		s++;
	if (!strncmp(s, "N/A", 3) || !strncmp(s, "NA", 2) || !strncmp(s, "inf", 3) || !*s)
		return NAN;
	double v = strtod(s, &end);
	return end == s || !isfinite(v) ? NAN : v;
}

/* A reading: a power "1.585 mW, 2.000 dBm" (the mW) or a bias "7.242 mA";
 * a negative one (-999.999 is ibdiagnet's "unknown") is no reading. */
static double reading(const char *s)
{
	double v = num(s);
	return isnan(v) || v < 0 ? NAN : v;
}

/* A threshold of Rx or Tx power: a signed 16-bit number of dBm (65530 is
 * -6 dBm); 0 together with the others is "none" (handled by the caller). */
static double dbm16(const char *s)
{
	double v = num(s);
	if (isnan(v) || v < 0 || v > 65535)
		return NAN;
	return v >= 32768 ? v - 65536 : v;
}

/* One record while its lines are read. */
struct rec {
	uint64_t guid;
	unsigned port;
	size_t line;
	struct fab_module m;
	struct fab_module_lane lanes[FAB_MODULE_MAX_LANES];
	unsigned n_lanes;
	char type[24], vendor[48], pn[48], sn[48], rev[16], date[16], media[64];
	uint32_t aw[5]; /* ibdiagnet's alarm and warning words, layout undocumented */
	bool any_aw, monitors_zero;
};

static void rec_init(struct rec *c, uint64_t guid, unsigned port, size_t line)
{
	memset(c, 0, sizeof(*c));
	c->guid = guid;
	c->port = port;
	c->line = line;
	c->m.spec = FAB_MODSPEC_IBDIAG;
	c->m.identifier = -1;
	c->m.length_m = c->m.temperature_c = c->m.voltage_v = NAN;
	for (unsigned k = 0; k < FAB_MON__COUNT; k++)
		c->m.lim[k] = (struct fab_module_limits){ NAN, NAN, NAN, NAN };
	for (unsigned k = 0; k < FAB_MODULE_MAX_LANES; k++)
		c->lanes[k] = (struct fab_module_lane){ .lane = (uint8_t)(k + 1), .rx_mw = NAN,
							.tx_mw = NAN, .bias_ma = NAN };
}

static void copy_text(char *dst, size_t cap, const char *v)
{
	while (*v == ' ')
		v++;
	size_t n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\r'))
		n--;
	if (n >= cap)
		n = cap - 1;
	memmove(dst, v, n); /* v may be inside dst (a key trimmed in place) */
	dst[n] = '\0';
	if (!strcmp(dst, "N/A") || !strcmp(dst, "NA"))
		dst[0] = '\0';
}

/* "RX3 Power", "TX1 Bias": the lane (1..8) and the rest, or 0. */
static unsigned lane_key(const char *k, const char *pfx, const char *what)
{
	size_t pl = strlen(pfx);
	if (strncmp(k, pfx, pl) || k[pl] < '1' || k[pl] > '8' || strcmp(k + pl + 1, what))
		return 0;
	return (unsigned)(k[pl] - '0');
}

static void limit(struct rec *c, unsigned mon, int kind, double v)
{
	double *f[4] = { &c->m.lim[mon].hi_alarm, &c->m.lim[mon].lo_alarm, &c->m.lim[mon].hi_warn,
			 &c->m.lim[mon].lo_warn };
	*f[kind] = v;
}

static void field(struct rec *c, const char *k, const char *v)
{
	static const struct {
		const char *key;
		unsigned mon;
		int kind;
	} lims[] = {
		{ "AlarmTemperatureHighThresh", FAB_MON_TEMP, 0 }, { "AlarmTemperatureLowThresh", FAB_MON_TEMP, 1 },
		{ "WarnTemperatureHighThresh", FAB_MON_TEMP, 2 },  { "WarnTemperatureLowThresh", FAB_MON_TEMP, 3 },
		{ "AlarmVoltageHighThresh", FAB_MON_VCC, 0 },      { "AlarmVoltageLowThresh", FAB_MON_VCC, 1 },
		{ "WarnVoltageHighThresh", FAB_MON_VCC, 2 },       { "WarnVoltageLowThresh", FAB_MON_VCC, 3 },
	};
	static const char *const aw[5] = { "RX Power Alarm and Warning", "TX Bias Alarm and Warning",
					   "TX Power Alarm and Warning",
					   "Latched Temperature Alarm and Warning",
					   "Latched Voltage Alarm and Warning" };
	unsigned lane;

	if (!strcmp(k, "Identifier")) {
		copy_text(c->type, sizeof(c->type), v);
		c->type[strcspn(c->type, "(")] = '\0';
		copy_text(c->type, sizeof(c->type), c->type);
	} else if (!strcmp(k, "Vendor")) {
		copy_text(c->vendor, sizeof(c->vendor), v);
	} else if (!strcmp(k, "PN")) {
		copy_text(c->pn, sizeof(c->pn), v);
	} else if (!strcmp(k, "SN")) {
		copy_text(c->sn, sizeof(c->sn), v);
	} else if (!strcmp(k, "Rev")) {
		copy_text(c->rev, sizeof(c->rev), v);
	} else if (!strcmp(k, "Type")) {
		copy_text(c->media, sizeof(c->media), v);
	} else if (!strcmp(k, "Length")) {
		c->m.length_m = num(v); /* "2 m" */
	} else if (!strcmp(k, "DateCode")) {
		char d[16];
		copy_text(d, sizeof(d), v); /* "24-01-18" */
		if (strlen(d) == 8 && d[2] == '-' && d[5] == '-')
			snprintf(c->date, sizeof(c->date), "20%.8s", d);
		else
			snprintf(c->date, sizeof(c->date), "%s", d);
	} else if (!strcmp(k, "Temperature")) {
		c->m.temperature_c = num(v); /* "58C" */
	} else if (!strcmp(k, "Supply Voltage Reporting")) {
		c->m.voltage_v = num(v) / 1e6; /* "3303400uV" */
	} else if ((lane = lane_key(k, "RX", " Power"))) {
		c->lanes[lane - 1].rx_mw = reading(v);
		c->n_lanes = lane > c->n_lanes ? lane : c->n_lanes;
	} else if ((lane = lane_key(k, "TX", " Power"))) {
		c->lanes[lane - 1].tx_mw = reading(v);
		c->n_lanes = lane > c->n_lanes ? lane : c->n_lanes;
	} else if ((lane = lane_key(k, "TX", " Bias"))) {
		c->lanes[lane - 1].bias_ma = reading(v);
		c->n_lanes = lane > c->n_lanes ? lane : c->n_lanes;
	} else if (!strcmp(k, "RXPowerHighThresh")) {
		limit(c, FAB_MON_RX_POWER, 0, dbm16(v));
	} else if (!strcmp(k, "RXPowerLowThresh")) {
		limit(c, FAB_MON_RX_POWER, 1, dbm16(v));
	} else if (!strcmp(k, "TXPowerHighThresh")) {
		limit(c, FAB_MON_TX_POWER, 0, dbm16(v));
	} else if (!strcmp(k, "TXPowerLowThresh")) {
		limit(c, FAB_MON_TX_POWER, 1, dbm16(v));
	} else if (!strcmp(k, "TXBiasHighThresh")) {
		limit(c, FAB_MON_BIAS, 0, num(v) * 0.002); /* 2 uA units, as in the EEPROM */
	} else if (!strcmp(k, "TXBiasLowThresh")) {
		limit(c, FAB_MON_BIAS, 1, num(v) * 0.002);
	} else {
		for (size_t i = 0; i < sizeof(lims) / sizeof(lims[0]); i++)
			if (!strcmp(k, lims[i].key)) {
				double x = num(v);
				limit(c, lims[i].mon, lims[i].kind, lims[i].mon == FAB_MON_VCC ? x / 1e6 : x);
				return;
			}
		for (int i = 0; i < 5; i++)
			if (!strcmp(k, aw[i])) {
				c->aw[i] = (uint32_t)strtoul(v, NULL, 16);
				c->any_aw |= c->aw[i] != 0;
			}
	}
}

/* A module's thresholds of one monitor that are all 0 (or none) are no
 * thresholds: a passive cable reports 0 for every one. */
static void no_zero_limits(struct fab_module_limits *l)
{
	bool zero = true;
	double v[4] = { l->hi_alarm, l->lo_alarm, l->hi_warn, l->lo_warn };

	for (int i = 0; i < 4; i++)
		zero &= isnan(v[i]) || v[i] == 0;
	if (zero)
		*l = (struct fab_module_limits){ NAN, NAN, NAN, NAN };
}

/* Text from the file, made safe, into the snapshot's arena; NULL for "". */
static const char *safe(struct fab_snapshot *snap, const char *s)
{
	char clean[4 * 64 + 1];

	if (!*s)
		return NULL;
	fab_text_sanitize((const uint8_t *)s, strlen(s), clean, sizeof(clean));
	return fab_snapshot_strdup(snap, clean, SIZE_MAX);
}

static int finish(struct rec *c, struct ibd_cables *out, struct fab_snapshot *snap)
{
	uint32_t n = fab_snapshot_find_node(snap, c->guid);
	const struct fab_port *p = n == FAB_NONE ? NULL : fab_snapshot_port(snap, n, c->port);

	/* a CA's record carries its port GUID */
	for (size_t lo = 0, hi = snap->n_ports; !p && lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t g = snap->ports[out->port_by_guid[mid]].guid;
		if (g == c->guid)
			p = &snap->ports[out->port_by_guid[mid]];
		else if (g < c->guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!p || p->port_num != c->port) {
		out->unmatched++;
		return 0;
	}
	uint32_t pi = (uint32_t)(p - snap->ports);
	if (out->seen[pi]) {
		out->duplicates++;
		return 0;
	}
	out->seen[pi] = true;
	for (unsigned k = 0; k < FAB_MON__COUNT; k++)
		no_zero_limits(&c->m.lim[k]);
	/* no monitoring: a passive cable reports 0 C, 0 V and 0 mA */
	bool mon = !(c->m.temperature_c == 0 && (c->m.voltage_v == 0 || isnan(c->m.voltage_v)));
	struct fab_module *m = fab_modules_add(&snap->ib_modules, pi, c->n_lanes);
	if (!m)
		return -ENOMEM;
	uint32_t lf = m->lane_first;
	*m = c->m;
	m->port_idx = pi;
	m->lane_first = lf;
	m->n_lanes = (uint8_t)c->n_lanes;
	m->monitors = mon;
	if (!mon)
		m->temperature_c = m->voltage_v = NAN;
	const char *t = c->type;
	for (int id = 0; id < 256 && *t; id++) /* ibdiagnet numbers identifiers its own way */
		if (fab_module_type_name(id) && !strcmp(fab_module_type_name(id), t))
			m->identifier = (int16_t)id;
	m->type = safe(snap, c->type);
	m->vendor = safe(snap, c->vendor);
	m->part_number = safe(snap, c->pn);
	m->serial = safe(snap, c->sn);
	m->revision = safe(snap, c->rev);
	m->date_code = safe(snap, c->date);
	m->media = safe(snap, c->media);
	if (c->any_aw) {
		char note[160];
		snprintf(note, sizeof(note),
			 "alarm and warning words Rx power 0x%04x, Tx bias 0x%04x, Tx power 0x%04x, "
			 "temperature 0x%02x, voltage 0x%02x (layout not documented: not judged)",
			 c->aw[0], c->aw[1], c->aw[2], c->aw[3], c->aw[4]);
		m->note = fab_snapshot_strdup(snap, note, SIZE_MAX);
	}
	struct fab_module_lane *l = fab_module_lanes(&snap->ib_modules, m);
	for (unsigned k = 0; l && k < c->n_lanes; k++) {
		l[k] = c->lanes[k];
		if (!mon)
			l[k].bias_ma = l[k].rx_mw = l[k].tx_mw = NAN;
	}
	out->records++;
	return 0;
}

static int cmp_port_guid(const void *a, const void *b, void *ctx)
{
	const struct fab_snapshot *s = ctx;
	uint64_t x = s->ports[*(const uint32_t *)a].guid, y = s->ports[*(const uint32_t *)b].guid;

	return x < y ? -1 : x > y;
}

int ibd_cables_read(const char *text, size_t len, const char *name, struct fab_snapshot *snap,
		    struct ibd_cables *out)
{
	struct rec *c = malloc(sizeof(*c));
	size_t pos = 0, line = 0;
	bool open = false;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->seen = calloc(snap->n_ports + 1, sizeof(*out->seen));
	out->port_by_guid = malloc((snap->n_ports + 1) * sizeof(*out->port_by_guid));
	if (!c || !out->seen || !out->port_by_guid) {
		err = -ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < snap->n_ports; i++)
		out->port_by_guid[i] = (uint32_t)i;
	qsort_r(out->port_by_guid, snap->n_ports, sizeof(*out->port_by_guid), cmp_port_guid, snap);
	while (!err && pos < len) {
		const char *l = text + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - l) : len - pos;
		char buf[512];
		pos += ll + 1;
		line++;
		if (ll >= sizeof(buf)) {
			err = fab_err(-EINVAL, "%s:%zu: a line of more than %zu bytes", name, line, sizeof(buf) - 1);
			break;
		}
		memcpy(buf, l, ll);
		buf[ll] = '\0';
		if (!strncmp(buf, "# Running timestamp", 19)) {
			const char *colon = strchr(buf, ':');
			if (colon)
				copy_text(out->timestamp, sizeof(out->timestamp), colon + 1);
			continue;
		}
		if (!strncmp(buf, "Port=", 5)) {
			unsigned port;
			uint64_t guid;
			const char *g = strstr(buf, "GUID=");
			char *end;
			if (open && (err = finish(c, out, snap)))
				break;
			port = (unsigned)strtoul(buf + 5, &end, 10);
			if (end == buf + 5 || !g || port > 255) {
				err = fab_err(-EINVAL, "%s:%zu: a record header without its port and GUID", name, line);
				break;
			}
			guid = strtoull(g + 5, &end, 16);
			if (end == g + 5) {
				err = fab_err(-EINVAL, "%s:%zu: GUID '%.20s' is not a number", name, line, g + 5);
				break;
			}
			rec_init(c, guid, port, line);
			open = true;
			continue;
		}
		char *colon = strchr(buf, ':');
		if (!open || !colon || buf[0] == '#' || buf[0] == '-')
			continue;
		*colon = '\0';
		copy_text(buf, sizeof(buf), buf); /* the key, trimmed ("TX Bias Alarm and Warning") */
		field(c, buf, colon + 1);
	}
	if (!err && open)
		err = finish(c, out, snap);
done:
	free(c);
	free(out->seen);
	free(out->port_by_guid);
	out->seen = NULL;
	out->port_by_guid = NULL;
	if (err == -ENOMEM)
		err = fab_err(-ENOMEM, "%s: out of memory", name);
	return err;
}

int ibd_cables_dir(const char *dir, struct fab_snapshot *snap, fab_ibdiag_note_fn note, void *note_ctx)
{
	char *path = NULL, msg[512];
	struct ibd_cables c;
	struct ibd_map m;
	int err;

	if (asprintf(&path, "%s/ibdiagnet2.cables", dir) < 0)
		return fab_err(-ENOMEM, "out of memory");
	if (access(path, F_OK)) {
		free(path);
		return 0; /* a run without --get_cable_info */
	}
	if (!(err = ibd_map(path, "", &m))) {
		err = ibd_cables_read(m.addr ? m.addr : "", m.len, path, snap, &c);
		ibd_unmap(&m);
	}
	if (!err && note && (c.unmatched || c.duplicates)) {
		snprintf(msg, sizeof(msg), "%s: %zu record%s of ports the run does not list, %zu second record%s of a port: skipped",
			 path, c.unmatched, c.unmatched == 1 ? "" : "s", c.duplicates, c.duplicates == 1 ? "" : "s");
		note(msg, note_ctx);
	}
	struct tm tm = { 0 };
	if (!err && note && c.timestamp[0] && snap->started_at_ms &&
	    strptime(c.timestamp, "%Y-%m-%d %H:%M:%S", &tm)) {
		int64_t at = (int64_t)timegm(&tm) * 1000;
		int64_t d = at > snap->started_at_ms ? at - snap->started_at_ms : snap->started_at_ms - at;
		if (d > 3600 * 1000) {
			char when[FAB_TIME_STRLEN];
			fab_time_format(snap->started_at_ms, when);
			snprintf(msg, sizeof(msg), "%s is from another run (%s) than ibdiagnet2.db_csv (%s): its modules are as they were then",
				 path, c.timestamp, when);
			note(msg, note_ctx);
		}
	}
	free(path);
	return err;
}
