// SPDX-License-Identifier: MIT
/*
 * The sandbox site rules run in (include/fabsweep/store_site.h,
 * docs/site-rules.md): a separate read-only connection on which a query may
 * only SELECT from the public relations of docs/schema.md (and, through the
 * public views, the tables they read) and call harmless functions; it runs
 * under a time limit (progress handler), a memory limit (hard heap limit)
 * and a length limit, and never writes, not even temporary files.
 *
 * Layers, each enough on its own against writes: SQLITE_OPEN_READONLY and
 * query_only; the authorizer (deny by default); DEFENSIVE, no extension
 * loading, untrusted schema; at most one statement, which must be read-only.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/store_site.h"
#include "fabsweep/store.h"
#include "store_priv.h"

#define PROGRESS_OPS 4096 /* VM instructions between two looks at the clock */
#define BUSY_MS 5000

static const char *const column_names[] = {
	[FAB_SITE_COL_NODE] = "node",
	[FAB_SITE_COL_PORT] = "port",
	[FAB_SITE_COL_PEER_NODE] = "peer_node",
	[FAB_SITE_COL_PEER_PORT] = "peer_port",
	[FAB_SITE_COL_SUBJECT] = "subject",
	[FAB_SITE_COL_MESSAGE] = "message",
};
_Static_assert(ARRAY_SIZE(column_names) == FAB_SITE_COL__COUNT, "a name per column");

const char *fab_site_column_name(unsigned col)
{
	return col < FAB_SITE_COL__COUNT ? column_names[col] : NULL;
}

/*
 * The public SQL interface (docs/schema.md). findings is readable: when
 * `fabsweep check` runs site rules it has stored the built-in findings of
 * the scan first, so a site rule can build on them.
 */
static const char *const public_relations[] = {
	"scans", "nodes", "ports", "mgmt_ports", "links", "counters", "sms",
	"scan_errors", "findings", "held_findings", "baselines", "counter_hourly",
	"vl_xmit_wait", "pma_unsupported", "events",
	/* RoCE and Ethernet */
	"systems", "eth_ports", "lldp_neighbors", "eth_links", "lldp_tlvs",
	"rdma_devices", "rdma_ports", "rdma_counters", "roce_votes", "merge_inputs",
	"roce_scan_parts", "roce_hidden",
	/* forwarding tables */
	"switch_tables", "forwarding", "lft_entries", "port_pkey_tables", "port_partitions",
	/* multicast */
	"mcast_groups", "mcast_members", "mcast_switch_tables", "mcast_forwarding",
};

/*
 * What the public views read: allowed through them, never directly. The
 * authorizer names the innermost view (or CTE: it cannot tell them apart)
 * responsible for a read, so each view may read only its own tables.
 */
static const struct {
	const char *view, *table;
} view_reads[] = {
	{ "nodes", "node_rows" },
	{ "ports", "port_rows" },
	{ "mgmt_ports", "port_rows" },
	{ "links", "link_rows" },
	{ "counters", "port_counters" },
	{ "vl_xmit_wait", "port_counters" },
	{ "pma_unsupported", "port_counters" },
	{ "findings", "finding_rows" },
	{ "counter_hourly", "counter_rollups" },
	{ "held_findings", "finding_holds" },
	{ "held_findings", "checks" },
	/* SQLite may flatten held_findings into findings */
	{ "findings", "finding_holds" },
	{ "findings", "checks" },
	{ "eth_ports", "eth_port_rows" },
	{ "rdma_ports", "rdma_port_rows" },
	/* schema 17: the four RoCE tables became views (a delta's rows are its
	 * keyframe's too); each reads a port's or device's system */
	{ "systems", "system_rows" },
	{ "lldp_neighbors", "lldp_neighbor_rows" },
	{ "lldp_neighbors", "eth_port_rows" },
	{ "eth_links", "eth_link_rows" },
	{ "eth_links", "eth_port_rows" },
	{ "rdma_devices", "rdma_device_rows" },
	{ "rdma_ports", "rdma_device_rows" },
	{ "rdma_counters", "rdma_device_rows" },
	{ "lldp_tlvs", "lldp_neighbor_rows" },
	{ "lldp_tlvs", "lldp_tlv_rows" },
	{ "lldp_tlvs", "lldp_tlv_set_entries" },
	{ "lldp_tlvs", "eth_port_rows" },
	{ "rdma_counters", "rdma_counter_rows" },
	{ "rdma_counters", "rdma_counter_names" },
	{ "rdma_counters", "rdma_port_rows" },
	{ "rdma_counters", "json_each" }, /* the values of a port's row */
	{ "switch_tables", "scan_routing" },
	{ "switch_tables", "routing_set_switches" },
	{ "lft_entries", "lft_table_blocks" },
	{ "lft_entries", "lft_blocks" },
	{ "lft_entries", "lft_slots" },
	/* SQLite may flatten the views forwarding reads into it */
	{ "forwarding", "scan_routing" },
	{ "forwarding", "routing_set_switches" },
	{ "forwarding", "lft_table_blocks" },
	{ "forwarding", "lft_blocks" },
	{ "forwarding", "lft_slots" },
	{ "port_pkey_tables", "scan_pkeys" },
	{ "port_pkey_tables", "pkey_set_ports" },
	{ "port_partitions", "scan_pkeys" },
	{ "port_partitions", "pkey_set_ports" },
	{ "port_partitions", "pkey_table_entries" },
	{ "mcast_groups", "scan_mcast" },
	{ "mcast_groups", "mcast_set_groups" },
	{ "mcast_groups", "mcast_group_rows" },
	{ "mcast_groups", "mcast_rate_codes" },
	{ "mcast_members", "scan_mcast" },
	{ "mcast_members", "mcast_set_groups" },
	{ "mcast_members", "mcast_group_rows" },
	{ "mcast_members", "mcast_member_rows" },
	{ "mcast_members", "port_rows" },
	{ "mcast_members", "node_rows" },
	{ "mcast_switch_tables", "scan_mcast" },
	{ "mcast_switch_tables", "mft_set_switches" },
	{ "mcast_forwarding", "scan_mcast" },
	{ "mcast_forwarding", "mft_set_switches" },
	{ "mcast_forwarding", "mft_table_entries" },
};

