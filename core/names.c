// SPDX-License-Identifier: MIT
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fabsweep/names.h"

static const char *const node_types[] = {
	[FAB_NODE_UNKNOWN] = "unknown",
	[FAB_NODE_CA] = "ca",
	[FAB_NODE_SWITCH] = "switch",
	[FAB_NODE_ROUTER] = "router",
};
static_assert(ARRAY_SIZE(node_types) == FAB_NODE__COUNT, "node_types");

static const char *const roles[] = {
	[FAB_ROLE_UNKNOWN] = "unknown", [FAB_ROLE_HOST] = "host",
	[FAB_ROLE_LEAF] = "leaf",       [FAB_ROLE_SPINE] = "spine",
	[FAB_ROLE_CORE] = "core",
};
static_assert(ARRAY_SIZE(roles) == FAB_ROLE__COUNT, "roles");

static const char *const states[] = {
	[FAB_STATE_UNKNOWN] = NULL,	 [FAB_STATE_DOWN] = "down",
	[FAB_STATE_INIT] = "init",	 [FAB_STATE_ARMED] = "armed",
	[FAB_STATE_ACTIVE] = "active",
};
static_assert(ARRAY_SIZE(states) == FAB_STATE__COUNT, "states");

static const char *const phys_states[] = {
	[FAB_PHYS_UNKNOWN] = NULL,
	[FAB_PHYS_SLEEP] = "sleep",
	[FAB_PHYS_POLLING] = "polling",
	[FAB_PHYS_DISABLED] = "disabled",
	[FAB_PHYS_TRAINING] = "training",
	[FAB_PHYS_LINKUP] = "linkup",
	[FAB_PHYS_ERROR_RECOVERY] = "errorrecovery",
	[FAB_PHYS_PHYTEST] = "phytest",
};
static_assert(ARRAY_SIZE(phys_states) == FAB_PHYS__COUNT, "phys_states");

static const char *const scan_statuses[] = {
	[FAB_SCAN_COMPLETE] = "complete",
	[FAB_SCAN_PARTIAL] = "partial",
	[FAB_SCAN_FAILED] = "failed",
};
static_assert(ARRAY_SIZE(scan_statuses) == FAB_SCAN__COUNT, "scan_statuses");

static const char *const severities[] = {
	[FAB_SEV_INFO] = "info",
	[FAB_SEV_WARNING] = "warning",
	[FAB_SEV_ERROR] = "error",
};
static_assert(ARRAY_SIZE(severities) == FAB_SEV__COUNT, "severities");

static const char *const sm_states[] = { "notactive", "discovering", "standby",
					 "master" };

static const char *const event_kinds[] = { "notice", "port" };
static_assert(ARRAY_SIZE(event_kinds) == FAB_EVENT__COUNT, "event_kinds");
static const char *const event_causes[] = { "", "trap", "probe", "link_downed", "recheck" };
static_assert(ARRAY_SIZE(event_causes) == FAB_CAUSE__COUNT, "event_causes");

static const char *const width_names[] = { "1X", "4X", "8X", "12X", "2X" };
/* bit index -> rank: 1X < 2X < 4X < 8X < 12X */
static const unsigned width_ranks[] = { 1, 3, 4, 5, 2 };
static const unsigned width_lanes[] = { 1, 4, 8, 12, 2 };

static const char *const speed_names[] = { "SDR", "DDR",  "QDR", "FDR10", "FDR",
					   "EDR", "HDR", "NDR", "XDR" };
static_assert(ARRAY_SIZE(speed_names) == FAB_SPEED__BITS, "speed_names");
/* Nominal data rate per lane, Gb/s, as operators quote it (4X HDR = 200). */
static const double speed_lane_gbps[] = { 2.5, 5, 10, 10, 14, 25, 50, 100, 200 };
static_assert(ARRAY_SIZE(speed_lane_gbps) == FAB_SPEED__BITS, "speed rates");

/* Signalling rate per lane, Gb/s: what a symbol error rate is over (FDR10
 * 64b/66b at 10.3125, FDR 14.0625, EDR 25.78125, HDR 53.125 PAM4,
 * NDR 106.25, XDR 212.5). */
static const double speed_lane_gbaud[] = { 2.5, 5, 10, 10.3125, 14.0625, 25.78125,
					   53.125, 106.25, 212.5 };
static_assert(ARRAY_SIZE(speed_lane_gbaud) == FAB_SPEED__BITS, "speed signalling rates");

#define NAME_AT(table, i) ((i) < ARRAY_SIZE(table) ? (table)[i] : NULL)

const char *fab_node_type_name(unsigned t)
{
	return t < ARRAY_SIZE(node_types) ? node_types[t] : "unknown";
}

const char *fab_role_name(unsigned r)
{
	return r < ARRAY_SIZE(roles) ? roles[r] : "unknown";
}

