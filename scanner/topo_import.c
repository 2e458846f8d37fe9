// SPDX-License-Identifier: MIT
/*
 * Importer of ibnetdiscover text into a snapshot (see fabsweep/topo.h and
 * docs/topology-files.md).
 *
 * Two phases. The parser reads the text line by line into private node and
 * port records (descriptions point into the input, nothing is copied); it
 * never looks past a line's end and checks every number's range. Then the
 * records are checked as a whole (duplicate nodes and ports), every port's
 * remote end is resolved by (GUID, port number) through sorted arrays, and
 * only then is the caller's snapshot filled, so a malformed file leaves it
 * untouched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <inttypes.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/topo.h"

#define MAX_PORTS 254 /* IB port numbers 1..254 (255 is reserved) */

/* A node as the file describes it. */
struct tnode {
	uint64_t guid, sys_guid, port_guid;
	uint32_t vendor_id, device_id;
	const char *desc; /* into the input */
	size_t desc_len;
	size_t line;
	uint32_t first, count; /* its ports in parser.ports */
	uint16_t lid;
	uint8_t lmc;
	uint8_t type; /* enum fab_node_type */
	uint8_t nports;
};

/* One port line. */
struct tport {
	uint64_t guid;  /* CA/router port GUID, 0 when the line has none */
	uint64_t rguid; /* remote node GUID */
	size_t line;
	uint32_t node;     /* index in parser.nodes */
	uint32_t remote;   /* index in parser.ports, FAB_NONE when unresolved */
	uint32_t snap_idx; /* index in the snapshot's ports */
	uint16_t lid;      /* CA/router ports: "# lid N" */
	uint16_t speed;    /* FAB_SPEED_* bit, 0 unknown */
	uint8_t num, rport;
	uint8_t rtype; /* enum fab_node_type from "S-"/"H-"/"R-", 0 for "?-" */
	uint8_t lmc;
	uint8_t width; /* FAB_WIDTH_* bit, 0 unknown */
	bool have_lid;
};

/* Ids seen since the last node header (vendid=, caguid= ...). */
struct pending {
	uint64_t sys_guid, guid, port_guid;
	uint32_t vendor_id, device_id;
	uint8_t type; /* from switchguid=/caguid=/rtguid=, 0 none */
	size_t line;  /* of the GUID line */
};

struct parser {
	const char *name;
	size_t line; /* 1-based number of the line being parsed */
	struct tnode *nodes;
	size_t n_nodes, cap_nodes;
	struct tport *ports;
	size_t n_ports, cap_ports;
	struct pending pend;
	bool in_block; /* port lines belong to the last node */
	bool have_time, have_origin;
	int64_t time_ms;
	uint64_t origin; /* "Initiated from node <guid>" */
};

/* A bounded view of (part of) one line. */
struct cur {
	const char *p, *end;
};

static int perr(const struct parser *ps, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records "NAME:LINE: message" and returns code. */
static int perr(const struct parser *ps, int code, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_err(code, "%s:%zu: %s", ps->name, ps->line, msg);
}

static bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
	       ch == '\f';
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int hex_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && is_ws(*c->p))
		c->p++;
}

