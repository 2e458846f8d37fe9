/* SPDX-License-Identifier: MIT */
/* Private to store/: the handle and helpers shared by its files. */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/snapshot.h"

struct fab_store {
	sqlite3 *db;
	char *path;
	bool writable;
};

/* Each returns 0 or a negative errno with the message set. */
int fab_store_exec(struct fab_store *st, const char *sql, const char *what);
int fab_store_prepare(struct fab_store *st, const char *sql, sqlite3_stmt **out);
int fab_store_begin(struct fab_store *st);
/* Commits when err is 0, else rolls back; returns err or the commit's error. */
int fab_store_finish(struct fab_store *st, int err);

/* store/sql.c: helpers every store file uses. A NULL text, a 0 time and a
 * 0 GUID given to _opt bind SQL NULL. */
void fab_sql_bind_text(sqlite3_stmt *s, int i, const char *v);
void fab_sql_bind_guid(sqlite3_stmt *s, int i, uint64_t guid);
void fab_sql_bind_guid_opt(sqlite3_stmt *s, int i, uint64_t guid);
void fab_sql_bind_time(sqlite3_stmt *s, int i, int64_t ms);
/* Text bound without a copy: it must stay as it is until the statement's
 * next step has run (a constant, the snapshot's own strings, a kept text).
 * NULL binds SQL NULL. */
void fab_sql_bind_static(sqlite3_stmt *s, int i, const char *v);
/*
 * A column's text kept through a writer's loop, for fab_sql_bind_static:
 * formatted again only when the value changes (neighbouring rows mostly
 * share their node's GUID and their width and speed masks). A bulk insert
 * of a large snapshot copies and formats a few hundred thousand texts
 * otherwise (docs/scan.md, Performance).
 */
enum fab_sql_kept_kind { FAB_KEPT_WIDTHS, FAB_KEPT_SPEEDS, FAB_KEPT_GUID, FAB_KEPT_TIME };
struct fab_sql_kept {
	uint64_t v;
	bool set;
	char text[96];
};
const char *fab_sql_kept_text(struct fab_sql_kept *k, enum fab_sql_kept_kind kind,
			      uint64_t v);
/* Steps an insert and resets it for the next row. */
int fab_sql_step(struct fab_store *st, sqlite3_stmt *s, const char *what);
const char *fab_sql_text(sqlite3_stmt *s, int i);
/* A GUID or time column; 0 when NULL (or not parseable). */
uint64_t fab_sql_guid(sqlite3_stmt *s, int i);
int64_t fab_sql_time(sqlite3_stmt *s, int i);
/* SQL: whether scans whose scan_id COND ("= ?1", "IN (?1, ?2)") hold RoCE
 * rows in the form before schemas 16 and 17: a row per RDMA counter, NIC
 * counter or Ethernet module lane (only a whole load reads those). */
#define FAB_SQL_OLD_ROCE_ROWS(COND) \
	"EXISTS (SELECT 1 FROM rdma_counter_rows WHERE scan_id " COND ")" \
	" OR EXISTS (SELECT 1 FROM nic_counter_rows WHERE scan_id " COND ")" \
	" OR EXISTS (SELECT 1 FROM module_lane_rows WHERE scan_id " COND " AND fabric = 'eth')"
/* Prepares a per-scan query with the scan id bound as ?1. */
int fab_sql_scan_query(struct fab_store *st, const char *sql, int64_t scan_id,
		       sqlite3_stmt **out);
/* The element of v (n of size bytes each, ascending by the int64_t id that
 * is their first member: a loaded set of TLVs, counter names, module
 * descriptions) whose id is id; NULL if none. */
const void *fab_find_by_id(const void *v, size_t n, size_t size, int64_t id);
/* Finalizes a read loop: err, or an error when rc is not SQLITE_DONE. */
int fab_sql_done(struct fab_store *st, sqlite3_stmt *s, int rc, int err);
/* Prepares n statements (out zeroed first; on failure the ones prepared
 * stay for fab_sql_finalize_all, which accepts NULLs). */
