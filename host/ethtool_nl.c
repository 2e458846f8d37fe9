// SPDX-License-Identifier: MIT
/*
 * The kernel's ethtool netlink interface (generic netlink family
 * "ethtool"): the standard statistics groups (ETHTOOL_MSG_STATS_GET), pause
 * and FEC statistics (PAUSE_GET, FEC_GET with ETHTOOL_FLAG_STATS) and module
 * EEPROM pages (MODULE_EEPROM_GET). The reply parser is pure and checks
 * every length (fuzz/fuzz_ethtool.c feeds it); the socket side answers
 * -EOPNOTSUPP for what a driver does not do, which the caller records as
 * unsupported, not as a failure.
 */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ethtool_priv.h"
#include "nlattr.h"
#include "fabsweep/error.h"

#define GENLHDR 4





/* ---- parsing replies -------------------------------------------------------- */

struct stats_ctx {
	struct fab_ethtool_stat *out;
	size_t cap, n;
	unsigned group; /* the group of the GRP being walked */
	const char *prefix;
	const char *const *names; /* names of the attributes of the nest being walked */
	size_t n_names;
};

static void put(struct stats_ctx *c, const char *prefix, const char *name, uint64_t v)
{
	if (c->n < c->cap) {
		snprintf(c->out[c->n].name, sizeof(c->out[c->n].name), "%s.%s", prefix, name);
		c->out[c->n].value = v;
	}
	c->n++;
}

/* IEEE 802.3 names of the attributes fabsweep maps (the others are kept
 * under their number: "eth-mac.7"). */
static const char *const phy_names[] = { [ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR] = "SymbolErrorDuringCarrier" };
static const char *const mac_names[] = {
	[ETHTOOL_A_STATS_ETH_MAC_2_TX_PKT] = "FramesTransmittedOK",
	[ETHTOOL_A_STATS_ETH_MAC_5_RX_PKT] = "FramesReceivedOK",
	[ETHTOOL_A_STATS_ETH_MAC_6_FCS_ERR] = "FrameCheckSequenceErrors",
};
static const char *const group_names[] = { "eth-phy", "eth-mac", "eth-ctrl", "rmon" };

static int on_stat_value(unsigned type, const uint8_t *v, size_t vlen, void *vc)
{
	struct stats_ctx *c = vc;
	char num[16];
	const char *name = type < c->n_names && c->names[type] ? c->names[type] : NULL;

	if (vlen != 8)
		return vlen == 0 ? 0 : -EBADMSG;
	if (!name) {
		snprintf(num, sizeof(num), "%u", type);
		name = num;
	}
	put(c, c->prefix, name, fab_nl_get64(v));
	return 0;
}

static int on_grp(unsigned type, const uint8_t *v, size_t vlen, void *vc)
{
	struct stats_ctx *c = vc;

	if (type == ETHTOOL_A_STATS_GRP_ID) {
		if (vlen != 4)
			return -EBADMSG;
		c->group = fab_nl_get32(v);
	} else if (type == ETHTOOL_A_STATS_GRP_STAT) {
		if (c->group >= sizeof(group_names) / sizeof(group_names[0]))
			return 0; /* a group this version does not know */
		c->prefix = group_names[c->group];
		c->names = c->group == ETHTOOL_STATS_ETH_PHY ? phy_names
			   : c->group == ETHTOOL_STATS_ETH_MAC ? mac_names : NULL;
		c->n_names = c->group == ETHTOOL_STATS_ETH_PHY ? sizeof(phy_names) / sizeof(phy_names[0])
			     : c->group == ETHTOOL_STATS_ETH_MAC ? sizeof(mac_names) / sizeof(mac_names[0])
								 : 0;
		return fab_nl_walk(v, vlen, on_stat_value, c);
	}
	return 0;
}

static int on_stats_top(unsigned type, const uint8_t *v, size_t vlen, void *vc)
{
	struct stats_ctx *c = vc;

	if (type != ETHTOOL_A_STATS_GRP)
		return 0;
	c->group = UINT32_MAX; /* the ID comes first; a STAT without one is skipped */
	return fab_nl_walk(v, vlen, on_grp, c);
}

