// SPDX-License-Identifier: MIT
/*
 * The RoCE part's shared sets (schema 16; docs/schema.md "RoCE and
 * Ethernet"): the LLDP TLVs a port advertises or a neighbour record heard,
 * and the names of an RDMA port's counters, each stored once for every
 * owner that has the same ones (a fleet's ports advertise the same few TLVs
 * and count the same 49 counters). Writing: the id of an owner's set,
 * inserted when new; a port's counter values as the JSON array its row
 * keeps. Loading: the sets a scan names, and the values back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/error.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "roce_io.h"
#include "store_priv.h"

/* ---- writing ------------------------------------------------------------------ */

/* A set this write has seen: its content (hash and bytes) and id. */
struct seen {
	uint64_t hash;
	uint8_t *key;
	size_t len;
	int64_t id;
};

struct seen_table {
	struct seen *v;
	size_t n, cap; /* cap: a power of two; v[i].key NULL: empty */
};

enum {
	S_TLV_INS, S_TLV_GET, S_TLV_ENTRY, S_CTR_INS, S_CTR_GET, S_CTR_NAME,
	S_NIC_INS, S_NIC_GET, S_NIC_NAME, S_MOD_INS, S_MOD_GET, S__COUNT
};

struct fab_roce_sets {
	struct fab_store *st;
	sqlite3_stmt *s[S__COUNT];
	struct seen_table tlv, ctr, nic, mod;
	uint8_t *buf;
	size_t len, cap;
	/* the previous port's counters (their shared names, which carry their
	 * kinds) and their set: ports list the same names in the same order */
	const struct fab_roce *last_r;
	const char **last_name;
	uint32_t last_n, last_cap;
	int64_t last_id;
	/* the previous run of NIC counters and its set: runs of a fleet's
	 * ports name the same counters, priorities and sources in order */
	const struct fab_roce *nic_r;
	const struct fab_nic_counter *nic_last;
	size_t nic_n;
	int64_t nic_id;
};

static void seen_free(struct seen_table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].key);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static struct seen *seen_find(struct seen_table *t, uint64_t h, const uint8_t *key, size_t len)
{
	if (!t->cap)
		return NULL;
	for (size_t i = h & (t->cap - 1); t->v[i].key; i = (i + 1) & (t->cap - 1))
		if (t->v[i].hash == h && t->v[i].len == len && !memcmp(t->v[i].key, key, len))
			return &t->v[i];
	return NULL;
}

static int seen_add(struct seen_table *t, uint64_t h, const uint8_t *key, size_t len, int64_t id)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct seen_table o = *t;
		size_t cap = o.cap ? o.cap * 2 : 64;
		if (!(t->v = calloc(cap, sizeof(*t->v)))) {
			*t = o;
			return -ENOMEM;
		}
		t->cap = cap;
		for (size_t i = 0; i < o.cap; i++)
			if (o.v[i].key) {
				size_t k = o.v[i].hash & (cap - 1);
				while (t->v[k].key)
					k = (k + 1) & (cap - 1);
				t->v[k] = o.v[i];
			}
		free(o.v);
	}
	uint8_t *copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, key, len);
	size_t i = h & (t->cap - 1);
	while (t->v[i].key)
		i = (i + 1) & (t->cap - 1);
	t->v[i] = (struct seen){ .hash = h, .key = copy, .len = len, .id = id };
	t->n++;
	return 0;
}

static int put(struct fab_roce_sets *x, const void *p, size_t n)
{
	if (x->len + n > x->cap) {
		size_t cap = x->cap ? x->cap : 256;
		while (cap < x->len + n)
			cap *= 2;
		uint8_t *b = realloc(x->buf, cap);
		if (!b)
			return -ENOMEM;
		x->buf = b;
		x->cap = cap;
	}
	memcpy(x->buf + x->len, p, n);
	x->len += n;
	return 0;
}

