/* SPDX-License-Identifier: MIT */
/*
 * Reports: render a checked snapshot (and the findings stored with it) as a
 * self-contained HTML page or as XML that validates against
 * docs/fabsweep-report.xsd. A report never runs a rule and never talks to a
 * fabric: it only reads snapshots.
 *
 * Files are written to a temporary name beside the target and renamed, so no
 * reader ever sees half a report; on failure the target is left as it was.
 * See docs/reports.md for what each section shows.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct fab_diff;
struct fab_nodemap;
struct fab_snapshot;
struct fab_trend;

struct fab_report_opts {
	/* Counters of every port with a sample, not only of ports named by a
	 * finding (XML; the HTML always shows the top error counters). */
	bool all_counters;
	/* Text for the generator attribute / footer, e.g. "fabsweep 0.1.0";
	 * NULL: "fabsweep" and the built version. Borrowed. */
	const char *generator;
	/* Report time (Unix epoch ms) written into the report; 0: now. Tests
	 * set it to make output reproducible. */
	long long generated_at_ms;
	/* The trends of the period around the scan (include/fabsweep/trend.h,
	 * made by fab_pipeline_trend): the HTML report charts them; NULL: no
	 * trend section. Borrowed. */
	const struct fab_trend *trend;
};

void fab_report_opts_init(struct fab_report_opts *o);

/* Verdict of a snapshot from its findings. */
enum fab_verdict {
	FAB_VERDICT_HEALTHY = 0, /* no finding at warning or above */
	FAB_VERDICT_DEGRADED,    /* warnings, no error */
	FAB_VERDICT_FAILING,     /* at least one error */
	FAB_VERDICT__COUNT
};

enum fab_verdict fab_report_verdict(const struct fab_snapshot *snap);

/*
 * `check --summary` (reports/summary.c): a checked snapshot's findings
 * counted by rule and by node, for the terminal and --json alike.
 * Groups are sorted worst first, then by the number of findings, then by
 * id or name. A finding counts for its node (findings.node: the first end
 * of a link); one without a node (fabric-wide) for a group whose node is
 * NULL. Strings are borrowed from the snapshot and the map (which must
 * outlive the summary), or owned (name_buf).
 */
struct fab_summary_rule {
	const char *rule_id;
	unsigned worst;                  /* enum fab_severity */
	size_t findings, nodes;          /* nodes: distinct nodes named */
	size_t by_severity[3];           /* indexed by enum fab_severity */
};
struct fab_summary_count {
	const char *rule_id;
	unsigned worst;
	size_t findings;
};
struct fab_summary_node {
	const char *node;   /* findings.node (a GUID, or a system's name); NULL: none */
	const char *name;   /* its name in every output (fab_node_name), NULL with node */
	char *name_buf;     /* owned: name when it was built */
	unsigned worst;
	size_t findings;
	size_t by_severity[3];
	size_t first, n_rules; /* its rules: counts[first .. first + n_rules) */
};
struct fab_check_summary {
	struct fab_summary_rule *rules;
	size_t n_rules;
	struct fab_summary_node *nodes;
	size_t n_nodes;
	struct fab_summary_count *counts;
	size_t n_counts;
};
struct fab_nodemap;
/* *out (free with fab_report_summary_free) on success; 0 or -ENOMEM. */
int fab_report_summary(const struct fab_snapshot *snap, const struct fab_nodemap *map,
		       struct fab_check_summary **out);
void fab_report_summary_free(struct fab_check_summary *s); /* accepts NULL */
/* "healthy", "degraded", "failing"; NULL when out of range. */
const char *fab_report_verdict_name(unsigned verdict);

/*
 * Writes the XML report of snap to path. baseline may be NULL; when given,
 * the report holds what changed from it to snap. Both snapshots are borrowed
 * and must have been indexed (fab_snapshot_index(), which the store's loader
 * does). Returns 0, or a negative errno with fab_errmsg() naming the file.
 */
int fab_report_xml(const struct fab_snapshot *snap,
		   const struct fab_snapshot *baseline,
		   const struct fab_report_opts *opts, const char *path);

/* Writes the HTML report of snap to path; arguments as fab_report_xml(). */
int fab_report_html(const struct fab_snapshot *snap,
		    const struct fab_snapshot *baseline,
		    const struct fab_report_opts *opts, const char *path);

/*
 * Writes both reports (either path may be NULL, not both) from one pass over
 * the snapshots. Both are rendered to temporary files first and renamed into
 * place only when both rendered: on failure every target is left as it was.
 */
int fab_report_write(const struct fab_snapshot *snap,
		     const struct fab_snapshot *baseline,
		     const struct fab_report_opts *opts, const char *xml_path,
		     const char *html_path);

/*
 * A diff (fab_diff_compute() of old_snap -> new_snap, both borrowed) as
 * text to f: a line naming the two scans, then the changes grouped by kind,
 * node names through names (may be NULL). 0, or -EIO when f failed.
 */
int fab_report_diff_text(FILE *f, const struct fab_diff *d,
			 const struct fab_snapshot *old_snap,
			 const struct fab_snapshot *new_snap,
			 const struct fab_nodemap *names);
/* The same as XML valid against docs/fabsweep-diff.xsd, written to path
 * atomically (the target is left as it was on failure). */
int fab_report_diff_xml(const char *path, const struct fab_diff *d,
			const struct fab_snapshot *old_snap,
			const struct fab_snapshot *new_snap,
			const struct fab_nodemap *names);

/*
 * `fabsweep physical`: the physical layer of snap (docs/reports.md): bit
 * error ratios, lane power margins, temperatures, the module inventory,
 * each worst first; as text (the first top rows of each list) to text
 * and/or as the JSON document (docs/json/physical.schema.json) to json
 * (either may be NULL). base (may be NULL) gives Ethernet counters an
 * earlier reading. 0, -ENOMEM or -EIO (message set).
 */
int fab_report_physical(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			const struct fab_nodemap *names, size_t top, FILE *text, FILE *json);

/*
 * The Prometheus text exposition format (version 0.0.4) of snap, for
 * node_exporter's textfile collector (reports/prometheus.c; the metrics
 * are listed in docs/workflows.md): HELP and TYPE lines, every metric named
 * fabsweep_*, label values escaped (backslash, double quote, newline; other
 * control bytes and invalid UTF-8 as \xNN). Node labels use names (may be
 * NULL) for mapped names. snap must be indexed (the store's loader does
 * it). Counter increases and rates compare snap with base (a baseline, may
 * be NULL: then the scan's own two samples), as `fabsweep check` does. No
 * timestamps on samples (the textfile collector refuses them). Everything
 * borrowed. Writes to f; returns 0, -ENOMEM or -EIO.
 */
int fab_export_prometheus(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			  const struct fab_nodemap *names, FILE *f);

/* The same, written to path atomically like the reports: under a temporary
 * name beside it ("PATH.tmpXXXXXX", never ending in ".prom", mode 0644),
 * renamed over it, so the collector sees the old file or the new one. */
int fab_export_prometheus_file(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			       const struct fab_nodemap *names, const char *path);
/* The same with the samples compared given (watch: each port's value at the
 * previous write against its value now, docs/watch.md); pairs borrowed. */
struct fab_counter_pairs;
int fab_export_prometheus_pairs_file(const struct fab_snapshot *snap,
				     const struct fab_counter_pairs *pairs,
				     const struct fab_nodemap *names, const char *path);
