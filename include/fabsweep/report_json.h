/* SPDX-License-Identifier: MIT */
/*
 * JSON documents for scripts (`--json` on check, ready, scans, diff, rules
 * and db info): one document per command, written to a stream. Structure:
 * docs/json/<command>.schema.json (JSON Schema); docs/json/README.md says
 * what the fields mean and how they may grow. Written through jansson
 * (reports/jsonw.c); every string from a fabric, a database or a file is
 * made valid UTF-8 without control characters, then escaped to ASCII.
 *
 * Every function borrows its arguments and returns 0, -ENOMEM or -EIO
 * with fab_errmsg() set; on failure f may hold part of a document.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct fab_config;
struct fab_diff;
struct fab_nodemap;
struct fab_ready;
struct fab_ready_hosts;
struct fab_rule;
struct fab_rules_result;
struct fab_scan_row;
struct fab_site_result;
struct fab_site_rule;
struct fab_site_rules;
struct fab_snapshot;
struct fab_store_info;

/* `check --json`: the scan, what ran, the counts and every finding (no
 * --limit: a script gets them all), worst first. */
struct fab_json_check {
	const struct fab_snapshot *snap;      /* checked, with its findings */
	const struct fab_rules_result *rules; /* by_severity includes the site rules */
	const struct fab_site_result *site;
	const struct fab_config *cfg;
	const struct fab_snapshot *base;      /* counter baseline or NULL */
	const struct fab_snapshot *reference; /* expected topology or NULL */
	const struct fab_nodemap *names;      /* may be NULL */
	unsigned fail_on;                     /* enum fab_severity or FAB_FAIL_NEVER */
	bool failed;                          /* a finding at or above fail_on */
	bool summary;                         /* add "summary": by rule and by node */
};
int fab_json_check(FILE *f, const struct fab_json_check *in);

/* `ready --json`: the overall verdict, each host's, the problems per host,
 * the ports probed, the pairs of hosts (partitions, routes) and the hops
 * between them. view is the sweep compared with; pairs and hops may be
 * NULL (not judged). */
struct fab_ready_pairs;
struct fab_ready_hops;
int fab_json_ready(FILE *f, const struct fab_ready *r, const struct fab_ready_hosts *hosts,
		   const struct fab_snapshot *view, const struct fab_ready_pairs *pairs,
		   const struct fab_ready_hops *hops);

/* `ready --local --json` (a RoCE host judging itself, docs/roce.md
 * "Readiness"): the document of `ready` for one host, its notes, no probed
 * ports, and "local": its RDMA ports, its cabling, the rules' findings about
 * it. ref is the merge compared with, judged the snapshot the rules ran on. */
struct fab_ready_roce_port;
struct fab_ready_roce_link;
struct fab_ready_roce_finding;
struct fab_json_ready_local {
	const struct fab_ready *r;
	const struct fab_ready_hosts *hosts;
	const char *name;
	const struct fab_snapshot *ref, *judged;
	const struct fab_ready_roce_port *ports;
	size_t n_ports;
	const struct fab_ready_roce_link *links;
	size_t n_links;
	const struct fab_ready_roce_finding *findings;
	size_t n_findings;
	char *const *notes;
	size_t n_notes;
};
int fab_json_ready_local(FILE *f, const struct fab_json_ready_local *in);

/* `diff --json`: the two scans and every change. */
int fab_json_diff(FILE *f, const struct fab_diff *d, const struct fab_snapshot *old_snap,
		  const struct fab_snapshot *new_snap, const struct fab_nodemap *names);

/* `scans --json`: rows as fab_store_list_scans() gives them. new, then
 * fab_json_scans_row as its callback (ctx: the list), then write (which
 * frees the list in any case; f NULL: only frees it). */
struct fab_json_scans;
int fab_json_scans_new(const char *db, struct fab_json_scans **out);
int fab_json_scans_row(const struct fab_scan_row *row, void *ctx);
int fab_json_scans_write(struct fab_json_scans *l, FILE *f);

/* `db info --json`. */
int fab_json_db_info(FILE *f, const char *db, const struct fab_store_info *info);

/* `rules --json` (every rule, then the site rules of rs, which may be
 * NULL) or `rules show ID --json` (only rule or only site_rule, the other
 * NULL): values as cfg sets them. */
int fab_json_rules(FILE *f, const struct fab_config *cfg, struct fab_site_rules *rs,
		   const struct fab_rule *only, const struct fab_site_rule *only_site);