int fab_roce_sets_open(struct fab_store *st, struct fab_roce_sets **out)
{
	static const char *const sql[S__COUNT] = {
		[S_TLV_INS] = "INSERT OR IGNORE INTO lldp_tlv_sets(content) VALUES (?1)",
		[S_TLV_GET] = "SELECT set_id FROM lldp_tlv_sets WHERE content = ?1",
		[S_TLV_ENTRY] = "INSERT INTO lldp_tlv_set_entries(set_id, pos, oui, subtype, info)"
				" VALUES (?,?,?,?,?)",
		[S_CTR_INS] = "INSERT OR IGNORE INTO rdma_counter_sets(content) VALUES (?1)",
		[S_CTR_GET] = "SELECT set_id FROM rdma_counter_sets WHERE content = ?1",
		[S_CTR_NAME] = "INSERT INTO rdma_counter_names(set_id, pos, kind, counter)"
			       " VALUES (?,?,?,?)",
		[S_NIC_INS] = "INSERT OR IGNORE INTO nic_counter_sets(content) VALUES (?1)",
		[S_NIC_GET] = "SELECT set_id FROM nic_counter_sets WHERE content = ?1",
		[S_NIC_NAME] = "INSERT INTO nic_counter_names(set_id, pos, counter, priority, source)"
			       " VALUES (?,?,?,?,?)",
		[S_MOD_INS] = "INSERT OR IGNORE INTO module_descs(content) VALUES (?1)",
		[S_MOD_GET] = "SELECT desc_id FROM module_descs WHERE content = ?1",
	};
	struct fab_roce_sets *x = calloc(1, sizeof(*x));
	int err;

	if (!x)
		return fab_err(-ENOMEM, "out of memory");
	x->st = st;
	if ((err = fab_sql_prepare_all(st, sql, S__COUNT, x->s))) {
		fab_roce_sets_close(x);
		return err;
	}
	*out = x;
	return 0;
}

void fab_roce_sets_close(struct fab_roce_sets *x)
{
	if (!x)
		return;
	fab_sql_finalize_all(x->s, S__COUNT);
	seen_free(&x->tlv);
	seen_free(&x->ctr);
	seen_free(&x->nic);
	seen_free(&x->mod);
	free(x->buf);
	free(x->last_name);
	free(x);
}

int fab_roce_tlv_set(struct fab_roce_sets *x, const struct fab_roce *r, uint32_t first,
		     uint32_t count, int64_t *out)
{
	int err = 0;

	*out = 0;
	if (!count || first > r->n_tlvs || count > r->n_tlvs - first)
		return 0;
	x->len = 0;
	for (uint32_t i = first; !err && i < first + count; i++) {
		const struct fab_lldp_tlv *t = &r->tlvs[i];
		uint8_t head[6] = { (uint8_t)(t->oui >> 16), (uint8_t)(t->oui >> 8), (uint8_t)t->oui,
				    t->subtype, (uint8_t)(t->len >> 8), (uint8_t)t->len };
		if (!(err = put(x, head, sizeof(head))) && t->len)
			err = put(x, t->info, t->len);
	}
	if (err)
		return fab_err(-ENOMEM, "out of memory");
	uint64_t h = hash_bytes(x->buf, x->len);
	const struct seen *s = seen_find(&x->tlv, h, x->buf, x->len);
	if (s) {
		*out = s->id;
		return 0;
	}
	bool fresh;
	int64_t id;
	if ((err = fab_sql_intern(x->st, x->s[S_TLV_INS], x->s[S_TLV_GET], "LLDP TLV sets", x->buf,
				  x->len, &id, &fresh)))
		return err;
	for (uint32_t k = 0; fresh && !err && k < count; k++) {
		const struct fab_lldp_tlv *t = &r->tlvs[first + k];
		sqlite3_stmt *e = x->s[S_TLV_ENTRY];
		char oui[16];

		snprintf(oui, sizeof(oui), "%02x-%02x-%02x", t->oui >> 16 & 0xff, t->oui >> 8 & 0xff,
			 t->oui & 0xff);
		sqlite3_bind_int64(e, 1, id);
		sqlite3_bind_int(e, 2, (int)k);
		fab_sql_bind_text(e, 3, oui);
		sqlite3_bind_int(e, 4, t->subtype);
		sqlite3_bind_blob(e, 5, t->len ? (const void *)t->info : "", t->len, SQLITE_TRANSIENT);
		err = fab_sql_step(x->st, e, "an LLDP TLV");
	}
	if (!err && (err = seen_add(&x->tlv, h, x->buf, x->len, id)))
		err = fab_err(err, "out of memory");
	*out = err ? 0 : id;
	return err;
}

static int remember(struct fab_roce_sets *x, const struct fab_roce *r,
		    const struct fab_rdma_port *p, int64_t id)
{
	if (p->ctr_count > x->last_cap) {
		const char **n = realloc(x->last_name, p->ctr_count * sizeof(*n));
		if (!n)
			return fab_err(-ENOMEM, "out of memory");
		x->last_name = n;
		x->last_cap = p->ctr_count;
	}
	for (uint32_t k = 0; k < p->ctr_count; k++)
		x->last_name[k] = r->counters[p->ctr_first + k].name;
	x->last_r = r;
	x->last_n = p->ctr_count;
	x->last_id = id;
	return 0;
}