/* Functions without side effects that read nothing outside the query. Not
 * here: load_extension, random, randomblob, zeroblob, sqlite_* (compile
 * options, version), changes and friends, table-valued functions. */
static const char *const functions[] = {
	/* aggregates */
	"avg", "count", "group_concat", "max", "min", "string_agg", "sum", "total",
	/* window functions */
	"cume_dist", "dense_rank", "first_value", "lag", "last_value", "lead",
	"nth_value", "ntile", "percent_rank", "rank", "row_number",
	/* text and values */
	"abs", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex",
	"iif", "ifnull", "instr", "length", "like", "likelihood", "likely", "lower",
	"ltrim", "nullif", "octet_length", "printf", "quote", "replace", "round",
	"rtrim", "sign", "substr", "substring", "trim", "typeof", "unhex", "unicode",
	"unlikely", "upper",
	/* dates and times */
	"date", "datetime", "julianday", "strftime", "time", "timediff", "unixepoch",
	/* math (when SQLite has them) */
	"acos", "asin", "atan", "atan2", "ceil", "ceiling", "cos", "degrees", "exp",
	"floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power",
	"radians", "sin", "sqrt", "tan", "trunc",
};

struct fab_site_db {
	sqlite3 *db;
	char **objects; /* names of the tables and views of the database */
	size_t n_objects;
	/* the query being compiled or run */
	const char *name;
	char refused[200]; /* why the authorizer said no */
	bool saw_select;
	double deadline;
	bool timed_out;
};

static bool in_list(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcasecmp(list[i], s))
			return true;
	return false;
}

static bool view_reads_table(const char *view, const char *table)
{
	for (size_t i = 0; view && table && i < ARRAY_SIZE(view_reads); i++)
		if (!strcasecmp(view_reads[i].view, view) && !strcasecmp(view_reads[i].table, table))
			return true;
	return false;
}

/* Tables a public view joins on their rowid (SQLite names no view for a
 * rowid read, and the read shows no column): lft_entries on lft_blocks,
 * mcast_groups on mcast_rate_codes (a constant table of the IBTA rates),
 * mcast_members on mcast_group_rows. */
static const char *const rowid_joined[] = { "lft_blocks", "mcast_rate_codes", "mcast_group_rows" };

