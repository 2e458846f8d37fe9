/* SPDX-License-Identifier: MIT */
/*
 * Trends over a period (core/trend.c; docs/reports.md, "Trends"): how the
 * error counters moved across the scans and watch sweeps of a time window,
 * for the HTML report's charts. Fed with the stored readings of ports in
 * time order (store/history.c gives them), it asks the counter model
 * (core/counter.c) what each port counted from one reading to the next,
 * resets and saturation included, and sums that:
 *   - per minute over the whole fabric (the errors-per-minute timeline);
 *   - per port over the period, to rank ports by error rate;
 *   - per chart time bucket for the charted ports: those named by a
 *     finding, and the top ports by error rate.
 * Two passes over the history, each one store query: every port (the
 * tally: timeline and totals), then the charted ports (their series).
 * Memory: a table over the ports of the period, and per chart its buckets.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/counter.h"

struct fab_snapshot;

#define FAB_TREND_BUCKETS 240      /* time buckets of a port's chart */
#define FAB_TREND_MINUTES_MAX 1440 /* timeline buckets: a minute each up to a day */
#define FAB_TREND_TOP 8            /* default: ports charted for their error rate */
#define FAB_TREND_FINDING_CHARTS 32 /* at most this many charts of ports with findings */

struct fab_trend_chart {
	uint64_t node_guid;
	uint8_t port_num;
	bool finding; /* named by a finding (of the report's scan or of the period) */
	/* Its error counters over the period: the model's deltas of each
	 * reading from the one before, added up (fab_counter_delta_add). */
	struct fab_counter_delta total;
	uint64_t errors;   /* sum of total.inc over the error counters */
	bool at_least;     /* errors is a lower bound (a reset or a saturation) */
	double rate;       /* errors per second (fab_counter_rate of each counter, summed) */
	size_t n_readings; /* readings of the port stored in the period */
	/* Per bucket b (bucket_ms wide from from_ms): inc[b * FAB_CTR__COUNT + ctr],
	 * what counter ctr counted; at_least[b]: counters whose increase there
	 * is a lower bound. */
	uint64_t *inc;
	uint32_t *at_least_in;
	/* private: the reading before, while fed */
	struct fab_counter_sample prev;
	bool has_prev;
};

/* A finding raised during the period (fab_trend_add_finding). */
struct fab_trend_finding {
	uint32_t finding;  /* index into period->findings */
	int64_t first_ms, last_ms, last_scan_id, n_scans;
};

struct fab_trend {
	int64_t from_ms, to_ms;
	/* the timeline: errors[m] counted in minute bucket m (minute_ms wide,
	 * 60 s up to a day, wider beyond); errors_at_least[m]: a lower bound */
	int64_t minute_ms;
	size_t n_minutes;
	uint64_t *errors;
	bool *errors_at_least;
	uint64_t total_errors;
	/* the charts: sorted by key while fed (fab_trend_series takes its
	 * index), for display after fab_trend_finish (findings first, then by
	 * errors) */
	int64_t bucket_ms;
	size_t n_buckets;
	struct fab_trend_chart *charts;
	size_t n_charts;
	size_t n_more;      /* ports with findings or errors not charted */
	size_t n_readings;  /* readings stored in the period (a sweep stores changes only) */
	size_t n_steps;     /* readings compared with one before them: 0, nothing to chart */
	size_t n_ports;     /* ports read in the period */
	size_t n_ports_grew; /* of them, with an error counter that grew */
	/* findings raised in the period (report --since): their strings live
	 * in period's arena */
	bool since; /* a period asked for (report --since): raised is read */
	struct fab_snapshot *period;
	struct fab_trend_finding *raised;
	size_t n_raised, cap_raised;
	void *tally; /* private: the per-port table of the first pass */
};

/* Starts an empty trend of [from_ms, to_ms]. 0, -EINVAL (an empty window)
 * or -ENOMEM, message set. Free with fab_trend_free. */
int fab_trend_init(struct fab_trend *t, int64_t from_ms, int64_t to_ms);
void fab_trend_free(struct fab_trend *t); /* accepts a zeroed one */

/* Pass 1: a reading of a port, in time order per port (before: read before
 * the window, a starting point only). Sample borrowed. 0 or -ENOMEM. */
int fab_trend_tally(struct fab_trend *t, uint64_t node_guid, uint8_t port_num, bool before,
		    const struct fab_counter_sample *c);

/* A finding raised during the period, copied. 0 or -ENOMEM. */
int fab_trend_add_finding(struct fab_trend *t, const struct fab_finding *f, int64_t first_ms,
			  int64_t last_ms, int64_t last_scan_id, int64_t n_scans);

/*
 * After pass 1: the ports to chart. Those named by a finding of snap (may
 * be NULL) or of the period (node a GUID, port a number), up to
 * FAB_TREND_FINDING_CHARTS of them, most errors first; then the n_top ports
 * with the highest error rate among the others that counted errors. Frees
 * the tally. 0 or -ENOMEM.
 */
int fab_trend_pick(struct fab_trend *t, const struct fab_snapshot *snap, size_t n_top);

/* Pass 2: a reading of charted port `chart` (index in t->charts as
 * fab_trend_pick left them), in time order. */
void fab_trend_series(struct fab_trend *t, uint32_t chart, bool before,
		      const struct fab_counter_sample *c);

/* After pass 2: the charts in display order. */
void fab_trend_finish(struct fab_trend *t);

/* The period a scan's report charts: the day before it. */
#define FAB_TREND_DAY_MS (24LL * 3600 * 1000)
