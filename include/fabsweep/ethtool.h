/* SPDX-License-Identifier: MIT */
/*
 * The host's ethtool side (host/ethtool*.c, host/module*.c): NIC statistics
 * and pluggable module EEPROMs, read from the kernel (ETHTOOL_GSTRINGS /
 * GSTATS, ethtool netlink, MODULE_EEPROM_GET or ETHTOOL_GMODULEEEPROM) or
 * from saved `ethtool -S` / `ethtool -m` outputs (collect --ethtool-dir),
 * and the pure decoders both paths share: the string tables, the module
 * memory maps of SFF-8472, SFF-8636 and CMIS. docs/roce.md "NIC counters"
 * and "Pluggable modules". Every decoder is bounds-checked and fuzzed
 * (fuzz/fuzz_module.c, fuzz_ethtool.c): the bytes come from hardware.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/module.h"

struct fab_roce;
struct fab_snapshot;

/* ---- module memory ------------------------------------------------------ */

#define FAB_EEPROM_PAGE 128
/* Upper pages kept: 00h-03h (SFF-8636, CMIS advertising and thresholds),
 * 10h-11h (CMIS lane controls and monitors, bank 0). */
#define FAB_EEPROM_PAGES 0x12

/*
 * A module's memory as read: the lower page (bytes 0-127 at I2C address
 * 0x50, A0h of an SFP), upper pages by number (bank 0), and an SFP's
 * diagnostics device (A2h, 256 bytes at 0x51).
 */
struct fab_eeprom {
	uint8_t lower[FAB_EEPROM_PAGE];
	uint8_t upper[FAB_EEPROM_PAGES][FAB_EEPROM_PAGE];
	uint8_t a2[2 * FAB_EEPROM_PAGE];
	bool have_lower, have_a2;
	bool have[FAB_EEPROM_PAGES];
	size_t flat_len; /* length of the flat dump it came from; 0 for pages */
};

/*
 * A flat dump as ETHTOOL_GMODULEEEPROM and `ethtool -m raw on` / `hex on`
 * lay it out, by the identifier in byte 0: an SFP's A0h (256) then A2h
 * (256); a QSFP's lower page, upper pages 00h-03h (256 or 640); a CMIS
 * module's lower page, upper pages 00h, 01h, 02h, 10h, 11h (256 or 768).
 * -EBADMSG (message set) for a length that layout cannot have.
 */
int fab_eeprom_from_flat(const uint8_t *buf, size_t len, struct fab_eeprom *out);

/* A decoded module, strings as fixed arrays (raw bytes from the module:
 * sanitize before showing); m's string pointers are NULL. */
struct fab_module_decoded {
	struct fab_module m;
	struct fab_module_lane lanes[FAB_MODULE_MAX_LANES];
	char type[16], vendor[17], part_number[17], serial[17], revision[5];
	char date_code[12], media[64], note[160];
};

/*
 * Decodes e by its identifier (SFF-8472, SFF-8636, CMIS). 0: out->m holds
 * the module (out->note may say what the dump lacks, e.g. thresholds);
 * -EBADMSG: the dump does not decode consistently (an identifier the
 * upper page contradicts or this decoder does not know, a checksum that
 * does not add up, an empty memory): out->m.refused is set and out->note
 * says why; nothing else in out is meaningful.
 */
int fab_module_decode(const struct fab_eeprom *e, struct fab_module_decoded *out);

/* Appends d to set for port port_idx, its strings copied (and sanitized)
 * into r's arena. 0 or -ENOMEM. */
int fab_module_add_decoded(struct fab_roce *r, uint32_t port_idx, const struct fab_module_decoded *d);

/* ---- statistics ----------------------------------------------------------- */

/* One statistic by name, as ETHTOOL_GSTRINGS names it. */
struct fab_ethtool_stat {
	char name[33]; /* ETH_GSTRING_LEN + NUL */
	uint64_t value;
};

/*
 * The strings of ETHTOOL_GSTRINGS (n names of 32 bytes each, not always
 * NUL-terminated) with the values of ETHTOOL_GSTATS into out (cap entries);
 * names with bytes outside printable ASCII keep only what is printable.
 * Returns how many were written.
 */
size_t fab_ethtool_stats_zip(const uint8_t *strings, size_t n, const uint64_t *values,
			     struct fab_ethtool_stat *out, size_t cap);