static bool is_schema_object(const struct fab_site_db *q, const char *name)
{
	static const char *const schema[] = { "sqlite_master", "sqlite_schema",
					      "sqlite_temp_master", "sqlite_temp_schema" };

	return in_list(schema, ARRAY_SIZE(schema), name) ||
	       in_list((const char *const *)q->objects, q->n_objects, name);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int refuse(struct fab_site_db *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int refuse(struct fab_site_db *q, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(q->refused, sizeof(q->refused), fmt, ap);
	va_end(ap);
	return SQLITE_DENY;
}

static const char *name_of(const char *s)
{
	return s ? s : "?";
}

/* Deny by default. a1..a4 as sqlite3_set_authorizer() documents them; view:
 * the innermost view (or trigger) responsible for the access, NULL at the
 * top level. */
static int authorize(void *ud, int action, const char *a1, const char *a2,
		     const char *dbname, const char *view)
{
	struct fab_site_db *q = ud;

	switch (action) {
	case SQLITE_SELECT:
		q->saw_select = true;
		return SQLITE_OK;
	case SQLITE_RECURSIVE: /* a recursive CTE: bounded by the time limit */
		return SQLITE_OK;
	case SQLITE_READ:
		if (dbname && strcmp(dbname, "main"))
			return refuse(q, "it reads '%s.%s'; a site rule reads the snapshot database only",
				      dbname, name_of(a1));
		if (in_list(public_relations, ARRAY_SIZE(public_relations), a1) ||
		    view_reads_table(view, a1))
			return SQLITE_OK;
		/* a table touched without reading a column (count(*)): SQLite
		 * names a CTE then, which is the query's own */
		if (a1 && a2 && !*a2 && !is_schema_object(q, a1))
			return SQLITE_OK;
		if (a1 && a2 && !*a2 && !view && in_list(rowid_joined, ARRAY_SIZE(rowid_joined), a1))
			return SQLITE_OK;
		return refuse(q, "it reads '%s', which is not a relation of the public SQL interface (docs/schema.md)",
			      name_of(a1));
	case SQLITE_FUNCTION:
		if (in_list(functions, ARRAY_SIZE(functions), a2))
			return SQLITE_OK;
		return refuse(q, "it calls %s(), which site rules may not use", name_of(a2));
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
		/* SQLite asks to update the schema table when a SELECT
		 * instantiates a table-valued function (json_each, pragma_*) */
		if (a1 && (!strcmp(a1, "sqlite_master") || !strcmp(a1, "sqlite_temp_master"))) {
			/* ... except the one a public view uses (rdma_counters: json_each) */
			if (view && view_reads_table(view, "json_each"))
				return SQLITE_OK;
			return q->saw_select
				? refuse(q, "it uses a table-valued function or virtual table, which site rules may not use")
				: refuse(q, "it changes the schema; a site rule is one SELECT");
		}
		return refuse(q, "it writes (%s '%s'); a site rule only reads",
			      action == SQLITE_INSERT ? "INSERT into"
			      : action == SQLITE_UPDATE ? "UPDATE of" : "DELETE from",
			      name_of(a1));
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
		return refuse(q, "it attaches or detaches a database; a site rule reads the snapshot database only");
	case SQLITE_PRAGMA:
		return refuse(q, "it runs PRAGMA %s; site rules may not run PRAGMA statements",
			      name_of(a1));
	case SQLITE_TRANSACTION:
	case SQLITE_SAVEPOINT:
		return refuse(q, "it controls transactions; a site rule is one SELECT");
	default:
		/* CREATE, DROP, ALTER, ANALYZE, REINDEX, virtual tables, ... */
		return refuse(q, "it changes the schema or the connection (action %d); a site rule is one SELECT",
			      action);
	}
}

static int progress(void *ud)
{
	struct fab_site_db *q = ud;

	if (mono_s() < q->deadline)
		return 0;
	q->timed_out = true;
	return 1;
}

/* Runs setup SQL before the authorizer is installed. */
static int exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
}

static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return -EIO;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

/* An empty database with the current schema, in memory: the store creates
 * it, the sandbox takes its connection. */
static int open_schema_only(sqlite3 **out)
{
	struct fab_store *st;
	int err = fab_store_open(":memory:", FAB_STORE_WRITE, &st);

	if (err)
		return err;
	*out = st->db;
	st->db = NULL;
	fab_store_close(st);
	return 0;
}

static int open_file(const char *path, sqlite3 **out)
{
	sqlite3 *db = NULL;
	int64_t app = 0, ver = 0;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc != SQLITE_OK) {
		fab_err(-EIO, "database '%s': cannot open it read-only for site rules: %s", path,
			db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_busy_timeout(db, BUSY_MS);
	if (query_int(db, "PRAGMA application_id", &app) ||
	    query_int(db, "PRAGMA user_version", &ver) || app != FAB_APPLICATION_ID ||
	    ver != FAB_SCHEMA_VERSION) {
		sqlite3_close(db);
		return fab_err(-EPROTO, "database '%s' is not a fabsweep database of schema version %d; site rules cannot run on it",
			       path, FAB_SCHEMA_VERSION);
	}
	*out = db;
	return 0;
}

/* The names of the database's tables and views, before the authorizer. */
static int load_objects(struct fab_site_db *q)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(q->db, "SELECT name FROM sqlite_master WHERE name IS NOT NULL",
				    -1, &s, NULL);

	if (rc != SQLITE_OK)
		return fab_err(-EIO, "cannot read the schema for site rules: %s", sqlite3_errmsg(q->db));
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		char **v = realloc(q->objects, (q->n_objects + 1) * sizeof(*v));
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (!v || !name || !(v[q->n_objects] = strdup(name))) {
			if (v)
				q->objects = v;
			sqlite3_finalize(s);
			return fab_err(-ENOMEM, "out of memory");
		}
		q->objects = v;
		q->n_objects++;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : fab_err(-EIO, "cannot read the schema for site rules");
}

int fab_site_db_open(const char *path, struct fab_site_db **out)
{
	struct fab_site_db *q = calloc(1, sizeof(*q));
	int err, on;

	if (!q)
		return fab_err(-ENOMEM, "out of memory");
	if ((err = path ? open_file(path, &q->db) : open_schema_only(&q->db)))
		goto fail;
	sqlite3_extended_result_codes(q->db, 0);
	if (sqlite3_db_config(q->db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) != SQLITE_OK ||
	    sqlite3_db_config(q->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &on) != SQLITE_OK ||
	    sqlite3_db_config(q->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &on) != SQLITE_OK ||
	    sqlite3_db_config(q->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &on) != SQLITE_OK ||
	    /* temporary tables and sorts in memory, where the heap limit holds */
	    exec(q->db, "PRAGMA temp_store=MEMORY; PRAGMA query_only=1")) {
		err = fab_err(-EIO, "cannot set up the site rule sandbox: %s", sqlite3_errmsg(q->db));
		goto fail;
	}
	if ((err = load_objects(q)))
		goto fail;
	sqlite3_limit(q->db, SQLITE_LIMIT_LENGTH, FAB_SITE_LENGTH_MAX);
	sqlite3_limit(q->db, SQLITE_LIMIT_SQL_LENGTH, FAB_SITE_SQL_MAX);
	sqlite3_limit(q->db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, FAB_SITE_PATTERN_MAX);
	sqlite3_limit(q->db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(q->db, SQLITE_LIMIT_WORKER_THREADS, 0);
	sqlite3_set_authorizer(q->db, authorize, q);
	sqlite3_progress_handler(q->db, PROGRESS_OPS, progress, q);
	*out = q;
	return 0;
fail:
	fab_site_db_close(q);
	return err;
}

int fab_store_site_open(const struct fab_store *st, struct fab_site_db **out)
{
	return fab_site_db_open(st ? st->path : NULL, out);
}

void fab_site_db_close(struct fab_site_db *q)
{
	if (!q)
		return;
	sqlite3_close(q->db);
	for (size_t i = 0; i < q->n_objects; i++)
		free(q->objects[i]);
	free(q->objects);
	free(q);
}

/* ---- one query ------------------------------------------------------------ */

static int fail(struct fab_site_db *q, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct fab_site_db *q, int code, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_err(code, "site rule '%s': %s", q->name, msg);
}

/* What an SQLite error while compiling or running means here. */
static int sql_fail(struct fab_site_db *q, int rc, double seconds, const char *when)
{
	if (rc == SQLITE_AUTH || q->refused[0]) /* some refusals surface as SQLITE_ERROR */
		return fail(q, -EPERM, "refused: %s", q->refused[0] ? q->refused : sqlite3_errmsg(q->db));
	if (rc == SQLITE_INTERRUPT && q->timed_out)
		return fail(q, -ETIME, "stopped after %g s, its time limit; make the query cheaper, or raise '-- time-limit:' (at most %g s)",
			    seconds, FAB_SITE_TIME_MAX);
	if (rc == SQLITE_TOOBIG)
		return fail(q, -E2BIG, "stopped: it builds a string or blob longer than %d bytes",
			    FAB_SITE_LENGTH_MAX);
	if (rc == SQLITE_NOMEM)
		return fail(q, -ENOMEM, "stopped: it needs more than %lld MiB of memory",
			    FAB_SITE_HEAP_BYTES / (1024 * 1024));
	if (rc == SQLITE_ERROR || rc == SQLITE_RANGE || rc == SQLITE_MISMATCH ||
	    rc == SQLITE_CONSTRAINT)
		return fail(q, -EINVAL, "%s: %s", when, sqlite3_errmsg(q->db));
	return fail(q, -EIO, "%s: the database failed: %s", when, sqlite3_errmsg(q->db));
}

/* Whether text holds nothing but whitespace, ';' and SQL comments. */
static bool only_comments(const char *s)
{
	while (*s) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' ||
		    *s == '\v' || *s == ';') {
			s++;
		} else if (s[0] == '-' && s[1] == '-') {
			s += strcspn(s, "\n");
		} else if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			if (!e)
				return true; /* SQLite ends an open comment at the end */
			s = e + 2;
		} else {
			return false;
		}
	}
	return true;
}

