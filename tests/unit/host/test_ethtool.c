// SPDX-License-Identifier: MIT
/*
 * ethtool statistics: `ethtool -S` text of real NICs (fixtures/ethtool)
 * parsed and compared with an independent count of its lines; the one
 * mapping table (mlx5_core, bnxt_en, ice, netlink) on their names;
 * statistics recorded as NIC counters (the kernel's standard ones win);
 * ethtool netlink replies laid out as the kernel writes them, and every
 * truncation of them; the GSTRINGS table with hostile bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/ethtool.h"
#include "fabsweep/roce.h"
#include "unit/modfix.h"

#define L16(x) ((x) & 0xff), (((x) >> 8) & 0xff)
#define L32(x) L16((x) & 0xffff), L16(((x) >> 16) & 0xffff)
#define L64(x) L32((uint64_t)(x) & 0xffffffffu), L32((uint64_t)(x) >> 32)

static struct fab_ethtool_stat stats[4096];

/* Lines "name: digits" outside per-queue "[N]:" lines, counted by hand. */
static size_t count_lines(const char *t)
{
	size_t n = 0;
	for (const char *l = t; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		const char *c = l;
		while (*c == ' ' || *c == '\t')
			c++;
		if (*c == '[')
			continue;
		const char *colon = strchr(c, ':'), *eol = strchr(c, '\n');
		if (!colon || (eol && colon > eol) || colon == c)
			continue;
		const char *v = colon + 1;
		while (*v == ' ')
			v++;
		if (*v >= '0' && *v <= '9')
			n++;
	}
	return n;
}

static const struct fab_ethtool_stat *find(const struct fab_ethtool_stat *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return &s[i];
	return NULL;
}

static void test_parse_real(void **state)
{
	static const char *const files[] = { "ethtool/mlx5_connectx4lx.stats", "ethtool/bnxt_en.stats",
					     "ethtool/mlx5_overload_k6.5.stats",
					     "ethtool/mlx5_overload_k5.15.stats" };
	(void)state;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t len = 0;
		char *t = mfix_slurp(files[f], &len);
		assert_non_null(t);
		size_t n = fab_ethtool_parse_stats(t, len, stats, 4096);
		assert_int_equal(n, count_lines(t));
		free(t);
	}
	size_t len = 0;
	char *t = mfix_slurp("ethtool/mlx5_overload_k6.5.stats", &len);
	size_t n = fab_ethtool_parse_stats(t, len, stats, 4096);
	assert_int_equal(find(stats, n, "rx_discards_phy")->value, 441063206498ull);
	assert_int_equal(find(stats, n, "tx_global_pause_duration")->value, 5961284324ull);
	assert_null(find(stats, n, "NIC")); /* "NIC statistics:" is no statistic */
	free(t);
	t = mfix_slurp("ethtool/bnxt_en.stats", &len);
	n = fab_ethtool_parse_stats(t, len, stats, 4096);
	assert_int_equal(find(stats, n, "rx_total_ring_discards")->value, 655430134ull);
	assert_null(find(stats, n, "rx_ucast_packets")); /* only per ring: "[0]: rx_ucast_packets" */
	free(t);
}

