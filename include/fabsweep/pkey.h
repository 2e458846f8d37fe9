/* SPDX-License-Identifier: MIT */
/*
 * Partitions: each port's P_Key table as the scan read it (snap->pkeys),
 * and the membership questions every user of them asks (the pkey.* rules,
 * `fabsweep ready`). The model is core/pkey.c; docs/partitions.md
 * describes the semantics, docs/schema.md the SQL form.
 *
 * A P_Key is 16 bits: the low 15 the partition, the top bit membership
 * (1 full, 0 limited). Two ports can talk in a partition when both are
 * members and at least one is a full member; 0x7fff is the default
 * partition (0xffff full, 0x7fff limited).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_snapshot;
struct fab_arena;

#define FAB_PKEY_BLOCK 32        /* P_Keys per P_KeyTable block (one MAD) */
#define FAB_PKEY_FULL 0x8000u    /* the membership bit */
#define FAB_PKEY_MASK 0x7fffu    /* the partition */
#define FAB_PKEY_DEFAULT 0x7fffu /* the default partition */
/* Entries read of one port at most (PartitionCap is 16 bits; the scan
 * reads no more than this many blocks of a port). */
#define FAB_PKEY_MAX_ENTRIES 4096

/* PortInfo enforcement bits of a switch external port (fab_port_pkeys.enforce). */
enum {
	FAB_PKEY_ENF_INB = 1 << 0,        /* PartitionEnforcementInbound */
	FAB_PKEY_ENF_OUTB = 1 << 1,       /* PartitionEnforcementOutbound */
	FAB_PKEY_FILTER_RAW_INB = 1 << 2, /* FilterRawInbound */
	FAB_PKEY_FILTER_RAW_OUTB = 1 << 3,
};

/* A port's membership in one partition. */
enum fab_pkey_member {
	FAB_PKEY_NONE = 0,
	FAB_PKEY_LIMITED,
	FAB_PKEY_FULL_MEMBER,
};

/* One port's table. status is an enum fab_lft_status (routing.h): the same
 * three words, ok, partial (some blocks did not answer: their entries are
 * 0) and failed (nothing read: n is 0). */
struct fab_port_pkeys {
	uint32_t port_idx; /* in snap->ports */
	uint8_t status;
	uint8_t enforce;   /* FAB_PKEY_ENF_* of PortInfo (switch external ports; 0 on CAs) */
	uint16_t cap;      /* entries the port has: NodeInfo.PartitionCap (CA) or
			    * SwitchInfo.PartitionEnforcementCap (switch) */
	uint16_t n;        /* entries in pkey (trailing empty entries dropped) */
	const uint16_t *pkey; /* n raw P_Keys in table order, 0 empty; the part's arena */
};

/* snap->pkeys. */
struct fab_pkeys {
	struct fab_port_pkeys *ports; /* ascending port_idx */
	size_t n, cap;
	struct fab_arena *arena;
};

/* A new empty part (owned by the caller), NULL on ENOMEM; free accepts NULL. */
struct fab_pkeys *fab_pkeys_new(void);
void fab_pkeys_free(struct fab_pkeys *k);
/* snap->pkeys, created when missing; NULL on ENOMEM. */
struct fab_pkeys *fab_snapshot_pkeys(struct fab_snapshot *snap);
/* Appends a zeroed entry (valid until the next append), in ascending
 * port_idx. NULL on ENOMEM. */
struct fab_port_pkeys *fab_pkeys_add(struct fab_pkeys *k);
/* n entries of zeroed table memory owned by k; NULL on ENOMEM. */
uint16_t *fab_pkeys_alloc(struct fab_pkeys *k, size_t n);
/* Whether the snapshot holds P_Key tables (the scan read them). */
bool fab_pkeys_present(const struct fab_snapshot *snap);
/* A port's table, NULL when the snapshot has none for it. O(log n). */
const struct fab_port_pkeys *fab_pkeys_of(const struct fab_snapshot *snap, uint32_t port_idx);
/* The port's membership in partition (15 bits): the best entry for it. */
enum fab_pkey_member fab_pkeys_member(const struct fab_port_pkeys *t, unsigned partition);
/*
 * The port's memberships, one raw P_Key per partition it is in (the full
 * membership bit set when any entry for it is full), ascending by
 * partition, into out (room for t->n entries); returns how many. NULL t:
 * none. O(n log n) in the table's entries.
 */
size_t fab_pkeys_memberships(const struct fab_port_pkeys *t, uint16_t *out);
/*
 * A partition two ports can talk in: the given one (want, 15 bits) or,
 * when want is 0, the first of a's entries that b shares with a full
 * member on at least one side. Returns the partition, or -1 when there is
 * none; *limited_only (may be NULL) is set when they share one only as
 * limited members both (want's, or any). O(a.n + b.n) with a small table,
 * O(a.n * b.n) worst case on tables of a few entries each.
 */
int fab_pkeys_shared(const struct fab_port_pkeys *a, const struct fab_port_pkeys *b,
		     unsigned want, bool *limited_only);
/* "0x8001" of a raw P_Key into buf (7 bytes). */
const char *fab_pkey_format(unsigned pkey, char *buf);
/* Parses "0x8001" (hex) or "32769" (decimal), at most 0xffff; -1 when it is not one. */
int fab_pkey_parse(const char *s);