int fab_roce_ctr_set(struct fab_roce_sets *x, const struct fab_roce *r,
		     const struct fab_rdma_port *p, int64_t *out)
{
	int err = 0;

	*out = 0;
	if (!p->ctr_count || p->ctr_first > r->n_counters || p->ctr_count > r->n_counters - p->ctr_first)
		return 0;
	const struct fab_rdma_counter *c0 = &r->counters[p->ctr_first];
	if (x->last_r == r && x->last_n == p->ctr_count) {
		uint32_t k = 0;
		while (k < p->ctr_count && c0[k].name == x->last_name[k])
			k++;
		if (k == p->ctr_count) {
			*out = x->last_id;
			return 0;
		}
	}
	/* the content: "kind:name\n" per counter, in the port's order */
	x->len = 0;
	for (uint32_t k = 0; !err && k < p->ctr_count; k++) {
		const struct fab_rdma_counter *c = &r->counters[p->ctr_first + k];
		const char *kind = fab_rdma_ctr_kind_name(fab_rdma_counter_kind(c)), *name = c->name;
		if (!(err = put(x, kind ? kind : "port", strlen(kind ? kind : "port"))) &&
		    !(err = put(x, ":", 1)) && !(err = put(x, name, strlen(name))))
			err = put(x, "\n", 1);
	}
	if (err)
		return fab_err(-ENOMEM, "out of memory");
	uint64_t h = hash_bytes(x->buf, x->len);
	const struct seen *s = seen_find(&x->ctr, h, x->buf, x->len);
	if (s) {
		*out = s->id;
		return remember(x, r, p, s->id);
	}
	bool fresh;
	int64_t id;
	if ((err = fab_sql_intern(x->st, x->s[S_CTR_INS], x->s[S_CTR_GET], "RDMA counter sets", x->buf,
				  x->len, &id, &fresh)))
		return err;
	for (uint32_t k = 0; fresh && !err && k < p->ctr_count; k++) {
		const struct fab_rdma_counter *c = &r->counters[p->ctr_first + k];
		sqlite3_stmt *e = x->s[S_CTR_NAME];

		sqlite3_bind_int64(e, 1, id);
		sqlite3_bind_int(e, 2, (int)k);
		fab_sql_bind_text(e, 3, fab_rdma_ctr_kind_name(fab_rdma_counter_kind(c)));
		fab_sql_bind_text(e, 4, c->name);
		err = fab_sql_step(x->st, e, "an RDMA counter name");
	}
	if (!err && (err = seen_add(&x->ctr, h, x->buf, x->len, id)))
		err = fab_err(err, "out of memory");
	*out = err ? 0 : id;
	return err ? err : remember(x, r, p, id);
}

/* Writes v in decimal at p (at least 20 bytes); returns the length. */
static size_t put_i64(char *p, int64_t v)
{
	char tmp[24];
	size_t n = 0, len = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		p[len++] = '-';
	while (n)
		p[len++] = tmp[--n];
	return len;
}

/*
 * count values as a JSON array in x's buffer: the first at v, each next
 * stride bytes on (the value field of consecutive counters). Stored as
 * SQLite's signed 64-bit, as the rows were: values >= 2^63 wrap.
 */
static const char *values_json(struct fab_roce_sets *x, const unsigned char *v, size_t count,
			       size_t stride)
{
	size_t need = 3 + count * 21;

	if (need > x->cap) {
		uint8_t *b = realloc(x->buf, need);
		if (!b)
			return NULL;
		x->buf = b;
		x->cap = need;
	}
	char *s = (char *)x->buf;
	size_t n = 0;
	s[n++] = '[';
	for (size_t k = 0; k < count; k++) {
		uint64_t value;
		if (k)
			s[n++] = ',';
		memcpy(&value, v + k * stride, sizeof(value));
		n += put_i64(s + n, (int64_t)value);
	}
	s[n++] = ']';
	s[n] = '\0';
	return s;
}

const char *fab_roce_ctr_values(struct fab_roce_sets *x, const struct fab_roce *r,
				const struct fab_rdma_port *p)
{
	const struct fab_rdma_counter *c = p->ctr_count ? &r->counters[p->ctr_first] : NULL;

	return values_json(x, c ? (const unsigned char *)&c->value : NULL, p->ctr_count, sizeof(*c));
}

/* Whether two runs of NIC counters name the same counters in order (the
 * sources are interned in their model: one pointer per text). */
static bool same_nic_names(const struct fab_nic_counter *a, const struct fab_nic_counter *b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (a[k].ctr != b[k].ctr || a[k].prio != b[k].prio || a[k].source != b[k].source)
			return false;
	return true;
}