static void test_map(void **state)
{
	unsigned c;
	int p;
	size_t n;
	const struct fab_nic_map_entry *m = fab_nic_map_table(&n);

	(void)state;
	assert_true(fab_nic_map("mlx5_core", "rx_prio3_pause", &c, &p) && c == FAB_NIC_RX_PAUSE && p == 3);
	assert_true(fab_nic_map("mlx5_core", "rx_prio3_pause_duration", &c, &p) &&
		    c == FAB_NIC_RX_PAUSE_DURATION && p == 3);
	assert_true(fab_nic_map("mlx5_core", "tx_global_pause", &c, &p) && c == FAB_NIC_TX_PAUSE && p == -1);
	assert_true(fab_nic_map("bnxt_en", "tx_pfc_ena_frames_pri7", &c, &p) && c == FAB_NIC_TX_PAUSE && p == 7);
	assert_true(fab_nic_map("ice", "rx_priority_5_xoff.nic", &c, &p) && c == FAB_NIC_RX_PAUSE && p == 5);
	assert_true(fab_nic_map("netlink", "fec.uncorrectable_blocks", &c, &p) &&
		    c == FAB_NIC_FEC_UNCORRECTABLE && p == -1);
	assert_false(fab_nic_map("mlx5_core", "rx_prio8_pause", &c, &p));   /* priorities 0-7 */
	assert_false(fab_nic_map("mlx5_core", "rx_prio3_pausex", &c, &p));
	assert_false(fab_nic_map("bnxt_en", "rx_prio3_pause", &c, &p));     /* another driver's name */
	assert_false(fab_nic_map(NULL, "rx_discards_phy", &c, &p));
	/* the table: a priority pattern exactly for the per-priority counters' entries */
	for (size_t i = 0; i < n; i++) {
		bool pat = strstr(m[i].stat, "%u") != NULL;
		assert_true(!pat || fab_nic_ctr_per_prio(m[i].ctr));
		assert_int_equal(pat, m[i].prio == -2);
		assert_non_null(fab_nic_ctr_name(m[i].ctr));
		assert_int_equal(fab_nic_ctr_parse(fab_nic_ctr_name(m[i].ctr)), m[i].ctr);
	}
}

static struct fab_roce *one_port(void)
{
	struct fab_roce *r = fab_roce_new();
	struct fab_roce_system *s = fab_roce_add_system(r);
	s->name = fab_roce_strdup(r, "host1");
	struct fab_eth_port *p = fab_roce_add_eth_port(r, 0);
	p->ifname = fab_roce_strdup(r, "eth0");
	return r;
}

/* The real overloaded mlx5 recorded: what its numbers become; the
 * kernel's standard statistics come first and win. */
static void test_record(void **state)
{
	size_t len = 0;
	char *t = mfix_slurp("ethtool/mlx5_overload_k6.5.stats", &len);
	size_t n = fab_ethtool_parse_stats(t, len, stats, 4096);
	struct fab_roce *r = one_port();
	struct fab_ethtool_stat std[] = { { "pause.tx_frames", 44000000 },
					  { "eth-mac.FramesReceivedOK", 5 } };
	struct fab_nic_view v;

	(void)state;
	assert_int_equal(fab_ethtool_record(r, 0, "netlink", std, 2, 0, 1000), 0);
	assert_int_equal(fab_ethtool_record(r, 0, "mlx5_core", stats, n, 0, 1000), 0);
	fab_nic_view(r, 0, NULL, &v);
	assert_int_equal(v.value[FAB_NIC_TX_PAUSE][0], 44000000); /* netlink's, not tx_global_pause */
	assert_int_equal(v.value[FAB_NIC_RX_FRAMES][0], 5);
	assert_int_equal(v.value[FAB_NIC_RX_DISCARDS_PHY][0], 441063206498ull);
	assert_int_equal(v.value[FAB_NIC_RX_OUT_OF_BUFFER][0], 534918379ull);
	assert_int_equal(v.value[FAB_NIC_TX_PAUSE_DURATION][0], 5961284324ull);
	assert_true(v.have[FAB_NIC_TX_PAUSE][0] && !v.have[FAB_NIC_RX_PAUSE][4]);
	assert_false(v.any_inc);
	/* a second sample an hour later: increases; a counter that went down was cleared */
	struct fab_ethtool_stat later[] = { { "rx_discards_phy", 441063206498ull + 7200 },
					    { "rx_out_of_buffer", 100 } };
	assert_int_equal(fab_ethtool_record(r, 0, "mlx5_core", later, 2, 1, 3601000), 0);
	fab_nic_view(r, 0, NULL, &v);
	assert_true(v.any_inc && !v.baseline);
	assert_int_equal(v.inc[FAB_NIC_RX_DISCARDS_PHY][0], 7200);
	assert_false(v.reset[FAB_NIC_RX_DISCARDS_PHY][0]);
	assert_int_equal(v.inc[FAB_NIC_RX_OUT_OF_BUFFER][0], 100);
	assert_true(v.reset[FAB_NIC_RX_OUT_OF_BUFFER][0]);
	assert_true(v.secs == 3600.0);
	assert_false(v.have_inc[FAB_NIC_TX_PAUSE][0]); /* not read again */
	fab_roce_free(r);
	free(t);
}