int fab_sql_prepare_all(struct fab_store *st, const char *const *sql, size_t n, sqlite3_stmt **out);
void fab_sql_finalize_all(sqlite3_stmt **v, size_t n);
/* v as n bytes little-endian at p (the keys of content-addressed rows). */
void fab_sql_put_le(uint8_t *p, uint64_t v, unsigned n);
/*
 * Content addressing (forwarding tables, P_Key tables): the id of the row
 * whose unique blob column is key, inserted when new (*fresh true). ins:
 * "INSERT OR IGNORE ... VALUES (?1)", get: "SELECT id ... WHERE col = ?1";
 * what names the rows in messages ("forwarding tables").
 */
int fab_sql_intern(struct fab_store *st, sqlite3_stmt *ins, sqlite3_stmt *get, const char *what,
		   const void *key, size_t len, int64_t *id, bool *fresh);

/*
 * The counter columns of port_counters: one per counter of enum fab_counter,
 * named by fab_counter_name(), in enum order; schema 1 created all 21. The
 * one place the store knows how many there are (docs/adding-a-counter.md).
 */
#define FAB_SQL_COUNTERS FAB_CTR__COUNT
/* Appends ", <column>" per counter column to buf (or ",?" each when params);
 * returns the length appended (cut at cap). */
size_t fab_sql_counter_cols(char *buf, size_t cap, bool params);
/* The counter columns of a row, from column first on (in the order
 * fab_sql_counter_cols lists them), into c->valid and c->v: the one decoder
 * of a port_counters row's values (the loader, store/history.c). */
void fab_sql_read_counters(sqlite3_stmt *s, int first, struct fab_counter_sample *c);
/* The columns after the counters: unsupported and VLXmitWait0..15
 * (FAB_SQL_VL_COLS of them), as fab_sql_counter_cols lists the counters;
 * bound from and read into a sample's unsupported, vl_valid, vl_xmit_wait. */
#define FAB_SQL_VL_COLS (1 + FAB_N_VLS)
size_t fab_sql_vl_cols(char *buf, size_t cap, bool params);
void fab_sql_bind_vl(sqlite3_stmt *s, int first, const struct fab_counter_sample *c);
void fab_sql_read_vl(sqlite3_stmt *s, int first, struct fab_counter_sample *c);
/* The columns of FAB_SQL_FINDING_COLS (with a table prefix p: "f."), from
 * column first on, into *f (strings valid until the next step): the one
 * decoder of a findings row. */
#define FAB_SQL_FINDING_COLS(p)                                                         \
	p "rule_id, " p "severity, " p "node, " p "port, " p "peer_node, " p "peer_port, "  \
	p "subject, " p "message, " p "evidence"
void fab_sql_read_finding(sqlite3_stmt *s, int first, struct fab_finding *f);

/* ---- the loader (store/snapshot_load.c) ------------------------------------- */

/* Rows of a scan to load: the node with node_idx `node` in the database,
 * and of it the ports port_lo..port_hi (each query is then a seek along the
 * primary key). */
struct fab_load_range {
	int64_t node;
	int port_lo, port_hi;
};

/* What besides nodes, ports and counter samples a load reads. */
enum {
	FAB_LOAD_LIGHT = 1 << 0,    /* a counter baseline: GUIDs, types and descriptions
				     * of nodes, port numbers and GUIDs, each port's
				     * latest sample; no links */
	FAB_LOAD_SMS = 1 << 1,
	FAB_LOAD_ERRORS = 1 << 2,   /* scan_errors */
	FAB_LOAD_FINDINGS = 1 << 3, /* with ranges: those naming a loaded node */
	FAB_LOAD_ROCE = 1 << 4,     /* the RoCE part (store/roce_load.c) */
	FAB_LOAD_ROUTING = 1 << 5,  /* the forwarding tables (store/routing_io.c) */
	FAB_LOAD_PKEYS = 1 << 6,    /* the P_Key tables (store/pkey_io.c) */
	FAB_LOAD_NO_SAMPLES = 1 << 7, /* no counter samples at all */
	FAB_LOAD_MCAST = 1 << 8,    /* multicast groups and tables (store/mcast_io.c) */
	FAB_LOAD_LATER = 1 << 9, /* RDMA devices left stored (fab_roce_system.stored_scan) */
};

