// SPDX-License-Identifier: MIT
/*
 * Host DCB configuration over rtnetlink: RTM_GETDCB with DCB_CMD_IEEE_GET
 * per interface, the way iproute2's `dcb` asks. The reply nests
 * DCB_ATTR_IEEE_{ETS,PFC,APP_TABLE} under DCB_ATTR_IEEE, plus DCB_ATTR_DCBX.
 * Interfaces without dcbnl_ops (veth, lo, most virtual devices) answer
 * EOPNOTSUPP: recorded as "unsupported", not an error.
 *
 * The parser is pure and checks every length against the bytes it has
 * (tests feed it captured and mangled replies).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nlattr.h"
#include "fabsweep/names.h"
#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"

#define DCBHDR 4   /* struct dcbmsg */

/* Offsets in struct ieee_ets and struct dcb_app (uapi, stable). */
enum {
	ETS_WILLING = 0, ETS_CAP = 1, ETS_CBS = 2, ETS_TX_BW = 3, ETS_RX_BW = 11,
	ETS_TSA = 19, ETS_PRIO_TC = 27, ETS_MIN = 35,
};




static int on_app(unsigned type, const uint8_t *v, size_t vlen, void *ctx)
{
	struct fab_dcb_info *out = ctx;

	if (type != DCB_ATTR_IEEE_APP)
		return 0; /* DCB_ATTR_DCB_APP (PCP) and later additions */
	if (vlen < 4)
		return -EBADMSG;
	uint8_t sel = v[0], prio = v[1];
	if (sel > 7 || prio > 7)
		return 0; /* not an 802.1Qaz entry */
	if (out->n_apps == FAB_DCB_MAX_APPS) {
		out->apps_truncated = true;
		return 0;
	}
	out->apps[out->n_apps++] = (struct fab_app_entry){
		.selector = sel, .priority = prio, .protocol = fab_nl_get16(v + 2) };
	return 0;
}

static int on_ieee(unsigned type, const uint8_t *v, size_t vlen, void *ctx)
{
	struct fab_dcb_info *out = ctx;

	switch (type) {
	case DCB_ATTR_IEEE_ETS: {
		if (vlen < ETS_MIN)
			return -EBADMSG;
		struct fab_ets e = { .valid = true, .willing = v[ETS_WILLING] != 0,
				     .cbs = v[ETS_CBS] != 0, .max_tcs = v[ETS_CAP] };
		memcpy(e.tc_bw, v + ETS_TX_BW, FAB_PRIOS);
		memcpy(e.tsa, v + ETS_TSA, FAB_PRIOS);
		memcpy(e.prio_tc, v + ETS_PRIO_TC, FAB_PRIOS);
		out->ets = e;
		return 0;
	}
	case DCB_ATTR_IEEE_PFC:
		if (vlen < 2)
			return -EBADMSG;
		out->pfc = (struct fab_pfc){ .valid = true, .cap = v[0], .enabled = v[1],
					     .mbc = vlen > 2 && v[2] };
		return 0;
	case DCB_ATTR_IEEE_APP_TABLE:
		out->app_table = true;
		return fab_nl_walk(v, vlen, on_app, out);
	default:
		return 0; /* peer views, maxrate, QCN, buffers: not collected */
	}
}

static int on_top(unsigned type, const uint8_t *v, size_t vlen, void *ctx)
{
	struct fab_dcb_info *out = ctx;

	switch (type) {
	case DCB_ATTR_IFNAME: {
		size_t n = strnlen((const char *)v, vlen);
		if (n >= sizeof(out->ifname))
			return -EBADMSG;
		memcpy(out->ifname, v, n);
		out->ifname[n] = '\0';
		return 0;
	}
	case DCB_ATTR_IEEE:
		return fab_nl_walk(v, vlen, on_ieee, out);
	case DCB_ATTR_DCBX:
		if (vlen < 1)
			return -EBADMSG;
		out->dcbx_mode = v[0];
		return 0;
	default:
		return 0;
	}
}