const char *fab_state_name(unsigned s)
{
	return NAME_AT(states, s);
}

const char *fab_phys_state_name(unsigned s)
{
	return NAME_AT(phys_states, s);
}

const char *fab_scan_status_name(unsigned s)
{
	return NAME_AT(scan_statuses, s);
}

const char *fab_severity_name(unsigned s)
{
	return NAME_AT(severities, s);
}

const char *fab_sm_state_name(unsigned s)
{
	return NAME_AT(sm_states, s);
}

const char *fab_event_kind_name(unsigned k)
{
	return NAME_AT(event_kinds, k);
}

const char *fab_event_cause_name(unsigned c)
{
	return NAME_AT(event_causes, c);
}

static int parse_in(const char *const *table, size_t n, const char *s)
{
	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (table[i] && !strcmp(table[i], s))
			return (int)i;
	return -1;
}

int fab_node_type_parse(const char *s)
{
	return parse_in(node_types, ARRAY_SIZE(node_types), s);
}

int fab_role_parse(const char *s)
{
	return parse_in(roles, ARRAY_SIZE(roles), s);
}

int fab_state_parse(const char *s)
{
	return parse_in(states, ARRAY_SIZE(states), s);
}

int fab_phys_state_parse(const char *s)
{
	return parse_in(phys_states, ARRAY_SIZE(phys_states), s);
}

int fab_scan_status_parse(const char *s)
{
	return parse_in(scan_statuses, ARRAY_SIZE(scan_statuses), s);
}

int fab_severity_parse(const char *s)
{
	return parse_in(severities, ARRAY_SIZE(severities), s);
}

int fab_fail_on_parse(const char *s)
{
	return s && !strcmp(s, "never") ? FAB_FAIL_NEVER : fab_severity_parse(s);
}

int fab_sm_state_parse(const char *s)
{
	return parse_in(sm_states, ARRAY_SIZE(sm_states), s);
}

int fab_event_kind_parse(const char *s)
{
	return parse_in(event_kinds, ARRAY_SIZE(event_kinds), s);
}

int fab_event_cause_parse(const char *s)
{
	return parse_in(event_causes, ARRAY_SIZE(event_causes), s);
}

static int single_bit(unsigned v)
{
	if (!v || (v & (v - 1)))
		return -1;
	return __builtin_ctz(v);
}

const char *fab_width_name(unsigned bit)
{
	int i = single_bit(bit);
	return i < 0 ? NULL : NAME_AT(width_names, (unsigned)i);
}

const char *fab_speed_name(unsigned bit)
{
	int i = single_bit(bit);
	return i < 0 ? NULL : NAME_AT(speed_names, (unsigned)i);
}

unsigned fab_width_rank(unsigned bit)
{
	int i = single_bit(bit);
	return i < 0 || (unsigned)i >= ARRAY_SIZE(width_ranks) ? 0 : width_ranks[i];
}

unsigned fab_speed_rank(unsigned bit)
{
	int i = single_bit(bit);
	return i < 0 || i >= FAB_SPEED__BITS ? 0 : (unsigned)i + 1;
}

unsigned fab_width_lanes(unsigned bit)
{
	int i = single_bit(bit);
	return i < 0 || (unsigned)i >= ARRAY_SIZE(width_lanes) ? 0 : width_lanes[i];
}

unsigned fab_width_best(unsigned mask)
{
	unsigned best = 0;

	for (unsigned i = 0; i < ARRAY_SIZE(width_names); i++)
		if ((mask & (1u << i)) &&
		    fab_width_rank(1u << i) > fab_width_rank(best))
			best = 1u << i;
	return best;
}

unsigned fab_speed_best(unsigned mask)
{
	for (int i = FAB_SPEED__BITS - 1; i >= 0; i--)
		if (mask & (1u << i))
			return 1u << i;
	return 0;
}

/* Writes names of the bits of mask in rank order, comma-joined (hot: one
 * call per port column when a snapshot is written, so no printf). */
static void format_mask(unsigned mask, const char *const *names, size_t n,
			unsigned (*rank)(unsigned), char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return;
	for (unsigned r = 1; r <= n; r++) {
		for (unsigned i = 0; i < n; i++) {
			if (!(mask & (1u << i)) || rank(1u << i) != r)
				continue;
			size_t l = strlen(names[i]);
			if (off + (off ? 1 : 0) + l >= len)
				goto out;
			if (off)
				buf[off++] = ',';
			memcpy(buf + off, names[i], l);
			off += l;
		}
	}
out:
	buf[off] = '\0';
}

void fab_widths_format(unsigned mask, char *buf, size_t len)
{
	format_mask(mask, width_names, ARRAY_SIZE(width_names), fab_width_rank,
		    buf, len);
}

void fab_speeds_format(unsigned mask, char *buf, size_t len)
{
	format_mask(mask, speed_names, ARRAY_SIZE(speed_names), fab_speed_rank,
		    buf, len);
}

