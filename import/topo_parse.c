// SPDX-License-Identifier: MIT
/*
 * The line parser of the ibnetdiscover importer: comments (the generation
 * time, the node discovery started from), node blocks (id lines, headers)
 * and port lines, into the parser's node and port records. Descriptions
 * point into the input; nothing is copied.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "import/topo_import.h"

/* ------------------------------------------------------------------ */
/* Comments: the generation time and the node discovery started from.  */

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr",
				      "May", "Jun", "Jul", "Aug",
				      "Sep", "Oct", "Nov", "Dec" };

/* "hh:mm:ss" */
static bool parse_hms(struct cur *c, struct tm *tm)
{
	unsigned long h, m, s;

	if (!ti_parse_uint(c, 23, &h) || !ti_eat(c, ':') || !ti_parse_uint(c, 59, &m) ||
	    !ti_eat(c, ':') || !ti_parse_uint(c, 60, &s))
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

	if (!ti_next_token(&c, &tok) || !ti_next_token(&c, &tok))
		return; /* weekday, month */
	for (int i = 0; i < 12; i++)
		if (ti_token_is(&tok, months[i]))
			mon = i;
	ti_skip_ws(&c);
	if (mon < 0 || !ti_parse_uint(&c, 31, &day) || day == 0)
		return;
	ti_skip_ws(&c);
	if (!parse_hms(&c, &tm))
		return;
	ti_skip_ws(&c);
	if (!ti_parse_uint(&c, 9999, &year) || year < 1970)
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

	ti_skip_ws(&c);
	if (!ti_parse_uint(&c, 9999, &y) || y < 1970 || !ti_eat(&c, '-') ||
	    !ti_parse_uint(&c, 12, &mo) || mo == 0 || !ti_eat(&c, '-') ||
	    !ti_parse_uint(&c, 31, &d) || d == 0)
		return;
	ti_skip_ws(&c);
	if (!parse_hms(&c, &tm))
		return;
	while (ti_next_token(&c, &tok)) {
		bool neg = *tok.p == '-';
		struct cur num = { tok.p + 1, tok.end };

		if ((*tok.p == '+' || neg) && tok.end - tok.p == 5 &&
		    ti_token_uint(&num, 9999, &off) && off % 100 < 60 &&
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
	    (k = ti_find_last(c.p, c.end, "Initiated from node "))) {
		struct cur t = { k + strlen("Initiated from node "), c.end };
		ps->have_origin = ti_parse_hex(&t, true, &ps->origin);
		return;
	}
	if (ps->have_time)
		return;
	if ((k = ti_find_last(c.p, c.end, "generated on "))) {
		c.p = k + strlen("generated on ");
		parse_ctime(ps, c);
	} else if ((k = ti_find_last(c.p, c.end, "imestamp"))) {
		/* "# Timestamp: ..." and "# Running timestamp : ..." */
		c.p = k + strlen("imestamp");
		ti_skip_ws(&c);
		if (ti_eat(&c, ':'))
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
	if (!ti_parse_hex(&c, true, &v))
		return ti_perr(ps, -EINVAL, "'%.*s' needs a hex value",
			    (int)strlen(key) - 1, key);
	if (k <= 1) {
		if (v > UINT32_MAX)
			return ti_perr(ps, -EINVAL, "'%.*s' value out of range",
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
		if (ti_eat(&c, '(')) {
			if (!ti_parse_hex(&c, false, &pd->port_guid) || !ti_eat(&c, ')'))
				return ti_perr(ps, -EINVAL,
					    "bad port GUID in '(...)' after '%.*s'",
					    (int)strlen(key) - 1, key);
		}
	}
	ti_skip_ws(&c);
	/* group mode (-g) appends "# Chassis ..." comments */
	if (c.p < c.end && *c.p != '#')
		return ti_perr(ps, -EINVAL, "unexpected text after the '%.*s' value",
			    (int)strlen(key) - 1, key);
	return 0;
}

/* Description after '#': quoted ("..." up to the line's last quote, so
 * quotes and '#' inside are kept) or, unquoted, up to `stop` (or the end).
 * Leaves c after it. */
static int parse_desc(struct parser *ps, struct cur *c, const char *stop,
		      const char **desc, size_t *len)
{
	ti_skip_ws(c);
	if (ti_eat(c, '"')) {
		const char *q = ti_last_quote(c->p, c->end);

		if (!q)
			return ti_perr(ps, -EINVAL,
				    "node description has no closing '\"'");
		*desc = c->p;
		*len = (size_t)(q - c->p);
		c->p = q + 1;
		return 0;
	}
	const char *e = stop ? stop : c->end;
	*desc = c->p;
	while (e > c->p && ti_is_ws(e[-1]))
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

	while (ti_next_token(&c, &tok)) {
		bool is_lid = ti_token_is(&tok, "lid");

		if (!is_lid && !ti_token_is(&tok, "lmc"))
			continue;
		struct cur save = c;
		if (!ti_next_token(&c, &num) || !ti_token_digits(&num)) {
			c = save; /* blank value */
			continue;
		}
		if (!ti_token_uint(&num, is_lid ? 65535 : 7, &v))
			return ti_perr(ps, -EINVAL, "bad %s value",
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

	ti_skip_ws(&c);
	if (!ti_parse_uint(&c, 999, &nports) || nports < 1 || nports > MAX_PORTS)
		return ti_perr(ps, -EINVAL,
			    "node header needs a port count from 1 to %d",
			    MAX_PORTS);
	ti_skip_ws(&c);
	if (!ti_parse_node_id(&c, &id_type, &guid)) {
		/* No "S-<guid>" id: the GUID line before it must say. */
		if (!pd->type)
			return ti_perr(ps, -EINVAL,
				    "node header has no \"%c-<guid>\" id and no GUID line before it",
				    ti_letter_from_type(type));
		guid = pd->guid;
		id_type = type;
		if (ti_eat(&c, '"')) {
			const char *q = memchr(c.p, '"', (size_t)(c.end - c.p));
			if (!q)
				return ti_perr(ps, -EINVAL,
					    "node name has no closing '\"'");
			c.p = q + 1;
		}
	}
	if (id_type != type)
		return ti_perr(ps, -EINVAL, "node id \"%c-...\" in a %s header",
			    ti_letter_from_type(id_type),
			    type == FAB_NODE_SWITCH ? "Switch" :
			    type == FAB_NODE_CA ? "Ca" : "Rt");
	if (pd->type && pd->type != type)
		return ti_perr(ps, -EINVAL,
			    "the GUID line at line %zu announces another node type",
			    pd->line);
	/* The id wins over the GUID line: ibdiagnet2.ibnetdiscover writes a
	 * chassis switch's system image GUID in "switchguid=" (the node GUID
	 * follows in parentheses) while every port line names the node by
	 * the id. */
	ti_skip_ws(&c);
	if (ti_eat(&c, '#')) {
		const char *stop = NULL;

		ti_skip_ws(&c);
		if (type == FAB_NODE_SWITCH && (c.p >= c.end || *c.p != '"')) {
			/* unquoted: the description ends before "enhanced|base port 0" */
			stop = ti_find_last(c.p, c.end, "port 0");
			if (stop) {
				const char *w = stop;
				while (w > c.p && ti_is_ws(w[-1]))
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
		return ti_perr(ps, -EINVAL, "unexpected text after the node id");
	}

	n = fab_array_grow((void **)&ps->nodes, &ps->n_nodes, &ps->cap_nodes,
		 sizeof(*n));
	if (!n)
		return ti_perr(ps, -ENOMEM, "out of memory");
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
	if (!ti_eat_word(c, "[ext"))
		return ti_perr(ps, -EINVAL, "unexpected '[' after a port number");
	ti_skip_ws(c);
	if (!ti_parse_uint(c, 999, &v) || !ti_eat(c, ']'))
		return ti_perr(ps, -EINVAL, "bad '[ext N]'");
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
		ti_skip_ws(c);
		if (!ti_eat(c, '(')) {
			*c = save;
			return 0;
		}
		const char *q = memchr(c->p, ')', (size_t)(c->end - c->p));
		if (!q)
			return ti_perr(ps, -EINVAL, "'(' without ')'");
		uint64_t v;
		if (guid && ti_all_hex(c->p, q, &v))
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

	ti_eat(&c, '[');
	if (!ti_parse_uint(&c, 999, &num) || !ti_eat(&c, ']'))
		return ti_perr(ps, -EINVAL, "bad port number");
	if (num < 1 || num > n->nports)
		return ti_perr(ps, -EINVAL,
			    "port %lu is not one of the node's ports 1..%u", num,
			    n->nports);
	tp.num = (uint8_t)num;
	if ((rc = skip_ext(ps, &c)) || (rc = parse_groups(ps, &c, is_ca ? &tp.guid : NULL)))
		return rc;
	ti_skip_ws(&c);
	if (!ti_parse_node_id(&c, &tp.rtype, &tp.rguid)) {
		struct cur tok;
		char buf[64];

		if (!ti_next_token(&c, &tok))
			tok = c;
		return ti_perr(ps, -EINVAL,
			    "port %u: the remote node %s is not \"S-<guid>\" or \"H-<guid>\" (GUID: 1 to 16 hex digits)",
			    tp.num, ti_show(&tok, buf, sizeof(buf)));
	}
	if (!ti_eat(&c, '[') || !ti_parse_uint(&c, 999, &rport) || !ti_eat(&c, ']'))
		return ti_perr(ps, -EINVAL, "port %u: bad remote port number",
			    tp.num);
	if (rport < 1 || rport > MAX_PORTS)
		return ti_perr(ps, -EINVAL, "port %u: remote port %lu out of range",
			    tp.num, rport);
	tp.rport = (uint8_t)rport;
	if ((rc = skip_ext(ps, &c)) || (rc = parse_groups(ps, &c, NULL)))
		return rc;
	ti_skip_ws(&c);
	if (c.p < c.end && !ti_eat(&c, '#'))
		return ti_perr(ps, -EINVAL,
			    "port %u: unexpected text after the remote port",
			    tp.num);
	ti_skip_ws(&c);

	/* CA ports: "lid L lmc M" of the port itself first (L may be blank). */
	if (is_ca && ti_eat_word_ws(&c, "lid")) {
		struct cur tok, save = c;
		unsigned long v;

		if (ti_next_token(&c, &tok) && ti_token_digits(&tok)) {
			if (!ti_token_uint(&tok, 65535, &v))
				return ti_perr(ps, -EINVAL, "port %u: bad LID", tp.num);
			tp.lid = (uint16_t)v;
			tp.have_lid = true;
		} else {
			c = save;
		}
		ti_skip_ws(&c);
		if (ti_eat_word_ws(&c, "lmc")) {
			save = c;
			if (ti_next_token(&c, &tok) && ti_token_digits(&tok)) {
				if (!ti_token_uint(&tok, 7, &v))
					return ti_perr(ps, -EINVAL, "port %u: bad LMC",
						    tp.num);
				tp.lmc = (uint8_t)v;
			} else {
				c = save;
			}
		}
	}
	/* The remote's description, then "lid RL 4xHDR" (RL may be blank). */
	ti_skip_ws(&c);
	if (ti_eat(&c, '"')) {
		const char *q = ti_last_quote(c.p, c.end);
		if (!q)
			return ti_perr(ps, -EINVAL,
				    "port %u: remote description has no closing '\"'",
				    tp.num);
		c.p = q + 1;
	} else {
		const char *l = ti_find_last_word(c.p, c.end, "lid");
		c.p = l ? l : c.end;
	}
	struct cur tok;
	char buf[64];
	bool more = ti_next_token(&c, &tok);
	if (more && ti_token_is(&tok, "lid")) {
		unsigned long v;

		more = ti_next_token(&c, &tok);
		if (more && ti_token_digits(&tok)) {
			if (!ti_token_uint(&tok, 65535, &v))
				return ti_perr(ps, -EINVAL,
					    "port %u: remote LID %s out of range",
					    tp.num, ti_show(&tok, buf, sizeof(buf)));
			more = ti_next_token(&c, &tok);
		}
		if (more && !ti_parse_rate(&tok, &tp.width, &tp.speed))
			return ti_perr(ps, -EINVAL,
				    "port %u: %s is neither a LID nor a width and speed such as 4xHDR",
				    tp.num, ti_show(&tok, buf, sizeof(buf)));
	}

	struct tport *p = fab_array_grow((void **)&ps->ports, &ps->n_ports,
			       &ps->cap_ports, sizeof(*p));
	if (!p)
		return ti_perr(ps, -ENOMEM, "out of memory");
	*p = tp;
	ps->nodes[ni].count++;
	return 0;
}

int ti_parse_line(struct parser *ps, const char *b, const char *e)
{
	struct cur c = { b, e };

	ti_skip_ws(&c);
	while (c.end > c.p && ti_is_ws(c.end[-1]))
		c.end--;
	if (c.p == c.end)
		return 0; /* blank: does not end a node block */
	if (*c.p == '#') {
		parse_comment(ps, c);
		return 0;
	}
	if (*c.p == '[' && c.end - c.p > 1 && ti_is_digit(c.p[1])) {
		if (ps->in_block)
			return parse_port(ps, c);
		if (ps->n_nodes == 0)
			return 0; /* before the first node: junk such as a prompt */
		return ti_perr(ps, -EINVAL,
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
		if (ti_eat_word(&h, headers[k].word) && h.p < h.end &&
		    (ti_is_ws(*h.p) || ti_is_digit(*h.p)))
			return parse_header(ps, h, headers[k].type);
	}
	/* Anything else (a shell prompt, a PuTTY banner, a warning on stderr,
	 * group mode's "Chassis" lines) is not ibnetdiscover data. */
	ps->in_block = false;
	return 0;
}

