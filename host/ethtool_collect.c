// SPDX-License-Identifier: MIT
/*
 * The ethtool part of a collection: for each Ethernet port of the local
 * system, its driver, its statistics as NIC counters (the kernel's standard
 * ones over netlink first, then the driver's own through the mapping
 * table) and its module, decoded. From the kernel, or from a directory of
 * saved outputs (--ethtool-dir: DIR/<ifname>.info, .stats, .module).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ethtool_priv.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"

#define MAX_FILE (4 << 20)
#define MAX_STATS_TEXT 65536
#define MAX_NL_STATS 256

static void record_error(struct fab_snapshot *snap, const char *sys, const char *ifname,
			 const char *what, const char *msg)
{
	fab_snapshot_add_error(snap, 0, -1, "ethtool", "%s: %s of '%s': %s", sys, what, ifname, msg);
	snap->status = FAB_SCAN_PARTIAL;
}

/* ---- a saved output --------------------------------------------------------------- */

/* DIR/<ifname><ext> whole into *buf (malloc'd); -ENOENT when absent. */
static int read_saved(const char *dir, const char *ifname, const char *ext, char **buf, size_t *len)
{
	char path[PATH_MAX];
	struct stat sb;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s%s", dir, ifname, ext) >= sizeof(path))
		return -ENAMETOOLONG;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > MAX_FILE) {
		close(fd);
		return -EFBIG;
	}
	if (!(*buf = malloc((size_t)sb.st_size + 1))) {
		close(fd);
		return -ENOMEM;
	}
	ssize_t got = read(fd, *buf, (size_t)sb.st_size);
	close(fd);
	if (got != sb.st_size) {
		free(*buf);
		*buf = NULL;
		return -EIO;
	}
	(*buf)[got] = '\0';
	*len = (size_t)got;
	return 0;
}