static const char *const pause_names[] = {
	[ETHTOOL_A_PAUSE_STAT_TX_FRAMES] = "tx_frames",
	[ETHTOOL_A_PAUSE_STAT_RX_FRAMES] = "rx_frames",
};

static int on_pause_top(unsigned type, const uint8_t *v, size_t vlen, void *vc)
{
	struct stats_ctx *c = vc;

	if (type != ETHTOOL_A_PAUSE_STATS)
		return 0;
	c->prefix = "pause";
	c->names = pause_names;
	c->n_names = sizeof(pause_names) / sizeof(pause_names[0]);
	return fab_nl_walk(v, vlen, on_stat_value, c);
}

static int on_fec_stat(unsigned type, const uint8_t *v, size_t vlen, void *vc)
{
	static const char *const names[] = {
		[ETHTOOL_A_FEC_STAT_CORRECTED] = "corrected_blocks",
		[ETHTOOL_A_FEC_STAT_UNCORR] = "uncorrectable_blocks",
		[ETHTOOL_A_FEC_STAT_CORR_BITS] = "corrected_bits",
	};
	struct stats_ctx *c = vc;

	if (type >= sizeof(names) / sizeof(names[0]) || !names[type])
		return 0;
	if (vlen < 8 || vlen % 8)
		return vlen == 0 ? 0 : -EBADMSG;
	put(c, "fec", names[type], fab_nl_get64(v)); /* the total; per-lane values follow it */
	return 0;
}

static int on_fec_top(unsigned type, const uint8_t *v, size_t vlen, void *vc)
{
	return type == ETHTOOL_A_FEC_STATS ? fab_nl_walk(v, vlen, on_fec_stat, vc) : 0;
}

/* The message's payload after the genl header, or an error the kernel sent. */
static int payload(const uint8_t *msg, size_t len, const uint8_t **out, size_t *olen, unsigned *cmd)
{
	uint16_t type;
	size_t mlen;
	int kerr, err = fab_nl_message(msg, len, &type, &mlen, &kerr);

	if (err || kerr)
		return err ? err : kerr;
	if (mlen < FAB_NL_HDR + GENLHDR)
		return -EBADMSG;
	*cmd = msg[FAB_NL_HDR];
	*out = msg + FAB_NL_HDR + GENLHDR;
	*olen = mlen - FAB_NL_HDR - GENLHDR;
	return 0;
}

int fab_ethtool_nl_parse_stats(const uint8_t *msg, size_t len, struct fab_ethtool_stat *out,
			       size_t cap, size_t *n)
{
	struct stats_ctx c = { .out = out, .cap = cap };
	const uint8_t *p;
	size_t plen;
	unsigned cmd;
	int err = payload(msg, len, &p, &plen, &cmd);

	if (err)
		return err;
	switch (cmd) {
	case ETHTOOL_MSG_STATS_GET_REPLY:
		err = fab_nl_walk(p, plen, on_stats_top, &c);
		break;
	case ETHTOOL_MSG_PAUSE_GET_REPLY:
		err = fab_nl_walk(p, plen, on_pause_top, &c);
		break;
	case ETHTOOL_MSG_FEC_GET_REPLY:
		err = fab_nl_walk(p, plen, on_fec_top, &c);
		break;
	default:
		return -EBADMSG;
	}
	*n = c.n;
	return err;
}

struct data_ctx {
	uint8_t *out;
	size_t cap, len;
	bool found;
};

static int on_eeprom(unsigned type, const uint8_t *v, size_t vlen, void *vc)
{
	struct data_ctx *c = vc;

	if (type != ETHTOOL_A_MODULE_EEPROM_DATA)
		return 0;
	if (vlen > c->cap)
		return -EBADMSG;
	memcpy(c->out, v, vlen);
	c->len = vlen;
	c->found = true;
	return 0;
}

int fab_ethtool_nl_parse_eeprom(const uint8_t *msg, size_t len, uint8_t *out, size_t cap,
				size_t *olen)
{
	struct data_ctx c = { .out = out, .cap = cap };
	const uint8_t *p;
	size_t plen;
	unsigned cmd;
	int err = payload(msg, len, &p, &plen, &cmd);

	if (err)
		return err;
	if (cmd != ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY)
		return -EBADMSG;
	if ((err = fab_nl_walk(p, plen, on_eeprom, &c)))
		return err;
	if (!c.found)
		return -EBADMSG;
	*olen = c.len;
	return 0;
}

