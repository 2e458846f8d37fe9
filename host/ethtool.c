// SPDX-License-Identifier: MIT
/*
 * NIC statistics and pluggable modules of the local system's Ethernet
 * ports (collect): from the kernel (ioctl ETHTOOL_GDRVINFO, GSSET_INFO,
 * GSTRINGS, GSTATS, GMODULEINFO, GMODULEEEPROM; the netlink side is
 * ethtool_nl.c) or from saved `ethtool -S` / `-m` / `-i` outputs
 * (--ethtool-dir). What a driver does not do ("not supported", "no module")
 * is a status, not a failure.
 */
#include <errno.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ethtool_priv.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"

#define MAX_STATS 65536 /* a ConnectX with 256 channels has about 20,000 */
#define MAX_NL_STATS 256

/* ---- ioctl --------------------------------------------------------------------- */

static int ioctl_cmd(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENODEV;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static int open_ctl(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

int fab_ethtool_kernel_stats(const char *ifname, char *driver, size_t driver_cap,
			     struct fab_ethtool_stat **out, size_t *n)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct {
		struct ethtool_sset_info hdr;
		uint32_t count;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_STATS } };
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *st = NULL;
	uint32_t count;
	int fd = open_ctl(), err;

	*out = NULL;
	*n = 0;
	if (fd < 0)
		return fab_err(fd, "ethtool socket: %s", strerror(-fd));
	if ((err = ioctl_cmd(fd, ifname, &info)))
		goto out;
	if (driver_cap) {
		info.driver[sizeof(info.driver) - 1] = '\0';
		snprintf(driver, driver_cap, "%s", info.driver);
	}
	count = !ioctl_cmd(fd, ifname, &sset) && sset.hdr.sset_mask ? sset.count : info.n_stats;
	if (!count) {
		err = -EOPNOTSUPP;
		goto out;
	}
	if (count > MAX_STATS) {
		err = fab_err(-E2BIG, "'%s' has %u statistics (at most %d)", ifname, count, MAX_STATS);
		goto out;
	}
	gs = calloc(1, sizeof(*gs) + (size_t)count * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)count * sizeof(uint64_t));
	*out = malloc((size_t)count * sizeof(**out));
	if (!gs || !st || !*out) {
		err = -ENOMEM;
		goto out;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = count;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = count;
	if ((err = ioctl_cmd(fd, ifname, gs)) || (err = ioctl_cmd(fd, ifname, st)))
		goto out;
	/* a driver that changed its count in between answers with fewer */
	uint32_t have = gs->len < st->n_stats ? gs->len : st->n_stats;
	*n = fab_ethtool_stats_zip(gs->data, have < count ? have : count,
				   (const uint64_t *)st->data, *out, count);
out:
	if (err && err != -EOPNOTSUPP && err != -ENOMEM && err != -E2BIG)
		fab_err(err, "ethtool statistics of '%s': %s", ifname, strerror(-err));
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	free(gs);
	free(st);
	close(fd);
	return err;
}

/* The whole memory through the legacy ioctls (kernels without netlink). */
static int ioctl_module(const char *ifname, struct fab_eeprom *e)
{
	struct ethtool_modinfo mi = { .cmd = ETHTOOL_GMODULEINFO };
	struct {
		struct ethtool_eeprom hdr;
		uint8_t data[768];
	} ee;
	int fd = open_ctl(), err;

	if (fd < 0)
		return fd;
	if (!(err = ioctl_cmd(fd, ifname, &mi))) {
		memset(&ee, 0, sizeof(ee));
		ee.hdr.cmd = ETHTOOL_GMODULEEEPROM;
		ee.hdr.len = mi.eeprom_len < sizeof(ee.data) ? mi.eeprom_len : sizeof(ee.data);
		if (!(err = ioctl_cmd(fd, ifname, &ee)))
			err = fab_eeprom_from_flat(ee.data, ee.hdr.len, e);
	}
	close(fd);
	return err;
}

/* Reads a page into e (upper pages: offset 128). */
static int nl_page(struct fab_ethtool_nl *nl, const char *ifname, unsigned page, bool lower,
		   unsigned i2c, uint8_t *dst)
{
	uint8_t buf[FAB_EEPROM_PAGE];
	size_t len;
	int err = fab_ethtool_nl_eeprom(nl, ifname, page, lower ? 0 : FAB_EEPROM_PAGE, i2c, buf,
					sizeof(buf), &len);

	if (!err && len != FAB_EEPROM_PAGE)
		err = -EBADMSG;
	if (!err)
		memcpy(dst, buf, FAB_EEPROM_PAGE);
	return err;
}

static int nl_module(struct fab_ethtool_nl *nl, const char *ifname, struct fab_eeprom *e)
{
	int err;

	memset(e, 0, sizeof(*e));
	if ((err = nl_page(nl, ifname, 0, true, 0x50, e->lower)))
		return err;
	e->have_lower = true;
	if ((err = nl_page(nl, ifname, 0, false, 0x50, e->upper[0])))
		return err == -EINVAL ? 0 : err; /* a module with the lower page only */
	e->have[0] = true;
	unsigned id = e->lower[0];
	if (id == 0x03 || id == 0x0b) { /* SFP: diagnostics at 0x51 when implemented */
		if (e->lower[92] & 0x40 &&
		    !nl_page(nl, ifname, 0, true, 0x51, e->a2) &&
		    !nl_page(nl, ifname, 0, false, 0x51, e->a2 + FAB_EEPROM_PAGE))
			e->have_a2 = true;
		return 0;
	}
	if (id == 0x0c || id == 0x0d || id == 0x11) { /* SFF-8636: thresholds on page 03h */
		if (!(e->lower[2] & 0x04) && !nl_page(nl, ifname, 3, false, 0x50, e->upper[3]))
			e->have[3] = true;
		return 0;
	}
	if (!(e->lower[2] & 0x80)) { /* CMIS, paged: advertising, thresholds, lanes */
		static const unsigned pages[] = { 0x01, 0x02, 0x11 };
		for (size_t i = 0; i < ARRAY_SIZE(pages); i++)
			if (!nl_page(nl, ifname, pages[i], false, 0x50, e->upper[pages[i]]))
				e->have[pages[i]] = true;
	}
	return 0;
}

int fab_ethtool_kernel_module(const char *ifname, int timeout_ms, struct fab_eeprom *out)
{
	struct fab_ethtool_nl nl;
	int err = fab_ethtool_nl_open(&nl, timeout_ms);

	if (!err) {
		err = nl_module(&nl, ifname, out);
		fab_ethtool_nl_close(&nl);
	}
	if (err == -ENOENT || err == -EPROTONOSUPPORT) /* no ethtool netlink here */
		err = ioctl_module(ifname, out);
	return err;
}