/* ETHTOOL_MSG_STATS_GET_REPLY as the kernel lays it out: eth-phy with
 * SymbolErrorDuringCarrier, eth-mac with FramesReceivedOK and a stat of
 * its own number; then a PAUSE reply, a FEC reply and an error. */
static const uint8_t stats_reply[] = {
	L32(100), L16(30), L16(0), L32(7), L32(0), /* nlmsghdr: family id 30 */
	ETHTOOL_MSG_STATS_GET_REPLY, 1, L16(0),  /* genlmsghdr */
	L16(36), L16(0x8000 | 4),                 /* ETHTOOL_A_STATS_GRP */
	L16(8), L16(2), L32(0),                   /*   GRP_ID: eth-phy */
	L16(8), L16(3), L32(0),                   /*   GRP_SS_ID */
	L16(16), L16(0x8000 | 4),                 /*   GRP_STAT */
	L16(12), L16(0), L64(17),                 /*     SymbolErrorDuringCarrier = 17 */
	L16(44), L16(0x8000 | 4),                 /* ETHTOOL_A_STATS_GRP */
	L16(8), L16(2), L32(1),                   /*   GRP_ID: eth-mac */
	L16(16), L16(0x8000 | 4),                 /*   GRP_STAT */
	L16(12), L16(3), L64(123456789012ull),    /*     FramesReceivedOK */
	L16(16), L16(0x8000 | 4),                 /*   GRP_STAT */
	L16(12), L16(5), L64(9),                  /*     attribute 5: kept by number */
};