/* ---- requests ---------------------------------------------------------------- */

struct msgbuf {
	uint8_t b[512];
	size_t len;
	size_t nest[4];
	int depth;
};

static void attr(struct msgbuf *m, unsigned type, const void *v, size_t vlen)
{
	size_t a = FAB_NL_ATTRHDR + vlen;
	if (m->len + FAB_NL_ALIGN4(a) > sizeof(m->b))
		return; /* our own requests are far smaller */
	uint16_t l16 = (uint16_t)a, t16 = (uint16_t)type;
	memcpy(m->b + m->len, &l16, 2);
	memcpy(m->b + m->len + 2, &t16, 2);
	if (vlen)
		memcpy(m->b + m->len + FAB_NL_ATTRHDR, v, vlen);
	memset(m->b + m->len + a, 0, FAB_NL_ALIGN4(a) - a);
	m->len += FAB_NL_ALIGN4(a);
}

static void nest_start(struct msgbuf *m, unsigned type)
{
	m->nest[m->depth++] = m->len;
	attr(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msgbuf *m)
{
	size_t at = m->nest[--m->depth];
	uint16_t l16 = (uint16_t)(m->len - at);
	memcpy(m->b + at, &l16, 2);
}

static void start(struct msgbuf *m, uint16_t family, unsigned cmd, uint32_t seq)
{
	memset(m, 0, sizeof(*m));
	m->len = FAB_NL_HDR + GENLHDR;
	uint16_t t16 = family, f16 = NLM_F_REQUEST;
	memcpy(m->b + 4, &t16, 2);
	memcpy(m->b + 6, &f16, 2);
	memcpy(m->b + 8, &seq, 4);
	m->b[FAB_NL_HDR] = (uint8_t)cmd;
	m->b[FAB_NL_HDR + 1] = 1; /* version */
}

static void finish(struct msgbuf *m)
{
	uint32_t l32 = (uint32_t)m->len;
	memcpy(m->b, &l32, 4);
}

static void header(struct msgbuf *m, unsigned type, const char *ifname, uint32_t flags)
{
	nest_start(m, type);
	attr(m, ETHTOOL_A_HEADER_DEV_NAME, ifname, strlen(ifname) + 1);
	if (flags)
		attr(m, ETHTOOL_A_HEADER_FLAGS, &flags, 4);
	nest_end(m);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends m, receives the answer with its sequence number into buf; *len. */
static int exchange(struct fab_ethtool_nl *nl, struct msgbuf *m, uint8_t *buf, size_t cap, size_t *len)
{
	uint32_t seq = fab_nl_get32(m->b + 8);
	int64_t deadline = mono_ms() + nl->timeout_ms;

	finish(m);
	if (send(nl->fd, m->b, m->len, 0) != (ssize_t)m->len)
		return -errno;
	for (;;) {
		struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
		int64_t left = deadline - mono_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		int pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return pr == 0 ? -ETIMEDOUT : -errno;
		ssize_t n = recv(nl->fd, buf, cap, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (size_t off = 0; off + FAB_NL_HDR <= (size_t)n;) {
			uint32_t mlen = fab_nl_get32(buf + off);
			if (mlen < FAB_NL_HDR || mlen > (size_t)n - off)
				return -EBADMSG;
			if (fab_nl_get32(buf + off + 8) == seq) {
				memmove(buf, buf + off, mlen);
				*len = mlen;
				return 0;
			}
			off += FAB_NL_ALIGN4(mlen);
		}
	}
}

static int on_family(unsigned type, const uint8_t *v, size_t vlen, void *vc)
{
	if (type == CTRL_ATTR_FAMILY_ID && vlen >= 2)
		*(uint16_t *)vc = fab_nl_get16(v);
	return 0;
}

int fab_ethtool_nl_open(struct fab_ethtool_nl *nl, int timeout_ms)
{
	uint8_t buf[4096];
	struct msgbuf m;
	size_t len;
	int err;

	memset(nl, 0, sizeof(*nl));
	nl->timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
	nl->seq = (uint32_t)time(NULL);
	if ((nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC)) < 0)
		return -errno;
	start(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, ++nl->seq);
	m.b[FAB_NL_HDR + 1] = 2;
	attr(&m, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME, sizeof(ETHTOOL_GENL_NAME));
	err = exchange(nl, &m, buf, sizeof(buf), &len);
	if (!err) {
		uint16_t type;
		size_t mlen;
		int kerr;
		err = fab_nl_message(buf, len, &type, &mlen, &kerr);
		if (!err && kerr)
			err = kerr;
		else if (!err && (mlen < FAB_NL_HDR + GENLHDR ||
			     fab_nl_walk(buf + FAB_NL_HDR + GENLHDR, mlen - FAB_NL_HDR - GENLHDR, on_family, &nl->family)))
			err = -EBADMSG;
	}
	if (!err && !nl->family)
		err = -ENOENT;
	if (err) {
		close(nl->fd);
		nl->fd = -1;
	}
	return err;
}

void fab_ethtool_nl_close(struct fab_ethtool_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

int fab_ethtool_nl_stats(struct fab_ethtool_nl *nl, const char *ifname, unsigned what,
			 struct fab_ethtool_stat *out, size_t cap, size_t *n)
{
	uint8_t *buf = malloc(65536);
	struct msgbuf m;
	size_t len;
	int err;

	if (!buf)
		return -ENOMEM;
	*n = 0;
	if (what == ETHTOOL_MSG_STATS_GET) {
		uint32_t size = __ETHTOOL_STATS_CNT, bits = (1u << __ETHTOOL_STATS_CNT) - 1;
		start(&m, nl->family, ETHTOOL_MSG_STATS_GET, ++nl->seq);
		header(&m, ETHTOOL_A_STATS_HEADER, ifname, 0);
		nest_start(&m, ETHTOOL_A_STATS_GROUPS);
		attr(&m, ETHTOOL_A_BITSET_NOMASK, NULL, 0);
		attr(&m, ETHTOOL_A_BITSET_SIZE, &size, 4);
		attr(&m, ETHTOOL_A_BITSET_VALUE, &bits, 4);
		nest_end(&m);
	} else if (what == ETHTOOL_MSG_PAUSE_GET) {
		start(&m, nl->family, ETHTOOL_MSG_PAUSE_GET, ++nl->seq);
		header(&m, ETHTOOL_A_PAUSE_HEADER, ifname, ETHTOOL_FLAG_STATS);
	} else {
		start(&m, nl->family, ETHTOOL_MSG_FEC_GET, ++nl->seq);
		header(&m, ETHTOOL_A_FEC_HEADER, ifname, ETHTOOL_FLAG_STATS);
	}
	err = exchange(nl, &m, buf, 65536, &len);
	if (!err)
		err = fab_ethtool_nl_parse_stats(buf, len, out, cap, n);
	free(buf);
	return err;
}

int fab_ethtool_nl_eeprom(struct fab_ethtool_nl *nl, const char *ifname, unsigned page,
			  unsigned offset, unsigned i2c, uint8_t *out, size_t cap, size_t *olen)
{
	uint8_t buf[1024];
	struct msgbuf m;
	size_t len;
	uint32_t off32 = offset, len32 = FAB_EEPROM_PAGE;
	uint8_t pg = (uint8_t)page, bank = 0, addr = (uint8_t)i2c;
	int err;

	start(&m, nl->family, ETHTOOL_MSG_MODULE_EEPROM_GET, ++nl->seq);
	header(&m, ETHTOOL_A_MODULE_EEPROM_HEADER, ifname, 0);
	attr(&m, ETHTOOL_A_MODULE_EEPROM_OFFSET, &off32, 4);
	attr(&m, ETHTOOL_A_MODULE_EEPROM_LENGTH, &len32, 4);
	attr(&m, ETHTOOL_A_MODULE_EEPROM_PAGE, &pg, 1);
	attr(&m, ETHTOOL_A_MODULE_EEPROM_BANK, &bank, 1);
	attr(&m, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, &addr, 1);
	err = exchange(nl, &m, buf, sizeof(buf), &len);
	if (!err)
		err = fab_ethtool_nl_parse_eeprom(buf, len, out, cap, olen);
	return err;
}