/*
 * Loads scan scan_id (an id, not resolved) inside the caller's read
 * transaction: the rows in ranges[0..n) (sorted by node, then port, not
 * overlapping), or the whole scan when ranges is NULL; the counter samples
 * of the loaded ports in samples[0..n_samples) (sorted and apart as
 * ranges) or, when samples is NULL, of all of them (none with
 * FAB_LOAD_NO_SAMPLES); the snapshot is indexed, its links built (unless
 * light). *out owned by the caller. 0, -ENOENT (no such scan) or another
 * negative errno, message set.
 */
int fab_store_load_part(struct fab_store *st, int64_t scan_id,
			const struct fab_load_range *ranges, size_t n_ranges,
			const struct fab_load_range *samples, size_t n_samples, unsigned parts,
			struct fab_snapshot **out);

/* ---- the RoCE part's per-priority columns (store/roce_cols.c) --------------- */

/* Eight values 0..255 as "a,b,c,d,e,f,g,h"; parse: true and v filled when
 * the text is exactly that. */
void fab_sql_prio_list_format(const uint8_t v[8], char *buf, size_t cap);
bool fab_sql_prio_list_parse(const char *s, uint8_t v[8]);
/* Eight transmission selection algorithms by name ("ets", "strict", ...,
 * else the number), comma-separated; parse as above. */
void fab_sql_tsa_format(const uint8_t v[8], char *buf, size_t cap);
bool fab_sql_tsa_parse(const char *s, uint8_t v[8]);

/* ---- the RoCE part (store/roce_write.c, roce_load.c), inside the
 * transactions of the snapshot writer and loader ---------------------------- */

/* Writes snap->roce (if any) for snap->scan_id. */
struct fab_snapshot;
struct fab_roce;
int fab_store_write_roce(struct fab_store *st, const struct fab_snapshot *snap);
/* Whether the rows of system sys of r stand as r's keyframe has them: r is
 * written as a delta that does not write sys (store/roce_write.c). */
struct fab_roce;
bool fab_roce_kept(const struct fab_roce *r, uint32_t sys);
/* The stored index of r's Ethernet port (module) at position pos: pos,
 * or its delta's (store/roce_write.c). */
int64_t fab_roce_port_id(const struct fab_roce *r, uint32_t pos);
int64_t fab_roce_module_id(const struct fab_roce *r, uint32_t pos);
/* Loads the RoCE part of snap->scan_id into snap->roce (left NULL when the
 * scan has none). */
/* later: the RDMA devices left stored (fab_roce_system.stored_scan) */
int fab_store_load_roce(struct fab_store *st, struct fab_snapshot *snap, bool later);
/* The votes of what the scan leaves out of a fabric (snap->roce->outside:
 * a readiness extract), rows of roce_votes (store/roce_votes.c). */
int fab_store_write_roce_votes(struct fab_store *st, const struct fab_snapshot *snap);
int fab_store_load_roce_votes(struct fab_store *st, struct fab_snapshot *snap);

/* ---- the physical layer (store/phys_io.c): modules, their lanes, NIC
 * counters, InfiniBand ports' bit error ratios; inside the same
 * transactions ------------------------------------------------------------- */

/* Writes snap's InfiniBand modules and BER rows, and its RoCE part's
 * modules and NIC counters, for snap->scan_id. */
int fab_store_write_phys(struct fab_store *st, const struct fab_snapshot *snap);
/* A scan's Ethernet modules and NIC counters are loaded with the RoCE part
 * (fab_roce_load_phys, roce_rows.h). */
/* Loads snap's InfiniBand modules and BER rows (its nodes and ports loaded
 * and indexed); rows of ports it does not have are skipped (a partial load). */