static bool eat(struct cur *c, char ch)
{
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* Consumes word when the text starts with it. */
static bool eat_word(struct cur *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
		return false;
	c->p += n;
	return true;
}

/* Decimal number <= max; false (cursor unchanged) when there is none. */
static bool parse_uint(struct cur *c, unsigned long max, unsigned long *out)
{
	const char *p = c->p;
	unsigned long v = 0;

	if (p >= c->end || !is_digit(*p))
		return false;
	for (; p < c->end && is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > max || v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	c->p = p;
	*out = v;
	return true;
}

/* 1 to 16 hex digits, "0x" allowed when with_prefix; false (cursor
 * unchanged) otherwise. */
static bool parse_hex(struct cur *c, bool with_prefix, uint64_t *out)
{
	struct cur t = *c;
	uint64_t v = 0;
	int n = 0, d;

	if (with_prefix && t.end - t.p >= 2 && t.p[0] == '0' &&
	    (t.p[1] == 'x' || t.p[1] == 'X'))
		t.p += 2;
	for (; t.p < t.end && (d = hex_value(*t.p)) >= 0; t.p++, n++) {
		if (n == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return false;
	*c = t;
	*out = v;
	return true;
}

/* The whole of [b, e) is 1 to 16 hex digits. */
static bool all_hex(const char *b, const char *e, uint64_t *out)
{
	struct cur t = { b, e };

	return parse_hex(&t, false, out) && t.p == e;
}

/* Last occurrence of needle in [b, e), or NULL. */
static const char *find_last(const char *b, const char *e, const char *needle)
{
	size_t n = strlen(needle);

	if ((size_t)(e - b) < n)
		return NULL;
	for (const char *p = e - n;; p--) {
		if (memcmp(p, needle, n) == 0)
			return p;
		if (p == b)
			return NULL;
	}
}

static bool is_word_end(const char *p, const char *e)
{
	return p == e || is_ws(*p);
}

/* Last occurrence of word in [b, e) that is a whole token, or NULL. */
static const char *find_last_word(const char *b, const char *e,
				  const char *word)
{
	size_t n = strlen(word);
	const char *p = e;

	while ((p = find_last(b, p, word))) {
		if ((p == b || is_ws(p[-1])) && is_word_end(p + n, e))
			return p;
		if (p == b)
			break;
		p = p + n - 1; /* search again before this match's end */
	}
	return NULL;
}

/* Last '"' in [b, e), or NULL. */
static const char *last_quote(const char *b, const char *e)
{
	while (e > b) {
		e--;
		if (*e == '"')
			return e;
	}
	return NULL;
}

/* The next whitespace-separated token; false at the end. */
static bool next_token(struct cur *c, struct cur *tok)
{
	skip_ws(c);
	if (c->p >= c->end)
		return false;
	tok->p = c->p;
	while (c->p < c->end && !is_ws(*c->p))
		c->p++;
	tok->end = c->p;
	return true;
}

/* Consumes word when the text starts with it as a whole token. */
static bool eat_word_ws(struct cur *c, const char *word)
{
	struct cur t = *c;

	if (!eat_word(&t, word) || !is_word_end(t.p, t.end))
		return false;
	*c = t;
	return true;
}

static bool token_digits(const struct cur *tok)
{
	for (const char *p = tok->p; p < tok->end; p++)
		if (!is_digit(*p))
			return false;
	return tok->p < tok->end;
}

static bool token_is(const struct cur *tok, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(tok->end - tok->p) == n && memcmp(tok->p, word, n) == 0;
}

/* A token that is a whole decimal number <= max. */
static bool token_uint(const struct cur *tok, unsigned long max,
		       unsigned long *out)
{
	struct cur t = *tok;

	return parse_uint(&t, max, out) && t.p == t.end;
}

static uint8_t type_from_letter(char ch)
{
	switch (ch) {
	case 'S':
		return FAB_NODE_SWITCH;
	case 'H':
		return FAB_NODE_CA;
	case 'R':
		return FAB_NODE_ROUTER;
	default:
		return FAB_NODE_UNKNOWN;
	}
}

static char letter_from_type(unsigned type)
{
	switch (type) {
	case FAB_NODE_SWITCH:
		return 'S';
	case FAB_NODE_CA:
		return 'H';
	case FAB_NODE_ROUTER:
		return 'R';
	default:
		return '?';
	}
}

/*
 * A node id "S-0002c90300001234" (also H-, R-, ?-). Returns 1 and
 * consumes it, 0 (cursor unchanged) when the text is not one.
 */
static int parse_node_id(struct cur *c, uint8_t *type, uint64_t *guid)
{
	struct cur t = *c;
	char letter;

	if (!eat(&t, '"') || t.p >= t.end)
		return 0;
	letter = *t.p++;
	if ((letter != '?' && !type_from_letter(letter)) || !eat(&t, '-') ||
	    !parse_hex(&t, false, guid) || !eat(&t, '"'))
		return 0;
	*type = type_from_letter(letter);
	*c = t;
	return 1;
}

/*
 * "4xHDR", "1xSDR", "4xFDR10", "??x???": width and speed bits, 0 for what is
 * unknown ("??", "???", a name this version does not know). Returns false
 * when the token does not have that shape at all.
 */
static bool parse_rate(const struct cur *tok, uint8_t *width, uint16_t *speed)
{
	static const struct {
		const char *name;
		uint16_t bit;
	} speeds[] = {
		{ "SDR", FAB_SPEED_SDR },     { "DDR", FAB_SPEED_DDR },
		{ "QDR", FAB_SPEED_QDR },     { "FDR10", FAB_SPEED_FDR10 },
		{ "FDR", FAB_SPEED_FDR },     { "EDR", FAB_SPEED_EDR },
		{ "HDR", FAB_SPEED_HDR },     { "NDR", FAB_SPEED_NDR },
		{ "XDR", FAB_SPEED_XDR },
	};
	struct cur t = *tok;
	unsigned long lanes = 0;

	*width = 0;
	*speed = 0;
	if (!parse_uint(&t, 99, &lanes)) {
		if (!eat(&t, '?'))
			return false;
		while (eat(&t, '?'))
			;
	}
	if (!eat(&t, 'x') && !eat(&t, 'X'))
		return false;
	switch (lanes) {
	case 1:
		*width = FAB_WIDTH_1X;
		break;
	case 2:
		*width = FAB_WIDTH_2X;
		break;
	case 4:
		*width = FAB_WIDTH_4X;
		break;
	case 8:
		*width = FAB_WIDTH_8X;
		break;
	case 12:
		*width = FAB_WIDTH_12X;
		break;
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (token_is(&t, speeds[i].name))
			*speed = speeds[i].bit;
	return true;
}

/* A token for a message: quoted, escaped, cut to fit buf. */
static const char *show(const struct cur *tok, char *buf, size_t cap)
{
	size_t n = (size_t)(tok->end - tok->p);
	size_t len;

	if (n > 24)
		n = 24;
	buf[0] = '"';
	len = fab_text_sanitize((const uint8_t *)tok->p, n, buf + 1, cap - 3);
	buf[len + 1] = '"';
	buf[len + 2] = '\0';
	return buf;
}

/* Grows an array by one zeroed element; NULL on ENOMEM or when full. */
static void *grow(void **arr, size_t *n, size_t *cap, size_t elem)
{
	if (*n >= UINT32_MAX - 2)
		return NULL;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		void *p = realloc(*arr, ncap * elem);

		if (!p)
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	void *e = (char *)*arr + (*n)++ * elem;
	memset(e, 0, elem);
	return e;
}

/* ------------------------------------------------------------------ */
/* Comments: the generation time and the node discovery started from.  */

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr",
				      "May", "Jun", "Jul", "Aug",
				      "Sep", "Oct", "Nov", "Dec" };

/* "hh:mm:ss" */
static bool parse_hms(struct cur *c, struct tm *tm)
{
	unsigned long h, m, s;

	if (!parse_uint(c, 23, &h) || !eat(c, ':') || !parse_uint(c, 59, &m) ||
	    !eat(c, ':') || !parse_uint(c, 60, &s))
		return false;
	tm->tm_hour = (int)h;
	tm->tm_min = (int)m;
	tm->tm_sec = (int)s;
	return true;
}

static bool set_time(struct parser *ps, struct tm *tm, long offset_s)
{
	time_t t = timegm(tm);

	if (t == (time_t)-1)
		return false;
	ps->time_ms = ((int64_t)t - offset_s) * 1000;
	ps->have_time = true;
	return true;
}

/* ctime() text, "Tue Jun  5 14:15:10 2007". The zone is not in the file:
 * the time is taken as UTC. */
static void parse_ctime(struct parser *ps, struct cur c)
{
	struct tm tm = { 0 };
	struct cur tok;
	unsigned long day, year;
	int mon = -1;

	if (!next_token(&c, &tok) || !next_token(&c, &tok))
		return; /* weekday, month */
	for (int i = 0; i < 12; i++)
		if (token_is(&tok, months[i]))
			mon = i;
	skip_ws(&c);
	if (mon < 0 || !parse_uint(&c, 31, &day) || day == 0)
		return;
	skip_ws(&c);
	if (!parse_hms(&c, &tm))
		return;
	skip_ws(&c);
	if (!parse_uint(&c, 9999, &year) || year < 1970)
		return;
	tm.tm_mday = (int)day;
	tm.tm_mon = mon;
	tm.tm_year = (int)year - 1900;
	set_time(ps, &tm, 0);
}

/* ibdiagnet: "2025-03-31 23:43:18 UTC +0000" (the offset is optional). */
static void parse_iso_time(struct parser *ps, struct cur c)
{
	struct tm tm = { 0 };
	unsigned long y, mo, d, off;
	struct cur tok;
	long offset_s = 0;

	skip_ws(&c);
	if (!parse_uint(&c, 9999, &y) || y < 1970 || !eat(&c, '-') ||
	    !parse_uint(&c, 12, &mo) || mo == 0 || !eat(&c, '-') ||
	    !parse_uint(&c, 31, &d) || d == 0)
		return;
	skip_ws(&c);
	if (!parse_hms(&c, &tm))
		return;
	while (next_token(&c, &tok)) {
		bool neg = *tok.p == '-';
		struct cur num = { tok.p + 1, tok.end };

		if ((*tok.p == '+' || neg) && tok.end - tok.p == 5 &&
		    token_uint(&num, 9999, &off) && off % 100 < 60 &&
		    off / 100 <= 14) {
			offset_s = (long)(off / 100 * 3600 + off % 100 * 60);
			if (neg)
				offset_s = -offset_s;
			break;
		}
	}
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	set_time(ps, &tm, offset_s);
}

static void parse_comment(struct parser *ps, struct cur c)
{
	const char *k;

	if (!ps->have_origin &&
	    (k = find_last(c.p, c.end, "Initiated from node "))) {
		struct cur t = { k + strlen("Initiated from node "), c.end };
		ps->have_origin = parse_hex(&t, true, &ps->origin);
		return;
	}
	if (ps->have_time)
		return;
	if ((k = find_last(c.p, c.end, "generated on "))) {
		c.p = k + strlen("generated on ");
		parse_ctime(ps, c);
	} else if ((k = find_last(c.p, c.end, "imestamp"))) {
		/* "# Timestamp: ..." and "# Running timestamp : ..." */
		c.p = k + strlen("imestamp");
		skip_ws(&c);
		if (eat(&c, ':'))
			parse_iso_time(ps, c);
	}
}

/* ------------------------------------------------------------------ */
/* Node blocks.                                                        */

static const struct {
	const char *key;
	uint8_t type; /* GUID lines: the node type they announce */
} id_keys[] = {
	{ "vendid=", 0 },      { "devid=", 0 },
	{ "sysimgguid=", 0 },  { "switchguid=", FAB_NODE_SWITCH },
	{ "caguid=", FAB_NODE_CA }, { "rtguid=", FAB_NODE_ROUTER },
};

/* "vendid=0x2c9", "switchguid=0x...(portguid)" ... */
static int parse_id_line(struct parser *ps, struct cur c, size_t k)
{
	struct pending *pd = &ps->pend;
	const char *key = id_keys[k].key;
	uint64_t v;

	c.p += strlen(key);
	if (!parse_hex(&c, true, &v))
		return perr(ps, -EINVAL, "'%.*s' needs a hex value",
			    (int)strlen(key) - 1, key);
	if (k <= 1) {
		if (v > UINT32_MAX)
			return perr(ps, -EINVAL, "'%.*s' value out of range",
				    (int)strlen(key) - 1, key);
		if (k == 0)
			pd->vendor_id = (uint32_t)v;
		else
			pd->device_id = (uint32_t)v;
	} else if (k == 2) {
		pd->sys_guid = v;
	} else {
		pd->guid = v;
		pd->port_guid = 0;
		pd->type = id_keys[k].type;
		pd->line = ps->line;
		if (eat(&c, '(')) {
			if (!parse_hex(&c, false, &pd->port_guid) || !eat(&c, ')'))
				return perr(ps, -EINVAL,
					    "bad port GUID in '(...)' after '%.*s'",
					    (int)strlen(key) - 1, key);
		}
	}
	skip_ws(&c);
	/* group mode (-g) appends "# Chassis ..." comments */
	if (c.p < c.end && *c.p != '#')
		return perr(ps, -EINVAL, "unexpected text after the '%.*s' value",
			    (int)strlen(key) - 1, key);
	return 0;
}

/* Description after '#': quoted ("..." up to the line's last quote, so
 * quotes and '#' inside are kept) or, unquoted, up to `stop` (or the end).
 * Leaves c after it. */
static int parse_desc(struct parser *ps, struct cur *c, const char *stop,
		      const char **desc, size_t *len)
{
	skip_ws(c);
	if (eat(c, '"')) {
		const char *q = last_quote(c->p, c->end);

		if (!q)
			return perr(ps, -EINVAL,
				    "node description has no closing '\"'");
		*desc = c->p;
		*len = (size_t)(q - c->p);
		c->p = q + 1;
		return 0;
	}
	const char *e = stop ? stop : c->end;
	*desc = c->p;
	while (e > c->p && is_ws(e[-1]))
		e--;
	*len = (size_t)(e - c->p);
	c->p = stop ? stop : c->end;
	return 0;
}

/* "lid N lmc M" anywhere in the tokens of c (N may be missing: "lid  lmc 0"). */
static int parse_lid_lmc(struct parser *ps, struct cur c, bool *have_lid,
			 uint16_t *lid, uint8_t *lmc)
{
	struct cur tok, num;
	unsigned long v;

	while (next_token(&c, &tok)) {
		bool is_lid = token_is(&tok, "lid");

		if (!is_lid && !token_is(&tok, "lmc"))
			continue;
		struct cur save = c;
		if (!next_token(&c, &num) || !token_digits(&num)) {
			c = save; /* blank value */
			continue;
		}
		if (!token_uint(&num, is_lid ? 65535 : 7, &v))
			return perr(ps, -EINVAL, "bad %s value",
				    is_lid ? "LID" : "LMC");
		if (is_lid) {
			*lid = (uint16_t)v;
			*have_lid = true;
		} else {
			*lmc = (uint8_t)v;
		}
	}
	return 0;
}

/* "Switch 36 "S-<guid>" # "desc" enhanced port 0 lid 6 lmc 0",
 * "Ca 2 "H-<guid>" # "desc"", "Rt ...". c starts after the keyword. */
static int parse_header(struct parser *ps, struct cur c, uint8_t type)
{
	struct pending *pd = &ps->pend;
	unsigned long nports;
	uint8_t id_type = 0;
	uint64_t guid = 0;
	struct tnode *n;
	bool have_lid = false;
	uint16_t lid = 0;
	uint8_t lmc = 0;
	const char *desc = NULL;
	size_t desc_len = 0;
	int rc;

	skip_ws(&c);
	if (!parse_uint(&c, 999, &nports) || nports < 1 || nports > MAX_PORTS)
		return perr(ps, -EINVAL,
			    "node header needs a port count from 1 to %d",
			    MAX_PORTS);
	skip_ws(&c);
	if (!parse_node_id(&c, &id_type, &guid)) {
		/* No "S-<guid>" id: the GUID line before it must say. */
		if (!pd->type)
			return perr(ps, -EINVAL,
				    "node header has no \"%c-<guid>\" id and no GUID line before it",
				    letter_from_type(type));
		guid = pd->guid;
		id_type = type;
		if (eat(&c, '"')) {
			const char *q = memchr(c.p, '"', (size_t)(c.end - c.p));
			if (!q)
				return perr(ps, -EINVAL,
					    "node name has no closing '\"'");
			c.p = q + 1;
		}
	}
	if (id_type != type)
		return perr(ps, -EINVAL, "node id \"%c-...\" in a %s header",
			    letter_from_type(id_type),
			    type == FAB_NODE_SWITCH ? "Switch" :
			    type == FAB_NODE_CA ? "Ca" : "Rt");
	if (pd->type && pd->type != type)
		return perr(ps, -EINVAL,
			    "the GUID line at line %zu announces another node type",
			    pd->line);
	/* The id wins over the GUID line: ibdiagnet2.ibnetdiscover writes a
	 * chassis switch's system image GUID in "switchguid=" (the node GUID
	 * follows in parentheses) while every port line names the node by
	 * the id. */
	skip_ws(&c);
	if (eat(&c, '#')) {
		const char *stop = NULL;

		skip_ws(&c);
		if (type == FAB_NODE_SWITCH && (c.p >= c.end || *c.p != '"')) {
			/* unquoted: the description ends before "enhanced|base port 0" */
			stop = find_last(c.p, c.end, "port 0");
			if (stop) {
				const char *w = stop;
				while (w > c.p && is_ws(w[-1]))
					w--;
				if (w - c.p >= 8 && !memcmp(w - 8, "enhanced", 8))
					stop = w - 8;
				else if (w - c.p >= 4 && !memcmp(w - 4, "base", 4))
					stop = w - 4;
			}
		}
		rc = parse_desc(ps, &c, stop, &desc, &desc_len);
		if (rc)
			return rc;
		if (type == FAB_NODE_SWITCH) {
			rc = parse_lid_lmc(ps, c, &have_lid, &lid, &lmc);
			if (rc)
				return rc;
		}
	} else if (c.p < c.end) {
		return perr(ps, -EINVAL, "unexpected text after the node id");
	}

	n = grow((void **)&ps->nodes, &ps->n_nodes, &ps->cap_nodes,
		 sizeof(*n));
	if (!n)
		return perr(ps, -ENOMEM, "out of memory");
	n->guid = guid;
	n->type = type;
	n->nports = (uint8_t)nports;
	n->desc = desc;
	n->desc_len = desc_len;
	n->lid = lid;
	n->lmc = lmc;
	n->line = ps->line;
	n->first = (uint32_t)ps->n_ports;
	if (pd->type) {
		n->port_guid = pd->port_guid;
	}
	n->sys_guid = pd->sys_guid;
	n->vendor_id = pd->vendor_id;
	n->device_id = pd->device_id;
	memset(pd, 0, sizeof(*pd));
	ps->in_block = true;
	return 0;
}

/* "[ext N]" after a port number (group mode). */
static int skip_ext(struct parser *ps, struct cur *c)
{
	unsigned long v;

	if (c->p >= c->end || *c->p != '[')
		return 0;
	if (!eat_word(c, "[ext"))
		return perr(ps, -EINVAL, "unexpected '[' after a port number");
	skip_ws(c);
	if (!parse_uint(c, 999, &v) || !eat(c, ']'))
		return perr(ps, -EINVAL, "bad '[ext N]'");
	return 0;
}

/*
 * Parenthesised groups after a port number: port GUIDs "(2c903000cc89b)"
 * and ibdiagnet labels "(1)", "(1/1/1)", "(B9D0F0/0/0/1)". *guid is set from
 * the last group that is all hex, when guid is not NULL.
 */
static int parse_groups(struct parser *ps, struct cur *c, uint64_t *guid)
{
	for (;;) {
		struct cur save = *c;
		skip_ws(c);
		if (!eat(c, '(')) {
			*c = save;
			return 0;
		}
		const char *q = memchr(c->p, ')', (size_t)(c->end - c->p));
		if (!q)
			return perr(ps, -EINVAL, "'(' without ')'");
		uint64_t v;
		if (guid && all_hex(c->p, q, &v))
			*guid = v;
		c->p = q + 1;
	}
}

/*
 * A port line of the current node:
 *   switch: [p](label) "X-<guid>"[rp](rguid)  # "rdesc" lid RL 4xHDR
 *   CA:     [p](guid)  "X-<guid>"[rp](rguid)  # lid L lmc M "rdesc" lid RL 4xHDR
 */
static int parse_port(struct parser *ps, struct cur c)
{
	uint32_t ni = (uint32_t)(ps->n_nodes - 1);
	const struct tnode *n = &ps->nodes[ni];
	bool is_ca = n->type != FAB_NODE_SWITCH;
	struct tport tp = { .node = ni, .line = ps->line, .remote = FAB_NONE };
	unsigned long num, rport;
	int rc;

	eat(&c, '[');
	if (!parse_uint(&c, 999, &num) || !eat(&c, ']'))
		return perr(ps, -EINVAL, "bad port number");
	if (num < 1 || num > n->nports)
		return perr(ps, -EINVAL,
			    "port %lu is not one of the node's ports 1..%u", num,
			    n->nports);
	tp.num = (uint8_t)num;
	if ((rc = skip_ext(ps, &c)) || (rc = parse_groups(ps, &c, is_ca ? &tp.guid : NULL)))
		return rc;
	skip_ws(&c);
	if (!parse_node_id(&c, &tp.rtype, &tp.rguid)) {
		struct cur tok;
		char buf[64];

		if (!next_token(&c, &tok))
			tok = c;
		return perr(ps, -EINVAL,
			    "port %u: the remote node %s is not \"S-<guid>\" or \"H-<guid>\" (GUID: 1 to 16 hex digits)",
			    tp.num, show(&tok, buf, sizeof(buf)));
	}
	if (!eat(&c, '[') || !parse_uint(&c, 999, &rport) || !eat(&c, ']'))
		return perr(ps, -EINVAL, "port %u: bad remote port number",
			    tp.num);
	if (rport < 1 || rport > MAX_PORTS)
		return perr(ps, -EINVAL, "port %u: remote port %lu out of range",
			    tp.num, rport);
	tp.rport = (uint8_t)rport;
	if ((rc = skip_ext(ps, &c)) || (rc = parse_groups(ps, &c, NULL)))
		return rc;
	skip_ws(&c);
	if (c.p < c.end && !eat(&c, '#'))
		return perr(ps, -EINVAL,
			    "port %u: unexpected text after the remote port",
			    tp.num);
	skip_ws(&c);

	/* CA ports: "lid L lmc M" of the port itself first (L may be blank). */
	if (is_ca && eat_word_ws(&c, "lid")) {
		struct cur tok, save = c;
		unsigned long v;

		if (next_token(&c, &tok) && token_digits(&tok)) {
			if (!token_uint(&tok, 65535, &v))
				return perr(ps, -EINVAL, "port %u: bad LID", tp.num);
			tp.lid = (uint16_t)v;
			tp.have_lid = true;
		} else {
			c = save;
		}
		skip_ws(&c);
		if (eat_word_ws(&c, "lmc")) {
			save = c;
			if (next_token(&c, &tok) && token_digits(&tok)) {
				if (!token_uint(&tok, 7, &v))
					return perr(ps, -EINVAL, "port %u: bad LMC",
						    tp.num);
				tp.lmc = (uint8_t)v;
			} else {
				c = save;
			}
		}
	}
	/* The remote's description, then "lid RL 4xHDR" (RL may be blank). */
	skip_ws(&c);
	if (eat(&c, '"')) {
		const char *q = last_quote(c.p, c.end);
		if (!q)
			return perr(ps, -EINVAL,
				    "port %u: remote description has no closing '\"'",
				    tp.num);
		c.p = q + 1;
	} else {
		const char *l = find_last_word(c.p, c.end, "lid");
		c.p = l ? l : c.end;
	}
	struct cur tok;
	char buf[64];
	bool more = next_token(&c, &tok);
	if (more && token_is(&tok, "lid")) {
		unsigned long v;

		more = next_token(&c, &tok);
		if (more && token_digits(&tok)) {
			if (!token_uint(&tok, 65535, &v))
				return perr(ps, -EINVAL,
					    "port %u: remote LID %s out of range",
					    tp.num, show(&tok, buf, sizeof(buf)));
			more = next_token(&c, &tok);
		}
		if (more && !parse_rate(&tok, &tp.width, &tp.speed))
			return perr(ps, -EINVAL,
				    "port %u: %s is neither a LID nor a width and speed such as 4xHDR",
				    tp.num, show(&tok, buf, sizeof(buf)));
	}

	struct tport *p = grow((void **)&ps->ports, &ps->n_ports,
			       &ps->cap_ports, sizeof(*p));
	if (!p)
		return perr(ps, -ENOMEM, "out of memory");
	*p = tp;
	ps->nodes[ni].count++;
	return 0;
}

static int parse_line(struct parser *ps, const char *b, const char *e)
{
	struct cur c = { b, e };

	skip_ws(&c);
	while (c.end > c.p && is_ws(c.end[-1]))
		c.end--;
	if (c.p == c.end)
		return 0; /* blank: does not end a node block */
	if (*c.p == '#') {
		parse_comment(ps, c);
		return 0;
	}
	if (*c.p == '[' && c.end - c.p > 1 && is_digit(c.p[1])) {
		if (ps->in_block)
			return parse_port(ps, c);
		if (ps->n_nodes == 0)
			return 0; /* before the first node: junk such as a prompt */
		return perr(ps, -EINVAL,
			    "port line outside a node block (no Switch/Ca header before it)");
	}
	for (size_t k = 0; k < sizeof(id_keys) / sizeof(id_keys[0]); k++) {
		size_t n = strlen(id_keys[k].key);
		if ((size_t)(c.end - c.p) >= n && !memcmp(c.p, id_keys[k].key, n)) {
			ps->in_block = false;
			return parse_id_line(ps, c, k);
		}
	}
	static const struct {
		const char *word;
		uint8_t type;
	} headers[] = { { "Switch", FAB_NODE_SWITCH },
			{ "Ca", FAB_NODE_CA },
			{ "Rt", FAB_NODE_ROUTER } };
	for (size_t k = 0; k < sizeof(headers) / sizeof(headers[0]); k++) {
		struct cur h = c;
		if (eat_word(&h, headers[k].word) && h.p < h.end &&
		    (is_ws(*h.p) || is_digit(*h.p)))
			return parse_header(ps, h, headers[k].type);
	}
	/* Anything else (a shell prompt, a PuTTY banner, a warning on stderr,
	 * group mode's "Chassis" lines) is not ibnetdiscover data. */
	ps->in_block = false;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Checking and resolving.                                             */

struct guid_idx {
	uint64_t guid;
	uint32_t idx;
};

static int cmp_guid_idx(const void *a, const void *b)
{
	const struct guid_idx *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_tport(const void *a, const void *b)
{
	const struct tport *x = a, *y = b;

	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Node index by GUID, FAB_NONE when absent. */
static uint32_t find_node(const struct guid_idx *order, size_t n, uint64_t guid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (order[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && order[lo].guid == guid ? order[lo].idx : FAB_NONE;
}

/* Port index (in ps->ports) of port num of node ni, FAB_NONE when absent. */
static uint32_t find_port(const struct parser *ps, uint32_t ni, unsigned num)
{
	const struct tnode *n = &ps->nodes[ni];
	size_t lo = n->first, hi = (size_t)n->first + n->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->ports[mid].num < num)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (size_t)n->first + n->count && ps->ports[lo].num == num ?
		       (uint32_t)lo : FAB_NONE;
}

/* Sorts ports, refuses duplicate nodes and ports, resolves remote ends. */
static int check_and_resolve(struct parser *ps, struct guid_idx **out)
{
	struct guid_idx *order;

	for (size_t i = 0; i < ps->n_nodes; i++) {
		struct tnode *n = &ps->nodes[i];
		struct tport *p;

		if (n->count < 2)
			continue;
		p = &ps->ports[n->first];
		qsort(p, n->count, sizeof(*p), cmp_tport);
		for (uint32_t k = 1; k < n->count; k++) {
			if (p[k].num == p[k - 1].num) {
				ps->line = p[k].line;
				return perr(ps, -EINVAL,
					    "port %u of %c-%016" PRIx64
					    " is listed twice (also at line %zu)",
					    p[k].num, letter_from_type(n->type),
					    n->guid, p[k - 1].line);
			}
		}
	}
	order = malloc((ps->n_nodes + 1) * sizeof(*order));
	if (!order)
		return fab_err(-ENOMEM, "%s: out of memory", ps->name);
	for (size_t i = 0; i < ps->n_nodes; i++) {
		order[i].guid = ps->nodes[i].guid;
		order[i].idx = (uint32_t)i;
	}
	qsort(order, ps->n_nodes, sizeof(*order), cmp_guid_idx);
	for (size_t i = 1; i < ps->n_nodes; i++) {
		if (order[i].guid == order[i - 1].guid) {
			const struct tnode *a = &ps->nodes[order[i - 1].idx];
			const struct tnode *b = &ps->nodes[order[i].idx];
			ps->line = b->line;
			free(order);
			return perr(ps, -EINVAL,
				    "node GUID 0x%016" PRIx64
				    " is described twice (also at line %zu)",
				    b->guid, a->line);
		}
	}
	for (size_t i = 0; i < ps->n_ports; i++) {
		struct tport *p = &ps->ports[i];
		const struct tnode *n = &ps->nodes[p->node];
		uint32_t rn = find_node(order, ps->n_nodes, p->rguid);

		if (rn == FAB_NONE ||
		    (p->rtype && p->rtype != ps->nodes[rn].type))
			continue;
		uint32_t rp = find_port(ps, rn, p->rport);
		if (rp == FAB_NONE)
			continue;
		if (ps->ports[rp].rguid == n->guid &&
		    ps->ports[rp].rport == p->num)
			p->remote = rp;
	}
	/* Only pairs that confirm each other are links: an end whose own line
	 * failed a check (the type letter) leaves the other end a hole too. */
	for (size_t i = 0; i < ps->n_ports; i++) {
		struct tport *p = &ps->ports[i];
		if (p->remote != FAB_NONE && ps->ports[p->remote].remote != i)
			p->remote = FAB_NONE;
	}
	*out = order;
	return 0;
}

static const char *type_noun(unsigned type)
{
	switch (type) {
	case FAB_NODE_SWITCH:
		return "a switch";
	case FAB_NODE_CA:
		return "a CA";
	case FAB_NODE_ROUTER:
		return "a router";
	default:
		return "an unknown type";
	}
}

/* Why a port's remote end did not resolve, for the scan error. */
static const char *unresolved_why(const struct parser *ps,
				  const struct guid_idx *order,
				  const struct tport *p, char *buf, size_t cap)
{
	uint32_t rn = find_node(order, ps->n_nodes, p->rguid);
	uint32_t rp;

	if (rn == FAB_NONE)
		return "which the file does not describe";
	if (p->rtype && p->rtype != ps->nodes[rn].type) {
		snprintf(buf, cap, "but the file describes that node as %s",
			 type_noun(ps->nodes[rn].type));
		return buf;
	}
	rp = find_port(ps, rn, p->rport);
	if (rp == FAB_NONE)
		return "which does not list that port";
	if (ps->ports[rp].rguid != ps->nodes[p->node].guid ||
	    ps->ports[rp].rport != p->num)
		return "which names another remote end";
	return "whose line names this node as another type";
}

/* ------------------------------------------------------------------ */
/* Filling the snapshot.                                               */

static struct fab_port *add_port(struct fab_snapshot *snap, uint32_t node_idx)
{
	struct fab_port *p = fab_snapshot_add_port(snap);

	if (p) {
		p->node_idx = node_idx;
		snap->nodes[node_idx].port_count++;
	}
	return p;
}

/* Hops from the node the discovery started at, by breadth-first search over
 * the links; nodes it does not reach keep -1. */
static int set_hops(struct fab_snapshot *snap, uint64_t origin)
{
	uint32_t start = fab_snapshot_find_node(snap, origin);
	uint32_t *queue, head = 0, tail = 0;

	if (start == FAB_NONE)
		return 0;
	queue = malloc(snap->n_nodes * sizeof(*queue));
	if (!queue)
		return -ENOMEM;
	snap->nodes[start].hops = 0;
	queue[tail++] = start;
	while (head < tail) {
		const struct fab_node *n = &snap->nodes[queue[head++]];

		for (uint32_t k = 0; k < n->port_count; k++) {
			uint32_t r = snap->ports[n->port_first + k].remote_idx;
			struct fab_node *m;

			if (r == FAB_NONE)
				continue;
			m = &snap->nodes[snap->ports[r].node_idx];
			if (m->hops >= 0)
				continue;
			m->hops = (int16_t)(n->hops < INT16_MAX ? n->hops + 1 : INT16_MAX);
			queue[tail++] = snap->ports[r].node_idx;
		}
	}
	free(queue);
	return 0;
}

static bool any_link(const struct parser *ps)
{
	for (size_t i = 0; i < ps->n_ports; i++)
		if (ps->ports[i].remote != FAB_NONE)
			return true;
	return false;
}

static int fill(struct parser *ps, const struct guid_idx *order,
		struct fab_snapshot *snap)
{
	bool partial = false;

	for (size_t i = 0; i < ps->n_nodes; i++) {
		const struct tnode *t = &ps->nodes[i];
		struct fab_node *n = fab_snapshot_add_node(snap);
		uint32_t ni = (uint32_t)(snap->n_nodes - 1);
		uint64_t port_guid = t->port_guid ? t->port_guid : t->guid;
		struct fab_port *p;

		if (!n)
			return -ENOMEM;
		n->guid = t->guid;
		n->sys_guid = t->sys_guid;
		n->type = t->type;
		n->num_ports = t->nports;
		n->vendor_id = t->vendor_id;
		n->device_id = t->device_id;
		n->lid = t->lid;
		fab_node_set_desc(n, (const uint8_t *)(t->desc ? t->desc : ""),
				  t->desc_len);
		if (t->type == FAB_NODE_SWITCH) {
			if (!(p = add_port(snap, ni)))
				return -ENOMEM;
			p->port_num = 0;
			p->guid = port_guid;
			p->lid = t->lid;
			p->lmc = t->lmc;
			p->state = FAB_STATE_ACTIVE;
			p->phys_state = FAB_PHYS_LINKUP;
		}
		for (uint32_t k = 0; k < t->count; k++) {
			struct tport *tp = &ps->ports[t->first + k];

			if (!(p = add_port(snap, ni)))
				return -ENOMEM;
			tp->snap_idx = (uint32_t)(snap->n_ports - 1);
			p->port_num = tp->num;
			if (t->type == FAB_NODE_SWITCH) {
				p->guid = port_guid;
				p->lid = t->lid;
			} else {
				p->guid = tp->guid;
				p->lid = tp->lid;
				p->lmc = tp->lmc;
				if (tp->have_lid && !snap->nodes[ni].lid)
					snap->nodes[ni].lid = tp->lid;
			}
			p->state = FAB_STATE_ACTIVE;
			p->phys_state = FAB_PHYS_LINKUP;
			p->width_active = tp->width;
			p->speed_active = tp->speed;
			p->remote_guid = tp->rguid;
			p->remote_port = tp->rport;
		}
	}
	for (size_t i = 0; i < ps->n_ports; i++) {
		const struct tport *tp = &ps->ports[i];
		const struct tnode *t = &ps->nodes[tp->node];
		struct fab_port *p = &snap->ports[tp->snap_idx];

		if (tp->remote != FAB_NONE) {
			p->remote_idx = ps->ports[tp->remote].snap_idx;
			continue;
		}
		char why[64];

		partial = true;
		p->flags |= FAB_F_NO_REMOTE;
		if (fab_snapshot_add_error(
			    snap, t->guid, tp->num, "hole",
			    "%s:%zu: %c-%016" PRIx64 " port %u is cabled to %c-%016" PRIx64
			    " port %u, %s",
			    ps->name, tp->line, letter_from_type(t->type), t->guid,
			    tp->num, letter_from_type(tp->rtype), tp->rguid,
			    tp->rport,
			    unresolved_why(ps, order, tp, why, sizeof(why))))
			return -ENOMEM;
	}
	snap->status = partial ? FAB_SCAN_PARTIAL : FAB_SCAN_COMPLETE;
	if (ps->have_time)
		snap->started_at_ms = snap->finished_at_ms = ps->time_ms;
	snap->source = fab_snapshot_printf(snap, "file:%s", ps->name);
	if (!snap->source)
		return -ENOMEM;
	/* (build_links would hand qsort a NULL array when there is no link) */
	snap->n_links = 0;
	if (any_link(ps) && fab_snapshot_build_links(snap))
		return -ENOMEM;
	if (fab_snapshot_index(snap))
		return -ENOMEM;
	/* leaf/spine/core as a live scan assigns them */
	fab_topology_assign_roles(snap);
	if (ps->have_origin)
		return set_hops(snap, ps->origin);
	return 0;
}

int fab_topo_import(const char *text, size_t len, const char *name,
		    struct fab_snapshot *snap)
{
	struct parser ps = { .name = name ? name : "<input>" };
	const char *p, *end;
	struct guid_idx *order = NULL;
	int rc = 0;

	if (!snap || (!text && len))
		return fab_err(-EINVAL, "%s: no input or no snapshot", ps.name);
	if (!text)
		text = "";
	p = text;
	end = text + len;
	if (snap->n_nodes || snap->n_ports)
		return fab_err(-EINVAL,
			       "%s: the snapshot to import into is not empty",
			       ps.name);
	if (len >= 2 && ((p[0] == '\xff' && p[1] == '\xfe') ||
			 (p[0] == '\xfe' && p[1] == '\xff'))) {
		ps.line = 1;
		return perr(&ps, -EINVAL,
			    "UTF-16 text; convert it first: iconv -f UTF-16 -t UTF-8");
	}
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		ps.line++;
		if (le - p > FAB_TOPO_LINE_MAX) {
			rc = perr(&ps, -EINVAL,
				  "line longer than %d bytes: not ibnetdiscover output",
				  FAB_TOPO_LINE_MAX);
			goto out;
		}
		rc = parse_line(&ps, p, le);
		if (rc)
			goto out;
		p = nl ? nl + 1 : end;
	}
	if (ps.n_nodes == 0) {
		ps.line = ps.line ? ps.line : 1;
		rc = perr(&ps, -EINVAL,
			  "no Switch, Ca or Rt node found: not ibnetdiscover output");
		goto out;
	}
	rc = check_and_resolve(&ps, &order);
	if (rc)
		goto out;

	size_t n_links = snap->n_links, n_errors = snap->n_errors;
	struct fab_snapshot saved = *snap;
	rc = fill(&ps, order, snap);
	if (rc) {
		/* Leave the snapshot as it was (strings stay in its arena). */
		snap->n_nodes = snap->n_ports = 0;
		snap->n_links = n_links;
		snap->n_errors = n_errors;
		snap->status = saved.status;
		snap->source = saved.source;
		snap->started_at_ms = saved.started_at_ms;
		snap->finished_at_ms = saved.finished_at_ms;
		rc = fab_err(rc, "%s: out of memory", ps.name);
	}
out:
	free(order);
	free(ps.nodes);
	free(ps.ports);
	return rc;
}

int fab_topo_import_file(const char *path, struct fab_snapshot *snap)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (!f)
		return fab_err(-errno, "cannot open '%s': %s", path,
			       strerror(errno));
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : (size_t)1 << 16;
			char *nb;

			if (cap >= FAB_TOPO_FILE_MAX) {
				char extra;

				if (fread(&extra, 1, 1, f) == 0 && !ferror(f))
					break; /* exactly at the limit */
				rc = fab_err(-EFBIG,
					     "'%s' is larger than %zu bytes: not a topology file",
					     path, FAB_TOPO_FILE_MAX);
				goto out;
			}
			if (ncap > FAB_TOPO_FILE_MAX)
				ncap = FAB_TOPO_FILE_MAX;
			nb = realloc(buf, ncap);
			if (!nb) {
				rc = fab_err(-ENOMEM, "'%s': out of memory", path);
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f)) {
				rc = fab_err(-EIO, "cannot read '%s'", path);
				goto out;
			}
			break;
		}
	}
	rc = fab_topo_import(buf, len, path, snap);
out:
	free(buf);
	fclose(f);
	return rc;
}
