// SPDX-License-Identifier: MIT
/* Netlink attributes (nlattr.h): the one bounds-checked walker of the
 * host's netlink readers. */
#include <errno.h>
#include <linux/netlink.h>

#include "nlattr.h"

int fab_nl_message(const uint8_t *msg, size_t len, uint16_t *type, size_t *mlen, int *kerr)
{
	*kerr = 0;
	if (!msg || len < FAB_NL_HDR)
		return -EBADMSG;
	uint32_t n = fab_nl_get32(msg);
	if (n < FAB_NL_HDR || n > len)
		return -EBADMSG;
	*type = fab_nl_get16(msg + 4);
	*mlen = n;
	if (*type != NLMSG_ERROR)
		return 0;
	if (n < FAB_NL_HDR + 4)
		return -EBADMSG;
	int32_t e = (int32_t)fab_nl_get32(msg + FAB_NL_HDR);
	if (e >= 0 || e < -4095)
		return -EBADMSG;
	*kerr = e;
	return 0;
}

int fab_nl_walk(const uint8_t *p, size_t len,
		int (*fn)(unsigned type, const uint8_t *val, size_t vlen, void *ctx), void *ctx)
{
	size_t off = 0;

	while (off + FAB_NL_ATTRHDR <= len) {
		uint16_t alen = fab_nl_get16(p + off);
		if (alen < FAB_NL_ATTRHDR || alen > len - off)
			return -EBADMSG;
		int err = fn(fab_nl_get16(p + off + 2) & NLA_TYPE_MASK, p + off + FAB_NL_ATTRHDR,
			     alen - FAB_NL_ATTRHDR, ctx);
		if (err)
			return err;
		off += FAB_NL_ALIGN4(alen);
	}
	return off < len && len - off >= FAB_NL_ATTRHDR ? -EBADMSG : 0;
}