int fab_store_load_phys_ib(struct fab_store *st, struct fab_snapshot *snap);

/* ---- the forwarding tables (store/routing_io.c), inside the same
 * transactions -------------------------------------------------------------- */

/* Writes snap->routing (if it has tables) for snap->scan_id, content-addressed. */
int fab_store_write_routing(struct fab_store *st, const struct fab_snapshot *snap);
/* Loads the tables of snap->scan_id's loaded switches into snap->routing
 * (left NULL when the scan has none): of the nodes whose flag in whole[]
 * (per node index) is set, or of every node when whole is NULL. A node
 * loaded with some of its ports only gets no table (its entries would name
 * ports the part does not have). */
int fab_store_load_routing(struct fab_store *st, struct fab_snapshot *snap, const bool *whole);
/* Deletes the routings, tables and blocks no scan points at any more (after
 * scans were deleted); adds the rows deleted to *rows. */
int fab_store_prune_routing(struct fab_store *st, int64_t *rows);
/* The SL2VL tables (store/sl2vl_io.c), beside the three above: written
 * after the forwarding tables (nothing when none was read), loaded into
 * snap->routing (created when the scan has tables but no forwarding
 * tables: --no-routes with a QoS policy) for the nodes whole[] flags, or
 * all; the sets no scan points at deleted (by fab_store_prune_routing). */
int fab_store_write_sl2vl(struct fab_store *st, const struct fab_snapshot *snap);
int fab_store_load_sl2vl(struct fab_store *st, struct fab_snapshot *snap, const bool *whole);
int fab_store_prune_sl2vl(struct fab_store *st, int64_t *rows);
/* The VL tables' part (store/qos_io.c): why they were read and each port's
 * VLArbitration tables, written when snap->qos is set, loaded into
 * snap->qos (left NULL when the scan did not read them; the ports of the
 * nodes whole[] flags, or all), the sets no scan points at deleted. */
int fab_store_write_qos(struct fab_store *st, const struct fab_snapshot *snap);
int fab_store_load_qos(struct fab_store *st, struct fab_snapshot *snap, const bool *whole);
int fab_store_prune_qos(struct fab_store *st, int64_t *rows);
/* store/prune.c: deletes the scans listed in temp.fab_prune (a table with
 * one column, scan_id) from every per-scan table; adds to *rows_deleted. */
int fab_store_delete_listed(struct fab_store *st, int64_t *rows_deleted);

/* ---- multicast (store/mcast_io.c), inside the same transactions ------------ */

/* Writes snap->mcast (if the scan read it) for snap->scan_id, content-addressed. */
int fab_store_write_mcast(struct fab_store *st, const struct fab_snapshot *snap);
/* Loads the groups and the loaded switches' tables of snap->scan_id (of the
 * full scan a sweep follows) into snap->mcast (left NULL when it has none),
 * members resolved to the loaded ports. */
int fab_store_load_mcast(struct fab_store *st, struct fab_snapshot *snap);
/* Deletes the sets, groups and tables no scan points at any more; adds the
 * rows deleted to *rows. */
int fab_store_prune_mcast(struct fab_store *st, int64_t *rows);

/* ---- the P_Key tables (store/pkey_io.c), inside the same transactions ------ */

/* Writes snap->pkeys (if it has tables) for snap->scan_id, content-addressed. */
int fab_store_write_pkeys(struct fab_store *st, const struct fab_snapshot *snap);
/* Loads the tables of snap->scan_id's loaded ports into snap->pkeys (left
 * NULL when the scan has none); partial (ready's views): only the CA ports
 * and the ports cabled to them, looked up port by port; else the whole set
 * read. */
int fab_store_load_pkeys(struct fab_store *st, struct fab_snapshot *snap, bool partial);
/* Deletes the sets and tables no scan points at any more; adds the rows
 * deleted to *rows. */
int fab_store_prune_pkeys(struct fab_store *st, int64_t *rows);
