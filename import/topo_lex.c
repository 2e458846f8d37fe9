// SPDX-License-Identifier: MIT
/*
 * The lexer of the ibnetdiscover importer: bounded views of one line
 * (struct cur), numbers with their ranges checked, GUIDs, tokens, node ids
 * ("S-0x..."), link rates ("4xHDR"). Never looks past a line's end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "import/topo_import.h"

/* Records "NAME:LINE: message" and returns code. */
int ti_perr(const struct parser *ps, int code, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_err(code, "%s:%zu: %s", ps->name, ps->line, msg);
}

bool ti_is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
	       ch == '\f';
}

bool ti_is_digit(char ch)
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

void ti_skip_ws(struct cur *c)
{
	while (c->p < c->end && ti_is_ws(*c->p))
		c->p++;
}

bool ti_eat(struct cur *c, char ch)
{
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* Consumes word when the text starts with it. */
bool ti_eat_word(struct cur *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
		return false;
	c->p += n;
	return true;
}

/* Decimal number <= max; false (cursor unchanged) when there is none. */
bool ti_parse_uint(struct cur *c, unsigned long max, unsigned long *out)
{
	const char *p = c->p;
	unsigned long v = 0;

	if (p >= c->end || !ti_is_digit(*p))
		return false;
	for (; p < c->end && ti_is_digit(*p); p++) {
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
bool ti_parse_hex(struct cur *c, bool with_prefix, uint64_t *out)
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
bool ti_all_hex(const char *b, const char *e, uint64_t *out)
{
	struct cur t = { b, e };

	return ti_parse_hex(&t, false, out) && t.p == e;
}

/* Last occurrence of needle in [b, e), or NULL. */
const char *ti_find_last(const char *b, const char *e, const char *needle)
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
	return p == e || ti_is_ws(*p);
}

/* Last occurrence of word in [b, e) that is a whole token, or NULL. */
const char *ti_find_last_word(const char *b, const char *e,
				  const char *word)
{
	size_t n = strlen(word);
	const char *p = e;

	while ((p = ti_find_last(b, p, word))) {
		if ((p == b || ti_is_ws(p[-1])) && is_word_end(p + n, e))
			return p;
		if (p == b)
			break;
		p = p + n - 1; /* search again before this match's end */
	}
	return NULL;
}

/* Last '"' in [b, e), or NULL. */
const char *ti_last_quote(const char *b, const char *e)
{
	while (e > b) {
		e--;
		if (*e == '"')
			return e;
	}
	return NULL;
}

/* The next whitespace-separated token; false at the end. */
bool ti_next_token(struct cur *c, struct cur *tok)
{
	ti_skip_ws(c);
	if (c->p >= c->end)
		return false;
	tok->p = c->p;
	while (c->p < c->end && !ti_is_ws(*c->p))
		c->p++;
	tok->end = c->p;
	return true;
}

/* Consumes word when the text starts with it as a whole token. */
bool ti_eat_word_ws(struct cur *c, const char *word)
{
	struct cur t = *c;

	if (!ti_eat_word(&t, word) || !is_word_end(t.p, t.end))
		return false;
	*c = t;
	return true;
}

bool ti_token_digits(const struct cur *tok)
{
	for (const char *p = tok->p; p < tok->end; p++)
		if (!ti_is_digit(*p))
			return false;
	return tok->p < tok->end;
}

bool ti_token_is(const struct cur *tok, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(tok->end - tok->p) == n && memcmp(tok->p, word, n) == 0;
}

/* A token that is a whole decimal number <= max. */
bool ti_token_uint(const struct cur *tok, unsigned long max,
		       unsigned long *out)
{
	struct cur t = *tok;

	return ti_parse_uint(&t, max, out) && t.p == t.end;
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

char ti_letter_from_type(unsigned type)
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
int ti_parse_node_id(struct cur *c, uint8_t *type, uint64_t *guid)
{
	struct cur t = *c;
	char letter;

	if (!ti_eat(&t, '"') || t.p >= t.end)
		return 0;
	letter = *t.p++;
	if ((letter != '?' && !type_from_letter(letter)) || !ti_eat(&t, '-') ||
	    !ti_parse_hex(&t, false, guid) || !ti_eat(&t, '"'))
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
bool ti_parse_rate(const struct cur *tok, uint8_t *width, uint16_t *speed)
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
	if (!ti_parse_uint(&t, 99, &lanes)) {
		if (!ti_eat(&t, '?'))
			return false;
		while (ti_eat(&t, '?'))
			;
	}
	if (!ti_eat(&t, 'x') && !ti_eat(&t, 'X'))
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
		if (ti_token_is(&t, speeds[i].name))
			*speed = speeds[i].bit;
	return true;
}

/* A token for a message: quoted, escaped, cut to fit buf. */
const char *ti_show(const struct cur *tok, char *buf, size_t cap)
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