int fab_dcb_parse_reply(const uint8_t *msg, size_t len, struct fab_dcb_info *out)
{
	struct fab_dcb_info info;
	int err;

	memset(&info, 0, sizeof(info));
	info.dcbx_mode = -1;
	uint16_t type;
	size_t mlen;
	int kerr;
	if ((err = fab_nl_message(msg, len, &type, &mlen, &kerr)))
		return err;
	if (kerr) { /* the kernel's error: the reply says so */
		info.error = kerr;
		*out = info;
		return 0;
	}
	if (type != RTM_GETDCB || mlen < FAB_NL_HDR + DCBHDR || msg[FAB_NL_HDR + 1] != DCB_CMD_IEEE_GET)
		return -EBADMSG;
	if ((err = fab_nl_walk(msg + FAB_NL_HDR + DCBHDR, mlen - FAB_NL_HDR - DCBHDR, on_top, &info)))
		return err;
	*out = info;
	return 0;
}

int fab_dcb_build_request(const char *ifname, uint32_t seq, uint8_t *buf, size_t cap)
{
	size_t nlen = ifname ? strlen(ifname) + 1 : 0;
	size_t alen = FAB_NL_ATTRHDR + nlen;
	size_t total = FAB_NL_HDR + DCBHDR + FAB_NL_ALIGN4(alen);

	if (!ifname || nlen < 2 || nlen > 16 || total > cap)
		return -EINVAL;
	memset(buf, 0, total);
	uint32_t l32 = (uint32_t)total, s32 = seq;
	uint16_t t16 = RTM_GETDCB, f16 = NLM_F_REQUEST;
	memcpy(buf, &l32, 4);
	memcpy(buf + 4, &t16, 2);
	memcpy(buf + 6, &f16, 2);
	memcpy(buf + 8, &s32, 4);
	buf[FAB_NL_HDR] = AF_UNSPEC;
	buf[FAB_NL_HDR + 1] = DCB_CMD_IEEE_GET;
	uint16_t a16 = (uint16_t)alen, at16 = DCB_ATTR_IFNAME;
	memcpy(buf + FAB_NL_HDR + DCBHDR, &a16, 2);
	memcpy(buf + FAB_NL_HDR + DCBHDR + 2, &at16, 2);
	memcpy(buf + FAB_NL_HDR + DCBHDR + FAB_NL_ATTRHDR, ifname, nlen);
	return (int)total;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One request/reply; 0 with *out filled, or a negative errno. */
static int query(int fd, const char *ifname, uint32_t seq, int timeout_ms,
		 uint8_t *buf, size_t cap, struct fab_dcb_info *out)
{
	int len = fab_dcb_build_request(ifname, seq, buf, cap);
	int64_t deadline = mono_ms() + timeout_ms;

	if (len < 0)
		return len;
	if (send(fd, buf, (size_t)len, 0) != len)
		return -errno;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - mono_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		int pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return pr == 0 ? -ETIMEDOUT : -errno;
		ssize_t n = recv(fd, buf, cap, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		/* several messages may share a datagram: find ours */
		size_t off = 0;
		while (off + FAB_NL_HDR <= (size_t)n) {
			uint32_t mlen = fab_nl_get32(buf + off);
			if (mlen < FAB_NL_HDR || mlen > (size_t)n - off)
				return -EBADMSG;
			if (fab_nl_get32(buf + off + 8) == seq)
				return fab_dcb_parse_reply(buf + off, mlen, out);
			off += FAB_NL_ALIGN4(mlen);
		}
	}
}

/* What one answer says about port i (q: 0, or the query's error): its DCB
 * status and, when the NIC answered, its PFC, ETS and application table.
 * 0 or -ENOMEM. */
static int apply(struct fab_roce *r, struct fab_snapshot *snap, uint32_t system_idx, size_t i,
		 int q, const struct fab_dcb_info *info)
{
	struct fab_eth_port *p = &r->eth_ports[i];
	int err;

	if (!q && info->error)
		q = info->error;
	if (q == -EOPNOTSUPP || q == -ENODEV || q == -EINVAL) {
		/* no dcbnl_ops; ENODEV: gone meanwhile; EINVAL: name too long */
		p->dcb_status = FAB_DCB_UNSUPPORTED;
		return 0;
	}
	if (q) {
		p->dcb_status = FAB_DCB_FAILED;
		fab_snapshot_add_error(snap, 0, -1, "dcb", "%s: DCB of '%s': %s",
				       r->systems[system_idx].name, p->ifname, strerror(-q));
		snap->status = FAB_SCAN_PARTIAL;
		return 0;
	}
	struct fab_dcbx d;
	memset(&d, 0, sizeof(d));
	d.pfc = info->pfc;
	d.ets = info->ets;
	d.app_valid = info->app_table;
	d.app_count = (uint32_t)info->n_apps;
	if ((err = fab_roce_add_apps(r, info->apps, info->n_apps, &d.app_first)))
		return err;
	p = &r->eth_ports[i];
	p->dcb = d;
	p->dcb_status = FAB_DCB_OK;
	p->dcbx_mode = (int16_t)info->dcbx_mode;
	return 0;
}

/* The system's interfaces that DCB is asked about: those sysfs shows. */
static bool dcb_port(const struct fab_eth_port *p, uint32_t system_idx)
{
	return p->system_idx == system_idx && (p->flags & FAB_ETH_F_SYSFS) && p->ifname;
}

int fab_roce_collect_dcb(struct fab_roce *r, struct fab_snapshot *snap,
			 uint32_t system_idx, int timeout_ms)
{
	const size_t cap = 65536;
	uint8_t *buf = malloc(cap);
	struct fab_dcb_info *info = malloc(sizeof(*info));
	uint32_t seq = (uint32_t)time(NULL);
	int fd, err = 0;

	if (!buf || !info) {
		free(buf);
		free(info);
		return -ENOMEM;
	}
	if (timeout_ms <= 0)
		timeout_ms = FAB_ROCE_DEFAULT_TIMEOUT_MS;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		fab_snapshot_add_error(snap, 0, -1, "dcb", "%s: rtnetlink socket: %s",
				       r->systems[system_idx].name, strerror(errno));
		snap->status = FAB_SCAN_PARTIAL;
		free(buf);
		free(info);
		return 0;
	}
	for (size_t i = 0; i < r->n_eth_ports && !err; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];

		if (dcb_port(p, system_idx))
			err = apply(r, snap, system_idx, i,
				    query(fd, p->ifname, ++seq, timeout_ms, buf, cap, info), info);
	}
	close(fd);
	free(buf);
	free(info);
	return err;
}

