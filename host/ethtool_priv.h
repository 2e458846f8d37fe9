/* SPDX-License-Identifier: MIT */
/* Private to host/ethtool*.c: the ethtool netlink socket (ethtool_nl.c)
 * and the ioctl side (ethtool.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/ethtool.h"

struct fab_ethtool_nl {
	int fd;
	uint16_t family; /* the "ethtool" generic netlink family */
	uint32_t seq;
	int timeout_ms;
};

/* Resolves the family (-ENOENT: a kernel without ethtool netlink). */
int fab_ethtool_nl_open(struct fab_ethtool_nl *nl, int timeout_ms);
void fab_ethtool_nl_close(struct fab_ethtool_nl *nl);
/* what: ETHTOOL_MSG_STATS_GET (the standard groups), _PAUSE_GET or
 * _FEC_GET (with their statistics). -EOPNOTSUPP when the driver has none. */
int fab_ethtool_nl_stats(struct fab_ethtool_nl *nl, const char *ifname, unsigned what,
			 struct fab_ethtool_stat *out, size_t cap, size_t *n);
/* One page's 128 bytes at offset (0: lower page, 128: upper) of I2C
 * address i2c (0x50, 0x51 for an SFP's A2h), bank 0. */
int fab_ethtool_nl_eeprom(struct fab_ethtool_nl *nl, const char *ifname, unsigned page,
			  unsigned offset, unsigned i2c, uint8_t *out, size_t cap, size_t *olen);