int fab_nic_ctr_set(struct fab_roce_sets *x, const struct fab_roce *r, size_t first, size_t count,
		    int64_t *out)
{
	const struct fab_nic_counter *c0 = &r->nic_counters[first];
	int err = 0;

	*out = 0;
	if (!count || first > r->n_nic_counters || count > r->n_nic_counters - first)
		return 0;
	if (x->nic_r == r && x->nic_n == count && same_nic_names(c0, x->nic_last, count)) {
		*out = x->nic_id;
		return 0;
	}
	/* the content: "counter\tpriority\tsource\n" per counter, in the run's order */
	x->len = 0;
	for (size_t k = 0; !err && k < count; k++) {
		const struct fab_nic_counter *c = &c0[k];
		const char *name = fab_nic_ctr_name(c->ctr);
		char prio[8];
		int n = snprintf(prio, sizeof(prio), "\t%d\t%c", c->prio, c->source ? 's' : '-');
		if (!(err = put(x, name ? name : "?", strlen(name ? name : "?"))) &&
		    !(err = put(x, prio, (size_t)n)) &&
		    !(err = put(x, c->source ? c->source : "", c->source ? strlen(c->source) : 0)))
			err = put(x, "\n", 1);
	}
	if (err)
		return fab_err(-ENOMEM, "out of memory");
	uint64_t h = hash_bytes(x->buf, x->len);
	const struct seen *s = seen_find(&x->nic, h, x->buf, x->len);
	int64_t id;
	if (s) {
		id = s->id;
	} else {
		bool fresh;
		if ((err = fab_sql_intern(x->st, x->s[S_NIC_INS], x->s[S_NIC_GET], "NIC counter sets",
					  x->buf, x->len, &id, &fresh)))
			return err;
		for (size_t k = 0; fresh && !err && k < count; k++) {
			const struct fab_nic_counter *c = &c0[k];
			sqlite3_stmt *e = x->s[S_NIC_NAME];

			sqlite3_bind_int64(e, 1, id);
			sqlite3_bind_int(e, 2, (int)k);
			fab_sql_bind_text(e, 3, fab_nic_ctr_name(c->ctr));
			if (c->prio >= 0)
				sqlite3_bind_int(e, 4, c->prio);
			fab_sql_bind_text(e, 5, c->source);
			err = fab_sql_step(x->st, e, "a NIC counter name");
		}
		if (!err && (err = seen_add(&x->nic, h, x->buf, x->len, id)))
			err = fab_err(err, "out of memory");
		if (err)
			return err;
	}
	x->nic_r = r;
	x->nic_last = c0;
	x->nic_n = count;
	x->nic_id = id;
	*out = id;
	return 0;
}

const char *fab_nic_ctr_values(struct fab_roce_sets *x, const struct fab_roce *r, size_t first,
			       size_t count)
{
	const struct fab_nic_counter *c = count ? &r->nic_counters[first] : NULL;

	return values_json(x, c ? (const unsigned char *)&c->value : NULL, count, sizeof(*c));
}

int fab_module_desc_id(struct fab_roce_sets *x, const void *key, size_t len, int64_t *out,
		       bool *fresh)
{
	uint64_t h = hash_bytes(key, len);
	const struct seen *s = seen_find(&x->mod, h, key, len);
	int err;

	*fresh = false;
	if (s) {
		*out = s->id;
		return 0;
	}
	if ((err = fab_sql_intern(x->st, x->s[S_MOD_INS], x->s[S_MOD_GET], "module descriptions", key,
				  len, out, fresh)))
		return err;
	if ((err = seen_add(&x->mod, h, key, len, *out)))
		return fab_err(err, "out of memory");
	return 0;
}

/* ---- loading ---------------------------------------------------------------- */

int fab_roce_parse_values(const char *s, uint64_t *v, size_t cap, size_t *out_n)
{
	size_t n = 0;

	if (!s)
		return -EINVAL;
	while (*s == ' ')
		s++;
	if (*s++ != '[')
		return -EINVAL;
	for (;;) {
		while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
			s++;
		if (*s == ']' && !n)
			break;
		bool neg = *s == '-';
		uint64_t u = 0;
		const char *d = s += neg;
		while (*s >= '0' && *s <= '9') {
			unsigned digit = (unsigned)(*s++ - '0');
			if (u > (UINT64_MAX - digit) / 10)
				return -EINVAL;
			u = u * 10 + digit;
		}
		if (s == d || n == cap || (neg && u > (uint64_t)INT64_MAX + 1) ||
		    (!neg && u > (uint64_t)INT64_MAX))
			return -EINVAL;
		v[n++] = neg ? (uint64_t)0 - u : u;
		while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
			s++;
		if (*s == ']')
			break;
		if (*s++ != ',')
			return -EINVAL;
	}
	s++;
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	if (*s)
		return -EINVAL;
	*out_n = n;
	return 0;
}
