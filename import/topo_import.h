/* SPDX-License-Identifier: MIT */
/*
 * Private to the ibnetdiscover importer (import/topo_import.c): the
 * records the parser fills, the line lexer (topo_lex.c) and the line
 * parser (topo_parse.c). fabsweep/topo.h is the public side. Everything
 * here is prefixed ti_ (topology import).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

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

/* Records "NAME:LINE: message" (fab_err) and returns code. */
int ti_perr(const struct parser *ps, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- the lexer (topo_lex.c): bounded views of one line ----------------- */

bool ti_is_ws(char ch);
bool ti_is_digit(char ch);
void ti_skip_ws(struct cur *c);
bool ti_eat(struct cur *c, char ch);
/* Consumes word when the text starts with it. */
bool ti_eat_word(struct cur *c, const char *word);
/* Decimal number <= max; false (cursor unchanged) when there is none. */
bool ti_parse_uint(struct cur *c, unsigned long max, unsigned long *out);
/* 1 to 16 hex digits, "0x" allowed when with_prefix; false (cursor
 * unchanged) otherwise. */
bool ti_parse_hex(struct cur *c, bool with_prefix, uint64_t *out);
/* The whole of [b, e) is 1 to 16 hex digits. */
bool ti_all_hex(const char *b, const char *e, uint64_t *out);
/* Last occurrence of needle in [b, e), or NULL. */
const char *ti_find_last(const char *b, const char *e, const char *needle);
/* Last occurrence of word in [b, e) that is a whole token, or NULL. */
const char *ti_find_last_word(const char *b, const char *e,
				  const char *word);
/* Last '"' in [b, e), or NULL. */
const char *ti_last_quote(const char *b, const char *e);
/* The next whitespace-separated token; false at the end. */
bool ti_next_token(struct cur *c, struct cur *tok);
/* Consumes word when the text starts with it as a whole token. */
bool ti_eat_word_ws(struct cur *c, const char *word);
bool ti_token_digits(const struct cur *tok);
bool ti_token_is(const struct cur *tok, const char *word);
/* A token that is a whole decimal number <= max. */
bool ti_token_uint(const struct cur *tok, unsigned long max,
		       unsigned long *out);
char ti_letter_from_type(unsigned type);
/*
 * A node id "S-0002c90300001234" (also H-, R-, ?-). Returns 1 and
 * consumes it, 0 (cursor unchanged) when the text is not one.
 */
int ti_parse_node_id(struct cur *c, uint8_t *type, uint64_t *guid);
/*
 * "4xHDR", "1xSDR", "4xFDR10", "??x???": width and speed bits, 0 for what is
 * unknown ("??", "???", a name this version does not know). Returns false
 * when the token does not have that shape at all.
 */
bool ti_parse_rate(const struct cur *tok, uint8_t *width, uint16_t *speed);
/* A token for a message: quoted, escaped, cut to fit buf. */
const char *ti_show(const struct cur *tok, char *buf, size_t cap);

/* ---- the parser (topo_parse.c) ------------------------------------------- */

int ti_parse_line(struct parser *ps, const char *b, const char *e);
