// SPDX-License-Identifier: MIT
/*
 * The holds watch left open (include/fabsweep/store.h, fab_store_open_holds;
 * docs/watch.md "Findings"): what a restarted watch carries on.
 */
#include <stdio.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/store.h"
#include "store/store_priv.h"

int fab_store_open_holds(struct fab_store *st, struct fab_snapshot *into)
{
	sqlite3_stmt *s;
	int rc, err = fab_store_prepare(st,
		"SELECT " FAB_SQL_FINDING_COLS("") ", raised_at FROM finding_holds"
		" WHERE to_scan_id IS NULL AND held_until IS NULL AND scan_id ="
		" (SELECT coalesce(topology_scan_id, scan_id) FROM scans ORDER BY scan_id DESC LIMIT 1)"
		" ORDER BY hold_id", &s);

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fab_finding f;
		char ev[1024];
		const char *cut;

		fab_sql_read_finding(s, 0, &f);
		f.held_since_ms = fab_sql_time(s, 9);
		/* the evidence as raised: without the "; since=" a hold adds */
		snprintf(ev, sizeof(ev), "%s", f.evidence ? f.evidence : "");
		if ((cut = strstr(ev, "; since=")) || (cut = strncmp(ev, "since=", 6) ? NULL : ev))
			ev[cut - ev] = '\0';
		f.evidence = ev[0] ? ev : NULL;
		if ((err = fab_snapshot_add_finding(into, &f))) {
			err = fab_err(err, "out of memory");
			break;
		}
	}
	return fab_sql_done(st, s, rc, err);
}
