// SPDX-License-Identifier: MIT
/*
 * What fabsweep's kernel path reads of one interface, printed for
 * tests/integration/test_ethtool_veth.sh to compare with `ethtool -i`,
 * `ethtool -S` and `ethtool -m`: "driver: NAME", then one "name: value"
 * line per ETHTOOL_GSTRINGS / GSTATS statistic (`ethtool -S`'s order), then
 * "netlink GROUP: N statistics" for the netlink requests (or its errno
 * name), then "module: ..." (the decoder's verdict or the errno name).
 *   ethtool_read IFNAME
 */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/ethtool.h"
#include "host/ethtool_priv.h"

static const char *err_name(int err)
{
	switch (err) {
	case -EOPNOTSUPP: return "EOPNOTSUPP";
	case -ENODEV: return "ENODEV";
	case -EIO: return "EIO";
	default: return strerror(-err);
	}
}

int main(int argc, char **argv)
{
	static const struct { unsigned msg; const char *name; } nl_what[] = {
		{ ETHTOOL_MSG_STATS_GET, "stats" },
		{ ETHTOOL_MSG_PAUSE_GET, "pause" },
		{ ETHTOOL_MSG_FEC_GET, "fec" },
	};
	struct fab_ethtool_stat *st = NULL, nls[256];
	struct fab_ethtool_nl nl;
	struct fab_eeprom e;
	char driver[64] = "";
	size_t n = 0;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: ethtool_read IFNAME\n");
		return 2;
	}
	err = fab_ethtool_kernel_stats(argv[1], driver, sizeof(driver), &st, &n);
	printf("driver: %s\n", driver);
	if (err)
		printf("statistics: %s\n", err_name(err));
	for (size_t i = 0; i < n; i++)
		printf("%s: %llu\n", st[i].name, (unsigned long long)st[i].value);
	free(st);
	if ((err = fab_ethtool_nl_open(&nl, 5000))) {
		printf("netlink: %s\n", err_name(err));
	} else {
		for (size_t k = 0; k < sizeof(nl_what) / sizeof(nl_what[0]); k++) {
			err = fab_ethtool_nl_stats(&nl, argv[1], nl_what[k].msg, nls, 256, &n);
			if (err)
				printf("netlink %s: %s\n", nl_what[k].name, err_name(err));
			else
				printf("netlink %s: %zu statistics\n", nl_what[k].name, n);
		}
		fab_ethtool_nl_close(&nl);
	}
	err = fab_ethtool_kernel_module(argv[1], 5000, &e);
	printf("module: %s\n", err ? err_name(err) : "read");
	return 0;
}
