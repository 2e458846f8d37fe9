// SPDX-License-Identifier: MIT
/*
 * The physical layer of a snapshot in the store (schema step 12 -> 13;
 * docs/schema.md "Physical layer"): pluggable modules and cables of both
 * fabrics in one relation (module_rows, fabric 'ib' or 'eth'), their lanes,
 * the NIC counters of Ethernet ports and the bit error ratios of InfiniBand
 * ports. Written and loaded inside the snapshot writer's and loader's
 * transactions. A double that is NAN (unknown) or infinite is NULL.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "roce_io.h"
#include "roce_rows.h"
#include "store_priv.h"

#define NOMEM() fab_err(-ENOMEM, "out of memory loading a snapshot")

static void bind_real(sqlite3_stmt *s, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(s, i, v);
}

static double row_real(const struct fab_rrow *w, int i)
{
	return fab_rrow_null(w, i) ? NAN : fab_rrow_double(w, i);
}

/* The columns of module_rows after scan_id, fabric, module_idx and the
 * port's five, in both statements' order. */
#define MOD_COLS \
	"spec, refused, note, identifier, type, vendor, part_number, serial_number," \
	" revision, date_code, media, length_m, media_lanes, lanes, monitors, flags_valid," \
	" flags, temperature_c, voltage_v, temp_hi_alarm, temp_lo_alarm, temp_hi_warn," \
	" temp_lo_warn, vcc_hi_alarm, vcc_lo_alarm, vcc_hi_warn, vcc_lo_warn," \
	" bias_hi_alarm_ma, bias_lo_alarm_ma, bias_hi_warn_ma, bias_lo_warn_ma," \
	" tx_power_hi_alarm_dbm, tx_power_lo_alarm_dbm, tx_power_hi_warn_dbm," \
	" tx_power_lo_warn_dbm, rx_power_hi_alarm_dbm, rx_power_lo_alarm_dbm," \
	" rx_power_hi_warn_dbm, rx_power_lo_warn_dbm"
#define MOD_NCOLS 39

/* MOD_COLS of m from column i */
static void bind_module(sqlite3_stmt *s, int i, const struct fab_module *m)
{
	fab_sql_bind_text(s, i, fab_module_spec_name(m->spec));
	sqlite3_bind_int(s, i + 1, m->refused);
	fab_sql_bind_text(s, i + 2, m->note);
	if (m->identifier >= 0)
		sqlite3_bind_int(s, i + 3, m->identifier);
	fab_sql_bind_text(s, i + 4, m->type);
	fab_sql_bind_text(s, i + 5, m->vendor);
	fab_sql_bind_text(s, i + 6, m->part_number);
	fab_sql_bind_text(s, i + 7, m->serial);
	fab_sql_bind_text(s, i + 8, m->revision);
	fab_sql_bind_text(s, i + 9, m->date_code);
	fab_sql_bind_text(s, i + 10, m->media);
	bind_real(s, i + 11, m->length_m);
	if (m->media_lanes)
		sqlite3_bind_int(s, i + 12, m->media_lanes);
	sqlite3_bind_int(s, i + 13, m->n_lanes);
	sqlite3_bind_int(s, i + 14, m->monitors);
	sqlite3_bind_int(s, i + 15, m->flags_valid);
	if (m->flags_valid)
		sqlite3_bind_int64(s, i + 16, m->flags);
	bind_real(s, i + 17, m->temperature_c);
	bind_real(s, i + 18, m->voltage_v);
	for (unsigned k = 0; k < FAB_MON__COUNT; k++) {
		const struct fab_module_limits *l = &m->lim[k];
		bind_real(s, i + 19 + 4 * (int)k, l->hi_alarm);
		bind_real(s, i + 20 + 4 * (int)k, l->lo_alarm);
		bind_real(s, i + 21 + 4 * (int)k, l->hi_warn);
		bind_real(s, i + 22 + 4 * (int)k, l->lo_warn);
	}
}

/* The texts of the previous module read, by column: a fleet's modules say
 * the same vendor, part number, ... one after the other. */
struct mod_texts {
	const char *(*dup)(void *owner, struct fab_rrow *w, int i);
	/* a text of one module's own (its serial number): copied, not looked up */
	const char *(*own)(void *owner, struct fab_rrow *w, int i);
	void *owner;
	const char *last[8];
};

/* Text column i as the previous module's (slot) when equal, else dup's. */
static const char *mod_text(struct mod_texts *t, struct fab_rrow *w, int i, int slot)
{
	const char *s = fab_rrow_text(w, i), *last = t->last[slot];

	if (!s)
		return NULL;
	if (last && !strcmp(last, s))
		return last;
	return t->last[slot] = t->dup(t->owner, w, i);
}

/* MOD_COLS from column i into m (strings into the owner's arena via t->dup) */
static void read_module(struct fab_rrow *w, int i, struct fab_module *m, struct mod_texts *t)
{
	int spec = fab_module_spec_parse(fab_rrow_text(w, i));

	m->spec = (uint8_t)(spec < 0 ? FAB_MODSPEC_UNKNOWN : spec);
	m->refused = (int)fab_rrow_int(w, i + 1);
	m->note = mod_text(t, w, i + 2, 0);
	m->identifier = fab_rrow_null(w, i + 3) ? -1 : (int16_t)fab_rrow_int(w, i + 3);
	m->type = mod_text(t, w, i + 4, 1);
	m->vendor = mod_text(t, w, i + 5, 2);
	m->part_number = mod_text(t, w, i + 6, 3);
	m->serial = t->own(t->owner, w, i + 7);
	m->revision = mod_text(t, w, i + 8, 5);
	m->date_code = mod_text(t, w, i + 9, 6);
	m->media = mod_text(t, w, i + 10, 7);
	m->length_m = row_real(w, i + 11);
	m->media_lanes = (uint8_t)fab_rrow_int(w, i + 12);
	m->monitors = (int)fab_rrow_int(w, i + 14);
	m->flags_valid = (int)fab_rrow_int(w, i + 15);
	m->flags = (uint32_t)fab_rrow_int(w, i + 16);
	m->temperature_c = row_real(w, i + 17);
	m->voltage_v = row_real(w, i + 18);
	for (unsigned k = 0; k < FAB_MON__COUNT; k++) {
		struct fab_module_limits *l = &m->lim[k];
		l->hi_alarm = row_real(w, i + 19 + 4 * (int)k);
		l->lo_alarm = row_real(w, i + 20 + 4 * (int)k);
		l->hi_warn = row_real(w, i + 21 + 4 * (int)k);
		l->lo_warn = row_real(w, i + 22 + 4 * (int)k);
	}
}

/* ---- writing ---------------------------------------------------------------- */

