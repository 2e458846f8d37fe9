// SPDX-License-Identifier: MIT
/*
 * `fabsweep physical` as text: the physical layer model (model_phys.c),
 * the first rows of each list. Strings from modules and the fabric were
 * made safe when stored; they pass fab_text_sanitize() again here, as the
 * terminal is an output too.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/module.h"
#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "fabsweep/snapshot.h"
#include "phys.h"

#define WHERE_CAP 400

/* s made printable: control bytes and invalid UTF-8 as \xNN. */
static const char *safe(const char *s, char *buf, size_t cap)
{
	if (!s)
		return "?";
	fab_text_sanitize((const uint8_t *)s, strnlen(s, cap / 4 - 1), buf, cap);
	return buf;
}

static const char *fabric_label(unsigned f)
{
	return f == FAB_PHYS_IB ? "InfiniBand" : "RoCE host";
}

static void where(FILE *f, const struct fab_snapshot *s, const struct fab_nodemap *names, unsigned fabric,
		  uint32_t port)
{
	char w[WHERE_CAP], c[4 * WHERE_CAP];

	fab_phys_where(s, names, fabric, port, w, sizeof(w));
	fprintf(f, "  %s", safe(w, c, sizeof(c)));
}

static void dbm_text(double dbm, char *buf, size_t len)
{
	if (isinf(dbm) && dbm < 0)
		snprintf(buf, len, "no light");
	else
		snprintf(buf, len, "%.1f dBm", dbm);
}

static void head(FILE *f, const char *what, size_t shown, size_t n, const char *unit)
{
	if (n)
		fprintf(f, "%s (%zu of %zu %s):\n", what, shown, n, unit);
}

int fab_report_phys_text(FILE *f, const struct fab_snapshot *s, const struct fab_report_phys *p,
			 const struct fab_nodemap *names, size_t top)
{
	char a[64], b[64], c1[1024], c2[1024], c3[1024];
	size_t n;

	fprintf(f, "scan %lld: ", (long long)s->scan_id);
	if (!fab_report_phys_present(p)) {
		fprintf(f, "no module, cable or bit error ratio recorded (import ibdiagnet2 with"
			   " ibdiagnet2.cables, collect on RoCE hosts)\n");
		return ferror(f) ? fab_err(-EIO, "cannot write: %s", strerror(errno ? errno : EIO)) : 0;
	}
	for (unsigned k = 0; k < FAB_PHYS__FABRICS; k++)
		fprintf(f, "%s%zu %s module%s (%zu with monitors, %zu refused)", k ? "; " : "",
			p->n_modules[k], fabric_label(k), p->n_modules[k] == 1 ? "" : "s", p->n_monitored[k],
			p->n_refused[k]);
	fputc('\n', f);

	n = p->n_ber < top ? p->n_ber : top;
	head(f, "bit error ratios, highest first", n, p->n_ber, "ports");
	for (size_t i = 0; i < n; i++) {
		const struct fab_phys_ber *r = &p->ber[i];
		where(f, s, names, r->fabric, r->port);
		fputc(':', f);
		if (!isnan(r->raw))
			fprintf(f, " %.2e before FEC", r->raw);
		if (!isnan(r->effective))
			fprintf(f, "%s %.2e after FEC", isnan(r->raw) ? "" : ",", r->effective);
		if (!isnan(r->symbol))
			fprintf(f, "%s symbol %.2e", isnan(r->raw) && isnan(r->effective) ? "" : ",", r->symbol);
		if (r->from_counters)
			fprintf(f, "%s (SymbolErrorCounter between the samples compared)", r->at_least ? " or more" : "");
		fputc('\n', f);
	}

	n = fab_phys_held(p, p->n_margins) < top ? fab_phys_held(p, p->n_margins) : top;
	head(f, "power margins, smallest first", n, p->n_margins, "lanes");
	for (size_t i = 0; i < n; i++) {
		const struct fab_phys_margin *g = &p->margins[i];
		where(f, s, names, g->fabric, fab_phys_module_port(s, g->fabric, g->module));
		dbm_text(g->dbm, a, sizeof(a));
		fprintf(f, " lane %u %s: %s, ", g->lane, g->mon == FAB_MON_RX_POWER ? "rx" : "tx", a);
		if (isinf(g->margin))
			fprintf(f, "dark");
		else
			fprintf(f, "%.1f dB %s", fabs(g->margin), g->margin < 0 ? "beyond the warning limit"
										: "to the nearer warning limit");
		fprintf(f, " (%s; %s thresholds)\n", fab_mon_level_name(g->level), g->own ? "its own" : "default");
	}

	n = fab_phys_held(p, p->n_temps) < top ? fab_phys_held(p, p->n_temps) : top;
	head(f, "temperatures, hottest first", n, p->n_temps, "modules");
	for (size_t i = 0; i < n; i++) {
		const struct fab_phys_temp *t = &p->temps[i];
		where(f, s, names, t->fabric, fab_phys_module_port(s, t->fabric, t->module));
		if (isnan(t->hi_warn))
			snprintf(b, sizeof(b), "no high warning");
		else
			snprintf(b, sizeof(b), "high warning %.1f C", t->hi_warn);
		fprintf(f, ": %.1f C, %s (%s; %s thresholds)\n", t->celsius, fab_mon_level_name(t->level), b,
			t->own ? "its own" : "default");
	}

	n = p->n_groups < top ? p->n_groups : top;
	head(f, "module inventory, most first", n, p->n_groups, "kinds");
	for (size_t i = 0; i < n; i++) {
		const struct fab_phys_group *g = &p->groups[i];
		fprintf(f, "  %s %s %s %s: %zu (%zu with monitors, %zu refused)\n", fabric_label(g->fabric),
			safe(g->type, c1, sizeof(c1)), safe(g->vendor, c2, sizeof(c2)),
			safe(g->part_number, c3, sizeof(c3)), g->n, g->n_monitored, g->n_refused);
	}
	if (ferror(f))
		return fab_err(-EIO, "cannot write: %s", strerror(errno ? errno : EIO));
	return 0;
}

int fab_report_physical(const struct fab_snapshot *snap, const struct fab_snapshot *base,
			const struct fab_nodemap *names, size_t top, FILE *text, FILE *json)
{
	struct fab_report_phys p;
	/* the text shows the first top rows, the JSON document all */
	int err = fab_report_phys_build(snap, base, json ? SIZE_MAX : top, &p);

	if (!err && text)
		err = fab_report_phys_text(text, snap, &p, names, top);
	if (!err && json)
		err = fab_report_phys_json(json, snap, &p, names);
	fab_report_phys_free(&p);
	return err;
}