/* Reads up to cap bytes of path into buf: the length, or a negative errno. */
static ssize_t read_reply(const char *path, uint8_t *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	size_t n = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	while (n < cap) {
		ssize_t k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	return (ssize_t)n;
}

int fab_roce_collect_dcb_dir(struct fab_roce *r, struct fab_snapshot *snap,
			     uint32_t system_idx, const char *dir)
{
	const size_t cap = 65536;
	uint8_t *buf = malloc(cap);
	struct fab_dcb_info *info = malloc(sizeof(*info));
	char path[4096];
	int err = 0;

	if (!buf || !info) {
		free(buf);
		free(info);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_eth_ports && !err; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];
		const char *sys = r->systems[system_idx].name;

		if (!dcb_port(p, system_idx) || strchr(p->ifname, '/') || p->ifname[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s.bin", dir, p->ifname) >= sizeof(path))
			continue;
		ssize_t n = read_reply(path, buf, cap);
		if (n == -ENOENT)
			continue; /* no saved answer: not asked */
		int q = n < 0 ? (int)n : fab_dcb_parse_reply(buf, (size_t)n, info);
		if (q == -EBADMSG || (!q && !info->error && info->ifname[0] &&
				      strcmp(info->ifname, p->ifname))) {
			fab_snapshot_add_error(snap, 0, -1, "dcb", "%s: '%s' is not a DCB_CMD_IEEE_GET reply for '%s'",
					       sys, path, p->ifname);
			snap->status = FAB_SCAN_PARTIAL;
			r->eth_ports[i].dcb_status = FAB_DCB_FAILED;
			continue;
		}
		if (n < 0) {
			fab_snapshot_add_error(snap, 0, -1, "dcb", "%s: cannot read '%s': %s", sys, path,
					       strerror((int)-n));
			snap->status = FAB_SCAN_PARTIAL;
			r->eth_ports[i].dcb_status = FAB_DCB_FAILED;
			continue;
		}
		err = apply(r, snap, system_idx, i, q, info);
	}
	free(buf);
	free(info);
	return err;
}