static int write_lanes(struct fab_store *st, sqlite3_stmt *s, int64_t scan, const char *fabric,
		       size_t idx, const struct fab_modules *set, const struct fab_module *m)
{
	const struct fab_module_lane *l = fab_module_lanes(set, m);
	int err = 0;

	for (unsigned k = 0; l && !err && k < m->n_lanes; k++) {
		sqlite3_bind_int64(s, 1, scan);
		fab_sql_bind_text(s, 2, fabric);
		sqlite3_bind_int64(s, 3, (int64_t)idx);
		sqlite3_bind_int(s, 4, l[k].lane);
		bind_real(s, 5, l[k].rx_mw);
		bind_real(s, 6, fab_mw_to_dbm(l[k].rx_mw));
		bind_real(s, 7, l[k].tx_mw);
		bind_real(s, 8, fab_mw_to_dbm(l[k].tx_mw));
		bind_real(s, 9, l[k].bias_ma);
		if (m->flags_valid)
			sqlite3_bind_int64(s, 10, l[k].flags);
		err = fab_sql_step(st, s, "a module lane");
	}
	return err;
}

/* A growing text. */
struct text {
	char *s;
	size_t len, cap;
};

static bool text_room(struct text *t, size_t n)
{
	if (t->len + n + 1 <= t->cap)
		return true;
	size_t cap = t->cap ? t->cap : 512;
	while (cap < t->len + n + 1)
		cap *= 2;
	char *p = realloc(t->s, cap);
	if (!p)
		return false;
	t->s = p;
	t->cap = cap;
	return true;
}

/* A double as JSON: the shortest decimal that reads back as the same
 * double; null for NAN or infinite (NULL). (A whole number reads as an
 * INTEGER from json_each; module_lanes gives it as REAL all the same: a
 * UNION ALL view's columns have its first SELECT's affinity, here the
 * REAL columns of module_lane_rows.) */
static void text_real(struct text *t, double v)
{
	char *p = t->s + t->len;

	if (!isfinite(v)) {
		memcpy(p, "null", 4);
		t->len += 4;
		return;
	}
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(p, 32, "%.*g", prec, v);
		if (strtod(p, NULL) == v)
			break;
	}
	t->len += (size_t)n;
}

/* A module's lanes as its row keeps them (schema 17: lane_values), per lane
 * [lane, rx_power_mw, rx_power_dbm, tx_power_mw, tx_power_dbm, tx_bias_ma,
 * flags]; NULL (no text) without lanes. */
static const char *lane_values(struct text *t, const struct fab_modules *set,
			       const struct fab_module *m)
{
	const struct fab_module_lane *l = fab_module_lanes(set, m);

	if (!l || !m->n_lanes)
		return NULL;
	t->len = 0;
	if (!text_room(t, 1 + (size_t)m->n_lanes * (5 * 32 + 2 * 24 + 10)))
		return NULL;
	t->s[t->len++] = '[';
	for (unsigned k = 0; k < m->n_lanes; k++) {
		t->len += (size_t)snprintf(t->s + t->len, 24, "%s[%u,", k ? "," : "", l[k].lane);
		text_real(t, l[k].rx_mw);
		t->s[t->len++] = ',';
		text_real(t, fab_mw_to_dbm(l[k].rx_mw));
		t->s[t->len++] = ',';
		text_real(t, l[k].tx_mw);
		t->s[t->len++] = ',';
		text_real(t, fab_mw_to_dbm(l[k].tx_mw));
		t->s[t->len++] = ',';
		text_real(t, l[k].bias_ma);
		if (m->flags_valid)
			t->len += (size_t)snprintf(t->s + t->len, 24, ",%lld]", (long long)l[k].flags);
		else
			t->len += (size_t)snprintf(t->s + t->len, 24, ",null]");
	}
	t->s[t->len++] = ']';
	t->s[t->len] = '\0';
	return t->s;
}

/* An InfiniBand fabric's modules: a row each with all its columns, their
 * lanes rows of module_lane_rows. */
static int write_ib_modules(struct fab_store *st, const struct fab_snapshot *snap, sqlite3_stmt *mod,
			    sqlite3_stmt *lane)
{
	const struct fab_modules *set = &snap->ib_modules;
	int err = 0;

	for (size_t i = 0; !err && i < set->n; i++) {
		const struct fab_module *m = &set->mods[i];

		if (m->port_idx >= snap->n_ports)
			return fab_err(-EINVAL, "snapshot has a module of port %u, which it lacks",
				       m->port_idx);
		const struct fab_port *p = &snap->ports[m->port_idx];
		sqlite3_bind_int64(mod, 1, snap->scan_id);
		fab_sql_bind_text(mod, 2, "ib");
		sqlite3_bind_int64(mod, 3, (int64_t)i);
		fab_sql_bind_guid(mod, 4, snap->nodes[p->node_idx].guid);
		sqlite3_bind_int(mod, 5, p->port_num);
		bind_module(mod, 9, m);
		err = fab_sql_step(st, mod, "a module");
		if (!err)
			err = write_lanes(st, lane, snap->scan_id, "ib", i, set, m);
	}
	return err;
}

static void put_bytes(struct text *t, const void *p, size_t n)
{
	memcpy(t->s + t->len, p, n);
	t->len += n;
}

static bool put_str(struct text *t, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!text_room(t, n + 2))
		return false;
	t->s[t->len++] = s ? 1 : 0;
	put_bytes(t, s ? s : "", n + 1);
	return true;
}

static void put_real(struct text *t, double v)
{
	bool known = isfinite(v);

	t->s[t->len++] = known;
	if (known)
		put_bytes(t, &v, sizeof(v));
}

/* What m shares with every module of its kind (module_descs' columns), as
 * the bytes that identify it; NULL on ENOMEM. */
static const char *desc_key(struct text *t, const struct fab_module *m)
{
	const char *const str[] = { fab_module_spec_name(m->spec), m->type, m->vendor, m->part_number,
				    m->revision, m->date_code, m->media };

	t->len = 0;
	if (!text_room(t, 8 + (1 + FAB_MON__COUNT * 4) * 9))
		return NULL;
	int16_t id = m->identifier;
	put_bytes(t, &id, sizeof(id));
	t->s[t->len++] = (char)m->media_lanes;
	put_real(t, m->length_m);
	for (unsigned k = 0; k < FAB_MON__COUNT; k++) {
		put_real(t, m->lim[k].hi_alarm);
		put_real(t, m->lim[k].lo_alarm);
		put_real(t, m->lim[k].hi_warn);
		put_real(t, m->lim[k].lo_warn);
	}
	for (size_t k = 0; k < ARRAY_SIZE(str); k++)
		if (!put_str(t, str[k]))
			return NULL;
	return t->s;
}

