// SPDX-License-Identifier: MIT
/*
 * `fabsweep route --mcast MGID|MLID`: a multicast group's tree in a stored
 * scan as its multicast forwarding tables write it (core/mcast_tree.c, the
 * rules' one judgement), like `route` for unicast: offline, any snapshot.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/mcast.h"
#include "fabsweep/pipeline.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

/* An MLID: 0x and hex digits, or decimal; in 0xC000..0xFFFE. */
static bool parse_mlid(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!*s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = !strncmp(s, "0x", 2) || !strncmp(s, "0X", 2) ? strtoul(s + 2, &end, 16) : strtoul(s, &end, 10);
	if (errno || *end || v < FAB_MLID_FIRST || v > FAB_MLID_LAST)
		return false;
	*out = (unsigned)v;
	return true;
}

int fab_pipeline_route_mcast(const struct fab_pipeline_route_mcast *job,
			     struct fab_pipeline_route_mcast_result *out)
{
	struct fab_store *st = NULL;
	uint8_t mgid[16];
	unsigned mlid = 0;
	bool by_mgid;
	int err;

	memset(out, 0, sizeof(*out));
	out->group = FAB_NONE;
	if (!job->group || !((by_mgid = !fab_mgid_parse(job->group, mgid)) || parse_mlid(job->group, &mlid)))
		return fab_err(-EINVAL, "'%s' is neither an MGID (ff12:401b:ffff::ffff:ffff) nor an "
			       "MLID (0xc000 to 0xfffe)", job->group ? job->group : "");
	if (!(out->tree = calloc(1, sizeof(*out->tree))))
		return fab_err(-ENOMEM, "out of memory");
	if ((err = fab_store_open(job->db, FAB_STORE_READONLY, &st)) ||
	    (err = fab_store_resolve_scan(st, job->scan_id, &out->scan_id)) ||
	    (err = fab_store_load_scan(st, out->scan_id, &out->snap)))
		goto fail;
	fab_store_close(st);
	st = NULL;
	const struct fab_mcast *m = out->snap->mcast;
	if (!m) {
		err = fab_err(-ENODATA, "scan %lld has no multicast groups or tables (scan --no-mcast, "
			      "an older scan, or the SA did not answer)", (long long)out->scan_id);
		goto fail;
	}
	if (by_mgid) {
		const struct fab_mc_group *g = fab_mcast_group(m, mgid);
		if (!g) {
			err = fab_err(-ENOENT, "scan %lld has no multicast group %s", (long long)out->scan_id,
				      job->group);
			goto fail;
		}
		out->group = (uint32_t)(g - m->groups);
		mlid = g->mlid;
	}
	if ((err = fab_mc_tree_build(out->snap, (uint16_t)mlid, out->tree))) {
		fab_err(err, "out of memory");
		goto fail;
	}
	if (!by_mgid && !out->tree->n_groups && !out->tree->n_hops) {
		err = fab_err(-ENOENT, "scan %lld has no multicast group with MLID 0x%04x, and no table "
			      "names it", (long long)out->scan_id, mlid);
		goto fail;
	}
	return 0;
fail:
	fab_store_close(st);
	fab_pipeline_route_mcast_free(out);
	return err;
}

void fab_pipeline_route_mcast_free(struct fab_pipeline_route_mcast_result *r)
{
	if (!r)
		return;
	fab_mc_tree_free(r->tree);
	free(r->tree);
	fab_snapshot_free(r->snap);
	r->tree = NULL;
	r->snap = NULL;
}
