// SPDX-License-Identifier: MIT
/*
 * The votes of what a scan leaves out of a fabric (fab_roce.outside: a
 * readiness extract, docs/roce.md "Readiness"), as rows of roce_votes,
 * inside the snapshot writer's and loader's transactions. Scans of a whole
 * fabric have none.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "store_priv.h"

static int put(struct fab_store *st, sqlite3_stmt *s, int64_t scan, const char *q,
	       const char *tier, const char *value, uint32_t votes)
{
	if (!votes)
		return 0;
	sqlite3_bind_int64(s, 1, scan);
	fab_sql_bind_static(s, 2, q);
	fab_sql_bind_static(s, 3, tier);
	fab_sql_bind_static(s, 4, value);
	sqlite3_bind_int64(s, 5, votes);
	return fab_sql_step(st, s, "write the RoCE votes");
}

int fab_store_write_roce_votes(struct fab_store *st, const struct fab_snapshot *snap)
{
	const struct fab_roce_votes *v = snap->roce ? snap->roce->outside : NULL;
	sqlite3_stmt *s;
	char value[16], tier[32];
	int err;

	if (!v)
		return 0;
	if ((err = fab_store_prepare(st, "INSERT INTO roce_votes(scan_id, question, tier, value, votes)"
				     " VALUES (?1, ?2, ?3, ?4, ?5)", &s)))
		return err;
	for (unsigned k = 1; !err && k < FAB_TRUST__COUNT; k++)
		err = put(st, s, snap->scan_id, "trust", NULL, fab_trust_name(k), v->trust[k]);
	for (unsigned k = 0; !err && k < 64; k++) {
		snprintf(value, sizeof(value), "%u", k);
		err = put(st, s, snap->scan_id, "cnp_dscp", NULL, value, v->cnp_dscp[k]);
	}
	for (unsigned k = 0; !err && k < FAB_PRIOS; k++) {
		snprintf(value, sizeof(value), "%u", k);
		err = put(st, s, snap->scan_id, "cnp_priority", NULL, value, v->cnp_prio[k]);
	}
	for (size_t i = 0; !err && i < v->n_speeds; i++) {
		const struct fab_roce_speed_vote *x = &v->speeds[i];

		snprintf(tier, sizeof(tier), "%s-%s", fab_role_name(x->role_a), fab_role_name(x->role_b));
		snprintf(value, sizeof(value), "%d", x->mbps);
		err = put(st, s, snap->scan_id, "speed", tier, value, x->links);
	}
	sqlite3_finalize(s);
	return err;
}

static int bad(struct fab_store *st, int64_t scan)
{
	return fab_err(-EPROTO, "database '%s': scan %lld has a roce_votes row fabsweep does not understand",
		       fab_store_path(st), (long long)scan);
}

/* A whole number lo..hi; -1 when not. */
static long long number(const char *s, long long lo, long long hi)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	return *end || v < lo || v > hi ? -1 : v;
}

/* "host-leaf" into two roles, the lower first. */
static bool tier_parse(const char *s, uint8_t *a, uint8_t *b)
{
	char buf[32];
	const char *dash = s ? strchr(s, '-') : NULL;
	int x, y;

	if (!dash || (size_t)(dash - s) >= sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)(dash - s));
	buf[dash - s] = '\0';
	if ((x = fab_role_parse(buf)) < 0 || (y = fab_role_parse(dash + 1)) < 0 || x > y)
		return false;
	*a = (uint8_t)x;
	*b = (uint8_t)y;
	return true;
}

static int read_row(sqlite3_stmt *s, struct fab_roce_votes *v, size_t *cap)
{
	const char *q = fab_sql_text(s, 0), *tier = fab_sql_text(s, 1), *value = fab_sql_text(s, 2);
	long long n = sqlite3_column_int64(s, 3), k;

	if (!q || n < 0 || n > UINT32_MAX)
		return -EPROTO;
	if (!strcmp(q, "trust")) {
		for (k = 1; k < FAB_TRUST__COUNT; k++)
			if (value && !strcmp(value, fab_trust_name((unsigned)k)))
				break;
		if (k == FAB_TRUST__COUNT)
			return -EPROTO;
		v->trust[k] = (uint32_t)n;
	} else if (!strcmp(q, "cnp_dscp") && (k = number(value, 0, 63)) >= 0) {
		v->cnp_dscp[k] = (uint32_t)n;
	} else if (!strcmp(q, "cnp_priority") && (k = number(value, 0, FAB_PRIOS - 1)) >= 0) {
		v->cnp_prio[k] = (uint32_t)n;
	} else if (!strcmp(q, "speed") && (k = number(value, 1, INT32_MAX)) >= 0) {
		struct fab_roce_speed_vote x = { .mbps = (int32_t)k, .links = (uint32_t)n };
		if (!tier_parse(tier, &x.role_a, &x.role_b))
			return -EPROTO;
		if (v->n_speeds == *cap) {
			size_t nc = *cap ? *cap * 2 : 8;
			struct fab_roce_speed_vote *p = realloc(v->speeds, nc * sizeof(*p));
			if (!p)
				return -ENOMEM;
			v->speeds = p;
			*cap = nc;
		}
		v->speeds[v->n_speeds++] = x;
	} else {
		return -EPROTO;
	}
	return 0;
}

int fab_store_load_roce_votes(struct fab_store *st, struct fab_snapshot *snap)
{
	struct fab_roce_votes *v = NULL;
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc, err;

	if (!snap->roce)
		return 0;
	/* sorted as the rules merge them: by tier, then speed */
	if ((err = fab_sql_scan_query(st, "SELECT question, tier, value, votes FROM roce_votes"
				      " WHERE scan_id=?1 ORDER BY question, tier, CAST(value AS INTEGER)",
				      snap->scan_id, &s)))
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (!v && !(v = calloc(1, sizeof(*v)))) {
			err = fab_err(-ENOMEM, "out of memory");
			break;
		}
		if ((err = read_row(s, v, &cap))) {
			err = err == -ENOMEM ? fab_err(err, "out of memory") : bad(st, snap->scan_id);
			break;
		}
	}
	err = fab_sql_done(st, s, rc, err);
	if (err) {
		fab_roce_votes_free(v);
		return err;
	}
	snap->roce->outside = v;
	return 0;
}