/* module_descs' columns after desc_id (fresh rows), in this order */
#define DESC_SET \
	"spec=?2, identifier=?3, type=?4, vendor=?5, part_number=?6, revision=?7, date_code=?8," \
	" media=?9, length_m=?10, media_lanes=?11, temp_hi_alarm=?12, temp_lo_alarm=?13," \
	" temp_hi_warn=?14, temp_lo_warn=?15, vcc_hi_alarm=?16, vcc_lo_alarm=?17, vcc_hi_warn=?18," \
	" vcc_lo_warn=?19, bias_hi_alarm_ma=?20, bias_lo_alarm_ma=?21, bias_hi_warn_ma=?22," \
	" bias_lo_warn_ma=?23, tx_power_hi_alarm_dbm=?24, tx_power_lo_alarm_dbm=?25," \
	" tx_power_hi_warn_dbm=?26, tx_power_lo_warn_dbm=?27, rx_power_hi_alarm_dbm=?28," \
	" rx_power_lo_alarm_dbm=?29, rx_power_hi_warn_dbm=?30, rx_power_lo_warn_dbm=?31"

static int fill_desc(struct fab_store *st, sqlite3_stmt *s, int64_t id, const struct fab_module *m)
{
	sqlite3_bind_int64(s, 1, id);
	fab_sql_bind_text(s, 2, fab_module_spec_name(m->spec));
	if (m->identifier >= 0)
		sqlite3_bind_int(s, 3, m->identifier);
	fab_sql_bind_text(s, 4, m->type);
	fab_sql_bind_text(s, 5, m->vendor);
	fab_sql_bind_text(s, 6, m->part_number);
	fab_sql_bind_text(s, 7, m->revision);
	fab_sql_bind_text(s, 8, m->date_code);
	fab_sql_bind_text(s, 9, m->media);
	bind_real(s, 10, m->length_m);
	if (m->media_lanes)
		sqlite3_bind_int(s, 11, m->media_lanes);
	for (unsigned k = 0; k < FAB_MON__COUNT; k++) {
		const struct fab_module_limits *l = &m->lim[k];
		bind_real(s, 12 + 4 * (int)k, l->hi_alarm);
		bind_real(s, 13 + 4 * (int)k, l->lo_alarm);
		bind_real(s, 14 + 4 * (int)k, l->hi_warn);
		bind_real(s, 15 + 4 * (int)k, l->lo_warn);
	}
	return fab_sql_step(st, s, "a module description");
}

/*
 * A RoCE part's modules (schema 17): a row each with what is its own
 * (serial number, note, live values, lanes as lane_values), naming the
 * description it shares with every module of its kind (module_descs,
 * stored once).
 */
static int write_eth_modules(struct fab_store *st, struct fab_roce_sets *sets,
			     const struct fab_snapshot *snap, sqlite3_stmt *mod, sqlite3_stmt *desc)
{
	const struct fab_roce *r = snap->roce;
	const struct fab_modules *set = &r->modules;
	struct text t = { 0 }, k = { 0 };
	int err = 0;

	for (size_t i = 0; !err && i < set->n; i++) {
		const struct fab_module *m = &set->mods[i];
		int64_t id;
		bool fresh;

		if (m->port_idx >= r->n_eth_ports) {
			err = fab_err(-EINVAL, "snapshot has a module of port %u, which it lacks",
				      m->port_idx);
			break;
		}
		const struct fab_eth_port *p = &r->eth_ports[m->port_idx];
		if (fab_roce_kept(r, p->system_idx)) /* a delta's keyframe holds it */
			continue;
		if (!desc_key(&k, m)) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		if ((err = fab_module_desc_id(sets, k.s, k.len, &id, &fresh)) ||
		    (fresh && (err = fill_desc(st, desc, id, m))))
			break;
		sqlite3_bind_int64(mod, 1, snap->scan_id);
		sqlite3_bind_int64(mod, 2, fab_roce_module_id(r, (uint32_t)i));
		fab_sql_bind_text(mod, 3, p->system_idx < r->n_systems ? r->systems[p->system_idx].name : "?");
		fab_sql_bind_text(mod, 4, p->ifname ? p->ifname : "?");
		sqlite3_bind_int64(mod, 5, fab_roce_port_id(r, m->port_idx));
		sqlite3_bind_int(mod, 6, m->refused);
		fab_sql_bind_text(mod, 7, m->note);
		fab_sql_bind_text(mod, 8, m->serial);
		sqlite3_bind_int(mod, 9, m->n_lanes);
		sqlite3_bind_int(mod, 10, m->monitors);
		sqlite3_bind_int(mod, 11, m->flags_valid);
		if (m->flags_valid)
			sqlite3_bind_int64(mod, 12, m->flags);
		bind_real(mod, 13, m->temperature_c);
		bind_real(mod, 14, m->voltage_v);
		if (fab_module_lanes(set, m) && m->n_lanes) {
			const char *v = lane_values(&t, set, m);
			if (!v) {
				err = fab_err(-ENOMEM, "out of memory");
				break;
			}
			sqlite3_bind_text(mod, 15, v, (int)t.len, SQLITE_STATIC);
		}
		sqlite3_bind_int64(mod, 16, id);
		err = fab_sql_step(st, mod, "a module");
	}
	free(t.s);
	free(k.s);
	return err;
}

/*
 * The NIC counters: a row per run (nic_counter_ports; consecutive counters
 * of one port and sample read at one time), its values a JSON array in the
 * order of the run's counter set.
 */
static int write_nic_counters(struct fab_store *st, struct fab_roce_sets *sets,
			      const struct fab_snapshot *snap, sqlite3_stmt *s)
{
	const struct fab_roce *r = snap->roce;
	uint32_t *runs = calloc(r->n_eth_ports + 1, sizeof(*runs));
	int err = runs ? 0 : fab_err(-ENOMEM, "out of memory");

	for (size_t i = 0, j; !err && i < r->n_nic_counters; i = j) {
		const struct fab_nic_counter *c = &r->nic_counters[i];
		for (j = i + 1; j < r->n_nic_counters && r->nic_counters[j].port_idx == c->port_idx &&
				r->nic_counters[j].sample == c->sample &&
				r->nic_counters[j].at_ms == c->at_ms;
		     j++)
			;
		if (c->port_idx >= r->n_eth_ports) {
			err = fab_err(-EINVAL, "snapshot has a NIC counter of a port it lacks");
			break;
		}
		const struct fab_eth_port *p = &r->eth_ports[c->port_idx];
		int64_t set;
		const char *vals;
		if (fab_roce_kept(r, p->system_idx)) /* a delta's keyframe holds them */
			continue;
		if ((err = fab_nic_ctr_set(sets, r, i, j - i, &set)))
			break;
		if (!(vals = fab_nic_ctr_values(sets, r, i, j - i))) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		sqlite3_bind_int64(s, 1, snap->scan_id);
		sqlite3_bind_int64(s, 2, fab_roce_port_id(r, c->port_idx));
		sqlite3_bind_int64(s, 3, runs[c->port_idx]++);
		fab_sql_bind_text(s, 4, p->system_idx < r->n_systems ? r->systems[p->system_idx].name : "?");
		fab_sql_bind_text(s, 5, p->ifname ? p->ifname : "?");
		sqlite3_bind_int(s, 6, c->sample);
		if (c->at_ms)
			fab_sql_bind_time(s, 7, c->at_ms);
		sqlite3_bind_int64(s, 8, set);
		sqlite3_bind_text(s, 9, vals, -1, SQLITE_STATIC);
		err = fab_sql_step(st, s, "a port's NIC counters");
	}
	free(runs);
	return err;
}