static void test_netlink(void **state)
{
	struct fab_ethtool_stat out[8];
	size_t n;
	uint8_t buf[sizeof(stats_reply)];

	(void)state;
	assert_int_equal(fab_ethtool_nl_parse_stats(stats_reply, sizeof(stats_reply), out, 8, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(out[0].name, "eth-phy.SymbolErrorDuringCarrier");
	assert_int_equal(out[0].value, 17);
	assert_string_equal(out[1].name, "eth-mac.FramesReceivedOK");
	assert_int_equal(out[1].value, 123456789012ull);
	assert_string_equal(out[2].name, "eth-mac.5");
	/* every truncation is refused or parses a prefix, never reads beyond */
	for (size_t cut = 0; cut < sizeof(stats_reply); cut++) {
		memcpy(buf, stats_reply, cut);
		int err = fab_ethtool_nl_parse_stats(buf, cut, out, 8, &n);
		assert_true(err == 0 || err == -EBADMSG);
	}
	/* a length field pointing beyond the message */
	memcpy(buf, stats_reply, sizeof(buf));
	buf[20] = 200;
	assert_int_equal(fab_ethtool_nl_parse_stats(buf, sizeof(buf), out, 8, &n), -EBADMSG);

	static const uint8_t pause[] = {
		L32(48), L16(30), L16(0), L32(8), L32(0), ETHTOOL_MSG_PAUSE_GET_REPLY, 1, L16(0),
		L16(28), L16(0x8000 | 5),          /* ETHTOOL_A_PAUSE_STATS */
		L16(12), L16(2), L64(1000),        /* TX_FRAMES */
		L16(12), L16(3), L64(2000),        /* RX_FRAMES */
	};
	assert_int_equal(fab_ethtool_nl_parse_stats(pause, sizeof(pause), out, 8, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[1].name, "pause.rx_frames");
	assert_int_equal(out[1].value, 2000);
	static const uint8_t fec[] = {
		L32(56), L16(30), L16(0), L32(9), L32(0), ETHTOOL_MSG_FEC_GET_REPLY, 1, L16(0),
		L16(36), L16(0x8000 | 5),          /* ETHTOOL_A_FEC_STATS */
		L16(20), L16(2), L64(77), L64(70), /* CORRECTED: total 77, lane 0 70 */
		L16(12), L16(3), L64(4),           /* UNCORR */
	};
	assert_int_equal(fab_ethtool_nl_parse_stats(fec, sizeof(fec), out, 8, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[0].name, "fec.corrected_blocks");
	assert_int_equal(out[0].value, 77);
	assert_int_equal(out[1].value, 4);
	static const uint8_t eopnotsupp[] = { L32(36), L16(2), L16(0), L32(10), L32(0),
					      L32(-95), L32(20), L16(0), L16(0), L32(0), L32(0) };
	assert_int_equal(fab_ethtool_nl_parse_stats(eopnotsupp, sizeof(eopnotsupp), out, 8, &n), -EOPNOTSUPP);
}

/* ETHTOOL_GSTRINGS: 32 bytes a name, not always NUL-terminated, any byte */
static void test_gstrings(void **state)
{
	uint8_t strings[3 * 32];
	uint64_t values[3] = { 1, 2, 3 };
	struct fab_ethtool_stat out[3];

	(void)state;
	memset(strings, 'a', sizeof(strings));               /* 32 bytes, no NUL */
	memcpy(strings + 32, "rx_\x1b[31m\xff" "drop", 14);    /* escape and 0xff */
	memset(strings + 64, 0, 32);                         /* empty: skipped */
	assert_int_equal(fab_ethtool_stats_zip(strings, 3, values, out, 3), 2);
	assert_int_equal(strlen(out[0].name), 32);
	assert_string_equal(out[1].name, "rx_[31mdrop");
	assert_int_equal(out[1].value, 2);
}

/* docs/roce.md's mapping table is the C table: every entry on its
 * canonical counter's row, under its driver's column ("N" for "%u"). */
static void test_table_documented(void **state)
{
	size_t n, len;
	const struct fab_nic_map_entry *t = fab_nic_map_table(&n);
	char *doc = mfix_slurp("../docs/roce.md", &len);
	static const char *const cols[] = { "mlx5_core", "bnxt_en", "ice", "netlink" };

	(void)state;
	assert_non_null(doc);
	for (size_t i = 0; i < n; i++) {
		char key[96], name[64], *row, *end;
		snprintf(key, sizeof(key), "\n| `%s` |", fab_nic_ctr_name(t[i].ctr));
		row = strstr(doc, key);
		if (!row)
			fail_msg("docs/roce.md has no row for %s", key + 1);
		end = strchr(row + 1, '\n');
		size_t k = 0, o = 0;
		for (const char *c = t[i].stat; *c && o < sizeof(name) - 3; c++)
			if (c[0] == '%' && c[1] == 'u')
				name[o++] = 'N', c++;
			else
				name[o++] = *c;
		name[o] = '\0';
		while (k < 4 && strcmp(cols[k], t[i].driver))
			k++;
		assert_true(k < 4);
		/* the cell of its column: from the (k + 2)th bar of the row on */
		char *cell = row + 1;
		for (size_t bar = 0; bar < k + 1 && cell; bar++)
			cell = strchr(cell + 1, '|');
		assert_non_null(cell);
		char *cell_end = strchr(cell + 1, '|');
		snprintf(key, sizeof(key), "`%s`", name);
		char *at = strstr(cell, key);
		if (!at || at > cell_end || at > end)
			fail_msg("docs/roce.md: %s is not under %s on the %s row", key, cols[k],
				 fab_nic_ctr_name(t[i].ctr));
	}
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_real), cmocka_unit_test(test_map),
		cmocka_unit_test(test_record),     cmocka_unit_test(test_netlink),
		cmocka_unit_test(test_gstrings),   cmocka_unit_test(test_table_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