/*
 * Parses `ethtool -S IF` text ("NIC statistics:" then "name: value" lines,
 * indented or not; per-queue "[N]: name: value" lines and lines that do not
 * parse are skipped). Writes up to cap statistics; returns how many the
 * text holds (may exceed cap).
 */
size_t fab_ethtool_parse_stats(const char *text, size_t len, struct fab_ethtool_stat *out,
			       size_t cap);

/*
 * Parses `ethtool -m IF hex on` text ("0x0000:  11 07 ..." lines; offsets
 * must follow each other) or, when the text is not that, takes the bytes
 * as `ethtool -m IF raw on` wrote them. Writes up to cap bytes; *out_len.
 * -EBADMSG (message set) on a hex dump with a gap or a bad line.
 */
int fab_ethtool_parse_eeprom(const uint8_t *data, size_t len, uint8_t *out, size_t cap,
			     size_t *out_len);

/*
 * Records stats (a port's, read at at_ms as sample `sample`) as NIC
 * counters of eth port port in r: each statistic the mapping table knows
 * (fab_nic_map, driver's and "netlink" names) once; a counter already
 * recorded for that sample (the kernel's standard statistics come first) is
 * not recorded again. 0 or -ENOMEM.
 */
int fab_ethtool_record(struct fab_roce *r, uint32_t port, const char *driver,
		       const struct fab_ethtool_stat *stats, size_t n, unsigned sample, int64_t at_ms);

/*
 * One ethtool netlink reply (nlmsghdr included): a STATS_GET, PAUSE_GET or
 * FEC_GET reply's statistics as "group.name" ("eth-mac.FramesReceivedOK",
 * "pause.rx_frames", "fec.corrected_blocks"; an attribute without a name
 * here by its number), up to cap, *n how many the reply holds; or a
 * MODULE_EEPROM_GET reply's data. Pure and bounds-checked: 0, the kernel's
 * negative errno of an NLMSG_ERROR, or -EBADMSG for malformed bytes.
 */
int fab_ethtool_nl_parse_stats(const uint8_t *msg, size_t len, struct fab_ethtool_stat *out,
			       size_t cap, size_t *n);
int fab_ethtool_nl_parse_eeprom(const uint8_t *msg, size_t len, uint8_t *out, size_t cap,
				size_t *olen);

/* ---- collecting ---------------------------------------------------------------- */

struct fab_ethtool_opts {
	const char *dir;    /* saved outputs (--ethtool-dir) instead of the kernel; NULL: kernel */
	int timeout_ms;     /* per netlink exchange */
	int interval_ms;    /* > 0: a second statistics sample after this long */
	bool no_modules;    /* do not read module EEPROMs */
	bool roce_only;     /* only the RoCE interfaces (fab_roce_is_roce_iface) */
};

/*
 * Statistics and modules of the Ethernet ports of system system_idx that
 * sysfs found, from the kernel (current network namespace) or opts->dir:
 * DIR/<ifname>.stats (`ethtool -S`), DIR/<ifname>.module (`ethtool -m`, hex
 * or raw), DIR/<ifname>.info (`ethtool -i`: the driver). Sets each port's
 * driver, stats_status and module_status; what failed otherwise is in
 * snap->errors (what "ethtool"), and snap->status becomes partial. Only
 * -ENOMEM is returned.
 */
int fab_roce_collect_ethtool(struct fab_roce *r, struct fab_snapshot *snap, uint32_t system_idx,
			     const struct fab_ethtool_opts *opts);

/*
 * The kernel's view of one interface, for the collector and the tests that
 * compare it with `ethtool`: the driver's name (GDRVINFO) and its
 * statistics (GSTRINGS and GSTATS, *out malloc'd, owned by the caller);
 * its module's memory (netlink MODULE_EEPROM_GET by the pages its
 * identifier needs, else GMODULEINFO / GMODULEEEPROM). Negative errno:
 * -EOPNOTSUPP when the driver has no such operation, -ENODEV (or -EIO)
 * when no module is plugged; fab_errmsg() is set for the others.
 */
int fab_ethtool_kernel_stats(const char *ifname, char *driver, size_t driver_cap,
			     struct fab_ethtool_stat **out, size_t *n);
int fab_ethtool_kernel_module(const char *ifname, int timeout_ms, struct fab_eeprom *out);
