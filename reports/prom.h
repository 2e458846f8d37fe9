/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: what prometheus.c lends the files that write more
 * of its families (prom_phys.c). Label values are escaped by
 * prometheus.c alone.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pw;
struct fab_snapshot;

struct label {
	const char *name;  /* a literal: [a-z_]+ */
	const char *value; /* untrusted */
};

const struct fab_snapshot *fab_prom_snap(const struct pw *w);
/* The HELP and TYPE lines of a family. */
void fab_prom_family(struct pw *w, const char *name, const char *type, const char *help);
void fab_prom_u64(struct pw *w, const char *name, const struct label *l, size_t n, uint64_t v);
void fab_prom_dbl(struct pw *w, const char *name, const struct label *l, size_t n, double v);

/* prom_phys.c: modules, cables, bit error ratios, NIC counters. 0 or
 * -ENOMEM. */
int fab_prom_phys(struct pw *w);
