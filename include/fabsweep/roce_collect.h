/* SPDX-License-Identifier: MIT */
/*
 * Collecting the RoCE / Ethernet part of a snapshot (the model:
 * fabsweep/roce.h) from the local machine: its lldpd sockets, sysfs, and
 * DCB over rtnetlink (host/collect.c, lldp.c, sysfs.c,
 * dcb.c). docs/roce.md.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/roce.h"

struct fab_snapshot;

struct fab_roce_opts {
	const char *const *lldp_sockets; /* NULL/0: lldpd's default socket */
	size_t n_lldp_sockets;
	const char *sysfs_root; /* NULL: "/sys" (and DCB is queried) */
	int timeout_ms;         /* per lldpd / netlink exchange; 0: default 5000 */
	bool no_dcb;            /* do not query rtnetlink DCB */
	/* DCB from saved replies instead of the kernel (fab_roce_collect_dcb_dir);
	 * NULL: the kernel, when sysfs is this machine's */
	const char *dcb_dir;
	/* ethtool (include/fabsweep/ethtool.h): saved outputs instead of the
	 * kernel (NULL: the kernel, when sysfs is this machine's); none at all;
	 * no module EEPROMs; only the RoCE interfaces (fab_roce_is_roce_iface:
	 * ready --local); a second statistics sample after interval_ms. */
	const char *ethtool_dir;
	bool no_ethtool, no_modules, ethtool_roce_only;
	int interval_ms;
	/* Notes for the user (may be NULL): things skipped, not errors. */
	void (*note)(const char *msg, void *ctx);
	void *note_ctx;
};

#define FAB_ROCE_DEFAULT_TIMEOUT_MS 5000

/*
 * Collects the local machine's view into snap->roce: each lldpd socket
 * (its system, its interfaces, their neighbours, the custom TLVs it sends
 * and hears), then sysfs and DCB, attached to the local system: the one
 * lldpd system when a single socket answered, else the system named like
 * this host, else a new system named after the host. A socket that does
 * not answer, a sysfs file that cannot be read, a DCB query that fails are
 * recorded in snap->errors (what "lldp", "sysfs", "dcb"); the default
 * socket missing is only a note. Sets snap->status to FAB_SCAN_PARTIAL when
 * something was missed. Returns a negative errno only on ENOMEM.
 */
int fab_roce_collect(const struct fab_roce_opts *o, struct fab_snapshot *snap);

/* One lldpd: adds its system (and everything it knows); *out = its index. */
int fab_roce_collect_lldp(struct fab_roce *r, struct fab_snapshot *snap,
			  const char *socket_path, int timeout_ms, uint32_t *out);
/* sysfs under root ("/sys" or a fixture tree) for one system: interfaces
 * with their ECN settings (class/net/<netdev>/ecn; none: unknown), RDMA
 * devices, ports and counters. */
int fab_roce_collect_sysfs(struct fab_roce *r, struct fab_snapshot *snap,
			   uint32_t system_idx, const char *root);
/* DCB of the system's sysfs interfaces over rtnetlink (current netns). */
int fab_roce_collect_dcb(struct fab_roce *r, struct fab_snapshot *snap,
			 uint32_t system_idx, int timeout_ms);
/*
 * The same from saved replies: dir/<ifname>.bin holds one netlink reply to
 * RTM_GETDCB / DCB_CMD_IEEE_GET for that interface, as the kernel sends it
 * (fixtures/dcb/; an NLMSG_ERROR reply too). An interface without a file is
 * not asked (its DCB stays unknown); a file that is no such reply, or a
 * reply naming another interface, is a scan error ("dcb"). For machines
 * whose NICs cannot be asked where the check runs (tests in network
 * namespaces: veth has no DCB), and for replies captured elsewhere.
 */
int fab_roce_collect_dcb_dir(struct fab_roce *r, struct fab_snapshot *snap,
			     uint32_t system_idx, const char *dir);
/* Whether root ("/sys" when NULL) shows an InfiniBand device. */
bool fab_roce_have_ib_devices(const char *root);

/*
 * rtnetlink DCB: what one RTM_GETDCB / DCB_CMD_IEEE_GET reply says.
 */
struct fab_dcb_info {
	int error;          /* 0, or the negative errno of an NLMSG_ERROR reply */
	char ifname[16];    /* DCB_ATTR_IFNAME, "" if absent */
	struct fab_pfc pfc;
	struct fab_ets ets;
	struct fab_app_entry apps[FAB_DCB_MAX_APPS];
	size_t n_apps;
	bool apps_truncated; /* more than FAB_DCB_MAX_APPS entries */
	bool app_table;      /* DCB_ATTR_IEEE_APP_TABLE was present */
	int dcbx_mode;       /* DCB_ATTR_DCBX, -1 when absent */
};
/*
 * Parses one netlink reply (nlmsghdr included) to DCB_CMD_IEEE_GET. Pure and
 * bounds-checked. Returns 0 when out describes the reply (out->error set
 * for an NLMSG_ERROR), -EBADMSG when the bytes are malformed or not such a
 * reply.
 */
int fab_dcb_parse_reply(const uint8_t *msg, size_t len, struct fab_dcb_info *out);
/* Builds the request for ifname into buf; returns its length or -EINVAL. */
int fab_dcb_build_request(const char *ifname, uint32_t seq, uint8_t *buf,
			  size_t cap);
