/* SPDX-License-Identifier: MIT */
/*
 * Private to host/: reading netlink messages, what the rtnetlink DCB
 * reader (dcb.c) and the ethtool generic netlink reader (ethtool_nl.c)
 * share. Values are in host byte order, unaligned; every walk is
 * bounds-checked.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FAB_NL_HDR 16    /* struct nlmsghdr */
#define FAB_NL_ATTRHDR 4 /* struct nlattr */
#define FAB_NL_ALIGN4(x) (((x) + 3u) & ~(size_t)3u)

static inline uint16_t fab_nl_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t fab_nl_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t fab_nl_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The first message of [msg, msg+len): 0 with its type and length (header
 * included, within len) and *kerr the kernel's negative errno when it is an
 * NLMSG_ERROR (-4095..-1), else 0; -EBADMSG when malformed, an ACK
 * included (an error code of 0 is no answer).
 */
int fab_nl_message(const uint8_t *msg, size_t len, uint16_t *type, size_t *mlen, int *kerr);

/*
 * Calls fn for each well-formed attribute in [p, p+len) with its type (the
 * nested and byte-order flags masked off), value and length; stops at
 * fn's first non-zero return. -EBADMSG at the first malformed attribute
 * (trailing bytes shorter than a header are padding).
 */
int fab_nl_walk(const uint8_t *p, size_t len,
		int (*fn)(unsigned type, const uint8_t *val, size_t vlen, void *ctx), void *ctx);