/* The compiled statement has the right shape: read-only, six columns with
 * the right names, only the two known parameters. */
static int check_shape(struct fab_site_db *q, sqlite3_stmt *s)
{
	int n = sqlite3_column_count(s);

	if (!sqlite3_stmt_readonly(s))
		return fail(q, -EPERM, "refused: the statement is not read-only; a site rule is one SELECT");
	if (n != FAB_SITE_COL__COUNT)
		return fail(q, -EINVAL, "returns %d column%s; a site rule returns node, port, peer_node, peer_port, subject, message (in this order)",
			    n, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++) {
		const char *c = sqlite3_column_name(s, i);
		if (!c || strcmp(c, column_names[i]))
			return fail(q, -EINVAL, "result column %d is '%s', not '%s'; a site rule returns node, port, peer_node, peer_port, subject, message (in this order; name them with AS)",
				    i + 1, c ? c : "?", column_names[i]);
	}
	for (int i = 1; i <= sqlite3_bind_parameter_count(s); i++) {
		const char *p = sqlite3_bind_parameter_name(s, i);
		if (!p || (strcmp(p, ":scan_id") && strcmp(p, ":baseline_id")))
			return fail(q, -EINVAL, "uses the parameter '%s'; only :scan_id and :baseline_id are bound",
				    p ? p : "?");
	}
	return 0;
}