static int write_ber(struct fab_store *st, const struct fab_snapshot *snap, sqlite3_stmt *s)
{
	int err = 0;

	for (size_t i = 0; !err && i < snap->n_ber; i++) {
		const struct fab_port_ber *b = &snap->ber[i];
		if (b->port_idx >= snap->n_ports)
			return fab_err(-EINVAL, "snapshot has a bit error ratio of a port it lacks");
		const struct fab_port *p = &snap->ports[b->port_idx];

		sqlite3_bind_int64(s, 1, snap->scan_id);
		fab_sql_bind_guid(s, 2, snap->nodes[p->node_idx].guid);
		sqlite3_bind_int(s, 3, p->port_num);
		bind_real(s, 4, b->raw);
		bind_real(s, 5, b->effective);
		bind_real(s, 6, b->symbol);
		err = fab_sql_step(st, s, "a bit error ratio");
	}
	return err;
}

int fab_store_write_phys(struct fab_store *st, const struct fab_snapshot *snap)
{
	static const char *const sql[] = {
		"INSERT INTO module_rows(scan_id, fabric, module_idx, node_guid, port_num, system,"
		" ifname, eth_port_idx, " MOD_COLS ") VALUES (?,?,?,?,?,?,?,?,"
		"?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		"INSERT INTO module_lane_rows(scan_id, fabric, module_idx, lane, rx_power_mw,"
		" rx_power_dbm, tx_power_mw, tx_power_dbm, tx_bias_ma, flags)"
		" VALUES (?,?,?,?,?,?,?,?,?,?)",
		"INSERT INTO nic_counter_ports(scan_id, port_idx, run, system, ifname, sample,"
		" sampled_at, counter_set, counter_values) VALUES (?,?,?,?,?,?,?,?,?)",
		"INSERT INTO port_ber_rows(scan_id, node_guid, port_num, raw_ber, effective_ber,"
		" symbol_ber) VALUES (?,?,?,?,?,?)",
		"INSERT INTO module_rows(scan_id, fabric, module_idx, system, ifname, eth_port_idx,"
		" refused, note, serial_number, lanes, monitors, flags_valid, flags, temperature_c,"
		" voltage_v, lane_values, desc_id) VALUES (?1,'eth',?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,"
		"?12,?13,?14,?15,?16)",
		"UPDATE module_descs SET " DESC_SET " WHERE desc_id = ?1",
	};
	sqlite3_stmt *s[ARRAY_SIZE(sql)] = { 0 };
	struct fab_roce_sets *sets = NULL;
	bool eth = snap->roce && (snap->roce->modules.n || snap->roce->n_nic_counters);
	int err;

	if (!snap->ib_modules.n && !snap->n_ber && !eth)
		return 0;
	if ((err = fab_sql_prepare_all(st, sql, ARRAY_SIZE(sql), s)))
		return err;
	if (eth)
		err = fab_roce_sets_open(st, &sets);
	if (!err)
		err = write_ib_modules(st, snap, s[0], s[1]);
	if (!err && eth)
		err = write_eth_modules(st, sets, snap, s[4], s[5]);
	if (!err && eth)
		err = write_nic_counters(st, sets, snap, s[2]);
	if (!err)
		err = write_ber(st, snap, s[3]);
	fab_roce_sets_close(sets);
	fab_sql_finalize_all(s, ARRAY_SIZE(s));
	return err;
}

/* ---- loading ----------------------------------------------------------------- */
/*
 * Through roce_rows.h: the RoCE part's from the loader's database or from a
 * merge's input file read directly (roce_load.c), an InfiniBand scan's from
 * the database.
 */

static const char *dup_roce(void *owner, struct fab_rrow *w, int i)
{
	return fab_rrow_null(w, i) ? NULL : fab_roce_intern(owner, fab_rrow_text(w, i));
}

/* a RoCE module's serial number: every module has its own (as merge
 * copies it) */
static const char *own_roce(void *owner, struct fab_rrow *w, int i)
{
	return fab_rrow_null(w, i) ? NULL : fab_roce_strdup(owner, fab_rrow_text(w, i));
}

static const char *dup_snap(void *owner, struct fab_rrow *w, int i)
{
	return fab_rrow_null(w, i) ? NULL : fab_snapshot_strdup(owner, fab_rrow_text(w, i), SIZE_MAX);
}

/*
 * How many more elements of an array of n to make room for when need more
 * do not fit in what is ready: as many again as it holds (64 at least),
 * at most 2 MiB worth, so that a large load prefaults its arrays in a few
 * calls (fab_array_reserve) and a small one (a merge's host file) only
 * reserves.
 */
static size_t ahead(size_t n, size_t need, size_t elem)
{
	size_t more = n < 64 ? 64 : n;

	if (more > (2u << 20) / elem)
		more = (2u << 20) / elem;
	return more < need ? need : more;
}

struct mod_load {
	const struct fab_rsrc *src;
	int64_t scan;
	const char *fabric;
	struct fab_modules *set;
	uint32_t (*port_of)(void *owner, struct fab_rrow *w);
	void *owner;
	struct mod_texts texts;
	size_t mods_ready, lanes_ready; /* room made in set (ahead()) */
	bool own_cols; /* rows read by mod_own_cols */
	uint32_t *idx_map; /* module_idx -> position in set, FAB_NONE */
	const struct fab_roce_place *place; /* a delta's rows: NULL for a whole scan */
	size_t n_map;
	/* module_descs (schema 17) in id order: what they say, in a module */
	struct mod_desc {
		int64_t id;
		struct fab_module m;
	} *descs;
	size_t n_descs, cap_descs;
};

static int mod_bad(const struct mod_load *x);

/* desc_id, spec, identifier, type, vendor, part_number, revision, date_code,
 * media, length_m, media_lanes, the thresholds (DESC_SET's order) */
static int desc_row(struct fab_rrow *w, void *ctx)
{
	struct mod_load *x = ctx;
	int64_t id = fab_rrow_int(w, 0);

	if (x->n_descs && x->descs[x->n_descs - 1].id >= id)
		return mod_bad(x);
	struct mod_desc *d = fab_array_grow((void **)&x->descs, &x->n_descs, &x->cap_descs, sizeof(*d));
	if (!d)
		return NOMEM();
	d->id = id;
	struct fab_module *m = &d->m;
	int spec = fab_module_spec_parse(fab_rrow_text(w, 1));
	m->spec = (uint8_t)(spec < 0 ? FAB_MODSPEC_UNKNOWN : spec);
	m->identifier = fab_rrow_null(w, 2) ? -1 : (int16_t)fab_rrow_int(w, 2);
	m->type = mod_text(&x->texts, w, 3, 1);
	m->vendor = mod_text(&x->texts, w, 4, 2);
	m->part_number = mod_text(&x->texts, w, 5, 3);
	m->revision = mod_text(&x->texts, w, 6, 5);
	m->date_code = mod_text(&x->texts, w, 7, 6);
	m->media = mod_text(&x->texts, w, 8, 7);
	m->length_m = row_real(w, 9);
	m->media_lanes = (uint8_t)fab_rrow_int(w, 10);
	for (unsigned k = 0; k < FAB_MON__COUNT; k++) {
		struct fab_module_limits *l = &m->lim[k];
		l->hi_alarm = row_real(w, 11 + 4 * (int)k);
		l->lo_alarm = row_real(w, 12 + 4 * (int)k);
		l->hi_warn = row_real(w, 13 + 4 * (int)k);
		l->lo_warn = row_real(w, 14 + 4 * (int)k);
	}
	return 0;
}

static const struct mod_desc *find_desc(const struct mod_load *x, int64_t id)
{
	_Static_assert(offsetof(struct mod_desc, id) == 0, "fab_find_by_id reads the id first");
	return fab_find_by_id(x->descs, x->n_descs, sizeof(*x->descs), id);
}

/* A module of a description (MOD_COLS from column i: only its own). */
static void read_module_of(struct fab_rrow *w, int i, struct fab_module *m, const struct mod_desc *d,
			   struct mod_texts *t)
{
	m->spec = d->m.spec;
	m->identifier = d->m.identifier;
	m->type = d->m.type;
	m->vendor = d->m.vendor;
	m->part_number = d->m.part_number;
	m->revision = d->m.revision;
	m->date_code = d->m.date_code;
	m->media = d->m.media;
	m->length_m = d->m.length_m;
	m->media_lanes = d->m.media_lanes;
	memcpy(m->lim, d->m.lim, sizeof(m->lim));
	m->refused = (int)fab_rrow_int(w, i + 1);
	m->note = mod_text(t, w, i + 2, 0);
	m->serial = t->own(t->owner, w, i + 7);
	m->monitors = (int)fab_rrow_int(w, i + 14);
	m->flags_valid = (int)fab_rrow_int(w, i + 15);
	m->flags = (uint32_t)fab_rrow_int(w, i + 16);
	m->temperature_c = row_real(w, i + 17);
	m->voltage_v = row_real(w, i + 18);
}

static int parse_lanes(const char *s, struct fab_module_lane *l, unsigned n);

static int mod_bad(const struct mod_load *x)
{
	return fab_err(-EPROTO, "database '%s': scan %lld has an inconsistent module", x->src->path,
		       (long long)x->scan);
}

static bool of_fabric(struct fab_rrow *w, int i, const char *fabric)
{
	const char *f = fab_rrow_text(w, i);

	return f && !strcmp(f, fabric);
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

static bool is_null(const char *p)
{
	return p[0] == 'n' && p[1] == 'u' && p[2] == 'l' && p[3] == 'l';
}

/* A JSON number or null (NAN) at *s; false when it is neither. */
static bool json_real(const char **s, double *v)
{
	const char *p = skip_space(*s), *q;
	char *end;

	if (is_null(p)) {
		*v = NAN;
		*s = p + 4;
		return true;
	}
	if (!(*p == '-' || (*p >= '0' && *p <= '9')))
		return false;
	/* a whole number of up to 15 digits (a lane's flags, a dark lane's 0)
	 * is exactly the double strtod would give */
	uint64_t u = 0;
	for (q = p + (*p == '-'); *q >= '0' && *q <= '9' && q - p < 16; q++)
		u = u * 10 + (uint64_t)(*q - '0');
	if (q > p + (*p == '-') && q - p < 16 && *q != '.' && *q != 'e' && *q != 'E' &&
	    !(*q >= '0' && *q <= '9')) {
		*v = *p == '-' ? -(double)u : (double)u;
		*s = q;
		return true;
	}
	*v = strtod(p, &end);
	if (end == p)
		return false;
	*s = end;
	return true;
}

/* Steps over a JSON number or null at *s (the decibels, not read). */
static bool json_skip(const char **s)
{
	const char *p = skip_space(*s), *q = p;

	if (is_null(p)) {
		*s = p + 4;
		return true;
	}
	while ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+' || *q == '.' || *q == 'e' ||
	       *q == 'E')
		q++;
	*s = q;
	return q > p;
}

static bool json_char(const char **s, char c)
{
	const char *p = skip_space(*s);

	if (*p != c)
		return false;
	*s = p + 1;
	return true;
}

/*
 * A module's lane_values (schema 17; write_modules() above says the form)
 * into its n lanes, each by its number: 0, or -EINVAL when it is not such
 * an array. The decibels are the milliwatts' (fab_mw_to_dbm): not read.
 */
static int parse_lanes(const char *s, struct fab_module_lane *l, unsigned n)
{
	if (!s || !json_char(&s, '['))
		return -EINVAL;
	if (json_char(&s, ']'))
		return *skip_space(s) ? -EINVAL : 0;
	do {
		double v[7];
		if (!json_char(&s, '['))
			return -EINVAL;
		for (int k = 0; k < 7; k++)
			if ((k && !json_char(&s, ',')) ||
			    !(k == 2 || k == 4 ? json_skip(&s) : json_real(&s, &v[k])))
				return -EINVAL;
		if (!json_char(&s, ']'))
			return -EINVAL;
		if (!(v[0] >= 1 && v[0] <= n) || !l)
			continue; /* a lane the module does not have, as lane_row() */
		struct fab_module_lane *e = &l[(unsigned)v[0] - 1];
		e->rx_mw = v[1];
		e->tx_mw = v[3];
		e->bias_ma = v[5];
		e->flags = isnan(v[6]) ? 0 : (uint32_t)(int64_t)v[6];
	} while (json_char(&s, ','));
	return json_char(&s, ']') && !*skip_space(s) ? 0 : -EINVAL;
}

/* The columns a module row is read by (module_row()). */
static const char *const mod_cols[] = {
	"module_idx", "node_guid", "port_num", "eth_port_idx", "fabric", "spec", "refused",
	"note", "identifier", "type", "vendor", "part_number", "serial_number", "revision",
	"date_code", "media", "length_m", "media_lanes", "lanes", "monitors", "flags_valid",
	"flags", "temperature_c", "voltage_v", "temp_hi_alarm", "temp_lo_alarm",
	"temp_hi_warn", "temp_lo_warn", "vcc_hi_alarm", "vcc_lo_alarm", "vcc_hi_warn",
	"vcc_lo_warn", "bias_hi_alarm_ma", "bias_lo_alarm_ma", "bias_hi_warn_ma",
	"bias_lo_warn_ma", "tx_power_hi_alarm_dbm", "tx_power_lo_alarm_dbm",
	"tx_power_hi_warn_dbm", "tx_power_lo_warn_dbm", "rx_power_hi_alarm_dbm",
	"rx_power_lo_alarm_dbm", "rx_power_hi_warn_dbm", "rx_power_lo_warn_dbm",
	"lane_values", "desc_id", NULL,
};

/* mod_cols read from a row of schema 17 or later that names its
 * description (desc_id): NULL for the description's columns, which the row
 * leaves NULL (SQLite reads every column asked for: half the cost of a
 * fleet's modules), and for the InfiniBand port's; those after voltage_v
 * (the thresholds) left out, lane_values and desc_id right after it
 * (lanes_col()). */
static const char *const mod_own_cols[] = {
	"module_idx", "NULL", "NULL", "eth_port_idx", "fabric", "NULL", "refused", "note", "NULL",
	"NULL", "NULL", "NULL", "serial_number", "NULL", "NULL", "NULL", "NULL", "NULL", "lanes",
	"monitors", "flags_valid", "flags", "temperature_c", "voltage_v", "lane_values", "desc_id", NULL,
};

/* The column of lane_values in a module row (desc_id's is the next). */
static int lanes_col(const struct mod_load *x)
{
	return x->own_cols ? 5 + 19 : 5 + MOD_NCOLS;
}

static int module_row(struct fab_rrow *w, void *ctx);

/* Module mi read again with every column: a row of mod_own_cols' query
 * that names no description (a scan written before schema 17 has none;
 * load_modules() reads such a scan with mod_cols from its first row). */
static int module_again(struct mod_load *x, int64_t mi)
{
	char where[64];

	snprintf(where, sizeof(where), "fabric = '%s' AND module_idx = %lld", x->fabric, (long long)mi);
	const struct fab_rquery one = { "module_rows", mod_cols, "module_idx", true, where };
	x->own_cols = false;
	int err = fab_rquery_run(x->src, &one, x->scan, module_row, x);
	x->own_cols = true;
	return err;
}

/* module_idx, node_guid, port_num, eth_port_idx, fabric, MOD_COLS, lane_values,
 * desc_id (mod_cols; or mod_own_cols) */
static int module_row(struct fab_rrow *w, void *ctx)
{
	struct mod_load *x = ctx;
	int64_t mi = fab_rrow_int(w, 0), lanes = fab_rrow_int(w, 5 + 13);
	struct fab_module *m;

	if (!of_fabric(w, 4, x->fabric))
		return 0;
	if (x->own_cols && fab_rrow_null(w, lanes_col(x) + 1))
		return module_again(x, mi);
	if (mi < 0 || mi > (int64_t)UINT32_MAX - 1 || lanes < 0 || lanes > FAB_MODULE_MAX_LANES)
		return mod_bad(x);
	uint32_t port = x->place ? x->place->port(x->place->ctx, fab_rrow_null(w, 3) ? -1 : fab_rrow_int(w, 3))
				 : x->port_of(x->owner, w);
	if (port == FAB_NONE)
		return 0;
	while (x->n_map <= (size_t)mi) {
		size_t cap = x->n_map ? x->n_map * 2 : 64;
		uint32_t *p = realloc(x->idx_map, cap * sizeof(*p));
		if (!p)
			return NOMEM();
		for (size_t k = x->n_map; k < cap; k++)
			p[k] = FAB_NONE;
		x->idx_map = p;
		x->n_map = cap;
	}
	if (x->set->n + 1 > x->mods_ready || x->set->n_lanes + (size_t)lanes > x->lanes_ready) {
		size_t nm = ahead(x->set->n, 1, sizeof(*x->set->mods));
		size_t nl = ahead(x->set->n_lanes, (size_t)lanes, sizeof(*x->set->lanes));
		if (fab_modules_reserve(x->set, nm, nl))
			return NOMEM();
		x->mods_ready = x->set->n + nm;
		x->lanes_ready = x->set->n_lanes + nl;
	}
	if (!(m = fab_modules_add(x->set, port, (unsigned)lanes)))
		return NOMEM();
	uint32_t lf = m->lane_first;
	if (fab_rrow_null(w, lanes_col(x) + 1)) {
		read_module(w, 5, m, &x->texts);
	} else {
		const struct mod_desc *d = find_desc(x, fab_rrow_int(w, lanes_col(x) + 1));
		if (!d)
			return mod_bad(x);
		read_module_of(w, 5, m, d, &x->texts);
	}
	m->lane_first = lf;
	x->idx_map[mi] = (uint32_t)(x->set->n - 1);
	if (x->place && x->place->module(x->place->ctx, mi, (uint32_t)(x->set->n - 1)))
		return NOMEM();
	if (!fab_rrow_null(w, lanes_col(x)) &&
	    parse_lanes(fab_rrow_text(w, lanes_col(x)), fab_module_lanes(x->set, m), m->n_lanes))
		return mod_bad(x);
	return 0;
}

/* module_idx, lane, rx_power_mw, tx_power_mw, tx_bias_ma, flags, fabric */
static int lane_row(struct fab_rrow *w, void *ctx)
{
	struct mod_load *x = ctx;
	int64_t mi = fab_rrow_int(w, 0), lane = fab_rrow_int(w, 1);

	if (!of_fabric(w, 6, x->fabric) || mi < 0 || (size_t)mi >= x->n_map ||
	    x->idx_map[mi] == FAB_NONE)
		return 0;
	struct fab_module *m = &x->set->mods[x->idx_map[mi]];
	struct fab_module_lane *l = fab_module_lanes(x->set, m);
	if (!l || lane < 1 || lane > m->n_lanes)
		return 0;
	l[lane - 1].rx_mw = row_real(w, 2);
	l[lane - 1].tx_mw = row_real(w, 3);
	l[lane - 1].bias_ma = row_real(w, 4);
	l[lane - 1].flags = (uint32_t)fab_rrow_int(w, 5);
	return 0;
}

/* The first module row: whether it names a description (*ctx); stops. */
static int names_desc(struct fab_rrow *w, void *ctx)
{
	*(bool *)ctx = !fab_rrow_null(w, 0);
	return 1;
}

/*
 * The modules of a fabric, scan scan: port_of() gives each row's port
 * (FAB_NONE: not in the snapshot, skipped), then their lanes.
 */
static int load_modules(const struct fab_rsrc *src, int64_t scan, const char *fabric,
			struct fab_modules *set, uint32_t (*port_of)(void *owner, struct fab_rrow *w),
			void *owner, const char *(*dup)(void *owner, struct fab_rrow *w, int i),
			const char *(*own)(void *owner, struct fab_rrow *w, int i),
			const struct fab_roce_place *place)
{
	static const char *const desc_cols[] = {
		"desc_id", "spec", "identifier", "type", "vendor", "part_number", "revision",
		"date_code", "media", "length_m", "media_lanes", "temp_hi_alarm", "temp_lo_alarm",
		"temp_hi_warn", "temp_lo_warn", "vcc_hi_alarm", "vcc_lo_alarm", "vcc_hi_warn",
		"vcc_lo_warn", "bias_hi_alarm_ma", "bias_lo_alarm_ma", "bias_hi_warn_ma",
		"bias_lo_warn_ma", "tx_power_hi_alarm_dbm", "tx_power_lo_alarm_dbm",
		"tx_power_hi_warn_dbm", "tx_power_lo_warn_dbm", "rx_power_hi_alarm_dbm",
		"rx_power_lo_alarm_dbm", "rx_power_hi_warn_dbm", "rx_power_lo_warn_dbm", NULL,
	};
	static const struct fab_rquery descs = { "module_descs", desc_cols, "desc_id", false, NULL };
	static const char *const lane_cols[] = {
		"module_idx", "lane", "rx_power_mw", "tx_power_mw", "tx_bias_ma", "flags", "fabric", NULL,
	};
	bool ib = !strcmp(fabric, "ib");
	/* the fabric's rows only (an InfiniBand scan's load skips a RoCE part's) */
	struct fab_rquery mods = { "module_rows", mod_cols, "module_idx", true,
				   ib ? "fabric = 'ib'"
				   : place && place->mod_where ? place->mod_where : "fabric = 'eth'" };
	const struct fab_rquery lanes = { "module_lane_rows", lane_cols, "module_idx, lane", true,
					  ib ? "fabric = 'ib'" : "fabric = 'eth'" };
	struct mod_load x = { .src = src, .scan = scan, .fabric = fabric, .set = set,
			      .port_of = port_of, .owner = owner, .place = place,
			      .texts = { .dup = dup, .own = own, .owner = owner } };
	/* the descriptions only a RoCE part's modules name */
	int err = ib ? 0 : fab_rquery_run(src, &descs, scan, desc_row, &x);

	/* SQLite: a scan whose first module names its description (schema
	 * 17 or later) read by mod_own_cols */
	if (!err && !ib && src->st && fab_rsrc_has(src, "module_rows", "desc_id")) {
		static const char *const first_cols[] = { "desc_id", NULL };
		const struct fab_rquery first = { "module_rows", first_cols, "module_idx", true, mods.and_where };
		if ((err = fab_rquery_run(src, &first, scan, names_desc, &x.own_cols)) > 0)
			err = 0; /* stopped at the first row */
		if (x.own_cols)
			mods.cols = mod_own_cols;
	}
	if (!err)
		err = fab_rquery_run(src, &mods, scan, module_row, &x);
	if (!err && x.n_map) /* the lanes of this scan's modules */
		err = fab_rquery_run(src, &lanes, scan, lane_row, &x);
	free(x.idx_map);
	free(x.descs);
	return err;
}

static uint32_t eth_port_of(void *owner, struct fab_rrow *w)
{
	const struct fab_roce *r = owner;
	int64_t p = fab_rrow_null(w, 3) ? -1 : fab_rrow_int(w, 3);

	return p >= 0 && (size_t)p < r->n_eth_ports ? (uint32_t)p : FAB_NONE;
}

static uint32_t ib_port_of(void *owner, struct fab_rrow *w)
{
	const struct fab_snapshot *snap = owner;
	uint64_t guid = 0;
	const struct fab_port *p;

	if (!fab_rrow_null(w, 1))
		fab_guid_parse(fab_rrow_text(w, 1), &guid);
	uint32_t n = fab_snapshot_find_node(snap, guid);
	if (n == FAB_NONE || !(p = fab_snapshot_port(snap, n, (unsigned)fab_rrow_int(w, 2))))
		return FAB_NONE;
	return (uint32_t)(p - snap->ports);
}

/* A NIC counter set's names: nic_counter_names rows [first, first + count). */
struct nic_set {
	int64_t id;
	uint32_t first, count;
};


struct nic_load {
	struct fab_roce *r;
	const struct fab_roce_place *place; /* a delta's rows: NULL for a whole scan */
	const char *path;
	uint32_t last_port;
	bool regroup; /* rows not in port order: make each port's contiguous after */
	struct nic_set *sets;
	size_t n_sets, cap_sets;
	struct fab_nic_counter *names; /* ctr, prio, source (interned in r) */
	size_t n_names, cap_names;
	uint64_t *vals;
	size_t cap_vals;
	size_t ready; /* room made in r->nic_counters (ahead()) */
};

static int nic_bad(const struct nic_load *x, int64_t scan)
{
	return fab_err(-EPROTO, "database '%s': scan %lld has inconsistent NIC counters", x->path,
		       (long long)scan);
}

static int nic_sets_bad(const struct nic_load *x)
{
	return fab_err(-EPROTO, "database '%s' has an inconsistent NIC counter set", x->path);
}

/* The port of a row (port_idx at column i): whether its counters come in
 * order; FAB_NONE for a port this scan lacks. */
static uint32_t nic_port(struct nic_load *x, int64_t p)
{
	if (x->place && (p = x->place->port(x->place->ctx, p)) == FAB_NONE)
		return FAB_NONE;
	if (p < 0 || (size_t)p >= x->r->n_eth_ports)
		return FAB_NONE;
	if (x->last_port != FAB_NONE && (uint32_t)p != x->last_port &&
	    ((uint32_t)p < x->last_port || x->r->eth_ports[p].nic_count))
		x->regroup = true;
	x->last_port = (uint32_t)p;
	return (uint32_t)p;
}

/* port_idx, sample, sampled_at, counter, priority, value, source */
static int nic_row(struct fab_rrow *w, void *ctx)
{
	struct nic_load *x = ctx;
	int64_t at = 0;
	int ctr = fab_nic_ctr_parse(fab_rrow_text(w, 3));
	int prio = fab_rrow_null(w, 4) ? -1 : (int)fab_rrow_int(w, 4);

	if (ctr < 0 || prio < -1 || prio > 7)
		return 0; /* a counter this version does not know */
	uint32_t p = nic_port(x, fab_rrow_int(w, 0));
	if (p == FAB_NONE)
		return 0;
	if (!fab_rrow_null(w, 2))
		fab_time_parse(fab_rrow_text(w, 2), &at);
	return fab_roce_add_nic_counter(x->r, p, (unsigned)ctr, prio,
					(unsigned)fab_rrow_int(w, 1), (uint64_t)fab_rrow_int(w, 5), at,
					fab_rrow_text(w, 6))
		       ? NOMEM()
		       : 0;
}

/* A set's name (set_id, pos, counter, priority, source), sets in order. */
static int nic_name_row(struct fab_rrow *w, void *ctx)
{
	struct nic_load *x = ctx;
	int64_t id = fab_rrow_int(w, 0), pos = fab_rrow_int(w, 1);

	if (!x->n_sets || x->sets[x->n_sets - 1].id != id) {
		if (pos != 0 || (x->n_sets && x->sets[x->n_sets - 1].id > id))
			return nic_sets_bad(x);
		struct nic_set *t = fab_array_grow((void **)&x->sets, &x->n_sets, &x->cap_sets,
						   sizeof(*t));
		if (!t)
			return NOMEM();
		*t = (struct nic_set){ .id = id, .first = (uint32_t)x->n_names };
	}
	struct nic_set *t = &x->sets[x->n_sets - 1];
	if (pos != t->count)
		return nic_sets_bad(x);
	struct fab_nic_counter *n = fab_array_grow((void **)&x->names, &x->n_names, &x->cap_names,
						   sizeof(*n));
	if (!n)
		return NOMEM();
	int prio = fab_rrow_null(w, 3) ? -1 : (int)fab_rrow_int(w, 3);
	int ctr = fab_nic_ctr_parse(fab_rrow_text(w, 2));
	/* a counter or priority this version does not know: left out, as nic_row() */
	n->ctr = (uint8_t)(ctr < 0 || prio < -1 || prio > 7 ? FAB_NIC__COUNT : ctr);
	n->prio = (int8_t)prio;
	/* (a file's texts share one buffer: the source is read last) */
	const char *src = fab_rrow_text(w, 4);
	n->source = src ? fab_roce_intern(x->r, src) : NULL;
	if (src && !n->source)
		return NOMEM();
	t->count++;
	return 0;
}

static const struct nic_set *nic_find_set(const struct nic_load *x, int64_t id)
{
	_Static_assert(offsetof(struct nic_set, id) == 0, "fab_find_by_id reads the id first");
	return fab_find_by_id(x->sets, x->n_sets, sizeof(*x->sets), id);
}

/* A run of a port's counters (port_idx, sample, sampled_at, counter_set,
 * counter_values, scan_id): the set's names, the JSON array's values. */
static int nic_run_row(struct fab_rrow *w, void *ctx)
{
	struct nic_load *x = ctx;
	const struct nic_set *t = nic_find_set(x, fab_rrow_int(w, 3));
	int64_t at = 0;
	size_t n;

	if (!t)
		return nic_bad(x, fab_rrow_int(w, 5));
	if (t->count > x->cap_vals) {
		uint64_t *v = realloc(x->vals, t->count * sizeof(*v));
		if (!v)
			return NOMEM();
		x->vals = v;
		x->cap_vals = t->count;
	}
	if (fab_roce_parse_values(fab_rrow_text(w, 4), x->vals, t->count, &n) || n != t->count)
		return nic_bad(x, fab_rrow_int(w, 5));
	uint32_t p = nic_port(x, fab_rrow_int(w, 0));
	if (p == FAB_NONE)
		return 0;
	if (!fab_rrow_null(w, 2))
		fab_time_parse(fab_rrow_text(w, 2), &at);
	if (x->r->n_nic_counters + t->count > x->ready) {
		size_t more = ahead(x->r->n_nic_counters, t->count, sizeof(*x->r->nic_counters));
		if (fab_roce_reserve_nic_counters(x->r, more))
			return NOMEM();
		x->ready = x->r->n_nic_counters + more;
	}
	return fab_roce_add_nic_counters(x->r, p, (unsigned)fab_rrow_int(w, 1), at, t->count,
					 &x->names[t->first], x->vals)
		       ? NOMEM()
		       : 0;
}

int fab_roce_load_phys(const struct fab_rsrc *src, struct fab_roce *r, int64_t scan,
		       const struct fab_roce_place *place)
{
	static const char *const nic_cols[] = {
		"port_idx", "sample", "sampled_at", "counter", "priority", "value", "source", NULL,
	};
	static const char *const name_cols[] = { "set_id", "pos", "counter", "priority", "source", NULL };
	static const char *const run_cols[] = {
		"port_idx", "sample", "sampled_at", "counter_set", "counter_values", "scan_id", NULL,
	};
	static const struct fab_rquery names = { "nic_counter_names", name_cols, "set_id, pos", false, NULL };
	const struct fab_rquery runs = { "nic_counter_ports", run_cols, "port_idx, run", true,
					 place ? place->nic_where : NULL };
	/* a rowid table: its rows as written, each port's together (the file
	 * read directly has them in rowid order; SQLite sorts). Schema 17
	 * renamed it; a file of 16 or older has it as nic_counters. */
	struct fab_rquery rows = { "nic_counter_rows", nic_cols, "port_idx, rowid", true, NULL };
	struct nic_load x = { .r = r, .path = src->path, .last_port = FAB_NONE, .place = place };
	int err = load_modules(src, scan, "eth", &r->modules, eth_port_of, r, dup_roce, own_roce, place);

	if (!fab_rsrc_has(src, rows.table, NULL))
		rows.table = "nic_counters";
	if (!err && fab_rsrc_has(src, runs.table, NULL) &&
	    !(err = fab_rquery_run(src, &names, scan, nic_name_row, &x)))
		err = fab_rquery_run(src, &runs, scan, nic_run_row, &x);
	if (!err)
		err = fab_rquery_run(src, &rows, scan, nic_row, &x);
	free(x.sets);
	free(x.names);
	free(x.vals);
	if (err)
		return err;
	return x.regroup && fab_roce_group_nic_counters(r) ? NOMEM() : 0;
}

int fab_store_load_phys_ib(struct fab_store *st, struct fab_snapshot *snap)
{
	int64_t scan = snap->topology_scan_id ? snap->topology_scan_id : snap->scan_id;
	struct fab_rsrc src = { .st = st, .path = fab_store_path(st) };
	sqlite3_stmt *s;
	int rc, err = load_modules(&src, scan, "ib", &snap->ib_modules, ib_port_of, snap, dup_snap, dup_snap, NULL);

	if (err || (err = fab_sql_scan_query(st,
			"SELECT node_guid, port_num, raw_ber, effective_ber, symbol_ber"
			" FROM port_ber_rows WHERE scan_id=?1", scan, &s)))
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint32_t n = fab_snapshot_find_node(snap, fab_sql_guid(s, 0));
		const struct fab_port *p;
		struct fab_port_ber *b;

		if (n == FAB_NONE || !(p = fab_snapshot_port(snap, n, (unsigned)sqlite3_column_int(s, 1))))
			continue;
		if (!(b = fab_array_grow((void **)&snap->ber, &snap->n_ber, &snap->cap_ber, sizeof(*b)))) {
			err = NOMEM();
			break;
		}
		struct fab_rrow w = { .stmt = s };
		b->port_idx = (uint32_t)(p - snap->ports);
		b->raw = row_real(&w, 2);
		b->effective = row_real(&w, 3);
		b->symbol = row_real(&w, 4);
	}
	return fab_sql_done(st, s, rc, err);
}
