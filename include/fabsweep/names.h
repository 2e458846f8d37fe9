/* SPDX-License-Identifier: MIT */
/*
 * Names of enumerations as the public SQL interface spells them, their
 * parsers, and formatting of GUIDs, times and rates. Counter names are in
 * fabsweep/counter.h.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "fabsweep/snapshot.h"

/* Elements of an array (not a pointer): the one definition. Enum-to-name
 * tables are checked with static_assert(ARRAY_SIZE(t) == X__COUNT). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *fab_node_type_name(unsigned type); /* "ca", "switch", "router", "unknown" */
const char *fab_role_name(unsigned role);      /* "host", "leaf", ... */
const char *fab_state_name(unsigned state);    /* "down", "init", ... NULL if unknown */
const char *fab_phys_state_name(unsigned phys); /* "polling", "linkup", ... NULL if unknown */
const char *fab_scan_status_name(unsigned status);
const char *fab_severity_name(unsigned sev);
const char *fab_sm_state_name(unsigned state); /* "notactive" .. "master" */
const char *fab_event_kind_name(unsigned kind);   /* "notice", "port" */
const char *fab_event_cause_name(unsigned cause); /* "", "trap", "probe", "link_downed", "recheck" */

/* Reverse lookups: the enum value, or -1. */
int fab_node_type_parse(const char *s);
int fab_role_parse(const char *s);
int fab_state_parse(const char *s);
int fab_phys_state_parse(const char *s);
int fab_scan_status_parse(const char *s);
int fab_severity_parse(const char *s);
/* --fail-on LEVEL (check, sweep, ready): "error", "warning", "info", or
 * "never" (FAB_FAIL_NEVER, above every severity: no finding counts). A
 * finding counts when its severity >= the level. -1 if unknown. */
#define FAB_FAIL_NEVER FAB_SEV__COUNT
int fab_fail_on_parse(const char *s);
int fab_sm_state_parse(const char *s);
int fab_event_kind_parse(const char *s);
int fab_event_cause_parse(const char *s);

/* Single width/speed bit to name ("4X", "HDR"); NULL if not exactly one known bit. */
const char *fab_width_name(unsigned bit);
const char *fab_speed_name(unsigned bit);
/* Masks as comma-joined names, narrowest/slowest first; "" for 0. */
void fab_widths_format(unsigned mask, char *buf, size_t len);
void fab_speeds_format(unsigned mask, char *buf, size_t len);
/* Parse a comma-joined list back into a mask; -1 on an unknown name. */
int fab_widths_parse(const char *s);
int fab_speeds_parse(const char *s);
/* Highest bit of a mask in the ranking order (12X > 8X > 4X > 2X > 1X;
 * XDR > ... > SDR), 0 for an empty mask. */
unsigned fab_width_best(unsigned mask);
unsigned fab_speed_best(unsigned mask);
/* Rank of a width/speed bit: larger is better, 0 for none. */
unsigned fab_width_rank(unsigned bit);
unsigned fab_speed_rank(unsigned bit);
/* Lanes of a width bit (1, 2, 4, 8, 12), 0 unknown. */
unsigned fab_width_lanes(unsigned bit);
/* Nominal data rate in Gb/s (4X HDR = 200, 4X EDR = 100, 4X FDR = 56, 4X QDR = 40). */
double fab_rate_gbps(unsigned width_bit, unsigned speed_bit);
/* Signalling rate of one lane in Gb/s (SDR 2.5 ... FDR10 10.3125, FDR
 * 14.0625, EDR 25.78125, HDR 53.125, NDR 106.25, XDR 212.5): the bits a
 * bit error rate is counted over; 0 for no single known speed bit. */
double fab_speed_lane_gbaud(unsigned speed_bit);
/* IB MTU enum (1..5) to bytes, 0 when unknown. */
unsigned fab_mtu_bytes(unsigned mtu);
int fab_mtu_from_bytes(unsigned bytes);

#define FAB_GUID_STRLEN 19 /* "0x" + 16 hex + NUL */
/* "0x0002c90300000001" */
void fab_guid_format(uint64_t guid, char buf[FAB_GUID_STRLEN]);
/* Accepts 0x-prefixed or bare hex; 0 on success. */
int fab_guid_parse(const char *s, uint64_t *out);

#define FAB_COUNT_STRLEN 28 /* "18,446,744,073,709,551,615" + NUL */
/* A count with thousands separators: "131,072". Returns buf. */
const char *fab_count_format(uint64_t n, char buf[FAB_COUNT_STRLEN]);

#define FAB_TIME_STRLEN 25 /* "2026-12-01T02:53:55.123Z" */
void fab_time_format(int64_t ms, char buf[FAB_TIME_STRLEN]);
/* Parses what fab_time_format writes (milliseconds optional); 0 on success. */
int fab_time_parse(const char *s, int64_t *out_ms);
/* Wall clock, Unix epoch milliseconds. */
int64_t fab_now_ms(void);

/* A duration: one or more <number><unit>, units ms, s, m, h, d, w ("30d",
 * "12h", "1d12h", "500ms"); a unit is required; at most a century, more than 0.
 * 0 and *out_ms, or -EINVAL (core/duration.c). */
int fab_duration_parse(const char *s, int64_t *out_ms);

/*
 * Makes untrusted bytes safe to store and show: valid UTF-8 sequences are
 * kept except control characters; control bytes, DEL and bytes that are not
 * valid UTF-8 become "\xNN". Stops at the first NUL or after len bytes.
 * Writes at most cap-1 bytes and a NUL; returns the length written.
 */
size_t fab_text_sanitize(const uint8_t *raw, size_t len, char *buf, size_t cap);