static void bind(sqlite3_stmt *s, const char *name, int64_t v)
{
	int i = sqlite3_bind_parameter_index(s, name);

	if (!i)
		return;
	if (v)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

int fab_site_db_query(struct fab_site_db *q, const char *name, const char *sql,
		      double seconds, int64_t scan_id, int64_t baseline_id,
		      fab_site_row_fn row, void *ctx)
{
	sqlite3_stmt *s = NULL;
	const char *tail = NULL;
	sqlite3_int64 prev_hard, prev_soft;
	int rc, err = 0;

	q->name = name;
	q->refused[0] = '\0';
	q->saw_select = false;
	q->timed_out = false;
	if (!(seconds > 0) || seconds > FAB_SITE_TIME_MAX)
		seconds = FAB_SITE_TIME_DEFAULT;
	q->deadline = mono_s() + seconds;
	/* the memory limit: what SQLite uses now, plus the budget */
	prev_soft = sqlite3_soft_heap_limit64(-1);
	prev_hard = sqlite3_hard_heap_limit64(-1);
	sqlite3_hard_heap_limit64(sqlite3_memory_used() + FAB_SITE_HEAP_BYTES);

	rc = sqlite3_prepare_v3(q->db, sql, -1, 0, &s, &tail);
	if (rc != SQLITE_OK) {
		err = sql_fail(q, rc, seconds, "does not compile");
		goto out;
	}
	if (!s) {
		err = fail(q, -EINVAL, "holds no SQL statement; a site rule is one SELECT after its header");
		goto out;
	}
	if (tail && !only_comments(tail)) {
		err = fail(q, -EINVAL, "holds more than one statement; a site rule is exactly one SELECT");
		goto out;
	}
	if ((err = check_shape(q, s)) || !row)
		goto out;
	bind(s, ":scan_id", scan_id);
	bind(s, ":baseline_id", baseline_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *cols[FAB_SITE_COL__COUNT];

		for (int i = 0; i < FAB_SITE_COL__COUNT; i++)
			cols[i] = (const char *)sqlite3_column_text(s, i);
		/* a NULL from a non-NULL value: column_text ran out of memory */
		for (int i = 0; i < FAB_SITE_COL__COUNT; i++)
			if (!cols[i] && sqlite3_column_type(s, i) != SQLITE_NULL) {
				err = sql_fail(q, SQLITE_NOMEM, seconds, "failed");
				goto out;
			}
		if ((err = row(ctx, cols)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		err = sql_fail(q, rc, seconds, "failed");
out:
	sqlite3_finalize(s);
	sqlite3_hard_heap_limit64(prev_hard);
	sqlite3_soft_heap_limit64(prev_soft);
	return err;
}
