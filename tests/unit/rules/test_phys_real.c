// SPDX-License-Identifier: MIT
/*
 * The physical-layer rules on real data, read by fabsweep's own readers:
 * the `ethtool -S` outputs of fixtures/ethtool (the overloaded mlx5 and the
 * bnxt_en discard, the healthy ConnectX-4 Lx does not), the module dumps of
 * fixtures/modules (the 40G SR4 with three dark lanes fires, the QSFP28
 * without link, the copper SFP do not) and the sequoia run's
 * ibdiagnet2.cables (486 modules, nothing wrong by their own thresholds).
 * Exactly these findings, and none of the other rules of the physical
 * category.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/ethtool.h"
#include "fabsweep/ibdiag.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "unit/modfix.h"

static void dump_of(struct fab_roce *r, uint32_t port, const char *file)
{
	static uint8_t raw[1024];

	mfix_module(r, port, raw, mfix_dump(file, raw, sizeof(raw)));
}

/* "rule system/ifname" of the physical rules' findings, sorted by the engine */
static char *physical(const struct fab_snapshot *s)
{
	static char out[4096];
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct fab_finding *f = &s->findings[i];
		const struct fab_rule *r = fab_rule_find(f->rule_id);
		if (r && r->category == FAB_CAT_PHYSICAL)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s %s/%s\n", f->rule_id, f->node, f->port);
	}
	return out;
}

static void test_hosts(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_roce *r = fab_snapshot_roce(s);
	uint8_t img[640];

	(void)state;
	mfix_stats(r, mfix_host(r, "bnxt"), "bnxt_en", "ethtool/bnxt_en.stats", NULL);
	mfix_stats(r, mfix_host(r, "healthy"), "mlx5_core", "ethtool/mlx5_connectx4lx.stats", NULL);
	mfix_stats(r, mfix_host(r, "overload65"), "mlx5_core", "ethtool/mlx5_overload_k6.5.stats", NULL);
	mfix_stats(r, mfix_host(r, "overload515"), "mlx5_core", "ethtool/mlx5_overload_k5.15.stats", NULL);
	dump_of(r, mfix_host(r, "nolink"), "modules/qsfp28_mma1b00_640b.hex");
	dump_of(r, mfix_host(r, "before_fix"), "modules/qsfp28_mma1b00_256b.hex");
	dump_of(r, mfix_host(r, "copper"), "modules/sfp_netgear_agm734.hex");
	char *t = mfix_slurp("modules/qsfp_40gsr4_avago_dark_lanes.txt", NULL);
	assert_int_equal(mfix_sff8636_from_text(t, img), 0);
	free(t);
	mfix_module(r, mfix_host(r, "sr4"), img, sizeof(img));

	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, NULL), 0);
	assert_string_equal(physical(s), "eth.discards bnxt/eth0\n"
					 "eth.discards overload65/eth0\n"
					 "eth.discards overload515/eth0\n"
					 "module.dark_lane sr4/eth0\n");
	fab_snapshot_free(s);
}

static void test_sequoia_cables(void **state)
{
	struct fab_snapshot *s = fab_snapshot_new();
	char dir[1200];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/real/ibdiagnet2/sequoia_ndr_cables", getenv("FIXTURES"));
	assert_int_equal(fab_ibdiag_import_dir(dir, NULL, NULL, s), 0);
	assert_int_equal(s->ib_modules.n, 486);
	assert_int_equal(fab_rules_run(NULL, s, NULL, 0, NULL), 0);
	assert_string_equal(physical(s), "");
	fab_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_sequoia_cables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
