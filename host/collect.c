// SPDX-License-Identifier: MIT
/*
 * The local machine's RoCE view: lldpd (one system per control socket),
 * then sysfs and DCB for the local system, then resolution of neighbours
 * into links and roles.
 */
#include <errno.h>
#include <limits.h>
#include <lldpctl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/ethtool.h"
#include "fabsweep/names.h"
#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"

__attribute__((format(printf, 2, 3)))
static void note(const struct fab_roce_opts *o, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	if (!o->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->note(msg, o->note_ctx);
}

static bool real_sysfs(const char *root)
{
	char real[PATH_MAX];

	return !root || (realpath(root, real) && !strcmp(real, "/sys"));
}

int fab_roce_collect(const struct fab_roce_opts *o, struct fab_snapshot *snap)
{
	struct fab_roce *r = fab_snapshot_roce(snap);
	const char *deflt = lldpctl_get_default_transport();
	const char *const *socks = o->n_lldp_sockets ? o->lldp_sockets : &deflt;
	size_t n_socks = o->n_lldp_sockets ? o->n_lldp_sockets : 1;
	uint32_t local = FAB_NONE, last = FAB_NONE;
	size_t answered = 0;
	char host[256] = "";
	int err;

	if (!r)
		return fab_err(-ENOMEM, "out of memory");
	gethostname(host, sizeof(host) - 1);
	if (!*host)
		snprintf(host, sizeof(host), "localhost");

	for (size_t i = 0; i < n_socks; i++) {
		uint32_t si;

		err = fab_roce_collect_lldp(r, snap, socks[i], o->timeout_ms, &si);
		if (err == -ENOMEM)
			return err;
		if (!err) {
			answered++;
			last = si;
			r->systems[si].hostname = fab_roce_strdup_safe(r, host);
			continue;
		}
		if (!o->n_lldp_sockets && (err == -ENOENT || err == -ECONNREFUSED)) {
			note(o, "lldpd is not running here (no '%s'): no LLDP data; the system is named after this host",
			     socks[i]);
			continue;
		}
		fab_snapshot_add_error(snap, 0, -1, "lldp", "%s", fab_errmsg());
		snap->status = FAB_SCAN_PARTIAL;
	}

	if (answered == 1) {
		local = last;
	} else {
		for (size_t i = 0; i < r->n_systems && local == FAB_NONE; i++)
			if (r->systems[i].lldp && fab_roce_same_host(r->systems[i].name, host))
				local = (uint32_t)i;
	}
	if (local == FAB_NONE) {
		struct fab_roce_system *s = fab_roce_add_system(r);
		if (!s)
			return fab_err(-ENOMEM, "out of memory");
		s->name = fab_roce_strdup_safe(r, host);
		s->hostname = s->name;
		s->source = fab_roce_strdup(r, "host");
		s->collected = true;
		s->collected_at_ms = fab_now_ms();
		local = (uint32_t)r->n_systems - 1;
	}
	if ((err = fab_roce_collect_sysfs(r, snap, local, o->sysfs_root)))
		return fab_err(err, "out of memory");
	if (o->dcb_dir && !o->no_dcb) {
		if ((err = fab_roce_collect_dcb_dir(r, snap, local, o->dcb_dir)))
			return fab_err(err, "out of memory");
	} else if (!o->no_dcb && real_sysfs(o->sysfs_root)) {
		if ((err = fab_roce_collect_dcb(r, snap, local, o->timeout_ms)))
			return fab_err(err, "out of memory");
	} else if (!o->no_dcb) {
		note(o, "DCB not queried: --sysfs-root '%s' is not this machine's sysfs",
		     o->sysfs_root);
	}
	if (!o->no_ethtool && (o->ethtool_dir || real_sysfs(o->sysfs_root))) {
		struct fab_ethtool_opts eo = { .dir = o->ethtool_dir, .timeout_ms = o->timeout_ms,
					       .interval_ms = o->interval_ms, .no_modules = o->no_modules,
					       .roce_only = o->ethtool_roce_only };
		if ((err = fab_roce_collect_ethtool(r, snap, local, &eo)))
			return fab_err(err, "out of memory");
	} else if (!o->no_ethtool) {
		note(o, "ethtool not queried: --sysfs-root '%s' is not this machine's sysfs (--ethtool-dir reads saved outputs)",
		     o->sysfs_root);
	}
	if ((err = fab_roce_resolve(r)))
		return fab_err(err, "out of memory");
	return 0;
}