static int parse_mask(const char *s, const char *const *names, size_t n)
{
	int mask = 0;

	if (!s)
		return -1;
	while (*s) {
		size_t l = strcspn(s, ",");
		size_t i;

		for (i = 0; i < n; i++)
			if (strlen(names[i]) == l && !strncasecmp(names[i], s, l))
				break;
		if (i == n)
			return -1;
		mask |= 1 << i;
		s += l;
		if (*s == ',')
			s++;
	}
	return mask;
}

int fab_widths_parse(const char *s)
{
	return parse_mask(s, width_names, ARRAY_SIZE(width_names));
}

int fab_speeds_parse(const char *s)
{
	return parse_mask(s, speed_names, ARRAY_SIZE(speed_names));
}

double fab_rate_gbps(unsigned width_bit, unsigned speed_bit)
{
	int s = single_bit(speed_bit);

	if (s < 0 || s >= FAB_SPEED__BITS)
		return 0;
	return fab_width_lanes(width_bit) * speed_lane_gbps[s];
}

double fab_speed_lane_gbaud(unsigned speed_bit)
{
	int s = single_bit(speed_bit);

	return s < 0 || s >= FAB_SPEED__BITS ? 0 : speed_lane_gbaud[s];
}

unsigned fab_mtu_bytes(unsigned mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128u << mtu : 0;
}

int fab_mtu_from_bytes(unsigned bytes)
{
	for (unsigned m = 1; m <= 5; m++)
		if (fab_mtu_bytes(m) == bytes)
			return (int)m;
	return -1;
}

void fab_guid_format(uint64_t guid, char buf[FAB_GUID_STRLEN])
{
	static const char hex[] = "0123456789abcdef";

	buf[0] = '0';
	buf[1] = 'x';
	for (int i = 0; i < 16; i++)
		buf[2 + i] = hex[(guid >> (60 - 4 * i)) & 15];
	buf[18] = '\0';
}

int fab_guid_parse(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];
		unsigned d = c >= '0' && c <= '9' ? c - '0'
			   : c >= 'a' && c <= 'f' ? c - 'a' + 10
			   : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
		if (d == 16 || n == 16)
			return -EINVAL;
		v = v << 4 | d;
	}
	if (!n)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *fab_count_format(uint64_t n, char buf[FAB_COUNT_STRLEN])
{
	char d[21];
	int l = snprintf(d, sizeof(d), "%" PRIu64, n);
	size_t o = 0;

	for (int i = 0; i < l; i++) {
		if (i && (l - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
	return buf;
}

void fab_time_format(int64_t ms, char buf[FAB_TIME_STRLEN])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	size_t n = strftime(buf, FAB_TIME_STRLEN, "%Y-%m-%dT%H:%M:%S", &tm);

	snprintf(buf + n, FAB_TIME_STRLEN - n, ".%03uZ", (unsigned)((ms % 1000 + 1000) % 1000));
}

/* Reads exactly n digits; -1 when one is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int fab_time_parse(const char *s, int64_t *out_ms)
{
	int y, mo, d, h, mi, sec, msec = 0;

	/* YYYY-MM-DDTHH:MM:SS[.fff]Z */
	if (!s || strnlen(s, 20) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
	    s[13] != ':' || s[16] != ':')
		return -EINVAL;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	sec = digits(s + 17, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 ||
	    mi < 0 || mi > 59 || sec < 0 || sec > 60)
		return -EINVAL;
	s += 19;
	if (*s == '.') {
		int n = 0;
		for (s++; *s >= '0' && *s <= '9'; s++, n++)
			if (n < 3)
				msec = msec * 10 + (*s - '0');
		if (!n)
			return -EINVAL;
		for (; n < 3; n++)
			msec *= 10;
	}
	if (*s != 'Z' || s[1])
		return -EINVAL;
	*out_ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 +
		  (int64_t)sec * 1000 + msec;
	return 0;
}

int64_t fab_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const uint8_t *p, size_t n)
{
	size_t len;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* overlong, surrogates, out of range, C1 controls */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	/* bidirectional overrides and isolates reorder what a terminal shows */
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return len;
}

size_t fab_text_sanitize(const uint8_t *raw, size_t len, char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!cap)
		return 0;
	for (size_t i = 0; i < len && raw[i];) {
		size_t l = raw[i] < 0x20 || raw[i] == 0x7f ? 0 : utf8_len(raw + i, len - i);

		if (l) {
			if (o + l >= cap)
				break;
			memcpy(buf + o, raw + i, l);
			o += l;
			i += l;
		} else {
			if (o + 4 >= cap)
				break;
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[raw[i] >> 4];
			buf[o++] = hex[raw[i] & 15];
			i++;
		}
	}
	buf[o] = '\0';
	return o;
}
