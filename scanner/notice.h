/* SPDX-License-Identifier: MIT */
/*
 * Private to scanner/: the SA's event MADs as watch uses them (docs/watch.md,
 * "Link events"), pure functions over 256-byte MADs so that they are tested
 * on captured bytes (fixtures/mads/):
 *
 *   - InformInfo (SA attribute 0x0003), the subscription: every generic
 *     trap at once (GID 0, LIDRangeBegin 0xFFFF: OpenSM checks no access
 *     rights and never drops such a subscription; IsGeneric 1, Type,
 *     TrapNumber 0xFFFF, ProducerType 0xFFFFFF), QPN 1;
 *   - the Report(Notice) the SM forwards (method 0x06, attribute 0x0002)
 *     and its ReportResp;
 *   - the SMInfo answer of the simulator-only Report path (notactive).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_SA_ATTR_NOTICE 0x0002
#define FAB_SA_ATTR_INFORMINFO 0x0003
#define FAB_INFORM_LEN 36

/* The traps watch acts on (IBA 14.2.5.1, numbers as in the Notice). */
enum {
	FAB_TRAP_GID_IN = 64,       /* a port came into service (the SM's own) */
	FAB_TRAP_GID_OUT = 65,      /* a port went out of service (the SM's own) */
	FAB_TRAP_LINK_STATE = 128,  /* a switch's port changed state */
	FAB_TRAP_CAPMASK = 144,     /* a port's CapabilityMask changed */
	FAB_TRAP_SYSGUID = 145,     /* a node's SystemImageGUID changed */
	FAB_TRAP_BAD_MKEY = 256,
	FAB_TRAP_BAD_PKEY = 257,
	FAB_TRAP_BAD_QKEY = 258,
	FAB_TRAP_BAD_SWITCH_PKEY = 259,
};

/* The InformInfo of watch's subscription (subscribe) or its end. */
void fab_inform_encode(uint8_t ii[FAB_INFORM_LEN], bool subscribe);

/*
 * The SA's answer to an InformInfo Set (a whole MAD): 0 when it is a
 * GetResp echoing our InformInfo with status 0; -EREMOTEIO when the SA
 * refused it (*status_out: the MAD status); -EPROTO when it is something
 * else.
 */
int fab_inform_check(const uint8_t *mad, bool subscribe, unsigned *status_out);

/* A Notice, decoded. */
struct fab_notice {
	uint32_t tid;        /* the Report's transaction ID, low 32 bits */
	bool generic;
	uint8_t type;        /* 0 fatal, 1 urgent, 2 security, 3 SM, 4 info */
	uint32_t producer;   /* 1 CA, 2 switch, 3 router, 4 class manager */
	uint16_t trap;       /* generic: the trap number */
	uint16_t issuer_lid;
	uint64_t issuer_guid; /* IssuerGID's interface ID: 0 when absent */
	uint16_t lid;        /* 128: the switch; 144, 145: the port or node; 256-259: the source */
	uint64_t guid;       /* 64, 65: the port (the GID's interface ID); 145: the new SystemImageGUID */
	uint32_t cap_mask;   /* 144 */
	uint16_t lid2;       /* 257-259: the other end */
	uint32_t key;        /* 256: the M_Key's low 32 bits...; 257, 259: the P_Key; 258: the Q_Key */
	uint64_t mkey;       /* 256 */
	uint16_t attr_id;    /* 256: the attribute the bad M_Key came with */
	uint8_t method;      /* 256 */
	uint16_t sw_lid;     /* 259 */
	uint8_t port;        /* 259 */
};

/* A Report(Notice) MAD: 0 and *out, or -EPROTO when it is not one. */
int fab_notice_decode(const uint8_t *mad, struct fab_notice *out);

/* The ReportResp to report: the same TID and Notice, method 0x86,
 * status 0 (into resp, 256 bytes). */
void fab_report_resp(const uint8_t *report, uint8_t *resp);

/* Whether mad is an SMInfo Get (LID-routed or directed route). */
bool fab_sminfo_is_get(const uint8_t *mad);
/* The GetResp to an SMInfo Get: this port (port_guid) is an SM that is not
 * active, priority 0 (into resp, 256 bytes). */
void fab_sminfo_notactive(const uint8_t *get, uint64_t port_guid, uint8_t *resp);

/*
 * What a notice says, one line for the events relation ("link state change
 * at switch LID 5 (0x0002c90300000020)"); names nothing it was not told.
 */
void fab_notice_describe(const struct fab_notice *n, char *buf, size_t len);
