/* SPDX-License-Identifier: MIT */
/*
 * A period of history out of the store (store/history.c), for the trend
 * charts of the HTML report (docs/reports.md, "Trends"): the counter samples
 * of some ports (or of all) over a time window in one query, in the order
 * they were read, and the findings raised in the window. Full scans and
 * watch's counter sweeps alike: a sweep stores only the rows that changed
 * (docs/watch.md), and every stored row is a real reading of its port at its
 * time, so the rows of a port in scan order are its readings in time order.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/snapshot.h"

struct fab_store;

/* A port across scans (its index differs from one topology to the next). */
struct fab_port_key {
	uint64_t node_guid;
	uint8_t port_num;
};

/* Orders keys by GUID, then port number (for qsort and bsearch). */
int fab_port_key_cmp(const void *a, const void *b);

struct fab_history_row {
	int64_t scan_id;
	uint64_t node_guid;
	uint8_t port_num;
	/* A reading from before the window, of the chain (topology scan and
	 * its sweeps) the window starts in: where the port's counters stood
	 * when the window began. */
	bool before;
	/* sample.port_idx: the port's index in the query's keys, FAB_NONE
	 * when the query asked for every port. */
	struct fab_counter_sample sample;
};

/*
 * Calls fn for every counter sample stored for the ports in keys[0..n_keys)
 * (sorted by fab_port_key_cmp; keys NULL: every port) by the scans started
 * in [from_ms, to_ms], in scan order (each port's readings in time order),
 * preceded by the rows before the window of the chain the window starts
 * in (row->before). One query along port_counters' primary key, in one
 * read transaction; the row is valid during the call only. Stops when fn
 * returns non-zero and returns that. 0 also when the window holds no scan.
 */
int fab_store_counter_history(struct fab_store *st, int64_t from_ms, int64_t to_ms,
			      const struct fab_port_key *keys, size_t n_keys,
			      int (*fn)(const struct fab_history_row *row, void *ctx), void *ctx);

/* A finding raised in the window, once however many scans raised it. */
struct fab_history_finding {
	struct fab_finding f; /* as the latest scan in the window raised it */
	int64_t first_ms, last_ms; /* start of the first and the latest scan raising it */
	int64_t last_scan_id;
	int64_t n_scans;           /* scans in the window that raised it */
};

/*
 * Calls fn for every finding (rule, node, port) raised by a scan started in
 * [from_ms, to_ms], oldest first by when it was first raised there. Strings
 * valid during the call only. Stops when fn returns non-zero and returns it.
 */
int fab_store_findings_history(struct fab_store *st, int64_t from_ms, int64_t to_ms,
			       int (*fn)(const struct fab_history_finding *h, void *ctx),
			       void *ctx);