/* "driver: mlx5_core" in `ethtool -i` text */
static void saved_driver(const char *text, char *driver, size_t cap)
{
	const char *p = strstr(text, "driver:");

	if (p && (p == text || p[-1] == '\n')) {
		p += 7;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \t\r\n");
		snprintf(driver, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
	}
}

static int saved_port(struct fab_roce *r, struct fab_snapshot *snap, uint32_t pi, const char *dir,
		      bool no_modules, int64_t now, struct fab_ethtool_stat *stats)
{
	struct fab_eth_port *p = &r->eth_ports[pi];
	const char *sys = r->systems[p->system_idx].name, *ifname = p->ifname;
	char driver[33] = "", *buf = NULL;
	size_t len;
	int err;

	if (!read_saved(dir, ifname, ".info", &buf, &len)) {
		saved_driver(buf, driver, sizeof(driver));
		free(buf);
		if (*driver)
			p->driver = fab_roce_strdup_safe(r, driver);
	}
	if (!(err = read_saved(dir, ifname, ".stats", &buf, &len))) {
		size_t n = fab_ethtool_parse_stats(buf, len, stats, MAX_STATS_TEXT);
		free(buf);
		if (n > MAX_STATS_TEXT)
			n = MAX_STATS_TEXT;
		p->stats_status = FAB_ETHTOOL_OK;
		if (*driver && (err = fab_ethtool_record(r, pi, driver, stats, n, 0, now)))
			return err;
	} else if (err != -ENOENT) {
		record_error(snap, sys, ifname, "saved statistics", strerror(-err));
	}
	p = &r->eth_ports[pi];
	if (no_modules)
		return 0;
	if ((err = read_saved(dir, ifname, ".module", &buf, &len))) {
		if (err != -ENOENT)
			record_error(snap, sys, ifname, "saved module dump", strerror(-err));
		return 0;
	}
	uint8_t raw[1024];
	struct fab_eeprom *e = malloc(sizeof(*e));
	struct fab_module_decoded *d = malloc(sizeof(*d));
	size_t rlen;
	if (!e || !d) {
		err = -ENOMEM;
	} else if (fab_ethtool_parse_eeprom((const uint8_t *)buf, len, raw, sizeof(raw), &rlen) ||
		   fab_eeprom_from_flat(raw, rlen, e)) {
		p->module_status = FAB_ETHTOOL_REFUSED;
		record_error(snap, sys, ifname, "saved module dump", fab_errmsg());
	} else {
		fab_module_decode(e, d);
		p->module_status = d->m.refused ? FAB_ETHTOOL_REFUSED : FAB_ETHTOOL_OK;
		err = fab_module_add_decoded(r, pi, d);
	}
	free(buf);
	free(e);
	free(d);
	return err;
}

/* ---- the kernel ------------------------------------------------------------------------ */

static int kernel_stats(struct fab_roce *r, struct fab_snapshot *snap, uint32_t pi,
			struct fab_ethtool_nl *nl, unsigned sample, struct fab_ethtool_stat *nls)
{
	struct fab_eth_port *p = &r->eth_ports[pi];
	const char *sys = r->systems[p->system_idx].name, *ifname = p->ifname;
	static const unsigned what[] = { ETHTOOL_MSG_STATS_GET, ETHTOOL_MSG_PAUSE_GET,
					 ETHTOOL_MSG_FEC_GET };
	struct fab_ethtool_stat *st = NULL;
	char driver[33] = "";
	int64_t now = fab_now_ms();
	bool ok = false;
	size_t n;
	int err;

	/* the kernel's standard statistics first: they win where a driver has the same */
	for (size_t k = 0; nl && k < ARRAY_SIZE(what); k++) {
		err = fab_ethtool_nl_stats(nl, ifname, what[k], nls, MAX_NL_STATS, &n);
		if (err == -ENOMEM)
			return err;
		if (err == -EOPNOTSUPP || err == -ENODEV)
			continue; /* this driver has none of these */
		if (err) {
			record_error(snap, sys, ifname, "netlink statistics", strerror(-err));
			continue;
		}
		ok = true;
		if ((err = fab_ethtool_record(r, pi, "netlink", nls, n < MAX_NL_STATS ? n : MAX_NL_STATS,
					      sample, now)))
			return err;
	}
	err = fab_ethtool_kernel_stats(ifname, driver, sizeof(driver), &st, &n);
	p = &r->eth_ports[pi];
	if (*driver && !p->driver)
		p->driver = fab_roce_strdup_safe(r, driver);
	if (err == -ENOMEM)
		return err;
	if (!err) {
		ok = true;
		err = fab_ethtool_record(r, pi, driver, st, n, sample, now);
		free(st);
		if (err)
			return err;
	} else if (err != -EOPNOTSUPP && err != -ENODEV) {
		record_error(snap, sys, ifname, "statistics", fab_errmsg());
		p->stats_status = FAB_ETHTOOL_ERROR;
		return 0;
	}
	p = &r->eth_ports[pi];
	if (!sample)
		p->stats_status = ok ? FAB_ETHTOOL_OK : FAB_ETHTOOL_UNSUPPORTED;
	return 0;
}

static int kernel_module(struct fab_roce *r, struct fab_snapshot *snap, uint32_t pi, int timeout_ms)
{
	struct fab_eth_port *p = &r->eth_ports[pi];
	struct fab_eeprom *e = malloc(sizeof(*e));
	struct fab_module_decoded *d = malloc(sizeof(*d));
	int err = 0, q;

	if (!e || !d) {
		free(e);
		free(d);
		return -ENOMEM;
	}
	q = fab_ethtool_kernel_module(p->ifname, timeout_ms, e);
	if (q == -EOPNOTSUPP) {
		p->module_status = FAB_ETHTOOL_UNSUPPORTED;
	} else if (q == -ENODEV || q == -EIO || q == -ENXIO || q == -EREMOTEIO) {
		p->module_status = FAB_ETHTOOL_NONE; /* an empty cage */
	} else if (q) {
		p->module_status = FAB_ETHTOOL_ERROR;
		record_error(snap, r->systems[p->system_idx].name, p->ifname, "module EEPROM",
			     q == -EBADMSG ? fab_errmsg() : strerror(-q));
	} else {
		fab_module_decode(e, d);
		p->module_status = d->m.refused ? FAB_ETHTOOL_REFUSED : FAB_ETHTOOL_OK;
		err = fab_module_add_decoded(r, pi, d);
	}
	free(e);
	free(d);
	return err;
}

static bool wanted(const struct fab_roce *r, uint32_t sys, uint32_t i, const struct fab_ethtool_opts *o)
{
	const struct fab_eth_port *p = &r->eth_ports[i];

	return p->system_idx == sys && (p->flags & FAB_ETH_F_SYSFS) && p->ifname &&
	       strcmp(p->ifname, "lo") && (!o->roce_only || fab_roce_is_roce_iface(r, i));
}

int fab_roce_collect_ethtool(struct fab_roce *r, struct fab_snapshot *snap, uint32_t system_idx,
			     const struct fab_ethtool_opts *o)
{
	struct fab_ethtool_nl nl, *nlp = NULL;
	struct fab_ethtool_stat *buf;
	int err = 0;

	if (o->dir) {
		if (!(buf = malloc(MAX_STATS_TEXT * sizeof(*buf))))
			return -ENOMEM;
		int64_t now = fab_now_ms();
		for (size_t i = 0; !err && i < r->n_eth_ports; i++)
			if (wanted(r, system_idx, (uint32_t)i, o))
				err = saved_port(r, snap, (uint32_t)i, o->dir, o->no_modules, now, buf);
		free(buf);
		return err;
	}
	if (!(buf = malloc(MAX_NL_STATS * sizeof(*buf))))
		return -ENOMEM;
	if (!fab_ethtool_nl_open(&nl, o->timeout_ms))
		nlp = &nl;
	for (unsigned sample = 0; !err && sample < (o->interval_ms > 0 ? 2u : 1u); sample++) {
		if (sample) {
			struct timespec ts = { o->interval_ms / 1000, (o->interval_ms % 1000) * 1000000L };
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
		for (size_t i = 0; !err && i < r->n_eth_ports; i++)
			if (wanted(r, system_idx, (uint32_t)i, o))
				err = kernel_stats(r, snap, (uint32_t)i, nlp, sample, buf);
	}
	/* the second sample's counters came after every port's first */
	if (!err && o->interval_ms > 0)
		err = fab_roce_group_nic_counters(r);
	for (size_t i = 0; !err && !o->no_modules && i < r->n_eth_ports; i++)
		if (wanted(r, system_idx, (uint32_t)i, o))
			err = kernel_module(r, snap, (uint32_t)i, o->timeout_ms);
	if (nlp)
		fab_ethtool_nl_close(nlp);
	free(buf);
	return err;
}
