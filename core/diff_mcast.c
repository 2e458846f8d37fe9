// SPDX-License-Identifier: MIT
/*
 * The multicast part of a snapshot diff (include/fabsweep/diff.h): groups
 * matched by MGID in one merge of the two MGID-sorted lists; a group in
 * both is compared switch by switch (matched by node GUID), each switch's
 * entry for the group's MLID in the old scan against its entry for the
 * group's MLID in the new one. An entry not read in either scan is not
 * compared. O(groups x switches).
 */
#include <errno.h>
#include <string.h>

#include "diff_priv.h"
#include "fabsweep/mcast.h"
#include "fabsweep/snapshot.h"

/* Switches whose entry for mlid names a port. */
static uint64_t tree_size(const struct fab_mcast *m, unsigned mlid)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->n_mfts; i++) {
		uint16_t e[FAB_MFT_MAX_POS];
		fab_mft_entry(&m->mfts[i], mlid, e);
		for (unsigned p = 0; p < FAB_MFT_MAX_POS; p++)
			if (e[p]) {
				n++;
				break;
			}
	}
	return n;
}

/* The switches whose entry moved between (os, old MLID) and (ns, new MLID). */
static uint32_t moved(const struct fab_snapshot *os, unsigned omlid, const struct fab_snapshot *ns,
		      unsigned nmlid)
{
	const struct fab_mcast *om = os->mcast, *nm = ns->mcast;
	uint32_t n = 0;

	for (size_t i = 0; i < nm->n_mfts; i++) {
		const struct fab_mft *b = &nm->mfts[i];
		uint16_t eb[FAB_MFT_MAX_POS], ea[FAB_MFT_MAX_POS];
		uint32_t on = fab_snapshot_find_node(os, ns->nodes[b->node_idx].guid);
		const struct fab_mft *a = on == FAB_NONE ? NULL : fab_mcast_mft(om, on);

		if (fab_mft_entry(b, nmlid, eb) <= 0)
			continue; /* not read whole */
		if (!a) { /* a switch the old scan had no table of: new if it forwards */
			for (unsigned p = 0; p < FAB_MFT_MAX_POS; p++)
				if (eb[p]) {
					n++;
					break;
				}
			continue;
		}
		if (fab_mft_entry(a, omlid, ea) > 0 && memcmp(ea, eb, sizeof(ea)))
			n++;
	}
	/* switches of the old tree the new scan does not have */
	for (size_t i = 0; i < om->n_mfts; i++) {
		const struct fab_mft *a = &om->mfts[i];
		uint16_t ea[FAB_MFT_MAX_POS];

		if (fab_snapshot_find_node(ns, os->nodes[a->node_idx].guid) != FAB_NONE ||
		    fab_mft_entry(a, omlid, ea) <= 0)
			continue;
		for (unsigned p = 0; p < FAB_MFT_MAX_POS; p++)
			if (ea[p]) {
				n++;
				break;
			}
	}
	return n;
}

int fab_diff_mcast(struct fab_diff *d, const struct fab_snapshot *os, const struct fab_snapshot *ns)
{
	const struct fab_mcast *om = os->mcast, *nm = ns->mcast;
	size_t i = 0, j = 0;

	if (!om || !nm)
		return 0; /* a scan without multicast: nothing to compare */
	while (i < om->n_groups || j < nm->n_groups) {
		int c = i == om->n_groups ? 1 : j == nm->n_groups ? -1
			: memcmp(om->groups[i].mgid, nm->groups[j].mgid, 16);
		struct fab_change *ch;

		if (c) {
			const struct fab_mc_group *g = c < 0 ? &om->groups[i++] : &nm->groups[j++];
			if (!(ch = fab_diff_add(d, c < 0 ? FAB_CHG_MCAST_REMOVED : FAB_CHG_MCAST_ADDED)))
				return -ENOMEM;
			memcpy(ch->mgid, g->mgid, 16);
			ch->mlid = ch->old_mlid = g->mlid;
			if (c < 0)
				ch->old_value = g->n;
			else
				ch->new_value = g->n;
			continue;
		}
		const struct fab_mc_group *a = &om->groups[i++], *b = &nm->groups[j++];
		uint32_t n = moved(os, a->mlid, ns, b->mlid);
		if (!n)
			continue;
		if (!(ch = fab_diff_add(d, FAB_CHG_MCAST_TREE)))
			return -ENOMEM;
		memcpy(ch->mgid, b->mgid, 16);
		ch->mlid = b->mlid;
		ch->old_mlid = a->mlid;
		ch->old_value = tree_size(om, a->mlid);
		ch->new_value = tree_size(nm, b->mlid);
		ch->switches_changed = n;
	}
	return 0;
}
